//! Iron Brigade, *A Perfect Sheet of Flame* (APSoF): the tactical ruleset.
//!
//! The table is a continuous plane in inches at 1" = 25 yd; a turn is 2.5
//! minutes (APSoF IV.A).

pub mod delay;
pub mod events;
pub mod fire;
pub mod geometry;
pub mod kinds;
pub mod morale;
pub mod movement;
pub mod obstacles;
pub mod orders;
pub mod pontoons;
pub mod sight;
pub mod state;
pub mod turn;
pub mod weapons;
