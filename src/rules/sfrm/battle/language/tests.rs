//! Orders in words on the small First Bull Run of the view's fog probes:
//! the Union has Sherman's, Keyes's and Porter's brigades and Ricketts's
//! Battery under Tyler and Hunter (divisions) and McDowell (army); it sees
//! Evans's Brigade, not the 33rd Virginia (woods) nor Hampton's Legion
//! (reverse slope of Henry Hill).

use super::*;
use crate::rules::sfrm::battle::nouns::Formation;
use crate::rules::sfrm::battle::orders::SfrmEvent;
use crate::rules::sfrm::battle::view::tests::bull_run;

fn places() -> Vec<Place> {
    [
        ("Henry Hill", 30.0, 0.0),
        ("Stone Bridge", 10.0, 5.0),
        ("Centreville", -30.0, 5.0),
        ("Sudley Ford", -10.0, 20.0),
    ]
    .into_iter()
    .map(|(n, x, y)| Place {
        name: n.into(),
        pos: Pos::new(x, y),
    })
    .collect()
}

fn read(side: Side, naming: &EnemyNaming, body: &str) -> (Reading, String) {
    let b = bull_run();
    let pl = places();
    let cx = Context {
        battle: &b,
        side,
        places: &pl,
        naming,
    };
    let r = parse_orders(&cx, body);
    let receipt = receipt(&cx, &r);
    (r, receipt)
}

fn union(body: &str) -> (Reading, String) {
    read(Side::Union, &EnemyNaming::known(), body)
}

fn close(a: Pos, b: Pos) -> bool {
    a.distance(b) < 1e-6
}

