//! Pontoon boats (APSoF IV.E.2). Pure geometry and arithmetic: which boats
//! a unit is at, how long its crossing takes, and where it lands.
//!
//! The text: "Infantry may cross bodies of water in pontoon boats. When on
//! wagons, pontoon boats move like heavy equipment. They take four turns to
//! unload from wagons. Each pontoon boat may carry four castings. Pontoon
//! boats move at a rate of 2" per turn on water."
//!
//! Our reading (docs/rulings.md, "Pontoon boats"): the boats are placed by
//! the scenario at a stream's bank, on their wagons or afloat. A unit at
//! boats still on their wagons unloads them in four whole turns of work. An
//! infantry unit at afloat boats of its side crosses in them: each trip
//! carries `boats` × 4 castings; a unit that needs more trips waits for the
//! boats to come back for the rest, so the crossing takes `2 × trips − 1`
//! legs over the water, each `water / 2"` turns rounded up. Then the unit
//! stands on the far bank, as far from the stream as it stood on this one,
//! facing away from the water, and the boats lie at the far bank.

use super::geometry::{CONTACT_GAP, Footprint, bearing, footprint};
use super::state::{BattleState, Pontoons, Pos, Unit, UnitId};
use geo::{Distance, Euclidean, Intersects};

/// IV.E.2 "They take four turns to unload from wagons."
pub const UNLOAD_TURNS: u32 = 4;
/// IV.E.2 "Each pontoon boat may carry four castings."
pub const CASTINGS_PER_BOAT: u32 = 4;
/// IV.E.2 "Pontoon boats move at a rate of 2" per turn on water."
pub const WATER_INCHES_PER_TURN: f64 = 2.0;

/// The index in `state.terrain.pontoons` of the boats of `unit`'s side it
/// is at: their position within [`CONTACT_GAP`] of its footprint, as units
/// are in contact. `Err` says why it is at none.
///
/// Boats on a train's wagons are where the train is: a unit is at them when
/// it is the train or in contact with it (IV.E.2 "When on wagons, pontoon
/// boats move like heavy equipment").
pub fn boats_at(state: &BattleState, unit: &Unit) -> Result<usize, String> {
    let fp = footprint(unit);
    let poly = fp.polygon();
    let gap = |p: &Pontoons| match carrying_train(state, p) {
        Some(t) if t.id == unit.id => 0.0,
        Some(t) => fp.gap(&footprint(t)),
        None => Euclidean.distance(&geo::Point::from(geo::Coord::from(p.position)), &poly),
    };
    let mut best: Option<(f64, usize)> = None;
    for (i, p) in state.terrain.pontoons.iter().enumerate() {
        if p.side != unit.side {
            continue;
        }
        let g = gap(p);
        if g <= CONTACT_GAP && best.is_none_or(|(b, _)| g < b) {
            best = Some((g, i));
        }
    }
    best.map(|(_, i)| i).ok_or_else(|| {
        "it is not at pontoon boats of its side: move it up to them first (APSoF IV.E.2)".into()
    })
}

/// The heavy-equipment unit carrying boats `p` on its wagons, while they
/// are on them and it is on the table with men (APSoF IV.E.2).
pub fn carrying_train<'a>(state: &'a BattleState, p: &Pontoons) -> Option<&'a Unit> {
    if p.afloat {
        return None;
    }
    let id = p.train?;
    state.unit(id).filter(|u| u.castings > 0)
}

/// Boats on a train's wagons go where the train goes (APSoF IV.E.2 "When
/// on wagons, pontoon boats move like heavy equipment"): set their
/// position to the train's, after anything that moved it.
pub fn follow_trains(state: &mut BattleState) {
    let at: Vec<Option<Pos>> = state
        .terrain
        .pontoons
        .iter()
        .map(|p| carrying_train(state, p).map(|t| t.position))
        .collect();
    for (p, at) in state.terrain.pontoons.iter_mut().zip(at) {
        if let Some(at) = at {
            p.position = at;
        }
    }
}

/// How near its stream a pontoon train must stand to put the boats in the
/// water: the inch within which the scenario puts boats on a bank
/// (`scenario::validate::FORD_TOLERANCE`, our ruling).
pub const LAUNCH_REACH: f64 = 1.0;

