//! Orders written as prose sentences and letters (issue #15): the
//! period dispatch ("You will turn your guns upon ...", "open upon the
//! enemy's battery", "march your regiment through the wood to ... and,
//! upon reaching the open ground, deploy into line"), a report to a
//! superior that carries the writer's own orders ("I am moving the 56th
//! Pennsylvania into Brawner's woods to cover his left"), and the third
//! person of a second-language writer ("The 27. Virginia must go back 100
//! yards ... and there again make the line", "Wooding Battery shall
//! change the target: not more the battery B, now the infantry A").
//!
//! Like [`super::loose`], this module only rewrites words into the
//! language's own and hands the result to the strict parser, so what it
//! reads is exactly the order the plain form gives; the receipt says what
//! the sentence was read as and which words were kept as colour (a
//! purpose, a reason, a description of a target the letter already
//! names). A rewrite the strict parser cannot read is no reading.
//! Conditions are never rewritten (an order is carried out at once,
//! APSoF I.C.1).

use super::context::{ParseContext, ParseNote};
use super::{Item, Span, normalise};

/// A sentence rewritten into the language: the text for the parser and
/// the words kept as colour (not orders), as written.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Prose {
    pub text: String,
    pub colour: Vec<String>,
}

/// Words that open a condition: never rewritten.
const CONDITIONS: &[&str] = &[
    "if", "should", "unless", "until", "till", "when", "whenever", "once", "lest",
];

/// Words that open a sentence and carry no order ("In the meantime the
/// 21st Georgia will ...", "-- You will ...").
const OPENERS: &[&[&str]] = &[
    &["--"],
    &["-"],
    &["please"],
    &["pls"],
    &["kindly"],
    &["in", "the", "meantime", ","],
    &["in", "the", "meantime"],
    &["meanwhile", ","],
    &["meanwhile"],
    &["at", "the", "same", "time", ","],
    &["at", "the", "same", "time"],
    &["accordingly", ","],
    &["accordingly"],
];

/// The modal verbs of a third-person order ("The 27. Virginia must go
/// back", "Battery B shall go on the left side of ...").
const MODALS: &[&str] = &["shall", "must", "should", "will"];

/// What a reporting officer says he is doing with a unit ("I am moving
/// the 56th Pennsylvania into ..."), as the language's verb.
const REPORTED: &[(&[&str], &str)] = &[
    (&["i", "am", "moving"], "move"),
    (&["i", "am", "marching"], "march"),
    (&["i", "am", "advancing"], "advance"),
    (&["i", "am", "sending"], "advance"),
    (&["i", "am", "pushing"], "advance"),
    (&["i", "am", "withdrawing"], "fall back"),
    (&["i", "shall", "move"], "move"),
    (&["i", "shall", "march"], "march"),
    (&["i", "shall", "advance"], "advance"),
    (&["i", "shall", "send"], "advance"),
    (&["i", "will", "move"], "move"),
    (&["i", "will", "send"], "advance"),
    (&["i", "have", "ordered"], ""),
    (&["i", "have", "directed"], ""),
];

/// A verb in the third person after its unit ("the 26. Georgia fires on
/// ..."), and the verb.
const THIRD: &[(&str, &str)] = &[
    ("fires", "fire"),
    ("moves", "move"),
    ("advances", "advance"),
    ("goes", "go"),
    ("marches", "march"),
    ("holds", "hold"),
    ("charges", "charge"),
    ("retires", "retire"),
    ("falls", "fall"),
    ("forms", "form"),
    ("makes", "make"),
    ("stays", "stay"),
    ("shoots", "shoot"),
    ("rides", "ride"),
];

/// Verbs after which "there" starts the next step ("and there again make
/// the line").
const NEXT_VERBS: &[&str] = &[
    "form", "make", "unlimber", "deploy", "halt", "wait", "await", "lie", "fire", "hold", "face",
];

/// Words a target is described by before its letter ("the infantry A",
/// "the enemy regiment E").
const DESCRIBED: &[&str] = &[
    "the",
    "enemy",
    "enemy's",
    "infantry",
    "regiment",
    "reb",
    "rebel",
    "yankee",
    "union",
    "confederate",
];

/// Words or marks split off a sentence.
fn tokens(s: &str) -> Vec<String> {
    let raw: Vec<&str> = s.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    for (k, w) in raw.iter().enumerate() {
        let mut lead: Vec<String> = Vec::new();
        let mut word = *w;
        while let Some(c) = word.chars().next() {
            if matches!(c, '(' | '"' | '\u{201c}') {
                lead.push(c.to_string());
                word = &word[c.len_utf8()..];
            } else {
                break;
            }
        }
        let mut trail: Vec<String> = Vec::new();
        while let Some(c) = word.chars().last() {
            if matches!(
                c,
                ',' | ';' | ':' | '.' | '!' | '?' | ')' | '"' | '\u{201d}'
            ) {
                // "27." before a capitalised word is an ordinal ("The 27.
                // Virginia"), not a full stop.
                let stem = &word[..word.len() - c.len_utf8()];
                let next_cap = raw
                    .get(k + 1)
                    .and_then(|n| n.chars().next())
                    .is_some_and(char::is_uppercase);
                if c == '.'
                    && trail.is_empty()
                    && next_cap
                    && !stem.is_empty()
                    && stem.chars().all(|d| d.is_ascii_digit())
                    && stem.len() <= 3
                {
                    let n: u32 = stem.parse().unwrap_or(0);
                    let suffix = match (n % 10, n % 100) {
                        (_, 11..=13) => "th",
                        (1, _) => "st",
                        (2, _) => "nd",
                        (3, _) => "rd",
                        _ => "th",
                    };
                    out.append(&mut lead);
                    out.push(format!("{stem}{suffix}"));
                    word = "";
                    break;
                }
                trail.push(c.to_string());
                word = stem;
            } else {
                break;
            }
        }
        out.extend(lead);
        if !word.is_empty() {
            out.push(word.to_lowercase());
        }
        out.extend(trail.into_iter().rev());
    }
    out
}

