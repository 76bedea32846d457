//! The umpire's command executor (issue #8): runs what
//! [`super::command::parse`] read, by mail or from `adjutant umpire`, with
//! the same effect either way.
//!
//! **Policy: each command is all-or-nothing, and stands on its own.** All
//! the commands of one mail (or one `adjutant umpire` call) run in ONE
//! transaction, in the order written; each runs inside its own SAVEPOINT.
//! A command that is refused (unknown player, no open turn, a pause longer
//! than the game allows, a line the parser could not read, ...) is rolled
//! back to its savepoint — it changes nothing and sends nothing — and the
//! commands after it still run, as a player's good paragraphs still count
//! beside a bad one. The answer lists every command with `done` or
//! `REFUSED` and why, so the umpire knows exactly which took effect. Only an
//! internal failure (the database itself) aborts the whole mail.
//!
//! Every command that took effect writes one `audit_log` row in its
//! savepoint: `actor` (`umpire` by mail, `cli:<user>` from the command
//! line), `at`, `action` `umpire-<command>`, `reason` where the command has
//! one (`SET ... BECAUSE`, `REJECT`), and in `detail_json` the command as
//! written, its line, the result and where it came from.
//!
//! The turn plane's commands (`RELEASE`, `REDO`, `SET`, `INTERPRET`,
//! `REJECT`, `DICE`, `DICE MODE`, `ROLLBACK`, `ROLLFORWARD`) are handed to
//! [`super::turns`]; game control (`PAUSE`, `RESUME`, `EXTEND`, `DEADLINE`,
//! `PROCESS`, `REPLACE`, `EJECT`, `BROADCAST`, `ORDERS FOR`) is here.

use super::command::{self, Command, Located};
use super::notice;
use super::pause::{self, PauseError};
use super::principal::{self, pause_max_secs};
use super::turns::{self, TurnPlaneError, UmpireCtx};
use crate::clock::format_local;
use crate::game::deadline::duration_words;
use crate::game::report_mail::{
    MailSlot, ReportLetter, ReportMail, ReportMailError, live_addresses, queue_letter,
};
use crate::game::submit::OrdersHandler;
use crate::game::turn::{TurnCycleError, process_turn_in};
use crate::mail::auth::AuthMethod;
use crate::mail::intake::{IntakeError, SubmissionContext, SubmissionHandler};
use crate::secret;
use crate::store::{GameId, NewAudit, Store, StoreError};
use rusqlite::{OptionalExtension, Transaction, params};
use serde::Serialize;
use std::fmt::Write as _;

/// Why the commands could not be run at all. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("no game named `{0}`; `adjutant game list` shows the games")]
    NoSuchGame(String),
    #[error("no commands given; write e.g. `adjutant umpire GAME EXTEND 24h` (docs/umpire.md)")]
    Nothing,
    #[error("database error while running umpire commands: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("internal failure while running umpire commands: {0}")]
    Internal(String),
}

impl ExecError {
    /// True when the operator can fix it (exit code 2).
    pub fn is_user_error(&self) -> bool {
        match self {
            ExecError::NoSuchGame(_) | ExecError::Nothing => true,
            ExecError::Store(e) => e.is_user_error(),
            ExecError::Sql(_) | ExecError::Internal(_) => false,
        }
    }
}

/// Where the commands came from, for the audit trail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// An authenticated mail (`inbound_mail.id`).
    Mail(i64),
    Cli,
}

/// What became of one command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Done,
    Refused,
}

/// One command's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandResult {
    /// The line it starts on (1-based).
    pub line: usize,
    /// The command as written (PASSWORD lines never included).
    pub written: String,
    pub outcome: Outcome,
    /// One line: what it did, or exactly why it was refused.
    pub summary: String,
    /// More text for the umpire (an ORDERS FOR receipt), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Every command's result, in the order written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExecReport {
    pub game: String,
    pub actor: String,
    pub results: Vec<CommandResult>,
}

impl ExecReport {
    pub fn done(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.outcome == Outcome::Done)
            .count()
    }

    pub fn refused(&self) -> usize {
        self.results.len() - self.done()
    }

    /// The umpire's confirmation, by mail or on the terminal.
    pub fn text(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "Adjutant has run your umpire commands for game {}: {} done, {} refused.\n",
            self.game,
            self.done(),
            self.refused()
        );
        for r in &self.results {
            let tag = match r.outcome {
                Outcome::Done => "done   ",
                Outcome::Refused => "REFUSED",
            };
            let first = r.written.lines().next().unwrap_or_default();
            let more = if r.written.lines().count() > 1 {
                " ..."
            } else {
                ""
            };
            let _ = writeln!(t, "  [{tag}] line {}: {first}{more}", r.line);
            let _ = writeln!(t, "            {}", r.summary);
            if let Some(d) = &r.detail {
                for l in d.lines() {
                    let _ = writeln!(t, "            | {l}");
                }
            }
        }
        if self.results.is_empty() {
            let _ = writeln!(
                t,
                "No commands were found. Write one command a line, e.g. `EXTEND 24h` (docs/umpire.md)."
            );
        }
        let _ = writeln!(
            t,
            "\nEach command stands on its own: a REFUSED one changed nothing and sent\n\
             nothing; the commands marked done took effect. Send a refused one again\n\
             corrected."
        );
        t
    }
}

