//! The deadline line of an order receipt, in the player's own zone: shared
//! by every ruleset's intake (`submit`, `engine_game`).

use crate::mail::intake::{IntakeError, SubmissionContext};
use rusqlite::{Transaction, params};

/// The receipt's deadline line: the current turn's deadline in the
/// player's own time zone, or for a late mail what that means.
pub fn deadline_line(
    tx: &Transaction<'_>,
    ctx: &SubmissionContext<'_>,
) -> Result<String, IntakeError> {
    let (deadline, grace, zone): (Option<i64>, i64, String) = tx
        .query_row(
            "SELECT t.deadline_at, t.grace_secs, p.time_zone FROM turns t, players p
             WHERE t.id = ?1 AND p.id = ?2",
            params![ctx.turn_id, ctx.player_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .map_err(IntakeError::Sqlite)?;
    Ok(match (ctx.late, deadline) {
        (true, _) => format!(
            "Deadline:   turn {}'s deadline is set when turn {} has been processed",
            ctx.counts_for_turn,
            ctx.counts_for_turn.saturating_sub(1)
        ),
        (false, Some(d)) if grace > 0 => format!(
            "Deadline:   {} (your time zone); mail up to {} later still counts",
            super::clock::format_local(d, &zone),
            super::deadline::duration_words(grace)
        ),
        (false, Some(d)) => format!(
            "Deadline:   {} (your time zone)",
            super::clock::format_local(d, &zone)
        ),
        (false, None) => "Deadline:   none; the turn runs when every player is READY".to_string(),
    })
}
