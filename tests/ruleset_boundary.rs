//! The ruleset boundary through the binary (issue #19): a scenario names
//! its ruleset, `scenario check` picks the checker by it and reports an
//! SFRM battle's Table 9 costs, a game keeps its ruleset, an SFRM game is
//! created for mail, and a ruleset the engine does not know is refused
//! with a clear error, never misread.

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
    assert!(!text.contains("cannot be played by mail yet"), "{text}");
    assert!(
        text.contains("adjutant calc sfrm-combat | sfrm-move"),
        "{text}"
    );

    let out = adjutant(dir.path())
        .args(["scenario", "check", "--json"])
        .arg(repo("scenarios/first-bull-run.toml"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ruleset"], "sfrm");
    assert_eq!(v["by_mail"], true);
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
fn an_sfrm_game_is_created_for_mail_and_keeps_its_ruleset() {
    let g = GameDir::with_scenario("bull-run", "scenarios/first-bull-run.toml");
    let ruleset: String = g
        .db()
        .query_row("SELECT ruleset FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ruleset, "sfrm");
    assert_eq!(g.secrets.len(), 2);
    // Its state is SFRM's own (the battle and each side's letters).
    let state: String = g
        .db()
        .query_row("SELECT state_json FROM turns WHERE number = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&state).unwrap();
    assert!(v["battle"]["units"].is_array(), "{state}");
}

#[test]
fn a_game_keeps_its_ruleset_and_another_rulesets_game_is_refused() {
    let g = GameDir::training("mill");
    let ruleset: String = g
        .db()
        .query_row("SELECT ruleset FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ruleset, "iron-brigade");
    // A stored game of a ruleset this engine does not know (one from a
    // newer Adjutant): the turn engine and replay refuse it rather than
    // misread its state.
    g.db()
        .execute("UPDATE games SET ruleset = 'glory-days'", [])
        .unwrap();
    let out = adjutant(g.dir.path())
        .args(["game", "process", "mill"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown ruleset `glory-days`"), "{err}");
    let out = adjutant(g.dir.path())
        .args(["replay", "mill"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown ruleset `glory-days`"), "{err}");
    // Nor are orders read for it by Iron Brigade's order language.
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to the crossroads in line.",
    );
    g.run_once();
    let statuses = g.statuses();
    assert_eq!(statuses.len(), 1, "{statuses:?}");
    assert_eq!(statuses[0].0, "refused", "{statuses:?}");
    assert!(
        statuses[0].1.contains("unknown ruleset `glory-days`"),
        "{statuses:?}"
    );
    assert_eq!(g.count("SELECT count(*) FROM submissions"), 0);
}

fn calc(args: &[&str]) -> (bool, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = adjutant(dir.path())
        .arg("calc")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn calc_sfrm_combat_prints_tables_6_and_7_and_the_division_by_6() {
    let (ok, out, err) = calc(&[
        "sfrm-combat",
        "--side",
        "confederate",
        "--elements",
        "6",
        "--weapon",
        "rifles",
        "--range",
        "2",
        "--modifier",
        "target-in-cover",
        "--modifier",
        "firer-fatigued=2",
        "--multiples",
        "1",
        "--die",
        "3",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("+6  6 elements x 1 (rifled muskets at 2\") (SFRM Table 6)"),
        "{out}"
    );
    assert!(
        out.contains("+1  Confederate infantry or cavalry (SFRM Table 7)"),
        "{out}"
    );
    assert!(
        out.contains("-2  firing unit fatigued (per full level) x 2 (SFRM Table 7)"),
        "{out}"
    );
    assert!(
        out.contains("10 / 6 = 1 definite casualty, remainder 4"),
        "{out}"
    );
    assert!(out.contains("Result: 2 casualties"), "{out}");
    // Out of Table 6's range: a clear answer.
    let (ok, _, err) = calc(&[
        "sfrm-combat",
        "--side",
        "union",
        "--elements",
        "3",
        "--weapon",
        "rifles",
        "--range",
        "3",
    ]);
    assert!(!ok);
    assert!(err.contains("out of range"), "{err}");
}

#[test]
fn calc_sfrm_move_command_green_and_cost() {
    let (ok, out, err) = calc(&[
        "sfrm-move",
        "--arm",
        "infantry",
        "--formation",
        "march-column",
        "--road",
        "--weather",
        "rain",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("SFRM Table 4, Foot (march column or limbered, on road): 24\""),
        "{out}"
    );
    assert!(out.contains("x 1/2 = 12\""), "{out}");
    let (ok, out, _) = calc(&["sfrm-move", "--arm", "infantry", "--rough", "3"]);
    assert!(ok);
    assert!(
        out.contains("3\" costs 6\"; 2\" of allowance left"),
        "{out}"
    );

    let (ok, out, err) = calc(&[
        "sfrm-command",
        "--rank",
        "division",
        "--quality",
        "regular",
        "--die",
        "1",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("SFRM Table 2: command range"), "{out}");
    assert!(out.contains("he commands this phase"), "{out}");

    let (ok, out, _) = calc(&["sfrm-green", "--side", "union", "--dice", "3,4"]);
    assert!(ok);
    assert!(
        out.contains("3 + 4 = 7: the unit does not fire, routs and remains green"),
        "{out}"
    );
    let (ok, out, _) = calc(&["sfrm-green", "--side", "confederate", "--dice", "6,4"]);
    assert!(ok);
    assert!(out.contains("the unit becomes superior"), "{out}");

    let (ok, out, _) = calc(&[
        "sfrm-cost",
        "--side",
        "union",
        "--arm",
        "infantry",
        "--weapon",
        "rifles",
        "--quality",
        "green",
        "--elements",
        "8",
    ]);
    assert!(ok);
    assert!(
        out.contains(
            "SFRM Table 9: Union green infantry with rifled muskets per element: 8 x 8 = 64 points."
        ),
        "{out}"
    );
    let (ok, out, _) = calc(&[
        "sfrm-cost",
        "--side",
        "confederate",
        "--arm",
        "general",
        "--rank",
        "army",
        "--quality",
        "superior",
    ]);
    assert!(ok);
    assert!(out.contains("90 x 3 = 270 points"), "{out}");
}

/// SFRM Table 8 and "Time, Weather & Daylight" through the binary: every
/// cell of the table by season, the weather's effects, daytime and the
/// light of a turn (dawn and dusk at -1 then -2, night without combat).
#[test]
fn calc_sfrm_weather_table_8_and_daylight() {
    // Table 8 as printed: die 1-6 by Spring, Summer, Fall, Winter.
    let table: [[&str; 4]; 6] = [
        ["clear", "clear", "clear", "clear"],
        ["clear", "clear", "clear", "clear"],
        ["clear", "clear", "clear", "cold"],
        ["cold", "clear", "hot", "cold"],
        ["rain", "hot", "cold", "rain"],
        ["rain", "rain", "rain", "snow"],
    ];
    for (row, cells) in table.iter().enumerate() {
        for (col, season) in ["spring", "summer", "fall", "winter"].iter().enumerate() {
            let die = (row + 1).to_string();
            let (ok, out, err) = calc(&["sfrm-weather", "--season", season, "--die", &die]);
            assert!(ok, "{err}");
            let want = format!("SFRM Table 8 ({season}): die {die}: {}.", cells[col]);
            assert!(out.contains(&want), "{want}\n{out}");
        }
    }
    let (ok, out, err) = calc(&["sfrm-weather", "--month", "7", "--die", "6"]);
    assert!(ok, "{err}");
    assert!(out.contains("(summer, month 7): die 6: rain"), "{out}");
    assert!(
        out.contains("Movement x 1/2, sight x 1/2, combat modifier -1"),
        "{out}"
    );
    let (ok, out, _) = calc(&["sfrm-weather", "--season", "winter", "--die", "6"]);
    assert!(ok);
    assert!(
        out.contains("Movement x 1/4, sight x 1/4, combat modifier -2"),
        "{out}"
    );
    // Summer daytime 5am-7pm; dusk 7-8pm: -1 the turn next to daytime, -2
    // the one beyond; then night.
    for (time, want) in [
        ("12:00", "daytime: no light modifier"),
        ("19:00", "dusk: fought in at a combat modifier of -1"),
        ("19:30", "dusk: fought in at a combat modifier of -2"),
        ("4:00", "dawn: fought in at a combat modifier of -2"),
        ("4:30", "dawn: fought in at a combat modifier of -1"),
        ("21:00", "night: no combat, movement halved"),
    ] {
        let (ok, out, err) = calc(&[
            "sfrm-weather",
            "--season",
            "summer",
            "--die",
            "1",
            "--time",
            time,
        ]);
        assert!(ok, "{err}");
        assert!(
            out.contains(&format!("A turn starting at {time}: {want}")),
            "{time}: {out}"
        );
    }
    assert!(
        calc(&["sfrm-weather", "--season", "winter", "--die", "1"])
            .1
            .contains("Daytime in winter is 7:00 to 17:00")
    );
    // Bad input is a usage error that says what to give.
    let (ok, _, err) = calc(&["sfrm-weather", "--season", "sumer", "--die", "1"]);
    assert!(!ok);
    assert!(err.contains("did you mean `summer`?"), "{err}");
    let (ok, _, err) = calc(&["sfrm-weather", "--month", "13"]);
    assert!(!ok);
    assert!(err.contains("give 1 to 12"), "{err}");
    let (ok, _, err) = calc(&["sfrm-weather", "--season", "fall", "--die", "7"]);
    assert!(!ok);
    assert!(err.contains("must be 1 to 6"), "{err}");
    let (ok, _, err) = calc(&["sfrm-weather", "--month", "7", "--season", "winter"]);
    assert!(!ok);
    assert!(err.contains("is not in that season"), "{err}");
    let (ok, _, err) = calc(&[
        "sfrm-weather",
        "--season",
        "fall",
        "--die",
        "2",
        "--time",
        "25:00",
    ]);
    assert!(!ok);
    assert!(err.contains("write it as h:mm"), "{err}");
}
