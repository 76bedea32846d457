//! The fire half of the movement and fire phase (APSoF I.B.4, V): after all
//! movement, every unit whose plan lets it fire picks a target in its 45°
//! zone (V.C.1), visible (V.C.3), in range, with a clear line of fire
//! (V.C.2). A unit may split its castings over several targets (V.F.2,
//! each part its own fire) or combine its fire with other units' at one
//! target (V.F.1, one attack at the highest divisor). Units firing at each
//! other roll who fires first (V.B.2): the loser takes its losses before
//! replying. Other fire is simultaneous.
//! Then officers in the line of fire may be hit (V.H), units at 0 break and
//! units at 1 are pinned (VI.C.6).

use super::movement::{Aim, FireMode, FirePlan};
use super::{Ctx, TurnError};
use crate::dice::{RollKind, RollPurpose};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::events::FiredWith;
use crate::rules::iron_brigade::fire::{
    CombinedFirer, FireInput, FireModifiers, FirerWeaponClass, Precedence, Protection,
    Ranks as FireRanks, StackedTarget, allot_fire_shares, modified_effectiveness,
    resolve_combined_fire, resolve_fire, resolve_fire_on_stack, roll_replacement, who_fires_first,
};
use crate::rules::iron_brigade::geometry::{
    Aspect, CONTACT_GAP, FireLine, FireZone, UnitFootprints, attack_aspect, fire_line_with,
    footprint, formation_size, in_contact, officer_in_contact, own_ranks, range_inches, ranks_deep,
    supports_behind,
};
use crate::rules::iron_brigade::kinds::{Arm, Formation};
use crate::rules::iron_brigade::morale;
use crate::rules::iron_brigade::orders::FireTarget;
use crate::rules::iron_brigade::sight::{Activity, Observer, can_see};
use crate::rules::iron_brigade::state::{
    AimPoint, OfficerId, OfficerStatus, PendingReplacement, Pos, Ranks, SideId, Unit, UnitId,
};
use crate::rules::iron_brigade::weapons::{base_effectiveness, max_range};
use std::collections::{BTreeMap, BTreeSet};

/// Acquired fire: the new aim point is "the same point" when within this
/// many inches of last turn's (our ruling; V.D.1 gives no tolerance).
pub const ACQUIRED_TOLERANCE: f64 = 2.0;
/// Officers within this distance of a unit under fire and in line with
/// the fire may be hit (V.H.1).
pub const OFFICER_LINE_REACH: f64 = 8.0;
/// "Directly in line": within this many inches of the straight line from
/// the firer through the target (our ruling).
pub const OFFICER_LINE_WIDTH: f64 = 1.0;

/// One unit's share in a fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Firing {
    unit: UnitId,
    /// The castings this part of a split fire may use (APSoF V.F.2); `None`:
    /// every casting that can fire.
    castings: Option<u32>,
}

/// One fire chosen for the turn: a unit's whole fire, one part of its split
/// fire (APSoF V.F.2), or several units' combined fire (V.F.1).
#[derive(Debug, Clone)]
struct Shot {
    /// In unit order; the first is the one the fire is told under.
    firers: Vec<Firing>,
    target: UnitId,
    /// Part of a split fire (V.F.2).
    split_fire: bool,
}

/// Losses waiting to be applied at the end of simultaneous fire.
#[derive(Debug, Default, Clone)]
struct Pending {
    casualties: u32,
    morale: u32,
    /// The morale loss of each fire that hit, one morale check each: APSoF
    /// VII.G looks at a single check's loss.
    checks: Vec<u32>,
}

/// What a unit's earlier fires this turn leave for its later ones: a unit
/// whose fire is split (V.F.2) fires more than once in a phase, and each
/// part must be judged as the unit stood when the phase began.
#[derive(Debug, Default)]
struct FiredSoFar {
    /// Castings already fired, per unit: a later part never fires more
    /// than the unit has left to fire.
    used: BTreeMap<UnitId, u32>,
    /// Units whose first fire of the game (V.B table) is this turn's.
    first_fire: BTreeSet<UnitId>,
    /// Each artillery unit's aim point from before this turn's fire (V.D.1).
    prior_aim: BTreeMap<UnitId, Option<AimPoint>>,
    /// The castings of the part that set the unit's aim point this turn:
    /// the largest part's target is the point acquired next turn.
    aim_castings: BTreeMap<UnitId, u32>,
}

pub(crate) fn fire_phase(
    ctx: &mut Ctx<'_>,
    plans: &BTreeMap<UnitId, FirePlan>,
) -> Result<(), TurnError> {
    for o in &mut ctx.state.officers {
        o.hit_this_turn = false;
    }
    let sniped = snipers(ctx, plans)?;
    let kept: BTreeMap<UnitId, FirePlan> = plans
        .iter()
        .filter(|(id, _)| !sniped.contains(id))
        .map(|(id, p)| (*id, p.clone()))
        .collect();
    let plans = &kept;
    let shooting = revealed_by_fire(ctx, plans)?;
    let split_moving: BTreeSet<UnitId> = plans
        .iter()
        .filter(|(_, p)| p.mode == FireMode::Split)
        .map(|(id, _)| *id)
        .collect();
    let shots = choose_shots(ctx, plans, &shooting)?;
    // V.B.2, units receiving and firing in the same turn: a unit that fires
    // and is fired on rolls one die for the turn, and so does every unit
    // firing at a unit that fires ("the target only rolls once and this
    // single result is compared to the rolls of all opposing units"). A
    // fire is timed by its firer's roll, less 2 for a split move: higher
    // fires first and its target takes the losses before its own fire;
    // equal rolls fire together. A combined fire rolls with the unit the
    // enemy is firing at (else its lead), less 2 if any of its units made
    // a split move. Fires no roll concerns come last, together.
    let mut by_firer: BTreeMap<UnitId, Vec<usize>> = BTreeMap::new();
    for (i, s) in shots.iter().enumerate() {
        for f in &s.firers {
            by_firer.entry(f.unit).or_default().push(i);
        }
    }
    let fired_on: BTreeSet<UnitId> = shots.iter().map(|s| s.target).collect();
    let split = |s: &Shot| s.firers.iter().any(|f| split_moving.contains(&f.unit));
    let mut rolls: BTreeMap<UnitId, u8> = BTreeMap::new();
    let mut told: BTreeSet<(UnitId, UnitId)> = BTreeSet::new();
    for si in &shots {
        let Some(target_shots) = by_firer.get(&si.target) else {
            continue;
        };
        // The unit the target fires at, if it is one of this fire's units.
        let engaged = si.firers.iter().map(|f| f.unit).find(|&u| {
            target_shots
                .iter()
                .any(|&j| shots.get(j).is_some_and(|sj| sj.target == u))
        });
        let Some(a) = engaged.or_else(|| si.firers.first().map(|f| f.unit)) else {
            continue;
        };
        let b = si.target;
        let roll_a = precedence_roll(ctx, &mut rolls, a)?;
        let roll_b = precedence_roll(ctx, &mut rolls, b)?;
        if told.contains(&(b, a)) || !told.insert((a, b)) {
            continue;
        }
        let first = match who_fires_first(roll_a, split(si), roll_b, split_moving.contains(&b)) {
            Precedence::FirerFirst => Some(ctx.uref(a)),
            Precedence::TargetFirst => Some(ctx.uref(b)),
            Precedence::Simultaneous => None,
        };
        let (ra, rb) = (ctx.uref(a), ctx.uref(b));
        ctx.events.push(Event::FireOrder {
            a: ra,
            b: rb,
            roll_a,
            roll_b,
            first,
        });
    }
    // Each fire's time: the roll of the unit it rolls with, if any.
    let time = |s: &Shot| -> Option<i32> {
        let engaged = s.firers.iter().map(|f| f.unit).find(|u| {
            by_firer.get(&s.target).is_some_and(|js| {
                js.iter()
                    .any(|&j| shots.get(j).is_some_and(|sj| sj.target == *u))
            })
        });
        let rolled = engaged
            .or_else(|| {
                s.firers
                    .iter()
                    .map(|f| f.unit)
                    .find(|u| fired_on.contains(u) && rolls.contains_key(u))
            })
            .or_else(|| s.firers.first().map(|f| f.unit))?;
        let roll = rolls.get(&rolled)?;
        Some(i32::from(*roll) - if split(s) { 2 } else { 0 })
    };
    let mut order: Vec<(Option<i32>, usize)> = shots
        .iter()
        .enumerate()
        .map(|(i, s)| (time(s), i))
        .collect();
    // Highest roll first, fires without a roll last; shot order within.
    order.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let mut so_far = FiredSoFar::default();
    let mut hit: BTreeMap<UnitId, Vec<UnitId>> = BTreeMap::new();
    let mut k = 0;
    while k < order.len() {
        let key = order.get(k).map(|o| o.0);
        let group: Vec<usize> = order[k..]
            .iter()
            .take_while(|o| Some(o.0) == key)
            .map(|o| o.1)
            .collect();
        k += group.len().max(1);
        // Fires at one time are simultaneous: losses are taken together.
        let mut pending: BTreeMap<UnitId, Pending> = BTreeMap::new();
        for i in group {
            let Some(shot) = shots.get(i) else { continue };
            for (target, p) in fire(ctx, shot, &split_moving, &pending, &mut so_far)? {
                let e = pending.entry(target).or_default();
                e.casualties += p.casualties;
                e.morale += p.morale;
                e.checks.extend(p.checks);
                hit.entry(target)
                    .or_default()
                    .extend(shot.firers.iter().map(|f| f.unit));
            }
        }
        for (target, p) in pending {
            apply(ctx, target, p)?;
        }
    }
    let mut rolled = BTreeSet::new();
    for (&target, firers) in &hit {
        let repeaters = firers
            .iter()
            .any(|f| ctx.state.unit(*f).is_some_and(|u| u.weapon.is_repeater()));
        if let Some(t) = ctx.state.unit_mut(target) {
            t.marks.been_under_fire = true;
            t.marks.been_under_repeater_fire |= repeaters;
        }
        officers_in_line(ctx, target, firers, &mut rolled)?;
    }
    // VI.C.6: morale 1 pins (set as each loss is taken; this catches any
    // other way morale changed in the phase).
    for id in ctx.unit_ids() {
        ctx.mark_pinned(id);
    }
    Ok(())
}

