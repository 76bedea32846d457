//! The ruleset registry and the gate every loader passes.
//!
//! [`RULESETS`] holds one line per ruleset, each a value of a type
//! implementing [`crate::rules::Ruleset`]. Adding a ruleset means writing
//! its module (`src/rules/<name>/`, its seat implementing the trait) and
//! adding its line here. It sits above `crate::rules` and
//! `crate::scenario` because Iron Brigade's seat is its scenario schema's
//! (`crate::scenario::ruleset`).
//!
//! Everything that loads a game's scenario or state asks here first
//! ([`ruleset_of_scenario`], [`require_by_mail`]): a ruleset that is not
//! yet playable by mail is refused with a clear error rather than misread
//! as Iron Brigade.

use crate::rules::{IRON_BRIGADE, Ruleset, declared_ruleset};

/// The registry: one line per ruleset. The first is the default, for
/// scenarios that name none.
pub static RULESETS: &[&dyn Ruleset] = &[
    &crate::scenario::ruleset::IronBrigade,
    &crate::rules::sfrm::battle::seat::SfrmRuleset,
];

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
            hint: crate::scenario_text::names::nearest(id, RULESETS.iter().map(|r| r.id()))
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
        assert!(r.by_mail());
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
        let text = include_str!("../scenarios/training.toml");
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
        assert!(require_by_mail("sfrm").is_ok());
        assert!(require_by_mail("glory-days").is_err());
    }
}
