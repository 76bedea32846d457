//! The movement half of the movement and fire phase (APSoF I.B.4).
//!
//! Each unit takes option one (a full move, or fire, or a formation and/or
//! facing change) or the split move (any two of: half move, facing change,
//! formation change, fire at +2), as its active order dictates (I.B.4.i–ii).
//! All changes and moves are planned from the same start-of-phase state and
//! then applied together (simultaneous movement); two units that end on the
//! same ground meet between (IV.F). Fire comes after, in [`super::fire`].

use super::{Ctx, TurnError, current_step};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::geometry::{
    angle_between, bearing, footprint, in_contact, normalize_deg, officer_in_contact,
};
use crate::rules::iron_brigade::kinds::{Arm, Formation, Obstacle, PontoonTask};
use crate::rules::iron_brigade::movement::{
    ChangeCost, MoveClass, MoveIntent, MoveOutcome, MovePrep, OBLIQUE_LIMIT, Pace, StopReason,
    facing_change_cost, formation_change_cost, move_class, plan_move_with, plan_officer_move,
    split_move_bars,
};
use crate::rules::iron_brigade::orders::{
    Action, Direction, FirePart, FireTarget, MoveOrder, TurnOrders,
};
use crate::rules::iron_brigade::sight::{Activity, Observer, can_see};
use crate::rules::iron_brigade::state::{BattleState, OfficerStatus, Pos, Ranks, Unit, UnitId};
use std::collections::{BTreeMap, BTreeSet};

/// How a unit fires this turn (APSoF I.B.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FireMode {
    /// Does not fire (moved a full move, changed formation, holds fire).
    None,
    /// Option one: fire at full effect.
    Full,
    /// Fire as part of a split move, at +2 (I.B.4.ii.d).
    Split,
}

/// Whom a unit's fire is aimed at this turn (APSoF V; V.F).
#[derive(Debug, Clone, PartialEq)]
pub enum Aim {
    /// All its firing castings at one target.
    One(FireTarget),
    /// Combined with other units' fire at one target (V.F.1).
    With {
        target: FireTarget,
        with: Vec<UnitId>,
    },
    /// Its castings split over several targets (V.F.2).
    Split(Vec<FirePart>),
}

/// What the fire half of the phase needs to know about each unit.
#[derive(Debug, Clone, PartialEq)]
pub struct FirePlan {
    pub mode: FireMode,
    pub aim: Aim,
    /// The order and step the aim was written in, when it comes from one:
    /// a combination that cannot be made is reported against it.
    pub order: Option<(u64, usize)>,
}

/// When the step being carried out is done.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Completion {
    /// Done this turn.
    Now,
    /// Done when the move arrives.
    OnArrival,
    /// Done on arrival or in contact with the target (a charge).
    OnContact(UnitId),
    /// Standing orders (hold, fire, hold fire) last while they are the last
    /// step; otherwise they are done after one turn.
    Standing,
    /// Not done this turn.
    Never,
}

/// The unit's decision for the turn.
#[derive(Debug, Clone)]
struct Decision {
    formation: Option<Formation>,
    facing: Option<f64>,
    lying: Option<bool>,
    mounted: Option<bool>,
    intent: Option<MoveIntent>,
    fire: FireMode,
    aim: Aim,
    /// The order and step being carried out.
    order: Option<(u64, usize)>,
    completion: Completion,
    /// Why the step is skipped (it cannot be carried out as written).
    skip: Option<String>,
    /// Why the step waits this turn.
    held: Option<String>,
    /// The move's destination lies off the table: it goes to the edge.
    to_edge: bool,
    /// A split or combine (APSoF VII.C), carried out after fire.
    reorg: Option<super::reorganize::Reorg>,
    /// Works on an obstacle this turn (APSoF VIII.D, VIII.E), counted
    /// after fire ([`super::works`]).
    work: Option<Obstacle>,
    /// Unloads pontoon boats or crosses in them this turn (APSoF IV.E.2),
    /// counted after fire ([`super::works`]).
    pontoon: Option<PontoonTask>,
}

impl Decision {
    fn idle(fire: FireMode) -> Decision {
        Decision {
            formation: None,
            facing: None,
            lying: None,
            mounted: None,
            intent: None,
            fire,
            aim: Aim::One(FireTarget::AtWill),
            order: None,
            completion: Completion::Never,
            skip: None,
            held: None,
            to_edge: false,
            reorg: None,
            work: None,
            pontoon: None,
        }
    }
}

/// Work out the movement half of the phase; returns each unit's fire plan.
pub(crate) fn movement_phase(
    ctx: &mut Ctx<'_>,
    orders: &TurnOrders,
) -> Result<BTreeMap<UnitId, FirePlan>, TurnError> {
    officer_moves(ctx, orders);
    pinned_go_prone(ctx)?;
    let mut decisions: BTreeMap<UnitId, Decision> = BTreeMap::new();
    for id in ctx.unit_ids() {
        if let Some(d) = decide(ctx, id) {
            decisions.insert(id, d);
        }
    }
    // Units following another ("follow", "conform to") move after it, in
    // waves: those whose leader is not itself waiting to follow go first.
    let mut waiting = followers(ctx, &decisions);
    let mut wave: BTreeMap<UnitId, Decision> = decisions
        .iter()
        .filter(|(id, _)| !waiting.iter().any(|f| f.0 == **id))
        .map(|(id, d)| (*id, d.clone()))
        .collect();
    let mut outcomes = BTreeMap::new();
    loop {
        apply_changes(ctx, &wave);
        outcomes.append(&mut plan_and_apply_moves(ctx, &mut wave));
        decisions.append(&mut wave);
        if waiting.is_empty() {
            break;
        }
        let ready: Vec<(UnitId, UnitId, f64, f64)> = {
            let now: Vec<_> = waiting
                .iter()
                .filter(|f| !waiting.iter().any(|g| g.0 == f.1))
                .copied()
                .collect();
            // A ring of followers: the rest go together.
            if now.is_empty() { waiting.clone() } else { now }
        };
        waiting.retain(|f| !ready.contains(f));
        wave = conform_followers(ctx, &decisions, &ready);
    }
    accompanying_officers(ctx, orders);
    complete_steps(ctx, &decisions, &outcomes);
    for (&id, d) in &decisions {
        if let Some(o) = d.work
            && d.skip.is_none()
        {
            ctx.working.insert(id, o);
        }
        // APSoF IV.E.2; a unit in the boats is crossing an obstacle, a
        // perilous target (V.G.1.iv).
        if let Some(t) = d.pontoon
            && d.skip.is_none()
        {
            ctx.pontoon_working.insert(id, t);
            if t == PontoonTask::Cross {
                ctx.crossing.insert(id);
            }
        }
    }
    Ok(decisions
        .into_iter()
        .map(|(id, d)| {
            (
                id,
                FirePlan {
                    mode: d.fire,
                    aim: d.aim,
                    order: d.order,
                },
            )
        })
        .collect())
}

