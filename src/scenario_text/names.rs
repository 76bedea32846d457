//! Suggestions for misspelt names, so an error says what was probably meant.

use std::str::FromStr;

/// The candidate closest to `given`, if it is close enough to be a likely
/// typo (Jaro–Winkler similarity of at least 0.8, case-insensitive).
pub fn nearest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let given = given.trim().to_lowercase();
    let mut best: Option<(&str, f64)> = None;
    for c in candidates {
        let score = strsim::jaro_winkler(&given, &c.to_lowercase());
        if score >= 0.8 && best.is_none_or(|(_, s)| score > s) {
            best = Some((c, score));
        }
    }
    best.map(|(c, _)| c)
}

/// "unknown weapon `rifle-musket`; did you mean `rifled-musket`? (known: ...)"
pub fn unknown_name_message<'a>(
    what: &str,
    given: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> String {
    let mut msg = format!("unknown {what} `{given}`");
    if let Some(n) = nearest(given, candidates.clone()) {
        msg.push_str(&format!("; did you mean `{n}`?"));
    } else {
        // A short word ("musket") is far from every full name by edit
        // distance but is part of some of them: offer those.
        let needle = given.trim().to_lowercase();
        let containing: Vec<String> = candidates
            .clone()
            .into_iter()
            .filter(|c| needle.len() >= 3 && c.to_lowercase().contains(&needle))
            .map(|c| format!("`{c}`"))
            .collect();
        if !containing.is_empty() && containing.len() <= 4 {
            msg.push_str(&format!("; did you mean {}?", containing.join(" or ")));
        }
    }
    let all: Vec<&str> = candidates.into_iter().collect();
    if all.is_empty() {
        msg.push_str(" (none are defined)");
    } else if all.len() <= 25 {
        msg.push_str(&format!(" (expected one of: {})", all.join(", ")));
    }
    msg
}

/// Parse one of the shared kebab-case enums, or explain what is wrong.
pub fn parse_enum<T: FromStr + Copy>(
    what: &str,
    given: &str,
    all: &'static [T],
    as_str: fn(T) -> &'static str,
) -> Result<T, String> {
    given
        .parse::<T>()
        .map_err(|_| unknown_name_message(what, given, all.iter().map(|v| as_str(*v))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let known = ["rifled-musket", "smoothbore-musket", "12pdr-gun"];
        assert_eq!(nearest("rifle-musket", known), Some("rifled-musket"));
        assert_eq!(nearest("catapult", known), None);
        let m = unknown_name_message("weapon", "musket", known);
        assert!(
            m.contains("did you mean `rifled-musket` or `smoothbore-musket`?"),
            "{m}"
        );
    }
}
