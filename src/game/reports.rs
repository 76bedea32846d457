//! The reports of a processed turn (Adjutant issue #6): every active
//! player's fog-of-war report and the umpire's, rendered, stored in
//! `reports` and queued as mail — inside the turn's own transaction, so a
//! turn is never processed without its reports, nor reports sent for a turn
//! that did not happen.
//!
//! A report is about the situation at the START of the new turn (the state
//! the engine left), numbered as that turn, and carries the player's reply
//! token for it: answering it sends orders for the turn it describes.
//!
//! What a player is shown is decided in `report::side_view` from:
//! - his side's sight at the end of the turn (APSoF V.C.3, VIII.F);
//! - `LastKnown`, rebuilt from his side's earlier `sighting` events, each
//!   read against the state it was taken in (the snapshot of the turn after
//!   it), so a unit is remembered where it WAS seen;
//! - his units' orders (in force and pending, with the turn each takes
//!   effect, APSoF I.C) in the words he wrote them;
//! - the turn's events his side may be told, enemies unnamed
//!   (`report::narrative`);
//! - mails refused in his name since his previous report (issue #4).

use super::clock::format_local;
use super::report_mail::{
    ReportLetter, ReportMail, ReportMailError, compose_letter, live_addresses, queue_letter,
    queue_umpire_letter,
};
use super::snapshot::Snapshot;
use crate::dice::Roll;
use crate::mail::token;
use crate::report::narrative::{side_narrative_named, umpire_narrative};
use crate::report::view::PendingOrder;
use crate::report::{
    LastKnown, RefusedMail, ReportError, ReportInputs, Reporter, SideSighting, UmpireInputs,
    UnitOrders, side_view, umpire_view, witnessed_ends,
};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::orders::{BookedOrder, OrderBook};
use crate::rules::iron_brigade::sight::Visibility;
use crate::rules::iron_brigade::state::{BattleState, OfficerId, SideId, UnitId};
use crate::scenario::Scenario;
use crate::store::GameId;
use rusqlite::{OptionalExtension, Transaction, params};
use std::collections::{BTreeMap, HashMap};

/// The reports of a turn could not be made. The turn is rolled back with
/// them: a turn without its reports would leave players blind.
#[derive(Debug, thiserror::Error)]
pub enum ReportsError {
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error(transparent)]
    Mail(#[from] ReportMailError),
    #[error("the stored scenario of game `{game}` does not load: {problem}")]
    Scenario { game: String, problem: String },
    #[error("a stored {what} of turn {turn} cannot be read: {source}")]
    Stored {
        what: &'static str,
        turn: u32,
        source: serde_json::Error,
    },
    #[error("database error while making reports: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// What the turn processor hands over once the turn is adjudicated.
#[derive(Debug)]
pub struct TurnResult<'a> {
    pub game: &'a str,
    pub game_id: GameId,
    /// The state and book the engine left (state.turn = the new turn).
    pub state: &'a BattleState,
    pub book: &'a OrderBook,
    pub events: &'a [Event],
    /// What each side saw at the end of the turn.
    pub visibility: &'a BTreeMap<SideId, Visibility>,
    pub rolls: &'a [Roll],
    pub now: i64,
    /// An umpired game's turn is held (issue #8): the player mails are
    /// composed and kept in `held_mail` for RELEASE, and the umpire gets a
    /// preview of each besides his own report.
    pub hold: Option<Hold>,
}

/// The held attempt whose reports these are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hold {
    /// The processed (held) turn row.
    pub turn_id: i64,
    /// Its attempt number (1, then +1 per REDO).
    pub attempt: u32,
}

/// What [`issue_turn_reports`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReportsIssued {
    /// Reports stored (players + umpire).
    pub stored: usize,
    /// Report mails queued.
    pub queued: usize,
    /// The turn was the scenario's last: the reports told the end of the
    /// battle (`super::ending`), and the game is to be finished.
    pub last: bool,
}

/// A player who gets a report.
pub(super) struct Reader {
    pub(super) id: i64,
    pub(super) name: String,
    pub(super) side_row: i64,
    pub(super) side: SideId,
    pub(super) time_zone: String,
}

