//! Matching what a player wrote against the names he is allowed to use:
//! case-insensitive, tolerant of abbreviations ("2nd Wis", "Wisc.", "2d
//! Wisconsin", "Bat. B") and of possessives ("Brawner's farm").
//!
//! The matcher only ever sees the candidates the caller passes in, so a name
//! outside that set (an enemy unit the player cannot see) can never match
//! and never appears in a suggestion.

use super::lexer::{Tok, Token};

/// A name the player may use, with what it stands for.
#[derive(Debug, Clone)]
pub struct Candidate<T> {
    /// The name as shown to the player (in suggestions).
    pub display: String,
    /// Normalised words of the name (see [`norm_words`]).
    pub words: Vec<String>,
    pub target: T,
}

impl<T> Candidate<T> {
    pub fn new(name: &str, target: T) -> Self {
        Candidate {
            display: name.trim().to_string(),
            words: norm_words(name),
            target,
        }
    }
}

/// Words that may be left out of a name or written in addition to it.
const OPTIONAL: &[&str] = &[
    "the",
    "regiment",
    "regt",
    "reg",
    "infantry",
    "inf",
    "volunteers",
    "volunteer",
    "vols",
    "vol",
    "of",
];

/// Abbreviations that are not prefixes of the word they stand for.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("bty", "battery"),
    ("btry", "battery"),
    ("btty", "battery"),
    ("bat", "battery"),
    ("hse", "house"),
    ("hs", "house"),
    ("rr", "railroad"),
    ("wds", "woods"),
    ("batt", "battery"),
    ("arty", "artillery"),
    ("art", "artillery"),
    ("va", "virginia"),
    ("ga", "georgia"),
    ("tn", "tennessee"),
    ("wi", "wisconsin"),
    ("nc", "carolina"),
    ("sc", "carolina"),
    ("la", "louisiana"),
    ("ms", "mississippi"),
    ("miss", "mississippi"),
    ("me", "maine"),
    ("mn", "minnesota"),
    ("ny", "york"),
    ("nj", "jersey"),
    ("xroads", "crossroads"),
    ("rd", "road"),
    ("col", "colonel"),
    ("gen", "general"),
    ("brig", "brigadier"),
    ("capt", "captain"),
];

const ORDINAL_WORDS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth",
];

/// Normalise one word: lowercase, no apostrophes, possessive "'s" dropped,
/// ordinals as `#n` ("2nd", "2d", "second" and "2" are all `#2`).
pub fn norm_word(w: &str) -> String {
    // In place, one allocation for the common (ASCII) word: this runs for
    // every word of every name phrase the parser tries (BENCHMARKS.md,
    // intake). For ASCII, `to_ascii_lowercase` is `to_lowercase` and there
    // is no '\u{2019}' to replace.
    let mut s = if w.is_ascii() {
        w.to_ascii_lowercase()
    } else {
        w.to_lowercase().replace('\u{2019}', "'")
    };
    if s.ends_with("'s") {
        s.truncate(s.len() - 2);
    } else if s.ends_with('\'') {
        s.truncate(s.len() - 1);
    }
    s.retain(char::is_alphanumeric);
    if let Some(i) = ORDINAL_WORDS.iter().position(|o| *o == s) {
        return format!("#{}", i + 1);
    }
    // ASCII digits are one byte each, so this is also a char boundary.
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        let (number, rest) = s.split_at(digits);
        if matches!(rest, "" | "st" | "nd" | "rd" | "th" | "d") {
            let n: u64 = number.parse().unwrap_or(0);
            return format!("#{n}");
        }
    }
    s
}

/// The normalised words of a name; punctuation is dropped.
pub fn norm_words(name: &str) -> Vec<String> {
    token_words(&super::lexer::lex(name, 0, name.len()))
}

/// Whether `w` may be left out of a name or written in addition to it.
fn is_optional(w: &str) -> bool {
    OPTIONAL.contains(&w)
}

/// The words of a name that count: optional words left out.
fn core(words: &[String]) -> impl Iterator<Item = &str> + Clone {
    words.iter().map(String::as_str).filter(|w| !is_optional(w))
}

