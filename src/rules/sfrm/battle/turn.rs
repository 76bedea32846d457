//! SFRM "Turn Order" and "Phase Order": the attacker's phase, then the
//! defender's; in each, the phasing side's command & supply subphase,
//! movement & manoeuvre, combat & combat morale (both sides fire), and
//! army morale. [`resolve_turn`] is pure: (state, orders, dice) ->
//! (state, events).

use super::nouns::{
    Arm, Contact, Formation, GeneralId, Ground, Pos, Quality, Rank, SfrmBattle, Side, SmallArm,
    Unit, UnitId, Weather, angle_between,
};
use super::orders::{Order, SfrmEvent, Term, TurnOrders, unit_ref};
use super::supply::{in_supply, on_road};
use super::tables::{
    GreenResult, Light, Table7, daytime, light, move_allowance, move_class, table4, table5,
    table6_bands, table6_gun, table6_small_arm, table6_small_arm_reach, weather_movement,
    weather_sight,
};
use super::tables::{base_front, general_base_front};
use crate::dice::{DiceError, DiceSource, RollKind, RollPurpose};
use crate::rules::sfrm::table3::{roll_2d6_dice, table3};
use std::collections::{BTreeMap, BTreeSet};

const S_TURN: &str = "SFRM Turn Order";
const S_COMMAND: &str = "SFRM Command";
const S_OFFICER: &str = "SFRM Officer Casualties, Table 3";
const S_MOVEMENT: &str = "SFRM Movement";
const S_MANOEUVRE: &str = "SFRM Manoeuvre";
const S_FORMATION: &str = "SFRM Formation Changes";
const S_ENTRENCH: &str = "SFRM Entrenching";
const S_ROUT: &str = "SFRM Rout Moves";
const S_COMBAT: &str = "SFRM Combat";
const S_GREEN: &str = "SFRM Table 5";
const S_T6: &str = "SFRM Table 6";
const S_T7: &str = "SFRM Table 7";
const S_ARC: &str = "SFRM Firing Arc & Target Availability";
const S_MORALE: &str = "SFRM Morale, Routing, Casualties & Dispersal";
const S_ARMY: &str = "SFRM Army Morale";
const S_TIME: &str = "SFRM Time, Weather & Daylight";
const S_BREAK: &str = "SFRM Breakthrough Advances & Combat";
const S_SUPPLY: &str = "SFRM Supply";

/// SFRM "Rout Moves": "A rout move must be at least 4"". We move exactly
/// that (docs/rulings-sfrm.md).
pub const ROUT_MOVE_INCHES: f64 = 4.0;
/// SFRM "Movement": march column may go no closer than 4" to the enemy.
pub const COLUMN_STANDOFF: f64 = 4.0;
/// SFRM "Movement": line may go no closer than 1" unless charging.
pub const LINE_STANDOFF: f64 = 1.0;
/// SFRM "Firing Arc & Target Availability": sight range 2 miles (36").
pub const SIGHT_INCHES: f64 = 36.0;
/// SFRM "Firing Arc & Target Availability": at most 2" into cover.
pub const SIGHT_INTO_COVER: f64 = 2.0;
/// SFRM "Combat": divide the total by 6.
pub const COMBAT_DIVISOR: i32 = 6;

/// The turn cannot be resolved (only the dice can fail: bad orders are
/// refused with an event and the rest still counts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    #[error(transparent)]
    Dice(#[from] DiceError),
}

/// What one phase remembers between its subphases.
struct Phase {
    side: Side,
    light: Light,
    /// Casualties each unit took in this phase (for routs).
    casualties: BTreeMap<UnitId, u32>,
    /// Units that charged into contact this phase.
    charged: BTreeSet<UnitId>,
    /// The enemies each charger of this phase charged or was in contact
    /// with when combat began (for breakthrough).
    engaged: BTreeMap<UnitId, BTreeSet<UnitId>>,
    /// Green units that rolled Table 5 this subphase.
    tested: BTreeSet<UnitId>,
    /// Green units that rolled "rout & remain green", to rout after both
    /// sides have fired.
    green_rout: BTreeSet<UnitId>,
    /// Units hit in the current round of fire.
    hit: BTreeSet<UnitId>,
    /// Units that fired or were fired on this phase ("take part in
    /// combat", for out of supply markers).
    fought: BTreeSet<UnitId>,
}

/// Play one SFRM turn: the attacker's phase, then the defender's ("Turn
/// Order"), each with its subphases ("Phase Order").
pub fn resolve_turn(
    battle: &SfrmBattle,
    orders: &TurnOrders,
    dice: &mut dyn DiceSource,
) -> Result<(SfrmBattle, Vec<SfrmEvent>), TurnError> {
    let mut b = battle.clone();
    b.turn += 1;
    let mut ev = Vec::new();
    let minute = b.minute_of_turn(b.turn);
    let light = light(minute, b.season);
    // A day ends when dawn begins (our ruling).
    if b.turn > 1 && minute % (24 * 60) == daytime(b.season).0 - 60 {
        end_of_day(&mut b, &mut ev);
    }
    let moved_before = ev.len();
    for side in [b.attacker, b.attacker.other()] {
        ev.push(SfrmEvent::PhaseBegins {
            turn: b.turn,
            side,
            minute,
            light,
            section: S_TURN.into(),
        });
        let mut ph = Phase {
            side,
            light,
            casualties: BTreeMap::new(),
            charged: BTreeSet::new(),
            engaged: BTreeMap::new(),
            tested: BTreeSet::new(),
            green_rout: BTreeSet::new(),
            hit: BTreeSet::new(),
            fought: BTreeSet::new(),
        };
        command(&mut b, &ph, dice, &mut ev)?;
        let before = lone_generals_in_contact(&b);
        movement(&mut b, &mut ph, orders.of(side), dice, &mut ev)?;
        generals_contacted(&mut b, &before, dice, &mut ev)?;
        if light != Light::Night {
            combat(&mut b, &mut ph, orders, dice, &mut ev)?;
            breakthrough(&mut b, &mut ph, orders, dice, &mut ev)?;
            supply_markers(&mut b, &ph, &mut ev);
        }
        army_morale(&mut b, &mut ph, dice, &mut ev)?;
        for id in &ph.fought {
            if let Some(u) = b.unit_mut(*id) {
                u.day.fought = true;
            }
        }
    }
    record_the_day(&mut b, &ev[moved_before..], light);
    Ok((b, ev))
}

/// Note in each unit's day what it did this turn: moved (by daylight,
/// dawn and dusk included, or by night), entrenched.
fn record_the_day(b: &mut SfrmBattle, ev: &[SfrmEvent], light: Light) {
    let mut moved = BTreeSet::new();
    let mut dug = BTreeSet::new();
    for e in ev {
        match e {
            SfrmEvent::Moved { unit, .. }
            | SfrmEvent::Charged { unit, .. }
            | SfrmEvent::RoutMove { unit, .. } => {
                moved.insert(*unit);
            }
            SfrmEvent::Entrenched { unit, .. } => {
                dug.insert(*unit);
            }
            _ => {}
        }
    }
    for u in &mut b.units {
        if moved.contains(&u.id) {
            if light == Light::Night {
                u.day.night_turns_moved += 1;
            } else {
                u.day.day_turns_moved += 1;
            }
        }
        if dug.contains(&u.id) {
            u.day.entrenched = true;
        }
    }
}

/// SFRM "Time, Weather & Daylight", at the end of a day: 1 fatigue for a
/// day of combat, ¼ for a day of marching or entrenching without combat,
/// doubled for each of forcemarching (more than 16 daytime turns moved),
/// nightmarching (more than 8 night-time turns) and hot weather; a day of
/// rest in supply takes 1 away.
pub fn end_of_day(b: &mut SfrmBattle, ev: &mut Vec<SfrmEvent>) {
    let hot = b.weather == Weather::Hot;
    let fed: Vec<_> = [Side::Union, Side::Confederate]
        .map(|side| (side, in_supply(b, side)))
        .into_iter()
        .collect();
    for u in b.units.iter_mut().filter(|u| !u.gone()) {
        let d = u.day;
        let before = u.fatigue_quarters;
        let marched = d.day_turns_moved > 0 || d.night_turns_moved > 0 || d.entrenched;
        let mut working = Vec::new();
        let base = if d.fought {
            working.push("a day of combat: +1".to_string());
            4
        } else if marched {
            working.push("a day of marching or entrenching: +1/4".to_string());
            1
        } else {
            0
        };
        if base > 0 {
            let mut gain: u32 = base;
            if d.day_turns_moved > FORCEMARCH_TURNS {
                gain = gain.saturating_mul(2);
                working.push(format!(
                    "forcemarching ({} daytime turns moved): doubled",
                    d.day_turns_moved
                ));
            }
            if d.night_turns_moved > NIGHTMARCH_TURNS {
                gain = gain.saturating_mul(2);
                working.push(format!(
                    "nightmarching ({} night-time turns moved): doubled",
                    d.night_turns_moved
                ));
            }
            if hot {
                gain = gain.saturating_mul(2);
                working.push("hot weather: doubled (SFRM Table 8)".to_string());
            }
            u.fatigue_quarters = u.fatigue_quarters.saturating_add(gain);
        } else {
            let in_supply = fed
                .iter()
                .find(|(s, _)| *s == u.side)
                .is_none_or(|(_, set)| set.as_ref().is_none_or(|set| set.contains(&u.id)));
            if in_supply {
                working.push("a day of rest in supply: -1".to_string());
                u.fatigue_quarters = u.fatigue_quarters.saturating_sub(4);
            } else {
                working.push("a day of rest out of supply: no change".to_string());
            }
        }
        u.day = Default::default();
        if u.fatigue_quarters != before || !working.is_empty() {
            ev.push(SfrmEvent::Fatigue {
                unit: u.id,
                before,
                after: u.fatigue_quarters,
                working,
                section: S_TIME.into(),
            });
        }
    }
}

/// SFRM "Time, Weather & Daylight": forcemarching is moving more than 16
/// daytime turns in a day.
pub const FORCEMARCH_TURNS: u32 = 16;
/// SFRM "Time, Weather & Daylight": nightmarching is moving more than 8
/// night-time turns in a night.
pub const NIGHTMARCH_TURNS: u32 = 8;

