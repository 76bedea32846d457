//! A second, looser reading of an order paragraph the grammar refused
//! (issue #15, `docs/orders.md` "Loose reading").
//!
//! Strangers write complete orders followed by words that carry no order
//! ("... to the field fence asap"), moves without a verb ("7th Wis: 200
//! yds N"), phone typing ("lie down n keep firing", "btty", "w/"), formal
//! dispatches ("Sir, I have the honour to direct that the 4th Virginia
//! ..."), foreign English ("the 2. Wisconsin", "make limber", "50 meter
//! forward"), clock directions ("towards 2 o'clock") and bearings
//! ("bearing 200"). When the strict parser reads nothing from such a
//! paragraph, this module rewrites the words it knows into the language's
//! own words — dropping only words that carry no order (a fixed list:
//! "asap", "please", "sir", formal openings) — and the strict parser reads
//! the rewritten text, so a loose reading builds exactly the order the
//! grammar would build for the plain form. It is accepted only when that
//! reading has no error at all and gives one unit or officer; anything
//! else keeps the strict error. Conditions ("if", "should the enemy",
//! "until", "when") are never read loosely. The receipt always says that
//! the order was read loosely, what it was taken as, and which words were
//! left out.

use super::context::{ParseContext, ParseNote};
use super::{Item, Span, normalise};
use crate::rules::iron_brigade::geometry::facing_vector;
use crate::rules::iron_brigade::state::{OfficerId, Pos, UnitId};

/// Where distances and clock directions are measured from: the unit's
/// place and facing (12 o'clock is straight ahead).
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame {
    pub at: Pos,
    pub facing: f64,
    pub yards_per_inch: f64,
}

/// A rewritten paragraph: the text for the strict parser, the words left
/// out as written, and whether it needs the unit's place and facing.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Rewrite {
    pub text: String,
    pub left_out: Vec<String>,
    pub needs_frame: bool,
}

#[derive(Debug, Clone, PartialEq)]
struct Piece {
    gap: String,
    word: String,
}

impl Piece {
    fn new(gap: &str, word: &str) -> Piece {
        Piece {
            gap: gap.to_string(),
            word: word.to_string(),
        }
    }

    fn lc(&self) -> String {
        self.word.to_lowercase()
    }
}

/// Words and marks with the white space before each; a full stop at the
/// end of a word is a piece of its own ("2." is "2" and ".").
fn pieces(s: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut gap = String::new();
    let mut cur = String::new();
    fn push(out: &mut Vec<Piece>, gap: &mut String, cur: &mut String) {
        if cur.is_empty() {
            return;
        }
        let word = std::mem::take(cur);
        let g = std::mem::take(gap);
        if word.len() > 1 && word.ends_with('.') {
            let stem = word.trim_end_matches('.');
            if !stem.is_empty() {
                out.push(Piece::new(&g, stem));
                out.push(Piece::new("", "."));
                return;
            }
        }
        out.push(Piece { gap: g, word });
    }
    for c in s.chars() {
        if c.is_whitespace() {
            push(&mut out, &mut gap, &mut cur);
            gap.push(c);
        } else if matches!(c, ',' | ';' | ':' | '!' | '?' | '(' | ')' | '&') {
            push(&mut out, &mut gap, &mut cur);
            out.push(Piece::new(&std::mem::take(&mut gap), &c.to_string()));
        } else {
            cur.push(c);
        }
    }
    push(&mut out, &mut gap, &mut cur);
    out
}

fn join(p: &[Piece]) -> String {
    let mut s = String::new();
    for x in p {
        s.push_str(&x.gap);
        s.push_str(&x.word);
    }
    s
}

/// Words that make an order conditional: never read loosely (the grammar
/// answers them: an order is for now, APSoF I.C).
const CONDITIONS: &[&str] = &[
    "if", "unless", "until", "till", "til", "when", "whenever", "lest",
];

