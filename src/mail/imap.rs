//! IMAP intake: reads the game mailbox by UID.
//!
//! The contract with the caller (the daemon) is built so that no mail is lost
//! or read twice across crashes, restarts and server outages:
//!
//! 1. [`ImapInbox::fetch_since`] returns every message whose UID is above the
//!    last one the caller committed, each stamped with the UIDVALIDITY it was
//!    read under. It uses `BODY.PEEK[]`, so reading never changes the mailbox.
//! 2. The caller commits the bytes and `(uid_validity, uid)` to SQLite.
//! 3. Only then does it call [`ImapInbox::mark_processed`], which sets
//!    `\Seen` (and optionally moves the message). A crash between 2 and 3
//!    merely leaves a message unseen; it is not fetched again because the
//!    caller asks for UIDs above the committed one.
//!
//! If the UIDVALIDITY the caller stored differs from [`ImapInbox::uid_validity`]
//! the server has renumbered the folder, and the caller must restart from
//! UID 0 (deduplicating by Message-ID or content hash).
//!
//! IDLE ([`ImapInbox::wait_for_change`]) is only a wake-up: it never says
//! *what* arrived, the caller always fetches by UID afterwards. Servers
//! without IDLE are polled instead.
//!
//! The intended daemon loop (errors: transient → `connect_with_backoff`,
//! permanent → stop and report):
//!
//! ```text
//! let mut inbox = ImapInbox::from_config(&config.inbox)?;
//! loop {
//!     let validity = inbox.connect_with_backoff(None).await?;
//!     let (stored_validity, mut last) = store.imap_position()?;
//!     if stored_validity != Some(validity) { last = 0; }   // folder renumbered
//!     let mails = inbox.fetch_since(last).await?;
//!     store.commit_raw_and_position(&mails)?;   // SQLite first, one transaction
//!     for mail in &mails {
//!         inbox.mark_processed(mail.uid).await?;  // then \Seen
//!     }
//!     inbox.wait_for_change(poll_interval).await?;  // inside select! with shutdown
//! }
//! ```

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use async_imap::types::UnsolicitedResponse;
use async_imap::{Client, Session};
use futures_util::TryStreamExt;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls;

use crate::config::{InboxConfig, TlsMode};

/// RFC 2177 asks clients to re-issue IDLE at least every 29 minutes.
const MAX_IDLE: Duration = Duration::from_secs(29 * 60);

/// Why an IMAP operation failed. [`ImapError::is_transient`] tells the caller
/// whether to retry (with [`Backoff`]) or to stop and tell the operator.
#[derive(Debug, thiserror::Error)]
pub enum ImapError {
    #[error(
        "cannot read the IMAP password file {path}: {source}\n  hint: create it with the password on one line, readable by the adjutant user"
    )]
    PasswordFile { path: PathBuf, source: io::Error },
    #[error("the inbox is configured as a Maildir, not IMAP; use the Maildir reader for it")]
    NotImap,
    #[error(
        "cannot connect to IMAP server {host}:{port}: {source}\n  hint: check inbox.host and inbox.port and that the server is up; adjutant retries"
    )]
    Connect {
        host: String,
        port: u16,
        source: io::Error,
    },
    #[error(
        "TLS with IMAP server {host} failed: {message}\n  hint: check inbox.tls (tls for port 993, starttls for 143) and the server certificate"
    )]
    Tls {
        host: String,
        message: String,
        transient: bool,
    },
    #[error(
        "IMAP server {host} refused login for user {user}: {message}\n  hint: check inbox.user and the password in {password_file}"
    )]
    Auth {
        host: String,
        user: String,
        password_file: PathBuf,
        message: String,
    },
    #[error("IMAP server {host} answered {context} with an error: {message}")]
    Protocol {
        host: String,
        context: String,
        message: String,
        transient: bool,
    },
    #[error("IMAP connection to {host} failed during {context}: {source}; adjutant reconnects")]
    Io {
        host: String,
        context: String,
        source: io::Error,
    },
}

