//! Work on obstacles, counted after fire (APSoF VIII.D: "1 casting may
//! clear a path 1/2" wide in 2 turns"; VIII.E: "Filling in a ditch takes 2
//! turns for 1 casting per 1/2" of front").
//!
//! A turn counts when the unit spent it wholly at the work: it was told to
//! work in the movement phase ([`super::movement`]) and, once the turn's
//! fire is over, it has neither moved nor fired, is not broken and not
//! pinned (VI.C.6: a pinned unit lies down or falls back to cover). Two
//! such turns in a row open the strip [`work_site`] gives, with the
//! castings the unit has then. A turn without work drops what was done
//! (the text knows no half-cleared path; docs/rulings.md).

use super::{Ctx, current_step};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::kinds::{Obstacle, PontoonTask};
use crate::rules::iron_brigade::obstacles::{WORK_TURNS, work_site};
use crate::rules::iron_brigade::orders::Action;
use crate::rules::iron_brigade::state::{Clearing, ObstacleWork, PontoonWork, UnitId};

/// Count this turn's work on obstacles; open the paths and filled
/// stretches whose two turns are done; drop the work of units that did
/// something else.
pub(crate) fn obstacle_work(ctx: &mut Ctx<'_>) {
    let working = std::mem::take(&mut ctx.working);
    for id in ctx.unit_ids() {
        let Some(u) = ctx.state.unit(id) else {
            continue;
        };
        let before = u.marks.obstacle_work;
        let why_not = if u.castings == 0 {
            Some("it has no men left")
        } else if u.broken {
            Some("it broke")
        } else if u.marks.pinned {
            Some("it is pinned (VI.C.6)")
        } else if ctx.moved.contains(&id) {
            Some("it moved")
        } else if ctx.fired.contains(&id) {
            Some("it fired")
        } else {
            None
        };
        let Some(&obstacle) = working.get(&id) else {
            if let Some(w) = before {
                stop(
                    ctx,
                    id,
                    w.obstacle,
                    why_not.unwrap_or("it had other orders"),
                );
            }
            continue;
        };
        if let Some(reason) = why_not {
            stop(ctx, id, obstacle, reason);
            continue;
        }
        let turns = match before {
            Some(w) if w.obstacle == obstacle => w.turns.saturating_add(1),
            _ => 1,
        };
        let unit = ctx.uref(id);
        let site = work_site(&ctx.state, u, obstacle);
        let site = match site {
            Ok(s) => s,
            Err(why) => {
                stop(ctx, id, obstacle, &why);
                continue;
            }
        };
        if turns < WORK_TURNS {
            if let Some(m) = ctx.state.unit_mut(id) {
                m.marks.obstacle_work = Some(ObstacleWork { obstacle, turns });
            }
            ctx.events.push(Event::ObstacleWork {
                unit,
                obstacle,
                feature: site.feature,
                turns,
                of: WORK_TURNS,
            });
            continue;
        }
        if let Some(m) = ctx.state.unit_mut(id) {
            m.marks.obstacle_work = None;
        }
        let side = unit.side;
        ctx.state.terrain.cleared.push(Clearing {
            obstacle,
            feature: site.feature.clone(),
            side,
            by: unit.name.clone(),
            turn: ctx.turn,
            width: site.width,
            outline: site.outline,
        });
        ctx.events.push(Event::ObstacleCleared {
            unit: unit.clone(),
            obstacle,
            feature: site.feature,
            width: site.width,
        });
        // The order's step is done (I.C.2 "then": the next step follows).
        if let Some((idx, order, step, Action::ClearObstacle { .. })) =
            current_step(&ctx.book, id, ctx.turn)
        {
            if let Some(b) = ctx.book.units.get_mut(&id).and_then(|l| l.get_mut(idx)) {
                b.current_step += 1;
            }
            ctx.events.push(Event::StepCompleted { unit, order, step });
        }
    }
}

fn stop(ctx: &mut Ctx<'_>, id: UnitId, obstacle: Obstacle, reason: &str) {
    if let Some(m) = ctx.state.unit_mut(id) {
        m.marks.obstacle_work = None;
    }
    let unit = ctx.uref(id);
    ctx.events.push(Event::ObstacleWorkStopped {
        unit,
        obstacle,
        reason: reason.to_string(),
    });
}

