//! Splitting a mail body into orders and directives.
//!
//! Each order is a paragraph headed `<unit or officer name>:`; lines that
//! follow without a head of their own continue it. A blank line ends a
//! paragraph. Directive lines (`FROM`, `READY`, `REPORT`, `HISTORY`,
//! `DISPATCH TO`) stand on their own; `PASSWORD` lines are skipped (the
//! mail layer removes them first), as are quoted lines (`>`) and anything
//! after a signature separator (`--`). Each paragraph stands alone: a bad
//! one is reported and the others still count.
//!
//! Heads are read as players write them (issue #15, `docs/orders.md`
//! "Layout"): with a rank (`Gen. Gibbon:`), as a bare ordinal (`7th:`, the
//! one unit of his command with that number, else he is asked which),
//! several units under one head (`2nd Wis & 7th Wis:`, the order read for
//! each), `Col. X will advance the 2nd Wisconsin …`, and a head on its own
//! line over bulleted steps or an order per line. Greetings and signatures
//! ("Sir,", "Thanks,", the writer's name and rank) are set aside in
//! [`ParsedMail::courtesies`], not reported as errors. An error whose head
//! named units of his carries them ([`OrderError::units`]): they keep their
//! previous orders.

use super::context::ParseContext;
use super::lexer::{Tok, Token, lex};
use super::names::{
    Candidate, Lookup, lookup, lookup_exact, norm_word, norm_words, suggest, token_words,
};
use super::parser::{OrderParser, PErr, is_verb_word, line_col};
use super::{DispatchRequest, DispatchTo, Item, OrderError, ParsedMail, Span};
use crate::rules::iron_brigade::state::{OfficerId, UnitId};

/// What a paragraph's head names.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Head {
    Unit(UnitId),
    Officer(OfficerId),
}

/// Lines of one paragraph, as byte ranges of the mail text, each with
/// whether it started with a bullet ("- ", "* ", "• ", "1. "): a bulleted
/// line under a heading is a step of its own.
#[derive(Debug, Default)]
struct Para {
    segments: Vec<(usize, usize)>,
    bulleted: Vec<bool>,
}

impl Para {
    fn new(start: usize, end: usize, bulleted: bool) -> Para {
        Para {
            segments: vec![(start, end)],
            bulleted: vec![bulleted],
        }
    }

    fn push(&mut self, start: usize, end: usize, bulleted: bool) {
        self.segments.push((start, end));
        self.bulleted.push(bulleted);
    }
}

/// Byte ranges of the lines of `text`, without line endings.
fn lines(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == '\n' {
            let end = if text.get(..i).is_some_and(|s| s.ends_with('\r')) {
                i - 1
            } else {
                i
            };
            out.push((start, end));
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

/// Offset where a line's content starts: past indentation and a bullet
/// ("- ", "* ", "• ", "1. ", "2) "), and whether there was a bullet.
fn content_start(text: &str, start: usize, end: usize) -> (usize, bool) {
    let line = text.get(start..end).unwrap_or("");
    let trimmed = line.trim_start();
    let mut at = start + (line.len() - trimmed.len());
    let rest = text.get(at..end).unwrap_or("");
    let bullet_len = if rest.starts_with(['-', '*', '+', '\u{2022}', '\u{b7}', '\u{2013}']) {
        rest.chars().next().map(char::len_utf8).unwrap_or(0)
    } else {
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        let after = rest.get(digits..).unwrap_or("");
        if digits > 0 && digits < 3 && (after.starts_with(". ") || after.starts_with(") ")) {
            digits + 1
        } else {
            0
        }
    };
    if bullet_len > 0 {
        at += bullet_len;
        let rest = text.get(at..end).unwrap_or("");
        at += rest.len() - rest.trim_start().len();
    }
    (at, bullet_len > 0)
}

/// The state of reading one mail: the paragraph being gathered, the
/// officer of the last `FROM` line, and whether a sign-off was seen.
struct Reader<'m, 'c, 'a> {
    text: &'m str,
    ctx: &'c ParseContext<'a>,
    issuer: Option<OfficerId>,
    cur: Option<Para>,
    /// A closing ("Thanks,", "Your obedient servant") has been read: short
    /// unreadable paragraphs after it are the writer's name and rank.
    signed_off: bool,
    /// The unit a dispatch's address line named ("Colonel Cutler, 6th
    /// Wisconsin,"): the letter after its salutation is that unit's order
    /// (`super::addressed`).
    addressed_to: Option<UnitId>,
    /// A letter's address line named a general who is none of the
    /// writer's own officers ("General King,"): the letter after its
    /// salutation is a report to him, read for the writer's own orders
    /// (`super::addressed::superior`).
    report_to: Option<String>,
    out: ParsedMail,
}

/// Read a player's mail. Never fails: whatever cannot be read is an
/// [`OrderError`] in the result, with line and column.
pub fn parse_mail(text: &str, ctx: &ParseContext) -> ParsedMail {
    let mut r = Reader {
        text,
        ctx,
        issuer: None,
        cur: None,
        signed_off: false,
        addressed_to: None,
        report_to: None,
        out: ParsedMail::default(),
    };
    let all = lines(text);
    let mut i = 0;
    while let Some(&(ls, le)) = all.get(i) {
        i += 1;
        let line = text.get(ls..le).unwrap_or("");
        let trimmed = line.trim();
        if trimmed.is_empty() {
            r.flush();
            continue;
        }
        if trimmed == "--" || line == "-- " {
            break;
        }
        // "-- L.", "-- Gibbon", "--J.G.": the signature delimiter with the
        // writer's name or initial on the same line: the end of the orders.
        if let Some(rest) = trimmed.strip_prefix("--")
            && !rest.starts_with('-')
            && rest.split_whitespace().count() <= 3
            && !rest.contains(':')
        {
            r.flush();
            r.out
                .courtesies
                .push((line_col(text, ls).0, trimmed.to_string()));
            break;
        }
        if trimmed.starts_with('>') || reply_attribution(trimmed) {
            r.flush();
            continue;
        }
        let (cs, bulleted) = content_start(text, ls, le);
        let toks = lex(text, cs, le);
        let first = toks.first().and_then(Token::word).unwrap_or("");
        match first {
            "password" | "passwd" => {
                r.flush();
                continue;
            }
            "ready" if is_ready_line(&toks) => {
                r.flush();
                r.out.ready = true;
                continue;
            }
            "report" | "history" => {
                r.flush();
                if let Err(e) = turn_request(first, &toks, &mut r.out) {
                    r.out.errors.push(to_error(text, ls, le, e));
                }
                continue;
            }
            "dispatch" => {
                r.flush();
                let (end_line, result) = dispatch(text, ctx, &all, i - 1, &toks);
                i = end_line + 1;
                match result {
                    Ok(d) => r.out.dispatches.push(d),
                    Err(e) => r.out.errors.push(to_error(text, ls, le, e)),
                }
                continue;
            }
            "from" => {
                r.flush();
                if text.get(cs..le).is_some_and(|l| l.contains('@')) {
                    continue; // a quoted mail header, not an order line
                }
                match from_line(ctx, text, &toks, le) {
                    Ok((officer, rest)) => {
                        r.issuer = Some(officer);
                        if let Some(rest) = rest {
                            r.cur = Some(Para::new(rest, le, false));
                        }
                    }
                    Err(e) => r.out.errors.push(to_error(text, ls, le, e)),
                }
                continue;
            }
            _ => {}
        }
        // A line that opens a sentence of its own starts a paragraph even
        // without a colon: "I shall ride to ...", "The 5th Virginia will
        // ...", an order to an arm he has not got, and a condition after a
        // line that ended its sentence ("Should the enemy break, ...").
        let prev_ended = r.cur.as_ref().is_some_and(|p| {
            p.segments.last().is_some_and(|&(s, e)| {
                let prev = text.get(s..e).unwrap_or("").trim_end();
                prev.ends_with(['.', '!']) || !prev.ends_with([',', ';', ':', '-', '&'])
            })
        });
        // "Artillery", "Staff", "Right wing" on a line of its own between
        // bulleted orders: the writer's heading, never the end of the
        // order above it.
        let arm_heading =
            !bulleted && trimmed.starts_with(|c: char| c.is_uppercase()) && is_heading(&toks);
        let has_head = head_colon(&toks).is_some()
            || arm_heading
            || (!bulleted
                && (first_person(ctx, &toks).is_some()
                    || opens_unit_sentence(ctx, &toks)
                    || missing_arm(ctx, &toks).is_some()
                    || (prev_ended && condition_first(&toks).is_some())));
        match (&mut r.cur, has_head) {
            (Some(p), false) => p.push(cs, le, bulleted),
            _ => {
                r.flush();
                r.cur = Some(Para::new(cs, le, bulleted));
            }
        }
    }
    r.flush();
    r.out
}

/// A mail program's line over the quoted mail of a reply: "On Tue, 24
/// Nov 2026 at 19:40, Adjutant <adjutant@example.test> wrote:", "Am ...
/// schrieb ...:", "Le ... a écrit :". Skipped like the quoted lines.
fn reply_attribution(line: &str) -> bool {
    let lower = line.to_lowercase();
    let opens = ["on ", "am ", "le ", "el ", "op "]
        .iter()
        .any(|p| lower.starts_with(p));
    let closes = [
        "wrote:",
        "schrieb:",
        "a écrit :",
        "a écrit:",
        "escribió:",
        "schreef:",
    ]
    .iter()
    .any(|c| lower.trim_end().ends_with(c));
    opens && closes && line.len() <= 200
}

/// Index of the colon ending a paragraph head, if the line has one early.
/// "split fire:" (APSoF V.F.2, "split fire: 10 castings at ...") is part of
/// an order, not a head, so a line starting with it continues the order
/// above it.
fn head_colon(toks: &[Token]) -> Option<usize> {
    let c = toks.iter().take(12).position(|t| t.is_punct(':'))?;
    let head: Vec<&str> = toks.get(..c)?.iter().filter_map(Token::word).collect();
    let split_fire = matches!(
        head.as_slice(),
        ["split" | "divide", "fire" | "fires"]
            | [
                "split" | "divide",
                "its" | "their" | "your" | "the",
                "fire" | "fires"
            ]
    );
    (!split_fire).then_some(c)
}

fn is_ready_line(toks: &[Token]) -> bool {
    toks.iter().skip(1).all(|t| {
        matches!(t.tok, Tok::Punct(_) | Tok::Number(_))
            || matches!(t.word(), Some("for" | "turn" | "now"))
    })
}

fn to_error(text: &str, ps: usize, pe: usize, e: PErr) -> OrderError {
    let (line, column) = line_col(text, e.at);
    OrderError {
        line,
        column,
        paragraph: text.get(ps..pe).unwrap_or("").trim().to_string(),
        message: e.message,
        suggestions: e.suggestions,
        units: Vec::new(),
    }
}

/// `REPORT [turn] [n]` and `HISTORY [FROM n] [TO n]`.
fn turn_request(kind: &str, toks: &[Token], out: &mut ParsedMail) -> Result<(), PErr> {
    let mut from = None;
    let mut to = None;
    let mut bare = None;
    let mut k = 1;
    let mut expect: Option<&str> = None;
    while let Some(t) = toks.get(k) {
        k += 1;
        match &t.tok {
            Tok::Word(w) if w == "turn" || w == "turns" => {}
            Tok::Word(w) if kind == "history" && (w == "from" || w == "to") => {
                expect = Some(if w == "from" { "from" } else { "to" });
            }
            Tok::Number(n) if n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX) => {
                let n = *n as u32;
                match expect.take() {
                    Some("from") => from = Some(n),
                    Some(_) => to = Some(n),
                    None if kind == "history" && from.is_none() => from = Some(n),
                    None if kind == "history" => to = Some(n),
                    None => bare = Some(n),
                }
            }
            Tok::Punct('.' | '!' | ',' | '-' | ':') => {}
            _ => {
                let usage = if kind == "report" {
                    "'REPORT' or 'REPORT TURN 3'"
                } else {
                    "'HISTORY', 'HISTORY FROM 2' or 'HISTORY FROM 2 TO 5'"
                };
                return Err(PErr {
                    at: t.start,
                    message: format!("expected a turn number as in {usage}"),
                    suggestions: Vec::new(),
                });
            }
        }
    }
    if kind == "report" {
        out.report_request = Some(bare);
    } else {
        out.history = Some((from, to));
    }
    Ok(())
}

