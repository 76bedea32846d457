//! The written-order language against the real scenarios: every verb,
//! every place form, every error message, APSoF I.C.2's four examples and
//! the Brawner's Farm mail of design.md.

mod orders_support;

use adjutant::orders::{DispatchTo, Item, ParsedMail, expected_effective_turn, normalise};
use adjutant::rules::iron_brigade::kinds::{Arm, Formation};
use adjutant::rules::iron_brigade::orders::{
    Action, Direction, FireTarget, Gait, MoveOrder, Step, Trigger,
};
use adjutant::rules::iron_brigade::state::Pos;
use orders_support::*;

/// The steps of the only item, failing with the errors if there is none.
fn steps(m: &ParsedMail) -> Vec<Step> {
    assert!(m.errors.is_empty(), "errors: {:#?}", m.errors);
    assert_eq!(m.items.len(), 1, "{:#?}", m.items);
    match &m.items[0] {
        Item::Unit { steps, .. } => steps.clone(),
        other => panic!("not a unit order: {other:?}"),
    }
}

fn actions(m: &ParsedMail) -> Vec<Action> {
    steps(m).into_iter().map(|s| s.action).collect()
}

fn one_error(m: &ParsedMail) -> &adjutant::orders::OrderError {
    assert_eq!(m.errors.len(), 1, "{:#?} items {:#?}", m.errors, m.items);
    &m.errors[0]
}

fn mv(waypoints: Vec<Pos>) -> MoveOrder {
    MoveOrder {
        waypoints,
        by_road: false,
        formation: None,
        gait: Gait::March,
        fire_while_moving: false,
        backwards: false,
    }
}

fn close(a: Pos, b: Pos) -> bool {
    a.distance(b) < 1e-6
}

// ------------------------------------------------------------------ verbs

#[test]
fn advance_march_move_to_a_landmark() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let xr = g.landmark("Miller's Crossroads");
    for verb in ["advance", "March", "move", "Go", "proceed"] {
        let m = parse(&ctx, &format!("10th Ohio: {verb} to Miller's Crossroads."));
        assert_eq!(actions(&m), vec![Action::Move(mv(vec![xr]))], "{verb}");
    }
}

#[test]
fn advance_by_road_in_a_formation() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let m = parse(
        &ctx,
        "12th Ohio: advance by road to the crossroads in column",
    );
    let mut want = mv(vec![g.landmark("Miller's Crossroads")]);
    want.by_road = true;
    want.formation = Some(Formation::Column);
    assert_eq!(actions(&m), vec![Action::Move(want.clone())]);
    // A named road counts as "by road" too.
    let m = parse(
        &ctx,
        "12th Ohio: march up the Mill Road to the crossroads in column",
    );
    assert_eq!(actions(&m), vec![Action::Move(want)]);
}

#[test]
fn double_quick_is_the_double_quick_gait() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let mut want = mv(vec![g.landmark("the ford")]);
    want.gait = Gait::DoubleQuick;
    for text in [
        "10th Ohio: double quick to the ford",
        "10th Ohio: advance at the double to the ford",
        "10th Ohio: move to the ford at double quick",
    ] {
        assert_eq!(
            actions(&parse(&ctx, text)),
            vec![Action::Move(want.clone())],
            "{text}"
        );
    }
}

#[test]
fn form_a_formation_facing_a_direction() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let m = parse(&ctx, "14th Ohio: form line facing north-east");
    assert_eq!(
        actions(&m),
        vec![Action::Form {
            formation: Formation::Line,
            facing: Some(Direction::Degrees(45.0)),
        }]
    );
    for (text, f) in [
        ("14th Ohio: form column", Formation::Column),
        ("14th Ohio: deploy into skirmish order", Formation::Skirmish),
        ("14th Ohio: form company column", Formation::CompanyColumn),
        ("14th Ohio: form en masse", Formation::EnMasse),
    ] {
        assert_eq!(
            actions(&parse(&ctx, text)),
            vec![Action::Form {
                formation: f,
                facing: None
            }],
            "{text}"
        );
    }
}