/// Whether a written word `q` stands for the name's word `c`.
fn word_matches(q: &str, c: &str) -> bool {
    if q == c {
        return true;
    }
    if q.starts_with('#') || c.starts_with('#') {
        return false;
    }
    // `chars().count() >= 2` without counting: more than one byte and not
    // a single multi-byte character.
    let two_chars = q.chars().nth(1).is_some();
    if two_chars && c.starts_with(q) {
        return true;
    }
    ABBREVIATIONS.iter().any(|(a, full)| *a == q && *full == c)
}

/// How well the written words match a candidate: `Some(true)` exactly
/// (every word, same order, optional words aside), `Some(false)` as an
/// abbreviation, `None` not at all.
pub fn match_quality(query: &[String], cand: &[String]) -> Option<bool> {
    // Allocation-free: the parser calls this for every candidate name of
    // every place and unit phrase of every mail (`cargo bench --bench
    // intake`); the optional words are skipped on the fly.
    let (q, c) = (core(query), core(cand));
    // No written word that counts: nothing to match.
    q.clone().next()?;
    if q.clone().eq(c.clone()) {
        return Some(true);
    }
    // Every written word must stand for a later word of the name, in order;
    // at least one word of the name must be matched that is not a number,
    // or a bare number if the name is only that.
    let mut rest = c.clone();
    let mut after_number = false;
    for w in q.clone() {
        // "7W", "19I", "6th W": one letter after the number is the first
        // letter of the name's next word (umpire shorthand, #15).
        let initial = after_number && w.len() == 1 && w.bytes().all(|b| b.is_ascii_alphabetic());
        let mut next_is_word = true;
        if !rest.by_ref().any(|cw| {
            let hit = word_matches(w, cw) || (initial && next_is_word && cw.starts_with(w));
            next_is_word = false;
            hit
        }) {
            return None;
        }
        after_number = w.starts_with('#');
    }
    // A bare number is too little to stand for a name ("6th" is not "6th
    // Wisconsin" unless the scenario gives that alias); "Wisconsin" alone
    // may stand for "2nd Wisconsin", and is ambiguous beside "6th Wisconsin".
    if q.clone().all(|w| w.starts_with('#')) && c.clone().any(|w| !w.starts_with('#')) {
        return None;
    }
    Some(false)
}

/// Normalised words of a run of tokens. Single letters joined by dots
/// ("U.S.", "N.Y.") are one word, as written without the dots.
pub fn token_words(toks: &[Token]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut glue = false;
    let mut prev_end = usize::MAX;
    for t in toks {
        match &t.tok {
            Tok::Word(w) => {
                let single = w.chars().count() == 1;
                if glue && single && t.start == prev_end {
                    if let Some(last) = out.last_mut() {
                        last.push_str(w);
                    }
                } else {
                    out.push(norm_word(w));
                }
                glue = single;
            }
            Tok::Number(n) if n.fract() == 0.0 && *n >= 0.0 => {
                out.push(format!("#{n}"));
                glue = false;
            }
            Tok::Punct('.') if glue && t.start == prev_end => {}
            _ => glue = false,
        }
        prev_end = t.end;
    }
    out.retain(|w| !w.is_empty());
    out
}

/// Result of looking a name up.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup<T> {
    Found(T),
    /// Several different things match; their display names.
    Ambiguous(Vec<String>),
    NotFound,
}

/// Look the written words up among `cands`. Exact matches win over
/// abbreviations; several candidates for the same target count as one.
pub fn lookup<T: Clone + PartialEq>(query: &[String], cands: &[Candidate<T>]) -> Lookup<T> {
    match lookup_exact(query, cands) {
        Lookup::NotFound => lookup_typo(query, cands),
        found => found,
    }
}

/// Whether the written word `q` is one slip of the pen from the name's
/// word `c` (a letter dropped, added, changed or two swapped), in a word
/// long enough that a slip cannot make another word ("Wiscosin",
/// "Indianna", "Virgina"; not "farm" for "form").
fn typo_of(q: &str, c: &str) -> bool {
    q.chars().count() >= 5
        && c.chars().count() >= 5
        && !q.starts_with('#')
        && !c.starts_with('#')
        && strsim::damerau_levenshtein(q, c) == 1
}

