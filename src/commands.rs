//! The binary's commands: thin wrappers that call the library and print.
//! All decisions live in the library so that tests can reach them.

use adjutant::config::Config;
use adjutant::game::deadline::{self, DeadlineSettings};
use adjutant::store::Store;
use std::path::Path;

/// An error in what the operator asked for (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// `adjutant init`: the database (migrated) and the Maildir folders.
pub fn init(config: &Config) -> anyhow::Result<()> {
    let done = adjutant::setup::init(config)?;
    println!(
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
        println!("{what} Maildir {}", path.display());
    }
    Ok(())
}

/// `adjutant demo --dir DIR`.
pub fn demo(dir: &Path) -> anyhow::Result<()> {
    let run = adjutant::demo::run(dir)?;
    println!("Adjutant demo in {}", run.dir.display());
    println!("  config    {}", run.config_path.display());
    println!("  database  {}", run.config.database.display());
    println!();
    println!(
        "game `{}` created from {} with {} players; turn 1 is open.",
        run.created.name,
        run.created.scenario_name,
        run.created.players.len()
    );
    for p in &run.created.players {
        println!(
            "  {:<12} {:<12} {:<26} secret {}",
            p.name,
            p.side,
            p.addresses.join(", "),
            p.secret
        );
    }
    println!("deadlines: {}", adjutant::demo::demo_deadlines().summary());
    println!();
    println!(
        "Played by mail through the real daemon cycle, the clock moved forward by the script:"
    );
    for c in &run.cycles {
        println!("  {c}");
    }
    match run.deadline_at {
        Some(d) => println!(
            "Turn {} is now open; its deadline is {}.",
            run.open_turn,
            adjutant::game::clock::format_local(d, "UTC")
        ),
        None => println!("Turn {} is now open.", run.open_turn),
    }
    println!();
    println!("Where to look:");
    println!(
        "  {}/var/inbox/cur   the order mails, as read (demo-3-trimble.eml is the late one)",
        run.dir.display()
    );
    println!(
        "  {}/var/outbox/new  every mail Adjutant sent: receipts (one says LATE), the reminder, and after each turn every player's report (report.*, map attached)",
        run.dir.display()
    );
    println!();
    println!("Look at it with:");
    let cfg = run.config_path.display();
    let name = &run.created.name;
    println!("  adjutant --config {cfg} game show {name}");
    println!("  adjutant --config {cfg} game deadline {name}");
    println!("  adjutant --config {cfg} replay {name}");
    println!(
        "  adjutant --config {cfg} archive export {name} --out {}/site",
        run.dir.display()
    );
    Ok(())
}

/// `adjutant scenario check FILE`: needs no config or database.
pub fn scenario_check(file: &Path) -> anyhow::Result<()> {
    let s = adjutant::scenario::load(file)?;
    let state = adjutant::game::battle_state_from_scenario(&s);
    state
        .validate()
        .map_err(|e| UsageError(format!("{}: {e}", file.display())))?;
    println!(
        "{}: `{}` is valid: {} sides, {} players, {} officers, {} units, {} turns",
        file.display(),
        s.name,
        s.sides.len(),
        s.players.len(),
        s.officers.len(),
        s.units.len(),
        s.last_turn
    );
    print_not_applied(&s.options);
    Ok(())
}

/// Tells the organiser which optional rules his scenario switches on that
/// the engine does not apply yet (`scenario::NOT_APPLIED`).
fn print_not_applied(options: &adjutant::scenario::Options) {
    let missing = options.not_applied();
    if missing.is_empty() {
        return;
    }
    println!("note: these optional rules are switched on but not applied by Adjutant yet;");
    println!("      the game is played without them unless the umpire applies them by hand:");
    for (key, why) in missing {
        println!("  {key}: {why}");
    }
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
                "--grace and --remind need a deadline: add --deadline-every or --deadline-at \
                 (`--every`/`--at` for `game deadline`)"
                    .into(),
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
    adjutant::game::clock::format_local(ts, "UTC")
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
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!(
        "game `{name}` deadlines{}: {}",
        if changed { " set" } else { "" },
        settings.summary()
    );
    match (turn, deadline_at) {
        (Some(t), Some(d)) if d.saturating_add(settings.grace_secs) <= now => println!(
            "turn {t} closed at {} (past): it is processed on the daemon's next cycle",
            utc(d)
        ),
        (Some(t), Some(d)) => println!("turn {t} closes at {}", utc(d)),
        (Some(t), None) => println!("turn {t} has no deadline: it runs when every player is READY"),
        _ => {}
    }
    Ok(())
}

