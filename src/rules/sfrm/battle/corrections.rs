//! The umpire's corrections of an SFRM battle (`SET <unit> <field> <value>
//! BECAUSE "<reason>"`, docs/umpire-turns.md) and the organiser's summary
//! of its units (`adjutant game show`). Pure: a correction is read and
//! checked against a turn's start state ([`read`]) and applied to it
//! ([`apply`]); the lifecycle keeps it as an input beside the orders, so
//! that processing, REDO and replay start from the stored state with the
//! corrections applied in the order made.
//!
//! What may be set, and the bounds, from the rule text:
//! - `position x,y` (inches, Table 1: 1" = 100 yd): on the table;
//! - `formation`: the basic and special formations ("Movement",
//!   "Formation Changes"); artillery and supply trains are in march column
//!   (limbered) or line (unlimbered) only, and the special line formations
//!   (skirmish, battle column, square) need an attached general
//!   ("Movement");
//! - `facing`: degrees from north, or a compass point;
//! - `elements` (or `strength`): 1 up to the elements the unit took the
//!   field with (casualties remove elements, "Combat"; a correction neither
//!   raises a unit above its strength nor removes it: it leaves play by the
//!   rules);
//! - `routed yes|no`: the routed marker ("Command & Supply": "Routed units
//!   must be designated by an appropriate marker");
//! - `entrenchment 0..3`: hasty (1), standard (2), improved (3)
//!   ("Entrenching"), not for a mounted unit ("providing they are not
//!   mounted").

use super::nouns::{Arm, Formation, Pos, SfrmBattle, UnitId};
use super::scenario::SfrmScenario;
use super::view::xy;
use crate::rules::{EngineCorrection, MailEngineError, SideUnits};
use crate::scenario_text::compass::degrees_from_name;
use crate::scenario_text::names::unknown_name_message;
use serde::{Deserialize, Serialize};

/// The fields `SET` takes for an SFRM unit, as the umpire writes them.
pub const FIELDS: &[&str] = &[
    "position",
    "formation",
    "facing",
    "elements",
    "strength",
    "routed",
    "entrenchment",
];

/// One field's new value (module doc for the bounds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "field", content = "value", rename_all = "kebab-case")]
pub enum Fix {
    Position { x: f64, y: f64 },
    Formation(Formation),
    Facing(f64),
    Elements(u32),
    Routed(bool),
    Entrenchment(u8),
}

/// A correction as the store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredFix {
    pub unit: UnitId,
    pub fix: Fix,
}

fn refused(msg: impl Into<String>) -> MailEngineError {
    MailEngineError::Refused(msg.into())
}

const FORM: &str = "write `SET <unit> position|formation|facing|elements|routed|entrenchment <value> BECAUSE \"<reason>\"`";

