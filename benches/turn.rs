//! One full turn of a generated corps battle (APSoF I.B) with a standing
//! order book: every unit has an order — advance, fire at will, or hold —
//! and the dice come from a seeded stream. The input is
//! `state::corps_battle_turn(1863)`, whose outcome `tests/turn_pinned.rs`
//! pins byte for byte. See BENCHMARKS.md.

use adjutant::dice::StreamDice;
use adjutant::rules::iron_brigade::orders::TurnOrders;
use adjutant::rules::iron_brigade::state::corps_battle_turn;
use adjutant::rules::iron_brigade::turn::resolve_turn;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn bench_turn(c: &mut Criterion) {
    let (state, book) = corps_battle_turn(1863);
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
