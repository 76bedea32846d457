//! The archive site of a game played through a ruleset's mail plane
//! (`rules::MailEngine`; SFRM at brigade scale): the same site's shape as
//! Iron Brigade's ([`super::export`]), drawn by the ruleset's own views.
//!
//! - `index.html`: the game, its players and an index of its turns;
//! - `turn-NNN.html`: the umpire's page of turn N — the umpire's report of
//!   the state after the turn (every unit, every event), the orders the
//!   engine was given, the dice with their purposes, the stored reports;
//! - `turn-NNN-side-S.html`: side S's page, made by
//!   [`MailEngine::side_report`] from the stored state and events only —
//!   the side's view, never the truth (its map and narrative name no enemy
//!   it has not seen).
//!
//! A pure function of the archive, as Iron Brigade's site is.

use super::ArchiveError;
use super::ExportSummary;
use super::load::{GameArchive, TurnRecord};
use crate::game::engine_game::esc;
use crate::rules::MailEngine;
use std::fmt::Write as _;
use std::path::Path;

const STYLE: &str = include_str!("../../templates/archive/style.css");

fn page(game: &str, title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{t}</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n\
         <header><a href=\"index.html\">{g}</a> › {t}</header>\n<main>\n{body}\n</main>\n\
         <footer>Adjutant game archive. Pages are written from the game's stored record alone.</footer>\n\
         </body>\n</html>\n",
        t = esc(title),
        g = esc(game)
    )
}

fn write(
    out: &Path,
    files: &mut Vec<String>,
    name: &str,
    bytes: &[u8],
) -> Result<(), ArchiveError> {
    let path = out.join(name);
    crate::fsutil::write_atomic(&path, bytes, None).map_err(|source| ArchiveError::Write {
        path: path.clone(),
        source,
    })?;
    files.push(name.to_string());
    Ok(())
}

/// The stored sides of the game's players, in the order first named.
fn sides(archive: &GameArchive) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for p in &archive.players {
        if !v.iter().any(|s| s.eq_ignore_ascii_case(&p.side)) {
            v.push(p.side.clone());
        }
    }
    v
}

/// The turn's events as the ruleset wrote them: the JSON array of its
/// `events` rows after `turn-input` (what `Resolved::events_json` holds).
fn events_json(archive: &GameArchive, turn: &TurnRecord) -> String {
    let rows: Vec<&str> = archive
        .events
        .get(&turn.id)
        .map(|rows| {
            rows.iter()
                .filter(|r| r.kind != "turn-input")
                .map(|r| r.data_json.as_str())
                .collect()
        })
        .unwrap_or_default();
    format!("[{}]", rows.join(","))
}

/// Writes the site of an engine-played `archive` into `out`.
pub fn export_engine_site(
    engine: &dyn MailEngine,
    archive: &GameArchive,
    out: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ExportSummary, ArchiveError> {
    std::fs::create_dir_all(out).map_err(|source| ArchiveError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    let mut files = Vec::new();
    write(out, &mut files, "style.css", STYLE.as_bytes())?;
    let game = archive.name.as_str();
    let text = archive.scenario_toml.as_str();
    let sides = sides(archive);
    let processed: Vec<&TurnRecord> = archive.turns.iter().filter(|t| t.is_processed()).collect();
    let total = processed.len();
    progress(0, total);
    let mut index_rows = String::new();
    for (i, turn) in processed.iter().enumerate() {
        let n = turn.number;
        let Some(next) = archive
            .turns
            .iter()
            .find(|t| t.prev_turn_id == Some(turn.id))
        else {
            continue;
        };
        let events = events_json(archive, turn);
        let bad = |e: crate::rules::MailEngineError| ArchiveError::Engine(format!("turn {n}: {e}"));
        // The umpire's page: the truth.
        let umpire = engine
            .umpire_report(text, &next.state_json, Some(&events))
            .map_err(bad)?;
        let mut body = format!(
            "<h1>Turn {n}</h1><section class=\"map\">{}</section>{}",
            umpire.svg, umpire.html
        );
        if let Some(input) = archive
            .events
            .get(&turn.id)
            .and_then(|r| r.first())
            .filter(|r| r.kind == "turn-input")
        {
            let _ = write!(
                body,
                "<h2>Orders the engine was given</h2><pre>{}</pre>",
                esc(&input.data_json)
            );
        }
        body.push_str("<h2>Dice</h2><table><tr><th>#</th><th>value</th><th>purpose</th><th>subject</th><th>source</th></tr>");
        for r in archive.rolls.get(&turn.id).map_or(&[][..], Vec::as_slice) {
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                r.seq,
                r.value,
                esc(&r.purpose),
                esc(r.subject.as_deref().unwrap_or("")),
                esc(&r.source)
            );
        }
        body.push_str("</table><h2>Reports sent</h2><ul>");
        for r in archive.reports.iter().filter(|r| r.turn_id == next.id) {
            let _ = write!(
                body,
                "<li>{}<pre>{}</pre></li>",
                esc(r.player.as_deref().unwrap_or("the umpire")),
                esc(&r.text)
            );
        }
        body.push_str("</ul><h2>Each side's view</h2><ul>");
        let mut side_links = Vec::new();
        for side in &sides {
            let file = format!("turn-{n:03}-side-{}.html", side.to_lowercase());
            let _ = write!(
                body,
                "<li><a href=\"{f}\">{s}</a></li>",
                f = esc(&file),
                s = esc(side)
            );
            // A side's page: its own view only.
            let view = engine
                .side_report(text, &next.state_json, Some(&events), side)
                .map_err(bad)?;
            let side_body = format!(
                "<h1>Turn {n}: the {s} side's view</h1><section class=\"map\">{}</section>{}",
                view.svg,
                view.html,
                s = esc(side)
            );
            write(
                out,
                &mut files,
                &file,
                page(game, &format!("turn {n}, {side}"), &side_body).as_bytes(),
            )?;
            side_links.push(format!("<a href=\"{}\">{}</a>", esc(&file), esc(side)));
        }
        body.push_str("</ul>");
        let file = format!("turn-{n:03}.html");
        write(
            out,
            &mut files,
            &file,
            page(game, &format!("turn {n}"), &body).as_bytes(),
        )?;
        let _ = write!(
            index_rows,
            "<tr><td><a href=\"{f}\">turn {n}</a></td><td>{}</td></tr>",
            side_links.join(" · "),
            f = esc(&file)
        );
        progress(i + 1, total);
    }
    let players: String = archive
        .players
        .iter()
        .map(|p| format!("<li>{} ({})</li>", esc(&p.name), esc(&p.side)))
        .collect();
    let index = format!(
        "<h1>{}</h1><p>Scenario: {} · status: {}</p><h2>Players</h2><ul>{players}</ul>\
         <h2>Turns</h2><table><tr><th>turn</th><th>sides</th></tr>{index_rows}</table>",
        esc(game),
        esc(&archive.scenario_name),
        esc(&archive.status)
    );
    write(
        out,
        &mut files,
        "index.html",
        page(game, "index", &index).as_bytes(),
    )?;
    Ok(ExportSummary {
        game: game.to_string(),
        out: out.to_path_buf(),
        turns: total,
        files,
        fog_lifted: archive.status == "finished",
    })
}
