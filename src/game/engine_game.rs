//! The lifecycle of a game played through its ruleset's mail plane
//! ([`crate::rules::MailEngine`]; today SFRM at brigade scale): creating it,
//! briefing the players, reading their order mail, processing its turns and
//! mailing the reports — ruleset-neutral, over the state and orders the
//! ruleset serialises. Iron Brigade keeps its own path (`setup`, `submit`,
//! `turn`, `reports`), untouched.
//!
//! The same edges as Iron Brigade's: one transaction per mail and per turn,
//! the turn's seeded dice stream (or the umpire's dice) with every roll
//! logged with its purpose, the turn closed (seed revealed) and the next
//! opened with its commitment, each report stored (for `REPORT n`) and
//! queued with the player's reply token for the new turn. docs/sfrm-by-mail.md.

use super::GameError;
use super::clock::format_local;
use super::report_mail::{
    ReportLetter, ReportMail, compose_letter, live_addresses, queue_letter, queue_umpire_letter,
};
use super::setup::{CreatedGame, PlayerSecret};
use super::turn_error::TurnCycleError;
use super::turn_rows::{
    Attempt, EventRow, RollRow, TurnProcessed, held_turn, record_attempt, roll_rows,
};
use super::umpire_dice::{self, UmpireDice};
use crate::dice::{DiceSource, StreamDice};
use crate::mail::intake::{IntakeError, Receipt, SubmissionContext};
use crate::rules::{MailEngine, ReportContent};
use crate::store::{GameId, NewGame, NewPlayer, Store, StoreError, turn_seed};
use rusqlite::{OptionalExtension, Transaction, params};
use std::fmt::Write as _;

/// Players' time zone when the scenario names none.
const DEFAULT_TIME_ZONE: &str = "UTC";

pub use super::engine_seat::{engine_of, engine_of_game};

fn scenario_toml(c: &rusqlite::Connection, game: GameId) -> Result<String, rusqlite::Error> {
    c.query_row(
        "SELECT scenario_toml FROM games WHERE id = ?1",
        [game.0],
        |r| r.get(0),
    )
}

/// `game create` for a ruleset with a mail plane: the store's record of a
/// new game from `engine.open`, with the organiser's roster applied.
#[allow(clippy::too_many_arguments)]
pub(super) fn new_engine_game(
    engine: &dyn MailEngine,
    ruleset: &str,
    text: &str,
    origin: &str,
    name: &str,
    seed: [u8; 32],
    now: i64,
    roster: &super::roster::Roster,
    mut secret_for: impl FnMut() -> Result<(String, String), GameError>,
) -> Result<(NewGame, CreatedGame, Vec<String>), GameError> {
    let mut opened = engine.open(text, origin)?;
    // The roster fills the scenario's players' addresses and zones.
    let mut not_in_roster: Vec<String> = Vec::new();
    if !roster.is_empty() {
        for entry in &roster.players {
            let Some(p) = opened
                .players
                .iter_mut()
                .find(|p| p.name.eq_ignore_ascii_case(entry.name.trim()))
            else {
                return Err(GameError::Roster(
                    super::roster::RosterError::UnknownPlayer {
                        name: entry.name.clone(),
                        hint: String::new(),
                        players: opened
                            .players
                            .iter()
                            .map(|p| p.name.clone())
                            .collect::<Vec<_>>()
                            .join(", "),
                    },
                ));
            };
            let addrs: Vec<String> = entry
                .address
                .iter()
                .chain(&entry.addresses)
                .cloned()
                .collect();
            if !addrs.is_empty() {
                p.addresses = addrs;
            }
            if entry.time_zone.is_some() {
                p.time_zone = entry.time_zone.clone();
            }
        }
        not_in_roster = opened
            .players
            .iter()
            .filter(|p| {
                !roster
                    .players
                    .iter()
                    .any(|e| e.name.trim().eq_ignore_ascii_case(&p.name))
            })
            .map(|p| p.name.clone())
            .collect();
    }
    if opened.players.is_empty() {
        return Err(GameError::Store(StoreError::InvalidGame {
            game: name.to_string(),
            problem: "the scenario names no players (`[[players]]`)".into(),
        }));
    }
    let mut players = Vec::new();
    let mut secrets = Vec::new();
    for p in &opened.players {
        let (secret, hash) = secret_for()?;
        players.push(NewPlayer {
            name: p.name.clone(),
            side: p.side.clone(),
            addresses: p.addresses.clone(),
            secret_hash: hash,
            time_zone: p
                .time_zone
                .clone()
                .unwrap_or_else(|| DEFAULT_TIME_ZONE.to_string()),
            // The ruleset's generals are its nouns, kept in its state; the
            // store's officer rows are Iron Brigade's.
            officers: Vec::new(),
        });
        secrets.push(PlayerSecret {
            name: p.name.clone(),
            side: p.side.clone(),
            addresses: p.addresses.clone(),
            secret,
        });
    }
    let settings = serde_json::json!({ "last_turn": opened.last_turn }).to_string();
    let game = NewGame {
        name: name.to_string(),
        ruleset: ruleset.to_string(),
        scenario_name: opened.scenario_name.clone(),
        scenario_toml: text.to_string(),
        seed,
        created_at: now,
        umpire_address: opened.umpire.clone(),
        settings_json: settings,
        sides: opened.sides.clone(),
        players,
        officers: Vec::new(),
        units: Vec::new(),
        initial_state_json: opened.state_json.clone(),
        first_deadline_at: None,
        grace_secs: 0,
    };
    Ok((
        game,
        CreatedGame {
            name: name.to_string(),
            scenario_name: opened.scenario_name,
            players: secrets,
            not_in_roster: Vec::new(),
        },
        not_in_roster,
    ))
}

