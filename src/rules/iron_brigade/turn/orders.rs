//! The order phase (APSoF I.B.1, I.C.1): each new written order is booked
//! with the turn it takes effect, from the issuing officer's distance at the
//! time he wrote it and whether he is in the unit's chain of command.

use super::{Ctx, TurnError, active_index};
use crate::dice::{RollKind, RollPurpose};
use crate::rules::iron_brigade::delay::{order_timing, outside_chain};
use crate::rules::iron_brigade::events::Event;
use crate::rules::iron_brigade::geometry::footprint;
use crate::rules::iron_brigade::orders::{
    Action, BookedOrder, Direction, FireTarget, TurnOrders, UnitOrder,
};
use crate::rules::iron_brigade::state::{BattleState, OfficerStatus, Pos, UnitId};

/// Check the players' orders against the battle before anything is rolled:
/// unknown units or officers, officers commanding the other side, empty
/// orders and non-finite points are malformed input.
pub fn validate(state: &BattleState, orders: &TurnOrders) -> Result<(), TurnError> {
    for o in &orders.unit_orders {
        let unit = state.unit(o.unit).ok_or(TurnError::UnknownUnit {
            order: o.id,
            unit: o.unit.0,
        })?;
        let officer = state
            .officer(o.issued_by)
            .ok_or(TurnError::UnknownOfficer {
                order: o.id,
                officer: o.issued_by.0,
            })?;
        if officer.side != unit.side {
            return Err(TurnError::WrongSide {
                order: o.id,
                officer: o.issued_by.0,
                unit: o.unit.0,
            });
        }
        if o.steps.is_empty() {
            return Err(TurnError::EmptyOrder { order: o.id });
        }
        for step in &o.steps {
            check_action(state, o, &step.action)?;
        }
    }
    for m in &orders.officer_moves {
        if state.officer(m.officer).is_none() {
            return Err(TurnError::UnknownMovingOfficer {
                officer: m.officer.0,
            });
        }
        if m.waypoints.iter().any(|p| !p.is_finite()) {
            return Err(TurnError::OfficerMoveNotFinite {
                officer: m.officer.0,
            });
        }
        if let Some(u) = m.with_unit
            && state.unit(u).is_none()
        {
            return Err(TurnError::UnknownMovingOfficer {
                officer: m.officer.0,
            });
        }
    }
    Ok(())
}

fn check_action(state: &BattleState, o: &UnitOrder, action: &Action) -> Result<(), TurnError> {
    let unit_known = |id: UnitId| {
        state.unit(id).map(|_| ()).ok_or(TurnError::UnknownUnit {
            order: o.id,
            unit: id.0,
        })
    };
    let finite = |ps: &[Pos]| {
        if ps.iter().all(|p| p.is_finite()) {
            Ok(())
        } else {
            Err(TurnError::NotFinite { order: o.id })
        }
    };
    let direction = |d: &Direction| match d {
        Direction::Degrees(deg) if !deg.is_finite() => Err(TurnError::NotFinite { order: o.id }),
        Direction::Toward(p) => finite(std::slice::from_ref(p)),
        Direction::TowardUnit(u) => unit_known(*u),
        _ => Ok(()),
    };
    match action {
        Action::Move(m) | Action::Retreat(m) => finite(&m.waypoints),
        Action::Charge { target, to, .. } => {
            if let Some(t) = target {
                unit_known(*t)?;
            }
            finite(to.as_slice())
        }
        Action::Form { facing, .. } | Action::Unlimber { facing } => {
            facing.as_ref().map_or(Ok(()), direction)
        }
        Action::Face(d) => direction(d),
        Action::Fire(FireTarget::Unit(u)) | Action::Combine { with: u } => unit_known(*u),
        Action::Follow { unit, right, ahead } => {
            unit_known(*unit)?;
            finite(&[Pos::new(*right, *ahead)])
        }
        Action::FireWith { target, with } => {
            if let FireTarget::Unit(u) = target {
                unit_known(*u)?;
            }
            with.iter().try_for_each(|u| unit_known(*u))
        }
        Action::SplitFire { parts } => parts.iter().try_for_each(|p| match p.target {
            FireTarget::Unit(u) => unit_known(u),
            _ => Ok(()),
        }),
        _ => Ok(()),
    }
}

