//! What happened to dispatches and messengers in a turn, and who may know it.
//!
//! SFRM's point is the fog of correspondence: a general does not learn that
//! his rider was shot or taken. So every event names the sides that may see
//! it, and the sender's side never sees a capture or a loss.

use super::state::{DispatchId, MessengerId};
use super::table3::CasualtyResult;
use crate::rules::iron_brigade::orders::UnitOrder;
use crate::rules::iron_brigade::state::{OfficerId, Pos, SideId, UnitId};
use serde::{Deserialize, Serialize};

/// One thing that happened to the correspondence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum DispatchEvent {
    /// A dispatch was written at the sender's general.
    Sent {
        dispatch: DispatchId,
        from: OfficerId,
        to: OfficerId,
        side: SideId,
        turn: u32,
    },
    /// A dispatch the player wrote could not be sent (his general is off
    /// the field, or the addressee is). Told to the writer's side only.
    NotSent {
        dispatch: DispatchId,
        from: OfficerId,
        to: OfficerId,
        side: SideId,
        reason: String,
        turn: u32,
    },
    /// A courier was given a written order for a unit (courier-orders option).
    OrderSent {
        order: u64,
        unit: UnitId,
        from: OfficerId,
        side: SideId,
        turn: u32,
    },
    /// A messenger set off.
    Departed {
        messenger: MessengerId,
        side: SideId,
        at: Pos,
        turn: u32,
    },
    /// A messenger rode. Umpire's record only: nobody watches a rider
    /// across miles of country.
    Moved {
        messenger: MessengerId,
        side: SideId,
        from: Pos,
        to: Pos,
        turn: u32,
    },
    /// The officer a messenger rode for is off the field; he rides for the
    /// next officer up the chain instead. Umpire's record only.
    Redirected {
        messenger: MessengerId,
        side: SideId,
        now_to: OfficerId,
        turn: u32,
    },
    /// A dispatch reached an officer, unread. `side` is the holder's side:
    /// for a captured dispatch that is the captors.
    Delivered {
        dispatch: DispatchId,
        to: OfficerId,
        side: SideId,
        turn: u32,
    },
    /// A courier order reached its unit; it is carried out from
    /// `effective_turn`.
    OrderArrived {
        order: u64,
        unit: UnitId,
        side: SideId,
        turn: u32,
        effective_turn: u32,
    },
    /// The holder made his read roll (SFRM: d6 ≤ command ability).
    Read {
        dispatch: DispatchId,
        by: OfficerId,
        side: SideId,
        roll: u8,
        ability: u8,
        text: String,
        turn: u32,
    },
    /// The holder failed his read roll; he tries again next turn.
    NotRead {
        dispatch: DispatchId,
        by: OfficerId,
        side: SideId,
        roll: u8,
        ability: u8,
        turn: u32,
    },
    /// A messenger rolled on SFRM Table 3 (contacted by, or fired on by, the
    /// enemy). Seen only by the enemy who caused it.
    Casualty {
        messenger: MessengerId,
        side: SideId,
        roll: u8,
        /// The two dice of the 2d6 (issue #14). Left out of the JSON while
        /// empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        dice: Vec<u8>,
        result: CasualtyResult,
        witness: Option<SideId>,
        turn: u32,
    },
    /// A messenger was taken. Only the captors know; they hold his unread
    /// dispatches, and read any orders he carried at once.
    Captured {
        messenger: MessengerId,
        from_side: SideId,
        by_side: SideId,
        at: Pos,
        dispatches: Vec<DispatchId>,
        orders: Vec<UnitOrder>,
        turn: u32,
    },
    /// A messenger was killed or carried off wounded; what he carried is
    /// gone. Only the enemy who did it (if any) knows.
    Lost {
        messenger: MessengerId,
        side: SideId,
        dispatches: Vec<DispatchId>,
        orders: Vec<u64>,
        witness: Option<SideId>,
        turn: u32,
    },
    /// A courier's unit is no longer on the table; he rides back and says
    /// so. His own side is told (it knows the unit is gone anyway).
    OrderUndeliverable {
        order: u64,
        unit: UnitId,
        side: SideId,
        turn: u32,
    },
    /// A captured dispatch reached one of the captors' generals.
    PassedToEnemyGeneral {
        dispatch: DispatchId,
        officer: OfficerId,
        side: SideId,
        turn: u32,
    },
}

impl DispatchEvent {
    /// Whether players of `side` may be told of this event. The sender's
    /// side never sees captures, losses or casualty rolls of its riders;
    /// rides are the umpire's alone.
    pub fn visible_to(&self, side: SideId) -> bool {
        use DispatchEvent::*;
        match self {
            Sent { side: s, .. }
            | NotSent { side: s, .. }
            | OrderSent { side: s, .. }
            | Departed { side: s, .. }
            | Delivered { side: s, .. }
            | OrderArrived { side: s, .. }
            | Read { side: s, .. }
            | NotRead { side: s, .. }
            | OrderUndeliverable { side: s, .. }
            | PassedToEnemyGeneral { side: s, .. } => *s == side,
            Moved { .. } | Redirected { .. } => false,
            Captured { by_side, .. } => *by_side == side,
            Lost { witness, .. } | Casualty { witness, .. } => *witness == Some(side),
        }
    }

