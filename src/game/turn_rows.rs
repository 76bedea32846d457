//! What the turn processors of every ruleset share (`game::turn` for Iron
//! Brigade, `game::engine_game` for a ruleset's mail plane): what processing
//! did, the `events` and `dice_rolls` rows, whether a turn is held, and the
//! next turn's deadline. Its own file so that neither processor imports the
//! other for them.

use super::deadline::DeadlineSettings;
use crate::dice::Roll;
use crate::store::{GameId, seed_commitment, sha256_hex, turn_seed};
use rusqlite::{OptionalExtension, Transaction, params};

/// One adjudicated attempt, as both turn processors write it.
pub struct Attempt<'a> {
    pub game_id: GameId,
    /// The attempt's `turns` row.
    pub turn_id: i64,
    pub number: u32,
    /// Copied to the next turn.
    pub grace_secs: i64,
    pub game_seed: &'a [u8; 32],
    pub events: &'a [EventRow],
    pub rolls: &'a [RollRow],
    /// The state at the start of the next turn.
    pub next_json: &'a str,
    pub now: i64,
}

/// Writes an attempt's events and dice, closes it (held for the umpire in
/// an umpired game, else released; its seed revealed) and opens the next
/// turn with its state, the next seed's commitment and its deadline.
/// Returns whether it is held and the next state's hash.
pub fn record_attempt(
    tx: &Transaction<'_>,
    a: &Attempt<'_>,
) -> Result<(bool, String), rusqlite::Error> {
    for row in a.events {
        tx.execute(
            "INSERT INTO events (game_id, turn_id, seq, kind, data_json) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![a.game_id.0, a.turn_id, row.seq, row.kind, row.data_json],
        )?;
    }
    for row in a.rolls {
        tx.execute(
            "INSERT INTO dice_rolls (game_id, turn_id, seq, draw_index, sides, value, purpose, subject, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                a.game_id.0,
                a.turn_id,
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
    let seed = turn_seed(a.game_seed, a.number);
    let held = is_umpired(tx, a.game_id)?;
    if held {
        tx.execute(
            "UPDATE turns SET status = 'held', processed_at = ?2, seed_revealed = ?3 WHERE id = ?1",
            params![a.turn_id, a.now, hex::encode(seed)],
        )?;
    } else {
        tx.execute(
            "UPDATE turns SET status = 'released', processed_at = ?2, released_at = ?2, seed_revealed = ?3
             WHERE id = ?1",
            params![a.turn_id, a.now, hex::encode(seed)],
        )?;
    }
    let state_hash = sha256_hex(a.next_json.as_bytes());
    let next_number = a.number + 1;
    tx.execute(
        "INSERT INTO turns (game_id, number, status, deadline_at, grace_secs, seed_commitment,
                            state_json, state_hash, opened_at, prev_turn_id)
         VALUES (?1, ?2, 'open', ?8, ?3, ?4, ?5, ?6, ?7, ?9)",
        params![
            a.game_id.0,
            next_number,
            a.grace_secs,
            seed_commitment(&turn_seed(a.game_seed, next_number)),
            a.next_json,
            state_hash,
            a.now,
            next_deadline(tx, a.game_id, a.now),
            a.turn_id
        ],
    )?;
    Ok((held, state_hash))
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
    /// Umpired game: the turn is held for the umpire's review, nothing was
    /// queued for the players (issue #8).
    pub held: bool,
    /// Umpire dice: the turn was NOT adjudicated; it waits for these rolls
    /// (each roll's purpose, in order), asked of the umpire. `events`,
    /// `rolls` and `state_hash` are then empty and `next_turn` = `turn`.
    pub dice_wanted: Vec<String>,
}

/// The number of the game's held turn (umpired games: processed, waiting
/// for the umpire's RELEASE or REDO), if any.
pub fn held_turn(tx: &Transaction<'_>, game_id: GameId) -> Result<Option<u32>, rusqlite::Error> {
    tx.query_row(
        "SELECT number FROM turns WHERE game_id = ?1 AND status = 'held' AND superseded_at IS NULL",
        [game_id.0],
        |r| r.get(0),
    )
    .optional()
}

/// Whether the game has an umpire: its processed turns are then held for
/// review (issue #8) instead of released.
pub fn is_umpired(tx: &Transaction<'_>, game_id: GameId) -> Result<bool, rusqlite::Error> {
    tx.query_row(
        "SELECT umpire_address IS NOT NULL FROM games WHERE id = ?1",
        [game_id.0],
        |r| r.get(0),
    )
}

/// One `events` row as the turn processor writes it and replay reads it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    pub seq: i64,
    pub kind: String,
    pub data_json: String,
}

/// One `dice_rolls` row as the turn processor writes it and replay reads it
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

/// The `dice_rolls` rows of a turn's dice, in the order rolled: the turn's
/// stream (with draw indexes) or the umpire's dice (source `umpire`).
pub fn roll_rows(log: &[Roll], umpire: bool) -> Vec<RollRow> {
    log.iter()
        .enumerate()
        .map(|(i, roll)| RollRow {
            seq: i64::try_from(i).unwrap_or(i64::MAX),
            draw_index: (!umpire).then(|| i64::try_from(roll.draw).unwrap_or(i64::MAX)),
            sides: 6,
            value: i64::from(roll.value),
            purpose: if roll.purpose.note.is_empty() {
                roll.purpose.kind.as_str().to_string()
            } else {
                format!("{}: {}", roll.purpose.kind.as_str(), roll.purpose.note)
            },
            subject: Some(roll.purpose.subject.clone()),
            source: if umpire { "umpire" } else { "stream" }.to_string(),
        })
        .collect()
}

/// Test-only: when this environment variable names a file, the turn
/// processor writes that file and then sleeps inside the turn's
/// transaction (just before the next turn is opened), so that
/// `tests/kill_restart.rs` can SIGKILL it mid-turn. Never set it in
/// production: a turn would take a minute longer.
pub const PAUSE_IN_TURN_ENV: &str = "ADJUTANT_TEST_PAUSE_IN_TURN";

fn pause_for_tests() {
    if let Some(path) = std::env::var_os(PAUSE_IN_TURN_ENV) {
        tracing::warn!("{PAUSE_IN_TURN_ENV} is set: pausing inside the turn's transaction");
        if std::fs::write(&path, b"inside the turn transaction\n").is_ok() {
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
    }
}

/// The deadline for a turn of `game` opening at `opened_at`, from the
/// game's stored settings. A schedule that cannot be read is logged and
/// gives no deadline, so a turn is never lost over it (the game then waits
/// for READY until the umpire sets the schedule again).
///
/// Called by the turn processor inside the turn's transaction, as the next
/// turn is inserted: the place where [`PAUSE_IN_TURN_ENV`] pauses.
pub fn next_deadline(tx: &Transaction<'_>, game: GameId, opened_at: i64) -> Option<i64> {
    pause_for_tests();
    let json: Option<String> = tx
        .query_row(
            "SELECT settings_json FROM games WHERE id = ?1",
            [game.0],
            |r| r.get(0),
        )
        .optional()
        .ok()
        .flatten();
    let result = json
        .as_deref()
        .map(DeadlineSettings::from_settings_json)
        .transpose()
        .and_then(|s| s.map(|s| s.deadline_for(opened_at)).transpose());
    match result {
        Ok(d) => d.flatten(),
        Err(e) => {
            tracing::error!(game = game.0, error = %e, "no deadline set for the next turn");
            None
        }
    }
}
