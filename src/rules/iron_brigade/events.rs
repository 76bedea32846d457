//! What happened in a turn, decision by decision (APSoF I.B).
//!
//! The turn engine writes one [`Event`] for every decision it takes, so the
//! umpire's log, the players' reports and any replay are built from the same
//! record. Each event carries the units and officers it concerns together
//! with their sides, so [`visible_to`] can decide what a side may be told
//! without looking at the battle state: reports must never reveal an enemy
//! that side could not see, nor the enemy's written orders.

use super::kinds::{Formation, Obstacle, OfficerRating, PontoonTask};
use super::sight::Visibility;
use super::state::{OfficerId, Pos, SideId, UnitId};
use crate::rules::sfrm::{CasualtyResult, DispatchEvent};
use serde::{Deserialize, Serialize};

/// A unit as named in an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitRef {
    pub id: UnitId,
    pub side: SideId,
    pub name: String,
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u8(n: &u8) -> bool {
    *n == 0
}

fn is_zero_i32(n: &i32) -> bool {
    *n == 0
}

fn dice_words(dice: &[u8]) -> String {
    dice.iter().map(u8::to_string).collect::<Vec<_>>().join("+")
}

/// A dice pool's roll in words: "dice 4+5 = 9", or for fewer than 4
/// castings one die less the shortfall (APSoF V.B.3, VI.D.3.i).
fn pool_words(dice: &[u8], total: u32) -> String {
    let sum: u32 = dice.iter().map(|&d| u32::from(d)).sum();
    if sum == total {
        format!("dice {} = {total}", dice_words(dice))
    } else {
        format!(
            "die {} less {} for the castings short of 4 = {total}",
            dice_words(dice),
            sum.saturating_sub(total)
        )
    }
}

/// The working of a fire's attack, told to the side that fired and the
/// umpire: base effectiveness at the range (APSoF XIII, V.E.1), each
/// modifier of the V.B.1.ii table, the divisor, the dice and the
/// casualties (V.B.1.iii-v); for combined fire the divisor is the highest
/// of the units' (V.F.1).
#[allow(clippy::too_many_arguments)]
fn fire_attack_working(
    band: &str,
    range: u32,
    base: u8,
    divisor: u8,
    modifiers: &[String],
    perilous_why: &[String],
    combined: bool,
    dice: &[u8],
    total: u32,
    casualties: u32,
) -> String {
    // Each modifier with its section: the V.B table's lines are V.B.1.ii;
    // acquired fire is V.D.1, a perilous situation its clause of V.G
    // ("V.G.1.ii first fire at troops never under fire"; V.G.1 when the
    // event does not say).
    let peril = if perilous_why.is_empty() {
        "V.G.1".to_string()
    } else {
        perilous_why.join("; ")
    };
    let mods = if modifiers.is_empty() {
        "no modifiers (APSoF V.B.1.ii)".to_string()
    } else {
        let each: Vec<String> = modifiers
            .iter()
            .map(|m| {
                let at = if m.contains("perilous") {
                    peril.as_str()
                } else if m.contains("acquired") {
                    "V.D.1"
                } else {
                    "V.B.1.ii"
                };
                format!("{m} ({at})")
            })
            .collect();
        format!("modifiers {}", each.join(", "))
    };
    let at = if band.is_empty() {
        format!("{range}\"")
    } else {
        format!("{range}\" ({band})")
    };
    let div = if combined {
        format!("divisor {divisor}, the highest of the units firing (APSoF V.F.1)")
    } else {
        format!("divisor {divisor}")
    };
    let rolled = if dice.is_empty() {
        format!("dice total {total}")
    } else {
        format!("dice {} = {total}", dice_words(dice))
    };
    let plural = |n: u32| if n == 1 { "y" } else { "ies" };
    // V.B.1.v: the quotient, fractions dropped, is the casualties; when
    // the target had fewer castings (or shared them with units in support
    // behind it, V.B note *), the working says so rather than letting
    // "24 / 3 gives 1" stand unexplained.
    let raw = total / u32::from(divisor.max(1));
    let gives = if raw > casualties {
        format!(
            "{total} / {divisor} gives {raw} casualt{}, of which {casualties} fall{} on the target: a unit loses no more castings than it has (APSoF V.B.1.iii-v), and units in support behind a target share its casualties (V.B note *)",
            plural(raw),
            if casualties == 1 { "s" } else { "" }
        )
    } else {
        format!(
            "{total} / {divisor} gives {casualties} casualt{} (APSoF V.B.1.iii-v)",
            plural(casualties)
        )
    };
    format!(
        " Working: base effectiveness {base} at {at} (APSoF XIII, V.E.1); {mods}; {div}; {rolled}; {gives}."
    )
}

/// The working of the V.H.2 roll for an officer in the line of fire: the
/// die, and what hits (the event holds the roll; the table is the rule's).
fn officer_hit_working(roll: u8) -> String {
    format!(
        " Working: rolled {roll}; an officer in the line of fire is hit on 5 or 6 if mounted, on 6 if on foot (APSoF V.H.2)."
    )
}

/// The working of a fire's save and morale loss, told to the side that was
/// hit and the umpire (APSoF V.B.1.vi; perilous x10, with the V.G clause
/// that made it so, as the firer's working names it).
fn fire_save_working(
    casualties: u32,
    dice: &[u8],
    save_total: u32,
    morale_lost: u32,
    perilous: bool,
    perilous_why: &[String],
) -> String {
    let per = if perilous { 10 } else { 5 };
    let rolled = if dice.is_empty() {
        format!("save total {save_total}")
    } else {
        format!("save dice {} = {save_total}", dice_words(dice))
    };
    format!(
        " Save: {rolled}; morale loss {per} x {casualties} - {save_total} = {morale_lost} (APSoF V.B.1.vi{}).",
        match (perilous, perilous_why.is_empty()) {
            (false, _) => String::new(),
            (true, true) => "; perilous x10, V.G.1".to_string(),
            (true, false) => format!("; perilous x10, {}", perilous_why.join("; ")),
        }
    )
}

/// A unit whose fire was combined with another's (APSoF V.F.1), with its own
/// figures: the combined fire's divisor is the highest of these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FiredWith {
    pub unit: UnitRef,
    pub range: u32,
    /// This unit's own modified effectiveness.
    pub effectiveness: u8,
    pub castings_firing: u32,
}

/// An officer as named in an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfficerRef {
    pub id: OfficerId,
    pub side: SideId,
    pub name: String,
}

/// Something an event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "id")]
pub enum Subject {
    Unit(UnitId),
    Officer(OfficerId),
}

