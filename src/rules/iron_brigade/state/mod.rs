//! The pure battle state of an Iron Brigade game: units, officers, terrain and
//! the optional-rule switches, in table inches (1" = 25 yd, APSoF IV.A).
//!
//! The state is plain data with public fields so that the scenario loader,
//! the turn processor and tests can build it directly. Everything is kept in
//! `Vec`s in a caller-chosen order (never hash maps), so serialising the same
//! state always yields the same bytes — turn outcomes are hashed.
//!
//! Coordinates: x grows east, y grows north; facings are compass degrees
//! (0 = north, 90 = east, clockwise).

pub mod generate;

pub use generate::{corps_battle_turn, generate_corps_battle};

use super::kinds::{
    AreaKind, Arm, CommandClass, Formation, LineKind, OfficerLevel, OfficerRating, Weapon,
};
use serde::{Deserialize, Serialize};

/// Stable identifier of a unit (regiment, sub-unit or battery).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UnitId(pub u32);

/// Stable identifier of an officer ("personality", APSoF II.D).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct OfficerId(pub u32);

/// A side (army) in the battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SideId(pub u8);

/// A point on the table, in inches.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Pos {
    pub x: f64,
    pub y: f64,
}

impl Pos {
    pub const fn new(x: f64, y: f64) -> Self {
        Pos { x, y }
    }

    /// Straight-line distance in inches.
    pub fn distance(self, other: Pos) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }

    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

impl From<Pos> for geo::Coord<f64> {
    fn from(p: Pos) -> Self {
        geo::Coord { x: p.x, y: p.y }
    }
}

impl From<geo::Coord<f64>> for Pos {
    fn from(c: geo::Coord<f64>) -> Self {
        Pos { x: c.x, y: c.y }
    }
}

/// Depth of a formation in ranks (APSoF III.C.3). Used both for the ranks a
/// unit is drawn up in and for the ranks counted against a firer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ranks {
    Three,
    Two,
    One,
    Half,
    Third,
}

impl Ranks {
    /// The number of ranks as a fraction.
    pub fn value(self) -> f64 {
        match self {
            Ranks::Three => 3.0,
            Ranks::Two => 2.0,
            Ranks::One => 1.0,
            Ranks::Half => 0.5,
            Ranks::Third => 1.0 / 3.0,
        }
    }

    /// Open order is 1/2 rank deep or less (APSoF III.E.1).
    pub fn is_open_order(self) -> bool {
        matches!(self, Ranks::Half | Ranks::Third)
    }
}

/// A unit on the table (APSoF II, III).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    pub id: UnitId,
    pub name: String,
    pub side: SideId,
    pub arm: Arm,
    pub weapon: Weapon,
    /// Castings still in the ranks. For a battery these are the crew castings,
    /// one per gun served (APSoF II.E.1).
    pub castings: u32,
    /// Artillery only: guns in the battery when it took the field; decides the
    /// stand size (APSoF IX.B: 4-gun and 6-gun batteries). Zero for others.
    #[serde(default)]
    pub guns: u32,
    /// Base morale 1–6 (APSoF VI.B.1); not changed by combat (VI.B.2).
    pub base_morale: u8,
    /// Combat morale 0..=base (APSoF VI.B.3–4).
    pub combat_morale: u8,
    pub formation: Formation,
    /// Ranks the unit is drawn up in when in line (Three/Two/One) or
    /// skirmish order (Half/Third). Ignored by other formations, whose depth
    /// follows from the formation itself (APSoF III.G).
    pub formed_ranks: Ranks,
    /// Centre of the unit's footprint.
    pub position: Pos,
    /// Compass degrees the unit faces, 0 = north.
    pub facing: f64,
    /// APSoF III.J.
    #[serde(default)]
    pub lying_down: bool,
    /// Cavalry: mounted (true) or dismounted with 1/4 holding horses
    /// (APSoF II.C.2, III.H). Ignored for other arms.
    #[serde(default)]
    pub mounted: bool,
    /// The officer whose command the unit belongs to (APSoF I.C.1).
    pub commander: Option<OfficerId>,
    /// Whether the unit has fired once this game (APSoF V.B chart: first fire).
    #[serde(default)]
    pub first_fire_done: bool,
    /// Combat morale reached 0 and not yet rallied (APSoF VI.C).
    #[serde(default)]
    pub broken: bool,
    /// Retreating this turn (APSoF VI.C.1).
    #[serde(default)]
    pub retreating: bool,
    /// In trenches or other works: total cover (APSoF V.C.3).
    #[serde(default)]
    pub entrenched: bool,
    /// Moves as heavy equipment: wagons, siege guns, pontoon trains (APSoF IV.B).
    #[serde(default)]
    pub heavy_equipment: bool,
    /// The legion the unit is a section of (APSoF VII.F): while every
    /// section is in contact with the others they keep one morale level.
    /// Omitted while `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legion: Option<String>,
    /// What the turn engine remembers about the unit from turn to turn.
    #[serde(default)]
    pub marks: UnitMarks,
}

