//! The fuzz corpora (`fuzz/corpus/<target>/`: a minimal seed set plus every
//! input that ever crashed a target) run through the same checks as the
//! cargo-fuzz targets, as a normal test, so CI guards against regressions
//! without a fuzzer. Each file must parse without a panic and the order
//! parser's positions must lie inside the text.

use adjutant::game::battle_state_from_scenario;
use adjutant::mail::auth::extract_password;
use adjutant::mail::bounce::read_bounce;
use adjutant::mail::classify::classify;
use adjutant::mail::parse::{Limits, parse_inbound};
use adjutant::mail::quote::strip_quotes;
use adjutant::orders::{
    ParseContext, expected_effective_turn, normalise, parse_mail, scenario_aliases,
};
use adjutant::rules::iron_brigade::state::{OfficerId, SideId, UnitId};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// As `fuzz/fuzz_targets/parse_mail.rs`.
#[test]
fn the_order_parser_corpus_parses_without_panic() {
    let text = include_str!("../scenarios/training.toml");
    let scenario = adjutant::scenario::Scenario::from_toml_str(text, "training.toml").unwrap();
    let mut state = battle_state_from_scenario(&scenario);
    state.options.advanced_organization = true;
    let (aliases, places) = scenario_aliases(&scenario, &state);
    let ctx = ParseContext {
        state: &state,
        side: SideId(0),
        player_officers: vec![OfficerId(1)],
        visible_enemies: [UnitId(6), UnitId(8)].into_iter().collect::<BTreeSet<_>>(),
        // The grammar's tests name the enemy: identities known.
        enemy_names: adjutant::identity::EnemyNames::new(adjutant::identity::IdentityPolicy::Known),
        yards_per_inch: scenario.yards_per_inch,
        turn: 3,
        aliases,
        place_aliases: places,
        cache: Default::default(),
    };
    for (path, bytes) in corpus("parse_mail") {
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let m = parse_mail(text, &ctx);
        let lines = text.split('\n').count();
        for e in &m.errors {
            assert!(
                e.line >= 1 && e.line <= lines.max(1),
                "{}: line {} outside 1..={lines}",
                path.display(),
                e.line
            );
        }
        for i in &m.items {
            assert!(i.span().end <= text.len(), "{}", path.display());
            let _ = normalise(i, &ctx);
            let _ = expected_effective_turn(i, &ctx);
        }
    }
}

/// As `fuzz/fuzz_targets/parse_inbound.rs`.
#[test]
fn the_inbound_mail_corpus_parses_without_panic() {
    let ours = vec!["adjutant@example.test".to_string()];
    for (_, bytes) in corpus("parse_inbound") {
        let p = parse_inbound(&bytes, &Limits::default());
        let _ = classify(&p, &ours, "example.test");
        let _ = read_bounce(&p, true);
        let (text, _) = strip_quotes(&p.text);
        let _ = extract_password(&text);
    }
}
