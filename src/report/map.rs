//! The SVG map, drawn from a [`MapLayer`] — never from the battle state.
//!
//! A player's layer is filled by [`side_view`](super::side_view) with only
//! what his side may see, so the map cannot show more than the text does.
//! The SVG is written with `format!`: it is a few dozen element kinds whose
//! only free text (names) goes through [`xml_escape`]; an SVG-building crate
//! would add a dependency without removing any of the drawing code.

use super::png::{Anchor, Border, Ink};
use crate::rules::iron_brigade::geometry::Footprint;
use crate::rules::iron_brigade::kinds::{AreaKind, LineKind, Obstacle};
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
    /// A unit out of the battle (destroyed, captured, gone off the table):
    /// drawn grey and crossed where it was last, never as a live unit, and
    /// not labelled (its name and fate are in its tooltip and the text).
    Gone,
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

/// The label of a [`MapOfficer`] that is a side's pontoon boats (APSoF
/// IV.E.2): drawn with [`boat_glyph`], not an officer's dot.
pub const BOATS_LABEL: &str = "pontoon boats";

/// Pontoon boats (APSoF IV.E.2): a small hull, its keel line in the
/// side's colour, centred on (`x`, `y`) in pixels.
fn boat_glyph(s: &mut String, x: f64, y: f64, mark: Mark) {
    let _ = writeln!(
        s,
        "<path d=\"M{:.1} {:.1} L{:.1} {:.1} L{:.1} {:.1} L{:.1} {:.1} Z\" fill=\"#c8a060\" stroke=\"{}\" stroke-width=\"2\"/>",
        x - 7.0,
        y - 3.0,
        x + 7.0,
        y - 3.0,
        x + 4.0,
        y + 3.0,
        x - 4.0,
        y + 3.0,
        unit_colour(mark),
    );
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
    /// The key drawn under the table: each kind of mark and what it means
    /// to this reader ("your units", "the Confederates", …).
    pub legend: Vec<(Mark, String)>,
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
/// The legend's band under the table (below the bottom margin, which
/// holds the grid's inch labels).
const LEGEND: f64 = 40.0;

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
        ((self.max.y - self.min.y).max(1.0) * self.scale + 2.0 * MARGIN + HEADER + LEGEND).ceil()
            as u32
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
        Mark::Gone => "#333333",
        Mark::Side(n) => SIDE_COLOURS
            .get(usize::from(n) % SIDE_COLOURS.len())
            .copied()
            .unwrap_or("#000000"),
    }
}

/// The map in two layers of the same size: `base` (paper, table, terrain,
/// landmarks, grid, north arrow and the legend's scale row — the scenario's public map, the same
/// for every reader of a turn) and `overlay` (title, units and officers —
/// what this reader may see), each the body of an SVG document opened by
/// `open`. The PNG renders the base once and draws each reader's overlay on
/// a copy ([`super::png::layers_to_png`]); the HTML shows [`MapParts::svg`],
/// the two in one document, which draws exactly the same.
///
/// For the PNG the overlay also comes split in two: `png_overlay`, its
/// shapes (units, officers, the legend's swatches) for usvg, and `inks`,
/// its title, labels and legend words, drawn after them without an SVG
/// parse or a text layout per label ([`super::png::layers_to_png_inked`]).
/// Base, `png_overlay` and then `inks` draw the same pixels as `base` and
/// `overlay`: what the split moves later (text) shares no pixel with what
/// it moves earlier (the legend's swatches under the table).
#[derive(Debug, Clone, PartialEq)]
pub struct MapParts {
    pub open: String,
    pub base: String,
    pub overlay: String,
    pub png_overlay: String,
    pub inks: Vec<Ink>,
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

