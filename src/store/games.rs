//! Games: creating one from a scenario (with its sides, players, officers,
//! units and turn 1) and reading it back for `adjutant game list/show`.

use super::seed::{seed_commitment, sha256_hex, turn_seed};
use super::validate::{key, validate};
use super::{Store, StoreError};
use crate::rules::iron_brigade::kinds::{Arm, CommandClass, OfficerLevel, OfficerRating, Weapon};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;

/// Row id of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct GameId(pub i64);

/// Everything needed to create a game, filled by the caller from a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGame {
    pub name: String,
    pub ruleset: String,
    pub scenario_name: String,
    /// The full scenario file, kept so the game can be replayed from the store alone.
    pub scenario_toml: String,
    /// Secret game seed; per-turn seeds derive from it ([`super::turn_seed`]).
    pub seed: [u8; 32],
    pub created_at: i64,
    pub umpire_address: Option<String>,
    /// Game settings as a JSON object (`"{}"` for none).
    pub settings_json: String,
    pub sides: Vec<String>,
    pub players: Vec<NewPlayer>,
    pub officers: Vec<NewOfficer>,
    pub units: Vec<NewUnit>,
    /// The dynamic battle state at the start of turn 1.
    pub initial_state_json: String,
    pub first_deadline_at: Option<i64>,
    /// Grace after each deadline, in seconds (stored on turn 1).
    pub grace_secs: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPlayer {
    pub name: String,
    pub side: String,
    pub addresses: Vec<String>,
    /// Argon2 PHC string of the player's secret.
    pub secret_hash: String,
    /// IANA zone name used to show deadlines, e.g. `America/New_York`.
    pub time_zone: String,
    /// Names of the officers this player commands.
    pub officers: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOfficer {
    /// The officer's `OfficerId` in the battle state.
    pub rules_id: u32,
    pub name: String,
    pub side: String,
    pub level: OfficerLevel,
    pub rating: OfficerRating,
    pub command_class: CommandClass,
    pub superior: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUnit {
    /// The unit's `UnitId` in the battle state.
    pub rules_id: u32,
    pub name: String,
    /// Other names players may use for it ("2nd Wis").
    pub aliases: Vec<String>,
    pub side: String,
    pub arm: Arm,
    pub weapon: Weapon,
    /// Name of the officer commanding it.
    pub commander: String,
}

macro_rules! text_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
        pub enum $name { $(#[serde(rename = $text)] $variant),+ }

        impl $name {
            /// The text stored in the database.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

        }

        /// Read straight from a column; text outside the set (a hand-edited
        /// file) is a conversion error naming the value.
        impl rusqlite::types::FromSql for $name {
            fn column_result(
                value: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                match value.as_str()? {
                    $($text => Ok($name::$variant),)+
                    other => Err(rusqlite::types::FromSqlError::Other(
                        format!("unknown {} `{}` in the database", stringify!($name), other).into(),
                    )),
                }
            }
        }

        impl rusqlite::types::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(self.as_str().into())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }
    };
}
pub(crate) use text_enum;

/// [`Store::create_game`] inside the caller's transaction, so that what
/// must be written with the game (its players' briefings, queued as mail)
/// commits with it or not at all.
pub fn create_game_in(tx: &Transaction<'_>, g: &NewGame) -> Result<GameId, StoreError> {
    validate(g)?;
    if game_id_by_name(tx, &g.name)?.is_some() {
        return Err(StoreError::GameExists {
            name: g.name.clone(),
        });
    }
    insert_game(tx, g)
}

text_enum!(
    /// Lifecycle of a whole game.
    GameStatus { Active => "active", Paused => "paused", Finished => "finished", Abandoned => "abandoned" }
);
text_enum!(
    /// Lifecycle of a turn: open → processing → (held for the umpire) → released.
    TurnStatus { Open => "open", Processing => "processing", Held => "held", Released => "released" }
);
text_enum!(
    /// Whether a player still takes part.
    PlayerStatus { Active => "active", Absent => "absent", Dropped => "dropped" }
);

/// One line of `adjutant game list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameSummary {
    pub name: String,
    pub scenario_name: String,
    pub status: GameStatus,
    /// Number of the current (latest) turn.
    pub current_turn: Option<u32>,
    /// Player names, in scenario order.
    pub players: Vec<String>,
    pub created_at: i64,
}

