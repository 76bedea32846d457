//! The umpire's turn plane (issue #8): held turns and RELEASE, REDO, SET
//! corrections, ROLLBACK/ROLLFORWARD — driven through the library on real
//! SQLite files, as the umpire's command executor calls them.

use adjutant::archive::replay::replay_game;
use adjutant::game::book::{record_direct_submission, record_unit_order};
use adjutant::game::cycle::due_games;
use adjutant::game::new_game;
use adjutant::game::report_mail::ReportMail;
use adjutant::game::snapshot::Snapshot;
use adjutant::game::turn::{TurnCycleError, process_turn};
use adjutant::rules::iron_brigade::orders::{Action, Gait, MoveOrder, Step, Trigger, UnitOrder};
use adjutant::rules::iron_brigade::state::{OfficerId, Pos, UnitId};
use adjutant::scenario::Scenario;
use adjutant::store::{GameId, Store};
use adjutant::umpire::SetValue;
use adjutant::umpire::turns::{self, TurnPlaneError, UmpireCtx};

mod common;

const TRAINING: &str = include_str!("../scenarios/training.toml");
const UMPIRE: &str = "umpire@example.test";

/// The training scenario as game `t` with a fixed seed; with an umpire
/// address when `umpired`.
fn game(dir: &tempfile::TempDir, umpired: bool) -> (Store, GameId) {
    let scenario = Scenario::from_toml_str(TRAINING, "training.toml").unwrap();
    let (g, _) = new_game(&scenario, TRAINING, "t", [42; 32], 1_000, |p| {
        Ok((format!("s-{}", p.name), "$argon2id$v=19$test".to_string()))
    })
    .unwrap();
    let mut store = Store::open(&dir.path().join("a.db")).unwrap();
    let id = store.create_game(&g).unwrap();
    if umpired {
        store
            .conn()
            .execute(
                "UPDATE games SET umpire_address = ?2 WHERE id = ?1",
                rusqlite::params![id.0, UMPIRE],
            )
            .unwrap();
    }
    (store, id)
}

fn mail() -> ReportMail {
    ReportMail {
        game_master: "adjutant@example.test".into(),
        message_id_domain: "example.test".into(),
        server_key: vec![7; 32],
    }
}

