//! "3rd Tennessee: hold fire" and the unit still fires on turn 1: the
//! order delay of APSoF I.C.1 ("orders given to units 12-24 inches away
//! from the officer take effect the following turn"), not a bug. Until
//! the order arrives the unit has no active order, and "units without
//! active orders may always fire" (I.B.4.i.b). The report must say so.
//!
//! The volley fixture with Colonel Pryor moved back to (14, 35), 12.3"
//! from the 3rd and 5th Tennessee, which stand 5" from the 10th and 12th
//! Ohio.

mod common;

use common::GameDir;

const FIXTURE: &str = "tests/fixtures/scenarios/volley.toml";

fn flat(m: &str) -> String {
    m.replace("=\r\n", "")
        .replace("=\n", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn i_c_1_hold_fire_on_its_way_the_report_says_why_the_unit_fired() {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let moved = text.replace("position = [14, 26]", "position = [14, 35]");
    assert_ne!(moved, text, "Colonel Pryor is moved back");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late.toml");
    std::fs::write(&path, moved).unwrap();
    let g = GameDir::with_scenario("late", path.to_str().unwrap());
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: hold fire.\n\n12th Ohio: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let fired: i64 = g.count(
        "SELECT count(*) FROM events e JOIN turns t ON t.id = e.turn_id
         WHERE t.number = 1 AND e.kind = 'fired'
         AND json_extract(e.data_json, '$.unit.name') = '3rd Tennessee'",
    );
    assert_eq!(fired, 1, "the rule: the 3rd fires at will on turn 1");
    let mails = g.outbox_all();
    let grey = mails
        .iter()
        .filter(|m| m.contains("To: grey@example.test") && m.contains("Turn 1 results"))
        .map(|m| flat(m))
        .next()
        .expect("Grey's turn 1 report");
    assert!(
        grey.contains(
            "it takes effect on turn 2 (12-24\" from the officer, a turn later, APSoF I.C.1)"
        ),
        "{grey}"
    );
    assert!(
        grey.contains(
            "3rd Tennessee fires at will this turn: order #1 has not reached it yet and takes effect on turn 2 (APSoF I.C.1"
        ),
        "{grey}"
    );
    assert!(
        grey.contains("a unit without active orders may always fire (I.B.4.i.b)"),
        "{grey}"
    );
    // Blue is not told of Grey's orders.
    let blue_told = mails
        .iter()
        .filter(|m| m.contains("To: blue@example.test"))
        .any(|m| flat(m).contains("has not reached it yet"));
    assert!(!blue_told, "Grey's orders are Grey's own");

    // Turn 2: the order is in force; the 3rd holds its fire.
    g.order_mail("blue2", "blue@example.test", "Blue", "READY");
    g.order_mail("grey2", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 3, "turn 2 was played");
    let fired: i64 = g.count(
        "SELECT count(*) FROM events e JOIN turns t ON t.id = e.turn_id
         WHERE t.number = 2 AND e.kind IN ('fired', 'fired-before-order')
         AND json_extract(e.data_json, '$.unit.name') = '3rd Tennessee'",
    );
    assert_eq!(fired, 0, "hold fire holds once it has arrived");
}
