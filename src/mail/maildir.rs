//! Maildir inbox and outbox, plain file I/O (the Maildir format of qmail,
//! as Dovecot, Postfix `local`, getmail and fdm write it).
//!
//! Inbox: intake lists `new/`, reads each file, commits the bytes to SQLite,
//! and only then calls [`Maildir::mark_processed`], which renames the file
//! into `cur/` with the `:2,S` (seen) flag. A crash between the commit and
//! the rename leaves the file in `new/`; the next pass reads it again and the
//! store's duplicate check (Message-ID / SHA-256) drops it. Nothing is lost.
//!
//! Outbox: [`Maildir::deliver`] writes to `tmp/`, syncs, and renames into
//! `new/`; the rename is atomic, so a reader never sees half a message and a
//! file left in `tmp/` by a crash is never delivered. [`Maildir::deliver_many`]
//! does the same for a batch, syncing `new/` once for all of it.
//!
//! The outbox delivers with [`Maildir::deliver_named_many`]: each message's
//! file name is derived from its queue row and Message-ID, and a message
//! whose name is already in `new/` or `cur/` is not written again. A daemon
//! killed after writing a batch but before recording it as sent therefore
//! re-delivers nothing on restart: delivery is idempotent (docs/mail.md).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A Maildir operation failed.
#[derive(Debug, thiserror::Error)]
pub enum MaildirError {
    #[error(
        "cannot create Maildir directory {path}: {source}; check that the parent exists and is writable"
    )]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is not a Maildir (it needs tmp/, new/ and cur/ subdirectories); create it with `Maildir::create` or point the configuration at the right directory"
    )]
    NotMaildir { path: PathBuf },
    #[error("cannot list {path}: {source}")]
    List {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read message {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write message {path}: {source}; check free disk space and permissions")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot move {from} to {to}: {source}")]
    Rename {
        from: PathBuf,
        to: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "message {id:?} is neither in new/ nor in cur/ of {root}; was it moved by another program?"
    )]
    Missing { id: String, root: PathBuf },
}

/// One message waiting in `new/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaildirEntry {
    /// The file name in `new/`; unique within the Maildir.
    pub id: String,
    pub path: PathBuf,
}

/// A Maildir directory (`tmp/`, `new/`, `cur/`).
#[derive(Debug, Clone)]
pub struct Maildir {
    root: PathBuf,
    /// Base names (before `:2,`) in `cur/`, read once on the first named
    /// delivery: a reader may have moved an earlier delivery there.
    cur_names: std::sync::Arc<std::sync::OnceLock<std::collections::HashSet<String>>>,
}