    /// The PNG overlay's shapes as a document ([`MapParts::inks`] go on top).
    pub fn png_overlay_svg(&self) -> String {
        format!("{}{}</svg>\n", self.open, self.png_overlay)
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
    draw_grid(&mut s, &f);
    draw_north(&mut s, &f);
    draw_scale_legend(&mut s, &f, layer);
    let base = s;

    let mut inks = Vec::new();
    let mut s = String::with_capacity(16 * 1024);
    let (tx, ty) = (format!("{MARGIN}"), format!("{:.1}", MARGIN + 8.0));
    let _ = writeln!(
        s,
        "<text x=\"{tx}\" y=\"{ty}\" font-size=\"14\" font-weight=\"bold\">{}</text>",
        xml_escape(&layer.title)
    );
    inks.push(Ink::Text {
        text: layer.title.clone(),
        x: Ink::num(&tx),
        y: Ink::num(&ty),
        size: 14.0,
        anchor: Anchor::Start,
        rgb: [0, 0, 0],
        opacity: 1.0,
    });
    let shapes_from = s.len();
    for u in &layer.units {
        draw_unit(&mut s, &f, u);
    }
    for o in &layer.officers {
        if !o.at.is_finite() {
            continue;
        }
        if o.label == BOATS_LABEL {
            boat_glyph(&mut s, f.x(o.at.x), f.y(o.at.y), o.mark);
            continue;
        }
        let _ = writeln!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#ffd700\" stroke=\"{}\" stroke-width=\"2\"/>",
            f.x(o.at.x),
            f.y(o.at.y),
            unit_colour(o.mark),
        );
    }
    let mut png_overlay = s[shapes_from..].to_string();
    for l in layout_labels(layer) {
        draw_label(&mut s, &l, &mut inks);
    }
    draw_legend(&mut s, &mut png_overlay, &mut inks, &f, layer);
    MapParts {
        open,
        base,
        overlay: s,
        png_overlay,
        inks,
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
    // Paths cleared through abatis and stretches of ditch filled in (APSoF
    // VIII.D, VIII.E): a pale strip edged with dashes, the gap in the
    // obstacle.
    for c in t
        .cleared
        .iter()
        .filter(|c| c.outline.iter().all(|p| p.is_finite()))
    {
        let what = match c.obstacle {
            Obstacle::Abatis => "path cleared through",
            Obstacle::Moat => "filled in:",
        };
        let _ = writeln!(
            s,
            "<polygon points=\"{}\" style=\"fill:#f4efe1;fill-opacity:0.9;stroke:#6b4f2a;stroke-width:1;stroke-dasharray:4 3\"><title>{}</title></polygon>",
            f.points(&c.outline),
            xml_escape(&format!("{what} {} by {}", c.feature, c.by))
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
    // Landmarks' squares only: their names are labels, placed with the
    // units' in the overlay so that no label covers a unit or another.
    for lm in t.landmarks.iter().filter(|x| x.position.is_finite()) {
        let (x, y) = (f.x(lm.position.x), f.y(lm.position.y));
        let _ = writeln!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"5\" height=\"5\" fill=\"#333333\"><title>{}</title></rect>",
            x - 2.5,
            y - 2.5,
            xml_escape(&lm.name)
        );
    }
}

/// A unit: its footprint and its front edge drawn thick. Its label is
/// placed apart ([`layout_labels`]).
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
    let (dash, fill) = match u.mark {
        Mark::LastKnown => (";stroke-dasharray:3 2", 0.35 * a),
        Mark::Gone => (";stroke-dasharray:2 2", 0.0),
        _ => ("", a),
    };
    let [fl, fr, rr, rl] = u.corners;
    if u.mark == Mark::Gone {
        let _ = writeln!(
            s,
            "<g><title>{}</title><polygon points=\"{}\" style=\"fill:#ffffff;fill-opacity:0.7;stroke:{colour};stroke-width:0.8{dash}\"/><line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"1.2\"/><line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"1.2\"/></g>",
            xml_escape(&u.label),
            f.points(&[fl, fr, rr, rl]),
            f.x(fl.x),
            f.y(fl.y),
            f.x(rr.x),
            f.y(rr.y),
            f.x(fr.x),
            f.y(fr.y),
            f.x(rl.x),
            f.y(rl.y),
        );
        return;
    }
    let body = format!(
        "<polygon points=\"{}\" style=\"fill:{colour};fill-opacity:{fill:.2};stroke:#000000;stroke-opacity:{a:.2};stroke-width:0.8{dash}\"/><line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#000000\" stroke-opacity=\"{a:.2}\" stroke-width=\"2.5\"/>",
        f.points(&[fl, fr, rr, rl]),
        f.x(fl.x),
        f.y(fl.y),
        f.x(fr.x),
        f.y(fr.y),
    );
    // Every unit carries its label as a tooltip in the HTML; other
    // commands' units are not labelled on the map (their names are in the
    // text report), which keeps a corps battle's map readable.
    let _ = writeln!(s, "<g><title>{}</title>{body}</g>", xml_escape(&u.label));
}

/// A rectangle in SVG pixels: left, top, right, bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PxBox {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl PxBox {
    fn around(points: impl IntoIterator<Item = (f64, f64)>) -> Option<PxBox> {
        let mut b: Option<PxBox> = None;
        for (x, y) in points {
            b = Some(match b {
                None => PxBox {
                    x0: x,
                    y0: y,
                    x1: x,
                    y1: y,
                },
                Some(b) => PxBox {
                    x0: b.x0.min(x),
                    y0: b.y0.min(y),
                    x1: b.x1.max(x),
                    y1: b.y1.max(y),
                },
            });
        }
        b
    }

