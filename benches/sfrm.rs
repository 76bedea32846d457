//! One whole turn of an army-scale SFRM brigade battle (issue #19: about
//! 2 x 60 brigades with their generals, artillery and supply), generated
//! here deterministically, with an order for every brigade; and each
//! side's view of the turn (`side_view`), which reports are made from.
//! Messengers at brigade scale are not built (the rules core's module
//! doc), so none ride. See BENCHMARKS.md, "SFRM army turn".
//!
//! `SFRM_BENCH_DIGEST=1 cargo bench --bench sfrm` prints a digest of the
//! turn's outcome (state and events as JSON) before benchmarking, so a
//! change for speed can show it changes no outcome.

use adjutant::dice::StreamDice;
use adjutant::rules::sfrm::battle::nouns::DayRecord;
use adjutant::rules::sfrm::battle::view::{EnemyNaming, side_view};
use adjutant::rules::sfrm::battle::{
    Area, Arm, Formation, General, GeneralId, Ground, Gun, Order, Pos, Quality, Rank, Road, Season,
    SfrmBattle, Side, SmallArm, SupplySource, TurnOrders, Unit, UnitId, Weather, resolve_turn,
};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const BRIGADES: u32 = 60;
const PER_DIVISION: u32 = 4;
const DIVISIONS_PER_CORPS: u32 = 5;

fn unit(id: u32, name: String, side: Side, arm: Arm, elements: u32, pos: Pos, facing: f64) -> Unit {
    Unit {
        id: UnitId(id),
        name,
        side,
        arm,
        elements,
        front_rank: elements,
        quality: Some(Quality::Regular),
        formation: Formation::Line,
        facing,
        pos,
        mounted: false,
        prone: false,
        routed: false,
        out_of_command: false,
        dispersed: false,
        entrenchment: 0,
        out_of_supply: 0,
        fatigue_quarters: 0,
        division: None,
        day: DayRecord::default(),
    }
}

fn general(id: u32, name: String, side: Side, rank: Rank, pos: Pos) -> General {
    General {
        id: GeneralId(id),
        name,
        side,
        rank,
        quality: Quality::Regular,
        penalty: Default::default(),
        pos,
        attached_to: None,
        superior: None,
        removed: false,
        role: None,
        replaced: false,
    }
}

/// Two armies of 60 brigades (15 divisions of 4, 3 corps of 5 divisions,
/// an army general), a 10-pounder battalion per division, a supply train
/// per corps on the pike, each in two lines 6" apart across 150" of
/// table, woods and hills between, a summer noon.
pub fn army_battle() -> SfrmBattle {
    let mut units = Vec::new();
    let mut generals = Vec::new();
    let (mut uid, mut gid) = (1u32, 1u32);
    for side in [Side::Union, Side::Confederate] {
        // Union faces north from y 20 (front) and 14; Confederates south
        // from y 26 and 32.
        let (front_y, back_y, facing) = match side {
            Side::Union => (20.0, 14.0, 0.0),
            Side::Confederate => (26.0, 32.0, 180.0),
        };
        let army = gid;
        generals.push(general(
            gid,
            format!("{} army", side.name()),
            side,
            Rank::Army,
            Pos::new(75.0, if side == Side::Union { 4.0 } else { 42.0 }),
        ));
        gid += 1;
        let mut corps = 0;
        for d in 0..BRIGADES / PER_DIVISION {
            if d % DIVISIONS_PER_CORPS == 0 {
                corps = gid;
                let mut g = general(
                    gid,
                    format!("{} corps {}", side.name(), d / DIVISIONS_PER_CORPS + 1),
                    side,
                    Rank::Corps,
                    Pos::new(
                        25.0 + 50.0 * f64::from(d / DIVISIONS_PER_CORPS),
                        if side == Side::Union { 8.0 } else { 38.0 },
                    ),
                );
                g.superior = Some(GeneralId(army));
                generals.push(g);
                gid += 1;
                units.push(Unit {
                    division: Some(GeneralId(corps)),
                    formation: Formation::MarchColumn,
                    ..unit(
                        uid,
                        format!("{} train {}", side.name(), d / DIVISIONS_PER_CORPS + 1),
                        side,
                        Arm::Supply,
                        1,
                        Pos::new(
                            25.0 + 50.0 * f64::from(d / DIVISIONS_PER_CORPS),
                            if side == Side::Union { 2.0 } else { 44.0 },
                        ),
                        facing,
                    )
                });
                uid += 1;
            }
            let div = gid;
            let x0 = 5.0 + 10.0 * f64::from(d);
            let mut g = general(
                gid,
                format!("{} division {}", side.name(), d + 1),
                side,
                Rank::Division,
                Pos::new(x0, front_y),
            );
            g.superior = Some(GeneralId(corps));
            g.attached_to = Some(UnitId(uid));
            if d % 3 == 1 {
                g.quality = Quality::Superior;
            }
            generals.push(g);
            gid += 1;
            for k in 0..PER_DIVISION {
                let (x, y) = (
                    x0 + 5.0 * f64::from(k % 2),
                    if k < 2 { front_y } else { back_y },
                );
                let n = uid;
                let weapon = if side == Side::Confederate && n % 4 == 0 {
                    SmallArm::Muskets
                } else {
                    SmallArm::Rifles
                };
                let mut u = unit(
                    uid,
                    format!("{} brigade {}", side.name(), d * PER_DIVISION + k + 1),
                    side,
                    Arm::Infantry { weapon },
                    5 + n % 4,
                    Pos::new(x, y),
                    facing,
                );
                u.division = Some(GeneralId(div));
                u.quality = match n % 7 {
                    0 => None,
                    3 => Some(Quality::Superior),
                    5 => Some(Quality::Inferior),
                    _ => Some(Quality::Regular),
                };
                units.push(u);
                uid += 1;
            }
            let mut guns = unit(
                uid,
                format!("{} artillery {}", side.name(), d + 1),
                side,
                Arm::Artillery {
                    gun: if d % 2 == 0 {
                        Gun::TenPounderRifled
                    } else {
                        Gun::TwelvePounder
                    },
                },
                1,
                Pos::new(x0 + 2.5, (front_y + back_y) / 2.0),
                facing,
            );
            guns.division = Some(GeneralId(div));
            units.push(guns);
            uid += 1;
        }
    }
    let ground = vec![
        Area {
            ground: Ground::Woods,
            min: Pos::new(30.0, 21.0),
            max: Pos::new(40.0, 25.0),
        },
        Area {
            ground: Ground::Woods,
            min: Pos::new(100.0, 10.0),
            max: Pos::new(110.0, 18.0),
        },
        Area {
            ground: Ground::Hill { level: 1 },
            min: Pos::new(60.0, 26.0),
            max: Pos::new(90.0, 36.0),
        },
        Area {
            ground: Ground::Town,
            min: Pos::new(140.0, 20.0),
            max: Pos::new(146.0, 26.0),
        },
    ];
    SfrmBattle {
        turn: 0,
        start_minute: 12 * 60,
        season: Season::Summer,
        weather: Weather::Clear,
        attacker: Side::Union,
        units,
        generals,
        ground,
        contacts: vec![],
        roads: vec![
            Road {
                name: "the Union pike".into(),
                points: vec![Pos::new(0.0, 2.0), Pos::new(155.0, 2.0)],
            },
            Road {
                name: "the Confederate pike".into(),
                points: vec![Pos::new(0.0, 44.0), Pos::new(155.0, 44.0)],
            },
        ],
        supply_sources: vec![
            SupplySource {
                side: Side::Union,
                pos: Pos::new(0.0, 2.0),
            },
            SupplySource {
                side: Side::Confederate,
                pos: Pos::new(155.0, 44.0),
            },
        ],
        table: None,
    }
}

