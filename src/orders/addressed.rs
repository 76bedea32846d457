//! A dispatch addressed to a unit's commander, as orders were written in
//! 1862 (issue #15):
//!
//! ```text
//! Colonel Cutler, 6th Wisconsin,
//!
//! Sir: You will wheel your regiment to the left, deploy into line, and
//! advance two hundred yards into the field.
//! ```
//!
//! The address line names the unit (or its commander, whose name the unit
//! bears: "Captain Carpenter," for Carpenter's Battery); the letter after
//! the salutation ("Sir:", "Colonel,") is that unit's order. The reader
//! reads it as "6th Wisconsin: wheel to the left, deploy into line, ..."
//! and the receipt says so. Nothing here guesses a unit the address does
//! not name.

use super::context::ParseContext;
use super::names::{Lookup, lookup, norm_words};
use crate::rules::iron_brigade::state::UnitId;

/// Ranks and words an address line opens with.
const ADDRESS_OPENINGS: &[&str] = &[
    "colonel",
    "col",
    "lt",
    "lieut",
    "lieutenant",
    "major",
    "maj",
    "captain",
    "capt",
    "cpt",
    "to",
];

/// Words of an address that are not the unit's name.
const ADDRESS_WORDS: &[&str] = &[
    "colonel",
    "col",
    "lt",
    "lieut",
    "lieutenant",
    "major",
    "maj",
    "captain",
    "capt",
    "cpt",
    "to",
    "the",
    "officer",
    "officers",
    "commanding",
    "comdg",
    "cmdg",
    "commander",
    "of",
    "c",
    "o",
];

/// Colour a letter ends its "hold your ground" with.
const COLOUR_TAILS: &[&str] = &[
    "at all hazards",
    "at all costs",
    "at any cost",
    "to the last man",
];

/// Salutations that open the letter's body.
const SALUTATIONS: &[&str] = &[
    "sir",
    "sirs",
    "colonel",
    "major",
    "captain",
    "gentlemen",
    "lieutenant",
    "general",
];

/// The own unit an address line ("Colonel Cutler, 6th Wisconsin,",
/// "Captain Carpenter,", "To the officer commanding the 26th Georgia")
/// names, if it names exactly one.
pub(super) fn addressee(line: &str, ctx: &ParseContext) -> Option<UnitId> {
    let l = line.trim().trim_end_matches([',', ':', '.', ';']).trim();
    if l.is_empty() || l.len() > 90 || l.contains(':') {
        return None;
    }
    let all = norm_words(l);
    if !all
        .first()
        .is_some_and(|w| ADDRESS_OPENINGS.contains(&w.as_str()))
    {
        return None;
    }
    let units = ctx.own_units();
    // The unit named after a comma: "Colonel Cutler, 6th Wisconsin".
    let mut found: Option<UnitId> = None;
    for part in l.split(',').skip(1) {
        let ws: Vec<String> = norm_words(part)
            .into_iter()
            .filter(|w| !ADDRESS_WORDS.contains(&w.as_str()))
            .collect();
        if ws.is_empty() {
            continue;
        }
        match lookup(&ws, &units) {
            Lookup::Found(u) if found.is_none_or(|f| f == u) => found = Some(u),
            _ => return None,
        }
    }
    if found.is_some() {
        return found;
    }
    // "To the officer commanding the 26th Georgia": the name after the
    // address words, with no comma.
    let first: Vec<String> = norm_words(l.split(',').next().unwrap_or(""))
        .into_iter()
        .filter(|w| !ADDRESS_WORDS.contains(&w.as_str()))
        .collect();
    if first.is_empty() {
        return None;
    }
    if let Lookup::Found(u) = lookup(&first, &units) {
        return Some(u);
    }
    // "Captain Carpenter": the one unit that bears the commander's name.
    let surname = first.last()?;
    if surname.chars().count() < 4 {
        return None;
    }
    let bearing: Vec<UnitId> = units
        .iter()
        .filter(|c| {
            c.words.iter().any(|w| {
                w == surname
                    || w.strip_suffix("'s").is_some_and(|s| s == surname)
                    || w.strip_suffix('s').is_some_and(|s| s == surname)
            })
        })
        .map(|c| c.target)
        .collect();
    match bearing.as_slice() {
        [one] => Some(*one),
        [first, rest @ ..] if rest.iter().all(|u| u == first) => Some(*first),
        _ => None,
    }
}

