//! A mail's opening chatter: "Evening. Here are my orders", "Orders for
//! turn 4:", "Hi all, my orders follow". Read as a greeting, never as a
//! failed order (a failed order keeps READY from counting).
//!
//! Only whole short lines made of a greeting and/or an announcement of the
//! orders qualify; a line that says anything more is left to the parser,
//! which answers it with an error as before.

/// Greeting words a line may open with ("evening", "good evening", "hi
/// all"), after which the announcement (or nothing) follows.
const GREETINGS: &[&[&str]] = &[
    &["good", "evening"],
    &["good", "morning"],
    &["good", "afternoon"],
    &["good", "day"],
    &["evening"],
    &["morning"],
    &["afternoon"],
    &["hello"],
    &["hallo"],
    &["hi"],
    &["hey"],
    &["howdy"],
    &["greetings"],
    &["all"],
    &["everyone"],
    &["adjutant"],
    &["umpire"],
    &["ok"],
    &["okay"],
    &["right"],
    &["so"],
];

/// Words an announcement of the orders is made of: "here are my orders
/// for this turn", "orders for turn 4 follow", "turn 4 orders", "my moves
/// below", "as follows".
const ANNOUNCEMENT: &[&str] = &[
    "here",
    "are",
    "is",
    "my",
    "our",
    "the",
    "orders",
    "order",
    "instructions",
    "moves",
    "for",
    "this",
    "next",
    "turn",
    "follow",
    "follows",
    "as",
    "below",
    "please",
    "find",
    "attached",
    "then",
    "and",
    "thanks",
    "thank",
    "you",
    "again",
];

/// Whether `line` is only a greeting and/or an announcement of the orders.
pub(crate) fn is_preamble(line: &str) -> bool {
    let words: Vec<String> = line
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() || words.len() > 10 {
        return false;
    }
    let mut k = 0;
    // Greetings, each at most once in a row ("evening all").
    'greet: while k < words.len() {
        for g in GREETINGS {
            if words.len() >= k + g.len()
                && words[k..k + g.len()].iter().zip(*g).all(|(a, b)| a == b)
            {
                k += g.len();
                continue 'greet;
            }
        }
        break;
    }
    let rest = &words[k..];
    if rest.is_empty() {
        // A bare greeting: "Evening." (the longer forms are OPENINGS').
        return k > 0;
    }
    // The announcement must say "orders" (or "moves", "instructions"):
    // "here is the thing" is not one.
    let announces = rest
        .iter()
        .any(|w| matches!(w.as_str(), "orders" | "order" | "instructions" | "moves"));
    announces
        && rest
            .iter()
            .all(|w| ANNOUNCEMENT.contains(&w.as_str()) || w.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::is_preamble;

    #[test]
    fn chatter_before_the_orders_is_a_preamble() {
        for line in [
            "Evening. here are my orders",
            "Evening.",
            "Here are my orders for this turn:",
            "Orders for turn 4:",
            "Turn 4 orders",
            "Hi all, my orders follow.",
            "Good evening, Adjutant. Orders as follows:",
            "My orders:",
            "Orders below, thanks",
            "ok here are the moves",
        ] {
            assert!(is_preamble(line), "{line}");
        }
    }

    #[test]
    fn an_order_or_anything_more_is_not() {
        for line in [
            "2nd Wisconsin: hold",
            "Here is the thing",
            "orders for the 2nd Wisconsin: advance",
            "All units advance",
            "hold",
            "the turnpike",
            "",
            "my orders are to hold the farm at all costs and then fall back",
        ] {
            assert!(!is_preamble(line), "{line}");
        }
    }
}