/// Where a battery last aimed: the acquired-fire bonus needs the same point
/// on consecutive turns (APSoF V.D.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AimPoint {
    pub at: Pos,
    pub turn: u32,
}

/// Turn-to-turn memory of a unit that the rules need but the table does not
/// show. All fields default, so snapshots written before they existed load.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UnitMarks {
    /// Combat morale 1: may not advance, and in the open with the enemy in
    /// sight goes prone (APSoF VI.C.6).
    #[serde(default)]
    pub pinned: bool,
    /// Artillery: the point fired at last (APSoF V.D.1).
    #[serde(default)]
    pub aim: Option<AimPoint>,
    /// Broken friends this unit has already taken a panic check for; a unit
    /// checks once per broken unit (APSoF VI.D.2.ii).
    #[serde(default)]
    pub panic_checked: Vec<UnitId>,
    /// Rating of an officer hit while in contact with the unit in the last
    /// fire phase: a deduction at the next rally (APSoF V.H.2, VI.E.2.ii).
    #[serde(default)]
    pub officer_hit_with: Option<OfficerRating>,
    /// Has been fired on before: first fire against troops never exposed
    /// to fire is a perilous situation (APSoF V.G.1.ii).
    #[serde(default)]
    pub been_under_fire: bool,
    /// Has been fired on by repeaters before: first fire from repeaters
    /// against troops never exposed to it is perilous (APSoF V.G.1.iii).
    /// Omitted from snapshots while false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub been_under_repeater_fire: bool,
    /// Broke and retreated off the table: out of the battle, its castings
    /// gone from the field though not captured (docs/rulings.md, "The table
    /// edge"). Omitted while false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub left_field: bool,
    /// The last turn the unit fired: firing shows it to the enemy (APSoF
    /// V.C.3), so its next turn's fire is no surprise (V.G.1.i). Omitted
    /// while `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fired_turn: Option<u32>,
    /// Joined another unit (APSoF VII.C.2): its castings are that unit's
    /// now. Omitted while `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub combined_into: Option<UnitId>,
    /// Foot artillery: the crews ride the limbers and caissons (APSoF
    /// VIII.B); kept when the battery unlimbers. Omitted while false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub crews_mounted: bool,
    /// APSoF VII.G (optional): the regimental command was lost, with the
    /// base morale the unit had when it was (elite and regular units then
    /// drop a class; poor and below may no longer rally nor advance without
    /// an officer). Omitted from snapshots while the command stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_lost: Option<u8>,
    /// APSoF V.G.2: the umpire declared the unit in a perilous situation
    /// for this turn (`SET <unit> perilous yes`); cleared when the turn
    /// ends. Omitted while false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub declared_perilous: bool,
    /// A protection of the APSoF V.B table the umpire gave the unit for
    /// this turn (`SET <unit> protection hasty-works`): works dug or
    /// cover the map does not show. Cleared when the turn ends. Omitted
    /// while `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_protection: Option<crate::rules::iron_brigade::fire::Protection>,
    /// Turns of work done on an obstacle in a row (APSoF VIII.D clearing a
    /// path through abatis, VIII.E filling a ditch: "2 turns"); dropped when
    /// a turn passes without work. Omitted while `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obstacle_work: Option<ObstacleWork>,
    /// Turns in a row spent unloading pontoon boats or crossing in them
    /// (APSoF IV.E.2). Omitted while `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pontoon_work: Option<PontoonWork>,
}

