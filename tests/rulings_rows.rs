//! Rows of docs/rulings.md that had no test of their own, each played
//! through a turn of the engine on the training scenario with fixed dice:
//! VI.C.2 (no path of retreat), VI.E.2.ii (an officer hit with the unit and
//! another in contact), I.B.4.ii with IV.G ** (a half move across ground
//! that forbids split moves), VI.C.3-4 (a battery broken near the enemy
//! and in contact with it), VI.E.1 and VI.E.2.iv (who rolls to rally, and a
//! unit at 0 that rolls a loss), the V.B table's "no fire" at morale 0
//! I.C.1's distance bands at their edges, VI.D.4's table for base 4, and
//! V.B.3's short die, VI.D.2.v-vi (a checking unit under 4 castings) and
//! the V.B table's lying-down modifier (III.J).

use adjutant::dice::ScriptedDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::{Formation, OfficerRating};
use adjutant::rules::iron_brigade::orders::{
    Action, BookedOrder, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, Ranks, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const TWELFTH_OHIO: UnitId = UnitId(2);
const THIRD_TENN: UnitId = UnitId(5);
const FIFTH_TENN: UnitId = UnitId(6);
const HALE: OfficerId = OfficerId(1);

/// The training scenario with only the given units, all in two-rank lines
/// that have been under fire, each placed at (x, y) facing `facing`.
fn field(units: &[(UnitId, f64, f64, f64)]) -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units.retain(|u| units.iter().any(|(id, ..)| *id == u.id));
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    for &(id, x, y, facing) in units {
        let u = s.unit_mut(id).unwrap();
        u.position = Pos::new(x, y);
        u.facing = facing;
    }
    // Officers out of the way unless a test puts one somewhere.
    for o in &mut s.officers {
        o.position = Pos::new(2.0, 2.0);
    }
    s
}

fn order(id: u64, unit: UnitId, action: Action) -> (UnitId, Vec<BookedOrder>) {
    (
        unit,
        vec![BookedOrder {
            order: UnitOrder {
                id,
                unit,
                issued_by: HALE,
                issued_turn: 1,
                follows_previous: false,
                steps: vec![Step {
                    trigger: Trigger::Then,
                    action,
                }],
            },
            effective_turn: 1,
            current_step: 0,
        }],
    )
}

/// Dice as given, then 3s.
fn run(s: &BattleState, b: &OrderBook, dice: &[u8]) -> TurnOutcome {
    let all = dice.iter().copied().chain(std::iter::repeat_n(3, 200));
    let mut d = ScriptedDice::new(all).unwrap();
    resolve_turn(s, b, &TurnOrders::default(), &mut d).unwrap()
}

/// docs/rulings.md VI.C.2: a broken unit that cannot get a quarter inch
/// away has no path of retreat and surrenders whole. The 12th Ohio, broken,
/// has the 3rd Tennessee at its front (the nearest enemy, 0.1" off) and the
/// 5th Tennessee 0.15" behind it: it falls back away from the 3rd, straight
/// into the 5th. Its rally die is a 3 (regular, +0: no change at 0).
#[test]
fn vi_c_2_a_broken_unit_with_no_way_back_surrenders() {
    let mut s = field(&[
        (TWELFTH_OHIO, 18.0, 16.0, 0.0),
        (THIRD_TENN, 18.0, 17.6, 180.0),
        (FIFTH_TENN, 18.0, 14.35, 0.0),
    ]);
    {
        let u = s.unit_mut(TWELFTH_OHIO).unwrap();
        u.combat_morale = 0;
        u.broken = true;
    }
    let mut b = OrderBook::default();
    b.units.extend([
        order(1, THIRD_TENN, Action::HoldFire),
        order(2, FIFTH_TENN, Action::HoldFire),
    ]);
    let out = run(&s, &b, &[]);
    assert!(
        out.events.iter().any(
            |e| matches!(e, Event::Surrendered { unit, castings: 16 } if unit.id == TWELFTH_OHIO)
        ),
        "{:#?}",
        out.events
    );
    assert_eq!(out.state.unit(TWELFTH_OHIO).unwrap().castings, 0);
    // With the way south open the same unit simply falls back.
    let s2 = {
        let mut s2 = s.clone();
        s2.units.retain(|u| u.id != FIFTH_TENN);
        s2
    };
    let out = run(&s2, &b, &[]);
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, Event::Retreated { unit, .. } if unit.id == TWELFTH_OHIO)),
        "{:#?}",
        out.events
    );
}

