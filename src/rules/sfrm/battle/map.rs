//! The SFRM brigade-scale map as SVG (pure: a battle and a view in, a
//! document out; nothing here rolls, reads a clock or writes).
//!
//! The drawing's user units are table inches (SFRM Table 1: 1" = 100 yd):
//! the `viewBox` is the table in inches, with a band above for the title
//! and one below for the legend, y flipped so that north (+y) is up. The
//! document's pixel size makes the longer side of the table about 900 px,
//! as Iron Brigade's maps.
//!
//! - [`side_map_svg`] draws what one side sees: the ground (public: the
//!   scenario's map), its own units and generals from the
//!   [`SideView`](super::view::SideView), and the enemy only as the view's
//!   `enemy_units` and `enemy_generals` give them (their `called` names; a
//!   seen enemy is drawn at a nominal size, since its frontage would tell
//!   its elements, which the view withholds). The side's map never reads
//!   the battle's units or generals.
//! - [`umpire_map_svg`] draws everything, with real names and elements.
//!
//! The look follows the Iron Brigade map (`report::map`: the same paper,
//! terrain colours, label font and cards, grid, north arrow and legend);
//! the few style constants are copied here, since `rules` sits below
//! `report` and may not import it.

use super::nouns::{Arm, Formation, General, Ground, Pos, SfrmBattle, Side, Unit};
use super::tables::{YARDS_PER_INCH, base_front, general_base_front};
use super::view::SideView;
use std::fmt::Write;

/// The map label font (the one `report::map::MAP_FONT` names and the PNG
/// renderer ships).
const MAP_FONT: &str = "DejaVu Sans";
/// Pixels of the longer side of the table (as `report::map`).
const TARGET_PX: f64 = 900.0;
/// Margin, title band and legend band, in pixels (converted to inches by
/// the frame's scale).
const MARGIN_PX: f64 = 24.0;
const HEADER_PX: f64 = 28.0;
const LEGEND_PX: f64 = 52.0;
/// Label size and card height in pixels (as `report::map`).
const LABEL_PX: f64 = 10.0;
const CARD_H_PX: f64 = 13.5;
const BASELINE_PX: f64 = 10.4;

const OWN: &str = "#1f4e9c";
const ENEMY: &str = "#b22222";
const ENEMY_CARD: &str = "#8b1a1a";
/// The umpire's colours: Union blue, Confederate grey (Iron Brigade's
/// side colours 0 and 1).
const UNION: &str = "#1f4e9c";
const CONFEDERATE: &str = "#8a8a8a";
const PAPER: &str = "#f4efe1";
const ROAD: &str = "#b08850";
const WORKS: &str = "#6d4c2a";

/// SFRM Table 1, "Basing Scales": the depth of one of the unit's element
/// bases, in inches (infantry and dismounted cavalry ¾", mounted cavalry
/// 1½", artillery 1½", supply 3").
pub(super) fn base_depth(unit: &Unit) -> f64 {
    match unit.arm {
        Arm::Infantry { .. } => 0.75,
        Arm::Cavalry { .. } if unit.mounted => 1.5,
        Arm::Cavalry { .. } => 0.75,
        Arm::Artillery { .. } => 1.5,
        Arm::Supply => 3.0,
    }
}

/// What kind of piece: the glyph drawn inside its footprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Infantry,
    Cavalry,
    Artillery,
    Supply,
}

impl Kind {
    fn of(arm: Arm) -> Kind {
        match arm {
            Arm::Infantry { .. } => Kind::Infantry,
            Arm::Cavalry { .. } => Kind::Cavalry,
            Arm::Artillery { .. } => Kind::Artillery,
            Arm::Supply => Kind::Supply,
        }
    }

    /// From a sighting's kind noun ([`super::view::kind_noun`]).
    fn of_noun(noun: &str) -> Kind {
        if noun.starts_with("cavalry") {
            Kind::Cavalry
        } else if noun.starts_with("artillery") {
            Kind::Artillery
        } else if noun.starts_with("supply") {
            Kind::Supply
        } else {
            Kind::Infantry
        }
    }
}

/// A piece to draw: its footprint's corners (front-left, front-right,
/// rear-right, rear-left, in table inches), colour and words.
#[derive(Debug, Clone)]
struct Piece {
    corners: [Pos; 4],
    kind: Kind,
    fill: &'static str,
    routed: bool,
    entrenched: bool,
    /// The label on the map.
    label: String,
    /// The tooltip: the label and what else is known.
    title: String,
    /// Enemy labels are white on dark red.
    enemy: bool,
    /// The label's text colour (own and umpire labels).
    ink: &'static str,
}

/// A unit's footprint from its front's centre, facing, front and depth
/// (in inches): the front edge across the facing, the body behind it.
fn footprint(front_centre: Pos, facing: f64, front: f64, depth: f64) -> [Pos; 4] {
    let fl = front_centre.step(facing - 90.0, front / 2.0);
    let fr = front_centre.step(facing + 90.0, front / 2.0);
    let back = facing + 180.0;
    [fl, fr, fr.step(back, depth), fl.step(back, depth)]
}

