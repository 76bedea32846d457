//! SFRM dispatches inside the Iron Brigade turn (`resolve_turn`), with
//! scripted dice: travel time at both scales, the read roll for every
//! command ability, capture and death on Table 3, a captured dispatch read
//! by the enemy, and the sender never told of a loss (his report text).
//! The pure SFRM core on its own is tested in tests/sfrm.rs.

use adjutant::dice::{DiceSource, RollKind, ScriptedDice};
use adjutant::game::dispatches::report_entries;
use adjutant::report::narrative::side_narrative;
use adjutant::report::{LastKnown, ReportInputs, Reporter, side_view};
use adjutant::rules::iron_brigade::events::{Event, visible_to};
use adjutant::rules::iron_brigade::kinds::{CommandClass, OfficerLevel};
use adjutant::rules::iron_brigade::orders::{OrderBook, TurnOrders, WrittenDispatch};
use adjutant::rules::iron_brigade::state::{
    BattleState, Officer, OfficerId, Pos, Side, SideId, Unit,
};
use adjutant::rules::iron_brigade::turn::{TurnOutcome, resolve_turn};
use adjutant::rules::sfrm::{DispatchEvent, DispatchId, DispatchStatus, Holder, Scale};
use time::macros::datetime;

const UNION: SideId = SideId(0);
const REBEL: SideId = SideId(1);
const SECRET: &str = "Pope is at Centreville with two corps.";

fn officer(id: u32, name: &str, side: u8, at: Pos, level: OfficerLevel) -> Officer {
    let mut o = Officer::brigadier(id, name, side, at);
    o.level = level;
    o
}

/// McDowell (Union corps) at the origin, King (Union division) 49" north,
/// Jackson (Confederate corps) far to the east.
fn field() -> BattleState {
    BattleState {
        turn: 1,
        sides: vec![
            Side {
                id: UNION,
                name: "Union".into(),
            },
            Side {
                id: REBEL,
                name: "Confederate".into(),
            },
        ],
        officers: vec![
            officer(1, "McDowell", 0, Pos::new(0.0, 0.0), OfficerLevel::Corps),
            officer(2, "King", 0, Pos::new(0.0, 49.0), OfficerLevel::Division),
            officer(3, "Jackson", 1, Pos::new(60.0, 20.0), OfficerLevel::Corps),
        ],
        ..BattleState::default()
    }
}

fn dice(values: &[u8]) -> ScriptedDice {
    ScriptedDice::new(values.iter().map(|&v| i64::from(v))).unwrap()
}

fn letter(from: u32, to: u32, text: &str) -> TurnOrders {
    TurnOrders {
        dispatches: vec![WrittenDispatch {
            id: 1,
            from: OfficerId(from),
            to: OfficerId(to),
            text: text.into(),
        }],
        ..TurnOrders::default()
    }
}

fn sfrm(out: &TurnOutcome) -> Vec<DispatchEvent> {
    out.events
        .iter()
        .filter_map(|e| match e {
            Event::Sfrm { sfrm } => Some(sfrm.clone()),
            _ => None,
        })
        .collect()
}

/// Play turns from `state` (the first with `first` orders) until `stop`
/// says so or `max` turns have been played; every outcome is returned.
fn play(
    mut state: BattleState,
    first: TurnOrders,
    d: &mut dyn DiceSource,
    max: usize,
    stop: impl Fn(&BattleState) -> bool,
) -> Vec<TurnOutcome> {
    let mut outs = Vec::new();
    let mut orders = first;
    let mut book = OrderBook::default();
    for _ in 0..max {
        let out = resolve_turn(&state, &book, &orders, d).unwrap();
        orders = TurnOrders::default();
        state = out.state.clone();
        book = out.book.clone();
        outs.push(out);
        if stop(&state) {
            break;
        }
    }
    outs
}

fn status(state: &BattleState) -> DispatchStatus {
    state.sfrm.dispatches[&DispatchId(1)].status
}

fn delivered(state: &BattleState) -> bool {
    !matches!(status(state), DispatchStatus::InTransit)
}

