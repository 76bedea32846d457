//! The table edge (our ruling, docs/rulings.md "The table edge"; the
//! rules are silent): an ordered move stops at the edge; a broken unit
//! whose retreat reaches the edge leaves the field. The training scenario's
//! table is 48" × 36".

use adjutant::dice::ScriptedDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::orders::{
    Action, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, TableSize, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const THIRD_TENN: UnitId = UnitId(5);

fn training(keep: &[UnitId]) -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units.retain(|u| keep.contains(&u.id));
    s
}

fn run(s: &BattleState, orders: &TurnOrders, dice: &[i64]) -> TurnOutcome {
    let mut d = ScriptedDice::new(dice.iter().copied()).unwrap();
    let out = resolve_turn(s, &OrderBook::default(), orders, &mut d).unwrap();
    assert_eq!(d.remaining(), 0, "every scripted die is used, no more");
    out
}

#[test]
fn the_scenario_gives_the_table_size() {
    assert_eq!(
        training(&[]).table,
        Some(TableSize {
            width: 48.0,
            height: 36.0
        })
    );
}

/// The 10th Ohio in column at (24, 33), Colonel Hale beside it, ordered
/// to (24, 40), 4" beyond the north edge: it marches to (24, 36) and the
/// order says it went only as far as the edge.
#[test]
fn an_ordered_move_stops_at_the_table_edge() {
    let mut s = training(&[TENTH_OHIO]);
    s.unit_mut(TENTH_OHIO).unwrap().position = Pos::new(24.0, 33.0);
    s.unit_mut(TENTH_OHIO).unwrap().facing = 0.0;
    s.officer_mut(OfficerId(1)).unwrap().position = Pos::new(24.0, 31.0);
    let orders = TurnOrders {
        unit_orders: vec![UnitOrder {
            id: 1,
            unit: TENTH_OHIO,
            issued_by: OfficerId(1),
            issued_turn: 1,
            follows_previous: false,
            steps: vec![Step {
                trigger: Trigger::Then,
                action: Action::Move(MoveOrder {
                    waypoints: vec![Pos::new(24.0, 40.0)],
                    by_road: false,
                    formation: None,
                    gait: Gait::March,
                    fire_while_moving: false,
                    backwards: false,
                }),
            }],
        }],
        ..Default::default()
    };
    let out = run(&s, &orders, &[]);
    let u = out.state.unit(TENTH_OHIO).unwrap();
    assert!((u.position.y - 36.0).abs() < 1e-6, "{:?}", u.position);
    assert!(out.events.iter().any(|e| matches!(e,
        Event::OrderNotCarriedOut { reason, .. } if reason.contains("table edge"))));
}

/// A broken 10th Ohio 2" from the south edge with the 3rd Tennessee to its
/// north fails to rally (die 1, regular +0: no change, VI.E) and retreats
/// straight away from it, south: the edge is within its retreat, so it
/// leaves the field with its 18 castings and is out of the battle.
#[test]
fn a_broken_unit_retreating_off_the_table_leaves_the_field() {
    let mut s = training(&[TENTH_OHIO, THIRD_TENN]);
    let t = s.unit_mut(TENTH_OHIO).unwrap();
    t.position = Pos::new(24.0, 2.0);
    t.combat_morale = 0;
    t.broken = true;
    let castings = t.castings;
    s.unit_mut(THIRD_TENN).unwrap().position = Pos::new(24.0, 20.0);
    let out = run(&s, &TurnOrders::default(), &[1]);
    let u = out.state.unit(TENTH_OHIO).unwrap();
    assert!(u.marks.left_field);
    assert_eq!(u.castings, 0);
    assert!((u.position.y - 0.0).abs() < 1e-6, "{:?}", u.position);
    assert!(out.events.iter().any(|e| matches!(e,
        Event::LeftTheField { unit, castings: c, .. } if unit.id == TENTH_OHIO && *c == castings)));
}

/// With room to run, the same retreat stays on the table.
#[test]
fn a_retreat_short_of_the_edge_stays_on_the_table() {
    let mut s = training(&[TENTH_OHIO, THIRD_TENN]);
    let t = s.unit_mut(TENTH_OHIO).unwrap();
    t.position = Pos::new(24.0, 20.0);
    t.combat_morale = 0;
    t.broken = true;
    s.unit_mut(THIRD_TENN).unwrap().position = Pos::new(24.0, 34.0);
    let out = run(&s, &TurnOrders::default(), &[1]);
    let u = out.state.unit(TENTH_OHIO).unwrap();
    assert!(!u.marks.left_field);
    assert!(u.castings > 0);
    assert!(
        u.position.y < 20.0 && u.position.y > 0.0,
        "{:?}",
        u.position
    );
}

/// Colonel Hale at (24, 34) rides for (24, 40), 4" beyond the north edge:
/// like a unit's ordered move (issue #15, "consistently"), his ride stops at
/// the edge, at (24, 36), which his receipt told him.
#[test]
fn an_officer_rides_only_to_the_table_edge() {
    let mut s = training(&[TENTH_OHIO]);
    s.officer_mut(OfficerId(1)).unwrap().position = Pos::new(24.0, 34.0);
    let orders = TurnOrders {
        officer_moves: vec![adjutant::rules::iron_brigade::orders::OfficerMove {
            officer: OfficerId(1),
            waypoints: vec![Pos::new(24.0, 40.0)],
            double_time: false,
            with_unit: None,
        }],
        ..Default::default()
    };
    let out = run(&s, &orders, &[]);
    let o = out.state.officer(OfficerId(1)).unwrap();
    assert!((o.position.y - 36.0).abs() < 1e-6, "{:?}", o.position);
    assert!((o.position.x - 24.0).abs() < 1e-6, "{:?}", o.position);
}
