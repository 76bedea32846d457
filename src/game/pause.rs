//! Pausing a game (`PAUSE [FOR <duration>]`, `RESUME`) and resuming it by
//! itself when the pause ends.
//!
//! A pause is never indefinite: `PAUSE` alone lasts the game's maximum
//! pause (`umpire::principal::pause_max_secs`, 7 days by default), and a
//! longer `PAUSE FOR` is refused. While a game is paused (`games.status =
//! 'paused'`) the daemon's cycle neither processes its turn nor reminds its
//! players (both look only at active games); players' mail is still read
//! and receipted. When the pause ends — `RESUME`, or the daemon reaching
//! `paused_until` ([`resume_due`]) — the open turn's deadline moves back by
//! the time the game was paused, so nobody loses writing time, and every
//! player and the umpire are told.

use super::notice;
use crate::clock::format_local;
use crate::game::deadline::duration_words;
use crate::game::report_mail::{ReportMail, ReportMailError};
use crate::store::{GameId, NewAudit, Store, StoreError};
use rusqlite::{OptionalExtension, Transaction, params};

/// Why resuming failed. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum PauseError {
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Mail(#[from] ReportMailError),
}

/// A paused game's pause.
#[derive(Debug, Clone, Copy)]
pub struct Paused {
    pub at: i64,
    pub until: i64,
}

/// The pause of `game`, if it is paused.
pub fn paused(tx: &Transaction<'_>, game: GameId) -> Result<Option<Paused>, rusqlite::Error> {
    Ok(tx
        .query_row(
            "SELECT paused_at, paused_until FROM games WHERE id = ?1 AND status = 'paused'",
            [game.0],
            |r| Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i64>>(1)?)),
        )
        .optional()?
        .and_then(|(a, u)| Some(Paused { at: a?, until: u? })))
}

/// Pauses `game` from `now` until `until` and tells its players. The
/// caller has checked the game is active and the length is allowed.
pub fn pause(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    game: &str,
    game_id: GameId,
    until: i64,
    now: i64,
    letter_id: &str,
) -> Result<usize, PauseError> {
    tx.execute(
        "UPDATE games SET status = 'paused', paused_at = ?2, paused_until = ?3 WHERE id = ?1",
        params![game_id.0, now, until],
    )?;
    let subject = format!("{game} is paused");
    let sent = notice::to_players(
        tx,
        mail,
        game,
        game_id,
        "pause",
        letter_id,
        &subject,
        now,
        &|zone| {
            format!(
                "The umpire has paused game {game} until {} (your time zone, {zone}).\n\n\
                 While it is paused no turn is processed and no reminders are sent; your\n\
                 orders are still read and answered. When the game resumes, the open turn's\n\
                 deadline moves back by as long as the pause lasted, and you will be told.\n",
                format_local(until, zone)
            )
        },
    )?;
    Ok(sent)
}

