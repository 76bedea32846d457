//! Rulesets. Everything under here is pure: no SQL, no mail, no clock, no
//! global randomness. Dice arrive through [`crate::dice::DiceSource`].
//!
//!
//! # The ruleset boundary
//!
//! A scenario names its ruleset in its `[scenario]` table (`ruleset =
//! "sfrm"`); a scenario without one is Iron Brigade ([`IRON_BRIGADE`]). A
//! game keeps its scenario's ruleset for life in the store's
//! `games.ruleset` column. [`Ruleset`] is what each ruleset offers the
//! rest of the program; the registry of them, and the gate every loader
//! passes, is [`crate::rulesets`], above this module and the scenario
//! module (Iron Brigade's seat is `crate::scenario::ruleset`, beside its
//! schema).

pub mod iron_brigade;
pub mod sfrm;

use crate::dice::DiceSource;
use crate::scenario_text::ScenarioError;
use serde::Deserialize;

/// What `adjutant scenario check` reports for a valid scenario of any
/// ruleset: a headline, further lines (costs, notes), and the same as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioCheck {
    /// One line: the scenario's name and what it holds.
    pub headline: String,
    /// Further lines, printed under the headline.
    pub notes: Vec<String>,
    /// The same for `--json` (always holds `"valid": true`).
    pub json: serde_json::Value,
}

/// One ruleset behind the boundary.
///
/// The game lifecycle (mail, store, deadlines, umpire control, dice,
/// replay, the archive) is ruleset-neutral; what knows a ruleset's nouns
/// lives in its module and is reached through this trait. It carries
/// identity, whether the ruleset is playable by mail, its standalone
/// scenario check, its `calc` tables, and its by-mail plane
/// ([`MailEngine`], through which SFRM is played); Iron Brigade's order
/// vocabulary, engine, views and narrative are still reached directly from
/// `src/game`, `src/orders` and `src/report`, to move behind it.
///
/// How the rulesets still to come fit:
/// - **Glory Days!** (alternating activation): its turn is a sequence of
///   activation rolls, each letting one side act with one command. By mail
///   the engine resolves the whole sequence from both sides' standing
///   orders, rolling initiative as it goes, exactly as SFRM resolves its
///   attacker's phase then the defender's: one set of orders per turn,
///   (state, orders, dice) -> (state, events).
/// - **CLS3** (Napoleonic tactics): a tactical ruleset of the same shape as
///   Iron Brigade (its own nouns, scenario schema, tables and `calc`
///   entries); only its module and one registry line are new.
/// - **Cast Iron Light** (strategic area movement, cards, economy): the
///   scenario is a map of areas and a deck; orders are moves between areas,
///   cards played and money spent; hidden hands are fog of war like unseen
///   units, held in the state the ruleset serialises and shown per side by
///   its own view. Tactical battles it generates may be handed to one of
///   the tactical rulesets as new games.
pub trait Ruleset: Sync {
    /// The id a scenario writes (`ruleset = "..."`) and the store keeps.
    fn id(&self) -> &'static str;
    /// The name shown to people.
    fn name(&self) -> &'static str;
    /// Whether a game of it can be created and played by mail yet.
    fn by_mail(&self) -> bool;
    /// Parse and validate scenario text of this ruleset for
    /// `adjutant scenario check`; `origin` names it in messages.
    fn check_scenario(&self, text: &str, origin: &str) -> Result<ScenarioCheck, ScenarioError>;
    /// The `adjutant calc` subcommands that work this ruleset's tables.
    fn calc_rules(&self) -> &'static [&'static str];
    /// The ruleset's by-mail plane, when the lifecycle drives it through
    /// serialised state ([`MailEngine`]); `None` for Iron Brigade, whose
    /// lifecycle glue still names its types in `src/game/`.
    fn mail_engine(&self) -> Option<&'static dyn MailEngine> {
        None
    }
}

/// One player of a game by mail, as the scenario names him.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailPlayer {
    pub name: String,
    pub side: String,
    pub addresses: Vec<String>,
    pub time_zone: Option<String>,
    /// The commands (generals, officers) he writes orders for.
    pub commands: Vec<String>,
}

