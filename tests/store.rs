//! Integration tests of the game store, on real SQLite files in a temp dir.
//!
//! The two embedded messages are `rfc/001.eml` and `rfc/005.eml` from the
//! mail-parser crate's test resources (stalwartlabs/mail-parser, MIT or
//! Apache-2.0), as copied into the project's real-world mail corpus.

/// rfc/001.eml: has a Message-ID (`<id1@host.com>`).
const MAIL_WITH_ID: &[u8] = br#"From: Whomever
To: Someone
Date: Whenever
Subject: whatever
MIME-Version: 1.0
Message-ID: <id1@host.com>
Content-Type: multipart/alternative; boundary=42
Content-ID: <id001@guppylake.bellcore.com>

--42
Content-Type: message/external-body; name="BodyFormats.ps";
            site="thumper.bellcore.com"; mode="image";
            access-type=ANON-FTP; directory="pub";
            expiration="Fri, 14 Jun 1991 19:13:14 -0400 (EDT)"

Content-type: application/postscript
Content-ID: <id42@guppylake.bellcore.com>

--42
Content-Type: message/external-body; access-type=local-file;
            name="/u/nsb/writing/rfcs/RFC-MIME.ps";
            site="thumper.bellcore.com";
            expiration="Fri, 14 Jun 1991 19:13:14 -0400 (EDT)"

Content-type: application/postscript
Content-ID: <id42@guppylake.bellcore.com>

--42
Content-Type: message/external-body;
            access-type=mail-server
            server="listserv@bogus.bitnet";
            expiration="Fri, 14 Jun 1991 19:13:14 -0400 (EDT)"

Content-type: application/postscript
Content-ID: <id42@guppylake.bellcore.com>

get RFC-MIME.DOC

--42--

"#;

/// rfc/005.eml: has no Message-ID.
const MAIL_WITHOUT_ID: &[u8] = br#"From: Nathaniel Borenstein <nsb@bellcore.com>
To: Ned Freed <ned@innosoft.com>
Date: Sun, 21 Mar 1993 23:56:48 -0800 (PST)
Subject: Sample message
MIME-Version: 1.0
Content-type: multipart/mixed; boundary="simple boundary"

This is the preamble.  It is to be ignored, though it
is a handy place for composition agents to include an
explanatory note to non-MIME conformant readers.

--simple boundary

This is implicitly typed plain US-ASCII text.
It does NOT end with a linebreak.
--simple boundary
Content-type: text/plain; charset=us-ascii

This is explicitly typed plain US-ASCII text.
It DOES end with a linebreak.

--simple boundary--

This is the epilogue.  It is also to be ignored.
"#;

use adjutant::rules::iron_brigade::kinds::{
    Arm, CommandClass, OfficerLevel, OfficerRating, Weapon,
};
use adjutant::store::*;
use mailparse::MailHeaderMap;
use rusqlite::Connection;
use std::path::{Path, PathBuf};

const T0: i64 = 1_787_000_000;
const HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$YWRqdXRhbnRzYWx0$3Vt0VZ0bQ7Nk1mQ3m9pQ4cC0B7yJt2m5pZq9x1C8r2E";

fn db_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("var").join("adjutant.sqlite")
}

/// Every schema object, for comparing schemas before and after.
fn schema_of(path: &Path) -> Vec<(String, String, Option<String>)> {
    let c = Connection::open(path).unwrap();
    let mut stmt = c
        .prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A fresh rules id: unique across the whole test binary, so unique per game.
fn next_rules_id() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn officer(name: &str, side: &str, level: OfficerLevel, superior: Option<&str>) -> NewOfficer {
    NewOfficer {
        rules_id: next_rules_id(),
        name: name.into(),
        side: side.into(),
        level,
        rating: OfficerRating::Good,
        command_class: CommandClass::Regular,
        superior: superior.map(Into::into),
    }
}

fn unit(
    name: &str,
    aliases: &[&str],
    side: &str,
    arm: Arm,
    weapon: Weapon,
    commander: &str,
) -> NewUnit {
    NewUnit {
        rules_id: next_rules_id(),
        name: name.into(),
        aliases: aliases.iter().map(|a| a.to_string()).collect(),
        side: side.into(),
        arm,
        weapon,
        commander: commander.into(),
    }
}

/// Brawner's Farm in miniature. Officers are listed subordinate-first on
/// purpose: the store must not depend on the scenario's order.
fn brawner(name: &str) -> NewGame {
    NewGame {
        name: name.into(),
        ruleset: "iron-brigade".into(),
        scenario_name: "Brawner's Farm, 28 August 1862".into(),
        scenario_toml: "[scenario]\nname = \"Brawner's Farm\"\n".into(),
        seed: [9u8; 32],
        created_at: T0,
        umpire_address: Some("umpire@example.org".into()),
        settings_json: r#"{"umpired":true}"#.into(),
        sides: vec!["Union".into(), "Confederate".into()],
        players: vec![
            NewPlayer {
                name: "Alice".into(),
                side: "Union".into(),
                addresses: vec!["alice@example.org".into(), "Alice@Work.example".into()],
                secret_hash: HASH.into(),
                time_zone: "America/New_York".into(),
                officers: vec!["Gibbon".into()],
            },
            NewPlayer {
                name: "Bob".into(),
                side: "Confederate".into(),
                addresses: vec!["bob@example.net".into()],
                secret_hash: HASH.into(),
                time_zone: "Europe/London".into(),
                officers: vec!["Taliaferro".into(), "Baylor".into()],
            },
        ],
        officers: vec![
            officer("Gibbon", "Union", OfficerLevel::Brigade, Some("King")),
            officer("King", "Union", OfficerLevel::Division, None),
            officer(
                "Baylor",
                "Confederate",
                OfficerLevel::Brigade,
                Some("Taliaferro"),
            ),
            officer("Taliaferro", "Confederate", OfficerLevel::Division, None),
        ],
        units: vec![
            unit(
                "2nd Wisconsin",
                &["2nd Wis"],
                "Union",
                Arm::Infantry,
                Weapon::RifledMusket,
                "Gibbon",
            ),
            unit(
                "6th Wisconsin",
                &["6th Wis"],
                "Union",
                Arm::Infantry,
                Weapon::RifledMusket,
                "Gibbon",
            ),
            unit(
                "Battery B",
                &["B/4th US"],
                "Union",
                Arm::Artillery,
                Weapon::TwelvePdrGun,
                "Gibbon",
            ),
            unit(
                "2nd Virginia",
                &[],
                "Confederate",
                Arm::Infantry,
                Weapon::RifledMusket,
                "Baylor",
            ),
        ],
        initial_state_json: r#"{"units":{"2nd Wisconsin":{"castings":24}}}"#.into(),
        first_deadline_at: Some(T0 + 86_400),
        grace_secs: 3_600,
    }
}

// ---------------------------------------------------------------- opening

#[test]
fn migrations_apply_to_empty_file_and_reapply_as_noop() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir); // parent directory does not exist yet
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(store.path(), path);
    drop(store);
    let before = schema_of(&path);
    assert!(before.iter().any(|(_, n, _)| n == "outbound_mail"));

    let again = Store::open(&path).unwrap();
    assert_eq!(again.schema_version().unwrap(), SCHEMA_VERSION);
    drop(again);
    let existing = Store::open_existing(&path).unwrap();
    assert_eq!(existing.schema_version().unwrap(), SCHEMA_VERSION);
    drop(existing);
    assert_eq!(schema_of(&path), before);
}

