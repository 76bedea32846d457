//! Building outbound mail (RFC 5322 + MIME) as bytes. Every header, of the
//! message and of each MIME part, is built with `lettre`'s typed headers
//! (`Date`, `From`, `ContentType`, `ContentDisposition`, ...) and written
//! by its `Headers`, which quotes, encodes and folds them; only the body
//! encodings are done here. Composing stays pure (no clock, no randomness,
//! no I/O: the caller gives the Date, the Message-ID and the boundaries
//! derive from it), so the same report composed twice is byte-identical and
//! a resend is recognisable as a duplicate by its Message-ID.
//!
//! Every message carries `Auto-Submitted: auto-generated` (RFC 3834) so that
//! well-behaved auto-responders never answer it, and `X-Auto-Response-
//! Suppress: All` so Exchange does not send out-of-office replies to it.
//! Text parts are UTF-8 quoted-printable (readable in any mail archive, safe
//! for any line length); attachments are base64. Boundaries start with `=_`,
//! which neither encoding can produce, so they can never clash with content.

use crate::mail::address::Mailbox;
use lettre::message::header::{
    self as lh, ContentDisposition, ContentTransferEncoding, HeaderName, HeaderValue, Headers,
};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use time::OffsetDateTime;

/// A MIME type with its parameters, typed (e.g. `text/html; charset=utf-8`).
pub use lettre::message::header::ContentType;

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
    #[error(
        "`{0}` is not a MIME type Adjutant can send, e.g. `image/png` or `text/html; charset=utf-8`"
    )]
    BadContentType(String),
    #[error("the date cannot be written in RFC 5322 form: {0}")]
    Date(String),
}

/// A MIME type as text, typed; an unusable one is an error of the caller.
pub fn content_type(text: &str) -> Result<ContentType, ComposeError> {
    ContentType::parse(text).map_err(|_| ComposeError::BadContentType(text.to_string()))
}

/// A file attached to a report (e.g. the PNG map).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub filename: String,
    /// MIME type with its parameters, typed ([`content_type`] reads one).
    pub content_type: ContentType,
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

/// Line breaks in a header value would let text inject headers.
fn single_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Our mailbox as lettre's typed one (the address checked first, so a bad
/// one is our error with our wording).
fn mailbox(m: &Mailbox) -> Result<lettre::message::Mailbox, ComposeError> {
    let addr = m.address.trim();
    check_address(addr)?;
    let address: lettre::Address = addr
        .parse()
        .map_err(|_| ComposeError::BadAddress(addr.to_string()))?;
    let name = m.name.as_deref().map(single_line).filter(|n| !n.is_empty());
    Ok(lettre::message::Mailbox::new(name, address))
}

/// A header lettre has no type for, its value encoded by lettre as needed.
fn raw_header(name: &str, value: &str) -> Result<HeaderValue, ComposeError> {
    let name_ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let header = HeaderName::new_from_ascii(name.to_string())
        .ok()
        .filter(|_| name_ok)
        .ok_or_else(|| ComposeError::BadHeaderName(name.to_string()))?;
    Ok(HeaderValue::new(header, single_line(value)))
}

