//! Playing small SFRM situations through [`resolve_turn`], each result
//! worked by hand from the rule text (the arithmetic is in the comments).

use super::*;
use crate::dice::ScriptedDice;
use crate::rules::sfrm::table3::CasualtyResult;
use tables::{GreenResult, Light};

fn infantry(id: u32, name: &str, side: Side, elements: u32, pos: Pos, facing: f64) -> Unit {
    Unit {
        id: UnitId(id),
        name: name.into(),
        side,
        arm: Arm::Infantry {
            weapon: SmallArm::Rifles,
        },
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
        day: Default::default(),
    }
}

fn general(id: u32, name: &str, side: Side, pos: Pos) -> General {
    General {
        id: GeneralId(id),
        name: name.into(),
        side,
        rank: Rank::Division,
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

/// Two brigades a side on open ground, a summer morning, Union attacking:
/// Union 1st and 2nd Brigades (regular, rifles, 6 and 5 elements, one
/// rank, facing north) under Doubleday (divisional regular, 4" (2) +2);
/// Confederate Baylor's brigade (regular, rifles, 6 elements, facing
/// south) and a 10-pound rifled battalion, under Taliaferro (divisional
/// regular).
fn two_brigades_a_side() -> SfrmBattle {
    let mut guns = infantry(
        4,
        "Poague's battalion",
        Side::Confederate,
        1,
        Pos::new(10.0, 14.0),
        180.0,
    );
    guns.arm = Arm::Artillery {
        gun: Gun::TenPounderRifled,
    };
    guns.front_rank = 1;
    SfrmBattle {
        turn: 0,
        start_minute: 10 * 60,
        season: Season::Summer,
        weather: Weather::Clear,
        attacker: Side::Union,
        units: vec![
            infantry(1, "1st Brigade", Side::Union, 6, Pos::new(0.0, 0.0), 0.0),
            infantry(2, "2nd Brigade", Side::Union, 5, Pos::new(10.0, 0.0), 0.0),
            infantry(
                3,
                "Baylor's brigade",
                Side::Confederate,
                6,
                Pos::new(0.0, 10.0),
                180.0,
            ),
            guns,
        ],
        generals: vec![
            general(1, "Doubleday", Side::Union, Pos::new(0.0, -1.0)),
            general(2, "Taliaferro", Side::Confederate, Pos::new(0.0, 11.0)),
        ],
        ground: vec![],
        contacts: vec![],
        roads: vec![],
        supply_sources: vec![],
        table: None,
    }
}

fn play(b: &SfrmBattle, orders: &TurnOrders, dice: &[u8]) -> (SfrmBattle, Vec<SfrmEvent>) {
    let mut d = ScriptedDice::new(dice.iter().map(|v| i64::from(*v))).unwrap();
    let out = resolve_turn(b, orders, &mut d).unwrap();
    assert_eq!(d.remaining(), 0, "every scripted die used");
    out
}

fn fired(ev: &[SfrmEvent], firer: u32) -> Vec<&SfrmEvent> {
    ev.iter()
        .filter(|e| matches!(e, SfrmEvent::Fired { firer: f, .. } if f.0 == firer))
        .collect()
}

fn close(a: Pos, x: f64, y: f64) -> bool {
    (a.x - x).abs() < 1e-6 && (a.y - y).abs() < 1e-6
}

/// The whole turn of the two-brigade situation, by hand:
///
/// Union phase. Command: Doubleday rolls 2 <= ability 2, commands; 1st
/// Brigade is 1" from him (in range 4"), 2nd Brigade 10.05" (out). 1st
/// Brigade moves 7" straight ahead (line 8", Table 4); 2nd Brigade's
/// order is refused (out of command). Combat: Confederates fire first;
/// Baylor (2" rifles) has nobody within 2"; the guns' 60° arc (150°–210°)
/// holds 2nd Brigade at 14" (bearing 180°): shell, value 2, total 2: no
/// definite casualty, remainder 2, die 3 > 2 misses. Union rifles reach
/// nobody (3" and out of arc).
///
/// Confederate phase. Taliaferro rolls 1 <= 2; rides to Baylor and
/// attaches; Baylor (1" from him before he rides, in command) charges 1st
/// Brigade 3" straight ahead (cost 3 <= 8). Union fire first: 1st Brigade
/// in contact, 6 elements x 1 = 6, no modifier: 6 / 6 = 1 casualty,
/// remainder 0 (no die). Taliaferro is attached to Baylor, which took a
/// casualty: Table 3, 3 + 4 = 7, no effect. 2nd Brigade: Baylor now at
/// (0,7) is 55° off its facing, out of arc. Confederate fire: Baylor, 5
/// elements x 1 = 5, Taliaferro's combat value +2, Confederate infantry
/// +1 = 8: 1 definite, remainder 2, die 2 hits: 2 casualties. The guns at
/// 2nd Brigade again: 2, die 1 hits: 1 casualty. Morale: 1st Brigade lost
/// 2 this phase, regular: routs; its rout move goes 4" toward its friends
/// only if no closer to any enemy — toward 2nd Brigade (bearing 125°) it
/// would close on the guns (12.21" to 11.47"), so it goes 4" straight back
/// from the charge (bearing 180°) to (0,3). 2nd Brigade lost 1 (< 2),
/// Baylor 1 (< 2): they stand. Army morale: neither side has a unit
/// routed or gone >= 2.
#[test]
fn sfrm_turn_order_two_brigades_a_side() {
    let b = two_brigades_a_side();
    let orders = TurnOrders {
        union: vec![
            Order::Move {
                unit: UnitId(1),
                to: Pos::new(0.0, 7.0),
                front_rank: None,
                road: false,
            },
            Order::Move {
                unit: UnitId(2),
                to: Pos::new(10.0, 7.0),
                front_rank: None,
                road: false,
            },
        ],
        confederate: vec![
            Order::Charge {
                unit: UnitId(3),
                target: UnitId(1),
            },
            Order::Attach {
                general: GeneralId(2),
                unit: Some(UnitId(3)),
            },
        ],
    };
    let (after, ev) = play(&b, &orders, &[2, 3, 1, 3, 4, 2, 1]);

    // Phases in the rules' order, attacker first.
    let phases: Vec<Side> = ev
        .iter()
        .filter_map(|e| match e {
            SfrmEvent::PhaseBegins { side, light, .. } => {
                assert_eq!(*light, Light::Day);
                Some(*side)
            }
            _ => None,
        })
        .collect();
    assert_eq!(phases, [Side::Union, Side::Confederate]);

    // Command.
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::Command { unit, in_command: true, by: Some(GeneralId(1)), .. } if unit.0 == 1)));
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::Command { unit, in_command: false, .. } if unit.0 == 2)));
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::OrderRefused { side: Side::Union, index: 1, reason, .. } if reason.contains("out of command"))));

    // Movement.
    let moved = ev
        .iter()
        .find_map(|e| match e {
            SfrmEvent::Moved {
                unit,
                cost,
                allowance,
                ..
            } if unit.0 == 1 => Some((*cost, *allowance)),
            _ => None,
        })
        .unwrap();
    assert_eq!(moved, (7.0, 8.0));

    // Combat: the guns' two shots at 2nd Brigade, one miss, one hit.
    let guns = fired(&ev, 4);
    assert_eq!(guns.len(), 2);
    for (shot, (roll, cas)) in guns.iter().zip([(3, 0), (1, 1)]) {
        let SfrmEvent::Fired {
            target,
            total,
            definite,
            remainder,
            roll: r,
            casualties,
            range,
            ..
        } = shot
        else {
            unreachable!()
        };
        assert_eq!(target.0, 2);
        assert!((range - 14.0).abs() < 1e-9);
        assert_eq!((*total, *definite, *remainder), (2, 0, 2));
        assert_eq!((*r, *casualties), (Some(roll), cas));
    }
    // 1st Brigade's contact volley: 6, one casualty, no die.
    let SfrmEvent::Fired {
        total,
        roll,
        casualties,
        ..
    } = fired(&ev, 1)[0]
    else {
        unreachable!()
    };
    assert_eq!((*total, *roll, *casualties), (6, None, 1));
    // Baylor's: 5 + 2 + 1 = 8, die 2 <= 2: two casualties.
    let SfrmEvent::Fired {
        terms,
        total,
        definite,
        remainder,
        roll,
        casualties,
        ..
    } = fired(&ev, 3)[0]
    else {
        unreachable!()
    };
    let values: Vec<i32> = terms.iter().map(|t| t.value).collect();
    assert_eq!(values, [5, 2, 1]);
    assert_eq!(terms[2].section, "SFRM Table 7");
    assert_eq!(
        (*total, *definite, *remainder, *roll, *casualties),
        (8, 1, 2, Some(2), 2)
    );

    // Table 3 for Taliaferro: 7, no effect.
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::OfficerCasualty { general: GeneralId(2), dice: [3, 4], casualty, .. }
            if casualty.result == CasualtyResult::ShotsScatter)));

    // Morale and the rout move.
    let first = after.unit(UnitId(1)).unwrap();
    assert!(first.routed);
    assert_eq!(first.elements, 4);
    assert!(close(first.pos, 0.0, 3.0), "{:?}", first.pos);
    let second = after.unit(UnitId(2)).unwrap();
    assert_eq!((second.elements, second.routed), (4, false));
    let baylor = after.unit(UnitId(3)).unwrap();
    assert_eq!((baylor.elements, baylor.routed), (5, false));
    assert!(close(baylor.pos, 0.0, 7.0));
    assert!(after.contacts.is_empty());
    let tal = after.general(GeneralId(2)).unwrap();
    assert_eq!(tal.attached_to, Some(UnitId(3)));
    assert!(close(tal.pos, 0.0, 7.0));
    assert!(
        ev.iter()
            .all(|e| !matches!(e, SfrmEvent::ArmyMorale { fails: true, .. }))
    );
    assert_eq!(after.turn, 1);
}

