//! Facings as written in scenarios (and, later, orders): compass degrees or
//! compass-point names.
//!
//! Degrees are clockwise from north (0 = north, 90 = east), the way officers
//! read a map. Names are the sixteen points of the compass, written out
//! ("north-west", "north north east") or abbreviated ("NW", "NNE").

use super::model::Facing;
use crate::scenario_text::compass;

pub use crate::scenario_text::compass::COMPASS_POINTS;

/// Degrees in [0, 360]; 360 is read as north.
pub fn facing_from_degrees(deg: f64) -> Result<Facing, String> {
    compass::degrees_checked(deg).map(Facing)
}

/// A compass-point name or abbreviation, or a number written as text.
pub fn facing_from_name(text: &str) -> Result<Facing, String> {
    compass::degrees_from_name(text).map(Facing)
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