/// A command refused, or an internal failure that aborts everything.
enum Fail {
    Refused(String),
    Internal(ExecError),
}

impl From<rusqlite::Error> for Fail {
    fn from(e: rusqlite::Error) -> Self {
        Fail::Internal(ExecError::Sql(e))
    }
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Self {
        Fail::Internal(ExecError::Store(e))
    }
}

impl From<ReportMailError> for Fail {
    fn from(e: ReportMailError) -> Self {
        Fail::Internal(ExecError::Internal(e.to_string()))
    }
}

impl From<PauseError> for Fail {
    fn from(e: PauseError) -> Self {
        Fail::Internal(ExecError::Internal(e.to_string()))
    }
}

fn refuse<T>(msg: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::Refused(msg.into()))
}

/// What a command that took effect reports.
struct Done {
    summary: String,
    detail: Option<String>,
    reason: Option<String>,
}

impl Done {
    fn line(summary: impl Into<String>) -> Done {
        Done {
            summary: summary.into(),
            detail: None,
            reason: None,
        }
    }
}

/// Everything a command runs with.
struct Ctx<'a, 'c> {
    tx: &'a Transaction<'c>,
    game: &'a str,
    game_id: GameId,
    actor: &'a str,
    now: i64,
    mail: &'a ReportMail,
    /// Unique per command in this game: the audit row id it will get, used
    /// to make its letters' Message-IDs unique.
    seq: i64,
}

/// Runs the umpire's `text` against `game` inside `tx` (the caller
/// commits): by mail, intake's transaction; from the CLI, [`execute_cli`]'s.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    tx: &Transaction<'_>,
    game_id: GameId,
    game: &str,
    actor: &str,
    via: Via,
    now: i64,
    mail: &ReportMail,
    text: &str,
) -> Result<ExecReport, ExecError> {
    // A ruleset played through its mail plane reads its own SET fields.
    let free_set = crate::game::engine_seat::engine_of_game(tx, game_id)?.is_some();
    let parsed = command::parse_with(text, free_set);
    let lines: Vec<&str> = text.lines().collect();
    let mut starts: Vec<usize> = parsed
        .commands
        .iter()
        .map(|c| c.line)
        .chain(parsed.errors.iter().map(|e| e.line))
        .collect();
    starts.sort_unstable();
    let mut results: Vec<CommandResult> = parsed
        .errors
        .iter()
        .map(|e| CommandResult {
            line: e.line,
            written: e.text.clone(),
            outcome: Outcome::Refused,
            summary: e.to_string(),
            detail: None,
        })
        .collect();
    for located in &parsed.commands {
        let written = as_written(&lines, &starts, located.line);
        tx.execute_batch("SAVEPOINT umpire_command")?;
        let seq: i64 = tx.query_row("SELECT coalesce(max(id), 0) + 1 FROM audit_log", [], |r| {
            r.get(0)
        })?;
        let ctx = Ctx {
            tx,
            game,
            game_id,
            actor,
            now,
            mail,
            seq,
        };
        match run(&ctx, located) {
            Ok(done) => {
                Store::append_audit(
                    tx,
                    &NewAudit {
                        game: Some(game_id),
                        actor: actor.to_string(),
                        at: now,
                        action: format!("umpire-{}", verb(&located.command)),
                        reason: done.reason.clone(),
                        detail_json: serde_json::json!({
                            "command": written,
                            "line": located.line,
                            "result": done.summary,
                            "via": match via { Via::Mail(_) => "mail", Via::Cli => "cli" },
                            "inbound_mail_id": match via { Via::Mail(id) => Some(id), Via::Cli => None },
                        })
                        .to_string(),
                    },
                )?;
                tx.execute_batch("RELEASE umpire_command")?;
                results.push(CommandResult {
                    line: located.line,
                    written,
                    outcome: Outcome::Done,
                    summary: done.summary,
                    detail: done.detail,
                });
            }
            Err(fail) => {
                tx.execute_batch("ROLLBACK TO umpire_command; RELEASE umpire_command")?;
                match fail {
                    Fail::Refused(why) => results.push(CommandResult {
                        line: located.line,
                        written,
                        outcome: Outcome::Refused,
                        summary: why,
                        detail: None,
                    }),
                    Fail::Internal(e) => return Err(e),
                }
            }
        }
    }
    results.sort_by_key(|r| r.line);
    Ok(ExecReport {
        game: game.to_string(),
        actor: actor.to_string(),
        results,
    })
}

