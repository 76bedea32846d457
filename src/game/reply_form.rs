//! The report's order form, edited inside a reply.
//!
//! Every report ends with an order form ("ORDERS -- edit below and send
//! back"): a `From <officer>:` line and one line per unit with the order it
//! has. Players reply to the report and edit the form where it stands —
//! often inside the quote (`> 2nd Wisconsin: hold` changed to `> 2nd
//! Wisconsin: advance to the farm`), or, in HTML mail, below the client's
//! "On … wrote:" line. Quoted text is otherwise never read as orders (it
//! would re-issue the whole report), so the form is found in the mail as
//! received and compared with the form that was sent (the stored report the
//! reply token names, else the player's latest): a line equal to the sent
//! one is unchanged and the unit keeps its order; a changed or added line
//! is an order. Nothing here is silent: the receipt says how many lines were
//! unchanged and reads each edited one back like any other order.

/// The heading the text report puts above the form, and the HTML report's.
const MARKERS: &[&str] = &[
    "orders -- edit below and send back",
    "orders — edit and send back",
];

/// A line of the form as found in a reply: its 1-based line in the mail and
/// its text without quote marks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormLine {
    pub line: usize,
    pub text: String,
}

/// What a reply did with the form.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FormEdits {
    /// Form entries equal to the sent form: those units keep their orders.
    pub unchanged: usize,
    /// The `From <officer>:` line of the form, if it had one (it says who
    /// issues the edited orders).
    pub from: Option<FormLine>,
    /// Changed or added entries, continuation lines joined: to be read as
    /// orders.
    pub edited: Vec<FormLine>,
}

fn strip_quote_marks(line: &str) -> (bool, &str) {
    let t = line.trim_start();
    if !t.starts_with('>') {
        return (false, line);
    }
    let rest = t.trim_start_matches(['>', ' ']);
    (true, rest)
}

fn is_rule(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 10 && t.chars().all(|c| c == '-' || c == '_' || c == '—')
}

/// The form's heading, however the reply's client rendered it ("##
/// Orders — edit and send back" from an HTML heading, upper case, …).
fn is_marker(line: &str) -> bool {
    let t = line
        .trim()
        .trim_start_matches(['#', '*', ' '])
        .trim_end_matches(['#', '*', ' ', ':'])
        .to_lowercase();
    t.len() < 60 && MARKERS.iter().any(|m| t == *m)
}

/// Words of a line for comparing: case, spacing and a final full stop do
/// not count.
fn norm(line: &str) -> String {
    line.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(['.', ';'])
        .to_lowercase()
}

/// Whether a line opens a form entry ("2nd Wisconsin: …", "From Gibbon:"),
/// rather than continuing the entry above it (a mail client wrapped it).
fn opens_entry(line: &str) -> bool {
    match line.find(':') {
        Some(c) => line
            .get(..c)
            .is_some_and(|h| h.split_whitespace().count() <= 7),
        None => false,
    }
}

/// The form as sent: the lines between the heading and the closing rule of
/// a stored text report.
pub fn sent_form(report_text: &str) -> Option<Vec<String>> {
    let mut lines = report_text.lines();
    lines.by_ref().find(|l| is_marker(l))?;
    let mut out = Vec::new();
    let mut opened = false;
    for l in lines {
        if is_rule(l) {
            if opened {
                break;
            }
            opened = true;
            continue;
        }
        opened = true;
        if !l.trim().is_empty() {
            out.push(l.trim().to_string());
        }
    }
    Some(out)
}

/// The form's entries in a mail as received (`body`, 1-based lines), with
/// wrapped lines joined to their entry. Lines whose number is in `read`
/// (already read as orders: the player took the quote marks off) are left
/// out. `None` when the mail holds no form.
pub fn form_in_reply(body: &str, read: &[usize]) -> Option<Vec<FormLine>> {
    let lines: Vec<&str> = body.lines().collect();
    let start = lines
        .iter()
        .position(|l| is_marker(strip_quote_marks(l).1))?;
    let mut entries: Vec<FormLine> = Vec::new();
    let mut opened = false;
    for (i, raw) in lines.iter().enumerate().skip(start + 1) {
        let line = i + 1;
        let (_, text) = strip_quote_marks(raw);
        if is_rule(text) {
            if opened {
                break;
            }
            opened = true;
            continue;
        }
        opened = true;
        if text.trim().is_empty() {
            continue;
        }
        if read.contains(&line) {
            continue;
        }
        match entries.last_mut() {
            Some(last) if !opens_entry(text) => {
                last.text.push(' ');
                last.text.push_str(text.trim());
            }
            _ => entries.push(FormLine {
                line,
                text: text.trim().to_string(),
            }),
        }
    }
    Some(entries)
}

