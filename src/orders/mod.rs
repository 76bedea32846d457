//! The written-order language (design.md "Written orders", APSoF I.C.2):
//! players write short paragraphs, one per unit, that read like what a
//! general would tell a colonel; this module turns them into the turn
//! engine's [`Step`]s, resolving names and places against what the player's
//! side owns and can see.
//!
//! Layers, each in its own file: [`lexer`] (tokens with byte spans),
//! [`names`] (abbreviation-tolerant matching and suggestions), [`context`]
//! (what the player may name), [`mail`] (splitting a mail into items and
//! directives), [`parser`] (recursive descent over one order), [`render`]
//! (receipts and expected timing), [`loose`] (a second, looser reading of a
//! paragraph the grammar refused, marked in the receipt), [`prose`] (letters,
//! reports and third-person sentences rewritten into the language). Player documentation: `docs/orders.md`.
//!
//! Errors never leak: every name set the parser matches or suggests from is
//! built from the player's own side or the enemy units it can see, so an
//! unseen enemy's name is answered exactly like a nonsense word.

mod addressed;
pub mod context;
pub mod describe;
pub mod lexer;
mod loose;
mod mail;
pub mod names;
mod parser;
mod preamble;
mod prose;
mod render;

pub use context::{ParseContext, scenario_aliases};
pub use mail::parse_mail;
pub use parser::compass_degrees;
pub use render::{ExpectedTiming, expected_effective_turn, normalise, receipt_notes};

use crate::rules::iron_brigade::orders::{OfficerMove, Step};
use crate::rules::iron_brigade::state::{OfficerId, UnitId};

/// Byte range of the mail text something came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// One order read from a mail.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A written order to a unit (APSoF I.C).
    Unit {
        unit: UnitId,
        /// The officer it comes from: the `FROM` line above it, else the
        /// lowest of the player's officers in the unit's chain of command.
        issued_by: OfficerId,
        /// Written to follow the unit's pending orders ("afterwards, ...")
        /// instead of replacing them (APSoF I.B.1.i).
        follows_previous: bool,
        steps: Vec<Step>,
        /// What the receipt must say beside the steps: how a word outside
        /// the fixed vocabulary was read ("support the 6th" → a move to 2"
        /// behind it), and colour kept as colour ("at all costs").
        notes: Vec<String>,
        /// The paragraph as written.
        text: String,
        span: Span,
    },
    /// An officer's own move; officers need no orders (APSoF IV.D).
    Officer {
        order: OfficerMove,
        text: String,
        span: Span,
    },
}

impl Item {
    pub fn span(&self) -> Span {
        match self {
            Item::Unit { span, .. } | Item::Officer { span, .. } => *span,
        }
    }
}

/// Whom a dispatch is for: an officer of the player's side, or a name the
/// parser could not place (carried as written; the mail layer decides).
#[derive(Debug, Clone, PartialEq)]
pub enum DispatchTo {
    Officer(OfficerId),
    Name(String),
}

/// `DISPATCH TO <general>: "..."` — a message to be carried by a courier.
#[derive(Debug, Clone, PartialEq)]
pub struct DispatchRequest {
    pub to: DispatchTo,
    pub text: String,
    pub span: Span,
}

/// Something the parser could not accept, told so the player can fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderError {
    /// 1-based line of the mail text.
    pub line: usize,
    /// 1-based column (characters, not bytes).
    pub column: usize,
    /// The paragraph (order) the error is in, as written.
    pub paragraph: String,
    /// What is wrong and what was expected.
    pub message: String,
    /// Allowed names nearest to what was written.
    pub suggestions: Vec<String>,
    /// The player's units the paragraph's head named, when it named any:
    /// they keep their previous orders.
    pub units: Vec<UnitId>,
}

impl std::fmt::Display for OrderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )?;
        if !self.suggestions.is_empty() {
            write!(f, " (did you mean {}?)", self.suggestions.join(", "))?;
        }
        Ok(())
    }
}

/// Everything read from one player's mail.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedMail {
    /// Orders in the order they were written.
    pub items: Vec<Item>,
    /// `READY`: the player has finished this turn's orders.
    pub ready: bool,
    /// `REPORT [turn]`: `Some(None)` for the latest report.
    pub report_request: Option<Option<u32>>,
    /// `HISTORY [FROM n] [TO n]`.
    pub history: Option<(Option<u32>, Option<u32>)>,
    pub dispatches: Vec<DispatchRequest>,
    pub errors: Vec<OrderError>,
    /// Greetings and sign-offs ("Sir,", "Thanks,", "J. Gibbon") read as
    /// such and not as orders: the line and the line's text.
    pub courtesies: Vec<(usize, String)>,
    /// The writer's remarks: sentences that name none of his units or
    /// officers as the one ordered and give no order ("Sorry for the late
    /// orders!", "The woods could hide anything"), quoted in the receipt
    /// as not read as orders; the line and the sentence.
    pub remarks: Vec<(usize, String)>,
}
