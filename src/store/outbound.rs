//! The outbound queue. Mail is queued in the same transaction as whatever
//! produced it (a receipt with its submission, reports with the released
//! turn), so a crash can neither send mail for work that rolled back nor
//! lose mail for work that committed. A sender then drains due rows,
//! retrying transient failures with backoff.

use super::games::{GameId, text_enum};
use super::{Store, StoreError};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

text_enum!(
    /// Delivery state of a queued message.
    OutboundStatus { Queued => "queued", Sent => "sent", Failed => "failed" }
);

/// After this many failed attempts a transiently failing message is given
/// up as `failed`. With [`outbound_retry_at`]'s backoff the retries span
/// about 44 hours (8.5 h of doubling, then six 6-hour waits): long enough to
/// ride out a mail server outage over a weekend night, short enough that a
/// dead address is reported while the turn it concerns still matters.
pub const MAX_OUTBOUND_ATTEMPTS: u32 = 16;

/// When to try again after `attempts` failed attempts (1 = the first
/// failure): 1, 2, 4, ... minutes, at most 6 hours apart.
pub fn outbound_retry_at(now: i64, attempts: u32) -> i64 {
    let exponent = attempts.saturating_sub(1).min(20);
    let delay = (60_i64 << exponent).min(6 * 3600);
    now.saturating_add(delay)
}

/// A message to queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOutboundMail {
    pub game_id: Option<GameId>,
    /// What it is, e.g. `receipt`, `report`, `umpire-report`, `notice`.
    pub kind: String,
    /// Message-ID of the raw message (with or without angle brackets).
    pub message_id: String,
    /// Envelope recipients.
    pub recipients: Vec<String>,
    /// The complete RFC 5322 message as it will be sent.
    pub raw: Vec<u8>,
    pub in_reply_to: Option<String>,
    /// Queue time; the message is due from then.
    pub created_at: i64,
    /// The reply tokens its `Reply-To` carries, given by whoever composed
    /// it: remembered with the game (migration 0008, `reply_tokens`) so
    /// intake finds the players to check a token against with one lookup,
    /// whatever the number of games.
    pub reply_tokens: Vec<String>,
}

/// A queued (or finished) message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboundMail {
    pub id: i64,
    pub game_id: Option<GameId>,
    pub kind: String,
    pub message_id: String,
    pub recipients: Vec<String>,
    pub raw: Vec<u8>,
    pub in_reply_to: Option<String>,
    pub status: OutboundStatus,
    pub attempts: u32,
    pub next_attempt_at: Option<i64>,
    pub last_error: Option<String>,
    pub created_at: i64,
    pub sent_at: Option<i64>,
}

fn bare_id(id: &str) -> &str {
    let id = id.trim();
    let id = id.strip_prefix('<').unwrap_or(id);
    id.strip_suffix('>').unwrap_or(id).trim()
}

impl Store {
    /// Queues a message inside the caller's transaction (which is the point:
    /// it commits or rolls back with the work that produced it). Returns its id.
    pub fn queue_outbound(tx: &Transaction<'_>, m: &NewOutboundMail) -> Result<i64, StoreError> {
        let bad = |problem: String| StoreError::InvalidOutbound { problem };
        let message_id = bare_id(&m.message_id);
        if message_id.is_empty() {
            return Err(bad(format!("{} mail has no Message-ID", m.kind)));
        }
        if m.recipients.is_empty() {
            return Err(bad(format!(
                "{} mail {message_id} has no recipients",
                m.kind
            )));
        }
        if m.kind.trim().is_empty() {
            return Err(bad(format!("mail {message_id} has no kind")));
        }
        let recipients = serde_json::to_string(&m.recipients)
            .map_err(|e| bad(format!("recipients of {message_id}: {e}")))?;
        tx.prepare_cached(
            "INSERT INTO outbound_mail (game_id, kind, message_id, recipients_json, raw,
                                        in_reply_to, status, attempts, next_attempt_at, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', 0, ?7, ?7)",
        )?
        .execute(params![
            m.game_id.map(|g| g.0),
            m.kind,
            message_id,
            recipients,
            m.raw,
            m.in_reply_to.as_deref().map(bare_id),
            m.created_at
        ])?;
        let id = tx.last_insert_rowid();
        if let Some(game) = m.game_id {
            for token in &m.reply_tokens {
                tx.prepare_cached(
                    "INSERT OR IGNORE INTO reply_tokens (token, game_id) VALUES (?1, ?2)",
                )?
                .execute(params![token, game.0])?;
            }
        }
        Ok(id)
    }