/// Work under way with pontoon boats (APSoF IV.E.2): unloading or
/// crossing, with which boats, and the whole turns done in a row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PontoonWork {
    pub task: crate::rules::iron_brigade::kinds::PontoonTask,
    pub pontoons: String,
    pub turns: u32,
}

/// Work under way on an obstacle (APSoF VIII.D, VIII.E): which, and how
/// many whole turns in a row the unit has worked on it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ObstacleWork {
    pub obstacle: crate::rules::iron_brigade::kinds::Obstacle,
    pub turns: u32,
}

impl Unit {
    /// Out of the battle: destroyed (no castings), combined into another
    /// unit (APSoF VII.C.2) or gone off the table. It takes no orders and
    /// is shown as gone.
    pub fn out_of_battle(&self) -> bool {
        self.castings == 0 || self.marks.left_field || self.marks.combined_into.is_some()
    }

    /// Cavalry that has dismounted. Dismounted cavalry fight and move as
    /// infantry (APSoF III.H).
    pub fn is_dismounted_cavalry(&self) -> bool {
        self.arm == Arm::Cavalry && !self.mounted
    }

    /// Horse holders of dismounted cavalry: a quarter of the castings, rounded
    /// up so that every horse has a holder (APSoF II.C.2; rounding is our
    /// ruling, docs/rulings-table.md).
    pub fn horse_holders(&self) -> u32 {
        if self.is_dismounted_cavalry() {
            self.castings.div_ceil(4)
        } else {
            0
        }
    }

    /// Castings standing in the firing line: all castings, less horse holders.
    pub fn castings_in_line(&self) -> u32 {
        self.castings - self.horse_holders()
    }

    /// Whether the unit counts as foot for frontage and movement: infantry and
    /// dismounted cavalry (APSoF III.C.2, III.H).
    pub fn on_foot(&self) -> bool {
        self.arm == Arm::Infantry || self.is_dismounted_cavalry()
    }
}

/// Whether an officer is still on the field (APSoF V.H).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OfficerStatus {
    Active,
    Wounded,
    Killed,
}

/// An officer ("personality") (APSoF II.D, II.F).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Officer {
    pub id: OfficerId,
    pub name: String,
    pub side: SideId,
    pub level: OfficerLevel,
    pub rating: OfficerRating,
    pub command_class: CommandClass,
    pub position: Pos,
    pub mounted: bool,
    /// Next officer up the chain of command.
    pub superior: Option<OfficerId>,
    pub status: OfficerStatus,
    /// Hit in the most recent fire phase (APSoF VI.E.2.ii rally deduction).
    #[serde(default)]
    pub hit_this_turn: bool,
    /// Who takes over when he is hit (APSoF V.H.3).
    #[serde(default)]
    pub succession: Succession,
}

/// How an officer's place is filled when he is hit (APSoF V.H.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Succession {
    /// The replacement's quality when the scenario names one; otherwise it
    /// is rolled on the V.H.3 quality table.
    #[serde(default)]
    pub successor_rating: Option<OfficerRating>,
    /// How many times the post has been filled by a replacement.
    #[serde(default)]
    pub replaced: u32,
}

/// A replacement officer on his way (APSoF V.H.3). He takes the hit
/// officer's id, so the chain of command and the orders naming the post stay
/// valid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingReplacement {
    pub officer: OfficerId,
    /// The turn at whose start he is placed on the table.
    pub arrives_turn: u32,
    pub rating: OfficerRating,
    /// The hit officer's position at the start of the turn he was hit.
    pub position: Pos,
}

/// An area feature (APSoF IV.G terrain, V.C.3 woods).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Area {
    pub name: String,
    pub kind: AreaKind,
    /// Exterior ring, at least three corners; closing the ring is optional.
    pub outline: Vec<Pos>,
}

/// Strength of a stream's current, which selects the fording column of the
/// APSoF IV.E.1 chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Current {
    Strong,
    WeakOrNone,
}

/// Water of a stream (APSoF IV.E.1). Depth is the real water depth in
/// inches, as in the rule's chart — not table inches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StreamWater {
    pub depth_in: f64,
    pub current: Current,
}

