//! Reading one game's archive out of the store, in a stable order (by
//! turn, then row id or sequence), into plain values. The only SQL of the
//! archive module: replay and export work on what this returns.

use super::ArchiveError;
use crate::game::turn::{EventRow, RollRow};
use crate::store::{REPORT_HTML_COLUMNS, REPORT_HTML_JOIN, Store};
use rusqlite::{Connection, params};
use std::collections::BTreeMap;

/// One row of `turns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRecord {
    pub id: i64,
    pub number: u32,
    pub status: String,
    pub deadline_at: Option<i64>,
    pub seed_commitment: String,
    pub seed_revealed: Option<String>,
    /// The snapshot the turn STARTS from.
    pub state_json: String,
    pub state_hash: String,
    pub opened_at: i64,
    pub processed_at: Option<i64>,
    /// 1, then +1 per REDO (migration 0004).
    pub attempt: u32,
    /// The attempt whose processing produced this start state.
    pub prev_turn_id: Option<i64>,
    /// REDO: the attempt this one re-adjudicates.
    pub redo_of: Option<i64>,
    /// False once REDO, ROLLBACK or ROLLFORWARD set the attempt aside.
    pub live: bool,
    /// When it was set aside, and by which `turn_changes` row.
    pub superseded_at: Option<i64>,
    pub superseded_by: Option<i64>,
}

impl TurnRecord {
    /// Processed: its seed is revealed and the next turn holds its outcome.
    pub fn is_processed(&self) -> bool {
        matches!(self.status.as_str(), "held" | "released")
    }
}

/// One written order, with the names it points at resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderRecord {
    pub id: i64,
    /// The unit's or officer's name.
    pub recipient: String,
    /// True for an officer's own move.
    pub for_officer: bool,
    pub issued_by: Option<String>,
    pub player: String,
    pub side: String,
    pub submission: String,
    pub original_text: String,
    pub parsed_json: String,
    pub issued_turn: u32,
    pub effective_turn: u32,
    pub status: String,
}

/// One stored report; `player` is `None` for the umpire's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportRecord {
    pub id: i64,
    pub turn_id: i64,
    pub player: Option<String>,
    pub side: Option<String>,
    pub text: String,
    pub html: Option<String>,
}

/// One SFRM dispatch as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchRecord {
    pub id: i64,
    pub from: String,
    pub to: String,
    pub text: String,
    pub written_turn: u32,
    pub status: String,
    pub carrier_json: Option<String>,
    pub delivered_turn: Option<u32>,
}

/// A player and his side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerRecord {
    pub id: i64,
    pub name: String,
    pub side: String,
}

/// Everything the store keeps of one game, except the raw mails (which
/// stay in the database as evidence) and the secret seed.
#[derive(Debug, Clone)]
pub struct GameArchive {
    pub name: String,
    pub scenario_name: String,
    pub scenario_toml: String,
    pub status: String,
    pub created_at: i64,
    pub players: Vec<PlayerRecord>,
    /// The live timeline, by turn number.
    pub turns: Vec<TurnRecord>,
    /// Every attempt of every turn, those set aside by REDO, ROLLBACK or
    /// ROLLFORWARD included, by number then row id.
    pub attempts: Vec<TurnRecord>,
    /// The umpire's REDOs, ROLLBACKs and ROLLFORWARDs, in order.
    pub changes: Vec<TurnChangeRecord>,
    /// The umpire's corrections (`SET`), in the order made.
    pub corrections: Vec<CorrectionNote>,
    /// By turn row id, in `seq` order.
    pub events: BTreeMap<i64, Vec<EventRow>>,
    /// By turn row id, in `seq` order.
    pub rolls: BTreeMap<i64, Vec<RollRow>>,
    pub orders: Vec<OrderRecord>,
    pub reports: Vec<ReportRecord>,
    pub dispatches: Vec<DispatchRecord>,
    /// Inbound mails accepted for the game, for the index's counts.
    pub mails: i64,
    /// The audit log: umpire and organiser actions, refused mail, in order.
    pub audit: Vec<AuditRecord>,
    /// Each side's designations of the enemy (`crate::identity`), under
    /// the game's policy: the side pages call enemies as the players were.
    pub enemy_names:
        BTreeMap<crate::rules::iron_brigade::state::SideId, crate::identity::EnemyNames>,
}

