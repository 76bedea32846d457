//! One player in two games from one address (issue #17), through the
//! binary: a mail goes to the game its reply token names, else the game its
//! Subject names as a whole word, else the game whose password it carries;
//! when nothing says which, the player is asked.

mod common;

use common::{GameDir, adjutant, repo};

/// Creates another training game `name` in the same directory; returns its
/// players' secrets (name → secret).
fn create_game(g: &GameDir, name: &str) -> Vec<(String, String)> {
    let out = adjutant(g.dir.path())
        .args(["game", "create", "--name", name, "--json", "--scenario"])
        .arg(repo("scenarios/training.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["secret"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn secret_of(secrets: &[(String, String)], player: &str) -> String {
    secrets.iter().find(|(n, _)| n == player).unwrap().1.clone()
}

fn mail(g: &GameDir, file: &str, to: &str, subject: &str, body: &str) {
    let raw = format!(
        "From: Blue <blue@example.test>\r\nTo: {to}\r\nSubject: {subject}\r\n\
         Message-ID: <{file}@example.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    );
    g.drop_mail(file, raw.as_bytes());
}

/// The game each accepted mail's submission went to, in arrival order.
fn submission_games(g: &GameDir) -> Vec<String> {
    let db = g.db();
    let mut s = db
        .prepare(
            "SELECT g.name FROM submissions s JOIN games g ON g.id = s.game_id
             ORDER BY s.inbound_mail_id",
        )
        .unwrap();
    s.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_player_in_two_games_is_routed_by_token_subject_then_password() {
    let g = GameDir::training("brawner");
    let second = create_game(&g, "brawner2");
    let pw2 = secret_of(&second, "Blue");
    let pw1 = g.secret("Blue").to_string();
    g.run_once(); // makes the reply-token key
    let key = g.key();
    let token2 = adjutant::mail::token::make_token(&key, "brawner2", "Blue", 1).unwrap();

    // The Subject names the second game; its password.
    mail(
        &g,
        "m1",
        "adjutant@example.test",
        "Orders for brawner2",
        &format!("PASSWORD {pw2}"),
    );
    g.run_once();
    mail(
        &g,
        "m2",
        "adjutant@example.test",
        "Re: [brawner2] turn 1 orders",
        &format!("PASSWORD {pw2}"),
    );
    g.run_once();
    // No game in the Subject: the password says which.
    mail(
        &g,
        "m3",
        "adjutant@example.test",
        "orders",
        &format!("PASSWORD {pw2}"),
    );
    g.run_once();
    mail(
        &g,
        "m4",
        "adjutant@example.test",
        "orders",
        &format!("PASSWORD {pw1}"),
    );
    g.run_once();
    // A reply to the second game's mail: the token says which.
    mail(
        &g,
        "m5",
        &format!("adjutant+{token2}@example.test"),
        "Re: your report",
        "Hold.",
    );
    g.run_once();
    let statuses = g.statuses();
    assert!(
        statuses.iter().all(|(s, _)| s == "accepted"),
        "{statuses:#?}"
    );
    assert_eq!(
        submission_games(&g),
        ["brawner2", "brawner2", "brawner2", "brawner", "brawner2"]
    );
}

#[test]
fn a_mail_that_names_no_game_is_answered_by_asking_which() {
    let g = GameDir::training("brawner");
    create_game(&g, "brawner2");
    mail(&g, "m1", "adjutant@example.test", "orders", "Hold.");
    g.run_once();
    let statuses = g.statuses();
    assert_eq!(statuses.len(), 1);
    assert_eq!(statuses[0].0, "refused", "{statuses:?}");
    assert!(statuses[0].1.contains("brawner, brawner2"), "{statuses:?}");
    assert_eq!(g.count("SELECT count(*) FROM submissions"), 0);
    let asked: Vec<String> = g
        .outbox()
        .into_iter()
        .filter(|m| m.contains("Which game?"))
        .collect();
    assert_eq!(asked.len(), 1, "{:#?}", g.outbox());
    assert!(asked[0].contains("To: blue@example.test"), "{}", asked[0]);
    assert!(asked[0].contains("Orders for brawner"), "{}", asked[0]);
}

#[test]
fn a_game_name_in_the_subject_is_matched_as_a_whole_word() {
    let g = GameDir::training("turns1");
    let tenth = create_game(&g, "turns10");
    let pw10 = secret_of(&tenth, "Blue");
    // `turns1` is a prefix of `turns10` but not a word of the Subject.
    mail(
        &g,
        "m1",
        "adjutant@example.test",
        "Orders for turns10",
        &format!("PASSWORD {pw10}"),
    );
    g.run_once();
    let statuses = g.statuses();
    assert_eq!(statuses[0].0, "accepted", "{statuses:?}");
    assert_eq!(submission_games(&g), ["turns10"]);
}
