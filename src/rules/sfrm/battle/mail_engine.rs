//! SFRM's by-mail plane ([`crate::rules::MailEngine`]): the brigade-scale
//! game driven by the lifecycle through serialised state (pure: no SQL,
//! mail or clock; dice through [`DiceSource`]).
//!
//! The state the store keeps is [`MailState`]: the [`SfrmBattle`] and each
//! side's designations of the enemy units it has seen (a letter each, given
//! when first seen, west to east, and never re-assigned), so that a report,
//! a receipt and the next turn's orders call an enemy alike
//! ([`EnemyNaming`]). Both sides write once per 30-minute turn; the engine
//! plays the attacker's phase then the defender's ("Turn Order", the
//! attacker named by the scenario). Orders are read by [`language`], the
//! turn resolved by [`resolve_turn`], what a side is told is [`side_view`]
//! and its map [`map::side_map_svg`]. docs/sfrm-by-mail.md.
//!
//! The verdict at the scenario's last turn is our ruling (SFRM "Scenario
//! Setup": "Determine objectives in an appropriate manner"): a side holds
//! an objective when one of its units, in play and not routed, is within
//! its radius and no such enemy unit is; an objective named for one side
//! counts only for it. The side with more points wins; equal points are a
//! drawn battle.

use super::language::{self, Context, Place, Reading};
use super::map::{self, esc};
use super::nouns::{SfrmBattle, Side, UnitId};
use super::orders::{SfrmEvent, TurnOrders};
use super::scenario::{SfrmScenario, from_toml_str};
use super::turn::resolve_turn;
use super::view::{EnemyNaming, SideView, seen_enemy_units, side_view, umpire_view, xy};
use crate::dice::DiceSource;
use crate::rules::{
    EngineCorrection, EngineEvent, MailEngine, MailEngineError, MailLineError, MailPlayer,
    OpenedGame, OrdersRead, ReportContent, Resolved, SideUnits,
};
use crate::scenario_text::ScenarioError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What the store keeps of an SFRM game between turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MailState {
    pub battle: SfrmBattle,
    /// The Union's letters for the Confederate units it has seen.
    #[serde(default)]
    pub union_names: BTreeMap<u32, String>,
    /// The Confederacy's letters for the Union units it has seen.
    #[serde(default)]
    pub confederate_names: BTreeMap<u32, String>,
}

impl MailState {
    fn names_of(&self, side: Side) -> &BTreeMap<u32, String> {
        match side {
            Side::Union => &self.union_names,
            Side::Confederate => &self.confederate_names,
        }
    }

    fn names_of_mut(&mut self, side: Side) -> &mut BTreeMap<u32, String> {
        match side {
            Side::Union => &mut self.union_names,
            Side::Confederate => &mut self.confederate_names,
        }
    }

    /// How `side` calls the enemy (identities hidden: by letter).
    pub fn naming(&self, side: Side) -> EnemyNaming {
        EnemyNaming {
            known: false,
            designations: self
                .names_of(side)
                .iter()
                .map(|(id, l)| (UnitId(*id), l.clone()))
                .collect(),
        }
    }

    /// Gives each enemy unit `side` sees now and has no letter for the next
    /// letter, west to east (then south to north), so the order says
    /// nothing of the scenario's order of battle.
    fn designate(&mut self, side: Side) {
        let mut fresh: Vec<(f64, f64, u32)> = seen_enemy_units(&self.battle, side)
            .into_iter()
            .filter(|id| !self.names_of(side).contains_key(&id.0))
            .filter_map(|id| self.battle.unit(id).map(|u| (u.pos.x, u.pos.y, id.0)))
            .collect();
        fresh.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        for (_, _, id) in fresh {
            let n = self.names_of(side).len();
            self.names_of_mut(side).insert(id, letter(n));
        }
    }

    fn to_json(&self) -> Result<String, MailEngineError> {
        serde_json::to_string(self).map_err(|e| MailEngineError::Stored {
            what: "SFRM state",
            problem: e.to_string(),
        })
    }

    fn from_json(json: &str) -> Result<MailState, MailEngineError> {
        serde_json::from_str(json).map_err(|e| MailEngineError::Stored {
            what: "SFRM state",
            problem: e.to_string(),
        })
    }
}

