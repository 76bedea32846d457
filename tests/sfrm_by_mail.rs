//! Issue #19: First Bull Run played by mail at SFRM brigade scale, through
//! the binary, to its last turn. Both players write orders each turn as a
//! player would (period prose, typos, "support", compass and distance,
//! orders through generals), answer their reply addresses, and mail READY;
//! every turn runs on READY; one turn is played with the umpire's dice.
//! Every mail sent to a player is read and checked for fog of war: no
//! enemy's real name (identities are hidden), and every enemy letter it
//! uses belongs to an enemy his side saw in a stored state. At the end the
//! game is finished, the last reports tell the verdict, and `adjutant
//! replay` re-runs every turn to the same hashes.

mod common;
mod fog_support;

use adjutant::rules::sfrm::battle::Side;
use adjutant::rules::sfrm::battle::mail_engine::MailState;
use adjutant::rules::sfrm::battle::view::seen_enemy_units;
use common::GameDir;
use fog_support::{Mail, contains_word, decode};
use std::collections::{BTreeMap, BTreeSet};

const UNION: &str = "McDowell";
const CONFEDERATE: &str = "Johnston";

struct Game {
    g: GameDir,
    written: usize,
    checked: BTreeSet<String>,
}

impl Game {
    fn open_turn(&self) -> u32 {
        self.g.open_turn()
    }

    fn state(&self, number: u32) -> MailState {
        let json: String = self
            .g
            .db()
            .query_row(
                "SELECT state_json FROM turns WHERE number = ?1 AND superseded_at IS NULL",
                [number],
                |r| r.get(0),
            )
            .unwrap();
        serde_json::from_str(&json).unwrap()
    }

    /// A mail to the player's reply address for the open turn.
    fn send(&mut self, player: &str, body: &str) {
        self.written += 1;
        let file = format!("m{:05}-{player}", self.written);
        let to = self.g.token_address(player, self.open_turn());
        let from = format!("{}@example.test", player.to_lowercase());
        let raw = format!(
            "From: {player} <{from}>\r\nTo: {to}\r\nSubject: Re: orders\r\n\
             Message-ID: <{file}@example.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
             Content-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
            body.replace('\n', "\r\n")
        );
        self.g.drop_mail(&file, raw.as_bytes());
    }

    fn new_mails(&mut self) -> Vec<Mail> {
        let dir = self.g.path("var/outbox/new");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !self.checked.contains(n))
            .collect();
        names.sort();
        self.checked.extend(names.iter().cloned());
        names
            .iter()
            .map(|n| decode(n, &std::fs::read(dir.join(n)).unwrap()))
            .collect()
    }
}

/// The Union's orders for `turn`, as McDowell might write them.
fn union_orders(turn: u32) -> String {
    match turn % 4 {
        1 => "Sir,\n\
              Gen. Hunter will advance to Matthews Hill.\n\
              Burnside's brigade: advance 4 inches south-east\n\
              Porter's brigade: form line facing south, then fire at the nearest enemy\n\
              Sherman's brigade will cross at the Stone Bridge and attack the enemy's left\n\
              Keyes's brigade: support Sherman's brigade\n\
              Heintzelman's division: march to Chinn Ridge\n\
              Brnusde's brigade: hold\n\
              Your obedient servant,\n\
              McDowell"
            .to_string(),
        2 => "General Tyler: advance 600 yards west\n\
              Hunter's division will advance on Henry House Hill\n\
              Palmer's cavalry: retire 3 inches north\n\
              Howard's brigade: march to Chinn Ridge\n\
              Richardson's brigade: entrench"
            .to_string(),
        3 => "Heintzelman: advance to Henry House Hill\n\
              Porter's brigade: fire at the nearest enemy\n\
              Miles's division: hold\n\
              Blenker's brigade: advance 2 inches west"
            .to_string(),
        _ => "McDowell: advance to Henry House Hill\n\
              Sherman's brigade: form line facing south-west\n\
              Davies's brigade: hold"
            .to_string(),
    }
}

/// The Confederacy's orders for `turn`, as Johnston might write them.
fn confederate_orders(turn: u32) -> String {
    match turn % 3 {
        1 => "General,\n\
              Evans's brigade: hold Matthews Hill\n\
              Jackson's brigade will advance to Henry House Hill\n\
              Bee's brigade: march to Matthews Hill\n\
              Bartow: advance 300 yards north\n\
              Hampton's Legion: advance on Henry House Hill\n\
              Stuart's cavalry: charge the nearest enemy\n\
              Cocke's brigade: suport Jackson\n\
              J. E. Johnston"
            .to_string(),
        2 => "Gen. Beauregard: advance 2 inches north-west\n\
              Jackson's brigade: form line facing north\n\
              Elzey's brigade: march to Henry House Hill"
            .to_string(),
        _ => "Jackson's brigade: hold Henry House Hill\n\
              Beauregard: advance to Henry House Hill\n\
              Evans's brigade: fire at the nearest enemy"
            .to_string(),
    }
}