/// An order for every brigade: a brigade with its general charges the
/// nearest enemy brigade (and charges on in breakthrough), the others
/// advance on it; guns fire at the nearest enemy.
pub fn army_orders(b: &SfrmBattle) -> TurnOrders {
    let mut o = TurnOrders::default();
    for side in [Side::Union, Side::Confederate] {
        let list = match side {
            Side::Union => &mut o.union,
            Side::Confederate => &mut o.confederate,
        };
        for u in b.units_of(side) {
            let Some(e) = b
                .units_of(side.other())
                .filter(|e| e.is_infantry_or_cavalry())
                .min_by(|a, c| a.pos.distance(u.pos).total_cmp(&c.pos.distance(u.pos)))
            else {
                continue;
            };
            if u.is_artillery() {
                list.push(Order::Target {
                    unit: u.id,
                    target: e.id,
                });
            } else if !u.is_infantry_or_cavalry() {
                continue;
            } else if b.attached_general(u.id).is_some() {
                list.push(Order::Charge {
                    unit: u.id,
                    target: e.id,
                });
                list.push(Order::BreakthroughCharge {
                    unit: u.id,
                    target: e.id,
                });
            } else {
                list.push(Order::Move {
                    unit: u.id,
                    to: e.pos,
                    front_rank: None,
                    road: false,
                });
            }
        }
    }
    o
}

/// FNV-1a of the outcome's JSON: the same outcome, the same digest.
fn digest(b: &SfrmBattle, orders: &TurnOrders) -> (u64, usize) {
    let mut dice = StreamDice::new([19u8; 32]);
    let (after, ev) = resolve_turn(b, orders, &mut dice).unwrap_or_else(|e| panic!("{e}"));
    let json = serde_json::to_string(&(after, &ev)).unwrap_or_default();
    let mut h: u64 = 0xcbf29ce484222325;
    for byte in json.bytes() {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x100000001b3);
    }
    (h, ev.len())
}

fn bench(c: &mut Criterion) {
    let battle = army_battle();
    let orders = army_orders(&battle);
    if std::env::var_os("SFRM_BENCH_DIGEST").is_some() {
        let (h, n) = digest(&battle, &orders);
        eprintln!(
            "sfrm army turn: {} units, {} generals, {} orders, {n} events, digest {h:016x}",
            battle.units.len(),
            battle.generals.len(),
            orders.union.len() + orders.confederate.len()
        );
    }
    c.bench_function("sfrm resolve_turn army (2 x 60 brigades)", |bch| {
        bch.iter(|| {
            let mut dice = StreamDice::new([19u8; 32]);
            let out = resolve_turn(black_box(&battle), black_box(&orders), &mut dice);
            black_box(out.map(|(_, ev)| ev.len()).unwrap_or(0))
        })
    });
    let mut dice = StreamDice::new([19u8; 32]);
    let (after, events) =
        resolve_turn(&battle, &orders, &mut dice).unwrap_or_else(|e| panic!("{e}"));
    let naming = EnemyNaming::default();
    c.bench_function("sfrm side_view army, both sides", |bch| {
        bch.iter(|| {
            let u = side_view(black_box(&after), &events, Side::Union, &naming);
            let c = side_view(black_box(&after), &events, Side::Confederate, &naming);
            black_box(u.narrative.len() + c.narrative.len())
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
