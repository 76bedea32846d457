//! `adjutant archive export GAME --out DIR`: a static HTML site of one game.
//!
//! Pages (all plain HTML and inline SVG; no JavaScript, nothing fetched):
//! - `index.html`: the game and an index of its turns;
//! - `turn-NNN.html`: the umpire's page of turn N — the true map at the end
//!   of the turn, every unit, the orders as written and as read, events,
//!   dice with their purposes, dispatches, what each side saw, and the
//!   stored reports (each also written as `turn-NNN-report-ID.html`/`.txt`);
//! - `turn-NNN-side-S.html`: side S's map as that side saw it at the end of
//!   turn N, built with [`side_view`] from the stored snapshot and the
//!   side's `sighting` events only (APSoF V.C.3) — never from the truth;
//! - `fog-NNN.html`, once the game is `finished`: each side's belief beside
//!   the truth.
//! - `turn-NNN-attempt-K.html` (with its side and fog pages): attempt K of
//!   turn N (in the order opened) when an umpire's REDO, ROLLBACK or
//!   ROLLFORWARD set it aside, drawn by the same `export_turn` from that
//!   attempt's own rows and marked with the command, who and when; the live
//!   turn's page and the index link to them.
//!
//! The whole site is a pure function of the archive: rows are read in a
//! stable order, maps are drawn from stored data, and no clock or random
//! value is written, so the same archive always gives the same bytes.

use super::ArchiveError;
use super::load::{GameArchive, OrderRecord, TurnRecord};
use crate::clock::format_local;
use crate::game::snapshot::Snapshot;
use crate::orders::describe::{describe_parsed, describe_unit_order};
use crate::report::place::coords;
use crate::report::view::{EnemyUnit, UmpireSight};
use crate::report::{
    LastKnown, ReportInputs, SideSighting, UmpireInputs, UnitOrders, map_svg, side_view,
    umpire_view,
};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::sight::Visibility;
use crate::rules::iron_brigade::state::{BattleState, SideId, UnitId};
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tera::{Context, Tera};

const BASE: &str = include_str!("../../templates/archive/base.html");
const INDEX: &str = include_str!("../../templates/archive/index.html");
const TURN: &str = include_str!("../../templates/archive/turn.html");
const SIDE: &str = include_str!("../../templates/archive/side.html");
const FOG: &str = include_str!("../../templates/archive/fog.html");
const STYLE: &str = include_str!("../../templates/archive/style.css");

pub use super::ExportSummary;

/// The `sighting` event's payload, as `game::turn::adjudicate` writes it.
#[derive(Deserialize)]
struct SightingEvent {
    side: SideId,
    seen: Visibility,
}

/// Scenario figures the views need; defaults when the stored scenario no
/// longer parses (a newer validator), so an old game still exports.
struct Scale {
    start: time::PrimitiveDateTime,
    minutes_per_turn: f64,
    yards_per_inch: f64,
    table: Option<(f64, f64)>,
    identities: crate::identity::IdentityPolicy,
}

impl Scale {
    fn of(archive: &GameArchive) -> Scale {
        match Scenario::from_toml_str(&archive.scenario_toml, "the stored scenario") {
            Ok(s) => Scale {
                start: s.start.local,
                minutes_per_turn: s.minutes_per_turn,
                yards_per_inch: s.yards_per_inch,
                table: Some((s.table.width, s.table.height)),
                identities: s.identities,
            },
            Err(_) => Scale {
                start: time::macros::datetime!(1862-01-01 0:00),
                minutes_per_turn: 2.5,
                yards_per_inch: 25.0,
                table: None,
                identities: crate::identity::IdentityPolicy::Hidden,
            },
        }
    }
}

/// The part of an attempt's file names after `turn-`/`fog-`: `005` for
/// the live attempt of turn 5, `005-attempt-2` for its second attempt when
/// that one was set aside.
fn live_stem(n: u32) -> String {
    format!("{n:03}")
}

fn set_aside_stem(n: u32, ordinal: usize) -> String {
    format!("{n:03}-attempt-{ordinal}")
}

fn turn_file(stem: &str) -> String {
    format!("turn-{stem}.html")
}

fn side_file(stem: &str, side: SideId) -> String {
    format!("turn-{stem}-side-{}.html", side.0)
}

fn fog_file(stem: &str) -> String {
    format!("fog-{stem}.html")
}

