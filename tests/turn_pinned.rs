//! The benchmark's turn (`benches/turn.rs`: `corps_battle_turn(1863)`, dice
//! from a fixed seed) pinned byte for byte. Optimisations of the engine must
//! leave every result — state, order book, events, visibility and the dice
//! log — identical; a deliberate change of outcome (a bug fixed) updates the
//! hash here and says why in its commit.

use adjutant::dice::{DiceSource, StreamDice};
use adjutant::rules::iron_brigade::orders::TurnOrders;
use adjutant::rules::iron_brigade::state::corps_battle_turn;
use adjutant::rules::iron_brigade::turn::resolve_turn;
use sha2::{Digest, Sha256};

/// The serialised outcome of the bench turn, part by part.
fn outcome_bytes() -> Vec<(&'static str, String)> {
    let (state, book) = corps_battle_turn(1863);
    let mut dice = StreamDice::new([42u8; 32]);
    let out = resolve_turn(&state, &book, &TurnOrders::default(), &mut dice).unwrap();
    vec![
        ("state", out.state.canonical_json()),
        ("book", serde_json::to_string(&out.book).unwrap()),
        ("events", serde_json::to_string(&out.events).unwrap()),
        (
            "visibility",
            serde_json::to_string(&out.visibility).unwrap(),
        ),
        ("dice", serde_json::to_string(dice.log()).unwrap()),
    ]
}

fn sha(s: &str) -> String {
    hex::encode(Sha256::digest(s.as_bytes()))
}

/// SHA-256 of each serialised part of the outcome, pinned from the engine
/// as of commit 8941ea8 (before any optimisation). Visibility re-pinned
/// when units with no castings left (destroyed, off the table, combined)
/// stopped seeing and being seen; state, book, events and dice unchanged.
/// Re-pinned when APSoF V.B.2 compared the target's one roll with every
/// unit firing at it, not only with the unit it fires back at.
/// Re-pinned when APSoF VI.C.6 pinned every unit whose morale fell to 1
/// at once (panic, contact, double quick, moving through friends; the
/// Pinned event now follows the loss that caused it).
/// Re-pinned when APSoF V.B target protection came from the terrain: a
/// target behind a fence (+1) or a wall (+3) on the firer's side.
const PINNED: [(&str, &str); 5] = [
    (
        "state",
        "b055e5e234a6ae8d18f2ac7014665ef93fd94bec8ac2770578f87bb4e3ae30ad",
    ),
    (
        "book",
        "a57bbdb015b5b5b02d94fb010b782abb73357cebb428f31d252db91ec2a037f3",
    ),
    (
        "events",
        "cf4b7de96958719f222db73ad6f0f588d0e867f876baac998439e1a6943f6b16",
    ),
    (
        "visibility",
        "6e0a26928e122ed5f718fbe6810a64604545220b8ff155256b6a8aac77f2c1af",
    ),
    (
        "dice",
        "9658c3aa6a548c08564813092b551ca26954f369b64a8600c28be6a4496502c1",
    ),
];

#[test]
fn bench_turn_outcome_is_pinned() {
    let got: Vec<(&str, String)> = outcome_bytes()
        .into_iter()
        .map(|(name, text)| {
            eprintln!("{name}: {} bytes, sha256 {}", text.len(), sha(&text));
            (name, sha(&text))
        })
        .collect();
    let want: Vec<(&str, String)> = PINNED.iter().map(|(n, h)| (*n, (*h).to_string())).collect();
    assert_eq!(got, want, "the bench turn's outcome changed");
}