/// `adjutant game create`.
pub fn game_create(
    config: &Config,
    scenario: &Path,
    name: &str,
    deadlines: &DeadlineSettings,
    umpire: Option<&str>,
    json: bool,
) -> anyhow::Result<()> {
    let mut store = Store::open_existing(&config.database)?;
    // A bad umpire address is refused before the game exists.
    if let Some(u) = umpire {
        adjutant::umpire::principal::check_address(u)?;
    }
    let created = adjutant::game::create_from_file_with(&mut store, scenario, name, deadlines)?;
    // Every player's briefing (issue #14): queued now, sent by the daemon.
    let key = adjutant::daemon::load_or_create_server_key(&config.server_key_file)
        .map_err(adjutant::daemon::DaemonError::into_anyhow)?;
    let mail = adjutant::game::report_mail::ReportMail::from_intake(
        &adjutant::daemon::intake_settings(config, key),
    );
    let briefed = adjutant::game::brief_players(
        &mut store,
        name,
        &mail,
        time::OffsetDateTime::now_utc().unix_timestamp(),
    )?;
    let umpire = match umpire {
        Some(address) => Some(adjutant::umpire::principal::set_umpire(
            &mut store,
            name,
            &adjutant::umpire::principal::UmpireChange {
                address: Some(address),
                ..Default::default()
            },
            &cli_actor(None),
            time::OffsetDateTime::now_utc().unix_timestamp(),
        )?),
        None => None,
    };
    if json {
        let mut v = serde_json::to_value(&created)?;
        if let (Some(obj), Some(u)) = (v.as_object_mut(), &umpire) {
            obj.insert("umpire".into(), serde_json::to_value(u)?);
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!(
        "game `{}` created from {} ({} players); turn 1 is open.",
        created.name,
        scenario.display(),
        created.players.len()
    );
    println!("deadlines: {}", deadlines.summary());
    println!(
        "{briefed} briefing mail(s) queued: the daemon sends them on its next run; `REPORT 0` asks for one again."
    );
    println!();
    println!("Each player's secret is shown once and is not stored; give it to the player.");
    println!("He writes `PASSWORD <secret>` in an order mail when not replying to one of ours.");
    for p in &created.players {
        println!(
            "  {:<20} {:<12} {:<32} {}",
            p.name,
            p.side,
            p.addresses.join(", "),
            p.secret
        );
    }
    if let Some(u) = &umpire {
        println!(
            "  {:<20} {:<12} {:<32} {}",
            "(umpire)",
            "",
            u.address.as_deref().unwrap_or("-"),
            u.secret.as_deref().unwrap_or("-")
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
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(());
    }
    match &info.address {
        Some(a) => println!("game `{}` umpire {a}", info.game),
        None => println!(
            "game `{}` has no umpire; name one with `adjutant game umpire {} --address ADDRESS`",
            info.game, info.game
        ),
    }
    println!(
        "maximum pause {}",
        adjutant::game::deadline::duration_words(info.pause_max_secs)
    );
    if let Some(s) = &info.secret {
        println!();
        println!("The umpire's secret is shown once and is not stored; give it to him:");
        println!("  {s}");
        println!("He writes `PASSWORD <secret>` in a mail when not replying to one of ours.");
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
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.text());
    }
    if report.refused() > 0 {
        return Err(UsageError(format!(
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
        println!("{}", serde_json::to_string_pretty(&games)?);
        return Ok(());
    }
    if games.is_empty() {
        println!(
            "no games yet; create one with `adjutant game create --scenario FILE --name NAME`"
        );
        return Ok(());
    }
    println!(
        "{:<24} {:<28} {:<10} {:>5} {:>8}",
        "NAME", "SCENARIO", "STATUS", "TURN", "PLAYERS"
    );
    for g in games {
        println!(
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
    let Some(detail) = store.game_detail(name)? else {
        return Err(UsageError(format!(
            "no game named `{name}` in {}; `adjutant game list` shows the games",
            config.database.display()
        ))
        .into());
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&detail)?);
    } else {
        print!("{}", adjutant::game::describe(&detail));
        let until: Option<i64> = store
            .conn()
            .query_row(
                "SELECT paused_until FROM games WHERE id = ?1 AND status = 'paused'",
                [detail.id.0],
                |r| r.get(0),
            )
            .unwrap_or(None);
        if let Some(u) = until {
            println!("\npaused until {} (it resumes by itself then)", utc(u));
        }
        let d = adjutant::game::cycle::deadline_settings(&store, detail.id)?;
        println!("\ndeadlines {}", d.summary());
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
    let done = adjutant::game::turn::process_turn(&mut store, name, &mail, now)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&done)?);
    } else if !done.dice_wanted.is_empty() {
        println!(
            "game `{}`: turn {} waits for the umpire's dice ({} asked for: {}); nothing else was written",
            done.game,
            done.turn,
            done.dice_wanted.len(),
            done.dice_wanted.join("; ")
        );
    } else if done.held {
        println!(
            "game `{}`: turn {} processed ({} events, {} dice rolls) and HELD for the umpire's review: \
             nothing goes to the players until RELEASE (state {})",
            done.game, done.turn, done.events, done.rolls, done.state_hash
        );
    } else {
        println!(
            "game `{}`: turn {} processed ({} events, {} dice rolls); turn {} is open (state {})",
            done.game, done.turn, done.events, done.rolls, done.next_turn, done.state_hash
        );
    }
    Ok(())
}

/// `adjutant game end NAME --because REASON`.
pub fn game_end(config: &Config, name: &str, because: &str) -> anyhow::Result<()> {
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
    match store.end_game(id, because.trim(), "cli", now)? {
        Some(was) => println!(
            "game `{name}` ended (it was {was}); `adjutant archive export {name} --out DIR` now lifts the fog"
        ),
        None => println!("game `{name}` had already ended; nothing changed"),
    }
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
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for t in &report.turns {
            println!("{}", t.line());
        }
        if report.turns.is_empty() {
            println!("game `{name}` has no processed turn to replay");
        } else if report.ok {
            println!(
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
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!(
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
