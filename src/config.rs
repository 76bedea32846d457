//! The daemon's configuration: one TOML file, read with serde and then
//! validated so that a mistake names the key, the value and what was expected.
//!
//! The embedded default (`config.example.toml`, compiled in) needs no server:
//! SQLite, a Maildir inbox and a Maildir outbox under `./var/`. Relative paths
//! are resolved against the directory of the file they were read from, so a
//! game directory made by `adjutant demo --dir DIR` works from anywhere.

use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// The text of `config.example.toml`, used when no `--config` is given.
pub const EMBEDDED_DEFAULT: &str = include_str!("../config.example.toml");

/// A configuration problem the operator must fix. Every variant says where.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "cannot read config file {path}: {source}\n  hint: pass an existing file with --config PATH or ADJUTANT_CONFIG, or omit both to use the built-in default"
    )]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {origin} is not valid: {message}")]
    Parse { origin: String, message: String },
    #[error("config file {origin}: key `{key}` has value {value}, but {expected}")]
    Invalid {
        origin: String,
        key: String,
        value: String,
        expected: String,
    },
}

/// TLS mode for IMAP and SMTP connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TlsMode {
    /// TLS from the first byte (IMAPS 993, SMTPS 465).
    Tls,
    /// Plain connection upgraded with STARTTLS.
    Starttls,
    /// No encryption; only sensible on loopback, e.g. in tests.
    None,
}

/// Where inbound mail is read from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum InboxConfig {
    Maildir {
        path: PathBuf,
    },
    Imap {
        host: String,
        port: u16,
        tls: TlsMode,
        user: String,
        password_file: PathBuf,
        #[serde(default = "default_folder")]
        folder: String,
    },
}

/// Where outbound mail goes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum OutboxConfig {
    Maildir {
        path: PathBuf,
    },
    Smtp {
        host: String,
        port: u16,
        tls: TlsMode,
        #[serde(default)]
        user: Option<String>,
        #[serde(default)]
        password_file: Option<PathBuf>,
    },
}

fn default_folder() -> String {
    "INBOX".to_string()
}

/// Size limits for one inbound mail. Mail over a limit is still parsed as
/// far as is safe and reported through `mail::parse::InboundParsed::over_limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Limits {
    /// Raw size above which the body is not decoded at all (headers are).
    pub max_bytes: usize,
    /// Lines of cleaned order text kept; the rest is dropped.
    pub max_lines: usize,
}

impl Default for Limits {
    /// 10 MiB covers a phone photo attached by mistake; 500 lines is far
    /// more than a brigade's orders for a turn.
    fn default() -> Self {
        Limits {
            max_bytes: 10 * 1024 * 1024,
            max_lines: 500,
        }
    }
}

/// The validated configuration. Paths in it are already absolute or resolved
/// against the config file's directory.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub database: PathBuf,
    pub game_master: String,
    pub poll_interval_secs: u64,
    pub log_level: String,
    pub inbox: InboxConfig,
    pub outbox: OutboxConfig,
    /// File holding the reply-token key (64 hex characters = 32 bytes).
    /// `adjutant run` creates it (mode 0600) when missing. Keep it secret
    /// and stable: a new key invalidates every reply token in flight.
    #[serde(default = "default_server_key_file")]
    pub server_key_file: PathBuf,
    /// Domain of every Message-ID we generate. A dedicated subdomain means
    /// no player's own mail can ever look like ours. Default:
    /// `adjutant.<domain of game_master>`; see [`Config::message_id_domain`].
    #[serde(default)]
    pub message_id_domain: Option<String>,
    /// Further addresses that are ours (besides `game_master`): mail from
    /// them is never answered, so two robots cannot talk to each other.
    #[serde(default)]
    pub our_addresses: Vec<String>,
    /// Size limits for one inbound mail (`[limits] max_bytes, max_lines`).
    #[serde(default)]
    pub limits: Limits,
    /// At most one refusal ("mail not accepted") per registered address in
    /// this many seconds; 0 answers every refused mail. Every refused mail
    /// is still stored and audited; only the answers are throttled, so a
    /// flood of forged mail does not become a flood to its victim.
    #[serde(default = "default_refusal_interval_secs")]
    pub refusal_interval_secs: u64,
}

/// One hour: the player learns of an attempt the same hour, and a forger
/// can make us write to him at most 24 times a day.
pub const DEFAULT_REFUSAL_INTERVAL_SECS: u64 = 3600;

fn default_refusal_interval_secs() -> u64 {
    DEFAULT_REFUSAL_INTERVAL_SECS
}

fn default_server_key_file() -> PathBuf {
    PathBuf::from("var/server.key")
}

const LOG_LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];

impl Config {
    /// The domain for our Message-IDs: `message_id_domain`, else
    /// `adjutant.` + the domain of `game_master`.
    pub fn message_id_domain(&self) -> String {
        match &self.message_id_domain {
            Some(d) => d.trim().to_string(),
            None => {
                let domain = self
                    .game_master
                    .rsplit_once('@')
                    .map(|(_, d)| d)
                    .unwrap_or("localhost");
                format!("adjutant.{domain}")
            }
        }
    }

