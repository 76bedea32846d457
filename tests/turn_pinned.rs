//! The benchmark's turn (`benches/turn.rs`: `corps_battle_turn(1863)`, dice
//! from a fixed seed) pinned byte for byte. Optimisations of the engine must
//! leave every result — state, order book, events, visibility and the dice
//! log — identical; a deliberate change of outcome (a bug fixed) updates the
//! hash here and says why in its commit.

use adjutant::dice::{DiceSource, StreamDice};
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::orders::TurnOrders;
use adjutant::rules::iron_brigade::state::corps_battle_turn;
use adjutant::rules::iron_brigade::turn::resolve_turn;
use sha2::{Digest, Sha256};

/// The serialised outcome of the bench turn, part by part.
fn outcome_bytes() -> Vec<(&'static str, String)> {
    let (state, book) = corps_battle_turn(1863);
    let mut dice = StreamDice::new([42u8; 32]);
    let out = resolve_turn(&state, &book, &TurnOrders::default(), &mut dice).unwrap();
    // The events as they were before fire carried its dice (issue #14):
    // with the dice fields emptied they must be the old bytes exactly, so
    // the new fields added the working and changed no outcome.
    let mut undiced = out.events.clone();
    for e in &mut undiced {
        if let Event::Fired {
            attack_dice,
            save_dice,
            ..
        } = e
        {
            attack_dice.clear();
            save_dice.clear();
        }
        // A move stopped by a friend now names him ("blocked by the 6th
        // Wisconsin"); it was "a unit is in the way".
        if let Event::Moved { stop, .. } = e
            && (stop.starts_with("blocked by"))
        {
            *stop = "a unit is in the way".to_string();
        }
    }
    vec![
        ("state", out.state.canonical_json()),
        ("book", serde_json::to_string(&out.book).unwrap()),
        ("events", serde_json::to_string(&out.events).unwrap()),
        (
            "events without fire dice",
            serde_json::to_string(&undiced).unwrap(),
        ),
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
/// Events re-pinned when every fire came to carry its attack and save dice
/// (issue #14, the working of a result) and a move stopped by a friend came
/// to name him: with the dice emptied and the old words put back the events
/// are the earlier bytes, pinned as "events without fire dice". Outcomes,
/// dice order and state are unchanged.
const PINNED: [(&str, &str); 6] = [
    (
        "state",
        "80b1e37ddd444ac7e76af8d8583f86a8b7a769c6fc1356fbd142bf496aa95bed",
    ),
    (
        "book",
        "a57bbdb015b5b5b02d94fb010b782abb73357cebb428f31d252db91ec2a037f3",
    ),
    (
        "events",
        "ac25e3e6e487e16820d4d349ad7b454945426813fecc511bb3861fe6931fe8f6",
    ),
    (
        "events without fire dice",
        "cf6f918e3a6fd22806be49f7ac877db562f14f61fa970109bec6f66a15387492",
    ),
    (
        "visibility",
        "eb8397f5a5036ad2732e57bebd7ab1dc179d6ffcaaa1e1bb02c7b9750e7e40cd",
    ),
    (
        "dice",
        "2d4b4573774e88f40dab7fe951a353e5f196e638e05742584358148338c12c27",
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
