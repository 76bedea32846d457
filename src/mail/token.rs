//! Reply tokens: a per-(game, player, turn) tag in the Reply-To sub-address
//! (`gm+TOKEN@example.org`) that proves a reply answers mail we sent to that
//! player for that turn.
//!
//! `token = base32(HMAC-SHA256(server key, game | player | turn)[..10])`.
//! Ten bytes (80 bits) are far beyond online guessing by mail; lower-case
//! base32 without padding survives mail systems that fold the local part's
//! case and contains no characters that need quoting in an address.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// Bytes of the MAC kept in the token.
pub const TOKEN_BYTES: usize = 10;
/// Characters in a token: 10 bytes of base32 = 16 symbols, no padding.
pub const TOKEN_LEN: usize = 16;

/// A token could not be made or attached.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error(
        "the server key for reply tokens is empty; set a long random key in the configuration (e.g. 32 bytes of hex)"
    )]
    EmptyKey,
    #[error(
        "`{0}` is not a mail address of the form local@domain; fix the game master address in the configuration"
    )]
    BadAddress(String),
}

fn mac(key: &[u8], game: &str, player: &str, turn: u32) -> Result<[u8; 32], TokenError> {
    if key.is_empty() {
        return Err(TokenError::EmptyKey);
    }
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key).map_err(|_| TokenError::EmptyKey)?;
    // Length-prefixed fields: `("a|b", "c")` and `("a", "b|c")` must differ.
    for field in [game.as_bytes(), player.as_bytes()] {
        m.update(&(field.len() as u64).to_be_bytes());
        m.update(field);
        m.update(b"|");
    }
    m.update(&turn.to_be_bytes());
    Ok(m.finalize().into_bytes().into())
}

/// The reply token for one player's mail in one turn of one game.
/// The player-name field of every umpire reply token (see
/// [`umpire_token_game`]): an umpire's token is a player token of a game
/// name no player can have.
pub const UMPIRE_TOKEN_PLAYER: &str = "umpire";

/// The game field of the umpire's reply tokens for `game`.
pub fn umpire_token_game(game: &str) -> String {
    format!("umpire:{game}")
}

pub fn make_token(key: &[u8], game: &str, player: &str, turn: u32) -> Result<String, TokenError> {
    let full = mac(key, game, player, turn)?;
    let short = full.get(..TOKEN_BYTES).unwrap_or(&full);
    Ok(data_encoding::BASE32_NOPAD
        .encode(short)
        .to_ascii_lowercase())
}

/// `gm@example.org` + token → `gm+token@example.org`. An existing `+tag` on
/// the game master address is replaced, not stacked.
pub fn make_reply_to(gm_address: &str, token: &str) -> Result<String, TokenError> {
    let bad = || TokenError::BadAddress(gm_address.to_string());
    let (local, domain) = gm_address.trim().rsplit_once('@').ok_or_else(bad)?;
    let local = local.split('+').next().unwrap_or(local);
    if local.is_empty() || domain.is_empty() || domain.contains(['@', ' ', '<', '>']) {
        return Err(bad());
    }
    Ok(format!("{local}+{token}@{domain}"))
}

/// Every token-shaped `+tag` found in the given addresses (To, Cc,
/// Delivered-To, …), lower-cased and de-duplicated, in order of appearance.
/// Tags of the wrong length or alphabet are ignored: they are someone's own
/// sub-addressing, not ours.
pub fn extract_tokens<S: AsRef<str>>(addresses: &[S]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for addr in addresses {
        let addr = addr
            .as_ref()
            .trim()
            .trim_start_matches('<')
            .trim_end_matches('>');
        let Some((local, _domain)) = addr.rsplit_once('@') else {
            continue;
        };
        for tag in local.split('+').skip(1) {
            let tag = tag.to_ascii_lowercase();
            if is_token_shaped(&tag) && !out.contains(&tag) {
                out.push(tag);
            }
        }
    }
    out
}

