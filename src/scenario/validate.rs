//! Turning the raw file into a [`Scenario`], collecting every problem.
//!
//! Each check pushes a [`Problem`] with the TOML path of the value at fault
//! and carries on, so one load reports everything that needs fixing.

use super::error::Problem;
use super::facing::facing_from_value;
use super::model::*;
use super::names::{nearest, parse_enum, unknown_name_message};
use super::raw::*;
use crate::rules::iron_brigade::kinds::{
    AreaKind, Arm, CommandClass, Formation, LineKind, MoraleClass, OfficerLevel, OfficerRating,
    Weapon,
};
use std::collections::{BTreeMap, HashMap};
use time::macros::format_description;
use time::{PrimitiveDateTime, UtcOffset};

/// Iron Brigade's ground scale and turn length (APSoF IV.A), used when a
/// scenario does not give its own.
pub const DEFAULT_YARDS_PER_INCH: f64 = 25.0;
pub const DEFAULT_MINUTES_PER_TURN: f64 = 2.5;

/// How far (table inches) a ford may lie from its stream's line and still
/// count as on it: streams are drawn as centre lines, fords as points.
pub const FORD_TOLERANCE: f64 = 1.0;

struct Checker {
    problems: Vec<Problem>,
}

impl Checker {
    fn problem(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem::new(path, message));
    }

    /// A required value; reports it missing.
    fn required<'a, T>(&mut self, path: &str, value: &'a Option<T>, what: &str) -> Option<&'a T> {
        if value.is_none() {
            self.problem(path, format!("missing {what}; add `{}`", last_key(path)));
        }
        value.as_ref()
    }

    /// A required, non-blank name.
    fn name(&mut self, path: &str, value: &Option<String>) -> Option<String> {
        let v = self.required(path, value, "name")?;
        if v.trim().is_empty() {
            self.problem(path, "name is blank; give it a name");
            return None;
        }
        Some(v.trim().to_string())
    }

    /// A point `[x, y]` in inches; `table` checks it lies on the table.
    fn point(&mut self, path: &str, raw: &[f64], table: Option<&Table>) -> Option<Point> {
        if raw.len() != 2 || raw.iter().any(|v| !v.is_finite()) {
            self.problem(
                path,
                format!(
                    "a point is written [x, y] in inches (x east, y north from the south-west corner), got {raw:?}"
                ),
            );
            return None;
        }
        let p = Point::new(raw[0], raw[1]);
        if let Some(t) = table
            && !t.contains(p)
        {
            self.problem(
                path,
                format!(
                    "[{}, {}] is off the table, which runs from [0, 0] to [{}, {}]; move it onto the table",
                    p.x, p.y, t.width, t.height
                ),
            );
            return None;
        }
        Some(p)
    }

    fn required_point(
        &mut self,
        path: &str,
        raw: &Option<Vec<f64>>,
        table: Option<&Table>,
        what: &str,
    ) -> Option<Point> {
        let raw = self.required(path, raw, what)?;
        self.point(path, raw, table)
    }

    /// A list of points with at least `min` entries.
    fn points(
        &mut self,
        path: &str,
        raw: &[Vec<f64>],
        min: usize,
        what: &str,
    ) -> Option<Vec<Point>> {
        if raw.len() < min {
            self.problem(
                path,
                format!("a {what} needs at least {min} points, got {}", raw.len()),
            );
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        for (i, p) in raw.iter().enumerate() {
            match self.point(&format!("{path}[{i}]"), p, None) {
                Some(p) => out.push(p),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// A positive finite number.
    fn positive(&mut self, path: &str, value: f64, what: &str) -> Option<f64> {
        if value.is_finite() && value > 0.0 {
            Some(value)
        } else {
            self.problem(path, format!("{what} must be greater than 0, got {value}"));
            None
        }
    }

    /// One of the kebab-case vocabularies.
    fn vocab<T: std::str::FromStr + Copy>(
        &mut self,
        path: &str,
        raw: &Option<String>,
        what: &str,
        all: &'static [T],
        as_str: fn(T) -> &'static str,
    ) -> Option<T> {
        let given = self.required(path, raw, what)?;
        match parse_enum(what, given, all, as_str) {
            Ok(v) => Some(v),
            Err(msg) => {
                self.problem(path, msg);
                None
            }
        }
    }

    /// A reference to a side by name, returning the side's own spelling.
    fn side_ref(&mut self, path: &str, raw: &Option<String>, sides: &[Side]) -> Option<String> {
        let given = self.required(path, raw, "side")?;
        match sides.iter().find(|s| same(&s.name, given)) {
            Some(s) => Some(s.name.clone()),
            None => {
                let msg =
                    unknown_name_message("side", given, sides.iter().map(|s| s.name.as_str()));
                self.problem(path, msg);
                None
            }
        }
    }
}

fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// Whether any of `names` is `wanted` (case-insensitive).
fn named_in<'a>(mut names: impl Iterator<Item = &'a Option<String>>, wanted: &str) -> bool {
    names.any(|n| n.as_deref().is_some_and(|n| same(n, wanted)))
}

fn last_key(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// Validate `raw` and build the scenario, or return every problem found.
pub fn validate(raw: &RawScenario) -> Result<Scenario, Vec<Problem>> {
    let mut c = Checker {
        problems: Vec::new(),
    };
    let h = &raw.scenario;

    let name = c.name("scenario.name", &h.name);
    let yards_per_inch = match h.yards_per_inch {
        Some(v) => c.positive("scenario.yards_per_inch", v, "yards_per_inch"),
        None => Some(DEFAULT_YARDS_PER_INCH),
    };
    let minutes_per_turn = match h.minutes_per_turn {
        Some(v) => c.positive("scenario.minutes_per_turn", v, "minutes_per_turn"),
        None => Some(DEFAULT_MINUTES_PER_TURN),
    };
    let start = check_start(&mut c, h);
    let last_turn = match c.required("scenario.last_turn", &h.last_turn, "last turn") {
        Some(&n) if n >= 1 && n <= u32::MAX as i64 => Some(n as u32),
        Some(&n) => {
            c.problem(
                "scenario.last_turn",
                format!("last_turn must be 1 or more, got {n}"),
            );
            None
        }
        None => None,
    };
    if let Some(u) = &h.umpire {
        check_address(&mut c, "scenario.umpire", u);
    }

    let table = check_table(&mut c, &raw.table);
    let sides = check_sides(&mut c, &raw.sides);
    let terrain = check_terrain(&mut c, &raw.terrain);
    let landmarks = check_landmarks(&mut c, &raw.landmarks, table.as_ref());
    let officers = check_officers(&mut c, &raw.officers, &sides, table.as_ref());
    let units = check_units(&mut c, &raw.units, &sides, &officers, raw, table.as_ref());
    let players = check_players(&mut c, raw, &sides, &officers);
    check_sides_have_units(&mut c, raw, &sides);
    check_ambiguous_names(&mut c, raw);
    let objectives = check_objectives(
        &mut c,
        &raw.objectives,
        &raw.landmarks,
        &sides,
        &landmarks,
        table.as_ref(),
        last_turn,
    );
    let options = check_options(&mut c, &raw.options);

    match (
        name,
        yards_per_inch,
        minutes_per_turn,
        start,
        last_turn,
        table,
    ) {
        (
            Some(name),
            Some(yards_per_inch),
            Some(minutes_per_turn),
            Some(start),
            Some(last_turn),
            Some(table),
        ) if c.problems.is_empty() => Ok(Scenario {
            name,
            description: h.description.clone(),
            yards_per_inch,
            minutes_per_turn,
            start,
            last_turn,
            table,
            terrain,
            landmarks,
            sides,
            players,
            officers,
            units,
            objectives,
            options,
            umpire: h.umpire.clone(),
        }),
        _ => {
            if c.problems.is_empty() {
                c.problem("", "scenario is incomplete");
            }
            Err(c.problems)
        }
    }
}

/// Start time: local date and time plus a zone name and/or a UTC offset.
fn check_start(c: &mut Checker, h: &RawHeader) -> Option<StartTime> {
    let local = match c.required("scenario.start", &h.start, "start date and time") {
        Some(text) => parse_local(text).or_else(|| {
            c.problem(
                "scenario.start",
                format!(
                    "start `{text}` is not a local date and time; write it as \"1862-08-28T18:30\" (seconds optional)"
                ),
            );
            None
        }),
        None => None,
    };
    let utc_offset = h.utc_offset.as_ref().and_then(|text| {
        let fmt = format_description!("[offset_hour sign:mandatory]:[offset_minute]");
        UtcOffset::parse(text.trim(), &fmt).ok().or_else(|| {
            c.problem(
                "scenario.utc_offset",
                format!("utc_offset `{text}` is not an offset; write it as \"-05:00\""),
            );
            None
        })
    });
    if let Some(tz) = &h.time_zone {
        check_time_zone(c, "scenario.time_zone", tz);
    }
    if h.time_zone.is_none() && h.utc_offset.is_none() {
        c.problem(
            "scenario",
            "give the battle's time zone (`time_zone = \"America/New_York\"`) or its offset from UTC (`utc_offset = \"-05:00\"`), or both",
        );
    }
    Some(StartTime {
        local: local?,
        time_zone: h.time_zone.clone(),
        utc_offset,
    })
}

fn parse_local(text: &str) -> Option<PrimitiveDateTime> {
    let text = text.trim().replacen(' ', "T", 1);
    let with_secs = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    let without = format_description!("[year]-[month]-[day]T[hour]:[minute]");
    PrimitiveDateTime::parse(&text, &with_secs)
        .or_else(|_| PrimitiveDateTime::parse(&text, &without))
        .ok()
}

/// IANA names look like `Area/Location` (or `UTC`); this catches the usual
/// slips (an abbreviation such as `EST`, spaces) without a zone database.
fn check_time_zone(c: &mut Checker, path: &str, tz: &str) {
    let well_formed = tz == "UTC"
        || (tz.contains('/')
            && !tz.starts_with('/')
            && !tz.ends_with('/')
            && tz
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '/' | '_' | '-' | '+')));
    if !well_formed {
        c.problem(
            path,
            format!(
                "time zone `{tz}` is not an IANA zone name; write e.g. \"America/New_York\" or \"Europe/London\""
            ),
        );
    }
}

fn check_address(c: &mut Checker, path: &str, addr: &str) {
    let addr = addr.trim();
    let ok = match addr.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !addr.contains(char::is_whitespace)
        }
        None => false,
    };
    if !ok {
        c.problem(
            path,
            format!("`{addr}` is not a mail address; write it as name@example.org"),
        );
    }
}

