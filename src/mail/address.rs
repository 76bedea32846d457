//! Mail addresses as the rest of Adjutant sees them.

use serde::{Deserialize, Serialize};

/// One mailbox: `Name <local@domain>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mailbox {
    /// The address itself, `local@domain`, as written (case kept).
    pub address: String,
    /// The display name, if any, decoded from RFC 2047.
    pub name: Option<String>,
}

impl Mailbox {
    /// A mailbox without a display name.
    pub fn new(address: impl Into<String>) -> Self {
        Mailbox {
            address: address.into(),
            name: None,
        }
    }

    /// A mailbox with a display name.
    pub fn named(name: impl Into<String>, address: impl Into<String>) -> Self {
        Mailbox {
            address: address.into(),
            name: Some(name.into()),
        }
    }
}

/// The comparison key for an address: trimmed, angle brackets removed and
/// lower-cased as a whole. RFC 5321 lets the local part be case-sensitive,
/// but no mail provider players use treats it so, and a player who types
/// `Gibbon@Example.org` at registration and sends from `gibbon@example.org`
/// is the same person.
pub fn address_key(address: &str) -> String {
    address
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim()
        .to_lowercase()
}

/// Are two addresses the same mailbox (see [`address_key`])?
pub fn same_address(a: &str, b: &str) -> bool {
    let a = address_key(a);
    !a.is_empty() && a == address_key(b)
}

/// The domain of an address, lower-cased, if it has one.
pub fn domain_of(address: &str) -> Option<String> {
    let key = address_key(address);
    let (_, domain) = key.rsplit_once('@')?;
    (!domain.is_empty()).then(|| domain.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_compare_case_insensitively_without_brackets() {
        assert!(same_address("<Gibbon@Example.org>", " gibbon@example.org"));
        assert!(!same_address("", ""));
        assert!(!same_address("a@example.org", "b@example.org"));
        assert_eq!(domain_of("X@Example.ORG").as_deref(), Some("example.org"));
        assert_eq!(domain_of("nodomain"), None);
    }
}
