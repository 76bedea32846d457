//! The problem collector and the small checks every section shares.

use crate::scenario::Problem;
use crate::scenario::model::*;
use crate::scenario::names::{parse_enum, unknown_name_message};

pub(super) struct Checker {
    pub(super) problems: Vec<Problem>,
}

impl Checker {
    pub(super) fn problem(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem::new(path, message));
    }

    /// A required value; reports it missing.
    pub(super) fn required<'a, T>(
        &mut self,
        path: &str,
        value: &'a Option<T>,
        what: &str,
    ) -> Option<&'a T> {
        if value.is_none() {
            self.problem(path, format!("missing {what}; add `{}`", last_key(path)));
        }
        value.as_ref()
    }

    /// A required, non-blank name.
    pub(super) fn name(&mut self, path: &str, value: &Option<String>) -> Option<String> {
        let v = self.required(path, value, "name")?;
        if v.trim().is_empty() {
            self.problem(path, "name is blank; give it a name");
            return None;
        }
        Some(v.trim().to_string())
    }

    /// A point `[x, y]` in inches; `table` checks it lies on the table.
    pub(super) fn point(
        &mut self,
        path: &str,
        raw: &[f64],
        table: Option<&Table>,
    ) -> Option<Point> {
        let &[x, y] = raw else {
            self.problem(
                path,
                format!(
                    "a point is written [x, y] in inches (x east, y north from the south-west corner), got {raw:?}"
                ),
            );
            return None;
        };
        if !x.is_finite() || !y.is_finite() {
            self.problem(
                path,
                format!(
                    "a point is written [x, y] in inches (x east, y north from the south-west corner), got {raw:?}"
                ),
            );
            return None;
        }
        let p = Point::new(x, y);
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

    pub(super) fn required_point(
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
    pub(super) fn points(
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
    pub(super) fn positive(&mut self, path: &str, value: f64, what: &str) -> Option<f64> {
        if value.is_finite() && value > 0.0 {
            Some(value)
        } else {
            self.problem(path, format!("{what} must be greater than 0, got {value}"));
            None
        }
    }

    /// One of the kebab-case vocabularies.
    pub(super) fn vocab<T: std::str::FromStr + Copy>(
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
    pub(super) fn side_ref(
        &mut self,
        path: &str,
        raw: &Option<String>,
        sides: &[Side],
    ) -> Option<String> {
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

pub(super) fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// Whether any of `names` is `wanted` (case-insensitive).
pub(super) fn named_in<'a>(
    mut names: impl Iterator<Item = &'a Option<String>>,
    wanted: &str,
) -> bool {
    names.any(|n| n.as_deref().is_some_and(|n| same(n, wanted)))
}

pub(super) fn last_key(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}
