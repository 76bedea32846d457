//! The nouns of SFRM's brigade-scale game ("Scale & Game Play", Table 1):
//! elements grouped into units (brigades, artillery battalions, supply
//! trains), general elements of division, corps and army, formations, the
//! ground and the battle state.
//!
//! Positions are in SFRM table inches (1" = 100 yd, Table 1's scale). A
//! unit is kept as one point, the centre of its front, with a facing; a
//! general as the point of his base. Our rulings on what the point model
//! means for ranges, arcs and contact are in docs/rulings-sfrm.md
//! ("Brigade scale").

use super::super::table2::{SfrmStats, StatPenalty};
use serde::{Deserialize, Serialize};

/// A point on the table in SFRM inches (1" = 100 yd).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Pos {
    pub x: f64,
    pub y: f64,
}

impl Pos {
    pub const fn new(x: f64, y: f64) -> Pos {
        Pos { x, y }
    }

    pub fn distance(self, other: Pos) -> f64 {
        (other.x - self.x).hypot(other.y - self.y)
    }

    /// Bearing from `self` to `other` in degrees: 0 is +y ("north"), 90 is
    /// +x, clockwise, in `[0, 360)`.
    pub fn bearing_to(self, other: Pos) -> f64 {
        let b = (other.x - self.x).atan2(other.y - self.y).to_degrees();
        b.rem_euclid(360.0)
    }

    /// The point `dist` inches from here on `bearing` (degrees, as
    /// [`Pos::bearing_to`]).
    pub fn step(self, bearing: f64, dist: f64) -> Pos {
        let r = bearing.to_radians();
        Pos::new(self.x + dist * r.sin(), self.y + dist * r.cos())
    }
}

/// The smallest angle between two bearings, in degrees, `0..=180`.
pub fn angle_between(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(360.0);
    if d > 180.0 { 360.0 - d } else { d }
}

/// The two sides of the American Civil War; some tables differ by side
/// (Tables 5, 7 and 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    Union,
    Confederate,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Union => Side::Confederate,
            Side::Confederate => Side::Union,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::Union => "Union",
            Side::Confederate => "Confederate",
        }
    }
}

/// Troop and general quality (Tables 2, 5, 7, 9; "Morale, Routing,
/// Casualties & Dispersal").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Quality {
    Inferior,
    Regular,
    Superior,
}

impl Quality {
    pub fn name(self) -> &'static str {
        match self {
            Quality::Inferior => "inferior",
            Quality::Regular => "regular",
            Quality::Superior => "superior",
        }
    }
}

/// Small arms of infantry and cavalry elements (Table 6 rows; Table 9
/// columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SmallArm {
    /// Sabres, pistols, shotguns: 0" (contact only).
    SmallArms,
    /// Smoothbore muskets: 1".
    Muskets,
    /// Carbines: 1".
    Carbines,
    /// Rifled muskets: 2".
    Rifles,
    /// Sharpshooters or repeating rifles: 2", and +1 on Table 7.
    Repeaters,
}

impl SmallArm {
    pub fn name(self) -> &'static str {
        match self {
            SmallArm::SmallArms => "small arms",
            SmallArm::Muskets => "smoothbore muskets",
            SmallArm::Carbines => "carbines",
            SmallArm::Rifles => "rifled muskets",
            SmallArm::Repeaters => "sharpshooters or repeating rifles",
        }
    }
}

/// Artillery element types (Tables 4, 6 and 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gun {
    /// Gatling guns (horse artillery).
    Gatling,
    /// 6-pound smoothbore horse artillery.
    SixPounder,
    /// 12-pound smoothbore field artillery.
    TwelvePounder,
    /// 10-pound rifled field artillery.
    TenPounderRifled,
    /// 20-pound rifled siege artillery.
    TwentyPounderSiege,
}

