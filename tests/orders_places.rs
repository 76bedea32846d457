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

#[test]
fn explore() {
    let g = game("brawners-farm.toml");
    let blue = player(
        &g,
        "Gibbon",
        &["4th Virginia", "2nd Virginia", "5th Virginia"],
    );
    let grey = player(&g, "Lawton", &["2nd Wisconsin"]);
    for (ctx, t) in [
        (
            &blue,
            "7th Wisconsin: form on the left of the 2nd Wisconsin",
        ),
        (&blue, "19th Indiana: pull back behind the field fence"),
        (
            &blue,
            "7th Wisconsin: move 100 yards in rear of the battery",
        ),
        (&blue, "6th Wisconsin: move up on the right of the 2nd"),
        (&blue, "6th Wisconsin: move NE 200 yds"),
        (&blue, "6th Wisconsin: ADVANCE NORTH 8 INCHES"),
        (&blue, "6th Wisconsin: advance 80 paces north"),
        (&blue, "6th Wisconsin: advance north 20 rods"),
        (&blue, "2nd Wisconsin: fall back to the woods"),
        (&blue, "2nd Wisconsin: advance to the woods"),
        (&blue, "2nd Wisconsin: advance to (-2, 2.9)"),
        (&blue, "2nd Wisconsin: advance to -2, 2.9"),
        (&blue, "2nd Wisconsin: advance to (74, 50)"),
        (
            &blue,
            "2nd Wisconsin: take position 100 yards in rear of the battery",
        ),
        (
            &blue,
            "19th Indiana: fall back 100 paces behind the turnpike fence",
        ),
        (&blue, "2nd Wisconsin: advance behind B"),
        (
            &blue,
            "7th Wisconsin: advance in support of the 2nd Wisconsin",
        ),
        (&blue, "7th Wisconsin: advance beside the 2nd Wisconsin"),
        (&blue, "7th Wisconsin: advance to the Douglass house"),
        (
            &grey,
            "Carpenter's Battery: move to the edge of the woods and unlimber facing south",
        ),
        (&grey, "26th Georgia: fall back to the woods"),
        (&grey, "60th Georgia: form on the right of the 26th Georgia"),
        (&grey, "60th Georgia: advance to 50 paces in front of A"),
    ] {
        let m = parse(ctx, t);
        for e in &m.errors {
            println!("{t}\n   ERR {e}");
        }
        for i in &m.items {
            println!(
                "{t}\n   {}\n   notes {:?}",
                normalise(i, ctx),
                receipt_notes(i, ctx)
            );
        }
    }
    let _ = (dest, read);
}
