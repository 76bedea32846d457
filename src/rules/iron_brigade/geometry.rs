//! Footprints and measurement on the table: how much ground a unit covers,
//! how many ranks deep it counts, ranges, fire zones, flank attacks, firing
//! over other units and contact (APSoF III.C, III.G, V.C, V.E, V.G, IX.B).
//!
//! Stand sizes are those of APSoF IX.B for 25 mm figures, the scale the rules
//! were written for (IX.G); docs/rulings-table.md lists every figure assumed.

use super::kinds::Formation;
use super::state::{BattleState, Pos, Ranks, Unit, UnitId};
use geo::{Distance, Euclidean, Intersects};

/// Infantry: two castings per inch of frontage per rank (APSoF III.C.2).
pub const INFANTRY_CASTINGS_PER_INCH: f64 = 2.0;
/// Depth of one infantry rank: a 25 mm 4-figure stand is 2" × 3/4" (IX.B),
/// which at two castings per inch holds one rank.
pub const INFANTRY_RANK_DEPTH: f64 = 0.75;
/// Cavalry: a 25 mm 2-figure stand is 2" × 2" (IX.B): one casting per inch
/// of frontage per rank, each rank 2" deep. Frontage is not doubled for
/// cavalry (III.C.2: "for infantry only").
pub const CAVALRY_CASTINGS_PER_INCH: f64 = 1.0;
pub const CAVALRY_RANK_DEPTH: f64 = 2.0;
/// A column is one stand wide (III.G.2): 2" for both 25 mm infantry and
/// cavalry stands.
pub const COLUMN_WIDTH: f64 = 2.0;
/// Ranks of a company column or en masse block (our ruling: four, i.e. half
/// the frontage of a two-rank line).
pub const COMPANY_COLUMN_RANKS: f64 = 4.0;
/// Unlimbered battery stand, 25 mm (IX.B): 4 guns or fewer, and more.
pub const BATTERY_SMALL: (f64, f64) = (1.5, 2.0);
pub const BATTERY_LARGE: (f64, f64) = (2.0, 3.0);
/// Limbered battery on the march: 1" wide, twice the unlimbered depth
/// (our ruling: limber, team and gun in file).
pub const LIMBERED_WIDTH: f64 = 1.0;
/// Smallest frontage any unit is given: half a 2-figure stand.
pub const MIN_FRONTAGE: f64 = 0.5;
/// An officer is a disc of this radius: the 25 mm personality stand is
/// 1/2" × 1" (IX.B).
pub const OFFICER_RADIUS: f64 = 0.25;
/// Friendly units behind a unit and within this distance of its front add to
/// its ranks (APSoF III.C.1).
pub const SUPPORT_DISTANCE: f64 = 8.0;
/// Two footprints this close or closer are in contact (our ruling: bases on
/// a table rarely touch exactly; half an inch is 12 yards).
pub const CONTACT_GAP: f64 = 0.5;

/// Unit vector of a compass facing: 0° → (0, 1) north, 90° → (1, 0) east.
pub fn facing_vector(facing_deg: f64) -> (f64, f64) {
    let r = facing_deg.to_radians();
    (r.sin(), r.cos())
}

/// Compass bearing from `from` to `to`, in [0, 360).
pub fn bearing(from: Pos, to: Pos) -> f64 {
    normalize_deg((to.x - from.x).atan2(to.y - from.y).to_degrees())
}

/// Degrees into [0, 360).
pub fn normalize_deg(d: f64) -> f64 {
    let r = d.rem_euclid(360.0);
    if r >= 360.0 { 0.0 } else { r }
}

/// Smallest absolute difference between two compass bearings, in [0, 180].
pub fn angle_between(a: f64, b: f64) -> f64 {
    let d = normalize_deg(a - b);
    if d > 180.0 { 360.0 - d } else { d }
}

/// An oriented rectangle on the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    pub centre: Pos,
    pub facing: f64,
    /// Width across the front, inches.
    pub frontage: f64,
    /// Depth front to rear, inches.
    pub depth: f64,
}

impl Footprint {
    /// Local coordinates of `p`: (to the right of centre, ahead of centre).
    pub fn to_local(&self, p: Pos) -> (f64, f64) {
        let (fx, fy) = facing_vector(self.facing);
        let (dx, dy) = (p.x - self.centre.x, p.y - self.centre.y);
        // Right-hand vector of facing (fx, fy) is (fy, -fx).
        (dx * fy - dy * fx, dx * fx + dy * fy)
    }

