//! The binary's commands: thin wrappers that call the library and print.
//! All decisions live in the library so that tests can reach them.
//!
//! Everything a command prints goes through [`say!`]: a reader that closes
//! the pipe early (`adjutant game show x | head -1`) is not an error of
//! ours, so printing stops quietly and the command still ends with the
//! exit code its work earned (a replay mismatch is still 1).

use adjutant::config::Config;
use adjutant::game::deadline::{self, DeadlineSettings};
use adjutant::store::Store;
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// An error in what the operator asked for (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Some umpire commands were refused (exit code 2); the printed report
/// (text or JSON) already says which and why.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UmpireRefusals(pub String);

/// Whether `err` is a result the command's own `--json` output already
/// carries (the umpire's refusals, a replay mismatch): under `--json`
/// nothing more is printed for it, so stdout stays one JSON document.
pub fn already_in_json(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|c| c.is::<UmpireRefusals>() || c.is::<ReplayMismatch>())
}

/// Set once standard output has been closed by its reader.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes one line to standard output. A closed pipe silences every later
/// line; any other write error (a full disk behind a redirect) is an error.
pub fn write_line(args: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    let written = out
        .write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(anyhow::Error::new(e).context("cannot write to standard output")),
    }
}

/// `println!` that survives a closed pipe (see the module doc).
macro_rules! say {
    () => {
        $crate::commands::write_line(format_args!(""))?
    };
    ($($arg:tt)*) => {
        $crate::commands::write_line(format_args!($($arg)*))?
    };
}

/// Prints `value` as pretty JSON on standard output.
pub fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    say!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// `adjutant init`: the database (migrated) and the Maildir folders.
pub fn init(config: &Config, json: bool) -> anyhow::Result<()> {
    let done = adjutant::setup::init(config)?;
    if json {
        let maildirs: serde_json::Map<String, serde_json::Value> = done
            .maildirs
            .iter()
            .map(|(what, path)| ((*what).to_string(), path.display().to_string().into()))
            .collect();
        return print_json(&serde_json::json!({
            "database": config.database,
            "created_database": done.created_database,
            "schema_version": done.schema_version,
            "maildirs": maildirs,
        }));
    }
    say!(
        "database {} {} (schema version {})",
        config.database.display(),
        if done.created_database {
            "created"
        } else {
            "is ready"
        },
        done.schema_version
    );
    for (what, path) in &done.maildirs {
        say!("{what} Maildir {}", path.display());
    }
    Ok(())
}

/// `adjutant demo --dir DIR`.
pub fn demo(dir: &Path, json: bool) -> anyhow::Result<()> {
    use adjutant::demo::DemoStep;
    if json {
        let run = adjutant::demo::run(dir)?;
        return print_json(&run);
    }
    say!("Adjutant demo in {}", dir.display());
    // Each step is printed as it happens; a spinner on stderr (hidden when
    // stderr is not a terminal) shows the daemon cycle working.
    let mut spinner: Option<indicatif::ProgressBar> = None;
    let mut printed: anyhow::Result<()> = Ok(());
    let mut tell = |step: DemoStep<'_>| -> anyhow::Result<()> {
        match step {
            DemoStep::Created(created) => {
                say!(
                    "game `{}` created from {} with {} players; turn 1 is open.",
                    created.name,
                    created.scenario_name,
                    created.players.len()
                );
                for p in &created.players {
                    say!(
                        "  {:<12} {:<12} {:<26} secret {}",
                        p.name,
                        p.side,
                        p.addresses.join(", "),
                        p.secret
                    );
                }
                say!("deadlines: {}", adjutant::demo::demo_deadlines().summary());
                say!();
                say!(
                    "Played by mail through the real daemon cycle, the clock moved forward by the script:"
                );
            }
            DemoStep::Begins { at, what } => {
                say!("  {}  {what}", adjutant::clock::format_local(at, "UTC"));
                let bar = indicatif::ProgressBar::new_spinner();
                bar.set_message("the daemon reads, answers and adjudicates ...");
                bar.enable_steady_tick(std::time::Duration::from_millis(120));
                spinner = Some(bar);
            }
            DemoStep::Done(line) => {
                if let Some(bar) = spinner.take() {
                    bar.finish_and_clear();
                }
                // The first line of a cycle's summary repeats the step.
                for l in line.lines().skip(1) {
                    say!("  {l}");
                }
            }
        }
        Ok(())
    };
    let run = adjutant::demo::run_with(dir, &mut |step| {
        if printed.is_ok() {
            printed = tell(step);
        }
    })?;
    printed?;
    say!();
    say!("  config    {}", run.config_path.display());
    say!("  database  {}", run.config.database.display());
    match run.deadline_at {
        Some(d) => say!(
            "Turn {} is now open; its deadline is {}.",
            run.open_turn,
            adjutant::clock::format_local(d, "UTC")
        ),
        None => say!("Turn {} is now open.", run.open_turn),
    }
    say!();
    say!("Where to look:");
    say!(
        "  {}/var/inbox/cur   the order mails, as read (demo-3-trimble.eml is the late one)",
        run.dir.display()
    );
    say!(
        "  {}/var/outbox/new  every mail Adjutant sent, in the order it was queued: receipts (one says LATE), the reminder, and after each turn every player's report (map attached)",
        run.dir.display()
    );
    say!();
    say!("Look at it with:");
    let cfg = run.config_path.display();
    let name = &run.created.name;
    say!("  adjutant --config {cfg} game show {name}");
    say!("  adjutant --config {cfg} game deadline {name}");
    say!("  adjutant --config {cfg} replay {name}");
    say!(
        "  adjutant --config {cfg} archive export {name} --out {}/site",
        run.dir.display()
    );
    Ok(())
}

