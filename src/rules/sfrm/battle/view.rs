//! What a side sees of an SFRM brigade-scale battle after a turn, and what
//! it may be told of the turn's events (pure: state and events in, a view
//! out; nothing here rolls or writes).
//!
//! - Its own units and generals fully: place, facing, formation, elements,
//!   quality, routed, out of command and of supply, entrenchment, fatigue.
//! - Enemy units only where SFRM sight reaches them ("Firing Arc & Target
//!   Availability": "Sight range is 2 miles (36"), half though cover, half
//!   through bad weather, half at night, and a maximum of 2" into cover";
//!   "Firing From Higher Elevation": "targets may be obscured from sight
//!   due to terrain elevation"), from any of its units or generals still in
//!   play, or in contact with one of its units. Of a seen enemy it learns
//!   what the eye tells: kind, formation, place, facing, routed, dug in;
//!   never its elements, quality, fatigue or supply (its strengths).
//! - Of the turn's events: everything about its own units and generals,
//!   with its own dice and working; of the enemy only what its men met (an
//!   enemy that fired on, charged or was charged by one of its units, or is
//!   seen now), never the enemy's dice, command rolls, working, strengths
//!   or army morale.
//!
//! [`umpire_view`] shows everything. Rulings: docs/rulings-sfrm.md,
//! "Brigade scale: what a side sees".

use super::nouns::{Arm, Formation, GeneralId, Ground, Pos, SfrmBattle, Side, Unit, UnitId};
use super::orders::{SfrmEvent, render_refs};
use super::tables::{Light, light, weather_sight};
use super::turn::{SIGHT_INCHES, SIGHT_INTO_COVER};
use std::collections::{BTreeMap, BTreeSet};

const S_SIGHT: &str = "SFRM Firing Arc & Target Availability";

/// How a side calls the enemy: by their real names when the game's
/// identity policy makes them known, else by the designation its staff
/// gave each when first seen (kept by the caller across turns), else by
/// its kind alone ("an enemy infantry brigade").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnemyNaming {
    pub known: bool,
    pub designations: BTreeMap<UnitId, String>,
}

impl EnemyNaming {
    /// Real names (the identity policy's "known").
    pub fn known() -> EnemyNaming {
        EnemyNaming {
            known: true,
            designations: BTreeMap::new(),
        }
    }

    /// What a side calls enemy unit `u` it has seen.
    pub fn call(&self, u: &Unit) -> String {
        if self.known {
            return u.name.clone();
        }
        match self.designations.get(&u.id) {
            Some(d) => format!("enemy {} {d}", kind_noun(u.arm)),
            None => format!("an enemy {}", kind_noun(u.arm)),
        }
    }
}

/// What kind of unit, as a staff officer says it.
pub fn kind_noun(arm: Arm) -> &'static str {
    match arm {
        Arm::Infantry { .. } => "infantry brigade",
        Arm::Cavalry { .. } => "cavalry brigade",
        Arm::Artillery { .. } => "artillery battalion",
        Arm::Supply => "supply train",
    }
}

/// Sight range in inches for the turn's weather and light: 36", half in
/// rain, a quarter in snow (Table 8), half again at night ("Firing Arc &
/// Target Availability"). Dawn and dusk count as day (our ruling: the text
/// halves only "at night").
pub fn sight_range(b: &SfrmBattle) -> f64 {
    let (n, d) = weather_sight(b.weather);
    let mut s = SIGHT_INCHES * f64::from(n) / f64::from(d);
    // The light of the last turn played (the one the view is after).
    let minute = b.minute_of_turn(b.turn.max(1));
    if light(minute, b.season) == Light::Night {
        s /= 2.0;
    }
    s
}

/// Whether an eye at `from` sees a point `to` (SFRM "Firing Arc & Target
/// Availability" and "Firing From Higher Elevation"): within sight range,
/// halved if the line crosses cover (woods, town, sunken road) the eye is
/// not standing in and blocked if more than 2" of such cover lies along
/// it; and, between different levels, only when the lower is at least
/// twice as far from the upper as the upper's hill edge along the line.
/// Firing arcs do not limit seeing (a brigade's officers look every way:
/// our ruling), nor do friendly troops in the way.
pub fn sees(b: &SfrmBattle, from: Pos, to: Pos) -> bool {
    sees_within(b, sight_range(b), from, to)
}

