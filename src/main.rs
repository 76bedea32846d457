//! The `adjutant` binary: parses the command line, loads the configuration,
//! runs one command, and turns library errors into messages and exit codes.
//!
//! Exit codes: 0 success; 2 bad usage, configuration or input (the operator
//! can fix it); 1 internal failure. Clap's own usage errors already exit 2.

use adjutant::config::{Config, ConfigError};
use adjutant::scenario::ScenarioError;
use adjutant::store::StoreError;
use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use std::io::Write as _;
use std::path::{Path, PathBuf};

mod commands;

/// Adjutant runs American Civil War miniature wargames by email under the
/// Iron Brigade rules, with SFRM messengers between generals.
#[derive(Debug, Parser)]
#[command(name = "adjutant", version, about, long_about = None)]
struct Cli {
    /// Configuration file. Without it (and without ADJUTANT_CONFIG) the
    /// built-in default is used: everything under ./var/, no server needed.
    #[arg(long, global = true, env = "ADJUTANT_CONFIG", value_name = "PATH")]
    config: Option<PathBuf>,

    /// How log lines on stderr are written: `text` (key=value fields,
    /// coloured only on a terminal) or `json` (one object a line, for log
    /// collectors).
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text, value_name = "FORMAT")]
    log_format: LogFormat,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create the database and mail folders named in the config (safe to
    /// run again: an existing setup is left as it is).
    Init(JsonFlag),
    /// Set up a whole demonstration game in one directory, on the embedded
    /// default (no mail server needed), and say where to look.
    Demo {
        /// The directory to create it in (made if missing).
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// Print what was done as JSON (at the end, instead of step by step).
        #[arg(long)]
        json: bool,
    },
    /// Create, list and inspect games.
    #[command(subcommand)]
    Game(GameCommand),
    /// Check scenario files.
    #[command(subcommand)]
    Scenario(ScenarioCommand),
    /// The umpire's calculator: apply one Iron Brigade rule to numbers you
    /// give, with dice you rolled or dice rolled for you.
    Calc(adjutant::calc::CalcArgs),
    /// Run the daemon: read mail, answer it, send what is queued. Stops
    /// cleanly on SIGTERM or Ctrl-C.
    Run {
        /// Do one full cycle (read, process, send) and exit: for cron and tests.
        #[arg(long)]
        once: bool,
        /// With --once: print what the cycle did as JSON.
        #[arg(long, requires = "once")]
        json: bool,
    },
    /// Re-adjudicate every processed turn of a game from its archive and
    /// check each outcome is byte-identical. Exit 0 when all match, 1 on a
    /// mismatch, 2 for an unknown game.
    Replay(ShowArgs),
    /// The game archive: a static HTML site of a game's turns.
    #[command(subcommand)]
    Archive(ArchiveCommand),
    /// Run umpire commands on a game, with the same effect as the umpire's
    /// mail: `adjutant umpire brawner EXTEND 24h`, or several from a file
    /// (`--file orders.txt`, `--file -` for stdin). See docs/umpire.md.
    Umpire(UmpireArgs),
}

