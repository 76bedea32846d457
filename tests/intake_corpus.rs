//! All 84 real-world messages (tests/fixtures/real-world-mail/) through the
//! whole intake: every one stored, no panic, at most one answer each, and
//! none answered when automatic. Their senders are registered as a player's
//! addresses first, so human mail really is answered (refused: it carries
//! no secret) and the "at most one" and "never automatic" checks bite.

use adjutant::config::Config;
use adjutant::daemon::{Parts, run_once};
use adjutant::mail::classify::classify;
use adjutant::mail::parse::{Limits, parse_inbound};
use adjutant::store::Store;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn corpus() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-world-mail");
    let mut out = Vec::new();
    for sub in ["legacy", "rfc", "thirdparty"] {
        for e in std::fs::read_dir(root.join(sub)).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "eml") {
                let name = format!("{sub}-{}", path.file_name().unwrap().to_string_lossy());
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_84_corpus_messages_go_through_intake() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::embedded(dir.path());
    // One answer per answerable mail, each naming its mail (`in<id>`), is
    // checked below; refusals to one address are otherwise throttled to
    // one an hour, which tests/intake_throttle.rs covers.
    config.refusal_interval_secs = 0;
    let mut store = Store::open(&config.database).unwrap();
    adjutant::game::create_from_file(
        &mut store,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/training.toml"),
        "corpus",
    )
    .unwrap();
    let corpus = corpus();
    assert_eq!(corpus.len(), 84);

    // Register every corpus sender as one of Blue's addresses.
    let limits = Limits::default();
    let mut senders = BTreeSet::new();
    for (_, raw) in &corpus {
        if let Some(from) = parse_inbound(raw, &limits).from
            && from.address.contains('@')
        {
            senders.insert(from.address.to_lowercase());
        }
    }
    for s in &senders {
        store
            .conn()
            .execute(
                "INSERT OR IGNORE INTO player_addresses (game_id, player_id, address)
                 SELECT game_id, id, ?1 FROM players WHERE name = 'Blue'",
                [s],
            )
            .unwrap();
    }
    drop(store);

    let inbox = adjutant::mail::maildir::Maildir::create(dir.path().join("var/inbox")).unwrap();
    for (name, raw) in &corpus {
        std::fs::write(inbox.root().join("new").join(name), raw).unwrap();
    }
    let report = run_once(&config, &mut Parts::default()).await.unwrap();
    assert_eq!(report.process.errors, 0, "{report:?}");

    let store = Store::open_existing(&config.database).unwrap();
    let db = store.conn();
    let distinct: BTreeSet<Vec<u8>> = corpus.iter().map(|(_, r)| r.clone()).collect();
    let stored: i64 = db
        .query_row("SELECT count(*) FROM inbound_mail", [], |r| r.get(0))
        .unwrap();
    // Messages sharing a Message-ID are one message to the store.
    assert_eq!(
        stored as usize + report.ingest.duplicates,
        corpus.len(),
        "{report:?}"
    );
    assert!(stored as usize <= distinct.len());
    let still_new: i64 = db
        .query_row(
            "SELECT count(*) FROM inbound_mail WHERE status = 'new'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(still_new, 0);

    // At most one answer per stored mail (answers name it: in<id>), and
    // none for mail that may not be answered.
    let mut stmt = db.prepare("SELECT id, raw FROM inbound_mail").unwrap();
    let rows: Vec<(i64, Vec<u8>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let ours = config.our_addresses();
    let domain = config.message_id_domain();
    let mut answered = 0;
    for (id, raw) in &rows {
        let answers: i64 = db
            .query_row(
                "SELECT count(*) FROM outbound_mail WHERE message_id LIKE ?1",
                [format!("%.in{id}@%")],
                |r| r.get(0),
            )
            .unwrap();
        assert!(answers <= 1, "mail {id} answered {answers} times");
        let class = classify(&parse_inbound(raw, &limits), &ours, &domain);
        if !class.may_answer() {
            assert_eq!(answers, 0, "mail {id} is {class:?} and was answered");
        }
        answered += answers;
    }
    let total: i64 = db
        .query_row("SELECT count(*) FROM outbound_mail", [], |r| r.get(0))
        .unwrap();
    assert_eq!(total, answered, "every answer belongs to one mail");
    assert!(
        answered > 50,
        "human mail from registered senders is answered: {answered}"
    );
    assert_eq!(report.flush.sent as i64, total);
}
