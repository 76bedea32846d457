//! SFRM's seat in the ruleset registry ([`crate::rulesets::RULESETS`]):
//! its identity, scenario check, `calc` tables and mail plane
//! ([`super::mail_engine`]). Its own file, above both the scenario loader
//! and the mail plane, so that neither imports the other in a circle.

use crate::rules::{Ruleset, ScenarioCheck};
use crate::scenario_text::ScenarioError;

/// SFRM's seat in the ruleset registry: *ACW Shit For Real Men* at
/// brigade scale. Its scenarios load and check and its tables work in
/// `adjutant calc` (`calc sfrm-*`), and it is played by mail through its
/// mail plane ([`super::mail_engine`], docs/sfrm-by-mail.md).
pub struct SfrmRuleset;

impl Ruleset for SfrmRuleset {
    fn id(&self) -> &'static str {
        super::scenario::SFRM
    }

    fn name(&self) -> &'static str {
        "SFRM (ACW Shit For Real Men), brigade scale"
    }

    fn by_mail(&self) -> bool {
        true
    }

    fn check_scenario(&self, text: &str, origin: &str) -> Result<ScenarioCheck, ScenarioError> {
        super::scenario::from_toml_str(text, origin).map(|s| super::scenario::check_report(&s))
    }

    fn mail_engine(&self) -> Option<&'static dyn crate::rules::MailEngine> {
        Some(&super::mail_engine::SFRM_MAIL)
    }

    fn calc_rules(&self) -> &'static [&'static str] {
        &[
            "sfrm-combat",
            "sfrm-move",
            "sfrm-command",
            "sfrm-green",
            "sfrm-cost",
            "sfrm-weather",
        ]
    }
}
