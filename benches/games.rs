//! `cargo bench --bench games`: what a server's work costs as the number of
//! games and the length of a game grow (issue #18).
//!
//! * `many_games/*/N`: a store holding N training games (each with its own
//!   player addresses, real Argon2 hashes, no deadlines), N = 1, 1,000 and
//!   10,000: creating one more game, an idle cycle (intake with nothing
//!   new, the due work of `run --once`: resumes, due turns, reminders, and
//!   the daemon's next wake-up), one due turn (game `g0`'s next turn with
//!   its reports and mail queued), a mail from an address nobody registered
//!   (stored and run through intake), and a player's reply-token order mail
//!   (read by the real order parser, receipt queued).
//! * `long_game/turn/{1,48}`: one turn of Brawner's Farm at turn 1 and at
//!   turn 48 (after 47 turns played without orders), and the bytes the
//!   store grows per turn, its mail marked sent (printed: pages in use).
//!
//! The stores are built once into template files under
//! `target/bench-data/` (keyed by the schema version; delete them to
//! rebuild) and copied for each run, so the 10,000-game store costs its
//! building time only once. Short measurement times: the whole bench runs
//! in a few minutes. `ADJUTANT_BENCH_GAMES` (e.g. `1,1000`) limits the sizes;
//! `ADJUTANT_BENCH_CLOCK=cpu` times `long_game` and the mail cases
//! (`stranger_mail`, `player_mail`) by the thread's CPU time.

use adjutant::config::Config;
use adjutant::daemon::{DueWork, intake_settings};
use adjutant::game::cycle::{TurnCycle, next_due_at};
use adjutant::game::new_game;
use adjutant::game::report_mail::{MailSlot, ReportMail};
use adjutant::game::submit::OrdersHandler;
use adjutant::game::turn::process_turn;
use adjutant::mail::intake::{IntakeSettings, process_new};
use adjutant::scenario::Scenario;
use adjutant::store::{MailSource, NewInboundMail, SCHEMA_VERSION, Store};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const NOW: i64 = 1_781_000_000;
const TRAINING: &str = include_str!("../scenarios/training.toml");
const BRAWNER: &str = include_str!("../scenarios/brawners-farm.toml");
const KEY: [u8; 32] = [9; 32];

fn data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let dir = target.join("bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn settings(dir: &Path) -> IntakeSettings {
    let config = Config::embedded(dir);
    let mut s = intake_settings(&config, KEY.to_vec());
    s.refusal_interval_secs = 0;
    s
}

/// A real Argon2 hash, made once: every player's secret is `secret`.
fn hash() -> String {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| adjutant::secret::hash_secret("secret").unwrap())
        .clone()
}

fn training_game(i: usize, name: &str) -> adjutant::store::NewGame {
    let mut s = Scenario::from_toml_str(TRAINING, "training.toml").unwrap();
    for p in &mut s.players {
        p.addresses = vec![format!("{}-{i}@example.test", p.name.to_lowercase())];
    }
    let h = hash();
    new_game(&s, TRAINING, name, [42; 32], NOW - 3600, |_| {
        Ok(("secret".into(), h.clone()))
    })
    .unwrap()
    .0
}

/// The template store with `n` training games `g0…`, built once.
fn template(n: usize) -> PathBuf {
    let path = data_dir().join(format!("games-{n}-v{SCHEMA_VERSION}.db"));
    if path.exists() {
        return path;
    }
    let building = path.with_extension("building");
    let _ = std::fs::remove_file(&building);
    let started = Instant::now();
    {
        let mut store = Store::open(&building).unwrap();
        // Only the template: a crash just means building it again.
        store
            .conn()
            .execute_batch("PRAGMA synchronous = OFF")
            .unwrap();
        for i in 0..n {
            store
                .create_game(&training_game(i, &format!("g{i}")))
                .unwrap();
        }
        // Settle the first poll's checks of the new turns (due_checks).
        adjutant::game::cycle::due_games(&store, NOW).unwrap();
        store.conn().execute_batch("VACUUM").unwrap();
    }
    std::fs::rename(&building, &path).unwrap();
    eprintln!(
        "built the {n}-game template in {:.1} s ({} MB)",
        started.elapsed().as_secs_f64(),
        std::fs::metadata(&path).unwrap().len() / 1_000_000
    );
    path
}

/// A private copy of the `n`-game template, with the turn cycle's mail set.
struct Server {
    _dir: tempfile::TempDir,
    store: Store,
    settings: IntakeSettings,
    cycle: TurnCycle,
    mail: ReportMail,
    handler: OrdersHandler,
}

