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
//! - [`pause`]: `PAUSE`/`RESUME` and the daemon's automatic resume.
//! - [`notice`]: the notices commands mail to players and the umpire.
//! - [`turns`]: held turns, `RELEASE`, `REDO`, `SET`, rollback, umpire dice
//!   and free-text interpretation, called by the executor.

pub mod command;
pub mod exec;
pub mod notice;
pub mod pause;
pub mod principal;
pub mod turns;

pub use command::{
    Command, CommandError, DiceMode, Located, Parsed, SetValue, parse, parse_duration,
};
