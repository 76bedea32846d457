//! The SVG map, drawn from a [`MapLayer`] — never from the battle state.
//!
//! A player's layer is filled by [`side_view`](super::side_view) with only
//! what his side may see, so the map cannot show more than the text does.
//! The SVG is written with `format!`: it is a few dozen element kinds whose
//! only free text (names) goes through [`xml_escape`]; an SVG-building crate
//! would add a dependency without removing any of the drawing code.

use crate::rules::iron_brigade::geometry::Footprint;
use crate::rules::iron_brigade::kinds::{AreaKind, LineKind};
use crate::rules::iron_brigade::state::{Pos, Terrain};
use serde::Serialize;
use std::fmt::Write;

/// Font family used for map labels; the same font is shipped in
/// `templates/fonts/` and loaded by [`super::png`], so the PNG is the same
/// on every machine.
pub const MAP_FONT: &str = "DejaVu Sans";

/// How a unit is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mark {
    /// The reader's own unit.
    Own,
    /// Another commander's unit of the reader's side.
    Friend,
    /// An enemy seen now.
    Enemy,
    /// An enemy where it was last seen; faded with age.
    LastKnown,
    /// Umpire map: a unit of side n.
    Side(u8),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapUnit {
    pub label: String,
    /// Front-left, front-right, rear-right, rear-left.
    pub corners: [Pos; 4],
    pub mark: Mark,
    /// 1.0 solid; last-known positions fade with their age.
    pub opacity: f64,
}

impl MapUnit {
    pub fn from_footprint(label: String, fp: &Footprint, mark: Mark, opacity: f64) -> MapUnit {
        MapUnit {
            label,
            corners: fp.corners(),
            mark,
            opacity,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapOfficer {
    pub label: String,
    pub at: Pos,
    pub mark: Mark,
}

/// Everything the map shows. Terrain is public knowledge (the scenario's
/// map); units and officers are what the reader may see.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapLayer {
    pub title: String,
    /// Table extent in inches: south-west and north-east corners.
    pub min: Pos,
    pub max: Pos,
    pub yards_per_inch: f64,
    pub terrain: Terrain,
    pub units: Vec<MapUnit>,
    pub officers: Vec<MapOfficer>,
}

/// Escape text for XML content and attribute values.
pub fn xml_escape(s: &str) -> String {
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

/// Longest side of the drawing in pixels.
const TARGET_PX: f64 = 900.0;
const MARGIN: f64 = 24.0;
const HEADER: f64 = 28.0;

/// Pixel geometry of a map: table inches to SVG pixels, y flipped so north
/// is up.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    min: Pos,
    max: Pos,
    scale: f64,
}

impl Frame {
    pub fn new(min: Pos, max: Pos) -> Frame {
        let w = (max.x - min.x).max(1.0);
        let h = (max.y - min.y).max(1.0);
        let scale = (TARGET_PX / w.max(h)).clamp(2.0, 40.0);
        Frame { min, max, scale }
    }

    pub fn width_px(&self) -> u32 {
        // Bounded by TARGET_PX + margins; the cast cannot overflow.
        ((self.max.x - self.min.x).max(1.0) * self.scale + 2.0 * MARGIN).ceil() as u32
    }

    pub fn height_px(&self) -> u32 {
        ((self.max.y - self.min.y).max(1.0) * self.scale + 2.0 * MARGIN + HEADER).ceil() as u32
    }

    fn x(&self, x: f64) -> f64 {
        MARGIN + (x - self.min.x) * self.scale
    }

    fn y(&self, y: f64) -> f64 {
        MARGIN + HEADER + (self.max.y - y) * self.scale
    }

    fn points(&self, pts: &[Pos]) -> String {
        let mut s = String::new();
        for p in pts.iter().filter(|p| p.is_finite()) {
            let _ = write!(s, "{:.1},{:.1} ", self.x(p.x), self.y(p.y));
        }
        s.trim_end().to_string()
    }
}

fn area_style(kind: AreaKind) -> &'static str {
    match kind {
        AreaKind::Woods => "fill:#9cc58a;stroke:#5b8a4a",
        AreaKind::DenseWoods => "fill:#6fa35e;stroke:#3f6d33",
        AreaKind::Swamp => "fill:#b9d6d0;stroke:#6f9c94",
        AreaKind::Rough => "fill:#d9cfa6;stroke:#a89a66",
        AreaKind::SteepHill => "fill:#c9a77c;stroke:#8a6a42",
        AreaKind::Town => "fill:#c8b8a8;stroke:#6d5a48",
        AreaKind::Abatis => "fill:#e3d9c2;stroke:#7a5a30;stroke-dasharray:2 2",
    }
}

fn line_style(kind: LineKind) -> &'static str {
    match kind {
        LineKind::Road => "stroke:#b08850;stroke-width:4",
        LineKind::Stream => "stroke:#4a7fc1;stroke-width:3",
        LineKind::Fence => "stroke:#7a5a30;stroke-width:1.5;stroke-dasharray:5 3",
        LineKind::Wall => "stroke:#6b6b6b;stroke-width:2.5",
        LineKind::Moat => "stroke:#3f5f7f;stroke-width:3;stroke-dasharray:1 2",
        LineKind::HighWall => "stroke:#4f4f4f;stroke-width:3.5",
        LineKind::HastyWorks => "stroke:#8a6a3a;stroke-width:3",
        LineKind::Entrenchments => "stroke:#6d4c2a;stroke-width:4",
    }
}

