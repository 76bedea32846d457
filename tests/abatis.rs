//! APSoF VIII.D abatis (optional rule `abatis`): only infantry moves
//! through, at half rough-ground speed; a scenario must switch the rule on
//! to draw abatis; and a unit caught crossing it (or a ford) is in a
//! perilous situation (V.G.1.iv).

use adjutant::dice::StreamDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::{AreaKind, Formation};
use adjutant::rules::iron_brigade::movement::{MoveIntent, StopReason, TerrainType, plan_move};
use adjutant::rules::iron_brigade::orders::{
    Action, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{
    Area, BattleState, OfficerId, Pos, Ranks, Unit, UnitId,
};
use adjutant::rules::iron_brigade::turn::resolve_turn;
use std::path::Path;

/// A belt of abatis across the table from y = 2 to y = 6.
fn abatis() -> Area {
    Area {
        name: "the abatis".into(),
        kind: AreaKind::Abatis,
        outline: vec![
            Pos::new(-30.0, 2.0),
            Pos::new(30.0, 2.0),
            Pos::new(30.0, 6.0),
            Pos::new(-30.0, 6.0),
        ],
    }
}

fn field(unit: Unit) -> BattleState {
    let mut s = BattleState {
        units: vec![unit],
        ..BattleState::default()
    };
    s.terrain.areas.push(abatis());
    s
}

/// Infantry in line (7") that enters the abatis moves at 7 − 4.5 = 2.5"
/// for the whole move (IV.C.2: the slowest part governs).
#[test]
fn viii_d_infantry_goes_through_at_half_rough_speed() {
    let s = field(Unit::infantry(
        1,
        "2nd Wisconsin",
        0,
        20,
        Pos::new(0.0, 0.0),
        0.0,
    ));
    let out = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 10.0))).unwrap();
    assert!((out.distance - 2.5).abs() < 1e-6, "{}", out.distance);
    assert!(
        out.entered
            .iter()
            .any(|e| e.terrain == TerrainType::Area(AreaKind::Abatis) && e.modifier == -4.5)
    );
}

/// Mounted cavalry may not enter it: the move stops at its edge.
/// (Dismounted cavalry moves as infantry, III.H.)
#[test]
fn viii_d_only_infantry_moves_through() {
    // Mounted, its line is deep: start well clear of the abatis (a unit
    // may always leave forbidden ground it starts on, IV.G).
    let mut horse = Unit::cavalry(1, "1st Michigan", 0, 12, Pos::new(0.0, -8.0), 0.0);
    horse.mounted = true;
    let s = field(horse);
    let out = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 10.0))).unwrap();
    assert_eq!(
        out.stop,
        StopReason::Forbidden(TerrainType::Area(AreaKind::Abatis))
    );
    assert!(out.end.y < 2.0, "{:?}", out.end);
}

/// A scenario that draws abatis without switching the rule on is refused,
/// with the path of the area and what to do.
#[test]
fn viii_d_abatis_needs_the_option() {
    let text = std::fs::read_to_string("scenarios/training.toml").unwrap();
    let with_abatis = format!(
        "{text}\n[[terrain.areas]]\nkind = \"abatis\"\nname = \"the abatis\"\npoints = [[10, 10], [14, 10], [14, 12]]\n"
    );
    let err = adjutant::scenario::Scenario::from_toml_str(&with_abatis, "abatis.toml")
        .expect_err("abatis without the option");
    let msg = err.to_string();
    assert!(msg.contains("abatis = true"), "{msg}");
    let on = with_abatis.replace("[options]", "[options]\nabatis = true");
    adjutant::scenario::Scenario::from_toml_str(&on, "abatis.toml")
        .expect("abatis with the option");
}

/// V.G.1.iv: the 10th Ohio advances 1" into abatis in front of the 3rd
/// Tennessee, which fires at will: that fire is perilous, though the 10th
/// has been under fire before and did not change formation.
#[test]
fn v_g_1_iv_a_unit_crossing_abatis_is_in_a_perilous_situation() {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units.retain(|u| u.id == UnitId(1) || u.id == UnitId(5));
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    s.unit_mut(UnitId(1)).unwrap().position = Pos::new(24.0, 16.0);
    let r = s.unit_mut(UnitId(5)).unwrap();
    r.position = Pos::new(24.0, 22.0);
    r.facing = 180.0;
    s.officer_mut(OfficerId(1)).unwrap().position = Pos::new(24.0, 14.0);
    s.terrain.areas.push(Area {
        name: "the abatis".into(),
        kind: AreaKind::Abatis,
        outline: vec![
            Pos::new(10.0, 16.8),
            Pos::new(40.0, 16.8),
            Pos::new(40.0, 19.0),
            Pos::new(10.0, 19.0),
        ],
    });
    let orders = TurnOrders {
        unit_orders: vec![UnitOrder {
            id: 1,
            unit: UnitId(1),
            issued_by: OfficerId(1),
            issued_turn: 1,
            follows_previous: false,
            steps: vec![Step {
                trigger: Trigger::Then,
                action: Action::Move(MoveOrder {
                    waypoints: vec![Pos::new(24.0, 17.0)],
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
    let mut d = StreamDice::new([9u8; 32]);
    let out = resolve_turn(&s, &OrderBook::default(), &orders, &mut d).unwrap();
    let fire = out
        .events
        .iter()
        .find_map(|e| match e {
            Event::Fired { unit, perilous, .. } if unit.id == UnitId(5) => Some(*perilous),
            _ => None,
        })
        .expect("the 3rd Tennessee fires");
    assert!(fire, "perilous: caught in the abatis");
}
