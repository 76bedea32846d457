//! Properties of SFRM correspondence over random battlefields and dice:
//! every dispatch is always in one consistent place, and the sender's side
//! never hears of a capture or a loss.

use adjutant::dice::StreamDice;
use adjutant::rules::iron_brigade::kinds::OfficerLevel;
use adjutant::rules::iron_brigade::state::{BattleState, Officer, OfficerId, Pos, SideId, Unit};
use adjutant::rules::sfrm::{DispatchEvent, DispatchState, DispatchStatus, Holder, Scale, advance};
use proptest::prelude::*;

fn officer(id: u32, side: u8, at: Pos, level: OfficerLevel) -> Officer {
    let mut o = Officer::brigadier(id, &format!("officer {id}"), side, at);
    o.level = level;
    o
}

/// Two Union generals, two Confederate, and enemy regiments scattered
/// between them.
fn battlefield(rebels: &[(f64, f64)], union_at: (f64, f64)) -> BattleState {
    let mut b = BattleState {
        turn: 1,
        officers: vec![
            officer(1, 0, Pos::new(0.0, 0.0), OfficerLevel::Corps),
            officer(
                2,
                0,
                Pos::new(union_at.0, union_at.1),
                OfficerLevel::Division,
            ),
            officer(3, 1, Pos::new(40.0, 40.0), OfficerLevel::Corps),
            officer(4, 1, Pos::new(-40.0, 40.0), OfficerLevel::Division),
        ],
        ..BattleState::default()
    };
    for (i, &(x, y)) in rebels.iter().enumerate() {
        let id = 10 + u32::try_from(i).unwrap();
        let mut u = Unit::infantry(id, &format!("reb {id}"), 1, 20, Pos::new(x, y), 180.0);
        u.commander = Some(OfficerId(3 + u32::try_from(i % 2).unwrap()));
        b.units.push(u);
    }
    b
}

fn check_consistent(s: &DispatchState) -> Result<(), TestCaseError> {
    for d in s.dispatches.values() {
        match (d.status, d.holder) {
            (DispatchStatus::InTransit, Holder::Messenger(m))
            | (DispatchStatus::Captured { .. }, Holder::Messenger(m)) => {
                let msg = s.messengers.get(&m);
                prop_assert!(
                    msg.is_some(),
                    "dispatch {:?} held by a missing messenger",
                    d.id
                );
                prop_assert!(msg.is_some_and(|m| m.carrying.contains(&d.id)));
            }
            (DispatchStatus::Captured { .. }, Holder::Nobody)
            | (DispatchStatus::Lost { .. }, Holder::Nobody)
            | (DispatchStatus::Delivered { .. }, Holder::Officer(_))
            | (DispatchStatus::Read { .. }, Holder::Officer(_)) => {}
            other => prop_assert!(false, "inconsistent dispatch {:?}: {other:?}", d.id),
        }
        if let DispatchStatus::Captured { by_side, .. } = d.status {
            prop_assert_eq!(d.captured.map(|c| c.by_side), Some(by_side));
        }
    }
    for m in s.messengers.values() {
        for id in &m.carrying {
            prop_assert_eq!(s.dispatches[id].holder, Holder::Messenger(m.id));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn dispatches_stay_consistent_and_the_sender_never_hears_of_loss(
        rebels in proptest::collection::vec((-30.0f64..30.0, 5.0f64..60.0), 0..6),
        union_at in (-30.0f64..30.0, 10.0f64..80.0),
        seed in any::<[u8; 32]>(),
        fire_on in proptest::collection::vec(any::<bool>(), 12),
        sfrm_scale in any::<bool>(),
    ) {
        let scale = if sfrm_scale { Scale::SFRM } else { Scale::IRON_BRIGADE };
        let mut b = battlefield(&rebels, union_at);
        let mut s = DispatchState::default();
        let mut d = StreamDice::new(seed);
        let mut events = Vec::new();
        for (t, fire) in fire_on.iter().enumerate() {
            b.turn = u32::try_from(t).unwrap() + 1;
            // One dispatch an SFRM turn: every 12 turns at Iron Brigade scale.
            if t % 12 == 0 {
                let (_, ev) = s
                    .write_dispatch(&b, OfficerId(1), OfficerId(2), "orders")
                    .unwrap();
                events.extend(ev);
            }
            if *fire && let Some(m) = s.messengers.values().find(|m| m.side == SideId(0)) {
                let id = m.id;
                s.mark_fired_upon(id, SideId(1));
            }
            let (next, ev) = advance(&s, &b, scale, &mut d).unwrap();
            s = next;
            events.extend(ev);
            check_consistent(&s)?;
            let json = s.canonical_json();
            let back: DispatchState = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(back.canonical_json(), json);
        }
        for e in DispatchEvent::filter_for(&events, SideId(0)) {
            let secret = matches!(
                e,
                DispatchEvent::Captured { .. }
                    | DispatchEvent::Lost { .. }
                    | DispatchEvent::Casualty { .. }
                    | DispatchEvent::PassedToEnemyGeneral { .. }
                    | DispatchEvent::Moved { .. }
            );
            prop_assert!(!secret, "union saw {e:?}");
        }
        // Whatever the Confederates learn of Union dispatches came through
        // a capture they saw.
        let rebel = DispatchEvent::filter_for(&events, SideId(1));
        for e in &rebel {
            if let DispatchEvent::Read { dispatch, .. } = e {
                prop_assert!(s.dispatches[dispatch].captured.is_some());
                let seen_capture = rebel.iter().any(|c| {
                    matches!(c, DispatchEvent::Captured { dispatches, .. } if dispatches.contains(dispatch))
                });
                prop_assert!(seen_capture, "read {:?} without a capture", dispatch);
            }
        }
    }
}