/// What a named delivery did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivered {
    /// Written now.
    New,
    /// A file of that name was already delivered (in `new/` or `cur/`):
    /// nothing was written.
    AlreadyThere,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl Maildir {
    /// Open an existing Maildir; fails if a subdirectory is missing.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self, MaildirError> {
        let root = root.into();
        if ["tmp", "new", "cur"].iter().all(|d| root.join(d).is_dir()) {
            Ok(Maildir::at(root))
        } else {
            Err(MaildirError::NotMaildir { path: root })
        }
    }

    /// Open a Maildir, creating `tmp/`, `new/` and `cur/` as needed.
    pub fn create(root: impl Into<PathBuf>) -> Result<Self, MaildirError> {
        let root = root.into();
        for d in ["tmp", "new", "cur"] {
            let path = root.join(d);
            fs::create_dir_all(&path).map_err(|source| MaildirError::Create { path, source })?;
        }
        Ok(Maildir::at(root))
    }

    fn at(root: PathBuf) -> Maildir {
        Maildir {
            root,
            cur_names: Default::default(),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Messages in `new/`, oldest name first (names start with the delivery
    /// time, so this is roughly arrival order). Dot files are skipped, as
    /// the Maildir convention requires.
    pub fn list_new(&self) -> Result<Vec<MaildirEntry>, MaildirError> {
        self.list("new")
    }

    /// Messages in `cur/` (already processed or read by a mail client).
    pub fn list_cur(&self) -> Result<Vec<MaildirEntry>, MaildirError> {
        self.list("cur")
    }

    fn list(&self, sub: &str) -> Result<Vec<MaildirEntry>, MaildirError> {
        let dir = self.root.join(sub);
        let rd = fs::read_dir(&dir).map_err(|source| MaildirError::List {
            path: dir.clone(),
            source,
        })?;
        let mut out = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|source| MaildirError::List {
                path: dir.clone(),
                source,
            })?;
            let Ok(id) = entry.file_name().into_string() else {
                continue; // not a name any Maildir writer produces
            };
            if id.starts_with('.') || !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            out.push(MaildirEntry {
                path: entry.path(),
                id,
            });
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    /// The raw bytes of a message.
    pub fn read(&self, entry: &MaildirEntry) -> Result<Vec<u8>, MaildirError> {
        fs::read(&entry.path).map_err(|source| MaildirError::Read {
            path: entry.path.clone(),
            source,
        })
    }

    /// Move a message from `new/` to `cur/` with the seen flag (`:2,S`).
    /// Call only after its bytes are committed to the store. Idempotent: if
    /// it is already in `cur/` (a crash after the rename), that is success.
    pub fn mark_processed(&self, entry: &MaildirEntry) -> Result<PathBuf, MaildirError> {
        let base = entry.id.split(':').next().unwrap_or(&entry.id);
        let to = self.root.join("cur").join(format!("{base}:2,S"));
        let from = self.root.join("new").join(&entry.id);
        match fs::rename(&from, &to) {
            Ok(()) => Ok(to),
            Err(_) if to.is_file() => Ok(to),
            Err(source) if from.exists() => Err(MaildirError::Rename { from, to, source }),
            Err(_) => Err(MaildirError::Missing {
                id: entry.id.clone(),
                root: self.root.clone(),
            }),
        }
    }

    /// Deliver a message: write it to `tmp/`, flush it to disk, rename it
    /// into `new/`, and sync `new/`. Returns the file name. A crash before
    /// the rename leaves only a file in `tmp/`, which no reader looks at.
    pub fn deliver(&self, bytes: &[u8]) -> Result<String, MaildirError> {
        let name = self.deliver_unsynced(bytes)?;
        self.sync_new();
        Ok(name)
    }

    /// Delivers many messages at once, each as [`Maildir::deliver`] does
    /// (its own file synced before the rename), then syncs `new/` once for
    /// all of them. The files are written and synced by several threads:
    /// the file system commits concurrent syncs together (ext4 and XFS
    /// group their journal commits), which is many times faster than one
    /// message after another, each waiting for the disk. Results are in the
    /// order of `messages`.
    pub fn deliver_many(&self, messages: &[&[u8]]) -> Vec<Result<String, MaildirError>> {
        const WORKERS: usize = 16;
        let next = AtomicU64::new(0);
        let mut results: Vec<Option<Result<String, MaildirError>>> =
            std::iter::repeat_with(|| None)
                .take(messages.len())
                .collect();
        let workers = WORKERS.min(messages.len());
        let done: Vec<Vec<(usize, Result<String, MaildirError>)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let i = usize::try_from(next.fetch_add(1, Ordering::Relaxed))
                                .unwrap_or(usize::MAX);
                            let Some(bytes) = messages.get(i) else {
                                return mine;
                            };
                            mine.push((i, self.deliver_unsynced(bytes)));
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                // A worker only panics if the allocator does; its messages
                // then stay without a result and are reported as failed.
                .filter_map(|h| h.join().ok())
                .collect()
        });
        for (i, r) in done.into_iter().flatten() {
            if let Some(slot) = results.get_mut(i) {
                *slot = Some(r);
            }
        }
        self.sync_new();
        results
            .into_iter()
            .map(|r| {
                r.unwrap_or_else(|| {
                    Err(MaildirError::Write {
                        path: self.root.join("tmp"),
                        source: std::io::Error::other("the delivering thread failed"),
                    })
                })
            })
            .collect()
    }

    /// Delivers each `(name, bytes)` under its own `name` unless a message
    /// of that name was already delivered (see the module doc), then syncs
    /// `new/` once. `name` must be a valid Maildir name (no `/`, no `:`,
    /// not starting with `.`); [`outbox_name`] makes one.
    pub fn deliver_named_many(
        &self,
        messages: &[(&str, &[u8])],
    ) -> Vec<Result<Delivered, MaildirError>> {
        let cur = self.cur_names.get_or_init(|| {
            self.list_cur()
                .unwrap_or_default()
                .into_iter()
                .map(|e| e.id.split(':').next().unwrap_or_default().to_string())
                .collect()
        });
        let results = messages
            .iter()
            .map(|(name, bytes)| {
                if cur.contains(*name) || self.root.join("new").join(name).exists() {
                    // A kill between the link into `new/` and the removal
                    // of `tmp/<name>` leaves the delivered message's twin
                    // in `tmp/`; it is ours (the name is this message's),
                    // so the retry that finds the message delivered
                    // clears it.
                    let _ = fs::remove_file(self.root.join("tmp").join(name));
                    return Ok(Delivered::AlreadyThere);
                }
                self.deliver_as(name, bytes)
            })
            .collect();
        self.sync_new();
        results
    }

    /// Writes `tmp/<name>`, syncs it and links it to `new/<name>`; a link
    /// never replaces a file, so a message already there stays as it was.
    fn deliver_as(&self, name: &str, bytes: &[u8]) -> Result<Delivered, MaildirError> {
        let tmp = self.root.join("tmp").join(name);
        let new = self.root.join("new").join(name);
        let _ = fs::remove_file(&tmp); // left by a crash: never delivered
        let write = || -> std::io::Result<()> {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()
        };
        if let Err(source) = write() {
            let _ = fs::remove_file(&tmp);
            return Err(MaildirError::Write { path: tmp, source });
        }
        let linked = fs::hard_link(&tmp, &new);
        let _ = fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(Delivered::New),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(Delivered::AlreadyThere),
            Err(source) => Err(MaildirError::Rename {
                from: tmp,
                to: new,
                source,
            }),
        }
    }

    /// Writes `tmp/<name>`, syncs the file, renames it into `new/`; the
    /// rename is made durable by the caller's [`Maildir::sync_new`].
    fn deliver_unsynced(&self, bytes: &[u8]) -> Result<String, MaildirError> {
        let name = unique_name();
        let tmp = self.root.join("tmp").join(&name);
        let new = self.root.join("new").join(&name);
        let write = |path: &Path| -> std::io::Result<()> {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)?;
            f.write_all(bytes)?;
            f.sync_all()
        };
        if let Err(source) = write(&tmp) {
            let _ = fs::remove_file(&tmp);
            return Err(MaildirError::Write { path: tmp, source });
        }
        fs::rename(&tmp, &new).map_err(|source| MaildirError::Rename {
            from: tmp.clone(),
            to: new.clone(),
            source,
        })?;
        Ok(name)
    }

    /// Makes the renames into `new/` durable where the platform allows it
    /// (syncing a directory is not possible everywhere, hence best effort).
    fn sync_new(&self) {
        if let Ok(dir) = fs::File::open(self.root.join("new"))
            && let Err(e) = dir.sync_all()
        {
            tracing::warn!(dir = %self.root.display(), error = %e, "cannot sync the Maildir new/ directory");
        }
    }
}

