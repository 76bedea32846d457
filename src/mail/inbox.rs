//! The inbox: where raw mail comes from, over Maildir (the default) or IMAP.
//!
//! [`Inbox::ingest`] does only the first, irreversible step of intake: it
//! commits each message's raw bytes to SQLite and only THEN lets go of it at
//! the source (Maildir `new/` → `cur/`; IMAP `\Seen` plus the stored UID
//! position). A crash between the two leaves the message at the source, and
//! the next ingest stores it again as a duplicate (same Message-ID or
//! SHA-256): nothing is stored twice, nothing is lost. Parsing and answering
//! happen later, in [`crate::mail::intake`], from the stored copy.

use crate::config::{Config, InboxConfig};
use crate::mail::imap::{ImapError, ImapInbox};
use crate::mail::maildir::{Maildir, MaildirError};
use crate::store::{ImapState, InboundInsert, MailSource, NewInboundMail, Store, StoreError};
use mailparse::MailHeaderMap;
use std::time::Duration;

/// Why ingesting failed. Transient failures (a server restart) are retried
/// by the daemon; the others need the operator.
#[derive(Debug, thiserror::Error)]
pub enum InboxError {
    #[error(transparent)]
    Maildir(#[from] MaildirError),
    #[error(transparent)]
    Imap(#[from] ImapError),
    #[error("cannot store received mail: {0}")]
    Store(#[from] StoreError),
}

impl InboxError {
    /// True when trying again later may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            InboxError::Imap(e) => e.is_transient(),
            // A busy or full database may clear; a missing Maildir will not.
            InboxError::Store(_) => true,
            InboxError::Maildir(_) => false,
        }
    }
}

/// What one [`Inbox::ingest`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct IngestReport {
    /// Messages stored for the first time.
    pub stored: usize,
    /// Messages that were already stored (redelivery, or a crash before the
    /// source was updated); nothing new was written.
    pub duplicates: usize,
}

/// A source of raw mail.
#[derive(Debug)]
pub enum Inbox {
    Maildir(Maildir),
    Imap {
        inbox: Box<ImapInbox>,
        /// `user@host`, the key of the `imap_state` row.
        account: String,
        folder: String,
    },
}

impl Inbox {
    /// The inbox named in `[inbox]`. A Maildir is created if missing (as
    /// `adjutant init` would); an IMAP password file is read now.
    pub fn from_config(config: &Config) -> Result<Inbox, InboxError> {
        match &config.inbox {
            InboxConfig::Maildir { path } => Ok(Inbox::Maildir(Maildir::create(path.clone())?)),
            InboxConfig::Imap {
                host, user, folder, ..
            } => Ok(Inbox::Imap {
                inbox: Box::new(ImapInbox::from_config(&config.inbox)?),
                account: format!("{user}@{host}"),
                folder: folder.clone(),
            }),
        }
    }

    /// An IMAP inbox built by the caller (tests tune timeouts and backoff).
    pub fn imap(inbox: ImapInbox, account: &str, folder: &str) -> Inbox {
        Inbox::Imap {
            inbox: Box::new(inbox),
            account: account.to_string(),
            folder: folder.to_string(),
        }
    }

    /// Stores every waiting message, then releases it at the source.
    pub async fn ingest(
        &mut self,
        store: &mut Store,
        now: i64,
    ) -> Result<IngestReport, InboxError> {
        match self {
            Inbox::Maildir(dir) => ingest_maildir(dir, store, now),
            Inbox::Imap {
                inbox,
                account,
                folder,
            } => ingest_imap(inbox, account, folder, store, now).await,
        }
    }

    /// Waits for new mail: IMAP IDLE (or a poll interval when the server has
    /// no IDLE); a Maildir is simply polled after `poll`.
    pub async fn wait(&mut self, poll: Duration) -> Result<(), InboxError> {
        match self {
            Inbox::Maildir(_) => {
                tokio::time::sleep(poll).await;
                Ok(())
            }
            Inbox::Imap { inbox, .. } => {
                inbox.wait_for_change(poll).await?;
                Ok(())
            }
        }
    }

    /// Logs out of IMAP, if connected.
    pub async fn close(&mut self) {
        if let Inbox::Imap { inbox, .. } = self {
            inbox.disconnect().await;
        }
    }
}

/// The Message-ID header, read from the headers only (cheap, and it works
/// on mail whose body no parser could read).
pub fn raw_message_id(raw: &[u8]) -> Option<String> {
    let (headers, _) = mailparse::parse_headers(raw).ok()?;
    headers.get_first_value("Message-ID")
}

