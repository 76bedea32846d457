//! The written orders for APSoF V.F, combined fire ("fire at the 5th
//! Tennessee together with the 12th Ohio", V.F.1) and split fire ("fire 8
//! castings at the 5th Tennessee and the rest at the battery", V.F.2),
//! against the real training scenario: every accepted phrasing, every
//! refusal, their receipts, and that the older fire orders and the step
//! separators `and` and `,` read as before.

mod orders_support;

use adjutant::orders::{Item, OrderError, ParsedMail, normalise};
use adjutant::rules::iron_brigade::kinds::{Arm, Formation};
use adjutant::rules::iron_brigade::orders::{
    Action, FirePart, FireShare, FireTarget, Step, Trigger,
};
use orders_support::*;

fn actions(m: &ParsedMail) -> Vec<Action> {
    assert!(m.errors.is_empty(), "errors: {:#?}", m.errors);
    assert_eq!(m.items.len(), 1, "{:#?}", m.items);
    match &m.items[0] {
        Item::Unit { steps, .. } => steps.iter().map(|s| s.action.clone()).collect(),
        other => panic!("not a unit order: {other:?}"),
    }
}

fn one_error(m: &ParsedMail) -> &OrderError {
    assert_eq!(m.errors.len(), 1, "{:#?} items {:#?}", m.errors, m.items);
    assert!(m.items.is_empty(), "{:#?}", m.items);
    &m.errors[0]
}

fn part(share: FireShare, target: FireTarget) -> FirePart {
    FirePart { share, target }
}

// ------------------------------------------------------------ combined fire

#[test]
fn combined_fire_in_every_phrasing() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let tn5 = FireTarget::Unit(g.unit("5th Tennessee"));
    let (o12, o14) = (g.unit("12th Ohio"), g.unit("14th Ohio"));
    let with_12 = Action::FireWith {
        target: tn5,
        with: vec![o12],
    };
    for text in [
        "fire at the 5th Tennessee together with the 12th Ohio",
        "fire at the 5th Tennessee with the 12th Ohio",
        "fire at the 5th Tennessee along with the 12th",
        "fire with the 12th Ohio at the 5th Tennessee",
        "fire together with the 12th Ohio at the 5th Tennessee",
        "combine fire with the 12th Ohio at the 5th Tennessee",
        "combine its fire with the 12th Ohio at the 5th Tennessee",
        "Combine their fire with the 12th Ohio on the 5th Tennessee.",
        "combine fire at the 5th Tennessee with the 12th Ohio",
        "open fire on the 5th Tennessee together with the 12th Ohio",
    ] {
        assert_eq!(
            actions(&parse(&ctx, &format!("10th Ohio: {text}"))),
            vec![with_12.clone()],
            "{text}"
        );
    }
    let with_both = Action::FireWith {
        target: tn5,
        with: vec![o12, o14],
    };
    for text in [
        "fire at the 5th Tennessee together with the 12th Ohio and the 14th Ohio",
        "fire at the 5th Tennessee with the 12th Ohio, the 14th Ohio",
        "fire with the 12th Ohio and the 14th Ohio at the 5th Tennessee",
        "combine fire with the 12th, and the 14th at the 5th Tennessee",
    ] {
        assert_eq!(
            actions(&parse(&ctx, &format!("10th Ohio: {text}"))),
            vec![with_both.clone()],
            "{text}"
        );
    }
    // No target: at will, or the nearest of an arm, as for a single fire.
    assert_eq!(
        actions(&parse(&ctx, "10th Ohio: fire together with the 12th Ohio")),
        vec![Action::FireWith {
            target: FireTarget::AtWill,
            with: vec![o12],
        }]
    );
    assert_eq!(
        actions(&parse(
            &ctx,
            "Battery A: fire at the nearest enemy battery together with the 10th Ohio, the 12th and the 14th Ohio"
        )),
        vec![Action::FireWith {
            target: FireTarget::NearestOf(Arm::Artillery),
            with: vec![g.unit("10th Ohio"), o12, o14],
        }]
    );
}

