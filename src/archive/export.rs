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
//!
//! The whole site is a pure function of the archive: rows are read in a
//! stable order, maps are drawn from stored data, and no clock or random
//! value is written, so the same archive always gives the same bytes.

use super::ArchiveError;
use super::load::{GameArchive, OrderRecord, TurnRecord};
use super::order_text::{describe_parsed, describe_unit_order};
use crate::game::clock::format_local;
use crate::game::snapshot::Snapshot;
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

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportSummary {
    pub game: String,
    pub out: PathBuf,
    pub turns: usize,
    /// Every file written, relative to `out`, in the order written.
    pub files: Vec<String>,
    pub fog_lifted: bool,
}

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
}

impl Scale {
    fn of(archive: &GameArchive) -> Scale {
        match Scenario::from_toml_str(&archive.scenario_toml, "the stored scenario") {
            Ok(s) => Scale {
                start: s.start.local,
                minutes_per_turn: s.minutes_per_turn,
                yards_per_inch: s.yards_per_inch,
                table: Some((s.table.width, s.table.height)),
            },
            Err(_) => Scale {
                start: time::macros::datetime!(1862-01-01 0:00),
                minutes_per_turn: 2.5,
                yards_per_inch: 25.0,
                table: None,
            },
        }
    }
}

fn turn_file(n: u32) -> String {
    format!("turn-{n:03}.html")
}

fn side_file(n: u32, side: SideId) -> String {
    format!("turn-{n:03}-side-{}.html", side.0)
}

