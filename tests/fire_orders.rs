//! APSoF V.F through whole turns of the training scenario: combined fire
//! (V.F.1, `Action::FireWith`) and split fire (V.F.2, `Action::SplitFire`),
//! and how each meets the exchange of fire (V.B.2).
//!
//! The field: the 10th Ohio (18 castings) and the 12th Ohio (16) in line
//! facing north; 6" away the 3rd Tennessee (17) and the 5th Tennessee (15)
//! in line facing south. Everyone has been under fire and fired before, so
//! no first-fire or perilous modifier applies unless a test sets one.

mod common;

use adjutant::dice::{DiceSource, RollKind, ScriptedDice};
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::Event;
use adjutant::rules::iron_brigade::kinds::{Formation, Weapon};
use adjutant::rules::iron_brigade::orders::{
    Action, BookedOrder, FirePart, FireShare, FireTarget, OrderBook, Step, Trigger, TurnOrders,
    UnitOrder,
};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, Ranks, UnitId};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use common::GameDir;
use std::path::Path;

const TENTH_OHIO: UnitId = UnitId(1);
const TWELFTH_OHIO: UnitId = UnitId(2);
const FOURTEENTH_OHIO: UnitId = UnitId(3);
const THIRD_TENN: UnitId = UnitId(5);
const FIFTH_TENN: UnitId = UnitId(6);

fn field() -> BattleState {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = battle_state_from_scenario(&sc);
    s.units
        .retain(|u| [TENTH_OHIO, TWELFTH_OHIO, THIRD_TENN, FIFTH_TENN].contains(&u.id));
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
        u.weapon = Weapon::RifledMusket;
    }
    let place = |s: &mut BattleState, id: UnitId, x: f64, y: f64, facing: f64| {
        let u = s.unit_mut(id).unwrap();
        u.position = Pos::new(x, y);
        u.facing = facing;
    };
    place(&mut s, TENTH_OHIO, 12.0, 16.0, 0.0);
    place(&mut s, TWELFTH_OHIO, 17.0, 16.0, 0.0);
    place(&mut s, THIRD_TENN, 11.0, 22.0, 180.0);
    place(&mut s, FIFTH_TENN, 17.0, 22.0, 180.0);
    s
}

/// Orders already in effect this turn (the delay of I.C.1 is not what is
/// tested here).
fn book(orders: &[(UnitId, Action)]) -> OrderBook {
    let mut b = OrderBook::default();
    for (i, (unit, action)) in orders.iter().enumerate() {
        b.units.insert(
            *unit,
            vec![BookedOrder {
                order: UnitOrder {
                    id: i as u64 + 1,
                    unit: *unit,
                    issued_by: OfficerId(1),
                    issued_turn: 1,
                    follows_previous: false,
                    steps: vec![Step {
                        trigger: Trigger::Then,
                        action: action.clone(),
                    }],
                },
                effective_turn: 1,
                current_step: 0,
            }],
        );
    }
    b
}

/// The Confederates hold their fire unless a test says otherwise.
fn rebels_hold() -> Vec<(UnitId, Action)> {
    vec![
        (THIRD_TENN, Action::HoldFire),
        (FIFTH_TENN, Action::HoldFire),
    ]
}

fn run(s: &BattleState, orders: &[(UnitId, Action)]) -> (TurnOutcome, ScriptedDice) {
    let mut d = ScriptedDice::new(std::iter::repeat_n(3, 200)).unwrap();
    let out = resolve_turn(s, &book(orders), &TurnOrders::default(), &mut d).unwrap();
    (out, d)
}

/// (firer, target, effectiveness, castings, dice total, casualties, with,
/// split fire) of every fire.
type FireRow = (
    UnitId,
    UnitId,
    u8,
    u32,
    u32,
    u32,
    Vec<(UnitId, u8, u32)>,
    bool,
);

fn fires(out: &TurnOutcome) -> Vec<FireRow> {
    out.events
        .iter()
        .filter_map(|e| match e {
            Event::Fired {
                unit,
                target,
                effectiveness,
                castings_firing,
                dice_total,
                casualties,
                with,
                split_fire,
                ..
            } => Some((
                unit.id,
                target.id,
                *effectiveness,
                *castings_firing,
                *dice_total,
                *casualties,
                with.iter()
                    .map(|w| (w.unit.id, w.effectiveness, w.castings_firing))
                    .collect(),
                *split_fire,
            )),
            _ => None,
        })
        .collect()
}

