//! What a side may order in an SFRM turn, and the events the rules core
//! reports back with their working.

use super::nouns::{Formation, GeneralId, Pos, Rank, Side, UnitId};
use super::tables::{GreenResult, Light};
use crate::rules::sfrm::table3::OfficerCasualty;
use serde::{Deserialize, Serialize};

/// One order for the movement & manoeuvre subphase of its side's phase
/// (SFRM "Movement & Manoeuvre"). A unit takes at most one of `Move`,
/// `Charge`, `Formation`, `Entrench`, `RoutMove`, `Unrout`; `Target` only
/// names whom it fires at; the breakthrough orders come after combat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "order")]
pub enum Order {
    /// Move straight to `to` (Table 4; "Manoeuvre"), keeping its facing
    /// (facing about is a formation change: "Formation Changes").
    Move {
        unit: UnitId,
        to: Pos,
        /// A line may first expand or contract its front rank to this many
        /// elements ("Movement": "At the start of moving").
        #[serde(default)]
        front_rank: Option<u32>,
        /// Along the road the unit stands on, at Table 4's on-road rate
        /// (march column or limbered only).
        #[serde(default)]
        road: bool,
    },
    /// Wheel forward by `degrees` (clockwise positive), pivoting on one
    /// front corner ("Manoeuvre" iii).
    Wheel { unit: UnitId, degrees: f64 },
    /// Charge into base-to-base contact with `target` ("Movement").
    Charge { unit: UnitId, target: UnitId },
    /// Change formation in place ("Formation Changes").
    Formation {
        unit: UnitId,
        formation: Formation,
        #[serde(default)]
        facing: Option<f64>,
        #[serde(default)]
        front_rank: Option<u32>,
        #[serde(default)]
        mounted: Option<bool>,
        #[serde(default)]
        prone: Option<bool>,
    },
    /// Dig in for a turn ("Entrenching").
    Entrench { unit: UnitId },
    /// A voluntary rout move ("Rout Moves").
    RoutMove { unit: UnitId },
    /// Unrout with an attached general, optionally changing formation
    /// ("Command").
    Unrout {
        unit: UnitId,
        #[serde(default)]
        formation: Option<Formation>,
    },
    /// After combat, a unit that charged and routed every enemy it was in
    /// contact with moves up to half a move more ("Breakthrough Advances
    /// & Combat"), no closer than 1" to the enemy.
    BreakthroughMove { unit: UnitId, to: Pos },
    /// The same advance as a charge into further enemy: only with an
    /// attached general; breakthrough combat follows.
    BreakthroughCharge { unit: UnitId, target: UnitId },
    /// Whom to fire at when it has a choice ("Firing Arc & Target
    /// Availability").
    Target { unit: UnitId, target: UnitId },
    /// Fire at an enemy general not attached to a unit ("Combat":
    /// "Firing is performed for each unit, general element or messenger
    /// element target"), instead of at a unit, when not in contact.
    TargetGeneral { unit: UnitId, general: GeneralId },
    /// A general rides to `to` (Table 4: 36").
    GeneralMove { general: GeneralId, to: Pos },
    /// A general rides to `unit` and attaches to it, or detaches (`None`).
    Attach {
        general: GeneralId,
        unit: Option<UnitId>,
    },
}

impl Order {
    /// The unit a movement order moves, if it is one.
    pub fn moving_unit(&self) -> Option<UnitId> {
        match self {
            Order::Move { unit, .. }
            | Order::Wheel { unit, .. }
            | Order::Charge { unit, .. }
            | Order::Formation { unit, .. }
            | Order::Entrench { unit }
            | Order::RoutMove { unit }
            | Order::Unrout { unit, .. } => Some(*unit),
            _ => None,
        }
    }
}

/// Both sides' orders for one turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnOrders {
    #[serde(default)]
    pub union: Vec<Order>,
    #[serde(default)]
    pub confederate: Vec<Order>,
}

impl TurnOrders {
    pub fn of(&self, side: Side) -> &[Order] {
        match side {
            Side::Union => &self.union,
            Side::Confederate => &self.confederate,
        }
    }
}

/// One term of a sum, with where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Term {
    pub text: String,
    pub value: i32,
    pub section: String,
}

impl Term {
    pub fn new(text: impl Into<String>, value: i32, section: impl Into<String>) -> Term {
        Term {
            text: text.into(),
            value,
            section: section.into(),
        }
    }
}

/// Which subphase an event belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Subphase {
    Command,
    Movement,
    Combat,
    ArmyMorale,
}

