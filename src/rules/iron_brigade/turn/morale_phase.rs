//! The morale phase (APSoF I.B.2): contact checks (VI.D.3), rally (VI.E),
//! retreat of broken units (VI.C), then panic checks of friends in sight of
//! the units that retreated (VI.D.2).

use super::{Ctx, TurnError};
use crate::dice::{RollKind, RollPurpose};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::geometry::{
    bearing, facing_vector, in_contact, officer_in_contact,
};
use crate::rules::iron_brigade::kinds::{Formation, OfficerRating};
use crate::rules::iron_brigade::morale::{
    self, RallyOfficer, contact_dice, panic_check, panic_dice, roll_rally, saving_dice,
};
use crate::rules::iron_brigade::movement::{MoveIntent, StopReason, plan_move};
use crate::rules::iron_brigade::sight::{Activity, Observer, can_see};
use crate::rules::iron_brigade::state::{OfficerStatus, Pos, UnitId};
use std::collections::BTreeSet;

/// How far a broken unit is sent: further than any move, so the move
/// allowance (open order, VI.C.1) is what stops it.
const RETREAT_REACH: f64 = 40.0;
/// A broken unit that cannot get this far away has no path of retreat
/// (VI.C.2, our ruling: a quarter of an inch is no retreat at all).
const NO_PATH: f64 = 0.25;

pub(crate) fn morale_phase(ctx: &mut Ctx<'_>) -> Result<(), TurnError> {
    contact_checks(ctx)?;
    rally(ctx)?;
    let retreated = retreat(ctx);
    panic_checks(ctx, &retreated)?;
    Ok(())
}

/// APSoF VI.D.3: each pair of enemy units in contact rolls a die per 4
/// castings engaged; the lower total loses ⌊difference / 3⌋ levels.
/// Ruling: all castings in the firing line of each unit count as engaged
/// (the text counts those touching and the files behind them; our units are
/// blocks, so the whole block is behind its front).
pub(crate) fn contact_checks(ctx: &mut Ctx<'_>) -> Result<(), TurnError> {
    let mut units: Vec<&crate::rules::iron_brigade::state::Unit> = ctx.state.units.iter().collect();
    units.sort_by_key(|u| u.id);
    let mut pairs = Vec::new();
    for (i, &ua) in units.iter().enumerate() {
        for &ub in units.iter().skip(i + 1) {
            let (a, b) = (ua.id, ub.id);
            if ua.side == ub.side || ua.castings == 0 || ub.castings == 0 {
                continue;
            }
            // Cheap rejection before the exact distance: no unit is 40" long.
            let far = (ua.position.x - ub.position.x).abs() > 40.0
                || (ua.position.y - ub.position.y).abs() > 40.0;
            if far || ua.position.distance(ub.position) > 40.0 || !in_contact(ua, ub) {
                continue;
            }
            pairs.push((a, b));
        }
    }
    for (a, b) in pairs {
        let (Some(ua), Some(ub)) = (ctx.state.unit(a), ctx.state.unit(b)) else {
            continue;
        };
        let (ca, cb) = (ua.castings_in_line(), ub.castings_in_line());
        let (ra, rb) = (ctx.uref(a), ctx.uref(b));
        let (dice_a, ta) = contact_dice(ca).roll(
            &mut *ctx.dice,
            &RollPurpose::new(RollKind::Contact, ra.name.clone()),
        )?;
        let (dice_b, tb) = contact_dice(cb).roll(
            &mut *ctx.dice,
            &RollPurpose::new(RollKind::Contact, rb.name.clone()),
        )?;
        let out = morale::contact(ta, tb);
        let loser = out.loser.map(|s| match s {
            morale::Side::A => a,
            morale::Side::B => b,
        });
        ctx.events.push(Event::Contact {
            a: ra,
            b: rb,
            total_a: ta,
            total_b: tb,
            loser: loser.map(|l| ctx.uref(l)),
            morale_lost: out.morale_loss,
            castings_a: ca,
            castings_b: cb,
            dice_a,
            dice_b,
        });
        if let Some(l) = loser {
            ctx.lose_morale(l, out.morale_loss, "lost the contact");
        }
    }
    Ok(())
}

fn rating_rank(r: OfficerRating) -> u8 {
    match r {
        OfficerRating::Hero => 5,
        OfficerRating::Good => 4,
        OfficerRating::Normal => 3,
        OfficerRating::Poor => 2,
        OfficerRating::Bad => 1,
    }
}

