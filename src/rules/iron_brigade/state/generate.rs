//! A deterministic corps-sized battle for benchmarks and stress tests: two
//! sides of 120 infantry/cavalry regiments, 20 batteries and 15 officers each,
//! on a 400" × 300" table with 200 terrain features.
//!
//! The numbers come from a tiny SplitMix64 stream seeded by the caller, so the
//! same seed always gives the same state on every platform and every build.

use super::{
    Area, BattleState, Current, Ford, Hill, Landmark, LineFeature, Officer, OfficerId,
    OfficerStatus, Pos, Ranks, Side, SideId, StreamWater, Terrain, Unit,
};
use crate::rules::iron_brigade::geometry::facing_vector;
use crate::rules::iron_brigade::kinds::{
    AreaKind, CommandClass, Formation, LineKind, OfficerLevel, OfficerRating,
};
use crate::rules::iron_brigade::orders::{
    Action, BookedOrder, FireTarget, Gait, MoveOrder, OrderBook, Step, Trigger, UnitOrder,
};

/// SplitMix64: a fixed, well-known generator (Steele, Lea, Flood 2014).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Table size of the generated battle, in inches.
pub const GENERATED_WIDTH: f64 = 400.0;
pub const GENERATED_HEIGHT: f64 = 300.0;

/// Build a corps battle from `seed` (see the module docs). Side 0 deploys
/// facing north in the south half, side 1 facing south in the north half,
/// 40–80" apart, so many units are in sight and in range of each other.
pub fn generate_corps_battle(seed: u64) -> BattleState {
    let mut rng = Mix(seed);
    let mut state = BattleState {
        turn: 1,
        sides: vec![
            Side {
                id: SideId(0),
                name: "Union".into(),
            },
            Side {
                id: SideId(1),
                name: "Confederate".into(),
            },
        ],
        ..BattleState::default()
    };
    for side in 0..2u8 {
        add_side(&mut state, &mut rng, side);
    }
    state.terrain = terrain(&mut rng);
    state
}

/// The benchmark's turn (`benches/turn.rs`, BENCHMARKS.md) and the test
/// that pins its outcome (`tests/turn_pinned.rs`) must resolve exactly the
/// same input, so it is built here once: the corps battle from `seed` with
/// side 1 moved 50" south (the generated lines start 60–70" apart, out of
/// range), and a standing order for every unit — one in three advances 10"
/// straight ahead, one fires at will, one holds.
pub fn corps_battle_turn(seed: u64) -> (BattleState, OrderBook) {
    let mut state = generate_corps_battle(seed);
    for u in state.units.iter_mut().filter(|u| u.side.0 == 1) {
        u.position.y -= 50.0;
    }
    for o in state.officers.iter_mut().filter(|o| o.side.0 == 1) {
        o.position.y -= 50.0;
    }
    let mut book = OrderBook::default();
    for (i, u) in state.units.iter().enumerate() {
        let action = match i % 3 {
            0 => {
                let (dx, dy) = facing_vector(u.facing);
                Action::Move(MoveOrder {
                    waypoints: vec![Pos::new(u.position.x + 10.0 * dx, u.position.y + 10.0 * dy)],
                    by_road: false,
                    formation: None,
                    gait: Gait::March,
                    fire_while_moving: false,
                    backwards: false,
                })
            }
            1 => Action::Fire(FireTarget::AtWill),
            _ => Action::Hold,
        };
        let order = UnitOrder {
            id: i as u64 + 1,
            unit: u.id,
            issued_by: u.commander.unwrap_or(OfficerId(1)),
            issued_turn: state.turn,
            follows_previous: false,
            steps: vec![Step {
                trigger: Trigger::Then,
                action,
            }],
        };
        book.units.insert(
            u.id,
            vec![BookedOrder {
                order,
                effective_turn: state.turn,
                current_step: 0,
            }],
        );
    }
    (state, book)
}