    /// Table coordinates of local (right, ahead).
    pub fn to_table(&self, right: f64, ahead: f64) -> Pos {
        let (fx, fy) = facing_vector(self.facing);
        Pos::new(
            self.centre.x + right * fy + ahead * fx,
            self.centre.y - right * fx + ahead * fy,
        )
    }

    /// Front-left, front-right, rear-right, rear-left.
    pub fn corners(&self) -> [Pos; 4] {
        let (w, d) = (self.frontage / 2.0, self.depth / 2.0);
        [
            self.to_table(-w, d),
            self.to_table(w, d),
            self.to_table(w, -d),
            self.to_table(-w, -d),
        ]
    }

    /// Centre of the front edge: where ranges are measured from (V.E.1).
    pub fn front_centre(&self) -> Pos {
        self.to_table(0.0, self.depth / 2.0)
    }

    pub fn polygon(&self) -> geo::Polygon<f64> {
        let c = self.corners();
        geo::Polygon::new(
            geo::LineString::from(
                c.iter()
                    .chain(std::iter::once(&c[0]))
                    .map(|p| geo::Coord::from(*p))
                    .collect::<Vec<_>>(),
            ),
            vec![],
        )
    }

    /// The point of the footprint nearest to `p` (p itself when inside).
    pub fn nearest_point(&self, p: Pos) -> Pos {
        let (r, a) = self.to_local(p);
        let (w, d) = (self.frontage / 2.0, self.depth / 2.0);
        self.to_table(r.clamp(-w, w), a.clamp(-d, d))
    }

    /// Distance from `p` to the nearest part of the footprint; 0 inside.
    pub fn distance_to(&self, p: Pos) -> f64 {
        p.distance(self.nearest_point(p))
    }

    /// Gap between two footprints; 0 when they touch or overlap.
    pub fn gap(&self, other: &Footprint) -> f64 {
        Euclidean.distance(&self.polygon(), &other.polygon())
    }

    /// Whether the segment `a`–`b` passes through the footprint shrunk by
    /// `inset` on every side (a positive inset ignores grazing contacts).
    pub fn segment_crosses(&self, a: Pos, b: Pos, inset: f64) -> bool {
        let (w, d) = (self.frontage / 2.0 - inset, self.depth / 2.0 - inset);
        if w <= 0.0 || d <= 0.0 {
            return false;
        }
        let (ax, ay) = self.to_local(a);
        let (bx, by) = self.to_local(b);
        let (dx, dy) = (bx - ax, by - ay);
        segment_meets_box([(-dx, ax + w), (dx, w - ax), (-dy, ay + d), (dy, d - ay)])
    }

    /// Area in square inches.
    pub fn area(&self) -> f64 {
        self.frontage * self.depth
    }
}

/// Frontage and depth of a unit drawn up in `formation` (APSoF III.C, III.G,
/// IX.B). See the constants above for the stand sizes behind each figure.
#[inline]
pub fn formation_size(unit: &Unit, formation: Formation) -> (f64, f64) {
    if unit.arm.is_artillery() {
        let (w, d) = if unit.guns > 4 {
            BATTERY_LARGE
        } else {
            BATTERY_SMALL
        };
        return match formation {
            Formation::Limbered => (LIMBERED_WIDTH, 2.0 * d),
            _ => (w, d),
        };
    }
    let n = f64::from(unit.castings_in_line().max(1));
    let (per_inch, rank_depth) = if unit.on_foot() {
        (INFANTRY_CASTINGS_PER_INCH, INFANTRY_RANK_DEPTH)
    } else {
        (CAVALRY_CASTINGS_PER_INCH, CAVALRY_RANK_DEPTH)
    };
    let block = |ranks: f64| {
        let frontage = (n / (per_inch * ranks)).max(MIN_FRONTAGE);
        (frontage, rank_depth * ranks.max(1.0))
    };
    match formation {
        Formation::Line => block(unit.formed_ranks.value().max(1.0)),
        Formation::Skirmish => {
            let r = match unit.formed_ranks {
                Ranks::Third => 1.0 / 3.0,
                _ => 0.5,
            };
            block(r)
        }
        Formation::Column => {
            let ranks = (n / (per_inch * COLUMN_WIDTH)).ceil().max(1.0);
            (
                COLUMN_WIDTH.min(n / per_inch).max(MIN_FRONTAGE),
                rank_depth * ranks,
            )
        }
        Formation::CompanyColumn | Formation::EnMasse => block(COMPANY_COLUMN_RANKS),
        // An artillery formation on a non-artillery unit is rejected by
        // `BattleState::validate`; draw it as a two-rank line meanwhile.
        Formation::Limbered | Formation::Unlimbered => block(2.0),
    }
}

