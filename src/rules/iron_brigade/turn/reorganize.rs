//! APSoF VII.C reorganizations (optional rule `split-units`): a unit splits
//! off a sub-unit, or joins another unit, "during a formation change".
//!
//! Rulings (docs/rulings.md, "Reorganizations"):
//! - A split or combine is the unit's formation change for the turn: it
//!   neither moves nor fires in the movement and fire phase, and the change
//!   takes effect at the end of that phase, so fire that turn falls on the
//!   units as they stood.
//! - **Split** (VII.C.1): the sub-unit takes the castings split off, the
//!   parent's current combat morale and base morale, its arm, weapon,
//!   formation, facing and commander; it stands at the parent's right
//!   flank. It is a new unit with the next free id and has no orders (so it
//!   holds and fires at will, I.B.4.i.b). Infantry and cavalry only:
//!   batteries are counted by guns and crew, and the text speaks of
//!   regiments. A broken unit does not reorganize.
//! - **Combine** (VII.C.2): the unit joins the named unit, which must be of
//!   its side and arm and in contact with it (footprints within APSoF's
//!   contact gap); the joined unit keeps its name, place and base morale and
//!   takes "the lowest morale of all units recombining" as its combat
//!   morale. The unit that joined leaves the table with no castings, marked
//!   as combined (not destroyed).
//! - **Skirmishers** (VII.E, option `skirmishers`): "independent units that
//!   are split off from parent units" in open order. With that option, a
//!   sub-unit whose name says skirmishers ("split off 4 castings as
//!   skirmishers", "… as the 2nd Wisconsin skirmishers") deploys at once as
//!   a skirmish line (half-rank deep, III.G.3) 2" in front of its parent
//!   instead of at its flank; with only that option (not `split-units`),
//!   only such splits are allowed, and combining only for a skirmish line
//!   rejoining a unit.

use super::{Ctx, TurnError};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::geometry::{facing_vector, formation_size, in_contact};
use crate::rules::iron_brigade::kinds::Formation;
use crate::rules::iron_brigade::state::{Pos, Ranks, UnitId, UnitMarks};

/// Inches between a parent's front and the skirmish line it sends out
/// (our ruling, VII.E gives none: close enough to support, far enough to
/// screen).
pub const SKIRMISH_SCREEN: f64 = 2.0;

/// A reorganization decided in the movement phase, carried out after fire.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reorg {
    Split { castings: u32, new_name: String },
    Combine { with: UnitId },
}

/// Why `unit` may not reorganize as asked now, or `None` when it may
/// (checked when the movement phase decides, on the state as it then is).
pub(crate) fn refusal(ctx: &Ctx<'_>, unit: UnitId, r: &Reorg) -> Option<String> {
    let o = ctx.state.options;
    if !o.advanced_organization && !o.skirmishers {
        return Some(
            "splitting and combining units (APSoF VII.C) is an optional rule this game does not use"
                .into(),
        );
    }
    let u = ctx.state.unit(unit)?;
    if u.broken || u.castings == 0 {
        return Some("a broken unit does not reorganize".into());
    }
    if u.arm.is_artillery() {
        return Some("batteries do not split or combine (our ruling on APSoF VII.C)".into());
    }
    match r {
        Reorg::Split { castings, new_name } => {
            if !o.advanced_organization && !is_skirmish_name(new_name) {
                return Some(format!(
                    "only skirmishers split off in this game (option skirmishers, APSoF VII.E): \
                     write 'split off {castings} castings as skirmishers'"
                ));
            }
            if *castings == 0 || *castings >= u.castings {
                return Some(format!(
                    "it has {} castings and can split off 1 to {}",
                    u.castings,
                    u.castings.saturating_sub(1)
                ));
            }
            let taken = ctx
                .state
                .units
                .iter()
                .any(|o| o.name.trim().eq_ignore_ascii_case(new_name.trim()));
            if new_name.trim().is_empty() || taken {
                return Some(format!(
                    "the name `{new_name}` is already a unit's; give the new unit a name of its own"
                ));
            }
            None
        }
        Reorg::Combine { with } => {
            let Some(w) = ctx.state.unit(*with) else {
                return Some("the unit to combine with is no longer on the field".into());
            };
            if w.side != u.side || w.arm != u.arm {
                Some(format!(
                    "{} is not a unit of the same side and arm; only like units combine",
                    w.name
                ))
            } else if w.castings == 0 || w.broken {
                Some(format!(
                    "{} is broken or gone and cannot take it in",
                    w.name
                ))
            } else if !o.advanced_organization
                && u.formation != Formation::Skirmish
                && w.formation != Formation::Skirmish
            {
                Some(
                    "only skirmishers rejoin a unit in this game (option skirmishers, APSoF VII.E)"
                        .into(),
                )
            } else if !in_contact(u, w) {
                Some(format!(
                    "it is not in contact with {}; bring the two together first",
                    w.name
                ))
            } else {
                None
            }
        }
    }
}

