//! The pure filters: [`side_view`] copies what one player may be shown;
//! [`umpire_view`] copies everything. Templates and the map only ever see
//! these views.

use super::ReportError;
use super::map::{MapLayer, MapOfficer, MapUnit, Mark};
use super::place::{DEFAULT_YARDS_PER_INCH, coords, facing_point, relative_to_landmark};
use super::sighting::{LastKnown, MEN_PER_CASTING, about_men};
use crate::dice::Roll;
use crate::rules::iron_brigade::geometry::{Footprint, footprint};
use crate::rules::iron_brigade::kinds::{Arm, Formation};
use crate::rules::iron_brigade::sight::Visibility;
use crate::rules::iron_brigade::state::{
    BattleState, OfficerId, OfficerStatus, Pos, SideId, Terrain, Unit, UnitId,
};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use time::PrimitiveDateTime;

/// An order not yet in force and the turn it takes effect (APSoF I.C).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingOrder {
    pub text: String,
    pub effective_turn: u32,
}

/// A unit's orders as plain strings, written by the order engine.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct UnitOrders {
    pub active: Option<String>,
    pub pending: Vec<PendingOrder>,
}

/// A dispatch as its reader's report tells it (SFRM "Discussions of
/// Strategy & Tactics During Play"): who wrote it, where it stands for the
/// reader ("arrived on turn 5, unread"; "read on turn 6; written …,
/// received …") and its text once read (empty until then).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dispatch {
    pub from: String,
    pub status: String,
    pub text: String,
}

/// A mail refused in the player's name since his previous report (issue
/// #4: a forged `From` or a wrong password is shown to the owner).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RefusedMail {
    /// When it arrived, in the player's time zone.
    pub when: String,
    /// The address it claimed to come from.
    pub from: String,
    /// Why it was refused, in words.
    pub why: String,
}

/// Everything a player's report needs besides the state and what his side
/// saw. The caller (the turn lifecycle) fills it; strings are used as given.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportInputs {
    pub game: String,
    /// The player's name, for the greeting.
    pub player: String,
    /// The officers this player writes orders for. His units are those in
    /// their commands (APSoF I.C.1 chain of command). Empty: every unit of
    /// the side is his.
    pub officers: Vec<OfficerId>,
    /// Local time at the start of turn 1.
    pub battle_start: PrimitiveDateTime,
    /// Minutes of battle per turn (Iron Brigade: 2.5, APSoF IV.A).
    pub minutes_per_turn: f64,
    /// The next deadline, already formatted in the player's time zone.
    pub deadline: String,
    /// Where to send orders.
    pub reply_to: String,
    pub yards_per_inch: f64,
    /// Table size in inches (width, height); `None`: fit to what is shown.
    pub table: Option<(f64, f64)>,
    /// How this side may call the enemy: the game's identity policy and
    /// the side's designations (`crate::identity`). Enemies shown without
    /// a designation here get the next letters, as `game::identity` would
    /// give them.
    pub enemy_names: crate::identity::EnemyNames,
    /// Orders by unit. Only the player's own units' orders are copied.
    pub orders: BTreeMap<UnitId, UnitOrders>,
    /// What his units did and suffered, already filtered to what his side
    /// saw (`Event::describe` + the visibility filter).
    pub narrative: Vec<String>,
    pub dispatches: Vec<Dispatch>,
    /// Mails refused in his name since his previous report.
    pub refused_mail: Vec<RefusedMail>,
    /// The briefing before turn 1 (issue #14): the scenario's description.
    /// `Some` makes this report the briefing rather than a turn's results.
    pub briefing: Option<String>,
    /// The place names his orders may use (landmarks and their aliases,
    /// fords, named terrain), shown in the briefing.
    pub place_names: Vec<String>,
}

impl ReportInputs {
    /// Inputs with no orders, events or dispatches and Iron Brigade scale.
    pub fn new(game: &str, player: &str, battle_start: PrimitiveDateTime) -> ReportInputs {
        ReportInputs {
            game: game.to_string(),
            player: player.to_string(),
            officers: Vec::new(),
            battle_start,
            minutes_per_turn: 2.5,
            deadline: String::new(),
            reply_to: String::new(),
            yards_per_inch: DEFAULT_YARDS_PER_INCH,
            table: None,
            enemy_names: crate::identity::EnemyNames::default(),
            orders: BTreeMap::new(),
            narrative: Vec::new(),
            dispatches: Vec::new(),
            refused_mail: Vec::new(),
            briefing: None,
            place_names: Vec::new(),
        }
    }
}

/// One of the player's own units, in full.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnUnit {
    pub name: String,
    pub arm: String,
    pub formation: String,
    pub facing: String,
    pub facing_deg: u32,
    pub coords: String,
    pub place: String,
    pub castings: u32,
    pub men: u32,
    /// Battery guns on the field (0 for others).
    pub guns: u32,
    pub combat_morale: u8,
    pub base_morale: u8,
    /// "broken", "retreating", "lying down", "dismounted" … as words.
    pub condition: Vec<String>,
    /// Destroyed, combined into another unit or off the table: out of the
    /// battle, not drawn on the map nor given a line in the order form.
    pub out_of_battle: bool,
    pub active_order: Option<String>,
    pub pending: Vec<PendingOrder>,
}

/// A unit of the player's side under another commander.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FriendUnit {
    pub name: String,
    pub arm: String,
    pub formation: String,
    pub place: String,
    pub coords: String,
    /// Set when the unit is out of the battle: "destroyed: no castings
    /// left", "combined into another unit (VII.C)", "retreated off the
    /// table: out of the battle" (issue #14: never shown as live).
    pub gone: Option<String>,
}

/// One of the player's officers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnOfficer {
    pub name: String,
    pub status: String,
    pub place: String,
    pub coords: String,
}

