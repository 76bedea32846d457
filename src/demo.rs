//! `adjutant demo --dir DIR`: a whole game set up on the embedded default in
//! one directory, so a newcomer sees Adjutant work without a mail server.
//!
//! The demo uses the same code paths as a real installation: it writes a
//! config file, initialises the store and the Maildir folders, and creates a
//! game from the shipped Brawner's Farm scenario.

use crate::config::{Config, EMBEDDED_DEFAULT};
use crate::game::{self, CreatedGame, GameError};
use crate::setup::SetupError;
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
}

impl DemoError {
    pub fn is_user_error(&self) -> bool {
        match self {
            DemoError::AlreadyThere(_) => true,
            DemoError::Io { .. } => true,
            DemoError::Setup(e) => e.is_user_error(),
            DemoError::Game(e) => e.is_user_error(),
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
    Ok(DemoRun {
        dir,
        config_path,
        config,
        created,
    })
}