/// Phrases that carry no order, dropped from a loose reading and named in
/// the receipt. Longest first where one begins another.
const FILLER: &[&str] = &[
    "i have the honour to direct that",
    "i have the honor to direct that",
    "i have the honour to request that",
    "i have the honor to request that",
    "i have the honour to order that",
    "i have the honor to order that",
    "it is my wish that",
    "it is my desire that",
    "you will be so good as to",
    "be so good as to",
    "be good enough to",
    "if you please",
    "if u please",
    "as soon as possible",
    "as quick as you can",
    "without delay",
    "at once",
    "right away",
    "straight away",
    "right now",
    "asap",
    "a.s.a.p",
    "immediately",
    "forthwith",
    "now",
    "please",
    "pls",
    "plz",
    "kindly",
    "quickly",
    "promptly",
    "good luck boys",
    "good luck lads",
    "good luck",
    "godspeed",
    "god speed",
    "thank you",
    "thanks",
    "cheers",
    "where you are",
    "where u are",
    "where they are",
    "where it is",
    "where it stands",
    "on the spot",
    "dear sir ,",
    "dear sir",
    "sir ,",
    "sir",
    "general ,",
    "colonel ,",
    "captain ,",
    "!",
    "?",
];

/// Words that open a sign-off line: it and the rest of the paragraph are
/// left out ("thx, that's it for t3 - G").
const SIGNOFFS: &[&str] = &[
    "thx",
    "thanks",
    "thank you",
    "that's all",
    "thats all",
    "that is all",
    "that's it",
    "thats it",
    "cheers",
    "regards",
    "over and out",
    "end of orders",
];

/// "General Lawton presents his compliments and directs the 26th
/// Georgia to hold": the phrase and the writer's name before it.
const COMPLIMENTS: &[&str] = &[
    "presents his compliments and directs",
    "presents his compliments and requests",
    "presents his compliments and orders",
    "presents his compliments and desires",
];

/// Words rewritten into the language's own words (as written → as read).
const REWORDS: &[(&str, &str)] = &[
    ("continue lying down", "lie down"),
    ("keep lying down", "lie down"),
    ("remain lying down", "lie down"),
    ("continue to lie down", "lie down"),
    ("lying down", "lie down"),
    ("keep firing", "fire"),
    ("continue firing", "fire"),
    ("keep up the fire", "fire"),
    ("keep up your fire", "fire"),
    ("make an attack on", "charge"),
    ("make attack on", "charge"),
    ("make attack", "charge"),
    ("make fire on", "fire at"),
    ("make fire at", "fire at"),
    ("make limber", "limber"),
    ("make unlimber", "unlimber"),
    // A newcomer's words for the guns (blind round 12): APSoF's limber
    // and unlimber (III.D).
    ("set up the cannons", "unlimber"),
    ("set up the guns", "unlimber"),
    ("set up its guns", "unlimber"),
    ("set up their guns", "unlimber"),
    ("pack up the cannons", "limber"),
    ("pack up the guns", "limber"),
    ("pack up its guns", "limber"),
    ("pack up their guns", "limber"),
    ("hitch up the guns", "limber"),
    ("hitch up", "limber"),
    ("walk", "move"),
    ("stroll", "move"),
    ("dq", "double quick"),
    ("d.q", "double quick"),
    ("u", "you"),
    ("ur", "your"),
    ("w/", "with"),
    ("bty", "battery"),
    ("btty", "battery"),
    ("bttry", "battery"),
    ("batt", "battery"),
];

/// Words of the language a slip of the keys is put right to (five letters
/// or more, so that a short word is never taken for another; not 'charge',
/// one slip from 'change', nor 'paces' from 'faces' and 'places', nor
/// 'rally' from 'really').
const SPELLED: &[&str] = &[
    "advance",
    "follow",
    "retreat",
    "retire",
    "withdraw",
    "column",
    "inches",
    "battle",
    "unlimber",
    "limber",
    "skirmishers",
    "support",
    "conform",
    "double",
    "quick",
    "forward",
    "yards",
    "volley",
];

/// The one word of [`SPELLED`] that `w` is a single slip from (a letter
/// left out, added, changed, or two swapped), if exactly one.
fn spelling(w: &str) -> Option<&'static str> {
    let n = w.chars().count();
    if n < 5 || !w.chars().all(|c| c.is_ascii_lowercase()) || SPELLED.contains(&w) {
        return None;
    }
    let mut hits = SPELLED.iter().filter(|v| one_slip(w, v));
    let first = hits.next()?;
    hits.next().is_none().then_some(*first)
}

