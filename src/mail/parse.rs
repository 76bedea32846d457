//! Inbound mail → the facts intake needs and the text the player meant.
//!
//! [`parse_inbound`] never fails and never panics: the old judges lost
//! orders by rejecting mail they could not parse, so whatever we cannot read
//! becomes a warning and the caller keeps the raw bytes regardless. MIME
//! decoding (transfer encodings, charsets, RFC 2047 headers) is `mailparse`'s
//! job; HTML-only mail is turned into text by `html2text`; quoted replies and
//! signatures are removed by [`crate::mail::quote`].

use crate::mail::address::Mailbox;
use crate::mail::quote;
use mailparse::{DispositionType, MailAddr, MailHeader, MailHeaderMap, ParsedMail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

// The limits are configuration (`config.rs`, `[limits]`); parsing obeys them.
pub use crate::config::Limits;

/// Where the order text came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BodySource {
    /// A text/plain part (preferred whenever there is one).
    Plain,
    /// An HTML-only mail, converted to text.
    Html,
    /// The MIME structure could not be parsed; the raw bytes were read as text.
    Raw,
    /// No readable text at all.
    #[default]
    None,
}

/// A MIME part that is not the order text (attachment, extra text, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartNote {
    pub content_type: String,
    pub filename: Option<String>,
    /// Encoded size in bytes.
    pub size: usize,
}

/// Everything intake needs from one inbound mail.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboundParsed {
    /// Message-ID without angle brackets.
    pub message_id: Option<String>,
    /// SHA-256 of the raw bytes, lower-case hex: the duplicate key when
    /// there is no Message-ID, and proof of what was received.
    pub sha256: String,
    pub from: Option<Mailbox>,
    pub sender: Option<Mailbox>,
    pub reply_to: Vec<Mailbox>,
    pub to: Vec<Mailbox>,
    pub cc: Vec<Mailbox>,
    /// `Delivered-To` and `X-Original-To` addresses: where a `+token`
    /// survives when the player's client rewrote To.
    pub delivered_to: Vec<String>,
    pub subject: Option<String>,
    /// `Date:` as Unix seconds, if it parsed.
    pub date: Option<i64>,
    pub in_reply_to: Vec<String>,
    pub references: Vec<String>,
    /// `Return-Path` without brackets; `Some("")` is the null sender `<>`.
    pub return_path: Option<String>,
    /// All top-level headers, names as written, values decoded.
    pub headers: Vec<(String, String)>,
    /// Top-level MIME type, lower case (e.g. `multipart/report`).
    pub content_type: String,
    /// `report-type` parameter of a top-level multipart/report.
    pub report_type: Option<String>,
    /// The cleaned order text: no quotes, no signature, normalised.
    pub text: String,
    /// For each line of `text`, its 1-based line in `body_text` (the mail
    /// as the player wrote it): receipts name lines by these.
    #[serde(default)]
    pub text_lines: Vec<usize>,
    /// The chosen body before quotes and signature were removed (normalised).
    pub body_text: String,
    pub body_source: BodySource,
    /// What quote stripping removed.
    pub quoted_lines_removed: usize,
    pub reply_cut: bool,
    pub signature_cut: bool,
    /// Parts that were not used as order text.
    pub attachments: Vec<PartNote>,
    /// Body of a `message/delivery-status` part (RFC 3464), if any.
    pub delivery_status: Option<String>,
    /// Headers of an enclosed original message (`message/rfc822` or
    /// `text/rfc822-headers`), as found in bounces.
    pub original_headers: Vec<(String, String)>,
    /// Everything that could not be read cleanly.
    pub warnings: Vec<String>,
    /// Why the mail is over a [`Limits`] bound, if it is.
    pub over_limit: Option<String>,
}

impl InboundParsed {
    /// First value of a top-level header, case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every address the mail was sent to (To, Cc, Delivered-To,
    /// X-Original-To): where reply tokens are looked for.
    pub fn recipient_addresses(&self) -> Vec<String> {
        self.to
            .iter()
            .chain(&self.cc)
            .map(|m| m.address.clone())
            .chain(self.delivered_to.iter().cloned())
            .collect()
    }
}

