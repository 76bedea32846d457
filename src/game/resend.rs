//! `REPORT [turn]` and `HISTORY [FROM n] [TO n]` in an order mail
//! (Adjutant issues #5, #6): the player's OWN stored reports sent again to
//! his registered addresses, queued in the intake transaction of the mail
//! that asked, so the answer commits with its receipt or not at all.
//!
//! Only rows with `reports.player_id` = the asking player are ever read:
//! never another player's (not even of his own side: each player's report
//! is cut to his own command), never the umpire's (player_id NULL).
//!
//! Players count reports by the turn whose results they tell (issue #14):
//! `REPORT 3` is "turn 3 results (orders now for turn 4)", stored with turn
//! 4; `REPORT 0` is the briefing, stored with turn 1.
//!
//! - `REPORT` sends his latest report, `REPORT 3` his turn 3 results:
//!   one mail like the original (text, HTML with the map, map.png — the PNG
//!   made again from the SVG stored in the HTML).
//! - `HISTORY` sends every report of his (or those from `FROM` to `TO`) in
//!   ONE mail: all the text reports in turn order in the body, and each
//!   turn's HTML report attached as `report-turn-N.html` (N the turn whose
//!   results it tells; the briefing `report-briefing.html`).
//!
//! Each request adds a line to the receipt saying what was sent, or why
//! nothing was.

use super::report_mail::{ReportLetter, ReportMail, live_addresses, queue_letter};
use crate::mail::compose::Attachment;
use crate::mail::intake::{IntakeError, SubmissionContext};
use crate::report::svg_to_png;
use crate::store::{REPORT_HTML_COLUMNS, REPORT_HTML_JOIN, report_html_at};
use rusqlite::{Transaction, params};
use std::fmt::Write as _;

/// One stored report of the player.
struct Stored {
    turn: u32,
    text: String,
    html: Option<String>,
}

fn sql(e: rusqlite::Error) -> IntakeError {
    IntakeError::Sqlite(e)
}

fn mail_err(e: impl std::fmt::Display) -> IntakeError {
    IntakeError::Handler(e.to_string())
}

/// The player's reports with turn numbers in `from..=to`, oldest first.
fn his_reports(
    tx: &Transaction<'_>,
    ctx: &SubmissionContext<'_>,
    from: u32,
    to: u32,
) -> Result<Vec<Stored>, IntakeError> {
    let mut st = tx
        .prepare(&format!(
            "SELECT t.number, r.text, {REPORT_HTML_COLUMNS} FROM reports r JOIN turns t ON t.id = r.turn_id
             {REPORT_HTML_JOIN}
             WHERE r.game_id = ?1 AND r.player_id = ?2 AND t.number BETWEEN ?3 AND ?4
               AND t.superseded_at IS NULL
               AND NOT EXISTS (SELECT 1 FROM turns h WHERE h.id = t.prev_turn_id
                               AND h.status = 'held')
             ORDER BY t.number, r.id"
        ))
        .map_err(sql)?;
    st.query_map(params![ctx.game.0, ctx.player_id, from, to], |r| {
        Ok(Stored {
            turn: r.get(0)?,
            text: r.get(1)?,
            html: report_html_at(r, 2)?,
        })
    })
    .map_err(sql)?
    .collect::<Result<_, _>>()
    .map_err(sql)
}

/// The turns of his first and latest reports, if he has any.
fn report_turns(
    tx: &Transaction<'_>,
    ctx: &SubmissionContext<'_>,
) -> Result<Option<(u32, u32)>, IntakeError> {
    tx.query_row(
        "SELECT min(t.number), max(t.number) FROM reports r JOIN turns t ON t.id = r.turn_id
         WHERE r.game_id = ?1 AND r.player_id = ?2 AND t.superseded_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM turns h WHERE h.id = t.prev_turn_id AND h.status = 'held')",
        params![ctx.game.0, ctx.player_id],
        |r| Ok(r.get::<_, Option<u32>>(0)?.zip(r.get::<_, Option<u32>>(1)?)),
    )
    .map_err(sql)
}

