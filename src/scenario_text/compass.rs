//! Compass points as written in scenarios: the sixteen points, written out
//! ("north-west", "north north east") or abbreviated ("NW", "NNE"), and
//! degrees clockwise from north (0 = north, 90 = east).

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
pub fn degrees_checked(deg: f64) -> Result<f64, String> {
    if !deg.is_finite() || !(0.0..=360.0).contains(&deg) {
        return Err(format!(
            "facing {deg} is not a compass bearing; write degrees from 0 (north) clockwise to 359, or a compass point such as \"north-west\""
        ));
    }
    Ok(if deg == 360.0 { 0.0 } else { deg })
}

/// A compass-point name or abbreviation, or a number written as text, as
/// degrees clockwise from north.
pub fn degrees_from_name(text: &str) -> Result<f64, String> {
    let squashed: String = text
        .trim()
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !matches!(c, '-' | ' ' | '_'))
        .collect();
    for (name, abbrev, deg) in COMPASS_POINTS {
        if squashed == name.replace('-', "") || squashed == *abbrev {
            return Ok(*deg);
        }
    }
    if let Ok(deg) = text.trim().parse::<f64>() {
        return degrees_checked(deg);
    }
    Err(unknown_name_message(
        "facing",
        text,
        COMPASS_POINTS.iter().map(|(n, _, _)| *n),
    ))
}
