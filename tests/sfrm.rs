//! SFRM dispatches end to end, all pure: written, carried, delivered, read;
//! captured and read by the enemy; lost; courier orders. Dice are scripted
//! so every outcome is the rule's, not chance's.

use adjutant::dice::{DiceSource, ScriptedDice, StreamDice};
use adjutant::rules::iron_brigade::kinds::{CommandClass, OfficerLevel};
use adjutant::rules::iron_brigade::orders::{Action, Step, Trigger, UnitOrder};
use adjutant::rules::iron_brigade::state::{
    BattleState, Officer, OfficerId, OfficerStatus, Pos, SideId, Unit, UnitId,
};
use adjutant::rules::sfrm::{
    CourierStatus, DispatchError, DispatchEvent, DispatchId, DispatchState, DispatchStatus, Holder,
    Scale, advance,
};

const UNION: SideId = SideId(0);
const REBEL: SideId = SideId(1);

fn officer(id: u32, name: &str, side: u8, at: Pos, level: OfficerLevel) -> Officer {
    let mut o = Officer::brigadier(id, name, side, at);
    o.level = level;
    o
}

/// Union corps commander at the origin, a Union division commander 49"
/// north, a Confederate general far off to the east.
fn field() -> BattleState {
    let mut b = BattleState {
        turn: 1,
        officers: vec![
            officer(1, "McDowell", 0, Pos::new(0.0, 0.0), OfficerLevel::Corps),
            officer(2, "King", 0, Pos::new(0.0, 49.0), OfficerLevel::Division),
            officer(3, "Jackson", 1, Pos::new(60.0, 20.0), OfficerLevel::Corps),
        ],
        ..BattleState::default()
    };
    b.officers[1].superior = Some(OfficerId(1));
    b
}

fn dice(values: &[u8]) -> ScriptedDice {
    ScriptedDice::new(values.iter().map(|&v| i64::from(v))).unwrap()
}

/// Run `advance` once for `battle.turn`, then move the clock on.
fn turn(
    state: &DispatchState,
    battle: &mut BattleState,
    scale: Scale,
    d: &mut dyn DiceSource,
) -> (DispatchState, Vec<DispatchEvent>) {
    let out = advance(state, battle, scale, d).unwrap();
    battle.turn += 1;
    out
}

fn delivered_turn(state: &DispatchState, id: DispatchId) -> Option<u32> {
    match state.dispatches[&id].status {
        DispatchStatus::Delivered { turn } => Some(turn),
        _ => None,
    }
}

/// Turns of riding until delivery, for a recipient who stays put.
fn turns_to_deliver(scale: Scale, distance: f64) -> u32 {
    let mut b = field();
    b.officers[1].position = Pos::new(0.0, distance);
    let mut s = DispatchState::default();
    let (id, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "Come up.")
        .unwrap();
    let mut d = dice(&[]);
    for n in 1..=20 {
        let (next, _) = turn(&s, &mut b, scale, &mut d);
        s = next;
        if delivered_turn(&s, id).is_some() {
            return n;
        }
    }
    panic!("never delivered");
}

#[test]
fn travel_time_at_iron_brigade_scale_is_12_inches_a_turn() {
    let ib = Scale::IRON_BRIGADE;
    // Delivered within 1": 13" is one turn, 13.5" two, 49" four.
    assert_eq!(turns_to_deliver(ib, 13.0), 1);
    assert_eq!(turns_to_deliver(ib, 13.5), 2);
    assert_eq!(turns_to_deliver(ib, 49.0), 4);
    assert_eq!(turns_to_deliver(ib, 97.0), 8);
    assert_eq!(ib.turns_to_deliver(97.0), 8);
}

#[test]
fn travel_time_at_sfrm_scale_is_36_inches_a_turn() {
    let sfrm = Scale::SFRM;
    assert_eq!(turns_to_deliver(sfrm, 37.0), 1);
    assert_eq!(turns_to_deliver(sfrm, 49.0), 2);
    assert_eq!(turns_to_deliver(sfrm, 109.0), 3);
    assert_eq!(turns_to_deliver(sfrm, 110.0), 4);
}

