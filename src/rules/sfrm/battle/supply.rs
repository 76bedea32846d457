//! SFRM "Supply": supply traced from supply sources along roads by supply
//! trains, and the units within reach of an in supply train. Roads carry
//! Table 4's "March Column/Limbered On Road" rate too ([`on_road`]).

use super::nouns::Pos;
use super::nouns::{Arm, Road, SfrmBattle, Side, UnitId};
use super::tables::{SUPPLY_BY_ROAD_INCHES, SUPPLY_RADIUS_INCHES, base_front};
use std::collections::BTreeSet;

/// Where along `road` a point lies, if it is on the road: within half an
/// element's base front (Table 1) of the road's line (our ruling).
pub fn on_road(road: &Road, p: Pos, front: f64) -> Option<f64> {
    road.locate(p)
        .filter(|(_, off)| *off <= front / 2.0 + 1e-9)
        .map(|(s, _)| s)
}

/// SFRM "Supply": "The enemy may cut supply by occupying those roads": the
/// stretch of `road` between `s0` and `s1` is open unless an enemy unit of
/// `side` stands on it strictly between them.
fn road_open(b: &SfrmBattle, road: &Road, side: Side, s0: f64, s1: f64) -> bool {
    let (lo, hi) = if s0 <= s1 { (s0, s1) } else { (s1, s0) };
    b.units_of(side.other())
        .all(|e| on_road(road, e.pos, base_front(e)).is_none_or(|s| s <= lo || s >= hi))
}

/// SFRM "Supply": the units of `side` in supply now, or `None` when the
/// battle does not track supply (no supply source listed; our ruling).
///
/// A supply train is in supply when it is on a road that also carries a
/// supply source of its side, or an in supply train, no more than 72" away along it,
/// with no enemy unit on the road between. Supply passes from one road to
/// another only through a train or source standing on both. Every other
/// unit is in supply within 36" of an in supply train.
pub fn in_supply(b: &SfrmBattle, side: Side) -> Option<BTreeSet<UnitId>> {
    if b.supply_sources.is_empty() {
        return None;
    }
    let trains: Vec<_> = b.units_of(side).filter(|u| u.arm == Arm::Supply).collect();
    let mut fed: BTreeSet<UnitId> = BTreeSet::new();
    loop {
        let mut changed = false;
        for t in &trains {
            if fed.contains(&t.id) {
                continue;
            }
            let front = base_front(t);
            let reached = b.roads.iter().any(|r| {
                let Some(st) = on_road(r, t.pos, front) else {
                    return false;
                };
                let near = |s: f64| {
                    (s - st).abs() <= SUPPLY_BY_ROAD_INCHES && road_open(b, r, side, s, st)
                };
                b.supply_sources
                    .iter()
                    .filter(|src| src.side == side)
                    .filter_map(|src| on_road(r, src.pos, front))
                    .any(near)
                    || trains
                        .iter()
                        .filter(|o| fed.contains(&o.id))
                        .filter_map(|o| on_road(r, o.pos, front))
                        .any(near)
            });
            if reached {
                fed.insert(t.id);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut set = fed.clone();
    for u in b.units_of(side).filter(|u| u.arm != Arm::Supply) {
        if trains
            .iter()
            .any(|t| fed.contains(&t.id) && t.pos.distance(u.pos) <= SUPPLY_RADIUS_INCHES)
        {
            set.insert(u.id);
        }
    }
    Some(set)
}
