//! Line of sight (APSoF V.C.3; VIII.F hidden movement). Pure: the caller
//! says which units fired or moved this turn.
//!
//! The model, in the order a sight line is tested (docs/rulings-table.md):
//! 1. Anything within [`CONTACT_GAP`] of the observer is seen.
//! 2. Total cover (V.C.3): a unit that did not fire this turn is unseen if
//!    it is entrenched, its centre is in a town, or the sight line crosses a
//!    wall or fence lying within [`COVER_REACH`] of it.
//! 3. Hidden movement (VIII.F, only with `options.hidden_movement`): a unit
//!    in or at the edge of woods that neither moved nor fired is seen only
//!    from within [`WOOD_EDGE_SPOTTING`].
//! 4. Hills: contours are terraces; a contour higher than both the observer's
//!    and the target's ground that the sight line touches blocks it.
//! 5. Woods (V.C.3, IV.G visibility column): the sight line may run through
//!    4" of woods or 2" of dense woods; an inch of dense woods counts as two
//!    of woods. More is blocked.
//!
//! Sight lines run from the observer's eye — the centre of a unit's front, or
//! an officer's position — to the centre of the target. Units see all round.
//!
//! Terrain is held in R-trees ([`SightIndex`]) so each sight line only looks
//! at the features near it, and [`side_visibility`] tries observers nearest
//! first and stops at the first that sees.

use super::geometry::{CONTACT_GAP, Footprint, footprint};
use super::kinds::{AreaKind, LineKind};
use super::state::{BattleState, OfficerId, OfficerStatus, Pos, SideId, Terrain, Unit, UnitId};
use geo::{Distance, Euclidean, Intersects};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Inches of ordinary woods a sight line may cross (APSoF V.C.3, IV.G).
pub const WOODS_SIGHT: f64 = 4.0;
/// Inches of dense woods a sight line may cross (APSoF V.C.3, IV.G).
pub const DENSE_WOODS_SIGHT: f64 = 2.0;
/// A wall or fence this close to a unit is the cover it is "behind" (our
/// ruling).
pub const COVER_REACH: f64 = 1.0;
/// Units at a wood's edge are spotted from this close (APSoF VIII.F).
pub const WOOD_EDGE_SPOTTING: f64 = 4.0;

/// Who is looking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Observer {
    Unit(UnitId),
    Officer(OfficerId),
}

/// What happened this turn that reveals units: firing reveals units in
/// cover (V.C.3); moving or firing reveals units at a wood's edge (VIII.F).
#[derive(Debug, Clone, Copy)]
pub struct Activity<'a> {
    pub fired: &'a BTreeSet<UnitId>,
    pub moved: &'a BTreeSet<UnitId>,
}

/// How a unit came to be seen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeenBy {
    /// The nearest observer that sees it.
    pub observer: Observer,
    /// Where the observer's eye was.
    pub from: Pos,
    /// Inches from the eye to the nearest part of the unit.
    pub distance: f64,
}

/// The enemy units one side can see.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Visibility {
    pub seen: BTreeMap<UnitId, SeenBy>,
    /// SFRM messenger elements (either side's) the side can see: a rider
    /// is a real piece on the table (SFRM "Organisation"). Left out of the
    /// JSON while empty, so sightings without messengers keep their bytes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub messengers: BTreeMap<crate::rules::sfrm::MessengerId, SeenBy>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SightError {
    #[error("there is no unit with id {0}; check the unit list of the battle")]
    UnknownUnit(u32),
    #[error("there is no officer with id {0}; check the officer list of the battle")]
    UnknownOfficer(u32),
}

type Boxed = GeomWithData<Rectangle<[f64; 2]>, usize>;

/// Terrain prepared for sight queries: polygons built once, bounding boxes
/// in R-trees. Build it once per turn with [`SightIndex::new`].
#[derive(Debug, Clone)]
pub struct SightIndex {
    /// Woods (weight 1) and dense woods (weight 2).
    woods: Vec<(f64, geo::Polygon<f64>)>,
    woods_tree: RTree<Boxed>,
    towns: Vec<geo::Polygon<f64>>,
    towns_tree: RTree<Boxed>,
    hills: Vec<(f64, geo::Polygon<f64>)>,
    hills_tree: RTree<Boxed>,
    /// Fences, walls and works, with their kinds.
    cover: Vec<(LineKind, geo::LineString<f64>)>,
    cover_tree: RTree<Boxed>,
}