impl ImapError {
    /// True when retrying later may succeed (network trouble, a server
    /// restart); false when the operator must change something (a wrong
    /// password, a missing folder, an unreadable password file).
    pub fn is_transient(&self) -> bool {
        match self {
            ImapError::Connect { .. } | ImapError::Io { .. } => true,
            ImapError::Tls { transient, .. } | ImapError::Protocol { transient, .. } => *transient,
            ImapError::PasswordFile { .. } | ImapError::NotImap | ImapError::Auth { .. } => false,
        }
    }
}

/// Exponential backoff for reconnects: `initial`, doubled per failure, never
/// above `max`. Reset after a success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub initial: Duration,
    pub max: Duration,
    current: Duration,
}

impl Backoff {
    pub fn new(initial: Duration, max: Duration) -> Backoff {
        let initial = initial.max(Duration::from_millis(1));
        Backoff {
            initial,
            max: max.max(initial),
            current: initial,
        }
    }

    /// The delay to wait now; the next call returns twice as much (capped).
    pub fn next_delay(&mut self) -> Duration {
        let delay = self.current;
        self.current = self.current.saturating_mul(2).min(self.max);
        delay
    }

    pub fn reset(&mut self) {
        self.current = self.initial;
    }
}

impl Default for Backoff {
    /// 1 s doubling to 5 min: quick recovery from a server restart, and no
    /// hammering of a server that is down for maintenance.
    fn default() -> Backoff {
        Backoff::new(Duration::from_secs(1), Duration::from_secs(300))
    }
}

/// Everything needed to talk to one IMAP folder.
#[derive(Clone)]
pub struct ImapSettings {
    pub host: String,
    pub port: u16,
    pub tls: TlsMode,
    pub user: String,
    pub password: String,
    /// Only used in messages, so the operator knows which file to fix.
    pub password_file: PathBuf,
    pub folder: String,
    /// If set, processed messages are moved (MOVE) or copied (COPY, when the
    /// server lacks MOVE) there after `\Seen` is set.
    pub processed_folder: Option<String>,
    /// Upper bound for any one command, so a half-dead connection cannot
    /// hang the daemon.
    pub command_timeout: Duration,
    pub backoff: Backoff,
    /// Extra trusted root certificates (PEM), for a server with a private
    /// CA; the Mozilla roots are always trusted too.
    pub ca_file: Option<PathBuf>,
}

impl fmt::Debug for ImapSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .field("password_file", &self.password_file)
            .field("folder", &self.folder)
            .field("processed_folder", &self.processed_folder)
            .field("command_timeout", &self.command_timeout)
            .field("backoff", &self.backoff)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

impl ImapSettings {
    /// Builds settings from the `[inbox]` table, reading the password file.
    pub fn from_config(config: &InboxConfig) -> Result<ImapSettings, ImapError> {
        match config {
            InboxConfig::Imap {
                host,
                port,
                tls,
                user,
                password_file,
                folder,
            } => Ok(ImapSettings {
                host: host.clone(),
                port: *port,
                tls: *tls,
                user: user.clone(),
                password: read_password(password_file)?,
                password_file: password_file.clone(),
                folder: folder.clone(),
                processed_folder: None,
                command_timeout: Duration::from_secs(120),
                backoff: Backoff::default(),
                ca_file: None,
            }),
            InboxConfig::Maildir { .. } => Err(ImapError::NotImap),
        }
    }
}

/// Reads a password file; surrounding whitespace (the trailing newline an
/// editor adds) is not part of the password.
pub fn read_password(path: &Path) -> Result<String, ImapError> {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .map_err(|source| ImapError::PasswordFile {
            path: path.to_path_buf(),
            source,
        })
}

/// One message as stored on the server, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedMail {
    /// The UIDVALIDITY the UID belongs to; store the pair together.
    pub uid_validity: u32,
    pub uid: u32,
    pub bytes: Vec<u8>,
}

/// What ended a [`ImapInbox::wait_for_change`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wakeup {
    /// The server reported a change (new mail, most likely): fetch now.
    Changed,
    /// Nothing was reported within the timeout (or the server has no IDLE):
    /// fetch anyway, as a poll.
    Timeout,
}

/// A connected-on-demand reader for one IMAP folder. Every operation
/// connects if needed; a transient failure drops the connection so the next
/// call starts afresh.
pub struct ImapInbox {
    settings: ImapSettings,
    session: Option<Session<NetStream>>,
    uid_validity: Option<u32>,
    has_idle: bool,
    has_move: bool,
}