fn not_carried_out(out: &TurnOutcome) -> Vec<String> {
    out.events
        .iter()
        .filter_map(|e| match e {
            Event::OrderNotCarriedOut { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

/// A split fire order (V.F.2): (share, target) per part.
fn split(parts: &[(FireShare, FireTarget)]) -> Action {
    Action::SplitFire {
        parts: parts
            .iter()
            .map(|&(share, target)| FirePart { share, target })
            .collect(),
    }
}

fn with_3rd(partners: &[UnitId]) -> Action {
    Action::FireWith {
        target: FireTarget::Unit(THIRD_TENN),
        with: partners.to_vec(),
    }
}

/// V.F.1: "Different units may combine their fire. However, the combined
/// fire must be taken with the highest fire effect divisor of any of the
/// units involved." The 12th Ohio, shaken to morale 3 (+1 to its
/// divisor), joins the 10th's fire at the 3rd Tennessee: one fire of 34
/// castings, 4 + 4 dice (each unit counts its own, docs/rulings.md), at
/// the 12th's worse divisor, and one save by the target.
#[test]
fn v_f_1_combined_fire_is_one_attack_at_the_highest_divisor() {
    let mut s = field();
    s.unit_mut(TWELFTH_OHIO).unwrap().combat_morale = 3;
    let mut orders = rebels_hold();
    orders.push((TENTH_OHIO, with_3rd(&[TWELFTH_OHIO])));
    let (out, d) = run(&s, &orders);
    let f = fires(&out);
    assert_eq!(f.len(), 1, "one combined fire: {f:?}");
    let (unit, target, eff, castings, total, cas, with, split) = f[0].clone();
    assert_eq!(
        (unit, target, castings, split),
        (TENTH_OHIO, THIRD_TENN, 34, false)
    );
    assert_eq!(with.len(), 1);
    let (partner, partner_eff, partner_castings) = with[0];
    assert_eq!((partner, partner_castings), (TWELFTH_OHIO, 16));
    assert_eq!(eff, partner_eff, "the 12th's divisor is the higher");
    assert_eq!(total, 8 * 3, "4 dice for 18 castings, 4 for 16, all 3s");
    assert_eq!(cas, (24 / u32::from(eff)).min(17));

    // The 10th alone, for comparison: its own divisor is one better.
    let mut alone = rebels_hold();
    alone.push((TENTH_OHIO, Action::Fire(FireTarget::Unit(THIRD_TENN))));
    alone.push((TWELFTH_OHIO, Action::HoldFire));
    let (solo, _) = run(&s, &alone);
    let own_eff = fires(&solo)[0].2;
    assert_eq!(eff, own_eff + 1);

    // Dice: 8 attack dice, then one save for the target.
    let fire_dice = d
        .log()
        .iter()
        .filter(|r| r.purpose.kind == RollKind::Fire)
        .count();
    let saves = d
        .log()
        .iter()
        .filter(|r| r.purpose.kind == RollKind::MoraleSave)
        .count();
    assert_eq!(fire_dice, 8);
    assert_eq!(
        saves,
        if cas > 0 {
            ((17 - cas) / 4).max(1) as usize
        } else {
            0
        }
    );
    let third = out.state.unit(THIRD_TENN).unwrap();
    assert_eq!(third.castings, 17 - cas);
    // Both units fired: both have shown themselves (V.C.3) and both count
    // as firers for the target's marks.
    assert!(third.marks.been_under_fire);
    let told = out
        .events
        .iter()
        .find(|e| matches!(e, Event::Fired { .. }))
        .unwrap()
        .describe();
    assert!(
        told.starts_with("10th Ohio and 12th Ohio combine their fire on 3rd Tennessee"),
        "{told}"
    );
}

/// A partner holding its fire does not join: the 10th fires alone and its
/// side is told why, in an order-not-carried-out event.
#[test]
fn v_f_1_a_partner_holding_fire_does_not_join() {
    let mut orders = rebels_hold();
    orders.push((TENTH_OHIO, with_3rd(&[TWELFTH_OHIO])));
    orders.push((TWELFTH_OHIO, Action::HoldFire));
    let (out, _) = run(&field(), &orders);
    let f = fires(&out);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].0, f[0].1, f[0].3), (TENTH_OHIO, THIRD_TENN, 18));
    assert!(f[0].6.is_empty());
    let why = not_carried_out(&out);
    assert_eq!(
        why,
        vec![
            "12th Ohio does not combine its fire with it: it is not firing this turn (broken, holding its fire, or moving or changing formation without fire)"
                .to_string()
        ]
    );
}

/// A partner that cannot engage the target (here it faces away) fires on
/// its own, at what it can, and the reason names no enemy.
#[test]
fn v_f_1_a_partner_that_cannot_reach_the_target_fires_on_its_own() {
    let mut s = field();
    s.unit_mut(TWELFTH_OHIO).unwrap().facing = 180.0;
    let mut orders = rebels_hold();
    orders.push((TENTH_OHIO, with_3rd(&[TWELFTH_OHIO])));
    let (out, _) = run(&s, &orders);
    let f = fires(&out);
    assert_eq!(
        f.len(),
        1,
        "the 12th has nothing in its field of fire: {f:?}"
    );
    assert_eq!(f[0].0, TENTH_OHIO);
    let why = not_carried_out(&out);
    assert_eq!(why.len(), 1);
    assert!(why[0].contains("cannot fire on the same target"), "{why:?}");
    assert!(!why[0].contains("Tennessee"), "{why:?}");
}

/// A partner with its own orders to fire at another unit keeps them.
#[test]
fn v_f_1_a_partner_with_its_own_target_keeps_it() {
    let mut orders = rebels_hold();
    orders.push((TENTH_OHIO, with_3rd(&[TWELFTH_OHIO])));
    orders.push((TWELFTH_OHIO, Action::Fire(FireTarget::Unit(FIFTH_TENN))));
    let (out, _) = run(&field(), &orders);
    let f = fires(&out);
    let targets: Vec<(UnitId, UnitId)> = f.iter().map(|r| (r.0, r.1)).collect();
    assert_eq!(
        targets,
        vec![(TENTH_OHIO, THIRD_TENN), (TWELFTH_OHIO, FIFTH_TENN)]
    );
    assert!(not_carried_out(&out)[0].contains("has orders to fire at another target"));
}

/// Three units: the 12th joins the 10th, and the 14th joins the 12th's
/// order at the same target: all three are one fire, told under the first.
#[test]
fn v_f_1_combinations_chain_into_one_fire() {
    let sc = adjutant::scenario::load(Path::new("scenarios/training.toml")).unwrap();
    let mut s = field();
    let mut fourteenth = battle_state_from_scenario(&sc)
        .unit(FOURTEENTH_OHIO)
        .unwrap()
        .clone();
    fourteenth.position = Pos::new(6.5, 16.0);
    fourteenth.facing = 0.0;
    fourteenth.formation = Formation::Line;
    fourteenth.formed_ranks = Ranks::Two;
    fourteenth.first_fire_done = true;
    fourteenth.weapon = Weapon::RifledMusket;
    s.units.insert(2, fourteenth);
    let mut orders = rebels_hold();
    orders.push((TENTH_OHIO, with_3rd(&[TWELFTH_OHIO])));
    orders.push((TWELFTH_OHIO, with_3rd(&[FOURTEENTH_OHIO])));
    let (out, _) = run(&s, &orders);
    let f = fires(&out);
    assert_eq!(f.len(), 1, "{f:?} {:?}", not_carried_out(&out));
    let partners: Vec<UnitId> = f[0].6.iter().map(|w| w.0).collect();
    assert_eq!(partners, vec![TWELFTH_OHIO, FOURTEENTH_OHIO]);
    assert_eq!(f[0].3, 18 + 16 + 20);
}

/// V.B.2 with combined fire: the 3rd Tennessee fires back at the 10th.
/// The combined fire rolls with the 10th (the unit fired on), the 3rd once;
/// the 3rd wins (4 against 2), so the 10th takes its losses first and the
/// combined fire follows with what it has left.
#[test]
fn v_b_2_a_combined_fire_exchanges_with_the_unit_it_engages() {
    let mut orders = vec![
        (THIRD_TENN, Action::Fire(FireTarget::Unit(TENTH_OHIO))),
        (FIFTH_TENN, Action::HoldFire),
    ];
    orders.push((TENTH_OHIO, with_3rd(&[TWELFTH_OHIO])));
    // Fire order: 10th 2, 3rd 4; 3s after: the 3rd's 12 takes 2 castings.
    let mut script = vec![2, 4];
    script.extend(std::iter::repeat_n(3, 100));
    let mut d = ScriptedDice::new(script).unwrap();
    let out = resolve_turn(&field(), &book(&orders), &TurnOrders::default(), &mut d).unwrap();
    let exchanges: Vec<(UnitId, UnitId, Option<UnitId>)> = out
        .events
        .iter()
        .filter_map(|e| match e {
            Event::FireOrder { a, b, first, .. } => {
                Some((a.id, b.id, first.as_ref().map(|f| f.id)))
            }
            _ => None,
        })
        .collect();
    assert_eq!(exchanges, vec![(TENTH_OHIO, THIRD_TENN, Some(THIRD_TENN))]);
    let f = fires(&out);
    assert_eq!(f.len(), 2, "{f:?}");
    assert_eq!((f[0].0, f[0].1), (THIRD_TENN, TENTH_OHIO));
    let lost = f[0].5;
    assert!(lost > 0);
    assert_eq!(f[1].0, TENTH_OHIO);
    assert_eq!(f[1].3, (18 - lost) + 16, "the 10th fires what it has left");
}

/// V.F.2: "A single unit may also split its castings to fire at several
/// target units in any manner desired." Eight castings at the 3rd
/// Tennessee and the rest (10) at the 5th: two fires of 2 dice each, each
/// with its own save, both told as parts of a split fire.
#[test]
fn v_f_2_split_fire_is_a_fire_per_part() {
    let mut orders = rebels_hold();
    orders.push((TWELFTH_OHIO, Action::HoldFire));
    orders.push((
        TENTH_OHIO,
        split(&[
            (FireShare::Castings(8), FireTarget::Unit(THIRD_TENN)),
            (FireShare::Rest, FireTarget::Unit(FIFTH_TENN)),
        ]),
    ));
    let (out, d) = run(&field(), &orders);
    let f = fires(&out);
    let parts: Vec<(UnitId, u32, u32, bool)> = f.iter().map(|r| (r.1, r.3, r.4, r.7)).collect();
    assert_eq!(
        parts,
        vec![(THIRD_TENN, 8, 6, true), (FIFTH_TENN, 10, 6, true)]
    );
    let fire_dice = d
        .log()
        .iter()
        .filter(|r| r.purpose.kind == RollKind::Fire)
        .count();
    assert_eq!(fire_dice, 4);
    let told = out
        .events
        .iter()
        .find(|e| matches!(e, Event::Fired { .. }))
        .unwrap()
        .describe();
    assert!(
        told.starts_with("10th Ohio (8 castings, part of its split fire) fires on 3rd Tennessee"),
        "{told}"
    );
}

/// Every part of a split fire that is the unit's first fire of the game
/// takes the first-fire bonus (V.B table), not just the first part.
#[test]
fn v_f_2_every_part_of_a_first_fire_gets_the_first_fire_bonus() {
    let mut s = field();
    s.unit_mut(TENTH_OHIO).unwrap().first_fire_done = false;
    let mut orders = rebels_hold();
    orders.push((TWELFTH_OHIO, Action::HoldFire));
    orders.push((
        TENTH_OHIO,
        split(&[
            (FireShare::Half, FireTarget::Unit(THIRD_TENN)),
            (FireShare::Half, FireTarget::Unit(FIFTH_TENN)),
        ]),
    ));
    let (out, _) = run(&s, &orders);
    let mods: Vec<Vec<String>> = out
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Fired { modifiers, .. } => Some(modifiers.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(mods.len(), 2, "{mods:?}");
    for m in &mods {
        assert!(
            m.iter().any(|l| l.to_lowercase().contains("first fire")),
            "{mods:?}"
        );
    }
    assert!(out.state.unit(TENTH_OHIO).unwrap().first_fire_done);
}

/// A part whose target cannot be engaged fires at what it can; parts that
/// end on one target are one fire, no longer split. The 5th Tennessee is
/// moved out of range, so all 18 castings fire at the 3rd.
#[test]
fn v_f_2_a_part_without_its_target_joins_the_others() {
    let mut s = field();
    s.unit_mut(FIFTH_TENN).unwrap().position = Pos::new(17.0, 34.0);
    let mut orders = rebels_hold();
    orders.push((TWELFTH_OHIO, Action::HoldFire));
    orders.push((
        TENTH_OHIO,
        split(&[
            (FireShare::Castings(8), FireTarget::Unit(THIRD_TENN)),
            (FireShare::Rest, FireTarget::Unit(FIFTH_TENN)),
        ]),
    ));
    let (out, _) = run(&s, &orders);
    let f = fires(&out);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].1, f[0].3, f[0].7), (THIRD_TENN, 18, false));
}