fn polygon(outline: &[Pos]) -> geo::Polygon<f64> {
    geo::Polygon::new(
        geo::LineString::from(
            outline
                .iter()
                .map(|p| geo::Coord::from(*p))
                .collect::<Vec<_>>(),
        ),
        vec![],
    )
}

fn bbox(points: &[Pos], index: usize) -> Boxed {
    let mut lo = [f64::INFINITY, f64::INFINITY];
    let mut hi = [f64::NEG_INFINITY, f64::NEG_INFINITY];
    for p in points {
        lo = [lo[0].min(p.x), lo[1].min(p.y)];
        hi = [hi[0].max(p.x), hi[1].max(p.y)];
    }
    if points.is_empty() {
        lo = [0.0, 0.0];
        hi = [0.0, 0.0];
    }
    GeomWithData::new(Rectangle::from_corners(lo, hi), index)
}

/// R-tree selection of the boxes a segment actually passes through, not
/// merely those overlapping its bounding box: a long diagonal sight line's
/// bounding box covers half the table.
struct SegmentSel {
    a: Pos,
    b: Pos,
}

impl SegmentSel {
    fn crosses(&self, env: &AABB<[f64; 2]>) -> bool {
        let (lo, hi) = (env.lower(), env.upper());
        let (dx, dy) = (self.b.x - self.a.x, self.b.y - self.a.y);
        super::geometry::segment_meets_box([
            (-dx, self.a.x - lo[0]),
            (dx, hi[0] - self.a.x),
            (-dy, self.a.y - lo[1]),
            (dy, hi[1] - self.a.y),
        ])
    }
}

impl rstar::SelectionFunction<Boxed> for SegmentSel {
    fn should_unpack_parent(&self, envelope: &AABB<[f64; 2]>) -> bool {
        self.crosses(envelope)
    }

    fn should_unpack_leaf(&self, leaf: &Boxed) -> bool {
        use rstar::RTreeObject;
        self.crosses(&leaf.envelope())
    }
}

/// Whether the segment touches the ring's area: an end inside, or crossing
/// an edge.
fn segment_touches(ring: &geo::LineString<f64>, a: Pos, b: Pos) -> bool {
    ring_contains(ring, a.x, a.y)
        || ring_contains(ring, b.x, b.y)
        || ring.lines().any(|e| e.intersects(&segment(a, b)))
}

fn segment(a: Pos, b: Pos) -> geo::Line<f64> {
    geo::Line::new(geo::Coord::from(a), geo::Coord::from(b))
}

impl SightIndex {
    pub fn new(terrain: &Terrain) -> SightIndex {
        let mut woods = Vec::new();
        let mut woods_boxes = Vec::new();
        let mut towns = Vec::new();
        let mut towns_boxes = Vec::new();
        // Features with non-finite points (which `BattleState::validate`
        // rejects) are left out rather than upsetting the R-tree.
        let finite = |pts: &[Pos]| pts.iter().all(|p| p.is_finite());
        for a in terrain.areas.iter().filter(|a| finite(&a.outline)) {
            let weight = match a.kind {
                AreaKind::Woods => 1.0,
                AreaKind::DenseWoods => WOODS_SIGHT / DENSE_WOODS_SIGHT,
                AreaKind::Town => {
                    towns_boxes.push(bbox(&a.outline, towns.len()));
                    towns.push(polygon(&a.outline));
                    continue;
                }
                _ => continue,
            };
            woods_boxes.push(bbox(&a.outline, woods.len()));
            woods.push((weight, polygon(&a.outline)));
        }
        let mut hills = Vec::new();
        let mut hills_boxes = Vec::new();
        for h in terrain.hills.iter().filter(|h| finite(&h.outline)) {
            hills_boxes.push(bbox(&h.outline, hills.len()));
            hills.push((h.height, polygon(&h.outline)));
        }
        let mut cover = Vec::new();
        let mut cover_boxes = Vec::new();
        for l in terrain.lines.iter().filter(|l| finite(&l.path)) {
            if l.kind.is_cover() {
                cover_boxes.push(bbox(&l.path, cover.len()));
                cover.push((
                    l.kind,
                    geo::LineString::from(
                        l.path
                            .iter()
                            .map(|p| geo::Coord::from(*p))
                            .collect::<Vec<_>>(),
                    ),
                ));
            }
        }
        SightIndex {
            woods,
            woods_tree: RTree::bulk_load(woods_boxes),
            towns,
            towns_tree: RTree::bulk_load(towns_boxes),
            hills,
            hills_tree: RTree::bulk_load(hills_boxes),
            cover,
            cover_tree: RTree::bulk_load(cover_boxes),
        }
    }