/// APSoF VII.H: units armed with the sniper chart "are allowed to shoot
/// specifically at mounted personality figures instead of normal fire
/// combat". Ruling (docs/rulings.md): a sniper unit firing at will shoots
/// at the nearest mounted enemy officer on the field that it can see, in
/// its 45° zone (V.C.1) and within the chart's range; with none, or with
/// orders naming a unit, it fires as any unit does. The officer counts 1/3
/// rank deep (VII.H); the fire is worked as V.B (one die less the shortage
/// for 1–3 castings, V.B.3) and one casualty or more hits him, who is then
/// replaced as V.H.3 says. Returns the units that fired so.
fn snipers(
    ctx: &mut Ctx<'_>,
    plans: &BTreeMap<UnitId, FirePlan>,
) -> Result<BTreeSet<UnitId>, TurnError> {
    use crate::rules::iron_brigade::fire::{casualties, fire_dice};
    use crate::rules::iron_brigade::geometry::{OFFICER_RADIUS, angle_between, bearing};
    use crate::rules::iron_brigade::kinds::Weapon;
    use crate::rules::iron_brigade::sight::sees_point;
    let mut done = BTreeSet::new();
    for (&id, plan) in plans {
        if plan.mode == FireMode::None || !matches!(plan.aim, Aim::One(FireTarget::AtWill)) {
            continue;
        }
        let Some(u) = ctx.state.unit(id) else {
            continue;
        };
        if u.weapon != Weapon::Sniper || u.castings == 0 || u.broken || u.combat_morale == 0 {
            continue;
        }
        let front = footprint(u).front_centre();
        let reach = f64::from(max_range(u.weapon));
        let mut target: Option<(u32, OfficerId)> = None;
        for o in ctx
            .state
            .officers
            .iter()
            .filter(|o| o.side != u.side && o.status == OfficerStatus::Active && o.mounted)
        {
            let d = (front.distance(o.position) - OFFICER_RADIUS).max(0.0);
            if d > reach || angle_between(u.facing, bearing(front, o.position)) > 45.0 {
                continue;
            }
            if !sees_point(&ctx.index, front, o.position) {
                continue;
            }
            let range = (d - 1e-9).ceil().max(0.0) as u32;
            if target.is_none_or(|t| (range, o.id) < t) {
                target = Some((range, o.id));
            }
        }
        let Some((range, oid)) = target else {
            continue;
        };
        let Ok(base) = base_effectiveness(u.weapon, f64::from(range)) else {
            continue;
        };
        let mods = FireModifiers {
            protection: Protection::None,
            target_ranks: FireRanks::Third,
            firer_morale: u.combat_morale,
            split_move: plan.mode == FireMode::Split,
            firer_lying_down: u.lying_down,
            first_fire: !u.first_fire_done,
            acquired: false,
            perilous: false,
        };
        let eff = modified_effectiveness(base, FirerWeaponClass::of(u.weapon), &mods)?;
        let (arm, castings, name) = (u.arm, u.castings, u.name.clone());
        let oname = ctx.oref(oid).name;
        let (_, total) = fire_dice(arm, castings).roll(
            &mut *ctx.dice,
            &RollPurpose::new(RollKind::Fire, name).with_note(format!("sniper at {oname}")),
        )?;
        let hit = casualties(total, eff.divisor, 1) >= 1;
        if let Some(m) = ctx.state.unit_mut(id) {
            m.first_fire_done = true;
        }
        ctx.fired.insert(id);
        done.insert(id);
        let replacement_turn = if hit {
            Some(remove_general(ctx, oid, OfficerStatus::Wounded)?.0)
        } else {
            None
        };
        let (unit, officer) = (ctx.uref(id), ctx.oref(oid));
        ctx.events.push(Event::SniperFired {
            unit,
            officer,
            range,
            effectiveness: eff.divisor,
            dice_total: total,
            hit,
            replacement_turn,
        });
    }
    Ok(done)
}

/// A unit's V.B.2 die for the turn, rolled the first time it is needed.
fn precedence_roll(
    ctx: &mut Ctx<'_>,
    rolls: &mut BTreeMap<UnitId, u8>,
    unit: UnitId,
) -> Result<u8, TurnError> {
    if let Some(&r) = rolls.get(&unit) {
        return Ok(r);
    }
    let name = ctx.uref(unit).name;
    let r = ctx.dice.d6(&RollPurpose::new(RollKind::FireOrder, name))?;
    rolls.insert(unit, r);
    Ok(r)
}