/// Where boats on a train's wagons go into the water when unloaded: the
/// point of the train's footprint nearest their stream, if that is within
/// [`LAUNCH_REACH`] of it. `Err` says how far off it is. Boats not on a
/// train are unloaded where they lie.
pub fn launch_point(state: &BattleState, p: &Pontoons) -> Result<Pos, String> {
    let Some(t) = carrying_train(state, p) else {
        return Ok(p.position);
    };
    let fp = footprint(t);
    // The middle of a side before a corner: a train facing the water
    // puts the boats in at its front's middle.
    let corners = fp.corners();
    let mut candidates: Vec<Pos> = Vec::with_capacity(8);
    for i in 0..corners.len() {
        let (a, b) = (corners[i], corners[(i + 1) % corners.len()]);
        candidates.push(Pos::new((a.x + b.x) / 2.0, (a.y + b.y) / 2.0));
    }
    candidates.extend(corners);
    let mut best: Option<(f64, Pos)> = None;
    for c in candidates {
        if let Some(q) = nearest_on_stream(state, &p.stream, c) {
            let d = q.distance(c);
            if best.is_none_or(|(bd, _)| d < bd - 1e-9) {
                best = Some((d, c));
            }
        }
    }
    match best {
        Some((d, c)) if d <= LAUNCH_REACH + 1e-9 => Ok(c),
        Some((d, _)) => Err(format!(
            "{} is {d:.1}\" from {}: move it to the bank (within {LAUNCH_REACH}\") before the boats are unloaded (APSoF IV.E.2)",
            t.name, p.stream
        )),
        None => Err(format!("{} is not on the table", p.stream)),
    }
}

/// Where a unit crossing in pontoon boats is, for reports and maps: on the
/// water, at the middle of its crossing — between the boats' bank and the
/// far bank, on the stream's line (APSoF IV.E.2; docs/rulings.md
/// "Pontoon boats"). `None` when the unit is not in the boats. The unit's
/// own position stays on the bank it left until it lands (the landing is
/// mirrored from it), so this is the place it is drawn and told at.
pub fn afloat_at(state: &BattleState, unit: &Unit) -> Option<Pos> {
    let w = unit.marks.pontoon_work.as_ref()?;
    if w.task != crate::rules::iron_brigade::kinds::PontoonTask::Cross || unit.castings == 0 {
        return None;
    }
    let p = state
        .terrain
        .pontoons
        .iter()
        .find(|p| p.name == w.pontoons)?;
    nearest_on_stream(state, &p.stream, p.position)
}

/// `state` as reports draw it: every unit crossing in pontoon boats on the
/// water at [`afloat_at`], with its boats under it. Borrowed when no unit
/// is in the boats.
pub fn as_drawn(state: &BattleState) -> std::borrow::Cow<'_, BattleState> {
    let afloat: Vec<(UnitId, String, Pos)> = state
        .units
        .iter()
        .filter_map(|u| {
            let at = afloat_at(state, u)?;
            let boats = u.marks.pontoon_work.as_ref()?.pontoons.clone();
            Some((u.id, boats, at))
        })
        .collect();
    if afloat.is_empty() {
        return std::borrow::Cow::Borrowed(state);
    }
    let mut s = state.clone();
    for (id, boats, at) in afloat {
        if let Some(u) = s.unit_mut(id) {
            u.position = at;
        }
        if let Some(p) = s.terrain.pontoons.iter_mut().find(|p| p.name == boats) {
            p.position = at;
        }
    }
    std::borrow::Cow::Owned(s)
}

/// Trips the boats make to carry `castings` over, four castings a boat.
pub fn trips(p: &Pontoons, castings: u32) -> u32 {
    let load = p.boats.saturating_mul(CASTINGS_PER_BOAT).max(1);
    castings.div_ceil(load).max(1)
}

/// Whole turns one leg over the water takes: the water at 2" a turn,
/// rounded up (a part of a turn on the water is a turn), at least one.
pub fn turns_per_leg(p: &Pontoons) -> u32 {
    let t = (p.water / WATER_INCHES_PER_TURN - 1e-9).ceil();
    if t.is_finite() && t >= 1.0 {
        // At most a few hundred for any table; saturate rather than wrap.
        t.min(f64::from(u32::MAX)) as u32
    } else {
        1
    }
}

/// Whole turns the crossing of `castings` takes: every trip over, and
/// the boats back between trips.
pub fn crossing_turns(p: &Pontoons, castings: u32) -> u32 {
    let legs = trips(p, castings).saturating_mul(2).saturating_sub(1);
    legs.saturating_mul(turns_per_leg(p))
}

/// The nearest point of the stream `name`'s line to `at`, if the stream
/// is on the table.
fn nearest_on_stream(state: &BattleState, name: &str, at: Pos) -> Option<Pos> {
    let line = state.terrain.lines.iter().find(|l| l.name == name)?;
    let mut best: Option<(f64, Pos)> = None;
    for w in line.path.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 {
            (((at.x - a.x) * dx + (at.y - a.y) * dy) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let q = Pos::new(a.x + t * dx, a.y + t * dy);
        let d = q.distance(at);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, q));
        }
    }
    best.map(|(_, q)| q)
}

/// `at` mirrored across the stream: as far beyond its nearest point on
/// the line as it stands before it. A point on the line goes `fallback`
/// inches along `facing`.
fn across(state: &BattleState, stream: &str, at: Pos, facing: f64, fallback: f64) -> Pos {
    match nearest_on_stream(state, stream, at) {
        Some(q) if q.distance(at) > 1e-6 => Pos::new(2.0 * q.x - at.x, 2.0 * q.y - at.y),
        _ => {
            let r = facing.to_radians();
            Pos::new(at.x + fallback * r.sin(), at.y + fallback * r.cos())
        }
    }
}