/// One decision of the turn engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "event")]
pub enum Event {
    /// A replacement officer takes the field (APSoF V.H.3).
    OfficerReplaced {
        officer: OfficerRef,
        rating: OfficerRating,
        at: Pos,
    },
    /// An order is booked with the turn it takes effect (APSoF I.C.1).
    OrderBooked {
        unit: UnitRef,
        order: u64,
        issued_by: OfficerRef,
        distance: f64,
        effective_turn: u32,
        /// The obedience die of an officer outside the unit's chain.
        obedience_roll: Option<u8>,
        follows_previous: bool,
        /// Ids of pending orders this one replaced (APSoF I.B.1.i).
        replaced: Vec<u64>,
    },
    /// An order that will never be carried out (APSoF I.C.1: a 6 from an
    /// officer outside the chain; or an officer no longer on the field).
    OrderIgnored {
        unit: UnitRef,
        order: u64,
        issued_by: OfficerRef,
        obedience_roll: Option<u8>,
        reason: String,
    },
    /// A step of an order that cannot be carried out as written; the engine
    /// skips it.
    OrderNotCarriedOut {
        unit: UnitRef,
        order: u64,
        step: usize,
        reason: String,
    },
    /// A step of an order is done and the next begins (APSoF I.C.2).
    StepCompleted {
        unit: UnitRef,
        order: u64,
        step: usize,
    },
    /// An officer moved (APSoF IV.D).
    OfficerMoved {
        officer: OfficerRef,
        from: Pos,
        to: Pos,
        double_time: bool,
        note: String,
    },
    /// Contact morale (APSoF VI.D.3).
    Contact {
        a: UnitRef,
        b: UnitRef,
        total_a: u32,
        total_b: u32,
        loser: Option<UnitRef>,
        morale_lost: u32,
        /// Castings engaged and dice rolled by each side (VI.D.3.i), so the
        /// result can be checked (issue #14). Left out of the JSON while
        /// empty.
        #[serde(default, skip_serializing_if = "is_zero_u32")]
        castings_a: u32,
        #[serde(default, skip_serializing_if = "is_zero_u32")]
        castings_b: u32,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        dice_a: Vec<u8>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        dice_b: Vec<u8>,
    },
    /// A rally attempt (APSoF VI.E).
    RallyAttempt {
        unit: UnitRef,
        die: u8,
        modified_roll: i32,
        officer: Option<OfficerRef>,
        officer_was_hit: bool,
        from: u8,
        to: u8,
        /// The working (issue #14): VI.E.2.i's base morale modifier,
        /// VI.E.2.ii's officer modifier, a bad officer's own die.
        #[serde(default, skip_serializing_if = "is_zero_i32")]
        base_modifier: i32,
        #[serde(default, skip_serializing_if = "is_zero_i32")]
        officer_modifier: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bad_officer_die: Option<u8>,
    },
    /// A broken unit falls back (APSoF VI.C.1).
    Retreated {
        unit: UnitRef,
        from: Pos,
        to: Pos,
        away_from: Option<UnitRef>,
    },
    /// A broken unit with no way back gives up (APSoF VI.C.2).
    Surrendered {
        unit: UnitRef,
        castings: u32,
    },
    /// Combat morale reached 0 (APSoF VI.C).
    Broke {
        unit: UnitRef,
        cause: String,
    },
    /// Castings taken when breaking within 1" of the enemy (APSoF VI.C.3).
    Captured {
        unit: UnitRef,
        castings: u32,
        by: Option<UnitRef>,
    },
    /// A battery broken in contact loses its guns (APSoF VI.C.4).
    GunsLost {
        unit: UnitRef,
        guns: u32,
    },
    /// A panic check for a broken friend in sight (APSoF VI.D.2).
    Panic {
        unit: UnitRef,
        broken: UnitRef,
        panic: u32,
        saving: u32,
        morale_lost: u32,
        /// The broken unit's panic dice and the checking unit's saving dice
        /// (VI.D.2.iv-v), so the result can be checked (issue #14).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        panic_dice: Vec<u8>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        saving_dice: Vec<u8>,
    },
    /// A double-quick move and its cost (APSoF I.B.3, VI.D.4).
    DoubleQuick {
        unit: UnitRef,
        from: Pos,
        to: Pos,
        roll: u8,
        morale_lost: u8,
        /// The column of the VI.D.4 table the roll was read in.
        #[serde(default, skip_serializing_if = "is_zero_u8")]
        base_morale: u8,
    },
    /// A unit ordered to double quick that may not (combat morale under 4).
    DoubleQuickRefused {
        unit: UnitRef,
        morale: u8,
    },
    /// APSoF VIII.B (optional): a foot battery ordered to the double puts
    /// its crews on the limbers and caissons instead, and may double quick
    /// from the next turn.
    CrewsMounted {
        unit: UnitRef,
    },
    /// A unit moved (APSoF IV). `half` for the half move of a split move.
    Moved {
        unit: UnitRef,
        from: Pos,
        to: Pos,
        distance: f64,
        half: bool,
        stop: String,
    },
    /// Two units ordered to the same place met between (APSoF IV.F).
    Met {
        a: UnitRef,
        b: UnitRef,
    },
    /// A unit whose move would have ended on ground a friendly unit also
    /// reached this turn halted short of it, at `at` on its own path (our
    /// ruling on IV.F between friends, docs/rulings.md).
    HaltedShort {
        unit: UnitRef,
        of: UnitRef,
        at: Pos,
    },
    /// A morale change from moving through ranks or a failed ford
    /// (APSoF IV.C.5–6, IV.E.1).
    MoraleChanged {
        unit: UnitRef,
        from: u8,
        to: u8,
        reason: String,
    },
    /// Casualties that are not from fire (a failed ford, APSoF IV.E.1).
    Casualties {
        unit: UnitRef,
        castings: u32,
        reason: String,
    },
    FormationChanged {
        unit: UnitRef,
        from: Formation,
        to: Formation,
    },
    FacingChanged {
        unit: UnitRef,
        from: f64,
        to: f64,
    },
    /// Lay down or stand up (APSoF III.J).
    LyingDown {
        unit: UnitRef,
        lying: bool,
    },
    /// Who fires first in an exchange of fire (APSoF V.B.2).
    FireOrder {
        a: UnitRef,
        b: UnitRef,
        roll_a: u8,
        roll_b: u8,
        first: Option<UnitRef>,
    },
    /// A fire and its result (APSoF V.B).
    Fired {
        unit: UnitRef,
        target: UnitRef,
        range: u32,
        base_effectiveness: u8,
        effectiveness: u8,
        modifiers: Vec<String>,
        castings_firing: u32,
        dice_total: u32,
        casualties: u32,
        save_total: u32,
        morale_lost: u32,
        split_move: bool,
        perilous: bool,
        /// The clauses of APSoF V.G that made the fire perilous, each with
        /// its section ("V.G.1.i flank attack", "V.G.2 declared by the
        /// umpire"), named in the working. Left out of the JSON while
        /// empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        perilous_why: Vec<String>,
        /// Combined fire (APSoF V.F.1): the other units firing with `unit`.
        /// Then `effectiveness` is the highest divisor of all of them,
        /// `castings_firing` and `dice_total` are the whole fire's, and
        /// `range` and `modifiers` are `unit`'s own. Left out of the JSON
        /// while empty, so events of single fire keep their bytes.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        with: Vec<FiredWith>,
        /// One part of the unit's split fire (APSoF V.F.2).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        split_fire: bool,
        /// The attack dice as rolled (APSoF V.B.1.iii), so that the result
        /// can be checked (issue #14); every unit's dice of a combined
        /// fire, in turn. Left out of the JSON while empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attack_dice: Vec<u8>,
        /// The target's save dice (APSoF V.B.1.vi); none when there were
        /// no casualties. Left out of the JSON while empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        save_dice: Vec<u8>,
        /// The lead unit's weapon and the range band of its chart the base
        /// effectiveness came from ("rifled musket, 4-8\"", APSoF XIII).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        band: String,
        /// Under APSoF X (alternate fire tables): the table, row, column
        /// and cell that gave the result, which then replace V's divide and
        /// save in the working. Left out of the JSON while empty.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        alternate: String,
    },
    /// A whole turn's work on an obstacle (APSoF VIII.D clearing abatis,
    /// VIII.E filling a ditch): `turns` of the `of` it takes.
    ObstacleWork {
        unit: UnitRef,
        obstacle: Obstacle,
        feature: String,
        turns: u32,
        of: u32,
    },
    /// The work is done: a path `width` inches across through the abatis
    /// (VIII.D) or a filled stretch of the ditch that wide (VIII.E).
    ObstacleCleared {
        unit: UnitRef,
        obstacle: Obstacle,
        feature: String,
        width: f64,
    },
    /// Work on an obstacle stopped before it was done; it starts over.
    ObstacleWorkStopped {
        unit: UnitRef,
        obstacle: Obstacle,
        reason: String,
    },
    /// A whole turn unloading pontoon boats or crossing in them (APSoF
    /// IV.E.2): `turns` of the `of` it takes.
    PontoonWork {
        unit: UnitRef,
        task: PontoonTask,
        pontoons: String,
        turns: u32,
        of: u32,
    },
    /// The boats are off their wagons and on the water (APSoF IV.E.2).
    PontoonsAfloat {
        unit: UnitRef,
        pontoons: String,
        boats: u32,
    },
    /// The unit has crossed the stream in pontoon boats (APSoF IV.E.2) in
    /// `trips` loads over `turns` turns, and stands on the far bank at `to`.
    CrossedByPontoon {
        unit: UnitRef,
        stream: String,
        trips: u32,
        turns: u32,
        to: Pos,
    },
    /// The landing from pontoon boats would have put the unit on `by`'s
    /// ground (APSoF IV.E.2, IV.C.4): it landed short, nearer the water, at
    /// `at`; or, with `at` None, it waits in the boats for the ground to
    /// clear. Told to the unit's own side only; an enemy `by` is not named.
    PontoonLandingBlocked {
        unit: UnitRef,
        by: UnitRef,
        at: Option<Pos>,
    },
    /// The unit fired this turn although an order of its side is on its way
    /// to it: the order takes effect on `effective_turn` (APSoF I.C.1, the
    /// delay by the officer's distance), and until then the unit keeps to
    /// what it had, and a unit without active orders may always fire
    /// (I.B.4.i.b). Told to its own side, so that a `hold fire` still on
    /// its way does not leave the player guessing.
    FiredBeforeOrder {
        unit: UnitRef,
        order: u64,
        effective_turn: u32,
    },
    /// Unloading or crossing stopped before it was done; it starts over.
    PontoonWorkStopped {
        unit: UnitRef,
        task: PontoonTask,
        reason: String,
    },
    /// APSoF VII.G (optional): a unit that lost more than one morale level
    /// in one check from fire rolls to keep its regimental command.
    RegimentalCommand {
        unit: UnitRef,
        levels_lost: u32,
        roll: u8,
        /// The lowest roll that loses it.
        needed: u8,
        lost: bool,
        base_from: u8,
        base_to: u8,
    },
    /// A unit splits off a sub-unit (APSoF VII.C.1, option `split-units`).
    SplitOff {
        unit: UnitRef,
        new_unit: UnitRef,
        castings: u32,
    },
    /// A unit joins another (APSoF VII.C.2): `morale` is the joined unit's
    /// combat morale now, the lowest of the two.
    Combined {
        unit: UnitRef,
        into: UnitRef,
        castings: u32,
        morale: u8,
    },
    /// A broken unit retreats off the table and out of the battle
    /// (docs/rulings.md, "The table edge").
    LeftTheField {
        unit: UnitRef,
        castings: u32,
        at: Pos,
    },
    /// Combat morale 1 (APSoF VI.C.6).
    Pinned {
        unit: UnitRef,
        went_prone: bool,
    },
    /// Snipers shoot at a mounted officer instead of normal fire (APSoF
    /// VII.H): the officer counts 1/3 rank deep; one casualty hits him.
    SniperFired {
        unit: UnitRef,
        officer: OfficerRef,
        range: u32,
        effectiveness: u8,
        dice_total: u32,
        hit: bool,
        /// When hit: the turn his replacement arrives (V.H.3).
        replacement_turn: Option<u32>,
    },
    /// An officer in the line of fire is hit (APSoF V.H).
    OfficerHit {
        officer: OfficerRef,
        with_unit: UnitRef,
        roll: u8,
        replacement_turn: u32,
        replacement_rating: OfficerRating,
    },
    /// The line of fire was checked for an officer who was not hit.
    OfficerMissed {
        officer: OfficerRef,
        with_unit: UnitRef,
        roll: u8,
    },
    /// A general removed by SFRM Table 3 when contacted alone (SFRM
    /// Officer Casualties ii; option `sfrm-officer-casualties`): APSoF
    /// V.H.3 replaces him. Told to his own side only.
    OfficerReplacementDue {
        officer: OfficerRef,
        with_unit: UnitRef,
        replacement_turn: u32,
        replacement_rating: OfficerRating,
    },
    /// SFRM Table 3 for a general hit under APSoF V.H, or contacted alone (SFRM
    /// Officer Casualties ii) (scenario option
    /// `sfrm-officer-casualties`): what the hit did. `removed`: he leaves
    /// the field (dead, carried off or taken) and V.H.3 replaces him.
    OfficerCasualty {
        officer: OfficerRef,
        with_unit: UnitRef,
        roll: u8,
        result: crate::rules::sfrm::CasualtyResult,
        removed: bool,
        captured_by: Option<SideId>,
        /// The two dice of the 2d6 roll (issue #14).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        dice: Vec<u8>,
    },
    /// SFRM correspondence: dispatches and messengers. Who may be told is
    /// the dispatch event's own rule ([`DispatchEvent::visible_to`]): the
    /// sender's side never learns of a capture or a loss.
    Sfrm {
        sfrm: DispatchEvent,
    },
}