/// Every enemy name a side must never be told (identities are hidden):
/// the enemy's units and generals by their real names.
fn hidden_names(side: Side, s: &MailState) -> Vec<String> {
    let mut v: Vec<String> = s
        .battle
        .units
        .iter()
        .filter(|u| u.side != side)
        .map(|u| u.name.clone())
        .collect();
    for g in s.battle.generals.iter().filter(|g| g.side != side) {
        v.push(format!("General {}", g.name));
        v.push(format!("Gen. {}", g.name));
    }
    v
}

/// Checks one mail to `side`'s player: no enemy real name, and every enemy
/// letter it uses names an enemy the side has seen in a stored state.
fn assert_fog(mail: &Mail, side: Side, state: &MailState, seen_ever: &BTreeSet<u32>) {
    for name in hidden_names(side, state) {
        // A receipt quoting the player's own words ('Jackson's brigade')
        // tells him nothing he did not write.
        let body = mail.body.replace(&format!("'{name}'"), "'…'");
        assert!(
            !contains_word(&body, &name),
            "{} names the hidden enemy {name}:\n{}",
            mail.subject,
            mail.body
        );
    }
    let letters = match side {
        Side::Union => &state.union_names,
        Side::Confederate => &state.confederate_names,
    };
    let by_letter: BTreeMap<&str, u32> = letters.iter().map(|(u, l)| (l.as_str(), *u)).collect();
    for (letter, unit) in by_letter {
        let shown = ["brigade", "battalion", "train"]
            .iter()
            .any(|k| contains_word(&mail.body, &format!("{k} {letter}")));
        if shown {
            assert!(
                seen_ever.contains(&unit),
                "{} names enemy {letter} (unit {unit}), never seen by the {side:?}",
                mail.subject
            );
        }
    }
}

/// `name` as the archive's HTML writes it.
fn esc_html(name: &str) -> String {
    name.replace('&', "&amp;").replace('\'', "&#39;")
}

fn side_of_mail(m: &Mail) -> Option<Side> {
    if m.to.contains("mcdowell@") {
        Some(Side::Union)
    } else if m.to.contains("johnston@") {
        Some(Side::Confederate)
    } else {
        None
    }
}