#[test]
fn travel_time_at_iron_brigade_scale() {
    // 49" less the 1" reach at 12" a turn: 4 turns. No die is rolled on
    // the way (the scripted dice are empty).
    let outs = play(field(), letter(1, 2, SECRET), &mut dice(&[]), 10, delivered);
    assert_eq!(outs.len(), 4);
    let last = outs.last().unwrap();
    assert_eq!(status(&last.state), DispatchStatus::Delivered { turn: 4 });
    assert_eq!(
        last.state.sfrm.dispatches[&DispatchId(1)].holder,
        Holder::Officer(OfficerId(2))
    );
    // The first turn's ride is 12" north of McDowell.
    let first = &outs[0];
    assert!(sfrm(first).iter().any(|e| matches!(e,
        DispatchEvent::Moved { to, .. } if (to.y - 12.0).abs() < 1e-9 && to.x.abs() < 1e-9)));
    assert!(last.state.sfrm.messengers.is_empty(), "the rider is done");
}

#[test]
fn travel_time_at_sfrm_scale() {
    // 1" = 100 yd, 30 min a turn: 36" a turn, so 48" takes 2 turns.
    let mut b = field();
    b.scale = Some(Scale::SFRM);
    let outs = play(b, letter(1, 2, SECRET), &mut dice(&[]), 10, delivered);
    assert_eq!(outs.len(), 2);
    assert_eq!(
        status(&outs[1].state),
        DispatchStatus::Delivered { turn: 2 }
    );
}

#[test]
fn the_messenger_follows_the_recipient_as_he_moves() {
    // King rides east 10" a turn by his own move (APSoF IV.D); the rider
    // makes for where he is now, so he arrives later than the 4 turns a
    // standing King would take.
    let b = field();
    let mut outs = Vec::new();
    let mut state = b;
    let mut d = dice(&[]);
    for turn in 1..=8 {
        let mut orders = if turn == 1 {
            letter(1, 2, SECRET)
        } else {
            TurnOrders::default()
        };
        let king = state.officer(OfficerId(2)).unwrap().position;
        if turn <= 3 {
            orders
                .officer_moves
                .push(adjutant::rules::iron_brigade::orders::OfficerMove {
                    officer: OfficerId(2),
                    waypoints: vec![Pos::new(king.x + 10.0, king.y)],
                    with_unit: None,
                    double_time: false,
                });
        }
        let out = resolve_turn(&state, &OrderBook::default(), &orders, &mut d).unwrap();
        state = out.state.clone();
        outs.push(out);
        if delivered(&state) {
            break;
        }
    }
    let king = state.officer(OfficerId(2)).unwrap().position;
    assert!(king.x > 20.0, "King moved east: {king:?}");
    assert!(matches!(
        status(&state),
        DispatchStatus::Delivered { turn } if turn >= 5
    ));
}

/// SFRM Table 2 command ability, by level and class, as the engine reads
/// it (brigade: the divisional row less one, docs/rulings-sfrm.md).
const ABILITIES: [(OfficerLevel, CommandClass, u8); 12] = [
    (OfficerLevel::Brigade, CommandClass::Inferior, 1),
    (OfficerLevel::Brigade, CommandClass::Regular, 1),
    (OfficerLevel::Brigade, CommandClass::Superior, 2),
    (OfficerLevel::Division, CommandClass::Inferior, 1),
    (OfficerLevel::Division, CommandClass::Regular, 2),
    (OfficerLevel::Division, CommandClass::Superior, 3),
    (OfficerLevel::Corps, CommandClass::Inferior, 2),
    (OfficerLevel::Corps, CommandClass::Regular, 3),
    (OfficerLevel::Corps, CommandClass::Superior, 4),
    (OfficerLevel::Army, CommandClass::Inferior, 3),
    (OfficerLevel::Army, CommandClass::Regular, 4),
    (OfficerLevel::Army, CommandClass::Superior, 5),
];

/// Turn 1: the dispatch is written at McDowell and delivered at once to the
/// recipient standing beside him. Turn 2: one read roll with `die`.
fn read_with(level: OfficerLevel, class: CommandClass, die: u8) -> TurnOutcome {
    let mut b = field();
    b.officers[1].position = Pos::new(0.0, 0.5);
    b.officers[1].level = level;
    b.officers[1].command_class = class;
    // At SFRM's own turn length the read roll comes every turn (at Iron
    // Brigade's 2.5 minutes, every 12th: docs/rulings-sfrm.md).
    b.scale = Some(Scale::SFRM);
    let mut d = dice(&[die]);
    let one = resolve_turn(&b, &OrderBook::default(), &letter(1, 2, SECRET), &mut d).unwrap();
    assert_eq!(status(&one.state), DispatchStatus::Delivered { turn: 1 });
    let two = resolve_turn(
        &one.state,
        &OrderBook::default(),
        &TurnOrders::default(),
        &mut d,
    )
    .unwrap();
    assert_eq!(d.remaining(), 0, "exactly one die: the read roll");
    let log = d.log();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].purpose.kind, RollKind::SfrmRead);
    assert!(log[0].purpose.note.contains("read roll, dispatch 1"));
    two
}