/// Resumes a paused `game` at `now`: active again, the open turn's deadline
/// moved back by the time paused, players and umpire told. `why` says who
/// ended the pause, for the notices ("the umpire has resumed" / "the pause
/// has ended"). Returns the one-line summary. Does nothing (and says so)
/// when the game is not paused.
pub fn resume(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    game: &str,
    game_id: GameId,
    now: i64,
    why: &str,
    letter_id: &str,
) -> Result<Option<String>, PauseError> {
    let Some(p) = paused(tx, game_id)? else {
        return Ok(None);
    };
    let lasted = now.saturating_sub(p.at).max(0);
    tx.execute(
        "UPDATE games SET status = 'active', paused_at = NULL, paused_until = NULL WHERE id = ?1",
        [game_id.0],
    )?;
    let open: Option<(i64, u32, Option<i64>)> = tx
        .query_row(
            "SELECT id, number, deadline_at FROM turns WHERE game_id = ?1 AND status = 'open'",
            [game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let mut deadline = None;
    if let Some((id, number, Some(d))) = open {
        let moved = d.saturating_add(lasted);
        tx.execute(
            "UPDATE turns SET deadline_at = ?2 WHERE id = ?1",
            params![id, moved],
        )?;
        deadline = Some((number, moved));
    }
    let deadline_words = |zone: &str| match deadline {
        Some((n, d)) => format!(
            "Turn {n}'s deadline has moved back by {}, as long as the game was paused:\nit is now {} (your time zone, {zone}).\n",
            duration_words(lasted.max(60)),
            format_local(d, zone)
        ),
        None => "The open turn has no deadline: it runs when every player is READY.\n".into(),
    };
    let subject = format!("{game} has resumed");
    notice::to_players(
        tx,
        mail,
        game,
        game_id,
        "resume",
        letter_id,
        &subject,
        now,
        &|zone| {
            format!(
                "Game {game} has resumed: {why}.\n\n{}",
                deadline_words(zone)
            )
        },
    )?;
    notice::to_umpire(
        tx,
        mail,
        game,
        game_id,
        "resume",
        letter_id,
        &subject,
        &format!(
            "Game {game} has resumed: {why}.\n\n{}",
            deadline_words("UTC")
        ),
        now,
    )?;
    Ok(Some(match deadline {
        Some((n, d)) => format!(
            "game resumed after {}; turn {n}'s deadline is now {}",
            duration_words(lasted.max(60)),
            format_local(d, "UTC")
        ),
        None => format!(
            "game resumed after {}; the open turn has no deadline",
            duration_words(lasted.max(60))
        ),
    }))
}

/// Names of paused games whose pause has ended at `now`.
fn ended(store: &Store, now: i64) -> Result<Vec<(GameId, String)>, rusqlite::Error> {
    let mut st = store.conn().prepare(
        // `+id`: sort the few ended pauses found through the index
        // games_paused_until (0008) rather than walk every game in id order.
        "SELECT id, name FROM games WHERE status = 'paused' AND paused_until <= ?1 ORDER BY +id",
    )?;
    st.query_map([now], |r| Ok((GameId(r.get(0)?), r.get(1)?)))?
        .collect()
}

/// The daemon's part: resumes every game whose pause has ended, each in
/// its own transaction with an audit entry (actor `system`). Returns how
/// many resumed; a game that fails is logged and left paused.
pub fn resume_due(store: &mut Store, mail: &ReportMail, now: i64) -> Result<usize, StoreError> {
    let mut n = 0;
    for (id, name) in ended(store, now)? {
        let tx = store.transaction()?;
        let done = (|| -> Result<Option<String>, PauseError> {
            let pause = paused(&tx, id)?;
            let until = pause.map(|p| p.until);
            // Unique per pause, so no two automatic resumes share a Message-ID.
            let letter = match pause {
                Some(p) => format!("auto-{}-{}", p.at, p.until),
                None => format!("auto-{now}"),
            };
            let summary = resume(
                &tx,
                mail,
                &name,
                id,
                now,
                "the pause the umpire set has ended",
                &letter,
            )?;
            if let Some(s) = &summary {
                Store::append_audit(
                    &tx,
                    &NewAudit {
                        game: Some(id),
                        actor: "system".into(),
                        at: now,
                        action: "umpire-resume".into(),
                        reason: Some("the pause reached its end".into()),
                        detail_json: serde_json::json!({ "result": s, "paused_until": until })
                            .to_string(),
                    },
                )?;
            }
            Ok(summary)
        })();
        match done {
            Ok(Some(s)) => {
                tx.commit()?;
                tracing::info!(game = %name, "{s}");
                n += 1;
            }
            Ok(None) => {}
            Err(e) => tracing::error!(game = %name, error = %e, "paused game not resumed"),
        }
    }
    Ok(n)
}

/// The earliest end of a pause after `now`, for the daemon's wake-up.
pub fn next_resume_at(
    conn: &rusqlite::Connection,
    now: i64,
) -> Result<Option<i64>, rusqlite::Error> {
    conn.query_row(
        "SELECT min(paused_until) FROM games WHERE status = 'paused' AND paused_until > ?1",
        [now],
        |r| r.get(0),
    )
}
