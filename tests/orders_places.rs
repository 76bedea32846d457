//! Issue #15, place phrases as players write them at Brawner's Farm:
//! relative positions to units and places, direction before distance,
//! paces and rods, places chosen by the order's sense, off-table
//! destinations, and errors whose examples come from the scenario.

mod orders_support;

use adjutant::identity::{EnemyNames, IdentityPolicy};
use adjutant::orders::{Item, ParseContext, normalise, receipt_notes};
use adjutant::rules::iron_brigade::orders::{Action, Step};
use adjutant::rules::iron_brigade::state::Pos;
use orders_support::*;

/// A player of Brawner's Farm under the default (hidden) identity policy,
/// seeing `visible` (lettered for his side).
fn player<'g>(g: &'g Game, officer: &str, visible: &[&str]) -> ParseContext<'g> {
    let mut ctx = g.ctx(&[officer], visible);
    let mut names = EnemyNames::new(IdentityPolicy::Hidden);
    names.record_seen(&g.state, ctx.side, 3, ctx.visible_enemies.iter().copied());
    ctx.enemy_names = names;
    ctx
}

/// The order's steps, its receipt line and the receipt's notes.
fn read(ctx: &ParseContext, text: &str) -> (Vec<Step>, String, Vec<String>) {
    let m = parse(ctx, text);
    assert!(m.errors.is_empty(), "{text}: {:?}", m.errors);
    let item = m.items.first().expect("an order");
    let Item::Unit { steps, .. } = item else {
        panic!("a unit order")
    };
    (
        steps.clone(),
        normalise(item, ctx),
        receipt_notes(item, ctx),
    )
}

fn dest(steps: &[Step]) -> Pos {
    steps
        .iter()
        .find_map(|s| match &s.action {
            Action::Move(m) | Action::Retreat(m) => m.waypoints.last().copied(),
            _ => None,
        })
        .expect("a move")
}

fn near(a: Pos, b: Pos) -> bool {
    a.distance(b) < 0.05
}

fn union(g: &Game) -> ParseContext<'_> {
    player(
        g,
        "Gibbon",
        &["4th Virginia", "2nd Virginia", "5th Virginia"],
    )
}

#[test]
fn form_on_the_left_of_a_friendly_regiment() {
    let g = game("brawners-farm.toml");
    let ctx = union(&g);
    let (steps, receipt, _) = read(&ctx, "7th Wisconsin: form on the left of the 2nd Wisconsin");
    // The 2nd Wisconsin stands in line at (32, 24) facing north: the 7th
    // goes to its left (west), level with it, and forms line facing north.
    let p = dest(&steps);
    assert!((p.y - 24.0).abs() < 0.05 && p.x < 32.0, "{p:?}");
    assert_eq!(
        receipt,
        format!(
            "7th Wisconsin: advance to ({}, 24); on arrival form line facing north (0°) — the place read as: on the left of 2nd Wisconsin, where it stands now",
            (p.x * 10.0).round() / 10.0
        )
    );
    // "on the right of the 6th", "up", and the bare ordinal of a unit.
    let (steps, _, _) = read(&ctx, "7th Wisconsin: move up on the right of the 2nd");
    assert!(dest(&steps).x > 32.0);
    // "beside" takes the nearer flank and says which.
    let (_, _, notes) = read(&ctx, "7th Wisconsin: advance beside the 2nd Wisconsin");
    assert_eq!(
        notes,
        ["beside 2nd Wisconsin: on its right, the flank nearer the unit"]
    );
}

