//! Mail in and mail out.
//!
//! Everything here is pure or plain file I/O: parsing and cleaning inbound
//! mail ([`parse`], [`quote`]), deciding whether it may be answered
//! ([`classify`], [`bounce`]), proving who sent it ([`token`], [`auth`]),
//! Maildir inbox and outbox ([`maildir`]) and building replies ([`compose`]).
//! The network transports are [`imap`] (intake) and [`smtp`] (sending).
//! [`inbox`], [`intake`] and [`outbox`] join all of it to the store: raw
//! mail in, answers queued, queued mail out.

pub mod address;
pub mod auth;
pub mod bounce;
pub mod classify;
pub mod compose;
pub mod imap;
pub mod inbox;
pub mod intake;
pub mod maildir;
pub mod outbox;
pub mod parse;
pub mod quote;
pub mod smtp;
pub mod token;
