//! APSoF VII.G, regimental command (an optional rule), through whole turns
//! of the training scenario with scripted dice. The fire numbers are those
//! of `tests/turn.rs`'s exchange of fire, worked out there by hand: the
//! 10th Ohio fires first (fire-order dice 5, 2), the 3rd Tennessee replies
//! with 6, 6, 6 for 3 casualties, and the 10th saves with 4, 4, 5 = 13 out
//! of 5 × 3 = 15: it loses 2 morale levels in that one check, so VII.G asks
//! for a die. The last die is the officer-in-the-line roll (V.H), a miss.

use adjutant::dice::ScriptedDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::Formation;
use adjutant::rules::iron_brigade::orders::{
    Action, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, Ranks, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const THIRD_TENN: UnitId = UnitId(5);
const HALE: OfficerId = OfficerId(1);

/// The exchange of fire of `tests/turn.rs`, with VII.G on and the 10th
/// Ohio given `base` morale (at full strength).
fn exchange(base: u8) -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units.retain(|u| [TENTH_OHIO, THIRD_TENN].contains(&u.id));
    s.options.regimental_command = true;
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    let t = s.unit_mut(TENTH_OHIO).unwrap();
    t.position = Pos::new(24.0, 16.0);
    t.facing = 0.0;
    t.base_morale = base;
    t.combat_morale = base;
    let r = s.unit_mut(THIRD_TENN).unwrap();
    r.position = Pos::new(24.0, 22.0);
    r.facing = 180.0;
    s
}

/// Fire-order 5, 2; the 10th's attack 4, 4, 4, 4; the 3rd's save 5, 5, 5;
/// the 3rd's attack 6, 6, 6; the 10th's save 4, 4, 5; then `command` (the
/// VII.G die) and the officer die 1.
fn turn_one(s: &BattleState, command: i64) -> TurnOutcome {
    turn_one_after(s, &[], command)
}

