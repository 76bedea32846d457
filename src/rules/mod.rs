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
/// lives in its module and is reached through this trait. Today it carries
/// identity, whether the ruleset is playable by mail, and its standalone
/// scenario check; the order vocabulary, engine, views and narrative move
/// behind it as the Iron Brigade code leaves `src/game`, `src/orders` and
/// `src/report`.
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