fn join(t: &[String]) -> String {
    let mut s = String::new();
    for (k, w) in t.iter().enumerate() {
        let attach = matches!(w.as_str(), "," | ";" | ":" | "." | "!" | "?" | ")")
            || t.get(k.wrapping_sub(1)).is_some_and(|p| p == "(");
        if k > 0 && !attach {
            s.push(' ');
        }
        s.push_str(w);
    }
    s
}

fn at(t: &[String], k: usize, words: &[&str]) -> bool {
    words
        .iter()
        .enumerate()
        .all(|(j, w)| t.get(k + j).is_some_and(|x| x == w))
}

fn one_of(t: &[String], k: usize, words: &[&str]) -> bool {
    t.get(k).is_some_and(|x| words.contains(&x.as_str()))
}

/// Replace every `from` (a word, or `*` for any one word) by `to`.
fn replace(t: &mut Vec<String>, from: &[&[&str]], to: &[&str]) -> bool {
    let mut changed = false;
    let mut k = 0;
    while k < t.len() {
        let fits = from.len() <= t.len() - k
            && from
                .iter()
                .enumerate()
                .all(|(j, alts)| alts.contains(&"*") || one_of(t, k + j, alts));
        if fits {
            t.splice(k..k + from.len(), to.iter().map(|s| s.to_string()));
            k += to.len().max(1);
            changed = true;
        } else {
            k += 1;
        }
    }
    changed
}

/// The end of the clause starting at `k`: the next mark (, ; . : !) or
/// the end.
fn clause_end(t: &[String], k: usize) -> usize {
    (k..t.len())
        .find(|&j| matches!(t[j].as_str(), "," | ";" | "." | "!" | ":"))
        .unwrap_or(t.len())
}

/// Take `t[a..b]` out as colour.
fn drop_colour(t: &mut Vec<String>, a: usize, b: usize, colour: &mut Vec<String>) {
    let b = b.min(t.len());
    if a >= b {
        return;
    }
    let words: Vec<String> = t.drain(a..b).collect();
    let phrase = join(&words)
        .trim_matches(|c: char| c == ',' || c.is_whitespace())
        .to_string();
    if !phrase.is_empty() {
        colour.push(phrase);
    }
}

fn is_letter(w: &str) -> bool {
    w.len() == 1 && w.chars().all(|c| c.is_ascii_lowercase())
}