impl Event {
    /// Every unit and officer the event concerns, with their sides.
    pub fn parties(&self) -> Vec<(Subject, SideId)> {
        let u = |r: &UnitRef| (Subject::Unit(r.id), r.side);
        let o = |r: &OfficerRef| (Subject::Officer(r.id), r.side);
        match self {
            Event::OfficerReplaced { officer, .. } => vec![o(officer)],
            Event::OrderBooked {
                unit, issued_by, ..
            }
            | Event::OrderIgnored {
                unit, issued_by, ..
            } => vec![u(unit), o(issued_by)],
            Event::OfficerMoved { officer, .. } => vec![o(officer)],
            Event::SniperFired { unit, officer, .. } => vec![u(unit), o(officer)],
            Event::Contact { a, b, .. } | Event::Met { a, b } | Event::FireOrder { a, b, .. } => {
                vec![u(a), u(b)]
            }
            // Only the unit that halted: `of` is of its own side, and a
            // side that sees only `of` is not told where an unseen unit is.
            Event::HaltedShort { unit, .. } => vec![u(unit)],
            Event::Combined { unit, into, .. } => vec![u(unit), u(into)],
            Event::RallyAttempt { unit, officer, .. } => {
                let mut v = vec![u(unit)];
                v.extend(officer.iter().map(o));
                v
            }
            Event::Retreated {
                unit, away_from, ..
            } => {
                let mut v = vec![u(unit)];
                v.extend(away_from.iter().map(u));
                v
            }
            Event::Captured { unit, by, .. } => {
                let mut v = vec![u(unit)];
                v.extend(by.iter().map(u));
                v
            }
            Event::Panic { unit, broken, .. } => vec![u(unit), u(broken)],
            Event::Fired {
                unit, target, with, ..
            } => {
                let mut v = vec![u(unit), u(target)];
                v.extend(with.iter().map(|w| u(&w.unit)));
                v
            }
            Event::OfficerHit {
                officer, with_unit, ..
            }
            | Event::OfficerMissed {
                officer, with_unit, ..
            }
            | Event::OfficerCasualty {
                officer, with_unit, ..
            }
            | Event::OfficerReplacementDue {
                officer, with_unit, ..
            } => vec![o(officer), u(with_unit)],
            Event::OrderNotCarriedOut { unit, .. }
            | Event::StepCompleted { unit, .. }
            | Event::Surrendered { unit, .. }
            | Event::Broke { unit, .. }
            | Event::GunsLost { unit, .. }
            | Event::DoubleQuick { unit, .. }
            | Event::DoubleQuickRefused { unit, .. }
            | Event::CrewsMounted { unit }
            | Event::Moved { unit, .. }
            | Event::MoraleChanged { unit, .. }
            | Event::Casualties { unit, .. }
            | Event::FormationChanged { unit, .. }
            | Event::FacingChanged { unit, .. }
            | Event::LyingDown { unit, .. }
            | Event::Pinned { unit, .. }
            | Event::LeftTheField { unit, .. }
            | Event::SplitOff { unit, .. }
            | Event::RegimentalCommand { unit, .. }
            | Event::ObstacleWork { unit, .. }
            | Event::ObstacleCleared { unit, .. }
            | Event::ObstacleWorkStopped { unit, .. }
            | Event::PontoonWork { unit, .. }
            | Event::PontoonsAfloat { unit, .. }
            | Event::CrossedByPontoon { unit, .. }
            | Event::PontoonWorkStopped { unit, .. }
            | Event::FiredBeforeOrder { unit, .. } => vec![u(unit)],
            // Only the unit: `by` may be an enemy its side has not seen.
            Event::PontoonLandingBlocked { unit, .. } => vec![u(unit)],
            // Officers and riders by id only; visibility is the dispatch
            // event's own (see `visible_to`).
            Event::Sfrm { .. } => Vec::new(),
        }
    }