/// At most this many messages are stored per transaction (one sync to disk
/// each batch) ...
const INGEST_BATCH: usize = 500;
/// ... and at most this many bytes, so a Maildir full of large mail is not
/// held in memory at once.
const INGEST_BATCH_BYTES: usize = 32 << 20;

fn new_inbound(raw: Vec<u8>, source: MailSource, source_ref: String, now: i64) -> NewInboundMail {
    NewInboundMail {
        message_id: raw_message_id(&raw),
        raw,
        source,
        source_ref,
        received_at: now,
    }
}

fn tally(report: &mut IngestReport, mail: &NewInboundMail, inserted: InboundInsert) {
    match inserted {
        InboundInsert::New(id) => {
            report.stored += 1;
            tracing::debug!(id, source_ref = %mail.source_ref, "stored inbound mail");
        }
        InboundInsert::Duplicate(id) => {
            report.duplicates += 1;
            tracing::info!(id, source_ref = %mail.source_ref, "mail already stored; not stored again");
        }
    }
}

/// Stores `new/` in batches: read up to [`INGEST_BATCH`] files, commit them
/// in one transaction, and only after that commit move each to `cur/`.
/// A crash at any point leaves every file whose batch had not committed in
/// `new/`; a file moved to `cur/` is always in the store.
fn ingest_maildir(dir: &Maildir, store: &mut Store, now: i64) -> Result<IngestReport, InboxError> {
    let mut report = IngestReport::default();
    let mut entries = dir.list_new()?.into_iter().peekable();
    while entries.peek().is_some() {
        let mut entries_done = Vec::new();
        let mut mails = Vec::new();
        let mut bytes = 0usize;
        while mails.len() < INGEST_BATCH && bytes < INGEST_BATCH_BYTES {
            let Some(entry) = entries.next() else { break };
            let raw = match dir.read(&entry) {
                Ok(raw) => raw,
                // Taken away by someone else between listing and reading.
                Err(e) => {
                    tracing::warn!(error = %e, "skipping unreadable Maildir entry");
                    continue;
                }
            };
            bytes = bytes.saturating_add(raw.len());
            mails.push(new_inbound(raw, MailSource::Maildir, entry.id.clone(), now));
            entries_done.push(entry);
        }
        let inserted = store.insert_inbound_batch(&mails)?;
        // Only after the commit above.
        for ((entry, mail), inserted) in entries_done.iter().zip(&mails).zip(inserted) {
            tally(&mut report, mail, inserted);
            dir.mark_processed(entry)?;
        }
        tracing::info!(count = mails.len(), "stored a batch of inbound mail");
    }
    Ok(report)
}

/// Stores everything after the stored UID position in one transaction,
/// together with the new position, and only after that commit flags the
/// messages `\Seen` on the server.
async fn ingest_imap(
    inbox: &mut ImapInbox,
    account: &str,
    folder: &str,
    store: &mut Store,
    now: i64,
) -> Result<IngestReport, InboxError> {
    let mut report = IngestReport::default();
    let validity = inbox.connect().await?;
    let last = match store.imap_state(account, folder)? {
        Some(s) if s.uidvalidity == validity => s.last_uid,
        Some(s) => {
            // The server renumbered the folder: start again from the first
            // UID; everything already stored comes back as a duplicate.
            tracing::warn!(
                old = s.uidvalidity,
                new = validity,
                "IMAP UIDVALIDITY changed; re-reading the folder"
            );
            0
        }
        None => 0,
    };
    let fetched = inbox.fetch_since(last).await?;
    let Some(position) = fetched
        .iter()
        .map(|m| (m.uid_validity, m.uid))
        .max_by_key(|p| p.1)
    else {
        return Ok(report);
    };
    let mails: Vec<(u32, NewInboundMail)> = fetched
        .into_iter()
        .map(|m| {
            let source_ref = format!("{account}/{folder}/{}/{}", m.uid_validity, m.uid);
            (
                m.uid,
                new_inbound(m.bytes, MailSource::Imap, source_ref, now),
            )
        })
        .collect();
    let inserted = {
        let tx = store.transaction()?;
        let inserted = mails
            .iter()
            .map(|(_, m)| Store::insert_inbound_in(&tx, m))
            .collect::<Result<Vec<_>, _>>()?;
        // The position goes in the same transaction as the messages up to
        // it (schema invariant 3): a crash re-fetches, never skips.
        Store::set_imap_state(
            &tx,
            account,
            folder,
            ImapState {
                uidvalidity: position.0,
                last_uid: position.1,
            },
            now,
        )?;
        tx.commit().map_err(StoreError::from)?;
        inserted
    };
    for ((uid, mail), inserted) in mails.iter().zip(inserted) {
        tally(&mut report, mail, inserted);
        inbox.mark_processed(*uid).await?;
    }
    Ok(report)
}
