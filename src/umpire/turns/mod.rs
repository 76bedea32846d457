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
//! The store's model (migration 0004, `docs/umpire-turns.md`): a `turns`
//! row is one adjudication ATTEMPT of a turn number. REDO and ROLLBACK set
//! attempts aside (`superseded_at`) and insert new ones; nothing is deleted.
//!
//! - [`held`]: `RELEASE` and `REDO`;
//! - [`correct`]: `SET` corrections, applied to a start state;
//! - [`timeline`]: `ROLLBACK` and `ROLLFORWARD`;
//! - [`engine`]: `REDO` and `SET` for a game played through its ruleset's
//!   mail plane (SFRM), over the ruleset's serialised state.

pub use crate::game::corrections as correct;
pub mod dice;
pub mod engine;
pub mod free_text;
pub mod held;
pub mod timeline;

pub use correct::{Correction, apply_corrections, corrections_for};

use crate::game::report_mail::ReportMail;
use crate::game::turn::TurnCycleError;
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
    #[error("no turn of game `{0}` is held; RELEASE and REDO work on a turn held for review")]
    NothingHeld(String),
    #[error("game `{0}` has no open or held turn to correct")]
    NoTurnToCorrect(String),
    #[error("no unit named `{unit}` in game `{game}`; write its name as in the scenario")]
    NoSuchUnit { game: String, unit: String },
    #[error("SET refused: {0}")]
    OutOfBounds(String),
    #[error("SET needs a reason: SET <unit> <field> <value> BECAUSE \"<reason>\"")]
    NoReason,
    #[error("cannot roll back to turn {turn}: {why}")]
    BadRollback { turn: u32, why: String },
    #[error(
        "game `{0}` is not waiting for dice; DICE answers a roll request (DICE MODE UMPIRE makes turns ask)"
    )]
    NoDiceWanted(String),
    #[error("{given} dice given, {wanted} wanted, in this order: {list}; nothing was taken")]
    WrongDiceCount {
        given: usize,
        wanted: usize,
        list: String,
    },
    #[error("die {position} is {value}: a d6 shows 1 to 6; nothing was taken")]
    BadDie { position: usize, value: u8 },
    #[error(
        "no order `{0}` waits for interpretation; the id is in the mail that asked (e.g. F1-3)"
    )]
    NoSuchInterpretation(String),
    #[error("order {id} was already answered ({status})")]
    AlreadyAnswered { id: String, status: String },
    #[error("INTERPRET refused: {0}")]
    Interpretation(String),
    #[error("there is no ROLLBACK to undo in game `{0}`")]
    NothingToRollForward(String),
    #[error("{0}")]
    Turn(#[from] TurnCycleError),
    #[error("a stored {what} cannot be read: {problem}")]
    Stored { what: &'static str, problem: String },
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// `RELEASE`: queue the held turn's reports.
pub fn release(ctx: &UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError> {
    held::release(ctx)
}

/// `REDO`: re-adjudicate the held turn from its start state (with any
/// corrections) and the same dice.
pub fn redo(ctx: &UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError> {
    match crate::game::engine_seat::engine_of_game(ctx.tx, ctx.game_id)? {
        Some(engine) => engine::redo(ctx, engine),
        None => held::redo(ctx),
    }
}

/// `SET <unit> ... BECAUSE "<reason>"`.
pub fn set(
    ctx: &UmpireCtx<'_, '_>,
    unit: &str,
    value: &SetValue,
    reason: &str,
) -> Result<String, TurnPlaneError> {
    held::set(ctx, unit, value, reason)
}

/// `SET <unit> <field> <value> BECAUSE "<reason>"` in a game played
/// through its ruleset's mail plane (the ruleset reads the fields).
pub fn set_free(
    ctx: &UmpireCtx<'_, '_>,
    written: &str,
    reason: &str,
) -> Result<String, TurnPlaneError> {
    engine::set_free(ctx, written, reason)
}

/// `INTERPRET <id>: <order>`.
pub fn interpret(ctx: &UmpireCtx<'_, '_>, id: &str, order: &str) -> Result<String, TurnPlaneError> {
    free_text::interpret(ctx, id, order)
}

/// `REJECT <id>: "<reason>"`.
pub fn reject(ctx: &UmpireCtx<'_, '_>, id: &str, reason: &str) -> Result<String, TurnPlaneError> {
    free_text::reject(ctx, id, reason)
}

/// `DICE <n> <n> ...`: physical dice for the roll request, in order.
pub fn dice(ctx: &UmpireCtx<'_, '_>, values: &[u8]) -> Result<String, TurnPlaneError> {
    dice::dice(ctx, values)
}

/// `DICE MODE STREAM|UMPIRE`.
pub fn dice_mode(ctx: &UmpireCtx<'_, '_>, mode: DiceMode) -> Result<String, TurnPlaneError> {
    dice::dice_mode(ctx, mode == DiceMode::Umpire)
}

/// `ROLLBACK <turn>`: state and order book as they were when `turn`
/// opened; later turns stay in the archive.
pub fn rollback(ctx: &UmpireCtx<'_, '_>, turn: u32) -> Result<String, TurnPlaneError> {
    timeline::rollback(ctx, turn)
}

/// `ROLLFORWARD`: undo the last rollback.
pub fn rollforward(ctx: &UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError> {
    timeline::rollforward(ctx)
}