#[test]
fn every_table_the_brief_names_exists() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&db_in(&dir)).unwrap();
    for table in [
        "games",
        "sides",
        "players",
        "player_addresses",
        "officers",
        "units",
        "turns",
        "inbound_mail",
        "imap_state",
        "submissions",
        "orders",
        "events",
        "dice_rolls",
        "dispatches",
        "outbound_mail",
        "reports",
        "map_bases",
        "audit_log",
    ] {
        let n: i64 = store
            .conn()
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1, "table {table}");
    }
}

#[test]
fn wal_mode_foreign_keys_and_busy_timeout_are_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let store = Store::open(&path).unwrap();
    let c = store.conn();
    let mode: String = c
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let fk: i64 = c
        .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(fk, 1);
    let busy: i64 = c
        .query_row("PRAGMA busy_timeout", [], |r| r.get(0))
        .unwrap();
    assert_eq!(busy, 5000);
    // WAL is persistent: a plain connection sees it too.
    let other = Connection::open(&path).unwrap();
    let mode: String = other
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn newer_schema_is_refused_and_left_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    drop(Store::open(&path).unwrap());
    {
        let c = Connection::open(&path).unwrap();
        c.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    for result in [Store::open_existing(&path), Store::open(&path)] {
        let err = result.unwrap_err();
        match &err {
            StoreError::NewerSchema {
                found, supported, ..
            } => {
                assert_eq!(*found, SCHEMA_VERSION + 1);
                assert_eq!(*supported, SCHEMA_VERSION);
            }
            other => panic!("expected NewerSchema, got {other:?}"),
        }
        assert!(err.is_user_error());
        assert!(err.to_string().contains(&path.display().to_string()));
        assert!(err.to_string().contains("newer"));
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn garbage_file_is_refused_named_and_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        (
            "notes.txt",
            b"Gibbon's brigade, 28 August 1862\n".repeat(200),
        ),
        ("short.bin", b"not sqlite".to_vec()),
        // A real SQLite header whose page size is nonsense: corrupt.
        ("corrupt.sqlite", {
            let mut b = b"SQLite format 3\0".to_vec();
            b.extend(std::iter::repeat_n(0xAB_u8, 4096 - b.len()));
            b
        }),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        for result in [Store::open(&path), Store::open_existing(&path)] {
            let err = result.unwrap_err();
            assert!(
                matches!(err, StoreError::NotADatabase { .. }),
                "{name}: expected NotADatabase, got {err:?}"
            );
            assert!(err.is_user_error());
            assert!(err.to_string().contains(name), "{err}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} was modified");
        assert!(!dir.path().join(format!("{name}-wal")).exists());
    }
}

#[test]
fn someone_elses_sqlite_database_is_refused_and_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    {
        let c = Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('hardtack');",
        )
        .unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::NotADatabase { .. }), "{err:?}");
    assert!(err.to_string().contains("did not create"));
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn missing_file_is_refused_by_open_existing_and_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let err = Store::open_existing(&path).unwrap_err();
    assert!(matches!(err, StoreError::Missing { .. }), "{err:?}");
    assert!(err.is_user_error());
    assert!(err.to_string().contains("adjutant init"));
    assert!(!path.exists());
    assert!(!path.parent().unwrap().exists());
}

// ---------------------------------------------------------------- games