impl fmt::Debug for ImapInbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapInbox")
            .field("settings", &self.settings)
            .field("connected", &self.session.is_some())
            .field("uid_validity", &self.uid_validity)
            .finish()
    }
}

impl ImapInbox {
    pub fn new(settings: ImapSettings) -> ImapInbox {
        ImapInbox {
            settings,
            session: None,
            uid_validity: None,
            has_idle: false,
            has_move: false,
        }
    }

    /// From the `[inbox]` table (reads the password file now, so a missing
    /// file is reported at start-up).
    pub fn from_config(config: &InboxConfig) -> Result<ImapInbox, ImapError> {
        Ok(ImapInbox::new(ImapSettings::from_config(config)?))
    }

    pub fn settings(&self) -> &ImapSettings {
        &self.settings
    }

    pub fn is_connected(&self) -> bool {
        self.session.is_some()
    }

    /// The folder's UIDVALIDITY as of the last SELECT, `None` before the
    /// first connection.
    pub fn uid_validity(&self) -> Option<u32> {
        self.uid_validity
    }

    /// Connects, logs in and selects the folder unless already connected.
    /// Returns the UIDVALIDITY.
    pub async fn connect(&mut self) -> Result<u32, ImapError> {
        if let (Some(_), Some(v)) = (&self.session, self.uid_validity) {
            return Ok(v);
        }
        self.session = None;
        let limit = self.settings.command_timeout;
        let result = with_limit(
            &self.settings.host,
            "connect",
            limit,
            open_session(&self.settings),
        )
        .await;
        let (session, validity, has_idle, has_move) = result?;
        self.session = Some(session);
        self.uid_validity = Some(validity);
        self.has_idle = has_idle;
        self.has_move = has_move;
        tracing::info!(
            host = %self.settings.host,
            folder = %self.settings.folder,
            uid_validity = validity,
            idle = has_idle,
            "IMAP connected"
        );
        Ok(validity)
    }

    /// Like [`ImapInbox::connect`], retrying transient failures with the
    /// settings' backoff. Gives up on a permanent error, or after
    /// `max_attempts` attempts if given (the last error is returned).
    pub async fn connect_with_backoff(
        &mut self,
        max_attempts: Option<u32>,
    ) -> Result<u32, ImapError> {
        let mut backoff = self.settings.backoff;
        backoff.reset();
        let mut attempt: u32 = 0;
        loop {
            attempt = attempt.saturating_add(1);
            match self.connect().await {
                Ok(v) => return Ok(v),
                Err(e) if !e.is_transient() => return Err(e),
                Err(e) => {
                    if max_attempts.is_some_and(|max| attempt >= max) {
                        return Err(e);
                    }
                    let delay = backoff.next_delay();
                    tracing::warn!(error = %e, retry_in_secs = delay.as_secs(), attempt, "IMAP connect failed; retrying");
                    tokio::time::sleep(delay).await;
                }
            }
        }
    }

