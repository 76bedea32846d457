//! Movement (APSoF IV; III.D, III.G, III.I formation and facing costs;
//! VIII.C cannon weights). Pure: given a state, a unit and what its orders
//! ask, say where it gets to and what happened on the way. Morale changes
//! and casualties are reported, never applied — the turn processor applies
//! them with the other rules.
//!
//! How a move is walked (docs/rulings-table.md):
//! - The route is sampled every [`STEP`] inches. At each sample the unit's
//!   whole footprint is tested against terrain and other units.
//! - Every terrain type the footprint touches, including where it starts,
//!   adds its IV.G modifier once (IV.C.1 "accumulate all modifiers"; the
//!   footprint test is IV.C.2 "slowest part of the unit").
//! - The allowance is the IV.G base plus formation bonus plus every modifier
//!   so far; the unit stops when it has gone that far. Half moves halve it.
//! - Entering terrain marked `*` stops the move just outside (IV.G).
//! - A stream deeper than the unit may ford aborts the move at the bank
//!   with one casualty and one morale level lost (IV.E.1).
//! - Enemy units stop the move at contact; friendly units may be passed
//!   through (IV.C.4–6), but the unit may not end its move on top of one.

use super::geometry::{Footprint, angle_between, bearing, formation_size};
use super::kinds::{AreaKind, Arm, Formation, LineKind, Obstacle, Weapon};
use super::state::{BattleState, Current, OfficerId, Pos, Ranks, Unit, UnitId};
use geo::{Distance, Euclidean, Intersects};
use serde::{Deserialize, Serialize};

/// Sampling interval along a route, inches.
pub const STEP: f64 = 0.1;
/// A unit whose centre is this close to a road may move by it.
pub const ROAD_JOIN: f64 = 1.0;
/// A stream is crossed at a ford when the ford point is this close to the
/// unit's footprint (our ruling).
pub const FORD_REACH: f64 = 1.0;
/// Oblique march: a unit may move up to this many degrees off its facing and
/// still be moving "in the direction it is facing" (IV.C.3, our ruling).
pub const OBLIQUE_LIMIT: f64 = 45.0;
/// Mover footprints are shrunk by this much when testing other units, so
/// units standing exactly side by side do not count as passing through.
const UNIT_INSET: f64 = 0.05;

/// The movement columns of the IV.G chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveClass {
    Infantry,
    Cavalry,
    Artillery,
    HeavyEquipment,
}

impl MoveClass {
    fn column(self) -> usize {
        match self {
            MoveClass::Infantry => 0,
            MoveClass::Cavalry => 1,
            MoveClass::Artillery => 2,
            MoveClass::HeavyEquipment => 3,
        }
    }
}

/// The chart column a unit moves in: dismounted cavalry move as infantry
/// (III.H: they "fight exactly like infantry"; our ruling extends it to
/// movement).
pub fn move_class(unit: &Unit) -> MoveClass {
    if unit.heavy_equipment {
        MoveClass::HeavyEquipment
    } else if unit.arm.is_artillery() {
        MoveClass::Artillery
    } else if unit.on_foot() {
        MoveClass::Infantry
    } else {
        MoveClass::Cavalry
    }
}

/// A row of the IV.G chart that a move can run into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TerrainType {
    Area(AreaKind),
    Wall,
    Fence,
    Road,
    Ford,
    /// Closed order moving through other units.
    ThroughUnits,
    /// A moat or ditch (APSoF VIII.E): infantry only, a whole turn.
    Moat,
}

const NO: Option<f64> = None;

/// IV.G modifier for a terrain row and column; `None` is `*`, not allowed.
/// Towns are not in the chart; we move through them as rough ground.
pub fn terrain_modifier(class: MoveClass, terrain: TerrainType) -> Option<f64> {
    let row: [Option<f64>; 4] = match terrain {
        TerrainType::Wall => [Some(-1.0), Some(-8.0), NO, NO],
        TerrainType::Fence => [Some(-1.0), Some(-4.0), Some(-5.0), Some(-5.0)],
        TerrainType::Area(AreaKind::SteepHill) => [Some(-2.0), Some(-6.0), Some(-9.0), NO],
        TerrainType::Area(AreaKind::Rough | AreaKind::Town) => {
            [Some(-2.0), Some(-7.0), Some(-8.0), NO]
        }
        TerrainType::Area(AreaKind::Woods) => [Some(-3.0), Some(-10.0), Some(-9.0), NO],
        TerrainType::Area(AreaKind::DenseWoods) => [Some(-4.0), Some(-11.0), NO, NO],
        TerrainType::Area(AreaKind::Swamp) => [Some(-4.0), Some(-9.0), NO, NO],
        // APSoF VIII.D: "Only infantry units may move through abatis. They
        // may move at 1/2 rough terrain speed": rough ground leaves infantry
        // 7 − 2 = 5", half of it 2.5", so −4.5 (our ruling, the chart has
        // no row).
        TerrainType::Area(AreaKind::Abatis) => [Some(-4.5), NO, NO, NO],
        TerrainType::Road => [Some(2.0), Some(4.0), Some(4.0), Some(3.0)],
        TerrainType::Ford => [Some(-4.0), Some(-8.0), Some(-7.0), Some(-6.0)],
        TerrainType::ThroughUnits => [Some(-2.0), Some(-4.0), NO, NO],
        // APSoF VIII.E: "Only infantry units may cross moats or ditches.
        // They take 1 complete turn to cross": no modifier, but the walk
        // stops at a moat and crosses it only as a whole turn's move.
        TerrainType::Moat => [Some(0.0), NO, NO, NO],
    };
    row.get(class.column()).copied().flatten()
}

/// Why a split move (I.B.4.ii) is not allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitBar {
    Broken,
    /// Base morale below regular (I.B.4.ii, VI.F).
    BaseMoraleBelowFive,
    /// Line only one rank deep (I.B.4.ii, III.G.1).
    OneRankLine,
    /// III.G.4.
    CompanyColumn,
    /// IV.G `**`/`***`/`****` rows.
    DenseWoods,
    Swamp,
    Ford,
    Road,
    ThroughUnits,
}

/// Whether the unit itself may split-move this turn (I.B.4.ii, III.G.1,
/// III.G.4, VI.F). Terrain can forbid it too: see
/// [`MoveOutcome::split_barred`].
pub fn split_move_bars(unit: &Unit) -> Vec<SplitBar> {
    let mut bars = Vec::new();
    if unit.broken || unit.combat_morale == 0 {
        bars.push(SplitBar::Broken);
    }
    if unit.base_morale < 5 {
        bars.push(SplitBar::BaseMoraleBelowFive);
    }
    if unit.formation == Formation::Line && unit.formed_ranks == Ranks::One {
        bars.push(SplitBar::OneRankLine);
    }
    if unit.formation == Formation::CompanyColumn {
        bars.push(SplitBar::CompanyColumn);
    }
    bars
}

/// Whether the unit is in open order: skirmish order 1/2 or 1/3 rank deep
/// (III.E), or broken, which always moves as open order (VI.C.1).
pub fn is_open_order(unit: &Unit) -> bool {
    unit.broken || (unit.formation == Formation::Skirmish && unit.formed_ranks.is_open_order())
}

/// IV.G base movement: infantry 7 (3 backwards), cavalry 14, foot artillery
/// 12, horse artillery 14, heavy equipment 10; with VIII.C cannon weights
/// when that option is on (light +1", heavy −1").
pub fn base_allowance(unit: &Unit, backwards: bool, cannon_weights: bool) -> f64 {
    let base = match move_class(unit) {
        MoveClass::Infantry if backwards => 3.0,
        MoveClass::Infantry => 7.0,
        MoveClass::Cavalry => 14.0,
        MoveClass::Artillery if unit.arm == Arm::HorseArtillery => 14.0,
        MoveClass::Artillery => 12.0,
        MoveClass::HeavyEquipment => 10.0,
    };
    let weight = if cannon_weights && unit.arm.is_artillery() {
        match cannon_weight(unit.weapon) {
            CannonWeight::Light => 1.0,
            CannonWeight::Heavy => -1.0,
            CannonWeight::Mountain | CannonWeight::Medium => 0.0,
        }
    } else {
        0.0
    };
    base + weight
}

/// VIII.C weight classes. Our assignment of the chart's guns to classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CannonWeight {
    Mountain,
    Light,
    Medium,
    Heavy,
}

pub fn cannon_weight(weapon: Weapon) -> CannonWeight {
    match weapon {
        Weapon::MountainRifle | Weapon::TwelvePdrMountainHowitzer => CannonWeight::Mountain,
        Weapon::SixPdrGun | Weapon::LightRifle => CannonWeight::Light,
        Weapon::HeavyRifle | Weapon::TwentyFourPdrHowitzer | Weapon::ThirtyTwoPdrHowitzer => {
            CannonWeight::Heavy
        }
        _ => CannonWeight::Medium,
    }
}

/// IV.G formation bonus. Open order +2/+2; column +1/+2; en masse and
/// company column +1/+1; line and artillery formations 0.
pub fn formation_bonus(unit: &Unit) -> f64 {
    let class = move_class(unit);
    if !matches!(class, MoveClass::Infantry | MoveClass::Cavalry) {
        return 0.0;
    }
    let cav = class == MoveClass::Cavalry;
    if is_open_order(unit) {
        return 2.0;
    }
    match unit.formation {
        Formation::Column => {
            if cav {
                2.0
            } else {
                1.0
            }
        }
        Formation::EnMasse | Formation::CompanyColumn => 1.0,
        _ => 0.0,
    }
}