/// SFRM "Command": each general of the phasing side rolls a d6 against his
/// command ability; a unit is in command when partly within the command
/// range (halved through woods) of one who succeeds, or when it is a march
/// column with a general in it.
fn command(
    b: &mut SfrmBattle,
    ph: &Phase,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let mut commanding = Vec::new();
    let generals: Vec<_> = b.generals_of(ph.side).cloned().collect();
    for g in &generals {
        let ability = g.stats().command_ability;
        let roll = dice.d6(&RollPurpose::new(RollKind::SfrmCommand, g.name.clone())
            .with_note(format!("SFRM Command (i): d6 <= command ability {ability}")))?;
        let commands = roll <= ability;
        ev.push(SfrmEvent::CommandRoll {
            general: g.id,
            ability,
            roll,
            commands,
            section: format!("{S_COMMAND} (i), SFRM Table 2"),
        });
        if commands {
            commanding.push(g);
        }
    }
    let ids: Vec<UnitId> = b.units_of(ph.side).map(|u| u.id).collect();
    for id in ids {
        let Some(u) = b.unit(id) else { continue };
        let by_range = commanding
            .iter()
            .filter(|g| u.pos.distance(g.pos) <= command_range(b, g, u.pos))
            .min_by(|a, c| {
                a.pos
                    .distance(u.pos)
                    .total_cmp(&c.pos.distance(u.pos))
                    .then(a.id.cmp(&c.id))
            })
            .map(|g| g.id);
        let by_column = (u.formation == Formation::MarchColumn)
            .then(|| b.attached_general(id).map(|g| g.id))
            .flatten();
        let by = by_range.or(by_column);
        let section = if by_range.is_some() || by.is_none() {
            format!("{S_COMMAND} (i)")
        } else {
            format!("{S_COMMAND} (ii)")
        };
        if let Some(u) = b.unit_mut(id) {
            u.out_of_command = by.is_none();
        }
        ev.push(SfrmEvent::Command {
            unit: id,
            in_command: by.is_some(),
            by,
            section,
        });
    }
    promote(b, ph.side, ev);
    if let Some(fed) = in_supply(b, ph.side) {
        let ids: Vec<UnitId> = b.units_of(ph.side).map(|u| u.id).collect();
        for id in ids {
            let in_supply = fed.contains(&id);
            let Some(u) = b.unit_mut(id) else { continue };
            if in_supply {
                u.out_of_supply = 0;
            }
            ev.push(SfrmEvent::Supply {
                unit: id,
                in_supply,
                markers: u.out_of_supply,
                section: S_SUPPLY.into(),
            });
        }
    }
    Ok(())
}

/// SFRM "Supply": "Each unit that is out of supply receives an appropriate
/// marker after each phase that they take part in combat."
fn supply_markers(b: &mut SfrmBattle, ph: &Phase, ev: &mut Vec<SfrmEvent>) {
    let fed: Vec<_> = [Side::Union, Side::Confederate]
        .map(|side| (side, in_supply(b, side)))
        .into_iter()
        .collect();
    for id in &ph.fought {
        let Some(u) = b.unit(*id).filter(|u| !u.gone()) else {
            continue;
        };
        let Some((_, Some(set))) = fed.iter().find(|(s, _)| *s == u.side) else {
            continue;
        };
        if set.contains(id) {
            continue;
        }
        if let Some(u) = b.unit_mut(*id) {
            u.out_of_supply = u.out_of_supply.saturating_add(1);
            ev.push(SfrmEvent::OutOfSupplyMarker {
                unit: *id,
                markers: u.out_of_supply,
                section: S_SUPPLY.into(),
            });
        }
    }
}

/// SFRM "Officer Casualties": removed generals are replaced at the end of
/// their side's next command & supply subphase by promoting their highest
/// ranking subordinate general (an army or corps general), or an element
/// of their highest ranking subordinate brigade (a divisional general);
/// the promotions that causes are made at the same time. Highest command
/// first; among equals the lowest id (the senior in the order of battle,
/// our ruling).
fn promote(b: &mut SfrmBattle, side: Side, ev: &mut Vec<SfrmEvent>) {
    let mut vacant: Vec<(Rank, GeneralId)> = b
        .generals
        .iter()
        .filter(|g| g.side == side && g.removed && !g.replaced)
        .map(|g| (g.role_rank(), g.id))
        .collect();
    vacant.sort_by(|a, c| c.0.cmp(&a.0).then(a.1.cmp(&c.1)));
    for (role, gid) in vacant {
        if let Some(g) = b.general_mut(gid) {
            g.replaced = true;
        }
        let (subs, units) = command_of(b, gid);
        fill(b, role, gid, subs, units, ev);
    }
}

/// The generals and units directly under `gid`.
fn command_of(b: &SfrmBattle, gid: GeneralId) -> (Vec<GeneralId>, Vec<UnitId>) {
    let subs = b
        .generals
        .iter()
        .filter(|x| x.superior == Some(gid) && !x.removed)
        .map(|x| x.id)
        .collect();
    let units = b
        .units
        .iter()
        .filter(|u| u.division == Some(gid) && !u.gone())
        .map(|u| u.id)
        .collect();
    (subs, units)
}

/// The promoted general `new` takes over a vacated command: its
/// subordinate generals (other than himself) report to him and its units
/// count as his division (SFRM "Officer Casualties": promotion).
fn take_over_command(b: &mut SfrmBattle, new: GeneralId, subs: &[GeneralId], units: &[UnitId]) {
    for x in subs.iter().filter(|x| **x != new) {
        if let Some(g) = b.general_mut(*x) {
            g.superior = Some(new);
        }
    }
    for u in units {
        if let Some(u) = b.unit_mut(*u) {
            u.division = Some(new);
        }
    }
}

/// Fill the command `role` that `vacated` held over `subs` and `units`.
fn fill(
    b: &mut SfrmBattle,
    role: Rank,
    vacated: GeneralId,
    subs: Vec<GeneralId>,
    units: Vec<UnitId>,
    ev: &mut Vec<SfrmEvent>,
) {
    let Some(old) = b.general(vacated).cloned() else {
        return;
    };
    let section = format!("{S_OFFICER} (promotion)");
    // The new holder answers to whom the old one did; if the old one moved
    // up (a promotion caused by a promotion), to him.
    let superior = if old.removed {
        old.superior
    } else {
        Some(old.id)
    };
    match role {
        Rank::Army | Rank::Corps => {
            let best = subs
                .iter()
                .filter_map(|id| b.general(*id))
                .min_by(|a, c| c.role_rank().cmp(&a.role_rank()).then(a.id.cmp(&c.id)))
                .map(|g| (g.id, g.role_rank()));
            let Some((sid, s_role)) = best else { return };
            let (s_subs, s_units) = command_of(b, sid);
            if let Some(s) = b.general_mut(sid) {
                s.role = (s.rank != role).then_some(role);
                s.superior = superior;
            }
            take_over_command(b, sid, &subs, &units);
            ev.push(SfrmEvent::Promoted {
                removed: vacated,
                promoted: sid,
                role,
                from_brigade: None,
                section,
            });
            fill(b, s_role, sid, s_subs, s_units, ev);
        }
        Rank::Division => {
            // A brigade gives one of its elements; one of a single element
            // would vanish, so it must have two (our ruling).
            let Some(brigade) = units
                .iter()
                .filter_map(|id| b.unit(*id))
                .filter(|u| u.is_infantry_or_cavalry() && u.elements >= 2)
                .min_by_key(|u| u.id)
                .cloned()
            else {
                return;
            };
            let id = GeneralId(b.generals.iter().map(|g| g.id.0).max().unwrap_or(0) + 1);
            let one = super::super::table2::StatPenalty {
                command_range: 1,
                command_ability: 1,
                combat_value: 1,
            };
            b.generals.push(super::nouns::General {
                id,
                name: format!("commander of {}", brigade.name),
                side: old.side,
                rank: old.rank,
                quality: old.quality,
                penalty: old.penalty.plus(one),
                pos: brigade.pos,
                attached_to: Some(brigade.id),
                superior,
                removed: false,
                role: (old.rank != Rank::Division).then_some(Rank::Division),
                replaced: false,
            });
            if let Some(u) = b.unit_mut(brigade.id) {
                u.elements -= 1;
            }
            take_over_command(b, id, &subs, &units);
            ev.push(SfrmEvent::Promoted {
                removed: vacated,
                promoted: id,
                role,
                from_brigade: Some(brigade.id),
                section,
            });
        }
    }
}

/// SFRM "Command": command range, halved through woods/forest.
fn command_range(b: &SfrmBattle, g: &super::nouns::General, to: Pos) -> f64 {
    let r = f64::from(g.stats().command_range);
    if b.length_through(g.pos, to, |gr| gr == Ground::Woods) > 0.0 {
        r / 2.0
    } else {
        r
    }
}

fn refuse(ev: &mut Vec<SfrmEvent>, side: Side, index: usize, reason: String, section: &str) {
    ev.push(SfrmEvent::OrderRefused {
        side,
        index,
        reason,
        section: section.into(),
    });
}

/// SFRM Table 8 notes and "Time, Weather & Daylight": the fraction of
/// Table 4's allowance that weather and night leave, with its working.
fn movement_factor(b: &SfrmBattle, light: Light) -> (f64, Vec<String>) {
    let (n, d) = weather_movement(b.weather);
    let mut f = f64::from(n) / f64::from(d);
    let mut working = Vec::new();
    if (n, d) != (1, 1) {
        working.push(format!("{:?} weather: x{n}/{d} (SFRM Table 8)", b.weather));
    }
    if light == Light::Night {
        f /= 2.0;
        working.push(format!("night: halved ({S_TIME})"));
    }
    (f, working)
}

/// Inches of allowance a straight move from `from` to `to` spends (SFRM
/// Table 4 and "Manoeuvre"): each inch counts the terrain/manoeuvre
/// modifier when moving sideways or backwards (more than 45° off the
/// facing), again in rough terrain, and throughout when skirmishing; both
/// cases together multiply.
fn path_cost(b: &SfrmBattle, u: &Unit, from: Pos, to: Pos) -> f64 {
    let len = from.distance(to);
    if len == 0.0 {
        return 0.0;
    }
    let m = f64::from(table4(move_class(u)).modifier.unwrap_or(1));
    let sideways = angle_between(u.facing, from.bearing_to(to)) > 45.0;
    let mo = if sideways { m } else { 1.0 };
    if u.formation == Formation::Skirmish {
        return len * mo * m;
    }
    let rough = b.length_through(from, to, Ground::rough).min(len);
    (len - rough) * mo + rough * mo * m
}

/// The first fraction of the way from `a` to `b` at which the path comes
/// closer than `limit` to `e` (1.0 if never). Starting nearer than the
/// limit, any step closer is refused at once (0.0).
fn first_too_close(a: Pos, b: Pos, e: Pos, limit: f64) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let (fx, fy) = (a.x - e.x, a.y - e.y);
    let qa = dx * dx + dy * dy;
    if qa == 0.0 {
        return 1.0;
    }
    let qb = 2.0 * (fx * dx + fy * dy);
    let qc = fx * fx + fy * fy - limit * limit;
    if qc <= 1e-9 {
        return if qb < 0.0 { 0.0 } else { 1.0 };
    }
    let disc = qb * qb - 4.0 * qa * qc;
    if disc <= 0.0 {
        return 1.0;
    }
    let t1 = (-qb - disc.sqrt()) / (2.0 * qa);
    if (0.0..1.0).contains(&t1) { t1 } else { 1.0 }
}

