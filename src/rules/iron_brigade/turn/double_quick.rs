//! The double-quick phase (APSoF I.B.3, VI.D.4): units whose active order
//! is a move or charge at the double, with combat morale 4, 5 or 6, move a
//! full move, then roll for the morale it costs them.
//!
//! Ruling: the double-quick move is extra to the unit's action in the
//! movement and fire phase, which still follows its order — double time is
//! two moves in the turn, paid for in morale. The move is cross-country in
//! the unit's present formation and facing (formation and facing changes
//! belong to the movement and fire phase). All double-quick moves are
//! planned from the same state, then applied. The move is planned and paid
//! for as the movement phase's move is (`movement::move_effects`): moving
//! through friendly ranks (IV.C.5–6), fords (IV.E.1) and the perilous
//! crossing of a ford or abatis (V.G.1.iv).
//!
//! APSoF VIII.B (optional rule): foot ("mounted") artillery may double
//! quick only once its crews ride the limbers and caissons, a formation
//! change. Ruling (docs/rulings.md): a foot battery ordered to the double
//! makes that change in this phase instead of the double-quick move (no
//! morale roll), and doubles from the next turn; the crews stay mounted
//! when the battery unlimbers ("it is not necessary to undo this formation
//! change"). Horse artillery doubles as cavalry does.

use super::{Ctx, TurnError, current_step};
use crate::dice::{RollKind, RollPurpose};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::geometry::footprint;
use crate::rules::iron_brigade::kinds::Arm;
use crate::rules::iron_brigade::morale::{double_quick_loss, may_double_quick};
use crate::rules::iron_brigade::movement::{MoveIntent, Pace, StopReason, plan_move};
use crate::rules::iron_brigade::orders::{Action, Gait};
use crate::rules::iron_brigade::state::UnitId;

pub(crate) fn double_quick_phase(ctx: &mut Ctx<'_>) -> Result<(), TurnError> {
    let start = ctx.state.clone();
    let mut planned = Vec::new();
    for id in ctx.unit_ids() {
        let Some(u) = ctx.state.unit(id) else {
            continue;
        };
        if u.castings == 0 || u.broken || ctx.no_move.contains(&id) {
            continue;
        }
        let Some((idx, order, step, action)) = current_step(&ctx.book, id, ctx.turn) else {
            continue;
        };
        let (intent, charge) = match &action {
            Action::Move(m) | Action::Retreat(m) if m.gait == Gait::DoubleQuick => (
                MoveIntent {
                    waypoints: super::movement::on_table(ctx, &m.waypoints),
                    by_road: m.by_road,
                    pace: Pace::Full,
                    backwards: m.backwards,
                },
                None,
            ),
            Action::Charge {
                target,
                to,
                gait: Gait::DoubleQuick,
            } => {
                let goal = target
                    .and_then(|t| ctx.state.unit(t))
                    .map(|t| footprint(t).nearest_point(u.position))
                    .or(*to);
                match goal {
                    Some(g) => (MoveIntent::to(g), *target),
                    None => continue,
                }
            }
            _ => continue,
        };
        if u.marks.pinned && !matches!(action, Action::Retreat(_)) {
            continue;
        }
        if ctx.state.options.horse_vs_mounted_artillery
            && u.arm == Arm::Artillery
            && !u.marks.crews_mounted
        {
            if let Some(m) = ctx.state.unit_mut(id) {
                m.marks.crews_mounted = true;
            }
            let unit = ctx.uref(id);
            ctx.events.push(Event::CrewsMounted { unit });
            continue;
        }
        if !may_double_quick(u.combat_morale) || !(4..=6).contains(&u.base_morale) {
            let unit = ctx.uref(id);
            ctx.events.push(Event::DoubleQuickRefused {
                unit,
                morale: u.combat_morale,
            });
            continue;
        }
        if let Ok(out) = plan_move(&start, id, &intent) {
            planned.push((id, idx, order, step, out, charge));
        }
    }
    for (id, idx, order, step, out, charge) in planned {
        let Some(u) = ctx.state.unit(id) else {
            continue;
        };
        let (from, base, name) = (u.position, u.base_morale, u.name.clone());
        if let Some(m) = ctx.state.unit_mut(id) {
            m.position = out.end;
            m.facing = out.facing;
        }
        if out.distance > 1e-9 {
            ctx.moved.insert(id);
        }
        let roll = ctx
            .dice
            .d6(&RollPurpose::new(RollKind::DoubleQuick, name))?;
        let lost = double_quick_loss(base, roll)?;
        let unit = ctx.uref(id);
        ctx.events.push(Event::DoubleQuick {
            unit: unit.clone(),
            from,
            to: out.end,
            roll,
            morale_lost: lost,
            base_morale: base,
        });
        ctx.lose_morale(id, u32::from(lost), "exhausted by double quick");
        // IV.C.5–6, IV.E.1, V.G.1.iv: the same as the movement phase's move.
        super::movement::move_effects(ctx, id, &out);
        let arrived =
            out.stop == StopReason::Arrived || charge.is_some_and(|t| contact(ctx, id, t));
        if arrived {
            if let Some(b) = ctx.book.units.get_mut(&id).and_then(|l| l.get_mut(idx)) {
                b.current_step += 1;
            }
            ctx.events.push(Event::StepCompleted { unit, order, step });
        }
    }
    Ok(())
}

fn contact(ctx: &Ctx<'_>, a: UnitId, b: UnitId) -> bool {
    match (ctx.state.unit(a), ctx.state.unit(b)) {
        (Some(a), Some(b)) => crate::rules::iron_brigade::geometry::in_contact(a, b),
        _ => false,
    }
}
