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
    /// The body without those lines.
    pub text: String,
}

/// Take `PASSWORD <secret>` lines out of an order body. The keyword is
/// case-insensitive, may be followed by `:` or `=`, and must start its own
/// line (leading spaces allowed); the secret is the rest of the line. The
/// lines are removed so the secret never reaches the order parser, receipts
/// or the umpire's view.
pub fn extract_password(body: &str) -> PasswordLines {
    let mut out = PasswordLines::default();
    let mut kept: Vec<&str> = Vec::new();
    for line in body.lines() {
        match password_on_line(line) {
            Some(secret) => out.candidates.push(secret),
            None => kept.push(line),
        }
    }
    out.text = kept.join("\n");
    out
}

fn password_on_line(line: &str) -> Option<String> {
    let t = line.trim();
    let head = t.get(..8)?;
    if !head.eq_ignore_ascii_case("password") {
        return None;
    }
    let rest = t.get(8..)?;
    // "PASSWORD foo", "Password: foo", "password=foo"; not "passwords are…".
    let rest = if let Some(r) = rest.strip_prefix([':', '=']) {
        r
    } else if rest.starts_with(char::is_whitespace) {
        rest
    } else {
        return None;
    };
    let secret = rest.trim();
    (!secret.is_empty()).then(|| secret.to_string())
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
}