/// APSoF IV.D: officers move without orders, mounted as open-order cavalry
/// and on foot as open-order infantry; double time is allowed only in a turn
/// the officer gives no orders.
fn officer_moves(ctx: &mut Ctx<'_>, orders: &TurnOrders) {
    let mut moves: Vec<_> = orders.officer_moves.iter().collect();
    moves.sort_by_key(|m| m.officer);
    for m in moves {
        let Some(o) = ctx.state.officer(m.officer) else {
            continue;
        };
        if o.status != OfficerStatus::Active || m.waypoints.is_empty() {
            continue;
        }
        let gave_orders = orders.unit_orders.iter().any(|u| u.issued_by == m.officer);
        let double_time = m.double_time && !gave_orders;
        let note = if m.double_time && gave_orders {
            "he gave orders this turn, so he may not double time (IV.D)".to_string()
        } else {
            String::new()
        };
        let from = o.position;
        // An officer's ride stops at the table edge like a unit's ordered
        // move (docs/rulings.md, "The table edge").
        let waypoints = on_table(ctx, &m.waypoints);
        if let Ok(out) = plan_officer_move(&ctx.state, m.officer, &waypoints, double_time) {
            if let Some(o) = ctx.state.officer_mut(m.officer) {
                o.position = out.end;
            }
            let officer = ctx.oref(m.officer);
            ctx.events.push(Event::OfficerMoved {
                officer,
                from,
                to: out.end,
                double_time,
                note,
            });
        }
    }
}

/// "Ride with the 10th Ohio" (APSoF IV.D: officers move at the player's
/// whim, without orders): after the units' moves, an officer who
/// accompanies a unit of his side rides to where it now stands, as far as
/// his move (and double time, if asked and allowed) takes him. Pure: the
/// unit's new position is in the state.
fn accompanying_officers(ctx: &mut Ctx<'_>, orders: &TurnOrders) {
    let mut moves: Vec<_> = orders
        .officer_moves
        .iter()
        .filter(|m| m.with_unit.is_some())
        .collect();
    moves.sort_by_key(|m| m.officer);
    for m in moves {
        let (Some(o), Some(u)) = (
            ctx.state.officer(m.officer),
            m.with_unit.and_then(|u| ctx.state.unit(u)),
        ) else {
            continue;
        };
        if o.status != OfficerStatus::Active || u.castings == 0 || u.side != o.side {
            continue;
        }
        let (from, to) = (o.position, u.position);
        if from.distance(to) < 1e-6 {
            continue;
        }
        let gave_orders = orders.unit_orders.iter().any(|x| x.issued_by == m.officer);
        let double_time = m.double_time && !gave_orders;
        if let Ok(out) = plan_officer_move(&ctx.state, m.officer, &[to], double_time) {
            if let Some(o) = ctx.state.officer_mut(m.officer) {
                o.position = out.end;
            }
            let officer = ctx.oref(m.officer);
            ctx.events.push(Event::OfficerMoved {
                officer,
                from,
                to: out.end,
                double_time,
                note: String::new(),
            });
        }
    }
}

/// Units carrying out [`Action::Follow`] this turn, with their leader
/// and station: (follower, leader, right, ahead).
fn followers(
    ctx: &Ctx<'_>,
    decisions: &BTreeMap<UnitId, Decision>,
) -> Vec<(UnitId, UnitId, f64, f64)> {
    ctx.unit_ids()
        .into_iter()
        .filter(|id| {
            decisions
                .get(id)
                .is_some_and(|d| d.completion == Completion::Standing)
        })
        .filter_map(|id| match current_step(&ctx.book, id, ctx.turn) {
            Some((_, _, _, Action::Follow { unit, right, ahead })) => {
                Some((id, unit, right, ahead))
            }
            _ => None,
        })
        .collect()
}

/// "Follow the 7th", "conform to the 7th" ([`Action::Follow`]): a
/// follower moves after its leader has moved, toward its station on the
/// leader where the leader now stands and as it now faces (the station
/// taken when the order was read). It moves as any ordered move does
/// (IV.C.3's facing, its own move's length); the meeting of units on the
/// same ground (IV.F) is judged among the units moving together. A leader
/// gone from the field ends the step. Returns the followers' decisions.
fn conform_followers(
    ctx: &Ctx<'_>,
    decisions: &BTreeMap<UnitId, Decision>,
    ready: &[(UnitId, UnitId, f64, f64)],
) -> BTreeMap<UnitId, Decision> {
    let mut out = BTreeMap::new();
    for &(id, leader, right, ahead) in ready {
        let (Some(d), Some(u)) = (decisions.get(&id), ctx.state.unit(id)) else {
            continue;
        };
        let Some(l) = ctx.state.unit(leader).filter(|l| l.castings > 0) else {
            let mut d = d.clone();
            d.skip = Some("the unit it was to follow is no longer on the field".into());
            out.insert(id, d);
            continue;
        };
        let station = footprint(l).to_table(right, ahead);
        let m = MoveOrder {
            waypoints: vec![station],
            by_road: false,
            formation: None,
            gait: Default::default(),
            fire_while_moving: false,
            backwards: false,
        };
        let split_ok = split_move_bars(u).is_empty();
        let cw = ctx.state.options.cannon_weights;
        let mut nd = Decision::idle(d.fire);
        nd.order = d.order;
        move_decision(&mut nd, ctx, u, &m, None, split_ok, cw, false);
        if matches!(nd.completion, Completion::OnArrival | Completion::Now) {
            nd.completion = Completion::Standing;
        }
        out.insert(id, nd);
    }
    out
}