#[test]
fn create_game_round_trips_through_game_detail_and_list() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let g = brawner("brawner");
    let id = store.create_game(&g).unwrap();

    let d = store
        .game_detail("Brawner")
        .unwrap()
        .expect("case-insensitive lookup");
    assert_eq!(d.id, id);
    assert_eq!(d.name, "brawner");
    assert_eq!(d.ruleset, "iron-brigade");
    assert_eq!(d.scenario_name, g.scenario_name);
    assert_eq!(d.status, GameStatus::Active);
    assert_eq!(d.created_at, T0);
    assert_eq!(d.umpire_address.as_deref(), Some("umpire@example.org"));
    assert_eq!(d.sides, vec!["Union", "Confederate"]);

    assert_eq!(d.players.len(), 2);
    let alice = &d.players[0];
    assert_eq!(alice.name, "Alice");
    assert_eq!(alice.side, "Union");
    assert_eq!(alice.status, PlayerStatus::Active);
    assert_eq!(alice.time_zone, "America/New_York");
    assert!(!alice.address_failing);
    let addrs: Vec<_> = alice.addresses.iter().map(|a| a.address.as_str()).collect();
    assert_eq!(addrs, ["alice@example.org", "Alice@Work.example"]);
    assert_eq!(alice.officers, ["Gibbon"]);
    assert_eq!(d.players[1].officers, ["Baylor", "Taliaferro"]); // officer-list order

    let gibbon = d.officers.iter().find(|o| o.name == "Gibbon").unwrap();
    assert_eq!(gibbon.superior.as_deref(), Some("King"));
    assert_eq!(gibbon.player.as_deref(), Some("Alice"));
    assert_eq!(gibbon.level, OfficerLevel::Brigade);
    assert_eq!(gibbon.rating, OfficerRating::Good);
    assert_eq!(gibbon.command_class, CommandClass::Regular);
    let king = d.officers.iter().find(|o| o.name == "King").unwrap();
    assert_eq!(king.superior, None);
    assert_eq!(king.player, None);

    let counts: Vec<_> = d
        .units_per_side
        .iter()
        .map(|s| (s.side.as_str(), s.units))
        .collect();
    assert_eq!(counts, [("Union", 3), ("Confederate", 1)]);

    let turn = d.current_turn.as_ref().unwrap();
    assert_eq!(turn.number, 1);
    assert_eq!(turn.status, TurnStatus::Open);
    assert_eq!(turn.deadline_at, Some(T0 + 86_400));
    assert_eq!(turn.grace_secs, 3_600);
    assert_eq!(turn.opened_at, T0);
    assert_eq!(
        turn.seed_commitment,
        seed_commitment(&turn_seed(&g.seed, 1))
    );

    // The snapshot and its hash are stored as given.
    let (state, hash): (String, String) = store
        .conn()
        .query_row(
            "SELECT state_json, state_hash FROM turns WHERE game_id = ?1",
            [id.0],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(state, g.initial_state_json);
    assert_eq!(hash, sha256_hex(g.initial_state_json.as_bytes()));
    let aliases: String = store
        .conn()
        .query_row(
            "SELECT aliases_json FROM units WHERE name = 'battery b'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(aliases, r#"["B/4th US"]"#);

    // JSON for the CLI carries no secrets.
    let json = serde_json::to_string(&d).unwrap();
    assert!(!json.contains("argon2"), "{json}");
    assert!(json.contains(r#""status":"open""#), "{json}");

    let list = store.list_games().unwrap();
    assert_eq!(
        list,
        vec![GameSummary {
            name: "brawner".into(),
            scenario_name: g.scenario_name.clone(),
            status: GameStatus::Active,
            current_turn: Some(1),
            players: vec!["Alice".into(), "Bob".into()],
            created_at: T0,
        }]
    );
    assert_eq!(store.game_detail("no-such-game").unwrap(), None);
}

#[test]
fn every_kind_value_fits_the_schema_checks() {
    // If a variant is added to kinds.rs, this fails until a migration
    // widens the CHECK lists in the schema.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let mut g = brawner("kinds");
    g.officers = Vec::new();
    for (i, level) in OfficerLevel::ALL.iter().enumerate() {
        for (j, rating) in OfficerRating::ALL.iter().enumerate() {
            for (k, class) in CommandClass::ALL.iter().enumerate() {
                g.officers.push(NewOfficer {
                    rules_id: next_rules_id(),
                    name: format!("Officer {i}-{j}-{k}"),
                    side: "Union".into(),
                    level: *level,
                    rating: *rating,
                    command_class: *class,
                    superior: None,
                });
            }
        }
    }
    g.officers
        .push(officer("Gibbon", "Union", OfficerLevel::Brigade, None));
    g.officers.push(officer(
        "Taliaferro",
        "Confederate",
        OfficerLevel::Division,
        None,
    ));
    g.officers.push(officer(
        "Baylor",
        "Confederate",
        OfficerLevel::Brigade,
        None,
    ));
    g.units = Vec::new();
    for (i, weapon) in Weapon::ALL.iter().enumerate() {
        let arm = Arm::ALL[i % Arm::ALL.len()];
        g.units.push(unit(
            &format!("Unit {i}"),
            &[],
            "Union",
            arm,
            *weapon,
            "Gibbon",
        ));
    }
    store.create_game(&g).unwrap();
    let d = store.game_detail("kinds").unwrap().unwrap();
    assert_eq!(d.units_per_side[0].units as usize, Weapon::ALL.len());
    assert_eq!(d.officers.len(), 4 * 5 * 3 + 3);
}

#[test]
fn duplicate_game_name_is_refused_and_the_first_game_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    store.create_game(&brawner("brawner")).unwrap();
    let mut second = brawner("BRAWNER");
    second.scenario_name = "something else".into();
    let err = store.create_game(&second).unwrap_err();
    assert!(
        matches!(&err, StoreError::GameExists { name } if name == "BRAWNER"),
        "{err:?}"
    );
    assert!(err.is_user_error());
    let list = store.list_games().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].scenario_name, "Brawner's Farm, 28 August 1862");
    let players: i64 = store
        .conn()
        .query_row("SELECT count(*) FROM players", [], |r| r.get(0))
        .unwrap();
    assert_eq!(players, 2);
}

