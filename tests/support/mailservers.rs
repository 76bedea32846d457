//! Real mail servers on loopback for integration tests: Dovecot (IMAP + LMTP,
//! Maildir, passwd-file users) and OpenSMTPD (SMTP, delivering by LMTP into
//! Dovecot). Each [`MailServers`] gets free ports and its own state directory;
//! the servers are killed when it is dropped.
//!
//! Needs root (OpenSMTPD drops privileges itself; Dovecot is started as
//! `nobody` because it refuses to touch mail as uid 0) and the binaries from
//! `scripts/install-test-deps.sh`. Without them [`MailServers::start`]
//! returns `None` and the test skips, unless `ADJUTANT_REQUIRE_MAIL_SERVERS=1`
//! (set by `scripts/test`), which turns a skip into a failure so CI cannot
//! pass vacuously.
//!
//! OpenSMTPD's queue and control socket are machine-wide, so only one set of
//! servers runs at a time: [`MailServers`] holds a process-wide lock.

#![allow(dead_code)]

use std::fs;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;

/// The test users; each one's password is `<name>pw`, address
/// `<name>@example.test`.
pub const USERS: [&str; 3] = ["alice", "umpire", "adjutant"];
pub const DOMAIN: &str = "example.test";
const NOBODY: u32 = 65534;
const NOGROUP: u32 = 65534;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

pub fn password(user: &str) -> String {
    format!("{user}pw")
}

pub fn address(user: &str) -> String {
    format!("{user}@{DOMAIN}")
}

/// Why the servers cannot run here, if they cannot.
pub fn unavailable_reason() -> Option<String> {
    // SAFETY-free check for root: the effective uid is in /proc.
    let is_root = fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false);
    if !is_root {
        return Some("not running as root".to_string());
    }
    for bin in ["dovecot", "smtpd", "setpriv", "openssl"] {
        if find_binary(bin).is_none() {
            return Some(format!(
                "`{bin}` not found (run scripts/install-test-deps.sh)"
            ));
        }
    }
    None
}

fn find_binary(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into(), "/usr/bin".into()])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

pub struct MailServers {
    dir: tempfile::TempDir,
    /// IMAP with STARTTLS offered (plain login also allowed).
    pub imap_port: u16,
    /// IMAP over TLS from the first byte.
    pub imaps_port: u16,
    pub lmtp_port: u16,
    /// SMTP, with STARTTLS offered (plain also accepted, for loopback).
    pub smtp_port: u16,
    /// SMTP over TLS from the first byte ("smtps", as on port 465).
    pub smtps_port: u16,
    dovecot: Option<Child>,
    smtpd: Option<Child>,
    _lock: MutexGuard<'static, ()>,
}

