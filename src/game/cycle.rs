//! The turn cycle's due work: which open turns to process now, which
//! players to remind, and when the daemon must next wake for either.
//!
//! A turn is processed early when every active player has said READY for
//! it, or when its deadline plus grace has passed (design.md "Turn
//! lifecycle"). Each game is processed in its own transaction
//! ([`super::turn::process_turn`]); one game's failure is logged and does not
//! stop the others.
//!
//! Reminders ([`queue_reminders`]) go a configurable lead before the
//! deadline, once per player per turn, to active players who have sent
//! nothing for the open turn. Each is queued in its own transaction with the
//! stable Message-ID `reminder.<game>.<turn>-<player>@domain`; the queue
//! refuses a second row with the same id, so a reminder can never go twice,
//! even after a crash between queueing and sending.

use super::deadline::{DeadlineError, DeadlineSettings, duration_words};
use super::report_mail::{MailSlot, ReportLetter, ReportMail, live_addresses, queue_letter};
use super::turn::process_turn;
use crate::mail::compose;
use crate::mail::intake::IntakeSettings;
use crate::store::{GameId, NewAudit, Store, StoreError};
use rusqlite::{OptionalExtension, Transaction, params};
use std::fmt::Write as _;

/// Work that falls due with time (the daemon's hook, driven by its
/// processor task), such as processing a turn whose deadline
/// passed. The turn cycle implements it; it runs in the processor task after
/// intake, and should queue its mail in the transactions it commits.
pub trait DueWork: Send {
    /// Does whatever is due at `now`; returns how many things it did.
    fn run_due(
        &mut self,
        store: &mut Store,
        now: i64,
    ) -> Result<usize, Box<dyn std::error::Error + Send + Sync>>;

    /// The mail settings (addresses, reply-token key), given once the daemon
    /// has them, for work that queues mail of its own (reminders).
    fn set_mail(&mut self, _settings: &IntakeSettings) {}

    /// The earliest time after `now` at which something falls due, if
    /// known: the processor wakes then rather than a whole poll interval
    /// later.
    fn next_due(&mut self, _store: &mut Store, _now: i64) -> Option<i64> {
        None
    }
}

/// The default hook: nothing is ever due.
#[derive(Debug, Clone, Copy, Default)]
pub struct NothingDue;

impl DueWork for NothingDue {
    fn run_due(
        &mut self,
        _store: &mut Store,
        _now: i64,
    ) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
        Ok(0)
    }
}

/// The [`DueWork`] of the daemon: processes every turn that is due, with
/// its reports mailed using the settings in `mail`, and queues the
/// reminders that are due. Until the slot is filled (a test, or a caller
/// that only processes turns) no reminders are sent.
#[derive(Debug, Default, Clone)]
pub struct TurnCycle {
    pub mail: MailSlot,
}

impl TurnCycle {
    pub fn new(mail: MailSlot) -> TurnCycle {
        TurnCycle { mail }
    }
}

/// Why a game's deadline settings could not be changed. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error("no game named `{0}`; `adjutant game list` shows the games")]
    NoSuchGame(String),
    #[error(transparent)]
    Deadline(#[from] DeadlineError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ScheduleError {
    /// True when the operator can fix it (exit code 2).
    pub fn is_user_error(&self) -> bool {
        match self {
            ScheduleError::NoSuchGame(_) | ScheduleError::Deadline(_) => true,
            ScheduleError::Store(e) => e.is_user_error(),
        }
    }
}

/// What [`set_deadlines`] did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeadlineChange {
    pub game: String,
    pub summary: String,
    /// The open turn and its new deadline (UTC), if the game has one open.
    pub open_turn: Option<u32>,
    pub deadline_at: Option<i64>,
}

/// The deadline settings stored for `game`.
pub fn deadline_settings(store: &Store, game: GameId) -> Result<DeadlineSettings, ScheduleError> {
    let json = store
        .game_settings_json(game)?
        .ok_or_else(|| ScheduleError::NoSuchGame(game.0.to_string()))?;
    Ok(DeadlineSettings::from_settings_json(&json)?)
}