/// How an attempt was set aside, from its `turn_changes` row and the
/// audit row of the umpire's command that made it.
#[derive(Debug, Clone, Serialize)]
struct SetAsideLine {
    /// `REDO`, `ROLLBACK` or `ROLLFORWARD`.
    command: String,
    actor: String,
    /// UTC.
    at: String,
    /// The command as the umpire wrote it (audit log), if recorded.
    written: String,
    /// The reason the audit log gives, if any.
    reason: String,
}

/// One attempt of a turn number, for the lists of attempts.
#[derive(Debug, Clone, Serialize)]
struct AttemptLine {
    number: u32,
    /// 1, 2, ... in the order the attempts of the number were opened.
    ordinal: usize,
    /// The store's `attempt` counter (1, +1 per REDO, 1 again after a
    /// ROLLBACK), as `adjutant replay` names it.
    counter: u32,
    live: bool,
    status: String,
    processed: bool,
    /// Its page, when it has one (processed attempts).
    href: Option<String>,
    set_aside: Option<SetAsideLine>,
}

/// Every attempt of the game, by row id, with its place among the
/// attempts of its number and how it was set aside.
fn attempt_lines(archive: &GameArchive) -> BTreeMap<i64, AttemptLine> {
    // A change's audit row: the k-th command of its kind by the same actor
    // at the same second is the k-th such change (one transaction writes
    // both, with the same clock).
    let mut nth: BTreeMap<(&str, &str, i64), usize> = BTreeMap::new();
    let mut by_change: BTreeMap<i64, SetAsideLine> = BTreeMap::new();
    for c in &archive.changes {
        let k = nth
            .entry((c.kind.as_str(), c.actor.as_str(), c.at))
            .or_insert(0);
        let action = format!("umpire-{}", c.kind);
        let audit = archive
            .audit
            .iter()
            .filter(|a| a.action == action && a.actor == c.actor && a.at == c.at)
            .nth(*k);
        *k += 1;
        by_change.insert(
            c.id,
            SetAsideLine {
                command: c.kind.to_uppercase(),
                actor: c.actor.clone(),
                at: format_local(c.at, "UTC"),
                written: audit.map(|a| a.what.clone()).unwrap_or_default(),
                reason: audit.and_then(|a| a.reason.clone()).unwrap_or_default(),
            },
        );
    }
    let mut ordinal: BTreeMap<u32, usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for t in &archive.attempts {
        let k = ordinal.entry(t.number).or_insert(0);
        *k += 1;
        let processed = t.is_processed();
        let stem = if t.live {
            live_stem(t.number)
        } else {
            set_aside_stem(t.number, *k)
        };
        out.insert(
            t.id,
            AttemptLine {
                number: t.number,
                ordinal: *k,
                counter: t.attempt,
                live: t.live,
                status: t.status.clone(),
                processed,
                href: processed.then(|| turn_file(&stem)),
                set_aside: t.superseded_by.and_then(|c| by_change.get(&c).cloned()),
            },
        );
    }
    out
}

/// Which attempt a page is of.
struct AttemptPage<'a> {
    /// See [`live_stem`].
    stem: String,
    line: &'a AttemptLine,
    /// The other attempts of the same number, in the order opened.
    others: Vec<&'a AttemptLine>,
}

/// One umpire's correction on a turn page.
#[derive(Serialize)]
struct CorrectionLine {
    unit: String,
    field: String,
    value: String,
    previous: String,
    made_while: String,
    actor: String,
    at: String,
    reason: String,
}

/// `{"field": "castings", "value": 15}` → `15`; anything else as stored.
fn set_value_text(json: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(v) => match v.get("value").unwrap_or(&v) {
            serde_json::Value::String(s) => s.clone(),
            x => x.to_string(),
        },
        Err(_) => json.to_string(),
    }
}

#[derive(Serialize)]
struct Link {
    label: String,
    href: String,
}

#[derive(Serialize)]
struct TurnRow {
    number: u32,
    status: String,
    processed: bool,
    href: String,
    fog_href: Option<String>,
    sides: Vec<Link>,
    /// The turn's other attempts, set aside, when it had more than one.
    set_aside: Vec<AttemptLine>,
    processed_at: String,
    orders: usize,
    events: usize,
    rolls: usize,
    reports: usize,
    seed_commitment: String,
    seed_revealed: String,
    state_hash: String,
}

#[derive(Serialize)]
struct OrderRow {
    id: i64,
    player: String,
    side: String,
    submission: String,
    recipient: String,
    issued_by: String,
    written: String,
    read: String,
    effective_turn: u32,
    status: String,
}