/// An order for the 10th Ohio (unit 1, Colonel Hale) to march to `to`,
/// written for the open turn.
fn order(store: &mut Store, game: GameId, to: Pos) {
    let tx = store.transaction().unwrap();
    let (player, turn_id, number): (i64, i64, u32) = tx
        .query_row(
            "SELECT p.id, t.id, t.number FROM players p JOIN turns t ON t.game_id = p.game_id
             WHERE p.game_id = ?1 AND t.status = 'open' AND t.superseded_at IS NULL
             ORDER BY p.id LIMIT 1",
            [game.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    let o = UnitOrder {
        id: 0,
        unit: UnitId(1),
        issued_by: OfficerId(1),
        issued_turn: number,
        follows_previous: false,
        steps: vec![Step {
            trigger: Trigger::Then,
            action: Action::Move(MoveOrder {
                waypoints: vec![to],
                by_road: false,
                formation: None,
                gait: Gait::March,
                fire_while_moving: false,
                backwards: false,
            }),
        }],
    };
    let (sub, _) = record_direct_submission(&tx, game, player, turn_id, 1_100).unwrap();
    record_unit_order(&tx, game, sub, &o, "advance", number).unwrap();
    tx.commit().unwrap();
}

/// Runs one turn-plane command in its own transaction, as the executor does.
fn umpire<T>(
    store: &mut Store,
    game: GameId,
    now: i64,
    f: impl FnOnce(&UmpireCtx<'_, '_>) -> Result<T, TurnPlaneError>,
) -> Result<T, TurnPlaneError> {
    let m = mail();
    let tx = store.transaction().unwrap();
    let ctx = UmpireCtx {
        tx: &tx,
        game: "t",
        game_id: game,
        actor: "umpire",
        now,
        mail: &m,
    };
    let out = f(&ctx);
    if out.is_ok() {
        tx.commit().unwrap();
    }
    out
}

fn count(store: &Store, sql: &str) -> i64 {
    store.conn().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The live attempt of turn `n`: (row id, state hash, status).
fn live(store: &Store, n: u32) -> (i64, String, String) {
    store
        .conn()
        .query_row(
            "SELECT id, state_hash, status FROM turns WHERE number = ?1 AND superseded_at IS NULL",
            [n],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
}

/// (kind, Message-ID, raw) of every queued mail, in queue order.
fn outbound(store: &Store) -> Vec<(String, String, Vec<u8>)> {
    let mut st = store
        .conn()
        .prepare("SELECT kind, message_id, raw FROM outbound_mail ORDER BY id")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn events_of(store: &Store, turn_id: i64) -> Vec<(i64, String, String)> {
    let mut st = store
        .conn()
        .prepare("SELECT seq, kind, data_json FROM events WHERE turn_id = ?1 ORDER BY seq")
        .unwrap();
    st.query_map([turn_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn assert_replays(store: &Store) {
    let report = replay_game(store, "t", &mut |_, _| {}).unwrap();
    let lines: Vec<String> = report.turns.iter().map(|t| t.line()).collect();
    assert!(report.ok, "{lines:#?}");
}

#[test]
fn a_held_turn_sends_nothing_to_players_until_release_then_the_same_bytes() {
    // The same game without an umpire: what the players would have got.
    let plain_dir = tempfile::tempdir().unwrap();
    let (mut plain, pg) = game(&plain_dir, false);
    order(&mut plain, pg, Pos::new(24.0, 16.0));
    let p = process_turn(&mut plain, "t", &mail(), 2_000).unwrap();
    assert!(!p.held);
    let plain_reports: Vec<_> = outbound(&plain)
        .into_iter()
        .filter(|(k, _, _)| k == "report")
        .collect();
    assert_eq!(plain_reports.len(), 2);

    let dir = tempfile::tempdir().unwrap();
    let (mut store, g) = game(&dir, true);
    order(&mut store, g, Pos::new(24.0, 16.0));
    let done = process_turn(&mut store, "t", &mail(), 2_000).unwrap();
    assert!(done.held);
    assert_eq!(done.state_hash, p.state_hash, "holding changes no outcome");
    assert_eq!(live(&store, 1).2, "held");
    assert_eq!(live(&store, 2).2, "open");
    // Reports are made and stored as always...
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM reports WHERE player_id IS NOT NULL"
        ),
        2
    );
    // ...but only the umpire has mail: his report and one preview per player.
    let queued = outbound(&store);
    let kinds: Vec<&str> = queued.iter().map(|(k, _, _)| k.as_str()).collect();
    assert_eq!(kinds, ["umpire-preview", "umpire-preview", "umpire-report"]);
    assert!(
        count(
            &store,
            "SELECT count(*) FROM outbound_mail WHERE recipients_json NOT LIKE '%umpire@example.test%'"
        ) == 0
    );
    let umpire_report = String::from_utf8_lossy(&queued[2].2).into_owned();
    assert!(umpire_report.contains("HELD"), "{umpire_report}");

    // While held, the next turn is not processed: not by hand, not by the daemon.
    let err = process_turn(&mut store, "t", &mail(), 3_000).unwrap_err();
    assert!(matches!(err, TurnCycleError::Held { turn: 1, .. }), "{err}");
    assert!(err.to_string().contains("RELEASE"));
    assert!(due_games(&store, i64::MAX / 2).unwrap().is_empty());
    // A player asking for his report again gets nothing of the held turn.
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM outbound_mail WHERE kind = 'report'"
        ),
        0
    );

    let said = umpire(&mut store, g, 2_500, turns::release).unwrap();
    assert!(said.contains("2 report mail(s)"), "{said}");
    assert_eq!(live(&store, 1).2, "released");
    let released: Vec<_> = outbound(&store)
        .into_iter()
        .filter(|(k, _, _)| k == "report")
        .collect();
    // Exactly what the unumpired game queued: same Message-IDs, same bytes.
    assert_eq!(released, plain_reports);
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM reports WHERE player_id IS NOT NULL AND outbound_mail_id IS NOT NULL"
        ),
        2
    );
    // Nothing left to release; the next turn processes normally (and is held).
    assert!(matches!(
        umpire(&mut store, g, 2_600, turns::release),
        Err(TurnPlaneError::NothingHeld(_))
    ));
    assert!(process_turn(&mut store, "t", &mail(), 3_000).unwrap().held);
    assert_replays(&store);
}

#[test]
fn redo_without_corrections_reproduces_the_held_turn_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, g) = game(&dir, true);
    order(&mut store, g, Pos::new(24.0, 16.0));
    let first = process_turn(&mut store, "t", &mail(), 2_000).unwrap();
    let (old_id, _, _) = live(&store, 1);
    let old_events = events_of(&store, old_id);
    let old_rolls = count(&store, "SELECT count(*) FROM dice_rolls");

    let said = umpire(&mut store, g, 2_100, turns::redo).unwrap();
    assert!(said.contains("same as before"), "{said}");
    let (new_id, _, status) = live(&store, 1);
    assert_ne!(new_id, old_id);
    assert_eq!(status, "held");
    assert_eq!(live(&store, 2).1, first.state_hash);
    assert_eq!(events_of(&store, new_id), old_events);
    // The first attempt is kept: its events, dice and reports stay.
    assert_eq!(events_of(&store, old_id), old_events);
    assert_eq!(
        count(&store, "SELECT count(*) FROM dice_rolls"),
        2 * old_rolls
    );
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM turns WHERE superseded_at IS NOT NULL"
        ),
        2,
        "the held attempt and the turn it opened are set aside"
    );
    assert_eq!(
        count(
            &store,
            "SELECT attempt FROM turns WHERE superseded_at IS NULL AND number = 1"
        ),
        2
    );
    // Fresh previews under Message-IDs of their own; still nothing to players.
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM outbound_mail WHERE kind = 'umpire-preview'"
        ),
        4
    );
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM outbound_mail WHERE kind = 'report'"
        ),
        0
    );

    umpire(&mut store, g, 2_200, turns::release).unwrap();
    // Only the live attempt's reports went out.
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM outbound_mail WHERE kind = 'report'"
        ),
        2
    );
    assert_replays(&store);
}