fn check_table(c: &mut Checker, t: &RawTable) -> Option<Table> {
    let w = c
        .required("table.width", &t.width, "table width in inches")
        .copied();
    let h = c
        .required("table.height", &t.height, "table height in inches")
        .copied();
    let w = w.and_then(|w| c.positive("table.width", w, "table width"));
    let h = h.and_then(|h| c.positive("table.height", h, "table height"));
    Some(Table {
        width: w?,
        height: h?,
    })
}

fn check_sides(c: &mut Checker, raw: &[RawSide]) -> Vec<Side> {
    if raw.len() < 2 {
        c.problem(
            "sides",
            "a battle needs at least two sides; add [[sides]] tables with a name each",
        );
    }
    let mut out: Vec<Side> = Vec::new();
    for (i, s) in raw.iter().enumerate() {
        let path = format!("sides[{i}].name");
        if let Some(name) = c.name(&path, &s.name) {
            if out.iter().any(|o| same(&o.name, &name)) {
                c.problem(&path, format!("duplicate side name `{name}`"));
            } else {
                out.push(Side { name });
            }
        }
    }
    out
}

/// A side with no units cannot fight; almost certainly a side name was
/// misspelt on its units (which is reported there) or units were left out.
fn check_sides_have_units(c: &mut Checker, raw: &RawScenario, sides: &[Side]) {
    for (i, side) in sides.iter().enumerate() {
        let has_units = raw
            .units
            .iter()
            .any(|u| u.side.as_deref().is_some_and(|s| same(s, &side.name)));
        let misspelt_elsewhere = raw.units.iter().any(|u| {
            u.side
                .as_deref()
                .is_some_and(|s| !sides.iter().any(|x| same(&x.name, s)))
        });
        if !has_units && !misspelt_elsewhere {
            c.problem(
                format!("sides[{i}].name"),
                format!(
                    "side `{}` has no units; add [[units]] with side = \"{}\"",
                    side.name, side.name
                ),
            );
        }
    }
}