    /// Ground height at a point: the highest hill contour containing it, or 0.
    pub fn ground_height(&self, p: Pos) -> f64 {
        let pt = geo::Point::new(p.x, p.y);
        self.hills_tree
            .locate_all_at_point(&[p.x, p.y])
            .filter_map(|b| self.hills.get(b.data))
            .filter(|(_, poly)| poly.intersects(&pt))
            .map(|(h, _)| *h)
            .fold(0.0, f64::max)
    }

    /// Whether a hill contour higher than `above` lies across `a`–`b`.
    pub fn hill_blocks(&self, a: Pos, b: Pos, above: f64) -> bool {
        self.hills_tree
            .locate_with_selection_function(SegmentSel { a, b })
            .filter_map(|bx| self.hills.get(bx.data))
            .any(|(h, poly)| *h > above && segment_touches(poly.exterior(), a, b))
    }

    /// Inches of woods along `a`–`b`, dense woods counted double.
    pub fn woods_along(&self, a: Pos, b: Pos) -> f64 {
        self.woods_along_until(a, b, f64::INFINITY)
    }

    /// [`Self::woods_along`], giving up as soon as the total passes `limit`.
    fn woods_along_until(&self, a: Pos, b: Pos, limit: f64) -> f64 {
        let mut total = 0.0;
        for bx in self
            .woods_tree
            .locate_with_selection_function(SegmentSel { a, b })
        {
            let Some((weight, poly)) = self.woods.get(bx.data) else {
                continue;
            };
            total += weight * inside_length(poly.exterior(), a, b);
            if total > limit {
                break;
            }
        }
        total
    }

    /// The farthest an observer can be and still see through the woods to a
    /// point inside them: a point deeper in woods than they can be seen
    /// through is only visible from close by. `None`: no such limit.
    fn woods_range_limit(&self, p: Pos) -> Option<f64> {
        let pt = geo::Point::new(p.x, p.y);
        let mut limit: Option<f64> = None;
        for bx in self.woods_tree.locate_all_at_point(&[p.x, p.y]) {
            let Some((weight, poly)) = self.woods.get(bx.data) else {
                continue;
            };
            if !poly.intersects(&pt) {
                continue;
            }
            let sight = WOODS_SIGHT / weight;
            let depth = Euclidean.distance(&pt, poly.exterior());
            if depth > sight {
                limit = Some(limit.map_or(sight, |l: f64| l.min(sight)));
            }
        }
        limit
    }

    /// Whether the footprint touches any woods.
    pub fn in_woods(&self, fp: &Footprint) -> bool {
        let poly = fp.polygon();
        let c = fp.corners();
        self.woods_tree
            .locate_in_envelope_intersecting(&corners_box(&c))
            .filter_map(|bx| self.woods.get(bx.data))
            .any(|(_, w)| w.intersects(&poly))
    }

    pub fn in_town(&self, p: Pos) -> bool {
        let pt = geo::Point::new(p.x, p.y);
        self.towns_tree
            .locate_all_at_point(&[p.x, p.y])
            .filter_map(|bx| self.towns.get(bx.data))
            .any(|t| t.intersects(&pt))
    }

    /// Whether a wall or fence within [`COVER_REACH`] of the target lies
    /// across the sight line from `eye` to the target's centre.
    pub fn behind_cover(&self, eye: Pos, target: &Footprint) -> bool {
        let line = segment(eye, target.centre);
        let poly = target.polygon();
        self.cover_tree
            .locate_with_selection_function(SegmentSel {
                a: eye,
                b: target.centre,
            })
            .filter_map(|bx| self.cover.get(bx.data))
            .any(|(_, ls)| ls.intersects(&line) && Euclidean.distance(ls, &poly) <= COVER_REACH)
    }