fn fog_file(n: u32) -> String {
    format!("fog-{n:03}.html")
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
        std::fs::write(&path, bytes).map_err(|source| ArchiveError::Write { path, source })?;
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

    let processed: Vec<&TurnRecord> = archive.turns.iter().filter(|t| t.is_processed()).collect();
    let total = processed.len();
    let mut known: BTreeMap<SideId, LastKnown> = BTreeMap::new();
    progress(0, total);
    let mut sides_of_turn: BTreeMap<u32, Vec<Link>> = BTreeMap::new();
    for (i, turn) in processed.iter().enumerate() {
        let links = export_turn(
            archive, turn, &scale, &tera, &mut known, fog_lifted, &mut site,
        )?;
        sides_of_turn.insert(turn.number, links);
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
                href: turn_file(t.number),
                fog_href: (processed && fog_lifted).then(|| fog_file(t.number)),
                sides: sides_of_turn.remove(&t.number).unwrap_or_default(),
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

/// The state at the end of turn `n`: the snapshot turn n+1 starts from.
fn state_after(archive: &GameArchive, n: u32) -> Result<Option<Snapshot>, ArchiveError> {
    match archive.turn(n + 1) {
        None => Ok(None),
        Some(t) => Snapshot::from_json(&t.state_json)
            .map(Some)
            .map_err(|source| ArchiveError::Snapshot {
                turn: t.number,
                source,
            }),
    }
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

fn export_turn(
    archive: &GameArchive,
    turn: &TurnRecord,
    scale: &Scale,
    tera: &Tera,
    known: &mut BTreeMap<SideId, LastKnown>,
    fog_lifted: bool,
    site: &mut Site,
) -> Result<Vec<Link>, ArchiveError> {
    let n = turn.number;
    let before = Snapshot::from_json(&turn.state_json)
        .map_err(|source| ArchiveError::Snapshot { turn: n, source })?;
    let after = state_after(archive, n)?;
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
    let orders_in_words = after
        .as_ref()
        .map(|s| book_orders(s, &name_of))
        .unwrap_or_default();
    let mut sightings = Vec::new();
    let mut side_turns = Vec::new();
    for side in &truth.sides {
        let vis = vis_of.get(&side.id).cloned().unwrap_or_default();
        let record = SideSighting::new(truth, side.id, truth.turn, &vis);
        let lk = known.entry(side.id).or_default();
        lk.record(&record);
        sightings.push(record);
        let mut inputs = ReportInputs::new(&archive.name, &side.name, scale.start);
        inputs.minutes_per_turn = scale.minutes_per_turn;
        inputs.yards_per_inch = scale.yards_per_inch;
        inputs.table = scale.table;
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
            "{} — {} — end of turn {n}, {}",
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
        },
    );
    let mut true_map = umpire.map.clone();
    true_map.title = format!(
        "{} — true map — end of turn {n}, {}",
        archive.name, umpire.clock
    );
    let true_svg = map_svg(&true_map);

    let side_links: Vec<Link> = side_turns
        .iter()
        .map(|s| Link {
            label: s.name.clone(),
            href: side_file(n, s.id),
        })
        .collect();
    let nav = |ctx: &mut Context| {
        let prev = n
            .checked_sub(1)
            .and_then(|p| archive.turn(p))
            .filter(|t| t.is_processed())
            .map(|t| turn_file(t.number));
        let next = archive
            .turn(n + 1)
            .filter(|t| t.is_processed())
            .map(|t| turn_file(t.number));
        ctx.insert("prev", &prev);
        ctx.insert("next", &next);
    };

    // Each side's page: its view only.
    for s in &side_turns {
        let mut ctx = Context::new();
        ctx.insert(
            "title",
            &format!("{} — turn {n} — {} view", archive.name, s.name),
        );
        ctx.insert("game", &archive.name);
        ctx.insert("turn", &n);
        ctx.insert("clock", &umpire.clock);
        ctx.insert("side", &s.name);
        ctx.insert("svg", &s.svg);
        ctx.insert("seen", &s.seen);
        ctx.insert("last_known", &s.last_known);
        ctx.insert("turn_href", &turn_file(n));
        let html = tera.render("side.html", &ctx).map_err(tera_err)?;
        site.write(&side_file(n, s.id), html.as_bytes())?;
    }

    // The stored reports, as mailed, beside the page.
    let mut reports = Vec::new();
    for r in archive.reports.iter().filter(|r| r.turn_id == turn.id) {
        let stem = format!("turn-{n:03}-report-{}", r.id);
        site.write(&format!("{stem}.txt"), r.text.as_bytes())?;
        let html_href = match &r.html {
            Some(h) => {
                site.write(&format!("{stem}.html"), h.as_bytes())?;
                Some(format!("{stem}.html"))
            }
            None => None,
        };
        reports.push(ReportLink {
            who: r.player.clone().unwrap_or_else(|| "the umpire".to_string()),
            side: r.side.clone().unwrap_or_default(),
            text: r.text.clone(),
            html_href,
            text_href: format!("{stem}.txt"),
        });
    }

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

    let mut ctx = Context::new();
    ctx.insert("title", &format!("{} — turn {n}", archive.name));
    ctx.insert("game", &archive.name);
    ctx.insert("turn", &n);
    ctx.insert("clock", &umpire.clock);
    ctx.insert("status", &turn.status);
    ctx.insert("state_hash", &turn.state_hash);
    ctx.insert(
        "next_state_hash",
        &archive.turn(n + 1).map(|t| t.state_hash.clone()),
    );
    ctx.insert("seed_commitment", &turn.seed_commitment);
    ctx.insert("seed_revealed", &turn.seed_revealed);
    ctx.insert("sides", &side_links);
    ctx.insert("fog_href", &fog_lifted.then(|| fog_file(n)));
    ctx.insert("svg", &true_svg);
    ctx.insert("units", &umpire.units);
    ctx.insert("officers", &umpire.officers);
    ctx.insert("sightings", sights);
    ctx.insert("reports", &reports);
    ctx.insert("orders", &orders);
    ctx.insert("events", &event_lines);
    ctx.insert("rolls", &rolls);
    ctx.insert("dispatches", &dispatches);
    nav(&mut ctx);
    let html = tera.render("turn.html", &ctx).map_err(tera_err)?;
    site.write(&turn_file(n), html.as_bytes())?;

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
        ctx.insert(
            "title",
            &format!("{} — turn {n} — fog lifted", archive.name),
        );
        ctx.insert("game", &archive.name);
        ctx.insert("turn", &n);
        ctx.insert("clock", &umpire.clock);
        ctx.insert("sides", &fog_sides);
        ctx.insert("svg", &true_svg);
        ctx.insert("turn_href", &turn_file(n));
        let html = tera.render("fog.html", &ctx).map_err(tera_err)?;
        site.write(&fog_file(n), html.as_bytes())?;
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