/// docs/rulings.md VI.E.2.ii: a good officer hit with the 10th Ohio in the
/// last fire phase turns his +4 into a deduction of 4, and a hero standing
/// with the unit does not help that one rally. Die 3, regular +0, officer
/// -4: -1 on the table, one level lost (4 to 3). Without the hit, the hero's
/// +6 makes it 9: three levels, held to base 5.
#[test]
fn vi_e_2_ii_a_hit_officer_s_deduction_replaces_any_help() {
    let mut s = field(&[
        (TENTH_OHIO, 12.0, 16.0, 0.0),
        (THIRD_TENN, 12.0, 34.0, 180.0),
    ]);
    {
        let o = s.officer_mut(HALE).unwrap();
        o.rating = OfficerRating::Hero;
        o.position = Pos::new(12.0, 15.0);
    }
    s.unit_mut(TENTH_OHIO).unwrap().combat_morale = 4;
    let mut b = OrderBook::default();
    b.units.extend([
        order(1, TENTH_OHIO, Action::HoldFire),
        order(2, THIRD_TENN, Action::HoldFire),
    ]);
    let rally = |out: &TurnOutcome| {
        out.events
            .iter()
            .find_map(|e| match e {
                Event::RallyAttempt {
                    unit,
                    modified_roll,
                    officer_modifier,
                    officer_was_hit,
                    to,
                    ..
                } if unit.id == TENTH_OHIO => {
                    Some((*modified_roll, *officer_modifier, *officer_was_hit, *to))
                }
                _ => None,
            })
            .unwrap()
    };
    let mut hit = s.clone();
    hit.unit_mut(TENTH_OHIO).unwrap().marks.officer_hit_with = Some(OfficerRating::Good);
    assert_eq!(rally(&run(&hit, &b, &[3])), (-1, -4, true, 3));
    assert_eq!(rally(&run(&s, &b, &[3])), (9, 6, false, 5));
}

