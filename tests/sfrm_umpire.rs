//! Issue #19: an umpired SFRM game through the binary. A processed turn is
//! held: the umpire gets his report (every unit by name), the players get
//! nothing until his RELEASE, which queues their reports unchanged; REPORT
//! asks a player's stored report again.

mod common;
mod fog_support;

use common::{GameDir, adjutant};
use fog_support::decode;

const UMP: &str = "ump@example.test";

fn umpired() -> GameDir {
    GameDir::with_scenario_and("bull", "scenarios/first-bull-run.toml", &["--umpire", UMP])
}

fn mails_to(g: &GameDir, to: &str) -> Vec<fog_support::Mail> {
    g.outbox_all()
        .iter()
        .enumerate()
        .map(|(i, m)| decode(&i.to_string(), m.as_bytes()))
        .filter(|m| m.to.contains(to))
        .collect()
}

#[test]
fn sfrm_held_turn_waits_for_release() {
    let g = umpired();
    g.order_mail(
        "u1",
        "mcdowell@example.test",
        "McDowell",
        "Burnside's brigade: advance to Matthews Hill\nREADY",
    );
    g.order_mail(
        "c1",
        "johnston@example.test",
        "Johnston",
        "Evans's brigade: hold Matthews Hill\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 2);
    let held: String = g
        .db()
        .query_row("SELECT status FROM turns WHERE number = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(held, "held");
    // The umpire has his report, with every unit by its real name; the
    // players have their briefing and receipt, no results.
    let umpire = mails_to(&g, UMP);
    let report = umpire
        .iter()
        .find(|m| m.subject.contains("turn 1 (umpire)"))
        .expect("the umpire's report");
    assert!(report.body.contains("Evans's brigade"), "{}", report.body);
    assert!(report.body.contains("HELD"), "{}", report.body);
    assert!(
        !mails_to(&g, "mcdowell@")
            .iter()
            .any(|m| m.subject.contains("turn 1 results"))
    );
    assert_eq!(g.count("SELECT count(*) FROM held_mail"), 2);
    // REDO is not available for an SFRM game yet: refused, with what to do.
    let out = adjutant(g.dir.path())
        .args(["umpire", "bull", "REDO"])
        .env("USER", "alice")
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("RELEASE the held turn"), "{said}");
    assert_eq!(g.count("SELECT count(*) FROM held_mail"), 2);
    // RELEASE queues them as composed.
    let said = g.umpire("RELEASE");
    assert!(said.contains("turn 1 released"), "{said}");
    g.run_once();
    let union = mails_to(&g, "mcdowell@");
    let results = union
        .iter()
        .find(|m| m.subject.contains("turn 1 results"))
        .expect("the Union's report after RELEASE");
    assert!(results.body.contains("Burnside's brigade"));
    assert!(
        !results.body.contains("Evans's brigade"),
        "{}",
        results.body
    );
    // REPORT 1 sends his stored report of turn 1 again.
    g.order_mail("u2", "mcdowell@example.test", "McDowell", "REPORT 1");
    g.run_once();
    let again = mails_to(&g, "mcdowell@")
        .into_iter()
        .filter(|m| m.subject.to_lowercase().contains("turn 1 results"))
        .count();
    assert_eq!(again, 2, "REPORT 1 resent the turn 1 report");
}