/// Renders, stores and queues every report of the turn just processed.
pub fn issue_turn_reports(
    tx: &Transaction<'_>,
    t: &TurnResult<'_>,
    mail: &ReportMail,
) -> Result<ReportsIssued, ReportsError> {
    let (scenario_toml, umpire_address): (String, Option<String>) = tx.query_row(
        "SELECT scenario_toml, umpire_address FROM games WHERE id = ?1",
        [t.game_id.0],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let scenario = Scenario::from_toml_str(&scenario_toml, "stored scenario").map_err(|e| {
        ReportsError::Scenario {
            game: t.game.to_string(),
            problem: e.to_string(),
        }
    })?;
    // The turn just opened (state.turn): the turn the reports are about.
    let (new_turn_id, deadline_at): (i64, Option<i64>) = tx.query_row(
        "SELECT id, deadline_at FROM turns WHERE game_id = ?1 AND number = ?2
         AND superseded_at IS NULL",
        params![t.game_id.0, t.state.turn],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    // The scenario's last turn: every report tells the end of the battle.
    let ending = if t.state.turn > 1 {
        super::ending::ending_if_last(tx, t.game_id, &scenario, t.state.turn - 1, t.state)?
    } else {
        None
    };
    let reporter = Reporter::shared()?;
    let order_texts = order_texts(tx, t.game_id, t.book)?;
    let all_orders = orders_by_unit(t.book, t.state.turn, &order_texts);
    let sightings: Vec<SideSighting> = t
        .visibility
        .iter()
        .map(|(side, vis)| {
            SideSighting::new(t.state, *side, t.state.turn, vis)
                .with_ended(witnessed_ends(t.state, *side, t.events))
        })
        .collect();
    // Carried forward from the turn before (issue #18): re-reading every
    // earlier snapshot made each turn's reports dearer than the last.
    let mut memory = match carried_memory(tx, t.game_id, new_turn_id, t.state.turn)? {
        Some(m) => m,
        None => last_known_before(tx, t.game_id, t.state.turn)?,
    };
    for s in &sightings {
        memory.entry(s.side).or_default().record(s);
    }
    keep_memory(tx, t.game_id, new_turn_id, t.state.turn, &memory)?;
    // A turn number adjudicated more than once (REDO, or again after a
    // ROLLBACK) gets Message-IDs of its own, so that no attempt's mail can
    // be taken for another's; the first keeps the plain, stable ids.
    let attempts: i64 = tx.query_row(
        "SELECT count(*) FROM turns WHERE game_id = ?1 AND number = ?2",
        params![t.game_id.0, t.state.turn],
        |r| r.get(0),
    )?;
    let suffix = if attempts > 1 {
        format!(".{new_turn_id}")
    } else {
        String::new()
    };
    let umpire_to: Vec<String> = umpire_address
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(|a| vec![a.to_string()])
        .unwrap_or_default();
    let empty_vis = Visibility::default();
    let empty_memory = LastKnown::default();
    let mut done = ReportsIssued::default();
    // The identity policy (`crate::identity`): each side's designations,
    // given to what it saw at the end of this turn before any report is
    // written, so every report, receipt and resend calls a unit alike.
    let policy = scenario.identities;
    let enemy_names = super::identity::names_after_sightings(
        tx,
        t.game_id,
        t.state,
        t.state.turn,
        t.visibility,
        policy,
    )?;
    let order_numbers = super::identity::side_order_numbers(tx, t.game_id, t.state)?;
    let no_numbers = BTreeMap::new();

    for reader in readers(tx, t.game_id, t.state)? {
        let vis = t.visibility.get(&reader.side).unwrap_or(&empty_vis);
        let lk = memory.get(&reader.side).unwrap_or(&empty_memory);
        let officers = reader_officers(tx, t.game_id, reader.id)?;
        let mut inputs = ReportInputs::new(t.game, &reader.name, scenario.start.local);
        inputs.officers = officers;
        inputs.minutes_per_turn = scenario.minutes_per_turn;
        inputs.yards_per_inch = scenario.yards_per_inch;
        inputs.table = Some((scenario.table.width, scenario.table.height));
        inputs.deadline = match deadline_at {
            Some(ts) => format_local(ts, &reader.time_zone),
            None => "none set: the turn runs as soon as every player has sent READY".to_string(),
        };
        inputs.reply_to = reply_address(mail, t.game, &reader.name, t.state.turn)?;
        // Only his side's units' orders are looked at by side_view; pass
        // no others, so nothing else is even at hand.
        inputs.orders = all_orders
            .iter()
            .filter(|(id, _)| t.state.unit(**id).is_some_and(|u| u.side == reader.side))
            .map(|(id, o)| (*id, o.clone()))
            .collect();
        inputs.enemy_names = enemy_names
            .get(&reader.side)
            .cloned()
            .unwrap_or_else(|| crate::identity::EnemyNames::new(policy));
        let numbers = order_numbers.get(&reader.side).unwrap_or(&no_numbers);
        inputs.orders = inputs
            .orders
            .into_iter()
            .map(|(id, o)| (id, renumber(o, numbers)))
            .collect();
        inputs.narrative = side_narrative_named(
            t.state,
            reader.side,
            t.events,
            vis,
            &inputs.enemy_names,
            Some(numbers),
        );
        // The enemy units the side saw destroyed or driven off the field
        // this turn, said plainly: they leave its list of enemies seen.
        if let Some(rec) = sightings.iter().find(|s| s.side == reader.side) {
            for id in &rec.ended {
                inputs
                    .narrative
                    .push(ended_words(t.state, *id, &inputs.enemy_names));
            }
        }
        inputs.refused_mail = refused_since_last_report(tx, t.game_id, &reader)?;
        inputs.dispatches = super::dispatches::report_entries_named(
            t.state,
            reader.side,
            &inputs.officers,
            t.events,
            t.state.turn.saturating_sub(1),
            &|turn| {
                crate::report::view::battle_clock(
                    scenario.start.local,
                    scenario.minutes_per_turn,
                    turn,
                )
            },
            &inputs.enemy_names,
        );
        let mut view = side_view(t.state, reader.side, vis, lk, &inputs)?;
        view.set_ending(ending.clone());
        let report = reporter.player(&view)?;
        let report_id = store_report(
            tx,
            t,
            new_turn_id,
            Some(reader.id),
            Some(reader.side_row),
            &report.text,
            &report.html,
            &report.map_base,
        )?;
        done.stored += 1;
        let to = live_addresses(tx, reader.id)?;
        if to.is_empty() {
            tracing::warn!(game = t.game, player = %reader.name, "every address of the player bounces; report stored, not mailed");
            continue;
        }
        let id = format!("{}-{}{suffix}", t.state.turn, reader.name);
        let letter = ReportLetter {
            game: t.game,
            game_id: t.game_id,
            kind: "report",
            id: &id,
            to: &to,
            subject: &report.subject,
            text: &report.text,
            html: Some(&report.html),
            png: Some(&report.png),
            png_name: Some(&report.map_file),
            reply_token_for: Some((&reader.name, t.state.turn)),
            now: t.now,
        };
        let Some(hold) = t.hold else {
            let outbound = queue_letter(tx, mail, &letter)?;
            link_mail(tx, report_id, outbound)?;
            done.queued += 1;
            continue;
        };
        hold_letter(tx, mail, &letter, hold, report_id)?;
        if !umpire_to.is_empty() {
            let subject = format!("[preview for {}] {}", reader.name, report.subject);
            let text = format!(
                "PREVIEW, NOT SENT: this is the report {} will receive when you RELEASE turn {}.\n\n{}",
                reader.name,
                t.state.turn.saturating_sub(1),
                report.text
            );
            queue_umpire_letter(
                tx,
                mail,
                &ReportLetter {
                    kind: "umpire-preview",
                    to: &umpire_to,
                    subject: &subject,
                    text: &text,
                    reply_token_for: None,
                    ..letter
                },
                t.state.turn,
            )?;
            done.queued += 1;
        }
    }

    // The umpire's report: always stored, mailed when the game has one.
    let uin = UmpireInputs {
        game: t.game.to_string(),
        battle_start: scenario.start.local,
        minutes_per_turn: scenario.minutes_per_turn,
        yards_per_inch: scenario.yards_per_inch,
        table: Some((scenario.table.width, scenario.table.height)),
        orders: umpire_orders(t.state, t.book, t.state.turn, &order_texts),
        events: umpire_narrative(t.events),
        rolls: t.rolls.to_vec(),
        sightings,
        dispatches: super::dispatches::umpire_lines(tx, t.game_id)?,
        mail_problems: mail_problems(tx, t.game_id)?,
        open_queries: crate::store::open_queries(tx, t.game_id)?
            .iter()
            .map(|q| {
                format!(
                    "{} from {} (written for turn {}): \"{}\" -- not part of this turn; \
                     INTERPRET or REJECT it, then REDO to include it",
                    q.id, q.player, q.turn, q.first_line
                )
            })
            .collect(),
    };
    let mut uview = umpire_view(t.state, &uin);
    uview.set_ending(ending.clone());
    let mut report = reporter.umpire(&uview)?;
    if let Some(hold) = t.hold {
        let turn = t.state.turn.saturating_sub(1);
        report.text = format!(
            "TURN {turn} IS HELD (attempt {}): nothing has gone to the players. A preview of each \
             player's report follows in separate mails. Answer RELEASE to send them, or SET \
             corrections then REDO to adjudicate the turn again with the same dice.\n\n{}",
            hold.attempt, report.text
        );
    }
    let report_id = store_report(
        tx,
        t,
        new_turn_id,
        None,
        None,
        &report.text,
        &report.html,
        &report.map_base,
    )?;
    done.stored += 1;
    if !umpire_to.is_empty() {
        let to = umpire_to.clone();
        let id = format!("{}{suffix}", t.state.turn);
        // His own reply token (for the new turn) in Reply-To: answering
        // the report with RELEASE, SET or REDO is enough to be recognised.
        let outbound = queue_umpire_letter(
            tx,
            mail,
            &ReportLetter {
                game: t.game,
                game_id: t.game_id,
                kind: "umpire-report",
                id: &id,
                to: &to,
                subject: &report.subject,
                text: &report.text,
                html: Some(&report.html),
                png: Some(&report.png),
                png_name: Some(&report.map_file),
                reply_token_for: None,
                now: t.now,
            },
            t.state.turn,
        )?;
        link_mail(tx, report_id, outbound)?;
        done.queued += 1;
    }
    done.last = ending.is_some();
    Ok(done)
}

/// Our address with the player's reply token for `turn`: what Reply-To
/// carries, also printed in the report for clients that lose Reply-To.
pub(super) fn reply_address(
    mail: &ReportMail,
    game: &str,
    player: &str,
    turn: u32,
) -> Result<String, ReportMailError> {
    let t = token::make_token(&mail.server_key, game, player, turn)?;
    Ok(token::make_reply_to(&mail.game_master, &t)?)
}

/// Active players with their side (store row and rules id, matched by
/// name as the order parser does).
pub(super) fn readers(
    tx: &Transaction<'_>,
    game: GameId,
    state: &BattleState,
) -> Result<Vec<Reader>, rusqlite::Error> {
    let mut st = tx.prepare(
        "SELECT p.id, p.name, s.id, s.name, p.time_zone FROM players p
         JOIN sides s ON s.id = p.side_id
         WHERE p.game_id = ?1 AND p.status = 'active' ORDER BY p.id",
    )?;
    let rows = st
        .query_map([game.0], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, name, side_row, side_name, time_zone)| {
            let side = state
                .sides
                .iter()
                .find(|s| s.name.eq_ignore_ascii_case(&side_name))?
                .id;
            Some(Reader {
                id,
                name,
                side_row,
                side,
                time_zone,
            })
        })
        .collect())
}

