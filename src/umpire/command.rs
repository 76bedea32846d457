//! The umpire's command language (issue #8): what an umpire writes, by mail
//! or after `adjutant umpire GAME`, to review, correct and control a game.
//!
//! One command a line, in capitals or not; blank lines and `#` comments are
//! skipped, and so is a `PASSWORD` line (intake has already checked it).
//! Three commands take more than their line:
//! - `INTERPRET <id>: <order>` and `BROADCAST "<text>"` run on over the
//!   following lines until a blank line (a quoted text until its closing
//!   quote);
//! - `ORDERS FOR <player>` takes every following line up to `END ORDERS`
//!   (or `END`), or to the end of the mail.
//!
//! The parser is pure and never fails as a whole: each bad line becomes a
//! [`CommandError`] with its line and column, what was expected and, for a
//! misspelt command, the nearest one. The good lines still count, as with
//! players' orders. Names (units, players) are kept as written: whether they
//! exist is for the executor, which knows the game.
//!
//! Why a small line parser rather than the order grammar: umpire commands
//! are few, fixed and positional; the order language's tolerance of prose
//! would only blur what an umpire meant by a correction.

use crate::clock::{self, ClockError};
use crate::orders::compass_degrees;
use crate::rules::iron_brigade::fire::Protection;
use crate::rules::iron_brigade::kinds::Formation;
use serde::Serialize;

// What `SET` corrects is the game's (`game::corrections`); this language
// only writes it.
pub use crate::game::corrections::SetValue;

/// Whether the turn's dice come from the seeded stream or from the umpire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiceMode {
    Stream,
    Umpire,
}

/// One umpire command, as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "command", rename_all = "kebab-case")]
pub enum Command {
    /// Send the held turn's reports.
    Release,
    /// Re-adjudicate the held turn from the same state with the same dice.
    Redo,
    Set {
        unit: String,
        value: SetValue,
        reason: String,
    },
    /// `SET` in a game played through its ruleset's mail plane (SFRM):
    /// `<unit> <field> <value>` as written, read and checked by the ruleset
    /// (`rules::MailEngine::correct`).
    SetFree {
        written: String,
        reason: String,
    },
    /// Read a player's free-text paragraph as this order.
    Interpret {
        id: String,
        order: String,
    },
    Reject {
        id: String,
        reason: String,
    },
    /// Physical dice, in the order of the request.
    Dice(Vec<u8>),
    DiceMode(DiceMode),
    Pause {
        for_secs: Option<i64>,
    },
    Resume,
    Extend {
        secs: i64,
    },
    /// A new deadline, as written and in UTC.
    Deadline {
        written: String,
        at: i64,
    },
    Process,
    Rollback {
        turn: u32,
    },
    Rollforward,
    Replace {
        player: String,
        address: String,
    },
    Eject {
        player: String,
    },
    Broadcast {
        text: String,
    },
    OrdersFor {
        player: String,
        text: String,
    },
    /// The list of commands, each with one line ([`HELP_TEXT`]).
    Help,
}

/// A command with the line it starts on (1-based).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Located {
    pub line: usize,
    pub command: Command,
}

/// A line that could not be read: where, why, and the line itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandError {
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
    pub text: String,
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// Everything read from one umpire mail or command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub commands: Vec<Located>,
    pub errors: Vec<CommandError>,
}

/// The command words, for suggestions.
const COMMANDS: &[&str] = &[
    "RELEASE",
    "REDO",
    "SET",
    "INTERPRET",
    "REJECT",
    "DICE",
    "PAUSE",
    "RESUME",
    "EXTEND",
    "DEADLINE",
    "PROCESS",
    "ROLLBACK",
    "ROLLFORWARD",
    "REPLACE",
    "EJECT",
    "BROADCAST",
    "ORDERS",
    "HELP",
];

/// Every umpire command with one line on what it does: the answer to
/// `HELP` (by mail or `adjutant umpire GAME HELP`) and the tail of
/// `adjutant umpire --help`. docs/umpire.md and docs/umpire-turns.md say
/// more of each.
pub const HELP_TEXT: &str = "\
Umpire commands, one a line (capitals or not; # starts a comment):
  RELEASE                          send the held turn's reports to the players
  REDO                             adjudicate the held turn again, same state and dice, with your SETs
  SET <unit> <field> <value> BECAUSE \"<why>\"
                                   correct a unit before a REDO: morale, castings, position x,y,
                                   formation, facing; or for one turn: perilous yes|no,
                                   protection <row> (APSoF V.G.2, V.B); in an SFRM game:
                                   position x,y, formation, facing, elements, routed yes|no,
                                   entrenchment 0-3
  INTERPRET <id>: <order>          enter a player's unreadable paragraph as this order
  REJECT <id>: \"<why>\"             refuse a player's unreadable paragraph, telling him why
  DICE <n> <n> ...                 your real dice for the rolls asked for, in order
  DICE MODE UMPIRE | STREAM        roll real dice yourself, or use Adjutant's seeded dice
  PAUSE [FOR <duration>]           stop the clock (at most the game's maximum pause)
  RESUME                           start the clock again; deadlines move back by the pause
  EXTEND <duration>                move the open turn's deadline later, e.g. EXTEND 24h
  DEADLINE <date> <time> <zone>    set the open turn's deadline, e.g. DEADLINE 2026-11-27 20:00 UTC
  PROCESS                          adjudicate the open turn now
  ROLLBACK <turn>                  set the turns from <turn> on aside and reopen <turn>
  ROLLFORWARD                      undo the last ROLLBACK
  REPLACE <player> <address>       hand a command to a new player (new secret mailed to him)
  EJECT <player>                   drop a player; his units keep their standing orders
  BROADCAST \"<text>\"               mail every player a notice
  ORDERS FOR <player> ... END ORDERS
                                   enter orders for a player, as he would write them
  HELP                             this list
";

/// A word of a line and the character column it starts at (1-based).
#[derive(Debug, Clone, Copy)]
struct Word<'a> {
    text: &'a str,
    column: usize,
}