/// A game opened from scenario text: what the store keeps of it.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenedGame {
    pub scenario_name: String,
    /// The state at the start of turn 1, as the ruleset serialises it.
    pub state_json: String,
    /// The sides, in the scenario's order (their names as the store keeps them).
    pub sides: Vec<String>,
    pub players: Vec<MailPlayer>,
    pub umpire: Option<String>,
    /// The scenario's last turn: the game ends when it has been played.
    pub last_turn: u32,
}

/// Something in an order mail not understood: where, and what would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailLineError {
    /// 1-based line of the body given to [`MailEngine::read_orders`].
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// One order mail read against a turn's state, for one side.
#[derive(Debug, Clone, PartialEq)]
pub struct OrdersRead {
    /// The orders understood, as [`MailEngine::resolve`] takes them back.
    pub orders_json: String,
    /// How many orders were understood (0: the mail changes nothing).
    pub orders: usize,
    /// The orders read back, line by line, in the side's own words:
    /// names only of its own troops and of enemy it sees.
    pub read_back: String,
    pub errors: Vec<MailLineError>,
}

/// One event of a turn, for the store's `events` rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineEvent {
    pub kind: String,
    pub data_json: String,
}

/// What resolving a turn made.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The state at the start of the next turn.
    pub state_json: String,
    /// The turn's events, every one, in order (the umpire's record).
    pub events: Vec<EngineEvent>,
    /// All the turn's events as one JSON array, for the reports made from
    /// it ([`MailEngine::side_report`]): exactly the array of
    /// [`Self::events`]' `data_json`, in order, so that the archive can
    /// rebuild it from the stored rows.
    pub events_json: String,
    /// When the turn played was the scenario's last: the verdict in words.
    pub verdict: Option<String>,
}

/// A report's content as the ruleset renders it; the lifecycle adds the
/// envelope (addresses, deadline, how to answer) and rasterises the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportContent {
    pub text: String,
    /// An HTML fragment (no `<html>`/`<body>`), escaped by the ruleset.
    pub html: String,
    /// The map as SVG, its viewBox the table in inches.
    pub svg: String,
}

/// Why the mail plane could not do what it was asked (stored state or
/// orders that do not read back, dice that failed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailEngineError {
    #[error("the stored scenario no longer reads: {0}")]
    Scenario(String),
    #[error("the stored {what} does not read: {problem}")]
    Stored { what: &'static str, problem: String },
    #[error("no side `{0}` in this game")]
    NoSide(String),
    #[error("the turn cannot be resolved: {0}")]
    Turn(String),
    /// An umpire's correction the ruleset will not take: why, and what
    /// would do (the unit names or fields it knows).
    #[error("{0}")]
    Refused(String),
}

/// An umpire's correction (`SET <unit> <field> <value>`) of one unit at the
/// start of a turn, read and checked by the ruleset
/// ([`MailEngine::correct`]).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineCorrection {
    /// The unit's name as the ruleset knows it.
    pub unit: String,
    /// The field corrected, in the ruleset's word for it.
    pub field: String,
    /// The new value and the value it replaces, in words.
    pub value: String,
    pub previous: String,
    /// The correction as [`MailEngine::apply_correction`] takes it back
    /// (what the store keeps, for processing, REDO and replay).
    pub correction_json: String,
}

/// One side's units in play, in the ruleset's own summary, for `adjutant
/// game show`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideUnits {
    /// The side as the store keeps it.
    pub side: String,
    /// One line per unit (name, arm, strength, formation, where, state).
    pub units: Vec<String>,
}

/// A ruleset's by-mail plane: pure functions over its serialised state, so
/// that the lifecycle (`src/game/`) creates a game, reads order mail,
/// resolves turns and sends reports without knowing the ruleset's nouns.
/// `scenario` is always the game's stored scenario text. Nothing here
/// touches SQL, mail or the clock; dice come through [`DiceSource`], each
/// roll with its purpose.
///
/// Fog of war is the implementation's duty: [`Self::read_orders`] and
/// [`Self::side_report`] never name an enemy the side has not seen.
pub trait MailEngine: Sync + std::fmt::Debug {
    /// Opens a game: the state at the start of turn 1, sides, players.
    fn open(&self, scenario: &str, origin: &str) -> Result<OpenedGame, ScenarioError>;