pub(super) fn reader_officers(
    tx: &Transaction<'_>,
    game: GameId,
    player: i64,
) -> Result<Vec<OfficerId>, rusqlite::Error> {
    let mut st = tx.prepare_cached(
        "SELECT rules_id FROM officers WHERE game_id = ?1 AND player_id = ?2
         AND rules_id IS NOT NULL ORDER BY rules_id",
    )?;
    st.query_map(params![game.0, player], |r| {
        r.get::<_, u32>(0).map(OfficerId)
    })?
    .collect()
}

/// The text as the player wrote it of every order in `book`, by row id.
/// Only the book's orders are read (issue #18): reading every order the
/// game ever had made each turn's reports dearer than the last.
pub(super) fn order_texts(
    tx: &Transaction<'_>,
    game: GameId,
    book: &OrderBook,
) -> Result<HashMap<u64, String>, rusqlite::Error> {
    let mut st =
        tx.prepare_cached("SELECT original_text FROM orders WHERE id = ?1 AND game_id = ?2")?;
    let mut out = HashMap::new();
    for id in book.units.values().flatten().map(|b| b.order.id) {
        if out.contains_key(&id) {
            continue;
        }
        let Ok(row) = i64::try_from(id) else {
            continue;
        };
        if let Some(text) = st
            .query_row(params![row, game.0], |r| r.get::<_, String>(0))
            .optional()?
        {
            out.insert(id, text);
        }
    }
    Ok(out)
}