    /// Logs out politely; errors are irrelevant as the connection is dropped.
    pub async fn disconnect(&mut self) {
        if let Some(mut session) = self.session.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), session.logout()).await;
        }
    }

    /// Every message with a UID above `last_uid`, in UID order, with its raw
    /// bytes. Does not set `\Seen`.
    pub async fn fetch_since(&mut self, last_uid: u32) -> Result<Vec<FetchedMail>, ImapError> {
        let Some(first) = last_uid.checked_add(1) else {
            return Ok(Vec::new());
        };
        let validity = self.connect().await?;
        let host = self.settings.host.clone();
        let limit = self.settings.command_timeout;
        let session = self.session_mut()?;
        let work = async {
            // A session only sees messages the server has announced to it;
            // NOOP makes the server check for new mail (RFC 3501 6.1.2), so
            // mail appended by another session since our last command is
            // included in the fetch below.
            session
                .noop()
                .await
                .map_err(|e| map_imap_error(&host, "NOOP", e))?;
            // Announcements up to here are covered by this fetch; later ones
            // stay queued and make the next wait_for_change return at once.
            while session.unsolicited_responses.try_recv().is_ok() {}
            // `n:*` always includes the highest UID, even when it is below n,
            // so the result is filtered below.
            let stream = session
                .uid_fetch(format!("{first}:*"), "(UID BODY.PEEK[])")
                .await
                .map_err(|e| map_imap_error(&host, "UID FETCH", e))?;
            // Collect the whole response (up to the tagged OK) before the
            // next command is sent.
            let fetches: Vec<_> = stream
                .try_collect()
                .await
                .map_err(|e| map_imap_error(&host, "UID FETCH", e))?;
            let mut mails = Vec::new();
            for fetch in &fetches {
                let (Some(uid), Some(body)) = (fetch.uid, fetch.body()) else {
                    continue;
                };
                if uid > last_uid {
                    mails.push(FetchedMail {
                        uid_validity: validity,
                        uid,
                        bytes: body.to_vec(),
                    });
                }
            }
            Ok(mails)
        };
        let result = with_limit(&host, "UID FETCH", limit, work).await;
        let mut mails = self.drop_if_broken(result)?;
        mails.sort_by_key(|m| m.uid);
        mails.dedup_by_key(|m| m.uid);
        Ok(mails)
    }

    /// Marks a message the caller has committed: sets `\Seen`, then moves or
    /// copies it to the processed folder if one is configured.
    pub async fn mark_processed(&mut self, uid: u32) -> Result<(), ImapError> {
        self.connect().await?;
        let host = self.settings.host.clone();
        let limit = self.settings.command_timeout;
        let target = self.settings.processed_folder.clone();
        let has_move = self.has_move;
        let session = self.session_mut()?;
        let work = async {
            let stream = session
                .uid_store(uid.to_string(), "+FLAGS.SILENT (\\Seen)")
                .await
                .map_err(|e| map_imap_error(&host, "UID STORE", e))?;
            let _: Vec<_> = stream
                .try_collect()
                .await
                .map_err(|e| map_imap_error(&host, "UID STORE", e))?;
            if let Some(target) = target {
                if has_move {
                    session
                        .uid_mv(uid.to_string(), &target)
                        .await
                        .map_err(|e| map_imap_error(&host, "UID MOVE", e))?;
                } else {
                    session
                        .uid_copy(uid.to_string(), &target)
                        .await
                        .map_err(|e| map_imap_error(&host, "UID COPY", e))?;
                }
            }
            Ok(())
        };
        let result = with_limit(&host, "mark processed", limit, work).await;
        self.drop_if_broken(result)
    }

    /// Waits until the server reports a change or `timeout` passes. Uses IDLE
    /// when the server offers it, otherwise just sleeps (a poll interval).
    /// Either way the caller should call [`ImapInbox::fetch_since`] next.
    pub async fn wait_for_change(&mut self, timeout: Duration) -> Result<Wakeup, ImapError> {
        self.connect().await?;
        if !self.has_idle {
            tokio::time::sleep(timeout).await;
            return Ok(Wakeup::Timeout);
        }
        let Some(session) = self.session.take() else {
            return Err(self.lost("IDLE"));
        };
        // Changes the server announced during earlier commands would not be
        // repeated in IDLE: act on them now.
        let mut pending = false;
        while let Ok(response) = session.unsolicited_responses.try_recv() {
            pending |= matches!(
                response,
                UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Recent(_)
            );
        }
        if pending {
            self.session = Some(session);
            return Ok(Wakeup::Changed);
        }
        let host = self.settings.host.clone();
        let limit = self.settings.command_timeout;
        let mut handle = session.idle();
        let init = tokio::time::timeout(limit, handle.init()).await;
        match init {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(map_imap_error(&host, "IDLE", e)),
            Err(_) => return Err(timeout_error(&host, "IDLE")),
        }
        let outcome = {
            let (wait, _interrupt) = handle.wait_with_timeout(timeout.min(MAX_IDLE));
            wait.await
        };
        let wakeup = match outcome {
            Ok(async_imap::extensions::idle::IdleResponse::NewData(_)) => Wakeup::Changed,
            Ok(_) => Wakeup::Timeout,
            Err(e) => return Err(map_imap_error(&host, "IDLE", e)),
        };
        match tokio::time::timeout(limit, handle.done()).await {
            Ok(Ok(session)) => {
                self.session = Some(session);
                Ok(wakeup)
            }
            Ok(Err(e)) => Err(map_imap_error(&host, "DONE", e)),
            Err(_) => Err(timeout_error(&host, "DONE")),
        }
    }

    fn session_mut(&mut self) -> Result<&mut Session<NetStream>, ImapError> {
        let host = self.settings.host.clone();
        self.session.as_mut().ok_or_else(|| ImapError::Io {
            host,
            context: "a command".to_string(),
            source: io::Error::new(io::ErrorKind::NotConnected, "not connected"),
        })
    }

    fn lost(&self, context: &str) -> ImapError {
        ImapError::Io {
            host: self.settings.host.clone(),
            context: context.to_string(),
            source: io::Error::new(io::ErrorKind::NotConnected, "not connected"),
        }
    }

    /// After a transient failure the connection's state is unknown: drop it
    /// so the next call reconnects.
    fn drop_if_broken<T>(&mut self, result: Result<T, ImapError>) -> Result<T, ImapError> {
        if let Err(e) = &result
            && e.is_transient()
        {
            self.session = None;
        }
        result
    }
}