/// APSoF VI.C.6: a pinned unit (combat morale 1) in the open with the enemy
/// in sight goes prone. Units in woods or a town are already in cover.
fn pinned_go_prone(ctx: &mut Ctx<'_>) -> Result<(), TurnError> {
    let none = BTreeSet::new();
    for id in ctx.unit_ids() {
        let Some(u) = ctx.state.unit(id) else {
            continue;
        };
        if !u.marks.pinned || u.broken || u.castings == 0 || u.lying_down || u.arm.is_artillery() {
            continue;
        }
        if ctx.index.in_woods(&footprint(u)) || ctx.index.in_town(u.position) {
            continue;
        }
        let side = u.side;
        let pos = u.position;
        let mut enemy_in_sight = false;
        let enemies: Vec<UnitId> = ctx
            .state
            .enemies_of(side)
            .filter(|e| e.castings > 0 && e.position.distance(pos) < 120.0)
            .map(|e| e.id)
            .collect();
        for e in enemies {
            let activity = Activity {
                fired: &none,
                moved: &none,
            };
            if can_see(&ctx.state, &ctx.index, Observer::Unit(id), e, &activity)? {
                enemy_in_sight = true;
                break;
            }
        }
        if enemy_in_sight {
            if let Some(u) = ctx.state.unit_mut(id) {
                u.lying_down = true;
            }
            let unit = ctx.uref(id);
            ctx.events.push(Event::Pinned {
                unit,
                went_prone: true,
            });
        }
    }
    Ok(())
}

fn resolve_direction(state: &BattleState, u: &Unit, d: &Direction) -> f64 {
    match d {
        Direction::Degrees(deg) => normalize_deg(*deg),
        Direction::Toward(p) => bearing(u.position, *p),
        Direction::TowardUnit(t) => state
            .unit(*t)
            .map_or(u.facing, |t| bearing(u.position, t.position)),
        Direction::About => normalize_deg(u.facing + 180.0),
    }
}

fn paid(c: ChangeCost) -> bool {
    c != ChangeCost::Free
}

/// The unit's choice for the turn from its active order (APSoF I.B.4).
fn decide(ctx: &Ctx<'_>, id: UnitId) -> Option<Decision> {
    let u = ctx.state.unit(id)?;
    if u.castings == 0 {
        return None;
    }
    if u.broken || u.combat_morale == 0 {
        return Some(Decision::idle(FireMode::None));
    }
    // VI.C.5: pinned artillery may not fire.
    let at_will = if u.marks.pinned && u.arm.is_artillery() {
        FireMode::None
    } else {
        FireMode::Full
    };
    let Some((_, order_id, step, action)) = current_step(&ctx.book, id, ctx.turn) else {
        // I.B.4.i.b: units without active orders may always fire.
        return Some(Decision::idle(at_will));
    };
    let split_ok = split_move_bars(u).is_empty();
    let cw = ctx.state.options.cannon_weights;
    let mut d = Decision::idle(at_will);
    d.order = Some((order_id, step));
    match &action {
        Action::Hold => d.completion = Completion::Standing,
        Action::HoldFire => {
            d.fire = FireMode::None;
            d.completion = Completion::Standing;
        }
        Action::Fire(t) => {
            d.aim = Aim::One(*t);
            d.completion = Completion::Standing;
        }
        Action::FireWith { target, with } => {
            d.aim = Aim::With {
                target: *target,
                with: with.clone(),
            };
            d.completion = Completion::Standing;
        }
        Action::SplitFire { parts } => {
            d.aim = Aim::Split(parts.clone());
            d.completion = Completion::Standing;
        }
        Action::LieDown => {
            d.lying = Some(true);
            d.completion = Completion::Now;
        }
        Action::StandUp => {
            d.lying = Some(false);
            d.completion = Completion::Now;
        }
        Action::Face(dir) => {
            let f = resolve_direction(&ctx.state, u, dir);
            d.facing = Some(f);
            if paid(facing_change_cost(u, f, false)) {
                // I.B.4.ii.d: a facing change may be paired with fire at +2
                // without special orders; otherwise it is the whole action.
                d.fire = if split_ok && at_will != FireMode::None {
                    FireMode::Split
                } else {
                    FireMode::None
                };
            }
            d.completion = Completion::Now;
        }
        Action::Form { formation, facing } => {
            form_decision(
                &mut d,
                &ctx.state,
                u,
                *formation,
                facing.as_ref(),
                split_ok,
                cw,
            );
        }
        Action::Unlimber { facing } => {
            form_decision(
                &mut d,
                &ctx.state,
                u,
                Formation::Unlimbered,
                facing.as_ref(),
                split_ok,
                cw,
            );
        }
        Action::Limber => {
            form_decision(
                &mut d,
                &ctx.state,
                u,
                Formation::Limbered,
                None,
                split_ok,
                cw,
            );
        }
        Action::Mount | Action::Dismount => {
            let want = matches!(action, Action::Mount);
            if u.arm != Arm::Cavalry {
                d.skip = Some("only cavalry mounts and dismounts (III.H)".into());
            } else {
                if u.mounted != want {
                    // III.H: a formation change, half a move.
                    d.mounted = Some(want);
                    d.fire = FireMode::None;
                }
                d.completion = Completion::Now;
            }
        }
        Action::Split { .. } | Action::Combine { .. } => {
            // APSoF VII.C: a reorganization is the unit's formation change
            // for the turn (turn/reorganize.rs).
            let r = match &action {
                Action::Split { castings, new_name } => super::reorganize::Reorg::Split {
                    castings: *castings,
                    new_name: new_name.clone(),
                },
                Action::Combine { with } => super::reorganize::Reorg::Combine { with: *with },
                _ => return Some(d),
            };
            match super::reorganize::refusal(ctx, id, &r) {
                Some(reason) => d.skip = Some(reason),
                None => {
                    d.reorg = Some(r);
                    d.fire = FireMode::None;
                    d.completion = Completion::Now;
                }
            }
        }
        Action::ClearObstacle { obstacle } => {
            work_decision(&mut d, ctx, u, *obstacle, at_will);
        }
        Action::Pontoons { task } => {
            pontoon_decision(&mut d, ctx, u, *task, at_will);
        }
        Action::Move(m) | Action::Retreat(m) => {
            let retreat = matches!(action, Action::Retreat(_));
            move_decision(&mut d, ctx, u, m, None, split_ok, cw, retreat);
        }
        Action::Follow { .. } => {
            // Resolved in `conform_followers`, once the leader's move for
            // the turn is known.
            d.completion = Completion::Standing;
        }
        Action::Charge { target, to, .. } => {
            let goal = target
                .and_then(|t| ctx.state.unit(t))
                .map(|t| footprint(t).nearest_point(u.position))
                .or(*to);
            match goal {
                Some(g) => {
                    let m = MoveOrder {
                        waypoints: vec![g],
                        by_road: false,
                        formation: None,
                        gait: Default::default(),
                        fire_while_moving: false,
                        backwards: false,
                    };
                    move_decision(&mut d, ctx, u, &m, *target, split_ok, cw, false);
                }
                None => d.skip = Some("a charge needs a target or a place".into()),
            }
        }
    }
    Some(d)
}

