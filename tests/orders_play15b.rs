//! Order problems found by playing (#15, session 9), each pinned: what the
//! receipt says for a ride "and rally them", "halt in (the edge of) the
//! woods", a unit named after it is destroyed, and a step after a move
//! longer than one turn's.

mod orders_support;

use adjutant::orders::{normalise, receipt_notes};
use orders_support::{Game, game, parse};

/// The reading, the receipt's notes and the errors, as Gibbon's player.
fn receipt(g: &Game, text: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let ctx = g.ctx(&["Gibbon"], &["4th Virginia", "2nd Virginia"]);
    let m = parse(&ctx, text);
    let read = m.items.iter().map(|i| normalise(i, &ctx)).collect();
    let notes = m
        .items
        .iter()
        .flat_map(|i| receipt_notes(i, &ctx))
        .collect();
    let errs = m.errors.iter().map(|e| e.to_string()).collect();
    (read, notes, errs)
}

#[test]
fn a_ride_and_rally_them_says_the_rally_once() {
    let g = game("brawners-farm.toml");
    for text in [
        "Gibbon: ride to the 2nd Wisconsin and rally them",
        "Gibbon: ride with the 2nd Wisconsin and rally them",
    ] {
        let (read, notes, errs) = receipt(&g, text);
        assert!(errs.is_empty(), "{errs:?}");
        let all = format!("{read:?} {notes:?}");
        assert_eq!(all.matches("rally roll").count(), 1, "{all}");
        assert!(read[0].contains("ride with 2nd Wisconsin"), "{read:?}");
    }
}

#[test]
fn halt_in_the_edge_of_the_woods_says_its_hold_once() {
    let g = game("brawners-farm.toml");
    let (read, notes, errs) = receipt(&g, "2nd Wisconsin: halt in the edge of Brawner's woods");
    assert!(errs.is_empty(), "{errs:?}");
    let all = format!("{read:?} {notes:?}");
    assert_eq!(all.matches("hold").count(), 1, "{all}");
    assert!(read[0].contains("on arrival hold"), "{read:?}");
}

#[test]
fn halt_in_the_woods_stops_just_inside_the_near_edge() {
    let g = game("brawners-farm.toml");
    // The 7th Wisconsin stands at (36, 12.5), south of the north woods
    // (centre (44, 38)): it stops inside their southern edge, not in the
    // middle.
    let (read, notes, errs) = receipt(&g, "7th Wisconsin: halt in the north woods");
    assert!(errs.is_empty(), "{errs:?}");
    assert!(!read[0].contains("(44, 38)"), "{read:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("just inside its nearer edge")),
        "{notes:?}"
    );
    let ctx = g.ctx(&["Gibbon"], &[]);
    let woods = ctx
        .state
        .terrain
        .areas
        .iter()
        .find(|a| a.name == "the north woods")
        .unwrap();
    let m = parse(&ctx, "7th Wisconsin: halt in the north woods");
    let adjutant::orders::Item::Unit { steps, .. } = &m.items[0] else {
        panic!()
    };
    let adjutant::rules::iron_brigade::orders::Action::Move(mv) = &steps[0].action else {
        panic!("{steps:?}")
    };
    let p = *mv.waypoints.last().unwrap();
    assert!(
        adjutant::orders::context::inside(&woods.outline, p),
        "{p:?}"
    );
    // Half the regiment's depth in from the nearest point of the edge, so
    // the whole regiment is inside.
    let unit = g.state.unit(g.unit("7th Wisconsin")).unwrap();
    let edge = adjutant::orders::context::nearest_on_path(&woods.outline, true, unit.position);
    let half_depth = adjutant::rules::iron_brigade::geometry::footprint(unit).depth / 2.0;
    assert!(
        p.distance(edge) <= half_depth + 0.5,
        "{p:?} is far from the near edge {edge:?}"
    );
}