/// Carries out the turn's reorganizations in unit id order, each checked
/// again on the state as fire left it (a unit broken by fire, or its
/// partner, does not reorganize; the order is then reported not carried
/// out).
pub(crate) fn apply(
    ctx: &mut Ctx<'_>,
    reorgs: Vec<(UnitId, u64, usize, Reorg)>,
) -> Result<(), TurnError> {
    for (id, order, step, r) in reorgs {
        if let Some(reason) = refusal(ctx, id, &r) {
            let unit = ctx.uref(id);
            ctx.events.push(Event::OrderNotCarriedOut {
                unit,
                order,
                step,
                reason,
            });
            continue;
        }
        match r {
            Reorg::Split { castings, new_name } => split(ctx, id, castings, new_name.trim()),
            Reorg::Combine { with } => combine(ctx, id, with),
        }
    }
    Ok(())
}

fn split(ctx: &mut Ctx<'_>, id: UnitId, castings: u32, new_name: &str) {
    let Some(parent) = ctx.state.unit(id).cloned() else {
        return;
    };
    let next_id = UnitId(ctx.state.units.iter().map(|u| u.id.0).max().unwrap_or(0) + 1);
    let mut child = parent.clone();
    child.id = next_id;
    child.name = new_name.to_string();
    child.castings = castings;
    child.marks = UnitMarks {
        pinned: parent.marks.pinned,
        been_under_fire: parent.marks.been_under_fire,
        been_under_repeater_fire: parent.marks.been_under_repeater_fire,
        panic_checked: parent.marks.panic_checked.clone(),
        command_lost: parent.marks.command_lost,
        ..UnitMarks::default()
    };
    let mut rest = parent.clone();
    rest.castings = rest.castings.saturating_sub(castings);
    // Where the parent ends up (its centre) once the castings have gone.
    let parent_at = if ctx.state.options.skirmishers && is_skirmish_name(new_name) {
        // VII.E: the detachment goes out as a skirmish line 2" ahead of
        // the parent's front, facing as it does; the parent stays put.
        child.formation = Formation::Skirmish;
        child.formed_ranks = Ranks::Half;
        child.lying_down = false;
        let (_, parent_depth) = formation_size(&parent, parent.formation);
        let (_, child_depth) = formation_size(&child, child.formation);
        let (fx, fy) = facing_vector(parent.facing);
        let ahead = parent_depth / 2.0 + SKIRMISH_SCREEN + child_depth / 2.0;
        child.position = Pos::new(
            parent.position.x + fx * ahead,
            parent.position.y + fy * ahead,
        );
        parent.position
    } else {
        // The sub-unit forms at the parent's right flank, shoulder to
        // shoulder; the parent's left flank stays where it was.
        let (rest_front, _) = formation_size(&rest, rest.formation);
        let (child_front, _) = formation_size(&child, child.formation);
        let (rx, ry) = facing_vector(parent.facing + 90.0);
        let (lx, ly) = facing_vector(parent.facing - 90.0);
        let (pf, _) = formation_size(&parent, parent.formation);
        let left = Pos::new(
            parent.position.x + lx * pf / 2.0,
            parent.position.y + ly * pf / 2.0,
        );
        let rest_centre = Pos::new(
            left.x + rx * rest_front / 2.0,
            left.y + ry * rest_front / 2.0,
        );
        child.position = Pos::new(
            rest_centre.x + rx * (rest_front + child_front) / 2.0,
            rest_centre.y + ry * (rest_front + child_front) / 2.0,
        );
        rest_centre
    };
    if let Some(p) = ctx.state.unit_mut(id) {
        p.castings = rest.castings;
        p.position = parent_at;
    }
    ctx.state.units.push(child);
    let (unit, new_unit) = (ctx.uref(id), ctx.uref(next_id));
    ctx.events.push(Event::SplitOff {
        unit,
        new_unit,
        castings,
    });
}

fn combine(ctx: &mut Ctx<'_>, id: UnitId, with: UnitId) {
    let (Some(u), Some(w)) = (ctx.state.unit(id).cloned(), ctx.state.unit(with).cloned()) else {
        return;
    };
    let morale = u.combat_morale.min(w.combat_morale).min(w.base_morale);
    if let Some(m) = ctx.state.unit_mut(with) {
        m.castings += u.castings;
        m.combat_morale = morale;
        m.marks.pinned = morale == 1;
    }
    if let Some(m) = ctx.state.unit_mut(id) {
        m.castings = 0;
        m.marks.combined_into = Some(with);
    }
    let (unit, into) = (ctx.uref(id), ctx.uref(with));
    ctx.events.push(Event::Combined {
        unit,
        into,
        castings: u.castings,
        morale,
    });
}

/// A detachment named as skirmishers goes out as a skirmish line (VII.E);
/// the order parser asks the same question.
pub fn is_skirmish_name(name: &str) -> bool {
    name.to_ascii_lowercase().contains("skirmish")
}