/// Where `unit` lands from boats `p`: its centre mirrored across the
/// stream, facing away from the water; and where the boats then lie.
pub fn landing(state: &BattleState, unit: &Unit, p: &Pontoons) -> (Pos, f64, Pos) {
    let fp = footprint(unit);
    let centre = across(state, &p.stream, unit.position, unit.facing, fp.depth);
    let facing = match nearest_on_stream(state, &p.stream, centre) {
        Some(q) if q.distance(centre) > 1e-6 => bearing(q, centre),
        _ => unit.facing,
    };
    let boats = across(state, &p.stream, p.position, unit.facing, fp.depth);
    (centre, facing, boats)
}

/// How far back toward the water a landing steps each time it tries
/// again when its place is taken: the quarter inch by which a move halts
/// short of a friend (docs/rulings.md, IV.F).
pub const LANDING_STEP: f64 = 0.25;

/// Where the landing of [`landing`] may be made without putting the unit
/// on top of another (APSoF IV.E.2 with IV.C.4: units do not stand on one
/// another; docs/rulings.md, "Pontoon boats").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Landing {
    /// The unit lands at `centre` facing `facing`, the boats at `boats`;
    /// `short_of` is the unit whose ground made it land nearer the water
    /// than the mirrored place.
    Clear {
        centre: Pos,
        facing: f64,
        boats: Pos,
        short_of: Option<UnitId>,
    },
    /// Even with its rear on the bank the unit would stand on `by`: it
    /// stays in the boats.
    Blocked { by: UnitId },
}

/// The first other unit (by id) on whose ground `fp` would stand. Ground
/// merely touched (units in contact) is not stood on.
fn standing_on(state: &BattleState, unit: &Unit, fp: &Footprint) -> Option<UnitId> {
    // A hair inside the footprint, so a landing in contact is no overlap.
    let inner = Footprint {
        frontage: (fp.frontage - 2.0 * 1e-3).max(1e-3),
        depth: (fp.depth - 2.0 * 1e-3).max(1e-3),
        ..*fp
    };
    let poly = inner.polygon();
    state
        .units
        .iter()
        .filter(|o| o.id != unit.id && o.castings > 0)
        .find(|o| footprint(o).polygon().intersects(&poly))
        .map(|o| o.id)
}

/// [`landing`], checked against the units on the far bank. At the
/// mirrored place if it is clear; else a quarter inch at a time back
/// toward the stream, the nearest being the unit's rear on the stream's
/// line (the bank: nearer would be in the water); else blocked.
pub fn clear_landing(state: &BattleState, unit: &Unit, p: &Pontoons) -> Landing {
    let (centre, facing, boats) = landing(state, unit, p);
    let base = footprint(unit);
    let at = |c: Pos| Footprint {
        centre: c,
        facing,
        ..base
    };
    let Some(first) = standing_on(state, unit, &at(centre)) else {
        return Landing::Clear {
            centre,
            facing,
            boats,
            short_of: None,
        };
    };
    if let Some(q) = nearest_on_stream(state, &p.stream, centre) {
        let far = q.distance(centre);
        let nearest = base.depth / 2.0;
        let mut d = far - LANDING_STEP;
        while far > 1e-6 && d >= nearest - 1e-9 {
            let t = d / far;
            let c = Pos::new(q.x + (centre.x - q.x) * t, q.y + (centre.y - q.y) * t);
            if standing_on(state, unit, &at(c)).is_none() {
                return Landing::Clear {
                    centre: c,
                    facing,
                    boats,
                    short_of: Some(first),
                };
            }
            d -= LANDING_STEP;
        }
    }
    Landing::Blocked { by: first }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::state::SideId;

    fn boats(boats: u32, water: f64) -> Pontoons {
        Pontoons {
            name: "the river pontoons".into(),
            stream: "the river".into(),
            side: SideId(0),
            boats,
            position: Pos::new(0.0, 0.0),
            water,
            afloat: true,
            train: None,
        }
    }

    /// IV.E.2: four castings a boat, 2" a turn on water; the boats come
    /// back for every load after the first.
    #[test]
    fn iv_e_2_crossing_time_by_boats_and_water() {
        // 3 boats carry 12 castings: 12 go in one trip.
        assert_eq!(trips(&boats(3, 4.0), 12), 1);
        assert_eq!(crossing_turns(&boats(3, 4.0), 12), 2);
        // 13 castings need a second trip: over, back, over.
        assert_eq!(trips(&boats(3, 4.0), 13), 2);
        assert_eq!(crossing_turns(&boats(3, 4.0), 13), 6);
        // 3" of water is two turns a leg; 1" still takes one turn.
        assert_eq!(turns_per_leg(&boats(1, 3.0)), 2);
        assert_eq!(turns_per_leg(&boats(1, 1.0)), 1);
        assert_eq!(turns_per_leg(&boats(1, 2.0)), 1);
    }
}