/// Full or half move (I.B.4.i.a, I.B.4.ii.a).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pace {
    Full,
    Half,
}

/// What the orders ask of a move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveIntent {
    /// Points to pass through; the last is the destination.
    pub waypoints: Vec<Pos>,
    /// Follow the road the unit stands on to the road point nearest the
    /// destination (IV.G roads).
    pub by_road: bool,
    pub pace: Pace,
    /// Infantry stepping back without turning (IV.G: 3").
    pub backwards: bool,
}

impl MoveIntent {
    /// A full move straight to `to`, cross-country.
    pub fn to(to: Pos) -> MoveIntent {
        MoveIntent {
            waypoints: vec![to],
            by_road: false,
            pace: Pace::Full,
            backwards: false,
        }
    }
}

/// Why a move ended where it did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    Arrived,
    /// The allowance, after terrain, ran out.
    AllowanceUsed,
    /// The next step would have entered terrain the unit may not enter.
    Forbidden(TerrainType),
    /// The stream here is deeper than the unit may ford (IV.E.1).
    StreamTooDeep {
        depth_in: f64,
        max_in: f64,
    },
    /// Came into contact with an enemy unit.
    EnemyContact(UnitId),
    /// A unit that may not pass through others (artillery, heavy equipment)
    /// met one.
    UnitInTheWay(UnitId),
    /// The next leg is more than 45° off the unit's facing (IV.C.3).
    OutsideFrontArc,
    /// Reached a moat or ditch: it crosses next turn, which takes the whole
    /// turn (APSoF VIII.E).
    MoatReached,
    /// Crossed the moat it stood at: that is the turn's move (VIII.E).
    MoatCrossed,
}

/// IV.E.1: a failed crossing costs one casualty and one morale level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FordFailure {
    pub casualties: u32,
    pub morale_loss: u8,
}

/// A terrain row the move paid for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Entered {
    pub terrain: TerrainType,
    pub modifier: f64,
}

/// The result of a move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveOutcome {
    /// Start, each turning point reached, end.
    pub path: Vec<Pos>,
    pub end: Pos,
    pub facing: f64,
    /// Inches travelled by the centre.
    pub distance: f64,
    /// Final allowance after every modifier (halved for a half move).
    pub allowance: f64,
    pub entered: Vec<Entered>,
    pub stop: StopReason,
    /// Friendly units moved through, in id order.
    pub passed_through: Vec<UnitId>,
    /// Morale change for the mover: −1 when a closed-order unit moved
    /// through others (IV.C.5, IV.G ****).
    pub mover_morale: i8,
    /// Formed (closed-order, unbroken) units moved through, which get +1
    /// morale if they did not move this turn (IV.C.6); the caller knows who
    /// moved and applies it.
    pub through_ranks_bonus: Vec<UnitId>,
    pub ford_failure: Option<FordFailure>,
    /// Reasons the move itself forbids a split move.
    pub split_barred: Vec<SplitBar>,
    /// The unit stopped short so as not to end on top of a friendly unit.
    pub backed_off: bool,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MoveError {
    #[error("there is no unit with id {0}; check the unit list of the battle")]
    UnknownUnit(u32),
    #[error("there is no officer with id {0}; check the officer list of the battle")]
    UnknownOfficer(u32),
    #[error("the move for `{0}` has no destination; give at least one point to move to")]
    NoDestination(String),
    #[error("`{0}` is lying down and must be ordered to stand up before it moves (APSoF III.J)")]
    LyingDown(String),
    #[error("`{0}` is unlimbered and must limber up before it moves (APSoF III.D.2)")]
    Unlimbered(String),
    #[error(
        "`{0}` cannot move backwards; only infantry may step back (APSoF IV.G), so turn it first"
    )]
    BackwardsNotAllowed(String),
    #[error(
        "`{unit}` is {distance:.1}\" from the nearest road; march it onto the road before moving by road"
    )]
    NotOnRoad { unit: String, distance: f64 },
    #[error(
        "a destination or the unit's own position is not a finite point; check the coordinates"
    )]
    NotFinite,
}

/// Which stream-depth column applies (IV.E.1 chart). Heavy equipment is not
/// in the chart; we use the artillery limit.
pub fn max_ford_depth(class: MoveClass, current: Current) -> f64 {
    match (class, current) {
        (MoveClass::Infantry, Current::Strong) => 39.0,
        (MoveClass::Infantry, Current::WeakOrNone) => 51.0,
        (MoveClass::Cavalry, _) => 51.0,
        (MoveClass::Artillery | MoveClass::HeavyEquipment, _) => 27.5,
    }
}

/// A route: points and the cumulative distance at each.
struct Route {
    points: Vec<Pos>,
    cum: Vec<f64>,
}

impl Route {
    fn new(points: Vec<Pos>) -> Route {
        let mut pts: Vec<Pos> = Vec::with_capacity(points.len());
        for p in points {
            if pts.last().is_none_or(|q: &Pos| q.distance(p) > 1e-9) {
                pts.push(p);
            }
        }
        let mut cum = vec![0.0];
        for w in pts.windows(2) {
            let last = cum.last().copied().unwrap_or(0.0);
            cum.push(last + w[0].distance(w[1]));
        }
        Route { points: pts, cum }
    }

    fn length(&self) -> f64 {
        self.cum.last().copied().unwrap_or(0.0)
    }

