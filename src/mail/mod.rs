//! Mail in and mail out.
//!
//! Everything here is pure or plain file I/O: parsing and cleaning inbound
//! mail ([`parse`], [`quote`]), deciding whether it may be answered
//! ([`classify`], [`bounce`]), proving who sent it ([`token`], [`auth`]),
//! Maildir inbox and outbox ([`maildir`]) and building replies ([`compose`]).
//! Network transports live beside these modules.

pub mod address;
pub mod auth;
pub mod bounce;
pub mod classify;
pub mod compose;
pub mod maildir;
pub mod parse;
pub mod quote;
pub mod token;
// pub mod imap;  (network transport, written separately)
// pub mod smtp;  (network transport, written separately)