#[derive(Debug, Args)]
#[command(after_help = adjutant::umpire::command::HELP_TEXT)]
struct UmpireArgs {
    /// The game's name.
    #[arg(value_name = "GAME")]
    game: String,
    /// One command, e.g. `PAUSE for 2d` (quote texts: `BROADCAST '"Rain"'`).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    command: Vec<String>,
    /// Read the commands from this file, one a line (`-` = stdin); needed
    /// for several commands or ORDERS FOR ... END ORDERS.
    #[arg(long, value_name = "PATH", conflicts_with = "command")]
    file: Option<PathBuf>,
    /// Who you are, for the audit log (default: $USER).
    #[arg(long = "as", value_name = "NAME")]
    as_user: Option<String>,
    /// Print the results as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum ArchiveCommand {
    /// Write a static HTML site of the game (no JavaScript, nothing
    /// fetched): turn index, each side's view, the true map, orders,
    /// events, dice, reports; after the game, the fog lifted.
    Export {
        /// The game's name.
        #[arg(value_name = "GAME")]
        name: String,
        /// The directory to write into (made if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Print what was written as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum GameCommand {
    /// Create a game from a scenario file and print each player's one-time
    /// secret (only its hash is kept).
    Create(CreateArgs),
    /// List the games in the database.
    List(JsonFlag),
    /// Show one game: sides, players, officers, forces and the current turn.
    Show(ShowArgs),
    /// Process the game's open turn now, whatever its deadline: adjudicate
    /// it with its committed dice and open the next.
    Process(ShowArgs),
    /// Show or change the game's deadline schedule, grace and reminders;
    /// the open turn's deadline is recomputed from when it opened.
    Deadline(DeadlineArgs),
    /// End the game: no more turns are processed, and `archive export`
    /// then shows each side's belief beside the truth ("fog lifted").
    End(EndArgs),
    /// Show or set the game's umpire: his address (a new address comes
    /// with a new secret, shown once), a new secret, the maximum pause.
    Umpire(GameUmpireArgs),
}

#[derive(Debug, Args)]
struct GameUmpireArgs {
    /// The game's name.
    #[arg(value_name = "GAME")]
    name: String,
    /// The umpire's mail address; a new secret is made and shown once.
    #[arg(long, value_name = "ADDRESS")]
    address: Option<String>,
    /// Make a new secret for the umpire (the old one stops working).
    #[arg(long)]
    new_secret: bool,
    /// The longest PAUSE allowed, and the length of a PAUSE without one
    /// (default 7d), e.g. `3d`, `14d`.
    #[arg(long, value_name = "DURATION")]
    pause_max: Option<String>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct EndArgs {
    /// The game's name.
    #[arg(value_name = "GAME")]
    name: String,
    /// Why it ended, for the audit log and the archive
    /// (e.g. "Jackson withdrew at dusk").
    #[arg(long, value_name = "REASON")]
    because: String,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// A deadline schedule on the command line (`game create`).
#[derive(Debug, Args)]
struct ScheduleFlags {
    /// Each turn closes this long after it opens, e.g. `48h`, `2d`, `1h30m`.
    #[arg(
        long,
        visible_alias = "deadline-every",
        value_name = "DURATION",
        conflicts_with = "at"
    )]
    every: Option<String>,
    /// Turns close at fixed weekly times: days, a 24-hour time and an IANA
    /// zone, e.g. "tue,fri 20:00 America/New_York" (daylight saving
    /// followed).
    #[arg(long, visible_alias = "deadline-at", value_name = "WHEN")]
    at: Option<String>,
    /// Mail arriving up to this long after the deadline still counts for
    /// the turn (default none).
    #[arg(long, value_name = "DURATION")]
    grace: Option<String>,
    /// Remind players who have sent nothing this long before the deadline
    /// (default none).
    #[arg(long, value_name = "DURATION")]
    remind: Option<String>,
}

#[derive(Debug, Args)]
struct DeadlineArgs {
    /// The game's name.
    #[arg(value_name = "GAME")]
    name: String,
    /// Each turn closes this long after it opens, e.g. `48h`, `2d`, `1h30m`.
    #[arg(long, visible_alias = "deadline-every", value_name = "DURATION", conflicts_with_all = ["at", "none"])]
    every: Option<String>,
    /// Fixed weekly times: days, a 24-hour time and an IANA zone, e.g.
    /// "tue,fri 20:00 America/New_York" (daylight saving followed).
    #[arg(
        long,
        visible_alias = "deadline-at",
        value_name = "WHEN",
        conflicts_with = "none"
    )]
    at: Option<String>,
    /// No deadlines: a turn runs when every player is READY.
    #[arg(long)]
    none: bool,
    /// Grace after the deadline (`0` for none); unchanged if not given.
    #[arg(long, value_name = "DURATION")]
    grace: Option<String>,
    /// Reminder lead before the deadline (`0` for none); unchanged if not given.
    #[arg(long, value_name = "DURATION")]
    remind: Option<String>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum ScenarioCommand {
    /// Validate a scenario file and list every problem found, with its line
    /// and TOML path.
    Check {
        /// The scenario TOML file.
        file: PathBuf,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
struct CreateArgs {
    /// The scenario TOML file (see docs/scenario-format.md).
    #[arg(long, value_name = "FILE")]
    scenario: PathBuf,
    /// A short unique name for the game, used in commands and mail.
    #[arg(long, value_name = "GAME")]
    name: String,
    #[command(flatten)]
    schedule: ScheduleFlags,
    /// The umpire's mail address: the game is umpired, and his secret is
    /// printed once with the players'.
    #[arg(long, value_name = "ADDRESS")]
    umpire: Option<String>,
    /// The players' real addresses and time zones, from a roster file
    /// (TOML `[[players]]` with name, address or addresses, time_zone);
    /// the scenario file stays as it is (docs/scenario-format.md).
    #[arg(long, value_name = "FILE")]
    roster: Option<PathBuf>,
    /// One player's real address and optional time zone, e.g.
    /// `--player Gibbon=john@example.org,Europe/London` (repeat it; added
    /// to the --roster file's entries).
    #[arg(long = "player", value_name = "NAME=ADDRESS[,ZONE]")]
    players: Vec<String>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct JsonFlag {
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ShowArgs {
    /// The game's name.
    #[arg(value_name = "GAME")]
    name: String,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => usage_error(&e),
    };
    let json = cli.command.json();
    let code = match run(cli) {
        Ok(()) => 0,
        Err(err) => {
            let code = exit_code(&err);
            report_error(&err, code, json);
            code
        }
    };
    std::process::exit(code);
}

/// Clap's own errors: help and version print as usual; a usage error is
/// JSON when `--json` was asked for, clap's text otherwise. Exit code 2.
fn usage_error(e: &clap::Error) -> ! {
    use clap::error::ErrorKind;
    let asked_json = std::env::args_os().any(|a| a == "--json");
    if asked_json && !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let message = e.render().to_string();
        let message = message.trim().trim_start_matches("error: ");
        print_json_error(&serde_json::json!({
            "error": { "kind": "usage", "exit_code": 2, "message": message, "causes": [] }
        }));
        std::process::exit(2);
    }
    // clap writes help to stdout and errors to stderr; a closed pipe there
    // is ignored by clap itself.
    let _ = e.print();
    std::process::exit(e.exit_code());
}

/// An error, on stderr as text or, under `--json`, on stdout as one JSON
/// object: `{"error": {"kind", "exit_code", "message", "causes"}}`
/// (README, "Exit codes and JSON").
fn report_error(err: &anyhow::Error, code: i32, json: bool) {
    if json && commands::already_in_json(err) {
        // Stdout already holds the one JSON result that says it; a person
        // watching stderr still gets the line.
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "adjutant: error: {}", error_text(err));
        return;
    }
    if json {
        let message = err.to_string();
        let causes: Vec<String> = err
            .chain()
            .skip(1)
            .map(ToString::to_string)
            .filter(|c| !message.contains(c.as_str()))
            .collect();
        print_json_error(&serde_json::json!({
            "error": {
                "kind": if code == 2 { "usage" } else { "internal" },
                "exit_code": code,
                "message": message,
                "causes": causes,
            }
        }));
    } else {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "adjutant: error: {}", error_text(err));
    }
}

