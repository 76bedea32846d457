//! Processing a turn: the one place game state changes.
//!
//! In ONE SQLite transaction: read the turn's snapshot and the orders that
//! count for it, run the pure engine with the turn's dice stream, write every
//! event and every roll, close the turn (revealing its seed) and open the
//! next with the new snapshot and the next seed's commitment. A crash at any
//! line leaves either the old turn open or the new one open, never half.
//!
//! The engine is deterministic: the same snapshot, orders and seed give the
//! same bytes, so `state_hash` of the next turn identifies the outcome and a
//! replay can check it.

use super::report_mail::ReportMail;
use super::reports::{TurnResult, issue_turn_reports};
use super::snapshot::Snapshot;
use super::umpire_dice::{self, UmpireDice};
use crate::dice::{DiceSource, Roll, StreamDice};
use crate::rules::iron_brigade::orders::{OfficerMove, TurnOrders, UnitOrder};
use crate::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use crate::store::{GameId, Store, StoreError, turn_seed};
use rusqlite::{OptionalExtension, Transaction, params};

pub use super::turn_error::TurnCycleError;
use super::turn_rows::{Attempt, record_attempt};
pub use super::turn_rows::{
    EventRow, PAUSE_IN_TURN_ENV, RollRow, TurnProcessed, held_turn, is_umpired, next_deadline,
    roll_rows,
};

/// Processes the open turn of `game` at time `now` with the turn's seeded
/// dice stream, in one transaction — the reports of the new turn and their
/// mail included (`mail`: our address, Message-ID domain and reply-token
/// key, as intake has them).
pub fn process_turn(
    store: &mut Store,
    game: &str,
    mail: &ReportMail,
    now: i64,
) -> Result<TurnProcessed, TurnCycleError> {
    let game_id = store
        .game_id(game)?
        .ok_or_else(|| TurnCycleError::NoSuchGame(game.to_string()))?;
    let game_seed = store
        .game_seed(game_id)?
        .ok_or_else(|| TurnCycleError::NoSuchGame(game.to_string()))?;
    let tx = store.transaction()?;
    let result = process_in(&tx, game, game_id, &game_seed, mail, now)?;
    tx.commit()?;
    Ok(result)
}

/// As [`process_turn`], inside the caller's transaction (the umpire's
/// `DICE` runs the turn as soon as its dice are in).
pub fn process_open(
    tx: &Transaction<'_>,
    game: &str,
    game_id: GameId,
    mail: &ReportMail,
    now: i64,
) -> Result<TurnProcessed, TurnCycleError> {
    let seed: Vec<u8> = tx.query_row("SELECT seed FROM games WHERE id = ?1", [game_id.0], |r| {
        r.get(0)
    })?;
    let seed: [u8; 32] = seed
        .try_into()
        .map_err(|_| TurnCycleError::NoSuchGame(game.to_string()))?;
    process_in(tx, game, game_id, &seed, mail, now)
}