/// A player who reads reports: row id, name, side, time zone.
struct Reader {
    id: i64,
    name: String,
    side_row: i64,
    side: String,
    time_zone: String,
}

fn readers(tx: &Transaction<'_>, game: GameId) -> Result<Vec<Reader>, rusqlite::Error> {
    let mut st = tx.prepare(
        "SELECT p.id, p.name, s.id, s.name, p.time_zone FROM players p
         JOIN sides s ON s.id = p.side_id
         WHERE p.game_id = ?1 AND p.status = 'active' ORDER BY p.id",
    )?;
    st.query_map([game.0], |r| {
        Ok(Reader {
            id: r.get(0)?,
            name: r.get(1)?,
            side_row: r.get(2)?,
            side: r.get(3)?,
            time_zone: r.get(4)?,
        })
    })?
    .collect()
}

/// Text for HTML: `&`, `<`, `>` and `"` escaped.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A report as mail: the ruleset's content with the envelope every report
/// has (how to answer, the deadline in the player's zone), as text, HTML
/// with the map inline, and the map as PNG.
struct Letter {
    text: String,
    html: String,
    png: Vec<u8>,
    svg: String,
}

fn letter(
    title: &str,
    content: &ReportContent,
    footer: &str,
) -> Result<Letter, crate::report::ReportError> {
    let text = format!("{title}\n\n{}\n{footer}", content.text.trim_end());
    let html = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{t}</title></head><body><h1>{t}</h1>{body}<div class=\"map\">{svg}</div><pre>{foot}</pre></body></html>",
        t = esc(title),
        body = content.html,
        svg = content.svg,
        foot = esc(footer)
    );
    let png = crate::report::svg_to_png(&content.svg)?;
    Ok(Letter {
        text,
        html,
        png,
        svg: content.svg.clone(),
    })
}

/// How to answer: the reply address, the deadline, READY, REPORT.
fn footer(reply_to: &str, deadline: &str, turn: u32, help: &str) -> String {
    format!(
        "\n{help}\nOrders for turn {turn}: answer this mail (or write to {reply_to}).\n\
         Deadline: {deadline}\n\
         REPORT n on a line of its own asks for your report of turn n again (REPORT 0: this briefing).\n"
    )
}

fn deadline_words(deadline_at: Option<i64>, zone: &str) -> String {
    match deadline_at {
        Some(ts) => format_local(ts, zone),
        None => "none set: the turn runs as soon as every player has sent READY".to_string(),
    }
}

/// Every player's briefing of a new game, stored as his report of turn 1
/// (`REPORT 0`), and the umpire's. Returns how many mails were queued.
pub fn issue_briefings(
    tx: &Transaction<'_>,
    game_id: GameId,
    engine: &dyn MailEngine,
    mail: &ReportMail,
    now: i64,
) -> Result<usize, TurnCycleError> {
    let (game, text, umpire): (String, String, Option<String>) = tx.query_row(
        "SELECT name, scenario_toml, umpire_address FROM games WHERE id = ?1",
        [game_id.0],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let (turn_id, number, deadline_at, state): (i64, u32, Option<i64>, String) = tx.query_row(
        "SELECT id, number, deadline_at, state_json FROM turns
         WHERE game_id = ?1 AND superseded_at IS NULL ORDER BY number DESC LIMIT 1",
        [game_id.0],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    let eng = |source| TurnCycleError::MailEngine {
        turn: number,
        source,
    };
    let mut queued = 0;
    for reader in readers(tx, game_id)? {
        let content = engine
            .side_report(&text, &state, None, &reader.side)
            .map_err(eng)?;
        let help = engine
            .order_help(&text, &state, &reader.side)
            .map_err(eng)?;
        let reply = super::reports::reply_address(mail, &game, &reader.name, number)
            .map_err(|e| report_err(number, e.into()))?;
        let foot = footer(
            &reply,
            &deadline_words(deadline_at, &reader.time_zone),
            number,
            &help,
        );
        let title = format!("{game}: briefing for {}", reader.name);
        let l = letter(&title, &content, &foot).map_err(|e| report_err(number, e.into()))?;
        let report_id = store_report(tx, game_id, turn_id, Some(&reader), &l, now)?;
        let to = live_addresses(tx, reader.id)?;
        if to.is_empty() {
            continue;
        }
        let id = format!("{number}-{}", reader.name);
        let png_name = format!("{game}-briefing-{}.png", reader.side.to_lowercase());
        let outbound = queue_letter(
            tx,
            mail,
            &ReportLetter {
                game: &game,
                game_id,
                kind: "briefing",
                id: &id,
                to: &to,
                subject: &title,
                text: &l.text,
                html: Some(&l.html),
                png: Some(&l.png),
                png_name: Some(&png_name),
                reply_token_for: Some((&reader.name, number)),
                now,
            },
        )
        .map_err(|e| report_err(number, e.into()))?;
        super::reports::link_mail(tx, report_id, outbound)?;
        queued += 1;
    }
    if let Some(u) = umpire.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
        let content = engine.umpire_report(&text, &state, None).map_err(eng)?;
        let title = format!("{game}: umpire's briefing");
        let l = letter(&title, &content, "").map_err(|e| report_err(number, e.into()))?;
        let report_id = store_report(tx, game_id, turn_id, None, &l, now)?;
        let head = UmpireLetter {
            game: &game,
            game_id,
            kind: "umpire-briefing",
            to: u,
            title: &title,
            turn: number,
            suffix: "",
            now,
        };
        mail_umpire(tx, mail, &head, &l, report_id).map_err(|e| report_err(number, e))?;
        queued += 1;
    }
    Ok(queued)
}

/// The envelope of a letter to the umpire.
struct UmpireLetter<'a> {
    game: &'a str,
    game_id: GameId,
    kind: &'a str,
    to: &'a str,
    title: &'a str,
    /// The turn his reply token is for (and the Message-ID's last part).
    turn: u32,
    /// After the turn in the Message-ID: `.<row id>` for a turn number
    /// adjudicated more than once (REDO, ROLLBACK), else empty.
    suffix: &'a str,
    now: i64,
}