    /// The units and officers the event concerns.
    pub fn subjects(&self) -> Vec<Subject> {
        self.parties().into_iter().map(|(s, _)| s).collect()
    }

    /// Events about a side's orders and officers' intentions: only that
    /// side is ever told of them.
    pub fn is_private(&self) -> bool {
        matches!(
            self,
            Event::OrderBooked { .. }
                | Event::OrderIgnored { .. }
                | Event::OrderNotCarriedOut { .. }
                | Event::StepCompleted { .. }
                | Event::OfficerMoved { .. }
                | Event::DoubleQuickRefused { .. }
                | Event::OfficerReplaced { .. }
                | Event::OfficerReplacementDue { .. }
                // A command that held is news only to its own side.
                | Event::RegimentalCommand { lost: false, .. }
                // Work on abatis or a ditch is told to its own side (the
                // enemy sees a regiment standing; docs/rulings.md).
                | Event::ObstacleWork { .. }
                | Event::ObstacleCleared { .. }
                | Event::ObstacleWorkStopped { .. }
                // So is work with pontoon boats; the landing on the far
                // bank is seen by whoever sees the unit there.
                | Event::PontoonWork { .. }
                | Event::PontoonsAfloat { .. }
                | Event::PontoonWorkStopped { .. }
                | Event::PontoonLandingBlocked { .. }
                | Event::FiredBeforeOrder { .. }
        )
    }

    /// The event in plain English with every number, for the umpire and
    /// the archive.
    pub fn describe(&self) -> String {
        self.describe_as(&|_| true)
    }