/// The turn's fires, in the order of their first unit (and a split fire's
/// parts in the order written). Each unit's aim is turned into targets
/// first (V.C); then combined fire (V.F.1) gathers partners that fire this
/// turn and can engage the same target into one fire.
fn choose_shots(
    ctx: &mut Ctx<'_>,
    plans: &BTreeMap<UnitId, FirePlan>,
    shooting: &BTreeSet<UnitId>,
) -> Result<Vec<Shot>, TurnError> {
    // Every unit's footprint, once: nothing changes while targets are chosen.
    let footprints = UnitFootprints::new(&ctx.state);
    // Each firing unit's own fires: (target, castings) in the order written.
    let mut own: BTreeMap<UnitId, Vec<(UnitId, Option<u32>)>> = BTreeMap::new();
    for (&id, plan) in plans {
        if plan.mode == FireMode::None {
            continue;
        }
        match &plan.aim {
            Aim::One(t) | Aim::With { target: t, .. } => {
                if let Some(target) = choose_target(ctx, id, *t, shooting, &footprints)? {
                    own.insert(id, vec![(target, None)]);
                }
            }
            Aim::Split(parts) => {
                let firing = ctx.state.unit(id).map_or(0, firing_castings);
                let shares: Vec<_> = parts.iter().map(|p| p.share).collect();
                let allotted = allot_fire_shares(firing, &shares);
                let mut fires: Vec<(UnitId, Option<u32>)> = Vec::new();
                for (part, n) in parts.iter().zip(allotted) {
                    if n == 0 {
                        continue;
                    }
                    // A part whose target cannot be engaged fires at what
                    // it can, as a whole unit's fire would (choose_target);
                    // parts that end on one target are one fire.
                    let Some(t) = choose_target(ctx, id, part.target, shooting, &footprints)?
                    else {
                        continue;
                    };
                    match fires.iter_mut().find(|(ft, _)| *ft == t) {
                        Some((_, c)) => *c = Some(c.unwrap_or(0) + n),
                        None => fires.push((t, Some(n))),
                    }
                }
                if !fires.is_empty() {
                    own.insert(id, fires);
                }
            }
        }
    }
    // V.F.1: combined fire. `group[u]` is the smallest unit of u's group.
    let mut group: BTreeMap<UnitId, UnitId> = BTreeMap::new();
    let root = |group: &BTreeMap<UnitId, UnitId>, mut u: UnitId| {
        while let Some(&g) = group.get(&u) {
            if g == u {
                break;
            }
            u = g;
        }
        u
    };
    for (&id, plan) in plans {
        let Aim::With { with, .. } = &plan.aim else {
            continue;
        };
        let Some(&[(target, None)]) = own.get(&id).map(Vec::as_slice) else {
            continue;
        };
        for &partner in with {
            let elsewhere = group.contains_key(&partner)
                && own.get(&partner).and_then(|f| f.first()).map(|f| f.0) != Some(target);
            let verdict = if elsewhere {
                Err("it is combining its fire with other units on another target")
            } else {
                may_join(ctx, plans, &own, shooting, &footprints, id, partner, target)?
            };
            match verdict {
                Ok(()) => {
                    own.insert(partner, vec![(target, None)]);
                    let (a, b) = (root(&group, id), root(&group, partner));
                    let (lo, hi) = (a.min(b), a.max(b));
                    group.insert(lo, lo);
                    group.insert(hi, lo);
                }
                Err(why) => {
                    let (order, step) = plan.order.unwrap_or_default();
                    let unit = ctx.uref(id);
                    let partner = ctx.uref(partner);
                    // Never an enemy's name, even if an order named one.
                    let reason = if partner.side == unit.side {
                        format!("{} does not combine its fire with it: {why}", partner.name)
                    } else {
                        "fire can be combined only with units of its own side".to_string()
                    };
                    ctx.events.push(Event::OrderNotCarriedOut {
                        unit,
                        order,
                        step,
                        reason,
                    });
                }
            }
        }
    }
    let mut members: BTreeMap<UnitId, Vec<UnitId>> = BTreeMap::new();
    for &u in group.keys() {
        members.entry(root(&group, u)).or_default().push(u);
    }
    let mut shots = Vec::new();
    for (&id, fires) in &own {
        let lead = root(&group, id);
        if let Some(units) = members.get(&lead) {
            if lead == id
                && let Some(&(target, _)) = fires.first()
            {
                shots.push(Shot {
                    firers: units
                        .iter()
                        .map(|&unit| Firing {
                            unit,
                            castings: None,
                        })
                        .collect(),
                    target,
                    split_fire: false,
                });
            }
            continue;
        }
        let split_fire = fires.len() > 1;
        shots.extend(fires.iter().map(|&(target, castings)| Shot {
            firers: vec![Firing { unit: id, castings }],
            target,
            split_fire,
        }));
    }
    Ok(shots)
}

/// Whether `partner` may join `unit`'s fire at `target` (APSoF V.F.1), and
/// if not, why — in words for `unit`'s own side, naming no enemy.
#[allow(clippy::too_many_arguments)]
fn may_join(
    ctx: &Ctx<'_>,
    plans: &BTreeMap<UnitId, FirePlan>,
    own: &BTreeMap<UnitId, Vec<(UnitId, Option<u32>)>>,
    shooting: &BTreeSet<UnitId>,
    footprints: &UnitFootprints,
    unit: UnitId,
    partner: UnitId,
    target: UnitId,
) -> Result<Result<(), &'static str>, TurnError> {
    let (Some(u), Some(p)) = (ctx.state.unit(unit), ctx.state.unit(partner)) else {
        return Ok(Err("it is not on the field"));
    };
    if partner == unit {
        return Ok(Err("a unit cannot combine its fire with itself"));
    }
    if p.side != u.side || p.castings == 0 {
        return Ok(Err("it is not on the field"));
    }
    let Some(plan) = plans.get(&partner).filter(|p| p.mode != FireMode::None) else {
        return Ok(Err(
            "it is not firing this turn (broken, holding its fire, or moving or changing formation without fire)",
        ));
    };
    // Its own orders name another target (unless it ended up on ours).
    let named = |t: &FireTarget| matches!(t, FireTarget::Unit(x) if *x != target);
    let on_ours = own.get(&partner).and_then(|f| f.first()).map(|f| f.0) == Some(target);
    match &plan.aim {
        Aim::Split(_) => return Ok(Err("it has orders to split its fire")),
        Aim::One(t) | Aim::With { target: t, .. } if named(t) && !on_ours => {
            return Ok(Err("it has orders to fire at another target"));
        }
        _ => {}
    }
    if choose_target(ctx, partner, FireTarget::Unit(target), shooting, footprints)? != Some(target)
    {
        return Ok(Err(
            "it cannot fire on the same target (out of its field of fire, range or sight, or no clear line of fire)",
        ));
    }
    Ok(Ok(()))
}

/// Apply losses to a target: castings off, morale off, break at 0; then,
/// under the optional APSoF VII.G, the regimental command checks.
fn apply(ctx: &mut Ctx<'_>, target: UnitId, p: Pending) -> Result<(), TurnError> {
    if let Some(t) = ctx.state.unit_mut(target) {
        t.castings = t.castings.saturating_sub(p.casualties);
    }
    ctx.lose_morale(target, p.morale, "fire");
    if ctx.state.options.regimental_command {
        for levels in p.checks {
            regimental_command(ctx, target, levels)?;
        }
    }
    Ok(())
}

/// APSoF VII.G: after a morale check from fire that cost more than one
/// level, a d6 decides whether the regimental command survives. Once lost it
/// is gone for good, so a unit that has lost it rolls no more; nor does a
/// unit with no castings left (the command casting goes with the last one).
/// The loss is of the command, not of an extra casting: the command casting
/// fell among the fire's casualties (our ruling, docs/rulings.md). Elite and
/// regular units drop one class (combat morale held to the new base); poor
/// and lower units may no longer rally or advance without an officer.
fn regimental_command(ctx: &mut Ctx<'_>, id: UnitId, levels: u32) -> Result<(), TurnError> {
    let Some(u) = ctx.state.unit(id) else {
        return Ok(());
    };
    if u.castings == 0 || u.marks.command_lost.is_some() {
        return Ok(());
    }
    let base = u.base_morale;
    let Some(needed) = morale::command_loss_threshold(levels, base) else {
        return Ok(());
    };
    let name = u.name.clone();
    let roll = ctx
        .dice
        .d6(&RollPurpose::new(RollKind::RegimentalCommand, name)
            .with_note(format!("{levels} levels lost; {needed}+ loses the command")))?;
    let lost = roll >= needed;
    let base_to = if lost {
        morale::base_after_command_loss(base)
    } else {
        base
    };
    if lost && let Some(m) = ctx.state.unit_mut(id) {
        m.marks.command_lost = Some(base);
        m.base_morale = base_to;
        m.combat_morale = m.combat_morale.min(base_to);
    }
    ctx.mark_pinned(id);
    let unit = ctx.uref(id);
    ctx.events.push(Event::RegimentalCommand {
        unit,
        levels_lost: levels,
        roll,
        needed,
        lost,
        base_from: base,
        base_to,
    });
    Ok(())
}