/// Queues a stored report to the umpire, with his reply token.
fn mail_umpire(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    h: &UmpireLetter<'_>,
    l: &Letter,
    report_id: i64,
) -> Result<(), super::reports::ReportsError> {
    let to = vec![h.to.to_string()];
    let id = format!("{}{}", h.turn, h.suffix);
    let outbound = queue_umpire_letter(
        tx,
        mail,
        &ReportLetter {
            game: h.game,
            game_id: h.game_id,
            kind: h.kind,
            id: &id,
            to: &to,
            subject: h.title,
            text: &l.text,
            html: Some(&l.html),
            png: Some(&l.png),
            png_name: Some("umpire-map.png"),
            reply_token_for: None,
            now: h.now,
        },
        h.turn,
    )?;
    super::reports::link_mail(tx, report_id, outbound)?;
    Ok(())
}

fn report_err(turn: u32, source: super::reports::ReportsError) -> TurnCycleError {
    TurnCycleError::Reports { turn, source }
}

fn store_report(
    tx: &Transaction<'_>,
    game_id: GameId,
    turn_id: i64,
    reader: Option<&Reader>,
    l: &Letter,
    now: i64,
) -> Result<i64, rusqlite::Error> {
    crate::store::insert_report(
        tx,
        &crate::store::NewReport {
            game_id: game_id.0,
            turn_id,
            player_id: reader.map(|r| r.id),
            side_id: reader.map(|r| r.side_row),
            text: &l.text,
            html: &l.html,
            map_base: Some(&l.svg),
            created_at: now,
        },
    )
}

// ----- intake -----

/// What a line of an order mail asks of the lifecycle rather than of the
/// ruleset: READY, REPORT [n], HISTORY [a[-b]].
#[derive(Debug, Default)]
struct Control {
    ready: bool,
    report: Option<Option<u32>>,
    history: Option<(Option<u32>, Option<u32>)>,
}

/// The forms of a letter around orders, which are not orders: "Sir,",
/// "General,", "Respectfully,", "Your obedient servant", a signature.
fn courtesy(line: &str) -> bool {
    let t = line.trim().to_lowercase();
    let t = t.trim_end_matches([',', '.', '!']);
    const OPEN: &[&str] = &[
        "sir",
        "general",
        "gentlemen",
        "my dear general",
        "dear sir",
        "respectfully",
        "your obedient servant",
        "i remain your obedient servant",
        "i have the honor to be",
        "yours respectfully",
        "very respectfully",
        "god speed",
    ];
    OPEN.contains(&t) || t.starts_with("your obedient servant") || t.starts_with("i have the honor")
}

/// Takes the control lines out of `line` (a trimmed mail line), if it is one.
fn control_line(line: &str, c: &mut Control) -> bool {
    if courtesy(line) {
        return true;
    }
    let t = line.trim().trim_end_matches('.');
    let mut words = t.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let rest: Vec<&str> = words.collect();
    match first.to_ascii_uppercase().as_str() {
        "READY" if rest.is_empty() => {
            c.ready = true;
            true
        }
        "REPORT" if rest.len() <= 1 => match rest.first() {
            None => {
                c.report = Some(None);
                true
            }
            Some(n) => match n.parse::<u32>() {
                Ok(n) => {
                    c.report = Some(Some(n));
                    true
                }
                Err(_) => false,
            },
        },
        "HISTORY" if rest.len() <= 1 => {
            let range = rest.first().map(|r| {
                let (a, b) = r.split_once('-').unwrap_or((r, r));
                (a.parse().ok(), b.parse().ok())
            });
            c.history = Some(range.unwrap_or((None, None)));
            true
        }
        _ => false,
    }
}