/// One row of `audit_log`: who did what to the game, when and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AuditRecord {
    pub at: i64,
    pub actor: String,
    pub action: String,
    /// The command as written when there is one, else the row's details.
    pub what: String,
    /// The result the action reported, if any.
    pub result: Option<String>,
    pub reason: Option<String>,
}

/// One row of `turn_changes`: a REDO, ROLLBACK or ROLLFORWARD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnChangeRecord {
    pub id: i64,
    /// `redo`, `rollback` or `rollforward`.
    pub kind: String,
    /// `umpire`, `cli:<user>`, as in the audit log.
    pub actor: String,
    pub at: i64,
    /// REDO: the held turn; ROLLBACK: the turn rolled back to;
    /// ROLLFORWARD: the turn the restored timeline is at.
    pub turn_number: u32,
    /// ROLLBACK: the ROLLFORWARD that undid it.
    pub undone_by: Option<i64>,
}

/// One umpire's correction (`SET`) as the archive shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorrectionNote {
    /// The attempt it was made on.
    pub turn_id: i64,
    pub unit: String,
    pub field: String,
    /// `SetValue` as JSON, and the value it replaced.
    pub value_json: String,
    pub previous_json: String,
    /// `open` (applies to the attempt) or `held` (applies to its REDOs).
    pub made_while: String,
    pub reason: String,
    pub actor: String,
    pub at: i64,
}

impl GameArchive {
    pub fn turn(&self, number: u32) -> Option<&TurnRecord> {
        self.turns.iter().find(|t| t.number == number)
    }

    pub fn events_of(&self, turn: &TurnRecord) -> &[EventRow] {
        self.events.get(&turn.id).map_or(&[], Vec::as_slice)
    }

    pub fn rolls_of(&self, turn: &TurnRecord) -> &[RollRow] {
        self.rolls.get(&turn.id).map_or(&[], Vec::as_slice)
    }
}

/// Reads game `name`'s archive.
pub fn load_archive(store: &Store, name: &str) -> Result<GameArchive, ArchiveError> {
    let game_id = store
        .game_id(name)?
        .ok_or_else(|| ArchiveError::NoSuchGame(name.to_string()))?
        .0;
    let conn = store.conn();
    let (name, scenario_name, scenario_toml, status, created_at) = conn.query_row(
        "SELECT name, scenario_name, scenario_toml, status, created_at FROM games WHERE id = ?1",
        [game_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
    )?;
    Ok(GameArchive {
        name,
        scenario_name,
        scenario_toml,
        status,
        created_at,
        players: players(conn, game_id)?,
        turns: turns(conn, game_id)?,
        attempts: all_turns(conn, game_id)?,
        changes: changes(conn, game_id)?,
        corrections: correction_notes(conn, game_id)?,
        events: events(conn, game_id)?,
        rolls: rolls(conn, game_id)?,
        orders: orders(conn, game_id)?,
        reports: reports(conn, game_id)?,
        dispatches: dispatches(conn, game_id)?,
        mails: conn.query_row(
            "SELECT count(*) FROM inbound_mail WHERE game_id = ?1",
            [game_id],
            |r| r.get(0),
        )?,
        audit: audit(conn, game_id)?,
        enemy_names: crate::game::identity::load_all(
            conn,
            crate::store::GameId(game_id),
            crate::game::identity::policy_of(conn, crate::store::GameId(game_id))?,
        )?,
    })
}

fn audit(conn: &Connection, game: i64) -> Result<Vec<AuditRecord>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT at, actor, action, reason, detail_json FROM audit_log
         WHERE game_id = ?1 ORDER BY id",
    )?;
    let rows = s
        .query_map([game], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows
        .into_iter()
        .map(|(at, actor, action, reason, detail)| {
            let v: serde_json::Value = serde_json::from_str(&detail).unwrap_or_default();
            let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
            AuditRecord {
                at,
                actor,
                action,
                what: text("command").unwrap_or(detail),
                result: text("result"),
                reason,
            }
        })
        .collect())
}

