//! SMTP outbox: sends the exact bytes we stored for a message.
//!
//! Outgoing mail is rendered and committed to SQLite first; this module only
//! delivers those bytes, so a retry sends the identical message (same
//! Message-ID, same Date). The envelope (MAIL FROM / RCPT TO) is given
//! separately and is not read from the headers, so Bcc-style fan-out and
//! bounce addresses stay under the caller's control.
//!
//! Failures are split the way RFC 5321 4.2.1 splits reply codes: a 4xx or a
//! network failure is [`SendError::Transient`] (keep the message queued and
//! retry later); a 5xx is [`SendError::Permanent`] (retrying the same message
//! will fail the same way: record it and tell the umpire).

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use lettre::address::{Address, Envelope};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::transport::smtp::{AsyncSmtpTransport, PoolConfig};
use lettre::{AsyncTransport, Tokio1Executor};

use crate::config::{OutboxConfig, TlsMode};

/// Why a message was not sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Try again later: the server is unreachable, timed out, or answered
    /// 4xx (greylisting, a full queue, a restart).
    #[error("sending failed for now, will retry: {0}")]
    Transient(String),
    /// The server refused the message for good (5xx), or the message or an
    /// address is malformed. Retrying the same message will not help.
    #[error(
        "the mail server refused the message{}: {message}\n  hint: check the recipient address and the outbox settings",
        code.map(|c| format!(" with code {c}")).unwrap_or_default()
    )]
    Permanent { code: Option<u16>, message: String },
}

impl SendError {
    pub fn is_transient(&self) -> bool {
        matches!(self, SendError::Transient(_))
    }
}

/// A problem with the `[outbox]` settings, found before any mail is sent.
#[derive(Debug, thiserror::Error)]
pub enum SmtpConfigError {
    #[error("the outbox is configured as a Maildir, not SMTP; use the Maildir writer for it")]
    NotSmtp,
    #[error(
        "cannot read the SMTP password file {path}: {source}\n  hint: create it with the password on one line, readable by the adjutant user"
    )]
    PasswordFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("outbox.host {host:?} cannot be used for TLS: {message}")]
    Tls { host: String, message: String },
}

/// Sends raw messages through one SMTP server. Cheap to share: the
/// transport keeps a small connection pool, and a broken pooled connection
/// is replaced on the next send.
#[derive(Clone)]
pub struct SmtpOutbox {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    host: String,
    port: u16,
}

impl fmt::Debug for SmtpOutbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpOutbox")
            .field("host", &self.host)
            .field("port", &self.port)
            .finish()
    }
}

/// Everything needed to reach one SMTP server.
#[derive(Clone)]
pub struct SmtpSettings {
    pub host: String,
    pub port: u16,
    pub tls: TlsMode,
    pub credentials: Option<Credentials>,
    /// Bounds each network step, so a stalled server turns into a transient
    /// error instead of a hung daemon.
    pub timeout: Duration,
    /// Extra trusted root certificates (PEM), for a server with a private
    /// CA; the Mozilla roots are always trusted too.
    pub ca_file: Option<PathBuf>,
}

impl fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("auth", &self.credentials.is_some())
            .field("timeout", &self.timeout)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

impl SmtpSettings {
    /// Plain settings for `host:port` without auth, 60 s timeout, no CA file.
    pub fn new(host: &str, port: u16, tls: TlsMode) -> SmtpSettings {
        SmtpSettings {
            host: host.to_string(),
            port,
            tls,
            credentials: None,
            timeout: Duration::from_secs(60),
            ca_file: None,
        }
    }

    /// From the `[outbox]` table; reads the password file now so a missing
    /// file is reported at start-up, not at the first send.
    pub fn from_config(config: &OutboxConfig) -> Result<SmtpSettings, SmtpConfigError> {
        let OutboxConfig::Smtp {
            host,
            port,
            tls,
            user,
            password_file,
        } = config
        else {
            return Err(SmtpConfigError::NotSmtp);
        };
        let mut settings = SmtpSettings::new(host, *port, *tls);
        if let (Some(user), Some(path)) = (user, password_file) {
            let password = std::fs::read_to_string(path)
                .map_err(|source| SmtpConfigError::PasswordFile {
                    path: path.clone(),
                    source,
                })?
                .trim()
                .to_string();
            settings.credentials = Some(Credentials::new(user.clone(), password));
        }
        Ok(settings)
    }
}