/// Castings that no part takes hold their fire: 6 at the 3rd and no more.
#[test]
fn v_f_2_castings_no_part_takes_hold_their_fire() {
    let mut orders = rebels_hold();
    orders.push((TWELFTH_OHIO, Action::HoldFire));
    orders.push((
        TENTH_OHIO,
        split(&[(FireShare::Castings(6), FireTarget::Unit(THIRD_TENN))]),
    ));
    let (out, _) = run(&field(), &orders);
    let f = fires(&out);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].1, f[0].3, f[0].4),
        (THIRD_TENN, 6, 3),
        "one die for 6 castings"
    );
}

/// V.B.2 with split fire: both Tennessee regiments fire at the 10th, which
/// splits its fire between them. Two exchanges, but the 10th rolls once
/// ("the target only rolls once").
#[test]
fn v_b_2_a_split_fire_unit_rolls_once_for_all_its_exchanges() {
    let orders = vec![
        (THIRD_TENN, Action::Fire(FireTarget::Unit(TENTH_OHIO))),
        (FIFTH_TENN, Action::Fire(FireTarget::Unit(TENTH_OHIO))),
        (TWELFTH_OHIO, Action::HoldFire),
        (
            TENTH_OHIO,
            split(&[
                (FireShare::Half, FireTarget::Unit(THIRD_TENN)),
                (FireShare::Rest, FireTarget::Unit(FIFTH_TENN)),
            ]),
        ),
    ];
    let (out, d) = run(&field(), &orders);
    let exchanges = out
        .events
        .iter()
        .filter(|e| matches!(e, Event::FireOrder { .. }))
        .count();
    assert_eq!(exchanges, 2);
    let order_rolls: Vec<&str> = d
        .log()
        .iter()
        .filter(|r| r.purpose.kind == RollKind::FireOrder)
        .map(|r| r.purpose.subject.as_str())
        .collect();
    assert_eq!(
        order_rolls,
        vec!["10th Ohio", "3rd Tennessee", "5th Tennessee"]
    );
}