#[test]
fn combined_fire_leaves_the_next_step_alone() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let o12 = g.unit("12th Ohio");
    let fw = Action::FireWith {
        target: FireTarget::AtWill,
        with: vec![o12],
    };
    for text in [
        "10th Ohio: fire together with the 12th Ohio and hold",
        "10th Ohio: fire together with the 12th Ohio, hold",
        "10th Ohio: fire together with the 12th Ohio; then hold",
    ] {
        assert_eq!(
            actions(&parse(&ctx, text)),
            vec![fw.clone(), Action::Hold],
            "{text}"
        );
    }
    let m = parse(
        &ctx,
        "10th Ohio: advance to the crossroads and fire with the 12th Ohio on arrival",
    );
    let a = actions(&m);
    assert_eq!(a.get(1), Some(&fw));
    match &m.items[0] {
        Item::Unit { steps, .. } => assert_eq!(steps[1].trigger, Trigger::OnArrival),
        other => panic!("{other:?}"),
    }
}

#[test]
fn combine_without_fire_is_still_joining_two_units_and_bayonets_still_colour() {
    let mut g = game("training.toml");
    // The training scenario has skirmishers (VII.E), so "combine with" is
    // the VII order, not a fire order.
    let ctx = blue(&g);
    assert_eq!(
        actions(&parse(&ctx, "12th Ohio: combine with the 10th Ohio")),
        vec![Action::Combine {
            with: g.unit("10th Ohio")
        }]
    );
    let tn5 = g.unit("5th Tennessee");
    assert_eq!(
        actions(&parse(
            &ctx,
            "10th Ohio: fire at the 5th Tennessee with bayonets fixed"
        )),
        vec![Action::Fire(FireTarget::Unit(tn5))]
    );
    assert_eq!(
        actions(&parse(
            &ctx,
            "14th Ohio: Attack Ridley's Battery with bayonets"
        )),
        vec![Action::Charge {
            target: Some(g.unit("Ridley's Battery")),
            to: None,
            gait: adjutant::rules::iron_brigade::orders::Gait::March,
        }]
    );
    g.state.options.advanced_organization = true;
    let ctx = blue(&g);
    assert_eq!(
        actions(&parse(&ctx, "12th Ohio: combine with the 10th Ohio")),
        vec![Action::Combine {
            with: g.unit("10th Ohio")
        }]
    );
}

#[test]
fn combined_fire_refusals() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let err = |t: &str| one_error(&parse(&ctx, &format!("10th Ohio: {t}"))).clone();
    let e = err("fire together with the 10th Ohio");
    assert_eq!(
        e.message,
        "the 10th Ohio cannot combine fire with itself; name another unit you command"
    );
    assert_eq!((e.line, e.column), (1, 31));
    let e = err("fire at will with the 13th Ohio");
    assert_eq!(
        e.message,
        "no unit of your side is called 'the 13th Ohio'; fire can be combined only with units you command"
    );
    assert_eq!((e.line, e.column), (1, 30));
    // Suggestions only from units he commands, never the firing unit.
    let e = err("fire at will with Btaery A");
    assert_eq!(
        e.message,
        "no unit of your side is called 'Btaery A'; fire can be combined only with units you command"
    );
    assert_eq!(
        e.suggestions.first().map(String::as_str),
        Some("Battery A, 1st Ohio Light Artillery")
    );
    let m = parse(&ctx, "Battery A: fire at will with Battery A");
    assert_eq!(
        one_error(&m).message,
        "Battery A, 1st Ohio Light Artillery cannot combine fire with itself; name another unit you command"
    );
    let m = parse(&ctx, "Battery A: fire at will with Btaery A");
    let e = one_error(&m);
    assert!(
        !e.suggestions.iter().any(|s| s.starts_with("Battery A")),
        "{:?}",
        e.suggestions
    );
    // "and" followed by a name that is no unit is still read as a partner.
    assert_eq!(
        err("fire with the 12th Ohio and the 13th Ohio").message,
        "no unit of your side is called 'the 13th Ohio'; fire can be combined only with units you command"
    );
    assert_eq!(
        err("fire with the 12th Ohio and the 12th").message,
        "the 12th Ohio is named twice; name each unit once"
    );
    assert_eq!(
        err("combine fire at the 5th Tennessee").message,
        "expected 'with' and the units you command to fire together, as in 'combine fire with 12th Ohio', found the end of the order"
    );
    assert_eq!(
        err("fire with").message,
        "expected a unit you command after 'with', found the end of the order; fire can be combined only with units you command"
    );
    // A visible enemy is no partner: answered like any name of nothing.
    assert_eq!(
        err("fire with the 5th Tennessee").message,
        "no unit of your side is called 'the 5th Tennessee'; fire can be combined only with units you command"
    );
}

