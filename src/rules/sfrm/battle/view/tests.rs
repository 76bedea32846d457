//! Fog probes for what a side sees, on a small First Bull Run: the Union
//! sees Evans's Brigade in the open; the 33rd Virginia Brigade stands
//! behind 6" of woods and Hampton's Legion on the reverse slope of Henry
//! Hill, so neither may be named, counted or placed in the Union's view.

use super::*;
use crate::dice::StreamDice;
use crate::rules::sfrm::battle::nouns::{
    Area, Arm, DayRecord, General, Gun, Quality, Rank, Road, Season, SmallArm, Weather,
};
use crate::rules::sfrm::battle::orders::{Term, TurnOrders};
use crate::rules::sfrm::battle::tables::GreenResult;
use crate::rules::sfrm::battle::turn::resolve_turn;

pub(crate) fn brigade(id: u32, name: &str, side: Side, pos: Pos, facing: f64, div: u32) -> Unit {
    Unit {
        id: UnitId(id),
        name: name.into(),
        side,
        arm: Arm::Infantry {
            weapon: SmallArm::Rifles,
        },
        elements: 6,
        front_rank: 6,
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
        division: Some(GeneralId(div)),
        day: DayRecord::default(),
    }
}

pub(crate) fn general(
    id: u32,
    name: &str,
    side: Side,
    rank: Rank,
    pos: Pos,
    superior: Option<u32>,
) -> General {
    General {
        id: GeneralId(id),
        name: name.into(),
        side,
        rank,
        quality: Quality::Regular,
        penalty: Default::default(),
        pos,
        attached_to: None,
        superior: superior.map(GeneralId),
        removed: false,
        role: None,
        replaced: false,
    }
}

/// The battle the probes are played on (positions in SFRM inches).
pub(crate) fn bull_run() -> SfrmBattle {
    let mut battery = brigade(
        4,
        "Ricketts's Battery",
        Side::Union,
        Pos::new(3.0, -2.0),
        0.0,
        1,
    );
    battery.arm = Arm::Artillery {
        gun: Gun::TenPounderRifled,
    };
    battery.elements = 1;
    battery.front_rank = 1;
    let mut cocke = general(
        12,
        "Cocke",
        Side::Confederate,
        Rank::Division,
        Pos::new(0.0, 10.0),
        Some(10),
    );
    cocke.attached_to = Some(UnitId(10));
    SfrmBattle {
        turn: 0,
        start_minute: 10 * 60,
        season: Season::Summer,
        weather: Weather::Clear,
        attacker: Side::Union,
        units: vec![
            brigade(
                1,
                "Sherman's Brigade",
                Side::Union,
                Pos::new(0.0, 0.0),
                0.0,
                1,
            ),
            brigade(
                2,
                "Keyes's Brigade",
                Side::Union,
                Pos::new(6.0, 0.0),
                0.0,
                1,
            ),
            brigade(
                3,
                "Porter's Brigade",
                Side::Union,
                Pos::new(-10.0, 0.0),
                0.0,
                2,
            ),
            battery,
            brigade(
                10,
                "Evans's Brigade",
                Side::Confederate,
                Pos::new(0.0, 10.0),
                180.0,
                12,
            ),
            brigade(
                11,
                "33rd Virginia Brigade",
                Side::Confederate,
                Pos::new(0.0, 25.0),
                180.0,
                11,
            ),
            brigade(
                12,
                "Hampton's Legion",
                Side::Confederate,
                Pos::new(35.0, 0.0),
                270.0,
                12,
            ),
        ],
        generals: vec![
            general(
                1,
                "Tyler",
                Side::Union,
                Rank::Division,
                Pos::new(3.0, -1.0),
                Some(3),
            ),
            general(
                2,
                "Hunter",
                Side::Union,
                Rank::Division,
                Pos::new(-10.0, -1.0),
                Some(3),
            ),
            general(
                3,
                "McDowell",
                Side::Union,
                Rank::Army,
                Pos::new(0.0, -5.0),
                None,
            ),
            general(
                10,
                "Beauregard",
                Side::Confederate,
                Rank::Army,
                Pos::new(0.0, 40.0),
                None,
            ),
            general(
                11,
                "Jackson",
                Side::Confederate,
                Rank::Division,
                Pos::new(0.0, 26.0),
                Some(10),
            ),
            cocke,
        ],
        ground: vec![
            Area {
                ground: Ground::Woods,
                min: Pos::new(-5.0, 12.0),
                max: Pos::new(5.0, 18.0),
            },
            Area {
                ground: Ground::Hill { level: 1 },
                min: Pos::new(15.0, -5.0),
                max: Pos::new(50.0, 5.0),
            },
        ],
        contacts: vec![],
        roads: vec![Road {
            name: "Warrenton Turnpike".into(),
            points: vec![Pos::new(-30.0, 5.0), Pos::new(60.0, 5.0)],
        }],
        supply_sources: vec![],
        table: None,
    }
}

