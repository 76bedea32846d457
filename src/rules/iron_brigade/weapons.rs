//! Weapon charts: base fire effectiveness by range (APSoF XIII "Weapons
//! Effects Charts", VII.H sniper chart; read per V.B.1.i and V.E).
//!
//! Each chart is a list of range bands, each with its lowest and highest
//! whole-inch range and the base effectiveness (the divisor of the dice sum).
//! Small arms have three bands, artillery four (V.E.2–3). A range beyond the
//! last band cannot be fired at.

use super::kinds::Weapon;

/// One column of a weapon chart: ranges `min..=max` whole inches give `effectiveness`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    pub min: u32,
    pub max: u32,
    pub effectiveness: u8,
}

/// A band literal; a macro rather than a `const fn` so the chart slices are
/// promoted to `'static` constants.
macro_rules! b {
    ($min:expr, $max:expr, $eff:expr) => {
        Band {
            min: $min,
            max: $max,
            effectiveness: $eff,
        }
    };
}

/// A range the weapon cannot fire at.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OutOfRange {
    #[error(
        "{weapon} cannot reach {inches}\" (measured {measured}\" rounded up); its longest range is {max}\""
    )]
    Beyond {
        weapon: Weapon,
        measured: f64,
        inches: u32,
        max: u32,
    },
    #[error("range {measured} is not a distance; give the range in inches, 0 or more")]
    Invalid { measured: f64 },
}

/// The chart of `weapon`, bands in increasing range (APSoF XIII, VII.H).
///
/// Transcribed column by column from the three-row tables: minimum row,
/// maximum row, effectiveness row (see rules/README.md).
pub fn chart(weapon: Weapon) -> &'static [Band] {
    use Weapon::*;
    match weapon {
        SmoothboreMusket => &[b!(0, 1, 6), b!(2, 3, 7), b!(4, 5, 8)],
        ObsoleteRifleMusket => &[b!(0, 1, 6), b!(2, 5, 7), b!(6, 12, 8)],
        RifledMusket => &[b!(0, 1, 4), b!(2, 6, 5), b!(7, 12, 6)],
        BreechloadingRifle => &[b!(0, 1, 3), b!(2, 6, 4), b!(7, 12, 5)],
        RepeatingRifle => &[b!(0, 1, 2), b!(2, 5, 3), b!(6, 12, 4)],
        MuzzleLoadingCarbine => &[b!(0, 1, 4), b!(2, 4, 5), b!(5, 10, 6)],
        ObsoleteBreechloadingCarbine => &[b!(0, 1, 4), b!(2, 4, 5), b!(5, 10, 6)],
        BreechloadingCarbine => &[b!(0, 1, 3), b!(2, 4, 4), b!(5, 10, 5)],
        RepeatingCarbine => &[b!(0, 1, 2), b!(2, 4, 3), b!(5, 10, 4)],
        PistolsOrShotguns => &[b!(0, 1, 3), b!(2, 3, 4), b!(4, 5, 6)],
        MountainRifle => &[b!(0, 1, 5), b!(2, 16, 4), b!(17, 48, 5), b!(49, 72, 7)],
        SixPdrGun => &[b!(0, 1, 4), b!(2, 16, 3), b!(17, 40, 5), b!(41, 48, 6)],
        TwelvePdrMountainHowitzer => &[b!(0, 1, 3), b!(2, 10, 3), b!(11, 32, 6), b!(33, 40, 8)],
        LightRifle => &[b!(0, 1, 3), b!(2, 16, 4), b!(17, 48, 5), b!(49, 72, 6)],
        TwelvePdrGun => &[b!(0, 1, 3), b!(2, 16, 2), b!(17, 40, 4), b!(41, 48, 5)],
        TwelvePdrHowitzer => &[b!(0, 1, 2), b!(2, 14, 3), b!(15, 32, 5), b!(33, 40, 7)],
        MediumRifle => &[b!(0, 1, 2), b!(2, 16, 3), b!(17, 48, 3), b!(49, 72, 4)],
        TwentyFourPdrHowitzer => &[b!(0, 1, 2), b!(2, 16, 2), b!(17, 38, 4), b!(39, 46, 6)],
        HeavyRifle => &[b!(0, 1, 2), b!(2, 18, 2), b!(19, 52, 3), b!(53, 84, 4)],
        ThirtyTwoPdrHowitzer => &[b!(0, 1, 2), b!(2, 16, 1), b!(17, 40, 3), b!(41, 48, 5)],
        Sniper => &[b!(0, 6, 1), b!(7, 17, 2), b!(18, 28, 3)],
    }
}

