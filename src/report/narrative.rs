//! "This turn" in a player's report: the turn's events told to his side,
//! with every enemy named only as his men would know it.
//!
//! [`visible_to`] decides WHICH events a side is told (APSoF V.C.3: one
//! sees only what one's troops can see). But an event's own words
//! ([`Event::describe`]) use true names — "The 2nd Wisconsin fires at the
//! 6th Virginia" — and a side that sees a regiment does not know which
//! regiment it is (docs/reports.md, identities). So before describing, every
//! enemy unit in the event is renamed to what a staff officer would call it
//! ("a Confederate infantry regiment") and every enemy officer to "an enemy
//! officer". The renaming works on the event's serialised form, where a
//! unit or officer is always an object with `id`, `side` and `name`, so a
//! new event kind is covered without touching this file.

use crate::identity::{EnemyNames, IdentityPolicy};
use crate::rules::iron_brigade::events::{Event, visible_to};
use crate::rules::iron_brigade::sight::Visibility;
use crate::rules::iron_brigade::state::{BattleState, SideId, UnitId};
use serde_json::Value;
use std::collections::BTreeMap;

/// Event fields that hold an officer (`OfficerRef`); every other
/// `{id, side, name}` object in an event is a unit (`UnitRef`).
const OFFICER_FIELDS: &[&str] = &["officer", "issued_by"];

/// What `side` is told of the turn, one sentence per event, in the order
/// the engine decided them. Events `side` may not be told are left out;
/// enemies are never named unless `identities_known`. (Without the side's
/// designations: see [`side_narrative_named`].)
pub fn side_narrative(
    state: &BattleState,
    side: SideId,
    events: &[Event],
    vis: &Visibility,
    identities_known: bool,
) -> Vec<String> {
    let names = EnemyNames::new(if identities_known {
        IdentityPolicy::Known
    } else {
        IdentityPolicy::Hidden
    });
    side_narrative_named(state, side, events, vis, &names, None)
}

/// What `side` is told of the turn, enemies called as the identity policy
/// says (`crate::identity`): by real name when identities are known; else
/// an enemy the side sees at the end of the turn by its designation
/// ("enemy B") and any other by what could be seen of it ("a
/// Confederate battery"). Order numbers are the side's own
/// (`order_numbers`: engine order id → the number its side knows it by),
/// so a number never tells how many orders the enemy wrote; an order not
/// in the map is told without a number.
pub fn side_narrative_named(
    state: &BattleState,
    side: SideId,
    events: &[Event],
    vis: &Visibility,
    names: &EnemyNames,
    order_numbers: Option<&BTreeMap<u64, u32>>,
) -> Vec<String> {
    events
        .iter()
        // Correspondence is told in the report's own dispatches section,
        // with names, from the state (`game::reports`).
        .filter(|e| !matches!(e, Event::Sfrm { .. }) && visible_to(side, e, vis))
        .map(|e| describe_for(state, side, e, vis, names, order_numbers))
        .collect()
}

/// `event` described with enemy names replaced and order numbers made the
/// reader's own. An event that cannot be rebuilt after renaming (which
/// would be a bug) is told as "Something happened out of sight." rather
/// than risk its true words.
fn describe_for(
    state: &BattleState,
    reader: SideId,
    event: &Event,
    vis: &Visibility,
    names: &EnemyNames,
    order_numbers: Option<&BTreeMap<u64, u32>>,
) -> String {
    const UNSURE: &str = "Something happened out of sight.";
    let Ok(mut value) = serde_json::to_value(event) else {
        return UNSURE.to_string();
    };
    if !names.known() {
        rename_enemies(state, reader, &mut value, None, vis, names);
    }
    let mut unnumbered = false;
    if let Some(order) = value.as_object_mut().and_then(|m| m.get_mut("order"))
        && let Some(id) = order.as_u64()
    {
        match order_numbers.and_then(|m| m.get(&id)) {
            Some(n) => *order = Value::from(*n),
            None => {
                *order = Value::from(0u32);
                unnumbered = true;
            }
        }
    }
    let Ok(e) = serde_json::from_value::<Event>(value) else {
        return UNSURE.to_string();
    };
    let text = if names.known() {
        e.describe()
    } else {
        capitalise(&e.describe_as(&|s| s == reader))
    };
    if unnumbered {
        text.replace("Order #0 ", "An order ")
            .replace("order #0", "its order")
    } else {
        text
    }
}