/// An enemy unit as a staff officer would describe it: no name (unless
/// identities are known), no castings, no morale.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnemyUnit {
    /// The side's designation of the unit, which names it on the map and
    /// in orders: "A", "B", … (`crate::identity`).
    pub mark: String,
    /// "a Confederate infantry regiment" (or its name if identities are
    /// known).
    pub description: String,
    pub about_men: u32,
    /// "in line", "limbered".
    pub formation: String,
    pub facing: String,
    pub place: String,
    pub coords: String,
    /// Seen now: yards from the nearest of his men who saw it.
    pub yards_away: Option<u32>,
    /// Last known: the turn at whose start it was seen (a sighting is made
    /// at the end of the turn before, when the next turn opens), and how
    /// many turns ago.
    pub seen_turn: Option<u32>,
    pub turns_ago: Option<u32>,
    /// "this turn", "1 turn ago", "3 turns ago" (last known only).
    pub ago: String,
}

/// The end of the battle, told in the report of the scenario's last turn
/// (`game::ending`): the verdict and how each objective stood. Set on a
/// view after it is built; `None` in every other report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndOfBattle {
    /// "The battle is over: a Confederate victory, 15 points to 8."
    pub headline: String,
    /// One line per objective: who held it, and the points.
    pub objectives: Vec<String>,
}

/// What one player may be shown this turn. Built only by [`side_view`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideView {
    pub game: String,
    pub player: String,
    pub side: String,
    pub turn: u32,
    /// The turn whose results this report tells: `turn - 1` (the mail
    /// after turn 3 is "Turn 3 results (orders now for turn 4)"); 0 for
    /// the briefing.
    pub results_of: u32,
    /// The briefing's text (the scenario's description); `None` in a
    /// turn's report.
    pub briefing: Option<String>,
    /// Place names his orders may use (the briefing lists them).
    pub place_names: Vec<String>,
    /// Battle clock: scenario start + (turn − 1) × minutes per turn.
    pub clock: String,
    pub deadline: String,
    pub reply_to: String,
    pub officers: Vec<OwnOfficer>,
    pub units: Vec<OwnUnit>,
    pub friends: Vec<FriendUnit>,
    pub enemies_seen: Vec<EnemyUnit>,
    pub enemies_last_known: Vec<EnemyUnit>,
    pub narrative: Vec<String>,
    pub dispatches: Vec<Dispatch>,
    /// Messenger riders his side sees at the end of the turn, own and
    /// enemy, in words (SFRM messengers are pieces on the table).
    pub riders: Vec<String>,
    /// His side's pontoon boats (APSoF IV.E.2), in words: where they lie,
    /// how many, afloat or still on their wagons.
    pub boats: Vec<String>,
    pub refused_mail: Vec<RefusedMail>,
    /// Pre-filled orders to edit and send back.
    pub order_template: String,
    /// `Some` in the report of the scenario's last turn: the battle is over.
    pub ending: Option<EndOfBattle>,
    pub map: MapLayer,
}

/// The battle's clock time at the start of `turn`: scenario start +
/// (turn − 1) × minutes per turn, as "6:32 p.m., 28 August 1862".
pub fn battle_clock(start: PrimitiveDateTime, minutes_per_turn: f64, turn: u32) -> String {
    let secs = (f64::from(turn.saturating_sub(1)) * minutes_per_turn * 60.0).round();
    // A battle lasts hours, not centuries; clamp keeps the cast in range.
    let at = start.saturating_add(time::Duration::seconds(secs.clamp(0.0, 1.0e9) as i64));
    let (h, m) = (at.hour(), at.minute());
    let (h12, ampm) = match h {
        0 => (12, "a.m."),
        1..=11 => (h, "a.m."),
        12 => (12, "p.m."),
        _ => (h - 12, "p.m."),
    };
    let sec = if at.second() != 0 {
        format!(":{:02}", at.second())
    } else {
        String::new()
    };
    format!(
        "{h12}:{m:02}{sec} {ampm}, {} {} {}",
        at.day(),
        at.month(),
        at.year()
    )
}

/// The turn as players count it (issue #14): "turn 3 results, orders for
/// turn 4"; "briefing, orders for turn 1".
fn turn_words(turn: u32, briefing: bool) -> String {
    if briefing || turn <= 1 {
        format!("briefing, orders for turn {turn}")
    } else {
        format!("turn {} results, orders for turn {turn}", turn - 1)
    }
}

/// A map title for the last turn: "turn 24 results, the battle is over"
/// in place of "turn 24 results, orders for turn 25" (there are none).
fn ended_title(title: &str, turn: u32) -> String {
    title.replacen(
        &turn_words(turn, false),
        &format!(
            "turn {} results, the battle is over",
            turn.saturating_sub(1)
        ),
        1,
    )
}

impl SideView {
    /// The end of the battle, told in this report (`game::ending`), and
    /// its map titled so.
    pub fn set_ending(&mut self, ending: Option<EndOfBattle>) {
        if ending.is_some() {
            self.map.title = ended_title(&self.map.title, self.turn);
        }
        self.ending = ending;
    }
}

impl UmpireView {
    /// As [`SideView::set_ending`], for the umpire's report.
    pub fn set_ending(&mut self, ending: Option<EndOfBattle>) {
        if ending.is_some() {
            self.map.title = ended_title(&self.map.title, self.turn);
        }
        self.ending = ending;
    }
}

fn side_name(state: &BattleState, side: SideId) -> String {
    state
        .sides
        .iter()
        .find(|s| s.id == side)
        .map(|s| s.name.clone())
        .unwrap_or_else(|| format!("Side {}", side.0))
}

fn formation_words(f: Formation) -> String {
    match f {
        Formation::CompanyColumn => "company column".into(),
        Formation::EnMasse => "column en masse".into(),
        other => other.as_str().replace('-', " "),
    }
}