/// Parse one raw inbound mail. Never panics, never fails: problems become
/// [`InboundParsed::warnings`].
pub fn parse_inbound(raw: &[u8], limits: &Limits) -> InboundParsed {
    let sha256 = hex::encode(Sha256::digest(raw));
    // mailparse and html2text are well tested, but a panic in either on
    // hostile input must not stop intake: catch it and keep what we know.
    match std::panic::catch_unwind(|| parse_guarded(raw, limits)) {
        Ok(mut p) => {
            p.sha256 = sha256;
            p
        }
        Err(_) => InboundParsed {
            sha256,
            warnings: vec![
                "the mail parser crashed on this message; it was stored but not read".into(),
            ],
            ..InboundParsed::default()
        },
    }
}

fn parse_guarded(raw: &[u8], limits: &Limits) -> InboundParsed {
    let mut p = InboundParsed::default();
    let too_big = raw.len() > limits.max_bytes;
    if too_big {
        p.over_limit = Some(format!(
            "the mail is {} bytes, more than the limit of {} bytes; send the orders as plain text without attachments",
            raw.len(),
            limits.max_bytes
        ));
        // Headers only: enough to classify and to answer the sender.
        match mailparse::parse_headers(raw) {
            Ok((headers, _)) => read_headers(&headers, &mut p),
            Err(e) => p.warnings.push(format!("headers could not be parsed: {e}")),
        }
        return p;
    }
    match mailparse::parse_mail(raw) {
        Ok(mail) => {
            read_headers(&mail.headers, &mut p);
            p.content_type = mail.ctype.mimetype.to_ascii_lowercase();
            if p.content_type == "multipart/report" {
                p.report_type = mail
                    .ctype
                    .params
                    .get("report-type")
                    .map(|s| s.to_ascii_lowercase());
            }
            let mut body = None;
            walk(&mail, &mut p, &mut body, 0);
            match body {
                Some((source, text)) => {
                    p.body_source = source;
                    p.body_text = quote::normalise(&text);
                }
                None => p.body_source = BodySource::None,
            }
        }
        Err(e) => {
            p.warnings.push(format!(
                "the MIME structure could not be parsed ({e}); the raw mail was read as text"
            ));
            if let Ok((headers, _)) = mailparse::parse_headers(raw) {
                read_headers(&headers, &mut p);
            }
            let text = String::from_utf8_lossy(raw);
            let body = text
                .split_once("\r\n\r\n")
                .or_else(|| text.split_once("\n\n"))
                .map(|(_, b)| b)
                .unwrap_or(&text);
            p.body_source = BodySource::Raw;
            p.body_text = quote::normalise(body);
        }
    }
    let (text, info) = quote::strip_quotes(&p.body_text);
    p.quoted_lines_removed = info.quoted_lines;
    p.reply_cut = info.cut_reply;
    p.signature_cut = info.cut_signature;
    p.text_lines = info.lines;
    p.text_lines.truncate(limits.max_lines);
    let line_count = text.lines().count();
    if line_count > limits.max_lines {
        p.over_limit = Some(format!(
            "the orders are {line_count} lines long, more than the limit of {}; only the first {} were read",
            limits.max_lines, limits.max_lines
        ));
        p.text = text
            .lines()
            .take(limits.max_lines)
            .collect::<Vec<_>>()
            .join("\n");
    } else {
        p.text = text;
    }
    p
}