/// A name written with one slip of the pen (issue #15): every word of the
/// name written, in order, each the same, an abbreviation, or one slip
/// off (see [`typo_of`]), at most one slipped and at least one word right.
/// Only one thing may match; the caller says in the receipt what the name
/// was read as.
pub fn lookup_typo<T: Clone + PartialEq>(query: &[String], cands: &[Candidate<T>]) -> Lookup<T> {
    let q: Vec<&str> = core(query).collect();
    if q.is_empty() {
        return Lookup::NotFound;
    }
    let mut hits: Vec<&Candidate<T>> = Vec::new();
    for c in cands {
        let cw: Vec<&str> = core(&c.words).collect();
        if cw.len() != q.len() {
            continue;
        }
        let mut slips = 0;
        let mut right = 0;
        let mut ok = true;
        for (a, b) in q.iter().zip(&cw) {
            if word_matches(a, b) {
                right += 1;
            } else if typo_of(a, b) {
                slips += 1;
            } else {
                ok = false;
                break;
            }
        }
        // A one-word name slipped ("the fense") only when the word is long
        // enough that the slip names nothing else.
        let alone = q.len() == 1 && q.first().is_some_and(|w| w.chars().count() >= 5);
        if ok && slips == 1 && (right >= 1 || alone) && !hits.iter().any(|h| h.target == c.target) {
            hits.push(c);
        }
    }
    match hits.as_slice() {
        [] => Lookup::NotFound,
        [one] => Lookup::Found(one.target.clone()),
        many => Lookup::Ambiguous(many.iter().map(|c| c.display.clone()).collect()),
    }
}

/// [`lookup`] without forgiving a slip of the pen.
pub fn lookup_exact<T: Clone + PartialEq>(query: &[String], cands: &[Candidate<T>]) -> Lookup<T> {
    // Each candidate is matched once, not once per pass.
    let quality: Vec<Option<bool>> = cands
        .iter()
        .map(|c| match_quality(query, &c.words))
        .collect();
    for exact in [true, false] {
        let hits: Vec<&Candidate<T>> = cands
            .iter()
            .zip(&quality)
            .filter(|(_, q)| **q == Some(true) || (!exact && q.is_some()))
            .map(|(c, _)| c)
            .collect();
        let mut targets: Vec<&Candidate<T>> = Vec::new();
        for h in hits {
            if !targets.iter().any(|t| t.target == h.target) {
                targets.push(h);
            }
        }
        match targets.as_slice() {
            [] => continue,
            [one] => return Lookup::Found(one.target.clone()),
            many => return Lookup::Ambiguous(many.iter().map(|c| c.display.clone()).collect()),
        }
    }
    Lookup::NotFound
}