impl SmtpOutbox {
    /// From the `[outbox]` table (see [`SmtpSettings::from_config`]).
    pub fn from_config(config: &OutboxConfig) -> Result<SmtpOutbox, SmtpConfigError> {
        SmtpOutbox::new(SmtpSettings::from_config(config)?)
    }

    pub fn new(settings: SmtpSettings) -> Result<SmtpOutbox, SmtpConfigError> {
        let host = settings.host.as_str();
        let tls_error = |message: String| SmtpConfigError::Tls {
            host: host.to_string(),
            message,
        };
        let tls_params = || {
            let mut builder = TlsParameters::builder(host.to_string());
            if let Some(path) = &settings.ca_file {
                let pem = std::fs::read(path).map_err(|e| {
                    tls_error(format!("cannot read CA file {}: {e}", path.display()))
                })?;
                let cert = Certificate::from_pem(&pem).map_err(|e| {
                    tls_error(format!("CA file {} is not valid PEM: {e}", path.display()))
                })?;
                builder = builder.add_root_certificate(cert);
            }
            builder.build().map_err(|e| tls_error(e.to_string()))
        };
        let mut builder =
            AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host).port(settings.port);
        builder = match settings.tls {
            TlsMode::Tls => builder.tls(Tls::Wrapper(tls_params()?)),
            TlsMode::Starttls => builder.tls(Tls::Required(tls_params()?)),
            TlsMode::None => builder.tls(Tls::None),
        };
        if let Some(credentials) = settings.credentials.clone() {
            builder = builder.credentials(credentials);
        }
        // Keep no idle connection open between flushes: the outbox sends in
        // bursts after a turn, and a connection left idle for minutes is
        // usually dropped by the server anyway.
        let pool = PoolConfig::new()
            .min_idle(0)
            .max_size(4)
            .idle_timeout(Duration::from_secs(30));
        let transport = builder
            .timeout(Some(settings.timeout))
            .pool_config(pool)
            .build::<Tokio1Executor>();
        Ok(SmtpOutbox {
            transport,
            host: settings.host.clone(),
            port: settings.port,
        })
    }

    /// Sends `raw` unchanged to `recipients`, with `envelope_from` as the
    /// return path (the address bounces go to).
    pub async fn send(
        &self,
        raw: &[u8],
        envelope_from: &str,
        recipients: &[&str],
    ) -> Result<(), SendError> {
        let envelope = build_envelope(envelope_from, recipients)?;
        let wire = data_payload(raw);
        match self.transport.send_raw(&envelope, &wire).await {
            Ok(response) => {
                tracing::debug!(
                    host = %self.host,
                    code = %response.code(),
                    recipients = recipients.len(),
                    "SMTP accepted message"
                );
                Ok(())
            }
            Err(e) => Err(classify(&e, &self.host, self.port)),
        }
    }
}

/// The bytes to hand to lettre's DATA phase so the server stores exactly
/// `raw`.
///
/// - RFC 5321 2.3.8 forbids bare LF on the wire, and lettre's dot-stuffing
///   only recognises CRLF line starts, so a bare LF becomes CRLF (a no-op for
///   well-formed mail, which is what we render).
/// - lettre always ends DATA with `CRLF.CRLF`, whose first CRLF ends the last
///   line (RFC 5321 4.1.1.4); one trailing CRLF of the message is dropped so
///   the stored message does not gain an empty line.
pub fn data_payload(raw: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let has_bare_lf = raw
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'\n' && (i == 0 || raw.get(i - 1) != Some(&b'\r')));
    let mut out: std::borrow::Cow<'_, [u8]> = if has_bare_lf {
        let mut v = Vec::with_capacity(raw.len() + 64);
        let mut prev = 0u8;
        for &b in raw {
            if b == b'\n' && prev != b'\r' {
                v.push(b'\r');
            }
            v.push(b);
            prev = b;
        }
        std::borrow::Cow::Owned(v)
    } else {
        std::borrow::Cow::Borrowed(raw)
    };
    if out.ends_with(b"\r\n") {
        let keep = out.len() - 2;
        match &mut out {
            std::borrow::Cow::Borrowed(b) => *b = &b[..keep],
            std::borrow::Cow::Owned(v) => v.truncate(keep),
        }
    }
    out
}