/// An authenticated umpire mail (intake's `handle_umpire`): runs its
/// commands inside the mail's transaction and answers the confirmation.
pub fn handle_mail(
    tx: &Transaction<'_>,
    ctx: &crate::mail::intake::UmpireMail<'_>,
    mail: Option<&ReportMail>,
) -> Result<crate::mail::intake::Receipt, IntakeError> {
    let mail = mail.ok_or_else(|| {
        IntakeError::Handler(
            "the mail settings were never given to the order handler; this is a bug in how \
             the daemon was started"
                .into(),
        )
    })?;
    let report = execute(
        tx,
        ctx.game,
        ctx.game_name,
        "umpire",
        Via::Mail(ctx.inbound_mail_id),
        ctx.now,
        mail,
        ctx.text,
    )
    .map_err(|e| IntakeError::Handler(e.to_string()))?;
    Ok(crate::mail::intake::Receipt {
        subject: format!(
            "Umpire commands for {}: {} done, {} refused",
            ctx.game_name,
            report.done(),
            report.refused()
        ),
        text: report.text(),
    })
}

/// `adjutant umpire GAME ...`: [`execute`] in its own transaction.
pub fn execute_cli(
    store: &mut Store,
    game: &str,
    actor: &str,
    now: i64,
    mail: &ReportMail,
    text: &str,
) -> Result<ExecReport, ExecError> {
    let parsed = command::parse(text);
    if parsed.commands.is_empty() && parsed.errors.is_empty() {
        return Err(ExecError::Nothing);
    }
    let id = store
        .game_id(game)?
        .ok_or_else(|| ExecError::NoSuchGame(game.to_string()))?;
    let name: String =
        store
            .conn()
            .query_row("SELECT name FROM games WHERE id = ?1", [id.0], |r| r.get(0))?;
    let tx = store.transaction()?;
    let report = execute(&tx, id, &name, actor, Via::Cli, now, mail, text)?;
    tx.commit()?;
    Ok(report)
}

/// The lines of the command starting at `line`, up to the next command or
/// error, without trailing blank or comment lines and never a PASSWORD line.
fn as_written(lines: &[&str], starts: &[usize], line: usize) -> String {
    let end = starts
        .iter()
        .copied()
        .find(|s| *s > line)
        .unwrap_or(lines.len() + 1);
    let mut out: Vec<&str> = lines
        .get(line.saturating_sub(1)..end.saturating_sub(1).min(lines.len()))
        .unwrap_or_default()
        .iter()
        .map(|l| l.trim_end())
        .filter(|l| {
            !l.trim_start()
                .get(..8)
                .is_some_and(|h| h.eq_ignore_ascii_case("password"))
        })
        .collect();
    while out
        .last()
        .is_some_and(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        out.pop();
    }
    out.join("\n")
}

/// The audit action's name for a command.
fn verb(c: &Command) -> &'static str {
    match c {
        Command::Release => "release",
        Command::Redo => "redo",
        Command::Set { .. } | Command::SetFree { .. } => "set",
        Command::Interpret { .. } => "interpret",
        Command::Reject { .. } => "reject",
        Command::Dice(_) => "dice",
        Command::DiceMode(_) => "dice-mode",
        Command::Pause { .. } => "pause",
        Command::Resume => "resume",
        Command::Extend { .. } => "extend",
        Command::Deadline { .. } => "deadline",
        Command::Process => "process",
        Command::Rollback { .. } => "rollback",
        Command::Rollforward => "rollforward",
        Command::Replace { .. } => "replace",
        Command::Eject { .. } => "eject",
        Command::Broadcast { .. } => "broadcast",
        Command::OrdersFor { .. } => "orders-for",
        Command::Help => "help",
    }
}

