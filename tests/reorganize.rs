//! APSoF VII.C reorganizations (optional rule `split-units`): splitting
//! off a sub-unit and combining two units, in the pure engine and through
//! the binary (the new unit gets a store row, so the next orders can name
//! it). Rulings: docs/rulings.md, "Reorganizations".

mod common;

use adjutant::dice::StreamDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::orders::{
    Action, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use common::GameDir;
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const TWELFTH_OHIO: UnitId = UnitId(2);

/// The 10th and 12th Ohio alone, the option on unless `on` is false.
fn union_only(on: bool) -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units
        .retain(|u| u.id == TENTH_OHIO || u.id == TWELFTH_OHIO);
    s.options.advanced_organization = on;
    // The training scenario has VII.E skirmishers on; these tests want
    // VII.C alone unless they say otherwise.
    s.options.skirmishers = false;
    s
}

fn order(unit: UnitId, action: Action) -> TurnOrders {
    TurnOrders {
        unit_orders: vec![UnitOrder {
            id: 1,
            unit,
            issued_by: OfficerId(1),
            issued_turn: 1,
            follows_previous: false,
            steps: vec![Step {
                trigger: Trigger::Then,
                action,
            }],
        }],
        ..Default::default()
    }
}

fn run(s: &BattleState, orders: &TurnOrders) -> TurnOutcome {
    // Nobody is in reach of an enemy: no die is needed, but a stream
    // stands by.
    let mut d = StreamDice::new([1u8; 32]);
    resolve_turn(s, &OrderBook::default(), orders, &mut d).unwrap()
}

fn not_carried_out(out: &TurnOutcome) -> Option<String> {
    out.events.iter().find_map(|e| match e {
        Event::OrderNotCarriedOut { reason, .. } => Some(reason.clone()),
        _ => None,
    })
}

/// VII.C.1: the 10th Ohio (18 castings, morale 4 of 5) splits off 6 as
/// skirmishers: a new unit (id 3, the next free here) of 6 castings with the
/// parent's morale, arm, weapon, formation, facing and commander, at its
/// right flank; the 10th keeps 12 and its left flank's place.
#[test]
fn vii_c_1_split_off_a_sub_unit() {
    let mut s = union_only(true);
    s.unit_mut(TENTH_OHIO).unwrap().combat_morale = 4;
    let before = s.unit(TENTH_OHIO).unwrap().clone();
    let out = run(
        &s,
        &order(
            TENTH_OHIO,
            Action::Split {
                castings: 6,
                new_name: "10th Ohio skirmishers".into(),
            },
        ),
    );
    assert_eq!(not_carried_out(&out), None);
    let parent = out.state.unit(TENTH_OHIO).unwrap();
    let child = out
        .state
        .unit(UnitId(3))
        .expect("the sub-unit (the next free id)");
    assert_eq!(child.name, "10th Ohio skirmishers");
    assert_eq!((parent.castings, child.castings), (12, 6));
    assert_eq!(
        (child.combat_morale, child.base_morale),
        (4, before.base_morale)
    );
    assert_eq!(
        (child.arm, child.weapon, child.formation, child.commander),
        (
            before.arm,
            before.weapon,
            before.formation,
            before.commander
        )
    );
    assert!((child.facing - before.facing).abs() < 1e-9);
    assert!(
        child.position.distance(parent.position) > 0.5,
        "side by side"
    );
    assert!(out.events.iter().any(|e| matches!(e,
        Event::SplitOff { unit, new_unit, castings: 6 } if unit.id == TENTH_OHIO && new_unit.id == UnitId(3))));
    // The split is the unit's action: it did not move.
    assert!(
        !out.events
            .iter()
            .any(|e| matches!(e, Event::Moved { unit, .. } if unit.id == TENTH_OHIO))
    );
}

/// VII.C.2: the 12th Ohio (16 castings, morale 5), in contact behind the
/// 10th (18, morale 3), combines with it: the 10th has 34 castings and the
/// lowest morale, 3; the 12th is left with none, marked combined.
#[test]
fn vii_c_2_combine_takes_the_lowest_morale() {
    let mut s = union_only(true);
    s.unit_mut(TENTH_OHIO).unwrap().combat_morale = 3;
    // Column 2" wide: the 12th's head just behind the 10th's tail.
    let tenth = s.unit(TENTH_OHIO).unwrap().position;
    let tail = adjutant::rules::iron_brigade::geometry::footprint(s.unit(TENTH_OHIO).unwrap());
    let twelfth_fp =
        adjutant::rules::iron_brigade::geometry::footprint(s.unit(TWELFTH_OHIO).unwrap());
    s.unit_mut(TWELFTH_OHIO).unwrap().position = Pos::new(
        tenth.x,
        tenth.y - (tail.depth + twelfth_fp.depth) / 2.0 - 0.1,
    );
    let out = run(
        &s,
        &order(TWELFTH_OHIO, Action::Combine { with: TENTH_OHIO }),
    );
    assert_eq!(not_carried_out(&out), None);
    let t = out.state.unit(TENTH_OHIO).unwrap();
    let w = out.state.unit(TWELFTH_OHIO).unwrap();
    assert_eq!((t.castings, t.combat_morale), (34, 3));
    assert_eq!((w.castings, w.marks.combined_into), (0, Some(TENTH_OHIO)));
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::Combined {
            castings: 16,
            morale: 3,
            ..
        }
    )));
}

