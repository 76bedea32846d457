//! The turn cycle's due work: which open turns to process now.
//!
//! A turn is processed early when every active player has said READY for
//! it, or when its deadline plus grace has passed (design.md "Turn
//! lifecycle"). Each game is processed in its own transaction
//! ([`super::turn::process_turn`]); one game's failure is logged and does not
//! stop the others.

use super::report_mail::MailSlot;
use super::turn::process_turn;
use crate::daemon::DueWork;
use crate::store::Store;
use rusqlite::params;

/// The [`DueWork`] of the daemon: processes every turn that is due, with
/// its reports mailed using the settings in `mail`.
#[derive(Debug, Default, Clone)]
pub struct TurnCycle {
    pub mail: MailSlot,
}

impl TurnCycle {
    pub fn new(mail: MailSlot) -> TurnCycle {
        TurnCycle { mail }
    }
}

/// Names of games whose open turn is due at `now`.
pub fn due_games(store: &Store, now: i64) -> rusqlite::Result<Vec<String>> {
    let mut st = store.conn().prepare(
        "SELECT g.name FROM games g JOIN turns t ON t.game_id = g.id
         WHERE g.status = 'active' AND t.status = 'open' AND (
               (t.deadline_at IS NOT NULL AND ?1 >= t.deadline_at + t.grace_secs)
            OR NOT EXISTS (
                  SELECT 1 FROM players p WHERE p.game_id = g.id AND p.status = 'active'
                  AND NOT EXISTS (
                      SELECT 1 FROM submissions s
                      WHERE s.player_id = p.id AND s.turn_id = t.id AND s.ready = 1)))
         ORDER BY g.id",
    )?;
    st.query_map(params![now], |r| r.get(0))?.collect()
}

impl DueWork for TurnCycle {
    fn run_due(
        &mut self,
        store: &mut Store,
        now: i64,
    ) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
        let mut done = 0;
        let games = due_games(store, now)?;
        if games.is_empty() {
            return Ok(0);
        }
        let Some(mail) = self.mail.get() else {
            return Err(
                "the mail settings for reports were never given to the turn cycle; \
                        this is a bug in how the daemon was started"
                    .into(),
            );
        };
        for game in games {
            match process_turn(store, &game, &mail, now) {
                Ok(t) => {
                    tracing::info!(game = %t.game, turn = t.turn, events = t.events, "turn processed");
                    done += 1;
                }
                Err(e) => tracing::error!(game = %game, error = %e, "turn not processed"),
            }
        }
        Ok(done)
    }
}