#[test]
fn behind_a_fence_on_the_map_is_a_place_not_a_unit() {
    let g = game("brawners-farm.toml");
    let ctx = union(&g);
    // Today's "no unit of your side is called 'the field fence'" is gone:
    // the fence is a place. The Union front is north (toward the enemy it
    // sees), so behind the fence is south of it, the front rank 1/2" from
    // it (within the 1" at which a fence is cover).
    let (steps, receipt, _) = read(&ctx, "19th Indiana: pull back behind the field fence");
    assert!(matches!(steps[0].action, Action::Retreat(_)), "{receipt}");
    let p = dest(&steps);
    // The fence's west end, the point nearest the 19th at (21, 13), is (30, 20).
    assert!(
        p.y < 20.0 && p.distance(Pos::new(30.0, 20.0)) < 3.0,
        "{p:?}"
    );
    // With a distance: 100 paces behind the turnpike fence.
    let (steps, _, _) = read(
        &ctx,
        "19th Indiana: fall back 100 paces behind the turnpike fence",
    );
    assert!(dest(&steps).y < 9.5);
}

#[test]
fn a_written_distance_is_from_the_unit() {
    let g = game("brawners-farm.toml");
    let ctx = union(&g);
    // Battery B at (28, 12) facing north: 100 yards (4" at 25 yd/in)
    // from where it stands, as a player lays the tape (#15 corpus: "take
    // position 100 yards in rear of the battery").
    let (near_steps, _, _) = read(&ctx, "7th Wisconsin: move in rear of the battery");
    let (far_steps, _, _) = read(&ctx, "7th Wisconsin: move 100 yards in rear of the battery");
    let (a, b) = (dest(&near_steps), dest(&far_steps));
    assert!(near(Pos::new(a.x, 0.0), Pos::new(28.0, 0.0)));
    // 4" behind its centre, or as near as the two units' depths allow.
    assert!(
        b.y <= 8.0 + 1e-9 && b.y > 7.0 && (b.x - 28.0).abs() < 0.05,
        "{b:?}"
    );
    // Never so close that the two overlap: 10 yards is taken as touching
    // ranks.
    let (touch, _, _) = read(&ctx, "7th Wisconsin: move 10 yards in rear of the battery");
    assert!(dest(&touch).y < 12.0 - 0.4 - 0.01, "{:?}", dest(&touch));
}

#[test]
fn relative_to_an_enemy_only_if_seen() {
    let g = game("brawners-farm.toml");
    // Lawton's Georgians see the 2nd Wisconsin, lettered A for them.
    let ctx = player(&g, "Lawton", &["2nd Wisconsin"]);
    let (steps, _, _) = read(&ctx, "60th Georgia: advance to 50 paces in front of A");
    // The 2nd faces north: its front is north of (32, 24).
    let p = dest(&steps);
    assert!(near(Pos::new(p.x, 0.0), Pos::new(32.0, 0.0)) && p.y > 24.0);
    // An enemy they have not seen is answered like a word that names
    // nothing, and never suggested; the real name of a seen one too.
    for hidden in ["the 6th Wisconsin", "the 2nd Wisconsin"] {
        let m = parse(&ctx, &format!("60th Georgia: move behind {hidden}"));
        let e = &m.errors[0];
        assert!(
            e.message.starts_with(&format!(
                "no unit of your side, enemy in sight or place you know of is called '{hidden}'"
            )),
            "{e}"
        );
        assert!(!e.to_string().contains("Wisconsin: "), "{e}");
        assert!(
            e.suggestions.iter().all(|s| !s.contains("Wisconsin")),
            "{:?}",
            e.suggestions
        );
    }
}

#[test]
fn direction_before_distance_and_paces_and_rods() {
    let g = game("brawners-farm.toml");
    let ctx = union(&g);
    let pairs = [
        ("move NE 200 yds", "move 200 yds NE"),
        ("ADVANCE NORTH 8 INCHES", "advance 8 inches north"),
        ("advance north-west 3\"", "advance 3\" north-west"),
    ];
    for (a, b) in pairs {
        let (x, _, _) = read(&ctx, &format!("6th Wisconsin: {a}"));
        let (y, _, _) = read(&ctx, &format!("6th Wisconsin: {b}"));
        assert_eq!(x, y, "{a} / {b}");
    }
    // The 6th Wisconsin is at (46, 14.5). 90 paces = 75 yards = 3"; 25
    // rods = 137.5 yards = 5.5" (APSoF IV.A, 25 yards to the inch).
    let (s, _, _) = read(&ctx, "6th Wisconsin: advance 90 paces north");
    assert!(near(dest(&s), Pos::new(46.0, 17.5)), "{:?}", dest(&s));
    let (s, _, _) = read(&ctx, "6th Wisconsin: advance north 25 rods");
    assert!(near(dest(&s), Pos::new(46.0, 20.0)), "{:?}", dest(&s));
}

