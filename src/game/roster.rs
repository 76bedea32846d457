//! Who plays a game: the organiser's roster, kept apart from the scenario
//! so a historical scenario is reused unchanged for every real game. The
//! scenario names the players' commands (and example addresses); the
//! roster, given to `game create` as a small TOML file (`--roster FILE`)
//! or as flags (`--player NAME=ADDRESS[,ZONE]`), fills in each player's
//! real mail addresses and time zone.
//!
//! ```toml
//! [[players]]
//! name = "Gibbon"
//! addresses = ["john@example.org"]      # or: address = "john@example.org"
//! time_zone = "Europe/London"           # optional
//! ```

use crate::scenario::Scenario;
use serde::Deserialize;
use std::path::Path;

/// A roster that cannot be used, and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum RosterError {
    #[error("cannot read the roster {path}: {source}")]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("the roster {path} is not valid TOML of the roster's form: {problem}")]
    Toml { path: String, problem: String },
    #[error(
        "`{0}` is not a player entry; write `--player NAME=ADDRESS` or `--player NAME=ADDRESS,ZONE`, e.g. `--player Gibbon=john@example.org,Europe/London`"
    )]
    BadFlag(String),
    #[error("the scenario has no player `{name}`{hint}; its players are {players}")]
    UnknownPlayer {
        name: String,
        hint: String,
        players: String,
    },
    #[error("player `{0}` is given twice in the roster")]
    Twice(String),
    #[error("player `{name}`: `{address}` is not a mail address (write e.g. john@example.org)")]
    BadAddress { name: String, address: String },
    #[error("player `{0}` has no mail address in the roster")]
    NoAddress(String),
    #[error(
        "the address {address} is given to both {first} and {second}; each player needs his own"
    )]
    SharedAddress {
        address: String,
        first: String,
        second: String,
    },
    #[error("player `{name}`: {problem}")]
    Zone {
        name: String,
        problem: crate::zones::UnknownZone,
    },
}

/// One player's real addresses and time zone.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RosterEntry {
    pub name: String,
    #[serde(default)]
    pub addresses: Vec<String>,
    /// One address, for the common case (added before `addresses`).
    #[serde(default)]
    pub address: Option<String>,
    #[serde(default)]
    pub time_zone: Option<String>,
}

impl RosterEntry {
    fn all_addresses(&self) -> Vec<String> {
        self.address
            .iter()
            .chain(&self.addresses)
            .map(|a| a.trim().to_string())
            .collect()
    }
}

/// The players of one game.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Roster {
    #[serde(default)]
    pub players: Vec<RosterEntry>,
}

impl Roster {
    pub fn is_empty(&self) -> bool {
        self.players.is_empty()
    }