/// The reply tokens in the `Reply-To` of a composed message (`raw`):
/// for a message kept whole and queued later (a held turn's reports),
/// whose tokens were not kept beside it.
pub fn reply_tokens_in(raw: &[u8]) -> Vec<String> {
    use mailparse::MailHeaderMap;
    let Ok((headers, _)) = mailparse::parse_headers(raw) else {
        return Vec::new();
    };
    let addresses: Vec<String> = headers
        .get_all_values("Reply-To")
        .into_iter()
        .map(|value| match (value.find('<'), value.rfind('>')) {
            (Some(a), Some(b)) if a < b => value.get(a + 1..b).unwrap_or("").to_string(),
            _ => value,
        })
        .collect();
    extract_tokens(&addresses)
}

fn is_token_shaped(tag: &str) -> bool {
    tag.len() == TOKEN_LEN
        && tag
            .bytes()
            .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
}

/// Is `token` the token for (game, player, turn)? Case-insensitive, compared
/// in constant time so the answer leaks nothing about how close a guess was.
pub fn verify(key: &[u8], game: &str, player: &str, turn: u32, token: &str) -> bool {
    let Ok(expected) = make_token(key, game, player, turn) else {
        return false;
    };
    let given = token.trim().to_ascii_lowercase();
    if given.len() != expected.len() {
        return false;
    }
    expected.as_bytes().ct_eq(given.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    #[test]
    fn token_is_16_lowercase_base32_and_stable() {
        let t = make_token(KEY, "brawner", "gibbon", 3).unwrap();
        assert_eq!(t.len(), TOKEN_LEN);
        assert!(is_token_shaped(&t));
        assert_eq!(t, make_token(KEY, "brawner", "gibbon", 3).unwrap());
    }

    #[test]
    fn token_depends_on_every_input() {
        let t = make_token(KEY, "brawner", "gibbon", 3).unwrap();
        assert_ne!(t, make_token(KEY, "brawner", "gibbon", 4).unwrap());
        assert_ne!(t, make_token(KEY, "brawner", "taliaferro", 3).unwrap());
        assert_ne!(t, make_token(KEY, "groveton", "gibbon", 3).unwrap());
        assert_ne!(
            t,
            make_token(b"another key", "brawner", "gibbon", 3).unwrap()
        );
        assert_ne!(
            make_token(KEY, "a|b", "c", 1).unwrap(),
            make_token(KEY, "a", "b|c", 1).unwrap()
        );
    }

    #[test]
    fn empty_key_is_refused() {
        assert_eq!(make_token(b"", "g", "p", 1), Err(TokenError::EmptyKey));
        assert!(!verify(b"", "g", "p", 1, "aaaaaaaaaaaaaaaa"));
    }

    #[test]
    fn reply_to_round_trips_through_extract_and_verify_even_upper_cased() {
        let t = make_token(KEY, "brawner", "gibbon", 3).unwrap();
        let rt = make_reply_to("adjutant+old@example.org", &t).unwrap();
        assert_eq!(rt, format!("adjutant+{t}@example.org"));
        let found = extract_tokens(&[
            "someone@example.com".to_string(),
            format!("<{}>", rt.to_uppercase()),
            "me+shopping@example.com".to_string(),
        ]);
        assert_eq!(found, vec![t.clone()]);
        assert!(verify(KEY, "brawner", "gibbon", 3, &found[0]));
        assert!(verify(KEY, "brawner", "gibbon", 3, &t.to_uppercase()));
        assert!(!verify(KEY, "brawner", "gibbon", 2, &t));
        assert!(!verify(KEY, "brawner", "gibbon", 3, &t[..15]));
    }

    #[test]
    fn bad_gm_addresses_are_errors() {
        for bad in ["", "adjutant", "@example.org", "adjutant@"] {
            assert!(make_reply_to(bad, "t").is_err(), "{bad:?}");
        }
    }
}