    fn grow(self, by: f64) -> PxBox {
        PxBox {
            x0: self.x0 - by,
            y0: self.y0 - by,
            x1: self.x1 + by,
            y1: self.y1 + by,
        }
    }

    /// True when the two share any area (touching edges do not count).
    pub fn overlaps(&self, o: &PxBox) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn inside(&self, o: &PxBox) -> bool {
        self.x0 >= o.x0 && self.x1 <= o.x1 && self.y0 >= o.y0 && self.y1 <= o.y1
    }

    fn centre(&self) -> (f64, f64) {
        ((self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0)
    }
}

/// How a label is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelStyle {
    /// A unit's name or designation, in the colour of its mark.
    Unit(Mark),
    /// An officer or rider, italic.
    Officer,
    /// A landmark's name.
    Landmark,
}

/// A label with the box it was given: the card drawn behind its text.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedLabel {
    pub text: String,
    pub style: LabelStyle,
    pub opacity: f64,
    pub card: PxBox,
    /// Where a leader line runs to when the label stands off its piece.
    pub leader: Option<(f64, f64)>,
}

const LABEL_SIZE: f64 = 10.0;
/// Card height: DejaVu Sans Condensed at 10 px lays out 11.64 px a line
/// (measured with usvg), with a pixel of paper above and below.
const CARD_H: f64 = 13.5;
/// From a card's top to its text's baseline: the font's ascent (9.28 px at
/// 10 px, measured) plus the pixel of paper.
const BASELINE: f64 = 10.4;

/// Advance of one character of DejaVu Sans Condensed at 10 px, rounded up
/// from widths measured with usvg ("iiii" 2.5 px each, "mmmm" 8.8,
/// "WWWW" 8.9, digits 5.7, lower case about 5.1, capitals about 6.1): a
/// little wide, so the card always holds the text.
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

/// The text's width in pixels at 10 px (see [`char_px`]).
pub fn text_px(text: &str) -> f64 {
    text.chars().map(char_px).sum::<f64>()
}

/// One label still to place: its text and the box of the piece it names.
struct Want {
    text: String,
    style: LabelStyle,
    opacity: f64,
    anchor: PxBox,
}