#[test]
fn face_and_about_face() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let face = |t: &str| actions(&parse(&ctx, &format!("14th Ohio: {t}")));
    assert_eq!(
        face("face NW"),
        vec![Action::Face(Direction::Degrees(315.0))]
    );
    assert_eq!(
        face("face north west"),
        vec![Action::Face(Direction::Degrees(315.0))]
    );
    assert_eq!(
        face("face 270"),
        vec![Action::Face(Direction::Degrees(270.0))]
    );
    assert_eq!(face("about face"), vec![Action::Face(Direction::About)]);
    assert_eq!(
        face("face toward the ford"),
        vec![Action::Face(Direction::Toward(g.landmark("the ford")))]
    );
    assert_eq!(
        face("face the 5th Tennessee"),
        vec![Action::Face(Direction::TowardUnit(g.unit("5th Tennessee")))]
    );
    // 14th Ohio faces 45°: left is 315°.
    assert_eq!(
        face("face left"),
        vec![Action::Face(Direction::Degrees(315.0))]
    );
}

#[test]
fn fire_at_a_target_at_will_and_hold_fire() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let a = |t: &str| actions(&parse(&ctx, &format!("10th Ohio: {t}")));
    assert_eq!(a("fire at will"), vec![Action::Fire(FireTarget::AtWill)]);
    assert_eq!(a("open fire"), vec![Action::Fire(FireTarget::AtWill)]);
    assert_eq!(
        a("fire at the 5th Tennessee"),
        vec![Action::Fire(FireTarget::Unit(g.unit("5th Tennessee")))]
    );
    assert_eq!(
        a("fire at Ridley"),
        vec![Action::Fire(FireTarget::Unit(g.unit("Ridley's Battery")))]
    );
    assert_eq!(
        a("fire at the nearest enemy battery"),
        vec![Action::Fire(FireTarget::NearestOf(Arm::Artillery))]
    );
    assert_eq!(a("hold fire"), vec![Action::HoldFire]);
    assert_eq!(a("cease fire"), vec![Action::HoldFire]);
}

#[test]
fn fire_while_advancing_marks_the_move() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let mut want = mv(vec![g.landmark("Miller's Crossroads")]);
    want.fire_while_moving = true;
    for text in [
        "10th Ohio: advance to the crossroads; fire while advancing",
        "10th Ohio: advance to the crossroads firing as you go",
    ] {
        assert_eq!(
            actions(&parse(&ctx, text)),
            vec![Action::Move(want.clone())],
            "{text}"
        );
    }
}

#[test]
fn charge_a_visible_enemy() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let m = parse(&ctx, "10th Ohio: charge the 5th Tennessee at the double");
    assert_eq!(
        actions(&m),
        vec![Action::Charge {
            target: Some(g.unit("5th Tennessee")),
            to: None,
            gait: Gait::DoubleQuick,
        }]
    );
    let m = parse(&ctx, "10th Ohio: charge toward the ford");
    assert_eq!(
        actions(&m),
        vec![Action::Charge {
            target: None,
            to: Some(g.landmark("the ford")),
            gait: Gait::March,
        }]
    );
}

#[test]
fn hold_lie_down_stand_up() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let a = |t: &str| actions(&parse(&ctx, &format!("14th Ohio: {t}")));
    assert_eq!(a("hold"), vec![Action::Hold]);
    assert_eq!(a("hold your ground"), vec![Action::Hold]);
    assert_eq!(a("halt"), vec![Action::Hold]);
    assert_eq!(a("lie down"), vec![Action::LieDown]);
    assert_eq!(a("stand up"), vec![Action::StandUp]);
    assert_eq!(a("hold and lie down"), vec![Action::Hold, Action::LieDown]);
}

#[test]
fn limber_unlimber_mount_dismount() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let a = |t: &str| actions(&parse(&ctx, t));
    assert_eq!(a("Battery A: limber up"), vec![Action::Limber]);
    assert_eq!(
        a("Battery A: unlimber facing north"),
        vec![Action::Unlimber {
            facing: Some(Direction::Degrees(0.0))
        }]
    );
    assert_eq!(
        a("Battery A: unlimber"),
        vec![Action::Unlimber { facing: None }]
    );
    // Issue #15: the 10th Ohio is infantry; only cavalry mounts (III.H).
    for t in ["10th Ohio: mount", "10th Ohio: dismount"] {
        let m = parse(&ctx, t);
        assert!(m.items.is_empty(), "{t}");
        assert!(
            m.errors[0]
                .message
                .contains("only cavalry mounts and dismounts (APSoF III.H)"),
            "{t}: {:?}",
            m.errors
        );
    }
}