fn read_headers(headers: &[MailHeader<'_>], p: &mut InboundParsed) {
    p.headers = headers
        .iter()
        .map(|h| (h.get_key(), h.get_value()))
        .collect();
    p.message_id = headers
        .get_first_value("Message-ID")
        .and_then(|v| first_msgid(&v));
    p.from = mailboxes(headers, "From", &mut p.warnings)
        .into_iter()
        .next();
    p.sender = mailboxes(headers, "Sender", &mut p.warnings)
        .into_iter()
        .next();
    p.reply_to = mailboxes(headers, "Reply-To", &mut p.warnings);
    p.to = mailboxes(headers, "To", &mut p.warnings);
    p.cc = mailboxes(headers, "Cc", &mut p.warnings);
    for name in ["Delivered-To", "X-Original-To"] {
        for v in headers.get_all_values(name) {
            let a = v
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .trim();
            if !a.is_empty() && !p.delivered_to.iter().any(|d| d == a) {
                p.delivered_to.push(a.to_string());
            }
        }
    }
    p.subject = headers.get_first_value("Subject");
    if let Some(d) = headers.get_first_value("Date") {
        match mailparse::dateparse(&d) {
            Ok(t) => p.date = Some(t),
            Err(_) => p
                .warnings
                .push(format!("Date header {d:?} could not be read")),
        }
    }
    p.in_reply_to = headers
        .get_first_value("In-Reply-To")
        .map(|v| all_msgids(&v))
        .unwrap_or_default();
    p.references = headers
        .get_all_values("References")
        .iter()
        .flat_map(|v| all_msgids(v))
        .collect();
    p.return_path = headers.get_first_value("Return-Path").map(|v| {
        v.trim()
            .trim_start_matches('<')
            .trim_end_matches('>')
            .trim()
            .to_string()
    });
}

/// Message-IDs in a header value, without brackets, in order.
fn all_msgids(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find('<') {
        let after = rest.get(start + 1..).unwrap_or("");
        let Some(end) = after.find('>') else { break };
        let id: String = after
            .get(..end)
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if !id.is_empty() {
            out.push(id);
        }
        rest = after.get(end + 1..).unwrap_or("");
    }
    if out.is_empty() {
        // Some clients omit the brackets: take whitespace-separated words.
        out = value
            .split_whitespace()
            .filter(|w| w.contains('@'))
            .map(|w| w.to_string())
            .collect();
    }
    out
}

fn first_msgid(value: &str) -> Option<String> {
    all_msgids(value).into_iter().next().or_else(|| {
        let t = value.trim();
        (!t.is_empty()).then(|| t.to_string())
    })
}

fn mailboxes(headers: &[MailHeader<'_>], name: &str, warnings: &mut Vec<String>) -> Vec<Mailbox> {
    let mut out = Vec::new();
    for h in headers
        .iter()
        .filter(|h| h.get_key_ref().eq_ignore_ascii_case(name))
    {
        match mailparse::addrparse_header(h) {
            Ok(list) => {
                for a in list.into_inner() {
                    match a {
                        MailAddr::Single(s) => out.push(single(s.display_name, s.addr)),
                        MailAddr::Group(g) => {
                            out.extend(g.addrs.into_iter().map(|s| single(s.display_name, s.addr)))
                        }
                    }
                }
            }
            Err(_) => {
                // Fall back to anything that looks like an address.
                let v = h.get_value();
                let found = loose_addresses(&v);
                if found.is_empty() {
                    warnings.push(format!("{name} header {v:?} holds no readable address"));
                }
                out.extend(found.into_iter().map(Mailbox::new));
            }
        }
    }
    out.retain(|m| !m.address.is_empty());
    out
}

fn single(name: Option<String>, addr: String) -> Mailbox {
    Mailbox {
        address: addr.trim().to_string(),
        name: name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty()),
    }
}

fn loose_addresses(v: &str) -> Vec<String> {
    v.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '<' | '>' | '"' | '(' | ')'))
        .filter(|w| w.contains('@') && w.len() > 2)
        .map(|w| w.to_string())
        .collect()
}

/// Recursion is bounded by mailparse's own nesting limit (100); `depth` is
/// kept to skip pathological trees cheaply.
const MAX_DEPTH: usize = 60;

fn filename_of(part: &ParsedMail<'_>) -> Option<String> {
    let disp = part.get_content_disposition();
    disp.params
        .get("filename")
        .or_else(|| part.ctype.params.get("name"))
        .cloned()
}

fn is_attachment(part: &ParsedMail<'_>) -> bool {
    part.get_content_disposition().disposition == DispositionType::Attachment
        || filename_of(part).is_some()
}

fn note(part: &ParsedMail<'_>, p: &mut InboundParsed) {
    p.attachments.push(PartNote {
        content_type: part.ctype.mimetype.to_ascii_lowercase(),
        filename: filename_of(part),
        size: part.raw_bytes.len(),
    });
}

fn text_of(part: &ParsedMail<'_>, p: &mut InboundParsed) -> String {
    match part.get_body() {
        Ok(s) => s,
        Err(e) => {
            p.warnings.push(format!(
                "a {} part could not be decoded ({e}); it was read as raw text",
                part.ctype.mimetype
            ));
            String::from_utf8_lossy(&part.get_body_raw().unwrap_or_default()).into_owned()
        }
    }
}

fn html_to_text(html: &str, p: &mut InboundParsed) -> String {
    match html2text::config::plain_no_decorate()
        .no_table_borders()
        .string_from_read(html.as_bytes(), 1000)
    {
        Ok(s) => s,
        Err(e) => {
            p.warnings
                .push(format!("the HTML body could not be converted ({e})"));
            String::new()
        }
    }
}

