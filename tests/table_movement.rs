//! Movement and footprint properties over random inputs and a whole corps
//! battle (APSoF III.C, IV.G).

use adjutant::rules::iron_brigade::geometry::{footprint, ranks_deep};
use adjutant::rules::iron_brigade::kinds::{AreaKind, Formation};
use adjutant::rules::iron_brigade::movement::{
    MoveIntent, Pace, base_allowance, formation_bonus, plan_move,
};
use adjutant::rules::iron_brigade::state::{
    Area, BattleState, Pos, Ranks, Unit, UnitId, generate_corps_battle,
};
use proptest::prelude::*;

fn woods_square(x: f64, y: f64, r: f64, kind: AreaKind) -> Area {
    Area {
        name: "wood".into(),
        kind,
        outline: vec![
            Pos::new(x - r, y - r),
            Pos::new(x + r, y - r),
            Pos::new(x + r, y + r),
            Pos::new(x - r, y + r),
        ],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// IV.G: no move goes further than the base allowance plus the
    /// formation bonus, nor further than its own final allowance.
    #[test]
    fn iv_g_move_never_exceeds_allowance(
        castings in 4u32..40,
        facing in 0.0f64..360.0,
        dist in 0.5f64..30.0,
        off in -40.0f64..40.0,
        wx in -10.0f64..10.0, wy in -10.0f64..10.0, wr in 0.5f64..6.0,
        dense in any::<bool>(),
        half in any::<bool>(),
        formation in prop::sample::select(vec![
            Formation::Line, Formation::Column, Formation::Skirmish,
            Formation::CompanyColumn, Formation::EnMasse,
        ]),
    ) {
        let mut u = Unit::infantry(1, "u", 0, castings, Pos::new(0.0, 0.0), facing)
            .with_formation(formation);
        if formation == Formation::Skirmish {
            u.formed_ranks = Ranks::Half;
        }
        let kind = if dense { AreaKind::DenseWoods } else { AreaKind::Woods };
        let mut s = BattleState { units: vec![u.clone()], ..BattleState::default() };
        s.terrain.areas.push(woods_square(wx, wy, wr, kind));
        let b = (facing + off).to_radians();
        let mut intent = MoveIntent::to(Pos::new(dist * b.sin(), dist * b.cos()));
        if half { intent.pace = Pace::Half; }
        let o = plan_move(&s, UnitId(1), &intent).unwrap();
        let cap = (base_allowance(&u, false, false) + formation_bonus(&u))
            * if half { 0.5 } else { 1.0 };
        prop_assert!(o.distance <= cap + 1e-9, "{} > {}", o.distance, cap);
        prop_assert!(o.distance <= o.allowance + 1e-9 || o.distance < 0.2);
        prop_assert!(o.distance <= dist + 1e-9);
        prop_assert!((o.end.distance(Pos::new(0.0, 0.0)) - o.distance).abs() < 1e-6);
        // Same input, same answer.
        prop_assert_eq!(plan_move(&s, UnitId(1), &intent).unwrap(), o);
    }

    /// III.C/IX.B: a line's footprint grows with its castings, and a lone
    /// line seen from the front counts the ranks it is drawn up in.
    #[test]
    fn iii_c_footprint_area_follows_castings(n in 8u32..80, ranks in prop::sample::select(vec![Ranks::One, Ranks::Two, Ranks::Three])) {
        let a = Unit::infantry(1, "a", 0, n, Pos::default(), 0.0).with_ranks(ranks);
        let b = Unit::infantry(2, "b", 0, n + 4, Pos::new(500.0, 0.0), 0.0).with_ranks(ranks);
        let (fa, fb) = (footprint(&a), footprint(&b));
        prop_assert!((fa.area() - 0.375 * f64::from(n)).abs() < 1e-9);
        prop_assert!(fb.area() > fa.area());
        let s = BattleState { units: vec![a.clone()], ..BattleState::default() };
        prop_assert_eq!(ranks_deep(&s, &a, None), ranks);
    }
}

/// Every unit of a corps battle can be asked to march 10" ahead: no panics,
/// every move within its allowance, unlimbered guns refuse politely.
#[test]
fn corps_battle_every_unit_moves_within_allowance() {
    let state = generate_corps_battle(3);
    let mut moved = 0;
    for u in &state.units {
        let ahead = footprint(u).to_table(0.0, 10.0);
        match plan_move(&state, u.id, &MoveIntent::to(ahead)) {
            Ok(o) => {
                assert!(
                    o.distance <= o.allowance + 1e-9 || o.distance < 0.2,
                    "{o:?}"
                );
                moved += 1;
            }
            Err(e) => assert!(e.to_string().contains("limber"), "{e}"),
        }
    }
    let limbered_or_not_artillery = state
        .units
        .iter()
        .filter(|u| u.formation != Formation::Unlimbered)
        .count();
    assert_eq!(moved, limbered_or_not_artillery);
}
