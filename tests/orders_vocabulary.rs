//! Issue #15: orders as players write them — verbs outside the fixed list
//! read as what the rules can do (the receipt says what each became),
//! colour after a complete order kept as colour, the period's names for
//! the enemy and described targets (only ever enemies the side has seen),
//! the orders a unit of its kind cannot be given, and an officer riding
//! with a unit.

mod orders_support;

use adjutant::identity::{EnemyNames, IdentityPolicy};
use adjutant::orders::{Item, ParseContext, normalise};
use adjutant::rules::iron_brigade::kinds::Arm;
use adjutant::rules::iron_brigade::orders::{Action, FireTarget};
use orders_support::*;

/// Gibbon (Union) at Brawner's Farm seeing the 4th Virginia, Wooding's
/// and Poague's batteries, identities hidden as the scenario has them.
fn gibbon(g: &Game) -> ParseContext<'_> {
    let mut ctx = g.ctx(
        &["Gibbon"],
        &[
            "4th Virginia",
            "2nd Virginia",
            "Wooding's Battery",
            "Poague's Battery",
        ],
    );
    let mut names = EnemyNames::new(IdentityPolicy::Hidden);
    names.record_seen(&g.state, ctx.side, 1, ctx.visible_enemies.iter().copied());
    ctx.enemy_names = names;
    ctx
}

/// Baylor (Confederate) seeing the 2nd Wisconsin and Battery B.
fn baylor(g: &Game) -> ParseContext<'_> {
    let mut ctx = g.ctx(
        &["Baylor"],
        &["2nd Wisconsin", "Battery B, 4th US Artillery"],
    );
    let mut names = EnemyNames::new(IdentityPolicy::Hidden);
    names.record_seen(&g.state, ctx.side, 1, ctx.visible_enemies.iter().copied());
    ctx.enemy_names = names;
    ctx
}

fn read(ctx: &ParseContext, text: &str) -> Result<String, String> {
    let m = parse(ctx, text);
    if let Some(e) = m.errors.first() {
        return Err(e.to_string());
    }
    let item = m.items.first().ok_or("no order")?;
    Ok(normalise(item, ctx))
}