#[test]
fn inconsistent_scenarios_are_refused_with_the_reason_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    type Breakage = (fn(&mut NewGame), &'static str);
    let cases: Vec<Breakage> = vec![
        (|g| g.units[0].side = "Prussia".into(), "Prussia"),
        (|g| g.units[0].commander = "Pope".into(), "Pope"),
        (|g| g.units[3].commander = "Gibbon".into(), "Gibbon"),
        (
            |g| g.officers[1].superior = Some("Gibbon".into()),
            "own superior",
        ),
        (
            |g| g.players[1].addresses.push("ALICE@example.org".into()),
            "more than one player",
        ),
        (|g| g.players[1].officers.push("Gibbon".into()), "Gibbon"),
        (|g| g.players[0].secret_hash = "hunter2".into(), "Argon2"),
        (
            |g| g.players[0].addresses = vec!["alice".into()],
            "not an e-mail address",
        ),
        (|g| g.units[1].aliases.push("2nd wis".into()), "2nd wis"),
        (|g| g.initial_state_json = "{".into(), "initial state"),
        (|g| g.settings_json = "[]".into(), "JSON object"),
        (|g| g.sides.push("union".into()), "twice"),
    ];
    for (break_it, expected) in cases {
        let mut g = brawner("bad");
        break_it(&mut g);
        let err = store.create_game(&g).unwrap_err();
        assert!(matches!(err, StoreError::InvalidGame { .. }), "{err:?}");
        assert!(err.is_user_error());
        assert!(
            err.to_string().contains(expected),
            "`{err}` lacks `{expected}`"
        );
    }
    let games: i64 = store
        .conn()
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(games, 0);
}

// ---------------------------------------------------------------- integrity

#[test]
fn foreign_keys_are_enforced_including_same_game() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let a = store.create_game(&brawner("a")).unwrap();
    let b = store.create_game(&brawner("b")).unwrap();
    let c = store.conn();
    // No such player.
    let err = c
        .execute(
            "INSERT INTO player_addresses (game_id, player_id, address) VALUES (?1, 9999, 'x@y.z')",
            [a.0],
        )
        .unwrap_err();
    assert!(err.to_string().contains("FOREIGN KEY"), "{err}");
    // A unit of game b commanded by an officer of game a.
    let officer_a: i64 = c
        .query_row(
            "SELECT id FROM officers WHERE game_id = ?1 AND name = 'Gibbon'",
            [a.0],
            |r| r.get(0),
        )
        .unwrap();
    let side_b: i64 = c
        .query_row(
            "SELECT id FROM sides WHERE game_id = ?1 AND name = 'Union'",
            [b.0],
            |r| r.get(0),
        )
        .unwrap();
    let err = c
        .execute(
            "INSERT INTO units (game_id, side_id, name, arm, weapon, commander_id)
             VALUES (?1, ?2, 'Stray', 'infantry', 'rifled-musket', ?3)",
            [b.0, side_b, officer_a],
        )
        .unwrap_err();
    assert!(err.to_string().contains("FOREIGN KEY"), "{err}");
    // A game with history cannot be deleted out from under it.
    assert!(c.execute("DELETE FROM games WHERE id = ?1", [a.0]).is_err());
}

#[test]
fn one_current_turn_per_game_and_snapshots_are_immutable() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let g = store.create_game(&brawner("a")).unwrap();
    let c = store.conn();
    let insert_turn_2 = |c: &Connection| {
        c.execute(
            "INSERT INTO turns (game_id, number, status, seed_commitment, state_json, state_hash, opened_at)
             VALUES (?1, 2, 'open', ?2, '{}', ?3, ?4)",
            rusqlite::params![
                g.0,
                seed_commitment(&turn_seed(&[9; 32], 2)),
                sha256_hex(b"{}"),
                T0 + 150
            ],
        )
    };
    assert!(insert_turn_2(c).is_err(), "turn 1 is still open");
    let err = c
        .execute(
            "UPDATE turns SET state_json = '{}' WHERE game_id = ?1",
            [g.0],
        )
        .unwrap_err();
    assert!(err.to_string().contains("immutable"), "{err}");
    // Revealing the seed is refused while the turn is still open ...
    let seed_hex = hex::encode(turn_seed(&[9; 32], 1));
    assert!(
        c.execute(
            "UPDATE turns SET seed_revealed = ?1 WHERE game_id = ?2",
            rusqlite::params![seed_hex, g.0]
        )
        .is_err()
    );
    // ... and allowed on release, after which turn 2 may open.
    c.execute(
        "UPDATE turns SET status = 'released', seed_revealed = ?1, processed_at = ?2, released_at = ?2
         WHERE game_id = ?3",
        rusqlite::params![seed_hex, T0 + 100, g.0],
    )
    .unwrap();
    insert_turn_2(c).unwrap();
    let d = store.game_detail("a").unwrap().unwrap();
    assert_eq!(d.current_turn.unwrap().number, 2);
    assert_eq!(store.list_games().unwrap()[0].current_turn, Some(2));
    // The revealed seed verifies against the published commitment.
    let (commitment, revealed): (String, String) = store
        .conn()
        .query_row(
            "SELECT seed_commitment, seed_revealed FROM turns WHERE number = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(sha256_hex(&hex::decode(revealed).unwrap()), commitment);
}