/// APSoF I.B.1 and I.C.1: book each new order. The distance is from the
/// issuing officer's position at the start of the turn (when he wrote it)
/// to the nearest part of the unit (our ruling: the text says "within 12
/// inches of officers", and a regiment's nearest company hears first).
/// An officer outside the chain rolls a die: 1–4 obeyed, 5 a turn late, 6
/// ignored. An order from an officer no longer on the field is ignored.
/// A new order replaces the pending ones unless written to follow them.
pub(crate) fn order_phase(ctx: &mut Ctx<'_>, orders: &TurnOrders) -> Result<(), TurnError> {
    let mut list: Vec<&UnitOrder> = orders.unit_orders.iter().collect();
    list.sort_by_key(|o| (o.unit, o.id));
    for o in list {
        let unit = ctx.uref(o.unit);
        let issued_by = ctx.oref(o.issued_by);
        let Some(officer) = ctx.state.officer(o.issued_by) else {
            continue;
        };
        if officer.status != OfficerStatus::Active {
            ctx.events.push(Event::OrderIgnored {
                unit,
                order: o.id,
                issued_by,
                obedience_roll: None,
                reason: "the officer who wrote it is no longer on the field".into(),
            });
            continue;
        }
        let at = ctx
            .officer_start
            .get(&o.issued_by)
            .copied()
            .unwrap_or(officer.position);
        let distance = ctx
            .state
            .unit(o.unit)
            .map(|u| footprint(u).distance_to(at))
            .unwrap_or(0.0);
        let outside = !ctx.state.in_chain_of_command(o.unit, o.issued_by);
        let roll = if outside {
            Some(
                ctx.dice
                    .d6(&RollPurpose::new(RollKind::OrderDelay, unit.name.clone())
                        .with_note(format!("order #{} from outside the chain", o.id)))?,
            )
        } else {
            None
        };
        let obedience = roll.map(outside_chain).transpose().ok().flatten();
        let timing = order_timing(distance, obedience).ok();
        let Some(delay) = timing.and_then(|t| t.delay_turns) else {
            ctx.events.push(Event::OrderIgnored {
                unit,
                order: o.id,
                issued_by,
                obedience_roll: roll,
                reason: "an officer outside its chain of command rolled a 6".into(),
            });
            continue;
        };
        // SFRM courier orders (scenario option): an order from within the
        // unit's chain of command to a unit beyond 24" rides with a
        // messenger instead of waiting APSoF I.C.1's two turns; it is
        // booked when he reaches the unit (`book_courier_arrivals`).
        if ctx.state.options.courier_orders && !outside && distance > COURIER_BEYOND {
            let mut sfrm = std::mem::take(&mut ctx.state.sfrm);
            let sent = sfrm.courier_order(&ctx.state, o.issued_by, o.clone());
            ctx.state.sfrm = sfrm;
            match sent {
                Ok((_, events)) => {
                    ctx.events
                        .extend(events.into_iter().map(|sfrm| Event::Sfrm { sfrm }));
                    continue;
                }
                // Already on its way (the same order twice): book it as
                // APSoF would rather than lose it.
                Err(e) => not_by_courier(ctx, o, &e.to_string()),
            }
        }
        let effective_turn = ctx.turn.saturating_add(u32::from(delay));
        let replaced = book(ctx, o, effective_turn);
        ctx.events.push(Event::OrderBooked {
            unit,
            order: o.id,
            issued_by,
            distance: (distance * 10.0).round() / 10.0,
            effective_turn,
            obedience_roll: roll,
            follows_previous: o.follows_previous,
            replaced,
        });
    }
    Ok(())
}

/// Courier orders go to units farther than this from the issuing officer
/// (SFRM courier orders option; APSoF I.C.1's "beyond 24"").
pub const COURIER_BEYOND: f64 = 24.0;