/// "in line", "in column en masse", "limbered": how a report says it.
fn formation_phrase(f: Formation) -> String {
    match f {
        Formation::Limbered | Formation::Unlimbered => f.as_str().to_string(),
        Formation::Skirmish => "in skirmish order".into(),
        other => format!("in {}", formation_words(other)),
    }
}

fn arm_words(a: Arm) -> String {
    a.as_str().replace('-', " ")
}

/// The arm, or "wagons (heavy equipment)" for a unit that moves in the
/// IV.G heavy-equipment column (APSoF IV.E.2, IV.G).
fn unit_arm_words(u: &Unit) -> String {
    if u.heavy_equipment {
        "wagons (heavy equipment)".into()
    } else {
        arm_words(u.arm)
    }
}

/// What an enemy unit is seen to be, from its arm: its uniform and kind are
/// what the eye tells. Wagons moving as heavy equipment (APSoF IV.E.2,
/// IV.G) are seen as a wagon train, not as the arm they are listed under.
pub(crate) fn enemy_kind_words(arm: Arm, heavy_equipment: bool) -> &'static str {
    if heavy_equipment {
        return "wagon train";
    }
    match arm {
        Arm::Infantry => "infantry regiment",
        Arm::Cavalry => "cavalry regiment",
        Arm::Artillery => "battery",
        Arm::HorseArtillery => "horse battery",
    }
}

/// "a Confederate infantry regiment"; "a Union battery"; "a Union wagon
/// train".
pub(crate) fn enemy_description(side: &str, arm: Arm, heavy_equipment: bool) -> String {
    let what = enemy_kind_words(arm, heavy_equipment);
    let article = match side.chars().next() {
        // "a Union", "an Army of …": U reads as "you".
        Some(c) if "AEIOaeio".contains(c) => "an",
        _ => "a",
    };
    format!("{article} {side} {what}")
}

fn place_of(p: Pos, state: &BattleState, ypi: f64) -> String {
    relative_to_landmark(p, &state.terrain.landmarks, ypi).unwrap_or_else(|| coords(p))
}

/// The player's units: those whose chain of command includes one of his
/// officers, or the whole side when he has none listed.
fn is_his(state: &BattleState, unit: &Unit, officers: &BTreeSet<OfficerId>) -> bool {
    officers.is_empty()
        || state
            .chain_of_command(unit.id)
            .iter()
            .any(|o| officers.contains(&o.id))
}

/// A unit of the reader's side on the map: as `mark`, or, once out of the
/// battle, grey and crossed where it was last with its fate in the tooltip
/// ([`Mark::Gone`]).
fn own_mark(u: &Unit, fp: &Footprint, mark: Mark, opacity: f64) -> MapUnit {
    if is_gone(u) {
        let fate = unit_condition(u).join(", ");
        MapUnit::from_footprint(format!("{}: {fate}", u.name), fp, Mark::Gone, 1.0)
    } else {
        MapUnit::from_footprint(u.name.clone(), fp, mark, opacity)
    }
}

/// Out of the battle ([`Unit::out_of_battle`]).
fn is_gone(u: &Unit) -> bool {
    u.out_of_battle()
}

fn unit_condition(u: &Unit) -> Vec<String> {
    let mut c = Vec::new();
    if u.marks.combined_into.is_some() {
        return vec!["combined into another unit (VII.C)".to_string()];
    }
    if u.marks.left_field {
        return vec!["retreated off the table: out of the battle".to_string()];
    }
    if u.castings == 0 {
        // Nothing else about it matters any more.
        return vec!["destroyed: no castings left".to_string()];
    }
    if u.marks.command_lost.is_some() {
        c.push("regimental command lost (VII.G)".to_string());
    }
    if u.marks.pinned {
        c.push("pinned".to_string());
    }
    if u.broken {
        c.push("broken".to_string());
    }
    if u.retreating {
        c.push("retreating".to_string());
    }
    if u.lying_down {
        c.push("lying down".to_string());
    }
    if let Some(w) = u
        .marks
        .pontoon_work
        .as_ref()
        .filter(|w| w.task == crate::rules::iron_brigade::kinds::PontoonTask::Cross)
    {
        c.push(format!("afloat: crossing in {} (APSoF IV.E.2)", w.pontoons));
    }
    if u.entrenched {
        c.push("entrenched".to_string());
    }
    if u.arm == Arm::Cavalry {
        c.push(if u.mounted { "mounted" } else { "dismounted" }.to_string());
    }
    c
}

fn map_bounds(table: Option<(f64, f64)>, terrain: &Terrain, shown: &[Pos]) -> (Pos, Pos) {
    if let Some((w, h)) = table.filter(|(w, h)| *w > 0.0 && *h > 0.0) {
        return (Pos::new(0.0, 0.0), Pos::new(w, h));
    }
    let mut lo = Pos::new(f64::INFINITY, f64::INFINITY);
    let mut hi = Pos::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    let terrain_pts = terrain
        .areas
        .iter()
        .flat_map(|a| a.outline.iter())
        .chain(terrain.lines.iter().flat_map(|l| l.path.iter()))
        .chain(terrain.hills.iter().flat_map(|h| h.outline.iter()))
        .chain(terrain.landmarks.iter().map(|l| &l.position));
    for p in terrain_pts.chain(shown.iter()).filter(|p| p.is_finite()) {
        lo = Pos::new(lo.x.min(p.x), lo.y.min(p.y));
        hi = Pos::new(hi.x.max(p.x), hi.y.max(p.y));
    }
    if !lo.is_finite() || !hi.is_finite() {
        return (Pos::new(0.0, 0.0), Pos::new(48.0, 36.0));
    }
    (
        Pos::new(lo.x - 2.0, lo.y - 2.0),
        Pos::new(hi.x + 2.0, hi.y + 2.0),
    )
}

