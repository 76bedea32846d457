//! Scenario files: the battlefield, the forces and the players of one game.
//!
//! A scenario is a TOML file (format: `docs/scenario-format.md`). Loading it
//! validates everything the rules will later rely on — names resolve, units
//! and officers stand on the table, batteries have one crew casting per gun
//! (APSoF II.E), formations suit the arm (APSoF III) — and reports *every*
//! problem at once, each with its TOML path and line, so an author can fix a
//! file in one pass.

mod facing;
mod model;
mod raw;
pub mod ruleset;
mod validate;

pub(crate) use crate::scenario_text::{names, spans};

pub use crate::scenario_text::{Problem, ScenarioError};
pub use facing::{COMPASS_POINTS, facing_from_degrees, facing_from_name};
pub use model::*;
pub use validate::{
    DEFAULT_MINUTES_PER_TURN, DEFAULT_YARDS_PER_INCH, FORD_TOLERANCE, distance_to_polyline,
};

use spans::{LineStarts, SpanIndex};
use std::path::Path;

/// Read and validate the scenario at `path`.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Scenario::from_toml_str(&text, &path.display().to_string())
}

impl Scenario {
    /// Parse and validate scenario text; `origin` names it in messages
    /// (usually the file path).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let invalid = |problems: Vec<Problem>| ScenarioError::Invalid {
            origin: origin.to_string(),
            problems,
        };
        let starts = LineStarts::new(text);
        let index = SpanIndex::parse(text, known_keys).map_err(|p| invalid(vec![p]))?;
        // The ruleset boundary: this loader reads Iron Brigade scenarios
        // only; another ruleset's scenario is refused, never misread.
        if let Some(message) = not_iron_brigade(text) {
            return Err(invalid(vec![Problem {
                path: "scenario.ruleset".into(),
                line: index.line_of("scenario.ruleset"),
                message,
            }]));
        }
        let mut problems = index.unknown_keys.clone();
        let raw: raw::RawScenario = match toml::from_str(text) {
            Ok(raw) => raw,
            Err(e) => {
                let at = e.span().map(|s| s.start);
                problems.push(Problem {
                    path: at
                        .and_then(|o| index.path_at(o))
                        .unwrap_or_default()
                        .to_string(),
                    line: at.map(|o| starts.line_of(o)),
                    message: format!("wrong type of value: {}", e.message().trim()),
                });
                return Err(invalid(problems));
            }
        };
        match validate::validate(&raw) {
            Ok(scenario) if problems.is_empty() => Ok(scenario),
            Ok(_) => Err(invalid(problems)),
            Err(found) => {
                problems.extend(found.into_iter().map(|mut p| {
                    if p.line.is_none() {
                        p.line = index.line_of(&p.path);
                    }
                    p
                }));
                // In file order, so the author can work down the file;
                // problems with no line (missing sections) come last.
                problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
                Err(invalid(problems))
            }
        }
    }
}

/// Why scenario text is not for Iron Brigade, if it is not: it names
/// another ruleset (`[scenario] ruleset`). Which rulesets exist and which
/// can be played by mail is the registry's (`crate::rulesets`), above
/// this module: callers that load any ruleset ask it first.
fn not_iron_brigade(text: &str) -> Option<String> {
    use crate::rules::{IRON_BRIGADE, declared_ruleset};
    match declared_ruleset(text) {
        Ok(None) => None,
        Ok(Some(id)) if id.trim() == IRON_BRIGADE => None,
        Ok(Some(id)) => Some(format!(
            "this is a scenario for ruleset `{}`, not Iron Brigade; `adjutant scenario check FILE` checks it under its own rules",
            id.trim()
        )),
        Err(message) => Some(message),
    }
}

/// Keys each kind of table may hold, by path with array indices removed.
pub(crate) fn known_keys(shape: &str) -> Option<&'static [&'static str]> {
    Some(match shape {
        "" => &[
            "scenario",
            "table",
            "terrain",
            "landmarks",
            "sides",
            "players",
            "officers",
            "units",
            "objectives",
            "options",
        ],
        "scenario" => &[
            "ruleset",
            "name",
            "description",
            "yards_per_inch",
            "minutes_per_turn",
            "start",
            "time_zone",
            "utc_offset",
            "last_turn",
            "umpire",
            "identities",
        ],
        "table" => &["width", "height"],
        "terrain" => &["areas", "lines", "contours"],
        "terrain.areas[]" => &["kind", "name", "points"],
        "terrain.lines[]" => &[
            "kind",
            "name",
            "points",
            "depth_inches",
            "current",
            "fords",
            "pontoons",
        ],
        "terrain.lines[].fords[]" => &["at", "depth_inches"],
        "terrain.lines[].pontoons[]" => {
            &["side", "at", "boats", "water_inches", "on_wagons", "train"]
        }
        "terrain.contours[]" => &["name", "height_feet", "points"],
        "landmarks[]" => &["name", "aliases", "at"],
        "sides[]" => &["name"],
        "players[]" => &["name", "side", "addresses", "time_zone", "officers"],
        "officers[]" => &[
            "name",
            "side",
            "level",
            "rating",
            "command_class",
            "mounted",
            "position",
            "superior",
        ],
        "units[]" => &[
            "name",
            "aliases",
            "side",
            "arm",
            "castings",
            "guns",
            "crew",
            "weapon",
            "morale",
            "base_morale",
            "formation",
            "position",
            "facing",
            "commander",
            "mounted",
            "legion",
            "heavy_equipment",
        ],
        "objectives[]" => &["name", "landmark", "at", "radius", "points", "side", "turn"],
        _ => return None,
    })
}
