//! `adjutant run`: the daemon that reads mail, processes it, runs due work
//! and sends the answers.
//!
//! # Shape (in the manner of tokio's mini-redis)
//!
//! Three tasks on a multi-threaded tokio runtime, each owning its OWN
//! SQLite connection (WAL lets them read while another writes; every write
//! is one short IMMEDIATE transaction, so they never deadlock, they wait on
//! the 5 s busy timeout at worst):
//!
//! * **inbox task** — owns the [`Inbox`]. Loop: [`Inbox::ingest`] (raw bytes
//!   committed to SQLite, then released at the source), tell the processor,
//!   then wait: IMAP IDLE via `wait_for_change` (a plain poll when the server
//!   has no IDLE), or the poll interval for a Maildir. A transient IMAP error
//!   (server restart, network) is logged and retried with exponential
//!   backoff (1 s … 5 min); a permanent one (wrong password, missing folder)
//!   ends the task with the error, which shuts the daemon down so the
//!   operator sees it.
//! * **processor task** — owns the [`SubmissionHandler`] and the [`DueWork`]
//!   hook. Woken by the inbox task or every poll interval: processes every
//!   stored mail still `new` ([`intake::process_new`], one transaction per
//!   mail with the answers it queues), then asks [`DueWork`] for anything due
//!   at the current time (turns whose deadline + grace passed, reminders:
//!   the turn cycle fills this hook), then tells the outbox task. It then
//!   sleeps the poll interval, or only until [`DueWork::next_due`] when a
//!   deadline or reminder is nearer ([`wait_until_due`]). Its work is synchronous (SQLite, Argon2), so it
//!   runs inside `block_in_place` and does not stall the other tasks.
//! * **outbox task** — owns the [`Outbox`]. Woken by the processor or every
//!   poll interval (at most a minute, so retries come due on time): sends
//!   what is due ([`outbox::flush`]) and records each result.
//!
//! # Channels
//!
//! Two `tokio::sync::Notify`s carry the wake-ups inbox → processor and
//! processor → outbox. A `Notify` keeps one permit when nobody waits, so a
//! wake-up sent while the receiver is busy is not lost, and a burst of them
//! collapses into one pass — each pass handles everything outstanding, which
//! is exactly what we want. The data itself never travels through channels:
//! it is in SQLite, which is what makes a crash at any point safe.
//!
//! # Shutdown
//!
//! A `watch::channel(false)` is the shutdown flag. The runner sets it on
//! SIGTERM or SIGINT (Ctrl-C), or when any task ends with an error. Each
//! task checks it only BETWEEN units of work: waits and sleeps are inside
//! `select!` with the flag and are abandoned at once, but a transaction in
//! hand (a mail being processed, a message being sent and marked) is
//! finished first. The runner then waits for all three tasks and returns
//! the first error, if any. Anything not yet done stays in SQLite (`new`
//! mail, `queued` outbound mail) for the next start.
//!
//! # Edges
//!
//! The clock is passed in ([`Clock`]); the only randomness is the reply-token
//! key made on first start ([`load_or_create_server_key`], OS randomness).
//! `adjutant run --once` ([`run_once`]) does one full cycle — ingest, process,
//! due work, flush — and exits: for cron and for tests.

use crate::config::Config;
use crate::game::report_mail::{MailSlot, ReportMail};
use crate::mail::imap::Backoff;
use crate::mail::inbox::{Inbox, InboxError, IngestReport};
use crate::mail::intake::{
    self, IntakeSettings, ProcessReport, RecordingHandler, SubmissionHandler,
};
use crate::mail::outbox::{self, FlushReport, Outbox, OutboxError};
use crate::store::{Store, StoreError};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, watch};

/// Length of the reply-token key made on first start.
const SERVER_KEY_BYTES: usize = 32;

