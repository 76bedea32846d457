//! Deadline schedules: when a turn closes, how much grace follows, and when
//! the players who have sent nothing are reminded.
//!
//! A game has at most one schedule, kept under `"deadlines"` in
//! `games.settings_json` (docs/schema.md). Either an interval counted from
//! the moment a turn opens ("every 48 h"), or fixed wall-clock times on
//! chosen weekdays in a named IANA zone ("Tuesdays and Fridays 20:00
//! America/New_York"), which follow that zone's daylight-saving rules.
//! Without a schedule a turn runs only when every active player is READY
//! (or the umpire runs `adjutant game process`).
//!
//! Everything here is pure: the opening time is passed in and the result is
//! Unix seconds UTC, which is what `turns.deadline_at` stores.

use jiff::Timestamp;
use jiff::civil::{Time, Weekday};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A weekly slot never falls less than this after a turn opens: a turn
/// processed early at 19:30 with a slot at 20:00 would otherwise give the
/// players half an hour to read their reports and answer. Such a slot is
/// skipped and the next one taken.
pub const MIN_WEEKLY_TURN_SECS: i64 = 12 * 3600;

/// The key of the schedule in `games.settings_json`.
pub const SETTINGS_KEY: &str = "deadlines";

/// Why a schedule could not be read or applied. Each says how to write it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DeadlineError {
    #[error(
        "`{0}` is not a duration Adjutant can read; write e.g. \"48h\", \"2d\", \"90m\" or \"1h30m\""
    )]
    BadDuration(String),
    #[error(
        "`{0}` is not a weekly deadline Adjutant can read; write the days, a 24-hour time and an IANA zone, e.g. \"tue,fri 20:00 America/New_York\""
    )]
    BadWeekly(String),
    #[error("`{0}` is not a day of the week; write mon, tue, wed, thu, fri, sat or sun")]
    BadDay(String),
    #[error("an interval between deadlines must be at least one minute, not `{0}`")]
    TooShort(String),
    #[error(transparent)]
    Clock(#[from] super::clock::ClockError),
    #[error(
        "no deadline can be computed after {0}: it is outside the range of times Adjutant can handle"
    )]
    OutOfRange(i64),
    #[error(
        "the game's stored deadline settings cannot be read: {0}; set them again with `adjutant game deadline`"
    )]
    Stored(String),
}

/// How a turn's deadline follows from the moment it opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Schedule {
    /// A fixed length of time after the turn opens.
    Every { secs: i64 },
    /// The first of these wall-clock times in `zone` that is at least
    /// [`MIN_WEEKLY_TURN_SECS`] after the turn opens. `days` are ISO
    /// weekday numbers (1 = Monday … 7 = Sunday), sorted, no repeats.
    Weekly {
        days: Vec<u8>,
        hour: u8,
        minute: u8,
        zone: String,
    },
}

/// A game's deadline settings, as stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadlineSettings {
    /// None: the turn runs when every active player is READY.
    #[serde(default)]
    pub schedule: Option<Schedule>,
    /// After the deadline, mail still counts for the turn this long.
    #[serde(default)]
    pub grace_secs: i64,
    /// Players who have sent nothing are reminded this long before the
    /// deadline; 0 sends no reminders.
    #[serde(default)]
    pub remind_secs: i64,
}

const DAYS: [(&str, u8); 7] = [
    ("mon", 1),
    ("tue", 2),
    ("wed", 3),
    ("thu", 4),
    ("fri", 5),
    ("sat", 6),
    ("sun", 7),
];

/// Reads a duration such as `48h`, `2d`, `90m`, `1h30m`, `45s` or `0`.
pub fn parse_duration(text: &str) -> Result<i64, DeadlineError> {
    let bad = || DeadlineError::BadDuration(text.trim().to_string());
    let t = text.trim().to_ascii_lowercase();
    if t == "0" {
        return Ok(0);
    }
    if t.is_empty() {
        return Err(bad());
    }
    let mut total: i64 = 0;
    let mut digits = String::new();
    for c in t.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            's' => 1,
            _ => return Err(bad()),
        };
        let n: i64 = digits.parse().map_err(|_| bad())?;
        digits.clear();
        total = n
            .checked_mul(unit)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(bad)?;
    }
    if !digits.is_empty() || total > 366 * 86_400 {
        return Err(bad());
    }
    Ok(total)
}

