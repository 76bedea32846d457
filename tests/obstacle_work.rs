//! APSoF VIII.D "Paths may be cleared through the abatis. 1 casting may
//! clear a path 1/2" wide in 2 turns." and VIII.E "Filling in a ditch
//! takes 2 turns for 1 casting per 1/2" of front": the order to work, two
//! whole turns, what stops the work, and the path or filled stretch that
//! movement then crosses as open ground. The fixture
//! `tests/fixtures/scenarios/works.toml` puts the 2nd Wisconsin (20
//! castings, line, 5" front) a quarter inch short of a belt of abatis 3"
//! deep and the 6th Wisconsin (16 castings, 4" front) as short of a ditch.

mod common;
mod orders_support;

use adjutant::dice::StreamDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::{Arm, Obstacle};
use adjutant::rules::iron_brigade::movement::{MoveIntent, StopReason, plan_move};
use adjutant::rules::iron_brigade::orders::{
    Action, BookedOrder, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use common::GameDir;
use std::path::Path;

const FIXTURE: &str = "tests/fixtures/scenarios/works.toml";
const SECOND: UnitId = UnitId(1);
const SIXTH: UnitId = UnitId(2);

fn state() -> BattleState {
    let sc = adjutant::scenario::load(Path::new(FIXTURE)).unwrap();
    battle_state_from_scenario(&sc)
}

fn booked(unit: UnitId, id: u64, action: Action) -> BookedOrder {
    BookedOrder {
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
    }
}

fn work(obstacle: Obstacle) -> Action {
    Action::ClearObstacle { obstacle }
}

fn advance_to(p: Pos) -> Action {
    Action::Move(MoveOrder {
        waypoints: vec![p],
        by_road: false,
        formation: None,
        gait: Gait::March,
        fire_while_moving: false,
        backwards: false,
    })
}

/// One turn with fixed dice (nothing in this fixture needs a die: the
/// enemy is out of range and sight; a stream seeded with 7s all the same).
fn turn(s: &BattleState, book: &OrderBook) -> TurnOutcome {
    let mut d = StreamDice::new([7u8; 32]);
    resolve_turn(s, book, &TurnOrders::default(), &mut d).unwrap()
}

fn both_working() -> OrderBook {
    let mut book = OrderBook::default();
    book.units
        .insert(SECOND, vec![booked(SECOND, 1, work(Obstacle::Abatis))]);
    book.units
        .insert(SIXTH, vec![booked(SIXTH, 2, work(Obstacle::Moat))]);
    book
}

/// VIII.D, VIII.E: the first turn is work under way (nothing opens, the
/// unit neither moves nor fires); the second opens a strip castings × 1/2"
/// wide: 20 castings, 10"; 16 castings, 8".
#[test]
fn viii_d_e_two_turns_of_work_open_the_obstacle() {
    let s = state();
    let one = turn(&s, &both_working());
    assert!(one.state.terrain.cleared.is_empty());
    for (id, o) in [(SECOND, Obstacle::Abatis), (SIXTH, Obstacle::Moat)] {
        assert!(
            one.events.iter().any(|e| matches!(e,
                Event::ObstacleWork { unit, obstacle, turns: 1, of: 2, .. }
                    if unit.id == id && *obstacle == o)),
            "{:?}",
            one.events
        );
        let u = one.state.unit(id).unwrap();
        assert_eq!(u.position, s.unit(id).unwrap().position, "it does not move");
        assert_eq!(u.marks.obstacle_work.map(|w| w.turns), Some(1));
    }
    assert!(!one.events.iter().any(|e| matches!(e, Event::Fired { .. })));

    let two = turn(&one.state, &one.book);
    let cleared = &two.state.terrain.cleared;
    assert_eq!(cleared.len(), 2, "{cleared:?}");
    let path = cleared
        .iter()
        .find(|c| c.obstacle == Obstacle::Abatis)
        .unwrap();
    assert_eq!(path.feature, "the abatis");
    assert_eq!(path.by, "2nd Wisconsin");
    assert!((path.width - 10.0).abs() < 1e-9);
    let fill = cleared
        .iter()
        .find(|c| c.obstacle == Obstacle::Moat)
        .unwrap();
    assert!((fill.width - 8.0).abs() < 1e-9);
    assert!(two.events.iter().any(|e| matches!(e,
        Event::ObstacleCleared { unit, width, .. } if unit.id == SECOND && (*width - 10.0).abs() < 1e-9)));
    // The step is done: the order leaves the book.
    assert!(!two.book.units.contains_key(&SECOND), "{:?}", two.book);
    assert!(
        two.state
            .unit(SECOND)
            .unwrap()
            .marks
            .obstacle_work
            .is_none()
    );
}

/// VIII.D: through the cleared path the 2nd Wisconsin (5" front inside the
/// 10" path) makes its full 7" instead of half rough speed, 2.5"; beside
/// the path (shifted 8" east) the abatis still slows it.
#[test]
fn viii_d_a_cleared_path_is_open_ground() {
    let s = state();
    let one = turn(&s, &both_working());
    let two = turn(&one.state, &one.book);
    let goal = MoveIntent::to(Pos::new(11.0, 30.0));
    let through = plan_move(&two.state, SECOND, &goal).unwrap();
    assert!(
        (through.distance - 7.0).abs() < 1e-6,
        "{}",
        through.distance
    );
    let mut beside = two.state.clone();
    beside.unit_mut(SECOND).unwrap().position = Pos::new(19.0, 6.0);
    let out = plan_move(&beside, SECOND, &MoveIntent::to(Pos::new(19.0, 30.0))).unwrap();
    assert!((out.distance - 2.5).abs() < 1e-6, "{}", out.distance);
    // And before the work, the same move was 2.5".
    let before = plan_move(&s, SECOND, &goal).unwrap();
    assert!((before.distance - 2.5).abs() < 1e-6, "{}", before.distance);
}

/// VIII.E: a filled stretch no longer stops a move at the ditch, nor
/// takes a whole turn to cross.
#[test]
fn viii_e_a_filled_ditch_no_longer_stops_the_move() {
    let s = state();
    let goal = MoveIntent::to(Pos::new(36.0, 30.0));
    let before = plan_move(&s, SIXTH, &goal).unwrap();
    assert_eq!(before.stop, StopReason::MoatReached);
    let one = turn(&s, &both_working());
    let two = turn(&one.state, &one.book);
    let after = plan_move(&two.state, SIXTH, &goal).unwrap();
    assert_eq!(after.stop, StopReason::AllowanceUsed);
    assert!((after.distance - 7.0).abs() < 1e-6, "{}", after.distance);
    // A unit standing off the filled stretch still stops at the ditch.
    let mut off = two.state.clone();
    off.unit_mut(SIXTH).unwrap().position = Pos::new(30.0, 3.0);
    let out = plan_move(&off, SIXTH, &MoveIntent::to(Pos::new(30.0, 30.0))).unwrap();
    assert_eq!(out.stop, StopReason::MoatReached);
}

/// Our ruling (docs/rulings.md): the two turns are whole turns in a row;
/// a turn in which the unit does something else (here it is told to move
/// off) drops the work, and the next order to work starts again at 1.
#[test]
fn viii_d_work_stopped_by_other_orders_starts_again() {
    let s = state();
    let one = turn(&s, &both_working());
    let mut book = one.book.clone();
    book.units.insert(
        SECOND,
        vec![booked(SECOND, 3, advance_to(Pos::new(11.0, 2.0)))],
    );
    let two = turn(&one.state, &book);
    assert!(two.events.iter().any(|e| matches!(e,
        Event::ObstacleWorkStopped { unit, .. } if unit.id == SECOND)));
    assert!(
        two.state
            .unit(SECOND)
            .unwrap()
            .marks
            .obstacle_work
            .is_none()
    );
    assert!(
        !two.state
            .terrain
            .cleared
            .iter()
            .any(|c| c.obstacle == Obstacle::Abatis)
    );
}

/// VI.C.6, our ruling: a pinned unit (combat morale 1) does no work that
/// turn, and what it had done is lost.
#[test]
fn viii_d_a_pinned_unit_does_not_work() {
    let s = state();
    let one = turn(&s, &both_working());
    let mut pinned = one.state.clone();
    pinned.unit_mut(SECOND).unwrap().combat_morale = 1;
    let two = turn(&pinned, &one.book);
    assert!(two.events.iter().any(|e| matches!(e,
        Event::OrderNotCarriedOut { unit, reason, .. }
            if unit.id == SECOND && reason.contains("pinned"))));
    assert!(two.events.iter().any(|e| matches!(e,
        Event::ObstacleWorkStopped { unit, .. } if unit.id == SECOND)));
    assert!(
        !two.state
            .terrain
            .cleared
            .iter()
            .any(|c| c.obstacle == Obstacle::Abatis)
    );
}

/// VIII.D: only infantry (mounted cavalry may not even enter abatis); a
/// unit not at the obstacle is told to move up to it first.
#[test]
fn viii_d_only_infantry_at_the_abatis() {
    let mut s = state();
    {
        let u = s.unit_mut(SECOND).unwrap();
        u.arm = Arm::Cavalry;
        u.mounted = true;
    }
    s.unit_mut(SIXTH).unwrap().position = Pos::new(36.0, 2.0);
    let out = turn(&s, &both_working());
    let reason = |id: UnitId| {
        out.events
            .iter()
            .find_map(|e| match e {
                Event::OrderNotCarriedOut { unit, reason, .. } if unit.id == id => {
                    Some(reason.clone())
                }
                _ => None,
            })
            .unwrap_or_default()
    };
    assert!(
        reason(SECOND).contains("only infantry"),
        "{}",
        reason(SECOND)
    );
    assert!(reason(SIXTH).contains("move it up"), "{}", reason(SIXTH));
    assert!(out.state.terrain.cleared.is_empty());
}

/// Through the binary: the Blue player writes the orders as a player
/// would, reads his receipt, and after two turns his report tells of the
/// path and the filled ditch; the third turn's moves go through at full
/// speed. The Grey player hears nothing of it.
#[test]
fn viii_d_e_by_mail() {
    let g = GameDir::with_scenario("works", FIXTURE);
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "2nd Wisconsin: clear a path through the abatis.\n6th Wisconsin: fill in the ditch.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let receipt = g
        .outbox()
        .into_iter()
        .find(|m| m.contains("clear a path through the abatis"))
        .expect("the receipt writes the order back");
    assert!(receipt.contains("fill in the ditch"), "{receipt}");

    g.order_mail("blue2", "blue@example.test", "Blue", "READY");
    g.order_mail("grey2", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 3, "turn 2 was played");
    let kinds: Vec<String> = {
        let db = g.db();
        let mut q = db
            .prepare("SELECT e.kind FROM events e JOIN turns t ON t.id = e.turn_id ORDER BY t.number, e.seq")
            .unwrap();
        q.query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(
        kinds.iter().filter(|k| *k == "obstacle-work").count(),
        2,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| *k == "obstacle-cleared").count(),
        2,
        "{kinds:?}"
    );
    let reports = g.outbox_all();
    let blue_turn2 = reports
        .iter()
        .filter(|m| m.contains("To: Blue") || m.contains("blue@example.test"))
        .find(|m| m.contains("has cleared a path 10.0\" wide through the abatis"));
    let blue_turn2 = blue_turn2.expect("Blue is told of his path");
    // His map shows the gap (the HTML's SVG; quoted-printable wraps it).
    let unwrapped = blue_turn2.replace("=\r\n", "").replace("=\n", "");
    assert!(
        unwrapped.contains("path cleared through the abatis by 2nd Wisconsin"),
        "the map draws the path"
    );
    let grey_map = reports
        .iter()
        .filter(|m| m.contains("To: grey@example.test"))
        .map(|m| m.replace("=\r\n", "").replace("=\n", ""))
        .any(|m| m.contains("path cleared through"));
    assert!(!grey_map, "Grey's map does not show the path");
    assert!(
        reports
            .iter()
            .any(|m| m.contains("has filled in 8.0\" of the ditch")),
        "Blue is told of the filled ditch"
    );
    assert!(
        !reports
            .iter()
            .filter(|m| m.contains("grey@example.test"))
            .any(|m| m.contains("abatis") && m.contains("cleared")),
        "Grey hears nothing of the work"
    );

    g.order_mail(
        "blue3",
        "blue@example.test",
        "Blue",
        "2nd Wisconsin: advance to (11, 30).\n6th Wisconsin: advance to (36, 30).\n\nREADY",
    );
    g.order_mail("grey3", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 4, "turn 3 was played");
    let db = g.db();
    let mut q = db
        .prepare(
            "SELECT json_extract(e.data_json, '$.unit.name'), json_extract(e.data_json, '$.distance')
             FROM events e JOIN turns t ON t.id = e.turn_id WHERE e.kind = 'moved' AND t.number = 3",
        )
        .unwrap();
    let moves: Vec<(String, f64)> = q
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for name in ["2nd Wisconsin", "6th Wisconsin"] {
        let d = moves
            .iter()
            .find(|(n, _)| n == name)
            .map(|m| m.1)
            .unwrap_or_else(|| panic!("{name} moved: {moves:?}"));
        assert!((d - 7.0).abs() < 1e-6, "{name} made {d}\"");
    }
}

/// The order as players write it (docs/orders.md): "clear a path through
/// the abatis", "cut a path through the abatis", "clear the abatis", "fill
/// in the ditch", "fill the moat"; a step like any other ("then").
#[test]
fn viii_d_e_the_orders_players_write() {
    use adjutant::orders::Item;
    let g = orders_support::game("training.toml");
    let ctx = orders_support::blue(&g);
    let actions = |text: &str| -> Vec<Action> {
        let m = orders_support::parse(&ctx, text);
        assert!(m.errors.is_empty(), "{text}: {:#?}", m.errors);
        match &m.items[..] {
            [Item::Unit { steps, .. }] => steps.iter().map(|s| s.action.clone()).collect(),
            other => panic!("{text}: {other:?}"),
        }
    };
    for text in [
        "10th Ohio: clear a path through the abatis.",
        "10th Ohio: Cut a path through the abatis",
        "10th Ohio: clear the abatis",
        "10th Ohio: clear a way through the enemy's abatis",
    ] {
        assert_eq!(actions(text), vec![work(Obstacle::Abatis)], "{text}");
    }
    for text in [
        "10th Ohio: fill in the ditch.",
        "10th Ohio: fill the moat",
        "10th Ohio: Fill in the ditch in front",
    ] {
        assert_eq!(actions(text), vec![work(Obstacle::Moat)], "{text}");
    }
    let two = actions("10th Ohio: advance to (15, 18), then clear a path through the abatis.");
    assert_eq!(two.len(), 2);
    assert_eq!(two[1], work(Obstacle::Abatis));
    // Said the wrong way round: a clear answer with what to write.
    for text in ["10th Ohio: fill the abatis", "10th Ohio: clear the ditch"] {
        let m = orders_support::parse(&ctx, text);
        assert_eq!(m.errors.len(), 1, "{text}: {:#?}", m.items);
        let msg = &m.errors[0].message;
        assert!(
            msg.contains("clear a path through the abatis") && msg.contains("fill in the ditch"),
            "{msg}"
        );
    }
}