/// Words that would give the hidden Confederates away.
const HIDDEN: &[&str] = &[
    "33rd Virginia",
    "Hampton",
    "Jackson",
    "Beauregard",
    "(0.0, 25.0)",
    "(35.0, 0.0)",
    "(0.0, 26.0)",
    "(0.0, 40.0)",
];

fn assert_fogged(v: &SideView) {
    for w in HIDDEN {
        assert!(
            !v.narrative.contains(w),
            "narrative gives away {w}:\n{}",
            v.narrative
        );
        for e in &v.events {
            assert!(!e.text.contains(w), "event gives away {w}: {}", e.text);
        }
    }
    for e in &v.events {
        if let Some(ev) = &e.event {
            let (units, generals) = named(ev);
            assert!(
                !units.contains(&UnitId(11)) && !units.contains(&UnitId(12)),
                "{ev:?}"
            );
            assert!(!generals.contains(&GeneralId(10)) && !generals.contains(&GeneralId(11)));
        }
    }
    assert!(
        v.enemy_units
            .iter()
            .all(|e| e.id != UnitId(11) && e.id != UnitId(12))
    );
    assert!(
        v.enemy_generals
            .iter()
            .all(|g| g.id != GeneralId(10) && g.id != GeneralId(11))
    );
}

#[test]
fn sfrm_sight_woods_and_reverse_slope_hide_the_enemy() {
    let b = bull_run();
    // Evans in the open at 10"; the 33rd Virginia behind 6" of woods (more
    // than 2" into cover); Hampton on the reverse slope: 35" from Sherman,
    // less than twice the 20" from Hampton to the hill's edge.
    assert_eq!(
        seen_enemy_units(&b, Side::Union),
        BTreeSet::from([UnitId(10)])
    );
    // Cocke rides with Evans; Jackson and Beauregard are behind the woods.
    assert_eq!(
        seen_enemy_generals(&b, Side::Union),
        BTreeSet::from([GeneralId(12)])
    );
    // A lower eye farther off than twice the edge distance sees up the
    // slope ("and vice versa"), if within 36".
    assert!(!sees(&b, Pos::new(-6.0, 0.0), Pos::new(35.0, 0.0))); // 41" > 36"
    assert!(!sees(&b, Pos::new(-4.0, 0.0), Pos::new(35.0, 0.0))); // 39" < 40"
    let mut far = b.clone();
    far.ground[1].max.x = 36.0;
    far.ground[1].min.x = 30.0;
    // Edge 5" from Hampton: 35" >= 10", seen.
    assert!(sees(&far, Pos::new(0.0, 0.0), Pos::new(35.0, 0.0)));
    // 2" of woods is within the reach of sight into cover.
    assert!(sees(&b, Pos::new(0.0, 0.0), Pos::new(0.0, 14.0)));
    assert!(!sees(&b, Pos::new(0.0, 0.0), Pos::new(0.0, 14.5)));
}

#[test]
fn sfrm_sight_is_halved_by_rain_and_night() {
    let mut b = bull_run();
    b.units[4].pos = Pos::new(-20.0, 20.0); // Evans 28.3" from Sherman, in the open
    assert!(seen_enemy_units(&b, Side::Union).contains(&UnitId(10)));
    b.weather = Weather::Rain; // 18"
    assert!(!seen_enemy_units(&b, Side::Union).contains(&UnitId(10)));
    b.weather = Weather::Clear;
    b.start_minute = 23 * 60; // night: 18"
    b.turn = 1;
    assert_eq!(sight_range(&b), 18.0);
    assert!(!seen_enemy_units(&b, Side::Union).contains(&UnitId(10)));
}

#[test]
fn sfrm_contact_is_always_seen() {
    let mut b = bull_run();
    b.contacts.push(crate::rules::sfrm::battle::nouns::Contact {
        a: UnitId(11),
        b: UnitId(1),
        from_bearing: 0.0,
    });
    assert!(seen_enemy_units(&b, Side::Union).contains(&UnitId(11)));
}

