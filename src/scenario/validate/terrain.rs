//! Terrain (APSoF IV.E, IV.G) and landmarks.

use super::FORD_TOLERANCE;
use super::checker::*;
use crate::rules::iron_brigade::kinds::{AreaKind, LineKind};
use crate::scenario::model::*;
use crate::scenario::names::unknown_name_message;
use crate::scenario::raw::*;
use std::collections::HashMap;

pub(super) fn check_terrain(c: &mut Checker, raw: &RawTerrain) -> Terrain {
    let mut t = Terrain::default();
    for (i, a) in raw.areas.iter().enumerate() {
        let path = format!("terrain.areas[{i}]");
        let kind = c.vocab(
            &format!("{path}.kind"),
            &a.kind,
            "area terrain",
            AreaKind::ALL,
            AreaKind::as_str,
        );
        let points = c.points(&format!("{path}.points"), &a.points, 3, "polygon");
        if let (Some(kind), Some(points)) = (kind, points) {
            t.areas.push(Area {
                kind,
                name: a.name.clone(),
                points,
            });
        }
    }
    for (i, l) in raw.lines.iter().enumerate() {
        if let Some(line) = check_line(c, &format!("terrain.lines[{i}]"), l) {
            t.lines.push(line);
        }
    }
    for (i, h) in raw.contours.iter().enumerate() {
        let path = format!("terrain.contours[{i}]");
        let height = c
            .required(
                &format!("{path}.height_feet"),
                &h.height_feet,
                "height in feet",
            )
            .copied();
        let height = height.and_then(|v| {
            if v.is_finite() {
                Some(v)
            } else {
                c.problem(
                    format!("{path}.height_feet"),
                    "height must be a number of feet",
                );
                None
            }
        });
        let points = c.points(&format!("{path}.points"), &h.points, 3, "contour polygon");
        if let (Some(height_feet), Some(points)) = (height, points) {
            t.contours.push(Contour {
                name: h.name.clone(),
                height_feet,
                points,
            });
        }
    }
    t
}