#[test]
fn combined_fire_only_with_the_writers_own_command() {
    let g = game("brawners-farm.toml");
    let ctx = g.ctx(&["Doubleday"], &[]);
    let m = parse(
        &ctx,
        "76th New York: fire at will together with the 56th Pennsylvania",
    );
    assert_eq!(
        actions(&m),
        vec![Action::FireWith {
            target: FireTarget::AtWill,
            with: vec![g.unit("56th Pennsylvania")],
        }]
    );
    let m = parse(
        &ctx,
        "76th New York: fire at will together with the 7th Wisconsin",
    );
    let e = one_error(&m);
    assert_eq!(
        e.message,
        "the 7th Wisconsin is not under your command; fire can be combined only with units you command"
    );
    assert_eq!((e.line, e.column), (1, 43));
    let m = parse(
        &ctx,
        "76th New York: fire at will together with the 56th Pennsylvania and the 7th Wisconsin",
    );
    assert_eq!(
        one_error(&m).message,
        "the 7th Wisconsin is not under your command; fire can be combined only with units you command"
    );
}

/// An unseen enemy named as a partner gets exactly the answer a name that
/// exists nowhere gets (and so does a seen one).
#[test]
fn an_unseen_enemy_as_partner_is_answered_like_gibberish() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let text = "10th Ohio: fire with the 7th Tennessee at will";
    let unseen = parse(&ctx, text);
    let mut g2 = game("training.toml");
    let id = g2.unit("7th Tennessee");
    g2.state.units.retain(|u| u.id != id);
    g2.aliases.retain(|_, v| *v != id);
    let ctx2 = blue(&g2);
    let absent = parse(&ctx2, text);
    assert_eq!(unseen.errors, absent.errors);
    let e = one_error(&unseen);
    assert!(!e.suggestions.iter().any(|s| s.contains("Tennessee")));
    let gib = parse(&ctx, "10th Ohio: fire with the Qzx Wwwwwwwww at will");
    let eg = one_error(&gib);
    assert_eq!(
        eg.message.replace("Qzx Wwwwwwwww", "7th Tennessee"),
        e.message
    );
    assert_eq!((eg.line, eg.column), (e.line, e.column));
}

// ------------------------------------------------------------ split fire

