//! Per-turn dice seeds and the hashes published for them.
//!
//! A game has one secret 32-byte seed. Each turn's dice come from a seed
//! derived from it, so revealing one turn's seed after processing (letting
//! players re-roll and check every die) reveals nothing about later turns.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// The seed for turn `turn`: HMAC-SHA256(key = game seed, message = `"turn:N"`
/// with N in decimal ASCII, e.g. `turn:1`).
///
/// Why HMAC: it is a PRF keyed by the secret game seed, so each turn seed is
/// unpredictable without the game seed, and publishing one turn seed (after
/// processing) does not let anyone compute another. Anyone who holds the game
/// seed can recompute every turn seed with standard tools.
pub fn turn_seed(game_seed: &[u8; 32], turn: u32) -> [u8; 32] {
    // HMAC pads keys shorter than the 64-byte SHA-256 block with zeros
    // (RFC 2104 §2), so building the padded key ourselves is the same
    // function, and its constructor cannot fail.
    let mut key = [0u8; 64];
    for (k, s) in key.iter_mut().zip(game_seed.iter()) {
        *k = *s;
    }
    let mut mac = <Hmac<Sha256> as KeyInit>::new(&key.into());
    mac.update(format!("turn:{turn}").as_bytes());
    mac.finalize().into_bytes().into()
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The commitment published before a turn: lower-case hex SHA-256 of the
/// 32-byte turn seed. After processing, the seed itself is revealed and
/// anyone can check `sha256(seed) == commitment`.
pub fn seed_commitment(turn_seed: &[u8; 32]) -> String {
    sha256_hex(turn_seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_key_equals_plain_hmac_with_32_byte_key() {
        let seed = [7u8; 32];
        let mut plain = <Hmac<Sha256> as KeyInit>::new_from_slice(&seed).unwrap();
        plain.update(b"turn:3");
        let expected: [u8; 32] = plain.finalize().into_bytes().into();
        assert_eq!(turn_seed(&seed, 3), expected);
    }

    /// Known answer computed independently with Python's `hmac` module:
    /// `hmac.new(bytes(32), b"turn:1", hashlib.sha256).hexdigest()`.
    #[test]
    fn turn_seed_known_answer() {
        let seed = [0u8; 32];
        assert_eq!(
            hex::encode(turn_seed(&seed, 1)),
            "407422b72f3e48e1f6b053bc62ab29553fa398def4287cf7f9fcafac76326748"
        );
    }

    #[test]
    fn turns_get_different_seeds_and_commitments_verify() {
        let seed = [42u8; 32];
        let t1 = turn_seed(&seed, 1);
        let t2 = turn_seed(&seed, 2);
        assert_ne!(t1, t2);
        assert_eq!(seed_commitment(&t1), sha256_hex(&t1));
        assert_eq!(seed_commitment(&t1).len(), 64);
    }
}
