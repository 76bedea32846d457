//! The long-running daemon through the binary: `adjutant run` picks up mail
//! dropped into the Maildir while it runs, answers it, and on SIGTERM
//! finishes and exits 0.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("adjutant")
}

fn adjutant(dir: &Path) -> Command {
    let mut c = Command::new(bin());
    c.current_dir(dir)
        .env("ADJUTANT_CONFIG", dir.join("adjutant.toml"))
        .env_remove("RUST_LOG");
    c
}

fn wait_for(what: &str, limit: Duration, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn count(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

#[test]
fn daemon_answers_mail_as_it_arrives_and_stops_cleanly_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = adjutant::config::EMBEDDED_DEFAULT
        .replace("poll_interval_secs = 30", "poll_interval_secs = 1");
    std::fs::write(d.join("adjutant.toml"), config).unwrap();
    assert!(adjutant(d).arg("init").status().unwrap().success());
    let out = adjutant(d)
        .args(["game", "create", "--name", "mill", "--json", "--scenario"])
        .arg(repo("scenarios/training.toml"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let secret = json["players"][0]["secret"].as_str().unwrap().to_string();
    // `game create` queued a briefing a player (issue #14): the daemon
    // sends those first.
    let briefed = json["players"].as_array().unwrap().len();
    let address = json["players"][0]["addresses"][0]
        .as_str()
        .unwrap()
        .to_string();

    let mut child = adjutant(d)
        .arg("run")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for n in 0..3 {
        let mail = format!(
            "From: {address}\r\nTo: adjutant@example.test\r\nSubject: orders {n}\r\n\
             Message-ID: <d{n}@example.test>\r\n\r\nPASSWORD {secret}\r\nhold {n}.\r\n"
        );
        std::fs::write(d.join(format!("var/inbox/new/{n}.mail")), mail).unwrap();
        wait_for("the answer", Duration::from_secs(60), || {
            count(&d.join("var/outbox/new")) == briefed + n + 1
        });
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let start = Instant::now();
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "daemon did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut log = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut log).unwrap();
    assert!(exit.success(), "{exit:?}\n{log}");
    assert!(log.contains("shutdown requested"), "{log}");
    assert!(log.contains("adjutant stopped"), "{log}");
    assert_eq!(count(&d.join("var/inbox/new")), 0);
    assert_eq!(count(&d.join("var/outbox/new")), briefed + 3);
}

#[test]
fn run_without_a_database_says_to_run_init() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("adjutant.toml"),
        adjutant::config::EMBEDDED_DEFAULT,
    )
    .unwrap();
    let out = adjutant(dir.path())
        .args(["run", "--once"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("adjutant.db"), "{err}");
}