/// Castings that may fire (V.C.4: two ranks deep; III.G.2–5: column,
/// company column and en masse fire their lead rank only; III.H: horse
/// holders do not fire). Artillery fires with all its crew.
pub fn firing_castings(u: &Unit) -> u32 {
    if u.arm.is_artillery() {
        return u.castings;
    }
    let n = u.castings_in_line();
    let per_inch = if u.on_foot() { 2.0 } else { 1.0 };
    let (frontage, _) = formation_size(u, u.formation);
    let per_rank = ((frontage * per_inch).round() as u32).max(1);
    match u.formation {
        Formation::Column | Formation::CompanyColumn | Formation::EnMasse => n.min(per_rank),
        _ if u.formed_ranks == Ranks::Three => n.min(2 * per_rank),
        _ => n,
    }
}

/// The units that fire this turn, as far as choosing targets needs to know
/// (APSoF V.C.3: a unit behind total cover "may not be seen" unless it
/// fires). Fire is simultaneous, so a unit with orders to fire reveals
/// itself only if it finds a target: found in rounds, from nobody firing,
/// each round adding the units that can engage someone once the last
/// round's firers are seen. More firers seen never hides a target, so the
/// rounds only grow and end. A unit ordered to fire that finds nothing
/// stays hidden behind its wall.
fn revealed_by_fire(
    ctx: &Ctx<'_>,
    plans: &BTreeMap<UnitId, FirePlan>,
) -> Result<BTreeSet<UnitId>, TurnError> {
    let footprints = UnitFootprints::new(&ctx.state);
    let mut revealed: BTreeSet<UnitId> = BTreeSet::new();
    loop {
        let mut next = BTreeSet::new();
        for (&id, plan) in plans {
            if plan.mode == FireMode::None {
                continue;
            }
            let targets: Vec<FireTarget> = match &plan.aim {
                Aim::One(t) | Aim::With { target: t, .. } => vec![*t],
                Aim::Split(parts) => parts.iter().map(|p| p.target).collect(),
            };
            for t in targets {
                if choose_target(ctx, id, t, &revealed, &footprints)?.is_some() {
                    next.insert(id);
                    break;
                }
            }
        }
        if next.is_subset(&revealed) {
            return Ok(revealed);
        }
        revealed.extend(next);
    }
}

/// The firer's target (V.C): the named unit if it can be engaged, otherwise
/// the nearest enemy that can (our ruling: a colonel whose named target is
/// out of sight fires at what is in front of him rather than not at all).
fn choose_target(
    ctx: &Ctx<'_>,
    id: UnitId,
    wanted: FireTarget,
    shooting: &BTreeSet<UnitId>,
    footprints: &UnitFootprints,
) -> Result<Option<UnitId>, TurnError> {
    let Some(u) = ctx.state.unit(id) else {
        return Ok(None);
    };
    if u.castings == 0 || u.combat_morale == 0 || u.broken {
        return Ok(None);
    }
    if u.arm.is_artillery() && u.formation != Formation::Unlimbered {
        return Ok(None);
    }
    let reach = f64::from(max_range(u.weapon));
    let front = footprint(u).front_centre();
    let mut candidates: Vec<(u32, UnitId)> = Vec::new();
    // The enemies, with their footprints (`footprints` follows the units).
    let enemies = ctx.state.units.iter().zip(&footprints.all);
    // The firer's fire zone, built the first time it is needed.
    let zone = std::cell::OnceCell::new();
    for (e, &efp) in enemies.filter(|(e, _)| e.side != u.side) {
        if e.castings == 0 {
            continue;
        }
        // Cheap rejection, implied by the exact test below: the distance is
        // at least the larger axis gap, the half-diagonal at most half of
        // frontage plus depth.
        let axis = (front.x - e.position.x)
            .abs()
            .max((front.y - e.position.y).abs());
        if axis - (efp.frontage + efp.depth) / 2.0 > reach + 1.0 + 1e-6 {
            continue;
        }
        let half_diag = efp.frontage.hypot(efp.depth) / 2.0;
        if front.distance(e.position) - half_diag > reach + 1.0 {
            continue;
        }
        let range = range_inches(u, e);
        if base_effectiveness(u.weapon, f64::from(range)).is_err() {
            continue;
        }
        // III.H: mounted cavalry fires only in contact.
        if u.arm == Arm::Cavalry && u.mounted && !in_contact(u, e) {
            continue;
        }
        // Fire "in any direction" for column, company column, en masse.
        let any_direction = matches!(
            u.formation,
            Formation::Column | Formation::CompanyColumn | Formation::EnMasse
        );
        if !any_direction && !zone.get_or_init(|| FireZone::of(u)).reaches(&efp) {
            continue;
        }
        candidates.push((range, e.id));
    }
    candidates.sort_unstable();
    let preferred: Vec<(u32, UnitId)> = match wanted {
        FireTarget::AtWill => Vec::new(),
        FireTarget::Unit(t) => candidates.iter().copied().filter(|c| c.1 == t).collect(),
        FireTarget::NearestOf(arm) => candidates
            .iter()
            .copied()
            .filter(|c| {
                ctx.state
                    .unit(c.1)
                    .is_some_and(|e| e.arm == arm || (arm.is_artillery() && e.arm.is_artillery()))
            })
            .collect(),
    };
    let moved = &ctx.moved;
    let activity = Activity {
        fired: shooting,
        moved,
    };
    let elevation = |p: Pos| ctx.index.ground_height(p);
    for (_, t) in preferred.into_iter().chain(candidates) {
        if !can_see(&ctx.state, &ctx.index, Observer::Unit(id), t, &activity)? {
            continue;
        }
        let Some(target) = ctx.state.unit(t) else {
            continue;
        };
        if fire_line_with(&ctx.state, Some(footprints), u, target, &elevation) == FireLine::Clear {
            return Ok(Some(t));
        }
    }
    Ok(None)
}

fn fire_ranks(r: Ranks) -> FireRanks {
    match r {
        Ranks::Three => FireRanks::Three,
        Ranks::Two => FireRanks::Two,
        Ranks::One => FireRanks::One,
        Ranks::Half => FireRanks::Half,
        Ranks::Third => FireRanks::Third,
    }
}

/// One unit's figures in a fire, worked out before any die is rolled.
struct Share {
    unit: UnitId,
    arm: Arm,
    castings: u32,
    range: u32,
    base: u8,
    /// The weapon's range band the base came from, in words ("rifled
    /// musket, 4-8\""), for the working (APSoF XIII).
    band: String,
    eff: crate::rules::iron_brigade::fire::Effectiveness,
    perilous: bool,
    /// Each clause of APSoF V.G that makes the fire perilous, with its
    /// section ("V.G.1.ii first fire at troops never under fire"), for the
    /// working.
    perilous_why: Vec<&'static str>,
    split_move: bool,
}

