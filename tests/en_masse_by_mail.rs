//! APSoF III.G.5 through the binary, on the umpire's dice: a unit en masse
//! "when checking morale, check on the next highest results table" (the
//! X tables, option `alternate-fire-tables`). The training scenario with
//! the option on; the 10th Ohio in line at (24, 16) facing north, the 3rd
//! Tennessee en masse at (24, 22) facing south (armed with pistols, so it
//! does not reply at 6"), Colonel Pryor behind it. Everyone else holds
//! fire; every die a 2. The 10th's fire reads its casualties on the fire's
//! table and the 3rd's morale one table up, and the working says so.

mod common;

use adjutant::rules::iron_brigade::fire::alternate::{AlternateFire, MoraleResult};
use adjutant::rules::iron_brigade::kinds::Arm;
use common::GameDir;

fn answer_twos(g: &GameDir) {
    for _ in 0..20 {
        let wanted: Option<String> = g
            .db()
            .query_row(
                "SELECT wanted_json FROM dice_requests WHERE answered_at IS NULL",
                [],
                |r| r.get(0),
            )
            .ok();
        let Some(wanted) = wanted else { return };
        let n = serde_json::from_str::<Vec<serde_json::Value>>(&wanted)
            .unwrap()
            .len();
        g.umpire(&format!("DICE {}", vec!["2"; n].join(" ")));
    }
    panic!("the turn kept asking for dice");
}

#[test]
fn iii_g_5_en_masse_reads_morale_one_table_up_by_mail() {
    let text = std::fs::read_to_string("scenarios/training.toml").unwrap();
    let s = text
        .replacen(
            "formation = \"column\"\nposition = [24, 11]",
            "formation = \"line\"\nposition = [24, 16]",
            1,
        )
        .replacen(
            "weapon = \"rifled-musket\"\nmorale = \"regular\"\nformation = \"column\"\nposition = [23, 32]",
            "weapon = \"pistols-or-shotguns\"\nmorale = \"regular\"\nformation = \"en-masse\"\nposition = [24, 22]",
            1,
        )
        .replace("position = [23, 31]", "position = [24, 25]")
        .replacen("[options]\n", "[options]\nalternate-fire-tables = true\n", 1);
    assert!(s.contains("en-masse") && s.contains("alternate-fire-tables"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("en-masse.toml");
    std::fs::write(&path, s).unwrap();
    let g = GameDir::with_scenario("masse", path.to_str().unwrap());
    g.umpire("DICE MODE UMPIRE");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "12th Ohio: hold fire.\n\n14th Ohio: hold fire.\n\nBattery A: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\n\
         7th Tennessee: hold fire.\n\nRidley's Battery: hold fire.\n\nREADY",
    );
    g.run_once();
    answer_twos(&g);
    let json: String = g
        .db()
        .query_row(
            "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND e.kind = 'fired'
             AND json_extract(e.data_json, '$.unit.name') = '10th Ohio'",
            [],
            |r| r.get(0),
        )
        .expect("the 10th Ohio fired");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["target"]["name"], "3rd Tennessee");
    let working = v["alternate"].as_str().unwrap_or_default().to_string();
    assert!(
        working.contains("one table up for its morale as the target is en masse (III.G.5)"),
        "{working}"
    );
    // The numbers, as the engine's own test reads them: the fire's
    // effectiveness picks the casualties' table, one more the morale's.
    let eff = v["effectiveness"].as_i64().unwrap() as i32;
    let fire = |t: i32| AlternateFire {
        effectiveness: t,
        firer_arm: Arm::Infantry,
        firer_castings: v["castings_firing"].as_u64().unwrap() as u32,
        target_arm: Arm::Infantry,
        target_castings: 17,
        perilous: v["perilous"].as_bool().unwrap(),
    };
    let own = fire(eff).resolve(2, Some(2)).unwrap();
    let up = fire((eff + 1).min(10)).resolve(2, Some(2)).unwrap();
    assert_eq!(
        v["casualties"].as_u64().unwrap() as u32,
        own.casualties,
        "{working} {own:?} {v:#}"
    );
    let levels = match up.morale {
        MoraleResult::Levels(n) => n,
        MoraleResult::Rout => 5,
    };
    assert_eq!(
        v["morale_lost"].as_u64().unwrap() as u32,
        levels,
        "{working}"
    );
    assert_ne!(own.morale, up.morale, "the two tables differ here");
}
