//! The loose reading (issue #15, `src/orders/loose.rs`, `docs/orders.md`
//! "Loose reading"): a paragraph the grammar refuses is read a second time,
//! conservatively, and the receipt says so. Real scenario, real parser.

mod common;
mod orders_support;

use adjutant::identity::{EnemyNames, IdentityPolicy};
use adjutant::orders::{Item, ParseContext, normalise, parse_mail, receipt_notes};
use adjutant::rules::iron_brigade::state::{SideId, UnitId};
use common::GameDir;
use orders_support::{Game, game};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// A player's context at Brawner's Farm with the side's sightings lettered
/// by the default identity policy (enemies by letter).
fn ctx<'g>(g: &'g Game, officer: &str, seen: &[&str]) -> ParseContext<'g> {
    let mut ctx = g.ctx(&[officer], &[]);
    let ids: Vec<UnitId> = seen.iter().map(|n| g.unit(n)).collect();
    let mut names = EnemyNames::new(IdentityPolicy::Hidden);
    names.record_seen(&g.state, ctx.side, 3, ids.iter().copied());
    ctx.visible_enemies = ids.into_iter().collect::<BTreeSet<_>>();
    ctx.enemy_names = names;
    ctx
}

const UNION_SEES: &[&str] = &["4th Virginia", "2nd Virginia", "Wooding's Battery"];
const CONFED_SEES: &[&str] = &[
    "19th Indiana",
    "Battery B, 4th US Artillery",
    "2nd Wisconsin",
    "7th Wisconsin",
    "6th Wisconsin",
];

fn sees(officer: &str) -> &'static [&'static str] {
    if matches!(officer, "Gibbon" | "Doubleday") {
        UNION_SEES
    } else {
        CONFED_SEES
    }
}

fn notes(ctx: &ParseContext, item: &Item) -> Vec<String> {
    receipt_notes(item, ctx)
}

#[test]
fn words_after_a_complete_order_are_left_out_and_the_receipt_says_so() {
    let g = game("brawners-farm.toml");
    let ctx = ctx(&g, "Gibbon", UNION_SEES);
    // ("2nd Wis: advance 100 yds north asap" is now read by the grammar
    // itself, 'asap' kept as colour; "make limber" is not its own.)
    let text = "Battery B: make limber and move 2 inches to 9 o'clock asap";
    let m = parse_mail(text, &ctx);
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let [item] = m.items.as_slice() else {
        panic!("{:?}", m.items)
    };
    let Item::Unit {
        text: written,
        span,
        ..
    } = item
    else {
        panic!("{item:?}")
    };
    // The item carries the paragraph as written, with its span.
    assert_eq!(written, text);
    assert_eq!((span.start, span.end), (0, text.len()));
    let reading = normalise(item, &ctx);
    assert!(
        reading.starts_with("Battery B, 4th US Artillery: limber; then advance"),
        "{reading}"
    );
    let n = notes(&ctx, item);
    let loose = n
        .iter()
        .find(|n| n.starts_with("Read loosely"))
        .unwrap_or_else(|| panic!("no loose note in {n:?}"));
    assert!(
        loose.contains(&format!("'{text}' is taken as '{reading}'")),
        "{loose}"
    );
    assert!(loose.contains("words left out: 'asap'"), "{loose}");
    assert!(loose.contains("send the order again"), "{loose}");
}

