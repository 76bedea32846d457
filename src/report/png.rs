//! The SVG map as PNG, for mail clients that will not show SVG.
//!
//! Rendered with resvg. Labels need a font: rather than depend on whatever
//! fonts a server has (none, often), the crate ships DejaVu Sans Condensed
//! (`templates/fonts/`, Bitstream Vera licence, which allows redistribution)
//! and loads it into resvg's font database once. System font discovery is
//! off, so the PNG is the same on every machine.

use super::ReportError;
use super::map::MAP_FONT;
use resvg::{tiny_skia, usvg};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};

static FONT: &[u8] = include_bytes!("../../templates/fonts/DejaVuSansCondensed.ttf");

/// The map font's bytes as loaded ([`without_table`]): shared by the font
/// database and by [`draw_inks`]' own shaping, so both see the same font.
fn font_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| without_table(FONT, *b"kern"))
}

/// The font database with the shipped font, built on first use.
fn fontdb() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(font_bytes().to_vec());
        db.set_sans_serif_family(MAP_FONT);
        db.set_serif_family(MAP_FONT);
        Arc::new(db)
    })
    .clone()
}

/// The font's bytes with table `tag` left out of its table directory (the
/// table's bytes stay where they are, unreferenced); the font unchanged if
/// it has no such table or its directory cannot be read.
///
/// Why the map drops the legacy `kern` table: the shaper (harfrust, under
/// usvg) builds a cache of that table's pairs for every text element it
/// shapes — per label, not per font — and that was the largest single cost
/// of a turn's maps (15% of `benches/report.rs`). It never uses it for
/// this font: DejaVu Sans Condensed also kerns in its `GPOS` table, and a
/// shaper kerns from `GPOS` when the script's `GPOS` has a `kern` feature
/// (`hb_ot_shape_plan`: the legacy table only when it has none). So the
/// pictures are pixel for pixel the same
/// (`dropping_kern_changes_no_pixel`). The shipped file itself is left as
/// released.
fn without_table(font: &[u8], tag: [u8; 4]) -> Vec<u8> {
    let read_u16 = |at: usize| -> Option<u16> {
        Some(u16::from_be_bytes(font.get(at..at + 2)?.try_into().ok()?))
    };
    let Some(count) = read_u16(4).map(usize::from) else {
        return font.to_vec();
    };
    let records = 12..12 + 16 * count;
    let Some(dir) = font.get(records.clone()) else {
        return font.to_vec();
    };
    let kept: Vec<&[u8]> = dir.chunks(16).filter(|r| r[..4] != tag).collect();
    if kept.len() == count {
        return font.to_vec();
    }
    let n = kept.len();
    // Binary-search fields of the directory header (OpenType `TableDirectory`).
    let mut pow = 1usize;
    let mut log = 0u16;
    while pow * 2 <= n {
        pow *= 2;
        log += 1;
    }
    let range = u16::try_from(pow * 16).unwrap_or(u16::MAX);
    let shift = u16::try_from(n * 16)
        .unwrap_or(u16::MAX)
        .saturating_sub(range);
    let mut out = Vec::with_capacity(font.len());
    out.extend_from_slice(&font[..4]);
    for v in [u16::try_from(n).unwrap_or(u16::MAX), range, log, shift] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    for r in kept {
        out.extend_from_slice(r);
    }
    // The dropped record's room, zeroed: every table keeps its offset.
    out.resize(records.end, 0);
    out.extend_from_slice(&font[records.end..]);
    out
}

fn options() -> usvg::Options<'static> {
    let mut opt = usvg::Options {
        font_family: MAP_FONT.to_string(),
        fontdb: fontdb(),
        ..usvg::Options::default()
    };
    opt.languages = vec!["en".to_string()];
    opt
}

/// Render an SVG document to PNG bytes at its own pixel size.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, ReportError> {
    encode_rgb(&rasterise(svg)?)
}

/// How many base layers are kept: a turn's maps share one; a daemon
/// running several games at once alternates between a few.
const BASES_KEPT: usize = 4;

/// Base layers already drawn, newest last: (base SVG, its pixels).
static BASES: Mutex<Vec<(String, Arc<tiny_skia::Pixmap>)>> = Mutex::new(Vec::new());

/// PNG of `overlay` drawn over `base` (both whole SVG documents of the same
/// size). The base — the scenario's terrain, the same for every map of a
/// turn — is rasterised once and kept; only the overlay is drawn per map.
/// Drawing the overlay on the kept pixels is exactly drawing both in one
/// document: the overlay's shapes are composited over what is there.
pub fn layers_to_png(base: &str, overlay: &str) -> Result<Vec<u8>, ReportError> {
    render_layers(base, overlay, |_| {})
}

/// `overlay` drawn over the kept pixels of `base`, then `then` on the
/// same canvas; encoded.
fn render_layers(
    base: &str,
    overlay: &str,
    then: impl FnOnce(&mut tiny_skia::Pixmap),
) -> Result<Vec<u8>, ReportError> {
    let kept = {
        let bases = BASES.lock().unwrap_or_else(|e| e.into_inner());
        bases
            .iter()
            .find(|(s, _)| s == base)
            .map(|(_, p)| Arc::clone(p))
    };
    let base_px = match kept {
        Some(p) => p,
        None => {
            let p = Arc::new(rasterise(base)?);
            let mut bases = BASES.lock().unwrap_or_else(|e| e.into_inner());
            if bases.len() >= BASES_KEPT {
                bases.remove(0);
            }
            bases.push((base.to_string(), Arc::clone(&p)));
            p
        }
    };
    let tree =
        usvg::Tree::from_str(overlay, &options()).map_err(|e| ReportError::Png(e.to_string()))?;
    SCRATCH.with(|cell| {
        let mut scratch = cell.borrow_mut();
        // The base's pixels copied into this thread's canvas from the last
        // map, rather than into a fresh one: a map's canvas is megabytes,
        // and a fresh allocation of that size is fresh pages from the
        // kernel, faulted in one by one, on every map.
        let canvas = match scratch.take() {
            Some(mut c) if c.width() == base_px.width() && c.height() == base_px.height() => {
                c.data_mut().copy_from_slice(base_px.data());
                c
            }
            _ => (*base_px).clone(),
        };
        let canvas = scratch.insert(canvas);
        resvg::render(&tree, tiny_skia::Transform::default(), &mut canvas.as_mut());
        then(canvas);
        encode_rgb(canvas)
    })
}