/// `adjutant game show`: everything but the secrets (seed, secret hashes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameDetail {
    pub id: GameId,
    pub name: String,
    pub ruleset: String,
    pub scenario_name: String,
    pub status: GameStatus,
    pub created_at: i64,
    pub umpire_address: Option<String>,
    pub sides: Vec<String>,
    pub players: Vec<PlayerDetail>,
    pub officers: Vec<OfficerDetail>,
    pub units_per_side: Vec<SideUnits>,
    pub current_turn: Option<TurnDetail>,
    /// Free-text paragraphs still waiting for the umpire's INTERPRET or
    /// REJECT (umpired games).
    pub open_queries: Vec<OpenQuery>,
}

/// A player's paragraph the parser could not read, sent to the umpire and
/// not yet answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenQuery {
    /// "F<game>-<n>", as the umpire's mail gave it.
    pub id: String,
    pub player: String,
    /// The turn the player's mail counted for.
    pub turn: u32,
    /// The paragraph's first line.
    pub first_line: String,
}

/// The game's open queries, oldest first (index `interpretations_pending`).
pub fn open_queries(conn: &Connection, game: GameId) -> Result<Vec<OpenQuery>, rusqlite::Error> {
    conn.prepare_cached(
        "SELECT i.public_id, p.name, i.turn, i.paragraph
         FROM interpretations i JOIN players p ON p.id = i.player_id
         WHERE i.game_id = ?1 AND i.status = 'pending' ORDER BY i.id",
    )?
    .query_map([game.0], |r| {
        let paragraph: String = r.get(3)?;
        Ok(OpenQuery {
            id: r.get(0)?,
            player: r.get(1)?,
            turn: r.get(2)?,
            first_line: paragraph
                .lines()
                .next()
                .unwrap_or_default()
                .trim()
                .to_string(),
        })
    })?
    .collect()
}