/// Reads an accepted order mail of a game played through `engine`, in the
/// mail's transaction: the orders understood are kept (`engine_orders`),
/// READY counts when nothing in the mail was refused, and the receipt reads
/// the orders back and lists each line not understood with a suggestion —
/// in the side's own words, never naming an enemy it has not seen (the
/// ruleset's duty, [`MailEngine::read_orders`]).
pub fn handle_mail(
    tx: &Transaction<'_>,
    ctx: &SubmissionContext<'_>,
    engine: &dyn MailEngine,
    mail: Option<&ReportMail>,
) -> Result<Receipt, IntakeError> {
    let sql = IntakeError::Sqlite;
    let text = scenario_toml(tx, ctx.game).map_err(sql)?;
    let state: String = tx
        .query_row(
            "SELECT state_json FROM turns WHERE id = ?1",
            [ctx.turn_id],
            |r| r.get(0),
        )
        .map_err(sql)?;
    // The body given to the ruleset keeps the mail's own line numbers:
    // each cleaned line at the line the player wrote it on, control lines
    // (READY, REPORT, HISTORY) taken out.
    let mut control = Control::default();
    let mut lines: Vec<String> = Vec::new();
    for (i, line) in ctx.text.lines().enumerate() {
        let at = ctx.mail_line(i + 1).max(1);
        if lines.len() < at {
            lines.resize(at, String::new());
        }
        // His signature (his own name on a line) is not an order either.
        let signed = line.trim().eq_ignore_ascii_case(ctx.player_name);
        if !signed && !control_line(line, &mut control) {
            lines[at - 1] = line.to_string();
        }
    }
    let body = lines.join("\n");
    let read = engine
        .read_orders(&text, &state, ctx.side, &body)
        .map_err(|e| IntakeError::Handler(e.to_string()))?;
    if read.orders > 0 {
        tx.prepare_cached(
            "INSERT INTO engine_orders (game_id, submission_id, player_id, turn, orders_json)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .and_then(|mut st| {
            st.execute(params![
                ctx.game.0,
                ctx.submission_id,
                ctx.player_id,
                ctx.counts_for_turn,
                read.orders_json
            ])
        })
        .map_err(sql)?;
    }
    // Umpired game: each line the ruleset could not read goes to the umpire
    // to interpret (as Iron Brigade's paragraphs, `game::interpretation`);
    // without an umpire the receipt's error is the answer.
    let forwarded =
        if !read.errors.is_empty() && super::interpretation::umpired(tx, ctx.game).map_err(sql)? {
            forward(tx, ctx, engine, &text, &state, &body, &read.errors, mail)?
        } else {
            Vec::new()
        };
    let refused = !read.errors.is_empty() && forwarded.is_empty();
    let ready_counts = control.ready && !refused;
    if ready_counts {
        tx.prepare_cached("UPDATE submissions SET ready = 1 WHERE id = ?1")
            .and_then(|mut st| st.execute([ctx.submission_id]))
            .map_err(sql)?;
    }
    let counts =
        read.orders > 0 || control.ready || control.report.is_some() || control.history.is_some();
    let status = match (refused, counts) {
        (false, _) => "accepted",
        (true, true) => "partial",
        (true, false) => "refused",
    };
    tx.prepare_cached("UPDATE submissions SET status = ?2 WHERE id = ?1")
        .and_then(|mut st| st.execute(params![ctx.submission_id, status]))
        .map_err(sql)?;
    let sent = super::resend::answer_requests(tx, ctx, mail, control.report, control.history)?;

    let mut r = String::new();
    let _ = writeln!(
        r,
        "Your mail {} counts for turn {} of {}.\n",
        ctx.public_id, ctx.counts_for_turn, ctx.game_name
    );
    if ctx.late {
        let _ = writeln!(
            r,
            "It came after turn {}'s deadline, so its orders are for turn {}.\n",
            ctx.counts_for_turn.saturating_sub(1),
            ctx.counts_for_turn
        );
    }
    if read.orders > 0 {
        r.push_str("Your orders, as read:\n");
        r.push_str(&read.read_back);
        let _ = writeln!(
            r,
            "\nThese replace any orders you sent earlier for turn {} (the latest mail with orders counts).",
            ctx.counts_for_turn
        );
    } else if !read.read_back.trim().is_empty() {
        r.push_str("Read:\n");
        r.push_str(&read.read_back);
    } else {
        let _ = writeln!(
            r,
            "No orders in this mail: any you sent earlier for turn {} still stand.",
            ctx.counts_for_turn
        );
    }
    if !forwarded.is_empty() {
        r.push_str(
            "\nSent to the umpire to interpret (Adjutant could not read them as orders;\n\
             you will be told what he makes of each):\n",
        );
        for f in &forwarded {
            let _ = writeln!(
                r,
                "  ? [{}] line {}: {}\n    in: {}",
                f.id, f.error.line, f.error.message, f.line
            );
        }
    } else if !read.errors.is_empty() {
        r.push_str("\nNOT understood (these lines do not count; everything above does):\n");
        for e in &read.errors {
            let _ = writeln!(r, "  - line {}, column {}: {}", e.line, e.column, e.message);
        }
    }
    if control.ready {
        if ready_counts {
            r.push_str(
                "\nREADY: counted. The turn runs when every player is ready, or at the deadline.\n",
            );
        } else {
            r.push_str("\nREADY: NOT counted, because a line above was not understood; mail again with it put right and READY.\n");
        }
    }
    if !sent.is_empty() {
        r.push_str("\nReports asked for:\n");
        for s in &sent {
            let _ = writeln!(r, "  * {s}");
        }
    }
    let _ = writeln!(r, "\n{}", super::deadline_line::deadline_line(tx, ctx)?);
    Ok(Receipt {
        subject: format!(
            "Orders received: {} turn {} ({})",
            ctx.game_name, ctx.counts_for_turn, ctx.public_id
        ),
        text: r,
    })
}

/// A line of an order mail sent to the umpire to interpret.
struct ForwardedLine {
    id: String,
    line: String,
    error: crate::rules::MailLineError,
}

