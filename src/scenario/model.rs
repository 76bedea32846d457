//! The validated scenario: what the rest of Adjutant reads.
//!
//! Every value here has passed validation (see `validate.rs`), so callers can
//! rely on names resolving, positions lying on the table and batteries having
//! one crew casting per gun. Coordinates are table inches with the origin at
//! the bottom-left (south-west) corner, x east and y north.

use crate::rules::iron_brigade::kinds::{
    AreaKind, Arm, CommandClass, Formation, LineKind, MoraleClass, OfficerLevel, OfficerRating,
    Weapon,
};
use std::collections::BTreeMap;
use time::{PrimitiveDateTime, UtcOffset};

/// A point on the table, in inches from the south-west corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Inches east of the west edge.
    pub x: f64,
    /// Inches north of the south edge.
    pub y: f64,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// Straight-line distance in table inches.
    pub fn distance_to(self, other: Point) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

impl From<Point> for geo::Coord<f64> {
    fn from(p: Point) -> Self {
        geo::Coord { x: p.x, y: p.y }
    }
}

/// A facing as compass degrees: 0 = north, 90 = east, clockwise, in [0, 360).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Facing(pub f64);

impl Facing {
    pub fn degrees(self) -> f64 {
        self.0
    }

    /// Unit vector (east, north) the facing points along.
    pub fn direction(self) -> (f64, f64) {
        let r = self.0.to_radians();
        (r.sin(), r.cos())
    }
}

/// The table: width (west–east) and height (south–north) in inches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Table {
    pub width: f64,
    pub height: f64,
}

impl Table {
    /// Whether `p` lies on the table, edges included.
    pub fn contains(&self, p: Point) -> bool {
        p.x >= 0.0 && p.y >= 0.0 && p.x <= self.width && p.y <= self.height
    }
}

/// When the battle starts, in the battle's local time.
#[derive(Debug, Clone, PartialEq)]
pub struct StartTime {
    /// Local wall-clock date and time at the start of turn 1.
    pub local: PrimitiveDateTime,
    /// IANA zone of the battlefield, e.g. `America/New_York`, if given.
    pub time_zone: Option<String>,
    /// Offset from UTC of `local`, if given (before 1883 US places kept
    /// local mean time, which no zone name captures exactly).
    pub utc_offset: Option<UtcOffset>,
}

/// Area terrain (a polygon), APSoF IV.G and V.C.3.
#[derive(Debug, Clone, PartialEq)]
pub struct Area {
    pub kind: AreaKind,
    pub name: Option<String>,
    /// Outline, at least three points; closed implicitly.
    pub points: Vec<Point>,
}

impl Area {
    pub fn polygon(&self) -> geo::Polygon<f64> {
        polygon(&self.points)
    }
}

fn polygon(points: &[Point]) -> geo::Polygon<f64> {
    let ring: Vec<geo::Coord<f64>> = points.iter().map(|p| (*p).into()).collect();
    geo::Polygon::new(geo::LineString::from(ring), Vec::new())
}

/// Current of a stream, which sets the fordable depth (APSoF IV.E.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Current {
    Strong,
    Weak,
    None,
}

impl Current {
    pub const ALL: &'static [(&'static str, Current)] = &[
        ("strong", Current::Strong),
        ("weak", Current::Weak),
        ("none", Current::None),
    ];
}

/// A ford: a point on a stream where it may be crossed, with its water depth
/// in real-world inches (APSoF IV.E.1 compares this with 27.5"–51").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ford {
    pub at: Point,
    pub depth_inches: f64,
}

/// Water of a stream (only for `LineKind::Stream`).
#[derive(Debug, Clone, PartialEq)]
pub struct Water {
    /// Depth of the water away from fords, real-world inches.
    pub depth_inches: f64,
    pub current: Current,
    pub fords: Vec<Ford>,
    /// Pontoon boats at the stream (APSoF IV.E.2).
    pub pontoons: Vec<Pontoons>,
}

/// Pontoon boats of one side at a stream (APSoF IV.E.2): "Each pontoon boat
/// may carry four castings. Pontoon boats move at a rate of 2\" per turn on
/// water." `water_inches` is the table inches of water the boats cross
/// there (a stream is drawn as a line; its width at the crossing is the
/// designer's). Boats still on their wagons take four turns to unload.
#[derive(Debug, Clone, PartialEq)]
pub struct Pontoons {
    /// The side whose boats they are, as the scenario's side is named.
    pub side: String,
    /// On the bank, within 1" of the stream's line.
    pub at: Point,
    pub boats: u32,
    pub water_inches: f64,
    pub on_wagons: bool,
    /// The heavy-equipment unit whose wagons carry the boats, by name
    /// (IV.E.2 "When on wagons, pontoon boats move like heavy equipment"):
    /// the boats go where it goes until they are unloaded at the stream.
    pub train: Option<String>,
}

/// Linear terrain (a polyline), APSoF IV.G.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub kind: LineKind,
    pub name: Option<String>,
    /// At least two points.
    pub points: Vec<Point>,
    /// Present exactly when `kind` is `Stream`.
    pub water: Option<Water>,
}