    /// Every address that is ours: `game_master` first, then `our_addresses`.
    pub fn our_addresses(&self) -> Vec<String> {
        std::iter::once(self.game_master.clone())
            .chain(self.our_addresses.iter().cloned())
            .collect()
    }

    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let base = path.parent().unwrap_or_else(|| Path::new("."));
        Config::parse(&text, &path.display().to_string(), base)
    }

    /// The embedded default, with relative paths resolved against `base`
    /// (normally the current directory).
    pub fn embedded(base: &Path) -> Config {
        // The embedded file is part of the binary and covered by tests, so a
        // failure here is a build defect, not input.
        Config::parse(EMBEDDED_DEFAULT, "<built-in default>", base)
            .expect("the embedded config.example.toml is valid")
    }

    /// Parses `text` (named `origin` in messages) and resolves relative paths
    /// against `base`.
    pub fn parse(text: &str, origin: &str, base: &Path) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            origin: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        config.validate(origin)?;
        config.resolve_paths(base);
        Ok(config)
    }

    fn validate(&self, origin: &str) -> Result<(), ConfigError> {
        let invalid = |key: &str, value: &dyn fmt::Debug, expected: &str| ConfigError::Invalid {
            origin: origin.to_string(),
            key: key.to_string(),
            value: format!("{value:?}"),
            expected: expected.to_string(),
        };
        if self.database.as_os_str().is_empty() {
            return Err(invalid("database", &self.database, "expected a file path"));
        }
        if !is_plausible_address(&self.game_master) {
            return Err(invalid(
                "game_master",
                &self.game_master,
                "expected a mail address such as adjutant@example.org",
            ));
        }
        if self.poll_interval_secs == 0 || self.poll_interval_secs > 86_400 {
            return Err(invalid(
                "poll_interval_secs",
                &self.poll_interval_secs,
                "expected a number of seconds from 1 to 86400",
            ));
        }
        if self.refusal_interval_secs > 7 * 86_400 {
            return Err(invalid(
                "refusal_interval_secs",
                &self.refusal_interval_secs,
                "expected a number of seconds from 0 (no throttling) to 604800 (a week)",
            ));
        }
        if !LOG_LEVELS.contains(&self.log_level.as_str()) {
            return Err(invalid(
                "log_level",
                &self.log_level,
                "expected one of error, warn, info, debug, trace",
            ));
        }
        if self.server_key_file.as_os_str().is_empty() {
            return Err(invalid(
                "server_key_file",
                &self.server_key_file,
                "expected a file path",
            ));
        }
        if let Some(d) = &self.message_id_domain {
            let d = d.trim();
            let ok = !d.is_empty()
                && d.contains('.')
                && d.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
            if !ok {
                return Err(invalid(
                    "message_id_domain",
                    &d,
                    "expected a domain name such as adjutant.example.org",
                ));
            }
        }
        if let Some(bad) = self.our_addresses.iter().find(|a| !is_plausible_address(a)) {
            return Err(invalid(
                "our_addresses",
                bad,
                "expected mail addresses such as umpire@example.org",
            ));
        }
        if self.limits.max_bytes < 1024 || self.limits.max_lines == 0 {
            return Err(invalid(
                "limits",
                &self.limits,
                "expected max_bytes of at least 1024 and max_lines of at least 1",
            ));
        }
        match &self.inbox {
            InboxConfig::Maildir { path } if path.as_os_str().is_empty() => {
                return Err(invalid("inbox.path", path, "expected a directory path"));
            }
            InboxConfig::Imap {
                host, port, folder, ..
            } => {
                if host.is_empty() {
                    return Err(invalid("inbox.host", host, "expected a host name"));
                }
                if *port == 0 {
                    return Err(invalid(
                        "inbox.port",
                        port,
                        "expected a port from 1 to 65535",
                    ));
                }
                if folder.is_empty() {
                    return Err(invalid("inbox.folder", folder, "expected a folder name"));
                }
            }
            InboxConfig::Maildir { .. } => {}
        }
        match &self.outbox {
            OutboxConfig::Maildir { path } if path.as_os_str().is_empty() => {
                return Err(invalid("outbox.path", path, "expected a directory path"));
            }
            OutboxConfig::Smtp {
                host,
                port,
                user,
                password_file,
                ..
            } => {
                if host.is_empty() {
                    return Err(invalid("outbox.host", host, "expected a host name"));
                }
                if *port == 0 {
                    return Err(invalid(
                        "outbox.port",
                        port,
                        "expected a port from 1 to 65535",
                    ));
                }
                if user.is_some() != password_file.is_some() {
                    return Err(invalid(
                        "outbox.user",
                        user,
                        "user and password_file must be given together (or neither)",
                    ));
                }
            }
            OutboxConfig::Maildir { .. } => {}
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        let resolve = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        resolve(&mut self.database);
        resolve(&mut self.server_key_file);
        match &mut self.inbox {
            InboxConfig::Maildir { path } => resolve(path),
            InboxConfig::Imap { password_file, .. } => resolve(password_file),
        }
        match &mut self.outbox {
            OutboxConfig::Maildir { path } => resolve(path),
            OutboxConfig::Smtp { password_file, .. } => {
                if let Some(p) = password_file {
                    resolve(p)
                }
            }
        }
    }
}

