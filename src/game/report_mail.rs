//! Reports as mail: composing a stored report for a player (or the umpire)
//! and queueing it in the caller's transaction.
//!
//! Every report mail is `multipart/alternative` (text + HTML with the SVG
//! map inline) with the map attached as PNG when there is one, from the
//! game master address, threaded with the game's other mail (`References:`
//! the game's thread id, as receipts are), and with a stable Message-ID so
//! that a resend after a crash is recognised as the same message. A
//! player's report carries his reply token for the turn it is about in
//! `Reply-To`, so answering it is enough to be recognised (mail::auth).

use crate::mail::address::Mailbox;
use crate::mail::compose::{self, Attachment, ComposeError, Outbound};
use crate::mail::intake::IntakeSettings;
use crate::mail::token::{self, TokenError};
use crate::store::{GameId, NewOutboundMail, Store, StoreError};
use rusqlite::{Transaction, params};
use std::sync::{Arc, RwLock};
use time::OffsetDateTime;

/// What report mail needs from the configuration: the same values intake
/// uses for its answers (see `daemon::intake_settings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportMail {
    /// Our `From`, and the base of reply tokens.
    pub game_master: String,
    pub message_id_domain: String,
    /// The reply-token key (`server_key_file`).
    pub server_key: Vec<u8>,
}

impl ReportMail {
    pub fn from_intake(s: &IntakeSettings) -> ReportMail {
        ReportMail {
            game_master: s.game_master.clone(),
            message_id_domain: s.message_id_domain.clone(),
            server_key: s.server_key.clone(),
        }
    }
}

/// Where the daemon's game parts (the turn cycle and the order handler)
/// find the [`ReportMail`] settings. `daemon::Parts::game()` is built before
/// the configuration is read, so the daemon fills the slot once it has made
/// intake's settings (`daemon::run`, `daemon::run_once`); every clone sees
/// the same value.
#[derive(Debug, Clone, Default)]
pub struct MailSlot(Arc<RwLock<Option<Arc<ReportMail>>>>);

impl MailSlot {
    pub fn set(&self, mail: ReportMail) {
        let mut slot = self.0.write().unwrap_or_else(|e| e.into_inner());
        *slot = Some(Arc::new(mail));
    }