fn server(n: usize) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("adjutant.db");
    std::fs::copy(template(n), &db).unwrap();
    let store = Store::open(&db).unwrap();
    let settings = settings(dir.path());
    let mut cycle = TurnCycle::new(MailSlot::default());
    cycle.set_mail(&settings);
    let mail = ReportMail::from_intake(&settings);
    Server {
        _dir: dir,
        store,
        settings,
        cycle,
        mail,
        handler: OrdersHandler::new(),
    }
}

static SEQ: AtomicU64 = AtomicU64::new(0);

fn store_mail(store: &mut Store, raw: String) {
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    store
        .insert_inbound_mail(&NewInboundMail {
            raw: raw.into_bytes(),
            message_id: Some(format!("b{n}@example.test")),
            source: MailSource::Maildir,
            source_ref: format!("b{n}"),
            received_at: NOW,
        })
        .unwrap();
}

fn stranger_mail() -> String {
    let n = SEQ.load(Ordering::Relaxed);
    format!(
        "From: someone@elsewhere.test\r\nTo: adjutant@example.test\r\nSubject: hello\r\n\
         Message-ID: <b{n}@example.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\r\n\
         Buy our product.\r\n"
    )
}

fn player_mail(game: &str, i: usize) -> String {
    let n = SEQ.load(Ordering::Relaxed);
    let token = adjutant::mail::token::make_token(&KEY, game, "Blue", 1).unwrap();
    format!(
        "From: blue-{i}@example.test\r\nTo: adjutant+{token}@example.test\r\n\
         Subject: Re: [{game}] turn 1\r\nMessage-ID: <b{n}@example.test>\r\n\
         Date: Sun, 22 Nov 2026 10:00:00 +0000\r\n\r\n10th Ohio: hold.\r\n"
    )
}

fn sizes() -> Vec<usize> {
    std::env::var("ADJUTANT_BENCH_GAMES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 1_000, 10_000])
}

fn many_games(c: &mut Criterion) {
    let mut g = c.benchmark_group("many_games");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in sizes() {
        let mut s = server(n);
        let mut created = 0usize;
        g.bench_with_input(BenchmarkId::new("create_game", n), &n, |b, _| {
            b.iter_custom(|iters| {
                let games: Vec<_> = (0..iters)
                    .map(|_| {
                        created += 1;
                        training_game(n + created, &format!("new{created}"))
                    })
                    .collect();
                let t = Instant::now();
                for game in &games {
                    s.store.create_game(game).unwrap();
                }
                t.elapsed()
            })
        });
        // Settle the checks the new games' turns left.
        s.cycle.run_due(&mut s.store, NOW).unwrap();
        g.bench_with_input(BenchmarkId::new("idle_cycle", n), &n, |b, _| {
            b.iter(|| {
                let r = process_new(&mut s.store, &s.settings, &mut s.handler, NOW).unwrap();
                assert_eq!(r.accepted + r.refused + r.ignored, 0);
                let done = s.cycle.run_due(&mut s.store, NOW).unwrap();
                assert_eq!(done, 0);
                next_due_at(&s.store, NOW).unwrap()
            })
        });
        g.bench_with_input(BenchmarkId::new("stranger_mail", n), &n, |b, _| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    store_mail(&mut s.store, stranger_mail());
                    let (t, c) = (Instant::now(), thread_cpu());
                    let r = process_new(&mut s.store, &s.settings, &mut s.handler, NOW).unwrap();
                    total += elapsed(t, c);
                    assert_eq!(r.ignored, 1);
                }
                total
            })
        });
        let (game, i) = if n > 1 { ("g1", 1) } else { ("g0", 0) };
        g.bench_with_input(BenchmarkId::new("player_mail", n), &n, |b, _| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    store_mail(&mut s.store, player_mail(game, i));
                    let (t, c) = (Instant::now(), thread_cpu());
                    let r = process_new(&mut s.store, &s.settings, &mut s.handler, NOW).unwrap();
                    total += elapsed(t, c);
                    assert_eq!(r.accepted, 1, "{r:?}");
                }
                total
            })
        });
        g.bench_with_input(BenchmarkId::new("due_turn", n), &n, |b, _| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    process_turn(&mut s.store, "g0", &s.mail, NOW).unwrap();
                }
                t.elapsed()
            })
        });
    }
    g.finish();
}