/// APSoF VI.E: every unit below its base morale rolls to rally, with the
/// best officer in contact (VI.E.2.ii; "not cumulative"). An officer hit
/// with the unit in the last fire phase turns his modifier into a deduction
/// (our ruling: the shock of his fall replaces any other officer's help for
/// that one rally). A unit rallying from 0 may not move this turn
/// (VI.E.2.iv), nor a pinned unit rallying to 2 (VI.C.6). Once a broken unit
/// rallies, friends that checked for it may check again if it breaks again.
/// A legion whose sections are all in contact keeps one morale level (APSoF
/// VII.F): its first section rolls, and the others take the result.
pub(crate) fn rally(ctx: &mut Ctx<'_>) -> Result<(), TurnError> {
    for id in ctx.unit_ids() {
        let Some(u) = ctx.state.unit(id) else {
            continue;
        };
        if u.castings == 0 || u.combat_morale >= u.base_morale {
            continue;
        }
        let partners = ctx.legion_partners(id);
        if partners.iter().any(|p| *p < id) {
            continue;
        }
        // VII.G: a poor unit without its regimental command has a rally
        // rating of 0 and does not rally.
        if u.marks
            .command_lost
            .is_some_and(|b| !super::super::morale::rallies_after_command_loss(b))
        {
            continue;
        }
        let best = ctx
            .state
            .officers_of(u.side)
            .filter(|o| o.status == OfficerStatus::Active && officer_in_contact(o.position, u))
            .max_by(|a, b| {
                rating_rank(a.rating)
                    .cmp(&rating_rank(b.rating))
                    .then(b.id.cmp(&a.id))
            })
            .map(|o| (o.id, o.rating));
        let (officer, officer_ref, was_hit) = match u.marks.officer_hit_with {
            Some(r) => (
                Some(RallyOfficer {
                    rating: r,
                    hit: true,
                }),
                None,
                true,
            ),
            None => (
                best.map(|(_, r)| RallyOfficer {
                    rating: r,
                    hit: false,
                }),
                best.map(|(o, _)| o),
                false,
            ),
        };
        let (name, base, current) = (u.name.clone(), u.base_morale, u.combat_morale);
        let out = roll_rally(&mut *ctx.dice, &name, base, current, officer)?;
        let unit = ctx.uref(id);
        ctx.events.push(Event::RallyAttempt {
            unit,
            die: out.die,
            modified_roll: out.modified_roll,
            officer: officer_ref.map(|o| ctx.oref(o)),
            officer_was_hit: was_hit,
            from: current,
            to: out.new_morale,
            base_modifier: out.base_modifier,
            officer_modifier: out.officer_modifier,
            bad_officer_die: out.bad_officer_die,
        });
        if (current == 0 && out.new_morale > 0) || (current == 1 && out.new_morale >= 2) {
            ctx.no_move.insert(id);
        }
        if let Some(u) = ctx.state.unit_mut(id) {
            u.combat_morale = out.new_morale;
            u.marks.officer_hit_with = None;
            if out.new_morale > 0 {
                u.broken = false;
                u.retreating = false;
            }
        }
        ctx.mark_pinned(id);
        if current == 0 && out.new_morale > 0 {
            for other in &mut ctx.state.units {
                other.marks.panic_checked.retain(|&b| b != id);
            }
        }
        // VII.F: the legion's other sections share the rally.
        for p in partners {
            let Some(m) = ctx.state.unit_mut(p) else {
                continue;
            };
            let from = m.combat_morale;
            let to = out.new_morale.min(m.base_morale);
            if from == to {
                continue;
            }
            m.combat_morale = to;
            if to > 0 {
                m.broken = false;
                m.retreating = false;
            }
            if (from == 0 && to > 0) || (from == 1 && to >= 2) {
                ctx.no_move.insert(p);
            }
            let unit = ctx.uref(p);
            ctx.events.push(Event::MoraleChanged {
                unit,
                from,
                to,
                reason: "rallies with its legion (APSoF VII.F)".into(),
            });
            ctx.mark_pinned(p);
        }
    }
    Ok(())
}