/// Rewrite one sentence of a letter or of prose (`"<unit>: ..."`, a
/// third-person sentence, or a report in the first person) into the
/// language's words: the candidates from the least to the most changed,
/// each only when it differs from the sentence. None for a condition.
pub(super) fn rewrite(sentence: &str) -> Vec<Prose> {
    let mut t = tokens(sentence);
    let mut colour: Vec<String> = Vec::new();
    // The head before a colon ("Battery B, 4th US Artillery: ...") is
    // left alone; the body is rewritten.
    let body_at = t
        .iter()
        .take(12)
        .position(|w| w == ":")
        .filter(|&c| {
            !t[..c].iter().any(|w| {
                MODALS.contains(&w.as_str()) || matches!(w.as_str(), "change" | "target" | "switch")
            })
        })
        .map_or(0, |k| k + 1);
    let mut body: Vec<String> = t.split_off(body_at);
    let head = t;
    // Words that open the sentence and carry no order.
    'open: loop {
        for o in OPENERS {
            if at(&body, 0, o) {
                body.drain(..o.len());
                continue 'open;
            }
        }
        break;
    }
    if body
        .first()
        .is_some_and(|w| CONDITIONS.contains(&w.as_str()))
    {
        return Vec::new();
    }
    // "I am moving the 56th Pennsylvania into ...": the unit's order.
    let mut reported = false;
    if head.is_empty() {
        for (words, verb) in REPORTED {
            if at(&body, 0, words) {
                let rest: Vec<String> = body.split_off(words.len());
                // The units run to the first word that is no part of a
                // name: the verb goes after them ("the 56th Pennsylvania
                // into Brawner's woods" -> "56th Pennsylvania: move into").
                let stop = rest
                    .iter()
                    .position(|w| {
                        matches!(
                            w.as_str(),
                            "into"
                                | "to"
                                | "toward"
                                | "towards"
                                | "up"
                                | "forward"
                                | "back"
                                | "at"
                                | "by"
                                | "along"
                                | "across"
                                | "through"
                                | "north"
                                | "south"
                                | "east"
                                | "west"
                                | "in"
                                | ","
                        )
                    })
                    .unwrap_or(rest.len());
                let mut units: Vec<String> = rest.get(..stop).unwrap_or_default().to_vec();
                if units.first().is_some_and(|w| w == "the") {
                    units.remove(0);
                }
                if units.is_empty() {
                    return Vec::new();
                }
                let mut out = units;
                out.push(":".to_string());
                if !verb.is_empty() {
                    out.extend(verb.split(' ').map(str::to_string));
                }
                out.extend(rest.get(stop..).unwrap_or_default().iter().cloned());
                body = out;
                reported = true;
                break;
            }
        }
    }
    let _ = reported;
    // "The 7th Wisconsin it should make ...": the pronoun repeats the
    // subject.
    let mut k = 1;
    while k + 1 < body.len() {
        if body[k] == "it" && one_of(&body, k + 1, MODALS) && body[k - 1] != "," {
            body.remove(k);
        }
        k += 1;
    }
    // "Wooding Battery shall change the target: not more the battery B,
    // now the infantry A which comes on the lane": fire at the new target.
    if let Some(c) = (0..body.len()).find(|&k| {
        one_of(&body, k, &["change", "changes", "switch", "shift"])
            && (at(&body, k + 1, &["the", "target"])
                || at(&body, k + 1, &["target"])
                || at(&body, k + 1, &["the", "fire"])
                || at(&body, k + 1, &["fire"])
                || at(&body, k + 1, &["its", "fire"])
                || at(&body, k + 1, &["their", "fire"]))
    }) {
        let after = c + 2;
        let new = (after..body.len()).find(|&k| {
            one_of(&body, k, &["now", "instead", "onto"])
                || (one_of(&body, k, &["to"]) && k <= after + 2)
        });
        let letter = new.and_then(|n| {
            (n + 1..body.len()).find(|&j| {
                is_letter(&body[j]) && (body[j] != "a" || DESCRIBED.contains(&body[j - 1].as_str()))
            })
        });
        if let Some(l) = letter {
            let target = body[l].to_uppercase();
            let end = body.len();
            drop_colour(&mut body, l + 1, end, &mut colour);
            body.truncate(c);
            body.extend(
                ["fire", "at", "enemy", target.as_str()]
                    .iter()
                    .map(|s| s.to_string()),
            );
        }
    }
    // Subject and modal -> heading: "the 27th virginia must go back" ->
    // "27th virginia: go back".
    if head.is_empty()
        && !body.iter().any(|w| w == ":")
        && !one_of(
            &body,
            0,
            &["i", "you", "we", "it", "he", "they", "this", "there"],
        )
    {
        let modal = (1..body.len().min(9)).find(|&k| one_of(&body, k, MODALS));
        let third = (1..body.len().min(9)).find(|&k| THIRD.iter().any(|(w, _)| body[k] == *w));
        let clean = |m: usize| {
            !body[..m]
                .iter()
                .any(|w| matches!(w.as_str(), "," | "." | ";"))
        };
        if let Some(m) = modal.filter(|&m| clean(m)) {
            body[m] = ":".to_string();
        } else if let Some(m) = third.filter(|&m| {
            clean(m)
                && (body[0] == "the"
                    || body[0].starts_with(|c: char| c.is_ascii_digit())
                    || one_of(
                        &body,
                        0,
                        &[
                            "general", "gen", "colonel", "col", "captain", "capt", "major",
                        ],
                    ))
        }) {
            let plain = THIRD
                .iter()
                .find(|(w, _)| body[m] == *w)
                .map_or("", |(_, p)| p);
            body[m] = plain.to_string();
            body.insert(m, ":".to_string());
        }
        if body.iter().any(|w| w == ":") && body.first().is_some_and(|w| w == "the") {
            body.remove(0);
        }
    }
    // "The 56th Pennsylvania will form line, and the 76th New York will
    // follow it": "it" is the unit the sentence opened with.
    if let Some(colon) = body.iter().position(|w| w == ":") {
        let subject: Vec<String> = body[..colon].to_vec();
        let mut k = colon + 1;
        while k + 1 < body.len() {
            if one_of(&body, k, &["follow", "support", "join"])
                && body[k + 1] == "it"
                && body[colon + 1..k]
                    .iter()
                    .any(|w| MODALS.contains(&w.as_str()))
                && !subject.is_empty()
            {
                body.splice(k + 1..k + 2, subject.iter().cloned());
            }
            k += 1;
        }
    }
    let b = &mut body;
    // Verbs a letter or a second-language writer uses.
    replace(
        b,
        &[&["go", "goes", "going", "come", "comes"], &["back"]],
        &["fall", "back"],
    );
    let mut k = 0;
    while k + 1 < b.len() {
        if one_of(b, k, &["make", "makes"])
            && (one_of(b, k + 1, &["line", "column"])
                || (one_of(b, k + 1, &["the", "a"]) && one_of(b, k + 2, &["line", "column"])))
        {
            b[k] = "form".to_string();
        }
        k += 1;
    }
    let mut k = 0;
    while k < b.len() {
        if at(b, k, &["form"]) && at(b, k + 1, &["the"]) && one_of(b, k + 2, &["line", "column"]) {
            b.remove(k + 1);
        }
        k += 1;
    }
    // "because it has too much losses,": a reason, kept as colour.
    while let Some(k) = b.iter().position(|w| w == "because" || w == "since") {
        let end = clause_end(b, k + 1);
        let end = if b.get(end).is_some_and(|w| w == ",") {
            end + 1
        } else {
            end
        };
        let lead = if k > 0 && b[k - 1] == "," { k - 1 } else { k };
        drop_colour(b, lead, end, &mut colour);
        if lead > 0 && b.get(lead).is_some_and(|w| w == "and") && b[lead - 1] == "," {
            b.remove(lead);
        }
    }
    replace(
        b,
        &[&[","], &["and"], &["there"], &["again"]],
        &[",", "then"],
    );
    replace(b, &[&["and"], &["there"], &["again"]], &[",", "then"]);
    replace(b, &[&["there"], &["again"]], &["then"]);
    let mut k = 0;
    while k + 2 < b.len() {
        if one_of(b, k, &["and", ","]) && b[k + 1] == "there" && one_of(b, k + 2, NEXT_VERBS) {
            b.splice(k..k + 2, [",".to_string(), "then".to_string()]);
        }
        k += 1;
    }
    // Fire: "turn your guns upon", "open upon", "shoot on".
    replace(
        b,
        &[
            &["turn"],
            &["your", "its", "their", "the"],
            &["guns"],
            &["upon", "on", "onto", "against", "to"],
        ],
        &["fire", "at"],
    );
    replace(
        b,
        &[&["turn"], &["upon", "onto", "against"]],
        &["fire", "at"],
    );
    replace(
        b,
        &[
            &["turn", "direct", "shift", "switch"],
            &["your", "its", "their", "the"],
            &["fire"],
            &["upon", "on", "onto", "against", "to", "at"],
        ],
        &["fire", "at"],
    );
    replace(
        b,
        &[
            &["turn", "direct"],
            &["fire"],
            &["upon", "on", "onto", "against", "to", "at"],
        ],
        &["fire", "at"],
    );
    replace(b, &[&["open"], &["fire"], &["upon", "on"]], &["fire", "at"]);
    replace(b, &[&["open"], &["upon", "on"]], &["fire", "at"]);
    replace(
        b,
        &[&["shoot", "shoots", "fires"], &["on", "at", "upon"]],
        &["fire", "at"],
    );
    replace(b, &[&["shoot", "shoots"]], &["fire", "at"]);
    replace(
        b,
        &[&["attack", "attacks"], &["with"], &["the"], &["bayonet"]],
        &["charge"],
    );
    // "and keep them upon it": the fire goes on, as fire does.
    for phrase in [
        &[",", "and", "keep", "them", "upon", "it"][..],
        &["and", "keep", "them", "upon", "it"][..],
        &["and", "keep", "them", "on", "it"][..],
        &["and", "keep", "it", "up"][..],
    ] {
        if let Some(k) = (0..b.len()).find(|&k| at(b, k, phrase)) {
            drop_colour(b, k, k + phrase.len(), &mut colour);
        }
    }
    // "with the bayonet", "in the double time" on a charge: colour.
    let charge = b.iter().any(|w| w == "charge");
    for phrase in [
        &[",", "with", "the", "bayonet"][..],
        &["with", "the", "bayonet"][..],
        &[",", "in", "the", "double", "time"][..],
        &["in", "the", "double", "time"][..],
        &["in", "double", "time"][..],
    ] {
        if let Some(k) = (0..b.len()).find(|&k| at(b, k, phrase)) {
            if phrase.contains(&"bayonet") || charge {
                drop_colour(b, k, k + phrase.len(), &mut colour);
            } else {
                b.splice(
                    k..k + phrase.len(),
                    ["at", "the", "double", "quick"].map(str::to_string),
                );
            }
        }
    }
    // "advance your regiment with the 27th Virginia and charge": the
    // charge is the advance; the other regiment is its own.
    if let Some(a) =
        (0..b.len()).find(|&k| one_of(b, k, &["advance", "move", "go"]) && at(b, k + 1, &["with"]))
        && let Some(c) = (a..b.len().min(a + 10)).find(|&k| at(b, k, &["and", "charge"]))
    {
        drop_colour(b, a, c, &mut colour);
        b.remove(a);
    }
    // "the infantry A", "the enemy regiment E" after a fire or charge:
    // the letter.
    let mut k = 0;
    while k < b.len() {
        if one_of(b, k, &["at", "on", "upon", "charge", "against"]) {
            let mut j = k + 1;
            while j < b.len() && DESCRIBED.contains(&b[j].as_str()) {
                j += 1;
            }
            if j > k + 1 && j < b.len() && is_letter(&b[j]) && b[j] != "a"
                || (j > k + 2 && j < b.len() && b[j] == "a")
            {
                let letter = b[j].to_uppercase();
                b.splice(k + 1..=j, ["enemy".to_string(), letter]);
                // "A which lies behind the fence", ", this one near the
                // road": a description of a target named by letter.
                let d = k + 3;
                if one_of(b, d, &["which", "who", "that"])
                    || (at(b, d, &[","])
                        && one_of(b, d + 1, &["this", "that", "the"])
                        && at(b, d + 2, &["one"]))
                {
                    let end = if b[d] == "," {
                        clause_end(b, d + 1)
                    } else {
                        clause_end(b, d)
                    };
                    drop_colour(b, d, end, &mut colour);
                }
            }
        }
        k += 1;
    }
    // "the enemy regiment at the edge of the wood (E)": the letter given
    // in brackets names the target.
    while let Some(p) = (0..b.len()).find(|&k| {
        b[k] == "("
            && b.get(k + 1).is_some_and(|w| is_letter(w))
            && b.get(k + 2).is_some_and(|w| w == ")")
    }) {
        let letter = b[p + 1].to_uppercase();
        let Some(verb) = (0..p)
            .rev()
            .find(|&k| one_of(b, k, &["fire", "charge", "engage", "target"]))
        else {
            break;
        };
        let start = if one_of(b, verb + 1, &["at", "on", "upon", "against"]) {
            verb + 1
        } else {
            verb
        };
        let described: Vec<String> = b.drain(start + 1..p + 3).collect();
        let phrase = join(
            described
                .get(..described.len().saturating_sub(3))
                .unwrap_or_default(),
        );
        if !phrase.is_empty() {
            colour.push(phrase);
        }
        b.splice(start + 1..start + 1, ["enemy".to_string(), letter]);
    }
    // "the 5th Virginia regiment": the name.
    let mut k = 0;
    while k + 2 < b.len() {
        if b[k].chars().next().is_some_and(|c| c.is_ascii_digit())
            && b[k].chars().last().is_some_and(|c| c.is_ascii_alphabetic())
            && b[k + 2] == "regiment"
            && b.get(k + 3)
                .is_none_or(|w| !w.chars().all(char::is_alphanumeric) || w == "and")
        {
            b.remove(k + 2);
        }
        k += 1;
    }
    // Places: "the left side of", "the farm house of Brawner".
    replace(
        b,
        &[
            &["go", "move"],
            &["on", "to"],
            &["the"],
            &["left"],
            &["side"],
            &["of"],
        ],
        &["move", "to", "the", "left", "of"],
    );
    replace(
        b,
        &[
            &["go", "move"],
            &["on", "to"],
            &["the"],
            &["right"],
            &["side"],
            &["of"],
        ],
        &["move", "to", "the", "right", "of"],
    );
    replace(
        b,
        &[&["on"], &["the"], &["left"], &["side"], &["of"]],
        &["on", "the", "left", "of"],
    );
    replace(
        b,
        &[&["on"], &["the"], &["right"], &["side"], &["of"]],
        &["on", "the", "right", "of"],
    );
    let mut k = 0;
    while k + 3 < b.len() {
        let (span, kind) = if at(b, k, &["the", "farm", "house", "of"]) {
            (4, "farm")
        } else if at(b, k, &["the", "farmhouse", "of"]) || at(b, k, &["the", "farm", "of"]) {
            (3, "farm")
        } else if at(b, k, &["the", "house", "of"]) {
            (3, "house")
        } else {
            k += 1;
            continue;
        };
        if let Some(name) = b.get(k + span).cloned()
            && name.chars().all(char::is_alphabetic)
        {
            b.splice(k..=k + span, ["the".to_string(), name, kind.to_string()]);
        }
        k += 1;
    }
    // "move 50 yards on the right side": a move to that side (APSoF
    // IV.C.3 has units move to their front: an oblique, as 'shift').
    let mut k = 0;
    while k + 4 < b.len() {
        if one_of(b, k, &["move", "go", "march"])
            && b[k + 1].chars().all(|c| c.is_ascii_digit())
            && one_of(b, k + 2, &["yards", "yds", "yd", "paces", "inches", "in"])
        {
            let side = if at(b, k + 3, &["on", "the", "right", "side"])
                || at(b, k + 3, &["to", "the", "right", "side"])
            {
                Some(("right", 4))
            } else if at(b, k + 3, &["on", "the", "left", "side"])
                || at(b, k + 3, &["to", "the", "left", "side"])
            {
                Some(("left", 4))
            } else {
                None
            };
            if let Some((s, n)) = side {
                let (d, u) = (b[k + 1].clone(), b[k + 2].clone());
                b.splice(
                    k..k + 3 + n,
                    [
                        "shift".to_string(),
                        d,
                        u,
                        "to".into(),
                        "the".into(),
                        s.to_string(),
                    ],
                );
            }
        }
        k += 1;
    }
    // ", but it stays behind the fence": colour after a complete step
    // (", but fire at will" is an order, and stays one).
    if let Some(k) = (1..b.len()).find(|&k| {
        b[k] == "but"
            && b[k - 1] == ","
            && b.get(k + 1)
                .is_some_and(|w| !super::parser::is_verb_word(w))
    }) {
        let end = clause_end(b, k + 1);
        drop_colour(b, k - 1, end, &mut colour);
    }
    // "go along the road 200 yards to the east": the distance and the
    // way (the road runs that way; the receipt gives the place reached).
    let mut k = 0;
    while k + 3 < b.len() {
        if at(b, k, &["along", "the"])
            && one_of(b, k + 2, &["road", "turnpike", "pike", "lane"])
            && b.get(k + 3)
                .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
        {
            drop_colour(b, k, k + 3, &mut colour);
        }
        k += 1;
    }
    replace(b, &[&["goes"], &["with"]], &["rides", "with"]);
    replace(b, &[&["go"], &["with"]], &["ride", "with"]);
    let mut k = 0;
    while k + 1 < b.len() {
        if one_of(b, k, &["go", "goes"])
            && (b[k + 1].starts_with(|c: char| c.is_ascii_digit())
                || one_of(
                    b,
                    k + 1,
                    &[
                        "to", "into", "in", "inside", "forward", "toward", "towards", "on",
                        "north", "south", "east", "west",
                    ],
                ))
        {
            b[k] = "move".to_string();
        }
        k += 1;
    }
    let compass = [
        "north",
        "south",
        "east",
        "west",
        "north-east",
        "north-west",
        "south-east",
        "south-west",
        "northeast",
        "northwest",
        "southeast",
        "southwest",
    ];
    let mut k = 0;
    while k + 2 < b.len() {
        if at(b, k, &["to", "the"])
            && one_of(b, k + 2, &compass)
            && k > 0
            && one_of(
                b,
                k - 1,
                &[
                    "yards", "yds", "yd", "paces", "inches", "in", "metres", "meters",
                ],
            )
        {
            b.drain(k..k + 2);
        }
        k += 1;
    }
    // "march your regiment through the wood to the Douglass house": the
    // place; the way there is the unit's own (APSoF IV).
    let mut k = 0;
    while k + 3 < b.len() {
        if at(b, k, &["through", "the"])
            && one_of(
                b,
                k + 2,
                &["wood", "woods", "field", "fields", "orchard", "corn"],
            )
            && at(b, k + 3, &["to"])
        {
            drop_colour(b, k, k + 3, &mut colour);
        }
        k += 1;
    }
    // "and, upon reaching the open ground, deploy": then.
    let mut k = 0;
    while k + 1 < b.len() {
        if one_of(b, k, &["upon", "on"]) && one_of(b, k + 1, &["reaching", "arriving", "gaining"]) {
            let end = clause_end(b, k + 2);
            if b.get(end).is_some_and(|w| w == ",") {
                let mut start = k;
                while start > 0 && one_of(b, start - 1, &["and", ","]) {
                    start -= 1;
                }
                let what: Vec<String> = b.get(k..end).unwrap_or_default().to_vec();
                b.splice(start..=end, [",".to_string(), "then".to_string()]);
                colour.push(join(&what));
            }
        }
        k += 1;
    }
    // "Keep skirmishers well out upon your left": skirmishers thrown out
    // (how many castings, the rules do not say: the parser asks).
    if let Some(k) = (0..b.len()).find(|&k| {
        one_of(b, k, &["keep", "push", "send"])
            && b.get(k + 1).is_some_and(|w| w == "skirmishers")
            && (one_of(b, k + 2, &["out", "forward"])
                || (one_of(b, k + 2, &["well"]) && one_of(b, k + 3, &["out", "forward"])))
    }) {
        let end = clause_end(b, k);
        let tail: Vec<String> = b.get(k + 2..end).unwrap_or_default().to_vec();
        b.splice(k..end, ["throw", "out", "skirmishers"].map(str::to_string));
        colour.push(join(&tail));
    }
    // "go in the Douglass house", "make limber", "shoot now on".
    replace(b, &[&["move"], &["in", "inside"]], &["move", "into"]);
    replace(b, &[&["make", "makes"], &["limber"]], &["limber"]);
    replace(b, &[&["make", "makes"], &["unlimber"]], &["unlimber"]);
    replace(
        b,
        &[&["fire"], &["now"], &["at", "on", "upon"]],
        &["fire", "at"],
    );
    replace(
        b,
        &[&["fire"], &["at"], &["now"], &["on", "upon", "at"]],
        &["fire", "at"],
    );
    replace(
        b,
        &[
            &["ride", "rides", "go", "goes"],
            &["forward", "over", "along"],
            &["with"],
        ],
        &["ride", "with"],
    );
    // ", not more on the battery", ", no longer at B": the old target.
    if let Some(k) = (1..b.len()).find(|&k| {
        b[k - 1] == ","
            && (at(b, k, &["not", "more"])
                || at(b, k, &["no", "more"])
                || at(b, k, &["no", "longer"])
                || at(b, k, &["not", "longer"]))
    }) {
        let end = clause_end(b, k);
        drop_colour(b, k - 1, end, &mut colour);
    }
    // "and stays by it", "and remain with it": an officer riding with a
    // unit stays with it (the reading says so).
    for verb in ["stay", "stays", "remain", "remains"] {
        for prep in ["with", "by", "beside"] {
            for obj in ["it", "them"] {
                let phrase = ["and", verb, prep, obj];
                if let Some(k) = (0..b.len()).find(|&k| at(b, k, &phrase)) {
                    drop_colour(b, k, k + 4, &mut colour);
                }
            }
        }
    }
    // "hold it" after a move: hold there.
    let mut k = 0;
    while k + 1 < b.len() {
        if b[k] == "hold"
            && b[k + 1] == "it"
            && b.get(k + 2)
                .is_none_or(|w| !w.chars().all(char::is_alphanumeric))
        {
            b.remove(k + 1);
        }
        k += 1;
    }
    // "at a distance of 100 yards" after follow: the station is the one
    // it has (the reading says which).
    if b.iter().any(|w| w == "follow")
        && let Some(k) = (0..b.len()).find(|&k| at(b, k, &["at", "a", "distance", "of"]))
    {
        let end = clause_end(b, k);
        drop_colour(b, k, end, &mut colour);
    }
    // ", keeping your line well dressed", ", keeping touch with ...": how
    // the men go, colour.
    if let Some(k) = (1..b.len()).find(|&k| {
        b[k - 1] == ","
            && one_of(b, k, &["keeping", "keep"])
            && (one_of(b, k + 1, &["touch", "well"])
                || (one_of(b, k + 1, &["your", "its", "their", "the"])
                    && one_of(
                        b,
                        k + 2,
                        &["line", "lines", "ranks", "men", "formation", "alignment"],
                    )))
    }) {
        let end = clause_end(b, k);
        drop_colour(b, k - 1, end, &mut colour);
    }
    // "go 100 yards to north": the compass word.
    let mut k = 0;
    while k + 1 < b.len() {
        if b[k] == "to"
            && one_of(b, k + 1, &compass)
            && k > 0
            && one_of(
                b,
                k - 1,
                &[
                    "yards", "yds", "yd", "paces", "inches", "in", "metres", "meters",
                ],
            )
        {
            b.remove(k);
        }
        k += 1;
    }
    // "unlimber again": the word carries nothing.
    let mut k = 1;
    while k < b.len() {
        if b[k] == "again" && one_of(b, k - 1, &["unlimber", "limber", "advance", "fire", "then"]) {
            b.remove(k);
        } else {
            k += 1;
        }
    }
    // Marks left doubled by what was taken out.
    let mut k = 1;
    while k < b.len() {
        if b[k] == "," && one_of(b, k - 1, &[",", ";", ":"]) {
            b.remove(k);
        } else if matches!(b[k].as_str(), "." | ";") && b[k - 1] == "," {
            b.remove(k - 1);
        } else {
            k += 1;
        }
    }
    // "in its present position", "in your present position": where it
    // stands.
    for phrase in [
        &["in", "its", "present", "position"][..],
        &["in", "your", "present", "position"][..],
        &["in", "their", "present", "position"][..],
        &["where", "it", "stands"][..],
    ] {
        if let Some(k) = (0..b.len()).find(|&k| at(b, k, phrase)) {
            drop_colour(b, k, k + phrase.len(), &mut colour);
        }
    }
    let mut out = head;
    out.extend(body.iter().cloned());
    let text = join(&out);
    let mut cands = Vec::new();
    let first = Prose {
        text: text.clone(),
        colour: colour.clone(),
    };
    cands.push(first);
    // The most changed: a purpose after the order ("to cover his left",
    // "so as to front north") kept as colour.
    if let Some(k) = (1..body.len()).find(|&k| {
        (body[k] == "to"
            && one_of(
                &body,
                k + 1,
                &[
                    "cover",
                    "support",
                    "protect",
                    "guard",
                    "relieve",
                    "assist",
                    "secure",
                    "check",
                    "meet",
                    "confer",
                    "reinforce",
                    "prolong",
                    "strengthen",
                ],
            ))
            || at(&body, k, &["so", "as", "to"])
            || at(&body, k, &["in", "order", "to"])
    }) {
        let mut b2 = body.clone();
        let mut c2 = colour.clone();
        let end = clause_end(&b2, k);
        drop_colour(&mut b2, k, end, &mut c2);
        let mut out = out
            .get(..out.len() - body.len())
            .unwrap_or_default()
            .to_vec();
        out.extend(b2);
        cands.push(Prose {
            text: join(&out),
            colour: c2,
        });
    }
    // "Wooding Battery: ...": the battery by its captain's name alone.
    let extra: Vec<Prose> = cands
        .iter()
        .filter_map(|c| {
            let (h, rest) = c.text.split_once(':')?;
            let h2 = h.strip_suffix(" battery")?;
            (!h2.trim().is_empty() && !h2.contains(' ')).then(|| Prose {
                text: format!("{h2}:{rest}"),
                colour: c.colour.clone(),
            })
        })
        .collect();
    cands.extend(extra);
    let original = join(&tokens(sentence));
    cands.retain(|c| c.text != original && !c.text.trim().is_empty());
    cands
}

