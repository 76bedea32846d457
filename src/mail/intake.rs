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
    /// For each line of `text`, its 1-based line in the mail as the player
    /// wrote it (empty: `text` is the mail, line for line).
    pub line_numbers: &'a [usize],
    /// The mail's body before quotes and signature were removed
    /// (normalised, passwords still in it): where an edited copy of the
    /// report's order form is looked for. Empty when there was no mail.
    pub body: &'a str,
    pub received_at: i64,
}

impl SubmissionContext<'_> {
    /// The line of the mail as written for line `n` (1-based) of `text`.
    pub fn mail_line(&self, n: usize) -> usize {
        n.checked_sub(1)
            .and_then(|i| self.line_numbers.get(i))
            .copied()
            .unwrap_or(n)
    }
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
    let (player, turn) = match identify(tx, settings, &parsed, from.as_deref(), &tokens)? {
        Identified::Player(p, t) => (*p, t),
        Identified::Nobody => {
            if let Some((player, turn, status)) = ended_game_player(tx, from.as_deref())? {
                return answer_game_over(tx, settings, &player, &turn, &status, mail, &parsed, now);
            }
            return ignored(
                "sender is not a registered player and no valid reply token: not answered",
            );
        }
        Identified::Ambiguous(players) => {
            return ask_which_game(tx, settings, mail, &parsed, &players, now);
        }
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
            let line_numbers: Vec<usize> = password
                .lines
                .iter()
                .map(|&i| parsed.text_lines.get(i).copied().unwrap_or(i + 1))
                .collect();
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
                line_numbers: &line_numbers,
                body: &parsed.body_text,
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
    let sql = format!(
        "{PLAYER_COLUMNS}
         JOIN player_addresses a ON a.player_id = p.id
         WHERE a.address = ?1 AND g.status IN ('finished', 'abandoned')
         ORDER BY g.id DESC LIMIT 1"
    );
    let Some(player) = load_players(tx, &sql, &address)?.into_iter().next() else {
        return Ok(None);
    };
    let row: Option<(String, i64, u32)> = tx
        .prepare_cached(
            "SELECT g.status, t.id, t.number FROM games g
             JOIN turns t ON t.game_id = g.id AND t.superseded_at IS NULL
             WHERE g.id = ?1 ORDER BY t.number DESC LIMIT 1",
        )?
        .query_row([player.game.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let turn = row.map(|(status, id, number)| {
        (
            Turn {
                id,
                number,
                open: false,
                closes_at: None,
            },
            status,
        )
    });
    Ok(turn.map(|(t, status)| (player, t, status)))
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

/// A mail from an address that plays in several games, that names none of
/// them (no reply token, no game in the Subject, no password that opens
/// one of them): nothing is accepted, and the sender — whose address is
/// registered, so writing to it is no backscatter — is asked which game he
/// meant. Throttled like a refusal ([`refusal_message_id`]).
fn ask_which_game(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    mail: &InboundMail,
    parsed: &InboundParsed,
    players: &[Player],
    now: i64,
) -> Result<Outcome, IntakeError> {
    let mut games: Vec<&str> = Vec::new();
    for p in players {
        if !games.contains(&p.game_name.as_str()) {
            games.push(&p.game_name);
        }
    }
    let list = games.join(", ");
    let example = games.first().copied().unwrap_or("GAME");
    let to = players
        .first()
        .and_then(|p| {
            parsed
                .from
                .as_ref()
                .map(|m| m.address.clone())
                .filter(|f| p.addresses.iter().any(|a| same_address(a, f)))
        })
        .or_else(|| players.first().and_then(|p| p.addresses.first().cloned()));
    let answer = match to {
        Some(to) => match refusal_message_id(tx, settings, example, mail.id, &to, now)? {
            Err(last_at) => Refusal::Throttled { last_at },
            Ok(message_id) => {
                let text = format!(
                    "Adjutant received your mail \"{}\" but cannot tell which game it is \
                         for: you play in {list} from this address.\n\n\
                         Nothing in it has been accepted. Please send it again and either\n\
                         - name the game in the Subject, e.g. \"Orders for {example}\",\n\
                         - reply to that game's last mail from Adjutant, or\n\
                         - put that game's line PASSWORD <your secret> in it.{}\n",
                    parsed.subject.as_deref().unwrap_or("(no subject)"),
                    throttle_notice(settings),
                );
                let date = OffsetDateTime::from_unix_timestamp(now)
                    .map_err(|e| ComposeError::Date(e.to_string()))?;
                let theirs = parsed.message_id.as_deref().and_then(usable_message_id);
                let raw = compose::compose(&Outbound {
                    from: Mailbox::named("Adjutant", settings.game_master.clone()),
                    to: vec![Mailbox::new(&to)],
                    reply_to: None,
                    subject: "Which game? Mail not accepted".to_string(),
                    message_id: message_id.clone(),
                    in_reply_to: theirs.clone(),
                    references: theirs.iter().cloned().collect(),
                    date,
                    text,
                    html: None,
                    attachments: Vec::new(),
                    extra_headers: Vec::new(),
                })?;
                Store::queue_outbound(
                    tx,
                    &NewOutboundMail {
                        game_id: None,
                        kind: "refusal".to_string(),
                        message_id,
                        recipients: vec![to.clone()],
                        raw,
                        in_reply_to: theirs,
                        created_at: now,
                        reply_tokens: Vec::new(),
                    },
                )?;
                Refusal::Queued
            }
        },
        None => Refusal::NoAddress,
    };
    let detail = format!(
        "not accepted: the sender plays in {list} and the mail names none of them \
         (no reply token, no game in the Subject, no password that opens one); asked which game{}",
        answer.note()
    );
    Store::set_inbound_status(
        tx,
        mail.id,
        InboundStatus::Refused,
        Some(&detail),
        None,
        None,
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

/// What [`identify`] found for a mail that is not the umpire's.
enum Identified {
    Player(Box<Player>, Turn),
    /// The sender plays in several games from this address and nothing in
    /// the mail (token, Subject, password) says which one it is for.
    Ambiguous(Vec<Player>),
    Nobody,
}

/// Finds the player a mail is for, at a cost that does not depend on how
/// many games the server runs (issue #18): every lookup goes through an
/// index (the sender's address, a game's name, a player's id), never
/// through every player.
///
/// 1. A reply token names one (game, player) exactly, so it wins. It is
///    tried against the sender's own players, the players of the game we
///    sent that token for ([`token_games`]) and of the games the Subject
///    names — never against every player of every game.
/// 2. The game named in the Subject (as a whole word, [`named_games`]).
/// 3. Which of the sender's games the password opens.
/// 4. Still several games: [`Identified::Ambiguous`], answered by asking
///    which game.
///
/// A mail from an address nobody registered is matched only by its
/// PASSWORD ([`by_password`], bounded Argon2 checks).
fn identify(
    tx: &Transaction<'_>,
    settings: &IntakeSettings,
    parsed: &InboundParsed,
    from: Option<&str>,
    tokens: &[String],
) -> Result<Identified, IntakeError> {
    let by_from = match from {
        Some(f) => players_at(tx, f)?,
        None => Vec::new(),
    };
    let named = named_games(tx, parsed.subject.as_deref())?;
    if !tokens.is_empty() {
        let mut candidates = by_from.clone();
        let mut games = token_games(tx, tokens)?;
        games.extend(
            named
                .iter()
                .filter(|g| !games.contains(g))
                .copied()
                .collect::<Vec<_>>(),
        );
        for &g in &games {
            for p in players_of_game(tx, g)? {
                if !candidates.iter().any(|c| c.player_id == p.player_id) {
                    candidates.push(p);
                }
            }
        }
        for p in candidates {
            let Some(turn) = current_turn(tx, p.game)? else {
                continue;
            };
            let numbers = [Some(turn.number), turn.number.checked_sub(1)];
            let hit = numbers.into_iter().flatten().any(|n| {
                tokens.iter().any(|t| {
                    token::verify(&settings.server_key, &p.game_name, &p.player_name, n, t)
                })
            });
            if hit {
                return Ok(Identified::Player(Box::new(p), turn));
            }
        }
    }
    let passwords = extract_password(&parsed.text).candidates;
    let chosen = match by_from.len() {
        0 => match passwords.first() {
            Some(pw) => by_password(tx, &named, pw)?,
            None => None,
        },
        1 => by_from.first().cloned(),
        _ => {
            let chosen = by_from
                .iter()
                .find(|p| named.contains(&p.game))
                .or_else(|| {
                    by_from.iter().take(MAX_UNKNOWN_SENDER_CHECKS).find(|p| {
                        passwords
                            .iter()
                            .take(crate::mail::auth::MAX_PASSWORD_CANDIDATES)
                            .any(|pw| crate::secret::verify_secret(pw, &p.secret_hash))
                    })
                })
                .cloned();
            if chosen.is_none() {
                return Ok(Identified::Ambiguous(by_from));
            }
            chosen
        }
    };
    match chosen {
        Some(p) => Ok(match current_turn(tx, p.game)? {
            Some(t) => Identified::Player(Box::new(p), t),
            None => Identified::Nobody,
        }),
        None => Ok(Identified::Nobody),
    }
}

/// At most this many Argon2 checks are spent finding the owner of a
/// password: for a mail from an unregistered address, beyond the players
/// of the games its Subject names; for a sender who plays in many games,
/// among his games. Each check costs tens of milliseconds, and anyone can
/// send us mail with PASSWORD lines.
pub const MAX_UNKNOWN_SENDER_CHECKS: usize = 16;

/// The player whose secret `password` is, for a mail from an unregistered
/// address. Players of the games named in the Subject (`named`) are tried
/// first (all of them); then the first other players of active games,
/// within [`MAX_UNKNOWN_SENDER_CHECKS`]. A player writing from a strange
/// address on a busy server names the game in the Subject (docs/mail.md).
fn by_password(
    tx: &Transaction<'_>,
    named: &[GameId],
    password: &str,
) -> Result<Option<Player>, IntakeError> {
    let mut candidates = Vec::new();
    for &g in named {
        candidates.extend(players_of_game(tx, g)?);
    }
    let budget = MAX_UNKNOWN_SENDER_CHECKS.saturating_sub(candidates.len());
    if budget > 0 {
        let others = first_players(tx, budget.saturating_add(candidates.len()))?;
        candidates.extend(
            others
                .into_iter()
                .filter(|p| !named.contains(&p.game))
                .take(budget),
        );
    }
    Ok(candidates
        .into_iter()
        .find(|p| crate::secret::verify_secret(password, &p.secret_hash)))
}

/// The columns [`player_row`] reads, and the joins they need.
const PLAYER_COLUMNS: &str = "SELECT g.id, g.name, p.id, p.name, s.name, p.secret_hash
     FROM players p
     JOIN games g ON g.id = p.game_id
     JOIN sides s ON s.id = p.side_id";

fn player_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Player> {
    Ok(Player {
        game: GameId(r.get(0)?),
        game_name: r.get(1)?,
        player_id: r.get(2)?,
        player_name: r.get(3)?,
        side: r.get(4)?,
        secret_hash: r.get(5)?,
        addresses: Vec::new(),
    })
}

/// Runs a players query and fills in each player's addresses (through the
/// index on `player_addresses(player_id)`).
fn load_players(
    tx: &Transaction<'_>,
    sql: &str,
    param: &dyn rusqlite::ToSql,
) -> Result<Vec<Player>, IntakeError> {
    let mut stmt = tx.prepare_cached(sql)?;
    let mut players = stmt
        .query_map([param], player_row)?
        .collect::<Result<Vec<_>, _>>()?;
    cost::add(&stmt);
    let mut addr =
        tx.prepare_cached("SELECT address FROM player_addresses WHERE player_id = ?1 ORDER BY id")?;
    for p in &mut players {
        p.addresses = addr
            .query_map([p.player_id], |r| r.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
    }
    cost::add(&addr);
    Ok(players)
}

/// Players of active (or paused) games registered at `address`, oldest
/// game first: one lookup in the index on `player_addresses(address)`.
fn players_at(tx: &Transaction<'_>, address: &str) -> Result<Vec<Player>, IntakeError> {
    let address = address.trim().trim_start_matches('<').trim_end_matches('>');
    let sql = format!(
        "{PLAYER_COLUMNS}
         JOIN player_addresses a ON a.player_id = p.id
         WHERE a.address = ?1 AND g.status IN ('active', 'paused') AND p.status <> 'dropped'
         ORDER BY g.id, p.id"
    );
    load_players(tx, &sql, &address)
}

/// The players of one game, if it is active or paused.
fn players_of_game(tx: &Transaction<'_>, game: GameId) -> Result<Vec<Player>, IntakeError> {
    let sql = format!(
        "{PLAYER_COLUMNS}
         WHERE p.game_id = ?1 AND g.status IN ('active', 'paused') AND p.status <> 'dropped'
         ORDER BY p.id"
    );
    load_players(tx, &sql, &game.0)
}

/// The first `limit` players of active games, oldest game first.
fn first_players(tx: &Transaction<'_>, limit: usize) -> Result<Vec<Player>, IntakeError> {
    let sql = format!(
        "{PLAYER_COLUMNS}
         WHERE g.status IN ('active', 'paused') AND p.status <> 'dropped'
         ORDER BY g.id, p.id LIMIT ?1"
    );
    load_players(tx, &sql, &i64::try_from(limit).unwrap_or(i64::MAX))
}

/// At most this many token-shaped addresses of one mail are looked up.
const MAX_TOKENS: usize = 4;

/// The games the reply tokens in a mail's recipients were sent for, as
/// recorded when we queued them (`reply_tokens`, migration 0008): one index
/// lookup per token. The token itself is verified by the caller.
fn token_games(tx: &Transaction<'_>, tokens: &[String]) -> Result<Vec<GameId>, IntakeError> {
    let mut stmt = tx.prepare_cached(
        "SELECT r.game_id FROM reply_tokens r JOIN games g ON g.id = r.game_id
         WHERE r.token = ?1 AND g.status IN ('active', 'paused')",
    )?;
    let mut games = Vec::new();
    for t in tokens.iter().take(MAX_TOKENS) {
        if let Some(id) = stmt.query_row([t], |r| r.get(0)).optional()? {
            let id = GameId(id);
            if !games.contains(&id) {
                games.push(id);
            }
        }
    }
    cost::add(&stmt);
    Ok(games)
}

/// Longest name a game may have (`game::check_game_name`).
const MAX_GAME_NAME: usize = 40;
/// Words of a Subject looked at for game names; a Subject is short.
const MAX_SUBJECT_WORDS: usize = 24;

/// The spellings in `subject` that could be a game's name as a whole word:
/// game names are `[a-z][a-z0-9-]*` (`game::check_game_name`), so a word is
/// a maximal run of ASCII letters, digits and `-`, lower-cased; within a
/// word, every run of its `-`-separated parts is a candidate too ("Orders
/// for brawner2-turn3" names `brawner2`), longest first. `turns1` is not a
/// word of "turns10", so game `turns1` does not claim mail for `turns10`.
pub(crate) fn subject_words(subject: &str) -> Vec<Vec<String>> {
    subject
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .take(MAX_SUBJECT_WORDS)
        .map(|word| {
            let word = word.to_ascii_lowercase();
            let parts: Vec<&str> = word.split('-').take(8).collect();
            let mut spans: Vec<String> = Vec::new();
            for len in (1..=parts.len()).rev() {
                for start in 0..=parts.len() - len {
                    let s = parts[start..start + len].join("-");
                    if (1..=MAX_GAME_NAME).contains(&s.len())
                        && s.starts_with(|c: char| c.is_ascii_lowercase())
                        && !spans.contains(&s)
                    {
                        spans.push(s);
                    }
                }
            }
            spans
        })
        .collect()
}

/// Active (or paused) games the Subject names as a whole word
/// ([`subject_words`]), in the order named: one lookup in the games' name
/// index per candidate spelling, whatever the number of games.
fn named_games(tx: &Transaction<'_>, subject: Option<&str>) -> Result<Vec<GameId>, IntakeError> {
    let Some(subject) = subject else {
        return Ok(Vec::new());
    };
    let mut stmt = tx.prepare_cached(
        "SELECT id FROM games WHERE name = ?1 AND status IN ('active', 'paused')",
    )?;
    let mut games = Vec::new();
    for spans in subject_words(subject) {
        for s in spans {
            if let Some(id) = stmt.query_row([&s], |r| r.get(0)).optional()? {
                let id = GameId(id);
                if !games.contains(&id) {
                    games.push(id);
                }
                // The longest name in a word wins: "brawner-2" is not also
                // game `brawner`.
                break;
            }
        }
    }
    cost::add(&stmt);
    Ok(games)
}

/// Counts the SQLite virtual-machine steps intake's lookups take, so a test
/// can check that finding a mail's player costs the same with one game and
/// with many (issue #18). Only in tests; elsewhere it compiles to nothing.
pub(crate) mod cost {
    #[cfg(test)]
    thread_local! {
        static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    #[cfg(test)]
    pub(crate) fn add(stmt: &rusqlite::Statement<'_>) {
        let n = stmt.reset_status(rusqlite::StatementStatus::VmStep);
        STEPS.with(|s| s.set(s.get() + u64::try_from(n).unwrap_or(0)));
    }

    #[cfg(not(test))]
    pub(crate) fn add(_stmt: &rusqlite::Statement<'_>) {}

    /// Steps counted since the last call, on this thread.
    #[cfg(test)]
    pub(crate) fn take() -> u64 {
        STEPS.with(|s| s.replace(0))
    }
}

fn current_turn(tx: &Transaction<'_>, game: GameId) -> Result<Option<Turn>, IntakeError> {
    let mut stmt = tx.prepare_cached(
        "SELECT id, number, status, deadline_at, grace_secs FROM turns
             WHERE game_id = ?1 AND status <> 'released' AND superseded_at IS NULL
             ORDER BY number DESC LIMIT 1",
    )?;
    let turn = stmt
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
        .optional()?;
    cost::add(&stmt);
    Ok(turn)
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
                crate::clock::format_local(last_at, "UTC")
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
            reply_tokens: vec![reply_token.clone()],
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::new_game;
    use crate::scenario::Scenario;

    const TRAINING: &str = include_str!("../../scenarios/training.toml");

    /// A store with `n` training games, each with its own player addresses
    /// (`blue-<i>@…`), and no Argon2 (the hashes are never checked here).
    fn store_with_games(dir: &tempfile::TempDir, n: usize) -> Store {
        let scenario = Scenario::from_toml_str(TRAINING, "training.toml").unwrap();
        let mut store = Store::open(&dir.path().join("a.db")).unwrap();
        for i in 0..n {
            let mut s = scenario.clone();
            for p in &mut s.players {
                p.addresses = vec![format!("{}-{i}@example.test", p.name.to_lowercase())];
            }
            let (game, _) = new_game(&s, TRAINING, &format!("g{i}"), [42; 32], 1_000, |_| {
                Ok(("s".into(), "$argon2id$v=19$test".into()))
            })
            .unwrap();
            store.create_game(&game).unwrap();
        }
        store
    }

    fn settings() -> IntakeSettings {
        IntakeSettings {
            limits: Limits::default(),
            game_master: "adjutant@example.test".into(),
            our_addresses: vec!["adjutant@example.test".into()],
            message_id_domain: "example.test".into(),
            server_key: vec![7; 32],
            refusal_interval_secs: 3600,
        }
    }

    /// The SQLite steps `identify` (and the umpire's lookup before it)
    /// takes for `raw` in a store of `n` games.
    fn steps_for(n: usize, raw: &str) -> (u64, &'static str) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_games(&dir, n);
        let settings = settings();
        let parsed = parse_inbound(raw.as_bytes(), &settings.limits);
        let from = parsed.from.as_ref().map(|m| m.address.clone());
        let tokens = token::extract_tokens(&parsed.recipient_addresses());
        let tx = store.transaction().unwrap();
        // Warm the statement cache, then count a second run.
        let _ = umpire::identify(&tx, &settings, &parsed, from.as_deref(), &tokens).unwrap();
        let _ = identify(&tx, &settings, &parsed, from.as_deref(), &tokens).unwrap();
        let _ = cost::take();
        let u = umpire::identify(&tx, &settings, &parsed, from.as_deref(), &tokens).unwrap();
        assert!(u.is_none());
        let found = identify(&tx, &settings, &parsed, from.as_deref(), &tokens).unwrap();
        let what = match found {
            Identified::Player(..) => "player",
            Identified::Ambiguous(_) => "ambiguous",
            Identified::Nobody => "nobody",
        };
        (cost::take(), what)
    }

    fn mail(from: &str, to: &str, subject: &str) -> String {
        format!(
            "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <m1@x.test>\r\n\
             Date: Sun, 22 Nov 2026 10:00:00 +0000\r\n\r\nAdvance.\r\nREADY\r\n"
        )
    }

    /// Issue #18: a stranger's mail, and a player's, cost the same number
    /// of SQLite steps with one game as with many: no lookup walks every
    /// game or every player.
    #[test]
    fn finding_the_player_costs_the_same_with_one_game_and_many() {
        let cases = [
            // A stranger, no token, no password.
            mail("nobody@else.test", "adjutant@example.test", "hello"),
            // A stranger naming a game and sending a token-shaped address.
            mail(
                "nobody@else.test",
                "adjutant+aaaaaaaaaaaaaaaa@example.test",
                "Re: [g0] turn 1",
            ),
            // A registered player of the first game.
            mail("blue-0@example.test", "adjutant@example.test", "orders"),
        ];
        let expected = ["nobody", "nobody", "player"];
        for (raw, want) in cases.iter().zip(expected) {
            let (one, what) = steps_for(1, raw);
            assert_eq!(what, want, "{raw}");
            let (many, what) = steps_for(60, raw);
            assert_eq!(what, want, "{raw}");
            assert!(one > 0, "the counter must count");
            // A lookup that walked every game or player would add hundreds
            // of steps (120 players); the plan may differ by a step or two.
            assert!(
                many <= one + 8,
                "steps with 1 game {one} vs 60 games {many} for {raw}"
            );
        }
    }

    #[test]
    fn game_names_match_the_subject_as_whole_words() {
        let words = |s: &str| subject_words(s).concat();
        assert!(words("Orders for turns10").contains(&"turns10".to_string()));
        assert!(!words("Orders for turns10").contains(&"turns1".to_string()));
        assert!(words("Re: [brawner2] turn 1 orders").contains(&"brawner2".to_string()));
        assert!(words("brawner-2 orders").contains(&"brawner-2".to_string()));
        assert!(words("BRAWNER2-turn3").contains(&"brawner2".to_string()));
        assert!(!words("xbrawner2").contains(&"brawner2".to_string()));
    }
}