/// Ranks a letter to another general opens with ("General King,",
/// "Major-General Ewell,", "Brig. Gen. Gibbon").
const GENERAL_RANKS: &[&[&str]] = &[
    &["major", "general"],
    &["maj", "gen"],
    &["maj", "general"],
    &["lieutenant", "general"],
    &["lt", "gen"],
    &["lt", "general"],
    &["brigadier", "general"],
    &["brig", "gen"],
    &["brig", "general"],
    &["general"],
    &["gen"],
    &["to", "general"],
    &["to", "major", "general"],
    &["to", "gen"],
];

/// A letter's address line to a general who is none of the writer's own
/// officers ("General King,", "Major-General Ewell,"): the letter is a
/// report to him, not orders to a unit. His name as written.
pub(super) fn superior(line: &str, ctx: &ParseContext) -> Option<String> {
    let l = line.trim().trim_end_matches([',', ':', '.', ';']).trim();
    if l.is_empty() || l.len() > 60 || l.contains(':') {
        return None;
    }
    let words: Vec<String> = l
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let rank = GENERAL_RANKS
        .iter()
        .filter(|r| words.len() > r.len() && words.iter().zip(r.iter()).all(|(a, b)| a == b))
        .map(|r| r.len())
        .max()?;
    let name = words.get(rank..)?;
    if name.is_empty() || name.len() > 3 {
        return None;
    }
    // One of his own officers ("General Gibbon" to Gibbon's player) is
    // a heading, not an address.
    let own = ctx.own_officers();
    if matches!(lookup(name, &own), Lookup::Found(_)) {
        return None;
    }
    if matches!(lookup(name, &ctx.own_units()), Lookup::Found(_)) {
        return None;
    }
    Some(l.to_string())
}

/// Where the letter's body starts in `line` ("Sir: You will ..."): after
/// the salutation and its ':' or ','.
pub(super) fn salutation_body(line: &str) -> Option<usize> {
    let t = line.trim_start();
    let lead = line.len() - t.len();
    let end = t.find([':', ','])?;
    let word = t.get(..end)?.trim().to_lowercase();
    let word = word.strip_prefix("dear ").unwrap_or(&word);
    if !SALUTATIONS.contains(&word) {
        return None;
    }
    Some(lead + end + 1)
}

