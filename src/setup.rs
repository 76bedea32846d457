//! Setting up an installation from its config: the database (created and
//! migrated) and the Maildir folders. Shared by `adjutant init` and the demo;
//! safe to repeat.

use crate::config::{Config, InboxConfig, OutboxConfig};
use crate::mail::maildir::{Maildir, MaildirError};
use crate::store::{Store, StoreError};
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Maildir(#[from] MaildirError),
}

impl SetupError {
    /// True when the operator can fix it (exit code 2).
    pub fn is_user_error(&self) -> bool {
        match self {
            SetupError::Store(e) => e.is_user_error(),
            SetupError::Maildir(_) => true,
        }
    }
}

/// What [`init`] found and made.
#[derive(Debug)]
pub struct Initialised {
    pub store: Store,
    /// False when the database already existed.
    pub created_database: bool,
    pub schema_version: i64,
    /// The Maildir folders made or found (inbox and/or outbox).
    pub maildirs: Vec<(&'static str, PathBuf)>,
}

/// Creates (or opens and migrates) the database and the Maildir folders the
/// config names. Running it again changes nothing.
pub fn init(config: &Config) -> Result<Initialised, SetupError> {
    let created_database = !config.database.exists();
    let store = Store::open(&config.database)?;
    let schema_version = store.schema_version()?;
    let mut maildirs = Vec::new();
    if let InboxConfig::Maildir { path } = &config.inbox {
        Maildir::create(path.clone())?;
        maildirs.push(("inbox", path.clone()));
    }
    if let OutboxConfig::Maildir { path } = &config.outbox {
        Maildir::create(path.clone())?;
        maildirs.push(("outbox", path.clone()));
    }
    Ok(Initialised {
        store,
        created_database,
        schema_version,
        maildirs,
    })
}