/// `adjutant game deadline GAME ...`: stores the new settings and
/// recomputes the open turn's deadline from the moment it opened, in one
/// transaction with an audit entry in `actor`'s name (`cli:<user>` from the
/// command line). A deadline already past makes the turn due at the
/// daemon's next cycle.
pub fn set_deadlines(
    store: &mut Store,
    game: &str,
    settings: &DeadlineSettings,
    actor: &str,
    now: i64,
) -> Result<DeadlineChange, ScheduleError> {
    let id = store
        .game_id(game)?
        .ok_or_else(|| ScheduleError::NoSuchGame(game.to_string()))?;
    let old = store
        .game_settings_json(id)?
        .ok_or_else(|| ScheduleError::NoSuchGame(game.to_string()))?;
    let json = settings.into_settings_json(&old)?;
    // Check the schedule computes before anything is written.
    settings.deadline_for(now)?;
    let audit = NewAudit {
        game: Some(id),
        actor: actor.to_string(),
        at: now,
        action: "deadlines-set".into(),
        reason: None,
        detail_json: serde_json::json!({ "deadlines": settings }).to_string(),
    };
    let open = store.update_deadlines(
        id,
        &json,
        |opened_at| settings.deadline_for(opened_at).ok().flatten(),
        settings.grace_secs,
        &audit,
    )?;
    Ok(DeadlineChange {
        game: game.to_string(),
        summary: settings.summary(),
        open_turn: open.map(|(n, _)| n),
        deadline_at: open.and_then(|(_, d)| d),
    })
}

pub use super::turn::{PAUSE_IN_TURN_ENV, next_deadline};

/// The conditions, besides timing, for an open turn `t` of game `g` to run:
/// the game is active, no attempt of it is held, no dice are awaited.
const RUNNABLE: &str = "g.status = 'active' AND t.status = 'open' AND t.superseded_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM turns h WHERE h.game_id = g.id AND h.status = 'held'
                           AND h.superseded_at IS NULL)
           AND NOT EXISTS (SELECT 1 FROM dice_requests d WHERE d.turn_id = t.id
                           AND d.answered_at IS NULL)";

/// Names of games whose open turn is due at `now`, oldest game first.
///
/// Asks the store only for what can be due (issue #18), so an idle poll
/// costs the same with one game or ten thousand: turns whose deadline plus
/// grace has passed, through the index `turns_due_at`; and the turns whose
/// players' readiness may have changed since the last poll, which the
/// triggers of migration 0008 note in `due_checks` (a READY, a player's
/// status, a turn, game or dice request changing). A noted turn that is not
/// due is forgotten; one that is due stays noted until it is processed.
pub fn due_games(store: &Store, now: i64) -> rusqlite::Result<Vec<String>> {
    let conn = store.conn();
    let mut due: Vec<(i64, String, i64)> = conn
        .prepare_cached(&format!(
            "SELECT g.id, g.name, t.id FROM turns t JOIN games g ON g.id = t.game_id
             WHERE t.status = 'open' AND t.superseded_at IS NULL AND t.deadline_at IS NOT NULL
               AND t.deadline_at + t.grace_secs <= ?1 AND {RUNNABLE}"
        ))?
        .query_map(params![now], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let noted: Vec<i64> = conn
        .prepare_cached("SELECT turn_id FROM due_checks ORDER BY turn_id")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if !noted.is_empty() {
        let mut ready = conn.prepare_cached(&format!(
            "SELECT g.id, g.name FROM turns t JOIN games g ON g.id = t.game_id
             WHERE t.id = ?1 AND {RUNNABLE}
               AND NOT EXISTS (
                  SELECT 1 FROM players p WHERE p.game_id = g.id AND p.status = 'active'
                  AND NOT EXISTS (
                      SELECT 1 FROM submissions s
                      WHERE s.player_id = p.id AND s.turn_id = t.id AND s.ready = 1))"
        ))?;
        let mut forget = conn.prepare_cached("DELETE FROM due_checks WHERE turn_id = ?1")?;
        for turn in noted {
            match ready
                .query_row([turn], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
                })
                .optional()?
            {
                Some((g, name)) => {
                    if !due.iter().any(|d| d.2 == turn) {
                        due.push((g, name, turn));
                    }
                }
                None => {
                    forget.execute([turn])?;
                }
            }
        }
    }
    due.sort_by_key(|d| d.0);
    due.dedup_by_key(|d| d.0);
    Ok(due.into_iter().map(|d| d.1).collect())
}