    /// Point and leg bearing at distance `d`.
    fn at(&self, d: f64) -> (Pos, Option<f64>, usize) {
        for i in 1..self.points.len() {
            let (a, b) = (self.points[i - 1], self.points[i]);
            let (c0, c1) = (self.cum[i - 1], self.cum[i]);
            if d <= c1 || i + 1 == self.points.len() {
                let t = if c1 > c0 {
                    ((d - c0) / (c1 - c0)).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                let p = Pos::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
                return (p, Some(bearing(a, b)), i);
            }
        }
        (self.points.first().copied().unwrap_or_default(), None, 0)
    }
}

/// What is moving: a unit or an officer.
struct Mover {
    id: Option<UnitId>,
    side: super::state::SideId,
    class: MoveClass,
    frontage: f64,
    depth: f64,
    /// Closed order pays to pass through units and loses morale.
    closed_order: bool,
    breechloader: bool,
    /// Officers and open order pass through units freely.
    passes_freely: bool,
}

/// Plan a unit's move (APSoF IV). The unit is not changed; apply
/// [`MoveOutcome::end`] and [`MoveOutcome::facing`] to move it.
///
/// Facing: a cross-country move keeps the unit's facing; each leg must lie
/// within [`OBLIQUE_LIMIT`] of it (of its rear when stepping backwards),
/// otherwise the unit stops at the last waypoint it could reach. Turn the
/// unit first (a facing change, [`facing_change_cost`]) to march elsewhere.
/// A road move follows the road and ends facing along it (IV.G ***).
pub fn plan_move(
    state: &BattleState,
    unit_id: UnitId,
    intent: &MoveIntent,
) -> Result<MoveOutcome, MoveError> {
    plan_move_with(state, None, unit_id, intent)
}

/// [`plan_move`], with what every move planned on `state` shares worked
/// out once beforehand ([`MovePrep::new`] of this same state), as the
/// movement phase does for all its moves. The outcome is the same.
pub fn plan_move_with(
    state: &BattleState,
    prep: Option<&MovePrep>,
    unit_id: UnitId,
    intent: &MoveIntent,
) -> Result<MoveOutcome, MoveError> {
    let unit = state
        .unit(unit_id)
        .ok_or(MoveError::UnknownUnit(unit_id.0))?;
    if intent.waypoints.is_empty() {
        return Err(MoveError::NoDestination(unit.name.clone()));
    }
    if intent.waypoints.iter().any(|p| !p.is_finite())
        || !unit.position.is_finite()
        || !unit.facing.is_finite()
    {
        return Err(MoveError::NotFinite);
    }
    if unit.lying_down {
        return Err(MoveError::LyingDown(unit.name.clone()));
    }
    if unit.formation == Formation::Unlimbered {
        return Err(MoveError::Unlimbered(unit.name.clone()));
    }
    let class = move_class(unit);
    if intent.backwards && (class != MoveClass::Infantry || intent.by_road) {
        return Err(MoveError::BackwardsNotAllowed(unit.name.clone()));
    }
    let mut allowance = base_allowance(unit, intent.backwards, state.options.cannon_weights)
        + formation_bonus(unit);
    let mut entered = Vec::new();
    let mut split_barred = Vec::new();
    let mut stop_early = None;
    let route = if intent.by_road {
        let road = road_route(state, unit, intent)?;
        if let Some(m) = terrain_modifier(class, TerrainType::Road) {
            allowance += m;
            entered.push(Entered {
                terrain: TerrainType::Road,
                modifier: m,
            });
        }
        split_barred.push(SplitBar::Road);
        road
    } else {
        let ahead = if intent.backwards {
            unit.facing + 180.0
        } else {
            unit.facing
        };
        let mut pts = vec![unit.position];
        for w in &intent.waypoints {
            let last = pts.last().copied().unwrap_or(unit.position);
            if last.distance(*w) > 1e-9 && angle_between(bearing(last, *w), ahead) > OBLIQUE_LIMIT {
                stop_early = Some(StopReason::OutsideFrontArc);
                break;
            }
            pts.push(*w);
        }
        Route::new(pts)
    };
    let (frontage, depth) = formation_size(unit, unit.formation);
    let mover = Mover {
        id: Some(unit.id),
        side: unit.side,
        class,
        frontage,
        depth,
        closed_order: !is_open_order(unit),
        breechloader: unit.weapon.is_breechloader(),
        passes_freely: is_open_order(unit),
    };
    let half = intent.pace == Pace::Half;
    let fixed_facing = (!intent.by_road).then_some(unit.facing);
    let mut out = walk(
        state,
        prep,
        &mover,
        &route,
        Walk {
            allowance,
            half,
            fixed_facing,
            on_road: intent.by_road,
            entered,
            split_barred,
        },
    );
    if let Some(reason) = stop_early
        && out.stop == StopReason::Arrived
    {
        out.stop = reason;
    }
    if fixed_facing.is_none() && out.distance <= 1e-9 {
        out.facing = unit.facing;
    }
    Ok(out)
}

/// Plan an officer's move (APSoF IV.D): mounted officers move as open-order
/// cavalry (16"), officers on foot as open-order infantry (9"), in any
/// direction, through friendly units freely. Double-timing (allowed every
/// turn the officer gives no orders) doubles the distance (our reading of
/// double time as a second full move, VI.D.4).
pub fn plan_officer_move(
    state: &BattleState,
    officer: OfficerId,
    waypoints: &[Pos],
    double_time: bool,
) -> Result<MoveOutcome, MoveError> {
    let o = state
        .officer(officer)
        .ok_or(MoveError::UnknownOfficer(officer.0))?;
    if waypoints.is_empty() {
        return Err(MoveError::NoDestination(o.name.clone()));
    }
    if waypoints.iter().any(|p| !p.is_finite()) {
        return Err(MoveError::NotFinite);
    }
    let (class, base) = if o.mounted {
        (MoveClass::Cavalry, 14.0 + 2.0)
    } else {
        (MoveClass::Infantry, 7.0 + 2.0)
    };
    let allowance = if double_time { base * 2.0 } else { base };
    let mover = Mover {
        id: None,
        side: o.side,
        class,
        frontage: 2.0 * super::geometry::OFFICER_RADIUS,
        depth: 2.0 * super::geometry::OFFICER_RADIUS,
        closed_order: false,
        breechloader: false,
        passes_freely: true,
    };
    let mut pts = vec![o.position];
    pts.extend_from_slice(waypoints);
    let mut out = walk(
        state,
        None,
        &mover,
        &Route::new(pts),
        Walk {
            allowance,
            half: false,
            fixed_facing: None,
            on_road: false,
            entered: Vec::new(),
            split_barred: Vec::new(),
        },
    );
    out.split_barred.clear();
    Ok(out)
}

struct Walk {
    allowance: f64,
    half: bool,
    fixed_facing: Option<f64>,
    on_road: bool,
    entered: Vec<Entered>,
    split_barred: Vec<SplitBar>,
}

enum Probe {
    Clear,
    Stop(StopReason),
}

/// What every move planned on one state shares: each unit's footprint and
/// its diagonal (in the state's order), each terrain feature's box, and the
/// area polygons (built on first use). Made for one state and valid only
/// for it; [`plan_move_with`] falls back to working things out itself if
/// the number of units does not match.
pub struct MovePrep {
    units: Vec<(Footprint, f64)>,
    features: FeatureBoxes,
}

impl MovePrep {
    pub fn new(state: &BattleState) -> MovePrep {
        MovePrep {
            units: state
                .units
                .iter()
                .map(|u| {
                    let fp = super::geometry::footprint(u);
                    (fp, fp.frontage.hypot(fp.depth))
                })
                .collect(),
            features: FeatureBoxes::new(state),
        }
    }
}

fn walk(
    state: &BattleState,
    prep: Option<&MovePrep>,
    m: &Mover,
    route: &Route,
    w: Walk,
) -> MoveOutcome {
    let Walk {
        allowance: mut raw,
        half,
        fixed_facing,
        on_road,
        mut entered,
        mut split_barred,
    } = w;
    let scale = if half { 0.5 } else { 1.0 };
    let start = route.points.first().copied().unwrap_or_default();
    let heading0 = fixed_facing.or_else(|| route.at(0.0).1).unwrap_or(0.0);
    let fp_at = |p: Pos, h: f64| Footprint {
        centre: p,
        facing: h,
        frontage: m.frontage,
        depth: m.depth,
    };
    // Units already under the mover at the start are ignored: it is leaving
    // them, not passing through them.
    let start_fp = fp_at(start, heading0);
    // Every other unit's footprint and every terrain feature's bounding box
    // are worked out once for the whole walk, not at every 0.1" step.
    // Only units near the route can ever be touched: every footprint of the
    // walk is centred on the route (inside its bounding box), and overlaps
    // needs the centres within half of both diagonals.
    let mover_diag = m.frontage.hypot(m.depth);
    let mut route_box = points_box(&route.points);
    route_box = [
        route_box[0].min(start.x),
        route_box[1].min(start.y),
        route_box[2].max(start.x),
        route_box[3].max(start.y),
    ];
    let near_route = |o: &Placed<'_>| {
        let r = (mover_diag + o.diagonal) / 2.0 + 1e-3;
        let c = o.fp.centre;
        c.x + r >= route_box[0]
            && c.x - r <= route_box[2]
            && c.y + r >= route_box[1]
            && c.y - r <= route_box[3]
    };
    let prepared = prep.filter(|p| p.units.len() == state.units.len());
    let others: Vec<Placed<'_>> = match prepared {
        // Footprints and diagonals worked out once for all moves.
        Some(p) => state
            .units
            .iter()
            .zip(&p.units)
            .map(|(unit, &(fp, diagonal))| Placed {
                unit,
                fp,
                diagonal,
                polygon: std::cell::OnceCell::new(),
            })
            .filter(|o| near_route(o))
            .collect(),
        None => state
            .units
            .iter()
            // A cheaper, looser test first (frontage + depth is at least the
            // diagonal), so most units never have their footprint built.
            .filter(|u| {
                let (f, dp) = formation_size(u, u.formation);
                let r = (mover_diag + f + dp) / 2.0 + 1e-3;
                let c = u.position;
                c.x + r >= route_box[0]
                    && c.x - r <= route_box[2]
                    && c.y + r >= route_box[1]
                    && c.y - r <= route_box[3]
            })
            .map(Placed::new)
            .filter(|o| near_route(o))
            .collect(),
    };
    let owned_features;
    let features = match prep {
        Some(p) => &p.features,
        None => {
            owned_features = FeatureBoxes::new(state);
            &owned_features
        }
    };
    let near_terrain = TerrainBoxes::new(state, features, route_box, mover_diag / 2.0 + 1e-3);
    // Every footprint of the walk has the mover's frontage and depth, so
    // the same half-diagonal; and every shrunk one (the test against other
    // units) the same diagonal.
    let fp_reach = mover_diag / 2.0;
    let (shrunk_frontage, shrunk_depth) = (
        (m.frontage - 2.0 * UNIT_INSET).max(0.01),
        (m.depth - 2.0 * UNIT_INSET).max(0.01),
    );
    let shrunk_diag = shrunk_frontage.hypot(shrunk_depth);
    let start_probe = Probing::new(start_fp);
    let ignore: Vec<UnitId> = others
        .iter()
        .filter(|o| Some(o.unit.id) != m.id && overlaps(&start_probe, o))
        .map(|o| o.unit.id)
        .collect();
    let mut passed: Vec<UnitId> = Vec::new();
    let mut ford_failure = None;
    let mut mover_morale = 0i8;

    // Terrain at the start counts; forbidden terrain there does not stop a
    // unit from leaving it.
    let mut start_forbidden: Vec<TerrainType> = Vec::new();
    // VIII.E: a unit that starts at a moat may cross it; that is its move.
    let mut at_moat = false;
    for t in terrain_touched(state, &near_terrain, &start_fp, fp_reach, on_road, m.class).0 {
        at_moat |= t == TerrainType::Moat;
        match terrain_modifier(m.class, t) {
            Some(md) => add_entry(&mut entered, &mut raw, t, md, &mut split_barred),
            None => start_forbidden.push(t),
        }
    }

    let total = route.length();
    // A unit that stopped at a moat last turn stands a step short of it:
    // it is "at" the moat if its first step would touch it.
    let moat_near = near_terrain.near_lines.iter().any(|&i| {
        state
            .terrain
            .lines
            .get(i)
            .is_some_and(|l| l.kind == LineKind::Moat)
    });
    if !at_moat && moat_near && total > 0.0 {
        let (p, leg, _) = route.at(STEP.min(total));
        let fp = fp_at(p, fixed_facing.or(leg).unwrap_or(heading0));
        at_moat = terrain_touched(state, &near_terrain, &fp, fp_reach, on_road, m.class)
            .0
            .contains(&TerrainType::Moat);
    }
    let mut d = 0.0;
    let mut positions: Vec<(f64, Pos, f64)> = vec![(0.0, start, heading0)];
    // Beside each position: how many units had been passed through and
    // the mover's morale cost so far, so that backing off a friend's
    // ground (below) also takes back the passing it undoes (IV.C.5-6:
    // only ranks actually gone through count).
    let mut passed_at: Vec<(usize, i8)> = vec![(0, 0)];
    let stop;
    loop {
        let allowance = raw.max(0.0) * scale;
        let limit = allowance.min(total);
        if d >= limit - 1e-9 {
            stop = if d >= total - 1e-9 {
                StopReason::Arrived
            } else {
                StopReason::AllowanceUsed
            };
            break;
        }
        let nd = (d + STEP).min(limit);
        let (p, leg, _) = route.at(nd);
        let h = fixed_facing.or(leg).unwrap_or(heading0);
        let fp = fp_at(p, h);
        // What this step would touch that the move has not yet paid for.
        let (types, stream) =
            terrain_touched(state, &near_terrain, &fp, fp_reach, on_road, m.class);
        let mut probe = Probe::Clear;
        let mut new_rows: Vec<(TerrainType, f64)> = Vec::new();
        let mut new_passed: Vec<UnitId> = Vec::new();
        if let Some((depth_in, max_in)) = stream
            && depth_in > max_in
        {
            ford_failure = Some(FordFailure {
                casualties: 1,
                morale_loss: 1,
            });
            probe = Probe::Stop(StopReason::StreamTooDeep { depth_in, max_in });
        }
        let touches_moat = types.contains(&TerrainType::Moat);
        if let Probe::Clear = probe
            && touches_moat
            && !at_moat
            && terrain_modifier(m.class, TerrainType::Moat).is_some()
        {
            probe = Probe::Stop(StopReason::MoatReached);
        }
        if let Probe::Clear = probe {
            for t in types {
                if entered.iter().any(|e| e.terrain == t) || start_forbidden.contains(&t) {
                    continue;
                }
                match terrain_modifier(m.class, t) {
                    None => {
                        probe = Probe::Stop(StopReason::Forbidden(t));
                        break;
                    }
                    Some(md) => new_rows.push((t, md)),
                }
            }
        }
        if let Probe::Clear = probe {
            let shrunk = Probing::with_diagonal(
                Footprint {
                    frontage: shrunk_frontage,
                    depth: shrunk_depth,
                    ..fp
                },
                shrunk_diag,
            );
            for o in &others {
                let u = o.unit;
                if Some(u.id) == m.id || ignore.contains(&u.id) || !overlaps(&shrunk, o) {
                    continue;
                }
                if u.side != m.side {
                    probe = Probe::Stop(StopReason::EnemyContact(u.id));
                    break;
                }
                if !m.passes_freely {
                    match terrain_modifier(m.class, TerrainType::ThroughUnits) {
                        None => {
                            probe = Probe::Stop(StopReason::UnitInTheWay(u.id));
                            break;
                        }
                        Some(md) => {
                            let paid = entered
                                .iter()
                                .any(|e| e.terrain == TerrainType::ThroughUnits)
                                || new_rows.iter().any(|r| r.0 == TerrainType::ThroughUnits);
                            if !paid {
                                new_rows.push((TerrainType::ThroughUnits, md));
                            }
                        }
                    }
                }
                if !passed.contains(&u.id) && !new_passed.contains(&u.id) {
                    new_passed.push(u.id);
                }
            }
        }
        if let Probe::Stop(reason) = probe {
            stop = reason;
            break;
        }
        // A unit that has already used what the new terrain would leave it
        // stops short instead of entering (IV.C.1 applies to terrain
        // actually entered).
        let tentative = (raw + new_rows.iter().map(|r| r.1).sum::<f64>()).max(0.0) * scale;
        if nd > tentative + 1e-9 && d >= tentative - 1e-9 {
            stop = StopReason::AllowanceUsed;
            break;
        }
        for (t, md) in new_rows {
            add_entry(&mut entered, &mut raw, t, md, &mut split_barred);
            if t == TerrainType::ThroughUnits {
                if m.closed_order {
                    mover_morale = -1;
                }
                // IV.G ****: breechloaders may still split-move, except on
                // roads.
                if m.breechloader && !on_road {
                    split_barred.retain(|b| *b != SplitBar::ThroughUnits);
                }
            }
        }
        passed.extend(new_passed);
        if nd > tentative + 1e-9 {
            // The terrain just entered leaves less allowance than this step:
            // go round again to stop at the new limit.
            continue;
        }
        d = nd;
        positions.push((d, p, h));
        passed_at.push((passed.len(), mover_morale));
        if at_moat && !touches_moat && terrain_modifier(m.class, TerrainType::Moat).is_some() {
            // Across the moat it started at: that was the turn (VIII.E).
            stop = StopReason::MoatCrossed;
            break;
        }
    }

    // Do not end on top of a friendly unit: back off to the last clear spot.
    let mut backed_off = false;
    while let Some(&(_, p, h)) = positions.last() {
        if positions.len() == 1 {
            break;
        }
        let fp = fp_at(p, h);
        let shrunk = Probing::with_diagonal(
            Footprint {
                frontage: shrunk_frontage,
                depth: shrunk_depth,
                ..fp
            },
            shrunk_diag,
        );
        let on_top = others.iter().any(|o| {
            Some(o.unit.id) != m.id
                && !ignore.contains(&o.unit.id)
                && m.id.is_some()
                && overlaps(&shrunk, o)
        });
        if !on_top {
            break;
        }
        positions.pop();
        passed_at.pop();
        backed_off = true;
    }
    let (dist, end, facing) = positions.last().copied().unwrap_or((0.0, start, heading0));
    if backed_off && let Some(&(n, morale)) = passed_at.last() {
        passed.truncate(n);
        mover_morale = morale;
    }
    let mut path = vec![start];
    for (i, c) in route.cum.iter().enumerate().skip(1) {
        if *c < dist - 1e-9
            && let Some(p) = route.points.get(i)
        {
            path.push(*p);
        }
    }
    if path.last().is_none_or(|q| q.distance(end) > 1e-9) {
        path.push(end);
    }
    passed.sort();
    // IV.C.6 speaks of any unit moving through formed ranks, whatever the
    // mover's own order; officers are not units.
    let through_ranks_bonus = if m.id.is_none() {
        Vec::new()
    } else {
        passed
            .iter()
            .copied()
            .filter(|id| state.unit(*id).is_some_and(|u| !is_open_order(u)))
            .collect()
    };
    split_barred.sort();
    split_barred.dedup();
    MoveOutcome {
        path,
        end,
        facing: super::geometry::normalize_deg(facing),
        distance: dist,
        allowance: raw.max(0.0) * scale,
        entered,
        stop: if backed_off && stop == StopReason::Arrived {
            StopReason::AllowanceUsed
        } else {
            stop
        },
        passed_through: passed,
        mover_morale,
        through_ranks_bonus,
        ford_failure,
        split_barred,
        backed_off,
    }
}

