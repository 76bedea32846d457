//! Notices the umpire's commands send: to every active player (each in his
//! own time zone, with his reply token for the current turn) or to the
//! umpire. Queued in the caller's transaction, so a refused command or a
//! rolled-back mail sends nothing.

use crate::game::report_mail::{
    ReportLetter, ReportMail, ReportMailError, live_addresses, queue_letter, queue_umpire_letter,
};
use crate::store::GameId;
use rusqlite::{Transaction, params};

/// The number of the game's current turn (the one not yet released, else
/// the latest), for reply tokens.
pub fn current_turn_number(tx: &Transaction<'_>, game: GameId) -> Result<u32, rusqlite::Error> {
    tx.query_row(
        "SELECT number FROM turns WHERE game_id = ?1
         ORDER BY (status = 'released'), number DESC LIMIT 1",
        [game.0],
        |r| r.get(0),
    )
}

/// Queues one letter to each active player of `game` who can be reached;
/// `text_for(time_zone)` writes it in his zone. `id` makes the Message-IDs
/// unique (`<kind>.<game>.<id>-<player>@domain`). Returns how many went.
#[allow(clippy::too_many_arguments)]
pub fn to_players(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    game: &str,
    game_id: GameId,
    kind: &str,
    id: &str,
    subject: &str,
    now: i64,
    text_for: &dyn Fn(&str) -> String,
) -> Result<usize, ReportMailError> {
    let turn = current_turn_number(tx, game_id)?;
    let players: Vec<(i64, String, String)> = tx
        .prepare_cached(
            "SELECT id, name, time_zone FROM players
             WHERE game_id = ?1 AND status = 'active' ORDER BY id",
        )?
        .query_map(params![game_id.0], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<Result<_, _>>()?;
    let mut sent = 0;
    for (pid, name, zone) in players {
        let to = live_addresses(tx, pid)?;
        if to.is_empty() {
            continue;
        }
        let text = text_for(&zone);
        let letter_id = format!("{id}-{name}");
        queue_letter(
            tx,
            mail,
            &ReportLetter {
                game,
                game_id,
                kind,
                id: &letter_id,
                to: &to,
                subject,
                text: &text,
                html: None,
                png: None,
                png_name: None,
                reply_token_for: Some((&name, turn)),
                now,
            },
        )?;
        sent += 1;
    }
    Ok(sent)
}

/// Queues one letter (of kind `<kind>-umpire`) to the game's umpire, if it
/// has one, with his reply token. Returns whether one was queued.
#[allow(clippy::too_many_arguments)]
pub fn to_umpire(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    game: &str,
    game_id: GameId,
    kind: &str,
    id: &str,
    subject: &str,
    text: &str,
    now: i64,
) -> Result<bool, ReportMailError> {
    let address: Option<String> = tx.query_row(
        "SELECT umpire_address FROM games WHERE id = ?1",
        [game_id.0],
        |r| r.get(0),
    )?;
    let Some(address) = address.filter(|a| !a.trim().is_empty()) else {
        return Ok(false);
    };
    let to = vec![address];
    // Its own kind (`<kind>-umpire`), so its Message-ID can never equal a
    // player's letter of the same command, whatever the players are called.
    let kind = format!("{kind}-umpire");
    let turn = current_turn_number(tx, game_id)?;
    queue_umpire_letter(
        tx,
        mail,
        &ReportLetter {
            game,
            game_id,
            kind: &kind,
            id,
            to: &to,
            subject,
            text,
            html: None,
            png: None,
            png_name: None,
            reply_token_for: None,
            now,
        },
        turn,
    )?;
    Ok(true)
}
