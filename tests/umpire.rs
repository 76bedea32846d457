//! The umpire's commands (issue #8), by mail through the real binary on a
//! Maildir game directory and from `adjutant umpire`, and the pause's
//! automatic end with the daemon's clock set by the test (ManualClock).
//!
//! Policy under test (docs/umpire.md): each command is all-or-nothing and
//! stands on its own; a refused one changes nothing, the others count.

mod common;

use adjutant::config::Config;
use adjutant::daemon::{ManualClock, Parts, run_once};
use adjutant::game::deadline::{DeadlineSettings, parse_every};
use adjutant::game::report_mail::ReportMail;
use adjutant::store::Store;
use adjutant::umpire::exec::{Outcome, execute_cli};
use adjutant::umpire::principal::{self, UmpireChange};
use common::{GameDir, adjutant, repo};
use std::sync::Arc;

const UMP: &str = "ump@example.test";

/// The training scenario as `mill`, 48 h deadlines, umpire `UMP`; returns
/// the directory and the umpire's secret.
fn umpired() -> (GameDir, String) {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path()).arg("init").assert().success();
    let out = adjutant(dir.path())
        .args([
            "game",
            "create",
            "--name",
            "mill",
            "--deadline-every",
            "48h",
            "--umpire",
            UMP,
            "--json",
            "--scenario",
        ])
        .arg(repo("scenarios/training.toml"))
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
    assert_eq!(json["umpire"]["address"], UMP);
    let secret = json["umpire"]["secret"].as_str().unwrap().to_string();
    (
        GameDir {
            dir,
            name: "mill".into(),
            secrets,
        },
        secret,
    )
}

fn mail(g: &GameDir, file: &str, from: &str, to: &str, subject: &str, body: &str) {
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\n\
         Message-ID: <{file}@example.test>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
        body.replace('\n', "\r\n")
    );
    g.drop_mail(file, raw.as_bytes());
}

fn decoded(m: &str) -> String {
    m.replace("=\r\n", "").replace("=3D", "=")
}

/// Outbox messages addressed to `to`, decoded.
fn mails_to(g: &GameDir, to: &str) -> Vec<String> {
    g.outbox()
        .iter()
        .filter(|m| m.contains(&format!("To: {to}")))
        .map(|m| decoded(m))
        .collect()
}

/// As [`mails_to`], briefings included (a replaced player's, issue #14).
fn all_mails_to(g: &GameDir, to: &str) -> Vec<String> {
    g.outbox_all()
        .iter()
        .filter(|m| m.contains(&format!("To: {to}")))
        .map(|m| decoded(m))
        .collect()
}

