//! `ROLLBACK <turn>` and `ROLLFORWARD` (issue #8 "Game control").
//!
//! ROLLBACK k sets aside every live attempt numbered k or later (they stay
//! in the archive, events, dice and reports included) and opens turn k again
//! as a new attempt: the very snapshot turn k opened with (battle state and
//! order book), the same seed commitment, so that processing it again with
//! the same orders gives the same outcome, byte for byte. The orders written
//! for turn k are pending again; orders written for later turns belong to
//! the abandoned timeline and are set `ignored`. Both lists are kept in the
//! `turn_changes` row so that ROLLFORWARD can undo it: the attempts set
//! aside come back, whatever was done since the rollback is set aside in
//! turn, and the orders' statuses are put back.
//!
//! Corrections (`SET`) made to turn k's attempts are not carried into the
//! new attempt: it starts from the state as the turn OPENED.

use super::{TurnPlaneError, UmpireCtx};
use rusqlite::{OptionalExtension, params};

/// Orders whose status a change moved, with the status they had.
type OrderStatuses = Vec<(i64, String)>;

fn orders_where(
    ctx: &UmpireCtx<'_, '_>,
    condition: &str,
    turn: u32,
) -> Result<OrderStatuses, rusqlite::Error> {
    let sql =
        format!("SELECT id, status FROM orders WHERE game_id = ?1 AND {condition} ORDER BY id");
    let mut st = ctx.tx.prepare(&sql)?;
    st.query_map(params![ctx.game_id.0, turn], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

fn set_status(ctx: &UmpireCtx<'_, '_>, id: i64, status: &str) -> Result<(), rusqlite::Error> {
    ctx.tx.execute(
        "UPDATE orders SET status = ?2 WHERE id = ?1",
        params![id, status],
    )?;
    Ok(())
}

/// `ROLLBACK <turn>`.
pub fn rollback(ctx: &UmpireCtx<'_, '_>, turn: u32) -> Result<String, TurnPlaneError> {
    let tx = ctx.tx;
    let bad = |why: String| TurnPlaneError::BadRollback { turn, why };
    let latest: Option<u32> = tx.query_row(
        "SELECT max(number) FROM turns WHERE game_id = ?1 AND superseded_at IS NULL",
        [ctx.game_id.0],
        |r| r.get(0),
    )?;
    let latest = latest.unwrap_or(1);
    let target: Option<(i64, String)> = tx
        .query_row(
            "SELECT id, status FROM turns WHERE game_id = ?1 AND number = ?2 AND superseded_at IS NULL",
            params![ctx.game_id.0, turn],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((target_id, status)) = target else {
        return Err(bad(format!("the game's turns run from 1 to {latest}")));
    };
    if status == "open" {
        return Err(bad(format!("turn {turn} is the open turn already")));
    }

    let reopened = orders_where(ctx, "issued_turn = ?2 AND status = 'active'", turn)?;
    let abandoned = orders_where(
        ctx,
        "issued_turn > ?2 AND status IN ('pending', 'active')",
        turn,
    )?;
    // A game played through a mail plane keeps its orders by turn number
    // (`engine_orders`): those for later turns are set aside, and the
    // highest order id now marks what ROLLFORWARD will find written since.
    let engine_max: i64 = tx.query_row(
        "SELECT coalesce(max(id), 0) FROM engine_orders WHERE game_id = ?1",
        [ctx.game_id.0],
        |r| r.get(0),
    )?;
    let detail = serde_json::json!({
        "orders": reopened.iter().chain(&abandoned).collect::<Vec<_>>(),
        "engine_orders_max": engine_max,
    });
    tx.execute(
        "INSERT INTO turn_changes (game_id, kind, actor, at, turn_number, detail_json)
         VALUES (?1, 'rollback', ?2, ?3, ?4, ?5)",
        params![ctx.game_id.0, ctx.actor, ctx.now, turn, detail.to_string()],
    )?;
    let change = tx.last_insert_rowid();
    for (id, _) in &reopened {
        set_status(ctx, *id, "pending")?;
    }
    for (id, _) in &abandoned {
        set_status(ctx, *id, "ignored")?;
    }
    let engine_abandoned = set_engine_orders_aside(ctx, change, "turn > ?2", turn, 0)?;
    let set_aside = tx.execute(
        "UPDATE turns SET superseded_at = ?3, superseded_by = ?4
         WHERE game_id = ?1 AND number >= ?2 AND superseded_at IS NULL",
        params![ctx.game_id.0, turn, ctx.now, change],
    )?;
    let deadline = crate::game::cycle::next_deadline(tx, ctx.game_id, ctx.now);
    tx.execute(
        "INSERT INTO turns (game_id, number, status, deadline_at, grace_secs, seed_commitment,
                            state_json, state_hash, opened_at, attempt, prev_turn_id)
         SELECT game_id, number, 'open', ?2, grace_secs, seed_commitment,
                state_json, state_hash, ?3, 1, prev_turn_id
         FROM turns WHERE id = ?1",
        params![target_id, deadline, ctx.now],
    )?;
    Ok(format!(
        "rolled back to turn {turn}: {set_aside} turn attempt(s) from turn {turn} to {latest} set aside (kept in the archive); \
         turn {turn} is open again with its state and order book as it opened, {} order(s) written for it pending again, \
         {} written for later turns set aside; ROLLFORWARD undoes this",
        reopened.len(),
        abandoned.len() + engine_abandoned
    ))
}

/// Sets aside the live `engine_orders` of the game matching `condition`
/// (over `turn` = ?2 and `id` > ?3), for turn change `change`; how many.
fn set_engine_orders_aside(
    ctx: &UmpireCtx<'_, '_>,
    change: i64,
    condition: &str,
    turn: u32,
    after_id: i64,
) -> Result<usize, rusqlite::Error> {
    let sql = format!(
        "INSERT INTO engine_orders_set_aside (order_id, game_id, change_id)
         SELECT id, game_id, ?4 FROM engine_orders
         WHERE game_id = ?1 AND {condition} AND id > ?3
           AND id NOT IN (SELECT order_id FROM engine_orders_set_aside)"
    );
    ctx.tx
        .execute(&sql, params![ctx.game_id.0, turn, after_id, change])
}

/// `ROLLFORWARD`: undoes the latest ROLLBACK not yet undone.
pub fn rollforward(ctx: &UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError> {
    let tx = ctx.tx;
    let last: Option<(i64, u32, String)> = tx
        .query_row(
            "SELECT id, turn_number, detail_json FROM turn_changes
             WHERE game_id = ?1 AND kind = 'rollback' AND undone_by IS NULL
             ORDER BY id DESC LIMIT 1",
            [ctx.game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let Some((rollback_id, turn, detail)) = last else {
        return Err(TurnPlaneError::NothingToRollForward(ctx.game.to_string()));
    };
    #[derive(serde::Deserialize)]
    struct Detail {
        orders: OrderStatuses,
        #[serde(default)]
        engine_orders_max: i64,
    }
    let before: Detail = serde_json::from_str(&detail).map_err(|e| TurnPlaneError::Stored {
        what: "rollback record",
        problem: e.to_string(),
    })?;
    // What was written since the rollback belongs to the timeline now set aside.
    let since = orders_where(
        ctx,
        "issued_turn >= ?2 AND status IN ('pending', 'active')",
        turn,
    )?;
    let restored_to: Option<u32> = tx.query_row(
        "SELECT max(number) FROM turns WHERE superseded_by = ?1",
        [rollback_id],
        |r| r.get(0),
    )?;
    let restored_to = restored_to.unwrap_or(turn);
    tx.execute(
        "INSERT INTO turn_changes (game_id, kind, actor, at, turn_number, detail_json)
         VALUES (?1, 'rollforward', ?2, ?3, ?4, ?5)",
        params![
            ctx.game_id.0,
            ctx.actor,
            ctx.now,
            restored_to,
            serde_json::json!({ "orders": since }).to_string()
        ],
    )?;
    let change = tx.last_insert_rowid();
    for (id, _) in &since {
        set_status(ctx, *id, "ignored")?;
    }
    for (id, status) in &before.orders {
        set_status(ctx, *id, status)?;
    }
    // A mail-plane game's orders: those written since the rollback are set
    // aside, those it set aside count again.
    let engine_since =
        set_engine_orders_aside(ctx, change, "turn >= ?2", turn, before.engine_orders_max)?;
    tx.execute(
        "DELETE FROM engine_orders_set_aside WHERE change_id = ?1",
        [rollback_id],
    )?;
    let set_aside = tx.execute(
        "UPDATE turns SET superseded_at = ?3, superseded_by = ?4
         WHERE game_id = ?1 AND number >= ?2 AND superseded_at IS NULL",
        params![ctx.game_id.0, turn, ctx.now, change],
    )?;
    let restored = tx.execute(
        "UPDATE turns SET superseded_at = NULL, superseded_by = NULL WHERE superseded_by = ?1",
        [rollback_id],
    )?;
    tx.execute(
        "UPDATE turn_changes SET undone_by = ?2 WHERE id = ?1",
        params![rollback_id, change],
    )?;
    Ok(format!(
        "rolled forward: the rollback to turn {turn} is undone; {restored} turn attempt(s) up to turn {restored_to} restored, \
         {set_aside} made since set aside (kept in the archive), {} order(s) written since set aside",
        since.len() + engine_since
    ))
}