/// The SVG map inside a stored HTML report, as rendered by
/// `templates/report/player.html` (one inline `<svg>` element).
fn inline_svg(html: &str) -> Option<&str> {
    let start = html.find("<svg")?;
    let end = html[start..].find("</svg>")? + start + "</svg>".len();
    html.get(start..end)
}

/// The open turn's number: the turn whose reply token is accepted now.
fn open_turn_number(tx: &Transaction<'_>, ctx: &SubmissionContext<'_>) -> Result<u32, IntakeError> {
    tx.query_row(
        "SELECT number FROM turns WHERE id = ?1",
        [ctx.turn_id],
        |r| r.get(0),
    )
    .map_err(sql)
}

/// Answers the REPORT and HISTORY requests of one mail. Returns the lines
/// for the receipt. `mail` is `None` only when the handler was built
/// without mail settings (tests); then nothing can be sent and the receipt
/// says so.
pub fn answer_requests(
    tx: &Transaction<'_>,
    ctx: &SubmissionContext<'_>,
    mail: Option<&ReportMail>,
    report: Option<Option<u32>>,
    history: Option<(Option<u32>, Option<u32>)>,
) -> Result<Vec<String>, IntakeError> {
    let mut lines = Vec::new();
    if report.is_none() && history.is_none() {
        return Ok(lines);
    }
    let Some(mail) = mail else {
        lines.push(
            "REPORT and HISTORY cannot be answered by this server (no mail settings); ask the umpire."
                .to_string(),
        );
        return Ok(lines);
    };
    let to = live_addresses(tx, ctx.player_id).map_err(sql)?;
    // Stored reports are numbered by the turn they open; players count by
    // the turn whose results they tell (issue #14): the report stored with
    // turn 4 is "turn 3 results", the briefing stored with turn 1 is 0.
    let turns = report_turns(tx, ctx)?.map(|(a, b)| (a.saturating_sub(1), b.saturating_sub(1)));
    let latest = turns.map(|(_, last)| last);
    let token_turn = open_turn_number(tx, ctx)?;
    let none_yet =
        "You have no reports yet: the game has sent you no briefing or results; ask the umpire.";
    let side: String = tx
        .query_row(
            "SELECT s.name FROM players p JOIN sides s ON s.id = p.side_id WHERE p.id = ?1",
            [ctx.player_id],
            |r| r.get(0),
        )
        .map_err(sql)?;
    let what = |n: u32| {
        if n == 0 {
            "briefing".to_string()
        } else {
            format!("turn {n} results")
        }
    };

    if let Some(asked) = report {
        let line = match (asked, latest) {
            (_, None) => none_yet.to_string(),
            (Some(n), Some(last)) if n > last => format!(
                "REPORT {n}: turn {n} has not been played yet; your latest report is your {} (REPORT {last}).",
                what(last)
            ),
            (asked, Some(last)) => {
                let n = asked.unwrap_or(last);
                match his_reports(tx, ctx, n + 1, n + 1)?.pop() {
                    None => format!(
                        "REPORT {n}: there is no report of yours for {}; yours run from REPORT {} to REPORT {last} (REPORT 0 is the briefing).",
                        what(n),
                        turns.map_or(last, |(first, _)| first)
                    ),
                    Some(_) if to.is_empty() => {
                        "REPORT: not sent, because mail to every address registered for you bounces; ask the umpire.".to_string()
                    }
                    Some(r) => {
                        let png = r
                            .html
                            .as_deref()
                            .and_then(inline_svg)
                            .and_then(|svg| svg_to_png(svg).ok());
                        let results_of = r.turn.saturating_sub(1);
                        let png_name =
                            crate::report::render::map_file_name(ctx.game_name, results_of, &side);
                        let id = format!("{}-{}", ctx.public_id, r.turn);
                        let head = if results_of == 0 {
                            "Briefing".to_string()
                        } else {
                            format!("Turn {results_of} results")
                        };
                        let subject = format!(
                            "[{}] {head} (orders then for turn {}), report for {} (copy)",
                            ctx.game_name, r.turn, ctx.player_name
                        );
                        queue_letter(
                            tx,
                            mail,
                            &ReportLetter {
                                game: ctx.game_name,
                                game_id: ctx.game,
                                kind: "report-copy",
                                id: &id,
                                to: &to,
                                subject: &subject,
                                text: &r.text,
                                html: r.html.as_deref(),
                                png: png.as_deref(),
                                png_name: Some(&png_name),
                                reply_token_for: Some((ctx.player_name, token_turn)),
                                now: ctx.received_at,
                            },
                        )
                        .map_err(mail_err)?;
                        format!(
                            "REPORT {results_of}: your {} report is sent again to {}.",
                            what(results_of),
                            to.join(", ")
                        )
                    }
                }
            }
        };
        lines.push(line);
    }

    if let Some((from, upto)) = history {
        let line = match latest {
            None => none_yet.to_string(),
            Some(last) => {
                let from = from.unwrap_or(0);
                let upto = upto.unwrap_or(last).min(last);
                let found = if from <= upto {
                    his_reports(tx, ctx, from + 1, upto + 1)?
                } else {
                    Vec::new()
                };
                if found.is_empty() {
                    format!(
                        "HISTORY: you have no reports from turn {from} to turn {upto}; yours run from {} to turn {last} results.",
                        turns.map_or_else(|| what(last), |(first, _)| what(first))
                    )
                } else if to.is_empty() {
                    "HISTORY: not sent, because mail to every address registered for you bounces; ask the umpire.".to_string()
                } else {
                    let names: Vec<String> = found
                        .iter()
                        .map(|r| what(r.turn.saturating_sub(1)))
                        .collect();
                    let mut text = format!(
                        "Your reports ({}), as they were sent. Each is also attached as HTML with its map.\n",
                        names.join(", ")
                    );
                    let mut attachments = Vec::new();
                    for r in &found {
                        let _ = write!(text, "\n{}\n\n{}", "=".repeat(72), r.text);
                        if let Some(h) = &r.html {
                            let results_of = r.turn.saturating_sub(1);
                            attachments.push(Attachment {
                                filename: if results_of == 0 {
                                    "report-briefing.html".to_string()
                                } else {
                                    format!("report-turn-{results_of}.html")
                                },
                                content_type: crate::mail::compose::ContentType::TEXT_HTML,
                                data: h.as_bytes().to_vec(),
                            });
                        }
                    }
                    let subject = format!(
                        "[{}] Your reports, turns {} to {}",
                        ctx.game_name,
                        found.first().map_or(from, |r| r.turn.saturating_sub(1)),
                        found.last().map_or(upto, |r| r.turn.saturating_sub(1))
                    );
                    queue_history(tx, mail, ctx, &to, &subject, &text, attachments, token_turn)?;
                    format!(
                        "HISTORY: {} report(s) ({}) sent to {}.",
                        found.len(),
                        names.join(", "),
                        to.join(", ")
                    )
                }
            }
        };
        lines.push(line);
    }
    Ok(lines)
}

#[allow(clippy::too_many_arguments)]
fn queue_history(
    tx: &Transaction<'_>,
    mail: &ReportMail,
    ctx: &SubmissionContext<'_>,
    to: &[String],
    subject: &str,
    text: &str,
    attachments: Vec<Attachment>,
    token_turn: u32,
) -> Result<(), IntakeError> {
    super::report_mail::queue_letter_with(
        tx,
        mail,
        &ReportLetter {
            game: ctx.game_name,
            game_id: ctx.game,
            kind: "history",
            id: ctx.public_id,
            to,
            subject,
            text,
            html: None,
            png: None,
            png_name: None,
            reply_token_for: Some((ctx.player_name, token_turn)),
            now: ctx.received_at,
        },
        attachments,
    )
    .map_err(mail_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_inline_map() {
        let html = "<html><body><p>x</p><svg width=\"2\"><rect/></svg><p>y</p></body></html>";
        assert_eq!(inline_svg(html), Some("<svg width=\"2\"><rect/></svg>"));
        assert_eq!(inline_svg("<p>no map</p>"), None);
    }
}