#[test]
fn falling_back_to_the_woods_goes_to_the_woods_in_the_rear() {
    let g = game("brawners-farm.toml");
    let ctx = union(&g);
    let (steps, receipt, notes) = read(&ctx, "2nd Wisconsin: fall back to the woods");
    // Into the woods by their nearer side, not through them to the middle.
    assert_eq!(receipt, "2nd Wisconsin: retreat to (14.8, 26.3)");
    let woods = &g
        .state
        .terrain
        .areas
        .iter()
        .find(|a| a.name == "Brawner's woods")
        .unwrap()
        .outline;
    assert!(
        adjutant::orders::context::inside(woods, dest(&steps)),
        "{:?}",
        dest(&steps)
    );
    assert_eq!(
        notes[..2],
        [
            "'the woods' could be the woods (44, 38) or Brawner's woods (10, 23); falling back, took Brawner's woods (10, 23), the one to your rear, away from the enemy",
            "falling back into Brawner's woods: to just inside its nearer edge, (14.8, 26.3)"
        ]
    );
    // Its way there passes the enemy line as the Union has seen it: said.
    assert!(
        notes
            .get(2)
            .is_some_and(|n| n.contains("goes through enemy A")),
        "{notes:?}"
    );
    // An advance keeps the name's own match, and says what else it could be
    // and that it lies behind the enemy line as the Union has seen it.
    let (steps, _, notes) = read(&ctx, "2nd Wisconsin: advance to the woods");
    assert!(near(dest(&steps), Pos::new(44.0, 38.0)));
    assert!(
        notes.iter().any(|n| n.contains("took the woods (44, 38)")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("behind enemy") && n.contains("beyond the enemy's line")),
        "{notes:?}"
    );
    // The Confederates' rear is north: the same words take the north woods.
    let grey = player(&g, "Lawton", &["2nd Wisconsin"]);
    // The 26th stands in them already (45, 35.5): it goes straight back
    // (away from the enemy its side has seen) through them, staying inside.
    let (steps, _, notes) = read(&grey, "26th Georgia: fall back to the woods");
    let p = dest(&steps);
    let north_woods = &g
        .state
        .terrain
        .areas
        .iter()
        .find(|a| a.name == "the north woods")
        .unwrap()
        .outline;
    assert!(
        adjutant::orders::context::inside(north_woods, p) && p.y > 35.5,
        "{p:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("straight back")),
        "{notes:?}"
    );
}

#[test]
fn the_edge_of_the_woods_for_guns_inside_it_is_the_front_edge() {
    let g = game("brawners-farm.toml");
    let grey = player(&g, "Lawton", &["2nd Wisconsin"]);
    // Carpenter's Battery stands in the north woods at (44, 40). Before,
    // "the edge" was the nearest, its rear (north) edge; now the edge toward
    // the enemy, where it can unlimber facing south and see out.
    let (steps, _, notes) = read(
        &grey,
        "Carpenter's Battery: move to the edge of the woods and unlimber facing south",
    );
    let p = dest(&steps);
    assert!(p.y < 35.0, "{p:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("the unit is in the north woods")),
        "{notes:?}"
    );
    // "The far edge" is where the line from the unit through the middle
    // of the area leaves it: for the 2nd Wisconsin at (32, 24), north.
    let ctx = union(&g);
    let (steps, _, _) = read(
        &ctx,
        "2nd Wisconsin: advance to the far edge of the north woods",
    );
    assert!(dest(&steps).y > 40.0, "{:?}", dest(&steps));
    // A Union regiment south of the woods still goes to the near edge.
    let ctx = union(&g);
    let (steps, _, _) = read(
        &ctx,
        "2nd Wisconsin: advance to the edge of the north woods",
    );
    assert!(dest(&steps).y < 35.0);
}

