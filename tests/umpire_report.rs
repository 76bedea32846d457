//! The umpire's report through the binary: every order as written and as
//! read, in words with true names, never as the engine's JSON.

mod common;
use common::GameDir;

#[test]
fn umpire_report_reads_orders_back_in_words() {
    let g = GameDir::training("umpire-report");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to the crossroads in line.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2);
    let text: String = g
        .db()
        .query_row(
            "SELECT r.text FROM reports r JOIN turns t ON t.id = r.turn_id
             WHERE r.player_id IS NULL AND t.number = 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // The text report wraps long lines: read it as one run of words.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = words
        .find("#1 from")
        .unwrap_or_else(|| panic!("the 10th Ohio's order is in the umpire's report:\n{text}"));
    let line = &words[at..(at + 200).min(words.len())];
    assert!(line.contains("advance to the crossroads"), "{line}");
    assert!(line.contains("from Colonel Hale"), "{line}");
    assert!(line.contains("read as: "), "{line}");
    assert!(
        !line.contains('{') && !line.contains("\"trigger\""),
        "read back in words, not JSON: {line}"
    );
}
