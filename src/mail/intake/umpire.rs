//! The umpire's mail (issue #8): recognised before the players' and
//! authenticated exactly as theirs ([`crate::mail::auth`]): his PASSWORD
//! line from any sender, or his reply token from his registered address. An
//! accepted mail is handed to [`SubmissionHandler::handle_umpire`] (the
//! command executor, `umpire::exec`) inside the mail's savepoint, and the
//! confirmation listing every command's result is queued in it too. A
//! forged or unauthenticated one is refused like a player's: stored,
//! audited, one short notice to the umpire's REGISTERED address (throttled
//! as players' refusals are), never an answer to the `From`.
//!
//! Which mail is the umpire's: a reply token made for the umpire (over the
//! pseudo-game `umpire:<game>`, so never a player's); else `From` is a
//! game's umpire address (when that address also plays in another game,
//! only if the Subject names the umpire's game or his password is in it);
//! else a PASSWORD line that is the umpire's secret of a game named in the
//! Subject. Games that are active or paused (RESUME must reach a paused
//! game) count.

use super::{
    IntakeError, IntakeSettings, Outcome, Receipt, SubmissionHandler, named_games, players_at,
};
use crate::mail::address::{Mailbox, same_address};
use crate::mail::auth::{
    AuthMethod, AuthOutcome, MAX_PASSWORD_CANDIDATES, Registered, TokenContext, authenticate,
    extract_password,
};
use crate::mail::compose::{self, ComposeError, Outbound};
use crate::mail::parse::InboundParsed;
use crate::mail::token;
use crate::mail::token::{UMPIRE_TOKEN_PLAYER as TOKEN_PLAYER, umpire_token_game as token_game};
use crate::secret::verify_secret;
use crate::store::{GameId, InboundMail, InboundStatus, NewAudit, NewOutboundMail, Store};
use rusqlite::{OptionalExtension, Transaction};
use time::OffsetDateTime;

/// One authenticated umpire mail, for [`SubmissionHandler::handle_umpire`].
#[derive(Debug, Clone)]
pub struct UmpireMail<'a> {
    pub inbound_mail_id: i64,
    pub game: GameId,
    pub game_name: &'a str,
    pub auth: AuthMethod,
    pub subject: Option<&'a str>,
    /// The cleaned text: quotes, signatures and PASSWORD lines removed.
    pub text: &'a str,
    /// When intake runs it: the commands take effect now.
    pub now: i64,
}

/// A game's umpire as intake needs him.
#[derive(Debug, Clone)]
pub(super) struct Umpire {
    game: GameId,
    game_name: String,
    address: String,
    secret_hash: Option<String>,
    /// The current turn's number: his tokens for it and the two before count.
    turn: u32,
}

impl Umpire {
    fn token_turns(&self) -> Vec<u32> {
        (0..3)
            .filter_map(|k| self.turn.checked_sub(k))
            .filter(|n| *n >= 1)
            .collect()
    }
}

/// The umpire columns, with his game's current turn number.
const UMPIRE_COLUMNS: &str = "SELECT g.id, g.name, g.umpire_address, g.umpire_secret_hash,
        coalesce((SELECT number FROM turns t WHERE t.game_id = g.id
                  ORDER BY (t.status = 'released'), t.number DESC LIMIT 1), 1)
     FROM games g";

