//! Whole turns of Iron Brigade on the training scenario (Miller's
//! Crossroads), with scripted dice and every expected number worked out by
//! hand from the rule text in the comments.

use adjutant::dice::{ScriptedDice, StreamDice};
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::{Formation, OfficerRating};
use adjutant::rules::iron_brigade::orders::{
    Action, Gait, MoveOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{
    BattleState, OfficerId, OfficerStatus, Pos, Ranks, UnitId,
};
use adjutant::rules::iron_brigade::turn::{TurnError, TurnOutcome, resolve_turn};
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const TWELFTH_OHIO: UnitId = UnitId(2);
const BATTERY_A: UnitId = UnitId(4);
const THIRD_TENN: UnitId = UnitId(5);
const RIDLEY: UnitId = UnitId(8);
const HALE: OfficerId = OfficerId(1);

fn training() -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    battle_state_from_scenario(&sc)
}

fn keep(mut s: BattleState, ids: &[UnitId]) -> BattleState {
    s.units.retain(|u| ids.contains(&u.id));
    s
}

fn move_to(id: u64, unit: UnitId, to: Pos, gait: Gait) -> UnitOrder {
    UnitOrder {
        id,
        unit,
        issued_by: HALE,
        issued_turn: 1,
        follows_previous: false,
        steps: vec![Step {
            trigger: Trigger::Then,
            action: Action::Move(MoveOrder {
                waypoints: vec![to],
                by_road: false,
                formation: None,
                gait,
                fire_while_moving: false,
                backwards: false,
            }),
        }],
    }
}

fn dice(values: &[i64]) -> ScriptedDice {
    ScriptedDice::new(values.iter().copied()).unwrap()
}

fn run(
    s: &BattleState,
    book: &OrderBook,
    orders: &TurnOrders,
    d: &mut ScriptedDice,
) -> TurnOutcome {
    resolve_turn(s, book, orders, d).unwrap()
}

fn near(a: Pos, x: f64, y: f64) -> bool {
    (a.x - x).abs() < 1e-6 && (a.y - y).abs() < 1e-6
}

