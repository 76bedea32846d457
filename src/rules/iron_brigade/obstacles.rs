//! Working on obstacles (APSoF VIII.D abatis, VIII.E moats; optional rules
//! `abatis` and `moats`). Pure geometry: where a unit's work would open the
//! obstacle, and whether ground still counts as the obstacle once paths
//! have been cleared or ditches filled.
//!
//! - VIII.D: "Paths may be cleared through the abatis. 1 casting may clear a
//!   path 1/2" wide in 2 turns."
//! - VIII.E: "Filling in a ditch takes 2 turns for 1 casting per 1/2" of
//!   front provided the materials are available."
//!
//! Both are the same work: the unit's castings, each 1/2" of width, two
//! whole turns. The opening is a strip along the unit's facing, centred on
//! it: through the whole abatis, or across the ditch in front of it
//! (docs/rulings.md, "Clearing abatis, filling ditches").

use super::geometry::{CONTACT_GAP, footprint};
use super::kinds::{AreaKind, LineKind, Obstacle};
use super::state::{BattleState, Clearing, Pos, Unit};
use geo::{Area, BooleanOps, Distance, Euclidean, Length};

/// VIII.D, VIII.E: each casting at work clears 1/2" of path or of front.
pub const WIDTH_PER_CASTING: f64 = 0.5;
/// VIII.D "in 2 turns", VIII.E "takes 2 turns".
pub const WORK_TURNS: u32 = 2;

/// Smaller than this (square inches, inches) is rounding, not ground.
const SLIVER: f64 = 1e-6;

/// Where a unit's work would open an obstacle.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkSite {
    /// The abatis area or moat line, by name.
    pub feature: String,
    pub width: f64,
    /// The strip that will be open ground, four corners.
    pub outline: Vec<Pos>,
}

/// The obstacle in contact with `unit` (footprints within
/// [`CONTACT_GAP`], as units are in contact) and ahead of it, and the strip
/// its work would open: castings × 1/2" wide, centred on the unit, from its
/// rear edge along its facing — through the abatis to its far side
/// (VIII.D "a path ... through the abatis"), across the ditch (VIII.E "of
/// front": the stretch before the unit's front). `Err` says why it cannot.
pub fn work_site(state: &BattleState, unit: &Unit, obstacle: Obstacle) -> Result<WorkSite, String> {
    let fp = footprint(unit);
    let poly = fp.polygon();
    let width = f64::from(unit.castings) * WIDTH_PER_CASTING;
    let half = width / 2.0;
    let rear = -fp.depth / 2.0;
    let strip = |ahead: f64| {
        vec![
            fp.to_table(-half, rear),
            fp.to_table(half, rear),
            fp.to_table(half, ahead),
            fp.to_table(-half, ahead),
        ]
    };
    // How far ahead of the centre the obstacle's ground reaches.
    let farthest = |pts: Vec<geo::Coord<f64>>| {
        pts.into_iter()
            .map(|c| fp.to_local(Pos::new(c.x, c.y)).1)
            .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |x| x.max(v))))
    };
    match obstacle {
        Obstacle::Abatis => {
            let mut best: Option<(f64, &str, f64)> = None;
            for a in state
                .terrain
                .areas
                .iter()
                .filter(|a| a.kind == AreaKind::Abatis)
            {
                let area = polygon(&a.outline);
                let gap = Euclidean.distance(&area, &poly);
                if gap > CONTACT_GAP {
                    continue;
                }
                // The abatis inside a long strip ahead: how far it goes.
                let long = polygon(&strip(fp.depth / 2.0 + LONG_REACH));
                let inside = area.intersection(&long);
                if inside.unsigned_area() <= SLIVER {
                    continue;
                }
                let corners = inside
                    .0
                    .iter()
                    .flat_map(|p| p.exterior().0.iter().copied())
                    .collect();
                let Some(far) = farthest(corners) else {
                    continue;
                };
                if far <= 0.0 {
                    continue;
                }
                if best.is_none_or(|(g, _, _)| gap < g) {
                    best = Some((gap, &a.name, far));
                }
            }
            let Some((_, name, far)) = best else {
                return Err(
                    "it is not at abatis to its front: move it up to the abatis first (VIII.D)"
                        .into(),
                );
            };
            Ok(WorkSite {
                feature: name.to_string(),
                width,
                outline: strip(far),
            })
        }
        Obstacle::Moat => {
            let mut best: Option<(f64, &str, f64)> = None;
            // The stretch of front: across the ditch before the unit, at
            // most as far ahead of its front as the strip is wide (a ditch
            // running at 45° to the front is still crossed within it).
            let reach = fp.depth / 2.0 + CONTACT_GAP + width;
            let short = polygon(&strip(reach));
            for l in state
                .terrain
                .lines
                .iter()
                .filter(|l| l.kind == LineKind::Moat && l.path.len() > 1)
            {
                let line = linestring(&l.path);
                let gap = Euclidean.distance(&line, &poly);
                if gap > CONTACT_GAP {
                    continue;
                }
                let inside = short.clip(&geo::MultiLineString::new(vec![line]), false);
                if Euclidean.length(&inside) <= SLIVER {
                    continue;
                }
                let Some(far) = farthest(inside.0.iter().flat_map(|ls| ls.0.clone()).collect())
                else {
                    continue;
                };
                if far <= 0.0 {
                    continue;
                }
                if best.is_none_or(|(g, _, _)| gap < g) {
                    best = Some((gap, &l.name, far));
                }
            }
            let Some((_, name, far)) = best else {
                return Err(
                    "it is not at a ditch or moat to its front: move it up to the ditch first (VIII.E)"
                        .into(),
                );
            };
            Ok(WorkSite {
                feature: name.to_string(),
                width,
                // A little beyond the ditch, so the line is wholly inside.
                outline: strip(far + CROSS_MARGIN),
            })
        }
    }
}