/// Elements across and ranks deep of a formation of `n` elements with
/// `front` in the front rank ("Formation Changes"; our reading in
/// [`Unit::front_elements`]).
pub(super) fn ranks(n: u32, front: u32) -> f64 {
    f64::from(n.max(1).div_ceil(front.max(1)))
}

fn own_piece(u: &Unit, fill: &'static str, label: String, title: String) -> Piece {
    let front = f64::from(u.front_elements().max(1)) * base_front(u);
    let depth = ranks(u.elements, u.front_elements()) * base_depth(u);
    Piece {
        corners: footprint(u.pos, u.facing, front, depth),
        kind: Kind::of(u.arm),
        fill,
        routed: u.routed,
        entrenched: u.entrenchment > 0,
        label,
        title,
        enemy: false,
        ink: if fill == CONFEDERATE { "#555555" } else { OWN },
    }
}

/// A seen enemy's footprint: a nominal four elements of infantry, or two
/// of (mounted) cavalry, whose bases are twice as wide, in its formation
/// (its true frontage would tell its elements, which the side is not
/// told).
fn nominal_footprint(kind: Kind, formation: Formation, pos: Pos, facing: f64) -> [Pos; 4] {
    let nominal: u32 = if kind == Kind::Cavalry { 2 } else { 4 };
    let (front, depth) = match kind {
        Kind::Infantry => (0.75, 0.75),
        Kind::Cavalry => (1.5, 1.5),
        Kind::Artillery => (1.0, 1.5),
        Kind::Supply => (1.0, 3.0),
    };
    let single = matches!(kind, Kind::Artillery | Kind::Supply);
    let across = if single {
        1
    } else {
        match formation {
            Formation::MarchColumn => 1,
            Formation::BattleColumn => 2,
            Formation::Skirmish | Formation::Square => nominal / 2,
            Formation::Line | Formation::DeployedInTown => nominal,
        }
    };
    let deep = if single { 1 } else { nominal.div_ceil(across) };
    footprint(
        pos,
        facing,
        f64::from(across) * front,
        f64::from(deep) * depth,
    )
}

/// A general's mark: his base's front (Table 1) at his point.
#[derive(Debug, Clone)]
struct Mark {
    at: Pos,
    size: f64,
    stroke: &'static str,
    label: Option<String>,
    title: String,
}

fn general_mark(g: &General, stroke: &'static str, label: Option<String>) -> Mark {
    Mark {
        at: g.pos,
        size: general_base_front(g.rank),
        stroke,
        title: format!(
            "General {} ({} {}){}",
            g.name,
            g.quality.name(),
            g.role_rank().name(),
            if g.attached_to.is_some() {
                ", attached"
            } else {
                ""
            }
        ),
        label,
    }
}

/// Escape text for XML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Advance of a character of DejaVu Sans Condensed at 10 px, a little
/// wide (the widths `report::map` measured with usvg).
fn char_px(c: char) -> f64 {
    match c {
        'W' | 'M' | 'm' | 'w' | '@' | '%' => 9.2,
        'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'I' => 3.0,
        ' ' | 'f' | 't' | 'r' | '(' | ')' | '-' | '[' | ']' => 3.9,
        '0'..='9' => 6.0,
        c if c.is_ascii_uppercase() => 6.6,
        c if c.is_ascii_lowercase() => 5.4,
        _ => 7.5,
    }
}

fn text_px(text: &str) -> f64 {
    text.chars().map(char_px).sum()
}

/// The table's extent in inches: from the origin (the south-west corner
/// scenarios measure from) to the farthest ground, road, supply source or
/// piece drawn, in whole inches. Only what the reader may see counts: a
/// side's map never grows to hold an enemy it has not seen.
#[derive(Debug, Clone, Copy)]
struct Frame {
    min: Pos,
    max: Pos,
    /// Pixels per inch.
    px: f64,
}

impl Frame {
    fn new(b: &SfrmBattle, pieces: impl IntoIterator<Item = Pos>) -> Frame {
        let mut min = Pos::new(0.0, 0.0);
        let mut max = Pos::new(1.0, 1.0);
        let mut grow = |p: Pos| {
            if p.x.is_finite() && p.y.is_finite() {
                min = Pos::new(min.x.min(p.x), min.y.min(p.y));
                max = Pos::new(max.x.max(p.x), max.y.max(p.y));
            }
        };
        for a in &b.ground {
            grow(a.min);
            grow(a.max);
        }
        for r in &b.roads {
            r.points.iter().copied().for_each(&mut grow);
        }
        for s in &b.supply_sources {
            grow(s.pos);
        }
        pieces.into_iter().for_each(&mut grow);
        let min = Pos::new(min.x.floor(), min.y.floor());
        let max = Pos::new(max.x.ceil(), max.y.ceil());
        let span = (max.x - min.x).max(max.y - min.y).max(1.0);
        Frame {
            min,
            max,
            px: (TARGET_PX / span).clamp(2.0, 60.0),
        }
    }

    /// Inches of `p` pixels.
    fn i(&self, p: f64) -> f64 {
        p / self.px
    }

    /// Drawing x of a table x (the drawing's units are inches).
    fn x(&self, x: f64) -> f64 {
        x
    }

    /// Drawing y of a table y: flipped, north up.
    fn y(&self, y: f64) -> f64 {
        self.max.y + self.min.y - y
    }