/// The longest range, in whole inches, at which `weapon` may fire.
pub fn max_range(weapon: Weapon) -> u32 {
    chart(weapon).last().map_or(0, |band| band.max)
}

/// A measured range rounded up to the whole inch (APSoF V.E.1: "Ranges are
/// always rounded up to the next inch").
pub fn round_range(measured: f64) -> Result<u32, OutOfRange> {
    if !measured.is_finite() || measured < 0.0 {
        return Err(OutOfRange::Invalid { measured });
    }
    let up = measured.ceil();
    if up > f64::from(u32::MAX) {
        return Err(OutOfRange::Invalid { measured });
    }
    // Finite, non-negative and at most u32::MAX: the cast is exact.
    Ok(up as u32)
}

/// Base weapon effectiveness at a measured range (APSoF V.B.1.i, V.E.1).
///
/// The range is rounded up to the whole inch first, then looked up in the
/// band whose minimum and maximum enclose it.
pub fn base_effectiveness(weapon: Weapon, range_inches: f64) -> Result<u8, OutOfRange> {
    let inches = round_range(range_inches)?;
    chart(weapon)
        .iter()
        .find(|band| band.min <= inches && inches <= band.max)
        .map(|band| band.effectiveness)
        .ok_or(OutOfRange::Beyond {
            weapon,
            measured: range_inches,
            inches,
            max: max_range(weapon),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Weapon::*;

    /// Check every band edge of a chart: (min, max, effectiveness) per band,
    /// and that one inch past the last band is out of range.
    fn edges(weapon: Weapon, expected: &[(u32, u32, u8)]) {
        for &(min, max, eff) in expected {
            assert_eq!(
                base_effectiveness(weapon, f64::from(min)).unwrap(),
                eff,
                "{weapon} at {min}\""
            );
            assert_eq!(
                base_effectiveness(weapon, f64::from(max)).unwrap(),
                eff,
                "{weapon} at {max}\""
            );
        }
        let last = expected.last().unwrap().1;
        assert_eq!(max_range(weapon), last);
        assert!(matches!(
            base_effectiveness(weapon, f64::from(last + 1)),
            Err(OutOfRange::Beyond { .. })
        ));
        // A fraction past the last maximum rounds up and is out of range too.
        assert!(base_effectiveness(weapon, f64::from(last) + 0.01).is_err());
    }

    #[test]
    fn xiii_smoothbore_musket() {
        edges(SmoothboreMusket, &[(0, 1, 6), (2, 3, 7), (4, 5, 8)]);
    }
    #[test]
    fn xiii_obsolete_rifle_musket() {
        edges(ObsoleteRifleMusket, &[(0, 1, 6), (2, 5, 7), (6, 12, 8)]);
    }
    #[test]
    fn xiii_rifled_musket() {
        edges(RifledMusket, &[(0, 1, 4), (2, 6, 5), (7, 12, 6)]);
    }
    #[test]
    fn xiii_breechloading_rifle() {
        edges(BreechloadingRifle, &[(0, 1, 3), (2, 6, 4), (7, 12, 5)]);
    }
    #[test]
    fn xiii_repeating_rifle() {
        edges(RepeatingRifle, &[(0, 1, 2), (2, 5, 3), (6, 12, 4)]);
    }
    #[test]
    fn xiii_muzzle_loading_carbine() {
        edges(MuzzleLoadingCarbine, &[(0, 1, 4), (2, 4, 5), (5, 10, 6)]);
    }
    #[test]
    fn xiii_obsolete_breechloading_carbine() {
        edges(
            ObsoleteBreechloadingCarbine,
            &[(0, 1, 4), (2, 4, 5), (5, 10, 6)],
        );
    }
    #[test]
    fn xiii_breechloading_carbine() {
        edges(BreechloadingCarbine, &[(0, 1, 3), (2, 4, 4), (5, 10, 5)]);
    }
    #[test]
    fn xiii_repeating_carbine() {
        edges(RepeatingCarbine, &[(0, 1, 2), (2, 4, 3), (5, 10, 4)]);
    }
    #[test]
    fn xiii_pistols_or_shotguns() {
        edges(PistolsOrShotguns, &[(0, 1, 3), (2, 3, 4), (4, 5, 6)]);
    }
    #[test]
    fn xiii_mountain_rifle() {
        edges(
            MountainRifle,
            &[(0, 1, 5), (2, 16, 4), (17, 48, 5), (49, 72, 7)],
        );
    }
    #[test]
    fn xiii_6pdr_gun() {
        edges(
            SixPdrGun,
            &[(0, 1, 4), (2, 16, 3), (17, 40, 5), (41, 48, 6)],
        );
    }
    #[test]
    fn xiii_12pdr_mountain_howitzer() {
        edges(
            TwelvePdrMountainHowitzer,
            &[(0, 1, 3), (2, 10, 3), (11, 32, 6), (33, 40, 8)],
        );
    }
    #[test]
    fn xiii_light_rifle() {
        edges(
            LightRifle,
            &[(0, 1, 3), (2, 16, 4), (17, 48, 5), (49, 72, 6)],
        );
    }
    #[test]
    fn xiii_12pdr_gun() {
        edges(
            TwelvePdrGun,
            &[(0, 1, 3), (2, 16, 2), (17, 40, 4), (41, 48, 5)],
        );
    }
    #[test]
    fn xiii_12pdr_howitzer() {
        edges(
            TwelvePdrHowitzer,
            &[(0, 1, 2), (2, 14, 3), (15, 32, 5), (33, 40, 7)],
        );
    }
    #[test]
    fn xiii_medium_rifle() {
        edges(
            MediumRifle,
            &[(0, 1, 2), (2, 16, 3), (17, 48, 3), (49, 72, 4)],
        );
    }
    #[test]
    fn xiii_24pdr_howitzer() {
        edges(
            TwentyFourPdrHowitzer,
            &[(0, 1, 2), (2, 16, 2), (17, 38, 4), (39, 46, 6)],
        );
    }
    #[test]
    fn xiii_heavy_rifle() {
        edges(
            HeavyRifle,
            &[(0, 1, 2), (2, 18, 2), (19, 52, 3), (53, 84, 4)],
        );
    }
    #[test]
    fn xiii_32pdr_howitzer() {
        edges(
            ThirtyTwoPdrHowitzer,
            &[(0, 1, 2), (2, 16, 1), (17, 40, 3), (41, 48, 5)],
        );
    }
    #[test]
    fn vii_h_sniper() {
        edges(Sniper, &[(0, 6, 1), (7, 17, 2), (18, 28, 3)]);
    }

    #[test]
    fn every_chart_is_contiguous_from_zero() {
        for &w in Weapon::ALL {
            let bands = chart(w);
            assert_eq!(bands[0].min, 0, "{w}");
            for pair in bands.windows(2) {
                assert_eq!(pair[1].min, pair[0].max + 1, "{w}");
            }
            let expected = if w.is_artillery() { 4 } else { 3 };
            assert_eq!(bands.len(), expected, "{w}: V.E.2-3 band count");
        }
    }

    #[test]
    fn v_e_1_range_is_rounded_up() {
        // 1.2" rounds up to 2", into the rifled musket's second band.
        assert_eq!(base_effectiveness(RifledMusket, 1.2).unwrap(), 5);
        assert_eq!(base_effectiveness(RifledMusket, 6.0).unwrap(), 5);
        assert_eq!(base_effectiveness(RifledMusket, 6.0001).unwrap(), 6);
        assert_eq!(base_effectiveness(RifledMusket, 0.0).unwrap(), 4);
        assert_eq!(base_effectiveness(RifledMusket, 0.5).unwrap(), 4);
    }

    #[test]
    fn nonsense_ranges_are_refused() {
        for r in [-0.5, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                base_effectiveness(RifledMusket, r),
                Err(OutOfRange::Invalid { .. })
            ));
        }
        let msg = base_effectiveness(RifledMusket, 13.0)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("12\""), "{msg}");
    }
}