/// One line naming open queries for a warning: "F1-3 (Pope, turn 2: \"...\")".
pub fn open_queries_words(q: &[OpenQuery]) -> String {
    q.iter()
        .map(|q| {
            format!(
                "{} ({}, turn {}: \"{}\")",
                q.id, q.player, q.turn, q.first_line
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayerDetail {
    pub name: String,
    pub side: String,
    pub status: PlayerStatus,
    pub time_zone: String,
    pub address_failing: bool,
    pub addresses: Vec<AddressDetail>,
    /// Officers this player commands.
    pub officers: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AddressDetail {
    pub address: String,
    pub failing: bool,
    pub last_bounce_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OfficerDetail {
    pub name: String,
    pub side: String,
    pub level: OfficerLevel,
    pub rating: OfficerRating,
    pub command_class: CommandClass,
    pub superior: Option<String>,
    pub player: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideUnits {
    pub side: String,
    pub units: u32,
}

/// The current turn: the one not yet released, else the latest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnDetail {
    pub number: u32,
    pub status: TurnStatus,
    pub deadline_at: Option<i64>,
    pub grace_secs: i64,
    pub seed_commitment: String,
    pub opened_at: i64,
}

/// A game's current turn with its snapshot, for the turn processor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentTurn {
    /// Row id, for `turn_id` columns.
    pub id: i64,
    pub number: u32,
    pub status: TurnStatus,
    pub deadline_at: Option<i64>,
    pub grace_secs: i64,
    pub seed_commitment: String,
    /// The dynamic battle state at the start of the turn.
    pub state_json: String,
    pub state_hash: String,
    pub opened_at: i64,
}

/// A player known by a sender address, for intake's sender check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayerAtAddress {
    pub game: GameId,
    pub game_name: String,
    pub player_id: i64,
    pub player_name: String,
    pub side: String,
    /// Argon2 PHC string to verify the secret the mail carries against.
    #[serde(skip)]
    pub secret_hash: String,
}

impl Store {
    /// Creates a game, its sides, players, addresses, officers, units and
    /// turn 1 (open, with the initial snapshot and its seed commitment) in
    /// one transaction. A name already in use gives [`StoreError::GameExists`];
    /// an inconsistent scenario gives [`StoreError::InvalidGame`] naming the problem.
    pub fn create_game(&mut self, g: &NewGame) -> Result<GameId, StoreError> {
        let tx = self.transaction()?;
        let id = create_game_in(&tx, g)?;
        tx.commit()?;
        Ok(id)
    }

    /// Every game, oldest first.
    pub fn list_games(&self) -> Result<Vec<GameSummary>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, name, scenario_name, status, created_at,
                    (SELECT max(number) FROM turns WHERE turns.game_id = games.id
                     AND turns.superseded_at IS NULL)
             FROM games ORDER BY created_at, id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, GameStatus>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, Option<u32>>(5)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, name, scenario_name, status, created_at, current_turn) = row?;
            let mut players = self
                .conn
                .prepare_cached("SELECT name FROM players WHERE game_id = ?1 ORDER BY id")?;
            let players = players
                .query_map([id], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            out.push(GameSummary {
                name,
                scenario_name,
                status,
                current_turn,
                players,
                created_at,
            });
        }
        Ok(out)
    }

    /// The row id of the game called `name` (ASCII case-insensitive).
    pub fn game_id(&self, name: &str) -> Result<Option<GameId>, StoreError> {
        game_id_by_name(&self.conn, name)
    }

    /// Ends game `id`: status `finished`, so no turn is processed any more
    /// and the archive's "fog lifted" pages appear (`docs/archive.md`), with
    /// an audit entry giving the reason, in one transaction. Returns the
    /// status it had, or `None` if it had already ended (nothing written).
    pub fn end_game(
        &mut self,
        id: GameId,
        reason: &str,
        actor: &str,
        now: i64,
    ) -> Result<Option<String>, StoreError> {
        let tx = self.conn.transaction()?;
        let status: String =
            tx.query_row("SELECT status FROM games WHERE id = ?1", [id.0], |r| {
                r.get(0)
            })?;
        if status == "finished" || status == "abandoned" {
            return Ok(None);
        }
        tx.execute("UPDATE games SET status = 'finished' WHERE id = ?1", [id.0])?;
        Store::append_audit(
            &tx,
            &super::NewAudit {
                game: Some(id),
                actor: actor.to_string(),
                at: now,
                action: "game-ended".into(),
                reason: Some(reason.to_string()),
                detail_json: serde_json::json!({ "was": status }).to_string(),
            },
        )?;
        tx.commit()?;
        Ok(Some(status))
    }

    /// Full description of one game, or `None` if no game has that name.
    pub fn game_detail(&self, name: &str) -> Result<Option<GameDetail>, StoreError> {
        let Some(id) = game_id_by_name(&self.conn, name)? else {
            return Ok(None);
        };
        let c = &self.conn;
        let (name, ruleset, scenario_name, status, created_at, umpire_address) = c.query_row(
            "SELECT name, ruleset, scenario_name, status, created_at, umpire_address
             FROM games WHERE id = ?1",
            [id.0],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, GameStatus>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, Option<String>>(5)?,
                ))
            },
        )?;
        let sides = c
            .prepare("SELECT name FROM sides WHERE game_id = ?1 ORDER BY id")?
            .query_map([id.0], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(GameDetail {
            id,
            name,
            ruleset,
            scenario_name,
            status,
            created_at,
            umpire_address,
            sides,
            players: players_of(c, id)?,
            officers: officers_of(c, id)?,
            units_per_side: units_per_side(c, id)?,
            current_turn: self.current_turn(id)?.map(|t| TurnDetail {
                number: t.number,
                status: t.status,
                deadline_at: t.deadline_at,
                grace_secs: t.grace_secs,
                seed_commitment: t.seed_commitment,
                opened_at: t.opened_at,
            }),
            open_queries: open_queries(c, id)?,
        }))
    }
}

