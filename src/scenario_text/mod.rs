//! How any ruleset's scenario file is read as text: problems with their
//! TOML path and line ([`ScenarioError`], [`Problem`]), the span index that
//! finds a path's line (`spans`), "did you mean" for names (`names`), and
//! compass points (`compass`). A leaf: it knows no ruleset, so Iron
//! Brigade's scenario (`crate::scenario`) and SFRM's
//! (`crate::rules::sfrm::battle::scenario`) both stand on it.

pub mod compass;
mod error;
pub mod names;
pub mod spans;

pub use error::{Problem, ScenarioError};
