//! What a side saw each turn, as a record the store can keep, and the
//! last-known places of enemies built from those records.
//!
//! A side sees what any of its units or officers can see (APSoF V.C.3 sight
//! lines; VIII.F hidden movement when in force): that is
//! [`side_visibility`](crate::rules::iron_brigade::sight::side_visibility).
//! This module only writes down the result, so the report of a later turn
//! can say "seen at turn 4, 300 yards east of the crossroads" without
//! looking at where the unit really is now.

use crate::rules::iron_brigade::geometry::footprint;
use crate::rules::iron_brigade::kinds::{Arm, Formation};
use crate::rules::iron_brigade::sight::{Observer, Visibility};
use crate::rules::iron_brigade::state::{BattleState, Pos, SideId, UnitId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Men in one casting (APSoF II.B.1, II.C.1: a casting is about 20 men).
pub const MEN_PER_CASTING: u32 = 20;

/// Strength as a staff officer would guess it by eye: never exact castings.
///
/// Our ruling (the rules are silent on what an enemy can count): under 300
/// men round to the nearest 50, from 300 up to the nearest 100, and never
/// below 50 for a unit still in the field. 50 men is two and a half
/// castings, so the figure cannot be turned back into castings.
pub fn about_men(castings: u32) -> u32 {
    let men = castings.saturating_mul(MEN_PER_CASTING);
    if men == 0 {
        return 0;
    }
    let step = if men < 300 { 50 } else { 100 };
    (((men + step / 2) / step) * step).max(50)
}

/// One enemy unit seen by a side in one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sighting {
    pub unit: UnitId,
    /// The side the unit fights for (its uniform is seen).
    pub side: SideId,
    pub arm: Arm,
    /// [`about_men`] of its castings at the time.
    pub about_men: u32,
    pub formation: Formation,
    pub facing: f64,
    /// Centre of the unit when seen.
    pub position: Pos,
    /// Its footprint as seen on the table, inches (drawn on the map).
    pub frontage: f64,
    pub depth: f64,
    /// The nearest observer that saw it, and where his eye was.
    pub observer: Observer,
    pub from: Pos,
    /// Inches from the observer's eye to the nearest part of the unit.
    pub distance: f64,
}

/// Which enemy units one side saw in one turn, and from where: the record
/// the store keeps per side per turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideSighting {
    pub side: SideId,
    pub turn: u32,
    /// In unit-id order.
    pub seen: Vec<Sighting>,
}

impl SideSighting {
    /// The record of `side`'s sight this turn. Units in `vis` that are not
    /// in the state (a stale visibility) are left out.
    pub fn new(state: &BattleState, side: SideId, turn: u32, vis: &Visibility) -> SideSighting {
        let seen = vis
            .seen
            .iter()
            .filter_map(|(id, by)| {
                let u = state.unit(*id)?;
                let fp = footprint(u);
                (u.side != side).then(|| Sighting {
                    unit: u.id,
                    side: u.side,
                    arm: u.arm,
                    about_men: about_men(u.castings),
                    formation: u.formation,
                    facing: u.facing,
                    position: u.position,
                    frontage: fp.frontage,
                    depth: fp.depth,
                    observer: by.observer,
                    from: by.from,
                    distance: by.distance,
                })
            })
            .collect();
        SideSighting { side, turn, seen }
    }

    pub fn saw(&self, unit: UnitId) -> bool {
        self.seen.iter().any(|s| s.unit == unit)
    }
}

/// Where and how an enemy unit was last seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastSeen {
    pub turn: u32,
    pub side: SideId,
    pub arm: Arm,
    pub about_men: u32,
    pub formation: Formation,
    pub facing: f64,
    pub position: Pos,
    pub frontage: f64,
    pub depth: f64,
}

/// The last sighting of every enemy unit a side has ever seen. Kept by the
/// store between turns and updated with each turn's [`SideSighting`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LastKnown {
    pub units: BTreeMap<UnitId, LastSeen>,
}

impl LastKnown {
    /// Take in a turn's sightings. An older record never overwrites a newer
    /// one, so replaying records out of order gives the same map.
    pub fn record(&mut self, sighting: &SideSighting) {
        for s in &sighting.seen {
            let newer = self
                .units
                .get(&s.unit)
                .is_none_or(|old| old.turn <= sighting.turn);
            if newer {
                self.units.insert(
                    s.unit,
                    LastSeen {
                        turn: sighting.turn,
                        side: s.side,
                        arm: s.arm,
                        about_men: s.about_men,
                        formation: s.formation,
                        facing: s.facing,
                        position: s.position,
                        frontage: s.frontage,
                        depth: s.depth,
                    },
                );
            }
        }
    }

    /// The map after a series of records, in any order.
    pub fn from_records<'a>(records: impl IntoIterator<Item = &'a SideSighting>) -> LastKnown {
        let mut lk = LastKnown::default();
        for r in records {
            lk.record(r);
        }
        lk
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::sight::SeenBy;
    use crate::rules::iron_brigade::state::Unit;

    #[test]
    fn strength_is_rounded_so_castings_cannot_be_recovered() {
        assert_eq!(about_men(0), 0);
        assert_eq!(about_men(1), 50);
        assert_eq!(about_men(3), 50);
        assert_eq!(about_men(4), 100);
        assert_eq!(about_men(14), 300);
        assert_eq!(about_men(17), 300);
        assert_eq!(about_men(18), 400);
        // Neighbouring castings often give the same figure.
        assert_eq!(about_men(21), about_men(22));
    }

    fn state() -> BattleState {
        BattleState {
            units: vec![
                Unit::infantry(1, "Blue", 0, 20, Pos::new(0.0, 0.0), 0.0),
                Unit::infantry(2, "Grey", 1, 15, Pos::new(0.0, 10.0), 180.0),
            ],
            ..BattleState::default()
        }
    }

    fn seen_grey() -> Visibility {
        let mut vis = Visibility::default();
        vis.seen.insert(
            UnitId(2),
            SeenBy {
                observer: Observer::Unit(UnitId(1)),
                from: Pos::new(0.0, 0.5),
                distance: 8.0,
            },
        );
        vis
    }

    #[test]
    fn sighting_records_observer_and_place() {
        let s = SideSighting::new(&state(), SideId(0), 3, &seen_grey());
        assert_eq!(s.seen.len(), 1);
        assert_eq!(s.seen[0].observer, Observer::Unit(UnitId(1)));
        assert_eq!(s.seen[0].position, Pos::new(0.0, 10.0));
        assert_eq!(s.seen[0].about_men, 300);
        // Round-trips through JSON for the store.
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<SideSighting>(&json).unwrap(), s);
    }

    #[test]
    fn last_known_keeps_the_newest_sighting_in_any_order() {
        let mut st = state();
        let t3 = SideSighting::new(&st, SideId(0), 3, &seen_grey());
        st.units[1].position = Pos::new(5.0, 12.0);
        let t5 = SideSighting::new(&st, SideId(0), 5, &seen_grey());
        let a = LastKnown::from_records([&t3, &t5]);
        let b = LastKnown::from_records([&t5, &t3]);
        assert_eq!(a, b);
        assert_eq!(a.units[&UnitId(2)].turn, 5);
        assert_eq!(a.units[&UnitId(2)].position, Pos::new(5.0, 12.0));
    }
}
