//! Building outbound mail (RFC 5322 + MIME) as bytes, by hand: a reply is a
//! small, fixed shape and writing it here keeps it pure (no clock, no
//! randomness, no I/O: the caller gives the Date and the Message-ID), so the
//! same report composed twice is byte-identical and a resend is recognisable
//! as a duplicate by its Message-ID.
//!
//! Every message carries `Auto-Submitted: auto-generated` (RFC 3834) so that
//! well-behaved auto-responders never answer it, and `X-Auto-Response-
//! Suppress: All` so Exchange does not send out-of-office replies to it.
//! Text parts are UTF-8 quoted-printable (readable in any mail archive, safe
//! for any line length); attachments are base64. Boundaries start with `=_`,
//! which neither encoding can produce, so they can never clash with content.

use crate::mail::address::Mailbox;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc2822;

/// A message could not be built from what the caller gave.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ComposeError {
    #[error(
        "`{0}` is not a usable mail address (it needs exactly one @, no spaces, brackets or line breaks, and only ASCII); fix the player's or the server's address"
    )]
    BadAddress(String),
    #[error("the message has no recipient; give at least one To address")]
    NoRecipient,
    #[error(
        "`{0}` is not a usable Message-ID (it needs one @ and no spaces, brackets or line breaks)"
    )]
    BadMessageId(String),
    #[error("header name `{0}` is not allowed; use letters, digits and hyphens only")]
    BadHeaderName(String),
    #[error("the date cannot be written in RFC 5322 form: {0}")]
    Date(String),
}

/// A file attached to a report (e.g. the PNG map).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub filename: String,
    /// MIME type, e.g. `image/png`.
    pub content_type: String,
    pub data: Vec<u8>,
}

/// Everything that goes into one outbound mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outbound {
    pub from: Mailbox,
    pub to: Vec<Mailbox>,
    /// Usually the game master address with the player's reply token.
    pub reply_to: Option<Mailbox>,
    pub subject: String,
    /// Without angle brackets; see [`message_id`].
    pub message_id: String,
    /// Without angle brackets.
    pub in_reply_to: Option<String>,
    /// Without angle brackets, oldest first.
    pub references: Vec<String>,
    pub date: OffsetDateTime,
    pub text: String,
    /// When given, the body is multipart/alternative (text + HTML).
    pub html: Option<String>,
    pub attachments: Vec<Attachment>,
    /// Extra headers such as `X-Adjutant-Game`; values are single-line.
    pub extra_headers: Vec<(String, String)>,
}

/// A stable Message-ID `kind.game.id@domain` (no brackets): the same report
/// for the same game gets the same ID, so a resend after a crash is a
/// duplicate to every mail system, not a second copy. Characters outside
/// RFC 5322 `atext` (including dots inside a part, which keeps the three
/// parts unambiguous) are replaced by `-`.
pub fn message_id(kind: &str, game: &str, id: &str, domain: &str) -> Result<String, ComposeError> {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| if is_atext(c) { c } else { '-' })
            .collect()
    };
    let domain = domain.trim();
    let out = format!("{}.{}.{}@{}", clean(kind), clean(game), clean(id), domain);
    check_message_id(&out)?;
    Ok(out)
}

/// The Message-ID every mail of one game refers to in `References`, so that
/// mail clients thread a whole game together.
pub fn game_thread_id(game: &str, domain: &str) -> Result<String, ComposeError> {
    message_id("game", game, "thread", domain)
}

fn is_atext(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c)
}

fn check_message_id(id: &str) -> Result<(), ComposeError> {
    let ok = id.matches('@').count() == 1
        && !id.starts_with('@')
        && !id.ends_with('@')
        && id
            .chars()
            .all(|c| c.is_ascii_graphic() && c != '<' && c != '>');
    if ok {
        Ok(())
    } else {
        Err(ComposeError::BadMessageId(id.to_string()))
    }
}

fn check_address(a: &str) -> Result<(), ComposeError> {
    let ok = a.matches('@').count() == 1
        && !a.starts_with('@')
        && !a.ends_with('@')
        && a.chars()
            .all(|c| c.is_ascii_graphic() && !"<>,;\"()[]\\".contains(c));
    if ok {
        Ok(())
    } else {
        Err(ComposeError::BadAddress(a.to_string()))
    }
}

