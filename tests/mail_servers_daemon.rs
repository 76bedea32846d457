//! The daemon against real mail servers (Dovecot + OpenSMTPD on loopback,
//! `support::mailservers`): mail in over IMAP, answers out over SMTP and
//! read back over IMAP; the IMAP server restarted while the daemon runs;
//! the SMTP server down, then up — nothing lost, nothing sent twice.
//! Ignored by a plain `cargo test`; `scripts/test` runs them.

mod support;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use adjutant::config::Config;
use adjutant::daemon::{Clock, Parts, run, run_once};
use adjutant::store::Store;
use support::mailservers::MailServers;

const GAME: &str = "mill";
const KEY_HEX: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

struct FixedClock(i64);

impl Clock for FixedClock {
    fn now(&self) -> i64 {
        self.0
    }
}

/// A game directory whose config reads IMAP and sends by SMTP; Blue plays
/// from alice@example.test, so Blue's answers land in alice's mailbox.
fn setup(servers: &MailServers, dir: &Path, poll_secs: u64) -> Config {
    let text = format!(
        r#"
database = "adjutant.db"
game_master = "adjutant@example.test"
poll_interval_secs = {poll_secs}
log_level = "info"
server_key_file = "server.key"
message_id_domain = "adjutant.example.test"
[inbox]
kind = "imap"
host = "127.0.0.1"
port = {imap}
tls = "none"
user = "adjutant"
password_file = "{pw}"
[outbox]
kind = "smtp"
host = "127.0.0.1"
port = {smtp}
tls = "none"
"#,
        imap = servers.imap_port,
        smtp = servers.smtp_port,
        pw = servers.password_file("adjutant").display(),
    );
    let config = Config::parse(&text, "test", dir).unwrap();
    std::fs::write(&config.server_key_file, KEY_HEX).unwrap();
    let mut store = Store::open(&config.database).unwrap();
    adjutant::game::create_from_file(
        &mut store,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/training.toml"),
        GAME,
    )
    .unwrap();
    store
        .conn()
        .execute(
            "UPDATE player_addresses SET address = 'alice@example.test'
             WHERE address = 'blue@example.test'",
            [],
        )
        .unwrap();
    config
}

fn order(n: u32) -> Vec<u8> {
    let key = hex::decode(KEY_HEX).unwrap();
    let token = adjutant::mail::token::make_token(&key, GAME, "Blue", 1).unwrap();
    format!(
        "From: Alice <alice@example.test>\r\nTo: adjutant+{token}@example.test\r\n\
         Subject: Re: turn 1\r\nMessage-ID: <order-{n}@example.test>\r\n\
         Date: Sat, 20 Jun 1863 15:00:00 -0500\r\n\r\n\
         1st Minnesota: advance {n} inches.\r\n.a line that starts with a dot\r\n"
    )
    .into_bytes()
}

fn count(config: &Config, sql: &str) -> i64 {
    let store = Store::open_existing(&config.database).unwrap();
    store.conn().query_row(sql, [], |r| r.get(0)).unwrap()
}