/// APSoF VIII.D, VIII.E: work on the abatis or ditch the unit is at. The
/// work is the unit's whole action (like option one's full move, I.B.4.i):
/// it does not move or fire, and its step lasts until the work is done
/// ([`super::works`]). Only infantry (VIII.D, VIII.E: "Only infantry units"
/// may go through either; our ruling extends it to the work). A pinned unit
/// does not work that turn (VI.C.6) and keeps its fire at will; a unit lying
/// down stands to work (III.J; docs/rulings.md).
fn work_decision(d: &mut Decision, ctx: &Ctx<'_>, u: &Unit, obstacle: Obstacle, at_will: FireMode) {
    d.completion = Completion::Never;
    if move_class(u) != MoveClass::Infantry {
        d.skip = Some(match obstacle {
            Obstacle::Abatis => "only infantry clear paths through abatis (VIII.D)".into(),
            Obstacle::Moat => "only infantry fill in ditches (VIII.E)".into(),
        });
        return;
    }
    if u.marks.pinned {
        d.held = Some("it is pinned and does no work (VI.C.6)".into());
        d.fire = at_will;
        return;
    }
    match crate::rules::iron_brigade::obstacles::work_site(&ctx.state, u, obstacle) {
        Ok(_) => {
            d.work = Some(obstacle);
            d.fire = FireMode::None;
            if u.lying_down {
                d.lying = Some(false);
            }
        }
        Err(why) => d.skip = Some(why),
    }
}

/// APSoF IV.E.2: unload the pontoon boats the unit is at, or cross the
/// stream in them. Like work on an obstacle, it is the unit's whole action:
/// it does not move or fire, and its step lasts until the boats are afloat
/// or the unit has landed ([`super::works`]). Only infantry ("Infantry may
/// cross bodies of water in pontoon boats"; dismounted cavalry moves as
/// infantry, III.H) crosses; unloading is work for men on foot, so the same
/// units unload (our ruling), and so do the men of a pontoon train its own
/// boats. Boats on a train are put in the water only at their stream's
/// bank ([`launch_point`](crate::rules::iron_brigade::pontoons::launch_point)).
/// A pinned unit does neither (VI.C.6).
fn pontoon_decision(
    d: &mut Decision,
    ctx: &Ctx<'_>,
    u: &Unit,
    task: PontoonTask,
    at_will: FireMode,
) {
    use crate::rules::iron_brigade::pontoons::{boats_at, launch_point};
    d.completion = Completion::Never;
    let own_train = task == PontoonTask::Unload
        && ctx
            .state
            .terrain
            .pontoons
            .iter()
            .any(|p| !p.afloat && p.train == Some(u.id));
    if move_class(u) != MoveClass::Infantry && !own_train {
        d.skip = Some(match task {
            PontoonTask::Cross => "only infantry cross in pontoon boats (APSoF IV.E.2)".into(),
            PontoonTask::Unload => "only men on foot unload pontoon boats (APSoF IV.E.2)".into(),
        });
        return;
    }
    if u.marks.pinned {
        d.held = Some("it is pinned and does not take to the boats (VI.C.6)".into());
        d.fire = at_will;
        return;
    }
    let i = match boats_at(&ctx.state, u) {
        Ok(i) => i,
        Err(why) => {
            d.skip = Some(why);
            return;
        }
    };
    let Some(p) = ctx.state.terrain.pontoons.get(i) else {
        return;
    };
    match (task, p.afloat) {
        (PontoonTask::Unload, true) => {
            d.skip = Some(format!(
                "{} are already on the water; order 'cross by pontoon'",
                p.name
            ));
            return;
        }
        (PontoonTask::Cross, false) => {
            d.skip = Some(format!(
                "{} are still on their wagons: order 'unload the pontoons' first (four turns, APSoF IV.E.2)",
                p.name
            ));
            return;
        }
        (PontoonTask::Unload, false) => {
            if let Err(why) = launch_point(&ctx.state, p) {
                d.skip = Some(why);
                return;
            }
        }
        _ => {}
    }
    // The far bank must be on the table (the battlefield the scenario
    // chose; docs/rulings.md, "The table edge").
    if task == PontoonTask::Cross {
        let (to, _, _) = crate::rules::iron_brigade::pontoons::landing(&ctx.state, u, p);
        if ctx.state.table.is_some_and(|t| !t.contains(to)) {
            d.skip = Some(format!(
                "the far bank at ({:.1}, {:.1}) is off the table; the crossing is not made",
                to.x, to.y
            ));
            return;
        }
    }
    // The boats carry one unit at a time: one already crossing in them
    // keeps them.
    if task == PontoonTask::Cross
        && let Some(other) = ctx.state.units.iter().find(|o| {
            o.id != u.id
                && o.marks
                    .pontoon_work
                    .as_ref()
                    .is_some_and(|w| w.task == PontoonTask::Cross && w.pontoons == p.name)
        })
    {
        d.held = Some(format!("{} are carrying {} over", p.name, other.name));
        d.fire = at_will;
        return;
    }
    d.pontoon = Some(task);
    d.fire = FireMode::None;
    if u.lying_down {
        d.lying = Some(false);
    }
}