    fn pt(&self, p: Pos) -> String {
        format!("{:.2},{:.2}", self.x(p.x), self.y(p.y))
    }

    fn points(&self, ps: &[Pos]) -> String {
        ps.iter()
            .filter(|p| p.x.is_finite() && p.y.is_finite())
            .map(|p| self.pt(*p))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The document's opening: the viewBox in inches, with the title band
    /// above and the legend below.
    fn open(&self) -> String {
        let (m, h, l) = (self.i(MARGIN_PX), self.i(HEADER_PX), self.i(LEGEND_PX));
        let vx = self.min.x - m;
        let vy = self.min.y - m - h;
        let vw = self.max.x - self.min.x + 2.0 * m;
        let vh = self.max.y - self.min.y + 2.0 * m + h + l;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{:.0}\" viewBox=\"{vx:.3} {vy:.3} {vw:.3} {vh:.3}\" font-family=\"{MAP_FONT}, sans-serif\" font-size=\"{:.3}\">\n",
            (vw * self.px).ceil(),
            (vh * self.px).ceil(),
            self.i(11.0)
        )
    }
}

/// Hills level by level (higher darker), then woods, town, river and
/// sunken road (the colours of Iron Brigade's map), roads over them, and
/// supply sources.
fn draw_ground(s: &mut String, f: &Frame, b: &SfrmBattle) {
    let w = f.i(1.0);
    let _ = writeln!(
        s,
        "<rect x=\"{:.3}\" y=\"{:.3}\" width=\"{:.3}\" height=\"{:.3}\" fill=\"{PAPER}\" stroke=\"#555555\" stroke-width=\"{w:.3}\"/>",
        f.x(f.min.x),
        f.y(f.max.y),
        f.max.x - f.min.x,
        f.max.y - f.min.y
    );
    let mut areas: Vec<_> = b.ground.iter().collect();
    // Hills first, lower under higher; other ground over them.
    areas.sort_by_key(|a| match a.ground {
        Ground::Hill { level } => (0, level),
        _ => (1, 0),
    });
    for a in areas {
        let (style, what) = match a.ground {
            Ground::Hill { level } => (
                format!(
                    "fill:#e2cfa5;fill-opacity:{:.2};stroke:#a0804a",
                    (0.55 + 0.2 * f64::from(level)).min(1.0)
                ),
                format!("hill, level {level}"),
            ),
            Ground::Woods => ("fill:#9cc58a;stroke:#5b8a4a".into(), "woods".into()),
            Ground::Town => ("fill:#b4a498;stroke:#6d5a48".into(), "town".into()),
            Ground::River => ("fill:#7fa9d9;stroke:#4a7fc1".into(), "river".into()),
            Ground::SunkenRoad => (
                "fill:#d9cfa6;stroke:#7a5a30;stroke-dasharray:0.5 0.3".into(),
                "sunken road".into(),
            ),
        };
        let _ = writeln!(
            s,
            "<rect x=\"{:.3}\" y=\"{:.3}\" width=\"{:.3}\" height=\"{:.3}\" style=\"{style};stroke-width:{w:.3}\"><title>{what}</title></rect>",
            f.x(a.min.x),
            f.y(a.max.y),
            a.max.x - a.min.x,
            a.max.y - a.min.y
        );
    }
    for r in &b.roads {
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" style=\"fill:none;stroke:{ROAD};stroke-width:{:.3};stroke-linejoin:round\"><title>{}</title></polyline>",
            f.points(&r.points),
            f.i(4.0),
            esc(if r.name.is_empty() { "road" } else { &r.name })
        );
    }
    for src in &b.supply_sources {
        let d = f.i(7.0);
        let _ = writeln!(
            s,
            "<rect x=\"{:.3}\" y=\"{:.3}\" width=\"{d:.3}\" height=\"{d:.3}\" fill=\"#333333\" stroke=\"{}\" stroke-width=\"{:.3}\"><title>{} supply source (SFRM Supply)</title></rect>",
            f.x(src.pos.x) - d / 2.0,
            f.y(src.pos.y) - d / 2.0,
            side_colour(src.side),
            f.i(1.5),
            src.side.name()
        );
    }
}

fn side_colour(side: Side) -> &'static str {
    match side {
        Side::Union => UNION,
        Side::Confederate => CONFEDERATE,
    }
}

