//! Issue #14 §1: one identity policy for the enemy, through the binary.
//! Enemies are called by the designation their side gave them ("B") in
//! reports, receipts, suggestions and errors alike; players use it in
//! orders, with descriptions ("the enemy", "the enemy battery"); a real
//! name the policy hides is answered like a word that names nothing; and a
//! scenario that declares identities known gets real names everywhere.

mod common;
mod fog_support;

use adjutant::rules::iron_brigade::state::{BattleState, UnitId};
use fog_support::{Play, Player, orders_for, section};
use std::collections::BTreeMap;

/// Plays turns (everyone marching on the far side, READY) until `player`'s
/// side sees an enemy it has designated; returns that enemy and its letter.
fn until_in_sight(play: &mut Play, player: &Player) -> (UnitId, String) {
    let players = play.players.clone();
    for turn in 1..=12 {
        let state = play.open_state();
        let sees = Play::sees(&state, player.side);
        let letters = play.designations(player.side);
        if let Some((id, l)) = letters.iter().find(|(id, _)| sees.contains(id)) {
            return (*id, l.clone());
        }
        for p in &players {
            let (body, _) = orders_for(play, &state, p, 12 + turn);
            play.send_ready(p, &body);
        }
        play.g.run_once();
        play.note_sightings();
        let _ = play.new_mails();
    }
    panic!("{} never saw the enemy", player.name);
}

fn receipt_for<'a>(mails: &'a [fog_support::Mail], p: &Player) -> &'a fog_support::Mail {
    mails
        .iter()
        .find(|m| m.subject.starts_with("Orders received") && m.to.contains(&p.address))
        .expect("a receipt")
}

fn check_all(play: &mut Play, states: &[&BattleState]) -> Vec<fog_support::Mail> {
    play.note_sightings();
    let mails = play.new_mails();
    for m in &mails {
        if let Some(p) = play.reader(m) {
            play.assert_no_leak(m, &p, states);
        }
    }
    mails
}

#[test]
fn designations_name_the_enemy_in_reports_receipts_and_orders() {
    let mut play = Play::new("mill", "scenarios/training.toml");
    let blue = play
        .players
        .iter()
        .find(|p| p.name == "Blue")
        .unwrap()
        .clone();
    let (enemy, letter) = until_in_sight(&mut play, &blue);
    let state = play.open_state();
    let label = format!("enemy {letter}");
    let own: Vec<String> = play
        .units_of(&state, &blue)
        .iter()
        .map(|id| state.unit(*id).unwrap().name.clone())
        .collect();
    let hidden_name = state.unit(enemy).unwrap().name.clone();
    let unseen: Vec<String> = state
        .units
        .iter()
        .filter(|u| u.side != blue.side && !Play::sees(&state, blue.side).contains(&u.id))
        .map(|u| u.name.clone())
        .collect();
    let mut body = vec![
        format!("{}: fire at {letter}.", own[0]),
        format!("{}: fire at the {hidden_name}.", own[1]),
        format!("{}: face the enemy.", own[2]),
        format!("{}: advance toward {letter}.", own[3 % own.len()]),
    ];
    if let Some(u) = unseen.first() {
        body.push(format!("{}: advance to the {u}.", own[1]));
    }
    play.send(&blue, &body.join("\n\n"));
    play.g.run_once();
    let mails = check_all(&mut play, &[&state]);
    let receipt = receipt_for(&mails, &blue);
    // What Adjutant wrote, without Blue's own words quoted back.
    let r = &fog_support::scrub_echo(&receipt.body);
    // The letter is understood, and written back as the report calls it.
    assert!(r.contains(&format!("{}: fire at {label}", own[0])), "{r}");
    assert!(
        r.contains(&format!("{}: face toward enemy ", own[2])),
        "{r}"
    );
    assert!(
        r.contains(&format!("{}: advance to (", own[3 % own.len()])),
        "{r}"
    );
    // The real name of an enemy in sight is refused like a word that
    // names nothing, with no real name suggested.
    assert!(r.contains("no enemy unit in sight is called"), "{r}");
    assert!(!r.contains(&hidden_name), "{r}");
    if !unseen.is_empty() {
        assert!(
            r.contains("is not a landmark, feature or unit you know of"),
            "{r}"
        );
    }

    // The report for the next turn uses the same letter for the same unit
    // (or keeps it among the last known), and so does every later receipt.
    let state = play.open_state();
    for p in play.players.clone() {
        play.send(&p, "READY");
    }
    play.g.run_once();
    let after = play.open_state();
    let mails = check_all(&mut play, &[&state, &after]);
    // His report of turn 1, not the briefing before it.
    let report = mails
        .iter()
        .rev()
        .find(|m| m.to.contains(&blue.address) && m.body.contains("\nYOUR UNITS\n"))
        .expect("Blue's report");
    let enemy_lines = [
        section(&report.body, "ENEMY IN SIGHT"),
        section(&report.body, "ENEMY SEEN EARLIER, NOT IN SIGHT NOW"),
    ]
    .concat()
    .join("\n");
    assert!(
        enemy_lines.contains(&format!("  {letter}. ")),
        "{}",
        report.body
    );
    assert_eq!(
        play.designations(blue.side)[&enemy],
        letter,
        "never re-assigned"
    );
    // Letters are unique per side and stay with their units.
    let letters: BTreeMap<UnitId, String> = play.designations(blue.side);
    let mut distinct: Vec<&String> = letters.values().collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), letters.len());
    // The store keeps them so: a letter is never changed nor deleted.
    let db = play.g.db();
    assert!(
        db.execute("UPDATE enemy_designations SET designation = 'ZZ'", [])
            .is_err()
    );
    assert!(db.execute("DELETE FROM enemy_designations", []).is_err());
    assert!(
        db.execute("UPDATE enemy_designations SET last_turn = last_turn", [])
            .is_ok()
    );
}

