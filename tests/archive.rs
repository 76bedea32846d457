//! The archive through the binary (issue #6, "The archive"): a game played
//! by mail and by `game process`, then `adjutant replay` (every turn OK,
//! and a tampered copy of the database names the turn that differs) and
//! `adjutant archive export` (a deterministic static site with each side's
//! view, the true map, orders, reports, dispatches and the fog lifted).

mod common;
use common::{GameDir, adjutant};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::Path;

/// Three processed turns of the training scenario: turn 1 by mail with
/// orders from both players, turns 2 and 3 by `game process`.
fn played() -> GameDir {
    let g = GameDir::training("mill");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to the crossroads in line.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: advance to the ford.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 ran by mail");
    for _ in 0..2 {
        adjutant(g.dir.path())
            .args(["game", "process", "mill"])
            .assert()
            .success();
    }
    assert_eq!(g.open_turn(), 4);
    g
}

fn replay(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = adjutant(dir).arg("replay").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A copy of the game's database in a fresh directory, with the
/// append-only and immutability triggers dropped so a test can tamper.
fn tampered_copy(g: &GameDir, sql: &str) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(copy.path().join("var")).unwrap();
    let target = copy.path().join("var/adjutant.db");
    g.db()
        .execute("VACUUM INTO ?1", [target.to_str().unwrap()])
        .unwrap();
    let db = Connection::open(&target).unwrap();
    db.execute_batch(
        "DROP TRIGGER events_no_update; DROP TRIGGER dice_rolls_no_update;
         DROP TRIGGER turns_snapshot_immutable;",
    )
    .unwrap();
    let changed = db.execute(sql, []).unwrap();
    assert_eq!(changed, 1, "the tampering changed one row: {sql}");
    copy
}

fn turn_id(g: &GameDir, n: u32) -> i64 {
    g.db()
        .query_row("SELECT id FROM turns WHERE number = ?1", [n], |r| r.get(0))
        .unwrap()
}

