//! A game ends at its scenario's last turn (issue #14, "from the first mail
//! to the last"), through the binary: the last turn's reports tell every
//! player and the umpire the battle is over with the result on the
//! scenario's objectives, ask for no more orders, and the game is
//! finished; a player who writes afterwards is told so. In an umpired game
//! the end comes with the umpire's RELEASE of the last turn.

mod common;

use common::{GameDir, adjutant, repo};

/// The training scenario cut to `last` turns, as a file in `dir`.
fn short_training(dir: &std::path::Path, last: u32) -> std::path::PathBuf {
    let text = std::fs::read_to_string(repo("scenarios/training.toml")).unwrap();
    assert!(text.contains("last_turn = 24"));
    let text = text.replace("last_turn = 24", &format!("last_turn = {last}"));
    let path = dir.join("short.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn ready_all(g: &GameDir, turn: u32) {
    g.order_mail(
        &format!("b{turn}"),
        "blue@example.test",
        "Blue",
        "10th Ohio: hold\nREADY",
    );
    g.order_mail(
        &format!("g{turn}"),
        "grey@example.test",
        "Grey",
        "5th Tennessee: hold\nREADY",
    );
    g.run_once();
}

fn status(g: &GameDir) -> String {
    g.db()
        .query_row("SELECT status FROM games", [], |r| r.get(0))
        .unwrap()
}

fn reports_of_turn(g: &GameDir, turn: u32) -> Vec<String> {
    g.outbox_all()
        .into_iter()
        .filter(|m| m.contains(&format!("Turn {turn} results")))
        .collect()
}

/// A mail's text part, quoted-printable soft breaks undone.
fn text(m: &str) -> String {
    m.replace("=\r\n", "").replace("=3D", "=")
}

#[test]
fn the_last_turn_ends_the_game_with_the_result_on_objectives() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = short_training(tmp.path(), 2);
    let g = GameDir::with_scenario("short", scenario.to_str().unwrap());
    ready_all(&g, 1);
    assert_eq!(status(&g), "active");
    let first = reports_of_turn(&g, 1);
    assert!(!first.is_empty());
    for m in &first {
        assert!(m.contains("orders now for turn 2"), "{m}");
    }

    ready_all(&g, 2);
    assert_eq!(status(&g), "finished");
    let last = reports_of_turn(&g, 2);
    assert_eq!(last.len(), 2, "one report per player");
    for m in &last {
        let m = text(m);
        assert!(m.contains("Turn 2 results: the battle is over"), "{m}");
        assert!(m.contains("THE BATTLE IS OVER"), "{m}");
        // Every objective is told, with who held it and the points.
        assert!(m.contains("Hold the crossroads (Union, 10 points"), "{m}");
        assert!(m.contains("Keep the ford (Confederate, 5 points"), "{m}");
        assert!(m.contains("on objectives (Union "), "{m}");
        assert!(!m.contains("orders now for turn 3"), "{m}");
        assert!(!m.contains("ORDERS -- edit below"), "{m}");
        assert!(!m.contains("Next deadline"), "{m}");
    }
    // The maps of the last reports (two players and the umpire) are titled
    // as the end, not with orders for a turn that will not come.
    let db = g.db();
    let ids: Vec<i64> = db
        .prepare("SELECT id FROM reports ORDER BY id DESC LIMIT 3")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for id in ids {
        let html = adjutant::store::report_html(&db, id).unwrap().unwrap();
        assert!(html.contains("turn 2 results, the battle is over"), "{id}");
        assert!(!html.contains("orders for turn 3"), "{id}");
    }
    let audit: i64 = g.count("SELECT count(*) FROM audit_log WHERE action = 'game-ended'");
    assert_eq!(audit, 1);

    // Nothing more is processed, and a player who writes is told why.
    let before = g.outbox_all().len();
    g.order_mail(
        "late",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to the ford\nREADY",
    );
    g.run_once();
    let answers: Vec<String> = g.outbox_all().split_off(before);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert!(text(&answers[0]).contains("has ended"), "{}", answers[0]);
    assert_eq!(
        g.count("SELECT count(*) FROM turns WHERE status = 'released'"),
        2
    );
    let show = adjutant(g.dir.path())
        .args(["game", "show", "short"])
        .output()
        .unwrap();
    let show = String::from_utf8_lossy(&show.stdout);
    assert!(show.contains("finished") || show.contains("over"), "{show}");
}

#[test]
fn an_umpired_game_ends_when_the_umpire_releases_its_last_turn() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = short_training(tmp.path(), 1);
    let g = GameDir::with_scenario("ump", scenario.to_str().unwrap());
    let set = adjutant(g.dir.path())
        .args(["game", "umpire", "ump", "--address", "umpire@example.test"])
        .output()
        .unwrap();
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    ready_all(&g, 1);
    // Held for review: not over until the umpire says so.
    assert_eq!(status(&g), "active");
    let umpire = g
        .outbox_all()
        .into_iter()
        .find(|m| m.contains("umpire's report"))
        .expect("the umpire's report of the held turn");
    assert!(text(&umpire).contains("THE BATTLE IS OVER"), "{umpire}");
    let out = adjutant(g.dir.path())
        .args(["umpire", "ump", "RELEASE"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("the game is over"), "{said}");
    assert_eq!(status(&g), "finished");
    for m in reports_of_turn(&g, 1)
        .iter()
        .filter(|m| !m.contains("umpire's report"))
    {
        assert!(text(m).contains("THE BATTLE IS OVER"), "{m}");
    }
}
