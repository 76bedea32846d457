//! The order book in the store: recording what players wrote, with the
//! latest order per unit winning until the deadline.
//!
//! APSoF I.B.1.i: new orders replace pending ones unless written to follow
//! them. Within one turn a player may change his mind: a second order to the
//! same unit for the same turn supersedes the first (the first is kept,
//! marked `superseded`, with `replaced_by_id` pointing at the second — order
//! rows are never rewritten). Orders from earlier turns already in the
//! snapshot's [`crate::rules::iron_brigade::orders::OrderBook`] are replaced
//! by the engine when the new one is booked.

use crate::rules::iron_brigade::orders::{OfficerMove, UnitOrder};
use crate::store::GameId;
use rusqlite::{OptionalExtension, Transaction, params};

/// Why an order could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("game {game} has no unit with rules id {unit}")]
    UnknownUnit { game: i64, unit: u32 },
    #[error("game {game} has no officer with rules id {officer}")]
    UnknownOfficer { game: i64, officer: u32 },
    #[error("cannot serialise the order: {0}")]
    Json(#[from] serde_json::Error),
    #[error("database error while recording an order: {0}")]
    Sql(#[from] rusqlite::Error),
}

fn unit_row(tx: &Transaction<'_>, game: GameId, rules_id: u32) -> Result<i64, BookError> {
    tx.prepare_cached("SELECT id FROM units WHERE game_id = ?1 AND rules_id = ?2")
        .and_then(|mut st| st.query_row(params![game.0, rules_id], |r| r.get(0)))
        .optional()?
        .ok_or(BookError::UnknownUnit {
            game: game.0,
            unit: rules_id,
        })
}

fn officer_row(tx: &Transaction<'_>, game: GameId, rules_id: u32) -> Result<i64, BookError> {
    tx.prepare_cached("SELECT id FROM officers WHERE game_id = ?1 AND rules_id = ?2")
        .and_then(|mut st| st.query_row(params![game.0, rules_id], |r| r.get(0)))
        .optional()?
        .ok_or(BookError::UnknownOfficer {
            game: game.0,
            officer: rules_id,
        })
}

/// A submission made outside mail (the umpire's CLI, tests): no inbound
/// mail row. Returns the submission's row id and public id.
pub fn record_direct_submission(
    tx: &Transaction<'_>,
    game: GameId,
    player_id: i64,
    turn_id: i64,
    now: i64,
) -> Result<(i64, String), BookError> {
    let n: i64 = tx
        .prepare_cached("SELECT COUNT(*) + 1 FROM submissions WHERE game_id = ?1")
        .and_then(|mut st| st.query_row([game.0], |r| r.get(0)))?;
    let public_id = format!("S{}-{n}", game.0);
    tx.prepare_cached("INSERT INTO submissions (public_id, game_id, player_id, inbound_mail_id, turn_id, received_at, status)
         VALUES (?1, ?2, ?3, NULL, ?4, ?5, 'accepted')").and_then(|mut st| st.execute(params![public_id, game.0, player_id, turn_id, now],))?;
    Ok((tx.last_insert_rowid(), public_id))
}

/// Records a unit order written for `order.issued_turn`. A pending order to
/// the same unit for the same turn is superseded by it, unless the new one
/// is written to follow it. Returns the new row id and the id it replaced.
pub fn record_unit_order(
    tx: &Transaction<'_>,
    game: GameId,
    submission_id: i64,
    order: &UnitOrder,
    text: &str,
    effective_turn: u32,
) -> Result<(i64, Option<i64>), BookError> {
    let unit = unit_row(tx, game, order.unit.0)?;
    let issuer = officer_row(tx, game, order.issued_by.0)?;
    let previous: Option<i64> = if order.follows_previous {
        None
    } else {
        tx.prepare_cached(
            "SELECT id FROM orders WHERE game_id = ?1 AND unit_id = ?2 AND issued_turn = ?3
             AND status = 'pending' ORDER BY id DESC LIMIT 1",
        )
        .and_then(|mut st| st.query_row(params![game.0, unit, order.issued_turn], |r| r.get(0)))
        .optional()?
    };
    let parsed_json = serde_json::to_string(order)?;
    tx.prepare_cached("INSERT INTO orders (game_id, submission_id, unit_id, issuing_officer_id, original_text,
                             parsed_json, issued_turn, effective_turn, replaces_id, follows_previous)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)").and_then(|mut st| st.execute(params![
            game.0,
            submission_id,
            unit,
            issuer,
            text,
            parsed_json,
            order.issued_turn,
            effective_turn.max(order.issued_turn),
            previous,
            order.follows_previous
        ],))?;
    let id = tx.last_insert_rowid();
    if let Some(prev) = previous {
        tx.prepare_cached(
            "UPDATE orders SET status = 'superseded', replaced_by_id = ?2 WHERE id = ?1",
        )
        .and_then(|mut st| st.execute(params![prev, id]))?;
    }
    Ok((id, previous))
}

/// Records an officer's own move for `turn` (officers need no orders,
/// APSoF IV.D); a later move of the same officer in the same turn wins.
pub fn record_officer_move(
    tx: &Transaction<'_>,
    game: GameId,
    submission_id: i64,
    turn: u32,
    m: &OfficerMove,
    text: &str,
) -> Result<i64, BookError> {
    let officer = officer_row(tx, game, m.officer.0)?;
    let previous: Option<i64> = tx
        .query_row(
            "SELECT id FROM orders WHERE game_id = ?1 AND officer_id = ?2 AND issued_turn = ?3
             AND status = 'pending' ORDER BY id DESC LIMIT 1",
            params![game.0, officer, turn],
            |r| r.get(0),
        )
        .optional()?;
    let parsed_json = serde_json::to_string(m)?;
    tx.prepare_cached(
        "INSERT INTO orders (game_id, submission_id, officer_id, issuing_officer_id, original_text,
                             parsed_json, issued_turn, effective_turn, replaces_id)
         VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?6, ?7)",
    )
    .and_then(|mut st| {
        st.execute(params![
            game.0,
            submission_id,
            officer,
            text,
            parsed_json,
            turn,
            previous
        ])
    })?;
    let id = tx.last_insert_rowid();
    if let Some(prev) = previous {
        tx.prepare_cached(
            "UPDATE orders SET status = 'superseded', replaced_by_id = ?2 WHERE id = ?1",
        )
        .and_then(|mut st| st.execute(params![prev, id]))?;
    }
    Ok(id)
}
