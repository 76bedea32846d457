//! Issue #15 through the binary: a Brawner's Farm player mails place
//! orders as players write them and reads his receipt, which reads the
//! places back and says what was chosen for him (the woods to the rear, a
//! destination off the table and where the unit stops).

mod common;

use common::GameDir;

#[test]
fn gibbons_receipt_reads_his_place_orders_back_with_notes() {
    let g = GameDir::with_scenario("brawner", "scenarios/brawners-farm.toml");
    g.order_mail(
        "gibbon-1",
        "gibbon@example.test",
        "Gibbon",
        "7th Wisconsin: form on the left of the 2nd Wisconsin\n\
         19th Indiana: pull back behind the field fence\n\
         6th Wisconsin: move NE 200 yds\n\
         2nd Wisconsin: fall back to the woods\n\
         Battery B: advance to (-2, 2.9)\n",
    );
    g.run_once();
    let mails = g.text_to("gibbon@example.test");
    let receipt = mails
        .iter()
        .find(|b| b.contains("7th Wisconsin: advance to"))
        .unwrap_or_else(|| panic!("no receipt among {mails:#?}"));
    for want in [
        "on arrival form line facing north (0°)",
        "19th Indiana: retreat to (",
        "6th Wisconsin: advance to (51.7, 20.2)",
        "2nd Wisconsin: retreat to (14.8, 26.3)",
        "NOTE: falling back into Brawner's woods: to just inside its nearer edge, (14.8, 26.3)",
        "NOTE: 'the woods' could be the woods (44, 38) or Brawner's woods (10, 23); falling back, took Brawner's woods (10, 23), the one to your rear, away from the enemy",
        "Battery B, 4th US Artillery: advance to (-2, 2.9)",
        "NOTE: (-2, 2.9) is off the table (72\" x 48\"); the move goes only as far as the table edge, to (0, 2.9), and stops there",
    ] {
        assert!(receipt.contains(want), "missing {want:?} in:\n{receipt}");
    }
    assert!(!receipt.contains("no unit of your side"), "{receipt}");
    // Nothing about an enemy Gibbon's side has not seen, and no real name.
    for name in ["Virginia", "Georgia", "Wooding", "Poague", "Carpenter"] {
        assert!(!receipt.contains(name), "{name} in:\n{receipt}");
    }
}