/// A formation change with an optional facing (III.B, III.D, III.G, III.I).
/// Both paid changes need a split move; without one, the formation changes
/// this turn and the facing next turn.
fn form_decision(
    d: &mut Decision,
    state: &BattleState,
    u: &Unit,
    formation: Formation,
    facing: Option<&Direction>,
    split_ok: bool,
    cannon_weights: bool,
) {
    if !formation.allowed_for(u.arm) {
        d.skip = Some(format!("{} cannot take {formation} formation", u.arm));
        return;
    }
    let face = facing.map(|f| resolve_direction(state, u, f));
    let form_cost = formation_change_cost(u, formation, cannon_weights);
    // III.G.4: a company column makes a complete formation and facing
    // change in half a move.
    let company = formation == Formation::CompanyColumn || u.formation == Formation::CompanyColumn;
    let face_cost = match face {
        Some(f) if !(company && paid(form_cost)) => facing_change_cost(u, f, false),
        _ => ChangeCost::Free,
    };
    let (fp, cp) = (paid(form_cost), paid(face_cost));
    d.formation = Some(formation);
    d.completion = Completion::Now;
    match (fp, cp) {
        (false, false) => d.facing = face,
        (true, false) => {
            d.facing = face;
            d.fire = FireMode::None;
        }
        (false, true) => {
            d.facing = face;
            if !split_ok {
                d.fire = FireMode::None;
            } else if d.fire != FireMode::None {
                d.fire = FireMode::Split;
            }
        }
        (true, true) => {
            d.fire = FireMode::None;
            if split_ok && form_cost == ChangeCost::HalfMove {
                d.facing = face;
            } else {
                d.completion = Completion::Never;
            }
        }
    }
}

/// Waypoints moved onto the table: a unit may leave the table only by
/// retreating off it (docs/rulings.md, "The table edge"), so an ordered
/// move to a place beyond the edge goes to the nearest point of the edge.
pub(crate) fn on_table(ctx: &Ctx<'_>, waypoints: &[Pos]) -> Vec<Pos> {
    match ctx.state.table {
        Some(t) => waypoints.iter().map(|p| t.clamp(*p)).collect(),
        None => waypoints.to_vec(),
    }
}

/// APSoF VII.G: a poor (or lower) unit that has lost its regimental
/// command "may not advance unless a personality casting accompanies the
/// unit" — an active officer of its side in contact with it (VI.E.2.ii's
/// test of an officer being with a unit). Moving backwards is not an
/// advance; any other move is (our ruling, as for pinned units).
fn leaderless(ctx: &Ctx<'_>, u: &Unit) -> bool {
    let Some(base) = u.marks.command_lost else {
        return false;
    };
    if crate::rules::iron_brigade::morale::rallies_after_command_loss(base) {
        return false;
    }
    !ctx.state
        .officers_of(u.side)
        .any(|o| o.status == OfficerStatus::Active && officer_in_contact(o.position, u))
}

/// A move (IV), with the formation and facing changes it needs first.
/// Paid changes use the split move's other half; with no split allowed the
/// unit makes the change this turn and moves next turn. Fire while moving
/// is the split move's fire at +2 (I.B.4.ii.d). A unit lying down stands up
/// as part of an order to move (our ruling: the order to move is the order
/// to stand, III.J).
#[allow(clippy::too_many_arguments)]
fn move_decision(
    d: &mut Decision,
    ctx: &Ctx<'_>,
    u: &Unit,
    m: &MoveOrder,
    charge: Option<UnitId>,
    split_ok: bool,
    cannon_weights: bool,
    retreat: bool,
) {
    d.completion = match charge {
        Some(t) => Completion::OnContact(t),
        None => Completion::OnArrival,
    };
    let Some(&first) = m.waypoints.first() else {
        d.skip = Some("the move has no destination".into());
        return;
    };
    if ctx.no_move.contains(&u.id) {
        d.held = Some("it rallied this turn and may not move (VI.E.2.iv, VI.C.6)".into());
        d.completion = Completion::Never;
        return;
    }
    // IV.E.1 "one casualty is taken, one morale level lost and the
    // crossing is aborted": aborted at the double quick, it is not tried
    // again in this turn's movement phase.
    if ctx.ford_aborted.contains(&u.id) {
        d.held = Some(
            "its crossing was aborted this turn: the water is too deep to ford (IV.E.1)".into(),
        );
        d.completion = Completion::Never;
        return;
    }
    if u.marks.pinned && !retreat && !m.backwards {
        d.held = Some("it is pinned and may not advance (VI.C.6)".into());
        d.completion = Completion::Never;
        return;
    }
    if !retreat && !m.backwards && leaderless(ctx, u) {
        d.held = Some(
            "it has lost its regimental command and may not advance without an officer with it (VII.G)"
                .into(),
        );
        d.completion = Completion::Never;
        return;
    }
    let dest = m.waypoints.last().copied().unwrap_or(first);
    if u.position.distance(dest) < 0.05 {
        d.completion = Completion::Now;
        return;
    }
    d.fire = FireMode::None;
    if u.lying_down {
        d.lying = Some(false);
    }
    let want_form = m.formation.or(if u.formation == Formation::Unlimbered {
        Some(Formation::Limbered)
    } else {
        None
    });
    let form_cost = want_form
        .filter(|f| f.allowed_for(u.arm))
        .map_or(ChangeCost::Free, |f| {
            formation_change_cost(u, f, cannon_weights)
        });
    let ahead = if m.backwards {
        u.facing + 180.0
    } else {
        u.facing
    };
    let face = (!m.by_road
        && u.position.distance(first) > 1e-6
        && angle_between(bearing(u.position, first), ahead) > OBLIQUE_LIMIT)
        .then(|| {
            let b = bearing(u.position, first);
            if m.backwards {
                normalize_deg(b + 180.0)
            } else {
                b
            }
        });
    let face_cost = face.map_or(ChangeCost::Free, |f| facing_change_cost(u, f, false));
    let n_paid = usize::from(paid(form_cost)) + usize::from(paid(face_cost));
    d.formation = want_form.filter(|f| f.allowed_for(u.arm));
    d.facing = face;
    let waypoints = on_table(ctx, &m.waypoints);
    d.to_edge = waypoints != m.waypoints;
    let intent = |pace| MoveIntent {
        waypoints: waypoints.clone(),
        by_road: m.by_road,
        pace,
        backwards: m.backwards,
    };
    match n_paid {
        0 => {
            if m.fire_while_moving && split_ok {
                d.intent = Some(intent(Pace::Half));
                d.fire = FireMode::Split;
            } else {
                d.intent = Some(intent(Pace::Full));
            }
        }
        1 => {
            if split_ok && form_cost != ChangeCost::WholeTurn {
                d.intent = Some(intent(Pace::Half));
            }
        }
        _ => {
            if !split_ok {
                d.facing = None;
            }
        }
    }
    if d.intent.is_none() {
        d.completion = Completion::Never;
    }
}