/// APSoF X with combined fire: one table, one attacker's die. The row is
/// the castings of both units together (X.B.3), the table the higher
/// effectiveness.
#[test]
fn x_combined_fire_on_the_alternate_tables_is_one_roll() {
    let mut s = field();
    s.options.alternate_fire = true;
    let mut orders = rebels_hold();
    orders.push((TENTH_OHIO, with_3rd(&[TWELFTH_OHIO])));
    let (out, d) = run(&s, &orders);
    let f = fires(&out);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].3, 34);
    let fire_dice = d
        .log()
        .iter()
        .filter(|r| r.purpose.kind == RollKind::Fire)
        .count();
    assert_eq!(fire_dice, 1);
}

/// Combined and split fire are part of the turn's pure function: the same
/// state, orders and seed give the same outcome, byte for byte.
#[test]
fn v_f_turns_are_deterministic() {
    let mut orders = rebels_hold();
    orders.push((TENTH_OHIO, with_3rd(&[TWELFTH_OHIO])));
    let s = field();
    let a = run(&s, &orders).0;
    let b = run(&s, &orders).0;
    assert_eq!(
        serde_json::to_string(&a.events).unwrap(),
        serde_json::to_string(&b.events).unwrap()
    );
}

/// An order that somehow names an enemy as a partner (the parser refuses
/// it; an engine fed other orders must still not leak): the enemy neither
/// joins nor is named in the reason.
#[test]
fn v_f_1_an_enemy_partner_is_refused_without_its_name() {
    let mut orders = rebels_hold();
    orders.push((TENTH_OHIO, with_3rd(&[FIFTH_TENN])));
    let (out, _) = run(&field(), &orders);
    let f = fires(&out);
    assert_eq!(f.len(), 2, "the 10th alone and the 12th at will: {f:?}");
    assert!(f.iter().all(|r| r.6.is_empty()));
    let why = not_carried_out(&out);
    assert_eq!(
        why,
        vec!["fire can be combined only with units of its own side".to_string()]
    );
}