/// Whether `a` and `b` differ by one insertion, deletion, substitution or
/// swap of neighbouring letters (ASCII words).
fn one_slip(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a == b {
        return false;
    }
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (
        a.get(prefix..).unwrap_or_default(),
        b.get(prefix..).unwrap_or_default(),
    );
    let rest = |x: &[u8], k: usize| -> Vec<u8> { x.get(k..).unwrap_or_default().to_vec() };
    match (ra.len(), rb.len()) {
        (la, lb) if la == lb => {
            rest(ra, 1) == rest(rb, 1)
                || (la >= 2
                    && ra.first() == rb.get(1)
                    && ra.get(1) == rb.first()
                    && rest(ra, 2) == rest(rb, 2))
        }
        (la, lb) if la + 1 == lb => ra == rest(rb, 1).as_slice(),
        (la, lb) if la == lb + 1 => rest(ra, 1).as_slice() == rb,
        _ => false,
    }
}

/// State words after a bare number make it a regiment's ordinal ("21 NC",
/// "26 Ga"): the number is not a distance.
const STATES: &[&str] = &[
    "ga",
    "georgia",
    "va",
    "virginia",
    "nc",
    "n.c",
    "ala",
    "alabama",
    "wis",
    "wisc",
    "wisconsin",
    "ind",
    "indiana",
    "ny",
    "n.y",
    "pa",
    "penn",
    "pennsylvania",
    "ohio",
    "mich",
    "michigan",
    "la",
    "tenn",
    "miss",
];

/// Distance words and their length in yards (`None`: inches). A pace is
/// 30 inches, as the grammar has it (`parser::distance`).
fn distance_unit(w: &str) -> Option<Option<f64>> {
    match w {
        "in" | "inch" | "inches" => Some(None),
        "yd" | "yds" | "yard" | "yards" => Some(Some(1.0)),
        "pace" | "paces" => Some(Some(30.0 / 36.0)),
        _ => None,
    }
}

/// Metres: 1 m = 1.0936 yards (the international yard, 0.9144 m).
fn is_metre(w: &str) -> bool {
    matches!(
        w,
        "m" | "meter" | "meters" | "metre" | "metres" | "mtr" | "mtrs"
    )
}

