//! A game by mail on the embedded default, through the binary: orders read
//! and receipted, a bad paragraph reported while the good ones count, early
//! processing once every player is READY, standing orders kept by a player
//! who sends nothing.

mod common;
use common::GameDir;

fn decoded(mails: &[String]) -> String {
    // Receipts are plain text, possibly quoted-printable: undo soft breaks.
    mails.join("\n").replace("=\r\n", "").replace("=3D", "=")
}

#[test]
fn orders_are_read_receipted_and_the_turn_runs_when_all_are_ready() {
    let g = GameDir::training("mill");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to the crossroads in line.\n\n\
         12th Ohio: advanse to the moon.\n\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold.\n\nREADY",
    );
    g.run_once();

    let out = decoded(&g.outbox());
    assert!(out.contains("Orders as understood"), "{out}");
    assert!(out.contains("10th Ohio"), "{out}");
    assert!(out.contains("takes effect on turn 1"), "{out}");
    // The bad paragraph is reported with its line; the good one counted.
    assert!(out.contains("Not understood"), "{out}");
    assert!(out.contains("line "), "{out}");
    // A READY beside a refused order is not counted (issue #15): the
    // player believed all his orders were in. The receipt says so at its
    // top, with the unit that keeps its previous orders.
    assert!(out.contains("Your READY was NOT counted"), "{out}");
    assert!(
        out.contains("These units keep their previous orders: 12th Ohio"),
        "{out}"
    );
    assert_eq!(g.count("SELECT COUNT(*) FROM orders"), 2);
    assert_eq!(g.open_turn(), 1);
    g.order_mail(
        "blue2",
        "blue@example.test",
        "Blue",
        "12th Ohio: hold.\n\nREADY",
    );
    g.run_once();
    assert!(decoded(&g.outbox()).contains("You are READY"));
    assert_eq!(g.count("SELECT COUNT(*) FROM orders"), 3);

    // Both players are now ready, so the turn was processed in that cycle.
    assert_eq!(g.open_turn(), 2);
    let json: String = g
        .db()
        .query_row("SELECT state_json FROM turns WHERE number = 2", [], |r| {
            r.get(0)
        })
        .unwrap();
    let snap = adjutant::game::snapshot::Snapshot::from_json(&json).unwrap();
    let ohio = snap
        .battle
        .units
        .iter()
        .find(|u| u.name == "10th Ohio")
        .unwrap();
    assert!(
        ohio.position.y > 11.0,
        "the 10th Ohio advanced north: {:?}",
        ohio.position
    );
}

#[test]
fn a_turn_waits_until_every_player_is_ready() {
    let g = GameDir::training("mill");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: hold.\n\nREADY",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 1, "Grey has not sent READY");
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2);
}

#[test]
fn an_unseen_enemy_is_answered_like_gibberish() {
    let g = GameDir::training("mill");
    // At the start the Confederates stand beyond the wood and the stream;
    // an order naming one that Blue cannot see must not confirm it exists.
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "Battery A: fire at the 7th Tennessee.\n\n10th Ohio: fire at the Zorblax Rifles.",
    );
    g.run_once();
    let out = decoded(&g.outbox());
    let seen = adjutant::game::snapshot::Snapshot::from_json(
        &g.db()
            .query_row("SELECT state_json FROM turns WHERE number = 1", [], |r| {
                r.get::<_, String>(0)
            })
            .unwrap(),
    )
    .unwrap();
    assert!(seen.battle.units.iter().any(|u| u.name == "7th Tennessee"));
    assert!(!out.contains("7th Tennessee\n    takes effect"), "{out}");
    assert!(
        out.contains("Zorblax"),
        "the player's own words may be quoted: {out}"
    );
}