/// Stores each line the ruleset could not read in `interpretations` (with
/// the player's units it names, as his side knows them) and mails it to
/// the umpire, in the mail's transaction. What the umpire gets may name
/// anything; what goes back to the player is only his id and his words.
#[allow(clippy::too_many_arguments)]
fn forward(
    tx: &Transaction<'_>,
    ctx: &SubmissionContext<'_>,
    engine: &dyn MailEngine,
    text: &str,
    state: &str,
    body: &str,
    errors: &[crate::rules::MailLineError],
    mail: Option<&ReportMail>,
) -> Result<Vec<ForwardedLine>, IntakeError> {
    let sql = IntakeError::Sqlite;
    let lines: Vec<&str> = body.lines().collect();
    // His side's units, in the ruleset's summary, to show the umpire those
    // the line names.
    let own: Vec<String> = engine
        .units(text, state)
        .map_err(|e| IntakeError::Handler(e.to_string()))?
        .into_iter()
        .filter(|s| s.side.eq_ignore_ascii_case(ctx.side))
        .flat_map(|s| s.units)
        .collect();
    let umpire: Option<String> = tx
        .query_row(
            "SELECT umpire_address FROM games WHERE id = ?1",
            [ctx.game.0],
            |r| r.get(0),
        )
        .map_err(sql)?;
    let umpire = umpire
        .map(|u| u.trim().to_string())
        .filter(|u| !u.is_empty());
    let mut out = Vec::new();
    for e in errors {
        let line = lines
            .get(e.line.saturating_sub(1))
            .map_or("", |l| l.trim())
            .to_string();
        let n: i64 = tx
            .query_row(
                "SELECT count(*) + 1 FROM interpretations WHERE game_id = ?1",
                [ctx.game.0],
                |r| r.get(0),
            )
            .map_err(sql)?;
        let id = format!("F{}-{n}", ctx.game.0);
        let lower = line.to_lowercase();
        let named: Vec<&String> = own
            .iter()
            .filter(|u| {
                u.split(':')
                    .next()
                    .is_some_and(|name| lower.contains(&name.trim().to_lowercase()))
            })
            .collect();
        let situation = if named.is_empty() {
            "Unit: none of his units could be recognised in it\n".to_string()
        } else {
            named.iter().map(|u| format!("Unit: {u}\n")).collect()
        };
        tx.execute(
            "INSERT INTO interpretations (public_id, game_id, submission_id, player_id, turn,
                                          paragraph, parser_message, situation, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                id,
                ctx.game.0,
                ctx.submission_id,
                ctx.player_id,
                ctx.counts_for_turn,
                line,
                e.message,
                situation,
                ctx.received_at
            ],
        )
        .map_err(sql)?;
        if let (Some(mail), Some(to)) = (mail, &umpire) {
            let body = format!(
                "{player} wrote a line for turn {turn} of {game} that Adjutant could not read as an order.\n\
                 It needs your interpretation.\n\n\
                 Id: {id}\n\n\
                 His words:\n{words}\n\n\
                 What the parser said: line {l}, column {c}: {m}\n\n\
                 His units it names, as his side knows them:\n{situation}\n\
                 Answer with one of:\n  INTERPRET {id}: <the order in the order language, as he would write it>\n  REJECT {id}: \"<why>\"\n",
                player = ctx.player_name,
                turn = ctx.counts_for_turn,
                game = ctx.game_name,
                words = super::interpretation::indent(&line),
                l = e.line,
                c = e.column,
                m = e.message,
            );
            super::interpretation::letter(
                tx,
                ctx.game,
                ctx.game_name,
                "needs-interpretation",
                &id,
                std::slice::from_ref(to),
                &format!(
                    "{}: {}'s order {id} needs interpretation",
                    ctx.game_name, ctx.player_name
                ),
                &body,
                mail,
                ctx.received_at,
            )
            .map_err(|e| IntakeError::Handler(e.to_string()))?;
        }
        out.push(ForwardedLine {
            id,
            line,
            error: e.clone(),
        });
    }
    Ok(out)
}

/// The umpire's INTERPRET of a line of a game played through a mail plane,
/// read by the ruleset as the player's own order against the open turn.
pub struct Interpreted {
    /// The orders as read back to the player, in his side's words.
    pub read_back: String,
    /// The open turn the order counts for.
    pub turn: u32,
    pub submission_id: i64,
}