/// Why the daemon stopped or could not start.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Inbox(#[from] InboxError),
    #[error(transparent)]
    Outbox(#[from] OutboxError),
    #[error(
        "cannot read the reply-token key {path}: {problem}\n  hint: the file must hold 64 hex characters; if it is lost, delete it and restart (reply tokens already sent stop working; players can use PASSWORD lines)"
    )]
    Key { path: PathBuf, problem: String },
    #[error("the due-work hook failed: {0}")]
    DueWork(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("a daemon task stopped unexpectedly: {0}")]
    Task(String),
}

/// Where the daemon reads the time. Passed in so tests can set it.
pub trait Clock: Send + Sync {
    /// Unix seconds, UTC.
    fn now(&self) -> i64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> i64 {
        time::OffsetDateTime::now_utc().unix_timestamp()
    }
}

/// A clock that moves only when told: the demo drives a game through days
/// of deadlines in a second with it, and tests pin the time.
#[derive(Debug, Default)]
pub struct ManualClock(std::sync::atomic::AtomicI64);

impl ManualClock {
    pub fn new(now: i64) -> Self {
        ManualClock(std::sync::atomic::AtomicI64::new(now))
    }

    pub fn set(&self, now: i64) {
        self.0.store(now, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn advance(&self, secs: i64) {
        self.0.fetch_add(secs, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> i64 {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

// The due-work hook is the game lifecycle's own interface (`game::cycle`);
// the daemon only drives it.
pub use crate::game::cycle::{DueWork, NothingDue};

/// The pluggable parts: clock, submission handler, due-work hook, and the
/// slot through which the game's parts get the mail settings (filled from
/// the configuration when the daemon starts).
pub struct Parts {
    pub clock: Arc<dyn Clock>,
    pub handler: Box<dyn SubmissionHandler + Send>,
    pub due: Box<dyn DueWork>,
    pub mail: MailSlot,
}

impl Default for Parts {
    /// System clock, [`RecordingHandler`], [`NothingDue`].
    fn default() -> Self {
        Parts {
            clock: Arc::new(SystemClock),
            handler: Box::new(RecordingHandler),
            due: Box::new(NothingDue),
            mail: MailSlot::default(),
        }
    }
}

impl Parts {
    /// The game's own parts: the system clock, orders read by the order
    /// parser ([`crate::game::submit::OrdersHandler`]) and the umpire's
    /// commands by [`crate::umpire::exec::MailHandler`], and turns processed
    /// when due ([`crate::game::cycle::TurnCycle`]).
    pub fn game() -> Parts {
        let mail = MailSlot::default();
        Parts {
            handler: Box::new(crate::umpire::exec::MailHandler::with_mail(mail.clone())),
            due: Box::new(crate::game::cycle::TurnCycle::new(mail.clone())),
            mail,
            ..Parts::default()
        }
    }
}

/// What one cycle did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CycleReport {
    pub ingest: IngestReport,
    pub process: ProcessReport,
    pub due: usize,
    pub flush: FlushReport,
}

/// Reads the reply-token key, creating it (32 random bytes as hex, mode
/// 0600) if the file does not exist. The file is created atomically
/// ([`crate::fsutil::create_atomic`]): a process killed while creating it
/// leaves no file or the whole key, and of two processes starting at once
/// both end up with the one key that was linked into place first. An empty
/// file (left by a version that wrote it in place and was killed) never
/// signed a token, so it is replaced.
pub fn load_or_create_server_key(path: &Path) -> Result<Vec<u8>, DaemonError> {
    let err = |problem: String| DaemonError::Key {
        path: path.to_path_buf(),
        problem,
    };
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => {
            tracing::warn!(path = %path.display(), "the reply-token key file is empty (an interrupted first start); making a new key");
            let key = new_server_key().map_err(err)?;
            crate::fsutil::write_atomic(
                path,
                format!("{}\n", hex::encode(&key)).as_bytes(),
                Some(0o600),
            )
            .map_err(|e| err(e.to_string()))?;
            Ok(key)
        }
        Ok(text) => {
            let key = hex::decode(text.trim()).map_err(|e| err(format!("not hex: {e}")))?;
            if key.len() < 16 {
                return Err(err(format!(
                    "{} bytes is too short; at least 16 are needed",
                    key.len()
                )));
            }
            Ok(key)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = new_server_key().map_err(err)?;
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
            }
            let text = format!("{}\n", hex::encode(&key));
            if crate::fsutil::create_atomic(path, text.as_bytes(), Some(0o600))
                .map_err(|e| err(e.to_string()))?
            {
                tracing::info!(path = %path.display(), "created a new reply-token key");
                Ok(key)
            } else {
                // Another process made it between our read and our link.
                load_or_create_server_key(path)
            }
        }
        Err(e) => Err(err(e.to_string())),
    }
}

/// [`SERVER_KEY_BYTES`] bytes of OS randomness.
fn new_server_key() -> Result<Vec<u8>, String> {
    let mut key = vec![0u8; SERVER_KEY_BYTES];
    getrandom::fill(&mut key).map_err(|e| format!("no OS randomness: {e}"))?;
    Ok(key)
}

/// The intake settings from the configuration and the key.
pub fn intake_settings(config: &Config, server_key: Vec<u8>) -> IntakeSettings {
    IntakeSettings {
        limits: config.limits,
        game_master: config.game_master.clone(),
        our_addresses: config.our_addresses(),
        message_id_domain: config.message_id_domain(),
        server_key,
        refusal_interval_secs: config.refusal_interval_secs,
    }
}

impl DaemonError {
    /// For the binary: a store error is handed over as itself, so the exit
    /// code logic recognises it (a missing database is the operator's to fix).
    pub fn into_anyhow(self) -> anyhow::Error {
        match self {
            DaemonError::Store(e) => e.into(),
            other => other.into(),
        }
    }
}

/// `adjutant run [--once]` with the default parts: builds the runtime and,
/// for the long-running daemon, stops cleanly on SIGTERM or SIGINT. With
/// `once`, what the one cycle did, for the caller to print.
pub fn run_command(config: &Config, once: bool) -> anyhow::Result<Option<CycleReport>> {
    run_command_inner(config, once).map_err(DaemonError::into_anyhow)
}

fn run_command_inner(config: &Config, once: bool) -> Result<Option<CycleReport>, DaemonError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(DaemonError::Runtime)?;
    runtime.block_on(async {
        let mut parts = Parts::game();
        if once {
            let r = run_once(config, &mut parts).await?;
            tracing::info!(
                stored = r.ingest.stored,
                duplicates = r.ingest.duplicates,
                accepted = r.process.accepted,
                refused = r.process.refused,
                ignored = r.process.ignored,
                answers = r.process.answers,
                due = r.due,
                sent = r.flush.sent,
                retrying = r.flush.retrying,
                failed = r.flush.failed,
                "one cycle done"
            );
            Ok(Some(r))
        } else {
            run(config, parts, shutdown_signal()).await.map(|()| None)
        }
    })
}

/// Resolves on SIGTERM or SIGINT.
pub async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; use Ctrl-C");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate => {}
    }
    tracing::info!("shutdown requested; finishing the work in hand");
}

