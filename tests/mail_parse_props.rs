//! parse_inbound and classify must never panic, whatever arrives.

use adjutant::mail::auth::extract_password;
use adjutant::mail::classify::classify;
use adjutant::mail::parse::{Limits, parse_inbound};
use proptest::prelude::*;

fn fixture_bytes() -> Vec<Vec<u8>> {
    let dir = format!("{}/tests/fixtures/mail", env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    out.sort();
    out
}

fn check(raw: &[u8]) {
    let p = parse_inbound(raw, &Limits::default());
    assert_eq!(p.sha256.len(), 64);
    let _ = classify(&p, &["adjutant@example.org".into()], "adjutant.example.org");
    let _ = extract_password(&p.text);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_bytes(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        check(&raw);
    }

    #[test]
    fn mail_shaped_text(
        headers in proptest::collection::vec(
            ("(From|To|Cc|Subject|Content-Type|Content-Transfer-Encoding|Return-Path|Message-ID|References|Auto-Submitted|X-Failed-Recipients)",
             "[ -~]{0,60}"), 0..8),
        body in "[ -~\\n>=]{0,400}",
    ) {
        let mut raw = String::new();
        for (k, v) in headers {
            raw.push_str(&format!("{k}: {v}\n"));
        }
        raw.push('\n');
        raw.push_str(&body);
        check(raw.as_bytes());
    }

    /// Real fixtures with bytes overwritten at random places.
    #[test]
    fn corrupted_fixtures(which in 0usize..16, edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..20)) {
        let all = fixture_bytes();
        let mut raw = all[which % all.len()].clone();
        for (at, b) in edits {
            let i = at.index(raw.len());
            raw[i] = b;
        }
        check(&raw);
    }
}

#[test]
fn deeply_nested_multiparts_do_not_overflow() {
    let mut raw = String::from("From: a@example.com\n");
    for i in 0..300 {
        raw.push_str(&format!(
            "Content-Type: multipart/mixed; boundary=\"b{i}\"\n\n--b{i}\n"
        ));
    }
    raw.push_str("Content-Type: text/plain\n\nhold\n");
    check(raw.as_bytes());
}
