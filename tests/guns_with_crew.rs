//! APSoF II.E.1 through the binary on the umpire's dice: "Each time a loss
//! is taken from that battery, it is reduced in strength by one gun." The
//! volley fixture; every infantry regiment and Ridley's Battery hold their
//! fire, so the one fire of turn 1 is Battery A's (Blue's "D") at Ridley's
//! Battery (4 guns, 4 crew), limbered 29" off: 12pdr gun 4, target one
//! rank deep +1, perilous −2 (never under fire, V.G.1.ii; limbered up,
//! V.G.1.v): divisor 3. Its dice 3 + 3 = 6 → 2 casualties; Ridley's save
//! die 6. Grey's report shows the battery with 2 crew and 2 guns served,
//! and the save's working names the perilous clauses.

mod common;

use common::GameDir;

const FIXTURE: &str = "tests/fixtures/scenarios/volley.toml";

#[test]
fn ii_e_a_battery_loses_a_gun_with_each_crew_casting_by_mail() {
    let g = GameDir::with_scenario("guns", FIXTURE);
    g.umpire("DICE MODE UMPIRE");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: hold fire.\n\n12th Ohio: hold fire.\n\n14th Ohio: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\n\
         7th Tennessee: hold fire.\n\nRidley's Battery: hold fire.\n\nREADY",
    );
    g.run_once();
    g.answer_dice(|w| if w["kind"] == "fire" { "3" } else { "6" }.into());
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let grey = g
        .outbox_all()
        .into_iter()
        .filter(|m| m.contains("To: grey@example.test") && m.contains("Turn 1 results"))
        .map(|m| {
            m.replace("=\r\n", "")
                .replace("=\n", "")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .next()
        .expect("Grey's turn 1 report");
    assert!(
        grey.contains("Enemy D fires on Ridley's Battery at 29\": 2 casualties"),
        "{grey}"
    );
    assert!(
        grey.contains("Strength: 2 castings, 40 men (2 guns served)"),
        "two crew lost, two guns lost: {grey}"
    );
    assert!(
        grey.contains(
            "perilous x10, V.G.1.ii first fire at troops never under fire; V.G.1.v not in battlefield formation: limbered up)"
        ),
        "the save names the clauses: {grey}"
    );
}