/// Reads `every 48h`-style intervals: the duration alone.
pub fn parse_every(text: &str) -> Result<Schedule, DeadlineError> {
    let secs = parse_duration(text)?;
    if secs < 60 {
        return Err(DeadlineError::TooShort(text.trim().to_string()));
    }
    Ok(Schedule::Every { secs })
}

/// Reads `tue,fri 20:00 America/New_York` (days, 24-hour time, IANA zone;
/// the zone may be left out for UTC).
pub fn parse_weekly(text: &str) -> Result<Schedule, DeadlineError> {
    let bad = || DeadlineError::BadWeekly(text.trim().to_string());
    let mut words = text.split_whitespace();
    let (Some(days_word), Some(time_word)) = (words.next(), words.next()) else {
        return Err(bad());
    };
    let zone = words.next().unwrap_or("UTC").to_string();
    if words.next().is_some() {
        return Err(bad());
    }
    super::clock::zone(&zone)?;
    let mut days = Vec::new();
    for d in days_word.split(',').filter(|d| !d.is_empty()) {
        let key: String = d.to_ascii_lowercase().chars().take(3).collect();
        let n = DAYS
            .iter()
            .find(|(name, _)| *name == key && d.len() >= 3)
            .map(|(_, n)| *n)
            .ok_or_else(|| DeadlineError::BadDay(d.to_string()))?;
        days.push(n);
    }
    days.sort_unstable();
    days.dedup();
    if days.is_empty() {
        return Err(bad());
    }
    let (h, m) = time_word.split_once(':').ok_or_else(bad)?;
    let hour: u8 = h.parse().map_err(|_| bad())?;
    let minute: u8 = m.parse().map_err(|_| bad())?;
    if hour > 23 || minute > 59 || m.len() != 2 {
        return Err(bad());
    }
    Ok(Schedule::Weekly {
        days,
        hour,
        minute,
        zone,
    })
}

fn weekday_number(w: Weekday) -> u8 {
    u8::try_from(w.to_monday_one_offset()).unwrap_or(0)
}

/// The deadline of a turn that opened at `opened_at` (Unix seconds UTC).
pub fn deadline_after(schedule: &Schedule, opened_at: i64) -> Result<i64, DeadlineError> {
    match schedule {
        Schedule::Every { secs } => opened_at
            .checked_add(*secs)
            .ok_or(DeadlineError::OutOfRange(opened_at)),
        Schedule::Weekly {
            days,
            hour,
            minute,
            zone,
        } => {
            let tz = super::clock::zone(zone)?;
            let range = || DeadlineError::OutOfRange(opened_at);
            let time = Time::new(
                i8::try_from(*hour).map_err(|_| range())?,
                i8::try_from(*minute).map_err(|_| range())?,
                0,
                0,
            )
            .map_err(|_| range())?;
            let earliest = opened_at.saturating_add(MIN_WEEKLY_TURN_SECS);
            let start = Timestamp::from_second(opened_at).map_err(|_| range())?;
            let mut date = start.to_zoned_datetime(tz.clone()).date();
            // Fifteen days always hold a matching day at least twelve hours on.
            for _ in 0..15 {
                if days.contains(&weekday_number(date.weekday())) {
                    // In a daylight-saving gap the later reading is taken
                    // (jiff's "compatible" rule): 02:30 on a spring-forward
                    // night is 03:30 summer time.
                    let at = date
                        .to_datetime(time)
                        .to_zoned_datetime(tz.clone())
                        .map_err(|_| range())?
                        .timestamp()
                        .as_second();
                    if at >= earliest {
                        return Ok(at);
                    }
                }
                date = date.tomorrow().map_err(|_| range())?;
            }
            Err(range())
        }
    }
}

/// Words for a person: `every 48h` or `Tue, Fri at 20:00 America/New_York`.
pub fn describe(schedule: &Schedule) -> String {
    match schedule {
        Schedule::Every { secs } => format!("every {} after the turn opens", duration_words(*secs)),
        Schedule::Weekly {
            days,
            hour,
            minute,
            zone,
        } => {
            let names: Vec<String> = days
                .iter()
                .filter_map(|d| DAYS.iter().find(|(_, n)| n == d))
                .map(|(name, _)| {
                    let mut c = name.chars();
                    c.next()
                        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                        .unwrap_or_default()
                })
                .collect();
            format!("{} at {hour:02}:{minute:02} {zone}", names.join(", "))
        }
    }
}