fn ok(ctx: &ParseContext, text: &str) -> String {
    read(ctx, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn refused(ctx: &ParseContext, text: &str) -> String {
    match read(ctx, text) {
        Ok(r) => panic!("{text} was accepted as {r}"),
        Err(e) => e,
    }
}

fn actions(ctx: &ParseContext, text: &str) -> Vec<Action> {
    let m = parse(ctx, text);
    assert!(m.errors.is_empty(), "{text}: {:?}", m.errors);
    match m.items.first() {
        Some(Item::Unit { steps, .. }) => steps.iter().map(|s| s.action.clone()).collect(),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn verbs_outside_the_fixed_list_say_what_they_became() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    for (text, want) in [
        (
            "2nd Wisconsin: rally",
            "2nd Wisconsin: hold — 'rally' read as: hold; a unit below its base morale tries to rally in every rally phase whatever its orders (APSoF VI.E.1)",
        ),
        (
            "2nd Wisconsin: rally the men on the colours",
            "2nd Wisconsin: hold — 'rally' read as: hold;",
        ),
        (
            "2nd Wisconsin: rally at the Brawner farm",
            "2nd Wisconsin: advance to the Brawner farm (22, 22); on arrival hold — 'rally' read as: hold there;",
        ),
        (
            "2nd Wisconsin: await the enemy's attack",
            "2nd Wisconsin: hold — 'await the enemy's attack' read as: hold",
        ),
        (
            "7th Wisconsin: support the 2nd Wisconsin",
            "7th Wisconsin: advance to (32, 18.3) — 'support the 2nd Wisconsin' read as: advance to 2\" behind it",
        ),
        (
            "7th Wisconsin: support the 2nd Wis on the left",
            "7th Wisconsin: advance to (27.3, 24) — 'support the 2nd Wisconsin' read as: advance to its left",
        ),
        (
            "19th Indiana: follow the 2nd Wisconsin",
            "19th Indiana: follow 2nd Wisconsin, keeping station on it — 'follow the 2nd Wisconsin' read as: follow its moves 2\" behind it",
        ),
        (
            "6th Wisconsin: conform to the movements of the 7th Wisconsin",
            "6th Wisconsin: follow 7th Wisconsin, keeping station on it — 'conform to the 7th Wisconsin' read as: follow its moves, keeping the station it has on it now",
        ),
        (
            "2nd Wisconsin: engage the regiment to our front",
            "2nd Wisconsin: fire at enemy C — 'engage' read as: fire from where it stands (APSoF V",
        ),
        (
            "2nd Wisconsin: take cover",
            "2nd Wisconsin: lie down — 'take cover' read as: lie down where it is (APSoF III.J",
        ),
        (
            "2nd Wisconsin: take cover in the orchard",
            "2nd Wisconsin: advance to the orchard (26, 25); on arrival lie down — 'take cover' read as",
        ),
        (
            "2nd Wisconsin: oblique left 3 inches",
            "2nd Wisconsin: advance to (29.9, 26.1) — 'oblique' read as: advance 45° to the left of its front (APSoF IV.C.3",
        ),
        (
            "2nd Wisconsin: shift 2 inches to the right",
            "2nd Wisconsin: advance to (34, 24) — 'shift' read as: move 2 inches to its right",
        ),
        (
            "2nd Wisconsin: close up",
            "2nd Wisconsin: form line — 'close up' read as: form line (closed order, APSoF III.E, III.G.1)",
        ),
        (
            "2nd Wisconsin: close up on the 7th Wisconsin",
            "2nd Wisconsin: advance to (31.3, 12.5) — 'close up on the 7th Wisconsin' read as: advance to its left",
        ),
        (
            "2nd Wisconsin: reform",
            "2nd Wisconsin: form line — 'reform' read as: form line (APSoF III.G.1",
        ),
        (
            "2nd Wisconsin: reform in column",
            "2nd Wisconsin: form column",
        ),
        (
            "2nd Wisconsin: throw out 4 castings as skirmishers",
            "2nd Wisconsin: split off 4 castings as 2nd Wisconsin skirmishers — 'throw out skirmishers' read as: split off 4 castings as 2nd Wisconsin skirmishers, a skirmish line ahead of it (APSoF VII.E)",
        ),
        (
            "Battery B: counter-battery",
            "Battery B, 4th US Artillery: fire at the nearest enemy battery — 'counter-battery' read as: artillery fire (APSoF V), at the nearest enemy battery in sight when the fire is made",
        ),
        (
            "Battery B: counterbattery fire",
            "Battery B, 4th US Artillery: fire at the nearest enemy battery",
        ),
        (
            "Battery B: shell A",
            "Battery B, 4th US Artillery: fire at enemy A — 'shell' read as: artillery fire (APSoF V)",
        ),
        (
            "2nd Wisconsin: adv fwd 4 inches",
            "2nd Wisconsin: advance to (32, 28)",
        ),
        (
            "2nd Wisconsin: ADV to the Brawner farm",
            "2nd Wisconsin: advance to the Brawner farm (22, 22)",
        ),
        (
            "2nd Wisconsin: ret 3 inches",
            "2nd Wisconsin: retreat to (32, 21)",
        ),
        (
            "2nd Wisconsin: W/D to the Brawner farm",
            "2nd Wisconsin: retreat to the Brawner farm (22, 22)",
        ),
    ] {
        let got = ok(&u, text);
        assert!(got.starts_with(want), "{text}\n got: {got}\nwant: {want}");
    }
}

#[test]
fn verbs_that_cannot_be_done_are_refused_with_what_to_write() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    for (text, want) in [
        (
            "2nd Wisconsin: shell A",
            "the 2nd Wisconsin has no guns: 'shell' is artillery fire; write 'fire at ...'",
        ),
        (
            "2nd Wisconsin: throw out skirmishers",
            "say how many castings go out, as in 'throw out 4 castings as skirmishers'",
        ),
        (
            "Battery B: throw out 2 castings as skirmishers",
            "cannot throw out skirmishers",
        ),
        (
            "2nd Wisconsin: oblique left",
            "how far and which way after 'oblique'",
        ),
        (
            "2nd Wisconsin: support the 2nd Wisconsin",
            "a unit cannot support itself",
        ),
        (
            "2nd Wisconsin: follow A",
            "'follow' is for your own side's units",
        ),
        (
            "Battery B: reform",
            "a battery has no formation to reform (APSoF III.D",
        ),
        (
            "Battery B: shell the Brawner farm",
            "guns fire only at enemy units they can see (APSoF V.C.3)",
        ),
    ] {
        let got = refused(&u, text);
        assert!(got.contains(want), "{text}\n got: {got}\nwant: {want}");
    }
    // Without the skirmishers option, the rules allow no detached line.
    let t = game("training.toml");
    let mut b = blue(&t);
    let mut state = t.state.clone();
    state.options.skirmishers = false;
    b.state = &state;
    let got = refused(&b, "10th Ohio: throw out 4 castings as skirmishers");
    assert!(
        got.contains("APSoF III.F.2, VII.E") && got.contains("'form skirmish order'"),
        "{got}"
    );
}

#[test]
fn words_after_a_complete_order_are_colour_and_ampersand_is_and() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    for (text, want) in [
        (
            "2nd Wisconsin: hold at all costs",
            "2nd Wisconsin: hold — 'at all costs' kept as colour, not an order",
        ),
        (
            "2nd Wisconsin: hold the line to the last man!",
            "2nd Wisconsin: hold — 'to the last man' kept as colour, not an order",
        ),
        (
            "2nd Wisconsin: advance to Douglass house & hold",
            "2nd Wisconsin: advance to Douglass house (56, 28); then hold",
        ),
        (
            "2nd Wisconsin: fire at will until they close",
            "2nd Wisconsin: fire at will — 'until they close' kept as colour, not an order",
        ),
        (
            "2nd Wisconsin: advance to the Brawner farm with vigour & form line facing north",
            "2nd Wisconsin: advance to the Brawner farm (22, 22); then form line facing north (0°) — 'with vigour' kept as colour, not an order",
        ),
        (
            "2nd Wisconsin: engage the regiment to our front with vigour",
            "2nd Wisconsin: fire at enemy C — 'engage' read as",
        ),
        (
            "2nd Wisconsin: hold, at any cost",
            "2nd Wisconsin: hold — 'at any cost' kept as colour",
        ),
    ] {
        let got = ok(&u, text);
        assert!(got.starts_with(want), "{text}\n got: {got}\nwant: {want}");
    }
    assert!(
        ok(
            &u,
            "2nd Wisconsin: engage the regiment to our front with vigour"
        )
        .contains("'with vigour' kept as colour")
    );
}

#[test]
fn nicknames_and_described_targets_are_enemies_the_side_has_seen() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    let c = baylor(&g);
    let wooding = g.unit("Wooding's Battery");
    let poague = g.unit("Poague's Battery");
    for text in [
        "2nd Wisconsin: fire on the reb battery in front of Stony Ridge",
        "2nd Wisconsin: fire at the secesh battery near Stony Ridge",
        "2nd Wisconsin: fire at the rebel guns on Stony Ridge",
    ] {
        let a = actions(&u, text);
        let Action::Fire(FireTarget::Unit(t)) = a[0] else {
            panic!("{text}: {a:?}")
        };
        assert!(t == wooding || t == poague, "{text}");
        assert!(u.visible_enemies.contains(&t));
    }
    assert_eq!(
        actions(&u, "2nd Wisconsin: fire at the secesh battery"),
        vec![Action::Fire(FireTarget::NearestOf(Arm::Artillery))]
    );
    for text in [
        "2nd Wisconsin: charge the reb line",
        "2nd Wisconsin: charge the Johnnies",
        "2nd Wisconsin: fire at the graybacks",
    ] {
        ok(&u, text);
    }
    // The Confederates call the Union by theirs; their own nickname is no
    // enemy.
    let a = actions(&c, "4th Virginia: charge the Yankee line");
    assert!(
        matches!(a[0], Action::Charge { target: Some(t), .. } if t == g.unit("2nd Wisconsin")),
        "{a:?}"
    );
    ok(&c, "4th Virginia: fire at the bluebellies");
    ok(&c, "4th Virginia: fire on the federals");
    let e = refused(&c, "4th Virginia: fire at the reb line");
    assert!(
        e.contains("no enemy unit in sight is called 'the reb line'"),
        "{e}"
    );
    let e = refused(&u, "2nd Wisconsin: fire at the yankee line");
    assert!(
        e.contains("no enemy unit in sight is called 'the yankee line'"),
        "{e}"
    );
}

