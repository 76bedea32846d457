//! Intake: turns stored inbound mail (status `new`) into submissions,
//! refusals and records, each mail all-or-nothing together with any mail it
//! makes us send.
//!
//! The steps, and why they are in this order:
//!
//! 1. **parse** (`mail::parse` with the configured limits) — never fails.
//! 2. **classify** — our own mail, automatic mail and bounces are stored and
//!    never answered (answering them makes mail loops). A bounce of one of
//!    our messages marks that recipient address failing and is audited.
//! 3. **identify** the game and player: a reply token in To/Cc/Delivered-To
//!    names exactly one (game, player); otherwise the `From` address is
//!    looked up. Unknown senders are ignored without an answer: we never
//!    write to an address nobody registered (forged `From` = backscatter).
//!    The umpire's mail is recognised first and goes, authenticated the
//!    same way, to his command executor instead ([`umpire`] submodule).
//! 4. **over the size limits** → refused, one answer to the registered
//!    address; the raw mail stays in the store for the umpire.
//! 5. **authenticate** (`mail::auth`): rejected → one short answer to the
//!    REGISTERED address (never the `From`), recorded in the audit log so the
//!    owner's next report can mention it; accepted → a `submissions` row
//!    and the cleaned text handed to the [`SubmissionHandler`], whose
//!    [`Receipt`] is queued as the answer.
//!
//! Mails are processed in batches, one transaction per batch and a
//! savepoint per mail (see [`process_new`]). An unexpected error on one
//! mail rolls back that mail's savepoint, marks it `refused` with the error
//! as detail, and intake goes on with the next.

use crate::mail::address::{Mailbox, same_address};
use crate::mail::auth::{
    AuthMethod, AuthOutcome, Registered, RejectReason, TokenContext, authenticate, extract_password,
};
use crate::mail::bounce::BounceInfo;
use crate::mail::classify::{Class, classify};
use crate::mail::compose::{self, ComposeError, Outbound};
use crate::mail::parse::{InboundParsed, Limits, parse_inbound};
use crate::mail::token::{self, TokenError};
use crate::store::{
    GameId, InboundMail, InboundStatus, NewAudit, NewOutboundMail, Store, StoreError,
};
use rusqlite::{OptionalExtension, Transaction, params};
use std::time::{Duration, Instant};
use time::OffsetDateTime;

/// Stored mails read per query, and at most processed per transaction.
const BATCH: usize = 200;
/// A batch's transaction is committed once it has run this long, so other
/// writers (the umpire's CLI, the turn cycle) wait at most about this long.
const BATCH_TIME: Duration = Duration::from_millis(250);

/// Why processing one mail failed. Intake records it on the mail and goes on.
#[derive(Debug, thiserror::Error)]
pub enum IntakeError {
    #[error("database error during intake: {0}")]
    Store(#[from] StoreError),
    #[error("database error during intake: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("cannot compose the answer: {0}")]
    Compose(#[from] ComposeError),
    #[error("cannot make a reply token: {0}\n  hint: check server_key_file in the config")]
    Token(#[from] TokenError),
    #[error("the submission handler failed: {0}")]
    Handler(String),
}

/// What intake needs from the configuration.
#[derive(Debug, Clone)]
pub struct IntakeSettings {
    pub limits: Limits,
    /// The game master address: our `From`, and the base of reply tokens.
    pub game_master: String,
    /// Every address that is ours (game master included).
    pub our_addresses: Vec<String>,
    pub message_id_domain: String,
    /// The reply-token key (`server_key_file`).
    pub server_key: Vec<u8>,
    /// At most one refusal per registered address in this many seconds;
    /// 0 = one per refused mail (config `refusal_interval_secs`).
    pub refusal_interval_secs: u64,
}

/// Everything the handler may need about one accepted mail.
#[derive(Debug, Clone)]
pub struct SubmissionContext<'a> {
    /// `submissions.id`.
    pub submission_id: i64,
    /// Stable public id quoted in the receipt, `S-<game>-<n>`.
    pub public_id: &'a str,
    pub inbound_mail_id: i64,
    pub game: GameId,
    pub game_name: &'a str,
    pub player_id: i64,
    pub player_name: &'a str,
    pub side: &'a str,
    /// `turns.id` of the turn the row points at (the current turn).
    pub turn_id: i64,
    /// The turn number the orders count for: the current turn, or the next
    /// one when the mail arrived after the current turn's deadline (+grace)
    /// or while it is being processed (`late`).
    pub counts_for_turn: u32,
    pub late: bool,
    pub auth: AuthMethod,
    pub subject: Option<&'a str>,
    /// The cleaned order text: quotes, signatures and PASSWORD lines removed.
    pub text: &'a str,
    pub received_at: i64,
}

/// What the handler wants answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub subject: String,
    pub text: String,
}

/// Reads an accepted mail's orders. Runs inside the mail's transaction: rows
/// it writes commit with the submission and the receipt, or not at all.
pub trait SubmissionHandler {
    fn handle(
        &mut self,
        tx: &Transaction<'_>,
        ctx: &SubmissionContext<'_>,
    ) -> Result<Receipt, IntakeError>;