/// A Message-ID header value: one id in angle brackets.
fn angle(id: &str) -> String {
    format!("<{id}>")
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
    // 57 bytes are exactly one 76-character line (no padding but the
    // last), encoded straight into the output: a report's map is tens of
    // kilobytes, and pushing it a character at a time was a visible part
    // of a turn (benches/games.rs `long_game`).
    let len = data_encoding::BASE64.encode_len(data.len());
    let mut out = String::with_capacity(len + len / 38 + 2);
    for (i, line) in data.chunks(57).enumerate() {
        if i > 0 {
            out.push_str("\r\n");
        }
        data_encoding::BASE64.encode_append(line, &mut out);
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
    let mut h = Headers::new();
    let ctype = if subtype == "html" {
        ContentType::TEXT_HTML
    } else {
        ContentType::TEXT_PLAIN
    };
    h.set(ctype);
    h.set(ContentTransferEncoding::QuotedPrintable);
    format!("{h}\r\n{qp}")
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
    let name = ascii_filename(&a.filename);
    let mut h = Headers::new();
    h.set(a.content_type.clone());
    h.set(ContentTransferEncoding::Base64);
    h.set(ContentDisposition::attachment(&name));
    format!("{h}\r\n{}\r\n", base64_lines(&a.data))
}

fn multipart(subtype: &str, boundary: &str, parts: &[String]) -> String {
    let mut h = Headers::new();
    // The boundary is ours ([`boundary`]): letters, digits, `=` and `_`.
    let ctype = content_type(&format!("multipart/{subtype}; boundary=\"{boundary}\""))
        .unwrap_or(ContentType::TEXT_PLAIN);
    h.set(ctype);
    let mut out = format!("{h}\r\n");
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
    let mut h = Headers::new();
    let date = std::time::SystemTime::UNIX_EPOCH
        .checked_add(std::time::Duration::from_secs(
            u64::try_from(msg.date.unix_timestamp())
                .map_err(|_| ComposeError::Date(msg.date.to_string()))?,
        ))
        .ok_or_else(|| ComposeError::Date(msg.date.to_string()))?;
    h.set(lh::Date::new(date));
    h.set(lh::From::from(lettre::message::Mailboxes::from(mailbox(
        &msg.from,
    )?)));
    let to = msg
        .to
        .iter()
        .map(mailbox)
        .collect::<Result<lettre::message::Mailboxes, _>>()?;
    h.set(lh::To::from(to));
    if let Some(r) = &msg.reply_to {
        h.set(lh::ReplyTo::from(lettre::message::Mailboxes::from(
            mailbox(r)?,
        )));
    }
    h.set(lh::Subject::from(single_line(&msg.subject)));
    h.set(lh::MessageId::from(angle(&msg.message_id)));
    if let Some(irt) = &msg.in_reply_to {
        check_message_id(irt)?;
        h.set(lh::InReplyTo::from(angle(irt)));
    }
    if !msg.references.is_empty() {
        for r in &msg.references {
            check_message_id(r)?;
        }
        let refs: Vec<String> = msg.references.iter().map(|r| angle(r)).collect();
        h.set(lh::References::from(refs.join(" ")));
    }
    for (name, value) in &msg.extra_headers {
        h.insert_raw(raw_header(name, value)?);
    }
    h.set(lh::MIME_VERSION_1_0);
    h.insert_raw(raw_header("Auto-Submitted", "auto-generated")?);
    h.insert_raw(raw_header("X-Auto-Response-Suppress", "All")?);
    let mut h = h.to_string();

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
    fn base64_lines_are_76_characters_of_one_encoding() {
        for n in [0usize, 1, 2, 3, 56, 57, 58, 113, 114, 115, 1000, 66_000] {
            let data: Vec<u8> = (0..n).map(|i| (i * 7 + i / 13) as u8).collect();
            let got = base64_lines(&data);
            let lines: Vec<&str> = got.split("\r\n").collect();
            assert!(lines.iter().all(|l| l.len() <= 76), "{n}");
            assert!(
                lines[..lines.len() - 1].iter().all(|l| l.len() == 76),
                "{n}"
            );
            assert_eq!(lines.concat(), data_encoding::BASE64.encode(&data), "{n}");
        }
    }

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
        let header = |name: &str| {
            let mut h = Headers::new();
            let m = mailbox(&Mailbox::named(name, "a@example.org".to_string())).unwrap();
            h.set(lh::From::from(lettre::message::Mailboxes::from(m)));
            h.to_string()
        };
        assert!(header("John Gibbon").contains("John Gibbon\" <a@example.org>"));
        let comma = header("Gibbon, John");
        assert!(
            comma.contains("Gibbon, John\" <") || comma.contains("=?utf-8?"),
            "{comma}"
        );
        assert!(
            header("Frösche").contains("=?utf-8?b?"),
            "{}",
            header("Frösche")
        );
    }

    #[test]
    fn every_content_type_keeps_its_parameters() {
        let a = Attachment {
            filename: "history-turn-3.html".into(),
            content_type: ContentType::TEXT_HTML,
            data: b"<p>x</p>".to_vec(),
        };
        let part = attachment_part(&a);
        assert!(
            part.starts_with("Content-Type: text/html; charset=utf-8\r\n"),
            "{part}"
        );
        assert!(content_type("not a type").is_err());
    }

    #[test]
    fn header_injection_is_flattened() {
        assert_eq!(single_line("hi\r\nBcc: x@y"), "hi  Bcc: x@y");
        assert!(check_address("a@b\r\nBcc: c@d").is_err());
    }
}