/// Places every label of the map — own units by name, enemies by their
/// mark, last-known places with their age, officers, riders and landmarks —
/// so that no label covers another label, a unit or a marker (issue #14).
///
/// Each label tries places round its piece, nearest first (right, left,
/// above, below, the corners), then farther out, with a leader line when it
/// stands off; every place must lie on the table. Units of other commands
/// are not labelled but are obstacles too. Deterministic: the same layer
/// gives the same places.
pub fn layout_labels(layer: &MapLayer) -> Vec<PlacedLabel> {
    let f = Frame::new(layer.min, layer.max);
    let table = PxBox {
        x0: f.x(layer.min.x) + 1.0,
        y0: f.y(layer.max.y) + 1.0,
        x1: f.x(layer.max.x) - 1.0,
        y1: f.y(layer.min.y) - 1.0,
    };
    let mut obstacles: Vec<PxBox> = Vec::new();
    let mut wants: Vec<Want> = Vec::new();
    for u in &layer.units {
        if !u.corners.iter().all(|p| p.is_finite()) {
            continue;
        }
        let Some(b) = PxBox::around(u.corners.iter().map(|p| (f.x(p.x), f.y(p.y)))) else {
            continue;
        };
        let b = b.grow(1.5);
        obstacles.push(b);
        if !matches!(u.mark, Mark::Friend | Mark::Gone) && !u.label.is_empty() {
            wants.push(Want {
                text: u.label.clone(),
                style: LabelStyle::Unit(u.mark),
                opacity: u.opacity.clamp(0.0, 1.0).max(0.85),
                anchor: b,
            });
        }
    }
    for o in layer.officers.iter().filter(|o| o.at.is_finite()) {
        let (x, y) = (f.x(o.at.x), f.y(o.at.y));
        let b = PxBox {
            x0: x - 5.5,
            y0: y - 5.5,
            x1: x + 5.5,
            y1: y + 5.5,
        };
        obstacles.push(b);
        wants.push(Want {
            text: o.label.clone(),
            style: LabelStyle::Officer,
            opacity: 1.0,
            anchor: b,
        });
    }
    for lm in layer
        .terrain
        .landmarks
        .iter()
        .filter(|l| l.position.is_finite())
    {
        let (x, y) = (f.x(lm.position.x), f.y(lm.position.y));
        let b = PxBox {
            x0: x - 3.0,
            y0: y - 3.0,
            x1: x + 3.0,
            y1: y + 3.0,
        };
        obstacles.push(b);
        wants.push(Want {
            text: lm.name.clone(),
            style: LabelStyle::Landmark,
            opacity: 1.0,
            anchor: b,
        });
    }
    let mut placed: Vec<PlacedLabel> = Vec::with_capacity(wants.len());
    // Pieces and cards already placed, bucketed by where they lie, so that
    // testing a place looks only at the boxes near it (the same answer as
    // testing every box: a box that shares area with the place shares a
    // bucket with it).
    let mut taken = BoxGrid::new(&table);
    for o in &obstacles {
        taken.insert(*o);
    }
    for w in wants {
        let wpx = text_px(&w.text) + 4.0;
        let free = |c: &PxBox, taken: &BoxGrid| c.inside(&table) && !taken.overlaps(c);
        let mut chosen = None;
        'search: for (ring, gap) in [1.0, 4.0, 10.0, 18.0, 30.0, 45.0, 65.0, 90.0, 120.0, 160.0]
            .into_iter()
            .enumerate()
        {
            for c in candidates(&w.anchor, wpx, gap) {
                if free(&c, &taken) {
                    chosen = Some((c, ring >= 2));
                    break 'search;
                }
            }
        }
        if chosen.is_none() {
            // Crowded beyond the rings: the nearest free place anywhere on
            // the table, scanned on a 6 px lattice (the first in scan order
            // of those equally near). Rows farther than the best place
            // found so far cannot hold a nearer one and are skipped.
            let (cx, cy) = w.anchor.centre();
            let mut best: Option<(f64, PxBox)> = None;
            let mut y = table.y0;
            while y + CARD_H <= table.y1 {
                let dy = y + CARD_H / 2.0 - cy;
                if best.as_ref().is_none_or(|(bd, _)| dy * dy < *bd) {
                    let mut x = table.x0;
                    while x + wpx <= table.x1 {
                        let c = PxBox {
                            x0: x,
                            y0: y,
                            x1: x + wpx,
                            y1: y + CARD_H,
                        };
                        let dx = x + wpx / 2.0 - cx;
                        let d = dx * dx + dy * dy;
                        if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                            match taken.blocked_to(&c) {
                                None => best = Some((d, c)),
                                // Every place of this row left of the
                                // blocking box's right edge overlaps it
                                // too: step past them untested (the same
                                // lattice, the same answer).
                                Some(edge) => {
                                    while x + 6.0 < edge {
                                        x += 6.0;
                                    }
                                }
                            }
                        }
                        x += 6.0;
                    }
                }
                y += 6.0;
            }
            chosen = best.map(|(_, c)| (c, true));
        }
        // No room anywhere on the table: the label is left off rather than
        // drawn over another; the piece keeps its tooltip in the HTML and
        // its line in the text report.
        let Some((card, off)) = chosen else {
            continue;
        };
        taken.insert(card);
        placed.push(PlacedLabel {
            text: w.text,
            style: w.style,
            opacity: w.opacity,
            card,
            leader: off.then(|| w.anchor.centre()),
        });
    }
    placed
}