#[test]
fn a_destroyed_unit_named_as_a_place_or_partner_is_answered() {
    let mut g = game("brawners-farm.toml");
    let id = g.unit("2nd Wisconsin");
    g.state
        .units
        .iter_mut()
        .find(|u| u.id == id)
        .unwrap()
        .castings = 0;
    for text in [
        "19th Indiana: rally behind the 2nd Wisconsin",
        "19th Indiana: support the 2nd Wisconsin",
        "Gibbon: ride to the 2nd Wisconsin",
    ] {
        let (read, _, errs) = receipt(&g, text);
        assert!(read.is_empty(), "{text}: {read:?}");
        assert_eq!(errs.len(), 1, "{text}: {errs:?}");
        let e = &errs[0];
        assert!(e.contains("2nd Wisconsin was destroyed"), "{e}");
        assert!(e.contains("such as") && e.contains("7th Wisconsin"), "{e}");
        // Only units he commands are suggested (Doubleday's are not).
        assert!(!e.contains("56th Pennsylvania"), "{e}");
    }
}

#[test]
fn a_step_after_a_move_longer_than_a_turn_says_it_waits() {
    let g = game("brawners-farm.toml");
    let (_, notes, errs) = receipt(
        &g,
        "7th Wisconsin: advance to the Douglass house, then fire at will",
    );
    assert!(errs.is_empty(), "{errs:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("the steps after it wait until it has arrived")),
        "{notes:?}"
    );
    // A short move: nothing to say.
    let (_, notes, _) = receipt(
        &g,
        "7th Wisconsin: advance 2 inches north, then fire at will",
    );
    assert!(
        !notes
            .iter()
            .any(|n| n.contains("wait until it has arrived")),
        "{notes:?}"
    );
}

/// Played by mail (session 9): lines with no blank line between them,
/// each a sentence of its own, are not swallowed into the paragraph above.
#[test]
fn sentences_of_their_own_on_the_next_lines_are_read_on_their_own() {
    let g = game("brawners-farm.toml");
    let (read, _, errs) = receipt(
        &g,
        "Gibbon: ride to the 2nd Wisconsin and rally them\n\
         send the cavalry round thier left flank\n\
         Should the enemy break, the 7th Wisconsin will pursue to the railroad.\n\
         The 6th Wisconsin will advance 2 inches north.",
    );
    assert!(
        read.iter()
            .any(|r| r.starts_with("Gibbon: ride with 2nd Wisconsin")),
        "{read:?}"
    );
    assert!(
        read.iter().any(|r| r.starts_with("6th Wisconsin: advance")),
        "{read:?}"
    );
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(
        errs[0].contains("line 2") && errs[0].contains("no cavalry"),
        "{errs:?}"
    );
    assert!(
        errs[1].contains("line 3") && errs[1].contains("condition"),
        "{errs:?}"
    );
    assert!(errs[1].contains("'7th Wisconsin: hold'"), "{errs:?}");
    // An enemy's name in an error does not run on to the next line.
    let ctx = g.ctx(&["Baylor"], &[]);
    let m = orders_support::parse(
        &ctx,
        "Wooding: fire at the 19th Indiana\nI shall ride to the 27th Virginia.",
    );
    assert!(
        m.errors.iter().all(|e| !e.to_string().contains('\n')),
        "{:?}",
        m.errors
    );
    assert_eq!(m.items.len(), 1, "{:?}", m.items);
}

/// Played by mail: "take the orchard and hold it" read "…; on arrival
/// hold; then hold". The hold is said once.
#[test]
fn take_and_hold_it_says_the_hold_once() {
    let g = game("brawners-farm.toml");
    let (read, _, errs) = receipt(
        &g,
        "2nd Wisconsin: take the orchard and hold it no matter what",
    );
    assert!(errs.is_empty(), "{errs:?}");
    assert!(read[0].contains("on arrival hold"), "{read:?}");
    assert!(!read[0].contains("then hold"), "{read:?}");
}