#[test]
fn retreat_and_withdraw() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let want = Action::Retreat(mv(vec![g.landmark("Round Hill")]));
    for text in [
        "10th Ohio: retreat to Round Hill",
        "10th Ohio: withdraw to Round Hill",
        "10th Ohio: fall back to Round Hill",
    ] {
        assert_eq!(actions(&parse(&ctx, text)), vec![want.clone()], "{text}");
    }
    let mut back = mv(vec![g.landmark("Round Hill")]);
    back.backwards = true;
    assert_eq!(
        actions(&parse(&ctx, "10th Ohio: withdraw backwards to Round Hill")),
        vec![Action::Retreat(back)]
    );
    // No place: straight back from the facing (10th Ohio faces north).
    let m = parse(&ctx, "10th Ohio: fall back 3 inches");
    match &actions(&m)[0] {
        Action::Retreat(m) => assert!(close(m.waypoints[0], Pos::new(24.0, 8.0))),
        other => panic!("{other:?}"),
    }
}

#[test]
fn split_and_combine_when_the_option_is_on() {
    let mut g = game("training.toml");
    g.state.options.advanced_organization = true;
    let ctx = blue(&g);
    assert_eq!(
        actions(&parse(
            &ctx,
            "10th Ohio: split off 6 castings as 10th Ohio skirmishers"
        )),
        vec![Action::Split {
            castings: 6,
            new_name: "10th Ohio skirmishers".into()
        }]
    );
    assert_eq!(
        actions(&parse(&ctx, "12th Ohio: combine with the 10th Ohio")),
        vec![Action::Combine {
            with: g.unit("10th Ohio")
        }]
    );
}

#[test]
fn sequences_and_triggers() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let xr = g.landmark("Miller's Crossroads");
    let want = |trigger| {
        vec![
            Step {
                trigger: Trigger::Then,
                action: Action::Move(mv(vec![xr])),
            },
            Step {
                trigger,
                action: Action::Form {
                    formation: Formation::Line,
                    facing: None,
                },
            },
        ]
    };
    for sep in ["; ", ", then ", " then ", " and then ", ". "] {
        let m = parse(
            &ctx,
            &format!("10th Ohio: advance to the crossroads{sep}form line"),
        );
        assert_eq!(steps(&m), want(Trigger::Then), "{sep:?}");
    }
    for t in [
        ", on arrival form line",
        "; upon reaching the crossroads, form line",
        ", when there form line",
        " and form line on arrival",
    ] {
        let m = parse(&ctx, &format!("10th Ohio: advance to the crossroads{t}"));
        assert_eq!(steps(&m), want(Trigger::OnArrival), "{t:?}");
    }
    // "then to": another waypoint of the same move.
    let m = parse(
        &ctx,
        "10th Ohio: advance to the ford, then to the crossroads",
    );
    assert_eq!(
        actions(&m),
        vec![Action::Move(mv(vec![g.landmark("the ford"), xr]))]
    );
}

