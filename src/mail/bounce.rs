//! Reading bounces: which of our recipients failed, how, and which of our
//! messages it was.
//!
//! Recognised, in order of trust:
//! 1. RFC 3464 delivery status notifications (`multipart/report;
//!    report-type=delivery-status`, as sent by Postfix, Exim 4 with DSN,
//!    Exchange, Gmail, Sendmail): per-recipient `Final-Recipient`,
//!    `Action`, `Status`, `Diagnostic-Code`; original Message-ID from the
//!    `message/rfc822` or `text/rfc822-headers` part.
//! 2. Exim's plain-text bounce ("The following address(es) failed:" with
//!    indented addresses, `X-Failed-Recipients` header, original after
//!    "------ This is a copy of the message").
//! 3. qmail's plain-text bounce ("Hi. This is the qmail-send program";
//!    `<address>:` lines; original after "--- Below this line is a copy").
//! 4. Anything else from a null or daemon sender: recipients only from
//!    `X-Failed-Recipients`, Message-ID from a `Message-ID:` line in the body.

use crate::mail::parse::InboundParsed;
use serde::{Deserialize, Serialize};

/// Which bounce format was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BounceFormat {
    /// RFC 3464 `message/delivery-status`.
    Dsn,
    /// Exim plain text.
    Exim,
    /// qmail plain text.
    Qmail,
    /// Unrecognised text from a daemon; best effort.
    Unknown,
}

/// One recipient the bounce reports on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedRecipient {
    pub address: String,
    /// DSN action: `failed`, `delayed`, `delivered`, `relayed`, `expanded`.
    pub action: Option<String>,
    /// Enhanced status code (RFC 3463), e.g. `5.1.1`.
    pub status: Option<String>,
    /// The remote server's words, if given.
    pub diagnostic: Option<String>,
}

impl FailedRecipient {
    /// Permanent failure: action `failed` or a 5.x.x status. A `delayed`
    /// notice is not a failure; the mail may still arrive.
    pub fn is_permanent(&self) -> bool {
        let act = self.action.as_deref().map(str::to_ascii_lowercase);
        match act.as_deref() {
            Some("failed") => true,
            Some(_) => false,
            None => self.status.as_deref().is_none_or(|s| s.starts_with('5')),
        }
    }
}

/// What a bounce says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BounceInfo {
    pub format: BounceFormat,
    pub recipients: Vec<FailedRecipient>,
    /// Message-ID (no brackets) of our mail that bounced, if it could be found.
    pub original_message_id: Option<String>,
    pub reporting_mta: Option<String>,
}

impl BounceInfo {
    /// Does any recipient fail permanently?
    pub fn is_permanent_failure(&self) -> bool {
        self.recipients.iter().any(FailedRecipient::is_permanent)
    }
}

/// Read a DSN or text bounce from a parsed mail. `None` when the mail holds
/// no delivery report and no recognisable bounce text.
pub fn read_bounce(p: &InboundParsed, from_daemon: bool) -> Option<BounceInfo> {
    if let Some(ds) = &p.delivery_status {
        let (reporting_mta, mut recipients) = parse_delivery_status(ds);
        add_failed_header(p, &mut recipients);
        return Some(BounceInfo {
            format: BounceFormat::Dsn,
            recipients,
            original_message_id: original_id(p, &p.body_text),
            reporting_mta,
        });
    }
    let failed_header = p.header("X-Failed-Recipients").is_some();
    if !from_daemon && !failed_header {
        return None;
    }
    let body = &p.body_text;
    let (format, mut recipients, original) = if body.contains("qmail-send program") {
        let (r, o) = parse_qmail(body);
        (BounceFormat::Qmail, r, o)
    } else if body.contains("address(es) failed") || body.contains("address(es) deferred") {
        let (r, o) = parse_exim(body);
        (BounceFormat::Exim, r, o)
    } else {
        (BounceFormat::Unknown, Vec::new(), None)
    };
    add_failed_header(p, &mut recipients);
    if format == BounceFormat::Unknown && recipients.is_empty() {
        return None;
    }
    let original_message_id = original
        .as_deref()
        .and_then(message_id_in_text)
        .or_else(|| original_id(p, body));
    Some(BounceInfo {
        format,
        recipients,
        original_message_id,
        reporting_mta: None,
    })
}

