//! APSoF I.B.3 with IV.C.5–6, played through the binary on the umpire's
//! dice (issue #16: the double-quick move obeys the movement rules): the
//! training scenario's 12th Ohio, in column at (24, 5), double quicks
//! north to (24, 20) through the 10th Ohio's line at (24, 11) (the umpire deploys it). Closed
//! order moving through other units, it loses a level (IV.C.5, IV.G ****);
//! the 10th, which does not move, gains one back (IV.C.6; the umpire sets
//! it to 4 first, so there is room, and its rally die is a 3: no change). The double-quick die is a 6 (VI.D.4:
//! no loss), so the 12th's one level lost is the passage's.

mod common;

use common::GameDir;

/// Rally dice 3 (a regular unit: no change, VI.E), every other die 6.
fn answer_sixes(g: &GameDir) {
    for _ in 0..30 {
        let wanted: Option<String> = g
            .db()
            .query_row(
                "SELECT wanted_json FROM dice_requests WHERE answered_at IS NULL",
                [],
                |r| r.get(0),
            )
            .ok();
        let Some(wanted) = wanted else { return };
        let values: Vec<&str> = serde_json::from_str::<Vec<serde_json::Value>>(&wanted)
            .unwrap()
            .iter()
            .map(|w| if w["kind"] == "rally" { "3" } else { "6" })
            .collect();
        g.umpire(&format!("DICE {}", values.join(" ")));
    }
    panic!("the turn kept asking for dice");
}

#[test]
fn i_b_3_double_quick_through_friends_pays_like_a_march_by_mail() {
    let g = GameDir::with_scenario("through", "scenarios/training.toml");
    g.umpire("DICE MODE UMPIRE");
    g.umpire("SET 10th Ohio morale 4 BECAUSE \"tired\"");
    g.umpire("SET 10th Ohio formation line BECAUSE \"deployed\"");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "12th Ohio: double quick to (24, 20).\n\n10th Ohio: hold fire.\n\n\
         14th Ohio: hold fire.\n\nBattery A: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    answer_sixes(&g);
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let db = g.db();
    let mut st = db
        .prepare(
            "SELECT e.kind, e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND t.superseded_at IS NULL ORDER BY e.id",
        )
        .unwrap();
    let events: Vec<(String, serde_json::Value)> = st
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap()
        .map(|r| {
            let (k, j) = r.unwrap();
            (k, serde_json::from_str(&j).unwrap())
        })
        .collect();
    let of = |name: &str, kind: &str| {
        events
            .iter()
            .filter(|(k, e)| k == kind && e["unit"]["name"] == name)
            .map(|(_, e)| e.clone())
            .collect::<Vec<_>>()
    };
    let dq = of("12th Ohio", "double-quick");
    assert_eq!(dq.len(), 1, "{events:#?}");
    assert_eq!(dq[0]["roll"], 6);
    let twelfth = of("12th Ohio", "morale-changed");
    assert!(
        twelfth
            .iter()
            .any(|e| e["reason"] == "moved through other ranks"
                && e["to"].as_i64() == e["from"].as_i64().map(|f| f - 1)),
        "{twelfth:#?} {:#?}",
        events
            .iter()
            .filter(|(_, e)| e.to_string().contains("12th Ohio"))
            .collect::<Vec<_>>()
    );
    let tenth = of("10th Ohio", "morale-changed");
    assert!(
        tenth.iter().any(|e| e["reason"]
            .as_str()
            .is_some_and(|r| r.contains("steady while others passed through"))),
        "{tenth:#?} {:#?}",
        events
            .iter()
            .filter(|(_, e)| e.to_string().contains("10th Ohio"))
            .collect::<Vec<_>>()
    );
}