#[test]
fn read_roll_for_every_command_ability() {
    for (level, class, ability) in ABILITIES {
        let read = read_with(level, class, ability);
        assert_eq!(
            status(&read.state),
            DispatchStatus::Read { turn: 2 },
            "{level} {class} reads on {ability}"
        );
        assert!(sfrm(&read).iter().any(|e| matches!(e,
            DispatchEvent::Read { roll, ability: a, text, .. }
                if *roll == ability && *a == ability && text == SECRET)));
        if ability < 6 {
            let not = read_with(level, class, ability + 1);
            assert_eq!(
                status(&not.state),
                DispatchStatus::Delivered { turn: 1 },
                "{level} {class} fails on {}",
                ability + 1
            );
            assert!(sfrm(&not).iter().any(|e| matches!(e,
                DispatchEvent::NotRead { roll, .. } if *roll == ability + 1)));
        }
    }
}

/// A Confederate regiment astride the way from McDowell to King, Jackson
/// 4" behind it.
fn ambush() -> BattleState {
    let mut b = field();
    let mut reb = Unit::infantry(10, "4th Virginia", 1, 20, Pos::new(0.0, 20.0), 180.0);
    reb.commander = Some(OfficerId(3));
    b.units = vec![reb];
    b.officers[2].position = Pos::new(0.0, 24.0);
    b
}

/// The Union player's (McDowell's) report text of `state`, built as the
/// turn processor builds it.
fn union_report(out: &TurnOutcome) -> String {
    let vis = out.visibility.get(&UNION).cloned().unwrap_or_default();
    let mut inputs = ReportInputs::new("ambush", "Blue", datetime!(1862-08-28 18:30));
    inputs.officers = vec![OfficerId(1)];
    inputs.narrative = side_narrative(&out.state, UNION, &out.events, &vis, false);
    inputs.dispatches = report_entries(
        &out.state,
        UNION,
        &[OfficerId(1)],
        &out.events,
        out.state.turn - 1,
        &|t| format!("turn {t}"),
    );
    let view = side_view(&out.state, UNION, &vis, &LastKnown::default(), &inputs).unwrap();
    let r = Reporter::new().unwrap().player(&view).unwrap();
    format!("{}\n{}", r.text, r.html)
}

