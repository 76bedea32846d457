//! Issue #14 §1, the order language under the default (hidden) identity
//! policy: a side names the enemy by the designations its report gives
//! ("fire at B", "charge enemy regiment B", "face B", combined and split
//! fire) and by descriptions ("the enemy battery", "the regiment to our
//! front"); an enemy's real name is answered like a word that names
//! nothing, and is never suggested.

mod orders_support;

use adjutant::identity::{EnemyNames, IdentityPolicy};
use adjutant::orders::{Item, ParseContext, normalise};
use adjutant::rules::iron_brigade::orders::{Action, Direction, FireTarget};
use adjutant::rules::iron_brigade::state::Pos;
use orders_support::*;

/// Blue of the training scenario seeing the 5th Tennessee and Ridley's
/// Battery, identities hidden, with the 3rd Tennessee seen on an earlier
/// turn at (20, 30) and out of sight now.
fn hidden(g: &Game) -> ParseContext<'_> {
    let mut ctx = blue(g);
    let mut names = EnemyNames::new(IdentityPolicy::Hidden);
    let third = g.unit("3rd Tennessee");
    let mut earlier = g.state.clone();
    earlier
        .units
        .iter_mut()
        .find(|u| u.id == third)
        .unwrap()
        .position = Pos::new(20.0, 30.0);
    names.record_seen(&earlier, ctx.side, 1, [third]);
    names.record_seen(&g.state, ctx.side, 3, ctx.visible_enemies.iter().copied());
    ctx.enemy_names = names;
    ctx
}

fn letter(ctx: &ParseContext, g: &Game, name: &str) -> String {
    ctx.enemy_names
        .designation(g.unit(name))
        .unwrap()
        .to_string()
}

fn steps(ctx: &ParseContext, text: &str) -> (Vec<Action>, String) {
    let m = parse(ctx, text);
    assert!(m.errors.is_empty(), "{text}: {:?}", m.errors);
    let item = m.items.first().expect("an order");
    let Item::Unit { steps, .. } = item else {
        panic!("a unit order")
    };
    (
        steps.iter().map(|s| s.action.clone()).collect(),
        normalise(item, ctx),
    )
}

#[test]
fn letters_name_the_enemy_wherever_a_unit_can_be_named() {
    let g = game("training.toml");
    let ctx = hidden(&g);
    let fifth = g.unit("5th Tennessee");
    let ridley = g.unit("Ridley's Battery");
    let (l5, lr) = (
        letter(&ctx, &g, "5th Tennessee"),
        letter(&ctx, &g, "Ridley's Battery"),
    );
    assert_eq!(
        letter(&ctx, &g, "3rd Tennessee"),
        "A",
        "first seen, first lettered"
    );

    let (a, text) = steps(&ctx, &format!("10th Ohio: fire at {l5}."));
    assert_eq!(a, vec![Action::Fire(FireTarget::Unit(fifth))]);
    assert_eq!(text, format!("10th Ohio: fire at enemy {l5}"));
    let (a, _) = steps(&ctx, &format!("10th Ohio: fire at target {l5}."));
    assert_eq!(a, vec![Action::Fire(FireTarget::Unit(fifth))]);
    let (a, _) = steps(&ctx, &format!("10th Ohio: fire at enemy battery {lr}."));
    assert_eq!(a, vec![Action::Fire(FireTarget::Unit(ridley))]);
    let (a, _) = steps(&ctx, &format!("10th Ohio: charge enemy regiment {l5}."));
    assert!(
        matches!(a[0], Action::Charge { target: Some(t), .. } if t == fifth),
        "{a:?}"
    );
    let (a, text) = steps(&ctx, &format!("10th Ohio: face {lr}."));
    assert_eq!(a, vec![Action::Face(Direction::TowardUnit(ridley))]);
    assert_eq!(text, format!("10th Ohio: face toward enemy {lr}"));
    let (a, _) = steps(
        &ctx,
        &format!("10th Ohio: fire at {l5} together with the 12th Ohio."),
    );
    assert!(matches!(&a[0], Action::FireWith { target: FireTarget::Unit(t), .. } if *t == fifth));
    let (_, text) = steps(
        &ctx,
        &format!("10th Ohio: fire 4 castings at {l5} and the rest at enemy {lr}."),
    );
    assert_eq!(
        text,
        format!("10th Ohio: split fire: 4 castings at enemy {l5}, the rest at enemy {lr}")
    );
    // A letter out of sight is a place (its last-known one), not a target.
    let (a, _) = steps(&ctx, "10th Ohio: advance toward enemy A.");
    let Action::Move(m) = &a[0] else {
        panic!("{a:?}")
    };
    assert_eq!(m.waypoints, vec![Pos::new(20.0, 30.0)]);
    let refused = parse(&ctx, "10th Ohio: fire at enemy A.");
    assert_eq!(refused.errors.len(), 1);
}

