//! `adjutant demo --dir DIR`: a whole game set up on the embedded default in
//! one directory, so a newcomer sees Adjutant work without a mail server.
//!
//! The demo uses the same code paths as a real installation: it writes a
//! config file, initialises the store and the Maildir folders, creates a
//! game from the shipped Brawner's Farm scenario, then plays a few turns by
//! mail: every player's scripted order mail is dropped into the Maildir inbox
//! (one with a mistake, one HTML-only), and the real daemon cycle
//! (`adjutant run --once`) reads them, answers receipts into the Maildir
//! outbox and processes each turn once every player is READY.

use crate::config::{Config, EMBEDDED_DEFAULT};
use crate::game::{self, CreatedGame, GameError};
use crate::setup::SetupError;
use crate::store::Store;
use std::path::{Path, PathBuf};

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

/// What the demo did, for the CLI to print.
#[derive(Debug)]
pub struct DemoRun {
    pub dir: PathBuf,
    pub config_path: PathBuf,
    pub config: Config,
    pub created: CreatedGame,
    /// One line per daemon cycle: what it did.
    pub cycles: Vec<String>,
    /// The open turn at the end.
    pub open_turn: u32,
}

/// Sets up the demo directory: `DIR/adjutant.toml` (the embedded default),
/// `DIR/var/adjutant.db`, the Maildir inbox and outbox, and the game.
pub fn run(dir: &Path) -> Result<DemoRun, DemoError> {
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
    std::fs::write(&config_path, EMBEDDED_DEFAULT).map_err(io(&config_path))?;
    let mut store = crate::setup::init(&config)?.store;
    let created = game::create_from_text(
        &mut store,
        BRAWNERS_FARM,
        "scenarios/brawners-farm.toml",
        GAME_NAME,
    )?;
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
    let mut cycles = Vec::new();
    for (turn, mails) in SCRIPT.iter().enumerate() {
        let turn = u32::try_from(turn + 1).unwrap_or(u32::MAX);
        for m in *mails {
            let raw = m.raw(turn, secret_of(&created, m.player));
            let path = inbox.join(format!("demo-t{turn}-{}.eml", m.player.to_lowercase()));
            std::fs::write(&path, raw).map_err(io(&path))?;
        }
        let r = runtime.block_on(crate::daemon::run_once(&config, &mut parts))?;
        cycles.push(format!(
            "turn {turn}: {} mails read, {} accepted, {} answers sent to the outbox, {} turn(s) processed",
            r.ingest.stored, r.process.accepted, r.flush.sent, r.due
        ));
    }
    let open_turn = Store::open_existing(&config.database)
        .and_then(|s| {
            let id = s.game_id(GAME_NAME)?;
            Ok(match id {
                Some(id) => s.current_turn(id)?.map(|t| t.number).unwrap_or(0),
                None => 0,
            })
        })
        .map_err(SetupError::from)?;
    Ok(DemoRun {
        dir,
        config_path,
        config,
        created,
        cycles,
        open_turn,
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
    fn raw(&self, turn: u32, secret: &str) -> Vec<u8> {
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
             Message-ID: <demo-t{turn}-{lp}@example.test>\r\nDate: Fri, 28 Aug 1862 18:30:00 -0500\r\n\
             MIME-Version: 1.0\r\nContent-Type: {ctype}\r\n\r\n{b}\r\n",
            p = self.player,
            f = self.from,
            lp = self.player.to_lowercase(),
            b = body.replace('\n', "\r\n"),
        )
        .into_bytes()
    }
}

/// The scripted game: the mails each player sends, turn by turn.
const SCRIPT: &[&[DemoMail]] = &[
    &[
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
            // The second paragraph names a place that is not on the map: the
            // receipt says so, and the first order still counts.
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
    ],
    &[
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
        DemoMail {
            player: "Trimble",
            from: "trimble@example.test",
            html: false,
            body: "21st North Carolina: advance toward Douglass house.\n\nREADY",
        },
    ],
];