/// The unit's footprint as it stands.
#[inline]
pub fn footprint(unit: &Unit) -> Footprint {
    let (frontage, depth) = formation_size(unit, unit.formation);
    Footprint {
        centre: unit.position,
        facing: unit.facing,
        frontage,
        depth,
    }
}

/// Round a castings-per-frontage ratio to the ranks of APSoF III.C.3: the
/// nearest of 3, 2, 1, 1/2, 1/3, halfway rounding up.
pub fn round_ranks(ratio: f64) -> Ranks {
    if ratio >= 2.5 {
        Ranks::Three
    } else if ratio >= 1.5 {
        Ranks::Two
    } else if ratio >= 0.75 {
        Ranks::One
    } else if ratio >= 5.0 / 12.0 {
        Ranks::Half
    } else {
        Ranks::Third
    }
}

/// Ranks deep (APSoF III.C): castings in the unit and in friendly units
/// behind it within 8" of its front, divided by its frontage (doubled for
/// foot), rounded by [`round_ranks`]. Artillery is always one rank (III.C.5).
///
/// `seen_from` is the firer's position: front, back and frontage are then
/// those presented to the firer (III.C.4, enfilade). `None` means seen from
/// straight ahead of the unit. A friendly unit behind that only partly
/// overlaps the presented frontage adds the overlapping share of its
/// castings (our ruling).
pub fn ranks_deep(state: &BattleState, unit: &Unit, seen_from: Option<Pos>) -> Ranks {
    ranks_counting(Some(state), unit, seen_from)
}

/// Ranks of the unit alone, without supports behind it, as seen from
/// `seen_from`. Used for firing through a thin enemy line (APSoF V.C.2.i):
/// the units behind a skirmish screen are what the firer shoots at, not part
/// of the screen (our ruling).
pub fn own_ranks(unit: &Unit, seen_from: Option<Pos>) -> Ranks {
    ranks_counting(None, unit, seen_from)
}

/// The friendly units standing in support behind `unit` as seen from
/// `seen_from`: those [`ranks_deep`] counts in its ranks (APSoF III.C.1),
/// in id order. A fire at a unit counted 3 ranks deep with them falls on
/// them too (V.B note *).
pub fn supports_behind(state: &BattleState, unit: &Unit, seen_from: Option<Pos>) -> Vec<UnitId> {
    let mut ids = Vec::new();
    ranks_collecting(Some(state), unit, seen_from, Some(&mut ids));
    ids.sort_unstable();
    ids
}

fn ranks_counting(state: Option<&BattleState>, unit: &Unit, seen_from: Option<Pos>) -> Ranks {
    ranks_collecting(state, unit, seen_from, None)
}

fn ranks_collecting(
    state: Option<&BattleState>,
    unit: &Unit,
    seen_from: Option<Pos>,
    mut collect: Option<&mut Vec<UnitId>>,
) -> Ranks {
    if unit.arm.is_artillery() {
        return Ranks::One;
    }
    let fp = footprint(unit);
    // Direction of view: from the viewer into the unit.
    let (dx, dy) = match seen_from {
        Some(p) => {
            let (vx, vy) = (fp.centre.x - p.x, fp.centre.y - p.y);
            let len = vx.hypot(vy);
            if len > 1e-9 {
                (vx / len, vy / len)
            } else {
                neg(facing_vector(fp.facing))
            }
        }
        None => neg(facing_vector(fp.facing)),
    };
    let project = |q: Pos| (q.x * dx + q.y * dy, -q.x * dy + q.y * dx);
    let extent = |f: &Footprint| {
        let mut s = (f64::INFINITY, f64::NEG_INFINITY);
        let mut l = (f64::INFINITY, f64::NEG_INFINITY);
        for c in f.corners() {
            let (a, b) = project(c);
            s = (s.0.min(a), s.1.max(a));
            l = (l.0.min(b), l.1.max(b));
        }
        (s, l)
    };
    let ((front, _), (lmin, lmax)) = extent(&fp);
    let centre_s = project(fp.centre).0;
    let presented = (lmax - lmin).max(MIN_FRONTAGE);
    let mut count = f64::from(unit.castings_in_line());
    let supports = state.into_iter().flat_map(|s| s.units_of(unit.side));
    for other in supports {
        if other.id == unit.id || other.broken {
            continue;
        }
        let ofp = footprint(other);
        // Cheap rejection: a support must lie side by side with the unit
        // (within both half-diagonals) and at most SUPPORT_DISTANCE plus its
        // own diagonal deeper, so anything farther on either axis is out.
        let reach =
            SUPPORT_DISTANCE + (fp.frontage + fp.depth) / 2.0 + (ofp.frontage + ofp.depth) + 1e-6;
        if (ofp.centre.x - fp.centre.x).abs() > reach || (ofp.centre.y - fp.centre.y).abs() > reach
        {
            continue;
        }
        let ((onear, _), (omin, omax)) = extent(&ofp);
        let behind = project(ofp.centre).0 > centre_s;
        let overlap = lmax.min(omax) - lmin.max(omin);
        if behind && onear - front <= SUPPORT_DISTANCE && overlap > 0.0 {
            let share = (overlap / (omax - omin).max(1e-9)).min(1.0);
            count += f64::from(other.castings_in_line()) * share;
            if let Some(ids) = collect.as_deref_mut() {
                ids.push(other.id);
            }
        }
    }
    let divisor = if unit.on_foot() {
        presented * INFANTRY_CASTINGS_PER_INCH
    } else {
        presented
    };
    round_ranks(count / divisor)
}