/// The boxes, in SVG pixels, of every piece drawn on the map: units (of
/// any mark), officers' and riders' dots, landmarks' squares. No label may
/// overlap one ([`layout_labels`]).
pub fn piece_boxes(layer: &MapLayer) -> Vec<PxBox> {
    let f = Frame::new(layer.min, layer.max);
    let mut out: Vec<PxBox> = layer
        .units
        .iter()
        .filter(|u| u.corners.iter().all(|p| p.is_finite()))
        .filter_map(|u| PxBox::around(u.corners.iter().map(|p| (f.x(p.x), f.y(p.y)))))
        .collect();
    let dot = |x: f64, y: f64, r: f64| PxBox {
        x0: x - r,
        y0: y - r,
        x1: x + r,
        y1: y + r,
    };
    out.extend(
        layer
            .officers
            .iter()
            .filter(|o| o.at.is_finite())
            .map(|o| dot(f.x(o.at.x), f.y(o.at.y), 5.0)),
    );
    out.extend(
        layer
            .terrain
            .landmarks
            .iter()
            .filter(|l| l.position.is_finite())
            .map(|l| dot(f.x(l.position.x), f.y(l.position.y), 2.5)),
    );
    out
}

/// Boxes bucketed on a coarse grid of square cells over the table, for
/// [`layout_labels`]: a corps battle's map has hundreds of pieces and
/// labels, and testing every place against every box was half the time of
/// a turn's reports (benches/report.rs).
struct BoxGrid {
    x0: f64,
    y0: f64,
    cols: usize,
    rows: usize,
    boxes: Vec<PxBox>,
    /// Per cell, indexes into `boxes` of those that reach into it.
    cells: Vec<Vec<u32>>,
}

impl BoxGrid {
    /// Cell side in pixels: a few label heights.
    const CELL: f64 = 40.0;

    fn new(area: &PxBox) -> BoxGrid {
        let cols = (((area.x1 - area.x0) / Self::CELL).ceil().max(1.0) as usize).min(4096);
        let rows = (((area.y1 - area.y0) / Self::CELL).ceil().max(1.0) as usize).min(4096);
        BoxGrid {
            x0: area.x0,
            y0: area.y0,
            cols,
            rows,
            boxes: Vec::new(),
            cells: vec![Vec::new(); cols * rows],
        }
    }

    /// The cells (column and row ranges, inclusive) a box reaches into;
    /// boxes beyond the area are counted in its edge cells.
    fn span(&self, b: &PxBox) -> (usize, usize, usize, usize) {
        let col = |x: f64| {
            let c = ((x - self.x0) / Self::CELL).floor();
            if c.is_nan() || c < 0.0 {
                0
            } else {
                (c as usize).min(self.cols - 1)
            }
        };
        let row = |y: f64| {
            let r = ((y - self.y0) / Self::CELL).floor();
            if r.is_nan() || r < 0.0 {
                0
            } else {
                (r as usize).min(self.rows - 1)
            }
        };
        (col(b.x0), col(b.x1), row(b.y0), row(b.y1))
    }

    fn insert(&mut self, b: PxBox) {
        let i = u32::try_from(self.boxes.len()).unwrap_or(u32::MAX);
        self.boxes.push(b);
        let (c0, c1, r0, r1) = self.span(&b);
        for r in r0..=r1 {
            for c in c0..=c1 {
                self.cells[r * self.cols + c].push(i);
            }
        }
    }

    /// The farthest right edge of the boxes inserted that share area with
    /// `b`, or `None` when none does. A box `o` overlapping `b` also
    /// overlaps `b` moved right by anything less than `o.x1 - b.x0`: the
    /// lattice scan of [`layout_labels`] skips those places.
    fn blocked_to(&self, b: &PxBox) -> Option<f64> {
        let (c0, c1, r0, r1) = self.span(b);
        let mut edge: Option<f64> = None;
        for r in r0..=r1 {
            for c in c0..=c1 {
                for &i in &self.cells[r * self.cols + c] {
                    if let Some(o) = self.boxes.get(i as usize).filter(|o| o.overlaps(b)) {
                        edge = Some(edge.map_or(o.x1, |e| e.max(o.x1)));
                    }
                }
            }
        }
        edge
    }

