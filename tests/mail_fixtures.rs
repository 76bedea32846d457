//! Realistic client mails (tests/fixtures/mail/): parsing, cleaning and
//! classification as intake will see them.

use adjutant::mail::auth::{
    AuthOutcome, Registered, RejectReason, TokenContext, authenticate, extract_password,
};
use adjutant::mail::bounce::BounceFormat;
use adjutant::mail::classify::{AutoReason, Class, classify};
use adjutant::mail::parse::{BodySource, InboundParsed, Limits, parse_inbound};
use adjutant::mail::token::extract_tokens;

const TOKEN: &str = "zoheak7ecbiop3wk";

fn load(name: &str) -> InboundParsed {
    let path = format!("{}/tests/fixtures/mail/{name}", env!("CARGO_MANIFEST_DIR"));
    let raw = std::fs::read(&path).unwrap();
    parse_inbound(&raw, &Limits::default())
}

fn class_of(p: &InboundParsed) -> Class {
    classify(
        p,
        &["adjutant@example.org".to_string()],
        "adjutant.example.org",
    )
}

/// Order mails from each client: the text the order parser gets, and that
/// they may be answered.
#[test]
fn order_mails_from_each_client_yield_only_the_orders() {
    let cases: &[(&str, BodySource, &str)] = &[
        (
            "gmail_reply_alternative.eml",
            BodySource::Plain,
            "2nd Wisconsin: advance to the Brawner farm in line; fire at will.\n\n6th Wisconsin: march by the turnpike to the edge of the woods, then form line facing north.",
        ),
        (
            "thunderbird_plain_signature.eml",
            BodySource::Plain,
            "PASSWORD k7qd-m2xa-p4rt-zn5e\n19th Indiana: hold and lie down.\nBattery B: unlimber facing north-west; fire at the nearest enemy battery.",
        ),
        (
            "outlook_reply_windows1252.eml",
            BodySource::Plain,
            "Doubleday is coming up \u{2013} hold the line.\n2nd Wisconsin: hold; fire at will.",
        ),
        (
            "apple_mail_qp.eml",
            BodySource::Plain,
            "24th Michigan: advance in column of companies to the fence.",
        ),
        (
            "html_only.eml",
            BodySource::Html,
            "6th Wisconsin: march by the turnpike to the edge of the woods.\n\n2nd Wisconsin: hold.",
        ),
        (
            "base64_utf8.eml",
            BodySource::Plain,
            "Batterie B: abprotzen, Front nach Nordwesten \u{2014} Feuer auf die n\u{e4}chste Batterie.\n19th Indiana: hold.",
        ),
        (
            "iso8859_1_qp.eml",
            BodySource::Plain,
            "Compagnie fran\u{e7}aise: avancez jusqu'\u{e0} la cl\u{f4}ture.\n\u{c9}tat-major: restez.",
        ),
        (
            "windows1252_8bit.eml",
            BodySource::Plain,
            // The non-breaking space became a plain one.
            "Dispatch to King: \u{201c}Enemy in force at the farm. Request Doubleday\u{2019}s brigade.\u{201d}",
        ),
        (
            "mixed_with_attachment.eml",
            BodySource::Plain,
            "2nd Wisconsin: advance to the Brawner farm in line.",
        ),
    ];
    for (name, source, text) in cases {
        let p = load(name);
        assert_eq!(&p.text, text, "{name}");
        assert_eq!(p.body_source, *source, "{name}");
        assert!(p.warnings.is_empty(), "{name}: {:?}", p.warnings);
        assert!(p.over_limit.is_none(), "{name}");
        assert_eq!(class_of(&p), Class::Normal, "{name}");
        assert_eq!(p.sha256.len(), 64);
        assert!(p.message_id.is_some(), "{name}");
    }
}

#[test]
fn headers_decoded_from_encoded_words() {
    let p = load("base64_utf8.eml");
    assert_eq!(p.subject.as_deref(), Some("Befehle \u{2014} Runde 4"));
    let from = p.from.unwrap();
    assert_eq!(
        from.name.as_deref(),
        Some("Solomon Meredith \u{2014} 19th Ind.")
    );
    assert_eq!(from.address, "solomon.meredith@gmail.com");

    let p = load("iso8859_1_qp.eml");
    assert_eq!(
        p.subject.as_deref(),
        Some("Ordres \u{e0} la fran\u{e7}aise")
    );
    assert_eq!(p.from.unwrap().name.as_deref(), Some("Andr\u{e9} Ducrot"));
}