    /// Runs an authenticated umpire's mail ([`umpire`]); the answer goes to
    /// the umpire. A handler that takes no umpire commands refuses it.
    fn handle_umpire(
        &mut self,
        _tx: &Transaction<'_>,
        _ctx: &UmpireMail<'_>,
    ) -> Result<Receipt, IntakeError> {
        Err(IntakeError::Handler(
            "this submission handler takes no umpire commands".into(),
        ))
    }
}

mod umpire;
pub use umpire::UmpireMail;

/// The handler until the order parser is plugged in: the submission row is
/// already written by intake; this answers a plain receipt with the id,
/// game, turn and the text exactly as received.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordingHandler;

impl SubmissionHandler for RecordingHandler {
    fn handle(
        &mut self,
        _tx: &Transaction<'_>,
        ctx: &SubmissionContext<'_>,
    ) -> Result<Receipt, IntakeError> {
        let late = if ctx.late {
            " (it arrived after the deadline of the turn before)"
        } else {
            ""
        };
        let text = format!(
            "Adjutant has received your mail.\n\n\
             Submission: {}\nGame:       {}\nPlayer:     {} ({})\nCounts for: turn {}{late}\n\n\
             The text as received:\n\
             ------------------------------------------------------------\n\
             {}\n\
             ------------------------------------------------------------\n\n\
             Quote the submission id if you write to the umpire about it.\n",
            ctx.public_id,
            ctx.game_name,
            ctx.player_name,
            ctx.side,
            ctx.counts_for_turn,
            ctx.text.trim_end(),
        );
        Ok(Receipt {
            subject: format!("[{}] Received {}", ctx.game_name, ctx.public_id),
            text,
        })
    }
}

/// What one [`process_new`] did, by final status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ProcessReport {
    pub accepted: usize,
    pub refused: usize,
    pub ignored: usize,
    /// Mails whose processing failed unexpectedly (also counted in refused).
    pub errors: usize,
    /// Answers queued.
    pub answers: usize,
}

/// Processes every stored mail still `new`, oldest first.
///
/// Mails are processed in batches, ONE transaction per batch with a
/// SAVEPOINT per mail: each mail is still all-or-nothing (an error rolls
/// back only that mail's savepoint, and the mail is then marked `refused`
/// with the error), while the batch costs one sync to disk instead of one
/// per mail. A batch ends after [`BATCH`] mails or [`BATCH_TIME`], so the
/// write lock is never held for long (PASSWORD mail costs an Argon2 check
/// each). A crash before the batch commits leaves all its mails `new`, to
/// be processed again; nothing of them was sent, because answers are only
/// sent after the commit.
pub fn process_new(
    store: &mut Store,
    settings: &IntakeSettings,
    handler: &mut dyn SubmissionHandler,
    now: i64,
) -> Result<ProcessReport, StoreError> {
    let mut report = ProcessReport::default();
    loop {
        let batch = store.new_inbound_mail(BATCH)?;
        if batch.is_empty() {
            return Ok(report);
        }
        let started = Instant::now();
        let tx = store.transaction()?;
        let mut tally = ProcessReport::default();
        // Submissions per game, counted once per batch: nobody else can
        // write while the batch holds the write lock.
        let mut counts = SubmissionCounts::default();
        for mail in &batch {
            tx.prepare_cached("SAVEPOINT intake_mail")?.execute([])?;
            match process_one(&tx, settings, handler, &mut counts, mail, now) {
                Ok(o) => {
                    tx.prepare_cached("RELEASE intake_mail")?.execute([])?;
                    tally.answers += o.answers;
                    match o.status {
                        InboundStatus::Accepted => tally.accepted += 1,
                        InboundStatus::Refused => tally.refused += 1,
                        _ => tally.ignored += 1,
                    }
                }
                Err(e) => {
                    tx.execute_batch("ROLLBACK TO intake_mail; RELEASE intake_mail")?;
                    // The rolled-back mail may have counted a submission.
                    counts = SubmissionCounts::default();
                    tracing::error!(id = mail.id, error = %e, "intake failed on one mail; marked refused");
                    tally.errors += 1;
                    tally.refused += 1;
                    let detail = format!("internal error: {e}");
                    // Without this the mail would stay `new` and be retried
                    // (and fail) forever.
                    Store::set_inbound_status(
                        &tx,
                        mail.id,
                        InboundStatus::Refused,
                        Some(&detail),
                        mail.game_id,
                        mail.player_id,
                    )?;
                }
            }
            if started.elapsed() >= BATCH_TIME {
                // The rest of this read stays `new` for the next batch.
                break;
            }
        }
        tx.commit()?;
        report.accepted += tally.accepted;
        report.refused += tally.refused;
        report.ignored += tally.ignored;
        report.errors += tally.errors;
        report.answers += tally.answers;
    }
}

struct Outcome {
    status: InboundStatus,
    answers: usize,
}