/// `adjutant scenario check FILE`: needs no config or database.
pub fn scenario_check(file: &Path, json: bool) -> anyhow::Result<()> {
    // The ruleset boundary: the scenario's `[scenario] ruleset` picks the
    // checker (none: Iron Brigade, below).
    let text = std::fs::read_to_string(file).map_err(|source| {
        adjutant::scenario::ScenarioError::Read {
            path: file.to_path_buf(),
            source,
        }
    })?;
    let ruleset = adjutant::rulesets::ruleset_of_scenario(&text)
        .map_err(|e| UsageError(format!("{}: {e}", file.display())))?;
    if ruleset.id() != adjutant::rules::IRON_BRIGADE {
        let check = ruleset.check_scenario(&text, &file.display().to_string())?;
        if json {
            let mut v = check.json;
            if let Some(o) = v.as_object_mut() {
                o.insert("file".into(), serde_json::json!(file));
                o.insert("by_mail".into(), serde_json::json!(ruleset.by_mail()));
            }
            return print_json(&v);
        }
        say!("{}: {}", file.display(), check.headline);
        for line in &check.notes {
            say!("{line}");
        }
        if !ruleset.calc_rules().is_empty() {
            say!(
                "its tables: adjutant calc {}",
                ruleset.calc_rules().join(" | ")
            );
        }
        if !ruleset.by_mail() {
            say!(
                "note: {} games cannot be played by mail yet; the scenario is checked only",
                ruleset.name()
            );
        }
        return Ok(());
    }
    let s = adjutant::scenario::Scenario::from_toml_str(&text, &file.display().to_string())?;
    let state = adjutant::game::battle_state_from_scenario(&s);
    state
        .validate()
        .map_err(|e| UsageError(format!("{}: {e}", file.display())))?;
    let not_applied = s.options.not_applied();
    if json {
        return print_json(&serde_json::json!({
            "file": file,
            "valid": true,
            "name": s.name,
            "sides": s.sides.len(),
            "players": s.players.len(),
            "officers": s.officers.len(),
            "units": s.units.len(),
            "turns": s.last_turn,
            "not_applied": not_applied
                .iter()
                .map(|(key, why)| serde_json::json!({ "option": key, "why": why }))
                .collect::<Vec<_>>(),
        }));
    }
    say!(
        "{}: `{}` is valid: {} sides, {} players, {} officers, {} units, {} turns",
        file.display(),
        s.name,
        s.sides.len(),
        s.players.len(),
        s.officers.len(),
        s.units.len(),
        s.last_turn
    );
    // Optional rules the scenario switches on that the engine does not
    // apply yet (`scenario::NOT_APPLIED`).
    if !not_applied.is_empty() {
        say!("note: these optional rules are switched on but not applied by Adjutant yet;");
        say!("      the game is played without them unless the umpire applies them by hand:");
        for (key, why) in not_applied {
            say!("  {key}: {why}");
        }
    }
    Ok(())
}

