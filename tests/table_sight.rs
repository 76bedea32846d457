//! Line of sight over a generated corps battle: determinism and speed.

use adjutant::rules::iron_brigade::sight::{Activity, SightIndex, side_visibility};
use adjutant::rules::iron_brigade::state::{SideId, UnitId, generate_corps_battle};
use std::collections::BTreeSet;
use std::time::Instant;

#[test]
fn corps_battle_visibility_is_deterministic_and_culled() {
    let state = generate_corps_battle(42);
    let none: BTreeSet<UnitId> = BTreeSet::new();
    let act = Activity {
        fired: &none,
        moved: &none,
    };
    let t0 = Instant::now();
    let index = SightIndex::new(&state.terrain);
    let a0 = side_visibility(&state, &index, SideId(0), &act);
    let a1 = side_visibility(&state, &index, SideId(1), &act);
    let elapsed = t0.elapsed();
    eprintln!(
        "visibility for both sides of a corps battle: {elapsed:?}; side 0 sees {}, side 1 sees {}",
        a0.seen.len(),
        a1.seen.len()
    );
    // Most of the enemy is in plain view; some is hidden by woods, hills
    // and walls.
    assert!(
        a0.seen.len() > 100 && a0.seen.len() < 140,
        "{}",
        a0.seen.len()
    );
    assert!(
        a1.seen.len() > 100 && a1.seen.len() < 140,
        "{}",
        a1.seen.len()
    );
    let b0 = side_visibility(&state, &SightIndex::new(&state.terrain), SideId(0), &act);
    assert_eq!(
        serde_json::to_string(&a0).unwrap(),
        serde_json::to_string(&b0).unwrap()
    );
    // Generous bound for an unoptimised debug build on a shared machine; the
    // release build is what the 5 ms budget is about.
    assert!(elapsed.as_secs_f64() < 5.0, "{elapsed:?}");
}