/// A, B, ... Z, AA, AB, ...
fn letter(n: usize) -> String {
    let mut n = n;
    let mut s = Vec::new();
    loop {
        s.push(char::from(b'A' + u8::try_from(n % 26).unwrap_or(0)));
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    s.iter().rev().collect()
}

fn scenario(text: &str) -> Result<SfrmScenario, MailEngineError> {
    from_toml_str(text, "stored scenario").map_err(|e| MailEngineError::Scenario(e.to_string()))
}

fn side_of(s: &str) -> Result<Side, MailEngineError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "union" => Ok(Side::Union),
        "confederate" => Ok(Side::Confederate),
        _ => Err(MailEngineError::NoSide(s.to_string())),
    }
}

/// The side's name as the store keeps it (the scenario's word).
fn side_word(s: Side) -> &'static str {
    match s {
        Side::Union => "union",
        Side::Confederate => "confederate",
    }
}

/// The places an order may name: the scenario's objectives and its named
/// ground (at the centre of each rectangle).
pub fn places(s: &SfrmScenario) -> Vec<Place> {
    let mut out: Vec<Place> = s
        .objectives
        .iter()
        .map(|o| Place {
            name: o.name.clone(),
            pos: o.pos,
        })
        .collect();
    for (name, min, max) in &s.ground_names {
        if out.iter().any(|p| p.name.eq_ignore_ascii_case(name)) {
            continue;
        }
        out.push(Place {
            name: name.clone(),
            pos: super::nouns::Pos::new((min.x + max.x) / 2.0, (min.y + max.y) / 2.0),
        });
    }
    out
}

/// The places as the map writes them: name and point.
fn place_marks(s: &SfrmScenario) -> Vec<(String, super::nouns::Pos)> {
    places(s).into_iter().map(|p| (p.name, p.pos)).collect()
}

/// Clock time "h:mm" of a minute after midnight.
fn clock(minute: u32) -> String {
    let m = minute % (24 * 60);
    format!("{}:{:02}", m / 60, m % 60)
}

/// Who holds each objective now, and the verdict (module doc).
pub fn verdict(s: &SfrmScenario, b: &SfrmBattle) -> String {
    let mut points: BTreeMap<&'static str, u32> = BTreeMap::new();
    let mut lines = Vec::new();
    for o in &s.objectives {
        let near = |side: Side| {
            b.units_of(side)
                .any(|u| !u.gone() && !u.routed && u.pos.distance(o.pos) <= o.radius)
        };
        let holder = match (near(Side::Union), near(Side::Confederate)) {
            (true, false) => Some(Side::Union),
            (false, true) => Some(Side::Confederate),
            _ => None,
        };
        match holder {
            Some(h) if o.side.is_none_or(|only| only == h) => {
                *points.entry(h.name()).or_default() += o.points;
                lines.push(format!(
                    "{} ({} point{}): held by {}",
                    o.name,
                    o.points,
                    if o.points == 1 { "" } else { "s" },
                    army(h)
                ));
            }
            Some(h) => lines.push(format!(
                "{}: held by {}, but it counts only for the other side",
                o.name,
                army(h)
            )),
            None => lines.push(format!("{}: held by neither side", o.name)),
        }
    }
    let u = points.get("Union").copied().unwrap_or(0);
    let c = points.get("Confederate").copied().unwrap_or(0);
    let result = match u.cmp(&c) {
        std::cmp::Ordering::Greater => format!("a Union victory, {u} points to {c}"),
        std::cmp::Ordering::Less => format!("a Confederate victory, {c} points to {u}"),
        std::cmp::Ordering::Equal => format!("a drawn battle, {u} points each"),
    };
    format!(
        "The battle is over: {result}.\n{}",
        lines
            .iter()
            .map(|l| format!("  - {l}\n"))
            .collect::<String>()
    )
}

/// A side's army in words: "the Union", "the Confederates".
fn army(s: Side) -> &'static str {
    match s {
        Side::Union => "the Union",
        Side::Confederate => "the Confederates",
    }
}