fn players(conn: &Connection, game: i64) -> Result<Vec<PlayerRecord>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT p.id, p.name, s.name FROM players p JOIN sides s ON s.id = p.side_id
         WHERE p.game_id = ?1 ORDER BY p.id",
    )?;
    let rows = s
        .query_map([game], |r| {
            Ok(PlayerRecord {
                id: r.get(0)?,
                name: r.get(1)?,
                side: r.get(2)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// The game's live timeline: one attempt per turn number, by number.
pub fn turns(conn: &Connection, game: i64) -> Result<Vec<TurnRecord>, ArchiveError> {
    Ok(all_turns(conn, game)?
        .into_iter()
        .filter(|t| t.live)
        .collect())
}

/// Every attempt of every turn, those set aside by REDO or ROLLBACK
/// included, by number then row id.
pub fn all_turns(conn: &Connection, game: i64) -> Result<Vec<TurnRecord>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT id, number, status, deadline_at, seed_commitment, seed_revealed, state_json,
                state_hash, opened_at, processed_at, attempt, prev_turn_id, redo_of,
                superseded_at IS NULL, superseded_at, superseded_by
         FROM turns WHERE game_id = ?1 ORDER BY number, id",
    )?;
    let rows = s
        .query_map([game], |r| {
            Ok(TurnRecord {
                id: r.get(0)?,
                number: r.get(1)?,
                status: r.get(2)?,
                deadline_at: r.get(3)?,
                seed_commitment: r.get(4)?,
                seed_revealed: r.get(5)?,
                state_json: r.get(6)?,
                state_hash: r.get(7)?,
                opened_at: r.get(8)?,
                processed_at: r.get(9)?,
                attempt: r.get(10)?,
                prev_turn_id: r.get(11)?,
                redo_of: r.get(12)?,
                live: r.get(13)?,
                superseded_at: r.get(14)?,
                superseded_by: r.get(15)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// The game's REDOs, ROLLBACKs and ROLLFORWARDs, in order.
fn changes(conn: &Connection, game: i64) -> Result<Vec<TurnChangeRecord>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT id, kind, actor, at, turn_number, undone_by FROM turn_changes
         WHERE game_id = ?1 ORDER BY id",
    )?;
    let rows = s
        .query_map([game], |r| {
            Ok(TurnChangeRecord {
                id: r.get(0)?,
                kind: r.get(1)?,
                actor: r.get(2)?,
                at: r.get(3)?,
                turn_number: r.get(4)?,
                undone_by: r.get(5)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// The game's corrections with their units' names, in the order made.
fn correction_notes(conn: &Connection, game: i64) -> Result<Vec<CorrectionNote>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT c.turn_id, u.name, c.field, c.value_json, c.previous_json, c.made_while,
                c.reason, c.actor, c.at
         FROM corrections c JOIN units u ON u.id = c.unit_id
         WHERE c.game_id = ?1 ORDER BY c.id",
    )?;
    let rows = s
        .query_map([game], |r| {
            Ok(CorrectionNote {
                turn_id: r.get(0)?,
                unit: r.get(1)?,
                field: r.get(2)?,
                value_json: r.get(3)?,
                previous_json: r.get(4)?,
                made_while: r.get(5)?,
                reason: r.get(6)?,
                actor: r.get(7)?,
                at: r.get(8)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// Every event of game `game`, grouped by turn row id, in `seq` order.
pub fn events(conn: &Connection, game: i64) -> Result<BTreeMap<i64, Vec<EventRow>>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT turn_id, seq, kind, data_json FROM events WHERE game_id = ?1 ORDER BY turn_id, seq",
    )?;
    let mut out: BTreeMap<i64, Vec<EventRow>> = BTreeMap::new();
    let rows = s.query_map([game], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            EventRow {
                seq: r.get(1)?,
                kind: r.get(2)?,
                data_json: r.get(3)?,
            },
        ))
    })?;
    for row in rows {
        let (turn, e) = row?;
        out.entry(turn).or_default().push(e);
    }
    Ok(out)
}

/// Every die of game `game`, grouped by turn row id, in `seq` order.
pub fn rolls(conn: &Connection, game: i64) -> Result<BTreeMap<i64, Vec<RollRow>>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT turn_id, seq, draw_index, sides, value, purpose, subject, source
         FROM dice_rolls WHERE game_id = ?1 ORDER BY turn_id, seq",
    )?;
    let mut out: BTreeMap<i64, Vec<RollRow>> = BTreeMap::new();
    let rows = s.query_map([game], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            RollRow {
                seq: r.get(1)?,
                draw_index: r.get(2)?,
                sides: r.get(3)?,
                value: r.get(4)?,
                purpose: r.get(5)?,
                subject: r.get(6)?,
                source: r.get(7)?,
            },
        ))
    })?;
    for row in rows {
        let (turn, d) = row?;
        out.entry(turn).or_default().push(d);
    }
    Ok(out)
}

fn orders(conn: &Connection, game: i64) -> Result<Vec<OrderRecord>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT o.id, coalesce(u.name, f.name, '?'), o.officer_id IS NOT NULL, i.name,
                p.name, sd.name, sub.public_id, o.original_text, o.parsed_json,
                o.issued_turn, o.effective_turn, o.status
         FROM orders o
         JOIN submissions sub ON sub.id = o.submission_id
         JOIN players p ON p.id = sub.player_id
         JOIN sides sd ON sd.id = p.side_id
         LEFT JOIN units u ON u.id = o.unit_id
         LEFT JOIN officers f ON f.id = o.officer_id
         LEFT JOIN officers i ON i.id = o.issuing_officer_id
         WHERE o.game_id = ?1 ORDER BY o.issued_turn, o.id",
    )?;
    let rows = s
        .query_map([game], |r| {
            Ok(OrderRecord {
                id: r.get(0)?,
                recipient: r.get(1)?,
                for_officer: r.get(2)?,
                issued_by: r.get(3)?,
                player: r.get(4)?,
                side: r.get(5)?,
                submission: r.get(6)?,
                original_text: r.get(7)?,
                parsed_json: r.get(8)?,
                issued_turn: r.get(9)?,
                effective_turn: r.get(10)?,
                status: r.get(11)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

fn reports(conn: &Connection, game: i64) -> Result<Vec<ReportRecord>, ArchiveError> {
    let mut s = conn.prepare(&format!(
        "SELECT r.id, r.turn_id, p.name, s.name, r.text, {REPORT_HTML_COLUMNS}
         FROM reports r
         LEFT JOIN players p ON p.id = r.player_id
         LEFT JOIN sides s ON s.id = r.side_id
         {REPORT_HTML_JOIN}
         WHERE r.game_id = ?1
         ORDER BY r.turn_id, r.player_id IS NULL, r.player_id, r.id"
    ))?;
    let rows = s
        .query_map([game], |r| {
            Ok(ReportRecord {
                id: r.get(0)?,
                turn_id: r.get(1)?,
                player: r.get(2)?,
                side: r.get(3)?,
                text: r.get(4)?,
                html: crate::store::report_html_at(r, 5)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

fn dispatches(conn: &Connection, game: i64) -> Result<Vec<DispatchRecord>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT d.id, f.name, t.name, d.text, d.written_turn, d.status, d.carrier_json,
                d.delivered_turn
         FROM dispatches d
         JOIN officers f ON f.id = d.from_officer_id
         JOIN officers t ON t.id = d.to_officer_id
         WHERE d.game_id = ?1 ORDER BY d.written_turn, d.id",
    )?;
    let rows = s
        .query_map(params![game], |r| {
            Ok(DispatchRecord {
                id: r.get(0)?,
                from: r.get(1)?,
                to: r.get(2)?,
                text: r.get(3)?,
                written_turn: r.get(4)?,
                status: r.get(5)?,
                carrier_json: r.get(6)?,
                delivered_turn: r.get(7)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// One umpire's correction (`SET`) as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorrectionRecord {
    /// The unit's rules id.
    pub unit: u32,
    /// `SetValue` as JSON.
    pub value_json: String,
    /// Made while the attempt was open (applies to it) rather than held
    /// (applies to its REDOs only).
    pub while_open: bool,
}

/// The umpire's corrections, by the attempt they were made on, in the
/// order made.
pub fn corrections(
    conn: &Connection,
    game: i64,
) -> Result<BTreeMap<i64, Vec<CorrectionRecord>>, ArchiveError> {
    let mut s = conn.prepare(
        "SELECT turn_id, rules_unit, value_json, made_while = 'open' FROM corrections
         WHERE game_id = ?1 ORDER BY id",
    )?;
    let mut out: BTreeMap<i64, Vec<CorrectionRecord>> = BTreeMap::new();
    let rows = s.query_map([game], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            CorrectionRecord {
                unit: r.get(1)?,
                value_json: r.get(2)?,
                while_open: r.get(3)?,
            },
        ))
    })?;
    for row in rows {
        let (turn, c) = row?;
        out.entry(turn).or_default().push(c);
    }
    Ok(out)
}