/// SFRM "Army Morale" and "Rout Moves": Union units routed, dispersed or
/// eliminated (1: the routed 1st Brigade) >= the generals' command
/// ability (an inferior divisional general: 1), so every out of command
/// Union unit rout moves. Doubleday rolls 6 > 1: both brigades are out of
/// command. 1st Brigade, already routed, moves 4" and loses an element
/// (6 -> 5: regular, still above 2); 2nd Brigade routs 4" and loses
/// nothing.
#[test]
fn sfrm_army_morale_out_of_command_units_rout() {
    let mut b = two_brigades_a_side();
    b.generals[0].quality = Quality::Inferior;
    b.units[0].routed = true;
    // The Confederates far away; keep the Confederate phase quiet too.
    b.units[2].pos = Pos::new(0.0, 30.0);
    b.units[3].pos = Pos::new(-40.0, 40.0);
    // Union phase: Doubleday 6 (fails). Confederate phase: Taliaferro 6.
    let (after, ev) = play(&b, &TurnOrders::default(), &[6, 6]);
    assert!(ev.iter().any(|e| matches!(
        e,
        SfrmEvent::ArmyMorale {
            side: Side::Union,
            broken_units: 1,
            command_ability_sum: 1,
            fails: true,
            ..
        }
    )));
    let first = after.unit(UnitId(1)).unwrap();
    assert_eq!(first.elements, 5);
    // Toward its friend 2nd Brigade (due east), no closer to any enemy.
    assert!(close(first.pos, 4.0, 0.0), "{:?}", first.pos);
    let second = after.unit(UnitId(2)).unwrap();
    assert!(second.routed);
    assert_eq!(second.elements, 5);
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::RoutMove { unit, extra_casualty: true, .. } if unit.0 == 1)));
    // No Confederate unit is routed or gone: they hold.
    assert!(ev.iter().any(|e| matches!(
        e,
        SfrmEvent::ArmyMorale {
            side: Side::Confederate,
            broken_units: 0,
            command_ability_sum: 2,
            fails: false,
            ..
        }
    )));
}

/// SFRM Table 5 ("Seeing The Elephant"): a green Union brigade fired on
/// for the first time rolls 2d6: 3 + 4 = 7, "rout & remain green": it
/// does not fire, and routs after both sides have fired. The guns' shot:
/// 2 at 14", die 1 hits: 1 casualty. Still green, it is fired on again
/// in the Confederate phase (the guns, 18" now, after its rout move 4"
/// straight back from them) and rolls Table 5 again (our ruling): 4 + 4
/// = 8, regular. Its rout move turned its back to the guns, so their
/// fire is enfilade: 2 + 2 = 4, remainder 4; die 5 misses.
#[test]
fn sfrm_table_5_green_brigade_routs_and_remains_green() {
    let mut b = two_brigades_a_side();
    b.units[1].quality = None;
    b.units[0].pos = Pos::new(-30.0, 0.0);
    b.generals[0].pos = Pos::new(-30.0, -1.0);
    // Union phase: command 2; guns fire at 2nd Brigade: Table 5 for the
    // target (3, 4), then the guns' die (1).
    // Confederate phase: command 6 (fails); the guns fire again: Table 5
    // (4, 4), die 5 misses.
    let (after, ev) = play(&b, &TurnOrders::default(), &[2, 3, 4, 1, 6, 4, 4, 5]);
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::GreenTested { unit, dice: [3, 4], result: GreenResult::RoutAndRemainGreen, .. } if unit.0 == 2)));
    let second = after.unit(UnitId(2)).unwrap();
    assert!(second.routed);
    assert!(close(second.pos, 10.0, -4.0), "{:?}", second.pos);
    assert_eq!(second.quality, Some(Quality::Regular));
    assert_eq!(second.elements, 4);
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::GreenTested { unit, dice: [4, 4], result: GreenResult::Becomes { quality: Quality::Regular }, .. } if unit.0 == 2)));
    assert!(
        fired(&ev, 2).is_empty(),
        "a green brigade that ran does not fire"
    );
    // Routed after the guns fired: the Routed event follows the shot.
    let shot = ev
        .iter()
        .position(|e| matches!(e, SfrmEvent::Fired { firer, .. } if firer.0 == 4))
        .unwrap();
    let routed = ev
        .iter()
        .position(|e| matches!(e, SfrmEvent::Routed { unit, .. } if unit.0 == 2))
        .unwrap();
    assert!(routed > shot);
}

/// SFRM "Morale, Routing, Casualties & Dispersal": a regular brigade
/// disperses at 2 elements or fewer. Baylor with 3 elements, in contact
/// with a 6-element Union line: 6 / 6 = 1 casualty, leaving 2: dispersed.
#[test]
fn sfrm_morale_routing_casualties_dispersal() {
    let mut b = two_brigades_a_side();
    b.units[2].elements = 3;
    b.units[2].front_rank = 3;
    b.units[2].pos = Pos::new(0.0, 0.0);
    b.contacts.push(Contact {
        a: UnitId(3),
        b: UnitId(1),
        from_bearing: 0.0,
    });
    b.units[3].pos = Pos::new(60.0, 60.0);
    b.units[1].pos = Pos::new(-30.0, 0.0);
    // Union phase: command 2; Baylor fires first (contact): 3 + 1 = 4:
    // no definite, remainder 4, die 5 misses. 1st Brigade: 6: one
    // casualty, no die. Baylor 3 -> 2: dispersed, contact over.
    // Confederate phase: command 6.
    let (after, ev) = play(&b, &TurnOrders::default(), &[2, 5, 6]);
    let baylor = after.unit(UnitId(3)).unwrap();
    assert!(baylor.dispersed);
    assert_eq!(baylor.elements, 2);
    assert!(
        ev.iter()
            .any(|e| matches!(e, SfrmEvent::Dispersed { unit, .. } if unit.0 == 3))
    );
    assert!(after.contacts.is_empty());
}

/// SFRM "Combat": units in contact go on firing until none is left in
/// contact. Two 6-element regular lines in contact; the Union phase:
/// round 1 Confederates 6 + 1 = 7 (1, remainder 1: die 4 misses) -> Union
/// 5; Union 5: remainder 5, die 6 misses. Union lost 1 (< 2): round 2:
/// Confederates 7 again, die 4 misses -> Union 4; Union 4: die 6 misses.
/// Union lost 2 this phase: routs, contact over. (Enfilade: the charge
/// struck from the Union front: none.)
#[test]
fn sfrm_combat_contact_fire_repeats_until_contact_ends() {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(0.0, 0.0);
    b.contacts.push(Contact {
        a: UnitId(3),
        b: UnitId(1),
        from_bearing: 0.0,
    });
    b.units[3].pos = Pos::new(60.0, 60.0);
    b.units[1].pos = Pos::new(-30.0, 0.0);
    let (after, ev) = play(&b, &TurnOrders::default(), &[2, 4, 6, 4, 6, 6]);
    assert_eq!(fired(&ev, 3).len(), 2);
    assert_eq!(fired(&ev, 1).len(), 2);
    let u = after.unit(UnitId(1)).unwrap();
    assert_eq!((u.elements, u.routed), (4, true));
    let c = after.unit(UnitId(3)).unwrap();
    assert_eq!((c.elements, c.routed), (6, false));
}