// ---------------------------------------------------------------- inbound

fn inbound(raw: &[u8], source_ref: &str) -> NewInboundMail {
    let (headers, _) = mailparse::parse_headers(raw).unwrap();
    NewInboundMail {
        raw: raw.to_vec(),
        message_id: headers.get_first_value("Message-ID"),
        source: MailSource::Maildir,
        source_ref: source_ref.into(),
        received_at: T0,
    }
}

fn inbound_count(store: &Store) -> i64 {
    store
        .conn()
        .query_row("SELECT count(*) FROM inbound_mail", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn inbound_mail_is_deduplicated_by_message_id() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let first = inbound(MAIL_WITH_ID, "cur/1");
    assert_eq!(first.message_id.as_deref(), Some("<id1@host.com>"));
    let InboundInsert::New(id) = store.insert_inbound_mail(&first).unwrap() else {
        panic!("first copy must be new");
    };
    // The same Message-ID on different bytes (e.g. a relay added a
    // Received: header), written without brackets this time.
    let mut relayed = b"Received: from relay.example by mx.example\n".to_vec();
    relayed.extend_from_slice(MAIL_WITH_ID);
    let mut second = inbound(&relayed, "cur/2");
    second.message_id = Some("id1@host.com".into());
    assert_eq!(
        store.insert_inbound_mail(&second).unwrap(),
        InboundInsert::Duplicate(id)
    );
    assert_eq!(inbound_count(&store), 1);

    let stored = store.new_inbound_mail(10).unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].raw, MAIL_WITH_ID);
    assert_eq!(stored[0].message_id.as_deref(), Some("id1@host.com"));
    assert_eq!(stored[0].sha256, sha256_hex(MAIL_WITH_ID));
    assert_eq!(stored[0].source, MailSource::Maildir);
    assert_eq!(stored[0].status, InboundStatus::New);
}

#[test]
fn inbound_mail_is_deduplicated_by_sha256() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let m = inbound(MAIL_WITHOUT_ID, "cur/a");
    assert_eq!(m.message_id, None);
    let InboundInsert::New(id) = store.insert_inbound_mail(&m).unwrap() else {
        panic!("first copy must be new");
    };
    let mut again = inbound(MAIL_WITHOUT_ID, "imap/INBOX/7/42");
    again.source = MailSource::Imap;
    assert_eq!(
        store.insert_inbound_mail(&again).unwrap(),
        InboundInsert::Duplicate(id)
    );
    // A different message is new.
    assert!(matches!(
        store
            .insert_inbound_mail(&inbound(MAIL_WITH_ID, "cur/b"))
            .unwrap(),
        InboundInsert::New(_)
    ));
    assert_eq!(inbound_count(&store), 2);
}

#[test]
fn inbound_status_changes_but_the_message_never_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let game = store.create_game(&brawner("a")).unwrap();
    let InboundInsert::New(id) = store
        .insert_inbound_mail(&inbound(MAIL_WITH_ID, "cur/1"))
        .unwrap()
    else {
        panic!()
    };
    store
        .in_transaction(|tx| {
            Store::set_inbound_status(
                tx,
                id,
                InboundStatus::Refused,
                Some("no game named"),
                Some(game),
                None,
            )
        })
        .unwrap();
    assert!(store.new_inbound_mail(10).unwrap().is_empty());
    let c = store.conn();
    assert!(
        c.execute("UPDATE inbound_mail SET raw = x'00' WHERE id = ?1", [id])
            .is_err()
    );
    assert!(
        c.execute("DELETE FROM inbound_mail WHERE id = ?1", [id])
            .is_err()
    );
    let err =
        Store::set_inbound_status(c, 999, InboundStatus::Accepted, None, None, None).unwrap_err();
    assert!(matches!(err, StoreError::InboundMissing { id: 999 }));
}

#[test]
fn imap_state_round_trips_and_updates() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    assert_eq!(store.imap_state("adjutant", "INBOX").unwrap(), None);
    let s1 = ImapState {
        uidvalidity: 7,
        last_uid: 42,
    };
    store
        .in_transaction(|tx| Store::set_imap_state(tx, "adjutant", "INBOX", s1, T0))
        .unwrap();
    assert_eq!(store.imap_state("adjutant", "INBOX").unwrap(), Some(s1));
    let s2 = ImapState {
        uidvalidity: 8,
        last_uid: 3,
    };
    Store::set_imap_state(store.conn(), "adjutant", "INBOX", s2, T0 + 1).unwrap();
    assert_eq!(store.imap_state("adjutant", "INBOX").unwrap(), Some(s2));
    assert_eq!(store.imap_state("adjutant", "Archive").unwrap(), None);
}

// ---------------------------------------------------------------- outbound

fn outbound(n: u32, created_at: i64) -> NewOutboundMail {
    NewOutboundMail {
        game_id: None,
        kind: "receipt".into(),
        message_id: format!("<r{n}@adjutant.example>"),
        recipients: vec!["alice@example.org".into()],
        raw: format!("Message-ID: <r{n}@adjutant.example>\r\nSubject: receipt {n}\r\n\r\nok\r\n")
            .into_bytes(),
        in_reply_to: Some("<id1@host.com>".into()),
        created_at,
        reply_tokens: Vec::new(),
    }
}