/// Count this turn's work with pontoon boats (APSoF IV.E.2): unloading
/// them from their wagons ("four turns to unload"), and crossing in them
/// ([`crate::rules::iron_brigade::pontoons::crossing_turns`]). A turn counts
/// as for work on obstacles: the unit neither moved nor fired, and is not
/// broken or pinned; a turn without it drops what was done (the men go back
/// to the bank, the boats with them). When the last turn is done the boats
/// are afloat, or the unit stands on the far bank with the boats beside it;
/// a landing that would put it on another unit's ground stops short toward
/// the water, or, with no room even at the bank, waits in the boats and
/// tries again next turn ([`clear_landing`]; docs/rulings.md).
pub(crate) fn pontoon_work(ctx: &mut Ctx<'_>) {
    use crate::rules::iron_brigade::pontoons::{
        Landing, UNLOAD_TURNS, boats_at, clear_landing, crossing_turns, launch_point, trips,
    };
    let working = std::mem::take(&mut ctx.pontoon_working);
    // Units already at it keep their boats before a newcomer takes them.
    let mut ids = ctx.unit_ids();
    ids.sort_by_key(|id| {
        let done = ctx
            .state
            .unit(*id)
            .and_then(|u| u.marks.pontoon_work.as_ref())
            .map_or(0, |w| w.turns);
        (std::cmp::Reverse(done), *id)
    });
    let mut boats_in_use: Vec<String> = Vec::new();
    for id in ids {
        let Some(u) = ctx.state.unit(id) else {
            continue;
        };
        let before = u.marks.pontoon_work.clone();
        let why_not = if u.castings == 0 {
            Some("it has no men left".to_string())
        } else if u.broken {
            Some("it broke".into())
        } else if u.marks.pinned {
            Some("it is pinned (VI.C.6)".into())
        } else if ctx.moved.contains(&id) {
            Some("it moved".into())
        } else if ctx.fired.contains(&id) {
            Some("it fired".into())
        } else {
            None
        };
        let Some(&task) = working.get(&id) else {
            if let Some(w) = before {
                let reason = why_not.unwrap_or_else(|| "it had other orders".into());
                stop_pontoons(ctx, id, w.task, &reason);
            }
            continue;
        };
        if let Some(reason) = why_not {
            stop_pontoons(ctx, id, task, &reason);
            continue;
        }
        let i = match boats_at(&ctx.state, u) {
            Ok(i) => i,
            Err(why) => {
                stop_pontoons(ctx, id, task, &why);
                continue;
            }
        };
        let Some(p) = ctx.state.terrain.pontoons.get(i).cloned() else {
            continue;
        };
        if task == PontoonTask::Cross && boats_in_use.contains(&p.name) {
            stop_pontoons(
                ctx,
                id,
                task,
                &format!("{} are carrying another unit", p.name),
            );
            continue;
        }
        boats_in_use.push(p.name.clone());
        let turns = match &before {
            Some(w) if w.task == task && w.pontoons == p.name => w.turns.saturating_add(1),
            _ => 1,
        };
        let of = match task {
            PontoonTask::Unload => UNLOAD_TURNS,
            PontoonTask::Cross => crossing_turns(&p, u.castings),
        };
        let unit = ctx.uref(id);
        if turns < of {
            if let Some(m) = ctx.state.unit_mut(id) {
                m.marks.pontoon_work = Some(PontoonWork {
                    task,
                    pontoons: p.name.clone(),
                    turns,
                });
            }
            ctx.events.push(Event::PontoonWork {
                unit,
                task,
                pontoons: p.name.clone(),
                turns,
                of,
            });
            continue;
        }
        match task {
            PontoonTask::Unload => {
                // Off a train's wagons at the bank where it stands.
                let at = match launch_point(&ctx.state, &p) {
                    Ok(at) => at,
                    Err(why) => {
                        stop_pontoons(ctx, id, task, &why);
                        continue;
                    }
                };
                if let Some(b) = ctx.state.terrain.pontoons.get_mut(i) {
                    b.afloat = true;
                    b.position = at;
                }
                ctx.events.push(Event::PontoonsAfloat {
                    unit: unit.clone(),
                    pontoons: p.name.clone(),
                    boats: p.boats,
                });
            }
            PontoonTask::Cross => {
                let (centre, facing, boats) = match clear_landing(&ctx.state, u, &p) {
                    Landing::Clear {
                        centre,
                        facing,
                        boats,
                        short_of,
                    } => {
                        if let Some(by) = short_of {
                            let by = ctx.uref(by);
                            ctx.events.push(Event::PontoonLandingBlocked {
                                unit: unit.clone(),
                                by,
                                at: Some(centre),
                            });
                        }
                        (centre, facing, boats)
                    }
                    Landing::Blocked { by } => {
                        // All the legs are rowed; the last load waits in
                        // the boats and tries again next turn.
                        if let Some(m) = ctx.state.unit_mut(id) {
                            m.marks.pontoon_work = Some(PontoonWork {
                                task,
                                pontoons: p.name.clone(),
                                turns: of,
                            });
                        }
                        let by = ctx.uref(by);
                        ctx.events
                            .push(Event::PontoonLandingBlocked { unit, by, at: None });
                        continue;
                    }
                };
                let n = trips(&p, u.castings);
                if let Some(m) = ctx.state.unit_mut(id) {
                    m.position = centre;
                    m.facing = facing;
                }
                if let Some(b) = ctx.state.terrain.pontoons.get_mut(i) {
                    b.position = boats;
                }
                ctx.events.push(Event::CrossedByPontoon {
                    unit: unit.clone(),
                    stream: p.stream.clone(),
                    trips: n,
                    turns: of,
                    to: centre,
                });
            }
        }
        if let Some(m) = ctx.state.unit_mut(id) {
            m.marks.pontoon_work = None;
        }
        // The order's step is done (I.C.2 "then": the next step follows).
        if let Some((idx, order, step, Action::Pontoons { .. })) =
            current_step(&ctx.book, id, ctx.turn)
        {
            if let Some(b) = ctx.book.units.get_mut(&id).and_then(|l| l.get_mut(idx)) {
                b.current_step += 1;
            }
            ctx.events.push(Event::StepCompleted { unit, order, step });
        }
    }
}

fn stop_pontoons(ctx: &mut Ctx<'_>, id: UnitId, task: PontoonTask, reason: &str) {
    if let Some(m) = ctx.state.unit_mut(id) {
        m.marks.pontoon_work = None;
    }
    let unit = ctx.uref(id);
    ctx.events.push(Event::PontoonWorkStopped {
        unit,
        task,
        reason: reason.to_string(),
    });
}