/// SFRM "Combat": enfilade fire (into the flank or rear) counts +1
/// multiple. Baylor charged 1st Brigade from its rear (bearing 180° from
/// a unit facing 0°): 6 elements x 1, +6 enfilade, +1 Confederate = 13:
/// 2 definite, remainder 1.
#[test]
fn sfrm_combat_enfilade_counts_an_extra_multiple() {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(0.0, 0.0);
    b.units[2].facing = 0.0;
    b.contacts.push(Contact {
        a: UnitId(3),
        b: UnitId(1),
        from_bearing: 180.0,
    });
    b.units[3].pos = Pos::new(60.0, 60.0);
    b.units[1].pos = Pos::new(-30.0, 0.0);
    // Union phase: command 2. Baylor: 13: die 6 misses: 2 casualties; 1st
    // Brigade routs at once? No: morale comes after both fire. 1st
    // Brigade (4 elements, charged from behind: the enemy is out of its
    // arc): 4 x 1 (small arms in contact fire whatever the arc) +
    // enfilade? Baylor faces 0° and 1st Brigade is at its front: none =
    // 4: remainder 4, die 1 hits: Baylor 5. Then 1st Brigade routs (2
    // casualties) and the contact ends. Confederate phase: command 6.
    let (after, ev) = play(&b, &TurnOrders::default(), &[2, 6, 1, 6]);
    let SfrmEvent::Fired { terms, total, .. } = fired(&ev, 3)[0] else {
        unreachable!()
    };
    assert_eq!(terms[1].text, "enfilade: +1 multiple");
    assert_eq!(*total, 13);
    assert_eq!(after.unit(UnitId(1)).unwrap().elements, 4);
    assert_eq!(after.unit(UnitId(3)).unwrap().elements, 5);
}

/// SFRM Table 4 and "Manoeuvre": infantry in line has 8"; moving sideways
/// counts each inch x2, so an ordered 6" sideways move stops after 4"
/// (cost 8). Rough ground (woods) counts x2 again: 3" of woods straight
/// ahead costs 6, and with 1" of open before it, 1 + 6 = 7 <= 8.
#[test]
fn sfrm_table_4_movement_manoeuvre_modifiers() {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(0.0, 40.0);
    b.units[3].pos = Pos::new(60.0, 60.0);
    b.units[1].pos = Pos::new(3.0, -1.0);
    b.ground.push(Area {
        ground: Ground::Woods,
        min: Pos::new(-5.0, 1.0),
        max: Pos::new(-1.0, 10.0),
    });
    b.units[0].pos = Pos::new(-3.0, 0.0);
    let orders = TurnOrders {
        union: vec![
            Order::Move {
                unit: UnitId(1),
                to: Pos::new(-3.0, 4.0),
                front_rank: None,
                road: false,
            },
            Order::Move {
                unit: UnitId(2),
                to: Pos::new(9.0, -1.0),
                front_rank: None,
                road: false,
            },
        ],
        confederate: vec![],
    };
    // Doubleday at (0,-1): 1st Brigade 3.16" away, 2nd 3" away: in.
    let (after, ev) = play(&b, &orders, &[1, 6]);
    let costs: Vec<(u32, f64, bool)> = ev
        .iter()
        .filter_map(|e| match e {
            SfrmEvent::Moved {
                unit,
                cost,
                stopped,
                ..
            } => Some((unit.0, (cost * 1e6).round() / 1e6, stopped.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(costs, [(1, 7.0, false), (2, 8.0, true)]);
    assert!(close(after.unit(UnitId(2)).unwrap().pos, 7.0, -1.0));
}

/// SFRM "Movement": march column may go no closer than 4" to the enemy.
/// 2nd Brigade in march column, 10" from Baylor, ordered 9" up the
/// field: it stops 4" short, having moved 6" (of 16").
#[test]
fn sfrm_movement_march_column_stands_off_four_inches() {
    let mut b = two_brigades_a_side();
    b.units[1].formation = Formation::MarchColumn;
    b.units[1].pos = Pos::new(0.0, 0.0);
    b.units[0].pos = Pos::new(-20.0, 0.0);
    b.units[3].pos = Pos::new(60.0, 60.0);
    b.generals[0].pos = Pos::new(0.0, -1.0);
    let orders = TurnOrders {
        union: vec![Order::Move {
            unit: UnitId(2),
            to: Pos::new(0.0, 9.0),
            front_rank: None,
            road: false,
        }],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &orders, &[1, 6]);
    assert!(close(after.unit(UnitId(2)).unwrap().pos, 0.0, 6.0));
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::Moved { stopped: Some(s), allowance, .. }
        if s.contains("4\"") && *allowance == 16.0)
    ));
}

/// SFRM "Movement": charging needs an attached general. Baylor without
/// one is refused with the reason.
#[test]
fn sfrm_movement_charge_needs_an_attached_general() {
    let mut b = two_brigades_a_side();
    b.units[0].pos = Pos::new(0.0, 7.0);
    b.units[3].pos = Pos::new(60.0, 60.0);
    let orders = TurnOrders {
        union: vec![],
        confederate: vec![Order::Charge {
            unit: UnitId(3),
            target: UnitId(1),
        }],
    };
    // Union phase: command 6 (fails); nobody fires (3" > 2", out of arc).
    // Confederate phase: command 1.
    let (after, ev) = play(&b, &orders, &[6, 1]);
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::OrderRefused { side: Side::Confederate, reason, .. }
        if reason.contains("no attached general"))
    ));
    assert!(after.contacts.is_empty());
}

/// SFRM "Firing From Higher Elevation": the guns on a hill 4" from its
/// edge may not fire at a brigade on the plain 6" away (less than twice
/// 4"), and may at 8" (range 2 "shell" beyond 2"): 2 + target uphill? No,
/// the target is below: 2.
#[test]
fn sfrm_firing_from_higher_elevation() {
    let mut b = two_brigades_a_side();
    b.ground.push(Area {
        ground: Ground::Hill { level: 1 },
        min: Pos::new(5.0, 10.0),
        max: Pos::new(15.0, 20.0),
    });
    // Guns at (10,14): the hill's south edge is 4" away at y = 10.
    b.units[2].pos = Pos::new(-40.0, 40.0);
    b.units[0].pos = Pos::new(-40.0, -40.0);
    b.units[1].pos = Pos::new(10.0, 8.0);
    // Union phase: command 6; guns may not fire at 6". Confederate
    // phase: command 6; nothing fires.
    let (_, ev) = play(&b, &TurnOrders::default(), &[6, 6]);
    assert!(fired(&ev, 4).is_empty());
    b.units[1].pos = Pos::new(10.0, 6.0);
    // Now 8" = twice 4": the guns fire in both phases: 2, dice 3 and 3 miss.
    let (_, ev) = play(&b, &TurnOrders::default(), &[6, 3, 6, 3]);
    assert_eq!(fired(&ev, 4).len(), 2);
}

/// SFRM "Firing Arc & Target Availability": sight is halved through cover
/// and reaches no more than 2" into it. The guns see 2nd Brigade in a wood
/// 1" deep at 14" (sight 18"), and -1 for the target in cover: 2 - 1 = 1;
/// not once it stands 3" deep.
#[test]
fn sfrm_firing_arc_sight_into_cover() {
    let mut b = two_brigades_a_side();
    b.units[0].pos = Pos::new(-40.0, -40.0);
    b.units[2].pos = Pos::new(-40.0, 40.0);
    b.ground.push(Area {
        ground: Ground::Woods,
        min: Pos::new(5.0, -5.0),
        max: Pos::new(15.0, 1.0),
    });
    let (_, ev) = play(&b, &TurnOrders::default(), &[6, 1, 6, 1]);
    let SfrmEvent::Fired { total, terms, .. } = fired(&ev, 4)[0] else {
        unreachable!()
    };
    assert_eq!(*total, 1);
    assert!(
        terms
            .iter()
            .any(|t| t.text == "target in cover or deployed in town")
    );
    b.units[1].pos = Pos::new(10.0, -2.0);
    let (_, ev) = play(&b, &TurnOrders::default(), &[6, 6]);
    assert!(fired(&ev, 4).is_empty());
}

/// SFRM "Time, Weather & Daylight": no combat at night. 8:30pm in
/// summer is night: the guns do not fire.
#[test]
fn sfrm_time_weather_daylight_no_combat_at_night() {
    let mut b = two_brigades_a_side();
    b.start_minute = 20 * 60 + 30;
    let (_, ev) = play(&b, &TurnOrders::default(), &[6, 6]);
    assert!(ev.iter().all(|e| !matches!(e, SfrmEvent::Fired { .. })));
    assert!(ev.iter().any(|e| matches!(
        e,
        SfrmEvent::PhaseBegins {
            light: Light::Night,
            ..
        }
    )));
}

/// SFRM Table 9: Union 40 (a regular divisional general, 1 figure) + 6 x
/// 10 + 5 x 10 (regular rifles) = 150; Confederates 40 + 6 x 12 + 120
/// (10-pound rifled) = 232.
#[test]
fn sfrm_table_9_army_costing_of_the_two_brigade_battle() {
    let costs = army_cost(&two_brigades_a_side());
    assert_eq!(costs[0].side, Side::Union);
    assert_eq!(costs[0].points, 150);
    assert_eq!(costs[1].points, 232);
    assert!(costs.iter().all(|c| c.unpriced.is_empty()));
}