/// Inches between grid lines: the smallest of 1, 2, 5, 10, 20, 50 that
/// draws no more than a dozen lines across the longer side.
fn grid_step(f: &Frame) -> f64 {
    let span = (f.max.x - f.min.x).max(f.max.y - f.min.y);
    [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        .into_iter()
        .find(|s| span / s <= 12.0)
        .unwrap_or(100.0)
}

/// A light grid in table inches, labelled along the bottom (x, east) and
/// the left (y, north), to read places against the report's coordinates.
fn draw_grid(s: &mut String, f: &Frame) {
    let step = grid_step(f);
    let _ = write!(
        s,
        "<g stroke=\"#000000\" stroke-opacity=\"0.13\" stroke-width=\"{:.3}\">",
        f.i(0.6)
    );
    let mut x = (f.min.x / step).ceil() * step;
    while x <= f.max.x + 1e-9 {
        let _ = write!(
            s,
            "<line x1=\"{x:.3}\" y1=\"{:.3}\" x2=\"{x:.3}\" y2=\"{:.3}\"/>",
            f.y(f.max.y),
            f.y(f.min.y)
        );
        x += step;
    }
    let mut y = (f.min.y / step).ceil() * step;
    while y <= f.max.y + 1e-9 {
        let _ = write!(
            s,
            "<line x1=\"{:.3}\" y1=\"{:.3}\" x2=\"{:.3}\" y2=\"{:.3}\"/>",
            f.min.x,
            f.y(y),
            f.max.x,
            f.y(y)
        );
        y += step;
    }
    let _ = writeln!(s, "</g>");
    let _ = write!(s, "<g font-size=\"{:.3}\" fill=\"#555555\">", f.i(9.0));
    let mut x = (f.min.x / step).ceil() * step;
    while x <= f.max.x + 1e-9 {
        let _ = write!(
            s,
            "<text x=\"{x:.3}\" y=\"{:.3}\" text-anchor=\"middle\">{:.0}</text>",
            f.y(f.min.y) + f.i(11.0),
            x + 0.0
        );
        x += step;
    }
    let mut y = (f.min.y / step).ceil() * step;
    while y <= f.max.y + 1e-9 {
        let _ = write!(
            s,
            "<text x=\"{:.3}\" y=\"{:.3}\" text-anchor=\"end\">{:.0}</text>",
            f.min.x - f.i(3.0),
            f.y(y) + f.i(3.0),
            y + 0.0
        );
        y += step;
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.3}\" y=\"{:.3}\" text-anchor=\"end\">inches</text></g>",
        f.max.x,
        f.y(f.min.y) + f.i(21.0)
    );
}

/// The north arrow, in the table's north-east corner (north is +y).
fn draw_north(s: &mut String, f: &Frame) {
    let nx = f.max.x - f.i(14.0);
    let ny = f.y(f.max.y) + f.i(6.0);
    let _ = writeln!(
        s,
        "<g><title>north</title><polygon points=\"{nx:.3},{ny:.3} {:.3},{:.3} {:.3},{:.3}\" fill=\"#000000\"/><text x=\"{:.3}\" y=\"{:.3}\" font-size=\"{:.3}\" font-weight=\"bold\">N</text></g>",
        nx - f.i(5.0),
        ny + f.i(14.0),
        nx + f.i(5.0),
        ny + f.i(14.0),
        nx - f.i(4.0),
        ny + f.i(26.0),
        f.i(11.0)
    );
}

/// A scale bar in yards at SFRM's 1" = 100 yd (Table 1): the round
/// length nearest a fifth of the table's width, in alternate bands, under
/// the table at its right.
fn draw_scale_bar(s: &mut String, f: &Frame) {
    let yd = f64::from(YARDS_PER_INCH);
    let want = (f.max.x - f.min.x) / 5.0 * yd;
    let yards = [100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0]
        .into_iter()
        .min_by(|a, c| (a - want).abs().total_cmp(&(c - want).abs()))
        .unwrap_or(1000.0);
    let len = yards / yd;
    let x0 = f.max.x - len;
    let y = f.y(f.min.y) + f.i(MARGIN_PX + 6.0);
    let h = f.i(5.0);
    let _ = write!(s, "<g><title>scale: 1 inch = {yd:.0} yards</title>");
    for i in 0..4 {
        let _ = write!(
            s,
            "<rect x=\"{:.3}\" y=\"{y:.3}\" width=\"{:.3}\" height=\"{h:.3}\" fill=\"{}\" stroke=\"#222222\" stroke-width=\"{:.3}\"/>",
            x0 + len * f64::from(i) / 4.0,
            len / 4.0,
            if i % 2 == 0 { "#222222" } else { "#ffffff" },
            f.i(0.8)
        );
    }
    let words = format!("{} yards (1 in = {yd:.0} yards)", thousands(yards));
    let _ = writeln!(
        s,
        "<text x=\"{:.3}\" y=\"{:.3}\" font-size=\"{:.3}\" text-anchor=\"end\" fill=\"#222222\">0</text><text x=\"{:.3}\" y=\"{:.3}\" font-size=\"{:.3}\" text-anchor=\"end\" fill=\"#222222\">{}</text></g>",
        x0 - f.i(3.0),
        y + h,
        f.i(10.0),
        x0 + len,
        y + h + f.i(13.0),
        f.i(10.0),
        esc(&words)
    );
}

fn thousands(v: f64) -> String {
    let n = v.round() as u64;
    if n >= 1000 {
        format!("{},{:03}", n / 1000, n % 1000)
    } else {
        n.to_string()
    }
}

