//! Every result can be checked (issue #14, section 3), through the binary:
//! a fire's working — base effectiveness at the range, its modifiers, the
//! divisor, the dice, the casualties, the save and the morale loss — is in
//! the umpire's report in full; the firing player reads the attack's
//! working, the player fired on reads his save and loss, and neither reads
//! the other's dice. The dice stored with the event add up, and the
//! casualties and loss follow from them as APSoF V.B.1 and V.G say.

mod common;

use common::GameDir;

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

#[test]
fn a_fire_is_told_with_its_working_to_whom_it_belongs() {
    let g = GameDir::with_scenario("volley", "tests/fixtures/scenarios/volley.toml");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: fire at A.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");

    let ev: String = g
        .db()
        .query_row(
            "SELECT data_json FROM events WHERE kind = 'fired' ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let ev: serde_json::Value = serde_json::from_str(&ev).unwrap();
    let n = |k: &str| ev[k].as_u64().unwrap();
    let dice: Vec<u64> = ev["attack_dice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    let save: Vec<u64> = ev["save_dice"]
        .as_array()
        .map(|a| a.iter().map(|d| d.as_u64().unwrap()).collect())
        .unwrap_or_default();
    // The stored working adds up (APSoF V.B.1.iii-vi, V.G).
    assert!(!dice.is_empty());
    assert_eq!(dice.iter().sum::<u64>(), n("dice_total"));
    assert!(n("casualties") <= n("dice_total") / n("effectiveness"));
    assert_eq!(save.iter().sum::<u64>(), n("save_total"));
    let per = if ev["perilous"].as_bool().unwrap() {
        10
    } else {
        5
    };
    assert_eq!(
        n("morale_lost"),
        (per * n("casualties")).saturating_sub(n("save_total"))
    );

    let words = |d: &[u64]| d.iter().map(u64::to_string).collect::<Vec<_>>().join("+");
    let band = ev["band"].as_str().unwrap();
    assert!(!band.is_empty(), "the range band is kept");
    let attack = format!(
        "Working: base effectiveness {} at {}\" ({band}) (APSoF XIII, V.E.1);",
        n("base_effectiveness"),
        n("range")
    );
    let rolled = format!("dice {} = {};", words(&dice), n("dice_total"));
    let divisor = format!("divisor {};", n("effectiveness"));
    let saved = format!("Save: save dice {} = {};", words(&save), n("save_total"));

    let umpire = report(&g, None);
    let blue = report(&g, Some("Blue"));
    let grey = report(&g, Some("Grey"));
    // The umpire reads it all.
    for part in [&attack, &rolled, &divisor] {
        assert!(umpire.contains(part.as_str()), "{part} in {umpire}");
    }
    // The firer reads his attack, not the enemy's save.
    for part in [&attack, &rolled, &divisor] {
        assert!(blue.contains(part.as_str()), "{part} in {blue}");
    }
    assert!(!blue.contains("Save: save dice"), "{blue}");
    // A perilous fire names its clause of V.G: the 3rd was never under fire.
    if ev["perilous"].as_bool().unwrap() {
        assert!(
            blue.contains(
                "defender in perilous situation -2 (V.G.1.ii first fire at troops never under fire"
            ),
            "{blue}"
        );
    }
    // The side fired on reads its save and loss, not the firer's dice.
    assert!(!grey.contains("Working:"), "{grey}");
    assert!(!grey.contains(&rolled), "{grey}");
    if n("casualties") > 0 {
        assert!(umpire.contains(&saved), "{saved} in {umpire}");
        assert!(grey.contains(&saved), "{saved} in {grey}");
        assert!(
            grey.contains(&format!(
                "morale loss {per} x {} - {} = {}",
                n("casualties"),
                n("save_total"),
                n("morale_lost")
            )),
            "{grey}"
        );
    } else {
        assert!(!grey.contains("Save:"), "{grey}");
    }
}
