//! Errors from the store. Each message says what is wrong and what to do
//! next; [`StoreError::is_user_error`] separates the ones the operator can fix
//! (exit code 2) from internal failures (exit code 1).

use std::path::PathBuf;

/// Everything that can go wrong opening or using the game database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "game database {path} does not exist\n  hint: run `adjutant init` to create it, or point the config's `database` at the right file"
    )]
    Missing { path: PathBuf },

    #[error(
        "game database {path} has schema version {found}, but this adjutant only knows versions up to {supported}; it was written by a newer adjutant and was left untouched\n  hint: upgrade adjutant, or restore a backup made by this version"
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error(
        "{path} is not an Adjutant game database ({detail}); it was left untouched\n  hint: check the `database` path in the config, or move the file aside and run `adjutant init`"
    )]
    NotADatabase { path: PathBuf, detail: String },

    #[error(
        "cannot open game database {path}: {source}\n  hint: check that the path is a file you may read and write"
    )]
    CannotOpen {
        path: PathBuf,
        source: rusqlite::Error,
    },

    #[error(
        "SQLite could not switch {path} to write-ahead logging (journal mode stayed `{mode}`)\n  hint: WAL needs a local file system with shared memory; keep the database off network shares"
    )]
    WalRefused { path: PathBuf, mode: String },

    #[error(
        "cannot create the directory {path} for the game database: {source}\n  hint: create it yourself or choose a writable location"
    )]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("migration {name} failed: {source}; the database was left at its previous version")]
    Migration {
        name: &'static str,
        source: rusqlite::Error,
    },

    #[error(
        "a game named `{name}` already exists\n  hint: choose another name, or inspect it with `adjutant game show {name}`"
    )]
    GameExists { name: String },

    #[error(
        "game `{game}` cannot be created: {problem}\n  hint: fix the scenario or the player list and try again"
    )]
    InvalidGame { game: String, problem: String },

    #[error(
        "outbound mail {id} is not queued (it is {status}); only queued mail can be marked sent or failed"
    )]
    OutboundNotQueued { id: i64, status: String },

    #[error("outbound mail cannot be queued: {problem}")]
    InvalidOutbound { problem: String },

    #[error("outbound mail {id} does not exist")]
    OutboundMissing { id: i64 },

    #[error("inbound mail {id} does not exist")]
    InboundMissing { id: i64 },

    #[error(
        "the database holds a value this adjutant cannot read: {what}\n  hint: the file may have been edited by hand; restore a backup"
    )]
    BadValue { what: String },

    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

impl StoreError {
    /// True for errors the operator fixes (bad path, wrong file, name taken,
    /// bad scenario); the CLI exits 2 for these and 1 for the rest.
    pub fn is_user_error(&self) -> bool {
        match self {
            StoreError::Missing { .. }
            | StoreError::NewerSchema { .. }
            | StoreError::NotADatabase { .. }
            | StoreError::CannotOpen { .. }
            | StoreError::WalRefused { .. }
            | StoreError::CreateDir { .. }
            | StoreError::GameExists { .. }
            | StoreError::InvalidGame { .. }
            | StoreError::OutboundNotQueued { .. }
            | StoreError::OutboundMissing { .. }
            | StoreError::InboundMissing { .. } => true,
            StoreError::Migration { .. }
            | StoreError::InvalidOutbound { .. }
            | StoreError::BadValue { .. }
            | StoreError::Sqlite(_) => false,
        }
    }
}
