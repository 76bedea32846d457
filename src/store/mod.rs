//! The permanent SQLite game store.
//!
//! One file holds every game: configuration, the raw mail received, orders,
//! the per-turn state snapshots, dice, events and the outbound queue. See
//! `docs/schema.md` for the tables and the invariants the rest of the daemon
//! relies on.
//!
//! The store never reads the clock: every time is an `i64` of unix seconds
//! UTC passed in by the caller, which keeps it testable and replayable.

mod audit;
mod error;
mod games;
mod inbound;
mod migrate;
mod outbound;
mod reports;
mod seed;
mod validate;
mod wake;

pub use audit::NewAudit;
pub use error::StoreError;
pub use games::{
    AddressDetail, CurrentTurn, GameDetail, GameId, GameStatus, GameSummary, NewGame, NewOfficer,
    NewPlayer, NewUnit, OfficerDetail, OpenQuery, PlayerAtAddress, PlayerDetail, PlayerStatus,
    SideUnits, TurnDetail, TurnStatus, create_game_in, game_ruleset, open_queries,
    open_queries_words,
};
pub use inbound::{
    ImapState, InboundInsert, InboundMail, InboundStatus, MailSource, NewInboundMail,
};
pub use migrate::SCHEMA_VERSION;
pub use outbound::{
    MAX_OUTBOUND_ATTEMPTS, NewOutboundMail, OutboundMail, OutboundStatus, outbound_retry_at,
};
pub use reports::{
    NewReport, REPORT_HTML_COLUMNS, REPORT_HTML_JOIN, insert_report, report_html, report_html_at,
};
pub use seed::{seed_commitment, sha256_hex, turn_seed};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Prepared statements kept per connection (`prepare_cached`).
const STATEMENT_CACHE: usize = 128;

/// How long a statement waits for another process's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// `PRAGMA synchronous`, chosen knowingly: FULL, so every commit is synced
/// to disk before it returns.
///
/// With WAL, `NORMAL` would already survive a crash of the process, but
/// after a power loss or kernel crash it may lose the last transactions
/// that had returned as committed. Intake lets go of a mail at its source
/// (Maildir `new/` → `cur/`, the IMAP `\Seen` flag and UID position) right
/// after the commit that stored it, so under `NORMAL` a power cut in that
/// window would lose a player's mail for good. The price of FULL is one
/// sync per transaction, which intake pays once per batch of mails
/// (`mail::inbox`, `mail::intake`), not once per mail.
const SYNCHRONOUS: &str = "FULL";

/// An open, migrated game database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Creates the file (and its parent directory) if missing, then migrates.
    /// Used by `adjutant init`; running it on an up-to-date database changes
    /// nothing.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        Self::open_with(path, OpenFlags::SQLITE_OPEN_CREATE)
    }

    /// Opens a database that must already exist: refuses a missing file
    /// (without creating it), migrates an older schema, refuses a newer one.
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        if !path.exists() {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        Self::open_with(path, OpenFlags::empty())
    }

    /// Opens, checks the file is ours BEFORE anything that could write
    /// (`journal_mode=WAL` rewrites the header), then configures and migrates.
    fn open_with(path: &Path, extra: OpenFlags) -> Result<Store, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | extra;
        let mut conn =
            Connection::open_with_flags(path, flags).map_err(|source| StoreError::CannotOpen {
                path: path.to_path_buf(),
                source,
            })?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // Intake alone reuses about twenty statements per mail; with
        // rusqlite's default of 16 the cache would evict and re-prepare
        // them on every mail.
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // The query planner stability guarantee: plans never depend on the
        // values bound to parameters. Without it SQLite (3.54) marks
        // statements such as `... AND issued_turn = ?3` to be re-planned
        // when a parameter is rebound (the planner's guess at how selective
        // `col = ?` is depends on whether the value is 0 or 1), and
        // `sqlite3_clear_bindings`, which rusqlite's statement cache calls
        // whenever a statement goes back into the cache, then expires them:
        // about eight recompilations per intake mail, 11% of its time.
        // Results cannot differ, only plans; ours are all index lookups.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        check_is_ours(&conn, path)?;
        enable_wal(&conn, path)?;
        conn.pragma_update(None, "synchronous", SYNCHRONOUS)?;
        conn.pragma_update(None, "foreign_keys", true)?;
        migrate::migrate(&mut conn, path)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The file this store was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version recorded in the file (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(migrate::user_version(&self.conn)?)
    }

    /// The underlying connection, for queries this module does not wrap.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Begins an IMMEDIATE transaction: the write lock is taken at once, so
    /// read-then-write logic inside it cannot race another process. Dropping
    /// it without `commit()` rolls back.
    pub fn transaction(&mut self) -> Result<Transaction<'_>, StoreError> {
        Ok(self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?)
    }

    /// Runs `f` in an IMMEDIATE transaction, committing if it returns `Ok`
    /// and rolling back if it returns `Err`.
    pub fn in_transaction<T, E>(
        &mut self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        let tx = self.transaction()?;
        let value = f(&tx)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(value)
    }
}

/// Switches the file to write-ahead logging (persistent, so usually a no-op).
///
/// The switch needs an exclusive lock, and when another process is opening
/// the same new file at the same moment SQLite may answer "database is
/// locked" without consulting the busy handler; so retry for as long as the
/// busy timeout would have waited.
fn enable_wal(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    const PAUSE: Duration = Duration::from_millis(10);
    let mut tries = BUSY_TIMEOUT.as_millis() / PAUSE.as_millis();
    let mode: String = loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0)) {
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) && tries > 0 => {
                tries -= 1;
                std::thread::sleep(PAUSE);
            }
            other => break other?,
        }
    };
    if mode.eq_ignore_ascii_case("wal") {
        Ok(())
    } else {
        Err(StoreError::WalRefused {
            path: path.to_path_buf(),
            mode,
        })
    }
}

/// Refuses files that are not SQLite, are corrupt, are newer than this build,
/// or are SQLite databases belonging to something else. Only reads.
fn check_is_ours(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let not_db = |detail: String| StoreError::NotADatabase {
        path: path.to_path_buf(),
        detail,
    };
    let classify = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => not_db("it is not an SQLite database".into()),
        Some(ErrorCode::DatabaseCorrupt) => not_db(format!("the SQLite file is corrupt: {e}")),
        _ => StoreError::CannotOpen {
            path: path.to_path_buf(),
            source: e,
        },
    };
    // One statement, so both values come from one snapshot: another process
    // may be committing the first migration at this very moment.
    let (version, objects): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT user_version FROM pragma_user_version),
                    (SELECT count(*) FROM sqlite_schema)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .map_err(classify)?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    if version < 0 {
        return Err(not_db(format!(
            "its schema version is {version}, which no Adjutant ever writes"
        )));
    }
    if version == 0 && objects > 0 {
        return Err(not_db(format!(
            "it is an SQLite database with {objects} tables or indexes that Adjutant did not create"
        )));
    }
    Ok(())
}