#[test]
fn sfrm_battle_state_round_trips_through_json() {
    let b = two_brigades_a_side();
    let json = serde_json::to_string(&b).unwrap();
    let back: SfrmBattle = serde_json::from_str(&json).unwrap();
    assert_eq!(back, b);
}

/// Pure and deterministic: the same state, orders and dice give the same
/// state and events.
#[test]
fn sfrm_resolve_turn_is_deterministic() {
    let b = two_brigades_a_side();
    let mut d1 = crate::dice::StreamDice::new([7u8; 32]);
    let mut d2 = crate::dice::StreamDice::new([7u8; 32]);
    let a = resolve_turn(&b, &TurnOrders::default(), &mut d1).unwrap();
    let c = resolve_turn(&b, &TurnOrders::default(), &mut d2).unwrap();
    assert_eq!(a, c);
}

/// SFRM "Breakthrough Advances & Combat", played through by hand.
///
/// Union phase. Doubleday (attached to 1st Brigade) rolls 1: in command.
/// 1st Brigade charges Baylor's inferior brigade (4 elements) 7" ahead
/// (line 8"). Combat: Baylor 4 - 1 (inferior) + 1 (Confederate) = 4,
/// die 2 hits: 1 casualty (Table 3 for Doubleday: 3 + 4 = 7, nothing).
/// The guns at (1,13) see 1st Brigade 3.2" away in their arc: shell 2,
/// die 6 misses. 1st Brigade: 5 + 2 (Doubleday) = 7, 1 definite,
/// remainder 1, die 1 hits: Baylor 4 -> 2, and inferior units disperse at
/// 3: dispersed. 1st Brigade (1 casualty) stands.
///
/// Breakthrough: half of 8" is 4"; the guns are 3.16" ahead: 1st Brigade,
/// with its general, charges them. Breakthrough combat: the guns in
/// contact, in arc: canister 3, double canister (rifled) +3 = 6: 1
/// casualty, no die (Table 3: 3 + 4 again). 1st Brigade: 4 + 2 - 1
/// (target artillery) = 5, die 1 hits: the guns are gone. 1st Brigade
/// has now lost 2 this phase, which would rout a regular brigade; but the
/// casualty before the breakthrough is ignored: 1, it stands.
///
/// Confederate phase: Taliaferro rolls 6. Army morale: 2 Confederate
/// units gone >= his ability 2: the Confederate army fails.
#[test]
fn sfrm_breakthrough_advances_and_combat() {
    let mut b = two_brigades_a_side();
    b.units[0].pos = Pos::new(0.0, 3.0);
    b.generals[0].pos = Pos::new(0.0, 3.0);
    b.generals[0].attached_to = Some(UnitId(1));
    b.units[2].quality = Some(Quality::Inferior);
    b.units[2].elements = 4;
    b.units[2].front_rank = 4;
    b.units[3].pos = Pos::new(1.0, 13.0);
    let orders = TurnOrders {
        union: vec![
            Order::Charge {
                unit: UnitId(1),
                target: UnitId(3),
            },
            Order::BreakthroughCharge {
                unit: UnitId(1),
                target: UnitId(4),
            },
        ],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &orders, &[1, 2, 3, 4, 6, 1, 3, 4, 1, 6]);
    assert!(after.unit(UnitId(3)).unwrap().dispersed);
    let guns = after.unit(UnitId(4)).unwrap();
    assert!(guns.gone());
    let first = after.unit(UnitId(1)).unwrap();
    assert_eq!((first.elements, first.routed), (4, false));
    assert!(close(first.pos, 1.0, 13.0));
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::Breakthrough { unit, allowance, .. }
        if unit.0 == 1 && *allowance == 4.0)
    ));
    // The guns' canister in contact.
    let SfrmEvent::Fired { terms, total, .. } = fired(&ev, 4)[1] else {
        unreachable!()
    };
    assert_eq!(terms[1].text, "double canister: +1 multiple");
    assert_eq!(*total, 6);
    assert!(ev.iter().any(|e| matches!(
        e,
        SfrmEvent::ArmyMorale {
            side: Side::Confederate,
            broken_units: 2,
            command_ability_sum: 2,
            fails: true,
            ..
        }
    )));
}

/// SFRM "Breakthrough Advances & Combat": a unit that did not rout all it
/// was in contact with does not advance, and is told why.
#[test]
fn sfrm_breakthrough_only_after_routing_all_in_contact() {
    let mut b = two_brigades_a_side();
    b.units[3].pos = Pos::new(60.0, 60.0);
    let orders = TurnOrders {
        union: vec![Order::BreakthroughMove {
            unit: UnitId(1),
            to: Pos::new(0.0, 3.0),
        }],
        confederate: vec![],
    };
    let (_, ev) = play(&b, &orders, &[6, 6]);
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::OrderRefused { side: Side::Union, reason, section, .. }
        if reason.contains("did not charge") && section == "SFRM Breakthrough Advances & Combat")
    ));
}

/// SFRM "Officer Casualties" (promotion): McDowell, corps general, was
/// removed. At the end of the Union command subphase his highest ranking
/// subordinate takes the corps: Doubleday and King are both divisional,
/// Doubleday the senior (lower id). Doubleday's own division is then
/// taken by an element of its senior brigade (1st Brigade, 6 -> 5
/// elements), whose commander starts 1 lower on each statistic than
/// Doubleday (regular divisional 4" (2) +2): 3" (1) +1. King now answers
/// to Doubleday; both brigades to the new commander.
#[test]
fn sfrm_officer_casualties_promotion() {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(0.0, 60.0);
    b.units[3].pos = Pos::new(60.0, 60.0);
    let mut mcdowell = general(3, "McDowell", Side::Union, Pos::new(0.0, -10.0));
    mcdowell.rank = Rank::Corps;
    mcdowell.removed = true;
    let mut king = general(5, "King", Side::Union, Pos::new(20.0, -5.0));
    king.quality = Quality::Superior;
    king.superior = Some(GeneralId(3));
    b.generals[0].superior = Some(GeneralId(3));
    b.generals.push(mcdowell);
    b.generals.push(king);
    b.units[0].division = Some(GeneralId(1));
    b.units[1].division = Some(GeneralId(1));
    // Command rolls: Doubleday 6, King 6 (Union); Taliaferro 6.
    let (after, ev) = play(&b, &TurnOrders::default(), &[6, 6, 6]);
    let promoted: Vec<(u32, u32, Rank, Option<u32>)> = ev
        .iter()
        .filter_map(|e| match e {
            SfrmEvent::Promoted {
                removed,
                promoted,
                role,
                from_brigade,
                ..
            } => Some((removed.0, promoted.0, *role, from_brigade.map(|u| u.0))),
            _ => None,
        })
        .collect();
    assert_eq!(
        promoted,
        [(3, 1, Rank::Corps, None), (1, 6, Rank::Division, Some(1))]
    );
    let doubleday = after.general(GeneralId(1)).unwrap();
    assert_eq!(doubleday.role_rank(), Rank::Corps);
    // He keeps his own statistics until reorganised.
    assert_eq!(doubleday.stats().command_ability, 2);
    assert_eq!(
        after.general(GeneralId(5)).unwrap().superior,
        Some(GeneralId(1))
    );
    let new = after.general(GeneralId(6)).unwrap();
    let s = new.stats();
    assert_eq!(
        (s.command_range, s.command_ability, s.combat_value),
        (3, 1, 1)
    );
    assert_eq!(new.attached_to, Some(UnitId(1)));
    assert_eq!(new.superior, Some(GeneralId(1)));
    assert_eq!(after.unit(UnitId(1)).unwrap().elements, 5);
    assert_eq!(after.unit(UnitId(2)).unwrap().division, Some(GeneralId(6)));
    assert!(after.general(GeneralId(3)).unwrap().replaced);
}

/// Both sides far apart, so nothing fires.
fn quiet() -> SfrmBattle {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(0.0, 60.0);
    b.units[3].pos = Pos::new(60.0, 60.0);
    b
}

/// SFRM "Command": a routed unit in command with a general attached may
/// be unrouted (and change formation); a unit not routed is told so.
#[test]
fn sfrm_command_unrout_with_an_attached_general() {
    let mut b = quiet();
    b.units[0].routed = true;
    b.units[0].formation = Formation::MarchColumn;
    b.generals[0].pos = Pos::new(0.0, 0.0);
    b.generals[0].attached_to = Some(UnitId(1));
    let orders = TurnOrders {
        union: vec![
            Order::Unrout {
                unit: UnitId(1),
                formation: Some(Formation::Line),
            },
            Order::Unrout {
                unit: UnitId(2),
                formation: None,
            },
        ],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &orders, &[1, 6]);
    let u = after.unit(UnitId(1)).unwrap();
    assert_eq!((u.routed, u.formation), (false, Formation::Line));
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::Unrouted { unit, general: GeneralId(1), .. } if unit.0 == 1)
    ));
    assert!(ev.iter().any(|e| matches!(e, SfrmEvent::OrderRefused { index: 1, reason, .. } if reason.contains("not routed"))));
}

