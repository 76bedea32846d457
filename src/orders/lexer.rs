//! Tokens of a written order, each with the byte span it came from so that
//! errors can point at the exact line and column of the player's mail.
//!
//! The lexer never fails: anything it does not recognise becomes a
//! [`Tok::Punct`] token for the parser to complain about with a position.

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A word, lowercased, apostrophes kept ("miller's", "2nd").
    Word(String),
    /// A plain number ("34", "12.5").
    Number(f64),
    /// Any other single character: `;` `,` `.` `:` `(` `)` `"` ...
    Punct(char),
}

/// A token and the bytes of the mail text it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

impl Token {
    /// The word, if this token is one.
    pub fn word(&self) -> Option<&str> {
        match &self.tok {
            Tok::Word(w) => Some(w),
            _ => None,
        }
    }

    pub fn is_word(&self, w: &str) -> bool {
        self.word() == Some(w)
    }

    pub fn is_punct(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// Split `text[from..to]` into tokens whose spans are offsets into `text`.
/// Hyphens and whitespace separate words ("north-west" is two words);
/// apostrophes inside a word stay part of it ("Brawner's").
pub fn lex(text: &str, from: usize, to: usize) -> Vec<Token> {
    let mut out = Vec::new();
    let Some(slice) = text.get(from..to) else {
        return out;
    };
    let chars: Vec<(usize, char)> = slice.char_indices().collect();
    let mut i = 0;
    let byte_at = |k: usize| chars.get(k).map(|&(b, _)| b).unwrap_or(slice.len());
    while let Some(&(b, c)) = chars.get(i) {
        if c.is_whitespace() || c == '-' || c == '\u{2013}' || c == '\u{2014}' || c == '_' {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            // A number, or an ordinal / word starting with digits ("2nd").
            let mut j = i;
            let mut seen_dot = false;
            while let Some(&(_, d)) = chars.get(j) {
                let next_is_digit = chars.get(j + 1).is_some_and(|&(_, n)| n.is_ascii_digit());
                if d.is_ascii_digit() || (d == '.' && !seen_dot && next_is_digit) {
                    seen_dot |= d == '.';
                    j += 1;
                } else {
                    break;
                }
            }
            let letters_follow = chars
                .get(j)
                .is_some_and(|&(_, d)| d.is_alphabetic() && !seen_dot);
            if letters_follow {
                // "2nd", "3d", "1st": one word. "300yds" splits below because
                // the suffix is not an ordinal ending.
                let mut k = j;
                while chars.get(k).is_some_and(|&(_, d)| d.is_alphabetic()) {
                    k += 1;
                }
                let suffix: String = chars
                    .get(j..k)
                    .unwrap_or_default()
                    .iter()
                    .map(|&(_, d)| d.to_ascii_lowercase())
                    .collect();
                if matches!(suffix.as_str(), "st" | "nd" | "rd" | "th" | "d") {
                    let word = slice.get(b..byte_at(k)).unwrap_or_default().to_lowercase();
                    out.push(Token {
                        tok: Tok::Word(word),
                        start: from + b,
                        end: from + byte_at(k),
                    });
                    i = k;
                    continue;
                }
            }
            let s = slice.get(b..byte_at(j)).unwrap_or_default();
            let tok = s.parse::<f64>().map(Tok::Number).unwrap_or(Tok::Punct('?'));
            out.push(Token {
                tok,
                start: from + b,
                end: from + byte_at(j),
            });
            i = j;
            continue;
        }
        if c.is_alphabetic() {
            let mut j = i;
            while let Some(&(_, d)) = chars.get(j) {
                let apostrophe_inside =
                    is_apostrophe(d) && chars.get(j + 1).is_some_and(|&(_, n)| n.is_alphabetic());
                if d.is_alphanumeric() || apostrophe_inside {
                    j += 1;
                } else {
                    break;
                }
            }
            // "w/d" (withdraw) and the like: one letter, a slash, one
            // letter, read as one word.
            if j == i + 1
                && chars.get(j).is_some_and(|&(_, d)| d == '/')
                && chars.get(j + 1).is_some_and(|&(_, d)| d.is_alphabetic())
                && !chars.get(j + 2).is_some_and(|&(_, d)| d.is_alphanumeric())
            {
                j += 2;
            }
            let word = slice
                .get(b..byte_at(j))
                .unwrap_or_default()
                .to_lowercase()
                .replace('\u{2019}', "'");
            // The commonest slip of the keyboard: "teh", "hte" for "the".
            let word = match shorthand(&word) {
                Some(w) => w.to_string(),
                None => word,
            };
            // "the Brawner farmhouse": after a proper name, its farm.
            let word = if word == "farmhouse"
                && out.last().is_some_and(|p: &Token| {
                    p.word().is_some()
                        && text
                            .get(p.start..p.end)
                            .and_then(|w| w.chars().next())
                            .is_some_and(char::is_uppercase)
                }) {
                "farm".to_string()
            } else {
                word
            };
            // "stays w/ it": "w/" before a space is "with".
            let (word, j) = if word == "w"
                && chars.get(j).is_some_and(|&(_, d)| d == '/')
                && !chars.get(j + 1).is_some_and(|&(_, d)| d.is_alphanumeric())
            {
                ("with".to_string(), j + 1)
            } else {
                (word, j)
            };
            out.push(Token {
                tok: Tok::Word(word),
                start: from + b,
                end: from + byte_at(j),
            });
            i = j;
            continue;
        }
        let c = match c {
            '\u{201C}' | '\u{201D}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            other => other,
        };
        out.push(Token {
            tok: Tok::Punct(c),
            start: from + b,
            end: from + byte_at(i + 1),
        });
        i += 1;
    }
    number_words(phone_words(out, text))
}

/// Phone shorthand that needs its neighbours to be read (#15, round 12):
/// a lower-case "n" between two words is "and" ("halt n fire", "26th ga n
/// 60th ga"), unless it is the compass point (after a distance or "face",
/// "facing", "to", "due", "towards", before a number or a full stop);
/// "thro" is "throw" before "out" or "forward" ("thro out skirmishers")
/// and "through" elsewhere, as "thru" is. The receipt reads the order
/// back in full words, so the reading is plain.
fn phone_words(mut toks: Vec<Token>, text: &str) -> Vec<Token> {
    const NOT_BEFORE_AND: &[&str] = &[
        "yards", "yard", "yds", "yd", "paces", "pace", "steps", "rods", "inches", "inch", "in",
        "ins", "feet", "ft", "face", "facing", "faces", "to", "due", "toward", "towards", "the",
        "and", "then",
    ];
    const LENGTH_WORDS: &[&str] = &[
        "yards", "yard", "yds", "yd", "paces", "pace", "steps", "rods", "inches", "inch", "in",
        "ins", "feet", "ft",
    ];
    const NOT_AFTER_AND: &[&str] = &[
        "of", "side", "edge", "end", "then", "and", "to", "bank", "flank", "face", "facing", "by",
        "e", "w", "s", "ne", "nw", "se", "sw", "along", "past", "through", "across", "toward",
        "towards", "into", "via", "over", "until", "till", "as",
    ];
    for k in 0..toks.len() {
        let word = toks.get(k).and_then(Token::word).map(str::to_string);
        let next = toks.get(k + 1).and_then(Token::word).map(str::to_string);
        let new = match word.as_deref() {
            Some("n") => {
                let lower = toks
                    .get(k)
                    .and_then(|t| text.get(t.start..t.end))
                    .is_some_and(|w| w == "n");
                // "100 yds n halt": after a distance only before a verb.
                let prev = k.checked_sub(1).and_then(|j| toks.get(j));
                let prev_ok = prev.and_then(Token::word).is_some_and(|w| {
                    !NOT_BEFORE_AND.contains(&w)
                        || (LENGTH_WORDS.contains(&w)
                            && next.as_deref().is_some_and(super::parser::is_verb_word))
                });
                let next_ok = next
                    .as_deref()
                    .is_some_and(|w| w.len() >= 2 && !NOT_AFTER_AND.contains(&w));
                (lower && prev_ok && next_ok).then_some("and")
            }
            Some("thro") => Some(
                if matches!(
                    next.as_deref(),
                    Some("out" | "forward" | "forwards" | "fwd")
                ) {
                    "throw"
                } else {
                    "through"
                },
            ),
            Some("thru") => Some("through"),
            _ => None,
        };
        if let (Some(w), Some(t)) = (new, toks.get_mut(k)) {
            t.tok = Tok::Word(w.to_string());
        }
    }
    toks
}

/// Shorthand and the commonest slips of the keyboard in the words orders
/// are made of, read as the word meant: "teh" for "the", "posn" for
/// "position", "regt" for "regiment", "rigth" for "right", "lien" for
/// "line". Only words no order means otherwise; the receipt reads the
/// order back in full words, so the reading is plain.
fn shorthand(w: &str) -> Option<&'static str> {
    Some(match w {
        "teh" | "hte" => "the",
        "posn" | "psn" | "posit" => "position",
        "regt" | "rgt" | "regmt" => "regiment",
        "regts" | "rgts" | "regmts" => "regiments",
        "bn" | "batt'n" | "btn" => "battalion",
        "yr" | "yor" | "ur" => "your",
        "thier" | "ther" => "their",
        "hse" => "house",
        "frnt" | "fnt" | "frt" => "front",
        "frm" => "from",
        "rigth" | "rihgt" | "rght" | "rgt." => "right",
        "lfet" | "lft" => "left",
        "lien" | "lnie" | "liine" => "line",
        "battel" | "batle" | "battl" => "battle",
        "colum" | "colmn" | "coloum" | "collumn" | "colunm" => "column",
        "hazzards" | "hazzard" | "hazards" => "hazards",
        "strggle" | "stragle" | "straggel" => "straggle",
        "vs" | "agst" | "agnst" => "against",
        "pls" | "plz" | "plse" => "please",
        "fol" | "foll" | "folow" | "follw" | "folllow" => "follow",
        _ => return None,
    })
}

/// The value of a number word ("three" → 3, "hundred" → ×100), or `None`.
fn number_word(w: &str) -> Option<f64> {
    const UNITS: &[&str] = &[
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: &[&str] = &[
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    if let Some(k) = UNITS.iter().position(|u| *u == w) {
        return Some(k as f64);
    }
    if let Some(k) = TENS.iter().position(|u| *u == w) {
        return Some(20.0 + 10.0 * k as f64);
    }
    match w {
        "a" | "an" => Some(1.0),
        "hundred" => Some(100.0),
        _ => None,
    }
}

/// Words of a distance ("three hundred yards", "two hundred and fifty
/// paces", "six inches"): a run of number words directly before a unit of
/// length becomes one [`Tok::Number`] spanning the run. Elsewhere number
/// words stay words ("one regiment", "a battery").
fn number_words(toks: Vec<Token>) -> Vec<Token> {
    const LENGTHS: &[&str] = &[
        "yards", "yard", "yds", "paces", "pace", "steps", "rods", "inches", "inch", "feet",
    ];
    let mut out: Vec<Token> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while let Some(t) = toks.get(i) {
        // The longest run of number words (with "and" inside) from here.
        let mut j = i;
        let mut total = 0.0;
        let mut current = 0.0;
        let mut any = false;
        while let Some(w) = toks.get(j).and_then(Token::word) {
            if w == "and" && any {
                j += 1;
                continue;
            }
            let Some(v) = number_word(w) else { break };
            if v == 100.0 && w == "hundred" {
                current = if current == 0.0 {
                    100.0
                } else {
                    current * 100.0
                };
            } else if (w == "a" || w == "an") && any {
                break;
            } else {
                current += v;
            }
            any = true;
            j += 1;
        }
        // Never end on "and"; the run must stand right before a length.
        while j > i && toks.get(j - 1).is_some_and(|t| t.is_word("and")) {
            j -= 1;
        }
        total += current;
        let before_length = toks
            .get(j)
            .and_then(Token::word)
            .is_some_and(|w| LENGTHS.contains(&w));
        let only_article = j == i + 1 && t.word().is_some_and(|w| w == "a" || w == "an");
        if any && j > i && before_length && !only_article && total > 0.0 {
            let end = toks.get(j - 1).map_or(t.end, |e| e.end);
            out.push(Token {
                tok: Tok::Number(total),
                start: t.start,
                end,
            });
            i = j;
            continue;
        }
        out.push(t.clone());
        i += 1;
    }
    without_hedges(out)
}

/// "some four hundred paces", "about 75 yards": the hedge before a
/// distance says nothing the distance does not; it is dropped so the
/// distance reads as one (the receipt gives the distance taken).
fn without_hedges(toks: Vec<Token>) -> Vec<Token> {
    const HEDGES: &[&str] = &[
        "some",
        "about",
        "around",
        "approximately",
        "approx",
        "roughly",
        "nearly",
        "circa",
        "ca",
        "perhaps",
        "maybe",
    ];
    let keep: Vec<bool> = (0..toks.len())
        .map(|k| {
            let hedge = toks
                .get(k)
                .and_then(Token::word)
                .is_some_and(|w| HEDGES.contains(&w));
            let number_next = toks
                .get(k + 1)
                .is_some_and(|t| matches!(t.tok, Tok::Number(_)));
            let length_after = toks.get(k + 2).and_then(Token::word).is_some_and(|w| {
                w.starts_with("yard")
                    || w.starts_with("yd")
                    || w.starts_with("pace")
                    || w.starts_with("inch")
                    || matches!(w, "in" | "ins" | "steps" | "rods" | "feet" | "ft")
            });
            !(hedge && number_next && length_after)
        })
        .collect();
    toks.into_iter()
        .zip(keep)
        .filter_map(|(t, k)| k.then_some(t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s, 0, s.len()).into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn words_numbers_ordinals_and_punctuation() {
        assert_eq!(
            kinds("2nd Wisconsin: to (34, 12.5);"),
            vec![
                Tok::Word("2nd".into()),
                Tok::Word("wisconsin".into()),
                Tok::Punct(':'),
                Tok::Word("to".into()),
                Tok::Punct('('),
                Tok::Number(34.0),
                Tok::Punct(','),
                Tok::Number(12.5),
                Tok::Punct(')'),
                Tok::Punct(';'),
            ]
        );
    }

    #[test]
    fn number_words_before_a_length_are_a_number() {
        assert_eq!(
            kinds("three hundred yards, two hundred and fifty paces, six inches")
                .into_iter()
                .filter(|t| matches!(t, Tok::Number(_)))
                .collect::<Vec<_>>(),
            vec![Tok::Number(300.0), Tok::Number(250.0), Tok::Number(6.0)]
        );
        // Not before a length: words.
        assert_eq!(kinds("one regiment")[0], Tok::Word("one".into()));
        assert_eq!(kinds("a hundred yards")[0], Tok::Number(100.0));
    }

    #[test]
    fn hyphens_split_and_apostrophes_stay() {
        assert_eq!(
            kinds("north-west of Miller\u{2019}s 300yds"),
            vec![
                Tok::Word("north".into()),
                Tok::Word("west".into()),
                Tok::Word("of".into()),
                Tok::Word("miller's".into()),
                Tok::Number(300.0),
                Tok::Word("yds".into()),
            ]
        );
    }

    #[test]
    fn a_slashed_abbreviation_is_one_word() {
        assert_eq!(
            kinds("W/D to the pike; and/or"),
            vec![
                Tok::Word("w/d".into()),
                Tok::Word("to".into()),
                Tok::Word("the".into()),
                Tok::Word("pike".into()),
                Tok::Punct(';'),
                Tok::Word("and".into()),
                Tok::Punct('/'),
                Tok::Word("or".into()),
            ]
        );
    }

    #[test]
    fn spans_are_offsets_into_the_whole_text() {
        let s = "xx Hold.";
        let t = lex(s, 3, s.len());
        assert_eq!((t[0].start, t[0].end), (3, 7));
        assert_eq!(&s[t[1].start..t[1].end], ".");
    }
}
