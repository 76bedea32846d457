//! IANA time-zone names as people type them: the zone database is the one
//! `jiff` bundles into the binary (so every machine agrees), and a name it
//! does not know is refused with the nearest name it does know
//! ("Europe/Londn" → "Europe/London").

/// A time zone no one can use, with the nearest known name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{name}` is not a known IANA time zone{}", suggestion_text(.suggestion))]
pub struct UnknownZone {
    pub name: String,
    pub suggestion: Option<String>,
}

fn suggestion_text(s: &Option<String>) -> String {
    match s {
        Some(s) => format!("; did you mean \"{s}\"?"),
        None => "; write e.g. \"America/New_York\", \"Europe/London\" or \"UTC\"".to_string(),
    }
}

/// Ok when `name` (trimmed; `UTC` in any case) is an `Area/Location` zone
/// of the bundled database. The database's old abbreviations ("EST",
/// "MST") are refused: they are fixed offsets without daylight saving, and
/// someone who writes "EST" means New York's time, which has it.
pub fn check(name: &str) -> Result<(), UnknownZone> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("utc")
        || (name.contains('/') && jiff::tz::TimeZone::get(name).is_ok())
    {
        return Ok(());
    }
    Err(UnknownZone {
        name: name.to_string(),
        suggestion: nearest(name),
    })
}

/// The known zone name nearest to `name` (case-insensitive edit distance,
/// at most a third of the name's length), if any is near enough.
pub fn nearest(name: &str) -> Option<String> {
    let want = name.to_ascii_lowercase();
    let limit = (want.chars().count() / 3).max(2);
    jiff::tz::db()
        .available()
        .map(|z| z.as_str().to_string())
        .filter(|z| z.contains('/'))
        .map(|z| {
            (
                strsim::damerau_levenshtein(&want, &z.to_ascii_lowercase()),
                z,
            )
        })
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, z)| z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_zones_pass_and_misspelt_ones_get_the_nearest() {
        assert!(check("Europe/London").is_ok());
        assert!(check("utc").is_ok());
        let e = check("Europe/Londn").unwrap_err();
        assert_eq!(e.suggestion.as_deref(), Some("Europe/London"));
        assert!(e.to_string().contains("did you mean \"Europe/London\""));
        assert!(
            check("EST").is_err(),
            "a fixed abbreviation, not a place's time"
        );
        let e = check("Mars/Olympus_Mons_Base").unwrap_err();
        assert_eq!(e.suggestion, None);
        assert!(e.to_string().contains("America/New_York"));
    }
}