#[derive(Serialize)]
struct EventLine {
    seq: i64,
    kind: String,
    text: String,
}

#[derive(Serialize)]
struct RollLine {
    seq: i64,
    draw: String,
    value: i64,
    sides: i64,
    purpose: String,
    subject: String,
    source: String,
}

#[derive(Serialize)]
struct ReportLink {
    who: String,
    side: String,
    text: String,
    html_href: Option<String>,
    text_href: String,
}

#[derive(Serialize)]
struct DispatchLine {
    id: i64,
    from: String,
    to: String,
    text: String,
    written_turn: u32,
    status: String,
    delivered_turn: String,
    carrier: String,
    /// "Hale (24.0, 8.0) → messenger (20.0, 10.0) → Pryor (23.0, 31.0)",
    /// with the officers where they stand at the end of the turn.
    route: String,
}

/// The route of a dispatch as far as the archive knows it: the writer, the
/// messenger if `carrier_json` has a `position` (the SFRM `Messenger`
/// form), the addressee.
fn dispatch_route(truth: &BattleState, from: &str, to: &str, carrier: Option<&str>) -> String {
    let at = |name: &str| {
        truth.officers.iter().find(|o| o.name == name).map_or_else(
            || name.to_string(),
            |o| format!("{name} ({})", coords(o.position)),
        )
    };
    let c = crate::game::dispatches::carrier(carrier);
    let mut route = Vec::new();
    match c.as_ref().map(|c| (&c.route, c.position)) {
        // The turn processor's record: the point the messenger left from
        // (where the writer was then), every end-of-turn point, then the
        // fate. The writer is named at the first point rather than at
        // where he stands now, which would give the start twice.
        Some((points, _)) if !points.is_empty() => {
            route.extend(points.iter().enumerate().map(|(i, p)| {
                if i == 0 {
                    format!("{from} ({})", coords(*p))
                } else {
                    format!("({})", coords(*p))
                }
            }));
        }
        Some((_, Some(p))) => {
            route.push(at(from));
            route.push(format!("messenger ({})", coords(p)));
        }
        _ => route.push(at(from)),
    }
    route.push(at(to));
    let mut out = route.join(" → ");
    if let Some(c) = c.filter(|c| !c.fate.is_empty()) {
        out.push_str(&format!("; {}", c.fate));
    }
    out
}

#[derive(Serialize)]
struct FogRow {
    unit: String,
    belief: String,
    truth: String,
}

#[derive(Serialize)]
struct FogSide {
    side: String,
    svg: String,
    rows: Vec<FogRow>,
}

/// One side's view of one turn, kept for the side page and the fog page.
struct SideTurn {
    id: SideId,
    name: String,
    svg: String,
    seen: Vec<EnemyUnit>,
    last_known: Vec<EnemyUnit>,
    vis: Visibility,
    known: LastKnown,
}

fn tera_err(e: tera::Error) -> ArchiveError {
    ArchiveError::Template(format!("{e:?}"))
}

fn templates() -> Result<Tera, ArchiveError> {
    let mut tera = Tera::new();
    tera.add_raw_templates([
        ("base.html", BASE),
        ("index.html", INDEX),
        ("turn.html", TURN),
        ("side.html", SIDE),
        ("fog.html", FOG),
    ])
    .map_err(tera_err)?;
    Ok(tera)
}

/// Writes files into `out`, remembering their names.
struct Site {
    out: PathBuf,
    files: Vec<String>,
}

impl Site {
    fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), ArchiveError> {
        let path = self.out.join(name);
        crate::fsutil::write_atomic(&path, bytes, None)
            .map_err(|source| ArchiveError::Write { path, source })?;
        self.files.push(name.to_string());
        Ok(())
    }
}