/// SFRM "Movement" and Table 7: skirmish order needs an attached general;
/// with one, 1st Brigade skirmishes, and the guns' fire at it (shell 2 at
/// 14") takes -2 for a skirmishing target: total 0, no casualty, no die.
#[test]
fn sfrm_formation_changes_skirmish_needs_a_general_and_counts_on_table_7() {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(0.0, 60.0);
    b.units[0].pos = Pos::new(10.0, 0.0);
    b.units[1].pos = Pos::new(12.0, 0.0);
    b.generals[0].pos = Pos::new(10.0, 0.0);
    b.generals[0].attached_to = Some(UnitId(1));
    let orders = TurnOrders {
        union: vec![
            Order::Formation {
                unit: UnitId(1),
                formation: Formation::Skirmish,
                facing: None,
                front_rank: None,
                mounted: None,
                prone: None,
            },
            Order::Formation {
                unit: UnitId(2),
                formation: Formation::Skirmish,
                facing: None,
                front_rank: None,
                mounted: None,
                prone: None,
            },
        ],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &orders, &[1, 6]);
    assert_eq!(
        after.unit(UnitId(1)).unwrap().formation,
        Formation::Skirmish
    );
    assert_eq!(after.unit(UnitId(2)).unwrap().formation, Formation::Line);
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::OrderRefused { index: 1, reason, section, .. }
        if reason.contains("needs an attached general") && section == "SFRM Formation Changes")
    ));
    let shots = fired(&ev, 4);
    assert_eq!(shots.len(), 2);
    let SfrmEvent::Fired {
        target,
        terms,
        total,
        roll,
        casualties,
        ..
    } = shots[0]
    else {
        unreachable!()
    };
    assert_eq!(target.0, 1);
    assert!(
        terms
            .iter()
            .any(|t| t.text == "target skirmishing" && t.value == -2)
    );
    assert_eq!((*total, *roll, *casualties), (0, None, 0));
}

/// SFRM "Entrenching" and Table 7: a turn of digging makes 1 level, and
/// fire at the unit takes -1 per level: the guns' 2 becomes 1, remainder
/// 1; dice 6 and 6 miss.
#[test]
fn sfrm_entrenching_one_turn_one_level_counts_on_table_7() {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(0.0, 60.0);
    b.units[0].pos = Pos::new(10.0, 0.0);
    b.units[1].pos = Pos::new(-20.0, 0.0);
    b.generals[0].pos = Pos::new(10.0, -1.0);
    let orders = TurnOrders {
        union: vec![Order::Entrench { unit: UnitId(1) }],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &orders, &[1, 6, 6, 6]);
    assert_eq!(after.unit(UnitId(1)).unwrap().entrenchment, 1);
    let SfrmEvent::Fired { terms, total, .. } = fired(&ev, 4)[0] else {
        unreachable!()
    };
    assert_eq!(*total, 1);
    assert!(
        terms
            .iter()
            .any(|t| t.text == "target in fortifications (per level)")
    );
}

/// SFRM Table 3 and "Officer Casualties": Doubleday, attached to 1st
/// Brigade, rolls 12 when it takes a casualty: killed, removed. With no
/// general left the Union army fails its morale (1 routed >= 0). At the
/// end of the next Union command subphase an element of his senior
/// brigade is promoted in his place.
///
/// Turn 1, Union phase: Baylor in contact fires first: 6 + 1 = 7, die 6
/// misses: 1 casualty; Table 3: 6 + 6 = 12. 1st Brigade 5: die 6 misses.
/// Round 2: Baylor 7 again, die 6: 1st Brigade 4; 1st Brigade 4, die 6.
/// 1st Brigade lost 2: routs. Army morale: 1 routed >= 0: 2nd Brigade,
/// out of command, rout moves. Confederate phase: Taliaferro 6.
#[test]
fn sfrm_table_3_kills_an_attached_general_and_a_brigade_is_promoted() {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(0.0, 0.0);
    b.units[3].pos = Pos::new(-60.0, 60.0);
    b.contacts.push(Contact {
        a: UnitId(3),
        b: UnitId(1),
        from_bearing: 0.0,
    });
    b.generals[0].pos = Pos::new(0.0, 0.0);
    b.generals[0].attached_to = Some(UnitId(1));
    b.units[0].division = Some(GeneralId(1));
    b.units[1].division = Some(GeneralId(1));
    let (after, ev) = play(&b, &TurnOrders::default(), &[1, 6, 6, 6, 6, 6, 6, 6]);
    let d = after.general(GeneralId(1)).unwrap();
    assert!(d.removed && !d.replaced);
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::OfficerCasualty { dice: [6, 6], casualty, .. }
        if casualty.result == CasualtyResult::Killed)
    ));
    assert!(ev.iter().any(|e| matches!(
        e,
        SfrmEvent::ArmyMorale {
            side: Side::Union,
            broken_units: 1,
            command_ability_sum: 0,
            fails: true,
            ..
        }
    )));
    assert!(after.unit(UnitId(2)).unwrap().routed);
    // Turn 2: the promotion, whatever the dice.
    let mut dice = crate::dice::StreamDice::new([3u8; 32]);
    let (later, ev) = resolve_turn(&after, &TurnOrders::default(), &mut dice).unwrap();
    assert!(ev.iter().any(|e| matches!(
        e,
        SfrmEvent::Promoted {
            removed: GeneralId(1),
            from_brigade: Some(UnitId(1)),
            role: Rank::Division,
            ..
        }
    )));
    let new = later.general(GeneralId(3)).unwrap();
    let s = new.stats();
    assert_eq!(
        (s.command_range, s.command_ability, s.combat_value),
        (3, 1, 1)
    );
}

/// SFRM Table 8: the weather die, logged with its purpose.
#[test]
fn sfrm_table_8_weather_roll() {
    let mut d = ScriptedDice::new([6]).unwrap();
    assert_eq!(
        tables::roll_weather(Season::Winter, &mut d).unwrap(),
        Weather::Snow
    );
    use crate::dice::DiceSource;
    assert_eq!(d.log()[0].purpose.kind, crate::dice::RollKind::SfrmWeather);
}

/// Bad orders get an answer and the rest still counts: a target order
/// naming a friendly unit, a move to a position that is not a number, and
/// a unit of the other side.
#[test]
fn sfrm_bad_orders_are_refused_and_the_rest_counts() {
    let b = quiet();
    let orders = TurnOrders {
        union: vec![
            Order::Target {
                unit: UnitId(1),
                target: UnitId(2),
            },
            Order::Move {
                unit: UnitId(1),
                to: Pos::new(f64::NAN, 1.0),
                front_rank: None,
                road: false,
            },
            Order::Move {
                unit: UnitId(3),
                to: Pos::new(0.0, 50.0),
                front_rank: None,
                road: false,
            },
            Order::Move {
                unit: UnitId(1),
                to: Pos::new(0.0, 5.0),
                front_rank: None,
                road: false,
            },
        ],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &orders, &[1, 6]);
    let refused: Vec<usize> = ev
        .iter()
        .filter_map(|e| match e {
            SfrmEvent::OrderRefused { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(refused, [0, 1, 2]);
    assert!(close(after.unit(UnitId(1)).unwrap().pos, 0.0, 5.0));
}

/// SFRM Table 4, "March Column/Limbered On Road": 2nd Brigade in march
/// column on a road that runs 20" north and turns east; ordered to its
/// far end (40" along), it goes its on-road 24" (off road it would have
/// 16"): 20" north and 4" east, facing along the road. 1st Brigade, in
/// line, may not use the road rate.
#[test]
fn sfrm_table_4_march_column_on_road() {
    let mut b = quiet();
    b.roads.push(Road {
        name: "Warrenton Turnpike".into(),
        points: vec![
            Pos::new(20.0, -20.0),
            Pos::new(20.0, 0.0),
            Pos::new(40.0, 0.0),
        ],
    });
    b.units[1].pos = Pos::new(20.0, -20.0);
    b.units[1].formation = Formation::MarchColumn;
    b.units[0].pos = Pos::new(20.0, -21.0);
    b.generals[0].pos = Pos::new(20.0, -22.0);
    let orders = TurnOrders {
        union: vec![
            Order::Move {
                unit: UnitId(2),
                to: Pos::new(40.0, 0.0),
                front_rank: None,
                road: true,
            },
            Order::Move {
                unit: UnitId(1),
                to: Pos::new(20.0, -15.0),
                front_rank: None,
                road: true,
            },
        ],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &orders, &[1, 6]);
    let u = after.unit(UnitId(2)).unwrap();
    assert!(close(u.pos, 24.0, 0.0), "{:?}", u.pos);
    assert!((u.facing - 90.0).abs() < 1e-9);
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::Moved { unit, cost, allowance, stopped: Some(_), .. }
        if unit.0 == 2 && (*cost - 24.0).abs() < 1e-9 && *allowance == 24.0)
    ));
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::OrderRefused { index: 1, reason, .. }
        if reason.contains("only march column"))
    ));
}