fn turn_plane(
    ctx: &Ctx<'_, '_>,
    f: impl FnOnce(&UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError>,
) -> Result<Done, Fail> {
    let u = UmpireCtx {
        tx: ctx.tx,
        game: ctx.game,
        game_id: ctx.game_id,
        actor: ctx.actor,
        now: ctx.now,
        mail: ctx.mail,
    };
    match f(&u) {
        Ok(s) => Ok(Done::line(s)),
        Err(TurnPlaneError::Sql(e)) => Err(Fail::Internal(ExecError::Sql(e))),
        // Unreadable stored rows and engine failures are Adjutant's fault,
        // not the umpire's: the whole run is abandoned, as for SQL errors.
        Err(e @ TurnPlaneError::Stored { .. }) => {
            Err(Fail::Internal(ExecError::Internal(e.to_string())))
        }
        Err(TurnPlaneError::Turn(e)) if !e.is_user_error() => {
            Err(Fail::Internal(ExecError::Internal(e.to_string())))
        }
        Err(e) => refuse(e.to_string()),
    }
}

fn run(ctx: &Ctx<'_, '_>, located: &Located) -> Result<Done, Fail> {
    if located.command == Command::Help {
        return Ok(Done {
            summary: "the umpire's commands are listed below".into(),
            detail: Some(crate::umpire::command::HELP_TEXT.to_string()),
            reason: None,
        });
    }
    // An ended game takes no more commands of any kind: no turn is released,
    // processed, corrected or rolled back, and nobody is told anything new.
    let (status, _) = game_state(ctx)?;
    refuse_if_over(&status)?;
    match &located.command {
        Command::Release => turn_plane(ctx, turns::release),
        Command::Redo => turn_plane(ctx, turns::redo),
        Command::Set {
            unit,
            value,
            reason,
        } => {
            let mut d = turn_plane(ctx, |u| turns::set(u, unit, value, reason))?;
            d.reason = Some(reason.clone());
            Ok(d)
        }
        Command::SetFree { written, reason } => {
            let mut d = turn_plane(ctx, |u| turns::set_free(u, written, reason))?;
            d.reason = Some(reason.clone());
            Ok(d)
        }
        Command::Interpret { id, order } => turn_plane(ctx, |u| turns::interpret(u, id, order)),
        Command::Reject { id, reason } => {
            let mut d = turn_plane(ctx, |u| turns::reject(u, id, reason))?;
            d.reason = Some(reason.clone());
            Ok(d)
        }
        Command::Dice(values) => turn_plane(ctx, |u| turns::dice(u, values)),
        Command::DiceMode(mode) => turn_plane(ctx, |u| turns::dice_mode(u, *mode)),
        Command::Rollback { turn } => turn_plane(ctx, |u| turns::rollback(u, *turn)),
        Command::Rollforward => turn_plane(ctx, turns::rollforward),
        Command::Pause { for_secs } => pause_cmd(ctx, *for_secs),
        Command::Resume => resume_cmd(ctx),
        Command::Extend { secs } => extend(ctx, *secs),
        Command::Deadline { written, at } => deadline(ctx, written, *at),
        Command::Process => process(ctx),
        Command::Replace { player, address } => replace(ctx, player, address),
        Command::Eject { player } => eject(ctx, player),
        Command::Broadcast { text } => broadcast(ctx, text),
        Command::OrdersFor { player, text } => orders_for(ctx, player, text),
        Command::Help => Ok(Done::line("")),
    }
}

/// The game's status, settings and pause.
fn game_state(ctx: &Ctx<'_, '_>) -> Result<(String, String), Fail> {
    Ok(ctx.tx.query_row(
        "SELECT status, settings_json FROM games WHERE id = ?1",
        [ctx.game_id.0],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// What a command that mails the players did, truthfully: the mail is
/// queued in this transaction and leaves with the next outbox flush.
fn queued_for(players: usize) -> String {
    match players {
        0 => "no player could be reached by mail; nothing was queued".to_string(),
        1 => "a notice is queued for 1 player".to_string(),
        n => format!("a notice is queued for {n} players"),
    }
}

fn refuse_if_over(status: &str) -> Result<(), Fail> {
    if status == "finished" || status == "abandoned" {
        return refuse(format!(
            "the game has {} ({status}); nothing more can be done to it",
            if status == "finished" {
                "ended"
            } else {
                "been abandoned"
            }
        ));
    }
    Ok(())
}

fn pause_cmd(ctx: &Ctx<'_, '_>, for_secs: Option<i64>) -> Result<Done, Fail> {
    let (_, settings) = game_state(ctx)?;
    let max = pause_max_secs(&settings);
    if let Some(p) = pause::paused(ctx.tx, ctx.game_id)? {
        return refuse(format!(
            "the game is already paused until {}; write RESUME first, then PAUSE FOR the new length",
            format_local(p.until, "UTC")
        ));
    }
    let secs = for_secs.unwrap_or(max);
    if secs > max {
        return refuse(format!(
            "a pause of {} is longer than this game's maximum of {}; write PAUSE FOR {} or less \
             (the organiser can raise the maximum with `adjutant game umpire {} --pause-max`)",
            duration_words(secs),
            duration_words(max),
            duration_words(max),
            ctx.game
        ));
    }
    let until = ctx.now.saturating_add(secs);
    let sent = pause::pause(
        ctx.tx,
        ctx.mail,
        ctx.game,
        ctx.game_id,
        until,
        ctx.now,
        &format!("a{}", ctx.seq),
    )?;
    Ok(Done::line(format!(
        "game paused for {} until {}; it resumes by itself then; {}",
        duration_words(secs),
        format_local(until, "UTC"),
        queued_for(sent)
    )))
}

fn resume_cmd(ctx: &Ctx<'_, '_>) -> Result<Done, Fail> {
    match pause::resume(
        ctx.tx,
        ctx.mail,
        ctx.game,
        ctx.game_id,
        ctx.now,
        "the umpire has resumed it",
        &format!("a{}", ctx.seq),
    )? {
        Some(s) => Ok(Done::line(s)),
        None => refuse("the game is not paused; nothing to resume"),
    }
}

/// The open turn: row id, number, deadline.
fn open_turn(ctx: &Ctx<'_, '_>) -> Result<(i64, u32, Option<i64>), Fail> {
    let open: Option<(i64, u32, Option<i64>)> = ctx
        .tx
        .query_row(
            "SELECT id, number, deadline_at FROM turns WHERE game_id = ?1 AND status = 'open'",
            [ctx.game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    match open {
        Some(o) => Ok(o),
        None => {
            let held: Option<u32> = ctx
                .tx
                .query_row(
                    "SELECT number FROM turns WHERE game_id = ?1 AND status IN ('held', 'processing')",
                    [ctx.game_id.0],
                    |r| r.get(0),
                )
                .optional()?;
            match held {
                Some(n) => refuse(format!(
                    "turn {n} is held for your review, not open; RELEASE it (or REDO it) first"
                )),
                None => refuse("the game has no open turn"),
            }
        }
    }
}

/// Moves the open turn's deadline to `to` and tells the players.
fn move_deadline(ctx: &Ctx<'_, '_>, turn_id: i64, number: u32, to: i64) -> Result<usize, Fail> {
    ctx.tx.execute(
        "UPDATE turns SET deadline_at = ?2 WHERE id = ?1",
        params![turn_id, to],
    )?;
    let subject = format!("{} turn {number}: new deadline", ctx.game);
    let game = ctx.game;
    Ok(notice::to_players(
        ctx.tx,
        ctx.mail,
        ctx.game,
        ctx.game_id,
        "deadline",
        &format!("a{}", ctx.seq),
        &subject,
        ctx.now,
        &|zone| {
            format!(
                "The umpire has moved the deadline of turn {number} of game {game}.\n\n\
                 New deadline: {} (your time zone, {zone}).\n\n\
                 The latest order to each unit before the deadline is the one that counts.\n",
                format_local(to, zone)
            )
        },
    )?)
}

/// A deadline set during a pause would be moved again when the game
/// resumes, so moving it waits for RESUME.
fn refuse_if_paused(status: &str, what: &str) -> Result<(), Fail> {
    if status == "paused" {
        return refuse(format!(
            "the game is paused, and its deadline moves back by the length of the pause when it \
             resumes; write RESUME first, then {what}"
        ));
    }
    Ok(())
}

fn extend(ctx: &Ctx<'_, '_>, secs: i64) -> Result<Done, Fail> {
    let (status, _) = game_state(ctx)?;
    refuse_if_paused(&status, "EXTEND")?;
    let (id, number, deadline) = open_turn(ctx)?;
    let Some(d) = deadline else {
        return refuse(format!(
            "turn {number} has no deadline to extend (it runs when every player is READY); \
             set one with DEADLINE <date> <time> <zone>"
        ));
    };
    let to = d.saturating_add(secs);
    let sent = move_deadline(ctx, id, number, to)?;
    Ok(Done::line(format!(
        "turn {number}'s deadline extended by {} to {}; {}",
        duration_words(secs),
        format_local(to, "UTC"),
        queued_for(sent)
    )))
}

fn deadline(ctx: &Ctx<'_, '_>, written: &str, at: i64) -> Result<Done, Fail> {
    let (status, _) = game_state(ctx)?;
    refuse_if_paused(&status, "DEADLINE")?;
    let (id, number, _) = open_turn(ctx)?;
    if at <= ctx.now {
        return refuse(format!(
            "{written} has already passed (it is now {}); to run the turn now write PROCESS",
            format_local(ctx.now, "UTC")
        ));
    }
    let sent = move_deadline(ctx, id, number, at)?;
    Ok(Done::line(format!(
        "turn {number}'s deadline set to {} ({written}); {}",
        format_local(at, "UTC"),
        queued_for(sent)
    )))
}

fn process(ctx: &Ctx<'_, '_>) -> Result<Done, Fail> {
    open_turn(ctx)?;
    let waiting = crate::store::open_queries(ctx.tx, ctx.game_id)?;
    match process_turn_in(ctx.tx, ctx.game, ctx.mail, ctx.now) {
        Ok(t) => {
            let mut line = format!(
                "turn {} processed ({} events, {} dice rolls); turn {} is open",
                t.turn, t.events, t.rolls, t.next_turn
            );
            if !waiting.is_empty() {
                line.push_str(&format!(
                    ". WARNING: {} free-text order(s) still wait for you and were NOT part of \
                     this turn: {}. INTERPRET (or REJECT) them, then REDO the held turn to include them",
                    waiting.len(),
                    crate::store::open_queries_words(&waiting)
                ));
            }
            Ok(Done::line(line))
        }
        Err(TurnCycleError::Sql(e)) => Err(Fail::Internal(ExecError::Sql(e))),
        Err(TurnCycleError::Store(e)) => Err(Fail::Internal(ExecError::Store(e))),
        Err(e) => refuse(format!("the turn could not be processed: {e}")),
    }
}

/// A player of the game by name (ASCII case-insensitive): id, name, side.
fn find_player(ctx: &Ctx<'_, '_>, name: &str) -> Result<(i64, String, String, String), Fail> {
    let found: Option<(i64, String, String, String)> = ctx
        .tx
        .query_row(
            "SELECT p.id, p.name, s.name, p.status FROM players p JOIN sides s ON s.id = p.side_id
             WHERE p.game_id = ?1 AND p.name = ?2",
            params![ctx.game_id.0, name.trim()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    if let Some(f) = found {
        return Ok(f);
    }
    let names: Vec<String> = ctx
        .tx
        .prepare("SELECT name FROM players WHERE game_id = ?1 ORDER BY id")?
        .query_map([ctx.game_id.0], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let near = names
        .iter()
        .min_by_key(|n| strsim::damerau_levenshtein(&n.to_lowercase(), &name.to_lowercase()))
        .filter(|n| strsim::damerau_levenshtein(&n.to_lowercase(), &name.to_lowercase()) <= 2);
    refuse(format!(
        "no player `{}` in this game{}; the players are {}",
        name.trim(),
        near.map(|n| format!(" (did you mean {n}?)"))
            .unwrap_or_default(),
        names.join(", ")
    ))
}

fn replace(ctx: &Ctx<'_, '_>, player: &str, address: &str) -> Result<Done, Fail> {
    let (pid, name, side, _) = find_player(ctx, player)?;
    let address = match principal::check_address(address) {
        Ok(a) => a,
        Err(e) => return refuse(e.to_string()),
    };
    if let Some(other) = principal::player_at(ctx.tx, ctx.game_id, &address)?
        && !other.eq_ignore_ascii_case(&name)
    {
        return refuse(format!(
            "{address} is already {other}'s address in this game; give {name} an address of his own"
        ));
    }
    let umpire: Option<String> = ctx.tx.query_row(
        "SELECT umpire_address FROM games WHERE id = ?1",
        [ctx.game_id.0],
        |r| r.get(0),
    )?;
    if umpire.is_some_and(|u| crate::mail::address::same_address(&u, &address)) {
        return refuse(format!(
            "{address} is the umpire's address; a player needs an address of his own"
        ));
    }
    let secret = secret::generate_secret()
        .map_err(|e| Fail::Internal(ExecError::Internal(e.to_string())))?;
    let hash = secret::hash_secret(&secret)
        .map_err(|e| Fail::Internal(ExecError::Internal(e.to_string())))?;
    let old: Vec<String> = ctx
        .tx
        .prepare("SELECT address FROM player_addresses WHERE player_id = ?1 ORDER BY id")?
        .query_map([pid], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    ctx.tx
        .execute("DELETE FROM player_addresses WHERE player_id = ?1", [pid])?;
    ctx.tx.execute(
        "INSERT INTO player_addresses (game_id, player_id, address) VALUES (?1, ?2, ?3)",
        params![ctx.game_id.0, pid, address],
    )?;
    ctx.tx.execute(
        "UPDATE players SET secret_hash = ?2, status = 'active', address_failing = 0 WHERE id = ?1",
        params![pid, hash],
    )?;
    let turn = notice::current_turn_number(ctx.tx, ctx.game_id)?;
    // The queued mail carries a placeholder; the secret is kept apart until
    // the mail has left, then forgotten (migration 0005).
    let shown = secret::MAILED_SECRET_PLACEHOLDER;
    let text = format!(
        "The umpire of game {game} has made you the player {name} ({side}).\n\n\
         Your secret is:\n\n    {shown}\n\n\
         Keep it: it is not kept by Adjutant and is shown only in this mail. To send\n\
         orders, reply to this mail or to any of Adjutant's mails from this address,\n\
         or write the line\n\n    PASSWORD {shown}\n\nin a mail from anywhere. \
         Write one paragraph per unit, and READY on a line\nof its own when you have \
         finished the turn. Turn {turn} is the current turn.\n",
        game = ctx.game
    );
    let to = vec![address.clone()];
    let id = format!("a{}-{name}", ctx.seq);
    let mail_id = queue_letter(
        ctx.tx,
        ctx.mail,
        &ReportLetter {
            game: ctx.game,
            game_id: ctx.game_id,
            kind: "new-player",
            id: &id,
            to: &to,
            subject: &format!("You now play {name} in {}", ctx.game),
            text: &text,
            html: None,
            png: None,
            png_name: None,
            reply_token_for: Some((&name, turn)),
            now: ctx.now,
        },
    )?;
    Store::queue_outbound_secret(ctx.tx, mail_id, shown, &secret)?;
    // The newcomer is briefed like every player at the start (issue #14):
    // the scenario, his command as it stands now, what his side sees.
    crate::game::briefing::issue_briefings(
        ctx.tx,
        ctx.game_id,
        ctx.mail,
        crate::game::briefing::Briefed::Player {
            id: pid,
            tag: ctx.seq,
        },
        ctx.now,
    )
    .map_err(|e| Fail::Internal(ExecError::Internal(e.to_string())))?;
    Ok(Done::line(format!(
        "{name} now plays from {address} (was {}); a new secret and a briefing were mailed there, and the old address and secret no longer count",
        if old.is_empty() {
            "no address".to_string()
        } else {
            old.join(", ")
        }
    )))
}

fn eject(ctx: &Ctx<'_, '_>, player: &str) -> Result<Done, Fail> {
    let (pid, name, _, pstatus) = find_player(ctx, player)?;
    if pstatus == "dropped" {
        return refuse(format!(
            "{name} has already been ejected; REPLACE {name} <address> to give his command to someone"
        ));
    }
    let others: i64 = ctx.tx.query_row(
        "SELECT count(*) FROM players WHERE game_id = ?1 AND status = 'active' AND id <> ?2",
        params![ctx.game_id.0, pid],
        |r| r.get(0),
    )?;
    if others == 0 {
        // With nobody left to wait for, every cycle would run a turn.
        return refuse(format!(
            "{name} is the last active player; with nobody left the game would run a turn every cycle. \
             REPLACE {name} <address> instead, or end the game with `adjutant game end {} --because ...`",
            ctx.game
        ));
    }
    ctx.tx
        .execute("UPDATE players SET status = 'dropped' WHERE id = ?1", [pid])?;
    Ok(Done::line(format!(
        "{name} ejected: his mail is no longer read, his units keep their standing orders, \
         and turns no longer wait for his READY"
    )))
}

fn broadcast(ctx: &Ctx<'_, '_>, text: &str) -> Result<Done, Fail> {
    let body = format!(
        "A message from the umpire of game {} to every player:\n\n{}\n",
        ctx.game,
        text.trim_end()
    );
    let sent = notice::to_players(
        ctx.tx,
        ctx.mail,
        ctx.game,
        ctx.game_id,
        "broadcast",
        &format!("a{}", ctx.seq),
        &format!("{}: a message from the umpire", ctx.game),
        ctx.now,
        &|_| body.clone(),
    )?;
    if sent == 0 {
        return refuse("no active player can be reached by mail; nothing was sent");
    }
    Ok(Done::line(format!("broadcast {}", queued_for(sent))))
}

fn orders_for(ctx: &Ctx<'_, '_>, player: &str, text: &str) -> Result<Done, Fail> {
    let (pid, name, side, _) = find_player(ctx, player)?;
    // The current turn, as intake finds it: orders entered while it is held
    // or processing count for the next one.
    let (turn_id, number, open): (i64, u32, bool) = ctx
        .tx
        .query_row(
            "SELECT id, number, status = 'open' FROM turns WHERE game_id = ?1 AND status <> 'released'
             ORDER BY number DESC LIMIT 1",
            [ctx.game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .map_or_else(|| refuse("the game has no current turn"), Ok)?;
    let late = !open;
    let counts_for_turn = if late {
        number.saturating_add(1)
    } else {
        number
    };
    let n: i64 = ctx.tx.query_row(
        "SELECT count(*) FROM submissions WHERE game_id = ?1",
        [ctx.game_id.0],
        |r| r.get(0),
    )?;
    let public_id = format!("S-{}-{}", ctx.game, n.saturating_add(1));
    ctx.tx.execute(
        "INSERT INTO submissions (public_id, game_id, player_id, inbound_mail_id, turn_id,
                                  received_at, ready, status, detail)
         VALUES (?1, ?2, ?3, NULL, ?4, ?5, 0, 'accepted', ?6)",
        params![
            public_id,
            ctx.game_id.0,
            pid,
            turn_id,
            ctx.now,
            if late {
                format!(
                    "late: counts for turn {counts_for_turn}; entered by the umpire ({})",
                    ctx.actor
                )
            } else {
                format!("entered by the umpire ({})", ctx.actor)
            }
        ],
    )?;
    let submission_id = ctx.tx.last_insert_rowid();
    let sctx = SubmissionContext {
        submission_id,
        public_id: &public_id,
        // No mail: the umpire entered it (submissions.inbound_mail_id is NULL).
        inbound_mail_id: 0,
        game: ctx.game_id,
        game_name: ctx.game,
        player_id: pid,
        player_name: &name,
        side: &side,
        turn_id,
        counts_for_turn,
        late,
        auth: AuthMethod::Password,
        subject: None,
        text,
        line_numbers: &[],
        body: "",
        received_at: ctx.now,
    };
    let slot = MailSlot::default();
    slot.set(ctx.mail.clone());
    let mut handler = OrdersHandler::with_mail(slot);
    let receipt = handler
        .handle(ctx.tx, &sctx)
        .map_err(|e: IntakeError| Fail::Internal(ExecError::Internal(e.to_string())))?;
    let status: String = ctx.tx.query_row(
        "SELECT status FROM submissions WHERE id = ?1",
        [submission_id],
        |r| r.get(0),
    )?;
    if status == "refused" {
        return refuse(format!(
            "none of the orders for {name} could be read, so nothing was entered:\n{}",
            receipt
                .text
                .lines()
                .filter(|l| l.trim_start().starts_with('!') || l.trim_start().starts_with("in:"))
                .collect::<Vec<_>>()
                .join("\n")
        ));
    }
    let copy = format!(
        "The umpire has entered the orders below on your behalf. This is your copy\n\
         of the receipt; orders you send yourself later still replace them unit by unit.\n\n{}",
        receipt.text
    );
    let to = live_addresses(ctx.tx, pid)?;
    let copied = if to.is_empty() {
        false
    } else {
        queue_letter(
            ctx.tx,
            ctx.mail,
            &ReportLetter {
                game: ctx.game,
                game_id: ctx.game_id,
                kind: "receipt",
                id: &public_id,
                to: &to,
                subject: &format!("Orders entered for you by the umpire: {}", receipt.subject),
                text: &copy,
                html: None,
                png: None,
                png_name: None,
                reply_token_for: Some((&name, number)),
                now: ctx.now,
            },
        )?;
        true
    };
    Ok(Done {
        summary: format!(
            "orders for {name} entered as {public_id} ({status}), counting for turn {counts_for_turn}; {}",
            if copied {
                "a copy of the receipt was mailed to him"
            } else {
                "he has no working address, so no copy was mailed"
            }
        ),
        detail: Some(receipt.text),
        reason: None,
    })
}

/// The daemon's handler of every accepted mail: a player's orders go to
/// the game's order handler ([`OrdersHandler`]), an authenticated umpire's
/// commands to [`handle_mail`]. It lives here, above the game layer, so the
/// game's intake never imports the umpire's commands (ARCHITECTURE.md,
/// "Layers").
pub struct MailHandler {
    orders: OrdersHandler,
    mail: crate::game::report_mail::MailSlot,
}

impl MailHandler {
    pub fn with_mail(mail: crate::game::report_mail::MailSlot) -> Self {
        MailHandler {
            orders: OrdersHandler::with_mail(mail.clone()),
            mail,
        }
    }
}

impl crate::mail::intake::SubmissionHandler for MailHandler {
    fn handle(
        &mut self,
        tx: &Transaction<'_>,
        ctx: &crate::mail::intake::SubmissionContext<'_>,
    ) -> Result<crate::mail::intake::Receipt, crate::mail::intake::IntakeError> {
        self.orders.handle(tx, ctx)
    }

    fn handle_umpire(
        &mut self,
        tx: &Transaction<'_>,
        ctx: &crate::mail::intake::UmpireMail<'_>,
    ) -> Result<crate::mail::intake::Receipt, crate::mail::intake::IntakeError> {
        handle_mail(tx, ctx, self.mail.get().as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_text_stops_at_the_next_command_and_hides_passwords() {
        let text =
            "PASSWORD abc\nORDERS FOR Blue\n10th Ohio: hold.\n\nEND ORDERS\n# note\n\nEXTEND 24h\n";
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            as_written(&lines, &[2, 8], 2),
            "ORDERS FOR Blue\n10th Ohio: hold.\n\nEND ORDERS"
        );
        assert_eq!(as_written(&lines, &[2, 8], 8), "EXTEND 24h");
        let lines = ["EXTEND 1d", "password hunter2"];
        assert_eq!(as_written(&lines, &[1], 1), "EXTEND 1d");
    }
}
