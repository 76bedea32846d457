//! Outbound mail: built by compose, read back by mailparse and by our own
//! inbound parser and classifier.

use adjutant::mail::address::Mailbox;
use adjutant::mail::classify::{Class, classify};
use adjutant::mail::compose::{Attachment, Outbound, compose, game_thread_id, message_id};
use adjutant::mail::parse::{BodySource, Limits, parse_inbound};
use adjutant::mail::token::{extract_tokens, make_reply_to, make_token, verify};
use mailparse::MailHeaderMap;
use time::macros::datetime;

const KEY: &[u8] = b"server key for tests, 32 bytes!!";

fn report(html: bool, png: bool) -> Outbound {
    let token = make_token(KEY, "brawner", "gibbon", 3).unwrap();
    Outbound {
        from: Mailbox::named("Adjutant (Brawner's Farm)", "adjutant@example.org"),
        to: vec![Mailbox::named("Brig. Gen. John Gibbon", "gibbon@example.com")],
        reply_to: Some(Mailbox::new(
            make_reply_to("adjutant@example.org", &token).unwrap(),
        )),
        subject: "Brawner's Farm — turn 3 report: the 2nd Wisconsin under fire at the farm lane, 6:45 p.m.".into(),
        message_id: message_id("report", "brawner", "3.gibbon", "adjutant.example.org").unwrap(),
        in_reply_to: Some("orders-2@mail.example.com".into()),
        references: vec![
            game_thread_id("brawner", "adjutant.example.org").unwrap(),
            "orders-2@mail.example.com".into(),
        ],
        date: datetime!(2026-11-22 18:45:00 UTC),
        text: "Turn 3.\n\n2nd Wisconsin: fired; 3 casualties.\nFrom the woods, Confederate skirmishers — 200 yd.\nA very long line that goes on and on and on and on and on and on and on and on and on and on and past seventy-six characters.\n".into(),
        html: html.then(|| "<html><body><p>Turn 3.</p><p>2nd Wisconsin: fired; 3 casualties.</p></body></html>".into()),
        attachments: if png {
            vec![Attachment {
                filename: "map-turn-3.png".into(),
                content_type: adjutant::mail::compose::content_type("image/png").unwrap(),
                data: (0u8..=255).cycle().take(3000).collect(),
            }]
        } else {
            vec![]
        },
        extra_headers: vec![("X-Adjutant-Game".into(), "brawner".into())],
    }
}

#[test]
fn plain_reply_reads_back_exactly() {
    let msg = report(false, false);
    let bytes = compose(&msg).unwrap();
    assert!(bytes.iter().all(|&b| b < 128), "7-bit clean");
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(text.lines().all(|l| l.len() <= 78), "{text}");
    assert!(!text.replace("\r\n", "").contains('\n'), "CRLF only");

    let m = mailparse::parse_mail(&bytes).unwrap();
    let h = &m.headers;
    assert_eq!(
        h.get_first_value("Auto-Submitted").unwrap(),
        "auto-generated"
    );
    assert_eq!(h.get_first_value("Subject").unwrap(), msg.subject);
    assert_eq!(
        h.get_first_value("Message-ID").unwrap(),
        "<report.brawner.3-gibbon@adjutant.example.org>"
    );
    assert_eq!(
        h.get_first_value("In-Reply-To").unwrap(),
        "<orders-2@mail.example.com>"
    );
    assert_eq!(
        h.get_first_value("Date").unwrap(),
        "Sun, 22 Nov 2026 18:45:00 +0000"
    );
    assert_eq!(m.ctype.mimetype, "text/plain");
    assert_eq!(m.ctype.charset, "utf-8");
    assert_eq!(m.get_body().unwrap().replace("\r\n", "\n"), msg.text);

    let p = parse_inbound(&bytes, &Limits::default());
    assert_eq!(
        p.from.unwrap().name.as_deref(),
        Some("Adjutant (Brawner's Farm)")
    );
    assert_eq!(p.to[0].name.as_deref(), Some("Brig. Gen. John Gibbon"));
    assert_eq!(p.references.len(), 2);
    // The token survives the trip through Reply-To.
    let tokens = extract_tokens(&[p.reply_to[0].address.clone()]);
    assert!(verify(KEY, "brawner", "gibbon", 3, &tokens[0]));
}

#[test]
fn composing_is_deterministic_so_resends_are_duplicates() {
    assert_eq!(
        compose(&report(true, true)).unwrap(),
        compose(&report(true, true)).unwrap()
    );
}

#[test]
fn html_alternative_with_png_attachment() {
    let msg = report(true, true);
    let bytes = compose(&msg).unwrap();
    let m = mailparse::parse_mail(&bytes).unwrap();
    assert_eq!(m.ctype.mimetype, "multipart/mixed");
    assert_eq!(m.subparts.len(), 2);
    let alt = &m.subparts[0];
    assert_eq!(alt.ctype.mimetype, "multipart/alternative");
    assert_eq!(alt.subparts[0].ctype.mimetype, "text/plain");
    assert_eq!(alt.subparts[1].ctype.mimetype, "text/html");
    assert!(
        alt.subparts[1]
            .get_body()
            .unwrap()
            .contains("<p>Turn 3.</p>")
    );
    let png = &m.subparts[1];
    assert_eq!(png.ctype.mimetype, "image/png");
    assert_eq!(png.get_body_raw().unwrap(), msg.attachments[0].data);
    assert_eq!(
        png.get_content_disposition()
            .params
            .get("filename")
            .map(String::as_str),
        Some("map-turn-3.png")
    );

    // Our inbound parser prefers the text part and notes the map.
    let p = parse_inbound(&bytes, &Limits::default());
    assert_eq!(p.body_source, BodySource::Plain);
    assert!(p.text.starts_with("Turn 3."));
    assert_eq!(p.attachments.len(), 1);
    assert_eq!(p.attachments[0].filename.as_deref(), Some("map-turn-3.png"));
}

#[test]
fn our_own_mail_coming_back_is_never_answered() {
    let bytes = compose(&report(true, false)).unwrap();
    let p = parse_inbound(&bytes, &Limits::default());
    let c = classify(
        &p,
        &["adjutant@example.org".to_string()],
        "adjutant.example.org",
    );
    assert_eq!(c, Class::Own);
    // Even with a different From, Auto-Submitted stops it.
    let c = classify(&p, &[], "other.example");
    assert!(matches!(c, Class::Automatic(_)), "{c:?}");
}

#[test]
fn bad_input_is_an_error_not_a_broken_mail() {
    let mut m = report(false, false);
    m.to = vec![Mailbox::new("gibbon@example.com\r\nBcc: all@example.com")];
    assert!(compose(&m).is_err());
    let mut m = report(false, false);
    m.to.clear();
    assert!(compose(&m).is_err());
    let mut m = report(false, false);
    m.message_id = "no at sign".into();
    assert!(compose(&m).is_err());
    let mut m = report(false, false);
    m.subject = "Turn 3\r\nBcc: all@example.com".into();
    let bytes = compose(&m).unwrap();
    let parsed = mailparse::parse_mail(&bytes).unwrap();
    assert!(parsed.headers.get_first_value("Bcc").is_none());
}
