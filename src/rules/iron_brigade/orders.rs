//! Orders as the adjudicator understands them: the contract between the
//! written-order parser (`crate::orders`) and the turn engine.
//!
//! APSoF I.C: every action of a unit comes from a written order passed down
//! the chain of command; the order takes effect after a delay that depends on
//! the issuing officer's distance (I.C.1), and new orders replace pending
//! ones unless written to follow them (I.B.1.i). Officers move without orders
//! (I.B.1.i, IV.D).
//!
//! Places are resolved to table positions when the order is read (the parser
//! knows the landmarks and what the player's side can see); targets that move
//! stay symbolic ([`UnitId`]) and are looked up when the order executes.

use super::kinds::{Arm, Formation, Obstacle};
use super::state::{OfficerId, Pos, UnitId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A direction a unit is told to face.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "value")]
pub enum Direction {
    /// Compass degrees, 0 = north, clockwise ("north-west" is 315).
    Degrees(f64),
    /// Toward a point on the table.
    Toward(Pos),
    /// Toward a unit, wherever it is when the order executes.
    TowardUnit(UnitId),
    /// 180° from the present facing ("about face", APSoF III.I.2).
    About,
}

/// Whom a unit fires at (APSoF V; I.B.4.i.b: units may always fire at
/// enemies in their field of fire, in range and visible).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "value")]
pub enum FireTarget {
    /// The best target in the fire zone: the nearest visible enemy.
    AtWill,
    /// A named enemy unit.
    Unit(UnitId),
    /// The nearest visible enemy of one arm ("the nearest enemy battery").
    NearestOf(Arm),
}

/// How many of a unit's firing castings one part of a split fire takes
/// (APSoF V.F.2: "in any manner desired by the firing unit's commander").
/// Shares are counted against the castings that can fire when the part
/// fires (V.C.4), not the unit's whole strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "value")]
pub enum FireShare {
    /// This many castings (fewer if fewer are left to fire).
    Castings(u32),
    /// Half of the castings that can fire, rounded down.
    Half,
    /// Whatever the other parts leave.
    Rest,
}

/// One part of a split fire (APSoF V.F.2): a share of the castings and
/// whom they fire at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirePart {
    pub share: FireShare,
    pub target: FireTarget,
}

/// How a unit covers ground.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gait {
    /// The movement and fire phase's move (APSoF I.B.4).
    #[default]
    March,
    /// The double quick phase (APSoF I.B.3, VI.D.4).
    DoubleQuick,
}

/// A move to a place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveOrder {
    /// Where to go, in order; the last is the destination.
    pub waypoints: Vec<Pos>,
    /// March by road where a road serves (APSoF IV.G roads).
    pub by_road: bool,
    /// Formation to take for the move (before moving).
    pub formation: Option<Formation>,
    pub gait: Gait,
    /// Fire while advancing (a split move with fire, APSoF I.B.4.ii.d).
    pub fire_while_moving: bool,
    /// Move backwards, keeping the facing (APSoF IV.G: infantry 3").
    pub backwards: bool,
}

/// One thing a unit is told to do. A written order is a sequence of these
/// ("march to the woods, then form line facing north").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "action")]
pub enum Action {
    /// Advance, march, move to a place.
    Move(MoveOrder),
    /// Retreat or withdraw to a place (moves away; facing kept when backing).
    Retreat(MoveOrder),
    /// Charge: move to contact with a target or toward a place (APSoF VI.D.3).
    Charge {
        target: Option<UnitId>,
        to: Option<Pos>,
        gait: Gait,
    },
    /// Change formation, optionally facing a new way (APSoF III).
    Form {
        formation: Formation,
        facing: Option<Direction>,
    },
    /// Change facing (APSoF III.I).
    Face(Direction),
    /// Fire (APSoF V).
    Fire(FireTarget),
    /// Fire combined with other units of the writer's command at one
    /// target (APSoF V.F.1): one attack, divided by the highest divisor of
    /// any unit involved. The partners join if they fire this turn and can
    /// engage the target; each fires on its own otherwise.
    FireWith {
        target: FireTarget,
        with: Vec<UnitId>,
    },
    /// The unit's castings split to fire at several targets (APSoF V.F.2),
    /// each part resolved as its own fire. Castings no part takes hold
    /// their fire.
    SplitFire {
        parts: Vec<FirePart>,
    },
    /// Hold fire until told otherwise.
    HoldFire,
    /// Stay where you are (and fire at will unless told to hold fire).
    Hold,
    /// APSoF III.J.
    LieDown,
    StandUp,
    /// Artillery (APSoF III.D).
    Limber,
    Unlimber {
        facing: Option<Direction>,
    },
    /// Cavalry (APSoF III.H).
    Mount,
    Dismount,
    /// Split into two units (APSoF VII; option `split-units`).
    Split {
        castings: u32,
        new_name: String,
    },
    /// Combine with another unit (APSoF VII; option `split-units`).
    Combine {
        with: UnitId,
    },
    /// Work on the obstacle the unit is in contact with, two whole turns:
    /// clear a path through abatis (APSoF VIII.D) or fill in a ditch or
    /// moat (VIII.E), castings × 1/2" wide along its facing.
    ClearObstacle {
        obstacle: Obstacle,
    },
    /// Unload the side's pontoon boats the unit is at from their wagons
    /// (four turns), or cross the stream in them (APSoF IV.E.2).
    Pontoons {
        task: super::kinds::PontoonTask,
    },
    /// Follow (conform to) the moves of another unit of the side: each
    /// turn, after the leader has moved, it moves (its own move) toward the
    /// station it had on that unit when the order was read, `right` and
    /// `ahead` inches in the leader's frame, from where the leader then
    /// stands. Standing while it is the last step ("follow the 7th",
    /// "conform to the 7th").
    Follow {
        unit: UnitId,
        right: f64,
        ahead: f64,
    },
}