#[test]
fn table_3_capture_and_the_enemy_reads_the_captured_dispatch() {
    // Turn 1 rides 12". Turn 2 runs into the Virginians at about 18.5":
    // Table 3 2d6 = 1 + 2 = 3, in contact with the enemy and no friends:
    // captured. Jackson is 5" off, so a Confederate rider takes it to him:
    // delivered turn 3. Turn 15, an SFRM turn (12 table turns) later:
    // Jackson (corps regular, ability 3) rolls 3.
    let mut d = dice(&[1, 2, 3]);
    let outs = play(ambush(), letter(1, 2, SECRET), &mut d, 16, |s| {
        matches!(status(s), DispatchStatus::Read { .. })
    });
    assert_eq!(d.remaining(), 0);
    let kinds: Vec<RollKind> = d.log().iter().map(|r| r.purpose.kind).collect();
    assert_eq!(
        kinds,
        vec![
            RollKind::SfrmCasualty,
            RollKind::SfrmCasualty,
            RollKind::SfrmRead
        ]
    );
    assert_eq!(outs.len(), 15);
    let caught = sfrm(&outs[1]);
    assert!(caught.iter().any(|e| matches!(e,
        DispatchEvent::Captured { by_side, from_side, dispatches, turn: 2, .. }
            if *by_side == REBEL && *from_side == UNION && dispatches == &vec![DispatchId(1)])));
    let last = outs.last().unwrap();
    let d1 = &last.state.sfrm.dispatches[&DispatchId(1)];
    assert_eq!(d1.status, DispatchStatus::Read { turn: 15 });
    assert_eq!(d1.holder, Holder::Officer(OfficerId(3)));
    assert_eq!(d1.captured.map(|c| c.by_side), Some(REBEL));

    // The captors are told of the capture; the text reaches their report
    // only once Jackson has read it.
    let rebel = |out: &TurnOutcome| {
        report_entries(
            &out.state,
            REBEL,
            &[OfficerId(3)],
            &out.events,
            out.state.turn - 1,
            &|t| format!("turn {t}"),
        )
    };
    assert!(
        rebel(&outs[2]).is_empty(),
        "delivered to Jackson but unread"
    );
    assert!(rebel(&outs[13]).is_empty(), "still unread on turn 14");
    let read = rebel(&outs[14]);
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].text, SECRET);
    assert!(
        read[0]
            .from
            .contains("a captured enemy dispatch addressed to King")
    );
    let vis = outs[1].visibility.get(&REBEL).cloned().unwrap_or_default();
    assert!(outs[1].events.iter().any(|e| matches!(
        e,
        Event::Sfrm {
            sfrm: DispatchEvent::Captured { .. }
        }
    ) && visible_to(REBEL, e, &vis)));

    // The sender is never told: after turn 1 his report says nothing of
    // the dispatch, and nothing ever of a capture.
    for (i, out) in outs.iter().enumerate() {
        let text = union_report(out);
        assert!(
            !text.to_lowercase().contains("captur"),
            "turn {}: {text}",
            i + 1
        );
        // (What his own eyes see, they see: from McDowell's post the
        // Confederate rider who carries the paper off is in plain view.)
        if i > 0 {
            assert!(!text.contains(SECRET), "turn {}: {text}", i + 1);
            assert!(!text.contains("King"), "turn {}: {text}", i + 1);
        }
        let vis = out.visibility.get(&UNION).cloned().unwrap_or_default();
        assert!(
            out.events.iter().all(|e| !matches!(
                e,
                Event::Sfrm {
                    sfrm: DispatchEvent::Captured { .. }
                        | DispatchEvent::Casualty { .. }
                        | DispatchEvent::Lost { .. }
                }
            ) || !visible_to(UNION, e, &vis)),
            "turn {}",
            i + 1
        );
    }
    // Turn 1's report tells him only that he wrote it and a rider has it.
    let first = union_report(&outs[0]);
    assert!(first.contains("written to King on turn 1"), "{first}");
}

#[test]
fn table_3_death_ends_the_ride_and_the_sender_is_not_told() {
    // 2d6 = 6 + 6 = 12: killed outright. The dispatch is lost with him.
    let mut d = dice(&[6, 6]);
    let outs = play(ambush(), letter(1, 2, SECRET), &mut d, 4, |_| false);
    assert_eq!(d.remaining(), 0, "no read roll: nobody holds it");
    let two = &outs[1];
    assert!(sfrm(two).iter().any(|e| matches!(e,
        DispatchEvent::Lost { witness: Some(w), dispatches, turn: 2, .. }
            if *w == REBEL && dispatches == &vec![DispatchId(1)])));
    assert_eq!(status(&two.state), DispatchStatus::Lost { turn: 2 });
    assert!(two.state.sfrm.messengers.is_empty());
    for out in &outs[1..] {
        let text = union_report(out);
        assert!(!text.to_lowercase().contains("lost"), "{text}");
        assert!(!text.to_lowercase().contains("killed"), "{text}");
        assert!(!text.contains(SECRET), "{text}");
    }
}

#[test]
fn table_3_wound_lets_the_rider_go_on() {
    // 2d6 = 4 + 5 = 9 (arm wound): he stays in play and rides on past the
    // Virginians to King.
    let mut d = dice(&[4, 5]);
    let outs = play(ambush(), letter(1, 2, SECRET), &mut d, 8, delivered);
    assert!(matches!(
        status(&outs.last().unwrap().state),
        DispatchStatus::Delivered { .. }
    ));
}

#[test]
fn a_dispatch_from_a_general_off_the_field_is_not_sent_and_he_is_told_why() {
    let mut b = field();
    b.officers[0].status = adjutant::rules::iron_brigade::state::OfficerStatus::Killed;
    let out = resolve_turn(
        &b,
        &OrderBook::default(),
        &letter(1, 2, SECRET),
        &mut dice(&[]),
    )
    .unwrap();
    assert!(out.state.sfrm.dispatches.is_empty());
    assert!(sfrm(&out).iter().any(|e| matches!(e,
        DispatchEvent::NotSent { side, .. } if *side == UNION)));
}