#[test]
fn follow_previous_orders() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let m = parse(&ctx, "10th Ohio: afterwards, hold\n\n12th Ohio: hold");
    let follows: Vec<bool> = m
        .items
        .iter()
        .map(|i| {
            matches!(
                i,
                Item::Unit {
                    follows_previous: true,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(follows, vec![true, false]);
}

// ------------------------------------------------------------------ places

#[test]
fn places_by_alias_and_by_terrain_feature() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let farm = g.landmark("the Miller farm");
    for name in [
        "the Miller farm",
        "Miller house",
        "Miller's farm",
        "the miller FARM",
    ] {
        let m = parse(&ctx, &format!("10th Ohio: advance to {name}"));
        assert_eq!(actions(&m), vec![Action::Move(mv(vec![farm]))], "{name}");
    }
    // A fence is a line: the point of it nearest the unit (10th at (24, 11)).
    let m = parse(&ctx, "10th Ohio: advance to Miller's fence");
    assert_eq!(
        actions(&m),
        vec![Action::Move(mv(vec![Pos::new(26.0, 14.0)]))]
    );
}

#[test]
fn places_by_coordinates() {
    let g = game("training.toml");
    let ctx = blue(&g);
    for text in ["(34, 12)", "34,12", "34, 12", "( 34 ,12 )"] {
        let m = parse(&ctx, &format!("10th Ohio: advance to {text}"));
        assert_eq!(
            actions(&m),
            vec![Action::Move(mv(vec![Pos::new(34.0, 12.0)]))],
            "{text}"
        );
    }
}

#[test]
fn places_by_compass_offset_in_yards_and_inches() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let xr = g.landmark("Miller's Crossroads");
    // 300 yards at 25 yards to the inch is 12 inches.
    let m = parse(
        &ctx,
        "10th Ohio: advance to 300 yards north of the crossroads",
    );
    assert_eq!(
        actions(&m),
        vec![Action::Move(mv(vec![Pos::new(xr.x, xr.y + 12.0)]))]
    );
    let m = parse(
        &ctx,
        "10th Ohio: advance to 5 inches east of the crossroads",
    );
    assert_eq!(
        actions(&m),
        vec![Action::Move(mv(vec![Pos::new(xr.x + 5.0, xr.y)]))]
    );
    let m = parse(&ctx, "10th Ohio: move 4\" south-west of the crossroads");
    match &actions(&m)[0] {
        Action::Move(mv) => {
            let d = 4.0 / 2f64.sqrt();
            assert!(
                close(mv.waypoints[0], Pos::new(xr.x - d, xr.y - d)),
                "{mv:?}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn places_relative_to_a_friendly_unit() {
    let g = game("training.toml");
    let ctx = blue(&g);
    // The 10th Ohio stands at (24, 11) facing north: left is west, behind
    // is south.
    let pos = |t: &str| match &actions(&parse(&ctx, &format!("12th Ohio: move {t}")))[0] {
        Action::Move(m) => m.waypoints[0],
        other => panic!("{other:?}"),
    };
    let left = pos("on the left of the 10th Ohio");
    assert!(left.x < 24.0 && (left.y - 11.0).abs() < 1e-9, "{left:?}");
    let right = pos("on the right of the 10th Ohio");
    assert!(right.x > 24.0 && (right.y - 11.0).abs() < 1e-9, "{right:?}");
    let behind = pos("behind the 10th Ohio");
    assert!(
        behind.y < 11.0 && (behind.x - 24.0).abs() < 1e-9,
        "{behind:?}"
    );
    let front = pos("in front of the 10th Ohio");
    assert!(front.y > 11.0 && (front.x - 24.0).abs() < 1e-9, "{front:?}");
}

#[test]
fn the_edge_of_an_area() {
    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["Gibbon"], &[]);
    let m = parse(&ctx, "2nd Wisconsin: advance to the edge of the woods");
    let centre = g.landmark("the woods");
    match &actions(&m)[0] {
        Action::Move(mv) => assert!(!close(mv.waypoints[0], centre), "{mv:?}"),
        other => panic!("{other:?}"),
    }
}

// ------------------------------------------------------------------ directives

#[test]
fn from_officer_moves_ready_report_history_dispatch_password() {
    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["Gibbon", "Doubleday"], &[]);
    let text = "PASSWORD hunter2\nFROM Doubleday:\n2nd Wisconsin: hold\n\nGibbon: ride to the orchard, then to the Brawner farm at the gallop\nREPORT\nHISTORY FROM 2 TO 4\nDISPATCH TO King: \"Enemy in force\nat the farm.\"\nREADY\n";
    let m = parse(&ctx, text);
    assert!(m.errors.is_empty(), "{:#?}", m.errors);
    assert!(m.ready);
    assert_eq!(m.report_request, Some(None));
    assert_eq!(m.history, Some((Some(2), Some(4))));
    assert_eq!(m.dispatches.len(), 1);
    assert_eq!(m.dispatches[0].to, DispatchTo::Officer(g.officer("King")));
    assert_eq!(m.dispatches[0].text, "Enemy in force at the farm.");
    match &m.items[0] {
        Item::Unit { issued_by, .. } => assert_eq!(*issued_by, g.officer("Doubleday")),
        other => panic!("{other:?}"),
    }
    match &m.items[1] {
        Item::Officer { order, .. } => {
            assert_eq!(order.officer, g.officer("Gibbon"));
            assert_eq!(
                order.waypoints,
                vec![g.landmark("the orchard"), g.landmark("the Brawner farm")]
            );
            assert!(order.double_time);
        }
        other => panic!("{other:?}"),
    }
    let m = parse(&ctx, "report turn 3");
    assert_eq!(m.report_request, Some(Some(3)));
}

#[test]
fn without_from_the_order_comes_from_the_lowest_own_officer_in_the_chain() {
    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["King", "Gibbon"], &[]);
    let m = parse(&ctx, "2nd Wis: hold");
    match &m.items[0] {
        Item::Unit { issued_by, .. } => assert_eq!(*issued_by, g.officer("Gibbon")),
        other => panic!("{other:?}"),
    }
}

// ------------------------------------------------------------------ tolerance

#[test]
fn names_tolerate_abbreviations_case_bullets_and_typos_in_verbs() {
    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["Gibbon"], &[]);
    let text = "- 2d Wisc.: HOLD\n* bat. b: Limber\n3) 19TH IND: advnace to the orchard\n\u{2022} 6th Wisconsin infantry: lie down";
    let m = parse(&ctx, text);
    assert!(m.errors.is_empty(), "{:#?}", m.errors);
    let units: Vec<_> = m
        .items
        .iter()
        .map(|i| match i {
            Item::Unit { unit, .. } => *unit,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        units,
        vec![
            g.unit("2nd Wisconsin"),
            g.unit("Battery B, 4th US Artillery"),
            g.unit("19th Indiana"),
            g.unit("6th Wisconsin")
        ]
    );
}

// ------------------------------------------------------------------ errors

#[test]
fn error_expected_a_place_after_to() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let m = parse(&ctx, "10th Ohio: advance to");
    let e = one_error(&m);
    assert_eq!(
        e.message,
        "expected a place: the end of the order is not a landmark, feature or unit you know of"
    );
    let m = parse(&ctx, "10th Ohio: advance");
    assert_eq!(
        one_error(&m).message,
        "expected a place after 'advance', such as 'to Miller's Crossroads', 'to (34, 12)', 'NE 200 yards' or 'behind 10th Ohio', found the end of the order"
    );
}

