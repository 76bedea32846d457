//! Issue #19: an umpired SFRM game through the binary. A processed turn is
//! held: the umpire gets his report (every unit by name), the players get
//! nothing until his RELEASE, which queues their reports unchanged; REPORT
//! asks a player's stored report again. The umpire's review works as for
//! Iron Brigade (docs/umpire-turns.md): REDO reproduces the held turn bit
//! for bit, SET corrects a unit's start state (the ruleset's own fields,
//! refused helpfully otherwise) and REDO takes it, ROLLBACK and
//! ROLLFORWARD move the timeline; replay verifies every attempt after.

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
    play_turn_one(&g);
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

/// What an umpire command printed, and whether it succeeded.
fn umpire_says(g: &GameDir, command: &str) -> (bool, String) {
    let out = adjutant(g.dir.path())
        .args(["umpire", "bull", command])
        .env("USER", "alice")
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success() && !said.contains("refused"), said)
}

/// The live attempt of turn `n`: row id, attempt, state hash, state.
fn live(g: &GameDir, n: u32) -> (i64, u32, String, String) {
    g.db()
        .query_row(
            "SELECT id, attempt, state_hash, state_json FROM turns
             WHERE number = ?1 AND superseded_at IS NULL",
            [n],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap()
}

/// A unit's field in a stored SFRM state.
fn unit_field(state: &str, unit: &str, field: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(state).unwrap();
    v["battle"]["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == unit)
        .unwrap()[field]
        .clone()
}

fn assert_replays(g: &GameDir) {
    let out = adjutant(g.dir.path())
        .args(["replay", "bull"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn play_turn_one(g: &GameDir) {
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
}

#[test]
fn sfrm_redo_is_bit_for_bit_and_set_then_redo_takes_the_correction() {
    let g = umpired();
    play_turn_one(&g);
    let (_, _, hash_before, next_before) = live(&g, 2);
    let events_before = g.count(
        "SELECT count(*) FROM events WHERE turn_id = (SELECT min(id) FROM turns WHERE number = 1)",
    );
    // REDO without corrections: the same outcome, bit for bit.
    let said = g.umpire("REDO");
    assert!(said.contains("attempt 2"), "{said}");
    assert!(said.contains("the outcome is the same as before"), "{said}");
    let (_, attempt, hash, next) = live(&g, 2);
    assert_eq!(attempt, 1, "turn 2 opened afresh by the REDO");
    assert_eq!((hash, next), (hash_before.clone(), next_before.clone()));
    let (redo_id, redo_attempt, _, _) = live(&g, 1);
    assert_eq!(redo_attempt, 2);
    assert_eq!(
        g.count(&format!(
            "SELECT count(*) FROM events WHERE turn_id = {redo_id}"
        )),
        events_before
    );
    // The umpire has fresh previews of the held attempt; players nothing.
    assert!(
        !mails_to(&g, "mcdowell@")
            .iter()
            .any(|m| m.subject.contains("turn 1 results"))
    );

    // SET refuses what an SFRM unit does not have, listing what it has...
    let (ok, said) = umpire_says(&g, "SET Burnside's brigade castings 3 BECAUSE \"a test\"");
    assert!(!ok, "{said}");
    assert!(
        said.contains("position, formation, facing, elements"),
        "{said}"
    );
    // ...a unit the battle does not have, with the nearest name...
    let (ok, said) = umpire_says(&g, "SET Burnsides brigade routed yes BECAUSE \"a test\"");
    assert!(!ok, "{said}");
    assert!(said.contains("did you mean `Burnside's brigade`"), "{said}");
    // ...and values outside the rules' bounds, with the rule.
    let (ok, said) = umpire_says(&g, "SET Burnside's brigade elements 99 BECAUSE \"a test\"");
    assert!(!ok, "{said}");
    assert!(said.contains("took the field with"), "{said}");
    let (ok, said) = umpire_says(
        &g,
        "SET Burnside's brigade entrenchment 4 BECAUSE \"a test\"",
    );
    assert!(!ok, "{said}");
    assert!(said.contains("SFRM Entrenching"), "{said}");
    let (ok, said) = umpire_says(
        &g,
        "SET Burnside's brigade position 140,20 BECAUSE \"a test\"",
    );
    assert!(!ok, "{said}");
    assert!(said.contains("off the table"), "{said}");
    assert_eq!(g.count("SELECT count(*) FROM engine_corrections"), 0);

    // A correction the rules allow is recorded on the held turn, with its reason...
    let said = g.umpire("SET Burnside's brigade elements 1 BECAUSE \"lost on the march\"");
    assert!(
        said.contains("Burnside's brigade: elements set to 1"),
        "{said}"
    );
    assert!(said.contains("REDO"), "{said}");
    let (reason, field): (String, String) = g
        .db()
        .query_row("SELECT reason, field FROM engine_corrections", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(
        (reason.as_str(), field.as_str()),
        ("lost on the march", "elements")
    );
    // ...and REDO adjudicates from it: a new outcome.
    let said = g.umpire("REDO");
    assert!(said.contains("a new outcome"), "{said}");
    let (_, _, hash, next) = live(&g, 2);
    assert_ne!(hash, hash_before);
    assert_eq!(unit_field(&next, "Burnside's brigade", "elements"), 1);
    assert_ne!(
        unit_field(&next_before, "Burnside's brigade", "elements"),
        1
    );
    // The stored start state is never edited: the correction is an input.
    let (_, _, _, start) = live(&g, 1);
    assert_ne!(unit_field(&start, "Burnside's brigade", "elements"), 1);
    // Every attempt, set aside or live, replays against its own inputs.
    assert_replays(&g);
    let said = g.umpire("RELEASE");
    assert!(said.contains("turn 1 released (attempt 3)"), "{said}");
    // A correction on the open turn applies when it is processed.
    let said = g.umpire("SET Evans's brigade routed yes BECAUSE \"panic in the night\"");
    assert!(said.contains("when the turn is processed"), "{said}");
    g.order_mail("u2", "mcdowell@example.test", "McDowell", "READY");
    g.order_mail("c2", "johnston@example.test", "Johnston", "READY");
    g.run_once();
    let held: String = g
        .db()
        .query_row(
            "SELECT status FROM turns WHERE number = 2 AND superseded_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(held, "held");
    assert_replays(&g);
}

#[test]
fn sfrm_rollback_reproduces_and_rollforward_restores() {
    let g = umpired();
    play_turn_one(&g);
    g.umpire("RELEASE");
    g.order_mail(
        "u2",
        "mcdowell@example.test",
        "McDowell",
        "Burnside's brigade: advance to Matthews Hill\nREADY",
    );
    g.order_mail("c2", "johnston@example.test", "Johnston", "READY");
    g.run_once();
    g.umpire("RELEASE");
    let (_, _, hash3, _) = live(&g, 3);
    // Orders already written for turn 3 belong to the timeline set aside.
    g.order_mail(
        "u3",
        "mcdowell@example.test",
        "McDowell",
        "Burnside's brigade: form line facing north",
    );
    g.run_once();
    assert_eq!(g.open_turn(), 3);

    let said = g.umpire("ROLLBACK 2");
    assert!(said.contains("rolled back to turn 2"), "{said}");
    assert!(
        said.contains("1 written for later turns set aside"),
        "{said} {:?} {}",
        g.statuses(),
        g.count("SELECT count(*) FROM engine_orders")
    );
    assert_eq!(g.open_turn(), 2);
    assert_eq!(g.count("SELECT count(*) FROM engine_orders_set_aside"), 1);
    // Turn 2 again, with the orders written for it and the same dice: the
    // same outcome as before.
    let out = adjutant(g.dir.path())
        .args(["game", "process", "bull"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    g.umpire("RELEASE");
    let (_, _, again, _) = live(&g, 3);
    assert_eq!(again, hash3, "turn 2 reprocessed gives the same turn 3");
    assert_replays(&g);

    // ROLLFORWARD: the timeline the rollback set aside comes back, with
    // the turn 3 orders that were written in it.
    let said = g.umpire("ROLLFORWARD");
    assert!(said.contains("rolled forward"), "{said}");
    assert_eq!(g.open_turn(), 3);
    assert_eq!(g.count("SELECT count(*) FROM engine_orders_set_aside"), 0);
    let (id3, _, restored, _) = live(&g, 3);
    assert_eq!(restored, hash3);
    assert!(id3 > 0);
    assert_replays(&g);
}

#[test]
fn game_show_lists_an_sfrm_games_units_per_side() {
    let g = umpired();
    let out = adjutant(g.dir.path())
        .args(["game", "show", "bull"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains(" 0 units"), "{said}");
    assert!(said.contains("union units:"), "{said}");
    assert!(said.contains("Burnside's brigade: infantry"), "{said}");
    assert!(said.contains("confederate units:"), "{said}");
    assert!(said.contains("Evans's brigade"), "{said}");
    let out = adjutant(g.dir.path())
        .args(["game", "show", "bull", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["units"]["union"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u.as_str().unwrap().starts_with("Burnside's brigade"))
    );
    assert!(v["units_per_side"][0]["units"].as_u64().unwrap() > 0);
}

/// The Confederate brigades' real names (the Union never learns them).
const CONFEDERATE: &[&str] = &[
    "Evans's brigade",
    "Bee's brigade",
    "Bartow's brigade",
    "Jackson's brigade",
    "Elzey's brigade",
    "Cocke's brigade",
    "Bonham's brigade",
];

#[test]
fn sfrm_unreadable_line_goes_to_the_umpire_and_his_interpret_counts() {
    let g = umpired();
    g.order_mail(
        "u1",
        "mcdowell@example.test",
        "McDowell",
        "Burnside's brigade: advance to Matthews Hill\n\
         Have the boys fill their canteens at the spring and sing\n\
         READY",
    );
    g.run_once();
    // The receipt: the line went to the umpire, with its id; the rest
    // counts, READY too; nothing of the enemy he has not seen.
    let receipt = g
        .text_to("mcdowell@")
        .into_iter()
        .find(|t| t.contains("Your mail"))
        .expect("a receipt");
    assert!(
        receipt.contains("Sent to the umpire to interpret"),
        "{receipt}"
    );
    assert!(receipt.contains("[F1-1]"), "{receipt}");
    assert!(receipt.contains("fill their canteens"), "{receipt}");
    assert!(receipt.contains("READY: counted"), "{receipt}");
    assert!(!receipt.contains("NOT understood"), "{receipt}");
    for name in CONFEDERATE {
        assert!(!receipt.contains(name), "{name} in {receipt}");
    }
    // The umpire is asked, with the player's words.
    let asked = g
        .text_to(UMP)
        .into_iter()
        .find(|t| t.contains("needs your interpretation"))
        .expect("the umpire's query");
    assert!(asked.contains("F1-1"), "{asked}");
    assert!(asked.contains("fill their canteens"), "{asked}");
    // A text that does not read as an order is refused, and nothing changes.
    let (ok, said) = umpire_says(&g, "INTERPRET F1-1: the boys drink");
    assert!(!ok, "{said}");
    assert!(said.contains("does not read as McDowell's order"), "{said}");
    // INTERPRET: read as his order and counted after his mail's.
    let said = g.umpire("INTERPRET F1-1: Burnside's brigade: form line facing south");
    assert!(
        said.contains("entered as McDowell's order for turn 1"),
        "{said}"
    );
    g.run_once();
    let told = g
        .text_to("mcdowell@")
        .into_iter()
        .find(|t| t.contains("so the umpire read it"))
        .expect("the player told how it was taken");
    assert!(told.contains("Burnside's brigade"), "{told}");
    for name in CONFEDERATE {
        assert!(!told.contains(name), "{name} in {told}");
    }
    // A second answer to the same id is refused.
    let (ok, said) = umpire_says(&g, "REJECT F1-1: \"no\"");
    assert!(!ok, "{said}");
    g.order_mail("c1", "johnston@example.test", "Johnston", "READY");
    g.run_once();
    // The turn was given his mail's orders and the umpire's, in that order.
    let input: String = g
        .db()
        .query_row(
            "SELECT data_json FROM events WHERE seq = 0 AND kind = 'turn-input'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&input).unwrap();
    let union: Vec<&serde_json::Value> = v["orders"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p[0] == "union")
        .collect();
    assert_eq!(union.len(), 2, "{input}");
    assert_replays(&g);
}

#[test]
fn sfrm_unreadable_line_without_an_umpire_is_answered_in_the_receipt() {
    let g = GameDir::with_scenario("bull", "scenarios/first-bull-run.toml");
    g.order_mail(
        "u1",
        "mcdowell@example.test",
        "McDowell",
        "Burnside's brigade: advance to Matthews Hill\n\
         Have the boys fill their canteens at the spring and sing",
    );
    g.run_once();
    let receipt = g
        .text_to("mcdowell@")
        .into_iter()
        .find(|t| t.contains("Your mail"))
        .expect("a receipt");
    assert!(receipt.contains("NOT understood"), "{receipt}");
    assert!(!receipt.contains("umpire"), "{receipt}");
    assert_eq!(g.count("SELECT count(*) FROM interpretations"), 0);
}

/// SFRM Table 2 and Command (i), pinned with the umpire's dice: each
/// general rolls a d6 and commands when it is no more than his command
/// ability: army regular (4), divisional regular (2), divisional inferior
/// (1). First Bull Run's Union generals in scenario order: McDowell (army
/// regular), Tyler (divisional inferior), Hunter (divisional regular),
/// Heintzelman (divisional regular), Miles (divisional inferior).
#[test]
fn sfrm_table_2_command_rolls_with_the_umpires_dice() {
    let g = umpired();
    g.umpire("DICE MODE UMPIRE");
    play_turn_one(&g);
    let rolls = [
        ("McDowell", 4, 4, true),
        ("Tyler", 1, 1, true),
        ("Hunter", 3, 2, false),
        ("Heintzelman", 2, 2, true),
        ("Miles", 2, 1, false),
    ];
    let asked = g.answer_dice(|want| {
        let subject = want["subject"].as_str().unwrap_or_default();
        let command = want["kind"].as_str() == Some("sfrm-command");
        match rolls.iter().find(|(name, ..)| command && *name == subject) {
            Some((_, roll, ..)) => roll.to_string(),
            None => "3".into(),
        }
    });
    assert!(!asked.is_empty(), "the turn asked for the umpire's dice");
    let events: Vec<serde_json::Value> = {
        let db = g.db();
        let mut st = db
            .prepare("SELECT data_json FROM events WHERE kind = 'command-roll' ORDER BY seq")
            .unwrap();
        st.query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(|j| serde_json::from_str(&j.unwrap()).unwrap())
            .collect()
    };
    for (i, (name, roll, ability, commands)) in rolls.iter().enumerate() {
        let e = events
            .iter()
            .find(|e| e["general"] == i + 1)
            .unwrap_or_else(|| panic!("{name}'s command roll in {events:?}"));
        assert_eq!(e["roll"], *roll, "{name}: {e}");
        assert_eq!(e["ability"], *ability, "{name}: Table 2 ({e})");
        assert_eq!(e["commands"], *commands, "{name}: Command (i) ({e})");
        assert!(e["section"].as_str().unwrap().contains("Table 2"), "{e}");
    }
    assert_replays(&g);
}

/// The events of `kind` of the live turn 1, as JSON.
fn turn_one_events(g: &GameDir, kind: &str) -> Vec<serde_json::Value> {
    let db = g.db();
    let mut st = db
        .prepare(
            "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND t.superseded_at IS NULL AND e.kind = ?1 ORDER BY e.seq",
        )
        .unwrap();
    st.query_map([kind], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|j| serde_json::from_str(&j.unwrap()).unwrap())
        .collect()
}

/// SFRM Table 5, Table 6 and "Combat" pinned with the umpire's dice on
/// First Bull Run's first turn, where a Confederate 12-pound smoothbore
/// battery shells Richardson's brigade (a green Union brigade in line) at
/// about 9": Table 6 gives a 12-pound smoothbore 2 ("Shell") up to 9", no
/// Table 7 modifier applies, so the total is 2: 2 / 6 = 0 definite
/// casualties, remainder 2, and a die of 2 ("equal to or less than the
/// remainder") gives the further casualty. Fired upon for the first time,
/// the brigade rolls on Table 5: 5 + 5 = 10, "Union Regular".
#[test]
fn sfrm_tables_5_and_6_and_combat_with_the_umpires_dice() {
    let g = umpired();
    g.umpire("DICE MODE UMPIRE");
    play_turn_one(&g);
    g.answer_dice(|want| {
        match want["kind"].as_str().unwrap_or_default() {
            "sfrm-green" => "5",
            "sfrm-combat" => "2",
            _ => "3",
        }
        .into()
    });
    let state: String = g
        .db()
        .query_row(
            "SELECT state_json FROM turns WHERE number = 1 AND superseded_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let richardson = unit_field(&state, "Richardson's brigade", "id");
    let start = unit_field(&state, "Richardson's brigade", "elements")
        .as_u64()
        .unwrap();
    let green: Vec<_> = turn_one_events(&g, "green-tested")
        .into_iter()
        .filter(|e| e["unit"] == richardson)
        .collect();
    assert_eq!(green.len(), 1, "{green:?}");
    assert_eq!(
        green[0]["dice"],
        serde_json::json!([5, 5]),
        "{:?}",
        green[0]
    );
    assert_eq!(green[0]["result"]["quality"], "regular", "Table 5: 10");
    let fired: Vec<_> = turn_one_events(&g, "fired")
        .into_iter()
        .filter(|e| e["target"] == richardson)
        .collect();
    assert!(!fired.is_empty(), "Richardson's brigade is fired upon");
    let mut left = start;
    for f in &fired {
        assert_eq!(f["total"], 2, "Table 6: {f}");
        assert_eq!(
            f["terms"].as_array().unwrap().len(),
            1,
            "no Table 7 term: {f}"
        );
        assert!(f["range"].as_f64().unwrap() <= 9.0, "{f}");
        assert!(
            f["terms"][0]["text"]
                .as_str()
                .unwrap()
                .contains("12-pound smoothbore"),
            "{f}"
        );
        assert_eq!(f["definite"], 0, "{f}");
        assert_eq!(f["remainder"], 2, "{f}");
        assert_eq!(f["roll"], 2, "{f}");
        assert_eq!(f["casualties"], 1, "Combat: a die <= the remainder: {f}");
        left -= 1;
        assert_eq!(f["elements_left"], left, "{f}");
    }
    assert_replays(&g);
}
