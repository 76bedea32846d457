//! SFRM dispatches between players of one side, through the binary (issue
//! #7): written by mail, refused when a second is sent the same turn,
//! carried by a messenger over the turns, delivered unread, read on the
//! recipient's roll, and answered. Scenario: tests/fixtures/scenarios/
//! dispatches.toml (Blue's Colonel Hale and Green's General Reed, 22"
//! apart behind the Union lines; Grey the Confederates far off).
//!
//! The game's dice come from its random seed, so the read roll's turn is
//! not fixed: the test plays turns until General Reed (army, superior:
//! command ability 5, SFRM Table 2) has read it — at most 20 turns, which
//! fails by chance once in 6^20 games.

mod common;
use common::GameDir;

fn decoded(mails: &[String]) -> String {
    mails.join("\n").replace("=\r\n", "").replace("=3D", "=")
}

/// The latest stored report text of `player` (`None`: the umpire's), with
/// its line wrapping undone (runs of white space as one space).
fn report(g: &GameDir, player: Option<&str>) -> String {
    let db = g.db();
    let text: String = match player {
        Some(p) => db
            .query_row(
                "SELECT r.text FROM reports r JOIN players p ON p.id = r.player_id
                 WHERE p.name = ?1 ORDER BY r.id DESC LIMIT 1",
                [p],
                |r| r.get(0),
            )
            .unwrap(),
        None => db
            .query_row(
                "SELECT text FROM reports WHERE player_id IS NULL ORDER BY id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap(),
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every player sends `body` (Blue's and Green's own text first) and READY;
/// one daemon cycle plays the turn.
fn play(g: &GameDir, turn: u32, blue: &str, green: &str) {
    g.order_mail(
        &format!("blue{turn}"),
        "blue@example.test",
        "Blue",
        &format!("{blue}\n\nREADY"),
    );
    g.order_mail(
        &format!("green{turn}"),
        "green@example.test",
        "Green",
        &format!("{green}\n\nREADY"),
    );
    g.order_mail(&format!("grey{turn}"), "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), turn + 1, "turn {turn} was played");
}

fn status(g: &GameDir, id: i64) -> String {
    g.db()
        .query_row("SELECT status FROM dispatches WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap()
}

#[test]
fn a_dispatch_is_sent_carried_delivered_read_and_answered() {
    let g = GameDir::with_scenario("letters", "tests/fixtures/scenarios/dispatches.toml");

    // Turn 1: Blue writes to Reed, and tries a second dispatch in a later
    // mail of the same turn.
    g.order_mail(
        "blue1a",
        "blue@example.test",
        "Blue",
        "DISPATCH TO Reed: \"Enemy in force north of the Run. Send the reserve.\"",
    );
    g.run_once();
    let receipt = decoded(&g.outbox());
    assert!(
        receipt.contains("written at Colonel Hale's headquarters; a messenger will carry it"),
        "{receipt}"
    );
    assert_eq!(g.count("SELECT COUNT(*) FROM dispatches"), 1);
    let before = g.outbox().len();
    g.order_mail(
        "blue1b",
        "blue@example.test",
        "Blue",
        "DISPATCH TO Reed: \"Never mind.\"",
    );
    g.run_once();
    let second = decoded(&g.outbox()[before..]);
    assert!(
        second.contains("not sent: Colonel Hale has already written a dispatch for turn 1"),
        "{second}"
    );
    assert!(second.contains("one message a turn (SFRM)"), "{second}");
    assert_eq!(g.count("SELECT COUNT(*) FROM dispatches"), 1);
    // Nothing in that mail counted: it is refused, not accepted.
    let submission: String = g
        .db()
        .query_row(
            "SELECT status FROM submissions ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(submission, "refused");

    // Turn 1 played: the messenger leaves Hale and rides 12" toward Reed.
    play(&g, 1, "", "");
    assert_eq!(status(&g, 1), "in-transit");
    let green = report(&g, Some("Green"));
    assert!(green.contains("DISPATCHES None received."), "{green}");
    let umpire = report(&g, None);
    assert!(
        umpire.contains("#1 Colonel Hale to General Reed, written turn 1 [in-transit]"),
        "{umpire}"
    );
    assert!(umpire.contains("(24.0, 8.0) → (12.0, 8.0)"), "{umpire}");

    // Turn 2: 22" in all, less the 1" reach: he arrives.
    play(&g, 2, "", "");
    assert_eq!(status(&g, 1), "delivered");
    let green = report(&g, Some("Green"));
    assert!(
        green.contains("From Colonel Hale: arrived on turn 2")
            && green.contains("to General Reed (unread)"),
        "{green}"
    );
    assert!(!green.contains("Send the reserve"), "not read yet: {green}");

    // Read rolls once an SFRM turn of 30 minutes, 12 turns of 2.5 minutes
    // (docs/rulings-sfrm.md): on turn 14, then 26..., until the d6 comes
    // up 5 or less.
    let mut turn = 3;
    loop {
        play(&g, turn, "", "");
        let green = report(&g, Some("Green"));
        if green.contains("Send the reserve") {
            assert!(
                green.contains(&format!(
                    "read by General Reed on turn {turn}; written turn 1"
                )) && green.contains("received turn 2"),
                "{green}"
            );
            break;
        }
        assert!(turn < 2 + 12 * 6, "General Reed never read the dispatch");
        turn += 1;
    }
    let rolls = g
        .count("SELECT COUNT(*) FROM dice_rolls WHERE purpose LIKE '%SFRM read roll, dispatch 1%'");
    assert_eq!((turn - 2) % 12, 0, "read on an SFRM turn: {turn}");
    assert_eq!(
        rolls,
        i64::from((turn - 2) / 12),
        "one read roll an SFRM turn until read"
    );

    // Reed answers; the answer rides back and reaches Hale unread.
    turn += 1;
    play(
        &g,
        turn,
        "",
        "DISPATCH TO Hale: \"The reserve is on its way.\"",
    );
    turn += 1;
    play(&g, turn, "", "");
    assert_eq!(status(&g, 2), "delivered");
    let blue = report(&g, Some("Blue"));
    assert!(
        blue.contains("From General Reed: arrived on turn"),
        "{blue}"
    );
    assert!(blue.contains("to Colonel Hale (unread)"), "{blue}");
    // The archive keeps both routes.
    let route: String = g
        .db()
        .query_row(
            "SELECT carrier_json FROM dispatches WHERE id = 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(route.contains("\"route\""), "{route}");

    // Replay re-adjudicates every turn from the archive, dispatches
    // included, byte for byte.
    let out = common::adjutant(g.dir.path())
        .args(["replay", "letters"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    // The exported archive shows the first dispatch's route, turn by turn.
    let site = g.path("site");
    common::adjutant(g.dir.path())
        .args(["archive", "export", "letters", "--out"])
        .arg(&site)
        .assert()
        .success();
    let mut pages = String::new();
    for e in std::fs::read_dir(&site).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "html") {
            pages.push_str(&std::fs::read_to_string(&p).unwrap());
        }
    }
    let pages = pages.replace("&#39;", "'").replace("&amp;", "&");
    assert!(
        pages.contains("Colonel Hale (24.0, 8.0) → (12.0, 8.0)"),
        "the route is in the archive, its start given once"
    );
    assert!(
        !pages.contains("(24.0, 8.0) → (24.0, 8.0)"),
        "the start is not repeated"
    );
}