/// [`turn_one`] after `first` dice of the morale phase.
fn turn_one_after(s: &BattleState, first: &[i64], command: i64) -> TurnOutcome {
    let fire = [5, 2, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6, 4, 4, 5, command, 1];
    let mut d = ScriptedDice::new(first.iter().copied().chain(fire)).unwrap();
    let out = resolve_turn(s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap();
    assert_eq!(d.remaining(), 0, "every scripted die is used, no more");
    out
}

fn command_event(out: &TurnOutcome) -> (u32, u8, u8, bool, u8, u8) {
    out.events
        .iter()
        .find_map(|e| match e {
            Event::RegimentalCommand {
                levels_lost,
                roll,
                needed,
                lost,
                base_from,
                base_to,
                ..
            } => Some((*levels_lost, *roll, *needed, *lost, *base_from, *base_to)),
            _ => None,
        })
        .expect("a regimental command check")
}

fn forward(id: u64, to: Pos, backwards: bool) -> UnitOrder {
    UnitOrder {
        id,
        unit: TENTH_OHIO,
        issued_by: HALE,
        issued_turn: 2,
        follows_previous: false,
        steps: vec![Step {
            trigger: Trigger::Then,
            action: Action::Move(MoveOrder {
                waypoints: vec![to],
                by_road: false,
                formation: None,
                gait: Gait::March,
                fire_while_moving: false,
                backwards,
            }),
        }],
    }
}

/// Turn 2 with the 3rd Tennessee gone (so nothing fires and no die is
/// needed) and the 10th Ohio given `order`.
fn turn_two(after: &TurnOutcome, order: UnitOrder) -> (TurnOutcome, usize) {
    let mut s = after.state.clone();
    s.units.retain(|u| u.id == TENTH_OHIO);
    let orders = TurnOrders {
        unit_orders: vec![order],
        ..Default::default()
    };
    let mut d = ScriptedDice::new([6, 6, 6, 6]).unwrap();
    let out = resolve_turn(&s, &after.book, &orders, &mut d).unwrap();
    (out, 4 - d.remaining())
}

/// A regular regiment losing 2 levels keeps its command on 1–4 and loses
/// it on 5–6 (the base 5 column's "5-6"). Losing it drops the unit a class:
/// base 5 → 4, combat morale (3 after the fire) unchanged.
#[test]
fn vii_g_regular_loses_command_on_five_and_drops_a_class() {
    let held = turn_one(&exchange(5), 4);
    assert_eq!(command_event(&held), (2, 4, 5, false, 5, 5));
    let u = held.state.unit(TENTH_OHIO).unwrap();
    assert_eq!(
        (u.base_morale, u.combat_morale, u.marks.command_lost),
        (5, 3, None)
    );

    let lost = turn_one(&exchange(5), 5);
    assert_eq!(command_event(&lost), (2, 5, 5, true, 5, 4));
    let u = lost.state.unit(TENTH_OHIO).unwrap();
    assert_eq!(
        (u.base_morale, u.combat_morale, u.marks.command_lost),
        (4, 3, Some(5))
    );
    assert_eq!(u.castings, 15, "the command is lost, not an extra casting");
}

/// An elite regiment reads the base 6 column: 2 levels lost needs a 6.
#[test]
fn vii_g_elite_needs_a_six_and_becomes_regular() {
    let mut s = exchange(6);
    // Elite, but already down to 5, so that its fire (VI.F: morale 6
    // subtracts 1) and the dice are those of the exchange. Below base, it
    // first tries to rally: 3 + 1 (elite) = 4, no change (VI.E).
    s.unit_mut(TENTH_OHIO).unwrap().combat_morale = 5;
    let held = turn_one_after(&s, &[3], 5);
    assert!(!command_event(&held).3);
    let lost = turn_one_after(&s, &[3], 6);
    assert_eq!(command_event(&lost), (2, 6, 6, true, 6, 5));
    assert_eq!(lost.state.unit(TENTH_OHIO).unwrap().base_morale, 5);
}

/// The rule is off unless the scenario switches it on: then no die is
/// asked for at all.
#[test]
fn vii_g_is_optional() {
    let mut s = exchange(5);
    s.options.regimental_command = false;
    let mut d = ScriptedDice::new([5, 2, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6, 4, 4, 5, 1]).unwrap();
    let out = resolve_turn(&s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap();
    assert_eq!(d.remaining(), 0);
    assert!(
        !out.events
            .iter()
            .any(|e| matches!(e, Event::RegimentalCommand { .. }))
    );
}

/// A poor regiment that loses its command keeps base 4 but gets "a rally
/// rating of 0" (no rally: none of turn 2's dice is rolled although it is
/// below base) and "may not advance unless a personality casting
/// accompanies the unit": ordered forward, it stays; ordered backwards, it
/// goes; with Colonel Hale beside it, it advances.
#[test]
fn vii_g_poor_regiment_without_command_neither_rallies_nor_advances_alone() {
    let lost = turn_one(&exchange(4), 5);
    assert_eq!(command_event(&lost), (2, 5, 5, true, 4, 4));
    let u = lost.state.unit(TENTH_OHIO).unwrap();
    assert_eq!(
        (u.base_morale, u.combat_morale, u.marks.command_lost),
        (4, 2, Some(4))
    );

    let (stayed, dice_used) = turn_two(&lost, forward(10, Pos::new(24.0, 19.0), false));
    assert_eq!(
        dice_used, 0,
        "no rally die for a poor unit without its command"
    );
    let u = stayed.state.unit(TENTH_OHIO).unwrap();
    assert_eq!((u.position.x, u.position.y), (24.0, 16.0));
    assert_eq!(u.combat_morale, 2);
    assert!(stayed.events.iter().any(|e| matches!(e,
        Event::OrderNotCarriedOut { reason, .. } if reason.contains("VII.G"))));

    let (back, _) = turn_two(&lost, forward(11, Pos::new(24.0, 14.0), true));
    let y = back.state.unit(TENTH_OHIO).unwrap().position.y;
    assert!(
        (y - 14.0).abs() < 1e-6,
        "backwards is not an advance: at y {y}"
    );

    let mut led = lost.clone();
    led.state.officer_mut(HALE).unwrap().position = Pos::new(24.0, 16.0);
    let (advanced, _) = turn_two(&led, forward(12, Pos::new(24.0, 19.0), false));
    let y = advanced.state.unit(TENTH_OHIO).unwrap().position.y;
    assert!(
        (y - 19.0).abs() < 1e-6,
        "with an officer it advances: at y {y}"
    );
}
