//! A turn is all or nothing, even when the process dies: the real binary
//! (`adjutant game process`) is SIGKILLed while the turn's transaction is
//! in flight — once held inside it by the test-only pause
//! (`ADJUTANT_TEST_PAUSE_IN_TURN`), then at a spread of random moments — and
//! the SQLite file must hold either the old open turn or the new one, never
//! half; processing again must give the same `state_hash` as a run that was
//! never interrupted.

mod common;

use common::GameDir;
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("adjutant")
}

/// A game directory holding a copy of `base` as its database.
fn copy_of(base: &Path, name: &str, root: &Path) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("var")).unwrap();
    std::fs::copy(base, dir.join("var/adjutant.db")).unwrap();
    dir
}

fn process(dir: &Path) -> Command {
    let mut c = Command::new(bin());
    c.current_dir(dir)
        .args(["game", "process", "mill", "--json"])
        .env_remove("ADJUTANT_CONFIG")
        .env_remove("RUST_LOG")
        .env_remove(adjutant::game::cycle::PAUSE_IN_TURN_ENV)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    c
}

/// Processes turn 1 to the end; returns the new state hash.
fn process_to_end(dir: &Path) -> String {
    let out = process(dir).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["state_hash"].as_str().unwrap().to_string()
}

#[derive(Debug, PartialEq, Eq)]
enum Found {
    Old,
    New,
}

/// What the database holds after a kill: the old turn, untouched, or the
/// new one, complete. Anything else fails the test.
fn found(dir: &Path, new_hash: &str) -> Found {
    let db = Connection::open(dir.join("var/adjutant.db")).unwrap();
    let ok: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    let one = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    let open: i64 = one("SELECT number FROM turns WHERE status = 'open'");
    assert_eq!(one("SELECT COUNT(*) FROM turns WHERE status = 'open'"), 1);
    let events = one("SELECT COUNT(*) FROM events");
    let rolls = one("SELECT COUNT(*) FROM dice_rolls");
    let active = one("SELECT COUNT(*) FROM orders WHERE status = 'active'");
    let revealed = one("SELECT COUNT(*) FROM turns WHERE seed_revealed IS NOT NULL");
    match open {
        1 => {
            assert_eq!(one("SELECT COUNT(*) FROM turns"), 1, "no turn 2 yet");
            assert_eq!((events, rolls, active, revealed), (0, 0, 0, 0));
            Found::Old
        }
        2 => {
            assert_eq!(
                one("SELECT COUNT(*) FROM turns WHERE number = 1 AND status = 'released'"),
                1
            );
            assert!(events > 0 && rolls > 0 && active > 0 && revealed == 1);
            let hash: String = db
                .query_row("SELECT state_hash FROM turns WHERE number = 2", [], |r| {
                    r.get(0)
                })
                .unwrap();
            assert_eq!(hash, new_hash);
            Found::New
        }
        n => panic!("turn {n} open: neither the old turn nor the new"),
    }
}

/// The training game with orders for turn 1 from both players (not READY,
/// so the turn is still open), copied out as one clean SQLite file.
fn base_game(root: &Path) -> PathBuf {
    let g = GameDir::training("mill");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to the crossroads in line.\n\nBattery A: fire at will.\n\n\
         12th Ohio: advance to Round Hill.",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: advance to the ford.",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 1);
    let base = root.join("base.db");
    g.db()
        .execute("VACUUM INTO ?1", [base.to_str().unwrap()])
        .unwrap();
    base
}

#[test]
fn a_turn_killed_inside_its_transaction_is_all_or_nothing() {
    let root = tempfile::tempdir().unwrap();
    let base = base_game(root.path());

    let reference = copy_of(&base, "reference", root.path());
    let started = Instant::now();
    let want = process_to_end(&reference);
    let took = started.elapsed();
    assert_eq!(found(&reference, &want), Found::New);

    // Held inside the transaction, then killed.
    let held = copy_of(&base, "held", root.path());
    let marker = root.path().join("in-transaction");
    let mut child = process(&held)
        .env(adjutant::game::cycle::PAUSE_IN_TURN_ENV, &marker)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the processor never paused");
        assert!(
            child.try_wait().unwrap().is_none(),
            "it ended instead of pausing"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert_eq!(
        found(&held, &want),
        Found::Old,
        "killed mid-turn: nothing kept"
    );
    assert_eq!(
        process_to_end(&held),
        want,
        "the restart gives the same outcome"
    );
    assert_eq!(found(&held, &want), Found::New);

    // Killed at a spread of moments across a normal run (and a little
    // beyond): each leaves one whole turn or the other.
    let span = took.as_micros().max(1000) * 3 / 2;
    let mut seed = u64::from(std::process::id()) ^ 0x9e37_79b9_7f4a_7c15;
    let mut outcomes = Vec::new();
    for i in 0..12 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let at = Duration::from_micros(
            u64::try_from(span * i / 12).unwrap() + seed % u64::try_from(span / 12).unwrap(),
        );
        let dir = copy_of(&base, &format!("kill-{i}"), root.path());
        let mut child = process(&dir).spawn().unwrap();
        std::thread::sleep(at);
        let _ = child.kill();
        child.wait().unwrap();
        let f = found(&dir, &want);
        if f == Found::Old {
            assert_eq!(process_to_end(&dir), want, "restart after a kill at {at:?}");
        }
        assert_eq!(found(&dir, &want), Found::New);
        outcomes.push((at, f));
    }
    eprintln!("uninterrupted run {took:?}; kills: {outcomes:?}");
}
