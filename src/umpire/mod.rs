//! Umpire-assisted games (issue #8): the umpire reads what the parser
//! cannot, settles what the rules leave open (APSoF I.C.2), and controls the
//! game; Adjutant does the measuring, rolling and reporting.
//!
//! - [`command`]: the umpire's command language, pure, shared by mail and
//!   the `adjutant umpire` command line.
//! - [`principal`]: the umpire as a principal (address, secret, reply
//!   tokens, the game's maximum pause).
//! - [`exec`]: the executor: every command of a mail or a command line in
//!   one transaction, each all-or-nothing, each audited.
//! - `pause` and `notice` live in the game lifecycle (`game::pause`,
//!   `game::notice`): a pause and its automatic end, and the notices to
//!   players, are the game's; the umpire's commands call them.
//! - [`turns`]: held turns, `RELEASE`, `REDO`, `SET`, rollback, umpire dice
//!   and free-text interpretation, called by the executor.

pub mod command;
pub mod exec;
pub mod principal;
pub use crate::game::{notice, pause};
pub mod turns;

pub use command::{
    Command, CommandError, DiceMode, Located, Parsed, SetValue, parse, parse_duration,
};
