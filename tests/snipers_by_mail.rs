//! APSoF VII.H snipers shooting at officers, played through the binary on
//! the umpire's dice (issue #16). The fixture
//! `tests/fixtures/scenarios/snipers.toml`: Berdan's Sharpshooters (2
//! castings, the sniper chart) in line facing north with Colonel Pryor,
//! mounted, 6" in front of them and no enemy regiment in their range. They
//! fire at will at the officer: a 6 on their die hits him; his
//! replacement's delay die (1) and quality die (2) follow (V.H). Grey is
//! told his colonel was hit by sharpshooters, not whose; Blue that his
//! men hit an enemy officer.

mod common;

use common::GameDir;

const FIXTURE: &str = "tests/fixtures/scenarios/snipers.toml";

fn flat(m: &str) -> String {
    m.replace("=\r\n", "")
        .replace("=\n", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn vii_h_snipers_hit_an_officer_by_mail() {
    let g = GameDir::with_scenario("snipers", FIXTURE);
    g.umpire("DICE MODE UMPIRE");
    g.order_mail("blue1", "blue@example.test", "Blue", "READY");
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    let mut asked = Vec::new();
    g.answer_dice(|w| {
        asked.push(w["note"].as_str().unwrap_or_default().to_string());
        match w["note"].as_str() {
            Some("delay") => "1",
            Some("quality") => "2",
            _ => "6",
        }
        .into()
    });
    assert_eq!(
        asked,
        ["sniper at Colonel Pryor", "delay", "quality"],
        "the sharpshooters' die, then the replacement's"
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let mails = g.outbox_all();
    let report = |to: &str| {
        mails
            .iter()
            .filter(|m| m.contains(&format!("To: {to}")) && m.contains("Turn 1 results"))
            .map(|m| flat(m))
            .next()
            .unwrap_or_else(|| panic!("{to}'s turn 1 report"))
    };
    let grey = report("grey@example.test");
    assert!(
        grey.contains(
            "sharpshooters fire at Colonel Pryor: he is hit; a replacement arrives on turn 2"
        ),
        "{grey}"
    );
    assert!(grey.contains("Colonel Pryor, wounded"), "{grey}");
    assert!(
        !grey.contains("Berdan"),
        "the sharpshooters are not named: {grey}"
    );
    let blue = report("blue@example.test");
    assert!(
        blue.contains("Berdan's Sharpshooters fire at an enemy officer at 5\""),
        "{blue}"
    );
    assert!(blue.contains("he is hit"), "{blue}");
    let fired: i64 = g.count(
        "SELECT count(*) FROM events e JOIN turns t ON t.id = e.turn_id
         WHERE t.number = 1 AND e.kind = 'fired'",
    );
    assert_eq!(fired, 0, "no regiment was fired at");
}
