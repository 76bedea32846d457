//! `cargo bench --bench intake`: ingest N order mails (default 10,000) from
//! a Maildir — raw bytes stored, parsed, classified, authenticated by reply
//! token, a submission written, the orders read by the real order parser
//! (`game::submit::OrdersHandler`) against the training scenario and
//! recorded in the order book, and a receipt composed and queued — then
//! send the receipts to a Maildir outbox. Both players write, alternately,
//! so both sides' views are exercised.
//!
//! Token-authenticated mail is the realistic bulk: players reply to our
//! mail. PASSWORD mail costs one Argon2id check each (deliberately slow);
//! a second, small run measures that separately.
//!
//! A plain `main` (harness = false) rather than criterion: the figure wanted
//! is the throughput of one large run and its peak memory, measured with
//! `/usr/bin/time -v` around the bench binary; repeated sampling of a
//! 10,000-mail ingest adds nothing but time.
//!
//! Environment: `ADJUTANT_BENCH_MAILS` (default 10000),
//! `ADJUTANT_BENCH_PASSWORD_MAILS` (default 20).

use adjutant::config::Config;
use adjutant::daemon::intake_settings;
use adjutant::game::submit::OrdersHandler;
use adjutant::mail::inbox::Inbox;
use adjutant::mail::intake::process_new;
use adjutant::mail::maildir::Maildir;
use adjutant::mail::outbox::{Outbox, flush};
use adjutant::store::Store;
use std::path::Path;
use std::time::Instant;

const NOW: i64 = 1_781_000_000;

/// CPU time of this thread so far (Linux `/proc/thread-self/schedstat`,
/// nanoseconds on the CPU), so a run on a shared, loaded machine can be
/// judged by what the work itself cost. `None` elsewhere.
fn thread_cpu() -> Option<std::time::Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(std::time::Duration::from_nanos(ns))
}

/// Peak resident memory so far (`VmHWM`, Linux), to see which phase sets it.
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
        })
        .unwrap_or_else(|| "?".into())
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A realistic order mail for the training scenario: a few paragraphs of
/// orders, READY, and the quoted report the player replied to.
fn order_mail(n: usize, from: &str, to: &str, union: bool, extra: &str) -> Vec<u8> {
    let orders = if union {
        "10th Ohio: advance to the crossroads in line.\r\n\r\n\
         12th Ohio: advance by road to the crossroads in column.\r\n\r\n\
         14th Ohio: form line facing north-east.\r\n\r\n\
         Battery A: unlimber facing north.\r\n\r\n"
    } else {
        "3rd Tennessee: advance to the ford in line.\r\n\r\n\
         5th Tennessee: hold.\r\n\r\n\
         7th Tennessee: withdraw to Miller's Wood.\r\n\r\n\
         Ridley's Battery: limber up.\r\n\r\n"
    };
    format!(
        "From: Player <{from}>\r\nTo: {to}\r\nSubject: Re: [bench] turn 1\r\n\
         Message-ID: <order-{n}@players.example>\r\nDate: Sat, 20 Jun 1863 15:00:00 -0500\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{extra}\
         {orders}READY\r\n\r\n\
         On Sat, 20 Jun 1863 at 14:00, Adjutant <adjutant@example.test> wrote:\r\n\
         > Turn 1 report. Your brigade stands south of the crossroads.\r\n\
         > Write your orders for turn 1.\r\n"
    )
    .into_bytes()
}

fn setup(dir: &Path) -> (Config, Store, Vec<u8>) {
    let config = Config::embedded(dir);
    let mut store = Store::open(&config.database).expect("store");
    adjutant::game::create_from_file(
        &mut store,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/training.toml"),
        "bench",
    )
    .expect("game");
    let key = b"bench-key-0123456789abcdef-bench".to_vec();
    (config, store, key)
}