/// SFRM "Supply". A Union supply train 40" by road from a Union supply
/// source is in supply; 1st Brigade, 30" from the train, is in supply;
/// 2nd Brigade, 60.8" away, is not. The guns fire at 2nd Brigade in the
/// Union phase (2, die 6 misses): both have taken part in combat out of
/// supply (the Confederates have no train) and get a marker each. In the
/// Confederate phase the guns' fire takes -2 for their marker: 2 - 2 = 0,
/// no die; both get a second marker.
#[test]
fn sfrm_supply_traced_by_road_and_out_of_supply_markers() {
    let mut b = two_brigades_a_side();
    b.roads.push(Road {
        name: String::new(),
        points: vec![Pos::new(0.0, -100.0), Pos::new(0.0, 0.0)],
    });
    b.supply_sources.push(SupplySource {
        side: Side::Union,
        pos: Pos::new(0.0, -100.0),
    });
    let mut train = infantry(
        10,
        "II Corps trains",
        Side::Union,
        1,
        Pos::new(0.0, -60.0),
        0.0,
    );
    train.arm = Arm::Supply;
    train.formation = Formation::MarchColumn;
    b.units.push(train);
    b.units[0].pos = Pos::new(0.0, -30.0);
    b.units[2].pos = Pos::new(0.0, 60.0);
    let (after, ev) = play(&b, &TurnOrders::default(), &[6, 6, 6]);
    let supply: Vec<(u32, bool)> = ev
        .iter()
        .filter_map(|e| match e {
            SfrmEvent::Supply {
                unit, in_supply, ..
            } => Some((unit.0, *in_supply)),
            _ => None,
        })
        .collect();
    // Union phase: the Union's units; Confederate phase: the Confederates'.
    assert_eq!(
        supply,
        [(1, true), (2, false), (10, true), (3, false), (4, false)]
    );
    assert_eq!(after.unit(UnitId(2)).unwrap().out_of_supply, 2);
    assert_eq!(after.unit(UnitId(4)).unwrap().out_of_supply, 2);
    assert_eq!(after.unit(UnitId(1)).unwrap().out_of_supply, 0);
    let SfrmEvent::Fired {
        terms, total, roll, ..
    } = fired(&ev, 4)[1]
    else {
        unreachable!()
    };
    assert!(
        terms
            .iter()
            .any(|t| t.text == "firing unit out of supply (per counter)" && t.value == -2)
    );
    assert_eq!((*total, *roll), (0, None));
}

/// SFRM "Supply": "The enemy may cut supply by occupying those roads".
/// Baylor astride the road between the source and the train: the train,
/// and so 1st Brigade, are out of supply.
#[test]
fn sfrm_supply_cut_by_the_enemy_on_the_road() {
    let mut b = quiet();
    b.roads.push(Road {
        name: String::new(),
        points: vec![Pos::new(0.0, -100.0), Pos::new(0.0, 0.0)],
    });
    b.supply_sources.push(SupplySource {
        side: Side::Union,
        pos: Pos::new(0.0, -100.0),
    });
    let mut train = infantry(
        10,
        "II Corps trains",
        Side::Union,
        1,
        Pos::new(0.0, -60.0),
        0.0,
    );
    train.arm = Arm::Supply;
    train.formation = Formation::MarchColumn;
    b.units.push(train);
    b.units[0].pos = Pos::new(0.0, -30.0);
    assert!(
        supply::in_supply(&b, Side::Union)
            .unwrap()
            .contains(&UnitId(1))
    );
    b.units[2].pos = Pos::new(0.0, -80.0);
    let fed = supply::in_supply(&b, Side::Union).unwrap();
    assert!(!fed.contains(&UnitId(10)));
    assert!(!fed.contains(&UnitId(1)));
    // Without supply sources the battle does not track supply.
    b.supply_sources.clear();
    assert!(supply::in_supply(&b, Side::Union).is_none());
}

/// SFRM "Firing From Higher Elevation" over friendly troops: the guns at
/// (10,14) on a hill whose edge is 4" south of them fire at 2nd Brigade 8"
/// away (twice 4": the ground allows it) over Baylor's brigade 3" in front
/// of them (8" >= twice 3"): 2, dice 6 miss in both phases. With Baylor
/// 4.5" in front (8" < 9") he blocks them. On level ground friends in the
/// line of fire always block.
#[test]
fn sfrm_firing_over_friendly_troops_from_higher_elevation() {
    let mut b = two_brigades_a_side();
    b.ground.push(Area {
        ground: Ground::Hill { level: 1 },
        min: Pos::new(5.0, 10.0),
        max: Pos::new(15.0, 20.0),
    });
    b.units[0].pos = Pos::new(-40.0, -40.0);
    b.units[1].pos = Pos::new(10.0, 6.0);
    b.units[2].pos = Pos::new(10.0, 11.0);
    let (_, ev) = play(&b, &TurnOrders::default(), &[6, 6, 6, 6]);
    assert_eq!(fired(&ev, 4).len(), 2);
    b.units[2].pos = Pos::new(10.0, 9.5);
    let (_, ev) = play(&b, &TurnOrders::default(), &[6, 6]);
    assert!(fired(&ev, 4).is_empty());
    b.ground.clear();
    b.units[2].pos = Pos::new(10.0, 13.0);
    let (_, ev) = play(&b, &TurnOrders::default(), &[6, 6]);
    assert!(fired(&ev, 4).is_empty());
}

/// SFRM "Officer Casualties" (ii) and the capture rule: 1st Brigade moves
/// 8" onto Taliaferro, alone (no Confederate unit by him): Table 3, 2 + 2
/// = 4, a thigh wound, and in contact with the enemy and not with friends
/// he is taken. With 4 + 4 = 8 instead (no effect) he stays in play and
/// makes the rout move: 4" toward Baylor's brigade, no closer to any
/// enemy.
#[test]
fn sfrm_officer_casualties_ii_a_lone_general_contacted() {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(20.0, 40.0);
    b.units[3].pos = Pos::new(60.0, 60.0);
    b.generals[1].pos = Pos::new(0.0, 8.0);
    let orders = TurnOrders {
        union: vec![Order::Move {
            unit: UnitId(1),
            to: Pos::new(0.0, 8.0),
            front_rank: None,
            road: false,
        }],
        confederate: vec![],
    };
    // Union phase: Doubleday 1; Table 3 (2, 2). Confederate phase: no
    // general left to roll.
    let (after, ev) = play(&b, &orders, &[1, 2, 2]);
    assert!(ev.iter().any(|e| matches!(
        e,
        SfrmEvent::GeneralContacted {
            general: GeneralId(2),
            by: UnitId(1),
            ..
        }
    )));
    assert!(ev.iter().any(|e| matches!(e, SfrmEvent::OfficerCasualty { general: GeneralId(2), captured: true, casualty, .. }
        if casualty.result == CasualtyResult::ThighWound)));
    assert!(after.general(GeneralId(2)).unwrap().removed);

    // Union phase: Doubleday 1; Table 3 (4, 4): no effect; he rides off.
    // Confederate phase: Taliaferro 6.
    let (after, _) = play(&b, &orders, &[1, 4, 4, 6]);
    let t = after.general(GeneralId(2)).unwrap();
    assert!(!t.removed);
    let toward = Pos::new(0.0, 8.0).step(Pos::new(0.0, 8.0).bearing_to(Pos::new(20.0, 40.0)), 4.0);
    assert!(close(t.pos, toward.x, toward.y), "{:?}", t.pos);
}

/// SFRM "Combat" and "Officer Casualties" (iii): 1st Brigade fires at
/// Taliaferro, alone 2" ahead: 6 elements x 1 (rifles at 2"), +1 for a
/// mounted target = 7: 1 definite (die 6 for the remainder misses); any
/// casualty sends him to Table 3: 6 + 6 = 12, killed.
#[test]
fn sfrm_officer_casualties_iii_fire_at_a_lone_general() {
    let mut b = two_brigades_a_side();
    b.units[2].pos = Pos::new(20.0, 40.0);
    b.units[3].pos = Pos::new(60.0, 60.0);
    b.generals[1].pos = Pos::new(0.0, 2.0);
    let orders = TurnOrders {
        union: vec![Order::TargetGeneral {
            unit: UnitId(1),
            general: GeneralId(2),
        }],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &orders, &[1, 6, 6, 6]);
    let (total, casualties) = ev
        .iter()
        .find_map(|e| match e {
            SfrmEvent::FiredAtGeneral {
                total, casualties, ..
            } => Some((*total, *casualties)),
            _ => None,
        })
        .unwrap();
    assert_eq!((total, casualties), (7, 1));
    assert!(after.general(GeneralId(2)).unwrap().removed);
}

