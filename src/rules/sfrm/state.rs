//! Dispatches, messengers and courier orders: the SFRM correspondence the
//! turn engine carries beside the [`BattleState`], and the ways new
//! correspondence is written.
//!
//! Every collection is a `BTreeMap` keyed by id, so serialising the same
//! state always yields the same bytes and every turn walks it in id order.

use super::events::DispatchEvent;
use super::table2::{SfrmStats, StatPenalty};
use super::table3::{CasualtyRollError, OfficerCasualty, OfficerHit, officer_casualty};
use crate::dice::DiceError;
use crate::rules::iron_brigade::orders::{BookedOrder, UnitOrder};
use crate::rules::iron_brigade::state::{
    BattleState, Officer, OfficerId, OfficerStatus, Pos, SideId, UnitId,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Stable identifier of a dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DispatchId(pub u32);

/// Stable identifier of a messenger element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MessengerId(pub u32);

/// Where a dispatch stands. A dispatch read by the enemy shows `Read` with
/// [`Dispatch::captured`] set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum DispatchStatus {
    /// With its own side's messenger, on the way.
    InTransit,
    /// Held unread by an officer since `turn`.
    Delivered { turn: u32 },
    /// Read by its holder on `turn`.
    Read { turn: u32 },
    /// In enemy hands, not yet with one of their generals.
    Captured { by_side: SideId, turn: u32 },
    /// Gone with a dead or carried-off messenger.
    Lost { turn: u32 },
}

/// Who has the paper now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "holder", content = "id", rename_all = "kebab-case")]
pub enum Holder {
    Messenger(MessengerId),
    Officer(OfficerId),
    /// Nobody: lost, or taken by a side with no general left to carry it to.
    Nobody,
}

/// A capture: which side took the dispatch, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capture {
    pub by_side: SideId,
    pub turn: u32,
}

/// One written dispatch (SFRM "Discussions of Strategy & Tactics During
/// Play").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dispatch {
    pub id: DispatchId,
    pub from: OfficerId,
    pub to: OfficerId,
    pub text: String,
    pub written_turn: u32,
    /// The messenger who set off with it.
    pub carried_by: MessengerId,
    pub status: DispatchStatus,
    pub holder: Holder,
    /// Set once the enemy took it; stays set after they deliver and read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured: Option<Capture>,
    /// The turn it last reached an officer (for a captured dispatch: one of
    /// the captors' generals), kept after it is read so reports can say
    /// when it was received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received_turn: Option<u32>,
}

/// Where a messenger rides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "to", content = "id", rename_all = "kebab-case")]
pub enum Destination {
    /// To wherever this officer is now.
    Officer(OfficerId),
    /// To this unit, with a courier order.
    Unit(UnitId),
}

/// A messenger element: one rider (SFRM: 1 cavalry figure on a 1" base).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Messenger {
    pub id: MessengerId,
    pub side: SideId,
    pub position: Pos,
    /// Dispatches carried, in id order.
    pub carrying: Vec<DispatchId>,
    /// A courier order carried (courier-orders option), by order id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<u64>,
    pub destination: Destination,
    /// Turn he was sent; he first rides in that turn's [`super::advance()`].
    pub sent_turn: u32,
}

/// Where a courier order stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum CourierStatus {
    InTransit,
    Arrived {
        turn: u32,
        effective_turn: u32,
    },
    Captured {
        by_side: SideId,
        turn: u32,
    },
    Lost {
        turn: u32,
    },
    /// The unit left the table before the courier reached it.
    Undeliverable {
        turn: u32,
    },
}

/// A written order travelling by courier instead of by APSoF I.C's fixed
/// delay (scenario option).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CourierOrder {
    pub order: UnitOrder,
    pub messenger: MessengerId,
    pub status: CourierStatus,
}