#[test]
fn known_identities_use_real_names_in_reports_and_receipts_alike() {
    let text = std::fs::read_to_string(common::repo("scenarios/training.toml")).unwrap();
    let text = text.replacen(
        "last_turn = 24",
        "last_turn = 24\nidentities = \"known\"",
        1,
    );
    let mut play = Play::from_text("mill", &text);
    assert_eq!(
        play.scenario.identities,
        adjutant::identity::IdentityPolicy::Known
    );
    let blue = play
        .players
        .iter()
        .find(|p| p.name == "Blue")
        .unwrap()
        .clone();
    let (enemy, letter) = until_in_sight(&mut play, &blue);
    let state = play.open_state();
    let real = state.unit(enemy).unwrap().name.clone();
    let own: Vec<String> = play
        .units_of(&state, &blue)
        .iter()
        .map(|id| state.unit(*id).unwrap().name.clone())
        .collect();
    play.send(
        &blue,
        &format!(
            "{}: fire at the {real}.\n\n{}: fire at {letter}.",
            own[0], own[1]
        ),
    );
    play.g.run_once();
    let mails = check_all(&mut play, &[&state]);
    let r = &receipt_for(&mails, &blue).body;
    assert!(r.contains(&format!("{}: fire at {real}", own[0])), "{r}");
    assert!(r.contains(&format!("{}: fire at {real}", own[1])), "{r}");
    // Blue's last report named it too.
    let report = play
        .mails
        .iter()
        .rev()
        .find(|m| m.to.contains(&blue.address) && m.body.contains("\nYOUR UNITS\n"))
        .expect("a report");
    assert!(
        section(&report.body, "ENEMY IN SIGHT")
            .join("\n")
            .contains(&real),
        "{}",
        report.body
    );
}

