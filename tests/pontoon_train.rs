//! APSoF IV.E.2 "When on wagons, pontoon boats move like heavy equipment",
//! and the IV.G chart's heavy-equipment column: "Movement ... 10", roads
//! +3, fords −6, fence −5, and `*` (not allowed) for walls, steep hills,
//! rough, woods, dense woods and swamp.
//!
//! The fixture `tests/fixtures/scenarios/pontoon-train.toml`: Deep Creek
//! (60", too deep to ford) along y = 10, the Mill Road along y = 4. The
//! Pontoon Train (heavy equipment, carrying the Union's two boats for Deep
//! Creek) stands on the road at (14, 4) facing east; the Supply Wagons
//! (heavy equipment) in the open at (30, 14) facing north; Colonel Hale at
//! (20, 8) is within 12" of both, so orders take effect at once (I.C.1).

mod common;

use adjutant::dice::StreamDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::PontoonTask;
use adjutant::rules::iron_brigade::movement::{MoveClass, move_class};
use adjutant::rules::iron_brigade::orders::{
    Action, BookedOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use common::GameDir;
use std::path::Path;

const FIXTURE: &str = "tests/fixtures/scenarios/pontoon-train.toml";
const TRAIN: UnitId = UnitId(1);
const WAGONS: UnitId = UnitId(2);
const SECOND: UnitId = UnitId(3);

fn state() -> BattleState {
    let sc = adjutant::scenario::load(Path::new(FIXTURE)).unwrap();
    battle_state_from_scenario(&sc)
}

/// The state at the end of `turn`, as the binary stored it.
fn stored(g: &GameDir, turn: u32) -> BattleState {
    let json: String = g
        .db()
        .query_row(
            "SELECT state_json FROM turns WHERE number = ?1 AND superseded_at IS NULL",
            [turn + 1],
            |r| r.get(0),
        )
        .unwrap();
    adjutant::game::snapshot::Snapshot::from_json(&json)
        .unwrap()
        .battle
}

/// The scenario's `heavy_equipment = true` puts a unit in the IV.G
/// heavy-equipment column, and a pontoon entry's `train` puts the boats on
/// that unit's wagons, where it stands.
#[test]
fn iv_e_2_the_scenario_places_a_pontoon_train() {
    let s = state();
    let train = s.unit(TRAIN).unwrap();
    assert!(train.heavy_equipment);
    assert_eq!(move_class(train), MoveClass::HeavyEquipment);
    assert_eq!(move_class(s.unit(SECOND).unwrap()), MoveClass::Infantry);
    let p = &s.terrain.pontoons[0];
    assert_eq!(p.train, Some(TRAIN));
    assert!(!p.afloat, "boats on a train are on its wagons");
    assert_eq!(p.position, train.position);
}

/// A train must be a heavy-equipment unit of the boats' side; the file is
/// refused with the fix.
#[test]
fn iv_e_2_the_scenario_checks_the_train() {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    let not_heavy = text.replace("train = \"Pontoon Train\"", "train = \"2nd Wisconsin\"");
    std::fs::write(&path, &not_heavy).unwrap();
    let err = adjutant::scenario::load(&path).unwrap_err().to_string();
    assert!(err.contains("heavy_equipment = true"), "{err}");
    let unknown = text.replace("train = \"Pontoon Train\"", "train = \"Pontoon Trian\"");
    std::fs::write(&path, &unknown).unwrap();
    let err = adjutant::scenario::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("Pontoon Train"),
        "the near name is offered: {err}"
    );
}

