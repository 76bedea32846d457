//! The binary, end to end: `init`, `game create/list/show`, `scenario check`
//! and `calc`, with their exit codes (0 success, 2 operator-fixable, 1
//! internal) and the promise that a refused command modifies nothing.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The binary run in `dir` with the embedded default config (no
/// ADJUTANT_CONFIG leaking in from the environment).
fn adjutant(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("adjutant").unwrap();
    c.current_dir(dir)
        .env_remove("ADJUTANT_CONFIG")
        .env_remove("RUST_LOG");
    c
}

fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.push((p, bytes));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn init_creates_database_and_maildirs_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path())
        .arg("init")
        .assert()
        .success()
        .stdout(predicate::str::contains("created (schema version "));
    for sub in ["inbox/new", "inbox/cur", "inbox/tmp", "outbox/new"] {
        assert!(dir.path().join("var").join(sub).is_dir(), "{sub}");
    }
    let db = dir.path().join("var/adjutant.db");
    assert!(db.is_file());
    adjutant(dir.path())
        .arg("init")
        .assert()
        .success()
        .stdout(predicate::str::contains("is ready (schema version "));
}

#[test]
fn game_create_list_show_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path()).arg("init").assert().success();
    let out = adjutant(dir.path())
        .args([
            "game",
            "create",
            "--name",
            "brawner",
            "--json",
            "--scenario",
        ])
        .arg(repo("scenarios/brawners-farm.toml"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let created: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let players = created["players"].as_array().unwrap();
    assert_eq!(players.len(), 5);
    let secrets: Vec<&str> = players
        .iter()
        .map(|p| p["secret"].as_str().unwrap())
        .collect();
    assert!(secrets.iter().all(|s| s.len() >= 16), "{secrets:?}");

    // The secrets are shown once and never stored in clear.
    let db = std::fs::read(dir.path().join("var/adjutant.db")).unwrap();
    for s in &secrets {
        assert!(
            !db.windows(s.len()).any(|w| w == s.as_bytes()),
            "secret {s} found in the database file"
        );
    }

    adjutant(dir.path())
        .args(["game", "list"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("brawner").and(predicate::str::contains("Brawner's Farm")),
        );

    let out = adjutant(dir.path())
        .args(["game", "show", "brawner", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let shown: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(shown["scenario_name"], "Brawner's Farm");
    assert_eq!(shown["current_turn"]["number"], 1);
    assert_eq!(shown["current_turn"]["status"], "open");
    let text = String::from_utf8(out).unwrap();
    assert!(
        !text.contains("secret_hash") && !text.contains("$argon2"),
        "{text}"
    );

    adjutant(dir.path())
        .args(["game", "show", "brawner"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Gibbon").and(predicate::str::contains("Union")));
}

#[test]
fn missing_database_is_exit_2_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path())
        .args(["game", "list"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("adjutant init"));
    assert!(!dir.path().join("var").exists());
}

#[test]
fn corrupt_database_is_exit_2_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("var")).unwrap();
    let db = dir.path().join("var/adjutant.db");
    std::fs::write(
        &db,
        b"this is not a database, it is a grocery list\n".repeat(200),
    )
    .unwrap();
    let before = snapshot(dir.path());
    adjutant(dir.path())
        .args(["game", "list"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("adjutant.db"));
    adjutant(dir.path()).arg("init").assert().code(2);
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn bad_config_is_exit_2_naming_key_and_value() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("adjutant.toml");
    let text = adjutant::config::EMBEDDED_DEFAULT
        .replace("poll_interval_secs = 30", "poll_interval_secs = 0");
    std::fs::write(&cfg, text).unwrap();
    adjutant(dir.path())
        .arg("--config")
        .arg(&cfg)
        .arg("init")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("poll_interval_secs")
                .and(predicate::str::contains("1 to 86400")),
        );
    assert!(!dir.path().join("var").exists());

    adjutant(dir.path())
        .env("ADJUTANT_CONFIG", dir.path().join("nope.toml"))
        .arg("init")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nope.toml"));
}

#[test]
fn config_paths_are_relative_to_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let game_dir = dir.path().join("game");
    std::fs::create_dir_all(&game_dir).unwrap();
    std::fs::write(
        game_dir.join("adjutant.toml"),
        adjutant::config::EMBEDDED_DEFAULT,
    )
    .unwrap();
    adjutant(dir.path())
        .env("ADJUTANT_CONFIG", game_dir.join("adjutant.toml"))
        .arg("init")
        .assert()
        .success();
    assert!(game_dir.join("var/adjutant.db").is_file());
}

#[test]
fn invalid_scenario_is_exit_2_lists_every_problem_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path()).arg("init").assert().success();
    let bad = dir.path().join("bad.toml");
    let text = std::fs::read_to_string(repo("scenarios/training.toml"))
        .unwrap()
        .replacen("rifled-musket", "rifled-muskat", 1);
    std::fs::write(&bad, text).unwrap();
    let before = snapshot(&dir.path().join("var"));
    adjutant(dir.path())
        .args(["game", "create", "--name", "t1", "--scenario"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("rifled-muskat")
                .and(predicate::str::contains("rifled-musket")),
        );
    assert_eq!(snapshot(&dir.path().join("var")), before);
    adjutant(dir.path())
        .args(["scenario", "check"])
        .arg(&bad)
        .assert()
        .code(2);
}

#[test]
fn bad_game_name_and_duplicate_name_are_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path()).arg("init").assert().success();
    adjutant(dir.path())
        .args(["game", "create", "--name", "Bad Name!", "--scenario"])
        .arg(repo("scenarios/training.toml"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("lower-case"));
    adjutant(dir.path())
        .args(["game", "create", "--name", "t1", "--scenario"])
        .arg(repo("scenarios/training.toml"))
        .assert()
        .success();
    adjutant(dir.path())
        .args(["game", "create", "--name", "t1", "--scenario"])
        .arg(repo("scenarios/training.toml"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));
    adjutant(dir.path())
        .args(["game", "show", "nosuch"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("game list"));
}

#[test]
fn shipped_scenarios_check_clean() {
    let dir = tempfile::tempdir().unwrap();
    for s in ["scenarios/brawners-farm.toml", "scenarios/training.toml"] {
        adjutant(dir.path())
            .args(["scenario", "check"])
            .arg(repo(s))
            .assert()
            .success()
            .stdout(predicate::str::contains("is valid"));
    }
}

#[test]
fn calc_worked_example_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let out = adjutant(dir.path())
        .args([
            "calc",
            "fire",
            "--firers",
            "21",
            "--targets",
            "16",
            "--effectiveness",
            "4",
            "--dice",
            "2,3,3,2,3",
            "--save-dice",
            "4,4,3",
            "--json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["casualties"], 3);
    assert_eq!(v["morale_loss"], 4);
    // A wrong number of dice is a usage error.
    adjutant(dir.path())
        .args([
            "calc",
            "fire",
            "--firers",
            "21",
            "--targets",
            "16",
            "--effectiveness",
            "4",
            "--dice",
            "2,3",
        ])
        .assert()
        .code(2);
    // A range beyond the weapon's last band is refused.
    adjutant(dir.path())
        .args([
            "calc",
            "fire",
            "--firers",
            "20",
            "--targets",
            "20",
            "--weapon",
            "rifled-musket",
            "--range",
            "400",
        ])
        .assert()
        .code(2);
}

#[test]
fn help_on_every_command() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["--help"],
        vec!["init", "--help"],
        vec!["game", "--help"],
        vec!["game", "create", "--help"],
        vec!["game", "list", "--help"],
        vec!["game", "show", "--help"],
        vec!["game", "process", "--help"],
        vec!["scenario", "check", "--help"],
        vec!["calc", "--help"],
        vec!["calc", "fire", "--help"],
    ] {
        adjutant(dir.path())
            .args(&args)
            .assert()
            .success()
            .stdout(predicate::str::contains("Usage"));
    }
    adjutant(dir.path()).arg("no-such-command").assert().code(2);
}

