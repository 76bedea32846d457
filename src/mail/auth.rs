//! Who sent this mail? `From:` is trivially forged (the old judges trusted
//! it), so a mail counts only when it carries a valid secret:
//!
//! * the player's **password** on a `PASSWORD <secret>` line anywhere in the
//!   body — accepted from any sender, because the player may be writing from
//!   a library or a new phone; or
//! * a **reply token** in the address the mail was sent to (`gm+TOKEN@…`,
//!   see [`crate::mail::token`]) — accepted only when `From` is also one of
//!   the player's registered addresses, because a token travels with every
//!   forwarded or quoted copy of our mail and so proves less than a password.
//!
//! A mail that fails gets one short answer, sent to the player's
//! **registered** address and never to the (possibly forged) `From`, so a
//! forger cannot use us to mail anyone and the real player learns of it.

use crate::mail::address::same_address;
use crate::mail::token;
use crate::secret::verify_secret;
use serde::{Deserialize, Serialize};

/// At most this many `PASSWORD` lines are checked. Argon2 is deliberately
/// slow; a mail with a thousand password lines must not stall intake.
pub const MAX_PASSWORD_CANDIDATES: usize = 3;

/// The body split into password candidates and the text for the order parser.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PasswordLines {
    /// Secrets from `PASSWORD` lines, in order.
    pub candidates: Vec<String>,
    /// The body without the passwords (a line that held only a password is
    /// gone; other text on its line stays).
    pub text: String,
    /// For each line of `text`, its 0-based line in the body given.
    pub lines: Vec<usize>,
}

/// Take `PASSWORD <secret>` out of an order body. The keyword is
/// case-insensitive and may be followed by `:` or `=`. At the start of a
/// line the secret is the rest of the line — or, when more text follows a
/// secret-shaped run (four groups of four letters and digits, as
/// `secret::generate_secret` makes them), just that run: an HTML mail
/// rendered to text often puts the password and the first order on one
/// line. Inside a line, only `PASSWORD` followed by a secret-shaped run
/// counts. The secrets are removed so they never reach the order parser,
/// receipts or the umpire's view.
pub fn extract_password(body: &str) -> PasswordLines {
    let mut out = PasswordLines::default();
    let mut kept: Vec<String> = Vec::new();
    for (i, line) in body.lines().enumerate() {
        match password_on_line(line) {
            Some((secret, rest)) => {
                out.candidates.push(secret);
                if !rest.trim().is_empty() {
                    kept.push(rest);
                    out.lines.push(i);
                }
            }
            None => {
                kept.push(line.to_string());
                out.lines.push(i);
            }
        }
    }
    out.text = kept.join("\n");
    out
}

/// Length of the secret-shaped run at the start of `s` (16 letters and
/// digits of the secret alphabet, hyphens and spaces between them allowed),
/// and the secret as written; `None` if `s` does not start with one.
fn secret_run(s: &str) -> Option<(usize, String)> {
    let lead = s.len() - s.trim_start().len();
    let mut count = 0;
    let mut end = lead;
    for (i, c) in s.char_indices().skip_while(|(i, _)| *i < lead) {
        if c.is_ascii_alphanumeric() {
            let l = c.to_ascii_lowercase();
            if !(l.is_ascii_lowercase() || ('2'..='7').contains(&l)) {
                return None;
            }
            count += 1;
            end = i + 1;
            if count == 16 {
                break;
            }
        } else if c == '-' || c == ' ' {
            continue;
        } else {
            return None;
        }
    }
    // The run must end at a word boundary.
    let next = s.get(end..).and_then(|r| r.chars().next());
    (count == 16 && next.is_none_or(|c| !c.is_ascii_alphanumeric()))
        .then(|| (end, s.get(lead..end).unwrap_or("").to_string()))
}

fn password_on_line(line: &str) -> Option<(String, String)> {
    let lower = line.to_ascii_lowercase();
    let mut from = 0;
    while let Some(k) = lower
        .get(from..)
        .and_then(|l| l.find("password"))
        .map(|k| k + from)
    {
        from = k + 8;
        let at_start = line.get(..k).is_some_and(|b| b.trim().is_empty());
        let boundary_before = line
            .get(..k)
            .and_then(|b| b.chars().last())
            .is_none_or(|c| !c.is_alphanumeric());
        let Some(rest) = line.get(k + 8..) else {
            continue;
        };
        // "PASSWORD foo", "Password: foo", "password=foo"; not "passwords are…".
        let rest = if let Some(r) = rest.strip_prefix([':', '=']) {
            r
        } else if rest.starts_with(char::is_whitespace) {
            rest
        } else {
            continue;
        };
        let rest_start = line.len() - rest.len();
        match secret_run(rest) {
            Some((len, secret)) if boundary_before => {
                let before = line.get(..k).unwrap_or("").trim_end();
                let after = line.get(rest_start + len..).unwrap_or("").trim_start();
                let after = after
                    .strip_prefix(['.', ',', ';'])
                    .unwrap_or(after)
                    .trim_start();
                let remainder = match (before.is_empty(), after.is_empty()) {
                    (true, _) => after.to_string(),
                    (false, true) => before.to_string(),
                    (false, false) => format!("{before} {after}"),
                };
                return Some((secret, remainder));
            }
            _ if at_start => {
                let secret = rest.trim();
                return (!secret.is_empty()).then(|| (secret.to_string(), String::new()));
            }
            _ => {}
        }
    }
    None
}