fn add_side(state: &mut BattleState, rng: &mut Mix, side: u8) {
    let north = side == 1;
    let facing = if north { 180.0 } else { 0.0 };
    // Front line y and direction towards the rear.
    let (front_y, back) = if north { (170.0, 1.0) } else { (130.0, -1.0) };
    let id_base = u32::from(side) * 1000;

    // 1 corps commander, 3 divisions, 11 brigades = 15 officers.
    let corps_id = id_base + 1;
    let mut corps = Officer::brigadier(corps_id, &format!("Corps {side}"), side, Pos::default());
    corps.level = OfficerLevel::Corps;
    corps.position = Pos::new(200.0, front_y + back * 60.0);
    state.officers.push(corps);
    let mut divisions = Vec::new();
    for d in 0..3u32 {
        let id = id_base + 2 + d;
        let mut o = Officer::brigadier(id, &format!("Division {side}-{d}"), side, Pos::default());
        o.level = OfficerLevel::Division;
        o.superior = Some(OfficerId(corps_id));
        o.position = Pos::new(70.0 + 130.0 * f64::from(d), front_y + back * 45.0);
        o.command_class = CommandClass::ALL[(rng.below(3)) as usize % CommandClass::ALL.len()];
        state.officers.push(o);
        divisions.push(id);
    }
    let mut brigades = Vec::new();
    for b in 0..11u32 {
        let id = id_base + 5 + b;
        let mut o = Officer::brigadier(id, &format!("Brigade {side}-{b}"), side, Pos::default());
        o.superior = divisions.get((b % 3) as usize).map(|d| OfficerId(*d));
        o.position = Pos::new(20.0 + 33.0 * f64::from(b), front_y + back * 30.0);
        o.rating = OfficerRating::ALL[rng.below(5) as usize % OfficerRating::ALL.len()];
        o.status = OfficerStatus::Active;
        state.officers.push(o);
        brigades.push(id);
    }

    // 140 units in 4 rows of 35, 10" apart along the front, 8" between rows.
    for i in 0..140u32 {
        let row = i / 35;
        let col = i % 35;
        let x = 15.0 + 10.5 * f64::from(col) + rng.range(-0.8, 0.8);
        let y = front_y + back * (8.0 * f64::from(row) + rng.range(0.0, 1.5));
        let id = id_base + 100 + i;
        let commander = brigades
            .get((col as usize * brigades.len()) / 35)
            .map(|b| OfficerId(*b));
        let mut u = if i < 100 {
            let castings = 10 + rng.below(13) as u32;
            let mut u = Unit::infantry(
                id,
                &format!("Regiment {side}-{i}"),
                side,
                castings,
                Pos::new(x, y),
                facing,
            );
            u.formation = match rng.below(10) {
                0 => Formation::Column,
                1 => Formation::Skirmish,
                2 => Formation::CompanyColumn,
                _ => Formation::Line,
            };
            if u.formation == Formation::Skirmish {
                u.formed_ranks = Ranks::Half;
            }
            u
        } else if i < 120 {
            let castings = 8 + rng.below(10) as u32;
            Unit::cavalry(
                id,
                &format!("Cavalry {side}-{i}"),
                side,
                castings,
                Pos::new(x, y),
                facing,
            )
        } else {
            let guns = if rng.below(2) == 0 { 4 } else { 6 };
            let mut b = Unit::battery(
                id,
                &format!("Battery {side}-{i}"),
                side,
                guns,
                Pos::new(x, y),
                facing,
            );
            if rng.below(4) == 0 {
                b.formation = Formation::Limbered;
            }
            b
        };
        u.commander = commander;
        u.base_morale = 4 + rng.below(3) as u8;
        u.combat_morale = u.base_morale;
        state.units.push(u);
    }
}

fn blob(rng: &mut Mix, cx: f64, cy: f64, r: f64, corners: usize) -> Vec<Pos> {
    (0..corners)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / corners as f64;
            let rr = r * rng.range(0.7, 1.2);
            Pos::new(cx + rr * a.cos(), cy + rr * a.sin())
        })
        .collect()
}

fn wiggle(rng: &mut Mix, start: Pos, dx: f64, dy: f64, steps: usize) -> Vec<Pos> {
    let mut pts = vec![start];
    let mut p = start;
    for _ in 0..steps {
        p = Pos::new(
            p.x + dx + rng.range(-3.0, 3.0),
            p.y + dy + rng.range(-3.0, 3.0),
        );
        pts.push(p);
    }
    pts
}