/// How far ahead a path through abatis is looked for: farther than any
/// belt of abatis on a table (inches).
const LONG_REACH: f64 = 1000.0;
/// The filled stretch reaches this far past the ditch's line (inches), so
/// the line is wholly inside it: a ditch on the table is a line, with no
/// width of its own.
const CROSS_MARGIN: f64 = 0.1;

/// Whether a footprint touching abatis area `area` still touches abatis once
/// the cleared paths are taken out: some of the footprint's ground in the
/// abatis lies outside every path (VIII.D: a cleared path is open ground).
pub fn abatis_left(fp: &geo::Polygon<f64>, area: &geo::Polygon<f64>, cleared: &[Clearing]) -> bool {
    let mut left = fp.intersection(area);
    for path in clearings(cleared, Obstacle::Abatis) {
        left = left.difference(&path);
    }
    left.unsigned_area() > SLIVER
}

/// Whether a footprint touching moat line `path` still touches it once the
/// filled stretches are taken out (VIII.E: a filled ditch no longer stops
/// or delays a move).
pub fn moat_left(fp: &geo::Polygon<f64>, path: &[Pos], cleared: &[Clearing]) -> bool {
    let line = geo::MultiLineString::new(vec![linestring(path)]);
    let mut left = fp.clip(&line, false);
    for stretch in clearings(cleared, Obstacle::Moat) {
        left = stretch.clip(&left, true);
    }
    Euclidean.length(&left) > SLIVER
}

/// Whether any clearing of this obstacle exists (the cheap test first).
pub fn any_cleared(cleared: &[Clearing], obstacle: Obstacle) -> bool {
    cleared.iter().any(|c| c.obstacle == obstacle)
}

fn clearings(cleared: &[Clearing], obstacle: Obstacle) -> Vec<geo::Polygon<f64>> {
    cleared
        .iter()
        .filter(|c| c.obstacle == obstacle && c.outline.len() >= 3)
        .map(|c| polygon(&c.outline))
        .collect()
}

fn polygon(outline: &[Pos]) -> geo::Polygon<f64> {
    geo::Polygon::new(linestring(outline), vec![])
}

fn linestring(pts: &[Pos]) -> geo::LineString<f64> {
    geo::LineString::from(pts.iter().map(|p| geo::Coord::from(*p)).collect::<Vec<_>>())
}
