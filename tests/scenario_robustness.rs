//! Whatever text arrives, loading a scenario returns a value or an error;
//! it never panics.

use adjutant::scenario::Scenario;
use proptest::prelude::*;

const TRAINING: &str = include_str!("../scenarios/training.toml");

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        let _ = Scenario::from_toml_str(&text, "fuzz");
    }

    /// A real scenario cut short anywhere, or with one line removed, gives
    /// problems rather than a panic.
    #[test]
    fn damaged_scenarios_report_problems(cut in 0usize..TRAINING.len(), drop in 0usize..300) {
        let cut = (0..=cut).rev().find(|i| TRAINING.is_char_boundary(*i)).unwrap_or(0);
        if let Err(e) = Scenario::from_toml_str(&TRAINING[..cut], "cut") {
            prop_assert!(!e.problems().is_empty());
        }
        let dropped: String = TRAINING
            .lines()
            .enumerate()
            .filter(|(i, _)| *i != drop)
            .map(|(_, l)| format!("{l}\n"))
            .collect();
        if let Err(e) = Scenario::from_toml_str(&dropped, "dropped") {
            prop_assert!(!e.problems().is_empty());
        }
    }
}
