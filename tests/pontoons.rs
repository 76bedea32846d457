//! APSoF IV.E.2 "By pontoon boat; Infantry may cross bodies of water in
//! pontoon boats. When on wagons, pontoon boats move like heavy equipment.
//! They take four turns to unload from wagons. Each pontoon boat may carry
//! four castings. Pontoon boats move at a rate of 2" per turn on water."
//!
//! The fixture `tests/fixtures/scenarios/pontoons.toml`: Deep Creek (60",
//! too deep to ford) runs along y = 10. The 2nd Wisconsin (20 castings,
//! line) stands at the Union's three boats, afloat at (11, 9) with 4" of
//! water to cross; the 6th Wisconsin (16 castings) at one boat still on its
//! wagon at (36, 9), 3" of water there.

mod common;

use adjutant::dice::StreamDice;
use adjutant::game::battle_state_from_scenario;
use adjutant::rules::iron_brigade::events::{Event, UnitRef};
use adjutant::rules::iron_brigade::kinds::{Arm, PontoonTask};
use adjutant::rules::iron_brigade::orders::{
    Action, BookedOrder, OrderBook, Step, Trigger, TurnOrders, UnitOrder,
};
use adjutant::rules::iron_brigade::state::{
    BattleState, OfficerId, PontoonWork, Pos, SideId, UnitId,
};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use common::GameDir;
use std::path::Path;

const FIXTURE: &str = "tests/fixtures/scenarios/pontoons.toml";
const SECOND: UnitId = UnitId(1);
const SIXTH: UnitId = UnitId(2);

fn state() -> BattleState {
    let sc = adjutant::scenario::load(Path::new(FIXTURE)).unwrap();
    battle_state_from_scenario(&sc)
}

fn booked(unit: UnitId, id: u64, task: PontoonTask) -> BookedOrder {
    BookedOrder {
        order: UnitOrder {
            id,
            unit,
            issued_by: OfficerId(1),
            issued_turn: 1,
            follows_previous: false,
            steps: vec![Step {
                trigger: Trigger::Then,
                action: Action::Pontoons { task },
            }],
        },
        effective_turn: 1,
        current_step: 0,
    }
}

fn book(orders: &[(UnitId, PontoonTask)]) -> OrderBook {
    let mut book = OrderBook::default();
    for (i, (u, t)) in orders.iter().enumerate() {
        book.units.insert(*u, vec![booked(*u, i as u64 + 1, *t)]);
    }
    book
}

/// One turn; nothing in the fixture needs a die (the enemy is far off).
fn turn(s: &BattleState, book: &OrderBook) -> TurnOutcome {
    let mut d = StreamDice::new([7u8; 32]);
    resolve_turn(s, book, &TurnOrders::default(), &mut d).unwrap()
}