/// A piece: footprint, thick front edge, its arm's glyph, and its state:
/// routed pieces dashed and pale, entrenched ones with works along their
/// front.
fn draw_piece(s: &mut String, f: &Frame, p: &Piece) {
    if !p.corners.iter().all(|c| c.x.is_finite() && c.y.is_finite()) {
        return;
    }
    let [fl, fr, rr, rl] = p.corners;
    let (fill_op, dash) = if p.routed {
        (
            0.35,
            format!(";stroke-dasharray:{:.3} {:.3}", f.i(3.0), f.i(2.0)),
        )
    } else {
        (0.9, String::new())
    };
    let _ = write!(
        s,
        "<g><title>{}</title><polygon points=\"{}\" style=\"fill:{};fill-opacity:{fill_op};stroke:#000000;stroke-width:{:.3}{dash}\"/>",
        esc(&p.title),
        f.points(&[fl, fr, rr, rl]),
        p.fill,
        f.i(0.8)
    );
    // The front edge, thick (as Iron Brigade's map).
    let _ = write!(
        s,
        "<line x1=\"{:.3}\" y1=\"{:.3}\" x2=\"{:.3}\" y2=\"{:.3}\" stroke=\"#000000\" stroke-width=\"{:.3}\"/>",
        f.x(fl.x),
        f.y(fl.y),
        f.x(fr.x),
        f.y(fr.y),
        f.i(2.5)
    );
    if p.entrenched {
        // Works a little in front of the front edge.
        let facing = rl.bearing_to(fl);
        let (a, c) = (fl.step(facing, f.i(3.5)), fr.step(facing, f.i(3.5)));
        let _ = write!(
            s,
            "<line x1=\"{:.3}\" y1=\"{:.3}\" x2=\"{:.3}\" y2=\"{:.3}\" stroke=\"{WORKS}\" stroke-width=\"{:.3}\"/>",
            f.x(a.x),
            f.y(a.y),
            f.x(c.x),
            f.y(c.y),
            f.i(3.0)
        );
    }
    let glyph = f.i(0.9);
    match p.kind {
        // Cavalry: one diagonal, as the military symbol.
        Kind::Cavalry => {
            let _ = write!(
                s,
                "<line x1=\"{:.3}\" y1=\"{:.3}\" x2=\"{:.3}\" y2=\"{:.3}\" stroke=\"#ffffff\" stroke-width=\"{glyph:.3}\"/>",
                f.x(rl.x),
                f.y(rl.y),
                f.x(fr.x),
                f.y(fr.y)
            );
        }
        // Artillery: a dot in the middle.
        Kind::Artillery => {
            let c = Pos::new((fl.x + rr.x) / 2.0, (fl.y + rr.y) / 2.0);
            let _ = write!(
                s,
                "<circle cx=\"{:.3}\" cy=\"{:.3}\" r=\"{:.3}\" fill=\"#ffffff\" stroke=\"#000000\" stroke-width=\"{:.3}\"/>",
                f.x(c.x),
                f.y(c.y),
                f.i(2.2),
                f.i(0.6)
            );
        }
        Kind::Infantry | Kind::Supply => {}
    }
    if p.routed {
        // Routed: a cross over the footprint.
        let _ = write!(
            s,
            "<line x1=\"{:.3}\" y1=\"{:.3}\" x2=\"{:.3}\" y2=\"{:.3}\" stroke=\"#000000\" stroke-width=\"{glyph:.3}\"/><line x1=\"{:.3}\" y1=\"{:.3}\" x2=\"{:.3}\" y2=\"{:.3}\" stroke=\"#000000\" stroke-width=\"{glyph:.3}\"/>",
            f.x(fl.x),
            f.y(fl.y),
            f.x(rr.x),
            f.y(rr.y),
            f.x(fr.x),
            f.y(fr.y),
            f.x(rl.x),
            f.y(rl.y)
        );
    }
    let _ = writeln!(s, "</g>");
}

/// A general: a gold square of his base's front (Table 1), edged in his
/// side's colour.
fn draw_general(s: &mut String, f: &Frame, m: &Mark) {
    if !(m.at.x.is_finite() && m.at.y.is_finite()) {
        return;
    }
    let d = m.size.max(f.i(7.0));
    let _ = writeln!(
        s,
        "<g><title>{}</title><rect x=\"{:.3}\" y=\"{:.3}\" width=\"{d:.3}\" height=\"{d:.3}\" fill=\"#ffd700\" stroke=\"{}\" stroke-width=\"{:.3}\"/></g>",
        esc(&m.title),
        f.x(m.at.x) - d / 2.0,
        f.y(m.at.y) - d / 2.0,
        m.stroke,
        f.i(2.0)
    );
}

/// A box in drawing inches: left, top, right, bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bx {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Bx {
    fn around(f: &Frame, ps: &[Pos]) -> Bx {
        let xs = ps.iter().map(|p| f.x(p.x));
        let ys = ps.iter().map(|p| f.y(p.y));
        Bx {
            x0: xs.clone().fold(f64::INFINITY, f64::min),
            x1: xs.fold(f64::NEG_INFINITY, f64::max),
            y0: ys.clone().fold(f64::INFINITY, f64::min),
            y1: ys.fold(f64::NEG_INFINITY, f64::max),
        }
    }

    fn overlaps(&self, o: &Bx) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn inside(&self, o: &Bx) -> bool {
        self.x0 >= o.x0 && self.x1 <= o.x1 && self.y0 >= o.y0 && self.y1 <= o.y1
    }
}

/// A label to place: its words, its style and the box of its piece.
struct Want {
    text: String,
    ink: &'static str,
    enemy: bool,
    general: bool,
    anchor: Bx,
}