/// Reads `order` (the umpire's words) as an order of `player_id`'s `side`
/// against the open turn and records it in `engine_orders` through an
/// umpire-entered submission: it counts after the orders of his latest mail
/// for that turn ([`turn_orders`]). `Err(Ok(message))`: the text does not
/// read as an order (the umpire's to put right).
pub fn interpret(
    tx: &Transaction<'_>,
    engine: &dyn MailEngine,
    game_id: GameId,
    player_id: i64,
    side: &str,
    order: &str,
    now: i64,
) -> Result<Result<Interpreted, String>, TurnCycleError> {
    let (turn_id, number, state): (i64, u32, String) = tx
        .query_row(
            "SELECT id, number, state_json FROM turns
             WHERE game_id = ?1 AND status IN ('open', 'held') AND superseded_at IS NULL
             ORDER BY number DESC LIMIT 1",
            [game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .ok_or_else(|| TurnCycleError::NoOpenTurn(game_id.0.to_string()))?;
    let text = scenario_toml(tx, game_id)?;
    let read = engine
        .read_orders(&text, &state, side, order)
        .map_err(|source| TurnCycleError::MailEngine {
            turn: number,
            source,
        })?;
    if let Some(e) = read.errors.first() {
        return Ok(Err(format!(
            "line {}, column {}: {}",
            e.line, e.column, e.message
        )));
    }
    if read.orders == 0 {
        return Ok(Err(
            "it holds no order; write it in the order language, as the player would".into(),
        ));
    }
    let (submission_id, _) = super::book::record_direct_submission(
        tx, game_id, player_id, turn_id, now,
    )
    .map_err(|e| match e {
        super::book::BookError::Sql(e) => TurnCycleError::from(e),
        // Only units and officers can be unknown, and none is named.
        other => TurnCycleError::MailEngine {
            turn: number,
            source: crate::rules::MailEngineError::Turn(other.to_string()),
        },
    })?;
    tx.execute(
        "INSERT INTO engine_orders (game_id, submission_id, player_id, turn, orders_json)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            game_id.0,
            submission_id,
            player_id,
            number,
            read.orders_json
        ],
    )?;
    Ok(Ok(Interpreted {
        read_back: read.read_back,
        turn: number,
        submission_id,
    }))
}

// ----- the turn -----

/// Each player's latest orders for turn `number`, as `(side, orders_json)`
/// in player order (module doc of migration 0012: the latest mail with
/// orders wins).
pub fn turn_orders(
    tx: &Transaction<'_>,
    game_id: GameId,
    number: u32,
) -> Result<Vec<(String, String)>, rusqlite::Error> {
    // Each player's latest mail with orders for the turn, then every order
    // the umpire entered for him by INTERPRET after it (the latest order to
    // a unit wins in the engine).
    let mut st = tx.prepare_cached(
        "WITH live AS (
             SELECT * FROM engine_orders
             WHERE game_id = ?1 AND turn = ?2
               AND id NOT IN (SELECT order_id FROM engine_orders_set_aside)),
         umpired AS (
             SELECT answer_submission_id AS sid FROM interpretations
             WHERE game_id = ?1 AND answer_submission_id IS NOT NULL),
         latest AS (
             SELECT player_id, max(id) AS id FROM live
             WHERE submission_id NOT IN (SELECT sid FROM umpired) GROUP BY player_id)
         SELECT s.name, e.orders_json FROM live e
         JOIN players p ON p.id = e.player_id JOIN sides s ON s.id = p.side_id
         WHERE e.id = (SELECT id FROM latest l WHERE l.player_id = e.player_id)
            OR (e.submission_id IN (SELECT sid FROM umpired)
                AND e.id > coalesce((SELECT id FROM latest l WHERE l.player_id = e.player_id), 0))
         ORDER BY e.player_id, e.id",
    )?;
    st.query_map(params![game_id.0, number], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// What one resolved turn gives the store and replay.
pub struct EngineAdjudication {
    pub resolved: crate::rules::Resolved,
    /// seq 0 `turn-input`, then the engine's events.
    pub events: Vec<EventRow>,
    pub rolls: Vec<RollRow>,
}

/// The engine call shared by processing and replay: the orders as given,
/// the dice as rolled. Pure.
pub fn adjudicate(
    engine: &dyn MailEngine,
    scenario: &str,
    turn: u32,
    state_json: &str,
    orders: &[(String, String)],
    dice: &mut dyn DiceSource,
    umpire: bool,
) -> Result<EngineAdjudication, TurnCycleError> {
    let resolved = engine
        .resolve(scenario, state_json, orders, dice)
        .map_err(|source| TurnCycleError::MailEngine { turn, source })?;
    let input: Vec<(String, serde_json::Value)> = orders
        .iter()
        .map(|(s, o)| {
            (
                s.clone(),
                serde_json::from_str(o).unwrap_or(serde_json::Value::Null),
            )
        })
        .collect();
    let mut events = vec![EventRow {
        seq: 0,
        kind: "turn-input".into(),
        data_json: serde_json::json!({ "orders": input }).to_string(),
    }];
    for e in &resolved.events {
        events.push(EventRow {
            seq: i64::try_from(events.len()).unwrap_or(i64::MAX),
            kind: e.kind.clone(),
            data_json: e.data_json.clone(),
        });
    }
    let rolls = roll_rows(dice.log(), umpire);
    Ok(EngineAdjudication {
        resolved,
        events,
        rolls,
    })
}

/// The orders a processed attempt was given (its `turn-input` event), as
/// `(side, orders_json)`, for replay.
pub fn input_orders(data_json: &str) -> Option<Vec<(String, String)>> {
    let v: serde_json::Value = serde_json::from_str(data_json).ok()?;
    let list = v.get("orders")?.as_array()?;
    list.iter()
        .map(|pair| {
            let side = pair.get(0)?.as_str()?.to_string();
            Some((side, pair.get(1)?.to_string()))
        })
        .collect()
}

/// The corrections (`correction_json`, oldest first) that apply to attempt
/// `turn_id` of a game played through a mail plane: those made on it while
/// it was open, and every one made on the attempts it re-adjudicates
/// (`redo_of`, transitively; made while open or held). Shared by
/// processing, REDO and replay.
pub fn corrections_for(
    c: &rusqlite::Connection,
    turn_id: i64,
) -> Result<Vec<String>, rusqlite::Error> {
    let mut st = c.prepare_cached(
        "WITH RECURSIVE lineage(id) AS (
             SELECT ?1
             UNION ALL
             SELECT t.redo_of FROM turns t JOIN lineage l ON t.id = l.id
             WHERE t.redo_of IS NOT NULL)
         SELECT correction_json FROM engine_corrections
         WHERE turn_id IN (SELECT id FROM lineage)
           AND (turn_id <> ?1 OR made_while = 'open')
         ORDER BY id",
    )?;
    st.query_map([turn_id], |r| r.get(0))?.collect()
}

/// The corrections made on held attempt `turn_id`, for its REDO.
pub fn made_while_held(
    c: &rusqlite::Connection,
    turn_id: i64,
) -> Result<Vec<String>, rusqlite::Error> {
    let mut st = c.prepare_cached(
        "SELECT correction_json FROM engine_corrections
         WHERE turn_id = ?1 AND made_while = 'held' ORDER BY id",
    )?;
    st.query_map([turn_id], |r| r.get(0))?.collect()
}

/// `state_json` with `corrections` applied in order. Pure.
pub fn corrected_state(
    engine: &dyn MailEngine,
    scenario: &str,
    state_json: &str,
    corrections: &[String],
) -> Result<String, crate::rules::MailEngineError> {
    let mut state = state_json.to_string();
    for c in corrections {
        state = engine.apply_correction(scenario, &state, c)?;
    }
    Ok(state)
}

/// An umpire's correction as the store keeps it.
pub struct NewCorrection<'a> {
    pub game_id: GameId,
    pub turn_id: i64,
    /// Made on a held attempt (takes effect at REDO) or on the open one.
    pub held: bool,
    pub correction: &'a crate::rules::EngineCorrection,
    pub reason: &'a str,
    pub actor: &'a str,
    pub now: i64,
}

/// Records a correction the ruleset has read and checked.
pub fn record_correction(
    tx: &Transaction<'_>,
    c: &NewCorrection<'_>,
) -> Result<(), rusqlite::Error> {
    tx.execute(
        "INSERT INTO engine_corrections (game_id, turn_id, made_while, unit, field, correction_json,
                                         value, previous, reason, actor, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            c.game_id.0,
            c.turn_id,
            if c.held { "held" } else { "open" },
            c.correction.unit,
            c.correction.field,
            c.correction.correction_json,
            c.correction.value,
            c.correction.previous,
            c.reason.trim(),
            c.actor,
            c.now
        ],
    )?;
    Ok(())
}