/// Formation, facing, lying down and mounting, applied before anyone moves.
/// A line or skirmish order keeps its depth where it can: a line formed from
/// skirmish order stands two ranks deep, skirmishers thrown out from a line
/// stand half a rank deep (our ruling).
fn apply_changes(ctx: &mut Ctx<'_>, decisions: &BTreeMap<UnitId, Decision>) {
    for (&id, d) in decisions {
        let Some(u) = ctx.state.unit(id).cloned() else {
            continue;
        };
        let unit = ctx.uref(id);
        if let Some(f) = d.formation
            && f != u.formation
        {
            if let Some(m) = ctx.state.unit_mut(id) {
                m.formation = f;
                if f == Formation::Line && m.formed_ranks.is_open_order() {
                    m.formed_ranks = Ranks::Two;
                }
                if f == Formation::Skirmish && !m.formed_ranks.is_open_order() {
                    m.formed_ranks = Ranks::Half;
                }
                if f.allowed_for(Arm::Artillery) {
                    m.formed_ranks = Ranks::One;
                }
            }
            ctx.changed_formation.insert(id);
            ctx.events.push(Event::FormationChanged {
                unit: unit.clone(),
                from: u.formation,
                to: f,
            });
        }
        if let Some(f) = d.facing
            && angle_between(f, u.facing) > 1e-6
        {
            if let Some(m) = ctx.state.unit_mut(id) {
                m.facing = f;
            }
            ctx.events.push(Event::FacingChanged {
                unit: unit.clone(),
                from: u.facing,
                to: f,
            });
        }
        if let Some(l) = d.lying
            && l != u.lying_down
        {
            if let Some(m) = ctx.state.unit_mut(id) {
                m.lying_down = l;
            }
            ctx.events.push(Event::LyingDown {
                unit: unit.clone(),
                lying: l,
            });
        }
        if let Some(mo) = d.mounted
            && mo != u.mounted
        {
            if let Some(m) = ctx.state.unit_mut(id) {
                m.mounted = mo;
            }
            ctx.changed_formation.insert(id);
            ctx.events.push(Event::FormationChanged {
                unit,
                from: u.formation,
                to: u.formation,
            });
        }
    }
}

/// Why a move ended, in words. A unit in the way is named when it is of
/// the mover's own side ("blocked by the 6th Wisconsin"); an enemy never
/// is, since these words reach the mover's player as they stand.
fn stop_text(state: &BattleState, mover: UnitId, s: &StopReason) -> String {
    if let StopReason::UnitInTheWay(other) = s {
        let side = state.unit(mover).map(|u| u.side);
        return match state.unit(*other) {
            Some(o) if Some(o.side) == side => {
                let the = if o.name.starts_with(|c: char| c.is_ascii_digit()) {
                    "the "
                } else {
                    ""
                };
                format!("blocked by {the}{}", o.name)
            }
            Some(_) => "blocked by an enemy unit".into(),
            None => "a unit is in the way".into(),
        };
    }
    match s {
        StopReason::Arrived => "arrived".into(),
        StopReason::AllowanceUsed => "move used up".into(),
        StopReason::Forbidden(t) => format!("may not enter {t:?}"),
        StopReason::StreamTooDeep { depth_in, max_in } => {
            format!("stream {depth_in}\" deep, fordable to {max_in}\"")
        }
        StopReason::EnemyContact(_) => "halted on contact with the enemy".into(),
        StopReason::UnitInTheWay(_) => "a unit is in the way".into(),
        StopReason::OutsideFrontArc => "the route turns beyond its front".into(),
        StopReason::MoatReached => "reached the moat; crossing it takes next turn".into(),
        StopReason::MoatCrossed => "crossed the moat, which took the turn".into(),
    }
}

