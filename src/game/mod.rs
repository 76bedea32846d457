//! Where the rules, the store and mail meet: the ruleset-neutral game
//! lifecycle: creating a game from a scenario (with its deadline schedule),
//! describing it, reading orders, processing turns when due.

pub mod book;
pub mod briefing;
pub use crate::clock;
pub mod corrections;
pub mod cycle;
pub mod deadline;
pub mod deadline_line;
pub mod dispatches;
pub mod ending;
pub mod engine_game;
pub mod engine_seat;
pub mod identity;
pub mod interpretation;
pub mod notice;
pub mod pause;
pub mod reply_form;
pub mod report_mail;
pub mod reports;
pub mod resend;
pub mod roster;
mod setup;
pub mod snapshot;
pub mod submit;
pub mod turn;
pub mod turn_error;
pub mod turn_rows;
pub mod umpire_dice;

pub use setup::{CreatedGame, PlayerSecret, battle_state_from_scenario, new_game};

use crate::scenario::{self, ScenarioError};
use crate::secret::{self, SecretError};
use crate::store::{GameDetail, GameId, Store, StoreError};
use deadline::{DeadlineError, DeadlineSettings};
use std::fmt::Write as _;
use std::path::Path;

/// Why a game could not be created.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error(
        "`{0}` is not a usable game name: use 1 to 40 lower-case letters, digits and dashes, starting with a letter (e.g. `brawner-1`)"
    )]
    BadName(String),
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot make a player secret: {0}")]
    Secret(#[from] SecretError),
    #[error("cannot serialise the opening battle state: {0}")]
    State(serde_json::Error),
    #[error("the scenario validates but its opening battle state does not: {0}")]
    InvalidState(#[from] crate::rules::iron_brigade::state::StateError),
    #[error(transparent)]
    Deadline(#[from] DeadlineError),
    #[error(transparent)]
    Roster(#[from] roster::RosterError),
    #[error("the game is created, but its briefings could not be made: {0}")]
    Briefing(#[from] reports::ReportsError),
    #[error("the game is created, but its briefings could not be made: {0}")]
    EngineBriefing(#[from] turn_error::TurnCycleError),
    /// The mail settings the briefings need (the reply-token key) could
    /// not be had; nothing was written.
    #[error("the game was not created: its briefings' mail settings could not be made: {0}")]
    MailSettings(String),
    /// The scenario's ruleset is unknown or not yet playable by mail.
    #[error(transparent)]
    Ruleset(#[from] crate::rulesets::RulesetError),
    /// The caller's own writes in the new game's transaction ([`AlsoAtCreation`])
    /// were refused; nothing was written.
    #[error("the game was not created: {message}")]
    AtCreation { message: String, user_error: bool },
}

impl GameError {
    /// True when the operator can fix it (exit code 2).
    pub fn is_user_error(&self) -> bool {
        match self {
            GameError::BadName(_)
            | GameError::Scenario(_)
            | GameError::InvalidState(_)
            | GameError::Roster(_)
            | GameError::Ruleset(_)
            | GameError::Deadline(_) => true,
            GameError::AtCreation { user_error, .. } => *user_error,
            GameError::Store(e) => e.is_user_error(),
            GameError::Secret(_)
            | GameError::State(_)
            | GameError::Briefing(_)
            | GameError::EngineBriefing(_)
            | GameError::MailSettings(_) => false,
        }
    }
}

/// Game names appear in mail subjects, reply tokens and file names, so they
/// are kept to a safe alphabet.
pub fn check_game_name(name: &str) -> Result<(), GameError> {
    let ok = (1..=40).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(GameError::BadName(name.to_string()))
    }
}

/// `adjutant game create`: reads and validates the scenario, makes a fresh
/// game seed and one secret per player, and stores the game with turn 1
/// open. The edge of the program: it reads the file, the clock and OS
/// randomness, then hands plain values to [`new_game`].
pub fn create_from_file(
    store: &mut Store,
    scenario_path: &Path,
    name: &str,
) -> Result<CreatedGame, GameError> {
    create_from_file_with(store, scenario_path, name, &DeadlineSettings::default())
}

/// As [`create_from_file`], with a deadline schedule: turn 1's deadline is
/// computed from the moment the game is created.
pub fn create_from_file_with(
    store: &mut Store,
    scenario_path: &Path,
    name: &str,
    deadlines: &DeadlineSettings,
) -> Result<CreatedGame, GameError> {
    create_from_file_with_roster(
        store,
        scenario_path,
        name,
        deadlines,
        &roster::Roster::default(),
    )
}

/// As [`create_from_file_with`], the players' addresses and time zones
/// taken from `roster` (the scenario file itself is not changed).
pub fn create_from_file_with_roster(
    store: &mut Store,
    scenario_path: &Path,
    name: &str,
    deadlines: &DeadlineSettings,
    roster: &roster::Roster,
) -> Result<CreatedGame, GameError> {
    let text = std::fs::read_to_string(scenario_path).map_err(|source| ScenarioError::Read {
        path: scenario_path.to_path_buf(),
        source,
    })?;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    create_from_text_with_roster(
        store,
        &text,
        &scenario_path.display().to_string(),
        name,
        deadlines,
        roster,
        now,
    )
}

/// As [`create_from_file`], with the scenario text in hand (`origin` names
/// it in error messages).
pub fn create_from_text(
    store: &mut Store,
    text: &str,
    origin: &str,
    name: &str,
) -> Result<CreatedGame, GameError> {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    create_from_text_at(store, text, origin, name, &DeadlineSettings::default(), now)
}

/// As [`create_from_text`], created at `now` (the demo's clock) with a
/// deadline schedule.
pub fn create_from_text_at(
    store: &mut Store,
    text: &str,
    origin: &str,
    name: &str,
    deadlines: &DeadlineSettings,
    now: i64,
) -> Result<CreatedGame, GameError> {
    create_from_text_with_roster(
        store,
        text,
        origin,
        name,
        deadlines,
        &roster::Roster::default(),
        now,
    )
}

/// As [`create_from_text_at`], with the organiser's roster applied to the
/// scenario's players ([`roster`]).
pub fn create_from_text_with_roster(
    store: &mut Store,
    text: &str,
    origin: &str,
    name: &str,
    deadlines: &DeadlineSettings,
    roster: &roster::Roster,
    now: i64,
) -> Result<CreatedGame, GameError> {
    create_inner(
        store, text, origin, name, deadlines, roster, now, None, None,
    )
    .map(|(c, _)| c)
}

/// A caller's own writes made in a new game's transaction, after the game
/// and before its briefings (so a briefing can see them): `game create
/// --umpire` names the umpire there, and the umpire's briefing goes with
/// the players'. An error rolls the whole game back.
pub type AlsoAtCreation<'a> =
    &'a mut dyn FnMut(&rusqlite::Connection, GameId) -> Result<(), GameError>;

/// A new game from a scenario file with every player's briefing queued in
/// the same transaction as the game itself (issue #14; "nothing is lost":
/// a game is never created without its briefings, nor briefings queued
/// for a game that is not). Returns the game and how many mails were
/// queued.
///
/// `mail` gives the briefings' mail settings; it is called only once the
/// scenario, name, roster and deadlines are known good, just before the
/// transaction, so that a refused game writes nothing at all (not even a
/// new reply-token key). `also` writes more in the same transaction
/// ([`AlsoAtCreation`]).
#[allow(clippy::too_many_arguments)]
pub fn create_and_brief_from_file(
    store: &mut Store,
    scenario_path: &Path,
    name: &str,
    deadlines: &DeadlineSettings,
    roster: &roster::Roster,
    mail: &dyn Fn() -> Result<report_mail::ReportMail, String>,
    also: Option<AlsoAtCreation<'_>>,
    now: i64,
) -> Result<(CreatedGame, usize), GameError> {
    let text = std::fs::read_to_string(scenario_path).map_err(|source| ScenarioError::Read {
        path: scenario_path.to_path_buf(),
        source,
    })?;
    create_inner(
        store,
        &text,
        &scenario_path.display().to_string(),
        name,
        deadlines,
        roster,
        now,
        Some(mail),
        also,
    )
}

/// Writes the new game, and with `mail` its briefings, in one transaction.
fn insert_new_game(
    store: &mut Store,
    game: &crate::store::NewGame,
    mail: Option<&dyn Fn() -> Result<report_mail::ReportMail, String>>,
    also: Option<AlsoAtCreation<'_>>,
    now: i64,
) -> Result<usize, GameError> {
    let mail = match mail {
        Some(make) => Some(make().map_err(GameError::MailSettings)?),
        None => None,
    };
    let tx = store.transaction()?;
    let id = crate::store::create_game_in(&tx, game)?;
    if let Some(also) = also {
        also(&tx, id)?;
    }
    let queued = match &mail {
        None => 0,
        Some(mail) => match engine_game::engine_of_game(&tx, id).map_err(StoreError::from)? {
            Some(engine) => engine_game::issue_briefings(&tx, id, engine, mail, now)?,
            None => briefing::issue_briefings(&tx, id, mail, briefing::Briefed::Everyone, now)?,
        },
    };
    tx.commit().map_err(StoreError::from)?;
    Ok(queued)
}

#[allow(clippy::too_many_arguments)]
fn create_inner(
    store: &mut Store,
    text: &str,
    origin: &str,
    name: &str,
    deadlines: &DeadlineSettings,
    roster: &roster::Roster,
    now: i64,
    mail: Option<&dyn Fn() -> Result<report_mail::ReportMail, String>>,
    also: Option<AlsoAtCreation<'_>>,
) -> Result<(CreatedGame, usize), GameError> {
    check_game_name(name)?;
    // The registry first: a scenario of a ruleset not yet playable by mail
    // is told so, rather than refused by the Iron Brigade loader.
    let ruleset =
        crate::rulesets::require_by_mail(crate::rulesets::ruleset_of_scenario(text)?.id())?;
    if let Some(engine) = ruleset.mail_engine() {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| SecretError::Random(e.to_string()))?;
        let (mut game, created, not_in_roster) = engine_game::new_engine_game(
            engine,
            ruleset.id(),
            text,
            origin,
            name,
            seed,
            now,
            roster,
            || {
                let s = secret::generate_secret()?;
                let h = secret::hash_secret(&s)?;
                Ok((s, h))
            },
        )?;
        game.settings_json = deadlines.into_settings_json(&game.settings_json)?;
        game.first_deadline_at = deadlines.deadline_for(now)?;
        game.grace_secs = deadlines.grace_secs;
        let queued = insert_new_game(store, &game, mail, also, now)?;
        return Ok((
            CreatedGame {
                not_in_roster,
                ..created
            },
            queued,
        ));
    }
    let mut parsed = scenario::Scenario::from_toml_str(text, origin)?;
    let not_in_roster = if roster.is_empty() {
        Vec::new()
    } else {
        roster.apply(&mut parsed)?
    };
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| SecretError::Random(e.to_string()))?;
    let (mut game, created) = new_game(&parsed, text, name, seed, now, |_| {
        let s = secret::generate_secret()?;
        let h = secret::hash_secret(&s)?;
        Ok((s, h))
    })?;
    game.settings_json = deadlines.into_settings_json(&game.settings_json)?;
    game.first_deadline_at = deadlines.deadline_for(now)?;
    game.grace_secs = deadlines.grace_secs;
    let queued = insert_new_game(store, &game, mail, also, now)?;
    Ok((
        CreatedGame {
            not_in_roster,
            ..created
        },
        queued,
    ))
}

/// Queues every player's briefing of the new game `name` (issue #14; see
/// [`briefing`]) in one transaction, stored as his report of turn 1.
/// Returns how many mails were queued.
pub fn brief_players(
    store: &mut Store,
    name: &str,
    mail: &report_mail::ReportMail,
    now: i64,
) -> Result<usize, GameError> {
    let Some(id) = store.game_id(name)? else {
        return Err(GameError::Store(StoreError::InvalidGame {
            game: name.to_string(),
            problem: "it is not in the database".to_string(),
        }));
    };
    if let Some(engine) = engine_seat::engine_of_game(store.conn(), id).map_err(StoreError::from)? {
        return Ok(engine_game::brief(store, id, engine, mail, now)?);
    }
    let tx = store.transaction()?;
    let n = briefing::issue_briefings(&tx, id, mail, briefing::Briefed::Everyone, now)?;
    tx.commit().map_err(StoreError::from)?;
    Ok(n)
}

/// A plain-text description of a game for `adjutant game show`.
pub fn describe(d: &GameDetail) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "game      {}", d.name);
    let _ = writeln!(out, "scenario  {}", d.scenario_name);
    let _ = writeln!(out, "ruleset   {}", d.ruleset);
    let _ = writeln!(out, "status    {}", d.status);
    if let Some(u) = &d.umpire_address {
        let _ = writeln!(out, "umpire    {u}");
    }
    let over = matches!(
        d.status,
        crate::store::GameStatus::Finished | crate::store::GameStatus::Abandoned
    );
    match &d.current_turn {
        // An ended game has no turn to play: the one left open is never
        // processed (issue #17).
        Some(t) if over => {
            let _ = writeln!(
                out,
                "turn      none: the game is over; turn {} was never played",
                t.number
            );
        }
        Some(t) => {
            let deadline = t
                .deadline_at
                .map(format_utc)
                .unwrap_or_else(|| "none set".to_string());
            let _ = writeln!(
                out,
                "turn      {} ({}); deadline {deadline}; dice commitment {}",
                t.number, t.status, t.seed_commitment
            );
        }
        None => {
            let _ = writeln!(out, "turn      none");
        }
    }
    let _ = writeln!(out, "\nsides");
    for s in &d.units_per_side {
        let _ = writeln!(out, "  {:<24} {} units", s.side, s.units);
    }
    let _ = writeln!(out, "\nplayers");
    for p in &d.players {
        let addrs: Vec<String> = p
            .addresses
            .iter()
            .map(|a| {
                if a.failing {
                    format!("{} (FAILING)", a.address)
                } else {
                    a.address.clone()
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "  {:<20} {:<12} {:<8} commands {}; mail {}",
            p.name,
            p.side,
            p.status,
            p.officers.join(", "),
            addrs.join(", ")
        );
    }
    if !d.open_queries.is_empty() {
        let _ = writeln!(
            out,
            "\nopen queries (free-text orders waiting for the umpire's INTERPRET or REJECT)"
        );
        for q in &d.open_queries {
            let _ = writeln!(
                out,
                "  {:<8} {:<20} turn {:<4} \"{}\"",
                q.id, q.player, q.turn, q.first_line
            );
        }
    }
    let _ = writeln!(out, "\nofficers");
    for o in &d.officers {
        let _ = writeln!(
            out,
            "  {:<24} {:<12} {:<9} {:<7} {:<9} under {}",
            o.name,
            o.side,
            o.level,
            o.rating,
            o.command_class,
            o.superior.as_deref().unwrap_or("-")
        );
    }
    out
}

fn format_utc(t: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(t)
        .ok()
        .and_then(|d| {
            d.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| t.to_string())
}