#[test]
fn described_targets_never_reach_an_unseen_enemy() {
    let g = game("brawners-farm.toml");
    // Gibbon sees only the 4th Virginia: no battery.
    let mut u = g.ctx(&["Gibbon"], &["4th Virginia"]);
    let mut names = EnemyNames::new(IdentityPolicy::Hidden);
    names.record_seen(&g.state, u.side, 1, u.visible_enemies.iter().copied());
    u.enemy_names = names;
    for text in [
        "2nd Wisconsin: fire on the reb battery in front of Stony Ridge",
        "Battery B: shell the enemy battery near Stony Ridge",
        "2nd Wisconsin: engage the enemy battery on Stony Ridge",
    ] {
        let e = refused(&u, text);
        assert!(e.contains("no enemy battery is in sight"), "{text}: {e}");
        for hidden in ["Wooding", "Poague", "Carpenter", "Virginia", "Georgia"] {
            assert!(!e.contains(hidden), "{text}: {e}");
        }
    }
    // Real names, hidden by the policy, get the answer a name of nothing
    // gets, whatever the verb.
    for (text, nothing) in [
        (
            "2nd Wisconsin: engage the 4th Virginia",
            "2nd Wisconsin: engage the 9th Ruritania",
        ),
        (
            "Battery B: shell Wooding's Battery",
            "Battery B: shell Zog's Battery",
        ),
        (
            "7th Wisconsin: support the 4th Virginia",
            "7th Wisconsin: support the 9th Ruritania",
        ),
        (
            "7th Wisconsin: follow the 27th Virginia",
            "7th Wisconsin: follow the 9th Ruritania",
        ),
    ] {
        let (a, b) = (parse(&u, text), parse(&u, nothing));
        let (ea, eb) = (&a.errors[0], &b.errors[0]);
        let shape = |s: &str| s.split('\'').step_by(2).collect::<Vec<_>>().join("'");
        assert_eq!(
            shape(&ea.message),
            shape(&eb.message),
            "{text}: {ea} / {eb}"
        );
        // Suggestions only ever name the writer's own units.
        for s in ea.suggestions.iter().chain(&eb.suggestions) {
            assert!(
                g.state
                    .units
                    .iter()
                    .any(|x| &x.name == s && x.side == u.side),
                "{text}: {ea}"
            );
        }
    }
}

#[test]
fn a_battery_takes_no_infantry_formation_and_infantry_does_not_limber() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    for text in [
        "Battery B: form skirmish order",
        "Battery B: deploy as skirmishers",
        "Battery B: advance to the Brawner farm in skirmish order",
        "Battery B: form line facing north",
        "Battery B: advance to the Brawner farm in column",
        "Battery B: retreat to the Brawner farm en masse",
    ] {
        let e = refused(&u, text);
        assert!(
            e.contains("artillery is either limbered or unlimbered (APSoF III.D)"),
            "{text}: {e}"
        );
    }
    for text in [
        "2nd Wisconsin: limber up",
        "2nd Wisconsin: unlimber facing north",
    ] {
        let e = refused(&u, text);
        assert!(
            e.contains("only batteries limber and unlimber (APSoF III.D)"),
            "{text}: {e}"
        );
    }
    let e = refused(&u, "2nd Wisconsin: mount up");
    assert!(
        e.contains("only cavalry mounts and dismounts (APSoF III.H)"),
        "{e}"
    );
    // What a battery may do is still read.
    ok(&u, "Battery B: limber up, then advance to the Brawner farm");
    ok(&u, "Battery B: deploy facing north");
}

#[test]
fn together_is_not_swallowed_into_a_name() {
    let t = game("training.toml");
    let b = blue(&t);
    let e = refused(
        &b,
        "10th Ohio: fire at the 4th Virginia together with the 12th Ohio",
    );
    assert!(e.contains("'the 4th Virginia';"), "{e}");
    assert!(!e.contains("together"), "{e}");
}