/// The body as an order to `unit`: "You will bring your section forward
/// to the wood" -> "<unit>: bring forward to the wood". The letter's
/// second person is the unit: "you will", "you are to", "your
/// regiment/battery/section/command" are left out.
pub(super) fn as_order(unit_name: &str, body: &str) -> String {
    let mut words: Vec<&str> = body
        .split_whitespace()
        .skip_while(|w| w.chars().all(|c| c == '-' || c == '\u{2014}'))
        .collect();
    // "You will", "You are to", "You are hereby directed to".
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let skip = match lower.as_slice() {
        [a, b, ..] if a == "you" && b == "will" => 2,
        [a, b, c, d, e, ..]
            if a == "you" && b == "are" && c == "hereby" && d == "directed" && e == "to" =>
        {
            5
        }
        [a, b, c, ..] if a == "you" && b == "are" && c == "to" => 3,
        [a, b, c, ..] if a == "you" && b == "will" && c == "please" => 3,
        _ => 0,
    };
    words.drain(..skip);
    // "hold your (present) ground / position": hold where it stands.
    let joined = words.join(" ");
    let lowered = joined.to_lowercase();
    for phrase in [
        "hold your present ground",
        "hold your present position",
        "hold your ground",
        "hold your position",
    ] {
        if let Some(k) = lowered.find(phrase) {
            let rest = joined.get(k + phrase.len()..).unwrap_or("");
            let head = joined.get(..k).unwrap_or("");
            // "hold your present ground north of the farm at all hazards":
            // the ground is where it stands; what describes it is left
            // with the colour after it ("at all hazards").
            let lower_rest = rest.to_lowercase();
            let cut = [" and ", ";", ".", ","]
                .iter()
                .filter_map(|m| lower_rest.find(m))
                .min()
                .unwrap_or(rest.len());
            let clause = rest.get(..cut).unwrap_or("");
            let tail = rest.get(cut..).unwrap_or("");
            let colour = COLOUR_TAILS
                .iter()
                .find(|c| clause.to_lowercase().trim_end().ends_with(*c))
                .map(|c| format!(" {c}"))
                .unwrap_or_default();
            return format!("{unit_name}: {head}hold{colour}{tail}");
        }
    }
    let mut out: Vec<&str> = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let w = words[k];
        let next = words.get(k + 1).map(|n| {
            n.trim_end_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        });
        if w.eq_ignore_ascii_case("your")
            && next.as_deref().is_some_and(|n| {
                matches!(
                    n,
                    "regiment" | "battery" | "section" | "guns" | "command" | "men" | "battalion"
                )
            })
        {
            // Keep what punctuation ended the dropped noun ("your
            // regiment," -> ",").
            let tail = words[k + 1].trim_start_matches(|c: char| c.is_alphanumeric());
            if !tail.is_empty() {
                out.push(tail);
            }
            k += 2;
            continue;
        }
        out.push(w);
        k += 1;
    }
    format!("{unit_name}: {}", out.join(" "))
}

/// A line that closes the letter: "I am, Sir, &c.", "By order of Brig.
/// Gen. Trimble", "Very respectfully" (lower-cased).
pub(super) fn closes_letter(lower: &str) -> bool {
    [
        "i am",
        "i remain",
        "by order",
        "by command",
        "very respectfully",
        "respectfully",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

/// A sentence of the letter that tells rather than orders: it opens with
/// a subject, not a verb or a condition ("The 19th Indiana is coming up on
/// your left."), or is a caution ("Do not advance beyond the orchard":
/// the unit does only what it is ordered, so it is told, not taken). "You
/// will ..." is an order; "Should the enemy ..." a condition (refused).
pub(super) fn informs(sentence: &str) -> bool {
    let lower = sentence.trim().to_lowercase();
    let first = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .find(|w| !w.is_empty())
        .unwrap_or("");
    if lower.starts_with("you will") || lower.starts_with("you are to") {
        return false;
    }
    const CONDITIONS: &[&str] = &[
        "if", "should", "when", "whenever", "until", "unless", "once",
    ];
    const TELLING: &[&str] = &[
        "the", "a", "an", "i", "we", "our", "my", "it", "there", "this", "that", "he", "they",
        "general", "colonel", "captain", "major", "having", "do", "don't", "dont", "god", "may",
        "trusting", "hoping",
    ];
    !CONDITIONS.contains(&first) && TELLING.contains(&first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salutations_open_the_body() {
        assert_eq!(salutation_body("Sir: You will hold"), Some(4));
        assert_eq!(salutation_body("Colonel, advance"), Some(8));
        assert_eq!(salutation_body("2nd Wisconsin: hold"), None);
        assert_eq!(salutation_body("Sir"), None);
    }

    #[test]
    fn the_letter_becomes_the_units_order() {
        assert_eq!(
            as_order(
                "6th Wisconsin",
                "You will wheel your regiment to the left and advance."
            ),
            "6th Wisconsin: wheel to the left and advance."
        );
        assert_eq!(
            as_order(
                "Carpenter's Battery",
                "You are to bring your section forward"
            ),
            "Carpenter's Battery: bring forward"
        );
    }
}