fn fire(firer: u32, target: u32, casualties: u32, left: u32) -> SfrmEvent {
    SfrmEvent::Fired {
        firer: UnitId(firer),
        target: UnitId(target),
        range: 10.0,
        terms: vec![Term::new(
            "6 elements x 2 (rifled muskets at 10.0\")",
            12,
            "SFRM Table 6",
        )],
        total: 12,
        definite: 2,
        remainder: 0,
        roll: None,
        casualties,
        elements_left: left,
        section: "SFRM Combat".into(),
    }
}

/// A turn's events with the hidden enemy busy everywhere.
fn busy_turn() -> Vec<SfrmEvent> {
    vec![
        SfrmEvent::PhaseBegins {
            turn: 1,
            side: Side::Confederate,
            minute: 600,
            light: Light::Day,
            section: "SFRM Turn Order".into(),
        },
        SfrmEvent::CommandRoll {
            general: GeneralId(11),
            ability: 2,
            roll: 1,
            commands: true,
            section: "SFRM Command".into(),
        },
        SfrmEvent::Command {
            unit: UnitId(11),
            in_command: true,
            by: Some(GeneralId(11)),
            section: "SFRM Command".into(),
        },
        SfrmEvent::Moved {
            unit: UnitId(11),
            from: Pos::new(0.0, 30.0),
            to: Pos::new(0.0, 25.0),
            cost: 5.0,
            allowance: 8.0,
            stopped: None,
            working: vec![],
            section: "SFRM Movement".into(),
        },
        SfrmEvent::GreenTested {
            unit: UnitId(12),
            dice: [3, 4],
            result: GreenResult::Becomes {
                quality: Quality::Regular,
            },
            section: "SFRM Table 5".into(),
        },
        SfrmEvent::OrderRefused {
            side: Side::Confederate,
            index: 0,
            reason: "Hampton's Legion cannot reach {unit 1}".into(),
            section: "SFRM Movement".into(),
        },
        SfrmEvent::OrderRefused {
            side: Side::Union,
            index: 2,
            // As the engine writes it: the enemy by id.
            reason: "Keyes's Brigade would end closer than 1.0\" to {unit 12} (SFRM Movement)"
                .into(),
            section: "SFRM Movement".into(),
        },
        fire(10, 1, 1, 5),
        fire(1, 10, 2, 4),
        SfrmEvent::Routed {
            unit: UnitId(11),
            reason: "2 casualties".into(),
            section: "SFRM Morale, Routing, Casualties & Dispersal".into(),
        },
        SfrmEvent::ArmyMorale {
            side: Side::Confederate,
            broken_units: 1,
            command_ability_sum: 9,
            fails: false,
            section: "SFRM Army Morale".into(),
        },
        SfrmEvent::OfficerCasualty {
            general: GeneralId(10),
            dice: [6, 6],
            casualty: crate::rules::sfrm::table3::table3(12).unwrap(),
            captured: false,
            section: "SFRM Table 3".into(),
        },
    ]
}

#[test]
fn sfrm_view_never_names_counts_or_places_a_hidden_enemy() {
    let mut b = bull_run();
    b.turn = 1;
    let v = side_view(&b, &busy_turn(), Side::Union, &EnemyNaming::known());
    assert_fogged(&v);
    assert_eq!(v.enemy_units.len(), 1);
    assert_eq!(v.enemy_units[0].called, "Evans's Brigade");
    // The enemy's strengths are not shown: Evans's elements left after our
    // fire, the working of his fire on us.
    assert!(!v.narrative.contains("4 left"), "{}", v.narrative);
    assert!(
        v.narrative
            .contains("Evans's Brigade fires on Sherman's Brigade: 1 element lost, 5 left"),
        "{}",
        v.narrative
    );
    // Our own fire keeps its working.
    assert!(
        v.narrative.contains(
            "Sherman's Brigade fires at Evans's Brigade at 10.0\": 6 elements x 2 (rifled muskets at 10.0\") +12 = 12"
        ),
        "{}",
        v.narrative
    );
    // Our refusal keeps its reason, the hidden enemy in it unnamed.
    assert!(
        v.narrative
            .contains("Keyes's Brigade would end closer than 1.0\" to the enemy"),
        "{}",
        v.narrative
    );
    // The enemy's command rolls, army morale, refusals are not ours.
    assert!(!v.narrative.contains("Confederate army morale"));
    assert!(!v.narrative.contains("Order 1 refused"));
    // Our own units fully.
    assert!(
        v.narrative
            .contains("- Sherman's Brigade: 6 elements in line at (0.0, 0.0) facing 0°")
    );
    assert_eq!(v.own_units.len(), 4);
}

