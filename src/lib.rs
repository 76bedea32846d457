//! Adjutant: American Civil War miniature wargames by email.
//!
//! The crate is a functional core with an imperative shell (see
//! `ARCHITECTURE.md`): [`rules`] adjudicates turns as a pure function of
//! state, orders and dice; [`store`], [`mail`] and the binary do the I/O.

pub mod archive;
pub mod calc;
pub mod clock;
pub mod config;
pub mod daemon;
pub mod demo;
pub mod dice;
pub mod fsutil;
pub mod game;
pub mod identity;
pub mod mail;
pub mod orders;
pub mod report;
pub mod rules;
pub mod rulesets;
pub mod scenario;
pub mod scenario_text;
pub mod secret;
pub mod setup;
pub mod store;
pub mod umpire;
pub mod zones;