#[test]
fn an_officer_rides_with_a_unit() {
    let t = game("training.toml");
    let b = blue(&t);
    for text in [
        "Hale: ride with the 10th Ohio",
        "Colonel Hale: accompany the 10th Ohio",
        "Hale: stay with the 10th Ohio",
        "Hale: go along with the 10th Ohio",
    ] {
        let m = parse(&b, text);
        assert!(m.errors.is_empty(), "{text}: {:?}", m.errors);
        let Some(Item::Officer { order, .. }) = m.items.first() else {
            panic!("{text}")
        };
        assert_eq!(order.with_unit, Some(t.unit("10th Ohio")), "{text}");
        assert!(order.waypoints.is_empty(), "{text}");
        assert!(
            normalise(&m.items[0], &b)
                .starts_with("Colonel Hale: ride with 10th Ohio (he goes where it goes this turn")
        );
    }
    // A place is still a place.
    let m = parse(&b, "Hale: ride to the crossroads");
    let Some(Item::Officer { order, .. }) = m.items.first() else {
        panic!()
    };
    assert_eq!(order.with_unit, None);
    let e = refused(&b, "Hale: ride with the 5th Tennessee");
    assert!(e.contains("no unit of your side is called"), "{e}");
}

/// Orders written the way players write them at Brawner's Farm, both
/// sides and every kind of unit, each with the start of the receipt that
/// shows it was read as meant; and orders that must be refused, each with
/// words of the answer that tell the player what to write instead. The
/// figure is printed (`cargo test -- --nocapture`).
#[test]
fn a_corpus_of_player_orders_is_understood_as_meant() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    let c = baylor(&g);
    let understood: &[(&ParseContext, &str, &str)] = &[
        (
            &u,
            "2nd Wisconsin: hold this position",
            "2nd Wisconsin: hold",
        ),
        (&u, "2nd Wisconsin: stand fast", "2nd Wisconsin: hold"),
        (
            &u,
            "2nd Wisconsin: hold your ground at all costs",
            "2nd Wisconsin: hold — 'at all costs' kept as colour",
        ),
        (
            &u,
            "2nd Wisconsin: hold fast & fire at will",
            "2nd Wisconsin: hold; then fire at will",
        ),
        (
            &u,
            "2nd Wisconsin: fire by volley at the rebel line",
            "2nd Wisconsin: fire at the nearest enemy infantry — 'by volley' kept as colour",
        ),
        (
            &u,
            "2nd Wisconsin: open fire on the reb line",
            "2nd Wisconsin: fire at the nearest enemy infantry",
        ),
        (
            &u,
            "2nd Wisconsin: pour fire into the rebel line",
            "2nd Wisconsin: fire at the nearest enemy infantry — 'pour fire into the rebel line' read as: fire",
        ),
        (
            &u,
            "2nd Wisconsin: give them a volley",
            "2nd Wisconsin: fire at will — 'give them a volley' read as: fire",
        ),
        (
            &u,
            "2nd Wisconsin: advance to the Brawner farm and engage the rebels",
            "2nd Wisconsin: advance to the Brawner farm (22, 22); then fire at will — 'engage' read as",
        ),
        (
            &u,
            "7th Wisconsin: move up in support of the 2nd Wisconsin",
            "7th Wisconsin: advance to (32, 18.3)",
        ),
        (
            &u,
            "7th Wisconsin: support the 2nd Wisconsin's right",
            "7th Wisconsin: advance to (36.8, 24) — 'support the 2nd Wisconsin' read as: advance to its right",
        ),
        (
            &u,
            "19th Indiana: come up on the left of the 2nd Wisconsin",
            "19th Indiana: advance to (27.3, 24)",
        ),
        (
            &u,
            "6th Wisconsin: follow the 7th Wisconsin in column",
            "6th Wisconsin: form column; then follow 7th Wisconsin",
        ),
        (
            &u,
            "6th Wisconsin: keep pace with the 7th Wisconsin",
            "6th Wisconsin: follow 7th Wisconsin, keeping station on it — 'keep pace with the 7th Wisconsin' read as",
        ),
        (
            &u,
            "Battery B: open on the reb battery",
            "Battery B, 4th US Artillery: fire at the nearest enemy battery",
        ),
        (
            &u,
            "Battery B: engage the enemy battery",
            "Battery B, 4th US Artillery: fire at the nearest enemy battery — 'engage' read as",
        ),
        (
            &u,
            "Battery B: limber up and w/d to the turnpike",
            // The nearest point of the road, not the landmark 12" east.
            "Battery B, 4th US Artillery: limber; then retreat to (28.4, 10.4)",
        ),
        (
            &u,
            "Battery B: fire canister at the rebel line",
            "Battery B, 4th US Artillery: fire at the nearest enemy infantry — 'canister' kept as colour",
        ),
        (
            &u,
            "Battery B: counter-battery",
            "Battery B, 4th US Artillery: fire at the nearest enemy battery — 'counter-battery' read as",
        ),
        (
            &u,
            "Battery B: shell the reb battery in front of Stony Ridge",
            "Battery B, 4th US Artillery: fire at enemy",
        ),
        (
            &u,
            "2nd Wisconsin: lie down and hold fire until they close",
            "2nd Wisconsin: lie down; then hold fire — 'until they close' kept as colour",
        ),
        (
            &u,
            "2nd Wisconsin: charge bayonets",
            "2nd Wisconsin: charge",
        ),
        (
            &u,
            "2nd Wisconsin: fix bayonets and charge the reb line",
            "2nd Wisconsin: charge enemy C — 'fix bayonets' kept as colour",
        ),
        (
            &u,
            "2nd Wisconsin: rally and reform",
            "2nd Wisconsin: hold; then form line — 'rally' read as",
        ),
        (
            &u,
            "2nd Wisconsin: fall back in good order to the turnpike",
            "2nd Wisconsin: retreat to (34.7, 11.8) — 'in good order' kept as colour",
        ),
        (
            &u,
            "2nd Wisconsin: retire to the turnpike",
            "2nd Wisconsin: retreat to (34.7, 11.8)",
        ),
        (
            &u,
            "2nd Wisconsin: advance to Douglass house & hold",
            "2nd Wisconsin: advance to Douglass house (56, 28); then hold",
        ),
        (
            &u,
            "2nd Wisconsin: take cover in the orchard",
            "2nd Wisconsin: advance to the orchard (26, 25); on arrival lie down",
        ),
        (
            &u,
            "2nd Wisconsin: fire at target A",
            "2nd Wisconsin: fire at enemy A",
        ),
        (
            &u,
            "Gibbon: join the 6th Wisconsin",
            "Gibbon: ride with 6th Wisconsin",
        ),
        (
            &u,
            "7th Wisconsin: suport the 2nd Wisconsin",
            "7th Wisconsin: advance to (32, 18.3) — 'support the 2nd Wisconsin' read as",
        ),
        (
            &u,
            "6th Wisconsin: comform to the 7th Wisconsin",
            "6th Wisconsin: follow 7th Wisconsin, keeping station on it — 'conform to the 7th Wisconsin' read as",
        ),
        (
            &u,
            "2nd Wisconsin: engadge the regiment to our front",
            "2nd Wisconsin: fire at enemy C — 'engage' read as",
        ),
        (
            &u,
            "Gibbon: ride with the 2nd Wisconsin at the gallop",
            "Gibbon: ride with 2nd Wisconsin at the gallop",
        ),
        (
            &c,
            "4th Virginia: advance on the yankees",
            "4th Virginia: advance to (32, 24) — 'on the yankees' read as: toward that enemy, where your side last saw it",
        ),
        (
            &c,
            "4th Virginia: hold the fence line",
            // Its line of advance meets the fence 1" ahead (b11-67).
            "4th Virginia: advance to (20, 27.4); on arrival hold — 'hold the fence line' read as: advance there, then hold",
        ),
        (
            &c,
            "4th Virginia: fire at target B",
            "4th Virginia: fire at enemy B",
        ),
        (
            &c,
            "4th Virginia: charge target B at the double",
            "4th Virginia: charge enemy B at the double quick",
        ),
        (
            &c,
            "4th Virginia: charge the Yankee line",
            "4th Virginia: charge enemy",
        ),
        (
            &c,
            "4th Virginia: engage the regiment to our front with vigour",
            "4th Virginia: fire at enemy",
        ),
        (
            &c,
            "Wooding's Battery: counter-battery against B",
            "Wooding's Battery: fire at enemy B — 'counter-battery' read as",
        ),
        (
            &c,
            "Wooding's Battery: shell the federals",
            "Wooding's Battery: fire at will — 'shell' read as",
        ),
        (
            &c,
            "2nd Virginia: support the 4th Va",
            "2nd Virginia: advance to (20, 32) — 'support the 4th Virginia' read as",
        ),
        (
            &c,
            "2nd Virginia: take cover",
            "2nd Virginia: lie down — 'take cover' read as",
        ),
        (
            &c,
            "5th Virginia: throw out 4 castings as skirmishers",
            "5th Virginia: split off 4 castings as 5th Virginia skirmishers",
        ),
        (
            &c,
            "27th Virginia: conform to the 5th Va",
            "27th Virginia: follow 5th Virginia, keeping station on it",
        ),
        (
            &c,
            "33rd Virginia: adv fwd 4 inches",
            "33rd Virginia: advance to (39.5, 29)",
        ),
        (
            &c,
            "Poague's Battery: unlimber on Stony Ridge facing east",
            "Poague's Battery: advance to Stony Ridge",
        ),
        (
            &c,
            "Baylor: stay with the 5th Virginia",
            "Baylor: ride with 5th Virginia",
        ),
    ];
    // Old orders keep their meaning.
    for (text, want) in [
        (
            "2nd Wisconsin: advance to the Brawner farm, hold on arrival",
            "2nd Wisconsin: advance to the Brawner farm (22, 22); on arrival hold",
        ),
        (
            "2nd Wisconsin: charge the enemy at the double",
            "2nd Wisconsin: charge enemy",
        ),
        (
            "2nd Wisconsin: fire at the enemy battery",
            "2nd Wisconsin: fire at the nearest enemy battery",
        ),
        (
            "2nd Wisconsin: advance toward the enemy in line",
            "2nd Wisconsin: advance to",
        ),
    ] {
        let got = ok(&u, text);
        assert!(
            got.starts_with(want) && !got.contains(" — "),
            "{text}: {got}"
        );
    }
    let refused_helpfully: &[(&ParseContext, &str, &str)] = &[
        (
            &u,
            "Battery B: form skirmish order",
            "write 'limber' to move it",
        ),
        (
            &u,
            "Battery B: shell the woods",
            "guns fire only at enemy units they can see",
        ),
        (&u, "2nd Wisconsin: shell A", "write 'fire at ...'"),
        (
            &u,
            "2nd Wisconsin: limber up",
            "write 'form line' or 'form column'",
        ),
        (
            &c,
            "4th Virginia: fire at the reb line",
            "fire at one of them, or 'at will'",
        ),
    ];
    let mut good = 0;
    let mut wrong = Vec::new();
    for (ctx, text, want) in understood {
        match read(ctx, text) {
            Ok(got) if got.starts_with(want) => good += 1,
            other => wrong.push(format!("{text}\n   got {other:?}\n  want {want}")),
        }
    }
    for (ctx, text, want) in refused_helpfully {
        match read(ctx, text) {
            Err(e) if e.contains(want) => good += 1,
            other => wrong.push(format!(
                "{text}\n   got {other:?}\n  want an error with {want}"
            )),
        }
    }
    // "the ridge" could be Stony Ridge or the Brawner ridge: the nearer is
    // taken and the receipt lists both (docs/orders.md, "Place choice").
    let got = ok(&c, "Poague's Battery: unlimber on the ridge facing east");
    assert!(
        got.starts_with("Poague's Battery: advance to Stony Ridge (12, 44); on arrival unlimber"),
        "{got}"
    );
    let total = understood.len() + refused_helpfully.len();
    println!("player corpus: {good} of {total} read as meant or refused helpfully");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Session 8: a paragraph of several sentences, one of which cannot be