impl Gun {
    pub fn name(self) -> &'static str {
        match self {
            Gun::Gatling => "Gatling guns",
            Gun::SixPounder => "6-pound smoothbore horse artillery",
            Gun::TwelvePounder => "12-pound smoothbore field artillery",
            Gun::TenPounderRifled => "10-pound rifled field artillery",
            Gun::TwentyPounderSiege => "20-pound rifled siege artillery",
        }
    }

    /// Smoothbore guns get +2 multiples firing double canister, rifled
    /// guns +1 (SFRM "Combat"). Gatlings count as rifled: our ruling,
    /// docs/rulings-sfrm.md.
    pub fn smoothbore(self) -> bool {
        matches!(self, Gun::SixPounder | Gun::TwelvePounder)
    }
}

/// What a unit's elements are (Table 1): every element of a unit is the
/// same type (SFRM "Army Costing System").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "arm")]
pub enum Arm {
    Infantry { weapon: SmallArm },
    Cavalry { weapon: SmallArm },
    Artillery { gun: Gun },
    Supply,
}

/// Basic formations and the special line formations ("Movement",
/// "Formation Changes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Formation {
    /// One file of elements; artillery limbered.
    MarchColumn,
    /// One or two ranks; artillery unlimbered.
    Line,
    /// Inside a town, all elements facing outward.
    DeployedInTown,
    /// Two ranks in chequerboard.
    Skirmish,
    /// Two files.
    BattleColumn,
    /// Two ranks, the second reversed.
    Square,
}

impl Formation {
    pub fn name(self) -> &'static str {
        match self {
            Formation::MarchColumn => "march column",
            Formation::Line => "line",
            Formation::DeployedInTown => "line deployed in town",
            Formation::Skirmish => "line-skirmish",
            Formation::BattleColumn => "line-battle column",
            Formation::Square => "line-emergency square",
        }
    }

    /// The special line formations a unit may only take or keep with an
    /// attached general ("Movement").
    pub fn needs_general(self) -> bool {
        matches!(
            self,
            Formation::Skirmish | Formation::BattleColumn | Formation::Square
        )
    }
}

/// A unit's id within the battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UnitId(pub u32);

/// A general element's id within the battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GeneralId(pub u32);

/// A unit: a brigade of infantry or cavalry (one or more elements), an
/// artillery battalion or a supply train (exactly one element), SFRM
/// "Scale & Game Play".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    pub id: UnitId,
    pub name: String,
    pub side: Side,
    pub arm: Arm,
    /// Elements left; casualties remove elements ("Combat").
    pub elements: u32,
    /// Elements in the front rank of a line (SFRM "Movement": never fewer
    /// than the second rank). Only read in [`Formation::Line`].
    pub front_rank: u32,
    /// `None` while the unit is green and has not yet seen the elephant
    /// (Table 5).
    pub quality: Option<Quality>,
    pub formation: Formation,
    /// Facing, in degrees (as [`Pos::bearing_to`]).
    pub facing: f64,
    /// Centre of the unit's front.
    pub pos: Pos,
    #[serde(default)]
    pub mounted: bool,
    #[serde(default)]
    pub prone: bool,
    #[serde(default)]
    pub routed: bool,
    /// Out of command in its side's last command & supply subphase
    /// ("Command": the marker).
    #[serde(default)]
    pub out_of_command: bool,
    #[serde(default)]
    pub dispersed: bool,
    /// Levels of entrenchment for its frontage ("Entrenching", 0–3).
    #[serde(default)]
    pub entrenchment: u8,
    /// Out of supply markers ("Supply"): set by the scenario or umpire.
    #[serde(default)]
    pub out_of_supply: u8,
    /// Fatigue in quarter levels ("Time, Weather & Daylight": ¼ a day of
    /// marching); Table 7 counts full levels.
    #[serde(default)]
    pub fatigue_quarters: u32,
    /// The divisional general whose brigade (or battalion) this is.
    #[serde(default)]
    pub division: Option<GeneralId>,
    /// What it has done today, for fatigue ("Time, Weather & Daylight").
    #[serde(default)]
    pub day: DayRecord,
}