/// The error and its causes on one line, each cause added only when the
/// text so far does not already say it (library errors often quote their
/// source, e.g. "cannot read x: No such file ... (os error 2)", and the
/// chain would repeat it).
fn error_text(err: &anyhow::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}

fn print_json_error(v: &serde_json::Value) {
    let text = serde_json::to_string(v).unwrap_or_else(|_| "{\"error\":{}}".to_string());
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
}

impl Command {
    /// Whether the command was asked for JSON output.
    fn json(&self) -> bool {
        match self {
            Command::Init(f) => f.json,
            Command::Demo { json, .. } | Command::Run { json, .. } => *json,
            Command::Game(g) => match g {
                GameCommand::Create(a) => a.json,
                GameCommand::List(a) => a.json,
                GameCommand::Show(a) | GameCommand::Process(a) => a.json,
                GameCommand::Deadline(a) => a.json,
                GameCommand::End(a) => a.json,
                GameCommand::Umpire(a) => a.json,
            },
            Command::Scenario(ScenarioCommand::Check { json, .. }) => *json,
            Command::Calc(a) => a.json,
            Command::Replay(a) => a.json,
            Command::Archive(ArchiveCommand::Export { json, .. }) => *json,
            Command::Umpire(a) => a.json,
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let log_format = cli.log_format;
    let config = || setup(cli.config.as_deref(), log_format);
    match &cli.command {
        // The calculator needs no config or database: an umpire at a
        // table-top game can use it anywhere.
        Command::Calc(args) => commands::write_line(format_args!("{}", adjutant::calc::run(args)?)),
        Command::Scenario(ScenarioCommand::Check { file, json }) => {
            commands::scenario_check(file, *json)
        }
        Command::Init(f) => commands::init(&config()?, f.json),
        Command::Demo { dir, json } => {
            init_logging("warn", log_format);
            commands::demo(dir, *json)
        }
        Command::Game(GameCommand::Create(a)) => {
            let f = &a.schedule;
            let deadlines = commands::schedule(&commands::ScheduleChange {
                every: f.every.as_deref(),
                at: f.at.as_deref(),
                none: false,
                grace: f.grace.as_deref(),
                remind: f.remind.as_deref(),
            })?;
            let mut roster = match &a.roster {
                Some(path) => adjutant::game::roster::Roster::from_file(path)?,
                None => adjutant::game::roster::Roster::default(),
            };
            for p in &a.players {
                roster.add_flag(p)?;
            }
            commands::game_create(
                &config()?,
                &commands::NewGame {
                    scenario: &a.scenario,
                    name: &a.name,
                    deadlines: &deadlines,
                    umpire: a.umpire.as_deref(),
                    roster: &roster,
                },
                a.json,
            )
        }
        Command::Game(GameCommand::Deadline(a)) => commands::game_deadline(
            &config()?,
            &a.name,
            &commands::ScheduleChange {
                every: a.every.as_deref(),
                at: a.at.as_deref(),
                none: a.none,
                grace: a.grace.as_deref(),
                remind: a.remind.as_deref(),
            },
            a.json,
        ),
        Command::Game(GameCommand::End(a)) => {
            commands::game_end(&config()?, &a.name, &a.because, a.json)
        }
        Command::Game(GameCommand::Umpire(a)) => commands::game_umpire(
            &config()?,
            &a.name,
            a.address.as_deref(),
            a.new_secret,
            a.pause_max.as_deref(),
            a.json,
        ),
        Command::Umpire(a) => commands::umpire(
            &config()?,
            &a.game,
            &a.command,
            a.file.as_deref(),
            a.as_user.as_deref(),
            a.json,
        ),
        Command::Game(GameCommand::List(a)) => commands::game_list(&config()?, a.json),
        Command::Game(GameCommand::Show(a)) => commands::game_show(&config()?, &a.name, a.json),
        Command::Game(GameCommand::Process(a)) => {
            commands::game_process(&config()?, &a.name, a.json)
        }
        Command::Run { once, json } => commands::run(&config()?, *once, *json),
        Command::Replay(a) => commands::replay(&config()?, &a.name, a.json),
        Command::Archive(ArchiveCommand::Export { name, out, json }) => {
            commands::archive_export(&config()?, name, out, *json)
        }
    }
}

/// Loads the configuration and starts logging at its level.
fn setup(path: Option<&Path>, format: LogFormat) -> anyhow::Result<Config> {
    let config = load_config(path)?;
    init_logging(&config.log_level, format);
    Ok(config)
}

fn load_config(path: Option<&Path>) -> anyhow::Result<Config> {
    match path {
        Some(p) => Ok(Config::load(p)?),
        None => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            Ok(Config::embedded(&cwd))
        }
    }
}

/// Logs go to stderr; `RUST_LOG` overrides the configured level. Text logs
/// carry ANSI colour only when stderr is a terminal, so a log file or a
/// pipe gets plain `key=value` lines; `--log-format json` writes one JSON
/// object a line for log collectors.
fn init_logging(level: &str, format: LogFormat) {
    use std::io::IsTerminal as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false);
    let _ = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
    };
}