    /// The settings, once the daemon has set them.
    pub fn get(&self) -> Option<Arc<ReportMail>> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A report mail could not be made or queued. The turn (or the intake
/// transaction) that wanted it is rolled back, so nothing is half-sent.
#[derive(Debug, thiserror::Error)]
pub enum ReportMailError {
    #[error("cannot compose a report mail: {0}")]
    Compose(#[from] ComposeError),
    #[error(
        "cannot make a reply token for a report: {0}\n  hint: check server_key_file in the config"
    )]
    Token(#[from] TokenError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("database error while queueing a report: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// One report mail to compose.
#[derive(Debug, Clone)]
pub struct ReportLetter<'a> {
    pub game: &'a str,
    pub game_id: GameId,
    /// `kind` column of `outbound_mail` and first part of the Message-ID.
    pub kind: &'a str,
    /// Last part of the Message-ID: unique per game and kind.
    pub id: &'a str,
    pub to: &'a [String],
    pub subject: &'a str,
    pub text: &'a str,
    pub html: Option<&'a str>,
    pub png: Option<&'a [u8]>,
    /// The map attachment's file name (issue #14: named by game, turn and
    /// side, e.g. `brawner-turn4-union.png`); `None`: `map.png`.
    pub png_name: Option<&'a str>,
    /// `(player, turn)` whose reply token goes in `Reply-To`; `None` for
    /// the umpire, who does not answer reports with orders.
    pub reply_token_for: Option<(&'a str, u32)>,
    pub now: i64,
}

/// Composes `letter` and queues it in `tx`. Returns the outbound row id.
pub fn queue_letter(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    letter: &ReportLetter<'_>,
) -> Result<i64, ReportMailError> {
    queue_letter_with(tx, mail, letter, Vec::new())
}

/// As [`queue_letter`], with more files attached after the map.
pub fn queue_letter_with(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    letter: &ReportLetter<'_>,
    extra: Vec<Attachment>,
) -> Result<i64, ReportMailError> {
    let message = compose_letter(mail, letter, extra)?;
    Ok(Store::queue_outbound(tx, &message)?)
}

/// Composes `letter` into the outbound row [`queue_letter`] would queue,
/// without queueing it: a held turn's player reports are kept like this
/// until the umpire's RELEASE queues them, byte for byte.
pub fn compose_letter(
    mail: &ReportMail,
    letter: &ReportLetter<'_>,
    extra: Vec<Attachment>,
) -> Result<NewOutboundMail, ReportMailError> {
    let reply_to = match letter.reply_token_for {
        Some((player, turn)) => {
            let t = token::make_token(&mail.server_key, letter.game, player, turn)?;
            Some((
                Mailbox::named("Adjutant", token::make_reply_to(&mail.game_master, &t)?),
                t,
            ))
        }
        None => None,
    };
    compose_with_reply_to(mail, letter, reply_to, extra)
}

/// As [`queue_letter`], to the game's umpire: `Reply-To` carries HIS reply
/// token for `turn` (made over `umpire:<game>`, see
/// `mail::token::umpire_token_game`), so that answering is enough to be
/// recognised as him; `letter.reply_token_for` is ignored.
pub fn queue_umpire_letter(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    letter: &ReportLetter<'_>,
    turn: u32,
) -> Result<i64, ReportMailError> {
    let t = token::make_token(
        &mail.server_key,
        &crate::mail::token::umpire_token_game(letter.game),
        crate::mail::token::UMPIRE_TOKEN_PLAYER,
        turn,
    )?;
    let reply_to = Mailbox::named("Adjutant", token::make_reply_to(&mail.game_master, &t)?);
    let message = compose_with_reply_to(mail, letter, Some((reply_to, t)), Vec::new())?;
    Ok(Store::queue_outbound(tx, &message)?)
}

fn compose_with_reply_to(
    mail: &ReportMail,
    letter: &ReportLetter<'_>,
    reply_to: Option<(Mailbox, String)>,
    extra: Vec<Attachment>,
) -> Result<NewOutboundMail, ReportMailError> {
    let (reply_to, reply_tokens) = match reply_to {
        Some((mailbox, t)) => (Some(mailbox), vec![t]),
        None => (None, Vec::new()),
    };
    let domain = &mail.message_id_domain;
    let message_id = compose::message_id(letter.kind, letter.game, letter.id, domain)?;
    let thread = compose::game_thread_id(letter.game, domain)?;
    let date = OffsetDateTime::from_unix_timestamp(letter.now)
        .map_err(|e| ComposeError::Date(e.to_string()))?;
    let png_type = compose::content_type("image/png")?;
    let attachments = letter
        .png
        .filter(|p| !p.is_empty())
        .map(|p| Attachment {
            filename: letter.png_name.unwrap_or("map.png").to_string(),
            content_type: png_type,
            data: p.to_vec(),
        })
        .into_iter()
        .chain(extra)
        .collect();
    let raw = compose::compose(&Outbound {
        from: Mailbox::named("Adjutant", mail.game_master.clone()),
        to: letter.to.iter().map(Mailbox::new).collect(),
        reply_to,
        subject: letter.subject.to_string(),
        message_id: message_id.clone(),
        in_reply_to: None,
        references: vec![thread],
        date,
        text: letter.text.to_string(),
        html: letter.html.map(str::to_string),
        attachments,
        extra_headers: vec![("X-Adjutant-Game".into(), letter.game.to_string())],
    })?;
    Ok(NewOutboundMail {
        game_id: Some(letter.game_id),
        kind: letter.kind.to_string(),
        message_id,
        recipients: letter.to.to_vec(),
        raw,
        in_reply_to: None,
        created_at: letter.now,
        reply_tokens,
    })
}

/// A player's addresses that still take mail. When every one of them
/// bounces, none: mail to them is futile (the report is still stored and
/// can be asked for again with REPORT once the address works).
pub fn live_addresses(
    tx: &Transaction<'_>,
    player_id: i64,
) -> Result<Vec<String>, rusqlite::Error> {
    let mut st = tx.prepare_cached(
        "SELECT address FROM player_addresses WHERE player_id = ?1 AND failing = 0 ORDER BY id",
    )?;
    st.query_map(params![player_id], |r| r.get(0))?.collect()
}