/// Turn 1 as set up. The 10th Ohio (column, 24,11) is ordered north to
/// (24,16) by Colonel Hale, 1.1" away: within 12", so it acts this turn
/// (I.C.1). A column moves 7 + 1 = 8" (IV.G): the 5" march arrives.
/// Nobody else has orders, so units fire at will (I.B.4.i.b). Only Battery
/// A (12-pdr, on Round Hill) has an enemy in reach: Ridley's limbered
/// battery at 23" (the 3rd Tennessee is further). 12-pdr at 17–40" is 4;
/// artillery is 1 rank deep: +1; Ridley has never been under fire, so the
/// fire is perilous (V.G.1.ii): −2 → 3. Four crew roll 2 dice: 3 + 3 = 6
/// → 2 casualties. Two crew left roll 1 die: 3; perilous loss 10 × 2 − 3 =
/// 17 levels: Ridley's breaks (VI.C). It is 20" from the nearest Union
/// unit, so nothing is captured (VI.C.3).
#[test]
fn i_b_turn_one_march_and_battery_fire() {
    let s = training();
    let orders = TurnOrders {
        unit_orders: vec![move_to(1, TENTH_OHIO, Pos::new(24.0, 16.0), Gait::March)],
        officer_moves: vec![],
        dispatches: vec![],
    };
    let mut d = dice(&[3, 3, 3]);
    let out = run(&s, &OrderBook::default(), &orders, &mut d);
    assert_eq!(d.remaining(), 0);
    assert_eq!(out.state.turn, 2);
    let tenth = out.state.unit(TENTH_OHIO).unwrap();
    assert!(near(tenth.position, 24.0, 16.0), "{:?}", tenth.position);
    let ridley = out.state.unit(RIDLEY).unwrap();
    assert_eq!(
        (ridley.castings, ridley.combat_morale, ridley.broken),
        (2, 0, true)
    );
    let fired: Vec<_> = out
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Fired {
                unit,
                target,
                range,
                effectiveness,
                dice_total,
                casualties,
                save_total,
                morale_lost,
                ..
            } => Some((
                unit.id,
                target.id,
                *range,
                *effectiveness,
                *dice_total,
                *casualties,
                *save_total,
                *morale_lost,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(fired, vec![(BATTERY_A, RIDLEY, 23, 3, 6, 2, 3, 17)]);
    assert!(
        out.events
            .iter()
            .all(|e| !matches!(e, Event::Captured { .. }))
    );
    // The finished order leaves the book.
    assert!(out.book.units.is_empty());
    // Both sides see each other's units at the end of the turn, but the
    // Confederates are never told of the Union order.
    let grey = &out.visibility[&adjutant::rules::iron_brigade::state::SideId(1)];
    assert!(grey.seen.contains_key(&TENTH_OHIO));
    let told: Vec<_> = out
        .events
        .iter()
        .filter(|e| {
            adjutant::rules::iron_brigade::events::visible_to(
                adjutant::rules::iron_brigade::state::SideId(1),
                e,
                grey,
            )
        })
        .collect();
    assert!(
        told.iter()
            .all(|e| !matches!(e, Event::OrderBooked { .. } | Event::StepCompleted { .. }))
    );
}

/// The 10th Ohio and the 3rd Tennessee face each other in two-rank lines
/// 4.5" apart (range rounds up to 5"), both veterans of fire already. With
/// no orders both fire at will, at each other: V.B.2, each rolls a die, the
/// 10th 5 against 2, so it fires first. Rifled musket at 2–6" is 5; target
/// two ranks deep, morale 5, front, no cover: 5. 18 castings roll 4 dice,
/// 4+4+4+4 = 16 → 3 casualties; the 3rd has 14 left, 3 dice 5+5+5 = 15
/// against 5 × 3 = 15: no morale lost. Then the 3rd replies with its 14
/// castings (3 dice, not 4): 6+6+6 = 18 → 3 casualties; the 10th has 15
/// left, 3 dice 4+4+5 = 13, loses 15 − 13 = 2 → morale 3. Colonel Hale
/// at (24,8) is 7.25" behind the 10th, in line with the fire: he rolls (V.H);
/// mounted, a 1 misses him.
#[test]
fn v_b_2_exchange_of_fire_the_second_replies_after_losses() {
    let mut s = keep(training(), &[TENTH_OHIO, THIRD_TENN]);
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    let t = s.unit_mut(TENTH_OHIO).unwrap();
    t.position = Pos::new(24.0, 16.0);
    t.facing = 0.0;
    let r = s.unit_mut(THIRD_TENN).unwrap();
    r.position = Pos::new(24.0, 22.0);
    r.facing = 180.0;
    let mut d = dice(&[5, 2, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6, 4, 4, 5, 1]);
    let out = run(&s, &OrderBook::default(), &TurnOrders::default(), &mut d);
    assert_eq!(d.remaining(), 0);
    let tenth = out.state.unit(TENTH_OHIO).unwrap();
    let third = out.state.unit(THIRD_TENN).unwrap();
    assert_eq!((tenth.castings, tenth.combat_morale), (15, 3));
    assert_eq!((third.castings, third.combat_morale), (14, 5));
    assert!(near(tenth.position, 24.0, 16.0));
    let order: Vec<(UnitId, u32, u32, u32)> = out
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Fired {
                unit,
                range,
                castings_firing,
                casualties,
                ..
            } => Some((unit.id, *range, *castings_firing, *casualties)),
            _ => None,
        })
        .collect();
    assert_eq!(order, vec![(TENTH_OHIO, 5, 18, 3), (THIRD_TENN, 5, 14, 3)]);
    assert!(out.events.iter().any(|e| matches!(e,
        Event::FireOrder { first: Some(f), roll_a: 5, roll_b: 2, .. } if f.id == TENTH_OHIO)));
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, Event::OfficerMissed { roll: 1, .. }))
    );
    assert_eq!(
        out.state.officer(HALE).unwrap().status,
        OfficerStatus::Active
    );
}

