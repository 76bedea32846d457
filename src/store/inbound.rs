//! Inbound mail: raw messages are committed here, deduplicated, BEFORE any
//! parsing, so a crash or a parser bug never loses a player's orders.
//! Also the IMAP high-water mark per account and folder.

use super::games::{GameId, text_enum};
use super::seed::sha256_hex;
use super::{Store, StoreError};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

text_enum!(
    /// Where a message was picked up.
    MailSource { Maildir => "maildir", Imap => "imap" }
);
text_enum!(
    /// What intake made of a message. `duplicate` is for intake's own
    /// judgement (e.g. the same orders re-sent under a new Message-ID); the
    /// store's byte/Message-ID dedup stores nothing at all.
    InboundStatus {
        New => "new",
        Accepted => "accepted",
        Refused => "refused",
        Ignored => "ignored",
        Duplicate => "duplicate",
    }
);

/// A message as received, before any parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewInboundMail {
    pub raw: Vec<u8>,
    /// The Message-ID header, with or without angle brackets; `None` if absent.
    pub message_id: Option<String>,
    pub source: MailSource,
    /// Maildir file name, or `account/folder/uidvalidity/uid` for IMAP.
    pub source_ref: String,
    pub received_at: i64,
}

/// Result of [`Store::insert_inbound_mail`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum InboundInsert {
    /// Stored under this id.
    New(i64),
    /// Already stored (same Message-ID, or byte-identical) under this id;
    /// nothing was written.
    Duplicate(i64),
}

/// A stored inbound message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundMail {
    pub id: i64,
    pub raw: Vec<u8>,
    pub message_id: Option<String>,
    pub sha256: String,
    pub source: MailSource,
    pub source_ref: String,
    pub received_at: i64,
    pub status: InboundStatus,
    pub status_detail: Option<String>,
    pub game_id: Option<GameId>,
    pub player_id: Option<i64>,
}

/// The IMAP position for one account and folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ImapState {
    pub uidvalidity: u32,
    pub last_uid: u32,
}

/// Strips whitespace and the angle brackets of `<id@host>`, so the same
/// Message-ID written either way dedups. Empty becomes `None`.
fn normalise_message_id(id: Option<&str>) -> Option<String> {
    let id = id?.trim();
    let id = id.strip_prefix('<').unwrap_or(id);
    let id = id.strip_suffix('>').unwrap_or(id).trim();
    (!id.is_empty()).then(|| id.to_string())
}

impl Store {
    /// Commits a received message unless it is already stored: a message
    /// with the same Message-ID (when it has one) or the same SHA-256 of its
    /// bytes is a duplicate and nothing is written.
    pub fn insert_inbound_mail(&mut self, m: &NewInboundMail) -> Result<InboundInsert, StoreError> {
        let tx = self.transaction()?;
        let inserted = Store::insert_inbound_in(&tx, m)?;
        tx.commit()?;
        Ok(inserted)
    }

    /// Commits a batch of received messages in ONE transaction (one sync to
    /// disk for all of them, which is what makes intake fast), with the
    /// same duplicate rule as [`Store::insert_inbound_mail`]; a duplicate
    /// within the batch is caught too. All or nothing: on an error nothing
    /// of the batch is stored, so the caller must not let go of any of them
    /// at the source.
    pub fn insert_inbound_batch(
        &mut self,
        mails: &[NewInboundMail],
    ) -> Result<Vec<InboundInsert>, StoreError> {
        let tx = self.transaction()?;
        let inserted = mails
            .iter()
            .map(|m| Store::insert_inbound_in(&tx, m))
            .collect::<Result<Vec<_>, _>>()?;
        tx.commit()?;
        Ok(inserted)
    }

