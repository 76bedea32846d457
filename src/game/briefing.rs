//! The briefing before turn 1 (Adjutant issue #14): when a game is created,
//! and when the umpire's REPLACE gives a command to a new player, each
//! player gets a mail built like a report — the scenario's description,
//! his command (units, officers, strength, formation, position in words and
//! coordinates), the friendly commands, any enemy his side sees at the
//! start, the map, the place names his orders may use, the order form filled
//! with his units, the deadline in his time zone and how to reply (his reply
//! token for the open turn).
//!
//! It is made by the same path as a turn's report (`report::side_view`,
//! `Reporter::player`, `report_mail`), from the open turn's stored state,
//! with sight reckoned as the engine reckons it at the end of a turn (APSoF
//! V.C.3, VIII.F) with nobody having moved or fired. At creation it is
//! stored as the player's report of turn 1, which is what `REPORT 0` sends
//! again.

use super::clock::format_local;
use super::report_mail::{ReportLetter, ReportMail, live_addresses, queue_letter};
use super::reports::{
    ReportsError, last_known_before, link_mail, order_texts, orders_by_unit, reader_officers,
    readers, reply_address,
};
use super::snapshot::Snapshot;
use crate::report::{LastKnown, ReportInputs, Reporter, SideSighting, side_view};
use crate::rules::iron_brigade::sight::{Activity, SightIndex, Visibility, side_visibility};
use crate::rules::iron_brigade::state::{BattleState, SideId};
use crate::scenario::Scenario;
use crate::store::GameId;
use rusqlite::Transaction;
use std::collections::{BTreeMap, BTreeSet};

/// Whom to brief, and whether the briefing is kept as his turn's report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Briefed {
    /// Every active player; each briefing is stored as his report of the
    /// open turn (at creation: turn 1, `REPORT 0`).
    Everyone,
    /// One player (REPLACE): mailed, not stored — his command's reports of
    /// earlier turns are already stored. `tag` makes the Message-ID unique.
    Player { id: i64, tag: i64 },
}

/// What every side sees with nobody having moved or fired this turn.
pub fn standing_visibility(state: &BattleState) -> BTreeMap<SideId, Visibility> {
    let index = SightIndex::new(&state.terrain);
    let none = BTreeSet::new();
    let activity = Activity {
        fired: &none,
        moved: &none,
    };
    let mut sides: BTreeSet<SideId> = state.sides.iter().map(|s| s.id).collect();
    sides.extend(state.units.iter().map(|u| u.side));
    sides
        .into_iter()
        .map(|s| (s, side_visibility(state, &index, s, &activity)))
        .collect()
}

/// The names a player's orders may use for places: every landmark and its
/// aliases, fords, and the named woods, roads, streams, fences and hills
/// (`orders::context::places` reads the same), without repeats.
pub fn place_names(scenario: &Scenario, state: &BattleState) -> Vec<String> {
    let t = &state.terrain;
    let mut out: Vec<String> = Vec::new();
    let mut push = |n: &str| {
        let n = n.trim();
        if !n.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(n)) {
            out.push(n.to_string());
        }
    };
    for l in &scenario.landmarks {
        push(&l.name);
        for a in &l.aliases {
            push(a);
        }
    }
    for l in &t.landmarks {
        push(&l.name);
    }
    for f in &t.fords {
        push(&f.name);
    }
    for a in &t.areas {
        push(&a.name);
    }
    for l in &t.lines {
        push(&l.name);
    }
    for h in &t.hills {
        push(&h.name);
    }
    out
}

