//! Orders written as letters and prose, through the binary at Brawner's
//! Farm (issue #15, `src/orders/prose.rs`): a report to a general who is
//! not the player's is read for the player's own orders and said not to be
//! sent; a letter to a unit's commander with "the wood" and colour; a
//! second-language sentence; a letter naming an enemy by a real name is
//! refused without confirming it. Each test reads the receipt the player
//! gets.

mod common;
use common::GameDir;

const BRAWNER: &str = "scenarios/brawners-farm.toml";

/// Every mail the player at `address` got (his briefing and receipts),
/// decoded.
fn receipts_to(g: &GameDir, address: &str) -> String {
    g.text_to(address).join("\n")
}

fn orders_of(g: &GameDir, unit: &str) -> i64 {
    g.db()
        .query_row(
            "SELECT count(*) FROM orders o JOIN units u ON u.id = o.unit_id WHERE u.name = ?1",
            [unit],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn a_report_to_a_general_not_the_players_is_read_for_his_own_orders() {
    let g = GameDir::with_scenario("letters", BRAWNER);
    g.order_mail(
        "doubleday1",
        "doubleday@example.test",
        "Doubleday",
        "Headquarters, Doubleday's Brigade.\n\nGeneral King,\n\nSir: I have the honour to report that General Gibbon is heavily engaged north of the turnpike. I am moving the 56th Pennsylvania into Brawner's woods to cover his left.\n\nI have the honour to be, &c.,\nAbner Doubleday",
    );
    g.run_once();
    let out = receipts_to(&g, "doubleday@example.test");
    assert!(out.contains("read as a report, not sent to him"), "{out}");
    assert!(
        out.contains("56th Pennsylvania: advance to Brawner's woods"),
        "{out}"
    );
    assert!(out.contains("'to cover his left'"), "{out}");
    assert!(!out.contains("called 'Sir'"), "{out}");
    assert_eq!(orders_of(&g, "56th Pennsylvania"), 1);
}

#[test]
fn a_letter_to_a_colonel_and_a_second_language_sentence() {
    let g = GameDir::with_scenario("letters2", BRAWNER);
    g.order_mail(
        "lawton1",
        "lawton@example.test",
        "Lawton",
        "Colonel Stiles, 60th Georgia,\nSir: You will hold the edge of the wood at all costs. God grant us success.\nA. R. Lawton, Brig. Gen.",
    );
    g.order_mail(
        "baylor1",
        "baylor@example.test",
        "Baylor",
        "The 27. Virginia must go back 100 yards, because it has too much losses, and there again make the line.",
    );
    g.run_once();
    let out = receipts_to(&g, "lawton@example.test");
    // "the wood" fits both woods: the nearer is taken and the other named.
    assert!(out.contains("took the nearer"), "{out}");
    assert!(out.contains("Brawner's woods"), "{out}");
    assert!(out.contains("'at all costs' kept as colour"), "{out}");
    assert!(!out.contains("Not understood"), "{out}");
    let out = receipts_to(&g, "baylor@example.test");
    assert!(out.contains("27th Virginia: retreat to"), "{out}");
    assert!(out.contains("then form line"), "{out}");
    assert!(out.contains("'because it has too much losses'"), "{out}");
}

#[test]
fn a_letter_naming_an_enemy_by_a_real_name_is_refused_alike_seen_or_not() {
    let g = GameDir::with_scenario("letters3", BRAWNER);
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "Captain Campbell, Battery B,\nSir: You will turn your guns upon the 21st Georgia regiment and keep them upon it.\nVery respectfully,\nJohn Gibbon, Brig. Gen.",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(out.contains("no enemy unit in sight is called"), "{out}");
    assert_eq!(orders_of(&g, "Battery B, 4th US Artillery"), 0);
}
