//! The held turn: `RELEASE`, `REDO` and `SET` (issue #8 "Review before
//! release", "Corrections").
//!
//! In an umpired game `game::turn` ends a processed turn `held`: its events,
//! dice, the next turn and every report are stored as in any game, the
//! player mails are composed into `held_mail`, and the umpire is mailed his
//! report and a preview of each player's.

use super::correct::{self, Bounds};
use super::{TurnPlaneError, UmpireCtx};
use crate::game::snapshot::Snapshot;
use crate::game::turn::{TurnCycleError, run_attempt, turn_input};
use crate::rules::iron_brigade::state::UnitId;
use crate::scenario::Scenario;
use crate::store::{NewOutboundMail, Store};
use crate::umpire::command::SetValue;
use rusqlite::{OptionalExtension, Transaction, params};

/// A live attempt of the game: row id, number, attempt.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attempt {
    pub id: i64,
    pub number: u32,
    pub attempt: u32,
}

/// The game's live attempt with `status` ('held' or 'open'), if any.
pub(crate) fn live_with_status(
    ctx: &UmpireCtx<'_, '_>,
    status: &str,
) -> Result<Option<Attempt>, rusqlite::Error> {
    ctx.tx
        .query_row(
            "SELECT id, number, attempt FROM turns
             WHERE game_id = ?1 AND status = ?2 AND superseded_at IS NULL",
            params![ctx.game_id.0, status],
            |r| {
                Ok(Attempt {
                    id: r.get(0)?,
                    number: r.get(1)?,
                    attempt: r.get(2)?,
                })
            },
        )
        .optional()
}

/// The game's secret seed (per-turn seeds derive from it).
pub(crate) fn game_seed(tx: &Transaction<'_>, game: i64) -> Result<[u8; 32], TurnPlaneError> {
    let seed: Vec<u8> =
        tx.query_row("SELECT seed FROM games WHERE id = ?1", [game], |r| r.get(0))?;
    seed.try_into().map_err(|_| TurnPlaneError::Stored {
        what: "game seed",
        problem: "not 32 bytes".into(),
    })
}