/// What the store knows about the player the mail claims to be from.
#[derive(Debug, Clone, Copy)]
pub struct Registered<'a> {
    /// The player's registered addresses; the first is where notices go.
    pub addresses: &'a [String],
    /// The player's Argon2id PHC string, if a password was set.
    pub secret_phc: Option<&'a str>,
}

/// Which reply tokens would be valid for this player.
#[derive(Debug, Clone, Copy)]
pub struct TokenContext<'a> {
    pub key: &'a [u8],
    pub game: &'a str,
    pub player: &'a str,
    /// Turns whose tokens are still accepted (e.g. the open turn and the one
    /// before, for a reply to last turn's report that crossed the deadline).
    pub turns: &'a [u32],
}

/// How a mail proved who sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AuthMethod {
    Password,
    ReplyToken { turn: u32 },
}

/// Why a mail was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RejectReason {
    /// No password line and no token.
    NoSecret,
    /// A password was given and is wrong (and no valid token either).
    WrongPassword,
    /// A token-shaped address was used but the token is not valid for this
    /// player and turn.
    InvalidToken,
    /// The token is valid but the sender is not a registered address and no
    /// password was given.
    UnregisteredSender,
}

/// The decision on one mail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AuthOutcome {
    Accepted {
        method: AuthMethod,
        /// `From` is one of the registered addresses.
        sender_registered: bool,
    },
    Rejected {
        reason: RejectReason,
        /// Registered address to send ONE short notice to; never `From`
        /// unless `From` is itself registered. `None` if the player has no
        /// registered address.
        notify: Option<String>,
    },
}

/// Decide whether a mail counts as the player's. `passwords` come from
/// [`extract_password`], `tokens` from [`token::extract_tokens`] over the
/// mail's recipient addresses, `from` is the `From` address.
pub fn authenticate(
    passwords: &[String],
    tokens: &[String],
    from: Option<&str>,
    registered: &Registered<'_>,
    token_ctx: &TokenContext<'_>,
) -> AuthOutcome {
    let sender_registered =
        from.is_some_and(|f| registered.addresses.iter().any(|a| same_address(a, f)));
    let password_ok = registered.secret_phc.is_some_and(|phc| {
        passwords
            .iter()
            .take(MAX_PASSWORD_CANDIDATES)
            .any(|p| verify_secret(p, phc))
    });
    if password_ok {
        return AuthOutcome::Accepted {
            method: AuthMethod::Password,
            sender_registered,
        };
    }
    let token_turn = token_ctx.turns.iter().copied().find(|&turn| {
        tokens
            .iter()
            .any(|t| token::verify(token_ctx.key, token_ctx.game, token_ctx.player, turn, t))
    });
    let reason = match token_turn {
        Some(turn) if sender_registered => {
            return AuthOutcome::Accepted {
                method: AuthMethod::ReplyToken { turn },
                sender_registered,
            };
        }
        Some(_) => {
            if passwords.is_empty() {
                RejectReason::UnregisteredSender
            } else {
                RejectReason::WrongPassword
            }
        }
        None if !passwords.is_empty() => RejectReason::WrongPassword,
        None if !tokens.is_empty() => RejectReason::InvalidToken,
        None => RejectReason::NoSecret,
    };
    AuthOutcome::Rejected {
        reason,
        notify: registered.addresses.first().cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_lines_are_found_and_removed() {
        let body = "From Gibbon:\nPASSWORD k7qd-m2xa\n2nd Wisconsin: advance.\n  password: other one \nPasswords are silly: hold.\nPassword\n";
        let p = extract_password(body);
        assert_eq!(p.candidates, vec!["k7qd-m2xa", "other one"]);
        assert_eq!(
            p.text,
            "From Gibbon:\n2nd Wisconsin: advance.\nPasswords are silly: hold.\nPassword"
        );
        assert_eq!(extract_password("password=abc").candidates, vec!["abc"]);
    }

    #[test]
    fn a_password_sharing_its_line_with_orders_is_found() {
        // What html2text makes of `<p>PASSWORD k7qd-m2xa-p4rt-zn5e <span>2nd
        // Wisconsin: hold</span></p>`, and a password after other words.
        let p = extract_password(
            "PASSWORD k7qd-m2xa-p4rt-zn5e 2nd Wisconsin: hold\nOrders from Gibbon. Password: K7QD M2XA P4RT ZN5E.\n19th Indiana: hold",
        );
        assert_eq!(
            p.candidates,
            vec!["k7qd-m2xa-p4rt-zn5e", "K7QD M2XA P4RT ZN5E"]
        );
        assert_eq!(
            p.text,
            "2nd Wisconsin: hold\nOrders from Gibbon.\n19th Indiana: hold"
        );
        assert_eq!(p.lines, vec![0, 1, 2]);
        // A password line on its own is gone, and the lines still say
        // where each kept line was.
        let p = extract_password("PASSWORD k7qd-m2xa-p4rt-zn5e\n2nd Wisconsin: hold");
        assert_eq!(p.text, "2nd Wisconsin: hold");
        assert_eq!(p.lines, vec![1]);
        // Words that merely contain it are left alone.
        let p = extract_password("the passwords k7qd-m2xa-p4rt-zn5e");
        assert!(p.candidates.is_empty());
    }
}
