//! Property tests of the fire and morale numbers: counts never go negative,
//! casualties never exceed the target, morale stays on its track, and dice
//! counts follow APSoF V.B.1.iii, V.B.3 and V.B.4.

use adjutant::dice::{DiceSource, ScriptedDice, StreamDice};
use adjutant::rules::iron_brigade::fire::{
    self, DicePool, FireInput, FireModifiers, FirerWeaponClass, Protection, Ranks, resolve_fire,
};
use adjutant::rules::iron_brigade::kinds::{Arm, OfficerRating, Weapon};
use adjutant::rules::iron_brigade::morale::{self, RallyOfficer};
use proptest::prelude::*;

fn arm() -> impl Strategy<Value = Arm> {
    prop::sample::select(Arm::ALL.to_vec())
}

fn weapon() -> impl Strategy<Value = Weapon> {
    prop::sample::select(Weapon::ALL.to_vec())
}

fn rating() -> impl Strategy<Value = Option<OfficerRating>> {
    prop::option::of(prop::sample::select(OfficerRating::ALL.to_vec()))
}

proptest! {
    #[test]
    fn dice_counts_follow_the_rules(arm in arm(), castings in 0u32..200) {
        let pool = fire::fire_dice(arm, castings);
        let expected = match (arm.is_artillery(), castings) {
            (_, 0) => 0,
            (true, 1) => 1,
            (true, c) => (c / 2) as usize,
            (false, c) if c < 4 => 1,
            (false, c) => (c / 4) as usize,
        };
        prop_assert_eq!(pool.count(), expected);
        if !arm.is_artillery() && (1..4).contains(&castings) {
            prop_assert_eq!(pool, DicePool::ShortDie { minus: (4 - castings) as u8 });
        }
    }

    #[test]
    fn fire_never_takes_more_than_the_target_has(
        firer_arm in arm(),
        target_arm in arm(),
        firers in 1u32..120,
        targets in 0u32..60,
        divisor in 1u8..20,
        perilous in any::<bool>(),
        seed in any::<[u8; 32]>(),
    ) {
        let input = FireInput {
            firer_arm, firer_castings: firers, target_arm, target_castings: targets, divisor, perilous,
        };
        let mut dice = StreamDice::new(seed);
        let out = resolve_fire(&input, &mut dice, "a", "b").unwrap();
        prop_assert!(out.casualties <= targets);
        prop_assert_eq!(out.casualties + out.target_remaining, targets);
        prop_assert_eq!(out.attack_dice.len(), fire::fire_dice(firer_arm, firers).count());
        let save_count = if out.casualties == 0 { 0 } else { fire::fire_dice(target_arm, out.target_remaining).count() };
        prop_assert_eq!(out.save_dice.len(), save_count);
        prop_assert_eq!(dice.log().len(), out.attack_dice.len() + out.save_dice.len());
        let per = if perilous { 10 } else { 5 };
        prop_assert!(out.morale_loss <= per * out.casualties);
    }

    #[test]
    fn modified_effectiveness_is_at_least_one(
        w in weapon(),
        range in 0u32..90,
        morale in 1u8..=6,
        flags in any::<[bool; 5]>(),
        cover in prop::sample::select(vec![Protection::None, Protection::Woods, Protection::LyingDown, Protection::HastyWorks, Protection::Entrenchments]),
        ranks in prop::sample::select(vec![Ranks::Three, Ranks::Two, Ranks::One, Ranks::Half, Ranks::Third]),
    ) {
        if let Ok(base) = adjutant::rules::iron_brigade::weapons::base_effectiveness(w, f64::from(range)) {
            let m = FireModifiers {
                protection: cover, target_ranks: ranks, firer_morale: morale,
                split_move: flags[0], firer_lying_down: flags[1], first_fire: flags[2],
                acquired: flags[3], perilous: flags[4],
            };
            let e = fire::modified_effectiveness(base, FirerWeaponClass::of(w), &m).unwrap();
            prop_assert!(e.divisor >= 1);
            prop_assert_eq!(i32::from(e.divisor), e.raw.max(1));
        }
    }

    #[test]
    fn split_casualties_add_up_and_respect_each_unit(
        total in 0u32..100,
        units in prop::collection::vec(0u32..40, 1..5),
    ) {
        let shares = fire::split_casualties(total, &units).unwrap();
        let all: u32 = units.iter().sum();
        prop_assert_eq!(shares.iter().sum::<u32>(), total.min(all));
        for (s, c) in shares.iter().zip(&units) {
            prop_assert!(s <= c);
        }
    }

    #[test]
    fn rally_keeps_morale_on_the_track(
        base in 1u8..=6,
        below in 1u8..=6,
        officer in rating(),
        hit in any::<bool>(),
        die in 1u8..=6,
        officer_die in 1u8..=6,
    ) {
        let current = base.saturating_sub(below);
        let officer = officer.map(|rating| RallyOfficer { rating, hit });
        let needed = morale::rally_dice_needed(base, current, officer).unwrap();
        let dice: Vec<u8> = [die, officer_die].into_iter().take(needed).collect();
        let r = morale::rally(base, current, officer, &dice).unwrap();
        prop_assert!(r.new_morale <= base);
        prop_assert_eq!(
            i32::from(r.new_morale),
            (i32::from(current) + r.morale_change).clamp(0, i32::from(base))
        );
    }

    #[test]
    fn losses_keep_morale_on_the_track(base in 1u8..=6, current in 0u8..=6, loss in 0u32..100) {
        let current = current.min(base);
        let after = morale::apply_loss(current, loss, base);
        prop_assert!(after <= current);
        prop_assert!(after <= base);
    }

    #[test]
    fn contact_loser_has_the_lower_total(a in 0u32..60, b in 0u32..60) {
        let c = morale::contact(a, b);
        prop_assert_eq!(c.morale_loss, a.abs_diff(b) / 3);
        prop_assert_eq!(c.loser.is_none(), a == b);
    }

    #[test]
    fn scripted_and_stream_dice_stay_on_the_die(values in prop::collection::vec(1u8..=6, 0..20), seed in any::<[u8; 32]>()) {
        let p = adjutant::dice::RollPurpose::new(adjutant::dice::RollKind::Other, "x");
        let mut s = ScriptedDice::new(values.iter().copied()).unwrap();
        prop_assert_eq!(s.roll_many(values.len(), &p).unwrap(), values.clone());
        prop_assert!(s.d6(&p).is_err());
        let mut st = StreamDice::new(seed);
        for v in st.roll_many(50, &p).unwrap() {
            prop_assert!((1..=6).contains(&v));
        }
        prop_assert!(st.draws() >= 50);
    }
}
