//! Player and umpire secrets: generated, hashed and checked.
//!
//! A mail counts only if it carries a valid secret (see `mail::auth`), so the
//! secret must survive being typed into a phone mail client: it is 16 base32
//! characters (80 bits from the operating system's random source), shown in
//! four groups of four, and compared after [`normalise_secret`] so that case,
//! spaces and hyphens do not matter. Only an Argon2id PHC string is stored.

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

/// Something went wrong creating or hashing a secret.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error(
        "the operating system's random number source failed ({0}); secrets cannot be generated safely, check that /dev/urandom or getrandom(2) is available"
    )]
    Random(String),
    #[error("could not hash the secret with Argon2id: {0}; this is a bug, please report it")]
    Hash(String),
    #[error("a secret must not be empty; choose or generate one with at least 8 characters")]
    Empty,
}

/// Lower-case RFC 4648 base32 alphabet (a–z, 2–7): no 0/1/8/9, so there is no
/// O/0 or I/1 confusion between letters and digits.
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// What a queued mail says in place of a secret it carries: the secret is
/// put in when the mail is sent, and forgotten once it has left (migration
/// 0005, `Store::queue_outbound_secret`). As long as a secret, and free of
/// anything quoted-printable would encode, so the mail's lines keep their
/// length and the text stays findable.
pub const MAILED_SECRET_PLACEHOLDER: &str = "[secret-not-stored]";

/// Make a new random secret, e.g. `k7qd-m2xa-p4rt-zn5e`.
///
/// 16 symbols × 5 bits = 80 bits, enough against online guessing through mail
/// and, with Argon2id, against offline guessing of a stolen database.
pub fn generate_secret() -> Result<String, SecretError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| SecretError::Random(e.to_string()))?;
    let mut out = String::with_capacity(19);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 && i % 4 == 0 {
            out.push('-');
        }
        // 256 is a multiple of 32, so taking the low five bits is unbiased.
        out.push(char::from(ALPHABET[usize::from(b & 31)]));
    }
    Ok(out)
}

/// The form a secret is hashed and compared in: surrounding and inner
/// whitespace and hyphens removed, ASCII letters lower-cased. People retype
/// `K7QD M2XA P4RT ZN5E` from a printed sheet; that must still work.
pub fn normalise_secret(secret: &str) -> String {
    secret
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Hash a secret to an Argon2id PHC string (`$argon2id$v=19$...`) with a fresh
/// random salt and the crate's default (OWASP-recommended) cost parameters.
pub fn hash_secret(secret: &str) -> Result<String, SecretError> {
    let normalised = normalise_secret(secret);
    if normalised.is_empty() {
        return Err(SecretError::Empty);
    }
    let salt = argon2::password_hash::try_generate_salt()
        .map_err(|e| SecretError::Random(e.to_string()))?;
    let hash = Argon2::default()
        .hash_password_with_salt(normalised.as_bytes(), &salt)
        .map_err(|e| SecretError::Hash(e.to_string()))?;
    Ok(hash.to_string())
}

/// Does `secret` match the stored PHC string? A malformed or foreign hash is
/// simply "no" — it must never take the daemon down. The parameters are read
/// from the PHC string, so hashes made with older costs keep working.
pub fn verify_secret(secret: &str, phc: &str) -> bool {
    let normalised = normalise_secret(secret);
    if normalised.is_empty() {
        return false;
    }
    Argon2::default()
        .verify_password(normalised.as_bytes(), phc)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_secrets_are_grouped_base32_and_differ() {
        let a = generate_secret().unwrap();
        let b = generate_secret().unwrap();
        assert_eq!(a.len(), 19);
        assert_ne!(a, b);
        let groups: Vec<&str> = a.split('-').collect();
        assert_eq!(groups.len(), 4);
        assert!(
            groups
                .iter()
                .all(|g| g.len() == 4 && g.bytes().all(|c| ALPHABET.contains(&c)))
        );
    }

    #[test]
    fn hash_then_verify_ignores_case_spaces_and_hyphens() {
        let secret = "k7qd-m2xa-p4rt-zn5e";
        let phc = hash_secret(secret).unwrap();
        assert!(phc.starts_with("$argon2id$v=19$"));
        assert!(verify_secret(secret, &phc));
        assert!(verify_secret(" K7QD M2XA P4RT ZN5E ", &phc));
        assert!(!verify_secret("k7qd-m2xa-p4rt-zn5f", &phc));
        assert!(!verify_secret("", &phc));
    }

    #[test]
    fn same_secret_gets_a_fresh_salt() {
        assert_ne!(hash_secret("abc").unwrap(), hash_secret("abc").unwrap());
    }

    #[test]
    fn malformed_hashes_are_rejected_without_panicking() {
        for bad in [
            "",
            "$",
            "$argon2id$",
            "$argon2id$v=19$m=1,t=1,p=1$$",
            "plain",
            "$bcrypt$x$y",
        ] {
            assert!(!verify_secret("anything", bad), "{bad:?}");
        }
    }

    #[test]
    fn empty_secret_cannot_be_hashed() {
        assert!(matches!(hash_secret(" - "), Err(SecretError::Empty)));
    }
}