impl Line {
    pub fn line_string(&self) -> geo::LineString<f64> {
        let coords: Vec<geo::Coord<f64>> = self.points.iter().map(|p| (*p).into()).collect();
        geo::LineString::from(coords)
    }
}

/// A contour of a hill: everything inside is at least `height_feet` above
/// the table's base level. Contours may nest (a higher one inside a lower).
#[derive(Debug, Clone, PartialEq)]
pub struct Contour {
    pub name: Option<String>,
    pub height_feet: f64,
    pub points: Vec<Point>,
}

impl Contour {
    pub fn polygon(&self) -> geo::Polygon<f64> {
        polygon(&self.points)
    }
}

/// All terrain on the table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Terrain {
    pub areas: Vec<Area>,
    pub lines: Vec<Line>,
    pub contours: Vec<Contour>,
}

impl Terrain {
    /// Height in feet of the ground at `p`: the greatest height of the
    /// contours containing it (0 outside every contour). Nested contours
    /// build a hill up; a point on a contour's edge counts as inside.
    pub fn height_at(&self, p: Point) -> f64 {
        use geo::Intersects;
        let pt = geo::Point::from(geo::Coord::from(p));
        self.contours
            .iter()
            .filter(|c| c.polygon().intersects(&pt))
            .map(|c| c.height_feet)
            .fold(0.0, f64::max)
    }

    /// The area terrain at `p` (edges included), in file order.
    pub fn areas_at(&self, p: Point) -> impl Iterator<Item = &Area> {
        use geo::Intersects;
        let pt = geo::Point::from(geo::Coord::from(p));
        self.areas
            .iter()
            .filter(move |a| a.polygon().intersects(&pt))
    }
}

/// A named place players may refer to in orders.
#[derive(Debug, Clone, PartialEq)]
pub struct Landmark {
    pub name: String,
    pub aliases: Vec<String>,
    pub at: Point,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub name: String,
}

/// A person playing one or more officers.
#[derive(Debug, Clone, PartialEq)]
pub struct Player {
    pub name: String,
    pub side: String,
    /// Mail addresses the player may send orders from; the first is where
    /// reports go.
    pub addresses: Vec<String>,
    /// IANA time zone name for deadlines in mail, e.g. `America/Chicago`.
    pub time_zone: Option<String>,
    /// Names of the officers this player writes orders for.
    pub officers: Vec<String>,
}

/// A general officer (APSoF II.D, II.F; SFRM general element).
#[derive(Debug, Clone, PartialEq)]
pub struct Officer {
    pub name: String,
    pub side: String,
    pub level: OfficerLevel,
    pub rating: OfficerRating,
    pub command_class: CommandClass,
    pub mounted: bool,
    pub position: Point,
    /// The officer's superior, by name; `None` at the top of a chain.
    pub superior: Option<String>,
}

/// How a unit's strength is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strength {
    /// Infantry or cavalry: castings of about 20 men (APSoF II.B.1, II.C.1).
    Castings(u32),
    /// A battery: one gun casting per gun and one crew casting per gun at the
    /// start (APSoF II.E); crew are lost one at a time.
    Battery { guns: u32, crew: u32 },
}

impl Strength {
    /// Castings that count for fire and morale dice: castings, or crew for
    /// a battery (APSoF V.B.1.iii).
    pub fn fighting_castings(self) -> u32 {
        match self {
            Strength::Castings(n) => n,
            Strength::Battery { crew, .. } => crew,
        }
    }
}

/// A regiment or battery at the start of the battle.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub name: String,
    pub aliases: Vec<String>,
    pub side: String,
    pub arm: Arm,
    pub strength: Strength,
    pub weapon: Weapon,
    /// Base morale 1..=6 (APSoF VI.B.1).
    pub base_morale: u8,
    /// The class named in the file, if the base morale was given by class.
    pub morale_class: Option<MoraleClass>,
    pub formation: Formation,
    pub position: Point,
    pub facing: Facing,
    /// Officer commanding the unit, by name.
    pub commander: String,
    /// Cavalry only: whether it starts mounted (APSoF III.H).
    pub mounted: bool,
    /// The legion the unit is a section of (APSoF VII.F), by name.
    pub legion: Option<String>,
    /// Moves in the IV.G heavy-equipment column: wagons, a pontoon train,
    /// siege guns (APSoF IV.E.2, IV.G).
    pub heavy_equipment: bool,
}

/// Where an objective is.
#[derive(Debug, Clone, PartialEq)]
pub enum ObjectivePlace {
    Landmark(String),
    Point(Point),
}

/// Victory points for a side that holds a place.
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    pub name: Option<String>,
    pub place: ObjectivePlace,
    /// The objective's centre, resolved from the landmark if needed.
    pub at: Point,
    /// Held when a unit of `side` is within this many inches of `at`.
    pub radius: f64,
    pub points: u32,
    /// The side that scores for holding it.
    pub side: String,
    /// The turn at whose end it is assessed (defaults to the last turn).
    pub turn: u32,
}