/// `2d 4h`, `30m`, `0s`: a duration as people write it.
pub fn duration_words(secs: i64) -> String {
    let mut s = String::new();
    let mut rest = secs.max(0);
    for (unit, name) in [(86_400, "d"), (3_600, "h"), (60, "m")] {
        if rest >= unit {
            let _ = write!(s, "{}{name} ", rest / unit);
            rest %= unit;
        }
    }
    if rest > 0 || s.is_empty() {
        let _ = write!(s, "{rest}s");
    }
    s.trim_end().to_string()
}

impl DeadlineSettings {
    /// The settings stored in a game's `settings_json` (none stored: no
    /// schedule, no grace, no reminders).
    pub fn from_settings_json(json: &str) -> Result<Self, DeadlineError> {
        let v: serde_json::Value =
            serde_json::from_str(json).map_err(|e| DeadlineError::Stored(e.to_string()))?;
        match v.get(SETTINGS_KEY) {
            None | Some(serde_json::Value::Null) => Ok(Self::default()),
            Some(d) => {
                serde_json::from_value(d.clone()).map_err(|e| DeadlineError::Stored(e.to_string()))
            }
        }
    }

    /// `settings_json` with these settings in place of any stored before;
    /// other keys are kept.
    pub fn into_settings_json(&self, json: &str) -> Result<String, DeadlineError> {
        let mut v: serde_json::Value =
            serde_json::from_str(json).map_err(|e| DeadlineError::Stored(e.to_string()))?;
        let obj = v
            .as_object_mut()
            .ok_or_else(|| DeadlineError::Stored("settings are not a JSON object".into()))?;
        let me = serde_json::to_value(self).map_err(|e| DeadlineError::Stored(e.to_string()))?;
        obj.insert(SETTINGS_KEY.to_string(), me);
        Ok(v.to_string())
    }

    /// The deadline of a turn opened at `opened_at`, or None without a
    /// schedule.
    pub fn deadline_for(&self, opened_at: i64) -> Result<Option<i64>, DeadlineError> {
        self.schedule
            .as_ref()
            .map(|s| deadline_after(s, opened_at))
            .transpose()
    }

    /// When players who have sent nothing are reminded for a turn with this
    /// deadline: None without reminders.
    pub fn reminder_at(&self, deadline: i64) -> Option<i64> {
        (self.remind_secs > 0).then(|| deadline.saturating_sub(self.remind_secs))
    }