/// A player as intake needs them.
#[derive(Debug, Clone)]
struct Player {
    game: GameId,
    game_name: String,
    player_id: i64,
    player_name: String,
    side: String,
    secret_hash: String,
    /// Registered addresses, oldest first: the first gets notices.
    addresses: Vec<String>,
}

/// The current (not yet released) turn of a game, without its snapshot.
#[derive(Debug, Clone, Copy)]
struct Turn {
    id: i64,
    number: u32,
    open: bool,
    /// Deadline plus grace, if there is a deadline.
    closes_at: Option<i64>,
}

/// The number of submissions of each game so far in this batch's
/// transaction (for the public ids `S-<game>-<n>`), so the count is taken
/// once per batch instead of once per mail (it grows with the game).
type SubmissionCounts = std::collections::HashMap<GameId, i64>;

fn process_one(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    handler: &mut dyn SubmissionHandler,
    counts: &mut SubmissionCounts,
    mail: &InboundMail,
    now: i64,
) -> Result<Outcome, IntakeError> {
    let parsed = parse_inbound(&mail.raw, &settings.limits);
    let class = classify(
        &parsed,
        &settings.our_addresses,
        &settings.message_id_domain,
    );
    let set = |status: InboundStatus, detail: &str, p: Option<&Player>| {
        Store::set_inbound_status(
            tx,
            mail.id,
            status,
            Some(detail),
            p.map(|p| p.game),
            p.map(|p| p.player_id),
        )
    };
    let ignored = |detail: &str| -> Result<Outcome, IntakeError> {
        set(InboundStatus::Ignored, detail, None)?;
        Ok(Outcome {
            status: InboundStatus::Ignored,
            answers: 0,
        })
    };
    match &class {
        Class::Own => return ignored("our own mail came back; never answered"),
        Class::Automatic(reason) => {
            return ignored(&format!("automatic mail ({reason:?}); never answered"));
        }
        Class::Bounce(info) => {
            let detail = record_bounce(tx, info, mail.id, now)?;
            return ignored(&detail);
        }
        Class::Normal => {}
    }

    let from = parsed.from.as_ref().map(|m| m.address.clone());
    let tokens = token::extract_tokens(&parsed.recipient_addresses());
    // The umpire's mail goes to his executor, not the order parser.
    if let Some(u) = umpire::identify(tx, settings, &parsed, from.as_deref(), &tokens)? {
        let outcome = umpire::process(
            tx,
            settings,
            handler,
            &parsed,
            from.as_deref(),
            &tokens,
            u,
            mail,
            now,
        );
        // His ORDERS FOR may have added submissions: count them afresh.
        counts.clear();
        return outcome;
    }
    let Some((player, turn)) = identify(tx, settings, &parsed, from.as_deref(), &tokens)? else {
        if let Some((player, turn, status)) = ended_game_player(tx, from.as_deref())? {
            return answer_game_over(tx, settings, &player, &turn, &status, mail, &parsed, now);
        }
        return ignored("sender is not a registered player and no valid reply token: not answered");
    };
    let notice_to = player.addresses.first().cloned();

    if let Some(problem) = &parsed.over_limit {
        audit_rejection(tx, &player, mail, from.as_deref(), "over-limit", now)?;
        let text = format!(
            "Adjutant could not read your mail \"{}\": {problem}\n\n\
             Nothing in it has been accepted. Please send your orders again as \
             plain text, without attachments.\n",
            parsed.subject.as_deref().unwrap_or("(no subject)")
        );
        let answer = match &notice_to {
            Some(to) => queue_refusal(
                tx,
                settings,
                &player,
                &turn,
                mail.id,
                to,
                "Mail not read: too large",
                &text,
                &parsed,
                now,
            )?,
            None => Refusal::NoAddress,
        };
        let detail = format!("over the size limits: {problem}{}", answer.note());
        set(InboundStatus::Refused, &detail, Some(&player))?;
        return Ok(Outcome {
            status: InboundStatus::Refused,
            answers: answer.count(),
        });
    }

    let password = extract_password(&parsed.text);
    let turns: Vec<u32> = [Some(turn.number), turn.number.checked_sub(1)]
        .into_iter()
        .flatten()
        .filter(|&n| n >= 1)
        .collect();
    let outcome = authenticate(
        &password.candidates,
        &tokens,
        from.as_deref(),
        &Registered {
            addresses: &player.addresses,
            secret_phc: Some(&player.secret_hash),
        },
        &TokenContext {
            key: &settings.server_key,
            game: &player.game_name,
            player: &player.player_name,
            turns: &turns,
        },
    );
    match outcome {
        AuthOutcome::Rejected { reason, notify } => {
            audit_rejection(tx, &player, mail, from.as_deref(), reject_code(reason), now)?;
            let answer = match notify {
                Some(to) => {
                    let text = format!(
                        "Adjutant received a mail in your name for game {} that it did not \
                         accept: {}.\n\nSender: {}\nSubject: {}\n\n\
                         Nothing in it has been accepted. To send orders, reply to one of \
                         Adjutant's mails from your registered address, or put the line\n\n\
                         PASSWORD <your secret>\n\nin the mail. If you did not send it, \
                         someone else tried to; the umpire can see the attempt.{}\n",
                        player.game_name,
                        reject_text(reason),
                        from.as_deref().unwrap_or("(none)"),
                        parsed.subject.as_deref().unwrap_or("(no subject)"),
                        throttle_notice(settings),
                    );
                    queue_refusal(
                        tx,
                        settings,
                        &player,
                        &turn,
                        mail.id,
                        &to,
                        "Mail not accepted",
                        &text,
                        &parsed,
                        now,
                    )?
                }
                None => Refusal::NoAddress,
            };
            let detail = format!("not accepted: {}{}", reject_text(reason), answer.note());
            set(InboundStatus::Refused, &detail, Some(&player))?;
            Ok(Outcome {
                status: InboundStatus::Refused,
                answers: answer.count(),
            })
        }
        AuthOutcome::Accepted {
            method,
            sender_registered,
        } => {
            let late = !turn.open || turn.closes_at.is_some_and(|c| mail.received_at > c);
            let counts_for_turn = if late {
                turn.number.saturating_add(1)
            } else {
                turn.number
            };
            let (submission_id, public_id) = insert_submission(
                tx,
                counts,
                &player,
                &turn,
                mail,
                late.then(|| format!("late: counts for turn {counts_for_turn}")),
            )?;
            let ctx = SubmissionContext {
                submission_id,
                public_id: &public_id,
                inbound_mail_id: mail.id,
                game: player.game,
                game_name: &player.game_name,
                player_id: player.player_id,
                player_name: &player.player_name,
                side: &player.side,
                turn_id: turn.id,
                counts_for_turn,
                late,
                auth: method,
                subject: parsed.subject.as_deref(),
                text: &password.text,
                received_at: mail.received_at,
            };
            let receipt = handler.handle(tx, &ctx)?;
            // The receipt goes to the sender only when that is a registered
            // address; a password mail from elsewhere is confirmed at home.
            let to = match (&from, sender_registered) {
                (Some(f), true) => Some(f.clone()),
                _ => notice_to,
            };
            let answers = match to {
                Some(to) => {
                    let message_id = compose::message_id(
                        "receipt",
                        &player.game_name,
                        &public_id,
                        &settings.message_id_domain,
                    )?;
                    queue_answer(
                        tx,
                        settings,
                        &player,
                        &turn,
                        "receipt",
                        message_id,
                        &to,
                        &receipt.subject,
                        &receipt.text,
                        &parsed,
                        now,
                    )?;
                    1
                }
                None => 0,
            };
            set(
                InboundStatus::Accepted,
                &format!("accepted as {public_id} ({method:?})"),
                Some(&player),
            )?;
            Ok(Outcome {
                status: InboundStatus::Accepted,
                answers,
            })
        }
    }
}

