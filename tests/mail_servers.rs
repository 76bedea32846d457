//! IMAP intake and SMTP sending against real servers (Dovecot + OpenSMTPD on
//! loopback, started by `support::mailservers`). Ignored by a plain
//! `cargo test`; `scripts/test` installs the servers and runs them.

mod support;

use std::time::{Duration, Instant};

use adjutant::config::{InboxConfig, TlsMode};
use adjutant::mail::imap::{ImapError, ImapInbox, Wakeup};
use adjutant::mail::smtp::{SendError, SmtpOutbox, SmtpSettings};
use support::fake_smtp::FakeSmtp;
use support::mailservers::{MailServers, address};

const NEEDS: &str = "needs Dovecot and OpenSMTPD: run scripts/test";

fn order_mail(n: u32) -> Vec<u8> {
    format!(
        "From: Alice <alice@example.test>\r\n\
         To: adjutant@example.test\r\n\
         Subject: Orders {n}\r\n\
         Message-ID: <orders-{n}@example.test>\r\n\
         Date: Sat, 28 Aug 1862 18:00:00 -0500\r\n\
         \r\n\
         2nd Wisconsin: advance to the Brawner farm in line.\r\n\
         .a line that starts with a dot must survive\r\n"
    )
    .into_bytes()
}

fn inbox_for(servers: &MailServers, user: &str) -> ImapInbox {
    let cfg = InboxConfig::Imap {
        host: "127.0.0.1".into(),
        port: servers.imap_port,
        tls: TlsMode::None,
        user: user.into(),
        password_file: servers.password_file(user),
        folder: "INBOX".into(),
    };
    let mut inbox = ImapInbox::from_config(&cfg).expect("imap settings");
    let mut settings = inbox.settings().clone();
    settings.command_timeout = Duration::from_secs(20);
    settings.backoff =
        adjutant::mail::imap::Backoff::new(Duration::from_millis(100), Duration::from_secs(1));
    inbox = ImapInbox::new(settings);
    inbox
}

fn outbox_for(servers: &MailServers) -> SmtpOutbox {
    let mut settings = SmtpSettings::new("127.0.0.1", servers.smtp_port, TlsMode::None);
    settings.timeout = Duration::from_secs(10);
    SmtpOutbox::new(settings).expect("smtp outbox")
}