/// A placed label: its card and a leader line to its piece when it stands
/// off.
struct Placed {
    text: String,
    ink: &'static str,
    enemy: bool,
    general: bool,
    card: Bx,
    leader: Option<(f64, f64)>,
}

/// Places labels so that none covers another label or a piece, each on
/// the table: round its piece nearest first (right, left, above, below,
/// the corners), then farther out with a leader line. Deterministic; a
/// label with no free place goes to its first place on the table.
fn layout(f: &Frame, wants: Vec<Want>, pieces: &[Bx]) -> Vec<Placed> {
    let table = Bx {
        x0: f.min.x,
        y0: f.y(f.max.y),
        x1: f.max.x,
        y1: f.y(f.min.y),
    };
    let h = f.i(CARD_H_PX);
    let gap = f.i(2.0);
    let mut taken: Vec<Bx> = pieces.to_vec();
    let mut out = Vec::with_capacity(wants.len());
    for w in wants {
        let width = f.i(text_px(&w.text) + 4.0);
        let a = w.anchor;
        let (cx, cy) = ((a.x0 + a.x1) / 2.0, (a.y0 + a.y1) / 2.0);
        let mut chosen: Option<(Bx, bool)> = None;
        let mut first_on_table: Option<(Bx, bool)> = None;
        'rings: for ring in 0..6 {
            let d = gap + f64::from(ring) * f.i(12.0);
            let cands = [
                (a.x1 + d, cy - h / 2.0),
                (a.x0 - d - width, cy - h / 2.0),
                (cx - width / 2.0, a.y0 - d - h),
                (cx - width / 2.0, a.y1 + d),
                (a.x1 + d, a.y0 - d - h),
                (a.x0 - d - width, a.y0 - d - h),
                (a.x1 + d, a.y1 + d),
                (a.x0 - d - width, a.y1 + d),
            ];
            for (x, y) in cands {
                let card = Bx {
                    x0: x,
                    y0: y,
                    x1: x + width,
                    y1: y + h,
                };
                if !card.inside(&table) {
                    continue;
                }
                let off = ring > 0;
                if first_on_table.is_none() {
                    first_on_table = Some((card, off));
                }
                if !taken.iter().any(|t| t.overlaps(&card)) {
                    chosen = Some((card, off));
                    break 'rings;
                }
            }
        }
        let Some((card, off)) = chosen.or(first_on_table) else {
            continue;
        };
        taken.push(card);
        out.push(Placed {
            text: w.text,
            ink: w.ink,
            enemy: w.enemy,
            general: w.general,
            card,
            leader: off.then_some((cx, cy)),
        });
    }
    out
}

fn draw_label(s: &mut String, f: &Frame, l: &Placed) {
    let c = &l.card;
    if let Some((lx, ly)) = l.leader {
        let ex = lx.clamp(c.x0, c.x1);
        let ey = ly.clamp(c.y0, c.y1);
        let _ = writeln!(
            s,
            "<line x1=\"{ex:.3}\" y1=\"{ey:.3}\" x2=\"{lx:.3}\" y2=\"{ly:.3}\" stroke=\"#444444\" stroke-width=\"{:.3}\" stroke-opacity=\"0.8\"/>",
            f.i(0.7)
        );
    }
    let (card, card_op, text, weight, style) = if l.enemy {
        (ENEMY_CARD, 1.0, "#ffffff", "bold", "normal")
    } else if l.general {
        ("#fff8d0", 0.85, "#222222", "normal", "italic")
    } else {
        ("#ffffff", 0.85, l.ink, "bold", "normal")
    };
    let _ = writeln!(
        s,
        "<g><rect x=\"{:.3}\" y=\"{:.3}\" width=\"{:.3}\" height=\"{:.3}\" fill=\"{card}\" fill-opacity=\"{card_op}\"/><text x=\"{:.3}\" y=\"{:.3}\" font-size=\"{:.3}\" font-weight=\"{weight}\" font-style=\"{style}\" fill=\"{text}\">{}</text></g>",
        c.x0,
        c.y0,
        c.x1 - c.x0,
        c.y1 - c.y0,
        c.x0 + f.i(2.0),
        c.y0 + f.i(BASELINE_PX),
        f.i(LABEL_PX),
        esc(&l.text)
    );
}