    /// The fences, walls and works the target is behind as seen from `eye`
    /// (APSoF V.B table "Target protection"): each one that lies across the
    /// line from `eye` to the target's centre within `reach` of the target's
    /// footprint, so on the side facing `eye`. A line behind the target, or
    /// far in front of it, is not its cover.
    pub fn cover_between(&self, eye: Pos, target: &Footprint, reach: f64) -> Vec<LineKind> {
        let line = segment(eye, target.centre);
        let poly = target.polygon();
        let mut kinds: Vec<LineKind> = self
            .cover_tree
            .locate_with_selection_function(SegmentSel {
                a: eye,
                b: target.centre,
            })
            .filter_map(|bx| self.cover.get(bx.data))
            .filter(|(_, ls)| ls.intersects(&line) && Euclidean.distance(ls, &poly) <= reach)
            .map(|(k, _)| *k)
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    }

    /// Whether any wall or fence is near enough to the target to hide it from
    /// someone.
    fn cover_near(&self, target: &Footprint) -> bool {
        let c = target.corners();
        let mut b = corners_box(&c);
        b = AABB::from_corners(
            [b.lower()[0] - COVER_REACH, b.lower()[1] - COVER_REACH],
            [b.upper()[0] + COVER_REACH, b.upper()[1] + COVER_REACH],
        );
        let poly = target.polygon();
        self.cover_tree
            .locate_in_envelope_intersecting(&b)
            .filter_map(|bx| self.cover.get(bx.data))
            .any(|(_, ls)| Euclidean.distance(ls, &poly) <= COVER_REACH)
    }
}

/// Length of the segment `a`–`b` inside the closed ring: the segment is cut
/// at every crossing of the ring and each piece whose midpoint lies inside
/// is summed. Gives the same answer as `geo`'s `BooleanOps::clip` (a test
/// checks this) at a fraction of the cost, which matters for the thousands
/// of sight lines of a corps battle.
pub fn inside_length(ring: &geo::LineString<f64>, a: Pos, b: Pos) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len = dx.hypot(dy);
    if len <= 0.0 {
        return 0.0;
    }
    let mut cuts = vec![0.0, 1.0];
    for edge in ring.lines() {
        let (p, q) = (edge.start, edge.end);
        let (ex, ey) = (q.x - p.x, q.y - p.y);
        let denom = dx * ey - dy * ex;
        if denom.abs() < 1e-15 {
            continue;
        }
        let (wx, wy) = (p.x - a.x, p.y - a.y);
        let t = (wx * ey - wy * ex) / denom;
        let u = (wx * dy - wy * dx) / denom;
        if (0.0..=1.0).contains(&t) && (-1e-12..=1.0 + 1e-12).contains(&u) {
            cuts.push(t);
        }
    }
    cuts.sort_by(f64::total_cmp);
    let mut inside = 0.0;
    for w in cuts.windows(2) {
        let (t0, t1) = (w[0], w[1]);
        if t1 - t0 <= 1e-12 {
            continue;
        }
        let tm = (t0 + t1) / 2.0;
        if ring_contains(ring, a.x + dx * tm, a.y + dy * tm) {
            inside += t1 - t0;
        }
    }
    inside * len
}

/// Even-odd point-in-ring test.
fn ring_contains(ring: &geo::LineString<f64>, x: f64, y: f64) -> bool {
    let mut inside = false;
    for edge in ring.lines() {
        let (p, q) = (edge.start, edge.end);
        if (p.y > y) != (q.y > y) {
            let xc = p.x + (y - p.y) * (q.x - p.x) / (q.y - p.y);
            if x < xc {
                inside = !inside;
            }
        }
    }
    inside
}

fn corners_box(c: &[Pos; 4]) -> AABB<[f64; 2]> {
    let xs = c.iter().map(|p| p.x);
    let ys = c.iter().map(|p| p.y);
    AABB::from_corners(
        [
            xs.clone().fold(f64::INFINITY, f64::min),
            ys.clone().fold(f64::INFINITY, f64::min),
        ],
        [
            xs.fold(f64::NEG_INFINITY, f64::max),
            ys.fold(f64::NEG_INFINITY, f64::max),
        ],
    )
}