fn words(line: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None; // (byte, column)
    for (col, (b, c)) in line.char_indices().enumerate() {
        if c.is_whitespace() {
            if let Some((sb, sc)) = start.take() {
                out.push(Word {
                    text: &line[sb..b],
                    column: sc + 1,
                });
            }
        } else if start.is_none() {
            start = Some((b, col));
        }
    }
    if let Some((sb, sc)) = start {
        out.push(Word {
            text: &line[sb..],
            column: sc + 1,
        });
    }
    out
}

/// The text after the first `n` words of `line`, trimmed.
fn rest_after<'a>(line: &'a str, ws: &[Word<'a>], n: usize) -> &'a str {
    match ws.get(n) {
        Some(w) => {
            let byte = line
                .char_indices()
                .nth(w.column - 1)
                .map(|(b, _)| b)
                .unwrap_or(line.len());
            line[byte..].trim()
        }
        None => "",
    }
}

fn is(w: Option<&Word<'_>>, word: &str) -> bool {
    w.is_some_and(|w| w.text.trim_end_matches(':').eq_ignore_ascii_case(word))
}

/// Strips one pair of straight or curly double quotes around `s`.
fn unquote(s: &str) -> &str {
    let s = s.trim();
    for (open, close) in [('"', '"'), ('\u{201c}', '\u{201d}')] {
        if let Some(inner) = s.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            return inner.trim();
        }
    }
    s
}

/// A duration such as `48h`, `2d 12h`, `90 minutes`, `1 day 6 hours`, in
/// seconds. Whole numbers only; at least one minute.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let expected = format!(
        "`{}` is not a duration; write e.g. `48h`, `2d 12h`, `90 minutes` or `1 week`",
        text.trim()
    );
    let mut total: i64 = 0;
    let mut rest = text.trim();
    let mut any = false;
    while !rest.is_empty() {
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return Err(expected);
        }
        let n: i64 = rest[..digits].parse().map_err(|_| expected.clone())?;
        rest = rest[digits..].trim_start();
        let unit_len = rest.chars().take_while(|c| c.is_ascii_alphabetic()).count();
        let unit = rest[..unit_len].to_ascii_lowercase();
        rest = rest[unit_len..].trim_start_matches([',', ' ']).trim_start();
        if rest.to_ascii_lowercase().starts_with("and ") {
            rest = rest[4..].trim_start();
        }
        let secs = match unit.as_str() {
            "s" | "sec" | "secs" | "second" | "seconds" => 1,
            "m" | "min" | "mins" | "minute" | "minutes" => 60,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3_600,
            "d" | "day" | "days" => 86_400,
            "w" | "wk" | "week" | "weeks" => 604_800,
            _ => return Err(expected),
        };
        total = n
            .checked_mul(secs)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(|| expected.clone())?;
        any = true;
    }
    if !any || total < 60 {
        return Err(format!(
            "`{}` is too short; a duration is at least one minute, e.g. `30m`",
            text.trim()
        ));
    }
    Ok(total)
}

/// The nearest command word to `w`, if it is close enough to be a typo.
fn suggest(w: &str) -> Option<&'static str> {
    let w = w.to_ascii_uppercase();
    COMMANDS
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&w, c), *c))
        .filter(|(d, c)| *d <= 2 && *d < c.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

struct Lines<'a> {
    lines: Vec<&'a str>,
    next: usize,
}

impl<'a> Lines<'a> {
    /// The following lines up to a blank one (not consumed), joined.
    fn paragraph(&mut self) -> Vec<&'a str> {
        let mut out = Vec::new();
        while let Some(l) = self.lines.get(self.next) {
            if l.trim().is_empty() {
                break;
            }
            out.push(l.trim());
            self.next += 1;
        }
        out
    }
}

/// Reads every command in `text`.
pub fn parse(text: &str) -> Parsed {
    parse_with(text, false)
}

/// [`parse`] for a game whose ruleset reads its own corrections
/// (`free_set`: `SET` lines become [`Command::SetFree`]).
pub fn parse_with(text: &str, free_set: bool) -> Parsed {
    let mut out = Parsed::default();
    let mut lines = Lines {
        lines: text.lines().collect(),
        next: 0,
    };
    while let Some(&line) = lines.lines.get(lines.next) {
        let number = lines.next + 1;
        lines.next += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let ws = words(line);
        if is(ws.first(), "password") {
            continue;
        }
        match command(line, &ws, &mut lines, free_set) {
            Ok(command) => out.commands.push(Located {
                line: number,
                command,
            }),
            Err((column, message)) => out.errors.push(CommandError {
                line: number,
                column,
                message,
                text: trimmed.to_string(),
            }),
        }
    }
    out
}