/// Renders and queues the briefing(s) of game `game_id` from its open
/// turn's state, in `tx`. Returns how many mails were queued.
pub fn issue_briefings(
    tx: &Transaction<'_>,
    game_id: GameId,
    mail: &ReportMail,
    who: Briefed,
    now: i64,
) -> Result<usize, ReportsError> {
    let (game, scenario_toml): (String, String) = tx.query_row(
        "SELECT name, scenario_toml FROM games WHERE id = ?1",
        [game_id.0],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let scenario = Scenario::from_toml_str(&scenario_toml, "stored scenario").map_err(|e| {
        ReportsError::Scenario {
            game: game.clone(),
            problem: e.to_string(),
        }
    })?;
    // The live timeline's newest turn: the one orders are written for.
    let (turn_id, number, deadline_at, state_json): (i64, u32, Option<i64>, String) = tx
        .query_row(
            "SELECT id, number, deadline_at, state_json FROM turns
             WHERE game_id = ?1 AND superseded_at IS NULL ORDER BY number DESC LIMIT 1",
            [game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
    let snap = Snapshot::from_json(&state_json).map_err(|source| ReportsError::Stored {
        what: "snapshot",
        turn: number,
        source,
    })?;
    let state = &snap.battle;
    let visibility = standing_visibility(state);
    let mut memory = last_known_before(tx, game_id, number)?;
    for (side, vis) in &visibility {
        let s = SideSighting::new(state, *side, number, vis);
        memory.entry(*side).or_default().record(&s);
    }
    let texts = order_texts(tx, game_id, &snap.book)?;
    let all_orders = orders_by_unit(&snap.book, number, &texts);
    let description = scenario
        .description
        .as_deref()
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| format!("{}: the scenario has no description.", scenario.name));
    let places = place_names(&scenario, state);
    let reporter = Reporter::shared()?;
    let empty_vis = Visibility::default();
    let empty_memory = LastKnown::default();
    // The identity policy (`crate::identity`): an enemy seen at the start
    // gets its side's letter now, stored, so the briefing, the receipts and
    // every later report call it alike.
    let policy = scenario.identities;
    let enemy_names =
        super::identity::names_after_sightings(tx, game_id, state, number, &visibility, policy)?;
    let mut queued = 0;
    for reader in readers(tx, game_id, state)? {
        if let Briefed::Player { id, .. } = who
            && id != reader.id
        {
            continue;
        }
        let vis = visibility.get(&reader.side).unwrap_or(&empty_vis);
        let lk = memory.get(&reader.side).unwrap_or(&empty_memory);
        let mut inputs = ReportInputs::new(&game, &reader.name, scenario.start.local);
        inputs.officers = reader_officers(tx, game_id, reader.id)?;
        inputs.minutes_per_turn = scenario.minutes_per_turn;
        inputs.yards_per_inch = scenario.yards_per_inch;
        inputs.table = Some((scenario.table.width, scenario.table.height));
        inputs.deadline = match deadline_at {
            Some(ts) => format_local(ts, &reader.time_zone),
            None => "none set: the turn runs as soon as every player has sent READY".to_string(),
        };
        inputs.reply_to = reply_address(mail, &game, &reader.name, number)?;
        inputs.orders = all_orders
            .iter()
            .filter(|(id, _)| state.unit(**id).is_some_and(|u| u.side == reader.side))
            .map(|(id, o)| (*id, o.clone()))
            .collect();
        inputs.briefing = Some(description.clone());
        inputs.enemy_names = enemy_names
            .get(&reader.side)
            .cloned()
            .unwrap_or_else(|| crate::identity::EnemyNames::new(policy));
        inputs.place_names = places.clone();
        let view = side_view(state, reader.side, vis, lk, &inputs)?;
        let report = reporter.player(&view)?;
        let report_id = match who {
            Briefed::Everyone => Some(crate::store::insert_report(
                tx,
                &crate::store::NewReport {
                    game_id: game_id.0,
                    turn_id,
                    player_id: Some(reader.id),
                    side_id: Some(reader.side_row),
                    text: &report.text,
                    html: &report.html,
                    map_base: Some(&report.map_base),
                    created_at: now,
                },
            )?),
            Briefed::Player { .. } => None,
        };
        let to = live_addresses(tx, reader.id)?;
        if to.is_empty() {
            tracing::warn!(game = %game, player = %reader.name, "every address of the player bounces; briefing not mailed");
            continue;
        }
        let id = match who {
            Briefed::Everyone => format!("{number}-{}", reader.name),
            Briefed::Player { tag, .. } => format!("{number}-{}-r{tag}", reader.name),
        };
        let outbound = queue_letter(
            tx,
            mail,
            &ReportLetter {
                game: &game,
                game_id,
                kind: "briefing",
                id: &id,
                to: &to,
                subject: &report.subject,
                text: &report.text,
                html: Some(&report.html),
                png: Some(&report.png),
                png_name: Some(&report.map_file),
                reply_token_for: Some((&reader.name, number)),
                now,
            },
        )?;
        if let Some(r) = report_id {
            link_mail(tx, r, outbound)?;
        }
        queued += 1;
    }
    Ok(queued)
}