#[test]
fn split_fire_in_every_phrasing() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let tn5 = FireTarget::Unit(g.unit("5th Tennessee"));
    let ridley = FireTarget::Unit(g.unit("Ridley's Battery"));
    let nearest_battery = FireTarget::NearestOf(Arm::Artillery);
    let split = |parts: Vec<FirePart>| vec![Action::SplitFire { parts }];
    let cases: Vec<(&str, Vec<FirePart>)> = vec![
        (
            "fire 8 castings at the 5th Tennessee and the rest at the battery",
            vec![
                part(FireShare::Castings(8), tn5),
                part(FireShare::Rest, ridley),
            ],
        ),
        (
            "fire half at the 5th Tennessee and half at Ridley's Battery",
            vec![part(FireShare::Half, tn5), part(FireShare::Half, ridley)],
        ),
        (
            "split fire: 10 castings at the 5th Tennessee, 6 at the nearest enemy battery",
            vec![
                part(FireShare::Castings(10), tn5),
                part(FireShare::Castings(6), nearest_battery),
            ],
        ),
        (
            "split its fire between the 5th Tennessee and the battery",
            vec![part(FireShare::Half, tn5), part(FireShare::Rest, ridley)],
        ),
        (
            "divide its fire equally between the 5th Tennessee and Ridley",
            vec![part(FireShare::Half, tn5), part(FireShare::Rest, ridley)],
        ),
        (
            "fire 6 castings at the 5th Tennessee",
            vec![part(FireShare::Castings(6), tn5)],
        ),
        (
            "fire only half at the 5th Tennessee",
            vec![part(FireShare::Half, tn5)],
        ),
        (
            "fire with 1 casting at Ridley's Battery, and the remainder at will",
            vec![
                part(FireShare::Castings(1), ridley),
                part(FireShare::Rest, FireTarget::AtWill),
            ],
        ),
        (
            "fire half of its castings at the 5th Tennessee and the other half at the battery",
            vec![part(FireShare::Half, tn5), part(FireShare::Rest, ridley)],
        ),
        (
            "split fire, 4 at the 5th Tennessee, 4 at Ridley, the rest at the nearest enemy infantry",
            vec![
                part(FireShare::Castings(4), tn5),
                part(FireShare::Castings(4), ridley),
                part(FireShare::Rest, FireTarget::NearestOf(Arm::Infantry)),
            ],
        ),
    ];
    for (text, parts) in cases {
        assert_eq!(
            actions(&parse(&ctx, &format!("10th Ohio: {text}"))),
            split(parts),
            "{text}"
        );
    }
    // Exactly the unit's castings (the 10th Ohio has 18) is allowed.
    assert_eq!(
        actions(&parse(
            &ctx,
            "10th Ohio: fire 10 castings at the 5th Tennessee and 8 at Ridley"
        )),
        split(vec![
            part(FireShare::Castings(10), tn5),
            part(FireShare::Castings(8), ridley),
        ])
    );
}

#[test]
fn split_fire_leaves_the_next_step_alone() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let tn5 = FireTarget::Unit(g.unit("5th Tennessee"));
    let ridley = FireTarget::Unit(g.unit("Ridley's Battery"));
    let sf = Action::SplitFire {
        parts: vec![
            part(FireShare::Castings(8), tn5),
            part(FireShare::Rest, ridley),
        ],
    };
    let form = Action::Form {
        formation: Formation::Line,
        facing: None,
    };
    for text in [
        "10th Ohio: fire 8 castings at the 5th Tennessee and the rest at Ridley and form line",
        "10th Ohio: fire 8 castings at the 5th Tennessee, the rest at Ridley, form line",
        "10th Ohio: fire 8 castings at the 5th Tennessee and the rest at Ridley; then form line",
        "10th Ohio: fire 8 castings at the 5th Tennessee and the rest at Ridley, then form line",
    ] {
        assert_eq!(
            actions(&parse(&ctx, text)),
            vec![sf.clone(), form.clone()],
            "{text}"
        );
    }
    assert_eq!(
        actions(&parse(
            &ctx,
            "10th Ohio: form line, split fire between the 5th Tennessee and Ridley, hold"
        )),
        vec![
            form,
            Action::SplitFire {
                parts: vec![part(FireShare::Half, tn5), part(FireShare::Rest, ridley)]
            },
            Action::Hold
        ]
    );
}