/// A linear feature: road, fence, wall or stream (APSoF IV.G, IV.E).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineFeature {
    pub name: String,
    pub kind: LineKind,
    pub path: Vec<Pos>,
    /// Streams only: water depth and current away from fords.
    #[serde(default)]
    pub water: Option<StreamWater>,
}

/// A ford: a point on a stream where the water is shallower (APSoF IV.E.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ford {
    pub name: String,
    pub position: Pos,
    /// Real water depth at the ford, in inches.
    pub depth_in: f64,
}

/// One contour of a hill: ground inside the outline is at least `height`
/// (in table inches; only the order of heights matters). Nested contours
/// stack like the terraced hill boards of APSoF IX.C.3.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hill {
    pub name: String,
    pub outline: Vec<Pos>,
    pub height: f64,
}

/// A named place orders can refer to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Landmark {
    pub name: String,
    pub position: Pos,
}

/// All terrain on the table.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Terrain {
    #[serde(default)]
    pub areas: Vec<Area>,
    #[serde(default)]
    pub lines: Vec<LineFeature>,
    #[serde(default)]
    pub fords: Vec<Ford>,
    #[serde(default)]
    pub hills: Vec<Hill>,
    #[serde(default)]
    pub landmarks: Vec<Landmark>,
    /// Paths cleared through abatis (APSoF VIII.D) and stretches of moat
    /// filled in (VIII.E) during the battle. Omitted while empty, so
    /// snapshots without any are as before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cleared: Vec<Clearing>,
    /// Pontoon boats at the streams (APSoF IV.E.2). Omitted while empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pontoons: Vec<Pontoons>,
}

/// Pontoon boats of one side at a stream (APSoF IV.E.2). On their wagons
/// they must be unloaded (four turns) before anyone crosses in them; afloat,
/// they carry infantry over, four castings a boat, at 2" a turn on water.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pontoons {
    /// "<stream> pontoons", numbered when a stream has several.
    pub name: String,
    /// The stream they are at, by name.
    pub stream: String,
    pub side: SideId,
    pub boats: u32,
    /// On the bank; after a crossing, on the bank the boats last reached.
    pub position: Pos,
    /// Table inches of water the boats cross there.
    pub water: f64,
    /// Unloaded from the wagons and on the water.
    pub afloat: bool,
    /// The heavy-equipment unit whose wagons carry them (APSoF IV.E.2
    /// "When on wagons, pontoon boats move like heavy equipment"): while
    /// on the wagons they are where it is.
    #[serde(default)]
    pub train: Option<UnitId>,
}

/// A way made through an obstacle by a unit's work: inside `outline` (a
/// strip along the working unit's facing, `width` inches across) the
/// obstacle no longer counts for movement (APSoF VIII.D "Paths may be
/// cleared through the abatis"; VIII.E a ditch "filled in").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clearing {
    pub obstacle: crate::rules::iron_brigade::kinds::Obstacle,
    /// The abatis area or moat line worked on.
    pub feature: String,
    /// The side whose men made it: only its reports show it.
    pub side: SideId,
    /// The unit that made it, by name.
    pub by: String,
    /// The turn it was finished.
    pub turn: u32,
    /// Inches across: castings × 1/2".
    pub width: f64,
    /// The strip, four corners.
    pub outline: Vec<Pos>,
}

/// Optional rules in force (APSoF VII, VIII, X). All default to off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Options {
    /// VIII.F hidden movement (needs a referee; the daemon is one): units at
    /// a wood's edge stay unseen until an enemy is within 4".
    #[serde(default)]
    pub hidden_movement: bool,
    /// VIII.C movement differences for light/heavy/mountain guns.
    #[serde(default)]
    pub cannon_weights: bool,
    /// VII splitting and combining units.
    #[serde(default)]
    pub advanced_organization: bool,
    /// VII.E skirmishers: detachments split off their parents as skirmish
    /// lines, and rejoin them. Omitted while false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skirmishers: bool,
    /// VII.G regimental command loss.
    #[serde(default)]
    pub regimental_command: bool,
    /// VIII.B horse and mounted artillery differences: foot batteries
    /// must mount their crews before they double quick.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub horse_vs_mounted_artillery: bool,
    /// VII.H snipers.
    #[serde(default)]
    pub snipers: bool,
    /// X alternate fire tables.
    #[serde(default)]
    pub alternate_fire: bool,
    /// SFRM Table 3 "Officer Casualties" for generals hit, beside APSoF V.H
    /// (scenario option `sfrm-officer-casualties`). Messengers use Table 3
    /// whatever this says.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sfrm_officer_casualties: bool,
    /// SFRM courier orders (scenario option `courier-orders`): orders to a
    /// unit beyond 24" of the issuing officer ride with a messenger instead
    /// of APSoF I.C.1's fixed delay.
    #[serde(default, skip_serializing_if = "is_false")]
    pub courier_orders: bool,
}

