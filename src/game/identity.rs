//! The enemy identity policy in the store: each side's designations
//! (`enemy_designations`, migration 0006), loaded for every answer to a
//! player and extended whenever his side sees an enemy it has not seen
//! before. The policy itself is `crate::identity`; this file only keeps it.
//!
//! Designations are given in three places, always through
//! [`record_sightings`]: when a turn's reports are made (what each side saw
//! at the end of the turn), when a mail is read (what the side sees in the
//! open turn's state, should it be a unit no report has named yet), and when
//! a report is made at the start of a game. Rows are never deleted nor
//! their letters changed (triggers), so a letter is never given twice.

use crate::identity::{Designated, EnemyNames, IdentityPolicy};
use crate::rules::iron_brigade::sight::Visibility;
use crate::rules::iron_brigade::state::{BattleState, Pos, SideId, UnitId};
use crate::scenario::Scenario;
use crate::store::GameId;
use rusqlite::{Connection, params};
use std::collections::BTreeMap;

/// The game's policy, from its stored scenario (hidden if it cannot be
/// read: the safe side).
pub fn policy_of(conn: &Connection, game: GameId) -> Result<IdentityPolicy, rusqlite::Error> {
    let toml: String = conn.query_row(
        "SELECT scenario_toml FROM games WHERE id = ?1",
        [game.0],
        |r| r.get(0),
    )?;
    Ok(Scenario::from_toml_str(&toml, "stored scenario")
        .map(|s| s.identities)
        .unwrap_or_default())
}

/// `side`'s designations under `policy`, as stored.
pub fn load(
    conn: &Connection,
    game: GameId,
    side: SideId,
    policy: IdentityPolicy,
) -> Result<EnemyNames, rusqlite::Error> {
    let mut st = conn.prepare_cached(
        "SELECT unit, designation, first_turn, last_turn, last_x, last_y
         FROM enemy_designations WHERE game_id = ?1 AND side = ?2 ORDER BY id",
    )?;
    let rows = st.query_map(params![game.0, side.0], |r| {
        Ok((
            UnitId(r.get::<_, u32>(0)?),
            Designated {
                designation: r.get(1)?,
                first_turn: r.get(2)?,
                last_turn: r.get(3)?,
                last_at: Pos::new(r.get(4)?, r.get(5)?),
            },
        ))
    })?;
    let mut names = EnemyNames::new(policy);
    for row in rows {
        let (id, d) = row?;
        names.units.insert(id, d);
    }
    Ok(names)
}

/// Records that `side` saw the enemy units `seen` in `state` on `turn`:
/// new ones get the next letters, every one's last-known place moves on.
/// `names` is updated to match what is stored.
pub fn record_sightings(
    conn: &Connection,
    game: GameId,
    side: SideId,
    state: &BattleState,
    turn: u32,
    seen: impl IntoIterator<Item = UnitId>,
    names: &mut EnemyNames,
) -> Result<(), rusqlite::Error> {
    let seen: Vec<UnitId> = seen.into_iter().collect();
    if seen.is_empty() {
        return Ok(());
    }
    // Start from what is stored now, not from a copy that may be older
    // (another process may have lettered a unit since): the next letter
    // is always the store's next.
    *names = load(conn, game, side, names.policy)?;
    names.record_seen(state, side, turn, seen.iter().copied());
    let mut st = conn.prepare_cached(
        "INSERT INTO enemy_designations
             (game_id, side, unit, designation, first_turn, last_turn, last_x, last_y)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (game_id, side, unit) DO UPDATE SET
             last_turn = excluded.last_turn, last_x = excluded.last_x, last_y = excluded.last_y
         WHERE excluded.last_turn >= enemy_designations.last_turn",
    )?;
    for id in seen {
        let Some(d) = names.units.get(&id) else {
            continue;
        };
        st.execute(params![
            game.0,
            side.0,
            id.0,
            d.designation,
            d.first_turn,
            d.last_turn,
            d.last_at.x,
            d.last_at.y
        ])?;
    }
    Ok(())
}

/// Every side's designations after it saw what `visibility` says on
/// `turn`: loaded from the store, new enemies lettered and every sighting's
/// last-known place stored — before any report or briefing is written, so
/// every answer to a player calls a unit alike.
pub fn names_after_sightings(
    conn: &Connection,
    game: GameId,
    state: &BattleState,
    turn: u32,
    visibility: &BTreeMap<SideId, Visibility>,
    policy: IdentityPolicy,
) -> Result<BTreeMap<SideId, EnemyNames>, rusqlite::Error> {
    let mut all = BTreeMap::new();
    for side in &state.sides {
        let mut names = load(conn, game, side.id, policy)?;
        if let Some(vis) = visibility.get(&side.id) {
            record_sightings(
                conn,
                game,
                side.id,
                state,
                turn,
                vis.seen.keys().copied(),
                &mut names,
            )?;
        }
        all.insert(side.id, names);
    }
    Ok(all)
}

/// The number each side knows its orders by (issue #14 §4): the engine
/// order id (`orders.id`, counted over the whole game, both sides) → the
/// order's place among the orders to that side's units, from 1. A player
/// who sees "order #7" learns how many orders his own side wrote, never
/// how many the enemy did.
pub fn side_order_numbers(
    conn: &Connection,
    game: GameId,
    state: &BattleState,
) -> Result<std::collections::BTreeMap<SideId, std::collections::BTreeMap<u64, u32>>, rusqlite::Error>
{
    let mut st = conn.prepare_cached(
        "SELECT o.id, s.name FROM orders o
         JOIN units u ON u.id = o.unit_id
         JOIN sides s ON s.id = u.side_id
         WHERE o.game_id = ?1 ORDER BY o.id",
    )?;
    let rows = st.query_map([game.0], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut out: std::collections::BTreeMap<SideId, std::collections::BTreeMap<u64, u32>> =
        Default::default();
    for row in rows {
        let (id, side_name) = row?;
        let Some(side) = state
            .sides
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(&side_name))
            .map(|s| s.id)
        else {
            continue;
        };
        let numbers = out.entry(side).or_default();
        let n = u32::try_from(numbers.len() + 1).unwrap_or(u32::MAX);
        numbers.insert(u64::try_from(id).unwrap_or_default(), n);
    }
    Ok(out)
}

/// Every side's designations in `game`, under `policy` (the archive's
/// side pages).
pub fn load_all(
    conn: &Connection,
    game: GameId,
    policy: IdentityPolicy,
) -> Result<std::collections::BTreeMap<SideId, EnemyNames>, rusqlite::Error> {
    let sides: Vec<u8> = conn
        .prepare_cached(
            "SELECT DISTINCT side FROM enemy_designations WHERE game_id = ?1 ORDER BY side",
        )?
        .query_map([game.0], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    sides
        .into_iter()
        .map(|s| Ok((SideId(s), load(conn, game, SideId(s), policy)?)))
        .collect()
}