/// read: the others still count ("everything valid in the same mail
/// still counts"), and the one not read is answered on its own, with its
/// own line and column and the unit that keeps its previous orders.
#[test]
fn each_sentence_of_a_paragraph_counts_on_its_own() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    let text = "2nd Wis: hold. 7th Wis: dance a jig. 6th Wis: lie down.";
    let m = parse(&u, text);
    let read: Vec<String> = m.items.iter().map(|i| normalise(i, &u)).collect();
    assert_eq!(read.len(), 2, "{read:?} {:?}", m.errors);
    assert!(read[0].starts_with("2nd Wisconsin: hold"), "{read:?}");
    assert!(read[1].starts_with("6th Wisconsin: lie down"), "{read:?}");
    assert_eq!(m.errors.len(), 1, "{:?}", m.errors);
    let e = &m.errors[0];
    assert_eq!((e.line, e.column), (1, 25), "{e:?}");
    assert!(e.message.contains("'dance'"), "{e}");
    assert_eq!(e.units, vec![g.unit("7th Wisconsin")]);
    assert!(e.paragraph.starts_with("7th Wis:"), "{e:?}");
    // One order a line, no blank lines between them: the same.
    let text = "2nd Wis - hold\n7th Wis - banana\n6th Wis - lie down";
    let m = parse(&u, text);
    assert_eq!(m.items.len(), 2, "{:?}", m.errors);
    assert_eq!(m.errors.len(), 1);
    assert_eq!(m.errors[0].line, 2);
}