/// One full cycle: ingest, process, due work, flush. The store and the
/// mail folders must exist (`adjutant init`).
pub async fn run_once(config: &Config, parts: &mut Parts) -> Result<CycleReport, DaemonError> {
    let key = load_or_create_server_key(&config.server_key_file)?;
    let settings = intake_settings(config, key);
    parts.mail.set(ReportMail::from_intake(&settings));
    parts.due.set_mail(&settings);
    let mut store = Store::open_existing(&config.database)?;
    let mut inbox = Inbox::from_config(config)?;
    let outbox = Outbox::from_config(config)?;
    let ingest = inbox.ingest(&mut store, parts.clock.now()).await?;
    inbox.close().await;
    let (process, due) = process_and_due(&mut store, &settings, parts)?;
    let flush = outbox::flush(&mut store, &outbox, parts.clock.now()).await?;
    Ok(CycleReport {
        ingest,
        process,
        due,
        flush,
    })
}

fn process_and_due(
    store: &mut Store,
    settings: &IntakeSettings,
    parts: &mut Parts,
) -> Result<(ProcessReport, usize), DaemonError> {
    let process = intake::process_new(store, settings, parts.handler.as_mut(), parts.clock.now())?;
    let due = parts
        .due
        .run_due(store, parts.clock.now())
        .map_err(|e| DaemonError::DueWork(e.to_string()))?;
    Ok((process, due))
}