const SIDE_COLOURS: [&str; 4] = ["#1f4e9c", "#8a8a8a", "#7b3f99", "#2f7d4a"];

fn unit_colour(mark: Mark) -> &'static str {
    match mark {
        Mark::Own => "#1f4e9c",
        Mark::Friend => "#6f8fc7",
        Mark::Enemy | Mark::LastKnown => "#b22222",
        Mark::Side(n) => SIDE_COLOURS
            .get(usize::from(n) % SIDE_COLOURS.len())
            .copied()
            .unwrap_or("#000000"),
    }
}

/// The map in two layers of the same size: `base` (paper, table, terrain,
/// landmarks, scale and north arrow — the scenario's public map, the same
/// for every reader of a turn) and `overlay` (title, units and officers —
/// what this reader may see), each the body of an SVG document opened by
/// `open`. The PNG renders the base once and draws each reader's overlay on
/// a copy ([`super::png::layers_to_png`]); the HTML shows [`MapParts::svg`],
/// the two in one document, which draws exactly the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapParts {
    pub open: String,
    pub base: String,
    pub overlay: String,
}

impl MapParts {
    /// The whole map as one SVG document.
    pub fn svg(&self) -> String {
        format!("{}{}{}</svg>\n", self.open, self.base, self.overlay)
    }

    pub fn base_svg(&self) -> String {
        format!("{}{}</svg>\n", self.open, self.base)
    }

    pub fn overlay_svg(&self) -> String {
        format!("{}{}</svg>\n", self.open, self.overlay)
    }
}

/// The map as a standalone SVG document.
pub fn map_svg(layer: &MapLayer) -> String {
    map_parts(layer).svg()
}

/// The map's two layers; see [`MapParts`].
pub fn map_parts(layer: &MapLayer) -> MapParts {
    let f = Frame::new(layer.min, layer.max);
    let (w, h) = (f.width_px(), f.height_px());
    let open = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"{MAP_FONT}, sans-serif\" font-size=\"11\">\n"
    );
    let mut s = String::with_capacity(16 * 1024);
    let _ = writeln!(
        s,
        "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>"
    );
    let _ = writeln!(
        s,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#f4efe1\" stroke=\"#555555\"/>",
        f.x(layer.min.x),
        f.y(layer.max.y),
        f.x(layer.max.x) - f.x(layer.min.x),
        f.y(layer.min.y) - f.y(layer.max.y)
    );
    draw_terrain(&mut s, &f, &layer.terrain);
    draw_furniture(&mut s, &f, layer.yards_per_inch);
    let base = s;

    let mut s = String::with_capacity(16 * 1024);
    let _ = writeln!(
        s,
        "<text x=\"{MARGIN}\" y=\"{:.1}\" font-size=\"14\" font-weight=\"bold\">{}</text>",
        MARGIN + 8.0,
        xml_escape(&layer.title)
    );
    for u in &layer.units {
        draw_unit(&mut s, &f, u);
    }
    for o in &layer.officers {
        let _ = writeln!(
            s,
            "<g><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#ffd700\" stroke=\"{}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" font-style=\"italic\">{}</text></g>",
            f.x(o.at.x),
            f.y(o.at.y),
            unit_colour(o.mark),
            f.x(o.at.x) + 6.0,
            f.y(o.at.y) + 3.0,
            xml_escape(&o.label)
        );
    }
    MapParts {
        open,
        base,
        overlay: s,
    }
}

fn draw_terrain(s: &mut String, f: &Frame, t: &Terrain) {
    let mut hills: Vec<_> = t.hills.iter().collect();
    hills.sort_by(|a, b| a.height.total_cmp(&b.height));
    for hill in hills {
        let _ = writeln!(
            s,
            "<polygon points=\"{}\" style=\"fill:#e2cfa5;fill-opacity:0.55;stroke:#a0804a;stroke-width:1\"><title>{}</title></polygon>",
            f.points(&hill.outline),
            xml_escape(&hill.name)
        );
    }
    for a in &t.areas {
        let _ = writeln!(
            s,
            "<polygon points=\"{}\" style=\"{};stroke-width:1\"><title>{}</title></polygon>",
            f.points(&a.outline),
            area_style(a.kind),
            xml_escape(&a.name)
        );
    }
    for l in &t.lines {
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" style=\"fill:none;{}\"><title>{}</title></polyline>",
            f.points(&l.path),
            line_style(l.kind),
            xml_escape(&l.name)
        );
    }
    for ford in t.fords.iter().filter(|x| x.position.is_finite()) {
        let _ = writeln!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#4a7fc1\"><title>{}</title></circle>",
            f.x(ford.position.x),
            f.y(ford.position.y),
            xml_escape(&ford.name)
        );
    }
    for lm in t.landmarks.iter().filter(|x| x.position.is_finite()) {
        let (x, y) = (f.x(lm.position.x), f.y(lm.position.y));
        let _ = writeln!(
            s,
            "<g><rect x=\"{:.1}\" y=\"{:.1}\" width=\"5\" height=\"5\" fill=\"#333333\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#333333\">{}</text></g>",
            x - 2.5,
            y - 2.5,
            x + 5.0,
            y - 4.0,
            xml_escape(&lm.name)
        );
    }
}

