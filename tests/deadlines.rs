//! Deadlines, grace, reminders, late mail and standing orders, by mail on
//! the embedded default: a real SQLite file, real Maildir folders and the
//! real daemon cycle (`run_once`), with the clock set by the test instead of
//! waited for. The CLI flags are tested through the binary.

mod common;

use adjutant::config::Config;
use adjutant::daemon::{CycleReport, ManualClock, Parts, run_once, wait_until_due};
use adjutant::game::clock::format_local;
use adjutant::game::cycle::next_due_at;
use adjutant::game::deadline::{DeadlineSettings, deadline_after, parse_every, parse_weekly};
use adjutant::store::Store;
use rusqlite::Connection;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const TRAINING: &str = include_str!("../scenarios/training.toml");
/// 2026-11-24 01:00:00 UTC.
const T0: i64 = 1_795_482_000;
const H: i64 = 3600;

struct Game {
    dir: tempfile::TempDir,
    config: Config,
    clock: Arc<ManualClock>,
    parts: Parts,
    secrets: Vec<(String, String)>,
    rt: tokio::runtime::Runtime,
}

impl Game {
    fn new(every: &str, grace: i64, remind: i64) -> Game {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::embedded(dir.path());
        let mut store = adjutant::setup::init(&config).unwrap().store;
        let deadlines = DeadlineSettings {
            schedule: Some(parse_every(every).unwrap()),
            grace_secs: grace,
            remind_secs: remind,
        };
        let created = adjutant::game::create_from_text_at(
            &mut store,
            TRAINING,
            "training.toml",
            "mill",
            &deadlines,
            T0,
        )
        .unwrap();
        let clock = Arc::new(ManualClock::new(T0));
        let mut parts = Parts::game();
        parts.clock = clock.clone();
        Game {
            dir,
            config,
            clock,
            parts,
            secrets: created
                .players
                .iter()
                .map(|p| (p.name.clone(), p.secret.clone()))
                .collect(),
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
        }
    }

    fn mail(&self, file: &str, player: &str, body: &str) {
        let secret = &self.secrets.iter().find(|(n, _)| n == player).unwrap().1;
        let from = format!("{}@example.test", player.to_lowercase());
        let raw = format!(
            "From: {player} <{from}>\r\nTo: adjutant@example.test\r\nSubject: orders\r\n\
             Message-ID: <{file}@example.test>\r\nDate: Tue, 24 Nov 2026 10:00:00 +0000\r\n\
             Content-Type: text/plain; charset=utf-8\r\n\r\nPASSWORD {secret}\r\n{}\r\n",
            body.replace('\n', "\r\n")
        );
        std::fs::write(self.dir.path().join("var/inbox/new").join(file), raw).unwrap();
    }

    fn at(&mut self, t: i64) -> CycleReport {
        self.clock.set(t);
        self.rt
            .block_on(run_once(&self.config, &mut self.parts))
            .unwrap()
    }

    fn db(&self) -> Connection {
        Connection::open(self.dir.path().join("var/adjutant.db")).unwrap()
    }

    fn one<T: rusqlite::types::FromSql>(&self, sql: &str) -> T {
        self.db().query_row(sql, [], |r| r.get(0)).unwrap()
    }

    fn open_turn(&self) -> u32 {
        self.one("SELECT number FROM turns WHERE status = 'open'")
    }

