//! Rulesets. Everything under here is pure: no SQL, no mail, no clock, no
//! global randomness. Dice arrive through [`crate::dice::DiceSource`].

pub mod iron_brigade;
pub mod sfrm;
