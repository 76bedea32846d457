//! One turn of SFRM correspondence: read rolls, then every messenger rides,
//! may meet the enemy, and may arrive.
//!
//! Call it once a turn after the battle's movement (and after marking any
//! messengers fired on), with `battle.turn` the turn just played and the
//! officers where they now stand.

use super::events::DispatchEvent;
use super::scale::{DELIVERY_RADIUS, Scale};
use super::state::{
    Capture, CourierStatus, Destination, DispatchError, DispatchState, DispatchStatus, Holder,
    Messenger, MessengerId,
};
use super::table3::{roll_2d6_dice, table3};
use crate::dice::{DiceSource, RollKind, RollPurpose};
use crate::rules::iron_brigade::geometry::{footprint, officer_in_contact};
use crate::rules::iron_brigade::kinds::OfficerLevel;
use crate::rules::iron_brigade::state::{
    BattleState, Officer, OfficerId, OfficerStatus, Pos, SideId, Unit, UnitId,
};

/// Messengers' rides are checked for contact every this many table inches.
pub const RIDE_STEP: f64 = 0.25;

/// Advance all correspondence by one turn. Pure: the new state and what
/// happened come back; only `dice` is consumed.
///
/// Order within the turn: first every dispatch held unread since an earlier
/// turn gets its read roll (SFRM: each message "previously received"), then
/// messengers act in id order.
pub fn advance(
    state: &DispatchState,
    battle: &BattleState,
    scale: Scale,
    dice: &mut dyn DiceSource,
) -> Result<(DispatchState, Vec<DispatchEvent>), DispatchError> {
    let mut s = state.clone();
    let mut events = Vec::new();
    read_rolls(&mut s, battle, scale, dice, &mut events)?;
    let ids: Vec<MessengerId> = s.messengers.keys().copied().collect();
    for id in ids {
        ride(&mut s, battle, scale, id, dice, &mut events)?;
    }
    s.fired_upon.clear();
    Ok((s, events))
}

/// SFRM "Discussions…": a general reads each message he holds on a d6 equal
/// to or under his command ability (Table 2, less Table 3 penalties), once
/// an SFRM turn (30 minutes, [`Scale::turns_per_sfrm_turn`] table turns):
/// first when a whole SFRM turn has passed since delivery, then every SFRM
/// turn after. An officer off the field makes no roll; his papers wait.
fn read_rolls(
    s: &mut DispatchState,
    battle: &BattleState,
    scale: Scale,
    dice: &mut dyn DiceSource,
    events: &mut Vec<DispatchEvent>,
) -> Result<(), DispatchError> {
    let turn = battle.turn;
    let every = scale.turns_per_sfrm_turn();
    let mut rolls = Vec::new();
    for d in s.dispatches.values() {
        let (DispatchStatus::Delivered { turn: got }, Holder::Officer(o)) = (d.status, d.holder)
        else {
            continue;
        };
        if got >= turn || !(turn - got).is_multiple_of(every) {
            continue;
        }
        let Some(officer) = battle.officer(o) else {
            continue;
        };
        if officer.status != OfficerStatus::Active {
            continue;
        }
        rolls.push((d.id, officer.clone()));
    }
    for (id, officer) in rolls {
        let ability = s.stats(&officer).command_ability;
        let purpose = RollPurpose::new(RollKind::SfrmRead, officer.name.clone())
            .with_note(format!("SFRM read roll, dispatch {}", id.0));
        let roll = dice.d6(&purpose)?;
        let Some(d) = s.dispatches.get_mut(&id) else {
            continue;
        };
        if roll <= ability {
            d.status = DispatchStatus::Read { turn };
            events.push(DispatchEvent::Read {
                dispatch: id,
                by: officer.id,
                side: officer.side,
                roll,
                ability,
                text: d.text.clone(),
                turn,
            });
        } else {
            events.push(DispatchEvent::NotRead {
                dispatch: id,
                by: officer.id,
                side: officer.side,
                roll,
                ability,
                turn,
            });
        }
    }
    Ok(())
}

fn level_rank(level: OfficerLevel) -> u8 {
    match level {
        OfficerLevel::Army => 3,
        OfficerLevel::Corps => 2,
        OfficerLevel::Division => 1,
        OfficerLevel::Brigade => 0,
    }
}