    /// Reads one order mail `body` for `side` against `state_json` (the
    /// turn's start state). Never fails on the player's words: what is
    /// understood counts, the rest comes back as errors with suggestions.
    fn read_orders(
        &self,
        scenario: &str,
        state_json: &str,
        side: &str,
        body: &str,
    ) -> Result<OrdersRead, MailEngineError>;

    /// Resolves the turn that starts at `state_json` with every side's
    /// orders (`(side, orders_json)` as [`Self::read_orders`] made them; a
    /// side may appear more than once, one entry per player).
    fn resolve(
        &self,
        scenario: &str,
        state_json: &str,
        orders: &[(String, String)],
        dice: &mut dyn DiceSource,
    ) -> Result<Resolved, MailEngineError>;

    /// What `side` is told after a turn (`events_json` from
    /// [`Resolved::events_json`]; `None`: the briefing before turn 1).
    fn side_report(
        &self,
        scenario: &str,
        state_json: &str,
        events_json: Option<&str>,
        side: &str,
    ) -> Result<ReportContent, MailEngineError>;

    /// Everything, for the umpire.
    fn umpire_report(
        &self,
        scenario: &str,
        state_json: &str,
        events_json: Option<&str>,
    ) -> Result<ReportContent, MailEngineError>;

    /// How to write orders in this ruleset, with examples drawn from the
    /// side's own troops and the scenario's places (for briefings).
    fn order_help(
        &self,
        scenario: &str,
        state_json: &str,
        side: &str,
    ) -> Result<String, MailEngineError>;

    /// Reads and checks an umpire's correction `written` as `<unit> <field>
    /// <value>` against `state_json` (a turn's start state, already
    /// corrected): [`MailEngineError::Refused`] with the names and fields
    /// that would do when it is not one the ruleset takes. Pure; the state
    /// is not changed (the lifecycle keeps the correction as an input).
    fn correct(
        &self,
        scenario: &str,
        state_json: &str,
        written: &str,
    ) -> Result<EngineCorrection, MailEngineError> {
        let _ = (scenario, state_json, written);
        Err(MailEngineError::Refused(
            "this ruleset takes no corrections".into(),
        ))
    }

    /// `state_json` with one correction applied
    /// ([`EngineCorrection::correction_json`]). Pure; processing, REDO and
    /// replay apply a turn's corrections in the order they were made.
    fn apply_correction(
        &self,
        scenario: &str,
        state_json: &str,
        correction_json: &str,
    ) -> Result<String, MailEngineError> {
        let _ = (scenario, correction_json);
        Ok(state_json.to_string())
    }

    /// Every side's units in play, for the organiser's `game show`.
    fn units(&self, scenario: &str, state_json: &str) -> Result<Vec<SideUnits>, MailEngineError> {
        let _ = (scenario, state_json);
        Ok(Vec::new())
    }
}

/// The id of the default ruleset (a scenario without `ruleset`).
pub const IRON_BRIGADE: &str = "iron-brigade";

#[derive(Deserialize)]
struct Peek {
    #[serde(default)]
    scenario: Option<PeekHeader>,
}

#[derive(Deserialize)]
struct PeekHeader {
    #[serde(default)]
    ruleset: Option<toml::Value>,
}

/// What `[scenario] ruleset` says in scenario text: `Ok(None)` when it
/// says nothing (Iron Brigade) or the text is not TOML at all (the Iron
/// Brigade loader then reports the syntax error with its line),
/// `Err(message)` when it is not a string.
pub fn declared_ruleset(text: &str) -> Result<Option<String>, String> {
    let Ok(peek) = toml::from_str::<Peek>(text) else {
        return Ok(None);
    };
    match peek.scenario.and_then(|h| h.ruleset) {
        None => Ok(None),
        Some(toml::Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!(
            "`ruleset` must be a string naming a ruleset, such as \"{IRON_BRIGADE}\", not {}",
            other.type_str()
        )),
    }
}