/// Reads `written` (`<unit> <field> <value>`) against `state` and checks
/// it (module doc). The state is not changed.
pub fn read(
    scenario: &SfrmScenario,
    b: &SfrmBattle,
    written: &str,
) -> Result<(StoredFix, EngineCorrection), MailEngineError> {
    let words: Vec<&str> = written.split_whitespace().collect();
    let Some(at) = (1..words.len())
        .rev()
        .find(|&i| FIELDS.iter().any(|f| words[i].eq_ignore_ascii_case(f)))
    else {
        let last = words.last().copied().unwrap_or("");
        return Err(refused(format!(
            "say which field to set: an SFRM unit's fields are {}; {FORM} ({})",
            FIELDS.join(", "),
            if words.len() > 1 {
                unknown_name_message(
                    "field",
                    words[words.len().saturating_sub(2)],
                    FIELDS.iter().copied(),
                )
            } else {
                format!("`{last}` names no unit and field")
            }
        )));
    };
    let unit_text = words[..at].join(" ");
    let field = words[at].to_ascii_lowercase();
    let value_text = words[at + 1..].join(" ");
    if value_text.is_empty() {
        return Err(refused(format!("the new {field} is missing; {FORM}")));
    }
    let unit = b
        .units
        .iter()
        .find(|u| u.name.eq_ignore_ascii_case(unit_text.trim()))
        .ok_or_else(|| {
            refused(unknown_name_message(
                "unit",
                &unit_text,
                b.units.iter().map(|u| u.name.as_str()),
            ))
        })?;
    let fix = match field.as_str() {
        "position" => {
            let nums: Vec<f64> = value_text
                .trim_matches(['(', ')'])
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|p| !p.is_empty())
                .map(|p| p.trim_end_matches('"').parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|_| {
                    refused(format!(
                        "`{value_text}` is not a position; write inches as `x,y`, e.g. `40,28` (Table 1: 1\" = 100 yd)"
                    ))
                })?;
            let [x, y] = nums.as_slice() else {
                return Err(refused(format!(
                    "`{value_text}` is not a position; write inches as `x,y`, e.g. `40,28`"
                )));
            };
            if !(0.0..=scenario.width).contains(x) || !(0.0..=scenario.height).contains(y) {
                return Err(refused(format!(
                    "({x}, {y}) is off the table, which is {} by {} inches",
                    scenario.width, scenario.height
                )));
            }
            Fix::Position { x: *x, y: *y }
        }
        "formation" => {
            let f = formation(&value_text)?;
            let limbered_only = matches!(unit.arm, Arm::Artillery { .. } | Arm::Supply);
            if limbered_only && !matches!(f, Formation::MarchColumn | Formation::Line) {
                return Err(refused(format!(
                    "{} is {}: it is in march column (limbered) or line (unlimbered) only (SFRM Movement)",
                    unit.name,
                    if unit.arm == Arm::Supply {
                        "a supply train"
                    } else {
                        "artillery"
                    }
                )));
            }
            if f.needs_general() && b.attached_general(unit.id).is_none() {
                return Err(refused(format!(
                    "{} has no general attached; the special line formations (skirmish, battle column, square) need one (SFRM Movement)",
                    unit.name
                )));
            }
            Fix::Formation(f)
        }
        "facing" => Fix::Facing(degrees_from_name(&value_text).map_err(refused)?),
        "elements" | "strength" => {
            let n: u32 = value_text
                .parse()
                .map_err(|_| refused(format!("`{value_text}` is not a number of elements")))?;
            let start = scenario.battle.unit(unit.id).map_or(0, |u| u.elements);
            if n < 1 || n > start {
                return Err(refused(format!(
                    "{} took the field with {start} element(s): set 1 to {start} (casualties remove elements, SFRM Combat; a unit leaves play by the rules, not by a correction)",
                    unit.name
                )));
            }
            Fix::Elements(n)
        }
        "routed" => match value_text.to_ascii_lowercase().as_str() {
            "yes" | "true" | "on" => Fix::Routed(true),
            "no" | "false" | "off" => Fix::Routed(false),
            _ => {
                return Err(refused(format!(
                    "`{value_text}` is not yes or no; `routed yes` puts the routed marker on the unit, `routed no` takes it off (SFRM Command & Supply)"
                )));
            }
        },
        _ => {
            let n: u8 = value_text
                .parse()
                .ok()
                .filter(|n| *n <= 3)
                .ok_or_else(|| {
                    refused(format!(
                        "`{value_text}` is not a level of entrenchment: 0 (none), 1 hasty, 2 standard or 3 improved (SFRM Entrenching)"
                    ))
                })?;
            if n > 0 && unit.mounted {
                return Err(refused(format!(
                    "{} is mounted, and mounted units do not entrench (SFRM Entrenching)",
                    unit.name
                )));
            }
            Fix::Entrenchment(n)
        }
    };
    let stored = StoredFix { unit: unit.id, fix };
    let mut probe = b.clone();
    let previous = apply_fix(&mut probe, &stored)?;
    let field_word = match stored.fix {
        Fix::Elements(_) => "elements",
        _ => field.as_str(),
    };
    let correction_json = serde_json::to_string(&stored).map_err(|e| MailEngineError::Stored {
        what: "correction",
        problem: e.to_string(),
    })?;
    Ok((
        stored.clone(),
        EngineCorrection {
            unit: unit.name.clone(),
            field: field_word.to_string(),
            value: words_of(&stored.fix),
            previous,
            correction_json,
        },
    ))
}

fn formation(text: &str) -> Result<Formation, MailEngineError> {
    let t = text.trim().to_ascii_lowercase().replace('-', " ");
    Ok(match t.as_str() {
        "march column" | "column" | "limbered" => Formation::MarchColumn,
        "line" | "unlimbered" => Formation::Line,
        "line deployed in town" | "deployed in town" | "town" => Formation::DeployedInTown,
        "skirmish" | "line skirmish" => Formation::Skirmish,
        "battle column" | "line battle column" => Formation::BattleColumn,
        "square" | "line emergency square" | "emergency square" => Formation::Square,
        _ => {
            return Err(refused(format!(
                "`{text}` is not an SFRM formation; use march column, line, deployed in town, skirmish, battle column or square (limbered and unlimbered for artillery)"
            )));
        }
    })
}

/// The value in words.
fn words_of(fix: &Fix) -> String {
    match fix {
        Fix::Position { x, y } => xy(Pos::new(*x, *y)),
        Fix::Formation(f) => f.name().to_string(),
        Fix::Facing(d) => format!("{d:.0}°"),
        Fix::Elements(n) => n.to_string(),
        Fix::Routed(r) => if *r { "yes" } else { "no" }.to_string(),
        Fix::Entrenchment(n) => n.to_string(),
    }
}