fn neg((x, y): (f64, f64)) -> (f64, f64) {
    (-x, -y)
}

/// Distance in inches from a point to a footprint, rounded up to the next
/// whole inch (APSoF V.E.1). A hair of floating error is forgiven so that
/// exactly 6" does not become 7".
pub fn range_inches_from(from: Pos, target: &Footprint) -> u32 {
    let d = target.distance_to(from);
    let up = (d - 1e-9).ceil();
    if up <= 0.0 { 0 } else { up as u32 }
}

/// Fire range (APSoF V.E.1): from the centre of the firer's front to the
/// nearest part of the target, rounded up to the next inch.
pub fn range_inches(firer: &Unit, target: &Unit) -> u32 {
    range_inches_from(footprint(firer).front_centre(), &footprint(target))
}

/// Whether any part of `target` lies in the firer's fire zone: 45° either
/// side of straight ahead from the centre of the firer (APSoF V.C.1).
pub fn in_fire_zone(firer: &Unit, target: &Footprint) -> bool {
    FireZone::of(firer).reaches(target)
}

/// A unit's fire zone where it stands (APSoF V.C.1, see [`in_fire_zone`]),
/// built once to test many targets.
pub struct FireZone {
    wedge: geo::Polygon<f64>,
}

impl FireZone {
    pub fn of(firer: &Unit) -> FireZone {
        let apex = firer.position;
        let far = 100_000.0;
        let left = facing_vector(firer.facing - 45.0);
        let right = facing_vector(firer.facing + 45.0);
        let wedge = geo::Polygon::new(
            geo::LineString::from(vec![
                (apex.x, apex.y),
                (apex.x + far * left.0, apex.y + far * left.1),
                (apex.x + far * right.0, apex.y + far * right.1),
                (apex.x, apex.y),
            ]),
            vec![],
        );
        FireZone { wedge }
    }

    /// Whether any part of `target` lies in the zone.
    pub fn reaches(&self, target: &Footprint) -> bool {
        self.wedge.intersects(&target.polygon())
    }
}

/// Where an attack comes from, relative to the target's facing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aspect {
    Front,
    Flank,
    Rear,
}

impl Aspect {
    /// Flank and rear attacks put the defender in a perilous situation
    /// (APSoF V.G.1.i).
    pub fn is_perilous(self) -> bool {
        !matches!(self, Aspect::Front)
    }
}

/// The aspect of an attack from `from` on `target` (APSoF V.G.1.i). Our
/// ruling: an attacker inside the target's own fire zone (45° either side of
/// its facing, from its centre, as V.C.1) attacks its front; from 45° to
/// 135° off its facing, its flank; beyond, its rear.
pub fn attack_aspect(target: &Unit, from: Pos) -> Aspect {
    let off = angle_between(bearing(target.position, from), target.facing);
    if off <= 45.0 {
        Aspect::Front
    } else if off <= 135.0 {
        Aspect::Flank
    } else {
        Aspect::Rear
    }
}

/// Whether a line of fire is open (APSoF V.C.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FireLine {
    Clear,
    /// The nearest unit in the way that the firer may not shoot over or
    /// through.
    BlockedBy(UnitId),
}