fn order_words(b: &BookedOrder, texts: &HashMap<u64, String>) -> String {
    texts
        .get(&b.order.id)
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| format!("order #{}", b.order.id))
}

/// A player's copy of his units' orders: an order with no written text
/// is shown by the number his side knows it by (never the game-wide row
/// id, which counts the enemy's orders too).
fn renumber(mut o: UnitOrders, numbers: &BTreeMap<u64, u32>) -> UnitOrders {
    let fix = |text: &mut String| {
        if let Some(id) = text
            .strip_prefix("order #")
            .and_then(|n| n.parse::<u64>().ok())
        {
            *text = match numbers.get(&id) {
                Some(n) => format!("order #{n}"),
                None => "an order".to_string(),
            };
        }
    };
    if let Some(a) = o.active.as_mut() {
        fix(a);
    }
    for p in &mut o.pending {
        fix(&mut p.text);
    }
    o
}

/// Each unit's order in force on `turn` and those pending, with the turn
/// each takes effect (APSoF I.C.1), in the words they were written.
pub(super) fn orders_by_unit(
    book: &OrderBook,
    turn: u32,
    texts: &HashMap<u64, String>,
) -> BTreeMap<UnitId, UnitOrders> {
    book.units
        .keys()
        .map(|unit| {
            let orders = UnitOrders {
                active: book.active(*unit, turn).map(|b| order_words(b, texts)),
                pending: book
                    .pending(*unit, turn)
                    .map(|b| PendingOrder {
                        text: order_words(b, texts),
                        effective_turn: b.effective_turn,
                    })
                    .collect(),
            };
            (*unit, orders)
        })
        .collect()
}