/// A registered player of an ended game (finished or abandoned) writing
/// from his registered address, when no live game of his matched: his most
/// recently created such game, its last turn, and its status.
fn ended_game_player(
    tx: &Transaction<'_>,
    from: Option<&str>,
) -> Result<Option<(Player, Turn, String)>, IntakeError> {
    let Some(address) = from.map(|a| a.trim().trim_start_matches('<').trim_end_matches('>')) else {
        return Ok(None);
    };
    let row = tx
        .prepare_cached(
            "SELECT g.id, g.name, p.id, p.name, s.name, p.secret_hash, g.status
             FROM player_addresses a
             JOIN players p ON p.id = a.player_id
             JOIN games g ON g.id = p.game_id
             JOIN sides s ON s.id = p.side_id
             WHERE a.address = ?1 AND g.status IN ('finished', 'abandoned')
             ORDER BY g.id DESC LIMIT 1",
        )?
        .query_row([address], |r| {
            Ok((
                Player {
                    game: GameId(r.get(0)?),
                    game_name: r.get(1)?,
                    player_id: r.get(2)?,
                    player_name: r.get(3)?,
                    side: r.get(4)?,
                    secret_hash: r.get(5)?,
                    addresses: vec![address.to_string()],
                },
                r.get::<_, String>(6)?,
            ))
        })
        .optional()?;
    let Some((player, status)) = row else {
        return Ok(None);
    };
    let turn = tx
        .prepare_cached(
            "SELECT id, number FROM turns WHERE game_id = ?1 AND superseded_at IS NULL
             ORDER BY number DESC LIMIT 1",
        )?
        .query_row([player.game.0], |r| {
            Ok(Turn {
                id: r.get(0)?,
                number: r.get(1)?,
                open: false,
                closes_at: None,
            })
        })
        .optional()?;
    Ok(turn.map(|t| (player, t, status)))
}