/// An order that could not go by courier is booked the APSoF way; the
/// umpire's log says why.
fn not_by_courier(ctx: &mut Ctx<'_>, o: &UnitOrder, why: &str) {
    let unit = ctx.uref(o.unit);
    ctx.events.push(Event::OrderNotCarriedOut {
        unit,
        order: o.id,
        step: 0,
        reason: format!("not sent by courier ({why}); booked with the usual delay"),
    });
}

/// Put `o` in the unit's book from `effective_turn`: pending orders are
/// replaced unless it was written to follow them (I.B.1.i). Returns the
/// ids of the orders it replaced.
fn book(ctx: &mut Ctx<'_>, o: &UnitOrder, effective_turn: u32) -> Vec<u64> {
    let turn = ctx.turn;
    let entry = ctx.book.units.entry(o.unit).or_default();
    let mut replaced = Vec::new();
    if !o.follows_previous {
        // I.B.1.i: pending orders are removed; the order now in effect
        // is carried out until the new one takes over.
        let keep = active_index(entry, turn);
        let mut i = 0usize;
        entry.retain(|b| {
            let pending = b.effective_turn > turn;
            let superseded = keep.is_some_and(|k| i < k);
            i += 1;
            if pending {
                replaced.push(b.order.id);
            }
            !pending && !superseded
        });
    }
    entry.push(BookedOrder {
        order: o.clone(),
        effective_turn,
        current_step: 0,
    });
    replaced
}