/// What the target looks like to every observer this turn.
struct TargetView<'a> {
    unit: &'a Unit,
    fp: Footprint,
    height: f64,
    /// Hidden by cover that does not depend on direction (trench, town).
    covered: bool,
    /// A wall or fence near enough that direction matters.
    cover_near: bool,
    /// Only seen from this close (hidden movement, deep woods).
    max_range: Option<f64>,
}

fn target_view<'a>(
    state: &BattleState,
    index: &SightIndex,
    unit: &'a Unit,
    activity: &Activity<'_>,
) -> TargetView<'a> {
    let fp = footprint(unit);
    let fired = activity.fired.contains(&unit.id);
    let moved = activity.moved.contains(&unit.id);
    let covered = !fired && (unit.entrenched || index.in_town(unit.position));
    let cover_near = !fired && index.cover_near(&fp);
    let mut max_range = index.woods_range_limit(unit.position);
    if state.options.hidden_movement && !fired && !moved && index.in_woods(&fp) {
        max_range = Some(max_range.map_or(WOOD_EDGE_SPOTTING, |m| m.min(WOOD_EDGE_SPOTTING)));
    }
    if covered {
        max_range = Some(CONTACT_GAP);
    }
    TargetView {
        unit,
        fp,
        height: index.ground_height(unit.position),
        covered,
        cover_near,
        max_range,
    }
}

/// Whether an eye at `eye` sees the target.
fn sees(index: &SightIndex, eye: Pos, t: &TargetView<'_>) -> bool {
    let distance = t.fp.distance_to(eye);
    if distance <= CONTACT_GAP {
        return true;
    }
    if t.covered {
        return false;
    }
    if t.max_range.is_some_and(|m| distance > m) {
        return false;
    }
    if t.cover_near && index.behind_cover(eye, &t.fp) {
        return false;
    }
    let above = index.ground_height(eye).max(t.height);
    if index.hill_blocks(eye, t.fp.centre, above) {
        return false;
    }
    index.woods_along_until(eye, t.fp.centre, WOODS_SIGHT) <= WOODS_SIGHT
}

/// Where an observer's eye is: the centre of a unit's front, or an officer's
/// position.
pub fn eye_of(state: &BattleState, observer: Observer) -> Result<Pos, SightError> {
    match observer {
        Observer::Unit(id) => state
            .unit(id)
            .map(|u| footprint(u).front_centre())
            .ok_or(SightError::UnknownUnit(id.0)),
        Observer::Officer(id) => state
            .officer(id)
            .map(|o| o.position)
            .ok_or(SightError::UnknownOfficer(id.0)),
    }
}

/// Whether `observer` can see `target` this turn (APSoF V.C.3, VIII.F).
pub fn can_see(
    state: &BattleState,
    index: &SightIndex,
    observer: Observer,
    target: UnitId,
    activity: &Activity<'_>,
) -> Result<bool, SightError> {
    let eye = eye_of(state, observer)?;
    let unit = state
        .unit(target)
        .ok_or(SightError::UnknownUnit(target.0))?;
    Ok(sees(index, eye, &target_view(state, index, unit, activity)))
}

/// Whether an eye at `eye` sees a lone rider at `at` (an SFRM messenger
/// element: one cavalry figure on a 1" base). The same hills and woods
/// block him as a unit (APSoF V.C.3); a town hides him except from contact,
/// and walls and fences never do (a horseman sits above them — our ruling,
/// docs/rulings-sfrm.md).
pub fn sees_point(index: &SightIndex, eye: Pos, at: Pos) -> bool {
    let distance = eye.distance(at);
    if distance <= CONTACT_GAP + super::geometry::OFFICER_RADIUS {
        return true;
    }
    if index.in_town(at) {
        return false;
    }
    if index.woods_range_limit(at).is_some_and(|m| distance > m) {
        return false;
    }
    let above = index.ground_height(eye).max(index.ground_height(at));
    if index.hill_blocks(eye, at, above) {
        return false;
    }
    index.woods_along_until(eye, at, WOODS_SIGHT) <= WOODS_SIGHT
}