fn umpires_where(
    tx: &Transaction<'_>,
    condition: &str,
    param: &dyn rusqlite::ToSql,
) -> Result<Vec<Umpire>, IntakeError> {
    let mut st = tx.prepare_cached(&format!(
        "{UMPIRE_COLUMNS}
         WHERE {condition} AND g.status IN ('active', 'paused') AND g.umpire_address IS NOT NULL
         ORDER BY g.id"
    ))?;
    let rows = st
        .query_map([param], |r| {
            Ok(Umpire {
                game: GameId(r.get(0)?),
                game_name: r.get(1)?,
                address: r.get(2)?,
                secret_hash: r.get(3)?,
                turn: r.get(4)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    super::cost::add(&st);
    Ok(rows)
}

/// The umpires whose address is `from`: one lookup in the index on the
/// umpire address (migration 0008), whatever the number of games.
fn umpires_at(tx: &Transaction<'_>, from: &str) -> Result<Vec<Umpire>, IntakeError> {
    let key = crate::mail::address::address_key(from);
    Ok(
        umpires_where(tx, "lower(trim(g.umpire_address, ' <>')) = ?1", &key)?
            .into_iter()
            .filter(|u| same_address(&u.address, from))
            .collect(),
    )
}

/// The umpire of each game in `games` that has one.
fn umpires_of(tx: &Transaction<'_>, games: &[GameId]) -> Result<Vec<Umpire>, IntakeError> {
    let mut all = Vec::new();
    for g in games {
        all.extend(umpires_where(tx, "g.id = ?1", &g.0)?);
    }
    Ok(all)
}

/// The umpire this mail comes from (or claims to), if any. Only the
/// umpires at the sender's address, of the game a reply token was sent for
/// (`reply_tokens`) and of the games the Subject names are looked at, so
/// the cost does not grow with the number of games (issue #18).
pub(super) fn identify(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    parsed: &InboundParsed,
    from: Option<&str>,
    tokens: &[String],
) -> Result<Option<Umpire>, IntakeError> {
    let named = named_games(tx, parsed.subject.as_deref())?;
    let at_from = match from {
        Some(f) => umpires_at(tx, f)?,
        None => Vec::new(),
    };
    let mut games = super::token_games(tx, tokens)?;
    games.extend(
        named
            .iter()
            .filter(|g| !games.contains(g))
            .copied()
            .collect::<Vec<_>>(),
    );
    let of_named = umpires_of(tx, &games)?;
    if at_from.is_empty() && of_named.is_empty() {
        return Ok(None);
    }
    if !tokens.is_empty() {
        let hit = at_from.iter().chain(&of_named).find(|u| {
            u.token_turns().into_iter().any(|n| {
                tokens.iter().any(|t| {
                    token::verify(
                        &settings.server_key,
                        &token_game(&u.game_name),
                        TOKEN_PLAYER,
                        n,
                        t,
                    )
                })
            })
        });
        if let Some(u) = hit {
            return Ok(Some(u.clone()));
        }
    }
    let names_game = |u: &Umpire| named.contains(&u.game);
    let passwords = extract_password(&parsed.text).candidates;
    let password_is = |u: &Umpire| {
        u.secret_hash.as_deref().is_some_and(|h| {
            passwords
                .iter()
                .take(MAX_PASSWORD_CANDIDATES)
                .any(|p| verify_secret(p, h))
        })
    };
    if let Some(f) = from
        && !at_from.is_empty()
    {
        let plays = !players_at(tx, f)?.is_empty();
        let chosen = at_from
            .iter()
            .find(|u| names_game(u))
            .or_else(|| at_from.iter().find(|u| password_is(u)))
            .or_else(|| if plays { None } else { at_from.first() });
        if let Some(u) = chosen {
            return Ok(Some(u.clone()));
        }
    }
    // His password from an address nobody registered. A registered
    // player's own password mail is not made to pay an Argon2 check here.
    let stranger = match from {
        Some(f) => players_at(tx, f)?.is_empty(),
        None => true,
    };
    if stranger
        && !passwords.is_empty()
        && let Some(u) = of_named
            .iter()
            .filter(|u| names_game(u))
            .find(|u| password_is(u))
    {
        return Ok(Some(u.clone()));
    }
    Ok(None)
}

/// Authenticates and runs (or refuses) the umpire's mail.
#[allow(clippy::too_many_arguments)]
pub(super) fn process(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    handler: &mut dyn SubmissionHandler,
    parsed: &InboundParsed,
    from: Option<&str>,
    tokens: &[String],
    u: Umpire,
    mail: &InboundMail,
    now: i64,
) -> Result<Outcome, IntakeError> {
    let password = extract_password(&parsed.text);
    let registered = [u.address.clone()];
    let turns = u.token_turns();
    let tgame = token_game(&u.game_name);
    let outcome = authenticate(
        &password.candidates,
        tokens,
        from,
        &Registered {
            addresses: &registered,
            secret_phc: u.secret_hash.as_deref(),
        },
        &TokenContext {
            key: &settings.server_key,
            game: &tgame,
            player: TOKEN_PLAYER,
            turns: &turns,
        },
    );
    let set = |status: InboundStatus, detail: &str| {
        Store::set_inbound_status(tx, mail.id, status, Some(detail), Some(u.game), None)
    };
    match outcome {
        AuthOutcome::Rejected { reason, .. } => {
            let code = super::reject_code(reason);
            Store::append_audit(
                tx,
                &NewAudit {
                    game: Some(u.game),
                    actor: "system".into(),
                    at: now,
                    action: "mail-refused".into(),
                    reason: Some(code.into()),
                    detail_json: serde_json::json!({
                        "inbound_mail_id": mail.id,
                        "player": "umpire",
                        "from": from,
                        "reason": code,
                    })
                    .to_string(),
                },
            )?;
            let text = format!(
                "Adjutant received a mail in your name as umpire of game {} that it did not \
                 accept: {}.\n\nSender: {}\nSubject: {}\n\n\
                 None of its commands has been run. Reply to one of Adjutant's mails to you \
                 from your registered address, or put the line\n\n\
                 PASSWORD <your umpire secret>\n\nin the mail. If you did not send it, \
                 someone else tried to; the attempt is in the audit log.{}\n",
                u.game_name,
                super::reject_text(reason),
                from.unwrap_or("(none)"),
                parsed.subject.as_deref().unwrap_or("(no subject)"),
                super::throttle_notice(settings),
            );
            let queued = queue_refusal(tx, settings, &u, mail.id, &text, parsed, now)?;
            let detail = format!(
                "umpire mail not accepted: {}{}",
                super::reject_text(reason),
                if queued {
                    ""
                } else {
                    "; no answer sent: a refusal already went to the umpire's address recently (refusal_interval_secs)"
                }
            );
            set(InboundStatus::Refused, &detail)?;
            Ok(Outcome {
                status: InboundStatus::Refused,
                answers: usize::from(queued),
            })
        }
        AuthOutcome::Accepted { method, .. } => {
            let ctx = UmpireMail {
                inbound_mail_id: mail.id,
                game: u.game,
                game_name: &u.game_name,
                auth: method,
                subject: parsed.subject.as_deref(),
                text: &password.text,
                now,
            };
            let receipt = handler.handle_umpire(tx, &ctx)?;
            // Always to his registered address, like a player's password
            // mail from elsewhere.
            let message_id = compose::message_id(
                "umpire-confirmation",
                &u.game_name,
                &format!("in{}", mail.id),
                &settings.message_id_domain,
            )?;
            queue(
                tx,
                settings,
                &u,
                "umpire-confirmation",
                message_id,
                &receipt,
                parsed,
                now,
            )?;
            set(
                InboundStatus::Accepted,
                &format!("umpire commands ({method:?})"),
            )?;
            Ok(Outcome {
                status: InboundStatus::Accepted,
                answers: 1,
            })
        }
    }
}

/// One refusal to the umpire's registered address, at most one per
/// `refusal_interval_secs` (the same Message-ID scheme as players'
/// refusals, so the throttle is per address across everything). Returns
/// whether it was queued.
fn queue_refusal(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    u: &Umpire,
    mail_id: i64,
    text: &str,
    parsed: &InboundParsed,
    now: i64,
) -> Result<bool, IntakeError> {
    let Ok(message_id) =
        super::refusal_message_id(tx, settings, &u.game_name, mail_id, &u.address, now)?
    else {
        return Ok(false);
    };
    let receipt = Receipt {
        subject: "Umpire mail not accepted".into(),
        text: text.to_string(),
    };
    queue(
        tx, settings, u, "refusal", message_id, &receipt, parsed, now,
    )?;
    Ok(true)
}

/// Composes a mail to the umpire's registered address, his reply token in
/// `Reply-To`, threaded with the game and his mail, and queues it.
#[allow(clippy::too_many_arguments)]
fn queue(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    u: &Umpire,
    kind: &str,
    message_id: String,
    receipt: &Receipt,
    parsed: &InboundParsed,
    now: i64,
) -> Result<(), IntakeError> {
    let domain = &settings.message_id_domain;
    let thread = compose::game_thread_id(&u.game_name, domain)?;
    let theirs = parsed
        .message_id
        .as_deref()
        .and_then(super::usable_message_id);
    let mut references = vec![thread];
    references.extend(theirs.clone());
    // The turn as it is now: his commands may have processed one.
    let turn: u32 = tx
        .prepare_cached(
            "SELECT number FROM turns WHERE game_id = ?1
             ORDER BY (status = 'released'), number DESC LIMIT 1",
        )?
        .query_row([u.game.0], |r| r.get(0))
        .optional()?
        .unwrap_or(u.turn);
    let reply_token = token::make_token(
        &settings.server_key,
        &token_game(&u.game_name),
        TOKEN_PLAYER,
        turn,
    )?;
    let reply_to = token::make_reply_to(&settings.game_master, &reply_token)?;
    let date =
        OffsetDateTime::from_unix_timestamp(now).map_err(|e| ComposeError::Date(e.to_string()))?;
    let raw = compose::compose(&Outbound {
        from: Mailbox::named("Adjutant", settings.game_master.clone()),
        to: vec![Mailbox::new(u.address.clone())],
        reply_to: Some(Mailbox::named("Adjutant", reply_to)),
        subject: receipt.subject.clone(),
        message_id: message_id.clone(),
        in_reply_to: theirs.clone(),
        references,
        date,
        text: receipt.text.clone(),
        html: None,
        attachments: Vec::new(),
        extra_headers: vec![("X-Adjutant-Game".into(), u.game_name.clone())],
    })?;
    Store::queue_outbound(
        tx,
        &NewOutboundMail {
            game_id: Some(u.game),
            kind: kind.to_string(),
            message_id,
            recipients: vec![u.address.clone()],
            raw,
            in_reply_to: theirs,
            created_at: now,
            reply_tokens: vec![reply_token.clone()],
        },
    )?;
    Ok(())
}
