//! Places and facings in words, as a staff officer writes them:
//! "200 yards north-east of the Brawner farm", "facing south-west".

use crate::rules::iron_brigade::geometry::{bearing, normalize_deg};
use crate::rules::iron_brigade::state::{Landmark, Pos};

/// Yards of ground per table inch at Iron Brigade scale (APSoF IV.A).
pub const DEFAULT_YARDS_PER_INCH: f64 = 25.0;

/// Closer than this many yards, a unit is "at" the landmark.
const AT_YARDS: f64 = 40.0;

const POINTS: [&str; 8] = [
    "north",
    "north-east",
    "east",
    "south-east",
    "south",
    "south-west",
    "west",
    "north-west",
];

/// The nearest of the eight compass points to a bearing in degrees.
pub fn compass_point(deg: f64) -> &'static str {
    let d = normalize_deg(deg);
    // 45° sectors centred on each point; the cast is of a value in 0..=8.
    let i = ((d + 22.5) / 45.0).floor() as usize % 8;
    POINTS.get(i).copied().unwrap_or("north")
}

const FACINGS: [&str; 16] = [
    "north",
    "north-north-east",
    "north-east",
    "east-north-east",
    "east",
    "east-south-east",
    "south-east",
    "south-south-east",
    "south",
    "south-south-west",
    "south-west",
    "west-south-west",
    "west",
    "west-north-west",
    "north-west",
    "north-north-west",
];

/// The nearest of the sixteen compass points to a facing, as the scenario
/// format and the orders name them ("east-north-east"): a unit's front
/// decides its flanks and rear (APSoF IV.C.3, V.G.1.i), so a report does
/// not round a facing of 67.5° to "east".
pub fn facing_point(deg: f64) -> &'static str {
    let d = normalize_deg(deg);
    // 22.5° sectors centred on each point; the cast is of a value in 0..=16.
    let i = ((d + 11.25) / 22.5).floor() as usize % 16;
    FACINGS.get(i).copied().unwrap_or("north")
}

/// Table coordinates as shown in reports: inches, one decimal.
pub fn coords(p: Pos) -> String {
    format!("{:.1}, {:.1}", p.x, p.y)
}

/// Yards rounded as one would pace or guess them: to 25 under 200 yards,
/// to 50 beyond.
fn round_yards(y: f64) -> u32 {
    let step = if y < 200.0 { 25.0 } else { 50.0 };
    // Distances on a table are small and finite; clamp keeps the cast safe.
    ((y / step).round() * step).clamp(0.0, 1.0e6) as u32
}

/// Where `p` is relative to the nearest landmark: "at the orchard" or
/// "200 yards north-east of the Brawner farm". `None` when there are no
/// landmarks (the caller then shows coordinates only).
pub fn relative_to_landmark(p: Pos, landmarks: &[Landmark], yards_per_inch: f64) -> Option<String> {
    let nearest = landmarks
        .iter()
        .filter(|l| l.position.is_finite())
        .min_by(|a, b| p.distance(a.position).total_cmp(&p.distance(b.position)))?;
    let yards = p.distance(nearest.position) * yards_per_inch;
    if !yards.is_finite() {
        return None;
    }
    if yards < AT_YARDS {
        return Some(format!("at {}", nearest.name));
    }
    Some(format!(
        "{} yards {} of {}",
        round_yards(yards),
        compass_point(bearing(nearest.position, p)),
        nearest.name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn farm() -> Vec<Landmark> {
        vec![
            Landmark {
                name: "the Brawner farm".into(),
                position: Pos::new(10.0, 10.0),
            },
            Landmark {
                name: "the orchard".into(),
                position: Pos::new(30.0, 10.0),
            },
        ]
    }

    #[test]
    fn place_is_given_from_the_nearest_landmark() {
        // 8" north-east-ish of the farm: 5.66" each way = 200 yards.
        let p = Pos::new(10.0 + 5.657, 10.0 + 5.657);
        assert_eq!(
            relative_to_landmark(p, &farm(), 25.0).unwrap(),
            "200 yards north-east of the Brawner farm"
        );
        assert_eq!(
            relative_to_landmark(Pos::new(30.5, 10.0), &farm(), 25.0).unwrap(),
            "at the orchard"
        );
        assert_eq!(relative_to_landmark(Pos::new(0.0, 0.0), &[], 25.0), None);
    }

    #[test]
    fn compass_points() {
        assert_eq!(compass_point(0.0), "north");
        assert_eq!(compass_point(359.0), "north");
        assert_eq!(compass_point(100.0), "east");
        assert_eq!(compass_point(225.0), "south-west");
        assert_eq!(compass_point(-45.0), "north-west");
        assert_eq!(facing_point(67.5), "east-north-east");
        assert_eq!(facing_point(90.0), "east");
        assert_eq!(facing_point(350.0), "north");
        assert_eq!(facing_point(150.0), "south-south-east");
        assert_eq!(facing_point(146.0), "south-east");
    }
}