/// Every player of both shipped scenarios probes for four turns: the
/// enemy's real names as targets and places (every one of them, seen or
/// not), designations and descriptions; no mail to him ever names an
/// enemy or places one his side has not seen.
#[test]
fn probes_by_every_player_of_both_scenarios_learn_nothing_hidden() {
    for (name, path) in [
        ("mill", "scenarios/training.toml"),
        ("brawner", "scenarios/brawners-farm.toml"),
    ] {
        let mut play = Play::new(name, path);
        let players = play.players.clone();
        for turn in 1..=4 {
            let before = play.open_state();
            for p in &players {
                let sees = Play::sees(&before, p.side);
                play.seen_ever.entry(p.side).or_default().extend(sees);
            }
            for p in &players {
                let units = play.units_of(&before, p);
                let Some(first) = units.first().and_then(|id| before.unit(*id)) else {
                    continue;
                };
                let mut probes = Vec::new();
                for e in play.scenario.units.iter().filter(|u| u.side != p.side_name) {
                    probes.push(format!("{}: fire at the {}.", first.name, e.name));
                    probes.push(format!("{}: charge the {}.", first.name, e.name));
                    probes.push(format!("{}: face the {}.", first.name, e.name));
                    // Issue #15's verbs name an enemy too.
                    probes.push(format!("{}: engage the {}.", first.name, e.name));
                    probes.push(format!("{}: shell the {}.", first.name, e.name));
                    probes.push(format!("{}: support the {}.", first.name, e.name));
                    probes.push(format!(
                        "{}: fire at the {} together with the {}.",
                        first.name, e.name, first.name
                    ));
                    for a in &e.aliases {
                        probes.push(format!("{}: advance to {a}.", first.name));
                    }
                }
                probes.push(format!("{}: face the enemy.", first.name));
                probes.push(format!("{}: advance to the nearest enemy.", first.name));
                probes.push(format!("{}: fire at the enemy battery.", first.name));
                probes.push(format!("{}: charge the regiment to our front.", first.name));
                // Nicknames and described targets (issue #15): only what
                // the side has seen may be chosen or named.
                for d in [
                    "fire on the reb battery in front of Stony Ridge",
                    "charge the Yankee line",
                    "engage the regiment to our front & hold at all costs",
                    "fire at the secesh battery near Round Hill",
                    "shell the enemy battery on the ridge",
                    "counter-battery",
                    "fire at target C",
                    "follow the enemy",
                ] {
                    probes.push(format!("{}: {d}.", first.name));
                }
                play.send(p, &probes.join("\n\n"));
                let (body, _) = orders_for(&play, &before, p, turn);
                play.send_ready(p, &body);
            }
            play.g.run_once();
            assert_eq!(play.open_turn(), Some(turn + 1));
            let after = play.open_state();
            let mails = check_all(&mut play, &[&before, &after]);
            assert!(mails.len() >= players.len() * 3, "receipts and reports");
        }
        // REPORT and HISTORY resend what was sent: still nothing hidden.
        let before = play.open_state();
        for p in &players {
            play.send(p, "REPORT\n\nHISTORY FROM 1 TO 4");
        }
        play.g.run_once();
        check_all(&mut play, &[&before]);
    }
}

#[test]
fn a_scenario_with_an_unknown_identity_policy_is_refused() {
    let text = std::fs::read_to_string(common::repo("scenarios/training.toml")).unwrap();
    let bad = text.replacen(
        "last_turn = 24",
        "last_turn = 24\nidentities = \"secret\"",
        1,
    );
    let e = adjutant::scenario::Scenario::from_toml_str(&bad, "bad.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("scenario.identities"), "{e}");
    assert!(e.contains("\"known\""), "{e}");
}

/// Issue #14 §4: the order numbers a player sees count his own side's
/// orders, so they never tell how many the enemy wrote. Grey writes three
/// orders before Blue writes his one; Blue's report calls his order #1.
#[test]
fn order_numbers_a_player_sees_count_only_his_sides_orders() {
    let mut play = Play::new("mill", "scenarios/training.toml");
    let blue = play
        .players
        .iter()
        .find(|p| p.name == "Blue")
        .unwrap()
        .clone();
    let grey = play
        .players
        .iter()
        .find(|p| p.name == "Grey")
        .unwrap()
        .clone();
    play.send(
        &grey,
        "3rd Tennessee: advance to the ford.\n\n5th Tennessee: advance to the ford.\n\n\
         7th Tennessee: advance to the ford.\n\nREADY",
    );
    play.g.run_once();
    play.send(&blue, "10th Ohio: advance to the Miller farm.\n\nREADY");
    play.g.run_once();
    assert_eq!(play.open_turn(), Some(2));
    let blue_order: i64 = play.g.count(
        "SELECT o.id FROM orders o JOIN units u ON u.id = o.unit_id WHERE u.name = '10th Ohio'",
    );
    assert_eq!(blue_order, 4, "the row id counts Grey's three orders");
    let mails = play.new_mails();
    // His report of turn 1, not the briefing before it.
    let report = mails
        .iter()
        .rev()
        .find(|m| m.to.contains(&blue.address) && m.body.contains("\nYOUR UNITS\n"))
        .expect("Blue's report");
    let text = section(&report.body, "WHAT HAPPENED IN TURN 1").join(" ");
    assert!(text.contains("Order #1 "), "{}", report.body);
    assert!(
        !report.body.to_lowercase().contains("order #4"),
        "{}",
        report.body
    );
}