/// Session 8: "refuse the left flank" is a facing change of 45° toward
/// that flank (a unit turns whole, APSoF III.I), said in the receipt.
#[test]
fn a_refused_flank_is_a_half_turn_toward_it() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    let id = g.unit("7th Wisconsin");
    let facing = g.state.units.iter().find(|x| x.id == id).unwrap().facing;
    let r = ok(&u, "7th Wisconsin: refuse the left flank");
    assert!(r.contains("read as: face 45° to the left"), "{r}");
    assert!(r.contains("APSoF III.I"), "{r}");
    match actions(&u, "7th Wisconsin: refuse the right flank").as_slice() {
        [Action::Face(adjutant::rules::iron_brigade::orders::Direction::Degrees(d))] => {
            let want = (facing + 45.0).rem_euclid(360.0);
            assert!((d - want).abs() < 1e-6, "{d} vs {want}");
        }
        other => panic!("{other:?}"),
    }
    let r = ok(&u, "6th Wisconsin: throw back its left wing");
    assert!(r.contains("face 45° to the left"), "{r}");
}

/// Session 8: a condition before an order ("if the Georgians are hard
/// pressed, go to their support") would be carried out at once; it is
/// refused, saying what to write now and what to send later. Fire after
/// a condition is not refused: a unit fires only at what it sees in range.
#[test]
fn a_condition_before_an_order_is_refused_with_what_to_write() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    let e = refused(
        &u,
        "2nd Wisconsin: hold the fence; if the rebs charge, fall back to the woods",
    );
    assert!(e.contains("'if the rebs charge' is a condition"), "{e}");
    assert!(
        e.contains("Write '2nd Wisconsin: hold the fence' now"),
        "{e}"
    );
    assert!(
        e.contains("send 'fall back to the woods' in the turn it is needed"),
        "{e}"
    );
    let e = refused(
        &u,
        "7th Wisconsin: should the 2nd give way, advance to its support",
    );
    assert!(e.contains("Write '7th Wisconsin: hold' now"), "{e}");
    let r = ok(
        &u,
        "6th Wisconsin: hold; when they come within range, open fire",
    );
    assert!(r.starts_with("6th Wisconsin: hold"), "{r}");
}

/// Session 8: umpire shorthand for units, a number and the initial of
/// the name ("7W", "19I", "6th W", "4 Va").
#[test]
fn units_written_as_number_and_initial() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    for (text, want) in [
        ("7W: hold", "7th Wisconsin: hold"),
        ("2W: lie down", "2nd Wisconsin: lie down"),
        ("19I: hold", "19th Indiana: hold"),
        ("6th W: hold", "6th Wisconsin: hold"),
        ("7W adv 6\" N", "7th Wisconsin: advance"),
    ] {
        let r = ok(&u, text);
        assert!(r.starts_with(want), "{text}: {r}");
    }
    let b = baylor(&g);
    let r = ok(&b, "4 Va: hold");
    assert!(r.starts_with("4th Virginia: hold"), "{r}");
    // The initial stands for the word right after the number only.
    let e = refused(&u, "2V: hold");
    assert!(!e.contains("panicked"), "{e}");
}

/// Session 8: a place chosen among several is noted once, and when
/// falling back chooses another place than the nearest, the note names
/// the place the order uses.
#[test]
fn a_place_choice_is_noted_once() {
    let g = game("brawners-farm.toml");
    for (ctx, text, took) in [
        (
            gibbon(&g),
            "6th Wis: advance to the farm",
            "took the nearer, Douglass farm",
        ),
        (
            gibbon(&g),
            "19th Ind: advance to the ridge",
            "took the nearer, the Brawner ridge",
        ),
        (
            baylor(&g),
            "4th Va: fall back to the farm",
            "falling back, took",
        ),
    ] {
        let m = parse(&ctx, text);
        assert!(m.errors.is_empty(), "{text}: {:?}", m.errors);
        let notes: Vec<String> = m
            .items
            .iter()
            .flat_map(|i| adjutant::orders::receipt_notes(i, &ctx))
            .filter(|n| n.contains(" could be "))
            .collect();
        assert_eq!(notes.len(), 1, "{text}: {notes:?}");
        assert!(notes[0].contains(took), "{text}: {notes:?}");
        let read = normalise(&m.items[0], &ctx);
        let place = notes[0].rsplit_once("took ").unwrap().1;
        let pos = &place[place.find('(').unwrap()..=place.find(')').unwrap()];
        assert!(read.contains(pos), "{text}: {read} vs {notes:?}");
    }
}