/// Answers a player who writes to a game that has ended: nothing in his
/// mail is taken, and he is told why (throttled like every refusal).
#[allow(clippy::too_many_arguments)]
fn answer_game_over(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    player: &Player,
    turn: &Turn,
    status: &str,
    mail: &InboundMail,
    parsed: &InboundParsed,
    now: i64,
) -> Result<Outcome, IntakeError> {
    let how = if status == "finished" {
        "has ended"
    } else {
        "was abandoned"
    };
    // The organiser's reason, as `game end --because` recorded it.
    let reason: Option<String> = tx
        .prepare_cached(
            "SELECT reason FROM audit_log WHERE game_id = ?1 AND action = 'game-ended'
             ORDER BY id DESC LIMIT 1",
        )?
        .query_row([player.game.0], |r| r.get(0))
        .optional()?
        .flatten();
    let text = format!(
        "Game {} {how}{}; Adjutant takes no more orders for it, and nothing in your \
         mail \"{}\" was used.\n\nYour reports stay in the game's archive; ask the \
         organiser for it. If you meant another game of yours, name that game in \
         the Subject or reply to one of its mails.\n",
        player.game_name,
        reason.map(|r| format!(" ({r})")).unwrap_or_default(),
        parsed.subject.as_deref().unwrap_or("(no subject)"),
    );
    let answer = match player.addresses.first() {
        Some(to) => queue_refusal(
            tx,
            settings,
            player,
            turn,
            mail.id,
            to,
            &format!("Game {} {how}", player.game_name),
            &text,
            parsed,
            now,
        )?,
        None => Refusal::NoAddress,
    };
    let detail = format!("the game {how}: nothing taken{}", answer.note());
    Store::set_inbound_status(
        tx,
        mail.id,
        InboundStatus::Refused,
        Some(&detail),
        Some(player.game),
        Some(player.player_id),
    )?;
    Ok(Outcome {
        status: InboundStatus::Refused,
        answers: answer.count(),
    })
}

fn reject_text(r: RejectReason) -> &'static str {
    match r {
        RejectReason::NoSecret => "it carried neither your password nor a reply address of ours",
        RejectReason::WrongPassword => "the password in it is wrong",
        RejectReason::InvalidToken => "the reply address it was sent to is not valid (any more)",
        RejectReason::UnregisteredSender => {
            "it came from an address that is not registered for you, without your password"
        }
    }
}

fn reject_code(r: RejectReason) -> &'static str {
    match r {
        RejectReason::NoSecret => "no-secret",
        RejectReason::WrongPassword => "wrong-password",
        RejectReason::InvalidToken => "invalid-token",
        RejectReason::UnregisteredSender => "unregistered-sender",
    }
}

/// Finds the player a mail is for. A reply token names one (game, player)
/// exactly, so it wins; otherwise the `From` address. Someone who plays in
/// several games from one address is matched by the game's name in the
/// Subject, else their password, else the oldest game (only to choose where
/// a refusal goes: authentication still decides).
fn identify(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    parsed: &InboundParsed,
    from: Option<&str>,
    tokens: &[String],
) -> Result<Option<(Player, Turn)>, IntakeError> {
    let by_from = match from {
        Some(f) => players_at(tx, Some(f))?,
        None => Vec::new(),
    };
    if !tokens.is_empty() {
        // The sender's own players first (the usual case), then everyone.
        let everyone = if by_from.is_empty() {
            players_at(tx, None)?
        } else {
            Vec::new()
        };
        for p in by_from.iter().chain(&everyone) {
            let Some(turn) = current_turn(tx, p.game)? else {
                continue;
            };
            let candidates = [Some(turn.number), turn.number.checked_sub(1)];
            let hit = candidates.into_iter().flatten().any(|n| {
                tokens.iter().any(|t| {
                    token::verify(&settings.server_key, &p.game_name, &p.player_name, n, t)
                })
            });
            if hit {
                return Ok(Some((p.clone(), turn)));
            }
        }
    }
    let passwords = extract_password(&parsed.text).candidates;
    let chosen = match by_from.len() {
        0 => match passwords.first() {
            Some(pw) => by_password(tx, parsed, pw)?,
            None => None,
        },
        1 => by_from.first().cloned(),
        _ => {
            let subject = parsed.subject.as_deref().unwrap_or("").to_lowercase();
            by_from
                .iter()
                .find(|p| subject.contains(&p.game_name.to_lowercase()))
                .or_else(|| {
                    by_from.iter().find(|p| {
                        passwords
                            .iter()
                            .take(crate::mail::auth::MAX_PASSWORD_CANDIDATES)
                            .any(|pw| crate::secret::verify_secret(pw, &p.secret_hash))
                    })
                })
                .or(by_from.first())
                .cloned()
        }
    };
    match chosen {
        Some(p) => Ok(current_turn(tx, p.game)?.map(|t| (p, t))),
        None => Ok(None),
    }
}

/// At most this many Argon2 checks are spent finding the owner of a
/// password sent from an unregistered address: each costs tens of
/// milliseconds, and anyone can send us mail with PASSWORD lines.
pub const MAX_UNKNOWN_SENDER_CHECKS: usize = 16;

