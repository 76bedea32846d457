//! Umpire dice (issue #8 "Real dice"): the commands `DICE MODE
//! UMPIRE|STREAM` and `DICE n n ...`. The dice source the engine runs on,
//! and the requests it makes when the dice run out, are the game's
//! (`game::umpire_dice`).

use super::{TurnPlaneError, UmpireCtx};
use crate::dice::RollPurpose;
pub use crate::game::umpire_dice::{
    GivenDie, MAX_BATCH, UmpireDice, given_dice, purpose_words, umpire_mode,
};
use rusqlite::{OptionalExtension, Transaction, params};

/// An open roll request: (id, attempt row, first seq, wanted).
type OpenRequest = (i64, i64, i64, Vec<RollPurpose>);

/// The open request of the game, if any.
fn open_request(tx: &Transaction<'_>, game: i64) -> Result<Option<OpenRequest>, TurnPlaneError> {
    let row: Option<(i64, i64, i64, String)> = tx
        .query_row(
            "SELECT d.id, d.turn_id, d.first_seq, d.wanted_json FROM dice_requests d
             JOIN turns t ON t.id = d.turn_id
             WHERE d.game_id = ?1 AND d.answered_at IS NULL AND t.superseded_at IS NULL
               AND t.status = 'open'",
            [game],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    row.map(|(id, turn, first, json)| {
        let wanted = serde_json::from_str(&json).map_err(|e| TurnPlaneError::Stored {
            what: "dice request",
            problem: e.to_string(),
        })?;
        Ok((id, turn, first, wanted))
    })
    .transpose()
}

/// `DICE MODE UMPIRE|STREAM`.
pub fn dice_mode(ctx: &UmpireCtx<'_, '_>, umpire: bool) -> Result<String, TurnPlaneError> {
    let mode = if umpire { "umpire" } else { "stream" };
    ctx.tx.execute(
        "UPDATE games SET settings_json = json_set(settings_json, '$.dice', ?2) WHERE id = ?1",
        params![ctx.game_id.0, mode],
    )?;
    if umpire {
        Ok(
            "dice mode UMPIRE: from the next adjudication on, each turn waits for your dice; \
            you will be told what each roll is for"
                .to_string(),
        )
    } else {
        // A request still open is moot: the stream rolls instead.
        let closed = ctx.tx.execute(
            "UPDATE dice_requests SET answered_at = ?2 WHERE game_id = ?1 AND answered_at IS NULL",
            params![ctx.game_id.0, ctx.now],
        )?;
        Ok(format!(
            "dice mode STREAM: the turn's seeded dice stream rolls from now on{}",
            if closed > 0 {
                "; the open dice request is withdrawn (PROCESS, or the deadline, runs the turn)"
            } else {
                ""
            }
        ))
    }
}

/// `DICE n n ...`: answers the open request, in order, then runs the turn
/// again: it completes (and is held for review) or asks for the next dice.
pub fn dice(ctx: &UmpireCtx<'_, '_>, values: &[u8]) -> Result<String, TurnPlaneError> {
    let Some((request, turn_id, first, wanted)) = open_request(ctx.tx, ctx.game_id.0)? else {
        return Err(TurnPlaneError::NoDiceWanted(ctx.game.to_string()));
    };
    if values.len() != wanted.len() {
        return Err(TurnPlaneError::WrongDiceCount {
            given: values.len(),
            wanted: wanted.len(),
            list: wanted
                .iter()
                .map(purpose_words)
                .collect::<Vec<_>>()
                .join("; "),
        });
    }
    if let Some((i, v)) = values
        .iter()
        .enumerate()
        .find(|(_, v)| !(1..=6).contains(*v))
    {
        return Err(TurnPlaneError::BadDie {
            position: i + 1,
            value: *v,
        });
    }
    for (i, (v, p)) in values.iter().zip(&wanted).enumerate() {
        ctx.tx.execute(
            "INSERT INTO umpire_dice (game_id, turn_id, seq, value, kind, subject, request_id, actor, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                ctx.game_id.0,
                turn_id,
                first + i64::try_from(i).unwrap_or(i64::MAX),
                v,
                p.kind.as_str(),
                p.subject,
                request,
                ctx.actor,
                ctx.now
            ],
        )?;
    }
    ctx.tx.execute(
        "UPDATE dice_requests SET answered_at = ?2 WHERE id = ?1",
        params![request, ctx.now],
    )?;
    let done = crate::game::turn::process_open(ctx.tx, ctx.game, ctx.game_id, ctx.mail, ctx.now)?;
    Ok(if done.dice_wanted.is_empty() {
        format!(
            "{} dice taken; turn {} adjudicated ({} events, {} dice){}",
            values.len(),
            done.turn,
            done.events,
            done.rolls,
            if done.held {
                "; held for review, previews sent"
            } else {
                ""
            }
        )
    } else {
        format!(
            "{} dice taken; turn {} needs {} more: {}",
            values.len(),
            done.turn,
            done.dice_wanted.len(),
            done.dice_wanted.join("; ")
        )
    })
}