/// [`sees`] with the turn's sight range already worked out.
fn sees_within(b: &SfrmBattle, full_sight: f64, from: Pos, to: Pos) -> bool {
    // Farther than sight along either axis is farther in a straight line.
    if (to.x - from.x).abs() > full_sight + 1e-9 || (to.y - from.y).abs() > full_sight + 1e-9 {
        return false;
    }
    let range = from.distance(to);
    let mut sight = full_sight;
    let cover: f64 = b
        .ground
        .iter()
        .filter(|a| a.ground.cover() && !a.contains(from))
        .map(|a| a.length_inside(from, to))
        .sum();
    if cover > 0.0 {
        if cover > SIGHT_INTO_COVER + 1e-9 {
            return false;
        }
        sight /= 2.0;
    }
    if range > sight + 1e-9 {
        return false;
    }
    let (ef, et) = (b.elevation(from), b.elevation(to));
    if ef != et {
        let (upper, lower, level) = if ef > et {
            (from, to, ef)
        } else {
            (to, from, et)
        };
        let edge = b
            .ground
            .iter()
            .filter(|a| a.ground == Ground::Hill { level } && a.contains(upper))
            .filter_map(|a| a.clip(upper, lower).map(|(_, t1)| t1 * range))
            .fold(0.0, f64::max);
        if range < 2.0 * edge - 1e-9 {
            return false;
        }
    }
    true
}

/// The eyes of `side`: the points of its units and generals in play.
fn eyes(b: &SfrmBattle, side: Side) -> Vec<Pos> {
    b.units_of(side)
        .map(|u| u.pos)
        .chain(b.generals_of(side).map(|g| g.pos))
        .collect()
}

/// Enemy units (in play) that `side` sees now: in sight of one of its
/// units or generals, or in contact with one of its units.
pub fn seen_enemy_units(b: &SfrmBattle, side: Side) -> BTreeSet<UnitId> {
    let eyes = eyes(b, side);
    let sight = sight_range(b);
    b.units_of(side.other())
        .filter(|e| {
            eyes.iter().any(|p| sees_within(b, sight, *p, e.pos))
                || b.in_contact(e.id)
                    .iter()
                    .any(|o| b.unit(*o).is_some_and(|o| o.side == side))
        })
        .map(|e| e.id)
        .collect()
}

/// Enemy generals (in play) that `side` sees now: attached to a seen
/// enemy unit, or in sight themselves.
pub fn seen_enemy_generals(b: &SfrmBattle, side: Side) -> BTreeSet<GeneralId> {
    seen_generals_given(b, side, &seen_enemy_units(b, side))
}

/// [`seen_enemy_generals`] with the seen enemy units already known.
fn seen_generals_given(
    b: &SfrmBattle,
    side: Side,
    units: &BTreeSet<UnitId>,
) -> BTreeSet<GeneralId> {
    let eyes = eyes(b, side);
    let sight = sight_range(b);
    b.generals_of(side.other())
        .filter(|g| {
            g.attached_to.is_some_and(|u| units.contains(&u))
                || eyes.iter().any(|p| sees_within(b, sight, *p, g.pos))
        })
        .map(|g| g.id)
        .collect()
}

/// One of the side's own units as its report shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnUnit {
    pub unit: Unit,
    /// The general attached to it, by name.
    pub general: Option<String>,
}

/// An enemy unit as seen: what the eye tells, no strengths.
#[derive(Debug, Clone, PartialEq)]
pub struct EnemySighting {
    pub id: UnitId,
    /// What the side calls it ([`EnemyNaming`]).
    pub called: String,
    pub kind: &'static str,
    pub formation: Formation,
    pub pos: Pos,
    pub facing: f64,
    pub routed: bool,
    /// Seen to be dug in (entrenchments are on the table).
    pub entrenched: bool,
}

/// An enemy general seen.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneralSighting {
    pub id: GeneralId,
    /// His name under known identities, else "an enemy general".
    pub called: String,
    pub pos: Pos,
    /// The seen unit he rides with, as the side calls it.
    pub with: Option<String>,
}

/// One event as a side may know it: `event` is the whole event only when
/// nothing in it is the enemy's to keep; `text` is always what the side is
/// told (with its own dice and working).
#[derive(Debug, Clone, PartialEq)]
pub struct SeenEvent {
    pub event: Option<SfrmEvent>,
    pub text: String,
}

/// What one side sees after a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct SideView {
    pub side: Side,
    /// The turn just played.
    pub turn: u32,
    pub own_units: Vec<OwnUnit>,
    /// Own generals in play.
    pub own_generals: Vec<super::nouns::General>,
    pub enemy_units: Vec<EnemySighting>,
    pub enemy_generals: Vec<GeneralSighting>,
    pub events: Vec<SeenEvent>,
    /// The turn in plain text for a report.
    pub narrative: String,
}