fn walk(
    part: &ParsedMail<'_>,
    p: &mut InboundParsed,
    body: &mut Option<(BodySource, String)>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        p.warnings
            .push("MIME parts nested too deeply were skipped".into());
        return;
    }
    let mt = part.ctype.mimetype.to_ascii_lowercase();
    match mt.as_str() {
        "multipart/alternative" => {
            let usable = |want: &str| {
                part.subparts
                    .iter()
                    .find(|s| s.ctype.mimetype.eq_ignore_ascii_case(want) && !is_attachment(s))
            };
            // Some clients send an empty text/plain beside the real HTML.
            let plain = usable("text/plain").filter(|s| {
                usable("text/html").is_none()
                    || s.get_body().map(|b| !b.trim().is_empty()).unwrap_or(true)
            });
            if let Some(plain) = plain {
                walk(plain, p, body, depth + 1);
            } else if let Some(multi) = part.subparts.iter().find(|s| {
                s.ctype
                    .mimetype
                    .to_ascii_lowercase()
                    .starts_with("multipart/")
            }) {
                walk(multi, p, body, depth + 1);
            } else if let Some(html) = usable("text/html") {
                walk(html, p, body, depth + 1);
            } else if let Some(first) = part.subparts.first() {
                walk(first, p, body, depth + 1);
            }
        }
        m if m.starts_with("multipart/") => {
            if part.subparts.is_empty() {
                p.warnings.push(format!("a {m} part has no readable parts"));
            }
            for s in &part.subparts {
                walk(s, p, body, depth + 1);
            }
        }
        "message/delivery-status" | "message/global-delivery-status" => {
            let t = text_of(part, p);
            p.delivery_status.get_or_insert(t);
        }
        "text/rfc822-headers" | "message/global-headers" => {
            if p.original_headers.is_empty() {
                let raw = part.get_body_raw().unwrap_or_default();
                p.original_headers = header_pairs(&raw);
            }
        }
        "message/rfc822" | "message/global" => {
            if p.original_headers.is_empty() {
                let raw = part.get_body_raw().unwrap_or_default();
                p.original_headers = header_pairs(&raw);
            }
            note(part, p);
        }
        "text/plain" | "text/html" if !is_attachment(part) => {
            if body.is_some() {
                note(part, p);
                return;
            }
            let t = text_of(part, p);
            if mt == "text/html" {
                let converted = html_to_text(&t, p);
                *body = Some((BodySource::Html, converted));
            } else {
                let flowed = part
                    .ctype
                    .params
                    .get("format")
                    .is_some_and(|f| f.eq_ignore_ascii_case("flowed"));
                let delsp = part
                    .ctype
                    .params
                    .get("delsp")
                    .is_some_and(|d| d.eq_ignore_ascii_case("yes"));
                let t = if flowed { unflow(&t, delsp) } else { t };
                *body = Some((BodySource::Plain, t));
            }
        }
        _ => note(part, p),
    }
}

/// Undo RFC 3676 `format=flowed`: Thunderbird and Apple Mail wrap long
/// lines at ~72 characters with a trailing space, which would split one
/// order over several lines. Soft breaks are joined (dropping the space when
/// `delsp=yes`), space-stuffing is removed; quoted lines and the `-- `
/// signature separator are left alone (quotes are removed later anyway).
fn unflow(text: &str, delsp: bool) -> String {
    let normal = text.replace("\r\n", "\n");
    let mut out = String::with_capacity(normal.len());
    let mut joining = false;
    for line in normal.split('\n') {
        let quoted = line.starts_with('>');
        let line = if !quoted {
            line.strip_prefix(' ').unwrap_or(line)
        } else {
            line
        };
        if !joining && !out.is_empty() {
            out.push('\n');
        }
        let soft = !quoted && line != "-- " && line.ends_with(' ');
        if soft && delsp {
            out.push_str(line.strip_suffix(' ').unwrap_or(line));
        } else {
            out.push_str(line);
        }
        joining = soft;
    }
    out
}

