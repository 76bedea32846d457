//! Terse, phone and umpire shorthand through the binary (#15, round 12):
//! a player mails bullets under arm headings with "n" for and, a bearing
//! and a clock hour with no verb, "no change", an officer after a comma,
//! and a quoted reply under it; the receipt reads each back in full words,
//! says which unit keeps its orders, and answers nothing as an error.

mod common;

use common::GameDir;

#[test]
fn lawtons_phone_orders_read_back_in_full() {
    let g = GameDir::with_scenario("brawner", "scenarios/brawners-farm.toml");
    g.order_mail(
        "lawton-terse",
        "lawton@example.test",
        "Lawton",
        "LAWTON t1\n\
         Infantry\n\
         - 26th ga: dq 100 yds S n halt\n\
         - 60th ga: no change\n\
         Artillery\n\
         - Carpenter: brg 180, 4 in, unlimber facing S\n\
         \n\
         lawton ride to 26th ga, rally them, theyre shaken\n\
         \n\
         On Tue, 24 Nov 2026 at 19:40, Adjutant <adjutant@example.test> wrote:\n\
         > Turn 0 results\n",
    );
    g.run_once();
    let mails = g.text_to("lawton@example.test");
    let receipt = mails
        .iter()
        .find(|b| b.contains("Orders as understood"))
        .unwrap_or_else(|| panic!("no receipt among {mails:#?}"));
    let flat = receipt.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "26th Georgia: advance at the double quick to (45, 31.5); then hold",
        "60th Georgia: no new order; it keeps its previous orders",
        "Carpenter's Battery: advance to (44, 36); then unlimber facing south",
        "Lawton: ride with 26th Georgia",
        "'theyre shaken' kept as colour, not an order",
    ] {
        assert!(flat.contains(want), "{want}\nnot in:\n{receipt}");
    }
    assert!(
        !flat.contains("Not understood"),
        "nothing refused:\n{receipt}"
    );
}