fn add_entry(
    entered: &mut Vec<Entered>,
    raw: &mut f64,
    t: TerrainType,
    md: f64,
    bars: &mut Vec<SplitBar>,
) {
    if entered.iter().any(|e| e.terrain == t) {
        return;
    }
    *raw += md;
    entered.push(Entered {
        terrain: t,
        modifier: md,
    });
    let bar = match t {
        TerrainType::Area(AreaKind::DenseWoods) => Some(SplitBar::DenseWoods),
        TerrainType::Area(AreaKind::Swamp) => Some(SplitBar::Swamp),
        TerrainType::Ford => Some(SplitBar::Ford),
        TerrainType::Road => Some(SplitBar::Road),
        TerrainType::ThroughUnits => Some(SplitBar::ThroughUnits),
        _ => None,
    };
    if let Some(b) = bar {
        bars.push(b);
    }
}

/// A unit with its footprint and the footprint's diagonal.
struct Placed<'a> {
    unit: &'a Unit,
    fp: Footprint,
    diagonal: f64,
    polygon: std::cell::OnceCell<geo::Polygon<f64>>,
}

impl<'a> Placed<'a> {
    fn new(unit: &'a Unit) -> Placed<'a> {
        let fp = super::geometry::footprint(unit);
        Placed {
            unit,
            fp,
            diagonal: fp.frontage.hypot(fp.depth),
            polygon: std::cell::OnceCell::new(),
        }
    }
}

/// A footprint being tested against many units, with its diagonal and
/// polygon worked out once.
struct Probing {
    fp: Footprint,
    diagonal: f64,
    polygon: std::cell::OnceCell<geo::Polygon<f64>>,
}

impl Probing {
    fn new(fp: Footprint) -> Probing {
        Probing::with_diagonal(fp, fp.frontage.hypot(fp.depth))
    }