/// A deadline schedule as given on the command line; `None` fields keep
/// what is there.
#[derive(Debug, Default)]
pub struct ScheduleChange<'a> {
    pub every: Option<&'a str>,
    pub at: Option<&'a str>,
    pub none: bool,
    pub grace: Option<&'a str>,
    pub remind: Option<&'a str>,
}

impl ScheduleChange<'_> {
    fn is_empty(&self) -> bool {
        self.every.is_none()
            && self.at.is_none()
            && !self.none
            && self.grace.is_none()
            && self.remind.is_none()
    }

    /// `base` with this change applied.
    fn apply(&self, mut base: DeadlineSettings) -> anyhow::Result<DeadlineSettings> {
        if let Some(e) = self.every {
            base.schedule = Some(deadline::parse_every(e)?);
        }
        if let Some(a) = self.at {
            base.schedule = Some(deadline::parse_weekly(a)?);
        }
        if self.none {
            base.schedule = None;
        }
        if let Some(g) = self.grace {
            base.grace_secs = deadline::parse_duration(g)?;
        }
        if let Some(r) = self.remind {
            base.remind_secs = deadline::parse_duration(r)?;
        }
        if base.schedule.is_none() && (base.grace_secs > 0 || base.remind_secs > 0) {
            return Err(UsageError(
                "--grace and --remind need a deadline: add --every or --at".into(),
            )
            .into());
        }
        Ok(base)
    }
}

/// The deadline settings of a new game from its flags.
pub fn schedule(change: &ScheduleChange<'_>) -> anyhow::Result<DeadlineSettings> {
    change.apply(DeadlineSettings::default())
}

/// The deadline as the umpire reads it, in UTC.
fn utc(ts: i64) -> String {
    adjutant::clock::format_local(ts, "UTC")
}

/// `adjutant game deadline NAME [...]`: shows, or changes and shows.
pub fn game_deadline(
    config: &Config,
    name: &str,
    change: &ScheduleChange<'_>,
    json: bool,
) -> anyhow::Result<()> {
    let mut store = Store::open_existing(&config.database)?;
    let Some(id) = store.game_id(name)? else {
        return Err(UsageError(format!(
            "no game named `{name}` in {}; `adjutant game list` shows the games",
            config.database.display()
        ))
        .into());
    };
    let current = adjutant::game::cycle::deadline_settings(&store, id)?;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let (settings, turn, deadline_at, changed) = if change.is_empty() {
        let t = store.current_turn(id)?;
        (
            current,
            t.as_ref().map(|t| t.number),
            t.and_then(|t| t.deadline_at),
            false,
        )
    } else {
        let new = change.apply(current)?;
        let done =
            adjutant::game::cycle::set_deadlines(&mut store, name, &new, &cli_actor(None), now)?;
        (new, done.open_turn, done.deadline_at, true)
    };
    if json {
        let v = serde_json::json!({
            "game": name,
            "deadlines": settings,
            "summary": settings.summary(),
            "open_turn": turn,
            "deadline_at": deadline_at,
        });
        print_json(&v)?;
        return Ok(());
    }
    say!(
        "game `{name}` deadlines{}: {}",
        if changed { " set" } else { "" },
        settings.summary()
    );
    match (turn, deadline_at) {
        (Some(t), Some(d)) if d.saturating_add(settings.grace_secs) <= now => say!(
            "turn {t} closed at {} (past): it is processed on the daemon's next cycle",
            utc(d)
        ),
        (Some(t), Some(d)) => say!("turn {t} closes at {}", utc(d)),
        (Some(t), None) => say!("turn {t} has no deadline: it runs when every player is READY"),
        _ => {}
    }
    Ok(())
}

/// What `adjutant game create` was asked for.
pub struct NewGame<'a> {
    pub scenario: &'a Path,
    pub name: &'a str,
    pub deadlines: &'a DeadlineSettings,
    pub umpire: Option<&'a str>,
    pub roster: &'a adjutant::game::roster::Roster,
}