/// A polyline; streams carry depth, current and fords (APSoF IV.E.1).
pub(super) fn check_line(c: &mut Checker, path: &str, l: &RawLine) -> Option<Line> {
    // The period's names for fences and walls (`worm-fence`, `stone-wall`)
    // are accepted beside the kinds themselves.
    let kind = match l.kind.as_deref().and_then(LineKind::parse_with_aliases) {
        Some(k) => Some(k),
        None => c.vocab(
            &format!("{path}.kind"),
            &l.kind,
            "linear terrain",
            LineKind::ALL,
            LineKind::as_str,
        ),
    };
    let points = c.points(&format!("{path}.points"), &l.points, 2, "line");
    let kind = kind?;
    if kind != LineKind::Stream {
        for (key, present) in [
            ("depth_inches", l.depth_inches.is_some()),
            ("current", l.current.is_some()),
            ("fords", !l.fords.is_empty()),
            ("pontoons", !l.pontoons.is_empty()),
        ] {
            if present {
                c.problem(
                    format!("{path}.{key}"),
                    format!("only streams have `{key}`; remove it from this {kind}"),
                );
            }
        }
        return Some(Line {
            kind,
            name: l.name.clone(),
            points: points?,
            water: None,
        });
    }
    let depth = c
        .required(
            &format!("{path}.depth_inches"),
            &l.depth_inches,
            "water depth in inches",
        )
        .copied()
        .and_then(|d| c.positive(&format!("{path}.depth_inches"), d, "water depth"));
    let current = match c.required(
        &format!("{path}.current"),
        &l.current,
        "current (strong, weak or none)",
    ) {
        Some(given) => match Current::ALL
            .iter()
            .find(|(n, _)| same(n, given))
            .map(|(_, v)| *v)
        {
            Some(v) => Some(v),
            None => {
                let msg =
                    unknown_name_message("current", given, Current::ALL.iter().map(|(n, _)| *n));
                c.problem(format!("{path}.current"), msg);
                None
            }
        },
        None => None,
    };
    let mut fords = Vec::new();
    for (i, f) in l.fords.iter().enumerate() {
        let fpath = format!("{path}.fords[{i}]");
        let at = c.required_point(&format!("{fpath}.at"), &f.at, None, "ford position");
        let d = c
            .required(
                &format!("{fpath}.depth_inches"),
                &f.depth_inches,
                "ford depth in inches",
            )
            .copied()
            .and_then(|d| c.positive(&format!("{fpath}.depth_inches"), d, "ford depth"));
        if let (Some(at), Some(pts)) = (at, points.as_ref()) {
            let off = distance_to_polyline(at, pts);
            if off > FORD_TOLERANCE {
                c.problem(
                    format!("{fpath}.at"),
                    format!(
                        "ford is {off:.1}\" from the stream's line; put it within {FORD_TOLERANCE}\" of the stream"
                    ),
                );
            }
        }
        if let (Some(at), Some(depth_inches)) = (at, d) {
            fords.push(Ford { at, depth_inches });
        }
    }
    let mut pontoons = Vec::new();
    for (i, p) in l.pontoons.iter().enumerate() {
        let ppath = format!("{path}.pontoons[{i}]");
        // APSoF IV.E.2: boats on a train's wagons ride with the train; they
        // start where it stands (set with the units, `validate::mod`).
        let train = p
            .train
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        if train.is_some() && p.on_wagons == Some(false) {
            c.problem(
                format!("{ppath}.on_wagons"),
                "boats carried by a `train` are on its wagons; remove `on_wagons = false` or the `train`",
            );
        }
        let at = if train.is_some() && p.at.is_none() {
            Some(Point { x: 0.0, y: 0.0 })
        } else {
            c.required_point(&format!("{ppath}.at"), &p.at, None, "the boats' position")
        };
        let side = c
            .required(
                &format!("{ppath}.side"),
                &p.side,
                "the side whose boats they are",
            )
            .cloned();
        let boats = super::units::count(c, &format!("{ppath}.boats"), p.boats, "pontoon boats");
        let water = c
            .required(
                &format!("{ppath}.water_inches"),
                &p.water_inches,
                "table inches of water the boats cross there",
            )
            .copied()
            .and_then(|w| c.positive(&format!("{ppath}.water_inches"), w, "water to cross"));
        if let (Some(at), Some(pts), None) = (at, points.as_ref(), train.as_ref()) {
            let off = distance_to_polyline(at, pts);
            if off > FORD_TOLERANCE {
                c.problem(
                    format!("{ppath}.at"),
                    format!(
                        "the boats are {off:.1}\" from the stream's line; put them on its bank, within {FORD_TOLERANCE}\" of it"
                    ),
                );
            }
        }
        if let (Some(at), Some(side), Some(boats), Some(water_inches)) = (at, side, boats, water) {
            pontoons.push(Pontoons {
                side,
                at,
                boats,
                water_inches,
                on_wagons: p.on_wagons.unwrap_or(false) || train.is_some(),
                train,
            });
        }
    }
    Some(Line {
        kind,
        name: l.name.clone(),
        points: points?,
        water: Some(Water {
            depth_inches: depth?,
            current: current?,
            fords,
            pontoons,
        }),
    })
}

/// Shortest distance from `p` to a polyline, in inches.
pub fn distance_to_polyline(p: Point, line: &[Point]) -> f64 {
    line.windows(2)
        .map(|w| match w {
            [a, b] => distance_to_segment(p, *a, *b),
            _ => f64::INFINITY,
        })
        .fold(f64::INFINITY, f64::min)
}

pub(super) fn distance_to_segment(p: Point, a: Point, b: Point) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    if len2 == 0.0 {
        return p.distance_to(a);
    }
    let t = (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0);
    p.distance_to(Point::new(a.x + t * dx, a.y + t * dy))
}

pub(super) fn check_landmarks(
    c: &mut Checker,
    raw: &[RawLandmark],
    table: Option<&Table>,
) -> Vec<Landmark> {
    let mut out = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    for (i, l) in raw.iter().enumerate() {
        let path = format!("landmarks[{i}]");
        let name = c.name(&format!("{path}.name"), &l.name);
        let at = c.required_point(&format!("{path}.at"), &l.at, table, "landmark position");
        let labelled = name
            .iter()
            .map(|n| (format!("{path}.name"), n.clone()))
            .chain(
                l.aliases
                    .iter()
                    .enumerate()
                    .map(|(j, a)| (format!("{path}.aliases[{j}]"), a.trim().to_string())),
            );
        for (p, n) in labelled {
            let key = n.to_lowercase();
            match seen.get(&key) {
                Some(other) if !other.starts_with(&format!("{path}.")) => {
                    c.problem(
                        &p,
                        format!(
                            "landmark name `{n}` is also used by {other}; orders naming it would be ambiguous, so rename one"
                        ),
                    );
                }
                Some(_) => {}
                None => {
                    seen.insert(key, p);
                }
            }
        }
        if let (Some(name), Some(at)) = (name, at) {
            out.push(Landmark {
                name,
                aliases: l.aliases.iter().map(|a| a.trim().to_string()).collect(),
                at,
            });
        }
    }
    out
}
