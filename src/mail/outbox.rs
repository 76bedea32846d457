//! The outbox: sends what intake and the turn cycle queued in
//! `outbound_mail`, over Maildir (the default: `mail::maildir::deliver`) or
//! SMTP (`mail::smtp`).
//!
//! Mail is queued in the transaction that produced it and sent only after
//! that commit, by [`flush`]. A transient failure (connection refused, 4xx,
//! a full disk) keeps the row queued with a later `next_attempt_at`
//! (`store::outbound_retry_at`: 1, 2, 4 … minutes, at most 6 h); a permanent
//! one (5xx, a malformed address) marks it `failed` and writes an audit
//! entry, which is how the umpire learns of it.
//!
//! **At-least-once, on purpose.** If the process dies after the server
//! accepted a message but before `mark_outbound_sent` committed, the message
//! is sent again on restart. The resend is byte-identical, with the same
//! stable Message-ID (`kind.game.id@domain`), so mail clients and most
//! servers drop it as a duplicate. Marking before sending would instead lose
//! mail on a crash, which is worse.

use crate::config::{Config, OutboxConfig};
use crate::mail::maildir::{Maildir, MaildirError};
use crate::mail::smtp::{SendError, SmtpConfigError, SmtpOutbox};
use crate::store::{NewAudit, OutboundMail, OutboundStatus, Store, StoreError, outbound_retry_at};

/// Messages read from the queue per query.
const BATCH: usize = 100;

/// A problem setting up the outbox or recording a result.
#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    #[error(transparent)]
    Maildir(#[from] MaildirError),
    #[error(transparent)]
    Smtp(#[from] SmtpConfigError),
    #[error("cannot read or update the outbound queue: {0}")]
    Store(#[from] StoreError),
}

/// Where outbound mail goes.
#[derive(Clone)]
pub enum Outbox {
    Maildir(Maildir),
    Smtp {
        smtp: SmtpOutbox,
        /// The envelope sender (MAIL FROM): bounces come back to it, so it
        /// is the game master address that intake reads.
        envelope_from: String,
    },
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outbox::Maildir(m) => f.debug_tuple("Maildir").field(&m.root()).finish(),
            Outbox::Smtp { envelope_from, .. } => f
                .debug_struct("Smtp")
                .field("envelope_from", envelope_from)
                .finish(),
        }
    }
}

/// What one [`flush`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FlushReport {
    pub sent: usize,
    /// Transient failures, queued again for later.
    pub retrying: usize,
    /// Given up: permanent failures and the last of the transient ones.
    pub failed: usize,
}

impl Outbox {
    /// The outbox named in `[outbox]` (a Maildir is created if missing).
    pub fn from_config(config: &Config) -> Result<Outbox, OutboxError> {
        match &config.outbox {
            OutboxConfig::Maildir { path } => Ok(Outbox::Maildir(Maildir::create(path.clone())?)),
            OutboxConfig::Smtp { .. } => Ok(Outbox::Smtp {
                smtp: SmtpOutbox::from_config(&config.outbox)?,
                envelope_from: config.game_master.clone(),
            }),
        }
    }

    /// Hands one message to the transport.
    pub async fn send(&self, m: &OutboundMail) -> Result<(), SendError> {
        match self {
            Outbox::Maildir(dir) => {
                let name = crate::mail::maildir::outbox_name(m.id, &m.message_id);
                dir.deliver_named_many(&[(name.as_str(), m.raw.as_slice())])
                    .into_iter()
                    .next()
                    .unwrap_or(Ok(crate::mail::maildir::Delivered::New))
                    .map(|_| ())
                    // A Maildir write fails for a full disk or a permission
                    // problem: worth retrying once the operator has fixed it.
                    .map_err(|e| SendError::Transient(e.to_string()))
            }
            Outbox::Smtp {
                smtp,
                envelope_from,
            } => {
                let rcpt: Vec<&str> = m.recipients.iter().map(String::as_str).collect();
                smtp.send(&m.raw, envelope_from, &rcpt).await
            }
        }
    }
}