/// Quoted lines (`>`) outside the report's order form, with their mail
/// lines: the caller tells the player which of them look like orders,
/// since they are not read. Lines of a quoted receipt ("  * 7th
/// Wisconsin: hold", "  ! line 3 …") are left out: they are Adjutant's own
/// words. At most `limit` lines are returned.
pub fn quoted_outside_form(body: &str, limit: usize) -> Vec<FormLine> {
    let mut out = Vec::new();
    let mut in_form = false;
    let mut rules = 0;
    for (i, raw) in body.lines().enumerate() {
        let (quoted, text) = strip_quote_marks(raw);
        if is_marker(text) {
            in_form = true;
            rules = 0;
            continue;
        }
        if in_form {
            if is_rule(text) {
                rules += 1;
                if rules == 2 {
                    in_form = false;
                }
            }
            continue;
        }
        if !quoted || !text.contains(':') {
            continue;
        }
        let after_marks = raw.trim_start().trim_start_matches('>');
        let after_marks = after_marks.strip_prefix(' ').unwrap_or(after_marks);
        if after_marks.starts_with("  * ") || after_marks.starts_with("  ! ") {
            continue;
        }
        out.push(FormLine {
            line: i + 1,
            text: text.trim().to_string(),
        });
        if out.len() >= limit {
            break;
        }
    }
    out
}

/// Compare the form in a reply with the form sent.
pub fn compare(sent: &[String], reply: &[FormLine]) -> FormEdits {
    let sent: Vec<String> = sent.iter().map(|s| norm(s)).collect();
    let mut out = FormEdits::default();
    for e in reply {
        let n = norm(&e.text);
        let is_from = n.starts_with("from ") && n.ends_with(':');
        if is_from {
            out.from = Some(e.clone());
            continue;
        }
        if sent.contains(&n) {
            out.unchanged += 1;
        } else {
            out.edited.push(e.clone());
        }
    }
    out
}

/// How many entries of a reply's form equal lines of `sent` (to choose
/// which stored report a reply answers when more than one could be).
pub fn matching(sent: &[String], reply: &[FormLine]) -> usize {
    let sent: Vec<String> = sent.iter().map(|s| norm(s)).collect();
    reply
        .iter()
        .filter(|e| sent.contains(&norm(&e.text)))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "TURN 3\n\nORDERS -- edit below and send back\n\
        ------------------------------------------------------------------------\n\
        From Gibbon:\n2nd Wisconsin: hold\n7th Wisconsin: advance to the Brawner farm in line\n\
        ------------------------------------------------------------------------\n";

    #[test]
    fn an_edited_quoted_form_gives_only_the_changed_lines() {
        let sent = sent_form(REPORT).unwrap();
        assert_eq!(sent.len(), 3);
        let reply = "PASSWORD x\n\nOn Sat, Adjutant wrote:\n> TURN 3\n>\n> ORDERS -- edit below and send back\n\
            > ----------------------------------------------------------------------\n\
            > From Gibbon:\n> 2nd Wisconsin: advance to the\n> Brawner farm\n\
            > 7th Wisconsin: advance to the Brawner farm in line\n\
            > ----------------------------------------------------------------------\n";
        let form = form_in_reply(reply, &[]).unwrap();
        let edits = compare(&sent, &form);
        assert_eq!(edits.unchanged, 1);
        assert_eq!(edits.from.as_ref().map(|f| f.line), Some(8));
        assert_eq!(
            edits.edited,
            vec![FormLine {
                line: 9,
                text: "2nd Wisconsin: advance to the Brawner farm".into()
            }]
        );
        // A line the player unquoted was read with the rest of the mail.
        let form = form_in_reply(reply, &[9, 10]).unwrap();
        assert!(compare(&sent, &form).edited.is_empty());
    }

    #[test]
    fn the_form_is_found_in_an_html_reply_as_rendered() {
        let raw = "From: a@example.test\nContent-Type: text/html; charset=utf-8\n\n\
            <div>Changed.</div><div class=\"gmail_quote\"><div>On Sun, Adjutant wrote:<br></div>\
            <blockquote class=\"gmail_quote\"><p>Coordinates.</p>\
            <h2 style=\"font-size: 1.2em;\">Orders \u{2014} edit and send back</h2>\
            <pre style=\"background: #f4efe1; padding: 8px;\">From Gibbon:\n2nd Wisconsin: advance 2 inches north\n7th Wisconsin: advance to the Brawner farm in line\n</pre>\
            </blockquote></div>";
        let p = crate::mail::parse::parse_inbound(raw.as_bytes(), &Default::default());
        let form = form_in_reply(&p.body_text, &[]);
        assert!(form.is_some(), "{:?}", p.body_text);
        let edits = compare(&sent_form(REPORT).unwrap(), &form.unwrap_or_default());
        assert_eq!(edits.unchanged, 1, "{:?}", p.body_text);
        assert_eq!(edits.edited.len(), 1, "{:?}", p.body_text);
        assert!(quoted_outside_form(&p.body_text, 10).is_empty());
    }

    #[test]
    fn no_form_no_edits() {
        assert!(form_in_reply("2nd Wisconsin: hold\n> quoted", &[]).is_none());
    }
}