type CResult = Result<Command, (usize, String)>;

fn no_more(ws: &[Word<'_>], n: usize, what: &str) -> Result<(), (usize, String)> {
    match ws.get(n) {
        Some(w) => Err((
            w.column,
            format!("{what} takes nothing after it; found `{}`", w.text),
        )),
        None => Ok(()),
    }
}

fn end_column(line: &str) -> usize {
    line.trim_end().chars().count() + 1
}

fn command(line: &str, ws: &[Word<'_>], lines: &mut Lines<'_>, free_set: bool) -> CResult {
    let Some(first) = ws.first() else {
        return Err((1, "empty line".into()));
    };
    let verb = first.text.trim_end_matches(':').to_ascii_lowercase();
    match verb.as_str() {
        "help" | "?" => Ok(Command::Help),
        "release" => no_more(ws, 1, "RELEASE").map(|_| Command::Release),
        "redo" => no_more(ws, 1, "REDO").map(|_| Command::Redo),
        "resume" => no_more(ws, 1, "RESUME").map(|_| Command::Resume),
        "process" => no_more(ws, 1, "PROCESS").map(|_| Command::Process),
        "rollforward" => no_more(ws, 1, "ROLLFORWARD").map(|_| Command::Rollforward),
        "roll" if is(ws.get(1), "forward") => {
            no_more(ws, 2, "ROLL FORWARD").map(|_| Command::Rollforward)
        }
        "roll" if is(ws.get(1), "back") => rollback(line, ws, 2),
        "rollback" => rollback(line, ws, 1),
        "set" if free_set => set_free(line, ws),
        "set" => set(line, ws),
        "interpret" => {
            let (id, first_part) = id_and_text(line, ws, "INTERPRET <id>: <order>")?;
            let mut parts = vec![first_part.as_str()];
            let more = lines.paragraph();
            parts.extend(more.iter().copied());
            let order = parts
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            if order.is_empty() {
                return Err((
                    end_column(line),
                    "INTERPRET needs the order after the colon, in the order language, e.g. `INTERPRET S-12-3: 2nd Wisconsin: advance to the Brawner farm in line`".into(),
                ));
            }
            Ok(Command::Interpret { id, order })
        }
        "reject" => {
            let (id, reason) = id_and_text(line, ws, "REJECT <id>: \"<reason>\"")?;
            let reason = unquote(&reason).to_string();
            if reason.is_empty() {
                return Err((
                    end_column(line),
                    "REJECT needs a reason the player will read, e.g. `REJECT S-12-3: \"No such ford exists.\"`".into(),
                ));
            }
            Ok(Command::Reject { id, reason })
        }
        "dice" => dice(ws),
        "pause" => {
            if ws.len() == 1 {
                return Ok(Command::Pause { for_secs: None });
            }
            let from = if is(ws.get(1), "for") { 2 } else { 1 };
            let text = rest_after(line, ws, from);
            let col = ws.get(from).map_or(end_column(line), |w| w.column);
            parse_duration(text)
                .map(|s| Command::Pause { for_secs: Some(s) })
                .map_err(|m| (col, m))
        }
        "extend" => {
            let from = if is(ws.get(1), "by") { 2 } else { 1 };
            let text = rest_after(line, ws, from);
            let col = ws.get(from).map_or(end_column(line), |w| w.column);
            if text.is_empty() {
                return Err((col, "EXTEND needs a duration, e.g. `EXTEND 24h`".into()));
            }
            parse_duration(text)
                .map(|secs| Command::Extend { secs })
                .map_err(|m| (col, m))
        }
        "deadline" => deadline(line, ws),
        "replace" => {
            let Some(addr) = ws.last().filter(|_| ws.len() >= 3) else {
                return Err((
                    end_column(line),
                    "write `REPLACE <player> <new address>`, e.g. `REPLACE Gibbon new.gibbon@example.org`".into(),
                ));
            };
            if !addr.text.contains('@') {
                return Err((
                    addr.column,
                    format!(
                        "`{}` is not a mail address; write `REPLACE <player> <new address>`",
                        addr.text
                    ),
                ));
            }
            let player = names_between(ws, 1, ws.len() - 1);
            let address = addr.text.trim_matches(['<', '>']).to_string();
            Ok(Command::Replace { player, address })
        }
        "eject" => {
            if ws.len() < 2 {
                return Err((end_column(line), "write `EJECT <player>`".into()));
            }
            Ok(Command::Eject {
                player: names_between(ws, 1, ws.len()),
            })
        }
        "broadcast" => {
            let first_part = rest_after(line, ws, 1).to_string();
            let mut parts = vec![first_part.as_str()];
            let opens = first_part.starts_with(['"', '\u{201c}']);
            let closes = |s: &str| s.ends_with(['"', '\u{201d}']);
            if opens {
                // A quoted text runs to its closing quote (or a blank line),
                // so the commands after it are read as commands, never sent
                // to the players as part of the text.
                if !(first_part.chars().count() > 1 && closes(&first_part)) {
                    while let Some(l) = lines.lines.get(lines.next) {
                        if l.trim().is_empty() {
                            break;
                        }
                        lines.next += 1;
                        parts.push(l.trim());
                        if closes(l.trim()) {
                            break;
                        }
                    }
                }
            } else {
                parts.extend(lines.paragraph());
            }
            let text = unquote(&parts.join("\n")).to_string();
            if text.is_empty() {
                return Err((
                    end_column(line),
                    "BROADCAST needs the text to send, e.g. `BROADCAST \"Rain: all fire at -1 this turn.\"`".into(),
                ));
            }
            Ok(Command::Broadcast { text })
        }
        "orders" if is(ws.get(1), "for") => {
            if ws.len() < 3 {
                return Err((
                    end_column(line),
                    "write `ORDERS FOR <player>`, then his orders on the lines below, then `END ORDERS`".into(),
                ));
            }
            let player = names_between(ws, 2, ws.len());
            let mut body = Vec::new();
            while let Some(&l) = lines.lines.get(lines.next) {
                lines.next += 1;
                let lw = words(l);
                if is(lw.first(), "end") && (lw.len() == 1 || is(lw.get(1), "orders")) {
                    break;
                }
                body.push(l);
            }
            let text = body.join("\n").trim().to_string();
            if text.is_empty() {
                return Err((
                    end_column(line),
                    "ORDERS FOR has no orders below it; put them on the following lines and end with `END ORDERS`".into(),
                ));
            }
            Ok(Command::OrdersFor { player, text })
        }
        _ => {
            let hint = match suggest(&verb) {
                Some(s) => format!("; did you mean {s}?"),
                None => format!("; the commands are {}", COMMANDS.join(", ")),
            };
            Err((
                first.column,
                format!("`{}` is not an umpire command{hint}", first.text),
            ))
        }
    }
}

/// Words `from..to` joined with single spaces, trailing colon dropped.
fn names_between(ws: &[Word<'_>], from: usize, to: usize) -> String {
    ws.get(from..to)
        .unwrap_or_default()
        .iter()
        .map(|w| w.text)
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(':')
        .to_string()
}

/// `VERB <id>: <text>` → (id, text on this line).
fn id_and_text(
    line: &str,
    ws: &[Word<'_>],
    form: &str,
) -> Result<(String, String), (usize, String)> {
    let after_verb = rest_after(line, ws, 1);
    let Some((id, text)) = after_verb.split_once(':') else {
        let col = ws.get(1).map_or(end_column(line), |w| w.column);
        return Err((
            col,
            format!(
                "write `{form}`: the id from the \"needs interpretation\" mail, a colon, then the rest"
            ),
        ));
    };
    let id = id.trim();
    if id.is_empty() || id.contains(char::is_whitespace) {
        let col = ws.get(1).map_or(end_column(line), |w| w.column);
        return Err((
            col,
            format!(
                "`{id}` is not an id; write `{form}` with the id from the \"needs interpretation\" mail"
            ),
        ));
    }
    Ok((id.to_string(), text.trim().to_string()))
}

fn rollback(line: &str, ws: &[Word<'_>], from: usize) -> CResult {
    let mut i = from;
    if is(ws.get(i), "to") {
        i += 1;
    }
    if is(ws.get(i), "turn") {
        i += 1;
    }
    let Some(w) = ws.get(i) else {
        return Err((
            end_column(line),
            "ROLLBACK needs the turn to go back to, e.g. `ROLLBACK 3`".into(),
        ));
    };
    let turn: u32 = w.text.parse().ok().filter(|t| *t >= 1).ok_or_else(|| {
        (
            w.column,
            format!("`{}` is not a turn number; write e.g. `ROLLBACK 3`", w.text),
        )
    })?;
    no_more(ws, i + 1, "ROLLBACK <turn>")?;
    Ok(Command::Rollback { turn })
}

fn dice(ws: &[Word<'_>]) -> CResult {
    if is(ws.get(1), "mode") {
        let mode = match ws.get(2).map(|w| w.text.to_ascii_lowercase()) {
            Some(m) if m == "umpire" || m == "real" || m == "physical" => DiceMode::Umpire,
            Some(m) if m == "stream" || m == "seeded" || m == "computer" => DiceMode::Stream,
            _ => {
                let col = ws.get(2).map_or(ws[1].column + 5, |w| w.column);
                return Err((
                    col,
                    "write `DICE MODE UMPIRE` (you roll real dice) or `DICE MODE STREAM` (Adjutant's seeded dice)".into(),
                ));
            }
        };
        no_more(ws, 3, "DICE MODE")?;
        return Ok(Command::DiceMode(mode));
    }
    let mut values = Vec::new();
    for w in ws.iter().skip(1) {
        for part in w.text.split(',').filter(|p| !p.is_empty()) {
            match part.parse::<u8>() {
                Ok(v @ 1..=6) => values.push(v),
                _ => {
                    return Err((
                        w.column,
                        format!("`{part}` is not a d6 roll; each die is 1 to 6"),
                    ));
                }
            }
        }
    }
    if values.is_empty() {
        return Err((
            ws[0].column + 5,
            "DICE needs the rolls, in the order asked for, e.g. `DICE 4 2 6 1`".into(),
        ));
    }
    Ok(Command::Dice(values))
}

fn deadline(line: &str, ws: &[Word<'_>]) -> CResult {
    let form =
        "write `DEADLINE <date> <time> <zone>`, e.g. `DEADLINE 2026-11-24 20:00 America/New_York`";
    let (Some(date), Some(time)) = (ws.get(1), ws.get(2)) else {
        return Err((end_column(line), form.into()));
    };
    let Some(zone) = ws.get(3) else {
        return Err((
            end_column(line),
            format!("the deadline needs its time zone; {form}"),
        ));
    };
    no_more(ws, 4, "DEADLINE <date> <time> <zone>")?;
    let local = format!("{} {}", date.text, time.text);
    match clock::local_to_utc(&local, zone.text) {
        Ok(at) => Ok(Command::Deadline {
            written: format!("{local} {}", zone.text),
            at,
        }),
        Err(e @ ClockError::UnknownZone(_)) => Err((zone.column, e.to_string())),
        Err(e) => Err((date.column, e.to_string())),
    }
}

/// A correction's `BECAUSE "<reason>"`: where BECAUSE stands, and the
/// reason (never empty).
fn because(line: &str, ws: &[Word<'_>], form: &str) -> Result<(usize, String), (usize, String)> {
    let Some(at) = ws
        .iter()
        .position(|w| w.text.eq_ignore_ascii_case("because"))
    else {
        return Err((
            end_column(line),
            format!("every correction needs its reason: {form}"),
        ));
    };
    let reason = unquote(rest_after(line, ws, at + 1)).to_string();
    if reason.is_empty() {
        return Err((
            end_column(line),
            format!("the reason after BECAUSE is empty: {form}"),
        ));
    }
    Ok((at, reason))
}

/// `SET <unit> <field> <value> BECAUSE "<reason>"` for a ruleset that reads
/// its own fields: the words before BECAUSE are kept as written.
fn set_free(line: &str, ws: &[Word<'_>]) -> CResult {
    let form = "write `SET <unit> <field> <value> BECAUSE \"<reason>\"`";
    let (because, reason) = because(line, ws, form)?;
    if because < 4 {
        let col = ws.get(1).map_or(end_column(line), |w| w.column);
        return Err((
            col,
            format!("say which unit, what to set and to what: {form}"),
        ));
    }
    Ok(Command::SetFree {
        written: names_between(ws, 1, because),
        reason,
    })
}

fn set(line: &str, ws: &[Word<'_>]) -> CResult {
    let form = "write `SET <unit> morale|castings|position|formation|facing|perilous|protection <value> BECAUSE \"<reason>\"`";
    let (because, reason) = because(line, ws, form)?;
    const FIELDS: &[&str] = &[
        "morale",
        "castings",
        "position",
        "formation",
        "facing",
        "perilous",
        "protection",
    ];
    let Some(field_at) = (1..because)
        .rev()
        .find(|&i| FIELDS.iter().any(|f| ws[i].text.eq_ignore_ascii_case(f)))
    else {
        let col = ws.get(1).map_or(end_column(line), |w| w.column);
        return Err((col, format!("say what to set: {form}")));
    };
    if field_at < 2 {
        return Err((ws[1].column, format!("say which unit: {form}")));
    }
    let unit = names_between(ws, 1, field_at);
    let value_words = &ws[field_at + 1..because];
    let Some(first) = value_words.first() else {
        return Err((
            ws[because].column,
            format!(
                "the new {} is missing: {form}",
                ws[field_at].text.to_ascii_lowercase()
            ),
        ));
    };
    let value_text = value_words
        .iter()
        .map(|w| w.text)
        .collect::<Vec<_>>()
        .join(" ");
    let col = first.column;
    let value = match ws[field_at].text.to_ascii_lowercase().as_str() {
        "morale" => value_text
            .parse::<u8>()
            .ok()
            .filter(|m| *m <= 6)
            .map(SetValue::Morale)
            .ok_or_else(|| {
                (
                    col,
                    format!("`{value_text}` is not a morale level; morale is 0 to 6 (APSoF VI.B.1, VI.B.4)"),
                )
            })?,
        "castings" => value_text
            .parse::<u32>()
            .ok()
            .map(SetValue::Castings)
            .ok_or_else(|| (col, format!("`{value_text}` is not a number of castings")))?,
        "position" => {
            let nums: Vec<f64> = value_text
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|p| !p.is_empty())
                .map(|p| p.trim_end_matches('"').parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|_| (col, format!("`{value_text}` is not a position; write inches as `x,y`, e.g. `34.5,12`")))?;
            match nums.as_slice() {
                [x, y] if x.is_finite() && y.is_finite() => SetValue::Position { x: *x, y: *y },
                _ => {
                    return Err((
                        col,
                        format!(
                            "`{value_text}` is not a position; write inches as `x,y`, e.g. `34.5,12`"
                        ),
                    ));
                }
            }
        }
        "perilous" => match value_text.to_ascii_lowercase().as_str() {
            "yes" | "true" | "on" => SetValue::Perilous(true),
            "no" | "false" | "off" => SetValue::Perilous(false),
            _ => {
                return Err((
                    col,
                    format!("`{value_text}` is not yes or no; write `perilous yes` to declare a perilous situation for this turn (APSoF V.G.2), `perilous no` to withdraw it"),
                ));
            }
        },
        "protection" => value_text
            .parse::<Protection>()
            .map(SetValue::Protection)
            .map_err(|e| (col, format!("{e} (APSoF V.B table; `none` withdraws it)")))?,
        "formation" => {
            let f = value_text.replace(' ', "-").to_ascii_lowercase();
            f.parse::<Formation>().map(SetValue::Formation).map_err(|_| {
                (
                    col,
                    format!("`{value_text}` is not a formation; use line, column, skirmish, company column, en masse, limbered or unlimbered"),
                )
            })?
        }
        _ => {
            let deg = value_text
                .trim_end_matches(['°'])
                .trim_end_matches(" degrees")
                .parse::<f64>()
                .ok()
                .filter(|d| d.is_finite())
                .map(|d| d.rem_euclid(360.0))
                .or_else(|| compass_degrees(&value_text));
            deg.map(SetValue::Facing).ok_or_else(|| {
                (
                    col,
                    format!("`{value_text}` is not a facing; write degrees from north (e.g. `270`) or a compass point (e.g. `north-west`)"),
                )
            })?
        }
    };
    Ok(Command::Set {
        unit,
        value,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_in_a_mail_plane_game_keeps_the_words_for_the_ruleset() {
        let p = parse_with(
            "SET Burnside's brigade strength 3 BECAUSE \"lost on the march\"",
            true,
        );
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(
            p.commands[0].command,
            Command::SetFree {
                written: "Burnside's brigade strength 3".into(),
                reason: "lost on the march".into(),
            }
        );
        // The reason is still wanted, and a unit, a field and a value.
        let p = parse_with("SET Burnside's brigade strength 3", true);
        assert!(
            p.errors[0].message.contains("needs its reason"),
            "{:?}",
            p.errors
        );
        let p = parse_with("SET strength 3 BECAUSE \"x\"", true);
        assert!(
            p.errors[0].message.contains("say which unit"),
            "{:?}",
            p.errors
        );
        // An Iron Brigade game reads its own fields, as before.
        let p = parse("SET Burnside's brigade strength 3 BECAUSE \"x\"");
        assert!(!p.errors.is_empty());
    }

    fn one(text: &str) -> Command {
        let p = parse(text);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.commands.len(), 1, "{:?}", p.commands);
        p.commands[0].command.clone()
    }

    fn err(text: &str) -> CommandError {
        let p = parse(text);
        assert!(p.commands.is_empty(), "{:?}", p.commands);
        assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
        p.errors[0].clone()
    }

    #[test]
    fn bare_commands_in_any_case() {
        assert_eq!(one("RELEASE"), Command::Release);
        assert_eq!(one("  redo  "), Command::Redo);
        assert_eq!(one("Resume"), Command::Resume);
        assert_eq!(one("PROCESS"), Command::Process);
        assert_eq!(one("ROLLFORWARD"), Command::Rollforward);
        assert_eq!(one("roll forward"), Command::Rollforward);
        let e = err("RELEASE now please");
        assert_eq!(e.column, 9);
        assert!(e.message.contains("takes nothing after it"), "{e}");
    }

    #[test]
    fn set_each_field_with_its_reason() {
        assert_eq!(
            one("SET 2nd Wisconsin morale 3 BECAUSE \"miscounted the panic test\""),
            Command::Set {
                unit: "2nd Wisconsin".into(),
                value: SetValue::Morale(3),
                reason: "miscounted the panic test".into()
            }
        );
        assert_eq!(
            one("set Battery B castings 8 because two crew were hit by the sniper"),
            Command::Set {
                unit: "Battery B".into(),
                value: SetValue::Castings(8),
                reason: "two crew were hit by the sniper".into()
            }
        );
        assert_eq!(
            one("SET 19th Indiana position 34.5, 12 BECAUSE “the wall is further east”"),
            Command::Set {
                unit: "19th Indiana".into(),
                value: SetValue::Position { x: 34.5, y: 12.0 },
                reason: "the wall is further east".into()
            }
        );
        assert_eq!(
            one("SET 7th Wisconsin formation company column BECAUSE \"ordered last turn\""),
            Command::Set {
                unit: "7th Wisconsin".into(),
                value: SetValue::Formation(Formation::CompanyColumn),
                reason: "ordered last turn".into()
            }
        );
        assert_eq!(
            one("SET 6th Wisconsin facing north-west BECAUSE \"wheel was completed\""),
            Command::Set {
                unit: "6th Wisconsin".into(),
                value: SetValue::Facing(315.0),
                reason: "wheel was completed".into()
            }
        );
        assert_eq!(
            one("SET 6th Wisconsin facing 450 BECAUSE \"typo fix\""),
            Command::Set {
                unit: "6th Wisconsin".into(),
                value: SetValue::Facing(90.0),
                reason: "typo fix".into()
            }
        );
    }

    #[test]
    fn set_without_reason_or_with_bad_values_is_explained() {
        assert_eq!(
            one("SET 2nd Wisconsin perilous yes BECAUSE \"caught in the corn\""),
            Command::Set {
                unit: "2nd Wisconsin".into(),
                value: SetValue::Perilous(true),
                reason: "caught in the corn".into(),
            }
        );
        assert_eq!(
            one("SET 2nd Wisconsin protection hasty works BECAUSE \"rails piled up\""),
            Command::Set {
                unit: "2nd Wisconsin".into(),
                value: SetValue::Protection(Protection::HastyWorks),
                reason: "rails piled up".into(),
            }
        );
        let e = err("SET 2nd Wisconsin perilous maybe BECAUSE \"x\"");
        assert!(e.message.contains("V.G.2"), "{}", e.message);
        let e = err("SET 2nd Wisconsin protection moat BECAUSE \"x\"");
        assert!(e.message.contains("entrenchments"), "{}", e.message);
        let e = err("SET 2nd Wisconsin morale 3");
        assert!(e.message.contains("needs its reason"), "{e}");
        let e = err("SET 2nd Wisconsin morale 9 BECAUSE \"x\"");
        assert_eq!(e.column, 26);
        assert!(e.message.contains("0 to 6"), "{e}");
        let e = err("SET 2nd Wisconsin formation wedge BECAUSE \"x\"");
        assert!(e.message.contains("not a formation"), "{e}");
        let e = err("SET morale 3 BECAUSE \"x\"");
        assert!(e.message.contains("which unit"), "{e}");
        let e = err("SET 2nd Wisconsin strength 3 BECAUSE \"x\"");
        assert!(e.message.contains("say what to set"), "{e}");
        let e = err("SET 2nd Wisconsin position north BECAUSE \"x\"");
        assert!(e.message.contains("x,y"), "{e}");
    }

    #[test]
    fn interpret_runs_on_to_the_blank_line() {
        let p = parse(
            "INTERPRET S-12-3: 2nd Wisconsin: advance to the Brawner farm\nin line; fire at will.\n\nRELEASE",
        );
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(
            p.commands[0].command,
            Command::Interpret {
                id: "S-12-3".into(),
                order: "2nd Wisconsin: advance to the Brawner farm\nin line; fire at will.".into()
            }
        );
        assert_eq!(
            p.commands[1],
            Located {
                line: 4,
                command: Command::Release
            }
        );
        let e = err("INTERPRET S-12-3 advance");
        assert!(e.message.contains("colon"), "{e}");
        let e = err("INTERPRET S-12-3:");
        assert!(e.message.contains("needs the order"), "{e}");
    }

    #[test]
    fn reject_needs_a_reason() {
        assert_eq!(
            one("REJECT S-9-1: \"There is no ford there.\""),
            Command::Reject {
                id: "S-9-1".into(),
                reason: "There is no ford there.".into()
            }
        );
        assert!(err("REJECT S-9-1:").message.contains("needs a reason"));
    }

    #[test]
    fn dice_values_and_mode() {
        assert_eq!(one("DICE 4 2 6 1"), Command::Dice(vec![4, 2, 6, 1]));
        assert_eq!(one("dice 4,2,6"), Command::Dice(vec![4, 2, 6]));
        assert_eq!(one("DICE MODE UMPIRE"), Command::DiceMode(DiceMode::Umpire));
        assert_eq!(one("dice mode stream"), Command::DiceMode(DiceMode::Stream));
        let e = err("DICE 4 7 1");
        assert_eq!(e.column, 8);
        assert!(e.message.contains("1 to 6"), "{e}");
        assert!(err("DICE").message.contains("needs the rolls"));
        assert!(err("DICE MODE loaded").message.contains("DICE MODE UMPIRE"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("48h"), Ok(172_800));
        assert_eq!(parse_duration("2d 12h"), Ok(216_000));
        assert_eq!(parse_duration("2d12h"), Ok(216_000));
        assert_eq!(parse_duration("90 minutes"), Ok(5_400));
        assert_eq!(parse_duration("1 day and 6 hours"), Ok(108_000));
        assert_eq!(parse_duration("1 week"), Ok(604_800));
        assert!(parse_duration("soon").is_err());
        assert!(
            parse_duration("30s")
                .unwrap_err()
                .contains("at least one minute")
        );
        assert!(parse_duration("99999999999999999w").is_err());
        assert_eq!(one("PAUSE"), Command::Pause { for_secs: None });
        assert_eq!(
            one("PAUSE for 3 days"),
            Command::Pause {
                for_secs: Some(259_200)
            }
        );
        assert_eq!(one("EXTEND 24h"), Command::Extend { secs: 86_400 });
        assert_eq!(one("extend by 1d"), Command::Extend { secs: 86_400 });
        let e = err("EXTEND a bit");
        assert_eq!(e.column, 8);
    }

    #[test]
    fn deadline_in_a_zone() {
        assert_eq!(
            one("DEADLINE 2026-11-23 20:00 America/New_York"),
            Command::Deadline {
                written: "2026-11-23 20:00 America/New_York".into(),
                at: 1_795_482_000
            }
        );
        let e = err("DEADLINE 2026-11-23 20:00");
        assert!(e.message.contains("time zone"), "{e}");
        let e = err("DEADLINE 2026-11-23 20:00 Mars/Base");
        assert_eq!(e.column, 27);
        assert!(e.message.contains("IANA"), "{e}");
        let e = err("DEADLINE tomorrow evening UTC");
        assert_eq!(e.column, 10);
    }

    #[test]
    fn rollback_forms() {
        assert_eq!(one("ROLLBACK 3"), Command::Rollback { turn: 3 });
        assert_eq!(one("rollback to turn 3"), Command::Rollback { turn: 3 });
        assert_eq!(one("roll back to 2"), Command::Rollback { turn: 2 });
        assert!(err("ROLLBACK 0").message.contains("not a turn number"));
        assert!(err("ROLLBACK").message.contains("needs the turn"));
    }

    #[test]
    fn players_and_addresses() {
        assert_eq!(
            one("REPLACE Gibbon new.gibbon@example.org"),
            Command::Replace {
                player: "Gibbon".into(),
                address: "new.gibbon@example.org".into()
            }
        );
        assert_eq!(
            one("REPLACE Stonewall Jackson <tj@example.org>"),
            Command::Replace {
                player: "Stonewall Jackson".into(),
                address: "tj@example.org".into()
            }
        );
        assert!(
            err("REPLACE Gibbon gibbon")
                .message
                .contains("not a mail address")
        );
        assert_eq!(
            one("EJECT Taliaferro"),
            Command::Eject {
                player: "Taliaferro".into()
            }
        );
    }

    #[test]
    fn broadcast_and_orders_for() {
        assert_eq!(
            one("BROADCAST \"Rain: all fire at -1\nthis turn.\""),
            Command::Broadcast {
                text: "Rain: all fire at -1\nthis turn.".into()
            }
        );
        let p = parse("BROADCAST \"Rain tonight.\"\nEXTEND 24h\nBROADCAST \"Two\nlines\"\nRESUME");
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(
            p.commands
                .iter()
                .map(|c| c.command.clone())
                .collect::<Vec<_>>(),
            vec![
                Command::Broadcast {
                    text: "Rain tonight.".into()
                },
                Command::Extend { secs: 86_400 },
                Command::Broadcast {
                    text: "Two\nlines".into()
                },
                Command::Resume
            ]
        );
        let p =
            parse("ORDERS FOR Gibbon\nFrom Gibbon:\n\n2nd Wisconsin: hold.\nEND ORDERS\nRELEASE");
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(
            p.commands[0].command,
            Command::OrdersFor {
                player: "Gibbon".into(),
                text: "From Gibbon:\n\n2nd Wisconsin: hold.".into()
            }
        );
        assert_eq!(p.commands[1].command, Command::Release);
        assert!(err("ORDERS FOR Gibbon\nEND").message.contains("no orders"));
    }

    #[test]
    fn unknown_words_get_a_suggestion_and_good_lines_still_count() {
        let p = parse("PASSWORD hunter2\n# a note\nRELEAES\nREDO\nfrobnicate the guns");
        assert_eq!(
            p.commands,
            vec![Located {
                line: 4,
                command: Command::Redo
            }]
        );
        assert_eq!(p.errors.len(), 2);
        assert_eq!(p.errors[0].line, 3);
        assert!(
            p.errors[0].message.contains("did you mean RELEASE?"),
            "{}",
            p.errors[0]
        );
        assert!(
            p.errors[1].message.contains("the commands are"),
            "{}",
            p.errors[1]
        );
    }

    #[test]
    fn never_panics_on_odd_text() {
        for t in [
            "SET",
            "SET BECAUSE",
            "SET x BECAUSE",
            "SET a morale BECAUSE \"r\"",
            "DICE MODE",
            "INTERPRET",
            "INTERPRET :",
            "REJECT",
            "REPLACE",
            "REPLACE a",
            "EJECT",
            "ORDERS FOR",
            "ORDERS",
            "PAUSE FOR",
            "EXTEND",
            "DEADLINE",
            "ROLL",
            "BROADCAST",
            "BROADCAST \"\"",
            "\u{201c}",
            "SET é morale 1 BECAUSE ü",
            "\t\u{a0}SET\u{a0}x",
        ] {
            let p = parse(t);
            assert!(p.commands.len() + p.errors.len() <= 1, "{t}: {p:?}");
        }
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn help_lists_every_command() {
        for c in COMMANDS {
            assert!(
                HELP_TEXT.contains(&format!("\n  {c}")),
                "{c} is missing from HELP_TEXT"
            );
        }
        let all = parse("help");
        assert_eq!(
            all.commands.first().map(|l| &l.command),
            Some(&Command::Help)
        );
    }

    proptest! {
        /// Whatever an umpire (or a forger) writes, the parser answers every
        /// non-blank line with a command or an error, and never panics.
        #[test]
        fn every_line_is_answered(text in "(?s)[ -~\t\n\u{a0}\u{201c}\u{201d}é°]{0,200}") {
            let p = parse(&text);
            for e in &p.errors {
                prop_assert!(e.line >= 1 && e.column >= 1);
            }
        }

        #[test]
        fn command_words_with_noise(verb in prop::sample::select(COMMANDS.to_vec()),
                                    rest in "[ -~]{0,60}") {
            let _ = parse(&format!("{verb} {rest}"));
        }
    }
}