/// Check the line of fire from the centre of the firer's front to the
/// nearest part of the target against every other unit in between
/// (APSoF V.C.2). A unit in the way does not block when
/// - it is an enemy of the firer 1/3 rank deep as seen from the firer,
///   counting its own castings only ([`own_ranks`]) (i); or
/// - firer and target stand at different elevations, it is lower than the
///   higher of them, and it is within 1/3 of the distance from the higher
///   one (ii); or
/// - it stands lower than both firer and target (ii: "in a depression").
///
/// `elevation` gives ground height at a point (see
/// [`super::sight::SightIndex::ground_height`]). A unit whose footprint the
/// line only grazes (within 0.05") is not in the way.
pub fn fire_line(
    state: &BattleState,
    firer: &Unit,
    target: &Unit,
    elevation: &dyn Fn(Pos) -> f64,
) -> FireLine {
    fire_line_with(state, None, firer, target, elevation)
}

/// Every unit's footprint on one state, worked out once for many fire lines
/// ([`fire_line_with`]), with the units ordered by the x of their centres.
pub struct UnitFootprints {
    /// `all[i]` is `footprint(&state.units[i])`.
    pub all: Vec<Footprint>,
    /// Unit indices sorted by centre x.
    by_x: Vec<usize>,
    /// The largest `(frontage + depth) / 2` of any unit.
    max_half_extent: f64,
    /// Whether every centre and extent is finite (else the x order is not
    /// used).
    finite: bool,
}

impl UnitFootprints {
    pub fn new(state: &BattleState) -> UnitFootprints {
        let all: Vec<Footprint> = state.units.iter().map(footprint).collect();
        let mut by_x: Vec<usize> = (0..all.len()).collect();
        by_x.sort_by(|&a, &b| {
            let x = |i: usize| all.get(i).map_or(0.0, |f| f.centre.x);
            x(a).total_cmp(&x(b))
        });
        let max_half_extent = all
            .iter()
            .map(|f| (f.frontage + f.depth) / 2.0)
            .fold(0.0, f64::max);
        let finite = max_half_extent.is_finite()
            && all
                .iter()
                .all(|f| f.centre.x.is_finite() && (f.frontage + f.depth).is_finite());
        UnitFootprints {
            all,
            by_x,
            max_half_extent,
            finite,
        }
    }
}

/// [`fire_line`], given every unit's footprint worked out beforehand from
/// this same state, as the fire phase does once for all its target choices
/// instead of once per unit per line. Only units whose centres lie within
/// reach of the line's x range are looked at; the others the cheap
/// rejection below would skip anyway, and the blocker chosen does not
/// depend on the order of visits.
pub fn fire_line_with(
    state: &BattleState,
    footprints: Option<&UnitFootprints>,
    firer: &Unit,
    target: &Unit,
    elevation: &dyn Fn(Pos) -> f64,
) -> FireLine {
    let from = footprint(firer).front_centre();
    let tfp = footprint(target);
    let to = tfp.nearest_point(from);
    let total = from.distance(to);
    let (hf, ht) = (elevation(from), elevation(tfp.centre));
    let mut blockers: Vec<(f64, UnitId)> = Vec::new();
    let lo = (from.x.min(to.x), from.y.min(to.y));
    let hi = (from.x.max(to.x), from.y.max(to.y));
    let mut consider = |u: &Unit, ufp: Footprint| {
        if u.id == firer.id || u.id == target.id {
            return;
        }
        // Cheap rejection: a unit wholly beside the segment's bounding box
        // (by more than its half-diagonal bound) cannot be crossed.
        let r = (ufp.frontage + ufp.depth) / 2.0 + 1e-6;
        if u.position.x + r < lo.0
            || u.position.x - r > hi.0
            || u.position.y + r < lo.1
            || u.position.y - r > hi.1
        {
            return;
        }
        if !ufp.segment_crosses(from, to, 0.05) {
            return;
        }
        if u.side != firer.side && own_ranks(u, Some(from)) == Ranks::Third {
            return;
        }
        let hu = elevation(u.position);
        if hu < hf && hu < ht {
            return;
        }
        let along = ufp.distance_to(from);
        if hf != ht {
            let (high, from_high) = if hf > ht {
                (hf, along)
            } else {
                (ht, ufp.distance_to(to))
            };
            if hu < high && from_high <= total / 3.0 {
                return;
            }
        }
        blockers.push((along, u.id));
    };
    let usable = |f: &&UnitFootprints| {
        f.finite && f.all.len() == state.units.len() && lo.0.is_finite() && hi.0.is_finite()
    };
    match footprints.filter(usable) {
        Some(f) => {
            // Centres farther than any unit's reach (with a margin) from the
            // line's x range.
            let margin = f.max_half_extent + 1e-3;
            let x = |i: &usize| f.all.get(*i).map_or(0.0, |fp| fp.centre.x);
            let first = f.by_x.partition_point(|i| x(i) < lo.0 - margin);
            let last = f.by_x.partition_point(|i| x(i) <= hi.0 + margin);
            for &i in f.by_x.get(first..last).unwrap_or_default() {
                if let (Some(u), Some(ufp)) = (state.units.get(i), f.all.get(i)) {
                    consider(u, *ufp);
                }
            }
        }
        None => {
            for u in &state.units {
                consider(u, footprint(u));
            }
        }
    }
    blockers.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    match blockers.first() {
        Some((_, id)) => FireLine::BlockedBy(*id),
        None => FireLine::Clear,
    }
}