fn due_ids(store: &Store, now: i64) -> Vec<String> {
    store
        .due_outbound(now, 100)
        .unwrap()
        .into_iter()
        .map(|m| m.message_id)
        .collect()
}

#[test]
fn outbound_due_in_order_and_only_when_due() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    store
        .in_transaction(|tx| -> Result<(), StoreError> {
            Store::queue_outbound(tx, &outbound(3, T0 + 30))?;
            Store::queue_outbound(tx, &outbound(1, T0 + 10))?;
            Store::queue_outbound(tx, &outbound(2, T0 + 10))?;
            Ok(())
        })
        .unwrap();
    assert!(due_ids(&store, T0).is_empty());
    assert_eq!(
        due_ids(&store, T0 + 10),
        ["r1@adjutant.example", "r2@adjutant.example"]
    );
    assert_eq!(
        due_ids(&store, T0 + 60),
        [
            "r1@adjutant.example",
            "r2@adjutant.example",
            "r3@adjutant.example"
        ]
    );
    let limited = store.due_outbound(T0 + 60, 1).unwrap();
    assert_eq!(limited.len(), 1);
    let m = &limited[0];
    assert_eq!(m.recipients, ["alice@example.org"]);
    assert_eq!(m.in_reply_to.as_deref(), Some("id1@host.com"));
    assert_eq!(m.status, OutboundStatus::Queued);
    assert_eq!(m.attempts, 0);
    assert!(m.raw.starts_with(b"Message-ID: <r1@"));
}

#[test]
fn outbound_rolled_back_with_its_transaction_is_never_sent() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let result: Result<(), StoreError> = store.in_transaction(|tx| {
        Store::queue_outbound(tx, &outbound(1, T0))?;
        Err(StoreError::InvalidOutbound {
            problem: "the work failed".into(),
        })
    });
    assert!(result.is_err());
    assert!(due_ids(&store, T0 + 1_000_000).is_empty());
}

#[test]
fn outbound_retry_scheduling_sent_and_failed() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let (a, b) = store
        .in_transaction(|tx| -> Result<_, StoreError> {
            Ok((
                Store::queue_outbound(tx, &outbound(1, T0))?,
                Store::queue_outbound(tx, &outbound(2, T0))?,
            ))
        })
        .unwrap();

    // a fails transiently: not due until its retry time, then due again.
    let retry = outbound_retry_at(T0, 1);
    assert_eq!(
        store
            .mark_outbound_failed(a, true, "421 try later", retry)
            .unwrap(),
        OutboundStatus::Queued
    );
    assert_eq!(due_ids(&store, retry - 1), ["r2@adjutant.example"]);
    assert_eq!(
        due_ids(&store, retry),
        ["r2@adjutant.example", "r1@adjutant.example"]
    );
    let again = &store.due_outbound(retry, 10).unwrap()[1];
    assert_eq!(again.attempts, 1);
    assert_eq!(again.last_error.as_deref(), Some("421 try later"));

    // b is sent: never due again, and cannot be marked twice.
    store.mark_outbound_sent(b, T0 + 5).unwrap();
    assert_eq!(due_ids(&store, T0 + 1_000_000), ["r1@adjutant.example"]);
    let err = store.mark_outbound_sent(b, T0 + 6).unwrap_err();
    assert!(
        matches!(&err, StoreError::OutboundNotQueued { status, .. } if status == "sent"),
        "{err:?}"
    );
    assert!(matches!(
        store.mark_outbound_sent(999, T0).unwrap_err(),
        StoreError::OutboundMissing { id: 999 }
    ));

    // a keeps failing transiently until the attempt limit, then is failed.
    let mut now = retry;
    for attempt in 2..MAX_OUTBOUND_ATTEMPTS {
        now = outbound_retry_at(now, attempt);
        assert_eq!(
            store.mark_outbound_failed(a, true, "421", now).unwrap(),
            OutboundStatus::Queued
        );
    }
    assert_eq!(
        store
            .mark_outbound_failed(a, true, "421", now + 60)
            .unwrap(),
        OutboundStatus::Failed
    );
    assert!(due_ids(&store, i64::MAX).is_empty());
    let (attempts, last_error): (u32, String) = store
        .conn()
        .query_row(
            "SELECT attempts, last_error FROM outbound_mail WHERE id = ?1",
            [a],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(attempts, MAX_OUTBOUND_ATTEMPTS);
    assert!(
        last_error.starts_with("gave up after 16 attempts"),
        "{last_error}"
    );
}

#[test]
fn outbound_permanent_failure_is_final_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let id = store
        .in_transaction(|tx| Store::queue_outbound(tx, &outbound(1, T0)))
        .unwrap();
    assert_eq!(
        store
            .mark_outbound_failed(id, false, "550 no such user", T0 + 60)
            .unwrap(),
        OutboundStatus::Failed
    );
    assert!(due_ids(&store, i64::MAX).is_empty());
    assert!(matches!(
        store
            .mark_outbound_failed(id, true, "again", T0)
            .unwrap_err(),
        StoreError::OutboundNotQueued { .. }
    ));
}

#[test]
fn two_stores_on_one_file_see_each_others_commits() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let mut writer = Store::open(&path).unwrap();
    let reader = Store::open_existing(&path).unwrap();
    writer.create_game(&brawner("shared")).unwrap();
    assert_eq!(reader.list_games().unwrap().len(), 1);
}