/// The officer a messenger for `wanted` should ride to: him if he is still
/// on the field, else the first active officer up his chain, else the
/// highest-ranking active officer of the messenger's side (lowest id on a
/// tie). Our ruling: SFRM's promotions put the next man up in charge, and
/// a rider asks for "whoever commands now".
fn recipient(battle: &BattleState, wanted: OfficerId, side: SideId) -> Option<&Officer> {
    let mut seen = Vec::new();
    let mut next = Some(wanted);
    while let Some(id) = next {
        if seen.contains(&id) {
            break;
        }
        seen.push(id);
        let Some(o) = battle.officer(id) else { break };
        if o.status == OfficerStatus::Active && o.side == side {
            return Some(o);
        }
        next = o.superior;
    }
    battle
        .officers_of(side)
        .filter(|o| o.status == OfficerStatus::Active)
        .max_by(|a, b| {
            level_rank(a.level)
                .cmp(&level_rank(b.level))
                .then(b.id.cmp(&a.id))
        })
}

/// The nearest unit of a side other than `side` that a rider at `at` is in
/// contact with (an officer-sized disc, APSoF geometry's contact gap),
/// leaving out units in `already` — those he was touching when the turn
/// began, whose contact he has already answered for.
fn enemy_in_contact<'a>(
    battle: &'a BattleState,
    side: SideId,
    at: Pos,
    already: &[UnitId],
) -> Option<&'a Unit> {
    battle
        .enemies_of(side)
        .filter(|u| !already.contains(&u.id) && officer_in_contact(at, u))
        .min_by(|a, b| {
            footprint(a)
                .distance_to(at)
                .total_cmp(&footprint(b).distance_to(at))
                .then(a.id.cmp(&b.id))
        })
}

fn friends_in_contact(battle: &BattleState, side: SideId, at: Pos) -> bool {
    battle.units_of(side).any(|u| officer_in_contact(at, u))
}

enum Target<'a> {
    Officer(&'a Officer),
    Unit(&'a Unit),
}

impl Target<'_> {
    fn point(&self) -> Pos {
        match self {
            Target::Officer(o) => o.position,
            Target::Unit(u) => u.position,
        }
    }

    fn reached(&self, at: Pos) -> bool {
        match self {
            Target::Officer(o) => o.position.distance(at) <= DELIVERY_RADIUS,
            Target::Unit(u) => footprint(u).distance_to(at) <= DELIVERY_RADIUS,
        }
    }
}