fn not_carried_out(out: &TurnOutcome, id: UnitId) -> String {
    out.events
        .iter()
        .find_map(|e| match e {
            Event::OrderNotCarriedOut { unit, reason, .. } if unit.id == id => Some(reason.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no refusal for {id:?}: {:?}", out.events))
}

/// The scenario places the boats at the stream, afloat or on their wagons.
#[test]
fn iv_e_2_scenario_places_the_boats() {
    let s = state();
    let p = &s.terrain.pontoons;
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(p[0].name, "Deep Creek pontoons 1");
    assert_eq!(p[0].stream, "Deep Creek");
    assert_eq!((p[0].boats, p[0].water, p[0].afloat), (3, 4.0, true));
    assert_eq!((p[1].boats, p[1].water, p[1].afloat), (1, 3.0, false));
    assert_eq!(p[1].side, s.unit(SIXTH).unwrap().side, "side names match");
}

/// IV.E.2 "They take four turns to unload from wagons": three turns of
/// work, and the boats are afloat at the end of the fourth; the unit
/// neither moves nor fires meanwhile, and the order is then done.
#[test]
fn iv_e_2_unloading_takes_four_turns() {
    let mut s = state();
    let mut b = book(&[(SIXTH, PontoonTask::Unload)]);
    let start = s.unit(SIXTH).unwrap().position;
    for t in 1..=3u32 {
        let out = turn(&s, &b);
        assert!(
            out.events.iter().any(|e| matches!(e,
                Event::PontoonWork { unit, task: PontoonTask::Unload, turns, of: 4, .. }
                    if unit.id == SIXTH && *turns == t)),
            "turn {t}: {:?}",
            out.events
        );
        assert!(!out.state.terrain.pontoons[1].afloat);
        assert_eq!(out.state.unit(SIXTH).unwrap().position, start);
        s = out.state;
        b = out.book;
    }
    let four = turn(&s, &b);
    assert!(four.state.terrain.pontoons[1].afloat);
    assert!(four.events.iter().any(|e| matches!(e,
        Event::PontoonsAfloat { unit, boats: 1, .. } if unit.id == SIXTH)));
    assert!(!four.book.units.contains_key(&SIXTH), "the step is done");
    let told = four
        .events
        .iter()
        .find(|e| matches!(e, Event::PontoonsAfloat { .. }))
        .unwrap()
        .describe();
    assert!(
        told.contains("1 boat on the water, 4 castings a trip"),
        "{told}"
    );
}

/// IV.E.2: three boats carry 12 castings a trip, so the 2nd Wisconsin's 20
/// go in two trips: over, back for the rest, over again — three legs of 4"
/// at 2" a turn, 6 turns. Then it stands on the far bank, as far from the
/// creek as it stood (1.75"), facing away from the water, and the boats
/// lie at the far bank.
#[test]
fn iv_e_2_infantry_crosses_in_two_trips() {
    let mut s = state();
    let mut b = book(&[(SECOND, PontoonTask::Cross)]);
    let start = s.unit(SECOND).unwrap().position;
    for t in 1..=5u32 {
        let out = turn(&s, &b);
        assert!(
            out.events.iter().any(|e| matches!(e,
                Event::PontoonWork { unit, task: PontoonTask::Cross, turns, of: 6, .. }
                    if unit.id == SECOND && *turns == t)),
            "turn {t}: {:?}",
            out.events
        );
        assert_eq!(out.state.unit(SECOND).unwrap().position, start);
        s = out.state;
        b = out.book;
    }
    let six = turn(&s, &b);
    let u = six.state.unit(SECOND).unwrap();
    assert!(
        u.position.distance(Pos::new(11.0, 11.75)) < 1e-9,
        "{:?}",
        u.position
    );
    assert!(u.facing.abs() < 1e-9, "facing north, away from the water");
    let boats = &six.state.terrain.pontoons[0];
    assert!(boats.position.distance(Pos::new(11.0, 11.0)) < 1e-9);
    assert!(six.events.iter().any(|e| matches!(e,
        Event::CrossedByPontoon { unit, trips: 2, turns: 6, .. } if unit.id == SECOND)));
    assert!(!six.book.units.contains_key(&SECOND), "the step is done");
    assert!(u.marks.pontoon_work.is_none());
}

/// IV.E.2: boats still on their wagons carry nobody; only infantry cross
/// in them; a unit must be at the boats; and the far bank must be on the
/// table.
#[test]
fn iv_e_2_who_may_cross() {
    let s = state();
    let out = turn(&s, &book(&[(SIXTH, PontoonTask::Cross)]));
    assert!(
        not_carried_out(&out, SIXTH).contains("still on their wagons"),
        "{:?}",
        out.events
    );

    let mut s = state();
    {
        let u = s.unit_mut(SECOND).unwrap();
        u.arm = Arm::Cavalry;
        u.mounted = true;
    }
    let out = turn(&s, &book(&[(SECOND, PontoonTask::Cross)]));
    assert!(not_carried_out(&out, SECOND).contains("only infantry"));

    let mut s = state();
    s.unit_mut(SECOND).unwrap().position = Pos::new(11.0, 5.0);
    let out = turn(&s, &book(&[(SECOND, PontoonTask::Cross)]));
    assert!(not_carried_out(&out, SECOND).contains("not at pontoon boats"));

    // A far bank beyond the table's edge is no landing.
    let mut s = state();
    if let Some(t) = s.table.as_mut() {
        t.height = 11.0;
    }
    let out = turn(&s, &book(&[(SECOND, PontoonTask::Cross)]));
    assert!(not_carried_out(&out, SECOND).contains("off the table"));
}

/// A crossing broken off (another order) starts again from the first turn:
/// the men went back to the bank.
#[test]
fn iv_e_2_a_crossing_broken_off_starts_again() {
    let s = state();
    let one = turn(&s, &book(&[(SECOND, PontoonTask::Cross)]));
    assert_eq!(
        one.state
            .unit(SECOND)
            .unwrap()
            .marks
            .pontoon_work
            .as_ref()
            .map(|w| w.turns),
        Some(1)
    );
    let two = turn(&one.state, &OrderBook::default());
    assert!(two.events.iter().any(|e| matches!(e,
        Event::PontoonWorkStopped { unit, .. } if unit.id == SECOND)));
    assert!(two.state.unit(SECOND).unwrap().marks.pontoon_work.is_none());
    let three = turn(&two.state, &book(&[(SECOND, PontoonTask::Cross)]));
    assert!(three.events.iter().any(|e| matches!(e,
        Event::PontoonWork { unit, turns: 1, .. } if unit.id == SECOND)));
}

/// A unit in the boats is "attempting to cross ... obstacles" (V.G.1.iv):
/// fire at it is perilous. The 3rd Tennessee is brought up to 6" across
/// the creek.
#[test]
fn iv_e_2_a_unit_in_the_boats_is_a_perilous_target() {
    let mut s = state();
    let third = UnitId(3);
    {
        let t = s.unit_mut(third).unwrap();
        t.position = Pos::new(11.0, 14.0);
    }
    s.unit_mut(SECOND).unwrap().marks.been_under_fire = true;
    let out = turn(&s, &book(&[(SECOND, PontoonTask::Cross)]));
    let why = out
        .events
        .iter()
        .find_map(|e| match e {
            Event::Fired {
                target,
                perilous_why,
                ..
            } if target.id == SECOND => Some(perilous_why.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("the 3rd fires at the 2nd: {:?}", out.events));
    assert!(why.iter().any(|c| c.starts_with("V.G.1.iv")), "{why:?}");
}

/// The 2nd Wisconsin with five of its six turns of crossing done: the
/// next turn it lands (the fixture's boats, 1.75" mirrored to (11, 11.75)).
fn about_to_land(mut s: BattleState) -> (BattleState, OrderBook) {
    s.unit_mut(SECOND).unwrap().marks.pontoon_work = Some(PontoonWork {
        task: PontoonTask::Cross,
        pontoons: "Deep Creek pontoons 1".into(),
        turns: 5,
    });
    (s, book(&[(SECOND, PontoonTask::Cross)]))
}

fn landing_blocked(out: &TurnOutcome) -> Option<(UnitId, Option<Pos>)> {
    out.events.iter().find_map(|e| match e {
        Event::PontoonLandingBlocked { unit, by, at } if unit.id == SECOND => Some((by.id, *at)),
        _ => None,
    })
}

/// A landing does not put the unit on top of another (IV.E.2 with
/// IV.C.4; docs/rulings.md "Pontoon boats"): the 6th Wisconsin stands on
/// the far bank across the mirrored place (both lines are 1.5" deep: its
/// rear at 12.25", the landing's front at 12.5"), so the 2nd lands a
/// quarter inch nearer the water, at (11, 11.5), in contact with the 6th
/// and not on it; the crossing is done.
#[test]
fn iv_e_2_a_landing_on_a_unit_stops_short() {
    let mut s = state();
    s.unit_mut(SIXTH).unwrap().position = Pos::new(11.0, 13.0);
    let (s, b) = about_to_land(s);
    let out = turn(&s, &b);
    let u = out.state.unit(SECOND).unwrap();
    assert!(
        u.position.distance(Pos::new(11.0, 11.5)) < 1e-9,
        "{:?} {:?}",
        u.position,
        out.events
    );
    assert_eq!(
        landing_blocked(&out),
        Some((SIXTH, Some(u.position))),
        "{:?}",
        out.events
    );
    assert!(out.events.iter().any(|e| matches!(e,
        Event::CrossedByPontoon { unit, .. } if unit.id == SECOND)));
    assert!(!out.book.units.contains_key(&SECOND), "the step is done");
    let told = out
        .events
        .iter()
        .find(|e| matches!(e, Event::PontoonLandingBlocked { .. }))
        .unwrap()
        .describe();
    assert!(told.contains("lands short at (11.0, 11.5)"), "{told}");
    assert!(told.contains("6th Wisconsin"), "a friend is named: {told}");
}

/// With no room even with its rear at the water's edge, the unit waits in
/// the boats (still crossing, still a perilous target) and lands the turn
/// the ground is clear.
#[test]
fn iv_e_2_a_landing_with_no_room_waits_in_the_boats() {
    let mut s = state();
    // The 6th covers the far bank from 10.25" to 11.75": every place from
    // the mirrored one (11.0" to 12.5") down to the bank (rear on the
    // creek, 10" to 11.5") overlaps it.
    s.unit_mut(SIXTH).unwrap().position = Pos::new(11.0, 11.0);
    let (s, b) = about_to_land(s);
    let start = s.unit(SECOND).unwrap().position;
    let out = turn(&s, &b);
    assert_eq!(
        landing_blocked(&out),
        Some((SIXTH, None)),
        "{:?}",
        out.events
    );
    let u = out.state.unit(SECOND).unwrap();
    assert_eq!(u.position, start, "it has not landed");
    assert_eq!(u.marks.pontoon_work.as_ref().map(|w| w.turns), Some(6));
    assert!(out.book.units.contains_key(&SECOND), "the step goes on");
    assert!(
        !out.events
            .iter()
            .any(|e| matches!(e, Event::CrossedByPontoon { .. }))
    );
    // A second turn of waiting does not wear the crossing out.
    let again = turn(&out.state, &out.book);
    assert_eq!(landing_blocked(&again), Some((SIXTH, None)));
    // The 6th moves off; the 2nd lands at the mirrored place.
    let mut s = again.state;
    s.unit_mut(SIXTH).unwrap().position = Pos::new(36.0, 20.0);
    let landed = turn(&s, &again.book);
    assert_eq!(landing_blocked(&landed), None);
    let u = landed.state.unit(SECOND).unwrap();
    assert!(
        u.position.distance(Pos::new(11.0, 11.75)) < 1e-9,
        "{:?}",
        u.position
    );
    assert!(!landed.book.units.contains_key(&SECOND), "the step is done");
}

/// The landing blocked by an enemy is told to the crossing side without
/// the enemy's name, and never to the enemy.
#[test]
fn iv_e_2_a_blocked_landing_does_not_name_the_enemy() {
    let ev = Event::PontoonLandingBlocked {
        unit: UnitRef {
            id: SECOND,
            side: SideId(0),
            name: "2nd Wisconsin".into(),
        },
        by: UnitRef {
            id: UnitId(3),
            side: SideId(1),
            name: "3rd Tennessee".into(),
        },
        at: None,
    };
    let told = ev.describe_as(&|s| s == SideId(0));
    assert!(told.contains("enemy troops"), "{told}");
    assert!(!told.contains("Tennessee"), "{told}");
    assert!(ev.is_private(), "told to the crossing side only");
    assert_eq!(ev.subjects().len(), 1, "the enemy is not a party");
}

/// The scenario format refuses boats away from the stream or of a side
/// that is not in the scenario, with the fix.
#[test]
fn iv_e_2_scenario_checks_the_boats() {
    let text = std::fs::read_to_string(FIXTURE)
        .unwrap()
        .replace("at = [11, 9], boats = 3", "at = [11, 5], boats = 3")
        .replace("side = \"union\"", "side = \"Unoin\"");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, text).unwrap();
    let err = adjutant::scenario::load(&path).unwrap_err().to_string();
    assert!(err.contains("put them on its bank"), "{err}");
    assert!(err.contains("Union"), "{err}");
}

/// Through the binary: Blue orders the 6th Wisconsin to unload its boats;
/// four turns later his report says they are on the water, and the receipt
/// wrote the order back. His reports list his boats; Grey's do not.
#[test]
fn iv_e_2_unloading_by_mail() {
    let g = GameDir::with_scenario("pontoons", FIXTURE);
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "6th Wisconsin: unload the pontoons.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let receipt = g
        .outbox()
        .into_iter()
        .find(|m| m.contains("unload the pontoons"))
        .expect("the receipt writes the order back");
    assert!(receipt.contains("6th Wisconsin"), "{receipt}");
    for t in 2..=4u32 {
        g.order_mail(&format!("blue{t}"), "blue@example.test", "Blue", "READY");
        g.order_mail(&format!("grey{t}"), "grey@example.test", "Grey", "READY");
        g.run_once();
        assert_eq!(g.open_turn(), t + 1, "turn {t} was played");
    }
    let mails = g.outbox_all();
    let blue = mails
        .iter()
        .filter(|m| m.contains("To: blue@example.test"))
        .map(|m| m.replace("=\r\n", "").replace("=\n", ""))
        .collect::<Vec<_>>();
    assert!(
        blue.iter()
            .any(|m| m.contains("6th Wisconsin unloads Deep Creek pontoons 2: turn 3 of 4")),
        "Blue is told of each turn's work"
    );
    assert!(
        blue.iter()
            .any(|m| m
                .contains("6th Wisconsin has unloaded Deep Creek pontoons 2 from their wagons")),
        "Blue is told the boats are afloat"
    );
    // His report lists his boats, where they lie and whether afloat.
    assert!(
        blue.iter().any(|m| m.contains("PONTOON BOATS")
            && m.contains("Deep Creek pontoons 2: 1 boat on their wagons")),
        "the briefing lists the boats on their wagons"
    );
    assert!(
        blue.iter()
            .any(|m| m.contains("Deep Creek pontoons 2: 1 boat on the water")),
        "the report after the unloading lists them afloat"
    );
    let grey_told = mails
        .iter()
        .filter(|m| m.contains("To: grey@example.test"))
        .any(|m| {
            m.contains("Deep Creek pontoons") || m.contains("unload") || m.contains("PONTOON")
        });
    assert!(!grey_told, "Grey, far off, is told nothing of it");
}

/// Through the binary, as a player writes it: "cross the creek in the
/// boats". Six turns later Blue's report says the 2nd Wisconsin has crossed
/// in two trips and shows it on the far bank.
#[test]
fn iv_e_2_crossing_by_mail() {
    let g = GameDir::with_scenario("ferry", FIXTURE);
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "2nd Wisconsin: cross the creek in the boats.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    let receipt = g
        .outbox()
        .into_iter()
        .find(|m| m.contains("2nd Wisconsin: cross by pontoon"))
        .expect("the receipt writes the order back as understood");
    assert!(!receipt.contains("Not understood"), "{receipt}");
    for t in 2..=6u32 {
        g.order_mail(&format!("blue{t}"), "blue@example.test", "Blue", "READY");
        g.order_mail(&format!("grey{t}"), "grey@example.test", "Grey", "READY");
        g.run_once();
    }
    assert_eq!(g.open_turn(), 7, "six turns were played");
    let blue: Vec<String> = g
        .outbox_all()
        .iter()
        .filter(|m| m.contains("To: blue@example.test"))
        .map(|m| {
            m.replace("=\r\n", "")
                .replace("=\n", "")
                .replace("\r\n", "\n")
        })
        .collect();
    let last = blue
        .iter()
        .rev()
        .find(|m| m.contains("Turn 6 results"))
        .expect("the turn 6 report");
    let flat = last.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("2nd Wisconsin has crossed Deep Creek in pontoon boats (2 trips, 6 turns)"),
        "{flat}"
    );
    assert!(flat.contains("(11.0, 11.8)"), "{flat}");
}

/// Played through the binary: the 6th Wisconsin holds the far bank where
/// the 2nd would land, with no room even at the water's edge. Blue's turn
/// 6 report says the 2nd waits in the boats and why; Grey, far off, is
/// told nothing.
#[test]
fn iv_e_2_a_blocked_landing_by_mail() {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let moved = text.replace("position = [36, 8.25]", "position = [11, 11]");
    assert_ne!(moved, text, "the 6th is moved to the far bank");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blocked.toml");
    std::fs::write(&path, moved).unwrap();
    let g = GameDir::with_scenario("blocked", path.to_str().unwrap());
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "2nd Wisconsin: cross by pontoon.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    for t in 2..=6u32 {
        g.order_mail(&format!("blue{t}"), "blue@example.test", "Blue", "READY");
        g.order_mail(&format!("grey{t}"), "grey@example.test", "Grey", "READY");
        g.run_once();
    }
    assert_eq!(g.open_turn(), 7, "six turns were played");
    let mails = g.outbox_all();
    let flat = |m: &String| {
        m.replace("=\r\n", "")
            .replace("=\n", "")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let last = mails
        .iter()
        .filter(|m| m.contains("To: blue@example.test"))
        .map(flat)
        .rev()
        .find(|m| m.contains("Turn 6 results"))
        .expect("the turn 6 report");
    assert!(
        last.contains("2nd Wisconsin waits in the boats: 6th Wisconsin stand on the far bank"),
        "{last}"
    );
    assert!(!last.contains("has crossed Deep Creek"), "{last}");
    let grey_told = mails
        .iter()
        .filter(|m| m.contains("To: grey@example.test"))
        .map(flat)
        .any(|m| m.contains("waits in the boats") || m.contains("lands short"));
    assert!(!grey_told, "Grey is told nothing of the landing");
}

/// Played through the binary: while the 2nd Wisconsin is in the boats it
/// is told and drawn on the water, at the middle of its crossing on Deep
/// Creek's line (11, 10), not on the bank it left, with its boats under
/// it; its own report says it is afloat, and the 3rd Tennessee, brought up
/// to (11, 16) in sight of it (Colonel Pryor beside it, so its `hold fire`
/// takes effect at once), sees a regiment afloat in boats there. Blue's
/// map draws the boats (the hull glyph).
#[test]
fn iv_e_2_a_crossing_unit_is_drawn_on_the_water() {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let moved = text
        .replace("position = [24, 31]", "position = [11, 16]")
        .replace("position = [24, 33]", "position = [11, 20]");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("afloat.toml");
    std::fs::write(&path, moved).unwrap();
    let g = GameDir::with_scenario("afloat", path.to_str().unwrap());
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "2nd Wisconsin: cross the creek in the boats.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let mails = g.outbox_all();
    let flat = |m: &String| {
        m.replace("=\r\n", "")
            .replace("=\n", "")
            .replace("=3D", "=")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let report = |to: &str| {
        mails
            .iter()
            .filter(|m| m.contains(&format!("To: {to}")) && m.contains("Turn 1 results"))
            .map(flat)
            .next()
            .unwrap_or_else(|| panic!("{to}'s turn 1 report"))
    };
    let blue = report("blue@example.test");
    assert!(
        blue.contains(
            "2nd Wisconsin -- infantry, line, facing north (0 degrees) Position: 600 yards south-west of the crossroads (11.0, 10.0)"
        ),
        "{blue}"
    );
    assert!(
        blue.contains("Condition: afloat: crossing in Deep Creek pontoons 1 (APSoF IV.E.2)"),
        "{blue}"
    );
    assert!(
        blue.contains("Deep Creek pontoons 1: 3 boats on the water, 600 yards south-west of the crossroads (11.0, 10.0)"),
        "the boats are under it: {blue}"
    );
    assert!(blue.contains("#c8a060"), "the map draws the boats");
    let grey = report("grey@example.test");
    assert!(
        grey.contains("a Union infantry regiment, about 400 men, afloat in boats, in line facing north; 600 yards south-west of the crossroads (11.0, 10.0)"),
        "{grey}"
    );
    assert!(
        !grey.contains("#c8a060"),
        "Grey's map does not draw Blue's boats"
    );
    assert!(!grey.contains("Deep Creek pontoons"), "{grey}");
}
