//! Sender authentication: secrets, reply tokens and who gets told.

use adjutant::mail::auth::{
    AuthMethod, AuthOutcome, Registered, RejectReason, TokenContext, authenticate, extract_password,
};
use adjutant::mail::parse::{Limits, parse_inbound};
use adjutant::mail::token::{extract_tokens, make_reply_to, make_token};
use adjutant::secret::{generate_secret, hash_secret};

const KEY: &[u8] = b"server key for tests, 32 bytes!!";

struct Fixture {
    secret: String,
    phc: String,
    addresses: Vec<String>,
}

fn fixture() -> Fixture {
    let secret = generate_secret().unwrap();
    Fixture {
        phc: hash_secret(&secret).unwrap(),
        secret,
        addresses: vec![
            "gibbon@example.com".to_string(),
            "j.gibbon@work.example.net".to_string(),
        ],
    }
}

fn ctx() -> TokenContext<'static> {
    TokenContext {
        key: KEY,
        game: "brawner",
        player: "gibbon",
        turns: &[4, 3],
    }
}

/// Run a raw mail through parse → password extraction → token extraction →
/// authenticate, as intake will.
fn auth_mail(f: &Fixture, raw: &str) -> (AuthOutcome, String) {
    let p = parse_inbound(raw.as_bytes(), &Limits::default());
    let pw = extract_password(&p.text);
    let tokens = extract_tokens(&p.recipient_addresses());
    let reg = Registered {
        addresses: &f.addresses,
        secret_phc: Some(&f.phc),
    };
    let from = p.from.as_ref().map(|m| m.address.as_str());
    (
        authenticate(&pw.candidates, &tokens, from, &reg, &ctx()),
        pw.text,
    )
}

#[test]
fn all_outcomes_through_real_mail() {
    let f = fixture();
    let token3 = make_token(KEY, "brawner", "gibbon", 3).unwrap();
    let reply_to = make_reply_to("adjutant@example.org", &token3).unwrap();

    // 1. Password from an unregistered address (new phone): accepted, and
    //    the password line never reaches the order parser.
    let (o, text) = auth_mail(
        &f,
        &format!(
            "From: John <john.phone@mobile.example>\r\nTo: adjutant@example.org\r\nSubject: orders\r\n\r\nPassword: {}\r\n2nd Wisconsin: advance.\r\n",
            f.secret.to_uppercase()
        ),
    );
    assert_eq!(
        o,
        AuthOutcome::Accepted {
            method: AuthMethod::Password,
            sender_registered: false
        }
    );
    assert_eq!(text, "2nd Wisconsin: advance.");

    // 2. Reply token from a registered address: accepted for turn 3.
    let (o, _) = auth_mail(
        &f,
        &format!(
            "From: Gibbon@Example.com\r\nTo: Adjutant <{reply_to}>\r\nSubject: Re: Turn 3\r\n\r\nhold\r\n"
        ),
    );
    assert_eq!(
        o,
        AuthOutcome::Accepted {
            method: AuthMethod::ReplyToken { turn: 3 },
            sender_registered: true
        }
    );

    // 3. Forged From with a leaked token: rejected; notice to the
    //    registered address, never to the forger.
    let (o, _) = auth_mail(
        &f,
        &format!("From: forger@evil.example\r\nTo: {reply_to}\r\n\r\nretreat\r\n"),
    );
    assert_eq!(
        o,
        AuthOutcome::Rejected {
            reason: RejectReason::UnregisteredSender,
            notify: Some("gibbon@example.com".to_string())
        }
    );

    // 4. Forged registered From, no secret at all: rejected, told to the
    //    registered (first) address.
    let (o, _) = auth_mail(
        &f,
        "From: gibbon@example.com\r\nTo: adjutant@example.org\r\n\r\nretreat\r\n",
    );
    assert_eq!(
        o,
        AuthOutcome::Rejected {
            reason: RejectReason::NoSecret,
            notify: Some("gibbon@example.com".to_string())
        }
    );

    // 5. Wrong password.
    let (o, _) = auth_mail(
        &f,
        "From: gibbon@example.com\r\nTo: adjutant@example.org\r\n\r\nPASSWORD aaaa-bbbb-cccc-dddd\r\nretreat\r\n",
    );
    assert!(matches!(
        o,
        AuthOutcome::Rejected {
            reason: RejectReason::WrongPassword,
            ..
        }
    ));

    // 6. A token for a turn no longer accepted, or for another player.
    let old = make_token(KEY, "brawner", "gibbon", 1).unwrap();
    let other = make_token(KEY, "brawner", "doubleday", 4).unwrap();
    for t in [old, other] {
        let (o, _) = auth_mail(
            &f,
            &format!("From: gibbon@example.com\r\nTo: adjutant+{t}@example.org\r\n\r\nhold\r\n"),
        );
        assert!(matches!(
            o,
            AuthOutcome::Rejected {
                reason: RejectReason::InvalidToken,
                ..
            }
        ));
    }
}

#[test]
fn token_in_delivered_to_counts_when_the_client_rewrote_to() {
    let f = fixture();
    let t = make_token(KEY, "brawner", "gibbon", 4).unwrap();
    let (o, _) = auth_mail(
        &f,
        &format!(
            "Delivered-To: adjutant+{t}@example.org\r\nFrom: gibbon@example.com\r\nTo: adjutant@example.org\r\n\r\nhold\r\n"
        ),
    );
    assert_eq!(
        o,
        AuthOutcome::Accepted {
            method: AuthMethod::ReplyToken { turn: 4 },
            sender_registered: true
        }
    );
}

#[test]
fn player_without_password_or_addresses_is_rejected_without_notice() {
    let reg = Registered {
        addresses: &[],
        secret_phc: None,
    };
    let o = authenticate(
        &["guess".to_string()],
        &[],
        Some("x@example.com"),
        &reg,
        &ctx(),
    );
    assert_eq!(
        o,
        AuthOutcome::Rejected {
            reason: RejectReason::WrongPassword,
            notify: None
        }
    );
}

#[test]
fn a_malformed_stored_hash_rejects_instead_of_panicking() {
    let addresses = vec!["gibbon@example.com".to_string()];
    let reg = Registered {
        addresses: &addresses,
        secret_phc: Some("$argon2id$garbage"),
    };
    let o = authenticate(
        &["anything".to_string()],
        &[],
        Some("gibbon@example.com"),
        &reg,
        &ctx(),
    );
    assert!(matches!(o, AuthOutcome::Rejected { .. }));
}