fn one<T: rusqlite::types::FromSql>(g: &GameDir, sql: &str) -> T {
    g.db().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn umpire_mail_runs_each_command_and_refuses_bad_ones_alone() {
    let (g, secret) = umpired();
    g.run_once(); // makes the reply-token key
    let deadline: i64 = one(&g, "SELECT deadline_at FROM turns WHERE number = 1");
    mail(
        &g,
        "ump1",
        UMP,
        "adjutant@example.test",
        "commands",
        &format!(
            "PASSWORD {secret}\n\
             EXTEND 24h\n\
             EJECT Nobody\n\
             EJECT Grey\n\
             FROBNICATE the guns\n\
             BROADCAST \"Rain: all fire at -1 this turn.\"\n\
             RELEASE\n\
             ORDERS FOR Blue\n10th Ohio: advance to the crossroads in line.\nEND ORDERS\n\
             PAUSE for 30d\n"
        ),
    );
    g.run_once();
    assert_eq!(
        g.statuses().last().unwrap().0,
        "accepted",
        "{:?}",
        g.statuses()
    );

    // The confirmation lists every command, done or refused and why.
    let conf = mails_to(&g, UMP);
    assert_eq!(conf.len(), 1, "{conf:?}");
    let c = &conf[0];
    assert!(c.contains("4 done, 4 refused"), "{c}");
    assert!(c.contains("[done   ] line 1: EXTEND 24h"), "{c}");
    assert!(
        c.contains("no player `Nobody` in this game; the players are Blue, Grey"),
        "{c}"
    );
    assert!(c.contains("`FROBNICATE` is not an umpire command"), "{c}");
    assert!(c.contains("no turn of game `mill` is held"), "{c}");
    assert!(c.contains("longer than this game's maximum of 7d"), "{c}");
    assert!(!c.contains(&secret), "the umpire's secret is never echoed");

    // The good commands took effect ...
    let moved: i64 = one(&g, "SELECT deadline_at FROM turns WHERE number = 1");
    assert_eq!(moved, deadline + 86_400);
    assert_eq!(
        one::<String>(&g, "SELECT status FROM players WHERE name = 'Grey'"),
        "dropped"
    );
    let blue = mails_to(&g, "blue@example.test").join("\n");
    assert!(blue.contains("Rain: all fire at -1 this turn."), "{blue}");
    assert!(
        blue.contains("new deadline") || blue.contains("New deadline"),
        "{blue}"
    );
    assert!(
        blue.contains("entered the orders below on your behalf"),
        "{blue}"
    );
    assert!(blue.contains("10th Ohio"), "{blue}");
    assert_eq!(
        one::<i64>(
            &g,
            "SELECT count(*) FROM submissions WHERE inbound_mail_id IS NULL"
        ),
        1
    );
    // ... the refused ones changed nothing: the game is not paused.
    assert_eq!(one::<String>(&g, "SELECT status FROM games"), "active");

    // One audit row per command that took effect, as written, actor umpire.
    let db = g.db();
    let mut st = db
        .prepare(
            "SELECT action, json_extract(detail_json, '$.command') FROM audit_log
             WHERE actor = 'umpire' ORDER BY id",
        )
        .unwrap();
    let rows: Vec<(String, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        [
            "umpire-extend",
            "umpire-eject",
            "umpire-broadcast",
            "umpire-orders-for"
        ]
    );
    assert_eq!(rows[0].1, "EXTEND 24h");
    assert!(
        rows[3].1.starts_with("ORDERS FOR Blue\n10th Ohio"),
        "{}",
        rows[3].1
    );
    assert!(rows.iter().all(|r| !r.1.contains(&secret)));

    // Grey is ejected: the turn waits only for Blue's READY, and Grey's
    // mail is no longer read.
    g.order_mail(
        "grey-late",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 1);
    assert_eq!(g.statuses().last().unwrap().0, "ignored");
    g.order_mail("blue-ready", "blue@example.test", "Blue", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2, "{:?}", g.statuses());
}

#[test]
fn umpire_reply_token_works_from_his_address_and_process_runs_the_turn() {
    let (g, _secret) = umpired();
    g.run_once();
    let t = adjutant::mail::token::make_token(
        &g.key(),
        &principal::token_game("mill"),
        principal::TOKEN_PLAYER,
        1,
    )
    .unwrap();
    mail(
        &g,
        "ump-token",
        UMP,
        &format!("adjutant+{t}@example.test"),
        "Re: mill",
        "PROCESS",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2, "{:?}", g.statuses());
    let c = mails_to(&g, UMP).join("\n");
    assert!(c.contains("turn 1 processed"), "{c}");
    assert!(c.contains("1 done, 0 refused"), "{c}");
    // The confirmation carries his reply token for the new turn.
    let t2 = adjutant::mail::token::make_token(
        &g.key(),
        &principal::token_game("mill"),
        principal::TOKEN_PLAYER,
        2,
    )
    .unwrap();
    assert!(c.contains(&t2), "{c}");
    // A player's token does not make a player an umpire, nor the reverse.
    let pt = g.token_address("Blue", 2);
    mail(&g, "blue-as-ump", "blue@example.test", &pt, "x", "PAUSE");
    g.run_once();
    assert_eq!(one::<String>(&g, "SELECT status FROM games"), "active");
}

#[test]
fn forged_umpire_mail_is_refused_and_runs_nothing() {
    let (g, secret) = umpired();
    g.run_once();
    // From his address, but no secret and no token.
    mail(&g, "forged1", UMP, "adjutant@example.test", "mill", "PAUSE");
    // His token, but from somewhere else and without his password.
    let t = adjutant::mail::token::make_token(
        &g.key(),
        &principal::token_game("mill"),
        principal::TOKEN_PLAYER,
        1,
    )
    .unwrap();
    mail(
        &g,
        "forged2",
        "mallory@example.test",
        &format!("adjutant+{t}@example.test"),
        "mill",
        "EJECT Grey",
    );
    // A wrong password from his address.
    mail(
        &g,
        "forged3",
        UMP,
        "adjutant@example.test",
        "mill",
        "PASSWORD wrong-wrong\nEJECT Blue",
    );
    // An auto-reply from his address, even with his secret, is never
    // answered and runs nothing.
    let raw = format!(
        "From: {UMP}\r\nTo: adjutant@example.test\r\nSubject: Out of office\r\n\
         Auto-Submitted: auto-replied\r\nMessage-ID: <auto@example.test>\r\n\r\n\
         PASSWORD {secret}\r\nPAUSE\r\n"
    );
    g.drop_mail("auto", raw.as_bytes());
    g.run_once();
    let st = g.statuses();
    assert_eq!(
        st.iter().filter(|(s, _)| s == "ignored").count(),
        1,
        "{st:?}"
    );
    let st: Vec<_> = st.into_iter().filter(|(s, _)| s != "ignored").collect();
    assert!(
        st.iter()
            .all(|(s, d)| s == "refused" && d.contains("umpire mail not accepted")),
        "{st:?}"
    );
    assert_eq!(one::<String>(&g, "SELECT status FROM games"), "active");
    assert_eq!(
        one::<i64>(&g, "SELECT count(*) FROM players WHERE status = 'dropped'"),
        0
    );
    assert_eq!(
        one::<i64>(
            &g,
            "SELECT count(*) FROM audit_log WHERE action LIKE 'umpire-%' AND action <> 'umpire-set'"
        ),
        0
    );
    assert_eq!(
        one::<i64>(
            &g,
            "SELECT count(*) FROM audit_log WHERE action = 'mail-refused'"
        ),
        3
    );
    // Notices go only to the umpire's registered address, never to mallory.
    assert!(mails_to(&g, "mallory@example.test").is_empty());
    let n = mails_to(&g, UMP);
    assert!(!n.is_empty());
    assert!(n[0].contains("did not accept"), "{}", n[0]);
    // His password from another address does work.
    mail(
        &g,
        "real",
        "ump.travelling@example.test",
        "adjutant@example.test",
        "mill commands",
        &format!("PASSWORD {secret}\nEJECT Grey"),
    );
    g.run_once();
    assert_eq!(
        one::<String>(&g, "SELECT status FROM players WHERE name = 'Grey'"),
        "dropped"
    );
    assert!(mails_to(&g, "ump.travelling@example.test").is_empty());
}

#[test]
fn replace_by_mail_mails_a_new_secret_and_the_old_address_no_longer_counts() {
    let (g, secret) = umpired();
    g.run_once();
    mail(
        &g,
        "ump-replace",
        UMP,
        "adjutant@example.test",
        "mill",
        &format!("PASSWORD {secret}\nREPLACE Grey <longstreet@example.test>"),
    );
    g.run_once();
    let mails = all_mails_to(&g, "longstreet@example.test");
    // The secret, and a briefing of his command as it stands (issue #14).
    assert_eq!(mails.len(), 2, "{} mails", mails.len());
    let welcome: Vec<&String> = mails
        .iter()
        .filter(|m| m.contains("made you the player"))
        .collect();
    assert_eq!(welcome.len(), 1);
    assert!(
        mails
            .iter()
            .any(|m| m.contains("Briefing (orders now for turn"))
    );
    let w = welcome[0];
    assert!(w.contains("made you the player Grey"), "{w}");
    let new_secret = w
        .lines()
        .skip_while(|l| !l.contains("Your secret is:"))
        .nth(2)
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(new_secret.len(), 19, "{new_secret}");
    // The secret left in the mail, and is not kept: the stored message has
    // a placeholder where the secret was, and the secret kept apart for the
    // sending was deleted when the mail was marked sent (migration 0005).
    let raw: Vec<u8> = one(
        &g,
        "SELECT raw FROM outbound_mail WHERE kind = 'new-player' AND status = 'sent'",
    );
    let stored = decoded(&String::from_utf8_lossy(&raw));
    assert!(!stored.contains(&new_secret), "{stored}");
    assert!(stored.contains("PASSWORD [secret-not-stored]"), "{stored}");
    assert_eq!(one::<i64>(&g, "SELECT COUNT(*) FROM outbound_secrets"), 0);
    let hash: String = one(&g, "SELECT secret_hash FROM players WHERE name = 'Grey'");
    assert!(hash.starts_with("$argon2") && !hash.contains(&new_secret));
    // The old address and the old secret are no longer accepted.
    g.order_mail("old", "grey@example.test", "Grey", "3rd Tennessee: hold.");
    g.run_once();
    assert_ne!(g.statuses().last().unwrap().0, "accepted");
    // The new address with the new secret is.
    mail(
        &g,
        "new",
        "longstreet@example.test",
        "adjutant@example.test",
        "orders",
        &format!("PASSWORD {new_secret}\n3rd Tennessee: hold.\n\nREADY"),
    );
    g.run_once();
    assert_eq!(
        g.statuses().last().unwrap().0,
        "accepted",
        "{:?}",
        g.statuses()
    );
}

#[test]
fn cli_commands_have_the_same_effect_with_exit_codes_and_json() {
    let (g, _) = umpired();
    let run = |args: &[&str]| {
        adjutant(g.dir.path())
            .arg("umpire")
            .arg("mill")
            .args(args)
            .env("USER", "alice")
            .output()
            .unwrap()
    };
    let deadline: i64 = one(&g, "SELECT deadline_at FROM turns WHERE number = 1");
    let out = run(&["EXTEND", "2h"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("extended by 2h"));
    assert_eq!(
        one::<i64>(&g, "SELECT deadline_at FROM turns WHERE number = 1"),
        deadline + 7200
    );
    assert_eq!(
        one::<String>(&g, "SELECT actor FROM audit_log ORDER BY id DESC LIMIT 1"),
        "cli:alice"
    );

    let out = run(&["DEADLINE", "2030-01-02", "20:00", "America/New_York"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        one::<i64>(&g, "SELECT deadline_at FROM turns WHERE number = 1"),
        1_893_632_400
    );

    // A file of commands: one refused, the others done; exit 2, JSON.
    let file = g.path("cmds.txt");
    std::fs::write(
        &file,
        "PAUSE for 1d\nEXTEND soon\nBROADCAST \"Rain.\"\nREPLACE Nobody x@example.test\n",
    )
    .unwrap();
    let out = adjutant(g.dir.path())
        .args(["umpire", "mill", "--json", "--as", "bob", "--file"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outcomes: Vec<&str> = json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["done", "refused", "done", "refused"]);
    assert_eq!(json["actor"], "cli:bob");
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 of 4 command(s) refused"));
    assert_eq!(one::<String>(&g, "SELECT status FROM games"), "paused");

    // While paused the deadline is not moved (RESUME moves it back).
    let out = run(&["EXTEND", "1h"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("write RESUME first, then EXTEND"));
    // While paused: RESUME, then EJECT and PROCESS from stdin.
    let out = run(&["RESUME"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(one::<String>(&g, "SELECT status FROM games"), "active");
    let out = adjutant(g.dir.path())
        .args(["umpire", "mill", "--file", "-"])
        .write_stdin("EJECT Grey\nORDERS FOR Blue\n10th Ohio: hold.\nEND ORDERS\nPROCESS\n")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(g.open_turn(), 2);
    // The last active player cannot be ejected: nobody would be waited for.
    let out = run(&["EJECT", "Blue"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("last active player"));
    assert_eq!(
        one::<String>(&g, "SELECT status FROM players WHERE name = 'Blue'"),
        "active"
    );

    // The turn plane from the CLI: the turn just processed was held for
    // review (an umpired game); each command does what docs/umpire-turns.md
    // says, or is refused with the reason.
    for (c, code, says) in [
        ("RELEASE", 0, "turn 1 released"),
        ("REDO", 2, "no turn of game `mill` is held"),
        (
            "SET 10th Ohio morale 3 BECAUSE \"miscounted\"",
            0,
            "10th Ohio: morale set to 3 (was 5) at the start of turn 2",
        ),
        (
            "INTERPRET S-mill-1-1: 10th Ohio: hold.",
            2,
            "no order `S-mill-1-1` waits for interpretation",
        ),
        (
            "REJECT S-mill-1-1: \"no\"",
            2,
            "no order `S-mill-1-1` waits",
        ),
        ("DICE 1 2 3", 2, "is not waiting for dice"),
        ("DICE MODE UMPIRE", 0, "each turn waits for your dice"),
        ("ROLLBACK 1", 0, "turn 1 is open again"),
        ("ROLLFORWARD", 0, "the rollback to turn 1 is undone"),
    ] {
        let out = run(&[c]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(code), "{c}: {text}");
        assert!(text.contains(says), "{c}: {text}");
    }
    assert_eq!(g.open_turn(), 2, "rolled forward to where it was");

    // The archive lists who did what, when, as written and why.
    let site = g.path("site");
    adjutant(g.dir.path())
        .args(["archive", "export", "mill", "--out"])
        .arg(&site)
        .assert()
        .success();
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("Umpire and organiser actions"), "{index}");
    for want in [
        "cli:alice",
        "cli:bob",
        "umpire-extend",
        "EXTEND 2h",
        "umpire-pause",
        "umpire-process",
        "umpire-orders-for",
    ] {
        assert!(
            index.contains(want),
            "{want} missing from the archive index"
        );
    }
    assert!(
        !index.contains("EXTEND soon"),
        "refused commands changed nothing"
    );

    // Unknown game and no commands are the operator's to fix: exit 2.
    let out = adjutant(g.dir.path())
        .args(["umpire", "nowhere", "RESUME"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = adjutant(g.dir.path())
        .args(["umpire", "mill"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn game_umpire_sets_address_secret_and_pause_max() {
    let g = GameDir::training("mill");
    let out = adjutant(g.dir.path())
        .args(["game", "umpire", "mill", "--address", "blue@example.test"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a player's address is refused");
    let out = adjutant(g.dir.path())
        .args([
            "game",
            "umpire",
            "mill",
            "--address",
            UMP,
            "--pause-max",
            "3d",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["address"], UMP);
    assert_eq!(json["pause_max_secs"], 259_200);
    let secret = json["secret"].as_str().unwrap();
    let hash: String = one(&g, "SELECT umpire_secret_hash FROM games");
    assert!(hash.starts_with("$argon2"));
    assert!(!hash.contains(secret));
    // A pause without an end is refused by the schema itself (0003).
    let err = g
        .db()
        .execute("UPDATE games SET status = 'paused'", [])
        .unwrap_err();
    assert!(err.to_string().contains("never indefinite"), "{err}");
    // Showing does not print a secret.
    let out = adjutant(g.dir.path())
        .args(["game", "umpire", "mill"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(UMP) && text.contains("maximum pause 3d"),
        "{text}"
    );
    assert!(!text.contains(secret));
}

/// 2026-11-24 01:00:00 UTC.
const T0: i64 = 1_795_482_000;
const H: i64 = 3600;

#[test]
fn a_paused_game_does_not_process_and_resumes_by_itself_at_the_maximum() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::embedded(dir.path());
    let mut store = adjutant::setup::init(&config).unwrap().store;
    let deadlines = DeadlineSettings {
        schedule: Some(parse_every("48h").unwrap()),
        grace_secs: 0,
        remind_secs: 12 * H,
    };
    let created = adjutant::game::create_from_text_at(
        &mut store,
        include_str!("../scenarios/training.toml"),
        "training.toml",
        "mill",
        &deadlines,
        T0,
    )
    .unwrap();
    principal::set_umpire(
        &mut store,
        "mill",
        &UmpireChange {
            address: Some(UMP),
            pause_max_secs: Some(72 * H),
            ..Default::default()
        },
        "cli:test",
        T0,
    )
    .unwrap();
    let key = adjutant::daemon::load_or_create_server_key(&config.server_key_file).unwrap();
    let mail = ReportMail::from_intake(&adjutant::daemon::intake_settings(&config, key));

    // PAUSE without a length pauses for the game's maximum (72 h).
    let r = execute_cli(&mut store, "mill", "cli:test", T0 + H, &mail, "PAUSE").unwrap();
    assert_eq!(r.results[0].outcome, Outcome::Done, "{:?}", r.results);
    drop(store);

    let clock = Arc::new(ManualClock::new(T0 + H));
    let mut parts = Parts::game();
    parts.clock = clock.clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut at = |t: i64| {
        clock.set(t);
        rt.block_on(run_once(&config, &mut parts)).unwrap()
    };
    let db = || rusqlite::Connection::open(dir.path().join("var/adjutant.db")).unwrap();
    let q = |sql: &str| -> String { db().query_row(sql, [], |r| r.get(0)).unwrap() };

    // Every player READY, and the deadline (T0 + 48 h) and the reminder
    // time pass: nothing is processed or reminded while paused.
    for p in &created.players {
        let from = format!("{}@example.test", p.name.to_lowercase());
        let raw = format!(
            "From: {from}\r\nTo: adjutant@example.test\r\nSubject: orders\r\n\
             Message-ID: <r-{}@example.test>\r\n\r\nPASSWORD {}\r\nREADY\r\n",
            p.name, p.secret
        );
        std::fs::write(dir.path().join("var/inbox/new").join(&p.name), raw).unwrap();
    }
    let r = at(T0 + 2 * H);
    assert_eq!(r.process.accepted, 2, "players' mail is read while paused");
    at(T0 + 40 * H);
    at(T0 + 60 * H);
    assert_eq!(q("SELECT CAST(max(number) AS TEXT) FROM turns"), "1");
    assert_eq!(q("SELECT status FROM games"), "paused");
    assert_eq!(
        q("SELECT CAST(count(*) AS TEXT) FROM outbound_mail WHERE kind = 'reminder'"),
        "0"
    );
    // One second before the maximum it is still paused ...
    at(T0 + H + 72 * H - 1);
    assert_eq!(q("SELECT status FROM games"), "paused");
    // ... and at the maximum it resumes by itself, with notice to players
    // and umpire, audited as the system's act; everyone being READY, the
    // turn then runs in the same cycle.
    at(T0 + H + 72 * H);
    assert_eq!(q("SELECT status FROM games"), "active");
    assert_eq!(
        q("SELECT CAST(count(*) AS TEXT) FROM outbound_mail WHERE kind = 'resume'"),
        "2"
    );
    assert_eq!(
        q("SELECT recipients_json FROM outbound_mail WHERE kind = 'resume-umpire'"),
        format!("[\"{UMP}\"]")
    );
    assert_eq!(
        q("SELECT actor FROM audit_log WHERE action = 'umpire-resume'"),
        "system"
    );
    // The umpire's notice carries his reply token, so answering it is enough.
    let raw: Vec<u8> = db()
        .query_row(
            "SELECT raw FROM outbound_mail WHERE kind = 'resume-umpire'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let key = adjutant::daemon::load_or_create_server_key(&config.server_key_file).unwrap();
    let t = adjutant::mail::token::make_token(
        &key,
        &principal::token_game("mill"),
        principal::TOKEN_PLAYER,
        1,
    )
    .unwrap();
    assert!(String::from_utf8_lossy(&raw).contains(&t));
    assert_eq!(q("SELECT CAST(max(number) AS TEXT) FROM turns"), "2");
}

#[test]
fn resume_moves_the_deadline_back_by_the_time_paused() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::embedded(dir.path());
    let mut store = adjutant::setup::init(&config).unwrap().store;
    let deadlines = DeadlineSettings {
        schedule: Some(parse_every("48h").unwrap()),
        grace_secs: 0,
        remind_secs: 0,
    };
    adjutant::game::create_from_text_at(
        &mut store,
        include_str!("../scenarios/training.toml"),
        "training.toml",
        "mill",
        &deadlines,
        T0,
    )
    .unwrap();
    let key = adjutant::daemon::load_or_create_server_key(&config.server_key_file).unwrap();
    let mail = ReportMail::from_intake(&adjutant::daemon::intake_settings(&config, key));
    let deadline = |s: &Store| -> i64 {
        s.conn()
            .query_row("SELECT deadline_at FROM turns WHERE number = 1", [], |r| {
                r.get(0)
            })
            .unwrap()
    };
    assert_eq!(deadline(&store), T0 + 48 * H);
    execute_cli(&mut store, "mill", "cli:t", T0 + H, &mail, "PAUSE for 1d").unwrap();
    let r = execute_cli(
        &mut store,
        "mill",
        "cli:t",
        T0 + 11 * H,
        &mail,
        "RESUME\nRESUME",
    )
    .unwrap();
    assert_eq!(r.results[0].outcome, Outcome::Done);
    assert_eq!(r.results[1].outcome, Outcome::Refused);
    assert!(r.results[1].summary.contains("not paused"));
    assert_eq!(deadline(&store), T0 + 58 * H);
    let _ = Store::path(&store);
}

#[test]
fn a_paused_game_still_takes_the_umpires_resume_and_deadline_by_mail() {
    let (g, secret) = umpired();
    mail(
        &g,
        "p1",
        UMP,
        "adjutant@example.test",
        "mill",
        &format!("PASSWORD {secret}\nPAUSE for 2d"),
    );
    g.run_once();
    assert_eq!(one::<String>(&g, "SELECT status FROM games"), "paused");
    let players = mails_to(&g, "grey@example.test").join("\n");
    assert!(players.contains("has paused game mill until"), "{players}");
    mail(
        &g,
        "p2",
        UMP,
        "adjutant@example.test",
        "mill",
        &format!("PASSWORD {secret}\nRESUME\nDEADLINE 2030-01-02 20:00 America/New_York"),
    );
    g.run_once();
    assert_eq!(one::<String>(&g, "SELECT status FROM games"), "active");
    assert_eq!(
        one::<i64>(&g, "SELECT deadline_at FROM turns WHERE number = 1"),
        1_893_632_400
    );
    let c = mails_to(&g, UMP).join("\n");
    assert!(c.contains("game resumed after"), "{c}");
}

#[test]
fn orders_for_in_the_same_intake_batch_as_players_mail_keeps_public_ids_unique() {
    let (g, _secret) = umpired();
    g.run_once();
    // Reply tokens, not PASSWORD lines: no slow Argon2 check, so the three
    // mails are read in one intake batch (one transaction).
    let ump = adjutant::mail::token::make_token(
        &g.key(),
        &principal::token_game("mill"),
        principal::TOKEN_PLAYER,
        1,
    )
    .unwrap();
    let blue = g.token_address("Blue", 1);
    let grey = g.token_address("Grey", 1);
    mail(
        &g,
        "1-blue",
        "blue@example.test",
        &blue,
        "o",
        "10th Ohio: hold.",
    );
    mail(
        &g,
        "2-ump",
        UMP,
        &format!("adjutant+{ump}@example.test"),
        "mill",
        "ORDERS FOR Blue\n10th Ohio: hold.\nEND ORDERS",
    );
    mail(
        &g,
        "3-grey",
        "grey@example.test",
        &grey,
        "o",
        "3rd Tennessee: hold.",
    );
    g.run_once();
    let st = g.statuses();
    assert!(st.iter().all(|(s, _)| s == "accepted"), "{st:?}");
    assert_eq!(
        one::<i64>(&g, "SELECT count(DISTINCT public_id) FROM submissions"),
        3
    );
}

/// The umpire's report of a held turn carries HIS reply token: answering
/// it with RELEASE, without a PASSWORD line, is enough to be recognised,
/// and the players' reports then go out.
#[test]
fn answering_the_held_turns_report_releases_it() {
    let (g, _secret) = umpired();
    g.order_mail("blue1", "blue@example.test", "Blue", "READY");
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(
        one::<String>(
            &g,
            "SELECT status FROM turns WHERE number = 1 AND superseded_at IS NULL"
        ),
        "held"
    );
    let reports = mails_to(&g, UMP);
    let report = reports
        .iter()
        .find(|m| m.contains("IS HELD"))
        .unwrap_or_else(|| panic!("the umpire's held-turn report: {reports:?}"));
    let reply_to = report
        .lines()
        .find_map(|l| l.strip_prefix("Reply-To: "))
        .expect("Reply-To");
    let token_address = reply_to
        .rsplit('<')
        .next()
        .unwrap()
        .trim_end_matches('>')
        .to_string();
    assert!(token_address.starts_with("adjutant+"), "{reply_to}");
    let before = mails_to(&g, "blue@example.test").len();
    mail(
        &g,
        "ump-release",
        UMP,
        &token_address,
        "Re: turn 1",
        "RELEASE",
    );
    g.run_once();
    let conf = mails_to(&g, UMP);
    assert!(
        conf.iter().any(|m| m.contains("turn 1 released")),
        "{conf:?}"
    );
    assert_eq!(
        one::<String>(
            &g,
            "SELECT status FROM turns WHERE number = 1 AND superseded_at IS NULL"
        ),
        "released"
    );
    assert!(
        mails_to(&g, "blue@example.test").len() > before,
        "Blue's report went out"
    );
}

/// The turn-plane commands by mail, in one mail, each on its own line and
/// all-or-nothing: SET on the held turn, REDO with it, RELEASE, the dice
/// mode both ways, ROLLBACK and ROLLFORWARD; a DICE nobody asked for is
/// refused alone.
#[test]
fn turn_plane_commands_by_mail() {
    let (g, secret) = umpired();
    g.order_mail("blue1", "blue@example.test", "Blue", "READY");
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    mail(
        &g,
        "ump-turns",
        UMP,
        "adjutant@example.test",
        "turn 1",
        &format!(
            "PASSWORD {secret}\n\
             SET 10th Ohio morale 4 BECAUSE \"the colonel rallied them before the fight\"\n\
             REDO\n\
             RELEASE\n\
             DICE 3 4\n\
             DICE MODE UMPIRE\n\
             DICE MODE STREAM\n\
             ROLLBACK 1\n\
             ROLLFORWARD\n"
        ),
    );
    g.run_once();
    let conf = mails_to(&g, UMP);
    let c = conf
        .iter()
        .find(|m| m.contains("Umpire commands for mill"))
        .unwrap_or_else(|| panic!("{conf:?}"));
    for (line, want) in [
        (
            "[done   ] line 1: SET 10th Ohio morale 4",
            "morale set to 4",
        ),
        ("[done   ] line 2: REDO", "turn 1"),
        ("[done   ] line 3: RELEASE", "turn 1 released"),
        ("[REFUSED] line 4: DICE 3 4", "is not waiting for dice"),
        ("[done   ] line 5: DICE MODE UMPIRE", "waits for your dice"),
        ("[done   ] line 6: DICE MODE STREAM", ""),
        ("[done   ] line 7: ROLLBACK 1", "turn 1 is open again"),
        (
            "[done   ] line 8: ROLLFORWARD",
            "the rollback to turn 1 is undone",
        ),
    ] {
        assert!(c.contains(line), "{line}:\n{c}");
        assert!(c.contains(want), "{want}:\n{c}");
    }
    assert!(c.contains("7 done, 1 refused"), "{c}");
    // The correction is on record with its reason, and the live turn 1 is
    // the REDO's attempt, released.
    assert_eq!(
        one::<String>(&g, "SELECT reason FROM corrections"),
        "the colonel rallied them before the fight"
    );
    assert_eq!(
        one::<i64>(
            &g,
            "SELECT attempt FROM turns WHERE number = 1 AND superseded_at IS NULL"
        ),
        2
    );
    assert_eq!(
        one::<String>(
            &g,
            "SELECT status FROM turns WHERE number = 1 AND superseded_at IS NULL"
        ),
        "released"
    );
}

/// REPLACE from the command line queues the new player's mail without
/// sending it: until the daemon sends it, the secret waits in
/// `outbound_secrets`, never in the stored message; the next run sends the
/// mail with the secret in it and forgets the secret.
#[test]
fn a_replaced_players_secret_is_kept_only_until_its_mail_has_left() {
    let (g, _) = umpired();
    g.run_once();
    let out = adjutant(g.dir.path())
        .args([
            "umpire",
            "mill",
            "REPLACE",
            "Grey",
            "<longstreet@example.test>",
        ])
        .env("USER", "alice")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(one::<i64>(&g, "SELECT COUNT(*) FROM outbound_secrets"), 1);
    let kept: String = one(&g, "SELECT secret FROM outbound_secrets");
    let raw: Vec<u8> = one(
        &g,
        "SELECT raw FROM outbound_mail WHERE kind = 'new-player' AND status = 'queued'",
    );
    let stored = decoded(&String::from_utf8_lossy(&raw));
    assert!(!stored.contains(&kept) && stored.contains("[secret-not-stored]"));
    g.run_once();
    let mails = all_mails_to(&g, "longstreet@example.test");
    // His secret, and his briefing (issue #14), which carries no secret.
    let welcome: Vec<&String> = mails.iter().filter(|m| m.contains("PASSWORD")).collect();
    assert_eq!(welcome.len(), 1);
    assert!(
        welcome[0].contains(&format!("PASSWORD {kept}")),
        "{}",
        welcome[0]
    );
    let briefing: Vec<&String> = mails.iter().filter(|m| m.contains("BRIEFING")).collect();
    assert_eq!(briefing.len(), 1, "{mails:#?}");
    assert!(!briefing[0].contains(&kept));
    assert!(briefing[0].contains("YOUR UNITS"), "{}", briefing[0]);
    assert_eq!(one::<i64>(&g, "SELECT COUNT(*) FROM outbound_secrets"), 0);
}

/// `game create --umpire` names the umpire in the game's own transaction:
/// an address that is a player's refuses the whole game (nothing written,
/// exit code 2), and in an SFRM game the umpire's briefing is queued with
/// the players' at creation (it was lost when the umpire was named in a
/// second transaction, after the briefings).
#[test]
fn the_umpire_is_named_in_the_games_own_transaction() {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path()).arg("init").assert().success();
    let out = adjutant(dir.path())
        .args([
            "game",
            "create",
            "--name",
            "mill",
            "--umpire",
            "Blue@Example.test",
            "--scenario",
        ])
        .arg(repo("scenarios/training.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("not created"), "{said}");
    assert!(said.contains("address of his own"), "{said}");
    let db = rusqlite::Connection::open(dir.path().join("var/adjutant.db")).unwrap();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(count("SELECT count(*) FROM games"), 0);
    assert_eq!(count("SELECT count(*) FROM outbound_mail"), 0);
    assert_eq!(count("SELECT count(*) FROM audit_log"), 0);

    let out = adjutant(dir.path())
        .args([
            "game",
            "create",
            "--name",
            "bull",
            "--umpire",
            UMP,
            "--scenario",
        ])
        .arg(repo("scenarios/first-bull-run.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let umpire_briefings = count(&format!(
        "SELECT count(*) FROM outbound_mail WHERE recipients_json LIKE '%{UMP}%'"
    ));
    assert_eq!(
        umpire_briefings, 1,
        "the umpire's briefing, queued at creation"
    );
    assert_eq!(
        count("SELECT count(*) FROM audit_log WHERE action = 'umpire-set'"),
        1
    );
}