#[test]
fn every_turn_replays_byte_identically() {
    let g = played();
    let (code, out, err) = replay(g.dir.path(), &["mill"]);
    assert_eq!(code, 0, "{out}\n{err}");
    for n in 1..=3 {
        assert!(out.contains(&format!("turn {n}: OK")), "{out}");
    }
    assert!(!out.contains("MISMATCH"), "{out}");
    // Not a terminal: no progress bar on stderr.
    assert!(err.is_empty(), "{err}");

    let (code, out, _) = replay(g.dir.path(), &["mill", "--json"]);
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["ok"], true);
    let turns = json["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 3);
    // The replayed outcome is the next turn's stored snapshot hash.
    let stored: String = g
        .db()
        .query_row("SELECT state_hash FROM turns WHERE number = 4", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(turns[2]["replayed_state_hash"], stored.as_str());
    assert_eq!(turns[2]["stored_state_hash"], stored.as_str());
    assert_eq!(
        turns[0]["stored_events_hash"],
        turns[0]["replayed_events_hash"]
    );
}

#[test]
fn an_unknown_game_exits_2() {
    let g = GameDir::training("mill");
    let (code, _, err) = replay(g.dir.path(), &["nosuch"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no game named `nosuch`"), "{err}");
}

#[test]
fn a_game_with_no_processed_turn_replays_trivially() {
    let g = GameDir::training("mill");
    let (code, out, _) = replay(g.dir.path(), &["mill"]);
    assert_eq!(code, 0);
    assert!(out.contains("no processed turn"), "{out}");
}

#[test]
fn a_changed_event_names_its_turn() {
    let g = played();
    let t2 = turn_id(&g, 2);
    let copy = tampered_copy(
        &g,
        &format!(
            "UPDATE events SET data_json = json_set(data_json, '$.tampered', 1)
             WHERE turn_id = {t2} AND seq = 1"
        ),
    );
    let (code, out, err) = replay(copy.path(), &["mill"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("turn 1: OK"), "{out}");
    assert!(
        out.contains("turn 2: MISMATCH: events differ (first at seq 1)"),
        "{out}"
    );
    assert!(out.contains("turn 3: OK"), "{out}");
    assert!(err.contains("1 turn(s) that differ"), "{err}");
}

#[test]
fn a_changed_die_names_its_turn() {
    let g = played();
    let t3 = turn_id(&g, 3);
    let copy = tampered_copy(
        &g,
        &format!("UPDATE dice_rolls SET value = (value % 6) + 1 WHERE turn_id = {t3} AND seq = 0"),
    );
    let (code, out, _) = replay(copy.path(), &["mill", "--json"]);
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["ok"], false);
    let t = &json["turns"][2];
    assert_eq!(t["turn"], 3);
    assert_eq!(t["ok"], false);
    assert_eq!(t["differences"][0], "dice differ (first at seq 0)");
    assert_eq!(json["turns"][0]["ok"], true);
    assert_eq!(json["turns"][1]["ok"], true);
}

#[test]
fn a_changed_snapshot_names_both_turns_it_touches() {
    let g = played();
    // Turn 3's snapshot is turn 2's outcome and turn 3's input.
    let copy = tampered_copy(
        &g,
        "UPDATE turns SET state_json = json_set(state_json, '$.battle.turn', 99)
         WHERE number = 3",
    );
    let (code, out, _) = replay(copy.path(), &["mill"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("turn 1: OK"), "{out}");
    assert!(
        out.contains("turn 2: MISMATCH: turn 3's stored snapshot differs from the outcome"),
        "{out}"
    );
    assert!(
        out.contains(
            "turn 3: MISMATCH: the stored snapshot of turn 3 does not match its state_hash"
        ),
        "{out}"
    );
}

#[test]
fn a_changed_input_changes_the_outcome() {
    let g = played();
    let t1 = turn_id(&g, 1);
    // Drop the 10th Ohio's order from the engine input: it no longer
    // advances, so the outcome is different.
    let copy = tampered_copy(
        &g,
        &format!(
            "UPDATE events SET data_json = json_set(data_json, '$.orders.unit_orders', json('[]'))
             WHERE turn_id = {t1} AND seq = 0"
        ),
    );
    let (code, out, _) = replay(copy.path(), &["mill"]);
    assert_eq!(code, 1, "{out}");
    let line = out.lines().find(|l| l.starts_with("turn 1:")).unwrap();
    assert!(line.contains("MISMATCH"), "{line}");
    // The input row itself replays as stored; what it causes does not.
    assert!(line.contains("events differ"), "{line}");
    assert!(
        line.contains("the outcome differs from turn 2's state_hash"),
        "{line}"
    );
}

/// Every file of an exported site, by name.
fn site(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn export(g: &GameDir, out: &Path) -> BTreeMap<String, Vec<u8>> {
    adjutant(g.dir.path())
        .args(["archive", "export", "mill", "--out"])
        .arg(out)
        .assert()
        .success();
    site(out)
}

/// A page's text with the apostrophe and ampersand escapes of Tera and of
/// the SVG map undone, so unit names can be searched for as written.
fn text(files: &BTreeMap<String, Vec<u8>>, name: &str) -> String {
    String::from_utf8(
        files
            .get(name)
            .unwrap_or_else(|| panic!("{name} missing"))
            .clone(),
    )
    .unwrap()
    .replace("&#39;", "'")
    .replace("&#x27;", "'")
    .replace("&amp;", "&")
}

/// Every `href="..."` of a page that points at a file of the site.
fn local_links(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|h| !h.starts_with('#') && !h.contains(':'))
        .map(str::to_string)
        .collect()
}

/// A report row and a dispatch as the reports and messenger code will
/// store them, so the export shows them.
fn store_report_and_dispatch(g: &GameDir) {
    let db = g.db();
    let t1 = turn_id(g, 1);
    db.execute(
        "INSERT INTO reports (game_id, turn_id, player_id, side_id, text, html, created_at)
         SELECT p.game_id, ?1, p.id, p.side_id, 'REPORT-TEXT for Blue', '<html><body><p>REPORT-HTML for Blue</p></body></html>', 0
         FROM players p WHERE p.name = 'Blue'",
        [t1],
    )
    .unwrap();
    db.execute(
        "INSERT INTO reports (game_id, turn_id, player_id, side_id, text, html, created_at)
         SELECT game_id, ?1, NULL, NULL, 'UMPIRE-REPORT-TEXT', NULL, 0 FROM turns WHERE id = ?1",
        [t1],
    )
    .unwrap();
    db.execute(
        "INSERT INTO dispatches (game_id, from_officer_id, to_officer_id, text, written_turn, status, carrier_json)
         SELECT a.game_id, a.id, a.id, 'Hold the ford at all costs', 1, 'in-transit', '{\"position\":{\"x\":20.0,\"y\":10.0}}'
         FROM officers a WHERE a.name = 'Colonel Hale'",
        [],
    )
    .unwrap();
}

#[test]
fn export_writes_a_deterministic_site_of_every_turn() {
    let g = played();
    store_report_and_dispatch(&g);
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let first = export(&g, a.path());
    let second = export(&g, b.path());
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        second.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &first {
        assert!(second[name] == *bytes, "{name} differs between two exports");
    }

    for n in 1..=3 {
        for f in [
            format!("turn-00{n}.html"),
            format!("turn-00{n}-side-0.html"),
            format!("turn-00{n}-side-1.html"),
        ] {
            assert!(first.contains_key(&f), "{f} missing: {:?}", first.keys());
        }
    }
    assert!(!first.contains_key("turn-004.html"), "turn 4 is still open");
    assert!(
        !first.keys().any(|k| k.starts_with("fog-")),
        "no fog lifted while the game is active"
    );

    let index = text(&first, "index.html");
    assert!(index.contains("Skirmish at Miller"), "{index}");
    assert!(index.contains("href=\"turn-001.html\""), "{index}");
    assert!(index.contains("href=\"turn-003-side-1.html\""), "{index}");
    // Every local link of every page points at a written file.
    for (name, bytes) in &first {
        if name.ends_with(".html") {
            for link in local_links(&String::from_utf8_lossy(bytes)) {
                assert!(first.contains_key(&link), "{name} links to missing {link}");
            }
        }
    }
    // Nothing outside the site is referenced.
    for (name, bytes) in &first {
        let page = String::from_utf8_lossy(bytes);
        assert!(!page.contains("<script"), "{name} has a script");
        assert!(
            !page.contains("src=\"http"),
            "{name} loads a remote resource"
        );
        assert!(!page.contains("href=\"http"), "{name} links outside");
    }

    let turn1 = text(&first, "turn-001.html");
    assert!(turn1.contains("True map"), "{turn1}");
    assert!(turn1.contains("<svg"), "{turn1}");
    // Orders as written and as read.
    assert!(
        turn1.contains("10th Ohio: advance to the crossroads in line."),
        "{turn1}"
    );
    assert!(turn1.contains("move to ("), "{turn1}");
    assert!(turn1.contains("in line"), "{turn1}");
    // Events and dice with their purposes.
    assert!(turn1.contains("turn-input"), "{turn1}");
    let dice: i64 = g.count(&format!(
        "SELECT count(*) FROM dice_rolls WHERE turn_id = {}",
        turn_id(&g, 1)
    ));
    if dice > 0 {
        let purpose: String = g
            .db()
            .query_row(
                "SELECT purpose FROM dice_rolls WHERE turn_id = ?1 ORDER BY seq LIMIT 1",
                [turn_id(&g, 1)],
                |r| r.get(0),
            )
            .unwrap();
        assert!(turn1.contains(&purpose), "{purpose} in {turn1}");
    }
    // The stored reports and the dispatch.
    assert!(turn1.contains("REPORT-TEXT for Blue"), "{turn1}");
    assert!(turn1.contains("UMPIRE-REPORT-TEXT"), "{turn1}");
    // Turn 1's page also keeps the briefings (issue #14).
    assert!(
        first
            .iter()
            .filter(|(k, _)| k.starts_with("turn-001-report-") && k.ends_with(".html"))
            .any(|(_, v)| String::from_utf8_lossy(v).contains("REPORT-HTML for Blue"))
    );
    assert!(turn1.contains("Hold the ford at all costs"), "{turn1}");
    assert!(turn1.contains("in-transit"), "{turn1}");
    assert!(
        turn1.contains("messenger (20.0, 10.0) → Colonel Hale ("),
        "{turn1}"
    );
    // Every unit on the umpire's page, both sides.
    assert!(turn1.contains("10th Ohio") && turn1.contains("3rd Tennessee"));

    // The latest reports, made when turn 3 was played, are kept with the
    // open turn 4, which has no page: turn 3's page shows them.
    let turn3 = text(&first, "turn-003.html");
    assert!(
        turn3.contains("Reports made from this turn&#39;s outcome, for turn 4")
            || turn3.contains("Reports made from this turn's outcome, for turn 4"),
        "{turn3}"
    );
    assert!(turn3.contains("Turn 4 has not been played yet"), "{turn3}");
    assert!(
        first.keys().any(|k| k.starts_with("turn-004-report-")),
        "{:?}",
        first.keys()
    );
}

/// The training scenario's units by side, from the scenario file.
fn unit_names(side: &str) -> Vec<String> {
    let s = adjutant::scenario::load(&common::repo("scenarios/training.toml")).unwrap();
    s.units
        .iter()
        .filter(|u| u.side == side)
        .flat_map(|u| std::iter::once(u.name.clone()))
        .collect()
}

#[test]
fn a_side_page_shows_only_what_that_side_saw() {
    let g = played();
    let out = tempfile::tempdir().unwrap();
    let files = export(&g, out.path());
    // Side 0 is the Union, side 1 the Confederates (scenario order).
    for (file, own, enemy) in [
        ("turn-003-side-0.html", "Union", "Confederate"),
        ("turn-003-side-1.html", "Confederate", "Union"),
    ] {
        let page = text(&files, file);
        assert!(page.contains(&format!("what the {own} side saw")), "{page}");
        for name in unit_names(own) {
            assert!(page.contains(&name), "own unit {name} missing from {file}");
        }
        // Enemies are described, never named; no castings or morale.
        for name in unit_names(enemy) {
            assert!(!page.contains(&name), "{file} names enemy unit {name}");
        }
        assert!(!page.contains("Castings"), "{file}");
        assert!(!page.contains("Morale"), "{file}");
    }

    // What the side page says it saw is exactly its sighting record.
    let db = g.db();
    let data: String = db
        .query_row(
            "SELECT data_json FROM events WHERE turn_id = ?1 AND kind = 'sighting'
             AND json_extract(data_json, '$.side') = 0",
            [turn_id(&g, 3)],
            |r| r.get(0),
        )
        .unwrap();
    let seen = serde_json::from_str::<serde_json::Value>(&data).unwrap()["seen"]["seen"]
        .as_object()
        .map_or(0, |m| m.len());
    assert!(seen > 0, "by turn 3 the Union sees some of the enemy");
    let page = text(&files, "turn-003-side-0.html");
    let section = page.split("Enemies in sight").nth(1).unwrap();
    let section = section.split("Enemies seen before").next().unwrap();
    assert_eq!(section.matches("<tr><td>").count(), seen, "{section}");
}

#[test]
fn a_finished_game_lifts_the_fog() {
    let g = played();
    // Before the game ends, no fog-lifted page.
    let before = tempfile::tempdir().unwrap();
    assert!(!export(&g, before.path()).contains_key("fog-001.html"));
    adjutant(g.dir.path())
        .args(["game", "end", "nosuch", "--because", "x"])
        .assert()
        .code(2);
    adjutant(g.dir.path())
        .args([
            "game",
            "end",
            "mill",
            "--because",
            "Jackson withdrew at dusk",
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains("ended"));
    let (status, reason): (String, String) = g
        .db()
        .query_row(
            "SELECT g.status, a.reason FROM games g JOIN audit_log a ON a.game_id = g.id
             WHERE g.name = 'mill' AND a.action = 'game-ended'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (status.as_str(), reason.as_str()),
        ("finished", "Jackson withdrew at dusk")
    );
    let out = tempfile::tempdir().unwrap();
    let files = export(&g, out.path());
    for n in 1..=3 {
        let fog = text(&files, &format!("fog-00{n}.html"));
        assert!(fog.contains("the fog lifted"), "{fog}");
        assert!(fog.contains("What the Union side believed"), "{fog}");
        assert!(fog.contains("The truth"), "{fog}");
        // Every enemy unit has a row with the belief and the truth.
        for name in unit_names("Confederate") {
            assert!(fog.contains(&name), "{name} missing from fog-00{n}");
        }
        assert!(
            fog.contains("seen now") || fog.contains("never seen") || fog.contains("last seen"),
            "{fog}"
        );
        assert!(
            fog.matches("<svg").count() >= 4,
            "belief and truth per side"
        );
    }
    let index = text(&files, "index.html");
    assert!(index.contains("href=\"fog-002.html\""), "{index}");
}

#[test]
fn export_of_an_unknown_game_exits_2() {
    let g = GameDir::training("mill");
    let out = tempfile::tempdir().unwrap();
    adjutant(g.dir.path())
        .args(["archive", "export", "nosuch", "--out"])
        .arg(out.path())
        .assert()
        .code(2);
}

#[test]
fn export_into_a_file_exits_2() {
    let g = GameDir::training("mill");
    let file = g.path("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let out = adjutant(g.dir.path())
        .args(["archive", "export", "mill", "--out"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot write"), "{err}");
}

/// Runs one umpire command through the binary as `alice`; its summary.
fn umpire_cli(g: &GameDir, command: &[&str]) -> String {
    let out = adjutant(g.dir.path())
        .args(["umpire", "mill", "--as", "alice"])
        .args(command)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// An umpired game through the binary: turn 1 by mail (held), a SET and a
/// REDO of it, turns 2 and 3 by `game process`, then ROLLBACK 2 and turn 2
/// played again. Set aside: turn 1's first attempt (REDO), turn 2's second
/// attempt and turn 3's (ROLLBACK); turn 2's first attempt and turn 4's
/// were opened and set aside without being adjudicated.
fn umpired() -> GameDir {
    let g = GameDir::training("mill");
    adjutant(g.dir.path())
        .args(["game", "umpire", "mill", "--address", "umpire@example.test"])
        .assert()
        .success();
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to the crossroads in line.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: advance to the ford.\n\nREADY",
    );
    g.run_once();
    assert_eq!(
        g.count("SELECT count(*) FROM turns WHERE number = 1 AND status = 'held'"),
        1,
        "turn 1 is held for the umpire"
    );
    umpire_cli(
        &g,
        &["SET 10th Ohio castings 15 BECAUSE \"three castings straggled\""],
    );
    let said = umpire_cli(&g, &["REDO"]);
    assert!(said.contains("adjudicated again"), "{said}");
    umpire_cli(&g, &["RELEASE"]);
    for _ in 0..2 {
        adjutant(g.dir.path())
            .args(["game", "process", "mill"])
            .assert()
            .success();
        umpire_cli(&g, &["RELEASE"]);
    }
    assert_eq!(g.open_turn(), 4);
    let said = umpire_cli(&g, &["ROLLBACK", "2"]);
    assert!(said.contains("rolled back to turn 2"), "{said}");
    adjutant(g.dir.path())
        .args(["game", "process", "mill"])
        .assert()
        .success();
    umpire_cli(&g, &["RELEASE"]);
    assert_eq!(g.open_turn(), 3);
    g
}

/// The row id of the `ordinal`-th attempt (from 1, in the order opened) of
/// turn `n`.
fn attempt_id(g: &GameDir, n: u32, ordinal: u32) -> i64 {
    g.db()
        .query_row(
            "SELECT id FROM turns WHERE number = ?1 ORDER BY id LIMIT 1 OFFSET ?2",
            [n, ordinal - 1],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn set_aside_attempts_have_their_own_marked_pages() {
    let g = umpired();
    // Replay checks the very attempts the pages show.
    let (code, out, _) = replay(g.dir.path(), &["mill"]);
    assert_eq!(code, 0, "{out}");

    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let first = export(&g, a.path());
    let second = export(&g, b.path());
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        second.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &first {
        assert!(second[name] == *bytes, "{name} differs between two exports");
    }
    for (name, bytes) in &first {
        if name.ends_with(".html") {
            for link in local_links(&String::from_utf8_lossy(bytes)) {
                assert!(first.contains_key(&link), "{name} links to missing {link}");
            }
        }
    }

    // The adjudicated set-aside attempts have pages, side pages included;
    // those never adjudicated have none.
    for stem in ["001-attempt-1", "002-attempt-2", "003-attempt-1"] {
        for f in [
            format!("turn-{stem}.html"),
            format!("turn-{stem}-side-0.html"),
            format!("turn-{stem}-side-1.html"),
        ] {
            assert!(first.contains_key(&f), "{f} missing: {:?}", first.keys());
        }
    }
    for f in ["turn-002-attempt-1.html", "turn-004-attempt-1.html"] {
        assert!(!first.contains_key(f), "{f}: never adjudicated");
    }
    // The live turns keep their names.
    for f in ["turn-001.html", "turn-002.html", "turn-002-side-0.html"] {
        assert!(first.contains_key(f), "{f} missing");
    }
    assert!(!first.contains_key("turn-003.html"), "turn 3 is open again");

    // REDO: marked, with who, the command and the correction that was
    // the reason for it.
    let redone = text(&first, "turn-001-attempt-1.html");
    assert!(redone.contains("Turn 1, attempt 1 — set aside"), "{redone}");
    assert!(redone.contains("SET ASIDE"), "{redone}");
    assert!(redone.contains("<td>REDO</td>"), "{redone}");
    assert!(redone.contains("cli:alice"), "{redone}");
    assert!(redone.contains("three castings straggled"), "{redone}");
    assert!(redone.contains("held (applied by the REDO)"), "{redone}");
    assert!(redone.contains("<svg"), "the attempt's true map");
    // ... its own events and dice, with their purposes, exactly.
    let id = attempt_id(&g, 1, 1);
    let events = g.count(&format!("SELECT count(*) FROM events WHERE turn_id = {id}"));
    assert!(events > 1, "turn-input, the engine's events, sightings");
    let section = redone.split("<h2>Events</h2>").nth(1).unwrap();
    let section = section.split("<h2>").next().unwrap();
    assert_eq!(
        section.matches("<tr><td class=\"num\">").count() as i64,
        events,
        "{section}"
    );
    let db = g.db();
    let mut st = db
        .prepare("SELECT value, purpose FROM dice_rolls WHERE turn_id = ?1 ORDER BY seq")
        .unwrap();
    let dice: Vec<(i64, String)> = st
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let section = redone.split("<h2>Dice</h2>").nth(1).unwrap();
    let section = section.split("<h2>").next().unwrap();
    if dice.is_empty() {
        assert!(section.contains("No dice were rolled"), "{section}");
    }
    for (value, purpose) in &dice {
        assert!(
            section.contains(&format!("{value} <small>of d")) && section.contains(purpose.as_str()),
            "{value} for {purpose} in {section}"
        );
    }
    // Its outcome is the snapshot the attempt it opened started from, not
    // the live turn 2's.
    let (own, live): (String, String) = g
        .db()
        .query_row(
            "SELECT (SELECT state_hash FROM turns WHERE prev_turn_id = ?1 ORDER BY id LIMIT 1),
                    (SELECT state_hash FROM turns WHERE number = 2 AND superseded_at IS NULL)",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_ne!(own, live, "the correction changed the outcome");
    assert!(
        redone.contains(&format!("Snapshot at the end</th><td><code>{own}<")),
        "{redone}"
    );
    // The reports its outcome produced (kept with the turn-2 attempt it
    // opened, set aside unadjudicated with it) are on its page.
    let opened = attempt_id(&g, 2, 1);
    let reports = g.count(&format!(
        "SELECT count(*) FROM reports WHERE turn_id = {opened}"
    ));
    assert!(reports > 0, "the REDO'd attempt's reports are stored");
    assert!(
        redone.contains("Reports made from this attempt&#x27;s outcome, for turn 2")
            || redone.contains("Reports made from this attempt's outcome, for turn 2"),
        "{redone}"
    );
    // Its own reports too: the briefings, stored with turn 1 (issue #14).
    let own_reports = g.count(&format!(
        "SELECT count(*) FROM reports WHERE turn_id = {id}"
    ));
    assert_eq!(
        redone.matches("-report-").count() as i64,
        (reports + own_reports) * 2,
        "html and text link per report"
    );
    // The attempt links to the one that replaced it.
    assert!(redone.contains("href=\"turn-001.html\""), "{redone}");

    // ROLLBACK: the command as written, for both turns it set aside.
    for f in ["turn-002-attempt-2.html", "turn-003-attempt-1.html"] {
        let page = text(&first, f);
        assert!(page.contains("SET ASIDE"), "{f}");
        assert!(page.contains("<td>ROLLBACK</td>"), "{f}: {page}");
        assert!(page.contains("ROLLBACK 2"), "{f}: {page}");
        assert!(page.contains("cli:alice"), "{f}");
    }

    // The live pages link to the attempts they replaced and say so.
    let live1 = text(&first, "turn-001.html");
    assert!(
        live1.contains("href=\"turn-001-attempt-1.html\""),
        "{live1}"
    );
    assert!(live1.contains("set aside</b> by REDO"), "{live1}");
    assert!(
        !live1.contains("SET ASIDE"),
        "the live turn is not set aside"
    );
    let live2 = text(&first, "turn-002.html");
    assert!(
        live2.contains("href=\"turn-002-attempt-2.html\""),
        "{live2}"
    );
    assert!(live2.contains("never adjudicated"), "attempt 1: {live2}");

    // The index shows the turns played more than once.
    let index = text(&first, "index.html");
    assert!(
        index.contains("href=\"turn-001-attempt-1.html\""),
        "{index}"
    );
    assert!(
        index.contains("href=\"turn-003-attempt-1.html\""),
        "{index}"
    );
    assert!(index.contains("attempt 4") || index.contains("(never adjudicated)"));
}

#[test]
fn a_set_aside_attempts_side_page_shows_only_what_that_side_saw() {
    let g = umpired();
    let out = tempfile::tempdir().unwrap();
    let files = export(&g, out.path());
    let id = attempt_id(&g, 3, 1);
    // Side 0 is the Union, side 1 the Confederates (scenario order).
    for stem in ["003-attempt-1", "001-attempt-1"] {
        for (side, own, enemy) in [(0, "Union", "Confederate"), (1, "Confederate", "Union")] {
            let file = format!("turn-{stem}-side-{side}.html");
            let page = text(&files, &file);
            assert!(page.contains("SET ASIDE"), "{file}");
            assert!(page.contains(&format!("what the {own} side saw")), "{page}");
            for name in unit_names(own) {
                assert!(page.contains(&name), "own unit {name} missing from {file}");
            }
            for name in unit_names(enemy) {
                assert!(!page.contains(&name), "{file} names enemy unit {name}");
            }
            assert!(!page.contains("Castings"), "{file}");
            assert!(!page.contains("Morale"), "{file}");
            // Nothing of the umpire's: not his reason, not the truth.
            assert!(!page.contains("three castings straggled"), "{file}");
            assert!(!page.contains("True map"), "{file}");
        }
    }
    // What a set-aside attempt's side page says it saw is exactly that
    // attempt's own sighting record.
    for side in [0, 1] {
        let data: String = g
            .db()
            .query_row(
                "SELECT data_json FROM events WHERE turn_id = ?1 AND kind = 'sighting'
                 AND json_extract(data_json, '$.side') = ?2",
                [id, side],
                |r| r.get(0),
            )
            .unwrap();
        let seen = serde_json::from_str::<serde_json::Value>(&data).unwrap()["seen"]["seen"]
            .as_object()
            .map_or(0, |m| m.len());
        let page = text(&files, &format!("turn-003-attempt-1-side-{side}.html"));
        let section = page.split("Enemies in sight").nth(1).unwrap();
        let section = section.split("Enemies seen before").next().unwrap();
        assert_eq!(section.matches("<tr><td>").count(), seen, "{section}");
    }

    // Once the game is over, a set-aside attempt gets its fog lifted too,
    // still marked.
    adjutant(g.dir.path())
        .args(["game", "end", "mill", "--because", "the umpire called it"])
        .assert()
        .success();
    let out = tempfile::tempdir().unwrap();
    let files = export(&g, out.path());
    let fog = text(&files, "fog-003-attempt-1.html");
    assert!(fog.contains("SET ASIDE"), "{fog}");
    assert!(fog.contains("the fog lifted"), "{fog}");
    assert!(text(&files, "turn-003-attempt-1.html").contains("href=\"fog-003-attempt-1.html\""));
}
