//! Why a turn could not be processed ([`TurnCycleError`]): its own file so
//! that the turn processor and the umpire's dice, which both return it,
//! need not import each other for it.

use super::reports::ReportsError;
use crate::rules::iron_brigade::turn::TurnError;
use crate::store::StoreError;

/// Why a turn could not be processed. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum TurnCycleError {
    #[error("no game named `{0}`; `adjutant game list` shows the games")]
    NoSuchGame(String),
    #[error("game `{0}` has no open turn to process")]
    NoOpenTurn(String),
    #[error(
        "game `{game}` has {}; no more turns are processed",
        if status == "finished" { "ended" } else { "been abandoned" }
    )]
    GameOver { game: String, status: String },
    #[error("the stored snapshot of turn {turn} cannot be read: {source}")]
    Snapshot {
        turn: u32,
        source: serde_json::Error,
    },
    #[error("order {id} of turn {turn} cannot be read: {source}")]
    Order {
        id: i64,
        turn: u32,
        source: serde_json::Error,
    },
    #[error("the engine refused turn {turn}: {source}")]
    Engine { turn: u32, source: TurnError },
    #[error("cannot serialise the outcome of turn {turn}: {source}")]
    Outcome {
        turn: u32,
        source: serde_json::Error,
    },
    /// A ruleset's mail plane could not do its part (`rules::MailEngine`).
    #[error("turn {turn}: {source}")]
    MailEngine {
        turn: u32,
        source: crate::rules::MailEngineError,
    },
    /// The umpire asked to re-adjudicate (REDO) a game played through its
    /// ruleset's mail plane, which this path cannot do yet.
    #[error(
        "game `{0}` is played through its ruleset's mail plane (SFRM), whose turns cannot be adjudicated again yet; RELEASE the held turn (docs/sfrm-by-mail.md)"
    )]
    NotForMailPlane(String),
    #[error("the reports of turn {turn} cannot be made, so the turn was not processed: {source}")]
    Reports { turn: u32, source: ReportsError },
    #[error(
        "turn {turn} of game `{game}` is held for the umpire's review; the next turn is processed only after RELEASE (or REDO then RELEASE)"
    )]
    Held { game: String, turn: u32 },
    #[error("an umpire's correction to turn {turn} no longer applies: {problem}")]
    Correction { turn: u32, problem: String },
    /// The game's ruleset is not one this engine plays by mail.
    #[error(transparent)]
    Ruleset(#[from] crate::rulesets::RulesetError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("database error while processing: {0}")]
    Sql(#[from] rusqlite::Error),
}

impl TurnCycleError {
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            TurnCycleError::NoSuchGame(_)
                | TurnCycleError::NoOpenTurn(_)
                | TurnCycleError::GameOver { .. }
                | TurnCycleError::Held { .. }
                | TurnCycleError::NotForMailPlane(_)
                | TurnCycleError::Ruleset(_)
        ) || matches!(self, TurnCycleError::Store(e) if e.is_user_error())
    }
}