/// Plan every move on the same state (simultaneous movement, I.B), apply
/// them, then resolve units that end on the same ground (IV.F) and the
/// morale effects of passing through ranks (IV.C.5–6) and failed fords
/// (IV.E.1). A split move whose ground forbids splitting (IV.G `**`–`****`)
/// becomes a full move when its other half was fire, and no move when it
/// was a change of formation or facing (our ruling: the change was already
/// made).
fn plan_and_apply_moves(
    ctx: &mut Ctx<'_>,
    decisions: &mut BTreeMap<UnitId, Decision>,
) -> BTreeMap<UnitId, MoveOutcome> {
    let start = ctx.state.clone();
    // Footprints and terrain boxes of `start`, shared by every move below.
    let prep = MovePrep::new(&start);
    let mut outcomes: BTreeMap<UnitId, MoveOutcome> = BTreeMap::new();
    for (&id, d) in decisions.iter_mut() {
        let Some(intent) = d.intent.clone() else {
            continue;
        };
        match plan_move_with(&start, Some(&prep), id, &intent) {
            Ok(mut out) => {
                if intent.pace == Pace::Half && !out.split_barred.is_empty() {
                    if d.fire == FireMode::Split {
                        d.fire = FireMode::None;
                        let full = MoveIntent {
                            pace: Pace::Full,
                            ..intent
                        };
                        match plan_move_with(&start, Some(&prep), id, &full) {
                            Ok(o) => out = o,
                            Err(_) => continue,
                        }
                        // The move is told as the full move it now is.
                        d.intent = Some(full);
                    } else {
                        d.intent = None;
                        d.completion = Completion::Never;
                        continue;
                    }
                }
                outcomes.insert(id, out);
            }
            Err(e) => {
                d.intent = None;
                d.skip = Some(e.to_string());
            }
        }
    }
    // Apply.
    for (&id, out) in &outcomes {
        let Some(u) = ctx.state.unit(id) else {
            continue;
        };
        let from = u.position;
        let half = decisions
            .get(&id)
            .and_then(|d| d.intent.as_ref())
            .is_some_and(|i| i.pace == Pace::Half);
        if let Some(m) = ctx.state.unit_mut(id) {
            m.position = out.end;
            m.facing = out.facing;
        }
        if out.distance > 1e-9 {
            ctx.moved.insert(id);
        }
        let unit = ctx.uref(id);
        ctx.events.push(Event::Moved {
            unit,
            from,
            to: out.end,
            distance: (out.distance * 100.0).round() / 100.0,
            half,
            stop: stop_text(&start, id, &out.stop),
        });
    }
    // IV.F: units ending on the same ground meet between.
    let movers: Vec<UnitId> = outcomes.keys().copied().collect();
    for (i, &a) in movers.iter().enumerate() {
        for &b in movers.iter().skip(i + 1) {
            let (Some(oa), Some(ob)) = (outcomes.get(&a), outcomes.get(&b)) else {
                continue;
            };
            if oa.end.distance(ob.end) > 30.0 {
                continue;
            }
            let friends = ctx.state.unit(a).map(|u| u.side) == ctx.state.unit(b).map(|u| u.side);
            if friends
                && let Some((halts, short_of, at)) =
                    crate::rules::iron_brigade::movement::friend_halts_short(
                        &ctx.state,
                        (a, oa),
                        (b, ob),
                    )
            {
                if let Some(m) = ctx.state.unit_mut(halts) {
                    m.position = at;
                }
                let (unit, of) = (ctx.uref(halts), ctx.uref(short_of));
                ctx.events.push(Event::HaltedShort { unit, of, at });
                continue;
            }
            if let Some((pa, pb)) =
                crate::rules::iron_brigade::movement::resolve_meeting(&start, (a, oa), (b, ob))
            {
                for (id, p) in [(a, pa), (b, pb)] {
                    if let Some(m) = ctx.state.unit_mut(id) {
                        m.position = p;
                    }
                }
                let (ra, rb) = (ctx.uref(a), ctx.uref(b));
                ctx.events.push(Event::Met { a: ra, b: rb });
            }
        }
    }
    for (&id, out) in &outcomes {
        move_effects(ctx, id, out);
    }
    outcomes
}

/// What a move costs beyond its ground, the same for the movement phase's
/// move and the double-quick move (I.B.3 is a move like any other):
/// V.G.1.iv, a unit caught crossing a ford or going into abatis is in a
/// perilous situation for this turn's fire; IV.C.5–6, the mover through
/// friendly ranks loses a level and a unit it passed through that has not
/// moved gains one; IV.E.1, a failed crossing of water too deep costs a
/// casualty and a level.
pub(crate) fn move_effects(ctx: &mut Ctx<'_>, id: UnitId, out: &MoveOutcome) {
    if out.entered.iter().any(|e| {
        matches!(
            e.terrain,
            crate::rules::iron_brigade::movement::TerrainType::Ford
                | crate::rules::iron_brigade::movement::TerrainType::Area(
                    crate::rules::iron_brigade::kinds::AreaKind::Abatis
                )
        )
    }) {
        ctx.crossing.insert(id);
    }
    // Only a unit that moved went through anyone's ranks (IV.C.5-6): one
    // held where it stood (blocked, or backed off a friend's ground) is not
    // charged, nor are those it would have passed steadied.
    let moved = out.distance > 1e-9;
    if moved && out.mover_morale != 0 {
        change_morale(
            ctx,
            id,
            i32::from(out.mover_morale),
            "moved through other ranks",
        );
    }
    for &t in out.through_ranks_bonus.iter().filter(|_| moved) {
        if !ctx.moved.contains(&t) {
            change_morale(ctx, t, 1, "steady while others passed through its ranks");
        }
    }
    if let Some(f) = out.ford_failure {
        ctx.ford_aborted.insert(id);
        if let Some(m) = ctx.state.unit_mut(id) {
            m.castings = m.castings.saturating_sub(f.casualties);
        }
        let unit = ctx.uref(id);
        ctx.events.push(Event::Casualties {
            unit,
            castings: f.casualties,
            reason: "a failed crossing of water too deep (IV.E.1)".into(),
        });
        change_morale(ctx, id, -i32::from(f.morale_loss), "a failed crossing");
    }
}

fn change_morale(ctx: &mut Ctx<'_>, id: UnitId, delta: i32, reason: &str) {
    let Some(u) = ctx.state.unit(id) else {
        return;
    };
    let from = u.combat_morale;
    let to = crate::rules::iron_brigade::morale::clamp_morale(
        i64::from(from) + i64::from(delta),
        u.base_morale,
    );
    if from == to {
        return;
    }
    if let Some(m) = ctx.state.unit_mut(id) {
        m.combat_morale = to;
    }
    let unit = ctx.uref(id);
    ctx.events.push(Event::MoraleChanged {
        unit,
        from,
        to,
        reason: reason.to_string(),
    });
    if to == 0 {
        ctx.break_unit(id, reason);
    }
    ctx.mark_pinned(id);
}