#[test]
fn error_unknown_place_with_suggestions_and_position() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let m = parse(&ctx, "14th Ohio: hold\n10th Ohio: advance to the frod");
    let e = one_error(&m);
    assert_eq!((e.line, e.column), (2, 23));
    assert_eq!(
        e.message,
        "expected a place: 'the frod' is not a landmark, feature or unit you know of"
    );
    assert_eq!(e.suggestions.first().map(String::as_str), Some("the ford"));
    assert_eq!(e.paragraph, "10th Ohio: advance to the frod");
    // The good paragraph still counts.
    assert_eq!(m.items.len(), 1);
}

#[test]
fn error_unknown_unit_and_not_under_command() {
    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["Doubleday"], &[]);
    let m = parse(&ctx, "7th Wisconsin: hold");
    assert_eq!(
        one_error(&m).message,
        "the 7th Wisconsin is not under your command"
    );
    let m = parse(&ctx, "76th New Yrok: hold");
    let e = one_error(&m);
    assert_eq!(
        e.message,
        "no unit or officer of yours is called '76th New Yrok'; start each order with '<unit name>:'"
    );
    assert_eq!(
        e.suggestions.first().map(String::as_str),
        Some("76th New York")
    );
    // Suggestions come only from units he commands.
    assert!(
        !e.suggestions.iter().any(|s| s.contains("Wisconsin")),
        "{:?}",
        e.suggestions
    );
}

#[test]
fn error_ambiguous_name() {
    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["Gibbon"], &[]);
    let m = parse(&ctx, "Wisconsin: hold");
    let e = one_error(&m);
    assert_eq!(
        e.message,
        "'Wisconsin' could mean more than one unit; write the name in full"
    );
    assert_eq!(e.suggestions.len(), 3);
}

