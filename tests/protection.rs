//! APSoF V.B "Target protection" from the scenario's fences, walls and
//! works, through whole turns: the fixture `tests/fixtures/scenarios/cover.toml`
//! puts the 3rd Tennessee behind a worm fence, within half an inch of its
//! front rank.

mod common;

use adjutant::dice::ScriptedDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::LineKind;
use adjutant::rules::iron_brigade::orders::{OrderBook, TurnOrders};
use adjutant::rules::iron_brigade::state::{BattleState, Pos, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use common::GameDir;
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const BATTERY_A: UnitId = UnitId(2);
const THIRD_TENN: UnitId = UnitId(3);
const FIXTURE: &str = "tests/fixtures/scenarios/cover.toml";

/// The 10th Ohio 5" in front of the 3rd Tennessee, facing it, the battery
/// gone; both seasoned (no first fire, nothing perilous); the fence in front
/// of the 3rd as `kind`.
fn behind(kind: LineKind) -> BattleState {
    let sc = adjutant::scenario::load(Path::new(FIXTURE)).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units.retain(|u| u.id != BATTERY_A);
    let tenth = s.unit_mut(TENTH_OHIO).unwrap();
    tenth.position = Pos::new(11.0, 16.0);
    tenth.facing = 0.0;
    for u in &mut s.units {
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    s.terrain.lines.retain(|l| l.name != "the Pike wall");
    let fence = s
        .terrain
        .lines
        .iter_mut()
        .find(|l| l.name == "the Widow's fence")
        .unwrap();
    fence.kind = kind;
    s
}

/// Dice: the fire-order rolls (10th Ohio 6, 3rd Tennessee 1: the 10th
/// fires first), then the 10th's four attack dice of 5 (20), then 3s for
/// everything after.
fn run(s: &BattleState) -> TurnOutcome {
    let dice = [6, 1, 5, 5, 5, 5]
        .into_iter()
        .chain(std::iter::repeat_n(3, 60));
    let mut d = ScriptedDice::new(dice).unwrap();
    resolve_turn(s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap()
}

/// The 10th Ohio's fire at the 3rd Tennessee: (divisor, modifiers, casualties).
fn tenths_fire(out: &TurnOutcome) -> (u8, Vec<String>, u32) {
    out.events
        .iter()
        .find_map(|e| match e {
            Event::Fired {
                unit,
                target,
                effectiveness,
                modifiers,
                casualties,
                ..
            } if unit.id == TENTH_OHIO && target.id == THIRD_TENN => {
                Some((*effectiveness, modifiers.clone(), *casualties))
            }
            _ => None,
        })
        .expect("the 10th Ohio fires at the 3rd Tennessee")
}

/// Rifled musket at 5" is base 5 (XIII); the 3rd is two ranks deep and the
/// 10th at morale 5: no other modifier. 20 on the dice.
#[test]
fn v_b_protection_by_the_kind_of_line() {
    for (kind, label, divisor, casualties) in [
        // Open ground first: the road is no cover. 20 / 5 = 4.
        (LineKind::Road, None, 5, 4),
        // Woods, Wood Fence (25%): add 1. 20 / 6 = 3.
        (
            LineKind::Fence,
            Some("target protection: wood-fence +1"),
            6,
            3,
        ),
        // Hasty Works, High Wall (75%): add 3; a stone wall as hasty works
        // (docs/rulings.md). 20 / 8 = 2.
        (
            LineKind::Wall,
            Some("target protection: hasty-works +3"),
            8,
            2,
        ),
        (
            LineKind::HighWall,
            Some("target protection: high-wall +3"),
            8,
            2,
        ),
        (
            LineKind::HastyWorks,
            Some("target protection: hasty-works +3"),
            8,
            2,
        ),
        // Entrenchments (90%): add 4. 20 / 9 = 2.
        (
            LineKind::Entrenchments,
            Some("target protection: entrenchments +4"),
            9,
            2,
        ),
    ] {
        let out = run(&behind(kind));
        let (eff, mods, cas) = tenths_fire(&out);
        assert_eq!((eff, cas), (divisor, casualties), "{kind}: {mods:?}");
        match label {
            Some(l) => assert!(mods.iter().any(|m| m == l), "{kind}: {mods:?}"),
            None => assert!(mods.iter().all(|m| !m.contains("protection")), "{mods:?}"),
        }
        assert_eq!(
            out.state.unit(THIRD_TENN).unwrap().castings,
            17 - casualties,
            "{kind}"
        );
    }
}

/// The protection is for a target behind the line, in contact with it, on
/// the firer's side: a fence at the 3rd's back, or one 2" in front of it,
/// gives nothing.
#[test]
fn v_b_a_fence_protects_only_the_unit_behind_it() {
    for y in [23.0, 19.0] {
        let mut s = behind(LineKind::Fence);
        let fence = s
            .terrain
            .lines
            .iter_mut()
            .find(|l| l.name == "the Widow's fence")
            .unwrap();
        fence.path = vec![Pos::new(7.0, y), Pos::new(14.4, y)];
        let (eff, mods, cas) = tenths_fire(&run(&s));
        assert_eq!((eff, cas), (5, 4), "fence at y {y}: {mods:?}");
    }
}

/// Protections do not add (our ruling): lying down behind a stone wall is
/// still +3, not +5.
#[test]
fn v_b_the_best_protection_applies() {
    let mut s = behind(LineKind::Wall);
    s.unit_mut(THIRD_TENN).unwrap().lying_down = true;
    let (eff, mods, _) = tenths_fire(&run(&s));
    assert_eq!(eff, 8, "{mods:?}");
}

/// The scenario format's names for fences and walls: `worm-fence` is a
/// wood fence, `stone-wall` a wall.
#[test]
fn v_b_scenario_fence_and_wall_names() {
    let sc = adjutant::scenario::load(Path::new(FIXTURE)).unwrap();
    let s = battle_state_from_scenario(&sc);
    let kind = |name: &str| {
        s.terrain
            .lines
            .iter()
            .find(|l| l.name == name)
            .unwrap()
            .kind
    };
    assert_eq!(kind("the Widow's fence"), LineKind::Fence);
    assert_eq!(kind("the Pike wall"), LineKind::Wall);
}

/// Through the binary: the 3rd Tennessee, behind the worm fence, fires at
/// the 10th Ohio (which holds its fire); Battery A fires at the 3rd across
/// the fence. Nothing fires at the battery, so whatever the dice its fire
/// carries the fence's +1; the 3rd's fire at the 10th (if the battery has
/// not broken it first, V.B.2) has no protection to count.
#[test]
fn v_b_protection_through_the_binary() {
    let g = GameDir::with_scenario("cover", FIXTURE);
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: hold fire.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let db = g.db();
    let mut q = db
        .prepare("SELECT data_json FROM events WHERE kind = 'fired' ORDER BY seq")
        .unwrap();
    let fired: Vec<serde_json::Value> = q
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|j| serde_json::from_str(&j.unwrap()).unwrap())
        .collect();
    let mods = |firer: &str, target: &str| -> Vec<String> {
        let e = fired
            .iter()
            .find(|e| e["unit"]["name"] == firer && e["target"]["name"] == target)
            .unwrap_or_else(|| panic!("{firer} fired at {target}: {fired:?}"));
        e["modifiers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect()
    };
    let battery = mods("Battery A, 1st Ohio Light Artillery", "3rd Tennessee");
    assert!(
        battery.contains(&"target protection: wood-fence +1".to_string()),
        "{battery:?}"
    );
    // The 3rd fires too unless the battery won the V.B.2 roll and broke it.
    if fired.iter().any(|e| e["unit"]["name"] == "3rd Tennessee") {
        let third = mods("3rd Tennessee", "10th Ohio");
        assert!(third.iter().all(|m| !m.contains("protection")), "{third:?}");
    }
}

/// APSoF V.G.2 and the V.B table by the umpire's hand: `SET <unit>
/// protection ...` and `SET <unit> perilous yes` mark the unit for the
/// turn; the fire at it takes them, and they are gone when the turn ends.
#[test]
fn v_g_2_umpire_declarations_last_one_turn() {
    use adjutant::rules::iron_brigade::fire::Protection;
    // In the open (the fence made a road), declared behind hasty works:
    // 20 / 8 = 2.
    let mut s = behind(LineKind::Road);
    s.unit_mut(THIRD_TENN).unwrap().marks.declared_protection = Some(Protection::HastyWorks);
    let out = run(&s);
    let (eff, mods, cas) = tenths_fire(&out);
    assert_eq!((eff, cas), (8, 2), "{mods:?}");
    assert!(mods.contains(&"target protection: hasty-works +3".to_string()));
    assert_eq!(
        out.state
            .unit(THIRD_TENN)
            .unwrap()
            .marks
            .declared_protection,
        None
    );
    // Declared perilous: 5 - 2 = 3, 20 / 3 = 6 casualties.
    let mut s = behind(LineKind::Road);
    s.unit_mut(THIRD_TENN).unwrap().marks.declared_perilous = true;
    let out = run(&s);
    let (eff, mods, cas) = tenths_fire(&out);
    assert_eq!((eff, cas), (3, 6), "{mods:?}");
    assert!(mods.contains(&"defender in perilous situation -2".to_string()));
    // The working names the clause: V.G.2, not one of V.G.1's.
    let why = out
        .events
        .iter()
        .find_map(|e| match e {
            Event::Fired {
                unit, perilous_why, ..
            } if unit.id == TENTH_OHIO => Some(perilous_why.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(why, vec!["V.G.2 declared by the umpire".to_string()]);
    let told = out
        .events
        .iter()
        .find(|e| matches!(e, Event::Fired { unit, .. } if unit.id == TENTH_OHIO))
        .unwrap()
        .describe();
    assert!(
        told.contains("defender in perilous situation -2 (V.G.2 declared by the umpire)"),
        "{told}"
    );
    assert!(!out.state.unit(THIRD_TENN).unwrap().marks.declared_perilous);
}

/// Through the binary: the umpire's `SET 3rd Tennessee protection
/// entrenchments` on the open turn (audited as a correction) gives the 3rd
/// +4 against Battery A's fire that turn, better than its fence's +1.
#[test]
fn v_g_2_umpire_protection_by_the_cli() {
    let g = GameDir::with_scenario("cover", FIXTURE);
    let out = common::adjutant(g.dir.path())
        .args([
            "umpire",
            "cover",
            "SET 3rd Tennessee protection entrenchments BECAUSE \"they dug in overnight\"",
        ])
        .env("USER", "alice")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("protection set to \"entrenchments\""),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        g.count("SELECT count(*) FROM corrections WHERE field = 'protection'"),
        1
    );
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: hold fire.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let json: String = g
        .db()
        .query_row(
            "SELECT data_json FROM events WHERE kind = 'fired'
             AND json_extract(data_json, '$.unit.name') = 'Battery A, 1st Ohio Light Artillery'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        json.contains("target protection: entrenchments +4"),
        "{json}"
    );
}