/// SFRM's seat as a [`MailEngine`].
#[derive(Debug)]
pub struct SfrmMail;

/// The one value the registry hands out.
pub static SFRM_MAIL: SfrmMail = SfrmMail;

fn events_of(json: Option<&str>) -> Result<Vec<SfrmEvent>, MailEngineError> {
    match json {
        None => Ok(Vec::new()),
        Some(j) => serde_json::from_str(j).map_err(|e| MailEngineError::Stored {
            what: "SFRM events",
            problem: e.to_string(),
        }),
    }
}

/// Text lines to an HTML fragment: each paragraph its own `<p>`, lines
/// starting "- " as list items.
fn html_of(text: &str) -> String {
    let mut out = String::new();
    let mut in_list = false;
    for line in text.lines() {
        let t = line.trim_end();
        let item = t.trim_start().strip_prefix("- ");
        match item {
            Some(i) => {
                if !in_list {
                    out.push_str("<ul>");
                    in_list = true;
                }
                let _ = write!(out, "<li>{}</li>", esc(i));
            }
            None => {
                if in_list {
                    out.push_str("</ul>");
                    in_list = false;
                }
                if !t.trim().is_empty() {
                    let _ = write!(out, "<p>{}</p>", esc(t.trim()));
                }
            }
        }
    }
    if in_list {
        out.push_str("</ul>");
    }
    out
}

/// The side's units, generals and the enemy it sees, in words.
fn situation(v: &SideView) -> String {
    let mut s = String::from("Your troops:\n");
    for o in &v.own_units {
        let u = &o.unit;
        if u.gone() {
            let _ = writeln!(s, "- {}: gone from the field", u.name);
            continue;
        }
        let mut notes = Vec::new();
        if u.routed {
            notes.push("ROUTED".to_string());
        }
        if u.out_of_command {
            notes.push("out of command".to_string());
        }
        if u.out_of_supply > 0 {
            notes.push("out of supply".to_string());
        }
        if u.entrenchment > 0 {
            notes.push("entrenched".to_string());
        }
        if let Some(g) = &o.general {
            notes.push(format!("General {g} with it"));
        }
        let _ = writeln!(
            s,
            "- {}: {} element{} in {} at {} facing {:.0}°{}{}",
            u.name,
            u.elements,
            if u.elements == 1 { "" } else { "s" },
            u.formation.name(),
            xy(u.pos),
            u.facing,
            if notes.is_empty() { "" } else { "; " },
            notes.join(", ")
        );
    }
    s.push_str("\nYour generals:\n");
    for g in v.own_generals.iter().filter(|g| !g.removed) {
        let _ = writeln!(s, "- General {} at {}", g.name, xy(g.pos));
    }
    s.push_str("\nThe enemy in sight:\n");
    if v.enemy_units.is_empty() && v.enemy_generals.is_empty() {
        s.push_str("- none seen\n");
    }
    for e in &v.enemy_units {
        let _ = writeln!(
            s,
            "- {} in {} at {} facing {:.0}°{}{}",
            e.called,
            e.formation.name(),
            xy(e.pos),
            e.facing,
            if e.routed { ", routed" } else { "" },
            if e.entrenched { ", dug in" } else { "" }
        );
    }
    for g in &v.enemy_generals {
        let _ = writeln!(s, "- {} at {}", g.called, xy(g.pos));
    }
    s
}

impl MailEngine for SfrmMail {
    fn open(&self, text: &str, origin: &str) -> Result<OpenedGame, ScenarioError> {
        let s = from_toml_str(text, origin)?;
        let mut state = MailState {
            battle: s.battle.clone(),
            union_names: BTreeMap::new(),
            confederate_names: BTreeMap::new(),
        };
        state.designate(Side::Union);
        state.designate(Side::Confederate);
        let state_json = serde_json::to_string(&state).map_err(|e| ScenarioError::Invalid {
            origin: origin.to_string(),
            problems: vec![crate::scenario_text::Problem::new(
                "",
                format!("the opening state does not serialise: {e}"),
            )],
        })?;
        Ok(OpenedGame {
            scenario_name: s.name.clone(),
            state_json,
            sides: vec![
                side_word(Side::Union).into(),
                side_word(Side::Confederate).into(),
            ],
            players: s
                .players
                .iter()
                .map(|p| MailPlayer {
                    name: p.name.clone(),
                    side: side_word(p.side).into(),
                    addresses: p.addresses.clone(),
                    time_zone: p.time_zone.clone(),
                    commands: p.commands.clone(),
                })
                .collect(),
            umpire: s.umpire.clone(),
            last_turn: s.last_turn,
        })
    }