#[test]
fn error_missing_formation_direction_head_and_trailing_words() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let msg = |t: &str| one_error(&parse(&ctx, t)).message.clone();
    assert_eq!(
        msg("10th Ohio: form"),
        "expected a formation after 'form': line, column, skirmish order, company column or en masse, found the end of the order"
    );
    assert_eq!(
        msg("10th Ohio: face"),
        "expected a direction: a compass point ('north-west', 'NW'), degrees ('270'), or 'toward' a place, found the end of the order"
    );
    assert_eq!(
        msg("10th Ohio: face 400"),
        "400 is not a compass bearing; give degrees from 0 (north) to 360"
    );
    assert_eq!(
        msg("advance to the ford"),
        "expected '<unit name>:' at the start of the order, as in '10th Ohio: hold'"
    );
    assert_eq!(
        msg("10th Ohio: hold banana"),
        "'banana' after 'hold' is not understood, so this order is not taken; end the order before it, or give it as another order after ';' or 'then', as in '10th Ohio: hold; then fire at will'"
    );
    assert_eq!(
        msg("10th Ohio: dance"),
        "'dance' is not an order Adjutant knows; begin with a verb such as 'advance', 'hold', 'fire', 'charge', 'form', 'face', 'retreat', 'support', 'follow' or 'rally', as in '10th Ohio: advance to Miller's Crossroads' or '10th Ohio: hold; then fire at 5th Tennessee'"
    );
    assert_eq!(
        msg("10th Ohio: advance 300 north of the ford"),
        "expected 'yards', 'paces', 'rods' or 'inches' after 300, found 'north'"
    );
    assert_eq!(
        msg("10th Ohio: advance to (34, 12"),
        "expected ')' to close the coordinates, found the end of the order"
    );
    assert_eq!(
        msg("10th Ohio: split off 4 castings"),
        "only skirmishers split off in this game (scenario option skirmishers, not split-units); \
         write 'split off 4 castings as skirmishers'"
    );
    assert_eq!(
        msg("10th Ohio: split off 2 stands as skirmishers"),
        "count in castings, not stands: a stand may hold 2 castings or 4, so write e.g. '8 castings'"
    );
    assert_eq!(
        msg("10th Ohio: fire while advancing"),
        "'fire while advancing' goes with a move; write it after 'advance to ...' in the same order"
    );
    assert_eq!(
        msg("From Pryor:"),
        "'Pryor' is not one of your officers on the field; write 'FROM <your officer>:'"
    );
    assert_eq!(
        msg("REPORT yesterday"),
        "expected a turn number as in 'REPORT' or 'REPORT TURN 3'"
    );
    assert_eq!(
        msg("DISPATCH TO Hale \"x\""),
        "expected ':' after the general's name, as in 'DISPATCH TO King: \"...\"'"
    );
    assert_eq!(
        msg("DISPATCH TO Hale: \"never closed"),
        "the dispatch text has no closing quote; end it with '\"'"
    );
}

// ------------------------------------------------------------------ no leak

/// APSoF hidden information: a player may only name enemies his side sees.
/// An unseen enemy's name must get exactly the answer a name that exists
/// nowhere gets.
#[test]
fn an_unseen_enemy_is_answered_like_gibberish() {
    let g = game("training.toml");
    let ctx = blue(&g); // sees the 5th Tennessee and Ridley's Battery only
    for verb in ["fire at", "charge"] {
        let unseen = parse(&ctx, &format!("10th Ohio: {verb} the 7th Tennessee"));
        // The same game with the 7th Tennessee not on the field at all.
        let mut g2 = game("training.toml");
        let id = g2.unit("7th Tennessee");
        g2.state.units.retain(|u| u.id != id);
        g2.aliases.retain(|_, v| *v != id);
        let ctx2 = blue(&g2);
        let absent = parse(&ctx2, &format!("10th Ohio: {verb} the 7th Tennessee"));
        assert_eq!(unseen.errors, absent.errors, "{verb}");
        assert!(unseen.items.is_empty());
        let e = one_error(&unseen);
        assert!(
            !e.suggestions.iter().any(|s| s.contains("7th")),
            "{:?}",
            e.suggestions
        );
        // And a nonsense word of the same length reads the same.
        let gib = parse(&ctx, &format!("10th Ohio: {verb} the Qzx Wwwwwwwww"));
        let eg = one_error(&gib);
        assert_eq!(
            eg.message.replace("Qzx Wwwwwwwww", "7th Tennessee"),
            e.message,
            "{verb}"
        );
        assert_eq!((eg.line, eg.column), (e.line, e.column));
    }
    // Unseen enemies are not places or facings either.
    let a = parse(&ctx, "10th Ohio: face the 3rd Tennessee");
    let b = parse(&ctx, "10th Ohio: face the 3rd Tennessxx");
    assert_eq!(
        one_error(&a).message.replace("3rd Tennessee", "X"),
        one_error(&b).message.replace("3rd Tennessxx", "X")
    );
}

// ------------------------------------------------------------------ examples