#[test]
fn a_destination_off_the_table_is_told_with_where_the_unit_stops() {
    let g = game("brawners-farm.toml");
    let ctx = union(&g);
    for text in [
        "2nd Wisconsin: advance to (-2, 2.9)",
        "2nd Wisconsin: advance to -2, 2.9",
    ] {
        let (steps, receipt, notes) = read(&ctx, text);
        assert!(near(dest(&steps), Pos::new(-2.0, 2.9)));
        assert_eq!(receipt, "2nd Wisconsin: advance to (-2, 2.9)");
        assert_eq!(
            notes,
            [
                "(-2, 2.9) is off the table (72\" x 48\"); the move goes only as far as the table edge, to (0, 2.9), and stops there"
            ]
        );
    }
}

#[test]
fn a_route_through_a_seen_enemy_is_told_and_an_unseen_one_never() {
    let g = game("brawners-farm.toml");
    // Gibbon sees only the 5th Virginia (lettered A for him) at (31, 31).
    let ctx = player(&g, "Gibbon", &["5th Virginia"]);
    let (_, _, notes) = read(&ctx, "2nd Wisconsin: advance to (31, 40)");
    assert_eq!(
        notes,
        [
            "the route to (31, 40) goes through enemy A (at (31, 31)); the unit will stop where the rules stop it"
        ]
    );
    // The 2nd Virginia stands at (26, 30), unseen: no word of it.
    let (_, _, notes) = read(&ctx, "2nd Wisconsin: advance to (26, 40)");
    assert!(notes.iter().all(|n| !n.contains("(26, 30)")), "{notes:?}");
    assert!(notes.iter().all(|n| !n.contains("Virginia")), "{notes:?}");
}

#[test]
fn errors_give_examples_from_the_scenario_played() {
    let g = game("brawners-farm.toml");
    let ctx = union(&g);
    let m = parse(&ctx, "2nd Wisconsin: advance");
    let e = m.errors[0].to_string();
    assert!(e.contains("'to the Brawner farm'"), "{e}");
    assert!(e.contains("'behind 2nd Wisconsin'"), "{e}");
    assert!(!e.contains("ford") && !e.contains("Ohio"), "{e}");
    let m = parse(&ctx, "2nd Wisconsin: fall back");
    let e = m.errors[0].to_string();
    assert!(
        e.contains("'to the Brawner farm'") && !e.contains("ford"),
        "{e}"
    );
    // Fire examples name the enemy as this player may: by a letter his
    // side has given, never a real name, nor the training scenario's.
    for text in [
        "2nd Wisconsin: fire 8 castings",
        "2nd Wisconsin: split its fire between A",
        "2nd Wisconsin: combine fire",
        "Gibbon: sing",
    ] {
        let m = parse(&ctx, text);
        let e = m.errors[0].to_string();
        for bad in ["Tennessee", "Ridley", "Ohio", "orchard", "Virginia"] {
            assert!(!e.contains(bad), "{text}: {e}");
        }
    }
    let m = parse(&ctx, "2nd Wisconsin: fire 8 castings");
    assert!(
        m.errors[0].message.contains("'8 castings at enemy A'"),
        "{:?}",
        m.errors
    );
    let m = parse(&ctx, "2nd Wisconsin: combine fire");
    assert!(
        m.errors[0]
            .message
            .contains("'combine fire with 19th Indiana'"),
        "{:?}",
        m.errors
    );
    let m = parse(&ctx, "Gibbon: sing");
    assert!(
        m.errors[0].message.contains("'ride to the Brawner farm'"),
        "{:?}",
        m.errors
    );
}