#[test]
fn sfrm_orders_to_a_brigade_by_place_and_by_its_commander_name() {
    let (r, receipt) = union("Sherman's brigade: advance on the Stone Bridge\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.orders.union.len(), 1);
    match &r.orders.union[0] {
        Order::Move { unit, to, road, .. } => {
            assert_eq!(*unit, UnitId(1));
            assert!(close(*to, Pos::new(10.0, 5.0)));
            assert!(!road);
        }
        o => panic!("{o:?}"),
    }
    assert!(
        receipt.contains("Sherman's Brigade: move to Stone Bridge (10.0, 5.0)"),
        "{receipt}"
    );
}

#[test]
fn sfrm_orders_through_a_division_go_to_each_brigade_keeping_their_places() {
    // Tyler has Sherman (0,0), Keyes (6,0) and Ricketts (3,-2): centre
    // (3, -2/3). To Henry Hill (30, 0) each moves by (27, 2/3).
    let (r, receipt) = union("Tyler's division: advance on Henry Hill\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let moves: Vec<(UnitId, Pos)> = r
        .orders
        .union
        .iter()
        .filter_map(|o| match o {
            Order::Move { unit, to, .. } => Some((*unit, *to)),
            _ => None,
        })
        .collect();
    assert_eq!(moves.len(), 3);
    assert!(close(moves[0].1, Pos::new(27.0, 2.0 / 3.0)));
    assert!(close(moves[1].1, Pos::new(33.0, 2.0 / 3.0)));
    assert_eq!(r.understood[0].through, Some(GeneralId(1)));
    assert!(receipt.contains("through General Tyler"), "{receipt}");
    assert!(receipt.contains("SFRM Command"), "{receipt}");
    // The army general's order reaches every brigade of both divisions.
    let (r, _) = union("McDowell: form line facing north\n");
    assert_eq!(r.orders.union.len(), 4);
    assert!(r.orders.union.iter().all(|o| matches!(
        o,
        Order::Formation {
            formation: Formation::Line,
            facing: Some(f),
            ..
        } if *f == 0.0
    )));
}

#[test]
fn sfrm_orders_compass_and_distance_in_inches_and_yards() {
    let (r, _) = union(
        "Sherman: advance 3 inches north-east\nKeyes: retire 400 yards south\nPorter: move west 2\"\n",
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let to: Vec<Pos> = r
        .orders
        .union
        .iter()
        .filter_map(|o| match o {
            Order::Move { to, .. } => Some(*to),
            _ => None,
        })
        .collect();
    assert!(close(to[0], Pos::new(0.0, 0.0).step(45.0, 3.0)));
    // 400 yards = 4" at Table 1's 1" = 100 yd.
    assert!(close(to[1], Pos::new(6.0, -4.0)));
    assert!(close(to[2], Pos::new(-12.0, 0.0)));
    // "advance" alone: a whole Table 4 line allowance (foot, 8") ahead.
    let (r, _) = union("Sherman: advance\n");
    assert!(matches!(r.orders.union[0], Order::Move { to, .. } if close(to, Pos::new(0.0, 8.0))));
}

#[test]
fn sfrm_orders_march_by_the_road_to_a_place() {
    let (r, receipt) = union("Keyes's brigade: march by the turnpike to Centreville\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    match r.orders.union[0] {
        Order::Move { unit, to, road, .. } => {
            assert_eq!(unit, UnitId(2));
            assert!(road);
            assert!(close(to, Pos::new(-30.0, 5.0)));
        }
        ref o => panic!("{o:?}"),
    }
    assert!(receipt.contains("by the road"), "{receipt}");
}

#[test]
fn sfrm_orders_cross_then_attack_the_enemy_flank_fires_after_the_move() {
    let (r, receipt) =
        union("Sherman's brigade will cross at the Ford and attack the enemy's left\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(
        r.orders.union,
        vec![
            Order::Move {
                unit: UnitId(1),
                to: Pos::new(-10.0, 20.0),
                front_rank: None,
                road: false
            },
            Order::Target {
                unit: UnitId(1),
                target: UnitId(10)
            }
        ]
    );
    assert!(receipt.contains("fire at Evans's Brigade"), "{receipt}");
}

#[test]
fn sfrm_orders_charge_needs_no_name_and_attack_charges_with_a_general() {
    let (r, _) = union("Sherman: charge\n");
    assert_eq!(
        r.orders.union,
        vec![Order::Charge {
            unit: UnitId(1),
            target: UnitId(10)
        }]
    );
    // Without a general attached, "attack" moves on the enemy and fires.
    let (r, _) = union("Keyes: attack the enemy\n");
    assert_eq!(r.orders.union.len(), 2);
    assert!(matches!(r.orders.union[1], Order::Target { target, .. } if target == UnitId(10)));
}

#[test]
fn sfrm_orders_generals_ride_attach_and_detach() {
    let (r, receipt) = union(
        "Tyler: ride to the Stone Bridge\nHunter: join Porter's brigade\nattach Gen. McDowell to Sherman's brigade\n",
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(
        r.orders.union,
        vec![
            Order::GeneralMove {
                general: GeneralId(1),
                to: Pos::new(10.0, 5.0)
            },
            Order::Attach {
                general: GeneralId(2),
                unit: Some(UnitId(3))
            },
            Order::Attach {
                general: GeneralId(3),
                unit: Some(UnitId(1))
            },
        ]
    );
    assert!(receipt.contains("General McDowell: attach to Sherman's Brigade"));
    let (r, _) = union("Hunter: detach\n");
    assert_eq!(
        r.orders.union,
        vec![Order::Attach {
            general: GeneralId(2),
            unit: None
        }]
    );
}

#[test]
fn sfrm_orders_confederate_attach_jackson_to_his_brigade_and_hold() {
    let (r, receipt) = read(
        Side::Confederate,
        &EnemyNaming::known(),
        "attach Gen. Jackson to the 33rd Virginia brigade\nEvans: hold the Stone Bridge\nCocke: entrench\n",
    );
    // Evans's Brigade has its own order on line 2, which comes before its
    // general's: Cocke's entrench reaches only Hampton's Legion, and the
    // receipt says why.
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert!(
        receipt.contains("Evans's Brigade keeps the order written to it on line 2"),
        "{receipt}"
    );
    assert_eq!(
        r.orders.confederate[0],
        Order::Attach {
            general: GeneralId(11),
            unit: Some(UnitId(11))
        }
    );
    // Evans's Brigade stands at (0, 10): holding the bridge is a move there.
    assert!(matches!(
        r.orders.confederate[1],
        Order::Move { unit, to, .. } if unit == UnitId(10) && close(to, Pos::new(10.0, 5.0))
    ));
    // Cocke commands Evans's Brigade and Hampton's Legion.
    assert_eq!(
        &r.orders.confederate[2..],
        &[Order::Entrench { unit: UnitId(12) }]
    );
    assert!(receipt.contains("Hampton's Legion: entrench"), "{receipt}");
}

#[test]
fn sfrm_orders_formations_wheel_rally_and_rout() {
    let (r, _) = union(
        "Sherman: form march column\nKeyes: wheel left 30 degrees\nPorter: rally\nRicketts's Battery: face about\n",
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(
        r.orders.union,
        vec![
            Order::Formation {
                unit: UnitId(1),
                formation: Formation::MarchColumn,
                facing: None,
                front_rank: None,
                mounted: None,
                prone: None
            },
            Order::Wheel {
                unit: UnitId(2),
                degrees: -30.0
            },
            Order::Unrout {
                unit: UnitId(3),
                formation: None
            },
            Order::Formation {
                unit: UnitId(4),
                formation: Formation::Line,
                facing: Some(180.0),
                front_rank: None,
                mounted: None,
                prone: None
            },
        ]
    );
}

#[test]
fn sfrm_orders_bad_lines_get_errors_with_suggestions_and_the_rest_counts() {
    let body = "From McDowell:\nShremann: advance\nKeyes: advance on Henri Hills\nPorter: dance\nKeyes: form wedge\n\nSherman: entrench\n";
    let (r, receipt) = union(body);
    // The good line still counts.
    assert_eq!(
        r.orders.union,
        vec![Order::Entrench { unit: UnitId(1) }],
        "{receipt}"
    );
    assert_eq!(r.errors.len(), 4, "{:?}", r.errors);
    assert_eq!((r.errors[0].line, r.errors[0].column), (2, 1));
    assert!(
        r.errors[0]
            .message
            .contains("did you mean Sherman's Brigade?")
    );
    assert_eq!(r.errors[1].line, 3);
    assert_eq!(r.errors[1].column, 8);
    assert!(r.errors[1].message.contains("did you mean Henry Hill?"));
    assert!(
        r.errors[1]
            .message
            .contains("no place called 'Henri Hills'"),
        "{}",
        r.errors[1].message
    );
    assert!(r.errors[2].message.contains("try advance"));
    assert!(r.errors[3].message.contains("SFRM Formation Changes"));
    assert!(receipt.contains("line 3, column 8"), "{receipt}");
    if std::env::var_os("SFRM_SHOW").is_some() {
        println!("{receipt}");
    }
}

#[test]
fn sfrm_orders_one_move_a_turn() {
    let (r, _) = union("Sherman: advance north 2 inches; form line\nSherman: entrench\n");
    assert_eq!(r.orders.union.len(), 1);
    assert_eq!(r.errors.len(), 2, "{:?}", r.errors);
    assert!(r.errors[0].message.contains("one movement order a turn"));
    assert_eq!(r.errors[1].line, 2);
}

/// The fog in the language: the hidden enemy can be neither aimed at nor
/// found out, and the answer for a hidden one is the answer for one that
/// does not exist.
#[test]
fn sfrm_orders_never_reveal_an_unseen_enemy() {
    let (hidden, r1) = union("Sherman: charge the 33rd Virginia Brigade\n");
    let (missing, r2) = union("Sherman: charge the 99th Nowhere Brigade\n");
    assert!(hidden.orders.union.is_empty());
    assert!(missing.orders.union.is_empty());
    let strip = |s: &str| {
        s.to_lowercase()
            .replace("33rd virginia brigade", "x")
            .replace("99th nowhere brigade", "x")
    };
    assert_eq!(strip(&r1), strip(&r2));
    assert!(!r1.contains("Hampton"));
    // "the enemy on Henry Hill" finds the seen enemy nearest it, never
    // Hampton's Legion on its reverse slope.
    let (r, receipt) = union("Porter: fire at the enemy on Henry Hill\n");
    assert_eq!(
        r.orders.union,
        vec![Order::Target {
            unit: UnitId(3),
            target: UnitId(10)
        }]
    );
    assert!(!receipt.contains("Hampton"));
    // Enemy names are not addressees: the answer lists only our own.
    let (r, receipt) = union("Hampton's Legion: advance\n");
    assert!(r.orders.union.is_empty());
    assert!(
        !receipt.contains("Hampton's Legion:")
            || receipt.contains("no brigade or general of yours")
    );
    assert!(!r.errors[0].message.contains("Evans"));
}

#[test]
fn sfrm_orders_hidden_identities_use_the_designation() {
    let naming = EnemyNaming {
        known: false,
        designations: std::collections::BTreeMap::from([(UnitId(10), "A".to_string())]),
    };
    let (r, receipt) = read(Side::Union, &naming, "Sherman: fire at enemy brigade A\n");
    assert_eq!(
        r.orders.union,
        vec![Order::Target {
            unit: UnitId(1),
            target: UnitId(10)
        }]
    );
    assert!(
        receipt.contains("fire at enemy infantry brigade A"),
        "{receipt}"
    );
    assert!(!receipt.contains("Evans"), "{receipt}");
    // The real name under hidden identities reads as an unknown enemy.
    let (r, receipt) = read(Side::Union, &naming, "Sherman: fire at Evans's Brigade\n");
    assert!(r.orders.union.is_empty());
    assert!(receipt.contains("enemy infantry brigade A"), "{receipt}");
}

#[test]
fn sfrm_orders_never_panic_on_junk() {
    for body in [
        "",
        ":",
        "::::",
        "Sherman:",
        "Sherman: advance 1e400 inches north",
        "Sherman: advance -3 inches north",
        "Sherman: wheel right NaN",
        "Sherman: advance to (nan, 3)",
        "Sherman: advance to (1, 2",
        "attach",
        "attach to",
        "Tyler: ride to",
        "Sherman: march by the",
        "Sherman: march by the turnpike",
        "\u{feff}Sherman: advance ünïcödé ✓",
        "Sherman's brigade will",
        "İİİ Sherman will İstanbul; İİ and İ",
        "Sherman: advance on İİİİ; then İ",
        "McDowell: charge; charge; and then and",
    ] {
        let (r, _) = union(body);
        for o in &r.orders.union {
            if let Order::Move { to, .. } = o {
                assert!(to.x.is_finite() && to.y.is_finite(), "{body}: {o:?}");
            }
        }
    }
}

/// A turn played as a stranger would: both sides' mails read, the turn
/// resolved with real dice, and each side's report checked for the fog.
#[test]
fn sfrm_orders_a_whole_turn_by_mail_and_each_sides_report() {
    use crate::dice::StreamDice;
    use crate::rules::sfrm::battle::turn::resolve_turn;
    use crate::rules::sfrm::battle::view::side_view;
    let b = bull_run();
    let pl = places();
    let naming = EnemyNaming::default();
    let u = Context {
        battle: &b,
        side: Side::Union,
        places: &pl,
        naming: &naming,
    };
    let c = Context {
        battle: &b,
        side: Side::Confederate,
        places: &pl,
        naming: &naming,
    };
    let ru = parse_orders(
        &u,
        "From McDowell:\nTyler's division: advance 2 inches north\nHunter: join Porter's brigade\nPorter's brigade will march west 3 inches\n",
    );
    let rc = parse_orders(
        &c,
        "attach Gen. Jackson to the 33rd Virginia brigade\nEvans: hold\nHampton's Legion: entrench\n",
    );
    assert!(
        ru.errors.is_empty() && rc.errors.is_empty(),
        "{ru:?} {rc:?}"
    );
    let orders = TurnOrders {
        union: ru.orders.union.clone(),
        confederate: rc.orders.confederate.clone(),
    };
    let mut dice = StreamDice::new([3; 32]);
    let (after, ev) = resolve_turn(&b, &orders, &mut dice).unwrap();
    let v = side_view(&after, &ev, Side::Union, &naming);
    for w in [
        "33rd Virginia",
        "Hampton",
        "Jackson",
        "Beauregard",
        "Evans",
        "Cocke",
    ] {
        assert!(!v.narrative.contains(w), "{w}:\n{}", v.narrative);
    }
    assert!(v.narrative.contains("Sherman's Brigade"), "{}", v.narrative);
    assert!(!receipt(&u, &ru).contains("-0.0"), "{}", receipt(&u, &ru));
    let cv = side_view(&after, &ev, Side::Confederate, &naming);
    for w in [
        "Sherman", "Keyes", "Porter", "Tyler", "Hunter", "McDowell", "Ricketts",
    ] {
        assert!(!cv.narrative.contains(w), "{w}:\n{}", cv.narrative);
    }
    if std::env::var_os("SFRM_SHOW").is_some() {
        println!("{}\n{}\n{}", receipt(&u, &ru), v.narrative, cv.narrative);
    }
}

#[test]
fn sfrm_orders_each_order_knows_its_line_and_a_generals_own_ride_is_not_through_him() {
    let (r, receipt) = union("Hunter: join Porter's brigade\n\nTyler: entrench\n");
    assert_eq!(r.lines, vec![1, 3, 3, 3]);
    assert_eq!(r.orders.union.len(), r.lines.len());
    assert_eq!(r.understood[0].through, None);
    assert_eq!(r.understood[1].through, Some(GeneralId(1)));
    assert!(!receipt.contains("through General Hunter"), "{receipt}");
}

/// Under hidden identities no real enemy name reaches either side, over
/// several turns of fighting with any dice: the receipts, the refusals the
/// engine words with real names, and the reports.
#[test]
fn sfrm_orders_and_reports_never_carry_a_real_enemy_name_under_hidden_identities() {
    use crate::dice::StreamDice;
    use crate::rules::sfrm::battle::turn::resolve_turn;
    use crate::rules::sfrm::battle::view::side_view;
    let naming = EnemyNaming::default();
    let pl = places();
    let union_names = [
        "Sherman", "Keyes", "Porter", "Ricketts", "Tyler", "Hunter", "McDowell",
    ];
    let rebel_names = [
        "Evans",
        "33rd Virginia",
        "Hampton",
        "Beauregard",
        "Jackson",
        "Cocke",
    ];
    let (mut fights, mut refusals, mut charges) = (0, 0, 0);
    for seed in 0..8u8 {
        let mut b = bull_run();
        let mut dice = StreamDice::new([seed; 32]);
        for _ in 0..3 {
            let u = Context {
                battle: &b,
                side: Side::Union,
                places: &pl,
                naming: &naming,
            };
            let c = Context {
                battle: &b,
                side: Side::Confederate,
                places: &pl,
                naming: &naming,
            };
            let ru = parse_orders(
                &u,
                "McDowell: attack the enemy\nSherman: charge the enemy's left\nRicketts's Battery: fire at the nearest enemy\n",
            );
            let rc = parse_orders(
                &c,
                "Beauregard: attack the enemy\nEvans: charge\nHampton's Legion: advance on Henry Hill\n",
            );
            for (text, names) in [
                (receipt(&u, &ru), &rebel_names[..]),
                (receipt(&c, &rc), &union_names[..]),
            ] {
                for n in names.iter() {
                    assert!(!text.contains(n), "seed {seed}: {n} in receipt {text}");
                }
            }
            let orders = TurnOrders {
                union: ru.orders.union,
                confederate: rc.orders.confederate,
            };
            let (after, ev) = resolve_turn(&b, &orders, &mut dice).unwrap();
            for e in &ev {
                match e {
                    SfrmEvent::Fired { .. } => fights += 1,
                    SfrmEvent::OrderRefused { .. } => refusals += 1,
                    SfrmEvent::Charged { .. } => charges += 1,
                    _ => {}
                }
            }
            let uv = side_view(&after, &ev, Side::Union, &naming);
            let cv = side_view(&after, &ev, Side::Confederate, &naming);
            for n in rebel_names {
                assert!(
                    !uv.narrative.contains(n),
                    "seed {seed}: {n}\n{}",
                    uv.narrative
                );
            }
            for n in union_names {
                assert!(
                    !cv.narrative.contains(n),
                    "seed {seed}: {n}\n{}",
                    cv.narrative
                );
            }
            b = after;
        }
    }
    // The probe did see fighting, refusals and charges.
    assert!(
        fights > 0 && refusals > 0 && charges > 0,
        "{fights} {refusals} {charges}"
    );
}

#[test]
fn sfrm_orders_facing_the_enemy_or_a_place() {
    // Evans stands at (0, 10): due north of Sherman; the Stone Bridge is
    // at (10, 5) from Keyes at (6, 0).
    let (r, _) = union("Sherman: form line facing the enemy\nKeyes: face the Stone Bridge\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    match (&r.orders.union[0], &r.orders.union[1]) {
        (
            Order::Formation {
                facing: Some(a), ..
            },
            Order::Formation {
                facing: Some(b), ..
            },
        ) => {
            assert!(a.abs() < 1e-9);
            assert!((b - Pos::new(6.0, 0.0).bearing_to(Pos::new(10.0, 5.0))).abs() < 1e-9);
        }
        o => panic!("{o:?}"),
    }
    // An unseen enemy gives no facing.
    let (r, _) = union("Sherman: face the 33rd Virginia Brigade\n");
    assert!(r.orders.union.is_empty());
    assert_eq!(r.errors.len(), 1);
}

#[test]
fn sfrm_orders_a_general_joins_a_brigade_and_his_division_advances() {
    let (r, _) = union("Tyler: join Keyes's brigade and go to the Stone Bridge\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(
        r.orders.union[0],
        Order::Attach {
            general: GeneralId(1),
            unit: Some(UnitId(2))
        }
    );
    // "go to" is the division's move, not his ride: three brigades move.
    assert_eq!(
        r.orders
            .union
            .iter()
            .filter(|o| matches!(o, Order::Move { .. }))
            .count(),
        3
    );
}

#[test]
fn sfrm_orders_advance_on_a_seen_enemy_by_name_but_not_an_unseen_one() {
    let (r, _) = union("Keyes: advance on Evans's Brigade\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert!(matches!(r.orders.union[0], Order::Move { to, .. } if close(to, Pos::new(0.0, 10.0))));
    let (hidden, a) = union("Keyes: advance on Hampton's Legion\n");
    let (missing, b) = union("Keyes: advance on Smith's Legion\n");
    assert!(hidden.orders.union.is_empty() && missing.orders.union.is_empty());
    assert_eq!(
        a.replace("Hampton's Legion", "X"),
        b.replace("Smith's Legion", "X")
    );
}

/// SFRM "Breakthrough Advances & Combat" in words: a condition ("if the
/// enemy breaks, …") or `pursue`/`follow up`/`exploit`/`break through`
/// gives the breakthrough order, beside the turn's one movement order.
#[test]
fn sfrm_orders_breakthrough_advances_in_words() {
    let (r, receipt) =
        union("Sherman: charge the enemy, then if the enemy breaks, press on to Henry Hill\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(
        r.orders.union,
        vec![
            Order::Charge {
                unit: UnitId(1),
                target: UnitId(10)
            },
            Order::BreakthroughMove {
                unit: UnitId(1),
                to: Pos::new(30.0, 0.0)
            }
        ]
    );
    assert!(
        receipt.contains("Sherman's Brigade: if it charges and routs every enemy it meets, advance up to half a move more toward Henry Hill (30.0, 0.0) (SFRM Breakthrough Advances & Combat)"),
        "{receipt}"
    );
    // "pursue" with no more: straight ahead (north), a whole allowance;
    // the engine takes half of it.
    let (r, _) = union("Keyes: charge; pursue\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    match &r.orders.union[1] {
        Order::BreakthroughMove { unit, to } => {
            assert_eq!(*unit, UnitId(2));
            assert!((to.x - 6.0).abs() < 1e-9 && to.y > 0.0, "{to:?}");
        }
        o => panic!("{o:?}"),
    }
    // "pursue the enemy" without a general: the advance toward him (the
    // engine keeps 1" off); "follow up to" and "if he routs," the same.
    let (r, _) = union("Keyes: pursue the enemy\n");
    assert_eq!(
        r.orders.union,
        vec![Order::BreakthroughMove {
            unit: UnitId(2),
            to: Pos::new(0.0, 10.0)
        }]
    );
    for body in [
        "Keyes: follow up to the Stone Bridge\n",
        "Keyes: if he routs, advance to the Stone Bridge\n",
        "Keyes: if the enemy gives way then move on the Stone Bridge\n",
    ] {
        let (r, _) = union(body);
        assert!(r.errors.is_empty(), "{body}: {:?}", r.errors);
        assert_eq!(
            r.orders.union,
            vec![Order::BreakthroughMove {
                unit: UnitId(2),
                to: Pos::new(10.0, 5.0)
            }],
            "{body}"
        );
    }
    // Through a general: each of his brigades.
    let (r, _) = union("Tyler's division: if the enemy breaks, pursue\n");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert!(!r.orders.union.is_empty());
    assert!(
        r.orders
            .union
            .iter()
            .all(|o| matches!(o, Order::BreakthroughMove { .. }))
    );
    assert!(r.understood[0].through.is_some());
}

/// A breakthrough is the only order on a condition, only an advance or a
/// charge, and once a turn; everything else on the line still counts.
#[test]
fn sfrm_orders_breakthrough_errors_say_what_the_rule_allows() {
    let (r, _) = union("Sherman: if it rains, entrench\n");
    assert_eq!(r.errors.len(), 1);
    assert!(
        r.errors[0]
            .message
            .contains("not a condition the rules know"),
        "{:?}",
        r.errors
    );
    let (r, _) = union("Sherman: if the enemy breaks, entrench\n");
    assert!(
        r.errors[0]
            .message
            .contains("may only advance up to half a move or charge again"),
        "{:?}",
        r.errors
    );
    let (r, _) = union("Sherman: charge; pursue; if the enemy breaks, press on to Henry Hill\n");
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    assert!(
        r.errors[0]
            .message
            .contains("already has its breakthrough order")
    );
    assert_eq!(r.orders.union.len(), 2);
    // An unseen enemy is answered as one that does not exist.
    let (hidden, _) = union("Sherman: pursue Hampton's Legion\n");
    let (none, _) = union("Sherman: pursue Smith's Legion\n");
    assert_eq!(
        hidden.errors[0].message.replace("Hampton", "Smith"),
        none.errors[0].message
    );
}

/// The engine takes the words' breakthrough order: a brigade that did not
/// charge is refused its advance with the rule's reason, and no unit
/// moves for it.
#[test]
fn sfrm_orders_breakthrough_words_reach_the_engine() {
    let b = bull_run();
    let pl = places();
    let naming = EnemyNaming::known();
    let cx = Context {
        battle: &b,
        side: Side::Union,
        places: &pl,
        naming: &naming,
    };
    let r = parse_orders(
        &cx,
        "Keyes: hold; if the enemy breaks, press on to Henry Hill\n",
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let mut dice = crate::dice::StreamDice::new([3; 32]);
    let (after, ev) = crate::rules::sfrm::battle::resolve_turn(&b, &r.orders, &mut dice).unwrap();
    assert!(ev.iter().any(|e| matches!(e,
        SfrmEvent::OrderRefused { reason, section, .. }
            if reason.contains("did not charge") && section == "SFRM Breakthrough Advances & Combat")));
    assert_eq!(
        after.unit(UnitId(2)).unwrap().pos,
        b.unit(UnitId(2)).unwrap().pos
    );
}

/// As players write: a name with one slip ("Shermans brigade", an
/// apostrophe left out) is the one name it is a letter from, read back
/// whole; a spaced dash after the name is the colon (found playing First
/// Bull Run by mail).
#[test]
fn sfrm_orders_a_slip_in_the_name_and_a_dash_after_it() {
    for body in [
        "Shermans brigade: advance on the Stone Bridge\n",
        "Sherman's brigade - advance on the Stone Bridge\n",
    ] {
        let (r, receipt) = union(body);
        assert!(r.errors.is_empty(), "{body}: {:?}", r.errors);
        assert_eq!(r.orders.union.len(), 1, "{body}");
        assert!(
            receipt.contains("Sherman's Brigade: move to Stone Bridge"),
            "{body}: {receipt}"
        );
    }
    // Two slips, or a short name, are not guessed.
    let (r, _) = union("Shremans brigade: advance on the Stone Bridge\n");
    assert_eq!(r.errors.len(), 1);
}

/// First Bull Run as a game opens it (the scenario file, each side's
/// letters for the enemy it sees), and the scenario's places.
fn first_bull_run() -> (
    crate::rules::sfrm::battle::mail_engine::MailState,
    Vec<Place>,
) {
    use crate::rules::MailEngine;
    let text = include_str!("../../../../../scenarios/first-bull-run.toml");
    let opened = crate::rules::sfrm::battle::mail_engine::SfrmMail
        .open(text, "first-bull-run.toml")
        .unwrap();
    let state: crate::rules::sfrm::battle::mail_engine::MailState =
        serde_json::from_str(&opened.state_json).unwrap();
    let s =
        crate::rules::sfrm::battle::scenario::from_toml_str(text, "first-bull-run.toml").unwrap();
    (state, crate::rules::sfrm::battle::mail_engine::places(&s))
}

/// Reads each order of the corpus on its own, as a one-line mail from its
/// side at the opening position: (side, order, reading, receipt).
fn corpus_readings() -> Vec<(Side, String, Reading, String)> {
    let (state, places) = first_bull_run();
    let corpus = include_str!("../../../../../tests/corpus/sfrm-first-bull-run-orders.txt");
    let mut out = Vec::new();
    for line in corpus.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (side, order) = line.split_once('|').unwrap();
        let side = match side.trim() {
            "union" => Side::Union,
            _ => Side::Confederate,
        };
        let naming = state.naming(side);
        let cx = Context {
            battle: &state.battle,
            side,
            places: &places,
            naming: &naming,
        };
        let r = parse_orders(&cx, order.trim());
        let rc = receipt(&cx, &r);
        out.push((side, order.trim().to_string(), r, rc));
    }
    out
}

#[test]
fn sfrm_orders_first_bull_run_corpus() {
    let all = corpus_readings();
    assert_eq!(all.len(), 40);
    let mut understood = 0;
    for (side, order, r, rc) in &all {
        let ok = r.errors.is_empty() && !r.understood.is_empty();
        understood += usize::from(ok);
        println!(
            "{} {side:?} | {order}\n    {}",
            if ok { "OK " } else { "ERR" },
            rc.trim_end().replace('\n', "\n    ")
        );
    }
    println!("understood {understood} of {}", all.len());
    // First sight was 18 of 40 (docs/sfrm-by-mail.md); the two left are
    // right to refuse: a second move in one turn.
    assert!(understood >= 38, "understood {understood} of 40");
    let (state, _) = first_bull_run();
    let b = &state.battle;
    let reading = |order: &str| {
        all.iter()
            .find(|(_, o, _, _)| o == order)
            .map(|(_, _, r, rc)| (r, rc.as_str()))
            .unwrap()
    };
    for (side, order, r, rc) in &all {
        if !r.errors.is_empty() || r.understood.is_empty() {
            assert!(
                r.errors
                    .iter()
                    .any(|e| e.message.contains("one movement order a turn")),
                "{order}: {rc}"
            );
        }
        // Never a real enemy name, never a move off the table.
        for e in b.units.iter().filter(|u| u.side != *side) {
            assert!(!rc.contains(&e.name), "{order}: {rc}");
        }
        for o in r.orders.of(*side) {
            if let Order::Move { to, .. } = o
                && !b.table.unwrap().contains(*to)
            {
                assert!(rc.contains("edge of the table"), "{order}: {rc}");
            }
        }
    }
    // Support: a move to stand behind Burnside (facing 170°, so north of
    // him by his column's depth: 8 elements x 3/4").
    let (r, rc) = reading("Porter's brigade: support Burnside's brigade");
    match r.orders.union.as_slice() {
        [Order::Move { unit, to, .. }] => {
            let burnside = b
                .units
                .iter()
                .find(|u| u.name == "Burnside's brigade")
                .unwrap();
            assert_eq!(b.unit(*unit).unwrap().name, "Porter's brigade");
            assert!((to.distance(burnside.pos) - 6.0).abs() < 1e-6, "{rc}");
            assert!(to.y > burnside.pos.y, "{rc}");
        }
        o => panic!("{o:?}"),
    }
    assert!(rc.contains("SFRM has no support order"), "{rc}");
    // A general's whole command, his words or his superior's.
    let (r, rc) = reading("Gen. Hunter will advance his division to Matthews Hill");
    assert_eq!(r.orders.union.len(), 4, "{rc}");
    assert!(
        rc.contains("through General Hunter to Burnside's brigade, Porter's brigade, Palmer's cavalry, Hunter's artillery"),
        "{rc}"
    );
    let (r, rc) = reading("McDowell: Heintzelman's division will attack Henry Hill");
    assert_eq!(r.orders.union.len(), 4, "{rc}");
    assert!(rc.contains("through General Heintzelman (by General McDowell's order) to Franklin's brigade, Willcox's brigade, Howard's brigade, Heintzelman's artillery"), "{rc}");
    assert!(rc.contains("by General McDowell's order"), "{rc}");
    // Henry Hill is Henry House Hill, not the woods east of it.
    let (_, rc) = reading("Johnston's artillery: go to Henry Hill and fire on the enemy");
    assert!(rc.contains("move to Henry House Hill (45.0, 34.0)"), "{rc}");
    // "Heintzelman" alone is the general, not his artillery.
    let (r, _) = reading("Heintzelman: ride to Sudley Springs");
    assert!(matches!(
        r.orders.union.as_slice(),
        [Order::GeneralMove { .. }]
    ));
    // Slips of the pen in the name, the noun, the verb and the place.
    let (_, rc) = reading("Burnsides brigde: advence to Mathews Hill");
    assert!(
        rc.contains("Burnside's brigade: move to Matthews Hill"),
        "{rc}"
    );
    // Tyler's brigades behind Hunter's column would pass the north edge.
    let (_, rc) = reading("Tyler's division will support Hunter's division");
    assert!(rc.contains("north edge of the table"), "{rc}");
    // Two formation words are one formation change.
    let (r, _) = reading("Palmer's cavalry will dismount and form skirmish line");
    assert!(matches!(
        r.orders.union.as_slice(),
        [Order::Formation {
            formation: Formation::Skirmish,
            mounted: Some(false),
            ..
        }]
    ));
}

/// Found playing First Bull Run by mail: "1,000 yards" is a distance, and
/// a closing and a signature with the general's first name or initials are
/// the forms of a letter, not orders.
#[test]
fn sfrm_orders_thousands_and_the_forms_of_a_letter() {
    let (state, places) = first_bull_run();
    for (side, body) in [
        (
            Side::Union,
            "Palmer's cavalry: scout 1,000 yards north\nI remain, Sir, your obedient servant,\nIrvin McDowell\n",
        ),
        (
            Side::Confederate,
            "Elzey's brigade: advance 1,200 yards north\nVery respectfully,\nJ. E. Johnston\n",
        ),
    ] {
        let naming = state.naming(side);
        let cx = Context {
            battle: &state.battle,
            side,
            places: &places,
            naming: &naming,
        };
        let r = parse_orders(&cx, body);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        match r.orders.of(side) {
            [Order::Move { unit, to, .. }] => {
                let u = state.battle.unit(*unit).unwrap();
                let d = if side == Side::Union { 10.0 } else { 12.0 };
                assert!(close(*to, Pos::new(u.pos.x, u.pos.y + d)), "{to:?}");
            }
            o => panic!("{o:?}"),
        }
    }
    // A brigade's name alone on a line is still not understood.
    let (r, _) = union("Sherman\n");
    assert_eq!(r.errors.len(), 1);
}

/// Found playing First Bull Run by mail: an order to a brigade itself comes
/// before the order through its general, whichever line is first, and the
/// receipt says which.
#[test]
fn sfrm_orders_a_brigades_own_order_comes_before_its_generals() {
    let (state, places) = first_bull_run();
    let naming = state.naming(Side::Union);
    let cx = Context {
        battle: &state.battle,
        side: Side::Union,
        places: &places,
        naming: &naming,
    };
    let palmer = state
        .battle
        .units
        .iter()
        .find(|u| u.name == "Palmer's cavalry")
        .unwrap();
    for body in [
        "Gen. Hunter will advance his division to Matthews Hill\nPalmer's cavalry: retire 300 yards north\n",
        "Palmer's cavalry: retire 300 yards north\nGen. Hunter will advance his division to Matthews Hill\n",
    ] {
        let r = parse_orders(&cx, body);
        let rc = receipt(&cx, &r);
        assert!(r.errors.is_empty(), "{rc}");
        let his: Vec<&Order> = r
            .orders
            .union
            .iter()
            .filter(|o| unit_of(o) == Some(palmer.id))
            .collect();
        assert_eq!(his.len(), 1, "{rc}");
        assert!(
            matches!(his[0], Order::Move { to, .. } if close(*to, Pos::new(palmer.pos.x, palmer.pos.y + 3.0))),
            "{rc}"
        );
        assert_eq!(r.orders.union.len(), 4, "{rc}");
        assert_eq!(r.orders.union.len(), r.lines.len());
        assert!(
            rc.contains("instead of General Hunter's on line 1")
                || rc.contains("Palmer's cavalry keeps the order written to it on line 1"),
            "{rc}"
        );
    }
}

/// Found playing First Bull Run by mail: Stuart's cavalry told to support
/// Jackson's brigade rode to where Jackson stood as Jackson marched off to
/// Henry House Hill. A brigade supporting one the same mail moves stands
/// behind where that one is sent, whichever line comes first.
#[test]
fn sfrm_orders_support_goes_behind_where_the_supported_is_sent() {
    let (state, places) = first_bull_run();
    let naming = state.naming(Side::Confederate);
    let cx = Context {
        battle: &state.battle,
        side: Side::Confederate,
        places: &places,
        naming: &naming,
    };
    let unit = |n: &str| state.battle.units.iter().find(|u| u.name == n).unwrap();
    let jackson = unit("Jackson's brigade");
    let stuart = unit("Stuart's cavalry");
    for body in [
        "Jackson's brigade: advance to Henry House Hill\nStuart's cavalry: support Jackson\n",
        "Stuart's cavalry: support Jackson\nJackson's brigade: advance to Henry House Hill\n",
    ] {
        let r = parse_orders(&cx, body);
        let rc = receipt(&cx, &r);
        assert!(r.errors.is_empty(), "{rc}");
        let to = r
            .orders
            .confederate
            .iter()
            .find_map(|o| match o {
                Order::Move { unit, to, .. } if *unit == stuart.id => Some(*to),
                _ => None,
            })
            .unwrap();
        // Jackson's column (9 elements, 3/4" deep each) facing 320°, sent
        // to Henry House Hill (45, 34): Stuart's point is 6.75" behind it.
        let hill = Pos::new(45.0, 34.0);
        assert!((to.distance(hill) - 6.75).abs() < 1e-6, "{to:?} {rc}");
        assert!(close(to, hill.step(jackson.facing + 180.0, 6.75)), "{rc}");
        assert!(
            rc.contains(&format!(
                "Stuart's cavalry: move to {}",
                super::super::view::xy(to)
            )),
            "{rc}"
        );
    }
}