impl MailServers {
    /// Starts both servers, or returns `None` (after saying why) when this
    /// machine cannot run them.
    pub fn start() -> Option<MailServers> {
        if let Some(reason) = unavailable_reason() {
            if std::env::var("ADJUTANT_REQUIRE_MAIL_SERVERS").as_deref() == Ok("1") {
                panic!("mail servers required but unavailable: {reason}");
            }
            eprintln!("skipping: real mail servers unavailable: {reason}");
            return None;
        }
        let lock = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::Builder::new()
            .prefix("adjutant-mail-")
            .tempdir()
            .expect("create temp dir");
        let [imap_port, imaps_port, lmtp_port, smtp_port, smtps_port] = free_ports();
        let mut servers = MailServers {
            dir,
            imap_port,
            imaps_port,
            lmtp_port,
            smtp_port,
            smtps_port,
            dovecot: None,
            smtpd: None,
            _lock: lock,
        };
        servers.write_config();
        servers.start_imap();
        servers.start_smtp();
        Some(servers)
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Starts Dovecot (IMAP + LMTP) if it is not running.
    pub fn start_imap(&mut self) {
        if self.dovecot.is_some() {
            return;
        }
        let d = self.dir().to_path_buf();
        let log = log_file(&d.join("dovecot.log"));
        let child = Command::new(find_binary("setpriv").expect("setpriv"))
            .args([
                &format!("--reuid={NOBODY}"),
                &format!("--regid={NOGROUP}"),
                "--clear-groups",
            ])
            .arg(find_binary("dovecot").expect("dovecot"))
            .arg("-F")
            .arg("-c")
            .arg(d.join("dovecot.conf"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("clone log"))
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("spawn dovecot");
        self.dovecot = Some(child);
        self.wait_listening(
            "dovecot",
            &[self.imap_port, self.imaps_port, self.lmtp_port],
        );
    }

    /// Stops Dovecot and waits until its ports are closed.
    pub fn stop_imap(&mut self) {
        if let Some(child) = self.dovecot.take() {
            terminate(child);
            wait_closed(self.imap_port);
        }
    }

    /// Starts OpenSMTPD if it is not running.
    pub fn start_smtp(&mut self) {
        if self.smtpd.is_some() {
            return;
        }
        let d = self.dir().to_path_buf();
        let log = log_file(&d.join("smtpd.log"));
        let child = Command::new(find_binary("smtpd").expect("smtpd"))
            .arg("-d")
            .arg("-f")
            .arg(d.join("smtpd.conf"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("clone log"))
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("spawn smtpd");
        self.smtpd = Some(child);
        self.wait_listening("smtpd", &[self.smtp_port, self.smtps_port]);
    }

    /// Stops OpenSMTPD and waits until its port is closed.
    pub fn stop_smtp(&mut self) {
        if let Some(child) = self.smtpd.take() {
            terminate(child);
            wait_closed(self.smtp_port);
        }
    }

    /// Puts `raw` into `user`'s INBOX with IMAP APPEND, as a mail client would.
    pub async fn append(&self, user: &str, raw: &[u8]) {
        let mut session = self.login(user).await;
        session
            .append("INBOX", None, None, raw)
            .await
            .expect("IMAP APPEND");
        let _ = session.logout().await;
    }

    /// Every message in `user`'s INBOX as `(uid, bytes)`, in UID order,
    /// without changing any flag.
    pub async fn read_all(&self, user: &str) -> Vec<(u32, Vec<u8>)> {
        self.read_folder(user, "INBOX").await
    }

    /// Like [`MailServers::read_all`] for any folder of `user`.
    pub async fn read_folder(&self, user: &str, folder: &str) -> Vec<(u32, Vec<u8>)> {
        let mut session = self.login(user).await;
        let mailbox = session.examine(folder).await.expect("IMAP EXAMINE");
        let mut out = Vec::new();
        if mailbox.exists > 0 {
            let fetches: Vec<_> = session
                .uid_fetch("1:*", "(UID BODY.PEEK[])")
                .await
                .expect("UID FETCH")
                .try_collect()
                .await
                .expect("UID FETCH responses");
            for f in &fetches {
                if let (Some(uid), Some(body)) = (f.uid, f.body()) {
                    out.push((uid, body.to_vec()));
                }
            }
        }
        let _ = session.logout().await;
        out.sort_by_key(|(uid, _)| *uid);
        out
    }

    /// Creates a folder for `user`.
    pub async fn create_folder(&self, user: &str, folder: &str) {
        let mut session = self.login(user).await;
        session.create(folder).await.expect("IMAP CREATE");
        let _ = session.logout().await;
    }

    /// Deletes a folder of `user` (a later CREATE gets a new UIDVALIDITY).
    pub async fn delete_folder(&self, user: &str, folder: &str) {
        let mut session = self.login(user).await;
        session.delete(folder).await.expect("IMAP DELETE");
        let _ = session.logout().await;
    }

    /// Puts `raw` into any folder of `user`.
    pub async fn append_to(&self, user: &str, folder: &str, raw: &[u8]) {
        let mut session = self.login(user).await;
        session
            .append(folder, None, None, raw)
            .await
            .expect("IMAP APPEND");
        let _ = session.logout().await;
    }

    /// UIDs of `user`'s INBOX messages that carry `\Seen`.
    pub async fn seen_uids(&self, user: &str) -> Vec<u32> {
        let mut session = self.login(user).await;
        session.examine("INBOX").await.expect("IMAP EXAMINE");
        let mut uids: Vec<u32> = session
            .uid_search("SEEN")
            .await
            .expect("UID SEARCH")
            .into_iter()
            .collect();
        let _ = session.logout().await;
        uids.sort_unstable();
        uids
    }

    /// Waits (up to `limit`) until `user` has at least `count` messages.
    pub async fn wait_for_count(
        &self,
        user: &str,
        count: usize,
        limit: Duration,
    ) -> Vec<(u32, Vec<u8>)> {
        let start = Instant::now();
        loop {
            let all = self.read_all(user).await;
            if all.len() >= count || start.elapsed() > limit {
                return all;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The password file the inbox config points at, for `user`.
    pub fn password_file(&self, user: &str) -> PathBuf {
        let path = self.dir().join(format!("{user}.pw"));
        fs::write(&path, format!("{}\n", password(user))).expect("write password file");
        path
    }

    /// OpenSMTPD's version as `(major, minor)`, from `smtpd -h`.
    ///
    /// TLS needs 7.x: the 6.8.0p2 of Debian 12's main archive, built
    /// against OpenSSL 3, fails every TLS handshake in its privilege-
    /// separated key process (smtpd -d -v logs `rsae_priv_enc` /
    /// `rsae_priv_dec` then "missing private key" and "EVP lib", for TLS 1.3,
    /// TLS 1.2 with ECDHE-RSA and TLS 1.2 with RSA key exchange alike;
    /// upstream issues OpenSMTPD#1171 and #1239, fixed in 7.3 by PR #1208).
    /// `scripts/install-test-deps.sh` installs 7.4 from bookworm-backports.
    pub fn smtpd_version() -> Option<(u32, u32)> {
        let out = Command::new(find_binary("smtpd")?)
            .arg("-h")
            .output()
            .ok()?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let v = text.split("OpenSMTPD ").nth(1)?;
        let mut parts = v.split(|c: char| !c.is_ascii_digit());
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some((major, minor))
    }

    /// The server certificate and key (PEM), for an in-process TLS server.
    pub fn server_cert(&self) -> (PathBuf, PathBuf) {
        let tls = self.dir().join("tls");
        (tls.join("server.pem"), tls.join("server.key"))
    }

    /// The private CA that signed the servers' certificate.
    pub fn ca_file(&self) -> PathBuf {
        self.dir().join("tls/ca.pem")
    }

    /// Dovecot's and OpenSMTPD's logs, for failure messages.
    pub fn logs(&self) -> String {
        let read = |name: &str| fs::read_to_string(self.dir().join(name)).unwrap_or_default();
        format!(
            "--- dovecot.log ---\n{}\n--- smtpd.log ---\n{}",
            read("dovecot.log"),
            read("smtpd.log")
        )
    }

    async fn login(&self, user: &str) -> async_imap::Session<tokio::net::TcpStream> {
        let tcp = tokio::net::TcpStream::connect(("127.0.0.1", self.imap_port))
            .await
            .expect("connect to test IMAP server");
        let mut client = async_imap::Client::new(tcp);
        client
            .read_response()
            .await
            .expect("IMAP greeting")
            .expect("IMAP greeting present");
        client
            .login(user, password(user))
            .await
            .map_err(|(e, _)| e)
            .expect("IMAP LOGIN")
    }

    fn write_config(&self) {
        let d = self.dir();
        // Dovecot runs as nobody and must traverse into the directory.
        fs::set_permissions(d, fs::Permissions::from_mode(0o755)).expect("chmod temp dir");
        for sub in ["run", "state", "mail"] {
            let p = d.join(sub);
            fs::create_dir_all(&p).expect("create state dir");
            std::os::unix::fs::chown(&p, Some(NOBODY), Some(NOGROUP)).expect("chown state dir");
        }
        make_certificates(&d.join("tls"));
        let dir = d.display();
        let passwd: String = USERS
            .iter()
            .map(|u| format!("{u}:{{PLAIN}}{}\n", password(u)))
            .collect();
        fs::write(d.join("passwd"), passwd).expect("write passwd");
        let dovecot = format!(
            r#"instance_name = adjutant-test-{imap}
base_dir  = {dir}/run
state_dir = {dir}/state
protocols = imap lmtp
listen = 127.0.0.1
log_path = /dev/stderr
ssl = yes
ssl_cert = <{dir}/tls/server.pem
ssl_key = <{dir}/tls/dovecot.key
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
first_valid_uid = 1
default_internal_user  = nobody
default_internal_group = nogroup
default_login_user     = nobody
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%n {dir}/passwd
}}
userdb {{
  driver = static
  args = uid={NOBODY} gid={NOGROUP} home={dir}/mail/%n
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps}
    ssl = yes
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp}
  }}
}}
protocol lmtp {{
  postmaster_address = postmaster@{DOMAIN}
}}
"#,
            imap = self.imap_port,
            imaps = self.imaps_port,
            lmtp = self.lmtp_port,
        );
        fs::write(d.join("dovecot.conf"), dovecot).expect("write dovecot.conf");
        let vusers: String = USERS
            .iter()
            .map(|u| format!("{} {u}\n", address(u)))
            .collect();
        fs::write(d.join("vusers"), vusers).expect("write vusers");
        let ubase: String = USERS
            .iter()
            .map(|u| format!("{u} {NOBODY}:{NOGROUP}:{dir}/mail/{u}\n"))
            .collect();
        fs::write(d.join("ubase"), ubase).expect("write ubase");
        // TLS: the key must belong to root and be readable by root only
        // (smtpd refuses a key others can read); the certificate is the
        // same RSA one Dovecot uses. `tls` offers STARTTLS without
        // requiring it, so the plain-SMTP tests use the same listener.
        let smtpd = format!(
            r#"pki localhost cert "{dir}/tls/server.pem"
pki localhost key "{dir}/tls/server.key"
table vusers file:{dir}/vusers
table ubase file:{dir}/ubase
listen on lo port {smtp} tls pki localhost
listen on lo port {smtps} smtps pki localhost
action "lmtp" lmtp "127.0.0.1:{lmtp}" rcpt-to virtual <vusers> userbase <ubase>
match from any for domain "{DOMAIN}" action "lmtp"
"#,
            smtp = self.smtp_port,
            smtps = self.smtps_port,
            lmtp = self.lmtp_port,
        );
        let conf = d.join("smtpd.conf");
        fs::write(&conf, smtpd).expect("write smtpd.conf");
        fs::set_permissions(&conf, fs::Permissions::from_mode(0o644)).expect("chmod smtpd.conf");
    }

