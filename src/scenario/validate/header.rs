//! The scenario header, the table and the sides.

use super::checker::*;
use crate::scenario::model::*;
use crate::scenario::raw::*;
use time::macros::format_description;
use time::{PrimitiveDateTime, UtcOffset};

/// Start time: local date and time plus a zone name and/or a UTC offset.
pub(super) fn check_start(c: &mut Checker, h: &RawHeader) -> Option<StartTime> {
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

pub(super) fn parse_local(text: &str) -> Option<PrimitiveDateTime> {
    let text = text.trim().replacen(' ', "T", 1);
    let with_secs = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    let without = format_description!("[year]-[month]-[day]T[hour]:[minute]");
    PrimitiveDateTime::parse(&text, &with_secs)
        .or_else(|_| PrimitiveDateTime::parse(&text, &without))
        .ok()
}

/// A zone must be in the bundled IANA database (`crate::zones`); a slip
/// ("Europe/Londn", "EST") is refused with the nearest known name.
pub(super) fn check_time_zone(c: &mut Checker, path: &str, tz: &str) {
    if let Err(e) = crate::zones::check(tz) {
        c.problem(path, e.to_string());
    }
}

pub(super) fn check_address(c: &mut Checker, path: &str, addr: &str) {
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

pub(super) fn check_table(c: &mut Checker, t: &RawTable) -> Option<Table> {
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

pub(super) fn check_sides(c: &mut Checker, raw: &[RawSide]) -> Vec<Side> {
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
pub(super) fn check_sides_have_units(c: &mut Checker, raw: &RawScenario, sides: &[Side]) {
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