/// For `skip_serializing_if`: options added after the first pinned outcome
/// serialise only when on, so older states keep their bytes.
fn is_false(b: &bool) -> bool {
    !*b
}

/// A side's display name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub id: SideId,
    pub name: String,
}

/// The table, in inches from its south-west corner (the scenario's
/// `[table]`). Units may not leave it except by retreating off it
/// (docs/rulings.md, "The table edge").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TableSize {
    pub width: f64,
    pub height: f64,
}

impl TableSize {
    /// Whether `p` is on the table, edges included.
    pub fn contains(&self, p: Pos) -> bool {
        (0.0..=self.width).contains(&p.x) && (0.0..=self.height).contains(&p.y)
    }

    /// Where the straight line from `from` (on the table) to `to` first
    /// reaches the edge, or `None` when `to` is on the table too.
    pub fn exit_point(&self, from: Pos, to: Pos) -> Option<Pos> {
        if self.contains(to) {
            return None;
        }
        let (dx, dy) = (to.x - from.x, to.y - from.y);
        // The largest t in 0..=1 that keeps each coordinate in range.
        let limit = |p: f64, d: f64, max: f64| {
            if d > 0.0 {
                ((max - p) / d).max(0.0)
            } else if d < 0.0 {
                (-p / d).max(0.0)
            } else {
                f64::INFINITY
            }
        };
        let t = limit(from.x, dx, self.width)
            .min(limit(from.y, dy, self.height))
            .min(1.0);
        Some(Pos::new(
            (from.x + dx * t).clamp(0.0, self.width),
            (from.y + dy * t).clamp(0.0, self.height),
        ))
    }

    /// `p` moved onto the table: the nearest point on or inside its edge.
    pub fn clamp(&self, p: Pos) -> Pos {
        Pos::new(p.x.clamp(0.0, self.width), p.y.clamp(0.0, self.height))
    }
}

/// The whole battle at the start (or end) of a turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BattleState {
    pub turn: u32,
    #[serde(default)]
    pub sides: Vec<Side>,
    pub units: Vec<Unit>,
    pub officers: Vec<Officer>,
    pub terrain: Terrain,
    #[serde(default)]
    pub options: Options,
    /// Replacement officers not yet arrived (APSoF V.H.3).
    #[serde(default)]
    pub replacements: Vec<PendingReplacement>,
    /// The table's size; `None` (an unbounded table) in states built
    /// before it was kept, and in generated benchmark battles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableSize>,
    /// The table's ground scale and turn length, when not Iron Brigade's
    /// (1" = 25 yd, 2.5 min, APSoF IV.A): SFRM messengers' speed is
    /// converted with it (`rules::sfrm::Scale`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<crate::rules::sfrm::Scale>,
    /// SFRM correspondence: dispatches, messengers on the table, Table 3
    /// penalties. Part of the snapshot so the pure turn and replay carry it;
    /// left out of the JSON while empty, so a battle without dispatches
    /// serialises exactly as before SFRM was wired in.
    #[serde(
        default,
        skip_serializing_if = "crate::rules::sfrm::DispatchState::is_empty"
    )]
    pub sfrm: crate::rules::sfrm::DispatchState,
}