    /// The event in plain words for the umpire's log, by id (the umpire's
    /// report names officers and routes in its own section).
    pub fn describe(&self) -> String {
        use DispatchEvent::*;
        let p = |p: &Pos| format!("({:.1}, {:.1})", p.x, p.y);
        let ids = |d: &[DispatchId]| {
            d.iter()
                .map(|d| format!("#{}", d.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Sent {
                dispatch, from, to, ..
            } => format!(
                "Dispatch #{} written by officer {} to officer {}.",
                dispatch.0, from.0, to.0
            ),
            NotSent {
                dispatch, reason, ..
            } => format!("Dispatch #{} not sent: {reason}.", dispatch.0),
            OrderSent { order, unit, .. } => {
                format!("Order #{order} to unit {} goes by courier.", unit.0)
            }
            Departed { messenger, at, .. } => {
                format!("Messenger {} sets off from {}.", messenger.0, p(at))
            }
            Moved {
                messenger,
                from,
                to,
                ..
            } => format!(
                "Messenger {} rides from {} to {}.",
                messenger.0,
                p(from),
                p(to)
            ),
            Redirected {
                messenger, now_to, ..
            } => format!(
                "Messenger {} now rides for officer {}.",
                messenger.0, now_to.0
            ),
            Delivered { dispatch, to, .. } => format!(
                "Dispatch #{} delivered, unread, to officer {}.",
                dispatch.0, to.0
            ),
            OrderArrived {
                order,
                unit,
                effective_turn,
                ..
            } => format!(
                "Courier order #{order} reaches unit {}; in force from turn {effective_turn}.",
                unit.0
            ),
            Read {
                dispatch,
                by,
                roll,
                ability,
                ..
            } => format!(
                "Officer {} reads dispatch #{} (d6 {roll} against command ability {ability}: read on {ability} or less; SFRM Table 2 less any Table 3 penalty, once an SFRM turn).",
                by.0, dispatch.0
            ),
            NotRead {
                dispatch,
                by,
                roll,
                ability,
                ..
            } => format!(
                "Officer {} does not yet read dispatch #{} (d6 {roll} against command ability {ability}: read on {ability} or less; SFRM Table 2 less any Table 3 penalty, once an SFRM turn).",
                by.0, dispatch.0
            ),
            Casualty {
                messenger,
                roll,
                dice,
                result,
                ..
            } => {
                let rolled = match dice.as_slice() {
                    [a, b] => format!("2d6 {a}+{b} = {roll}"),
                    _ => roll.to_string(),
                };
                format!(
                    "Messenger {} rolls {rolled} on SFRM Table 3 (officer casualties): {result:?}.",
                    messenger.0
                )
            }
            Captured {
                messenger,
                dispatches,
                at,
                ..
            } => format!(
                "Messenger {} captured at {} with dispatches [{}].",
                messenger.0,
                p(at),
                ids(dispatches)
            ),
            Lost {
                messenger,
                dispatches,
                ..
            } => format!(
                "Messenger {} lost with dispatches [{}].",
                messenger.0,
                ids(dispatches)
            ),
            OrderUndeliverable { order, unit, .. } => {
                format!("Courier order #{order}: unit {} is off the table.", unit.0)
            }
            PassedToEnemyGeneral {
                dispatch, officer, ..
            } => format!(
                "Captured dispatch #{} handed to officer {}.",
                dispatch.0, officer.0
            ),
        }
    }

    /// The events `side` may see, in order.
    pub fn filter_for(events: &[DispatchEvent], side: SideId) -> Vec<DispatchEvent> {
        events
            .iter()
            .filter(|e| e.visible_to(side))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #14: a Table 3 roll is told with both its dice.
    #[test]
    fn table_3_is_told_with_its_dice() {
        let e = DispatchEvent::Casualty {
            messenger: MessengerId(3),
            side: SideId(0),
            roll: 7,
            dice: vec![3, 4],
            result: CasualtyResult::ShotsScatter,
            witness: Some(SideId(1)),
            turn: 2,
        };
        assert!(
            e.describe().contains("rolls 2d6 3+4 = 7 on SFRM Table 3"),
            "{}",
            e.describe()
        );
        let r = DispatchEvent::NotRead {
            dispatch: DispatchId(1),
            by: OfficerId(2),
            side: SideId(0),
            roll: 5,
            ability: 3,
            turn: 12,
        };
        assert!(r.describe().contains("d6 5 against command ability 3"));
        assert!(r.describe().contains("SFRM Table 2"));
    }
}
