//! SFRM Table 3's rout move at Iron Brigade scale, through the binary on
//! the umpire's dice (#16, "The rout move after a Table 3 result is
//! missing"). Brawner's Farm plays the `sfrm-officer-casualties` option. The
//! umpire sets the 4th Virginia in line at (30, 20), facing south; General
//! Gibbon rides from (30, 14) straight at its front and halts on touching
//! it, alone and in contact with the enemy (SFRM Officer Casualties ii). His
//! Table 3 dice are 4 and 4: 8, a result that leaves him in play, so he
//! makes the rout move at once, back from the regiment, and his own report
//! says why he rode. Fire dice are all 1 and saves all 6, so the regiment,
//! under the Union's fire at will, still stands at his front after fire,
//! when contacts are judged.

mod common;

use common::GameDir;

#[test]
fn sfrm_table_3_rout_move_by_mail() {
    let g = GameDir::with_scenario("rout", "scenarios/brawners-farm.toml");
    g.umpire("DICE MODE UMPIRE");
    g.umpire("SET 4th Virginia position 30,20 BECAUSE \"set up\"");
    g.umpire("SET 4th Virginia facing 180 BECAUSE \"set up\"");
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "Gibbon: ride to (30, 19.3).\n\nREADY",
    );
    for p in ["Doubleday", "Baylor", "Lawton", "Trimble"] {
        let low = p.to_lowercase();
        g.order_mail(
            &format!("{low}1"),
            &format!("{low}@example.test"),
            p,
            "READY",
        );
    }
    g.run_once();
    let asked = g.answer_dice(|w| {
        match w["kind"].as_str() {
            Some("sfrm-casualty") => "4",
            // Fire as light as the dice allow, saves as good: the
            // regiment stands in its place while Gibbon is at its front.
            Some("fire") => "1",
            Some("morale-save") => "6",
            _ => "3",
        }
        .into()
    });
    assert!(
        asked.iter().any(|a| a.contains("sfrm-casualty")),
        "Table 3 was rolled: {asked:#?}"
    );
    let db = g.db();
    let casualty: serde_json::Value = serde_json::from_str(
        &db.query_row(
            "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND e.kind = 'officer-casualty'",
            [],
            |r| r.get::<_, String>(0),
        )
        .expect("Gibbon rolls on Table 3"),
    )
    .unwrap();
    assert_eq!(casualty["roll"], 8, "{casualty}");
    assert_eq!(casualty["removed"], false, "{casualty}");
    let rides: Vec<serde_json::Value> = db
        .prepare(
            "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND e.kind = 'officer-moved' ORDER BY e.seq",
        )
        .unwrap()
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|j| serde_json::from_str(&j.unwrap()).unwrap())
        .collect();
    let rout = rides
        .iter()
        .find(|r| r["note"].as_str().is_some_and(|n| n.contains("rout move")))
        .unwrap_or_else(|| panic!("the rout move is an event: {rides:#?}"));
    let (fy, ty) = (
        rout["from"]["y"].as_f64().unwrap(),
        rout["to"]["y"].as_f64().unwrap(),
    );
    assert!(
        ty < fy - 1.0,
        "he rode back, away from the regiment: {rout}"
    );
    // His own side's report tells why he rode.
    let report: String = db
        .query_row(
            "SELECT r.id FROM reports r JOIN players p ON p.id = r.player_id
             WHERE p.name = 'Gibbon' ORDER BY r.id DESC LIMIT 1",
            [],
            |r| r.get::<_, i64>(0).map(|id| id.to_string()),
        )
        .unwrap();
    let text: String = db
        .query_row(
            "SELECT text FROM reports WHERE id = ?1",
            [report.parse::<i64>().unwrap()],
            |r| r.get(0),
        )
        .unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "Gibbon rides from (30.0, 19.0) to (30.0, 7.0) (rout move after SFRM Table 3)"
        ),
        "{text}"
    );
}