/// Resolve one fire (V.B.1) on the state as it stands, the target's
/// castings reduced by losses already pending against it this turn. A
/// combined fire (V.F.1) is one attack: every unit's dice added, divided
/// by the highest divisor of any of them, and one save by the target.
fn fire(
    ctx: &mut Ctx<'_>,
    shot: &Shot,
    split_moving: &BTreeSet<UnitId>,
    pending: &BTreeMap<UnitId, Pending>,
    so_far: &mut FiredSoFar,
) -> Result<Vec<(UnitId, Pending)>, TurnError> {
    let Some(t) = ctx.state.unit(shot.target) else {
        return Ok(Vec::new());
    };
    let left = |u: &Unit| {
        u.castings
            .saturating_sub(pending.get(&u.id).map_or(0, |p| p.casualties))
    };
    let target_castings = left(t);
    if target_castings == 0 {
        return Ok(Vec::new());
    }
    let mut shares: Vec<Share> = Vec::new();
    for f in &shot.firers {
        if let Some(share) = share_of(ctx, f, shot.target, split_moving, so_far)? {
            shares.push(share);
        }
    }
    let Some((lead, others)) = shares.split_first() else {
        return Ok(Vec::new());
    };
    let t = ctx
        .state
        .unit(shot.target)
        .ok_or_else(|| TurnError::Internal("the target left the state".into()))?;
    let (tname, target_arm, target_morale) = (t.name.clone(), t.arm, t.combat_morale);
    let target_en_masse = t.formation == Formation::EnMasse;
    let fname = ctx.uref(lead.unit).name;
    // The combined fire is taken as its least effective unit gives it: the
    // highest divisor (V.F.1), and perilous only when it is for every unit
    // (our ruling: V.G's -2 is already in each unit's divisor).
    let divisor = shares.iter().map(|s| s.eff.divisor).max().unwrap_or(1);
    let raw = shares.iter().map(|s| s.eff.raw).max().unwrap_or(1);
    let perilous = shares.iter().all(|s| s.perilous);
    // The clauses the working names: those every unit of a combined fire
    // shares, else the lead unit's own.
    let perilous_why: Vec<String> = if perilous {
        let common: Vec<&str> = lead
            .perilous_why
            .iter()
            .copied()
            .filter(|c| others.iter().all(|o| o.perilous_why.contains(c)))
            .collect();
        let chosen = if common.is_empty() {
            &lead.perilous_why[..]
        } else {
            &common[..]
        };
        chosen.iter().map(|c| (*c).to_string()).collect()
    } else {
        Vec::new()
    };
    // V.B note *: a target counted 3 ranks deep only because units stand
    // in support behind it shares the casualties with them, and each saves
    // on its own castings. (Not under the X tables, which have no such
    // rule.)
    let seen_from = ctx
        .state
        .unit(lead.unit)
        .map(|u| footprint(u).front_centre());
    let stack: Vec<(UnitId, String, Arm, u32)> = if ctx.state.options.alternate_fire
        || ranks_deep(&ctx.state, t, seen_from) != Ranks::Three
        || own_ranks(t, seen_from) == Ranks::Three
    {
        Vec::new()
    } else {
        supports_behind(&ctx.state, t, seen_from)
            .into_iter()
            .filter_map(|id| ctx.state.unit(id))
            .map(|u| (u.id, u.name.clone(), u.arm, left(u)))
            .filter(|s| s.3 > 0)
            .collect()
    };
    let mut support_losses: Vec<(UnitId, Pending)> = Vec::new();
    let out = if !stack.is_empty() {
        let names: Vec<String> = shares.iter().map(|s| ctx.uref(s.unit).name).collect();
        let firers: Vec<CombinedFirer<'_>> = shares
            .iter()
            .zip(&names)
            .map(|(s, name)| CombinedFirer {
                name,
                arm: s.arm,
                castings: s.castings,
                divisor: s.eff.divisor,
            })
            .collect();
        let mut targets = vec![StackedTarget {
            name: &tname,
            arm: target_arm,
            castings: target_castings,
        }];
        targets.extend(stack.iter().map(|(_, name, arm, castings)| StackedTarget {
            name,
            arm: *arm,
            castings: *castings,
        }));
        let (attack_dice, attack_total, taken) =
            resolve_fire_on_stack(&firers, divisor, &targets, perilous, &mut *ctx.dice)?;
        let mut taken = taken.into_iter();
        let front = taken
            .next()
            .ok_or_else(|| TurnError::Internal("a stacked fire without its target".into()))?;
        for ((id, _, _, _), share) in stack.iter().zip(taken) {
            if share.casualties == 0 {
                continue;
            }
            let unit = ctx.uref(*id);
            ctx.events.push(Event::Casualties {
                unit,
                castings: share.casualties,
                reason: format!(
                    "in support behind the unit under fire, it shares the casualties (V.B note *): save {}, {} morale level(s) lost",
                    share.save_total, share.morale_loss
                ),
            });
            support_losses.push((
                *id,
                Pending {
                    casualties: share.casualties,
                    morale: share.morale_loss,
                    checks: vec![share.morale_loss],
                },
            ));
        }
        crate::rules::iron_brigade::fire::FireOutcome {
            alternate: None,
            attack_dice,
            attack_total,
            casualties: front.casualties,
            target_remaining: target_castings - front.casualties,
            save_dice: front.save_dice,
            save_total: front.save_total,
            morale_loss: front.morale_loss,
        }
    } else if let [one] = shares.as_slice() {
        let input = FireInput {
            firer_arm: one.arm,
            firer_castings: one.castings,
            target_arm,
            target_castings,
            divisor: one.eff.divisor,
            perilous: one.perilous,
        };
        if ctx.state.options.alternate_fire {
            alternate(
                &input,
                one.eff.raw,
                target_morale,
                target_en_masse,
                &mut *ctx.dice,
                &fname,
                &tname,
            )?
        } else {
            resolve_fire(&input, &mut *ctx.dice, &fname, &tname)?
        }
    } else if ctx.state.options.alternate_fire {
        // X.B.3 and X.B.13: the row is the castings firing, artillery
        // counted double; combined, every unit's castings so counted.
        let castings = shares
            .iter()
            .map(|s| {
                if s.arm.is_artillery() {
                    s.castings * 2
                } else {
                    s.castings
                }
            })
            .sum();
        let input = FireInput {
            firer_arm: Arm::Infantry,
            firer_castings: castings,
            target_arm,
            target_castings,
            divisor,
            perilous,
        };
        alternate(
            &input,
            raw,
            target_morale,
            target_en_masse,
            &mut *ctx.dice,
            &fname,
            &tname,
        )?
    } else {
        let names: Vec<String> = shares.iter().map(|s| ctx.uref(s.unit).name).collect();
        let firers: Vec<CombinedFirer<'_>> = shares
            .iter()
            .zip(&names)
            .map(|(s, name)| CombinedFirer {
                name,
                arm: s.arm,
                castings: s.castings,
                divisor: s.eff.divisor,
            })
            .collect();
        resolve_combined_fire(
            &firers,
            target_arm,
            target_castings,
            perilous,
            &mut *ctx.dice,
            &tname,
        )?
    };
    let aim = footprint(t).centre;
    for s in &shares {
        if let Some(m) = ctx.state.unit_mut(s.unit) {
            if !m.first_fire_done {
                so_far.first_fire.insert(s.unit);
                m.first_fire_done = true;
            }
            if m.arm.is_artillery()
                && so_far
                    .aim_castings
                    .get(&s.unit)
                    .is_none_or(|&c| s.castings > c)
            {
                so_far.prior_aim.entry(s.unit).or_insert(m.marks.aim);
                so_far.aim_castings.insert(s.unit, s.castings);
                m.marks.aim = Some(AimPoint {
                    at: aim,
                    turn: ctx.turn,
                });
            }
        }
        *so_far.used.entry(s.unit).or_default() += s.castings;
        ctx.fired.insert(s.unit);
        if let Some(m) = ctx.state.unit_mut(s.unit) {
            m.marks.fired_turn = Some(ctx.turn);
        }
    }
    let with = others
        .iter()
        .map(|s| FiredWith {
            unit: ctx.uref(s.unit),
            range: s.range,
            effectiveness: s.eff.divisor,
            castings_firing: s.castings,
        })
        .collect();
    let (unit, target) = (ctx.uref(lead.unit), ctx.uref(shot.target));
    ctx.events.push(Event::Fired {
        unit,
        target,
        range: lead.range,
        base_effectiveness: lead.base,
        effectiveness: divisor,
        modifiers: lead
            .eff
            .modifiers
            .iter()
            .map(|l| format!("{} {:+}", l.reason, l.delta))
            .collect(),
        castings_firing: shares.iter().map(|s| s.castings).sum(),
        dice_total: out.attack_total,
        casualties: out.casualties,
        save_total: out.save_total,
        morale_lost: out.morale_loss,
        split_move: shares.iter().any(|s| s.split_move),
        perilous,
        perilous_why: perilous_why.clone(),
        with,
        split_fire: shot.split_fire,
        attack_dice: out.attack_dice.clone(),
        save_dice: out.save_dice.clone(),
        band: lead.band.clone(),
        alternate: out.alternate.clone().unwrap_or_default(),
    });
    for id in std::iter::once(lead.unit).chain(others.iter().map(|s| s.unit)) {
        fired_before_order(ctx, id);
    }
    let mut losses = vec![(
        shot.target,
        Pending {
            casualties: out.casualties,
            morale: out.morale_loss,
            checks: vec![out.morale_loss],
        },
    )];
    losses.extend(support_losses);
    Ok(losses)
}