/// The latest stored report text of `player`, line wrapping undone.
fn report(g: &GameDir, player: &str) -> String {
    let text: String = g
        .db()
        .query_row(
            "SELECT r.text FROM reports r JOIN players p ON p.id = r.player_id
             WHERE p.name = ?1 ORDER BY r.id DESC LIMIT 1",
            [player],
            |r| r.get(0),
        )
        .unwrap();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Plays turn 1 of the volley fixture by mail: Blue writes `blue`, Grey
/// has his two regiments hold their fire (so nothing Blue does depends on
/// the game's random dice), both are READY. Returns the game and the
/// receipts.
fn volley_turn(name: &str, blue: &str) -> (GameDir, String) {
    let g = GameDir::with_scenario(name, "tests/fixtures/scenarios/volley.toml");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        &format!("{blue}\n\nREADY"),
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let receipts = g.outbox().join("\n").replace("=\r\n", "");
    (g, receipts)
}

/// Through the binary, by mail: Blue orders the 10th Ohio to fire at the
/// 3rd Tennessee together with the 12th Ohio. Identities are hidden (the
/// default), so Blue names it by its letter: the two Tennessee regiments
/// in sight are lettered west to east, A the 3rd (x 11), B the 5th (x 17).
/// The receipt reads the order back; Blue's report gives his own numbers,
/// Grey's says only that two Union regiments fired together, never their
/// names.
#[test]
fn combined_fire_by_mail() {
    let (g, receipts) = volley_turn(
        "volley",
        "10th Ohio: fire at A together with the 12th Ohio.",
    );
    assert!(
        receipts.contains("fire at enemy A together with 12th Ohio"),
        "{receipts}"
    );
    let blue = report(&g, "Blue");
    assert!(
        blue.contains(
            "10th Ohio and 12th Ohio combine their fire on enemy A (10th Ohio 18 castings at"
        ),
        "{blue}"
    );
    let grey = report(&g, "Grey");
    assert!(
        grey.contains("combine their fire on 3rd Tennessee"),
        "{grey}"
    );
    assert!(
        !grey.contains("Ohio"),
        "Grey never learns the regiments' names: {grey}"
    );
}

/// Through the binary, by mail: the 10th Ohio splits its fire between the
/// two Tennessee regiments; the receipt and the report tell both parts.
#[test]
fn split_fire_by_mail() {
    let (g, receipts) = volley_turn(
        "volley",
        "10th Ohio: fire 8 castings at A and the rest at enemy B.",
    );
    assert!(
        receipts.contains("split fire: 8 castings at enemy A, the rest at enemy B"),
        "{receipts}"
    );
    let blue = report(&g, "Blue");
    assert!(
        blue.contains("10th Ohio (8 castings, part of its split fire) fires on")
            && blue.contains("10th Ohio (10 castings, part of its split fire) fires on"),
        "{blue}"
    );
}

/// The third unit of V.B.2: the 10th Ohio fires at the 3rd Tennessee, which
/// fires at the 12th Ohio (holding its own fire). "If multiple units are
/// firing at one target, the target only rolls once and this single result
/// is compared to the rolls of all opposing units": the 10th and the 3rd
/// roll. The 10th's fire-order die 6 beats the 3rd's 1, so the 10th fires
/// first: 2+2+2+2 = 8 / 5 = 1 casualty (save 6+6+6+6, no morale lost); the
/// 3rd then fires at the 12th with the 16 castings it has left.
fn third_party(rolls: [u8; 2]) -> TurnOutcome {
    let s = field();
    let orders = [
        (TENTH_OHIO, Action::Fire(FireTarget::Unit(THIRD_TENN))),
        (TWELFTH_OHIO, Action::HoldFire),
        (THIRD_TENN, Action::Fire(FireTarget::Unit(TWELFTH_OHIO))),
        (FIFTH_TENN, Action::HoldFire),
    ];
    let dice = rolls
        .into_iter()
        .chain([2, 2, 2, 2, 6, 6, 6, 6])
        .chain(std::iter::repeat_n(3, 100));
    let mut d = ScriptedDice::new(dice).unwrap();
    resolve_turn(&s, &book(&orders), &TurnOrders::default(), &mut d).unwrap()
}

fn fire_order(out: &TurnOutcome) -> Vec<(UnitId, UnitId, u8, u8, Option<UnitId>)> {
    out.events
        .iter()
        .filter_map(|e| match e {
            Event::FireOrder {
                a,
                b,
                roll_a,
                roll_b,
                first,
            } => Some((a.id, b.id, *roll_a, *roll_b, first.as_ref().map(|f| f.id))),
            _ => None,
        })
        .collect()
}

#[test]
fn v_b_2_a_third_unit_lands_its_casualties_first() {
    let out = third_party([6, 1]);
    assert_eq!(
        fire_order(&out),
        vec![(TENTH_OHIO, THIRD_TENN, 6, 1, Some(TENTH_OHIO))]
    );
    let f = fires(&out);
    assert_eq!(f[0].0, TENTH_OHIO, "the 10th fires first: {f:?}");
    assert_eq!((f[0].1, f[0].5), (THIRD_TENN, 1), "{f:?}");
    let third = f.iter().find(|r| r.0 == THIRD_TENN).unwrap();
    assert_eq!((third.1, third.3), (TWELFTH_OHIO, 16), "{f:?}");
}

/// The same with the dice the other way: the 3rd Tennessee's 6 beats the
/// 10th's 1, so it fires at the 12th with all 17 castings before the 10th's
/// fire lands.
#[test]
fn v_b_2_the_target_that_wins_fires_first_elsewhere() {
    let out = third_party([1, 6]);
    assert_eq!(
        fire_order(&out),
        vec![(TENTH_OHIO, THIRD_TENN, 1, 6, Some(THIRD_TENN))]
    );
    let f = fires(&out);
    assert_eq!(
        (f[0].0, f[0].1, f[0].3),
        (THIRD_TENN, TWELFTH_OHIO, 17),
        "{f:?}"
    );
}

/// Through the binary: the same orders by mail. Whatever the dice, the 10th
/// and the 3rd roll for who fires first, and the 3rd fires with all its
/// castings only if it won (or tied).
#[test]
fn v_b_2_third_party_by_mail() {
    let g = GameDir::with_scenario("volley", "tests/fixtures/scenarios/volley.toml");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        // Names are hidden (issue #14): each side names the enemy by the
        // letter it gave it, west to east: Blue's A is the 3rd Tennessee,
        // Grey's B the 12th Ohio.
        "10th Ohio: fire at A.\n\n12th Ohio: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: fire at B.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let db = g.db();
    let events = |kind: &str| -> Vec<serde_json::Value> {
        let mut q = db
            .prepare("SELECT data_json FROM events WHERE kind = ?1 ORDER BY seq")
            .unwrap();
        q.query_map([kind], |r| r.get::<_, String>(0))
            .unwrap()
            .map(|j| serde_json::from_str(&j.unwrap()).unwrap())
            .collect()
    };
    let order = events("fire-order");
    assert_eq!(order.len(), 1, "{order:?}");
    assert_eq!(order[0]["a"]["name"], "10th Ohio");
    assert_eq!(order[0]["b"]["name"], "3rd Tennessee");
    let fired = events("fired");
    let tenth = fired
        .iter()
        .find(|e| e["unit"]["name"] == "10th Ohio")
        .unwrap();
    if let Some(third) = fired.iter().find(|e| e["unit"]["name"] == "3rd Tennessee") {
        let lost = tenth["casualties"].as_u64().unwrap();
        let expected = if order[0]["first"]["name"] == "10th Ohio" {
            17 - lost
        } else {
            17
        };
        assert_eq!(
            third["castings_firing"].as_u64().unwrap(),
            expected,
            "{fired:?}"
        );
    }
}

/// V.B note *: the 5th Tennessee stands in support 3" behind the 3rd, so the
/// 3rd counts 3 ranks deep (17 + 15 castings on a 4.25" front): rifled
/// musket at 5", base 5, less 1 = 4. The 10th Ohio's 6+6+6+6 = 24 / 4 = 6
/// casualties are split in proportion, 17 : 15 → 3.19 and 2.81 → 3 and 3
/// (the odd one to the larger remainder). Each saves on its own castings:
/// the 3rd's 14 roll 6+6+6 = 18 against 15 (no loss); the 5th's 12 roll
/// 4+4+4 = 12 against 15: 3 levels.
#[test]
fn v_b_note_star_casualties_are_split_with_the_support() {
    let mut s = field();
    let fifth = s.unit_mut(FIFTH_TENN).unwrap();
    fifth.position = Pos::new(11.0, 25.0);
    let orders = [
        (TENTH_OHIO, Action::Fire(FireTarget::Unit(THIRD_TENN))),
        (TWELFTH_OHIO, Action::HoldFire),
        (THIRD_TENN, Action::HoldFire),
        (FIFTH_TENN, Action::HoldFire),
    ];
    let dice = [6, 6, 6, 6, 6, 6, 6, 4, 4, 4]
        .into_iter()
        .chain(std::iter::repeat_n(3, 50));
    let mut d = ScriptedDice::new(dice).unwrap();
    let out = resolve_turn(&s, &book(&orders), &TurnOrders::default(), &mut d).unwrap();
    let f = fires(&out);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].1, f[0].2, f[0].4, f[0].5),
        (THIRD_TENN, 4, 24, 3),
        "{f:?}"
    );
    let third = out.state.unit(THIRD_TENN).unwrap();
    assert_eq!((third.castings, third.combat_morale), (14, 5));
    let fifth = out.state.unit(FIFTH_TENN).unwrap();
    assert_eq!((fifth.castings, fifth.combat_morale), (12, 2));
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::Casualties { unit, castings: 3, reason } if unit.id == FIFTH_TENN && reason.contains("V.B note *")
    )));
    assert!(fifth.marks.been_under_fire);
}

