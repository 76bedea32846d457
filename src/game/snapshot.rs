//! The game snapshot: everything the turn engine carries from one turn to
//! the next, stored as `turns.state_json` at the start of each turn.
//!
//! One source of dynamic truth (ARCHITECTURE.md): positions, castings and
//! morale live in `battle`; standing and pending orders in `book`. New parts
//! (SFRM dispatches, sightings) are added with `#[serde(default)]` so older
//! snapshots still load.

use crate::rules::iron_brigade::orders::OrderBook;
use crate::rules::iron_brigade::state::BattleState;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Snapshot {
    pub battle: BattleState,
    #[serde(default)]
    pub book: OrderBook,
}

impl Snapshot {
    /// The snapshot at the start of a game: the opening state, no orders.
    pub fn opening(battle: BattleState) -> Snapshot {
        Snapshot {
            battle,
            book: OrderBook::default(),
        }
    }

    /// Canonical JSON: the same snapshot always gives the same bytes (all
    /// maps are ordered; floats round-trip), so its hash identifies it.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    pub fn from_json(text: &str) -> Result<Snapshot, serde_json::Error> {
        serde_json::from_str(text)
    }
}
