//! Processing a turn through the store: one transaction, deterministic,
//! all or nothing. Real SQLite files on disk.

use adjutant::game::book::{record_direct_submission, record_unit_order};
use adjutant::game::report_mail::ReportMail;
use adjutant::game::snapshot::Snapshot;
use adjutant::game::turn::{TurnCycleError, process_turn};
use adjutant::game::{battle_state_from_scenario, new_game};
use adjutant::rules::iron_brigade::orders::{Action, Gait, MoveOrder, Step, Trigger, UnitOrder};
use adjutant::rules::iron_brigade::state::{OfficerId, Pos, UnitId};
use adjutant::scenario::Scenario;
use adjutant::store::{GameId, Store, seed_commitment, turn_seed};
use rusqlite::params;

const TRAINING: &str = include_str!("../scenarios/training.toml");

/// A store with the training scenario created under `name` with a fixed
/// game seed, so two stores made this way must process identically.
fn store_with_game(dir: &tempfile::TempDir, name: &str) -> (Store, GameId) {
    let scenario = Scenario::from_toml_str(TRAINING, "training.toml").unwrap();
    let (game, _) = new_game(&scenario, TRAINING, name, [42; 32], 1_000, |p| {
        Ok((format!("s-{}", p.name), "$argon2id$v=19$test".to_string()))
    })
    .unwrap();
    let mut store = Store::open(&dir.path().join("a.db")).unwrap();
    let id = store.create_game(&game).unwrap();
    (store, id)
}

fn advance_order(unit: u32, officer: u32, to: Pos) -> UnitOrder {
    UnitOrder {
        id: 0,
        unit: UnitId(unit),
        issued_by: OfficerId(officer),
        issued_turn: 1,
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
    }
}

/// Writes an order for the 10th Ohio (unit 1, under Colonel Hale, officer 1).
fn write_order(store: &mut Store, game: GameId, to: Pos) -> i64 {
    let tx = store.transaction().unwrap();
    let (player, turn_id): (i64, i64) = tx
        .query_row(
            "SELECT p.id, t.id FROM players p JOIN turns t ON t.game_id = p.game_id
             WHERE p.game_id = ?1 AND t.status = 'open' ORDER BY p.id LIMIT 1",
            [game.0],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let (sub, _) = record_direct_submission(&tx, game, player, turn_id, 1_100).unwrap();
    let (id, _) =
        record_unit_order(&tx, game, sub, &advance_order(1, 1, to), "advance", 1).unwrap();
    tx.commit().unwrap();
    id
}

/// Mail settings for the reports each processed turn queues.
fn mail() -> ReportMail {
    ReportMail {
        game_master: "adjutant@example.test".into(),
        message_id_domain: "example.test".into(),
        server_key: vec![7; 32],
    }
}

fn count(store: &Store, sql: &str) -> i64 {
    store.conn().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn processing_closes_the_turn_reveals_the_seed_and_opens_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, game) = store_with_game(&dir, "t");
    write_order(&mut store, game, Pos::new(24.0, 16.0));
    let done = process_turn(&mut store, "t", &mail(), 2_000).unwrap();
    assert_eq!((done.turn, done.next_turn), (1, 2));

    let (status, revealed, commitment): (String, String, String) = store
        .conn()
        .query_row(
            "SELECT status, seed_revealed, seed_commitment FROM turns WHERE game_id = ?1 AND number = 1",
            [game.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(status, "released");
    // The revealed seed is the one committed to before the turn.
    let seed = turn_seed(&store.game_seed(game).unwrap().unwrap(), 1);
    assert_eq!(revealed, hex::encode(seed));
    assert_eq!(commitment, seed_commitment(&seed));

    let current = store.current_turn(game).unwrap().unwrap();
    assert_eq!(current.number, 2);
    assert_eq!(current.state_hash, done.state_hash);
    let snap = Snapshot::from_json(&current.state_json).unwrap();
    assert_eq!(snap.battle.turn, 2);
    // The 10th Ohio was ordered 5" north from (24, 11), within its 7" of
    // infantry movement, and is within 12" of Colonel Hale, so it arrived
    // this turn (APSoF I.C.1, IV.G).
    let ohio = snap.battle.unit(UnitId(1)).unwrap();
    assert!((ohio.position.y - 16.0).abs() < 0.01, "{:?}", ohio.position);
    assert!((ohio.position.x - 24.0).abs() < 0.01, "{:?}", ohio.position);

    assert!(count(&store, "SELECT COUNT(*) FROM events") > 0);
    // One report per player (both mailed, linked to their outbound rows)
    // and the umpire's (stored; the training game has no umpire address),
    // all about turn 2 and committed with the turn.
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM reports r JOIN turns t ON t.id = r.turn_id
             WHERE t.number = 2 AND r.player_id IS NOT NULL
               AND r.outbound_mail_id IN (SELECT id FROM outbound_mail WHERE kind = 'report')"
        ),
        2
    );
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM reports WHERE player_id IS NULL AND text LIKE '%UMPIRE''S REPORT%'"
        ),
        1
    );
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM events WHERE kind = 'sighting'"
        ),
        2,
        "one sighting record per side"
    );
    assert_eq!(
        count(&store, "SELECT COUNT(*) FROM dice_rolls"),
        done.rolls as i64
    );
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM orders WHERE status = 'active'"
        ),
        1
    );
}