/// A unit: its footprint, its front edge drawn thick, and its label.
///
/// Fading (last-known places, other commands) is drawn with per-element
/// `fill-opacity`/`stroke-opacity`, not group `opacity`: a group opacity
/// makes resvg render the group into a layer of its own and blend it back,
/// which for a corps battle's hundreds of units was most of the time of
/// the PNG (benches/report.rs). The pieces of a unit hardly overlap, so the
/// picture is the same to the eye.
fn draw_unit(s: &mut String, f: &Frame, u: &MapUnit) {
    if !u.corners.iter().all(|p| p.is_finite()) {
        return;
    }
    let colour = unit_colour(u.mark);
    let a = u.opacity.clamp(0.0, 1.0);
    let (dash, fill) = if u.mark == Mark::LastKnown {
        (";stroke-dasharray:3 2", 0.35 * a)
    } else {
        ("", a)
    };
    let [fl, fr, rr, rl] = u.corners;
    let centre = Pos::new((fl.x + rr.x) / 2.0, (fl.y + rr.y) / 2.0);
    let (tx, ty) = (f.x(centre.x) + 6.0, f.y(centre.y) - 6.0);
    // The label stands on a pale card rather than a white outline drawn
    // round every glyph ("halo"): stroking glyph outlines was the largest
    // single cost of the PNG, and the card reads as well over terrain.
    // Width is estimated from the length (DejaVu Sans Condensed Bold at
    // 10 px is under 6 px a character).
    let chars = u.label.chars().count() as f64;
    let body = format!(
        "<polygon points=\"{}\" style=\"fill:{colour};fill-opacity:{fill:.2};stroke:#000000;stroke-opacity:{a:.2};stroke-width:0.8{dash}\"/><line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#000000\" stroke-opacity=\"{a:.2}\" stroke-width=\"2.5\"/>",
        f.points(&[fl, fr, rr, rl]),
        f.x(fl.x),
        f.y(fl.y),
        f.x(fr.x),
        f.y(fr.y),
    );
    if u.mark == Mark::Friend {
        // Other commands' units are named in the text report and on
        // hover (<title>); printed on the map they crowd out the reader's
        // own units and the enemy, and in a corps battle their labels were
        // most of the cost of every player's PNG.
        let _ = writeln!(s, "<g><title>{}</title>{body}</g>", xml_escape(&u.label));
        return;
    }
    let _ = writeln!(
        s,
        "<g>{body}<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"12\" fill=\"#ffffff\" fill-opacity=\"{:.2}\"/><text x=\"{tx:.1}\" y=\"{ty:.1}\" font-size=\"10\" font-weight=\"bold\" fill=\"{colour}\" fill-opacity=\"{a:.2}\">{}</text></g>",
        tx - 1.0,
        ty - 9.5,
        chars * 6.0 + 2.0,
        0.7 * a,
        xml_escape(&u.label)
    );
}

/// North arrow and a scale bar of 200 yards.
fn draw_furniture(s: &mut String, f: &Frame, yards_per_inch: f64) {
    let ypi = if yards_per_inch > 0.0 {
        yards_per_inch
    } else {
        25.0
    };
    let bar_px = 200.0 / ypi * f.scale;
    let x0 = f.x(f.max.x) - bar_px - 10.0;
    let y0 = f.y(f.min.y) + 14.0;
    let _ = writeln!(
        s,
        "<g><line x1=\"{x0:.1}\" y1=\"{y0:.1}\" x2=\"{:.1}\" y2=\"{y0:.1}\" stroke=\"#000000\" stroke-width=\"2\"/><text x=\"{x0:.1}\" y=\"{:.1}\" font-size=\"9\">200 yards</text></g>",
        x0 + bar_px,
        y0 - 3.0
    );
    let nx = f.x(f.max.x) - 14.0;
    let ny = f.y(f.max.y) + 6.0;
    let _ = writeln!(
        s,
        "<g><polygon points=\"{nx:.1},{ny:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"#000000\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" font-weight=\"bold\">N</text></g>",
        nx - 5.0,
        ny + 14.0,
        nx + 5.0,
        ny + 14.0,
        nx - 4.0,
        ny + 26.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped() {
        assert_eq!(xml_escape("Miller's <b>&"), "Miller&#39;s &lt;b&gt;&amp;");
    }

    #[test]
    fn north_is_up() {
        let f = Frame::new(Pos::new(0.0, 0.0), Pos::new(48.0, 36.0));
        assert!(f.y(36.0) < f.y(0.0));
        assert!(f.x(48.0) > f.x(0.0));
        assert_eq!(f.width_px(), 948);
    }
}
