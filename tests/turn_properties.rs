//! Properties of whole turns over random orders on the training scenario:
//! castings never grow or go negative, combat morale stays on 0..=base
//! (APSoF VI.B.4), no fire kills more castings than the target had
//! (V.B.1.v), and the state stays valid.

use adjutant::dice::StreamDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::Formation;
use adjutant::rules::iron_brigade::orders::{
    Action, Direction, FirePart, FireShare, FireTarget, Gait, MoveOrder, OrderBook, Step, Trigger,
    TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, UnitId};
use adjutant::rules::iron_brigade::turn::resolve_turn;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

fn training() -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    battle_state_from_scenario(&sc)
}

fn action(kind: u8, x: f64, y: f64, dq: bool, f: u8) -> Action {
    let gait = if dq { Gait::DoubleQuick } else { Gait::March };
    match kind {
        0 => Action::Hold,
        1 | 2 => Action::Move(MoveOrder {
            waypoints: vec![Pos::new(x, y)],
            by_road: false,
            formation: None,
            gait,
            fire_while_moving: kind == 2,
            backwards: false,
        }),
        3 => Action::Fire(FireTarget::AtWill),
        4 => Action::Form {
            formation: Formation::ALL[usize::from(f) % Formation::ALL.len()],
            facing: Some(Direction::Toward(Pos::new(x, y))),
        },
        5 => Action::Face(Direction::Degrees(x * 7.5)),
        6 => Action::Charge {
            target: Some(UnitId(u32::from(f % 8) + 1)),
            to: None,
            gait,
        },
        // APSoF V.F, with partners and targets drawn from every unit, the
        // firer itself and enemies included: the engine must cope.
        8 => Action::FireWith {
            target: FireTarget::Unit(UnitId(u32::from(f % 8) + 1)),
            with: vec![
                UnitId(u32::from(f / 8 % 8) + 1),
                UnitId(u32::from(f / 64) + 1),
            ],
        },
        9 => Action::SplitFire {
            parts: vec![
                FirePart {
                    share: [FireShare::Castings(u32::from(f % 24)), FireShare::Half]
                        [usize::from(dq)],
                    target: FireTarget::Unit(UnitId(u32::from(f % 8) + 1)),
                },
                FirePart {
                    share: FireShare::Rest,
                    target: [
                        FireTarget::AtWill,
                        FireTarget::Unit(UnitId(u32::from(f / 32) + 1)),
                    ][usize::from(f % 2)],
                },
            ],
        },
        _ => Action::HoldFire,
    }
}

type RawOrder = (u32, u8, f64, f64, bool, u8, bool);

fn orders(raw: &[RawOrder], state: &BattleState, base_id: u64) -> TurnOrders {
    let unit_orders = raw
        .iter()
        .enumerate()
        .filter_map(|(i, &(u, kind, x, y, dq, f, follows))| {
            let unit = state.unit(UnitId(u))?;
            // Side 0 is Hale's (officer 1), side 1 Pryor's (officer 2).
            let officer = OfficerId(u32::from(unit.side.0) + 1);
            Some(UnitOrder {
                id: base_id + i as u64,
                unit: UnitId(u),
                issued_by: officer,
                issued_turn: state.turn,
                follows_previous: follows,
                steps: vec![
                    Step {
                        trigger: Trigger::Then,
                        action: action(kind, x, y, dq, f),
                    },
                    Step {
                        trigger: Trigger::OnArrival,
                        action: action(kind.wrapping_add(3) % 10, y, x, false, f),
                    },
                ],
            })
        })
        .collect();
    TurnOrders {
        unit_orders,
        officer_moves: vec![],
        dispatches: vec![],
    }
}

fn raw_order() -> impl Strategy<Value = RawOrder> {
    (
        1u32..=8,
        0u8..10,
        0.0f64..48.0,
        0.0f64..36.0,
        any::<bool>(),
        any::<u8>(),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn turns_keep_castings_and_morale_on_the_track(
        seed in any::<[u8; 32]>(),
        turns in prop::collection::vec(prop::collection::vec(raw_order(), 0..8), 1..4),
    ) {
        let start = training();
        let initial: BTreeMap<UnitId, u32> = start.units.iter().map(|u| (u.id, u.castings)).collect();
        let mut state = start;
        let mut book = OrderBook::default();
        let mut dice = StreamDice::new(seed);
        for (t, raw) in turns.iter().enumerate() {
            let o = orders(raw, &state, 100 * t as u64);
            let before: BTreeMap<UnitId, u32> = state.units.iter().map(|u| (u.id, u.castings)).collect();
            let out = resolve_turn(&state, &book, &o, &mut dice).unwrap();
            prop_assert_eq!(out.state.turn, state.turn + 1);
            for u in &out.state.units {
                prop_assert!(u.castings <= initial[&u.id], "{} grew to {}", u.name, u.castings);
                prop_assert!(u.combat_morale <= u.base_morale, "{} morale {}", u.name, u.combat_morale);
                prop_assert!(!u.broken || u.combat_morale == 0, "{} broken at {}", u.name, u.combat_morale);
                prop_assert!(u.position.is_finite());
            }
            for e in &out.events {
                if let Event::Fired { target, casualties, .. } = e {
                    prop_assert!(*casualties <= before[&target.id]);
                }
            }
            prop_assert!(out.state.validate().is_ok());
            state = out.state;
            book = out.book;
        }
    }
}