/// APSoF I.C.2's four example orders, with the training scenario's names.
#[test]
fn apsof_i_c_2_examples_parse() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let xr = g.landmark("Miller's Crossroads");

    // i) March down plank road until reaching the cornfield ... and deploy
    // into line facing east, in the cornfield upon arrival.
    let m = parse(
        &ctx,
        "10th Ohio: March down the Mill Road until reaching the crossroads and deploy into line facing east, at the crossroads upon arrival.",
    );
    let mut road = mv(vec![xr]);
    road.by_road = true;
    assert_eq!(
        steps(&m),
        vec![
            Step {
                trigger: Trigger::Then,
                action: Action::Move(road)
            },
            Step {
                trigger: Trigger::OnArrival,
                action: Action::Form {
                    formation: Formation::Line,
                    facing: Some(Direction::Degrees(90.0))
                }
            },
        ]
    );

    // ii) Attack across the corn field toward the fence on the far side. Use
    // a strategy of firing while advancing, once fired upon.
    let m = parse(
        &ctx,
        "12th Ohio: Attack across the Pike toward Miller's fence on the far side. Use a strategy of firing while advancing, once fired upon.",
    );
    match actions(&m).as_slice() {
        [Action::Move(mv)] => {
            assert!(mv.fire_while_moving);
            assert_eq!(mv.waypoints.len(), 2);
        }
        other => panic!("{other:?}"),
    }

    // iii) Attack the entrenchments to your front in double time with
    // bayonets. Have the men hold their fire until they reach the enemies
    // position.
    let m = parse(
        &ctx,
        "14th Ohio: Attack Ridley's Battery in double time with bayonets. Have the men hold their fire until they reach the enemy's position.",
    );
    assert_eq!(
        actions(&m),
        vec![
            Action::HoldFire,
            Action::Charge {
                target: Some(g.unit("Ridley's Battery")),
                to: None,
                gait: Gait::DoubleQuick
            }
        ]
    );

    // iv) Wait in line, facing the woods to the east for the enemies attack,
    // firing as soon as they are in range.
    let m = parse(
        &ctx,
        "10th Ohio: Wait in line, facing Miller's Wood to the east for the enemy's attack, firing as soon as they are in range.",
    );
    assert_eq!(
        actions(&m),
        vec![
            Action::Form {
                formation: Formation::Line,
                facing: Some(Direction::Toward(g.landmark("Miller's Wood")))
            },
            Action::Hold,
            Action::Fire(FireTarget::AtWill),
        ]
    );
}

/// The Brawner's Farm mail from design.md ("Written orders").
#[test]
fn design_md_brawners_farm_mail_parses() {
    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["Gibbon"], &["4th Virginia", "Wooding's Battery"]);
    let text = "From Gibbon:\n\
2nd Wisconsin: advance to the Brawner farm in line; fire at will.\n\
6th Wisconsin: march by the turnpike to the edge of the woods, then form line facing north.\n\
Battery B: unlimber facing north-west; fire at the nearest enemy battery.\n\
19th Indiana: hold and lie down.\n\
Dispatch to King: \"Enemy in force at the farm. Request Doubleday's brigade.\"\n";
    let m = parse(&ctx, text);
    assert!(m.errors.is_empty(), "{:#?}", m.errors);
    assert_eq!(m.items.len(), 4);
    assert_eq!(m.dispatches.len(), 1);
    assert_eq!(
        m.dispatches[0].text,
        "Enemy in force at the farm. Request Doubleday's brigade."
    );
    let receipts: Vec<String> = m.items.iter().map(|i| normalise(i, &ctx)).collect();
    assert_eq!(
        receipts[0],
        "2nd Wisconsin: advance to the Brawner farm (22, 22) in line; then fire at will"
    );
    assert!(
        receipts[1].starts_with("6th Wisconsin: advance by road to ("),
        "{}",
        receipts[1]
    );
    assert!(
        receipts[1].ends_with("; then form line facing north (0°)"),
        "{}",
        receipts[1]
    );
    assert_eq!(
        receipts[2],
        "Battery B, 4th US Artillery: unlimber facing north-west (315°); then fire at the nearest enemy battery"
    );
    assert_eq!(receipts[3], "19th Indiana: hold; then lie down");
    for i in &m.items {
        if let Item::Unit { issued_by, .. } = i {
            assert_eq!(*issued_by, g.officer("Gibbon"));
        }
    }
}

// ------------------------------------------------------------------ timing

/// APSoF I.C.1: within 12" this turn, 12–24" next turn; outside the chain
/// of command subject to a roll.
#[test]
fn expected_effective_turn_follows_i_c_1() {
    let g = game("training.toml");
    let ctx = blue(&g); // turn 3; Hale at (24, 8)
    let m = parse(
        &ctx,
        "10th Ohio: hold\nBattery A: hold\nColonel Hale: ride to the ford",
    );
    let t: Vec<_> = m
        .items
        .iter()
        .map(|i| expected_effective_turn(i, &ctx))
        .collect();
    assert_eq!(t[0].turn, 3); // 3" away
    assert_eq!(t[1].turn, 4); // 13.5" away
    assert_eq!(t[2].turn, 3); // officers move at once
    assert!(t.iter().all(|t| !t.subject_to_roll));

    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["Gibbon", "Doubleday"], &[]);
    let m = parse(&ctx, "FROM Gibbon:\n56th Pennsylvania: hold");
    let t = expected_effective_turn(&m.items[0], &ctx);
    assert!(t.subject_to_roll);
    assert!(t.to_string().contains("subject to a roll"), "{t}");
}