    /// True when `b` shares area with any box inserted.
    fn overlaps(&self, b: &PxBox) -> bool {
        let (c0, c1, r0, r1) = self.span(b);
        (r0..=r1).any(|r| {
            (c0..=c1).any(|c| {
                self.cells[r * self.cols + c]
                    .iter()
                    .any(|&i| self.boxes.get(i as usize).is_some_and(|o| o.overlaps(b)))
            })
        })
    }
}

/// Places for a `w`-wide card round `a`, `gap` pixels off it: right, left,
/// above, below, then the four corners.
fn candidates(a: &PxBox, w: f64, gap: f64) -> [PxBox; 8] {
    let (cx, cy) = a.centre();
    let at = |x0: f64, y0: f64| PxBox {
        x0,
        y0,
        x1: x0 + w,
        y1: y0 + CARD_H,
    };
    [
        at(a.x1 + gap, cy - CARD_H / 2.0),
        at(a.x0 - gap - w, cy - CARD_H / 2.0),
        at(cx - w / 2.0, a.y0 - gap - CARD_H),
        at(cx - w / 2.0, a.y1 + gap),
        at(a.x1 + gap, a.y0 - gap - CARD_H),
        at(a.x0 - gap - w, a.y0 - gap - CARD_H),
        at(a.x1 + gap, a.y1 + gap),
        at(a.x0 - gap - w, a.y1 + gap),
    ]
}

/// A placed label: its card, its text, and a leader line to its piece when
/// it stands off.
///
/// Enemies' designations are white on a dark red card, so that a letter is
/// never pale on red; last-known places are dark red on a dashed white
/// card; own units blue on white.
fn draw_label(s: &mut String, l: &PlacedLabel, inks: &mut Vec<Ink>) {
    let c = &l.card;
    let a = l.opacity;
    if let Some((lx, ly)) = l.leader {
        // From the card's nearest edge point to the piece.
        let ex = lx.clamp(c.x0, c.x1);
        let ey = ly.clamp(c.y0, c.y1);
        let [ex, ey, lx, ly] = [ex, ey, lx, ly].map(|v| format!("{v:.1}"));
        let _ = writeln!(
            s,
            "<line x1=\"{ex}\" y1=\"{ey}\" x2=\"{lx}\" y2=\"{ly}\" stroke=\"#444444\" stroke-width=\"0.7\" stroke-opacity=\"0.8\"/>"
        );
        inks.push(Ink::Line {
            from: (Ink::num(&ex), Ink::num(&ey)),
            to: (Ink::num(&lx), Ink::num(&ly)),
            width: 0.7,
            rgb: Ink::rgb("#444444"),
            opacity: 0.8,
        });
    }
    let (card_fill, card_opacity, border, text_fill, weight, font_style) = match l.style {
        LabelStyle::Unit(Mark::Enemy) => ("#8b1a1a", 1.0, "none", "#ffffff", "bold", "normal"),
        LabelStyle::Unit(Mark::LastKnown) => {
            ("#ffffff", 0.9, "#8b1a1a", "#8b1a1a", "bold", "normal")
        }
        LabelStyle::Unit(m) => ("#ffffff", 0.85, "none", unit_colour(m), "bold", "normal"),
        LabelStyle::Officer => ("#fff8d0", 0.85, "none", "#222222", "normal", "italic"),
        LabelStyle::Landmark => ("#ffffff", 0.6, "none", "#333333", "normal", "normal"),
    };
    let stroke = if border == "none" {
        String::new()
    } else {
        format!(" stroke=\"{border}\" stroke-width=\"0.8\" stroke-dasharray=\"3 2\"")
    };
    let [x, y, w, h, tx, ty] = [
        c.x0,
        c.y0,
        c.x1 - c.x0,
        c.y1 - c.y0,
        c.x0 + 2.0,
        c.y0 + BASELINE,
    ]
    .map(|v| format!("{v:.1}"));
    let (card_a, text_a) = (format!("{:.2}", card_opacity * a), format!("{a:.2}"));
    let _ = writeln!(
        s,
        "<g><rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"{card_fill}\" fill-opacity=\"{card_a}\"{stroke}/><text x=\"{tx}\" y=\"{ty}\" font-size=\"{LABEL_SIZE}\" font-weight=\"{weight}\" font-style=\"{font_style}\" fill=\"{text_fill}\" fill-opacity=\"{text_a}\">{}</text></g>",
        xml_escape(&l.text)
    );
    inks.push(Ink::Rect {
        x: Ink::num(&x),
        y: Ink::num(&y),
        w: Ink::num(&w),
        h: Ink::num(&h),
        rgb: Ink::rgb(card_fill),
        opacity: Ink::num(&card_a),
        border: (border != "none").then(|| Border {
            rgb: Ink::rgb(border),
            width: 0.8,
            dash: [3.0, 2.0],
        }),
    });
    inks.push(Ink::Text {
        text: l.text.clone(),
        x: Ink::num(&tx),
        y: Ink::num(&ty),
        size: LABEL_SIZE as f32,
        anchor: Anchor::Start,
        rgb: Ink::rgb(text_fill),
        opacity: Ink::num(&text_a),
    });
}