/// SFRM "Army Costing System": the two-brigade battle's Union division is
/// lawful (2 brigades of 6 and 5 regular elements, 11 elements, its general
/// the only command element); the Confederate one breaks four limits in
/// 1862: one brigade (2 to 6), no muskets (at least a quarter), a 10-pound
/// battalion with no supply train (4 per supply element), and no
/// 6-pounders (at least half in 1861-1862).
#[test]
fn sfrm_army_costing_system_limits() {
    let mut b = two_brigades_a_side();
    for u in &mut b.units {
        u.division = Some(if u.side == Side::Union {
            GeneralId(1)
        } else {
            GeneralId(2)
        });
    }
    let breaches = organisation::check_organisation(&b, 1862);
    assert!(
        breaches.iter().all(|x| x.side == Side::Confederate),
        "{breaches:?}"
    );
    let texts: Vec<&str> = breaches.iter().map(|x| x.text.as_str()).collect();
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert!(texts[0].contains("1 brigades; a Confederate division has 2 to 6"));
    assert!(texts[1].contains("at least a quarter"));
    assert!(texts[2].contains("supply elements"));
    assert!(texts[3].contains("6-pounders"));
    // In 1863 the 6-pounder rule no longer applies.
    assert_eq!(organisation::check_organisation(&b, 1863).len(), 3);
}

/// SFRM "Entrenching": works are dug where the unit stands; moving off
/// leaves them behind.
#[test]
fn sfrm_entrenching_works_stay_behind_when_the_unit_moves() {
    let mut b = quiet();
    b.units[0].entrenchment = 1;
    let orders = TurnOrders {
        union: vec![Order::Move {
            unit: UnitId(1),
            to: Pos::new(0.0, 3.0),
            front_rank: None,
            road: false,
        }],
        confederate: vec![],
    };
    let (after, _) = play(&b, &orders, &[1, 6]);
    assert_eq!(after.unit(UnitId(1)).unwrap().entrenchment, 0);
    assert_eq!(after.unit(UnitId(2)).unwrap().entrenchment, 0);
}

/// Many seeded games of the two-brigade battle, each side advancing and
/// charging with its generals attached: every turn ends (no endless
/// contact), nothing comes back from the dead, positions stay numbers, and
/// the state survives JSON.
#[test]
fn sfrm_seeded_games_keep_their_invariants() {
    let (mut charges, mut routs) = (0, 0);
    for seed in 0u8..24 {
        let mut b = two_brigades_a_side();
        b.generals[0].pos = b.units[0].pos;
        b.generals[0].attached_to = Some(UnitId(1));
        b.generals[1].pos = b.units[2].pos;
        b.generals[1].attached_to = Some(UnitId(3));
        let mut dice = crate::dice::StreamDice::new([seed; 32]);
        for _ in 0..12 {
            let mut orders = TurnOrders::default();
            for side in [Side::Union, Side::Confederate] {
                let list = match side {
                    Side::Union => &mut orders.union,
                    Side::Confederate => &mut orders.confederate,
                };
                for u in b.units_of(side).filter(|u| u.is_infantry_or_cavalry()) {
                    let Some(e) = b
                        .units_of(side.other())
                        .min_by(|a, c| a.pos.distance(u.pos).total_cmp(&c.pos.distance(u.pos)))
                    else {
                        continue;
                    };
                    if e.pos.distance(u.pos) > 7.0 {
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
                    list.push(Order::BreakthroughCharge {
                        unit: u.id,
                        target: e.id,
                    });
                }
            }
            let before = b.clone();
            let (after, ev) = resolve_turn(&b, &orders, &mut dice).unwrap();
            charges += ev
                .iter()
                .filter(|e| matches!(e, SfrmEvent::Charged { .. }))
                .count();
            routs += ev
                .iter()
                .filter(|e| matches!(e, SfrmEvent::Routed { .. } | SfrmEvent::Dispersed { .. }))
                .count();
            for (x, y) in before.units.iter().zip(&after.units) {
                assert!(y.elements <= x.elements);
                assert!(!x.gone() || y.gone());
                assert!(y.pos.x.is_finite() && y.pos.y.is_finite());
            }
            for (x, y) in before.generals.iter().zip(&after.generals) {
                assert!(!x.removed || y.removed);
            }
            let json = serde_json::to_string(&after).unwrap();
            assert_eq!(serde_json::from_str::<SfrmBattle>(&json).unwrap(), after);
            b = after;
        }
    }
    // The games did come to blows.
    assert!(charges > 0 && routs > 0, "{charges} charges, {routs} routs");
}

/// SFRM "Time, Weather & Daylight", fatigue at a day's end: a day of
/// combat +1 (4 quarters), doubled in hot weather (8); 17 daytime turns
/// of marching is forcemarching: 1/4 doubled = 2 quarters, and doubled
/// again when hot (4); a day of rest in supply -1 (supply not tracked:
/// every unit is in supply), never below 0.
#[test]
fn sfrm_time_weather_daylight_fatigue_at_the_days_end() {
    let mut b = quiet();
    b.units[0].day.fought = true;
    b.units[1].day.day_turns_moved = 17;
    b.units[2].fatigue_quarters = 6;
    b.units[3].fatigue_quarters = 2;
    let mut hot = b.clone();
    let mut ev = Vec::new();
    turn::end_of_day(&mut b, &mut ev);
    let q: Vec<u32> = b.units.iter().map(|u| u.fatigue_quarters).collect();
    assert_eq!(q, [4, 2, 2, 0]);
    assert!(b.units.iter().all(|u| u.day == nouns::DayRecord::default()));
    hot.weather = Weather::Hot;
    turn::end_of_day(&mut hot, &mut ev);
    let q: Vec<u32> = hot.units.iter().map(|u| u.fatigue_quarters).collect();
    assert_eq!(q, [8, 4, 2, 0]);
}

/// The day ends when dawn begins: 1st Brigade, facing south, marches away
/// from the enemy at night (3:30am in summer: movement halved, 8" -> 4";
/// north, toward the enemy, it could not go at all); the next turn starts
/// at 4:00, the start of dawn, and its day's march costs it 1/4 fatigue.
#[test]
fn sfrm_time_weather_daylight_the_day_ends_at_dawn() {
    let mut b = quiet();
    b.start_minute = 3 * 60 + 30;
    b.units[0].facing = 180.0;
    let orders = TurnOrders {
        union: vec![Order::Move {
            unit: UnitId(1),
            to: Pos::new(0.0, -6.0),
            front_rank: None,
            road: false,
        }],
        confederate: vec![],
    };
    let north = TurnOrders {
        union: vec![Order::Move {
            unit: UnitId(1),
            to: Pos::new(0.0, 6.0),
            front_rank: None,
            road: false,
        }],
        confederate: vec![],
    };
    // Toward an enemy it sees (Baylor's brigade 15" north, within the
    // night's 18" sight) it cannot go at all.
    let mut seen = b.clone();
    seen.units[2].pos = Pos::new(0.0, 15.0);
    let (_, ev) = play(&seen, &north, &[1, 6]);
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::OrderRefused { reason, .. } if reason.contains("at night"))
    ));
    let (b, ev) = play(&b, &orders, &[1, 6]);
    assert!(close(b.unit(UnitId(1)).unwrap().pos, 0.0, -4.0));
    assert!(
        ev.iter()
            .any(|e| matches!(e, SfrmEvent::Moved { allowance, .. } if *allowance == 4.0))
    );
    assert_eq!(b.unit(UnitId(1)).unwrap().day.night_turns_moved, 1);
    let (b, ev) = play(&b, &TurnOrders::default(), &[6, 6]);
    assert!(
        ev.iter().any(
            |e| matches!(e, SfrmEvent::Fatigue { unit, before: 0, after: 1, .. } if unit.0 == 1)
        )
    );
    assert_eq!(b.unit(UnitId(1)).unwrap().fatigue_quarters, 1);
}