/// Same exchange, but Colonel Hale's die is a 6: hit (V.H.2). His
/// replacement's delay die 3 means one turn late (V.H.3: arrives at the
/// start of turn 3), and with no successor named in the scenario the
/// quality die 1 makes him a hero.
#[test]
fn v_h_officer_hit_in_the_line_of_fire_is_replaced_later() {
    let mut s = keep(training(), &[TENTH_OHIO, THIRD_TENN]);
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    s.unit_mut(TENTH_OHIO).unwrap().position = Pos::new(24.0, 16.0);
    let r = s.unit_mut(THIRD_TENN).unwrap();
    r.position = Pos::new(24.0, 22.0);
    r.facing = 180.0;
    let mut d = dice(&[5, 2, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6, 4, 4, 5, 6, 3, 1]);
    let out = run(&s, &OrderBook::default(), &TurnOrders::default(), &mut d);
    assert_eq!(d.remaining(), 0);
    let hale = out.state.officer(HALE).unwrap();
    assert_eq!(hale.status, OfficerStatus::Wounded);
    assert_eq!(out.state.replacements.len(), 1);
    assert_eq!(out.state.replacements[0].arrives_turn, 3);
    assert_eq!(out.state.replacements[0].rating, OfficerRating::Hero);
    assert!(near(out.state.replacements[0].position, 24.0, 8.0));
    // Turn 2: an order from the wounded colonel is ignored.
    let orders = TurnOrders {
        unit_orders: vec![move_to(9, TENTH_OHIO, Pos::new(24.0, 13.0), Gait::March)],
        officer_moves: vec![],
        dispatches: vec![],
    };
    let mut state2 = out.state.clone();
    // Part the lines so turn 2 has no fire to roll.
    state2.unit_mut(THIRD_TENN).unwrap().position = Pos::new(24.0, 40.0);
    let mut d = dice(&[6, 6]);
    let out2 = run(&state2, &out.book, &orders, &mut d);
    assert!(
        out2.events
            .iter()
            .any(|e| matches!(e, Event::OrderIgnored { order: 9, .. }))
    );
    // Turn 3: the hero takes the field where Hale stood.
    let mut d = dice(&[6, 6]);
    let out3 = run(&out2.state, &out2.book, &TurnOrders::default(), &mut d);
    let hale = out3.state.officer(HALE).unwrap();
    assert_eq!(
        (hale.status, hale.rating),
        (OfficerStatus::Active, OfficerRating::Hero)
    );
    assert!(out3.state.replacements.is_empty());
}

