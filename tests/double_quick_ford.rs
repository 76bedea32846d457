//! APSoF I.B.3 with IV.E.1, played through the binary on the umpire's
//! dice (issue #16: "one movement path for both"): the double-quick move
//! is a move like the movement phase's. The training scenario with Miller's
//! Run made 60" deep (over the 51" infantry may ford in a weak current):
//! the 12th Ohio, in column at (15, 22) facing north with Colonel Hale
//! beside it, is ordered to double quick over the run to (15, 32). The
//! double-quick die is a 6 (VI.D.4: no loss); the crossing is aborted
//! with one casualty and one level lost (IV.E.1), and the unit stays on
//! the near bank. Grey holds fire, so no other die decides anything.

mod common;

use common::GameDir;

#[test]
fn i_b_3_double_quick_over_a_ford_too_deep_pays_like_a_march_by_mail() {
    let text = std::fs::read_to_string("scenarios/training.toml").unwrap();
    let changed = text
        .replace("depth_inches = 44 ", "depth_inches = 60 ")
        .replace("position = [24, 5]", "position = [15, 22]")
        .replace("position = [24, 8]", "position = [13, 20]");
    assert_eq!(changed.matches("[15, 22]").count(), 1);
    assert!(changed.contains("depth_inches = 60 "));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.toml");
    std::fs::write(&path, changed).unwrap();
    let g = GameDir::with_scenario("deep", path.to_str().unwrap());
    g.umpire("DICE MODE UMPIRE");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "12th Ohio: double quick to (15, 32).\n\n10th Ohio: hold fire.\n\n\
         14th Ohio: hold fire.\n\nBattery A: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    g.answer_dice(|_| "6".into());
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let events: Vec<serde_json::Value> = {
        let db = g.db();
        let mut st = db
            .prepare(
                "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
                 WHERE t.number = 1 AND t.superseded_at IS NULL ORDER BY e.id",
            )
            .unwrap();
        st.query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(|j| serde_json::from_str(&j.unwrap()).unwrap())
            .collect()
    };
    let twelfth = |e: &serde_json::Value| e["unit"]["name"] == "12th Ohio";
    let dq = events
        .iter()
        .position(|e| e["event"] == "double-quick" && twelfth(e))
        .unwrap_or_else(|| panic!("a double-quick move: {events:#?}"));
    assert_eq!(events[dq]["roll"], 6, "{:#}", events[dq]);
    let ford = events
        .iter()
        .find(|e| {
            e["event"] == "casualties"
                && twelfth(e)
                && e["reason"].as_str().is_some_and(|r| r.contains("IV.E.1"))
        })
        .unwrap_or_else(|| panic!("the failed crossing's casualty: {events:#?}"));
    assert_eq!(ford["castings"], 1, "{ford:#}");
    let json: String = g
        .db()
        .query_row(
            "SELECT state_json FROM turns WHERE number = 2 AND superseded_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let s = adjutant::game::snapshot::Snapshot::from_json(&json)
        .unwrap()
        .battle;
    let u = s.units.iter().find(|u| u.name == "12th Ohio").unwrap();
    assert!(
        u.position.y < 27.0,
        "still on the near bank: {:?}",
        u.position
    );
    assert_eq!(
        u.castings, 15,
        "16 castings, one lost at the ford, once: {events:#?}"
    );
    assert_eq!(
        u.combat_morale,
        u.base_morale - 1,
        "one level lost (IV.E.1)"
    );
}