/// Applies one correction; returns the value it replaced, in words.
pub fn apply_fix(b: &mut SfrmBattle, c: &StoredFix) -> Result<String, MailEngineError> {
    let u = b.unit_mut(c.unit).ok_or_else(|| MailEngineError::Stored {
        what: "correction",
        problem: format!("unit {} is not in the battle", c.unit.0),
    })?;
    Ok(match &c.fix {
        Fix::Position { x, y } => {
            let was = xy(u.pos);
            u.pos = Pos::new(*x, *y);
            was
        }
        Fix::Formation(f) => {
            let was = u.formation.name().to_string();
            u.formation = *f;
            was
        }
        Fix::Facing(d) => {
            let was = format!("{:.0}°", u.facing);
            u.facing = *d;
            was
        }
        Fix::Elements(n) => {
            let was = u.elements.to_string();
            u.elements = *n;
            // A line's front rank is never more than its elements (SFRM
            // Movement: never fewer than the second rank).
            u.front_rank = u.front_rank.min(*n);
            was
        }
        Fix::Routed(r) => {
            let was = if u.routed { "yes" } else { "no" }.to_string();
            u.routed = *r;
            was
        }
        Fix::Entrenchment(n) => {
            let was = u.entrenchment.to_string();
            u.entrenchment = *n;
            was
        }
    })
}

/// Every side's units, one line each, for `game show`.
pub fn summary(b: &SfrmBattle) -> Vec<SideUnits> {
    [super::nouns::Side::Union, super::nouns::Side::Confederate]
        .into_iter()
        .map(|side| SideUnits {
            side: side.name().to_ascii_lowercase(),
            units: b
                .units
                .iter()
                .filter(|u| u.side == side)
                .map(|u| {
                    let arm = match u.arm {
                        Arm::Infantry { .. } => "infantry",
                        Arm::Cavalry { .. } => "cavalry",
                        Arm::Artillery { .. } => "artillery",
                        Arm::Supply => "supply",
                    };
                    let mut line = format!(
                        "{}: {arm}, {} element(s), {} facing {:.0}°, at {}",
                        u.name,
                        u.elements,
                        u.formation.name(),
                        u.facing,
                        xy(u.pos)
                    );
                    for (on, word) in [
                        (u.gone(), "out of play"),
                        (u.routed, "routed"),
                        (u.out_of_command, "out of command"),
                        (u.entrenchment > 0, "entrenched"),
                    ] {
                        if on {
                            line.push_str(", ");
                            line.push_str(word);
                        }
                    }
                    line
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::sfrm::battle::scenario::from_toml_str;

    const BULL_RUN: &str = include_str!("../../../../scenarios/first-bull-run.toml");

    fn refused_with(s: &SfrmScenario, written: &str) -> String {
        match read(s, &s.battle, written) {
            Err(MailEngineError::Refused(why)) => why,
            other => panic!("{written}: {other:?}"),
        }
    }

    #[test]
    fn reads_checks_and_applies_each_field() {
        let s = from_toml_str(BULL_RUN, "test").unwrap();
        let (fix, c) = read(&s, &s.battle, "burnside's brigade position 40, 28").unwrap();
        assert_eq!(c.unit, "Burnside's brigade");
        assert_eq!(c.field, "position");
        let mut b = s.battle.clone();
        let was = apply_fix(&mut b, &fix).unwrap();
        assert_eq!(c.previous, was);
        let u = b
            .units
            .iter()
            .find(|u| u.name == "Burnside's brigade")
            .unwrap();
        assert_eq!((u.pos.x, u.pos.y), (40.0, 28.0));
        // Stored and read back, it applies the same.
        let again: StoredFix = serde_json::from_str(&c.correction_json).unwrap();
        assert_eq!(again, fix);
        for ok in [
            "Burnside's brigade formation line",
            "Burnside's brigade facing south-west",
            "Burnside's brigade strength 2",
            "Burnside's brigade routed yes",
            "Burnside's brigade entrenchment 3",
        ] {
            read(&s, &s.battle, ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn refuses_what_the_rules_do_not_allow_and_says_what_would_do() {
        let s = from_toml_str(BULL_RUN, "test").unwrap();
        assert!(refused_with(&s, "Burnside's brigade morale 3").contains("position, formation"));
        assert!(refused_with(&s, "Burnsides brigade routed yes").contains("Burnside's brigade"));
        assert!(refused_with(&s, "Burnside's brigade elements 0").contains("took the field with"));
        assert!(refused_with(&s, "Burnside's brigade entrenchment 4").contains("Entrenching"));
        assert!(refused_with(&s, "Burnside's brigade formation wedge").contains("formation"));
        // Special line formations need an attached general (SFRM Movement).
        assert!(refused_with(&s, "Burnside's brigade formation square").contains("general"));
        // Artillery is limbered or unlimbered only.
        assert!(refused_with(&s, "Hunter's artillery formation skirmish").contains("artillery"));
        assert!(refused_with(&s, "Burnside's brigade position 101,5").contains("off the table"));
    }

    #[test]
    fn the_summary_lists_every_unit_by_side() {
        let s = from_toml_str(BULL_RUN, "test").unwrap();
        let sides = summary(&s.battle);
        assert_eq!(sides.len(), 2);
        assert_eq!(sides[0].side, "union");
        assert!(
            sides[0]
                .units
                .iter()
                .any(|u| u.starts_with("Burnside's brigade: infantry"))
        );
        assert!(
            sides[1]
                .units
                .iter()
                .any(|u| u.starts_with("Evans's brigade"))
        );
    }
}
