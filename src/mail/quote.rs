//! Turning a decoded mail body into the text a player meant as orders:
//! normalised whitespace, without quoted replies and without signatures.
//!
//! Players reply to their turn report, so most order mail carries the whole
//! report below (or around) the orders. Feeding that to the order parser
//! would re-issue last turn's text as new orders, so it must go. Recognised:
//!
//! * `>`-quoted lines (removed one by one, so inline answers survive);
//! * attribution lines — Gmail/Thunderbird `On <date>, <name> wrote:` (also
//!   wrapped over two lines), Apple Mail `On <date>, at <time>, <name> wrote:`,
//!   German `Am … schrieb …:` and French `Le … a écrit :`. When quoted
//!   lines follow, only the attribution goes; when unquoted text follows
//!   (HTML mail whose quote lost its markers), everything from it on goes;
//! * Outlook separators: `-----Original Message-----` (and the spaced and
//!   Thunderbird `-------- Original Message --------` forms), a line of
//!   underscores, or a `From:` line followed within four lines by `Sent:` or
//!   `Date:` — everything from there on is the original mail;
//! * signatures: a `-- ` (or bare `--`) line and everything after it, and
//!   mobile footers (`Sent from my iPhone`, `Get Outlook for Android`).

/// Normalise line endings (CRLF and CR to LF), turn non-breaking and other
/// fixed-width spaces into plain spaces, drop zero-width characters and the
/// BOM, and strip trailing whitespace except on a `-- ` signature line.
pub fn normalise(text: &str) -> String {
    let unified = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(unified.len());
    for (i, line) in unified.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let cleaned: String = line
            .chars()
            .filter_map(|c| match c {
                '\u{a0}' | '\u{2007}' | '\u{202f}' | '\u{2009}' | '\u{2002}' | '\u{2003}' => {
                    Some(' ')
                }
                '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' => None,
                c => Some(c),
            })
            .collect();
        if cleaned == "-- " {
            out.push_str("-- ");
        } else {
            out.push_str(cleaned.trim_end());
        }
    }
    out
}

fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

fn is_signature(line: &str) -> bool {
    if line == "-- " || line == "--" {
        return true;
    }
    // Mobile clients' automatic footers, which players rarely delete.
    let t = line.trim().to_ascii_lowercase();
    (t.starts_with("sent from my ") || t.starts_with("get outlook for ")) && t.len() < 60
}

fn is_outlook_separator(line: &str) -> bool {
    let t = line.trim();
    let lower = t.to_ascii_lowercase();
    let core = lower.trim_matches(|c: char| c == '-' || c == ' ');
    if t.starts_with("---") && (core == "original message" || core == "ursprüngliche nachricht") {
        return true;
    }
    t.len() >= 20 && t.chars().all(|c| c == '_')
}

/// `From: …` followed within four lines by `Sent:`/`Date:` — the header
/// block Outlook (and many webmails) put above the original message.
fn is_outlook_header_block(lines: &[&str], i: usize) -> bool {
    let Some(first) = lines.get(i) else {
        return false;
    };
    let first = first.trim_start().trim_start_matches('*');
    if !first.to_ascii_lowercase().starts_with("from:") {
        return false;
    }
    lines.iter().skip(i + 1).take(4).any(|l| {
        let l = l.trim_start().trim_start_matches('*').to_ascii_lowercase();
        l.starts_with("sent:") || l.starts_with("date:")
    })
}

fn is_attribution_text(t: &str) -> bool {
    let lower = t.trim().to_lowercase();
    let ends = lower.ends_with("wrote:")
        || lower.ends_with("schrieb:")
        || lower.ends_with("a écrit :")
        || lower.ends_with("a écrit:");
    let starts = lower.starts_with("on ") || lower.starts_with("am ") || lower.starts_with("le ");
    ends && starts && lower.len() < 400
}

/// Length in lines of an attribution starting at `i` (1 or 2), if any.
fn attribution_len(lines: &[&str], i: usize) -> Option<usize> {
    let line = lines.get(i)?;
    if is_attribution_text(line) {
        return Some(1);
    }
    let next = lines.get(i + 1)?;
    let joined = format!("{} {}", line.trim(), next.trim());
    (!next.trim().is_empty() && is_attribution_text(&joined)).then_some(2)
}

/// What [`strip_quotes`] removed, for the receipt ("we ignored …").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stripped {
    /// Number of `>`-quoted lines removed.
    pub quoted_lines: usize,
    /// A trailing original message or quote block was cut.
    pub cut_reply: bool,
    /// A signature was cut.
    pub cut_signature: bool,
    /// For each line of the cleaned text, its 1-based line in the text
    /// given, so that an error can name the line as the player wrote it.
    pub lines: Vec<usize>,
}

