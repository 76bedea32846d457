//! SFRM (*ACW Shit For Real Men*) messenger rules: written dispatches
//! between generals carried by messenger elements, the read roll against
//! command ability (Table 2), officer casualties and capture (Table 3), and
//! courier orders as a scenario option.
//!
//! Pure like the rest of `rules`: no I/O, no clock, dice from a
//! [`crate::dice::DiceSource`]. The engine keeps a [`DispatchState`] beside
//! the battle state, writes with [`DispatchState::write_dispatch`] /
//! [`DispatchState::courier_order`] in the order phase, and calls
//! [`advance()`] once a turn. Rulings: docs/rulings-sfrm.md.
//!
//! [`battle`] is SFRM's own brigade-scale game (1" = 100 yd, 30-minute
//! turns) as a pure rules core, not yet wired into the game lifecycle.

pub mod advance;
pub mod battle;
pub mod events;
pub mod rout;
pub mod scale;
pub mod state;
pub mod table2;
pub mod table3;

pub use advance::advance;
pub use events::DispatchEvent;
pub use rout::{rout_move, rout_move_inches};
pub use scale::{DELIVERY_RADIUS, MESSENGER_YARDS_PER_MINUTE, Scale, ScaleError};
pub use state::{
    Capture, CourierOrder, CourierStatus, Destination, Dispatch, DispatchError, DispatchId,
    DispatchState, DispatchStatus, Holder, Messenger, MessengerId,
};
pub use table2::{SfrmStats, StatPenalty};
pub use table3::{
    CasualtyResult, CasualtyRollError, OfficerCasualty, OfficerHit, Removal, officer_casualty,
    roll_2d6, roll_2d6_dice, table3,
};