#[test]
fn sfrm_view_of_a_played_turn_keeps_the_fog_for_both_sides() {
    let b = bull_run();
    let mut dice = StreamDice::new([7; 32]);
    let (after, ev) = resolve_turn(&b, &TurnOrders::default(), &mut dice).unwrap();
    let v = side_view(&after, &ev, Side::Union, &EnemyNaming::default());
    assert_fogged(&v);
    // Hidden identities: the seen enemy by his kind, never his name.
    assert!(!v.narrative.contains("Evans"), "{}", v.narrative);
    assert!(!v.narrative.contains("Cocke"), "{}", v.narrative);
    assert!(v.narrative.contains("An enemy infantry brigade in line"));
    // The Confederates see all four Union units, and none of the
    // Union's command rolls.
    let c = side_view(&after, &ev, Side::Confederate, &EnemyNaming::known());
    assert_eq!(c.enemy_units.len(), 4);
    assert!(!c.narrative.contains("Tyler rolls"), "{}", c.narrative);
    assert!(c.events.iter().all(|e| match &e.event {
        Some(SfrmEvent::CommandRoll { general, .. }) => general.0 >= 10,
        _ => true,
    }));
}

#[test]
fn sfrm_view_designations_under_hidden_identities() {
    let mut b = bull_run();
    b.turn = 1;
    let naming = EnemyNaming {
        known: false,
        designations: BTreeMap::from([(UnitId(10), "A".to_string())]),
    };
    let v = side_view(&b, &busy_turn(), Side::Union, &naming);
    assert_fogged(&v);
    assert!(!v.narrative.contains("Evans"), "{}", v.narrative);
    assert!(!v.narrative.contains("Cocke"), "{}", v.narrative);
    assert!(
        v.narrative
            .contains("Enemy infantry brigade A in line at (0.0, 10.0) facing 180°"),
        "{}",
        v.narrative
    );
    assert!(
        v.narrative
            .contains("An enemy general with enemy infantry brigade A")
    );
}

#[test]
fn sfrm_view_an_enemy_that_fired_from_hiding_is_met_but_not_placed() {
    let mut b = bull_run();
    b.turn = 1;
    let ev = vec![fire(11, 1, 1, 5)];
    let v = side_view(&b, &ev, Side::Union, &EnemyNaming::known());
    assert!(
        v.narrative
            .contains("33rd Virginia Brigade fires on Sherman's Brigade")
    );
    assert!(!v.narrative.contains("(0.0, 25.0)"));
    assert!(v.enemy_units.iter().all(|e| e.id != UnitId(11)));
}

#[test]
fn sfrm_umpire_view_shows_everything() {
    let mut b = bull_run();
    b.turn = 1;
    let u = umpire_view(&b, &busy_turn());
    for w in [
        "33rd Virginia",
        "Hampton",
        "Jackson",
        "Beauregard",
        "4 left",
    ] {
        assert!(u.narrative.contains(w), "{w}: {}", u.narrative);
    }
    assert_eq!(u.events.len(), busy_turn().len());
    assert_eq!(u.battle.units.len(), 7);
}

#[test]
fn sfrm_view_a_general_fired_on_meets_the_firer_and_an_unseen_general_is_never_named() {
    let mut b = bull_run();
    b.turn = 1;
    let ev = vec![
        SfrmEvent::FiredAtGeneral {
            firer: UnitId(12),
            general: GeneralId(1),
            range: 30.0,
            terms: vec![],
            total: 3,
            definite: 0,
            remainder: 3,
            roll: Some(5),
            casualties: 0,
            section: "SFRM Combat".into(),
        },
        SfrmEvent::FiredAtGeneral {
            firer: UnitId(1),
            general: GeneralId(11),
            range: 26.0,
            terms: vec![],
            total: 3,
            definite: 0,
            remainder: 3,
            roll: Some(5),
            casualties: 0,
            section: "SFRM Combat".into(),
        },
    ];
    let v = side_view(&b, &ev, Side::Union, &EnemyNaming::known());
    // Hampton fired on Tyler: he is met, so named in the event ...
    assert!(
        v.narrative
            .contains("Hampton's Legion fires on General Tyler"),
        "{}",
        v.narrative
    );
    // ... but not placed; and Jackson, unseen, is not named though
    // identities are known.
    assert!(!v.narrative.contains("(35.0, 0.0)"));
    assert!(!v.narrative.contains("Jackson"), "{}", v.narrative);
    assert!(
        v.narrative.contains("fires at an enemy general"),
        "{}",
        v.narrative
    );
}