#[test]
fn same_game_seed_and_orders_give_byte_identical_turns() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let (mut sa, ga) = store_with_game(&a, "t");
    let (mut sb, gb) = store_with_game(&b, "t");
    for (store, game) in [(&mut sa, ga), (&mut sb, gb)] {
        write_order(store, game, Pos::new(24.0, 20.0));
    }
    let mut hashes = Vec::new();
    for store in [&mut sa, &mut sb] {
        let mut per_turn = Vec::new();
        for t in 0..3 {
            per_turn.push(
                process_turn(store, "t", &mail(), 2_000 + t)
                    .unwrap()
                    .state_hash,
            );
        }
        hashes.push(per_turn);
    }
    assert_eq!(hashes[0], hashes[1]);
    let events = |s: &Store| -> Vec<String> {
        let mut st = s
            .conn()
            .prepare("SELECT data_json FROM events ORDER BY id")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(events(&sa), events(&sb));
}

#[test]
fn a_bad_order_leaves_the_turn_exactly_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, game) = store_with_game(&dir, "t");
    write_order(&mut store, game, Pos::new(24.0, 16.0));
    // A second order whose stored form no longer reads as an order: the
    // turn must fail as a whole, writing nothing.
    let id = write_order(&mut store, game, Pos::new(24.0, 14.0));
    store
        .conn()
        .execute("DROP TRIGGER orders_immutable", [])
        .unwrap();
    store
        .conn()
        .execute(
            "UPDATE orders SET parsed_json = '{\"not\": \"an order\"}' WHERE id = ?1",
            params![id],
        )
        .unwrap();
    let before_turns = count(&store, "SELECT COUNT(*) FROM turns");
    let err = process_turn(&mut store, "t", &mail(), 2_000).unwrap_err();
    assert!(matches!(err, TurnCycleError::Order { .. }), "{err}");
    assert_eq!(count(&store, "SELECT COUNT(*) FROM turns"), before_turns);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM events"), 0);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM dice_rolls"), 0);
    let current = store.current_turn(game).unwrap().unwrap();
    assert_eq!(current.number, 1);
    assert_eq!(format!("{:?}", current.status), "Open");
}

#[test]
fn a_later_order_for_the_same_turn_supersedes_the_earlier() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, game) = store_with_game(&dir, "t");
    let first = write_order(&mut store, game, Pos::new(24.0, 16.0));
    let second = write_order(&mut store, game, Pos::new(24.0, 14.0));
    let (status, by): (String, i64) = store
        .conn()
        .query_row(
            "SELECT status, replaced_by_id FROM orders WHERE id = ?1",
            [first],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((status.as_str(), by), ("superseded", second));
    let done = process_turn(&mut store, "t", &mail(), 2_000).unwrap();
    assert_eq!(done.turn, 1);
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM orders WHERE status = 'active'"
        ),
        1
    );
}

#[test]
fn unknown_game_and_opening_state_match_the_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, game) = store_with_game(&dir, "t");
    assert!(matches!(
        process_turn(&mut store, "nope", &mail(), 1),
        Err(TurnCycleError::NoSuchGame(_))
    ));
    let current = store.current_turn(game).unwrap().unwrap();
    let snap = Snapshot::from_json(&current.state_json).unwrap();
    let scenario = Scenario::from_toml_str(TRAINING, "training.toml").unwrap();
    assert_eq!(snap.battle, battle_state_from_scenario(&scenario));
}
