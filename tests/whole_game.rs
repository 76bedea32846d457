//! Issue #14 §6: each shipped scenario played to its last turn by mail
//! through the binary. Every player writes orders for every unit each turn
//! (`fog_support::orders_for`: marches behind the enemy's line, and probes
//! that name hidden enemies by their real names, use designations and
//! descriptions), every turn advances on READY, and after every turn:
//! nothing sent to a player leaks (§1), every order is understood or
//! refused with a reason, no unit is both gone and shown alive; at the end
//! `adjutant replay` agrees with every turn, and the exported archive's
//! side pages name no enemy either.
//!
//! Time per turn is a benchmark's business (`benches/turn.rs`), not an
//! assertion here. Measured on a loaded 2-core machine, debug build: both
//! games together about two minutes (the mails answer reply tokens, not
//! PASSWORD lines, whose Argon2 hash would dominate a debug run).

mod common;
mod fog_support;

use fog_support::{Play, assert_gone_not_alive, orders_for, receipt_answers};

fn play_to_the_last_turn(name: &str, path: &str) {
    let mut play = Play::new(name, path);
    let last = play.scenario.last_turn;
    let players = play.players.clone();
    // The briefings `game create` sent: checked against the opening state
    // they describe (a later turn's dice may have destroyed a unit since).
    let start = play.open_state();
    for m in &play.new_mails() {
        let Some(p) = play.reader(m) else { continue };
        play.assert_no_leak(m, &p, &[&start]);
        assert_gone_not_alive(&play, m, &p, &start);
    }
    let mut final_mails = Vec::new();
    for turn in 1..=last {
        assert_eq!(play.open_turn(), Some(turn));
        let before = play.open_state();
        for p in &players {
            let sees = Play::sees(&before, p.side);
            play.seen_ever.entry(p.side).or_default().extend(sees);
        }
        let mut written = Vec::new();
        for p in &players {
            let (body, n) = orders_for(&play, &before, p, turn);
            play.send_ready(p, &body);
            written.push((p.name.clone(), n));
        }
        play.g.run_once();
        assert_eq!(play.open_turn(), Some(turn + 1), "turn {turn} ran on READY");
        play.note_sightings();
        let after = play.open_state();
        let mails = play.new_mails();
        for m in &mails {
            let Some(p) = play.reader(m) else { continue };
            play.assert_no_leak(m, &p, &[&before, &after]);
            assert_gone_not_alive(&play, m, &p, &after);
        }
        for (player, n) in written {
            let p = players.iter().find(|p| p.name == player).unwrap();
            let receipt = mails
                .iter()
                .find(|m| m.subject.starts_with("Orders received") && m.to.contains(&p.address))
                .unwrap_or_else(|| panic!("no receipt for {player} on turn {turn}"));
            assert_eq!(
                receipt_answers(&receipt.body),
                n,
                "turn {turn}: every order of {player} is understood or refused with a reason:\n{}",
                receipt.body
            );
            assert!(
                !receipt.body.contains("Something happened"),
                "{}",
                receipt.body
            );
        }
        if turn == last {
            final_mails = mails;
        }
    }
    // The last turn's reports tell the end of the battle and its result,
    // ask for no more orders, and the game is over.
    let reports: Vec<_> = final_mails
        .iter()
        .filter(|m| m.subject.contains("results"))
        .collect();
    assert!(reports.len() >= players.len(), "{} reports", reports.len());
    for m in reports {
        assert!(
            m.subject.contains("the battle is over"),
            "subject: {}",
            m.subject
        );
        assert!(m.body.contains("THE BATTLE IS OVER"), "{}", m.body);
        assert!(m.body.contains("on objectives"), "{}", m.body);
        assert!(!m.body.contains("ORDERS -- edit below"), "{}", m.body);
        assert!(!m.body.contains("orders now for turn"), "{}", m.body);
    }
    let status: String = play
        .g
        .db()
        .query_row("SELECT status FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "finished");
    play.assert_replay_agrees();
    // The archive's side pages keep the same policy.
    assert!(play.assert_archive_side_pages_keep_the_policy() >= last as usize);
}

#[test]
fn training_is_played_to_its_last_turn_without_a_leak() {
    play_to_the_last_turn("mill", "scenarios/training.toml");
}

#[test]
fn brawners_farm_is_played_to_its_last_turn_without_a_leak() {
    play_to_the_last_turn("brawner", "scenarios/brawners-farm.toml");
}
