//! The one identity policy for the enemy (issue #14 §1): how a side may
//! call the enemy units it has seen, in every answer Adjutant gives a
//! player — reports, receipts, suggestions, error messages, normalised
//! orders, resent reports and the archive's side pages.
//!
//! APSoF V.C.3: a side knows of an enemy only what its troops can see. A
//! uniform and a kind of troops can be seen; which regiment it is cannot.
//! So by default ([`IdentityPolicy::Hidden`]) enemies are not named: each
//! enemy unit a side has seen gets a *designation* for that side — a
//! letter, "B" — handed out in the order the side first saw them (units
//! first seen together in the order of their place on the table, west to
//! east, never the order of the enemy's lists). A designation stays with
//! its unit for the whole game, with its last-known place, and is never
//! given to another unit. Players name the unit by it ("fire at B",
//! "charge enemy regiment B"); reports, receipts and the map show it.
//!
//! A scenario may declare identities known (`identities = "known"` under
//! `[scenario]`, docs/scenario-format.md): then both sides know whom they
//! face, and reports, receipts and suggestions use the real names of the
//! enemies a side can see (designations are still given, for the map, and
//! may still be written).
//!
//! This module is pure: `game::identity` keeps each side's designations in
//! the store (`enemy_designations`, migration 0006) so they survive from
//! turn to turn.

use crate::rules::iron_brigade::kinds::Arm;
use crate::rules::iron_brigade::state::{BattleState, Pos, SideId, UnitId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Whether the enemy's real names are known (scenario `identities`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IdentityPolicy {
    /// The default: enemies are known only by their designation.
    #[default]
    Hidden,
    /// Both sides know whom they face: real names for enemies in sight.
    Known,
}

impl IdentityPolicy {
    /// The scenario spelling: `"hidden"` or `"known"`.
    pub fn parse(s: &str) -> Option<IdentityPolicy> {
        match s.trim().to_ascii_lowercase().as_str() {
            "hidden" => Some(IdentityPolicy::Hidden),
            "known" => Some(IdentityPolicy::Known),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            IdentityPolicy::Hidden => "hidden",
            IdentityPolicy::Known => "known",
        }
    }
}

/// The `n`th designation (from 0): "A" … "Z", then "AA", "AB" … — letters
/// only, so a designation is never read as a number of castings or yards.
pub fn designation(n: u32) -> String {
    let mut n = u64::from(n);
    let mut out = Vec::new();
    loop {
        out.push(b'A' + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// What kind of troops an enemy is, as a staff officer says it:
/// "regiment", "cavalry", "battery", "horse battery".
pub fn kind_noun(arm: Arm) -> &'static str {
    match arm {
        Arm::Infantry => "regiment",
        Arm::Cavalry => "cavalry",
        Arm::Artillery => "battery",
        Arm::HorseArtillery => "horse battery",
    }
}

/// What kind of troops an enemy unit is seen to be: [`kind_noun`] of its
/// arm, or "wagon train" for wagons moving as heavy equipment (APSoF
/// IV.E.2, IV.G), which no one takes for a regiment.
pub fn unit_kind_noun(u: &crate::rules::iron_brigade::state::Unit) -> &'static str {
    if u.heavy_equipment {
        "wagon train"
    } else {
        kind_noun(u.arm)
    }
}

/// One enemy unit a side has designated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Designated {
    pub designation: String,
    /// The turn the side first saw it.
    pub first_turn: u32,
    /// The turn it was last seen, and where.
    pub last_turn: u32,
    pub last_at: Pos,
}

/// How one side may call the enemy: the game's policy and the side's
/// designations. Built by `game::identity` from the store; everything a
/// player is told about an enemy unit goes through it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EnemyNames {
    pub policy: IdentityPolicy,
    /// Every enemy unit the side has seen, by id.
    pub units: BTreeMap<UnitId, Designated>,
}

impl EnemyNames {
    /// No designations yet, under `policy`.
    pub fn new(policy: IdentityPolicy) -> EnemyNames {
        EnemyNames {
            policy,
            units: BTreeMap::new(),
        }
    }

    pub fn known(&self) -> bool {
        self.policy == IdentityPolicy::Known
    }

    /// The unit's designation for this side, if it has one.
    pub fn designation(&self, unit: UnitId) -> Option<&str> {
        self.units.get(&unit).map(|d| d.designation.as_str())
    }

    /// The unit a designation stands for (case-insensitive).
    pub fn by_designation(&self, written: &str) -> Option<UnitId> {
        self.units
            .iter()
            .find(|(_, d)| d.designation.eq_ignore_ascii_case(written.trim()))
            .map(|(id, _)| *id)
    }