#[test]
fn gmail_reply_threading_and_token() {
    let p = load("gmail_reply_alternative.eml");
    assert_eq!(
        p.message_id.as_deref(),
        Some("CAF8kq2Zx+Lq1c9u5VtT0yV=m2aH4mYwqZ1Y1H2oU0p7rKk3kUw@mail.gmail.com")
    );
    assert_eq!(
        p.in_reply_to,
        vec!["report.brawner.3-gibbon@adjutant.example.org"]
    );
    assert_eq!(p.return_path.as_deref(), Some("john.gibbon@gmail.com"));
    assert_eq!(extract_tokens(&p.recipient_addresses()), vec![TOKEN]);
    assert!(p.quoted_lines_removed > 0);
}

#[test]
fn attachments_are_noted_not_read() {
    let p = load("mixed_with_attachment.eml");
    assert_eq!(p.attachments.len(), 1);
    assert_eq!(p.attachments[0].filename.as_deref(), Some("sketch.docx"));
    assert!(
        p.attachments[0]
            .content_type
            .starts_with("application/vnd.openxml")
    );
}

#[test]
fn password_line_from_thunderbird_is_taken_out_of_the_orders() {
    let p = load("thunderbird_plain_signature.eml");
    assert!(p.signature_cut);
    let pw = extract_password(&p.text);
    assert_eq!(pw.candidates, vec!["k7qd-m2xa-p4rt-zn5e"]);
    assert!(!pw.text.to_lowercase().contains("password"));
}

#[test]
fn out_of_office_replies_are_automatic() {
    let p = load("exchange_out_of_office.eml");
    assert!(
        matches!(class_of(&p), Class::Automatic(AutoReason::AutoSubmitted(ref v)) if v == "auto-generated")
    );
    let p = load("gmail_vacation.eml");
    assert!(
        matches!(class_of(&p), Class::Automatic(AutoReason::AutoSubmitted(ref v)) if v == "auto-replied")
    );
}

#[test]
fn mailing_list_mail_is_automatic() {
    let p = load("mailing_list.eml");
    assert!(matches!(class_of(&p), Class::Automatic(_)));
}

#[test]
fn postfix_dsn_names_recipient_status_and_our_message() {
    let p = load("postfix_dsn_bounce.eml");
    assert_eq!(p.return_path.as_deref(), Some(""));
    let Class::Bounce(b) = class_of(&p) else {
        panic!("not a bounce")
    };
    assert_eq!(b.format, BounceFormat::Dsn);
    assert_eq!(b.reporting_mta.as_deref(), Some("mx.example.org"));
    assert_eq!(b.recipients.len(), 1);
    let r = &b.recipients[0];
    assert_eq!(r.address, "gone@ironbrigade.example");
    assert_eq!(r.action.as_deref(), Some("failed"));
    assert_eq!(r.status.as_deref(), Some("5.1.1"));
    assert!(r.diagnostic.as_deref().unwrap().contains("User unknown"));
    assert!(b.is_permanent_failure());
    assert_eq!(
        b.original_message_id.as_deref(),
        Some("report.brawner.3-gone@adjutant.example.org")
    );
}

#[test]
fn exim_and_qmail_text_bounces_are_read() {
    let Class::Bounce(b) = class_of(&load("exim_bounce.eml")) else {
        panic!("exim: not a bounce")
    };
    assert_eq!(b.format, BounceFormat::Exim);
    assert_eq!(b.recipients.len(), 1);
    assert_eq!(b.recipients[0].address, "doubleday@oldisp.example");
    assert_eq!(b.recipients[0].status.as_deref(), Some("5.2.1"));
    assert_eq!(
        b.original_message_id.as_deref(),
        Some("report.brawner.3-doubleday@adjutant.example.org")
    );

    let Class::Bounce(b) = class_of(&load("qmail_bounce.eml")) else {
        panic!("qmail: not a bounce")
    };
    assert_eq!(b.format, BounceFormat::Qmail);
    assert_eq!(b.recipients[0].address, "hatch@oldhost.example");
    assert_eq!(b.recipients[0].status.as_deref(), Some("5.1.1"));
    assert_eq!(
        b.original_message_id.as_deref(),
        Some("report.brawner.3-hatch@adjutant.example.org")
    );
}

#[test]
fn forged_from_is_rejected_and_the_real_player_is_told() {
    let p = load("forged_from.eml");
    // It looks like ordinary mail: classification alone cannot catch it.
    assert_eq!(class_of(&p), Class::Normal);
    let pw = extract_password(&p.text);
    let tokens = extract_tokens(&p.recipient_addresses());
    let addresses = vec!["gibbon@ironbrigade.example".to_string()];
    let reg = Registered {
        addresses: &addresses,
        secret_phc: None,
    };
    let ctx = TokenContext {
        key: b"k",
        game: "brawner",
        player: "gibbon",
        turns: &[3],
    };
    let from = p.from.as_ref().map(|m| m.address.as_str());
    assert_eq!(
        authenticate(&pw.candidates, &tokens, from, &reg, &ctx),
        AuthOutcome::Rejected {
            reason: RejectReason::NoSecret,
            notify: Some("gibbon@ironbrigade.example".to_string())
        }
    );
}