/// The long-running daemon; returns when `shutdown` resolves (after the
/// work in hand is finished) or when a task fails for good.
pub async fn run(
    config: &Config,
    parts: Parts,
    shutdown: impl Future<Output = ()>,
) -> Result<(), DaemonError> {
    let key = load_or_create_server_key(&config.server_key_file)?;
    let settings = intake_settings(config, key);
    parts.mail.set(ReportMail::from_intake(&settings));
    let poll = Duration::from_secs(config.poll_interval_secs.max(1));
    // Open everything before starting, so configuration mistakes are
    // reported at once rather than from inside a task.
    let inbox_store = Store::open_existing(&config.database)?;
    let process_store = Store::open_existing(&config.database)?;
    let outbox_store = Store::open_existing(&config.database)?;
    let inbox = Inbox::from_config(config)?;
    let outbox = Outbox::from_config(config)?;

    let (stop_tx, stop_rx) = watch::channel(false);
    let to_processor = Arc::new(Notify::new());
    let to_outbox = Arc::new(Notify::new());
    let outbox_clock = parts.clock.clone();
    let mut parts = parts;
    parts.due.set_mail(&settings);
    let mut tasks = tokio::task::JoinSet::new();
    tasks.spawn(inbox_task(
        inbox,
        inbox_store,
        parts.clock.clone(),
        poll,
        to_processor.clone(),
        stop_rx.clone(),
    ));
    tasks.spawn(processor_task(
        process_store,
        settings,
        parts,
        poll,
        to_processor,
        to_outbox.clone(),
        stop_rx.clone(),
    ));
    tasks.spawn(outbox_task(
        outbox,
        outbox_store,
        outbox_clock,
        poll.min(Duration::from_secs(60)),
        to_outbox,
        stop_rx,
    ));
    tracing::info!("adjutant running");

    let mut first_error: Option<DaemonError> = None;
    tokio::pin!(shutdown);
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = &mut shutdown, if !stopping => {
                stopping = true;
                let _ = stop_tx.send(true);
            }
            joined = tasks.join_next() => {
                let Some(joined) = joined else { break };
                let result = joined.map_err(|e| DaemonError::Task(e.to_string())).and_then(|r| r);
                if let Err(e) = result {
                    tracing::error!(error = %e, "a daemon task failed; shutting down");
                    first_error.get_or_insert(e);
                }
                // One task ending means the daemon cannot do its job.
                stopping = true;
                let _ = stop_tx.send(true);
            }
        }
    }
    tracing::info!("adjutant stopped");
    first_error.map_or(Ok(()), Err)
}

/// Waits `delay`, or less if shutdown is requested. True = shutting down.
async fn pause(delay: Duration, stop: &mut watch::Receiver<bool>) -> bool {
    if *stop.borrow() {
        return true;
    }
    tokio::select! {
        _ = tokio::time::sleep(delay) => false,
        _ = stop.changed() => true,
    }
}