/// APSoF VI.C: broken units retreat a full move as open order (VI.C.1),
/// straight away from the nearest enemy (our reading of "away from the
/// units that caused the loss": the nearest enemy is the one pressing it).
/// A battery retreats limbered (VI.C.5, our ruling: the teams are hitched
/// as the crew runs). A unit that cannot get away surrenders (VI.C.2).
/// Retreats are worked out one by one in id order.
pub(crate) fn retreat(ctx: &mut Ctx<'_>) -> Vec<UnitId> {
    let mut retreated = Vec::new();
    for id in ctx.unit_ids() {
        let Some(u) = ctx.state.unit(id) else {
            continue;
        };
        if !u.broken || u.castings == 0 {
            continue;
        }
        let Some((enemy, _)) = ctx.nearest_enemy(id) else {
            continue;
        };
        let Some(e) = ctx.state.unit(enemy) else {
            continue;
        };
        let away = bearing(e.position, u.position);
        let from = u.position;
        let (dx, dy) = facing_vector(away);
        let goal = Pos::new(from.x + dx * RETREAT_REACH, from.y + dy * RETREAT_REACH);
        // The table edge: a retreat that reaches it leaves the field.
        let exit = ctx.state.table.and_then(|t| t.exit_point(from, goal));
        let goal = exit.unwrap_or(goal);
        if let Some(u) = ctx.state.unit_mut(id) {
            u.facing = away;
            u.lying_down = false;
            u.retreating = true;
            if u.formation == Formation::Unlimbered {
                u.formation = Formation::Limbered;
            }
        }
        let outcome = plan_move(&ctx.state, id, &MoveIntent::to(goal));
        let unit = ctx.uref(id);
        let stuck = match &outcome {
            Ok(o) => {
                o.distance < NO_PATH
                    && !matches!(o.stop, StopReason::Arrived | StopReason::AllowanceUsed)
            }
            Err(_) => true,
        };
        if stuck {
            let castings = ctx.state.unit(id).map_or(0, |u| u.castings);
            if let Some(u) = ctx.state.unit_mut(id) {
                u.castings = 0;
                u.retreating = false;
            }
            ctx.events.push(Event::Surrendered { unit, castings });
            continue;
        }
        if let Ok(o) = outcome {
            if let Some(at) = exit.filter(|_| o.stop == StopReason::Arrived) {
                let castings = ctx.state.unit(id).map_or(0, |u| u.castings);
                if let Some(u) = ctx.state.unit_mut(id) {
                    u.position = at;
                    u.castings = 0;
                    u.retreating = false;
                    u.marks.left_field = true;
                }
                ctx.moved.insert(id);
                ctx.events.push(Event::LeftTheField { unit, castings, at });
                continue;
            }
            if let Some(u) = ctx.state.unit_mut(id) {
                u.position = o.end;
            }
            ctx.moved.insert(id);
            let away_from = Some(ctx.uref(enemy));
            ctx.events.push(Event::Retreated {
                unit,
                from,
                to: o.end,
                away_from,
            });
            retreated.push(id);
        }
    }
    retreated
}

/// APSoF VI.D.2: friends in sight of a unit that retreated this phase check
/// once per broken unit. The broken unit rolls its panic dice once; each
/// checking unit rolls its saving dice. Units at 0 are exempt, and so is a
/// broken unit of under 4 castings (2 crew).
pub(crate) fn panic_checks(ctx: &mut Ctx<'_>, retreated: &[UnitId]) -> Result<(), TurnError> {
    let fired = BTreeSet::new();
    for &b in retreated {
        let Some(bu) = ctx.state.unit(b) else {
            continue;
        };
        let Some(count) = panic_dice(bu.arm, bu.castings) else {
            continue;
        };
        let side = bu.side;
        let moved: BTreeSet<UnitId> = [b].into_iter().collect();
        let activity = Activity {
            fired: &fired,
            moved: &moved,
        };
        let mut checkers = Vec::new();
        for c in ctx.unit_ids() {
            let Some(cu) = ctx.state.unit(c) else {
                continue;
            };
            if c == b
                || cu.side != side
                || cu.castings == 0
                || cu.combat_morale == 0
                || cu.marks.panic_checked.contains(&b)
            {
                continue;
            }
            if can_see(&ctx.state, &ctx.index, Observer::Unit(c), b, &activity)? {
                checkers.push(c);
            }
        }
        if checkers.is_empty() {
            continue;
        }
        let broken = ctx.uref(b);
        let panic_roll = ctx.dice.roll_many(
            count as usize,
            &RollPurpose::new(RollKind::Panic, broken.name.clone()).with_note("panic"),
        )?;
        let panic_sum: u32 = panic_roll.iter().map(|&d| u32::from(d)).sum();
        for c in checkers {
            let Some(cu) = ctx.state.unit(c) else {
                continue;
            };
            let n = saving_dice(cu.arm, cu.castings) as usize;
            let name = cu.name.clone();
            let save = ctx.dice.roll_many(
                n,
                &RollPurpose::new(RollKind::Panic, name).with_note("saving"),
            )?;
            let save_sum: u32 = save.iter().map(|&d| u32::from(d)).sum();
            let out = panic_check(panic_sum, save_sum);
            if let Some(cu) = ctx.state.unit_mut(c) {
                cu.marks.panic_checked.push(b);
            }
            ctx.events.push(Event::Panic {
                unit: ctx.uref(c),
                broken: broken.clone(),
                panic: out.panic,
                saving: out.saving,
                morale_lost: out.morale_loss,
                panic_dice: panic_roll.clone(),
                saving_dice: save,
            });
            ctx.lose_morale(c, out.morale_loss, "panic at a friend breaking");
        }
    }
    Ok(())
}