/// Read `text[ps..pe]`, a paragraph the grammar and the loose reader
/// refused, as prose: each rewrite is read strictly (or loosely), and the
/// first that reads, all for one unit or officer, is the order. The
/// receipt says what the sentence was read as and what was kept as
/// colour.
pub(super) fn read(
    text: &str,
    ps: usize,
    pe: usize,
    ctx: &ParseContext,
    reparse: &dyn Fn(&str) -> Option<Vec<Item>>,
) -> Option<Vec<Item>> {
    let written = text.get(ps..pe)?.trim();
    if written.is_empty() || written.len() > 1000 {
        return None;
    }
    let (items, prose) = read_sentence(written, ctx, reparse)?;
    let span = Span { start: ps, end: pe };
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
    ctx.add_notes(
        receipt(written, &prose, &readings)
            .into_iter()
            .map(|text| ParseNote {
                at: ps,
                tail: written.to_string(),
                text,
            })
            .collect(),
    );
    Some(out)
}

/// The first rewrite of `sentence` that reads (strictly, else loosely),
/// all for one unit or officer, with the notes the grammar made for it
/// re-homed by the caller.
pub(super) fn read_sentence(
    sentence: &str,
    ctx: &ParseContext,
    reparse: &dyn Fn(&str) -> Option<Vec<Item>>,
) -> Option<(Vec<Item>, Prose)> {
    for prose in rewrite(sentence) {
        let t = prose.text.as_str();
        let items = reparse(t).or_else(|| super::loose::read(t, 0, t.len(), ctx, reparse));
        let Some(items) = items else { continue };
        let head = |i: &Item| match i {
            Item::Unit { unit, .. } => (Some(*unit), None),
            Item::Officer { order, .. } => (None, Some(order.officer)),
        };
        let first = items.first().map(head)?;
        if items.iter().any(|i| head(i) != first) {
            continue;
        }
        // The grammar's notes on the rewritten text ("'the wood' could be
        // ...; took the nearer") belong to the sentence as written.
        let made = ctx.notes_for(
            Span {
                start: 0,
                end: t.len(),
            },
            t.trim(),
        );
        let mut prose = prose;
        prose
            .colour
            .extend(made.into_iter().map(|m| format!("\u{0}{m}")));
        return Some((items, prose));
    }
    None
}