/// APSoF V.G.1.i, a surprise attack: when the turn began, no unit of the
/// target's side could see the firer (V.C.3) — it was hidden in cover,
/// behind a crest or out of sight, and came upon them unseen. A unit that
/// fired the turn before had shown itself (V.C.3: firing reveals units in
/// cover), so it surprises no one. Sight at the start is worked out on the
/// start state with nothing else moving or firing.
fn surprise(ctx: &Ctx<'_>, firer: UnitId, target_side: SideId) -> bool {
    let Some(f) = ctx.start.unit(firer) else {
        return false;
    };
    if f.marks
        .fired_turn
        .is_some_and(|t| t.saturating_add(1) >= ctx.turn)
    {
        return false;
    }
    let none = BTreeSet::new();
    let activity = Activity {
        fired: &none,
        moved: &none,
    };
    !ctx.start
        .units
        .iter()
        .filter(|o| o.side == target_side && o.castings > 0)
        .any(|o| {
            // A sight error counts as seen: no surprise is claimed on it.
            can_see(
                &ctx.start,
                &ctx.index,
                Observer::Unit(o.id),
                firer,
                &activity,
            )
            .unwrap_or(true)
        })
}

/// One unit's figures for a fire at `target` (V.B.1.i–iii and the V.B
/// table), or `None` if it cannot fire now: broken, at 0, out of castings
/// (V.F.2: a part never fires more than the unit's earlier parts left), or
/// out of range.
fn share_of(
    ctx: &Ctx<'_>,
    f: &Firing,
    target: UnitId,
    split_moving: &BTreeSet<UnitId>,
    so_far: &FiredSoFar,
) -> Result<Option<Share>, TurnError> {
    let (Some(u), Some(t)) = (ctx.state.unit(f.unit), ctx.state.unit(target)) else {
        return Ok(None);
    };
    if u.castings == 0 || u.combat_morale == 0 || u.broken {
        return Ok(None);
    }
    let firing = firing_castings(u);
    let left = firing.saturating_sub(so_far.used.get(&f.unit).copied().unwrap_or(0));
    let castings = f.castings.unwrap_or(firing).min(left);
    if castings == 0 {
        return Ok(None);
    }
    let range = range_inches(u, t);
    let Ok(base) = base_effectiveness(u.weapon, f64::from(range)) else {
        return Ok(None);
    };
    let front = footprint(u).front_centre();
    let tfp = footprint(t);
    // V.B table, target protection: the best that applies (our ruling,
    // protections do not add). A fence, wall or works protects a target in
    // contact with it on the firer's side: it lies across the line of fire
    // within CONTACT_GAP of the target.
    let mut protection = Protection::None;
    let behind = ctx
        .index
        .cover_between(front, &tfp, CONTACT_GAP)
        .into_iter()
        .map(|k| (true, Protection::of_line(k)));
    for p in [
        (t.entrenched, Protection::Entrenchments),
        (t.lying_down, Protection::LyingDown),
        (ctx.index.in_woods(&tfp), Protection::Woods),
    ]
    .into_iter()
    .chain(behind)
    .chain(t.marks.declared_protection.map(|p| (true, p)))
    {
        if p.0 && p.1.modifier() > protection.modifier() {
            protection = p.1;
        }
    }
    let target_ranks = fire_ranks(crate::rules::iron_brigade::geometry::ranks_deep(
        &ctx.state,
        t,
        Some(front),
    ));
    // V.D.1 acquired fire, judged on the aim the unit had before this
    // turn's fire; V.G.1 perilous situations: flank or rear (i), first
    // fire at troops never under fire (ii), first fire from repeaters at
    // troops never under repeater fire (iii), a target that crossed a ford
    // or went into abatis this turn (iv), a target changing formation this
    // turn or not in normal battlefield formation — a battery limbered up,
    // a broken unit in flight (v); a surprise attack (i, `surprise`); or
    // the umpire declared it so this turn (V.G.2).
    let aim = tfp.centre;
    let prior = so_far
        .prior_aim
        .get(&f.unit)
        .copied()
        .unwrap_or(u.marks.aim);
    let acquired = u.arm.is_artillery()
        && prior.is_some_and(|a| {
            a.turn.checked_add(1) == Some(ctx.turn) && a.at.distance(aim) <= ACQUIRED_TOLERANCE
        });
    let perilous_why = perilous_clauses(ctx, u, t, target);
    let perilous = !perilous_why.is_empty();
    let split_move = split_moving.contains(&f.unit);
    let mods = FireModifiers {
        protection,
        target_ranks,
        firer_morale: u.combat_morale,
        split_move,
        firer_lying_down: u.lying_down,
        first_fire: !u.first_fire_done || so_far.first_fire.contains(&f.unit),
        acquired,
        perilous,
    };
    let class = if u.arm.is_artillery() && !u.weapon.is_artillery() {
        FirerWeaponClass::of_arm(Arm::Cavalry)
    } else {
        FirerWeaponClass::of(u.weapon)
    };
    let eff = modified_effectiveness(base, class, &mods)?;
    let band = crate::rules::iron_brigade::weapons::chart(u.weapon)
        .iter()
        .find(|b| b.min <= range && range <= b.max)
        .map(|b| {
            format!(
                "{}, {}-{}\"",
                u.weapon.to_string().replace('-', " "),
                b.min,
                b.max
            )
        })
        .unwrap_or_default();
    Ok(Some(Share {
        unit: f.unit,
        arm: u.arm,
        castings,
        range,
        base,
        band,
        eff,
        perilous,
        perilous_why,
        split_move,
    }))
}

