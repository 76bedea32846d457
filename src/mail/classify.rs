//! May we answer this mail? Auto-replies answering auto-replies are how mail
//! loops start, and the old judges answered bounces with more bounces. A
//! mail is answered only when it is [`Class::Normal`]; everything else is
//! stored and, for bounces, recorded against the player's address.
//!
//! Checks, in order (the first that fires decides):
//! 1. **Own** — `From`/`Sender` is one of our addresses (sub-addresses
//!    `+tag` included) or the Message-ID is in our Message-ID domain: our
//!    own outbound mail came back (alias loop, list echo, forged From).
//! 2. **Bounce** — an RFC 3464 delivery report, or bounce text from a
//!    null/daemon sender that [`bounce::read_bounce`] can read.
//! 3. **Automatic** — any of (RFC 3834 and established practice):
//!    `Auto-Submitted` other than `no`; `Precedence: bulk|junk|list`
//!    (and `auto_reply`); `List-Id`, `List-Unsubscribe` or `List-Post`;
//!    an empty `Return-Path: <>`; a sender whose local part is
//!    `mailer-daemon`, `postmaster`, `mail-daemon`, or a no-reply address
//!    (`noreply`, `no-reply`, `do-not-reply`, `donotreply`) — an answer
//!    to those bounces or is never read; `X-Autoreply` or `X-Autorespond`
//!    (any value but `no`); `X-Auto-Response-Suppress` naming `All`,
//!    `OOF` or `AutoReply` (Exchange puts `All` on its own auto-replies;
//!    `DR`/`NDR`/`RN`/`NRN` alone only refuse receipts and are not enough);
//!    a non-DSN `multipart/report` (read receipts, abuse feedback).
//! 4. **Out-of-office subject** (`Out of Office`, `Automatic reply`,
//!    `Auto-Reply`, `Autoreply`, `Abwesenheitsnotiz`, `Réponse
//!    automatique`, `Away from`, `On vacation`) — only a supporting signal:
//!    it counts when the mail also answers one of our messages
//!    (`In-Reply-To`/`References` in our Message-ID domain), because a
//!    player may well write "Out of office next week" as a subject.

use crate::mail::address::address_key;
use crate::mail::bounce::{self, BounceInfo};
use crate::mail::parse::InboundParsed;
use serde::{Deserialize, Serialize};

/// Why a mail is automatic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AutoReason {
    /// `Auto-Submitted: <value>` (RFC 3834).
    AutoSubmitted(String),
    /// `Precedence: <value>`.
    Precedence(String),
    /// A mailing-list header (`List-Id`, …), by name.
    MailingList(String),
    /// `Return-Path: <>`.
    NullSender,
    /// From a daemon, postmaster or no-reply address.
    DaemonSender(String),
    /// `X-Autoreply`, `X-Autorespond` or `X-Auto-Response-Suppress`, by name.
    AutoReplyHeader(String),
    /// `multipart/report` of the given report-type that is not a DSN.
    Report(String),
    /// Out-of-office subject on a reply to our own mail.
    OutOfOfficeSubject(String),
}

/// What kind of mail this is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Class {
    /// A person wrote it; it may be answered (once).
    Normal,
    /// Machine-generated; never answer.
    Automatic(AutoReason),
    /// A delivery failure report; never answer, record it.
    Bounce(BounceInfo),
    /// Our own mail came back; never answer.
    Own,
}

impl Class {
    /// Only normal mail is ever answered.
    pub fn may_answer(&self) -> bool {
        matches!(self, Class::Normal)
    }
}

/// `local+tag@domain` → `local@domain`, lower-cased, for comparing with
/// our own addresses.
fn base_address(addr: &str) -> String {
    let key = address_key(addr);
    match key.rsplit_once('@') {
        Some((local, domain)) => {
            let local = local.split('+').next().unwrap_or(local);
            format!("{local}@{domain}")
        }
        None => key,
    }
}