impl Store {
    /// The secret game seed, for deriving turn seeds ([`super::turn_seed`]).
    /// Never print it.
    pub fn game_seed(&self, game: GameId) -> Result<Option<[u8; 32]>, StoreError> {
        let blob: Option<Vec<u8>> = self
            .conn
            .query_row("SELECT seed FROM games WHERE id = ?1", [game.0], |r| {
                r.get(0)
            })
            .optional()?;
        blob.map(|b| {
            <[u8; 32]>::try_from(b.as_slice()).map_err(|_| StoreError::BadValue {
                what: format!("game {} has a seed of {} bytes, not 32", game.0, b.len()),
            })
        })
        .transpose()
    }

    /// The game's `settings_json` (a JSON object); `None` for an unknown game.
    pub fn game_settings_json(&self, game: GameId) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT settings_json FROM games WHERE id = ?1",
                [game.0],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Replaces a game's `settings_json` and, when the game has an open
    /// turn, that turn's deadline and grace, with an audit entry, in one
    /// transaction. Returns the open turn's number, if there is one.
    pub fn update_deadlines(
        &mut self,
        game: GameId,
        settings_json: &str,
        open_turn_deadline: impl FnOnce(i64) -> Option<i64>,
        grace_secs: i64,
        audit: &super::NewAudit,
    ) -> Result<Option<(u32, Option<i64>)>, StoreError> {
        let tx = self.transaction()?;
        tx.execute(
            "UPDATE games SET settings_json = ?2 WHERE id = ?1",
            params![game.0, settings_json],
        )?;
        let open: Option<(i64, u32, i64)> = tx
            .query_row(
                "SELECT id, number, opened_at FROM turns WHERE game_id = ?1 AND status = 'open'
                 AND superseded_at IS NULL",
                [game.0],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let result = match open {
            Some((id, number, opened_at)) => {
                let deadline = open_turn_deadline(opened_at);
                tx.execute(
                    "UPDATE turns SET deadline_at = ?2, grace_secs = ?3 WHERE id = ?1",
                    params![id, deadline, grace_secs],
                )?;
                Some((number, deadline))
            }
            None => None,
        };
        Store::append_audit(&tx, audit)?;
        tx.commit()?;
        Ok(result)
    }

    /// The game's current turn (the one not yet released, else the latest)
    /// with its state snapshot; `None` for an unknown game.
    pub fn current_turn(&self, game: GameId) -> Result<Option<CurrentTurn>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, number, status, deadline_at, grace_secs, seed_commitment,
                        state_json, state_hash, opened_at
                 FROM turns WHERE game_id = ?1 AND superseded_at IS NULL
                 ORDER BY (status = 'released'), number DESC LIMIT 1",
                [game.0],
                |r| {
                    Ok(CurrentTurn {
                        id: r.get(0)?,
                        number: r.get(1)?,
                        status: r.get(2)?,
                        deadline_at: r.get(3)?,
                        grace_secs: r.get(4)?,
                        seed_commitment: r.get(5)?,
                        state_json: r.get(6)?,
                        state_hash: r.get(7)?,
                        opened_at: r.get(8)?,
                    })
                },
            )
            .optional()?)
    }

    /// Every player, in any game, who owns `address` (ASCII case-insensitive;
    /// surrounding `<>` and whitespace ignored). One address may play in
    /// several games, so intake must still pick the game from the mail.
    pub fn players_by_address(&self, address: &str) -> Result<Vec<PlayerAtAddress>, StoreError> {
        let address = address.trim();
        let address = address.strip_prefix('<').unwrap_or(address);
        let address = address.strip_suffix('>').unwrap_or(address).trim();
        let mut stmt = self.conn.prepare(
            "SELECT g.id, g.name, p.id, p.name, s.name, p.secret_hash
             FROM player_addresses a
             JOIN players p ON p.id = a.player_id
             JOIN games g ON g.id = a.game_id
             JOIN sides s ON s.id = p.side_id
             WHERE a.address = ?1 ORDER BY g.id",
        )?;
        let rows = stmt.query_map([address], |r| {
            Ok(PlayerAtAddress {
                game: GameId(r.get(0)?),
                game_name: r.get(1)?,
                player_id: r.get(2)?,
                player_name: r.get(3)?,
                side: r.get(4)?,
                secret_hash: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

/// The ruleset a game is played under (`games.ruleset`), kept for life.
pub fn game_ruleset(c: &Connection, game: GameId) -> Result<String, rusqlite::Error> {
    c.query_row("SELECT ruleset FROM games WHERE id = ?1", [game.0], |r| {
        r.get(0)
    })
}

fn game_id_by_name(c: &Connection, name: &str) -> Result<Option<GameId>, StoreError> {
    Ok(
        c.query_row("SELECT id FROM games WHERE name = ?1", [name.trim()], |r| {
            r.get(0)
        })
        .optional()?
        .map(GameId),
    )
}

/// Inserts a validated game. Officers go in without superiors first, then
/// the superiors are linked, so the scenario may list them in any order.
fn insert_game(tx: &Transaction<'_>, g: &NewGame) -> Result<GameId, StoreError> {
    tx.execute(
        "INSERT INTO games (name, ruleset, scenario_name, scenario_toml, status, seed,
                            created_at, umpire_address, settings_json)
         VALUES (?1, ?2, ?3, ?4, 'active', ?5, ?6, ?7, ?8)",
        params![
            g.name.trim(),
            g.ruleset,
            g.scenario_name,
            g.scenario_toml,
            &g.seed[..],
            g.created_at,
            g.umpire_address,
            g.settings_json
        ],
    )?;
    let game = tx.last_insert_rowid();

    let mut side_ids = BTreeMap::new();
    for s in &g.sides {
        tx.execute(
            "INSERT INTO sides (game_id, name) VALUES (?1, ?2)",
            params![game, s.trim()],
        )?;
        side_ids.insert(key(s), tx.last_insert_rowid());
    }
    let side_id = |side: &str| {
        side_ids
            .get(&key(side))
            .copied()
            .ok_or_else(|| StoreError::InvalidGame {
                game: g.name.clone(),
                problem: format!("side `{side}` is not listed"),
            })
    };

    let mut player_of_officer = HashMap::new();
    for p in &g.players {
        tx.execute(
            "INSERT INTO players (game_id, side_id, name, secret_hash, time_zone)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                game,
                side_id(&p.side)?,
                p.name.trim(),
                p.secret_hash,
                p.time_zone
            ],
        )?;
        let player = tx.last_insert_rowid();
        for a in &p.addresses {
            tx.execute(
                "INSERT INTO player_addresses (game_id, player_id, address) VALUES (?1, ?2, ?3)",
                params![game, player, a.trim()],
            )?;
        }
        for o in &p.officers {
            player_of_officer.insert(key(o), player);
        }
    }

    let mut officer_ids = HashMap::new();
    for o in &g.officers {
        tx.execute(
            "INSERT INTO officers (game_id, side_id, name, level, rating, command_class, player_id, rules_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                game,
                side_id(&o.side)?,
                o.name.trim(),
                o.level.as_str(),
                o.rating.as_str(),
                o.command_class.as_str(),
                player_of_officer.get(&key(&o.name)).copied(),
                o.rules_id
            ],
        )?;
        officer_ids.insert(key(&o.name), tx.last_insert_rowid());
    }
    let officer_id = |name: &str| {
        officer_ids
            .get(&key(name))
            .copied()
            .ok_or_else(|| StoreError::InvalidGame {
                game: g.name.clone(),
                problem: format!("officer `{name}` is not listed"),
            })
    };
    for o in &g.officers {
        if let Some(sup) = &o.superior {
            tx.execute(
                "UPDATE officers SET superior_id = ?1 WHERE id = ?2",
                params![officer_id(sup)?, officer_id(&o.name)?],
            )?;
        }
    }

    for u in &g.units {
        let aliases = serde_json::to_string(&u.aliases).map_err(|e| StoreError::InvalidGame {
            game: g.name.clone(),
            problem: format!("aliases of unit `{}` cannot be stored: {e}", u.name),
        })?;
        tx.execute(
            "INSERT INTO units (game_id, side_id, name, aliases_json, arm, weapon, commander_id, rules_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                game,
                side_id(&u.side)?,
                u.name.trim(),
                aliases,
                u.arm.as_str(),
                u.weapon.as_str(),
                officer_id(&u.commander)?,
                u.rules_id
            ],
        )?;
    }

    tx.execute(
        "INSERT INTO turns (game_id, number, status, deadline_at, grace_secs, seed_commitment,
                            state_json, state_hash, opened_at)
         VALUES (?1, 1, 'open', ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            game,
            g.first_deadline_at,
            g.grace_secs,
            seed_commitment(&turn_seed(&g.seed, 1)),
            g.initial_state_json,
            sha256_hex(g.initial_state_json.as_bytes()),
            g.created_at
        ],
    )?;
    Ok(GameId(game))
}

