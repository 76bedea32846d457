//! The map a player reads (issue #14, section 5): labels never overlap each
//! other or a piece, on crowded maps — every player's and the umpire's map
//! of a generated corps battle, and of Brawner's Farm as it opens — and
//! the text drawn really lies inside the card it was given (measured by
//! usvg, with the font the PNG uses).
//!
//! Set `ADJUTANT_MAP_DIR` to a directory to keep the PNGs for looking at.

use adjutant::report::map::{MapLayer, PxBox, layout_labels, map_svg, piece_boxes};
use adjutant::report::{
    LastKnown, ReportInputs, SideSighting, UmpireInputs, side_view, umpire_view,
};
use adjutant::rules::iron_brigade::kinds::OfficerLevel;
use adjutant::rules::iron_brigade::sight::{Activity, SightIndex, side_visibility};
use adjutant::rules::iron_brigade::state::generate::{GENERATED_HEIGHT, GENERATED_WIDTH};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, generate_corps_battle};
use std::collections::BTreeSet;
use time::macros::datetime;

/// Every map of one turn: each player's (five a side, brigades dealt
/// round) and the umpire's.
fn maps(state: &BattleState, game: &str, table: (f64, f64)) -> Vec<(String, MapLayer)> {
    let index = SightIndex::new(&state.terrain);
    let (fired, moved) = (BTreeSet::new(), BTreeSet::new());
    let act = Activity {
        fired: &fired,
        moved: &moved,
    };
    let mut out = Vec::new();
    let mut sightings = Vec::new();
    for side in state.sides.iter().map(|s| s.id) {
        let vis = side_visibility(state, &index, side, &act);
        let rec = SideSighting::new(state, side, state.turn, &vis);
        let lk = LastKnown::from_records([&rec]);
        let mut players: Vec<Vec<OfficerId>> = vec![Vec::new(); 5];
        for (i, o) in state
            .officers_of(side)
            .filter(|o| o.level == OfficerLevel::Brigade)
            .enumerate()
        {
            players[i % 5].push(o.id);
        }
        players.retain(|p| !p.is_empty());
        if players.is_empty() {
            players.push(Vec::new());
        }
        for (n, officers) in players.into_iter().enumerate() {
            let mut inputs = ReportInputs::new(
                game,
                &format!("p{}-{n}", side.0),
                datetime!(1863-07-01 14:00),
            );
            inputs.officers = officers;
            inputs.table = Some(table);
            let view = side_view(state, side, &vis, &lk, &inputs).unwrap();
            out.push((format!("{game}-side{}-{n}", side.0), view.map));
        }
        sightings.push(rec);
    }
    let uin = UmpireInputs {
        game: game.into(),
        battle_start: datetime!(1863-07-01 14:00),
        minutes_per_turn: 2.5,
        yards_per_inch: 25.0,
        table: Some(table),
        orders: Default::default(),
        events: Vec::new(),
        rolls: Vec::new(),
        sightings,
        dispatches: Vec::new(),
        mail_problems: Vec::new(),
        open_queries: Vec::new(),
    };
    out.push((format!("{game}-umpire"), umpire_view(state, &uin).map));
    out
}

fn brawner() -> BattleState {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/brawners-farm.toml"
    ))
    .unwrap();
    let s = adjutant::scenario::Scenario::from_toml_str(&text, "brawners-farm.toml").unwrap();
    adjutant::game::battle_state_from_scenario(&s)
}

fn check(name: &str, layer: &MapLayer) -> usize {
    let labels = layout_labels(layer);
    let pieces = piece_boxes(layer);
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            assert!(
                !a.card.overlaps(&b.card),
                "{name}: label {:?} overlaps label {:?}",
                a.text,
                b.text
            );
        }
        for p in &pieces {
            assert!(
                !a.card.overlaps(p),
                "{name}: label {:?} at {:?} covers a piece at {p:?}",
                a.text,
                a.card
            );
        }
    }
    // The text the PNG draws lies inside its card: each label's text, as
    // usvg lays it out with the shipped font, is within the card computed
    // for it (so the boxes above are the real ones, not too small).
    let svg = map_svg(layer);
    let opt = {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_font_data(
            std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/templates/fonts/DejaVuSansCondensed.ttf"
            ))
            .unwrap(),
        );
        db.set_sans_serif_family(adjutant::report::map::MAP_FONT);
        resvg::usvg::Options {
            font_family: adjutant::report::map::MAP_FONT.to_string(),
            fontdb: std::sync::Arc::new(db),
            ..Default::default()
        }
    };
    let tree = resvg::usvg::Tree::from_str(&svg, &opt).unwrap();
    let mut texts = Vec::new();
    collect_texts(tree.root(), &mut texts);
    for l in &labels {
        let inside = texts.iter().any(|(words, t): &(String, PxBox)| {
            *words == l.text
                && t.x0 >= l.card.x0 - 0.01
                && t.x1 <= l.card.x1 + 0.01
                && t.y0 >= l.card.y0 - 0.01
                && t.y1 <= l.card.y1 + 0.01
        });
        assert!(
            inside,
            "{name}: the text of {:?} spills out of its card {:?}",
            l.text, l.card
        );
    }
    if let Ok(dir) = std::env::var("ADJUTANT_MAP_DIR") {
        let png = adjutant::report::svg_to_png(&svg).unwrap();
        std::fs::write(std::path::Path::new(&dir).join(format!("{name}.png")), png).unwrap();
    }
    labels.len()
}

