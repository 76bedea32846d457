//! Orders an umpired game's parser could not read, sent to the umpire
//! (issue #8): each paragraph is stored in `interpretations` with the
//! unit's situation as the player's side knows it (never an enemy his side
//! cannot see, APSoF V.C.3) and mailed to the umpire, in the transaction of
//! the player's mail. The umpire's answers (INTERPRET, REJECT) are his
//! commands, in `umpire::turns::free_text`, above this layer.

use crate::game::report_mail::{ReportLetter, ReportMail, queue_letter};
use crate::orders::{OrderError, ParseContext};
use crate::rules::iron_brigade::state::UnitId;
use crate::store::GameId;
use rusqlite::{Transaction, params};
use std::fmt::Write as _;

/// Why a paragraph could not be forwarded.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    #[error("store: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("queueing the umpire's mail: {0}")]
    Mail(String),
}

/// A paragraph sent to the umpire: its public id and the error it had.
#[derive(Debug, Clone, PartialEq)]
pub struct Forwarded {
    pub id: String,
    pub error: OrderError,
}

/// Whether the game has an umpire.
pub fn umpired(tx: &Transaction<'_>, game: GameId) -> Result<bool, rusqlite::Error> {
    tx.query_row(
        "SELECT umpire_address IS NOT NULL FROM games WHERE id = ?1",
        [game.0],
        |r| r.get(0),
    )
}

/// What the paragraph's unit is doing, as the player's side knows it: the
/// unit (the first of his side's units named in the paragraph) and the
/// enemy units his side can see. Never an enemy his side cannot see.
pub fn situation(paragraph: &str, pctx: &ParseContext<'_>) -> String {
    let state = pctx.state;
    let lower = paragraph.to_lowercase();
    let mut names: Vec<(usize, UnitId)> = Vec::new();
    for u in state.units.iter().filter(|u| u.side == pctx.side) {
        if let Some(at) = lower.find(&u.name.to_lowercase()) {
            names.push((at, u.id));
        }
    }
    for (alias, id) in &pctx.aliases {
        let own = state.unit(*id).is_some_and(|u| u.side == pctx.side);
        if own && let Some(at) = find_word(&lower, &alias.to_lowercase()) {
            names.push((at, *id));
        }
    }
    names.sort();
    let mut t = String::new();
    match names.first().and_then(|(_, id)| state.unit(*id)) {
        Some(u) => {
            let _ = writeln!(
                t,
                "Unit: {} ({}, {} castings, combat morale {} of {}{}), {} at {:.1},{:.1} facing {:.0} degrees",
                u.name,
                u.arm,
                u.castings,
                u.combat_morale,
                u.base_morale,
                if u.broken { ", broken" } else { "" },
                u.formation,
                u.position.x,
                u.position.y,
                u.facing
            );
        }
        None => {
            let _ = writeln!(t, "Unit: none of his units could be recognised in it");
        }
    }
    let seen: Vec<String> = pctx
        .visible_enemies
        .iter()
        .filter_map(|id| state.unit(*id))
        .map(|e| {
            format!(
                "{} ({}) at {:.1},{:.1}",
                e.name, e.formation, e.position.x, e.position.y
            )
        })
        .collect();
    if seen.is_empty() {
        let _ = writeln!(t, "His side sees no enemy now.");
    } else {
        let _ = writeln!(t, "His side sees: {}", seen.join("; "));
    }
    t
}

/// `needle` in `hay` at a word boundary.
fn find_word(hay: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    hay.match_indices(needle).map(|(i, _)| i).find(|&i| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Called by the order handler of an umpired game: records each paragraph
/// the parser could not read for the umpire and, when the mail settings
/// are known, mails it to him. Returns the ids, in the errors' order.
#[allow(clippy::too_many_arguments)]
pub fn forward(
    tx: &Transaction<'_>,
    game: GameId,
    game_name: &str,
    submission_id: i64,
    player_id: i64,
    player_name: &str,
    turn: u32,
    errors: &[OrderError],
    pctx: &ParseContext<'_>,
    mail: Option<&ReportMail>,
    now: i64,
) -> Result<Vec<Forwarded>, ForwardError> {
    let mut out = Vec::new();
    for e in errors {
        let n: i64 = tx.query_row(
            "SELECT count(*) + 1 FROM interpretations WHERE game_id = ?1",
            [game.0],
            |r| r.get(0),
        )?;
        let id = format!("F{}-{n}", game.0);
        let situation = situation(&e.paragraph, pctx);
        tx.execute(
            "INSERT INTO interpretations (public_id, game_id, submission_id, player_id, turn,
                                          paragraph, parser_message, situation, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                id,
                game.0,
                submission_id,
                player_id,
                turn,
                e.paragraph,
                e.to_string(),
                situation,
                now
            ],
        )?;
        if let Some(mail) = mail {
            let text = format!(
                "{player_name} wrote a paragraph for turn {turn} of {game_name} that Adjutant could not read as an order.\n\
                 It needs your interpretation.\n\n\
                 Id: {id}\n\n\
                 His words:\n{}\n\n\
                 What the parser said: {e}\n\n\
                 The unit's situation as his side sees it:\n{situation}\n\
                 Answer with one of:\n  INTERPRET {id}: <the order in the order language>\n  REJECT {id}: \"<why>\"\n",
                indent(&e.paragraph)
            );
            umpire_mail(
                tx,
                game,
                game_name,
                "needs-interpretation",
                &id,
                &format!("{game_name}: {player_name}'s order {id} needs interpretation"),
                &text,
                mail,
                now,
            )?;
        }
        out.push(Forwarded {
            id,
            error: e.clone(),
        });
    }
    Ok(out)
}

/// Each line of `text` indented four spaces, as a quotation in a mail.
pub fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[allow(clippy::too_many_arguments)]
fn umpire_mail(
    tx: &Transaction<'_>,
    game: GameId,
    game_name: &str,
    kind: &str,
    id: &str,
    subject: &str,
    text: &str,
    mail: &ReportMail,
    now: i64,
) -> Result<(), ForwardError> {
    let to: Option<String> = tx.query_row(
        "SELECT umpire_address FROM games WHERE id = ?1",
        [game.0],
        |r| r.get(0),
    )?;
    let Some(to) = to.map(|a| a.trim().to_string()).filter(|a| !a.is_empty()) else {
        return Ok(());
    };
    letter(
        tx,
        game,
        game_name,
        kind,
        id,
        &[to],
        subject,
        text,
        mail,
        now,
    )
}

#[allow(clippy::too_many_arguments)]
pub fn letter(
    tx: &Transaction<'_>,
    game: GameId,
    game_name: &str,
    kind: &str,
    id: &str,
    to: &[String],
    subject: &str,
    text: &str,
    mail: &ReportMail,
    now: i64,
) -> Result<(), ForwardError> {
    queue_letter(
        tx,
        mail,
        &ReportLetter {
            game: game_name,
            game_id: game,
            kind,
            id,
            to,
            subject,
            text,
            html: None,
            png: None,
            png_name: None,
            reply_token_for: None,
            now,
        },
    )
    .map_err(|e| ForwardError::Mail(e.to_string()))?;
    Ok(())
}