#[test]
fn sfrm_first_bull_run_is_played_by_mail_to_its_verdict() {
    let g = GameDir::with_scenario("bull", "scenarios/first-bull-run.toml");
    let mut game = Game {
        g,
        written: 0,
        checked: BTreeSet::new(),
    };
    let ruleset: String = game
        .g
        .db()
        .query_row("SELECT ruleset FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ruleset, "sfrm");
    let last: u32 = 17;
    let mut seen_ever: BTreeMap<Side, BTreeSet<u32>> = BTreeMap::new();
    let note_seen = |s: &MailState, seen: &mut BTreeMap<Side, BTreeSet<u32>>| {
        for side in [Side::Union, Side::Confederate] {
            seen.entry(side)
                .or_default()
                .extend(seen_enemy_units(&s.battle, side).iter().map(|u| u.0));
        }
    };

    // The briefings: each player's command, the enemy he sees, how to
    // write orders with this scenario's names.
    game.g.run_once();
    let start = game.state(1);
    note_seen(&start, &mut seen_ever);
    let briefings = game.new_mails();
    assert_eq!(briefings.len(), 2, "one briefing a player");
    for m in &briefings {
        let side = side_of_mail(m).unwrap();
        assert!(m.subject.contains("briefing"), "{}", m.subject);
        assert!(m.body.contains("How to write your orders"), "{}", m.body);
        assert!(m.body.contains("Henry House Hill"), "{}", m.body);
        assert_fog(m, side, &start, &seen_ever[&side]);
    }
    let union_briefing = &briefings[briefings
        .iter()
        .position(|m| m.to.contains("mcdowell"))
        .unwrap()];
    assert!(union_briefing.body.contains("Burnside's brigade"));
    assert!(union_briefing.body.contains("enemy infantry brigade A"));

    let mut last_reports = Vec::new();
    for turn in 1..=last {
        assert_eq!(game.open_turn(), turn);
        game.send(UNION, &union_orders(turn));
        game.send(CONFEDERATE, &confederate_orders(turn));
        if turn == 1 {
            // A probe: an enemy named by his real name is refused in the
            // same words as a name nobody has, so the receipt tells nothing.
            game.send(
                UNION,
                "Willcox's brigade: attack Jackson's brigade\nFranklin's brigade: attack Smith's brigade",
            );
        }
        game.send(UNION, "READY");
        game.send(CONFEDERATE, "READY");
        let umpire_dice = turn == 3;
        if umpire_dice {
            game.g.umpire("DICE MODE UMPIRE");
        }
        game.g.run_once();
        if umpire_dice {
            let asked = game.g.answer_dice(|_| "4".into());
            assert!(!asked.is_empty(), "the turn asked the umpire for dice");
            game.g.umpire("DICE MODE STREAM");
            let umpire_rolls = game.g.count(
                "SELECT count(*) FROM dice_rolls d JOIN turns t ON t.id = d.turn_id
                 WHERE t.number = 3 AND d.source = 'umpire' AND d.value = 4",
            );
            assert!(umpire_rolls > 0);
            // Delivered by the next run.
            game.g.run_once();
        }
        assert_eq!(game.open_turn(), turn + 1, "turn {turn} ran on READY");
        let after = game.state(turn + 1);
        note_seen(&after, &mut seen_ever);
        let before = game.state(turn);
        let mails = game.new_mails();
        let receipts: Vec<&Mail> = mails
            .iter()
            .filter(|m| m.subject.starts_with("Orders received"))
            .collect();
        assert!(
            receipts.len() >= 4,
            "turn {turn}: {} receipts",
            receipts.len()
        );
        for m in &mails {
            let Some(side) = side_of_mail(m) else {
                continue;
            };
            // A receipt speaks of the state its orders were read against, a
            // report of the state after the turn.
            let state = if m.subject.starts_with("Orders received") {
                &before
            } else {
                &after
            };
            assert_fog(m, side, state, &seen_ever[&side]);
        }
        if turn == 1 {
            let union_receipts: Vec<&&Mail> = receipts
                .iter()
                .filter(|m| m.to.contains("mcdowell"))
                .collect();
            let first = union_receipts[0];
            assert!(
                first
                    .body
                    .contains("Sherman's brigade: move to the Stone Bridge"),
                "{}",
                first.body
            );
            assert!(
                first.body.contains(
                    "Keyes's brigade: support Sherman's brigade: a move to stand behind it"
                ),
                "{}",
                first.body
            );
            assert!(
                first.body.contains("did you mean Burnside's brigade?"),
                "{}",
                first.body
            );
            assert!(
                !first.body.contains("line 1,"),
                "the greeting is not an order: {}",
                first.body
            );
            let probe = union_receipts[1];
            let jackson = probe
                .body
                .lines()
                .find(|l| l.contains("'Jackson's brigade'"))
                .unwrap()
                .replace("'Jackson's brigade'", "X")
                .replace("column 20", "column N");
            let smith = probe
                .body
                .lines()
                .find(|l| l.contains("'Smith's brigade'"))
                .unwrap()
                .replace("'Smith's brigade'", "X")
                .replace("column 21", "column N")
                .replace("line 2,", "line 1,");
            assert_eq!(jackson, smith, "{}", probe.body);
            let ready = union_receipts.last().unwrap();
            assert!(ready.body.contains("READY: counted"), "{}", ready.body);
            assert!(ready.body.contains("still stand"), "{}", ready.body);
        }
        let reports: Vec<Mail> = mails
            .into_iter()
            .filter(|m| m.subject.contains(&format!("turn {turn} results")))
            .collect();
        assert_eq!(reports.len(), 2, "turn {turn}: one report a player");
        last_reports = reports;
    }
    // The last turn ends the game with the scenario's verdict, told.
    for r in &last_reports {
        assert!(r.body.contains("The battle is over"), "{}", r.body);
        assert!(r.body.contains("Henry House Hill"), "{}", r.body);
    }
    let status: String = game
        .g
        .db()
        .query_row("SELECT status FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "finished");
    // Every turn's dice are stored with their purposes.
    assert!(
        game.g
            .count("SELECT count(*) FROM dice_rolls WHERE purpose = ''")
            == 0
    );
    assert!(game.g.count("SELECT count(*) FROM dice_rolls") > 17);
    // And the orders each turn was given are kept for replay.
    assert_eq!(
        game.g
            .count("SELECT count(*) FROM events WHERE kind = 'turn-input'"),
        i64::from(last)
    );
    // `adjutant replay` re-runs every turn from the stored orders and dice
    // (turn 3 with the umpire's) and matches every stored hash.
    let out = common::adjutant(game.g.dir.path())
        .args(["replay", "bull"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.matches(": OK").count(), last as usize, "{text}");
    // The archive: the umpire's page of each turn with the truth, and each
    // side's page from its own view only.
    let site = game.g.path("site");
    let out = common::adjutant(game.g.dir.path())
        .args(["archive", "export", "bull", "--out"])
        .arg(&site)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let final_state = game.state(last + 1);
    for turn in 1..=last {
        let umpire = std::fs::read_to_string(site.join(format!("turn-{turn:03}.html"))).unwrap();
        assert!(umpire.contains("<svg"), "turn {turn}");
        for (side, file) in [(Side::Union, "union"), (Side::Confederate, "confederate")] {
            let page =
                std::fs::read_to_string(site.join(format!("turn-{turn:03}-side-{file}.html")))
                    .unwrap();
            for name in hidden_names(side, &final_state) {
                assert!(
                    !contains_word(&page, &name) && !contains_word(&page, &esc_html(&name)),
                    "turn {turn}: the {file} page names {name}"
                );
            }
        }
    }
    // A changed stored outcome is found (the append-only trigger dropped
    // so that the test can tamper).
    let db = game.g.db();
    db.execute_batch("DROP TRIGGER dice_rolls_no_update;")
        .unwrap();
    db
        .execute(
            "UPDATE dice_rolls SET value = 7 - value WHERE id = (SELECT min(id) FROM dice_rolls WHERE source = 'stream')",
            [],
        )
        .unwrap();
    let out = common::adjutant(game.g.dir.path())
        .args(["replay", "bull"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("MISMATCH"));
}

/// Issue #19's order language through the binary: orders as a stranger
/// writes them for First Bull Run ("support", a superior's order to a
/// division, a march toward the table's edge) are read back plainly in the
/// receipt, which lists the brigades an order through a general goes to;
/// the turn (umpire's dice: every command roll passes) carries them out,
/// the cavalry stops at the table's north edge and the report says so.
/// Every mail is checked for fog.
#[test]
fn sfrm_by_mail_orders_in_strangers_words() {
    let g = GameDir::with_scenario("bull", "scenarios/first-bull-run.toml");
    let mut game = Game {
        g,
        written: 0,
        checked: BTreeSet::new(),
    };
    game.g.run_once();
    let start = game.state(1);
    game.new_mails();
    game.send(
        UNION,
        "Sir,\n\
         Porter's brigade will move up in support of Burnside\n\
         McDowell: Heintzelman's division will advance to Henry Hill\n\
         Palmer's cavalry: march 1000 yards north\n\
         Your obedient servant,\n\
         McDowell",
    );
    game.send(UNION, "READY");
    game.send(CONFEDERATE, "READY");
    game.g.umpire("DICE MODE UMPIRE");
    game.g.run_once();
    let asked = game.g.answer_dice(|_| "1".into());
    assert!(!asked.is_empty());
    game.g.umpire("DICE MODE STREAM");
    game.g.run_once();
    assert_eq!(game.open_turn(), 2);
    let after = game.state(2);
    // What each side has seen, at the start or after the turn.
    let seen: BTreeMap<Side, BTreeSet<u32>> = [Side::Union, Side::Confederate]
        .into_iter()
        .map(|s| {
            let ids = seen_enemy_units(&start.battle, s)
                .into_iter()
                .chain(seen_enemy_units(&after.battle, s))
                .map(|u| u.0)
                .collect();
            (s, ids)
        })
        .collect();
    let mails = game.new_mails();
    for m in &mails {
        if let Some(side) = side_of_mail(m) {
            let state = if m.subject.starts_with("Orders received") {
                &start
            } else {
                &after
            };
            assert_fog(m, side, state, &seen[&side]);
        }
    }
    let receipt = mails
        .iter()
        .find(|m| m.to.contains("mcdowell") && m.subject.starts_with("Orders received"))
        .unwrap();
    let r = &receipt.body;
    assert!(!r.contains("column"), "every line understood: {r}");
    assert!(
        r.contains("Porter's brigade: support Burnside's brigade: a move to stand behind it, where this mail orders it to go or else where it stands; SFRM has no support order"),
        "{r}"
    );
    assert!(
        r.contains("through General Heintzelman (by General McDowell's order) to Franklin's brigade, Willcox's brigade, Howard's brigade, Heintzelman's artillery: each moves if in command this turn"),
        "{r}"
    );
    assert!(
        r.contains("Palmer's cavalry would pass the north edge of the table at (39.0, 80.0)"),
        "{r}"
    );
    let report = mails
        .iter()
        .find(|m| m.to.contains("mcdowell") && m.subject.contains("turn 1 results"))
        .unwrap();
    assert!(
        report.body.contains("stopped: the north edge of the table"),
        "{}",
        report.body
    );
    let palmer = after
        .battle
        .units
        .iter()
        .find(|u| u.name == "Palmer's cavalry")
        .unwrap();
    assert!((palmer.pos.y - 80.0).abs() < 1e-6, "{:?}", palmer.pos);
}
