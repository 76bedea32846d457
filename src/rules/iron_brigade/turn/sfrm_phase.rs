//! SFRM correspondence inside the Iron Brigade turn (APSoF I.B with SFRM
//! messengers, docs/rulings-sfrm.md "In the Iron Brigade turn").
//!
//! - In the order phase, after the units' orders, each dispatch written
//!   this turn leaves its writer's general with a new messenger, from where
//!   the general stands at the start of the turn ([`write_dispatches`]).
//! - After all movement and fire, messengers that an enemy unit fired on
//!   this turn are marked (SFRM "Officer Casualties" iii), then
//!   [`crate::rules::sfrm::advance()`] makes the read rolls (SFRM Table 2),
//!   rides every messenger toward where his addressee now stands, rolls
//!   SFRM Table 3 for contact and fire, and delivers ([`ride`]).
//!
//! - After fire, under `sfrm-officer-casualties`, a general alone (with no
//!   friendly unit) whom an enemy unit has newly come into contact with
//!   rolls SFRM Table 3 ([`generals_contacted`], Officer Casualties ii).
//!
//! Every die comes from the turn's [`crate::dice::DiceSource`] with its
//! purpose; with no dispatches and no messengers nothing is rolled and
//! nothing is written, so a battle without correspondence plays exactly as
//! before.

use super::{Ctx, TurnError};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::geometry::{angle_between, bearing, footprint, officer_in_contact};
use crate::rules::iron_brigade::orders::WrittenDispatch;
use crate::rules::iron_brigade::sight::sees_point;
use crate::rules::iron_brigade::state::{OfficerId, OfficerStatus, UnitId};
use crate::rules::iron_brigade::weapons::max_range;
use crate::rules::sfrm::{DispatchError, DispatchEvent, DispatchId, MessengerId, advance};

fn engine_error(e: DispatchError) -> TurnError {
    match e {
        DispatchError::Dice(d) => TurnError::Dice(d),
        other => TurnError::Internal(other.to_string()),
    }
}

/// SFRM: one message per player per turn, originating at his general.
/// A dispatch that cannot go (writer or addressee off the field, a second
/// one from the same general this turn) is not sent, and the writer's side
/// is told why; the turn goes on.
pub(crate) fn write_dispatches(ctx: &mut Ctx<'_>, written: &[WrittenDispatch]) {
    for w in written {
        // `write_dispatch_as` checks everything before it changes anything,
        // so a refusal leaves no trace but its event.
        let mut sfrm = std::mem::take(&mut ctx.state.sfrm);
        let result = sfrm.write_dispatch_as(&ctx.state, DispatchId(w.id), w.from, w.to, &w.text);
        ctx.state.sfrm = sfrm;
        match result {
            Ok((_, events)) => ctx
                .events
                .extend(events.into_iter().map(|sfrm| Event::Sfrm { sfrm })),
            Err(e) => not_sent(ctx, w, e),
        }
    }
}

fn not_sent(ctx: &mut Ctx<'_>, w: &WrittenDispatch, e: DispatchError) {
    let side = ctx
        .state
        .officer(w.from)
        .map(|o| o.side)
        .unwrap_or(crate::rules::iron_brigade::state::SideId(u8::MAX));
    ctx.events.push(Event::Sfrm {
        sfrm: DispatchEvent::NotSent {
            dispatch: DispatchId(w.id),
            from: w.from,
            to: w.to,
            side,
            reason: e.to_string(),
            turn: ctx.turn,
        },
    });
}

/// Messengers an enemy unit fired on this turn: a unit that fired (APSoF
/// V) had the rider in its fire zone (45° either side of its facing, V.C.1),
/// within its weapon's greatest range (XIII) and in its sight (V.C.3). Our
/// ruling: that is SFRM's "fired upon"; the Table 3 roll then decides
/// whether he was hit (6–8 are no effect).
fn fired_upon(ctx: &Ctx<'_>) -> Vec<(MessengerId, crate::rules::iron_brigade::state::SideId)> {
    let mut out = Vec::new();
    for m in ctx.state.sfrm.messengers.values() {
        let hit_by = ctx
            .state
            .enemies_of(m.side)
            .filter(|u| ctx.fired.contains(&u.id) && u.castings > 0)
            .find(|u| {
                let eye = footprint(u).front_centre();
                let range = eye.distance(m.position);
                range <= f64::from(max_range(u.weapon))
                    && angle_between(bearing(u.position, m.position), u.facing) <= 45.0
                    && sees_point(&ctx.index, eye, m.position)
            });
        if let Some(u) = hit_by {
            out.push((m.id, u.side));
        }
    }
    out
}