/// Everything, for the umpire.
#[derive(Debug, Clone, PartialEq)]
pub struct UmpireView {
    pub battle: SfrmBattle,
    pub events: Vec<SfrmEvent>,
    pub narrative: String,
}

/// "1 element", "3 elements", with a word after ("2 elements lost").
fn elements_word(n: u32, after: &str) -> String {
    let noun = if n == 1 { "element" } else { "elements" };
    if after.is_empty() {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun} {after}")
    }
}

/// Clock time "h:mm" of a minute after midnight.
fn clock(minute: u32) -> String {
    let m = minute % (24 * 60);
    format!("{}:{:02}", m / 60, m % 60)
}

/// A point as "(x, y)" to a tenth of an inch; a tiny negative (from a
/// bearing's sine or cosine) never shows as "-0.0".
pub fn xy(p: Pos) -> String {
    let r = |v: f64| (v * 10.0).round() / 10.0 + 0.0;
    format!("({:.1}, {:.1})", r(p.x), r(p.y))
}

fn at(p: Pos) -> String {
    xy(p)
}

/// SFRM Table 3's result in words.
fn casualty_words(c: &crate::rules::sfrm::table3::OfficerCasualty) -> &'static str {
    use crate::rules::sfrm::table3::CasualtyResult::*;
    match c.result {
        ShotThroughChest => "shot through the chest, mortally wounded",
        LosesLeg => "hit in the knee and carried off",
        ThighWound => {
            "wounded in the thigh, stays in command (-1 command ability and combat value)"
        }
        HorseShot => "his horse shot under him (-1 command range)",
        StaffOfficerHit => "a staff officer beside him hit; no effect",
        ShotsScatter => "shots scatter about him; no effect",
        PrivateHit => "a private beside him hit; no effect",
        ArmWound => "hit in the arm (-1 combat value)",
        ScalpWound => "a scalp wound, stays in command (-1 command range and ability)",
        LosesArm => "hit in the shoulder and carried off",
        Killed => "killed outright",
    }
}

/// SFRM Table 5's result in words.
fn green_words(r: &super::tables::GreenResult) -> String {
    match r {
        super::tables::GreenResult::Becomes { quality } => format!("becomes {}", quality.name()),
        super::tables::GreenResult::RoutAndRemainGreen => {
            "does not fire, routs and remains green".into()
        }
    }
}

/// Words for every unit and general: own and known enemy by their names,
/// unknown enemy never (the caller filters those events out first).
struct Names<'a> {
    b: &'a SfrmBattle,
    /// `None`: the umpire (real names for all).
    side: Option<Side>,
    naming: &'a EnemyNaming,
    /// Enemy generals the side sees (named only these, and only under
    /// known identities).
    seen_generals: BTreeSet<GeneralId>,
    /// Enemy units the side met this turn or sees now: only these are
    /// called anything but "the enemy" (empty for the umpire).
    known_units: BTreeSet<UnitId>,
}

impl Names<'_> {
    fn unit(&self, id: UnitId) -> String {
        match self.b.unit(id) {
            Some(u) if self.side.is_none_or(|s| s == u.side) => u.name.clone(),
            Some(u) if self.known_units.contains(&u.id) => self.naming.call(u),
            Some(_) => "the enemy".into(),
            None => format!("unit {}", id.0),
        }
    }

    fn general(&self, id: GeneralId) -> String {
        match self.b.general(id) {
            Some(g)
                if self.side.is_none_or(|s| s == g.side)
                    || (self.naming.known && self.seen_generals.contains(&g.id)) =>
            {
                format!("General {}", g.name)
            }
            Some(_) => "an enemy general".into(),
            None => format!("general {}", id.0),
        }
    }
}