    /// With the diagonal already known: `fp.frontage.hypot(fp.depth)`.
    fn with_diagonal(fp: Footprint, diagonal: f64) -> Probing {
        Probing {
            fp,
            diagonal,
            polygon: std::cell::OnceCell::new(),
        }
    }
}

fn overlaps(p: &Probing, u: &Placed<'_>) -> bool {
    let fp = &p.fp;
    let ufp = &u.fp;
    let reach = (p.diagonal + u.diagonal) / 2.0;
    // Cheap rejection first: the centres are at least the larger axis gap
    // apart (with a margin so rounding can never reject a true overlap).
    let (dx, dy) = (
        (fp.centre.x - ufp.centre.x).abs(),
        (fp.centre.y - ufp.centre.y).abs(),
    );
    if dx.max(dy) > reach + 1e-6 {
        return false;
    }
    within(fp.centre, ufp.centre, reach)
        && p.polygon
            .get_or_init(|| fp.polygon())
            .intersects(u.polygon.get_or_init(|| ufp.polygon()))
}

/// `a.distance(b) <= r`, the same answer, without the (slow) `hypot` when
/// the squared distance settles it with a wide margin: it is accurate to a
/// few units in the last place, far inside the 1e-9 relative margin; the
/// ambiguous band, huge, tiny or non-finite values go to `hypot` as before.
#[inline]
fn within(a: Pos, b: Pos, r: f64) -> bool {
    let (dx, dy) = (a.x - b.x, a.y - b.y);
    let tame = |v: f64| v.abs() < 1e100;
    if r > 1e-6 && tame(r) && tame(dx) && tame(dy) {
        let d2 = dx * dx + dy * dy;
        let (lo, hi) = (r * (1.0 - 1e-9), r * (1.0 + 1e-9));
        if d2 < lo * lo {
            return true;
        }
        if d2 > hi * hi {
            return false;
        }
    }
    a.distance(b) <= r
}

/// Bounding boxes of areas and lines, (min x, min y, max x, max y), in the
/// terrain's own order, and the area polygons, built the first time a step
/// comes near them.
struct FeatureBoxes {
    areas: Vec<[f64; 4]>,
    lines: Vec<[f64; 4]>,
    area_polygons: Vec<std::cell::OnceCell<geo::Polygon<f64>>>,
}

impl FeatureBoxes {
    fn new(state: &BattleState) -> FeatureBoxes {
        FeatureBoxes {
            areas: state
                .terrain
                .areas
                .iter()
                .map(|a| points_box(&a.outline))
                .collect(),
            lines: state
                .terrain
                .lines
                .iter()
                .map(|l| points_box(&l.path))
                .collect(),
            area_polygons: state
                .terrain
                .areas
                .iter()
                .map(|_| std::cell::OnceCell::new())
                .collect(),
        }
    }
}

/// The terrain features near one route.
struct TerrainBoxes<'a> {
    features: &'a FeatureBoxes,
    /// Indices of the areas and lines whose boxes come within reach of the
    /// route, ascending: the only ones any step can touch.
    near_areas: Vec<usize>,
    near_lines: Vec<usize>,
    /// For each of `near_lines`, the segments of its path whose boxes come
    /// within reach of the route: the only ones any step can touch.
    near_segments: Vec<Vec<(Pos, Pos)>>,
}

fn points_box(pts: &[Pos]) -> [f64; 4] {
    let (mut lo, mut hi) = (
        (f64::INFINITY, f64::INFINITY),
        (f64::NEG_INFINITY, f64::NEG_INFINITY),
    );
    for p in pts {
        lo = (lo.0.min(p.x), lo.1.min(p.y));
        hi = (hi.0.max(p.x), hi.1.max(p.y));
    }
    [lo.0, lo.1, hi.0, hi.1]
}

impl<'a> TerrainBoxes<'a> {
    /// The features whose boxes come within `reach` of the route's box
    /// `route`.
    fn new(
        state: &BattleState,
        features: &'a FeatureBoxes,
        route: [f64; 4],
        reach: f64,
    ) -> TerrainBoxes<'a> {
        let (areas, lines) = (&features.areas, &features.lines);
        let near = |b: &[f64; 4]| {
            route[0] - reach <= b[2]
                && route[2] + reach >= b[0]
                && route[1] - reach <= b[3]
                && route[3] + reach >= b[1]
        };
        let pick = |boxes: &[[f64; 4]]| -> Vec<usize> {
            (0..boxes.len())
                .filter(|&i| boxes.get(i).is_some_and(near))
                .collect()
        };
        let near_lines = pick(lines);
        let near_segments = near_lines
            .iter()
            .map(|&i| {
                state.terrain.lines.get(i).map_or_else(Vec::new, |l| {
                    l.path
                        .windows(2)
                        .map(|w| (w[0], w[1]))
                        .filter(|(a, b)| {
                            near(&[a.x.min(b.x), a.y.min(b.y), a.x.max(b.x), a.y.max(b.y)])
                        })
                        .collect()
                })
            })
            .collect();
        TerrainBoxes {
            features,
            near_areas: pick(areas),
            near_lines,
            near_segments,
        }
    }
}

/// Terrain rows the footprint touches, and for a stream being crossed the
/// water depth there and the most this class may ford. On a road, the road
/// carries the unit through areas and over walls, fences and streams
/// (bridges) — our ruling.
///
/// `reach` is the footprint's half-diagonal, `fp.frontage.hypot(fp.depth) /
/// 2.0`, the same at every step of a walk and so worked out once by it.
fn terrain_touched(
    state: &BattleState,
    boxes: &TerrainBoxes<'_>,
    fp: &Footprint,
    reach: f64,
    on_road: bool,
    class: MoveClass,
) -> (Vec<TerrainType>, Option<(f64, f64)>) {
    let mut types = Vec::new();
    if on_road {
        return (types, None);
    }
    // The footprint's polygon and box, built only when some feature comes
    // near this step (most steps are clear of everything).
    let poly_cell = std::cell::OnceCell::new();
    let poly = || poly_cell.get_or_init(|| fp.polygon());
    let box_cell = std::cell::OnceCell::new();
    let fp_box = || box_cell.get_or_init(|| points_box(&fp.corners()));
    let near = |b: Option<&[f64; 4]>| {
        b.is_some_and(|b| {
            fp.centre.x + reach >= b[0]
                && fp.centre.x - reach <= b[2]
                && fp.centre.y + reach >= b[1]
                && fp.centre.y - reach <= b[3]
        })
    };
    for &i in &boxes.near_areas {
        let Some(a) = state.terrain.areas.get(i) else {
            continue;
        };
        if !near(boxes.features.areas.get(i)) {
            continue;
        }
        let hit = match (
            boxes.features.area_polygons.get(i),
            boxes.features.areas.get(i),
        ) {
            (Some(cell), Some(area_box)) => area_meets_rect(
                cell.get_or_init(|| polygon(&a.outline)),
                area_box,
                poly(),
                fp_box(),
            ),
            _ => polygon(&a.outline).intersects(poly()),
        };
        // APSoF VIII.D: a path cleared through abatis is open ground.
        let hit = hit
            && (a.kind != AreaKind::Abatis
                || !super::obstacles::any_cleared(&state.terrain.cleared, Obstacle::Abatis)
                || super::obstacles::abatis_left(
                    poly(),
                    &polygon(&a.outline),
                    &state.terrain.cleared,
                ));
        if hit {
            push_unique(&mut types, TerrainType::Area(a.kind));
        }
    }
    let mut stream = None;
    for (k, &i) in boxes.near_lines.iter().enumerate() {
        let Some(l) = state.terrain.lines.get(i) else {
            continue;
        };
        if l.kind == LineKind::Road || !near(boxes.features.lines.get(i)) {
            continue;
        }
        // Only a line with a segment whose box meets the footprint's can
        // touch it; long streams and roads mostly pass far away. Segments
        // not near the route at all cannot be near this step either.
        let segments = boxes.near_segments.get(k).map_or(&[][..], Vec::as_slice);
        let r = reach + 1e-9;
        let seg_near = segments.iter().any(|&(a, b)| {
            fp.centre.x + r >= a.x.min(b.x)
                && fp.centre.x - r <= a.x.max(b.x)
                && fp.centre.y + r >= a.y.min(b.y)
                && fp.centre.y - r <= a.y.max(b.y)
        });
        if !seg_near && l.path.len() > 1 {
            continue;
        }
        let meets = if l.path.len() > 1 {
            path_meets_rect(&l.path, segments, poly(), fp_box())
        } else {
            linestring(&l.path).intersects(poly())
        };
        // APSoF VIII.E: a filled stretch of ditch no longer stops a move.
        let meets = meets
            && (l.kind != LineKind::Moat
                || !super::obstacles::any_cleared(&state.terrain.cleared, Obstacle::Moat)
                || super::obstacles::moat_left(poly(), &l.path, &state.terrain.cleared));
        if !meets {
            continue;
        }
        match l.kind {
            // IV.G has one wall row; high walls and works are crossed by it.
            LineKind::Wall
            | LineKind::HighWall
            | LineKind::HastyWorks
            | LineKind::Entrenchments => push_unique(&mut types, TerrainType::Wall),
            LineKind::Fence => push_unique(&mut types, TerrainType::Fence),
            LineKind::Stream => {
                push_unique(&mut types, TerrainType::Ford);
                if let Some(water) = l.water {
                    // A ford farther than FORD_REACH from the footprint's
                    // box (with a margin far above rounding) is farther
                    // from the footprint too.
                    let ford_reach = FORD_REACH + 1e-6;
                    let fp_box = fp_box();
                    let ford = state
                        .terrain
                        .fords
                        .iter()
                        .filter(|f| {
                            let p = f.position;
                            p.x >= fp_box[0] - ford_reach
                                && p.x <= fp_box[2] + ford_reach
                                && p.y >= fp_box[1] - ford_reach
                                && p.y <= fp_box[3] + ford_reach
                        })
                        .filter(|f| {
                            Euclidean
                                .distance(&geo::Point::from(geo::Coord::from(f.position)), poly())
                                <= FORD_REACH
                        })
                        .map(|f| f.depth_in)
                        .fold(None, |a: Option<f64>, d| Some(a.map_or(d, |x| x.min(d))));
                    let depth = ford.unwrap_or(water.depth_in);
                    let max = max_ford_depth(class, water.current);
                    // Report the worst crossing if several streams touch.
                    let worse = stream.is_none_or(|(d0, m0): (f64, f64)| depth - max > d0 - m0);
                    if worse {
                        stream = Some((depth, max));
                    }
                }
            }
            LineKind::Moat => push_unique(&mut types, TerrainType::Moat),
            LineKind::Road => {}
        }
    }
    (types, stream)
}