/// The end of the movement and fire phase for messengers: mark those fired
/// on, then one turn of SFRM correspondence with the officers where they now
/// stand.
pub(crate) fn ride(ctx: &mut Ctx<'_>) -> Result<(), TurnError> {
    if ctx.state.sfrm.is_empty() {
        return Ok(());
    }
    for (m, side) in fired_upon(ctx) {
        ctx.state.sfrm.mark_fired_upon(m, side);
    }
    let scale = ctx.state.scale();
    let (next, events) =
        advance(&ctx.state.sfrm, &ctx.state, scale, &mut *ctx.dice).map_err(engine_error)?;
    ctx.state.sfrm = next;
    ctx.events
        .extend(events.into_iter().map(|sfrm| Event::Sfrm { sfrm }));
    super::orders::book_courier_arrivals(ctx);
    Ok(())
}

/// Every active general in contact with an enemy unit (APSoF officer
/// contact: within 0.5" of its footprint), as (general, enemy unit).
pub(crate) fn enemy_contacts(
    state: &crate::rules::iron_brigade::state::BattleState,
) -> std::collections::BTreeSet<(OfficerId, UnitId)> {
    state
        .officers
        .iter()
        .filter(|o| o.status == OfficerStatus::Active)
        .flat_map(|o| {
            state
                .enemies_of(o.side)
                .filter(|u| u.castings > 0 && officer_in_contact(o.position, u))
                .map(move |u| (o.id, u.id))
        })
        .collect()
}

/// SFRM "Officer Casualties" (ii), scenario option
/// `sfrm-officer-casualties`: a general "not attached to a friendly unit"
/// (in contact with none) and "contacted by the enemy" rolls Table 3 at
/// once. Our rulings (docs/rulings-sfrm.md): checked after movement and fire,
/// when contacts stand; only a contact that did not exist at the start of
/// the turn counts, so a general left standing beside an enemy does not
/// roll every turn; the enemy unit with the lowest id is the one that
/// contacted him. On 2–6 he is taken (Table 3's capture, he has no friends
/// by), on 2, 3, 11, 12 he is removed; either way APSoF V.H.3 replaces him.
pub(crate) fn generals_contacted(ctx: &mut Ctx<'_>) -> Result<(), TurnError> {
    if !ctx.state.options.sfrm_officer_casualties {
        return Ok(());
    }
    let now = enemy_contacts(&ctx.state);
    let mut rolled = std::collections::BTreeSet::new();
    for (oid, enemy) in now {
        if ctx.general_contacts_at_start.contains(&(oid, enemy)) || !rolled.insert(oid) {
            continue;
        }
        let Some(o) = ctx.state.officer(oid) else {
            continue;
        };
        if o.status != OfficerStatus::Active || o.hit_this_turn {
            continue;
        }
        let (side, at, name) = (o.side, o.position, o.name.clone());
        let with_friends = ctx
            .state
            .units_of(side)
            .any(|u| u.castings > 0 && officer_in_contact(at, u));
        if with_friends {
            continue;
        }
        match super::fire::sfrm_casualty(ctx, oid, &name, enemy)? {
            super::fire::SfrmOutcome::Stays => {}
            super::fire::SfrmOutcome::Removed(status) => {
                let (replacement_turn, replacement_rating) =
                    super::fire::remove_general(ctx, oid, status)?;
                let (officer, with_unit) = (ctx.oref(oid), ctx.uref(enemy));
                ctx.events.push(Event::OfficerReplacementDue {
                    officer,
                    with_unit,
                    replacement_turn,
                    replacement_rating,
                });
            }
        }
    }
    Ok(())
}