    /// Keeps `secret` for the queued message `mail_id`, whose raw carries
    /// `placeholder` in its place, until the message is sent or given up
    /// (migration 0005): the secret is put in by [`Store::due_outbound`]
    /// and never written into `outbound_mail.raw`.
    pub fn queue_outbound_secret(
        tx: &Transaction<'_>,
        mail_id: i64,
        placeholder: &str,
        secret: &str,
    ) -> Result<(), StoreError> {
        tx.prepare_cached(
            "INSERT INTO outbound_secrets (mail_id, placeholder, secret) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![mail_id, placeholder, secret])?;
        Ok(())
    }

    /// Queued messages whose next attempt is at or before `now`, earliest
    /// due first (ties in queue order), at most `limit` of them, each as it
    /// is to be sent (a secret kept apart put back in its place).
    pub fn due_outbound(&self, now: i64, limit: usize) -> Result<Vec<OutboundMail>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self.conn.prepare(
            "SELECT m.id, m.game_id, m.kind, m.message_id, m.recipients_json, m.raw,
                    m.in_reply_to, m.status, m.attempts, m.next_attempt_at, m.last_error,
                    m.created_at, m.sent_at, s.placeholder, s.secret
             FROM outbound_mail m LEFT JOIN outbound_secrets s ON s.mail_id = m.id
             WHERE m.status = 'queued' AND m.next_attempt_at <= ?1
             ORDER BY m.next_attempt_at, m.id LIMIT ?2",
        )?;
        let rows = stmt
            .query_map(params![now, limit], |r| {
                Ok((
                    r.get::<_, String>(4)?,
                    OutboundMail {
                        id: r.get(0)?,
                        game_id: r.get::<_, Option<i64>>(1)?.map(GameId),
                        kind: r.get(2)?,
                        message_id: r.get(3)?,
                        recipients: Vec::new(),
                        raw: with_secret(
                            r.get(5)?,
                            r.get::<_, Option<String>>(13)?,
                            r.get::<_, Option<String>>(14)?,
                        ),
                        in_reply_to: r.get(6)?,
                        status: r.get(7)?,
                        attempts: r.get(8)?,
                        next_attempt_at: r.get(9)?,
                        last_error: r.get(10)?,
                        created_at: r.get(11)?,
                        sent_at: r.get(12)?,
                    },
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(|(recipients, mut m)| {
                m.recipients =
                    serde_json::from_str(&recipients).map_err(|e| StoreError::BadValue {
                        what: format!("recipients of outbound mail {}: {e}", m.id),
                    })?;
                Ok(m)
            })
            .collect()
    }

    /// Records a successful hand-over to the mail server.
    pub fn mark_outbound_sent(&self, id: i64, sent_at: i64) -> Result<(), StoreError> {
        if Self::mark_sent_in(&self.conn, id, sent_at)? {
            Ok(())
        } else {
            Err(self.not_queued(id))
        }
    }

    /// Records several hand-overs in ONE transaction: a Maildir outbox
    /// syncs its directory once for a batch of messages, and then records
    /// them all with one sync of the database. All or nothing.
    pub fn mark_outbound_sent_batch(
        &mut self,
        ids: &[i64],
        sent_at: i64,
    ) -> Result<(), StoreError> {
        let tx = self.transaction()?;
        let missed = ids
            .iter()
            .map(|&id| Self::mark_sent_in(&tx, id, sent_at).map(|ok| (!ok).then_some(id)))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .next();
        if let Some(id) = missed {
            drop(tx);
            return Err(self.not_queued(id));
        }
        tx.commit()?;
        Ok(())
    }

    /// False when the row is missing or no longer queued.
    fn mark_sent_in(conn: &Connection, id: i64, sent_at: i64) -> Result<bool, rusqlite::Error> {
        let changed = conn
            .prepare_cached(
                "UPDATE outbound_mail
                 SET status = 'sent', attempts = attempts + 1, sent_at = ?2, next_attempt_at = NULL
                 WHERE id = ?1 AND status = 'queued'",
            )?
            .execute(params![id, sent_at])?;
        Ok(changed > 0)
    }

    /// Records a failed attempt. A `transient` failure (connection refused,
    /// 4xx) stays queued until `next_attempt_at` (see [`outbound_retry_at`]),
    /// unless it has now failed [`MAX_OUTBOUND_ATTEMPTS`] times; a permanent
    /// one (5xx, bad address) becomes `failed` at once and `next_attempt_at`
    /// is ignored. Returns the message's new status.
    pub fn mark_outbound_failed(
        &self,
        id: i64,
        transient: bool,
        error: &str,
        next_attempt_at: i64,
    ) -> Result<OutboundStatus, StoreError> {
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE outbound_mail
             SET attempts = attempts + 1,
                 status = CASE WHEN ?2 AND attempts + 1 < ?5 THEN 'queued' ELSE 'failed' END,
                 next_attempt_at = CASE WHEN ?2 AND attempts + 1 < ?5 THEN ?4 ELSE NULL END,
                 last_error = CASE WHEN ?2 AND attempts + 1 >= ?5
                                   THEN 'gave up after ' || (attempts + 1) || ' attempts: ' || ?3
                                   ELSE ?3 END
             WHERE id = ?1 AND status = 'queued'",
            )
            .and_then(|mut st| {
                st.execute(params![
                    id,
                    transient,
                    error,
                    next_attempt_at,
                    MAX_OUTBOUND_ATTEMPTS
                ])
            })?;
        if changed == 0 {
            return Err(self.not_queued(id));
        }
        Ok(self
            .conn
            .prepare_cached("SELECT status FROM outbound_mail WHERE id = ?1")
            .and_then(|mut st| st.query_row([id], |r| r.get(0)))?)
    }

    fn not_queued(&self, id: i64) -> StoreError {
        let status = self
            .conn
            .query_row(
                "SELECT status FROM outbound_mail WHERE id = ?1",
                [id],
                |r| r.get::<_, String>(0),
            )
            .optional();
        match status {
            Ok(Some(status)) => StoreError::OutboundNotQueued { id, status },
            Ok(None) => StoreError::OutboundMissing { id },
            Err(e) => StoreError::Sqlite(e),
        }
    }
}

/// `raw` with every `placeholder` replaced by `secret`, when the message has
/// a secret kept apart (migration 0005); `raw` unchanged otherwise.
fn with_secret(raw: Vec<u8>, placeholder: Option<String>, secret: Option<String>) -> Vec<u8> {
    let (Some(p), Some(s)) = (placeholder, secret) else {
        return raw;
    };
    let (p, s) = (p.as_bytes(), s.as_bytes());
    if p.is_empty() {
        return raw;
    }
    let mut out = Vec::with_capacity(raw.len() + s.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i..].starts_with(p) {
            out.extend_from_slice(s);
            i += p.len();
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        assert_eq!(outbound_retry_at(1000, 1), 1060);
        assert_eq!(outbound_retry_at(1000, 2), 1120);
        assert_eq!(outbound_retry_at(1000, 3), 1240);
        assert_eq!(outbound_retry_at(1000, 9), 1000 + 256 * 60);
        assert_eq!(outbound_retry_at(1000, 10), 1000 + 6 * 3600);
        assert_eq!(outbound_retry_at(1000, u32::MAX), 1000 + 6 * 3600);
        assert_eq!(outbound_retry_at(i64::MAX, 1), i64::MAX);
    }

    #[test]
    fn a_secret_kept_apart_is_put_back_everywhere_its_placeholder_stands() {
        let raw = b"Your secret:\r\n    [p]\r\nPASSWORD [p]\r\n".to_vec();
        let out = with_secret(raw.clone(), Some("[p]".into()), Some("k7qd-m2xa".into()));
        assert_eq!(
            out,
            b"Your secret:\r\n    k7qd-m2xa\r\nPASSWORD k7qd-m2xa\r\n"
        );
        assert_eq!(with_secret(raw.clone(), None, None), raw);
        assert_eq!(
            with_secret(raw.clone(), Some(String::new()), Some("x".into())),
            raw
        );
    }
}