fn terms_text(terms: &[super::orders::Term]) -> String {
    terms
        .iter()
        .map(|t| format!("{} {:+}", t.text, t.value))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The umpire's words for an event (everything, real names).
fn umpire_text(n: &Names, e: &SfrmEvent) -> String {
    full_text(n, e, true)
}

/// An event in words. `enemy_strength`: whether the enemy's elements left
/// may be said (umpire only).
fn full_text(n: &Names, e: &SfrmEvent, enemy_strength: bool) -> String {
    use SfrmEvent::*;
    match e {
        PhaseBegins {
            turn,
            side,
            minute,
            section,
            ..
        } => format!(
            "Turn {turn}, {}: the {} phase ({section}).",
            clock(*minute),
            side.name()
        ),
        CommandRoll {
            general,
            ability,
            roll,
            commands,
            section,
        } => format!(
            "{} rolls {roll} against command ability {ability}: {} ({section}).",
            n.general(*general),
            if *commands { "commands" } else { "fails" }
        ),
        Promoted {
            removed,
            promoted,
            role,
            section,
            ..
        } => format!(
            "{} takes the {} command of {} ({section}).",
            n.general(*promoted),
            role.name(),
            n.general(*removed)
        ),
        Supply {
            unit,
            in_supply,
            markers,
            section,
        } => format!(
            "{} is {} ({markers} out of supply markers) ({section}).",
            n.unit(*unit),
            if *in_supply {
                "in supply"
            } else {
                "out of supply"
            }
        ),
        OutOfSupplyMarker {
            unit,
            markers,
            section,
        } => format!(
            "{} takes an out of supply marker ({markers} now) ({section}).",
            n.unit(*unit)
        ),
        Command {
            unit,
            in_command,
            by,
            section,
        } => match (in_command, by) {
            (true, Some(g)) => format!(
                "{} is in command ({}) ({section}).",
                n.unit(*unit),
                n.general(*g)
            ),
            (true, None) => format!("{} is in command ({section}).", n.unit(*unit)),
            (false, _) => format!("{} is out of command ({section}).", n.unit(*unit)),
        },
        OrderRefused {
            index,
            reason,
            section,
            ..
        } => {
            // A reason that already cites its section is not cited twice.
            let why = render_refs(reason, |u| n.unit(u));
            let why = why.trim_end_matches('.');
            if why.ends_with(&format!("({section})")) {
                format!("Order {} refused: {why}.", index + 1)
            } else {
                format!("Order {} refused: {why} ({section}).", index + 1)
            }
        }
        Moved {
            unit,
            from,
            to,
            cost,
            allowance,
            stopped,
            section,
            ..
        } => {
            let mut s = format!(
                "{} moves from {} to {} ({cost:.1}\" of {allowance:.1}\")",
                n.unit(*unit),
                at(*from),
                at(*to)
            );
            if let Some(why) = stopped {
                s.push_str(&format!("; stopped: {why}"));
            }
            s.push_str(&format!(" ({section})."));
            s
        }
        GeneralMoved {
            general,
            to,
            attached_to,
            section,
            ..
        } => match attached_to {
            Some(u) => format!(
                "{} rides to {} and attaches to {} ({section}).",
                n.general(*general),
                at(*to),
                n.unit(*u)
            ),
            None => format!("{} rides to {} ({section}).", n.general(*general), at(*to)),
        },
        FormationChanged {
            unit,
            formation,
            section,
        } => format!("{} forms {} ({section}).", n.unit(*unit), formation.name()),
        Entrenched {
            unit,
            level,
            section,
        } => format!("{} entrenches (level {level}) ({section}).", n.unit(*unit)),
        Unrouted {
            unit,
            general,
            section,
        } => format!(
            "{} rallies {} ({section}).",
            n.general(*general),
            n.unit(*unit)
        ),
        Charged {
            unit,
            target,
            section,
            ..
        } => format!("{} charges {} ({section}).", n.unit(*unit), n.unit(*target)),
        GreenTested {
            unit,
            dice,
            result,
            section,
        } => format!(
            "{}, green, rolls {}+{}: {} ({section}).",
            n.unit(*unit),
            dice[0],
            dice[1],
            green_words(result)
        ),
        Fired {
            firer,
            target,
            range,
            terms,
            total,
            definite,
            remainder,
            roll,
            casualties,
            elements_left,
            section,
        } => {
            let mut s = format!(
                "{} fires at {} at {range:.1}\": {} = {total}; {definite} casualties",
                n.unit(*firer),
                n.unit(*target),
                terms_text(terms)
            );
            if let Some(r) = roll {
                s.push_str(&format!(
                    " and a die of {r} against {remainder} for one more"
                ));
            }
            s.push_str(&format!(": {}", elements_word(*casualties, "lost")));
            if enemy_strength {
                s.push_str(&format!(", {elements_left} left"));
            }
            s.push_str(&format!(" ({section})."));
            s
        }
        OfficerCasualty {
            general,
            dice,
            casualty,
            captured,
            section,
        } => format!(
            "{} rolls {}+{} on Table 3: {}{} ({section}).",
            n.general(*general),
            dice[0],
            dice[1],
            casualty_words(casualty),
            if *captured { ", taken prisoner" } else { "" }
        ),
        FiredAtGeneral {
            firer,
            general,
            range,
            terms,
            total,
            casualties,
            section,
            ..
        } => format!(
            "{} fires at {} at {range:.1}\": {} = {total}; {casualties} hits ({section}).",
            n.unit(*firer),
            n.general(*general),
            terms_text(terms)
        ),
        GeneralContacted {
            general,
            by,
            section,
        } => format!(
            "{} is caught alone by {} ({section}).",
            n.general(*general),
            n.unit(*by)
        ),
        Routed {
            unit,
            reason,
            section,
        } => format!("{} routs: {reason} ({section}).", n.unit(*unit)),
        RoutMove {
            unit,
            to,
            extra_casualty,
            section,
            ..
        } => format!(
            "{} falls back in rout to {}{} ({section}).",
            n.unit(*unit),
            at(*to),
            if *extra_casualty {
                ", losing an element"
            } else {
                ""
            }
        ),
        Dispersed {
            unit,
            reason,
            section,
        } => format!("{} is dispersed: {reason} ({section}).", n.unit(*unit)),
        Breakthrough {
            unit,
            allowance,
            section,
        } => format!(
            "{} may break through, {allowance:.1}\" ({section}).",
            n.unit(*unit)
        ),
        Fatigue {
            unit,
            before,
            after,
            section,
            ..
        } => format!(
            "{}'s fatigue goes from {} to {} quarter levels ({section}).",
            n.unit(*unit),
            before,
            after
        ),
        ContactStands { units, section } => format!(
            "{} stay in contact, neither able to hurt the other ({section}).",
            units
                .iter()
                .map(|u| n.unit(*u))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
        ArmyMorale {
            side,
            broken_units,
            command_ability_sum,
            fails,
            section,
        } => format!(
            "{} army morale: {broken_units} units broken against command ability {command_ability_sum}: {} ({section}).",
            side.name(),
            if *fails { "fails" } else { "holds" }
        ),
    }
}

/// The units an event names, and the generals.
fn named(e: &SfrmEvent) -> (Vec<UnitId>, Vec<GeneralId>) {
    use SfrmEvent::*;
    match e {
        PhaseBegins { .. } | ArmyMorale { .. } | OrderRefused { .. } => (vec![], vec![]),
        CommandRoll { general, .. } => (vec![], vec![*general]),
        Promoted {
            removed,
            promoted,
            from_brigade,
            ..
        } => (
            from_brigade.iter().copied().collect(),
            vec![*removed, *promoted],
        ),
        Supply { unit, .. }
        | OutOfSupplyMarker { unit, .. }
        | Command { unit, .. }
        | Moved { unit, .. }
        | FormationChanged { unit, .. }
        | Entrenched { unit, .. }
        | GreenTested { unit, .. }
        | Routed { unit, .. }
        | RoutMove { unit, .. }
        | Dispersed { unit, .. }
        | Breakthrough { unit, .. }
        | Fatigue { unit, .. } => (vec![*unit], vec![]),
        GeneralMoved {
            general,
            attached_to,
            ..
        } => (attached_to.iter().copied().collect(), vec![*general]),
        Unrouted { unit, general, .. } => (vec![*unit], vec![*general]),
        Charged { unit, target, .. } => (vec![*unit, *target], vec![]),
        Fired { firer, target, .. } => (vec![*firer, *target], vec![]),
        OfficerCasualty { general, .. } => (vec![], vec![*general]),
        FiredAtGeneral { firer, general, .. } => (vec![*firer], vec![*general]),
        GeneralContacted { general, by, .. } => (vec![*by], vec![*general]),
        ContactStands { units, .. } => (units.clone(), vec![]),
    }
}

/// Enemy units a side met this turn: an enemy that fired on, charged, was
/// charged by, was fired on by, or stood in contact with one of its units
/// (its men saw it then, even if it is hidden now).
fn met_this_turn(b: &SfrmBattle, side: Side, events: &[SfrmEvent]) -> BTreeSet<UnitId> {
    let own = |u: &UnitId| b.unit(*u).is_some_and(|u| u.side == side);
    let mut met = BTreeSet::new();
    for e in events {
        let pair: Vec<UnitId> = match e {
            SfrmEvent::Fired { firer, target, .. } => vec![*firer, *target],
            SfrmEvent::Charged { unit, target, .. } => vec![*unit, *target],
            SfrmEvent::ContactStands { units, .. } => units.clone(),
            SfrmEvent::FiredAtGeneral { firer, general, .. } => {
                if b.general(*general).is_some_and(|g| g.side == side) {
                    met.insert(*firer);
                }
                continue;
            }
            SfrmEvent::GeneralContacted { by, general, .. } => {
                if b.general(*general).is_some_and(|g| g.side == side) {
                    met.insert(*by);
                }
                continue;
            }
            _ => continue,
        };
        if pair.iter().any(own) {
            met.extend(pair.into_iter().filter(|u| !own(u)));
        }
    }
    met
}

/// The side's view of the battle after a turn and its events.
pub fn side_view(
    b: &SfrmBattle,
    events: &[SfrmEvent],
    side: Side,
    naming: &EnemyNaming,
) -> SideView {
    let seen = seen_enemy_units(b, side);
    let seen_generals = seen_generals_given(b, side, &seen);
    let mut known_units = met_this_turn(b, side, events);
    known_units.extend(seen.iter().copied());
    let names = Names {
        b,
        side: Some(side),
        naming,
        seen_generals: seen_generals.clone(),
        known_units: known_units.clone(),
    };
    let seen_events: Vec<SeenEvent> = events
        .iter()
        .filter_map(|e| seen_event(b, e, side, &names, &known_units, &seen_generals))
        .collect();

    let own_units: Vec<OwnUnit> = b
        .units
        .iter()
        .filter(|u| u.side == side)
        .map(|u| OwnUnit {
            unit: u.clone(),
            general: b.attached_general(u.id).map(|g| g.name.clone()),
        })
        .collect();
    let own_generals: Vec<_> = b.generals_of(side).cloned().collect();
    let enemy_units: Vec<EnemySighting> = seen
        .iter()
        .filter_map(|id| b.unit(*id))
        .map(|u| EnemySighting {
            id: u.id,
            called: naming.call(u),
            kind: kind_noun(u.arm),
            formation: u.formation,
            pos: u.pos,
            facing: u.facing,
            routed: u.routed,
            entrenched: u.entrenchment > 0,
        })
        .collect();
    let enemy_generals: Vec<GeneralSighting> = seen_generals
        .iter()
        .filter_map(|id| b.general(*id))
        .map(|g| GeneralSighting {
            id: g.id,
            called: names.general(g.id),
            pos: g.pos,
            with: g
                .attached_to
                .filter(|u| seen.contains(u))
                .map(|u| names.unit(u)),
        })
        .collect();
    let narrative = narrate(
        b,
        side,
        &own_units,
        &enemy_units,
        &enemy_generals,
        &seen_events,
    );
    SideView {
        side,
        turn: b.turn,
        own_units,
        own_generals,
        enemy_units,
        enemy_generals,
        events: seen_events,
        narrative,
    }
}

/// One event as `side` may know it, or `None` when it is the enemy's alone.
fn seen_event(
    b: &SfrmBattle,
    e: &SfrmEvent,
    side: Side,
    n: &Names,
    known_units: &BTreeSet<UnitId>,
    seen_generals: &BTreeSet<GeneralId>,
) -> Option<SeenEvent> {
    use SfrmEvent::*;
    let own_u = |u: &UnitId| b.unit(*u).is_some_and(|u| u.side == side);
    let own_g = |g: &GeneralId| b.general(*g).is_some_and(|g| g.side == side);
    let full = |e: &SfrmEvent| SeenEvent {
        event: Some(e.clone()),
        text: full_text(n, e, false),
    };
    match e {
        PhaseBegins { .. } => Some(full(e)),
        // The engine's words refer to units by id; the raw event is kept
        // back when they do (an unseen enemy's id is his to keep), and the
        // text names each as the side calls him, or "the enemy".
        OrderRefused {
            side: s, reason, ..
        } if reason.contains("{unit ") => (*s == side).then(|| SeenEvent {
            event: None,
            text: full_text(n, e, false),
        }),
        OrderRefused { side: s, .. } | ArmyMorale { side: s, .. } => (*s == side).then(|| full(e)),
        // Our own fire: our dice and working, the enemy's losses as seen,
        // never how many elements the enemy has left.
        Fired { firer, target, .. } if own_u(firer) && !own_u(target) => Some(SeenEvent {
            event: None,
            text: full_text(n, e, false),
        }),
        // Enemy fire at us: what we lost, never the enemy's working.
        Fired {
            firer,
            target,
            casualties,
            elements_left,
            section,
            ..
        } if own_u(target) => Some(SeenEvent {
            event: None,
            text: format!(
                "{} fires on {}: {}, {elements_left} left ({section}).",
                n.unit(*firer),
                n.unit(*target),
                elements_word(*casualties, "lost")
            ),
        }),
        FiredAtGeneral {
            firer,
            general,
            casualties,
            section,
            ..
        } if own_g(general) => Some(SeenEvent {
            event: None,
            text: format!(
                "{} fires on {}: {casualties} hits ({section}).",
                n.unit(*firer),
                n.general(*general)
            ),
        }),
        FiredAtGeneral { firer, .. } if own_u(firer) => {
            if let FiredAtGeneral { general, .. } = e
                && seen_generals.contains(general)
            {
                Some(full(e))
            } else {
                Some(SeenEvent {
                    event: None,
                    text: full_text(n, e, false),
                })
            }
        }
        // Enemy routs and dispersals its men met or see: what the eye
        // tells, without the enemy's reason (its casualties this phase).
        Routed { unit, section, .. } if !own_u(unit) => {
            known_units.contains(unit).then(|| SeenEvent {
                event: None,
                text: format!("{} routs ({section}).", n.unit(*unit)),
            })
        }
        Dispersed { unit, section, .. } if !own_u(unit) => {
            known_units.contains(unit).then(|| SeenEvent {
                event: None,
                text: format!("{} is dispersed ({section}).", n.unit(*unit)),
            })
        }
        Charged { unit, target, .. } if !own_u(unit) || !own_u(target) => {
            (own_u(unit) || own_u(target)).then(|| full(e))
        }
        ContactStands { units, .. } => units.iter().any(own_u).then(|| full(e)),
        GeneralContacted { general, .. } if own_g(general) => Some(full(e)),
        _ => {
            let (units, generals) = named(e);
            let all_own = units.iter().all(own_u) && generals.iter().all(own_g);
            let some_own = units.iter().any(own_u) || generals.iter().any(own_g);
            (all_own && some_own).then(|| full(e))
        }
    }
}

/// The turn in plain text for `side`.
fn narrate(
    b: &SfrmBattle,
    side: Side,
    own: &[OwnUnit],
    enemy: &[EnemySighting],
    enemy_generals: &[GeneralSighting],
    events: &[SeenEvent],
) -> String {
    let mut s = format!(
        "{} report after turn {} ({} to {}).\n\nThe turn:\n",
        side.name(),
        b.turn,
        clock(b.minute_of_turn(b.turn.max(1))),
        clock(b.minute_of_turn(b.turn.max(1) + 1))
    );
    if events.is_empty() {
        s.push_str("- Nothing to report.\n");
    }
    // A side's command and supply checks come one per unit each phase:
    // told as one line each (who is in, who is out), not twenty.
    let name = |id: UnitId| {
        b.unit(id)
            .map_or_else(|| "a unit".to_string(), |u| u.name.clone())
    };
    // Only the side's own units are grouped (named by their own names);
    // anything else keeps the text the view made for it.
    let own_check = |e: Option<&SfrmEvent>| match e {
        Some(SfrmEvent::Command { unit, .. }) => {
            b.unit(*unit).is_some_and(|u| u.side == side).then_some(1)
        }
        Some(SfrmEvent::Supply { unit, .. }) => {
            b.unit(*unit).is_some_and(|u| u.side == side).then_some(2)
        }
        _ => None,
    };
    let mut i = 0;
    while let Some(e) = events.get(i) {
        match own_check(e.event.as_ref()).and(e.event.as_ref()) {
            Some(SfrmEvent::Command { .. }) => {
                let mut by_general: Vec<(Option<GeneralId>, Vec<String>)> = Vec::new();
                let mut out = Vec::new();
                while let Some(SfrmEvent::Command {
                    unit,
                    in_command,
                    by,
                    ..
                }) = events
                    .get(i)
                    .and_then(|e| e.event.as_ref())
                    .filter(|e| own_check(Some(e)) == Some(1))
                {
                    if *in_command {
                        match by_general.iter_mut().find(|(g, _)| g == by) {
                            Some((_, units)) => units.push(name(*unit)),
                            None => by_general.push((*by, vec![name(*unit)])),
                        }
                    } else {
                        out.push(name(*unit));
                    }
                    i += 1;
                }
                let ins: Vec<String> = by_general
                    .iter()
                    .map(|(g, units)| match g.and_then(|g| b.general(g)) {
                        Some(g) => format!("{} (General {})", units.join(", "), g.name),
                        None => units.join(", "),
                    })
                    .collect();
                s.push_str(&format!(
                    "- Command (SFRM Command (i)): in command: {}; out of command: {}.\n",
                    if ins.is_empty() {
                        "none".to_string()
                    } else {
                        ins.join("; ")
                    },
                    if out.is_empty() {
                        "none".to_string()
                    } else {
                        out.join(", ")
                    }
                ));
            }
            Some(SfrmEvent::Supply { .. }) => {
                let (mut ins, mut out) = (Vec::new(), Vec::new());
                while let Some(SfrmEvent::Supply {
                    unit,
                    in_supply,
                    markers,
                    ..
                }) = events
                    .get(i)
                    .and_then(|e| e.event.as_ref())
                    .filter(|e| own_check(Some(e)) == Some(2))
                {
                    if *in_supply {
                        ins.push(name(*unit));
                    } else if *markers > 0 {
                        out.push(format!("{} ({markers} out of supply markers)", name(*unit)));
                    } else {
                        out.push(name(*unit));
                    }
                    i += 1;
                }
                s.push_str(&format!(
                    "- Supply (SFRM Supply: within 36\" of a supply train in supply by road): in supply: {}; out of supply: {}.\n",
                    if ins.is_empty() { "none".to_string() } else { ins.join(", ") },
                    if out.is_empty() { "none".to_string() } else { out.join(", ") }
                ));
            }
            _ => {
                s.push_str(&format!("- {}\n", e.text));
                i += 1;
            }
        }
    }
    s.push_str("\nOur troops:\n");
    for o in own {
        let u = &o.unit;
        if u.gone() {
            s.push_str(&format!("- {}: gone from the field.\n", u.name));
            continue;
        }
        let mut flags = Vec::new();
        if u.routed {
            flags.push("routed".to_string());
        }
        if u.out_of_command {
            flags.push("out of command".into());
        }
        if u.out_of_supply > 0 {
            flags.push(format!("{} out of supply markers", u.out_of_supply));
        }
        if u.entrenchment > 0 {
            flags.push(format!("entrenched (level {})", u.entrenchment));
        }
        if let Some(g) = &o.general {
            flags.push(format!("with General {g}"));
        }
        s.push_str(&format!(
            "- {}: {} in {} at {} facing {:.0}°{}\n",
            u.name,
            elements_word(u.elements, ""),
            u.formation.name(),
            at(u.pos),
            u.facing,
            if flags.is_empty() {
                String::new()
            } else {
                format!("; {}", flags.join(", "))
            }
        ));
    }
    s.push_str("\nThe enemy in sight:\n");
    if enemy.is_empty() && enemy_generals.is_empty() {
        s.push_str(&format!("- None in sight ({S_SIGHT}).\n"));
    }
    for e in enemy {
        s.push_str(&format!(
            "- {} in {} at {} facing {:.0}°{}{}\n",
            capitalise(&e.called),
            e.formation.name(),
            at(e.pos),
            e.facing,
            if e.routed { ", routed" } else { "" },
            if e.entrenched { ", entrenched" } else { "" }
        ));
    }
    for g in enemy_generals {
        match &g.with {
            Some(w) => s.push_str(&format!(
                "- {} with {} at {}\n",
                capitalise(&g.called),
                w,
                at(g.pos)
            )),
            None => s.push_str(&format!("- {} at {}\n", capitalise(&g.called), at(g.pos))),
        }
    }
    s
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// The umpire's view: the whole battle, every event, and a narrative with
/// real names, every die and every strength.
pub fn umpire_view(b: &SfrmBattle, events: &[SfrmEvent]) -> UmpireView {
    let naming = EnemyNaming::known();
    let n = Names {
        b,
        side: None,
        naming: &naming,
        seen_generals: BTreeSet::new(),
        known_units: BTreeSet::new(),
    };
    let mut s = format!("Umpire: turn {}.\n", b.turn);
    for e in events {
        s.push_str(&format!("- {}\n", umpire_text(&n, e)));
    }
    s.push_str("\nUnits:\n");
    for u in &b.units {
        s.push_str(&format!(
            "- {} ({}): {} in {} at {} facing {:.0}°{}{}\n",
            u.name,
            u.side.name(),
            elements_word(u.elements, ""),
            u.formation.name(),
            at(u.pos),
            u.facing,
            if u.routed { ", routed" } else { "" },
            if u.gone() { ", gone" } else { "" }
        ));
    }
    UmpireView {
        battle: b.clone(),
        events: events.to_vec(),
        narrative: s,
    }
}

#[cfg(test)]
pub(crate) mod tests;