/// One thing a map's overlay draws on the PNG without going through an SVG
/// parse: a label's leader line, its card, a line of text. Numbers are the
/// ones written in the SVG, parsed as usvg parses them (`f64`, then `f32`),
/// so the PNG draws exactly what the SVG says ([`draw_inks`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Ink {
    /// `<text x y font-size fill fill-opacity text-anchor>`, one line.
    Text {
        text: String,
        x: f32,
        y: f32,
        size: f32,
        anchor: Anchor,
        rgb: [u8; 3],
        opacity: f32,
    },
    /// `<line>` stroked, butt caps.
    Line {
        from: (f32, f32),
        to: (f32, f32),
        width: f32,
        rgb: [u8; 3],
        opacity: f32,
    },
    /// `<rect>` filled, and stroked with a dash when `border` is given.
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        rgb: [u8; 3],
        opacity: f32,
        border: Option<Border>,
    },
}

/// A dashed stroke round an [`Ink::Rect`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Border {
    pub rgb: [u8; 3],
    pub width: f32,
    pub dash: [f32; 2],
}

/// `text-anchor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Ink {
    /// A number written in the SVG as `written`, read as usvg reads it.
    pub fn num(written: &str) -> f32 {
        written.parse::<f64>().map_or(0.0, |v| v as f32)
    }

    /// `#rrggbb` as bytes (black when it is not that).
    pub fn rgb(hex: &str) -> [u8; 3] {
        let byte = |i: usize| {
            hex.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .unwrap_or(0)
        };
        if hex.len() == 7 && hex.starts_with('#') {
            [byte(1), byte(3), byte(5)]
        } else {
            [0, 0, 0]
        }
    }
}

/// PNG of `overlay` and then `inks` drawn over `base`: the same as
/// [`layers_to_png`] of an overlay that holds the inks as SVG elements
/// after its own, pixel for pixel, without usvg laying out and shaping
/// every label of every map (`report_map` and this module's tests compare
/// the two byte for byte).
pub fn layers_to_png_inked(
    base: &str,
    overlay: &str,
    inks: &[Ink],
) -> Result<Vec<u8>, ReportError> {
    render_layers(base, overlay, |canvas| draw_inks(canvas, inks))
}