/// See the module doc: ingest, wake the processor, wait for mail.
async fn inbox_task(
    mut inbox: Inbox,
    mut store: Store,
    clock: Arc<dyn Clock>,
    poll: Duration,
    to_processor: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), DaemonError> {
    let mut backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(300));
    let result = loop {
        if *stop.borrow() {
            break Ok(());
        }
        match inbox.ingest(&mut store, clock.now()).await {
            Ok(report) => {
                backoff.reset();
                if report.stored > 0 {
                    to_processor.notify_one();
                }
            }
            Err(e) if e.is_transient() => {
                let delay = backoff.next_delay();
                tracing::warn!(error = %e, retry_in_secs = delay.as_secs(), "reading the inbox failed; retrying");
                if pause(delay, &mut stop).await {
                    break Ok(());
                }
                continue;
            }
            Err(e) => break Err(e.into()),
        }
        let waited = tokio::select! {
            r = inbox.wait(poll) => r,
            _ = stop.changed() => break Ok(()),
        };
        if let Err(e) = waited {
            if !e.is_transient() {
                break Err(e.into());
            }
            let delay = backoff.next_delay();
            tracing::warn!(error = %e, retry_in_secs = delay.as_secs(), "waiting for mail failed; retrying");
            if pause(delay, &mut stop).await {
                break Ok(());
            }
        }
    };
    inbox.close().await;
    result
}

/// See the module doc: process stored mail, run due work, wake the outbox.
async fn processor_task(
    mut store: Store,
    settings: IntakeSettings,
    mut parts: Parts,
    poll: Duration,
    woken: Arc<Notify>,
    to_outbox: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), DaemonError> {
    loop {
        if *stop.borrow() {
            return Ok(());
        }
        let mut work = || process_and_due(&mut store, &settings, &mut parts);
        // block_in_place is only allowed on the multi-threaded runtime; on a
        // current-thread runtime (a test) the work simply runs inline.
        let done = match tokio::runtime::Handle::current().runtime_flavor() {
            tokio::runtime::RuntimeFlavor::CurrentThread => work(),
            _ => tokio::task::block_in_place(work),
        };
        match done {
            Ok((report, due)) => {
                if report.answers > 0 || due > 0 {
                    to_outbox.notify_one();
                }
                if report != ProcessReport::default() {
                    tracing::info!(
                        accepted = report.accepted,
                        refused = report.refused,
                        ignored = report.ignored,
                        errors = report.errors,
                        answers = report.answers,
                        due,
                        "processed mail"
                    );
                }
            }
            // A locked or full database may clear; the mail stays `new`.
            Err(e) => tracing::error!(error = %e, "processing failed; will try again"),
        }
        let now = parts.clock.now();
        let wait = wait_until_due(poll, now, parts.due.next_due(&mut store, now));
        tokio::select! {
            _ = woken.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return Ok(()),
        }
    }
}

/// How long the processor sleeps: the poll interval, or less when a
/// deadline or reminder falls due sooner (a second past it, so the clock
/// has surely reached it).
pub fn wait_until_due(poll: Duration, now: i64, next_due: Option<i64>) -> Duration {
    match next_due {
        Some(at) if at > now => {
            let secs = u64::try_from(at.saturating_sub(now)).unwrap_or(u64::MAX);
            poll.min(Duration::from_secs(secs.saturating_add(1)))
        }
        Some(_) => poll.min(Duration::from_secs(1)),
        None => poll,
    }
}

/// See the module doc: send what is due, on wake-up or every `tick`.
async fn outbox_task(
    outbox: Outbox,
    mut store: Store,
    clock: Arc<dyn Clock>,
    tick: Duration,
    woken: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), DaemonError> {
    loop {
        if *stop.borrow() {
            return Ok(());
        }
        match outbox::flush(&mut store, &outbox, clock.now()).await {
            Ok(r) if r != FlushReport::default() => tracing::info!(
                sent = r.sent,
                retrying = r.retrying,
                failed = r.failed,
                "outbox flushed"
            ),
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "sending failed; will try again"),
        }
        tokio::select! {
            _ = woken.notified() => {}
            _ = tokio::time::sleep(tick) => {}
            _ = stop.changed() => return Ok(()),
        }
    }
}
