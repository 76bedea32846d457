//! APSoF VI.C.6 through the binary, on the umpire's dice: a unit whose
//! morale falls to 1 from panic (VI.D.2) is pinned at once and may not
//! advance that turn. The training scenario; the umpire puts the 10th Ohio
//! at (12, 16) at morale 2 and breaks the 12th Ohio beside it at (18, 16)
//! (`SET … morale 0`). The 10th is ordered to advance to (12, 20). Dice:
//! rallies 3 (no change; the 12th stays broken), the 12th's panic dice 2s
//! (8 / 7 = 1), every saving die 1 (4 / 10 = 0): the 10th loses a level,
//! to 1, is pinned, and its advance is held; it stays at (12, 16).

mod common;

use common::GameDir;

#[test]
fn vi_c_6_pinned_by_panic_does_not_advance_by_mail() {
    let g = GameDir::with_scenario("panic", "scenarios/training.toml");
    g.umpire("DICE MODE UMPIRE");
    g.umpire("SET 10th Ohio position 12,16 BECAUSE \"set up\"");
    g.umpire("SET 12th Ohio position 18,16 BECAUSE \"set up\"");
    g.umpire("SET 10th Ohio morale 2 BECAUSE \"set up\"");
    g.umpire("SET 12th Ohio morale 0 BECAUSE \"set up\"");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to (12, 20).\n\n14th Ohio: hold fire.\n\nBattery A: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    g.answer_dice(|w| match (w["kind"].as_str(), w["note"].as_str()) {
        (Some("panic"), Some("panic")) => "2".into(),
        (_, Some("saving")) => "1".into(),
        _ => "3".into(),
    });
    let panic: String = g
        .db()
        .query_row(
            "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND e.kind = 'panic'
             AND json_extract(e.data_json, '$.unit.name') = '10th Ohio'",
            [],
            |r| r.get(0),
        )
        .expect("the 10th checks for panic");
    let panic: serde_json::Value = serde_json::from_str(&panic).unwrap();
    assert_eq!(panic["morale_lost"], 1, "{panic:#}");
    let pinned: i64 = g.count(
        "SELECT count(*) FROM events e JOIN turns t ON t.id = e.turn_id
         WHERE t.number = 1 AND e.kind = 'pinned'
         AND json_extract(e.data_json, '$.unit.name') = '10th Ohio'",
    );
    assert!(pinned >= 1, "pinned at once (VI.C.6)");
    let moved: i64 = g.count(
        "SELECT count(*) FROM events e JOIN turns t ON t.id = e.turn_id
         WHERE t.number = 1 AND e.kind = 'moved'
         AND json_extract(e.data_json, '$.unit.name') = '10th Ohio'",
    );
    assert_eq!(moved, 0, "the pinned 10th does not advance");
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
    let u = s.units.iter().find(|u| u.name == "10th Ohio").unwrap();
    assert_eq!(u.combat_morale, 1);
    assert!(u.marks.pinned);
    assert!(
        (u.position.x - 12.0).abs() < 1e-6 && (u.position.y - 16.0).abs() < 1e-6,
        "{:?}",
        u.position
    );
}