/// Opacity as usvg keeps it (clamped `f32`) and resvg paints it.
fn alpha(opacity: f32) -> u8 {
    (opacity.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

fn paint(rgb: [u8; 3], opacity: f32) -> tiny_skia::Paint<'static> {
    let mut p = tiny_skia::Paint::default();
    p.set_color_rgba8(rgb[0], rgb[1], rgb[2], alpha(opacity));
    p.anti_alias = true;
    p
}

/// Draw `inks` in order, as resvg draws the same SVG elements: rectangles
/// and lines are the paths usvg makes of them, filled then stroked with
/// the same paint; text is shaped (harfrust) and outlined (skrifa) as usvg
/// does it, with the same transforms, and filled as one path per line.
fn draw_inks(canvas: &mut tiny_skia::Pixmap, inks: &[Ink]) {
    draw_inks_with(canvas, inks, true);
}

/// [`draw_inks`], with text stamped from glyph masks when `masked`, else
/// every line's outline filled as one path (resvg's pixels exactly).
fn draw_inks_with(canvas: &mut tiny_skia::Pixmap, inks: &[Ink], masked: bool) {
    let id = tiny_skia::Transform::default();
    for ink in inks {
        match ink {
            Ink::Line {
                from,
                to,
                width,
                rgb,
                opacity,
            } => {
                let mut pb = tiny_skia::PathBuilder::new();
                pb.move_to(from.0, from.1);
                pb.line_to(to.0, to.1);
                if let Some(path) = pb.finish() {
                    let stroke = tiny_skia::Stroke {
                        width: *width,
                        ..tiny_skia::Stroke::default()
                    };
                    canvas.stroke_path(&path, &paint(*rgb, *opacity), &stroke, id, None);
                }
            }
            Ink::Rect {
                x,
                y,
                w,
                h,
                rgb,
                opacity,
                border,
            } => {
                let Some(rect) = tiny_skia::Rect::from_xywh(*x, *y, *w, *h) else {
                    continue;
                };
                let path = tiny_skia::PathBuilder::from_rect(rect);
                canvas.fill_path(
                    &path,
                    &paint(*rgb, *opacity),
                    tiny_skia::FillRule::Winding,
                    id,
                    None,
                );
                if let Some(b) = border {
                    let stroke = tiny_skia::Stroke {
                        width: b.width,
                        dash: tiny_skia::StrokeDash::new(b.dash.to_vec(), 0.0),
                        ..tiny_skia::Stroke::default()
                    };
                    canvas.stroke_path(&path, &paint(b.rgb, 1.0), &stroke, id, None);
                }
            }
            Ink::Text {
                text,
                x,
                y,
                size,
                anchor,
                rgb,
                opacity,
            } => {
                if masked && simple_text(text) && *size <= MASKED_MAX_SIZE {
                    draw_text_masked(canvas, text, *x, *y, *size, *anchor, *rgb, *opacity);
                } else if simple_text(text) {
                    if let Some(path) = text_path(text, *x, *y, *size, *anchor) {
                        let b = path.bounds();
                        if b.width() != 0.0 && b.height() != 0.0 {
                            canvas.fill_path(
                                &path,
                                &paint(*rgb, *opacity),
                                tiny_skia::FillRule::Winding,
                                id,
                                None,
                            );
                        }
                    }
                } else {
                    text_by_usvg(canvas, ink);
                }
            }
        }
    }
}

/// Text [`text_path`] lays out as usvg would: no space to trim or collapse
/// (SVG's `xml:space` rules), no control character, and nothing that could
/// start a right-to-left run (which usvg reorders). Anything else goes
/// through usvg itself ([`text_by_usvg`]).
fn simple_text(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.contains("  ")
        && text.chars().all(|c| {
            (c == ' ' || !c.is_whitespace())
                && !c.is_control()
                && (u32::from(c) < 0x0590 || (0x2000..=0x20CF).contains(&u32::from(c)))
                && !matches!(c, '\u{200E}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        })
}

/// One text element drawn by usvg, in a document of the canvas's size.
fn text_by_usvg(canvas: &mut tiny_skia::Pixmap, ink: &Ink) {
    let Ink::Text {
        text,
        x,
        y,
        size,
        anchor,
        rgb,
        opacity,
    } = ink
    else {
        return;
    };
    let anchor = match anchor {
        Anchor::Start => "start",
        Anchor::Middle => "middle",
        Anchor::End => "end",
    };
    let (w, h) = (canvas.width(), canvas.height());
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\"><text x=\"{x}\" y=\"{y}\" font-size=\"{size}\" text-anchor=\"{anchor}\" fill=\"#{:02x}{:02x}{:02x}\" fill-opacity=\"{opacity}\">{}</text></svg>",
        rgb[0],
        rgb[1],
        rgb[2],
        super::map::xml_escape(text)
    );
    if let Ok(tree) = usvg::Tree::from_str(&svg, &options()) {
        resvg::render(&tree, tiny_skia::Transform::default(), &mut canvas.as_mut());
    }
}

/// The map font for shaping, read once.
struct Shaping {
    font: harfrust::FontRef<'static>,
    data: harfrust::ShaperData,
    units_per_em: f32,
}

fn shaping() -> Option<&'static Shaping> {
    static SHAPING: OnceLock<Option<Shaping>> = OnceLock::new();
    SHAPING
        .get_or_init(|| {
            let font = harfrust::FontRef::from_index(font_bytes(), 0).ok()?;
            let data = harfrust::ShaperData::new(&font);
            let face = skrifa::FontRef::from_index(font_bytes(), 0).ok()?;
            use skrifa::raw::TableProvider;
            let units_per_em = f32::from(face.head().ok()?.units_per_em());
            Some(Shaping {
                font,
                data,
                units_per_em,
            })
        })
        .as_ref()
}

thread_local! {
    /// Shape plans by script: a plan is what usvg builds afresh for every
    /// text element (the font's lookups compiled for a script).
    static PLANS: RefCell<Vec<(Option<harfrust::Script>, harfrust::ShapePlan)>> =
        const { RefCell::new(Vec::new()) };
    /// Glyph outlines in font units, by glyph id.
    static OUTLINES: RefCell<std::collections::HashMap<u32, Option<tiny_skia::Path>>> =
        RefCell::new(std::collections::HashMap::new());
}

/// The outline of glyph `id` in font units, as usvg reads it (unhinted,
/// unscaled, default location).
fn read_outline(id: u32) -> Option<tiny_skia::Path> {
    use skrifa::MetadataProvider;
    let font = skrifa::FontRef::from_index(font_bytes(), 0).ok()?;
    let glyph = font.outline_glyphs().get(skrifa::GlyphId::new(id))?;
    let mut pen = Pen(tiny_skia::PathBuilder::new());
    glyph
        .draw(
            skrifa::outline::DrawSettings::unhinted(
                skrifa::prelude::Size::unscaled(),
                skrifa::prelude::LocationRef::default(),
            ),
            &mut pen,
        )
        .ok()?;
    pen.0.finish()
}

/// Glyph `id`'s outline mapped by `ts`, appended to `pb`: the same verbs
/// and points as `pb.push_path(&outline.transform(ts))`, without a copy
/// of the kept outline per glyph drawn (the outline came from a
/// `PathBuilder`, so replaying its segments gives back the same verbs).
fn push_outline(pb: &mut tiny_skia::PathBuilder, id: u32, ts: tiny_skia::Transform) {
    use tiny_skia::PathSegment;
    OUTLINES.with(|cell| {
        let mut cache = cell.borrow_mut();
        let path = cache.entry(id).or_insert_with(|| read_outline(id));
        let Some(path) = path.as_ref() else {
            return;
        };
        let map = |p: tiny_skia::Point| {
            let mut pts = [p];
            ts.map_points(&mut pts);
            pts[0]
        };
        for seg in path.segments() {
            match seg {
                PathSegment::MoveTo(p) => {
                    let p = map(p);
                    pb.move_to(p.x, p.y);
                }
                PathSegment::LineTo(p) => {
                    let p = map(p);
                    pb.line_to(p.x, p.y);
                }
                PathSegment::QuadTo(c, p) => {
                    let (c, p) = (map(c), map(p));
                    pb.quad_to(c.x, c.y, p.x, p.y);
                }
                PathSegment::CubicTo(c0, c1, p) => {
                    let (c0, c1, p) = (map(c0), map(c1), map(p));
                    pb.cubic_to(c0.x, c0.y, c1.x, c1.y, p.x, p.y);
                }
                PathSegment::Close => pb.close(),
            }
        }
    });
}

struct Pen(tiny_skia::PathBuilder);

impl skrifa::outline::OutlinePen for Pen {
    fn move_to(&mut self, x: f32, y: f32) {
        self.0.move_to(x, y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.0.line_to(x, y);
    }
    fn quad_to(&mut self, cx0: f32, cy0: f32, x: f32, y: f32) {
        self.0.quad_to(cx0, cy0, x, y);
    }
    fn curve_to(&mut self, cx0: f32, cy0: f32, cx1: f32, cy1: f32, x: f32, y: f32) {
        self.0.cubic_to(cx0, cy0, cx1, cy1, x, y);
    }
    fn close(&mut self) {
        self.0.close();
    }
}

/// One line of text as the path usvg would make of it: shaped left to
/// right with the font's default features (GPOS kerning), glyphs grouped
/// in clusters, each glyph's outline placed by the same chain of
/// transforms (`usvg::text::layout`: span, cluster, scale, glyph offset,
/// y flipped).
fn text_path(text: &str, x: f32, y: f32, size: f32, anchor: Anchor) -> Option<tiny_skia::Path> {
    let mut pb = tiny_skia::PathBuilder::new();
    for (id, ts) in glyph_placements(text, x, y, size, anchor)? {
        push_outline(&mut pb, id, ts);
    }
    pb.finish()
}

/// Each glyph of one line of text with the transform that maps its outline
/// (font units) onto the canvas: the placement [`text_path`] fills and
/// [`draw_text_masked`] stamps.
fn glyph_placements(
    text: &str,
    x: f32,
    y: f32,
    size: f32,
    anchor: Anchor,
) -> Option<Vec<(u32, tiny_skia::Transform)>> {
    use tiny_skia::Transform;
    let sh = shaping()?;
    let mut buffer = harfrust::UnicodeBuffer::new();
    buffer.push_str(text);
    buffer.set_direction(harfrust::Direction::LeftToRight);
    buffer.guess_segment_properties();
    let script = buffer.script();
    let shaper = sh.data.shaper(&sh.font).build();
    let glyphs = PLANS.with(|cell| {
        let mut plans = cell.borrow_mut();
        let at = match plans.iter().position(|(s, _)| *s == Some(script)) {
            Some(i) => i,
            None => {
                let plan = harfrust::ShapePlan::new(
                    &shaper,
                    harfrust::Direction::LeftToRight,
                    Some(script),
                    None,
                    &[],
                );
                plans.push((Some(script), plan));
                plans.len() - 1
            }
        };
        let out = shaper.shape(
            buffer,
            harfrust::ShapeOptions::new().plan(Some(&plans[at].1)),
        );
        out.glyph_infos()
            .iter()
            .zip(out.glyph_positions())
            .map(|(i, p)| (i.cluster, i.glyph_id, p.x_advance, p.x_offset, p.y_offset))
            .collect::<Vec<_>>()
    });
    if glyphs.is_empty() {
        return None;
    }
    let sx = size / sh.units_per_em;
    // Clusters: runs of glyphs with the same cluster index, each with its
    // advance in pixels (`form_glyph_clusters`).
    let mut clusters: Vec<(usize, usize, f32)> = Vec::new();
    let mut start = 0;
    while start < glyphs.len() {
        let mut end = start + 1;
        while end < glyphs.len() && glyphs[end].0 == glyphs[start].0 {
            end += 1;
        }
        let mut advance = 0.0f32;
        for g in &glyphs[start..end] {
            advance += g.2 as f32 * sx;
        }
        clusters.push((start, end, advance));
        start = end;
    }
    // `resolve_clusters_positions_horizontal`, no dx/dy.
    let (mut left, mut right) = (f32::INFINITY, f32::NEG_INFINITY);
    let mut advance = 0.0f32;
    for &(_, _, a) in &clusters {
        let s = advance + 0.0;
        let e = s + a - 0.0;
        left = left.min(s).min(e);
        right = right.max(s).max(e);
        advance += a;
    }
    let shift = match anchor {
        Anchor::Start => 0.0,
        Anchor::Middle => -(right - left) / 2.0,
        Anchor::End => -(right - left),
    };
    let mut cx = 0.0 - left + shift;
    let span_ts = Transform::default()
        .pre_translate(x, y)
        .pre_translate(0.0, 0.0);
    let mut out = Vec::with_capacity(glyphs.len());
    for &(s, e, a) in &clusters {
        let cluster_ts =
            Transform::default().post_concat(Transform::default().pre_translate(cx + 0.0, 0.0));
        let mut gx = 0.0f32;
        for g in &glyphs[s..e] {
            let glyph_ts = Transform::from_translate(gx + g.3 as f32, -g.4 as f32);
            let ts = span_ts
                .pre_concat(cluster_ts)
                .pre_concat(Transform::from_scale(sx, sx))
                .pre_concat(glyph_ts)
                .pre_concat(Transform::from_scale(1.0, -1.0));
            out.push((g.1, ts));
            gx += g.2 as f32;
        }
        cx += a;
    }
    Some(out)
}

/// Text larger than this (pixels) is filled as a path: its masks would be
/// large and few labels use it.
const MASKED_MAX_SIZE: f32 = 40.0;

/// Sub-pixel positions a glyph mask is kept for, per pixel: a glyph is
/// stamped at its position rounded to the nearest 1/`PHASES_X` of a pixel
/// across and 1/`PHASES_Y` down. Finer down: the rasteriser samples 4
/// sub-scanlines per pixel (tiny-skia's `SUPERSAMPLE_SHIFT` = 2), so a
/// glyph moved down by a fraction of a pixel may see a horizontal edge
/// cross a sub-scanline and a whole quarter of a pixel's coverage change.
const PHASES_X: f32 = 8.0;
/// See [`PHASES_X`].
const PHASES_Y: f32 = 16.0;

/// One glyph's coverage at one size and sub-pixel phase: `w` × `h` bytes,
/// its top-left pixel `(left, top)` from the pixel holding the glyph's
/// origin.
struct GlyphMask {
    left: i32,
    top: i32,
    w: usize,
    h: usize,
    cov: Vec<u8>,
}

/// Mask cache key: glyph, the outline transform's scale (bits), phase.
type MaskKey = (u32, u32, u32, u8, u8);

thread_local! {
    /// Glyph masks drawn so far (bounded: the glyphs a map uses × its few
    /// text sizes × `PHASES_X` × `PHASES_Y` phases).
    static MASKS: RefCell<std::collections::HashMap<MaskKey, Option<GlyphMask>>> =
        RefCell::new(std::collections::HashMap::new());
    /// One line's coverage, reused from line to line.
    static LINE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The coverage tiny-skia's anti-aliased fill gives glyph `id` with outline
/// scale `(sx, sy)`, its origin at `(qx, qy)` pixels right of and below a
/// pixel's corner.
fn glyph_mask(id: u32, sx: f32, sy: f32, qx: f32, qy: f32) -> Option<GlyphMask> {
    let scaled = OUTLINES.with(|cell| {
        let mut cache = cell.borrow_mut();
        let path = cache
            .entry(id)
            .or_insert_with(|| read_outline(id))
            .clone()?;
        path.transform(tiny_skia::Transform::from_row(sx, 0.0, 0.0, sy, qx, qy))
    })?;
    let b = scaled.bounds();
    let left = b.left().floor() as i32 - 1;
    let top = b.top().floor() as i32 - 1;
    let w = usize::try_from(b.right().ceil() as i32 + 1 - left).ok()?;
    let h = usize::try_from(b.bottom().ceil() as i32 + 1 - top).ok()?;
    let mut mask = tiny_skia::Mask::new(u32::try_from(w).ok()?, u32::try_from(h).ok()?)?;
    let path = scaled.transform(tiny_skia::Transform::from_translate(
        -left as f32,
        -top as f32,
    ))?;
    mask.fill_path(
        &path,
        tiny_skia::FillRule::Winding,
        true,
        tiny_skia::Transform::default(),
    );
    Some(GlyphMask {
        left,
        top,
        w,
        h,
        cov: mask.take(),
    })
}

/// One line of text drawn from kept glyph masks rather than by filling its
/// outline path: the glyphs placed as [`text_path`] places them, each
/// stamped at its position rounded to 1/[`PHASES_X`] pixel across and
/// 1/[`PHASES_Y`] down, their coverage
/// summed over the line (as one path's coverage adds up) and the sum
/// blended once with the paint, as tiny-skia's pipeline blends an
/// anti-aliased solid fill (premultiplied source scaled by coverage, then
/// source-over). Not the same bytes as the path: a glyph may sit up to
/// 1/16 pixel across and 1/32 down from where the path puts it. The tolerance and why it is
/// acceptable: `BENCHMARKS.md` ("Fifth pass") and
/// `tests/report_map.rs`, `the_png_draws_its_labels_within_the_tolerance`.
#[allow(clippy::too_many_arguments)]
fn draw_text_masked(
    canvas: &mut tiny_skia::Pixmap,
    text: &str,
    x: f32,
    y: f32,
    size: f32,
    anchor: Anchor,
    rgb: [u8; 3],
    opacity: f32,
) {
    let Some(placed) = glyph_placements(text, x, y, size, anchor) else {
        return;
    };
    let (cw, ch) = (canvas.width() as i32, canvas.height() as i32);
    MASKS.with(|masks| {
        let mut masks = masks.borrow_mut();
        // (mask key, top-left pixel of the mask on the canvas).
        let mut stamps: Vec<(MaskKey, i32, i32)> = Vec::with_capacity(placed.len());
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for (id, ts) in placed {
            let (ox, oy) = (ts.tx, ts.ty);
            if !ox.is_finite() || !oy.is_finite() {
                continue;
            }
            let (px, py) = ((ox * PHASES_X).round(), (oy * PHASES_Y).round());
            let (fx, fy) = ((px / PHASES_X).floor(), (py / PHASES_Y).floor());
            let qx = (px - fx * PHASES_X) as u8;
            let qy = (py - fy * PHASES_Y) as u8;
            let key = (id, ts.sx.to_bits(), ts.sy.to_bits(), qx, qy);
            let mask = masks.entry(key).or_insert_with(|| {
                glyph_mask(
                    id,
                    ts.sx,
                    ts.sy,
                    f32::from(qx) / PHASES_X,
                    f32::from(qy) / PHASES_Y,
                )
            });
            let Some(m) = mask.as_ref() else {
                continue;
            };
            let (mx, my) = (fx as i32 + m.left, fy as i32 + m.top);
            x0 = x0.min(mx);
            y0 = y0.min(my);
            x1 = x1.max(mx + m.w as i32);
            y1 = y1.max(my + m.h as i32);
            stamps.push((key, mx, my));
        }
        // The line's box, clipped to the canvas.
        let (bx0, by0, bx1, by1) = (x0.max(0), y0.max(0), x1.min(cw), y1.min(ch));
        if stamps.is_empty() || bx0 >= bx1 || by0 >= by1 {
            return;
        }
        let (bw, bh) = ((bx1 - bx0) as usize, (by1 - by0) as usize);
        LINE.with(|line| {
            let mut line = line.borrow_mut();
            line.clear();
            line.resize(bw * bh, 0);
            for (key, mx, my) in &stamps {
                let Some(Some(m)) = masks.get(key) else {
                    continue;
                };
                for row in 0..m.h as i32 {
                    let cy = my + row;
                    if cy < by0 || cy >= by1 {
                        continue;
                    }
                    let src = &m.cov[row as usize * m.w..(row as usize + 1) * m.w];
                    let dst_row = (cy - by0) as usize * bw;
                    for (col, &c) in src.iter().enumerate() {
                        let cx = mx + col as i32;
                        if c == 0 || cx < bx0 || cx >= bx1 {
                            continue;
                        }
                        let d = &mut line[dst_row + (cx - bx0) as usize];
                        *d = d.saturating_add(c);
                    }
                }
            }
            blend_coverage(canvas, &line, (bx0, by0, bw, bh), rgb, opacity);
        });
    });
}

/// `(v + 255) >> 8`: tiny-skia's low-precision division by 255.
fn div255(v: u16) -> u16 {
    (v + 255) >> 8
}

/// The paint `rgb` at `opacity` laid over the canvas's `(x, y, w, h)` box
/// through `cov` (`w` × `h` coverage bytes), with tiny-skia's arithmetic for
/// an anti-aliased solid fill: the premultiplied colour as `u16`s
/// (`f * 255 + 0.5`), scaled by the coverage when it is partial
/// (`div255(c * cov)`), then source-over (`s + div255(d * (255 - sa))`).
fn blend_coverage(
    canvas: &mut tiny_skia::Pixmap,
    cov: &[u8],
    (x, y, w, h): (i32, i32, usize, usize),
    rgb: [u8; 3],
    opacity: f32,
) {
    let a = f32::from(alpha(opacity)) / 255.0;
    let pm = |c: u8| (f32::from(c) / 255.0 * a * 255.0 + 0.5) as u16;
    let src = [pm(rgb[0]), pm(rgb[1]), pm(rgb[2]), (a * 255.0 + 0.5) as u16];
    let stride = canvas.width() as usize * 4;
    let data = canvas.data_mut();
    for row in 0..h {
        let at = (y as usize + row) * stride + x as usize * 4;
        let px = &mut data[at..at + w * 4];
        for (p, &c) in px.chunks_exact_mut(4).zip(&cov[row * w..(row + 1) * w]) {
            if c == 0 {
                continue;
            }
            let s = if c == 255 {
                src
            } else {
                let c = u16::from(c);
                [
                    div255(src[0] * c),
                    div255(src[1] * c),
                    div255(src[2] * c),
                    div255(src[3] * c),
                ]
            };
            let inv = 255 - s[3];
            for k in 0..4 {
                p[k] = (s[k] + div255(u16::from(p[k]) * inv)) as u8;
            }
        }
    }
}

thread_local! {
    /// The canvas [`layers_to_png`] last drew on, kept for the next map.
    static SCRATCH: RefCell<Option<tiny_skia::Pixmap>> = const { RefCell::new(None) };
    /// The RGB rows [`encode_rgb`] last packed, kept for the next map.
    static RGB: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The SVG's pixels on white paper.
fn rasterise(svg: &str) -> Result<tiny_skia::Pixmap, ReportError> {
    let tree =
        usvg::Tree::from_str(svg, &options()).map_err(|e| ReportError::Png(e.to_string()))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).ok_or_else(|| {
        ReportError::Png(format!(
            "cannot make a {}x{} picture",
            size.width(),
            size.height()
        ))
    })?;
    // On white paper: every pixel is then opaque, so the PNG needs no alpha.
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    Ok(pixmap)
}

/// PNG bytes of an opaque pixmap, as RGB with fast compression.
///
/// Why not `Pixmap::encode_png`: it writes RGBA with the `png` crate's
/// default (zlib-level) compression, which was a third of the time of a
/// whole turn's reports (benches/report.rs). A map is large areas of flat
/// colour: `Compression::Fast` (fdeflate, made for PNG) packs it almost as
/// tightly in a fraction of the time, and dropping the alpha channel the
/// white background made constant saves a quarter of the data. The picture
/// is pixel for pixel the same.
///
/// The row filter is Paeth for every row rather than `Fast`'s adaptive
/// choice (which runs all five filters on every row to pick one): on
/// Brawner's Farm's map the adaptive choice took 2.0 ms for 66.0 kB,
/// Paeth 1.3 ms for 66.5 kB; on a corps battle's map Paeth is within 1.5%
/// of its size. (Measured with the png crate on the maps of
/// `benches/games.rs` and `benches/report.rs`: zlib level 1 packs the
/// Brawner map to 55 kB but takes 3.1 ms; `Up` alone 0.9 ms but 157 kB.)
fn encode_rgb(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, ReportError> {
    RGB.with(|cell| {
        let mut rgb = cell.borrow_mut();
        rgb.clear();
        rgb.resize(pixmap.pixels().len() * 3, 0);
        // Opaque pixels: premultiplied RGBA is plain RGBA, alpha dropped.
        for (to, from) in rgb.chunks_exact_mut(3).zip(pixmap.data().chunks_exact(4)) {
            to.copy_from_slice(&from[..3]);
        }
        encode_rgb_rows(pixmap.width(), pixmap.height(), &rgb)
    })
}

/// PNG of `rgb`, `width` × `height` pixels of three bytes (see [`encode_rgb`]).
fn encode_rgb_rows(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>, ReportError> {
    let mut out = Vec::with_capacity(rgb.len() / 8);
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        enc.set_filter(png::Filter::Paeth);
        let mut w = enc
            .write_header()
            .map_err(|e| ReportError::Png(e.to_string()))?;
        w.write_image_data(rgb)
            .map_err(|e| ReportError::Png(e.to_string()))?;
    }
    Ok(out)
}

/// How far two PNGs of the same size differ, pixel by pixel (RGB or RGBA
/// as decoded; the maps are RGB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelDifference {
    /// Pixels in each picture.
    pub pixels: usize,
    /// Pixels where any channel differs.
    pub differing: usize,
    /// Pixels where some channel differs by more than a quarter of its
    /// range (64 levels).
    pub over_quarter: usize,
    /// The largest difference of one channel of one pixel.
    pub max_channel: u8,
    /// Pixels of the first picture with a channel outside the range that
    /// channel spans over the 3 × 3 pixels round the same place in the
    /// second, by more than a quarter of that range or 2 levels (rounding),
    /// whichever is more. A glyph moved by an eighth of a pixel only
    /// shades its edge pixels about as their neighbours are shaded (a stem
    /// a pixel wide straddling two pixels gains at most an eighth of the
    /// contrast in one of them); anything drawn that the second picture
    /// does not have — a word, a mark on plain ground — makes colours not
    /// found round it.
    pub outside_neighbourhood: usize,
}

impl PixelDifference {
    /// Compare two PNGs; an error when either does not decode or their
    /// sizes or colour types differ.
    pub fn of(a: &[u8], b: &[u8]) -> Result<Self, ReportError> {
        let (wa, ha, pa) = decode(a)?;
        let (wb, hb, pb) = decode(b)?;
        if (wa, ha) != (wb, hb) || pa.len() != pb.len() {
            return Err(ReportError::Png(format!(
                "pictures of {wa}x{ha} and {wb}x{hb} pixels"
            )));
        }
        let pixels = (wa as usize) * (ha as usize);
        let step = pa.len().checked_div(pixels).unwrap_or(1).max(1);
        let mut d = PixelDifference {
            pixels,
            differing: 0,
            over_quarter: 0,
            max_channel: 0,
            outside_neighbourhood: 0,
        };
        let (w, h) = (wa as usize, ha as usize);
        for (i, (p, q)) in pa.chunks(step).zip(pb.chunks(step)).enumerate() {
            let worst = p
                .iter()
                .zip(q)
                .map(|(x, y)| x.abs_diff(*y))
                .max()
                .unwrap_or(0);
            if worst == 0 {
                continue;
            }
            d.differing += 1;
            d.max_channel = d.max_channel.max(worst);
            if worst > 64 {
                d.over_quarter += 1;
            }
            let (x, y) = (i % w.max(1), i / w.max(1));
            let outside = (0..step).any(|c| {
                let (mut lo, mut hi) = (u8::MAX, u8::MIN);
                for ny in y.saturating_sub(1)..(y + 2).min(h) {
                    for nx in x.saturating_sub(1)..(x + 2).min(w) {
                        let v = pb[(ny * w + nx) * step + c];
                        lo = lo.min(v);
                        hi = hi.max(v);
                    }
                }
                let slack = ((hi - lo) / 4).max(2);
                p[c].saturating_add(slack) < lo || p[c] > hi.saturating_add(slack)
            });
            if outside {
                d.outside_neighbourhood += 1;
            }
        }
        Ok(d)
    }

    /// Within the tolerance allowed between a map whose labels are stamped
    /// from glyph masks ([`draw_text_masked`]) and the same map with every
    /// label's outline filled as a path (resvg's rendering of the SVG): no
    /// channel differs by more than [`MAX_CHANNEL_DIFFERENCE`], at most
    /// [`MAX_DIFFERING_SHARE`] of the pixels differ at all (edge pixels of
    /// glyphs: a map dense with labels has many), at most
    /// [`MAX_OVER_QUARTER_SHARE`] by more than a quarter of a channel's
    /// range, and at most [`MAX_OUTSIDE_NEIGHBOURHOOD_SHARE`] have a colour
    /// not found round the same place in the second picture. Why these:
    /// `BENCHMARKS.md`, "Fifth pass".
    pub fn within_label_tolerance(&self) -> bool {
        let share = |n: usize| n as f64 / self.pixels.max(1) as f64;
        self.max_channel <= MAX_CHANNEL_DIFFERENCE
            && share(self.differing) <= MAX_DIFFERING_SHARE
            && share(self.over_quarter) <= MAX_OVER_QUARTER_SHARE
            && share(self.outside_neighbourhood) <= MAX_OUTSIDE_NEIGHBOURHOOD_SHARE
    }
}

/// See [`PixelDifference::within_label_tolerance`].
pub const MAX_CHANNEL_DIFFERENCE: u8 = 96;
/// See [`PixelDifference::within_label_tolerance`].
pub const MAX_DIFFERING_SHARE: f64 = 0.10;
/// See [`PixelDifference::within_label_tolerance`].
pub const MAX_OVER_QUARTER_SHARE: f64 = 0.0002;
/// See [`PixelDifference::within_label_tolerance`].
pub const MAX_OUTSIDE_NEIGHBOURHOOD_SHARE: f64 = 0.002;

/// A PNG's size and decoded samples.
fn decode(png_bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), ReportError> {
    let bad = |e: png::DecodingError| ReportError::Png(e.to_string());
    let mut dec = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .map_err(bad)?;
    let size = dec
        .output_buffer_size()
        .ok_or_else(|| ReportError::Png("picture too large".into()))?;
    let mut buf = vec![0; size];
    let info = dec.next_frame(&mut buf).map_err(bad)?;
    buf.truncate(info.buffer_size());
    Ok((info.width, info.height, buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_png_of_the_svg_size() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="#ff0000"/><text x="2" y="20">Hi</text></svg>"##;
        let png = svg_to_png(svg).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, at bytes 16..24.
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 40);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 30);
    }

    #[test]
    fn the_shipped_font_is_found() {
        let db = fontdb();
        let names: Vec<String> = db
            .faces()
            .flat_map(|f| f.families.iter().map(|(n, _)| n.clone()))
            .collect();
        assert!(names.iter().any(|n| n == MAP_FONT), "{names:?}");
    }

    #[test]
    fn layers_draw_the_same_as_one_document() {
        let open = r##"<svg xmlns="http://www.w3.org/2000/svg" width="60" height="40">"##;
        let base = r##"<rect width="60" height="40" fill="#f4efe1"/><polygon points="0,0 60,40 0,40" fill="#9c9" fill-opacity="0.5"/><text x="2" y="12">Hill</text>"##;
        let over = r##"<rect x="10" y="10" width="30" height="8" fill="#b22222" fill-opacity="0.35" stroke="#000"/><text x="20" y="30">A</text>"##;
        let whole = svg_to_png(&format!("{open}{base}{over}</svg>")).unwrap();
        let layered = layers_to_png(
            &format!("{open}{base}</svg>"),
            &format!("{open}{over}</svg>"),
        )
        .unwrap();
        assert_eq!(whole, layered);
        // And again, from the kept base.
        let again = layers_to_png(
            &format!("{open}{base}</svg>"),
            &format!("{open}{over}</svg>"),
        )
        .unwrap();
        assert_eq!(whole, again);
    }

    #[test]
    fn dropping_kern_changes_no_pixel() {
        // Pairs DejaVu kerns ("AV", "To", "Wa", "LT"), in the label styles
        // of the map: the same pixels with and without the legacy table.
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="220" height="60" font-family="DejaVu Sans, sans-serif" font-size="11"><rect width="220" height="60" fill="#fff"/><text x="2" y="14" font-weight="bold">AVATAR To Wa LT Yo 12:30</text><text x="2" y="32" font-style="italic">Col. Tavy's Foot, Farm 7</text><text x="2" y="52" font-size="14">Turn 3 — AV, AW, AY</text></svg>"##;
        let render = |font: Vec<u8>| {
            let mut db = usvg::fontdb::Database::new();
            db.load_font_data(font);
            db.set_sans_serif_family(MAP_FONT);
            let opt = usvg::Options {
                font_family: MAP_FONT.to_string(),
                fontdb: Arc::new(db),
                ..usvg::Options::default()
            };
            let tree = usvg::Tree::from_str(svg, &opt).unwrap();
            let mut p = tiny_skia::Pixmap::new(220, 60).unwrap();
            resvg::render(&tree, tiny_skia::Transform::default(), &mut p.as_mut());
            p.data().to_vec()
        };
        let stripped = without_table(FONT, *b"kern");
        assert_eq!(stripped.len(), FONT.len());
        assert_ne!(stripped, FONT);
        let with = render(FONT.to_vec());
        assert!(with.iter().any(|&b| b != 255), "text was drawn");
        assert_eq!(render(stripped), with);
        // No such table, or no directory: the bytes as given.
        assert_eq!(without_table(FONT, *b"zzzz"), FONT);
        assert_eq!(without_table(b"abc", *b"kern"), b"abc");
    }

    #[test]
    fn inks_draw_what_the_same_svg_elements_draw() {
        // Every kind of ink, and text that takes each way through
        // `draw_inks`: kerned pairs, accents and a combining mark, the
        // three anchors, and text usvg must trim, collapse or reorder
        // (drawn by usvg itself).
        let open = r##"<svg xmlns="http://www.w3.org/2000/svg" width="240" height="150" font-family="DejaVu Sans, sans-serif" font-size="11">"##;
        let base = r##"<rect width="240" height="150" fill="#f4efe1"/>"##;
        let texts: [(&str, f32, f32, Anchor, &str); 8] = [
            (
                "AVATAR To Wa LT, Col. Tavy's Foot",
                2.3,
                12.7,
                Anchor::Start,
                "start",
            ),
            (
                "Müller’s café — 12:30 (2 turns ago)",
                4.1,
                28.4,
                Anchor::Start,
                "start",
            ),
            ("x\u{301}y e\u{308}", 120.0, 44.2, Anchor::Middle, "middle"),
            ("N", 236.5, 60.0, Anchor::End, "end"),
            ("  two  spaces ", 3.0, 76.6, Anchor::Start, "start"),
            ("שלום abc", 5.5, 92.1, Anchor::Start, "start"),
            ("", 5.0, 100.0, Anchor::Start, "start"),
            ("inches", 230.0, 140.3, Anchor::End, "end"),
        ];
        let mut svg = String::new();
        let mut inks = Vec::new();
        svg.push_str(r##"<line x1="10.5" y1="104.3" x2="200.2" y2="120.9" stroke="#444444" stroke-width="0.7" stroke-opacity="0.8"/>"##);
        inks.push(Ink::Line {
            from: (10.5, 104.3),
            to: (200.2, 120.9),
            width: 0.7,
            rgb: Ink::rgb("#444444"),
            opacity: 0.8,
        });
        svg.push_str(r##"<rect x="20.3" y="100.1" width="61.7" height="13.5" fill="#ffffff" fill-opacity="0.77" stroke="#8b1a1a" stroke-width="0.8" stroke-dasharray="3 2"/>"##);
        inks.push(Ink::Rect {
            x: 20.3,
            y: 100.1,
            w: 61.7,
            h: 13.5,
            rgb: Ink::rgb("#ffffff"),
            opacity: Ink::num("0.77"),
            border: Some(Border {
                rgb: Ink::rgb("#8b1a1a"),
                width: 0.8,
                dash: [3.0, 2.0],
            }),
        });
        svg.push_str(r##"<rect x="100.3" y="110.1" width="50.4" height="13.5" fill="#8b1a1a" fill-opacity="1.00"/>"##);
        inks.push(Ink::Rect {
            x: 100.3,
            y: 110.1,
            w: 50.4,
            h: 13.5,
            rgb: Ink::rgb("#8b1a1a"),
            opacity: 1.0,
            border: None,
        });
        for (i, (text, x, y, anchor, a)) in texts.into_iter().enumerate() {
            let (rgb, opacity) = if i % 2 == 0 {
                ("#b22222", "0.85")
            } else {
                ("#222222", "1.00")
            };
            svg.push_str(&format!(
                r##"<text x="{x}" y="{y}" font-size="10" font-weight="bold" text-anchor="{a}" fill="{rgb}" fill-opacity="{opacity}">{}</text>"##,
                super::super::map::xml_escape(text)
            ));
            inks.push(Ink::Text {
                text: text.to_string(),
                x,
                y,
                size: 10.0,
                anchor,
                rgb: Ink::rgb(rgb),
                opacity: Ink::num(opacity),
            });
        }
        let whole = layers_to_png(
            &format!("{open}{base}</svg>"),
            &format!("{open}{svg}</svg>"),
        )
        .unwrap();
        // Every line's outline filled as a path: resvg's pixels exactly.
        let filled = render_layers(
            &format!("{open}{base}</svg>"),
            &format!("{open}</svg>"),
            |canvas| draw_inks_with(canvas, &inks, false),
        )
        .unwrap();
        assert_eq!(filled, whole);
        // Stamped from glyph masks: a fraction of a pixel off at most.
        let inked = layers_to_png_inked(
            &format!("{open}{base}</svg>"),
            &format!("{open}</svg>"),
            &inks,
        )
        .unwrap();
        let d = PixelDifference::of(&inked, &whole).unwrap();
        assert!(d.differing > 0 && d.within_label_tolerance(), "{d:?}");
        assert!(!simple_text("  two  spaces "));
        assert!(!simple_text("שלום abc"));
        assert!(simple_text("Müller’s café — 12:30"));
    }

    #[test]
    fn a_glyph_on_the_phase_grid_is_stamped_as_its_path_is_filled() {
        // One glyph whose origin falls on a quarter pixel: its mask is its
        // path's coverage at that very place, blended with tiny-skia's own
        // arithmetic, so the pixels are those of the filled path, in every
        // paint the map uses (opaque, translucent) and over a dark ground.
        let open = r##"<svg xmlns="http://www.w3.org/2000/svg" width="60" height="40">"##;
        for (ground, rgb, opacity) in [
            ("#f4efe1", "#222222", "1.00"),
            ("#f4efe1", "#b22222", "0.85"),
            ("#203040", "#ffffff", "0.70"),
        ] {
            let base = format!(r##"{open}<rect width="60" height="40" fill="{ground}"/></svg>"##);
            for (text, x, y) in [("A", 10.25, 20.5), ("g", 3.0, 30.75), ("W", 40.5, 12.0)] {
                let inks = [Ink::Text {
                    text: text.into(),
                    x,
                    y,
                    size: 11.0,
                    anchor: Anchor::Start,
                    rgb: Ink::rgb(rgb),
                    opacity: Ink::num(opacity),
                }];
                let filled = render_layers(&base, &format!("{open}</svg>"), |c| {
                    draw_inks_with(c, &inks, false)
                })
                .unwrap();
                let stamped = layers_to_png_inked(&base, &format!("{open}</svg>"), &inks).unwrap();
                let d = PixelDifference::of(&stamped, &filled).unwrap();
                assert!(d.max_channel <= 1, "{text} {rgb} on {ground}: {d:?}");
            }
        }
    }

    #[test]
    fn bad_svg_is_an_error_not_a_panic() {
        assert!(svg_to_png("not svg").is_err());
    }
}