    /// One line for `game show` and the CLI.
    pub fn summary(&self) -> String {
        match &self.schedule {
            None => "none: a turn runs when every player is READY".to_string(),
            Some(s) => {
                let mut t = describe(s);
                let _ = write!(t, "; grace {}", duration_words(self.grace_secs));
                if self.remind_secs > 0 {
                    let _ = write!(t, "; reminder {} before", duration_words(self.remind_secs));
                } else {
                    t.push_str("; no reminders");
                }
                t
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{format_local, local_to_utc};

    fn ny(local: &str) -> i64 {
        local_to_utc(local, "America/New_York").unwrap()
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse_duration("48h"), Ok(48 * 3600));
        assert_eq!(parse_duration("2d"), Ok(2 * 86_400));
        assert_eq!(parse_duration("1h30m"), Ok(5400));
        assert_eq!(parse_duration(" 90M "), Ok(5400));
        assert_eq!(parse_duration("0"), Ok(0));
        for bad in [
            "",
            "h",
            "48",
            "2 days",
            "-3h",
            "1y",
            "99999999999999999999d",
            "400d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(duration_words(5400), "1h 30m");
        assert_eq!(duration_words(0), "0s");
        assert!(matches!(
            parse_every("30s"),
            Err(DeadlineError::TooShort(_))
        ));
    }

    #[test]
    fn an_interval_counts_from_the_opening() {
        let s = parse_every("48h").unwrap();
        assert_eq!(deadline_after(&s, 1_000), Ok(1_000 + 48 * 3600));
    }

    #[test]
    fn weekly_slots_are_read_and_described() {
        let s = parse_weekly("Fri,tue 20:00 America/New_York").unwrap();
        assert_eq!(
            s,
            Schedule::Weekly {
                days: vec![2, 5],
                hour: 20,
                minute: 0,
                zone: "America/New_York".into()
            }
        );
        assert_eq!(describe(&s), "Tue, Fri at 20:00 America/New_York");
        assert!(matches!(
            parse_weekly("tue 20:00 Mars/Base"),
            Err(DeadlineError::Clock(_))
        ));
        assert!(matches!(
            parse_weekly("someday 20:00"),
            Err(DeadlineError::BadDay(_))
        ));
        for bad in [
            "tue",
            "tue 25:00",
            "tue 20:0",
            "tue 8pm UTC",
            "tue 20:00 UTC extra",
        ] {
            assert!(parse_weekly(bad).is_err(), "{bad}");
        }
        assert!(parse_weekly("sun 06:30").is_ok());
    }

    #[test]
    fn the_next_weekly_slot_is_taken() {
        let s = parse_weekly("tue,fri 20:00 America/New_York").unwrap();
        // Opened Monday 23 November 2026 09:00 New York: Tuesday 20:00.
        let d = deadline_after(&s, ny("2026-11-23 09:00")).unwrap();
        assert_eq!(d, ny("2026-11-24 20:00"));
        assert_eq!(
            format_local(d, "America/New_York"),
            "Tuesday 24 November 2026, 20:00 EST"
        );
        // Opened Tuesday 10:00: Tuesday 20:00 is ten hours away, less than
        // the twelve-hour minimum, so Friday.
        let d = deadline_after(&s, ny("2026-11-24 10:00")).unwrap();
        assert_eq!(d, ny("2026-11-27 20:00"));
        // Opened exactly at a slot: the next one.
        let d = deadline_after(&s, ny("2026-11-27 20:00")).unwrap();
        assert_eq!(d, ny("2026-12-01 20:00"));
    }

    #[test]
    fn weekly_slots_keep_their_wall_clock_time_across_daylight_saving() {
        let s = parse_weekly("tue 20:00 America/New_York").unwrap();
        // Opened Friday 30 October 2026 in summer time; US clocks go back
        // on Sunday 1 November. The deadline is 20:00 EST = 01:00 UTC.
        let d = deadline_after(&s, ny("2026-10-30 21:00")).unwrap();
        assert_eq!(
            format_local(d, "America/New_York"),
            "Tuesday 3 November 2026, 20:00 EST"
        );
        assert_eq!(
            format_local(d, "UTC"),
            "Wednesday 4 November 2026, 01:00 UTC"
        );
        // And forward on Sunday 8 March 2026: 20:00 EDT = 00:00 UTC.
        let d = deadline_after(&s, ny("2026-03-06 12:00")).unwrap();
        assert_eq!(format_local(d, "UTC"), "Wednesday 11 March 2026, 00:00 UTC");
        // An interval is exact elapsed time, so across the change it reads
        // an hour differently on the wall clock.
        let e = parse_every("48h").unwrap();
        let d = deadline_after(&e, ny("2026-10-31 12:00")).unwrap();
        assert_eq!(
            format_local(d, "America/New_York"),
            "Monday 2 November 2026, 11:00 EST"
        );
    }

    #[test]
    fn a_slot_in_the_spring_gap_is_the_later_reading() {
        // 02:30 does not exist in New York on Sunday 8 March 2026.
        let s = parse_weekly("sun 02:30 America/New_York").unwrap();
        let d = deadline_after(&s, ny("2026-03-06 12:00")).unwrap();
        assert_eq!(
            format_local(d, "America/New_York"),
            "Sunday 8 March 2026, 03:30 EDT"
        );
    }

    #[test]
    fn settings_round_trip_through_settings_json_keeping_other_keys() {
        let d = DeadlineSettings {
            schedule: Some(parse_weekly("tue 20:00 Europe/London").unwrap()),
            grace_secs: 7200,
            remind_secs: 43_200,
        };
        let json = d.into_settings_json(r#"{"other": 1}"#).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["other"], 1);
        assert_eq!(DeadlineSettings::from_settings_json(&json).unwrap(), d);
        assert_eq!(
            DeadlineSettings::from_settings_json("{}").unwrap(),
            DeadlineSettings::default()
        );
        assert!(DeadlineSettings::from_settings_json(r#"{"deadlines": 3}"#).is_err());
        assert_eq!(d.reminder_at(100_000), Some(56_800));
        assert_eq!(DeadlineSettings::default().reminder_at(100_000), None);
        assert_eq!(
            d.summary(),
            "Tue at 20:00 Europe/London; grace 2h; reminder 12h before"
        );
    }
}