#[test]
fn the_same_order_as_the_plain_form() {
    let g = game("brawners-farm.toml");
    for (loose, plain, officer) in [
        (
            "4th Va: lie down n keep firing",
            "4th Va: lie down and fire",
            "Baylor",
        ),
        ("Battery B: make limber", "Battery B: limber", "Gibbon"),
        (
            "21. Georgia: hold the position",
            "21st Georgia: hold the position",
            "Trimble",
        ),
        (
            "The 60. Georgia shall make attack on E",
            "60th Georgia: charge E",
            "Lawton",
        ),
        (
            "7th Wis: 200 yds N, then deploy into line facing N",
            "7th Wis: move 200 yds N, then deploy into line facing N",
            "Gibbon",
        ),
        (
            "56th Pennsylvania: 50 meter forward",
            "56th Pennsylvania: move 55 yards forward",
            "Doubleday",
        ),
        (
            "2nd Wisconsin: advance 4 inches towards 12 o'clock",
            "2nd Wisconsin: advance 4 inches north",
            "Gibbon",
        ),
        (
            "6th Wis: 3 inches on a bearing of 90",
            "6th Wis: move 3 inches east",
            "Gibbon",
        ),
        (
            "Gibbon: ride to the 2nd Wis asap",
            "Gibbon: ride to the 2nd Wis",
            "Gibbon",
        ),
        (
            "Trimble ride to 21 NC",
            "Trimble: ride to the 21st North Carolina",
            "Trimble",
        ),
        (
            "1. Battery B: fire at A asap",
            "Battery B: fire at A",
            "Gibbon",
        ),
        (
            "Advance the 2nd Wisconsin 4 inches asap",
            "2nd Wisconsin: advance 4 inches",
            "Gibbon",
        ),
        (
            "Colonel, you will be so good as to move the 56th Pennsylvania 4 inches to the east.",
            "56th Pennsylvania: move 4 inches east",
            "Doubleday",
        ),
    ] {
        let c1 = ctx(&g, officer, sees(officer));
        let a = parse_mail(loose, &c1);
        let c2 = ctx(&g, officer, sees(officer));
        let b = parse_mail(plain, &c2);
        assert!(
            a.errors.is_empty() && b.errors.is_empty(),
            "{loose}: {:?} / {:?}",
            a.errors,
            b.errors
        );
        // The reading without the notes the grammar appends after " — ".
        let bare = |r: String| r.split(" — ").next().unwrap_or_default().to_string();
        let ra: Vec<String> = a.items.iter().map(|i| bare(normalise(i, &c1))).collect();
        let rb: Vec<String> = b.items.iter().map(|i| bare(normalise(i, &c2))).collect();
        assert_eq!(ra, rb, "{loose}");
        // Read loosely, or (since the grammar grew) read by the grammar
        // with a note saying how: never silently.
        assert!(
            a.items.iter().all(|i| {
                let n = notes(&c1, i);
                n.iter().any(|n| n.starts_with("Read loosely"))
                    || n.iter().any(|n| n.contains("kept as colour"))
                    || normalise(i, &c1).contains(" — ")
            }),
            "{loose}: no note"
        );
        // The plain form is read strictly: no loose note.
        assert!(
            b.items
                .iter()
                .all(|i| notes(&c2, i).iter().all(|n| !n.starts_with("Read loosely"))),
            "{plain}"
        );
    }
}

#[test]
fn conditions_ambiguity_and_unknown_words_keep_the_strict_error() {
    let g = game("brawners-farm.toml");
    for (text, officer) in [
        (
            "26th Ga: should the enemy advance, fall back to the railroad asap",
            "Lawton",
        ),
        ("7th Wis: if they charge, retire 4 in pls", "Gibbon"),
        ("2nd Va: hold until they close then charge now", "Baylor"),
        ("Wisconsin: advance 4 in asap", "Gibbon"),
        // A word that is neither filler nor the language's stays refused.
        ("2nd Wis: advance 4 inches smartly-ish asap", "Gibbon"),
        ("2nd Wis: advance 4 inches towards 13 o'clock", "Gibbon"),
        // An enemy letter the side has not seen is not 'you'.
        ("Battery B: fire at U asap", "Gibbon"),
        // Measured after a move to a place, or after a turn: not guessed.
        (
            "2nd Wis: advance to the orchard, then 4 in bearing 90 asap",
            "Gibbon",
        ),
        (
            "2nd Wis: face left, then move 4 in to 2 o'clock pls",
            "Gibbon",
        ),
        // Two units under one loose head: refused, not guessed at.
        ("2nd Wis & 7th Wis: make advance 4 in asap", "Gibbon"),
    ] {
        let c = ctx(&g, officer, sees(officer));
        let m = parse_mail(text, &c);
        assert!(m.items.is_empty(), "{text}: read as {:?}", m.items);
        assert!(!m.errors.is_empty(), "{text}");
    }
}