fn build_envelope(from: &str, recipients: &[&str]) -> Result<Envelope, SendError> {
    let parse = |role: &str, s: &str| {
        s.parse::<Address>().map_err(|e| SendError::Permanent {
            code: None,
            message: format!("{role} address {s:?} is not valid: {e}"),
        })
    };
    let from = parse("sender", from)?;
    let to = recipients
        .iter()
        .map(|r| parse("recipient", r))
        .collect::<Result<Vec<_>, _>>()?;
    Envelope::new(Some(from), to).map_err(|e| SendError::Permanent {
        code: None,
        message: format!("cannot build the envelope: {e}"),
    })
}

/// Maps lettre's error to our two kinds (RFC 5321 4.2.1: 4yz transient,
/// 5yz permanent). Anything without a reply code (refused connection, TLS
/// handshake cut short, timeout) is treated as transient: the message stays
/// queued and the operator sees the error in the log.
fn classify(e: &lettre::transport::smtp::Error, host: &str, port: u16) -> SendError {
    let text = describe(e);
    if e.is_permanent() {
        SendError::Permanent {
            code: e.status().map(u16::from),
            message: text,
        }
    } else {
        SendError::Transient(format!("SMTP server {host}:{port}: {text}"))
    }
}

/// The error with all its sources, so the server's own words reach the log.
fn describe(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_payload_drops_the_final_crlf_that_lettre_adds_back() {
        assert_eq!(&*data_payload(b"A: b\r\n\r\nbody\r\n"), b"A: b\r\n\r\nbody");
        assert_eq!(&*data_payload(b"A: b\r\n\r\nbody"), b"A: b\r\n\r\nbody");
    }

    #[test]
    fn data_payload_turns_bare_lf_into_crlf() {
        assert_eq!(
            &*data_payload(b"A: b\n\n.dot\r\nx\n"),
            b"A: b\r\n\r\n.dot\r\nx"
        );
    }

    #[test]
    fn bad_addresses_are_permanent() {
        let err = build_envelope("not an address", &["a@example.test"]).unwrap_err();
        assert!(
            matches!(err, SendError::Permanent { code: None, .. }),
            "{err}"
        );
        let err = build_envelope("adjutant@example.test", &[]).unwrap_err();
        assert!(!err.is_transient(), "{err}");
    }

    #[test]
    fn maildir_outbox_is_not_smtp() {
        let cfg = OutboxConfig::Maildir {
            path: PathBuf::from("out"),
        };
        assert!(matches!(
            SmtpOutbox::from_config(&cfg),
            Err(SmtpConfigError::NotSmtp)
        ));
    }

    #[test]
    fn missing_password_file_is_reported_with_its_path() {
        let cfg = OutboxConfig::Smtp {
            host: "localhost".into(),
            port: 587,
            tls: TlsMode::Starttls,
            user: Some("judge".into()),
            password_file: Some(PathBuf::from("/nonexistent/smtp.pw")),
        };
        let msg = SmtpOutbox::from_config(&cfg).unwrap_err().to_string();
        assert!(msg.contains("/nonexistent/smtp.pw"), "{msg}");
    }

    #[tokio::test]
    async fn refused_connection_is_transient() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut settings = SmtpSettings::new("127.0.0.1", port, TlsMode::None);
        settings.timeout = Duration::from_secs(5);
        let outbox = SmtpOutbox::new(settings).unwrap();
        let err = outbox
            .send(
                b"Subject: x\r\n\r\nbody\r\n",
                "adjutant@example.test",
                &["alice@example.test"],
            )
            .await
            .unwrap_err();
        assert!(err.is_transient(), "{err}");
    }
}