/// A store with one Brawner's Farm game played without orders to turn
/// `turn` (turn `turn` open), built once.
fn brawner_at(turn: u32) -> (PathBuf, Vec<u64>) {
    let path = data_dir().join(format!("brawner-t{turn}-v{SCHEMA_VERSION}.db"));
    let sizes = data_dir().join(format!("brawner-t{turn}-v{SCHEMA_VERSION}.sizes"));
    if path.exists() && sizes.exists() {
        let text = std::fs::read_to_string(&sizes).unwrap();
        return (
            path,
            text.split_whitespace()
                .filter_map(|s| s.parse().ok())
                .collect(),
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&path.with_extension("building")).unwrap();
    let s = Scenario::from_toml_str(BRAWNER, "brawners-farm.toml").unwrap();
    let h = hash();
    let game = new_game(&s, BRAWNER, "brawner", [42; 32], NOW - 3600, |_| {
        Ok(("secret".into(), h.clone()))
    })
    .unwrap()
    .0;
    store.create_game(&game).unwrap();
    let mail = ReportMail::from_intake(&settings(dir.path()));
    let bytes = |store: &Store| -> u64 {
        store
            .conn()
            .query_row(
                "SELECT (page_count - freelist_count) * page_size
                 FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
            .try_into()
            .unwrap()
    };
    let mut growth = Vec::new();
    for _ in 1..turn {
        let before = bytes(&store);
        process_turn(&mut store, "brawner", &mail, NOW).unwrap();
        // Delivered, as the outbox would mark them.
        store
            .conn()
            .execute(
                "UPDATE outbound_mail SET status = 'sent', sent_at = ?1, next_attempt_at = NULL WHERE status = 'queued'",
                [NOW],
            )
            .unwrap();
        growth.push(bytes(&store).saturating_sub(before));
    }
    drop(store);
    std::fs::rename(path.with_extension("building"), &path).unwrap();
    let text: Vec<String> = growth.iter().map(u64::to_string).collect();
    std::fs::write(&sizes, text.join(" ")).unwrap();
    (path, growth)
}

/// CPU time of this thread so far (Linux `/proc/thread-self/schedstat`,
/// nanoseconds on the CPU). `None` elsewhere.
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// `ADJUTANT_BENCH_CLOCK=cpu`: `long_game` times the thread's CPU time, not
/// the wall clock — what a turn costs whatever else the shared machine is
/// doing (the commit's fsync wait is then left out).
fn cpu_clock() -> bool {
    std::env::var("ADJUTANT_BENCH_CLOCK").is_ok_and(|v| v == "cpu")
}

/// Time since `t` (wall clock), or the thread's CPU time since `c` under
/// `ADJUTANT_BENCH_CLOCK=cpu` (commit waits for the disk are then left out).
fn elapsed(t: Instant, c: Option<Duration>) -> Duration {
    match (cpu_clock(), c, thread_cpu()) {
        (true, Some(c0), Some(c1)) => c1.saturating_sub(c0),
        _ => t.elapsed(),
    }
}

fn long_game(c: &mut Criterion) {
    let mut g = c.benchmark_group("long_game");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for turn in [1u32, 48] {
        let (template, growth) = brawner_at(turn);
        if !growth.is_empty() {
            let total: u64 = growth.iter().sum();
            eprintln!(
                "Brawner's Farm, turns 1–{}: store grew {} bytes, {} bytes per turn on average \
                 (first turn {} bytes, last {} bytes)",
                turn - 1,
                total,
                total / growth.len() as u64,
                growth.first().unwrap(),
                growth.last().unwrap()
            );
        }
        g.bench_with_input(BenchmarkId::new("turn", turn), &turn, |b, _| {
            b.iter_custom(|iters| {
                // A fresh copy per sample, so every iteration processes turn
                // `turn` itself.
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let dir = tempfile::tempdir().unwrap();
                    let db = dir.path().join("adjutant.db");
                    std::fs::copy(&template, &db).unwrap();
                    let mut store = Store::open(&db).unwrap();
                    let mail = ReportMail::from_intake(&settings(dir.path()));
                    let t = Instant::now();
                    let cpu = thread_cpu();
                    process_turn(&mut store, "brawner", &mail, NOW).unwrap();
                    total += match (cpu_clock(), cpu, thread_cpu()) {
                        (true, Some(a), Some(b)) => b.saturating_sub(a),
                        _ => t.elapsed(),
                    };
                }
                total
            })
        });
    }
    g.finish();
}

criterion_group!(benches, many_games, long_game);
criterion_main!(benches);