/// VI.E, VI.C, VI.D.2. The 10th Ohio (18 castings, line at 24,16 facing
/// north) is broken; the 3rd Tennessee stands 4.5" north of it; the 12th
/// Ohio watches from Round Hill (16,8). Morale phase: the 10th tries to
/// rally, no officer in contact: 2 + 0 → no change, so it retreats
/// (VI.E.2.iv), straight away from the 3rd Tennessee (due south), as open
/// order: 7 + 2 = 9", less 1" because its 4.5" front straddles Miller's
/// fence at x = 26 where it starts (IV.C.1, IV.G fence −1) → (24,8). The
/// 12th sees it retreat and checks once:
/// panic 4 dice 6+6+6+6 = 24 → 3; saving 4 dice 1+2+1+2 = 6 → 0; loss 3 →
/// morale 2. Nothing is within range to fire.
/// Turn 2: the 10th fails again (1) and, clear of the fence, would go 9"
/// further to (24,−1): the south edge (y = 0) is within its retreat, so it
/// leaves the field there with its 18 castings (docs/rulings.md, "The
/// table edge"); the 12th rallies (6 + 0 → +1, morale 3) and does not
/// check again for the same broken unit.
#[test]
fn vi_c_broken_unit_retreats_and_friends_check_once() {
    let mut s = keep(training(), &[TENTH_OHIO, TWELFTH_OHIO, THIRD_TENN]);
    let t = s.unit_mut(TENTH_OHIO).unwrap();
    t.formation = Formation::Line;
    t.position = Pos::new(24.0, 16.0);
    t.combat_morale = 0;
    t.broken = true;
    let r = s.unit_mut(THIRD_TENN).unwrap();
    r.formation = Formation::Line;
    r.position = Pos::new(24.0, 22.0);
    s.unit_mut(TWELFTH_OHIO).unwrap().position = Pos::new(16.0, 8.0);
    let mut d = dice(&[2, 6, 6, 6, 6, 1, 2, 1, 2]);
    let out = run(&s, &OrderBook::default(), &TurnOrders::default(), &mut d);
    assert_eq!(d.remaining(), 0);
    let tenth = out.state.unit(TENTH_OHIO).unwrap();
    assert!(near(tenth.position, 24.0, 8.0), "{:?}", tenth.position);
    assert_eq!(
        (tenth.castings, tenth.combat_morale, tenth.broken),
        (18, 0, true)
    );
    let twelfth = out.state.unit(TWELFTH_OHIO).unwrap();
    assert_eq!(twelfth.combat_morale, 2);
    assert_eq!(twelfth.marks.panic_checked, vec![TENTH_OHIO]);
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::Panic {
            panic: 3,
            saving: 0,
            morale_lost: 3,
            ..
        }
    )));

    let mut d = dice(&[1, 6]);
    let out = run(&out.state, &out.book, &TurnOrders::default(), &mut d);
    assert_eq!(d.remaining(), 0);
    let tenth = out.state.unit(TENTH_OHIO).unwrap();
    assert!(near(tenth.position, 24.0, 0.0), "{:?}", tenth.position);
    assert!(tenth.marks.left_field);
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, Event::LeftTheField { castings: 18, .. }))
    );
    assert_eq!(out.state.unit(TWELFTH_OHIO).unwrap().combat_morale, 3);
    assert!(out.events.iter().all(|e| !matches!(e, Event::Panic { .. })));
}

/// VI.D.4: the 12th Ohio (regular, morale 5, column at 21,5) ordered north
/// at the double moves a full column move of 7 + 1 = 8" in the double-quick
/// phase, rolls a 1 and loses 2 levels (base-5 column), then marches on 8"
/// in the movement phase (our ruling: double time is a second move):
/// (21,5) → (21,13) → (21,21). Alone on the table, nobody fires.
#[test]
fn vi_d_4_double_quick_moves_then_pays_in_morale() {
    let mut s = keep(training(), &[TWELFTH_OHIO]);
    s.unit_mut(TWELFTH_OHIO).unwrap().position = Pos::new(21.0, 5.0);
    let orders = TurnOrders {
        unit_orders: vec![move_to(
            3,
            TWELFTH_OHIO,
            Pos::new(21.0, 30.0),
            Gait::DoubleQuick,
        )],
        officer_moves: vec![],
        dispatches: vec![],
    };
    let mut d = dice(&[1]);
    let out = run(&s, &OrderBook::default(), &orders, &mut d);
    assert_eq!(d.remaining(), 0);
    let u = out.state.unit(TWELFTH_OHIO).unwrap();
    assert_eq!(u.combat_morale, 3);
    assert!(near(u.position, 21.0, 21.0), "{:?}", u.position);
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::DoubleQuick {
            roll: 1,
            morale_lost: 2,
            ..
        }
    )));
}

