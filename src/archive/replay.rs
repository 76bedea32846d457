//! `adjutant replay GAME`: re-adjudicate every processed turn from the
//! archive alone and check that each outcome is byte-identical.
//!
//! For turn N the archive holds the snapshot N starts from, the engine's
//! input (event seq 0, `turn-input`), the revealed seed, and what came out:
//! events, dice and turn N+1's snapshot. Replay derives the seed again from
//! the game seed (`turn_seed`), checks it against `seed_revealed` and the
//! `seed_commitment` published before the turn, runs the same
//! [`adjudicate`] call that processed the turn, and compares:
//!
//! - the hash of the next snapshot with turn N+1's `state_hash` (and with
//!   the hash of its stored JSON, in case only the JSON was changed);
//! - a hash of the stored events and one of the stored dice with hashes of
//!   the re-run's rows.
//!
//! A turn whose own snapshot no longer matches its `state_hash` is named
//! too. Everything here but [`replay_game`]'s reads is pure.

use super::ArchiveError;
use super::load::{self, TurnRecord};
use crate::dice::ScriptedDice;
use crate::game::corrections::{Correction, apply_corrections};
use crate::game::snapshot::Snapshot;
use crate::game::turn::{EventRow, RollRow, TurnCycleError, adjudicate, adjudicate_with};
use crate::rules::iron_brigade::orders::TurnOrders;
use crate::rules::iron_brigade::state::UnitId;
use crate::store::{Store, seed_commitment, sha256_hex, turn_seed};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The verdict on one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnCheck {
    pub turn: u32,
    /// The attempt checked (1, then +1 per REDO).
    pub attempt: u32,
    /// False for an attempt REDO or ROLLBACK set aside (kept in the
    /// archive and checked all the same).
    pub live: bool,
    pub ok: bool,
    /// What differs, one sentence each; empty when `ok`.
    pub differences: Vec<String>,
    /// SHA-256 of the next snapshot as stored / as replayed.
    pub stored_state_hash: Option<String>,
    pub replayed_state_hash: Option<String>,
    /// SHA-256 over the stored / replayed event rows.
    pub stored_events_hash: String,
    pub replayed_events_hash: Option<String>,
    /// SHA-256 over the stored / replayed dice rows.
    pub stored_rolls_hash: String,
    pub replayed_rolls_hash: Option<String>,
}

/// The verdict on a whole game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplayReport {
    pub game: String,
    pub ok: bool,
    pub turns: Vec<TurnCheck>,
}

impl ReplayReport {
    pub fn mismatches(&self) -> usize {
        self.turns.iter().filter(|t| !t.ok).count()
    }
}

