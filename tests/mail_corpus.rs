//! The 84 real-world messages (tests/fixtures/real-world-mail/, from the
//! mail-parser crate's test suite, MIT/Apache-2.0): intake must read every
//! one without panicking, and must never answer the automatic ones.

use adjutant::mail::auth::extract_password;
use adjutant::mail::classify::{Class, classify};
use adjutant::mail::parse::{Limits, parse_inbound};
use adjutant::mail::token::extract_tokens;
use std::path::PathBuf;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-world-mail");
    let mut out = Vec::new();
    for sub in ["legacy", "rfc", "thirdparty"] {
        for e in std::fs::read_dir(root.join(sub)).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "eml") {
                let name = format!("{sub}/{}", path.file_name().unwrap().to_string_lossy());
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn ours() -> Vec<String> {
    vec!["adjutant@example.org".to_string()]
}

/// Only thirdparty/014 is automatic: a Mailman list post (`Precedence:
/// list`, `List-Id`, `List-Unsubscribe`).
const KNOWN_AUTOMATIC: &[&str] = &["thirdparty/014.eml"];

/// thirdparty/015 is a person forwarding a ticket system's mails: the
/// `Auto-Submitted: auto-generated` and `X-Auto-Response-Suppress: All`
/// headers are inside the attached `message/rfc822` parts, not on the mail
/// itself, so it is human mail and may be answered. Only top-level headers
/// count.
const HUMAN_FORWARD_OF_AUTOMATIC: &str = "thirdparty/015.eml";

#[test]
fn every_message_parses_and_classifies_without_panic() {
    let all = corpus();
    assert_eq!(all.len(), 84);
    let mut automatic = Vec::new();
    let mut with_text = 0;
    for (name, raw) in &all {
        let p = parse_inbound(raw, &Limits::default());
        assert_eq!(p.sha256.len(), 64, "{name}");
        // The rest of intake's pure steps must cope too.
        let _ = extract_password(&p.text);
        let _ = extract_tokens(&p.recipient_addresses());
        if !p.text.trim().is_empty() {
            with_text += 1;
        }
        let class = classify(&p, &ours(), "adjutant.example.org");
        if !class.may_answer() {
            automatic.push(name.clone());
            println!("{name}: {class:?}");
        }
        assert!(!matches!(class, Class::Own), "{name} is not ours");
    }
    println!("not answerable: {} of {}", automatic.len(), all.len());
    assert_eq!(automatic, KNOWN_AUTOMATIC);
    // Nearly all carry readable text; a few are attachment-only or empty.
    assert!(with_text >= 75, "only {with_text} had text");
}

#[test]
fn every_message_survives_tight_limits_and_truncation() {
    for (name, raw) in corpus() {
        let tight = Limits {
            max_bytes: 2000,
            max_lines: 3,
        };
        let p = parse_inbound(&raw, &tight);
        if raw.len() > 2000 {
            assert!(p.over_limit.is_some(), "{name}");
        }
        assert!(p.text.lines().count() <= 3, "{name}");
        // Cut mail at arbitrary points: still no panic.
        for cut in [1, raw.len() / 3, raw.len() / 2, raw.len().saturating_sub(1)] {
            let _ = parse_inbound(raw.get(..cut).unwrap_or(&raw), &Limits::default());
        }
    }
}

#[test]
fn known_automatic_reasons() {
    let all = corpus();
    for want in KNOWN_AUTOMATIC {
        let (_, raw) = all.iter().find(|(n, _)| n == want).unwrap();
        let p = parse_inbound(raw, &Limits::default());
        match classify(&p, &ours(), "adjutant.example.org") {
            Class::Automatic(reason) => println!("{want}: {reason:?}"),
            other => panic!("{want}: {other:?}"),
        }
    }
    let (_, raw) = all
        .iter()
        .find(|(n, _)| n == HUMAN_FORWARD_OF_AUTOMATIC)
        .unwrap();
    let p = parse_inbound(raw, &Limits::default());
    assert!(p.header("Auto-Submitted").is_none());
    assert!(!p.attachments.is_empty(), "the forwarded mails are noted");
    assert_eq!(classify(&p, &ours(), "adjutant.example.org"), Class::Normal);
}

#[test]
#[ignore]
fn dump_corpus() {
    for (name, raw) in corpus() {
        let p = parse_inbound(&raw, &Limits::default());
        println!(
            "{name}: {:?} lines={} att={} warn={:?} | {:?}",
            p.body_source,
            p.text.lines().count(),
            p.attachments.len(),
            p.warnings,
            p.text.chars().take(60).collect::<String>()
        );
    }
}