/// The receipt's lines for a sentence read as prose: what it was read as,
/// what was kept as colour, and the grammar's own notes.
pub(super) fn receipt(written: &str, prose: &Prose, readings: &[String]) -> Vec<String> {
    let mut notes = Vec::new();
    let colour: Vec<String> = prose
        .colour
        .iter()
        .filter(|c| !c.starts_with('\u{0}'))
        .map(|c| format!("'{c}'"))
        .collect();
    let kept = if colour.is_empty() {
        String::new()
    } else {
        format!("; kept as colour, not orders: {}", colour.join(", "))
    };
    notes.push(format!(
        "Read as prose — '{}' is taken as '{}'{kept}. If that is not what you meant, send the order again.",
        written.split_whitespace().collect::<Vec<_>>().join(" "),
        readings.join("; ")
    ));
    for c in &prose.colour {
        if let Some(m) = c.strip_prefix('\u{0}') {
            notes.push(m.to_string());
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(s: &str) -> Vec<String> {
        rewrite(s).into_iter().map(|p| p.text).collect()
    }

    #[test]
    fn second_language_third_person() {
        assert_eq!(
            rw(
                "The 27. Virginia must go back 100 yards, because it has too much losses, and there again make the line."
            )[0],
            "27th virginia: fall back 100 yards, then form line."
        );
        assert_eq!(
            rw(
                "The 7. Wisconsin it should make the column and go along the road 200 yards to the east."
            )[0],
            "7th wisconsin: form column and move 200 yards east."
        );
        assert_eq!(
            rw(
                "Wooding Battery shall change the target: not more the battery B, now the infantry A which comes on the lane."
            )[0],
            "wooding battery: fire at enemy A"
        );
        assert_eq!(
            rw("The 19. Indiana must attack with the bayonet the enemy A, in the double time.")[0],
            "19th indiana: charge enemy A."
        );
        assert_eq!(
            rw(
                "Battery B shall go on the left side of the farm house of Brawner, unlimber, and shoot the infantry A which lies behind the fence."
            )[0],
            "battery b: move to the left of the brawner farm, unlimber, and fire at enemy A."
        );
        assert_eq!(
            rw("Please the 26. Georgia fires on the enemy regiment E, this one near the road.")[0],
            "26th georgia: fire on enemy E."
        );
    }

    #[test]
    fn letters_and_reports() {
        assert_eq!(
            rw("6th Wisconsin: turn upon the 5th Virginia regiment and keep them upon it.")[0],
            "6th wisconsin: fire at the 5th virginia."
        );
        assert_eq!(
            rw("I am moving the 56th Pennsylvania into Brawner's woods to cover his left.")[1],
            "56th pennsylvania: move into brawner's woods."
        );
        assert_eq!(
            rw(
                "15th Alabama: march through the wood to the Douglass house and, upon reaching the open ground, deploy into line facing south-west."
            )[0],
            "15th alabama: march to the douglass house, then deploy into line facing south-west."
        );
        assert_eq!(
            rw(
                "7th Wisconsin: bring up in line on the right of the 2nd Wisconsin, and open fire upon the enemy regiment at the edge of the wood (E)."
            )[0],
            "7th wisconsin: bring up in line on the right of the 2nd wisconsin, and fire at enemy E."
        );
        assert_eq!(
            rw(
                "33rd Virginia: -- advance with the 27th Virginia and charge the enemy in your front with the bayonet."
            )[0],
            "33rd virginia: charge the enemy in your front."
        );
        assert!(rw("If the enemy comes, fall back.").is_empty());
        assert_eq!(
            rw("15th Alabama: Keep skirmishers well out upon your left.")[0],
            "15th alabama: throw out skirmishers."
        );
        // An order after "but" is no colour.
        assert!(
            rw("2nd Wisconsin: hold your ground, but fire at will.")
                .iter()
                .all(|t| t.contains("but fire at will"))
        );
    }
}