/// Steps of orders advance (I.C.2 "then", "upon arrival").
fn complete_steps(
    ctx: &mut Ctx<'_>,
    decisions: &BTreeMap<UnitId, Decision>,
    outcomes: &BTreeMap<UnitId, MoveOutcome>,
) {
    for (&id, d) in decisions {
        let Some((idx, order, step, _)) = current_step(&ctx.book, id, ctx.turn) else {
            continue;
        };
        let unit = ctx.uref(id);
        if let Some(r) = &d.reorg {
            ctx.reorganizations.push((id, order, step, r.clone()));
        }
        if d.to_edge && d.intent.is_some() {
            ctx.events.push(Event::OrderNotCarriedOut {
                unit: unit.clone(),
                order,
                step,
                reason:
                    "its destination lies off the table, so it goes only as far as the table edge"
                        .into(),
            });
        }
        if let Some(reason) = &d.held {
            ctx.events.push(Event::OrderNotCarriedOut {
                unit: unit.clone(),
                order,
                step,
                reason: format!("not this turn: {reason}"),
            });
        }
        let last = ctx
            .book
            .units
            .get(&id)
            .and_then(|l| l.get(idx))
            .is_none_or(|b| step + 1 >= b.order.steps.len());
        let done = if let Some(reason) = &d.skip {
            ctx.events.push(Event::OrderNotCarriedOut {
                unit: unit.clone(),
                order,
                step,
                reason: reason.clone(),
            });
            true
        } else {
            match d.completion {
                Completion::Now => true,
                Completion::Never => false,
                Completion::Standing => !last,
                Completion::OnArrival => outcomes
                    .get(&id)
                    .is_some_and(|o| o.stop == StopReason::Arrived),
                Completion::OnContact(t) => {
                    outcomes
                        .get(&id)
                        .is_some_and(|o| o.stop == StopReason::Arrived)
                        || match (ctx.state.unit(id), ctx.state.unit(t)) {
                            (Some(a), Some(b)) => in_contact(a, b),
                            _ => true,
                        }
                }
            }
        };
        if done {
            if let Some(b) = ctx.book.units.get_mut(&id).and_then(|l| l.get_mut(idx)) {
                b.current_step += 1;
            }
            ctx.events.push(Event::StepCompleted { unit, order, step });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::ScriptedDice;
    use crate::rules::iron_brigade::orders::{BookedOrder, Gait, Step, Trigger, UnitOrder};
    use crate::rules::iron_brigade::state::{OfficerId, Pos, Unit};

    fn booked(unit: u32, action: Action) -> BookedOrder {
        BookedOrder {
            order: UnitOrder {
                id: 1,
                unit: UnitId(unit),
                issued_by: OfficerId(1),
                issued_turn: 1,
                follows_previous: false,
                steps: vec![Step {
                    trigger: Trigger::Then,
                    action,
                }],
            },
            effective_turn: 1,
            current_step: 0,
        }
    }

    fn march_in_line(to: Pos) -> Action {
        Action::Move(MoveOrder {
            waypoints: vec![to],
            by_road: false,
            formation: Some(Formation::Line),
            gait: Gait::March,
            fire_while_moving: false,
            backwards: false,
        })
    }

    fn run(unit: Unit, action: Action) -> (BattleState, Vec<Event>) {
        let id = unit.id;
        let state = BattleState {
            turn: 1,
            units: vec![unit],
            ..BattleState::default()
        };
        let mut book = crate::rules::iron_brigade::orders::OrderBook::default();
        book.units.insert(id, vec![booked(id.0, action)]);
        let mut dice = ScriptedDice::new(Vec::<i64>::new()).unwrap();
        let mut ctx = Ctx::new(state, book, &mut dice);
        movement_phase(&mut ctx, &TurnOrders::default()).unwrap();
        (ctx.state, ctx.events)
    }

    /// I.B.4.ii: a regular column told to march in line forms line and
    /// makes a half move (7" / 2) in the same turn.
    #[test]
    fn i_b_4_ii_split_move_forms_line_and_half_moves() {
        let u = Unit::infantry(1, "Regulars", 0, 16, Pos::new(0.0, 0.0), 0.0)
            .with_formation(Formation::Column);
        let (s, _) = run(u, march_in_line(Pos::new(0.0, 20.0)));
        let u = s.unit(UnitId(1)).unwrap();
        assert_eq!(u.formation, Formation::Line);
        assert!((u.position.y - 3.5).abs() < 1e-6, "{:?}", u.position);
    }

    /// I.B.4.ii, VI.F: a poor unit may not split-move, so the formation
    /// change is its whole action this turn.
    #[test]
    fn i_b_4_i_poor_unit_only_changes_formation() {
        let mut u = Unit::infantry(1, "Poor", 0, 16, Pos::new(0.0, 0.0), 0.0)
            .with_formation(Formation::Column);
        u.base_morale = 4;
        u.combat_morale = 4;
        let (s, events) = run(u, march_in_line(Pos::new(0.0, 20.0)));
        let u = s.unit(UnitId(1)).unwrap();
        assert_eq!(u.formation, Formation::Line);
        assert!(u.position.distance(Pos::new(0.0, 0.0)) < 1e-9);
        assert!(!events.iter().any(|e| matches!(e, Event::Moved { .. })));
    }

    /// IV.C.3 and III.I: a destination behind the unit needs a facing
    /// change first; infantry facing about is free (III.I.2), so it makes a
    /// full move.
    #[test]
    fn iii_i_2_infantry_faces_about_and_moves_full() {
        let u = Unit::infantry(1, "Regulars", 0, 16, Pos::new(0.0, 0.0), 0.0);
        let action = Action::Move(MoveOrder {
            waypoints: vec![Pos::new(0.0, -20.0)],
            by_road: false,
            formation: None,
            gait: Gait::March,
            fire_while_moving: false,
            backwards: false,
        });
        let (s, _) = run(u, action);
        let u = s.unit(UnitId(1)).unwrap();
        assert!((u.facing - 180.0).abs() < 1e-6);
        assert!((u.position.y + 7.0).abs() < 1e-6, "{:?}", u.position);
    }
}