/// A unit's day so far, for fatigue at the day's end ("Time, Weather &
/// Daylight").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DayRecord {
    #[serde(default)]
    pub fought: bool,
    #[serde(default)]
    pub entrenched: bool,
    /// Turns of daylight (dawn and dusk included) in which it moved.
    #[serde(default)]
    pub day_turns_moved: u32,
    /// Night-time turns in which it moved.
    #[serde(default)]
    pub night_turns_moved: u32,
}

impl Unit {
    /// Gone from play: dispersed or all elements lost.
    pub fn gone(&self) -> bool {
        self.dispersed || self.elements == 0
    }

    pub fn is_infantry_or_cavalry(&self) -> bool {
        matches!(self.arm, Arm::Infantry { .. } | Arm::Cavalry { .. })
    }

    pub fn is_artillery(&self) -> bool {
        matches!(self.arm, Arm::Artillery { .. })
    }

    /// Artillery in march column is limbered ("Movement").
    pub fn limbered(&self) -> bool {
        self.is_artillery() && self.formation == Formation::MarchColumn
    }

    /// Elements in the front rank: all of a one-rank line up to
    /// [`Unit::front_rank`]; one in march column (one file); two in battle
    /// column (two files); the larger half in skirmish order and square
    /// (two ranks). Our reading of "Formation Changes"; docs/rulings-sfrm.md.
    pub fn front_elements(&self) -> u32 {
        let n = self.elements;
        match self.formation {
            Formation::MarchColumn => n.min(1),
            Formation::BattleColumn => n.min(2),
            Formation::Skirmish | Formation::Square => n.div_ceil(2),
            Formation::Line | Formation::DeployedInTown => {
                self.front_rank.clamp(n.div_ceil(2), n.max(1)).min(n)
            }
        }
    }
}

/// A general element's level of command (Table 1, Table 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rank {
    Division,
    Corps,
    Army,
}

impl Rank {
    /// Cavalry figures on the base (Table 1): army 3, corps 2, division 1;
    /// Table 9 prices generals per figure.
    pub fn figures(self) -> u32 {
        match self {
            Rank::Division => 1,
            Rank::Corps => 2,
            Rank::Army => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rank::Division => "divisional",
            Rank::Corps => "corps",
            Rank::Army => "army",
        }
    }
}

/// A general element: a general and his staff (Table 1). Generals are not
/// units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct General {
    pub id: GeneralId,
    pub name: String,
    pub side: Side,
    pub rank: Rank,
    pub quality: Quality,
    /// Losses from Table 3 results.
    #[serde(default)]
    pub penalty: StatPenalty,
    pub pos: Pos,
    /// The unit he is in base contact with ("attach", Command ii).
    #[serde(default)]
    pub attached_to: Option<UnitId>,
    /// His superior: a division's corps or army general, a corps's army
    /// general.
    #[serde(default)]
    pub superior: Option<GeneralId>,
    /// Removed from play by Table 3.
    #[serde(default)]
    pub removed: bool,
    /// The command he holds when promoted above his own rank (he keeps
    /// his own statistics until reorganised: "Officer Casualties").
    #[serde(default)]
    pub role: Option<Rank>,
    /// Removed and already replaced by a promotion.
    #[serde(default)]
    pub replaced: bool,
}

impl General {
    /// The command he holds: his promotion's, else his rank.
    pub fn role_rank(&self) -> Rank {
        self.role.unwrap_or(self.rank)
    }

    /// Current statistics: Table 2 less his Table 3 losses, never below
    /// 1" (1) +1.
    pub fn stats(&self) -> SfrmStats {
        super::tables::table2(self.rank, self.quality).less(self.penalty)
    }
}

/// Kinds of ground ("Manoeuvre", Table 7, "Firing Arc & Target
/// Availability", "Firing From Higher Elevation").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Ground {
    /// Woods/forest: rough, cover, halves command range through it.
    Woods,
    /// Town: rough, cover.
    Town,
    /// River: rough; firing from it is fording.
    River,
    /// Sunken road: cover (a linear obstacle).
    SunkenRoad,
    /// A hill whose top is at `level` (higher than 0, the plain).
    Hill { level: u8 },
}