/// `FROM <officer>[:] [order...]`: the officer who issues the orders below.
/// Returns the officer and where an order on the same line starts.
fn from_line(
    ctx: &ParseContext,
    text: &str,
    toks: &[Token],
    line_end: usize,
) -> Result<(OfficerId, Option<usize>), PErr> {
    let mut k = 1;
    if toks.get(k).is_some_and(|t| t.is_punct(':')) {
        k += 1;
    }
    let name_end = toks
        .iter()
        .skip(k)
        .position(|t| t.is_punct(':'))
        .map(|p| p + k)
        .unwrap_or(toks.len());
    let name_toks = toks.get(k..name_end).unwrap_or_default();
    let written = span_text(text, name_toks);
    let officers = ctx.own_officers();
    let rest = toks
        .get(name_end + 1)
        .map(|t| t.start)
        .filter(|s| *s < line_end);
    match lookup(&words(name_toks), &officers) {
        Lookup::Found(o) => Ok((o, rest)),
        Lookup::Ambiguous(names) => Err(PErr {
            at: name_toks.first().map(|t| t.start).unwrap_or(line_end),
            message: format!(
                "'{written}' could mean more than one of your officers; write the name in full"
            ),
            suggestions: names,
        }),
        Lookup::NotFound => Err(PErr {
            at: name_toks.first().map(|t| t.start).unwrap_or(line_end),
            message: if written.is_empty() {
                "expected one of your officers after 'FROM', as in 'FROM Gibbon:'".to_string()
            } else {
                format!(
                    "'{written}' is not one of your officers on the field; write 'FROM <your officer>:'"
                )
            },
            suggestions: suggest(&written, &officers),
        }),
    }
}

/// `DISPATCH TO <general>: "text"`; a quoted text may run over several
/// lines. Returns the index of the last line used.
fn dispatch(
    text: &str,
    ctx: &ParseContext,
    all: &[(usize, usize)],
    line_idx: usize,
    toks: &[Token],
) -> (usize, Result<DispatchRequest, PErr>) {
    let (ls, le) = all.get(line_idx).copied().unwrap_or((0, 0));
    let mut k = 1;
    if toks.get(k).is_some_and(|t| t.is_word("to")) {
        k += 1;
    }
    let Some(colon) = toks
        .iter()
        .skip(k)
        .position(|t| t.is_punct(':'))
        .map(|p| p + k)
    else {
        return (
            line_idx,
            Err(PErr {
                at: toks.get(k).map(|t| t.start).unwrap_or(le),
                message: "expected ':' after the general's name, as in 'DISPATCH TO King: \"...\"'"
                    .to_string(),
                suggestions: Vec::new(),
            }),
        );
    };
    let name_toks = toks.get(k..colon).unwrap_or_default();
    let written = span_text(text, name_toks);
    if written.is_empty() {
        return (
            line_idx,
            Err(PErr {
                at: toks.get(colon).map(|t| t.start).unwrap_or(le),
                message: "expected the name of the general the dispatch is for".to_string(),
                suggestions: Vec::new(),
            }),
        );
    }
    let officers = ctx.side_officers();
    let to = match lookup(&words(name_toks), &officers) {
        Lookup::Found(o) => DispatchTo::Officer(o),
        _ => DispatchTo::Name(written),
    };
    let body_start = toks.get(colon).map(|t| t.end).unwrap_or(le);
    let after = text.get(body_start..le).unwrap_or("");
    let lead = after.len() - after.trim_start().len();
    let open = body_start + lead;
    let quoted = text
        .get(open..)
        .and_then(|s| s.chars().next())
        .is_some_and(|c| matches!(c, '"' | '\u{201C}'));
    if !quoted {
        let body = after.trim().to_string();
        if body.is_empty() {
            return (
                line_idx,
                Err(PErr {
                    at: le,
                    message: "expected the dispatch text after ':'".to_string(),
                    suggestions: Vec::new(),
                }),
            );
        }
        return (
            line_idx,
            Ok(DispatchRequest {
                to,
                text: body,
                span: Span { start: ls, end: le },
            }),
        );
    }
    let q_len = text
        .get(open..)
        .and_then(|s| s.chars().next())
        .map(char::len_utf8)
        .unwrap_or(1);
    let inner_start = open + q_len;
    let rest = text.get(inner_start..).unwrap_or("");
    match rest.find(['"', '\u{201D}']) {
        Some(close) => {
            let end = inner_start + close;
            let last_line = all
                .iter()
                .position(|&(s, e)| s <= end && end <= e)
                .unwrap_or(line_idx);
            let body = text.get(inner_start..end).unwrap_or("");
            let body = body.split_whitespace().collect::<Vec<_>>().join(" ");
            let close_len = text
                .get(end..)
                .and_then(|s| s.chars().next())
                .map(char::len_utf8)
                .unwrap_or(1);
            (
                last_line.max(line_idx),
                Ok(DispatchRequest {
                    to,
                    text: body,
                    span: Span {
                        start: ls,
                        end: end + close_len,
                    },
                }),
            )
        }
        None => (
            line_idx,
            Err(PErr {
                at: open,
                message: "the dispatch text has no closing quote; end it with '\"'".to_string(),
                suggestions: Vec::new(),
            }),
        ),
    }
}

fn span_text(text: &str, toks: &[Token]) -> String {
    match (toks.first(), toks.last()) {
        (Some(a), Some(b)) => text.get(a.start..b.end).unwrap_or("").trim().to_string(),
        _ => String::new(),
    }
}

fn words(toks: &[Token]) -> Vec<String> {
    token_words(toks)
}

impl Reader<'_, '_, '_> {
    /// Read the paragraph being gathered, if any, into `out`.
    fn flush(&mut self) {
        let Some(mut para) = self.cur.take() else {
            return;
        };
        // "21st NC: advance to the woods." with "Your obedient servant,
        // I. R. Trimble" on the next line: the closing and what follows it
        // are a signature, not part of the order.
        if let Some(k) = (1..para.segments.len()).find(|&k| {
            para.segments.get(k).is_some_and(|&(s, e)| {
                let line = self.text.get(s..e).unwrap_or("").trim().to_lowercase();
                starts_with_phrase(&line, CLOSINGS) && line.split_whitespace().count() <= 12
            })
        }) {
            let tail = Para {
                segments: para.segments.split_off(k),
                bulleted: para.bulleted.split_off(k),
            };
            self.cur = Some(para);
            self.flush();
            self.cur = Some(tail);
            self.flush();
            return;
        }
        // A dispatch's address line, alone or over its "Sir: ..." line:
        // to a unit's commander, or to a general who is not the writer's.
        if let Some(&(s0, e0)) = para.segments.first() {
            let line0 = self.text.get(s0..e0).unwrap_or("");
            let to_unit = super::addressed::addressee(line0, self.ctx);
            let to_general = match to_unit {
                Some(_) => None,
                None => super::addressed::superior(line0, self.ctx),
            };
            if to_unit.is_some() || to_general.is_some() {
                self.addressed_to = to_unit;
                self.report_to = to_general;
                let (line, _) = line_col(self.text, s0);
                self.out.courtesies.push((line, line0.trim().to_string()));
                if para.segments.len() == 1 {
                    return;
                }
                para = Para {
                    segments: para.segments.split_off(1),
                    bulleted: para.bulleted.split_off(1),
                };
            }
        }
        let letter_to = match (self.addressed_to, &self.report_to) {
            (Some(u), _) => Some(Ok(u)),
            (None, Some(g)) => Some(Err(g.clone())),
            (None, None) => None,
        };
        if let Some(to) = letter_to
            && let Some(&(s0, e0)) = para.segments.first()
            && let Some(off) =
                super::addressed::salutation_body(self.text.get(s0..e0).unwrap_or(""))
        {
            // The letter runs to its closing or signature ("I am, Sir,
            // &c.", "By order of ...", "John Gibbon, Brig. Gen."), which
            // is read as one.
            let end = (1..para.segments.len())
                .find(|&k| {
                    para.segments.get(k).is_some_and(|&(s, e)| {
                        let line = self.text.get(s..e).unwrap_or("");
                        let lower = line.trim().to_lowercase();
                        super::addressed::closes_letter(&lower)
                            || courtesy(
                                self.text,
                                self.ctx,
                                &Para::new(s, e, false),
                                self.signed_off,
                            )
                            .is_some()
                    })
                })
                .unwrap_or(para.segments.len());
            let tail = Para {
                segments: para.segments.split_off(end),
                bulleted: para.bulleted.split_off(end),
            };
            match to {
                Ok(u) => self.addressed(u, &para, s0 + off),
                Err(general) => self.report(&general, &para, s0 + off),
            }
            if !tail.segments.is_empty() {
                self.signed_off = true;
                self.cur = Some(tail);
                self.flush();
            }
            return;
        }
        let (Some(&(ps, _)), Some(&(_, pe))) = (para.segments.first(), para.segments.last()) else {
            return;
        };
        match paragraph(self.text, self.ctx, &para, ps, pe, self.issuer) {
            // "Respectfully, / I. R. Trimble / Brig. Gen. Comdg.": a sign-off
            // whose lines were each tried as a sentence (a rank opening a
            // line reads as an officer's order) and none read.
            Ok((items, errs))
                if items.is_empty()
                    && !errs.is_empty()
                    && errs.iter().all(|(e, _, _)| e.units.is_empty())
                    && courtesy(self.text, self.ctx, &para, self.signed_off) == Some(true) =>
            {
                self.signed_off = true;
                let (line, _) = line_col(self.text, ps);
                let first = para
                    .segments
                    .first()
                    .and_then(|&(s, e)| self.text.get(s..e))
                    .unwrap_or("")
                    .trim()
                    .to_string();
                self.out.courtesies.push((line, first));
            }
            Ok((items, errs)) => {
                // No sentence read ("The 19. Indiana must attack ...", cut
                // at the ordinal's full stop): the paragraph as a whole,
                // loosely or as prose, before each piece on its own.
                if items.is_empty()
                    && !errs.is_empty()
                    && only_ordinal_stops(self.text.get(ps..pe).unwrap_or(""))
                    && let Some(read) = self.loose(ps, pe, para.segments.len() == 1)
                {
                    self.out.items.extend(read);
                    return;
                }
                let first = self.out.items.len();
                self.out.items.extend(items);
                for (ParaErr { err, units }, s, e) in errs {
                    if let Some(read) = self.loose(s, e, false) {
                        self.out.items.extend(read);
                        continue;
                    }
                    if units.is_empty() && self.remark(s, e) {
                        continue;
                    }
                    let mut e = to_error(self.text, s, e, err);
                    e.units = units;
                    self.out.errors.push(e);
                }
                // A sentence read loosely keeps its place among the others:
                // the last order to a unit is the one that counts.
                if let Some(added) = self.out.items.get_mut(first..) {
                    added.sort_by_key(|i| i.span().start);
                }
            }
            Err(ParaErr { err, units }) => {
                if units.is_empty()
                    && let Some(closing) = courtesy(self.text, self.ctx, &para, self.signed_off)
                {
                    self.signed_off |= closing;
                    let (line, _) = line_col(self.text, ps);
                    let first = para
                        .segments
                        .first()
                        .and_then(|&(s, e)| self.text.get(s..e))
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    self.out.courtesies.push((line, first));
                    return;
                }
                if let Some(read) = self.loose(ps, pe, para.segments.len() == 1) {
                    self.out.items.extend(read);
                    return;
                }
                if units.is_empty() && self.remark(ps, pe) {
                    return;
                }
                let mut e = to_error(self.text, ps, pe, err);
                e.units = units;
                self.out.errors.push(e);
            }
        }
    }
}

