//! When the daemon must next wake up for a deadline or a reminder (issue
//! #18).
//!
//! Only turns that can run count: a turn of a paused game, of a game whose
//! turn is held for the umpire, or one waiting on the umpire's dice does
//! not fall due at its deadline (`game::cycle::due_games` skips it), so its
//! deadline must not wake the daemon either. Each lookup walks one of the
//! indexes of migration 0008 (`turns_due_at`, `turns_remind_at`) from `now`
//! upwards and stops at the first turn that can run: a paused game's
//! deadline already past costs nothing, and one still to come costs one
//! index entry read, never a wake-up.

use super::{Store, StoreError};
use rusqlite::{Connection, StatementStatus};

/// The conditions, besides timing, for open turn `t` of game `g` to fall
/// due: the same as `game::cycle`'s `RUNNABLE` (game active, no attempt
/// held for the umpire, no dice awaited).
const RUNS: &str = "g.status = 'active'
           AND NOT EXISTS (SELECT 1 FROM turns h WHERE h.game_id = g.id AND h.status = 'held'
                           AND h.superseded_at IS NULL)
           AND NOT EXISTS (SELECT 1 FROM dice_requests d WHERE d.turn_id = t.id
                           AND d.answered_at IS NULL)";

/// The first deadline (plus grace) after `now` of a turn that can run.
pub(super) const NEXT_DEADLINE: &str = "SELECT t.deadline_at + t.grace_secs
         FROM turns t JOIN games g ON g.id = t.game_id
         WHERE t.status = 'open' AND t.superseded_at IS NULL AND t.deadline_at IS NOT NULL
           AND t.deadline_at + t.grace_secs > ?1 AND ";

/// The first reminder time after `now` of a turn whose reminders
/// `game::cycle` would queue (game active, no attempt held: the conditions
/// of its `reminders_due`).
pub(super) const NEXT_REMINDER: &str = "SELECT t.remind_at
         FROM turns t JOIN games g ON g.id = t.game_id
         WHERE t.remind_at IS NOT NULL AND t.status = 'open' AND t.superseded_at IS NULL
           AND t.remind_at > ?1 AND g.status = 'active'
           AND NOT EXISTS (SELECT 1 FROM turns h WHERE h.game_id = g.id AND h.status = 'held'
                           AND h.superseded_at IS NULL)
         ORDER BY t.remind_at LIMIT 1";

fn deadline_sql() -> String {
    format!("{NEXT_DEADLINE}{RUNS} ORDER BY t.deadline_at + t.grace_secs LIMIT 1")
}

/// The next wake-up and the SQLite virtual-machine steps it took.
fn next_wake(conn: &Connection, now: i64) -> rusqlite::Result<(Option<i64>, u64)> {
    let mut steps = 0u64;
    let mut next: Option<i64> = None;
    for sql in [deadline_sql().as_str(), NEXT_REMINDER] {
        let mut st = conn.prepare_cached(sql)?;
        let at: Option<i64> = st
            .query_row([now], |r| r.get(0))
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })?;
        steps += u64::try_from(st.reset_status(StatementStatus::VmStep)).unwrap_or(0);
        if let Some(at) = at {
            next = Some(next.map_or(at, |n| n.min(at)));
        }
    }
    Ok((next, steps))
}

