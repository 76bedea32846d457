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
/// Re-pinned when APSoF V.B note * split the casualties of a fire at a
/// unit counted 3 ranks deep with its supports among it and them.
/// Re-pinned when APSoF V.B.2 compared the target's one roll with every
/// unit firing at it, not only with the unit it fires back at.
/// Re-pinned when APSoF VI.C.6 pinned every unit whose morale fell to 1
/// at once (panic, contact, double quick, moving through friends; the
/// Pinned event now follows the loss that caused it).
/// Re-pinned when APSoF V.B target protection came from the terrain: a
/// target behind a fence (+1) or a wall (+3) on the firer's side.
/// Re-pinned for issue #14: every fire now carries its attack and save
/// dice and a move stopped by a friend names him (with the dice emptied and
/// the old words put back the events were checked to be the earlier bytes,
/// cf6f918e…), and then state and events changed for a rule fix: a unit
/// that backs off a friend's ground it would have ended on no longer counts
/// as having moved through the ranks it backed out of (APSoF IV.C.5-6:
/// "units ... that move through"), so it loses no morale and they gain
/// none. Book, visibility and the dice log are unchanged. Events again
/// when every fire came to name its weapon's range band (`band`).
/// Both sets merged: state and events re-pinned from the merged engine
/// (book, visibility and the dice log unchanged).
/// Events re-pinned for issue #14 section 3: contact, panic, rally, double
/// quick and Table 3 events carry their dice and modifiers; with those
/// fields taken out the events are the earlier bytes (223d6164…), and
/// state, book, visibility and the dice log are unchanged.
/// State re-pinned for APSoF V.G.1.i: every unit that fires keeps the turn
/// (`marks.fired_turn`, for the next turn's surprise test); with that field
/// taken out the state is the earlier bytes (79038928…). No fire of the
/// bench turn is a surprise, so events and dice are unchanged.
/// Events re-pinned when every perilous fire came to name its clauses of
/// APSoF V.G (`perilous_why`, for the working): with that field taken out
/// the events are the earlier bytes (d516a4a4…); state, book, visibility
/// and the dice log are unchanged, and no outcome changed.
const PINNED: [(&str, &str); 5] = [
    (
        "state",
        "dbc1034a574aea949666c440fb4034ab4d2f6ac076cd4e703a589a31c9f5409b",
    ),
    (
        "book",
        "a57bbdb015b5b5b02d94fb010b782abb73357cebb428f31d252db91ec2a037f3",
    ),
    (
        "events",
        "d1430d989eb1d2d92fdf9de1b4dc5030c54de54f84547b9b10a2b7317f1220f8",
    ),
    (
        "visibility",
        "63a8f60125538bb3461b02d7915303ba78d9a119f520104cc6746f4e38b947ab",
    ),
    (
        "dice",
        "8f8cea631815374555eaf45e1b98aad5fd58332f09095e424601b325ea7cb49c",
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
