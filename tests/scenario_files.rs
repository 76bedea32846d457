//! The shipped scenarios load and say what history (or the design) says.

use adjutant::rules::iron_brigade::kinds::{Arm, Formation, OfficerLevel, Weapon};
use adjutant::scenario::{self, Scenario, Strength};
use std::path::Path;

fn load(name: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name);
    match scenario::load(&path) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn training_scenario_validates() {
    let s = load("training.toml");
    assert_eq!(s.sides.len(), 2);
    assert_eq!(s.players.len(), 2);
    assert_eq!(s.units.len(), 8);
    assert_eq!(s.yards_per_inch, 25.0);
    assert_eq!(s.minutes_per_turn, 2.5);
    for side in ["Union", "Confederate"] {
        let units: Vec<_> = s.units.iter().filter(|u| u.side == side).collect();
        assert_eq!(units.iter().filter(|u| u.arm == Arm::Infantry).count(), 3);
        assert_eq!(units.iter().filter(|u| u.arm.is_artillery()).count(), 1);
    }
    // A road, a wood, a fence, a stream with a ford, a hill.
    let stream = s.terrain.lines.iter().find(|l| l.water.is_some()).unwrap();
    assert_eq!(stream.water.as_ref().unwrap().fords.len(), 1);
    assert!(s.terrain.contours.len() >= 2);
    assert!(s.landmark("the crossroads").is_some());
    assert_eq!(s.side_of_unit("ridley"), Some("Confederate"));
    assert!(s.options.is_on("skirmishers"));
    assert!(!s.options.is_on("split-units"));
}

#[test]
fn brawners_farm_key_facts() {
    let s = load("brawners-farm.toml");
    assert_eq!(s.name, "Brawner's Farm");
    assert_eq!(s.yards_per_inch, 25.0);
    assert_eq!(s.minutes_per_turn, 2.5);
    assert_eq!(s.start.local.to_string(), "1862-08-28 18:30:00.0");
    let sides: Vec<&str> = s.sides.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(sides, ["Union", "Confederate"]);

    // The units the brief names, on the right sides.
    for name in [
        "2nd Wisconsin",
        "6th Wisconsin",
        "7th Wisconsin",
        "19th Indiana",
        "Battery B, 4th US Artillery",
        "56th Pennsylvania",
        "76th New York",
    ] {
        assert_eq!(s.side_of_unit(name), Some("Union"), "{name}");
    }
    for name in [
        "2nd Virginia",
        "4th Virginia",
        "5th Virginia",
        "27th Virginia",
        "33rd Virginia",
        "26th Georgia",
        "60th Georgia",
        "21st Georgia",
        "21st North Carolina",
        "15th Alabama",
    ] {
        assert_eq!(s.side_of_unit(name), Some("Confederate"), "{name}");
    }

    // Battery B: six Napoleons (12-pdr guns), one crew casting per gun.
    let b = s.unit("battery b").unwrap();
    assert_eq!(b.weapon, Weapon::TwelvePdrGun);
    assert_eq!(b.strength, Strength::Battery { guns: 6, crew: 6 });
    assert!(
        s.units
            .iter()
            .any(|u| u.side == "Confederate" && u.arm == Arm::Artillery)
    );

    // Every unit has a commander of its own side, and every unit and officer
    // stands on the table.
    for u in &s.units {
        let c = s.officer(&u.commander).unwrap();
        assert_eq!(c.side, u.side, "{}", u.name);
        assert!(s.table.contains(u.position), "{}", u.name);
        assert!(u.formation.allowed_for(u.arm), "{}", u.name);
    }
    for o in &s.officers {
        assert!(s.table.contains(o.position), "{}", o.name);
    }
    for l in &s.landmarks {
        assert!(s.table.contains(l.at), "{}", l.name);
    }

    // One player per brigade, each playing exactly his own brigadier.
    let brigadiers: Vec<&str> = s
        .officers
        .iter()
        .filter(|o| o.level == OfficerLevel::Brigade)
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(
        brigadiers,
        ["Gibbon", "Doubleday", "Baylor", "Lawton", "Trimble"]
    );
    for b in &brigadiers {
        let p = s.player_of_officer(b).unwrap();
        assert_eq!(p.officers, [b.to_string()]);
        assert!(p.addresses[0].ends_with("@example.test"));
        assert!(s.units_of(b).count() >= 2, "{b} commands too few units");
    }
    assert_eq!(s.players.len(), 5);

    // Chains of command: Gibbon under King; Baylor under Taliaferro and Jackson.
    let chain: Vec<&str> = s
        .chain_of_command("Baylor")
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(chain, ["Baylor", "Taliaferro", "Jackson"]);
    assert_eq!(
        s.officer("Gibbon").unwrap().superior.as_deref(),
        Some("King")
    );

    // The places players will name in orders resolve.
    for place in [
        "the Brawner farm",
        "the orchard",
        "the turnpike",
        "the woods",
        "Douglass house",
        "the railroad",
        "Stony Ridge",
    ] {
        assert!(s.landmark(place).is_some(), "{place}");
    }
    // The turnpike runs across the south of the field, rising to the east.
    let pike = s
        .terrain
        .lines
        .iter()
        .find(|l| l.name.as_deref() == Some("the Warrenton Turnpike"))
        .unwrap();
    let (first, last) = (pike.points[0], *pike.points.last().unwrap());
    assert!(first.x < last.x && first.y < last.y && last.y < s.table.height / 2.0);
    assert!(s.units.iter().all(|u| u.formation != Formation::EnMasse));
    // Stony Ridge stands above the fields; the farmhouse is a built-up area.
    let ridge = s.landmark("Stony Ridge").unwrap().at;
    let farm = s.landmark("the Brawner farm").unwrap().at;
    assert!(s.terrain.height_at(ridge) > s.terrain.height_at(farm));
    assert!(
        s.terrain
            .areas_at(farm)
            .any(|a| a.kind == adjutant::rules::iron_brigade::kinds::AreaKind::Town)
    );
}

/// Every optional rule the scenario format offers is applied by the
/// engine now, so `scenario check` has nothing to warn of, even with all of
/// them switched on.
#[test]
fn every_option_is_applied() {
    let mut s = load("brawners-farm.toml");
    for key in adjutant::scenario::OPTION_KEYS {
        s.options.enabled.insert((*key).to_string(), true);
    }
    assert!(
        s.options.not_applied().is_empty(),
        "{:?}",
        s.options.not_applied()
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["scenario", "check"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/brawners-farm.toml"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("not applied"), "{stdout}");
}