/// One messenger's turn.
fn ride(
    s: &mut DispatchState,
    battle: &BattleState,
    scale: Scale,
    id: MessengerId,
    dice: &mut dyn DiceSource,
    events: &mut Vec<DispatchEvent>,
) -> Result<(), DispatchError> {
    let turn = battle.turn;
    let Some(m) = s.messengers.get(&id).cloned() else {
        return Ok(());
    };
    let target = match m.destination {
        Destination::Officer(wanted) => match recipient(battle, wanted, m.side) {
            Some(o) => {
                if o.id != wanted {
                    if let Some(mm) = s.messengers.get_mut(&id) {
                        mm.destination = Destination::Officer(o.id);
                    }
                    events.push(DispatchEvent::Redirected {
                        messenger: id,
                        side: m.side,
                        now_to: o.id,
                        turn,
                    });
                }
                Some(Target::Officer(o))
            }
            // Nobody of his side left to ride to: he waits where he is.
            None => None,
        },
        Destination::Unit(u) => match battle.unit(u) {
            Some(unit) => Some(Target::Unit(unit)),
            None => {
                undeliverable(s, &m, turn, events);
                return Ok(());
            }
        },
    };

    // Ride: straight at where the target is now. Terrain does not slow a
    // messenger (SFRM movement table), so a road is never faster.
    let from = m.position;
    // A rider who began the turn touching the enemy (he survived last
    // turn's roll, or set out from a general in contact) slips past them
    // without a second roll; only fresh contact stops him.
    let already: Vec<UnitId> = battle
        .enemies_of(m.side)
        .filter(|u| officer_in_contact(from, u))
        .map(|u| u.id)
        .collect();
    let mut at = from;
    let mut arrived = target.as_ref().is_some_and(|t| t.reached(from));
    if let (Some(t), false) = (&target, arrived) {
        let goal = t.point();
        let total = from.distance(goal);
        let travel = total.min(scale.messenger_inches_per_turn());
        if total > 0.0 && travel > 0.0 {
            let (dx, dy) = ((goal.x - from.x) / total, (goal.y - from.y) / total);
            let steps = (travel / RIDE_STEP).ceil().max(1.0) as u32;
            for i in 1..=steps {
                let along = (f64::from(i) * RIDE_STEP).min(travel);
                at = Pos::new(from.x + dx * along, from.y + dy * along);
                if enemy_in_contact(battle, m.side, at, &already).is_some() {
                    break;
                }
                if t.reached(at) {
                    arrived = true;
                    break;
                }
            }
        }
    }
    if at != from {
        if let Some(mm) = s.messengers.get_mut(&id) {
            mm.position = at;
        }
        events.push(DispatchEvent::Moved {
            messenger: id,
            side: m.side,
            from,
            to: at,
            turn,
        });
    }

    // SFRM "Officer Casualties" (ii) contacted by the enemy, (iii) fired on.
    let contact = enemy_in_contact(battle, m.side, at, &already);
    let fired_by = s.fired_upon.get(&id).copied();
    if contact.is_some() || fired_by.is_some() {
        let witness = contact.map(|u| u.side).or(fired_by);
        let purpose = RollPurpose::new(RollKind::SfrmCasualty, format!("messenger {}", id.0))
            .with_note("SFRM Table 3 officer casualty");
        let two = roll_2d6_dice(dice, &purpose)?;
        let roll = two[0] + two[1];
        let casualty = table3(roll)?;
        events.push(DispatchEvent::Casualty {
            messenger: id,
            side: m.side,
            roll,
            dice: two.to_vec(),
            result: casualty.result,
            witness,
            turn,
        });
        let friends = friends_in_contact(battle, m.side, at);
        if let Some(captor_unit) = contact
            && casualty.captured(true, friends)
        {
            capture(s, battle, &m, at, captor_unit, turn, events);
            return Ok(());
        }
        if casualty.removed() {
            lose(s, &m, witness, turn, events);
            return Ok(());
        }
        // Left in play, he rides on: no rout move (docs/rulings-sfrm.md).
    }

    if arrived && let Some(t) = target {
        deliver(s, &m, t, turn, events);
    }
    Ok(())
}

fn deliver(
    s: &mut DispatchState,
    m: &Messenger,
    target: Target<'_>,
    turn: u32,
    events: &mut Vec<DispatchEvent>,
) {
    match target {
        Target::Officer(o) => {
            for did in &m.carrying {
                let Some(d) = s.dispatches.get_mut(did) else {
                    continue;
                };
                let was_captured = matches!(d.status, DispatchStatus::Captured { .. });
                d.status = DispatchStatus::Delivered { turn };
                d.holder = Holder::Officer(o.id);
                d.received_turn = Some(turn);
                if was_captured {
                    events.push(DispatchEvent::PassedToEnemyGeneral {
                        dispatch: *did,
                        officer: o.id,
                        side: o.side,
                        turn,
                    });
                } else {
                    events.push(DispatchEvent::Delivered {
                        dispatch: *did,
                        to: o.id,
                        side: o.side,
                        turn,
                    });
                }
            }
        }
        Target::Unit(u) => {
            if let Some(oid) = m.order
                && let Some(c) = s.courier_orders.get_mut(&oid)
            {
                let effective_turn = turn.saturating_add(1);
                c.status = CourierStatus::Arrived {
                    turn,
                    effective_turn,
                };
                events.push(DispatchEvent::OrderArrived {
                    order: oid,
                    unit: u.id,
                    side: m.side,
                    turn,
                    effective_turn,
                });
            }
        }
    }
    s.messengers.remove(&m.id);
}

fn undeliverable(s: &mut DispatchState, m: &Messenger, turn: u32, events: &mut Vec<DispatchEvent>) {
    if let Some(oid) = m.order
        && let Some(c) = s.courier_orders.get_mut(&oid)
    {
        c.status = CourierStatus::Undeliverable { turn };
        events.push(DispatchEvent::OrderUndeliverable {
            order: oid,
            unit: c.order.unit,
            side: m.side,
            turn,
        });
    }
    s.messengers.remove(&m.id);
}