/// Sends every message due at `now`, recording each result. Stops early
/// (leaving the rest queued, untouched) when the transport is down: one
/// refused connection says the same about every message behind it.
///
/// A Maildir outbox takes the due messages a batch at a time
/// ([`Maildir::deliver_many`]: each file synced, the directory synced once)
/// and records the batch as sent in one transaction; SMTP records each
/// message as soon as the server took it.
pub async fn flush(
    store: &mut Store,
    outbox: &Outbox,
    now: i64,
) -> Result<FlushReport, OutboxError> {
    let mut report = FlushReport::default();
    loop {
        let due = store.due_outbound(now, BATCH)?;
        if due.is_empty() {
            return Ok(report);
        }
        let transport_down = match outbox {
            Outbox::Maildir(dir) => flush_maildir(store, dir, &due, now, &mut report)?,
            Outbox::Smtp {
                smtp,
                envelope_from,
            } => {
                let mut down = false;
                for m in &due {
                    let rcpt: Vec<&str> = m.recipients.iter().map(String::as_str).collect();
                    match smtp.send(&m.raw, envelope_from, &rcpt).await {
                        Ok(()) => {
                            store.mark_outbound_sent(m.id, now)?;
                            report.sent += 1;
                            tracing::info!(id = m.id, kind = %m.kind, message_id = %m.message_id, "mail sent");
                        }
                        Err(e) => {
                            if record_attempt_failed(store, m, &e, now, &mut report)? {
                                down = true;
                                break;
                            }
                        }
                    }
                }
                down
            }
        };
        if transport_down {
            return Ok(report);
        }
    }
}

/// Delivers one batch to the Maildir outbox. True when a delivery failed
/// (a full disk or a permission problem: the rest waits for the retry).
fn flush_maildir(
    store: &mut Store,
    dir: &Maildir,
    due: &[OutboundMail],
    now: i64,
    report: &mut FlushReport,
) -> Result<bool, OutboxError> {
    // Named by row and Message-ID: a batch written before a crash, and not
    // yet recorded as sent, is recognised and not written twice.
    let names: Vec<String> = due
        .iter()
        .map(|m| crate::mail::maildir::outbox_name(m.id, &m.message_id))
        .collect();
    let batch: Vec<(&str, &[u8])> = names
        .iter()
        .zip(due)
        .map(|(n, m)| (n.as_str(), m.raw.as_slice()))
        .collect();
    let results = dir.deliver_named_many(&batch);
    let mut sent = Vec::new();
    let mut failed = false;
    for (m, result) in due.iter().zip(results) {
        match result {
            Ok(how) => {
                if how == crate::mail::maildir::Delivered::AlreadyThere {
                    tracing::info!(id = m.id, message_id = %m.message_id, "already in the Maildir outbox (delivered before a restart); not written again");
                }
                sent.push(m.id);
            }
            Err(e) => {
                // Worth retrying once the operator has fixed it.
                let e = SendError::Transient(e.to_string());
                failed |= record_attempt_failed(store, m, &e, now, report)?;
            }
        }
    }
    // The files are durable (each synced, then the directory): only now
    // may they count as sent.
    if !sent.is_empty() {
        store.mark_outbound_sent_batch(&sent, now)?;
        report.sent += sent.len();
        tracing::info!(count = sent.len(), "mail delivered to the Maildir outbox");
    }
    Ok(failed)
}

/// Records a failed attempt; true when the failure was transient (the
/// transport is down, so the caller stops for now).
fn record_attempt_failed(
    store: &Store,
    m: &OutboundMail,
    e: &SendError,
    now: i64,
    report: &mut FlushReport,
) -> Result<bool, OutboxError> {
    let transient = e.is_transient();
    let retry_at = outbound_retry_at(now, m.attempts.saturating_add(1));
    let status = store.mark_outbound_failed(m.id, transient, &e.to_string(), retry_at)?;
    if status == OutboundStatus::Failed {
        report.failed += 1;
        tracing::error!(id = m.id, error = %e, "mail could not be sent; given up");
        record_failure(store, m, e, now)?;
    } else {
        report.retrying += 1;
        tracing::warn!(id = m.id, error = %e, retry_at, "mail not sent; will retry");
    }
    Ok(transient)
}

/// The audit entry that shows the umpire a message that will never arrive.
fn record_failure(
    store: &Store,
    m: &OutboundMail,
    e: &SendError,
    now: i64,
) -> Result<(), StoreError> {
    let detail = serde_json::json!({
        "outbound_mail_id": m.id,
        "kind": m.kind,
        "message_id": m.message_id,
        "recipients": m.recipients,
        "error": e.to_string(),
    });
    Store::append_audit(
        store.conn(),
        &NewAudit {
            game: m.game_id,
            actor: "system".into(),
            at: now,
            action: "mail-send-failed".into(),
            reason: Some(e.to_string()),
            detail_json: detail.to_string(),
        },
    )?;
    Ok(())
}