/// Without the support the 3rd is 2 ranks deep: 24 / 5 = 4 casualties, all
/// its own.
#[test]
fn v_b_note_star_no_support_no_split() {
    let s = field();
    let orders = [
        (TENTH_OHIO, Action::Fire(FireTarget::Unit(THIRD_TENN))),
        (TWELFTH_OHIO, Action::HoldFire),
        (THIRD_TENN, Action::HoldFire),
        (FIFTH_TENN, Action::HoldFire),
    ];
    let dice = [6, 6, 6, 6, 6, 6, 6]
        .into_iter()
        .chain(std::iter::repeat_n(3, 50));
    let mut d = ScriptedDice::new(dice).unwrap();
    let out = resolve_turn(&s, &book(&orders), &TurnOrders::default(), &mut d).unwrap();
    let f = fires(&out);
    assert_eq!((f[0].1, f[0].2, f[0].5), (THIRD_TENN, 5, 4), "{f:?}");
    assert_eq!(out.state.unit(THIRD_TENN).unwrap().castings, 13);
    assert_eq!(out.state.unit(FIFTH_TENN).unwrap().castings, 15);
}

/// Through the binary: the support fixture puts the 5th Tennessee 3" behind
/// the 3rd; both hold their fire and the 12th Ohio too. The 10th Ohio's
/// fire at the 3rd is at 5", rifled musket base 5, 3 ranks deep −1, first
/// fire −1, never under fire (perilous) −2: divisor 1, so at least 4
/// casualties whatever the dice, split 17 : 15 — the 5th takes at least
/// one and saves for it on its own. (Blue names the 3rd by its letter, A:
/// the fog of war keeps its name from him.)
#[test]
fn v_b_note_star_by_mail() {
    let g = GameDir::with_scenario("support", "tests/fixtures/scenarios/support.toml");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: fire at A.\n\n12th Ohio: hold fire.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let db = g.db();
    let fired: String = db
        .query_row(
            "SELECT data_json FROM events WHERE kind = 'fired'
             AND json_extract(data_json, '$.unit.name') = '10th Ohio'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let fired: serde_json::Value = serde_json::from_str(&fired).unwrap();
    assert_eq!(fired["target"]["name"], "3rd Tennessee");
    assert_eq!(fired["effectiveness"], 1, "{fired}");
    let front = fired["casualties"].as_u64().unwrap();
    let support: String = db
        .query_row(
            "SELECT data_json FROM events WHERE kind = 'casualties'
             AND json_extract(data_json, '$.unit.name') = '5th Tennessee'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let support: serde_json::Value = serde_json::from_str(&support).unwrap();
    let behind = support["castings"].as_u64().unwrap();
    assert!(behind >= 1, "{support}");
    assert!(
        support["reason"].as_str().unwrap().contains("V.B note *"),
        "{support}"
    );
    // In proportion to 17 : 15, largest remainder first.
    let split = adjutant::rules::iron_brigade::fire::split_casualties(
        u32::try_from(front + behind).unwrap(),
        &[17, 15],
    )
    .unwrap();
    assert_eq!(
        split,
        vec![
            u32::try_from(front).unwrap(),
            u32::try_from(behind).unwrap()
        ]
    );
}
