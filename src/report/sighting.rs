//! What a side saw each turn, as a record the store can keep, and the
//! last-known places of enemies built from those records.
//!
//! A side sees what any of its units or officers can see (APSoF V.C.3 sight
//! lines; VIII.F hidden movement when in force): that is
//! [`side_visibility`](crate::rules::iron_brigade::sight::side_visibility).
//! This module only writes down the result, so the report of a later turn
//! can say "seen at turn 4, 300 yards east of the crossroads" without
//! looking at where the unit really is now.

use crate::rules::iron_brigade::events::Event;
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
    /// Enemy units the side saw destroyed or driven off the field this
    /// turn ([`witnessed_ends`]): no longer remembered as standing where
    /// they were last seen. Left out of the JSON while empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ended: Vec<UnitId>,
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
        SideSighting {
            side,
            turn,
            seen,
            ended: Vec::new(),
        }
    }

    /// The record with the enemy units whose end the side witnessed this
    /// turn (see [`witnessed_ends`]).
    pub fn with_ended(mut self, ended: Vec<UnitId>) -> SideSighting {
        self.ended = ended;
        self
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
    /// Enemy units the side saw destroyed or driven off the field, with the
    /// turn it saw it ([`witnessed_ends`]). Left out of the JSON while
    /// empty, so maps kept before it read the same.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ended: BTreeMap<UnitId, u32>,
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
        for id in &sighting.ended {
            let turn = self.ended.entry(*id).or_insert(sighting.turn);
            *turn = (*turn).max(sighting.turn);
        }
    }

    /// Whether the side saw the unit's end after (or when) it last saw the
    /// unit standing: then it is not shown where it was last seen.
    pub fn is_ended(&self, unit: UnitId) -> bool {
        match (self.ended.get(&unit), self.units.get(&unit)) {
            (Some(end), Some(seen)) => *end >= seen.turn,
            (Some(_), None) => true,
            (None, _) => false,
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

/// Enemy units `side` saw come to their end this turn: units out of the
/// battle now (destroyed, APSoF V.B: no castings left; or gone off the
/// table, docs/rulings.md "The table edge") that one of the side's own
/// units fired on, was in contact with or captured from in an event of the
/// turn. A unit that ended out of the side's sight, or was combined into
/// another (APSoF VII.C.2, which the enemy cannot tell from afar), is not
/// witnessed: it stays where it was last seen.
pub fn witnessed_ends(state: &BattleState, side: SideId, events: &[Event]) -> Vec<UnitId> {
    let mut out: Vec<UnitId> = Vec::new();
    for e in events {
        let pair = match e {
            Event::Fired { unit, target, .. } => [(unit, target), (target, unit)],
            Event::Contact { a, b, .. } => [(a, b), (b, a)],
            Event::Captured {
                unit, by: Some(by), ..
            } => [(by, unit), (unit, by)],
            _ => continue,
        };
        for (ours, theirs) in pair {
            if ours.side != side || theirs.side == side || out.contains(&theirs.id) {
                continue;
            }
            let ended = state
                .unit(theirs.id)
                .is_some_and(|u| u.castings == 0 || u.marks.left_field);
            if ended {
                out.push(theirs.id);
            }
        }
    }
    out.sort();
    out
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

    fn fired(by: &Unit, at: &Unit, casualties: u32) -> Event {
        use crate::rules::iron_brigade::events::UnitRef;
        let r = |u: &Unit| UnitRef {
            id: u.id,
            side: u.side,
            name: u.name.clone(),
        };
        Event::Fired {
            unit: r(by),
            target: r(at),
            range: 10,
            base_effectiveness: 4,
            effectiveness: 2,
            modifiers: vec![],
            castings_firing: 6,
            dice_total: 12,
            casualties,
            save_total: 0,
            morale_lost: 0,
            split_move: false,
            perilous: false,
            perilous_why: vec![],
            with: vec![],
            split_fire: false,
            attack_dice: vec![],
            save_dice: vec![],
            band: String::new(),
            alternate: String::new(),
        }
    }

    /// A regiment the side shot to pieces is not remembered as standing
    /// where it was last seen (found playing the demo: a destroyed enemy
    /// stayed on the Union's "seen earlier" list at its old place).
    #[test]
    fn an_enemy_seen_destroyed_leaves_the_last_known_list() {
        let mut st = state();
        let t3 = SideSighting::new(&st, SideId(0), 3, &seen_grey());
        st.units[1].castings = 0;
        let ev = vec![fired(&st.units[0], &st.units[1], 15)];
        assert_eq!(witnessed_ends(&st, SideId(0), &ev), vec![UnitId(2)]);
        // The side whose unit was destroyed witnesses nothing of its own.
        assert!(witnessed_ends(&st, SideId(1), &ev).is_empty());
        let t4 = SideSighting::new(&st, SideId(0), 4, &Visibility::default())
            .with_ended(witnessed_ends(&st, SideId(0), &ev));
        let a = LastKnown::from_records([&t3, &t4]);
        let b = LastKnown::from_records([&t4, &t3]);
        assert_eq!(a, b, "order-free");
        assert!(a.is_ended(UnitId(2)));
        // Stored and read back: `ended` survives the JSON.
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<LastKnown>(&json).unwrap(), a);
    }

    /// An enemy that still stands, or one destroyed by others out of the
    /// side's sight, is not witnessed.
    #[test]
    fn only_an_end_the_side_took_part_in_is_witnessed() {
        let mut st = state();
        let ev = vec![fired(&st.units[0], &st.units[1], 3)];
        assert!(
            witnessed_ends(&st, SideId(0), &ev).is_empty(),
            "still stands"
        );
        st.units[1].castings = 0;
        assert!(witnessed_ends(&st, SideId(0), &[]).is_empty(), "not seen");
    }
}