fn number(w: &str) -> Option<f64> {
    if w.is_empty() || !w.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    w.parse::<f64>().ok().filter(|n| n.is_finite())
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Whether the lower-cased words of `p` from `i` start with `phrase`.
fn at_phrase(p: &[Piece], i: usize, phrase: &str) -> Option<usize> {
    let mut k = i;
    for w in phrase.split(' ') {
        if p.get(k)?.lc() != w {
            return None;
        }
        k += 1;
    }
    Some(k - i)
}

fn is_compass(w: &str) -> bool {
    super::parser::compass_degrees(w).is_some()
}

/// Rewrite a refused paragraph into the language's own words, or `None`
/// when it has a condition or nothing to rewrite. Without a `frame`,
/// clock directions and bearings become a placeholder direction (to find
/// the unit first) and `needs_frame` is set.
#[cfg(test)]
fn rewrite(original: &str, frame: Option<&Frame>) -> Option<Rewrite> {
    rewrite_any(original, frame).filter(|r| r.text != original.trim())
}

/// As [`rewrite`], but also when nothing was rewritten (`None` only for a
/// condition or a clock direction or bearing in a shape not read).
fn rewrite_any(original: &str, frame: Option<&Frame>) -> Option<Rewrite> {
    let p = pieces(original);
    // Conditions stay refused as the grammar refuses them.
    for (k, x) in p.iter().enumerate() {
        let w = x.lc();
        let next = p.get(k + 1).map(Piece::lc).unwrap_or_default();
        let prev = k
            .checked_sub(1)
            .and_then(|j| p.get(j))
            .map(Piece::lc)
            .unwrap_or_default();
        if CONDITIONS.contains(&w.as_str())
            || (w == "should"
                && matches!(
                    next.as_str(),
                    "the"
                        | "they"
                        | "he"
                        | "we"
                        | "it"
                        | "you"
                        | "any"
                        | "enemy"
                        | "yanks"
                        | "rebs"
                ))
            || (w == "once" && prev != "at")
            || (w == "in" && next == "case")
        {
            // "if you please" is a courtesy, not a condition.
            if w == "if"
                && matches!(next.as_str(), "you" | "u")
                && p.get(k + 2).is_some_and(|q| q.lc() == "please")
            {
                continue;
            }
            return None;
        }
    }
    let mut left_out: Vec<String> = Vec::new();
    // Pass 1: filler out, words rewritten.
    let mut out: Vec<Piece> = Vec::new();
    let mut i = 0;
    'scan: while let Some(x) = p.get(i) {
        // "thats all for now, I R Trimble" on a line of its own: a
        // sign-off, left out with the rest of the paragraph.
        if x.gap.contains('\n') && SIGNOFFS.iter().any(|ph| at_phrase(&p, i, ph).is_some()) {
            left_out.push(join(p.get(i..).unwrap_or_default()).trim().to_string());
            break;
        }
        for ph in COMPLIMENTS {
            if let Some(n) = at_phrase(&p, i, ph) {
                // The writer's name before it: at most three words.
                let line_start = out
                    .iter()
                    .rposition(|q| q.gap.contains('\n') || q.word == "." || q.word == ",")
                    .map(|j| {
                        j + usize::from(out.get(j).is_some_and(|q| q.word == "." || q.word == ","))
                    })
                    .unwrap_or(0);
                if out.len().saturating_sub(line_start) <= 3 {
                    let name: Vec<Piece> = out.split_off(line_start);
                    let gap = name.first().map(|q| q.gap.clone()).unwrap_or_default();
                    let mut said = join(&name).trim().to_string();
                    if !said.is_empty() {
                        said.push(' ');
                    }
                    said.push_str(join(p.get(i..i + n).unwrap_or_default()).trim());
                    left_out.push(said);
                    i += n;
                    if let Some(next) = p.get(i) {
                        out.push(Piece::new(&gap, &next.word));
                        i += 1;
                    }
                    continue 'scan;
                }
            }
        }
        for ph in FILLER {
            if let Some(n) = at_phrase(&p, i, ph) {
                left_out.push(
                    join(p.get(i..i + n).unwrap_or_default())
                        .trim()
                        .trim_end_matches(',')
                        .to_string(),
                );
                // Keep a line break that stood before the dropped words.
                if x.gap.contains('\n') {
                    out.push(Piece::new(&x.gap, ""));
                }
                i += n;
                continue 'scan;
            }
        }
        // "fire at U": an enemy's letter, not 'you'.
        let after_target = out.last().is_some_and(|q| {
            matches!(
                q.lc().as_str(),
                "at" | "on" | "upon" | "charge" | "enemy" | "target" | "engage" | "shell"
            )
        });
        for (from, to) in REWORDS {
            if after_target && from.len() == 1 {
                continue;
            }
            if let Some(n) = at_phrase(&p, i, from) {
                out.push(Piece::new(&x.gap, to));
                i += n;
                continue 'scan;
            }
        }
        let w = x.lc();
        let next = p.get(i + 1);
        // "folow", "colum", "inchs", "battel": one slip from one word of
        // the language, and only that one.
        if let Some(fixed) = spelling(&w) {
            out.push(Piece::new(&x.gap, fixed));
            i += 1;
            continue;
        }
        // "lie down n keep firing": 'n' is 'and' before an order word.
        if w == "n"
            && out
                .last()
                .is_some_and(|q| distance_unit(&q.lc()).is_none() && number(&q.lc()).is_none())
            && next.is_some_and(|q| {
                let v = q.lc();
                super::parser::is_verb_word(&v) || matches!(v.as_str(), "keep" | "lie" | "continue")
            })
        {
            out.push(Piece::new(&x.gap, "and"));
            i += 1;
            continue;
        }
        if let Some(n) = number(&w)
            && n.fract() == 0.0
            && (1.0..1000.0).contains(&n)
        {
            // "the 2. Wisconsin", "21. Georgia": an ordinal.
            if next.is_some_and(|q| q.word == "." && q.gap.is_empty())
                && p.get(i + 2).is_some_and(|q| {
                    !q.gap.is_empty()
                        && !super::parser::is_verb_word(&q.lc())
                        && !matches!(q.lc().as_str(), "then" | "and")
                        && (q.word.chars().next().is_some_and(char::is_uppercase)
                            || STATES.contains(&q.lc().as_str()))
                        && !is_compass(&q.word)
                })
            {
                out.push(Piece::new(&x.gap, &ordinal(n as u32)));
                i += 2;
                continue;
            }
            // "21 NC", "26 Ga": an ordinal, not a distance.
            if next.is_some_and(|q| STATES.contains(&q.lc().as_str())) {
                out.push(Piece::new(&x.gap, &ordinal(n as u32)));
                i += 1;
                continue;
            }
        }
        if let Some(n) = number(&w)
            && next.is_some_and(|q| is_metre(&q.lc()))
        {
            let yards = (n * 1.0936).round();
            out.push(Piece::new(&x.gap, &format!("{yards}")));
            out.push(Piece::new(" ", "yards"));
            i += 2;
            continue;
        }
        out.push(x.clone());
        i += 1;
    }
    // A comma left hanging by a dropped word ("hold, at once sir!").
    let out: Vec<Piece> = out
        .iter()
        .enumerate()
        .filter(|(j, q)| {
            if q.word != "," {
                return true;
            }
            let next = out.iter().skip(j + 1).find(|n| !n.word.is_empty());
            let prev = j.checked_sub(1).and_then(|k| out.get(k));
            !(next
                .is_none_or(|n| n.gap.contains('\n') || matches!(n.word.as_str(), "." | "," | ";"))
                || prev.is_none_or(|v| matches!(v.word.as_str(), ":" | "," | "")))
        })
        .map(|(_, q)| q.clone())
        .collect();
    // Pass 2: a verb before a bare distance after the head ("7th Wis: 200
    // yds N" → "move 200 yds N"); "100 metres to north" → "... north".
    let mut moved: Vec<Piece> = Vec::new();
    let mut k = 0;
    while let Some(x) = out.get(k) {
        let is_dist = |j: usize| {
            out.get(j).and_then(|q| number(&q.lc())).is_some()
                && out
                    .get(j + 1)
                    .is_some_and(|q| distance_unit(&q.lc()).is_some())
        };
        if is_dist(k)
            && moved
                .last()
                .is_some_and(|q| matches!(q.word.as_str(), ":" | "-" | "–" | "—"))
        {
            moved.push(Piece::new(&x.gap, "move"));
            moved.push(Piece::new(" ", &x.word));
            k += 1;
            continue;
        }
        if x.lc() == "to"
            && moved
                .last()
                .is_some_and(|q| distance_unit(&q.lc()).is_some())
            && out.get(k + 1).is_some_and(|q| is_compass(&q.word))
        {
            k += 1;
            if let Some(n) = out.get(k) {
                moved.push(Piece::new(&x.gap, &n.word));
                k += 1;
            }
            continue;
        }
        moved.push(x.clone());
        k += 1;
    }
    // Pass 3: clock directions and bearings.
    let (done, needs_frame) = clock_and_bearing(&moved, frame)?;
    let text = join(&done).trim().to_string();
    if text.is_empty() {
        return None;
    }
    Some(Rewrite {
        text,
        left_out,
        needs_frame,
    })
}