fn players_of(c: &Connection, game: GameId) -> Result<Vec<PlayerDetail>, StoreError> {
    let mut stmt = c.prepare(
        "SELECT p.id, p.name, s.name, p.status, p.time_zone, p.address_failing
         FROM players p JOIN sides s ON s.id = p.side_id
         WHERE p.game_id = ?1 ORDER BY p.id",
    )?;
    let rows = stmt
        .query_map([game.0], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, PlayerStatus>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, bool>(5)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, name, side, status, time_zone, address_failing) in rows {
        let addresses = c
            .prepare_cached(
                "SELECT address, failing, last_bounce_at FROM player_addresses
                 WHERE player_id = ?1 ORDER BY id",
            )?
            .query_map([id], |r| {
                Ok(AddressDetail {
                    address: r.get(0)?,
                    failing: r.get(1)?,
                    last_bounce_at: r.get(2)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let officers = c
            .prepare_cached("SELECT name FROM officers WHERE player_id = ?1 ORDER BY id")?
            .query_map([id], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        out.push(PlayerDetail {
            name,
            side,
            status,
            time_zone,
            address_failing,
            addresses,
            officers,
        });
    }
    Ok(out)
}

/// Parses a kinds.rs name read back from the database.
fn kind<T: FromStr>(text: &str) -> Result<T, StoreError>
where
    T::Err: std::fmt::Display,
{
    text.parse::<T>().map_err(|e| StoreError::BadValue {
        what: e.to_string(),
    })
}

fn officers_of(c: &Connection, game: GameId) -> Result<Vec<OfficerDetail>, StoreError> {
    let mut stmt = c.prepare(
        "SELECT o.name, s.name, o.level, o.rating, o.command_class, sup.name, p.name
         FROM officers o
         JOIN sides s ON s.id = o.side_id
         LEFT JOIN officers sup ON sup.id = o.superior_id
         LEFT JOIN players p ON p.id = o.player_id
         WHERE o.game_id = ?1 ORDER BY o.id",
    )?;
    let rows = stmt
        .query_map([game.0], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<String>>(6)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(name, side, level, rating, class, superior, player)| {
            Ok(OfficerDetail {
                name,
                side,
                level: kind(&level)?,
                rating: kind(&rating)?,
                command_class: kind(&class)?,
                superior,
                player,
            })
        })
        .collect()
}

fn units_per_side(c: &Connection, game: GameId) -> Result<Vec<SideUnits>, StoreError> {
    let mut stmt = c.prepare(
        "SELECT s.name, count(u.id) FROM sides s LEFT JOIN units u ON u.side_id = s.id
         WHERE s.game_id = ?1 GROUP BY s.id ORDER BY s.id",
    )?;
    let rows = stmt.query_map([game.0], |r| {
        Ok(SideUnits {
            side: r.get(0)?,
            units: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}
