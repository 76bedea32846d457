//! APSoF VI.C.6 and VI.B.1.vi, pinned: a unit whose combat morale falls to
//! 1 is pinned at once, whatever lowered it, and may not advance that turn
//! (in the open in sight of the enemy it lies down); rabble (base morale 1)
//! are pinned from the start and never advance on the enemy.

mod common;

use adjutant::dice::ScriptedDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::Formation;
use adjutant::rules::iron_brigade::orders::{
    Action, BookedOrder, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, Ranks, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use common::GameDir;
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const TWELFTH_OHIO: UnitId = UnitId(2);
const THIRD_TENN: UnitId = UnitId(5);

/// The 10th and 12th Ohio side by side in line facing north at y 16; the
/// 3rd Tennessee far off to the north (14"), holding its fire.
fn field() -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units
        .retain(|u| [TENTH_OHIO, TWELFTH_OHIO, THIRD_TENN].contains(&u.id));
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    let place = |s: &mut BattleState, id: UnitId, x: f64, y: f64, facing: f64| {
        let u = s.unit_mut(id).unwrap();
        u.position = Pos::new(x, y);
        u.facing = facing;
    };
    place(&mut s, TENTH_OHIO, 12.0, 16.0, 0.0);
    place(&mut s, TWELFTH_OHIO, 18.0, 16.0, 0.0);
    place(&mut s, THIRD_TENN, 12.0, 30.0, 180.0);
    s
}

fn order(id: u64, unit: UnitId, action: Action) -> (UnitId, Vec<BookedOrder>) {
    (
        unit,
        vec![BookedOrder {
            order: UnitOrder {
                id,
                unit,
                issued_by: OfficerId(1),
                issued_turn: 1,
                follows_previous: false,
                steps: vec![Step {
                    trigger: Trigger::Then,
                    action,
                }],
            },
            effective_turn: 1,
            current_step: 0,
        }],
    )
}

fn march(to: Pos, backwards: bool) -> Action {
    Action::Move(MoveOrder {
        waypoints: vec![to],
        by_road: false,
        formation: None,
        gait: Gait::March,
        fire_while_moving: false,
        backwards,
    })
}

/// The 10th Ohio marches 4" north (or backs 2" south); the Tennesseans hold
/// their fire.
fn book(backwards: bool) -> OrderBook {
    let to = if backwards {
        Pos::new(12.0, 14.0)
    } else {
        Pos::new(12.0, 20.0)
    };
    let mut b = OrderBook::default();
    b.units.extend([
        order(1, TENTH_OHIO, march(to, backwards)),
        order(2, THIRD_TENN, Action::HoldFire),
    ]);
    b
}

fn run(s: &BattleState, b: &OrderBook, dice: &[u8]) -> TurnOutcome {
    let all = dice.iter().copied().chain(std::iter::repeat_n(3, 100));
    let mut d = ScriptedDice::new(all).unwrap();
    resolve_turn(s, b, &TurnOrders::default(), &mut d).unwrap()
}

fn pinned_events(out: &TurnOutcome, id: UnitId) -> usize {
    out.events
        .iter()
        .filter(|e| matches!(e, Event::Pinned { unit, .. } if unit.id == id))
        .count()
}

/// The 12th Ohio is broken (it failed to rally); the 10th, at morale 2, sees
/// it go and checks for panic in the morale phase (VI.D.2). Dice: the 10th's
/// rally die 3 (regular, +0: no change), the 12th's rally die 3 (it stays
/// broken and retreats); the 12th's four panic dice 2+2+2+2 = 8, / 7 = 1;
/// the 10th's four saving dice 1+1+1+1 = 4, / 10 = 0: it loses 1 level, to
/// 1. Pinned at once, its march north that same turn is held.
#[test]
fn vi_c_6_pinned_by_panic_does_not_advance_that_turn() {
    let mut s = field();
    let tenth = s.unit_mut(TENTH_OHIO).unwrap();
    tenth.combat_morale = 2;
    let twelfth = s.unit_mut(TWELFTH_OHIO).unwrap();
    twelfth.combat_morale = 0;
    twelfth.broken = true;
    let out = run(&s, &book(false), &[3, 3, 2, 2, 2, 2, 1, 1, 1, 1]);
    assert!(
        out.events.iter().any(
            |e| matches!(e, Event::Panic { unit, morale_lost: 1, .. } if unit.id == TENTH_OHIO)
        ),
        "{:#?}",
        out.events
    );
    let u = out.state.unit(TENTH_OHIO).unwrap();
    assert_eq!(u.combat_morale, 1);
    assert!(u.marks.pinned);
    assert!(pinned_events(&out, TENTH_OHIO) >= 1);
    assert!(
        u.position.distance(Pos::new(12.0, 16.0)) < 1e-9,
        "a pinned unit may not advance: {:?}",
        u.position
    );
    // In the open with the enemy in sight, it went prone (VI.C.6).
    assert!(u.lying_down);
}

