//! The binary's commands: thin wrappers that call the library and print.
//! All decisions live in the library so that tests can reach them.

use adjutant::config::Config;
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
    println!();
    println!("Played by mail, through the real daemon cycle:");
    for c in &run.cycles {
        println!("  {c}");
    }
    println!("Turn {} is now open.", run.open_turn);
    println!();
    println!("Where to look:");
    println!(
        "  {}/var/inbox/cur   the order mails, as read",
        run.dir.display()
    );
    println!(
        "  {}/var/outbox/new  every receipt Adjutant sent",
        run.dir.display()
    );
    println!();
    println!("Look at it with:");
    println!(
        "  adjutant --config {} game show {}",
        run.config_path.display(),
        run.created.name
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
    Ok(())
}

/// `adjutant game create`.
pub fn game_create(config: &Config, scenario: &Path, name: &str, json: bool) -> anyhow::Result<()> {
    let mut store = Store::open_existing(&config.database)?;
    let created = adjutant::game::create_from_file(&mut store, scenario, name)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&created)?);
        return Ok(());
    }
    println!(
        "game `{}` created from {} ({} players); turn 1 is open.",
        created.name,
        scenario.display(),
        created.players.len()
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
    } else {
        println!(
            "game `{}`: turn {} processed ({} events, {} dice rolls); turn {} is open (state {})",
            done.game, done.turn, done.events, done.rolls, done.next_turn, done.state_hash
        );
    }
    Ok(())
}