fn local_part(addr: &str) -> String {
    let key = address_key(addr);
    key.rsplit_once('@')
        .map(|(l, _)| l.to_string())
        .unwrap_or(key)
}

fn in_domain(msgid: &str, domain: &str) -> bool {
    let domain = domain.trim().trim_start_matches('@').to_ascii_lowercase();
    !domain.is_empty()
        && msgid
            .trim()
            .trim_matches(['<', '>'])
            .rsplit_once('@')
            .is_some_and(|(_, d)| d.to_ascii_lowercase() == domain)
}

const DAEMON_LOCALS: &[&str] = &[
    "mailer-daemon",
    "mailer_daemon",
    "mail-daemon",
    "maildaemon",
    "postmaster",
    "noreply",
    "no-reply",
    "no_reply",
    "do-not-reply",
    "donotreply",
    "do_not_reply",
];

const OOF_SUBJECTS: &[&str] = &[
    "out of office",
    "out of the office",
    "automatic reply",
    "auto-reply",
    "autoreply",
    "auto reply",
    "abwesenheitsnotiz",
    "réponse automatique",
    "away from",
    "on vacation",
    "vacation reply",
];

/// Classify one parsed inbound mail. `our_addresses` are every address we
/// send from or receive on; `our_message_id_domain` is the right-hand side
/// of the Message-IDs we generate.
pub fn classify(p: &InboundParsed, our_addresses: &[String], our_message_id_domain: &str) -> Class {
    let ours: Vec<String> = our_addresses.iter().map(|a| base_address(a)).collect();
    let senders: Vec<&str> = p
        .from
        .iter()
        .chain(p.sender.iter())
        .map(|m| m.address.as_str())
        .collect();
    if senders.iter().any(|s| ours.contains(&base_address(s)))
        || p.message_id
            .as_deref()
            .is_some_and(|m| in_domain(m, our_message_id_domain))
    {
        return Class::Own;
    }

    let null_sender = p.return_path.as_deref() == Some("");
    let daemon = senders
        .iter()
        .map(|s| local_part(s))
        .find(|l| DAEMON_LOCALS.contains(&l.as_str()));
    let is_dsn = p.report_type.as_deref() == Some("delivery-status") || p.delivery_status.is_some();
    let maybe_bounce =
        is_dsn || null_sender || daemon.is_some() || p.header("X-Failed-Recipients").is_some();
    if maybe_bounce && let Some(info) = bounce::read_bounce(p, null_sender || daemon.is_some()) {
        return Class::Bounce(info);
    }

    if let Some(reason) = automatic_reason(p, null_sender, daemon) {
        return Class::Automatic(reason);
    }

    if let Some(subject) = &p.subject {
        let lower = subject.to_lowercase();
        let answers_us = p
            .in_reply_to
            .iter()
            .chain(&p.references)
            .any(|id| in_domain(id, our_message_id_domain));
        if answers_us && OOF_SUBJECTS.iter().any(|s| lower.contains(s)) {
            return Class::Automatic(AutoReason::OutOfOfficeSubject(subject.clone()));
        }
    }
    Class::Normal
}

