//! APSoF VI.C.6 through the binary, on the umpire's dice: a unit whose
//! morale falls to 1 from contact morale (VI.D.3) is pinned at once and may
//! not advance that turn. The training scenario; the umpire sets the 10th
//! Ohio and the 3rd Tennessee face to face in contact, both in line, the
//! Tennessee at morale 2. The contact dice: every Tennessee die 1, every
//! Ohio die 1 but the first, a 5, so that the Ohio total is 4 above: the
//! Tennessee loses ⌊4 / 3⌋ = 1 level, to 1, and is pinned; its order to
//! advance is held. Fire dice are all 1 and saves all 6, so fire lowers
//! no one's morale.

mod common;

use common::GameDir;

#[test]
fn vi_c_6_pinned_by_contact_does_not_advance_by_mail() {
    let g = GameDir::with_scenario("contact-pinned", "scenarios/training.toml");
    g.umpire("DICE MODE UMPIRE");
    g.umpire("SET 3rd Tennessee formation line BECAUSE \"set up\"");
    g.umpire("SET 10th Ohio formation line BECAUSE \"set up\"");
    g.umpire("SET 10th Ohio facing 0 BECAUSE \"set up\"");
    g.umpire("SET 3rd Tennessee facing 180 BECAUSE \"set up\"");
    g.umpire("SET 3rd Tennessee position 23,32 BECAUSE \"set up\"");
    g.umpire("SET 10th Ohio position 23,30 BECAUSE \"set up\"");
    g.umpire("SET 3rd Tennessee morale 2 BECAUSE \"set up\"");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: hold fire.\n\n12th Ohio: hold fire.\n\n14th Ohio: hold fire.\n\nBattery A: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: advance to (23, 20).\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    // The Tennessee's contact dice all 1; the Ohio's first 5, the rest 1.
    let mut first_ohio = true;
    g.answer_dice(|w| {
        if w["kind"] == "contact" && w["subject"] == "10th Ohio" && first_ohio {
            first_ohio = false;
            "5".into()
        } else if w["kind"] == "contact" || w["kind"] == "fire" {
            // Fire as little as can be, so only contact lowers the
            // Tennessee.
            "1".into()
        } else if w["kind"] == "morale-save" {
            "6".into()
        } else {
            "3".into()
        }
    });
    let db = g.db();
    let contact: serde_json::Value = serde_json::from_str(
        &db.query_row(
            "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND e.kind = 'contact'
             AND json_extract(e.data_json, '$.b.name') = '3rd Tennessee'",
            [],
            |r| r.get::<_, String>(0),
        )
        .expect("the two are in contact"),
    )
    .unwrap();
    assert_eq!(contact["loser"]["name"], "3rd Tennessee", "{contact}");
    assert_eq!(contact["morale_lost"], 1, "{contact}");
    let kinds: Vec<(String, String)> = db
        .prepare(
            "SELECT e.kind, e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND json_extract(e.data_json, '$.unit.name') = '3rd Tennessee'
             ORDER BY e.seq",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        kinds.iter().any(|(k, _)| k == "pinned"),
        "pinned at once at morale 1: {kinds:?}"
    );
    for (k, data) in &kinds {
        if k == "moved" {
            let v: serde_json::Value = serde_json::from_str(data).unwrap();
            let to = v["to"]["y"].as_f64().unwrap();
            assert!(to >= 32.0 - 1e-9, "the pinned Tennessee advanced: {data}");
        }
    }
    let state: String = db
        .query_row(
            "SELECT state_json FROM turns WHERE number = 2 AND superseded_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&state).unwrap();
    let units = v["battle"]["units"]
        .as_array()
        .or_else(|| v["units"].as_array())
        .expect("units in the snapshot")
        .clone();
    let u = units
        .iter()
        .find(|u| u["name"] == "3rd Tennessee")
        .expect("the 3rd");
    assert_eq!(u["combat_morale"], 1, "{u}");
    assert!(u["position"]["y"].as_f64().unwrap() >= 32.0 - 1e-9, "{u}");
}