/// The messengers `side` can see — its own riders too, since a rider out
/// of his own side's sight is not watched (docs/rulings-sfrm.md) — each
/// with its nearest observer (ties to the earlier observer: units in state
/// order, then officers).
pub fn messengers_seen(
    state: &BattleState,
    index: &SightIndex,
    side: SideId,
) -> BTreeMap<crate::rules::sfrm::MessengerId, SeenBy> {
    let mut out = BTreeMap::new();
    if state.sfrm.messengers.is_empty() {
        return out;
    }
    let mut observers: Vec<(Observer, Pos)> = state
        .units_of(side)
        .filter(|u| on_the_field(u))
        .map(|u| (Observer::Unit(u.id), footprint(u).front_centre()))
        .collect();
    observers.extend(
        state
            .officers_of(side)
            .filter(|o| o.status == OfficerStatus::Active)
            .map(|o| (Observer::Officer(o.id), o.position)),
    );
    for m in state.sfrm.messengers.values() {
        let mut best: Option<SeenBy> = None;
        for (observer, eye) in &observers {
            let d = eye.distance(m.position);
            if best.is_some_and(|b| b.distance <= d) || !sees_point(index, *eye, m.position) {
                continue;
            }
            best = Some(SeenBy {
                observer: *observer,
                from: *eye,
                distance: d,
            });
        }
        if let Some(b) = best {
            out.insert(m.id, b);
        }
    }
    out
}

/// Whether a unit is still on the field to see or be seen: a unit with no
/// castings left is gone — destroyed, captured, off the table edge or
/// combined into another (APSoF VI.C, VII.C) — and its last place is empty
/// ground.
fn on_the_field(u: &crate::rules::iron_brigade::state::Unit) -> bool {
    u.castings > 0
}