/// Session 8, blind round 8: a report letter after a described target
/// ("(B)", ", marked B") is the target or the place; a unit named in
/// apposition ("your regiment, the 6th Wisconsin,") is the unit ordered;
/// a sign-off on the line under an order is no part of it.
#[test]
fn letters_after_descriptions_apposition_and_sign_offs() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    let r = ok(
        &u,
        "Battery B: fire on the reb battery (B) til it is silenced",
    );
    assert!(
        r.starts_with("Battery B, 4th US Artillery: fire at enemy B"),
        "{r}"
    );
    assert!(r.contains("'til it is silenced' kept as colour"), "{r}");
    let r = ok(
        &u,
        "2nd Wisconsin: advance in line upon the rebel line in front of the farm, marked B",
    );
    assert!(r.contains("read as: toward enemy B"), "{r}");
    let r = ok(
        &u,
        "Colonel, you will advance your regiment, the 6th Wisconsin, in line of battle upon the orchard.",
    );
    assert!(
        r.starts_with("6th Wisconsin: advance to the orchard"),
        "{r}"
    );
    assert!(r.contains("in line"), "{r}");
    let m = parse(
        &u,
        "7th Wis: lie down.\nYr obt svt,\nJohn Gibbon, Brig. Gen.",
    );
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    assert_eq!(m.items.len(), 1);
    assert_eq!(m.courtesies.len(), 1, "{:?}", m.courtesies);
    let r = ok(
        &u,
        "Gibbon: ride to the 2nd Wisconsin and try to steady them",
    );
    assert!(r.starts_with("Gibbon: ride with 2nd Wisconsin"), "{r}");
}

/// Opening chatter ("Evening. Here are my orders", "Orders for turn 4:")
/// is read as a greeting: it is not a failed order, so READY counts (found
/// playing: an HTML mail whose PASSWORD shared a line with "Evening. ...
/// here are my orders" had its READY refused).
#[test]
fn opening_chatter_is_a_greeting_not_a_failed_order() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    for opening in [
        "Evening. Here are my orders",
        "Orders for turn 4:",
        "Hi all, my orders follow.",
        "Good evening, Adjutant. Orders as follows:",
    ] {
        let m = parse(&u, &format!("{opening}\n\n7th Wis: lie down.\n\nREADY"));
        assert!(m.errors.is_empty(), "{opening}: {:?}", m.errors);
        assert_eq!(m.items.len(), 1, "{opening}");
        assert!(m.ready, "{opening}");
    }
    // Anything more than chatter is still answered as an error.
    let m = parse(&u, "Here are my orders: the turnpike\n\n7th Wis: lie down.");
    assert_eq!(m.errors.len(), 1, "{:?}", m.errors);
}

/// Round 11 (blind, session 9): a dispatch addressed to a unit's commander
/// ("Colonel Cutler, 6th Wisconsin, / Sir: You will ...") is that unit's
/// order, sentence by sentence, said so in the receipt; information in the
/// letter is told as such; headings over the orders ("GIBBON'S BRIGADE -
/// ORDERS", "Gibbon turn 4", a dateline) are no orders; "forward 3 in" is
/// an advance; a move after "face 330" goes the new way.
#[test]
fn addressed_dispatches_headings_forward_and_a_new_front() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    let m = parse(
        &u,
        "Headquarters, Gibbon's Brigade, on the Warrenton Turnpike, 6.40 p.m.\n\n\
         Colonel Cutler, 6th Wisconsin,\n\n\
         Sir: You will deploy your regiment into line. The 19th Indiana is coming up on your left.\n\n\
         Very respectfully, your obedient servant,\nJohn Gibbon, Brigadier General",
    );
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let [item] = m.items.as_slice() else {
        panic!("{:?}", m.items)
    };
    let read = normalise(item, &u);
    assert!(read.starts_with("6th Wisconsin: form line"), "{read}");
    let notes = adjutant::orders::receipt_notes(item, &u);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("addressed to the 6th Wisconsin's commander")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("read as information")),
        "{notes:?}"
    );
    // Captain Campbell's battery is found by the unit named after the
    // comma; a condition in the letter is still refused, at the letter.
    let m = parse(
        &u,
        "Captain Campbell, Battery B,\nSir: You will limber up. Should the enemy advance, you will retire.",
    );
    assert_eq!(m.items.len(), 1, "{:?}", m.items);
    assert_eq!(m.errors.len(), 1, "{:?}", m.errors);
    assert!(
        m.errors[0].message.contains("in the letter to Battery B"),
        "{}",
        m.errors[0]
    );
    // Headings.
    for heading in [
        "GIBBON'S BRIGADE - ORDERS",
        "Gibbon turn 4",
        "STONEWALL BRIGADE - ORDERS TURN 4",
        "Infantry",
    ] {
        let m = parse(&u, &format!("{heading}\n\n7th Wis: lie down."));
        assert!(m.errors.is_empty(), "{heading}: {:?}", m.errors);
        assert_eq!(m.items.len(), 1, "{heading}");
    }
    // "forward 3 in" and a new front.
    let r = ok(&u, "6th Wis: forward 3 in");
    assert!(r.starts_with("6th Wisconsin: advance to"), "{r}");
    // A new front written by a formation change counts too (found
    // playing the addressed letter by mail: "deploy into line facing
    // north and advance two hundred yards" went along the old front).
    let formed = ok(
        &u,
        "6th Wis: deploy into line facing north and advance two hundred yards",
    );
    let x6 = g.state.unit(g.unit("6th Wisconsin")).unwrap().position.x;
    assert!(
        formed.contains(&format!("advance to ({x6}, "))
            || formed.contains(&format!("advance to ({x6:.1}, ")),
        "{formed} (x {x6})"
    );
    let ahead = ok(&u, "6th Wis: face north, then adv 4 in");
    let x = g.state.unit(g.unit("6th Wisconsin")).unwrap().position.x;
    assert!(
        ahead.contains(&format!("advance to ({}, ", x))
            || ahead.contains(&format!("advance to ({x:.1}, ")),
        "{ahead} (x {x})"
    );
}

