//! APSoF VIII.B, horse and mounted artillery (an optional rule): a foot
//! battery must put its crews on the limbers and caissons before it may
//! move in the double-quick phase; horse artillery doubles at once.
//! Battery A of the training scenario, alone on the table, limbered and
//! ordered north at the double.

use adjutant::dice::ScriptedDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::{Arm, Formation};
use adjutant::rules::iron_brigade::orders::{
    Action, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use std::path::Path;

const BATTERY_A: UnitId = UnitId(4);

fn battery(option: bool, arm: Arm) -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units.retain(|u| u.id == BATTERY_A);
    s.options.horse_vs_mounted_artillery = option;
    let b = s.unit_mut(BATTERY_A).unwrap();
    b.arm = arm;
    b.formation = Formation::Limbered;
    b.facing = 0.0;
    b.position = Pos::new(12.0, 6.0);
    s
}

fn at_the_double() -> TurnOrders {
    TurnOrders {
        unit_orders: vec![UnitOrder {
            id: 1,
            unit: BATTERY_A,
            issued_by: OfficerId(1),
            issued_turn: 1,
            follows_previous: false,
            steps: vec![Step {
                trigger: Trigger::Then,
                action: Action::Move(MoveOrder {
                    waypoints: vec![Pos::new(12.0, 60.0)],
                    by_road: false,
                    formation: None,
                    gait: Gait::DoubleQuick,
                    fire_while_moving: false,
                    backwards: false,
                }),
            }],
        }],
        officer_moves: vec![],
        dispatches: vec![],
    }
}

/// Runs a turn with `dice`, all of which must be used.
fn turn(s: &BattleState, book: &OrderBook, orders: &TurnOrders, dice: &[i64]) -> TurnOutcome {
    let mut d = ScriptedDice::new(dice.iter().copied()).unwrap();
    let out = resolve_turn(s, book, orders, &mut d).unwrap();
    assert_eq!(d.remaining(), 0, "every scripted die is used, no more");
    out
}

fn doubled(out: &TurnOutcome) -> bool {
    out.events
        .iter()
        .any(|e| matches!(e, Event::DoubleQuick { .. }))
}

/// Turn 1: the crews mount instead of the double-quick move (no morale
/// die), and the battery marches on in the movement phase. Turn 2, on the
/// same order: it doubles and rolls for the cost (a 6: nothing lost).
#[test]
fn viii_b_foot_battery_mounts_its_crews_first() {
    let one = turn(
        &battery(true, Arm::Artillery),
        &OrderBook::default(),
        &at_the_double(),
        &[],
    );
    assert!(!doubled(&one));
    assert!(
        one.events
            .iter()
            .any(|e| matches!(e, Event::CrewsMounted { unit } if unit.id == BATTERY_A))
    );
    let b = one.state.unit(BATTERY_A).unwrap();
    assert!(b.marks.crews_mounted);
    assert!(b.position.y > 6.0, "it still marches: {:?}", b.position);

    let two = turn(&one.state, &one.book, &TurnOrders::default(), &[6]);
    assert!(doubled(&two));
    assert!(
        !two.events
            .iter()
            .any(|e| matches!(e, Event::CrewsMounted { .. }))
    );
}

/// Horse artillery has its crews on horseback already.
#[test]
fn viii_b_horse_artillery_doubles_at_once() {
    let one = turn(
        &battery(true, Arm::HorseArtillery),
        &OrderBook::default(),
        &at_the_double(),
        &[6],
    );
    assert!(doubled(&one));
}

/// Without the optional rule a foot battery doubles at once, as before.
#[test]
fn viii_b_is_optional() {
    let one = turn(
        &battery(false, Arm::Artillery),
        &OrderBook::default(),
        &at_the_double(),
        &[6],
    );
    assert!(doubled(&one));
    assert!(!one.state.unit(BATTERY_A).unwrap().marks.crews_mounted);
}
