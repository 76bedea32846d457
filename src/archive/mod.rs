//! The archive of a game (Adjutant issue #6, "The archive"): every turn's
//! snapshot, engine input, events, dice, orders, reports and dispatches as
//! the store keeps them, and the two things made from them:
//!
//! - [`replay`]: `adjutant replay GAME` re-adjudicates every processed turn
//!   from the archive alone, with the same [`adjudicate`] call that
//!   processed it, and checks that each outcome is byte-identical;
//! - [`export`]: `adjutant archive export GAME --out DIR` writes a static
//!   HTML site of the game (turn index, each side's map as that side saw
//!   it, the true map, reports, orders, events, dice, dispatches, and after
//!   the game a "fog lifted" view).
//!
//! [`load`] reads the store; everything after it is pure and deterministic,
//! so the same archive always gives the same verdicts and the same bytes.
//!
//! [`adjudicate`]: crate::game::turn::adjudicate

pub mod engine_export;
pub mod export;
pub mod load;
pub mod replay;

pub use export::export_site;
pub use load::{GameArchive, load_archive};
pub use replay::{ReplayReport, TurnCheck, replay_game};

/// Why the archive could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("no game named `{0}`; `adjutant game list` shows the games")]
    NoSuchGame(String),
    /// The game's ruleset cannot be replayed by this engine.
    #[error(transparent)]
    Ruleset(#[from] crate::rulesets::RulesetError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error("database error while reading the archive: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error(
        "the stored snapshot of turn {turn} cannot be read ({source}); run `adjutant replay` to see which turns are damaged"
    )]
    Snapshot {
        turn: u32,
        source: serde_json::Error,
    },
    #[error("cannot write {path}: {source}; check that the output directory is writable")]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error(
        "an archive template failed to render: {0}; the template in templates/archive/ needs fixing (this is a bug, not bad input)"
    )]
    Template(String),
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    /// The ruleset's mail plane could not draw a stored turn.
    #[error("the ruleset could not draw {0}")]
    Engine(String),
}

impl ArchiveError {
    /// True when the operator can fix it (exit code 2).
    pub fn is_user_error(&self) -> bool {
        match self {
            ArchiveError::NoSuchGame(_) | ArchiveError::Write { .. } | ArchiveError::Ruleset(_) => {
                true
            }
            ArchiveError::Store(e) => e.is_user_error(),
            _ => false,
        }
    }
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExportSummary {
    pub game: String,
    pub out: std::path::PathBuf,
    pub turns: usize,
    /// Every file written, relative to `out`, in the order written.
    pub files: Vec<String>,
    pub fog_lifted: bool,
}