/// VI.D.3: enemies in contact roll a die per 4 castings; the lower total
/// loses a level per full 3 of difference.
#[test]
fn vi_d_3_contact_in_the_morale_phase() {
    let mut s = keep(training(), &[TENTH_OHIO, THIRD_TENN]);
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    s.unit_mut(TENTH_OHIO).unwrap().position = Pos::new(24.0, 16.0);
    let r = s.unit_mut(THIRD_TENN).unwrap();
    // Fronts 0.4" apart (10th's at 16.75, the 3rd's at 17.9 − 0.75):
    // within the 0.5" contact gap.
    r.position = Pos::new(24.0, 17.9);
    r.facing = 180.0;
    // Contact: 10th 4 dice 6,6,6,6 = 24; 3rd 4 dice 1,1,1,1 = 4 →
    // the 3rd loses ⌊20 / 3⌋ = 6 → 0: it breaks in contact, and a third
    // of its castings is captured: 17 / 3 = 5 (VI.C.3). Contact comes
    // before rally, so it tries to rally at once: die 1 → nothing, and it
    // retreats. The remaining dice feed the 10th's fire at will.
    let mut d = dice(&[
        6, 6, 6, 6, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    ]);
    let out = resolve_turn(&s, &OrderBook::default(), &TurnOrders::default(), &mut d).unwrap();
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::Contact {
            total_a: 24,
            total_b: 4,
            morale_lost: 6,
            ..
        }
    )));
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, Event::Captured { castings: 5, .. }))
    );
    let third = out.state.unit(THIRD_TENN).unwrap();
    assert!(third.castings <= 12);
    assert!(third.broken);
}

#[test]
fn malformed_orders_are_errors_not_panics() {
    let s = training();
    let orders = TurnOrders {
        unit_orders: vec![move_to(1, UnitId(99), Pos::new(0.0, 0.0), Gait::March)],
        officer_moves: vec![],
        dispatches: vec![],
    };
    let mut d = dice(&[]);
    let err = resolve_turn(&s, &OrderBook::default(), &orders, &mut d).unwrap_err();
    assert_eq!(err, TurnError::UnknownUnit { order: 1, unit: 99 });
    let mut bad = move_to(2, TENTH_OHIO, Pos::new(f64::NAN, 0.0), Gait::March);
    bad.issued_by = OfficerId(2);
    let orders = TurnOrders {
        unit_orders: vec![bad],
        officer_moves: vec![],
        dispatches: vec![],
    };
    assert!(matches!(
        resolve_turn(&s, &OrderBook::default(), &orders, &mut d),
        Err(TurnError::WrongSide { .. })
    ));
}

/// Same state, orders and seed → byte-identical state and events.
#[test]
fn same_inputs_same_seed_same_bytes() {
    let s = training();
    let orders = TurnOrders {
        unit_orders: vec![
            move_to(1, TENTH_OHIO, Pos::new(24.0, 18.0), Gait::March),
            move_to(2, TWELFTH_OHIO, Pos::new(20.0, 12.0), Gait::DoubleQuick),
        ],
        officer_moves: vec![],
        dispatches: vec![],
    };
    let play = || {
        let mut d = StreamDice::new([7u8; 32]);
        let mut state = s.clone();
        let mut book = OrderBook::default();
        let mut log = String::new();
        for turn in 0..4 {
            let o = if turn == 0 {
                orders.clone()
            } else {
                TurnOrders::default()
            };
            let out = resolve_turn(&state, &book, &o, &mut d).unwrap();
            log.push_str(&serde_json::to_string(&out.events).unwrap());
            state = out.state;
            book = out.book;
        }
        log.push_str(&d.draws().to_string());
        (
            state.canonical_json(),
            log,
            serde_json::to_string(&book).unwrap(),
        )
    };
    assert_eq!(play(), play());
}

/// The generated lines start 60–70" apart; close them to about 15" so the
/// turn has musketry and artillery in it (as in benches/turn.rs).
fn closed_up(mut s: BattleState) -> BattleState {
    for u in s.units.iter_mut().filter(|u| u.side.0 == 1) {
        u.position.y -= 50.0;
    }
    for o in s.officers.iter_mut().filter(|o| o.side.0 == 1) {
        o.position.y -= 50.0;
    }
    s
}

