//! SFRM brigade-scale maps as SVG (pure: a battle and a view in, text
//! out), drawn in table inches (SFRM Table 1: 1" = 100 yd): the ground's
//! areas, the roads, a side's own units as rectangles with their names,
//! the enemy it sees (as it calls them, [`super::view::EnemyNaming`]), and
//! its generals. The umpire's map shows everything with real names.
//!
//! A plain map: the lifecycle rasterises it for the mail's PNG
//! (`report::png`). Nothing of an enemy the side has not seen is drawn.

use super::nouns::{Ground, Pos, SfrmBattle, Side, Unit};
use super::view::SideView;
use std::fmt::Write as _;

/// The table's extent in inches: everything on it, rounded up to 10".
fn extent(b: &SfrmBattle) -> (f64, f64) {
    let mut w: f64 = 10.0;
    let mut h: f64 = 10.0;
    let mut see = |p: Pos| {
        if p.x.is_finite() && p.y.is_finite() {
            w = w.max(p.x);
            h = h.max(p.y);
        }
    };
    for a in &b.ground {
        see(a.max);
    }
    for r in &b.roads {
        r.points.iter().copied().for_each(&mut see);
    }
    for u in &b.units {
        see(u.pos);
    }
    for g in &b.generals {
        see(g.pos);
    }
    for s in &b.supply_sources {
        see(s.pos);
    }
    ((w / 10.0).ceil() * 10.0, (h / 10.0).ceil() * 10.0)
}

/// Text for SVG and HTML: `&`, `<`, `>` and `"` escaped.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// SVG's y runs down; the table's y runs north (up).
struct Frame {
    height: f64,
}

impl Frame {
    fn x(&self, p: Pos) -> f64 {
        p.x
    }
    fn y(&self, p: Pos) -> f64 {
        self.height - p.y
    }
}

fn ground_fill(g: Ground) -> &'static str {
    match g {
        Ground::Woods => "#9bc48f",
        Ground::Town => "#c9b8a6",
        Ground::River => "#8fb8de",
        Ground::SunkenRoad => "#b59b72",
        Ground::Hill { .. } => "#e3d5a8",
    }
}

fn open(b: &SfrmBattle, title: &str) -> (String, Frame) {
    let (w, h) = extent(b);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{pw}" height="{ph}" font-family="serif"><title>{t}</title><rect x="0" y="0" width="{w}" height="{h}" fill="#f4efe1"/>"##,
        pw = w * 8.0,
        ph = h * 8.0,
        t = esc(title)
    );
    let f = Frame { height: h };
    // Hills first (by level), then the rest, so woods on a hill show.
    let mut areas: Vec<_> = b.ground.iter().collect();
    areas.sort_by_key(|a| match a.ground {
        Ground::Hill { level } => u16::from(level),
        _ => 1000,
    });
    for a in areas {
        let opacity = match a.ground {
            Ground::Hill { level } => (0.35 + 0.2 * f64::from(level)).min(0.95),
            _ => 0.85,
        };
        let _ = write!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}" fill-opacity="{:.2}"/>"#,
            a.min.x,
            f.y(Pos::new(a.min.x, a.max.y)),
            a.max.x - a.min.x,
            a.max.y - a.min.y,
            ground_fill(a.ground),
            opacity
        );
    }
    for r in &b.roads {
        let pts: Vec<String> = r
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", f.x(*p), f.y(*p)))
            .collect();
        let _ = write!(
            s,
            r##"<polyline points="{}" fill="none" stroke="#7a5c3a" stroke-width="0.35"><title>{}</title></polyline>"##,
            pts.join(" "),
            esc(&r.name)
        );
    }
    (s, f)
}

fn side_colour(side: Side) -> &'static str {
    match side {
        Side::Union => "#2b4c8c",
        Side::Confederate => "#7f7f7f",
    }
}

/// A unit as a rectangle of its frontage (elements across, 1" deep),
/// turned to its facing, with a label.
fn unit_rect(
    s: &mut String,
    f: &Frame,
    pos: Pos,
    facing: f64,
    front: f64,
    colour: &str,
    label: &str,
) {
    let w = front.clamp(0.6, 8.0);
    let d = 0.6;
    let _ = write!(
        s,
        r##"<g transform="translate({:.2} {:.2}) rotate({:.0})"><rect x="{:.2}" y="{:.2}" width="{:.2}" height="{d}" fill="{colour}" stroke="#000" stroke-width="0.08"/></g><text x="{:.2}" y="{:.2}" font-size="1.1" fill="#111">{}</text>"##,
        f.x(pos),
        f.y(pos),
        facing,
        -w / 2.0,
        -d / 2.0,
        w,
        f.x(pos) + w / 2.0 + 0.3,
        f.y(pos) + 0.4,
        esc(label)
    );
}

fn general_mark(s: &mut String, f: &Frame, pos: Pos, colour: &str, label: &str) {
    let _ = write!(
        s,
        r##"<circle cx="{:.2}" cy="{:.2}" r="0.45" fill="{colour}" stroke="#fff" stroke-width="0.1"/><text x="{:.2}" y="{:.2}" font-size="1" font-style="italic" fill="#111">{}</text>"##,
        f.x(pos),
        f.y(pos),
        f.x(pos) + 0.6,
        f.y(pos) - 0.5,
        esc(label)
    );
}

/// The width every seen enemy unit is drawn at, in inches.
const ENEMY_WIDTH: f64 = 1.5;

fn front(u: &Unit) -> f64 {
    f64::from(u.front_elements().max(1)) * 0.5
}

/// The map of what side `v.side` sees after a turn: its own units and
/// generals, and the enemy in sight as it calls them.
pub fn side_map_svg(b: &SfrmBattle, v: &SideView) -> String {
    let (mut s, f) = open(b, &format!("{} map, turn {}", v.side.name(), v.turn));
    let own = side_colour(v.side);
    let enemy = side_colour(v.side.other());
    for o in &v.own_units {
        let u = &o.unit;
        if u.gone() {
            continue;
        }
        let label = if u.routed {
            format!("{} (routed)", u.name)
        } else {
            u.name.clone()
        };
        unit_rect(&mut s, &f, u.pos, u.facing, front(u), own, &label);
    }
    for g in &v.own_generals {
        if !g.removed {
            general_mark(&mut s, &f, g.pos, own, &g.name);
        }
    }
    for e in &v.enemy_units {
        let label = if e.routed {
            format!("{} (routed)", e.called)
        } else {
            e.called.clone()
        };
        // One width for every enemy: a frontage drawn to scale would tell
        // his elements, which the eye does not count (view.rs).
        unit_rect(&mut s, &f, e.pos, e.facing, ENEMY_WIDTH, enemy, &label);
    }
    for g in &v.enemy_generals {
        general_mark(&mut s, &f, g.pos, enemy, &g.called);
    }
    s.push_str("</svg>");
    s
}

/// The umpire's map: every unit and general with its real name.
pub fn umpire_map_svg(b: &SfrmBattle) -> String {
    let (mut s, f) = open(b, &format!("Umpire's map, turn {}", b.turn));
    for u in b.units.iter().filter(|u| !u.gone()) {
        let label = if u.routed {
            format!("{} (routed)", u.name)
        } else {
            u.name.clone()
        };
        unit_rect(
            &mut s,
            &f,
            u.pos,
            u.facing,
            front(u),
            side_colour(u.side),
            &label,
        );
    }
    for g in b.generals.iter().filter(|g| !g.removed) {
        general_mark(&mut s, &f, g.pos, side_colour(g.side), &g.name);
    }
    s.push_str("</svg>");
    s
}