/// Inches between grid lines: the smallest of 1, 2, 3, 6, 12, 24 that
/// draws no more than a dozen lines across the longer side.
fn grid_step(f: &Frame) -> f64 {
    let span = (f.max.x - f.min.x).max(f.max.y - f.min.y);
    [1.0, 2.0, 3.0, 6.0, 12.0, 24.0]
        .into_iter()
        .find(|s| span / s <= 12.0)
        .unwrap_or(48.0)
}

/// A light grid in table inches, labelled along the bottom (x, east) and
/// the left (y, north) edge, so that a place read on the map can be
/// compared with the coordinates of the text report.
fn draw_grid(s: &mut String, f: &Frame) {
    let step = grid_step(f);
    let (top, bottom) = (f.y(f.max.y), f.y(f.min.y));
    let (left, right) = (f.x(f.min.x), f.x(f.max.x));
    let _ = write!(
        s,
        "<g stroke=\"#000000\" stroke-opacity=\"0.13\" stroke-width=\"0.6\">"
    );
    let mut x = (f.min.x / step).ceil() * step;
    while x <= f.max.x + 1e-9 {
        let px = f.x(x);
        let _ = write!(
            s,
            "<line x1=\"{px:.1}\" y1=\"{top:.1}\" x2=\"{px:.1}\" y2=\"{bottom:.1}\"/>"
        );
        x += step;
    }
    let mut y = (f.min.y / step).ceil() * step;
    while y <= f.max.y + 1e-9 {
        let py = f.y(y);
        let _ = write!(
            s,
            "<line x1=\"{left:.1}\" y1=\"{py:.1}\" x2=\"{right:.1}\" y2=\"{py:.1}\"/>"
        );
        y += step;
    }
    let _ = writeln!(s, "</g>");
    let _ = write!(s, "<g font-size=\"9\" fill=\"#555555\">");
    let mut x = (f.min.x / step).ceil() * step;
    while x <= f.max.x + 1e-9 {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{x:.0}</text>",
            f.x(x),
            bottom + 11.0
        );
        x += step;
    }
    let mut y = (f.min.y / step).ceil() * step;
    while y <= f.max.y + 1e-9 {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{y:.0}</text>",
            left - 3.0,
            f.y(y) + 3.0
        );
        y += step;
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">inches</text></g>",
        right,
        bottom + 21.0
    );
}