#[test]
fn old_relative_orders_keep_their_meaning() {
    // The training scenario's pinned forms read as before.
    let g = game("training.toml");
    let ctx = blue(&g);
    let tenth = g.state.unit(g.unit("10th Ohio")).unwrap().clone();
    let f = adjutant::rules::iron_brigade::geometry::footprint(&tenth);
    let twelfth = g.state.unit(g.unit("12th Ohio")).unwrap().clone();
    let (w, d) =
        adjutant::rules::iron_brigade::geometry::formation_size(&twelfth, twelfth.formation);
    let (s, _, _) = read(&ctx, "12th Ohio: advance behind the 10th Ohio");
    assert!(near(
        dest(&s),
        f.to_table(0.0, -(f.depth / 2.0 + d / 2.0 + 2.0))
    ));
    let (s, _, _) = read(&ctx, "12th Ohio: advance on the left of the 10th Ohio");
    assert!(near(
        dest(&s),
        f.to_table(-(f.frontage / 2.0 + w / 2.0 + 1.0), 0.0)
    ));
    let (s, _, _) = read(&ctx, "12th Ohio: advance in support of the 10th Ohio");
    assert!(near(
        dest(&s),
        f.to_table(0.0, -(f.depth / 2.0 + d / 2.0 + 2.0))
    ));
}

/// Every place example docs/orders.md gives (its "Places" table, on the
/// training scenario) reads, so the page stays true.
#[test]
fn the_documented_place_examples_read() {
    let g = game("training.toml");
    let ctx = blue(&g);
    for order in [
        "10th Ohio: advance to the near edge of the wood",
        "10th Ohio: advance to the edge of the wood",
        "10th Ohio: advance to (-2, 2.9)",
        "10th Ohio: move NE 200 yds",
        "10th Ohio: ADVANCE NORTH 8 INCHES",
        "10th Ohio: advance north-west 3\"",
        "10th Ohio: advance north 300 yards of the crossroads",
        "10th Ohio: advance 80 paces north",
        "10th Ohio: fall back 20 rods",
        "10th Ohio: advance 150 feet east",
        "14th Ohio: advance to the left of Miller's fence",
        "14th Ohio: advance beside the 12th Ohio",
        "14th Ohio: advance alongside the 12th Ohio",
        "14th Ohio: advance next to the 12th Ohio",
        "14th Ohio: advance abreast of the 12th Ohio",
        "14th Ohio: advance in rear of Battery A",
        "14th Ohio: advance behind Miller's fence",
        "14th Ohio: advance in front of the wood",
        "14th Ohio: advance behind 5th Tennessee",
        "14th Ohio: advance 100 yards in rear of Battery A",
        "14th Ohio: advance 50 paces in front of 5th Tennessee",
        "14th Ohio: advance 2 inches on the left of the 12th Ohio",
        "14th Ohio: form on the left of the 10th Ohio",
        "14th Ohio: form line on the right of the 12th Ohio facing north",
        "14th Ohio: move up on the right of the 10th Ohio",
        "14th Ohio: advance to a position on the left of the 10th Ohio",
        "14th Ohio: advance to the far edge of the wood",
        "14th Ohio: advance to the far side of the wood",
    ] {
        let m = parse(&ctx, order);
        assert!(m.errors.is_empty(), "{order}: {:?}", m.errors);
        assert_eq!(m.items.len(), 1, "{order}");
    }
}

