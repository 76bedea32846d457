//! Issue #15 through the binary: a player writes orders the way players
//! do — colour, "&", "conform to", "rally", "ride with" — and reads in his
//! receipt what each became; a battery ordered into skirmish order is
//! refused with the rule; the turn carries the new readings out.

mod common;
use adjutant::game::snapshot::Snapshot;
use common::GameDir;

fn decoded(mails: &[String]) -> String {
    // Receipts are plain text, possibly quoted-printable: undo soft breaks.
    mails
        .join("\n")
        .replace("=\r\n", "")
        .replace("=3D", "=")
        .replace("=E2=80=94", "—")
        .replace("=C2=B0", "°")
        .replace("=22", "\"")
}

fn state(g: &GameDir, turn: u32) -> Snapshot {
    let json: String = g
        .db()
        .query_row(
            "SELECT state_json FROM turns WHERE number = ?1 AND superseded_at IS NULL",
            [turn],
            |r| r.get(0),
        )
        .unwrap();
    Snapshot::from_json(&json).unwrap()
}

#[test]
fn a_player_reads_what_his_words_became_and_the_turn_does_it() {
    let g = GameDir::training("mill");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: adv to the crossroads & hold at all costs\n\n\
         12th Ohio: conform to the 10th Ohio\n\n\
         14th Ohio: rally\n\n\
         Battery A: form skirmish order\n\n\
         Hale: ride with the 10th Ohio\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold\n\nREADY",
    );
    g.run_once();
    let mails = g.outbox();
    let blue: Vec<String> = mails
        .iter()
        .filter(|m| m.contains("To: Blue") || m.contains("blue@example.test"))
        .filter(|m| m.contains("Orders received") || m.contains("Orders as understood"))
        .cloned()
        .collect();
    let out = decoded(&blue);
    for want in [
        "10th Ohio: advance to Miller's Crossroads",
        "then hold",
        "'at all costs' kept as colour, not an order",
        "12th Ohio: follow 10th Ohio, keeping station on it",
        "'conform to the 10th Ohio' read as: follow its moves",
        "14th Ohio: hold",
        "'rally' read as: hold",
        "APSoF VI.E.1",
        "artillery is either limbered or unlimbered (APSoF III.D)",
        "Colonel Hale: ride with 10th Ohio (he goes where it goes this turn",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }

    // A READY beside a refused order does not count (docs/mail.md); the
    // receipt says so, and Blue, content with the rest, sends READY alone.
    assert_eq!(g.open_turn(), 1);
    g.order_mail("blue2", "blue@example.test", "Blue", "READY");
    g.run_once();
    // Both are READY: the turn ran.
    assert_eq!(g.open_turn(), 2);
    let (before, after) = (state(&g, 1), state(&g, 2));
    let unit = |s: &Snapshot, n: &str| {
        s.battle
            .units
            .iter()
            .find(|u| u.name == n)
            .unwrap()
            .position
    };
    let (t0, t1) = (unit(&before, "10th Ohio"), unit(&after, "10th Ohio"));
    assert!(
        t1.y > t0.y + 1.0,
        "the 10th Ohio advanced: {t0:?} -> {t1:?}"
    );
    // The 12th conformed: it moved north with the 10th, keeping station
    // behind it.
    let (w0, w1) = (unit(&before, "12th Ohio"), unit(&after, "12th Ohio"));
    assert!(
        w1.y > w0.y + 1.0,
        "the 12th Ohio followed: {w0:?} -> {w1:?}"
    );
    assert!(w1.y < t1.y, "still behind the 10th: {w1:?} / {t1:?}");
    // Hale rode with the 10th Ohio to where it went, not to where it was.
    let hale = after
        .battle
        .officers
        .iter()
        .find(|o| o.name == "Colonel Hale")
        .unwrap()
        .position;
    assert!(
        hale.distance(t1) < 0.5,
        "Hale is with the 10th Ohio: {hale:?} / {t1:?}"
    );
    // The rally reading held the 14th where it stood.
    assert_eq!(unit(&before, "14th Ohio"), unit(&after, "14th Ohio"));
}