    fn outbox(&self) -> String {
        let mut names: Vec<_> = std::fs::read_dir(self.dir.path().join("var/outbox/new"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned())
            .collect::<Vec<_>>()
            .join("\n")
            .replace("=\r\n", "")
            .replace("=3D", "=")
    }

    fn pos_of(&self, turn: u32, unit: &str) -> adjutant::rules::iron_brigade::state::Pos {
        let json: String = self
            .db()
            .query_row(
                "SELECT state_json FROM turns WHERE number = ?1",
                [turn],
                |r| r.get(0),
            )
            .unwrap();
        let snap = adjutant::game::snapshot::Snapshot::from_json(&json).unwrap();
        snap.battle
            .units
            .iter()
            .find(|u| u.name == unit)
            .unwrap()
            .position
    }

    /// Order row ids the engine was given for `turn` (its turn-input event).
    fn engine_input(&self, turn: u32) -> Vec<i64> {
        let json: String = self
            .db()
            .query_row(
                "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
                 WHERE t.number = ?1 AND e.kind = 'turn-input'",
                [turn],
                |r| r.get(0),
            )
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        v["orders"]["unit_orders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_i64().unwrap())
            .collect()
    }

    fn order_ids(&self, issued_turn: u32, text_like: &str) -> Vec<i64> {
        let db = self.db();
        let mut st = db
            .prepare("SELECT id FROM orders WHERE issued_turn = ?1 AND original_text LIKE ?2")
            .unwrap();
        st.query_map(rusqlite::params![issued_turn, text_like], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }
}

#[test]
fn every_turn_gets_its_deadline_and_runs_at_deadline_plus_grace_with_standing_orders() {
    let mut g = Game::new("48h", 2 * H, 0);
    assert_eq!(
        g.one::<i64>("SELECT deadline_at FROM turns WHERE number = 1"),
        T0 + 48 * H
    );
    assert_eq!(
        g.one::<i64>("SELECT grace_secs FROM turns WHERE number = 1"),
        2 * H
    );

    // Blue orders a march of several turns and does not say READY; Grey
    // sends nothing at all.
    g.mail("b1", "Blue", "12th Ohio: advance to Round Hill.");
    g.at(T0 + H);
    let out = g.outbox();
    assert!(
        out.contains("Deadline:   Wednesday 25 November 2026, 19:00 CST (your time zone)"),
        "the receipt shows the deadline in Blue's zone (America/Chicago): {out}"
    );
    assert!(out.contains("mail up to 2h later still counts"), "{out}");

    // Not before deadline + grace …
    assert_eq!(g.at(T0 + 50 * H - 1).due, 0);
    assert_eq!(g.open_turn(), 1);
    // … but at it, though nobody is READY.
    assert_eq!(g.at(T0 + 50 * H).due, 1);
    assert_eq!(g.open_turn(), 2);
    assert_eq!(
        g.one::<i64>("SELECT deadline_at FROM turns WHERE number = 2"),
        T0 + 50 * H + 48 * H,
        "turn 2's deadline counts from when it opened"
    );
    let x1 = g.pos_of(2, "12th Ohio").x;
    assert!(x1 < 24.0, "the 12th Ohio set off west: {x1}");

    // Turn 2: nobody writes. The 12th Ohio keeps its standing order and
    // marches on; the Confederates, who never wrote, keep theirs (none).
    g.at(T0 + 100 * H);
    assert_eq!(g.open_turn(), 3);
    let x2 = g.pos_of(3, "12th Ohio").x;
    assert!(x2 < x1, "standing order carried the march on: {x1} -> {x2}");
    assert!(g.engine_input(2).is_empty(), "no new orders for turn 2");
}

#[test]
fn late_mail_counts_for_the_next_turn_only_and_is_replaced_by_a_later_order() {
    let mut g = Game::new("48h", 2 * H, 0);
    g.mail("b1", "Blue", "10th Ohio: hold.");
    g.at(T0 + H);
    let on_time = g.order_ids(1, "%hold%");
    assert_eq!(on_time.len(), 1);

    // One second after deadline + grace: the mail is read first (late, so
    // for turn 2), then turn 1 is processed in the same cycle.
    g.mail(
        "b2",
        "Blue",
        "10th Ohio: advance to the crossroads.\n\n12th Ohio: advance to the crossroads.\n\nREADY",
    );
    let r = g.at(T0 + 50 * H + 1);
    assert_eq!((r.process.accepted, r.due), (1, 1));
    assert_eq!(g.open_turn(), 2);
    let late_10th = g.order_ids(2, "10th Ohio%");
    let late_12th = g.order_ids(2, "12th Ohio%");
    assert_eq!((late_10th.len(), late_12th.len()), (1, 1));
    assert_eq!(
        g.engine_input(1),
        on_time,
        "turn 1 ran with the on-time order only"
    );
    let out = g.outbox();
    assert!(
        out.contains("LATE: it arrived after the deadline of turn 1"),
        "{out}"
    );
    assert!(out.contains("Counts for: turn 2"), "{out}");
    assert!(out.contains("Your READY does not carry over"), "{out}");

    // The late READY does not make Blue ready for turn 2.
    g.mail("g1", "Grey", "READY");
    g.at(T0 + 51 * H);
    assert_eq!(g.open_turn(), 2, "Blue has not said READY for turn 2");

    // An on-time mail for turn 2 replaces the late order to the 10th Ohio
    // as usual; the late order to the 12th Ohio stands.
    g.mail("b3", "Blue", "10th Ohio: advance to the ford.\n\nREADY");
    g.at(T0 + 52 * H);
    assert_eq!(g.open_turn(), 3, "both READY: turn 2 ran early");
    let ford = g.order_ids(2, "10th Ohio: advance to the ford%");
    assert_eq!(ford.len(), 1);
    let status: String = g
        .db()
        .query_row(
            "SELECT status FROM orders WHERE id = ?1",
            [late_10th[0]],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(status, "superseded");
    let mut want = vec![late_12th[0], ford[0]];
    want.sort_unstable();
    let mut got = g.engine_input(2);
    got.sort_unstable();
    assert_eq!(got, want, "turn 2 ran with the late 12th and the new 10th");
    assert!(g.outbox().contains("replaces your earlier order"));
}

#[test]
fn reminders_go_once_to_players_who_sent_nothing_in_their_own_zone() {
    let mut g = Game::new("48h", 0, 12 * H);
    g.mail("b1", "Blue", "10th Ohio: hold.");
    g.at(T0 + H);
    let store = Store::open_existing(&g.config.database).unwrap();
    assert_eq!(next_due_at(&store, T0 + H).unwrap(), Some(T0 + 36 * H));
    assert_eq!(next_due_at(&store, T0 + 36 * H).unwrap(), Some(T0 + 48 * H));

    assert_eq!(g.at(T0 + 36 * H - 1).due, 0);
    assert_eq!(
        g.one::<i64>("SELECT COUNT(*) FROM outbound_mail WHERE kind = 'reminder'"),
        0
    );
    assert_eq!(g.at(T0 + 36 * H).due, 1);
    g.at(T0 + 40 * H);
    let rows: Vec<(String, String)> = {
        let db = g.db();
        let mut st = db
            .prepare(
                "SELECT message_id, recipients_json FROM outbound_mail WHERE kind = 'reminder'",
            )
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(rows.len(), 1, "one reminder, to Grey only, never twice");
    assert!(rows[0].0.starts_with("reminder.mill.1-Grey@"), "{rows:?}");
    assert!(rows[0].1.contains("grey@example.test"), "{rows:?}");

    let out = g.outbox();
    let deadline = format_local(T0 + 48 * H, "Europe/London");
    assert!(
        out.contains(&format!(
            "Deadline: {deadline} (your time zone, Europe/London)"
        )),
        "{out}"
    );
    assert!(out.contains("Reminder: mill turn 1 closes"), "{out}");
    assert!(out.contains("Reply-To: Adjutant <adjutant+"), "{out}");
    assert!(out.contains("keep the orders they already have"), "{out}");
    // After the deadline there is nothing left to remind of; the turn runs.
    assert_eq!(g.at(T0 + 48 * H).due, 1);
    assert_eq!(g.open_turn(), 2);
}

#[test]
fn the_daemon_sleeps_only_until_the_next_due_moment() {
    let poll = Duration::from_secs(300);
    assert_eq!(wait_until_due(poll, 1000, None), poll);
    assert_eq!(
        wait_until_due(poll, 1000, Some(1010)),
        Duration::from_secs(11)
    );
    assert_eq!(wait_until_due(poll, 1000, Some(999_999)), poll);
    assert_eq!(
        wait_until_due(poll, 1000, Some(1000)),
        Duration::from_secs(1)
    );
}

fn deadline_of(db: &Path) -> (Option<i64>, i64, i64) {
    Connection::open(db)
        .unwrap()
        .query_row(
            "SELECT deadline_at, grace_secs, opened_at FROM turns WHERE status = 'open'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
}

#[test]
fn deadlines_are_set_at_create_and_changed_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("var/adjutant.db");
    common::adjutant(d).arg("init").assert().success();
    // Grace without a schedule is refused, and nothing is created.
    common::adjutant(d)
        .args([
            "game",
            "create",
            "--name",
            "mill",
            "--grace",
            "2h",
            "--scenario",
        ])
        .arg(common::repo("scenarios/training.toml"))
        .assert()
        .code(2);
    common::adjutant(d)
        .args([
            "game",
            "create",
            "--name",
            "mill",
            "--deadline-every",
            "48h",
        ])
        .args(["--grace", "2h", "--remind", "12h", "--scenario"])
        .arg(common::repo("scenarios/training.toml"))
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "deadlines: every 2d after the turn opens; grace 2h; reminder 12h before",
        ));
    let (deadline, grace, opened) = deadline_of(&db);
    assert_eq!((deadline, grace), (Some(opened + 48 * H), 2 * H));

    common::adjutant(d)
        .args(["game", "show", "mill"])
        .assert()
        .success()
        .stdout(predicates::str::contains("deadlines every 2d"));

    let weekly = "tue,fri 20:00 America/New_York";
    common::adjutant(d)
        .args(["game", "deadline", "mill", "--at", weekly, "--grace", "0"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "Tue, Fri at 20:00 America/New_York; grace 0s; reminder 12h before",
        ));
    let (deadline, grace, opened) = deadline_of(&db);
    assert_eq!(
        deadline,
        Some(deadline_after(&parse_weekly(weekly).unwrap(), opened).unwrap())
    );
    assert_eq!(grace, 0);

    // Mistakes exit 2 and change nothing.
    for bad in [
        vec!["--every", "5x"],
        vec!["--at", "someday 20:00"],
        vec!["--at", "tue 20:00 Mars/Base"],
        vec!["--every", "48h", "--none"],
    ] {
        common::adjutant(d)
            .args(["game", "deadline", "mill"])
            .args(&bad)
            .assert()
            .code(2);
        assert_eq!(deadline_of(&db).0, deadline, "{bad:?}");
    }
    common::adjutant(d)
        .args(["game", "deadline", "nosuch", "--every", "1d"])
        .assert()
        .code(2);

    common::adjutant(d)
        .args(["game", "deadline", "mill", "--none", "--remind", "0"])
        .env("USER", "organiser")
        .assert()
        .success()
        .stdout(predicates::str::contains("runs when every player is READY"));
    assert_eq!(deadline_of(&db).0, None);
    let audits: i64 = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT COUNT(*) FROM audit_log WHERE action = 'deadlines-set'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(audits, 2);
    // The audit names who changed the schedule from the command line.
    let actor: String = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT actor FROM audit_log WHERE action = 'deadlines-set' ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(actor, "cli:organiser");
}

#[test]
fn the_running_daemon_wakes_for_a_deadline_before_its_poll_interval() {
    let mut g = Game::new("1h", 0, 0);
    g.config.poll_interval_secs = 3600;
    g.clock.set(T0 + H - 2);
    let parts = std::mem::take(&mut g.parts);
    let config = g.config.clone();
    let db = g.dir.path().join("var/adjutant.db");
    let clock = g.clock.clone();
    let opened = g.rt.block_on(async move {
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let daemon = tokio::spawn(async move {
            adjutant::daemon::run(&config, parts, async {
                let _ = stop_rx.await;
            })
            .await
        });
        // The deadline is two (manual) seconds away; the daemon must look
        // again within about three real seconds, not after an hour.
        tokio::time::sleep(Duration::from_millis(300)).await;
        clock.set(T0 + H);
        let started = std::time::Instant::now();
        let mut opened = false;
        while started.elapsed() < Duration::from_secs(20) {
            let n: i64 = Connection::open(&db)
                .unwrap()
                .query_row("SELECT COUNT(*) FROM turns", [], |r| r.get(0))
                .unwrap();
            if n == 2 {
                opened = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let _ = stop_tx.send(());
        daemon.await.unwrap().unwrap();
        opened
    });
    assert!(
        opened,
        "turn 1 was processed at its deadline without a poll"
    );
}