/// docs/rulings.md I.B.4.ii with IV.G **: the 10th Ohio is ordered to
/// advance firing (a half move and fire at +2), but its way lies through
/// the 12th Ohio's ranks, where no split move is allowed: it makes the full
/// move instead and does not fire.
#[test]
fn i_b_4_ii_a_half_move_across_barred_ground_becomes_a_full_move_without_fire() {
    let s = field(&[
        (TENTH_OHIO, 12.0, 10.0, 0.0),
        (TWELFTH_OHIO, 12.0, 13.0, 0.0),
        (THIRD_TENN, 12.0, 24.0, 180.0),
    ]);
    let advance = |fire_while_moving| {
        Action::Move(MoveOrder {
            waypoints: vec![Pos::new(12.0, 18.0)],
            by_road: false,
            formation: None,
            gait: Gait::March,
            fire_while_moving,
            backwards: false,
        })
    };
    let mut b = OrderBook::default();
    b.units.extend([
        order(1, TENTH_OHIO, advance(true)),
        order(2, TWELFTH_OHIO, Action::HoldFire),
        order(3, THIRD_TENN, Action::HoldFire),
    ]);
    let out = run(&s, &b, &[]);
    let moved = out
        .events
        .iter()
        .find_map(|e| match e {
            Event::Moved {
                unit,
                distance,
                half,
                ..
            } if unit.id == TENTH_OHIO => Some((*distance, *half)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{:#?}", out.events));
    assert!(!moved.1, "a full move: {moved:?}");
    assert!(moved.0 > 3.5, "more than a half move: {moved:?}");
    assert!(
        !out.events
            .iter()
            .any(|e| matches!(e, Event::Fired { unit, .. } if unit.id == TENTH_OHIO)),
        "{:#?}",
        out.events
    );
}

const BATTERY: UnitId = UnitId(4);

/// Battery A unlimbered at (20, 10) facing north at morale 1 (pinned: it
/// does not fire), the 3rd Tennessee in line facing it, its rear rank
/// `gap` inches from the battery's front.
fn battery_under_fire(gap: f64) -> BattleState {
    use adjutant::rules::iron_brigade::geometry::footprint;
    let mut s = field(&[(BATTERY, 20.0, 10.0, 0.0), (THIRD_TENN, 20.0, 20.0, 180.0)]);
    {
        let b = s.unit_mut(BATTERY).unwrap();
        b.formation = Formation::Unlimbered;
        b.combat_morale = 1;
    }
    let bd = footprint(s.unit(BATTERY).unwrap()).depth;
    let td = footprint(s.unit(THIRD_TENN).unwrap()).depth;
    s.unit_mut(THIRD_TENN).unwrap().position = Pos::new(20.0, 10.0 + (bd + td) / 2.0 + gap);
    s
}

fn seeded(s: &BattleState, seed: u8) -> TurnOutcome {
    let mut d = adjutant::dice::StreamDice::new([seed; 32]);
    resolve_turn(s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap()
}

/// docs/rulings.md VI.C.3 and VI.C.4 through a turn: Battery A (4 crew),
/// pinned at morale 1, is broken by the 3rd Tennessee's fire. With the 3rd
/// 0.8" off (within 1", not in contact) a third of what is left of the crew
/// is captured, rounded down, and the guns are not lost; in contact (0.2")
/// the guns are lost as well (VI.C.4 "in contact").
#[test]
fn vi_c_3_4_a_battery_broken_within_an_inch_keeps_its_guns_in_contact_loses_them() {
    let near = seeded(&battery_under_fire(0.8), 5);
    let b = near.state.unit(BATTERY).unwrap();
    assert!(b.broken, "{:#?}", near.events);
    let captured: u32 = near
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Captured { unit, castings, .. } if unit.id == BATTERY => Some(*castings),
            _ => None,
        })
        .sum();
    // What the fire left, less a third of it rounded down.
    let before = b.castings + captured;
    assert_eq!(captured, before / 3, "{:#?}", near.events);
    assert!(captured > 0);
    assert!(
        !near
            .events
            .iter()
            .any(|e| matches!(e, Event::GunsLost { .. }))
    );
    assert_eq!(b.guns, 4);

    let contact = seeded(&battery_under_fire(0.2), 1);
    let b = contact.state.unit(BATTERY).unwrap();
    assert!(b.broken, "{:#?}", contact.events);
    assert!(
        contact
            .events
            .iter()
            .any(|e| matches!(e, Event::GunsLost { unit, .. } if unit.id == BATTERY))
    );
    assert_eq!(b.guns, 0);
}

/// docs/rulings.md VI.E.2.iv: the broken 12th Ohio (morale 0), whose good
/// colonel was hit with it, rolls a 1 to rally: 1 + 0 - 4 = -3, two levels
/// lost on the table; it stays at 0 and retreats. VI.E.1: the 10th Ohio at
/// its base rolls nothing. V.B table: the broken 12th does not fire though
/// the 3rd Tennessee is in range and sight.
#[test]
fn vi_e_2_iv_a_unit_at_0_rolling_a_loss_stays_at_0_and_retreats() {
    let mut s = field(&[
        (TENTH_OHIO, 10.0, 16.0, 0.0),
        (TWELFTH_OHIO, 24.0, 16.0, 0.0),
        (THIRD_TENN, 24.0, 21.0, 180.0),
    ]);
    {
        let u = s.unit_mut(TWELFTH_OHIO).unwrap();
        u.combat_morale = 0;
        u.broken = true;
        u.marks.officer_hit_with = Some(OfficerRating::Good);
    }
    let mut b = OrderBook::default();
    b.units.extend([order(1, THIRD_TENN, Action::HoldFire)]);
    let out = run(&s, &b, &[1]);
    let rallies: Vec<(UnitId, u8, i32, u8)> = out
        .events
        .iter()
        .filter_map(|e| match e {
            Event::RallyAttempt {
                unit,
                die,
                modified_roll,
                to,
                ..
            } => Some((unit.id, *die, *modified_roll, *to)),
            _ => None,
        })
        .collect();
    assert_eq!(rallies, vec![(TWELFTH_OHIO, 1, -3, 0)], "{:#?}", out.events);
    let u = out.state.unit(TWELFTH_OHIO).unwrap();
    assert_eq!(u.combat_morale, 0);
    assert!(u.broken);
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, Event::Retreated { unit, .. } if unit.id == TWELFTH_OHIO)),
        "{:#?}",
        out.events
    );
    assert!(
        !out.events
            .iter()
            .any(|e| matches!(e, Event::Fired { unit, .. } if unit.id == TWELFTH_OHIO)),
        "a broken unit does not fire"
    );
}