#[test]
fn demo_sets_up_a_game_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    adjutant(dir.path())
        .args(["demo", "--dir"])
        .arg(&demo)
        .assert()
        .success()
        .stdout(predicate::str::contains("brawners-farm").and(predicate::str::contains("Gibbon")));
    assert!(demo.join("adjutant.toml").is_file());
    // Three turns were played by mail: sixteen order mails read (one a
    // correction of a refused order), each receipted, and one reminder
    // (tests/demo.rs checks the details).
    assert_eq!(
        std::fs::read_dir(demo.join("var/inbox/cur"))
            .unwrap()
            .count(),
        16
    );
    let outbox: Vec<String> = std::fs::read_dir(demo.join("var/outbox/new"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    // Each processed turn also mailed every one of the five players his
    // report (docs/reports.md).
    let reports = outbox
        .iter()
        .filter(|m| m.contains("Message-ID: <report."))
        .count();
    assert_eq!(reports, 15);
    let receipts: Vec<&String> = outbox
        .iter()
        .filter(|r| r.contains("Subject: Orders received"))
        .collect();
    assert_eq!(receipts.len(), 16);
    assert!(receipts.iter().any(|r| r.contains("Not understood")));
    assert!(
        receipts
            .iter()
            .all(|r| r.contains("Orders as understood") || r.contains("READY"))
    );
    adjutant(dir.path())
        .arg("--config")
        .arg(demo.join("adjutant.toml"))
        .args(["game", "show", "brawners-farm"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Brawner's Farm")
                .and(predicate::str::contains("turn      4 (open)")),
        );
    let before = snapshot(&demo);
    adjutant(dir.path())
        .args(["demo", "--dir"])
        .arg(&demo)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already holds"));
    assert_eq!(snapshot(&demo), before);
}

#[test]
fn game_process_advances_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path()).arg("init").assert().success();
    adjutant(dir.path())
        .args(["game", "create", "--name", "t1", "--scenario"])
        .arg(repo("scenarios/training.toml"))
        .assert()
        .success();
    adjutant(dir.path())
        .args(["game", "process", "t1"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("turn 1 processed")
                .and(predicate::str::contains("turn 2 is open")),
        );
    let out = adjutant(dir.path())
        .args(["game", "show", "t1", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let shown: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(shown["current_turn"]["number"], 2);
    adjutant(dir.path())
        .args(["game", "process", "nosuch"])
        .assert()
        .code(2);
}