/// Up to three allowed names nearest to what was written (strsim), for
/// "did you mean". Only `cands` are considered, never anything else.
pub fn suggest<T>(written: &str, cands: &[Candidate<T>]) -> Vec<String> {
    // Compared without the words a name may carry or leave out ("the",
    // "regiment", ...): "the 13th Ohio" is one figure away from "12th
    // Ohio", but with "the " in front only of the written one, the two
    // strings differ from their first letter and score too low.
    let words = norm_words(written);
    let w = core(&words).collect::<Vec<_>>().join(" ");
    if w.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(f64, &str)> = cands
        .iter()
        .map(|c| {
            let joined = core(&c.words).collect::<Vec<_>>().join(" ");
            (strsim::jaro_winkler(&w, &joined), c.display.as_str())
        })
        .filter(|(s, _)| *s >= 0.75)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let mut out: Vec<String> = Vec::new();
    for (_, d) in scored {
        if !out.iter().any(|o| o == d) {
            out.push(d.to_string());
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands() -> Vec<Candidate<u32>> {
        vec![
            Candidate::new("2nd Wisconsin", 1),
            Candidate::new("6th Wisconsin", 2),
            Candidate::new("Battery B, 4th US Artillery", 3),
            Candidate::new("Battery B", 3),
            Candidate::new("19th Indiana", 4),
        ]
    }

    fn q(s: &str) -> Vec<String> {
        norm_words(s)
    }

    #[test]
    fn abbreviations_and_ordinal_spellings_match() {
        let c = cands();
        for s in [
            "2nd Wisconsin",
            "2nd wis",
            "2d Wisc.",
            "second Wisconsin",
            "2 wis",
            "the 2nd Wisconsin Infantry",
        ] {
            assert_eq!(lookup(&q(s), &c), Lookup::Found(1), "{s}");
        }
        for s in ["Bat. B", "bty b", "battery b", "Battery B, 4th U.S. Arty"] {
            assert_eq!(lookup(&q(s), &c), Lookup::Found(3), "{s}");
        }
    }

    #[test]
    fn numbers_must_agree_and_bare_state_is_ambiguous() {
        let c = cands();
        assert_eq!(lookup(&q("12th Wisconsin"), &c), Lookup::NotFound);
        assert_eq!(lookup(&q("2nd"), &c), Lookup::NotFound);
        assert!(matches!(lookup(&q("Wisconsin"), &c), Lookup::Ambiguous(v) if v.len() == 2));
        assert_eq!(lookup(&q("Indiana"), &c), Lookup::Found(4));
    }

    /// `norm_word` as it was before it was made allocation-light; the two
    /// must agree on every word.
    fn norm_word_reference(w: &str) -> String {
        let lower = w.to_lowercase().replace('\u{2019}', "'");
        let base = lower
            .strip_suffix("'s")
            .or_else(|| lower.strip_suffix('\''))
            .unwrap_or(&lower);
        let base: String = base.chars().filter(|c| c.is_alphanumeric()).collect();
        if let Some(i) = ORDINAL_WORDS.iter().position(|o| *o == base) {
            return format!("#{}", i + 1);
        }
        let digits: String = base.chars().take_while(|c| c.is_ascii_digit()).collect();
        if !digits.is_empty() {
            let rest = base.get(digits.len()..).unwrap_or_default();
            if matches!(rest, "" | "st" | "nd" | "rd" | "th" | "d") {
                let n: u64 = digits.parse().unwrap_or(0);
                return format!("#{n}");
            }
        }
        base
    }

    #[test]
    fn norm_word_agrees_with_its_reference() {
        for w in [
            "Wisconsin",
            "WISC.",
            "2nd",
            "2d",
            "02ND",
            "second",
            "Twelfth",
            "12",
            "1st's",
            "Brawner's",
            "Brawner\u{2019}s",
            "Brawners'",
            "'s",
            "'",
            "",
            "U.S.",
            "N.Y",
            "Ünion",
            "ÉCOLE",
            "İstanbul",
            "Straße",
            "3rd-Tenn",
            "4th.",
            "99999999999999999999th",
            "5x",
            "x5",
            "a",
            "Ωmega's",
            "miller\u{2019}",
            "٣rd",
        ] {
            assert_eq!(norm_word(w), norm_word_reference(w), "{w:?}");
        }
    }

    #[test]
    fn possessives_are_ignored() {
        let c = vec![Candidate::new("the Brawner farm", 7)];
        assert_eq!(lookup(&q("Brawner's farm"), &c), Lookup::Found(7));
    }

    #[test]
    fn suggestions_come_from_candidates_only() {
        let s = suggest("2nd Wiscosin", &cands());
        assert_eq!(s.first().map(String::as_str), Some("2nd Wisconsin"));
        assert!(suggest("zzzz", &cands()).is_empty());
    }

    /// "the" (or "regiment", "volunteers") written before a misspelt name
    /// does not hide the near names.
    #[test]
    fn suggestions_ignore_the_optional_words() {
        let s = suggest("the 3rd Wisconsin", &cands());
        assert!(
            s.contains(&"2nd Wisconsin".to_string()) && s.contains(&"6th Wisconsin".to_string()),
            "{s:?}"
        );
        let s = suggest("the 19th Indianna Volunteers", &cands());
        assert_eq!(s.first().map(String::as_str), Some("19th Indiana"));
    }
}
