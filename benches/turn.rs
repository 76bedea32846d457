//! One full turn of a generated corps battle (APSoF I.B) with a standing
//! order book: every unit has an order — advance, fire at will, or hold —
//! and the dice come from a seeded stream. See BENCHMARKS.md.

use adjutant::dice::StreamDice;
use adjutant::rules::iron_brigade::geometry::facing_vector;
use adjutant::rules::iron_brigade::orders::{
    Action, BookedOrder, FireTarget, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders,
    UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, generate_corps_battle};
use adjutant::rules::iron_brigade::turn::resolve_turn;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn standing_book(state: &BattleState) -> OrderBook {
    let mut book = OrderBook::default();
    for (i, u) in state.units.iter().enumerate() {
        let action = match i % 3 {
            0 => {
                let (dx, dy) = facing_vector(u.facing);
                Action::Move(MoveOrder {
                    waypoints: vec![Pos::new(u.position.x + 10.0 * dx, u.position.y + 10.0 * dy)],
                    by_road: false,
                    formation: None,
                    gait: Gait::March,
                    fire_while_moving: false,
                    backwards: false,
                })
            }
            1 => Action::Fire(FireTarget::AtWill),
            _ => Action::Hold,
        };
        let order = UnitOrder {
            id: i as u64 + 1,
            unit: u.id,
            issued_by: u.commander.unwrap_or(OfficerId(1)),
            issued_turn: state.turn,
            follows_previous: false,
            steps: vec![Step {
                trigger: Trigger::Then,
                action,
            }],
        };
        book.units.insert(
            u.id,
            vec![BookedOrder {
                order,
                effective_turn: state.turn,
                current_step: 0,
            }],
        );
    }
    book
}

/// The generated lines start 60–70" apart, out of range; close them to
/// about 15" so the measured turn has musketry and artillery in it.
fn closed_up(mut s: BattleState) -> BattleState {
    for u in s.units.iter_mut().filter(|u| u.side.0 == 1) {
        u.position.y -= 50.0;
    }
    for o in s.officers.iter_mut().filter(|o| o.side.0 == 1) {
        o.position.y -= 50.0;
    }
    s
}

fn bench_turn(c: &mut Criterion) {
    let state = closed_up(generate_corps_battle(1863));
    let book = standing_book(&state);
    let orders = TurnOrders::default();
    c.bench_function("resolve_turn corps battle (seed 1863)", |b| {
        b.iter(|| {
            let mut dice = StreamDice::new([42u8; 32]);
            let out = resolve_turn(black_box(&state), black_box(&book), &orders, &mut dice);
            black_box(out.map(|o| o.events.len()).unwrap_or(0))
        })
    });
}

criterion_group!(benches, bench_turn);
criterion_main!(benches);