fn lose(
    s: &mut DispatchState,
    m: &Messenger,
    witness: Option<SideId>,
    turn: u32,
    events: &mut Vec<DispatchEvent>,
) {
    for did in &m.carrying {
        if let Some(d) = s.dispatches.get_mut(did) {
            d.status = DispatchStatus::Lost { turn };
            d.holder = Holder::Nobody;
        }
    }
    if let Some(oid) = m.order
        && let Some(c) = s.courier_orders.get_mut(&oid)
    {
        c.status = CourierStatus::Lost { turn };
    }
    events.push(DispatchEvent::Lost {
        messenger: m.id,
        side: m.side,
        dispatches: m.carrying.clone(),
        orders: m.order.into_iter().collect(),
        witness,
        turn,
    });
    s.messengers.remove(&m.id);
}

/// SFRM, under Table 3: the rider is a prisoner; his unread dispatches fall
/// to the captors, who carry them to one of their generals — the capturing
/// unit's commander if he is on the field, else their nearest general — by
/// a rider of their own, or hand them over at once if he is within 1".
/// Orders he carried are read by the captors at once (our ruling).
fn capture(
    s: &mut DispatchState,
    battle: &BattleState,
    m: &Messenger,
    at: Pos,
    captor_unit: &Unit,
    turn: u32,
    events: &mut Vec<DispatchEvent>,
) {
    let by_side = captor_unit.side;
    let mut orders = Vec::new();
    if let Some(oid) = m.order
        && let Some(c) = s.courier_orders.get_mut(&oid)
    {
        c.status = CourierStatus::Captured { by_side, turn };
        orders.push(c.order.clone());
    }
    let taken: Vec<_> = m
        .carrying
        .iter()
        .copied()
        .filter(|d| s.dispatches.contains_key(d))
        .collect();
    events.push(DispatchEvent::Captured {
        messenger: m.id,
        from_side: m.side,
        by_side,
        at,
        dispatches: taken.clone(),
        orders,
        turn,
    });
    s.messengers.remove(&m.id);
    for did in &taken {
        if let Some(d) = s.dispatches.get_mut(did) {
            d.status = DispatchStatus::Captured { by_side, turn };
            d.captured = Some(Capture { by_side, turn });
            d.holder = Holder::Nobody;
        }
    }
    if taken.is_empty() {
        return;
    }
    let commander = captor_unit
        .commander
        .and_then(|c| battle.officer(c))
        .filter(|o| o.status == OfficerStatus::Active && o.side == by_side);
    let captor = commander.or_else(|| {
        battle
            .officers_of(by_side)
            .filter(|o| o.status == OfficerStatus::Active)
            .min_by(|a, b| {
                a.position
                    .distance(at)
                    .total_cmp(&b.position.distance(at))
                    .then(a.id.cmp(&b.id))
            })
    });
    let Some(captor) = captor else {
        return;
    };
    if captor.position.distance(at) <= DELIVERY_RADIUS {
        for did in &taken {
            if let Some(d) = s.dispatches.get_mut(did) {
                d.status = DispatchStatus::Delivered { turn };
                d.holder = Holder::Officer(captor.id);
                d.received_turn = Some(turn);
            }
            events.push(DispatchEvent::PassedToEnemyGeneral {
                dispatch: *did,
                officer: captor.id,
                side: by_side,
                turn,
            });
        }
        return;
    }
    let id = MessengerId(s.next_messenger);
    s.next_messenger = s.next_messenger.saturating_add(1);
    s.messengers.insert(
        id,
        Messenger {
            id,
            side: by_side,
            position: at,
            carrying: taken.clone(),
            order: None,
            destination: Destination::Officer(captor.id),
            sent_turn: turn,
        },
    );
    for did in &taken {
        if let Some(d) = s.dispatches.get_mut(did) {
            d.holder = Holder::Messenger(id);
        }
    }
    events.push(DispatchEvent::Departed {
        messenger: id,
        side: by_side,
        at,
        turn,
    });
}