/// `<secs>.M<micros>P<pid>Q<counter>R<random>.<host>`: the modern Maildir
/// unique name. Time, pid and a process-wide counter make it unique on one
/// host; the random part covers pid reuse after a restart in the same
/// microsecond; the host name covers Maildirs shared over NFS.
///
/// The microseconds are zero-padded to six digits and the counter to ten,
/// so that names sort in the order they were made: an operator's `ls`, and
/// anything that reads a Maildir in name order, see the mail in time order.
/// (Unpadded, `M98000` sorted after `M120000` of the same second.)
fn unique_name() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut rnd = [0u8; 4];
    // Uniqueness does not depend on this; on failure the bytes stay zero.
    let _ = getrandom::fill(&mut rnd);
    format!(
        "{}.M{:06}P{}Q{:010}R{}.{}",
        now.as_secs(),
        now.subsec_micros(),
        std::process::id(),
        n,
        hex::encode(rnd),
        hostname()
    )
}

/// The outbox file name of queued message `id` with `message_id`:
/// `<id, 12 digits>.<24 hex digits of SHA-256 of the Message-ID>.adjutant`.
/// The same message always gets the same name (so a second delivery is
/// recognised), and names sort in the order the messages were queued.
pub fn outbox_name(id: i64, message_id: &str) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(message_id.as_bytes());
    let hex = hex::encode(digest);
    format!("{id:012}.{}.adjutant", hex.get(..24).unwrap_or(&hex))
}