/// Courier orders (scenario option): McDowell orders his regiment 40"
/// away to face east. Beyond 24", so a messenger carries it: 12" a turn,
/// within 1" of the regiment's footprint in the 4th turn, in force from
/// the 5th — instead of APSoF I.C.1's "two turns later" (turn 3).
#[test]
fn courier_orders_arrive_by_messenger_and_take_effect_the_turn_after() {
    use adjutant::rules::iron_brigade::orders::{Action, Direction, Step, Trigger, UnitOrder};
    let mut b = field();
    b.options.courier_orders = true;
    let mut reg = Unit::infantry(10, "2nd Wisconsin", 0, 20, Pos::new(0.0, 40.0), 0.0);
    reg.commander = Some(OfficerId(1));
    b.units = vec![reg];
    let order = UnitOrder {
        id: 7,
        unit: adjutant::rules::iron_brigade::state::UnitId(10),
        issued_by: OfficerId(1),
        issued_turn: 1,
        follows_previous: false,
        steps: vec![Step {
            trigger: Trigger::Then,
            action: Action::Face(Direction::Degrees(90.0)),
        }],
    };
    let first = TurnOrders {
        unit_orders: vec![order],
        ..TurnOrders::default()
    };
    let mut d = dice(&[]);
    let outs = play(b, first, &mut d, 6, |s| {
        s.unit(adjutant::rules::iron_brigade::state::UnitId(10))
            .unwrap()
            .facing
            == 90.0
    });
    // Turn 1: no booking, a courier leaves.
    assert!(
        !outs[0]
            .events
            .iter()
            .any(|e| matches!(e, Event::OrderBooked { .. }))
    );
    assert!(
        sfrm(&outs[0])
            .iter()
            .any(|e| matches!(e, DispatchEvent::OrderSent { order: 7, .. }))
    );
    // He arrives in turn 4; the order is booked from turn 5 and obeyed then.
    let arrived = outs
        .iter()
        .position(|o| {
            sfrm(o)
                .iter()
                .any(|e| matches!(e, DispatchEvent::OrderArrived { order: 7, .. }))
        })
        .unwrap();
    assert_eq!(arrived + 1, 4, "arrives in turn 4");
    assert!(outs[3].events.iter().any(|e| matches!(
        e,
        Event::OrderBooked {
            order: 7,
            effective_turn: 5,
            ..
        }
    )));
    assert_eq!(outs.len(), 5, "faces east in turn 5");
    assert!(d.log().is_empty(), "no die: no enemy met, no read roll");
}

/// Without the option the same order waits APSoF I.C.1's two turns.
#[test]
fn without_courier_orders_the_apsof_delay_stands() {
    use adjutant::rules::iron_brigade::orders::{Action, Direction, Step, Trigger, UnitOrder};
    let mut b = field();
    let mut reg = Unit::infantry(10, "2nd Wisconsin", 0, 20, Pos::new(0.0, 40.0), 0.0);
    reg.commander = Some(OfficerId(1));
    b.units = vec![reg];
    let order = UnitOrder {
        id: 7,
        unit: adjutant::rules::iron_brigade::state::UnitId(10),
        issued_by: OfficerId(1),
        issued_turn: 1,
        follows_previous: false,
        steps: vec![Step {
            trigger: Trigger::Then,
            action: Action::Face(Direction::Degrees(90.0)),
        }],
    };
    let first = TurnOrders {
        unit_orders: vec![order],
        ..TurnOrders::default()
    };
    let out = resolve_turn(&b, &OrderBook::default(), &first, &mut dice(&[])).unwrap();
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::OrderBooked {
            order: 7,
            effective_turn: 3,
            ..
        }
    )));
    assert!(out.state.sfrm.is_empty());
}

/// The exchange of tests/turn.rs `v_h_officer_hit_in_the_line_of_fire_is_
/// replaced_later` (the 3rd Tennessee and the 10th Ohio 6" apart, Colonel
/// Hale in the line of fire, his V.H.2 die a 6), with the scenario option
/// `sfrm-officer-casualties` on: SFRM Table 3 then says what the hit does.
fn exchange() -> BattleState {
    use adjutant::rules::iron_brigade::kinds::Formation;
    use adjutant::rules::iron_brigade::state::{Ranks, UnitId};
    let sc = adjutant::scenario::load(std::path::Path::new("scenarios/training.toml")).unwrap();
    let mut s = adjutant::game::battle_state_from_scenario(&sc);
    s.units.retain(|u| u.id == UnitId(1) || u.id == UnitId(5));
    for u in &mut s.units {
        u.formation = Formation::Line;
        u.formed_ranks = Ranks::Two;
        u.first_fire_done = true;
        u.marks.been_under_fire = true;
    }
    s.unit_mut(UnitId(1)).unwrap().position = Pos::new(24.0, 16.0);
    let r = s.unit_mut(UnitId(5)).unwrap();
    r.position = Pos::new(24.0, 22.0);
    r.facing = 180.0;
    s.options.sfrm_officer_casualties = true;
    s
}