/// `RELEASE`: queues, byte for byte, the player mails composed when the
/// held turn was processed (the same Message-IDs an unumpired game would
/// have used), links them to their reports, and marks the turn released.
/// The next turn, opened when the turn was processed, is then the one the
/// daemon waits on.
pub fn release(ctx: &UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError> {
    let held = live_with_status(ctx, "held")?
        .ok_or_else(|| TurnPlaneError::NothingHeld(ctx.game.to_string()))?;
    let mut st = ctx.tx.prepare(
        "SELECT id, report_id, kind, message_id, recipients_json, raw FROM held_mail
         WHERE turn_id = ?1 AND outbound_mail_id IS NULL ORDER BY id",
    )?;
    let rows = st
        .query_map([held.id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Vec<u8>>(5)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let queued = rows.len();
    for (id, report, kind, message_id, recipients, raw) in rows {
        let recipients: Vec<String> =
            serde_json::from_str(&recipients).map_err(|e| TurnPlaneError::Stored {
                what: "held mail's recipients",
                problem: e.to_string(),
            })?;
        let out = Store::queue_outbound(
            ctx.tx,
            &NewOutboundMail {
                game_id: Some(ctx.game_id),
                kind,
                message_id,
                recipients,
                reply_tokens: crate::mail::token::reply_tokens_in(&raw),
                raw,
                in_reply_to: None,
                created_at: ctx.now,
            },
        )
        .map_err(|e| TurnPlaneError::Stored {
            what: "held mail",
            problem: e.to_string(),
        })?;
        ctx.tx.execute(
            "UPDATE held_mail SET outbound_mail_id = ?2 WHERE id = ?1",
            params![id, out],
        )?;
        ctx.tx.execute(
            "UPDATE reports SET outbound_mail_id = ?2 WHERE id = ?1",
            params![report, out],
        )?;
    }
    ctx.tx.execute(
        "UPDATE turns SET status = 'released', released_at = ?2 WHERE id = ?1",
        params![held.id, ctx.now],
    )?;
    // The scenario's last turn: its reports told the end of the battle, and
    // with them released the game is over (`game::ending`).
    let last =
        crate::game::ending::is_last_turn(ctx.tx, ctx.game_id, held.number).map_err(|e| {
            TurnPlaneError::Stored {
                what: "game",
                problem: e.to_string(),
            }
        })?;
    if last {
        crate::game::ending::finish(ctx.tx, ctx.game_id, held.number, ctx.now).map_err(|e| {
            TurnPlaneError::Stored {
                what: "game",
                problem: e.to_string(),
            }
        })?;
        return Ok(format!(
            "turn {} released (attempt {}): {queued} report mail(s) queued to the players; \
             it was the scenario's last turn, so the game is over",
            held.number, held.attempt
        ));
    }
    Ok(format!(
        "turn {} released (attempt {}): {queued} report mail(s) queued to the players; turn {} is open",
        held.number,
        held.attempt,
        held.number + 1
    ))
}

/// `REDO`: sets the held attempt and the turn it opened aside (kept in the
/// archive with their events, dice and reports) and adjudicates the turn
/// again as a new attempt: the same start snapshot with every correction
/// made to it, the same orders (the held attempt's `turn-input`), the same
/// seed. The new attempt is held in its turn, with fresh previews.
pub fn redo(ctx: &UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError> {
    let held = live_with_status(ctx, "held")?
        .ok_or_else(|| TurnPlaneError::NothingHeld(ctx.game.to_string()))?;
    let tx = ctx.tx;
    let orders = turn_input(tx, held.id)?.ok_or(TurnPlaneError::Stored {
        what: "turn-input event",
        problem: format!("turn {} has none to adjudicate again", held.number),
    })?;
    let (new_id, old_outcome) = set_aside_for_redo(ctx, held)?;
    let seed = game_seed(tx, ctx.game_id.0)?;
    let done = run_attempt(
        tx,
        ctx.game,
        ctx.game_id,
        &seed,
        ctx.mail,
        ctx.now,
        new_id,
        &orders,
    )?;
    Ok(redo_summary(held, &done, old_outcome))
}

/// REDO's bookkeeping, whatever the ruleset: sets the held attempt and the
/// turn it opened aside (a `turn_changes` row), inserts the new open
/// attempt (same start state, seed commitment and deadline; `redo_of` the
/// held one) with the same umpire dice, and returns its id and the old
/// outcome (the next turn's row id and state hash), if there was one.
pub(crate) fn set_aside_for_redo(
    ctx: &UmpireCtx<'_, '_>,
    held: Attempt,
) -> Result<(i64, Option<(i64, String)>), TurnPlaneError> {
    let tx = ctx.tx;
    let old_outcome: Option<(i64, String)> = tx
        .query_row(
            "SELECT id, state_hash FROM turns WHERE prev_turn_id = ?1 AND superseded_at IS NULL",
            [held.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    tx.execute(
        "INSERT INTO turn_changes (game_id, kind, actor, at, turn_number) VALUES (?1, 'redo', ?2, ?3, ?4)",
        params![ctx.game_id.0, ctx.actor, ctx.now, held.number],
    )?;
    let change = tx.last_insert_rowid();
    tx.execute(
        "UPDATE turns SET superseded_at = ?2, superseded_by = ?3 WHERE id = ?1",
        params![held.id, ctx.now, change],
    )?;
    if let Some((next, _)) = &old_outcome {
        tx.execute(
            "UPDATE turns SET superseded_at = ?2, superseded_by = ?3 WHERE id = ?1",
            params![next, ctx.now, change],
        )?;
    }
    tx.execute(
        "INSERT INTO turns (game_id, number, status, deadline_at, grace_secs, seed_commitment,
                            state_json, state_hash, opened_at, attempt, prev_turn_id, redo_of)
         SELECT game_id, number, 'open', deadline_at, grace_secs, seed_commitment,
                state_json, state_hash, opened_at, attempt + 1, prev_turn_id, id
         FROM turns WHERE id = ?1",
        [held.id],
    )?;
    let new_id = tx.last_insert_rowid();
    // Umpire dice: the same dice again, in the same order, for the same purposes.
    tx.execute(
        "INSERT INTO umpire_dice (game_id, turn_id, seq, value, kind, subject, request_id, actor, at)
         SELECT game_id, ?2, seq, value, kind, subject, request_id, actor, at FROM umpire_dice
         WHERE turn_id = ?1 AND discarded_at IS NULL",
        params![held.id, new_id],
    )?;
    Ok((new_id, old_outcome))
}

/// The umpire's line after a REDO.
pub(crate) fn redo_summary(
    held: Attempt,
    done: &crate::game::turn::TurnProcessed,
    old_outcome: Option<(i64, String)>,
) -> String {
    if !done.dice_wanted.is_empty() {
        return format!(
            "turn {} set aside for a REDO (attempt {}); with the corrections it needs {} more dice: {}",
            held.number,
            held.attempt + 1,
            done.dice_wanted.len(),
            done.dice_wanted.join("; ")
        );
    }
    let same = old_outcome.is_some_and(|(_, h)| h == done.state_hash);
    format!(
        "turn {} adjudicated again (attempt {}): {} events, {} dice; {}; held for review, previews sent",
        held.number,
        held.attempt + 1,
        done.events,
        done.rolls,
        if same {
            "the outcome is the same as before".to_string()
        } else {
            format!(
                "a new outcome (state {})",
                done.state_hash.get(..12).unwrap_or(&done.state_hash)
            )
        }
    )
}

/// What a SET corrects: the held attempt (for its REDO; `true`) or, when
/// none is held, the open one.
pub(crate) fn correction_target(
    ctx: &UmpireCtx<'_, '_>,
) -> Result<(Attempt, bool), TurnPlaneError> {
    Ok(match live_with_status(ctx, "held")? {
        Some(h) => (h, true),
        None => (
            live_with_status(ctx, "open")?
                .ok_or_else(|| TurnPlaneError::NoTurnToCorrect(ctx.game.to_string()))?,
            false,
        ),
    })
}

/// `SET`: records a correction to the start state of the held turn (to
/// take effect at REDO) or, when none is held, of the open turn (to take
/// effect when it is processed), after checking it against the rules'
/// bounds ([`correct::check`]) on the state as already corrected.
pub fn set(
    ctx: &UmpireCtx<'_, '_>,
    unit: &str,
    value: &SetValue,
    reason: &str,
) -> Result<String, TurnPlaneError> {
    if reason.trim().is_empty() {
        return Err(TurnPlaneError::NoReason);
    }
    let tx = ctx.tx;
    let (target, held) = correction_target(ctx)?;
    let found: Option<(i64, Option<u32>, String)> = tx
        .query_row(
            "SELECT id, rules_id, name FROM units WHERE game_id = ?1
             AND (name = ?2 COLLATE NOCASE
                  OR EXISTS (SELECT 1 FROM json_each(aliases_json) WHERE value = ?2 COLLATE NOCASE))
             ORDER BY id LIMIT 1",
            params![ctx.game_id.0, unit.trim()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let (unit_row, rules_id, name) = match found {
        Some((row, Some(rules), name)) => (row, UnitId(rules), name),
        _ => {
            return Err(TurnPlaneError::NoSuchUnit {
                game: ctx.game.to_string(),
                unit: unit.to_string(),
            });
        }
    };
    let stored = snapshot_of(tx, target.id)?;
    let mut corrections = correct::corrections_for(tx, target.id)?;
    if held {
        // What a REDO would start from: with those already made on it.
        corrections.extend(correct::made_while_held(tx, target.id)?);
    }
    let mut current = correct::apply_corrections(stored, &corrections)
        .map_err(|problem| TurnCycleError::Correction {
            turn: target.number,
            problem,
        })?
        .battle;
    let bounds = bounds_for(tx, ctx.game_id.0, rules_id)?;
    correct::check(&current, rules_id, value, &bounds).map_err(TurnPlaneError::OutOfBounds)?;
    let previous =
        correct::apply(&mut current, rules_id, value).map_err(TurnPlaneError::OutOfBounds)?;
    let value_json = serde_json::to_string(value).map_err(|e| TurnPlaneError::Stored {
        what: "correction",
        problem: e.to_string(),
    })?;
    tx.execute(
        "INSERT INTO corrections (game_id, turn_id, unit_id, rules_unit, field, made_while,
                                  value_json, previous_json, reason, actor, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?11, ?6, ?7, ?8, ?9, ?10)",
        params![
            ctx.game_id.0,
            target.id,
            unit_row,
            rules_id.0,
            correct::field_name(value),
            value_json,
            previous.to_string(),
            reason.trim(),
            ctx.actor,
            ctx.now,
            if held { "held" } else { "open" }
        ],
    )?;
    Ok(format!(
        "{name}: {} set to {} (was {previous}) at the start of turn {}{}",
        correct::field_name(value),
        serde_json::to_value(value)
            .ok()
            .and_then(|v| v.get("value").cloned())
            .unwrap_or_default(),
        target.number,
        if held {
            "; REDO to adjudicate the held turn with it"
        } else {
            "; it applies when the turn is processed"
        }
    ))
}

/// The stored start snapshot of attempt `turn_id`.
pub(crate) fn snapshot_of(tx: &Transaction<'_>, turn_id: i64) -> Result<Snapshot, TurnPlaneError> {
    let json: String = tx.query_row(
        "SELECT state_json FROM turns WHERE id = ?1",
        [turn_id],
        |r| r.get(0),
    )?;
    Snapshot::from_json(&json).map_err(|e| TurnPlaneError::Stored {
        what: "snapshot",
        problem: e.to_string(),
    })
}

/// The table's size (from the stored scenario) and the castings `unit`
/// took the field with (the first snapshot of turn 1).
fn bounds_for(tx: &Transaction<'_>, game: i64, unit: UnitId) -> Result<Bounds, TurnPlaneError> {
    let toml: String = tx.query_row(
        "SELECT scenario_toml FROM games WHERE id = ?1",
        [game],
        |r| r.get(0),
    )?;
    let scenario =
        Scenario::from_toml_str(&toml, "stored scenario").map_err(|e| TurnPlaneError::Stored {
            what: "scenario",
            problem: e.to_string(),
        })?;
    let first: i64 = tx.query_row(
        "SELECT id FROM turns WHERE game_id = ?1 AND number = 1 ORDER BY id LIMIT 1",
        [game],
        |r| r.get(0),
    )?;
    let start = snapshot_of(tx, first)?;
    let starting_castings = start.battle.unit(unit).map_or(0, |u| u.castings);
    Ok(Bounds {
        table: (scenario.table.width, scenario.table.height),
        starting_castings,
    })
}