/// Writes the site of `archive` into `out` (created if missing; files of
/// the same names are replaced). `progress(done, total)` before the first
/// turn and after each.
pub fn export_site(
    archive: &GameArchive,
    out: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ExportSummary, ArchiveError> {
    // A ruleset played through its mail plane draws its own pages.
    if let Some(engine) = crate::rulesets::ruleset_of_scenario(&archive.scenario_toml)
        .ok()
        .and_then(|r| r.mail_engine())
    {
        return super::engine_export::export_engine_site(engine, archive, out, progress);
    }
    std::fs::create_dir_all(out).map_err(|source| ArchiveError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    let tera = templates()?;
    let scale = Scale::of(archive);
    let fog_lifted = archive.status == "finished";
    let mut site = Site {
        out: out.to_path_buf(),
        files: Vec::new(),
    };
    site.write("style.css", STYLE.as_bytes())?;

    // Every processed attempt, live or set aside, by number then row id:
    // an attempt's predecessor (`prev_turn_id`) always comes before it.
    let lines = attempt_lines(archive);
    let processed: Vec<&TurnRecord> = archive
        .attempts
        .iter()
        .filter(|t| t.is_processed())
        .collect();
    let total = processed.len();
    // What each side remembers at the end of each attempt, along that
    // attempt's own timeline: a set-aside attempt's side pages remember
    // only what the side saw in the attempts that led to it.
    let mut known_after: BTreeMap<i64, BTreeMap<SideId, LastKnown>> = BTreeMap::new();
    progress(0, total);
    let mut sides_of_turn: BTreeMap<u32, Vec<Link>> = BTreeMap::new();
    for (i, turn) in processed.iter().enumerate() {
        let prev = turn.prev_turn_id.or_else(|| {
            turn.number
                .checked_sub(1)
                .and_then(|p| archive.turn(p))
                .map(|t| t.id)
        });
        let mut known = prev
            .and_then(|p| known_after.get(&p))
            .cloned()
            .unwrap_or_default();
        let Some(line) = lines.get(&turn.id) else {
            continue;
        };
        let page = AttemptPage {
            stem: if turn.live {
                live_stem(turn.number)
            } else {
                set_aside_stem(turn.number, line.ordinal)
            },
            line,
            others: lines
                .values()
                .filter(|l| l.number == turn.number && l.ordinal != line.ordinal)
                .collect(),
        };
        let links = export_turn(
            archive, turn, &page, &scale, &tera, &mut known, fog_lifted, &mut site,
        )?;
        known_after.insert(turn.id, known);
        if turn.live {
            sides_of_turn.insert(turn.number, links);
        }
        progress(i + 1, total);
    }

    let rows: Vec<TurnRow> = archive
        .turns
        .iter()
        .map(|t| {
            let processed = t.is_processed();
            TurnRow {
                number: t.number,
                status: t.status.clone(),
                processed,
                href: turn_file(&live_stem(t.number)),
                fog_href: (processed && fog_lifted).then(|| fog_file(&live_stem(t.number))),
                sides: sides_of_turn.remove(&t.number).unwrap_or_default(),
                set_aside: lines
                    .values()
                    .filter(|l| l.number == t.number && !l.live)
                    .cloned()
                    .collect(),
                processed_at: t
                    .processed_at
                    .map(|ts| format_local(ts, "UTC"))
                    .unwrap_or_default(),
                orders: archive
                    .orders
                    .iter()
                    .filter(|o| o.issued_turn == t.number)
                    .count(),
                events: archive.events_of(t).len(),
                rolls: archive.rolls_of(t).len(),
                reports: archive.reports.iter().filter(|r| r.turn_id == t.id).count(),
                seed_commitment: t.seed_commitment.clone(),
                seed_revealed: t.seed_revealed.clone().unwrap_or_default(),
                state_hash: t.state_hash.clone(),
            }
        })
        .collect();
    let mut ctx = Context::new();
    ctx.insert("title", &format!("{} — archive", archive.name));
    ctx.insert("game", &archive.name);
    ctx.insert("scenario", &archive.scenario_name);
    ctx.insert("status", &archive.status);
    ctx.insert("created", &format_local(archive.created_at, "UTC"));
    ctx.insert("fog_lifted", &fog_lifted);
    ctx.insert("mails", &archive.mails);
    ctx.insert("dispatches", &archive.dispatches.len());
    ctx.insert(
        "players",
        &archive
            .players
            .iter()
            .map(|p| Link {
                label: p.name.clone(),
                href: p.side.clone(),
            })
            .collect::<Vec<_>>(),
    );
    ctx.insert("turns", &rows);
    ctx.insert("set_aside", &{
        let mut v: Vec<&AttemptLine> = lines.values().filter(|l| !l.live).collect();
        v.sort_by_key(|l| (l.number, l.ordinal));
        v
    });
    ctx.insert(
        "audit",
        &archive
            .audit
            .iter()
            .map(|a| AuditRow {
                at: format_local(a.at, "UTC"),
                actor: a.actor.clone(),
                action: a.action.clone(),
                what: a.what.clone(),
                result: a.result.clone().unwrap_or_default(),
                reason: a.reason.clone().unwrap_or_default(),
            })
            .collect::<Vec<_>>(),
    );
    let html = tera.render("index.html", &ctx).map_err(tera_err)?;
    site.write("index.html", html.as_bytes())?;

    Ok(ExportSummary {
        game: archive.name.clone(),
        out: out.to_path_buf(),
        turns: total,
        files: site.files,
        fog_lifted,
    })
}

/// One line of the index's "Umpire and organiser actions" (the audit log).
#[derive(Debug, Serialize)]
struct AuditRow {
    at: String,
    actor: String,
    action: String,
    what: String,
    result: String,
    reason: String,
}

/// Every unit's orders in words, from the order book after the turn.
fn book_orders(
    snapshot: &Snapshot,
    name_of: &dyn Fn(UnitId) -> String,
) -> BTreeMap<UnitId, UnitOrders> {
    let turn = snapshot.battle.turn;
    let mut out = BTreeMap::new();
    for u in &snapshot.battle.units {
        let active = snapshot
            .book
            .active(u.id, turn)
            .map(|b| describe_unit_order(&b.order, name_of));
        let pending = snapshot
            .book
            .pending(u.id, turn)
            .map(|b| crate::report::view::PendingOrder {
                text: describe_unit_order(&b.order, name_of),
                effective_turn: b.effective_turn,
            })
            .collect();
        out.insert(u.id, UnitOrders { active, pending });
    }
    out
}

/// The state at the end of attempt `turn`: the live timeline's next turn
/// for a live attempt; for a set-aside one, the first attempt opened from
/// its outcome (`prev_turn_id`; REDO and ROLLBACK copies keep the same
/// start snapshot, so any of them would do).
fn outcome_of<'a>(archive: &'a GameArchive, turn: &TurnRecord) -> Option<&'a TurnRecord> {
    if turn.live {
        return archive.turn(turn.number + 1);
    }
    archive
        .attempts
        .iter()
        .find(|t| t.prev_turn_id == Some(turn.id))
}