/// Runs `work` with a time limit, so a half-dead connection cannot hang the
/// daemon.
async fn with_limit<T>(
    host: &str,
    context: &str,
    limit: Duration,
    work: impl Future<Output = Result<T, ImapError>>,
) -> Result<T, ImapError> {
    match tokio::time::timeout(limit, work).await {
        Ok(r) => r,
        Err(_) => Err(timeout_error(host, context)),
    }
}

fn timeout_error(host: &str, context: &str) -> ImapError {
    ImapError::Io {
        host: host.to_string(),
        context: context.to_string(),
        source: io::Error::new(io::ErrorKind::TimedOut, "no answer in time"),
    }
}

/// Classifies an async-imap error. A NO to a command is permanent unless the
/// server says the condition is temporary (RFC 5530 `UNAVAILABLE`,
/// `INUSE`, `LIMIT`); a BAD means we sent something the server does not
/// understand, which retrying will not fix.
fn map_imap_error(host: &str, context: &str, e: async_imap::error::Error) -> ImapError {
    use async_imap::error::Error as E;
    let host = host.to_string();
    let context = context.to_string();
    match e {
        E::Io(source) => ImapError::Io {
            host,
            context,
            source,
        },
        E::ConnectionLost => ImapError::Io {
            host,
            context,
            source: io::Error::new(io::ErrorKind::ConnectionAborted, "connection lost"),
        },
        E::No(message) => {
            let upper = message.to_ascii_uppercase();
            let transient = ["[UNAVAILABLE]", "[INUSE]", "[LIMIT]", "[SERVERBUG]"]
                .iter()
                .any(|code| upper.contains(code));
            ImapError::Protocol {
                host,
                context,
                message,
                transient,
            }
        }
        E::Bad(message) => ImapError::Protocol {
            host,
            context,
            message,
            transient: false,
        },
        other => ImapError::Protocol {
            host,
            context,
            message: other.to_string(),
            // A response we could not parse leaves the stream in an unknown
            // state; a fresh connection is the cure.
            transient: true,
        },
    }
}

