//! Errors from loading a scenario.
//!
//! A scenario author fixes a file in one sitting only if they see every
//! mistake at once, so validation collects [`Problem`]s rather than stopping
//! at the first, and each one names its TOML path and line.

use std::fmt;
use std::path::PathBuf;

/// One thing wrong with a scenario file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// TOML path of the offending value, e.g. `units[3].weapon` (empty for
    /// the whole document).
    pub path: String,
    /// 1-based line in the file, when it could be located.
    pub line: Option<usize>,
    /// What is wrong and, where possible, what to write instead.
    pub message: String,
}

impl Problem {
    /// A problem whose line is filled in later from the path.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            line: None,
            message: message.into(),
        }
    }
}

/// Why a scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error(
        "cannot read scenario file {path}: {source}\n  hint: check the path; scenarios ship in the `scenarios/` directory"
    )]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}", render_invalid(origin, problems))]
    Invalid {
        origin: String,
        problems: Vec<Problem>,
    },
}

impl ScenarioError {
    /// The problems of an `Invalid` error (empty for `Read`).
    pub fn problems(&self) -> &[Problem] {
        match self {
            ScenarioError::Invalid { problems, .. } => problems,
            ScenarioError::Read { .. } => &[],
        }
    }
}

/// `origin:line: path: message`, one problem per line, after a summary line.
fn render_invalid(origin: &str, problems: &[Problem]) -> String {
    let mut out = String::new();
    let count = problems.len();
    let noun = if count == 1 { "problem" } else { "problems" };
    out.push_str(&format!(
        "scenario {origin} is not valid ({count} {noun}; fix them and load it again):"
    ));
    for p in problems {
        out.push('\n');
        out.push_str(&p.to_string_with_origin(origin));
    }
    out
}

impl Problem {
    fn to_string_with_origin(&self, origin: &str) -> String {
        let mut s = String::from(origin);
        if let Some(line) = self.line {
            s.push_str(&format!(":{line}"));
        }
        s.push_str(": ");
        if !self.path.is_empty() {
            s.push_str(&self.path);
            s.push_str(": ");
        }
        s.push_str(&self.message);
        s
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}