/// An open turn whose reminders are due.
struct Timed {
    game: GameId,
    game_name: String,
    turn_id: i64,
    number: u32,
    deadline: i64,
    grace: i64,
}

/// Open turns of active games whose reminder time (`turns.remind_at`,
/// migration 0008) has come and whose reminders are not yet queued: one
/// range of the index `turns_remind_at`, not a scan of every game.
fn reminders_due(conn: &rusqlite::Connection, now: i64) -> Result<Vec<Timed>, StoreError> {
    let mut st = conn.prepare_cached(
        "SELECT g.id, g.name, t.id, t.number, t.deadline_at, t.grace_secs
         FROM turns t JOIN games g ON g.id = t.game_id
         WHERE t.remind_at IS NOT NULL AND t.status = 'open' AND t.superseded_at IS NULL
           AND t.remind_at <= ?1 AND t.deadline_at IS NOT NULL
           AND g.status = 'active'
           AND NOT EXISTS (SELECT 1 FROM turns h WHERE h.game_id = g.id AND h.status = 'held'
                           AND h.superseded_at IS NULL)
         ORDER BY g.id",
    )?;
    let rows = st
        .query_map([now], |r| {
            Ok(Timed {
                game: GameId(r.get(0)?),
                game_name: r.get(1)?,
                turn_id: r.get(2)?,
                number: r.get(3)?,
                deadline: r.get(4)?,
                grace: r.get(5)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The earliest moment after `now` when a turn that can run falls due
/// (deadline + grace), a reminder is to go or a pause ends: the daemon
/// sleeps no longer than this. Paused games, turns held for the umpire and
/// turns waiting on dice do not wake it (`Store::next_wake_at`, two walks
/// of the indexes of migration 0008 that stop at the first turn that can
/// run).
pub fn next_due_at(store: &Store, now: i64) -> Result<Option<i64>, StoreError> {
    let mut next = store.next_wake_at(now)?;
    // The end of a pause is due work too (umpire::pause::resume_due).
    if let Some(c) = super::pause::next_resume_at(store.conn(), now)? {
        next = Some(next.map_or(c, |n| n.min(c)));
    }
    Ok(next)
}

/// A player to remind: active, with no mail for the open turn.
struct Silent {
    id: i64,
    name: String,
    time_zone: String,
    addresses: Vec<String>,
}

/// Active players of `game` who have sent nothing that counts for turn
/// `number` (row `turn_id`): no submission for the turn, and no order
/// written for it by a late mail to the turn before.
fn silent_players(
    tx: &Transaction<'_>,
    game: GameId,
    turn_id: i64,
    number: u32,
) -> Result<Vec<Silent>, StoreError> {
    let mut st = tx.prepare(
        "SELECT p.id, p.name, p.time_zone FROM players p
         WHERE p.game_id = ?1 AND p.status = 'active' AND p.address_failing = 0
           AND NOT EXISTS (SELECT 1 FROM submissions s WHERE s.player_id = p.id AND s.turn_id = ?2)
           AND NOT EXISTS (SELECT 1 FROM orders o JOIN submissions s ON s.id = o.submission_id
                           WHERE s.player_id = p.id AND o.issued_turn = ?3)
         ORDER BY p.id",
    )?;
    let rows = st
        .query_map(params![game.0, turn_id, number], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::new();
    for (id, name, time_zone) in rows {
        let addresses = live_addresses(tx, id)?;
        if !addresses.is_empty() {
            out.push(Silent {
                id,
                name,
                time_zone,
                addresses,
            });
        }
    }
    Ok(out)
}

/// The reminder's words: the deadline in the player's own zone, what
/// happens if he sends nothing, and how to answer.
pub fn reminder_text(
    game: &str,
    turn: u32,
    deadline: i64,
    grace_secs: i64,
    time_zone: &str,
) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Adjutant has no orders from you yet for turn {turn} of game {game}.\n"
    );
    let _ = writeln!(
        t,
        "Deadline: {} (your time zone, {})",
        super::clock::format_local(deadline, time_zone),
        time_zone.trim()
    );
    if grace_secs > 0 {
        let _ = writeln!(
            t,
            "Mail that arrives up to {} after the deadline still counts for this turn;",
            duration_words(grace_secs)
        );
        let _ = writeln!(t, "after that it counts for the next turn.");
    } else {
        let _ = writeln!(
            t,
            "Mail that arrives after the deadline counts for the next turn."
        );
    }
    let _ = writeln!(
        t,
        "\nIf you send nothing, your units keep the orders they already have."
    );
    let _ = writeln!(
        t,
        "To send orders, reply to this mail: write one paragraph per unit, and\n\
         READY on a line of its own when you have finished. Each unit's latest\n\
         order before the deadline is the one that counts."
    );
    t
}

/// Queues every reminder due at `now`; returns how many were queued.
/// Each game is its own transaction; a reminder already queued (same
/// Message-ID) is never queued again.
pub fn queue_reminders(
    store: &mut Store,
    mail: &ReportMail,
    now: i64,
) -> Result<usize, StoreError> {
    let mut queued = 0;
    for t in reminders_due(store.conn(), now)? {
        let tx = store.transaction()?;
        let result = if now >= t.deadline {
            // Too late to remind: the deadline has passed.
            Ok(0)
        } else {
            remind_game(&tx, mail, &t, now)
        };
        match result {
            Ok(n) => {
                // Queued (or past): this turn's reminders are done.
                tx.execute(
                    "UPDATE turns SET remind_at = NULL WHERE id = ?1",
                    [t.turn_id],
                )?;
                tx.commit()?;
                queued += n;
            }
            Err(e) => {
                tracing::error!(game = %t.game_name, error = %e, "reminders not queued");
            }
        }
    }
    Ok(queued)
}

fn remind_game(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    t: &Timed,
    now: i64,
) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
    let mut n = 0;
    for p in silent_players(tx, t.game, t.turn_id, t.number)? {
        let id = format!("{}-{}", t.number, p.name);
        let message_id =
            compose::message_id("reminder", &t.game_name, &id, &mail.message_id_domain)?;
        let already: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM outbound_mail WHERE message_id = ?1)",
            [&message_id],
            |r| r.get(0),
        )?;
        if already {
            continue;
        }
        let subject = format!(
            "Reminder: {} turn {} closes {}",
            t.game_name,
            t.number,
            super::clock::format_local(t.deadline, &p.time_zone)
        );
        let text = reminder_text(&t.game_name, t.number, t.deadline, t.grace, &p.time_zone);
        queue_letter(
            tx,
            mail,
            &ReportLetter {
                game: &t.game_name,
                game_id: t.game,
                kind: "reminder",
                id: &id,
                to: &p.addresses,
                subject: &subject,
                text: &text,
                html: None,
                png: None,
                png_name: None,
                reply_token_for: Some((&p.name, t.number)),
                now,
            },
        )?;
        tracing::info!(game = %t.game_name, turn = t.number, player = %p.name, player_id = p.id, "reminder queued");
        n += 1;
    }
    Ok(n)
}

impl DueWork for TurnCycle {
    fn set_mail(&mut self, settings: &IntakeSettings) {
        self.mail.set(ReportMail::from_intake(settings));
    }

    fn run_due(
        &mut self,
        store: &mut Store,
        now: i64,
    ) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
        let mut done = 0;
        // Paused games whose pause has ended resume first (umpire::pause),
        // so their turn can fall due in this same cycle.
        if let Some(mail) = self.mail.get() {
            done += super::pause::resume_due(store, &mail, now)?;
        }
        let games = due_games(store, now)?;
        let mail = match (games.is_empty(), self.mail.get()) {
            (true, _) => None,
            (false, Some(mail)) => Some(mail),
            (false, None) => {
                return Err(
                    "the mail settings for reports were never given to the turn cycle; \
                        this is a bug in how the daemon was started"
                        .into(),
                );
            }
        };
        for game in games {
            let Some(mail) = &mail else { break };
            match process_turn(store, &game, mail, now) {
                Ok(t) => {
                    tracing::info!(game = %t.game, turn = t.turn, events = t.events, "turn processed");
                    done += 1;
                }
                Err(e) => tracing::error!(game = %game, error = %e, "turn not processed"),
            }
        }
        if let Some(mail) = self.mail.get() {
            done += queue_reminders(store, &mail, now)?;
        }
        Ok(done)
    }

    fn next_due(&mut self, store: &mut Store, now: i64) -> Option<i64> {
        match next_due_at(store, now) {
            Ok(n) => n,
            Err(e) => {
                tracing::warn!(error = %e, "cannot work out the next deadline; polling instead");
                None
            }
        }
    }
}