#[test]
fn a_messenger_follows_the_recipient_where_he_is_now() {
    let mut b = field();
    b.officers[1].position = Pos::new(0.0, 20.0);
    let mut s = DispatchState::default();
    let (id, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "Hold.")
        .unwrap();
    let mut d = dice(&[]);
    let (s1, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
    assert!(ev.iter().any(|e| matches!(e, DispatchEvent::Moved { .. })));
    assert_eq!(s1.dispatches[&id].status, DispatchStatus::InTransit);
    // King rides off west; the messenger turns after him.
    b.officers[1].position = Pos::new(-10.0, 12.0);
    let (s2, _) = turn(&s1, &mut b, Scale::IRON_BRIGADE, &mut d);
    assert_eq!(delivered_turn(&s2, id), Some(2));
    assert_eq!(s2.dispatches[&id].holder, Holder::Officer(OfficerId(2)));
    assert!(s2.messengers.is_empty(), "the messenger's job is done");
}

/// Table 2 abilities by level and class, read on d6 ≤ ability.
#[test]
fn read_roll_succeeds_on_ability_and_fails_one_above() {
    use CommandClass::*;
    use OfficerLevel::*;
    let cases = [
        (Brigade, Inferior, 1),
        (Brigade, Regular, 1),
        (Brigade, Superior, 2),
        (Division, Inferior, 1),
        (Division, Regular, 2),
        (Division, Superior, 3),
        (Corps, Inferior, 2),
        (Corps, Regular, 3),
        (Corps, Superior, 4),
        (Army, Inferior, 3),
        (Army, Regular, 4),
        (Army, Superior, 5),
    ];
    for (level, class, ability) in cases {
        let mut b = field();
        b.officers[1].position = Pos::new(0.0, 0.5);
        b.officers[1].level = level;
        b.officers[1].command_class = class;
        let mut s = DispatchState::default();
        let (id, _) = s
            .write_dispatch(&b, OfficerId(1), OfficerId(2), "Attack at dawn.")
            .unwrap();
        // Turn 1: delivered on the spot; no read roll the turn it arrives.
        let mut d = dice(&[ability + 1, ability]);
        let (s, ev) = turn(&s, &mut b, Scale::SFRM, &mut d);
        assert_eq!(delivered_turn(&s, id), Some(1));
        assert!(
            !ev.iter()
                .any(|e| matches!(e, DispatchEvent::NotRead { .. }))
        );
        // Turn 2: ability + 1 fails.
        let (s, ev) = turn(&s, &mut b, Scale::SFRM, &mut d);
        assert!(
            ev.iter().any(|e| matches!(e,
                DispatchEvent::NotRead { roll, ability: a, .. } if *roll == ability + 1 && *a == ability)),
            "{level} {class}: {ev:?}"
        );
        assert_eq!(delivered_turn(&s, id), Some(1));
        // Turn 3: exactly the ability reads it.
        let (s, ev) = turn(&s, &mut b, Scale::SFRM, &mut d);
        assert_eq!(s.dispatches[&id].status, DispatchStatus::Read { turn: 3 });
        assert!(ev.iter().any(|e| matches!(e,
            DispatchEvent::Read { text, by, .. } if text == "Attack at dawn." && *by == OfficerId(2))));
        assert_eq!(d.remaining(), 0);
    }
}

#[test]
fn a_wound_lowers_the_read_ability() {
    let mut b = field();
    b.officers[1].position = Pos::new(0.0, 0.5);
    b.officers[1].command_class = CommandClass::Superior; // ability 3
    let mut s = DispatchState::default();
    // Table 3 result 4: -1 to command and combat abilities.
    let king = b.officers[1].clone();
    let hit = s.officer_hit(4, &king).unwrap();
    assert_eq!(hit.stats_after.command_ability, 2);
    let (id, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "x")
        .unwrap();
    let mut d = dice(&[3, 2]);
    let (s, _) = turn(&s, &mut b, Scale::SFRM, &mut d);
    let (s, ev) = turn(&s, &mut b, Scale::SFRM, &mut d);
    assert!(
        ev.iter()
            .any(|e| matches!(e, DispatchEvent::NotRead { ability: 2, .. }))
    );
    let (s, _) = turn(&s, &mut b, Scale::SFRM, &mut d);
    assert!(matches!(
        s.dispatches[&id].status,
        DispatchStatus::Read { .. }
    ));
}

#[test]
fn one_dispatch_per_player_per_turn() {
    let mut b = field();
    let mut s = DispatchState::default();
    s.write_dispatch(&b, OfficerId(1), OfficerId(2), "first")
        .unwrap();
    let e = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "second")
        .unwrap_err();
    assert!(matches!(
        e,
        DispatchError::SecondThisTurn {
            turn: 1,
            existing: 0,
            ..
        }
    ));
    assert!(e.to_string().contains("one a turn"), "{e}");
    // The recipient may still write his own this turn.
    s.write_dispatch(&b, OfficerId(2), OfficerId(1), "reply")
        .unwrap();
    // And the sender again next turn.
    // At Iron Brigade's 2.5 minutes an SFRM turn is 12 table turns: not
    // again until turn 13.
    b.turn = 12;
    let e = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "too soon")
        .unwrap_err();
    assert!(
        matches!(e, DispatchError::SecondThisTurn { next: 13, .. }),
        "{e}"
    );
    b.turn = 13;
    s.write_dispatch(&b, OfficerId(1), OfficerId(2), "next")
        .unwrap();
    assert_eq!(s.dispatches.len(), 3);
}