    fn read_orders(
        &self,
        text: &str,
        state_json: &str,
        side: &str,
        body: &str,
    ) -> Result<OrdersRead, MailEngineError> {
        let s = scenario(text)?;
        let state = MailState::from_json(state_json)?;
        let side = side_of(side)?;
        let places = places(&s);
        let naming = state.naming(side);
        let cx = Context {
            battle: &state.battle,
            side,
            places: &places,
            naming: &naming,
        };
        let reading = language::parse_orders(&cx, body);
        let orders = reading.orders.of(side).len();
        let read_back = language::receipt(
            &cx,
            &Reading {
                errors: Vec::new(),
                ..reading.clone()
            },
        );
        let orders_json =
            serde_json::to_string(&reading.orders).map_err(|e| MailEngineError::Stored {
                what: "orders",
                problem: e.to_string(),
            })?;
        Ok(OrdersRead {
            orders_json,
            orders,
            read_back,
            errors: reading
                .errors
                .iter()
                .map(|e| MailLineError {
                    line: e.line,
                    column: e.column,
                    message: e.message.clone(),
                })
                .collect(),
        })
    }

    fn resolve(
        &self,
        text: &str,
        state_json: &str,
        orders: &[(String, String)],
        dice: &mut dyn DiceSource,
    ) -> Result<Resolved, MailEngineError> {
        let s = scenario(text)?;
        let mut state = MailState::from_json(state_json)?;
        let mut all = TurnOrders::default();
        for (side, json) in orders {
            let side = side_of(side)?;
            let o: TurnOrders =
                serde_json::from_str(json).map_err(|e| MailEngineError::Stored {
                    what: "orders",
                    problem: e.to_string(),
                })?;
            // A player's mail counts only for his own side.
            match side {
                Side::Union => all.union.extend(o.union),
                Side::Confederate => all.confederate.extend(o.confederate),
            }
        }
        let (battle, events) = resolve_turn(&state.battle, &all, dice)
            .map_err(|e| MailEngineError::Turn(e.to_string()))?;
        state.battle = battle;
        state.designate(Side::Union);
        state.designate(Side::Confederate);
        let mut rows = Vec::new();
        for e in &events {
            let v = serde_json::to_value(e).map_err(|e| MailEngineError::Stored {
                what: "SFRM event",
                problem: e.to_string(),
            })?;
            rows.push(EngineEvent {
                kind: v
                    .get("event")
                    .and_then(|k| k.as_str())
                    .unwrap_or("event")
                    .to_string(),
                data_json: v.to_string(),
            });
        }
        // The array of the rows, byte for byte (the trait's contract).
        let events_json = format!(
            "[{}]",
            rows.iter()
                .map(|r| r.data_json.as_str())
                .collect::<Vec<_>>()
                .join(",")
        );
        let verdict = (state.battle.turn >= s.last_turn).then(|| verdict(&s, &state.battle));
        Ok(Resolved {
            state_json: state.to_json()?,
            events: rows,
            events_json,
            verdict,
        })
    }