/// What happened, with its working. Every event names the section of the
/// rules it follows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "event")]
pub enum SfrmEvent {
    /// A side's phase begins ("Turn Order").
    PhaseBegins {
        turn: u32,
        side: Side,
        minute: u32,
        light: Light,
        section: String,
    },
    /// A general's d6 against his command ability ("Command" i).
    CommandRoll {
        general: GeneralId,
        ability: u8,
        roll: u8,
        commands: bool,
        section: String,
    },
    /// A removed general replaced by promotion ("Officer Casualties").
    Promoted {
        removed: GeneralId,
        promoted: GeneralId,
        role: Rank,
        /// The brigade that gave an element to become the new general.
        from_brigade: Option<UnitId>,
        section: String,
    },
    /// A unit's supply in its side's command & supply subphase ("Supply");
    /// in supply removes its out of supply markers.
    Supply {
        unit: UnitId,
        in_supply: bool,
        markers: u8,
        section: String,
    },
    /// An out of supply unit that took part in combat this phase gets a
    /// marker ("Supply").
    OutOfSupplyMarker {
        unit: UnitId,
        markers: u8,
        section: String,
    },
    /// A unit's command state for the phase ("Command").
    Command {
        unit: UnitId,
        in_command: bool,
        /// The general whose range (or column) brought it in.
        by: Option<GeneralId>,
        section: String,
    },
    /// An order not carried out, with why and what would do.
    OrderRefused {
        side: Side,
        /// Position of the order in the side's list.
        index: usize,
        /// The engine's words. An enemy unit is never named here: it is
        /// referred to by id ([`unit_ref`]), and each reader's words for
        /// it are put in by [`render_refs`] (the view: what the side calls
        /// him, or "the enemy"; the umpire: his real name).
        reason: String,
        section: String,
    },
    Moved {
        unit: UnitId,
        from: Pos,
        to: Pos,
        /// Inches of allowance spent, after terrain/manoeuvre multiples.
        cost: f64,
        allowance: f64,
        /// Stopped short of the ordered point, and why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stopped: Option<String>,
        working: Vec<String>,
        section: String,
    },
    GeneralMoved {
        general: GeneralId,
        from: Pos,
        to: Pos,
        attached_to: Option<UnitId>,
        section: String,
    },
    FormationChanged {
        unit: UnitId,
        formation: Formation,
        section: String,
    },
    Entrenched {
        unit: UnitId,
        level: u8,
        section: String,
    },
    Unrouted {
        unit: UnitId,
        general: GeneralId,
        section: String,
    },
    Charged {
        unit: UnitId,
        target: UnitId,
        from: Pos,
        cost: f64,
        allowance: f64,
        section: String,
    },
    /// Table 5 for a green unit.
    GreenTested {
        unit: UnitId,
        dice: [u8; 2],
        result: GreenResult,
        section: String,
    },
    /// One unit's fire at one target ("Combat"): the total of basic combat
    /// values and modifiers, divided by 6.
    Fired {
        firer: UnitId,
        target: UnitId,
        range: f64,
        terms: Vec<Term>,
        total: i32,
        definite: u32,
        remainder: u32,
        /// The die for the possible further casualty (≤ remainder hits).
        roll: Option<u8>,
        casualties: u32,
        elements_left: u32,
        section: String,
    },
    /// Table 3 for a general.
    OfficerCasualty {
        general: GeneralId,
        dice: [u8; 2],
        casualty: OfficerCasualty,
        /// Taken prisoner (results 2–6 in contact with the enemy and not
        /// with friends).
        #[serde(default)]
        captured: bool,
        section: String,
    },
    /// One unit's fire at a lone general ("Combat").
    FiredAtGeneral {
        firer: UnitId,
        general: GeneralId,
        range: f64,
        terms: Vec<Term>,
        total: i32,
        definite: u32,
        remainder: u32,
        roll: Option<u8>,
        /// Casualties the fire would cause; any sends him to Table 3.
        casualties: u32,
        section: String,
    },
    /// A lone general contacted by an enemy unit ("Officer Casualties" ii).
    GeneralContacted {
        general: GeneralId,
        by: UnitId,
        section: String,
    },
    /// Morale failure from casualties in one phase.
    Routed {
        unit: UnitId,
        reason: String,
        section: String,
    },
    RoutMove {
        unit: UnitId,
        from: Pos,
        to: Pos,
        /// The extra element lost for a rout move made whilst routed.
        extra_casualty: bool,
        section: String,
    },
    Dispersed {
        unit: UnitId,
        reason: String,
        section: String,
    },
    /// A unit may advance after routing all it was in contact with.
    Breakthrough {
        unit: UnitId,
        /// Half of its move this turn.
        allowance: f64,
        section: String,
    },
    /// Fatigue at the end of a day ("Time, Weather & Daylight"), in
    /// quarter levels.
    Fatigue {
        unit: UnitId,
        before: u32,
        after: u32,
        working: Vec<String>,
        section: String,
    },
    /// Contact fire stopped with nobody able to hurt the other.
    ContactStands { units: Vec<UnitId>, section: String },
    /// Army morale check of the phasing side.
    ArmyMorale {
        side: Side,
        broken_units: u32,
        command_ability_sum: u32,
        fails: bool,
        section: String,
    },
}

/// How the engine's own words refer to a unit it must not name: `{unit
/// N}`. The reader's words for it are put in by [`render_refs`].
pub fn unit_ref(id: UnitId) -> String {
    format!("{{unit {}}}", id.0)
}

/// `text` with every [`unit_ref`] replaced by `name(id)`; anything else,
/// braces included, is left as written.
pub fn render_refs(text: &str, mut name: impl FnMut(UnitId) -> String) -> String {
    const OPEN: &str = "{unit ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + OPEN.len()..];
        let digits = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        match (
            after[..digits].parse::<u32>(),
            after[digits..].starts_with('}'),
        ) {
            (Ok(n), true) => {
                out.push_str(&name(UnitId(n)));
                rest = &after[digits + 1..];
            }
            _ => {
                out.push_str(OPEN);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod refs {
    use super::*;

    #[test]
    fn sfrm_unit_refs_render_under_the_readers_names() {
        let text = format!(
            "Keyes cannot reach {}; {{unit x}} and {{unit 3",
            unit_ref(UnitId(12))
        );
        assert_eq!(text, "Keyes cannot reach {unit 12}; {unit x} and {unit 3");
        assert_eq!(
            render_refs(&text, |id| format!("<{}>", id.0)),
            "Keyes cannot reach <12>; {unit x} and {unit 3"
        );
    }
}