async fn run(label: &str, mails: usize, password: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (config, mut store, key) = setup(dir.path());
    let inbox_dir = Maildir::create(dir.path().join("var/inbox")).expect("inbox");
    let secret = if password {
        // A game whose secret we know: set Blue's hash from a fresh secret.
        let secret = adjutant::secret::generate_secret().expect("secret");
        let hash = adjutant::secret::hash_secret(&secret).expect("hash");
        store
            .conn()
            .execute(
                "UPDATE players SET secret_hash = ?1 WHERE name = 'Blue'",
                [hash],
            )
            .expect("set hash");
        Some(secret)
    } else {
        None
    };
    let token_to = |player: &str| {
        let token = adjutant::mail::token::make_token(&key, "bench", player, 1).expect("token");
        format!("adjutant+{token}@example.test")
    };
    let (blue_to, grey_to) = (token_to("Blue"), token_to("Grey"));
    for n in 0..mails {
        // PASSWORD mail is Blue's only (his secret is the one we know).
        let union = secret.is_some() || n % 2 == 0;
        let from = if union {
            "blue@example.test"
        } else {
            "grey@example.test"
        };
        let raw = match &secret {
            Some(s) => order_mail(
                n,
                from,
                "adjutant@example.test",
                union,
                &format!("PASSWORD {s}\r\n"),
            ),
            None => order_mail(n, from, if union { &blue_to } else { &grey_to }, union, ""),
        };
        std::fs::write(
            inbox_dir.root().join("new").join(format!("{n:06}.bench")),
            raw,
        )
        .expect("write mail");
    }
    let settings = intake_settings(&config, key);
    let mut inbox = Inbox::Maildir(inbox_dir);

    let c0 = thread_cpu();
    let t0 = Instant::now();
    let ingest = inbox.ingest(&mut store, NOW).await.expect("ingest");
    let t1 = Instant::now();
    let c1 = thread_cpu();
    let rss1 = peak_rss();
    let mut handler = OrdersHandler::new();
    let report = process_new(&mut store, &settings, &mut handler, NOW).expect("process");
    let t2 = Instant::now();
    let c2 = thread_cpu();
    let rss2 = peak_rss();
    let outbox = Outbox::from_config(&config).expect("outbox");
    // A flush pass sends what is due and may stop early (a bounded pass);
    // keep flushing until the queue is empty.
    let mut sent = flush(&mut store, &outbox, NOW).await.expect("flush");
    while sent.sent < mails {
        let more = flush(&mut store, &outbox, NOW).await.expect("flush");
        if more.sent == 0 {
            break;
        }
        sent.sent += more.sent;
    }
    let t3 = Instant::now();

    assert_eq!(ingest.stored, mails);
    // The orders were really read: every paragraph of every mail is in the
    // order book, and no mail had anything the parser did not understand.
    let (orders, unclear): (i64, i64) = store
        .conn()
        .query_row(
            "SELECT (SELECT count(*) FROM orders),
                    (SELECT count(*) FROM submissions WHERE status <> 'accepted')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("count orders");
    assert_eq!(unclear, 0, "some orders were not understood");
    assert!(
        orders >= i64::try_from(mails * 4).unwrap_or(i64::MAX),
        "{orders} orders"
    );
    assert_eq!(report.accepted, mails, "{report:?}");
    assert_eq!(report.answers, mails);
    assert_eq!(sent.sent, mails);
    let rate = |n: usize, d: std::time::Duration| n as f64 / d.as_secs_f64();
    println!("{label}: {mails} mails");
    println!(
        "  store raw (ingest)           {:>8.3} s  {:>9.0} mails/s",
        (t1 - t0).as_secs_f64(),
        rate(mails, t1 - t0)
    );
    println!(
        "  parse+auth+submit+queue      {:>8.3} s  {:>9.0} mails/s",
        (t2 - t1).as_secs_f64(),
        rate(mails, t2 - t1)
    );
    println!(
        "  ingest to answer queued      {:>8.3} s  {:>9.0} mails/s",
        (t2 - t0).as_secs_f64(),
        rate(mails, t2 - t0)
    );
    println!(
        "  peak RSS after storing {rss1}, after answers queued {rss2}, after sending {}",
        peak_rss()
    );
    if let (Some(c0), Some(c1), Some(c2)) = (c0, c1, c2) {
        println!(
            "  CPU time of intake: store {:.3} s, parse+auth+submit+queue {:.3} s \
             = {:.0} mails/s per CPU second, mail in to answer queued",
            (c1 - c0).as_secs_f64(),
            (c2 - c1).as_secs_f64(),
            rate(mails, c2 - c0)
        );
    }
    println!(
        "  send receipts to Maildir     {:>8.3} s  {:>9.0} mails/s",
        (t3 - t2).as_secs_f64(),
        rate(mails, t3 - t2)
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        run(
            "reply-token mail",
            env_usize("ADJUTANT_BENCH_MAILS", 10_000),
            false,
        )
        .await;
        run(
            "PASSWORD mail (one Argon2id check each)",
            env_usize("ADJUTANT_BENCH_PASSWORD_MAILS", 20),
            true,
        )
        .await;
    });
}
