//! Rendering views with the Tera templates in `templates/` (embedded at
//! build time, so the daemon needs no template directory at run time).
//!
//! Players get multipart/alternative mail: text that reads well in any
//! client and under 80 columns, and HTML with the SVG map inline; the map is
//! also attached as PNG because many clients will not show SVG.

use super::ReportError;
use super::map::map_parts;
use super::png::layers_to_png_inked;
use super::view::{SideView, UmpireView};
use tera::{Context, Kwargs, State, Tera, TeraResult};

const PLAYER_TXT: &str = include_str!("../../templates/report/player.txt");
const PLAYER_HTML: &str = include_str!("../../templates/report/player.html");
const UMPIRE_TXT: &str = include_str!("../../templates/report/umpire.txt");
const UMPIRE_HTML: &str = include_str!("../../templates/report/umpire.html");

/// Width of the plain-text report.
pub const TEXT_WIDTH: usize = 76;

/// A player's report, ready for `mail::compose` (text, html, and the PNG as
/// an attachment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerReport {
    pub subject: String,
    /// The PNG's attachment name ([`map_file_name`]).
    pub map_file: String,
    pub text: String,
    pub html: String,
    pub svg: String,
    /// The map's static layer as it appears in `html` and `svg`
    /// ([`MapParts::base`](super::map::MapParts)): the store keeps it once
    /// per game rather than in every report.
    pub map_base: String,
    pub png: Vec<u8>,
}

/// The umpire's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UmpireReport {
    pub subject: String,
    /// The PNG's attachment name ([`map_file_name`]).
    pub map_file: String,
    pub text: String,
    pub html: String,
    pub svg: String,
    /// The map's static layer as it appears in `html` and `svg`
    /// ([`MapParts::base`](super::map::MapParts)): the store keeps it once
    /// per game rather than in every report.
    pub map_base: String,
    pub png: Vec<u8>,
}

/// Lower-case letters and digits of `s`, other runs as one `-`: a safe
/// piece of a file name.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The map attachment's name, by game, turn and reader (issue #14: not
/// every attachment `map.png`): `brawner-briefing-union.png` before turn
/// 1 (`results_of` 0), then `brawner-after-turn3-union.png` for the
/// situation after turn 3, `…-umpire.png` for the umpire's.
pub fn map_file_name(game: &str, results_of: u32, who: &str) -> String {
    let when = if results_of == 0 {
        "briefing".to_string()
    } else {
        format!("after-turn{results_of}")
    };
    let who = slug(who);
    let who = if who.is_empty() {
        "map".to_string()
    } else {
        who
    };
    format!("{}-{when}-{who}.png", slug(game))
}

/// The subject of a player's report: "[g] Turn 3 results (orders now for
/// turn 4), report for Gibbon (Union)"; the briefing before turn 1 is
/// "[g] Briefing (orders now for turn 1), report for Gibbon (Union)".
pub fn player_subject(view: &SideView) -> String {
    let what = if view.briefing.is_some() || view.results_of == 0 {
        "Briefing".to_string()
    } else {
        format!("Turn {} results", view.results_of)
    };
    if view.ending.is_some() {
        return format!(
            "[{}] {what}: the battle is over, report for {} ({})",
            view.game, view.player, view.side
        );
    }
    format!(
        "[{}] {what} (orders now for turn {}), report for {} ({})",
        view.game, view.turn, view.player, view.side
    )
}

/// Greedy word wrap so no line passes `width` columns, for text that
/// begins at column `start`; continuation lines start with `indent`
/// spaces. Words longer than the width stand alone on a line.
pub fn wrap(text: &str, width: usize, start: usize, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    for (n, para) in text.lines().enumerate() {
        if n > 0 {
            out.push('\n');
            out.push_str(&pad);
        }
        let mut col = if n > 0 { indent } else { start };
        let mut first = true;
        for word in para.split_whitespace() {
            let len = word.chars().count();
            if !first && col + 1 + len > width {
                out.push('\n');
                out.push_str(&pad);
                col = indent;
                first = true;
            }
            if !first {
                out.push(' ');
                col += 1;
            }
            out.push_str(word);
            col += len;
            first = false;
        }
    }
    out
}

/// Trailing spaces off, runs of blank lines cut to one: templates can then
/// be laid out for reading rather than for whitespace control.
fn tidy_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_start_matches('\n').to_string()
}

fn tera_err(e: tera::Error) -> ReportError {
    // Tera's Display is terse; the Debug form carries the source chain.
    ReportError::Template(format!("{e:?}"))
}

/// The template set, parsed once and reused for every report.
pub struct Reporter {
    tera: Tera,
}