/// All SFRM correspondence between turns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DispatchState {
    pub dispatches: BTreeMap<DispatchId, Dispatch>,
    pub messengers: BTreeMap<MessengerId, Messenger>,
    /// Courier orders by [`UnitOrder::id`].
    #[serde(default)]
    pub courier_orders: BTreeMap<u64, CourierOrder>,
    /// Table 3 penalties suffered so far, by officer.
    #[serde(default)]
    pub penalties: BTreeMap<OfficerId, StatPenalty>,
    /// Messengers fired on this turn and the side that fired; the engine
    /// marks them after fire, [`super::advance()`] rolls and clears.
    #[serde(default)]
    pub fired_upon: BTreeMap<MessengerId, SideId>,
    pub next_dispatch: u32,
    pub next_messenger: u32,
}

/// Why correspondence could not be written or advanced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DispatchError {
    #[error(
        "{officer} has already sent a dispatch within this SFRM turn of 30 minutes (dispatch {existing}); SFRM allows one a turn — add to it on turn {next}"
    )]
    SecondThisTurn {
        officer: String,
        turn: u32,
        existing: u32,
        /// The first table turn he may write again.
        next: u32,
    },
    #[error("there is no officer {0} in this battle; check the officer's name")]
    UnknownOfficer(u32),
    #[error("there is no unit {0} in this battle; check the unit's name")]
    UnknownUnit(u32),
    #[error("{0} is no longer on the field and cannot send or receive dispatches")]
    OfficerGone(String),
    #[error("{0} cannot send a dispatch to himself")]
    ToSelf(String),
    #[error(
        "{from} cannot send a dispatch to {to}, who serves the other side; address one of your own generals"
    )]
    ToEnemy { from: String, to: String },
    #[error("{officer} cannot send an order to {unit}, which belongs to the other side")]
    EnemyUnit { officer: String, unit: String },
    #[error("dispatch {0} was already written; each dispatch goes once")]
    DuplicateDispatch(u32),
    #[error("courier order {0} is already on its way; each order goes once")]
    DuplicateOrder(u64),
    #[error(
        "officer {officer} and order {order} disagree about who issued it; pass the order's own issuer"
    )]
    WrongIssuer { officer: u32, order: u64 },
    #[error(transparent)]
    Dice(#[from] DiceError),
    #[error(transparent)]
    Casualty(#[from] CasualtyRollError),
}

fn active(battle: &BattleState, id: OfficerId) -> Result<&Officer, DispatchError> {
    let o = battle
        .officer(id)
        .ok_or(DispatchError::UnknownOfficer(id.0))?;
    if o.status == OfficerStatus::Active {
        Ok(o)
    } else {
        Err(DispatchError::OfficerGone(o.name.clone()))
    }
}

impl DispatchState {
    /// No correspondence at all: nothing written, nobody riding, no
    /// penalties (the battle state leaves it out of its JSON then).
    pub fn is_empty(&self) -> bool {
        *self == DispatchState::default()
    }

    fn new_messenger(
        &mut self,
        side: SideId,
        position: Pos,
        destination: Destination,
        turn: u32,
    ) -> MessengerId {
        let id = MessengerId(self.next_messenger);
        self.next_messenger = self.next_messenger.saturating_add(1);
        self.messengers.insert(
            id,
            Messenger {
                id,
                side,
                position,
                carrying: Vec::new(),
                order: None,
                destination,
                sent_turn: turn,
            },
        );
        id
    }

    /// Write a dispatch on `battle.turn` at the sender's general and hand it
    /// to a new messenger riding for the recipient.
    ///
    /// SFRM: one message per player per turn, originating at their general,
    /// addressed to another general. A player speaks through his general,
    /// so the limit is one per sending officer per turn. Addressing the
    /// enemy is refused: parleys are not SFRM dispatches.
    pub fn write_dispatch(
        &mut self,
        battle: &BattleState,
        from: OfficerId,
        to: OfficerId,
        text: &str,
    ) -> Result<(DispatchId, Vec<DispatchEvent>), DispatchError> {
        self.write(battle, None, from, to, text)
    }

    /// [`Self::write_dispatch`] under an id given from outside (the game
    /// store's dispatch row), so the paper in the state and its row agree.
    /// An id already in use is refused.
    pub fn write_dispatch_as(
        &mut self,
        battle: &BattleState,
        id: DispatchId,
        from: OfficerId,
        to: OfficerId,
        text: &str,
    ) -> Result<(DispatchId, Vec<DispatchEvent>), DispatchError> {
        if self.dispatches.contains_key(&id) {
            return Err(DispatchError::DuplicateDispatch(id.0));
        }
        self.write(battle, Some(id), from, to, text)
    }

    fn write(
        &mut self,
        battle: &BattleState,
        given: Option<DispatchId>,
        from: OfficerId,
        to: OfficerId,
        text: &str,
    ) -> Result<(DispatchId, Vec<DispatchEvent>), DispatchError> {
        let turn = battle.turn;
        let sender = active(battle, from)?;
        let recipient = active(battle, to)?;
        if from == to {
            return Err(DispatchError::ToSelf(sender.name.clone()));
        }
        if sender.side != recipient.side {
            return Err(DispatchError::ToEnemy {
                from: sender.name.clone(),
                to: recipient.name.clone(),
            });
        }
        // SFRM "one message per turn": one per SFRM turn of 30 minutes, so
        // one in `every` table turns since the last he wrote.
        let every = battle.scale().turns_per_sfrm_turn();
        if let Some(d) = self
            .dispatches
            .values()
            .find(|d| d.from == from && d.written_turn <= turn && turn - d.written_turn < every)
        {
            return Err(DispatchError::SecondThisTurn {
                officer: sender.name.clone(),
                turn,
                existing: d.id.0,
                next: d.written_turn.saturating_add(every),
            });
        }
        let side = sender.side;
        let at = sender.position;
        let id = given.unwrap_or(DispatchId(self.next_dispatch));
        self.next_dispatch = self.next_dispatch.max(id.0.saturating_add(1));
        let m = self.new_messenger(side, at, Destination::Officer(to), turn);
        if let Some(messenger) = self.messengers.get_mut(&m) {
            messenger.carrying.push(id);
        }
        self.dispatches.insert(
            id,
            Dispatch {
                id,
                from,
                to,
                text: text.to_string(),
                written_turn: turn,
                carried_by: m,
                status: DispatchStatus::InTransit,
                holder: Holder::Messenger(m),
                captured: None,
                received_turn: None,
            },
        );
        Ok((
            id,
            vec![
                DispatchEvent::Sent {
                    dispatch: id,
                    from,
                    to,
                    side,
                    turn,
                },
                DispatchEvent::Departed {
                    messenger: m,
                    side,
                    at,
                    turn,
                },
            ],
        ))
    }

    /// Courier orders (scenario option): instead of waiting APSoF I.C.1's
    /// fixed delay, `order` rides from its issuing officer with a messenger
    /// and takes effect the turn after he reaches the unit. The messenger
    /// can be shot or taken like any other.
    pub fn courier_order(
        &mut self,
        battle: &BattleState,
        issuing: OfficerId,
        order: UnitOrder,
    ) -> Result<(MessengerId, Vec<DispatchEvent>), DispatchError> {
        if order.issued_by != issuing {
            return Err(DispatchError::WrongIssuer {
                officer: issuing.0,
                order: order.id,
            });
        }
        let officer = active(battle, issuing)?;
        let unit = battle
            .unit(order.unit)
            .ok_or(DispatchError::UnknownUnit(order.unit.0))?;
        if unit.side != officer.side {
            return Err(DispatchError::EnemyUnit {
                officer: officer.name.clone(),
                unit: unit.name.clone(),
            });
        }
        if self.courier_orders.contains_key(&order.id) {
            return Err(DispatchError::DuplicateOrder(order.id));
        }
        let (side, at, turn, unit_id, order_id) = (
            officer.side,
            officer.position,
            battle.turn,
            unit.id,
            order.id,
        );
        let m = self.new_messenger(side, at, Destination::Unit(unit_id), turn);
        if let Some(messenger) = self.messengers.get_mut(&m) {
            messenger.order = Some(order_id);
        }
        self.courier_orders.insert(
            order_id,
            CourierOrder {
                order,
                messenger: m,
                status: CourierStatus::InTransit,
            },
        );
        Ok((
            m,
            vec![
                DispatchEvent::OrderSent {
                    order: order_id,
                    unit: unit_id,
                    from: issuing,
                    side,
                    turn,
                },
                DispatchEvent::Departed {
                    messenger: m,
                    side,
                    at,
                    turn,
                },
            ],
        ))
    }

    /// The engine's note that enemy fire fell on a messenger this turn; the
    /// next [`super::advance()`] rolls Table 3 for him (SFRM "Officer
    /// Casualties", iii).
    pub fn mark_fired_upon(&mut self, messenger: MessengerId, by_side: SideId) {
        self.fired_upon.insert(messenger, by_side);
    }

    /// Keep a Table 3 result's penalty against the officer for the rest of
    /// the battle.
    pub fn record_casualty(&mut self, officer: OfficerId, casualty: &OfficerCasualty) {
        let p = self.penalties.entry(officer).or_default();
        *p = p.plus(casualty.penalty);
    }

    /// Table 3 for a general (scenario option beside APSoF V.H): resolve
    /// `roll` and keep its penalty against him for the rest of the battle.
    pub fn officer_hit(
        &mut self,
        roll: u8,
        officer: &Officer,
    ) -> Result<OfficerHit, DispatchError> {
        let so_far = self.penalties.get(&officer.id).copied().unwrap_or_default();
        let hit = officer_casualty(roll, officer, so_far)?;
        self.record_casualty(officer.id, &hit.casualty);
        Ok(hit)
    }

    /// An officer's SFRM statistics now: Table 2 less his Table 3 penalties.
    pub fn stats(&self, officer: &Officer) -> SfrmStats {
        let penalty = self.penalties.get(&officer.id).copied().unwrap_or_default();
        SfrmStats::of(officer).less(penalty)
    }

    /// A general was captured (SFRM, under Table 3): his unread dispatches
    /// fall to `by_side`. They go to `captor` (an officer of `by_side`, e.g.
    /// the capturing unit's commander) if given, else stay with the
    /// capturing troops ([`Holder::Nobody`]). Read ones are gone with him.
    pub fn officer_captured(
        &mut self,
        officer: OfficerId,
        by_side: SideId,
        captor: Option<OfficerId>,
        turn: u32,
    ) -> Vec<DispatchEvent> {
        let mut events = Vec::new();
        for d in self.dispatches.values_mut() {
            let unread = matches!(d.status, DispatchStatus::Delivered { .. });
            if d.holder != Holder::Officer(officer) {
                continue;
            }
            if !unread {
                d.holder = Holder::Nobody;
                continue;
            }
            d.captured = Some(Capture { by_side, turn });
            match captor {
                Some(c) => {
                    d.holder = Holder::Officer(c);
                    d.status = DispatchStatus::Delivered { turn };
                    d.received_turn = Some(turn);
                    events.push(DispatchEvent::PassedToEnemyGeneral {
                        dispatch: d.id,
                        officer: c,
                        side: by_side,
                        turn,
                    });
                }
                None => {
                    d.holder = Holder::Nobody;
                    d.status = DispatchStatus::Captured { by_side, turn };
                }
            }
        }
        events
    }

    /// Courier orders that reached their units on `turn`, ready for the
    /// engine's [`crate::rules::iron_brigade::orders::OrderBook`]: each
    /// takes effect the turn after arrival, not after APSoF I.C.1's delay.
    pub fn arrivals(&self, turn: u32) -> Vec<BookedOrder> {
        self.courier_orders
            .values()
            .filter_map(|c| match c.status {
                CourierStatus::Arrived {
                    turn: t,
                    effective_turn,
                } if t == turn => Some(BookedOrder {
                    order: c.order.clone(),
                    effective_turn,
                    current_step: 0,
                }),
                _ => None,
            })
            .collect()
    }

    /// The state as canonical JSON (same state, same bytes).
    pub fn canonical_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}
