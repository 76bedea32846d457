//! Facings as written in scenarios (and, later, orders): compass degrees or
//! compass-point names.
//!
//! Degrees are clockwise from north (0 = north, 90 = east), the way officers
//! read a map. Names are the sixteen points of the compass, written out
//! ("north-west", "north north east") or abbreviated ("NW", "NNE").

use super::model::Facing;
use super::names::unknown_name_message;

/// The sixteen compass points and their bearings.
pub const COMPASS_POINTS: &[(&str, &str, f64)] = &[
    ("north", "n", 0.0),
    ("north-north-east", "nne", 22.5),
    ("north-east", "ne", 45.0),
    ("east-north-east", "ene", 67.5),
    ("east", "e", 90.0),
    ("east-south-east", "ese", 112.5),
    ("south-east", "se", 135.0),
    ("south-south-east", "sse", 157.5),
    ("south", "s", 180.0),
    ("south-south-west", "ssw", 202.5),
    ("south-west", "sw", 225.0),
    ("west-south-west", "wsw", 247.5),
    ("west", "w", 270.0),
    ("west-north-west", "wnw", 292.5),
    ("north-west", "nw", 315.0),
    ("north-north-west", "nnw", 337.5),
];

/// Degrees in [0, 360]; 360 is read as north.
pub fn facing_from_degrees(deg: f64) -> Result<Facing, String> {
    if !deg.is_finite() || !(0.0..=360.0).contains(&deg) {
        return Err(format!(
            "facing {deg} is not a compass bearing; write degrees from 0 (north) clockwise to 359, or a compass point such as \"north-west\""
        ));
    }
    Ok(Facing(if deg == 360.0 { 0.0 } else { deg }))
}

/// A compass-point name or abbreviation, or a number written as text.
pub fn facing_from_name(text: &str) -> Result<Facing, String> {
    let squashed: String = text
        .trim()
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !matches!(c, '-' | ' ' | '_'))
        .collect();
    for (name, abbrev, deg) in COMPASS_POINTS {
        if squashed == name.replace('-', "") || squashed == *abbrev {
            return Ok(Facing(*deg));
        }
    }
    if let Ok(deg) = text.trim().parse::<f64>() {
        return facing_from_degrees(deg);
    }
    Err(unknown_name_message(
        "facing",
        text,
        COMPASS_POINTS.iter().map(|(n, _, _)| *n),
    ))
}

/// A facing from a TOML value: a number of degrees or a compass point.
pub fn facing_from_value(value: &toml::Value) -> Result<Facing, String> {
    match value {
        toml::Value::Integer(i) => facing_from_degrees(*i as f64),
        toml::Value::Float(f) => facing_from_degrees(*f),
        toml::Value::String(s) => facing_from_name(s),
        other => Err(format!(
            "facing must be degrees (0 = north, clockwise) or a compass point such as \"north-west\", not a {}",
            other.type_str()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_abbreviations_and_degrees_agree() {
        assert_eq!(facing_from_name("north-west").unwrap(), Facing(315.0));
        assert_eq!(facing_from_name("North West").unwrap(), Facing(315.0));
        assert_eq!(facing_from_name("NW").unwrap(), Facing(315.0));
        assert_eq!(facing_from_name("northwest").unwrap(), Facing(315.0));
        assert_eq!(facing_from_name("ENE").unwrap(), Facing(67.5));
        assert_eq!(facing_from_degrees(360.0).unwrap(), Facing(0.0));
        assert!(facing_from_degrees(-10.0).is_err());
        assert!(facing_from_degrees(400.0).is_err());
        let e = facing_from_name("nort-west").unwrap_err();
        assert!(e.contains("did you mean `north-west`"), "{e}");
    }
}
