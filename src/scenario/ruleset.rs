//! Iron Brigade's seat in the ruleset registry ([`crate::rulesets::RULESETS`]).
//!
//! Its scenario schema still lives in `src/scenario/` and its order
//! language, views and lifecycle glue in `src/orders/`, `src/report/` and
//! `src/game/`; they move behind this seat as the boundary is finished
//! (ARCHITECTURE.md, "The ruleset boundary").

use super::{Scenario, ScenarioError};
use crate::rules::{IRON_BRIGADE, Ruleset, ScenarioCheck};

/// *Iron Brigade: A Perfect Sheet of Flame* at regiment scale.
pub struct IronBrigade;

impl Ruleset for IronBrigade {
    fn id(&self) -> &'static str {
        IRON_BRIGADE
    }

    fn name(&self) -> &'static str {
        "Iron Brigade (A Perfect Sheet of Flame), regiment scale"
    }

    fn by_mail(&self) -> bool {
        true
    }

    fn check_scenario(&self, text: &str, origin: &str) -> Result<ScenarioCheck, ScenarioError> {
        let s = Scenario::from_toml_str(text, origin)?;
        Ok(ScenarioCheck {
            headline: format!(
                "`{}` is valid: {} sides, {} players, {} officers, {} units, {} turns",
                s.name,
                s.sides.len(),
                s.players.len(),
                s.officers.len(),
                s.units.len(),
                s.last_turn
            ),
            notes: Vec::new(),
            json: serde_json::json!({
                "valid": true,
                "ruleset": IRON_BRIGADE,
                "name": s.name,
                "sides": s.sides.len(),
                "players": s.players.len(),
                "officers": s.officers.len(),
                "units": s.units.len(),
                "turns": s.last_turn,
            }),
        })
    }

    fn calc_rules(&self) -> &'static [&'static str] {
        &[
            "fire",
            "combined-fire",
            "delay",
            "rally",
            "panic",
            "contact",
            "double-quick",
            "alternate-fire",
            "officer-casualty",
        ]
    }
}