/// The umpire sees every order as written AND as read: the steps the
/// parser made of it, in words (`orders::describe`, the same words the
/// archive shows), with true names — the umpire's view.
fn umpire_orders(
    state: &BattleState,
    book: &OrderBook,
    turn: u32,
    texts: &HashMap<u64, String>,
) -> BTreeMap<UnitId, UnitOrders> {
    let name_of = |id: UnitId| {
        state
            .unit(id)
            .map_or_else(|| format!("unit {}", id.0), |u| u.name.clone())
    };
    let read = |b: &BookedOrder| {
        let officer = state.officer(b.order.issued_by).map_or_else(
            || format!("officer {}", b.order.issued_by.0),
            |o| o.name.clone(),
        );
        format!(
            "#{} from {officer} (issued turn {}): \"{}\" read as: {}",
            b.order.id,
            b.order.issued_turn,
            order_words(b, texts),
            crate::orders::describe::describe_unit_order(&b.order, &name_of)
        )
    };
    book.units
        .keys()
        .map(|unit| {
            let orders = UnitOrders {
                active: book.active(*unit, turn).map(read),
                pending: book
                    .pending(*unit, turn)
                    .map(|b| PendingOrder {
                        text: read(b),
                        effective_turn: b.effective_turn,
                    })
                    .collect(),
            };
            (*unit, orders)
        })
        .collect()
}