    /// The insert itself, inside the caller's transaction (IMAP ingest
    /// stores the messages and its UID position together).
    pub fn insert_inbound_in(
        conn: &Connection,
        m: &NewInboundMail,
    ) -> Result<InboundInsert, StoreError> {
        let message_id = normalise_message_id(m.message_id.as_deref());
        let sha = sha256_hex(&m.raw);
        let by_id = match &message_id {
            Some(id) => conn
                .prepare_cached("SELECT id FROM inbound_mail WHERE message_id = ?1")?
                .query_row([id], |r| r.get::<_, i64>(0))
                .optional()?,
            None => None,
        };
        let existing = match by_id {
            Some(id) => Some(id),
            None => conn
                .prepare_cached("SELECT id FROM inbound_mail WHERE sha256 = ?1")?
                .query_row([&sha], |r| r.get::<_, i64>(0))
                .optional()?,
        };
        if let Some(id) = existing {
            return Ok(InboundInsert::Duplicate(id));
        }
        conn.prepare_cached(
            "INSERT INTO inbound_mail (raw, message_id, sha256, source, source_ref, received_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            m.raw,
            message_id,
            sha,
            m.source,
            m.source_ref,
            m.received_at
        ])?;
        Ok(InboundInsert::New(conn.last_insert_rowid()))
    }

    /// Stored messages intake has not dealt with yet, oldest first.
    pub fn new_inbound_mail(&self, limit: usize) -> Result<Vec<InboundMail>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self.conn.prepare(
            "SELECT id, raw, message_id, sha256, source, source_ref, received_at, status,
                    status_detail, game_id, player_id
             FROM inbound_mail WHERE status = 'new' ORDER BY id LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit], |r| {
            Ok(InboundMail {
                id: r.get(0)?,
                raw: r.get(1)?,
                message_id: r.get(2)?,
                sha256: r.get(3)?,
                source: r.get(4)?,
                source_ref: r.get(5)?,
                received_at: r.get(6)?,
                status: r.get(7)?,
                status_detail: r.get(8)?,
                game_id: r.get::<_, Option<i64>>(9)?.map(GameId),
                player_id: r.get(10)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Records what intake decided about message `id`. Takes a connection
    /// so it can run inside the transaction that stored the submission.
    pub fn set_inbound_status(
        conn: &Connection,
        id: i64,
        status: InboundStatus,
        detail: Option<&str>,
        game: Option<GameId>,
        player_id: Option<i64>,
    ) -> Result<(), StoreError> {
        let changed = conn
            .prepare_cached(
                "UPDATE inbound_mail SET status = ?2, status_detail = ?3, game_id = ?4,
                                         player_id = ?5
                 WHERE id = ?1",
            )?
            .execute(params![id, status, detail, game.map(|g| g.0), player_id])?;
        if changed == 0 {
            return Err(StoreError::InboundMissing { id });
        }
        Ok(())
    }

    /// The IMAP position stored for `account`/`folder`, if any.
    pub fn imap_state(&self, account: &str, folder: &str) -> Result<Option<ImapState>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT uidvalidity, last_uid FROM imap_state WHERE account = ?1 AND folder = ?2",
                [account, folder],
                |r| {
                    Ok(ImapState {
                        uidvalidity: r.get(0)?,
                        last_uid: r.get(1)?,
                    })
                },
            )
            .optional()?)
    }

    /// Records the IMAP position. Call it in the same transaction as the
    /// inserts of the messages up to `last_uid`, or after they committed,
    /// never before: a crash must re-fetch, not skip.
    pub fn set_imap_state(
        conn: &Connection,
        account: &str,
        folder: &str,
        state: ImapState,
        now: i64,
    ) -> Result<(), StoreError> {
        conn.prepare_cached(
            "INSERT INTO imap_state (account, folder, uidvalidity, last_uid, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (account, folder) DO UPDATE SET
                 uidvalidity = excluded.uidvalidity, last_uid = excluded.last_uid,
                 updated_at = excluded.updated_at",
        )
        .and_then(|mut st| {
            st.execute(params![
                account,
                folder,
                state.uidvalidity,
                state.last_uid,
                now
            ])
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_ids_are_normalised() {
        assert_eq!(
            normalise_message_id(Some(" <abc@host> ")).as_deref(),
            Some("abc@host")
        );
        assert_eq!(
            normalise_message_id(Some("abc@host")).as_deref(),
            Some("abc@host")
        );
        assert_eq!(normalise_message_id(Some("<>")), None);
        assert_eq!(normalise_message_id(None), None);
    }
}
