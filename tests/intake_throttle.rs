//! Refusals are throttled per registered address (`refusal_interval_secs`):
//! a flood of forged mail is stored and audited mail by mail, but its
//! victim hears of it once per interval. Driven through the library with
//! a real SQLite file, so `now` can be moved across the interval.

use adjutant::config::Config;
use adjutant::daemon::intake_settings;
use adjutant::game::submit::OrdersHandler;
use adjutant::mail::intake::{IntakeSettings, process_new};
use adjutant::store::{MailSource, NewInboundMail, Store};
use std::path::Path;

const KEY: &[u8] = b"throttle-test-key-0123456789abcd";
/// Ten seconds before the end of an interval-long window, so the test also
/// crosses a window boundary.
const T0: i64 = 1_781_002_790;
const HOUR: i64 = 3600;

struct Setup {
    _dir: tempfile::TempDir,
    store: Store,
    settings: IntakeSettings,
    next: usize,
}

fn setup(interval: u64) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::embedded(dir.path());
    let mut store = Store::open(&config.database).unwrap();
    adjutant::game::create_from_file(
        &mut store,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/training.toml"),
        "mill",
    )
    .unwrap();
    let mut settings = intake_settings(&config, KEY.to_vec());
    settings.refusal_interval_secs = interval;
    Setup {
        _dir: dir,
        store,
        settings,
        next: 0,
    }
}

impl Setup {
    /// A mail claiming to be from `from`, to `to`, with no secret in it.
    fn forged(&mut self, from: &str, to: &str, now: i64) {
        self.next += 1;
        let raw = format!(
            "From: {from}\r\nTo: {to}\r\nSubject: orders\r\n\
             Message-ID: <forged-{}@evil.example>\r\n\r\nAll regiments: retreat.\r\n",
            self.next
        );
        self.store
            .insert_inbound_mail(&NewInboundMail {
                raw: raw.into_bytes(),
                message_id: Some(format!("forged-{}@evil.example", self.next)),
                source: MailSource::Maildir,
                source_ref: format!("{}.forged", self.next),
                received_at: now,
            })
            .unwrap();
    }

    fn process(&mut self, now: i64) {
        let report = process_new(
            &mut self.store,
            &self.settings,
            &mut OrdersHandler::new(),
            now,
        )
        .unwrap();
        assert_eq!(report.errors, 0, "{report:?}");
    }

    fn count(&self, sql: &str) -> i64 {
        self.store.conn().query_row(sql, [], |r| r.get(0)).unwrap()
    }

    /// Refusals queued to `address`.
    fn refusals_to(&self, address: &str) -> i64 {
        self.store
            .conn()
            .query_row(
                "SELECT count(*) FROM outbound_mail
                 WHERE kind = 'refusal' AND recipients_json = json_array(?1)",
                [address],
                |r| r.get(0),
            )
            .unwrap()
    }
}

#[test]
fn a_flood_of_forgeries_is_stored_and_audited_but_answered_once_per_hour() {
    let mut s = setup(3600);
    for _ in 0..50 {
        s.forged("grey@example.test", "adjutant@example.test", T0);
    }
    s.process(T0);
    assert_eq!(
        s.count("SELECT count(*) FROM inbound_mail WHERE status = 'refused'"),
        50,
        "every forgery is stored and refused"
    );
    assert_eq!(
        s.count("SELECT count(*) FROM audit_log WHERE action = 'mail-refused'"),
        50,
        "every attempt is on record for the owner's report"
    );
    assert_eq!(s.refusals_to("grey@example.test"), 1, "one answer, not 50");
    assert_eq!(
        s.count(
            "SELECT count(*) FROM inbound_mail
             WHERE status_detail LIKE '%no answer sent: a refusal already went%'"
        ),
        49,
        "the umpire sees why the others were not answered"
    );
    let text: Vec<u8> = s
        .store
        .conn()
        .query_row(
            "SELECT raw FROM outbound_mail WHERE kind = 'refusal'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("To: grey@example.test"), "{text}");
    assert!(text.contains("in the next hour are not answered"), "{text}");

    // Another player's address has its own allowance.
    s.forged("blue@example.test", "adjutant@example.test", T0);
    s.process(T0);
    assert_eq!(s.refusals_to("blue@example.test"), 1);

    // Twenty seconds later is a new window, but not an hour later: still held.
    s.forged("grey@example.test", "adjutant@example.test", T0 + 20);
    s.process(T0 + 20);
    assert_eq!(s.refusals_to("grey@example.test"), 1);
    s.forged("grey@example.test", "adjutant@example.test", T0 + HOUR - 1);
    s.process(T0 + HOUR - 1);
    assert_eq!(s.refusals_to("grey@example.test"), 1);

    // An hour after the last answer the next forgery is answered again.
    s.forged("grey@example.test", "adjutant@example.test", T0 + HOUR);
    s.process(T0 + HOUR);
    assert_eq!(s.refusals_to("grey@example.test"), 2);
    assert_eq!(
        s.count("SELECT count(*) FROM audit_log WHERE action = 'mail-refused'"),
        54
    );
    assert_eq!(
        s.count("SELECT count(*) FROM submissions"),
        0,
        "nothing accepted"
    );
}

#[test]
fn the_throttle_is_per_address_across_games() {
    let mut s = setup(3600);
    // A second game in which grey@ also plays.
    adjutant::game::create_from_file(
        &mut s.store,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/training.toml"),
        "second",
    )
    .unwrap();
    // Each forgery names its game: from an address that plays in two
    // games, a mail that names neither is not one game's (issue #17).
    let first = "From: grey@example.test\r\nTo: adjutant@example.test\r\n\
               Subject: mill orders\r\nMessage-ID: <first-game@evil.example>\r\n\r\nHold.\r\n";
    s.store
        .insert_inbound_mail(&NewInboundMail {
            raw: first.as_bytes().to_vec(),
            message_id: Some("first-game@evil.example".into()),
            source: MailSource::Maildir,
            source_ref: "first.forged".into(),
            received_at: T0,
        })
        .unwrap();
    let raw = "From: grey@example.test\r\nTo: adjutant@example.test\r\n\
               Subject: second orders\r\nMessage-ID: <other-game@evil.example>\r\n\r\nHold.\r\n";
    s.store
        .insert_inbound_mail(&NewInboundMail {
            raw: raw.as_bytes().to_vec(),
            message_id: Some("other-game@evil.example".into()),
            source: MailSource::Maildir,
            source_ref: "other.forged".into(),
            received_at: T0,
        })
        .unwrap();
    s.process(T0);
    assert_eq!(
        s.count("SELECT count(DISTINCT game_id) FROM inbound_mail WHERE status = 'refused'"),
        2,
        "one forgery per game"
    );
    assert_eq!(s.refusals_to("grey@example.test"), 1);
}

#[test]
fn interval_zero_answers_every_refused_mail() {
    let mut s = setup(0);
    for _ in 0..3 {
        s.forged("grey@example.test", "adjutant@example.test", T0);
    }
    s.process(T0);
    assert_eq!(s.refusals_to("grey@example.test"), 3);
    assert_eq!(
        s.count("SELECT count(*) FROM audit_log WHERE action = 'mail-refused'"),
        3
    );
}