fn rename_enemies(
    state: &BattleState,
    reader: SideId,
    v: &mut Value,
    field: Option<&str>,
    vis: &Visibility,
    names: &EnemyNames,
) {
    match v {
        Value::Object(map) => {
            let is_ref = map.contains_key("id") && map.contains_key("name");
            let side = map
                .get("side")
                .and_then(Value::as_u64)
                .and_then(|s| u8::try_from(s).ok())
                .map(SideId);
            if is_ref && let Some(side) = side {
                if side != reader {
                    let officer = field.is_some_and(|f| OFFICER_FIELDS.contains(&f));
                    let name = if officer {
                        "an enemy officer".to_string()
                    } else {
                        let id = map
                            .get("id")
                            .and_then(Value::as_u64)
                            .and_then(|i| u32::try_from(i).ok())
                            .map(UnitId);
                        // Only an enemy in sight now is called by its
                        // designation: naming one seen only in the past
                        // would tell the side it is the same unit. One
                        // that left the field in an event the side took
                        // part in (destroyed by its fire, say) is no
                        // longer seen by anyone (APSoF VI.C, VII.C), yet
                        // the side fought it by its letter: it keeps it.
                        let gone = |id: &UnitId| {
                            state.unit(*id).is_some_and(|u| {
                                u.castings == 0
                                    || u.marks.left_field
                                    || u.marks.combined_into.is_some()
                            })
                        };
                        let label = id
                            .filter(|id| vis.seen.contains_key(id) || gone(id))
                            .and_then(|id| names.hidden_label(id));
                        label.unwrap_or_else(|| enemy_words(state, side, id))
                    };
                    map.insert("name".into(), Value::String(name));
                }
                return;
            }
            for (k, child) in map.iter_mut() {
                rename_enemies(state, reader, child, Some(k.as_str()), vis, names);
            }
        }
        Value::Array(items) => {
            for child in items {
                rename_enemies(state, reader, child, field, vis, names);
            }
        }
        _ => {}
    }
}

/// "a Confederate infantry regiment", from the unit's side and arm (its
/// uniform and kind are what can be seen), or "an enemy unit".
fn enemy_words(state: &BattleState, side: SideId, id: Option<UnitId>) -> String {
    let side_name = state
        .sides
        .iter()
        .find(|s| s.id == side)
        .map(|s| s.name.as_str());
    let unit = id.and_then(|id| state.unit(id));
    match (side_name, unit) {
        (Some(side), Some(u)) => {
            crate::report::view::enemy_description(side, u.arm, u.heavy_equipment)
        }
        _ => "an enemy unit".to_string(),
    }
}

