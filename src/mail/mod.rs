//! Mail in and mail out. (in progress)
pub mod imap;
pub mod smtp;