/// A unit named after a word that relates to it ("behind the 2nd
/// Wisconsin", "support the 6th") is what the order is about, never who
/// is ordered: "Thanks. 7th Wisconsin: move up behind the 2nd Wisconsin
/// and fire at A" was read as "2nd Wisconsin: fire at enemy A" with no
/// error (found by blind round 12). The unit at the head is ordered; a
/// paragraph with no unit of his at its head is refused, not given to the
/// unit it mentions.
#[test]
fn a_unit_after_a_relating_word_is_never_taken_as_the_one_ordered() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    for text in [
        "Thanks. 7th Wisconsin: move up behind the 2nd Wisconsin and fire at A.",
        "Thanks. 7th Wisconsin: move up on the right of the 2nd Wisconsin and fire on the regiment by the farm.",
    ] {
        let m = parse(&u, text);
        let read: Vec<String> = m.items.iter().map(|i| normalise(i, &u)).collect();
        assert!(
            !read.is_empty() && read.iter().all(|r| r.starts_with("7th Wisconsin:")),
            "{text}: {read:?}"
        );
    }
    for text in [
        "Dear sir: move up behind the 2nd Wisconsin and fire at A.",
        "Right then: support the 6th Wisconsin and fire at will.",
    ] {
        let m = parse(&u, text);
        let read: Vec<String> = m.items.iter().map(|i| normalise(i, &u)).collect();
        assert!(read.is_empty(), "{text}: {read:?}");
        assert!(!m.errors.is_empty(), "{text}");
    }
    // The apposition still names the unit ordered.
    ok(
        &u,
        "Colonel, you will advance your regiment, the 6th Wisconsin, in line of battle upon the orchard.",
    );
}

/// A pleasantry opening a paragraph ("Thanks.", "Fair enough.", "Thanks
/// for the report.") is no failed order: the order after it is read with
/// no error, so READY still counts.
#[test]
fn a_pleasantry_before_an_order_is_no_error() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    for text in [
        "Thanks. 7th Wisconsin: hold.",
        "Thanks for the report. 7th Wisconsin: hold.",
        "Fair enough. 7th Wisconsin: hold.",
    ] {
        assert_eq!(ok(&u, text), "7th Wisconsin: hold", "{text}");
    }
    // Anything more than a pleasantry is still answered.
    let m = parse(&u, "Thanks, now fall back. 7th Wisconsin: hold.");
    assert!(!m.errors.is_empty());
    // The order after it that fails is answered with its own fault, not
    // as a unit called "Thanks. 7th Wisconsin" (found playing the demo).
    let m = parse(
        &u,
        "Thanks. 7th Wisconsin: move up on the right of the 9th Wisconsin and fire at A.",
    );
    let said = format!("{:?}", m.errors);
    assert!(said.contains("the 9th Wisconsin"), "{said}");
    assert!(!said.contains("called 'Thanks"), "{said}");
}

/// A remark of the writer's that names none of his units or officers and
/// gives no order ("Sorry for the late orders!", "Ewell wants the pike.")
/// is no failed order: kept as a remark (the receipt quotes it), no error,
/// so READY still counts. A sentence with an order's words stays an error.
#[test]
fn remarks_are_kept_apart_from_orders_and_are_no_error() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    let m = parse(
        &u,
        "Sorry for the late orders!\n\nEwell wants the pike.\n\n7th Wisconsin: hold.",
    );
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    assert_eq!(m.remarks.len(), 2, "{:?}", m.remarks);
    assert_eq!(m.items.len(), 1);
    for order_like in [
        "Advance to the farm.",
        "You will move your command forward.",
        "Send the cavalry to scout the Douglass house.",
    ] {
        let m = parse(&u, order_like);
        assert!(!m.errors.is_empty(), "{order_like}");
        assert!(m.remarks.is_empty(), "{order_like}");
    }
}

/// "The 7th Wisconsin will deploy into line. The 19th Indiana will advance
/// ...": read whole, the first unit took every sentence's order (blind
/// round 13); each sentence is its own unit's order.
#[test]
fn sentences_for_several_units_are_not_read_as_the_first_units() {
    let g = game("brawners-farm.toml");
    let u = gibbon(&g);
    let m = parse(
        &u,
        "The 7th Wisconsin will deploy into line. The 19th Indiana will advance in line to the farm buildings. The 2nd Wisconsin will hold its ground.",
    );
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let read: Vec<String> = m.items.iter().map(|i| normalise(i, &u)).collect();
    assert_eq!(read.len(), 3, "{read:?}");
    assert!(read[0].starts_with("7th Wisconsin: form line"), "{read:?}");
    assert!(read[1].starts_with("19th Indiana: advance"), "{read:?}");
    assert!(read[2].starts_with("2nd Wisconsin: hold"), "{read:?}");
}