fn ends_with(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.len() >= needle.len() && &haystack[haystack.len() - needle.len()..] == needle
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn fetch_by_uid_then_mark_seen_then_nothing_new() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    servers.append("adjutant", &order_mail(1)).await;
    servers.append("adjutant", &order_mail(2)).await;
    let mut inbox = inbox_for(&servers, "adjutant");

    let validity = inbox.connect().await.expect("connect");
    assert_eq!(inbox.uid_validity(), Some(validity));

    let mails = inbox.fetch_since(0).await.expect("fetch");
    assert_eq!(mails.len(), 2, "{NEEDS}");
    assert!(mails[0].uid < mails[1].uid);
    assert_eq!(mails[0].bytes, order_mail(1), "bytes come back unchanged");
    assert_eq!(mails[1].bytes, order_mail(2));
    assert!(mails.iter().all(|m| m.uid_validity == validity));
    // BODY.PEEK: fetching alone marks nothing.
    assert!(servers.seen_uids("adjutant").await.is_empty());

    for m in &mails {
        inbox.mark_processed(m.uid).await.expect("mark processed");
    }
    let uids: Vec<u32> = mails.iter().map(|m| m.uid).collect();
    assert_eq!(servers.seen_uids("adjutant").await, uids);

    // `last:*` on the server returns the last message again; it must be
    // filtered out.
    let last = mails[1].uid;
    assert!(
        inbox
            .fetch_since(last)
            .await
            .expect("fetch again")
            .is_empty()
    );

    servers.append("adjutant", &order_mail(3)).await;
    let more = inbox.fetch_since(last).await.expect("fetch new");
    assert_eq!(more.len(), 1);
    assert!(more[0].uid > last);
    assert_eq!(more[0].bytes, order_mail(3));
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn wrong_password_is_a_permanent_auth_error() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    let path = servers.dir().join("wrong.pw");
    std::fs::write(&path, "not-the-password\n").unwrap();
    let cfg = InboxConfig::Imap {
        host: "127.0.0.1".into(),
        port: servers.imap_port,
        tls: TlsMode::None,
        user: "adjutant".into(),
        password_file: path,
        folder: "INBOX".into(),
    };
    let mut inbox = ImapInbox::from_config(&cfg).unwrap();
    let err = inbox.connect_with_backoff(Some(5)).await.unwrap_err();
    assert!(matches!(err, ImapError::Auth { .. }), "{err}");
    assert!(!err.is_transient());
    assert!(err.to_string().contains("wrong.pw"), "{err}");
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn missing_folder_is_a_permanent_error_naming_the_folder() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    let cfg = InboxConfig::Imap {
        host: "127.0.0.1".into(),
        port: servers.imap_port,
        tls: TlsMode::None,
        user: "adjutant".into(),
        password_file: servers.password_file("adjutant"),
        folder: "Orders".into(),
    };
    let mut inbox = ImapInbox::from_config(&cfg).unwrap();
    let err = inbox.connect().await.unwrap_err();
    assert!(!err.is_transient(), "{err}");
    assert!(err.to_string().contains("Orders"), "{err}");
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn smtp_delivers_the_raw_bytes_to_the_inbox() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    let raw = order_mail(7);
    outbox_for(&servers)
        .send(&raw, &address("adjutant"), &[&address("alice")])
        .await
        .expect("send");
    let got = servers
        .wait_for_count("alice", 1, Duration::from_secs(10))
        .await;
    assert_eq!(got.len(), 1, "{}", servers.logs());
    // The MTA prepends trace headers (Received, Return-Path); everything we
    // sent, including the dot-leading line, arrives byte for byte after them.
    assert!(
        ends_with(&got[0].1, &raw),
        "delivered:\n{}",
        String::from_utf8_lossy(&got[0].1)
    );
    assert!(
        String::from_utf8_lossy(&got[0].1).contains("Return-Path: <adjutant@example.test>"),
        "the envelope sender is the return path"
    );
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn unknown_recipient_is_permanent_with_a_5xx_code() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    let err = outbox_for(&servers)
        .send(
            &order_mail(8),
            &address("adjutant"),
            &["nobody-here@example.test"],
        )
        .await
        .unwrap_err();
    match &err {
        SendError::Permanent {
            code: Some(code), ..
        } => assert!((500..600).contains(code), "{err}"),
        other => panic!("expected a permanent 5xx error, got {other:?}"),
    }
    assert!(!err.is_transient());
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn smtp_down_is_transient_and_sending_works_once_it_is_back() {
    let Some(mut servers) = MailServers::start() else {
        return;
    };
    let outbox = outbox_for(&servers);
    let raw = order_mail(9);
    // Warm the pool so a stale pooled connection is part of the test.
    outbox
        .send(&order_mail(90), &address("adjutant"), &[&address("umpire")])
        .await
        .expect("first send");

    // A restart between two sends leaves a dead connection in the pool; it
    // must be replaced, not reported.
    servers.stop_smtp();
    servers.start_smtp();
    outbox
        .send(&order_mail(91), &address("adjutant"), &[&address("umpire")])
        .await
        .expect("send after a restart between sends");

    servers.stop_smtp();
    let err = outbox
        .send(&raw, &address("adjutant"), &[&address("alice")])
        .await
        .unwrap_err();
    assert!(err.is_transient(), "{err:?}");

    servers.start_smtp();
    outbox
        .send(&raw, &address("adjutant"), &[&address("alice")])
        .await
        .expect("send after restart");
    let got = servers
        .wait_for_count("alice", 1, Duration::from_secs(10))
        .await;
    assert_eq!(got.len(), 1, "{}", servers.logs());
    assert!(ends_with(&got[0].1, &raw));
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn imap_restart_between_polls_loses_and_repeats_nothing() {
    let Some(mut servers) = MailServers::start() else {
        return;
    };
    servers.append("adjutant", &order_mail(1)).await;
    let mut inbox = inbox_for(&servers, "adjutant");
    let validity = inbox.connect().await.expect("connect");

    // What the daemon would keep in SQLite.
    let mut committed: Vec<(u32, u32, Vec<u8>)> = Vec::new();
    let mut last_uid = 0;
    let poll = async |inbox: &mut ImapInbox, last_uid: &mut u32, committed: &mut Vec<_>| {
        let mails = inbox.fetch_since(*last_uid).await?;
        for m in mails {
            committed.push((m.uid_validity, m.uid, m.bytes));
            *last_uid = m.uid;
            inbox.mark_processed(m.uid).await?;
        }
        Ok::<(), ImapError>(())
    };
    poll(&mut inbox, &mut last_uid, &mut committed)
        .await
        .expect("first poll");

    servers.stop_imap();
    let err = poll(&mut inbox, &mut last_uid, &mut committed)
        .await
        .unwrap_err();
    assert!(err.is_transient(), "{err}");
    assert!(!inbox.is_connected());

    servers.start_imap();
    servers.append("adjutant", &order_mail(2)).await;
    assert_eq!(
        inbox
            .connect_with_backoff(Some(20))
            .await
            .expect("reconnect"),
        validity,
        "a restart does not renumber the folder"
    );
    poll(&mut inbox, &mut last_uid, &mut committed)
        .await
        .expect("poll after restart");
    poll(&mut inbox, &mut last_uid, &mut committed)
        .await
        .expect("quiet poll");

    let bodies: Vec<&Vec<u8>> = committed.iter().map(|(_, _, b)| b).collect();
    assert_eq!(bodies, vec![&order_mail(1), &order_mail(2)]);
    assert!(committed.iter().all(|(v, _, _)| *v == validity));
    assert_eq!(servers.seen_uids("adjutant").await.len(), 2);
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn idle_wakes_up_on_new_mail_and_times_out_when_quiet() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    let mut inbox = inbox_for(&servers, "adjutant");
    assert!(inbox.fetch_since(0).await.expect("fetch").is_empty());

    let quiet = inbox
        .wait_for_change(Duration::from_millis(500))
        .await
        .expect("idle");
    assert_eq!(quiet, Wakeup::Timeout);

    let started = Instant::now();
    let (woke, ()) = tokio::join!(inbox.wait_for_change(Duration::from_secs(60)), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        servers.append("adjutant", &order_mail(5)).await;
    });
    assert_eq!(woke.expect("idle"), Wakeup::Changed);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "IDLE woke up only after {:?}",
        started.elapsed()
    );
    // IDLE is only a wake-up: the mail itself comes from a UID fetch.
    let mails = inbox.fetch_since(0).await.expect("fetch after idle");
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].bytes, order_mail(5));
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn processed_mail_is_moved_to_the_processed_folder() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    servers.create_folder("adjutant", "Processed").await;
    servers.append("adjutant", &order_mail(1)).await;
    servers.append("adjutant", &order_mail(2)).await;
    let mut settings = inbox_for(&servers, "adjutant").settings().clone();
    settings.processed_folder = Some("Processed".into());
    let mut inbox = ImapInbox::new(settings);
    let mails = inbox.fetch_since(0).await.expect("fetch");
    assert_eq!(mails.len(), 2);
    inbox.mark_processed(mails[0].uid).await.expect("mark");
    // The other message is untouched; the processed one is in the folder.
    let left = servers.read_all("adjutant").await;
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].1, order_mail(2));
    let moved = servers.read_folder("adjutant", "Processed").await;
    assert_eq!(moved.len(), 1);
    assert_eq!(moved[0].1, order_mail(1));
    // Fetching from the last committed UID still finds nothing old.
    let again = inbox.fetch_since(mails[0].uid).await.expect("fetch again");
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].uid, mails[1].uid);
}