    fn side_report(
        &self,
        text: &str,
        state_json: &str,
        events_json: Option<&str>,
        side: &str,
    ) -> Result<ReportContent, MailEngineError> {
        let s = scenario(text)?;
        let state = MailState::from_json(state_json)?;
        let side = side_of(side)?;
        let events = events_of(events_json)?;
        let naming = state.naming(side);
        let v = side_view(&state.battle, &events, side, &naming);
        let b = &state.battle;
        let mut t = String::new();
        if events_json.is_none() {
            let _ = writeln!(
                t,
                "{}: your briefing. You command the {} army.\n\n{}\n\nIt is {} ({}); turn 1 begins. The {} move first each turn (SFRM Turn Order).\n",
                s.name,
                side.name(),
                s.description.trim(),
                clock(b.minute_of_turn(1)),
                weather_words(b),
                b.attacker.name()
            );
        } else {
            let _ = writeln!(
                t,
                "{}: turn {} has been played; it is now {}.\n",
                s.name,
                b.turn,
                clock(b.minute_of_turn(b.turn + 1))
            );
        }
        if events_json.is_none() || v.narrative.trim().is_empty() {
            t.push_str(&situation(&v));
        } else {
            // The view's narrative: the turn as the side knew it, then its
            // troops and the enemy in sight (view.rs).
            t.push_str(v.narrative.trim_end());
            t.push('\n');
        }
        if b.turn >= s.last_turn {
            t.push('\n');
            t.push_str(&verdict(&s, b));
        }
        Ok(ReportContent {
            html: html_of(&t),
            svg: map::side_map_svg_with_places(b, &v, &place_marks(&s)),
            text: t,
        })
    }

    fn umpire_report(
        &self,
        text: &str,
        state_json: &str,
        events_json: Option<&str>,
    ) -> Result<ReportContent, MailEngineError> {
        let s = scenario(text)?;
        let state = MailState::from_json(state_json)?;
        let events = events_of(events_json)?;
        let v = umpire_view(&state.battle, &events);
        let mut t = format!("{} (umpire's report)\n\n{}", s.name, v.narrative);
        if state.battle.turn >= s.last_turn {
            t.push('\n');
            t.push_str(&verdict(&s, &state.battle));
        }
        Ok(ReportContent {
            html: html_of(&t),
            svg: map::umpire_map_svg_with_places(&state.battle, &place_marks(&s)),
            text: t,
        })
    }

