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

/// The font database with the shipped font, built on first use.
fn fontdb() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(without_table(FONT, *b"kern"));
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
        encode_rgb(canvas)
    })
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
    fn bad_svg_is_an_error_not_a_panic() {
        assert!(svg_to_png("not svg").is_err());
    }
}