/// The fire dice of that exchange up to and including Hale's V.H.2 die.
const UP_TO_HIT: [u8; 16] = [5, 2, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6, 4, 4, 5, 6];

#[test]
fn sfrm_officer_casualties_a_wound_leaves_the_general_in_command() {
    // Table 3: 4 + 6 = 10, scalp wound: he stays, −1 command range and
    // ability; no replacement is rolled.
    let mut values = UP_TO_HIT.to_vec();
    values.extend([4, 6]);
    let mut d = dice(&values);
    let out = resolve_turn(
        &exchange(),
        &OrderBook::default(),
        &TurnOrders::default(),
        &mut d,
    )
    .unwrap();
    assert_eq!(d.remaining(), 0);
    let hale = out.state.officer(OfficerId(1)).unwrap();
    assert_eq!(
        hale.status,
        adjutant::rules::iron_brigade::state::OfficerStatus::Active
    );
    assert!(out.state.replacements.is_empty());
    assert_eq!(out.state.sfrm.penalties[&OfficerId(1)].command_ability, 1);
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::OfficerCasualty {
            roll: 10,
            removed: false,
            captured_by: None,
            ..
        }
    )));
    let kinds: Vec<RollKind> = d
        .log()
        .iter()
        .rev()
        .take(2)
        .map(|r| r.purpose.kind)
        .collect();
    assert_eq!(kinds, vec![RollKind::SfrmCasualty, RollKind::SfrmCasualty]);
    // His own side reads the die; the enemy who saw it only what befell him.
    let told = |side: SideId| {
        let vis = out.visibility.get(&side).cloned().unwrap_or_default();
        side_narrative(&out.state, side, &out.events, &vis, false).join("\n")
    };
    let union = told(UNION);
    // With both dice of the 2d6 (issue #14).
    assert!(
        union.contains("grazed on the scalp but keeps command (SFRM Table 3: 2d6 ")
            && union.contains(" = 10)."),
        "{union}"
    );
    let rebel = told(REBEL);
    assert!(rebel.contains("grazed on the scalp"), "{rebel}");
    assert!(!rebel.contains("Table 3"), "{rebel}");
}

#[test]
fn sfrm_officer_casualties_twelve_kills_and_v_h_3_replaces_him() {
    // Table 3: 6 + 6 = 12, killed outright; then V.H.3 as before: delay
    // die 3 (one turn late), quality die 1 (a hero).
    let mut values = UP_TO_HIT.to_vec();
    values.extend([6, 6, 3, 1]);
    let mut d = dice(&values);
    let out = resolve_turn(
        &exchange(),
        &OrderBook::default(),
        &TurnOrders::default(),
        &mut d,
    )
    .unwrap();
    assert_eq!(d.remaining(), 0);
    assert_eq!(
        out.state.officer(OfficerId(1)).unwrap().status,
        adjutant::rules::iron_brigade::state::OfficerStatus::Killed
    );
    assert_eq!(out.state.replacements.len(), 1);
    assert_eq!(out.state.replacements[0].arrives_turn, 3);
}

/// SFRM Officer Casualties (iii): a rider standing in the fire zone of an
/// enemy unit that fires this turn, within its range and sight, is fired
/// upon and rolls Table 3. An aide beside the 10th Ohio writes to Colonel
/// Hale; the 3rd Tennessee, firing south at the 10th, has the rider 30°
/// off its front and about 8" away.
#[test]
fn a_rider_in_the_fire_zone_of_a_volley_rolls_table_3() {
    use adjutant::dice::StreamDice;
    let mut s = exchange();
    s.options.sfrm_officer_casualties = false;
    s.officers.push(Officer::brigadier(
        9,
        "Captain Aide",
        0,
        Pos::new(28.0, 15.0),
    ));
    let mut d = StreamDice::new([7u8; 32]);
    let out = resolve_turn(
        &s,
        &OrderBook::default(),
        &letter(9, 1, "Enemy ahead."),
        &mut d,
    )
    .unwrap();
    assert!(out.events.iter().any(|e| matches!(e, Event::Fired { .. })));
    let table3 = d
        .log()
        .iter()
        .filter(|r| r.purpose.kind == RollKind::SfrmCasualty)
        .count();
    assert_eq!(table3, 2, "2d6 on Table 3 for the rider under fire");
    assert!(sfrm(&out).iter().any(|e| matches!(e,
        DispatchEvent::Casualty { witness: Some(w), .. } if *w == REBEL)));
}