/// The perilous situations (APSoF V.G) that `firer`'s fire at `t` finds,
/// each named by its clause: flank, rear or surprise attack (V.G.1.i);
/// first fire at troops never under fire (ii); first fire from repeaters
/// at troops never under repeater fire (iii); a target that crossed a ford
/// or went into abatis this turn, or is in pontoon boats (iv, IV.E.2); a target changing formation this
/// turn or not in normal battlefield formation — a battery limbered up, a
/// broken unit in flight (v); or the umpire declared it so this turn
/// (V.G.2). Empty when the fire is not perilous.
fn perilous_clauses(ctx: &Ctx<'_>, u: &Unit, t: &Unit, target: UnitId) -> Vec<&'static str> {
    use crate::rules::iron_brigade::kinds::PerilousClause;
    let mut why = Vec::new();
    match attack_aspect(t, u.position) {
        Aspect::Flank => why.push(PerilousClause::Flank.text()),
        Aspect::Rear => why.push(PerilousClause::Rear.text()),
        Aspect::Front => {}
    }
    if surprise(ctx, u.id, t.side) {
        why.push(PerilousClause::Surprise.text());
    }
    if !t.marks.been_under_fire {
        why.push(PerilousClause::FirstFire.text());
    }
    if u.weapon.is_repeater() && !t.marks.been_under_repeater_fire {
        why.push(PerilousClause::Repeaters.text());
    }
    if ctx.crossing.contains(&target) {
        why.push(
            if ctx.pontoon_working.get(&target)
                == Some(&crate::rules::iron_brigade::kinds::PontoonTask::Cross)
            {
                PerilousClause::Pontoons.text()
            } else {
                PerilousClause::Crossing.text()
            },
        );
    }
    if ctx.changed_formation.contains(&target) {
        why.push(PerilousClause::ChangingFormation.text());
    }
    if t.broken {
        why.push(PerilousClause::Broken.text());
    }
    if t.arm.is_artillery() && t.formation == Formation::Limbered {
        why.push(PerilousClause::Limbered.text());
    }
    if t.marks.declared_perilous {
        why.push(PerilousClause::Umpire.text());
    }
    why
}

/// APSoF X (optional rule `alternate-fire-tables`): the results tables in
/// place of the dice-sum divide. The modified effectiveness (`raw`, before
/// V.B's floor; X.B.2 clamps it to tables 1–10) picks the table, the firing
/// castings the row, the target's castings before casualties the column
/// (one to the left when perilous, X.B.12). The outcome is told in V's
/// terms so the rest of the turn is unchanged: the attacker's die as the
/// dice total, the defender's die (if the cell asked for one) as the save.
/// `R`, the target routs outright, takes every level it has left
/// (`target_morale`, at least 1), so it breaks (VI.C).
///
/// APSoF III.G.5: a unit en masse, "when checking morale, check on the
/// next highest results table": its morale result is read on the table one
/// above the fire's (the same row and column; table 10 stays 10), its
/// casualties on the fire's own. The results tables are X's: the text
/// says the dice-sum fire of V "gone is the need for the results tables",
/// so under V the sentence has nothing to act on (docs/rulings.md).
#[allow(clippy::too_many_arguments)]
fn alternate(
    input: &FireInput,
    raw: i32,
    target_morale: u8,
    target_en_masse: bool,
    dice: &mut dyn crate::dice::DiceSource,
    firer: &str,
    target: &str,
) -> Result<crate::rules::iron_brigade::fire::FireOutcome, TurnError> {
    use crate::rules::iron_brigade::fire::alternate::{
        AlternateError, AlternateFire, MoraleResult, lookup, needs_defender_die,
    };
    let fire = AlternateFire {
        effectiveness: raw,
        firer_arm: input.firer_arm,
        firer_castings: input.firer_castings,
        target_arm: input.target_arm,
        target_castings: input.target_castings,
        perilous: input.perilous,
    };
    let internal = |e: AlternateError| match e {
        AlternateError::Dice(d) => TurnError::Dice(d),
        other => TurnError::Internal(other.to_string()),
    };
    let morale_fire = AlternateFire {
        effectiveness: if target_en_masse {
            raw.saturating_add(1)
        } else {
            raw
        },
        ..fire
    };
    let (table, row, column) = morale_fire.locate().map_err(internal)?;
    let (_, morale_cell) = lookup(table, row, column)
        .ok_or_else(|| TurnError::Internal(format!("no cell {row}, {column} in table {table}")))?;
    let attacker = dice.d6(&RollPurpose::new(RollKind::Fire, firer).with_note("alternate fire"))?;
    let defender = if needs_defender_die(morale_cell) {
        Some(dice.d6(&RollPurpose::new(RollKind::MoraleSave, target).with_note("alternate fire"))?)
    } else {
        None
    };
    let out = morale_fire.resolve(attacker, defender).map_err(internal)?;
    // Casualties always from the fire's own table.
    let casualties = if target_en_masse {
        let (t0, r0, c0) = fire.locate().map_err(internal)?;
        let (cell, _) = lookup(t0, r0, c0)
            .ok_or_else(|| TurnError::Internal(format!("no cell {r0}, {c0} in table {t0}")))?;
        use crate::rules::iron_brigade::fire::alternate::Cell;
        match cell {
            Cell::Roll { base, beat } => u32::from(base) + u32::from(attacker > beat),
            Cell::Dash | Cell::Rout => 0,
        }
        .min(input.target_castings)
    } else {
        out.casualties
    };
    let morale_loss = match out.morale {
        MoraleResult::Levels(n) => n,
        MoraleResult::Rout => u32::from(target_morale.max(1)),
    };
    let morale_words = match out.morale {
        MoraleResult::Levels(n) => format!("{n} morale level{}", if n == 1 { "" } else { "s" }),
        MoraleResult::Rout => "R, the target routs (all its levels)".to_string(),
    };
    let working = format!(
        "results table {table} (APSoF X.B.2: modified effectiveness {raw}, kept within 1-10){}, row {} for {} firing castings, column {} for {} target castings{}; attacker's die {attacker}{}: {casualties} casualt{}, {morale_words} (APSoF X)",
        if target_en_masse {
            ", one table up for its morale as the target is en masse (III.G.5)"
        } else {
            ""
        },
        row + 1,
        input.firer_castings,
        column + 1,
        input.target_castings,
        if input.perilous {
            ", one column to the left for a perilous situation (X.B.12)"
        } else {
            ""
        },
        defender.map_or(String::new(), |d| format!(", defender's die {d}")),
        if casualties == 1 { "y" } else { "ies" },
    );
    Ok(crate::rules::iron_brigade::fire::FireOutcome {
        alternate: Some(working),
        attack_dice: vec![attacker],
        attack_total: u32::from(attacker),
        casualties,
        target_remaining: input.target_castings.saturating_sub(casualties),
        save_dice: defender.into_iter().collect(),
        save_total: defender.map_or(0, u32::from),
        morale_loss,
    })
}

/// Distance from `p` to the straight line through `a` and `b`.
fn distance_to_line(p: Pos, a: Pos, b: Pos) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len = dx.hypot(dy);
    if len < 1e-9 {
        return p.distance(a);
    }
    ((p.x - a.x) * dy - (p.y - a.y) * dx).abs() / len
}

/// APSoF V.H: when a unit takes casualties, each of its side's officers in
/// the line of fire — in contact with it, or within 8" of it and directly in
/// line with it and a firer — rolls once: on foot hit on a 6, mounted on a
/// 5 or 6. A hit officer leaves the field; units in contact with him get a
/// rally deduction next morale phase; his replacement comes after 0–2 turns
/// at his start-of-turn position, of the scenario's quality or rolled.
/// Ruling: the text does not tell killed from wounded; we record "wounded".
fn officers_in_line(
    ctx: &mut Ctx<'_>,
    target: UnitId,
    firers: &[UnitId],
    rolled: &mut BTreeSet<OfficerId>,
) -> Result<(), TurnError> {
    let Some(t) = ctx.state.unit(target).cloned() else {
        return Ok(());
    };
    let took_casualties = ctx.events.iter().rev().any(|e| {
        matches!(e, Event::Fired { target: tr, casualties, .. } if tr.id == target && *casualties > 0)
    });
    if !took_casualties {
        return Ok(());
    }
    let tfp = footprint(&t);
    let firer_fronts: Vec<Pos> = firers
        .iter()
        .filter_map(|f| ctx.state.unit(*f))
        .map(|f| footprint(f).front_centre())
        .collect();
    let mut officers: Vec<_> = ctx
        .state
        .officers_of(t.side)
        .filter(|o| o.status == OfficerStatus::Active && !rolled.contains(&o.id))
        .filter(|o| {
            officer_in_contact(o.position, &t)
                || (tfp.distance_to(o.position) <= OFFICER_LINE_REACH
                    && firer_fronts.iter().any(|&f| {
                        distance_to_line(o.position, f, tfp.centre) <= OFFICER_LINE_WIDTH
                    }))
        })
        .map(|o| (o.id, o.mounted, o.name.clone()))
        .collect();
    officers.sort_by_key(|o| o.0);
    for (oid, mounted, name) in officers {
        rolled.insert(oid);
        let roll = ctx
            .dice
            .d6(&RollPurpose::new(RollKind::OfficerHit, name.clone()))?;
        let officer = ctx.oref(oid);
        let with_unit = ctx.uref(target);
        if !crate::rules::iron_brigade::fire::officer_hit(roll, mounted) {
            ctx.events.push(Event::OfficerMissed {
                officer,
                with_unit,
                roll,
            });
            continue;
        }
        // SFRM Table 3 for generals (scenario option beside V.H): the V.H
        // roll says he is hit; Table 3 says what the hit does. Only the
        // removal results (2, 3, 11, 12) or a capture take him off the
        // field; the others leave him in command with their penalties.
        let mut status = OfficerStatus::Wounded;
        if ctx.state.options.sfrm_officer_casualties {
            match sfrm_casualty(ctx, oid, &name, target)? {
                SfrmOutcome::Stays => continue,
                SfrmOutcome::Removed(s) => status = s,
            }
        }
        let (arrives_turn, new_rating) = remove_general(ctx, oid, status)?;
        ctx.events.push(Event::OfficerHit {
            officer,
            with_unit,
            roll,
            replacement_turn: arrives_turn,
            replacement_rating: new_rating,
        });
    }
    Ok(())
}