/// When a step of an order begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// Straight after the previous step ("then").
    #[default]
    Then,
    /// Only once the previous move has arrived ("on arrival", "upon reaching").
    OnArrival,
}

/// One step of a written order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub trigger: Trigger,
    pub action: Action,
}

/// A written order to one unit (APSoF I.C).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitOrder {
    /// The store's id of the order row, for receipts and reports.
    pub id: u64,
    pub unit: UnitId,
    /// The officer the order comes from; the delay depends on his distance
    /// and on whether he is in the unit's chain of command (APSoF I.C.1).
    pub issued_by: OfficerId,
    /// The turn in whose order phase it was written.
    pub issued_turn: u32,
    /// Written to follow the pending orders instead of replacing them
    /// (APSoF I.B.1.i).
    pub follows_previous: bool,
    pub steps: Vec<Step>,
}

/// An officer's own move: officers need no orders (APSoF I.B.1.i, IV.D).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OfficerMove {
    pub officer: OfficerId,
    pub waypoints: Vec<Pos>,
    /// Double time: allowed every turn he gives no orders, and then he is in
    /// transit and affects no morale (APSoF IV.D).
    pub double_time: bool,
    /// "Ride with the 10th Ohio": he accompanies that unit of his side,
    /// riding (after the units' moves) to where it stands once it has
    /// moved, as far as his move allows (APSoF IV.D). The waypoints, if
    /// any, are ridden first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with_unit: Option<UnitId>,
}

/// An order waiting for its turn, or being carried out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookedOrder {
    pub order: UnitOrder,
    /// The turn from which it is carried out (APSoF I.C.1).
    pub effective_turn: u32,
    /// Index of the step being carried out (0 before it starts).
    pub current_step: usize,
}

/// Every unit's orders between turns: the active order and those pending,
/// in the order they will take over. Part of what the turn engine carries
/// from one turn to the next, beside the [`super::state::BattleState`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OrderBook {
    pub units: BTreeMap<UnitId, Vec<BookedOrder>>,
}

/// What the players wrote for one turn: new unit orders (not yet delayed —
/// the engine rolls and books them in the order phase) and officers' moves.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TurnOrders {
    pub unit_orders: Vec<UnitOrder>,
    pub officer_moves: Vec<OfficerMove>,
    /// Dispatches written this turn (SFRM "Discussions of Strategy &
    /// Tactics During Play"): each leaves its writer's general with a
    /// messenger in this turn. Left out of the JSON while empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dispatches: Vec<WrittenDispatch>,
}

/// A dispatch as the player wrote it, for the engine: the store's id of its
/// row, the writing general, the addressee and the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrittenDispatch {
    pub id: u32,
    pub from: OfficerId,
    pub to: OfficerId,
    pub text: String,
}

impl OrderBook {
    /// The order a unit is carrying out on `turn`: the latest booked order
    /// whose effective turn has come.
    pub fn active(&self, unit: UnitId, turn: u32) -> Option<&BookedOrder> {
        self.units
            .get(&unit)?
            .iter()
            .rev()
            .find(|b| b.effective_turn <= turn)
    }

    /// Orders of a unit not yet in effect on `turn`.
    pub fn pending(&self, unit: UnitId, turn: u32) -> impl Iterator<Item = &BookedOrder> {
        self.units
            .get(&unit)
            .into_iter()
            .flatten()
            .filter(move |b| b.effective_turn > turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(id: u64) -> UnitOrder {
        UnitOrder {
            id,
            unit: UnitId(1),
            issued_by: OfficerId(1),
            issued_turn: 1,
            follows_previous: false,
            steps: vec![Step {
                trigger: Trigger::Then,
                action: Action::Hold,
            }],
        }
    }

    #[test]
    fn active_is_latest_in_effect_and_pending_the_rest() {
        let mut book = OrderBook::default();
        book.units.insert(
            UnitId(1),
            vec![
                BookedOrder {
                    order: order(1),
                    effective_turn: 1,
                    current_step: 0,
                },
                BookedOrder {
                    order: order(2),
                    effective_turn: 3,
                    current_step: 0,
                },
            ],
        );
        assert_eq!(book.active(UnitId(1), 2).map(|b| b.order.id), Some(1));
        assert_eq!(book.active(UnitId(1), 3).map(|b| b.order.id), Some(2));
        assert_eq!(book.pending(UnitId(1), 2).count(), 1);
        assert!(book.active(UnitId(9), 2).is_none());
    }

    #[test]
    fn orders_round_trip_as_json() {
        let o = UnitOrder {
            steps: vec![
                Step {
                    trigger: Trigger::Then,
                    action: Action::Move(MoveOrder {
                        waypoints: vec![Pos::new(10.0, 20.0)],
                        by_road: true,
                        formation: Some(Formation::Column),
                        gait: Gait::March,
                        fire_while_moving: false,
                        backwards: false,
                    }),
                },
                Step {
                    trigger: Trigger::OnArrival,
                    action: Action::Form {
                        formation: Formation::Line,
                        facing: Some(Direction::Degrees(0.0)),
                    },
                },
            ],
            ..order(5)
        };
        let json = serde_json::to_string(&o).unwrap();
        let back: UnitOrder = serde_json::from_str(&json).unwrap();
        assert_eq!(back, o);
    }
}