/// SFRM "Manoeuvre" (iii) and "Movement" (frontage). 1st Brigade, 6
/// elements in one rank (6 x 3/4" = 4.5" front), wheels 90° clockwise on
/// its right front corner (2.25, 0): the left corner travels 4.5 x π/2 =
/// 7.07" (of 8"), and the front's centre ends at (2.25, 2.25) facing 90°.
/// 2nd Brigade contracts its line to 3 elements in front as it moves.
#[test]
fn sfrm_manoeuvre_wheel_and_frontage() {
    let mut b = quiet();
    b.units[1].pos = Pos::new(2.0, -2.0);
    let orders = TurnOrders {
        union: vec![
            Order::Wheel {
                unit: UnitId(1),
                degrees: 90.0,
            },
            Order::Move {
                unit: UnitId(2),
                to: Pos::new(2.0, -4.0),
                front_rank: Some(3),
                road: false,
            },
        ],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &orders, &[1, 6]);
    let u = after.unit(UnitId(1)).unwrap();
    assert!(close(u.pos, 2.25, 2.25), "{:?}", u.pos);
    assert!((u.facing - 90.0).abs() < 1e-9);
    assert!(
        ev.iter()
            .any(|e| matches!(e, SfrmEvent::Moved { unit, cost, .. }
        if unit.0 == 1 && (*cost - 4.5 * std::f64::consts::FRAC_PI_2).abs() < 1e-9))
    );
    let second = after.unit(UnitId(2)).unwrap();
    assert_eq!(second.front_elements(), 3);
    // Backwards (facing north, moving south): 2" costs 4".
    assert!(ev.iter().any(|e| matches!(e, SfrmEvent::Moved { unit, cost, .. } if unit.0 == 2 && (*cost - 4.0).abs() < 1e-9)));
}

/// SFRM "Command": range is halved through woods. 1st Brigade 3" from
/// Doubleday (range 4") is out of command with a wood between them (2").
/// And (ii): 2nd Brigade in march column with Doubleday attached is in
/// command though his roll fails.
#[test]
fn sfrm_command_range_through_woods_and_the_column() {
    let mut b = quiet();
    b.units[0].pos = Pos::new(0.0, 2.0);
    b.ground.push(Area {
        ground: Ground::Woods,
        min: Pos::new(-2.0, -0.5),
        max: Pos::new(2.0, 0.5),
    });
    let (_, ev) = play(&b, &TurnOrders::default(), &[1, 6]);
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::Command { unit, in_command: false, .. } if unit.0 == 1)));
    b.ground.clear();
    b.units[1].formation = Formation::MarchColumn;
    b.generals[0].pos = b.units[1].pos;
    b.generals[0].attached_to = Some(UnitId(2));
    let (_, ev) = play(&b, &TurnOrders::default(), &[6, 6]);
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::Command { unit, in_command: true, by: Some(GeneralId(1)), section } if unit.0 == 2 && section == "SFRM Command (ii)")));
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::Command { unit, in_command: false, .. } if unit.0 == 1)));
}

/// SFRM "Combat": mounted cavalry charging infantry in the open count +1
/// multiple. Union cavalry (6 mounted elements, carbines) with Doubleday
/// charge Baylor 8" ahead (mounted line 18"). Baylor fires first: 6 + 1
/// (Confederate) + 1 (target mounted cavalry) = 8: 1, die 6 misses
/// (Table 3 for Doubleday: 3 + 4). The cavalry: 5 x 1, +5 charging, +2
/// Doubleday = 12: 2 casualties, no die. Baylor, regular, routs.
#[test]
fn sfrm_combat_mounted_cavalry_charge_multiple() {
    let mut b = two_brigades_a_side();
    b.units[0].arm = Arm::Cavalry {
        weapon: SmallArm::Carbines,
    };
    b.units[0].mounted = true;
    b.units[0].pos = Pos::new(0.0, 2.0);
    b.generals[0].pos = Pos::new(0.0, 2.0);
    b.generals[0].attached_to = Some(UnitId(1));
    // Taliaferro out of the way (a charge that touches him would send him
    // to Table 3).
    b.generals[1].pos = Pos::new(-5.0, 11.0);
    let orders = TurnOrders {
        union: vec![Order::Charge {
            unit: UnitId(1),
            target: UnitId(3),
        }],
        confederate: vec![],
    };
    // Union phase: command 1; Baylor 6; Table 3 (3, 4); guns at 2nd
    // Brigade 6. Confederate phase: command 6; guns 6.
    let (after, ev) = play(&b, &orders, &[1, 6, 3, 4, 6, 6, 6]);
    let SfrmEvent::Fired { terms, total, .. } = fired(&ev, 1)[0] else {
        unreachable!()
    };
    assert_eq!(terms[1].text, "mounted cavalry charging: +1 multiple");
    assert_eq!(*total, 12);
    let SfrmEvent::Fired { total, .. } = fired(&ev, 3)[0] else {
        unreachable!()
    };
    assert_eq!(*total, 8);
    let baylor = after.unit(UnitId(3)).unwrap();
    assert_eq!((baylor.elements, baylor.routed), (4, true));
}

/// SFRM "Combat" (double canister): smoothbores +2 multiples, rifled +1;
/// Gatlings count as rifled (our ruling).
#[test]
fn sfrm_combat_double_canister_smoothbore_and_rifled() {
    assert!(Gun::SixPounder.smoothbore() && Gun::TwelvePounder.smoothbore());
    assert!(!Gun::TenPounderRifled.smoothbore() && !Gun::TwentyPounderSiege.smoothbore());
    assert!(!Gun::Gatling.smoothbore());
}

/// SFRM "Time, Weather & Daylight": by night "movement cannot go closer to
/// known enemy". Known is what the side sees: Baylor's brigade 30" north
/// is beyond the night's sight (36" halved), so 1st Brigade marches 4"
/// north toward him (night halves its 8"); 15" north he is seen and it
/// cannot go at all. His own stand-off (1" for a line) holds either way.
#[test]
fn sfrm_night_movement_is_held_only_by_known_enemy() {
    let mut b = quiet();
    b.start_minute = 3 * 60 + 30;
    b.units[2].pos = Pos::new(0.0, 30.0);
    let north = TurnOrders {
        union: vec![Order::Move {
            unit: UnitId(1),
            to: Pos::new(0.0, 6.0),
            front_rank: None,
            road: false,
        }],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &north, &[1, 6]);
    assert!(
        close(after.unit(UnitId(1)).unwrap().pos, 0.0, 4.0),
        "{ev:?}"
    );
    assert!(
        !ev.iter()
            .any(|e| matches!(e, SfrmEvent::OrderRefused { .. })),
        "{ev:?}"
    );
    b.units[2].pos = Pos::new(0.0, 15.0);
    let (after, ev) = play(&b, &north, &[1, 6]);
    assert!(close(after.unit(UnitId(1)).unwrap().pos, 0.0, 0.0));
    assert!(ev.iter().any(
        |e| matches!(e, SfrmEvent::OrderRefused { reason, .. } if reason.contains("at night"))
    ));
}

/// Our ruling on the table's edge: 1st Brigade, 2" from the south edge,
/// ordered 6" south, stops on the edge and its report says why; a rout
/// move that would leave the table cannot be made, so the routing unit is
/// dispersed (SFRM "Rout Moves": "Routing units that cannot move are
/// dispersed"); a general does not ride off it.
#[test]
fn sfrm_movement_stops_at_the_table_edge() {
    let mut b = quiet();
    b.table = Some(crate::rules::sfrm::battle::nouns::Table {
        width: 100.0,
        height: 100.0,
    });
    b.units[0].pos = Pos::new(0.0, 2.0);
    b.units[0].facing = 180.0;
    b.generals[0].pos = Pos::new(1.0, 1.0);
    let south = TurnOrders {
        union: vec![
            Order::Move {
                unit: UnitId(1),
                to: Pos::new(0.0, -4.0),
                front_rank: None,
                road: false,
            },
            Order::GeneralMove {
                general: GeneralId(1),
                to: Pos::new(1.0, -5.0),
            },
        ],
        confederate: vec![],
    };
    let (after, ev) = play(&b, &south, &[1, 6]);
    assert!(
        close(after.unit(UnitId(1)).unwrap().pos, 0.0, 0.0),
        "{ev:?}"
    );
    assert!(
        ev.iter()
            .any(|e| matches!(e, SfrmEvent::Moved { stopped: Some(why), .. }
        if why.contains("south edge of the table"))),
        "{ev:?}"
    );
    assert!(
        ev.iter()
            .any(|e| matches!(e, SfrmEvent::OrderRefused { reason, .. }
        if reason.contains("Doubleday would ride past the south edge"))),
        "{ev:?}"
    );
    assert_eq!(after.general(GeneralId(1)).unwrap().pos, Pos::new(1.0, 1.0));
    // A voluntary rout move from the corner, with no friend to go to and
    // the enemy to the north: off the table, so dispersed.
    let mut corner = b.clone();
    corner.units[0].pos = Pos::new(0.5, 0.5);
    corner.units[0].facing = 0.0;
    corner.units.retain(|u| u.id != UnitId(2));
    corner.units[1].pos = Pos::new(0.5, 20.0);
    let rout = TurnOrders {
        union: vec![Order::RoutMove { unit: UnitId(1) }],
        confederate: vec![],
    };
    let (after, ev) = play(&corner, &rout, &[1, 6]);
    assert!(after.unit(UnitId(1)).unwrap().dispersed, "{ev:?}");
}