impl Ground {
    /// Rough terrain for movement: wood/forest, town or river (Manoeuvre v).
    pub fn rough(self) -> bool {
        matches!(self, Ground::Woods | Ground::Town | Ground::River)
    }

    /// Cover for sight and Table 7: woods/forest, town, sunken road.
    pub fn cover(self) -> bool {
        matches!(self, Ground::Woods | Ground::Town | Ground::SunkenRoad)
    }
}

/// An axis-aligned rectangle of ground.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Area {
    pub ground: Ground,
    pub min: Pos,
    pub max: Pos,
}

impl Area {
    pub fn contains(&self, p: Pos) -> bool {
        p.x >= self.min.x && p.x <= self.max.x && p.y >= self.min.y && p.y <= self.max.y
    }

    /// The stretch `[t0, t1]` (fractions of the way from `a` to `b`) of the
    /// segment inside this rectangle, if any (Liang–Barsky clipping).
    pub fn clip(&self, a: Pos, b: Pos) -> Option<(f64, f64)> {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let mut t0: f64 = 0.0;
        let mut t1: f64 = 1.0;
        for (p, q) in [
            (-dx, a.x - self.min.x),
            (dx, self.max.x - a.x),
            (-dy, a.y - self.min.y),
            (dy, self.max.y - a.y),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        (t0 <= t1).then_some((t0, t1))
    }

    /// Inches of the segment `a`–`b` inside this rectangle.
    pub fn length_inside(&self, a: Pos, b: Pos) -> f64 {
        self.clip(a, b)
            .map(|(t0, t1)| (t1 - t0) * a.distance(b))
            .unwrap_or(0.0)
    }
}

/// A road, as the line through its points ("Supply"; Table 4's "On
/// Road" column).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Road {
    #[serde(default)]
    pub name: String,
    pub points: Vec<Pos>,
}

impl Road {
    /// Where along the road (inches from its first point) the point of the
    /// road nearest `p` lies, and how far `p` is from it. `None` for a road
    /// of fewer than two points.
    pub fn locate(&self, p: Pos) -> Option<(f64, f64)> {
        let mut best: Option<(f64, f64)> = None;
        let mut run = 0.0;
        for w in self.points.windows(2) {
            let (a, b) = (w[0], w[1]);
            let len = a.distance(b);
            let t = if len > 0.0 {
                (((p.x - a.x) * (b.x - a.x) + (p.y - a.y) * (b.y - a.y)) / (len * len))
                    .clamp(0.0, 1.0)
            } else {
                0.0
            };
            let q = Pos::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
            let off = q.distance(p);
            if best.is_none_or(|(_, o)| off < o) {
                best = Some((run + t * len, off));
            }
            run += len;
        }
        best
    }

    /// The point `s` inches along the road (clamped to its ends), and the
    /// bearing of the road there (toward its end).
    pub fn at(&self, s: f64) -> (Pos, f64) {
        let mut run = 0.0;
        let mut last = (self.points.first().copied().unwrap_or_default(), 0.0);
        for w in self.points.windows(2) {
            let (a, b) = (w[0], w[1]);
            let len = a.distance(b);
            let bearing = a.bearing_to(b);
            if len > 0.0 && s <= run + len {
                let t = ((s - run) / len).clamp(0.0, 1.0);
                return (
                    Pos::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t),
                    bearing,
                );
            }
            run += len;
            last = (b, bearing);
        }
        last
    }
}

/// Weather of the day (Table 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Weather {
    Clear,
    Cold,
    Rain,
    Hot,
    Snow,
}

/// Seasons of Table 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Season {
    Spring,
    Summer,
    Fall,
    Winter,
}

/// Two enemy units in base-to-base contact, made by `a` charging `b`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    /// The charger.
    pub a: UnitId,
    /// The unit charged.
    pub b: UnitId,
    /// Bearing from `b` to where `a` charged from: the side of `b` the
    /// charge struck (for enfilade and arcs in contact).
    pub from_bearing: f64,
}

impl Contact {
    pub fn involves(&self, u: UnitId) -> bool {
        self.a == u || self.b == u
    }

