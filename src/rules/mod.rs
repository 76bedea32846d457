//! Rulesets. Everything under here is pure: no SQL, no mail, no clock, no
//! global randomness. Dice arrive through [`crate::dice::DiceSource`].
//!
//! # The ruleset boundary
//!
//! A scenario names its ruleset in its `[scenario]` table (`ruleset =
//! "sfrm"`); a scenario without one is Iron Brigade. A game keeps its
//! scenario's ruleset for life in the store's `games.ruleset` column.
//! [`RULESETS`] is the registry: one line per ruleset, each a value of a
//! type implementing [`Ruleset`]. Adding a ruleset means writing its module
//! under `src/rules/`, implementing [`Ruleset`] there, and adding its line.
//!
//! Everything that loads a game's scenario or state asks the registry
//! first ([`ruleset_of_scenario`], [`require_by_mail`]): a ruleset that is
//! not yet playable by mail is refused with a clear error rather than
//! misread as Iron Brigade.

pub mod iron_brigade;
pub mod sfrm;

use crate::scenario::ScenarioError;
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

/// The registry: one line per ruleset. The first is the default, for
/// scenarios that name none.
pub static RULESETS: &[&dyn Ruleset] = &[
    &iron_brigade::ruleset::IronBrigade,
    &sfrm::battle::scenario::SfrmRuleset,
];

/// The id of the default ruleset (a scenario without `ruleset`).
pub const IRON_BRIGADE: &str = "iron-brigade";

/// Why a ruleset cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesetError {
    #[error("unknown ruleset `{given}`{hint} (known rulesets: {known})")]
    Unknown {
        given: String,
        hint: String,
        known: String,
    },
    #[error(
        "this game is played under {name} (ruleset `{id}`), which Adjutant cannot yet play by mail; `adjutant scenario check` checks its scenario and `adjutant calc` works its tables"
    )]
    NotByMail { id: String, name: String },
}

/// The ruleset with id `id`, or an error naming the known ones.
pub fn find(id: &str) -> Result<&'static dyn Ruleset, RulesetError> {
    let id = id.trim();
    RULESETS
        .iter()
        .copied()
        .find(|r| r.id() == id)
        .ok_or_else(|| RulesetError::Unknown {
            given: id.to_string(),
            hint: crate::scenario::names::nearest(id, RULESETS.iter().map(|r| r.id()))
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default(),
            known: known_list(),
        })
}

/// "`iron-brigade` (Iron Brigade ...), `sfrm` (...)".
pub fn known_list() -> String {
    RULESETS
        .iter()
        .map(|r| format!("`{}` ({})", r.id(), r.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The ruleset of a game whose `games.ruleset` is `id`, if it can be
/// played by mail; every place that loads a stored game's scenario or
/// state asks this first.
pub fn require_by_mail(id: &str) -> Result<&'static dyn Ruleset, RulesetError> {
    let r = find(id)?;
    if r.by_mail() {
        Ok(r)
    } else {
        Err(RulesetError::NotByMail {
            id: r.id().to_string(),
            name: r.name().to_string(),
        })
    }
}

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
            "`ruleset` must be a string naming a ruleset, not {}; known rulesets: {}",
            other.type_str(),
            known_list()
        )),
    }
}

/// The ruleset scenario text is written for: `[scenario] ruleset`, or Iron
/// Brigade when it names none.
pub fn ruleset_of_scenario(text: &str) -> Result<&'static dyn Ruleset, RulesetError> {
    match declared_ruleset(text) {
        Ok(Some(id)) => find(&id),
        Ok(None) => find(IRON_BRIGADE),
        Err(_) => Err(RulesetError::Unknown {
            given: "(not a string)".into(),
            hint: String::new(),
            known: known_list(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_ids_are_unique_and_iron_brigade_is_first() {
        assert_eq!(RULESETS[0].id(), IRON_BRIGADE);
        let mut ids: Vec<&str> = RULESETS.iter().map(|r| r.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RULESETS.len());
    }

    #[test]
    fn a_scenario_without_ruleset_is_iron_brigade() {
        let r = ruleset_of_scenario("[scenario]\nname = \"x\"\n").unwrap();
        assert_eq!(r.id(), IRON_BRIGADE);
        let r = ruleset_of_scenario("[scenario]\nruleset = \"sfrm\"\n").unwrap();
        assert_eq!(r.id(), "sfrm");
        assert!(!r.by_mail());
    }

    #[test]
    fn an_unknown_ruleset_lists_the_known_ones() {
        let e = ruleset_of_scenario("[scenario]\nruleset = \"sfmr\"\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("unknown ruleset `sfmr`"), "{e}");
        assert!(e.contains("did you mean `sfrm`?"), "{e}");
        assert!(e.contains("`iron-brigade`"), "{e}");
    }

    #[test]
    fn iron_brigade_scenarios_may_name_their_ruleset() {
        let text = include_str!("../../scenarios/training.toml");
        let named = text.replacen(
            "[scenario]\n",
            "[scenario]\nruleset = \"iron-brigade\"\n",
            1,
        );
        assert_ne!(named, text);
        let a = crate::scenario::Scenario::from_toml_str(text, "t").unwrap();
        let b = crate::scenario::Scenario::from_toml_str(&named, "t").unwrap();
        assert_eq!(a.name, b.name);
        assert_eq!(ruleset_of_scenario(&named).unwrap().id(), IRON_BRIGADE);
        let bad = text.replacen("[scenario]\n", "[scenario]\nruleset = 3\n", 1);
        let e = crate::scenario::Scenario::from_toml_str(&bad, "t")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("`ruleset` must be a string"), "{e}");
    }

    #[test]
    fn only_playable_rulesets_pass_the_mail_gate() {
        assert!(require_by_mail(IRON_BRIGADE).is_ok());
        let e = require_by_mail("sfrm").err().unwrap().to_string();
        assert!(e.contains("cannot yet play by mail"), "{e}");
        assert!(require_by_mail("glory-days").is_err());
    }
}