    /// A roster file (see the module doc).
    pub fn from_file(path: &Path) -> Result<Roster, RosterError> {
        let text = std::fs::read_to_string(path).map_err(|source| RosterError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Roster::from_toml(&text, &path.display().to_string())
    }

    pub fn from_toml(text: &str, origin: &str) -> Result<Roster, RosterError> {
        toml::from_str(text).map_err(|e| RosterError::Toml {
            path: origin.to_string(),
            problem: e.to_string(),
        })
    }

    /// Adds one `NAME=ADDRESS[,ZONE]` flag.
    pub fn add_flag(&mut self, flag: &str) -> Result<(), RosterError> {
        let bad = || RosterError::BadFlag(flag.to_string());
        let (name, rest) = flag.split_once('=').ok_or_else(bad)?;
        let (address, zone) = match rest.split_once(',') {
            Some((a, z)) => (a.trim(), Some(z.trim().to_string())),
            None => (rest.trim(), None),
        };
        if name.trim().is_empty() || address.is_empty() {
            return Err(bad());
        }
        self.players.push(RosterEntry {
            name: name.trim().to_string(),
            addresses: vec![address.to_string()],
            address: None,
            time_zone: zone.filter(|z| !z.is_empty()),
        });
        Ok(())
    }

    /// Fills the scenario's players from the roster. Returns the names of
    /// the scenario's players the roster did not mention (they keep the
    /// scenario's addresses; the organiser is told).
    pub fn apply(&self, s: &mut Scenario) -> Result<Vec<String>, RosterError> {
        let mut seen: Vec<&str> = Vec::new();
        for entry in &self.players {
            let name = entry.name.trim();
            if seen.iter().any(|n| n.eq_ignore_ascii_case(name)) {
                return Err(RosterError::Twice(name.to_string()));
            }
            seen.push(name);
            let names: Vec<String> = s.players.iter().map(|p| p.name.clone()).collect();
            let Some(player) = s
                .players
                .iter_mut()
                .find(|p| p.name.eq_ignore_ascii_case(name))
            else {
                let hint = names
                    .iter()
                    .map(|n| {
                        (
                            strsim::damerau_levenshtein(&n.to_lowercase(), &name.to_lowercase()),
                            n,
                        )
                    })
                    .filter(|(d, _)| *d <= 2)
                    .min()
                    .map(|(_, n)| format!(" (did you mean {n}?)"))
                    .unwrap_or_default();
                return Err(RosterError::UnknownPlayer {
                    name: name.to_string(),
                    hint,
                    players: names.join(", "),
                });
            };
            let addresses = entry.all_addresses();
            if addresses.is_empty() {
                return Err(RosterError::NoAddress(player.name.clone()));
            }
            if let Some(bad) = addresses.iter().find(|a| !looks_like_address(a)) {
                return Err(RosterError::BadAddress {
                    name: player.name.clone(),
                    address: bad.clone(),
                });
            }
            if let Some(z) = &entry.time_zone {
                crate::zones::check(z).map_err(|problem| RosterError::Zone {
                    name: player.name.clone(),
                    problem,
                })?;
                player.time_zone = Some(z.trim().to_string());
            }
            player.addresses = addresses;
        }
        // Addresses identify players: no two may share one.
        for (i, a) in s.players.iter().enumerate() {
            for b in s.players.iter().skip(i + 1) {
                if let Some(shared) = a
                    .addresses
                    .iter()
                    .find(|x| b.addresses.iter().any(|y| y.eq_ignore_ascii_case(x)))
                {
                    return Err(RosterError::SharedAddress {
                        address: shared.clone(),
                        first: a.name.clone(),
                        second: b.name.clone(),
                    });
                }
            }
        }
        Ok(s.players
            .iter()
            .filter(|p| !seen.iter().any(|n| n.eq_ignore_ascii_case(&p.name)))
            .map(|p| p.name.clone())
            .collect())
    }
}

fn looks_like_address(a: &str) -> bool {
    match a.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.contains('@')
                && !a.contains(char::is_whitespace)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn training() -> Scenario {
        let text = include_str!("../../scenarios/training.toml");
        Scenario::from_toml_str(text, "training.toml").unwrap()
    }

    #[test]
    fn flags_and_files_fill_the_named_players_only() {
        let mut s = training();
        let first = s.players[0].name.clone();
        let mut r = Roster::default();
        r.add_flag(&format!(
            "{}=real@example.org,Europe/London",
            first.to_lowercase()
        ))
        .unwrap();
        let untouched = r.apply(&mut s).unwrap();
        assert_eq!(s.players[0].addresses, vec!["real@example.org".to_string()]);
        assert_eq!(s.players[0].time_zone.as_deref(), Some("Europe/London"));
        assert_eq!(untouched.len(), s.players.len() - 1);

        let file = format!(
            "[[players]]\nname = \"{first}\"\naddress = \"a@example.org\"\naddresses = [\"b@example.org\"]\n"
        );
        let mut s = training();
        Roster::from_toml(&file, "r.toml")
            .unwrap()
            .apply(&mut s)
            .unwrap();
        assert_eq!(s.players[0].addresses.len(), 2);
    }

    #[test]
    fn mistakes_are_refused_with_what_to_do() {
        let mut s = training();
        let first = s.players[0].name.clone();
        let mut r = Roster::default();
        r.add_flag(&format!("{first}x=a@example.org")).unwrap();
        let e = r.apply(&mut s).unwrap_err().to_string();
        assert!(e.contains("did you mean"), "{e}");

        let mut r = Roster::default();
        r.add_flag(&format!("{first}=a@example.org,Europe/Londn"))
            .unwrap();
        let e = r.apply(&mut training()).unwrap_err().to_string();
        assert!(e.contains("Europe/London"), "{e}");

        assert!(Roster::default().add_flag("no-equals-sign").is_err());
        let mut r = Roster::default();
        r.add_flag(&format!("{first}=not-an-address")).unwrap();
        assert!(r.apply(&mut training()).is_err());

        let second = s.players[1].name.clone();
        let mut r = Roster::default();
        r.add_flag(&format!("{first}=same@example.org")).unwrap();
        r.add_flag(&format!("{second}=same@example.org")).unwrap();
        let e = r.apply(&mut training()).unwrap_err().to_string();
        assert!(e.contains("each player needs his own"), "{e}");
    }
}