fn add_failed_header(p: &InboundParsed, recipients: &mut Vec<FailedRecipient>) {
    for (k, v) in &p.headers {
        if !k.eq_ignore_ascii_case("X-Failed-Recipients") {
            continue;
        }
        for a in v.split(',').map(|a| a.trim().trim_matches(['<', '>'])) {
            if a.contains('@') && !recipients.iter().any(|r| r.address.eq_ignore_ascii_case(a)) {
                recipients.push(FailedRecipient {
                    address: a.to_string(),
                    action: Some("failed".into()),
                    status: None,
                    diagnostic: None,
                });
            }
        }
    }
}

fn original_id(p: &InboundParsed, body: &str) -> Option<String> {
    p.original_headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Message-ID"))
        .map(|(_, v)| v.trim().trim_matches(['<', '>']).trim().to_string())
        .filter(|v| !v.is_empty())
        .or_else(|| message_id_in_text(body))
}

/// The first `Message-ID: <…>` header line inside some text.
fn message_id_in_text(text: &str) -> Option<String> {
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let Some((name, rest)) = t.split_once(':') else {
            continue;
        };
        if !name.eq_ignore_ascii_case("message-id") {
            continue;
        }
        let mut value = rest.trim().to_string();
        if value.is_empty() {
            // Folded onto the next line.
            value = lines
                .peek()
                .map(|l| l.trim().to_string())
                .unwrap_or_default();
        }
        let id = value.trim().trim_matches(['<', '>']).trim();
        if !id.is_empty() && !id.contains(' ') {
            return Some(id.to_string());
        }
    }
    None
}

/// Unfold RFC 822-style fields in one block and return (name, value) pairs.
fn fields(block: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in block.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
            }
        } else if let Some((k, v)) = line.split_once(':') {
            out.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    out
}

/// `rfc822; user@example.com` → `user@example.com`.
fn typed_value(v: &str) -> String {
    v.split_once(';')
        .map(|(_, a)| a)
        .unwrap_or(v)
        .trim()
        .trim_matches(['<', '>'])
        .to_string()
}

/// RFC 3464 §2.1: a per-message block, then one block per recipient,
/// separated by blank lines.
fn parse_delivery_status(ds: &str) -> (Option<String>, Vec<FailedRecipient>) {
    let normal = ds.replace("\r\n", "\n");
    let mut reporting = None;
    let mut recipients = Vec::new();
    for block in normal.split("\n\n") {
        let f = fields(block);
        let get = |name: &str| f.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        if let Some(r) = get("reporting-mta") {
            reporting.get_or_insert(typed_value(&r));
        }
        let addr = get("final-recipient").or_else(|| get("original-recipient"));
        if let Some(addr) = addr {
            recipients.push(FailedRecipient {
                address: typed_value(&addr),
                action: get("action").map(|a| a.to_ascii_lowercase()),
                status: get("status")
                    .map(|s| s.split_whitespace().next().unwrap_or_default().to_string()),
                diagnostic: get("diagnostic-code").map(|d| typed_value_keep(&d)),
            });
        }
    }
    (reporting, recipients)
}

/// `smtp; 550 5.1.1 …` → `550 5.1.1 …` (keeps everything after the type).
fn typed_value_keep(v: &str) -> String {
    v.split_once(';')
        .map(|(_, a)| a)
        .unwrap_or(v)
        .trim()
        .to_string()
}

/// An enhanced status code (`5.1.1`) anywhere in a text.
fn status_in(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|w| {
            let parts: Vec<&str> = w.split('.').collect();
            parts.len() == 3
                && matches!(parts.first(), Some(&"2" | &"4" | &"5"))
                && parts.iter().all(|p| !p.is_empty() && p.len() <= 3)
        })
        .map(str::to_string)
}