#[test]
fn split_fire_refusals() {
    let g = game("training.toml");
    let ctx = g.ctx(
        &["Colonel Hale"],
        &["5th Tennessee", "Ridley's Battery", "3rd Tennessee"],
    );
    let err = |t: &str| one_error(&parse(&ctx, &format!("10th Ohio: {t}"))).clone();
    let e = err("fire 12 castings at the 5th Tennessee and 8 at Ridley's Battery");
    assert_eq!(
        e.message,
        "the shares come to 20 castings but the 10th Ohio has 18; give at most 18 in all, or 'the rest' for what is left"
    );
    assert_eq!((e.line, e.column), (1, 54));
    let e = err("fire 0 castings at the 5th Tennessee and the rest at Ridley");
    assert_eq!(
        e.message,
        "a share of 0 castings fires nothing; give 1 casting or more, or leave that target out"
    );
    assert_eq!((e.line, e.column), (1, 17));
    assert_eq!(
        err("fire 2.5 castings at the 5th Tennessee").message,
        "2.5 is not a number of castings; give a whole number such as 8"
    );
    // A stand holds 2 castings or 4 (II.A): stands are not guessed at.
    let e = err("fire 2 stands at the 5th Tennessee and the rest at Ridley");
    assert_eq!(
        e.message,
        "count in castings, not stands: a stand may hold 2 castings or 4, so write e.g. '8 castings'"
    );
    assert_eq!((e.line, e.column), (1, 19), "at the word stands");
    let e = err("fire 4 castings at the 5th Tennessee, the rest at Ridley and the rest at will");
    assert_eq!(
        e.message,
        "only one part can take 'the rest'; give the others a number of castings or 'half'"
    );
    assert_eq!((e.line, e.column), (1, 73));
    assert_eq!(
        err("fire half at the 5th Tennessee, half at Ridley, half at the 3rd Tennessee").message,
        "a unit has only two halves; give the other parts a number of castings or 'the rest'"
    );
    let e = err("fire 4 castings at the 5th Tennessee and 4 at the 5th");
    assert_eq!(
        e.message,
        "the 5th Tennessee is already the target of another part; give each target one share"
    );
    assert_eq!((e.line, e.column), (1, 58));
    assert_eq!(
        err("split fire between Ridley and Ridley's Battery").message,
        "Ridley's Battery is already the target of another part; give each target one share"
    );
    let e = err("fire the rest at the 5th Tennessee");
    assert_eq!(
        e.message,
        "'the rest' needs another part before it; to fire with every casting write 'fire at ...'"
    );
    assert_eq!((e.line, e.column), (1, 17));
    let e = err("split fire between the 5th Tennessee, Ridley and the 3rd Tennessee");
    assert_eq!(
        e.message,
        "'between' splits the fire in two; for more targets give each its castings, as in 'split fire: 6 castings at ..., 6 at ..., the rest at ...'"
    );
    assert_eq!((e.line, e.column), (1, 61));
    assert_eq!(
        err("split fire between the 5th Tennessee").message,
        "expected 'and' and a second target, as in 'split its fire between 3rd Tennessee and 5th Tennessee', found the end of the order"
    );
    assert_eq!(
        err("split fire").message,
        "expected the shares, as in 'split fire: 10 castings at 3rd Tennessee, 6 at the nearest enemy battery', or 'between' two targets, found the end of the order"
    );
    assert_eq!(
        err("fire 8 castings").message,
        "expected 'at' and a target after the share, as in '8 castings at 3rd Tennessee', found the end of the order"
    );
    // An unseen enemy as a split target is refused like any unknown name.
    assert_eq!(
        err("fire 8 castings at the 7th Tennessee").message,
        "no enemy unit in sight is called 'the 7th Tennessee'; your side sees 3rd Tennessee, 5th Tennessee and Ridley's Battery now: fire at one of them, or 'at will'"
    );
}

// ------------------------------------------------------------ as before