fn text(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn mail_in_over_imap_receipt_out_over_smtp_read_back_over_imap() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = setup(&servers, dir.path(), 30);
    servers.append("adjutant", &order(1)).await;

    let r = run_once(&config, &mut Parts::default()).await.unwrap();
    assert_eq!(r.ingest.stored, 1, "{r:?}");
    assert_eq!(r.process.accepted, 1, "{r:?}");
    assert_eq!(r.flush.sent, 1, "{r:?}");
    assert_eq!(
        servers.seen_uids("adjutant").await.len(),
        1,
        "flagged after commit"
    );

    let got = servers
        .wait_for_count("alice", 1, Duration::from_secs(20))
        .await;
    assert_eq!(got.len(), 1, "{}", servers.logs());
    let receipt = text(&got[0].1);
    assert!(
        receipt.contains("Message-ID: <receipt.mill.S-mill-1@adjutant.example.test>"),
        "{receipt}"
    );
    assert!(
        receipt.contains("In-Reply-To: <order-1@example.test>"),
        "{receipt}"
    );
    assert!(receipt.contains("advance 1 inches"), "{receipt}");
    assert!(
        receipt.contains(".a line that starts with a dot"),
        "{receipt}"
    );

    // A second cycle finds nothing new and sends nothing.
    let r = run_once(&config, &mut Parts::default()).await.unwrap();
    assert_eq!((r.ingest.stored, r.flush.sent), (0, 0), "{r:?}");
    let uid = servers.read_all("adjutant").await[0].0;
    assert_eq!(
        count(&config, "SELECT last_uid FROM imap_state"),
        i64::from(uid)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn imap_server_restarted_while_the_daemon_runs() {
    let Some(mut servers) = MailServers::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = setup(&servers, dir.path(), 1);
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let daemon_config = config.clone();
    let daemon = tokio::spawn(async move {
        run(&daemon_config, Parts::default(), async {
            let _ = stop_rx.await;
        })
        .await
    });

    servers.append("adjutant", &order(1)).await;
    let got = servers
        .wait_for_count("alice", 1, Duration::from_secs(30))
        .await;
    assert_eq!(got.len(), 1, "{}", servers.logs());

    servers.stop_imap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    servers.start_imap();
    servers.append("adjutant", &order(2)).await;
    let got = servers
        .wait_for_count("alice", 2, Duration::from_secs(60))
        .await;
    assert_eq!(got.len(), 2, "{}", servers.logs());

    stop_tx.send(()).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), daemon)
        .await
        .expect("daemon stops")
        .unwrap();
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(count(&config, "SELECT count(*) FROM inbound_mail"), 2);
    assert_eq!(count(&config, "SELECT count(*) FROM submissions"), 2);
    assert_eq!(
        count(
            &config,
            "SELECT count(*) FROM outbound_mail WHERE status = 'sent'"
        ),
        2
    );
    // Nothing arrives twice.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(servers.read_all("alice").await.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn smtp_down_then_up_loses_nothing_and_sends_nothing_twice() {
    let Some(mut servers) = MailServers::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = setup(&servers, dir.path(), 30);
    servers.append("adjutant", &order(1)).await;
    servers.append("adjutant", &order(2)).await;
    servers.stop_smtp();

    let now = 1_781_000_000;
    let mut parts = Parts {
        clock: Arc::new(FixedClock(now)),
        ..Parts::default()
    };
    let r = run_once(&config, &mut parts).await.unwrap();
    assert_eq!(r.process.accepted, 2, "{r:?}");
    assert_eq!(r.flush.sent, 0, "{r:?}");
    assert_eq!(
        r.flush.retrying, 1,
        "the first refusal stops the flush: {r:?}"
    );
    assert_eq!(
        count(
            &config,
            "SELECT count(*) FROM outbound_mail WHERE status = 'queued'"
        ),
        2
    );

    // Before the retry is due nothing is tried, even with the server back.
    servers.start_smtp();
    let r = run_once(&config, &mut parts).await.unwrap();
    assert_eq!(r.flush.sent, 1, "only the untried message is due: {r:?}");
    let mut later = Parts {
        clock: Arc::new(FixedClock(now + 120)),
        ..Parts::default()
    };
    let r = run_once(&config, &mut later).await.unwrap();
    assert_eq!(r.flush.sent, 1, "{r:?}");
    let r = run_once(&config, &mut later).await.unwrap();
    assert_eq!(r.flush.sent, 0, "{r:?}");

    let got = servers
        .wait_for_count("alice", 2, Duration::from_secs(20))
        .await;
    assert_eq!(got.len(), 2, "{}", servers.logs());
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        servers.read_all("alice").await.len(),
        2,
        "nothing sent twice"
    );
    assert_eq!(
        count(
            &config,
            "SELECT count(*) FROM outbound_mail WHERE status = 'sent'"
        ),
        2
    );
    assert_eq!(count(&config, "SELECT max(attempts) FROM outbound_mail"), 2);
}