/// Through the binary, on the umpire's dice: in one turn the Pontoon Train
/// goes 13" by the Mill Road (IV.G heavy equipment 10" + roads 3") and the
/// Supply Wagons 10" across open ground; the boats ride with the train.
/// Blue's report says so and names the train as wagons.
#[test]
fn iv_g_heavy_equipment_moves_ten_inches_and_three_more_by_road() {
    let g = GameDir::with_scenario("train", FIXTURE);
    g.umpire("DICE MODE UMPIRE");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "Pontoon Train: advance to (40, 4) by road.\n\n\
         Supply Wagons: advance 20 inches north.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played without dice");
    let s = stored(&g, 1);
    let train = s.unit(TRAIN).unwrap();
    assert!(
        train.position.distance(Pos::new(27.0, 4.0)) < 1e-6,
        "13\" by road: {:?}",
        train.position
    );
    let wagons = s.unit(WAGONS).unwrap();
    assert!(
        wagons.position.distance(Pos::new(30.0, 24.0)) < 1e-6,
        "10\" off road: {:?}",
        wagons.position
    );
    assert_eq!(s.terrain.pontoons[0].position, train.position);
    let blue = g
        .outbox_all()
        .into_iter()
        .filter(|m| m.contains("To: blue@example.test") && m.contains("Turn 1 results"))
        .map(|m| {
            m.replace("=\r\n", "")
                .replace("=\n", "")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .next()
        .expect("Blue's turn 1 report");
    assert!(
        blue.contains("Pontoon Train moves 13.0\" from (14.0, 4.0) to (27.0, 4.0)"),
        "{blue}"
    );
    assert!(
        blue.contains("Supply Wagons moves 10.0\" from (30.0, 14.0) to (30.0, 24.0)"),
        "{blue}"
    );
    assert!(
        blue.contains("Pontoon Train -- wagons (heavy equipment), column"),
        "{blue}"
    );
    assert!(
        blue.contains("Deep Creek pontoons: 2 boats on the wagons of Pontoon Train"),
        "{blue}"
    );
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

fn turn(s: &BattleState, book: &OrderBook) -> TurnOutcome {
    let mut d = StreamDice::new([7u8; 32]);
    resolve_turn(s, book, &TurnOrders::default(), &mut d).unwrap()
}

fn unload(unit: UnitId) -> OrderBook {
    let mut b = OrderBook::default();
    b.units.insert(
        unit,
        vec![booked(
            unit,
            1,
            Action::Pontoons {
                task: PontoonTask::Unload,
            },
        )],
    );
    b
}

/// IV.E.2: the boats are unloaded into the water only at their stream:
/// on the road, 6" from Deep Creek, the order is refused with the fix.
/// Brought to the bank, the train's men unload them in four turns, and
/// the boats lie on the bank at the train's front; then infantry at them
/// may cross.
#[test]
fn iv_e_2_a_train_unloads_its_boats_at_the_bank() {
    let s = state();
    let out = turn(&s, &unload(TRAIN));
    let why = out
        .events
        .iter()
        .find_map(|e| match e {
            Event::OrderNotCarriedOut { unit, reason, .. } if unit.id == TRAIN => {
                Some(reason.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("refused away from the creek: {:?}", out.events));
    assert!(
        why.contains("from Deep Creek: move it to the bank"),
        "{why}"
    );

    let mut s = state();
    {
        let t = s.unit_mut(TRAIN).unwrap();
        t.position = Pos::new(27.0, 9.0);
        t.facing = 0.0;
    }
    let mut b = unload(TRAIN);
    for n in 1..=4u32 {
        let out = turn(&s, &b);
        assert_eq!(
            out.state.terrain.pontoons[0].afloat,
            n == 4,
            "turn {n}: {:?}",
            out.events
        );
        s = out.state;
        b = out.book;
    }
    let p = s.terrain.pontoons[0].clone();
    let t = s.unit(TRAIN).unwrap();
    let front = adjutant::rules::iron_brigade::geometry::footprint(t).front_centre();
    assert!(p.position.distance(front) < 1e-9, "{:?}", p.position);
    assert!(
        (10.0 - p.position.y) <= 1.0,
        "on the bank: {:?}",
        p.position
    );
    // Now afloat, the boats stay when the train drives off.
    s.unit_mut(TRAIN).unwrap().position = Pos::new(40.0, 4.0);
    let out = turn(&s, &OrderBook::default());
    assert_eq!(out.state.terrain.pontoons[0].position, p.position);
    // The 2nd Wisconsin, brought up to them, takes to the boats.
    let mut s = out.state;
    {
        let w = s.unit_mut(SECOND).unwrap();
        w.position = Pos::new(p.position.x, p.position.y - 1.0);
        w.facing = 0.0;
    }
    let mut b = OrderBook::default();
    b.units.insert(
        SECOND,
        vec![booked(
            SECOND,
            2,
            Action::Pontoons {
                task: PontoonTask::Cross,
            },
        )],
    );
    let out = turn(&s, &b);
    assert!(
        out.events.iter().any(|e| matches!(e,
            Event::PontoonWork { unit, task: PontoonTask::Cross, turns: 1, .. } if unit.id == SECOND)),
        "{:?}",
        out.events
    );
}

/// IV.E.2, IV.G: wagons listed as infantry are seen by the enemy as what
/// they are, a wagon train, not "an infantry regiment" (found playing).
#[test]
fn iv_g_the_enemy_sees_wagons_as_a_wagon_train() {
    use adjutant::identity::{EnemyNames, IdentityPolicy, unit_kind_noun};
    let s = state();
    let names = EnemyNames::new(IdentityPolicy::Hidden);
    assert_eq!(names.call(&s, TRAIN), "an enemy wagon train");
    assert_eq!(names.call(&s, WAGONS), "an enemy wagon train");
    assert_eq!(names.call(&s, SECOND), "an enemy regiment");
    assert_eq!(unit_kind_noun(s.unit(TRAIN).unwrap()), "wagon train");
}