/// The benchmark's turn (benches/turn.rs) resolves without error on a
/// generated corps battle: every unit advancing, firing at will or holding.
#[test]
fn generated_corps_battle_turn_resolves() {
    use adjutant::rules::iron_brigade::orders::{BookedOrder, FireTarget};
    use adjutant::rules::iron_brigade::state::generate_corps_battle;
    let state = closed_up(generate_corps_battle(1863));
    let mut book = OrderBook::default();
    for (i, u) in state.units.iter().enumerate() {
        let action = match i % 3 {
            0 => Action::Move(MoveOrder {
                waypoints: vec![Pos::new(
                    u.position.x,
                    u.position.y + if u.side.0 == 0 { 10.0 } else { -10.0 },
                )],
                by_road: false,
                formation: None,
                gait: Gait::March,
                fire_while_moving: false,
                backwards: false,
            }),
            1 => Action::Fire(FireTarget::AtWill),
            _ => Action::Hold,
        };
        book.units.insert(
            u.id,
            vec![BookedOrder {
                order: UnitOrder {
                    id: i as u64 + 1,
                    unit: u.id,
                    issued_by: u.commander.unwrap_or(HALE),
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
        );
    }
    let mut d = StreamDice::new([42u8; 32]);
    let out = resolve_turn(&state, &book, &TurnOrders::default(), &mut d).unwrap();
    let mut kinds = std::collections::BTreeMap::new();
    for e in &out.events {
        let j = serde_json::to_value(e).unwrap();
        *kinds
            .entry(j["event"].as_str().unwrap_or("").to_string())
            .or_insert(0) += 1;
    }
    eprintln!("{kinds:?}");
    assert_eq!(out.state.turn, state.turn + 1);
    assert!(out.events.iter().any(|e| matches!(e, Event::Fired { .. })));
    assert!(out.events.iter().any(|e| matches!(e, Event::Moved { .. })));
    eprintln!(
        "{} units, {} events, {} dice",
        state.units.len(),
        out.events.len(),
        d.draws()
    );
}

/// I.B.3 with IV.E.1: the double-quick move is a move like the movement
/// phase's. The 12th Ohio in column at the double tries to cross Miller's
/// Run where the water (made 60" deep here) is over the 51" infantry may
/// ford in a weak current: the crossing is aborted with one casualty and
/// one level lost, on top of the double quick's own roll (6: nothing).
#[test]
fn i_b_3_double_quick_pays_a_failed_ford_like_a_march() {
    let mut s = keep(training(), &[TWELFTH_OHIO]);
    for l in &mut s.terrain.lines {
        if let Some(w) = l.water.as_mut() {
            w.depth_in = 60.0;
        }
    }
    s.unit_mut(TWELFTH_OHIO).unwrap().position = Pos::new(15.0, 22.0);
    // Colonel Hale beside it: the order acts this turn (I.C.1).
    s.officers
        .iter_mut()
        .find(|o| o.name == "Colonel Hale")
        .unwrap()
        .position = Pos::new(13.0, 20.0);
    let orders = TurnOrders {
        unit_orders: vec![move_to(
            3,
            TWELFTH_OHIO,
            Pos::new(15.0, 32.0),
            Gait::DoubleQuick,
        )],
        officer_moves: vec![],
        dispatches: vec![],
    };
    let mut d = dice(&[6, 3, 3, 3, 3]);
    let out = run(&s, &OrderBook::default(), &orders, &mut d);
    let dq = out
        .events
        .iter()
        .position(|e| matches!(e, Event::DoubleQuick { roll: 6, .. }))
        .unwrap_or_else(|| panic!("a double-quick move: {:#?}", out.events));
    let next = out.events.get(dq + 1..).unwrap_or_default();
    assert!(
        matches!(
            next.first(),
            Some(Event::Casualties { castings: 1, reason, .. }) if reason.contains("IV.E.1")
        ),
        "{:#?}",
        out.events
    );
    let u = out.state.unit(TWELFTH_OHIO).unwrap();
    assert!(
        u.position.y < 27.0,
        "still on the near bank: {:?}",
        u.position
    );
    assert!(u.castings <= 15, "{}", u.castings);
}

/// IV.D: "An officer can not double time and in the same turn, give
/// orders": Colonel Hale, asked to double time, issues an order this turn
/// and so moves at normal speed (the event says why).
#[test]
fn iv_d_an_officer_giving_orders_does_not_double_time() {
    use adjutant::rules::iron_brigade::orders::OfficerMove;
    let s = keep(training(), &[TWELFTH_OHIO]);
    let at = s.officer(HALE).unwrap().position;
    let orders = TurnOrders {
        unit_orders: vec![move_to(3, TWELFTH_OHIO, Pos::new(17.0, 20.0), Gait::March)],
        officer_moves: vec![OfficerMove {
            officer: HALE,
            waypoints: vec![Pos::new(at.x, at.y + 40.0)],
            with_unit: None,
            double_time: true,
        }],
        dispatches: vec![],
    };
    let out = run(&s, &OrderBook::default(), &orders, &mut dice(&[3; 20]));
    let moved = out
        .events
        .iter()
        .find_map(|e| match e {
            Event::OfficerMoved {
                double_time, note, ..
            } => Some((*double_time, note.clone())),
            _ => None,
        })
        .unwrap();
    assert!(!moved.0, "{moved:?}");
    assert!(moved.1.contains("IV.D"), "{moved:?}");
}

/// III.J: a unit lying down ordered to move stands up as part of the move
/// and moves its full distance.
#[test]
fn iii_j_a_unit_lying_down_stands_to_move() {
    let mut s = keep(training(), &[TWELFTH_OHIO]);
    let u = s.unit_mut(TWELFTH_OHIO).unwrap();
    u.lying_down = true;
    u.position = Pos::new(21.0, 5.0);
    u.formation = Formation::Column;
    let orders = TurnOrders {
        unit_orders: vec![move_to(3, TWELFTH_OHIO, Pos::new(21.0, 30.0), Gait::March)],
        officer_moves: vec![],
        dispatches: vec![],
    };
    // Colonel Hale beside it: the order acts this turn (I.C.1).
    s.officers
        .iter_mut()
        .find(|o| o.id == HALE)
        .unwrap()
        .position = Pos::new(19.0, 5.0);
    let out = run(&s, &OrderBook::default(), &orders, &mut dice(&[3; 20]));
    let u = out.state.unit(TWELFTH_OHIO).unwrap();
    assert!(!u.lying_down);
    // Column: 7 + 1 = 8".
    assert!(near(u.position, 21.0, 13.0), "{:?}", u.position);
}

/// V.D.1: a battery firing at the same point on consecutive turns gets
/// the acquired-fire bonus on the second; "the same point" is the target's
/// centre within 2" of last turn's aim (our ruling).
#[test]
fn v_d_1_acquired_fire_on_the_second_turn() {
    let mut s = keep(training(), &[BATTERY_A, THIRD_TENN]);
    for u in &mut s.units {
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    // The battery faces north at (24, 10); the 3rd Tennessee 14" north,
    // holding its fire, out of its muskets' range.
    let b = s.unit_mut(BATTERY_A).unwrap();
    b.position = Pos::new(24.0, 10.0);
    b.facing = 0.0;
    let r = s.unit_mut(THIRD_TENN).unwrap();
    r.position = Pos::new(24.0, 24.0);
    r.facing = 180.0;
    r.formation = Formation::Line;
    let acquired = |out: &TurnOutcome| {
        out.events.iter().find_map(|e| match e {
            Event::Fired {
                unit, modifiers, ..
            } if unit.id == BATTERY_A => {
                Some(modifiers.iter().any(|m| m == "artillery acquired fire -1"))
            }
            _ => None,
        })
    };
    let t1 = run(
        &s,
        &OrderBook::default(),
        &TurnOrders::default(),
        &mut dice(&[1; 40]),
    );
    assert_eq!(acquired(&t1), Some(false));
    // Same target, same place: acquired.
    let t2 = run(
        &t1.state,
        &t1.book,
        &TurnOrders::default(),
        &mut dice(&[1; 40]),
    );
    assert_eq!(acquired(&t2), Some(true));
    // The target 3" to the side: a new point.
    let mut moved = t1.state.clone();
    moved.unit_mut(THIRD_TENN).unwrap().position.x += 3.0;
    let t2b = run(
        &moved,
        &t1.book,
        &TurnOrders::default(),
        &mut dice(&[1; 40]),
    );
    assert_eq!(acquired(&t2b), Some(false));
}

fn follow(id: u64, unit: UnitId, leader: UnitId, right: f64, ahead: f64) -> UnitOrder {
    UnitOrder {
        steps: vec![Step {
            trigger: Trigger::Then,
            action: Action::Follow {
                unit: leader,
                right,
                ahead,
            },
        }],
        ..move_to(id, unit, Pos::new(0.0, 0.0), Gait::March)
    }
}

/// Issue #15, "conform to the 10th Ohio": the 12th Ohio (24, 5) keeps its
/// station 6" behind the 10th (24, 11), measured from where the 10th is
/// going this turn (24, 16): both march together (IV.F) and the 12th ends
/// at (24, 10), a column's 8" being enough (IV.G). Colonel Hale, riding
/// with the 10th (IV.D), ends where it ends.
#[test]
fn a_follower_keeps_station_on_its_leader_and_an_officer_rides_with_a_unit() {
    use adjutant::rules::iron_brigade::orders::OfficerMove;
    let s = keep(training(), &[TENTH_OHIO, TWELFTH_OHIO]);
    let orders = TurnOrders {
        unit_orders: vec![
            move_to(1, TENTH_OHIO, Pos::new(24.0, 16.0), Gait::March),
            follow(2, TWELFTH_OHIO, TENTH_OHIO, 0.0, -6.0),
        ],
        officer_moves: vec![OfficerMove {
            officer: HALE,
            waypoints: vec![],
            double_time: false,
            with_unit: Some(TENTH_OHIO),
        }],
        dispatches: vec![],
    };
    let out = run(&s, &OrderBook::default(), &orders, &mut dice(&[3; 20]));
    let tenth = out.state.unit(TENTH_OHIO).unwrap().position;
    let twelfth = out.state.unit(TWELFTH_OHIO).unwrap().position;
    assert!(near(tenth, 24.0, 16.0), "{tenth:?}");
    assert!(near(twelfth, 24.0, 10.0), "{twelfth:?}");
    let hale = out.state.officer(HALE).unwrap().position;
    assert!(hale.distance(tenth) < 1e-6, "{hale:?}");
    // The follow order stands: next turn, with the 10th holding, the 12th
    // stays where it is.
    let book = out.book.clone();
    let out2 = run(
        &out.state,
        &book,
        &TurnOrders::default(),
        &mut dice(&[3; 20]),
    );
    let t2 = out2.state.unit(TWELFTH_OHIO).unwrap().position;
    assert!(near(t2, 24.0, 10.0), "{t2:?}");
}

/// A leader gone from the field ends the follow order, and the report's
/// event says why.
#[test]
fn a_follower_whose_leader_is_gone_stops_and_is_told() {
    let mut s = keep(training(), &[TENTH_OHIO, TWELFTH_OHIO]);
    s.unit_mut(TENTH_OHIO).unwrap().castings = 0;
    let orders = TurnOrders {
        unit_orders: vec![follow(2, TWELFTH_OHIO, TENTH_OHIO, 0.0, -6.0)],
        officer_moves: vec![],
        dispatches: vec![],
    };
    let out = run(&s, &OrderBook::default(), &orders, &mut dice(&[3; 20]));
    assert!(near(
        out.state.unit(TWELFTH_OHIO).unwrap().position,
        24.0,
        5.0
    ));
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::OrderNotCarriedOut { reason, .. } if reason.contains("no longer on the field")
    )));
}