/// "4 inches towards 2 o'clock", "100 yds bearing 200", "3 inches on a
/// bearing of 90": the distance and direction become the place they name,
/// measured from the unit (`frame`); "facing 1 o'clock" becomes degrees.
/// `None` when a clock direction or bearing is not one of these shapes.
fn clock_and_bearing(p: &[Piece], frame: Option<&Frame>) -> Option<(Vec<Piece>, bool)> {
    let mut out: Vec<Piece> = Vec::new();
    let mut needs = false;
    let mut k = 0;
    let mut moves_before = 0;
    while let Some(x) = p.get(k) {
        // A direction at k: (degrees, absolute, pieces used).
        let direction = |k: usize| -> Option<(f64, bool, usize)> {
            let mut j = k;
            for lead in [
                "on a bearing of",
                "on bearing",
                "bearing of",
                "bearing",
                "towards",
                "toward",
                "to",
                "at",
            ] {
                if let Some(n) = at_phrase(p, j, lead) {
                    j += n;
                    break;
                }
            }
            let n = number(&p.get(j)?.lc())?;
            let after = p.get(j + 1).map(Piece::lc).unwrap_or_default();
            if matches!(after.as_str(), "o'clock" | "oclock" | "o’clock") {
                if !(1.0..=12.0).contains(&n) || n.fract() != 0.0 {
                    return None;
                }
                return Some((n * 30.0, false, j + 2 - k));
            }
            let bearing_word = (k..j).any(|m| p.get(m).is_some_and(|q| q.lc() == "bearing"));
            if bearing_word || matches!(after.as_str(), "degrees" | "degree" | "deg" | "°") {
                if !(0.0..=360.0).contains(&n) {
                    return None;
                }
                let used = if matches!(after.as_str(), "degrees" | "degree" | "deg" | "°") {
                    2
                } else {
                    1
                };
                return Some((n, true, j + used - k));
            }
            None
        };
        let w = x.lc();
        let dist = number(&w).and_then(|n| {
            let unit = distance_unit(&p.get(k + 1)?.lc())?;
            Some((n, unit))
        });
        if let Some((n, unit)) = dist {
            if let Some((deg, absolute, used)) = direction(k + 2) {
                if moves_before > 0 || !from_where_it_stands(out.as_slice(), absolute) {
                    // Measured from where an earlier move ends, or from a
                    // facing an earlier step changes: not read loosely.
                    return None;
                }
                needs = true;
                match frame {
                    Some(f) => {
                        let inches = match unit {
                            None => n,
                            Some(y) if f.yards_per_inch > 0.0 => n * y / f.yards_per_inch,
                            Some(_) => return None,
                        };
                        let b = if absolute { deg } else { f.facing + deg };
                        let (dx, dy) = facing_vector(b);
                        let (x1, y1) = (f.at.x + dx * inches, f.at.y + dy * inches);
                        out.push(Piece::new(&x.gap, "to"));
                        out.push(Piece::new(" ", &format!("({x1:.1}, {y1:.1})")));
                    }
                    None => {
                        out.push(Piece::new(&x.gap, &x.word));
                        if let Some(u) = p.get(k + 1) {
                            out.push(u.clone());
                        }
                        out.push(Piece::new(" ", "north"));
                    }
                }
                k += 2 + used;
                moves_before += 1;
                continue;
            }
            moves_before += 1;
        }
        if matches!(w.as_str(), "facing" | "face")
            && let Some((deg, absolute, used)) = direction(k + 1)
        {
            if !from_where_it_stands(out.as_slice(), absolute) {
                return None;
            }
            needs = true;
            out.push(x.clone());
            let b = match frame {
                Some(f) if !absolute => f.facing + deg,
                Some(_) => deg,
                None => 0.0,
            };
            let b = b.rem_euclid(360.0).round();
            out.push(Piece::new(" ", &format!("{b}")));
            k += 1 + used;
            continue;
        }
        if matches!(w.as_str(), "o'clock" | "oclock" | "o’clock" | "bearing") {
            // A clock direction or bearing in a shape not read loosely.
            return None;
        }
        out.push(x.clone());
        k += 1;
    }
    Some((out, needs))
}