/// The orders the engine was given for attempt `turn_id` (its `turn-input`
/// event), for a REDO of it.
pub fn turn_input(
    tx: &Transaction<'_>,
    turn_id: i64,
) -> Result<Option<TurnOrders>, TurnCycleError> {
    #[derive(serde::Deserialize)]
    struct Input {
        orders: TurnOrders,
    }
    // A game played through a mail plane keeps its own input (REDO of
    // it is not available yet).
    let (game_id, game): (i64, String) = tx.query_row(
        "SELECT g.id, g.name FROM turns t JOIN games g ON g.id = t.game_id WHERE t.id = ?1",
        [turn_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if super::engine_seat::engine_of_game(tx, GameId(game_id))?.is_some() {
        return Err(TurnCycleError::NotForMailPlane(game));
    }
    let row: Option<(u32, String)> = tx
        .query_row(
            "SELECT t.number, e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE e.turn_id = ?1 AND e.seq = 0 AND e.kind = 'turn-input'",
            [turn_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    row.map(|(turn, json)| {
        serde_json::from_str::<Input>(&json)
            .map(|i| i.orders)
            .map_err(|source| TurnCycleError::Order {
                id: 0,
                turn,
                source,
            })
    })
    .transpose()
}

/// The open turn's number and row id.
struct OpenTurn {
    id: i64,
    number: u32,
}

fn open_turn(
    tx: &Transaction<'_>,
    game: &str,
    game_id: GameId,
) -> Result<OpenTurn, TurnCycleError> {
    let row: Option<(i64, u32)> = tx
        .query_row(
            "SELECT id, number FROM turns
             WHERE game_id = ?1 AND status = 'open' AND superseded_at IS NULL",
            [game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (id, number) = row.ok_or_else(|| TurnCycleError::NoOpenTurn(game.to_string()))?;
    Ok(OpenTurn { id, number })
}

/// The orders written for `turn` and not replaced: unit orders and
/// officers' moves, in the order they were stored.
fn turn_orders(
    tx: &Transaction<'_>,
    game_id: GameId,
    turn: u32,
) -> Result<(TurnOrders, Vec<i64>), TurnCycleError> {
    let mut stmt = tx.prepare(
        "SELECT id, unit_id IS NOT NULL, parsed_json FROM orders
         WHERE game_id = ?1 AND issued_turn = ?2 AND status = 'pending'
         ORDER BY id",
    )?;
    let rows: Vec<(i64, bool, String)> = stmt
        .query_map(params![game_id.0, turn], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<Result<_, _>>()?;
    let mut orders = TurnOrders::default();
    let mut ids = Vec::new();
    for (id, for_unit, json) in rows {
        let bad = |source| TurnCycleError::Order { id, turn, source };
        if for_unit {
            let mut o: UnitOrder = serde_json::from_str(&json).map_err(bad)?;
            o.id = u64::try_from(id).unwrap_or_default();
            orders.unit_orders.push(o);
        } else {
            let m: OfficerMove = serde_json::from_str(&json).map_err(bad)?;
            orders.officer_moves.push(m);
        }
        ids.push(id);
    }
    // SFRM dispatches written for this turn leave with their messengers.
    orders.dispatches = super::dispatches::turn_dispatches(tx, game_id, turn)?;
    Ok((orders, ids))
}

fn process_in(
    tx: &Transaction<'_>,
    game: &str,
    game_id: GameId,
    game_seed: &[u8; 32],
    mail: &ReportMail,
    now: i64,
) -> Result<TurnProcessed, TurnCycleError> {
    // An ended game processes nothing, whoever asks: `game process`, the
    // daemon's deadline, the umpire's PROCESS, DICE or RELEASE.
    let status: String =
        tx.query_row("SELECT status FROM games WHERE id = ?1", [game_id.0], |r| {
            r.get(0)
        })?;
    if status == "finished" || status == "abandoned" {
        return Err(TurnCycleError::GameOver {
            game: game.to_string(),
            status,
        });
    }
    if let Some(held) = held_turn(tx, game_id)? {
        return Err(TurnCycleError::Held {
            game: game.to_string(),
            turn: held,
        });
    }
    // A ruleset played through its mail plane (SFRM) has its own path.
    if let Some(engine) = super::engine_seat::engine_of_game(tx, game_id)? {
        crate::rulesets::require_by_mail(&crate::store::game_ruleset(tx, game_id)?)?;
        return super::engine_game::process(tx, engine, game, game_id, game_seed, mail, now);
    }
    let turn = open_turn(tx, game, game_id)?;
    // A REDO waiting for umpire dice re-adjudicates with the orders its
    // original was given; otherwise the orders written for the turn.
    let redo_of: Option<i64> =
        tx.query_row("SELECT redo_of FROM turns WHERE id = ?1", [turn.id], |r| {
            r.get(0)
        })?;
    let (orders, order_ids) = match redo_of {
        Some(original) => (turn_input(tx, original)?.unwrap_or_default(), Vec::new()),
        None => turn_orders(tx, game_id, turn.number)?,
    };
    let done = run_attempt(tx, game, game_id, game_seed, mail, now, turn.id, &orders)?;
    if done.dice_wanted.is_empty() {
        for id in &order_ids {
            tx.execute("UPDATE orders SET status = 'active' WHERE id = ?1", [id])?;
        }
    }
    Ok(done)
}

/// The start state of attempt `turn_id` as the engine sees it: the stored
/// snapshot with the umpire's corrections applied (`SET`, recorded for this
/// attempt and every attempt it is a REDO of, in the order made).
pub fn effective_snapshot(
    tx: &Transaction<'_>,
    turn_id: i64,
    number: u32,
    stored: Snapshot,
) -> Result<Snapshot, TurnCycleError> {
    let corrections = super::corrections::corrections_for(tx, turn_id)?;
    super::corrections::apply_corrections(stored, &corrections).map_err(|problem| {
        TurnCycleError::Correction {
            turn: number,
            problem,
        }
    })
}

/// Adjudicates the open attempt `turn_id` with `orders` and writes it all:
/// events and dice, the attempt closed (released, or held in an umpired
/// game), the next turn opened, the reports made (and queued, or held).
/// Shared by processing and the umpire's REDO.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_attempt(
    tx: &Transaction<'_>,
    game: &str,
    game_id: GameId,
    game_seed: &[u8; 32],
    mail: &ReportMail,
    now: i64,
    turn_id: i64,
    orders: &TurnOrders,
) -> Result<TurnProcessed, TurnCycleError> {
    // The ruleset boundary: only a ruleset playable by mail is adjudicated
    // here; another's stored state is never misread as Iron Brigade.
    crate::rulesets::require_by_mail(&crate::store::game_ruleset(tx, game_id)?)?;
    // A game played through a mail plane is processed by `engine_game`;
    // only the umpire's REDO comes here with one.
    if super::engine_seat::engine_of_game(tx, game_id)?.is_some() {
        return Err(TurnCycleError::NotForMailPlane(game.to_string()));
    }
    let (number, json, grace_secs, attempt): (u32, String, i64, u32) = tx.query_row(
        "SELECT number, state_json, grace_secs, attempt FROM turns WHERE id = ?1",
        [turn_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    let stored = Snapshot::from_json(&json).map_err(|source| TurnCycleError::Snapshot {
        turn: number,
        source,
    })?;
    let snapshot = effective_snapshot(tx, turn_id, number, stored)?;
    let seed = turn_seed(game_seed, number);
    let adjudicated = if umpire_dice::umpire_mode(tx, game_id.0)? {
        // Umpire dice (issue #8): the dice given so far; when the engine
        // wants more, nothing is written but the request for them.
        let mut dice = UmpireDice::new(umpire_dice::given_dice(tx, turn_id)?);
        let result = adjudicate_with(number, &snapshot, orders, &mut dice, true);
        if dice.needs_more() {
            let wanted =
                umpire_dice::request(tx, game, game_id.0, turn_id, number, &dice, mail, now)?;
            return Ok(TurnProcessed {
                game: game.to_string(),
                turn: number,
                events: 0,
                rolls: dice.usable(),
                next_turn: number,
                state_hash: String::new(),
                held: false,
                dice_wanted: wanted,
            });
        }
        result?
    } else {
        adjudicate(number, &snapshot, orders, seed)?
    };
    let rolls = &adjudicated.log;
    let outcome = adjudicated.outcome;
    let next = Snapshot {
        battle: outcome.state,
        book: outcome.book,
    };
    let next_json = next.to_json().map_err(|source| TurnCycleError::Outcome {
        turn: number,
        source,
    })?;
    // In an umpired game the turn is held for the umpire's review: nothing
    // reaches the players until RELEASE (issue #8).
    let (held, state_hash) = record_attempt(
        tx,
        &Attempt {
            game_id,
            turn_id,
            number,
            grace_secs,
            game_seed,
            events: &adjudicated.events,
            rolls: &adjudicated.rolls,
            next_json: &next_json,
            now,
        },
    )?;
    let next_number = number + 1;

    super::dispatches::record_outcome(tx, game_id, &next.battle, &outcome.events, number)?;
    register_new_units(tx, game_id, &next.battle)?;

    let issued = issue_turn_reports(
        tx,
        &TurnResult {
            game,
            game_id,
            state: &next.battle,
            book: &next.book,
            events: &outcome.events,
            visibility: &outcome.visibility,
            rolls,
            now,
            hold: held.then_some(super::reports::Hold { turn_id, attempt }),
        },
        mail,
    )
    .map_err(|source| TurnCycleError::Reports {
        turn: number,
        source,
    })?;
    // The scenario's last turn, told to the players: the game is over. An
    // umpired game ends when the umpire releases it (`umpire::turns`).
    if issued.last && !held {
        super::ending::finish(tx, game_id, number, now)?;
    }

    Ok(TurnProcessed {
        game: game.to_string(),
        turn: number,
        events: outcome.events.len(),
        rolls: rolls.len(),
        next_turn: next_number,
        state_hash,
        held,
        dice_wanted: Vec::new(),
    })
}

/// What the engine made of one turn, with the rows it gives the archive.
#[derive(Debug, Clone)]
pub struct Adjudication {
    pub outcome: TurnOutcome,
    /// seq 0 `turn-input`, the engine's events, one `sighting` per side.
    pub events: Vec<EventRow>,
    /// Every die, in the order rolled.
    pub rolls: Vec<RollRow>,
    /// The same dice as the engine logged them, for the umpire's report.
    pub log: Vec<Roll>,
}

/// The engine call, shared by [`process_turn`] and `adjutant replay` so
/// that replay checks exactly what processing did: the turn's dice stream
/// from `seed` (`turn_seed(game seed, turn)`), [`resolve_turn`] on the
/// snapshot and orders, and the rows to archive. Pure: no SQL, no clock.
pub fn adjudicate(
    turn: u32,
    snapshot: &Snapshot,
    orders: &TurnOrders,
    seed: [u8; 32],
) -> Result<Adjudication, TurnCycleError> {
    adjudicate_with(turn, snapshot, orders, &mut StreamDice::new(seed), false)
}

/// [`adjudicate`] with any dice: the turn's stream, or (`umpire`) the dice
/// the umpire rolled, archived with source `umpire` and no draw index.
pub fn adjudicate_with(
    turn: u32,
    snapshot: &Snapshot,
    orders: &TurnOrders,
    dice: &mut dyn DiceSource,
    umpire: bool,
) -> Result<Adjudication, TurnCycleError> {
    let outcome: TurnOutcome = resolve_turn(&snapshot.battle, &snapshot.book, orders, dice)
        .map_err(|source| TurnCycleError::Engine { turn, source })?;
    let outcome_err = |source| TurnCycleError::Outcome { turn, source };

    // First the engine's input — exactly the orders it was given — so that
    // `adjutant replay` can re-run the turn from the archive alone: the order
    // rows' statuses move on in later turns, this record does not.
    let input = serde_json::json!({ "orders": orders });
    let mut events = vec![EventRow {
        seq: 0,
        kind: "turn-input".to_string(),
        data_json: input.to_string(),
    }];
    // Every event, then each side's sightings (APSoF V.C.3: who saw what,
    // and from where), in a stable order.
    for event in &outcome.events {
        let data = serde_json::to_value(event).map_err(outcome_err)?;
        let kind = data
            .get("event")
            .and_then(|k| k.as_str())
            .unwrap_or("event")
            .to_string();
        events.push(EventRow {
            seq: next_seq(&events),
            kind,
            data_json: data.to_string(),
        });
    }
    for (side, seen) in &outcome.visibility {
        let data = serde_json::json!({ "side": side, "seen": seen });
        events.push(EventRow {
            seq: next_seq(&events),
            kind: "sighting".to_string(),
            data_json: data.to_string(),
        });
    }

    let rolls = roll_rows(dice.log(), umpire);
    Ok(Adjudication {
        outcome,
        events,
        rolls,
        log: dice.log().to_vec(),
    })
}

/// As [`process_turn`], inside the caller's transaction: the umpire's
/// `PROCESS` (`umpire::exec`) runs it among his other commands, all in one
/// transaction. Same code as `adjutant game process` and the daemon.
pub fn process_turn_in(
    tx: &Transaction<'_>,
    game: &str,
    mail: &ReportMail,
    now: i64,
) -> Result<TurnProcessed, TurnCycleError> {
    let row: Option<(i64, Vec<u8>)> = tx
        .query_row("SELECT id, seed FROM games WHERE name = ?1", [game], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let (id, seed) = row.ok_or_else(|| TurnCycleError::NoSuchGame(game.to_string()))?;
    let seed = <[u8; 32]>::try_from(seed.as_slice()).map_err(|_| {
        TurnCycleError::Store(StoreError::BadValue {
            what: format!("game `{game}` has a seed of {} bytes, not 32", seed.len()),
        })
    })?;
    process_in(tx, game, GameId(id), &seed, mail, now)
}

/// Gives every unit the engine created this turn (a sub-unit split off,
/// APSoF VII.C.1) its identity row in `units`, in the turn's transaction,
/// so orders can name it and reports list it like any other: side, name,
/// arm, weapon, commander (its parent's) and rules id. A unit that already
/// has a row (a REDO of the same split) is left as it is.
fn register_new_units(
    tx: &Transaction<'_>,
    game_id: GameId,
    battle: &crate::rules::iron_brigade::state::BattleState,
) -> Result<(), TurnCycleError> {
    let known: std::collections::BTreeSet<u32> = tx
        .prepare_cached("SELECT rules_id FROM units WHERE game_id = ?1 AND rules_id IS NOT NULL")?
        .query_map([game_id.0], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for u in battle.units.iter().filter(|u| !known.contains(&u.id.0)) {
        let side_name = battle
            .sides
            .iter()
            .find(|s| s.id == u.side)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        tx.execute(
            "INSERT INTO units (game_id, side_id, name, arm, weapon, commander_id, rules_id)
             SELECT ?1, s.id, ?3, ?4, ?5,
                    COALESCE((SELECT id FROM officers WHERE game_id = ?1 AND rules_id = ?6),
                             (SELECT MIN(id) FROM officers WHERE game_id = ?1 AND side_id = s.id)),
                    ?7
             FROM sides s WHERE s.game_id = ?1 AND s.name = ?2",
            params![
                game_id.0,
                side_name,
                u.name,
                u.arm.as_str(),
                u.weapon.as_str(),
                u.commander.map(|c| c.0),
                u.id.0
            ],
        )?;
    }
    Ok(())
}

fn next_seq(rows: &[EventRow]) -> i64 {
    i64::try_from(rows.len()).unwrap_or(i64::MAX)
}