/// Something wrong in a battle state, found by [`BattleState::validate`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StateError {
    #[error("unit id {0} is used twice; give every unit its own id")]
    DuplicateUnit(u32),
    #[error("officer id {0} is used twice; give every officer its own id")]
    DuplicateOfficer(u32),
    #[error("{what} `{name}` has a coordinate that is not a finite number; fix its position")]
    NotFinite { what: &'static str, name: String },
    #[error("{what} `{name}` needs at least {need} points but has {have}; add the missing corners")]
    TooFewPoints {
        what: &'static str,
        name: String,
        need: usize,
        have: usize,
    },
    #[error("unit `{unit}` names commander {officer}, who is not in the battle")]
    UnknownCommander { unit: String, officer: u32 },
    #[error("officer `{officer}` names superior {superior}, who is not in the battle")]
    UnknownSuperior { officer: String, superior: u32 },
    #[error("unit `{unit}` cannot be in {formation} formation as {arm}; choose {allowed}")]
    FormationNotAllowed {
        unit: String,
        formation: Formation,
        arm: Arm,
        allowed: &'static str,
    },
    #[error("unit `{unit}` has combat morale {combat} above its base morale {base} (APSoF VI.B.4)")]
    MoraleAboveBase { unit: String, combat: u8, base: u8 },
    #[error("stream `{0}` has no water depth; give it a depth and current (APSoF IV.E)")]
    StreamWithoutWater(String),
}

impl BattleState {
    /// The unit with this id.
    pub fn unit(&self, id: UnitId) -> Option<&Unit> {
        self.units.iter().find(|u| u.id == id)
    }

    pub fn unit_mut(&mut self, id: UnitId) -> Option<&mut Unit> {
        self.units.iter_mut().find(|u| u.id == id)
    }

    pub fn officer(&self, id: OfficerId) -> Option<&Officer> {
        self.officers.iter().find(|o| o.id == id)
    }

    pub fn officer_mut(&mut self, id: OfficerId) -> Option<&mut Officer> {
        self.officers.iter_mut().find(|o| o.id == id)
    }

    /// Units of one side, in state order.
    pub fn units_of(&self, side: SideId) -> impl Iterator<Item = &Unit> {
        self.units.iter().filter(move |u| u.side == side)
    }

    /// Units not of `side`.
    pub fn enemies_of(&self, side: SideId) -> impl Iterator<Item = &Unit> {
        self.units.iter().filter(move |u| u.side != side)
    }

    /// The scale SFRM speeds are converted with: the scenario's, or Iron
    /// Brigade's.
    pub fn scale(&self) -> crate::rules::sfrm::Scale {
        self.scale
            .unwrap_or(crate::rules::sfrm::Scale::IRON_BRIGADE)
    }

    pub fn officers_of(&self, side: SideId) -> impl Iterator<Item = &Officer> {
        self.officers.iter().filter(move |o| o.side == side)
    }

    /// The chain of command above a unit: its commander, his superior, and so
    /// on up to the top (APSoF I.C.1). Stops at a missing officer or a loop,
    /// so a malformed state cannot hang the adjudicator.
    pub fn chain_of_command(&self, unit: UnitId) -> Vec<&Officer> {
        let mut chain: Vec<&Officer> = Vec::new();
        let mut next = self.unit(unit).and_then(|u| u.commander);
        while let Some(id) = next {
            if chain.iter().any(|o| o.id == id) {
                break;
            }
            match self.officer(id) {
                Some(o) => {
                    chain.push(o);
                    next = o.superior;
                }
                None => break,
            }
        }
        chain
    }

    /// Whether `officer` is in the unit's chain of command (APSoF I.C.1: an
    /// officer outside it must roll to be obeyed).
    pub fn in_chain_of_command(&self, unit: UnitId, officer: OfficerId) -> bool {
        self.chain_of_command(unit).iter().any(|o| o.id == officer)
    }