/// A courier order taken on the way: the captors' report shows the order
/// (read at once); it is never carried out, and the sender is not told.
#[test]
fn a_captured_courier_order_is_read_by_the_captors_only() {
    use adjutant::rules::iron_brigade::orders::{Action, Direction, Step, Trigger, UnitOrder};
    use adjutant::rules::iron_brigade::state::UnitId;
    let mut b = ambush();
    b.options.courier_orders = true;
    let mut reg = Unit::infantry(11, "2nd Wisconsin", 0, 20, Pos::new(0.0, 40.0), 0.0);
    reg.commander = Some(OfficerId(1));
    b.units.push(reg);
    let order = UnitOrder {
        id: 7,
        unit: UnitId(11),
        issued_by: OfficerId(1),
        issued_turn: 1,
        follows_previous: false,
        steps: vec![Step {
            trigger: Trigger::Then,
            action: Action::Face(Direction::Degrees(90.0)),
        }],
    };
    let first = TurnOrders {
        unit_orders: vec![order],
        ..TurnOrders::default()
    };
    let mut d = dice(&[1, 2]);
    let outs = play(b, first, &mut d, 4, |_| false);
    assert_eq!(d.remaining(), 0);
    let two = &outs[1];
    let rebel = report_entries(&two.state, REBEL, &[OfficerId(3)], &two.events, 2, &|t| {
        format!("turn {t}")
    });
    assert_eq!(rebel.len(), 1, "{rebel:?}");
    assert!(
        rebel[0]
            .from
            .contains("a captured enemy order to 2nd Wisconsin")
    );
    assert!(!rebel[0].text.is_empty());
    for out in &outs {
        assert!(
            !out.events
                .iter()
                .any(|e| matches!(e, Event::OrderBooked { order: 7, .. }))
        );
        let text = union_report(out);
        assert!(!text.to_lowercase().contains("captur"), "{text}");
    }
    assert_eq!(
        outs.last().unwrap().state.unit(UnitId(11)).unwrap().facing,
        0.0
    );
}

/// A Confederate regiment in line at (0, 6) facing south, its near edge at
/// about y 5.5; General McDowell at the origin, or already at (0, 5.3), in
/// contact with it.
fn contacted_alone(start_in_contact: bool) -> BattleState {
    let mut s = field();
    s.options.sfrm_officer_casualties = true;
    s.units.push(Unit::infantry(
        7,
        "5th Alabama",
        1,
        16,
        Pos::new(0.0, 6.0),
        180.0,
    ));
    if start_in_contact {
        s.officer_mut(OfficerId(1)).unwrap().position = Pos::new(0.0, 5.3);
    }
    s
}

fn ride_to_the_enemy() -> TurnOrders {
    TurnOrders {
        officer_moves: vec![adjutant::rules::iron_brigade::orders::OfficerMove {
            officer: OfficerId(1),
            waypoints: vec![Pos::new(0.0, 5.3)],
            with_unit: None,
            double_time: false,
        }],
        ..Default::default()
    }
}

fn casualty(out: &TurnOutcome) -> Option<(u8, bool, Option<SideId>)> {
    out.events.iter().find_map(|e| match e {
        Event::OfficerCasualty {
            roll,
            removed,
            captured_by,
            ..
        } => Some((*roll, *removed, *captured_by)),
        _ => None,
    })
}

