//! SFRM dispatches in the store: written at intake, handed to the engine
//! with the turn's orders, and their `dispatches` rows brought up to date
//! by the turn processor in the turn's own transaction.
//!
//! The battle state snapshot (`BattleState::sfrm`) is the truth; a row is
//! the store's display copy of it for the archive and the umpire (its
//! `carrier_json` keeps the messenger's route and the dispatch's fate).
//! A row's `id` is the dispatch's `DispatchId` in the state.
//!
//! Nothing here is shown to players: their reports are built from the
//! state through the fog of war (`game::reports`), so the sender of a lost
//! dispatch is never told (SFRM "Discussions of Strategy & Tactics During
//! Play").

use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::kinds::OfficerLevel;
use crate::rules::iron_brigade::orders::WrittenDispatch;
use crate::rules::iron_brigade::state::{BattleState, OfficerId, OfficerStatus, Pos};
use crate::rules::sfrm::{DispatchEvent, DispatchStatus, Holder};
use crate::store::GameId;
use rusqlite::{OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};

/// The general a player writes his dispatches from (SFRM: "originates at
/// their general"): the highest-ranking of his officers still on the field,
/// the lowest id on a tie.
pub fn writing_general(state: &BattleState, officers: &[OfficerId]) -> Option<OfficerId> {
    let rank = |l: OfficerLevel| match l {
        OfficerLevel::Army => 3,
        OfficerLevel::Corps => 2,
        OfficerLevel::Division => 1,
        OfficerLevel::Brigade => 0,
    };
    officers
        .iter()
        .filter_map(|id| state.officer(*id))
        .filter(|o| o.status == OfficerStatus::Active)
        .max_by(|a, b| rank(a.level).cmp(&rank(b.level)).then(b.id.cmp(&a.id)))
        .map(|o| o.id)
}

/// The store row id of the officer with this rules id.
fn officer_row(
    tx: &Transaction<'_>,
    game: GameId,
    officer: OfficerId,
) -> Result<Option<i64>, rusqlite::Error> {
    tx.prepare_cached("SELECT id FROM officers WHERE game_id = ?1 AND rules_id = ?2")?
        .query_row(params![game.0, officer.0], |r| r.get(0))
        .optional()
}