    pub fn other(&self, u: UnitId) -> Option<UnitId> {
        if self.a == u {
            Some(self.b)
        } else if self.b == u {
            Some(self.a)
        } else {
            None
        }
    }
}

/// The whole SFRM battle: what the rules core reads and writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SfrmBattle {
    /// Turns played so far; the next turn is `turn + 1`.
    pub turn: u32,
    /// Clock time the first turn starts, minutes after midnight.
    pub start_minute: u32,
    pub season: Season,
    pub weather: Weather,
    /// The side that plays the first phase of each turn ("Turn Order").
    pub attacker: Side,
    pub units: Vec<Unit>,
    pub generals: Vec<General>,
    #[serde(default)]
    pub ground: Vec<Area>,
    #[serde(default)]
    pub contacts: Vec<Contact>,
    #[serde(default)]
    pub roads: Vec<Road>,
    /// Supply sources ("Supply": capital cities, towns with a port or
    /// railroad, not besieged or blockaded). With none listed the battle
    /// does not track supply (our ruling).
    #[serde(default)]
    pub supply_sources: Vec<SupplySource>,
    /// The table (the scenario's `[table]`), if the battle knows it: no
    /// unit or general moves off it (our ruling; SFRM plays on a table and
    /// has no rule for leaving it, docs/rulings-sfrm.md "Movement and
    /// manoeuvre"). A battle stored without one has no edge, as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<Table>,
}

/// The table's extent in SFRM inches, from the south-west corner (0, 0)
/// to (`width`, `height`); north is +y.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub width: f64,
    pub height: f64,
}

impl Table {
    pub fn contains(&self, p: Pos) -> bool {
        (-1e-9..=self.width + 1e-9).contains(&p.x) && (-1e-9..=self.height + 1e-9).contains(&p.y)
    }

    /// How far along the straight line `from` -> `to` (0..=1) a piece may
    /// go and stay on the table; 1 when `to` is on it. A piece already off
    /// the table (an old battle's) is not held.
    pub fn reach(&self, from: Pos, to: Pos) -> f64 {
        if !self.contains(from) || self.contains(to) {
            return 1.0;
        }
        let mut t: f64 = 1.0;
        for (a, b, hi) in [(from.x, to.x, self.width), (from.y, to.y, self.height)] {
            let d = b - a;
            if b < 0.0 && d != 0.0 {
                t = t.min((0.0 - a) / d);
            }
            if b > hi && d != 0.0 {
                t = t.min((hi - a) / d);
            }
        }
        t.clamp(0.0, 1.0)
    }

    /// Which edge a point beyond the table is past, in words.
    pub fn edge_of(&self, p: Pos) -> &'static str {
        if p.y > self.height {
            "north"
        } else if p.y < 0.0 {
            "south"
        } else if p.x > self.width {
            "east"
        } else {
            "west"
        }
    }
}

/// A supply source and the side it supplies.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SupplySource {
    pub side: Side,
    pub pos: Pos,
}

impl SfrmBattle {
    pub fn unit(&self, id: UnitId) -> Option<&Unit> {
        self.units.iter().find(|u| u.id == id)
    }

    pub fn unit_mut(&mut self, id: UnitId) -> Option<&mut Unit> {
        self.units.iter_mut().find(|u| u.id == id)
    }

    pub fn general(&self, id: GeneralId) -> Option<&General> {
        self.generals.iter().find(|g| g.id == id)
    }

    pub fn general_mut(&mut self, id: GeneralId) -> Option<&mut General> {
        self.generals.iter_mut().find(|g| g.id == id)
    }

    /// Units of `side` still in play.
    pub fn units_of(&self, side: Side) -> impl Iterator<Item = &Unit> {
        self.units
            .iter()
            .filter(move |u| u.side == side && !u.gone())
    }

    /// Generals of `side` still in play.
    pub fn generals_of(&self, side: Side) -> impl Iterator<Item = &General> {
        self.generals
            .iter()
            .filter(move |g| g.side == side && !g.removed)
    }

