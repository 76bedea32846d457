//! The SFRM brigade-scale map of First Bull Run, drawn through the crate's
//! own PNG renderer (`report::png`), at the start and after a few turns of
//! seeded play: every map renders, the fog holds on a real scenario, and
//! the PNGs are left in the test's temporary directory to be looked at
//! (`target/tmp/sfrm-map-*.png`).

use adjutant::dice::StreamDice;
use adjutant::report::svg_to_png;
use adjutant::rules::sfrm::battle::map::{side_map_svg, umpire_map_svg};
use adjutant::rules::sfrm::battle::scenario::load;
use adjutant::rules::sfrm::battle::view::{EnemyNaming, seen_enemy_units, side_view};
use adjutant::rules::sfrm::battle::{Order, SfrmBattle, SfrmEvent, Side, TurnOrders, resolve_turn};
use std::path::{Path, PathBuf};

fn bull_run() -> SfrmBattle {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/first-bull-run.toml");
    load(&path).unwrap().battle
}

/// Each brigade marches on the nearest enemy unit and charges him when
/// close with a general riding along; the generals ride with their first
/// brigade.
fn orders(b: &SfrmBattle) -> TurnOrders {
    let mut o = TurnOrders::default();
    for side in [Side::Union, Side::Confederate] {
        let list = match side {
            Side::Union => &mut o.union,
            Side::Confederate => &mut o.confederate,
        };
        for u in b.units_of(side).filter(|u| u.is_infantry_or_cavalry()) {
            let Some(e) = b
                .units_of(side.other())
                .min_by(|a, c| a.pos.distance(u.pos).total_cmp(&c.pos.distance(u.pos)))
            else {
                continue;
            };
            if e.pos.distance(u.pos) > 5.0 {
                list.push(Order::Move {
                    unit: u.id,
                    to: e.pos,
                    front_rank: None,
                    road: false,
                });
            } else {
                list.push(Order::Charge {
                    unit: u.id,
                    target: e.id,
                });
            }
        }
    }
    o
}

fn out(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn draw(b: &SfrmBattle, events: &[SfrmEvent], tag: &str) {
    for side in [Side::Union, Side::Confederate] {
        let v = side_view(b, events, side, &EnemyNaming::default());
        let svg = side_map_svg(b, &v);
        // No enemy the side does not see is named on its map.
        let seen = seen_enemy_units(b, side);
        for u in b
            .units
            .iter()
            .filter(|u| u.side != side && !seen.contains(&u.id))
        {
            assert!(
                !svg.contains(&u.name),
                "{tag}: {} on the {side:?} map",
                u.name
            );
        }
        let png = svg_to_png(&svg).unwrap();
        std::fs::write(out(&format!("sfrm-map-{tag}-{}.png", side.name())), png).unwrap();
        std::fs::write(out(&format!("sfrm-map-{tag}-{}.svg", side.name())), svg).unwrap();
    }
    let svg = umpire_map_svg(b);
    let png = svg_to_png(&svg).unwrap();
    std::fs::write(out(&format!("sfrm-map-{tag}-umpire.png")), png).unwrap();
}

#[test]
fn sfrm_map_of_first_bull_run_renders_at_the_start_and_mid_game() {
    let mut b = bull_run();
    draw(&b, &[], "turn0");
    let mut dice = StreamDice::new([7; 32]);
    let mut events = Vec::new();
    for _ in 0..6 {
        let o = orders(&b);
        let (after, ev) = resolve_turn(&b, &o, &mut dice).unwrap();
        b = after;
        events = ev;
    }
    draw(&b, &events, "turn6");
}
