//! Forward-only schema migrations, embedded in the binary.
//!
//! `PRAGMA user_version` records how many migrations a database has had.
//! Pending migrations run in ONE immediate transaction together with the
//! version bump, so a database is either fully at the new version or
//! untouched; a second process opening at the same time waits on the lock
//! and then finds nothing left to do.

use super::StoreError;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

/// The migrations, in order. Migration `i` (0-based) takes the schema from
/// version `i` to `i + 1`. Never edit a released migration; add a new one.
pub const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_initial",
        include_str!("../../migrations/0001_initial.sql"),
    ),
    (
        "0002_rules_ids",
        include_str!("../../migrations/0002_rules_ids.sql"),
    ),
    (
        "0003_umpire",
        include_str!("../../migrations/0003_umpire.sql"),
    ),
    (
        "0004_umpire_turns",
        include_str!("../../migrations/0004_umpire_turns.sql"),
    ),
    (
        "0005_outbound_secrets",
        include_str!("../../migrations/0005_outbound_secrets.sql"),
    ),
    (
        "0006_enemy_designations",
        include_str!("../../migrations/0006_enemy_designations.sql"),
    ),
    (
        "0007_umpire_declarations",
        include_str!("../../migrations/0007_umpire_declarations.sql"),
    ),
    ("0008_cost", include_str!("../../migrations/0008_cost.sql")),
    (
        "0009_reports_audit_through",
        include_str!("../../migrations/0009_reports_audit_through.sql"),
    ),
    (
        "0010_report_maps",
        include_str!("../../migrations/0010_report_maps.sql"),
    ),
    (
        "0011_reports_by_player",
        include_str!("../../migrations/0011_reports_by_player.sql"),
    ),
    (
        "0012_engine_orders",
        include_str!("../../migrations/0012_engine_orders.sql"),
    ),
    (
        "0013_engine_corrections",
        include_str!("../../migrations/0013_engine_corrections.sql"),
    ),
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Reads `PRAGMA user_version` (a read: it never writes the file).
pub fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Applies every pending migration and returns the version found before.
///
/// Migrations run with `foreign_keys` OFF (a pragma SQLite ignores inside a
/// transaction, so it is set around it) and `PRAGMA foreign_key_check` must
/// find nothing before the commit: SQLite's documented procedure for a table
/// rebuild (0004 rebuilds `turns`, which other tables reference). The
/// connection's previous setting is restored afterwards.
/// A database newer than this build gives [`StoreError::NewerSchema`]
/// (checked again under the write lock, in case another process upgraded it).
pub(super) fn migrate(conn: &mut Connection, path: &std::path::Path) -> Result<i64, StoreError> {
    let fk: bool = conn.pragma_query_value(None, "foreign_keys", |r| r.get(0))?;
    conn.pragma_update(None, "foreign_keys", false)?;
    let result = apply(conn, path, MIGRATIONS);
    conn.pragma_update(None, "foreign_keys", fk)?;
    result
}

/// The runner proper, over any list so tests can exercise upgrades and a
/// failing migration.
fn apply(
    conn: &mut Connection,
    path: &std::path::Path,
    migrations: &[(&'static str, &'static str)],
) -> Result<i64, StoreError> {
    let target = i64::try_from(migrations.len()).unwrap_or(i64::MAX);
    let before = user_version(conn)?;
    if before == target {
        return Ok(before);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = user_version(&tx)?;
    if found > target {
        return Err(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported: target,
        });
    }
    let pending = migrations.iter().skip(usize::try_from(found).unwrap_or(0));
    for (name, sql) in pending {
        tx.execute_batch(sql)
            .map_err(|source| StoreError::Migration { name, source })?;
        let broken: Option<String> = tx
            .query_row("PRAGMA foreign_key_check", [], |r| r.get(0))
            .optional()?;
        if let Some(table) = broken {
            return Err(StoreError::Migration {
                name,
                source: rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
                    Some(format!("foreign key check failed in table {table}")),
                ),
            });
        }
    }
    tx.pragma_update(None, "user_version", target)?;
    tx.commit()?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: (&str, &str) = ("0001_a", "CREATE TABLE a (x INTEGER) STRICT;");
    const V2: (&str, &str) = ("0002_b", "CREATE TABLE b (y INTEGER) STRICT;");
    const BROKEN: (&str, &str) = (
        "0002_broken",
        "CREATE TABLE c (z INTEGER) STRICT; INSERT INTO nowhere VALUES (1);",
    );

    fn tables(c: &Connection) -> Vec<String> {
        c.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn older_schema_is_upgraded_one_step_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let mut c = Connection::open(&path).unwrap();
        assert_eq!(apply(&mut c, &path, &[V1]).unwrap(), 0);
        assert_eq!(user_version(&c).unwrap(), 1);
        assert_eq!(apply(&mut c, &path, &[V1, V2]).unwrap(), 1);
        assert_eq!(user_version(&c).unwrap(), 2);
        assert_eq!(tables(&c), ["a", "b"]);
        assert_eq!(apply(&mut c, &path, &[V1, V2]).unwrap(), 2);
    }

    #[test]
    fn a_failing_migration_leaves_the_previous_version_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let mut c = Connection::open(&path).unwrap();
        apply(&mut c, &path, &[V1]).unwrap();
        let err = apply(&mut c, &path, &[V1, BROKEN]).unwrap_err();
        assert!(
            matches!(
                err,
                StoreError::Migration {
                    name: "0002_broken",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("previous version"));
        assert_eq!(user_version(&c).unwrap(), 1);
        assert_eq!(tables(&c), ["a"], "table c must have been rolled back");
    }

    #[test]
    fn newer_than_known_is_refused_under_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let mut c = Connection::open(&path).unwrap();
        apply(&mut c, &path, &[V1, V2]).unwrap();
        let err = apply(&mut c, &path, &[V1]).unwrap_err();
        assert!(matches!(
            err,
            StoreError::NewerSchema {
                found: 2,
                supported: 1,
                ..
            }
        ));
    }

    #[test]
    fn the_real_schema_is_current_and_well_formed() {
        assert_eq!(SCHEMA_VERSION, 13);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let mut c = Connection::open(&path).unwrap();
        migrate(&mut c, &path).unwrap();
        let problems: Vec<String> = c
            .prepare("PRAGMA foreign_key_check")
            .unwrap()
            .query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(problems.is_empty());
        let ok: String = c
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(ok, "ok");
    }
}