/// SFRM "Movement & Manoeuvre": generals' orders first (so a general can
/// reach a brigade before it charges), then each unit's one movement order.
fn movement(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    orders: &[Order],
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let side = ph.side;
    let (factor, fworking) = movement_factor(b, ph.light);
    for (i, o) in orders.iter().enumerate() {
        let (gid, to_unit, to) = match *o {
            Order::GeneralMove { to, .. } if !to.x.is_finite() || !to.y.is_finite() => continue,
            Order::GeneralMove { general, to } => (general, None, Some(to)),
            Order::Attach { general, unit } => (general, Some(unit), None),
            _ => continue,
        };
        let Some(g) = b.general(gid).filter(|g| g.side == side && !g.removed) else {
            refuse(
                ev,
                side,
                i,
                format!("no general {} of yours is on the field", gid.0),
                S_MOVEMENT,
            );
            continue;
        };
        let from = g.pos;
        let reach = f64::from(table4(super::tables::MoveClass::GeneralOrMessenger).line) * factor;
        let (dest, attach) = match (to, to_unit) {
            (Some(p), _) => (p, None),
            (None, Some(Some(uid))) => match b.unit(uid).filter(|u| u.side == side && !u.gone()) {
                Some(u) => (u.pos, Some(uid)),
                None => {
                    refuse(
                        ev,
                        side,
                        i,
                        format!("no unit {} of yours to attach to", uid.0),
                        S_COMMAND,
                    );
                    continue;
                }
            },
            (None, _) => (from, None),
        };
        if b.table
            .is_some_and(|t| t.contains(from) && !t.contains(dest))
        {
            refuse(
                ev,
                side,
                i,
                format!("{} would ride past {}", g.name, edge_words(b, dest)),
                S_MOVEMENT,
            );
            continue;
        }
        let d = from.distance(dest);
        if d > reach + 1e-9 {
            refuse(
                ev,
                side,
                i,
                format!(
                    "{} is {d:.1}\" away; a general rides {reach:.1}\" this turn (SFRM Table 4); order a ride toward it",
                    g.name
                ),
                S_MOVEMENT,
            );
            continue;
        }
        if let Some(g) = b.general_mut(gid) {
            g.pos = dest;
            g.attached_to = attach;
        }
        ev.push(SfrmEvent::GeneralMoved {
            general: gid,
            from,
            to: dest,
            attached_to: attach,
            section: format!("{S_MOVEMENT}, SFRM Table 4"),
        });
    }
    for (i, o) in orders.iter().enumerate() {
        if let Order::Target { unit, target } = *o {
            let mine = b.unit(unit).is_some_and(|u| u.side == side && !u.gone());
            let theirs = b.unit(target).is_some_and(|t| t.side != side && !t.gone());
            if !mine || !theirs {
                refuse(
                    ev,
                    side,
                    i,
                    format!(
                        "a target order needs a unit of yours ({}) and an enemy unit on the field ({}); the unit will fire at the nearest enemy it can",
                        unit.0, target.0
                    ),
                    S_ARC,
                );
            }
        }
        if let Order::TargetGeneral { unit, general } = *o {
            let mine = b.unit(unit).is_some_and(|u| u.side == side && !u.gone());
            let theirs = b
                .general(general)
                .is_some_and(|g| g.side != side && !g.removed);
            if !mine || !theirs {
                refuse(
                    ev,
                    side,
                    i,
                    format!(
                        "a target order needs a unit of yours ({}) and an enemy general on the field ({}); the unit will fire at the nearest enemy unit it can",
                        unit.0, general.0
                    ),
                    S_ARC,
                );
            }
        }
        let to = match o {
            Order::Move { to, .. } | Order::BreakthroughMove { to, .. } => Some(*to),
            Order::GeneralMove { to, .. } => Some(*to),
            _ => None,
        };
        if to.is_some_and(|p| !p.x.is_finite() || !p.y.is_finite()) {
            refuse(
                ev,
                side,
                i,
                "a position must be two finite numbers of inches".into(),
                S_MOVEMENT,
            );
        }
    }
    let mut ordered = BTreeSet::new();
    for (i, o) in orders.iter().enumerate() {
        if matches!(o, Order::Move { to, .. } if !to.x.is_finite() || !to.y.is_finite()) {
            continue;
        }
        let Some(uid) = o.moving_unit() else { continue };
        let Some(u) = b.unit(uid).filter(|u| u.side == side && !u.gone()) else {
            refuse(
                ev,
                side,
                i,
                format!("no unit {} of yours is on the field", uid.0),
                S_MOVEMENT,
            );
            continue;
        };
        if !ordered.insert(uid) {
            refuse(
                ev,
                side,
                i,
                format!(
                    "{} already has a movement order this phase; a unit moves, charges, changes formation, entrenches or routs once",
                    u.name
                ),
                S_MOVEMENT,
            );
            continue;
        }
        let u = u.clone();
        let general = b.attached_general(uid).map(|g| g.id);
        match o {
            Order::RoutMove { .. } => {
                rout_move(b, ph, uid, dice, ev)?;
                continue;
            }
            Order::Unrout { formation, .. } => {
                let why = if !u.routed {
                    Some(format!("{} is not routed", u.name))
                } else if u.out_of_command {
                    Some(format!(
                        "{} is out of command; it may only rout move",
                        u.name
                    ))
                } else if general.is_none() {
                    Some(format!(
                        "{} has no general attached; attach one to unrout it",
                        u.name
                    ))
                } else {
                    None
                };
                match (why, general) {
                    (None, Some(g)) => {
                        if let Some(m) = b.unit_mut(uid) {
                            m.routed = false;
                            if let Some(f) = formation {
                                m.formation = *f;
                            }
                        }
                        ev.push(SfrmEvent::Unrouted {
                            unit: uid,
                            general: g,
                            section: S_COMMAND.into(),
                        });
                    }
                    (why, _) => refuse(ev, side, i, why.unwrap_or_default(), S_COMMAND),
                }
                continue;
            }
            _ => {}
        }
        // Everything else needs an unrouted unit in command.
        if u.routed {
            refuse(
                ev,
                side,
                i,
                format!(
                    "{} is routed: it may only rout move, or be unrouted by an attached general while in command",
                    u.name
                ),
                S_COMMAND,
            );
            continue;
        }
        if u.out_of_command {
            refuse(
                ev,
                side,
                i,
                format!(
                    "{} is out of command: it may not move, but may fire or make a rout move",
                    u.name
                ),
                S_COMMAND,
            );
            continue;
        }
        match o {
            Order::Move {
                to,
                road,
                front_rank,
                ..
            } => {
                if let Some(why) = cannot_move(&u, general.is_some()) {
                    refuse(ev, side, i, why, S_MANOEUVRE);
                    continue;
                }
                let mut u = u.clone();
                if let Some(n) = front_rank {
                    if u.formation != Formation::Line {
                        refuse(
                            ev,
                            side,
                            i,
                            format!(
                                "{} is in {}: only a line expands or contracts its frontage",
                                u.name,
                                u.formation.name()
                            ),
                            S_MOVEMENT,
                        );
                        continue;
                    }
                    u.front_rank = *n;
                    if let Some(m) = b.unit_mut(uid) {
                        m.front_rank = *n;
                    }
                }
                let moved = if *road {
                    road_move(b, ph, &u, *to, factor, &fworking)
                } else {
                    move_unit(b, ph, &u, *to, factor, &fworking)
                };
                match moved {
                    Ok(e) => ev.push(e),
                    Err((why, section)) => refuse(ev, side, i, why, section),
                }
            }
            Order::Wheel { degrees, .. } => {
                if let Some(why) = cannot_move(&u, general.is_some()) {
                    refuse(ev, side, i, why, S_MANOEUVRE);
                    continue;
                }
                match wheel(b, ph, &u, *degrees, factor, &fworking) {
                    Ok(e) => ev.push(e),
                    Err(why) => refuse(ev, side, i, why, S_MANOEUVRE),
                }
            }
            Order::Charge { target, .. } => {
                let why = charge_refusal(b, &u, *target, general.is_some(), ph.light);
                if let Some(why) = why {
                    refuse(ev, side, i, why, S_MOVEMENT);
                    continue;
                }
                let allowance = f64::from(move_allowance(&u, false)) * factor;
                if let Err(why) = charge(b, ph, &u, *target, allowance, dice, ev)? {
                    refuse(ev, side, i, why, S_MOVEMENT);
                }
            }
            Order::Formation {
                formation,
                facing,
                front_rank,
                mounted,
                prone,
                ..
            } => {
                if let Some(why) =
                    formation_refusal(b, &u, *formation, *mounted, *prone, general.is_some())
                {
                    refuse(ev, side, i, why, S_FORMATION);
                    continue;
                }
                if let Some(m) = b.unit_mut(uid) {
                    m.formation = *formation;
                    if let Some(f) = facing {
                        m.facing = f.rem_euclid(360.0);
                    }
                    if let Some(n) = front_rank {
                        m.front_rank = *n;
                    }
                    if let Some(x) = mounted {
                        m.mounted = *x;
                    }
                    if let Some(x) = prone {
                        m.prone = *x;
                    }
                }
                ev.push(SfrmEvent::FormationChanged {
                    unit: uid,
                    formation: *formation,
                    section: S_FORMATION.into(),
                });
            }
            Order::Entrench { .. } => {
                if u.mounted {
                    refuse(
                        ev,
                        side,
                        i,
                        format!("{} is mounted; dismount to entrench", u.name),
                        S_ENTRENCH,
                    );
                    continue;
                }
                // One turn makes hasty entrenchments (1 level).
                let level = u.entrenchment.max(1);
                if let Some(m) = b.unit_mut(uid) {
                    m.entrenchment = level;
                }
                ev.push(SfrmEvent::Entrenched {
                    unit: uid,
                    level,
                    section: S_ENTRENCH.into(),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// SFRM "Time, Weather & Daylight": "during night-time ... movement cannot
/// go closer to known enemy". Known is what the moving side sees when it
/// moves ([`super::view::seen_enemy_units`], the sight every report uses):
/// by night such an enemy holds it where it stands; one it does not see
/// holds it only at the day's stand-off ("Movement": no closer than 4" in
/// march column, 1" otherwise). By day every enemy holds it at the
/// stand-off. Empty by day (nothing to compute).
fn known_enemy(b: &SfrmBattle, ph: &Phase, side: Side) -> BTreeSet<UnitId> {
    if ph.light == Light::Night {
        super::view::seen_enemy_units(b, side)
    } else {
        BTreeSet::new()
    }
}

/// How close a move may come to enemy `e`, `start` inches off when it
/// began: [`known_enemy`]'s rule. `true` when it is the night's "no closer".
fn standoff(known: &BTreeSet<UnitId>, e: UnitId, start: f64, limit: f64) -> (f64, bool) {
    if known.contains(&e) {
        (start, true)
    } else {
        (limit.min(start), false)
    }
}

/// Why a move stops at the table's edge (our ruling: SFRM plays on a
/// table and has no rule for marching off it, so no piece leaves it;
/// docs/rulings-sfrm.md "Movement and manoeuvre").
fn edge_words(b: &SfrmBattle, to: Pos) -> String {
    let edge = b.table.map(|t| t.edge_of(to)).unwrap_or("table's");
    format!("the {edge} edge of the table (a unit does not march off the table: our ruling)")
}

/// SFRM "Movement", Table 4 and "Manoeuvre": a straight move toward `to`
/// on `factor` of Table 4's allowance, stopping where the allowance is
/// spent or the stand-off (4" in march column, 1" in line; at night no
/// closer at all) would be broken. Refused (with why and the section)
/// when it cannot move at all.
fn move_unit(
    b: &mut SfrmBattle,
    ph: &Phase,
    u: &Unit,
    to: Pos,
    factor: f64,
    fworking: &[String],
) -> Result<SfrmEvent, (String, &'static str)> {
    let base = f64::from(move_allowance(u, false));
    let allowance = base * factor;
    if allowance <= 0.0 {
        return Err((
            format!(
                "{} moves 0\" in {} (SFRM Table 4); change to march column first",
                u.name,
                u.formation.name()
            ),
            "SFRM Table 4",
        ));
    }
    let from = u.pos;
    let full = path_cost(b, u, from, to);
    // Allowance: the furthest fraction whose cost fits.
    let mut t_allow = 1.0;
    if full > allowance + 1e-9 {
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if path_cost(b, u, from, lerp(from, to, mid)) <= allowance {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        t_allow = lo;
    }
    let limit = if u.formation == Formation::MarchColumn {
        COLUMN_STANDOFF
    } else {
        LINE_STANDOFF
    };
    let known = known_enemy(b, ph, u.side);
    let mut t_close: f64 = 1.0;
    let mut by_night = false;
    for e in b.units_of(u.side.other()) {
        let start = from.distance(e.pos);
        let (l, night) = standoff(&known, e.id, start, limit);
        let t = first_too_close(from, to, e.pos, l);
        if t < t_close {
            t_close = t;
            by_night = night;
        }
    }
    let t_edge = b.table.map_or(1.0, |tb| tb.reach(from, to));
    let t = t_allow.min(t_close).min(t_edge);
    let stopped = if t >= 1.0 {
        None
    } else if t_edge < t_close.min(t_allow) {
        Some(edge_words(b, to))
    } else if t_close <= t_allow {
        Some(if by_night {
            format!("no closer to the enemy at night ({S_TIME})")
        } else {
            format!(
                "{} may go no closer than {limit}\" to the enemy ({S_MOVEMENT})",
                u.formation.name()
            )
        })
    } else {
        Some(format!("allowance spent ({S_MOVEMENT}, SFRM Table 4)"))
    };
    if t <= 0.0 {
        return Err((
            format!(
                "{} cannot move that way: {}",
                u.name,
                stopped.unwrap_or_default()
            ),
            S_MOVEMENT,
        ));
    }
    let dest = lerp(from, to, t);
    let cost = path_cost(b, u, from, dest);
    let mut working = vec![format!(
        "{} in {}: {base}\" (SFRM Table 4)",
        u.name,
        u.formation.name()
    )];
    working.extend(fworking.iter().cloned());
    let m = table4(move_class(u)).modifier.unwrap_or(1);
    if angle_between(u.facing, from.bearing_to(to)) > 45.0 {
        working.push(format!(
            "sideways or backwards: each inch x{m} ({S_MANOEUVRE} iv)"
        ));
    }
    if b.length_through(from, dest, Ground::rough) > 0.0 || u.formation == Formation::Skirmish {
        working.push(format!(
            "rough ground or skirmishing: x{m} ({S_MANOEUVRE} v)"
        ));
    }
    place_unit(b, u.id, dest, u.facing);
    Ok(SfrmEvent::Moved {
        unit: u.id,
        from,
        to: dest,
        cost,
        allowance,
        stopped,
        working,
        section: format!("{S_MOVEMENT}, SFRM Table 4"),
    })
}

/// SFRM "Movement": a charge straight into base-to-base contact with
/// `target`, if the allowance reaches it (checked by the caller for the
/// general and formation). A routed unit contacted makes a rout move
/// ("Morale, Routing…"). `Ok(Err(why))` is a refusal.
fn charge(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    u: &Unit,
    target: UnitId,
    allowance: f64,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<Result<(), String>, TurnError> {
    let Some(t) = b.unit(target).cloned() else {
        return Ok(Err(format!(
            "no enemy unit {} on the field to charge",
            target.0
        )));
    };
    let cost = path_cost(b, u, u.pos, t.pos);
    if cost > allowance + 1e-9 {
        return Ok(Err(format!(
            "{} cannot reach {}: {cost:.1}\" of movement needed, {allowance:.1}\" allowed (SFRM Table 4); move closer first",
            u.name,
            unit_ref(t.id)
        )));
    }
    let from = u.pos;
    let from_bearing = t.pos.bearing_to(from);
    place_unit(b, u.id, t.pos, from.bearing_to(t.pos));
    b.contacts.push(Contact {
        a: u.id,
        b: t.id,
        from_bearing,
    });
    ph.charged.insert(u.id);
    ph.engaged.entry(u.id).or_default().insert(t.id);
    ev.push(SfrmEvent::Charged {
        unit: u.id,
        target: t.id,
        from,
        cost,
        allowance,
        section: format!("{S_MOVEMENT}, SFRM Table 4"),
    });
    if t.routed {
        // "already in a routed state and contacted by the enemy"
        rout_move(b, ph, t.id, dice, ev)?;
    }
    Ok(Ok(()))
}

/// SFRM Table 4, "March Column/Limbered On Road": a unit in march column
/// (or limbered) that stands on a road moves along it to the point
/// ordered on the same road, at the on-road rate, with no terrain or
/// manoeuvre modifier (it conforms to the road: "Manoeuvre"); it stops at
/// its allowance or the 4" stand-off (at night, no closer at all).
fn road_move(
    b: &mut SfrmBattle,
    ph: &Phase,
    u: &Unit,
    to: Pos,
    factor: f64,
    fworking: &[String],
) -> Result<SfrmEvent, (String, &'static str)> {
    if u.formation != Formation::MarchColumn {
        return Err((
            format!(
                "{} is in {}: only march column or limbered units move at the road rate; form march column first",
                u.name,
                u.formation.name()
            ),
            S_MOVEMENT,
        ));
    }
    let front = base_front(u);
    let found = b
        .roads
        .iter()
        .find_map(|r| Some((r.clone(), on_road(r, u.pos, front)?, on_road(r, to, front)?)));
    let Some((road, s0, s1)) = found else {
        return Err((
            format!(
                "{} and the point ordered are not on one road (within half an element's base of it); order a move off the road",
                u.name
            ),
            "SFRM Table 4",
        ));
    };
    let base = f64::from(table4(move_class(u)).column_road);
    let allowance = base * factor;
    if allowance <= 0.0 {
        return Err((
            format!("{} cannot move on a road (SFRM Table 4)", u.name),
            "SFRM Table 4",
        ));
    }
    let dir = if s1 >= s0 { 1.0 } else { -1.0 };
    let mut goal = s1;
    let mut stopped = None;
    if (s1 - s0).abs() > allowance + 1e-9 {
        goal = s0 + dir * allowance;
        stopped = Some(format!("allowance spent ({S_MOVEMENT}, SFRM Table 4)"));
    }
    // Walk the road vertex by vertex, watching the stand-off.
    let mut marks: Vec<f64> = Vec::new();
    let mut run = 0.0;
    for w in road.points.windows(2) {
        run += w[0].distance(w[1]);
        let between = if dir > 0.0 {
            run > s0 && run < goal
        } else {
            run < s0 && run > goal
        };
        if between {
            marks.push(run);
        }
    }
    if dir < 0.0 {
        marks.reverse();
    }
    marks.push(goal);
    let start = u.pos;
    let known = known_enemy(b, ph, u.side);
    let enemies: Vec<(UnitId, Pos)> = b.units_of(u.side.other()).map(|e| (e.id, e.pos)).collect();
    let mut cur = s0;
    let mut end = goal;
    for next in marks {
        let (a, _) = road.at(cur);
        let (c, _) = road.at(next);
        let mut t: f64 = 1.0;
        let mut by_night = false;
        for (id, e) in &enemies {
            let d = start.distance(*e);
            let (l, night) = standoff(&known, *id, d, COLUMN_STANDOFF);
            let te = first_too_close(a, c, *e, l);
            if te < t {
                t = te;
                by_night = night;
            }
        }
        let t_edge = b.table.map_or(1.0, |tb| tb.reach(a, c));
        if t_edge < t {
            end = cur + (next - cur) * t_edge;
            stopped = Some(edge_words(b, c));
            break;
        }
        if t < 1.0 {
            end = cur + (next - cur) * t;
            stopped = Some(if by_night {
                format!("no closer to the enemy at night ({S_TIME})")
            } else {
                format!(
                    "march column may go no closer than {COLUMN_STANDOFF}\" to the enemy ({S_MOVEMENT})"
                )
            });
            break;
        }
        cur = next;
    }
    if (end - s0).abs() <= 1e-9 {
        return Err((
            format!(
                "{} cannot move along the road: {}",
                u.name,
                stopped.unwrap_or_default()
            ),
            S_MOVEMENT,
        ));
    }
    let (dest, bearing) = road.at(end);
    let heading = if dir > 0.0 { bearing } else { bearing + 180.0 };
    let mut working = vec![format!(
        "{} in march column on road: {base}\" (SFRM Table 4)",
        u.name
    )];
    working.extend(fworking.iter().cloned());
    place_unit(b, u.id, dest, heading);
    Ok(SfrmEvent::Moved {
        unit: u.id,
        from: start,
        to: dest,
        cost: (end - s0).abs(),
        allowance,
        stopped,
        working,
        section: format!("{S_MOVEMENT}, SFRM Table 4"),
    })
}

/// SFRM "Manoeuvre" (iii): a wheel forward, pivoting on one front corner
/// (the right for a clockwise wheel) and measuring the other, whose arc is
/// the frontage (front elements x base front, Table 1) times the angle in
/// radians; unmodified, except in rough ground (v) where the unit starts
/// or ends. Wheels of more than 180° are refused. The unit may not end
/// nearer the enemy than its stand-off.
fn wheel(
    b: &mut SfrmBattle,
    ph: &Phase,
    u: &Unit,
    degrees: f64,
    factor: f64,
    fworking: &[String],
) -> Result<SfrmEvent, String> {
    if !degrees.is_finite() || degrees == 0.0 || degrees.abs() > 180.0 {
        return Err(format!(
            "a wheel is a turn of 1 to 180 degrees, not {degrees}"
        ));
    }
    let base = f64::from(move_allowance(u, false));
    let allowance = base * factor;
    let width = f64::from(u.front_elements()) * base_front(u);
    let half = width / 2.0;
    let f = u.facing;
    let new_facing = f + degrees;
    let dest = if degrees > 0.0 {
        u.pos.step(f + 90.0, half).step(new_facing - 90.0, half)
    } else {
        u.pos.step(f - 90.0, half).step(new_facing + 90.0, half)
    };
    let m = f64::from(table4(move_class(u)).modifier.unwrap_or(1));
    let rough =
        b.ground_at(u.pos, Ground::rough).is_some() || b.ground_at(dest, Ground::rough).is_some();
    let arc = width * degrees.abs().to_radians();
    let cost = if rough { arc * m } else { arc };
    if cost > allowance + 1e-9 {
        return Err(format!(
            "{} wheeling {degrees}° moves its outer corner {cost:.1}\"; it has {allowance:.1}\" (SFRM Table 4)",
            u.name
        ));
    }
    let limit = if u.formation == Formation::MarchColumn {
        COLUMN_STANDOFF
    } else {
        LINE_STANDOFF
    };
    if b.table
        .is_some_and(|t| t.contains(u.pos) && !t.contains(dest))
    {
        return Err(format!(
            "{} wheeling {degrees}° would end past {}",
            u.name,
            edge_words(b, dest)
        ));
    }
    let known = known_enemy(b, ph, u.side);
    for e in b.units_of(u.side.other()) {
        let start = u.pos.distance(e.pos);
        let (l, _) = standoff(&known, e.id, start, limit);
        if dest.distance(e.pos) < l - 1e-9 {
            return Err(format!(
                "{} would end closer than {l:.1}\" to {} ({S_MOVEMENT})",
                u.name,
                unit_ref(e.id)
            ));
        }
    }
    let mut working = vec![format!(
        "{} wheels {degrees}°: outer corner {arc:.2}\" ({width}\" front, {S_MANOEUVRE} iii)",
        u.name
    )];
    working.extend(fworking.iter().cloned());
    if rough {
        working.push(format!("rough ground: x{m} ({S_MANOEUVRE} v)"));
    }
    let from = u.pos;
    place_unit(b, u.id, dest, new_facing);
    Ok(SfrmEvent::Moved {
        unit: u.id,
        from,
        to: dest,
        cost,
        allowance,
        stopped: None,
        working,
        section: format!("{S_MANOEUVRE}, SFRM Table 4"),
    })
}

fn lerp(a: Pos, b: Pos, t: f64) -> Pos {
    Pos::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
}

/// Put a unit at `p` facing `facing`; generals attached go with it. A unit
/// that leaves its place leaves its entrenchments behind (our ruling:
/// they are dug "for their frontage" where it stood).
fn place_unit(b: &mut SfrmBattle, uid: UnitId, p: Pos, facing: f64) {
    if let Some(m) = b.unit_mut(uid) {
        if m.pos != p {
            m.entrenchment = 0;
        }
        m.pos = p;
        m.facing = facing.rem_euclid(360.0);
    }
    for g in b
        .generals
        .iter_mut()
        .filter(|g| g.attached_to == Some(uid) && !g.removed)
    {
        g.pos = p;
    }
}

/// SFRM "Manoeuvre" and "Movement": who may not move at all.
fn cannot_move(u: &Unit, has_general: bool) -> Option<String> {
    if matches!(u.formation, Formation::Square | Formation::DeployedInTown) || u.prone {
        return Some(format!(
            "{} is in {}{}: it may only change formation or rout move",
            u.name,
            u.formation.name(),
            if u.prone { " and prone" } else { "" }
        ));
    }
    if u.formation.needs_general() && !has_general {
        return Some(format!(
            "{} is in {} without an attached general; change to line or march column, or attach a general",
            u.name,
            u.formation.name()
        ));
    }
    None
}

/// SFRM "Movement": a charge needs an attached general, a line formation,
/// a unit that can move, and daylight (no going closer to known enemy at
/// night).
fn charge_refusal(
    b: &SfrmBattle,
    u: &Unit,
    target: UnitId,
    has_general: bool,
    light: Light,
) -> Option<String> {
    if let Some(why) = cannot_move(u, has_general) {
        return Some(why);
    }
    if !u.is_infantry_or_cavalry() {
        return Some(format!(
            "{} cannot charge: only infantry and cavalry charge",
            u.name
        ));
    }
    if !has_general {
        return Some(format!(
            "{} has no attached general; units charge only with one",
            u.name
        ));
    }
    if u.formation == Formation::MarchColumn {
        return Some(format!(
            "{} is in march column, which may go no closer than 4\" to the enemy; form line first",
            u.name
        ));
    }
    if light == Light::Night {
        return Some(format!(
            "no charges at night: movement may not go closer to known enemy ({S_TIME})"
        ));
    }
    match b.unit(target) {
        Some(t) if t.side != u.side && !t.gone() => None,
        _ => Some(format!("no enemy unit {} on the field to charge", target.0)),
    }
}

/// SFRM "Formation Changes" and "Movement": which formations a unit may
/// take.
fn formation_refusal(
    b: &SfrmBattle,
    u: &Unit,
    f: Formation,
    mounted: Option<bool>,
    prone: Option<bool>,
    has_general: bool,
) -> Option<String> {
    if f.needs_general() && !has_general {
        return Some(format!(
            "{} needs an attached general to form {}",
            u.name,
            f.name()
        ));
    }
    match u.arm {
        Arm::Artillery { .. } if !matches!(f, Formation::MarchColumn | Formation::Line) => {
            return Some(format!(
                "artillery limbers (march column) or unlimbers (line), not {}",
                f.name()
            ));
        }
        Arm::Supply if f != Formation::MarchColumn => {
            return Some("a supply train keeps to march column".into());
        }
        _ => {}
    }
    if mounted.is_some() && !matches!(u.arm, Arm::Cavalry { .. }) {
        return Some(format!(
            "{} is not cavalry; only cavalry mount or dismount",
            u.name
        ));
    }
    let will_be_mounted = mounted.unwrap_or(u.mounted);
    if prone == Some(true) && (!u.is_infantry_or_cavalry() || will_be_mounted) {
        return Some(format!(
            "{}: only infantry or dismounted cavalry lie prone",
            u.name
        ));
    }
    if f == Formation::DeployedInTown && b.ground_at(u.pos, |g| g == Ground::Town).is_none() {
        return Some(format!("{} is not in a town", u.name));
    }
    None
}

/// SFRM "Morale, Routing, Casualties & Dispersal": casualties in one phase
/// that make infantry and cavalry rout: inferior 1, regular 2, superior 3.
/// A green unit still untested counts as inferior (our ruling).
pub fn rout_threshold(q: Option<Quality>) -> u32 {
    match q {
        None | Some(Quality::Inferior) => 1,
        Some(Quality::Regular) => 2,
        Some(Quality::Superior) => 3,
    }
}

/// SFRM "Morale, Routing, Casualties & Dispersal": infantry and cavalry
/// disperse at or below inferior 3, regular 2, superior 1 elements. A green
/// unit still untested counts as inferior (our ruling).
pub fn dispersal_threshold(q: Option<Quality>) -> u32 {
    match q {
        None | Some(Quality::Inferior) => 3,
        Some(Quality::Regular) => 2,
        Some(Quality::Superior) => 1,
    }
}

fn quality_name(q: Option<Quality>) -> &'static str {
    q.map(Quality::name).unwrap_or("green")
}

/// SFRM "Rout Moves": 4" toward friendly elements if that is no closer to
/// any enemy, else straight away from the nearest enemy; a unit that can do
/// neither is dispersed. Cavalry remount and artillery limbers first
/// ("Morale, Routing…"); a unit already routed loses an element.
fn rout_move(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    uid: UnitId,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let Some(u) = b.unit(uid).filter(|u| !u.gone()).cloned() else {
        return Ok(());
    };
    let from = u.pos;
    let enemies: Vec<Pos> = b.units_of(u.side.other()).map(|e| e.pos).collect();
    let no_closer = |p: Pos| {
        enemies
            .iter()
            .all(|e| p.distance(*e) >= from.distance(*e) - 1e-9)
    };
    let friend = b
        .units_of(u.side)
        .filter(|f| f.id != uid && f.pos.distance(from) > 0.0)
        .min_by(|a, c| {
            a.pos
                .distance(from)
                .total_cmp(&c.pos.distance(from))
                .then(a.id.cmp(&c.id))
        })
        .map(|f| f.pos);
    // The table's edge: a rout move that would leave the table cannot be
    // made, and a routing unit that cannot move is dispersed ("Rout
    // Moves"; our ruling that no piece leaves the table).
    let on_table = |p: Pos| b.table.is_none_or(|t| !t.contains(from) || t.contains(p));
    let toward_friend = friend
        .map(|f| from.step(from.bearing_to(f), ROUT_MOVE_INCHES))
        .filter(|p| no_closer(*p) && on_table(*p));
    // Away from the enemy: from one in contact, back from the side the
    // charge came (a charger back the way it came); else from the nearest
    // enemy; with none in sight of the point model, to its rear.
    let contact_bearing = b
        .contacts
        .iter()
        .find(|c| {
            c.involves(uid)
                && b.unit(c.other(uid).unwrap_or(uid))
                    .is_some_and(|o| !o.gone())
        })
        .map(|c| {
            if c.b == uid {
                c.from_bearing + 180.0
            } else {
                c.from_bearing
            }
        });
    let nearest_enemy = enemies
        .iter()
        .copied()
        .filter(|e| e.distance(from) > 0.0)
        .min_by(|a, c| a.distance(from).total_cmp(&c.distance(from)));
    let away_bearing = contact_bearing
        .or_else(|| nearest_enemy.map(|e| e.bearing_to(from)))
        .unwrap_or(u.facing + 180.0);
    let away =
        Some(from.step(away_bearing, ROUT_MOVE_INCHES)).filter(|p| no_closer(*p) && on_table(*p));
    b.contacts.retain(|c| !c.involves(uid));
    let Some(dest) = toward_friend.or(away) else {
        disperse(
            b,
            uid,
            "cannot make its rout move without going closer to the enemy or off the table".into(),
            ev,
        );
        return Ok(());
    };
    let already = u.routed;
    if let Some(m) = b.unit_mut(uid) {
        m.routed = true;
        if matches!(m.arm, Arm::Cavalry { .. }) {
            m.mounted = true;
            m.prone = false;
        }
        if m.is_artillery() {
            m.formation = Formation::MarchColumn;
        }
    }
    place_unit(b, uid, dest, from.bearing_to(dest));
    ev.push(SfrmEvent::RoutMove {
        unit: uid,
        from,
        to: dest,
        extra_casualty: already,
        section: S_ROUT.into(),
    });
    if already {
        take_casualties(b, ph, uid, 1, dice, ev)?;
        check_dispersal(b, uid, ev);
    }
    Ok(())
}

/// SFRM "Morale, Routing, Casualties & Dispersal": remove a unit from play
/// (dispersed or destroyed); its contacts end and its generals stand alone.
fn disperse(b: &mut SfrmBattle, uid: UnitId, reason: String, ev: &mut Vec<SfrmEvent>) {
    if let Some(m) = b.unit_mut(uid) {
        m.dispersed = true;
    }
    b.contacts.retain(|c| !c.involves(uid));
    for g in b.generals.iter_mut().filter(|g| g.attached_to == Some(uid)) {
        g.attached_to = None;
    }
    ev.push(SfrmEvent::Dispersed {
        unit: uid,
        reason,
        section: S_MORALE.into(),
    });
}

/// SFRM "Morale, Routing, Casualties & Dispersal": disperse an infantry or
/// cavalry unit at or below its quality's elements.
fn check_dispersal(b: &mut SfrmBattle, uid: UnitId, ev: &mut Vec<SfrmEvent>) {
    let Some(u) = b.unit(uid).filter(|u| !u.dispersed) else {
        return;
    };
    if u.elements == 0 {
        let name = u.name.clone();
        disperse(b, uid, format!("{name} has no elements left"), ev);
        return;
    }
    if !u.is_infantry_or_cavalry() {
        return;
    }
    let limit = dispersal_threshold(u.quality);
    if u.elements <= limit {
        let reason = format!(
            "{} elements left; {} units disperse at {limit} or fewer",
            u.elements,
            quality_name(u.quality)
        );
        disperse(b, uid, reason, ev);
    }
}

/// Remove elements and roll SFRM Table 3 for each general attached to the
/// unit ("Officer Casualties" i).
fn take_casualties(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    uid: UnitId,
    n: u32,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<u32, TurnError> {
    let Some(m) = b.unit_mut(uid) else {
        return Ok(0);
    };
    let lost = n.min(m.elements);
    m.elements -= lost;
    if lost == 0 {
        return Ok(0);
    }
    *ph.casualties.entry(uid).or_insert(0) += lost;
    ph.hit.insert(uid);
    let attached: Vec<_> = b
        .generals
        .iter()
        .filter(|g| g.attached_to == Some(uid) && !g.removed)
        .map(|g| (g.id, g.name.clone()))
        .collect();
    for (gid, _) in attached {
        // Attached to a friendly unit, he is in contact with friends and
        // cannot be captured (text under Table 3).
        officer_casualty(b, gid, dice, ev)?;
    }
    Ok(lost)
}

/// Whether a general at `g` is in base contact with unit `u`: the two
/// bases touch when the points are no farther apart than half of each
/// base front (Table 1; our ruling for the point model).
fn touches(g: &super::nouns::General, u: &Unit) -> bool {
    g.pos.distance(u.pos) <= (general_base_front(g.rank) + base_front(u)) / 2.0 + 1e-9
}

/// The enemy unit (lowest id) a general is in contact with, and whether a
/// friendly unit is in contact with him too.
fn general_contacts(b: &SfrmBattle, g: &super::nouns::General) -> (Option<UnitId>, bool) {
    let enemy = b
        .units_of(g.side.other())
        .filter(|u| touches(g, u))
        .map(|u| u.id)
        .min();
    let friends = g.attached_to.is_some() || b.units_of(g.side).any(|u| touches(g, u));
    (enemy, friends)
}

/// SFRM Table 3 for a general, with the capture rule under it (2–6 in
/// contact with enemy troops and not with friendly troops) and, for one
/// left in play alone against the enemy, the rout move the text allows
/// ("may also make an immediate rout move": 4" away from the enemy, toward
/// friends if that is no closer).
fn officer_casualty(
    b: &mut SfrmBattle,
    gid: GeneralId,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let Some(g) = b.general(gid).filter(|g| !g.removed).cloned() else {
        return Ok(());
    };
    let dice2 = roll_2d6_dice(
        dice,
        &RollPurpose::new(RollKind::SfrmCasualty, g.name.clone()).with_note("SFRM Table 3"),
    )?;
    let Ok(casualty) = table3(dice2[0] + dice2[1]) else {
        return Ok(());
    };
    let (enemy, friends) = general_contacts(b, &g);
    let captured = casualty.captured(enemy.is_some(), friends);
    if let Some(m) = b.general_mut(gid) {
        m.penalty = m.penalty.plus(casualty.penalty);
        if casualty.removed() || captured {
            m.removed = true;
            m.attached_to = None;
        }
    }
    ev.push(SfrmEvent::OfficerCasualty {
        general: gid,
        dice: dice2,
        casualty,
        captured,
        section: S_OFFICER.into(),
    });
    if casualty.removed() || captured || friends {
        return Ok(());
    }
    let Some(e) = enemy.and_then(|e| b.unit(e)).map(|e| e.pos) else {
        return Ok(());
    };
    let from = g.pos;
    let enemies: Vec<Pos> = b.units_of(g.side.other()).map(|u| u.pos).collect();
    let no_closer = |p: Pos| {
        enemies
            .iter()
            .all(|x| p.distance(*x) >= from.distance(*x) - 1e-9)
    };
    let toward_friend = b
        .units_of(g.side)
        .map(|u| u.pos)
        .filter(|p| p.distance(from) > 0.0)
        .min_by(|a, c| a.distance(from).total_cmp(&c.distance(from)))
        .map(|f| from.step(from.bearing_to(f), ROUT_MOVE_INCHES))
        .filter(|p| no_closer(*p));
    let away = if e.distance(from) > 0.0 {
        e.bearing_to(from)
    } else {
        from.bearing_to(e) + 180.0
    };
    let dest = toward_friend.unwrap_or_else(|| from.step(away, ROUT_MOVE_INCHES));
    if let Some(m) = b.general_mut(gid) {
        m.pos = dest;
    }
    ev.push(SfrmEvent::GeneralMoved {
        general: gid,
        from,
        to: dest,
        attached_to: None,
        section: format!("{S_OFFICER}, {S_ROUT}"),
    });
    Ok(())
}

/// Lone generals (attached to no unit) in contact with an enemy unit.
fn lone_generals_in_contact(b: &SfrmBattle) -> BTreeSet<GeneralId> {
    b.generals
        .iter()
        .filter(|g| !g.removed && g.attached_to.is_none())
        .filter(|g| general_contacts(b, g).0.is_some())
        .map(|g| g.id)
        .collect()
}

/// SFRM "Officer Casualties" (ii): a general not attached to a unit and
/// contacted by the enemy rolls Table 3 at once. Contacts that already
/// stood before the movement subphase do not roll again.
fn generals_contacted(
    b: &mut SfrmBattle,
    before: &BTreeSet<GeneralId>,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    for gid in lone_generals_in_contact(b) {
        if before.contains(&gid) {
            continue;
        }
        let Some(g) = b.general(gid).cloned() else {
            continue;
        };
        let (Some(by), _) = general_contacts(b, &g) else {
            continue;
        };
        ev.push(SfrmEvent::GeneralContacted {
            general: gid,
            by,
            section: format!("{S_OFFICER} (ii)"),
        });
        officer_casualty(b, gid, dice, ev)?;
    }
    Ok(())
}

/// How one unit reaches a target: range, per-element basic value, arc.
struct Shot {
    range: f64,
    per_element: u32,
    in_arc: bool,
    /// Bearing from the target to the firer (for enfilade).
    from_target: f64,
    contact: bool,
}

/// SFRM "Firing Arc & Target Availability": 90° for infantry and cavalry,
/// 60° for artillery. Deployed in town faces every way; a square's second
/// rank faces back (our readings).
fn in_arc(f: &Unit, bearing: f64) -> bool {
    let half = if f.is_artillery() { 30.0 } else { 45.0 };
    match f.formation {
        Formation::DeployedInTown => true,
        Formation::Square => {
            angle_between(f.facing, bearing) <= half
                || angle_between(f.facing + 180.0, bearing) <= half
        }
        _ => angle_between(f.facing, bearing) <= half,
    }
}

/// SFRM Table 6 with the "Combat" rules for what fires only in contact
/// (range 0", value 1: limbered artillery, artillery outside its arc,
/// supply).
fn basic_value(f: &Unit, range: f64, arc: bool) -> Option<u32> {
    match f.arm {
        Arm::Infantry { weapon } | Arm::Cavalry { weapon } => {
            if arc || range == 0.0 {
                table6_small_arm(weapon, range)
            } else {
                None
            }
        }
        Arm::Artillery { gun } if !f.limbered() && arc => table6_gun(gun, range),
        Arm::Artillery { .. } | Arm::Supply => (range == 0.0).then_some(1),
    }
}

/// SFRM "Firing Arc & Target Availability": sight 36", a quarter in snow
/// and half in rain (Table 8), half through cover and no more than 2" into
/// it. Cover the firer stands in does not count.
fn sight_blocked(b: &SfrmBattle, f: &Unit, t: &Unit, range: f64) -> bool {
    let (n, d) = weather_sight(b.weather);
    let mut sight = SIGHT_INCHES * f64::from(n) / f64::from(d);
    let cover: f64 = b
        .ground
        .iter()
        .filter(|a| a.ground.cover() && !a.contains(f.pos))
        .map(|a| a.length_inside(f.pos, t.pos))
        .sum();
    if cover > 0.0 {
        sight /= 2.0;
        // Sight reaches no more than 2" into cover.
        if cover > SIGHT_INTO_COVER + 1e-9 {
            return true;
        }
    }
    range > sight + 1e-9
}

/// SFRM "Firing From Higher Elevation": an element may not target one on
/// a different level unless the lower is at least twice as far from the
/// upper as the edge of the upper's height.
fn elevation_blocked(b: &SfrmBattle, f: Pos, t: Pos) -> bool {
    let (ef, et) = (b.elevation(f), b.elevation(t));
    if ef == et {
        return false;
    }
    let (upper, lower, level) = if ef > et { (f, t, ef) } else { (t, f, et) };
    let len = upper.distance(lower);
    let edge = b
        .ground
        .iter()
        .filter(|a| a.ground == Ground::Hill { level } && a.contains(upper))
        .filter_map(|a| a.clip(upper, lower).map(|(_, t1)| t1 * len))
        .fold(0.0, f64::max);
    len < 2.0 * edge - 1e-9
}

/// SFRM "Firing From Higher Elevation": firing over friendly troops. A
/// friendly unit stands between when its point is within half its base
/// front (Table 1) of the line of fire, and not on the firer's or the
/// target's point (our ruling). Firing over friends needs a difference of
/// elevation, and the lower element at least twice as far from the upper
/// as the friends being fired over; on one level friends block the line.
fn friends_blocked(b: &SfrmBattle, f: &Unit, t: &Unit) -> bool {
    let len = f.pos.distance(t.pos);
    if len == 0.0 {
        return false;
    }
    let (ef, et) = (b.elevation(f.pos), b.elevation(t.pos));
    let upper = if ef >= et { f.pos } else { t.pos };
    let mut farthest: Option<f64> = None;
    for friend in b.units_of(f.side).filter(|u| u.id != f.id) {
        let half = base_front(friend) / 2.0;
        if friend.pos.distance(f.pos) <= half || friend.pos.distance(t.pos) <= half {
            continue;
        }
        let (dx, dy) = (t.pos.x - f.pos.x, t.pos.y - f.pos.y);
        let along = ((friend.pos.x - f.pos.x) * dx + (friend.pos.y - f.pos.y) * dy) / (len * len);
        if !(0.0..=1.0).contains(&along) {
            continue;
        }
        let foot = Pos::new(f.pos.x + dx * along, f.pos.y + dy * along);
        if foot.distance(friend.pos) > half {
            continue;
        }
        let d = upper.distance(friend.pos);
        if farthest.is_none_or(|x| d > x) {
            farthest = Some(d);
        }
    }
    let Some(d) = farthest else {
        return false;
    };
    // On one level friends in the line of fire block it; from a height the
    // lower must be at least twice as far from the upper as the friends
    // fired over.
    ef == et || len < 2.0 * d - 1e-9
}

/// Whether `f` can fire at `t` now, and how: in contact, or within its
/// Table 6 range and firing arc, in sight, not hidden by elevation nor
/// blocked by friends ("Firing Arc & Target Availability", "Firing From
/// Higher Elevation"). No reason is kept: a unit that cannot fire at one
/// enemy looks for another, and nobody is told why.
fn shot(b: &SfrmBattle, f: &Unit, t: &Unit) -> Option<Shot> {
    if let Some(c) = b
        .contacts
        .iter()
        .find(|c| (c.a == f.id && c.b == t.id) || (c.a == t.id && c.b == f.id))
    {
        // In contact: range 0; bearings from the side the charge struck.
        let (to_target, from_target) = if c.a == f.id {
            (c.from_bearing + 180.0, c.from_bearing)
        } else {
            (c.from_bearing, c.from_bearing + 180.0)
        };
        let arc = in_arc(f, to_target.rem_euclid(360.0));
        let per_element = basic_value(f, 0.0, arc)?;
        return Some(Shot {
            range: 0.0,
            per_element,
            in_arc: arc,
            from_target: from_target.rem_euclid(360.0),
            contact: true,
        });
    }
    let range = f.pos.distance(t.pos);
    let bearing = f.pos.bearing_to(t.pos);
    let arc = in_arc(f, bearing);
    let per_element = basic_value(f, range, arc)?;
    if sight_blocked(b, f, t, range)
        || elevation_blocked(b, f.pos, t.pos)
        || friends_blocked(b, f, t)
    {
        return None;
    }
    Some(Shot {
        range,
        per_element,
        in_arc: arc,
        from_target: t.pos.bearing_to(f.pos),
        contact: false,
    })
}

/// SFRM "Firing Arc & Target Availability": one target — an enemy in
/// contact if any, else the ordered target if it can be fired at, else the
/// nearest that can (lowest id on a tie).
fn choose_target(b: &SfrmBattle, f: &Unit, ordered: Option<UnitId>) -> Option<(UnitId, Shot)> {
    let contacts = b.in_contact(f.id);
    if !contacts.is_empty() {
        let pick = ordered
            .filter(|o| contacts.contains(o))
            .unwrap_or(contacts[0]);
        let t = b.unit(pick)?;
        return shot(b, f, t).map(|s| (pick, s));
    }
    if let Some(o) = ordered
        && let Some(t) = b.unit(o).filter(|t| t.side != f.side && !t.gone())
        && let Some(s) = shot(b, f, t)
    {
        return Some((o, s));
    }
    // Nearest first, so the first that can be fired at is the one. An
    // enemy beyond the firer's longest Table 6 range can never be (in any
    // arc), so only those within it are sorted and tried.
    // (An enemy farther than the reach along either axis is farther in
    // a straight line too: skipped before the distance is taken.)
    let reach = reach(f);
    let mut near: Vec<(f64, &Unit)> = b
        .units_of(f.side.other())
        .filter(|t| (t.pos.x - f.pos.x).abs() <= reach && (t.pos.y - f.pos.y).abs() <= reach)
        .map(|t| (f.pos.distance(t.pos), t))
        .filter(|(d, _)| *d <= reach)
        .collect();
    near.sort_by(|a, c| a.0.total_cmp(&c.0).then(a.1.id.cmp(&c.1.id)));
    near.into_iter()
        .find_map(|(_, t)| shot(b, f, t).map(|s| (t.id, s)))
}

/// The longest range at which [`basic_value`] gives `f` a value, in any
/// arc (SFRM Table 6: a small arm's range, a gun's longest band; 0" for
/// what fires only in contact). Every band is "up to" its range, so
/// nothing farther has a value.
fn reach(f: &Unit) -> f64 {
    match f.arm {
        Arm::Infantry { weapon } | Arm::Cavalry { weapon } => table6_small_arm_reach(weapon),
        Arm::Artillery { gun } if !f.limbered() => {
            let (canister, shell, shot) = table6_bands(gun);
            shot.unwrap_or(shell).max(canister)
        }
        Arm::Artillery { .. } | Arm::Supply => 0.0,
    }
}

/// Linear obstacles do not shelter march column, battle column, skirmish
/// or mounted cavalry (SFRM Table 7 note).
fn linear_obstacles_help(t: &Unit) -> bool {
    !(matches!(
        t.formation,
        Formation::MarchColumn | Formation::BattleColumn | Formation::Skirmish
    ) || (matches!(t.arm, Arm::Cavalry { .. }) && t.mounted))
}

/// SFRM "Combat" and Tables 6 and 7: the terms of one unit's fire.
fn fire_terms(b: &SfrmBattle, ph: &Phase, f: &Unit, t: &Unit, s: &Shot) -> Vec<Term> {
    let mut terms = Vec::new();
    let n = f.front_elements();
    let basic = n.saturating_mul(s.per_element);
    let weapon = match f.arm {
        Arm::Infantry { weapon } | Arm::Cavalry { weapon } => weapon.name().to_string(),
        Arm::Artillery { gun } if !f.limbered() && s.in_arc => gun.name().to_string(),
        Arm::Artillery { .. } => "artillery out of arc or limbered (0\", value 1)".into(),
        Arm::Supply => "supply (0\", value 1)".into(),
    };
    let value = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
    terms.push(Term::new(
        format!(
            "{n} elements x {} ({weapon} at {:.1}\")",
            s.per_element, s.range
        ),
        value(basic),
        if matches!(f.arm, Arm::Artillery { .. } | Arm::Supply)
            && (f.limbered() || !s.in_arc || f.arm == Arm::Supply)
        {
            S_COMBAT
        } else {
            S_T6
        },
    ));
    // Multiples of the basic value.
    let square_or_town = matches!(t.formation, Formation::Square | Formation::DeployedInTown);
    if !square_or_town && angle_between(t.facing, s.from_target) > 90.0 {
        terms.push(Term::new("enfilade: +1 multiple", value(basic), S_COMBAT));
    }
    if s.contact && ph.charged.contains(&f.id) && matches!(f.arm, Arm::Cavalry { .. }) && f.mounted
    {
        let target_ok = match t.arm {
            Arm::Infantry { .. } | Arm::Artillery { .. } | Arm::Supply => true,
            Arm::Cavalry { .. } => !t.mounted,
        };
        let sheltered = b.ground_at(t.pos, Ground::cover).is_some()
            || t.formation == Formation::Square
            || t.entrenchment > 0
            || b.ground_at(t.pos, |g| g == Ground::River).is_some();
        let enemy_cavalry = b.in_contact(f.id).iter().any(|o| {
            b.unit(*o)
                .is_some_and(|o| matches!(o.arm, Arm::Cavalry { .. }) && o.mounted)
        });
        if target_ok && !sheltered && !enemy_cavalry {
            terms.push(Term::new(
                "mounted cavalry charging: +1 multiple",
                value(basic),
                S_COMBAT,
            ));
        }
    }
    if let Arm::Artillery { gun } = f.arm
        && !f.limbered()
        && s.in_arc
        && s.range <= 1.0
    {
        let k = if gun.smoothbore() { 2 } else { 1 };
        terms.push(Term::new(
            format!("double canister: +{k} multiple"),
            value(basic.saturating_mul(k)),
            S_COMBAT,
        ));
    }
    if s.contact
        && let Some(g) = b.attached_general(f.id)
    {
        terms.push(Term::new(
            format!("{} attached: combat value", g.name),
            i32::from(g.stats().combat_value),
            S_COMBAT,
        ));
    }
    // Table 7.
    let mut t7 = |m: Table7, times: u32| match times {
        0 => {}
        1 => terms.push(Term::new(m.text(), m.value(), S_T7)),
        n => terms.push(Term::new(
            format!("{} x {n}", m.text()),
            m.value()
                .saturating_mul(i32::try_from(n).unwrap_or(i32::MAX)),
            S_T7,
        )),
    };
    use Table7::*;
    if f.prone {
        t7(FirerProne, 1);
    }
    t7(FirerOutOfSupply, u32::from(f.out_of_supply));
    if b.weather == Weather::Snow {
        t7(FirerInSnow, 1);
    }
    if b.weather == Weather::Rain {
        t7(FirerInRain, 1);
    }
    match f.quality {
        Some(Quality::Inferior) => t7(FirerInferior, 1),
        Some(Quality::Superior) => t7(FirerSuperior, 1),
        _ => {}
    }
    t7(FirerFatigued, f.fatigue_quarters / 4);
    if matches!(
        f.formation,
        Formation::MarchColumn | Formation::Square | Formation::Skirmish
    ) {
        t7(FirerInColumnSquareOrSkirmishing, 1);
    }
    if b.ground_at(f.pos, |g| g == Ground::River).is_some() {
        t7(FirerFording, 1);
    }
    if f.side == Side::Confederate && f.is_infantry_or_cavalry() {
        t7(ConfederateInfantryOrCavalry, 1);
    }
    if f.side == Side::Union && f.is_artillery() {
        t7(UnionArtillery, 1);
    }
    if matches!(
        f.arm,
        Arm::Infantry {
            weapon: SmallArm::Repeaters
        } | Arm::Cavalry {
            weapon: SmallArm::Repeaters
        }
    ) {
        t7(FirerSharpshootersOrRepeaters, 1);
    }
    if t.formation == Formation::Skirmish {
        t7(TargetSkirmishing, 1);
    }
    if t.is_artillery() {
        t7(TargetArtillery, 1);
    }
    let cover = b
        .ground_at(t.pos, |g| matches!(g, Ground::Woods | Ground::Town))
        .is_some()
        || (linear_obstacles_help(t) && b.ground_at(t.pos, |g| g == Ground::SunkenRoad).is_some());
    if cover || t.formation == Formation::DeployedInTown {
        t7(TargetInCoverOrDeployedInTown, 1);
    }
    if linear_obstacles_help(t) {
        t7(TargetInFortifications, u32::from(t.entrenchment));
    }
    if t.prone {
        t7(TargetProne, 1);
    }
    if b.elevation(t.pos) > b.elevation(f.pos) {
        t7(TargetUphill, 1);
    }
    if matches!(t.arm, Arm::Cavalry { .. }) && t.mounted {
        t7(TargetMountedCavalry, 1);
    }
    if matches!(t.formation, Formation::MarchColumn | Formation::Square) {
        t7(TargetInColumnOrSquare, 1);
    }
    if let Light::Twilight { modifier } = ph.light {
        terms.push(Term::new("dawn or dusk", modifier, S_TIME));
    }
    terms
}

/// SFRM Table 5: a green unit's first time under fire.
fn test_green(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    uid: UnitId,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let Some(u) = b.unit(uid) else { return Ok(()) };
    if u.quality.is_some() || !ph.tested.insert(uid) {
        return Ok(());
    }
    let side = u.side;
    let dice2 = roll_2d6_dice(
        dice,
        &RollPurpose::new(RollKind::SfrmGreen, u.name.clone()).with_note("SFRM Table 5"),
    )?;
    let Ok(result) = table5(dice2[0] + dice2[1], side) else {
        return Ok(());
    };
    match result {
        GreenResult::Becomes { quality } => {
            if let Some(m) = b.unit_mut(uid) {
                m.quality = Some(quality);
            }
        }
        GreenResult::RoutAndRemainGreen => {
            ph.green_rout.insert(uid);
        }
    }
    ev.push(SfrmEvent::GreenTested {
        unit: uid,
        dice: dice2,
        result,
        section: S_GREEN.into(),
    });
    Ok(())
}

/// SFRM "Combat": the total of a fire's terms divided by 6, and the die
/// for the remainder: (total, definite, remainder, roll, casualties).
fn resolve_total(
    terms: &[Term],
    firer: &str,
    target: &str,
    dice: &mut dyn DiceSource,
) -> Result<(i32, u32, u32, Option<u8>, u32), TurnError> {
    let total: i32 = terms.iter().fold(0i32, |a, t| a.saturating_add(t.value));
    let (definite, remainder) = if total > 0 {
        (
            total.unsigned_abs() / COMBAT_DIVISOR.unsigned_abs(),
            total.unsigned_abs() % COMBAT_DIVISOR.unsigned_abs(),
        )
    } else {
        (0, 0)
    };
    let roll = if remainder > 0 {
        Some(dice.d6(
            &RollPurpose::new(RollKind::SfrmCombat, firer.to_string()).with_note(format!(
                "SFRM Combat: at {target}, a further casualty on d6 <= {remainder}"
            )),
        )?)
    } else {
        None
    };
    let wanted = definite + u32::from(roll.is_some_and(|r| u32::from(r) <= remainder));
    Ok((total, definite, remainder, roll, wanted))
}

/// SFRM "Combat" at a general element not attached to a unit: fired on
/// like a unit of one mounted element (Table 1: a general's base is of
/// cavalry figures; our ruling), facing the firer (no enfilade); any
/// casualty sends him to Table 3 ("Officer Casualties" iii). Returns
/// whether the unit fired.
fn fire_at_general(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    f: &Unit,
    gid: GeneralId,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<bool, TurnError> {
    let Some(g) = b
        .general(gid)
        .filter(|g| g.side != f.side && !g.removed && g.attached_to.is_none())
        .cloned()
    else {
        return Ok(false);
    };
    let stand_in = Unit {
        id: UnitId(u32::MAX),
        name: g.name.clone(),
        side: g.side,
        arm: Arm::Cavalry {
            weapon: SmallArm::SmallArms,
        },
        elements: 1,
        front_rank: 1,
        quality: Some(g.quality),
        formation: Formation::Line,
        facing: g.pos.bearing_to(f.pos),
        pos: g.pos,
        mounted: true,
        prone: false,
        routed: false,
        out_of_command: false,
        dispersed: false,
        entrenchment: 0,
        out_of_supply: 0,
        fatigue_quarters: 0,
        division: None,
        day: Default::default(),
    };
    let Some(s) = shot(b, f, &stand_in) else {
        return Ok(false);
    };
    test_green(b, ph, f.id, dice, ev)?;
    if ph.green_rout.contains(&f.id) {
        return Ok(true);
    }
    let Some(f) = b.unit(f.id).cloned() else {
        return Ok(false);
    };
    let terms = fire_terms(b, ph, &f, &stand_in, &s);
    let (total, definite, remainder, roll, casualties) =
        resolve_total(&terms, &f.name, &g.name, dice)?;
    ph.fought.insert(f.id);
    ev.push(SfrmEvent::FiredAtGeneral {
        firer: f.id,
        general: gid,
        range: s.range,
        terms,
        total,
        definite,
        remainder,
        roll,
        casualties,
        section: format!("{S_COMBAT}, {S_T6}, {S_T7}"),
    });
    if casualties > 0 {
        officer_casualty(b, gid, dice, ev)?;
    }
    Ok(true)
}

/// One side's fire in a round of the combat subphase: each unit in id
/// order, at one target; losses come off at once (SFRM "Combat").
fn fire_side(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    side: Side,
    contact_only: bool,
    orders: &TurnOrders,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<bool, TurnError> {
    let mut any_effect = false;
    let ids: Vec<UnitId> = b.units_of(side).map(|u| u.id).collect();
    for id in ids {
        let Some(f) = b.unit(id).filter(|u| !u.gone() && !u.routed).cloned() else {
            continue;
        };
        if ph.green_rout.contains(&id) || (contact_only && b.in_contact(id).is_empty()) {
            continue;
        }
        let at_general = orders.of(side).iter().rev().find_map(|o| match o {
            Order::TargetGeneral { unit, general } if *unit == id => Some(*general),
            _ => None,
        });
        if let Some(gid) = at_general
            && b.in_contact(id).is_empty()
            && !contact_only
            && fire_at_general(b, ph, &f, gid, dice, ev)?
        {
            any_effect = true;
            continue;
        }
        let ordered = orders.of(side).iter().rev().find_map(|o| match o {
            Order::Target { unit, target } if *unit == id => Some(*target),
            _ => None,
        });
        let Some((tid, s)) = choose_target(b, &f, ordered) else {
            continue;
        };
        test_green(b, ph, id, dice, ev)?;
        if ph.green_rout.contains(&id) {
            continue;
        }
        test_green(b, ph, tid, dice, ev)?;
        let (Some(f), Some(t)) = (b.unit(id).cloned(), b.unit(tid).cloned()) else {
            continue;
        };
        let terms = fire_terms(b, ph, &f, &t, &s);
        let (total, definite, remainder, roll, wanted) =
            resolve_total(&terms, &f.name, &t.name, dice)?;
        if total > 0 {
            any_effect = true;
        }
        ph.fought.insert(id);
        ph.fought.insert(tid);
        let at = ev.len();
        let casualties = take_casualties(b, ph, tid, wanted, dice, ev)?;
        let elements_left = b.unit(tid).map(|u| u.elements).unwrap_or(0);
        // Fired comes before the Table 3 rolls it caused, in reading order.
        let fired = SfrmEvent::Fired {
            firer: id,
            target: tid,
            range: s.range,
            terms,
            total,
            definite,
            remainder,
            roll,
            casualties,
            elements_left,
            section: format!("{S_COMBAT}, {S_T6}, {S_T7}"),
        };
        ev.insert(at, fired);
        if elements_left == 0 {
            check_dispersal(b, tid, ev);
        }
    }
    Ok(any_effect)
}

/// SFRM "Morale, Routing, Casualties & Dispersal" after a round of fire:
/// units hit disperse if too few are left, else rout if the phase's
/// casualties reach their quality's limit; green units that rolled "rout
/// & remain green" rout once both sides have fired (Table 5).
fn combat_morale(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let hit: Vec<UnitId> = std::mem::take(&mut ph.hit).into_iter().collect();
    for uid in hit {
        check_dispersal(b, uid, ev);
        let Some(u) = b.unit(uid).filter(|u| !u.gone() && !u.routed) else {
            continue;
        };
        if !u.is_infantry_or_cavalry() {
            continue;
        }
        let lost = ph.casualties.get(&uid).copied().unwrap_or(0);
        let limit = rout_threshold(u.quality);
        if lost >= limit {
            ev.push(SfrmEvent::Routed {
                unit: uid,
                reason: format!(
                    "{lost} casualties this phase; {} units rout at {limit}",
                    quality_name(u.quality)
                ),
                section: S_MORALE.into(),
            });
            rout_move(b, ph, uid, dice, ev)?;
        }
    }
    let green: Vec<UnitId> = std::mem::take(&mut ph.green_rout).into_iter().collect();
    for uid in green {
        if b.unit(uid).is_some_and(|u| !u.gone() && !u.routed) {
            ev.push(SfrmEvent::Routed {
                unit: uid,
                reason: "rout & remain green".into(),
                section: S_GREEN.into(),
            });
            rout_move(b, ph, uid, dice, ev)?;
        }
    }
    Ok(())
}

/// SFRM "Combat": non-phasing units fire, then phasing units; units in
/// contact go on firing in the same order until none is left in contact.
/// A round in which no unit in contact can do any harm ends it (our
/// ruling: they stay in contact).
fn combat(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    orders: &TurnOrders,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let (first, second) = (ph.side.other(), ph.side);
    for c in ph.charged.clone() {
        let now = b.in_contact(c);
        ph.engaged.entry(c).or_default().extend(now);
    }
    fire_side(b, ph, first, false, orders, dice, ev)?;
    fire_side(b, ph, second, false, orders, dice, ev)?;
    combat_morale(b, ph, dice, ev)?;
    contact_rounds(b, ph, orders, dice, ev)
}

/// SFRM "Combat": "Units … in contact with the enemy continue to fire in
/// the same sequential order, until no units … remain in contact".
fn contact_rounds(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    orders: &TurnOrders,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let (first, second) = (ph.side.other(), ph.side);
    loop {
        let live: Vec<UnitId> = b
            .contacts
            .iter()
            .flat_map(|c| [c.a, c.b])
            .filter(|u| b.unit(*u).is_some_and(|u| !u.gone() && !u.routed))
            .collect();
        if live.is_empty() || b.contacts.is_empty() {
            break;
        }
        let a = fire_side(b, ph, first, true, orders, dice, ev)?;
        let c = fire_side(b, ph, second, true, orders, dice, ev)?;
        combat_morale(b, ph, dice, ev)?;
        if !a && !c {
            let mut units = live;
            units.sort();
            units.dedup();
            ev.push(SfrmEvent::ContactStands {
                units,
                section: S_COMBAT.into(),
            });
            break;
        }
    }
    Ok(())
}

/// SFRM "Breakthrough Advances & Combat": phasing units that charged and
/// routed (or dispersed or destroyed) every enemy they were in contact
/// with may move up to half a move more; with an attached general they may
/// charge again, and those that reach further enemy fight breakthrough
/// combat, in which the casualties they took earlier in the phase do not
/// count toward their rout.
fn breakthrough(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    orders: &TurnOrders,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let side = ph.side;
    let (factor, mut fworking) = movement_factor(b, ph.light);
    fworking.push(format!("breakthrough: half a move ({S_BREAK})"));
    let half = factor / 2.0;
    let mut done = BTreeSet::new();
    let mut fresh = Vec::new();
    for (i, o) in orders.of(side).iter().enumerate() {
        let (uid, to, target) = match *o {
            Order::BreakthroughMove { to, .. } if !to.x.is_finite() || !to.y.is_finite() => {
                continue;
            }
            Order::BreakthroughMove { unit, to } => (unit, Some(to), None),
            Order::BreakthroughCharge { unit, target } => (unit, None, Some(target)),
            _ => continue,
        };
        let Some(u) = b.unit(uid).filter(|u| u.side == side && !u.gone()).cloned() else {
            refuse(
                ev,
                side,
                i,
                format!("no unit {} of yours is on the field", uid.0),
                S_BREAK,
            );
            continue;
        };
        if !done.insert(uid) {
            refuse(
                ev,
                side,
                i,
                format!("{} has already advanced", u.name),
                S_BREAK,
            );
            continue;
        }
        let won = ph.engaged.get(&uid).is_some_and(|e| {
            !e.is_empty()
                && e.iter()
                    .all(|t| b.unit(*t).is_none_or(|t| t.routed || t.gone()))
        });
        if u.routed || !won {
            refuse(
                ev,
                side,
                i,
                format!(
                    "{} did not charge and rout every enemy it was in contact with this phase; only such a unit advances",
                    u.name
                ),
                S_BREAK,
            );
            continue;
        }
        let general = b.attached_general(uid).is_some();
        let allowance = f64::from(move_allowance(&u, false)) * half;
        ev.push(SfrmEvent::Breakthrough {
            unit: uid,
            allowance,
            section: S_BREAK.into(),
        });
        if let Some(to) = to {
            if let Some(why) = cannot_move(&u, general) {
                refuse(ev, side, i, why, S_MANOEUVRE);
                continue;
            }
            match move_unit(b, ph, &u, to, half, &fworking) {
                Ok(e) => ev.push(e),
                Err((why, section)) => refuse(ev, side, i, why, section),
            }
        } else if let Some(target) = target {
            if !general {
                refuse(
                    ev,
                    side,
                    i,
                    format!(
                        "{} has no attached general: it may advance but not charge, nor go closer than 1\" to the enemy",
                        u.name
                    ),
                    S_BREAK,
                );
                continue;
            }
            if let Some(why) = charge_refusal(b, &u, target, general, ph.light) {
                refuse(ev, side, i, why, S_BREAK);
                continue;
            }
            match charge(b, ph, &u, target, allowance, dice, ev)? {
                Ok(()) => fresh.push(uid),
                Err(why) => refuse(ev, side, i, why, S_BREAK),
            }
        }
    }
    if fresh.is_empty() {
        return Ok(());
    }
    for c in fresh {
        ph.casualties.insert(c, 0);
    }
    contact_rounds(b, ph, orders, dice, ev)
}

/// SFRM "Army Morale": when the phasing side's routed, dispersed and
/// eliminated units number at least the sum of its generals' command
/// abilities, all its out of command units make an immediate rout move.
fn army_morale(
    b: &mut SfrmBattle,
    ph: &mut Phase,
    dice: &mut dyn DiceSource,
    ev: &mut Vec<SfrmEvent>,
) -> Result<(), TurnError> {
    let side = ph.side;
    let broken = b
        .units
        .iter()
        .filter(|u| u.side == side && (u.routed || u.gone()))
        .count();
    let broken_units = u32::try_from(broken).unwrap_or(u32::MAX);
    let command_ability_sum: u32 = b
        .generals_of(side)
        .map(|g| u32::from(g.stats().command_ability))
        .sum();
    let fails = broken_units >= command_ability_sum;
    ev.push(SfrmEvent::ArmyMorale {
        side,
        broken_units,
        command_ability_sum,
        fails,
        section: S_ARMY.into(),
    });
    if fails {
        let out: Vec<UnitId> = b
            .units_of(side)
            .filter(|u| u.out_of_command)
            .map(|u| u.id)
            .collect();
        for uid in out {
            rout_move(b, ph, uid, dice, ev)?;
        }
    }
    Ok(())
}