#[test]
fn set_then_redo_changes_the_outcome_and_is_kept_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, g) = game(&dir, true);
    order(&mut store, g, Pos::new(24.0, 16.0));
    let first = process_turn(&mut store, "t", &mail(), 2_000).unwrap();

    // Out of bounds is refused with the rule, and nothing is recorded.
    let too_many = umpire(&mut store, g, 2_050, |c| {
        turns::set(c, "12th Ohio", &SetValue::Castings(30), "miscounted")
    })
    .unwrap_err();
    assert!(too_many.to_string().contains("16 castings"), "{too_many}");
    let morale = umpire(&mut store, g, 2_050, |c| {
        turns::set(c, "12th", &SetValue::Morale(6), "rallied")
    })
    .unwrap_err();
    assert!(morale.to_string().contains("VI.B.4"), "{morale}");
    let limbered = umpire(&mut store, g, 2_050, |c| {
        turns::set(
            c,
            "12th Ohio",
            &SetValue::Formation("limbered".parse().unwrap()),
            "x",
        )
    })
    .unwrap_err();
    assert!(limbered.to_string().contains("batteries"), "{limbered}");
    let off = umpire(&mut store, g, 2_050, |c| {
        turns::set(c, "12th Ohio", &SetValue::Position { x: -1.0, y: 3.0 }, "x")
    })
    .unwrap_err();
    assert!(off.to_string().contains("off the table"), "{off}");
    assert!(matches!(
        umpire(&mut store, g, 2_050, |c| turns::set(
            c,
            "20th Maine",
            &SetValue::Morale(1),
            "x"
        )),
        Err(TurnPlaneError::NoSuchUnit { .. })
    ));
    assert_eq!(count(&store, "SELECT count(*) FROM corrections"), 0);

    let said = umpire(&mut store, g, 2_100, |c| {
        turns::set(
            c,
            "12th Ohio",
            &SetValue::Castings(10),
            "six castings lost to the ford, agreed by both players",
        )
    })
    .unwrap();
    assert!(said.contains("REDO"), "{said}");
    // Not applied until REDO.
    assert_eq!(live(&store, 2).1, first.state_hash);
    let redo = umpire(&mut store, g, 2_200, turns::redo).unwrap();
    assert!(redo.contains("new outcome"), "{redo}");
    let (_, hash, _) = live(&store, 2);
    assert_ne!(hash, first.state_hash);
    let state: String = store
        .conn()
        .query_row(
            "SELECT state_json FROM turns WHERE number = 2 AND superseded_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let next = Snapshot::from_json(&state).unwrap();
    assert_eq!(next.battle.unit(UnitId(2)).unwrap().castings, 10);
    // The correction is recorded with its reason and what it replaced.
    let (reason, previous): (String, String) = store
        .conn()
        .query_row("SELECT reason, previous_json FROM corrections", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert!(reason.contains("ford"));
    assert_eq!(previous, "16");
    // A second REDO keeps the correction (it belongs to the turn's start).
    umpire(&mut store, g, 2_300, turns::redo).unwrap();
    assert_eq!(live(&store, 2).1, hash);
    assert_replays(&store);
}

#[test]
fn set_on_the_open_turn_is_carried_into_its_processing() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, g) = game(&dir, false);
    umpire(&mut store, g, 1_500, |c| {
        turns::set(
            c,
            "14th Ohio",
            &SetValue::Morale(1),
            "shaken by the stampede",
        )
    })
    .unwrap();
    process_turn(&mut store, "t", &mail(), 2_000).unwrap();
    let state: String = store
        .conn()
        .query_row("SELECT state_json FROM turns WHERE number = 2", [], |r| {
            r.get(0)
        })
        .unwrap();
    let next = Snapshot::from_json(&state).unwrap();
    assert_eq!(next.battle.unit(UnitId(3)).unwrap().combat_morale, 1);
    assert_replays(&store);
}