/// The player whose secret `password` is, for a mail from an unregistered
/// address. Players of games named in the Subject are tried first (all of
/// them); then the other players of active games, within
/// [`MAX_UNKNOWN_SENDER_CHECKS`]. A player writing from a strange address
/// on a busy server names the game in the Subject (docs/mail.md).
fn by_password(
    tx: &Transaction<'_>,
    parsed: &InboundParsed,
    password: &str,
) -> Result<Option<Player>, IntakeError> {
    let subject = parsed.subject.as_deref().unwrap_or("").to_lowercase();
    let (named, others): (Vec<Player>, Vec<Player>) = players_at(tx, None)?
        .into_iter()
        .partition(|p| subject.contains(&p.game_name.to_lowercase()));
    let budget = MAX_UNKNOWN_SENDER_CHECKS.saturating_sub(named.len());
    Ok(named
        .into_iter()
        .chain(others.into_iter().take(budget))
        .find(|p| crate::secret::verify_secret(password, &p.secret_hash)))
}

/// Players of active games at `address`, or all of them for `None`.
fn players_at(tx: &Transaction<'_>, address: Option<&str>) -> Result<Vec<Player>, IntakeError> {
    let address = address.map(|a| a.trim().trim_start_matches('<').trim_end_matches('>'));
    let mut stmt = tx.prepare_cached(
        "SELECT g.id, g.name, p.id, p.name, s.name, p.secret_hash
         FROM players p
         JOIN games g ON g.id = p.game_id
         JOIN sides s ON s.id = p.side_id
         WHERE g.status IN ('active', 'paused') AND p.status <> 'dropped'
           AND (?1 IS NULL OR EXISTS (SELECT 1 FROM player_addresses a
                                      WHERE a.player_id = p.id AND a.address = ?1))
         ORDER BY g.id, p.id",
    )?;
    let rows = stmt.query_map([address], |r| {
        Ok(Player {
            game: GameId(r.get(0)?),
            game_name: r.get(1)?,
            player_id: r.get(2)?,
            player_name: r.get(3)?,
            side: r.get(4)?,
            secret_hash: r.get(5)?,
            addresses: Vec::new(),
        })
    })?;
    let mut players = rows.collect::<Result<Vec<_>, _>>()?;
    let mut addr =
        tx.prepare_cached("SELECT address FROM player_addresses WHERE player_id = ?1 ORDER BY id")?;
    for p in &mut players {
        p.addresses = addr
            .query_map([p.player_id], |r| r.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
    }
    Ok(players)
}

fn current_turn(tx: &Transaction<'_>, game: GameId) -> Result<Option<Turn>, IntakeError> {
    Ok(tx
        .prepare_cached(
            "SELECT id, number, status, deadline_at, grace_secs FROM turns
             WHERE game_id = ?1 AND status <> 'released' AND superseded_at IS NULL
             ORDER BY number DESC LIMIT 1",
        )?
        .query_row([game.0], |r| {
            let status: String = r.get(2)?;
            let deadline: Option<i64> = r.get(3)?;
            let grace: i64 = r.get(4)?;
            Ok(Turn {
                id: r.get(0)?,
                number: r.get(1)?,
                open: status == "open",
                closes_at: deadline.map(|d| d.saturating_add(grace)),
            })
        })
        .optional()?)
}

/// Writes the `submissions` row; the public id counts the game's
/// submissions, so it is stable and says nothing about other games.
fn insert_submission(
    tx: &Transaction<'_>,
    counts: &mut SubmissionCounts,
    player: &Player,
    turn: &Turn,
    mail: &InboundMail,
    detail: Option<String>,
) -> Result<(i64, String), IntakeError> {
    let n = match counts.get(&player.game) {
        Some(&n) => n,
        None => tx
            .prepare_cached("SELECT count(*) FROM submissions WHERE game_id = ?1")?
            .query_row([player.game.0], |r| r.get(0))?,
    };
    let n = n.saturating_add(1);
    let public_id = format!("S-{}-{n}", player.game_name);
    tx.prepare_cached(
        "INSERT INTO submissions (public_id, game_id, player_id, inbound_mail_id, turn_id,
                                  received_at, ready, status, detail)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, 'accepted', ?7)",
    )?
    .execute(params![
        public_id,
        player.game.0,
        player.player_id,
        mail.id,
        turn.id,
        mail.received_at,
        detail
    ])?;
    counts.insert(player.game, n);
    Ok((tx.last_insert_rowid(), public_id))
}

/// The audit entry for a refused mail, so the owner's next report and the
/// umpire can show the attempt.
fn audit_rejection(
    tx: &Transaction<'_>,
    player: &Player,
    mail: &InboundMail,
    from: Option<&str>,
    reason: &str,
    now: i64,
) -> Result<(), IntakeError> {
    let detail = serde_json::json!({
        "inbound_mail_id": mail.id,
        "player": player.player_name,
        "from": from,
        "reason": reason,
    });
    Store::append_audit(
        tx,
        &NewAudit {
            game: Some(player.game),
            actor: "system".into(),
            at: now,
            action: "mail-refused".into(),
            reason: Some(reason.into()),
            detail_json: detail.to_string(),
        },
    )?;
    Ok(())
}