/// The text with its first letter in capitals ("enemy D is…" → "Enemy D is…").
pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Every event of the turn in its true words, for the umpire.
pub fn umpire_narrative(events: &[Event]) -> Vec<String> {
    events.iter().map(Event::describe).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::events::UnitRef;
    use crate::rules::iron_brigade::sight::{Observer, SeenBy};
    use crate::rules::iron_brigade::state::{Pos, Side, Unit};

    fn state() -> BattleState {
        BattleState {
            sides: vec![
                Side {
                    id: SideId(0),
                    name: "Union".into(),
                },
                Side {
                    id: SideId(1),
                    name: "Confederate".into(),
                },
            ],
            units: vec![
                Unit::infantry(1, "2nd Wisconsin", 0, 20, Pos::new(0.0, 0.0), 0.0),
                Unit::infantry(2, "6th Virginia", 1, 15, Pos::new(0.0, 10.0), 180.0),
            ],
            ..BattleState::default()
        }
    }

    fn r(id: u32, side: u8, name: &str) -> UnitRef {
        UnitRef {
            id: UnitId(id),
            side: SideId(side),
            name: name.into(),
        }
    }

    #[test]
    fn a_seen_enemy_is_told_but_not_named() {
        let ev = Event::Moved {
            unit: r(2, 1, "6th Virginia"),
            from: Pos::new(0.0, 12.0),
            to: Pos::new(0.0, 10.0),
            distance: 2.0,
            half: false,
            stop: "arrived".into(),
        };
        let mut vis = Visibility::default();
        vis.seen.insert(
            UnitId(2),
            SeenBy {
                observer: Observer::Unit(UnitId(1)),
                from: Pos::new(0.0, 0.5),
                distance: 9.0,
            },
        );
        let st = state();
        let told = side_narrative(&st, SideId(0), std::slice::from_ref(&ev), &vis, false);
        assert_eq!(told.len(), 1);
        assert!(!told[0].contains("Virginia"), "{}", told[0]);
        assert!(
            told[0].contains("Confederate infantry regiment"),
            "{}",
            told[0]
        );
        assert!(told[0].starts_with('A'), "{}", told[0]);
        // Unseen: not told at all.
        let none = side_narrative(
            &st,
            SideId(0),
            std::slice::from_ref(&ev),
            &Visibility::default(),
            false,
        );
        assert!(none.is_empty());
        // His own side is told by name.
        let own = side_narrative(&st, SideId(1), &[ev], &Visibility::default(), false);
        assert!(own[0].contains("6th Virginia"), "{}", own[0]);
    }

    /// Issue #14: an enemy the side lettered and then fought off the field
    /// (destroyed in the event, so seen by no one at the turn's end) keeps
    /// its letter; one it never saw gets none.
    #[test]
    fn a_lettered_enemy_gone_from_the_field_keeps_its_letter() {
        let mut st = state();
        let met = Event::Met {
            a: r(1, 0, "2nd Wisconsin"),
            b: r(2, 1, "6th Virginia"),
        };
        let mut names = EnemyNames::new(IdentityPolicy::Hidden);
        names.record_seen(&st, SideId(0), 1, [UnitId(2)]);
        if let Some(u) = st.unit_mut(UnitId(2)) {
            u.castings = 0;
        }
        let none = Visibility::default();
        let told = side_narrative_named(
            &st,
            SideId(0),
            std::slice::from_ref(&met),
            &none,
            &names,
            None,
        );
        assert!(told[0].contains("enemy A"), "{}", told[0]);
        assert!(!told[0].contains("Virginia"), "{}", told[0]);
        let unlettered = EnemyNames::new(IdentityPolicy::Hidden);
        let told = side_narrative_named(&st, SideId(0), &[met], &none, &unlettered, None);
        assert!(!told[0].contains("enemy A"), "{}", told[0]);
        assert!(!told[0].contains("Virginia"), "{}", told[0]);
    }

    /// Issue #14: an enemy in sight is told by the side's designation, or
    /// by its name when identities are known; an order's number is the
    /// reader side's own, never the game-wide id.
    #[test]
    fn designations_and_the_sides_own_order_numbers() {
        let mut vis = Visibility::default();
        vis.seen.insert(
            UnitId(2),
            SeenBy {
                observer: Observer::Unit(UnitId(1)),
                from: Pos::new(0.0, 0.5),
                distance: 9.0,
            },
        );
        let st = state();
        let moved = Event::Moved {
            unit: r(2, 1, "6th Virginia"),
            from: Pos::new(0.0, 12.0),
            to: Pos::new(0.0, 10.0),
            distance: 2.0,
            half: false,
            stop: "arrived".into(),
        };
        let mut names = EnemyNames::new(IdentityPolicy::Hidden);
        names.record_seen(&st, SideId(0), 1, [UnitId(2)]);
        let told = side_narrative_named(
            &st,
            SideId(0),
            std::slice::from_ref(&moved),
            &vis,
            &names,
            None,
        );
        assert!(told[0].starts_with("Enemy A "), "{}", told[0]);
        assert!(!told[0].contains("Virginia"), "{}", told[0]);
        names.policy = IdentityPolicy::Known;
        let told = side_narrative_named(&st, SideId(0), &[moved], &vis, &names, None);
        assert!(told[0].contains("6th Virginia"), "{}", told[0]);

        let booked = Event::OrderBooked {
            unit: r(1, 0, "2nd Wisconsin"),
            order: 17,
            issued_by: crate::rules::iron_brigade::events::OfficerRef {
                id: crate::rules::iron_brigade::state::OfficerId(1),
                side: SideId(0),
                name: "Gibbon".into(),
            },
            distance: 3.0,
            effective_turn: 2,
            obedience_roll: None,
            follows_previous: false,
            replaced: Vec::new(),
        };
        let numbers: BTreeMap<u64, u32> = [(17, 2)].into_iter().collect();
        let told = side_narrative_named(
            &st,
            SideId(0),
            std::slice::from_ref(&booked),
            &vis,
            &names,
            Some(&numbers),
        );
        assert!(told[0].starts_with("Order #2 from Gibbon"), "{}", told[0]);
        let told = side_narrative_named(&st, SideId(0), &[booked], &vis, &names, None);
        assert!(told[0].starts_with("An order from Gibbon"), "{}", told[0]);
        assert!(!told[0].contains("17"), "{}", told[0]);
    }

    /// An exchange of fire told to each side: his own numbers in full, the
    /// enemy's castings, dice and morale left out (only that it was hit).
    #[test]
    fn enemy_numbers_are_left_out() {
        let fired = |unit: UnitRef, target: UnitRef| Event::Fired {
            unit,
            target,
            range: 5,
            base_effectiveness: 5,
            effectiveness: 4,
            modifiers: vec![],
            castings_firing: 17,
            dice_total: 13,
            casualties: 3,
            save_total: 11,
            morale_lost: 4,
            split_move: false,
            perilous: false,
            perilous_why: vec![],
            with: vec![],
            split_fire: false,
            attack_dice: vec![4, 4, 5],
            save_dice: vec![5, 6],
            band: String::new(),
            alternate: String::new(),
        };
        let ours = fired(r(1, 0, "2nd Wisconsin"), r(2, 1, "6th Virginia"));
        let theirs = fired(r(2, 1, "6th Virginia"), r(1, 0, "2nd Wisconsin"));
        let rally = Event::RallyAttempt {
            unit: r(2, 1, "6th Virginia"),
            die: 5,
            modified_roll: 5,
            officer: None,
            officer_was_hit: false,
            from: 1,
            to: 2,
            base_modifier: 0,
            officer_modifier: 0,
            bad_officer_die: None,
        };
        let mut vis = Visibility::default();
        vis.seen.insert(
            UnitId(2),
            SeenBy {
                observer: Observer::Unit(UnitId(1)),
                from: Pos::new(0.0, 0.5),
                distance: 9.0,
            },
        );
        let told = side_narrative(&state(), SideId(0), &[ours, theirs, rally], &vis, false);
        assert_eq!(told.len(), 3, "{told:?}");
        // Our fire: our castings and dice; of the enemy only that he is hit.
        assert!(
            told[0].contains("(17 castings)") && told[0].contains("dice 13"),
            "{}",
            told[0]
        );
        assert!(
            told[0].contains("the enemy is hit") && !told[0].contains("morale"),
            "{}",
            told[0]
        );
        // His fire: our losses in full, nothing of his castings or dice.
        assert!(
            !told[1].contains("17") && !told[1].contains("13"),
            "{}",
            told[1]
        );
        assert!(
            told[1].contains("3 casualties, 4 morale lost"),
            "{}",
            told[1]
        );
        // His rally: that he steadies, not his die or his morale track.
        assert!(told[2].contains("steadies"), "{}", told[2]);
        assert!(
            !told[2].contains('5') && !told[2].contains('→'),
            "{}",
            told[2]
        );
        // With the fog lifted, every number.
        let all = side_narrative(
            &state(),
            SideId(0),
            &[fired(r(2, 1, "6th Virginia"), r(1, 0, "2nd Wisconsin"))],
            &vis,
            true,
        );
        assert!(all[0].contains("(17 castings)"), "{}", all[0]);
    }
}