/// Whether two boxes (min x, min y, max x, max y) share a point.
fn boxes_meet(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

/// `linestring(path).intersects(rect)` for a path of two or more points,
/// without building the line string, given `segments`: the path's segments
/// that may come near the rectangle (at least every one whose box meets
/// the rectangle's box `rect_box`).
///
/// The same answer as geo's `LineString`–`Polygon` test, which is: the
/// boxes meet, and the path's first point is in or on the polygon or one of
/// its segments meets one of the polygon's edges. geo's predicates are
/// exact (robust orientation tests), so that is exactly whether the path
/// meets the rectangle; a point outside the rectangle's box is outside it,
/// and a segment whose box misses the rectangle's box meets none of its
/// edges, so skipping those changes nothing (and the boxes test is implied).
fn path_meets_rect(
    path: &[Pos],
    segments: &[(Pos, Pos)],
    rect: &geo::Polygon<f64>,
    rect_box: &[f64; 4],
) -> bool {
    if let Some(first) = path.first()
        && boxes_meet(&[first.x, first.y, first.x, first.y], rect_box)
        && rect.intersects(&geo::Coord::from(*first))
    {
        return true;
    }
    segments.iter().any(|&(a, b)| {
        let seg_box = [a.x.min(b.x), a.y.min(b.y), a.x.max(b.x), a.y.max(b.y)];
        if !boxes_meet(&seg_box, rect_box) {
            return false;
        }
        let seg = geo::Line::new(geo::Coord::from(a), geo::Coord::from(b));
        rect.exterior().lines().any(|edge| seg.intersects(&edge))
    })
}

/// `area.intersects(rect)` for an area polygon without holes (the outline
/// of `area_box`) and a footprint rectangle (of `rect_box`), testing only
/// the area's edges whose boxes meet the rectangle's box.
///
/// The same answer as geo's `Polygon`–`Polygon` test, which is: the boxes
/// meet, and the first vertex of either is in or on the other, or an edge
/// of one meets an edge of the other (neither has holes). The predicates
/// are exact, and an edge whose box misses the rectangle's box meets none
/// of its edges.
fn area_meets_rect(
    area: &geo::Polygon<f64>,
    area_box: &[f64; 4],
    rect: &geo::Polygon<f64>,
    rect_box: &[f64; 4],
) -> bool {
    if !area.interiors().is_empty() || !rect.interiors().is_empty() {
        return area.intersects(rect);
    }
    if !boxes_meet(area_box, rect_box) {
        return false;
    }
    if area
        .exterior()
        .0
        .first()
        .is_some_and(|c| rect.intersects(c))
        || rect
            .exterior()
            .0
            .first()
            .is_some_and(|c| area.intersects(c))
    {
        return true;
    }
    area.exterior().lines().any(|edge| {
        let (a, b) = (edge.start, edge.end);
        let edge_box = [a.x.min(b.x), a.y.min(b.y), a.x.max(b.x), a.y.max(b.y)];
        boxes_meet(&edge_box, rect_box) && rect.exterior().lines().any(|r| edge.intersects(&r))
    })
}

fn push_unique(v: &mut Vec<TerrainType>, t: TerrainType) {
    if !v.contains(&t) {
        v.push(t);
    }
}

fn polygon(outline: &[Pos]) -> geo::Polygon<f64> {
    geo::Polygon::new(linestring(outline), vec![])
}

fn linestring(pts: &[Pos]) -> geo::LineString<f64> {
    geo::LineString::from(pts.iter().map(|p| geo::Coord::from(*p)).collect::<Vec<_>>())
}

/// Nearest point on a polyline and its distance along it.
fn project(path: &[Pos], p: Pos) -> (f64, Pos, f64) {
    let mut best = (f64::INFINITY, Pos::default(), 0.0);
    let mut along = 0.0;
    for w in path.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 {
            (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let q = Pos::new(a.x + dx * t, a.y + dy * t);
        let d = q.distance(p);
        if d < best.0 {
            best = (d, q, along + t * len2.sqrt());
        }
        along += len2.sqrt();
    }
    best
}

/// Route along the road nearest the unit (within [`ROAD_JOIN`]) from the
/// unit to the road point nearest the destination (IV.G roads).
fn road_route(state: &BattleState, unit: &Unit, intent: &MoveIntent) -> Result<Route, MoveError> {
    let mut best: Option<(f64, &[Pos])> = None;
    for l in &state.terrain.lines {
        if l.kind != LineKind::Road || l.path.len() < 2 {
            continue;
        }
        let (d, _, _) = project(&l.path, unit.position);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, &l.path));
        }
    }
    let Some((_, path)) = best.filter(|(d, _)| *d <= ROAD_JOIN) else {
        return Err(MoveError::NotOnRoad {
            unit: unit.name.clone(),
            distance: best.map_or(f64::INFINITY, |b| b.0),
        });
    };
    let dest = intent.waypoints.last().copied().unwrap_or(unit.position);
    let (_, from, s0) = project(path, unit.position);
    let (_, to, s1) = project(path, dest);
    let mut pts = vec![unit.position, from];
    let mut along = 0.0;
    let mut vertices: Vec<(f64, Pos)> = Vec::new();
    for (i, p) in path.iter().enumerate() {
        if i > 0 {
            along += path[i - 1].distance(*p);
        }
        vertices.push((along, *p));
    }
    if s1 >= s0 {
        pts.extend(
            vertices
                .iter()
                .filter(|(a, _)| *a > s0 && *a < s1)
                .map(|v| v.1),
        );
    } else {
        pts.extend(
            vertices
                .iter()
                .rev()
                .filter(|(a, _)| *a < s0 && *a > s1)
                .map(|v| v.1),
        );
    }
    pts.push(to);
    Ok(Route::new(pts))
}

/// IV.F: two units ordered to the same place meet where their moves, in
/// proportion to their speeds, close the gap between their starting points.
/// Returns the meeting point.
pub fn meeting_point(a_start: Pos, a_allowance: f64, b_start: Pos, b_allowance: f64) -> Pos {
    let total = a_allowance + b_allowance;
    let t = if total > 0.0 {
        a_allowance / total
    } else {
        0.5
    };
    Pos::new(
        a_start.x + (b_start.x - a_start.x) * t,
        a_start.y + (b_start.y - a_start.y) * t,
    )
}

/// IV.F applied to two planned moves whose end footprints overlap: each unit
/// instead stops with its front at the meeting point, on the line from its
/// start. Returns the new centres, or `None` when the ends do not clash.
pub fn resolve_meeting(
    state: &BattleState,
    a: (UnitId, &MoveOutcome),
    b: (UnitId, &MoveOutcome),
) -> Option<(Pos, Pos)> {
    let ua = state.unit(a.0)?;
    let ub = state.unit(b.0)?;
    let fa = Footprint {
        centre: a.1.end,
        facing: a.1.facing,
        ..super::geometry::footprint(ua)
    };
    let fb = Footprint {
        centre: b.1.end,
        facing: b.1.facing,
        ..super::geometry::footprint(ub)
    };
    // Cheap rejection before building polygons: every point of a footprint
    // lies within (frontage + depth) / 2 of its centre, so footprints whose
    // centres are farther apart than that on an axis cannot overlap.
    let reach = (fa.frontage + fa.depth + fb.frontage + fb.depth) / 2.0 + 1e-6;
    if (fa.centre.x - fb.centre.x).abs() > reach || (fa.centre.y - fb.centre.y).abs() > reach {
        return None;
    }
    if !fa.polygon().intersects(&fb.polygon()) {
        return None;
    }
    let m = meeting_point(ua.position, a.1.allowance, ub.position, b.1.allowance);
    let back_off = |start: Pos, half_depth: f64| {
        let d = start.distance(m);
        if d <= half_depth || d <= 1e-9 {
            return start;
        }
        let t = (d - half_depth) / d;
        Pos::new(start.x + (m.x - start.x) * t, start.y + (m.y - start.y) * t)
    };
    Some((
        back_off(ua.position, fa.depth / 2.0),
        back_off(ub.position, fb.depth / 2.0),
    ))
}

