//! A game directory on the embedded default, driven through the binary:
//! `adjutant init`, `game create` on the training scenario, mails dropped
//! into `var/inbox/new`, `adjutant run --once`, answers read from
//! `var/outbox/new` and facts read from the SQLite file.
#![allow(dead_code)]

use assert_cmd::Command;
use rusqlite::Connection;
use std::path::{Path, PathBuf};

pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

pub fn adjutant(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("adjutant").unwrap();
    c.current_dir(dir)
        .env_remove("ADJUTANT_CONFIG")
        .env_remove("RUST_LOG");
    c
}

pub struct GameDir {
    pub dir: tempfile::TempDir,
    pub name: String,
    /// Player name → secret.
    pub secrets: Vec<(String, String)>,
}

impl GameDir {
    /// A fresh directory with the training scenario created as `name`.
    pub fn training(name: &str) -> GameDir {
        GameDir::with_scenario(name, "scenarios/training.toml")
    }

    /// A fresh directory with the scenario at `scenario` (a path in the
    /// repository) created as `name`.
    pub fn with_scenario(name: &str, scenario: &str) -> GameDir {
        GameDir::with_scenario_and(name, scenario, &[])
    }

    /// [`GameDir::with_scenario`] with more `game create` arguments
    /// (`--umpire ADDRESS`, `--player ...`).
    pub fn with_scenario_and(name: &str, scenario: &str, more: &[&str]) -> GameDir {
        let dir = tempfile::tempdir().unwrap();
        adjutant(dir.path()).arg("init").assert().success();
        let out = adjutant(dir.path())
            .args(["game", "create", "--name", name, "--json"])
            .args(more)
            .arg("--scenario")
            .arg(repo(scenario))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let secrets = json["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["secret"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        GameDir {
            dir,
            name: name.to_string(),
            secrets,
        }
    }

    pub fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }

    pub fn secret(&self, player: &str) -> &str {
        &self.secrets.iter().find(|(n, _)| n == player).unwrap().1
    }

    pub fn drop_mail(&self, file: &str, raw: &[u8]) {
        std::fs::write(self.path("var/inbox/new").join(file), raw).unwrap();
    }

    /// A plain-text order mail from `from` with the player's PASSWORD.
    pub fn order_mail(&self, file: &str, from: &str, player: &str, body: &str) {
        let raw = format!(
            "From: {player} <{from}>\r\nTo: adjutant@example.test\r\nSubject: orders\r\n\
             Message-ID: <{file}@example.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
             Content-Type: text/plain; charset=utf-8\r\n\r\nPASSWORD {}\r\n{}\r\n",
            self.secret(player),
            body.replace('\n', "\r\n")
        );
        self.drop_mail(file, raw.as_bytes());
    }

    pub fn run_once(&self) -> String {
        let out = adjutant(self.dir.path())
            .args(["run", "--once"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Every message in the outbox, oldest file name first, but the
    /// briefings `game create` queues for every player (issue #14): most
    /// tests count the answers to their own mail. `outbox_all` has them.
    pub fn outbox(&self) -> Vec<String> {
        self.outbox_all()
            .into_iter()
            .filter(|m| !m.contains("Message-ID: <briefing."))
            .collect()
    }

    /// The text parts of every mail in the outbox (briefings aside, as
    /// [`GameDir::outbox`]) sent to `to`, decoded.
    pub fn text_to(&self, to: &str) -> Vec<String> {
        self.outbox()
            .iter()
            .filter_map(|raw| {
                let m = mailparse::parse_mail(raw.as_bytes()).ok()?;
                let addressed = m
                    .headers
                    .iter()
                    .any(|h| h.get_key().eq_ignore_ascii_case("To") && h.get_value().contains(to));
                if !addressed {
                    return None;
                }
                let mut body = String::new();
                let mut stack = vec![&m];
                while let Some(p) = stack.pop() {
                    if !p.subparts.is_empty() {
                        stack.extend(p.subparts.iter());
                        continue;
                    }
                    if p.ctype.mimetype == "text/plain" {
                        body.push_str(&p.get_body().ok()?.replace("\r\n", "\n"));
                    }
                }
                Some(body)
            })
            .collect()
    }

    /// Every message in the outbox, oldest file name first.
    pub fn outbox_all(&self) -> Vec<String> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(self.path("var/outbox/new"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned())
            .collect()
    }

    /// Runs an umpire command on the game by the command line, as the
    /// umpire `alice`, and insists it succeeded; returns what it printed.
    pub fn umpire(&self, command: &str) -> String {
        let out = adjutant(self.dir.path())
            .args(["umpire", &self.name, command])
            .env("USER", "alice")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    }

    /// Answers the umpire-dice game's open dice requests one after another
    /// (`DICE MODE UMPIRE`), each die chosen by `pick` from what the request
    /// wants of it (its `kind`, `subject` and `note`), until the turn asks
    /// no more; returns every request as asked.
    pub fn answer_dice(&self, mut pick: impl FnMut(&serde_json::Value) -> String) -> Vec<String> {
        let mut asked = Vec::new();
        for _ in 0..60 {
            let wanted: Option<String> = self
                .db()
                .query_row(
                    "SELECT wanted_json FROM dice_requests WHERE answered_at IS NULL",
                    [],
                    |r| r.get(0),
                )
                .ok();
            let Some(wanted) = wanted else { return asked };
            let values: Vec<String> = serde_json::from_str::<Vec<serde_json::Value>>(&wanted)
                .unwrap()
                .iter()
                .map(&mut pick)
                .collect();
            asked.push(wanted);
            self.umpire(&format!("DICE {}", values.join(" ")));
        }
        panic!("the turn kept asking for dice");
    }

    pub fn db(&self) -> Connection {
        Connection::open(self.path("var/adjutant.db")).unwrap()
    }

    pub fn count(&self, sql: &str) -> i64 {
        self.db().query_row(sql, [], |r| r.get(0)).unwrap()
    }

    /// The reply-token key the first `run` created.
    pub fn key(&self) -> Vec<u8> {
        let text = std::fs::read_to_string(self.path("var/server.key")).unwrap();
        hex::decode(text.trim()).unwrap()
    }

    /// Our address with `player`'s reply token for `turn`.
    pub fn token_address(&self, player: &str, turn: u32) -> String {
        let t = adjutant::mail::token::make_token(&self.key(), &self.name, player, turn).unwrap();
        format!("adjutant+{t}@example.test")
    }

    /// Every inbound mail's status and detail, in arrival order.
    pub fn statuses(&self) -> Vec<(String, String)> {
        let db = self.db();
        let mut s = db
            .prepare("SELECT status, coalesce(status_detail, '') FROM inbound_mail ORDER BY id")
            .unwrap();
        s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// The number of the game's open turn.
    pub fn open_turn(&self) -> u32 {
        self.db()
            .query_row(
                "SELECT number FROM turns WHERE status = 'open' AND superseded_at IS NULL",
                [],
                |r| r.get(0),
            )
            .unwrap()
    }
}