/// docs/rulings.md I.C.1 through a turn: Colonel Hale writes to the 10th
/// Ohio from due south of it. With the nearest part of the unit exactly 12"
/// away the order acts this turn ("within 12 inches"); 12.01" away it waits
/// a turn (the distance is not rounded like a fire range); exactly 24" is
/// still one turn, 24.01" two.
#[test]
fn i_c_1_order_delay_at_the_band_edges() {
    use adjutant::rules::iron_brigade::geometry::footprint;
    for (distance, wait) in [(12.0, 0), (12.01, 1), (24.0, 1), (24.01, 2)] {
        let mut s = field(&[(TENTH_OHIO, 20.0, 30.0, 0.0)]);
        let rear = 30.0 - footprint(s.unit(TENTH_OHIO).unwrap()).depth / 2.0;
        s.officers
            .iter_mut()
            .find(|o| o.id == HALE)
            .unwrap()
            .position = Pos::new(20.0, rear - distance);
        let orders = TurnOrders {
            unit_orders: vec![UnitOrder {
                id: 1,
                unit: TENTH_OHIO,
                issued_by: HALE,
                issued_turn: s.turn,
                follows_previous: false,
                steps: vec![Step {
                    trigger: Trigger::Then,
                    action: Action::HoldFire,
                }],
            }],
            officer_moves: vec![],
            dispatches: vec![],
        };
        let mut d = ScriptedDice::new(std::iter::repeat_n(3, 50)).unwrap();
        let out = resolve_turn(&s, &OrderBook::default(), &orders, &mut d).unwrap();
        let booked = out
            .events
            .iter()
            .find_map(|e| match e {
                Event::OrderBooked {
                    effective_turn,
                    distance,
                    ..
                } => Some((*effective_turn, *distance)),
                _ => None,
            })
            .unwrap();
        assert_eq!(
            booked.0,
            s.turn + wait,
            "{distance}\" (measured {}) waits {wait}",
            booked.1
        );
    }
}

/// docs/rulings.md VI.D.4 through a turn: the table, not the text's "up to
/// 2 morale levels", rules. The 14th Ohio (base 4) ordered forward at the
/// double rolls a 1: the base-4 column's 3 levels, 4 to 1 (and pinned).
#[test]
fn vi_d_4_the_table_s_three_levels_for_base_4_on_a_1() {
    const FOURTEENTH: UnitId = UnitId(3);
    let s = field(&[(FOURTEENTH, 40.0, 3.0, 0.0)]);
    assert_eq!(s.unit(FOURTEENTH).unwrap().base_morale, 4);
    let mut b = OrderBook::default();
    b.units.extend([order(
        1,
        FOURTEENTH,
        Action::Move(MoveOrder {
            waypoints: vec![Pos::new(40.0, 20.0)],
            by_road: false,
            formation: None,
            gait: Gait::DoubleQuick,
            fire_while_moving: false,
            backwards: false,
        }),
    )]);
    let out = run(&s, &b, &[1]);
    assert!(
        out.events.iter().any(|e| matches!(e,
            Event::DoubleQuick { unit, roll: 1, morale_lost: 3, .. } if unit.id == FOURTEENTH)),
        "{:#?}",
        out.events
    );
    let u = out.state.unit(FOURTEENTH).unwrap();
    assert_eq!(u.combat_morale, 1);
    assert!(u.marks.pinned);
}