#[test]
fn a_heading_line_is_skipped_but_a_sentence_without_a_head_is_reported() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let m = parse(&ctx, "Orders for turn 3:\n\n10th Ohio: hold");
    assert!(m.errors.is_empty(), "{:#?}", m.errors);
    assert_eq!(m.items.len(), 1);
    // Announcing the orders is chatter, not an order without its unit.
    let m = parse(&ctx, "Here are my orders.\n\n10th Ohio: hold");
    assert!(m.errors.is_empty(), "{:#?}", m.errors);
    assert_eq!(m.items.len(), 1);
    // An order sentence without its unit is reported.
    let m = parse(&ctx, "Advance to the ridge.\n\n10th Ohio: hold");
    assert_eq!(one_error(&m).line, 1);
    assert_eq!(m.items.len(), 1);
}

/// A whole mail body as a player writes it: CRLF line ends, a greeting
/// line, bullets, orders running over two lines, a signature.
#[test]
fn a_whole_mail_with_greeting_bullets_continuations_and_signature() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/orders/training-turn3.eml.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let m = parse(&ctx, &text);
    // "Hale here. Orders for turn 3:" heads nothing: a heading, skipped.
    assert!(m.errors.is_empty(), "{:#?}", m.errors);
    assert!(m.ready);
    let receipts: Vec<String> = m.items.iter().map(|i| normalise(i, &ctx)).collect();
    assert_eq!(
        receipts,
        vec![
            "10th Ohio: advance by road to Miller's Crossroads (24, 18); on arrival form line facing east (90°)",
            "12th Ohio: advance to (15.5, 26.5) in column; then face toward 5th Tennessee",
            "Battery A, 1st Ohio Light Artillery: unlimber facing north-east (45°); then fire at Ridley's Battery",
            "14th Ohio: hold; then lie down",
            "Colonel Hale: ride to Round Hill (10.5, 8.5)",
        ]
    );
}

#[test]
fn places_within_places_are_bounded() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let m = parse(
        &ctx,
        "10th Ohio: advance to 1 inch north of 1 inch north of the ford",
    );
    match &actions(&m)[0] {
        Action::Move(mv) => assert!(close(mv.waypoints[0], Pos::new(23.0, 29.0))),
        other => panic!("{other:?}"),
    }
    let deep = format!(
        "10th Ohio: advance to {}the ford",
        "1 inch north of ".repeat(200)
    );
    let e = one_error(&parse(&ctx, &deep)).message.clone();
    assert_eq!(e, "too many places within places; give the place directly");
}

/// A unit out of the battle (destroyed, combined, off the table) takes no
/// orders: the receipt says why and names the units still in the field,
/// and the rest of the mail counts (found playing: a destroyed regiment's
/// charge was accepted).
#[test]
fn a_unit_out_of_the_battle_takes_no_orders() {
    let mut g = game("training.toml");
    let tenth = g.unit("10th Ohio");
    g.state.unit_mut(tenth).unwrap().castings = 0;
    let twelfth = g.unit("12th Ohio");
    g.state.unit_mut(twelfth).unwrap().marks.left_field = true;
    let ctx = blue(&g);
    let m = parse(
        &ctx,
        "10th Ohio: advance to Miller's Crossroads.\n\n12th Ohio: hold.\n\n14th Ohio: hold.",
    );
    assert_eq!(m.items.len(), 1, "{:#?}", m.items);
    assert_eq!(m.errors.len(), 2, "{:#?}", m.errors);
    let e = m.errors[0].to_string();
    assert!(
        e.contains("the 10th Ohio is out of the battle (it was destroyed) and can take no orders")
            && e.contains("your units still in the field: 14th Ohio"),
        "{e}"
    );
    assert!(!e.contains("12th Ohio"), "{e}");
    assert!(
        m.errors[1].to_string().contains("it left the table"),
        "{}",
        m.errors[1]
    );
}