#[test]
fn older_fire_orders_and_separators_read_as_before() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let a = |t: &str| actions(&parse(&ctx, &format!("10th Ohio: {t}")));
    assert_eq!(a("fire at will"), vec![Action::Fire(FireTarget::AtWill)]);
    assert_eq!(a("open fire"), vec![Action::Fire(FireTarget::AtWill)]);
    assert_eq!(a("fire"), vec![Action::Fire(FireTarget::AtWill)]);
    assert_eq!(a("fire away"), vec![Action::Fire(FireTarget::AtWill)]);
    assert_eq!(
        a("fire at the 5th Tennessee"),
        vec![Action::Fire(FireTarget::Unit(g.unit("5th Tennessee")))]
    );
    assert_eq!(
        a("fire at the nearest enemy battery"),
        vec![Action::Fire(FireTarget::NearestOf(Arm::Artillery))]
    );
    assert_eq!(
        a("fire at will and hold"),
        vec![Action::Fire(FireTarget::AtWill), Action::Hold]
    );
    assert_eq!(
        a("fire at the 5th Tennessee, then lie down"),
        vec![
            Action::Fire(FireTarget::Unit(g.unit("5th Tennessee"))),
            Action::LieDown
        ]
    );
    assert_eq!(a("hold fire"), vec![Action::HoldFire]);
    let xr = g.landmark("Miller's Crossroads");
    let m = parse(&ctx, "10th Ohio: advance to the crossroads and form line");
    assert_eq!(actions(&m).len(), 2);
    assert!(
        matches!(&actions(&m)[0], Action::Move(mv) if mv.waypoints == vec![xr]),
        "{m:?}"
    );
    assert_eq!(
        actions(&m)[1],
        Action::Form {
            formation: Formation::Line,
            facing: None
        }
    );
    let m = parse(&ctx, "10th Ohio: advance to the crossroads, form line");
    assert_eq!(actions(&m).len(), 2);
    // "fire on arrival" is a trigger, not a target named "arrival".
    let m = parse(
        &ctx,
        "10th Ohio: advance to the crossroads and fire on arrival",
    );
    match &m.items[..] {
        [Item::Unit { steps, .. }] => assert_eq!(
            steps[1],
            Step {
                trigger: Trigger::OnArrival,
                action: Action::Fire(FireTarget::AtWill)
            }
        ),
        other => panic!("{other:?} {:?}", m.errors),
    }
}

// ------------------------------------------------------------ receipts

#[test]
fn receipts_of_combined_and_split_fire() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let receipt = |t: &str| {
        let m = parse(&ctx, t);
        assert!(m.errors.is_empty(), "{:?}", m.errors);
        normalise(&m.items[0], &ctx)
    };
    for (text, want) in [
        (
            "10th Ohio: fire with the 12th Ohio and the 14th at the 5th Tennessee",
            "10th Ohio: fire at 5th Tennessee together with 12th Ohio and 14th Ohio",
        ),
        (
            "10th Ohio: fire together with the 12th Ohio",
            "10th Ohio: fire at will together with 12th Ohio",
        ),
        (
            "10th Ohio: fire 8 castings at the 5th Tennessee and the rest at the battery",
            "10th Ohio: split fire: 8 castings at 5th Tennessee, the rest at Ridley's Battery",
        ),
        (
            "10th Ohio: split its fire between the 5th Tennessee and the nearest enemy battery",
            "10th Ohio: split fire: half at 5th Tennessee, the rest at the nearest enemy battery",
        ),
        (
            "10th Ohio: fire 1 casting at the 5th Tennessee",
            "10th Ohio: fire only 1 casting at 5th Tennessee",
        ),
    ] {
        assert_eq!(receipt(text), want, "{text}");
    }
    // A receipt read back gives the same order.
    for text in [
        "10th Ohio: fire with the 12th Ohio and the 14th at the 5th Tennessee",
        "10th Ohio: fire 8 castings at the 5th Tennessee and the rest at the battery",
        "10th Ohio: fire 6 castings at the 5th Tennessee",
        "10th Ohio: fire half at the 5th Tennessee, 2 at Ridley and the rest at will",
    ] {
        let first = parse(&ctx, text);
        let again = parse(&ctx, &receipt(text));
        assert_eq!(actions(&again), actions(&first), "{text}");
    }
}

#[test]
fn split_fire_colon_on_a_continuation_line_is_not_a_new_order() {
    let g = game("training.toml");
    let ctx = blue(&g);
    let m = parse(
        &ctx,
        "10th Ohio: form line, then\n  split fire: 10 castings at the 5th Tennessee, 6 at Ridley\n12th Ohio: hold",
    );
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    assert_eq!(m.items.len(), 2, "{:?}", m.items);
    match &m.items[0] {
        Item::Unit { steps, .. } => assert!(
            matches!(&steps[1].action, Action::SplitFire { parts } if parts.len() == 2),
            "{steps:?}"
        ),
        other => panic!("{other:?}"),
    }
}
