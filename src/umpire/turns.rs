//! The umpire's turn plane (issue #8): held turns, `RELEASE`, `REDO`,
//! corrections (`SET`), `ROLLBACK`/`ROLLFORWARD`, umpire dice and the
//! interpretation of free-text orders.
//!
//! CONTRACT between the command executor (`umpire::exec`, which parses,
//! authenticates, audits and answers the umpire) and this module: each
//! function runs inside the executor's transaction, changes only what its
//! command asks for, and returns one line saying what it did, for the
//! umpire's confirmation. The executor writes the audit row (who, when, the
//! command as written, the reason); these functions may add detail rows.
//!
//! The bodies below are placeholders being replaced on the `umpire-turns`
//! branch; until then every one refuses with [`TurnPlaneError::NotBuilt`].

use crate::game::report_mail::ReportMail;
use crate::store::GameId;
use crate::umpire::command::{DiceMode, SetValue};
use rusqlite::Transaction;

/// Everything a turn-plane command needs: the executor's open transaction
/// and who is acting.
pub struct UmpireCtx<'a, 'c> {
    pub tx: &'a Transaction<'c>,
    pub game: &'a str,
    pub game_id: GameId,
    /// For the audit trail: "umpire" by mail, "cli:<user>" from the CLI.
    pub actor: &'a str,
    pub now: i64,
    pub mail: &'a ReportMail,
}

/// Why a turn-plane command was refused. Nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum TurnPlaneError {
    #[error("`{0}` is not built yet")]
    NotBuilt(&'static str),
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// `RELEASE`: queue the held turn's reports.
pub fn release(_ctx: &UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError> {
    Err(TurnPlaneError::NotBuilt("RELEASE"))
}

/// `REDO`: re-adjudicate the held turn from its start state (with any
/// corrections) and the same dice.
pub fn redo(_ctx: &UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError> {
    Err(TurnPlaneError::NotBuilt("REDO"))
}

/// `SET <unit> ... BECAUSE "<reason>"`.
pub fn set(
    _ctx: &UmpireCtx<'_, '_>,
    _unit: &str,
    _value: &SetValue,
    _reason: &str,
) -> Result<String, TurnPlaneError> {
    Err(TurnPlaneError::NotBuilt("SET"))
}

/// `INTERPRET <id>: <order>`.
pub fn interpret(
    _ctx: &UmpireCtx<'_, '_>,
    _id: &str,
    _order: &str,
) -> Result<String, TurnPlaneError> {
    Err(TurnPlaneError::NotBuilt("INTERPRET"))
}

/// `REJECT <id>: "<reason>"`.
pub fn reject(
    _ctx: &UmpireCtx<'_, '_>,
    _id: &str,
    _reason: &str,
) -> Result<String, TurnPlaneError> {
    Err(TurnPlaneError::NotBuilt("REJECT"))
}

/// `DICE <n> <n> ...`: physical dice for the roll request, in order.
pub fn dice(_ctx: &UmpireCtx<'_, '_>, _values: &[u8]) -> Result<String, TurnPlaneError> {
    Err(TurnPlaneError::NotBuilt("DICE"))
}

/// `DICE MODE STREAM|UMPIRE`.
pub fn dice_mode(_ctx: &UmpireCtx<'_, '_>, _mode: DiceMode) -> Result<String, TurnPlaneError> {
    Err(TurnPlaneError::NotBuilt("DICE MODE"))
}

/// `ROLLBACK <turn>`: state and order book as they were when `turn`
/// opened; later turns stay in the archive.
pub fn rollback(_ctx: &UmpireCtx<'_, '_>, _turn: u32) -> Result<String, TurnPlaneError> {
    Err(TurnPlaneError::NotBuilt("ROLLBACK"))
}

/// `ROLLFORWARD`: undo the last rollback.
pub fn rollforward(_ctx: &UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError> {
    Err(TurnPlaneError::NotBuilt("ROLLFORWARD"))
}
