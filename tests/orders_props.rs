//! Property: no text a player can send makes the order parser panic, and
//! every position it reports lies inside the text.

mod orders_support;

use adjutant::orders::{expected_effective_turn, normalise, parse_mail};
use orders_support::*;
use proptest::prelude::*;
use std::sync::LazyLock;

/// Words and marks of the order language, so that random text reaches deep
/// into the parser instead of failing at the first word.
const VOCAB: &[&str] = &[
    "10th Ohio",
    "12th",
    "Battery A",
    "Colonel Hale",
    "Hale",
    ":",
    ";",
    ",",
    ".",
    "(",
    ")",
    "\"",
    "then",
    "and",
    "on arrival",
    "upon reaching",
    "when there",
    "advance",
    "march",
    "double",
    "quick",
    "to",
    "the",
    "crossroads",
    "ford",
    "Miller's",
    "farm",
    "Round Hill",
    "edge of",
    "in",
    "line",
    "column",
    "form",
    "face",
    "facing",
    "north-west",
    "NW",
    "270",
    "toward",
    "fire",
    "at",
    "will",
    "nearest",
    "enemy",
    "battery",
    "hold",
    "lie down",
    "stand up",
    "limber",
    "unlimber",
    "mount",
    "dismount",
    "retreat",
    "withdraw",
    "split",
    "off",
    "combine",
    "with",
    "charge",
    "5th Tennessee",
    "Ridley",
    "7th Tennessee",
    "300",
    "yards",
    "inches",
    "north",
    "of",
    "on the left of",
    "behind",
    "by road",
    "FROM",
    "READY",
    "REPORT",
    "HISTORY",
    "DISPATCH TO",
    "PASSWORD",
    "\n",
    "\n\n",
    "- ",
    "34",
    "12",
    "-5",
    "1e308",
    "\u{2019}",
    "é",
    "afterwards",
    "until reaching",
    "ride",
    "gallop",
    "firing",
    "while",
    "advancing",
    // APSoF V.F: combined and split fire.
    "together with",
    "12th Ohio",
    "its fire",
    "between",
    "castings",
    "0",
    "8",
    "half",
    "the rest",
    "the other half",
    // Issue #15: verbs outside the fixed list, colour, nicknames,
    // described targets, officers riding with a unit.
    "rally",
    "on the colours",
    "await",
    "support",
    "engage",
    "follow",
    "conform to",
    "movements of",
    "take cover",
    "shift",
    "oblique",
    "left",
    "right",
    "close up",
    "throw out",
    "skirmishers",
    "counter-battery",
    "counterbattery",
    "shell",
    "reform",
    "adv",
    "ret",
    "fwd",
    "w/d",
    "W/D",
    "&",
    "at all costs",
    "with vigour",
    "to the last man",
    "until they close",
    "reb",
    "secesh",
    "johnnies",
    "graybacks",
    "yankee",
    "bluebellies",
    "federals",
    "target",
    "C",
    "A",
    "line",
    "in front of",
    "near",
    "Stony Ridge",
    "to our front",
    "accompany",
    "stay",
    "skirmish order",
    // Orders as players write them, third round (#15).
    "between",
    "within 100 yards of",
    "lie down",
    "dress on",
    "extend the line to the left of",
    "take position",
    "occupy",
    "keep up a steady fire on",
    "direct your fire on",
    "go into battery",
    "the 2nd",
    "the 12th",
    "adv.",
    "teh",
    "will",
    "is to",
    "Colonel",
    "I want",
    "(",
    ")",
    "-",
    "Ohoi",
    "crosroads",
    "oblique to the right",
    "shift 2 inches to the left",
    "at once",
    "keep it up",
    "boys",
    "there",
    "on",
    "hodl",
    "over",
    "Orders, turn 3",
    // Session 8: a flank refused, conditions before an order, umpire
    // shorthand for units, several sentences in one paragraph.
    "refuse the left flank",
    "throw back the right",
    "if",
    "if pressed,",
    "should they charge,",
    "in case",
    "whenever",
    "10O",
    "12 O",
    "10th O",
    "14O adv 6\" N",
    ". 12th Ohio:",
    ". 14th Ohio - hold.",
    "(B)",
    ", marked C",
    "designated",
    "your regiment,",
    "the 10th Ohio,",
    "Yr obt svt,",
    "to the rear",
    "til it is silenced",
    "try to steady them",
    "stay put",
    "dislodge",
    "both regiments to",
    " - ",
    "in.",
    ".",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCAB), 0..40).prop_map(|ws| ws.join(" "))
}

/// The training game, loaded once, without and with split-units.
static GAMES: LazyLock<[Game; 2]> = LazyLock::new(|| {
    let mut with_split = game("training.toml");
    with_split.state.options.advanced_organization = true;
    [game("training.toml"), with_split]
});

fn check(text: &str) {
    for g in GAMES.iter() {
        let ctx = blue(g);
        let m = parse_mail(text, &ctx);
        let lines = text.split('\n').count().max(1);
        for e in &m.errors {
            assert!(e.line >= 1 && e.line <= lines, "{e:?} in {text:?}");
            assert!(e.column >= 1, "{e:?}");
            assert!(!e.message.is_empty());
        }
        for i in &m.items {
            let s = i.span();
            assert!(s.start <= s.end && s.end <= text.len(), "{s:?}");
            let _ = normalise(i, &ctx);
            let _ = expected_effective_turn(i, &ctx);
        }
        for d in &m.dispatches {
            assert!(d.span.end <= text.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        check(&text);
    }

    #[test]
    fn order_like_text_never_panics(text in soup()) {
        check(&text);
    }

    #[test]
    fn headed_order_soup_never_panics(body in soup()) {
        check(&format!("10th Ohio: {body}"));
        check(&format!("Colonel Hale: {body}"));
    }
}
