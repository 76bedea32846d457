//! The ruleset boundary through the binary (issue #19): a scenario names
//! its ruleset, `scenario check` picks the checker by it and reports an
//! SFRM battle's Table 9 costs, a game keeps its ruleset, and a ruleset
//! not yet playable by mail is refused with a clear error, never misread.

mod common;
use common::{GameDir, adjutant, repo};

#[test]
fn scenario_check_reports_each_sides_sfrm_army_cost() {
    let dir = tempfile::tempdir().unwrap();
    let out = adjutant(dir.path())
        .args(["scenario", "check"])
        .arg(repo("scenarios/first-bull-run.toml"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("`First Bull Run` is a valid SFRM scenario"),
        "{text}"
    );
    assert!(text.contains("Union: 17 units"), "{text}");
    assert!(text.contains("army cost"), "{text}");
    assert!(text.contains("(SFRM Table 9)"), "{text}");
    assert!(text.contains("cannot be played by mail yet"), "{text}");

    let out = adjutant(dir.path())
        .args(["scenario", "check", "--json"])
        .arg(repo("scenarios/first-bull-run.toml"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ruleset"], "sfrm");
    assert_eq!(v["by_mail"], false);
    assert_eq!(v["turns"], 17);
    let sides = v["sides"].as_array().unwrap();
    assert_eq!(sides.len(), 2);
    for s in sides {
        assert!(s["cost"].as_u64().unwrap() > 0, "{s}");
        assert!(s["unpriced"].as_array().unwrap().is_empty(), "{s}");
    }
}

#[test]
fn scenario_check_of_an_unknown_ruleset_lists_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.toml");
    std::fs::write(
        &file,
        "[scenario]\nruleset = \"glory-days\"\nname = \"x\"\n",
    )
    .unwrap();
    let out = adjutant(dir.path())
        .args(["scenario", "check"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown ruleset `glory-days`"), "{err}");
    assert!(
        err.contains("`iron-brigade`") && err.contains("`sfrm`"),
        "{err}"
    );
}

#[test]
fn an_sfrm_scenario_bad_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo("scenarios/first-bull-run.toml"))
        .unwrap()
        .replacen("weapon = \"rifles\"", "weapon = \"rifle\"", 1);
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, &text).unwrap();
    let line = text
        .lines()
        .position(|l| l == "weapon = \"rifle\"")
        .unwrap()
        + 1;
    let out = adjutant(dir.path())
        .args(["scenario", "check"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("bad.toml:{line}: units[0].weapon")),
        "{err}"
    );
    assert!(err.contains("did you mean `rifles`?"), "{err}");
}

#[test]
fn an_sfrm_game_cannot_be_created_for_mail_yet() {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path()).arg("init").assert().success();
    let out = adjutant(dir.path())
        .args(["game", "create", "--name", "bull-run", "--scenario"])
        .arg(repo("scenarios/first-bull-run.toml"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot yet play by mail"), "{err}");
    assert!(err.contains("scenario check"), "{err}");
}

#[test]
fn a_game_keeps_its_ruleset_and_another_rulesets_game_is_refused() {
    let g = GameDir::training("mill");
    let ruleset: String = g
        .db()
        .query_row("SELECT ruleset FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ruleset, "iron-brigade");
    // A stored game of a ruleset this engine does not play by mail: the
    // turn engine and replay refuse it rather than misread its state.
    g.db()
        .execute("UPDATE games SET ruleset = 'sfrm'", [])
        .unwrap();
    let out = adjutant(g.dir.path())
        .args(["game", "process", "mill"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot yet play by mail"), "{err}");
    let out = adjutant(g.dir.path())
        .args(["replay", "mill"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot yet play by mail"), "{err}");
}