/// The same panic from morale 3 leaves the 10th at 2: not pinned, it marches.
#[test]
fn vi_c_6_morale_2_still_advances() {
    let mut s = field();
    s.unit_mut(TENTH_OHIO).unwrap().combat_morale = 3;
    let twelfth = s.unit_mut(TWELFTH_OHIO).unwrap();
    twelfth.combat_morale = 0;
    twelfth.broken = true;
    let out = run(&s, &book(false), &[3, 3, 2, 2, 2, 2, 1, 1, 1, 1]);
    let u = out.state.unit(TENTH_OHIO).unwrap();
    assert_eq!(u.combat_morale, 2);
    assert!(!u.marks.pinned);
    assert!(u.position.y > 16.5, "{:?}", u.position);
}

/// VI.B.1.vi: rabble "will not advance against a known enemy" and are
/// "subject to the pinned rule": a rabble regiment (base and combat morale
/// 1) is pinned on turn 1 and its advance is held.
#[test]
fn vi_b_1_vi_rabble_do_not_advance_from_turn_one() {
    let mut s = field();
    let tenth = s.unit_mut(TENTH_OHIO).unwrap();
    tenth.base_morale = 1;
    tenth.combat_morale = 1;
    let out = run(&s, &book(false), &[]);
    let u = out.state.unit(TENTH_OHIO).unwrap();
    assert!(u.marks.pinned);
    assert_eq!(pinned_events(&out, TENTH_OHIO), 2, "pinned, then prone");
    assert!(
        u.position.distance(Pos::new(12.0, 16.0)) < 1e-9,
        "{:?}",
        u.position
    );
}

/// Pinned units "may not advance"; moving back is not an advance (as for
/// VII.G's leaderless units): the pinned 10th backs 2" south.
#[test]
fn vi_c_6_a_pinned_unit_may_move_back() {
    let mut s = field();
    s.unit_mut(TENTH_OHIO).unwrap().combat_morale = 1;
    let out = run(&s, &book(true), &[]);
    let u = out.state.unit(TENTH_OHIO).unwrap();
    assert!(u.position.y < 15.5, "{:?}", u.position);
}

/// The unit's position in the battle state stored at the start of `turn`.
fn position(g: &GameDir, turn: u32, name: &str) -> (f64, f64) {
    let json: String = g
        .db()
        .query_row(
            "SELECT state_json FROM turns WHERE number = ?1 AND superseded_at IS NULL",
            [turn],
            |r| r.get(0),
        )
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    fn find<'a>(v: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
        match v {
            serde_json::Value::Object(m) => {
                if m.get("name").and_then(|n| n.as_str()) == Some(name)
                    && m.contains_key("position")
                {
                    return Some(v);
                }
                m.values().find_map(|x| find(x, name))
            }
            serde_json::Value::Array(a) => a.iter().find_map(|x| find(x, name)),
            _ => None,
        }
    }
    let u = find(&v, name).unwrap_or_else(|| panic!("{name} in {json}"));
    (
        u["position"]["x"].as_f64().unwrap(),
        u["position"]["y"].as_f64().unwrap(),
    )
}

/// Through the binary: the 14th Ohio of the fixture is rabble; ordered to
/// advance on the enemy on turn 1, it stays where it stood.
#[test]
fn vi_b_1_vi_rabble_hold_by_mail() {
    let g = GameDir::with_scenario("rabble", "tests/fixtures/scenarios/rabble.toml");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "14th Ohio: advance to (40, 20).\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    assert_eq!(position(&g, 1, "14th Ohio"), (40.0, 3.0));
    assert_eq!(position(&g, 2, "14th Ohio"), (40.0, 3.0));
    // The 12th Ohio (regular) was given no order and the control: the
    // order itself is read (it is in the receipt).
    let receipts = g.outbox().join("\n").replace("=\r\n", "");
    assert!(receipts.contains("14th Ohio"), "{receipts}");
}