/// `adjutant game create`.
pub fn game_create(config: &Config, new: &NewGame<'_>, json: bool) -> anyhow::Result<()> {
    let NewGame {
        scenario,
        name,
        deadlines,
        umpire,
        roster,
    } = *new;
    let mut store = Store::open_existing(&config.database)?;
    // A bad umpire address is refused before the game exists.
    if let Some(u) = umpire {
        adjutant::umpire::principal::check_address(u)?;
    }
    // Every player's briefing (issue #14): queued in the same transaction
    // as the game, sent by the daemon.
    // The reply-token key is read (or made) only once the game is known
    // good: a refused game writes nothing.
    let mail = || {
        adjutant::daemon::load_or_create_server_key(&config.server_key_file)
            .map(|key| {
                adjutant::game::report_mail::ReportMail::from_intake(
                    &adjutant::daemon::intake_settings(config, key),
                )
            })
            .map_err(|e| e.to_string())
    };
    // The umpire is named in the game's own transaction, before the
    // briefings (so an SFRM umpire's briefing goes with the players'):
    // the game, its umpire and every briefing are written together or
    // not at all. His secret is made (slowly) before the transaction.
    let change = adjutant::umpire::principal::UmpireChange {
        address: umpire,
        ..Default::default()
    };
    let secret = match umpire {
        Some(_) => adjutant::umpire::principal::new_secret_for(&change)?,
        None => None,
    };
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let actor = cli_actor(None);
    let mut named = None;
    let mut secret = secret;
    let mut name_umpire = |tx: &rusqlite::Connection, id: adjutant::store::GameId| {
        adjutant::umpire::principal::set_umpire_in(tx, id, &change, secret.take(), &actor, now)
            .map(|info| named = Some(info))
            .map_err(|e| adjutant::game::GameError::AtCreation {
                user_error: e.is_user_error(),
                message: e.to_string(),
            })
    };
    let (created, briefed) = adjutant::game::create_and_brief_from_file(
        &mut store,
        scenario,
        name,
        deadlines,
        roster,
        &mail,
        umpire.map(|_| &mut name_umpire as adjutant::game::AlsoAtCreation<'_>),
        now,
    )?;
    let umpire = named;
    if json {
        let mut v = serde_json::to_value(&created)?;
        if let (Some(obj), Some(u)) = (v.as_object_mut(), &umpire) {
            obj.insert("umpire".into(), serde_json::to_value(u)?);
        }
        print_json(&v)?;
        return Ok(());
    }
    say!(
        "game `{}` created from {} ({} players); turn 1 is open.",
        created.name,
        scenario.display(),
        created.players.len()
    );
    say!("deadlines: {}", deadlines.summary());
    say!(
        "{briefed} briefing mail(s) queued: the daemon sends them on its next run; `REPORT 0` asks for one again."
    );
    say!();
    say!("Each player's secret is shown once and is not stored; give it to the player.");
    say!("He writes `PASSWORD <secret>` in an order mail when not replying to one of ours.");
    for p in &created.players {
        say!(
            "  {:<20} {:<12} {:<32} {}",
            p.name,
            p.side,
            p.addresses.join(", "),
            p.secret
        );
    }
    if let Some(u) = &umpire {
        say!(
            "  {:<20} {:<12} {:<32} {}",
            "(umpire)",
            "",
            u.address.as_deref().unwrap_or("-"),
            u.secret.as_deref().unwrap_or("-")
        );
    }
    if !created.not_in_roster.is_empty() {
        say!();
        say!(
            "note: the roster did not name {}; they keep the scenario's addresses above",
            created.not_in_roster.join(", ")
        );
    }
    Ok(())
}

/// Who is acting from the command line, for the audit log: `cli:<user>`.
pub fn cli_actor(as_user: Option<&str>) -> String {
    let user = as_user
        .map(str::to_string)
        .or_else(|| std::env::var("USER").ok())
        .or_else(|| std::env::var("LOGNAME").ok())
        .map(|u| u.trim().to_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    format!("cli:{user}")
}

/// `adjutant game umpire NAME [--address A] [--new-secret] [--pause-max D]`.
pub fn game_umpire(
    config: &Config,
    name: &str,
    address: Option<&str>,
    new_secret: bool,
    pause_max: Option<&str>,
    json: bool,
) -> anyhow::Result<()> {
    let pause_max_secs = pause_max.map(deadline::parse_duration).transpose()?;
    let mut store = Store::open_existing(&config.database)?;
    let info = adjutant::umpire::principal::set_umpire(
        &mut store,
        name,
        &adjutant::umpire::principal::UmpireChange {
            address,
            new_secret,
            pause_max_secs,
        },
        &cli_actor(None),
        time::OffsetDateTime::now_utc().unix_timestamp(),
    )?;
    if json {
        print_json(&info)?;
        return Ok(());
    }
    match &info.address {
        Some(a) => say!("game `{}` umpire {a}", info.game),
        None => say!(
            "game `{}` has no umpire; name one with `adjutant game umpire {} --address ADDRESS`",
            info.game,
            info.game
        ),
    }
    say!(
        "maximum pause {}",
        adjutant::game::deadline::duration_words(info.pause_max_secs)
    );
    if let Some(s) = &info.secret {
        say!();
        say!("The umpire's secret is shown once and is not stored; give it to him:");
        say!("  {s}");
        say!("He writes `PASSWORD <secret>` in a mail when not replying to one of ours.");
    }
    Ok(())
}

/// `adjutant umpire GAME COMMAND... | --file PATH`.
pub fn umpire(
    config: &Config,
    game: &str,
    words: &[String],
    file: Option<&Path>,
    as_user: Option<&str>,
    json: bool,
) -> anyhow::Result<()> {
    let text = match file {
        Some(p) if p.as_os_str() == "-" => {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .map_err(|e| UsageError(format!("cannot read the commands from stdin: {e}")))?;
            s
        }
        Some(p) => std::fs::read_to_string(p)
            .map_err(|e| UsageError(format!("cannot read {}: {e}", p.display())))?,
        None => words.join(" "),
    };
    let mut store = Store::open_existing(&config.database)?;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let key = adjutant::daemon::load_or_create_server_key(&config.server_key_file)
        .map_err(adjutant::daemon::DaemonError::into_anyhow)?;
    let mail = adjutant::game::report_mail::ReportMail::from_intake(
        &adjutant::daemon::intake_settings(config, key),
    );
    let report = adjutant::umpire::exec::execute_cli(
        &mut store,
        game,
        &cli_actor(as_user),
        now,
        &mail,
        &text,
    )?;
    if json {
        print_json(&report)?;
    } else {
        say!("{}", report.text().trim_end_matches('\n'));
    }
    if report.refused() > 0 {
        return Err(UmpireRefusals(format!(
            "{} of {} command(s) refused (nothing of those changed; the {} marked done took effect)",
            report.refused(),
            report.results.len(),
            report.done()
        ))
        .into());
    }
    Ok(())
}

/// `adjutant game list`.
pub fn game_list(config: &Config, json: bool) -> anyhow::Result<()> {
    let store = Store::open_existing(&config.database)?;
    let games = store.list_games()?;
    if json {
        print_json(&games)?;
        return Ok(());
    }
    if games.is_empty() {
        say!("no games yet; create one with `adjutant game create --scenario FILE --name NAME`");
        return Ok(());
    }
    say!(
        "{:<24} {:<28} {:<10} {:>5} {:>8}",
        "NAME",
        "SCENARIO",
        "STATUS",
        "TURN",
        "PLAYERS"
    );
    for g in games {
        say!(
            "{:<24} {:<28} {:<10} {:>5} {:>8}",
            g.name,
            g.scenario_name,
            g.status,
            g.current_turn
                .map_or_else(|| "-".to_string(), |t| t.to_string()),
            g.players.len()
        );
    }
    Ok(())
}

/// `adjutant game show NAME`.
pub fn game_show(config: &Config, name: &str, json: bool) -> anyhow::Result<()> {
    let store = Store::open_existing(&config.database)?;
    let Some(mut detail) = store.game_detail(name)? else {
        return Err(UsageError(format!(
            "no game named `{name}` in {}; `adjutant game list` shows the games",
            config.database.display()
        ))
        .into());
    };
    // A game played through its ruleset's mail plane keeps its units in
    // the ruleset's state: the ruleset summarises them.
    let engine_units = adjutant::game::engine_game::units_now(store.conn(), detail.id)?;
    if let Some(sides) = &engine_units {
        for s in &mut detail.units_per_side {
            s.units = sides
                .iter()
                .find(|e| e.side.eq_ignore_ascii_case(&s.side))
                .map_or(0, |e| u32::try_from(e.units.len()).unwrap_or(u32::MAX));
        }
    }
    if json {
        let mut v = serde_json::to_value(&detail)?;
        if let (Some(sides), Some(obj)) = (&engine_units, v.as_object_mut()) {
            obj.insert(
                "units".into(),
                sides
                    .iter()
                    .map(|s| (s.side.clone(), serde_json::json!(s.units)))
                    .collect::<serde_json::Map<_, _>>()
                    .into(),
            );
        }
        print_json(&v)?;
    } else {
        say!(
            "{}",
            adjutant::game::describe(&detail).trim_end_matches('\n')
        );
        for s in engine_units.iter().flatten() {
            say!("\n{} units:", s.side);
            for u in &s.units {
                say!("  {u}");
            }
        }
        let until: Option<i64> = store
            .conn()
            .query_row(
                "SELECT paused_until FROM games WHERE id = ?1 AND status = 'paused'",
                [detail.id.0],
                |r| r.get(0),
            )
            .unwrap_or(None);
        if let Some(u) = until {
            say!("\npaused until {} (it resumes by itself then)", utc(u));
        }
        let d = adjutant::game::cycle::deadline_settings(&store, detail.id)?;
        say!("\ndeadlines {}", d.summary());
    }
    Ok(())
}

/// `adjutant game process NAME`.
pub fn game_process(config: &Config, name: &str, json: bool) -> anyhow::Result<()> {
    let mut store = Store::open_existing(&config.database)?;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    // Reports are mailed as the daemon would: same address, domain and key.
    let key = adjutant::daemon::load_or_create_server_key(&config.server_key_file)
        .map_err(adjutant::daemon::DaemonError::into_anyhow)?;
    let mail = adjutant::game::report_mail::ReportMail::from_intake(
        &adjutant::daemon::intake_settings(config, key),
    );
    let waiting = match store.game_id(name)? {
        Some(id) => adjutant::store::open_queries(store.conn(), id)?,
        None => Vec::new(),
    };
    let done = adjutant::game::turn::process_turn(&mut store, name, &mail, now)?;
    if json {
        let mut v = serde_json::to_value(&done)?;
        if let Some(obj) = v.as_object_mut() {
            obj.insert("open_queries".into(), serde_json::to_value(&waiting)?);
        }
        print_json(&v)?;
    } else if !done.dice_wanted.is_empty() {
        say!(
            "game `{}`: turn {} waits for the umpire's dice ({} asked for: {}); nothing else was written",
            done.game,
            done.turn,
            done.dice_wanted.len(),
            done.dice_wanted.join("; ")
        );
    } else if done.held {
        say!(
            "game `{}`: turn {} processed ({} events, {} dice rolls) and HELD for the umpire's review: \
             nothing goes to the players until RELEASE (state {})",
            done.game,
            done.turn,
            done.events,
            done.rolls,
            done.state_hash
        );
    } else {
        say!(
            "game `{}`: turn {} processed ({} events, {} dice rolls); turn {} is open (state {})",
            done.game,
            done.turn,
            done.events,
            done.rolls,
            done.next_turn,
            done.state_hash
        );
    }
    if !json && !waiting.is_empty() && done.dice_wanted.is_empty() {
        say!(
            "warning: {} free-text order(s) still wait for the umpire and were NOT part of turn {}: {}; \
             he can INTERPRET (or REJECT) them, then REDO the held turn to include them",
            waiting.len(),
            done.turn,
            adjutant::store::open_queries_words(&waiting)
        );
    }
    Ok(())
}

/// `adjutant game end NAME --because REASON`.
pub fn game_end(config: &Config, name: &str, because: &str, json: bool) -> anyhow::Result<()> {
    if because.trim().is_empty() {
        return Err(UsageError(
            "say why the game ended: `adjutant game end NAME --because \"...\"`".into(),
        )
        .into());
    }
    let mut store = Store::open_existing(&config.database)?;
    let Some(id) = store.game_id(name)? else {
        return Err(UsageError(format!(
            "no game named `{name}`; `adjutant game list` shows the games"
        ))
        .into());
    };
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let was = store.end_game(id, because.trim(), &cli_actor(None), now)?;
    if json {
        return print_json(&serde_json::json!({
            "game": name,
            "ended": was.is_some(),
            "was": was,
            "because": because.trim(),
        }));
    }
    match was {
        Some(was) => say!(
            "game `{name}` ended (it was {was}); no more turns are processed or orders taken, \
             and `adjutant archive export {name} --out DIR` now lifts the fog"
        ),
        None => say!("game `{name}` had already ended; nothing changed"),
    }
    Ok(())
}

/// `adjutant run [--once]`: the daemon; with `--once`, one cycle and what
/// it did.
pub fn run(config: &Config, once: bool, json: bool) -> anyhow::Result<()> {
    let Some(r) = adjutant::daemon::run_command(config, once)? else {
        return Ok(());
    };
    if json {
        return print_json(&r);
    }
    say!(
        "stored {} new mail ({} duplicates); accepted {}, refused {}, ignored {}; \
         {} answers queued; {} turn(s) processed or reminded; sent {}, retrying {}, failed {}",
        r.ingest.stored,
        r.ingest.duplicates,
        r.process.accepted,
        r.process.refused,
        r.process.ignored,
        r.process.answers,
        r.due,
        r.flush.sent,
        r.flush.retrying,
        r.flush.failed
    );
    Ok(())
}

/// `adjutant replay` found turns whose outcome differs from the archive
/// (exit code 1: the record is damaged or the engine changed).
#[derive(Debug, thiserror::Error)]
#[error(
    "replay of `{game}` found {count} turn(s) that differ from the archive; the lines above name them"
)]
pub struct ReplayMismatch {
    pub game: String,
    pub count: usize,
}