fn collect_texts(g: &resvg::usvg::Group, out: &mut Vec<(String, PxBox)>) {
    for n in g.children() {
        match n {
            resvg::usvg::Node::Group(g) => collect_texts(g, out),
            resvg::usvg::Node::Text(t) => {
                let b = t.abs_bounding_box();
                let words: String = t.chunks().iter().map(|c| c.text()).collect();
                out.push((
                    words,
                    PxBox {
                        x0: f64::from(b.left()),
                        y0: f64::from(b.top()),
                        x1: f64::from(b.right()),
                        y1: f64::from(b.bottom()),
                    },
                ));
            }
            _ => {}
        }
    }
}

#[test]
fn corps_battle_labels_never_overlap() {
    let state = generate_corps_battle(7);
    let mut drawn = 0;
    for (name, layer) in maps(&state, "corps", (GENERATED_WIDTH, GENERATED_HEIGHT)) {
        drawn += check(&name, &layer);
    }
    assert!(drawn > 100, "only {drawn} labels drawn");
}

#[test]
fn brawners_farm_labels_never_overlap_and_every_one_is_drawn() {
    let state = brawner();
    for (name, layer) in maps(&state, "brawner", (72.0, 48.0)) {
        let n = check(&name, &layer);
        let wanted = layer
            .units
            .iter()
            .filter(|u| {
                !matches!(
                    u.mark,
                    adjutant::report::map::Mark::Friend | adjutant::report::map::Mark::Gone
                )
            })
            .count()
            + layer.officers.len()
            + layer.terrain.landmarks.len();
        assert_eq!(n, wanted, "{name}: a label was left off");
    }
}

/// Decoded RGB of a PNG, with its size.
fn pixels(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut dec = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap();
    let mut buf = vec![0; dec.output_buffer_size().unwrap()];
    let info = dec.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// The PNG a report attaches draws its labels, title and legend words
/// itself ([`adjutant::report::png::layers_to_png_inked`]: shaped once
/// per font, each glyph stamped from a coverage mask kept per size and
/// quarter-pixel phase) instead of letting usvg lay out and fill every
/// `<text>` of every map. It must draw what the SVG in the HTML says: on
/// every map of a corps turn and of Brawner's Farm, resvg's rendering of
/// the whole SVG within the label tolerance (a glyph at most 1/8 pixel
/// from where the filled path puts it: few pixels differ, and almost none
/// by more than a quarter of a channel; BENCHMARKS.md, "Fifth pass").
/// Everything but the words is drawn exactly as before: the pixels that
/// differ all lie in the boxes of the text.
#[test]
fn the_png_draws_its_labels_within_the_tolerance() {
    use adjutant::report::map::map_parts;
    use adjutant::report::png::{Ink, PixelDifference, layers_to_png_inked};
    let mut all = maps(
        &generate_corps_battle(7),
        "corps",
        (GENERATED_WIDTH, GENERATED_HEIGHT),
    );
    all.extend(maps(&brawner(), "brawner", (72.0, 48.0)));
    let mut failed = Vec::new();
    for (name, layer) in all {
        let parts = map_parts(&layer);
        let inked =
            layers_to_png_inked(&parts.base_svg(), &parts.png_overlay_svg(), &parts.inks).unwrap();
        let whole = adjutant::report::svg_to_png(&parts.svg()).unwrap();
        if let Ok(dir) = std::env::var("ADJUTANT_MAP_DIR") {
            let dir = std::path::Path::new(&dir);
            std::fs::write(dir.join(format!("{name}-inked.png")), &inked).unwrap();
            std::fs::write(dir.join(format!("{name}-filled.png")), &whole).unwrap();
        }
        assert!(parts.inks.len() > 5, "{name}: the labels are drawn as inks");
        let d = PixelDifference::of(&inked, &whole).unwrap();
        eprintln!(
            "{name}: {} of {} pixels differ ({:.3}%), {} by more than 64 ({:.4}%), at most {}",
            d.differing,
            d.pixels,
            100.0 * d.differing as f64 / d.pixels as f64,
            d.over_quarter,
            100.0 * d.over_quarter as f64 / d.pixels as f64,
            d.max_channel
        );
        if !d.within_label_tolerance() {
            failed.push(format!("{name}: {d:?}"));
            continue;
        }
        // Every differing pixel is inside (a pixel round) the box of some
        // line of text: nothing but the words moved.
        let (w, _, a) = pixels(&inked);
        let (_, _, b) = pixels(&whole);
        let boxes: Vec<(f32, f32, f32, f32)> = parts
            .inks
            .iter()
            .filter_map(|i| match i {
                Ink::Text {
                    text, x, y, size, ..
                } => {
                    // Generous: any anchor, a glyph no wider than the size.
                    let len = text.chars().count() as f32 * size;
                    Some((x - len - 2.0, y - size * 1.5, x + len + 2.0, y + size * 0.6))
                }
                _ => None,
            })
            .collect();
        for (i, (p, q)) in a.chunks(3).zip(b.chunks(3)).enumerate() {
            if p != q {
                let (px, py) = ((i % w as usize) as f32 + 0.5, (i / w as usize) as f32 + 0.5);
                assert!(
                    boxes
                        .iter()
                        .any(|&(x0, y0, x1, y1)| px >= x0 && px <= x1 && py >= y0 && py <= y1),
                    "{name}: pixel ({px}, {py}) differs outside every line of text"
                );
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