    /// Gives designations to the units of `seen` (enemies of `side` seen on
    /// `turn`) that have none yet, and records every one's place. New ones
    /// are handed out west to east (then south to north), so a letter says
    /// nothing of the enemy's order of battle. Returns the units newly
    /// designated. A unit's designation never changes.
    pub fn record_seen(
        &mut self,
        state: &BattleState,
        side: SideId,
        turn: u32,
        seen: impl IntoIterator<Item = UnitId>,
    ) -> Vec<UnitId> {
        let mut units: Vec<(UnitId, Pos)> = seen
            .into_iter()
            .filter_map(|id| state.unit(id))
            .filter(|u| u.side != side)
            .map(|u| (u.id, u.position))
            .collect();
        units.sort_by(|(a, pa), (b, pb)| {
            (pa.x, pa.y)
                .partial_cmp(&(pb.x, pb.y))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.cmp(b))
        });
        units.dedup_by_key(|(id, _)| *id);
        let mut new = Vec::new();
        for (id, at) in units {
            let next = u32::try_from(self.units.len()).unwrap_or(u32::MAX);
            let entry = self.units.entry(id).or_insert_with(|| {
                new.push(id);
                Designated {
                    designation: designation(next),
                    first_turn: turn,
                    last_turn: turn,
                    last_at: at,
                }
            });
            if entry.last_turn <= turn {
                entry.last_turn = turn;
                entry.last_at = at;
            }
        }
        new
    }

    /// The short label for a designated enemy unit when identities are
    /// hidden: "enemy B". Not "enemy battery B": real batteries are called
    /// "Battery B", and a label must never read like a real name. (The
    /// kind is in the report's list of enemies, and may be written in
    /// orders: "fire at enemy battery B".)
    pub fn hidden_label(&self, unit: UnitId) -> Option<String> {
        self.designation(unit).map(|d| format!("enemy {d}"))
    }

    /// How a player of this side is told of an enemy unit: its real name
    /// when identities are known, else its label ("enemy B"), or,
    /// for a unit the side has not designated, only what could be seen of
    /// it ("an enemy battery"). Never the real name under the hidden
    /// policy.
    pub fn call(&self, state: &BattleState, unit: UnitId) -> String {
        let Some(u) = state.unit(unit) else {
            return "an enemy unit".to_string();
        };
        if self.known() {
            return u.name.clone();
        }
        self.hidden_label(unit)
            .unwrap_or_else(|| format!("an enemy {}", unit_kind_noun(u)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::state::Unit;

    #[test]
    fn designations_are_letters() {
        assert_eq!(designation(0), "A");
        assert_eq!(designation(1), "B");
        assert_eq!(designation(25), "Z");
        assert_eq!(designation(26), "AA");
        assert_eq!(designation(27), "AB");
        assert_eq!(designation(26 + 26 * 26), "AAA");
    }

    fn state() -> BattleState {
        BattleState {
            units: vec![
                Unit::infantry(1, "2nd Wisconsin", 0, 20, Pos::new(0.0, 0.0), 0.0),
                Unit::infantry(2, "4th Virginia", 1, 15, Pos::new(30.0, 10.0), 180.0),
                Unit::infantry(3, "5th Virginia", 1, 15, Pos::new(10.0, 10.0), 180.0),
            ],
            ..BattleState::default()
        }
    }

    #[test]
    fn first_seen_first_lettered_by_place_and_never_reassigned() {
        let st = state();
        let mut n = EnemyNames::default();
        let new = n.record_seen(&st, SideId(0), 1, [UnitId(2), UnitId(3), UnitId(1)]);
        assert_eq!(new, vec![UnitId(3), UnitId(2)]);
        assert_eq!(n.designation(UnitId(3)), Some("A"));
        assert_eq!(n.designation(UnitId(2)), Some("B"));
        assert_eq!(n.designation(UnitId(1)), None, "own units get none");
        // Seen again later: same letters, newer place.
        let mut st2 = st.clone();
        st2.units[1].position = Pos::new(5.0, 5.0);
        assert!(n.record_seen(&st2, SideId(0), 4, [UnitId(2)]).is_empty());
        assert_eq!(n.designation(UnitId(2)), Some("B"));
        assert_eq!(n.units[&UnitId(2)].last_turn, 4);
        assert_eq!(n.units[&UnitId(2)].last_at, Pos::new(5.0, 5.0));
        assert_eq!(n.by_designation("b"), Some(UnitId(2)));
    }

    #[test]
    fn hidden_policy_never_calls_an_enemy_by_name() {
        let st = state();
        let mut n = EnemyNames::default();
        n.record_seen(&st, SideId(0), 1, [UnitId(2)]);
        assert_eq!(n.call(&st, UnitId(2)), "enemy A");
        assert_eq!(n.call(&st, UnitId(3)), "an enemy regiment");
        n.policy = IdentityPolicy::Known;
        assert_eq!(n.call(&st, UnitId(2)), "4th Virginia");
        assert_eq!(
            IdentityPolicy::parse(" Known "),
            Some(IdentityPolicy::Known)
        );
        assert_eq!(IdentityPolicy::parse("secret"), None);
    }
}
