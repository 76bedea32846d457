//! The battle state serialises canonically: the same state always gives the
//! same bytes, through a round trip too, because turn outcomes are hashed.

use adjutant::rules::iron_brigade::state::{BattleState, UnitId, generate_corps_battle};
use sha2::{Digest, Sha256};

#[test]
fn corps_battle_json_round_trips_byte_identical() {
    let state = generate_corps_battle(2026);
    let json = state.canonical_json();
    let back: BattleState = serde_json::from_str(&json).unwrap();
    assert_eq!(back, state);
    assert_eq!(back.canonical_json(), json);
    let h1 = Sha256::digest(json.as_bytes());
    let h2 = Sha256::digest(generate_corps_battle(2026).canonical_json().as_bytes());
    assert_eq!(h1, h2);
}

#[test]
fn chain_of_command_reaches_the_corps_commander() {
    let state = generate_corps_battle(5);
    let first = state.units.first().map(|u| u.id).unwrap_or(UnitId(0));
    let chain = state.chain_of_command(first);
    assert_eq!(chain.len(), 3, "brigade, division, corps");
    assert_eq!(
        chain.last().map(|o| o.level),
        Some(adjutant::rules::iron_brigade::kinds::OfficerLevel::Corps)
    );
}