fn parse_exim(body: &str) -> (Vec<FailedRecipient>, Option<String>) {
    let (report, original) = match body.find("------ This is a copy of the message") {
        Some(i) => (body.get(..i).unwrap_or(body), body.get(i..)),
        None => (body, None),
    };
    let mut recipients: Vec<FailedRecipient> = Vec::new();
    let mut in_list = false;
    let mut deferred = false;
    for line in report.lines() {
        if line.contains("address(es) failed") || line.contains("address(es) deferred") {
            in_list = true;
            deferred = line.contains("deferred");
            continue;
        }
        if !in_list || line.trim().is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if indent > 0 && indent <= 2 && t.contains('@') && !t.contains(' ') {
            recipients.push(FailedRecipient {
                address: t.trim_matches(['<', '>']).to_string(),
                action: Some(if deferred { "delayed" } else { "failed" }.into()),
                status: None,
                diagnostic: None,
            });
        } else if indent > 2 {
            if let Some(r) = recipients.last_mut() {
                let d = r.diagnostic.get_or_insert_with(String::new);
                if !d.is_empty() {
                    d.push(' ');
                }
                d.push_str(t);
            }
        } else if indent == 0 && !recipients.is_empty() {
            in_list = false;
        }
    }
    for r in &mut recipients {
        r.status = r.diagnostic.as_deref().and_then(status_in);
    }
    (recipients, original.map(str::to_string))
}

fn parse_qmail(body: &str) -> (Vec<FailedRecipient>, Option<String>) {
    let (report, original) = match body.find("--- Below this line is a copy of the message") {
        Some(i) => (body.get(..i).unwrap_or(body), body.get(i..)),
        None => (body, None),
    };
    let mut recipients: Vec<FailedRecipient> = Vec::new();
    let mut current: Option<FailedRecipient> = None;
    for line in report.lines() {
        let t = line.trim();
        if t.starts_with('<') && t.ends_with(">:") && t.contains('@') {
            if let Some(r) = current.take() {
                recipients.push(r);
            }
            current = Some(FailedRecipient {
                address: t.trim_end_matches(':').trim_matches(['<', '>']).to_string(),
                action: Some("failed".into()),
                status: None,
                diagnostic: None,
            });
        } else if t.is_empty() {
            if let Some(r) = current.take() {
                recipients.push(r);
            }
        } else if let Some(r) = current.as_mut() {
            let d = r.diagnostic.get_or_insert_with(String::new);
            if !d.is_empty() {
                d.push(' ');
            }
            d.push_str(t);
        }
    }
    if let Some(r) = current.take() {
        recipients.push(r);
    }
    for r in &mut recipients {
        r.status = r.diagnostic.as_deref().and_then(status_in);
    }
    (recipients, original.map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_status_blocks_with_folding() {
        let ds = "Reporting-MTA: dns; mx.example.org\nArrival-Date: Sat, 21 Nov 2026\n\nFinal-Recipient: rfc822; gone@example.com\nOriginal-Recipient: rfc822;gone@example.com\nAction: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1 <gone@example.com>:\n    Recipient address rejected: User unknown\n\nFinal-Recipient: rfc822; slow@example.net\nAction: delayed\nStatus: 4.4.1\n";
        let (mta, r) = parse_delivery_status(ds);
        assert_eq!(mta.as_deref(), Some("mx.example.org"));
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].address, "gone@example.com");
        assert_eq!(r[0].status.as_deref(), Some("5.1.1"));
        assert!(
            r[0].diagnostic
                .as_deref()
                .unwrap()
                .ends_with("User unknown")
        );
        assert!(r[0].is_permanent());
        assert!(!r[1].is_permanent());
    }

    #[test]
    fn qmail_text() {
        let body = "Hi. This is the qmail-send program at mail.example.net.\nI'm afraid I wasn't able to deliver your message to the following addresses.\nThis is a permanent error; I've given up. Sorry it didn't work out.\n\n<nobody@example.net>:\nSorry, no mailbox here by that name. (#5.1.1)\n\n--- Below this line is a copy of the message.\n\nReturn-Path: <adj@example.org>\nMessage-ID: <report.brawner.3@example.org>\n\nbody\n";
        let (r, orig) = parse_qmail(body);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].address, "nobody@example.net");
        assert_eq!(r[0].status.as_deref(), Some("5.1.1"));
        assert_eq!(
            message_id_in_text(&orig.unwrap()).as_deref(),
            Some("report.brawner.3@example.org")
        );
    }

    #[test]
    fn status_code_search() {
        assert_eq!(status_in("550 5.1.1 <x@y>").as_deref(), Some("5.1.1"));
        assert_eq!(status_in("said 1.2.3.4 hello"), None);
    }
}