fn tls_inbox(servers: &MailServers, tls: TlsMode, port: u16, ca: bool) -> ImapInbox {
    let mut settings = inbox_for(servers, "adjutant").settings().clone();
    settings.tls = tls;
    settings.port = port;
    settings.ca_file = ca.then(|| servers.ca_file());
    ImapInbox::new(settings)
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn imap_over_starttls_and_tls_verifies_the_certificate() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    servers.append("adjutant", &order_mail(1)).await;
    for (tls, port) in [
        (TlsMode::Starttls, servers.imap_port),
        (TlsMode::Tls, servers.imaps_port),
    ] {
        let mut inbox = tls_inbox(&servers, tls, port, true);
        let mails = inbox.fetch_since(0).await.expect("fetch over TLS");
        assert_eq!(mails.len(), 1, "{tls:?}");
        assert_eq!(mails[0].bytes, order_mail(1));

        // Without our private CA the server is not trusted, and that is
        // not something a retry fixes.
        let mut untrusted = tls_inbox(&servers, tls, port, false);
        let err = untrusted.connect().await.unwrap_err();
        assert!(matches!(err, ImapError::Tls { .. }), "{tls:?}: {err}");
        assert!(!err.is_transient(), "{tls:?}: {err}");
    }
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn smtp_over_starttls_and_tls_to_real_opensmtpd_verifies_the_certificate() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    let version = MailServers::smtpd_version();
    assert!(
        version.is_some_and(|v| v >= (7, 0)),
        "OpenSMTPD {version:?} cannot do TLS with OpenSSL 3 (see \
         MailServers::smtpd_version); run scripts/install-test-deps.sh, which \
         installs 7.x from bookworm-backports"
    );
    for (n, (tls, port)) in [
        (TlsMode::Starttls, servers.smtp_port),
        (TlsMode::Tls, servers.smtps_port),
    ]
    .into_iter()
    .enumerate()
    {
        let mut settings = SmtpSettings::new("127.0.0.1", port, tls);
        settings.timeout = Duration::from_secs(10);
        settings.ca_file = Some(servers.ca_file());
        let raw = order_mail(200 + u32::try_from(n).unwrap());
        SmtpOutbox::new(settings.clone())
            .expect("outbox")
            .send(&raw, &address("adjutant"), &[&address("alice")])
            .await
            .unwrap_or_else(|e| panic!("{tls:?}: {e}\n{}", servers.logs()));
        // Through OpenSMTPD and LMTP into Dovecot, read back over IMAP.
        let got = servers
            .wait_for_count("alice", n + 1, Duration::from_secs(20))
            .await;
        assert_eq!(got.len(), n + 1, "{tls:?}\n{}", servers.logs());
        let body = String::from_utf8_lossy(&got[n].1).to_string();
        assert!(
            body.contains(&format!("Message-ID: <orders-{}@example.test>", 200 + n)),
            "{tls:?}: {body}"
        );
        assert!(
            body.contains("advance to the Brawner farm"),
            "{tls:?}: {body}"
        );
        let log = std::fs::read_to_string(servers.dir().join("smtpd.log")).unwrap_or_default();
        assert!(
            log.contains("smtp tls ciphers=TLSv1.3"),
            "{tls:?}: the session was encrypted: {log}"
        );

        // Without the private CA the certificate cannot be verified; the
        // error says so and nothing is delivered.
        settings.ca_file = None;
        let err = SmtpOutbox::new(settings)
            .expect("outbox")
            .send(&raw, &address("adjutant"), &[&address("alice")])
            .await
            .unwrap_err();
        assert!(
            err.to_string().to_lowercase().contains("certificate"),
            "{tls:?}: {err}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(servers.read_all("alice").await.len(), n + 1, "{tls:?}");
    }
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn smtp_over_starttls_and_tls_delivers_exact_bytes_to_an_in_process_server() {
    // The test servers' certificates (made with openssl) reused by an
    // in-process SMTP server, which shows the bytes and envelope exactly
    // as they came over TLS (support/fake_smtp.rs).
    let Some(servers) = MailServers::start() else {
        return;
    };
    let (cert, key) = servers.server_cert();
    for tls in [TlsMode::Starttls, TlsMode::Tls] {
        let server = FakeSmtp::start(tls, &cert, &key).await;
        let mut settings = SmtpSettings::new("127.0.0.1", server.port, tls);
        settings.timeout = Duration::from_secs(10);
        settings.ca_file = Some(servers.ca_file());
        let raw = order_mail(1);
        SmtpOutbox::new(settings.clone())
            .expect("outbox")
            .send(
                &raw,
                &address("adjutant"),
                &[&address("alice"), &address("umpire")],
            )
            .await
            .unwrap_or_else(|e| panic!("{tls:?}: {e}"));
        let got = server.received();
        assert_eq!(got.len(), 1, "{tls:?}");
        assert_eq!(got[0].data, raw, "{tls:?}: bytes intact");
        assert_eq!(got[0].from, address("adjutant"));
        assert_eq!(got[0].rcpts, vec![address("alice"), address("umpire")]);

        // Without the private CA the certificate cannot be verified; the
        // error says so and nothing is sent.
        settings.ca_file = None;
        let err = SmtpOutbox::new(settings)
            .expect("outbox")
            .send(&raw, &address("adjutant"), &[&address("alice")])
            .await
            .unwrap_err();
        assert!(
            err.to_string().to_lowercase().contains("certificate"),
            "{tls:?}: {err}"
        );
        assert_eq!(server.received().len(), 1);
    }
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn recreated_folder_shows_a_new_uidvalidity() {
    let Some(servers) = MailServers::start() else {
        return;
    };
    servers.create_folder("adjutant", "Orders").await;
    servers
        .append_to("adjutant", "Orders", &order_mail(1))
        .await;
    let mut settings = inbox_for(&servers, "adjutant").settings().clone();
    settings.folder = "Orders".into();
    let mut inbox = ImapInbox::new(settings);
    let first = inbox.fetch_since(0).await.expect("fetch");
    assert_eq!(first.len(), 1);
    let old_validity = first[0].uid_validity;
    let last_uid = first[0].uid;

    // Someone deletes and recreates the folder: UIDs start again.
    inbox.disconnect().await;
    servers.delete_folder("adjutant", "Orders").await;
    servers.create_folder("adjutant", "Orders").await;
    servers
        .append_to("adjutant", "Orders", &order_mail(2))
        .await;

    let new_validity = inbox.connect().await.expect("reconnect");
    assert_ne!(new_validity, old_validity);
    assert_eq!(inbox.uid_validity(), Some(new_validity));
    // The caller sees the change and restarts from UID 0.
    let again = inbox.fetch_since(0).await.expect("fetch after reset");
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].bytes, order_mail(2));
    assert_eq!(again[0].uid_validity, new_validity);
    assert!(again[0].uid <= last_uid, "UIDs were reset");
}

#[tokio::test]
#[ignore = "needs Dovecot and OpenSMTPD: run scripts/test"]
async fn server_restart_during_idle_ends_the_wait_and_reconnect_works() {
    let Some(mut servers) = MailServers::start() else {
        return;
    };
    let mut inbox = inbox_for(&servers, "adjutant");
    inbox.connect().await.expect("connect");
    let started = Instant::now();
    let imap_port = servers.imap_port;
    let waiting = tokio::spawn(async move {
        let r = inbox.wait_for_change(Duration::from_secs(60)).await;
        (inbox, r)
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    servers.stop_imap();
    let (mut inbox, result) = waiting.await.expect("join");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the wait noticed the dead server only after {:?}",
        started.elapsed()
    );
    let err = result.expect_err("a dead connection is an error, not a wake-up");
    assert!(err.is_transient(), "{err}");
    assert!(!inbox.is_connected());
    assert_eq!(imap_port, servers.imap_port);
    servers.start_imap();
    servers.append("adjutant", &order_mail(4)).await;
    inbox
        .connect_with_backoff(Some(20))
        .await
        .expect("reconnect");
    let mails = inbox.fetch_since(0).await.expect("fetch");
    assert_eq!(mails.len(), 1);
}