/// Connects, negotiates TLS as configured, logs in and selects the folder.
/// Returns the session, UIDVALIDITY and whether IDLE and MOVE are offered.
async fn open_session(
    s: &ImapSettings,
) -> Result<(Session<NetStream>, u32, bool, bool), ImapError> {
    let tcp = TcpStream::connect((s.host.as_str(), s.port))
        .await
        .map_err(|source| ImapError::Connect {
            host: s.host.clone(),
            port: s.port,
            source,
        })?;
    let _ = tcp.set_nodelay(true);
    let stream = match s.tls {
        TlsMode::None => {
            if !is_loopback(&s.host) {
                tracing::warn!(host = %s.host, "IMAP without TLS to a non-loopback host: the password travels in clear");
            }
            let mut client = Client::new(NetStream::Plain(tcp));
            read_greeting(&mut client, &s.host).await?;
            client
        }
        TlsMode::Tls => {
            let tls = tls_handshake(tcp, s).await?;
            let mut client = Client::new(NetStream::Tls(Box::new(tls)));
            read_greeting(&mut client, &s.host).await?;
            client
        }
        TlsMode::Starttls => {
            let mut client = Client::new(NetStream::Plain(tcp));
            read_greeting(&mut client, &s.host).await?;
            client
                .run_command_and_check_ok("STARTTLS", None)
                .await
                .map_err(|e| match map_imap_error(&s.host, "STARTTLS", e) {
                    ImapError::Protocol { message, .. } => ImapError::Tls {
                        host: s.host.clone(),
                        message: format!("server refused STARTTLS: {message}"),
                        transient: false,
                    },
                    other => other,
                })?;
            let NetStream::Plain(tcp) = client.into_inner() else {
                return Err(ImapError::Tls {
                    host: s.host.clone(),
                    message: "connection was already encrypted before STARTTLS".to_string(),
                    transient: false,
                });
            };
            let tls = tls_handshake(tcp, s).await?;
            // No greeting after STARTTLS (RFC 3501 6.2.1).
            Client::new(NetStream::Tls(Box::new(tls)))
        }
    };
    let mut session = match stream.login(&s.user, &s.password).await {
        Ok(session) => session,
        Err((e, _client)) => {
            return Err(match e {
                async_imap::error::Error::No(message) => {
                    if message.to_ascii_uppercase().contains("[UNAVAILABLE]") {
                        ImapError::Protocol {
                            host: s.host.clone(),
                            context: "LOGIN".to_string(),
                            message,
                            transient: true,
                        }
                    } else {
                        ImapError::Auth {
                            host: s.host.clone(),
                            user: s.user.clone(),
                            password_file: s.password_file.clone(),
                            message,
                        }
                    }
                }
                other => map_imap_error(&s.host, "LOGIN", other),
            });
        }
    };
    let capabilities = session
        .capabilities()
        .await
        .map_err(|e| map_imap_error(&s.host, "CAPABILITY", e))?;
    let has_idle = capabilities.has_str("IDLE");
    let has_move = capabilities.has_str("MOVE");
    let mailbox = session.select(&s.folder).await.map_err(|e| {
        match map_imap_error(&s.host, "SELECT", e) {
            ImapError::Protocol {
                host,
                message,
                transient,
                ..
            } => ImapError::Protocol {
                host,
                context: format!("SELECT {:?} (check inbox.folder)", s.folder),
                message,
                transient,
            },
            other => other,
        }
    })?;
    let validity = mailbox.uid_validity.ok_or_else(|| ImapError::Protocol {
        host: s.host.clone(),
        context: format!("SELECT {:?}", s.folder),
        message: "the server sent no UIDVALIDITY, so UIDs cannot be trusted across sessions"
            .to_string(),
        transient: false,
    })?;
    Ok((session, validity, has_idle, has_move))
}

async fn read_greeting(client: &mut Client<NetStream>, host: &str) -> Result<(), ImapError> {
    match client.read_response().await {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(ImapError::Io {
            host: host.to_string(),
            context: "greeting".to_string(),
            source: io::Error::new(io::ErrorKind::UnexpectedEof, "server closed the connection"),
        }),
        Err(source) => Err(ImapError::Io {
            host: host.to_string(),
            context: "greeting".to_string(),
            source,
        }),
    }
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// TLS with the Mozilla root set (webpki-roots), independent of the host's
/// CA bundle so the daemon behaves the same in any container, plus the
/// certificates in `ca_file` if one is configured.
async fn tls_handshake(
    tcp: TcpStream,
    s: &ImapSettings,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, ImapError> {
    let host = s.host.as_str();
    let tls_error = |message: String, transient: bool| ImapError::Tls {
        host: host.to_string(),
        message,
        transient,
    };
    let mut roots =
        rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = &s.ca_file {
        for cert in read_pem_certificates(path).map_err(|m| tls_error(m, false))? {
            roots
                .add(cert)
                .map_err(|e| tls_error(format!("{}: {e}", path.display()), false))?;
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| tls_error(e.to_string(), false))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from(host.to_string()).map_err(|e| {
        tls_error(
            format!("{host:?} is not a valid TLS server name: {e}"),
            false,
        )
    })?;
    TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| {
            // Certificate problems arrive as InvalidData and will not fix
            // themselves; resets and EOFs mid-handshake may.
            let transient = e.kind() != io::ErrorKind::InvalidData;
            tls_error(e.to_string(), transient)
        })
}

/// All certificates in a PEM file; an error names the file.
fn read_pem_certificates(
    path: &Path,
) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, String> {
    use rustls::pki_types::pem::PemObject;
    let pem =
        std::fs::read(path).map_err(|e| format!("cannot read CA file {}: {e}", path.display()))?;
    let certs = rustls::pki_types::CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("CA file {} is not valid PEM: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("CA file {} holds no certificate", path.display()));
    }
    Ok(certs)
}

/// The byte stream under the IMAP session: plain TCP (loopback, or before
/// STARTTLS) or TLS.
pub enum NetStream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl fmt::Debug for NetStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetStream::Plain(_) => f.write_str("NetStream::Plain"),
            NetStream::Tls(_) => f.write_str("NetStream::Tls"),
        }
    }
}