/// The orders attempt `turn_id` was given (its `turn-input` event), for a
/// REDO of it.
pub fn attempt_input(
    c: &rusqlite::Connection,
    turn_id: i64,
) -> Result<Option<Vec<(String, String)>>, rusqlite::Error> {
    let json: Option<String> = c
        .query_row(
            "SELECT data_json FROM events WHERE turn_id = ?1 AND seq = 0 AND kind = 'turn-input'",
            [turn_id],
            |r| r.get(0),
        )
        .optional()?;
    Ok(json.as_deref().and_then(input_orders))
}

/// Processes the open turn of a game played through `engine`, inside the
/// caller's transaction (see [`super::turn::process_turn`]).
#[allow(clippy::too_many_arguments)]
pub fn process(
    tx: &Transaction<'_>,
    engine: &dyn MailEngine,
    game: &str,
    game_id: GameId,
    game_seed: &[u8; 32],
    mail: &ReportMail,
    now: i64,
) -> Result<TurnProcessed, TurnCycleError> {
    if let Some(held) = held_turn(tx, game_id)? {
        return Err(TurnCycleError::Held {
            game: game.to_string(),
            turn: held,
        });
    }
    let row: Option<(i64, u32, Option<i64>)> = tx
        .query_row(
            "SELECT id, number, redo_of FROM turns
             WHERE game_id = ?1 AND status = 'open' AND superseded_at IS NULL",
            [game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let (turn_id, number, redo_of) =
        row.ok_or_else(|| TurnCycleError::NoOpenTurn(game.to_string()))?;
    // A REDO waiting for umpire dice re-adjudicates with the orders its
    // original was given; otherwise each player's latest orders.
    let orders = match redo_of {
        Some(original) => attempt_input(tx, original)?.unwrap_or_default(),
        None => turn_orders(tx, game_id, number)?,
    };
    run_attempt(
        tx, engine, game, game_id, game_seed, mail, now, turn_id, &orders,
    )
}

/// Adjudicates the open attempt `turn_id` with `orders` from its stored
/// start state with the umpire's corrections applied, and writes it all:
/// events and dice, the attempt closed (released, or held in an umpired
/// game), the next turn opened, the reports made (and queued, or held).
/// Shared by processing and the umpire's REDO.
#[allow(clippy::too_many_arguments)]
pub fn run_attempt(
    tx: &Transaction<'_>,
    engine: &dyn MailEngine,
    game: &str,
    game_id: GameId,
    game_seed: &[u8; 32],
    mail: &ReportMail,
    now: i64,
    turn_id: i64,
    orders: &[(String, String)],
) -> Result<TurnProcessed, TurnCycleError> {
    let (number, stored_json, grace_secs): (u32, String, i64) = tx.query_row(
        "SELECT number, state_json, grace_secs FROM turns WHERE id = ?1",
        [turn_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let text = scenario_toml(tx, game_id)?;
    let state_json = corrected_state(engine, &text, &stored_json, &corrections_for(tx, turn_id)?)
        .map_err(|source| TurnCycleError::MailEngine {
        turn: number,
        source,
    })?;
    let seed = turn_seed(game_seed, number);
    let adj = if umpire_dice::umpire_mode(tx, game_id.0)? {
        let mut dice = UmpireDice::new(umpire_dice::given_dice(tx, turn_id)?);
        let result = adjudicate(engine, &text, number, &state_json, orders, &mut dice, true);
        if dice.needs_more() {
            let wanted =
                umpire_dice::request(tx, game, game_id.0, turn_id, number, &dice, mail, now)?;
            return Ok(TurnProcessed {
                game: game.to_string(),
                turn: number,
                events: 0,
                rolls: dice.usable(),
                next_turn: number,
                state_hash: String::new(),
                held: false,
                dice_wanted: wanted,
            });
        }
        result?
    } else {
        adjudicate(
            engine,
            &text,
            number,
            &state_json,
            orders,
            &mut StreamDice::new(seed),
            false,
        )?
    };
    let (held, state_hash) = record_attempt(
        tx,
        &Attempt {
            game_id,
            turn_id,
            number,
            grace_secs,
            game_seed,
            events: &adj.events,
            rolls: &adj.rolls,
            next_json: &adj.resolved.state_json,
            now,
        },
    )?;
    let next_number = number + 1;
    let new_turn_id = tx.last_insert_rowid();
    issue_reports(
        tx,
        engine,
        game,
        game_id,
        &text,
        &adj.resolved,
        new_turn_id,
        next_number,
        held.then_some(turn_id),
        mail,
        now,
    )?;
    if adj.resolved.verdict.is_some() && !held {
        super::ending::finish(tx, game_id, number, now)?;
    }
    Ok(TurnProcessed {
        game: game.to_string(),
        turn: number,
        events: adj.events.len(),
        rolls: adj.rolls.len(),
        next_turn: next_number,
        state_hash,
        held,
        dice_wanted: Vec::new(),
    })
}

/// Each player's report of the turn just played (stored with the turn it
/// opens, so `REPORT n` finds it) and the umpire's; queued, or in an
/// umpired game kept in `held_mail` for RELEASE.
#[allow(clippy::too_many_arguments)]
fn issue_reports(
    tx: &Transaction<'_>,
    engine: &dyn MailEngine,
    game: &str,
    game_id: GameId,
    text: &str,
    resolved: &crate::rules::Resolved,
    new_turn_id: i64,
    new_turn: u32,
    hold: Option<i64>,
    mail: &ReportMail,
    now: i64,
) -> Result<(), TurnCycleError> {
    let played = new_turn - 1;
    let eng = |source| TurnCycleError::MailEngine {
        turn: played,
        source,
    };
    let (deadline_at, umpire): (Option<i64>, Option<String>) = tx.query_row(
        "SELECT t.deadline_at, g.umpire_address FROM turns t JOIN games g ON g.id = t.game_id
         WHERE t.id = ?1",
        [new_turn_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let over = resolved.verdict.is_some();
    // A turn number adjudicated more than once (REDO, or again after a
    // ROLLBACK) gets Message-IDs of its own, so that no attempt's mail can
    // be taken for another's; the first keeps the plain, stable ids.
    let attempts: i64 = tx.query_row(
        "SELECT count(*) FROM turns WHERE game_id = ?1 AND number = ?2",
        params![game_id.0, new_turn],
        |r| r.get(0),
    )?;
    let suffix = if attempts > 1 {
        format!(".{new_turn_id}")
    } else {
        String::new()
    };
    for reader in readers(tx, game_id)? {
        let content = engine
            .side_report(
                text,
                &resolved.state_json,
                Some(&resolved.events_json),
                &reader.side,
            )
            .map_err(eng)?;
        let foot = if over {
            "\nThe game is over: no more orders are read.\n".to_string()
        } else {
            let reply = super::reports::reply_address(mail, game, &reader.name, new_turn)
                .map_err(|e| report_err(played, e.into()))?;
            let help = engine
                .order_help(text, &resolved.state_json, &reader.side)
                .map_err(eng)?;
            footer(
                &reply,
                &deadline_words(deadline_at, &reader.time_zone),
                new_turn,
                &help,
            )
        };
        let title = format!("{game}: turn {played} results for {}", reader.name);
        let l = letter(&title, &content, &foot).map_err(|e| report_err(played, e.into()))?;
        let report_id = store_report(tx, game_id, new_turn_id, Some(&reader), &l, now)?;
        let to = live_addresses(tx, reader.id)?;
        if to.is_empty() {
            continue;
        }
        let id = format!("{new_turn}-{}{suffix}", reader.name);
        let png_name = format!("{game}-turn{played}-{}.png", reader.side.to_lowercase());
        let letter = ReportLetter {
            game,
            game_id,
            kind: "report",
            id: &id,
            to: &to,
            subject: &title,
            text: &l.text,
            html: Some(&l.html),
            png: Some(&l.png),
            png_name: Some(&png_name),
            reply_token_for: Some((&reader.name, new_turn)),
            now,
        };
        match hold {
            None => {
                let outbound =
                    queue_letter(tx, mail, &letter).map_err(|e| report_err(played, e.into()))?;
                super::reports::link_mail(tx, report_id, outbound)?;
            }
            Some(held_turn) => {
                let m = compose_letter(mail, &letter, Vec::new())
                    .map_err(|e| report_err(played, e.into()))?;
                let recipients = serde_json::to_string(&m.recipients).unwrap_or_default();
                tx.execute(
                    "INSERT INTO held_mail (game_id, turn_id, report_id, kind, message_id, recipients_json, raw, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        game_id.0,
                        held_turn,
                        report_id,
                        m.kind,
                        m.message_id,
                        recipients,
                        m.raw,
                        m.created_at
                    ],
                )?;
            }
        }
    }
    if let Some(u) = umpire.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
        let content = engine
            .umpire_report(text, &resolved.state_json, Some(&resolved.events_json))
            .map_err(eng)?;
        let foot = if hold.is_some() {
            "\nThis turn is HELD: the players' reports go out when you answer RELEASE.\n"
        } else {
            ""
        };
        let title = format!("{game}: turn {played} (umpire)");
        let l = letter(&title, &content, foot).map_err(|e| report_err(played, e.into()))?;
        let report_id = store_report(tx, game_id, new_turn_id, None, &l, now)?;
        let head = UmpireLetter {
            game,
            game_id,
            kind: "umpire-report",
            to: u,
            title: &title,
            turn: new_turn,
            suffix: &suffix,
            now,
        };
        mail_umpire(tx, mail, &head, &l, report_id).map_err(|e| report_err(played, e))?;
    }
    Ok(())
}

/// Every side's units as the ruleset summarises them, from the state the
/// game stands at (its latest live turn's start state), for `game show`;
/// `None` for a game not played through a mail plane.
pub fn units_now(
    c: &rusqlite::Connection,
    game_id: GameId,
) -> Result<Option<Vec<crate::rules::SideUnits>>, TurnCycleError> {
    let Some(engine) = super::engine_seat::engine_of_game(c, game_id)? else {
        return Ok(None);
    };
    let (number, state): (u32, String) = c.query_row(
        "SELECT number, state_json FROM turns
         WHERE game_id = ?1 AND superseded_at IS NULL ORDER BY number DESC LIMIT 1",
        [game_id.0],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let text = scenario_toml(c, game_id)?;
    engine
        .units(&text, &state)
        .map(Some)
        .map_err(|source| TurnCycleError::MailEngine {
            turn: number,
            source,
        })
}

/// `brief_players` for a game played through a mail plane, in `store`.
pub fn brief(
    store: &mut Store,
    game_id: GameId,
    engine: &dyn MailEngine,
    mail: &ReportMail,
    now: i64,
) -> Result<usize, TurnCycleError> {
    let tx = store.transaction()?;
    let n = issue_briefings(&tx, game_id, engine, mail, now)?;
    tx.commit()?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_lines_are_taken_out() {
        let mut c = Control::default();
        assert!(control_line("READY", &mut c));
        assert!(control_line("report 3", &mut c));
        assert!(!control_line("Burnside: advance", &mut c));
        assert!(!control_line("ready the guns", &mut c));
        assert!(c.ready);
        assert_eq!(c.report, Some(Some(3)));
    }
}