#[test]
fn orders_events_dice_and_audit_keep_their_history() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let g = store.create_game(&brawner("a")).unwrap();
    let InboundInsert::New(mail) = store
        .insert_inbound_mail(&inbound(MAIL_WITH_ID, "cur/1"))
        .unwrap()
    else {
        panic!()
    };
    let c = store.conn();
    let id = |sql: &str| -> i64 { c.query_row(sql, [], |r| r.get(0)).unwrap() };
    let turn = id("SELECT id FROM turns WHERE number = 1");
    let alice = id("SELECT id FROM players WHERE name = 'Alice'");
    let gibbon = id("SELECT id FROM officers WHERE name = 'Gibbon'");
    let wis2 = id("SELECT id FROM units WHERE name = '2nd Wisconsin'");
    c.execute(
        "INSERT INTO submissions (public_id, game_id, player_id, inbound_mail_id, turn_id,
                                  received_at, ready, status)
         VALUES ('S-1', ?1, ?2, ?3, ?4, ?5, 1, 'accepted')",
        rusqlite::params![g.0, alice, mail, turn, T0],
    )
    .unwrap();
    let sub = c.last_insert_rowid();
    let order = |text: &str, replaces: Option<i64>| {
        c.execute(
            "INSERT INTO orders (game_id, submission_id, unit_id, issuing_officer_id,
                                 original_text, parsed_json, issued_turn, effective_turn, replaces_id)
             VALUES (?1, ?2, ?3, ?4, ?5, '{\"advance\":true}', 1, 2, ?6)",
            rusqlite::params![g.0, sub, wis2, gibbon, text, replaces],
        )
        .map(|_| c.last_insert_rowid())
    };
    let first = order("2nd Wisconsin: advance to the Brawner farm in line.", None).unwrap();
    let second = order("2nd Wisconsin: hold and lie down.", Some(first)).unwrap();
    // Superseding changes only status and replaced_by_id: allowed.
    c.execute(
        "UPDATE orders SET status = 'superseded', replaced_by_id = ?1 WHERE id = ?2",
        [second, first],
    )
    .unwrap();
    // Rewriting an order is refused.
    let err = c
        .execute(
            "UPDATE orders SET original_text = 'retreat' WHERE id = ?1",
            [first],
        )
        .unwrap_err();
    assert!(err.to_string().contains("never rewritten"), "{err}");
    // An order is for a unit or an officer, not both and not neither.
    assert!(
        c.execute(
            "INSERT INTO orders (game_id, submission_id, unit_id, officer_id, original_text,
                                 parsed_json, issued_turn, effective_turn)
             VALUES (?1, ?2, ?3, ?4, 'x', '{}', 1, 1)",
            [g.0, sub, wis2, gibbon],
        )
        .is_err()
    );
    // A mail makes at most one submission.
    assert!(
        c.execute(
            "INSERT INTO submissions (public_id, game_id, player_id, inbound_mail_id, turn_id,
                                      received_at, status)
             VALUES ('S-2', ?1, ?2, ?3, ?4, ?5, 'accepted')",
            rusqlite::params![g.0, alice, mail, turn, T0],
        )
        .is_err()
    );

    c.execute(
        "INSERT INTO events (game_id, turn_id, seq, kind, data_json) VALUES (?1, ?2, 0, 'moved', '{}')",
        [g.0, turn],
    )
    .unwrap();
    assert!(c.execute("UPDATE events SET kind = 'routed'", []).is_err());
    assert!(c.execute("DELETE FROM events", []).is_err());

    let roll = |seq: i64, draw: Option<i64>, value: i64, source: &str| {
        c.execute(
            "INSERT INTO dice_rolls (game_id, turn_id, seq, draw_index, sides, value, purpose,
                                     subject, source)
             VALUES (?1, ?2, ?3, ?4, 6, ?5, 'fire (APSoF V.B)', '2nd Wisconsin', ?6)",
            rusqlite::params![g.0, turn, seq, draw, value, source],
        )
    };
    roll(0, Some(0), 4, "stream").unwrap();
    roll(1, None, 6, "umpire").unwrap();
    assert!(roll(2, Some(1), 7, "stream").is_err(), "a d6 cannot show 7");
    assert!(
        roll(3, Some(2), 3, "umpire").is_err(),
        "umpire dice use no draws"
    );
    assert!(
        roll(4, Some(0), 3, "stream").is_err(),
        "draw 0 was already used"
    );
    assert!(c.execute("UPDATE dice_rolls SET value = 6", []).is_err());

    c.execute(
        "INSERT INTO audit_log (game_id, actor, at, action, reason, detail_json)
         VALUES (?1, 'umpire', ?2, 'hold-turn', 'checking a disputed charge', '{\"turn\":1}')",
        [g.0, T0],
    )
    .unwrap();
    assert!(c.execute("UPDATE audit_log SET reason = NULL", []).is_err());
    assert!(c.execute("DELETE FROM audit_log", []).is_err());
}

#[test]
fn queued_outbound_content_is_never_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let id = store
        .in_transaction(|tx| Store::queue_outbound(tx, &outbound(1, T0)))
        .unwrap();
    let err = store
        .conn()
        .execute("UPDATE outbound_mail SET raw = x'00' WHERE id = ?1", [id])
        .unwrap_err();
    assert!(err.to_string().contains("never rewritten"), "{err}");
    // Queueing the same Message-ID twice is a bug the schema catches.
    let dup = store.in_transaction(|tx| Store::queue_outbound(tx, &outbound(1, T0)));
    assert!(dup.is_err());
    let mut nobody = outbound(2, T0);
    nobody.recipients.clear();
    let err = store
        .in_transaction(|tx| Store::queue_outbound(tx, &nobody))
        .unwrap_err();
    assert!(matches!(err, StoreError::InvalidOutbound { .. }), "{err:?}");
}