/// The engine's own refusal names the enemy by id, never by name: the
/// Union's charge at Hampton's Legion (hidden on the reverse slope, too
/// far to reach) is refused in the Union's words as "the enemy", under
/// known identities too, with the raw event kept back; the umpire reads
/// Hampton's real name. A seen enemy is called what the side calls him.
#[test]
fn sfrm_view_engine_refusals_name_the_enemy_by_the_sides_words() {
    let mut b = bull_run();
    b.generals[0].pos = b.units[0].pos;
    b.generals[0].attached_to = Some(UnitId(1));
    let orders = TurnOrders {
        union: vec![crate::rules::sfrm::battle::orders::Order::Charge {
            unit: UnitId(1),
            target: UnitId(12),
        }],
        confederate: vec![],
    };
    let mut dice = StreamDice::new([5; 32]);
    let (after, ev) = resolve_turn(&b, &orders, &mut dice).unwrap();
    let refusal = ev
        .iter()
        .find_map(|e| match e {
            SfrmEvent::OrderRefused { reason, .. } if reason.contains("cannot reach") => {
                Some(reason.clone())
            }
            _ => None,
        })
        .expect("the charge is refused");
    assert!(!refusal.contains("Hampton"), "{refusal}");
    assert!(refusal.contains("{unit 12}"), "{refusal}");
    for naming in [EnemyNaming::known(), EnemyNaming::default()] {
        let v = side_view(&after, &ev, Side::Union, &naming);
        let seen = v
            .events
            .iter()
            .find(|e| e.text.contains("cannot reach"))
            .expect("the Union is told");
        assert!(
            seen.text
                .contains("Sherman's Brigade cannot reach the enemy:"),
            "{}",
            seen.text
        );
        assert!(seen.event.is_none());
        assert!(!v.narrative.contains("Hampton"), "{}", v.narrative);
    }
    let u = umpire_view(&after, &ev);
    assert!(
        u.narrative
            .contains("Sherman's Brigade cannot reach Hampton's Legion:"),
        "{}",
        u.narrative
    );
    // A seen enemy in the engine's words: Evans, by the side's name for him.
    let text = "Keyes's Brigade would end closer than 1.0\" to {unit 10} (SFRM Movement)";
    let events = vec![SfrmEvent::OrderRefused {
        side: Side::Union,
        index: 0,
        reason: text.into(),
        section: "SFRM Movement".into(),
    }];
    let v = side_view(&b, &events, Side::Union, &EnemyNaming::default());
    assert!(
        v.events[0].text.contains("to an enemy infantry brigade"),
        "{}",
        v.events[0].text
    );
    let v = side_view(&b, &events, Side::Union, &EnemyNaming::known());
    assert!(v.events[0].text.contains("to Evans's Brigade"));
}

/// A side's command and supply checks (one event per unit per phase) are
/// told as one line each, who is in and who is out, not a line per unit
/// (found playing First Bull Run by mail: forty lines a turn).
#[test]
fn sfrm_view_groups_command_and_supply_checks() {
    let mut b = bull_run();
    b.turn = 1;
    let own: Vec<UnitId> = b.units_of(Side::Union).map(|u| u.id).take(3).collect();
    let mut events = Vec::new();
    for (k, id) in own.iter().enumerate() {
        events.push(SfrmEvent::Command {
            unit: *id,
            in_command: k == 0,
            by: None,
            section: "SFRM Command (i)".into(),
        });
    }
    for (k, id) in own.iter().enumerate() {
        events.push(SfrmEvent::Supply {
            unit: *id,
            in_supply: k != 1,
            markers: 0,
            section: "SFRM Supply".into(),
        });
    }
    let v = side_view(&b, &events, Side::Union, &EnemyNaming::known());
    let name = |id: UnitId| b.unit(id).unwrap().name.clone();
    assert_eq!(
        v.narrative.matches("- Command (SFRM Command (i))").count(),
        1,
        "{}",
        v.narrative
    );
    assert_eq!(
        v.narrative.matches("- Supply (SFRM Supply").count(),
        1,
        "{}",
        v.narrative
    );
    assert!(
        v.narrative.contains(&format!(
            "out of command: {}, {}.",
            name(own[1]),
            name(own[2])
        )),
        "{}",
        v.narrative
    );
    assert!(
        v.narrative
            .contains(&format!("out of supply: {}.", name(own[1]))),
        "{}",
        v.narrative
    );
    assert!(
        !v.narrative.contains("is out of command ("),
        "{}",
        v.narrative
    );
}