    /// The event in plain English as a reader who knows the inner state of
    /// the sides for which `knows` is true, and of no other: an enemy unit's
    /// dice, morale levels, exact losses and castings are left out, because
    /// his men see a regiment fire, waver or run, not its morale track
    /// (APSoF VI: "a pegboard may be kept out of view of the opponent, so he
    /// will be uncertain as to the quality and state of the troops that he
    /// is facing"). Whether the event is told at all is [`visible_to`]'s
    /// decision; who the enemy is, `report::narrative`'s renaming.
    pub fn describe_as(&self, knows: &dyn Fn(SideId) -> bool) -> String {
        let p = |p: &Pos| format!("({:.1}, {:.1})", p.x, p.y);
        let k = |u: &UnitRef| knows(u.side);
        let morale_word = |from: u8, to: u8| match to.cmp(&from) {
            std::cmp::Ordering::Greater => "steadies",
            std::cmp::Ordering::Less => "wavers",
            std::cmp::Ordering::Equal => "holds as it was",
        };
        match self {
            Event::OfficerReplaced {
                officer,
                rating,
                at,
            } => format!(
                "A {rating} officer takes over as {} at {}.",
                officer.name,
                p(at)
            ),
            Event::OrderBooked {
                unit,
                order,
                issued_by,
                distance,
                effective_turn,
                obedience_roll,
                ..
            } => {
                let roll = obedience_roll
                    .map(|r| {
                        format!(
                            " (from outside the chain of command, rolled {r}: 1-4 obeys, 5 a turn late)"
                        )
                    })
                    .unwrap_or_default();
                // The working of the delay (issue #14): the distance band.
                let band = match super::delay::distance_delay(*distance) {
                    Ok(0) => "within 12\" of the officer, at once",
                    Ok(1) => "12-24\" from the officer, a turn later",
                    _ => "beyond 24\" of the officer, two turns later",
                };
                format!(
                    "Order #{order} from {} reaches {} {distance:.1}\" away{roll}; it takes effect on turn {effective_turn} ({band}, APSoF I.C.1).",
                    issued_by.name, unit.name
                )
            }
            Event::OrderIgnored {
                unit,
                order,
                issued_by,
                reason,
                ..
            } => format!(
                "{} does not carry out order #{order} from {}: {reason}.",
                unit.name, issued_by.name
            ),
            Event::OrderNotCarriedOut {
                unit,
                order,
                step,
                reason,
            } => format!(
                "{} cannot carry out step {} of order #{order}: {reason}.",
                unit.name,
                step + 1
            ),
            Event::StepCompleted { unit, order, step } => format!(
                "{} has completed step {} of order #{order}.",
                unit.name,
                step + 1
            ),
            Event::OfficerMoved {
                officer,
                from,
                to,
                double_time,
                note,
            } => format!(
                "{} rides from {} to {}{}{}.",
                officer.name,
                p(from),
                p(to),
                if *double_time { " at double time" } else { "" },
                if note.is_empty() {
                    String::new()
                } else {
                    format!(" ({note})")
                }
            ),
            Event::Contact {
                a,
                b,
                total_a,
                total_b,
                loser,
                morale_lost,
                castings_a,
                castings_b,
                dice_a,
                dice_b,
            } => {
                let total = |u: &UnitRef, t: &u32| {
                    if k(u) {
                        format!("{} ({t})", u.name)
                    } else {
                        u.name.clone()
                    }
                };
                let (na, nb) = (total(a, total_a), total(b, total_b));
                let mut told = match loser {
                    Some(l) if k(l) => format!(
                        "{na} and {nb} are in contact; {} loses {morale_lost} morale (contact dice totals in brackets, APSoF VI.D.3).",
                        l.name
                    ),
                    Some(l) => format!("{na} and {nb} are in contact; {} gives ground.", l.name),
                    None => format!("{na} and {nb} are in contact; neither gives way."),
                };
                // The working (issue #14): each side the reader knows, its
                // castings engaged and dice; the difference only when he
                // knows both totals.
                let mut parts = Vec::new();
                for (u, c, d, t) in [
                    (a, castings_a, dice_a, total_a),
                    (b, castings_b, dice_b, total_b),
                ] {
                    if k(u) && !d.is_empty() {
                        parts.push(format!(
                            "{} {c} castings engaged, {}",
                            u.name,
                            pool_words(d, *t)
                        ));
                    }
                }
                if !parts.is_empty() {
                    let diff = if k(a) && k(b) {
                        format!(
                            "; difference {} / 3 = {morale_lost} level(s) lost by the lower",
                            total_a.abs_diff(*total_b)
                        )
                    } else {
                        String::new()
                    };
                    told.push_str(&format!(
                        " Working: {}{diff} (APSoF VI.D.3.i-iv).",
                        parts.join("; ")
                    ));
                }
                told
            }
            Event::RallyAttempt {
                unit,
                die,
                modified_roll,
                officer,
                officer_was_hit,
                from,
                to,
                base_modifier,
                officer_modifier,
                bad_officer_die,
            } => {
                let with = match officer {
                    Some(o) if *officer_was_hit => format!(", shaken by the loss of {}", o.name),
                    Some(o) => format!(" with {}", o.name),
                    None => String::new(),
                };
                if k(unit) {
                    let mut told = format!(
                        "{} tries to rally{with}: rolled {die}, {modified_roll} modified; morale {from} → {to} (APSoF VI.E).",
                        unit.name
                    );
                    // The working (issue #14), when the stored figures add
                    // up (events stored before them have none).
                    if i32::from(*die) + base_modifier + officer_modifier == *modified_roll {
                        let bad = bad_officer_die
                            .map(|b| format!(" (the bad officer rolled {b})"))
                            .unwrap_or_default();
                        let hit = if *officer_was_hit {
                            ", an officer hit with the unit"
                        } else {
                            ""
                        };
                        told.push_str(&format!(
                            " Working: die {die} {base_modifier:+} base morale (VI.E.2.i) {officer_modifier:+} officer{hit}{bad} (VI.E.2.ii) = {modified_roll}; the rally table gives {:+} level(s), never above base nor below 0 (APSoF VI.E.2).",
                            super::morale::rally_table(*modified_roll)
                        ));
                    }
                    told
                } else {
                    format!(
                        "{} tries to rally{with} and {}.",
                        unit.name,
                        morale_word(*from, *to)
                    )
                }
            }
            Event::Retreated {
                unit,
                from,
                to,
                away_from,
            } => {
                let away = away_from
                    .as_ref()
                    .map(|e| format!(", away from {}", e.name))
                    .unwrap_or_default();
                if k(unit) {
                    format!(
                        "{} falls back from {} to {}{away}.",
                        unit.name,
                        p(from),
                        p(to)
                    )
                } else {
                    // Told because it fell back from the reader's own men,
                    // whether or not it is still in sight where it stopped:
                    // where it is now is for the report's sightings to say.
                    format!("{} falls back{away}.", unit.name)
                }
            }
            Event::Surrendered { unit, castings } => format!(
                "{} has no way back and surrenders ({castings} castings).",
                unit.name
            ),
            Event::Broke { unit, cause } => format!("{} breaks ({cause}).", unit.name),
            Event::Captured { unit, castings, by } => format!(
                "{castings} castings of {} are captured{}.",
                unit.name,
                by.as_ref()
                    .map(|b| format!(" by {}", b.name))
                    .unwrap_or_default()
            ),
            Event::GunsLost { unit, guns } => {
                format!("{} abandons its {guns} guns to the enemy.", unit.name)
            }
            Event::Panic {
                unit,
                broken,
                panic,
                saving,
                morale_lost,
                panic_dice,
                saving_dice,
            } => {
                if k(unit) {
                    let mut told = format!(
                        "{} sees {} break: panic {panic} against saving {saving}, loses {morale_lost} morale (APSoF VI.D.2).",
                        unit.name, broken.name
                    );
                    // The working (issue #14): both units are the reader's.
                    if !panic_dice.is_empty() {
                        let sum = |d: &[u8]| d.iter().map(|&x| u32::from(x)).sum::<u32>();
                        let saved = if saving_dice.is_empty() {
                            "no saving dice (fewer than 4 castings, 2 crew)".to_string()
                        } else {
                            format!(
                                "saving dice {} = {}",
                                dice_words(saving_dice),
                                sum(saving_dice)
                            )
                        };
                        told.push_str(&format!(
                            " Working: panic dice {} = {}, / 7 = {panic} (VI.D.2.iv); {saved}, / 10 = {saving} (VI.D.2.v); loss {panic} - {saving} = {morale_lost}, never below 0 (VI.D.2.vi).",
                            dice_words(panic_dice),
                            sum(panic_dice)
                        ));
                    }
                    told
                } else if *morale_lost > 0 {
                    format!("{} sees {} break and wavers.", unit.name, broken.name)
                } else {
                    format!("{} sees {} break and stands firm.", unit.name, broken.name)
                }
            }
            Event::DoubleQuick {
                unit,
                from,
                to,
                roll,
                morale_lost,
                base_morale,
            } => {
                if k(unit) {
                    let column = if *base_morale > 0 {
                        format!(" in the base morale {base_morale} column of the table")
                    } else {
                        String::new()
                    };
                    format!(
                        "{} moves at the double from {} to {} (rolled {roll}{column}, loses {morale_lost} morale, APSoF VI.D.4).",
                        unit.name,
                        p(from),
                        p(to)
                    )
                } else {
                    format!(
                        "{} moves at the double from {} to {}.",
                        unit.name,
                        p(from),
                        p(to)
                    )
                }
            }
            Event::CrewsMounted { unit } => format!(
                "{} puts its gunners up on the limbers and caissons to move at the double from next turn.",
                unit.name
            ),
            Event::DoubleQuickRefused { unit, morale } => format!(
                "{} is too shaken (morale {morale}) to move at the double and marches instead.",
                unit.name
            ),
            Event::Moved {
                unit,
                from,
                to,
                distance,
                half,
                stop,
            } => {
                if k(unit) && *distance < 0.05 && stop != "arrived" {
                    // A move that could not be made says why (issue #14).
                    format!("{} could not move from {}: {stop}.", unit.name, p(from))
                } else if k(unit) {
                    format!(
                        "{} moves {distance:.1}\"{} from {} to {} ({stop}).",
                        unit.name,
                        if *half { " (half move)" } else { "" },
                        p(from),
                        p(to)
                    )
                } else {
                    // Where it started may have been out of sight.
                    format!("{} is seen moving to {}.", unit.name, p(to))
                }
            }
            Event::Met { a, b } => format!(
                "{} and {} make for the same ground and meet between.",
                a.name, b.name
            ),
            Event::HaltedShort { unit, of, at } => {
                if k(unit) {
                    format!(
                        "{} halts at {}, short of the ground {} reached.",
                        unit.name,
                        p(at),
                        of.name
                    )
                } else {
                    // The enemy sees where it halted, not whom it gave way to.
                    format!("{} halts at {}.", unit.name, p(at))
                }
            }
            Event::MoraleChanged {
                unit,
                from,
                to,
                reason,
            } => {
                if k(unit) {
                    format!("{}: morale {from} → {to} ({reason}).", unit.name)
                } else {
                    format!("{} {} ({reason}).", unit.name, morale_word(*from, *to))
                }
            }
            Event::Casualties {
                unit,
                castings,
                reason,
            } => {
                if k(unit) {
                    format!("{} loses {castings} castings ({reason}).", unit.name)
                } else {
                    format!("{} takes losses ({reason}).", unit.name)
                }
            }
            Event::FormationChanged { unit, from, to } => {
                format!("{} changes formation from {from} to {to}.", unit.name)
            }
            Event::FacingChanged { unit, from, to } => {
                format!("{} turns from {from:.0}° to {to:.0}°.", unit.name)
            }
            Event::LyingDown { unit, lying } => format!(
                "{} {}.",
                unit.name,
                if *lying { "lies down" } else { "stands up" }
            ),
            Event::FireOrder {
                a,
                b,
                roll_a,
                roll_b,
                first,
            } => format!(
                // V.B.2 "Units receiving and firing in the same turn": `a`
                // fires on `b`, which fires this turn too (on `a` or on
                // another unit): each rolls for who fires first.
                "{} fires on {}, which also fires this turn: {}{} (APSoF V.B.2).",
                a.name,
                b.name,
                first
                    .as_ref()
                    .map(|f| format!("{} fires first", f.name))
                    .unwrap_or_else(|| "both fire together".into()),
                if k(a) && k(b) {
                    format!(", rolling {roll_a} against {roll_b}")
                } else {
                    String::new()
                },
            ),
            Event::Fired {
                unit,
                target,
                range,
                base_effectiveness,
                effectiveness,
                modifiers,
                castings_firing,
                dice_total,
                casualties,
                save_total,
                morale_lost,
                perilous,
                perilous_why,
                with,
                split_fire,
                attack_dice,
                save_dice,
                band,
                alternate,
                ..
            } => {
                let firing = if with.is_empty() {
                    let part = if *split_fire {
                        ", part of its split fire"
                    } else {
                        ""
                    };
                    if k(unit) {
                        format!(
                            "{} ({castings_firing} castings{part}) fires on {} at {range}\": effectiveness {effectiveness}, dice {dice_total}",
                            unit.name, target.name
                        )
                    } else {
                        format!("{} fires on {} at {range}\"", unit.name, target.name)
                    }
                } else {
                    // Combined fire (V.F.1): the lead's own share is what
                    // the others leave of the total.
                    let others: u32 = with.iter().map(|w| w.castings_firing).sum();
                    let lead = castings_firing.saturating_sub(others);
                    let mut names = vec![unit.name.as_str()];
                    names.extend(with.iter().map(|w| w.unit.name.as_str()));
                    let all = and_list(&names);
                    if k(unit) {
                        let mut each = vec![format!("{} {lead} castings at {range}\"", unit.name)];
                        each.extend(with.iter().map(|w| {
                            format!(
                                "{} {} castings at {}\" (effectiveness {})",
                                w.unit.name, w.castings_firing, w.range, w.effectiveness
                            )
                        }));
                        format!(
                            "{all} combine their fire on {} ({}): effectiveness {effectiveness}, dice {dice_total}",
                            target.name,
                            each.join("; ")
                        )
                    } else {
                        format!("{all} combine their fire on {}", target.name)
                    }
                };
                let mut told = if k(target) {
                    format!(
                        "{firing}: {casualties} casualt{}, {morale_lost} morale lost.",
                        if *casualties == 1 { "y" } else { "ies" }
                    )
                } else if *casualties > 0 {
                    format!("{firing}: the enemy is hit.")
                } else {
                    format!("{firing}: no effect is seen.")
                };
                // The working (issue #14), as `adjutant calc fire` gives
                // it: the attack to the side that fired, the save to the
                // side that was hit; both to the umpire.
                if !alternate.is_empty() {
                    // X replaces V's divide and save: the cell is the
                    // working, told to the firer (who rolled the die) and
                    // the umpire; the side hit sees its loss above.
                    if k(unit) {
                        told.push_str(&format!(
                            " Working: base effectiveness {base_effectiveness} at {range}\"; {}; {alternate}.",
                            if modifiers.is_empty() {
                                "no modifiers (APSoF V.B.1.ii)".to_string()
                            } else {
                                format!("modifiers {}", modifiers.join(", "))
                            }
                        ));
                    } else if k(target) && *casualties > 0 {
                        // The side hit rolled the defender's die, if the
                        // cell asked for one: that much it knows.
                        match save_dice.first() {
                            Some(d) => told.push_str(&format!(
                                " (APSoF X alternate fire tables: our die {d} against the table.)"
                            )),
                            None => told.push_str(
                                " (APSoF X alternate fire tables: the table asked no die of ours.)",
                            ),
                        }
                    }
                } else if k(unit) {
                    told.push_str(&fire_attack_working(
                        band,
                        *range,
                        *base_effectiveness,
                        *effectiveness,
                        modifiers,
                        perilous_why,
                        !with.is_empty(),
                        attack_dice,
                        *dice_total,
                        *casualties,
                    ));
                }
                if alternate.is_empty() && k(target) && *casualties > 0 {
                    told.push_str(&fire_save_working(
                        *casualties,
                        save_dice,
                        *save_total,
                        *morale_lost,
                        *perilous,
                        perilous_why,
                    ));
                }
                told
            }
            // Told without the roll or the morale numbers: an enemy that
            // sees the colours go down learns no more than that (the dice
            // log keeps the roll for the umpire).
            Event::ObstacleWork {
                unit,
                obstacle,
                feature,
                turns,
                of,
            } => {
                let (what, rule) = obstacle_words(*obstacle);
                format!(
                    "{} works at {what} {feature}: turn {turns} of {of} ({rule}).",
                    unit.name
                )
            }
            Event::ObstacleCleared {
                unit,
                obstacle,
                feature,
                width,
            } => match obstacle {
                Obstacle::Abatis => format!(
                    "{} has cleared a path {width:.1}\" wide through {feature}: open ground now (APSoF VIII.D).",
                    unit.name
                ),
                Obstacle::Moat => format!(
                    "{} has filled in {width:.1}\" of {feature} in front of it: no longer an obstacle there (APSoF VIII.E).",
                    unit.name
                ),
            },
            Event::PontoonWork {
                unit,
                task,
                pontoons,
                turns,
                of,
            } => {
                let what = match task {
                    PontoonTask::Unload => "unloads",
                    PontoonTask::Cross => "crosses in",
                };
                format!(
                    "{} {what} {pontoons}: turn {turns} of {of} (APSoF IV.E.2).",
                    unit.name
                )
            }
            Event::PontoonsAfloat {
                unit,
                pontoons,
                boats,
            } => format!(
                "{} has unloaded {pontoons} from their wagons: {boats} boat{} on the water, {} castings a trip (APSoF IV.E.2).",
                unit.name,
                if *boats == 1 { "" } else { "s" },
                boats.saturating_mul(crate::rules::iron_brigade::pontoons::CASTINGS_PER_BOAT)
            ),
            Event::CrossedByPontoon {
                unit,
                stream,
                trips,
                turns,
                to,
            } => {
                if k(unit) {
                    format!(
                        "{} has crossed {stream} in pontoon boats ({trips} trip{}, {turns} turn{}) and stands on the far bank at {} (APSoF IV.E.2).",
                        unit.name,
                        if *trips == 1 { "" } else { "s" },
                        if *turns == 1 { "" } else { "s" },
                        p(to)
                    )
                } else {
                    format!(
                        "{} lands from boats on the far bank of {stream} at {}.",
                        unit.name,
                        p(to)
                    )
                }
            }
            Event::PontoonLandingBlocked { unit, by, at } => {
                // A friend is named; an enemy is only "troops" (the men in
                // the boats see someone on the bank, not whose regiment).
                let whom = if by.side == unit.side {
                    by.name.clone()
                } else {
                    "enemy troops".to_string()
                };
                match at {
                    Some(at) => format!(
                        "{} lands short at {}, nearer the water: {whom} stand where it would have formed (APSoF IV.E.2).",
                        unit.name,
                        p(at)
                    ),
                    None => format!(
                        "{} waits in the boats: {whom} stand on the far bank where it would land, with no room even at the water's edge; it lands when the ground is clear (APSoF IV.E.2).",
                        unit.name
                    ),
                }
            }
            Event::FiredBeforeOrder {
                unit,
                order,
                effective_turn,
            } => format!(
                "{} fires at will this turn: order #{order} has not reached it yet and takes effect on turn {effective_turn} (APSoF I.C.1, the delay by the officer's distance); until then the unit keeps to its previous orders, and a unit without active orders may always fire (I.B.4.i.b).",
                unit.name
            ),
            Event::PontoonWorkStopped { unit, task, reason } => {
                let what = match task {
                    PontoonTask::Unload => "unloading the pontoon boats",
                    PontoonTask::Cross => "its crossing in the pontoon boats",
                };
                format!(
                    "{} stops {what} ({reason}); it must start again.",
                    unit.name
                )
            }
            Event::ObstacleWorkStopped {
                unit,
                obstacle,
                reason,
            } => {
                let what = match obstacle {
                    Obstacle::Abatis => "clearing its path through the abatis",
                    Obstacle::Moat => "filling in the ditch",
                };
                format!(
                    "{} stops {what} ({reason}); the work must start again.",
                    unit.name
                )
            }
            Event::RegimentalCommand {
                unit,
                levels_lost,
                roll,
                needed,
                lost,
                base_from,
                base_to,
            } => {
                let told = if !*lost {
                    format!(
                        "{}'s regimental command stands after the loss of {levels_lost} morale levels.",
                        unit.name
                    )
                } else if base_from != base_to {
                    format!(
                        "{} loses its regimental command under fire and falls a class in quality.",
                        unit.name
                    )
                } else {
                    format!(
                        "{} loses its regimental command under fire: it can no longer rally, nor advance without an officer.",
                        unit.name
                    )
                };
                // The working, to the unit's own side and the umpire: the
                // VII.G table's row (levels lost) and column (base morale)
                // give the lowest roll that loses the command.
                if k(unit) {
                    format!(
                        "{told} Working: {levels_lost} morale levels lost in one check, base morale {base_from}: {needed}-6 loses it; rolled {roll} (APSoF VII.G){}.",
                        if *lost && base_from != base_to {
                            format!("; base morale {base_from} -> {base_to}")
                        } else {
                            String::new()
                        }
                    )
                } else {
                    told
                }
            }
            Event::SplitOff {
                unit,
                new_unit,
                castings,
            } => {
                if k(unit) {
                    format!(
                        "{} splits off {castings} castings as {}.",
                        unit.name, new_unit.name
                    )
                } else {
                    format!("{} splits in two.", unit.name)
                }
            }
            Event::Combined {
                unit,
                into,
                castings,
                morale,
            } => {
                if k(unit) {
                    format!(
                        "{} ({castings} castings) joins {}, whose morale is now {morale}.",
                        unit.name, into.name
                    )
                } else {
                    format!("{} joins {}.", unit.name, into.name)
                }
            }
            Event::LeftTheField { unit, castings, at } => {
                if k(unit) {
                    format!(
                        "{} retreats off the table at {} and leaves the field with {castings} castings.",
                        unit.name,
                        p(at)
                    )
                } else {
                    format!(
                        "{} retreats off the table at {} and is gone.",
                        unit.name,
                        p(at)
                    )
                }
            }
            Event::Pinned { unit, went_prone } => format!(
                "{} is pinned{}.",
                unit.name,
                if *went_prone {
                    " and goes to ground"
                } else {
                    ""
                }
            ),
            Event::SniperFired {
                unit,
                officer,
                range,
                effectiveness,
                dice_total,
                hit,
                replacement_turn,
            } => {
                // "Berdan's Sharpshooters fire", not "… Sharpshooters's
                // sharpshooters".
                let who = if unit.name.to_lowercase().contains("sharpshooter") {
                    unit.name.clone()
                } else {
                    format!("{}'s sharpshooters", unit.name)
                };
                let shot = if k(unit) {
                    format!(
                        "{who} fire at {} at {range}\" (effectiveness {effectiveness}, dice {dice_total})",
                        officer.name
                    )
                } else {
                    format!("{who} fire at {}", officer.name)
                };
                match (hit, replacement_turn) {
                    (true, Some(t)) if knows(officer.side) => {
                        format!("{shot}: he is hit; a replacement arrives on turn {t}.")
                    }
                    (true, _) => format!("{shot}: he is hit."),
                    (false, _) => format!("{shot}: he is unhurt."),
                }
            }
            Event::OfficerHit {
                officer,
                with_unit,
                replacement_turn,
                roll,
                ..
            } => {
                if knows(officer.side) {
                    format!(
                        "{} is hit beside {}; a replacement arrives on turn {replacement_turn}.{}",
                        officer.name,
                        with_unit.name,
                        officer_hit_working(*roll)
                    )
                } else {
                    format!(
                        "{} is hit beside {}.{}",
                        officer.name,
                        with_unit.name,
                        officer_hit_working(*roll)
                    )
                }
            }
            Event::OfficerMissed {
                officer,
                with_unit,
                roll,
            } => format!(
                "{} comes through the fire on {} unhurt.{}",
                officer.name,
                with_unit.name,
                officer_hit_working(*roll)
            ),
            Event::OfficerCasualty {
                officer,
                roll,
                result,
                removed,
                captured_by,
                dice,
                ..
            } => {
                let what = match result {
                    CasualtyResult::ShotThroughChest => {
                        "is shot through the chest and will not live"
                    }
                    CasualtyResult::LosesLeg => "is hit in the knee and carried to the rear",
                    CasualtyResult::ThighWound => "is wounded in the thigh but keeps command",
                    CasualtyResult::HorseShot => "has his horse shot from under him",
                    CasualtyResult::StaffOfficerHit => "loses a staff officer beside him",
                    CasualtyResult::ShotsScatter => "is missed by scattered shots",
                    CasualtyResult::PrivateHit => "sees a private fall a few yards off",
                    CasualtyResult::ArmWound => "is hit in the arm",
                    CasualtyResult::ScalpWound => "is grazed on the scalp but keeps command",
                    CasualtyResult::LosesArm => "is hit in the shoulder and carried off",
                    CasualtyResult::Killed => "is killed outright",
                };
                let taken = if captured_by.is_some() {
                    " and is taken prisoner"
                } else {
                    ""
                };
                let gone = if *removed {
                    "; he leaves the field"
                } else {
                    ""
                };
                // An enemy's die stays out (see above); what befell him is
                // what the men saw.
                let die = if knows(officer.side) && dice.len() == 2 {
                    format!(" (SFRM Table 3: 2d6 {} = {roll})", dice_words(dice))
                } else if knows(officer.side) {
                    format!(" (SFRM Table 3, {roll})")
                } else {
                    String::new()
                };
                format!("{} {what}{taken}{gone}{die}.", officer.name)
            }
            Event::OfficerReplacementDue {
                officer,
                replacement_turn,
                replacement_rating,
                ..
            } => format!(
                "{}'s replacement, a {replacement_rating} officer, arrives on turn {replacement_turn}.",
                officer.name
            ),
            Event::Sfrm { sfrm } => sfrm.describe(),
        }
    }
}