/// Our ruling on IV.F between friends (docs/rulings.md): IV.F's meeting
/// "in a proportional distance ... from their original starting position"
/// is for units "ordered to the same position". Two units of one side whose
/// moves merely end on overlapping ground (one catching up with another on
/// the same road, two regiments converging on a gap) are not both pulled
/// back toward a point between their starts, which can leave them on top of
/// each other: the one that would arrive later (the larger share of its
/// allowance used) halts on its own path at the last point where its
/// footprint clears the other's. `now` holds the units at their planned
/// ends, in the formation and facing they end in.
///
/// Returns (the unit that halts, the unit it halts short of, where), or
/// `None` when the ends do not overlap or no point of either path clears
/// the other (then IV.F's meeting applies).
pub fn friend_halts_short(
    now: &BattleState,
    a: (UnitId, &MoveOutcome),
    b: (UnitId, &MoveOutcome),
) -> Option<(UnitId, UnitId, Pos)> {
    let fp = |id: UnitId, at: Pos| -> Option<Footprint> {
        let u = now.unit(id)?;
        Some(Footprint {
            centre: at,
            ..super::geometry::footprint(u)
        })
    };
    let clash = |x: &Footprint, y: &Footprint| x.polygon().intersects(&y.polygon());
    let (fa, fb) = (fp(a.0, a.1.end)?, fp(b.0, b.1.end)?);
    if !clash(&fa, &fb) {
        return None;
    }
    let share = |o: &MoveOutcome| {
        if o.allowance > 1e-9 {
            o.distance / o.allowance
        } else {
            f64::INFINITY
        }
    };
    let order = if share(a.1) >= share(b.1) {
        [(a, b.0, fb), (b, a.0, fa)]
    } else {
        [(b, a.0, fa), (a, b.0, fb)]
    };
    for ((id, out), other, other_fp) in order {
        // Back along the path from its end, a quarter inch at a time.
        let mut legs: Vec<(Pos, Pos)> = out.path.windows(2).map(|w| (w[0], w[1])).collect();
        if legs.is_empty() {
            continue;
        }
        legs.reverse();
        for (from, to) in legs {
            let len = from.distance(to);
            let steps = (len / 0.25).ceil().max(1.0) as u32;
            for k in 1..=steps {
                let t = 1.0 - f64::from(k) / f64::from(steps);
                let at = Pos::new(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t);
                let here = fp(id, at)?;
                if !clash(&here, &other_fp) {
                    return Some((id, other, at));
                }
            }
        }
    }
    None
}

/// What a formation or facing change costs in the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeCost {
    Free,
    /// Half a move: one of the two actions of a split move (I.B.4.ii), or
    /// the whole first option (I.B.4.i.c).
    HalfMove,
    /// The whole turn (VIII.C mountain guns unlimbering).
    WholeTurn,
}

/// Cost of changing formation (III.B: half a move in most cases; III.D
/// artillery half a move; III.G.5 into en masse free; III.G.4 company column
/// a complete formation-and-facing change in half a move; III.H mounting or
/// dismounting is a formation change; VIII.C mountain guns take the whole
/// turn to unlimber when cannon weights are used).
pub fn formation_change_cost(unit: &Unit, to: Formation, cannon_weights: bool) -> ChangeCost {
    if unit.formation == to {
        return ChangeCost::Free;
    }
    if to == Formation::EnMasse {
        return ChangeCost::Free;
    }
    if cannon_weights
        && to == Formation::Unlimbered
        && cannon_weight(unit.weapon) == CannonWeight::Mountain
    {
        return ChangeCost::WholeTurn;
    }
    ChangeCost::HalfMove
}

/// Cost of mounting or dismounting cavalry (III.H).
pub fn mount_change_cost() -> ChangeCost {
    ChangeCost::HalfMove
}

