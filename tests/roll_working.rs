//! Every result can be checked (issue #14, section 3), through the binary
//! with the umpire's dice: contact (APSoF VI.D.3), rally (VI.E), panic
//! (VI.D.2) and double quick (VI.D.4) are told with their working — every
//! die, each modifier and its section — in the umpire's report and the
//! archive's true view; a player reads the working of his own units' rolls
//! and, of a contact with the enemy, only his own side's dice.

mod common;

use common::GameDir;

const FIXTURE: &str = "tests/fixtures/scenarios/morale.toml";

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The latest stored report of `player` (`None`: the umpire's).
fn report(g: &GameDir, player: Option<&str>) -> String {
    let text: String = match player {
        Some(p) => g.db().query_row(
            "SELECT r.text FROM reports r JOIN players p ON p.id = r.player_id
             WHERE p.name = ?1 ORDER BY r.id DESC LIMIT 1",
            [p],
            |r| r.get(0),
        ),
        None => g.db().query_row(
            "SELECT text FROM reports WHERE player_id IS NULL ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        ),
    }
    .unwrap();
    flat(&text)
}

/// The events of `kind` of the latest turn, as JSON.
fn events(g: &GameDir, kind: &str) -> Vec<serde_json::Value> {
    let db = g.db();
    let mut q = db
        .prepare("SELECT data_json FROM events WHERE kind = ?1 ORDER BY seq")
        .unwrap();
    q.query_map([kind], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|j| serde_json::from_str(&j.unwrap()).unwrap())
        .collect()
}

fn dice(v: &serde_json::Value) -> Vec<u64> {
    v.as_array()
        .map(|a| a.iter().map(|d| d.as_u64().unwrap()).collect())
        .unwrap_or_default()
}

fn words(d: &[u64]) -> String {
    d.iter().map(u64::to_string).collect::<Vec<_>>().join("+")
}

#[test]
fn morale_rolls_are_told_with_their_working_to_whom_they_belong() {
    let g = GameDir::with_scenario("rolls", FIXTURE);
    g.umpire("DICE MODE UMPIRE");
    // A shaken regiment to rally, a broken one whose friends see it go.
    g.umpire("SET 10th Ohio morale 4 BECAUSE \"shaken on the march\"");
    g.umpire("SET 5th Tennessee morale 0 BECAUSE \"broke in the woods\"");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: hold fire.\n\n12th Ohio: double quick to (17, 19).\n\n\
         14th Ohio: hold fire.\n\n\
         Battery A: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\n\
         7th Tennessee: hold fire.\n\nRidley's Battery: hold fire.\n\nREADY",
    );
    g.run_once();
    // Answer every request for dice from a fixed cycle until the turn runs.
    let cycle = [3u8, 5, 2, 6, 4, 1];
    let mut next = cycle.iter().copied().cycle();
    let mut given: Vec<u8> = Vec::new();
    for _ in 0..50 {
        let wanted: Option<String> = g
            .db()
            .query_row(
                "SELECT wanted_json FROM dice_requests WHERE answered_at IS NULL",
                [],
                |r| r.get(0),
            )
            .ok();
        let Some(wanted) = wanted else { break };
        let n = serde_json::from_str::<Vec<serde_json::Value>>(&wanted)
            .unwrap()
            .len();
        let values: Vec<u8> = (0..n).map(|_| next.next().unwrap()).collect();
        given.extend(&values);
        let cmd = format!(
            "DICE {}",
            values
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        );
        g.umpire(&cmd);
    }
    assert!(!given.is_empty(), "the turn asked for the umpire's dice");
    if g.open_turn() != 2 {
        // An umpired game holds the turn; this one is not, but release it
        // if the plane held it.
        g.umpire("RELEASE");
    }
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let umpire_report = report(&g, None);
    let blue = report(&g, Some("Blue"));
    let grey = report(&g, Some("Grey"));

    // VI.D.3: the contact's dice, both sides, add up; the umpire reads it
    // all, each player only his own side's dice.
    let contact = events(&g, "contact");
    assert!(!contact.is_empty(), "the 10th Ohio and 3rd Tennessee touch");
    let c = &contact[0];
    let (da, db) = (dice(&c["dice_a"]), dice(&c["dice_b"]));
    assert!(!da.is_empty() && !db.is_empty(), "{c}");
    assert_eq!(da.iter().sum::<u64>(), c["total_a"].as_u64().unwrap());
    assert_eq!(db.iter().sum::<u64>(), c["total_b"].as_u64().unwrap());
    let side_a = format!(
        "{} {} castings engaged, dice {} = {}",
        c["a"]["name"].as_str().unwrap(),
        c["castings_a"],
        words(&da),
        c["total_a"]
    );
    let side_b = format!(
        "{} {} castings engaged, dice {} = {}",
        c["b"]["name"].as_str().unwrap(),
        c["castings_b"],
        words(&db),
        c["total_b"]
    );
    let diff = c["total_a"]
        .as_u64()
        .unwrap()
        .abs_diff(c["total_b"].as_u64().unwrap());
    let lost = format!(
        "difference {diff} / 3 = {} level(s) lost by the lower (APSoF VI.D.3.i-iv)",
        c["morale_lost"]
    );
    for part in [&side_a, &side_b, &lost] {
        assert!(
            umpire_report.contains(part.as_str()),
            "{part} in {umpire_report}"
        );
    }
    let (ours, theirs) = if c["a"]["name"] == "10th Ohio" {
        (&side_a, &side_b)
    } else {
        (&side_b, &side_a)
    };
    assert!(blue.contains(ours.as_str()), "{ours} in {blue}");
    assert!(!blue.contains(theirs.as_str()), "{theirs} in {blue}");
    assert!(grey.contains(theirs.as_str()), "{theirs} in {grey}");
    assert!(!grey.contains(ours.as_str()), "{ours} in {grey}");

    // VI.E: the 10th Ohio's rally, die and modifiers with their sections.
    let rally = events(&g, "rally-attempt");
    let r = rally
        .iter()
        .find(|e| e["unit"]["name"] == "10th Ohio")
        .unwrap_or_else(|| panic!("the 10th rallies: {rally:?}"));
    let working = format!(
        "Working: die {} {:+} base morale (VI.E.2.i) {:+} officer",
        r["die"],
        r["base_modifier"].as_i64().unwrap_or(0),
        r["officer_modifier"].as_i64().unwrap_or(0)
    );
    assert!(
        umpire_report.contains(&working),
        "{working} in {umpire_report}"
    );
    assert!(blue.contains(&working), "{working} in {blue}");
    assert!(
        !grey.contains(&working),
        "Grey reads no Union rally die: {grey}"
    );

    // VI.D.2: the broken 5th Tennessee's panic dice and each friend's
    // saving dice.
    let panic = events(&g, "panic");
    assert!(!panic.is_empty(), "friends see the 5th Tennessee break");
    for p in &panic {
        let pd = dice(&p["panic_dice"]);
        let sd = dice(&p["saving_dice"]);
        assert_eq!(pd.iter().sum::<u64>() / 7, p["panic"].as_u64().unwrap());
        assert_eq!(sd.iter().sum::<u64>() / 10, p["saving"].as_u64().unwrap());
        let want = format!(
            "Working: panic dice {} = {}, / 7 = {} (VI.D.2.iv)",
            words(&pd),
            pd.iter().sum::<u64>(),
            p["panic"]
        );
        assert!(umpire_report.contains(&want), "{want} in {umpire_report}");
        assert!(grey.contains(&want), "{want} in {grey}");
        assert!(!blue.contains(&want), "{want} in {blue}");
    }

    // VI.D.4: the double-quick die and the table's column.
    let dq = events(&g, "double-quick");
    let d = dq
        .iter()
        .find(|e| e["unit"]["name"] == "12th Ohio")
        .unwrap_or_else(|| panic!("the 12th doubles: {dq:?}"));
    let want = format!(
        "(rolled {} in the base morale {} column of the table, loses {} morale, APSoF VI.D.4)",
        d["roll"], d["base_morale"], d["morale_lost"]
    );
    assert!(umpire_report.contains(&want), "{want} in {umpire_report}");
    assert!(blue.contains(&want), "{want} in {blue}");
    assert_ne!(d["from"], d["to"], "the 12th moved at the double: {d}");

    // Every die in the events is one the umpire gave (source `umpire`).
    assert!(
        g.count("SELECT count(*) FROM dice_rolls WHERE source <> 'umpire'") == 0,
        "only the umpire's dice were used"
    );

    // The archive's true view tells the same working.
    let site = g.path("site");
    common::adjutant(g.dir.path())
        .args(["archive", "export", "rolls", "--out"])
        .arg(&site)
        .assert()
        .success();
    let mut all = String::new();
    for entry in walk(&site) {
        if entry.extension().is_some_and(|e| e == "html") {
            all.push_str(&std::fs::read_to_string(&entry).unwrap());
        }
    }
    let all = flat(&all);
    for part in [&side_a, &side_b] {
        assert!(all.contains(part.as_str()), "{part} in the archive");
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
