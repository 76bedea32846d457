//! Shared helpers for integration tests.

pub mod fake_smtp;
pub mod mailservers;