    /// The general attached to `unit`, if any (lowest id first).
    pub fn attached_general(&self, unit: UnitId) -> Option<&General> {
        self.generals
            .iter()
            .find(|g| !g.removed && g.attached_to == Some(unit))
    }

    /// Enemy units in contact with `unit`.
    pub fn in_contact(&self, unit: UnitId) -> Vec<UnitId> {
        let mut v: Vec<UnitId> = self
            .contacts
            .iter()
            .filter_map(|c| c.other(unit))
            .filter(|o| self.unit(*o).is_some_and(|u| !u.gone()))
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// The ground at `p` of the first area holding it that `want` accepts.
    pub fn ground_at(&self, p: Pos, want: impl Fn(Ground) -> bool) -> Option<Ground> {
        self.ground
            .iter()
            .find(|a| want(a.ground) && a.contains(p))
            .map(|a| a.ground)
    }

    /// Elevation at `p`: the highest hill holding it, else 0.
    pub fn elevation(&self, p: Pos) -> u8 {
        self.ground
            .iter()
            .filter(|a| a.contains(p))
            .filter_map(|a| match a.ground {
                Ground::Hill { level } => Some(level),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// Inches of the line `a`–`b` inside areas `want` accepts (areas are
    /// taken not to overlap).
    pub fn length_through(&self, a: Pos, b: Pos, want: impl Fn(Ground) -> bool) -> f64 {
        self.ground
            .iter()
            .filter(|ar| want(ar.ground))
            .map(|ar| ar.length_inside(a, b))
            .sum()
    }

    /// Clock time (minutes after midnight) at the start of turn `turn`
    /// (1-based): 30 minutes a turn (Table 1's scale).
    pub fn minute_of_turn(&self, turn: u32) -> u32 {
        self.start_minute.saturating_add(
            turn.saturating_sub(1)
                .saturating_mul(super::tables::TURN_MINUTES),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearings_and_angles() {
        let o = Pos::new(0.0, 0.0);
        assert!((o.bearing_to(Pos::new(0.0, 5.0)) - 0.0).abs() < 1e-9);
        assert!((o.bearing_to(Pos::new(5.0, 0.0)) - 90.0).abs() < 1e-9);
        assert!((angle_between(350.0, 10.0) - 20.0).abs() < 1e-9);
        let p = o.step(90.0, 4.0);
        assert!((p.x - 4.0).abs() < 1e-9 && p.y.abs() < 1e-9);
    }

    #[test]
    fn clipping_measures_the_stretch_inside_an_area() {
        let a = Area {
            ground: Ground::Woods,
            min: Pos::new(2.0, -1.0),
            max: Pos::new(5.0, 1.0),
        };
        assert!((a.length_inside(Pos::new(0.0, 0.0), Pos::new(10.0, 0.0)) - 3.0).abs() < 1e-9);
        assert_eq!(
            a.length_inside(Pos::new(0.0, 3.0), Pos::new(10.0, 3.0)),
            0.0
        );
    }

    #[test]
    fn sfrm_movement_front_rank_never_smaller_than_the_second() {
        let mut u = Unit {
            id: UnitId(1),
            name: "x".into(),
            side: Side::Union,
            arm: Arm::Infantry {
                weapon: SmallArm::Rifles,
            },
            elements: 5,
            front_rank: 1,
            quality: Some(Quality::Regular),
            formation: Formation::Line,
            facing: 0.0,
            pos: Pos::default(),
            mounted: false,
            prone: false,
            routed: false,
            out_of_command: false,
            dispersed: false,
            entrenchment: 0,
            out_of_supply: 0,
            fatigue_quarters: 0,
            division: None,
            day: DayRecord::default(),
        };
        assert_eq!(u.front_elements(), 3);
        u.front_rank = 5;
        assert_eq!(u.front_elements(), 5);
        u.formation = Formation::MarchColumn;
        assert_eq!(u.front_elements(), 1);
        u.formation = Formation::BattleColumn;
        assert_eq!(u.front_elements(), 2);
    }
}
