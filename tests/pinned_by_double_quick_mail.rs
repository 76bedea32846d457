//! APSoF VI.C.6 through the binary, on the umpire's dice: a unit whose
//! morale falls to 1 from its double-quick roll (VI.D.4) is pinned at once
//! and may not advance further that turn. The training scenario; the 14th
//! Ohio is "poor" (base morale 4, so it may double quick at 4, I.B.3) and
//! is ordered to double quick north. Its double-quick die is 1: the VI.D.4
//! table's base-4 column takes 3 levels, 4 → 1. It has made its double-quick
//! move, but is pinned at once, so the movement phase does not carry it any
//! further toward the place it was sent.

mod common;

use common::GameDir;

fn events(g: &GameDir, kind: &str, unit: &str) -> Vec<serde_json::Value> {
    let db = g.db();
    let mut st = db
        .prepare(
            "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND e.kind = ?1
             AND json_extract(e.data_json, '$.unit.name') = ?2 ORDER BY e.seq",
        )
        .unwrap();
    st.query_map([kind, unit], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|j| serde_json::from_str(&j.unwrap()).unwrap())
        .collect()
}

#[test]
fn vi_c_6_pinned_by_its_double_quick_roll_goes_no_further_by_mail() {
    let g = GameDir::with_scenario("dq-pinned", "scenarios/training.toml");
    g.umpire("DICE MODE UMPIRE");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "14th Ohio: double quick to (12, 30).\n\n10th Ohio: hold fire.\n\n12th Ohio: hold fire.\n\nBattery A: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    g.answer_dice(|w| {
        if w["kind"] == "double-quick" {
            "1"
        } else {
            "3"
        }
        .into()
    });
    let dq = events(&g, "double-quick", "14th Ohio");
    assert_eq!(dq.len(), 1, "one double-quick move: {dq:?}");
    let pinned = events(&g, "pinned", "14th Ohio");
    assert!(!pinned.is_empty(), "pinned at once at morale 1: {dq:?}");
    // In the open, in sight of the enemy, it goes to ground (VI.C.6).
    assert!(
        pinned.iter().any(|p| p["went_prone"] == true)
            || !events(&g, "retreated", "14th Ohio").is_empty(),
        "a pinned unit in the open lies down or falls back to cover: {pinned:?}"
    );
    // Pinned: no further advance in the movement phase. Any later move of
    // the 14th this turn is not toward (12, 30) (it may lie down or fall
    // back to cover, VI.C.6).
    let start_y = 12.0;
    let after_dq: f64 = {
        let db = g.db();
        let json: String = db
            .query_row(
                "SELECT state_json FROM turns WHERE number = 2 AND superseded_at IS NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let units = v["battle"]["units"]
            .as_array()
            .or_else(|| v["units"].as_array())
            .expect("units in the snapshot")
            .clone();
        let u = units
            .iter()
            .find(|u| u["name"] == "14th Ohio")
            .expect("the 14th");
        assert_eq!(u["combat_morale"], 1, "{u}");
        u["position"]["y"].as_f64().unwrap()
    };
    let dq_to = dq[0]["to"]["y"].as_f64();
    for m in events(&g, "moved", "14th Ohio") {
        let to = m["to"]["y"].as_f64().unwrap();
        assert!(
            dq_to.is_some_and(|d| to <= d + 1e-9),
            "the pinned 14th advanced beyond its double-quick move: {m}"
        );
    }
    assert!(after_dq > start_y, "the double-quick move itself was made");
}
