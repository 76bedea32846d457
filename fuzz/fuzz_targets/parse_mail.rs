//! Fuzz the written-order parser: any bytes a player can mail must give a
//! `ParsedMail`, never a panic, with every reported position inside the
//! text. Run (stable toolchain, from the repository root):
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run parse_mail /tmp/work-corpus fuzz/corpus/parse_mail`
//! (new inputs go to the first, scratch directory; only crashers and a
//! minimal seed set are kept in `fuzz/corpus/`, which `tests/fuzz_corpus.rs`
//! replays as a normal test).
#![no_main]

use adjutant::game::battle_state_from_scenario;
use adjutant::orders::{
    ParseContext, expected_effective_turn, normalise, parse_mail, scenario_aliases,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, SideId, UnitId};
use libfuzzer_sys::fuzz_target;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

struct Game {
    state: BattleState,
    aliases: BTreeMap<String, UnitId>,
    places: BTreeMap<String, Pos>,
    yards_per_inch: f64,
}

static GAME: LazyLock<Game> = LazyLock::new(|| {
    let text = include_str!("../../scenarios/training.toml");
    let scenario = adjutant::scenario::Scenario::from_toml_str(text, "training.toml")
        .expect("the training scenario is valid");
    let mut state = battle_state_from_scenario(&scenario);
    state.options.advanced_organization = true;
    let (aliases, places) = scenario_aliases(&scenario, &state);
    Game {
        state,
        aliases,
        places,
        yards_per_inch: scenario.yards_per_inch,
    }
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let g = &*GAME;
    let ctx = ParseContext {
        state: &g.state,
        side: SideId(0),
        player_officers: vec![OfficerId(1)],
        visible_enemies: [UnitId(6), UnitId(8)].into_iter().collect::<BTreeSet<_>>(),
        // Identities known: every name the grammar reads is in play.
        enemy_names: adjutant::identity::EnemyNames::new(adjutant::identity::IdentityPolicy::Known),
        yards_per_inch: g.yards_per_inch,
        turn: 3,
        aliases: g.aliases.clone(),
        place_aliases: g.places.clone(),
        cache: Default::default(),
    };
    let m = parse_mail(text, &ctx);
    let lines = text.split('\n').count();
    for e in &m.errors {
        assert!(e.line >= 1 && e.line <= lines.max(1));
    }
    for i in &m.items {
        assert!(i.span().end <= text.len());
        let _ = normalise(i, &ctx);
        let _ = expected_effective_turn(i, &ctx);
    }
});