fn snapshot_of(next: Option<&TurnRecord>) -> Result<Option<Snapshot>, ArchiveError> {
    match next {
        None => Ok(None),
        Some(t) => Snapshot::from_json(&t.state_json)
            .map(Some)
            .map_err(|source| ArchiveError::Snapshot {
                turn: t.number,
                source,
            }),
    }
}

/// The umpire's page of one attempt (the live one or one set aside), its
/// side pages and, once the fog is lifted, its fog page. `known` is what
/// each side remembered before it, along the attempt's own timeline.
#[allow(clippy::too_many_arguments)]
fn export_turn(
    archive: &GameArchive,
    turn: &TurnRecord,
    page: &AttemptPage<'_>,
    scale: &Scale,
    tera: &Tera,
    known: &mut BTreeMap<SideId, LastKnown>,
    fog_lifted: bool,
    site: &mut Site,
) -> Result<Vec<Link>, ArchiveError> {
    let n = turn.number;
    let before = Snapshot::from_json(&turn.state_json)
        .map_err(|source| ArchiveError::Snapshot { turn: n, source })?;
    let next = outcome_of(archive, turn);
    let after = snapshot_of(next)?;
    let stem = page.stem.as_str();
    // "turn 5" for the live attempt, "turn 5, attempt 1 (set aside)" for
    // one the umpire set aside.
    let which = if turn.live {
        format!("turn {n}")
    } else {
        format!("turn {n}, attempt {} (set aside)", page.line.ordinal)
    };
    // What a side page may say of how the attempt was set aside: the
    // command, who and when; never the written command or a reason, which
    // may name units of either side.
    let side_note = page.line.set_aside.as_ref().map(|s| {
        format!(
            "This attempt of turn {n} was set aside by the umpire's {} ({}, {} UTC); it is not part of the game as played. The turn as it stands is on the turn's own pages.",
            s.command, s.actor, s.at
        )
    });
    let truth: &BattleState = after.as_ref().map_or(&before.battle, |s| &s.battle);
    let names: BTreeMap<UnitId, String> = before
        .battle
        .units
        .iter()
        .chain(truth.units.iter())
        .map(|u| (u.id, u.name.clone()))
        .collect();
    let name_of = |id: UnitId| {
        names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("unit {}", id.0))
    };
    let events = archive.events_of(turn);

    // What each side saw at the end of the turn (APSoF V.C.3), from the
    // stored sighting events only.
    let mut vis_of: BTreeMap<SideId, Visibility> = BTreeMap::new();
    for e in events.iter().filter(|e| e.kind == "sighting") {
        if let Ok(s) = serde_json::from_str::<SightingEvent>(&e.data_json) {
            vis_of.insert(s.side, s.seen);
        }
    }
    // The fire, contact and capture by which a side may have seen an
    // enemy's end (`witnessed_ends`), as the reports reckoned it.
    let witnessing: Vec<crate::rules::iron_brigade::events::Event> = events
        .iter()
        .filter(|e| matches!(e.kind.as_str(), "fired" | "contact" | "captured"))
        .filter_map(|e| serde_json::from_str(&e.data_json).ok())
        .collect();
    let orders_in_words = after
        .as_ref()
        .map(|s| book_orders(s, &name_of))
        .unwrap_or_default();
    let mut sightings = Vec::new();
    let mut side_turns = Vec::new();
    for side in &truth.sides {
        let vis = vis_of.get(&side.id).cloned().unwrap_or_default();
        let record = SideSighting::new(truth, side.id, truth.turn, &vis)
            .with_ended(crate::report::witnessed_ends(truth, side.id, &witnessing));
        let lk = known.entry(side.id).or_default();
        lk.record(&record);
        sightings.push(record);
        let mut inputs = ReportInputs::new(&archive.name, &side.name, scale.start);
        inputs.minutes_per_turn = scale.minutes_per_turn;
        inputs.yards_per_inch = scale.yards_per_inch;
        inputs.table = scale.table;
        inputs.enemy_names = archive
            .enemy_names
            .get(&side.id)
            .cloned()
            .unwrap_or_else(|| crate::identity::EnemyNames::new(scale.identities));
        inputs.orders = orders_in_words
            .iter()
            .filter(|(id, _)| truth.unit(**id).is_some_and(|u| u.side == side.id))
            .map(|(id, o)| (*id, o.clone()))
            .collect();
        // No narrative: event lines name enemy units, and a side page shows
        // only what `side_view` copies. The side's own report (below, on
        // the umpire's page) is what it was told.
        let mut view = side_view(truth, side.id, &vis, lk, &inputs)?;
        view.map.title = format!(
            "{} — {} — end of {which}, {}",
            archive.name, side.name, view.clock
        );
        side_turns.push(SideTurn {
            id: side.id,
            name: side.name.clone(),
            svg: map_svg(&view.map),
            seen: view.enemies_seen,
            last_known: view.enemies_last_known,
            vis,
            known: lk.clone(),
        });
    }

    let umpire = umpire_view(
        truth,
        &UmpireInputs {
            game: archive.name.clone(),
            battle_start: scale.start,
            minutes_per_turn: scale.minutes_per_turn,
            yards_per_inch: scale.yards_per_inch,
            table: scale.table,
            orders: orders_in_words.clone(),
            events: Vec::new(),
            rolls: Vec::new(),
            sightings,
            // The turn page lists dispatches with their routes itself.
            dispatches: Vec::new(),
            mail_problems: Vec::new(),
            open_queries: Vec::new(),
        },
    );
    let mut true_map = umpire.map.clone();
    true_map.title = format!(
        "{} — true map — end of {which}, {}",
        archive.name, umpire.clock
    );
    let true_svg = map_svg(&true_map);

    let side_links: Vec<Link> = side_turns
        .iter()
        .map(|s| Link {
            label: s.name.clone(),
            href: side_file(stem, s.id),
        })
        .collect();
    // Previous and next turn of the live timeline; a set-aside attempt's
    // page links to the turn's other attempts instead.
    let nav = |ctx: &mut Context| {
        let live = |t: &&TurnRecord| turn.live && t.is_processed();
        let prev = n
            .checked_sub(1)
            .and_then(|p| archive.turn(p))
            .filter(live)
            .map(|t| turn_file(&live_stem(t.number)));
        let next = archive
            .turn(n + 1)
            .filter(live)
            .map(|t| turn_file(&live_stem(t.number)));
        ctx.insert("prev", &prev);
        ctx.insert("next", &next);
    };

    // Each side's page: its view only.
    for s in &side_turns {
        let mut ctx = Context::new();
        ctx.insert(
            "title",
            &format!("{} — {which} — {} view", archive.name, s.name),
        );
        ctx.insert("game", &archive.name);
        ctx.insert("turn", &n);
        ctx.insert("which", &which);
        ctx.insert("set_aside_note", &side_note);
        ctx.insert("clock", &umpire.clock);
        ctx.insert("side", &s.name);
        ctx.insert("svg", &s.svg);
        ctx.insert("seen", &s.seen);
        ctx.insert("last_known", &s.last_known);
        ctx.insert("turn_href", &turn_file(stem));
        let html = tera.render("side.html", &ctx).map_err(tera_err)?;
        site.write(&side_file(stem, s.id), html.as_bytes())?;
    }

    // The stored reports, as mailed, beside the page. A report is stored
    // with the attempt it opens (the "report for turn N" is kept with turn
    // N's attempt). When this attempt's outcome opened an attempt that was
    // set aside before it was adjudicated, that attempt has no page: the
    // reports made from this outcome are shown here instead, or nowhere.
    let mut write_reports = |turn_id: i64, number: u32| -> Result<Vec<ReportLink>, ArchiveError> {
        let mut out = Vec::new();
        for r in archive.reports.iter().filter(|r| r.turn_id == turn_id) {
            let report = format!("turn-{number:03}-report-{}", r.id);
            site.write(&format!("{report}.txt"), r.text.as_bytes())?;
            let html_href = match &r.html {
                Some(h) => {
                    site.write(&format!("{report}.html"), h.as_bytes())?;
                    Some(format!("{report}.html"))
                }
                None => None,
            };
            out.push(ReportLink {
                who: r.player.clone().unwrap_or_else(|| "the umpire".to_string()),
                side: r.side.clone().unwrap_or_default(),
                text: r.text.clone(),
                html_href,
                text_href: format!("{report}.txt"),
            });
        }
        Ok(out)
    };
    // Likewise the reports made from the latest outcome: they are kept with
    // the open turn, which has no page until it is played.
    let reports = write_reports(turn.id, n)?;
    let outcome_reports = match next {
        Some(nx) if !nx.is_processed() => write_reports(nx.id, nx.number)?,
        _ => Vec::new(),
    };
    let next_open = next.is_some_and(|nx| nx.live && !nx.is_processed());

    let orders: Vec<OrderRow> = archive
        .orders
        .iter()
        .filter(|o| o.issued_turn == n)
        .map(|o: &OrderRecord| OrderRow {
            id: o.id,
            player: o.player.clone(),
            side: o.side.clone(),
            submission: o.submission.clone(),
            recipient: if o.for_officer {
                format!("{} (himself)", o.recipient)
            } else {
                o.recipient.clone()
            },
            issued_by: o.issued_by.clone().unwrap_or_default(),
            written: o.original_text.clone(),
            read: describe_parsed(&o.parsed_json, &name_of),
            effective_turn: o.effective_turn,
            status: o.status.clone(),
        })
        .collect();
    let event_lines: Vec<EventLine> = events
        .iter()
        .map(|e| EventLine {
            seq: e.seq,
            kind: e.kind.clone(),
            text: match e.kind.as_str() {
                "turn-input" => "the orders given to the engine (kept for replay)".to_string(),
                "sighting" => match serde_json::from_str::<SightingEvent>(&e.data_json) {
                    Ok(s) => format!(
                        "what {} saw at the end of the turn: {} enemy units",
                        truth
                            .sides
                            .iter()
                            .find(|x| x.id == s.side)
                            .map_or_else(|| format!("side {}", s.side.0), |x| x.name.clone()),
                        s.seen.seen.len()
                    ),
                    Err(_) => e.data_json.clone(),
                },
                _ => serde_json::from_str::<Event>(&e.data_json)
                    .map(|ev| ev.describe())
                    .unwrap_or_else(|_| e.data_json.clone()),
            },
        })
        .collect();
    let rolls: Vec<RollLine> = archive
        .rolls_of(turn)
        .iter()
        .map(|r| RollLine {
            seq: r.seq,
            draw: r.draw_index.map(|d| d.to_string()).unwrap_or_default(),
            value: r.value,
            sides: r.sides,
            purpose: r.purpose.clone(),
            subject: r.subject.clone().unwrap_or_default(),
            source: r.source.clone(),
        })
        .collect();
    let dispatches: Vec<DispatchLine> = archive
        .dispatches
        .iter()
        .filter(|d| d.written_turn == n || d.delivered_turn == Some(n))
        .map(|d| DispatchLine {
            id: d.id,
            from: d.from.clone(),
            to: d.to.clone(),
            text: d.text.clone(),
            written_turn: d.written_turn,
            status: d.status.clone(),
            delivered_turn: d.delivered_turn.map(|t| t.to_string()).unwrap_or_default(),
            carrier: d.carrier_json.clone().unwrap_or_default(),
            route: dispatch_route(truth, &d.from, &d.to, d.carrier_json.as_deref()),
        })
        .collect();
    let sights: &Vec<UmpireSight> = &umpire.sightings;

    let corrections: Vec<CorrectionLine> = archive
        .corrections
        .iter()
        .filter(|c| c.turn_id == turn.id)
        .map(|c| CorrectionLine {
            unit: c.unit.clone(),
            field: c.field.clone(),
            value: set_value_text(&c.value_json),
            previous: set_value_text(&c.previous_json),
            made_while: c.made_while.clone(),
            actor: c.actor.clone(),
            at: format_local(c.at, "UTC"),
            reason: c.reason.clone(),
        })
        .collect();

    let mut ctx = Context::new();
    ctx.insert("title", &format!("{} — {which}", archive.name));
    ctx.insert("game", &archive.name);
    ctx.insert("turn", &n);
    ctx.insert("which", &which);
    ctx.insert("attempt", page.line);
    ctx.insert("others", &page.others);
    ctx.insert("corrections", &corrections);
    ctx.insert("clock", &umpire.clock);
    ctx.insert("status", &turn.status);
    ctx.insert("state_hash", &turn.state_hash);
    ctx.insert("next_state_hash", &next.map(|t| t.state_hash.clone()));
    ctx.insert("seed_commitment", &turn.seed_commitment);
    ctx.insert("seed_revealed", &turn.seed_revealed);
    ctx.insert("sides", &side_links);
    ctx.insert("fog_href", &fog_lifted.then(|| fog_file(stem)));
    ctx.insert("svg", &true_svg);
    ctx.insert("units", &umpire.units);
    ctx.insert("officers", &umpire.officers);
    ctx.insert("sightings", sights);
    ctx.insert("reports", &reports);
    ctx.insert("outcome_reports", &outcome_reports);
    ctx.insert("next_turn", &(n + 1));
    ctx.insert("next_open", &next_open);
    ctx.insert("orders", &orders);
    ctx.insert("events", &event_lines);
    ctx.insert("rolls", &rolls);
    ctx.insert("dispatches", &dispatches);
    nav(&mut ctx);
    let html = tera.render("turn.html", &ctx).map_err(tera_err)?;
    site.write(&turn_file(stem), html.as_bytes())?;

    if fog_lifted {
        let fog_sides: Vec<FogSide> = side_turns
            .iter()
            .map(|s| FogSide {
                side: s.name.clone(),
                svg: s.svg.clone(),
                rows: fog_rows(truth, s, scale.yards_per_inch),
            })
            .collect();
        let mut ctx = Context::new();
        ctx.insert("title", &format!("{} — {which} — fog lifted", archive.name));
        ctx.insert("game", &archive.name);
        ctx.insert("turn", &n);
        ctx.insert("which", &which);
        ctx.insert("set_aside_note", &side_note);
        ctx.insert("clock", &umpire.clock);
        ctx.insert("sides", &fog_sides);
        ctx.insert("svg", &true_svg);
        ctx.insert("turn_href", &turn_file(stem));
        let html = tera.render("fog.html", &ctx).map_err(tera_err)?;
        site.write(&fog_file(stem), html.as_bytes())?;
    }
    Ok(side_links)
}