#[test]
fn rollback_then_reprocess_reproduces_the_original_and_rollforward_restores() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, g) = game(&dir, false);
    order(&mut store, g, Pos::new(24.0, 16.0));
    let t1 = process_turn(&mut store, "t", &mail(), 2_000).unwrap();
    order(&mut store, g, Pos::new(24.0, 20.0));
    let t2 = process_turn(&mut store, "t", &mail(), 3_000).unwrap();
    let t3 = process_turn(&mut store, "t", &mail(), 4_000).unwrap();
    let events_before = count(&store, "SELECT count(*) FROM events");

    // Refusals: the open turn, a turn that does not exist.
    assert!(matches!(
        umpire(&mut store, g, 4_500, |c| turns::rollback(c, 4)),
        Err(TurnPlaneError::BadRollback { .. })
    ));
    assert!(matches!(
        umpire(&mut store, g, 4_500, |c| turns::rollback(c, 9)),
        Err(TurnPlaneError::BadRollback { .. })
    ));
    assert!(matches!(
        umpire(&mut store, g, 4_500, turns::rollforward),
        Err(TurnPlaneError::NothingToRollForward(_))
    ));

    let said = umpire(&mut store, g, 5_000, |c| turns::rollback(c, 2)).unwrap();
    assert!(said.contains("turn 2 is open again"), "{said}");
    let current = store.current_turn(g).unwrap().unwrap();
    assert_eq!((current.number, current.status.as_str()), (2, "open"));
    assert_eq!(current.state_hash, t1.state_hash, "turn 2 as it opened");
    // Later turns are kept in the archive, not deleted.
    assert_eq!(count(&store, "SELECT count(*) FROM events"), events_before);
    assert_eq!(count(&store, "SELECT count(*) FROM turns"), 5);

    // Reprocessing with the same orders and dice gives the very same turn.
    let again = process_turn(&mut store, "t", &mail(), 6_000).unwrap();
    assert_eq!(again.turn, 2);
    assert_eq!(again.state_hash, t2.state_hash);
    let again3 = process_turn(&mut store, "t", &mail(), 7_000).unwrap();
    assert_eq!(again3.state_hash, t3.state_hash);
    assert_replays(&store);

    // Rolled back to turn 1 then forward: turn 4 open again as it was.
    umpire(&mut store, g, 8_000, |c| turns::rollback(c, 1)).unwrap();
    assert_eq!(store.current_turn(g).unwrap().unwrap().number, 1);
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM orders WHERE status = 'ignored'"
        ),
        1,
        "the order written for turn 2 belongs to the abandoned timeline"
    );
    let back = umpire(&mut store, g, 9_000, turns::rollforward).unwrap();
    assert!(back.contains("rollback to turn 1 is undone"), "{back}");
    let current = store.current_turn(g).unwrap().unwrap();
    assert_eq!(current.number, 4);
    assert_eq!(current.state_hash, again3.state_hash);
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM orders WHERE status = 'ignored'"
        ),
        0
    );
    assert_replays(&store);
}

