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
use super::reports::{ReportsError, TurnResult, issue_turn_reports};
use super::snapshot::Snapshot;
use crate::dice::{DiceSource, Roll, StreamDice};
use crate::rules::iron_brigade::orders::{OfficerMove, TurnOrders, UnitOrder};
use crate::rules::iron_brigade::turn::{TurnError, TurnOutcome, resolve_turn};
use crate::store::{GameId, Store, StoreError, seed_commitment, sha256_hex, turn_seed};
use rusqlite::{OptionalExtension, Transaction, params};

/// Why a turn could not be processed. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum TurnCycleError {
    #[error("no game named `{0}`; `adjutant game list` shows the games")]
    NoSuchGame(String),
    #[error("game `{0}` has no open turn to process")]
    NoOpenTurn(String),
    #[error("the stored snapshot of turn {turn} cannot be read: {source}")]
    Snapshot {
        turn: u32,
        source: serde_json::Error,
    },
    #[error("order {id} of turn {turn} cannot be read: {source}")]
    Order {
        id: i64,
        turn: u32,
        source: serde_json::Error,
    },
    #[error("the engine refused turn {turn}: {source}")]
    Engine { turn: u32, source: TurnError },
    #[error("cannot serialise the outcome of turn {turn}: {source}")]
    Outcome {
        turn: u32,
        source: serde_json::Error,
    },
    #[error("the reports of turn {turn} cannot be made, so the turn was not processed: {source}")]
    Reports { turn: u32, source: ReportsError },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("database error while processing: {0}")]
    Sql(#[from] rusqlite::Error),
}

impl TurnCycleError {
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            TurnCycleError::NoSuchGame(_) | TurnCycleError::NoOpenTurn(_)
        ) || matches!(self, TurnCycleError::Store(e) if e.is_user_error())
    }
}

/// What processing a turn did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TurnProcessed {
    pub game: String,
    pub turn: u32,
    pub events: usize,
    pub rolls: usize,
    pub next_turn: u32,
    /// SHA-256 of the next turn's snapshot: the outcome's fingerprint.
    pub state_hash: String,
}

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

/// The open turn's number, snapshot and row id.
struct OpenTurn {
    id: i64,
    number: u32,
    snapshot: Snapshot,
    grace_secs: i64,
}

fn open_turn(
    tx: &Transaction<'_>,
    game: &str,
    game_id: GameId,
) -> Result<OpenTurn, TurnCycleError> {
    let row: Option<(i64, u32, String, i64)> = tx
        .query_row(
            "SELECT id, number, state_json, grace_secs FROM turns
             WHERE game_id = ?1 AND status = 'open'",
            [game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let (id, number, json, grace_secs) =
        row.ok_or_else(|| TurnCycleError::NoOpenTurn(game.to_string()))?;
    let snapshot = Snapshot::from_json(&json).map_err(|source| TurnCycleError::Snapshot {
        turn: number,
        source,
    })?;
    Ok(OpenTurn {
        id,
        number,
        snapshot,
        grace_secs,
    })
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
    let turn = open_turn(tx, game, game_id)?;
    let (orders, order_ids) = turn_orders(tx, game_id, turn.number)?;
    let seed = turn_seed(game_seed, turn.number);
    let adjudicated = adjudicate(turn.number, &turn.snapshot, &orders, seed)?;
    for row in &adjudicated.events {
        tx.execute(
            "INSERT INTO events (game_id, turn_id, seq, kind, data_json) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![game_id.0, turn.id, row.seq, row.kind, row.data_json],
        )?;
    }
    for row in &adjudicated.rolls {
        tx.execute(
            "INSERT INTO dice_rolls (game_id, turn_id, seq, draw_index, sides, value, purpose, subject, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                game_id.0,
                turn.id,
                row.seq,
                row.draw_index,
                row.sides,
                row.value,
                row.purpose,
                row.subject,
                row.source
            ],
        )?;
    }
    let rolls = &adjudicated.log;
    let outcome = adjudicated.outcome;
    let outcome_err = |source| TurnCycleError::Outcome {
        turn: turn.number,
        source,
    };

    for id in &order_ids {
        tx.execute("UPDATE orders SET status = 'active' WHERE id = ?1", [id])?;
    }

    tx.execute(
        "UPDATE turns SET status = 'released', processed_at = ?2, released_at = ?2, seed_revealed = ?3
         WHERE id = ?1",
        params![turn.id, now, hex::encode(seed)],
    )?;

    let next = Snapshot {
        battle: outcome.state,
        book: outcome.book,
    };
    let next_json = next.to_json().map_err(outcome_err)?;
    let state_hash = sha256_hex(next_json.as_bytes());
    let next_number = turn.number + 1;
    tx.execute(
        "INSERT INTO turns (game_id, number, status, deadline_at, grace_secs, seed_commitment,
                            state_json, state_hash, opened_at)
         VALUES (?1, ?2, 'open', ?8, ?3, ?4, ?5, ?6, ?7)",
        params![
            game_id.0,
            next_number,
            turn.grace_secs,
            seed_commitment(&turn_seed(game_seed, next_number)),
            next_json,
            state_hash,
            now,
            super::cycle::next_deadline(tx, game_id, now)
        ],
    )?;

    super::dispatches::record_outcome(tx, game_id, &next.battle, &outcome.events, turn.number)?;

    issue_turn_reports(
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
        },
        mail,
    )
    .map_err(|source| TurnCycleError::Reports {
        turn: turn.number,
        source,
    })?;

    Ok(TurnProcessed {
        game: game.to_string(),
        turn: turn.number,
        events: outcome.events.len(),
        rolls: rolls.len(),
        next_turn: next_number,
        state_hash,
    })
}

/// One `events` row as [`process_in`] writes it and replay reads it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    pub seq: i64,
    pub kind: String,
    pub data_json: String,
}

/// One `dice_rolls` row as [`process_in`] writes it and replay reads it
/// back. The engine's dice are a stream, so `draw_index` and `subject` are
/// always present here; the columns allow NULL for umpire dice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollRow {
    pub seq: i64,
    pub draw_index: Option<i64>,
    pub sides: i64,
    pub value: i64,
    pub purpose: String,
    pub subject: Option<String>,
    pub source: String,
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
    let mut dice = StreamDice::new(seed);
    let outcome: TurnOutcome = resolve_turn(&snapshot.battle, &snapshot.book, orders, &mut dice)
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

    let rolls = dice
        .log()
        .iter()
        .enumerate()
        .map(|(i, roll)| RollRow {
            seq: i64::try_from(i).unwrap_or(i64::MAX),
            draw_index: Some(i64::try_from(roll.draw).unwrap_or(i64::MAX)),
            sides: 6,
            value: i64::from(roll.value),
            purpose: if roll.purpose.note.is_empty() {
                roll.purpose.kind.as_str().to_string()
            } else {
                format!("{}: {}", roll.purpose.kind.as_str(), roll.purpose.note)
            },
            subject: Some(roll.purpose.subject.clone()),
            source: "stream".to_string(),
        })
        .collect();
    Ok(Adjudication {
        outcome,
        events,
        rolls,
        log: dice.log().to_vec(),
    })
}

fn next_seq(rows: &[EventRow]) -> i64 {
    i64::try_from(rows.len()).unwrap_or(i64::MAX)
}