impl Reporter {
    /// The one reporter of the process, its templates compiled the first
    /// time (issue #18: not again for every turn). A failure is returned
    /// and not kept, so a later call tries again.
    pub fn shared() -> Result<&'static Reporter, ReportError> {
        static SHARED: std::sync::OnceLock<Reporter> = std::sync::OnceLock::new();
        if let Some(r) = SHARED.get() {
            return Ok(r);
        }
        let r = Reporter::new()?;
        Ok(SHARED.get_or_init(|| r))
    }

    pub fn new() -> Result<Reporter, ReportError> {
        let mut tera = Tera::new();
        tera.register_filter(
            "wrap",
            |s: &str, kwargs: Kwargs, _: &State| -> TeraResult<String> {
                let width = kwargs.get::<i64>("width")?.unwrap_or(TEXT_WIDTH as i64);
                let indent = kwargs.get::<i64>("indent")?.unwrap_or(0);
                let start = kwargs.get::<i64>("start")?.unwrap_or(0);
                Ok(wrap(
                    s,
                    usize::try_from(width).unwrap_or(TEXT_WIDTH),
                    usize::try_from(start).unwrap_or(0),
                    usize::try_from(indent).unwrap_or(0),
                ))
            },
        );
        tera.add_raw_templates([
            ("player.txt", PLAYER_TXT),
            ("player.html", PLAYER_HTML),
            ("umpire.txt", UMPIRE_TXT),
            ("umpire.html", UMPIRE_HTML),
        ])
        .map_err(tera_err)?;
        Ok(Reporter { tera })
    }

    /// Text, HTML, SVG and PNG of one player's report. Everything comes
    /// from the view; the PNG is made from the same filtered SVG.
    pub fn player(&self, view: &SideView) -> Result<PlayerReport, ReportError> {
        let parts = map_parts(&view.map);
        let svg = parts.svg();
        let map_file = map_file_name(&view.game, view.results_of, &view.side);
        let mut ctx = Context::new();
        ctx.insert("v", view);
        ctx.insert("svg", &svg);
        ctx.insert("map_file", &map_file);
        let text = tidy_text(&self.tera.render("player.txt", &ctx).map_err(tera_err)?);
        let html = self.tera.render("player.html", &ctx).map_err(tera_err)?;
        let png = layers_to_png_inked(&parts.base_svg(), &parts.png_overlay_svg(), &parts.inks)?;
        Ok(PlayerReport {
            subject: player_subject(view),
            map_file,
            text,
            html,
            svg,
            map_base: parts.base,
            png,
        })
    }

    /// Text, HTML, SVG and PNG of the umpire's report.
    pub fn umpire(&self, view: &UmpireView) -> Result<UmpireReport, ReportError> {
        let parts = map_parts(&view.map);
        let svg = parts.svg();
        let results_of = view.turn.saturating_sub(1);
        let map_file = map_file_name(&view.game, results_of, "umpire");
        let mut ctx = Context::new();
        ctx.insert("v", view);
        ctx.insert("svg", &svg);
        ctx.insert("results_of", &results_of);
        ctx.insert("map_file", &map_file);
        let text = tidy_text(&self.tera.render("umpire.txt", &ctx).map_err(tera_err)?);
        let html = self.tera.render("umpire.html", &ctx).map_err(tera_err)?;
        let png = layers_to_png_inked(&parts.base_svg(), &parts.png_overlay_svg(), &parts.inks)?;
        Ok(UmpireReport {
            subject: if view.ending.is_some() {
                format!(
                    "[{}] Turn {results_of} results: the battle is over, umpire's report",
                    view.game
                )
            } else {
                format!(
                    "[{}] Turn {results_of} results (orders now for turn {}), umpire's report",
                    view.game, view.turn
                )
            },
            map_file,
            text,
            html,
            svg,
            map_base: parts.base,
            png,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_lines_within_width() {
        let s = "The 2nd Wisconsin advanced two hundred yards under a galling fire and halted at the fence.";
        let w = wrap(s, 30, 2, 4);
        assert!(w.lines().next().unwrap().chars().count() <= 28, "{w}");
        assert!(w.lines().all(|l| l.chars().count() <= 30), "{w}");
        assert!(w.lines().skip(1).all(|l| l.starts_with("    ")));
        assert_eq!(
            w.split_whitespace().collect::<Vec<_>>(),
            s.split_whitespace().collect::<Vec<_>>()
        );
    }

    #[test]
    fn tidy_collapses_blank_runs() {
        assert_eq!(tidy_text("\na  \n\n\n\nb\n"), "a\n\nb\n");
    }

    #[test]
    fn map_files_are_named_by_game_turn_and_side() {
        assert_eq!(
            map_file_name("brawner", 3, "Union"),
            "brawner-after-turn3-union.png"
        );
        assert_eq!(
            map_file_name("brawner", 0, "Army of Virginia"),
            "brawner-briefing-army-of-virginia.png"
        );
        assert_eq!(map_file_name("g", 1, "umpire"), "g-after-turn1-umpire.png");
    }

    #[test]
    fn templates_parse() {
        Reporter::new().unwrap();
    }
}
