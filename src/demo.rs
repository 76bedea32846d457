//! `adjutant demo --dir DIR`: a whole game set up on the embedded default in
//! one directory, so a newcomer sees Adjutant work without a mail server.
//!
//! The demo uses the same code paths as a real installation: it writes a
//! config file, initialises the store and the Maildir folders, creates a
//! game from the shipped Brawner's Farm scenario with a deadline schedule
//! ([`demo_deadlines`]), then plays three turns by mail: the players'
//! scripted order mails are dropped into the Maildir inbox (one with a
//! mistake, one HTML-only, one arriving after the deadline), and the real
//! daemon cycle (`adjutant run --once`) reads them, answers receipts into
//! the Maildir outbox, reminds the player who has sent nothing, and
//! processes each turn when every player is READY or its deadline (plus
//! grace) has passed. The daemon's clock is a [`ManualClock`] moved forward
//! by the script: days of a game pass in a second, with no real waiting.

use crate::config::{Config, EMBEDDED_DEFAULT};
use crate::daemon::{Clock, ManualClock};
use crate::game::deadline::{DeadlineSettings, Schedule};
use crate::game::{self, CreatedGame, GameError};
use crate::setup::SetupError;
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The Brawner's Farm scenario, compiled in so the demo runs from anywhere.
pub const BRAWNERS_FARM: &str = include_str!("../scenarios/brawners-farm.toml");

/// The demo game's name.
pub const GAME_NAME: &str = "brawners-farm";

#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error(
        "{0} already holds a game database; remove the directory (`rm -r {0}`) or choose another --dir"
    )]
    AlreadyThere(PathBuf),
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Daemon(#[from] crate::daemon::DaemonError),
}

impl DemoError {
    pub fn is_user_error(&self) -> bool {
        match self {
            DemoError::AlreadyThere(_) => true,
            DemoError::Io { .. } => true,
            DemoError::Setup(e) => e.is_user_error(),
            DemoError::Game(e) => e.is_user_error(),
            DemoError::Daemon(_) => false,
        }
    }
}