#[test]
fn concurrent_first_opens_migrate_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || Store::open(&path).map(|s| s.schema_version().unwrap()))
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().unwrap(), SCHEMA_VERSION);
    }
    let tables = schema_of(&path)
        .into_iter()
        .filter(|(kind, _, _)| kind == "table")
        .count();
    // 0001–0002: 17 tables; 0004 (umpire turn plane): turn_changes, corrections, held_mail,
    // dice_requests, umpire_dice, interpretations; 0005: outbound_secrets;
    // 0006: enemy_designations; 0008: reply_tokens, due_checks, last_known;
    // 0010: map_bases; 0012: engine_orders; 0013: engine_corrections,
    // engine_orders_set_aside.
    assert_eq!(tables, 32);
}

#[test]
fn turn_processor_and_intake_lookups() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let a = store.create_game(&brawner("a")).unwrap();
    let mut other = brawner("b");
    other.seed = [1; 32];
    let b = store.create_game(&other).unwrap();

    assert_eq!(store.game_seed(a).unwrap(), Some([9; 32]));
    assert_eq!(store.game_seed(b).unwrap(), Some([1; 32]));
    assert_eq!(store.game_seed(GameId(999)).unwrap(), None);

    let turn = store.current_turn(a).unwrap().unwrap();
    assert_eq!(turn.number, 1);
    assert_eq!(turn.status, TurnStatus::Open);
    assert_eq!(turn.state_json, brawner("a").initial_state_json);
    assert_eq!(turn.state_hash, sha256_hex(turn.state_json.as_bytes()));
    assert_eq!(
        turn.seed_commitment,
        seed_commitment(&turn_seed(&[9; 32], 1))
    );
    assert_eq!(store.current_turn(GameId(999)).unwrap(), None);

    // Alice plays in both games under the same address.
    let found = store.players_by_address(" <ALICE@example.org> ").unwrap();
    let games: Vec<_> = found
        .iter()
        .map(|p| {
            (
                p.game_name.as_str(),
                p.player_name.as_str(),
                p.side.as_str(),
            )
        })
        .collect();
    assert_eq!(games, [("a", "Alice", "Union"), ("b", "Alice", "Union")]);
    assert_eq!(found[0].game, a);
    assert!(found[0].secret_hash.starts_with("$argon2id$"));
    assert!(!serde_json::to_string(&found[0]).unwrap().contains("argon2"));
    assert!(
        store
            .players_by_address("stranger@example.com")
            .unwrap()
            .is_empty()
    );

    let entry = NewAudit {
        game: Some(a),
        actor: "umpire".into(),
        at: T0 + 10,
        action: "hold-turn".into(),
        reason: Some("disputed charge".into()),
        detail_json: r#"{"turn":1}"#.into(),
    };
    let id = store
        .in_transaction(|tx| Store::append_audit(tx, &entry))
        .unwrap();
    let (actor, reason): (String, String) = store
        .conn()
        .query_row(
            "SELECT actor, reason FROM audit_log WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (actor.as_str(), reason.as_str()),
        ("umpire", "disputed charge")
    );
}

/// Issue #18, retention: once a report mail is sent, its raw keeps only its
/// headers (the report itself stays in `reports`, from which REPORT,
/// HISTORY and the archive are made); other mail is kept whole, and
/// nothing queued can be rewritten.
#[test]
fn a_sent_report_mail_keeps_its_headers_and_other_mail_stays_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&db_in(&dir)).unwrap();
    let big = "x".repeat(200_000);
    let mut report = outbound(1, T0);
    report.kind = "report".into();
    report.raw =
        format!("Message-ID: <r1@adjutant.example>\r\nSubject: [g] turn 2\r\n\r\n{big}\r\n")
            .into_bytes();
    let receipt = outbound(2, T0);
    let receipt_raw = receipt.raw.clone();
    let r = store
        .in_transaction(|tx| Store::queue_outbound(tx, &report))
        .unwrap();
    let q = store
        .in_transaction(|tx| Store::queue_outbound(tx, &receipt))
        .unwrap();
    let raw_of = |store: &Store, id: i64| -> Vec<u8> {
        store
            .conn()
            .query_row("SELECT raw FROM outbound_mail WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .unwrap()
    };
    // Queued: whole, and not to be rewritten even by shrinking.
    assert_eq!(raw_of(&store, r), report.raw);
    assert!(
        store
            .conn()
            .execute("UPDATE outbound_mail SET raw = x'00' WHERE id = ?1", [r])
            .is_err()
    );
    store.mark_outbound_sent(r, T0 + 1).unwrap();
    store.mark_outbound_sent(q, T0 + 1).unwrap();
    let kept = String::from_utf8(raw_of(&store, r)).unwrap();
    assert!(kept.starts_with("Message-ID: <r1@adjutant.example>\r\nSubject: [g] turn 2\r\n\r\n"));
    assert!(kept.contains("body not kept after delivery"), "{kept}");
    assert!(kept.len() < 200, "{}", kept.len());
    assert_eq!(raw_of(&store, q), receipt_raw, "a receipt is kept whole");
    // Sent or not, a message is never rewritten otherwise.
    assert!(
        store
            .conn()
            .execute("UPDATE outbound_mail SET raw = x'00' WHERE id = ?1", [q])
            .is_err()
    );
}