fn first_word(v: &str) -> String {
    v.split([';', ',', ' ', '\t'])
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn automatic_reason(
    p: &InboundParsed,
    null_sender: bool,
    daemon: Option<String>,
) -> Option<AutoReason> {
    for (name, value) in &p.headers {
        let n = name.to_ascii_lowercase();
        let v = value.trim();
        match n.as_str() {
            "auto-submitted" if !first_word(v).is_empty() && first_word(v) != "no" => {
                return Some(AutoReason::AutoSubmitted(v.to_string()));
            }
            "precedence"
                if matches!(
                    first_word(v).as_str(),
                    "bulk" | "junk" | "list" | "auto_reply"
                ) =>
            {
                return Some(AutoReason::Precedence(v.to_string()));
            }
            "list-id" | "list-unsubscribe" | "list-post" => {
                return Some(AutoReason::MailingList(name.clone()));
            }
            "x-autoreply" | "x-autorespond"
                if !matches!(first_word(v).as_str(), "no" | "false") =>
            {
                return Some(AutoReason::AutoReplyHeader(name.clone()));
            }
            "x-auto-response-suppress"
                if v.split(',')
                    .map(|t| t.trim().to_ascii_lowercase())
                    .any(|t| t == "all" || t == "oof" || t == "autoreply") =>
            {
                return Some(AutoReason::AutoReplyHeader(name.clone()));
            }
            _ => {}
        }
    }
    if null_sender {
        return Some(AutoReason::NullSender);
    }
    if let Some(d) = daemon {
        return Some(AutoReason::DaemonSender(d));
    }
    if p.content_type == "multipart/report" {
        let rt = p.report_type.clone().unwrap_or_else(|| "unknown".into());
        return Some(AutoReason::Report(rt));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::parse::{Limits, parse_inbound};

    fn class(raw: &str) -> Class {
        let p = parse_inbound(raw.as_bytes(), &Limits::default());
        classify(
            &p,
            &["adjutant@example.org".to_string()],
            "adjutant.example.org",
        )
    }

    #[test]
    fn plain_human_mail_is_normal() {
        assert_eq!(
            class("From: a@example.com\nSubject: orders\n\nhold\n"),
            Class::Normal
        );
        assert_eq!(
            class(
                "From: a@example.com\nAuto-Submitted: no\nSubject: Out of office next week\n\nhold\n"
            ),
            Class::Normal
        );
    }

    #[test]
    fn own_mail_by_from_subaddress_or_message_id() {
        assert_eq!(class("From: Adjutant+x@Example.org\n\nx"), Class::Own);
        assert_eq!(
            class("From: a@example.com\nMessage-ID: <report.g.1@adjutant.example.org>\n\nx"),
            Class::Own
        );
    }

    #[test]
    fn header_signals() {
        for h in [
            "Auto-Submitted: auto-replied",
            "Precedence: bulk",
            "Precedence: list",
            "List-Id: <x.example.com>",
            "List-Unsubscribe: <mailto:u@example.com>",
            "X-Autoreply: yes",
            "X-Autorespond: vacation",
            "X-Auto-Response-Suppress: All",
            "X-Auto-Response-Suppress: DR, OOF",
            "Return-Path: <>",
        ] {
            let c = class(&format!("From: a@example.com\n{h}\n\nx"));
            assert!(matches!(c, Class::Automatic(_)), "{h}: {c:?}");
        }
        assert_eq!(
            class("From: a@example.com\nX-Auto-Response-Suppress: DR, RN\n\nx"),
            Class::Normal
        );
    }

    #[test]
    fn daemon_senders_without_bounce_text_are_automatic() {
        let c = class("From: MAILER-DAEMON@mx.example.com\nSubject: hi\n\nsomething");
        assert!(
            matches!(c, Class::Automatic(AutoReason::DaemonSender(_))),
            "{c:?}"
        );
        let c = class("From: noreply@shop.example.com\n\nsomething");
        assert!(
            matches!(c, Class::Automatic(AutoReason::DaemonSender(_))),
            "{c:?}"
        );
    }

    #[test]
    fn oof_subject_counts_only_on_a_reply_to_us() {
        let c = class(
            "From: a@example.com\nSubject: Out of Office: Turn 3\nIn-Reply-To: <report.g.3@adjutant.example.org>\n\naway",
        );
        assert!(
            matches!(c, Class::Automatic(AutoReason::OutOfOfficeSubject(_))),
            "{c:?}"
        );
        assert_eq!(
            class("From: a@example.com\nSubject: Out of Office: Turn 3\n\naway"),
            Class::Normal
        );
    }
}
