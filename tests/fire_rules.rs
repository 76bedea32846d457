//! Fire rules through whole turns of the training scenario: APSoF V.G.1
//! perilous situations (−2 effectiveness, ×10 morale save) and the X
//! alternate fire tables. The exchange of fire is that of `tests/turn.rs`.

use adjutant::dice::ScriptedDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::{Formation, Weapon};
use adjutant::rules::iron_brigade::orders::{OrderBook, TurnOrders};
use adjutant::rules::iron_brigade::state::{BattleState, Pos, Ranks, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const THIRD_TENN: UnitId = UnitId(5);

/// Both regiments in line facing each other 6" apart, both already under
/// fire before; the 10th Ohio armed with repeating rifles.
fn exchange() -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units.retain(|u| [TENTH_OHIO, THIRD_TENN].contains(&u.id));
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    let t = s.unit_mut(TENTH_OHIO).unwrap();
    t.position = Pos::new(24.0, 16.0);
    t.facing = 0.0;
    t.weapon = Weapon::RepeatingRifle;
    let r = s.unit_mut(THIRD_TENN).unwrap();
    r.position = Pos::new(24.0, 22.0);
    r.facing = 180.0;
    s
}

fn run(s: &BattleState) -> TurnOutcome {
    let mut d = ScriptedDice::new(std::iter::repeat_n(3, 80)).unwrap();
    resolve_turn(s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap()
}

/// (firer, perilous) for every fire of the turn.
fn fires(out: &TurnOutcome) -> Vec<(UnitId, bool)> {
    out.events
        .iter()
        .filter_map(|e| match e {
            Event::Fired { unit, perilous, .. } => Some((unit.id, *perilous)),
            _ => None,
        })
        .collect()
}

/// V.G.1.iii: "First fire against troops never exposed to fire from
/// repeaters." The 3rd Tennessee has been under fire, but never from
/// repeaters: the 10th's fire is perilous; the 3rd's rifled muskets at the
/// 10th are not. Afterwards the 3rd has been under repeater fire.
#[test]
fn v_g_1_iii_first_fire_from_repeaters_is_perilous() {
    let out = run(&exchange());
    let f = fires(&out);
    assert!(f.contains(&(TENTH_OHIO, true)), "{f:?}");
    assert!(f.contains(&(THIRD_TENN, false)), "{f:?}");
    assert!(
        out.state
            .unit(THIRD_TENN)
            .unwrap()
            .marks
            .been_under_repeater_fire
    );
    assert!(
        !out.state
            .unit(TENTH_OHIO)
            .unwrap()
            .marks
            .been_under_repeater_fire
    );
}

/// Troops that have met repeaters before are not surprised by them.
#[test]
fn v_g_1_iii_repeaters_again_are_not_perilous() {
    let mut s = exchange();
    s.unit_mut(THIRD_TENN)
        .unwrap()
        .marks
        .been_under_repeater_fire = true;
    let f = fires(&run(&s));
    assert!(f.contains(&(TENTH_OHIO, false)), "{f:?}");
}

/// APSoF X, the alternate fire tables (an optional rule), in the same
/// exchange with rifled muskets on both sides. Effectiveness 5 (rifled
/// musket at 5", no modifier) picks Table 5. The 10th fires 18 castings
/// (row 17) at the 3rd's 17 (column 13); the 3rd replies with 17 (row 17)
/// at the 10th's 18 (column 13): both land on casualties `2>2` and morale
/// `2>1`. Dice: fire order 3, 3 (together); the 10th's die 3 beats 2 → 3
/// casualties, the 3rd's die 1 is not above 1 → 2 + 1 = 3 levels; the
/// 3rd's die 6 → 3 casualties, the 10th's die 4 → 2 levels; Colonel Hale's
/// die 3, a miss.
#[test]
fn x_alternate_fire_tables_replace_the_dice_sum() {
    let mut s = exchange();
    s.unit_mut(TENTH_OHIO).unwrap().weapon = Weapon::RifledMusket;
    s.options.alternate_fire = true;
    let mut d = ScriptedDice::new([3, 3, 3, 1, 6, 4, 3]).unwrap();
    let out = resolve_turn(&s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap();
    assert_eq!(d.remaining(), 0, "one die each way, no dice sums");
    let tenth = out.state.unit(TENTH_OHIO).unwrap();
    let third = out.state.unit(THIRD_TENN).unwrap();
    assert_eq!((third.castings, third.combat_morale), (14, 2));
    assert_eq!((tenth.castings, tenth.combat_morale), (15, 3));
    // The working is X's, not V's divide and save (issue #14 §3): the
    // firer (and the umpire) read the table, row, column and dice; the
    // side hit is told its own die, not the table.
    let fired: Vec<&Event> = out
        .events
        .iter()
        .filter(|e| matches!(e, Event::Fired { unit, .. } if unit.id == TENTH_OHIO))
        .collect();
    let firer = fired[0].describe_as(&|side| side.0 == 0);
    assert!(
        firer.contains("results table")
            && firer.contains("attacker's die")
            && firer.contains("(APSoF X)")
            && !firer.contains("gives")
            && !firer.contains("Save:"),
        "{firer}"
    );
    let hit = fired[0].describe_as(&|side| side.0 == 1);
    assert!(
        hit.contains("our die 1 against the table")
            && !hit.contains("results table")
            && !hit.contains("Save:"),
        "{hit}"
    );
    let umpire = fired[0].describe();
    assert!(umpire.contains("results table"), "{umpire}");
}

/// V.G.1.v: "not in normal battlefield formation". A battery limbered up
/// cannot fight: fire at it is perilous. The same battery unlimbered is not.
#[test]
fn v_g_1_v_a_limbered_battery_is_not_in_battlefield_formation() {
    use adjutant::rules::iron_brigade::state::UnitId;
    const RIDLEY: UnitId = UnitId(8);
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let base = battle_state_from_scenario(&sc);
    for (formation, perilous) in [(Formation::Limbered, true), (Formation::Unlimbered, false)] {
        let mut s = base.clone();
        s.units.retain(|u| [TENTH_OHIO, RIDLEY].contains(&u.id));
        for u in &mut s.units {
            u.first_fire_done = true;
            u.marks.been_under_fire = true;
        }
        let t = s.unit_mut(TENTH_OHIO).unwrap();
        t.formation = Formation::Line;
        t.position = Pos::new(24.0, 16.0);
        t.facing = 0.0;
        let r = s.unit_mut(RIDLEY).unwrap();
        r.formation = formation;
        r.position = Pos::new(24.0, 22.0);
        r.facing = 180.0;
        let f = fires(&run(&s));
        assert!(f.contains(&(TENTH_OHIO, perilous)), "{formation}: {f:?}");
    }
}

/// V.G.1.i, a surprise attack: the 3rd Tennessee lies at the edge of
/// Miller's Wood, 6" from the 10th Ohio in the open; when the turn began no
/// Union unit could see it (VIII.F hidden movement: a unit at a wood's edge
/// that has neither moved nor fired is seen only within 4"). Its fire is
/// perilous. Had it fired the turn before, it would have shown itself, and
/// its fire is no surprise.
#[test]
fn v_g_1_i_fire_from_a_unit_unseen_at_the_start_is_a_surprise() {
    for (fired_before, perilous) in [(false, true), (true, false)] {
        let mut s = exchange();
        s.options.hidden_movement = true;
        let t = s.unit_mut(TENTH_OHIO).unwrap();
        t.weapon = Weapon::RifledMusket;
        t.position = Pos::new(37.0, 18.0);
        let last = s.turn.saturating_sub(1);
        let r = s.unit_mut(THIRD_TENN).unwrap();
        r.position = Pos::new(37.0, 24.5);
        if fired_before {
            r.marks.fired_turn = Some(last);
        }
        let f = fires(&run(&s));
        assert!(
            f.contains(&(THIRD_TENN, perilous)),
            "fired before: {fired_before}: {f:?}"
        );
    }
    // In the open, seen from the start, the same fire is no surprise (the
    // exchange of V.G.1.iii above: the 3rd's fire is not perilous).
}

/// V.G.1.v: a broken unit in flight is "not in normal battlefield
/// formation". The 3rd Tennessee starts broken, fails to rally (die 3,
/// +0) and falls back; the 10th Ohio's fire at it is perilous.
#[test]
fn v_g_1_v_a_broken_unit_in_flight_is_a_perilous_target() {
    let mut s = exchange();
    s.unit_mut(TENTH_OHIO).unwrap().weapon = Weapon::RifledMusket;
    let r = s.unit_mut(THIRD_TENN).unwrap();
    r.combat_morale = 0;
    r.broken = true;
    let f = fires(&run(&s));
    assert!(f.contains(&(TENTH_OHIO, true)), "{f:?}");
}

/// VII.H: two sharpshooters (the 10th Ohio cut down to 2 castings, armed
/// with the sniper chart) fire at will at Colonel Pryor, mounted, whose
/// disc is 5" beyond their front: range 5, sniper base 1, an officer 1/3 rank deep +3:
/// divisor 4. Two castings roll one die less 2 (V.B.3). A 6 gives 4 / 4 = 1
/// casualty: he is hit, and his replacement's delay die 1 (start of next
/// turn) and quality die 2 (good) follow. A 5 gives 3 / 4 = 0: unhurt.
#[test]
fn vii_h_snipers_shoot_at_a_mounted_officer() {
    use adjutant::dice::ScriptedDice;
    use adjutant::rules::iron_brigade::state::{OfficerId, OfficerStatus};
    const PRYOR: OfficerId = OfficerId(2);
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units.retain(|u| u.id == TENTH_OHIO);
    let t = s.unit_mut(TENTH_OHIO).unwrap();
    t.weapon = Weapon::Sniper;
    t.castings = 2;
    t.formation = Formation::Line;
    t.position = Pos::new(24.0, 16.0);
    t.facing = 0.0;
    t.first_fire_done = true;
    let p = s.officers.iter_mut().find(|o| o.id == PRYOR).unwrap();
    p.position = Pos::new(24.0, 22.0);
    p.mounted = true;
    for (die, hit) in [(6u8, true), (5u8, false)] {
        let mut d = ScriptedDice::new([die, 1, 2]).unwrap();
        let out = resolve_turn(&s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap();
        let shot = out
            .events
            .iter()
            .find_map(|e| match e {
                Event::SniperFired {
                    officer,
                    range,
                    effectiveness,
                    dice_total,
                    hit,
                    ..
                } => Some((officer.id, *range, *effectiveness, *dice_total, *hit)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no sniper fire: {:#?}", out.events));
        assert_eq!(shot, (PRYOR, 5, 4, u32::from(die) - 2, hit));
        let status = out.state.officer(PRYOR).unwrap().status;
        if hit {
            assert_eq!(status, OfficerStatus::Wounded);
            assert_eq!(d.remaining(), 0);
        } else {
            assert_eq!(status, OfficerStatus::Active);
        }
        // The snipers fired at no unit.
        assert!(fires(&out).is_empty());
        // Fog of war: Pryor's side hears of the shot, not the regiment's name.
        let grey = adjutant::rules::iron_brigade::state::SideId(1);
        let vis = out.visibility.get(&grey).cloned().unwrap_or_default();
        let told =
            adjutant::report::narrative::side_narrative(&out.state, grey, &out.events, &vis, false)
                .join("\n");
        assert!(
            told.contains("sharpshooters fire at Colonel Pryor"),
            "{told}"
        );
        assert!(!told.contains("10th Ohio"), "{told}");
    }
}

/// III.G.5 under the X tables: a unit en masse "when checking morale,
/// check on the next highest results table". The 10th Ohio fires at the
/// 3rd Tennessee (armed here with pistols, which cannot reply at 6"); every
/// die a 2. Its casualties are read on the fire's table, its morale on the
/// next one up; in line, both on the fire's own.
#[test]
fn iii_g_5_en_masse_reads_morale_on_the_next_table() {
    use adjutant::rules::iron_brigade::fire::alternate::{AlternateFire, MoraleResult};
    use adjutant::rules::iron_brigade::kinds::Arm;
    for en_masse in [true, false] {
        let mut s = exchange();
        s.options.alternate_fire = true;
        s.unit_mut(TENTH_OHIO).unwrap().weapon = Weapon::RifledMusket;
        let r = s.unit_mut(THIRD_TENN).unwrap();
        r.weapon = Weapon::PistolsOrShotguns;
        if en_masse {
            r.formation = Formation::EnMasse;
        }
        let mut d = adjutant::dice::ScriptedDice::new(std::iter::repeat_n(2, 40)).unwrap();
        let out = resolve_turn(&s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap();
        let (eff, firing) = out
            .events
            .iter()
            .find_map(|e| match e {
                Event::Fired {
                    unit,
                    effectiveness,
                    castings_firing,
                    ..
                } if unit.id == TENTH_OHIO => Some((*effectiveness, *castings_firing)),
                _ => None,
            })
            .unwrap();
        let fire = |table: u8| AlternateFire {
            effectiveness: i32::from(table),
            firer_arm: Arm::Infantry,
            firer_castings: firing,
            target_arm: Arm::Infantry,
            target_castings: 17,
            perilous: false,
        };
        let casualties = fire(eff).resolve(2, Some(2)).unwrap().casualties;
        let morale_table = if en_masse { (eff + 1).min(10) } else { eff };
        let levels = match fire(morale_table).resolve(2, Some(2)).unwrap().morale {
            MoraleResult::Levels(n) => n,
            MoraleResult::Rout => 5,
        };
        if en_masse {
            // The two tables differ here, so the test tells them apart.
            let own = fire(eff).resolve(2, Some(2)).unwrap().morale;
            assert_ne!(own, MoraleResult::Levels(levels), "table {eff}");
        }
        let third = out.state.unit(THIRD_TENN).unwrap();
        assert_eq!(third.castings, 17 - casualties, "en masse {en_masse}");
        assert_eq!(
            u32::from(third.combat_morale),
            5u32.saturating_sub(levels),
            "en masse {en_masse}, table {eff}"
        );
    }
}

/// V.C.3: a unit behind total cover "may not be seen" unless it fires. The
/// 3rd Tennessee, entrenched with its back to the 10th Ohio, has orders to
/// fire but nothing in its zone, so it does not fire, stays hidden, and the
/// 10th has nothing to shoot at. Turned to face the 10th, it fires and is
/// seen, and both fire.
#[test]
fn v_c_3_a_hidden_unit_that_finds_no_target_stays_hidden() {
    let mut s = exchange();
    let r = s.unit_mut(THIRD_TENN).unwrap();
    r.entrenched = true;
    r.facing = 0.0;
    let out = run(&s);
    assert_eq!(fires(&out), vec![], "nobody can fire");

    let mut s = exchange();
    s.unit_mut(THIRD_TENN).unwrap().entrenched = true;
    let f: Vec<UnitId> = fires(&run(&s)).into_iter().map(|(u, _)| u).collect();
    assert!(
        f.contains(&THIRD_TENN) && f.contains(&TENTH_OHIO),
        "firing reveals it: {f:?}"
    );
}