impl AsyncRead for NetStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            NetStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            NetStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for NetStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            NetStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            NetStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            NetStream::Plain(s) => Pin::new(s).poll_flush(cx),
            NetStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            NetStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            NetStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(5));
        let delays: Vec<u64> = (0..5).map(|_| b.next_delay().as_secs()).collect();
        assert_eq!(delays, vec![1, 2, 4, 5, 5]);
        b.reset();
        assert_eq!(b.next_delay(), Duration::from_secs(1));
    }

    #[test]
    fn password_file_is_trimmed_and_missing_file_is_permanent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pw");
        std::fs::write(&path, "  s3cret \n").unwrap();
        assert_eq!(read_password(&path).unwrap(), "s3cret");
        let err = read_password(&dir.path().join("missing")).unwrap_err();
        assert!(!err.is_transient());
        assert!(err.to_string().contains("missing"), "{err}");
    }

    #[test]
    fn maildir_config_is_not_imap() {
        let cfg = InboxConfig::Maildir {
            path: PathBuf::from("in"),
        };
        assert!(matches!(
            ImapInbox::from_config(&cfg),
            Err(ImapError::NotImap)
        ));
    }

    #[test]
    fn settings_debug_hides_the_password() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pw");
        std::fs::write(&path, "hunter2\n").unwrap();
        let cfg = InboxConfig::Imap {
            host: "127.0.0.1".into(),
            port: 143,
            tls: TlsMode::None,
            user: "judge".into(),
            password_file: path,
            folder: "INBOX".into(),
        };
        let inbox = ImapInbox::from_config(&cfg).unwrap();
        assert_eq!(inbox.settings().password, "hunter2");
        let shown = format!("{inbox:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
    }

    #[test]
    fn no_with_unavailable_is_transient_but_plain_no_is_not() {
        use async_imap::error::Error as E;
        let t = map_imap_error("h", "SELECT", E::No("[UNAVAILABLE] try later".into()));
        assert!(t.is_transient());
        let p = map_imap_error("h", "SELECT", E::No("Mailbox doesn't exist".into()));
        assert!(!p.is_transient());
        assert!(map_imap_error("h", "FETCH", E::ConnectionLost).is_transient());
    }

    #[tokio::test]
    async fn refused_connection_is_a_transient_connect_error() {
        // Bind then drop to get a port nobody listens on.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut inbox = ImapInbox::new(ImapSettings {
            host: "127.0.0.1".into(),
            port,
            tls: TlsMode::None,
            user: "u".into(),
            password: "p".into(),
            password_file: PathBuf::from("pw"),
            folder: "INBOX".into(),
            processed_folder: None,
            command_timeout: Duration::from_secs(5),
            backoff: Backoff::new(Duration::from_millis(10), Duration::from_millis(20)),
            ca_file: None,
        });
        let err = inbox.connect_with_backoff(Some(3)).await.unwrap_err();
        assert!(matches!(err, ImapError::Connect { .. }), "{err}");
        assert!(err.is_transient());
        assert!(!inbox.is_connected());
    }
}