impl Reader<'_, '_, '_> {
    /// The letter of a dispatch addressed to `unit`'s commander, from
    /// `body` (after "Sir:") to the paragraph's end: each sentence read as
    /// an order to the unit ("You will advance ..." -> "<unit>: advance
    /// ..."), strictly, else loosely; a sentence read neither way is an
    /// error at the letter's first line. The receipt says how it was read.
    fn addressed(&mut self, unit: UnitId, para: &Para, body: usize) {
        let (Some(&(ps, _)), Some(&(_, pe))) = (para.segments.first(), para.segments.last()) else {
            return;
        };
        let Some(name) = self.ctx.state.unit(unit).map(|u| u.name.clone()) else {
            return;
        };
        let written = self.text.get(ps..pe).unwrap_or("").trim().to_string();
        let sentences = letter_sentences(self.text.get(body..pe).unwrap_or(""));
        let (ctx, issuer) = (self.ctx, self.issuer);
        let (line, column) = line_col(self.text, ps);
        let mut read_as = Vec::new();
        for sentence in sentences {
            let sentence = sentence.trim_end_matches([';']).trim().to_string();
            if sentence.is_empty() {
                continue;
            }
            let synthetic = super::addressed::as_order(&name, &sentence);
            let strict = |t: &str| reparse(t, ctx, issuer);
            let mut via_prose = None;
            let items = match reparse(&synthetic, ctx, issuer)
                .or_else(|| super::loose::read(&synthetic, 0, synthetic.len(), ctx, &strict))
            {
                Some(items) => Some(items),
                None => super::prose::read_sentence(&synthetic, ctx, &strict).map(|(i, p)| {
                    via_prose = Some(p);
                    i
                }),
            };
            let for_unit = items.filter(|items| {
                items
                    .iter()
                    .all(|i| matches!(i, Item::Unit { unit: u, .. } if *u == unit))
            });
            // Information in the letter ("The 19th Indiana is coming up
            // on your left.") is no order: kept as such, and said.
            let informs = super::addressed::informs(&sentence);
            match for_unit {
                None if informs => {
                    ctx.add_notes(vec![super::context::ParseNote {
                        at: ps,
                        tail: written.clone(),
                        text: format!("'{sentence}' read as information, not as an order"),
                    }]);
                }
                Some(items) => {
                    let made = ctx.notes_for(
                        Span {
                            start: 0,
                            end: synthetic.len(),
                        },
                        synthetic.trim(),
                    );
                    let mut notes = Vec::new();
                    let mut these = Vec::new();
                    for mut item in items {
                        if let Item::Unit { text, span, .. } = &mut item {
                            *text = written.clone();
                            *span = Span { start: ps, end: pe };
                        }
                        these.push(super::normalise(&item, ctx));
                        self.out.items.push(item);
                    }
                    if let Some(p) = &via_prose {
                        notes.extend(super::prose::receipt(&sentence, p, &these));
                    }
                    read_as.extend(these);
                    for m in made {
                        notes.push(m);
                    }
                    ctx.add_notes(
                        notes
                            .into_iter()
                            .map(|text| super::context::ParseNote {
                                at: ps,
                                tail: written.clone(),
                                text,
                            })
                            .collect(),
                    );
                }
                None => {
                    // The strict reader's own words for what is wrong: on
                    // the sentence as rewritten into the language, when
                    // it was (said, so the reading is plain).
                    let rewritten = super::prose::rewrite(&synthetic).pop();
                    let (tried, shown) = match &rewritten {
                        Some(p) => (p.text.clone(), format!("read as '{}': ", p.text)),
                        None => (synthetic.clone(), String::new()),
                    };
                    let message = super::parse_mail(&tried, ctx)
                        .errors
                        .first()
                        .map(|e| format!("{shown}{}", e.message))
                        .unwrap_or_else(|| "this sentence is not understood".to_string());
                    self.out.errors.push(OrderError {
                        line,
                        column,
                        paragraph: written.clone(),
                        message: format!(
                            "in the letter to {name}, '{sentence}' is not taken: {message}"
                        ),
                        suggestions: Vec::new(),
                        units: vec![unit],
                    });
                }
            }
        }
        if !read_as.is_empty() {
            ctx.add_notes(vec![super::context::ParseNote {
                at: ps,
                tail: written.clone(),
                text: format!(
                    "the letter is addressed to the {name}'s commander: read as its order ({})",
                    read_as.join("; ")
                ),
            }]);
        }
    }

    /// A letter to a general who is not the writer's own ("General King,
    /// / Sir: I have the honour to report ... I am moving the 56th
    /// Pennsylvania into Brawner's woods"): a report, not sent to him (only
    /// a DISPATCH line is carried, SFRM). Each sentence that reads as an
    /// order to the writer's own units is taken, as prose; a sentence that
    /// names one of his units but cannot be read is refused; the rest is
    /// information, and the receipt says so.
    fn report(&mut self, to: &str, para: &Para, body: usize) {
        let (Some(&(ps, _)), Some(&(_, pe))) = (para.segments.first(), para.segments.last()) else {
            return;
        };
        let written = self.text.get(ps..pe).unwrap_or("").trim().to_string();
        let (ctx, issuer) = (self.ctx, self.issuer);
        let strict = |t: &str| reparse(t, ctx, issuer);
        let (line, column) = line_col(self.text, ps);
        let mut read_as = Vec::new();
        let mut told = Vec::new();
        let mut notes = Vec::new();
        for sentence in letter_sentences(self.text.get(body..pe).unwrap_or("")) {
            let sentence = sentence
                .trim_start_matches(['-', '\u{2014}', ' '])
                .trim_end_matches(';')
                .trim()
                .to_string();
            if sentence.is_empty() {
                continue;
            }
            let mut via_prose = None;
            let items = match strict(&sentence)
                .or_else(|| super::loose::read(&sentence, 0, sentence.len(), ctx, &strict))
            {
                Some(items) => Some(items),
                None => super::prose::read_sentence(&sentence, ctx, &strict).map(|(i, p)| {
                    via_prose = Some(p);
                    i
                }),
            };
            match items {
                Some(items) => {
                    let made = ctx.notes_for(
                        Span {
                            start: 0,
                            end: sentence.len(),
                        },
                        sentence.trim(),
                    );
                    let mut these = Vec::new();
                    for mut item in items {
                        match &mut item {
                            Item::Unit { text, span, .. } | Item::Officer { text, span, .. } => {
                                *text = written.clone();
                                *span = Span { start: ps, end: pe };
                            }
                        }
                        these.push(super::normalise(&item, ctx));
                        self.out.items.push(item);
                    }
                    if let Some(p) = &via_prose {
                        notes.extend(super::prose::receipt(&sentence, p, &these));
                    }
                    notes.extend(made);
                    read_as.extend(these);
                }
                None => match names_own_unit(ctx, &sentence) {
                    Some(unit) => {
                        let message = super::parse_mail(&sentence, ctx)
                            .errors
                            .first()
                            .map(|e| e.message.clone())
                            .unwrap_or_else(|| "this sentence is not understood".to_string());
                        self.out.errors.push(OrderError {
                            line,
                            column,
                            paragraph: written.clone(),
                            message: format!(
                                "in your letter to {to}, '{sentence}' names your {unit} but is not taken as its order ({message}); write the order on its own, as in '{unit}: hold'"
                            ),
                            suggestions: Vec::new(),
                            units: names_own_units(ctx, &sentence),
                        });
                    }
                    None => told.push(sentence),
                },
            }
        }
        let surname = to.split_whitespace().last().unwrap_or(to);
        let summary = format!(
            "the letter to {to} is read as a report, not sent to him (only a 'DISPATCH TO {surname}: \"...\"' line is carried to another general){}{}",
            if read_as.is_empty() {
                String::new()
            } else {
                format!(
                    "; the orders in it for your own units are taken: {}",
                    read_as.join("; ")
                )
            },
            if told.is_empty() {
                String::new()
            } else {
                format!(
                    "; read as information, not orders: {}",
                    told.iter()
                        .map(|t| format!("'{t}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        );
        if read_as.is_empty() {
            self.out.courtesies.push((line, summary));
        } else {
            notes.insert(0, summary);
            ctx.add_notes(
                notes
                    .into_iter()
                    .map(|text| super::context::ParseNote {
                        at: ps,
                        tail: written.clone(),
                        text,
                    })
                    .collect(),
            );
        }
    }

    /// Whether the unread sentence `text[s..e]` is the writer's remark
    /// rather than a failed order ("Sorry for the late orders!", "Ewell
    /// wants the pike.", "King has to be told what we've run into."): it
    /// names none of his units or officers, holds no order's verb, and no
    /// word that gives an order without one ("you will", "send", "have",
    /// "please"). A remark is kept in [`ParsedMail::remarks`]
    /// and the receipt quotes it as not read as an order; it is no error,
    /// so READY still counts. Anything else stays an error, so a unit's
    /// order with a slip in it is still answered.
    fn remark(&mut self, s: usize, e: usize) -> bool {
        let Some(written) = self.text.get(s..e) else {
            return false;
        };
        let written = written.trim();
        // "Here are my orders: the turnpike": a colon is an order's shape.
        if written.is_empty() || written.len() > 600 || written.contains(':') {
            return false;
        }
        let words: Vec<String> = written
            .split(|c: char| {
                c.is_whitespace()
                    || matches!(c, ',' | ';' | ':' | '.' | '!' | '?' | '(' | ')' | '"')
            })
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        // Words of an order given without a verb Adjutant knows: "you
        // will ...", "send the cavalry", "have the 2nd ...".
        const ORDERING: &[&str] = &[
            "you", "your", "yr", "ur", "send", "have", "let", "get", "make", "direct", "directs",
            "please", "pls", "must", "shall", "should", "will",
        ];
        if words
            .iter()
            .any(|w| is_verb_word(w) || ORDERING.contains(&w.as_str()))
        {
            return false;
        }
        let names_his = |ws: &[String]| -> bool {
            let normed = norm_words(&ws.join(" "));
            self.ctx
                .own_units()
                .iter()
                .any(|c| names_in(&normed, &c.words))
                || self
                    .ctx
                    .own_officers()
                    .iter()
                    .any(|c| names_in(&normed, &c.words))
        };
        if names_his(&words) {
            return false;
        }
        let (line, _) = line_col(self.text, s);
        let said: String = written.split_whitespace().collect::<Vec<_>>().join(" ");
        self.out.remarks.push((line, said));
        true
    }

    /// A second, looser reading of `text[s..e]`, refused by the grammar
    /// (`super::loose`, issue #15). On one line, a number and a full stop
    /// the bullet reader took for a list's ("21. Georgia: hold") are given
    /// back to it.
    fn loose(&self, s: usize, e: usize, one_line: bool) -> Option<Vec<Item>> {
        let ls = self
            .text
            .get(..s)
            .and_then(|t| t.rfind('\n'))
            .map_or(0, |k| k + 1);
        let before = self.text.get(ls..s).unwrap_or("");
        let digits = before.trim().strip_suffix('.').unwrap_or("");
        let (ctx, issuer) = (self.ctx, self.issuer);
        let reparse = |t: &str| reparse(t, ctx, issuer);
        if let Some(read) = super::loose::read(self.text, s, e, ctx, &reparse) {
            return Some(read);
        }
        if let Some(read) = super::prose::read(self.text, s, e, ctx, &reparse) {
            return Some(read);
        }
        if one_line
            && !digits.is_empty()
            && digits.len() <= 2
            && digits.chars().all(|c| c.is_ascii_digit())
        {
            let start = ls + (before.len() - before.trim_start().len());
            return super::loose::read(self.text, start, e, ctx, &reparse);
        }
        None
    }
}

/// The sentences of a letter's body: ". " or "; " ends one.
fn letter_sentences(letter: &str) -> Vec<String> {
    let letter: String = letter.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut sentences: Vec<String> = Vec::new();
    let mut cur = String::new();
    for w in letter.split(' ') {
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
        if w.ends_with('.') || w.ends_with(';') {
            sentences.push(std::mem::take(&mut cur));
        }
    }
    if !cur.trim().is_empty() {
        sentences.push(cur);
    }
    sentences
}

/// The writer's own units a sentence names (by a name of two to four
/// words, as "the 56th Pennsylvania" or "Battery B").
fn names_own_units(ctx: &ParseContext, sentence: &str) -> Vec<UnitId> {
    let words = norm_words(sentence);
    let units = ctx.own_units();
    let mut out: Vec<UnitId> = Vec::new();
    for k in 0..words.len() {
        let opens = words[k].starts_with(|c: char| c.is_ascii_digit() || c == '#')
            || words[k] == "battery"
            || words.get(k + 1).is_some_and(|w| w == "battery");
        if !opens {
            continue;
        }
        for n in (2..=4).rev() {
            let Some(w) = words.get(k..k + n) else {
                continue;
            };
            if let Lookup::Found(u) = lookup_exact(w, &units) {
                if !out.contains(&u) {
                    out.push(u);
                }
                break;
            }
        }
    }
    out
}

/// The first of the writer's own units a sentence names, by name.
fn names_own_unit(ctx: &ParseContext, sentence: &str) -> Option<String> {
    let u = *names_own_units(ctx, sentence).first()?;
    ctx.state.unit(u).map(|u| u.name.clone())
}

/// A rewritten paragraph read strictly: its items, only when it reads
/// without any error.
fn reparse(text: &str, ctx: &ParseContext, issuer: Option<OfficerId>) -> Option<Vec<Item>> {
    let mut para: Option<Para> = None;
    for (ls, le) in lines(text) {
        if text.get(ls..le).is_none_or(|l| l.trim().is_empty()) {
            continue;
        }
        let (cs, bulleted) = content_start(text, ls, le);
        match &mut para {
            Some(p) => p.push(cs, le, bulleted),
            None => para = Some(Para::new(cs, le, bulleted)),
        }
    }
    let para = para?;
    let (ps, pe) = (para.segments.first()?.0, para.segments.last()?.1);
    match paragraph(text, ctx, &para, ps, pe, issuer) {
        Ok((items, errs)) if errs.is_empty() && !items.is_empty() => Some(items),
        _ => None,
    }
}

/// Words a writer closes a letter with (or a mail client adds), matched at
/// the start of a line: "Thanks,", "Regards", "Grüße, Col. Müller", "Your
/// obedient servant", "Sent from my iPhone".
const CLOSINGS: &[&str] = &[
    "thanks",
    "thank you",
    "many thanks",
    "thx",
    "that's all",
    "thats all",
    "that is all",
    "that's it",
    "thats it",
    "regards",
    "kind regards",
    "best regards",
    "warm regards",
    "with regards",
    "best wishes",
    "all the best",
    "best",
    "cheers",
    "yours",
    "sincerely",
    "respectfully",
    "very respectfully",
    "your obedient servant",
    "your most obedient servant",
    "your humble servant",
    "obedient servant",
    "yr obt svt",
    "yr obt servant",
    "yr. obt. servant",
    "your obt servant",
    "your obt. servant",
    "yr obt. svt",
    "yr. obt. svt",
    "your obt svt",
    "your obt. svt",
    "yr obedient servant",
    "yr most obt svt",
    "obt svt",
    "yours obediently",
    "yours respectfully",
    "yours truly",
    "i have the honor",
    "i have the honour",
    "thx",
    "tx",
    "ty",
    "ta",
    "thanks all",
    "thats all",
    "that's all",
    "that is all",
    "thats it",
    "that's it",
    "that is it",
    "that will be all",
    "that'll be all",
    "end of orders",
    "end orders",
    "orders end",
    "over and out",
    "i remain",
    "god bless",
    "good luck",
    "gruss",
    "grüsse",
    "grüße",
    "gruß",
    "viele grüße",
    "liebe grüße",
    "mit freundlichen grüßen",
    "mfg",
    "cordialement",
    "amicalement",
    "salutations",
    "saludos",
    "sent from my",
    "get outlook for",
];

/// Words a writer opens a letter with: "Sir,", "General,", "Dear Adjutant,".
const OPENINGS: &[&str] = &[
    "dear",
    "sir",
    "sirs",
    "general",
    "colonel",
    "hello",
    "hi",
    "hallo",
    "greetings",
    "good morning",
    "good evening",
    "good afternoon",
    "adjutant",
];

/// Ranks written before an officer's name: "Gen. Gibbon", "Col.
/// Fairchild", "Lt. Col.", "Brig. Gen." (normalised words, see
/// [`super::names::norm_word`]).
const RANKS: &[&str] = &[
    "gen",
    "genl",
    "general",
    "brig",
    "brigadier",
    "bvt",
    "brevet",
    "maj",
    "major",
    "col",
    "colonel",
    "lt",
    "lieut",
    "lieutenant",
    "capt",
    "cpt",
    "captain",
    "sgt",
    "sergeant",
    "mr",
];

/// Words that may stand in a signature besides ranks and names.
const SIGNATURE_WORDS: &[&str] = &[
    "commanding",
    "comdg",
    "cmdg",
    "brigade",
    "bde",
    "division",
    "div",
    "usa",
    "csa",
    "us",
    "cs",
    "army",
    "iron",
    "staff",
    "the",
    "of",
    "by",
    "for",
    "order",
    "aide",
    "adc",
];

fn starts_with_phrase(line: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| {
        line.strip_prefix(p)
            .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
    })
}

/// Whether an unreadable paragraph is a greeting or sign-off rather than an
/// order: `Some(true)` a closing (what follows it is the writer's name),
/// `Some(false)` a greeting or a name and rank, `None` neither. Only short
/// paragraphs qualify, and never one whose head named a unit.
fn courtesy(text: &str, ctx: &ParseContext, para: &Para, signed_off: bool) -> Option<bool> {
    if para.segments.len() > 4 {
        return None;
    }
    let lines: Vec<String> = para
        .segments
        .iter()
        .map(|&(s, e)| text.get(s..e).unwrap_or("").trim().to_lowercase())
        .collect();
    let first = lines.first()?;
    let first_words = first.split_whitespace().count();
    if starts_with_phrase(first, CLOSINGS) && first_words <= 12 {
        return Some(true);
    }
    // "Evening. Here are my orders": opening chatter, not a failed order.
    if !signed_off && lines.iter().all(|l| super::preamble::is_preamble(l)) {
        return Some(false);
    }
    let short = lines.iter().all(|l| l.split_whitespace().count() <= 8);
    if signed_off && short {
        return Some(false);
    }
    if para.segments.len() == 1
        && first_words <= 5
        && starts_with_phrase(first, OPENINGS)
        && (first.ends_with([',', '!', ':']) || first_words <= 3)
    {
        return Some(false);
    }
    // A name and rank on their own: "J. Gibbon", "Brig. Gen. Gibbon,
    // commanding".
    let officers = ctx.side_officers();
    let mut named = false;
    // "John Gibbon": a given name the scenario does not know, before an
    // officer's name it does.
    for &(s, e) in &para.segments {
        let line = text.get(s..e).unwrap_or("");
        let ws = norm_words(line);
        let is_officer = |w: &String| officers.iter().any(|o| o.words.contains(w));
        for (k, w) in ws.iter().enumerate() {
            let rank = RANKS.contains(&w.as_str()) || w == "colonel" || w == "general";
            let officer = is_officer(w);
            let initial = w.chars().count() == 1;
            // A given name: the next word is the officer's surname, and no
            // ':' makes the line an order.
            let given = !line.contains(':')
                && w.chars().all(|c| c.is_alphabetic())
                && ws.get(k + 1).is_some_and(is_officer);
            if !(rank || officer || initial || given || SIGNATURE_WORDS.contains(&w.as_str())) {
                return None;
            }
            named |= rank || officer;
        }
    }
    named.then_some(false)
}

/// The tokens of a paragraph. A bulleted line after the first is a step of
/// its own, so a `;` is put before it (unless the line above ended in
/// punctuation that separates already); with `separate_lines`, every line
/// is a step: "2nd Wisconsin:" on a line of its own with an order per line
/// below it.
fn para_tokens(text: &str, para: &Para, separate_lines: bool) -> Vec<Token> {
    let mut toks: Vec<Token> = Vec::new();
    for (k, (&(s, e), &bullet)) in para.segments.iter().zip(&para.bulleted).enumerate() {
        let line = lex(text, s, e);
        let ends_step = toks
            .last()
            .is_some_and(|t| matches!(t.tok, Tok::Punct(';' | ',' | '.' | ':')));
        if k > 0 && (bullet || separate_lines) && !line.is_empty() && !ends_step {
            toks.push(Token {
                tok: Tok::Punct(';'),
                start: s,
                end: s,
            });
        }
        toks.extend(line);
    }
    toks
}

/// A paragraph that could not be read, with the units its head named (they
/// keep their previous orders).
struct ParaErr {
    err: PErr,
    units: Vec<UnitId>,
}

impl From<PErr> for ParaErr {
    fn from(err: PErr) -> Self {
        ParaErr {
            err,
            units: Vec::new(),
        }
    }
}

/// Everything the player may head a paragraph with: the units he commands
/// and his officers.
fn heads(ctx: &ParseContext) -> Vec<Candidate<Head>> {
    let mut out: Vec<Candidate<Head>> = ctx
        .own_units()
        .into_iter()
        .map(|c| Candidate {
            display: c.display,
            words: c.words,
            target: Head::Unit(c.target),
        })
        .collect();
    out.extend(ctx.own_officers().into_iter().map(|c| Candidate {
        display: c.display,
        words: c.words,
        target: Head::Officer(c.target),
    }));
    out
}

/// An example order for error messages, from the scenario being played:
/// the first unit the player commands.
fn example_head(ctx: &ParseContext) -> String {
    ctx.own_units()
        .into_iter()
        .find(|c| ctx.commands(c.target))
        .map(|c| c.display)
        .unwrap_or_else(|| "2nd Wisconsin".to_string())
}

/// What a head names, read leniently: the name as written; else without a
/// leading rank ("Gen. Gibbon", "Lt. Col. …"); else a bare ordinal ("7th")
/// as the one unit under the player's command with that number.
fn resolve_one(
    ctx: &ParseContext,
    cands: &[Candidate<Head>],
    toks: &[Token],
    exact: bool,
) -> Lookup<Head> {
    let lookup = |q: &[String], c: &[Candidate<Head>]| {
        if exact {
            lookup_exact(q, c)
        } else {
            lookup(q, c)
        }
    };
    let w = words(toks);
    let found = lookup(&w, cands);
    if found != Lookup::NotFound {
        return found;
    }
    let stripped: Vec<String> = w
        .iter()
        .skip_while(|x| RANKS.contains(&x.as_str()))
        .cloned()
        .collect();
    if stripped.is_empty() {
        return Lookup::NotFound;
    }
    if stripped.len() < w.len() {
        let found = lookup(&stripped, cands);
        if found != Lookup::NotFound {
            return found;
        }
    }
    let core: Vec<&String> = stripped
        .iter()
        .filter(|x| !matches!(x.as_str(), "the" | "regiment" | "regt" | "reg"))
        .collect();
    match core.as_slice() {
        [n] if n.starts_with('#') => {
            let mut hits: Vec<(UnitId, String)> = Vec::new();
            for c in ctx.own_units() {
                let Some(u) = ctx.state.unit(c.target) else {
                    continue;
                };
                if ctx.commands(c.target)
                    && norm_words(&u.name).contains(n)
                    && !hits.iter().any(|(id, _)| *id == c.target)
                {
                    hits.push((c.target, u.name.clone()));
                }
            }
            match hits.as_slice() {
                [] => Lookup::NotFound,
                [(one, _)] => Lookup::Found(Head::Unit(*one)),
                many => Lookup::Ambiguous(many.iter().map(|(_, n)| n.clone()).collect()),
            }
        }
        _ => Lookup::NotFound,
    }
}

/// The heads of a paragraph: one name, or several joined by `&`, `and`,
/// `,`, `+` or `/` ("2nd Wis & 7th Wis:"), each read by [`resolve_one`].
fn resolve_heads(
    ctx: &ParseContext,
    cands: &[Candidate<Head>],
    toks: &[Token],
    exact: bool,
) -> Lookup<Vec<Head>> {
    let single = resolve_one(ctx, cands, toks, exact);
    if let Lookup::Found(h) = single {
        return Lookup::Found(vec![h]);
    }
    let parts: Vec<&[Token]> = toks
        .split(|t| matches!(t.tok, Tok::Punct('&' | ',' | '+' | '/')) || t.is_word("and"))
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() < 2 {
        return match single {
            Lookup::Ambiguous(n) => Lookup::Ambiguous(n),
            _ => Lookup::NotFound,
        };
    }
    let mut out: Vec<Head> = Vec::new();
    for part in parts {
        match resolve_one(ctx, cands, part, exact) {
            Lookup::Found(h) => {
                if !out.contains(&h) {
                    out.push(h);
                }
            }
            Lookup::Ambiguous(n) => return Lookup::Ambiguous(n),
            Lookup::NotFound => {
                return match single {
                    Lookup::Ambiguous(n) => Lookup::Ambiguous(n),
                    _ => Lookup::NotFound,
                };
            }
        }
    }
    Lookup::Found(out)
}

/// The heads written before a paragraph's colon, read as written; else
/// after a sender and an addressee ("Baylor to Col. Botts, 2nd Va:": the
/// unit after the last comma or 'to'); else forgiving one slip of the pen
/// in a name ("2nd Wiscosin:"), which the receipt then reads back.
fn read_heads(
    ctx: &ParseContext,
    cands: &[Candidate<Head>],
    toks: &[Token],
    written: &str,
) -> (Lookup<Vec<Head>>, Option<String>) {
    let exact = resolve_heads(ctx, cands, toks, true);
    if exact != Lookup::NotFound {
        return (exact, None);
    }
    // "Battery B (Campbell):": a remark in brackets after the name.
    if let Some(open) = toks.iter().position(|t| t.is_punct('('))
        && open > 0
    {
        let bare = toks.get(..open).unwrap_or_default();
        let found = resolve_heads(ctx, cands, bare, true);
        if found != Lookup::NotFound {
            return (found, None);
        }
        // "Col. Fairchild (2nd Wis):": a colonel the scenario does not
        // know, with his regiment in brackets: the unit in brackets.
        let close = toks
            .iter()
            .rposition(|t| t.is_punct(')'))
            .unwrap_or(toks.len());
        if close == toks.len() || close + 1 == toks.len() {
            let inner = toks.get(open + 1..close).unwrap_or_default();
            if let Lookup::Found(h) = resolve_heads(ctx, cands, inner, true)
                && h.iter().all(|h| matches!(h, Head::Unit(_)))
            {
                let note = format!(
                    "'{written}' read as {}, the unit in brackets",
                    span_text_names(ctx, &h)
                );
                return (Lookup::Found(h), Some(note));
            }
        }
    }
    for k in (1..toks.len()).rev() {
        let cut = toks.get(k - 1).is_some_and(|t| {
            matches!(t.tok, Tok::Punct(',')) || t.is_word("to") || t.is_word("for")
        });
        if !cut {
            continue;
        }
        let rest = toks.get(k..).unwrap_or_default();
        if let Lookup::Found(h) = resolve_heads(ctx, cands, rest, true)
            && h.iter().all(|h| matches!(h, Head::Unit(_)))
        {
            return (Lookup::Found(h), None);
        }
    }
    if let Some(all) = whole_command(ctx, toks) {
        return (Lookup::Found(all), None);
    }
    match resolve_heads(ctx, cands, toks, false) {
        Lookup::Found(h) => {
            let names: Vec<String> = h
                .iter()
                .map(|h| match h {
                    Head::Unit(u) => ctx.call_unit(*u),
                    Head::Officer(o) => ctx
                        .state
                        .officer(*o)
                        .map(|o| o.name.clone())
                        .unwrap_or_default(),
                })
                .collect();
            let note = format!("'{written}' read as {}", names.join(" and "));
            (Lookup::Found(h), Some(note))
        }
        other => (other, None),
    }
}

/// "Should the enemy break, ...", "If pressed, ...", "In case the
/// Yankees advance, ...": the written condition that opens a paragraph
/// (up to its comma), or `None`.
fn condition_first(toks: &[Token]) -> Option<(usize, usize)> {
    let first = toks.first()?.word()?;
    let opens = matches!(first, "if" | "should" | "unless" | "whenever" | "in")
        && (first != "in" || toks.get(1).is_some_and(|t| t.is_word("case")))
        && (first != "should"
            || toks.get(1).is_some_and(|t| {
                t.word().is_some_and(|w| {
                    matches!(
                        w,
                        "the" | "they" | "we" | "you" | "our" | "it" | "he" | "any" | "enemy"
                    )
                })
            }));
    if !opens {
        return None;
    }
    let comma = toks.iter().take(16).position(|t| t.is_punct(','))?;
    let (a, b) = (toks.first()?, toks.get(comma.checked_sub(1)?)?);
    Some((a.start, b.end))
}

/// A rank and a name opening a sentence without a colon ("Gen. Trimble
/// will go ...", "Captain Campbell will limber ..."): the officer, or the
/// unit the name is the possessive of in its aliases ("Campbell's
/// battery"), and the order after the name (and its 'will').
fn ranked_head(
    ctx: &ParseContext,
    toks: &[Token],
    cands: &[Candidate<Head>],
) -> Option<(Head, Vec<Token>)> {
    let mut k = 0;
    while toks
        .get(k)
        .and_then(Token::word)
        .is_some_and(|w| RANKS.contains(&norm_word(w).as_str()))
    {
        k += 1;
        if toks.get(k).is_some_and(|t| t.is_punct('.')) {
            k += 1;
        }
    }
    if k == 0 {
        return None;
    }
    let rest = toks.get(k..)?;
    let name = rest.first()?.word()?;
    let modal = |j: usize| {
        rest.get(j)
            .and_then(Token::word)
            .is_some_and(|w| matches!(w, "will" | "shall" | "must" | "should" | "is" | "to"))
    };
    if !modal(1) {
        return None;
    }
    let mut body_at = 2;
    if rest.get(1).is_some_and(|t| t.is_word("is")) && rest.get(2).is_some_and(|t| t.is_word("to"))
    {
        body_at = 3;
    }
    if !rest
        .get(body_at)
        .and_then(Token::word)
        .is_some_and(is_verb_word)
    {
        return None;
    }
    let body = rest.get(body_at..)?.to_vec();
    let one = rest.get(..1)?;
    if let Lookup::Found(h) = lookup_exact(&words(one), cands)
        && matches!(h, Head::Officer(_))
    {
        return Some((h, body));
    }
    // "Campbell" for "Campbell's battery" (the possessive is dropped in a
    // name's words).
    let name = norm_word(name);
    let mut units: Vec<Head> = cands
        .iter()
        .filter(|c| {
            matches!(c.target, Head::Unit(u) if ctx.commands(u))
                && c.words.len() == 2
                && c.words.first() == Some(&name)
                && c.words.get(1).is_some_and(|w| {
                    matches!(w.as_str(), "battery" | "guns" | "artillery" | "regiment")
                })
        })
        .map(|c| c.target)
        .collect();
    units.dedup();
    match units.as_slice() {
        [one] => Some((*one, body)),
        _ => None,
    }
}

/// "The 5th, 27th and 33rd Virginia will ...", "the 2nd Virginia, on its
/// left, will advance ...": a sentence that opens with one or more of the
/// player's units and its 'will' (or 'is to'), within its first words.
fn opens_unit_sentence(ctx: &ParseContext, toks: &[Token]) -> bool {
    let first_ok = toks.first().is_some_and(|t| {
        t.is_word("the")
            || matches!(t.tok, Tok::Number(_))
            || t.word()
                .is_some_and(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
    });
    if !first_ok {
        return false;
    }
    let cands = heads(ctx);
    let Some((_, body, _)) = prose_unit(ctx, &cands, toks, 0) else {
        return false;
    };
    let Some(b) = body.first() else {
        return false;
    };
    let Some(k) = toks.iter().position(|t| t.start == b.start) else {
        return false;
    };
    k <= 14
        && toks.get(..k).unwrap_or_default().iter().any(|t| {
            t.word()
                .is_some_and(|w| matches!(w, "will" | "shall" | "must" | "is" | "are"))
        })
}

/// "I shall ride to the 27th", "I will go to the farm": the player's one
/// officer, and the order after the modal; `None` unless he has exactly
/// one officer and a verb follows.
fn first_person<'t>(ctx: &ParseContext, toks: &'t [Token]) -> Option<(OfficerId, &'t [Token])> {
    if !toks.first().is_some_and(|t| t.is_word("i")) {
        return None;
    }
    let mine = ctx.own_officers();
    let [one] = mine.as_slice() else {
        return None;
    };
    let mut k = 1;
    while toks.get(k).and_then(Token::word).is_some_and(|w| {
        matches!(
            w,
            "shall"
                | "will"
                | "must"
                | "am"
                | "going"
                | "to"
                | "intend"
                | "now"
                | "myself"
                | "then"
        )
    }) {
        k += 1;
    }
    let rest = toks.get(k..)?;
    rest.first()
        .and_then(Token::word)
        .is_some_and(is_verb_word)
        .then_some((one.target, rest))
}

/// "send the cavalry round their left flank": an arm named in an
/// unreadable paragraph that the player has no unit of, or `None`.
fn missing_arm(ctx: &ParseContext, toks: &[Token]) -> Option<&'static str> {
    use crate::rules::iron_brigade::kinds::Arm;
    let named = toks
        .iter()
        .find_map(|t| match norm_word(t.word()?).as_str() {
            "cavalry" | "cav" | "horse" | "horsemen" | "troopers" | "dragoons" => {
                Some((Arm::Cavalry, "cavalry"))
            }
            _ => None,
        })?;
    let has = ctx
        .state
        .units
        .iter()
        .any(|u| ctx.commands(u.id) && u.arm == named.0);
    (!has).then_some(named.1)
}

/// The units the player commands, listed for an answer.
fn own_unit_list(ctx: &ParseContext) -> String {
    let names: Vec<String> = ctx
        .state
        .units
        .iter()
        .filter(|u| ctx.commands(u.id))
        .map(|u| ctx.call_unit(u.id))
        .collect();
    names.join(", ")
}

/// The names of heads, joined for a receipt's note.
fn span_text_names(ctx: &ParseContext, heads: &[Head]) -> String {
    heads
        .iter()
        .map(|h| match h {
            Head::Unit(u) => ctx.call_unit(*u),
            Head::Officer(o) => ctx
                .state
                .officer(*o)
                .map(|o| o.name.clone())
                .unwrap_or_default(),
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// "All regiments:", "The brigade:", "All my batteries:", "Whole
/// command:": every unit the player commands, of one arm when the words
/// name one (regiments and infantry; batteries, guns and artillery), or
/// `None` when the words are anything else.
fn whole_command(ctx: &ParseContext, toks: &[Token]) -> Option<Vec<Head>> {
    use crate::rules::iron_brigade::kinds::Arm;
    const WORDS: &[&str] = &[
        "all",
        "the",
        "of",
        "my",
        "our",
        "your",
        "units",
        "unit",
        "regiments",
        "regiment",
        "regts",
        "troops",
        "brigade",
        "whole",
        "entire",
        "command",
        "infantry",
        "batteries",
        "battery",
        "guns",
        "artillery",
        "everyone",
        "everybody",
        "every",
        "in",
        "this",
    ];
    const ALL: &[&str] = &[
        "all",
        "brigade",
        "whole",
        "entire",
        "every",
        "everyone",
        "everybody",
        "command",
    ];
    let w = words(toks);
    if w.is_empty()
        || !w.iter().all(|x| WORDS.contains(&x.as_str()))
        || !w.iter().any(|x| ALL.contains(&x.as_str()))
    {
        return None;
    }
    let has = |set: &[&str]| w.iter().any(|x| set.contains(&x.as_str()));
    let arm = if has(&["regiments", "regiment", "regts", "infantry"]) {
        Some(Arm::Infantry)
    } else if has(&["batteries", "battery", "guns", "artillery"]) {
        Some(Arm::Artillery)
    } else {
        None
    };
    let mut out: Vec<Head> = Vec::new();
    for c in ctx.own_units() {
        let Some(u) = ctx.state.unit(c.target) else {
            continue;
        };
        let h = Head::Unit(c.target);
        if ctx.commands(c.target) && arm.is_none_or(|a| u.arm == a) && !out.contains(&h) {
            out.push(h);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// "I want the 15th Alabama to move to ...", "Sir, the 2nd Wisconsin
/// will hold ...", "Please have the 2nd Virginia fall back ...": the first
/// of the player's units named in the opening words, then `will`, `is
/// to`, `to` (or nothing) and the order. The words before the unit change
/// nothing.
fn prose_unit(
    ctx: &ParseContext,
    cands: &[Candidate<Head>],
    toks: &[Token],
    first: usize,
) -> Option<(Vec<Head>, Vec<Token>, Option<OfficerId>)> {
    let units: Vec<Candidate<Head>> = cands
        .iter()
        .filter(|c| matches!(c.target, Head::Unit(_)))
        .cloned()
        .collect();
    for start in first..toks.len().min(10) {
        // "move up behind the 2nd Wisconsin and fire at A": a unit after
        // a word that relates to it (a place beside it, a unit to follow
        // or support) is what the order is about, not who is ordered.
        const RELATES: &[&str] = &[
            "behind",
            "to",
            "with",
            "of",
            "on",
            "near",
            "beside",
            "besides",
            "toward",
            "towards",
            "from",
            "at",
            "upon",
            "into",
            "past",
            "by",
            "between",
            "before",
            "support",
            "supporting",
            "follow",
            "following",
            "conform",
            "join",
            "cover",
            "relieve",
            "reinforce",
            "alongside",
            "abreast",
            "around",
            "round",
        ];
        let before = toks
            .get(..start)
            .unwrap_or_default()
            .iter()
            .rev()
            .find(|t| !t.is_word("the"));
        let relates = |t: &Token| RELATES.iter().any(|w| t.is_word(w));
        if before.is_some_and(relates) || toks.get(start).is_some_and(relates) {
            continue;
        }
        // "The 5th, 27th and 33rd Virginia will ...": several numbers
        // sharing one name, read together (never only the last of them).
        let numbered = toks
            .get(start..start + 1)
            .is_some_and(|t| words(t).iter().any(|x| x.starts_with('#')));
        let joined_next = toks
            .get(start + 1)
            .is_some_and(|t| t.is_word("and") || matches!(t.tok, Tok::Punct('&' | ',')));
        let mut shared: Option<(Vec<Head>, usize)> = None;
        if numbered && joined_next {
            for m in (start + 3..=toks.len().min(start + 12)).rev() {
                if let Some(span) = toks.get(start..m)
                    && let Lookup::Found(many) = resolve_heads(ctx, &units, span, true)
                    && many.len() > 1
                {
                    shared = Some((many, m));
                    break;
                }
            }
        }
        for n in (1..=toks.len().saturating_sub(start).min(8)).rev() {
            let Some(unit_toks) = toks.get(start..start + n) else {
                continue;
            };

            if unit_toks.last().is_some_and(|t| t.word().is_none()) {
                continue;
            }
            let w = words(unit_toks);
            // A number in it ("the 26th Georgia"), or the whole name: not
            // one word of a place ("the north woods" is no North Carolina).
            if !w.iter().any(|x| x.starts_with('#')) {
                continue;
            }
            let (mut hs, mut k) = match &shared {
                Some((many, m)) => (many.clone(), *m),
                None => {
                    let Lookup::Found(h) = lookup_exact(&w, &units) else {
                        continue;
                    };
                    (vec![h], start + n)
                }
            };
            // "The 2nd and 7th Wisconsin will advance ...": several units
            // joined by 'and', '&' or ',' (read as a paragraph's heads).
            if shared.is_none()
                && let Some((many, m)) = more_heads(ctx, &units, toks, start, k)
            {
                hs = many;
                k = m;
            }
            // "Have the 5th Va. pour ...": the abbreviation's dot.
            if toks.get(k).is_some_and(|t| {
                t.is_punct('.') && unit_toks.last().is_some_and(|u| u.end == t.start)
            }) {
                k += 1;
            }
            let at = |k: usize, w: &str| toks.get(k).is_some_and(|t| t.is_word(w));
            // "The 27th Virginia, being much cut up, will reform ...", "the
            // 2nd Virginia, on its left, will advance ...": words set off
            // by commas between the unit and its 'will' describe it.
            if toks.get(k).is_some_and(|t| t.is_punct(','))
                && let Some(close) = (k + 1..toks.len().min(k + 9))
                    .find(|&j| toks.get(j).is_some_and(|t| t.is_punct(',')))
                && ["will", "shall", "must", "should", "is"]
                    .iter()
                    .any(|w| at(close + 1, w))
                && !toks
                    .get(k + 1..close)
                    .unwrap_or_default()
                    .iter()
                    .any(|t| t.word().is_some_and(|w| is_verb_word(w) && w != "cut"))
            {
                k = close + 1;
            }
            if ["will", "shall", "must", "should"].iter().any(|w| at(k, w)) {
                k += 1;
            } else if (at(k, "is") || at(k, "are")) && at(k + 1, "to") {
                k += 2;
            } else if at(k, "to") {
                k += 1;
            }
            // "you will advance your regiment, the 6th Wisconsin, in line
            // ...": the unit named in apposition; the order is the verb
            // before it and the words after it.
            let noun = |j: usize| {
                toks.get(j).is_some_and(|t| {
                    t.word().is_some_and(|w| {
                        matches!(
                            w,
                            "regiment"
                                | "battery"
                                | "command"
                                | "men"
                                | "brigade"
                                | "guns"
                                | "troops"
                                | "boys"
                                | "battalion"
                        )
                    })
                })
            };
            let comma = |j: usize| toks.get(j).is_some_and(|t| t.is_punct(','));
            // The name's optional words may have taken in "regiment ,".
            let apposition = if noun(start) && comma(start + 1) {
                Some(start + 1)
            } else if start >= 2 && comma(start - 1) && noun(start - 2) {
                Some(start - 1)
            } else {
                None
            };
            if let Some(comma_at) = apposition
                && let Some(v) = (0..comma_at.saturating_sub(1))
                    .rev()
                    .find(|&j| toks.get(j).and_then(Token::word).is_some_and(is_verb_word))
            {
                let after = if toks.get(k).is_some_and(|t| t.is_punct(',')) {
                    k + 1
                } else {
                    k
                };
                let mut out: Vec<Token> = toks.get(v..comma_at).unwrap_or_default().to_vec();
                out.extend(toks.get(after..).unwrap_or_default().iter().cloned());
                return Some((hs, out, None));
            }
            let body = toks.get(k..)?;
            if body.first().and_then(Token::word).is_some() {
                // "Move the 26th Georgia forward ...": the verb before it.
                let mut out = Vec::new();
                if let Some(v) = start.checked_sub(1).and_then(|j| toks.get(j)).filter(|t| {
                    t.word().is_some_and(|w| {
                        matches!(
                            w,
                            "move"
                                | "advance"
                                | "march"
                                | "send"
                                | "bring"
                                | "withdraw"
                                | "retire"
                                | "take"
                        )
                    })
                }) {
                    if !v.is_word("send") && !v.is_word("bring") && !v.is_word("take") {
                        out.push(v.clone());
                    } else {
                        let mut m = v.clone();
                        m.tok = Tok::Word("move".to_string());
                        out.push(m);
                    }
                }
                out.extend(body.iter().cloned());
                return Some((hs, out, None));
            }
        }
    }
    None
}

/// A line of a few words that opens with "orders", "turn" or the like and
/// names nothing: a title.
fn is_title(toks: &[Token]) -> bool {
    is_heading(toks) || is_title_words(toks)
}

/// A heading the writer puts over his orders, naming no unit and giving
/// no order: a dateline ("Headquarters, Gibbon's Brigade, on the
/// Warrenton Turnpike, 6.40 p.m."), or a few words of command and arm
/// ("STONEWALL BRIGADE - ORDERS TURN 4", "Infantry", "Artillery",
/// "Lawton's Brigade", "Left wing").
fn is_heading(toks: &[Token]) -> bool {
    let words: Vec<&str> = toks.iter().filter_map(Token::word).collect();
    let Some(first) = words.first() else {
        return false;
    };
    // A dateline opens with the headquarters it was written at.
    if matches!(
        *first,
        "headquarters" | "hdqrs" | "hdqrs." | "hqrs" | "hq" | "hqs"
    ) && toks.len() <= 24
    {
        return true;
    }
    const HEADING: &[&str] = &[
        "brigade",
        "brigades",
        "bde",
        "bgde",
        "brig",
        "division",
        "div",
        "corps",
        "wing",
        "wings",
        "infantry",
        "inf",
        "artillery",
        "arty",
        "art",
        "cavalry",
        "cav",
        "reserve",
        "reserves",
        "left",
        "right",
        "centre",
        "center",
        "front",
        "line",
        "first",
        "second",
        "the",
        "of",
        "and",
        "orders",
        "order",
        "turn",
        "stonewall",
        "iron",
        "union",
        "confederate",
        "army",
        "regiments",
        "batteries",
        "guns",
        "skirmishers",
        "staff",
        "officers",
        "for",
        "p",
        "m",
        "pm",
        "am",
        "a",
    ];
    // "turn 4" names the turn; "turn" alone would be a verb.
    let verb = toks.iter().enumerate().any(|(k, t)| {
        t.word().is_some_and(|w| {
            is_verb_word(w)
                && !(w == "turn"
                    && toks
                        .get(k + 1)
                        .is_some_and(|n| matches!(n.tok, Tok::Number(_)) || n.is_punct(':')))
        })
    });
    // "Gibbon turn 4", "Doubleday - turn 4 moves": a name over the turn.
    let turn_n = toks
        .windows(2)
        .any(|w| w[0].is_word("turn") && matches!(w[1].tok, Tok::Number(_)))
        // "GIBBON t6": a name over the turn, nothing else.
        || (words.len() <= 3 && words.iter().any(|w| turn_short(w)));
    if turn_n && !verb && words.len() <= 6 {
        return true;
    }
    words.len() <= 8
        && !verb
        && words.iter().all(|w| {
            HEADING.contains(w)
                || w.chars().all(|c| c.is_ascii_digit() || c == '.')
                || w.ends_with("'s")
                || w.ends_with('\u{2019}')
        })
        && words
            .iter()
            .any(|w| HEADING.contains(w) && !matches!(*w, "the" | "of" | "and" | "for" | "a"))
}

/// "t6", "T3": a turn, as a phone writes it ("GIBBON t6").
fn turn_short(w: &str) -> bool {
    w.strip_prefix('t')
        .is_some_and(|n| !n.is_empty() && n.len() <= 3 && n.chars().all(|c| c.is_ascii_digit()))
}

fn is_title_words(toks: &[Token]) -> bool {
    let title_word = |w: &str| {
        matches!(
            norm_word(w).as_str(),
            "orders" | "order" | "turn" | "dispositions" | "instructions" | "movements"
        )
    };
    (toks.len() <= 8 && toks.first().and_then(Token::word).is_some_and(title_word))
        // "Trimbles orders", "Gibbon's orders for turn 3", "My orders":
        // a few words ending in "orders" (or with it second), no verb.
        || (toks.len() <= 6
            && toks.iter().take(2).any(|t| {
                t.word()
                    .is_some_and(|w| matches!(norm_word(w).as_str(), "orders" | "dispositions"))
            })
            && !toks
                .iter()
                .any(|t| t.word().is_some_and(is_verb_word)))
}

/// "Col. Fairchild will advance the 2nd Wisconsin to …": a rank and a
/// name, `will` (`shall`, `should`, `must`, `is to`), a verb and the unit
/// it is for. The unit is the head; the order is the verb and what follows
/// the unit. When the name is one of the player's officers he issues it.
fn officer_will(
    ctx: &ParseContext,
    cands: &[Candidate<Head>],
    toks: &[Token],
) -> Option<(Head, Vec<Token>, Option<OfficerId>)> {
    // Whoever is addressed ("Col. Fairchild", "Colonel, you"): any few
    // words before the 'will'.
    let k = toks.iter().take(8).position(|t| {
        matches!(
            t.word(),
            Some("will" | "shall" | "should" | "must" | "is" | "to")
        )
    })?;
    let name = toks.get(..k)?;
    let mut v = k + 1;
    if toks.get(k).is_some_and(|t| t.is_word("is")) && toks.get(v).is_some_and(|t| t.is_word("to"))
    {
        v += 1;
    }
    let verb = toks.get(v).filter(|t| t.word().is_some())?;
    let units: Vec<Candidate<Head>> = cands
        .iter()
        .filter(|c| matches!(c.target, Head::Unit(_)))
        .cloned()
        .collect();
    let after = toks.get(v + 1..)?;
    for n in (1..=after.len().min(8)).rev() {
        let unit_toks = after.get(..n)?;
        if let Lookup::Found(h) = lookup(&words(unit_toks), &units) {
            // "will take the 2nd Wisconsin forward", "will lead the 7th
            // to ...": the unit moves.
            let mut verb = verb.clone();
            if verb.word().is_some_and(|w| {
                matches!(w, "take" | "lead" | "send" | "bring" | "conduct" | "march")
            }) {
                verb.tok = Tok::Word("move".to_string());
            }
            let mut body = vec![verb];
            body.extend(after.get(n..).unwrap_or_default().iter().cloned());
            let stripped: Vec<String> = words(name)
                .into_iter()
                .skip_while(|x| RANKS.contains(&x.as_str()))
                .collect();
            let by = match lookup(&stripped, &ctx.own_officers()) {
                Lookup::Found(o) => Some(o),
                _ => None,
            };
            return Some((h, body, by));
        }
    }
    None
}

/// A sentence of a paragraph that could not be read, with its own span:
/// the paragraph's other sentences still count.
type SentenceErr = (ParaErr, usize, usize);

/// Read one paragraph into its items (one per unit its head names), and
/// the sentences of it that could not be read when the others could.
fn paragraph(
    text: &str,
    ctx: &ParseContext,
    para: &Para,
    ps: usize,
    pe: usize,
    issuer: Option<OfficerId>,
) -> Result<(Vec<Item>, Vec<SentenceErr>), ParaErr> {
    let toks = para_tokens(text, para, false);
    let first = match read_paragraph(text, ctx, &toks, ps, pe, issuer) {
        // "The 7th Wisconsin will deploy into line. The 19th Indiana will
        // advance ...": read whole, the first unit took every sentence's
        // order (blind round 13). When the sentences, read apart and all
        // without error, order more units than the whole did, they are
        // the reading.
        Ok(items) => {
            let heads = |items: &[Item]| {
                let mut h: Vec<(Option<UnitId>, Option<OfficerId>)> = items
                    .iter()
                    .map(|i| match i {
                        Item::Unit { unit, .. } => (Some(*unit), None),
                        Item::Officer { order, .. } => (None, Some(order.officer)),
                    })
                    .collect();
                h.sort_unstable_by_key(|(u, o)| (u.map(|u| u.0), o.map(|o| o.0)));
                h.dedup();
                h.len()
            };
            let stops = toks
                .iter()
                .rev()
                .skip(1)
                .any(|t| t.is_punct('.') || t.is_punct(';'));
            if stops
                && let Some((split, errs)) = sentences(text, ctx, &toks, ps, pe, issuer)
                && errs.is_empty()
                && heads(&split) > heads(&items)
            {
                return Ok((split, errs));
            }
            return Ok((items, Vec::new()));
        }
        Err(e) => e,
    };
    // "2ND WIS - HOLD. 7TH WIS - HOLD.": several orders in one paragraph,
    // each sentence headed by a unit of his.
    let split = match sentences(text, ctx, &toks, ps, pe, issuer) {
        Some((items, errs)) if errs.is_empty() => return Ok((items, errs)),
        other => other,
    };
    if !first.units.is_empty() && para.segments.len() > 1 {
        // "2nd Wisconsin:" and an order on each line below it: each
        // line a step.
        if let Ok(items) = read_paragraph(text, ctx, &para_tokens(text, para, true), ps, pe, issuer)
        {
            return Ok((items, Vec::new()));
        }
    }
    // Some sentences read and some not: everything valid in the mail still
    // counts, and each sentence not read is answered on its own.
    // Several sentences, none read: each answered on its own.
    match split {
        Some((items, errs)) if !items.is_empty() || errs.len() > 1 => Ok((items, errs)),
        // "Thanks. 7th Wisconsin: move up on the right of the 9th ...": the
        // one sentence that is an order of his failed; its own error (the
        // unknown 9th) says more than the whole paragraph's ("no unit
        // called 'Thanks. 7th Wisconsin'").
        Some((items, errs))
            if first.units.is_empty() && errs.iter().all(|(e, _, _)| !e.units.is_empty()) =>
        {
            Ok((items, errs))
        }
        _ => Err(first),
    }
}

/// A paragraph read as sentences, when a full stop or ';' is followed by
/// one of the player's units and its order: each sentence its own order.
/// `None` unless there are two or more; the sentences read, and those
/// that could not be, each with its span.
fn sentences(
    text: &str,
    ctx: &ParseContext,
    toks: &[Token],
    ps: usize,
    pe: usize,
    issuer: Option<OfficerId>,
) -> Option<(Vec<Item>, Vec<SentenceErr>)> {
    let cands = heads(ctx);
    // Each cut: where a sentence ends and where the next begins (after a
    // full stop or ';', or at the start of a line that opens with a unit:
    // one order a line, with no blank lines between them).
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        // "The 4th Virginia will lie down ..., and the 2nd Virginia will
        // advance ...": ', and' before another of his units and its
        // 'will' starts a sentence of its own.
        if t.is_punct(',')
            && toks.get(k + 1).is_some_and(|n| n.is_word("and"))
            && let Some(rest) = toks.get(k + 2..)
            && prose_unit(ctx, &cands, rest, 0).is_some_and(|(_, body, _)| {
                !body.is_empty() && rest.len().saturating_sub(body.len()) <= 12
            })
            && rest.iter().take(12).any(|w| {
                w.word()
                    .is_some_and(|w| matches!(w, "will" | "shall" | "must" | "is" | "are"))
            })
        {
            cuts.push((k, k + 2));
            continue;
        }
        // "56th pa fall back 100 yds and rally, doubleday go w/ them": a
        // comma before another of his units or officers and its verb.
        // Not after a condition ("Should the enemy's guns open upon us,
        // the 56th Pennsylvania will ..."): that is refused whole.
        let sentence_start = cuts.last().map(|&(_, n)| n).unwrap_or(0);
        if t.is_punct(',')
            && toks
                .get(sentence_start..=k)
                .is_none_or(|s| condition_first(s).is_none())
            // The clause before the comma is an order itself (it has a
            // verb): "Battery B, 4th US Artillery: fire ..." is one name.
            && toks
                .get(sentence_start..k)
                .is_some_and(|s| s.iter().any(|t| t.word().is_some_and(is_verb_word)))
            && let Some(rest) = toks.get(k + 1..)
            && headless(ctx, rest, &cands).is_some()
        {
            cuts.push((k, k + 1));
            continue;
        }
        let stop = t.is_punct('.') || t.is_punct(';');
        let line_break = !stop
            && toks
                .get(k + 1)
                .and_then(|n| text.get(t.end..n.start))
                .is_some_and(|gap| gap.contains('\n'));
        if !(stop || line_break) {
            continue;
        }
        // "Capt. Campbell": the dot of a rank, not a full stop.
        let rank_dot = t.is_punct('.')
            && k.checked_sub(1).and_then(|j| toks.get(j)).is_some_and(|p| {
                p.end == t.start
                    && p.word()
                        .is_some_and(|w| RANKS.contains(&norm_word(w).as_str()))
            });
        if rank_dot {
            continue;
        }
        let rest = toks.get(k + 1..).unwrap_or_default();
        if headless(ctx, rest, &cands).is_some()
            || opens_unit_sentence(ctx, rest)
            || first_person(ctx, rest).is_some()
            || head_colon(rest).is_some_and(|c| {
                resolve_heads(ctx, &cands, rest.get(..c).unwrap_or_default(), true)
                    != Lookup::NotFound
            })
        {
            cuts.push(if stop { (k, k + 1) } else { (k + 1, k + 1) });
        }
    }
    if cuts.is_empty() {
        return None;
    }
    let mut items: Vec<Item> = Vec::new();
    let mut errs = Vec::new();
    let mut from = 0;
    for (end, next) in cuts
        .iter()
        .copied()
        .chain(std::iter::once((toks.len(), toks.len())))
    {
        let part = toks.get(from..end).unwrap_or_default();
        from = next;
        if part.is_empty() {
            continue;
        }
        // "..., doubleday go w/ them": 'them' is the unit of the sentence
        // before; its name stands in for the pronoun, so the receipt says
        // which unit he goes with.
        let last_unit = items.iter().rev().find_map(|i| match i {
            Item::Unit { unit, .. } => Some(*unit),
            Item::Officer { .. } => None,
        });
        let named;
        let part = match last_unit.and_then(|u| ctx.state.unit(u)) {
            Some(u) => {
                named = with_antecedent(part, &u.name);
                named.as_slice()
            }
            None => part,
        };
        // Each sentence its own span, so that what the receipt notes of
        // one (a place chosen, a route) is not repeated under the others.
        let (s, e) = match (part.first(), part.last()) {
            (Some(a), Some(b)) => (a.start.max(ps), b.end.min(pe)),
            _ => (ps, pe),
        };
        match read_paragraph(text, ctx, part, s, e, issuer) {
            Ok(read) => items.extend(read),
            // "Thanks. 7th Wisconsin: ...", "Fair enough. Trimble rides
            // forward ...": a pleasantry is no failed order.
            Err(_) if pleasantry(part) => {}
            Err(err) => errs.push((err, s, e)),
        }
    }
    Some((items, errs))
}

/// Whether every full stop inside `text` follows a number ("The 19.
/// Indiana must attack ..."): only then is a paragraph whose sentences
/// each failed tried whole. "The 7th Wisconsin will deploy .... The 19th
/// Indiana will advance ...." is three orders, and read whole it gave the
/// 7th Wisconsin all three (blind round 13).
fn only_ordinal_stops(text: &str) -> bool {
    let t = text.trim_end().trim_end_matches(['.', '!']);
    t.match_indices('.').all(|(i, _)| {
        let before = t.get(..i).unwrap_or("");
        let word = before
            .rsplit(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        !word.is_empty() && word.len() <= 3 && word.chars().all(|c| c.is_ascii_digit())
            || matches!(
                word.to_lowercase().as_str(),
                "col"
                    | "gen"
                    | "capt"
                    | "maj"
                    | "lt"
                    | "brig"
                    | "va"
                    | "ga"
                    | "wis"
                    | "ind"
                    | "pa"
                    | "ny"
                    | "ala"
                    | "nc"
                    | "no"
                    | "st"
                    | "mr"
                    | "regt"
                    | "bty"
                    | "vols"
            )
    })
}

/// Whether normalised words `written` name a unit or officer whose
/// normalised name is `words`: a number it has ("the 21st", "33 Va"), or a
/// distinctive word of it of four letters or more ("Wooding", "Trimble").
fn names_in(written: &[String], words: &[String]) -> bool {
    const GENERIC: &[&str] = &[
        "battery",
        "artillery",
        "brigade",
        "division",
        "section",
        "battalion",
        "light",
        "horse",
        "legion",
        "general",
        "colonel",
        "captain",
        "major",
        "regiment",
        "infantry",
        "volunteers",
    ];
    words.iter().any(|w| {
        if w.starts_with('#') {
            return written.contains(w);
        }
        w.len() >= 4
            && !GENERIC.contains(&w.as_str())
            && written.iter().any(|q| {
                q == w || (q.len() >= 4 && !q.starts_with('#') && w.starts_with(q.as_str()))
            })
    })
}

/// A sentence that is only a pleasantry: "Thanks", "Thank you", "Fair
/// enough", "Right", "Understood", "Very well, sir" (at most four words,
/// each of them one of these).
fn pleasantry(toks: &[Token]) -> bool {
    const WORDS: &[&str] = &[
        "thanks",
        "thank",
        "you",
        "thx",
        "ta",
        "cheers",
        "fair",
        "enough",
        "right",
        "ok",
        "okay",
        "understood",
        "noted",
        "good",
        "very",
        "well",
        "fine",
        "sir",
        "all",
        "hello",
        "hi",
        "hey",
        "evening",
        "morning",
        "afternoon",
        "great",
        "excellent",
        "splendid",
        "alright",
        "so",
        "then",
        "gents",
        "gentlemen",
        "folks",
        "ump",
        "umpire",
        "adjutant",
        "much",
        "for",
        "the",
        "report",
        "again",
    ];
    let words: Vec<&str> = toks.iter().filter_map(Token::word).collect();
    !words.is_empty()
        && words.len() <= 5
        && toks
            .iter()
            .all(|t| t.word().is_some() || matches!(t.tok, Tok::Punct(',' | '.' | '!')))
        && words.iter().all(|w| WORDS.contains(w))
}

/// `part` with "them" or "it" after "with", "w/" or "join" replaced by the
/// words of `name` (each spanning the pronoun).
fn with_antecedent(part: &[Token], name: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(part.len() + 4);
    for (k, t) in part.iter().enumerate() {
        let pronoun = matches!(t.word(), Some("them" | "it"))
            && k.checked_sub(1)
                .and_then(|j| part.get(j))
                .is_some_and(|p| matches!(p.word(), Some("with" | "join" | "accompany")));
        if pronoun {
            for w in name
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|w| !w.is_empty())
            {
                out.push(Token {
                    tok: Tok::Word(w.to_lowercase()),
                    start: t.start,
                    end: t.end,
                });
            }
        } else {
            out.push(t.clone());
        }
    }
    out
}

fn read_paragraph(
    text: &str,
    ctx: &ParseContext,
    toks: &[Token],
    ps: usize,
    pe: usize,
    issuer: Option<OfficerId>,
) -> Result<Vec<Item>, ParaErr> {
    let para_text = text.get(ps..pe).unwrap_or("").trim().to_string();
    let span = Span { start: ps, end: pe };
    // "GIBBON'S BRIGADE - ORDERS", "STONEWALL BRIGADE, TURN 4": a heading
    // the writer put over his orders, even when it names his officer.
    if is_heading(toks) {
        return Ok(Vec::new());
    }
    let cands = heads(ctx);
    let allowed: Vec<Candidate<Head>> = cands
        .iter()
        .filter(|c| match c.target {
            Head::Unit(u) => ctx.commands(u),
            Head::Officer(_) => true,
        })
        .cloned()
        .collect();
    let mut head_note: Option<String> = None;
    let (heads, body, issuer): (Vec<Head>, Vec<Token>, Option<OfficerId>) = match head_colon(toks) {
        Some(c) => {
            let head_toks = toks.get(..c).unwrap_or_default();
            let written = span_text(text, head_toks);
            let (found, note) = read_heads(ctx, &cands, head_toks, &written);
            head_note = note;
            match found {
                Lookup::Found(h) => (h, toks.get(c + 1..).unwrap_or_default().to_vec(), issuer),
                Lookup::Ambiguous(names) => {
                    return Err(PErr {
                        at: ps,
                        message: format!(
                            "'{written}' could mean more than one unit; write the name in full"
                        ),
                        suggestions: names,
                    }
                    .into());
                }
                Lookup::NotFound if toks.len() == c + 1 => {
                    // "Orders for turn 3:" with nothing after it: a heading
                    // the player wrote for himself, not an order.
                    return Ok(Vec::new());
                }
                Lookup::NotFound
                    if prose_unit(ctx, &cands, toks.get(c + 1..).unwrap_or_default(), 0)
                        .is_some() =>
                {
                    // "Colonel Stiles: the 60th Georgia will move ...": the
                    // addressee is no head; the unit named after it is.
                    match prose_unit(ctx, &cands, toks.get(c + 1..).unwrap_or_default(), 0) {
                        Some((h, body, _)) => (h, body, issuer),
                        None => return Ok(Vec::new()),
                    }
                }
                Lookup::NotFound => {
                    return Err(PErr {
                        at: ps,
                        message: format!(
                            "no unit or officer of yours is called '{written}'; start each order with '<unit name>:'"
                        ),
                        suggestions: suggest(&written, &allowed),
                    }
                    .into());
                }
            }
        }
        None if condition_first(toks).is_some() => {
            // "Should the enemy break, the whole brigade will pursue ...":
            // nothing waits on an event (APSoF I.C.1); read at once, the
            // order after the condition would be carried out now.
            let cond = condition_first(toks)
                .and_then(|(a, b)| text.get(a..b))
                .unwrap_or("")
                .to_string();
            let after = toks
                .iter()
                .position(|t| t.is_punct(','))
                .map_or(toks.len(), |k| k + 1);
            let unit =
                prose_unit(ctx, &cands, toks.get(after..).unwrap_or_default(), 0).or_else(|| {
                    headless(ctx, toks.get(after..).unwrap_or_default(), &cands)
                        .map(|(h, r)| (h, r.to_vec(), None))
                });
            let units: Vec<UnitId> = unit
                .iter()
                .flat_map(|(h, _, _)| h.iter())
                .filter_map(|h| match h {
                    Head::Unit(u) if ctx.commands(*u) => Some(*u),
                    _ => None,
                })
                .collect();
            let now = match units.first() {
                Some(u) => format!("'{}: hold'", ctx.call_unit(*u)),
                None => format!("'{}: hold'", example_head(ctx)),
            };
            return Err(ParaErr {
                err: PErr {
                    at: toks.first().map_or(ps, |t| t.start),
                    message: format!(
                        "'{cond}' is a condition Adjutant cannot wait for: the order after it would be carried out at once (APSoF I.C.1: orders are carried out as written, nothing waits on an event). Write what the unit does now, as {now}, and send the rest in the turn it is needed"
                    ),
                    suggestions: Vec::new(),
                },
                units,
            });
        }
        None if is_title(toks)
            && headless(ctx, toks, &cands).is_none_or(|(_, rest)| {
                rest.first().and_then(Token::word).is_some_and(|w| {
                    matches!(norm_word(w).as_str(), "orders" | "order" | "dispositions")
                        || turn_short(w)
                })
            }) =>
        {
            // "Trimbles orders": the writer's own title, not an order of
            // Trimble's.
            return Ok(Vec::new());
        }
        // "I shall ride to the 27th Virginia and rally it in person": the
        // writer's own officer (he has one).
        None if let Some((o, body)) = first_person(ctx, toks) => {
            (vec![Head::Officer(o)], body.to_vec(), issuer)
        }
        // "Gen. Trimble will go along with the 21st Georgia", "Captain
        // Campbell will limber his guns": a rank before an officer's name,
        // or before the captain a battery is called by ("Campbell's
        // battery").
        None if let Some((h, body)) = ranked_head(ctx, toks, &cands) => (vec![h], body, issuer),
        None => match headless(ctx, toks, &cands) {
            Some((h, rest)) => (h, rest.to_vec(), issuer),
            None => match officer_will(ctx, &cands, toks)
                .map(|(h, body, by)| (vec![h], body, by))
                .or_else(|| prose_unit(ctx, &cands, toks, 1))
            {
                Some((h, body, by)) => (h, body, by.or(issuer)),
                None if is_title(toks) => {
                    // "Orders, turn 3", "Dispositions for the morning": a
                    // title the player wrote for himself.
                    return Ok(Vec::new());
                }
                None => {
                    return Err(PErr {
                        at: ps,
                        message: match missing_arm(ctx, toks) {
                            Some(arm) => format!(
                                "you have no {arm} in this battle, so this order is not taken; your units are {}; start each order with '<unit name>:', as in '{}: hold'",
                                own_unit_list(ctx),
                                example_head(ctx)
                            ),
                            None => format!(
                                "expected '<unit name>:' at the start of the order, as in '{}: hold'",
                                example_head(ctx)
                            ),
                        },
                        suggestions: Vec::new(),
                    }
                    .into());
                }
            },
        },
    };
    let mut items = Vec::new();
    let units: Vec<UnitId> = heads
        .iter()
        .filter_map(|h| match h {
            Head::Unit(u) if ctx.commands(*u) => Some(*u),
            _ => None,
        })
        .collect();
    for head in heads {
        let item = one_item(ctx, text, &body, head, ps, pe, issuer, &para_text, span);
        match item {
            Ok(mut i) => {
                if let (Some(n), Item::Unit { notes, .. }) = (&head_note, &mut i) {
                    notes.insert(0, n.clone());
                }
                items.push(i)
            }
            Err(err) => {
                return Err(ParaErr {
                    err,
                    units: units.clone(),
                });
            }
        }
    }
    Ok(items)
}

/// The order a paragraph's body gives to one head.
#[allow(clippy::too_many_arguments)]
fn one_item(
    ctx: &ParseContext,
    text: &str,
    body: &[Token],
    head: Head,
    ps: usize,
    pe: usize,
    issuer: Option<OfficerId>,
    para_text: &str,
    span: Span,
) -> Result<Item, PErr> {
    match head {
        Head::Unit(id) => {
            let Some(unit) = ctx.state.unit(id) else {
                return Err(PErr {
                    at: ps,
                    message: "that unit is no longer on the field".to_string(),
                    suggestions: Vec::new(),
                });
            };
            if !ctx.commands(id) {
                return Err(PErr {
                    at: ps,
                    message: format!(
                        "the {} is not under your command",
                        unit.name.trim_start_matches("the ")
                    ),
                    suggestions: Vec::new(),
                });
            }
            if unit.out_of_battle() {
                let why = if unit.marks.combined_into.is_some() {
                    "it was combined into another unit (APSoF VII.C)"
                } else if unit.marks.left_field {
                    "it left the table"
                } else {
                    "it was destroyed"
                };
                let live: Vec<String> = ctx
                    .state
                    .units_of(ctx.side)
                    .filter(|u| !u.out_of_battle() && ctx.commands(u.id))
                    .map(|u| u.name.clone())
                    .collect();
                return Err(PErr {
                    at: ps,
                    message: format!(
                        "the {} is out of the battle ({why}) and can take no orders{}",
                        unit.name.trim_start_matches("the "),
                        if live.is_empty() {
                            String::new()
                        } else {
                            format!("; your units still in the field: {}", live.join(", "))
                        }
                    ),
                    suggestions: Vec::new(),
                });
            }
            let issued_by = issuer
                .or_else(|| default_issuer(ctx, id))
                .ok_or_else(|| PErr {
                    at: ps,
                    message: "you have no officer on the field to give this order".to_string(),
                    suggestions: Vec::new(),
                })?;
            let mut p = OrderParser::new(ctx, text, body, pe, Some(unit), unit.position);
            let (follows_previous, steps) = p.unit_order()?;
            Ok(Item::Unit {
                unit: id,
                issued_by,
                follows_previous,
                steps,
                notes: p.take_notes(),
                text: para_text.to_string(),
                span,
            })
        }
        Head::Officer(id) => {
            let at = ctx
                .state
                .officer(id)
                .map(|o| o.position)
                .unwrap_or_default();
            let mut p = OrderParser::new(ctx, text, body, pe, None, at);
            let order = p.officer_move(id)?;
            Ok(Item::Officer {
                order,
                text: para_text.to_string(),
                span,
            })
        }
    }
}

/// A paragraph without a colon: "2nd Wisconsin advance to ..." — the
/// longest run of leading words that names a unit or officer, when a verb
/// follows.
/// "The 2nd and 7th Wisconsin will ...": when the unit named in
/// `toks[start..end]` is followed by 'and', '&' or ',' and more names,
/// all the units so joined and where their names end.
fn more_heads(
    ctx: &ParseContext,
    cands: &[Candidate<Head>],
    toks: &[Token],
    start: usize,
    end: usize,
) -> Option<(Vec<Head>, usize)> {
    let joined = toks
        .get(end)
        .is_some_and(|t| t.is_word("and") || matches!(t.tok, Tok::Punct('&' | ',')));
    if !joined {
        return None;
    }
    for m in (end + 2..=toks.len().min(end + 9)).rev() {
        let Some(span) = toks.get(start..m) else {
            continue;
        };
        if let Lookup::Found(many) = resolve_heads(ctx, cands, span, true)
            && many.len() > 1
        {
            return Some((many, m));
        }
    }
    None
}

fn headless<'t>(
    ctx: &ParseContext,
    toks: &'t [Token],
    cands: &[Candidate<Head>],
) -> Option<(Vec<Head>, &'t [Token])> {
    for n in (1..=toks.len().min(8)).rev() {
        let head = toks.get(..n)?;
        // "2nd Wis & 7th Wis - hold": a name does not end in a mark, so
        // that the '&' or ',' after it can join the next name.
        if head
            .last()
            .is_some_and(|t| matches!(t.tok, Tok::Punct(c) if c != '.'))
        {
            continue;
        }
        if let Lookup::Found(h) = lookup(&words(head), cands) {
            let (hs, mut n) = more_heads(ctx, cands, toks, 0, n).unwrap_or((vec![h], n));
            // "6th Wis - adv to the orchard": a dash after the name.
            if toks
                .get(n)
                .is_some_and(|t| matches!(t.tok, Tok::Punct('-' | '–' | '—')))
            {
                n += 1;
            }
            let mut rest = toks.get(n..).unwrap_or_default();
            // "Poague's guns to go forward ...", "Wooding's battery will
            // ...": the unit's name and the noun for it.
            if hs.len() == 1
                && matches!(hs.first(), Some(Head::Unit(_)))
                && rest.first().and_then(Token::word).is_some_and(|w| {
                    matches!(
                        w,
                        "guns" | "pieces" | "battery" | "regiment" | "boys" | "men" | "lads"
                    )
                })
                && rest.get(1).and_then(Token::word).is_some_and(|w| {
                    matches!(
                        w,
                        "to" | "will" | "shall" | "must" | "should" | "is" | "are"
                    ) || is_verb_word(w)
                })
            {
                rest = rest.get(1..).unwrap_or_default();
            }
            // "6th Wis => fire on F": the '=' of an arrow ('-' is a space
            // to the lexer), leaving its '>' for the order.
            if rest.first().is_some_and(|t| t.is_punct('='))
                && rest.get(1).is_some_and(|t| t.is_punct('>'))
            {
                rest = rest.get(1..).unwrap_or_default();
            }
            let arrow = rest
                .first()
                .is_some_and(|t| t.is_punct('>') || t.is_punct('\u{2192}'));
            // "76th New York to come up ...", "19th Indiana will hold":
            // the 'to' or 'will' of a sentence, not a destination.
            let at = |r: &[Token], k: usize, w: &str| r.get(k).is_some_and(|t| t.is_word(w));
            let skip = if ["to", "will", "shall", "must", "should"]
                .iter()
                .any(|w| at(rest, 0, w))
            {
                1
            } else if (at(rest, 0, "is") || at(rest, 0, "are")) && at(rest, 1, "to") {
                2
            } else {
                0
            };
            if skip > 0
                && rest
                    .get(skip)
                    .and_then(Token::word)
                    .is_some_and(is_verb_word)
            {
                rest = rest.get(skip..).unwrap_or_default();
            }
            // "Battery B" on its own line with bulleted steps under it:
            // the ';' put before the first bullet.
            if rest.first().is_some_and(|t| t.is_punct(';'))
                && rest.get(1).and_then(Token::word).is_some()
            {
                rest = rest.get(1..).unwrap_or_default();
            }
            // "19th Ind 4 in. north": a distance straight after the name.
            let distance_first = rest
                .first()
                .is_some_and(|t| matches!(t.tok, Tok::Number(_)))
                && rest.get(1).and_then(Token::word).is_some_and(|w| {
                    w.starts_with("in") || w.starts_with("y") || w.starts_with("pace")
                });
            if rest.first().and_then(Token::word).is_some() || distance_first || arrow {
                return Some((hs, rest));
            }
        }
    }
    None
}

/// The officer an order comes from when no `FROM` line says: the lowest of
/// the player's officers in the unit's chain of command (APSoF I.C.1), else
/// his first officer on the field.
fn default_issuer(ctx: &ParseContext, unit: UnitId) -> Option<OfficerId> {
    let mine = ctx.own_officers();
    ctx.state
        .chain_of_command(unit)
        .iter()
        .map(|o| o.id)
        .find(|id| mine.iter().any(|c| c.target == *id))
        .or_else(|| mine.first().map(|c| c.target))
}