/// The host name with `/` and `:` escaped as the Maildir spec asks.
fn hostname() -> String {
    let raw = fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let raw = raw.trim();
    let raw = if raw.is_empty() { "localhost" } else { raw };
    raw.replace('/', "\\057").replace(':', "\\072")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_delivery_is_written_once_even_after_a_reader_moved_it() {
        let dir = tempfile::tempdir().unwrap();
        let md = Maildir::create(dir.path().join("out")).unwrap();
        let a = outbox_name(1, "<a@x>");
        let b = outbox_name(2, "<b@x>");
        let first = md.deliver_named_many(&[(&a, b"A"), (&b, b"B")]);
        assert!(first.iter().all(|r| matches!(r, Ok(Delivered::New))));
        // A reader moves `a` to cur/ with flags; a restarted daemon (a new
        // Maildir value) tries both again and writes neither.
        let entry = md
            .list_new()
            .unwrap()
            .into_iter()
            .find(|e| e.id == a)
            .unwrap();
        md.mark_processed(&entry).unwrap();
        let again = Maildir::open(dir.path().join("out")).unwrap();
        let second = again.deliver_named_many(&[(&a, b"A"), (&b, b"B")]);
        assert!(
            second
                .iter()
                .all(|r| matches!(r, Ok(Delivered::AlreadyThere)))
        );
        assert_eq!(again.list_new().unwrap().len(), 1);
        assert_eq!(again.list_cur().unwrap().len(), 1);
        assert_eq!(fs::read_dir(dir.path().join("out/tmp")).unwrap().count(), 0);
        assert!(a < b, "names sort in queue order");
    }

    #[test]
    fn a_kill_after_the_link_leaves_no_twin_in_tmp_after_the_retry() {
        // Killed between `hard_link(tmp, new)` and `remove_file(tmp)`: the
        // message is in new/ and its twin in tmp/. The retry (the row is
        // still queued) finds it delivered and clears the twin; found by
        // tests/kill_exactly_once.rs in CI.
        let dir = tempfile::tempdir().unwrap();
        Maildir::create(dir.path().join("out")).unwrap();
        let a = outbox_name(7, "<a@x>");
        fs::write(dir.path().join("out/tmp").join(&a), b"A").unwrap();
        fs::hard_link(
            dir.path().join("out/tmp").join(&a),
            dir.path().join("out/new").join(&a),
        )
        .unwrap();
        let again = Maildir::open(dir.path().join("out")).unwrap();
        let r = again.deliver_named_many(&[(&a, b"A")]);
        assert!(matches!(r[..], [Ok(Delivered::AlreadyThere)]));
        assert_eq!(fs::read_dir(dir.path().join("out/tmp")).unwrap().count(), 0);
        assert_eq!(again.list_new().unwrap().len(), 1);
    }

    #[test]
    fn unique_names_differ_and_carry_no_separator() {
        let a = unique_name();
        let b = unique_name();
        assert_ne!(a, b);
        assert!(!a.contains('/') && !a.contains(':'));
    }

    #[test]
    fn unique_names_sort_in_the_order_they_were_made() {
        let mut made = Vec::new();
        for _ in 0..200 {
            made.push(unique_name());
        }
        let mut sorted = made.clone();
        sorted.sort();
        assert_eq!(sorted, made);
        // The microsecond field is always six digits wide.
        let micros = made[0]
            .split(".M")
            .nth(1)
            .unwrap()
            .split('P')
            .next()
            .unwrap();
        assert_eq!(micros.len(), 6, "{}", made[0]);
    }
}