/// The legend's row under the table: each kind of mark and what it means
/// to this reader.
fn draw_legend(s: &mut String, f: &Frame, rows: &[(&'static str, String)]) {
    let y = f.y(f.min.y) + f.i(MARGIN_PX + 6.0);
    let mut x = f.min.x;
    let _ = write!(s, "<g font-size=\"{:.3}\" fill=\"#222222\">", f.i(LABEL_PX));
    let (w, h) = (f.i(18.0), f.i(8.0));
    for (colour, words) in rows {
        let _ = write!(
            s,
            "<rect x=\"{x:.3}\" y=\"{y:.3}\" width=\"{w:.3}\" height=\"{h:.3}\" fill=\"{colour}\" stroke=\"#000000\" stroke-width=\"{:.3}\"/><text x=\"{:.3}\" y=\"{:.3}\">{}</text>",
            f.i(0.8),
            x + w + f.i(4.0),
            y + h,
            esc(words)
        );
        x += w + f.i(4.0 + text_px(words) + 12.0);
    }
    // The second row: the pieces' marks and the ground.
    let y = y + f.i(18.0);
    let mut x = f.min.x;
    let items: [(&str, &str); 6] = [
        ("#ffd700", "general"),
        ("#9cc58a", "woods"),
        ("#b4a498", "town"),
        ("#7fa9d9", "river"),
        ("#e2cfa5", "hill"),
        (ROAD, "road"),
    ];
    for (colour, words) in items {
        let _ = write!(
            s,
            "<rect x=\"{x:.3}\" y=\"{y:.3}\" width=\"{h:.3}\" height=\"{h:.3}\" fill=\"{colour}\" stroke=\"#555555\" stroke-width=\"{:.3}\"/><text x=\"{:.3}\" y=\"{:.3}\">{words}</text>",
            f.i(0.8),
            x + h + f.i(4.0),
            y + h
        );
        x += h + f.i(4.0 + text_px(words) + 10.0);
    }
    let rest = "thick edge: front; crossed: routed; brown bar: entrenched";
    let _ = write!(
        s,
        "<text x=\"{x:.3}\" y=\"{:.3}\">{}</text>",
        y + h,
        esc(rest)
    );
    let _ = writeln!(s, "</g>");
}

/// Clock time "h:mm" of a minute after midnight.
fn clock(minute: u32) -> String {
    let m = minute % (24 * 60);
    format!("{}:{:02}", m / 60, m % 60)
}

/// The title: whose map, the turn and the clock ("Turn Order"; 30
/// minutes a turn, Table 1).
fn title(b: &SfrmBattle, who: &str, turn: u32) -> String {
    if turn == 0 {
        format!(
            "{who}: the field at {}, before turn 1",
            clock(b.minute_of_turn(1))
        )
    } else {
        format!(
            "{who}: after turn {turn} ({} to {})",
            clock(b.minute_of_turn(turn)),
            clock(b.minute_of_turn(turn + 1))
        )
    }
}

/// Everything drawn, in order: ground, grid, north arrow, scale, pieces,
/// generals, labels, title and legend.
#[allow(clippy::too_many_arguments)]
fn document(
    b: &SfrmBattle,
    f: &Frame,
    title_text: &str,
    pieces: &[Piece],
    generals: &[Mark],
    legend: &[(&'static str, String)],
    places: &[(String, Pos)],
) -> String {
    let mut s = f.open();
    s.reserve(32 * 1024);
    let _ = writeln!(
        s,
        "<rect x=\"{:.3}\" y=\"{:.3}\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
        f.min.x - f.i(MARGIN_PX),
        f.y(f.max.y) - f.i(MARGIN_PX + HEADER_PX)
    );
    draw_ground(&mut s, f, b);
    draw_grid(&mut s, f);
    // The places orders may name, written on the ground under the troops
    // (the briefing lists them; the map shows where they are).
    for (name, at) in places {
        if at.x < f.min.x || at.x > f.max.x || at.y < f.min.y || at.y > f.max.y {
            continue;
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.3}\" y=\"{:.3}\" font-size=\"{:.3}\" font-style=\"italic\" fill=\"#5a4a2a\" fill-opacity=\"0.85\" text-anchor=\"middle\">{}</text>",
            f.x(at.x),
            f.y(at.y),
            f.i(10.0),
            esc(name)
        );
    }
    draw_north(&mut s, f);
    draw_scale_bar(&mut s, f);
    let _ = writeln!(
        s,
        "<text x=\"{:.3}\" y=\"{:.3}\" font-size=\"{:.3}\" font-weight=\"bold\">{}</text>",
        f.min.x,
        f.y(f.max.y) - f.i(HEADER_PX - 14.0),
        f.i(14.0),
        esc(title_text)
    );
    for p in pieces {
        draw_piece(&mut s, f, p);
    }
    for g in generals {
        draw_general(&mut s, f, g);
    }
    let mut boxes: Vec<Bx> = pieces.iter().map(|p| Bx::around(f, &p.corners)).collect();
    let gbox = |g: &Mark| {
        let d = g.size.max(f.i(7.0)) / 2.0;
        Bx {
            x0: f.x(g.at.x) - d,
            x1: f.x(g.at.x) + d,
            y0: f.y(g.at.y) - d,
            y1: f.y(g.at.y) + d,
        }
    };
    boxes.extend(generals.iter().map(gbox));
    let mut wants: Vec<Want> = pieces
        .iter()
        .map(|p| Want {
            text: p.label.clone(),
            ink: p.ink,
            enemy: p.enemy,
            general: false,
            anchor: Bx::around(f, &p.corners),
        })
        .collect();
    wants.extend(generals.iter().filter_map(|g| {
        g.label.as_ref().map(|l| Want {
            text: l.clone(),
            ink: "#222222",
            enemy: false,
            general: true,
            anchor: gbox(g),
        })
    }));
    for l in layout(f, wants, &boxes) {
        draw_label(&mut s, f, &l);
    }
    draw_legend(&mut s, f, legend);
    s.push_str("</svg>\n");
    s
}

/// The label of a piece: its name, and "routed" or "entrenched" when so.
fn state_words(name: &str, routed: bool, entrenched: bool) -> String {
    let mut s = name.to_string();
    if routed {
        s.push_str(" (routed)");
    } else if entrenched {
        s.push_str(" (entrenched)");
    }
    s
}

/// What one side sees, as SVG: the ground, its own units (by formation,
/// facing and state) and generals, and the enemy only as the view gives
/// them (SFRM "Firing Arc & Target Availability" sight, through
/// [`super::view::side_view`]). Nothing of the enemy is read from `b`:
/// only its ground, roads and supply sources, the scenario's public map.
pub fn side_map_svg(b: &SfrmBattle, v: &SideView) -> String {
    side_map_svg_with_places(b, v, &[])
}

/// [`side_map_svg`] with the scenario's named places written on the
/// ground (the names orders may use; none is a secret).
pub fn side_map_svg_with_places(b: &SfrmBattle, v: &SideView, places: &[(String, Pos)]) -> String {
    let mut pieces: Vec<Piece> = v
        .own_units
        .iter()
        .filter(|o| !o.unit.gone())
        .map(|o| {
            let u = &o.unit;
            let mut title = format!(
                "{}: {} elements in {}, facing {:.0}°",
                u.name,
                u.elements,
                u.formation.name(),
                u.facing
            );
            if let Some(g) = &o.general {
                let _ = write!(title, ", with General {g}");
            }
            own_piece(
                u,
                OWN,
                state_words(&u.name, u.routed, u.entrenchment > 0),
                state_words(&title, u.routed, u.entrenchment > 0),
            )
        })
        .collect();
    pieces.extend(v.enemy_units.iter().map(|e| {
        let kind = Kind::of_noun(e.kind);
        let words = state_words(&e.called, e.routed, e.entrenched);
        Piece {
            corners: nominal_footprint(kind, e.formation, e.pos, e.facing),
            kind,
            fill: ENEMY,
            routed: e.routed,
            entrenched: e.entrenched,
            title: format!("{words}: {} in {}", e.kind, e.formation.name()),
            label: words,
            enemy: true,
            ink: "#ffffff",
        }
    }));
    let mut generals: Vec<Mark> = v
        .own_generals
        .iter()
        .map(|g| general_mark(g, OWN, Some(format!("Gen. {}", g.name))))
        .collect();
    generals.extend(v.enemy_generals.iter().map(|g| Mark {
        at: g.pos,
        size: general_base_front(super::nouns::Rank::Division),
        stroke: ENEMY,
        // Riding with a seen unit: its label says enough.
        label: g.with.is_none().then(|| g.called.clone()),
        title: match &g.with {
            Some(w) => format!("{} with {w}", g.called),
            None => g.called.clone(),
        },
    }));
    let extent = pieces
        .iter()
        .flat_map(|p| p.corners)
        .chain(generals.iter().map(|g| g.at));
    let f = Frame::new(b, extent.collect::<Vec<_>>());
    let enemy = match v.side {
        Side::Union => "Confederates",
        Side::Confederate => "Federals",
    };
    let legend = [
        (OWN, format!("our troops ({})", v.side.name())),
        (ENEMY, format!("{enemy} in sight (drawn at a nominal size)")),
    ];
    document(
        b,
        &f,
        &title(b, v.side.name(), v.turn),
        &pieces,
        &generals,
        &legend,
        places,
    )
}

/// Everything, for the umpire: every unit in play with its real name and
/// elements, every general, both sides' colours.
pub fn umpire_map_svg(b: &SfrmBattle) -> String {
    umpire_map_svg_with_places(b, &[])
}

/// [`umpire_map_svg`] with the scenario's named places.
pub fn umpire_map_svg_with_places(b: &SfrmBattle, places: &[(String, Pos)]) -> String {
    let pieces: Vec<Piece> = b
        .units
        .iter()
        .filter(|u| !u.gone())
        .map(|u| {
            let q = u.quality.map_or("green", |q| q.name());
            own_piece(
                u,
                side_colour(u.side),
                state_words(&format!("{} ({})", u.name, u.elements), u.routed, false),
                state_words(
                    &format!(
                        "{} ({}): {} {q} elements in {}, facing {:.0}°",
                        u.name,
                        u.side.name(),
                        u.elements,
                        u.formation.name(),
                        u.facing
                    ),
                    u.routed,
                    u.entrenchment > 0,
                ),
            )
        })
        .collect();
    let generals: Vec<Mark> = b
        .generals
        .iter()
        .filter(|g| !g.removed)
        .map(|g| general_mark(g, side_colour(g.side), Some(format!("Gen. {}", g.name))))
        .collect();
    let extent: Vec<Pos> = pieces
        .iter()
        .flat_map(|p| p.corners)
        .chain(generals.iter().map(|g| g.at))
        .collect();
    let f = Frame::new(b, extent);
    let legend = [
        (UNION, "Union".to_string()),
        (CONFEDERATE, "Confederate".to_string()),
    ];
    document(
        b,
        &f,
        &title(b, "Umpire", b.turn),
        &pieces,
        &generals,
        &legend,
        places,
    )
}

#[cfg(test)]
mod tests;