    fn order_help(
        &self,
        text: &str,
        state_json: &str,
        side: &str,
    ) -> Result<String, MailEngineError> {
        let s = scenario(text)?;
        let state = MailState::from_json(state_json)?;
        let side = side_of(side)?;
        let b = &state.battle;
        let brigades: Vec<&str> = b
            .units_of(side)
            .filter(|u| u.is_infantry_or_cavalry() && !u.gone())
            .map(|u| u.name.as_str())
            .collect();
        let first = brigades.first().copied().unwrap_or("your first brigade");
        let second = brigades.get(1).copied().unwrap_or(first);
        let general = b
            .generals_of(side)
            .find(|g| g.rank == super::nouns::Rank::Division)
            .or_else(|| b.generals_of(side).next())
            .map(|g| g.name.as_str())
            .unwrap_or("your general");
        let place = s
            .objectives
            .first()
            .map(|o| o.name.as_str())
            .unwrap_or("the hill");
        let mut h = String::new();
        let _ = write!(
            h,
            "How to write your orders: one order a line, WHO: WHAT TO DO. WHO is one of \
             your brigades, batteries or trains, or a general (an order to a general goes \
             to every brigade under him, if his command roll succeeds: SFRM Command). \
             Each unit takes one movement order a turn (SFRM Movement & Manoeuvre).\n\
             For example:\n\
             - {first}: advance to {place}\n\
             - {second}: form line facing south, then fire at the nearest enemy\n\
             - General {general}: advance 4 inches north-east\n\
             - {first}: retire 400 yards south\n\
             - {second}: charge the enemy's left\n\
             Name an enemy as your reports call it (\"enemy infantry brigade A\"), or \"the nearest enemy\". \
             Places: {}. Write READY on a line of its own when you are done; your latest mail \
             with orders for a turn replaces your earlier ones for that turn.\n",
            places(&s)
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(h)
    }

    fn correct(
        &self,
        text: &str,
        state_json: &str,
        written: &str,
    ) -> Result<EngineCorrection, MailEngineError> {
        let s = scenario(text)?;
        let state = MailState::from_json(state_json)?;
        super::corrections::read(&s, &state.battle, written).map(|(_, c)| c)
    }

    fn apply_correction(
        &self,
        _text: &str,
        state_json: &str,
        correction_json: &str,
    ) -> Result<String, MailEngineError> {
        let mut state = MailState::from_json(state_json)?;
        let fix: super::corrections::StoredFix =
            serde_json::from_str(correction_json).map_err(|e| MailEngineError::Stored {
                what: "correction",
                problem: e.to_string(),
            })?;
        super::corrections::apply_fix(&mut state.battle, &fix)?;
        state.to_json()
    }

    fn units(&self, _text: &str, state_json: &str) -> Result<Vec<SideUnits>, MailEngineError> {
        Ok(super::corrections::summary(
            &MailState::from_json(state_json)?.battle,
        ))
    }
}

fn weather_words(b: &SfrmBattle) -> String {
    format!("{:?}", b.weather).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::StreamDice;

    const BULL_RUN: &str = include_str!("../../../../scenarios/first-bull-run.toml");

    /// Our ruling on the verdict (module doc): held alone, contested,
    /// counted for one side only.
    #[test]
    fn sfrm_mail_verdict_counts_objectives_held_alone() {
        let s = from_toml_str(BULL_RUN, "fbr").unwrap();
        let mut b = s.battle.clone();
        let hill = s.objectives[0].pos;
        // Every unit far off but one Union brigade on Henry House Hill.
        for u in &mut b.units {
            u.pos = super::super::nouns::Pos::new(0.0, 0.0);
        }
        let union = b.units.iter().position(|u| u.side == Side::Union).unwrap();
        b.units[union].pos = hill;
        b.units[union].routed = false;
        let v = verdict(&s, &b);
        assert!(v.contains("a Union victory, 3 points to 0"), "{v}");
        assert!(
            v.contains("Henry House Hill (3 points): held by the Union"),
            "{v}"
        );
        // An enemy brigade there too: contested, a draw.
        let reb = b
            .units
            .iter()
            .position(|u| u.side == Side::Confederate)
            .unwrap();
        b.units[reb].pos = hill;
        b.units[reb].routed = false;
        let v = verdict(&s, &b);
        assert!(v.contains("a drawn battle, 0 points each"), "{v}");
        assert!(v.contains("Henry House Hill: held by neither side"), "{v}");
        // A routed unit holds nothing.
        b.units[union].routed = true;
        let v = verdict(&s, &b);
        assert!(v.contains("a Confederate victory, 3 points to 0"), "{v}");
    }

    #[test]
    fn sfrm_mail_letters_run_past_z() {
        assert_eq!(letter(0), "A");
        assert_eq!(letter(25), "Z");
        assert_eq!(letter(26), "AA");
        assert_eq!(letter(27), "AB");
    }

    #[test]
    fn sfrm_mail_plane_plays_a_turn_through_json() {
        let e = &SFRM_MAIL;
        let g = e.open(BULL_RUN, "fbr").unwrap();
        assert_eq!(g.players.len(), 2);
        assert_eq!(g.last_turn, 17);
        let r = e
            .read_orders(
                BULL_RUN,
                &g.state_json,
                "union",
                "Burnside's brigade: advance to Matthews Hill\nBurnsde: form line\n",
            )
            .unwrap();
        assert_eq!(r.orders, 1, "{r:?}");
        assert_eq!(r.errors.len(), 1, "{r:?}");
        assert_eq!(r.errors[0].line, 2);
        let mut dice = StreamDice::new([3; 32]);
        let out = e
            .resolve(
                BULL_RUN,
                &g.state_json,
                &[("union".into(), r.orders_json.clone())],
                &mut dice,
            )
            .unwrap();
        assert!(out.verdict.is_none());
        assert!(!out.events.is_empty());
        let rep = e
            .side_report(BULL_RUN, &out.state_json, Some(&out.events_json), "union")
            .unwrap();
        assert!(rep.text.contains("turn 1 has been played"), "{}", rep.text);
        assert!(rep.svg.starts_with("<svg"));
        // The same input gives the same bytes.
        let mut dice = StreamDice::new([3; 32]);
        let again = e
            .resolve(
                BULL_RUN,
                &g.state_json,
                &[("union".into(), r.orders_json)],
                &mut dice,
            )
            .unwrap();
        assert_eq!(again.state_json, out.state_json);
    }
}