/// A cheap sanity check, not RFC 5322 validation: one `@` with text on both
/// sides and no whitespace.
pub fn is_plausible_address(s: &str) -> bool {
    match s.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !s.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_default_is_valid_and_needs_no_server() {
        let c = Config::embedded(Path::new("/srv/game"));
        assert_eq!(c.database, PathBuf::from("/srv/game/var/adjutant.db"));
        assert!(matches!(c.inbox, InboxConfig::Maildir { .. }));
        assert!(matches!(c.outbox, OutboxConfig::Maildir { .. }));
        assert_eq!(c.server_key_file, PathBuf::from("/srv/game/var/server.key"));
        assert_eq!(c.message_id_domain(), "adjutant.example.test");
        assert_eq!(c.our_addresses(), vec!["adjutant@example.test".to_string()]);
        assert_eq!(c.limits, Limits::default());
    }

    #[test]
    fn intake_keys_default_when_absent_and_are_checked() {
        let text = r#"
database = "a.db"
game_master = "judge@example.org"
poll_interval_secs = 60
log_level = "info"
[inbox]
kind = "maildir"
path = "in"
[outbox]
kind = "maildir"
path = "out"
"#;
        let c = Config::parse(text, "x.toml", Path::new("/g")).unwrap();
        assert_eq!(c.server_key_file, PathBuf::from("/g/var/server.key"));
        assert_eq!(c.refusal_interval_secs, DEFAULT_REFUSAL_INTERVAL_SECS);
        let bad = format!("refusal_interval_secs = 99999999\n{text}");
        let msg = Config::parse(&bad, "x.toml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("refusal_interval_secs"), "{msg}");
        assert_eq!(c.message_id_domain(), "adjutant.example.org");
        let bad = format!("message_id_domain = \"not a domain\"\n{text}");
        let msg = Config::parse(&bad, "x.toml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("message_id_domain"), "{msg}");
        let bad = format!("{text}[limits]\nmax_bytes = 10\nmax_lines = 5\n");
        let msg = Config::parse(&bad, "x.toml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("limits"), "{msg}");
    }

    #[test]
    fn bad_value_names_key_value_and_expectation() {
        let text = EMBEDDED_DEFAULT.replace("log_level = \"info\"", "log_level = \"loud\"");
        let err = Config::parse(&text, "x.toml", Path::new(".")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("log_level"), "{msg}");
        assert!(msg.contains("\"loud\""), "{msg}");
        assert!(msg.contains("expected one of"), "{msg}");
    }

    #[test]
    fn wrong_type_names_the_key_and_line() {
        let text =
            EMBEDDED_DEFAULT.replace("poll_interval_secs = 30", "poll_interval_secs = \"often\"");
        let msg = Config::parse(&text, "x.toml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("poll_interval_secs"), "{msg}");
        assert!(msg.contains("line"), "{msg}");
    }

    #[test]
    fn unknown_key_is_refused() {
        let text = format!("{EMBEDDED_DEFAULT}\n[extra]\nfoo = 1\n");
        let msg = Config::parse(&text, "x.toml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("extra"), "{msg}");
    }

    #[test]
    fn imap_and_smtp_parse() {
        let text = r#"
database = "/var/lib/adjutant/adjutant.db"
game_master = "judge@example.org"
poll_interval_secs = 60
log_level = "debug"
[inbox]
kind = "imap"
host = "imap.example.org"
port = 993
tls = "tls"
user = "judge"
password_file = "imap.pw"
[outbox]
kind = "smtp"
host = "smtp.example.org"
port = 587
tls = "starttls"
user = "judge"
password_file = "smtp.pw"
"#;
        let c = Config::parse(text, "x.toml", Path::new("/etc/adjutant")).unwrap();
        match c.inbox {
            InboxConfig::Imap {
                folder,
                password_file,
                ..
            } => {
                assert_eq!(folder, "INBOX");
                assert_eq!(password_file, PathBuf::from("/etc/adjutant/imap.pw"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            c.outbox,
            OutboxConfig::Smtp {
                tls: TlsMode::Starttls,
                ..
            }
        ));
    }

    #[test]
    fn zero_port_is_refused() {
        let text = r#"
database = "a.db"
game_master = "judge@example.org"
poll_interval_secs = 60
log_level = "info"
[inbox]
kind = "maildir"
path = "in"
[outbox]
kind = "smtp"
host = "localhost"
port = 0
tls = "none"
"#;
        let msg = Config::parse(text, "x.toml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("outbox.port"), "{msg}");
    }
}