/// Cost of changing facing (III.I): free when following a road (IV.G ***),
/// for units en masse (III.G.5), for infantry facing about (III.I.2), and
/// as part of a company-column change (III.G.4, priced by
/// [`formation_change_cost`]); otherwise half a move (I.B.4.ii.b).
pub fn facing_change_cost(unit: &Unit, new_facing: f64, following_road: bool) -> ChangeCost {
    let turn = angle_between(unit.facing, new_facing);
    if turn < 1e-6 || following_road || unit.formation == Formation::EnMasse {
        return ChangeCost::Free;
    }
    if unit.on_foot() && (turn - 180.0).abs() < 1.0 {
        return ChangeCost::Free;
    }
    ChangeCost::HalfMove
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::state::{Area, Ford, LineFeature, StreamWater};

    fn square(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<Pos> {
        vec![
            Pos::new(x0, y0),
            Pos::new(x1, y0),
            Pos::new(x1, y1),
            Pos::new(x0, y1),
        ]
    }

    fn one(u: Unit) -> BattleState {
        BattleState {
            units: vec![u],
            ..BattleState::default()
        }
    }

    fn inf() -> Unit {
        Unit::infantry(1, "2nd Wisconsin", 0, 20, Pos::new(0.0, 0.0), 0.0)
    }

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn within_agrees_with_the_distance_comparison() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..100_000 {
            let a = Pos::new(next() * 200.0 - 100.0, next() * 200.0 - 100.0);
            let b = Pos::new(next() * 200.0 - 100.0, next() * 200.0 - 100.0);
            let d = a.distance(b);
            // Radii around the distance itself, where rounding matters most.
            for r in [
                d,
                d * (1.0 + 1e-15),
                d * (1.0 - 1e-15),
                next() * 150.0,
                0.0,
                1e-7,
            ] {
                assert_eq!(within(a, b, r), a.distance(b) <= r, "{a:?} {b:?} {r}");
            }
        }
    }

    #[test]
    fn iv_g_infantry_line_moves_7_inches_in_the_open() {
        let s = one(inf());
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
        assert!(near(o.distance, 7.0), "{o:?}");
        assert_eq!(o.stop, StopReason::AllowanceUsed);
        assert!(near(o.end.y, 7.0));
        assert!(near(o.facing, 0.0));
    }

    #[test]
    fn iv_g_formation_bonuses_and_half_moves() {
        let s = one(inf().with_formation(Formation::Column));
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
        assert!(near(o.distance, 8.0));
        let s = one(inf()
            .with_formation(Formation::Skirmish)
            .with_ranks(Ranks::Half));
        let mut i = MoveIntent::to(Pos::new(0.0, 20.0));
        i.pace = Pace::Half;
        let o = plan_move(&s, UnitId(1), &i).unwrap();
        assert!(near(o.distance, 4.5));
        let s = one(Unit::cavalry(1, "1st Maine", 0, 16, Pos::default(), 0.0));
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 40.0))).unwrap();
        assert!(near(o.distance, 14.0));
    }

    #[test]
    fn iv_g_backwards_is_3_inches_for_infantry_only() {
        let s = one(inf());
        let mut i = MoveIntent::to(Pos::new(0.0, -10.0));
        i.backwards = true;
        let o = plan_move(&s, UnitId(1), &i).unwrap();
        assert!(near(o.distance, 3.0) && near(o.end.y, -3.0));
        assert!(near(o.facing, 0.0));
        let s = one(Unit::cavalry(1, "c", 0, 16, Pos::default(), 0.0));
        assert!(matches!(
            plan_move(&s, UnitId(1), &i),
            Err(MoveError::BackwardsNotAllowed(_))
        ));
    }

    #[test]
    fn iv_c_3_moves_only_within_the_front_arc() {
        let s = one(inf());
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(-10.0, 0.0))).unwrap();
        assert_eq!(o.stop, StopReason::OutsideFrontArc);
        assert!(near(o.distance, 0.0));
        // A 45° oblique is allowed.
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(3.0, 3.0))).unwrap();
        assert_eq!(o.stop, StopReason::Arrived);
    }

    #[test]
    fn iv_c_1_accumulates_each_terrain_entered() {
        let mut s = one(inf());
        s.terrain.areas.push(Area {
            name: "cornfield rough".into(),
            kind: AreaKind::Rough,
            outline: square(-10.0, 2.0, 10.0, 2.5),
        });
        s.terrain.lines.push(LineFeature {
            name: "rail fence".into(),
            kind: LineKind::Fence,
            path: vec![Pos::new(-10.0, 3.0), Pos::new(10.0, 3.0)],
            water: None,
        });
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
        // 7 − 2 (rough) − 1 (fence) = 4, even though little of either.
        assert!(near(o.allowance, 4.0), "{o:?}");
        assert!(near(o.distance, 4.0));
        let kinds: Vec<_> = o.entered.iter().map(|e| e.terrain).collect();
        assert_eq!(
            kinds,
            vec![TerrainType::Area(AreaKind::Rough), TerrainType::Fence]
        );
    }

    #[test]
    fn iv_c_2_slowest_part_governs_a_unit_partly_in_woods() {
        let mut u = inf();
        u.position = Pos::new(0.0, 0.0);
        let mut s = one(u);
        // Woods touch only the right end of the 10" wide line.
        s.terrain.areas.push(Area {
            name: "wood".into(),
            kind: AreaKind::Woods,
            outline: square(2.0, -5.0, 30.0, 30.0),
        });
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
        assert!(near(o.distance, 4.0), "{o:?}");
    }

    #[test]
    fn iv_g_star_forbidden_terrain_stops_the_move() {
        let mut s = one(Unit {
            formation: Formation::Limbered,
            ..Unit::battery(1, "B", 0, 6, Pos::default(), 0.0)
        });
        s.terrain.areas.push(Area {
            name: "swamp".into(),
            kind: AreaKind::Swamp,
            outline: square(-10.0, 8.0, 10.0, 12.0),
        });
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 30.0))).unwrap();
        assert_eq!(
            o.stop,
            StopReason::Forbidden(TerrainType::Area(AreaKind::Swamp))
        );
        // Limbered 6-gun battery is 6" deep: front reaches y=8 at centre y=5.
        assert!(o.end.y <= 5.0 + 1e-6 && o.end.y > 4.8, "{o:?}");
    }

    #[test]
    fn iv_g_a_unit_may_leave_forbidden_terrain_it_starts_in() {
        let mut s = one(Unit {
            formation: Formation::Limbered,
            ..Unit::battery(1, "B", 0, 4, Pos::default(), 0.0)
        });
        s.terrain.areas.push(Area {
            name: "swamp".into(),
            kind: AreaKind::Swamp,
            outline: square(-10.0, -3.0, 10.0, 1.0),
        });
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 30.0))).unwrap();
        assert!(near(o.distance, 12.0), "{o:?}");
    }

    #[test]
    fn iii_d_2_unlimbered_artillery_cannot_move() {
        let s = one(Unit::battery(1, "B", 0, 4, Pos::default(), 0.0));
        let e = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 5.0))).unwrap_err();
        assert!(e.to_string().contains("limber up"));
    }

    fn stream(depth: f64, current: Current) -> LineFeature {
        stream_at(depth, current, 4.0)
    }

    fn stream_at(depth: f64, current: Current, y: f64) -> LineFeature {
        LineFeature {
            name: "Bull Run".into(),
            kind: LineKind::Stream,
            path: vec![Pos::new(-20.0, y), Pos::new(20.0, y)],
            water: Some(StreamWater {
                depth_in: depth,
                current,
            }),
        }
    }

    #[test]
    fn iv_e_1_too_deep_aborts_with_casualty_and_morale() {
        let mut s = one(inf());
        s.terrain.lines.push(stream(45.0, Current::Strong));
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
        assert!(matches!(o.stop, StopReason::StreamTooDeep { .. }));
        assert_eq!(
            o.ford_failure,
            Some(FordFailure {
                casualties: 1,
                morale_loss: 1
            })
        );
        assert!(o.end.y < 4.0 - 0.75 + 1e-6);
        // The same depth in a weak current can be forded, at −4.
        let mut s = one(inf());
        s.terrain
            .lines
            .push(stream_at(45.0, Current::WeakOrNone, 1.5));
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
        assert_eq!(o.ford_failure, None);
        assert!(near(o.distance, 3.0));
        assert!(o.split_barred.contains(&SplitBar::Ford));
    }

    #[test]
    fn iv_e_1_a_ford_point_is_shallower() {
        let mut s = one(inf());
        s.terrain.lines.push(stream(60.0, Current::Strong));
        s.terrain.fords.push(Ford {
            name: "Sudley Ford".into(),
            position: Pos::new(0.0, 4.0),
            depth_in: 20.0,
        });
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
        assert_eq!(o.ford_failure, None);
    }

    #[test]
    fn iv_c_5_closed_order_through_friends_pays_and_loses_morale() {
        let mut s = one(inf());
        s.units.push(Unit::infantry(
            2,
            "19th Indiana",
            0,
            20,
            Pos::new(0.0, 3.0),
            0.0,
        ));
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
        assert_eq!(o.passed_through, vec![UnitId(2)]);
        assert_eq!(o.mover_morale, -1);
        assert_eq!(o.through_ranks_bonus, vec![UnitId(2)]);
        assert!(near(o.distance, 5.0), "{o:?}");
        assert!(o.split_barred.contains(&SplitBar::ThroughUnits));
    }

    /// Issue #14: a move that would end on a friend's ground backs off to
    /// the last clear spot, short of him; it has not moved through his
    /// ranks, so it pays no morale (IV.C.5) and he gains none (IV.C.6).
    #[test]
    fn iv_c_5_backing_off_a_friend_is_not_moving_through_him() {
        let mut s = one(inf());
        s.units.push(Unit::infantry(
            2,
            "19th Indiana",
            0,
            20,
            Pos::new(0.0, 4.0),
            0.0,
        ));
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 4.0))).unwrap();
        assert!(o.distance < 4.0, "{o:?}");
        assert_eq!(o.passed_through, Vec::<UnitId>::new(), "{o:?}");
        assert_eq!(o.mover_morale, 0);
        assert!(o.through_ranks_bonus.is_empty());
    }

    #[test]
    fn iv_c_4_open_order_passes_freely() {
        let mut s = one(inf()
            .with_formation(Formation::Skirmish)
            .with_ranks(Ranks::Half));
        s.units
            .push(Unit::infantry(2, "friend", 0, 20, Pos::new(0.0, 4.0), 0.0));
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 30.0))).unwrap();
        assert!(near(o.distance, 9.0));
        assert_eq!(o.mover_morale, 0);
        assert_eq!(o.passed_through, vec![UnitId(2)]);
        assert_eq!(o.through_ranks_bonus, vec![UnitId(2)]);
    }

    #[test]
    fn enemy_contact_stops_the_move() {
        let mut s = one(inf());
        s.units
            .push(Unit::infantry(2, "Rebs", 1, 20, Pos::new(0.0, 5.0), 180.0));
        let o = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
        assert_eq!(o.stop, StopReason::EnemyContact(UnitId(2)));
        assert!(o.end.y < 3.6 && o.end.y > 3.3, "{o:?}");
    }

    #[test]
    fn iv_g_road_move_follows_the_road_with_bonus() {
        let mut s = one(inf().with_formation(Formation::Column));
        s.terrain.lines.push(LineFeature {
            name: "Warrenton Turnpike".into(),
            kind: LineKind::Road,
            path: vec![Pos::new(0.0, 0.0), Pos::new(0.0, 5.0), Pos::new(20.0, 5.0)],
            water: None,
        });
        s.terrain.areas.push(Area {
            name: "wood".into(),
            kind: AreaKind::Woods,
            outline: square(-5.0, 3.0, 5.0, 8.0),
        });
        let mut i = MoveIntent::to(Pos::new(30.0, 5.0));
        i.by_road = true;
        let o = plan_move(&s, UnitId(1), &i).unwrap();
        // 7 + 1 column + 2 road = 10, woods ignored on the road.
        assert!(near(o.distance, 10.0), "{o:?}");
        assert!(near(o.end.x, 5.0) && near(o.end.y, 5.0));
        assert!(near(o.facing, 90.0));
        assert!(o.split_barred.contains(&SplitBar::Road));
        let mut far = s.clone();
        far.units[0].position = Pos::new(10.0, -10.0);
        assert!(matches!(
            plan_move(&far, UnitId(1), &i),
            Err(MoveError::NotOnRoad { .. })
        ));
    }

    #[test]
    fn iv_d_officers_move_at_open_order_speed() {
        let mut s = BattleState::default();
        s.officers
            .push(crate::rules::iron_brigade::state::Officer::brigadier(
                1,
                "Gibbon",
                0,
                Pos::default(),
            ));
        let o = plan_officer_move(&s, OfficerId(1), &[Pos::new(-40.0, 0.0)], false).unwrap();
        assert!(near(o.distance, 16.0));
        let o = plan_officer_move(&s, OfficerId(1), &[Pos::new(-40.0, 0.0)], true).unwrap();
        assert!(near(o.distance, 32.0));
        s.officers[0].mounted = false;
        let o = plan_officer_move(&s, OfficerId(1), &[Pos::new(-40.0, 0.0)], false).unwrap();
        assert!(near(o.distance, 9.0));
    }

    #[test]
    fn iv_f_units_meet_in_proportion_to_speed() {
        let m = meeting_point(Pos::new(0.0, 0.0), 14.0, Pos::new(0.0, 21.0), 7.0);
        assert!(near(m.y, 14.0));
    }

    #[test]
    fn iii_g_formation_and_facing_costs() {
        let u = inf();
        assert_eq!(
            formation_change_cost(&u, Formation::EnMasse, false),
            ChangeCost::Free
        );
        assert_eq!(
            formation_change_cost(&u, Formation::Column, false),
            ChangeCost::HalfMove
        );
        assert_eq!(facing_change_cost(&u, 180.0, false), ChangeCost::Free);
        assert_eq!(facing_change_cost(&u, 90.0, false), ChangeCost::HalfMove);
        assert_eq!(facing_change_cost(&u, 90.0, true), ChangeCost::Free);
        let mut m = Unit::battery(2, "mtn", 0, 4, Pos::default(), 0.0);
        m.weapon = Weapon::TwelvePdrMountainHowitzer;
        m.formation = Formation::Limbered;
        assert_eq!(
            formation_change_cost(&m, Formation::Unlimbered, true),
            ChangeCost::WholeTurn
        );
    }

    #[test]
    fn i_b_4_ii_split_move_bars() {
        let mut u = inf().with_ranks(Ranks::One);
        u.base_morale = 4;
        assert_eq!(
            split_move_bars(&u),
            vec![SplitBar::BaseMoraleBelowFive, SplitBar::OneRankLine]
        );
        assert!(split_move_bars(&inf()).is_empty());
    }
}
