//! Wall-clock times for people: deadlines are stored in UTC (Unix seconds)
//! and shown in each player's own IANA time zone; an umpire's `DEADLINE`
//! is written in a zone and stored in UTC.
//!
//! The zone database is the one bundled into the binary by `jiff`
//! (`tzdb-bundle-always`), not the machine's `/usr/share/zoneinfo`, so the
//! same deadline reads the same on every machine the daemon runs on, and a
//! fresh machine without Debian's `tzdata` still knows every zone.
//!
//! This module only formats and converts; it never reads the clock (the
//! daemon passes `now` in).

use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime};

/// A time zone or local time that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClockError {
    #[error("{}", crate::zones::check(.0).err().map(|e| e.to_string()).unwrap_or_else(|| format!("`{}` is not a usable time zone", .0)))]
    UnknownZone(String),
    #[error(
        "`{0}` is not a date and time Adjutant can read; write e.g. \"2026-11-24 20:00\" (24-hour clock)"
    )]
    BadLocalTime(String),
    #[error("{0} is outside the range of times Adjutant can show")]
    OutOfRange(i64),
}

/// The zone named `name` (IANA, e.g. `America/New_York`; `UTC` too).
pub fn zone(name: &str) -> Result<TimeZone, ClockError> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("utc") {
        return Ok(TimeZone::UTC);
    }
    TimeZone::get(name).map_err(|_| ClockError::UnknownZone(name.to_string()))
}

fn zoned(ts: i64, tz: &str) -> Result<ZonedDateTime, ClockError> {
    let t = Timestamp::from_second(ts).map_err(|_| ClockError::OutOfRange(ts))?;
    Ok(t.to_zoned_datetime(zone(tz)?))
}

/// `ts` as a person in zone `tz` reads it, e.g.
/// `Tuesday 24 November 2026, 20:00 EST`. An unknown zone (which the
/// scenario check should have refused) falls back to UTC and says so, so a
/// report is never lost over a bad zone name.
pub fn format_local(ts: i64, tz: &str) -> String {
    let fmt = "%A %-d %B %Y, %H:%M %Z";
    match zoned(ts, tz) {
        Ok(z) => z.strftime(fmt).to_string(),
        Err(ClockError::UnknownZone(_)) => match zoned(ts, "UTC") {
            Ok(z) => format!("{} (time zone `{}` unknown)", z.strftime(fmt), tz.trim()),
            Err(_) => format!("{ts} (Unix time)"),
        },
        Err(_) => format!("{ts} (Unix time)"),
    }
}

/// A wall-clock time written in zone `tz` (`YYYY-MM-DD HH:MM`, or with a
/// `T`, optionally with seconds) as Unix seconds. In a daylight-saving gap
/// or fold the earlier reading is taken (jiff's "compatible" rule, as
/// RFC 5545 and most calendars do).
pub fn local_to_utc(local: &str, tz: &str) -> Result<i64, ClockError> {
    let dt: DateTime = local
        .trim()
        .parse()
        .map_err(|_| ClockError::BadLocalTime(local.trim().to_string()))?;
    let z = dt
        .to_zoned_datetime(zone(tz)?)
        .map_err(|_| ClockError::BadLocalTime(local.trim().to_string()))?;
    Ok(z.timestamp().as_second())
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2026-11-24 01:00:00 UTC
    const TS: i64 = 1_795_482_000;

    #[test]
    fn formats_in_the_players_zone() {
        assert_eq!(
            format_local(TS, "UTC"),
            "Tuesday 24 November 2026, 01:00 UTC"
        );
        assert_eq!(
            format_local(TS, "America/New_York"),
            "Monday 23 November 2026, 20:00 EST"
        );
        assert_eq!(
            format_local(TS, "Europe/London"),
            "Tuesday 24 November 2026, 01:00 GMT"
        );
    }

    #[test]
    fn daylight_saving_is_the_zones_own() {
        // 2026-07-01 00:00:00 UTC: summer time in New York.
        assert_eq!(
            format_local(1_782_864_000, "America/New_York"),
            "Tuesday 30 June 2026, 20:00 EDT"
        );
    }

    #[test]
    fn an_unknown_zone_falls_back_to_utc_and_says_so() {
        let s = format_local(TS, "Mars/Olympus_Mons");
        assert!(s.starts_with("Tuesday 24 November 2026, 01:00 UTC"), "{s}");
        assert!(s.contains("Mars/Olympus_Mons"), "{s}");
        assert_eq!(
            zone("Mars/Olympus_Mons").err(),
            Some(ClockError::UnknownZone("Mars/Olympus_Mons".into()))
        );
    }

    #[test]
    fn local_times_convert_to_utc() {
        assert_eq!(local_to_utc("2026-11-23 20:00", "America/New_York"), Ok(TS));
        assert_eq!(local_to_utc("2026-11-24T01:00:00", "UTC"), Ok(TS));
        assert!(matches!(
            local_to_utc("next tuesday", "UTC"),
            Err(ClockError::BadLocalTime(_))
        ));
        assert!(matches!(
            local_to_utc("2026-11-24 01:00", "Nowhere/Else"),
            Err(ClockError::UnknownZone(_))
        ));
    }
}