/// 2 for anything the operator can fix (config, scenario, usage, missing
/// database, name taken); 1 for everything else.
fn exit_code(err: &anyhow::Error) -> i32 {
    for cause in err.chain() {
        if cause.is::<ConfigError>() || cause.is::<ScenarioError>() {
            return 2;
        }
        if let Some(e) = cause.downcast_ref::<StoreError>() {
            return if e.is_user_error() { 2 } else { 1 };
        }
        if let Some(e) = cause.downcast_ref::<adjutant::setup::SetupError>() {
            return if e.is_user_error() { 2 } else { 1 };
        }
        if let Some(e) = cause.downcast_ref::<adjutant::demo::DemoError>() {
            return if e.is_user_error() { 2 } else { 1 };
        }
        if let Some(e) = cause.downcast_ref::<adjutant::game::turn::TurnCycleError>() {
            return if e.is_user_error() { 2 } else { 1 };
        }
        if cause.is::<adjutant::game::roster::RosterError>() {
            return 2;
        }
        if let Some(e) = cause.downcast_ref::<adjutant::game::GameError>() {
            return if e.is_user_error() { 2 } else { 1 };
        }
        if cause.is::<adjutant::game::deadline::DeadlineError>() {
            return 2;
        }
        if let Some(e) = cause.downcast_ref::<adjutant::game::cycle::ScheduleError>() {
            return if e.is_user_error() { 2 } else { 1 };
        }
        if let Some(e) = cause.downcast_ref::<adjutant::calc::CalcError>() {
            return if e.is_usage() { 2 } else { 1 };
        }
        if let Some(e) = cause.downcast_ref::<adjutant::archive::ArchiveError>() {
            return if e.is_user_error() { 2 } else { 1 };
        }
        if let Some(e) = cause.downcast_ref::<adjutant::umpire::principal::PrincipalError>() {
            return if e.is_user_error() { 2 } else { 1 };
        }
        if let Some(e) = cause.downcast_ref::<adjutant::umpire::exec::ExecError>() {
            return if e.is_user_error() { 2 } else { 1 };
        }
        if cause.is::<commands::UsageError>() || cause.is::<commands::UmpireRefusals>() {
            return 2;
        }
    }
    1
}