/// Whether two units are in contact: footprints within [`CONTACT_GAP`]
/// (our ruling; the rules speak of castings touching, APSoF VI.D.3).
pub fn in_contact(a: &Unit, b: &Unit) -> bool {
    let (fa, fb) = (footprint(a), footprint(b));
    // Cheap rejection before the polygon distance: every point of a
    // footprint lies within (frontage + depth) / 2 of its centre.
    let reach = (fa.frontage + fa.depth + fb.frontage + fb.depth) / 2.0 + CONTACT_GAP + 1e-6;
    if (fa.centre.x - fb.centre.x).abs() > reach || (fa.centre.y - fb.centre.y).abs() > reach {
        return false;
    }
    // Then the separation along either footprint's own axes, a lower bound
    // of the gap (with a margin far above rounding): units facing each
    // other a few inches apart are told apart without the polygon distance.
    let bound = CONTACT_GAP + 1e-6;
    if axis_separation(&fa, &fb) > bound || axis_separation(&fb, &fa) > bound {
        return false;
    }
    fa.gap(&fb) <= CONTACT_GAP
}

/// A lower bound of the gap between two footprints: how far `b` lies
/// beyond `a` along `a`'s own two axes (ahead and to the right). Projecting
/// onto a unit vector never lengthens a distance, and `a` projects onto its
/// own axes as its centre ± half its depth or frontage; the bound is good
/// to rounding (~1e-12 on a table of a few hundred inches), so callers
/// compare it with a margin.
pub fn axis_separation(a: &Footprint, b: &Footprint) -> f64 {
    let (fx, fy) = facing_vector(a.facing);
    let corners = b.corners();
    let mut best = f64::NEG_INFINITY;
    for (ux, uy, half) in [(fx, fy, a.depth / 2.0), (fy, -fx, a.frontage / 2.0)] {
        let c = a.centre.x * ux + a.centre.y * uy;
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in &corners {
            let t = p.x * ux + p.y * uy;
            lo = lo.min(t);
            hi = hi.max(t);
        }
        best = best.max((lo - (c + half)).max((c - half) - hi));
    }
    best
}

/// Whether an officer at `at` is in contact with a unit (APSoF VI.E.2.ii):
/// his disc within [`CONTACT_GAP`] of the footprint.
pub fn officer_in_contact(at: Pos, unit: &Unit) -> bool {
    footprint(unit).distance_to(at) <= OFFICER_RADIUS + CONTACT_GAP
}