fn check_terrain(c: &mut Checker, raw: &RawTerrain) -> Terrain {
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
fn check_line(c: &mut Checker, path: &str, l: &RawLine) -> Option<Line> {
    let kind = c.vocab(
        &format!("{path}.kind"),
        &l.kind,
        "linear terrain",
        LineKind::ALL,
        LineKind::as_str,
    );
    let points = c.points(&format!("{path}.points"), &l.points, 2, "line");
    let kind = kind?;
    if kind != LineKind::Stream {
        for (key, present) in [
            ("depth_inches", l.depth_inches.is_some()),
            ("current", l.current.is_some()),
            ("fords", !l.fords.is_empty()),
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
    Some(Line {
        kind,
        name: l.name.clone(),
        points: points?,
        water: Some(Water {
            depth_inches: depth?,
            current: current?,
            fords,
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

fn distance_to_segment(p: Point, a: Point, b: Point) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    if len2 == 0.0 {
        return p.distance_to(a);
    }
    let t = (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0);
    p.distance_to(Point::new(a.x + t * dx, a.y + t * dy))
}

fn check_landmarks(c: &mut Checker, raw: &[RawLandmark], table: Option<&Table>) -> Vec<Landmark> {
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

fn check_officers(
    c: &mut Checker,
    raw: &[RawOfficer],
    sides: &[Side],
    table: Option<&Table>,
) -> Vec<Officer> {
    let mut out = Vec::new();
    for (i, o) in raw.iter().enumerate() {
        let path = format!("officers[{i}]");
        let name = c.name(&format!("{path}.name"), &o.name);
        let side = c.side_ref(&format!("{path}.side"), &o.side, sides);
        let level = c.vocab(
            &format!("{path}.level"),
            &o.level,
            "officer level",
            OfficerLevel::ALL,
            OfficerLevel::as_str,
        );
        let rating = c.vocab(
            &format!("{path}.rating"),
            &o.rating,
            "officer rating",
            OfficerRating::ALL,
            OfficerRating::as_str,
        );
        let command_class = c.vocab(
            &format!("{path}.command_class"),
            &o.command_class,
            "command class",
            CommandClass::ALL,
            CommandClass::as_str,
        );
        let position = c.required_point(
            &format!("{path}.position"),
            &o.position,
            table,
            "officer position",
        );
        let superior = o.superior.as_ref().map(|s| s.trim().to_string());
        if let (
            Some(name),
            Some(side),
            Some(level),
            Some(rating),
            Some(command_class),
            Some(position),
        ) = (name, side, level, rating, command_class, position)
        {
            out.push(Officer {
                name,
                side,
                level,
                rating,
                command_class,
                mounted: o.mounted.unwrap_or(true),
                position,
                superior,
            });
        }
    }
    check_superiors(c, raw);
    out
}

/// Superiors must exist, be on the same side and not form a loop.
fn check_superiors(c: &mut Checker, raw: &[RawOfficer]) {
    let find = |name: &str| {
        raw.iter()
            .position(|o| o.name.as_deref().is_some_and(|n| same(n, name)))
    };
    let names: Vec<&str> = raw.iter().filter_map(|o| o.name.as_deref()).collect();
    let mut up: Vec<Option<usize>> = Vec::with_capacity(raw.len());
    for (i, o) in raw.iter().enumerate() {
        let path = format!("officers[{i}].superior");
        let Some(sup) = &o.superior else {
            up.push(None);
            continue;
        };
        match find(sup) {
            None => {
                c.problem(
                    &path,
                    unknown_name_message("officer", sup, names.iter().copied()),
                );
                up.push(None);
            }
            Some(j) if j == i => {
                c.problem(&path, "an officer cannot be his own superior");
                up.push(None);
            }
            Some(j) => {
                if let (Some(a), Some(b)) = (&o.side, &raw[j].side)
                    && !same(a, b)
                {
                    c.problem(
                        &path,
                        format!(
                            "superior `{sup}` is on side `{b}` but this officer is on `{a}`; a superior must be on the same side"
                        ),
                    );
                }
                up.push(Some(j));
            }
        }
    }
    // Report each cycle once, at its first officer in file order.
    for start in 0..raw.len() {
        let mut members = vec![start];
        let mut at = up.get(start).copied().flatten();
        let mut steps = 0;
        while let Some(j) = at {
            if j == start {
                if members.iter().all(|&m| m >= start) {
                    let chain: Vec<&str> = members
                        .iter()
                        .chain(std::iter::once(&start))
                        .map(|&m| raw[m].name.as_deref().unwrap_or("?"))
                        .collect();
                    c.problem(
                        format!("officers[{start}].superior"),
                        format!(
                            "chain of command goes round in a circle ({}); the top officer needs no superior",
                            chain.join(" → ")
                        ),
                    );
                }
                break;
            }
            steps += 1;
            if steps > raw.len() {
                break;
            }
            members.push(j);
            at = up.get(j).copied().flatten();
        }
    }
}

fn check_units(
    c: &mut Checker,
    raw: &[RawUnit],
    sides: &[Side],
    officers: &[Officer],
    all: &RawScenario,
    table: Option<&Table>,
) -> Vec<Unit> {
    let officer_names: Vec<&str> = all
        .officers
        .iter()
        .filter_map(|o| o.name.as_deref())
        .collect();
    let mut out = Vec::new();
    for (i, u) in raw.iter().enumerate() {
        let path = format!("units[{i}]");
        let name = c.name(&format!("{path}.name"), &u.name);
        let side = c.side_ref(&format!("{path}.side"), &u.side, sides);
        let arm = c.vocab(&format!("{path}.arm"), &u.arm, "arm", Arm::ALL, Arm::as_str);
        let strength = arm.and_then(|arm| check_strength(c, &path, u, arm));
        let weapon = c.vocab(
            &format!("{path}.weapon"),
            &u.weapon,
            "weapon",
            Weapon::ALL,
            Weapon::as_str,
        );
        if let (Some(arm), Some(w)) = (arm, weapon)
            && arm.is_artillery() != w.is_artillery()
        {
            let needs = if arm.is_artillery() {
                "a gun or howitzer"
            } else {
                "a small arm"
            };
            c.problem(
                format!("{path}.weapon"),
                format!("{w} is not a weapon for {arm}; give it {needs}"),
            );
        }
        let (base_morale, morale_class) = check_morale(c, &path, u);
        let formation = c.vocab(
            &format!("{path}.formation"),
            &u.formation,
            "formation",
            Formation::ALL,
            Formation::as_str,
        );
        if let (Some(f), Some(arm)) = (formation, arm)
            && !f.allowed_for(arm)
        {
            let allowed: Vec<&str> = Formation::ALL
                .iter()
                .filter(|x| x.allowed_for(arm))
                .map(|x| x.as_str())
                .collect();
            c.problem(
                format!("{path}.formation"),
                format!(
                    "{arm} cannot take the {f} formation (APSoF III.D, III.G); use one of: {}",
                    allowed.join(", ")
                ),
            );
        }
        let position =
            c.required_point(&format!("{path}.position"), &u.position, table, "position");
        let facing = match c.required(&format!("{path}.facing"), &u.facing, "facing") {
            Some(v) => match facing_from_value(v) {
                Ok(f) => Some(f),
                Err(msg) => {
                    c.problem(format!("{path}.facing"), msg);
                    None
                }
            },
            None => None,
        };
        let commander = match &u.commander {
            None => {
                c.problem(
                    format!("{path}.commander"),
                    "unit has no commander; name the officer who gives it orders in `commander`",
                );
                None
            }
            Some(cmd) => match officers.iter().find(|o| same(&o.name, cmd)) {
                Some(o) => {
                    if let Some(s) = &side
                        && !same(s, &o.side)
                    {
                        c.problem(
                            format!("{path}.commander"),
                            format!(
                                "commander `{}` is on side `{}` but the unit is on `{s}`; give it an officer of its own side",
                                o.name, o.side
                            ),
                        );
                    }
                    Some(o.name.clone())
                }
                None => {
                    if officer_names.iter().any(|n| same(n, cmd)) {
                        // The officer exists but is itself invalid; that is reported there.
                        None
                    } else {
                        c.problem(
                            format!("{path}.commander"),
                            unknown_name_message("officer", cmd, officer_names.iter().copied()),
                        );
                        None
                    }
                }
            },
        };
        let mounted = match (arm, u.mounted) {
            (Some(Arm::Cavalry), m) => m.unwrap_or(true),
            (Some(arm), Some(true)) => {
                c.problem(
                    format!("{path}.mounted"),
                    format!("only cavalry has a `mounted` flag; remove it from this {arm} unit"),
                );
                false
            }
            _ => false,
        };
        if let (
            Some(name),
            Some(side),
            Some(arm),
            Some(strength),
            Some(weapon),
            Some(base_morale),
            Some(formation),
            Some(position),
            Some(facing),
            Some(commander),
        ) = (
            name,
            side,
            arm,
            strength,
            weapon,
            base_morale,
            formation,
            position,
            facing,
            commander,
        ) {
            out.push(Unit {
                name,
                aliases: u.aliases.iter().map(|a| a.trim().to_string()).collect(),
                side,
                arm,
                strength,
                weapon,
                base_morale,
                morale_class,
                formation,
                position,
                facing,
                commander,
                mounted,
            });
        }
    }
    out
}

/// Castings for foot and horse; guns and one crew casting per gun for a
/// battery (APSoF II.B–II.E).
fn check_strength(c: &mut Checker, path: &str, u: &RawUnit, arm: Arm) -> Option<Strength> {
    if arm.is_artillery() {
        if u.castings.is_some() {
            c.problem(
                format!("{path}.castings"),
                "a battery is counted by `guns` and `crew` (one crew casting per gun, APSoF II.E), not `castings`",
            );
        }
        let guns = count(c, &format!("{path}.guns"), u.guns, "guns");
        let crew = count(c, &format!("{path}.crew"), u.crew, "crew castings");
        let (guns, crew) = (guns?, crew?);
        if crew != guns {
            c.problem(
                format!("{path}.crew"),
                format!(
                    "a battery starts with one crew casting per gun (APSoF II.E): {guns} guns need crew = {guns}, not {crew}"
                ),
            );
            return None;
        }
        Some(Strength::Battery { guns, crew })
    } else {
        for (key, v) in [("guns", u.guns), ("crew", u.crew)] {
            if v.is_some() {
                c.problem(
                    format!("{path}.{key}"),
                    format!("only batteries have `{key}`; {arm} is counted in `castings`"),
                );
            }
        }
        count(c, &format!("{path}.castings"), u.castings, "castings").map(Strength::Castings)
    }
}

/// A required count of at least one.
fn count(c: &mut Checker, path: &str, v: Option<i64>, what: &str) -> Option<u32> {
    match v {
        None => {
            c.problem(path, format!("missing {what}; add `{}`", last_key(path)));
            None
        }
        Some(n) if n >= 1 && n <= u32::MAX as i64 => Some(n as u32),
        Some(n) => {
            c.problem(path, format!("{what} must be at least 1, got {n}"));
            None
        }
    }
}

/// Base morale by class or by value (APSoF VI.B.1), exactly one of them.
fn check_morale(c: &mut Checker, path: &str, u: &RawUnit) -> (Option<u8>, Option<MoraleClass>) {
    match (&u.morale, u.base_morale) {
        (Some(_), Some(_)) => {
            c.problem(
                format!("{path}.base_morale"),
                "give either `morale` (a class such as \"regular\") or `base_morale` (1..6), not both",
            );
            (None, None)
        }
        (None, None) => {
            c.problem(
                format!("{path}.morale"),
                "missing morale; add `morale = \"regular\"` (elite, regular, poor, garrison, militia, rabble) or `base_morale = 5`",
            );
            (None, None)
        }
        (Some(_), None) => {
            let class = c.vocab(
                &format!("{path}.morale"),
                &u.morale,
                "morale class",
                MoraleClass::ALL,
                MoraleClass::as_str,
            );
            (class.map(MoraleClass::base_morale), class)
        }
        (None, Some(n)) => {
            if (1..=6).contains(&n) {
                let class = MoraleClass::ALL
                    .iter()
                    .copied()
                    .find(|m| i64::from(m.base_morale()) == n);
                (Some(n as u8), class)
            } else {
                c.problem(
                    format!("{path}.base_morale"),
                    format!("base_morale must be 1 (rabble) to 6 (elite), got {n}"),
                );
                (None, None)
            }
        }
    }
}

fn check_players(
    c: &mut Checker,
    all: &RawScenario,
    sides: &[Side],
    officers: &[Officer],
) -> Vec<Player> {
    let raw = &all.players;
    let mut out = Vec::new();
    let mut names: Vec<String> = Vec::new();
    // Officer (lower-case) -> the player path that first claimed him.
    let mut claimed: HashMap<String, String> = HashMap::new();
    for (i, p) in raw.iter().enumerate() {
        let path = format!("players[{i}]");
        let name = c.name(&format!("{path}.name"), &p.name);
        if let Some(n) = &name {
            if names.iter().any(|m| same(m, n)) {
                c.problem(
                    format!("{path}.name"),
                    format!("duplicate player name `{n}`"),
                );
            }
            names.push(n.clone());
        }
        let side = c.side_ref(&format!("{path}.side"), &p.side, sides);
        if p.addresses.is_empty() {
            c.problem(
                format!("{path}.addresses"),
                "player has no mail address; add `addresses = [\"name@example.org\"]`",
            );
        }
        for (j, a) in p.addresses.iter().enumerate() {
            check_address(c, &format!("{path}.addresses[{j}]"), a);
        }
        if let Some(tz) = &p.time_zone {
            check_time_zone(c, &format!("{path}.time_zone"), tz);
        }
        if p.officers.is_empty() {
            c.problem(
                format!("{path}.officers"),
                "player commands no officer; list the officers they play in `officers`",
            );
        }
        let mut ok = true;
        let mut their = Vec::new();
        for (j, o) in p.officers.iter().enumerate() {
            let opath = format!("{path}.officers[{j}]");
            match officers.iter().find(|x| same(&x.name, o)) {
                None => {
                    ok = false;
                    // An officer that exists but is itself invalid is
                    // reported at his own entry, not again here.
                    if !named_in(all.officers.iter().map(|x| &x.name), o) {
                        let known = all.officers.iter().filter_map(|x| x.name.as_deref());
                        c.problem(&opath, unknown_name_message("officer", o, known));
                    }
                }
                Some(officer) => {
                    if let Some(s) = &side
                        && !same(s, &officer.side)
                    {
                        c.problem(
                            &opath,
                            format!(
                                "officer `{}` is on side `{}` but this player is on `{s}`",
                                officer.name, officer.side
                            ),
                        );
                    }
                    let key = officer.name.to_lowercase();
                    if let Some(first) = claimed.get(&key) {
                        c.problem(
                            &opath,
                            format!(
                                "officer `{}` is already commanded by {first}; an officer has one player",
                                officer.name
                            ),
                        );
                    } else {
                        claimed.insert(key, format!("{path} ({})", name.as_deref().unwrap_or("?")));
                    }
                    their.push(officer.name.clone());
                }
            }
        }
        if let (Some(name), Some(side), true) = (name, side, ok) {
            out.push(Player {
                name,
                side,
                addresses: p.addresses.iter().map(|a| a.trim().to_string()).collect(),
                time_zone: p.time_zone.clone(),
                officers: their,
            });
        }
    }
    out
}

/// Unit and officer names and unit aliases share one namespace, because an
/// order addresses any of them by name: a clash would make an order mean two
/// things. Compared case-insensitively.
fn check_ambiguous_names(c: &mut Checker, raw: &RawScenario) {
    // lower-case name -> (path, owner) of the first use.
    let mut seen: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut entries: Vec<(String, String, String, bool)> = Vec::new();
    for (i, o) in raw.officers.iter().enumerate() {
        if let Some(n) = &o.name {
            entries.push((
                format!("officers[{i}].name"),
                format!("officers[{i}]"),
                n.clone(),
                true,
            ));
        }
    }
    for (i, u) in raw.units.iter().enumerate() {
        if let Some(n) = &u.name {
            entries.push((
                format!("units[{i}].name"),
                format!("units[{i}]"),
                n.clone(),
                true,
            ));
        }
        for (j, a) in u.aliases.iter().enumerate() {
            entries.push((
                format!("units[{i}].aliases[{j}]"),
                format!("units[{i}]"),
                a.clone(),
                false,
            ));
        }
    }
    for (path, owner, name, primary) in entries {
        let key = name.trim().to_lowercase();
        if key.is_empty() {
            continue;
        }
        match seen.get(&key) {
            Some((other_path, other_owner)) if *other_owner != owner => {
                let both_names = primary && other_path.ends_with(".name");
                let same_kind = owner.split('[').next() == other_owner.split('[').next();
                let msg = if both_names && same_kind {
                    format!(
                        "duplicate name `{}`: {other_path} has it too; names must be unique",
                        name.trim()
                    )
                } else {
                    format!(
                        "ambiguous name `{}`: {other_path} is also called that, so an order naming it could mean either; rename one",
                        name.trim()
                    )
                };
                c.problem(path, msg);
            }
            Some(_) => {}
            None => {
                seen.insert(key, (path, owner));
            }
        }
    }
}

fn check_objectives(
    c: &mut Checker,
    raw: &[RawObjective],
    raw_landmarks: &[RawLandmark],
    sides: &[Side],
    landmarks: &[Landmark],
    table: Option<&Table>,
    last_turn: Option<u32>,
) -> Vec<Objective> {
    let mut out = Vec::new();
    for (i, o) in raw.iter().enumerate() {
        let path = format!("objectives[{i}]");
        let place = match (&o.landmark, &o.at) {
            (Some(_), Some(_)) => {
                c.problem(&path, "give either `landmark` or `at`, not both");
                None
            }
            (None, None) => {
                c.problem(
                    &path,
                    "objective has no place; add `landmark = \"...\"` or `at = [x, y]`",
                );
                None
            }
            (Some(l), None) => match landmarks
                .iter()
                .find(|m| same(&m.name, l) || m.aliases.iter().any(|a| same(a, l)))
            {
                Some(m) => Some((ObjectivePlace::Landmark(m.name.clone()), m.at)),
                None if named_in(raw_landmarks.iter().map(|m| &m.name), l) => None,
                None => {
                    let names: Vec<&str> = landmarks
                        .iter()
                        .flat_map(|m| {
                            std::iter::once(m.name.as_str())
                                .chain(m.aliases.iter().map(|a| a.as_str()))
                        })
                        .collect();
                    c.problem(
                        format!("{path}.landmark"),
                        unknown_name_message("landmark", l, names.iter().copied()),
                    );
                    None
                }
            },
            (None, Some(at)) => c
                .point(&format!("{path}.at"), at, table)
                .map(|p| (ObjectivePlace::Point(p), p)),
        };
        let radius = c
            .required(&format!("{path}.radius"), &o.radius, "radius in inches")
            .copied()
            .and_then(|r| c.positive(&format!("{path}.radius"), r, "radius"));
        let points = match c.required(&format!("{path}.points"), &o.points, "victory points") {
            Some(&n) if (0..=u32::MAX as i64).contains(&n) => Some(n as u32),
            Some(&n) => {
                c.problem(
                    format!("{path}.points"),
                    format!("points must be 0 or more, got {n}"),
                );
                None
            }
            None => None,
        };
        let side = c.side_ref(&format!("{path}.side"), &o.side, sides);
        let turn = match (o.turn, last_turn) {
            (None, lt) => lt,
            (Some(t), Some(lt)) if t >= 1 && t <= i64::from(lt) => Some(t as u32),
            (Some(t), Some(lt)) => {
                c.problem(
                    format!("{path}.turn"),
                    format!("turn must be between 1 and the last turn ({lt}), got {t}"),
                );
                None
            }
            (Some(_), None) => None,
        };
        if let (Some((place, at)), Some(radius), Some(points), Some(side), Some(turn)) =
            (place, radius, points, side, turn)
        {
            out.push(Objective {
                name: o.name.clone(),
                place,
                at,
                radius,
                points,
                side,
                turn,
            });
        }
    }
    out
}

fn check_options(c: &mut Checker, raw: &BTreeMap<String, toml::Value>) -> Options {
    let mut enabled = BTreeMap::new();
    for (key, value) in raw {
        let path = format!("options.{key}");
        let canonical = key.trim().to_ascii_lowercase().replace('_', "-");
        let Some(known) = OPTION_KEYS.iter().find(|k| **k == canonical) else {
            let mut msg = format!("unknown option `{key}`");
            if let Some(n) = nearest(key, OPTION_KEYS.iter().copied()) {
                msg.push_str(&format!("; did you mean `{n}`?"));
            }
            msg.push_str(&format!(" (known options: {})", OPTION_KEYS.join(", ")));
            c.problem(path, msg);
            continue;
        };
        match value {
            toml::Value::Boolean(b) => {
                enabled.insert((*known).to_string(), *b);
            }
            other => c.problem(
                path,
                format!(
                    "option `{key}` is switched with true or false, not a {}",
                    other.type_str()
                ),
            ),
        }
    }
    Options { enabled }
}