/// The dispatch `from` already wrote within the SFRM turn that `turn` is
/// in — the `every` table turns up to and including it (SFRM "one message
/// per turn" of 30 minutes, `Scale::turns_per_sfrm_turn`) — if any: its
/// row id and the turn it was written for.
pub fn already_written(
    tx: &Transaction<'_>,
    game: GameId,
    from: OfficerId,
    turn: u32,
    every: u32,
) -> Result<Option<(i64, u32)>, rusqlite::Error> {
    let Some(row) = officer_row(tx, game, from)? else {
        return Ok(None);
    };
    let since = turn.saturating_sub(every.max(1) - 1);
    tx.prepare_cached(
        "SELECT id, written_turn FROM dispatches WHERE game_id = ?1 AND from_officer_id = ?2
         AND written_turn BETWEEN ?3 AND ?4 ORDER BY written_turn DESC, id LIMIT 1",
    )?
    .query_row(params![game.0, row, since, turn], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .optional()
}

/// Store a dispatch written for `turn`; it leaves with a messenger when
/// that turn is played. Returns its id, or `None` when either officer has
/// no row (which the caller reports as not recorded).
pub fn insert(
    tx: &Transaction<'_>,
    game: GameId,
    from: OfficerId,
    to: OfficerId,
    text: &str,
    turn: u32,
) -> Result<Option<i64>, rusqlite::Error> {
    let (Some(f), Some(t)) = (officer_row(tx, game, from)?, officer_row(tx, game, to)?) else {
        return Ok(None);
    };
    tx.prepare_cached(
        "INSERT INTO dispatches (game_id, from_officer_id, to_officer_id, text, written_turn, status)
         VALUES (?1, ?2, ?3, ?4, ?5, 'in-transit')",
    )?
    .execute(params![game.0, f, t, text, turn])?;
    Ok(Some(tx.last_insert_rowid()))
}

/// The dispatches written for `turn`, for the engine, in id order.
pub fn turn_dispatches(
    tx: &Transaction<'_>,
    game: GameId,
    turn: u32,
) -> Result<Vec<WrittenDispatch>, rusqlite::Error> {
    let mut st = tx.prepare_cached(
        "SELECT d.id, f.rules_id, t.rules_id, d.text FROM dispatches d
         JOIN officers f ON f.id = d.from_officer_id
         JOIN officers t ON t.id = d.to_officer_id
         WHERE d.game_id = ?1 AND d.written_turn = ?2
           AND f.rules_id IS NOT NULL AND t.rules_id IS NOT NULL
         ORDER BY d.id",
    )?;
    let rows = st
        .query_map(params![game.0, turn], |r| {
            Ok(WrittenDispatch {
                id: r.get(0)?,
                from: OfficerId(r.get(1)?),
                to: OfficerId(r.get(2)?),
                text: r.get(3)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// `dispatches.carrier_json`: where the paper is, the way it came, and what
/// became of it, in words for the umpire and the archive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Carrier {
    /// The messenger now carrying it, if one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messenger: Option<u32>,
    /// Where it is now (messenger or holder), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Pos>,
    /// Every position it has been at the end of a turn, from the writer's
    /// general onward.
    #[serde(default)]
    pub route: Vec<Pos>,
    /// Its fate so far, in words.
    #[serde(default)]
    pub fate: String,
}

fn push_point(route: &mut Vec<Pos>, p: Pos) {
    if route.last().is_none_or(|q| q.distance(p) > 1e-9) {
        route.push(p);
    }
}

/// Bring every dispatch row up to date with the state the engine left and
/// the turn's events (`played`: the turn just adjudicated).
pub fn record_outcome(
    tx: &Transaction<'_>,
    game: GameId,
    state: &BattleState,
    events: &[Event],
    played: u32,
) -> Result<(), rusqlite::Error> {
    let name = |id: OfficerId| {
        state
            .officer(id)
            .map_or_else(|| format!("officer {}", id.0), |o| o.name.clone())
    };
    let side_name = |s: crate::rules::iron_brigade::state::SideId| {
        state
            .sides
            .iter()
            .find(|x| x.id == s)
            .map_or_else(|| format!("side {}", s.0), |x| x.name.clone())
    };
    for d in state.sfrm.dispatches.values() {
        let old: Option<Option<String>> = tx
            .prepare_cached("SELECT carrier_json FROM dispatches WHERE game_id = ?1 AND id = ?2")?
            .query_row(params![game.0, d.id.0], |r| r.get(0))
            .optional()?;
        let Some(old) = old else {
            // Written outside the store (a test state): nothing to update.
            continue;
        };
        let mut carrier: Carrier = old
            .as_deref()
            .and_then(|j| serde_json::from_str(j).ok())
            .unwrap_or_default();
        if carrier.route.is_empty()
            && let Some(o) = state.officer(d.from)
        {
            // Where it was written (the general may have moved since; the
            // Departed event has the exact point).
            let start = events
                .iter()
                .find_map(|e| match e {
                    Event::Sfrm {
                        sfrm: DispatchEvent::Departed { messenger, at, .. },
                    } if *messenger == d.carried_by => Some(*at),
                    _ => None,
                })
                .unwrap_or(o.position);
            carrier.route.push(start);
        }
        // Where it ended the turn.
        let captured_at = events.iter().find_map(|e| match e {
            Event::Sfrm {
                sfrm: DispatchEvent::Captured { at, dispatches, .. },
            } if dispatches.contains(&d.id) => Some(*at),
            _ => None,
        });
        if let Some(at) = captured_at {
            push_point(&mut carrier.route, at);
        }
        let (messenger, position) = match d.holder {
            Holder::Messenger(m) => (Some(m.0), state.sfrm.messengers.get(&m).map(|m| m.position)),
            Holder::Officer(o) => (None, state.officer(o).map(|o| o.position)),
            Holder::Nobody => (None, carrier.route.last().copied()),
        };
        if let Some(p) = position {
            push_point(&mut carrier.route, p);
        }
        carrier.messenger = messenger;
        carrier.position = position;
        let taken = d
            .captured
            .map(|c| {
                format!(
                    "captured by the {} on turn {}; ",
                    side_name(c.by_side),
                    c.turn
                )
            })
            .unwrap_or_default();
        carrier.fate = match d.status {
            DispatchStatus::InTransit => format!(
                "in transit with messenger {} for {}",
                d.carried_by.0,
                name(d.to)
            ),
            DispatchStatus::Delivered { turn } => match d.holder {
                Holder::Officer(o) => {
                    format!("{taken}delivered unread to {} on turn {turn}", name(o))
                }
                _ => format!("{taken}delivered on turn {turn}"),
            },
            DispatchStatus::Read { turn } => {
                let by = match d.holder {
                    Holder::Officer(o) => name(o),
                    _ => "its holder".to_string(),
                };
                let got = d
                    .received_turn
                    .map(|t| format!(", received turn {t}"))
                    .unwrap_or_default();
                format!("{taken}read by {by} on turn {turn}{got}")
            }
            DispatchStatus::Captured { by_side, turn } => {
                let riding = match d.holder {
                    Holder::Messenger(m) => format!(
                        "; their messenger {} carries it to one of their generals",
                        m.0
                    ),
                    _ => String::new(),
                };
                format!(
                    "captured by the {} on turn {turn}{riding}",
                    side_name(by_side)
                )
            }
            DispatchStatus::Lost { turn } => {
                let why = events
                    .iter()
                    .find_map(|e| match e {
                        Event::Sfrm {
                            sfrm:
                                DispatchEvent::Casualty {
                                    messenger,
                                    result,
                                    roll,
                                    ..
                                },
                        } if *messenger == d.carried_by => {
                            Some(format!(" (SFRM Table 3 roll {roll}: {result:?})"))
                        }
                        _ => None,
                    })
                    .unwrap_or_default();
                format!("lost with its messenger on turn {turn}{why}")
            }
        };
        let (status, delivered) = match d.status {
            DispatchStatus::InTransit => ("in-transit", None),
            DispatchStatus::Delivered { .. } | DispatchStatus::Read { .. }
                if d.captured.is_some() =>
            {
                ("captured", d.received_turn)
            }
            DispatchStatus::Delivered { .. } | DispatchStatus::Read { .. } => {
                ("delivered", d.received_turn)
            }
            DispatchStatus::Captured { .. } => ("captured", None),
            DispatchStatus::Lost { .. } => ("lost", None),
        };
        let json = serde_json::to_string(&carrier).unwrap_or_else(|_| "{}".to_string());
        tx.prepare_cached(
            "UPDATE dispatches SET status = ?3, delivered_turn = ?4, carrier_json = ?5
             WHERE game_id = ?1 AND id = ?2",
        )?
        .execute(params![game.0, d.id.0, status, delivered, json])?;
    }
    // A dispatch refused by the engine (its writer fell before it left)
    // stays a row: say so.
    for e in events {
        if let Event::Sfrm {
            sfrm: DispatchEvent::NotSent {
                dispatch, reason, ..
            },
        } = e
        {
            let carrier = Carrier {
                fate: format!("not sent on turn {played}: {reason}"),
                ..Carrier::default()
            };
            let json = serde_json::to_string(&carrier).unwrap_or_else(|_| "{}".to_string());
            tx.prepare_cached(
                "UPDATE dispatches SET status = 'lost', carrier_json = ?3
                 WHERE game_id = ?1 AND id = ?2",
            )?
            .execute(params![game.0, dispatch.0, json])?;
        }
    }
    Ok(())
}

/// A dispatch row's carrier, for readers of the store.
pub fn carrier(json: Option<&str>) -> Option<Carrier> {
    json.and_then(|j| serde_json::from_str(j).ok())
}

/// Intake of a mail's `DISPATCH TO` paragraphs: each is stored for
/// `ctx_turn` or refused, with one receipt line each (`Ok` carried, `Err`
/// refused with the reason). SFRM: one message per player per turn,
/// written at his general — a second, in this mail or an earlier one for
/// the same turn, is refused.
pub fn take_dispatches(
    tx: &Transaction<'_>,
    game: GameId,
    state: &BattleState,
    player_officers: &[OfficerId],
    turn: u32,
    requests: &[crate::orders::DispatchRequest],
) -> Result<Vec<Result<String, String>>, rusqlite::Error> {
    use crate::orders::DispatchTo;
    let mut lines = Vec::new();
    let general = writing_general(state, player_officers);
    for r in requests {
        let chars = r.text.chars().count();
        let to_name = match &r.to {
            DispatchTo::Officer(o) => name_of(state, *o),
            DispatchTo::Name(n) => n.clone(),
        };
        let head = format!("Dispatch to {to_name} ({chars} characters)");
        let Some(from) = general else {
            lines.push(Err(format!(
                "{head}\n    not sent: none of your generals is on the field to write it"
            )));
            continue;
        };
        let to = match &r.to {
            DispatchTo::Officer(o) => *o,
            DispatchTo::Name(n) => {
                let side = state.officer(from).map(|o| o.side);
                let names: Vec<String> = state
                    .officers
                    .iter()
                    .filter(|o| Some(o.side) == side && o.id != from)
                    .filter(|o| o.status == OfficerStatus::Active)
                    .map(|o| o.name.clone())
                    .collect();
                lines.push(Err(format!(
                    "{head}\n    not sent: no general of your side is called \"{n}\"; write to one of: {}",
                    names.join(", ")
                )));
                continue;
            }
        };
        if to == from {
            lines.push(Err(format!(
                "{head}\n    not sent: it would be written at {} to himself; address another general",
                name_of(state, from)
            )));
            continue;
        }
        if state
            .officer(to)
            .is_none_or(|o| o.status != OfficerStatus::Active)
        {
            lines.push(Err(format!(
                "{head}\n    not sent: {to_name} is no longer on the field; address the officer now in command"
            )));
            continue;
        }
        let every = state.scale().turns_per_sfrm_turn();
        if let Some((_, written)) = already_written(tx, game, from, turn, every)? {
            let next = written.saturating_add(every);
            lines.push(Err(format!(
                "{head}\n    not sent: {} has already written a dispatch for turn {written}, and a general may send only one message a turn (SFRM), a turn of 30 minutes being {every} turn(s) here; send this one on turn {next}",
                name_of(state, from)
            )));
            continue;
        }
        match insert(tx, game, from, to, &r.text, turn)? {
            Some(_) => lines.push(Ok(format!(
                "{head}\n    written at {}'s headquarters; a messenger will carry it when turn {turn} is played",
                name_of(state, from)
            ))),
            None => lines.push(Err(format!(
                "{head}\n    not sent: {to_name} is not an officer of this game"
            ))),
        }
    }
    Ok(lines)
}

fn name_of(state: &BattleState, id: OfficerId) -> String {
    state
        .officer(id)
        .map_or_else(|| format!("officer {}", id.0), |o| o.name.clone())
}

/// The dispatches section of one player's report (pure): what his own
/// officers hold and what his general wrote, never where a rider is or
/// what became of him (SFRM: the sender is not told of a loss).
///
/// - unread at one of his officers: "arrived on turn N (unread)", no text —
///   except captured enemy papers, shown only once read;
/// - read this turn (`played`): the text, with when written and received;
/// - written by his officers this turn: that a messenger carries it, or
///   why it was not sent.
///
/// Enemy units named in a captured paper are called as with identities
/// known; a report uses [`report_entries_named`].
pub fn report_entries(
    state: &BattleState,
    side: crate::rules::iron_brigade::state::SideId,
    his_officers: &[OfficerId],
    events: &[Event],
    played: u32,
    clock: &dyn Fn(u32) -> String,
) -> Vec<crate::report::Dispatch> {
    let known = crate::identity::EnemyNames::new(crate::identity::IdentityPolicy::Known);
    report_entries_named(state, side, his_officers, events, played, clock, &known)
}

/// [`report_entries`], an enemy unit named in a captured paper called as
/// the game's identity policy says (`crate::identity`): under the hidden
/// policy by the captors' designation ("enemy B") or what they could see
/// of it ("an enemy regiment"), never its real name.
pub fn report_entries_named(
    state: &BattleState,
    side: crate::rules::iron_brigade::state::SideId,
    his_officers: &[OfficerId],
    events: &[Event],
    played: u32,
    clock: &dyn Fn(u32) -> String,
    names: &crate::identity::EnemyNames,
) -> Vec<crate::report::Dispatch> {
    let his = |o: OfficerId| {
        state.officer(o).is_some_and(|x| x.side == side)
            && (his_officers.is_empty() || his_officers.contains(&o))
    };
    let name = |id: OfficerId| name_of(state, id);
    let mut out = Vec::new();
    for e in events {
        let Event::Sfrm { sfrm } = e else { continue };
        match sfrm {
            DispatchEvent::Sent {
                dispatch, from, to, ..
            } if his(*from) => {
                let text = state
                    .sfrm
                    .dispatches
                    .get(dispatch)
                    .map(|d| d.text.clone())
                    .unwrap_or_default();
                out.push(crate::report::Dispatch {
                    from: name(*from),
                    status: format!(
                        "written to {} on turn {played} ({}); a messenger carries it",
                        name(*to),
                        clock(played)
                    ),
                    text,
                });
            }
            DispatchEvent::NotSent {
                from, to, reason, ..
            } if his(*from) => out.push(crate::report::Dispatch {
                from: name(*from),
                status: format!("to {}, not sent: {reason}", name(*to)),
                text: String::new(),
            }),
            // A courier order taken with its rider: the captors read it at
            // once (docs/rulings-sfrm.md); the paper names its regiment.
            DispatchEvent::Captured {
                by_side,
                orders,
                turn,
                ..
            } if *by_side == side => {
                for o in orders {
                    let unit = |u: crate::rules::iron_brigade::state::UnitId| match state.unit(u) {
                        Some(x) if x.side == side => x.name.clone(),
                        Some(_) => names.call(state, u),
                        None => format!("unit {}", u.0),
                    };
                    out.push(crate::report::Dispatch {
                        from: format!(
                            "{} (a captured enemy order to {})",
                            name(o.issued_by),
                            unit(o.unit)
                        ),
                        status: format!("taken from an enemy courier on turn {turn}"),
                        text: crate::orders::describe::describe_unit_order(o, &unit),
                    });
                }
            }
            _ => {}
        }
    }
    for d in state.sfrm.dispatches.values() {
        let Holder::Officer(h) = d.holder else {
            continue;
        };
        if !his(h) {
            continue;
        }
        let enemy = d.captured.is_some_and(|c| c.by_side == side);
        let from = if enemy {
            format!(
                "{} (a captured enemy dispatch addressed to {})",
                name(d.from),
                name(d.to)
            )
        } else {
            name(d.from)
        };
        match d.status {
            DispatchStatus::Delivered { turn } if !enemy => out.push(crate::report::Dispatch {
                from,
                status: format!(
                    "arrived on turn {turn} ({}) to {} (unread)",
                    clock(turn),
                    name(h)
                ),
                text: String::new(),
            }),
            DispatchStatus::Read { turn } if turn == played => {
                let got = d
                    .received_turn
                    .map(|r| format!(", received turn {r} ({})", clock(r)))
                    .unwrap_or_default();
                out.push(crate::report::Dispatch {
                    from,
                    status: format!(
                        "read by {} on turn {turn}; written turn {} ({}){got}",
                        name(h),
                        d.written_turn,
                        clock(d.written_turn)
                    ),
                    text: d.text.clone(),
                });
            }
            _ => {}
        }
    }
    out
}

/// Every dispatch's route and fate from the store's rows, for the umpire.
pub fn umpire_lines(tx: &Transaction<'_>, game: GameId) -> Result<Vec<String>, rusqlite::Error> {
    let mut st = tx.prepare_cached(
        "SELECT d.id, f.name, t.name, d.written_turn, d.status, d.carrier_json, d.text
         FROM dispatches d
         JOIN officers f ON f.id = d.from_officer_id
         JOIN officers t ON t.id = d.to_officer_id
         WHERE d.game_id = ?1 ORDER BY d.id",
    )?;
    let rows = st
        .query_map([game.0], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, u32>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, String>(6)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows
        .into_iter()
        .map(|(id, from, to, written, status, json, text)| {
            umpire_line(id, &from, &to, written, &status, json.as_deref(), &text)
        })
        .collect())
}

/// One dispatch for the umpire: who, when, status, fate and route.
pub fn umpire_line(
    id: i64,
    from: &str,
    to: &str,
    written: u32,
    status: &str,
    carrier_json: Option<&str>,
    text: &str,
) -> String {
    let c = carrier(carrier_json).unwrap_or_default();
    let route = if c.route.is_empty() {
        "not yet ridden".to_string()
    } else {
        c.route
            .iter()
            .map(|p| format!("({:.1}, {:.1})", p.x, p.y))
            .collect::<Vec<_>>()
            .join(" → ")
    };
    let fate = if c.fate.is_empty() {
        "waiting for its turn to be played".to_string()
    } else {
        c.fate
    };
    format!(
        "#{id} {from} to {to}, written turn {written} [{status}]: {fate}. Route: {route}. Text: \"{text}\""
    )
}