/// Words of the place phrases, for the property below.
const PLACE_VOCAB: &[&str] = &[
    "2nd Wisconsin:",
    "Battery B:",
    "Gibbon:",
    "advance",
    "move",
    "up",
    "fall back",
    "form",
    "line",
    "unlimber",
    "facing",
    "south",
    "NE",
    "north",
    "200",
    "-2",
    "2.9",
    "1e308",
    "0",
    "yds",
    "paces",
    "rods",
    "feet",
    "inches",
    "\"",
    "of",
    "from",
    "to",
    "(",
    ")",
    ",",
    ";",
    "the",
    "edge of",
    "near",
    "woods",
    "the woods",
    "field fence",
    "the 2nd",
    "A",
    "B",
    "enemy",
    "on the left of",
    "on the right of",
    "behind",
    "in rear of",
    "in front of",
    "in support of",
    "beside",
    "next to",
    "the left of",
    "then",
    "on arrival",
    "\n",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 400, ..Default::default() })]

    /// No place phrase makes the parser or the receipt panic, and errors
    /// point inside the text.
    #[test]
    fn place_phrases_never_panic(
        ws in proptest::collection::vec(proptest::sample::select(PLACE_VOCAB), 0..30)
    ) {
        let g = game("brawners-farm.toml");
        let text = ws.join(" ");
        for ctx in [union(&g), player(&g, "Lawton", &["2nd Wisconsin"])] {
            let m = parse(&ctx, &text);
            let lines = text.split('\n').count().max(1);
            for e in &m.errors {
                proptest::prop_assert!(e.line >= 1 && e.line <= lines, "{e:?}");
            }
            for i in &m.items {
                let _ = normalise(i, &ctx);
                for n in receipt_notes(i, &ctx) {
                    proptest::prop_assert!(!n.contains("Virginia") && !n.contains("Georgia"), "{n}");
                }
            }
        }
    }
}

/// "Gibbon: ride to the 19th Indiana" (session 8, from a blind case):
/// riding to a regiment alone is joining it — it moves in the same turn,
/// so he goes where it goes — and the receipt says how to stop at the
/// ground it stands on now instead. On the way to somewhere else, the
/// regiment's place is a waypoint, said to be where it stands now.
#[test]
fn an_officer_riding_to_a_unit_is_told_whose_place_it_is() {
    let g = game("brawners-farm.toml");
    let ctx = union(&g);
    let m = parse(&ctx, "Gibbon: ride to the 19th Indiana");
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let item = m.items.first().expect("an order");
    assert!(matches!(item, Item::Officer { .. }), "{item:?}");
    assert!(
        normalise(item, &ctx).starts_with("Gibbon: ride with 19th Indiana"),
        "{}",
        normalise(item, &ctx)
    );
    let notes = receipt_notes(item, &ctx);
    assert!(
        notes.iter().any(
            |n| n.starts_with("'to the 19th Indiana' read as: ride with it")
                && n.contains("write 'ride to (")
        ),
        "{notes:?}"
    );
    let m = parse(
        &ctx,
        "Gibbon: ride to the 19th Indiana, then to the orchard",
    );
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let item = m.items.first().expect("an order");
    let notes = receipt_notes(item, &ctx);
    assert!(
        notes.iter().any(
            |n| n.starts_with("'to the 19th Indiana' read as: where it stands now")
                && n.contains("write 'ride with the 19th Indiana'")
        ),
        "{notes:?}"
    );
}

/// One order a line, no blank lines between (#15, found by play): each
/// line is its own order, and what the receipt notes of one (the ridge
/// chosen for Battery B) is not repeated under the others.
#[test]
fn one_order_a_line_keeps_each_lines_notes_to_itself() {
    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["Gibbon"], &[]);
    let parsed = adjutant::orders::parse_mail(
        "Capt. Campbell (Battery B): bring your guns into battery facing the ridge.\n\
         6th Wis - adv to the orchard, line\n\
         Gibbon rides to the 6th Wisconsin.\n",
        &ctx,
    );
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let read: Vec<(String, Vec<String>)> = parsed
        .items
        .iter()
        .map(|i| (normalise(i, &ctx), receipt_notes(i, &ctx)))
        .collect();
    assert_eq!(read.len(), 3, "{read:?}");
    let battery = &read[0];
    assert!(
        battery.0.starts_with("Battery B") && battery.0.contains("unlimber"),
        "{read:?}"
    );
    assert!(battery.1.iter().any(|n| n.contains("ridge")), "{read:?}");
    for (r, notes) in &read[1..] {
        assert!(!notes.iter().any(|n| n.contains("ridge")), "{r}: {notes:?}");
    }
    assert!(read[1].0.starts_with("6th Wisconsin: advance") && read[1].0.contains("line"));
    assert!(read[2].0.starts_with("Gibbon: ride"));
}