#[test]
fn dispatches_go_only_between_officers_of_one_side_on_the_field() {
    let mut b = field();
    let mut s = DispatchState::default();
    assert!(matches!(
        s.write_dispatch(&b, OfficerId(1), OfficerId(3), "surrender"),
        Err(DispatchError::ToEnemy { .. })
    ));
    assert!(matches!(
        s.write_dispatch(&b, OfficerId(1), OfficerId(1), "note to self"),
        Err(DispatchError::ToSelf(_))
    ));
    assert!(matches!(
        s.write_dispatch(&b, OfficerId(1), OfficerId(9), "?"),
        Err(DispatchError::UnknownOfficer(9))
    ));
    b.officers[1].status = OfficerStatus::Killed;
    assert!(matches!(
        s.write_dispatch(&b, OfficerId(1), OfficerId(2), "?"),
        Err(DispatchError::OfficerGone(_))
    ));
    assert!(s.dispatches.is_empty() && s.messengers.is_empty());
}

/// A Confederate regiment astride the road between McDowell and King; its
/// commander Jackson stands behind it.
fn ambush() -> BattleState {
    let mut b = field();
    let mut reb = Unit::infantry(10, "4th Virginia", 1, 20, Pos::new(0.0, 20.0), 180.0);
    reb.commander = Some(OfficerId(3));
    b.units = vec![reb];
    b.officers[2].position = Pos::new(0.0, 30.0);
    b
}

