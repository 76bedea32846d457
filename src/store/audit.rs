//! The audit log: who did what to a game, when and why. Umpire overrides,
//! holds, re-processing and configuration changes are recorded here so a
//! dispute can be settled from the file alone. Append-only (triggers).

use super::games::GameId;
use super::{Store, StoreError};
use rusqlite::{Connection, params};

/// One action to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAudit {
    pub game: Option<GameId>,
    /// Who: `umpire`, `system`, `player:<name>`, `cli`.
    pub actor: String,
    pub at: i64,
    /// What, as a short verb phrase: `hold-turn`, `override-die`.
    pub action: String,
    /// Why, in the actor's words, if given.
    pub reason: Option<String>,
    /// Details as a JSON object (`"{}"` for none).
    pub detail_json: String,
}

impl Store {
    /// Appends to the audit log. Takes a connection so the entry commits in
    /// the same transaction as the action it records.
    pub fn append_audit(conn: &Connection, a: &NewAudit) -> Result<i64, StoreError> {
        conn.prepare_cached(
            "INSERT INTO audit_log (game_id, actor, at, action, reason, detail_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .and_then(|mut st| {
            st.execute(params![
                a.game.map(|g| g.0),
                a.actor,
                a.at,
                a.action,
                a.reason,
                a.detail_json
            ])
        })?;
        Ok(conn.last_insert_rowid())
    }
}
