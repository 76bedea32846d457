//! `adjutant demo` through the binary: a game with a deadline schedule
//! played by mail, including a mail with a mistake, an HTML-only mail, a
//! reminder to the player who sent nothing and a late mail that counts for
//! the next turn, with the clock moved by the script (no real waiting).

mod common;

use rusqlite::Connection;

fn decoded(raw: &str) -> String {
    raw.replace("=\r\n", "").replace("=3D", "=")
}

#[test]
fn the_demo_plays_deadlines_reminders_and_a_late_mail() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    let out = common::adjutant(dir.path())
        .args(["demo", "--dir"])
        .arg(&demo)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    for want in [
        "deadlines: every 2d after the turn opens; grace 2h; reminder 12h before",
        "1 reminder(s) queued",
        "arrives LATE",
        "turn 2 processed (its deadline had passed)",
        "turn 3 processed (every player was READY)",
        "Turn 4 is now open; its deadline is",
        "Where to look:",
        "var/outbox/new",
    ] {
        assert!(stdout.contains(want), "missing {want:?} in:\n{stdout}");
    }

    let outbox: Vec<String> = std::fs::read_dir(demo.join("var/outbox/new"))
        .unwrap()
        .map(|e| decoded(&std::fs::read_to_string(e.unwrap().path()).unwrap()))
        .collect();
    let reminders: Vec<&String> = outbox
        .iter()
        .filter(|m| m.contains("Subject: Reminder:"))
        .collect();
    assert_eq!(reminders.len(), 1);
    assert!(reminders[0].contains("To: trimble@example.test"));
    assert!(reminders[0].contains("(your time zone, America/Chicago)"));
    let late: Vec<&String> = outbox.iter().filter(|m| m.contains("LATE:")).collect();
    assert_eq!(late.len(), 1);
    assert!(late[0].contains("Counts for: turn 3"), "{}", late[0]);
    assert!(outbox.iter().any(|m| m.contains("Not understood")));
    // Every player was briefed before turn 1 (issue #14), and the mails
    // after each turn are named as players count turns.
    let briefings = outbox
        .iter()
        .filter(|m| m.contains("Briefing (orders now for turn 1)"))
        .count();
    assert_eq!(briefings, 5, "one briefing for each of the five players");
    assert!(
        outbox
            .iter()
            .any(|m| m.contains("Turn 1 results (orders now for turn 2)"))
    );

    let db = Connection::open(demo.join("var/adjutant.db")).unwrap();
    // The HTML-only mail was read like any other.
    let html_ok: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM submissions s JOIN players p ON p.id = s.player_id
             WHERE p.name = 'Baylor' AND s.status = 'accepted'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(html_ok, 3);
    // Trimble's late order was issued for turn 3, and turn 3 (not turn 2)
    // ran with it.
    let late_id: i64 = db
        .query_row(
            "SELECT o.id FROM orders o WHERE o.original_text LIKE '21st North Carolina%'
             AND o.issued_turn = 3",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let input = |turn: u32| -> String {
        db.query_row(
            "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = ?1 AND e.kind = 'turn-input'",
            [turn],
            |r| r.get(0),
        )
        .unwrap()
    };
    let has = |turn: u32| -> bool {
        let v: serde_json::Value = serde_json::from_str(&input(turn)).unwrap();
        v["orders"]["unit_orders"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["id"].as_i64() == Some(late_id))
    };
    assert!(!has(2), "the late order did not touch turn 2");
    assert!(has(3), "turn 3 ran with the late order");
    // Every turn got a deadline.
    let without: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM turns WHERE deadline_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(without, 0);
}