/// Remove quoted replies and signatures from normalised text; leading and
/// trailing blank lines are dropped and runs of blank lines are collapsed to
/// one, since paragraphs (one per unit) are what the order parser needs.
pub fn strip_quotes(text: &str) -> (String, Stripped) {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut kept: Vec<(usize, &str)> = Vec::new();
    let mut info = Stripped::default();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        if is_signature(line) {
            info.cut_signature = true;
            break;
        }
        if is_outlook_separator(line) || is_outlook_header_block(&lines, i) {
            info.cut_reply = true;
            break;
        }
        if let Some(n) = attribution_len(&lines, i) {
            let next_text = lines.iter().skip(i + n).find(|l| !l.trim().is_empty());
            match next_text {
                Some(l) if is_quoted(l) => {
                    i += n;
                    continue;
                }
                _ => {
                    info.cut_reply = true;
                    break;
                }
            }
        }
        if is_quoted(line) {
            info.quoted_lines += 1;
        } else {
            kept.push((i + 1, line));
        }
        i += 1;
    }
    let mut out = String::new();
    let mut blank_run: Option<usize> = None;
    for (n, line) in kept {
        if line.trim().is_empty() {
            blank_run.get_or_insert(n);
            continue;
        }
        if let Some(b) = blank_run.take()
            && !out.is_empty()
        {
            out.push('\n');
            info.lines.push(b);
        }
        out.push_str(line);
        out.push('\n');
        info.lines.push(n);
    }
    (out.trim_end().to_string(), info)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(s: &str) -> String {
        strip_quotes(&normalise(s)).0
    }

    #[test]
    fn cleaned_lines_know_their_line_in_the_mail() {
        let t = "\n\n2nd Wisconsin: advance.\n> quoted\n> more\n\n\n19th Indiana: hold.\nthen lie down\n";
        let (s, info) = strip_quotes(&normalise(t));
        assert_eq!(
            s,
            "2nd Wisconsin: advance.\n\n19th Indiana: hold.\nthen lie down"
        );
        assert_eq!(info.lines, vec![3, 6, 8, 9]);
    }

    #[test]
    fn normalise_line_endings_and_spaces() {
        assert_eq!(
            normalise("a\u{a0}b\r\nc\rd  \n-- \n\u{feff}e"),
            "a b\nc\nd\n-- \ne"
        );
    }

    #[test]
    fn gmail_attribution_with_quote_is_removed_inline_answers_kept() {
        let t = "2nd Wisconsin: advance.\n\nOn Sat, 21 Nov 2026 at 14:02, Adjutant <\nadj@example.org> wrote:\n> Turn 3 report\n> more\n\n19th Indiana: hold.\n";
        assert_eq!(clean(t), "2nd Wisconsin: advance.\n\n19th Indiana: hold.");
    }

    #[test]
    fn unquoted_text_after_attribution_is_cut() {
        let t = "Battery B: unlimber.\nOn 21 Nov 2026, at 14:02, Adjutant <adj@example.org> wrote:\n\nTurn 3 report\n";
        let (s, info) = strip_quotes(&normalise(t));
        assert_eq!(s, "Battery B: unlimber.");
        assert!(info.cut_reply);
    }

    #[test]
    fn outlook_forms_are_cut() {
        assert_eq!(
            clean("orders\n-----Original Message-----\nFrom: x\nold"),
            "orders"
        );
        assert_eq!(
            clean("orders\n________________________________\nFrom: Adjutant\nSent: Saturday\nold"),
            "orders"
        );
        assert_eq!(
            clean(
                "orders\n\nFrom: Adjutant <a@b>\nSent: Saturday, 21 November 2026 14:02\nTo: me\nold"
            ),
            "orders"
        );
        assert_eq!(
            clean("orders\n-------- Original Message --------\nold"),
            "orders"
        );
    }

    #[test]
    fn signature_is_cut_but_order_dashes_are_not() {
        assert_eq!(
            clean("hold -- for now\n-- \nJohn Gibbon\nBrig. Gen."),
            "hold -- for now"
        );
        assert_eq!(clean("hold\n--\nJohn"), "hold");
    }

    #[test]
    fn a_from_line_in_orders_is_kept_when_no_sent_line_follows() {
        assert_eq!(
            clean("From Gibbon:\n2nd Wisconsin: advance."),
            "From Gibbon:\n2nd Wisconsin: advance."
        );
    }
}