impl TurnCheck {
    /// One line for the terminal: `turn 3: OK state 1a2b…` or
    /// `turn 3: MISMATCH: events differ from seq 4 (...)`.
    pub fn line(&self) -> String {
        let label = if self.live && self.attempt == 1 {
            format!("turn {}", self.turn)
        } else {
            format!(
                "turn {} (attempt {}{})",
                self.turn,
                self.attempt,
                if self.live { "" } else { ", set aside" }
            )
        };
        if self.ok {
            format!(
                "{label}: OK (state {}, events {}, dice {})",
                short(self.replayed_state_hash.as_deref().unwrap_or("")),
                short(&self.stored_events_hash),
                short(&self.stored_rolls_hash)
            )
        } else {
            format!("{label}: MISMATCH: {}", self.differences.join("; "))
        }
    }
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// A canonical hash of event rows: SHA-256 over one JSON array per row,
/// `[seq, kind, data_json]`, each followed by a newline.
pub fn events_hash(rows: &[EventRow]) -> String {
    let mut text = String::new();
    for r in rows {
        text.push_str(&serde_json::json!([r.seq, r.kind, r.data_json]).to_string());
        text.push('\n');
    }
    sha256_hex(text.as_bytes())
}

/// A canonical hash of dice rows: SHA-256 over one JSON array per row,
/// `[seq, draw_index, sides, value, purpose, subject, source]`.
pub fn rolls_hash(rows: &[RollRow]) -> String {
    let mut text = String::new();
    for r in rows {
        text.push_str(
            &serde_json::json!([
                r.seq,
                r.draw_index,
                r.sides,
                r.value,
                r.purpose,
                r.subject,
                r.source
            ])
            .to_string(),
        );
        text.push('\n');
    }
    sha256_hex(text.as_bytes())
}

/// Where two row lists first part: "from seq 4" or "in count (12 stored,
/// 11 replayed)".
fn first_difference<T: PartialEq>(stored: &[T], replayed: &[T], seq: impl Fn(&T) -> i64) -> String {
    match stored.iter().zip(replayed).find(|(a, b)| a != b) {
        Some((a, _)) => format!("first at seq {}", seq(a)),
        None => format!("{} stored, {} replayed", stored.len(), replayed.len()),
    }
}

/// The `turn-input` event's payload.
/// The checks every ruleset's turn gets: its snapshot against its hash,
/// the seed derived again against the commitment published before the
/// turn and the seed revealed after it. Returns the turn's seed.
fn seed_checks(game_seed: &[u8; 32], turn: &TurnRecord, diffs: &mut Vec<String>) -> [u8; 32] {
    let n = turn.number;
    if sha256_hex(turn.state_json.as_bytes()) != turn.state_hash {
        diffs.push(format!(
            "the stored snapshot of turn {n} does not match its state_hash (the snapshot was changed)"
        ));
    }
    let seed = turn_seed(game_seed, n);
    if seed_commitment(&seed) != turn.seed_commitment {
        diffs.push(format!(
            "the seed derived for turn {n} does not match its published seed_commitment"
        ));
    }
    match &turn.seed_revealed {
        Some(r) if *r == hex::encode(seed) => {}
        Some(_) => diffs.push(format!(
            "the revealed seed of turn {n} is not the seed derived from the game seed"
        )),
        None => diffs.push(format!("turn {n} has no revealed seed")),
    }
    seed
}

/// Compares a re-run's rows and next state with the stored ones.
fn compare_outcome(
    check: &mut TurnCheck,
    diffs: &mut Vec<String>,
    stored: (&[EventRow], &[RollRow]),
    replayed: (&[EventRow], &[RollRow]),
    next_json: &str,
    next: Option<&TurnRecord>,
) {
    let n = check.turn;
    let ev = events_hash(replayed.0);
    if ev != check.stored_events_hash {
        diffs.push(format!(
            "events differ ({})",
            first_difference(stored.0, replayed.0, |r| r.seq)
        ));
    }
    let dh = rolls_hash(replayed.1);
    if dh != check.stored_rolls_hash {
        diffs.push(format!(
            "dice differ ({})",
            first_difference(stored.1, replayed.1, |r| r.seq)
        ));
    }
    check.replayed_events_hash = Some(ev);
    check.replayed_rolls_hash = Some(dh);
    let h = sha256_hex(next_json.as_bytes());
    match next {
        None => diffs.push(format!(
            "turn {} is not stored, so the outcome cannot be compared",
            n + 1
        )),
        Some(t) => {
            if h != t.state_hash {
                diffs.push(format!(
                    "the outcome differs from turn {}'s state_hash",
                    n + 1
                ));
            } else if sha256_hex(t.state_json.as_bytes()) != h {
                diffs.push(format!(
                    "turn {}'s stored snapshot differs from the outcome (its state_hash still matches)",
                    n + 1
                ));
            }
        }
    }
    check.replayed_state_hash = Some(h);
}

impl TurnCheck {
    /// A check of `turn` not yet replayed: what the store holds (the next
    /// turn's state hash, the events' and dice's hashes).
    fn stored(
        turn: &TurnRecord,
        next: Option<&TurnRecord>,
        events: &[EventRow],
        rolls: &[RollRow],
    ) -> TurnCheck {
        TurnCheck {
            turn: turn.number,
            attempt: turn.attempt,
            live: turn.live,
            ok: false,
            differences: Vec::new(),
            stored_state_hash: next.map(|t| t.state_hash.clone()),
            replayed_state_hash: None,
            stored_events_hash: events_hash(events),
            replayed_events_hash: None,
            stored_rolls_hash: rolls_hash(rolls),
            replayed_rolls_hash: None,
        }
    }
}

/// [`check_turn`] for a game played through a ruleset's mail plane
/// (`game::engine_game`): the archived `turn-input` orders and the turn's
/// dice (its stream, or the umpire's as given) through the same engine call
/// processing made, compared row for row and hash for hash.
#[allow(clippy::too_many_arguments)]
pub fn check_engine_turn(
    engine: &dyn crate::rules::MailEngine,
    scenario: &str,
    game_seed: &[u8; 32],
    turn: &TurnRecord,
    next: Option<&TurnRecord>,
    events: &[EventRow],
    rolls: &[RollRow],
    corrections: &[String],
) -> TurnCheck {
    let mut diffs = Vec::new();
    let n = turn.number;
    let mut check = TurnCheck::stored(turn, next, events, rolls);
    let seed = seed_checks(game_seed, turn, &mut diffs);
    // The umpire's corrections are inputs: the stored start state with
    // them applied in the order made, as processing and REDO did.
    let start = match crate::game::engine_game::corrected_state(
        engine,
        scenario,
        &turn.state_json,
        corrections,
    ) {
        Ok(s) => s,
        Err(e) => {
            diffs.push(format!("a stored correction cannot be applied ({e})"));
            check.ok = false;
            check.differences = diffs;
            return check;
        }
    };
    let orders = events
        .first()
        .filter(|e| e.seq == 0 && e.kind == "turn-input")
        .and_then(|e| crate::game::engine_game::input_orders(&e.data_json));
    match orders {
        None => diffs.push("there is no readable turn-input event (seq 0) to replay from".into()),
        Some(orders) => {
            let umpire_dice = rolls.first().is_some_and(|r| r.source == "umpire");
            let result = if umpire_dice {
                match ScriptedDice::new(rolls.iter().map(|r| r.value)) {
                    Ok(mut dice) => crate::game::engine_game::adjudicate(
                        engine, scenario, n, &start, &orders, &mut dice, true,
                    ),
                    Err(e) => Err(TurnCycleError::Engine {
                        turn: n,
                        source: e.into(),
                    }),
                }
            } else {
                crate::game::engine_game::adjudicate(
                    engine,
                    scenario,
                    n,
                    &start,
                    &orders,
                    &mut crate::dice::StreamDice::new(seed),
                    false,
                )
            };
            match result {
                Err(e) => diffs.push(format!("the engine refused the archived input: {e}")),
                Ok(adj) => compare_outcome(
                    &mut check,
                    &mut diffs,
                    (events, rolls),
                    (&adj.events, &adj.rolls),
                    &adj.resolved.state_json,
                    next,
                ),
            }
        }
    }
    check.ok = diffs.is_empty();
    check.differences = diffs;
    check
}

#[derive(Deserialize)]
struct TurnInput {
    orders: TurnOrders,
}

/// Checks turn `turn` against the archive; `next` is the turn after it.
///
/// `corrections` are the umpire's `SET`s that apply to this attempt (its
/// own and those of the attempts it re-adjudicates, in the order made):
/// inputs like the orders, applied to the stored start snapshot.
pub fn check_turn(
    game_seed: &[u8; 32],
    turn: &TurnRecord,
    next: Option<&TurnRecord>,
    events: &[EventRow],
    rolls: &[RollRow],
    corrections: &[Correction],
) -> TurnCheck {
    let mut diffs = Vec::new();
    let n = turn.number;
    let mut check = TurnCheck::stored(turn, next, events, rolls);

    let seed = seed_checks(game_seed, turn, &mut diffs);

    let input = events
        .first()
        .filter(|e| e.seq == 0 && e.kind == "turn-input")
        .map(|e| serde_json::from_str::<TurnInput>(&e.data_json));
    let orders = match input {
        Some(Ok(i)) => Some(i.orders),
        Some(Err(e)) => {
            diffs.push(format!("the turn-input event cannot be read ({e})"));
            None
        }
        None => {
            diffs.push("there is no turn-input event (seq 0) to replay from".to_string());
            None
        }
    };
    let snapshot = match Snapshot::from_json(&turn.state_json) {
        Ok(s) => match apply_corrections(s, corrections) {
            Ok(s) => Some(s),
            Err(e) => {
                diffs.push(format!("the umpire's corrections do not apply ({e})"));
                None
            }
        },
        Err(e) => {
            diffs.push(format!("the stored snapshot cannot be read ({e})"));
            None
        }
    };

    if let (Some(orders), Some(snapshot)) = (orders, snapshot) {
        // A turn played with the umpire's dice is replayed with the dice he
        // gave, in order (they are inputs); the engine must ask for each
        // for the purpose archived with it.
        let umpire_dice = rolls.first().is_some_and(|r| r.source == "umpire");
        let result = if umpire_dice {
            ScriptedDice::new(rolls.iter().map(|r| r.value))
                .map_err(|e| TurnCycleError::Engine {
                    turn: n,
                    source: e.into(),
                })
                .and_then(|mut dice| adjudicate_with(n, &snapshot, &orders, &mut dice, true))
        } else {
            adjudicate(n, &snapshot, &orders, seed)
        };
        match result {
            Err(e) => diffs.push(format!("the engine refused the archived input: {e}")),
            Ok(adj) => {
                let next_snapshot = Snapshot {
                    battle: adj.outcome.state,
                    book: adj.outcome.book,
                };
                match next_snapshot.to_json() {
                    Err(e) => diffs.push(format!("the replayed outcome cannot be written ({e})")),
                    Ok(json) => compare_outcome(
                        &mut check,
                        &mut diffs,
                        (events, rolls),
                        (&adj.events, &adj.rolls),
                        &json,
                        next,
                    ),
                }
            }
        }
    }
    check.ok = diffs.is_empty();
    check.differences = diffs;
    check
}

/// Replays every processed turn of `game`. `progress(done, total)` is
/// called once before the first turn and after each, for a progress bar.
pub fn replay_game(
    store: &Store,
    game: &str,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ReplayReport, ArchiveError> {
    let game_id = store
        .game_id(game)?
        .ok_or_else(|| ArchiveError::NoSuchGame(game.to_string()))?;
    let game_seed = store
        .game_seed(game_id)?
        .ok_or_else(|| ArchiveError::NoSuchGame(game.to_string()))?;
    let conn = store.conn();
    // The ruleset boundary: replay re-runs this engine, so a game of a
    // ruleset it does not play is refused, not misread.
    crate::rulesets::require_by_mail(&crate::store::game_ruleset(conn, game_id)?)?;
    let engine = crate::game::engine_seat::engine_of_game(conn, game_id)?;
    let scenario: String = conn.query_row(
        "SELECT scenario_toml FROM games WHERE id = ?1",
        [game_id.0],
        |r| r.get(0),
    )?;
    // Every attempt, those set aside by REDO and ROLLBACK included: each
    // must still be what its inputs give.
    let turns = load::all_turns(conn, game_id.0)?;
    let events = load::events(conn, game_id.0)?;
    let rolls = load::rolls(conn, game_id.0)?;
    let stored_corrections = load::corrections(conn, game_id.0)?;
    let processed: Vec<&TurnRecord> = turns.iter().filter(|t| t.is_processed()).collect();
    let total = processed.len();
    let mut checks = Vec::with_capacity(total);
    progress(0, total);
    for (i, turn) in processed.into_iter().enumerate() {
        // The attempt this one's processing opened (a REDO or ROLLBACK copy
        // of it has the same snapshot; prefer the original).
        let next = turns.iter().find(|t| t.prev_turn_id == Some(turn.id));
        if let Some(engine) = engine {
            checks.push(check_engine_turn(
                engine,
                &scenario,
                &game_seed,
                turn,
                next,
                events.get(&turn.id).map_or(&[], Vec::as_slice),
                rolls.get(&turn.id).map_or(&[], Vec::as_slice),
                &crate::game::engine_game::corrections_for(conn, turn.id)?,
            ));
            progress(i + 1, total);
            continue;
        }
        let corrections = match lineage_corrections(turn, &turns, &stored_corrections) {
            Ok(c) => c,
            Err(e) => {
                let mut check = check_turn(&game_seed, turn, next, &[], &[], &[]);
                check.ok = false;
                check.differences = vec![format!("a stored correction cannot be read ({e})")];
                checks.push(check);
                progress(i + 1, total);
                continue;
            }
        };
        checks.push(check_turn(
            &game_seed,
            turn,
            next,
            events.get(&turn.id).map_or(&[], Vec::as_slice),
            rolls.get(&turn.id).map_or(&[], Vec::as_slice),
            &corrections,
        ));
        progress(i + 1, total);
    }
    Ok(ReplayReport {
        game: game.to_string(),
        ok: checks.iter().all(|c| c.ok),
        turns: checks,
    })
}

/// The corrections for `turn`: every one made on the attempts it
/// re-adjudicates (`redo_of`, oldest first), then those made on it while it
/// was open, each in the order made.
fn lineage_corrections(
    turn: &TurnRecord,
    turns: &[TurnRecord],
    stored: &BTreeMap<i64, Vec<load::CorrectionRecord>>,
) -> Result<Vec<Correction>, serde_json::Error> {
    let mut chain = vec![turn.id];
    let mut at = turn.redo_of;
    while let Some(id) = at {
        if chain.contains(&id) {
            break;
        }
        chain.push(id);
        at = turns.iter().find(|t| t.id == id).and_then(|t| t.redo_of);
    }
    let mut rows: Vec<(i64, usize, &load::CorrectionRecord)> = Vec::new();
    for id in chain {
        for (k, row) in stored.get(&id).into_iter().flatten().enumerate() {
            if id != turn.id || row.while_open {
                rows.push((id, k, row));
            }
        }
    }
    // Row ids grow with time: an earlier attempt's corrections came first.
    rows.sort_by_key(|(id, k, _)| (*id, *k));
    rows.into_iter()
        .map(|(_, _, c)| {
            Ok(Correction {
                unit: UnitId(c.unit),
                value: serde_json::from_str(&c.value_json)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(seq: i64, data: &str) -> EventRow {
        EventRow {
            seq,
            kind: "k".to_string(),
            data_json: data.to_string(),
        }
    }

    /// The hash format is documented in docs/archive.md: pin it.
    #[test]
    fn events_hash_is_sha256_of_json_lines() {
        let rows = [ev(0, "{}"), ev(1, "{\"a\":1}")];
        let expected = sha256_hex(b"[0,\"k\",\"{}\"]\n[1,\"k\",\"{\\\"a\\\":1}\"]\n");
        assert_eq!(events_hash(&rows), expected);
        assert_ne!(events_hash(&rows), events_hash(&rows[..1]));
    }

    #[test]
    fn first_difference_names_the_seq_or_the_counts() {
        let a = [ev(0, "{}"), ev(1, "{}")];
        let b = [ev(0, "{}"), ev(1, "[]")];
        assert_eq!(first_difference(&a, &b, |r| r.seq), "first at seq 1");
        assert_eq!(
            first_difference(&a, &a[..1], |r| r.seq),
            "2 stored, 1 replayed"
        );
    }
}