/// Every enemy unit `side` can see this turn, with the nearest observer that
/// sees it. Observers are the side's units and its officers still on the
/// field.
pub fn side_visibility(
    state: &BattleState,
    index: &SightIndex,
    side: SideId,
    activity: &Activity<'_>,
) -> Visibility {
    let mut observers: Vec<(Observer, Pos)> = state
        .units_of(side)
        .filter(|u| on_the_field(u))
        .map(|u| (Observer::Unit(u.id), footprint(u).front_centre()))
        .collect();
    observers.extend(
        state
            .officers_of(side)
            .filter(|o| o.status == OfficerStatus::Active)
            .map(|o| (Observer::Officer(o.id), o.position)),
    );
    let tree: RTree<GeomWithData<[f64; 2], usize>> = RTree::bulk_load(
        observers
            .iter()
            .enumerate()
            .filter(|(_, (_, p))| p.is_finite())
            .map(|(i, (_, p))| GeomWithData::new([p.x, p.y], i))
            .collect(),
    );
    let mut vis = Visibility::default();
    for unit in state.enemies_of(side).filter(|u| on_the_field(u)) {
        let view = target_view(state, index, unit, activity);
        let centre = [view.fp.centre.x, view.fp.centre.y];
        // Observers are sorted by distance to the target's centre; the
        // footprint can be nearer by up to its half-diagonal.
        let reach = view.max_range.map(|m| {
            let half_diag = view.fp.frontage.hypot(view.fp.depth) / 2.0;
            (m + half_diag).powi(2)
        });
        // Nearest first; the R-tree is bulk-loaded from the state's own
        // order, so the order of equally distant observers is the same on
        // every run.
        let found = tree
            .nearest_neighbor_iter_with_distance_2(&centre)
            .take_while(|(_, d2)| reach.is_none_or(|r| *d2 <= r))
            .find_map(|(obj, _)| {
                let (observer, eye) = observers.get(obj.data)?;
                sees(index, *eye, &view).then(|| SeenBy {
                    observer: *observer,
                    from: *eye,
                    distance: view.fp.distance_to(*eye),
                })
            });
        if let Some(seen) = found {
            vis.seen.insert(view.unit.id, seen);
        }
    }
    vis.messengers = messengers_seen(state, index, side);
    vis
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::state::{Area, Hill, LineFeature};

    fn square(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<Pos> {
        vec![
            Pos::new(x0, y0),
            Pos::new(x1, y0),
            Pos::new(x1, y1),
            Pos::new(x0, y1),
        ]
    }

    fn duel(target_y: f64) -> BattleState {
        BattleState {
            units: vec![
                Unit::infantry(1, "Blue", 0, 20, Pos::new(0.0, 0.0), 0.0),
                Unit::infantry(2, "Grey", 1, 20, Pos::new(0.0, target_y), 180.0),
            ],
            ..BattleState::default()
        }
    }

    fn look(state: &BattleState, fired: &[u32], moved: &[u32]) -> bool {
        let f: BTreeSet<UnitId> = fired.iter().map(|i| UnitId(*i)).collect();
        let m: BTreeSet<UnitId> = moved.iter().map(|i| UnitId(*i)).collect();
        let index = SightIndex::new(&state.terrain);
        let act = Activity {
            fired: &f,
            moved: &m,
        };
        let one = can_see(state, &index, Observer::Unit(UnitId(1)), UnitId(2), &act).unwrap();
        let all = side_visibility(state, &index, SideId(0), &act);
        assert_eq!(one, all.seen.contains_key(&UnitId(2)));
        one
    }

    fn woods(kind: AreaKind, y0: f64, y1: f64) -> Area {
        Area {
            name: "wood".into(),
            kind,
            outline: square(-10.0, y0, 10.0, y1),
        }
    }

    #[test]
    fn inside_length_agrees_with_geo_clip() {
        use geo::{BooleanOps, Length};
        let ring = vec![
            Pos::new(0.0, 0.0),
            Pos::new(10.0, 0.0),
            Pos::new(10.0, 10.0),
            Pos::new(5.0, 3.0),
            Pos::new(0.0, 10.0),
        ];
        let poly = polygon(&ring);
        for (a, b) in [
            (Pos::new(-5.0, 5.0), Pos::new(15.0, 5.0)),
            (Pos::new(-5.0, 1.0), Pos::new(15.0, 8.0)),
            (Pos::new(2.0, 2.0), Pos::new(3.0, 2.5)),
            (Pos::new(-1.0, -1.0), Pos::new(-3.0, 20.0)),
        ] {
            let mls = geo::MultiLineString::new(vec![geo::LineString::from(vec![
                geo::Coord::from(a),
                geo::Coord::from(b),
            ])]);
            let want = Euclidean.length(&poly.clip(&mls, false));
            let got = inside_length(poly.exterior(), a, b);
            assert!((want - got).abs() < 1e-6, "{a:?}-{b:?}: {want} vs {got}");
        }
    }

    #[test]
    fn non_finite_terrain_is_ignored_not_a_panic() {
        let mut s = duel(30.0);
        s.terrain.areas.push(Area {
            name: "bad".into(),
            kind: AreaKind::Woods,
            outline: vec![
                Pos::new(f64::NAN, 0.0),
                Pos::new(1.0, 1.0),
                Pos::new(0.0, 1.0),
            ],
        });
        s.units[1].position = Pos::new(f64::INFINITY, 0.0);
        let none = BTreeSet::new();
        let index = SightIndex::new(&s.terrain);
        let act = Activity {
            fired: &none,
            moved: &none,
        };
        let _ = side_visibility(&s, &index, SideId(1), &act);
        let _ = side_visibility(&s, &index, SideId(0), &act);
    }

    #[test]
    fn open_ground_is_seen() {
        assert!(look(&duel(30.0), &[], &[]));
    }

    #[test]
    fn v_c_3_woods_allow_4_inches_of_sight() {
        let mut s = duel(30.0);
        s.terrain.areas.push(woods(AreaKind::Woods, 10.0, 13.5));
        assert!(look(&s, &[], &[]));
        s.terrain.areas[0] = woods(AreaKind::Woods, 10.0, 14.5);
        assert!(!look(&s, &[], &[]));
    }

    #[test]
    fn v_c_3_dense_woods_allow_2_inches_of_sight() {
        let mut s = duel(30.0);
        s.terrain
            .areas
            .push(woods(AreaKind::DenseWoods, 10.0, 11.9));
        assert!(look(&s, &[], &[]));
        s.terrain.areas[0] = woods(AreaKind::DenseWoods, 10.0, 12.5);
        assert!(!look(&s, &[], &[]));
    }

    #[test]
    fn v_c_3_target_deep_in_woods_is_seen_only_from_close() {
        let mut s = duel(30.0);
        s.terrain.areas.push(woods(AreaKind::Woods, 20.0, 50.0));
        assert!(!look(&s, &[], &[]));
        s.units[0].position = Pos::new(0.0, 26.0);
        assert!(look(&s, &[], &[]));
    }

    #[test]
    fn v_c_3_units_behind_walls_are_unseen_unless_firing() {
        let mut s = duel(30.0);
        s.terrain.lines.push(LineFeature {
            name: "stone wall".into(),
            kind: LineKind::Wall,
            path: vec![Pos::new(-10.0, 28.8), Pos::new(10.0, 28.8)],
            water: None,
        });
        assert!(!look(&s, &[], &[]));
        assert!(look(&s, &[2], &[]));
        // From behind the wall (same side as the unit) it is seen.
        s.units[0].position = Pos::new(0.0, 40.0);
        assert!(look(&s, &[], &[]));
    }

    #[test]
    fn v_c_3_entrenched_and_town_units_are_unseen_unless_firing() {
        let mut s = duel(30.0);
        s.units[1].entrenched = true;
        assert!(!look(&s, &[], &[]));
        assert!(look(&s, &[2], &[]));
        let mut s = duel(30.0);
        s.terrain.areas.push(Area {
            name: "Groveton".into(),
            kind: AreaKind::Town,
            outline: square(-5.0, 25.0, 5.0, 35.0),
        });
        assert!(!look(&s, &[], &[]));
        assert!(look(&s, &[2], &[]));
    }

    #[test]
    fn hills_higher_than_both_block_sight() {
        let mut s = duel(30.0);
        s.terrain.hills.push(Hill {
            name: "ridge".into(),
            outline: square(-20.0, 12.0, 20.0, 16.0),
            height: 1.0,
        });
        assert!(!look(&s, &[], &[]));
        // Observer on a higher hill sees over the ridge.
        s.terrain.hills.push(Hill {
            name: "knoll".into(),
            outline: square(-20.0, -5.0, 20.0, 3.0),
            height: 2.0,
        });
        assert!(look(&s, &[], &[]));
    }

    #[test]
    fn viii_f_units_at_wood_edge_hidden_until_enemy_within_4_inches() {
        let mut s = duel(30.0);
        s.options.hidden_movement = true;
        s.terrain.areas.push(woods(AreaKind::Woods, 29.5, 40.0));
        assert!(!look(&s, &[], &[]));
        assert!(look(&s, &[], &[2]));
        assert!(look(&s, &[2], &[]));
        s.units[0].position = Pos::new(0.0, 25.0);
        assert!(look(&s, &[], &[]));
        // Without the optional rule the edge does not hide them.
        let mut s = duel(30.0);
        s.terrain.areas.push(woods(AreaKind::Woods, 29.5, 40.0));
        assert!(look(&s, &[], &[]));
    }

    #[test]
    fn side_visibility_names_the_nearest_observer() {
        let mut s = duel(30.0);
        s.units
            .push(Unit::infantry(3, "Near", 0, 20, Pos::new(5.0, 20.0), 0.0));
        let none = BTreeSet::new();
        let index = SightIndex::new(&s.terrain);
        let act = Activity {
            fired: &none,
            moved: &none,
        };
        let vis = side_visibility(&s, &index, SideId(0), &act);
        assert_eq!(vis.seen[&UnitId(2)].observer, Observer::Unit(UnitId(3)));
        let err = can_see(&s, &index, Observer::Unit(UnitId(9)), UnitId(2), &act).unwrap_err();
        assert!(err.to_string().contains("no unit with id 9"));
    }

    /// A unit with no castings left (destroyed, off the table, combined) is
    /// gone: its side no longer sees from where it stood, and the enemy no
    /// longer sees it there.
    #[test]
    fn units_with_no_castings_neither_see_nor_are_seen() {
        let mut s = duel(30.0);
        s.units
            .push(Unit::infantry(3, "Near", 0, 20, Pos::new(5.0, 20.0), 0.0));
        let none = BTreeSet::new();
        let index = SightIndex::new(&s.terrain);
        let act = Activity {
            fired: &none,
            moved: &none,
        };
        s.unit_mut(UnitId(3)).unwrap().castings = 0;
        let vis = side_visibility(&s, &index, SideId(0), &act);
        assert_eq!(vis.seen[&UnitId(2)].observer, Observer::Unit(UnitId(1)));
        let theirs = side_visibility(&s, &index, SideId(1), &act);
        assert!(!theirs.seen.contains_key(&UnitId(3)), "{theirs:?}");
        s.unit_mut(UnitId(2)).unwrap().castings = 0;
        assert!(side_visibility(&s, &index, SideId(0), &act).seen.is_empty());
    }
}
