//! Umpire-assisted games (issue #8): the umpire reads what the parser
//! cannot, settles what the rules leave open (APSoF I.C.2), and controls the
//! game; Adjutant does the measuring, rolling and reporting.
//!
//! - [`command`]: the umpire's command language, pure, shared by mail and
//!   the `adjutant umpire` command line.
//! - [`turns`]: held turns, `RELEASE`, `REDO`, `SET`, rollback, umpire dice
//!   and free-text interpretation, called by the executor.

pub mod command;
pub mod turns;

pub use command::{
    Command, CommandError, DiceMode, Located, Parsed, SetValue, parse, parse_duration,
};