    /// The state as canonical JSON: the same state always gives the same
    /// bytes, because every collection is an ordered `Vec` and struct fields
    /// serialise in declaration order.
    pub fn canonical_json(&self) -> String {
        // Serialising plain structs, Vecs, numbers and strings cannot fail;
        // fall back to an empty object rather than panic if serde ever does.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }

    /// Check the state for mistakes a scenario author or a bug could make.
    pub fn validate(&self) -> Result<(), StateError> {
        let mut ids: Vec<u32> = self.units.iter().map(|u| u.id.0).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(StateError::DuplicateUnit(w[0]));
        }
        let mut oids: Vec<u32> = self.officers.iter().map(|o| o.id.0).collect();
        oids.sort_unstable();
        if let Some(w) = oids.windows(2).find(|w| w[0] == w[1]) {
            return Err(StateError::DuplicateOfficer(w[0]));
        }
        for u in &self.units {
            if !u.position.is_finite() || !u.facing.is_finite() {
                return Err(StateError::NotFinite {
                    what: "unit",
                    name: u.name.clone(),
                });
            }
            if let Some(c) = u.commander
                && self.officer(c).is_none()
            {
                return Err(StateError::UnknownCommander {
                    unit: u.name.clone(),
                    officer: c.0,
                });
            }
            if !u.formation.allowed_for(u.arm) {
                return Err(StateError::FormationNotAllowed {
                    unit: u.name.clone(),
                    formation: u.formation,
                    arm: u.arm,
                    allowed: if u.arm.is_artillery() {
                        "limbered or unlimbered"
                    } else {
                        "line, column, skirmish, company-column or en-masse"
                    },
                });
            }
            if u.combat_morale > u.base_morale {
                return Err(StateError::MoraleAboveBase {
                    unit: u.name.clone(),
                    combat: u.combat_morale,
                    base: u.base_morale,
                });
            }
        }
        for o in &self.officers {
            if !o.position.is_finite() {
                return Err(StateError::NotFinite {
                    what: "officer",
                    name: o.name.clone(),
                });
            }
            if let Some(s) = o.superior
                && self.officer(s).is_none()
            {
                return Err(StateError::UnknownSuperior {
                    officer: o.name.clone(),
                    superior: s.0,
                });
            }
        }
        let t = &self.terrain;
        for a in &t.areas {
            check_points("area", &a.name, &a.outline, 3)?;
        }
        for h in &t.hills {
            check_points("hill", &h.name, &h.outline, 3)?;
            if !h.height.is_finite() {
                return Err(StateError::NotFinite {
                    what: "hill",
                    name: h.name.clone(),
                });
            }
        }
        for l in &t.lines {
            check_points("line", &l.name, &l.path, 2)?;
            if l.kind == LineKind::Stream && l.water.is_none() {
                return Err(StateError::StreamWithoutWater(l.name.clone()));
            }
        }
        for f in &t.fords {
            check_points("ford", &f.name, std::slice::from_ref(&f.position), 1)?;
        }
        for m in &t.landmarks {
            check_points("landmark", &m.name, std::slice::from_ref(&m.position), 1)?;
        }
        Ok(())
    }
}

fn check_points(
    what: &'static str,
    name: &str,
    pts: &[Pos],
    need: usize,
) -> Result<(), StateError> {
    if pts.len() < need {
        return Err(StateError::TooFewPoints {
            what,
            name: name.to_string(),
            need,
            have: pts.len(),
        });
    }
    if pts.iter().any(|p| !p.is_finite()) {
        return Err(StateError::NotFinite {
            what,
            name: name.to_string(),
        });
    }
    Ok(())
}

/// Builders for tests and tools: a unit or officer with ordinary defaults.
impl Unit {
    /// A regular infantry regiment in a two-rank line with rifled muskets.
    pub fn infantry(id: u32, name: &str, side: u8, castings: u32, at: Pos, facing: f64) -> Unit {
        Unit {
            id: UnitId(id),
            name: name.to_string(),
            side: SideId(side),
            arm: Arm::Infantry,
            weapon: Weapon::RifledMusket,
            castings,
            guns: 0,
            base_morale: 5,
            combat_morale: 5,
            formation: Formation::Line,
            formed_ranks: Ranks::Two,
            position: at,
            facing,
            lying_down: false,
            mounted: false,
            commander: None,
            first_fire_done: false,
            broken: false,
            retreating: false,
            entrenched: false,
            heavy_equipment: false,
            legion: None,
            marks: UnitMarks::default(),
        }
    }

    /// A mounted regular cavalry regiment in a two-rank line.
    pub fn cavalry(id: u32, name: &str, side: u8, castings: u32, at: Pos, facing: f64) -> Unit {
        Unit {
            arm: Arm::Cavalry,
            weapon: Weapon::BreechloadingCarbine,
            mounted: true,
            ..Unit::infantry(id, name, side, castings, at, facing)
        }
    }