#[test]
fn table_3_capture_in_contact_and_the_enemy_reads_the_dispatch() {
    let mut b = ambush();
    let mut s = DispatchState::default();
    let (id, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "Pope is at Centreville.")
        .unwrap();
    // Turn 1 rides 12". Turn 2 runs into the Virginians: 2d6 = 2 + 3 = 5,
    // captured. Turn 3: a Confederate rider takes it to Jackson. Turn 15,
    // an SFRM turn (12 table turns) later: Jackson (corps regular,
    // ability 3) rolls 3 and reads it.
    let mut d = dice(&[2, 3, 3]);
    let mut all = Vec::new();
    for _ in 0..15 {
        let (next, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
        s = next;
        all.extend(ev);
    }
    let captured = all
        .iter()
        .find(|e| matches!(e, DispatchEvent::Captured { .. }))
        .unwrap();
    let DispatchEvent::Captured {
        by_side,
        from_side,
        dispatches,
        turn,
        ..
    } = captured
    else {
        unreachable!()
    };
    assert_eq!((*by_side, *from_side, *turn), (REBEL, UNION, 2));
    assert_eq!(dispatches, &vec![id]);
    assert!(all.iter().any(|e| matches!(e,
        DispatchEvent::PassedToEnemyGeneral { officer, side, turn: 3, .. } if *officer == OfficerId(3) && *side == REBEL)));
    assert!(all.iter().any(|e| matches!(e,
        DispatchEvent::Read { by, side, text, turn: 15, .. }
            if *by == OfficerId(3) && *side == REBEL && text == "Pope is at Centreville.")));
    let dispatch = &s.dispatches[&id];
    assert_eq!(dispatch.status, DispatchStatus::Read { turn: 15 });
    assert_eq!(dispatch.holder, Holder::Officer(OfficerId(3)));
    assert_eq!(dispatch.captured.map(|c| c.by_side), Some(REBEL));
    assert_eq!(d.remaining(), 0);

    // The sender's side never learns any of it: it saw the dispatch leave
    // and nothing since.
    let union_sees = DispatchEvent::filter_for(&all, UNION);
    assert!(
        union_sees.iter().all(|e| matches!(
            e,
            DispatchEvent::Sent { .. } | DispatchEvent::Departed { .. }
        )),
        "{union_sees:?}"
    );
    let rebel_sees = DispatchEvent::filter_for(&all, REBEL);
    assert!(
        rebel_sees
            .iter()
            .any(|e| matches!(e, DispatchEvent::Captured { .. }))
    );
    assert!(
        rebel_sees
            .iter()
            .any(|e| matches!(e, DispatchEvent::Casualty { roll: 5, .. }))
    );
}

#[test]
fn table_3_in_contact_with_friends_too_means_no_capture() {
    let mut b = ambush();
    // A Union regiment beside the Confederates where the rider meets them.
    b.units.push(Unit::infantry(
        11,
        "2nd Wisconsin",
        0,
        20,
        Pos::new(3.0, 18.0),
        0.0,
    ));
    let mut s = DispatchState::default();
    let (id, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "x")
        .unwrap();
    // Rolls 6 (2 + 4): would capture, but friends are in contact; 6 removes
    // nobody, so he is stopped this turn and rides on.
    let mut d = dice(&[2, 4]);
    let (s1, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, DispatchEvent::Casualty { .. }))
    );
    let (s2, ev) = turn(&s1, &mut b, Scale::IRON_BRIGADE, &mut d);
    assert!(
        ev.iter()
            .any(|e| matches!(e, DispatchEvent::Casualty { roll: 6, .. }))
    );
    assert!(
        !ev.iter()
            .any(|e| matches!(e, DispatchEvent::Captured { .. }))
    );
    assert_eq!(s2.dispatches[&id].status, DispatchStatus::InTransit);
    // Having answered for that contact he rides on past the Virginians
    // without another roll: 18.5" + 12" a turn reaches King (49") on turn 5.
    let (s3, ev) = turn(&s2, &mut b, Scale::IRON_BRIGADE, &mut d);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, DispatchEvent::Casualty { .. })),
        "{ev:?}"
    );
    let (s4, _) = turn(&s3, &mut b, Scale::IRON_BRIGADE, &mut d);
    assert_eq!(delivered_turn(&s4, id), None);
    let (s5, _) = turn(&s4, &mut b, Scale::IRON_BRIGADE, &mut d);
    assert_eq!(delivered_turn(&s5, id), Some(5));
}