/// The north arrow, in the table's north-east corner.
fn draw_north(s: &mut String, f: &Frame) {
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

/// The legend under the table, its first row: a swatch for each kind of
/// mark the reader is shown (the second row, the same for every reader, is
/// in the static layer: [`draw_scale_legend`]).
fn draw_legend(s: &mut String, png: &mut String, inks: &mut Vec<Ink>, f: &Frame, layer: &MapLayer) {
    let y = f.y(f.min.y) + MARGIN + 4.0;
    let mut x = MARGIN;
    let _ = write!(s, "<g font-size=\"10\" fill=\"#222222\">");
    let _ = write!(png, "<g font-size=\"10\" fill=\"#222222\">");
    for (mark, words) in &layer.legend {
        let colour = unit_colour(*mark);
        let (fill, dash) = match mark {
            Mark::LastKnown => (0.3, " stroke-dasharray=\"3 2\""),
            Mark::Gone => (0.0, " stroke-dasharray=\"2 2\""),
            Mark::Friend => (0.8, ""),
            _ => (1.0, ""),
        };
        let swatch = format!(
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"18\" height=\"8\" fill=\"{colour}\" fill-opacity=\"{fill}\" stroke=\"#000000\" stroke-width=\"0.8\"{dash}/><line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#000000\" stroke-width=\"2.5\"/>",
            y + 1.0,
            y + 1.0,
            x + 18.0,
            y + 1.0,
        );
        let (tx, ty) = (format!("{:.1}", x + 22.0), format!("{:.1}", y + 9.0));
        let _ = write!(
            s,
            "{swatch}<text x=\"{tx}\" y=\"{ty}\">{}</text>",
            xml_escape(words)
        );
        png.push_str(&swatch);
        inks.push(Ink::Text {
            text: words.clone(),
            x: Ink::num(&tx),
            y: Ink::num(&ty),
            size: 10.0,
            anchor: Anchor::Start,
            rgb: Ink::rgb("#222222"),
            opacity: 1.0,
        });
        if *mark == Mark::Gone {
            let cross = format!(
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\"/><line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\"/>",
                y + 1.0,
                x + 18.0,
                y + 9.0,
                y + 9.0,
                x + 18.0,
                y + 1.0
            );
            s.push_str(&cross);
            png.push_str(&cross);
        }
        x += 22.0 + text_px(words) + 12.0;
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(png, "</g>");
}

/// The legend's second row: officers, the front edge, the grid's step and
/// a scale bar of 200 yards. The same on every map of a game, so it is
/// drawn with the static layer (rasterised once per game for the PNG:
/// four fewer text elements to shape and fill on every map).
fn draw_scale_legend(s: &mut String, f: &Frame, layer: &MapLayer) {
    let ypi = if layer.yards_per_inch > 0.0 {
        layer.yards_per_inch
    } else {
        25.0
    };
    let y = f.y(f.min.y) + MARGIN + 4.0 + 16.0;
    let _ = write!(s, "<g font-size=\"10\" fill=\"#222222\">");
    let mut x = MARGIN;
    let _ = write!(
        s,
        "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#ffd700\" stroke=\"#555555\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\">officer</text>",
        x + 4.0,
        y + 5.0,
        x + 11.0,
        y + 9.0
    );
    x += 11.0 + text_px("officer") + 12.0;
    let front = "thick edge: front";
    let _ = write!(s, "<text x=\"{x:.1}\" y=\"{:.1}\">{front}</text>", y + 9.0);
    x += text_px(front) + 12.0;
    let grid = format!(
        "grid: {:.0} in = {:.0} yards",
        grid_step(f),
        grid_step(f) * ypi
    );
    let _ = write!(
        s,
        "<text x=\"{x:.1}\" y=\"{:.1}\">{}</text>",
        y + 9.0,
        xml_escape(&grid)
    );
    x += text_px(&grid) + 12.0;
    let bar_px = 200.0 / ypi * f.scale;
    let (x0, x1) = (x, x + bar_px);
    let _ = writeln!(
        s,
        "<line x1=\"{x0:.1}\" y1=\"{:.1}\" x2=\"{x1:.1}\" y2=\"{:.1}\" stroke=\"#000000\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\">200 yards</text></g>",
        y + 5.0,
        y + 5.0,
        x1 + 4.0,
        y + 9.0
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

    #[test]
    fn a_blocked_place_reports_the_farthest_edge_that_blocks_it() {
        let b = |x0, y0, x1, y1| PxBox { x0, y0, x1, y1 };
        let mut g = BoxGrid::new(&b(0.0, 0.0, 400.0, 300.0));
        g.insert(b(50.0, 10.0, 90.0, 30.0));
        g.insert(b(60.0, 20.0, 130.0, 40.0));
        g.insert(b(200.0, 10.0, 210.0, 30.0));
        let place = b(40.0, 15.0, 80.0, 27.0);
        assert_eq!(g.blocked_to(&place), Some(130.0));
        assert!(g.overlaps(&place));
        // Every place of the row left of that edge is blocked too; at the
        // edge it is free (touching is not overlapping).
        for x in [40.0, 70.0, 129.0] {
            assert!(g.overlaps(&b(x, 15.0, x + 40.0, 27.0)), "{x}");
        }
        assert_eq!(g.blocked_to(&b(130.0, 15.0, 170.0, 27.0)), None);
        assert!(!g.overlaps(&b(130.0, 15.0, 170.0, 27.0)));
    }
}