/// RFC 2047 encoded words (UTF-8, base64), each 64 characters at most so a
/// line with a header name stays under 78,
/// split on character boundaries and joined by folding whitespace.
fn encoded_words(s: &str) -> String {
    let mut words = Vec::new();
    let mut chunk = String::new();
    for c in s.chars() {
        if chunk.len() + c.len_utf8() > 39 {
            words.push(std::mem::take(&mut chunk));
        }
        chunk.push(c);
    }
    if !chunk.is_empty() {
        words.push(chunk);
    }
    words
        .iter()
        .map(|w| format!("=?UTF-8?B?{}?=", data_encoding::BASE64.encode(w.as_bytes())))
        .collect::<Vec<_>>()
        .join("\r\n ")
}

/// Line breaks in a header value would let text inject headers.
fn single_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Unstructured header text (Subject): plain ASCII folded at spaces, or
/// encoded words when it holds anything else.
fn unstructured(s: &str) -> String {
    let s = single_line(s);
    if s.is_ascii() && !s.contains("=?") {
        fold(&s)
    } else {
        encoded_words(&s)
    }
}

/// Fold long ASCII text before a space so no line exceeds ~76 characters.
fn fold(s: &str) -> String {
    let mut out = String::new();
    let mut line_len = 10; // room for the header name
    for (i, word) in s.split(' ').enumerate() {
        if i > 0 {
            if line_len + 1 + word.len() > 76 {
                out.push_str("\r\n");
                line_len = 0;
            }
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += word.len();
    }
    out
}

fn display_name(name: &str) -> String {
    let name = single_line(name);
    if !name.is_ascii() {
        return encoded_words(&name);
    }
    if name.chars().all(|c| is_atext(c) || c == ' ') {
        return name;
    }
    let escaped = name.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

fn mailbox(m: &Mailbox) -> Result<String, ComposeError> {
    let addr = m.address.trim();
    check_address(addr)?;
    Ok(
        match m.name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => format!("{} <{addr}>", display_name(n)),
            None => addr.to_string(),
        },
    )
}

/// Quoted-printable (RFC 2045 §6.7) of UTF-8 text with CRLF line ends.
fn quoted_printable(text: &str) -> String {
    let normal = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::new();
    for (n, line) in normal.split('\n').enumerate() {
        if n > 0 {
            out.push_str("\r\n");
        }
        let bytes = line.as_bytes();
        let mut len = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let last = i + 1 == bytes.len();
            let literal = match b {
                b'=' => false,
                b' ' | b'\t' => !last,
                // "From " at a line start gets mangled by mbox tools.
                b'F' if i == 0 && line.starts_with("From ") => false,
                33..=126 => true,
                _ => false,
            };
            let token = if literal {
                char::from(b).to_string()
            } else {
                format!("={b:02X}")
            };
            if len + token.len() > 75 {
                out.push_str("=\r\n");
                len = 0;
            }
            out.push_str(&token);
            len += token.len();
        }
    }
    out
}

fn base64_lines(data: &[u8]) -> String {
    let enc = data_encoding::BASE64.encode(data);
    let mut out = String::with_capacity(enc.len() + enc.len() / 38);
    for (i, c) in enc.chars().enumerate() {
        if i > 0 && i % 76 == 0 {
            out.push_str("\r\n");
        }
        out.push(c);
    }
    out
}

fn boundary(message_id: &str, level: &str) -> String {
    let h = hex::encode(Sha256::digest(format!("{message_id}/{level}").as_bytes()));
    format!("=_adjutant_{level}_{}", h.get(..20).unwrap_or(&h))
}

fn text_part(subtype: &str, body: &str) -> String {
    let mut qp = quoted_printable(body);
    // Text that already ends in a newline must not gain a blank line.
    if !qp.ends_with("\r\n") {
        qp.push_str("\r\n");
    }
    format!(
        "Content-Type: text/{subtype}; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{qp}"
    )
}

fn ascii_filename(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._- ".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let cleaned = cleaned.trim().to_string();
    if cleaned.is_empty() {
        "attachment".into()
    } else {
        cleaned
    }
}

fn attachment_part(a: &Attachment) -> String {
    let ctype: String = a
        .content_type
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "/.+-".contains(*c))
        .collect();
    let ctype = if ctype.contains('/') {
        ctype
    } else {
        "application/octet-stream".into()
    };
    let name = ascii_filename(&a.filename);
    format!(
        "Content-Type: {ctype}; name=\"{name}\"\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=\"{name}\"\r\n\r\n{}\r\n",
        base64_lines(&a.data)
    )
}