/// Optional rules (APSoF VII, VIII, X; SFRM), each off unless switched on.
pub const OPTION_KEYS: &[&str] = &[
    "split-units",
    "skirmishers",
    "regimental-command-loss",
    "horse-vs-mounted-artillery",
    "cannon-weights",
    "abatis",
    "moats",
    "hidden-movement",
    "alternate-fire-tables",
    "sfrm-officer-casualties",
    "courier-orders",
];

/// Optional rules switched on or off; keys are those of [`OPTION_KEYS`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Options {
    pub enabled: BTreeMap<String, bool>,
}

impl Options {
    /// Whether an optional rule is on; unknown or unset keys are off.
    pub fn is_on(&self, key: &str) -> bool {
        self.enabled.get(key).copied().unwrap_or(false)
    }

    /// Optional rules this scenario switches on that the engine does not
    /// apply yet ([`NOT_APPLIED`]), with what is missing: the game is
    /// played without them unless an umpire applies them by hand.
    pub fn not_applied(&self) -> Vec<(&'static str, &'static str)> {
        NOT_APPLIED
            .iter()
            .filter(|(key, _)| self.is_on(key))
            .copied()
            .collect()
    }
}

/// Optional rules the scenario format accepts but the turn engine does not
/// apply yet, and why (docs/scenario-format.md). `scenario check` and
/// `game create` say so, rather than let a designer believe they are in
/// force.
pub const NOT_APPLIED: &[(&str, &str)] = &[];

/// A complete, validated scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub description: Option<String>,
    /// Yards of ground per table inch (Iron Brigade: 25, APSoF IV.A).
    pub yards_per_inch: f64,
    /// Minutes of battle per turn (Iron Brigade: 2.5, APSoF IV.A).
    pub minutes_per_turn: f64,
    pub start: StartTime,
    pub last_turn: u32,
    pub table: Table,
    pub terrain: Terrain,
    pub landmarks: Vec<Landmark>,
    pub sides: Vec<Side>,
    pub players: Vec<Player>,
    pub officers: Vec<Officer>,
    pub units: Vec<Unit>,
    pub objectives: Vec<Objective>,
    pub options: Options,
    /// Address of the umpire, if the game has one.
    pub umpire: Option<String>,
    /// Whether enemies are known by name (`identities`, default hidden;
    /// `crate::identity`).
    pub identities: crate::identity::IdentityPolicy,
}

fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

impl Scenario {
    /// The officer with this name (case-insensitive).
    pub fn officer(&self, name: &str) -> Option<&Officer> {
        self.officers.iter().find(|o| same(&o.name, name))
    }

    /// The unit with this name or alias (case-insensitive).
    pub fn unit(&self, name: &str) -> Option<&Unit> {
        self.units
            .iter()
            .find(|u| same(&u.name, name) || u.aliases.iter().any(|a| same(a, name)))
    }

    /// The landmark with this name or alias (case-insensitive).
    pub fn landmark(&self, name: &str) -> Option<&Landmark> {
        self.landmarks
            .iter()
            .find(|l| same(&l.name, name) || l.aliases.iter().any(|a| same(a, name)))
    }

    /// The player with this name (case-insensitive).
    pub fn player(&self, name: &str) -> Option<&Player> {
        self.players.iter().find(|p| same(&p.name, name))
    }

    /// The side a unit (by name or alias) fights for.
    pub fn side_of_unit(&self, name: &str) -> Option<&str> {
        self.unit(name).map(|u| u.side.as_str())
    }

    /// The player who commands an officer, if any.
    pub fn player_of_officer(&self, officer: &str) -> Option<&Player> {
        self.players
            .iter()
            .find(|p| p.officers.iter().any(|o| same(o, officer)))
    }

    /// Units whose commander is this officer.
    pub fn units_of(&self, officer: &str) -> impl Iterator<Item = &Unit> {
        let officer = officer.to_string();
        self.units
            .iter()
            .filter(move |u| same(&u.commander, &officer))
    }

    /// The officer and then each superior in turn, up to the top of the
    /// chain. Validation rules out cycles; the walk also stops after as many
    /// steps as there are officers, so it always ends.
    pub fn chain_of_command<'a>(&'a self, officer: &str) -> ChainOfCommand<'a> {
        ChainOfCommand {
            scenario: self,
            next: self.officer(officer),
            remaining: self.officers.len(),
        }
    }
}

/// Iterator over an officer and his superiors; see
/// [`Scenario::chain_of_command`].
pub struct ChainOfCommand<'a> {
    scenario: &'a Scenario,
    next: Option<&'a Officer>,
    remaining: usize,
}

impl<'a> Iterator for ChainOfCommand<'a> {
    type Item = &'a Officer;

    fn next(&mut self) -> Option<&'a Officer> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let current = self.next.take()?;
        self.next = current
            .superior
            .as_deref()
            .and_then(|s| self.scenario.officer(s));
        Some(current)
    }
}
