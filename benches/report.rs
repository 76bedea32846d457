//! Render every report of one turn of a 10-player corps battle: five
//! players a side, each commanding a share of his side's brigades, plus the
//! umpire — text, HTML, SVG and PNG each. Target: ≤ 100 ms in all
//! (issue #18; BENCHMARKS.md).
//!
//! `cargo bench --bench report` (`ADJUTANT_BENCH_CLOCK=cpu` times the
//! thread's CPU time instead of the wall clock).

use adjutant::report::{
    LastKnown, ReportInputs, Reporter, SideSighting, UmpireInputs, side_view, umpire_view,
};
use adjutant::rules::iron_brigade::kinds::OfficerLevel;
use adjutant::rules::iron_brigade::sight::{Activity, SightIndex, side_visibility};
use adjutant::rules::iron_brigade::state::generate::{GENERATED_HEIGHT, GENERATED_WIDTH};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, SideId, generate_corps_battle};
use criterion::{Criterion, criterion_group, criterion_main};
use std::collections::BTreeSet;
use std::hint::black_box;
use std::time::{Duration, Instant};
use time::macros::datetime;

const PLAYERS_PER_SIDE: usize = 5;

/// CPU time of this thread so far (Linux `/proc/thread-self/schedstat`).
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Five players a side, brigades dealt out in turn.
fn players(state: &BattleState, side: SideId) -> Vec<Vec<OfficerId>> {
    let mut out = vec![Vec::new(); PLAYERS_PER_SIDE];
    let brigades = state
        .officers_of(side)
        .filter(|o| o.level == OfficerLevel::Brigade);
    for (i, o) in brigades.enumerate() {
        out[i % PLAYERS_PER_SIDE].push(o.id);
    }
    out
}

fn one_turn(state: &BattleState, index: &SightIndex, reporter: &Reporter) -> usize {
    let (fired, moved) = (BTreeSet::new(), BTreeSet::new());
    let act = Activity {
        fired: &fired,
        moved: &moved,
    };
    let mut bytes = 0;
    let mut sightings = Vec::new();
    for side in [SideId(0), SideId(1)] {
        let vis = side_visibility(state, index, side, &act);
        let rec = SideSighting::new(state, side, state.turn, &vis);
        let lk = LastKnown::from_records([&rec]);
        for (n, officers) in players(state, side).into_iter().enumerate() {
            let mut inputs = ReportInputs::new(
                "corps",
                &format!("player {}-{n}", side.0),
                datetime!(1863-07-01 14:00),
            );
            inputs.officers = officers;
            inputs.table = Some((GENERATED_WIDTH, GENERATED_HEIGHT));
            inputs.deadline = "Tuesday 8:00 p.m.".into();
            let view = side_view(state, side, &vis, &lk, &inputs).expect("view");
            let r = reporter.player(&view).expect("report");
            bytes += r.text.len() + r.html.len() + r.png.len();
        }
        sightings.push(rec);
    }
    let uin = UmpireInputs {
        game: "corps".into(),
        battle_start: datetime!(1863-07-01 14:00),
        minutes_per_turn: 2.5,
        yards_per_inch: 25.0,
        table: Some((GENERATED_WIDTH, GENERATED_HEIGHT)),
        orders: Default::default(),
        events: Vec::new(),
        rolls: Vec::new(),
        sightings,
        dispatches: Vec::new(),
        mail_problems: Vec::new(),
        open_queries: Vec::new(),
    };
    let r = reporter
        .umpire(&umpire_view(state, &uin))
        .expect("umpire report");
    bytes + r.text.len() + r.html.len() + r.png.len()
}

fn bench(c: &mut Criterion) {
    let state = generate_corps_battle(7);
    let index = SightIndex::new(&state.terrain);
    let reporter = Reporter::new().expect("templates");
    let mut g = c.benchmark_group("report");
    g.sample_size(10);
    // `ADJUTANT_BENCH_CLOCK=cpu`: the thread's CPU time rather than the
    // wall clock, for a shared, loaded machine.
    let cpu = std::env::var("ADJUTANT_BENCH_CLOCK").is_ok_and(|v| v == "cpu");
    g.bench_function("all reports of one corps turn (10 players + umpire)", |b| {
        b.iter_custom(|iters| {
            let (t, c) = (Instant::now(), thread_cpu());
            for _ in 0..iters {
                black_box(one_turn(black_box(&state), &index, &reporter));
            }
            match (cpu, c, thread_cpu()) {
                (true, Some(a), Some(b)) => b.saturating_sub(a),
                _ => t.elapsed(),
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
