//! Splitting a mail body into orders and directives.
//!
//! Each order is a paragraph headed `<unit or officer name>:`; lines that
//! follow without a head of their own continue it. A blank line ends a
//! paragraph. Directive lines (`FROM`, `READY`, `REPORT`, `HISTORY`,
//! `DISPATCH TO`) stand on their own; `PASSWORD` lines are skipped (the
//! mail layer removes them first), as are quoted lines (`>`) and anything
//! after a signature separator (`--`). Each paragraph stands alone: a bad
//! one is reported and the others still count.

use super::context::ParseContext;
use super::lexer::{Tok, Token, lex};
use super::names::{Candidate, Lookup, lookup, suggest, token_words};
use super::parser::{OrderParser, PErr, line_col};
use super::{DispatchRequest, DispatchTo, Item, OrderError, ParsedMail, Span};
use crate::rules::iron_brigade::state::{OfficerId, UnitId};

/// What a paragraph's head names.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Head {
    Unit(UnitId),
    Officer(OfficerId),
}

/// Lines of one paragraph, as byte ranges of the mail text.
#[derive(Debug, Default)]
struct Para {
    segments: Vec<(usize, usize)>,
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
/// ("- ", "* ", "• ", "1. ", "2) ").
fn content_start(text: &str, start: usize, end: usize) -> usize {
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
    at
}

/// Read a player's mail. Never fails: whatever cannot be read is an
/// [`OrderError`] in the result, with line and column.
pub fn parse_mail(text: &str, ctx: &ParseContext) -> ParsedMail {
    let mut out = ParsedMail::default();
    let mut issuer: Option<OfficerId> = None;
    let mut cur: Option<Para> = None;
    let all = lines(text);
    let mut i = 0;
    while let Some(&(ls, le)) = all.get(i) {
        i += 1;
        let line = text.get(ls..le).unwrap_or("");
        let trimmed = line.trim();
        if trimmed.is_empty() {
            flush(text, ctx, &mut cur, issuer, &mut out);
            continue;
        }
        if trimmed == "--" || line == "-- " {
            break;
        }
        if trimmed.starts_with('>') {
            flush(text, ctx, &mut cur, issuer, &mut out);
            continue;
        }
        let cs = content_start(text, ls, le);
        let toks = lex(text, cs, le);
        let first = toks.first().and_then(Token::word).unwrap_or("");
        match first {
            "password" | "passwd" => {
                flush(text, ctx, &mut cur, issuer, &mut out);
                continue;
            }
            "ready" if is_ready_line(&toks) => {
                flush(text, ctx, &mut cur, issuer, &mut out);
                out.ready = true;
                continue;
            }
            "report" | "history" => {
                flush(text, ctx, &mut cur, issuer, &mut out);
                if let Err(e) = turn_request(first, &toks, &mut out) {
                    out.errors.push(to_error(text, ls, le, e));
                }
                continue;
            }
            "dispatch" => {
                flush(text, ctx, &mut cur, issuer, &mut out);
                let (end_line, result) = dispatch(text, ctx, &all, i - 1, &toks);
                i = end_line + 1;
                match result {
                    Ok(d) => out.dispatches.push(d),
                    Err(e) => out.errors.push(to_error(text, ls, le, e)),
                }
                continue;
            }
            "from" => {
                flush(text, ctx, &mut cur, issuer, &mut out);
                if text.get(cs..le).is_some_and(|l| l.contains('@')) {
                    continue; // a quoted mail header, not an order line
                }
                match from_line(ctx, text, &toks, le) {
                    Ok((officer, rest)) => {
                        issuer = Some(officer);
                        if let Some(rest) = rest {
                            cur = Some(Para {
                                segments: vec![(rest, le)],
                            });
                        }
                    }
                    Err(e) => out.errors.push(to_error(text, ls, le, e)),
                }
                continue;
            }
            _ => {}
        }
        let has_head = head_colon(&toks).is_some();
        match (&mut cur, has_head) {
            (Some(p), false) => p.segments.push((cs, le)),
            _ => {
                flush(text, ctx, &mut cur, issuer, &mut out);
                cur = Some(Para {
                    segments: vec![(cs, le)],
                });
            }
        }
    }
    flush(text, ctx, &mut cur, issuer, &mut out);
    out
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

/// Read the paragraph in `cur`, if any, into `out`.
fn flush(
    text: &str,
    ctx: &ParseContext,
    cur: &mut Option<Para>,
    issuer: Option<OfficerId>,
    out: &mut ParsedMail,
) {
    let Some(para) = cur.take() else {
        return;
    };
    let (Some(&(ps, _)), Some(&(_, pe))) = (para.segments.first(), para.segments.last()) else {
        return;
    };
    let toks: Vec<Token> = para
        .segments
        .iter()
        .flat_map(|&(s, e)| lex(text, s, e))
        .collect();
    match paragraph(text, ctx, &toks, ps, pe, issuer) {
        Ok(Some(item)) => out.items.push(item),
        Ok(None) => {}
        Err(e) => out.errors.push(to_error(text, ps, pe, e)),
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

fn paragraph(
    text: &str,
    ctx: &ParseContext,
    toks: &[Token],
    ps: usize,
    pe: usize,
    issuer: Option<OfficerId>,
) -> Result<Option<Item>, PErr> {
    let para_text = text.get(ps..pe).unwrap_or("").trim().to_string();
    let span = Span { start: ps, end: pe };
    let cands = heads(ctx);
    let allowed: Vec<Candidate<Head>> = cands
        .iter()
        .filter(|c| match c.target {
            Head::Unit(u) => ctx.commands(u),
            Head::Officer(_) => true,
        })
        .cloned()
        .collect();
    let (head, body) = match head_colon(toks) {
        Some(c) => {
            let head_toks = toks.get(..c).unwrap_or_default();
            let written = span_text(text, head_toks);
            match lookup(&words(head_toks), &cands) {
                Lookup::Found(h) => (h, toks.get(c + 1..).unwrap_or_default()),
                Lookup::Ambiguous(names) => {
                    return Err(PErr {
                        at: ps,
                        message: format!(
                            "'{written}' could mean more than one unit; write the name in full"
                        ),
                        suggestions: names,
                    });
                }
                Lookup::NotFound if toks.len() == c + 1 => {
                    // "Orders for turn 3:" with nothing after it: a heading
                    // the player wrote for himself, not an order.
                    return Ok(None);
                }
                Lookup::NotFound => {
                    return Err(PErr {
                        at: ps,
                        message: format!(
                            "no unit or officer of yours is called '{written}'; start each order with '<unit name>:'"
                        ),
                        suggestions: suggest(&written, &allowed),
                    });
                }
            }
        }
        None => headless(toks, &cands).ok_or_else(|| PErr {
            at: ps,
            message: "expected '<unit name>:' at the start of the order, as in '10th Ohio: hold'"
                .to_string(),
            suggestions: Vec::new(),
        })?,
    };
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
            let issued_by = issuer
                .or_else(|| default_issuer(ctx, id))
                .ok_or_else(|| PErr {
                    at: ps,
                    message: "you have no officer on the field to give this order".to_string(),
                    suggestions: Vec::new(),
                })?;
            let mut p = OrderParser::new(ctx, text, body, pe, Some(unit), unit.position);
            let (follows_previous, steps) = p.unit_order()?;
            Ok(Some(Item::Unit {
                unit: id,
                issued_by,
                follows_previous,
                steps,
                notes: p.take_notes(),
                text: para_text,
                span,
            }))
        }
        Head::Officer(id) => {
            let at = ctx
                .state
                .officer(id)
                .map(|o| o.position)
                .unwrap_or_default();
            let mut p = OrderParser::new(ctx, text, body, pe, None, at);
            let order = p.officer_move(id)?;
            Ok(Some(Item::Officer {
                order,
                text: para_text,
                span,
            }))
        }
    }
}

/// A paragraph without a colon: "2nd Wisconsin advance to ..." — the
/// longest run of leading words that names a unit or officer, when a verb
/// follows.
fn headless<'t>(toks: &'t [Token], cands: &[Candidate<Head>]) -> Option<(Head, &'t [Token])> {
    for n in (1..=toks.len().min(8)).rev() {
        let head = toks.get(..n)?;
        if let Lookup::Found(h) = lookup(&words(head), cands) {
            let rest = toks.get(n..).unwrap_or_default();
            if rest.first().and_then(Token::word).is_some() {
                return Some((h, rest));
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