/// Whether a clock direction or bearing after the words `before` is
/// measured from where the unit stands now: no place or move before it,
/// and, for a clock direction, no step that turns the unit first.
fn from_where_it_stands(before: &[Piece], absolute: bool) -> bool {
    const PLACES: &[&str] = &[
        "to", "toward", "towards", "into", "across", "through", "past", "behind", "beyond", "via",
        "onto", "over", "then",
    ];
    const TURNS: &[&str] = &[
        "face", "facing", "faces", "wheel", "about", "turn", "left", "right", "change", "oblique",
    ];
    before.iter().all(|q| {
        let w = q.lc();
        !PLACES.contains(&w.as_str()) && (absolute || !TURNS.contains(&w.as_str()))
    })
}

/// What a loose reading needs from the mail reader: read a paragraph's
/// text strictly, giving its items only when it read without any error.
pub(super) type Reparse<'r> = dyn Fn(&str) -> Option<Vec<Item>> + 'r;

/// "move the 56th Pennsylvania 4 inches east" with the unit's name `n`
/// words long: "the 56th Pennsylvania: move 4 inches east".
fn verb_first(text: &str, n: usize) -> Option<String> {
    let p = pieces(text);
    let verb = p.first()?;
    if !super::parser::is_verb_word(&verb.lc()) {
        return None;
    }
    let head = p.get(1..1 + n)?;
    if head
        .iter()
        .any(|q| q.gap.contains('\n') || !q.word.chars().any(char::is_alphanumeric))
    {
        return None;
    }
    let rest = p.get(1 + n..)?;
    if rest.iter().all(|q| q.word == ".") {
        return None;
    }
    Some(format!(
        "{}: {}{}",
        join(head).trim(),
        verb.word,
        join(rest)
    ))
}

/// Whom an item is for: a unit or an officer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Who {
    Unit(UnitId),
    Officer(OfficerId),
}

fn head_of(item: &Item) -> Who {
    match item {
        Item::Unit { unit, .. } => Who::Unit(*unit),
        Item::Officer { order, .. } => Who::Officer(order.officer),
    }
}