#[test]
fn a_loose_reading_never_names_an_enemy_the_side_has_not_been_told() {
    let g = game("brawners-farm.toml");
    let c = ctx(&g, "Gibbon", UNION_SEES);
    // A is the 4th Virginia, seen but known only by its letter.
    let m = parse_mail("2nd Wis: make fire at A asap", &c);
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let all: Vec<String> = m
        .items
        .iter()
        .flat_map(|i| {
            let mut v = notes(&c, i);
            v.push(normalise(i, &c));
            v
        })
        .collect();
    let said = format!("{all:?}");
    assert!(said.contains("Read loosely"), "{said}");
    for unit in &g.state.units {
        if unit.side != SideId(0) {
            assert!(
                !said.contains(unit.name.as_str()),
                "leaks {}: {said}",
                unit.name
            );
        }
    }
    // An unseen enemy written with filler: still refused, and answered
    // like any other unknown name.
    let m = parse_mail("2nd Wis: fire at the 26th Ga asap", &c);
    assert!(m.items.is_empty(), "{:?}", m.items);
    let said = format!("{:?}", m.errors);
    assert!(!said.contains("26th Georgia"), "{said}");
}

#[test]
fn a_refused_sentence_beside_a_read_one_is_read_loosely() {
    let g = game("brawners-farm.toml");
    let c = ctx(&g, "Gibbon", UNION_SEES);
    let m = parse_mail("2nd Wis: hold. 7th Wis: advance 4 inches asap", &c);
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    assert_eq!(m.items.len(), 2, "{:?}", m.items);
    // In the order written, so that the last order to a unit counts.
    let m = parse_mail("2nd Wis: advance 4 inches asap. 2nd Wis: hold", &c);
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let read: Vec<String> = m.items.iter().map(|i| normalise(i, &c)).collect();
    assert_eq!(read.len(), 2, "{read:?}");
    assert!(
        read[0].contains("advance") && read[1].contains("hold"),
        "{read:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// No panic on any input built from the words the loose reader looks
    /// for, and every loosely read item is marked in its receipt.
    #[test]
    fn the_loose_reader_never_panics(words in prop::collection::vec(prop::sample::select(vec![
        "2nd", "Wis", "2.", "21", "NC", ":", "-", "advance", "4", "inches", "100", "yds",
        "metres", "bearing", "of", "on", "a", "200", "towards", "2", "o'clock", "12",
        "facing", "asap", "please", "sir", ",", "n", "hold", "lie", "down", "keep",
        "firing", "make", "limber", "fire", "at", "A", "if", "Gibbon", "ride", "to",
        "\n", "thx", "I", "have", "the", "honour", "direct", "that", "presents", "his",
        "compliments", "and", "directs", "u", "w/", "é", "£", "0", "999999999",
    ]), 0..24)) {
        let g = game("brawners-farm.toml");
        let c = ctx(&g, "Gibbon", UNION_SEES);
        let text = words.join(" ");
        let m = parse_mail(&text, &c);
        for i in &m.items {
            let s = i.span();
            prop_assert!(s.start <= s.end && s.end <= text.len());
            let _ = normalise(i, &c);
            let _ = notes(&c, i);
        }
    }
}

/// Through the binary: Gibbon mails orders as a stranger writes them; his
/// receipt takes the loosely read ones, says how each was read and what was
/// left out, and still refuses the condition.
#[test]
fn gibbons_receipt_says_what_was_read_loosely() {
    let g = GameDir::with_scenario("brawner", "scenarios/brawners-farm.toml");
    g.order_mail(
        "gibbon-loose",
        "gibbon@example.test",
        "Gibbon",
        "Sir, I have the honour to direct that the 2nd Wisconsin advance 100 yds north asap.\n\n\
         7th Wis: 200 yds N, then deploy into line facing N\n\n\
         Battery B: make limber and move 2 inches to 9 o'clock pls\n\n\
         19th ind: should the enemy advance, fall back 4 in asap\n\n\
         thx, that's it for t1 - G\n",
    );
    g.run_once();
    let mails = g.text_to("gibbon@example.test");
    let receipt = mails
        .iter()
        .find(|b| b.contains("Orders as understood"))
        .unwrap_or_else(|| panic!("no receipt among {mails:#?}"));
    let flat = receipt.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "2nd Wisconsin: advance to (32, 28)",
        "'asap' kept as colour, not an order",
        "7th Wisconsin: advance to (36, 20.5); then form line facing north",
        "Battery B, 4th US Artillery: limber; then advance to (26, 12)",
        "words left out: 'pls'",
        "'should the enemy advance' is a condition",
        "These units keep their previous orders: 19th Indiana",
        "Read as greeting or signature, not as orders",
    ] {
        assert!(flat.contains(want), "{want}\nnot in:\n{receipt}");
    }
}