fn multipart(subtype: &str, boundary: &str, parts: &[String]) -> String {
    let mut out = format!("Content-Type: multipart/{subtype}; boundary=\"{boundary}\"\r\n\r\n");
    for p in parts {
        let _ = write!(out, "--{boundary}\r\n{p}");
    }
    let _ = write!(out, "--{boundary}--\r\n");
    out
}

/// Build the bytes of one outbound mail (CRLF line ends).
pub fn compose(msg: &Outbound) -> Result<Vec<u8>, ComposeError> {
    if msg.to.is_empty() {
        return Err(ComposeError::NoRecipient);
    }
    check_message_id(&msg.message_id)?;
    let mut h = String::new();
    let date = msg
        .date
        .format(&Rfc2822)
        .map_err(|e| ComposeError::Date(e.to_string()))?;
    let _ = write!(h, "Date: {date}\r\n");
    let _ = write!(h, "From: {}\r\n", mailbox(&msg.from)?);
    let to = msg.to.iter().map(mailbox).collect::<Result<Vec<_>, _>>()?;
    let _ = write!(h, "To: {}\r\n", to.join(",\r\n "));
    if let Some(r) = &msg.reply_to {
        let _ = write!(h, "Reply-To: {}\r\n", mailbox(r)?);
    }
    let _ = write!(h, "Subject: {}\r\n", unstructured(&msg.subject));
    let _ = write!(h, "Message-ID: <{}>\r\n", msg.message_id);
    if let Some(irt) = &msg.in_reply_to {
        check_message_id(irt)?;
        let _ = write!(h, "In-Reply-To: <{irt}>\r\n");
    }
    if !msg.references.is_empty() {
        for r in &msg.references {
            check_message_id(r)?;
        }
        let refs: Vec<String> = msg.references.iter().map(|r| format!("<{r}>")).collect();
        let _ = write!(h, "References: {}\r\n", refs.join("\r\n "));
    }
    for (name, value) in &msg.extra_headers {
        let name_ok =
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !name_ok {
            return Err(ComposeError::BadHeaderName(name.clone()));
        }
        let _ = write!(h, "{name}: {}\r\n", unstructured(value));
    }
    h.push_str("MIME-Version: 1.0\r\n");
    h.push_str("Auto-Submitted: auto-generated\r\n");
    h.push_str("X-Auto-Response-Suppress: All\r\n");

    let body = match &msg.html {
        Some(html) => multipart(
            "alternative",
            &boundary(&msg.message_id, "alt"),
            &[text_part("plain", &msg.text), text_part("html", html)],
        ),
        None => text_part("plain", &msg.text),
    };
    let body = if msg.attachments.is_empty() {
        body
    } else {
        let mut parts = vec![body];
        parts.extend(msg.attachments.iter().map(attachment_part));
        multipart("mixed", &boundary(&msg.message_id, "mix"), &parts)
    };
    h.push_str(&body);
    Ok(h.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qp_keeps_lines_short_and_encodes_specials() {
        let long = "x".repeat(200);
        let qp = quoted_printable(&format!("a = b \nFrom here\n{long}\nnaïve"));
        assert!(qp.lines().all(|l| l.len() <= 76), "{qp}");
        assert!(qp.starts_with("a =3D b=20\r\n=46rom here\r\n"));
        assert!(qp.ends_with("na=C3=AFve"));
    }

    #[test]
    fn message_ids_are_stable_and_sanitised() {
        assert_eq!(
            message_id("report", "brawner farm", "3.gibbon", "adj.example.org").unwrap(),
            "report.brawner-farm.3-gibbon@adj.example.org"
        );
        assert!(message_id("r", "g", "i", "").is_err());
    }

    #[test]
    fn names_are_quoted_or_encoded() {
        assert_eq!(display_name("John Gibbon"), "John Gibbon");
        assert_eq!(display_name("Gibbon, John"), "\"Gibbon, John\"");
        assert!(display_name("Frösche").starts_with("=?UTF-8?B?"));
    }

    #[test]
    fn header_injection_is_flattened() {
        assert_eq!(single_line("hi\r\nBcc: x@y"), "hi  Bcc: x@y");
        assert!(check_address("a@b\r\nBcc: c@d").is_err());
    }
}