/// What a unit is doing to an obstacle, and the rule: ("clearing a path
/// through", "APSoF VIII.D").
fn obstacle_words(o: Obstacle) -> (&'static str, &'static str) {
    match o {
        Obstacle::Abatis => ("clearing a path through", "APSoF VIII.D"),
        Obstacle::Moat => ("filling in", "APSoF VIII.E"),
    }
}

/// Whether `side` may be told of `event` (APSoF V.C.3: one sees only what
/// one's troops can see). Private events (orders, officers' rides) go to
/// their own side only. Any other event is told when it involves one of the
/// side's own units or officers, or an enemy unit the side saw at the end
/// of the turn. Enemy officers are never in [`Visibility`], so an event
/// about an enemy officer alone is not told.
pub fn visible_to(side: SideId, event: &Event, visibility: &Visibility) -> bool {
    if let Event::Sfrm { sfrm } = event {
        return sfrm.visible_to(side);
    }
    let parties = event.parties();
    if event.is_private() {
        return parties.first().is_some_and(|(_, s)| *s == side);
    }
    parties.iter().any(|(subject, s)| {
        *s == side || matches!(subject, Subject::Unit(id) if visibility.seen.contains_key(id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::sight::{Observer, SeenBy};

    fn unit(id: u32, side: u8) -> UnitRef {
        UnitRef {
            id: UnitId(id),
            side: SideId(side),
            name: format!("unit {id}"),
        }
    }

    /// V.B.1.v: when the quotient is more than the target loses, the
    /// working gives both and says why ("24 / 3 gives 1" stood unexplained
    /// against a one-casting target).
    #[test]
    fn v_b_1_v_a_capped_fire_says_why_in_its_working() {
        let w = fire_attack_working("", 4, 3, 3, &[], &[], false, &[6, 6, 6, 6], 24, 1);
        assert!(
            w.contains("24 / 3 gives 8 casualties, of which 1 falls on the target"),
            "{w}"
        );
        assert!(
            w.contains("no more castings than it has (APSoF V.B.1.iii-v)"),
            "{w}"
        );
        let w = fire_attack_working("", 4, 3, 3, &[], &[], false, &[6, 6], 12, 4);
        assert!(
            w.contains("12 / 3 gives 4 casualties (APSoF V.B.1.iii-v)."),
            "{w}"
        );
        assert!(!w.contains("of which"), "{w}");
    }

    /// V.B.2 rolls between a unit and its target that fires this turn (at
    /// it or at another unit): told as "fires on …, which also fires this
    /// turn", not as an exchange of fire between the two.
    #[test]
    fn v_b_2_the_fire_order_is_told_without_claiming_an_exchange() {
        let ev = Event::FireOrder {
            a: unit(1, 0),
            b: unit(9, 1),
            roll_a: 4,
            roll_b: 4,
            first: None,
        };
        let all = ev.describe();
        assert_eq!(
            all,
            "unit 1 fires on unit 9, which also fires this turn: both fire together, rolling 4 against 4 (APSoF V.B.2)."
        );
        assert!(!all.contains("exchange"), "{all}");
    }

    /// VII.G: the regimental command roll carries its working to the
    /// unit's side (row, column, roll), and only the outcome to others.
    #[test]
    fn vii_g_the_command_roll_is_told_with_its_working_to_its_side() {
        let ev = Event::RegimentalCommand {
            unit: unit(2, 0),
            levels_lost: 3,
            roll: 5,
            needed: 4,
            lost: true,
            base_from: 5,
            base_to: 4,
        };
        let own = ev.describe_as(&|s| s == SideId(0));
        assert_eq!(
            own,
            "unit 2 loses its regimental command under fire and falls a class in quality. Working: 3 morale levels lost in one check, base morale 5: 4-6 loses it; rolled 5 (APSoF VII.G); base morale 5 -> 4."
        );
        let other = ev.describe_as(&|s| s == SideId(1));
        assert!(!other.contains("Working"), "{other}");
        assert!(!other.contains("rolled"), "{other}");
    }

    /// V.H.2: an officer's roll in the line of fire is told with its die
    /// and what hits.
    #[test]
    fn v_h_2_the_officer_roll_carries_its_working() {
        let officer = OfficerRef {
            id: OfficerId(1),
            side: SideId(0),
            name: "Gibbon".into(),
        };
        let ev = Event::OfficerMissed {
            officer,
            with_unit: unit(2, 0),
            roll: 4,
        };
        assert_eq!(
            ev.describe(),
            "Gibbon comes through the fire on unit 2 unhurt. Working: rolled 4; an officer in the line of fire is hit on 5 or 6 if mounted, on 6 if on foot (APSoF V.H.2)."
        );
    }

    /// A unit that halted short of a friend is told to the enemy only when
    /// the enemy sees it, and then without the friend it gave way to.
    #[test]
    fn a_halt_short_of_a_friend_is_told_only_of_the_unit_seen() {
        let ev = Event::HaltedShort {
            unit: unit(7, 1),
            of: unit(8, 1),
            at: Pos::new(3.0, 4.0),
        };
        let mut vis = Visibility::default();
        let seen = SeenBy {
            observer: Observer::Unit(UnitId(1)),
            from: Pos::default(),
            distance: 10.0,
        };
        vis.seen.insert(UnitId(8), seen);
        assert!(!visible_to(SideId(0), &ev, &vis), "only the friend is seen");
        vis.seen.insert(UnitId(7), seen);
        assert!(visible_to(SideId(0), &ev, &vis));
        let told = ev.describe_as(&|s| s == SideId(1));
        assert!(told.contains("unit 8"), "{told}");
        let told = ev.describe_as(&|s| s == SideId(0));
        assert_eq!(told, "unit 7 halts at (3.0, 4.0).");
    }

    #[test]
    fn enemy_moves_are_told_only_when_seen() {
        let ev = Event::Moved {
            unit: unit(7, 1),
            from: Pos::new(0.0, 0.0),
            to: Pos::new(0.0, 5.0),
            distance: 5.0,
            half: false,
            stop: "arrived".into(),
        };
        let mut vis = Visibility::default();
        assert!(visible_to(SideId(1), &ev, &vis));
        assert!(!visible_to(SideId(0), &ev, &vis));
        vis.seen.insert(
            UnitId(7),
            SeenBy {
                observer: Observer::Unit(UnitId(1)),
                from: Pos::default(),
                distance: 10.0,
            },
        );
        assert!(visible_to(SideId(0), &ev, &vis));
    }

    /// An enemy that falls back from the reader's own men is told of (his
    /// unit is a party), but not where it went: it may have gone out of
    /// sight, and where it is now is the sightings' business.
    #[test]
    fn an_enemy_falling_back_from_our_men_is_told_without_places() {
        let ev = Event::Retreated {
            unit: unit(7, 1),
            from: Pos::new(22.7, 32.0),
            to: Pos::new(22.7, 32.3),
            away_from: Some(unit(1, 0)),
        };
        assert!(visible_to(SideId(0), &ev, &Visibility::default()));
        let ours = ev.describe_as(&|s| s == SideId(0));
        assert_eq!(ours, "unit 7 falls back, away from unit 1.");
        let theirs = ev.describe_as(&|s| s == SideId(1));
        assert!(
            theirs.contains("from (22.7, 32.0) to (22.7, 32.3)"),
            "{theirs}"
        );
    }

    #[test]
    fn orders_stay_private_even_when_the_unit_is_seen() {
        let ev = Event::StepCompleted {
            unit: unit(7, 1),
            order: 3,
            step: 0,
        };
        let mut vis = Visibility::default();
        vis.seen.insert(
            UnitId(7),
            SeenBy {
                observer: Observer::Unit(UnitId(1)),
                from: Pos::default(),
                distance: 10.0,
            },
        );
        assert!(!visible_to(SideId(0), &ev, &vis));
        assert!(visible_to(SideId(1), &ev, &vis));
    }

    #[test]
    fn being_fired_on_is_told_to_the_target_side() {
        let ev = Event::Fired {
            unit: unit(7, 1),
            target: unit(1, 0),
            range: 6,
            base_effectiveness: 5,
            effectiveness: 5,
            modifiers: vec![],
            castings_firing: 16,
            dice_total: 14,
            casualties: 2,
            save_total: 9,
            morale_lost: 1,
            split_move: false,
            perilous: false,
            perilous_why: vec![],
            with: vec![],
            split_fire: false,
            attack_dice: vec![4, 5, 5],
            save_dice: vec![4, 5],
            band: String::new(),
            alternate: String::new(),
        };
        assert!(visible_to(SideId(0), &ev, &Visibility::default()));
        assert!(ev.describe().contains("fires on unit 1 at 6\""));
        assert_eq!(
            ev.subjects(),
            vec![Subject::Unit(UnitId(7)), Subject::Unit(UnitId(1))]
        );
    }

    /// The side hit is told which clause of V.G made its unit's situation
    /// perilous, not a bare "V.G" (issue #14, found playing the demo).
    #[test]
    fn the_side_hit_is_told_why_its_unit_was_perilous() {
        let ev = Event::Fired {
            unit: unit(7, 1),
            target: unit(1, 0),
            range: 12,
            base_effectiveness: 4,
            effectiveness: 2,
            modifiers: vec!["defender in perilous situation -2".into()],
            castings_firing: 6,
            dice_total: 9,
            casualties: 4,
            save_total: 23,
            morale_lost: 17,
            split_move: false,
            perilous: true,
            perilous_why: vec!["V.G.1.ii first fire at troops never under fire".into()],
            with: vec![],
            split_fire: false,
            attack_dice: vec![4, 2, 3],
            save_dice: vec![4, 1, 3, 6, 6, 3],
            band: String::new(),
            alternate: String::new(),
        };
        let told = ev.describe_as(&|s| s == SideId(0));
        assert!(
            told.contains("perilous x10, V.G.1.ii first fire at troops never under fire)"),
            "{told}"
        );
    }
}