/// What the demo is doing, told as it happens (the CLI prints each step
/// at once rather than everything at the end).
#[derive(Debug)]
pub enum DemoStep<'a> {
    /// The game exists; turn 1 is open.
    Created(&'a CreatedGame),
    /// A step of the script begins: the daemon's clock and what happens.
    Begins { at: i64, what: &'a str },
    /// The step's daemon cycle is done: what it did, in words.
    Done(&'a str),
}

/// What the demo did, for the CLI to print.
#[derive(Debug, serde::Serialize)]
pub struct DemoRun {
    pub dir: PathBuf,
    pub config_path: PathBuf,
    #[serde(skip)]
    pub config: Config,
    pub created: CreatedGame,
    /// One line per daemon cycle: what it did.
    pub cycles: Vec<String>,
    /// The open turn at the end, and its deadline (UTC).
    pub open_turn: u32,
    pub deadline_at: Option<i64>,
}

/// The demo game's schedule: a deadline 48 hours after each turn opens,
/// two hours' grace, a reminder twelve hours before.
pub fn demo_deadlines() -> DeadlineSettings {
    DeadlineSettings {
        schedule: Some(Schedule::Every { secs: 48 * HOUR }),
        grace_secs: 2 * HOUR,
        remind_secs: 12 * HOUR,
    }
}

const HOUR: i64 = 3600;

/// Sets up the demo directory: `DIR/adjutant.toml` (the embedded default),
/// `DIR/var/adjutant.db`, the Maildir inbox and outbox, and the game; then
/// plays [`SCRIPT`] through the real daemon cycle, moving the daemon's
/// clock forward between cycles (no real waiting).
pub fn run(dir: &Path) -> Result<DemoRun, DemoError> {
    run_with(dir, &mut |_| {})
}

/// As [`run`], telling `on_step` each step as it happens.
pub fn run_with(dir: &Path, on_step: &mut dyn FnMut(DemoStep<'_>)) -> Result<DemoRun, DemoError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DemoError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let dir = dir.canonicalize().map_err(io(dir))?;
    let config_path = dir.join("adjutant.toml");
    let config = Config::embedded(&dir);
    if config.database.exists() {
        return Err(DemoError::AlreadyThere(dir));
    }
    crate::fsutil::write_atomic(&config_path, EMBEDDED_DEFAULT.as_bytes(), None)
        .map_err(io(&config_path))?;
    let mut store = crate::setup::init(&config)?.store;
    // The game starts now (to the minute) and the clock is then moved by
    // the script, so deadlines, reminders and late mail happen in a second.
    let start = crate::daemon::SystemClock.now() / 60 * 60;
    let clock = Arc::new(ManualClock::new(start));
    let created = game::create_from_text_at(
        &mut store,
        BRAWNERS_FARM,
        "scenarios/brawners-farm.toml",
        GAME_NAME,
        &demo_deadlines(),
        start,
    )?;
    // Every player's briefing (issue #14), as `game create` queues it; the
    // first cycle sends it.
    let key = crate::daemon::load_or_create_server_key(&config.server_key_file)?;
    let mail = crate::game::report_mail::ReportMail::from_intake(&crate::daemon::intake_settings(
        &config, key,
    ));
    game::brief_players(&mut store, GAME_NAME, &mail, start)?;
    drop(store);
    on_step(DemoStep::Created(&created));
    let inbox = match &config.inbox {
        crate::config::InboxConfig::Maildir { path } => path.join("new"),
        crate::config::InboxConfig::Imap { .. } => dir.join("var/inbox/new"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| DemoError::Io {
            path: dir.clone(),
            source,
        })?;
    let mut parts = crate::daemon::Parts::game();
    parts.clock = clock.clone();
    let mut cycles = Vec::new();
    for (i, step) in SCRIPT.iter().enumerate() {
        let before = facts(&config)?;
        let at = match step.when {
            When::AfterOpening(secs) => before.opened_at.saturating_add(secs),
            When::FromDeadline(secs) => before
                .deadline_at
                .unwrap_or(before.opened_at)
                .saturating_add(secs),
        };
        clock.set(at.max(clock.now()));
        on_step(DemoStep::Begins {
            at: clock.now(),
            what: step.what,
        });
        for (j, m) in step.mails.iter().enumerate() {
            // A player's second mail of a step is named after his first, so
            // the inbox reads them in the order written.
            let again = step.mails[..j]
                .iter()
                .filter(|o| o.player == m.player)
                .count();
            let nth = if again == 0 {
                String::new()
            } else {
                (again + 1).to_string()
            };
            let raw = m.raw(i, &nth, before.turn, secret_of(&created, m.player));
            let path = inbox.join(format!("demo-{i}-{}{nth}.eml", m.player.to_lowercase()));
            std::fs::write(&path, raw).map_err(io(&path))?;
        }
        let r = runtime.block_on(crate::daemon::run_once(&config, &mut parts))?;
        let after = facts(&config)?;
        let mut line = format!(
            "{}  {}\n      {} mail(s) read, {} accepted",
            crate::clock::format_local(clock.now(), "UTC"),
            step.what,
            r.ingest.stored,
            r.process.accepted,
        );
        if after.reminders > before.reminders {
            line.push_str(&format!(
                ", {} reminder(s) queued",
                after.reminders - before.reminders
            ));
        }
        if after.turn > before.turn {
            line.push_str(&format!(
                ", turn {} processed ({})",
                before.turn,
                if before.deadline_at.is_some_and(|d| clock.now() >= d) {
                    "its deadline had passed"
                } else {
                    "every player was READY"
                }
            ));
        }
        line.push_str(&format!("; {} mail(s) sent to the outbox", r.flush.sent));
        on_step(DemoStep::Done(&line));
        cycles.push(line);
    }
    let end = facts(&config)?;
    Ok(DemoRun {
        dir,
        config_path,
        config,
        created,
        cycles,
        open_turn: end.turn,
        deadline_at: end.deadline_at,
    })
}

/// What the demo reads back between cycles.
struct Facts {
    turn: u32,
    opened_at: i64,
    deadline_at: Option<i64>,
    reminders: i64,
}

fn facts(config: &Config) -> Result<Facts, DemoError> {
    let store = Store::open_existing(&config.database).map_err(SetupError::from)?;
    let id = store.game_id(GAME_NAME).map_err(SetupError::from)?;
    let turn = match id {
        Some(id) => store.current_turn(id).map_err(SetupError::from)?,
        None => None,
    };
    let reminders: i64 = store
        .conn()
        .query_row(
            "SELECT COUNT(*) FROM outbound_mail WHERE kind = 'reminder'",
            [],
            |r| r.get(0),
        )
        .map_err(|e| SetupError::from(crate::store::StoreError::from(e)))?;
    Ok(Facts {
        turn: turn.as_ref().map_or(0, |t| t.number),
        opened_at: turn.as_ref().map_or(0, |t| t.opened_at),
        deadline_at: turn.and_then(|t| t.deadline_at),
        reminders,
    })
}

fn secret_of<'a>(created: &'a CreatedGame, player: &str) -> &'a str {
    created
        .players
        .iter()
        .find(|p| p.name == player)
        .map(|p| p.secret.as_str())
        .unwrap_or("")
}

/// One scripted order mail.
struct DemoMail {
    player: &'static str,
    from: &'static str,
    html: bool,
    body: &'static str,
}

impl DemoMail {
    /// The raw RFC 5322 bytes, as a mail client would send them.
    fn raw(&self, step: usize, nth: &str, turn: u32, secret: &str) -> Vec<u8> {
        let (ctype, body) = if self.html {
            (
                "text/html; charset=utf-8",
                format!(
                    "<html><body><p>PASSWORD {secret}</p>{}</body></html>",
                    self.body
                        .split("\n\n")
                        .map(|p| format!("<p>{p}</p>"))
                        .collect::<String>()
                ),
            )
        } else {
            (
                "text/plain; charset=utf-8",
                format!("PASSWORD {secret}\n\n{}", self.body),
            )
        };
        format!(
            "From: {p} <{f}>\r\nTo: adjutant@example.test\r\nSubject: Orders, turn {turn}\r\n\
             Message-ID: <demo-{step}-{lp}{nth}@example.test>\r\nDate: Fri, 28 Aug 1862 18:30:00 -0500\r\n\
             MIME-Version: 1.0\r\nContent-Type: {ctype}\r\n\r\n{b}\r\n",
            p = self.player,
            f = self.from,
            lp = self.player.to_lowercase(),
            b = body.replace('\n', "\r\n"),
        )
        .into_bytes()
    }
}

/// When a step of the script happens.
enum When {
    /// This long after the open turn opened.
    AfterOpening(i64),
    /// This long after (or, negative, before) the open turn's deadline.
    FromDeadline(i64),
}

/// One daemon cycle of the script: the clock is moved, the mails dropped,
/// the cycle run.
struct Step {
    when: When,
    what: &'static str,
    mails: &'static [DemoMail],
}

/// The scripted game, cycle by cycle.
const SCRIPT: &[Step] = &[
    Step {
        when: When::AfterOpening(HOUR),
        what: "turn 1: every player writes orders and READY (Doubleday's has a mistake, so his READY is not counted until he sends the correction; Baylor's is HTML-only)",
        mails: &[
            DemoMail {
                player: "Gibbon",
                from: "gibbon@example.test",
                html: false,
                body: "From Gibbon:\n\n2nd Wisconsin: advance to the Brawner farm in line; fire at will.\n\n\
                       6th Wisconsin: hold; fire at will.\n\n\
                       Battery B: fire at will.\n\n19th Indiana: hold and lie down.\n\nREADY",
            },
            DemoMail {
                player: "Doubleday",
                from: "doubleday@example.test",
                html: false,
                // The second paragraph names a place that is not on the map:
                // the receipt says so, and the first order still counts.
                body: "56th Pennsylvania: advance to the orchard in line.\n\n\
                       76th New York: advance to Centreville.\n\nREADY",
            },
            DemoMail {
                player: "Baylor",
                from: "baylor@example.test",
                html: true,
                body: "4th Virginia: advance to the Brawner fence in line.\n\n5th Virginia: hold.\n\nREADY",
            },
            DemoMail {
                player: "Lawton",
                from: "lawton@example.test",
                html: false,
                body: "26th Georgia: advance to the orchard.\n\nREADY",
            },
            DemoMail {
                player: "Trimble",
                from: "trimble@example.test",
                html: false,
                body: "21st Georgia: hold.\n\nREADY",
            },
            DemoMail {
                player: "Doubleday",
                from: "doubleday@example.test",
                html: false,
                // His receipt said the READY beside a refused order was not
                // counted: he sends the corrected order with READY again.
                body: "76th New York: advance to the Douglass house.\n\nREADY",
            },
        ],
    },
    Step {
        when: When::AfterOpening(3 * HOUR),
        what: "turn 2: four players write; Trimble sends nothing",
        mails: &[
            DemoMail {
                player: "Gibbon",
                from: "gibbon@example.test",
                html: false,
                body: "19th Indiana: stand up.\n\n7th Wisconsin: advance to the Brawner farm in line.\n\nREADY",
            },
            DemoMail {
                player: "Doubleday",
                from: "doubleday@example.test",
                html: false,
                body: "76th New York: advance to the orchard.\n\nREADY",
            },
            DemoMail {
                player: "Baylor",
                from: "baylor@example.test",
                html: false,
                body: "5th Virginia: fire at will.\n\nREADY",
            },
            DemoMail {
                player: "Lawton",
                from: "lawton@example.test",
                html: false,
                body: "READY",
            },
        ],
    },
    Step {
        when: When::FromDeadline(-12 * HOUR),
        what: "turn 2, twelve hours before the deadline: Trimble is reminded",
        mails: &[],
    },
    Step {
        // Deadline + two hours' grace + ten minutes.
        when: When::FromDeadline(2 * HOUR + 600),
        what: "turn 2, after deadline and grace: Trimble's mail arrives LATE and counts for turn 3; turn 2 runs without it",
        mails: &[DemoMail {
            player: "Trimble",
            from: "trimble@example.test",
            html: false,
            body: "21st North Carolina: advance toward Douglass house.\n\nREADY",
        }],
    },
    Step {
        when: When::AfterOpening(2 * HOUR),
        what: "turn 3: everyone READY; Trimble's late order is carried out now",
        mails: &[
            DemoMail {
                player: "Gibbon",
                from: "gibbon@example.test",
                html: false,
                body: "READY",
            },
            DemoMail {
                player: "Doubleday",
                from: "doubleday@example.test",
                html: false,
                body: "READY",
            },
            DemoMail {
                player: "Baylor",
                from: "baylor@example.test",
                html: false,
                body: "READY",
            },
            DemoMail {
                player: "Lawton",
                from: "lawton@example.test",
                html: false,
                body: "READY",
            },
            DemoMail {
                player: "Trimble",
                from: "trimble@example.test",
                html: false,
                body: "READY",
            },
        ],
    },
];