/// Each side's last-known map from the `sighting` events of turns before
/// `turn`. A `sighting` event holds WHICH enemies were seen at the end of
/// its turn; where and how they were is read from the state the engine
/// left then, the snapshot of the following turn.
pub(super) fn last_known_before(
    tx: &Transaction<'_>,
    game: GameId,
    turn: u32,
) -> Result<BTreeMap<SideId, LastKnown>, ReportsError> {
    #[derive(serde::Deserialize)]
    struct Stored {
        side: SideId,
        seen: Visibility,
    }
    let mut st = tx.prepare(
        "SELECT t.number, e.data_json, n.state_json FROM events e
         JOIN turns t ON t.id = e.turn_id
         JOIN turns n ON n.prev_turn_id = t.id AND n.superseded_at IS NULL
         WHERE e.game_id = ?1 AND e.kind = 'sighting' AND n.number < ?2
           AND t.superseded_at IS NULL
         ORDER BY t.number, e.seq",
    )?;
    let rows = st
        .query_map(params![game.0, turn], |r| {
            Ok((
                r.get::<_, u32>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    // The events by which a side may have seen an enemy's end
    // (`witnessed_ends`): fire, contact and capture.
    let mut turn_events: HashMap<u32, Vec<Event>> = HashMap::new();
    let mut ev = tx.prepare(
        "SELECT t.number, e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
         WHERE e.game_id = ?1 AND e.kind IN ('fired', 'contact', 'captured')
           AND t.number < ?2 AND t.superseded_at IS NULL
         ORDER BY t.number, e.seq",
    )?;
    let event_rows = ev
        .query_map(params![game.0, turn], |r| {
            Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    for (number, json) in event_rows {
        let event: Event = serde_json::from_str(&json).map_err(|source| ReportsError::Stored {
            what: "event",
            turn: number,
            source,
        })?;
        turn_events.entry(number).or_default().push(event);
    }
    let mut out: BTreeMap<SideId, LastKnown> = BTreeMap::new();
    let mut states: HashMap<u32, BattleState> = HashMap::new();
    for (number, event, state_json) in rows {
        let stored: Stored =
            serde_json::from_str(&event).map_err(|source| ReportsError::Stored {
                what: "sighting",
                turn: number,
                source,
            })?;
        let state = match states.entry(number) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let snap =
                    Snapshot::from_json(&state_json).map_err(|source| ReportsError::Stored {
                        what: "snapshot",
                        turn: number + 1,
                        source,
                    })?;
                e.insert(snap.battle)
            }
        };
        let witnessing = match turn_events.get(&number) {
            Some(events) => witnessed_ends(state, stored.side, events),
            None => Vec::new(),
        };
        let rec =
            SideSighting::new(state, stored.side, state.turn, &stored.seen).with_ended(witnessing);
        out.entry(stored.side).or_default().record(&rec);
    }
    Ok(out)
}

/// "Enemy D is destroyed.": an enemy unit whose end the reader's side
/// witnessed ([`witnessed_ends`]), called as the identity policy says.
fn ended_words(state: &BattleState, id: UnitId, names: &crate::identity::EnemyNames) -> String {
    let who = crate::report::narrative::capitalise(&names.call(state, id));
    let left = state
        .unit(id)
        .is_some_and(|u| u.castings > 0 && u.marks.left_field);
    if left {
        format!("{who} is driven off the field and is out of the battle.")
    } else {
        format!("{who} is destroyed: no formed body of it is left on the field.")
    }
}

/// The last-known maps as they stood after the reports of the turn this
/// one follows (`last_known`, migration 0008): exactly what
/// [`last_known_before`] would build from every earlier turn, when the
/// stored row is for the attempt that produced this turn's start state
/// (`turns.prev_turn_id`). `None` (first turn, a REDO or ROLLBACK, a store
/// from before 0008) means: build it from the history.
fn carried_memory(
    tx: &Transaction<'_>,
    game: GameId,
    new_turn_id: i64,
    turn: u32,
) -> Result<Option<BTreeMap<SideId, LastKnown>>, ReportsError> {
    let json: Option<String> = tx
        .prepare_cached(
            "SELECT k.memory_json FROM last_known k JOIN turns n ON n.prev_turn_id = k.turn_id
             WHERE n.id = ?1 AND k.game_id = ?2",
        )?
        .query_row(params![new_turn_id, game.0], |r| r.get(0))
        .optional()?;
    let Some(json) = json else {
        return Ok(None);
    };
    let sides: Vec<(SideId, LastKnown)> =
        serde_json::from_str(&json).map_err(|source| ReportsError::Stored {
            what: "last-known map",
            turn: turn.saturating_sub(1),
            source,
        })?;
    Ok(Some(sides.into_iter().collect()))
}

/// Keeps the last-known maps after this turn's sightings for the next
/// turn's reports: one row per game, replaced each turn (the history they
/// are made from stays in `events` and `turns`).
fn keep_memory(
    tx: &Transaction<'_>,
    game: GameId,
    new_turn_id: i64,
    turn: u32,
    memory: &BTreeMap<SideId, LastKnown>,
) -> Result<(), ReportsError> {
    let sides: Vec<(&SideId, &LastKnown)> = memory.iter().collect();
    let json = serde_json::to_string(&sides).map_err(|source| ReportsError::Stored {
        what: "last-known map",
        turn,
        source,
    })?;
    tx.prepare_cached(
        "INSERT INTO last_known (game_id, turn_id, memory_json) VALUES (?1, ?2, ?3)
         ON CONFLICT (game_id) DO UPDATE SET turn_id = excluded.turn_id,
                                             memory_json = excluded.memory_json",
    )?
    .execute(params![game.0, new_turn_id, json])?;
    Ok(())
}

/// Words for intake's refusal codes (mail::intake records the code).
fn refusal_words(code: &str) -> String {
    match code {
        "no-secret" => "it carried neither your password nor a reply address of ours".into(),
        "wrong-password" => "the password in it was wrong".into(),
        "invalid-token" => "the reply address it was sent to was not valid".into(),
        "unregistered-sender" => {
            "it came from an address not registered for you, without your password".into()
        }
        "over-limit" => "it was too large to read".into(),
        other => other.replace('-', " "),
    }
}

/// Mails refused in this player's name (audit action `mail-refused`,
/// `detail_json.player` = his name) since his previous report (of the live
/// timeline), or since the game began if he has had none: those with an
/// audit id above the report's `audit_through` (migration 0009), so two
/// daemon cycles in one second neither repeat nor lose one.
fn refused_since_last_report(
    tx: &Transaction<'_>,
    game: GameId,
    reader: &Reader,
) -> Result<Vec<RefusedMail>, rusqlite::Error> {
    // His latest report of the live timeline: what it told runs up to its
    // `audit_through` (older stores: its time). Reports of attempts set
    // aside (REDO, ROLLBACK) were never his: a refusal told only in one of
    // them is told again.
    let last: Option<(i64, Option<i64>)> = tx
        .query_row(
            "SELECT r.created_at, r.audit_through FROM reports r JOIN turns t ON t.id = r.turn_id
             WHERE r.game_id = ?1 AND r.player_id = ?2 AND t.superseded_at IS NULL
             ORDER BY r.id DESC LIMIT 1",
            params![game.0, reader.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (after_id, since) = match last {
        Some((_, Some(through))) => (through, i64::MIN),
        Some((at, None)) => (i64::MIN, at),
        None => (i64::MIN, i64::MIN),
    };
    let mut st = tx.prepare_cached(
        "SELECT at, coalesce(json_extract(detail_json, '$.from'), 'an unknown address'),
                coalesce(reason, '')
         FROM audit_log
         WHERE game_id = ?1 AND action = 'mail-refused'
           AND json_extract(detail_json, '$.player') = ?2 COLLATE NOCASE
           AND id > ?3 AND at >= ?4
         ORDER BY at, id",
    )?;
    st.query_map(params![game.0, reader.name, after_id, since], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
        ))
    })?
    .map(|row| {
        row.map(|(at, from, code)| RefusedMail {
            when: format_local(at, &reader.time_zone),
            from,
            why: refusal_words(&code),
        })
    })
    .collect()
}

#[allow(clippy::too_many_arguments)]
fn store_report(
    tx: &Transaction<'_>,
    t: &TurnResult<'_>,
    turn_id: i64,
    player: Option<i64>,
    side: Option<i64>,
    text: &str,
    html: &str,
    map_base: &str,
) -> Result<i64, rusqlite::Error> {
    crate::store::insert_report(
        tx,
        &crate::store::NewReport {
            game_id: t.game_id.0,
            turn_id,
            player_id: player,
            side_id: side,
            text,
            html,
            map_base: Some(map_base),
            created_at: t.now,
        },
    )
}

/// Composes a player's report mail and keeps it for RELEASE.
fn hold_letter(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    letter: &ReportLetter<'_>,
    hold: Hold,
    report_id: i64,
) -> Result<(), ReportsError> {
    let m = compose_letter(mail, letter, Vec::new())?;
    let recipients =
        serde_json::to_string(&m.recipients).map_err(|source| ReportsError::Stored {
            what: "recipient list",
            turn: letter.reply_token_for.map_or(0, |(_, n)| n),
            source,
        })?;
    tx.execute(
        "INSERT INTO held_mail (game_id, turn_id, report_id, kind, message_id, recipients_json, raw, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            m.game_id.map(|g| g.0),
            hold.turn_id,
            report_id,
            m.kind,
            m.message_id,
            recipients,
            m.raw,
            m.created_at
        ],
    )?;
    Ok(())
}

pub(super) fn link_mail(
    tx: &Transaction<'_>,
    report: i64,
    outbound: i64,
) -> Result<(), rusqlite::Error> {
    tx.execute(
        "UPDATE reports SET outbound_mail_id = ?2 WHERE id = ?1",
        params![report, outbound],
    )?;
    Ok(())
}

/// What keeps mail from the players, for the umpire's report: every player
/// address that bounces (with the last bounce), and the game's messages
/// refused for good (5xx) or given up after their retries, newest first
/// (at most 20; the audit log has the rest).
fn mail_problems(tx: &Transaction<'_>, game: GameId) -> Result<Vec<String>, ReportsError> {
    let mut out = Vec::new();
    let mut st = tx.prepare_cached(
        "SELECT p.name, a.address, a.last_bounce_at, a.last_bounce_detail
         FROM player_addresses a JOIN players p ON p.id = a.player_id
         WHERE a.game_id = ?1 AND a.failing = 1 ORDER BY p.name, a.id",
    )?;
    let bouncing = st.query_map([game.0], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<i64>>(2)?,
            r.get::<_, Option<String>>(3)?,
        ))
    })?;
    for row in bouncing {
        let (player, address, at, detail) = row?;
        let when = at
            .and_then(|t| time::OffsetDateTime::from_unix_timestamp(t).ok())
            .map(|t| format!(" (last bounce {} UTC)", t.date()))
            .unwrap_or_default();
        let why = detail.map(|d| format!(": {d}")).unwrap_or_default();
        out.push(format!("{player}'s address {address} bounces{when}{why}"));
    }
    let mut st = tx.prepare_cached(
        "SELECT kind, recipients_json, attempts, COALESCE(last_error, '')
         FROM outbound_mail WHERE game_id = ?1 AND status = 'failed'
         ORDER BY id DESC LIMIT 20",
    )?;
    let failed = st.query_map([game.0], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    for row in failed {
        let (kind, to, attempts, error) = row?;
        let to: Vec<String> = serde_json::from_str(&to).unwrap_or_default();
        out.push(format!(
            "a {kind} to {} was not delivered after {attempts} attempt(s): {error}",
            to.join(", ")
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::new_game;
    use crate::store::Store;

    const BRAWNER: &str = include_str!("../../scenarios/brawners-farm.toml");

    /// Issue #18: the last-known maps carried forward turn by turn are
    /// exactly those rebuilt from every earlier turn's snapshot and
    /// sightings.
    #[test]
    fn carried_last_known_maps_equal_the_ones_rebuilt_from_history() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("a.db")).unwrap();
        let s = Scenario::from_toml_str(BRAWNER, "brawners-farm.toml").unwrap();
        let (game, _) = new_game(&s, BRAWNER, "brawner", [42; 32], 1_000, |_| {
            Ok(("s".into(), "$argon2id$v=19$test".into()))
        })
        .unwrap();
        let id = store.create_game(&game).unwrap();
        let mail = ReportMail {
            game_master: "adjutant@example.test".into(),
            message_id_domain: "example.test".into(),
            server_key: vec![7; 32],
        };
        let mut seen = 0;
        for _ in 0..4 {
            crate::game::turn::process_turn(&mut store, "brawner", &mail, 2_000).unwrap();
            let tx = store.transaction().unwrap();
            let (open_id, number): (i64, u32) = tx
                .query_row(
                    "SELECT id, number FROM turns WHERE game_id = ?1 AND status = 'open'
                     AND superseded_at IS NULL",
                    [id.0],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            // Kept for the turn after the open one (its reports are made
            // once the open turn is processed), from the open one's reports.
            let (kept_for, json): (i64, String) = tx
                .query_row(
                    "SELECT turn_id, memory_json FROM last_known WHERE game_id = ?1",
                    [id.0],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            assert_eq!(kept_for, open_id);
            let carried: BTreeMap<SideId, LastKnown> =
                serde_json::from_str::<Vec<(SideId, LastKnown)>>(&json)
                    .unwrap()
                    .into_iter()
                    .collect();
            let rebuilt = last_known_before(&tx, id, number + 1).unwrap();
            assert_eq!(carried, rebuilt, "turn {number}");
            seen = carried.values().map(|m| m.units.len()).sum::<usize>();
        }
        assert!(seen > 0, "the test must see some enemy");
    }
}