    /// An unlimbered foot battery of `guns` guns, one crew casting per gun.
    pub fn battery(id: u32, name: &str, side: u8, guns: u32, at: Pos, facing: f64) -> Unit {
        Unit {
            arm: Arm::Artillery,
            weapon: Weapon::TwelvePdrGun,
            castings: guns,
            guns,
            formation: Formation::Unlimbered,
            formed_ranks: Ranks::One,
            ..Unit::infantry(id, name, side, guns, at, facing)
        }
    }

    pub fn with_formation(mut self, formation: Formation) -> Unit {
        self.formation = formation;
        self
    }

    pub fn with_ranks(mut self, ranks: Ranks) -> Unit {
        self.formed_ranks = ranks;
        self
    }
}

impl Officer {
    /// A mounted, normal, regular brigade commander.
    pub fn brigadier(id: u32, name: &str, side: u8, at: Pos) -> Officer {
        Officer {
            id: OfficerId(id),
            name: name.to_string(),
            side: SideId(side),
            level: OfficerLevel::Brigade,
            rating: OfficerRating::Normal,
            command_class: CommandClass::Regular,
            position: at,
            mounted: true,
            superior: None,
            status: OfficerStatus::Active,
            hit_this_turn: false,
            succession: Succession::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> BattleState {
        let mut s = BattleState::default();
        let mut corps = Officer::brigadier(1, "Corps", 0, Pos::new(0.0, -20.0));
        corps.level = OfficerLevel::Corps;
        let mut bde = Officer::brigadier(2, "Gibbon", 0, Pos::new(0.0, -5.0));
        bde.superior = Some(OfficerId(1));
        s.officers = vec![corps, bde];
        let mut u = Unit::infantry(1, "2nd Wisconsin", 0, 20, Pos::new(0.0, 0.0), 0.0);
        u.commander = Some(OfficerId(2));
        s.units = vec![
            u,
            Unit::infantry(2, "Rebs", 1, 20, Pos::new(0.0, 30.0), 180.0),
        ];
        s
    }

    #[test]
    fn chain_of_command_runs_up_from_the_commander() {
        let s = small();
        let chain: Vec<u32> = s
            .chain_of_command(UnitId(1))
            .iter()
            .map(|o| o.id.0)
            .collect();
        assert_eq!(chain, vec![2, 1]);
        assert!(s.in_chain_of_command(UnitId(1), OfficerId(1)));
        assert!(s.chain_of_command(UnitId(2)).is_empty());
    }

    #[test]
    fn chain_of_command_survives_a_loop() {
        let mut s = small();
        if let Some(o) = s.officer_mut(OfficerId(1)) {
            o.superior = Some(OfficerId(2));
        }
        assert_eq!(s.chain_of_command(UnitId(1)).len(), 2);
    }

    #[test]
    fn canonical_json_round_trips_byte_identical() {
        let s = small();
        let a = s.canonical_json();
        let back: BattleState = serde_json::from_str(&a).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.canonical_json(), a);
    }

    #[test]
    fn validate_reports_duplicates_and_bad_references() {
        let mut s = small();
        assert_eq!(s.validate(), Ok(()));
        s.units[1].id = UnitId(1);
        assert_eq!(s.validate(), Err(StateError::DuplicateUnit(1)));
        let mut s = small();
        s.units[0].commander = Some(OfficerId(9));
        let e = s.validate().unwrap_err();
        assert!(e.to_string().contains("not in the battle"), "{e}");
        let mut s = small();
        s.units[0].formation = Formation::Limbered;
        assert!(matches!(
            s.validate(),
            Err(StateError::FormationNotAllowed { .. })
        ));
    }

    #[test]
    fn horse_holders_are_a_quarter_rounded_up() {
        let mut c = Unit::cavalry(1, "1st Maine", 0, 18, Pos::default(), 0.0);
        assert_eq!(c.horse_holders(), 0);
        c.mounted = false;
        assert_eq!(c.horse_holders(), 5);
        assert_eq!(c.castings_in_line(), 13);
        assert!(c.on_foot());
    }
}