/// A general leaves the field (`status`: wounded, killed or taken): his
/// replacement is rolled for (APSoF V.H.3: delay and, without a named
/// successor, quality), friendly units he was with remember the shock at
/// their next rally (VI.E.2.ii), and the replacement is booked. Returns the
/// turn the replacement arrives and his rating.
pub(crate) fn remove_general(
    ctx: &mut Ctx<'_>,
    oid: OfficerId,
    status: OfficerStatus,
) -> Result<(u32, crate::rules::iron_brigade::kinds::OfficerRating), TurnError> {
    let Some(o) = ctx.state.officer(oid) else {
        return Err(TurnError::Internal(format!(
            "officer {} is not in the battle",
            oid.0
        )));
    };
    let (name, rating, successor, side, at) = (
        o.name.clone(),
        o.rating,
        o.succession.successor_rating,
        o.side,
        o.position,
    );
    let (delay, rolled) = roll_replacement(&mut *ctx.dice, &name, successor.is_none())?;
    let new_rating = successor.or(rolled).unwrap_or(rating);
    let position = ctx.officer_start.get(&oid).copied().unwrap_or(at);
    for u in &mut ctx.state.units {
        if u.side == side && u.castings > 0 && officer_in_contact(at, u) {
            u.marks.officer_hit_with = Some(rating);
        }
    }
    if let Some(o) = ctx.state.officer_mut(oid) {
        o.status = status;
        o.hit_this_turn = true;
    }
    let arrives_turn = ctx.turn.saturating_add(1).saturating_add(u32::from(delay));
    ctx.state.replacements.push(PendingReplacement {
        officer: oid,
        arrives_turn,
        rating: new_rating,
        position,
    });
    Ok((arrives_turn, new_rating))
}

/// What SFRM Table 3 did to a general hit under V.H.
pub(crate) enum SfrmOutcome {
    Stays,
    Removed(OfficerStatus),
}

/// SFRM Table 3 ("Officer Casualties") for a general hit with `unit`:
/// 2d6, its penalty kept for the battle (it lowers his read roll); dead on
/// 2 or 12 (killed), carried off on 3 or 11 (wounded); captured on 2–6
/// when he is in contact with an enemy unit and with no friendly one (his
/// unread dispatches fall to the captors: to the capturing unit's
/// commander if on the field).
pub(crate) fn sfrm_casualty(
    ctx: &mut Ctx<'_>,
    oid: OfficerId,
    name: &str,
    unit: UnitId,
) -> Result<SfrmOutcome, TurnError> {
    use crate::rules::sfrm::{Removal, roll_2d6_dice};
    let purpose = RollPurpose::new(RollKind::SfrmCasualty, name.to_string())
        .with_note("SFRM Table 3 for a general hit (APSoF V.H)");
    let dice = roll_2d6_dice(&mut *ctx.dice, &purpose)?;
    let roll = dice[0] + dice[1];
    let Some(officer) = ctx.state.officer(oid).cloned() else {
        return Ok(SfrmOutcome::Stays);
    };
    let officer_pos = officer.position;
    let hit = ctx
        .state
        .sfrm
        .officer_hit(roll, &officer)
        .map_err(|e| TurnError::Internal(e.to_string()))?;
    let enemy = ctx
        .state
        .enemies_of(officer.side)
        .find(|u| u.castings > 0 && officer_in_contact(officer.position, u))
        .map(|u| (u.side, u.commander));
    let friends = ctx
        .state
        .units_of(officer.side)
        .any(|u| u.castings > 0 && officer_in_contact(officer.position, u));
    let captured_by = enemy
        .filter(|_| hit.casualty.captured(true, friends))
        .map(|(side, _)| side);
    let officer_ref = ctx.oref(oid);
    let with_unit = ctx.uref(unit);
    ctx.events.push(Event::OfficerCasualty {
        officer: officer_ref,
        with_unit,
        roll,
        result: hit.casualty.result,
        removed: hit.casualty.removed() || captured_by.is_some(),
        captured_by,
        dice: dice.to_vec(),
    });
    if let Some((by_side, commander)) = enemy.filter(|_| captured_by.is_some()) {
        let captor = commander.filter(|c| {
            ctx.state
                .officer(*c)
                .is_some_and(|o| o.status == OfficerStatus::Active && o.side == by_side)
        });
        let turn = ctx.turn;
        let events = ctx.state.sfrm.officer_captured(oid, by_side, captor, turn);
        ctx.events
            .extend(events.into_iter().map(|sfrm| Event::Sfrm { sfrm }));
    }
    // Left in play and alone in contact with the enemy: the immediate rout
    // move (SFRM "Officer Casualties", "Rout Moves"; docs/rulings-sfrm.md).
    if hit.casualty.removal == Removal::Stays && captured_by.is_none() {
        let scale = ctx.state.scale();
        if let Some(to) =
            crate::rules::sfrm::rout_move(&ctx.state, officer.side, officer.position, scale)
        {
            if let Some(o) = ctx.state.officer_mut(oid) {
                o.position = to;
            }
            let officer = ctx.oref(oid);
            ctx.events.push(Event::OfficerMoved {
                officer,
                from: officer_pos,
                to,
                double_time: false,
                note: "rout move after SFRM Table 3".into(),
            });
        }
    }
    Ok(match (hit.casualty.removal, captured_by) {
        (Removal::Permanently, _) => SfrmOutcome::Removed(OfficerStatus::Killed),
        (Removal::ForMonths, _) | (_, Some(_)) => SfrmOutcome::Removed(OfficerStatus::Wounded),
        (Removal::Stays, None) => SfrmOutcome::Stays,
    })
}

/// A unit that fires while an order is still on its way to it (APSoF
/// I.C.1: 12–24" from the officer it takes effect a turn later, beyond 24"
/// two) fires under what it had — a unit without active orders may always
/// fire (I.B.4.i.b). Its side is told why, once a turn, so that a `hold
/// fire` on its way does not leave the player guessing.
fn fired_before_order(ctx: &mut Ctx<'_>, id: UnitId) {
    let turn = ctx.turn;
    let Some(pending) = ctx
        .book
        .units
        .get(&id)
        .and_then(|l| l.iter().find(|b| b.effective_turn > turn))
        .map(|b| (b.order.id, b.effective_turn))
    else {
        return;
    };
    if ctx
        .events
        .iter()
        .any(|e| matches!(e, Event::FiredBeforeOrder { unit, .. } if unit.id == id))
    {
        return;
    }
    let unit = ctx.uref(id);
    ctx.events.push(Event::FiredBeforeOrder {
        unit,
        order: pending.0,
        effective_turn: pending.1,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// V.C.4 and III.G.2: a line fires two ranks deep, a column its lead
    /// rank only (2" wide, two castings an inch: 4).
    #[test]
    fn v_c_4_who_fires() {
        let line = Unit::infantry(1, "Line", 0, 20, Pos::default(), 0.0);
        assert_eq!(firing_castings(&line), 20);
        let three = line.clone().with_ranks(Ranks::Three);
        assert_eq!(firing_castings(&three), 14);
        let column = line.with_formation(Formation::Column);
        assert_eq!(firing_castings(&column), 4);
    }

    #[test]
    fn v_h_1_line_distance() {
        let d = distance_to_line(Pos::new(1.0, 5.0), Pos::new(0.0, 0.0), Pos::new(0.0, 10.0));
        assert!((d - 1.0).abs() < 1e-9);
    }
}