    fn wait_listening(&mut self, name: &str, ports: &[u16]) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if ports
                .iter()
                .all(|p| TcpStream::connect(("127.0.0.1", *p)).is_ok())
            {
                return;
            }
            let child = if name == "dovecot" {
                self.dovecot.as_mut()
            } else {
                self.smtpd.as_mut()
            };
            if let Some(child) = child
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("{name} exited early with {status}\n{}", self.logs());
            }
            if Instant::now() > deadline {
                panic!(
                    "{name} did not listen on {ports:?} in time\n{}",
                    self.logs()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for MailServers {
    fn drop(&mut self) {
        if let Some(child) = self.smtpd.take() {
            terminate(child);
        }
        if let Some(child) = self.dovecot.take() {
            terminate(child);
        }
    }
}

fn log_file(path: &Path) -> fs::File {
    fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open server log")
}

/// Distinct free loopback ports (held open together so they differ).
fn free_ports<const N: usize>() -> [u16; N] {
    let listeners: Vec<TcpListener> = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind a free port"))
        .collect();
    std::array::from_fn(|i| listeners[i].local_addr().expect("local addr").port())
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A private CA and a server certificate for 127.0.0.1 and localhost signed
/// by it, so the TLS code paths run with real verification.
fn make_certificates(tls: &Path) {
    fs::create_dir_all(tls).expect("create tls dir");
    openssl(
        tls,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=Adjutant Test CA",
        ],
    );
    openssl(
        tls,
        &[
            "req",
            // RSA, the key type every client and server here accepts.
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
    );
    fs::write(
        tls.join("server.ext"),
        "basicConstraints=critical,CA:FALSE\n\
         keyUsage=critical,digitalSignature,keyEncipherment\n\
         extendedKeyUsage=serverAuth\n\
         subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .expect("write server.ext");
    openssl(
        tls,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
    );
    // The key stays root-only, as OpenSMTPD (and the in-process TLS SMTP
    // server) wants it; Dovecot (as nobody) gets its own copy.
    fs::set_permissions(tls.join("server.key"), fs::Permissions::from_mode(0o600))
        .expect("chmod key");
    let dovecot_key = tls.join("dovecot.key");
    fs::copy(tls.join("server.key"), &dovecot_key).expect("copy key");
    std::os::unix::fs::chown(&dovecot_key, Some(NOBODY), Some(NOGROUP)).expect("chown key");
    fs::set_permissions(tls, fs::Permissions::from_mode(0o755)).expect("chmod tls dir");
}

/// SIGTERM to the server's whole process group (each server runs in its
/// own), so the per-connection children die too and clients see the
/// connection drop, as in a real restart; SIGKILL to the group if anything
/// is left after 10 s.
fn terminate(mut child: Child) {
    let group = format!("-{}", child.id());
    let signal = |sig: &str| {
        let _ = Command::new("kill")
            .args([sig, "--", &group])
            .stderr(Stdio::null())
            .status();
    };
    signal("-TERM");
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut exited = false;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            exited = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Children that outlive the master (per-connection processes) go now.
    signal("-KILL");
    if !exited {
        let _ = child.kill();
        let _ = child.wait();
    }
}

fn wait_closed(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_ok() {
        if Instant::now() > deadline {
            panic!("port {port} still accepts connections after the server was stopped");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