/// Read the paragraph `text[ps..pe]` loosely, or `None` (the strict error
/// stands). The items carry the paragraph as written and its span; the
/// receipt's note says how it was read.
pub(super) fn read(
    text: &str,
    ps: usize,
    pe: usize,
    ctx: &ParseContext,
    reparse: &Reparse,
) -> Option<Vec<Item>> {
    let written = text.get(ps..pe)?.trim();
    if written.is_empty() || written.len() > 2000 {
        return None;
    }
    let first = rewrite_any(written, None)?;
    // The rewritten text as it is, or with a verb written before the unit
    // put after it ("move the 56th Pennsylvania 4 inches east"): the one
    // shape that reads, by how many words the unit's name takes.
    let shape = |t: &str, n: usize| -> Option<String> {
        if n == 0 {
            (t != written).then(|| t.to_string())
        } else {
            verb_first(t, n)
        }
    };
    let mut found: Option<(usize, Vec<Item>)> = None;
    for n in 0..=6 {
        let Some(t) = shape(&first.text, n) else {
            continue;
        };
        let Some(items) = reparse(&t) else {
            continue;
        };
        if found.is_some() {
            // Two shapes read: ambiguous.
            return None;
        }
        found = Some((n, items));
        if n == 0 {
            break;
        }
    }
    let (n, items) = found?;
    let head = items.first().map(head_of)?;
    if items.iter().any(|i| head_of(i) != head) {
        return None;
    }
    let (rewritten, items) = if first.needs_frame {
        let Some(Item::Unit { unit, .. }) = items.first() else {
            return None;
        };
        let u = ctx.state.unit(*unit)?;
        let frame = Frame {
            at: u.position,
            facing: u.facing,
            yards_per_inch: ctx.yards_per_inch,
        };
        let mut second = rewrite_any(written, Some(&frame))?;
        second.text = shape(&second.text, n)?;
        let items = reparse(&second.text)?;
        if items.iter().any(|i| head_of(i) != head) {
            return None;
        }
        (second, items)
    } else {
        let mut first = first;
        first.text = shape(&first.text, n)?;
        (first, items)
    };
    let span = Span { start: ps, end: pe };
    // Notes the grammar made reading the rewritten text, kept for the
    // paragraph as written.
    let made = ctx.notes_for(
        Span {
            start: 0,
            end: rewritten.text.len(),
        },
        rewritten.text.trim(),
    );
    let mut out = Vec::new();
    let mut readings = Vec::new();
    for mut item in items {
        match &mut item {
            Item::Unit { text, span: s, .. } | Item::Officer { text, span: s, .. } => {
                *text = written.to_string();
                *s = span;
            }
        }
        readings.push(normalise(&item, ctx));
        out.push(item);
    }
    let left = if rewritten.left_out.is_empty() {
        String::new()
    } else {
        format!(
            "; words left out: {}",
            rewritten
                .left_out
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let note = format!(
        "Read loosely — '{}' is taken as '{}'{left}. If that is not what you meant, send the order again.",
        written.split_whitespace().collect::<Vec<_>>().join(" "),
        readings.join("; ")
    );
    let mut notes = vec![ParseNote {
        at: ps,
        tail: written.to_string(),
        text: note,
    }];
    for m in made {
        notes.push(ParseNote {
            at: ps,
            tail: written.to_string(),
            text: m,
        });
    }
    ctx.add_notes(notes);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(s: &str) -> Option<String> {
        rewrite(s, None).map(|r| r.text)
    }

    #[test]
    fn a_newcomers_words_for_the_guns_and_for_walking() {
        assert_eq!(
            rw("Carpenter's Battery: set up the guns and fire at B").as_deref(),
            Some("Carpenter's Battery: unlimber and fire at B")
        );
        assert_eq!(
            rw("Battery B: pack up the guns and move 200 yards east").as_deref(),
            Some("Battery B: limber and move 200 yards east")
        );
        assert_eq!(
            rw("60th Georgia: walk 100 yards south").as_deref(),
            Some("60th Georgia: move 100 yards south")
        );
    }

    #[test]
    fn filler_is_left_out_and_named() {
        let r = rewrite("2nd Wis: advance 100 yds north asap", None).unwrap();
        assert_eq!(r.text, "2nd Wis: advance 100 yds north");
        assert_eq!(r.left_out, vec!["asap".to_string()]);
    }

    #[test]
    fn a_sign_off_line_is_left_out_with_what_follows() {
        let r = rewrite("2nd Wis: lie down\nthx, that's it for t3 - G", None).unwrap();
        assert_eq!(r.text, "2nd Wis: lie down");
        assert_eq!(r.left_out, vec!["thx, that's it for t3 - G".to_string()]);
    }

    #[test]
    fn a_verb_before_the_unit_goes_after_it() {
        assert_eq!(
            verb_first("move the 56th Pennsylvania 4 inches to the east.", 3).as_deref(),
            Some("the 56th Pennsylvania: move 4 inches to the east.")
        );
        assert_eq!(verb_first("the 56th Pennsylvania: hold", 2), None);
    }

    #[test]
    fn a_slip_of_the_keys_in_an_order_word() {
        assert_eq!(spelling("folow"), Some("follow"));
        assert_eq!(spelling("colum"), Some("column"));
        assert_eq!(spelling("inchs"), Some("inches"));
        assert_eq!(spelling("battel"), Some("battle"));
        assert_eq!(spelling("advnace"), Some("advance"));
        assert_eq!(spelling("follow"), None);
        assert_eq!(spelling("fold"), None);
        assert_eq!(spelling("orchard"), None);
        assert_eq!(spelling("limbers"), Some("limber"));
        assert_eq!(spelling("change"), None);
        assert_eq!(spelling("faces"), None);
    }

    #[test]
    fn an_enemy_letter_is_not_a_word() {
        assert_eq!(
            rw("Battery B: fire at U asap").as_deref(),
            Some("Battery B: fire at U")
        );
    }

    #[test]
    fn conditions_are_not_read_loosely() {
        assert_eq!(
            rw("26th Ga: should the enemy advance, fall back asap"),
            None
        );
        assert_eq!(rw("7th Wis: if they charge, retire 4 in pls"), None);
        assert_eq!(rw("2nd Va: hold until they close, then charge now"), None);
    }

    #[test]
    fn ordinals_metres_and_verbless_moves() {
        assert_eq!(
            rw("the 2. Wisconsin shall advance 4 inches").as_deref(),
            Some("the 2nd Wisconsin shall advance 4 inches")
        );
        assert_eq!(
            rw("Trimble ride to 21 NC").as_deref(),
            Some("Trimble ride to 21st NC")
        );
        assert_eq!(
            rw("56th Pennsylvania: 50 meter forward").as_deref(),
            Some("56th Pennsylvania: move 55 yards forward")
        );
        assert_eq!(
            rw("the 7. Wisconsin go 100 metres to north").as_deref(),
            Some("the 7th Wisconsin go 109 yards north")
        );
        assert_eq!(
            rw("4th Va: lie down n keep firing").as_deref(),
            Some("4th Va: lie down and fire")
        );
    }

    #[test]
    fn clock_directions_are_measured_from_the_unit() {
        let f = Frame {
            at: Pos::new(32.0, 24.0),
            facing: 0.0,
            yards_per_inch: 25.0,
        };
        let r = rewrite(
            "2nd Wisconsin: advance 4 inches towards 2 o'clock",
            Some(&f),
        )
        .unwrap();
        assert_eq!(r.text, "2nd Wisconsin: advance to (35.5, 26.0)");
        let r = rewrite("27th Va: move 100 yds bearing 90", Some(&f)).unwrap();
        assert_eq!(r.text, "27th Va: move to (36.0, 24.0)");
        assert!(rewrite("x: advance 4 inches towards 13 o'clock", Some(&f)).is_none());
        // After a move to a place, or a turn: not from where it stands.
        assert!(rewrite("x: advance to the orchard, 4 in bearing 90", Some(&f)).is_none());
        assert!(rewrite("x: face left and move 4 in to 2 o'clock", Some(&f)).is_none());
        assert!(rewrite("x: face left and move 4 in bearing 90", Some(&f)).is_some());
    }

    #[test]
    fn never_panics_on_odd_input() {
        for s in [
            "",
            ".",
            "1.",
            "2. .",
            "n",
            "n n n",
            "4 o'clock",
            "bearing",
            "999999999999999999999 m",
            "1e400 yds bearing 5",
            "0. A",
            "£ ∞ 2 o’clock",
            ": 3 in",
            "- 1 yds bearing 400",
        ] {
            let _ = rewrite(s, None);
            let f = Frame {
                at: Pos::new(0.0, 0.0),
                facing: 90.0,
                yards_per_inch: 0.0,
            };
            let _ = rewrite(s, Some(&f));
        }
    }
}