/// A progress bar on stderr for `len` turns; indicatif hides it when
/// stderr is not a terminal, so scripts and tests see nothing.
fn turn_progress(len: usize, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(u64::try_from(len).unwrap_or(u64::MAX)),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{msg} [{bar:40}] turn {pos}/{len} ({eta})")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    bar
}

/// Runs `work` with a turn-progress callback that shows a bar (created on
/// the first call, when the number of turns is known) and clears it after.
fn with_turn_progress<T>(what: &str, work: impl FnOnce(&mut dyn FnMut(usize, usize)) -> T) -> T {
    let mut bar: Option<indicatif::ProgressBar> = None;
    let out = work(&mut |done, total| {
        let b = bar.get_or_insert_with(|| turn_progress(total, what));
        b.set_position(u64::try_from(done).unwrap_or(u64::MAX));
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out
}

/// `adjutant replay NAME [--json]`.
pub fn replay(config: &Config, name: &str, json: bool) -> anyhow::Result<()> {
    let store = Store::open_existing(&config.database)?;
    let report = with_turn_progress("replaying", |progress| {
        adjutant::archive::replay_game(&store, name, progress)
    })?;
    if json {
        print_json(&report)?;
    } else {
        for t in &report.turns {
            say!("{}", t.line());
        }
        if report.turns.is_empty() {
            say!("game `{name}` has no processed turn to replay");
        } else if report.ok {
            say!(
                "game `{name}`: all {} processed turns replay byte-identically",
                report.turns.len()
            );
        }
    }
    if report.ok {
        Ok(())
    } else {
        Err(ReplayMismatch {
            game: name.to_string(),
            count: report.mismatches(),
        }
        .into())
    }
}

/// `adjutant archive export NAME --out DIR [--json]`.
pub fn archive_export(config: &Config, name: &str, out: &Path, json: bool) -> anyhow::Result<()> {
    let store = Store::open_existing(&config.database)?;
    let archive = adjutant::archive::load_archive(&store, name)?;
    let summary = with_turn_progress("exporting", |progress| {
        adjutant::archive::export_site(&archive, out, progress)
    })?;
    if json {
        print_json(&summary)?;
    } else {
        say!(
            "game `{}`: {} processed turns exported to {} ({} files{}); open {}",
            summary.game,
            summary.turns,
            summary.out.display(),
            summary.files.len(),
            if summary.fog_lifted {
                ", with the fog lifted"
            } else {
                ""
            },
            summary.out.join("index.html").display()
        );
    }
    Ok(())
}
