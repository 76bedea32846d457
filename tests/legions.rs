//! APSoF VII.F "Legions are units that usually combine a battalion (two or
//! more companies) of infantry, a section of artillery and a company of
//! cavalry. As long as all sections of the legion remain in contact with
//! each other they maintain one morale level. However, using the
//! reorganization rule above, each portion of the unit may split off and
//! act independently."
//!
//! The training scenario's 10th Ohio (infantry) and Battery A, 1st Ohio
//! (artillery) are made the two sections of one legion, side by side in
//! contact; the 3rd Tennessee fires at the 10th.

use adjutant::dice::{ScriptedDice, StreamDice};
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::geometry::{footprint, in_contact};
use adjutant::rules::iron_brigade::kinds::Formation;
use adjutant::rules::iron_brigade::orders::{OrderBook, TurnOrders};
use adjutant::rules::iron_brigade::state::{BattleState, Pos, Ranks, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const BATTERY: UnitId = UnitId(4);
const THIRD_TENN: UnitId = UnitId(5);

/// The 10th Ohio in line at (20, 10) facing north, Battery A unlimbered in
/// contact on its right, both of "the Ohio Legion" when `legion`; the 3rd
/// Tennessee 4" north facing south. Everyone else off the table.
fn field(legion: bool, gap: f64) -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units
        .retain(|u| [TENTH_OHIO, BATTERY, THIRD_TENN].contains(&u.id));
    for u in &mut s.units {
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    {
        let u = s.unit_mut(TENTH_OHIO).unwrap();
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.position = Pos::new(20.0, 10.0);
        u.facing = 0.0;
    }
    let tenth_front = footprint(s.unit(TENTH_OHIO).unwrap()).frontage;
    {
        let b = s.unit_mut(BATTERY).unwrap();
        b.formation = Formation::Unlimbered;
        b.facing = 0.0;
        b.position = Pos::new(0.0, 10.0);
    }
    let battery_front = footprint(s.unit(BATTERY).unwrap()).frontage;
    s.unit_mut(BATTERY).unwrap().position =
        Pos::new(20.0 + (tenth_front + battery_front) / 2.0 + gap, 10.0);
    {
        let t = s.unit_mut(THIRD_TENN).unwrap();
        t.formation = Formation::Line;
        t.formed_ranks = Ranks::Two;
        t.position = Pos::new(20.0, 14.0);
        t.facing = 180.0;
    }
    // Never under fire: the 3rd's first fire is perilous (V.G.1.ii), x10.
    s.unit_mut(TENTH_OHIO).unwrap().marks.been_under_fire = false;
    for o in &mut s.officers {
        o.position = Pos::new(2.0, 2.0);
    }
    if legion {
        for id in [TENTH_OHIO, BATTERY] {
            s.unit_mut(id).unwrap().legion = Some("the Ohio Legion".into());
        }
    }
    s
}

fn run(s: &BattleState, seed: u8) -> TurnOutcome {
    let mut d = StreamDice::new([seed; 32]);
    resolve_turn(s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap()
}

fn morale(out: &TurnOutcome, id: UnitId) -> u8 {
    out.state.unit(id).unwrap().combat_morale
}

/// The 3rd's fire costs the 10th morale; in contact with it, the battery
/// loses the same levels (one morale level), and its side is told why.
#[test]
fn vii_f_sections_in_contact_share_a_loss() {
    let s = field(true, 0.1);
    assert!(in_contact(
        s.unit(TENTH_OHIO).unwrap(),
        s.unit(BATTERY).unwrap()
    ));
    let out = run(&s, 10);
    let tenth_lost = 5 - morale(&out, TENTH_OHIO);
    assert!(tenth_lost > 0, "{:?}", out.events);
    // Fire at the 10th only (the battery is not the 3rd's target).
    assert!(!out.events.iter().any(|e| matches!(e,
        Event::Fired { target, casualties, .. } if target.id == BATTERY && *casualties > 0)));
    assert_eq!(morale(&out, BATTERY), morale(&out, TENTH_OHIO));
    assert!(out.events.iter().any(|e| matches!(e,
        Event::MoraleChanged { unit, reason, .. }
            if unit.id == BATTERY && reason.contains("VII.F"))));

    // The same fire without the legion: the battery keeps its morale.
    let alone = run(&field(false, 0.1), 10);
    assert_eq!(morale(&alone, TENTH_OHIO), morale(&out, TENTH_OHIO));
    assert_eq!(morale(&alone, BATTERY), 5);
}

/// A loss that breaks one section breaks the legion: the battery, in
/// contact, breaks with the 10th.
#[test]
fn vii_f_the_legion_breaks_together() {
    let out = run(&field(true, 0.1), 1);
    for id in [TENTH_OHIO, BATTERY] {
        assert_eq!(morale(&out, id), 0, "{:?}", out.events);
        assert!(out.events.iter().any(|e| matches!(e,
            Event::Broke { unit, .. } if unit.id == id)));
    }
    let alone = run(&field(false, 0.1), 1);
    assert_eq!(morale(&alone, TENTH_OHIO), 0);
    assert!(morale(&alone, BATTERY) > 0);
}

/// Out of contact (2" apart) the sections act on their own morale.
#[test]
fn vii_f_sections_apart_keep_their_own_morale() {
    let s = field(true, 2.0);
    assert!(!in_contact(
        s.unit(TENTH_OHIO).unwrap(),
        s.unit(BATTERY).unwrap()
    ));
    let out = run(&s, 10);
    assert!(morale(&out, TENTH_OHIO) < 5);
    assert_eq!(morale(&out, BATTERY), 5);
}

/// Sections that come (back) into contact at different levels take the
/// lowest (as recombining units do, VII.C.2); then one rally roll serves
/// the legion: the first section rolls, the other takes its result. The
/// 3rd Tennessee is taken away so that nothing fires.
#[test]
fn vii_f_one_level_and_one_rally() {
    let mut s = field(true, 0.1);
    s.units.retain(|u| u.id != THIRD_TENN);
    s.unit_mut(TENTH_OHIO).unwrap().combat_morale = 3;
    s.unit_mut(BATTERY).unwrap().combat_morale = 4;
    // The rally die: 6 (regular +0: the table's gain for a 6).
    let mut d = ScriptedDice::new([6i64].into_iter().chain(std::iter::repeat_n(3, 50))).unwrap();
    let out = resolve_turn(&s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap();
    let rallies: Vec<UnitId> = out
        .events
        .iter()
        .filter_map(|e| match e {
            Event::RallyAttempt { unit, .. } => Some(unit.id),
            _ => None,
        })
        .collect();
    assert_eq!(rallies, vec![TENTH_OHIO], "one roll for the legion");
    assert!(out.events.iter().any(|e| matches!(e,
        Event::MoraleChanged { unit, from: 4, to: 3, .. } if unit.id == BATTERY)));
    assert!(morale(&out, TENTH_OHIO) > 3, "{:?}", out.events);
    assert_eq!(morale(&out, BATTERY), morale(&out, TENTH_OHIO));
}

/// The scenario format: `legion` on each section; a legion of one unit,
/// or with sections on both sides, is refused with the fix.
#[test]
fn vii_f_scenario_legions() {
    let text = std::fs::read_to_string("scenarios/training.toml").unwrap();
    let with = |marked: &[&str]| {
        let mut t = text.clone();
        for name in marked {
            let at = format!("name = \"{name}\"\n");
            t = t.replacen(&at, &format!("{at}legion = \"the Legion\"\n"), 1);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.toml");
        std::fs::write(&path, t).unwrap();
        adjutant::scenario::load(&path).map(|s| battle_state_from_scenario(&s))
    };
    let ok = with(&["10th Ohio", "Battery A, 1st Ohio Light Artillery"]).unwrap();
    assert_eq!(
        ok.unit(TENTH_OHIO).unwrap().legion.as_deref(),
        Some("the Legion")
    );
    let one = with(&["10th Ohio"]).unwrap_err().to_string();
    assert!(one.contains("has only this unit"), "{one}");
    let two_sides = with(&["10th Ohio", "3rd Tennessee"])
        .unwrap_err()
        .to_string();
    assert!(two_sides.contains("two sides"), "{two_sides}");
}