/// docs/rulings.md V.B.1.iii, V.B.3: two castings roll one die less the
/// two short of four; a 1 counts as 0, never -1, and with no casualties
/// the target rolls no save (V.B.1.vi).
#[test]
fn v_b_3_a_short_die_never_goes_below_0() {
    let mut s = field(&[
        (TENTH_OHIO, 20.0, 16.0, 0.0),
        (THIRD_TENN, 20.0, 20.0, 180.0),
    ]);
    s.unit_mut(TENTH_OHIO).unwrap().castings = 2;
    let mut b = OrderBook::default();
    b.units.extend([order(1, THIRD_TENN, Action::HoldFire)]);
    let out = run(&s, &b, &[1]);
    let fired = out
        .events
        .iter()
        .find_map(|e| match e {
            Event::Fired {
                unit,
                dice_total,
                casualties,
                save_dice,
                attack_dice,
                ..
            } if unit.id == TENTH_OHIO => Some((
                *dice_total,
                *casualties,
                save_dice.clone(),
                attack_dice.clone(),
            )),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{:#?}", out.events));
    assert_eq!(fired, (0, 0, vec![], vec![1]));
    assert_eq!(out.state.unit(THIRD_TENN).unwrap().castings, 17);
}

/// docs/rulings.md VI.D.2.v-vi through a turn: the broken 12th Ohio (16
/// castings) falls back in sight of the 10th Ohio, down to 3 castings. The
/// 12th rolls its 4 panic dice, 6+6+6+6 = 24, / 7 = 3; the 10th, under 4
/// castings, has no saving die (a lone die could never reach 10): it loses
/// 3 - 0 = 3 levels, 5 to 2.
#[test]
fn vi_d_2_v_a_checking_unit_under_4_castings_has_no_saving_die() {
    let mut s = field(&[
        (TENTH_OHIO, 14.0, 10.0, 0.0),
        (TWELFTH_OHIO, 24.0, 10.0, 0.0),
        (THIRD_TENN, 24.0, 30.0, 180.0),
    ]);
    s.unit_mut(TENTH_OHIO).unwrap().castings = 3;
    {
        let u = s.unit_mut(TWELFTH_OHIO).unwrap();
        u.combat_morale = 0;
        u.broken = true;
    }
    let mut b = OrderBook::default();
    b.units.extend([
        order(1, THIRD_TENN, Action::HoldFire),
        order(2, TENTH_OHIO, Action::HoldFire),
    ]);
    // The 12th's rally die (3: no change), then its panic dice.
    let out = run(&s, &b, &[3, 6, 6, 6, 6]);
    let panic = out
        .events
        .iter()
        .find_map(|e| match e {
            Event::Panic {
                unit,
                panic_dice,
                saving_dice,
                morale_lost,
                ..
            } if unit.id == TENTH_OHIO => {
                Some((panic_dice.clone(), saving_dice.clone(), *morale_lost))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("{:#?}", out.events));
    assert_eq!(panic, (vec![6, 6, 6, 6], vec![], 3));
    assert_eq!(out.state.unit(TENTH_OHIO).unwrap().combat_morale, 2);
}

/// docs/rulings.md V.B table with III.J: the 10th Ohio lying down fires
/// at +2 with its rifled muskets; armed with breechloaders it fires lying
/// down at no cost.
#[test]
fn v_b_iii_j_lying_down_costs_only_muzzle_loaders() {
    use adjutant::rules::iron_brigade::kinds::Weapon;
    let mods = |weapon: Weapon| {
        let mut s = field(&[
            (TENTH_OHIO, 20.0, 16.0, 0.0),
            (THIRD_TENN, 20.0, 20.0, 180.0),
        ]);
        {
            let u = s.unit_mut(TENTH_OHIO).unwrap();
            u.lying_down = true;
            u.weapon = weapon;
        }
        let mut b = OrderBook::default();
        b.units.extend([order(1, THIRD_TENN, Action::HoldFire)]);
        let out = run(&s, &b, &[]);
        out.events
            .iter()
            .find_map(|e| match e {
                Event::Fired {
                    unit, modifiers, ..
                } if unit.id == TENTH_OHIO => Some(modifiers.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{:#?}", out.events))
    };
    let rifled = mods(Weapon::RifledMusket);
    assert!(
        rifled.contains(&"firing lying down with muzzle-loaders +2".to_string()),
        "{rifled:?}"
    );
    let breech = mods(Weapon::BreechloadingRifle);
    assert!(
        breech.iter().all(|m| !m.contains("lying down")),
        "{breech:?}"
    );
}