/// Refused, with the reason, when the units are apart, when the name is
/// taken, and when the scenario does not use the rule.
#[test]
fn vii_c_refusals_say_why() {
    let s = union_only(true);
    let apart = run(
        &s,
        &order(TWELFTH_OHIO, Action::Combine { with: TENTH_OHIO }),
    );
    assert!(
        not_carried_out(&apart)
            .unwrap()
            .contains("not in contact with 10th Ohio")
    );
    let taken = run(
        &s,
        &order(
            TENTH_OHIO,
            Action::Split {
                castings: 6,
                new_name: "12TH OHIO".into(),
            },
        ),
    );
    assert!(
        not_carried_out(&taken)
            .unwrap()
            .contains("already a unit's")
    );
    let off = run(
        &union_only(false),
        &order(
            TENTH_OHIO,
            Action::Split {
                castings: 6,
                new_name: "10th Ohio skirmishers".into(),
            },
        ),
    );
    assert!(not_carried_out(&off).unwrap().contains("optional rule"));
}

/// Through the binary: Blue splits the 10th Ohio by mail; after the turn
/// the sub-unit has a store row, and on the next turn an order to it by its
/// new name is understood.
#[test]
fn a_split_off_unit_can_be_ordered_by_name_next_turn() {
    let g = GameDir::with_scenario("split", "tests/fixtures/scenarios/split-units.toml");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: split off 6 castings as the Ohio Sharpshooters.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2);
    assert_eq!(
        g.count("SELECT COUNT(*) FROM units WHERE name = 'Ohio Sharpshooters' AND rules_id = 9"),
        1
    );
    g.order_mail(
        "blue2",
        "blue@example.test",
        "Blue",
        "Ohio Sharpshooters: advance to the crossroads in skirmish order.",
    );
    g.run_once();
    let receipts = g.outbox().join("\n").replace("=\r\n", "");
    assert!(
        receipts.contains("Ohio Sharpshooters") && !receipts.contains("no unit"),
        "{receipts}"
    );
    assert_eq!(
        g.count(
            "SELECT COUNT(*) FROM orders o JOIN units u ON u.id = o.unit_id
             WHERE u.name = 'Ohio Sharpshooters'"
        ),
        1
    );
}

/// VII.E skirmishers (option `skirmishers` alone): a detachment named as
/// skirmishers goes out as a skirmish line, half a rank deep, 2" in front
/// of its parent; any other split is refused; a non-skirmisher may not join
/// a unit.
#[test]
fn vii_e_skirmishers_go_out_in_front_and_only_they_split() {
    let mut s = union_only(false);
    s.options.skirmishers = true;
    let parent_before = s.unit(TENTH_OHIO).unwrap().clone();
    let out = run(
        &s,
        &order(
            TENTH_OHIO,
            Action::Split {
                castings: 4,
                new_name: "10th Ohio skirmishers".into(),
            },
        ),
    );
    assert_eq!(not_carried_out(&out), None);
    let line = out.state.unit(UnitId(3)).unwrap();
    assert_eq!(
        line.formation,
        adjutant::rules::iron_brigade::kinds::Formation::Skirmish
    );
    assert_eq!(
        line.formed_ranks,
        adjutant::rules::iron_brigade::state::Ranks::Half
    );
    // Facing north: the line stands north of (in front of) the parent.
    let parent = out.state.unit(TENTH_OHIO).unwrap();
    assert!(
        line.position.y > parent.position.y + 2.0,
        "{:?} vs {:?}",
        line.position,
        parent.position
    );
    assert_eq!(
        parent.position, parent_before.position,
        "the parent stays put"
    );
    assert_eq!(parent.castings, parent_before.castings - 4);

    let plain = run(
        &s,
        &order(
            TENTH_OHIO,
            Action::Split {
                castings: 4,
                new_name: "10th Ohio detachment".into(),
            },
        ),
    );
    assert!(
        not_carried_out(&plain)
            .unwrap()
            .contains("only skirmishers split off")
    );
}