/// SFRM Officer Casualties (ii), option `sfrm-officer-casualties`: General
/// McDowell rides alone up to the regiment and halts at (0, 5.3): in
/// contact with the enemy and with no friendly unit. He rolls Table 3 at
/// once: 3 + 3 = 6 ("another staff officer is injured nearby", no effect)
/// — but 2–6 in contact with the enemy and not with friends is capture.
/// APSoF V.H.3 then replaces him: delay die 3 (a turn late), quality die 1.
#[test]
fn sfrm_officer_casualties_ii_a_general_contacted_alone_rolls_and_is_taken() {
    let mut d = dice(&[3, 3, 3, 1]);
    let out = resolve_turn(
        &contacted_alone(false),
        &OrderBook::default(),
        &ride_to_the_enemy(),
        &mut d,
    )
    .unwrap();
    assert_eq!(d.remaining(), 0, "Table 3's 2d6, then V.H.3's two dice");
    assert_eq!(casualty(&out), Some((6, true, Some(REBEL))));
    assert_ne!(
        out.state.officer(OfficerId(1)).unwrap().status,
        adjutant::rules::iron_brigade::state::OfficerStatus::Active
    );
    assert_eq!(out.state.replacements.len(), 1);
    assert_eq!(out.state.replacements[0].arrives_turn, 3);
    // His own side is told when the replacement comes; the enemy is not.
    let due = out
        .events
        .iter()
        .find(|e| matches!(e, Event::OfficerReplacementDue { .. }))
        .expect("the replacement is announced");
    assert!(due.is_private());
}

/// Already in contact when the turn began: no fresh contact, no roll (a
/// general left beside an enemy does not roll every turn).
#[test]
fn sfrm_officer_casualties_ii_only_a_fresh_contact_rolls() {
    let mut d = dice(&[]);
    let out = resolve_turn(
        &contacted_alone(true),
        &OrderBook::default(),
        &TurnOrders::default(),
        &mut d,
    )
    .unwrap();
    assert_eq!(casualty(&out), None);
}

/// With a friendly regiment beside him he is "attached": no roll. And
/// without the option, nothing either.
#[test]
fn sfrm_officer_casualties_ii_not_when_with_friends_or_off() {
    let mut s = contacted_alone(false);
    s.units.push(Unit::infantry(
        8,
        "2nd Wisconsin",
        0,
        16,
        Pos::new(0.0, 4.6),
        0.0,
    ));
    // The regiments may exchange fire at point blank; only Table 3 is
    // checked here, so stream dice stand in for the fire.
    let mut d = adjutant::dice::StreamDice::new([3u8; 32]);
    let out = resolve_turn(&s, &OrderBook::default(), &ride_to_the_enemy(), &mut d).unwrap();
    assert!(
        !d.log()
            .iter()
            .any(|r| r.purpose.kind == RollKind::SfrmCasualty),
        "no Table 3 with friends beside him"
    );
    assert_eq!(casualty(&out), None);

    let mut off = contacted_alone(false);
    off.options.sfrm_officer_casualties = false;
    let mut d = dice(&[]);
    let out = resolve_turn(&off, &OrderBook::default(), &ride_to_the_enemy(), &mut d).unwrap();
    assert_eq!(casualty(&out), None);
}

/// SFRM "Officer Casualties": "general and messenger elements that remain
/// in play may also make an immediate rout move"; "Rout Moves": no closer
/// to the enemy, at least 4". General McDowell rides alone into the 5th
/// Alabama and rolls 4 + 4 = 8 (a private hit nearby): he stays in command
/// and is not taken (8 is above 6). Still alone in contact with the enemy,
/// he makes the rout move at once: straight away from the regiment (no
/// friends on the field), SFRM's 4" = 400 yards capped at one turn's ride,
/// 12" at Iron Brigade scale; he ends out of contact, farther from the
/// enemy, and his own side is told why he rode.
#[test]
fn sfrm_table_3_a_general_left_in_play_makes_the_rout_move() {
    let mut d = dice(&[4, 4]);
    let out = resolve_turn(
        &contacted_alone(false),
        &OrderBook::default(),
        &ride_to_the_enemy(),
        &mut d,
    )
    .unwrap();
    assert_eq!(d.remaining(), 0);
    assert_eq!(casualty(&out), Some((8, false, None)));
    let o = out.state.officer(OfficerId(1)).unwrap();
    assert_eq!(
        o.status,
        adjutant::rules::iron_brigade::state::OfficerStatus::Active
    );
    let rode = out.events.iter().find_map(|e| match e {
        Event::OfficerMoved { note, from, to, .. } if note.contains("rout move") => {
            Some((*from, *to))
        }
        _ => None,
    });
    let (from, to) = rode.expect("the rout move is an event");
    // He halted on touching the regiment's front (about y 5), then rode
    // 12" straight back.
    assert!((from.y - 5.0).abs() < 0.1, "{from:?}");
    assert!(
        (to.x - 0.0).abs() < 1e-9 && (to.y - (from.y - 12.0)).abs() < 1e-6,
        "{to:?}"
    );
    assert_eq!(o.position, to);
    let told = union_report(&out);
    assert!(told.contains("rout move after SFRM Table 3"), "{told}");
}