/// Liang–Barsky clipping: whether a segment meets an axis-aligned box, given
/// the four (p, q) pairs of the segment against the box's four sides
/// (p = the segment's direction across that side, q = the start's distance
/// inside it). Shared by footprints (in their own frame) and the sight
/// index's bounding boxes.
pub(crate) fn segment_meets_box(sides: [(f64, f64); 4]) -> bool {
    let mut t0: f64 = 0.0;
    let mut t1: f64 = 1.0;
    for (p, q) in sides {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::state::BattleState;

    fn inf(id: u32, side: u8, n: u32, x: f64, y: f64, facing: f64) -> Unit {
        Unit::infantry(id, &format!("u{id}"), side, n, Pos::new(x, y), facing)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn iii_c_two_rank_line_is_two_castings_per_inch_per_rank() {
        let u = inf(1, 0, 20, 0.0, 0.0, 0.0);
        let fp = footprint(&u);
        assert!(close(fp.frontage, 5.0) && close(fp.depth, 1.5), "{fp:?}");
        let s = BattleState {
            units: vec![u.clone()],
            ..BattleState::default()
        };
        assert_eq!(ranks_deep(&s, &u, None), Ranks::Two);
    }

    #[test]
    fn iii_c_4_enfilade_counts_more_ranks() {
        let u = inf(1, 0, 20, 0.0, 0.0, 0.0);
        let s = BattleState {
            units: vec![u.clone()],
            ..BattleState::default()
        };
        // From the east flank: presented frontage is the 1.5" depth.
        assert_eq!(ranks_deep(&s, &u, Some(Pos::new(20.0, 0.0))), Ranks::Three);
        assert_eq!(ranks_deep(&s, &u, Some(Pos::new(0.0, 20.0))), Ranks::Two);
    }

    #[test]
    fn iii_c_1_supports_within_8_inches_behind_add_castings() {
        let front = inf(1, 0, 10, 0.0, 0.0, 0.0).with_ranks(Ranks::One); // 5" wide
        let support = inf(2, 0, 10, 0.0, -4.0, 0.0).with_ranks(Ranks::One);
        let far = inf(3, 0, 10, 0.0, -20.0, 0.0).with_ranks(Ranks::One);
        let s = BattleState {
            units: vec![front.clone(), support, far],
            ..BattleState::default()
        };
        // 20 castings / (5" × 2) = 2 ranks.
        assert_eq!(ranks_deep(&s, &front, None), Ranks::Two);
    }

    #[test]
    fn iii_c_3_rounding_halfway_rounds_up() {
        assert_eq!(round_ranks(2.5), Ranks::Three);
        assert_eq!(round_ranks(2.49), Ranks::Two);
        assert_eq!(round_ranks(1.5), Ranks::Two);
        assert_eq!(round_ranks(0.75), Ranks::One);
        assert_eq!(round_ranks(0.74), Ranks::Half);
        assert_eq!(round_ranks(5.0 / 12.0), Ranks::Half);
        assert_eq!(round_ranks(0.4), Ranks::Third);
    }

    #[test]
    fn iii_c_5_artillery_is_always_one_rank() {
        let b = Unit::battery(1, "B", 0, 6, Pos::default(), 0.0);
        let s = BattleState {
            units: vec![b.clone()],
            ..BattleState::default()
        };
        assert_eq!(ranks_deep(&s, &b, Some(Pos::new(10.0, 0.0))), Ranks::One);
        let fp = footprint(&b);
        assert!(close(fp.frontage, 2.0) && close(fp.depth, 3.0));
    }

    #[test]
    fn iii_g_skirmish_is_open_order_and_column_is_deep() {
        let sk = inf(1, 0, 12, 0.0, 0.0, 0.0)
            .with_formation(Formation::Skirmish)
            .with_ranks(Ranks::Third);
        let col = inf(2, 0, 20, 50.0, 0.0, 0.0).with_formation(Formation::Column);
        let s = BattleState {
            units: vec![sk.clone(), col.clone()],
            ..BattleState::default()
        };
        assert_eq!(ranks_deep(&s, &sk, None), Ranks::Third);
        assert!(close(footprint(&sk).frontage, 18.0));
        assert_eq!(ranks_deep(&s, &col, None), Ranks::Three);
        assert!(close(footprint(&col).frontage, COLUMN_WIDTH));
    }

    #[test]
    fn v_e_1_range_from_front_centre_to_nearest_part_rounded_up() {
        let a = inf(1, 0, 20, 0.0, 0.0, 0.0); // front at y = 0.75
        let b = inf(2, 1, 20, 0.0, 7.5, 180.0); // near edge at y = 6.75
        assert_eq!(range_inches(&a, &b), 6);
        let c = inf(3, 1, 20, 0.0, 7.6, 180.0);
        assert_eq!(range_inches(&a, &c), 7);
    }

    #[test]
    fn v_c_1_fire_zone_is_45_degrees_either_side() {
        let a = inf(1, 0, 20, 0.0, 0.0, 0.0);
        let ahead = footprint(&inf(2, 1, 4, 0.0, 10.0, 180.0));
        let oblique = footprint(&inf(3, 1, 4, 9.0, 10.0, 180.0));
        let beside = footprint(&inf(4, 1, 4, 20.0, 2.0, 180.0));
        assert!(in_fire_zone(&a, &ahead));
        assert!(in_fire_zone(&a, &oblique));
        assert!(!in_fire_zone(&a, &beside));
    }

    #[test]
    fn v_g_1_i_flank_and_rear_are_perilous() {
        let t = inf(1, 0, 20, 0.0, 0.0, 0.0);
        assert_eq!(attack_aspect(&t, Pos::new(0.0, 10.0)), Aspect::Front);
        assert_eq!(attack_aspect(&t, Pos::new(10.0, 0.0)), Aspect::Flank);
        assert_eq!(attack_aspect(&t, Pos::new(1.0, -10.0)), Aspect::Rear);
        assert!(Aspect::Rear.is_perilous() && !Aspect::Front.is_perilous());
    }

    #[test]
    fn v_c_2_friends_in_the_way_block_fire() {
        let firer = inf(1, 0, 20, 0.0, 0.0, 0.0);
        let friend = inf(2, 0, 20, 0.0, 5.0, 0.0);
        let target = inf(3, 1, 20, 0.0, 12.0, 180.0);
        let s = BattleState {
            units: vec![firer.clone(), friend, target.clone()],
            ..BattleState::default()
        };
        assert_eq!(
            fire_line(&s, &firer, &target, &|_| 0.0),
            FireLine::BlockedBy(UnitId(2))
        );
    }

    #[test]
    fn v_c_2_i_fire_through_enemy_third_rank_skirmishers() {
        let firer = inf(1, 0, 20, 0.0, 0.0, 0.0);
        let skirm = inf(2, 1, 8, 0.0, 5.0, 180.0)
            .with_formation(Formation::Skirmish)
            .with_ranks(Ranks::Third);
        let target = inf(3, 1, 20, 0.0, 12.0, 180.0);
        let s = BattleState {
            units: vec![firer.clone(), skirm, target.clone()],
            ..BattleState::default()
        };
        assert_eq!(fire_line(&s, &firer, &target, &|_| 0.0), FireLine::Clear);
    }

    #[test]
    fn v_c_2_ii_fire_over_a_unit_near_the_higher_firer() {
        let firer = inf(1, 0, 20, 0.0, 0.0, 0.0);
        let friend_near = inf(2, 0, 20, 0.0, 3.0, 0.0);
        let target = inf(3, 1, 20, 0.0, 20.0, 180.0);
        let s = BattleState {
            units: vec![firer.clone(), friend_near, target.clone()],
            ..BattleState::default()
        };
        let hill = |p: Pos| if p.y < 1.0 { 2.0 } else { 0.0 };
        assert_eq!(fire_line(&s, &firer, &target, &hill), FireLine::Clear);
        // The same friend halfway there blocks even from the hill.
        let mut s2 = s.clone();
        s2.units[1].position = Pos::new(0.0, 10.0);
        assert_eq!(
            fire_line(&s2, &firer, &target, &hill),
            FireLine::BlockedBy(UnitId(2))
        );
    }

    #[test]
    fn contact_is_within_half_an_inch() {
        let a = inf(1, 0, 20, 0.0, 0.0, 0.0);
        let b = inf(2, 1, 20, 0.0, 1.9, 180.0);
        let c = inf(3, 1, 20, 0.0, 2.1, 180.0);
        assert!(in_contact(&a, &b));
        assert!(!in_contact(&a, &c));
        assert!(officer_in_contact(Pos::new(0.0, -1.2), &a));
    }

    /// The fire phase's prepared footprints (x-ordered, culled) must find
    /// the same blocker as the plain walk over every unit.
    #[test]
    fn v_c_2_fire_line_with_prepared_footprints_agrees() {
        let (s, _) = crate::rules::iron_brigade::state::corps_battle_turn(1863);
        let prep = UnitFootprints::new(&s);
        let flat = |_: Pos| 0.0;
        let hills = |p: Pos| (p.x * 0.05).sin() + (p.y * 0.03).cos();
        let grounds: [&dyn Fn(Pos) -> f64; 2] = [&flat, &hills];
        let mut blocked = 0;
        for (i, a) in s.units.iter().enumerate().step_by(3) {
            for b in s.units.iter().skip(i % 7).step_by(5) {
                if a.id == b.id {
                    continue;
                }
                for elevation in grounds {
                    let plain = fire_line(&s, a, b, elevation);
                    let fast = fire_line_with(&s, Some(&prep), a, b, elevation);
                    assert_eq!(plain, fast, "{:?} -> {:?}", a.id, b.id);
                    if plain != FireLine::Clear {
                        blocked += 1;
                    }
                }
            }
        }
        assert!(
            blocked > 100,
            "only {blocked} blocked lines: the test proves little"
        );
    }

    #[test]
    fn axis_separation_never_exceeds_the_gap() {
        let (s, _) = crate::rules::iron_brigade::state::corps_battle_turn(1863);
        let fps: Vec<Footprint> = s.units.iter().map(footprint).collect();
        let mut pruned = 0;
        for (i, a) in fps.iter().enumerate() {
            for b in fps.iter().skip(i + 1).step_by(3) {
                let (gap, sep) = (a.gap(b), axis_separation(a, b).max(axis_separation(b, a)));
                assert!(sep <= gap + 1e-9, "{sep} > {gap}");
                if sep > CONTACT_GAP + 1e-6 {
                    pruned += 1;
                }
            }
        }
        assert!(pruned > 1000, "{pruned}");
    }
}