#[test]
fn rollback_in_an_umpired_game_sets_the_held_turn_aside() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, g) = game(&dir, true);
    order(&mut store, g, Pos::new(24.0, 16.0));
    let t1 = process_turn(&mut store, "t", &mail(), 2_000).unwrap();
    umpire(&mut store, g, 2_100, turns::release).unwrap();
    process_turn(&mut store, "t", &mail(), 3_000).unwrap();
    // Turn 2 is held; roll back to turn 1 and process it again.
    umpire(&mut store, g, 3_100, |c| turns::rollback(c, 1)).unwrap();
    let again = process_turn(&mut store, "t", &mail(), 4_000).unwrap();
    assert!(again.held);
    assert_eq!(again.state_hash, t1.state_hash);
    // Its reports would collide with those sent before: they get new ids.
    umpire(&mut store, g, 4_100, turns::release).unwrap();
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM outbound_mail WHERE kind = 'report'"
        ),
        4
    );
    assert_replays(&store);
}

/// Through the binary: `adjutant game process` holds an umpired game's turn,
/// mails only the umpire, and refuses the next turn until RELEASE; the daemon
/// cycle does not process it either; `adjutant replay` still passes.
#[test]
fn game_process_holds_an_umpired_turn_and_the_daemon_waits() {
    let g = common::GameDir::training("held");
    g.db()
        .execute(
            "UPDATE games SET umpire_address = 'umpire@example.test' WHERE name = 'held'",
            [],
        )
        .unwrap();
    let out = common::adjutant(g.dir.path())
        .args(["game", "process", "held"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("HELD"), "{said}");

    // The outbox gets only the umpire's mail, even after a daemon cycle.
    g.run_once();
    let sent = g.outbox();
    assert_eq!(sent.len(), 3, "the umpire's report and two previews");
    assert!(
        sent.iter()
            .all(|m| m.contains("To: umpire@example.test")
                || m.contains("To: <umpire@example.test>"))
    );
    assert_eq!(
        g.count("SELECT count(*) FROM turns WHERE status = 'held'"),
        1
    );

    let out = common::adjutant(g.dir.path())
        .args(["game", "process", "held"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a held turn is the user's to release"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("RELEASE"));

    common::adjutant(g.dir.path())
        .args(["replay", "held"])
        .assert()
        .success();
}

/// Processes the open turn in umpire-dice mode, answering every request
/// with dice from `roll` (cycled); returns (dice given in order, requests).
fn play_with_umpire_dice(
    store: &mut Store,
    g: GameId,
    now: i64,
    roll: &[u8],
) -> (Vec<u8>, Vec<Vec<String>>) {
    let mut given = Vec::new();
    let mut requests = Vec::new();
    let mut done = process_turn(store, "t", &mail(), now).unwrap();
    let mut next = roll.iter().copied().cycle();
    while !done.dice_wanted.is_empty() {
        requests.push(done.dice_wanted.clone());
        let values: Vec<u8> = (0..done.dice_wanted.len())
            .map(|_| next.next().unwrap())
            .collect();
        given.extend(&values);
        let said = umpire(store, g, now, |c| turns::dice(c, &values)).unwrap();
        if said.contains("needs") {
            let wanted: String = store
                .conn()
                .query_row(
                    "SELECT wanted_json FROM dice_requests WHERE answered_at IS NULL",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            let n = serde_json::from_str::<Vec<serde_json::Value>>(&wanted)
                .unwrap()
                .len();
            done.dice_wanted = vec![String::new(); n];
        } else {
            done.dice_wanted.clear();
        }
    }
    (given, requests)
}

#[test]
fn umpire_dice_are_asked_for_with_their_purposes_and_consumed_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, g) = game(&dir, true);
    let said = umpire(&mut store, g, 1_500, |c| {
        turns::dice_mode(c, adjutant::umpire::DiceMode::Umpire)
    })
    .unwrap();
    assert!(said.contains("UMPIRE"), "{said}");
    // March the 10th Ohio at the 3rd Tennessee until there is shooting.
    let mut asked = Vec::new();
    let mut now = 2_000;
    for _ in 0..4 {
        order(&mut store, g, Pos::new(23.0, 27.0));
        let first = process_turn(&mut store, "t", &mail(), now).unwrap();
        if first.dice_wanted.is_empty() {
            umpire(&mut store, g, now + 10, turns::release).unwrap();
            now += 1_000;
            continue;
        }
        // Nothing of the turn is written while it waits: no events, no held turn.
        let turn = first.turn;
        assert_eq!(
            count(
                &store,
                "SELECT count(*) FROM turns WHERE status = 'held' AND superseded_at IS NULL"
            ),
            0
        );
        let (open_id, _, _) = live(&store, turn);
        assert!(events_of(&store, open_id).is_empty());
        // The umpire is mailed the list, each roll with its purpose.
        let request: Vec<u8> = store
            .conn()
            .query_row(
                "SELECT raw FROM outbound_mail WHERE kind = 'dice-request' ORDER BY id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let request = String::from_utf8_lossy(&request).into_owned();
        assert!(request.contains(&first.dice_wanted[0]), "{request}");
        // The daemon does not re-run a turn that waits for dice.
        assert!(due_games(&store, i64::MAX / 2).unwrap().is_empty());
        // Processing again asks nothing new.
        let again = process_turn(&mut store, "t", &mail(), now + 1).unwrap();
        assert_eq!(again.dice_wanted, first.dice_wanted);
        assert_eq!(
            count(
                &store,
                "SELECT count(*) FROM dice_requests WHERE answered_at IS NULL"
            ),
            1
        );

        // A wrong count and a value off the die are refused, nothing taken.
        let n = first.dice_wanted.len();
        let err = umpire(&mut store, g, now + 2, |c| turns::dice(c, &vec![3; n + 1])).unwrap_err();
        assert!(
            matches!(err, TurnPlaneError::WrongDiceCount { .. }),
            "{err}"
        );
        assert!(err.to_string().contains(&first.dice_wanted[0]), "{err}");
        let mut bad = vec![3; n];
        bad[n - 1] = 7;
        let err = umpire(&mut store, g, now + 2, |c| turns::dice(c, &bad)).unwrap_err();
        assert!(
            matches!(err, TurnPlaneError::BadDie { value: 7, .. }),
            "{err}"
        );
        assert_eq!(count(&store, "SELECT count(*) FROM umpire_dice"), 0);

        // Answered in full, the turn completes with exactly those dice, in order.
        let rolls_before = count(&store, "SELECT count(*) FROM dice_rolls");
        let (given, _) = play_with_umpire_dice(&mut store, g, now + 3, &[5, 2, 6, 1, 3, 4]);
        let (held_id, _, status) = live(&store, turn);
        assert_eq!(status, "held");
        let archived: Vec<(u8, String, bool)> = {
            let mut st = store
                .conn()
                .prepare("SELECT value, source, draw_index IS NULL FROM dice_rolls WHERE turn_id = ?1 ORDER BY seq")
                .unwrap();
            st.query_map([held_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(
            count(&store, "SELECT count(*) FROM dice_rolls") - rolls_before,
            archived.len() as i64
        );
        assert!(
            archived
                .iter()
                .all(|(_, s, no_draw)| s == "umpire" && *no_draw)
        );
        let values: Vec<u8> = archived.iter().map(|(v, _, _)| *v).collect();
        assert_eq!(values, given, "consumed in the order given");
        asked.push(turn);

        // REDO uses the same dice: same outcome, no new request.
        let redo = umpire(&mut store, g, now + 4, turns::redo).unwrap();
        assert!(redo.contains("same as before"), "{redo}");
        assert_replays(&store);

        // Back to the stream: the next turn asks nothing.
        umpire(&mut store, g, now + 5, turns::release).unwrap();
        umpire(&mut store, g, now + 6, |c| {
            turns::dice_mode(c, adjutant::umpire::DiceMode::Stream)
        })
        .unwrap();
        let streamed = process_turn(&mut store, "t", &mail(), now + 7).unwrap();
        assert!(streamed.dice_wanted.is_empty());
        assert!(streamed.held);
        break;
    }
    assert!(
        !asked.is_empty(),
        "no turn needed dice: the test proves nothing"
    );
    assert!(matches!(
        umpire(&mut store, g, 99_000, |c| turns::dice(c, &[1])),
        Err(TurnPlaneError::NoDiceWanted(_))
    ));
}

/// The game directory's mail settings, for the turn plane's own mails.
fn dir_mail(g: &common::GameDir) -> ReportMail {
    ReportMail {
        game_master: "adjutant@example.test".into(),
        message_id_domain: "example.test".into(),
        server_key: g.key(),
    }
}

fn decoded(mails: &[String]) -> String {
    mails.join("\n").replace("=\r\n", "").replace("=3D", "=")
}

/// Free text, by mail through the binary: the paragraph goes to the umpire
/// with the unit's situation (his side's view only) and the receipt says
/// so; INTERPRET enters it as his order and tells him; REJECT tells him why.
#[test]
fn free_text_goes_to_the_umpire_and_back() {
    let g = common::GameDir::training("ft");
    g.db()
        .execute(
            "UPDATE games SET umpire_address = 'umpire@example.test' WHERE name = 'ft'",
            [],
        )
        .unwrap();
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "12th Ohio: advance to the crossroads in line.\n\n\
         10th Ohio is to make a great show of force toward the rebels yonder but on no account bring on an engagement.\n\n\
         14th Ohio: sing the doxology loudly.",
    );
    g.run_once();
    let out = decoded(&g.outbox());
    // The receipt: the good order counted, the two others went to the umpire.
    assert!(out.contains("Orders as understood"), "{out}");
    assert!(out.contains("Sent to the umpire to interpret"), "{out}");
    assert!(out.contains("[F1-1]") && out.contains("[F1-2]"), "{out}");
    assert!(!out.contains("Not understood"), "{out}");
    // The umpire's mail: id, the player's words, the unit and what his side sees.
    assert!(out.contains("INTERPRET F1-1:"), "{out}");
    assert!(out.contains("show of force"), "{out}");
    assert!(out.contains("Unit: 10th Ohio"), "{out}");
    // The Confederates are out of sight of the Union at the start: not named.
    let union_sees =
        g.count("SELECT count(*) FROM interpretations WHERE situation LIKE '%sees no enemy%'");
    let tennessee_named =
        g.count("SELECT count(*) FROM interpretations WHERE situation LIKE '%Tennessee%'");
    assert!(
        union_sees == 2 || tennessee_named == 2,
        "the situation says what his side sees"
    );
    assert_eq!(
        g.count("SELECT count(*) FROM submissions WHERE status = 'accepted'"),
        1
    );

    let mut store = Store::open(&g.path("var/adjutant.db")).unwrap();
    let game_id = store.game_id("ft").unwrap().unwrap();
    let m = dir_mail(&g);
    let run = |store: &mut Store,
               f: &dyn Fn(&UmpireCtx<'_, '_>) -> Result<String, TurnPlaneError>| {
        let tx = store.transaction().unwrap();
        let ctx = UmpireCtx {
            tx: &tx,
            game: "ft",
            game_id,
            actor: "umpire",
            now: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs() as i64,
            mail: &m,
        };
        let out = f(&ctx);
        if out.is_ok() {
            tx.commit().unwrap();
        }
        out
    };
    // A reading that is not in the order language is refused, nothing recorded.
    let err = run(&mut store, &|c| turns::interpret(c, "F1-1", "make a show")).unwrap_err();
    assert!(matches!(err, TurnPlaneError::Interpretation(_)), "{err}");
    let said = run(&mut store, &|c| {
        turns::interpret(c, "F1-1", "10th Ohio: advance to the crossroads.")
    })
    .unwrap();
    assert!(said.contains("F1-1 entered as Blue's order"), "{said}");
    assert_eq!(
        g.count("SELECT count(*) FROM orders o JOIN units u ON u.id = o.unit_id WHERE u.name = '10th Ohio' AND o.status = 'pending'"),
        1
    );
    // Answered once only.
    assert!(matches!(
        run(&mut store, &|c| turns::reject(c, "F1-1", "no")),
        Err(TurnPlaneError::AlreadyAnswered { .. })
    ));
    let said = run(&mut store, &|c| {
        turns::reject(c, "f1-2", "a regiment does not sing on my table")
    })
    .unwrap();
    assert!(said.contains("rejected"), "{said}");
    assert!(matches!(
        run(&mut store, &|c| turns::reject(c, "F9-9", "x")),
        Err(TurnPlaneError::NoSuchInterpretation(_))
    ));
    drop(store);

    // The player is told both answers.
    g.run_once();
    let to_blue: Vec<String> = g
        .outbox()
        .into_iter()
        .filter(|m| m.contains("To: blue@example.test") && m.contains("Subject: ft: the umpire"))
        .collect();
    let blue = decoded(&to_blue);
    assert!(blue.contains("the umpire read it"), "{blue}");
    assert!(blue.contains("10th Ohio"), "{blue}");
    assert!(blue.contains("does not sing on my table"), "{blue}");
    assert_eq!(
        g.count("SELECT count(*) FROM interpretations WHERE status <> 'pending' AND answered_by = 'umpire'"),
        2
    );
}

/// Migration 0004 rebuilds `turns` on a database that already has games:
/// every row keeps its id, the rows that reference it stay valid, and each
/// turn gets its predecessor.
#[test]
fn migration_0004_keeps_existing_turns_and_their_references() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(include_str!("../migrations/0001_initial.sql"))
            .unwrap();
        c.execute_batch(include_str!("../migrations/0002_rules_ids.sql"))
            .unwrap();
        c.pragma_update(None, "user_version", 2).unwrap();
        c.execute_batch(&format!(
            "PRAGMA foreign_keys = ON;
             INSERT INTO games (id, name, ruleset, scenario_name, scenario_toml, seed, created_at)
                 VALUES (7, 'old', 'iron-brigade', 's', '', zeroblob(32), 1);
             INSERT INTO turns (id, game_id, number, status, seed_commitment, seed_revealed,
                                state_json, state_hash, opened_at)
                 VALUES (40, 7, 1, 'released', '{h}', '{h}', '{{}}', '{h}', 1),
                        (41, 7, 2, 'open', '{h}', NULL, '{{}}', '{h}', 2);
             INSERT INTO events (game_id, turn_id, seq, kind, data_json) VALUES (7, 40, 0, 'k', '{{}}');",
            h = "a".repeat(64)
        ))
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        adjutant::store::SCHEMA_VERSION
    );
    let rows: Vec<(i64, u32, Option<i64>, u32, bool)> = {
        let mut st = store
            .conn()
            .prepare("SELECT id, number, prev_turn_id, attempt, superseded_at IS NULL FROM turns ORDER BY id")
            .unwrap();
        st.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    assert_eq!(rows, [(40, 1, None, 1, true), (41, 2, Some(40), 1, true)]);
    assert_eq!(
        count(&store, "SELECT count(*) FROM events WHERE turn_id = 40"),
        1
    );
    assert_eq!(
        count(&store, "SELECT count(*) FROM pragma_foreign_key_check"),
        0
    );
    // The foreign keys still bite: an event for a turn that does not exist.
    assert!(
        store
            .conn()
            .execute(
                "INSERT INTO events (game_id, turn_id, seq, kind, data_json) VALUES (7, 99, 0, 'k', '{}')",
                [],
            )
            .is_err()
    );
    // And the snapshot is still immutable.
    assert!(
        store
            .conn()
            .execute("UPDATE turns SET state_json = '[]' WHERE id = 40", [])
            .is_err()
    );
}

/// One game with a correction, a REDO, a rollback and a rollforward:
/// replay checks every attempt, set aside or live, and all pass.
#[test]
fn replay_passes_on_a_game_with_redo_and_rollback() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, g) = game(&dir, true);
    order(&mut store, g, Pos::new(24.0, 16.0));
    process_turn(&mut store, "t", &mail(), 2_000).unwrap();
    umpire(&mut store, g, 2_100, |c| {
        turns::set(
            c,
            "10th Ohio",
            &SetValue::Castings(15),
            "three castings straggled",
        )
    })
    .unwrap();
    umpire(&mut store, g, 2_200, turns::redo).unwrap();
    umpire(&mut store, g, 2_300, turns::release).unwrap();
    order(&mut store, g, Pos::new(24.0, 22.0));
    process_turn(&mut store, "t", &mail(), 3_000).unwrap();
    umpire(&mut store, g, 3_100, turns::release).unwrap();
    process_turn(&mut store, "t", &mail(), 4_000).unwrap();
    umpire(&mut store, g, 4_100, |c| turns::rollback(c, 2)).unwrap();
    process_turn(&mut store, "t", &mail(), 5_000).unwrap();
    umpire(&mut store, g, 5_100, turns::redo).unwrap();
    umpire(&mut store, g, 5_200, turns::rollforward).unwrap();
    let report = replay_game(&store, "t", &mut |_, _| {}).unwrap();
    let lines: Vec<String> = report.turns.iter().map(|t| t.line()).collect();
    assert!(report.ok, "{lines:#?}");
    // Attempts: turn 1 twice, turn 2 (original, its rollback copy, the
    // copy's REDO), turn 3; the set-aside ones are checked too.
    assert!(report.turns.iter().any(|t| !t.live), "{lines:#?}");
    assert!(report.turns.len() >= 6, "{lines:#?}");
    // The corrected castings carried through the live timeline.
    let current = store.current_turn(g).unwrap().unwrap();
    let snap = Snapshot::from_json(&current.state_json).unwrap();
    // Rolled forward: turn 3 held again, turn 4 open, as before the rollback.
    assert_eq!(current.number, 4);
    assert_eq!(live(&store, 3).2, "held");
    assert!(snap.battle.unit(UnitId(1)).unwrap().castings <= 15);
}