/// Opacity of a last-known position `age` turns old: fades by a sixth a
/// turn, never below 0.25 so it stays legible.
fn fade(age: u32) -> f64 {
    (1.0 - f64::from(age) / 6.0).max(0.25)
}

/// What `side`'s player may be shown (Adjutant issue #6; sight per APSoF
/// V.C.3 and VIII.F via `vis`).
///
/// Copies: his officers and units in full; other friendly units by name
/// and place; enemies in `vis` as a staff officer would describe them;
/// enemies in `last_known` but not seen now at their last known place.
/// Nothing else of the enemy is read: enemy officers are never shown, since
/// sight is reckoned for units only.
pub fn side_view(
    state: &BattleState,
    side: SideId,
    vis: &Visibility,
    last_known: &LastKnown,
    inputs: &ReportInputs,
) -> Result<SideView, ReportError> {
    if !state.sides.is_empty() && !state.sides.iter().any(|s| s.id == side) {
        return Err(ReportError::UnknownSide(side.0));
    }
    // A unit in pontoon boats is told and drawn on the water (APSoF
    // IV.E.2); who sees it was reckoned by the caller.
    let drawn = crate::rules::iron_brigade::pontoons::as_drawn(state);
    let state = drawn.as_ref();
    let ypi = if inputs.yards_per_inch > 0.0 {
        inputs.yards_per_inch
    } else {
        DEFAULT_YARDS_PER_INCH
    };
    let his_officers: BTreeSet<OfficerId> = inputs
        .officers
        .iter()
        .copied()
        .filter(|id| state.officer(*id).is_some_and(|o| o.side == side))
        .collect();
    let mut map_units = Vec::new();
    let mut map_officers = Vec::new();
    let mut shown_points = Vec::new();

    let mut units = Vec::new();
    let mut friends = Vec::new();
    for u in state.units_of(side) {
        let fp = footprint(u);
        // Destroyed, combined and off-table units are told as such in the
        // text and not drawn on the map as if still in the line.
        let out = is_gone(u);
        if !out {
            shown_points.push(u.position);
        }
        if is_his(state, u, &his_officers) {
            let orders = inputs.orders.get(&u.id).cloned().unwrap_or_default();
            units.push(OwnUnit {
                name: u.name.clone(),
                arm: unit_arm_words(u),
                formation: formation_words(u.formation),
                facing: facing_point(u.facing).to_string(),
                facing_deg: u.facing.rem_euclid(360.0).round() as u32 % 360,
                coords: coords(u.position),
                place: place_of(u.position, state, ypi),
                castings: u.castings,
                men: u.castings.saturating_mul(MEN_PER_CASTING),
                guns: guns_served(u),
                combat_morale: u.combat_morale,
                base_morale: u.base_morale,
                condition: unit_condition(u),
                out_of_battle: out,
                active_order: orders.active,
                pending: orders.pending,
            });
            map_units.push(own_mark(u, &fp, Mark::Own, 1.0));
        } else {
            friends.push(FriendUnit {
                name: u.name.clone(),
                arm: unit_arm_words(u),
                formation: formation_words(u.formation),
                place: place_of(u.position, state, ypi),
                coords: coords(u.position),
                gone: out.then(|| unit_condition(u).join(", ")),
            });
            map_units.push(own_mark(u, &fp, Mark::Friend, 0.8));
        }
    }

    let mut officers = Vec::new();
    for o in state.officers_of(side) {
        if !his_officers.is_empty() && !his_officers.contains(&o.id) {
            continue;
        }
        let status = match o.status {
            OfficerStatus::Active => "in the field",
            OfficerStatus::Wounded => "wounded",
            OfficerStatus::Killed => "killed",
        };
        officers.push(OwnOfficer {
            name: o.name.clone(),
            status: status.to_string(),
            place: place_of(o.position, state, ypi),
            coords: coords(o.position),
        });
        if o.status == OfficerStatus::Active {
            shown_points.push(o.position);
            map_officers.push(MapOfficer {
                label: o.name.clone(),
                at: o.position,
                mark: Mark::Own,
            });
        }
    }

    // Enemies seen now, ordered by place (not by id, which would hint at
    // the order of the enemy's lists).
    let mut seen: Vec<(&Unit, u32)> = vis
        .seen
        .iter()
        .filter_map(|(id, by)| {
            let u = state.unit(*id)?;
            let yards = (by.distance * ypi).max(0.0);
            let yards = ((yards / 25.0).round() * 25.0).min(1.0e6) as u32;
            (u.side != side).then_some((u, yards))
        })
        .collect();
    seen.sort_by(|(a, _), (b, _)| {
        (a.position.x, a.position.y)
            .partial_cmp(&(b.position.x, b.position.y))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let seen_ids: BTreeSet<UnitId> = seen.iter().map(|(u, _)| u.id).collect();
    // Every enemy shown has the side's designation; one not yet given
    // (a caller that kept none) gets the next letter here, by the policy's
    // own rule.
    let mut names = inputs.enemy_names.clone();
    names.record_seen(state, side, state.turn, seen_ids.iter().copied());
    for id in last_known.units.keys() {
        if !names.units.contains_key(id) {
            names.record_seen(state, side, state.turn, [*id]);
        }
    }
    let mark_of = |id: UnitId| names.designation(id).unwrap_or("?").to_string();
    let describe = |enemy_side: SideId, arm: Arm, id: UnitId, name: &str| {
        if names.known() {
            name.to_string()
        } else {
            let heavy = state.unit(id).is_some_and(|u| u.heavy_equipment);
            enemy_description(&side_name(state, enemy_side), arm, heavy)
        }
    };
    let mut enemies_seen = Vec::new();
    for (u, yards) in &seen {
        let mark = mark_of(u.id);
        shown_points.push(u.position);
        map_units.push(MapUnit::from_footprint(
            mark.clone(),
            &footprint(u),
            Mark::Enemy,
            1.0,
        ));
        enemies_seen.push(EnemyUnit {
            mark,
            description: describe(u.side, u.arm, u.id, &u.name),
            about_men: about_men(u.castings),
            formation: if crate::rules::iron_brigade::pontoons::afloat_at(state, u).is_some() {
                format!("afloat in boats, {}", formation_phrase(u.formation))
            } else {
                formation_phrase(u.formation)
            },
            facing: facing_point(u.facing).to_string(),
            place: place_of(u.position, state, ypi),
            coords: coords(u.position),
            yards_away: Some(*yards),
            seen_turn: None,
            turns_ago: None,
            ago: String::new(),
        });
    }

    // Enemies seen before but not now: only the remembered record is read,
    // never the unit's present state (its name, for known identities, is
    // the one thing taken from the state).
    let mut remembered: Vec<_> = last_known
        .units
        .iter()
        .filter(|(id, ls)| {
            !seen_ids.contains(id)
                && ls.side != side
                && ls.turn <= state.turn
                && !last_known.is_ended(**id)
        })
        .collect();
    remembered.sort_by(|(_, a), (_, b)| {
        b.turn.cmp(&a.turn).then(
            (a.position.x, a.position.y)
                .partial_cmp(&(b.position.x, b.position.y))
                .unwrap_or(std::cmp::Ordering::Equal),
        )
    });
    let mut enemies_last_known = Vec::new();
    for (id, ls) in remembered {
        let mark = mark_of(*id);
        let age = state.turn.saturating_sub(ls.turn);
        let name = state.unit(*id).map(|u| u.name.clone()).unwrap_or_default();
        let fp = Footprint {
            centre: ls.position,
            facing: ls.facing,
            frontage: ls.frontage,
            depth: ls.depth,
        };
        shown_points.push(ls.position);
        map_units.push(MapUnit::from_footprint(
            match age {
                0 => format!("{mark} (seen this turn)"),
                1 => format!("{mark} (1 turn ago)"),
                n => format!("{mark} ({n} turns ago)"),
            },
            &fp,
            Mark::LastKnown,
            fade(age),
        ));
        enemies_last_known.push(EnemyUnit {
            mark,
            description: describe(ls.side, ls.arm, *id, &name),
            about_men: ls.about_men,
            formation: formation_phrase(ls.formation),
            facing: facing_point(ls.facing).to_string(),
            place: place_of(ls.position, state, ypi),
            coords: coords(ls.position),
            yards_away: None,
            seen_turn: Some(ls.turn),
            turns_ago: Some(age),
            ago: match age {
                0 => "this turn".to_string(),
                1 => "1 turn ago".to_string(),
                n => format!("{n} turns ago"),
            },
        });
    }

    // Riders in sight (own and enemy), nearest-first observers already
    // chosen by the sight rules; enemies are never named.
    let mut riders = Vec::new();
    for (mid, by) in &vis.messengers {
        let Some(m) = state.sfrm.messengers.get(mid) else {
            continue;
        };
        let ours = m.side == side;
        let yards = ((by.distance * ypi / 25.0).round() * 25.0).clamp(0.0, 1.0e6) as u32;
        let who = if ours {
            "A rider of ours".to_string()
        } else {
            format!("A {} rider", side_name(state, m.side))
        };
        riders.push(format!(
            "{who}, {} ({}), {yards} yards from our nearest men.",
            place_of(m.position, state, ypi),
            coords(m.position)
        ));
        shown_points.push(m.position);
        map_officers.push(MapOfficer {
            label: "rider".to_string(),
            at: m.position,
            mark: if ours { Mark::Own } else { Mark::Enemy },
        });
    }
    // His side's pontoon boats (APSoF IV.E.2): his own equipment, where
    // it lies; the enemy's are not listed.
    let boats: Vec<String> = state
        .terrain
        .pontoons
        .iter()
        .filter(|p| p.side == side)
        .map(|p| {
            let carry = p
                .boats
                .saturating_mul(crate::rules::iron_brigade::pontoons::CASTINGS_PER_BOAT);
            format!(
                "{}: {} boat{} {}, {} ({}); {carry} castings a trip.",
                p.name,
                p.boats,
                if p.boats == 1 { "" } else { "s" },
                match (p.afloat, crate::rules::iron_brigade::pontoons::carrying_train(state, p)) {
                    (true, _) => "on the water".to_string(),
                    (false, Some(t)) => format!(
                        "on the wagons of {} (move them to the bank of {}, then unload the pontoons: four turns)",
                        t.name, p.stream
                    ),
                    (false, None) => "on their wagons (unload the pontoons: four turns)".into(),
                },
                place_of(p.position, state, ypi),
                coords(p.position)
            )
        })
        .collect();
    for p in state.terrain.pontoons.iter().filter(|p| p.side == side) {
        shown_points.push(p.position);
        map_officers.push(MapOfficer {
            label: super::map::BOATS_LABEL.to_string(),
            at: p.position,
            mark: Mark::Own,
        });
    }
    let side_label = side_name(state, side);
    let clock = battle_clock(inputs.battle_start, inputs.minutes_per_turn, state.turn);
    let (min, max) = map_bounds(inputs.table, &state.terrain, &shown_points);
    let map = MapLayer {
        title: format!(
            "{} — {} — {}, {}",
            inputs.game,
            side_label,
            turn_words(state.turn, inputs.briefing.is_some()),
            clock
        ),
        min,
        max,
        yards_per_inch: ypi,
        terrain: {
            // Paths through abatis and filled ditches (APSoF VIII.D, VIII.E)
            // are on his map when his side made them: the enemy's are
            // not his to know (fog of war; docs/rulings.md).
            let mut t = state.terrain.clone();
            t.cleared.retain(|c| c.side == side);
            t
        },
        units: map_units,
        officers: map_officers,
        legend: vec![
            (Mark::Own, "your units".to_string()),
            (Mark::Friend, "other commands".to_string()),
            (Mark::Enemy, "enemy in sight".to_string()),
            (Mark::LastKnown, "enemy last seen (turns ago)".to_string()),
            (Mark::Gone, "ours out of the battle".to_string()),
        ],
    };
    let order_template = order_template(state, side, &his_officers, &units);
    Ok(SideView {
        game: inputs.game.clone(),
        player: inputs.player.clone(),
        side: side_label,
        turn: state.turn,
        results_of: state.turn.saturating_sub(1),
        briefing: inputs.briefing.clone(),
        place_names: inputs.place_names.clone(),
        clock,
        deadline: inputs.deadline.clone(),
        reply_to: inputs.reply_to.clone(),
        officers,
        units,
        friends,
        enemies_seen,
        enemies_last_known,
        narrative: inputs.narrative.clone(),
        dispatches: inputs.dispatches.clone(),
        riders,
        boats,
        refused_mail: inputs.refused_mail.clone(),
        order_template,
        ending: None,
        map,
    })
}

/// The orders block to edit and send back: "From <officer>:" and one line
/// per unit with its active order, or "hold" when it has none (design.md,
/// written orders).
fn order_template(
    state: &BattleState,
    side: SideId,
    his_officers: &BTreeSet<OfficerId>,
    units: &[OwnUnit],
) -> String {
    let mut out = String::new();
    let from: Vec<&str> = state
        .officers_of(side)
        .filter(|o| his_officers.is_empty() || his_officers.contains(&o.id))
        .filter(|o| o.status == OfficerStatus::Active)
        .map(|o| o.name.as_str())
        .collect();
    if let Some(first) = from.first() {
        out.push_str(&format!("From {first}:\n"));
    }
    for u in units.iter().filter(|u| !u.out_of_battle) {
        // An order in force is the paragraph as the player wrote it, head
        // and all ("10th Ohio: advance ..."), so it goes in as it stands:
        // prefixing the name again made "10th Ohio: 10th Ohio: ...", which
        // the parser refuses when the block is sent back.
        match u.active_order.as_deref() {
            Some(written) if has_head(written) => {
                out.push_str(written);
                out.push('\n');
            }
            Some(other) => out.push_str(&format!("{}: {other}\n", u.name)),
            None => out.push_str(&format!("{}: hold\n", u.name)),
        }
    }
    out
}

/// Whether an order's text opens with a head ("...:" before the first
/// full stop): the parser read the paragraph as an order to this unit, so
/// its head names it. Text without one (a stand-in such as "order #5") is
/// given the unit's name.
fn has_head(text: &str) -> bool {
    let first = text.split(['.', ';']).next().unwrap_or("");
    first.contains(':')
}

/// Everything the umpire's report needs besides the state.
#[derive(Debug, Clone, PartialEq)]
pub struct UmpireInputs {
    pub game: String,
    pub battle_start: PrimitiveDateTime,
    pub minutes_per_turn: f64,
    pub yards_per_inch: f64,
    pub table: Option<(f64, f64)>,
    /// Every unit's orders.
    pub orders: BTreeMap<UnitId, UnitOrders>,
    /// Every event line of the turn, unfiltered.
    pub events: Vec<String>,
    /// Every die rolled this turn, in draw order.
    pub rolls: Vec<Roll>,
    /// What each side saw: side id → ids of enemy units seen.
    pub sightings: Vec<super::sighting::SideSighting>,
    /// Every SFRM dispatch's route and fate so far, in words (the store's
    /// `dispatches` rows); riders on the table come from the state.
    pub dispatches: Vec<String>,
    /// Mail that cannot reach a player: addresses that bounce and messages
    /// refused for good (5xx), in words (APSoF has nothing to say; issue
    /// #4: "surfaced to the umpire").
    pub mail_problems: Vec<String>,
    /// Free-text orders still waiting for INTERPRET or REJECT, in words:
    /// they were not part of this turn (issue #17).
    pub open_queries: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UmpireUnit {
    pub id: u32,
    pub name: String,
    pub side: String,
    pub arm: String,
    pub formation: String,
    pub facing_deg: u32,
    pub coords: String,
    pub place: String,
    pub castings: u32,
    pub combat_morale: u8,
    pub base_morale: u8,
    pub condition: Vec<String>,
    pub active_order: Option<String>,
    pub pending: Vec<PendingOrder>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UmpireRoll {
    pub draw: u64,
    pub value: u8,
    pub kind: String,
    pub subject: String,
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UmpireSight {
    pub side: String,
    /// "Grey Regiment (from Blue Regiment, 300 yards)".
    pub seen: Vec<String>,
}

/// The umpire sees everything.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UmpireView {
    pub game: String,
    pub turn: u32,
    pub clock: String,
    pub units: Vec<UmpireUnit>,
    pub officers: Vec<OwnOfficer>,
    pub events: Vec<String>,
    pub rolls: Vec<UmpireRoll>,
    pub sightings: Vec<UmpireSight>,
    /// Every dispatch's route and fate (from [`UmpireInputs::dispatches`]).
    pub dispatches: Vec<String>,
    /// From [`UmpireInputs::mail_problems`].
    pub mail_problems: Vec<String>,
    /// From [`UmpireInputs::open_queries`].
    pub open_queries: Vec<String>,
    /// Every messenger on the table: side, place, whom he rides for, what
    /// he carries.
    pub riders: Vec<String>,
    /// `Some` in the report of the scenario's last turn: the battle is over.
    pub ending: Option<EndOfBattle>,
    pub map: MapLayer,
}

/// The umpire's view: the true state, every order, event and die.
pub fn umpire_view(state: &BattleState, inputs: &UmpireInputs) -> UmpireView {
    let drawn = crate::rules::iron_brigade::pontoons::as_drawn(state);
    let state = drawn.as_ref();
    let ypi = if inputs.yards_per_inch > 0.0 {
        inputs.yards_per_inch
    } else {
        DEFAULT_YARDS_PER_INCH
    };
    let clock = battle_clock(inputs.battle_start, inputs.minutes_per_turn, state.turn);
    let units: Vec<UmpireUnit> = state
        .units
        .iter()
        .map(|u| {
            let orders = inputs.orders.get(&u.id).cloned().unwrap_or_default();
            UmpireUnit {
                id: u.id.0,
                name: u.name.clone(),
                side: side_name(state, u.side),
                arm: unit_arm_words(u),
                formation: formation_words(u.formation),
                facing_deg: u.facing.rem_euclid(360.0).round() as u32 % 360,
                coords: coords(u.position),
                place: place_of(u.position, state, ypi),
                castings: u.castings,
                combat_morale: u.combat_morale,
                base_morale: u.base_morale,
                condition: unit_condition(u),
                active_order: orders.active,
                pending: orders.pending,
            }
        })
        .collect();
    let officers = state
        .officers
        .iter()
        .map(|o| OwnOfficer {
            name: format!("{} ({})", o.name, side_name(state, o.side)),
            status: format!("{:?}", o.status).to_lowercase(),
            place: place_of(o.position, state, ypi),
            coords: coords(o.position),
        })
        .collect();
    let rolls = inputs
        .rolls
        .iter()
        .map(|r| UmpireRoll {
            draw: r.draw,
            value: r.value,
            kind: r.purpose.kind.as_str().to_string(),
            subject: r.purpose.subject.clone(),
            note: r.purpose.note.clone(),
        })
        .collect();
    let unit_name = |id: UnitId| {
        state
            .unit(id)
            .map(|u| u.name.clone())
            .unwrap_or_else(|| format!("unit {}", id.0))
    };
    let sightings = inputs
        .sightings
        .iter()
        .map(|s| UmpireSight {
            side: side_name(state, s.side),
            seen: s
                .seen
                .iter()
                .map(|x| {
                    let by = match x.observer {
                        crate::rules::iron_brigade::sight::Observer::Unit(id) => unit_name(id),
                        crate::rules::iron_brigade::sight::Observer::Officer(id) => state
                            .officer(id)
                            .map(|o| o.name.clone())
                            .unwrap_or_else(|| format!("officer {}", id.0)),
                    };
                    format!(
                        "{} (by {}, {:.0} yards)",
                        unit_name(x.unit),
                        by,
                        x.distance * ypi
                    )
                })
                .collect(),
        })
        .collect();
    let side_index = |s: SideId| {
        state
            .sides
            .iter()
            .position(|x| x.id == s)
            .and_then(|i| u8::try_from(i).ok())
            .unwrap_or(s.0)
    };
    let map_units = state
        .units
        .iter()
        .map(|u| own_mark(u, &footprint(u), Mark::Side(side_index(u.side)), 1.0))
        .collect();
    let map_officers = state
        .officers
        .iter()
        .filter(|o| o.status == OfficerStatus::Active)
        .map(|o| MapOfficer {
            label: o.name.clone(),
            at: o.position,
            mark: Mark::Side(side_index(o.side)),
        })
        .collect();
    let shown: Vec<Pos> = state
        .units
        .iter()
        .map(|u| u.position)
        .chain(state.officers.iter().map(|o| o.position))
        .collect();
    let (min, max) = map_bounds(inputs.table, &state.terrain, &shown);
    let mut map_officers: Vec<MapOfficer> = map_officers;
    let mut riders = Vec::new();
    for m in state.sfrm.messengers.values() {
        let to = match m.destination {
            crate::rules::sfrm::Destination::Officer(o) => state
                .officer(o)
                .map_or_else(|| format!("officer {}", o.0), |o| o.name.clone()),
            crate::rules::sfrm::Destination::Unit(u) => state
                .unit(u)
                .map_or_else(|| format!("unit {}", u.0), |u| u.name.clone()),
        };
        let carrying = m
            .carrying
            .iter()
            .map(|d| format!("#{}", d.0))
            .collect::<Vec<_>>()
            .join(", ");
        riders.push(format!(
            "Messenger {} ({}) at {} ({}), riding for {to}, sent turn {}, carrying dispatches [{carrying}]{}.",
            m.id.0,
            side_name(state, m.side),
            place_of(m.position, state, ypi),
            coords(m.position),
            m.sent_turn,
            m.order.map(|o| format!(" and order #{o}")).unwrap_or_default()
        ));
        map_officers.push(MapOfficer {
            label: format!("rider {}", m.id.0),
            at: m.position,
            mark: Mark::Side(side_index(m.side)),
        });
    }
    UmpireView {
        game: inputs.game.clone(),
        turn: state.turn,
        clock: clock.clone(),
        units,
        officers,
        events: inputs.events.clone(),
        rolls,
        sightings,
        dispatches: inputs.dispatches.clone(),
        mail_problems: inputs.mail_problems.clone(),
        open_queries: inputs.open_queries.clone(),
        riders,
        ending: None,
        map: MapLayer {
            title: format!(
                "{} — umpire — {}, {}",
                inputs.game,
                turn_words(state.turn, false),
                clock
            ),
            min,
            max,
            yards_per_inch: ypi,
            terrain: state.terrain.clone(),
            units: map_units,
            officers: map_officers,
            legend: state
                .sides
                .iter()
                .map(|x| (Mark::Side(side_index(x.id)), x.name.clone()))
                .chain(std::iter::once((
                    Mark::Gone,
                    "out of the battle".to_string(),
                )))
                .collect(),
        },
    }
}

/// Guns a battery still serves: one per crew casting (APSoF II.E.1: "each
/// time a loss is taken from that battery, it is reduced in strength by one
/// gun"), none once its guns are lost in contact (VI.C.4: the crew then
/// fight with pistols).
fn guns_served(u: &Unit) -> u32 {
    if u.arm.is_artillery() && u.weapon.is_artillery() {
        u.castings
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn ii_e_guns_go_with_their_crew_and_with_a_lost_battery() {
        use crate::rules::iron_brigade::kinds::{Formation, Weapon};
        use crate::rules::iron_brigade::state::Pos;
        let mut b = Unit::infantry(4, "Battery A", 0, 4, Pos::new(0.0, 0.0), 0.0);
        b.arm = Arm::Artillery;
        b.weapon = Weapon::TwelvePdrGun;
        b.formation = Formation::Unlimbered;
        b.guns = 4;
        assert_eq!(guns_served(&b), 4);
        b.castings = 2;
        assert_eq!(guns_served(&b), 2, "two crew lost, two guns lost (II.E.1)");
        b.guns = 0;
        b.weapon = Weapon::PistolsOrShotguns;
        assert_eq!(guns_served(&b), 0, "guns lost in contact (VI.C.4)");
        let r = Unit::infantry(1, "2nd Wisconsin", 0, 20, Pos::new(0.0, 0.0), 0.0);
        assert_eq!(guns_served(&r), 0);
    }

    #[test]
    fn clock_advances_by_minutes_per_turn() {
        let start = datetime!(1862-08-28 18:30);
        assert_eq!(battle_clock(start, 2.5, 1), "6:30 p.m., 28 August 1862");
        assert_eq!(battle_clock(start, 2.5, 3), "6:35 p.m., 28 August 1862");
        assert_eq!(battle_clock(start, 2.5, 2), "6:32:30 p.m., 28 August 1862");
    }

    #[test]
    fn enemy_descriptions_read_naturally() {
        assert_eq!(
            enemy_description("Confederate", Arm::Infantry, false),
            "a Confederate infantry regiment"
        );
        assert_eq!(
            enemy_description("Union", Arm::Artillery, false),
            "a Union battery"
        );
        assert_eq!(
            enemy_description("Army of Virginia", Arm::Cavalry, false),
            "an Army of Virginia cavalry regiment"
        );
        // IV.E.2, IV.G: wagons are seen as wagons, whatever arm lists them.
        assert_eq!(
            enemy_description("Union", Arm::Infantry, true),
            "a Union wagon train"
        );
    }

    /// Issue #14: a destroyed unit is told as such to its own player and to
    /// the other commands of his side, drawn grey and crossed (never as a
    /// live unit), and left out of the order form.
    #[test]
    fn gone_units_are_shown_as_such_not_as_live() {
        use crate::rules::iron_brigade::state::{Officer, Side};
        let mut gone = Unit::infantry(2, "6th Wisconsin", 0, 20, Pos::new(10.0, 0.0), 0.0);
        gone.castings = 0;
        let mut left = Unit::infantry(3, "56th Pennsylvania", 0, 20, Pos::new(0.0, 1.0), 0.0);
        left.marks.left_field = true;
        left.commander = Some(OfficerId(2));
        gone.commander = Some(OfficerId(1));
        let mut live = Unit::infantry(1, "2nd Wisconsin", 0, 20, Pos::new(20.0, 0.0), 0.0);
        live.commander = Some(OfficerId(1));
        let gibbon = Officer::brigadier(1, "Gibbon", 0, Pos::new(15.0, -3.0));
        let hatch = Officer::brigadier(2, "Hatch", 0, Pos::new(0.0, -3.0));
        let state = BattleState {
            sides: vec![Side {
                id: SideId(0),
                name: "Union".into(),
            }],
            units: vec![live, gone, left],
            officers: vec![gibbon, hatch],
            ..BattleState::default()
        };
        let mut inputs = ReportInputs::new("g", "Gibbon", datetime!(1862-08-28 18:30));
        inputs.officers = vec![OfficerId(1)];
        let v = side_view(
            &state,
            SideId(0),
            &Visibility::default(),
            &LastKnown::default(),
            &inputs,
        )
        .unwrap();
        let own = v.units.iter().find(|u| u.name == "6th Wisconsin").unwrap();
        assert!(own.out_of_battle);
        assert_eq!(own.condition, vec!["destroyed: no castings left"]);
        assert!(v.order_template.contains("2nd Wisconsin: hold"));
        assert!(!v.order_template.contains("6th Wisconsin"));
        let friend = v
            .friends
            .iter()
            .find(|f| f.name == "56th Pennsylvania")
            .unwrap();
        assert_eq!(
            friend.gone.as_deref(),
            Some("retreated off the table: out of the battle")
        );
        for name in ["6th Wisconsin", "56th Pennsylvania"] {
            let m = v
                .map
                .units
                .iter()
                .find(|m| m.label.starts_with(name))
                .unwrap();
            assert_eq!(m.mark, Mark::Gone, "{name}");
        }
        let m = v
            .map
            .units
            .iter()
            .find(|m| m.label == "2nd Wisconsin")
            .unwrap();
        assert_eq!(m.mark, Mark::Own);
    }

    #[test]
    fn condition_says_destroyed_pinned_and_command_lost() {
        use crate::rules::iron_brigade::state::Pos;
        let mut u = Unit::infantry(1, "2nd Wisconsin", 0, 20, Pos::new(0.0, 0.0), 0.0);
        assert!(unit_condition(&u).is_empty());
        u.marks.pinned = true;
        u.marks.command_lost = Some(5);
        assert_eq!(
            unit_condition(&u),
            vec!["regimental command lost (VII.G)", "pinned"]
        );
        u.castings = 0;
        assert_eq!(unit_condition(&u), vec!["destroyed: no castings left"]);
    }
}