fn header_pairs(raw: &[u8]) -> Vec<(String, String)> {
    match mailparse::parse_headers(raw) {
        Ok((hs, _)) => hs.iter().map(|h| (h.get_key(), h.get_value())).collect(),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> InboundParsed {
        parse_inbound(s.as_bytes(), &Limits::default())
    }

    #[test]
    fn plain_mail_headers_and_text() {
        let p = parse(
            "Return-Path: <gibbon@example.com>\r\nDelivered-To: adj+abc@example.org\r\nFrom: \"John Gibbon\" <gibbon@example.com>\r\nTo: Adjutant <adj+abc@example.org>\r\nSubject: Orders\r\nDate: Sat, 21 Nov 2026 14:02:00 +0000\r\nMessage-ID: < x1@mail.example.com >\r\nIn-Reply-To: <report.brawner.3@example.org>\r\nReferences: <a@b> <report.brawner.3@example.org>\r\n\r\n2nd Wisconsin: advance.\r\n\r\n-- \r\nJG\r\n",
        );
        assert_eq!(p.message_id.as_deref(), Some("x1@mail.example.com"));
        let from = p.from.clone().unwrap();
        assert_eq!(from.address, "gibbon@example.com");
        assert_eq!(from.name.as_deref(), Some("John Gibbon"));
        assert_eq!(p.return_path.as_deref(), Some("gibbon@example.com"));
        assert_eq!(p.delivered_to, vec!["adj+abc@example.org"]);
        assert_eq!(p.in_reply_to, vec!["report.brawner.3@example.org"]);
        assert_eq!(p.references.len(), 2);
        assert_eq!(p.date, Some(1_795_269_720));
        assert_eq!(p.text, "2nd Wisconsin: advance.");
        assert!(p.signature_cut);
        assert_eq!(p.body_source, BodySource::Plain);
        assert_eq!(p.sha256.len(), 64);
    }

    #[test]
    fn format_flowed_lines_are_joined() {
        assert_eq!(
            unflow(
                "2nd Wisconsin: advance to the \r\nfarm in line.\r\n Stuffed\r\n-- \r\nsig",
                false
            ),
            "2nd Wisconsin: advance to the farm in line.\nStuffed\n-- \nsig"
        );
        assert_eq!(unflow("ab \ncd", true), "abcd");
        let p = parse(
            "From: a@example.com\nContent-Type: text/plain; charset=utf-8; format=flowed\n\n6th Wisconsin: march by the turnpike to the edge of the woods, then \nform line facing north.\n",
        );
        assert_eq!(
            p.text,
            "6th Wisconsin: march by the turnpike to the edge of the woods, then form line facing north."
        );
    }

    #[test]
    fn empty_plain_alternative_falls_back_to_html() {
        let p = parse(
            "From: a@example.com\nContent-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/plain\n\n \n--b\nContent-Type: text/html\n\n<p>19th Indiana: hold.</p>\n--b--\n",
        );
        assert_eq!(p.body_source, BodySource::Html);
        assert_eq!(p.text, "19th Indiana: hold.");
    }

    #[test]
    fn outlook_html_only_reply_is_cut_at_the_header_block() {
        let p = parse(
            "From: a@example.com\nContent-Type: text/html\n\n<div><p>2nd Wisconsin: hold.</p><div id=\"divRplyFwdMsg\"><hr><p><b>From:</b> Adjutant<br><b>Sent:</b> Sunday<br><b>To:</b> Gibbon</p></div><p>Turn 3.</p></div>",
        );
        assert_eq!(p.text, "2nd Wisconsin: hold.");
    }

    #[test]
    fn garbage_never_fails() {
        for raw in [
            &b""[..],
            b"\xff\xfe\x00",
            b"no headers at all",
            b"Content-Type: multipart/mixed; boundary=\"x\"\n\n--x\n",
        ] {
            let p = parse_inbound(raw, &Limits::default());
            assert_eq!(p.sha256.len(), 64);
        }
    }

    #[test]
    fn over_byte_limit_reads_headers_only() {
        let raw = format!("From: a@example.com\nSubject: big\n\n{}", "x".repeat(2000));
        let p = parse_inbound(
            raw.as_bytes(),
            &Limits {
                max_bytes: 100,
                max_lines: 10,
            },
        );
        assert!(p.over_limit.unwrap().contains("bytes"));
        assert_eq!(p.subject.as_deref(), Some("big"));
        assert!(p.text.is_empty());
    }

    #[test]
    fn over_line_limit_truncates() {
        let raw = format!("From: a@example.com\n\n{}", "hold\n".repeat(30));
        let p = parse_inbound(
            raw.as_bytes(),
            &Limits {
                max_bytes: 10_000,
                max_lines: 10,
            },
        );
        assert!(p.over_limit.unwrap().contains("lines"));
        assert_eq!(p.text.lines().count(), 10);
    }
}