#[test]
fn descriptions_pick_from_what_the_side_sees() {
    let g = game("training.toml");
    let ctx = hidden(&g);
    let ridley = g.unit("Ridley's Battery");
    let fifth = g.unit("5th Tennessee");
    let (a, text) = steps(&ctx, "10th Ohio: face the enemy battery.");
    assert_eq!(a, vec![Action::Face(Direction::TowardUnit(ridley))]);
    assert!(text.contains("face toward enemy "), "{text}");
    let (a, _) = steps(&ctx, "10th Ohio: charge the enemy regiment.");
    assert!(
        matches!(a[0], Action::Charge { target: Some(t), .. } if t == fifth),
        "{a:?}"
    );
    let (a, _) = steps(&ctx, "10th Ohio: advance toward the enemy battery.");
    let Action::Move(m) = &a[0] else {
        panic!("{a:?}")
    };
    assert_eq!(m.waypoints, vec![g.state.unit(ridley).unwrap().position]);
    let (a, _) = steps(&ctx, "10th Ohio: fire at the nearest enemy battery.");
    assert!(matches!(a[0], Action::Fire(FireTarget::NearestOf(_))));
    let (_, text) = steps(&ctx, "10th Ohio: face the enemy.");
    assert!(text.starts_with("10th Ohio: face toward enemy "), "{text}");
    // Nothing unseen is chosen: there is no enemy cavalry in sight.
    let m = parse(&ctx, "10th Ohio: charge the enemy cavalry.");
    assert_eq!(m.errors.len(), 1);
    assert!(
        m.errors[0].message.contains("no enemy cavalry is in sight"),
        "{}",
        m.errors[0]
    );
}

#[test]
fn real_names_are_answered_like_nothing_and_never_suggested() {
    let g = game("training.toml");
    let ctx = hidden(&g);
    for text in [
        "10th Ohio: fire at the 5th Tennessee.",
        "10th Ohio: fire at the 4th Tennessee.",
        "10th Ohio: charge Ridley's Battery.",
        "10th Ohio: face the 3rd Tennessee.",
        "10th Ohio: advance to the 5th Tennessee.",
    ] {
        let m = parse(&ctx, text);
        assert_eq!(m.errors.len(), 1, "{text}: {m:?}");
        let e = &m.errors[0];
        for s in &e.suggestions {
            assert!(
                !s.contains("Tennessee") && !s.contains("Ridley"),
                "{text}: {e}"
            );
        }
        assert!(m.items.is_empty(), "{text}");
    }
    // The same words under known identities are orders.
    let mut known = hidden(&g);
    known.enemy_names.policy = IdentityPolicy::Known;
    let (_, text) = steps(&known, "10th Ohio: fire at the 5th Tennessee.");
    assert_eq!(text, "10th Ohio: fire at 5th Tennessee");
}

/// A letter the side never gave ("enemy G", "target G"), or a real name
/// the policy hides, is refused with the letters in sight now, so the
/// player knows what he may write; no hidden name is offered.
#[test]
fn an_unknown_letter_or_name_is_answered_with_the_letters_in_sight() {
    let g = game("training.toml");
    let ctx = hidden(&g);
    let fifth = letter(&ctx, &g, "5th Tennessee");
    let ridley = letter(&ctx, &g, "Ridley's Battery");
    let mut in_sight = [fifth.clone(), ridley.clone()];
    in_sight.sort();
    let want = format!(
        "your side sees enemy {} and {} now",
        in_sight[0], in_sight[1]
    );
    for text in [
        "10th Ohio: fire at enemy G",
        "10th Ohio: fire at target G",
        "10th Ohio: fire at the 5th Tennesee",
        "10th Ohio: charge the 7th Tennessee",
    ] {
        let m = parse(&ctx, text);
        let e = m
            .errors
            .first()
            .unwrap_or_else(|| panic!("{text} was read"));
        let said = e.to_string();
        assert!(said.contains(&want), "{text}: {said}");
        for hidden in ["5th Tennessee'", "Ridley", "3rd Tennessee"] {
            assert!(!said.contains(hidden), "{text} leaks {hidden}: {said}");
        }
    }
    let e = parse(&ctx, "10th Ohio: fire at enemy G").errors[0].to_string();
    assert!(e.contains("no enemy in sight is lettered G"), "{e}");
}