#[test]
fn table_3_death_under_fire_loses_the_dispatch_and_the_sender_never_knows() {
    let mut b = field();
    let mut s = DispatchState::default();
    let (id, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "Send the guns.")
        .unwrap();
    let messenger = s.dispatches[&id].carried_by;
    // Confederate skirmishers fire on him: 2d6 = 6 + 6 = 12, killed outright.
    s.mark_fired_upon(messenger, REBEL);
    let mut d = dice(&[6, 6]);
    let (s, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
    assert_eq!(s.dispatches[&id].status, DispatchStatus::Lost { turn: 1 });
    assert_eq!(s.dispatches[&id].holder, Holder::Nobody);
    assert!(s.messengers.is_empty());
    assert!(s.fired_upon.is_empty());
    assert!(ev.iter().any(|e| matches!(
        e,
        DispatchEvent::Lost {
            witness: Some(REBEL),
            ..
        }
    )));
    assert!(DispatchEvent::filter_for(&ev, UNION).is_empty(), "{ev:?}");
    // King never gets it, however long he waits.
    let mut b2 = b.clone();
    let (s, ev) = turn(&s, &mut b2, Scale::IRON_BRIGADE, &mut dice(&[]));
    assert!(ev.is_empty());
    assert_eq!(s.dispatches[&id].status, DispatchStatus::Lost { turn: 1 });
}

#[test]
fn table_3_wound_without_removal_lets_him_ride_on() {
    let mut b = field();
    let mut s = DispatchState::default();
    let (id, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "x")
        .unwrap();
    s.mark_fired_upon(s.dispatches[&id].carried_by, REBEL);
    // 9: arm wound, stays in play.
    let mut d = dice(&[4, 5]);
    let (s, _) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
    assert_eq!(s.dispatches[&id].status, DispatchStatus::InTransit);
    assert_eq!(s.messengers.len(), 1);
}

#[test]
fn a_messenger_for_a_fallen_officer_rides_to_his_superior() {
    let mut b = field();
    b.officers[0].position = Pos::new(0.0, 60.0);
    let mut s = DispatchState::default();
    // King writes to... nobody can write to himself; McDowell writes to King,
    // then King falls and the rider goes on to McDowell's own successor
    // chain: King's superior is McDowell.
    b.officers.push(officer(
        4,
        "Gibbon",
        0,
        Pos::new(0.0, 0.0),
        OfficerLevel::Brigade,
    ));
    b.officers[3].superior = Some(OfficerId(2));
    let (id, _) = s
        .write_dispatch(&b, OfficerId(4), OfficerId(2), "We are hard pressed.")
        .unwrap();
    b.officers[1].status = OfficerStatus::Killed;
    let mut d = dice(&[]);
    let mut all = Vec::new();
    for _ in 0..5 {
        let (next, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
        s = next;
        all.extend(ev);
    }
    assert!(
        all.iter().any(
            |e| matches!(e, DispatchEvent::Redirected { now_to, .. } if *now_to == OfficerId(1))
        )
    );
    assert_eq!(s.dispatches[&id].holder, Holder::Officer(OfficerId(1)));
}

fn hold_order(unit: u32, by: u32) -> UnitOrder {
    UnitOrder {
        id: 77,
        unit: UnitId(unit),
        issued_by: OfficerId(by),
        issued_turn: 1,
        follows_previous: false,
        steps: vec![Step {
            trigger: Trigger::Then,
            action: Action::Hold,
        }],
    }
}

#[test]
fn courier_order_takes_effect_after_the_courier_reaches_the_unit() {
    let mut b = field();
    // A regiment 30" from McDowell: its footprint's near edge is 29.25"
    // away, within 1" after 28.25" of riding, so three turns at 12".
    b.units = vec![Unit::infantry(
        5,
        "6th Wisconsin",
        0,
        20,
        Pos::new(0.0, 30.0),
        0.0,
    )];
    let mut s = DispatchState::default();
    let (m, ev) = s.courier_order(&b, OfficerId(1), hold_order(5, 1)).unwrap();
    assert!(
        ev.iter()
            .any(|e| matches!(e, DispatchEvent::OrderSent { order: 77, .. }))
    );
    assert!(s.messengers.contains_key(&m));
    let mut d = dice(&[]);
    let mut arrived = None;
    for _ in 0..5 {
        let (next, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
        s = next;
        for e in ev {
            if let DispatchEvent::OrderArrived {
                turn,
                effective_turn,
                ..
            } = e
            {
                arrived = Some((turn, effective_turn));
            }
        }
    }
    assert_eq!(arrived, Some((3, 4)));
    assert_eq!(
        s.courier_orders[&77].status,
        CourierStatus::Arrived {
            turn: 3,
            effective_turn: 4
        }
    );
    let booked = s.arrivals(3);
    assert_eq!(booked.len(), 1);
    assert_eq!((booked[0].order.id, booked[0].effective_turn), (77, 4));
    assert!(s.arrivals(2).is_empty());
    // The same order cannot be sent twice.
    assert!(matches!(
        s.courier_order(&b, OfficerId(1), hold_order(5, 1)),
        Err(DispatchError::DuplicateOrder(77))
    ));
}

#[test]
fn courier_order_captured_is_read_by_the_captors_only() {
    let mut b = ambush();
    b.units.push(Unit::infantry(
        5,
        "6th Wisconsin",
        0,
        20,
        Pos::new(0.0, 45.0),
        0.0,
    ));
    let mut s = DispatchState::default();
    s.courier_order(&b, OfficerId(1), hold_order(5, 1)).unwrap();
    let mut d = dice(&[1, 1]);
    let mut all = Vec::new();
    for _ in 0..3 {
        let (next, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
        s = next;
        all.extend(ev);
    }
    assert!(matches!(
        s.courier_orders[&77].status,
        CourierStatus::Captured {
            by_side: REBEL,
            turn: 2
        }
    ));
    let rebel = DispatchEvent::filter_for(&all, REBEL);
    assert!(rebel.iter().any(|e| matches!(e,
        DispatchEvent::Captured { orders, .. } if orders.len() == 1 && orders[0].id == 77)));
    assert!(
        DispatchEvent::filter_for(&all, UNION)
            .iter()
            .all(|e| matches!(
                e,
                DispatchEvent::OrderSent { .. } | DispatchEvent::Departed { .. }
            ))
    );
}

#[test]
fn courier_orders_come_only_from_their_issuer_to_own_units() {
    let mut b = ambush();
    let mut s = DispatchState::default();
    assert!(matches!(
        s.courier_order(&b, OfficerId(2), hold_order(10, 1)),
        Err(DispatchError::WrongIssuer { .. })
    ));
    assert!(matches!(
        s.courier_order(&b, OfficerId(1), hold_order(10, 1)),
        Err(DispatchError::EnemyUnit { .. })
    ));
    b.units.clear();
    assert!(matches!(
        s.courier_order(&b, OfficerId(1), hold_order(10, 1)),
        Err(DispatchError::UnknownUnit(10))
    ));
}

/// The whole story with a seeded stream: written, carried, delivered, read,
/// and the same seed gives the same story byte for byte.
#[test]
fn whole_sequence_is_deterministic_for_a_seed() {
    let run = || {
        let mut b = field();
        let mut s = DispatchState::default();
        let (id, mut all) = s
            .write_dispatch(&b, OfficerId(1), OfficerId(2), "March on Groveton.")
            .unwrap();
        let mut d = StreamDice::new([7u8; 32]);
        for _ in 0..30 {
            let (next, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
            s = next;
            all.extend(ev);
            if matches!(s.dispatches[&id].status, DispatchStatus::Read { .. }) {
                break;
            }
        }
        (
            s.canonical_json(),
            serde_json::to_string(&all).unwrap(),
            id,
            s,
        )
    };
    let (json_a, events_a, id, s) = run();
    let (json_b, events_b, _, _) = run();
    assert_eq!(json_a, json_b);
    assert_eq!(events_a, events_b);
    assert!(matches!(
        s.dispatches[&id].status,
        DispatchStatus::Read { .. }
    ));
    let back: DispatchState = serde_json::from_str(&json_a).unwrap();
    assert_eq!(back, s);
    assert!(events_a.contains("\"event\":\"delivered\""), "{events_a}");
    assert!(events_a.contains("\"event\":\"read\""), "{events_a}");
}

/// SFRM under Table 3: a captured general's unread dispatches fall to the
/// enemy, who read them like any other; ones he had read go with him.
#[test]
fn a_captured_generals_unread_dispatches_are_read_by_the_enemy() {
    let mut b = field();
    b.officers[1].position = Pos::new(0.0, 0.5);
    let mut s = DispatchState::default();
    let (unread, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "Secret.")
        .unwrap();
    let (s1, _) = turn(&s, &mut b, Scale::SFRM, &mut dice(&[]));
    let mut s = s1;
    assert_eq!(delivered_turn(&s, unread), Some(1));
    // King is taken on turn 2 (Table 3 roll 5 in contact, alone). Before
    // he can roll to read it, Jackson's men hand it to Jackson.
    let king = b.officers[1].clone();
    let hit = s.officer_hit(5, &king).unwrap();
    assert!(hit.casualty.captured(true, false));
    assert_eq!(hit.stats_after.command_range, 3, "-1 command radius");
    let ev = s.officer_captured(OfficerId(2), REBEL, Some(OfficerId(3)), 2);
    b.officers[1].status = OfficerStatus::Wounded;
    assert!(DispatchEvent::filter_for(&ev, UNION).is_empty());
    assert_eq!(s.dispatches[&unread].holder, Holder::Officer(OfficerId(3)));
    // Rest of turn 2: no read roll for a dispatch received this turn.
    let (s, ev) = turn(&s, &mut b, Scale::SFRM, &mut dice(&[]));
    assert!(ev.is_empty(), "{ev:?}");
    // Turn 3: Jackson (ability 3) rolls a 1 and reads it.
    let (s, ev) = turn(&s, &mut b, Scale::SFRM, &mut dice(&[1]));
    assert!(matches!(
        s.dispatches[&unread].status,
        DispatchStatus::Read { turn: 3 }
    ));
    assert!(
        DispatchEvent::filter_for(&ev, REBEL)
            .iter()
            .any(|e| matches!(e, DispatchEvent::Read { text, .. } if text == "Secret."))
    );
    assert!(DispatchEvent::filter_for(&ev, UNION).is_empty());
}

#[test]
fn courier_for_a_unit_that_left_the_table_reports_back() {
    let mut b = field();
    b.units = vec![Unit::infantry(
        5,
        "6th Wisconsin",
        0,
        20,
        Pos::new(0.0, 60.0),
        0.0,
    )];
    let mut s = DispatchState::default();
    s.courier_order(&b, OfficerId(1), hold_order(5, 1)).unwrap();
    b.units.clear();
    let (s, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut dice(&[]));
    assert_eq!(
        s.courier_orders[&77].status,
        CourierStatus::Undeliverable { turn: 1 }
    );
    assert!(s.messengers.is_empty());
    assert!(
        DispatchEvent::filter_for(&ev, UNION)
            .iter()
            .any(|e| matches!(e, DispatchEvent::OrderUndeliverable { order: 77, .. }))
    );
}

#[test]
fn rolls_name_the_messenger_and_the_reader() {
    let mut b = ambush();
    b.officers[1].position = Pos::new(0.0, 0.5);
    let mut s = DispatchState::default();
    let (id, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "x")
        .unwrap();
    s.mark_fired_upon(s.dispatches[&id].carried_by, REBEL);
    let mut d = dice(&[4, 4, 1]);
    let (s, _) = turn(&s, &mut b, Scale::SFRM, &mut d);
    let (_, _) = turn(&s, &mut b, Scale::SFRM, &mut d);
    let log = d.log();
    assert_eq!(log.len(), 3);
    assert_eq!(log[0].purpose.subject, "messenger 0");
    assert!(log[0].purpose.note.contains("SFRM Table 3"));
    assert_eq!(log[2].purpose.subject, "King");
    assert!(log[2].purpose.note.contains("read roll"));
}

/// SFRM's read roll is once an SFRM turn (30 minutes): at Iron Brigade's
/// 2.5 minutes, 12 table turns. A dispatch delivered on turn 1 is rolled
/// for on turn 13 (a 6 fails for King, division regular, ability 2), then
/// turn 25 (a 2 reads it); no die is rolled in between.
#[test]
fn the_read_roll_comes_once_an_sfrm_turn_at_iron_brigade_scale() {
    let mut b = field();
    b.officers[1].position = Pos::new(0.0, 0.5);
    let mut s = DispatchState::default();
    let (id, _) = s
        .write_dispatch(&b, OfficerId(1), OfficerId(2), "Hold the ford.")
        .unwrap();
    let mut d = dice(&[6, 2]);
    let mut reads = Vec::new();
    for _ in 1..=25 {
        let (next, ev) = turn(&s, &mut b, Scale::IRON_BRIGADE, &mut d);
        s = next;
        for e in ev {
            match e {
                DispatchEvent::NotRead { turn, roll, .. } => reads.push((turn, roll, false)),
                DispatchEvent::Read { turn, roll, .. } => reads.push((turn, roll, true)),
                _ => {}
            }
        }
    }
    assert_eq!(reads, vec![(13, 6, false), (25, 2, true)]);
    assert_eq!(s.dispatches[&id].status, DispatchStatus::Read { turn: 25 });
    assert_eq!(d.remaining(), 0);
}