/// 80 woods, 30 other areas, 40 lines, 10 fords, 30 hill contours,
/// 10 landmarks: 200 features.
fn terrain(rng: &mut Mix) -> Terrain {
    let mut t = Terrain::default();
    for k in 0..110 {
        let kind = if k < 60 {
            AreaKind::Woods
        } else if k < 80 {
            AreaKind::DenseWoods
        } else {
            [
                AreaKind::Swamp,
                AreaKind::Rough,
                AreaKind::SteepHill,
                AreaKind::Town,
            ][k % 4]
        };
        let cx = rng.range(0.0, GENERATED_WIDTH);
        let cy = rng.range(0.0, GENERATED_HEIGHT);
        let r = rng.range(3.0, 12.0);
        t.areas.push(Area {
            name: format!("{kind} {k}"),
            kind,
            outline: blob(rng, cx, cy, r, 8),
        });
    }
    for k in 0..40 {
        let kind = [
            LineKind::Road,
            LineKind::Fence,
            LineKind::Wall,
            LineKind::Stream,
        ][k % 4];
        let start = Pos::new(
            rng.range(0.0, GENERATED_WIDTH),
            rng.range(0.0, GENERATED_HEIGHT),
        );
        let (dx, dy, steps) = match kind {
            LineKind::Road | LineKind::Stream => (rng.range(-10.0, 10.0), 12.0, 20),
            _ => (rng.range(2.0, 6.0), rng.range(-1.0, 1.0), 4),
        };
        let water = (kind == LineKind::Stream).then(|| StreamWater {
            depth_in: rng.range(20.0, 60.0),
            current: if rng.below(2) == 0 {
                Current::Strong
            } else {
                Current::WeakOrNone
            },
        });
        t.lines.push(LineFeature {
            name: format!("{kind} {k}"),
            kind,
            path: wiggle(rng, start, dx, dy, steps),
            water,
        });
    }
    for k in 0..10 {
        // Fords on the streams (every fourth line), at a vertex.
        let stream = t
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Stream)
            .nth(k % 10);
        let position = stream
            .and_then(|s| s.path.get(1 + k % 5).copied())
            .unwrap_or_default();
        t.fords.push(Ford {
            name: format!("Ford {k}"),
            position,
            depth_in: rng.range(15.0, 35.0),
        });
    }
    for k in 0..10 {
        // Ten hills of three nested contours each.
        let cx = rng.range(0.0, GENERATED_WIDTH);
        let cy = rng.range(0.0, GENERATED_HEIGHT);
        let r = rng.range(10.0, 25.0);
        for level in 0..3 {
            let scale = 1.0 - 0.3 * f64::from(level);
            t.hills.push(Hill {
                name: format!("Hill {k}"),
                outline: blob(rng, cx, cy, r * scale, 10),
                height: f64::from(level + 1),
            });
        }
    }
    for k in 0..10 {
        t.landmarks.push(Landmark {
            name: format!("Farm {k}"),
            position: Pos::new(
                rng.range(0.0, GENERATED_WIDTH),
                rng.range(0.0, GENERATED_HEIGHT),
            ),
        });
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::kinds::Arm;

    #[test]
    fn generated_battle_is_deterministic_and_valid() {
        let a = generate_corps_battle(7);
        let b = generate_corps_battle(7);
        assert_eq!(a.canonical_json(), b.canonical_json());
        assert_ne!(
            a.canonical_json(),
            generate_corps_battle(8).canonical_json()
        );
        assert_eq!(a.validate(), Ok(()));
    }

    #[test]
    fn generated_battle_has_the_promised_size() {
        let s = generate_corps_battle(1);
        for side in [SideId(0), SideId(1)] {
            let units: Vec<_> = s.units_of(side).collect();
            let guns = units.iter().filter(|u| u.arm.is_artillery()).count();
            let horse_foot = units
                .iter()
                .filter(|u| matches!(u.arm, Arm::Infantry | Arm::Cavalry))
                .count();
            assert_eq!((horse_foot, guns), (120, 20));
            assert_eq!(s.officers_of(side).count(), 15);
        }
        let t = &s.terrain;
        let features =
            t.areas.len() + t.lines.len() + t.fords.len() + t.hills.len() + t.landmarks.len();
        assert_eq!(features, 200);
    }
}