/// Marks the bounced recipients of one of our messages failing and audits
/// it. Returns the detail for the inbound row.
fn record_bounce(
    tx: &Transaction<'_>,
    info: &BounceInfo,
    mail_id: i64,
    now: i64,
) -> Result<String, IntakeError> {
    let original = info.original_message_id.as_deref().map(|id| {
        id.trim()
            .trim_start_matches('<')
            .trim_end_matches('>')
            .to_string()
    });
    let ours = match &original {
        Some(id) => tx
            .query_row(
                "SELECT id, game_id, recipients_json FROM outbound_mail WHERE message_id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, Option<i64>>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                },
            )
            .optional()?,
        None => None,
    };
    let Some((outbound_id, Some(game), recipients_json)) = ours else {
        return Ok("bounce of a message that is not one of our game mails; recorded".into());
    };
    if !info.is_permanent_failure() {
        return Ok(format!(
            "delay notice for outbound mail {outbound_id}; nothing marked"
        ));
    }
    let sent_to: Vec<String> = serde_json::from_str(&recipients_json).unwrap_or_default();
    // The failed addresses the report names; a report naming none (some
    // Exim/qmail texts) blames the only recipient if there was one.
    let mut failed: Vec<String> = info
        .recipients
        .iter()
        .filter(|r| r.is_permanent())
        .map(|r| r.address.clone())
        .collect();
    if failed.is_empty() && sent_to.len() == 1 {
        failed = sent_to.clone();
    }
    let diagnostic = info
        .recipients
        .iter()
        .find_map(|r| r.diagnostic.clone().or_else(|| r.status.clone()))
        .unwrap_or_else(|| "delivery failed".into());
    let mut marked = Vec::new();
    for address in failed
        .iter()
        .filter(|a| sent_to.iter().any(|s| same_address(s, a)))
    {
        let changed = tx.prepare_cached("UPDATE player_addresses SET failing = 1, last_bounce_at = ?3, last_bounce_detail = ?4
             WHERE game_id = ?1 AND address = ?2").and_then(|mut st| st.execute(params![game, address, now, diagnostic],))?;
        if changed > 0 {
            marked.push(address.clone());
        }
    }
    // A player all of whose addresses bounce cannot be reached at all.
    tx.prepare_cached(
        "UPDATE players SET address_failing = 1
         WHERE game_id = ?1 AND address_failing = 0
           AND EXISTS (SELECT 1 FROM player_addresses a WHERE a.player_id = players.id)
           AND NOT EXISTS (SELECT 1 FROM player_addresses a
                           WHERE a.player_id = players.id AND a.failing = 0)",
    )
    .and_then(|mut st| st.execute([game]))?;
    let detail = serde_json::json!({
        "inbound_mail_id": mail_id,
        "outbound_mail_id": outbound_id,
        "addresses": marked,
        "diagnostic": diagnostic,
    });
    Store::append_audit(
        tx,
        &NewAudit {
            game: Some(GameId(game)),
            actor: "system".into(),
            at: now,
            action: "address-bounced".into(),
            reason: Some(diagnostic.clone()),
            detail_json: detail.to_string(),
        },
    )?;
    Ok(format!(
        "bounce of outbound mail {outbound_id}: marked failing: {}",
        if marked.is_empty() {
            "none".to_string()
        } else {
            marked.join(", ")
        }
    ))
}

/// A Message-ID usable in In-Reply-To/References: compose refuses anything
/// else, and a player's odd Message-ID must not cost them their receipt.
fn usable_message_id(id: &str) -> Option<String> {
    let id = id.trim().trim_start_matches('<').trim_end_matches('>');
    let ok = id.matches('@').count() == 1
        && !id.starts_with('@')
        && !id.ends_with('@')
        && id
            .chars()
            .all(|c| c.is_ascii_graphic() && c != '<' && c != '>');
    ok.then(|| id.to_string())
}

/// What became of the answer to a refused mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    Queued,
    /// Held back: a refusal went to the same address at `last_at`.
    Throttled {
        last_at: i64,
    },
    /// The player has no registered address to tell.
    NoAddress,
}

impl Refusal {
    fn count(self) -> usize {
        usize::from(self == Refusal::Queued)
    }

    /// Appended to the inbound row's detail, for the umpire.
    fn note(self) -> String {
        match self {
            Refusal::Queued => String::new(),
            Refusal::Throttled { last_at } => format!(
                "; no answer sent: a refusal already went to the registered address on {} \
                 (refusal_interval_secs)",
                crate::game::clock::format_local(last_at, "UTC")
            ),
            Refusal::NoAddress => "; no answer sent: the player has no registered address".into(),
        }
    }
}

/// The sentence that tells the player further attempts within the
/// interval will not be answered one by one.
fn throttle_notice(settings: &IntakeSettings) -> String {
    match settings.refusal_interval_secs {
        0 => String::new(),
        secs => format!(
            "\n\nTo keep a flood of such mail from becoming a flood in your mailbox, \
             further refused mails in the next {} are not answered; the umpire still sees \
             every one.",
            describe_secs(secs)
        ),
    }
}

fn describe_secs(secs: u64) -> String {
    match secs {
        s if s % 3600 == 0 && s >= 3600 => match s / 3600 {
            1 => "hour".to_string(),
            h => format!("{h} hours"),
        },
        s if s % 60 == 0 && s >= 60 => match s / 60 {
            1 => "minute".to_string(),
            m => format!("{m} minutes"),
        },
        s => format!("{s} seconds"),
    }
}

