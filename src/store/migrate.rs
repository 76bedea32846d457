//! Forward-only schema migrations, embedded in the binary.
//!
//! `PRAGMA user_version` records how many migrations a database has had.
//! Pending migrations run in ONE immediate transaction together with the
//! version bump, so a database is either fully at the new version or
//! untouched; a second process opening at the same time waits on the lock
//! and then finds nothing left to do.

use super::StoreError;
use rusqlite::{Connection, TransactionBehavior};

/// The migrations, in order. Migration `i` (0-based) takes the schema from
/// version `i` to `i + 1`. Never edit a released migration; add a new one.
pub const MIGRATIONS: &[(&str, &str)] = &[(
    "0001_initial",
    include_str!("../../migrations/0001_initial.sql"),
)];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Reads `PRAGMA user_version` (a read: it never writes the file).
pub fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Applies every pending migration. Returns the version found before, or
/// `Err(found)` via [`StoreError::NewerSchema`] if the database is newer
/// than this build (checked again under the write lock).
pub(super) fn migrate(conn: &mut Connection, path: &std::path::Path) -> Result<i64, StoreError> {
    let before = user_version(conn)?;
    if before == SCHEMA_VERSION {
        return Ok(before);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = user_version(&tx)?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    let pending = MIGRATIONS.iter().skip(usize::try_from(found).unwrap_or(0));
    for (name, sql) in pending {
        tx.execute_batch(sql)
            .map_err(|source| StoreError::Migration { name, source })?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(found)
}
