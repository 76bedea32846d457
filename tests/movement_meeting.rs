//! APSoF IV.F and our ruling between friends (docs/rulings.md): two units of
//! one side whose moves end on overlapping ground do not both fall back to
//! a point between their starts; the later one halts short on its own path,
//! and no two units are left on top of each other.

use adjutant::dice::ScriptedDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::geometry::footprint;
use adjutant::rules::iron_brigade::orders::{
    Action, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, UnitId};
use adjutant::rules::iron_brigade::turn::resolve_turn;
use geo::Intersects;
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const TWELFTH_OHIO: UnitId = UnitId(2);

fn march(id: u64, unit: UnitId, to: Pos) -> UnitOrder {
    UnitOrder {
        id,
        unit,
        issued_by: OfficerId(1),
        issued_turn: 1,
        follows_previous: false,
        steps: vec![Step {
            trigger: Trigger::Then,
            action: Action::Move(MoveOrder {
                waypoints: vec![to],
                by_road: false,
                formation: None,
                gait: Gait::March,
                fire_while_moving: false,
                backwards: false,
            }),
        }],
    }
}

/// Two Ohio columns facing east-north-east, the 12th 2.3" west of the 10th
/// (as the 56th Pennsylvania and 76th New York stood at Brawner's Farm).
fn columns() -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units
        .retain(|u| [TENTH_OHIO, TWELFTH_OHIO].contains(&u.id));
    for (id, x) in [(TENTH_OHIO, 7.5), (TWELFTH_OHIO, 5.2)] {
        let u = s.unit_mut(id).unwrap();
        u.position = Pos::new(x, 6.0);
        u.facing = 67.5;
    }
    s.officer_mut(OfficerId(1)).unwrap().position = Pos::new(16.0, 8.0);
    s
}

/// Both march north-east, the 10th to (11.6, 10.3) and the 12th to
/// (10.4, 10.7), where its column would overlap the 10th's. The 12th, using
/// more of its move, halts short on its own path; the 10th ends where it
/// was sent; they do not overlap, and nobody "meets between".
#[test]
fn iv_f_a_friend_catching_up_halts_short_and_nobody_overlaps() {
    let s = columns();
    let orders = TurnOrders {
        unit_orders: vec![
            march(1, TENTH_OHIO, Pos::new(11.6, 10.3)),
            march(2, TWELFTH_OHIO, Pos::new(10.4, 10.7)),
        ],
        ..Default::default()
    };
    let mut d = ScriptedDice::new(std::iter::repeat_n(3, 40)).unwrap();
    let out = resolve_turn(&s, &OrderBook::default(), &orders, &mut d).unwrap();
    let (a, b) = (
        out.state.unit(TENTH_OHIO).unwrap(),
        out.state.unit(TWELFTH_OHIO).unwrap(),
    );
    assert!(
        a.position.distance(Pos::new(11.6, 10.3)) < 1e-6,
        "{:?}",
        a.position
    );
    assert!(
        !footprint(a).polygon().intersects(&footprint(b).polygon()),
        "10th at {:?}, 12th at {:?}",
        a.position,
        b.position
    );
    // On the 12th's straight path from (5.2, 6) toward (10.4, 10.7).
    let (dx, dy) = (b.position.x - 5.2, b.position.y - 6.0);
    assert!(
        (dx * 4.7 - dy * 5.2).abs() < 1e-6 && dx > 0.0,
        "{:?}",
        b.position
    );
    assert!(
        out.events.iter().any(|e| matches!(e,
            Event::HaltedShort { unit, of, .. } if unit.id == TWELFTH_OHIO && of.id == TENTH_OHIO)),
        "{:#?}",
        out.events
    );
    assert!(!out.events.iter().any(|e| matches!(e, Event::Met { .. })));
    let told: Vec<String> = out.events.iter().map(|e| e.describe()).collect();
    assert!(
        told.iter().any(|t| t.starts_with("12th Ohio halts at")
            && t.contains("short of the ground 10th Ohio reached")),
        "{told:#?}"
    );
}