impl Store {
    /// The earliest moment after `now` when a turn that can run falls due
    /// (deadline + grace) or its reminders are to go; `None` when there is
    /// none. Paused games, turns held for the umpire and turns waiting on
    /// dice are skipped (module doc). The end of a pause is not included:
    /// `game::pause::next_resume_at` gives it.
    pub fn next_wake_at(&self, now: i64) -> Result<Option<i64>, StoreError> {
        Ok(next_wake(self.conn(), now)?.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0000000000000000000000000000000000000000000000000000000000000000";

    /// A bare store with `n` games, each with an open turn due at
    /// `deadline` (grace 0) and reminded at `deadline - 10`, in `status`.
    fn store_with(dir: &tempfile::TempDir, n: i64, status: &str, deadline: i64) -> Store {
        let store = Store::open(&dir.path().join("g.db")).unwrap();
        let conn = store.conn();
        for i in 0..n {
            conn.execute(
                "INSERT INTO games (name, status, ruleset, scenario_name, scenario_toml, seed, created_at)
                 VALUES (?1, ?2, 'iron-brigade', 's', '', zeroblob(32), 0)",
                rusqlite::params![format!("g{i}"), status],
            )
            .unwrap();
            let g = conn.last_insert_rowid();
            conn.execute(
                &format!(
                    "INSERT INTO turns (game_id, number, status, opened_at, deadline_at, grace_secs,
                                        seed_commitment, state_json, state_hash)
                     VALUES (?1, 1, 'open', 0, ?2, 0, '{HEX}', '{{}}', '{HEX}')"
                ),
                rusqlite::params![g, deadline],
            )
            .unwrap();
            conn.execute(
                "UPDATE turns SET remind_at = ?2 WHERE game_id = ?1",
                rusqlite::params![g, deadline - 10],
            )
            .unwrap();
        }
        store
    }

    fn steps(store: &Store, now: i64) -> (Option<i64>, u64) {
        // Warm the statement cache, then count a second run.
        next_wake(store.conn(), now).unwrap();
        next_wake(store.conn(), now).unwrap()
    }

    #[test]
    fn a_paused_game_does_not_wake_the_daemon() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_with(&dir, 1, "paused", 1_000);
        // Deadline and reminder to come: neither wakes the daemon.
        assert_eq!(store.next_wake_at(500).unwrap(), None);
        // Deadline past: nothing either, so no wake-up on every cycle.
        assert_eq!(store.next_wake_at(2_000).unwrap(), None);
        // Resumed, the same turn wakes it at its reminder, then deadline.
        store
            .conn()
            .execute("UPDATE games SET status = 'active'", [])
            .unwrap();
        assert_eq!(store.next_wake_at(500).unwrap(), Some(990));
        assert_eq!(store.next_wake_at(990).unwrap(), Some(1_000));
        assert_eq!(store.next_wake_at(1_000).unwrap(), None);
    }

    #[test]
    fn a_turn_held_for_the_umpire_or_his_dice_does_not_wake_the_daemon() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_with(&dir, 1, "active", 1_000);
        let conn = store.conn();
        // A second attempt of the game's turn 1 held for the umpire (the
        // open turn stays open meanwhile).
        conn.execute(
            &format!(
                "INSERT INTO turns (game_id, number, status, opened_at, deadline_at, grace_secs,
                                    seed_commitment, state_json, state_hash)
                 VALUES (1, 2, 'held', 0, NULL, 0, '{HEX}', '{{}}', '{HEX}')"
            ),
            [],
        )
        .unwrap();
        assert_eq!(store.next_wake_at(500).unwrap(), None);
        conn.execute(
            "UPDATE turns SET status = 'released' WHERE status = 'held'",
            [],
        )
        .unwrap();
        assert_eq!(store.next_wake_at(500).unwrap(), Some(990));
        // Dice awaited for the open turn: its reminder still goes (as
        // `reminders_due` queues it), its deadline does not wake.
        conn.execute(
            "INSERT INTO dice_requests (game_id, turn_id, at, first_seq, wanted_json)
             VALUES (1, 1, 0, 0, '[{\"kind\": \"d6\"}]')",
            [],
        )
        .unwrap();
        assert_eq!(store.next_wake_at(500).unwrap(), Some(990));
        assert_eq!(store.next_wake_at(990).unwrap(), None);
    }

    /// Issue #18: paused games whose deadline has passed cost the next
    /// wake-up nothing, however many; one with a deadline to come costs the
    /// index entry it is read from, and each lookup stays on its index.
    #[test]
    fn paused_games_cost_the_wake_up_no_more_than_their_index_entries() {
        let run = |n: i64, now: i64| {
            let dir = tempfile::tempdir().unwrap();
            let store = store_with(&dir, n, "paused", 1_000);
            let (next, steps) = steps(&store, now);
            assert_eq!(next, None);
            steps
        };
        // Deadlines past: the same steps with 1 paused game and 200.
        assert_eq!(run(1, 2_000), run(200, 2_000));
        // Deadlines to come: linear in the paused games read, not more.
        let (one, many) = (run(1, 500), run(200, 500));
        assert!(many < one * 200, "steps {one} for 1, {many} for 200");
        let dir = tempfile::tempdir().unwrap();
        let store = store_with(&dir, 3, "active", 1_000);
        for (sql, index) in [
            (deadline_sql(), "turns_due_at"),
            (NEXT_REMINDER.to_string(), "turns_remind_at"),
        ] {
            let plan: Vec<String> = store
                .conn()
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap()
                .query_map([0], |r| r.get::<_, String>(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let plan = plan.join("\n");
            assert!(plan.contains(&format!("USING INDEX {index}")), "{plan}");
            assert!(!plan.contains("SCAN t"), "{plan}");
            assert!(!plan.contains("SCAN g"), "{plan}");
        }
    }
}