/// Queues a refusal to the registered address `to`, at most one per
/// address per `refusal_interval_secs` (issue #4: a flood of forgeries
/// must not become a flood to the victim; every refused mail is still
/// stored and audited by the caller).
///
/// The throttle needs no table of its own: a throttled refusal's
/// Message-ID names the address (a hash of it) and the interval-long
/// window `now` falls in, `refusal.<hash>.w<window>@domain`, so the UNIQUE
/// index on `outbound_mail.message_id` finds the last one. A refusal is
/// held back when one exists in this window, or in the window before and
/// less than an interval ago; the gap between two refusals to one address
/// is therefore always at least the interval, across all games.
#[allow(clippy::too_many_arguments)]
fn queue_refusal(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    player: &Player,
    turn: &Turn,
    mail_id: i64,
    to: &str,
    subject: &str,
    text: &str,
    parsed: &InboundParsed,
    now: i64,
) -> Result<Refusal, IntakeError> {
    let message_id = match refusal_message_id(tx, settings, &player.game_name, mail_id, to, now)? {
        Ok(id) => id,
        Err(last_at) => return Ok(Refusal::Throttled { last_at }),
    };
    queue_answer(
        tx, settings, player, turn, "refusal", message_id, to, subject, text, parsed, now,
    )?;
    Ok(Refusal::Queued)
}

/// The Message-ID of a refusal to `to`, or `Err(when the last one went)`
/// when one went to that address less than `refusal_interval_secs` ago.
/// Throttled refusals are named for the address (hashed) and the interval's
/// window, so the throttle holds per address across every game, players'
/// and umpires' alike; with an interval of 0 every refused mail gets its
/// own (named for the game and the mail).
pub(crate) fn refusal_message_id(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    game_name: &str,
    mail_id: i64,
    to: &str,
    now: i64,
) -> Result<Result<String, i64>, IntakeError> {
    let domain = &settings.message_id_domain;
    let interval = i64::try_from(settings.refusal_interval_secs).unwrap_or(i64::MAX);
    if interval == 0 {
        return Ok(Ok(compose::message_id(
            "refusal",
            game_name,
            &format!("in{mail_id}"),
            domain,
        )?));
    }
    let address = crate::store::sha256_hex(to.trim().to_lowercase().as_bytes());
    let address = address.get(..16).unwrap_or(&address);
    let window = now.div_euclid(interval);
    let id_for = |w: i64| compose::message_id("refusal", address, &format!("w{w}"), domain);
    for w in [window, window.saturating_sub(1)] {
        let last: Option<i64> = tx
            .prepare_cached("SELECT created_at FROM outbound_mail WHERE message_id = ?1")?
            .query_row([id_for(w)?], |r| r.get(0))
            .optional()?;
        if let Some(at) = last
            && (w == window || now.saturating_sub(at) < interval)
        {
            return Ok(Err(at));
        }
    }
    Ok(Ok(id_for(window)?))
}

/// Composes an answer and queues it in the mail's transaction. The caller's
/// Message-ID is stable (`compose::message_id`), so a resend is a
/// recognisable duplicate;
/// Reply-To carries the player's token for the turn, so the player can
/// simply reply; References start with the game's thread id.
#[allow(clippy::too_many_arguments)]
fn queue_answer(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    player: &Player,
    turn: &Turn,
    kind: &str,
    message_id: String,
    to: &str,
    subject: &str,
    text: &str,
    parsed: &InboundParsed,
    now: i64,
) -> Result<(), IntakeError> {
    let domain = &settings.message_id_domain;
    let thread = compose::game_thread_id(&player.game_name, domain)?;
    let theirs = parsed.message_id.as_deref().and_then(usable_message_id);
    let mut references = vec![thread];
    references.extend(theirs.clone());
    let reply_token = token::make_token(
        &settings.server_key,
        &player.game_name,
        &player.player_name,
        turn.number,
    )?;
    let reply_to = token::make_reply_to(&settings.game_master, &reply_token)?;
    let date =
        OffsetDateTime::from_unix_timestamp(now).map_err(|e| ComposeError::Date(e.to_string()))?;
    let raw = compose::compose(&Outbound {
        from: Mailbox::named("Adjutant", settings.game_master.clone()),
        to: vec![Mailbox::new(to)],
        reply_to: Some(Mailbox::named("Adjutant", reply_to)),
        subject: subject.to_string(),
        message_id: message_id.clone(),
        in_reply_to: theirs.clone(),
        references,
        date,
        text: text.to_string(),
        html: None,
        attachments: Vec::new(),
        extra_headers: vec![("X-Adjutant-Game".into(), player.game_name.clone())],
    })?;
    Store::queue_outbound(
        tx,
        &NewOutboundMail {
            game_id: Some(player.game),
            kind: kind.to_string(),
            message_id,
            recipients: vec![to.to_string()],
            raw,
            in_reply_to: theirs,
            created_at: now,
        },
    )?;
    Ok(())
}