/// Every enemy unit of side `s`: what the side believed beside the truth.
fn fog_rows(truth: &BattleState, s: &SideTurn, yards_per_inch: f64) -> Vec<FogRow> {
    truth
        .enemies_of(s.id)
        .map(|u| {
            let seen_now = s.vis.seen.get(&u.id);
            let belief = match (seen_now, s.known.units.get(&u.id)) {
                (Some(by), Some(ls)) => format!(
                    "seen now: about {} men, {}, at ({}), {:.0} yards away",
                    ls.about_men,
                    ls.formation.as_str().replace('-', " "),
                    coords(ls.position),
                    by.distance * yards_per_inch
                ),
                (None, Some(ls)) => format!(
                    "last seen at turn {}: about {} men, {}, at ({})",
                    ls.turn,
                    ls.about_men,
                    ls.formation.as_str().replace('-', " "),
                    coords(ls.position)
                ),
                _ => "never seen".to_string(),
            };
            FogRow {
                unit: u.name.clone(),
                belief,
                truth: format!(
                    "at ({}), {} castings, {}, morale {} of {}",
                    coords(u.position),
                    u.castings,
                    u.formation.as_str().replace('-', " "),
                    u.combat_morale,
                    u.base_morale
                ),
            }
        })
        .collect()
}
