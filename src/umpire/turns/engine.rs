//! `REDO` and `SET` for a game played through its ruleset's mail plane
//! (`rules::MailEngine`; SFRM at brigade scale): the same attempts,
//! corrections-as-inputs and umpire dice as Iron Brigade's
//! (docs/umpire-turns.md), with the state and the corrections in the
//! ruleset's own serialised form. `ROLLBACK`/`ROLLFORWARD` are
//! ruleset-neutral already ([`super::timeline`]).

use super::held::{
    correction_target, game_seed, live_with_status, redo_summary, set_aside_for_redo,
};
use super::{TurnPlaneError, UmpireCtx};
use crate::game::engine_game::{self, NewCorrection};
use crate::game::turn::TurnCycleError;
use crate::rules::{MailEngine, MailEngineError};

fn engine_err(turn: u32, source: MailEngineError) -> TurnPlaneError {
    match source {
        MailEngineError::Refused(why) => TurnPlaneError::OutOfBounds(why),
        source => TurnPlaneError::Turn(TurnCycleError::MailEngine { turn, source }),
    }
}

/// `REDO` of the held attempt: set aside with the turn it opened, and
/// adjudicated again from the same stored start state with every
/// correction made to it, the same orders (its `turn-input`), the same
/// dice (the turn's stream, or the umpire's dice again in order). Without
/// corrections the outcome is the same, bit for bit.
pub fn redo(ctx: &UmpireCtx<'_, '_>, engine: &dyn MailEngine) -> Result<String, TurnPlaneError> {
    let held = live_with_status(ctx, "held")?
        .ok_or_else(|| TurnPlaneError::NothingHeld(ctx.game.to_string()))?;
    let orders = engine_game::attempt_input(ctx.tx, held.id)?.ok_or(TurnPlaneError::Stored {
        what: "turn-input event",
        problem: format!("turn {} has none to adjudicate again", held.number),
    })?;
    let (new_id, old_outcome) = set_aside_for_redo(ctx, held)?;
    let seed = game_seed(ctx.tx, ctx.game_id.0)?;
    let done = engine_game::run_attempt(
        ctx.tx,
        engine,
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

/// `SET <unit> <field> <value> BECAUSE "<reason>"`: the ruleset reads and
/// checks the correction against the start state of the held turn (as a
/// REDO would start it: with the corrections already made) or, when none
/// is held, of the open turn, and it is recorded as an input to that
/// attempt.
pub fn set_free(
    ctx: &UmpireCtx<'_, '_>,
    written: &str,
    reason: &str,
) -> Result<String, TurnPlaneError> {
    if reason.trim().is_empty() {
        return Err(TurnPlaneError::NoReason);
    }
    let Some(engine) = crate::game::engine_seat::engine_of_game(ctx.tx, ctx.game_id)? else {
        return Err(TurnPlaneError::OutOfBounds(
            "write `SET <unit> morale|castings|position|formation|facing|perilous|protection <value> BECAUSE \"<reason>\"`".into(),
        ));
    };
    let (target, held) = correction_target(ctx)?;
    let (text, stored): (String, String) = ctx.tx.query_row(
        "SELECT g.scenario_toml, t.state_json FROM turns t JOIN games g ON g.id = t.game_id
         WHERE t.id = ?1",
        [target.id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let mut made = engine_game::corrections_for(ctx.tx, target.id)?;
    if held {
        made.extend(engine_game::made_while_held(ctx.tx, target.id)?);
    }
    let current = engine_game::corrected_state(engine, &text, &stored, &made)
        .map_err(|e| engine_err(target.number, e))?;
    let c = engine
        .correct(&text, &current, written)
        .map_err(|e| engine_err(target.number, e))?;
    engine_game::record_correction(
        ctx.tx,
        &NewCorrection {
            game_id: ctx.game_id,
            turn_id: target.id,
            held,
            correction: &c,
            reason,
            actor: ctx.actor,
            now: ctx.now,
        },
    )?;
    Ok(format!(
        "{}: {} set to {} (was {}) at the start of turn {}{}",
        c.unit,
        c.field,
        c.value,
        c.previous,
        target.number,
        if held {
            "; REDO to adjudicate the held turn with it"
        } else {
            "; it applies when the turn is processed"
        }
    ))
}
