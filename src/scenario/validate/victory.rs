//! Victory objectives and optional rules.

use super::checker::*;
use crate::scenario::model::*;
use crate::scenario::names::{nearest, unknown_name_message};
use crate::scenario::raw::*;
use std::collections::BTreeMap;

pub(super) fn check_objectives(
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

pub(super) fn check_options(c: &mut Checker, raw: &BTreeMap<String, toml::Value>) -> Options {
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