/// Courier orders whose messenger reached the unit this turn are booked,
/// in force from the next turn (SFRM courier orders option; the arrival
/// turn is set by `rules::sfrm::advance`).
pub(crate) fn book_courier_arrivals(ctx: &mut Ctx<'_>) {
    let arrived = ctx.state.sfrm.arrivals(ctx.turn);
    for b in arrived {
        let unit = ctx.uref(b.order.unit);
        let issued_by = ctx.oref(b.order.issued_by);
        let distance = ctx
            .state
            .officer(b.order.issued_by)
            .zip(ctx.state.unit(b.order.unit))
            .map(|(o, u)| footprint(u).distance_to(o.position))
            .unwrap_or(0.0);
        let replaced = book(ctx, &b.order, b.effective_turn);
        ctx.events.push(Event::OrderBooked {
            unit,
            order: b.order.id,
            issued_by,
            distance: (distance * 10.0).round() / 10.0,
            effective_turn: b.effective_turn,
            obedience_roll: None,
            follows_previous: b.order.follows_previous,
            replaced,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::ScriptedDice;
    use crate::rules::iron_brigade::orders::{OrderBook, Step, Trigger};
    use crate::rules::iron_brigade::state::{Officer, OfficerId, Unit};

    fn state() -> BattleState {
        let mut s = BattleState {
            turn: 3,
            ..BattleState::default()
        };
        let hale = Officer::brigadier(1, "Hale", 0, Pos::new(0.0, 0.0));
        let other = Officer::brigadier(2, "Other", 0, Pos::new(0.0, 0.0));
        s.officers = vec![hale, other];
        let mut near = Unit::infantry(1, "Near", 0, 16, Pos::new(0.0, 10.0), 0.0);
        near.commander = Some(OfficerId(1));
        let mut mid = Unit::infantry(2, "Mid", 0, 16, Pos::new(0.0, 20.0), 0.0);
        mid.commander = Some(OfficerId(1));
        let mut far = Unit::infantry(3, "Far", 0, 16, Pos::new(0.0, 40.0), 0.0);
        far.commander = Some(OfficerId(1));
        s.units = vec![near, mid, far];
        s
    }

    fn order(id: u64, unit: u32, by: u32, follows: bool) -> UnitOrder {
        UnitOrder {
            id,
            unit: UnitId(unit),
            issued_by: OfficerId(by),
            issued_turn: 3,
            follows_previous: follows,
            steps: vec![Step {
                trigger: Trigger::Then,
                action: Action::Hold,
            }],
        }
    }

    fn run(
        s: &BattleState,
        book: OrderBook,
        orders: TurnOrders,
        dice: &[u8],
    ) -> (OrderBook, Vec<Event>) {
        let mut d = ScriptedDice::new(dice.iter().map(|&v| i64::from(v))).unwrap();
        let mut ctx = Ctx::new(s.clone(), book, &mut d);
        validate(s, &orders).unwrap();
        order_phase(&mut ctx, &orders).unwrap();
        (ctx.book, ctx.events)
    }

    #[test]
    fn i_c_1_delay_follows_distance_at_issue_time() {
        let s = state();
        let orders = TurnOrders {
            unit_orders: vec![
                order(1, 1, 1, false),
                order(2, 2, 1, false),
                order(3, 3, 1, false),
            ],
            officer_moves: vec![],
            dispatches: vec![],
        };
        let (book, _) = run(&s, OrderBook::default(), orders, &[]);
        let eff = |u: u32| book.units[&UnitId(u)][0].effective_turn;
        // Near: footprint front 10" away minus half depth → under 12": now.
        assert_eq!(eff(1), 3);
        assert_eq!(eff(2), 4);
        assert_eq!(eff(3), 5);
    }

    #[test]
    fn i_c_1_outside_the_chain_rolls_to_obey() {
        let s = state();
        let orders = TurnOrders {
            unit_orders: vec![
                order(1, 1, 2, false),
                order(2, 2, 2, false),
                order(3, 3, 2, false),
            ],
            officer_moves: vec![],
            dispatches: vec![],
        };
        let (book, events) = run(&s, OrderBook::default(), orders, &[4, 5, 6]);
        assert_eq!(book.units[&UnitId(1)][0].effective_turn, 3);
        assert_eq!(book.units[&UnitId(2)][0].effective_turn, 5);
        assert!(!book.units.contains_key(&UnitId(3)));
        assert!(events.iter().any(|e| matches!(
            e,
            Event::OrderIgnored {
                order: 3,
                obedience_roll: Some(6),
                ..
            }
        )));
    }

    #[test]
    fn i_b_1_new_orders_replace_pending_unless_following() {
        let s = state();
        let mut book = OrderBook::default();
        book.units.insert(
            UnitId(3),
            vec![
                BookedOrder {
                    order: order(10, 3, 1, false),
                    effective_turn: 2,
                    current_step: 0,
                },
                BookedOrder {
                    order: order(11, 3, 1, false),
                    effective_turn: 4,
                    current_step: 0,
                },
            ],
        );
        let orders = TurnOrders {
            unit_orders: vec![order(12, 3, 1, false)],
            officer_moves: vec![],
            dispatches: vec![],
        };
        let (b, events) = run(&s, book.clone(), orders, &[]);
        let ids: Vec<u64> = b.units[&UnitId(3)].iter().map(|x| x.order.id).collect();
        assert_eq!(ids, vec![10, 12]);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::OrderBooked { replaced, .. } if replaced == &vec![11]))
        );
        let orders = TurnOrders {
            unit_orders: vec![order(13, 3, 1, true)],
            officer_moves: vec![],
            dispatches: vec![],
        };
        let (b, _) = run(&s, book, orders, &[]);
        let ids: Vec<u64> = b.units[&UnitId(3)].iter().map(|x| x.order.id).collect();
        assert_eq!(ids, vec![10, 11, 13]);
    }

    #[test]
    fn unknown_unit_or_foreign_officer_is_an_error() {
        let mut s = state();
        let orders = TurnOrders {
            unit_orders: vec![order(1, 9, 1, false)],
            officer_moves: vec![],
            dispatches: vec![],
        };
        assert_eq!(
            validate(&s, &orders),
            Err(TurnError::UnknownUnit { order: 1, unit: 9 })
        );
        s.officers[1].side = crate::rules::iron_brigade::state::SideId(1);
        let orders = TurnOrders {
            unit_orders: vec![order(1, 1, 2, false)],
            officer_moves: vec![],
            dispatches: vec![],
        };
        assert!(matches!(
            validate(&s, &orders),
            Err(TurnError::WrongSide { .. })
        ));
    }
}
