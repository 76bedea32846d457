//! The end of a game: the scenario's `last_turn` is the last turn played.
//!
//! Its reports tell every player and the umpire that the battle is over and
//! how it ended, judged from the scenario's objectives
//! (`docs/scenario-format.md`, "Objectives"), instead of asking for orders
//! for a turn that will never be played. Once those reports are out (at
//! once, or at the umpire's RELEASE in an umpired game) the game is
//! finished: no further turn is processed, players who write are told the
//! game has ended, and the archive's fog-lifted pages appear.
//!
//! APSoF itself sets no victory conditions (its scenarios are the players'
//! own); the scenario's objectives are what the organiser set. [`assess`]
//! is pure: the states it judges are passed in.

use crate::report::view::EndOfBattle;
use crate::rules::iron_brigade::state::{BattleState, SideId, Unit};
use crate::scenario::{Objective, ObjectivePlace, Scenario};
use crate::store::{GameId, NewAudit, Store, StoreError};
use rusqlite::{OptionalExtension, Transaction, params};

/// How an objective stood when it was assessed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holding {
    /// The scoring side has troops there in good order and the enemy none.
    Held,
    /// Both sides have troops there in good order: nobody scores.
    Contested,
    /// Only the enemy is there.
    Enemy,
    /// Nobody in good order is there.
    Empty,
}

/// A unit that can hold ground: on the table, in the fight, not broken
/// (APSoF VI.D) and not retreating. A routed regiment passing through a
/// farmyard does not hold it.
fn holds_ground(u: &Unit) -> bool {
    u.castings > 0
        && !u.marks.left_field
        && u.marks.combined_into.is_none()
        && !u.broken
        && !u.retreating
}

/// Whether `side` holds `o` in `state`: a unit of that side that can hold
/// ground stands within the objective's radius of its centre, and no enemy
/// unit that can hold ground does.
pub fn holding(o: &Objective, side: SideId, state: &BattleState) -> Holding {
    let near = |u: &&Unit| {
        holds_ground(u) && {
            let dx = u.position.x - o.at.x;
            let dy = u.position.y - o.at.y;
            (dx * dx + dy * dy).sqrt() <= o.radius
        }
    };
    let ours = state.units.iter().filter(near).any(|u| u.side == side);
    let theirs = state.units.iter().filter(near).any(|u| u.side != side);
    match (ours, theirs) {
        (true, false) => Holding::Held,
        (true, true) => Holding::Contested,
        (false, true) => Holding::Enemy,
        (false, false) => Holding::Empty,
    }
}

fn place_words(o: &Objective) -> String {
    let radius = if o.radius.fract() == 0.0 {
        format!("{:.0}", o.radius)
    } else {
        format!("{:.1}", o.radius)
    };
    match &o.place {
        ObjectivePlace::Landmark(name) => format!("within {radius}\" of {name}"),
        ObjectivePlace::Point(p) => format!("within {radius}\" of ({}, {})", p.x, p.y),
    }
}

/// The verdict after `last_turn`, from each objective's state at the end
/// of its turn (`state_after(turn)`; an objective whose state is missing
/// scores nothing and says so).
pub fn assess(
    scenario: &Scenario,
    last_turn: u32,
    state_after: &dyn Fn(u32) -> Option<BattleState>,
) -> EndOfBattle {
    let mut points: Vec<(String, u32)> =
        scenario.sides.iter().map(|s| (s.name.clone(), 0)).collect();
    let mut lines = Vec::new();
    for o in &scenario.objectives {
        let name = o
            .name
            .clone()
            .unwrap_or_else(|| format!("{}'s objective", o.side));
        let what = format!(
            "{name} ({}, {} points, {} at the end of turn {})",
            o.side,
            o.points,
            place_words(o),
            o.turn
        );
        let Some(state) = state_after(o.turn) else {
            lines.push(format!("{what}: not assessed (no state for that turn)."));
            continue;
        };
        let Some(side) = state
            .sides
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(&o.side))
        else {
            lines.push(format!("{what}: not assessed (no such side)."));
            continue;
        };
        let verdict = match holding(o, side.id, &state) {
            Holding::Held => {
                if let Some(p) = points
                    .iter_mut()
                    .find(|(s, _)| s.eq_ignore_ascii_case(&o.side))
                {
                    p.1 += o.points;
                }
                format!("held by the {}: {} points", side.name, o.points)
            }
            Holding::Contested => "contested, both sides there: no points".to_string(),
            Holding::Enemy => "in the enemy's hands: no points".to_string(),
            Holding::Empty => "held by nobody: no points".to_string(),
        };
        lines.push(format!("{what}: {verdict}."));
    }
    // The forces left on the field at the end (the fog lifts with the
    // battle): a side with none has lost whatever the objectives say.
    let field: Vec<(String, usize, u32)> = state_after(last_turn)
        .map(|st| {
            st.sides
                .iter()
                .map(|side| {
                    let live: Vec<_> = st
                        .units_of(side.id)
                        .filter(|u| !u.out_of_battle())
                        .collect();
                    (
                        side.name.clone(),
                        live.len(),
                        live.iter().map(|u| u.castings).sum(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if !field.is_empty() {
        let each: Vec<String> = field
            .iter()
            .map(|(side, n, c)| match n {
                0 => format!("{side}: none left"),
                1 => format!("{side}: 1 unit, {c} castings"),
                _ => format!("{side}: {n} units, {c} castings"),
            })
            .collect();
        lines.push(format!("On the field at the end: {}.", each.join("; ")));
    }
    let swept: Vec<&str> = field
        .iter()
        .filter(|(_, n, _)| *n == 0)
        .map(|(s, _, _)| s.as_str())
        .collect();
    let standing: Vec<&str> = field
        .iter()
        .filter(|(_, n, _)| *n > 0)
        .map(|(s, _, _)| s.as_str())
        .collect();
    let score_words = || {
        let score: Vec<String> = points.iter().map(|(s, p)| format!("{s} {p}")).collect();
        score.join(", ")
    };
    let headline = if let ([loser], [winner]) = (swept.as_slice(), standing.as_slice()) {
        // Our ruling (docs/scenario-format.md): a force with no unit left on
        // the field has lost the battle.
        format!(
            "The battle is over after turn {last_turn}: a {winner} victory: the {loser} force has no unit left on the field; on objectives ({}).",
            score_words()
        )
    } else if scenario.objectives.is_empty() {
        format!(
            "The battle is over after turn {last_turn}. The scenario sets no objectives: \
             the result is for the players and the umpire to judge."
        )
    } else {
        let mut ranked = points.clone();
        ranked.sort_by_key(|r| std::cmp::Reverse(r.1));
        let score: Vec<String> = points.iter().map(|(s, p)| format!("{s} {p}")).collect();
        let score = score.join(", ");
        match ranked.as_slice() {
            [first, second, ..] if first.1 > second.1 => format!(
                "The battle is over after turn {last_turn}: a {} victory on objectives ({score}).",
                first.0
            ),
            _ => format!(
                "The battle is over after turn {last_turn}: a draw on objectives ({score})."
            ),
        }
    };
    EndOfBattle {
        headline,
        objectives: lines,
    }
}

/// The end of the battle if `played` is the scenario's last turn, judged
/// from the stored states (the state after turn N is the one turn N + 1
/// opened with) and `after_played`, the state after `played`.
pub fn ending_if_last(
    tx: &Transaction<'_>,
    game_id: GameId,
    scenario: &Scenario,
    played: u32,
    after_played: &BattleState,
) -> Result<Option<EndOfBattle>, rusqlite::Error> {
    if played < scenario.last_turn {
        return Ok(None);
    }
    let mut stored = tx.prepare_cached(
        "SELECT state_json FROM turns WHERE game_id = ?1 AND number = ?2
         AND superseded_at IS NULL ORDER BY id DESC LIMIT 1",
    )?;
    let mut states = std::collections::BTreeMap::new();
    for o in &scenario.objectives {
        if o.turn >= played || states.contains_key(&o.turn) {
            continue;
        }
        let json: Option<String> = stored
            .query_row(params![game_id.0, o.turn + 1], |r| r.get(0))
            .optional()?;
        let state = json
            .and_then(|j| super::snapshot::Snapshot::from_json(&j).ok())
            .map(|s| s.battle);
        states.insert(o.turn, state);
    }
    Ok(Some(assess(scenario, played, &|turn| {
        if turn >= played {
            Some(after_played.clone())
        } else {
            states.get(&turn).cloned().flatten()
        }
    })))
}

/// Whether `played` is the last turn of the game's scenario.
pub fn is_last_turn(
    tx: &Transaction<'_>,
    game_id: GameId,
    played: u32,
) -> Result<bool, StoreError> {
    let toml: String = tx.query_row(
        "SELECT scenario_toml FROM games WHERE id = ?1",
        [game_id.0],
        |r| r.get(0),
    )?;
    // A ruleset played through its mail plane knows its own last turn.
    if let Some(engine) = super::engine_seat::engine_of_game(tx, game_id)? {
        let opened = engine
            .open(&toml, "stored scenario")
            .map_err(|e| StoreError::BadValue {
                what: format!("stored scenario: {e}"),
            })?;
        return Ok(played >= opened.last_turn);
    }
    let scenario =
        Scenario::from_toml_str(&toml, "stored scenario").map_err(|e| StoreError::BadValue {
            what: format!("stored scenario: {e}"),
        })?;
    Ok(played >= scenario.last_turn)
}

/// Finishes the game after its last turn `played` was told to the players:
/// status `finished` with an audit entry, and no reminder for the turn it
/// opened. A game already ended is left as it is.
pub fn finish(
    tx: &Transaction<'_>,
    game_id: GameId,
    played: u32,
    now: i64,
) -> Result<bool, StoreError> {
    let changed = tx.execute(
        "UPDATE games SET status = 'finished' WHERE id = ?1 AND status IN ('active', 'paused')",
        [game_id.0],
    )?;
    if changed == 0 {
        return Ok(false);
    }
    tx.execute(
        "UPDATE turns SET remind_at = NULL WHERE game_id = ?1 AND status = 'open'",
        [game_id.0],
    )?;
    Store::append_audit(
        tx,
        &NewAudit {
            game: Some(game_id),
            actor: "system".to_string(),
            at: now,
            action: "game-ended".into(),
            reason: Some(format!("turn {played}, the scenario's last, was played")),
            detail_json: serde_json::json!({ "last_turn": played }).to_string(),
        },
    )?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::state::Pos;

    fn objective(side: &str, at: (f64, f64), points: u32) -> Objective {
        Objective {
            name: Some(format!("{side} goal")),
            place: ObjectivePlace::Point(crate::scenario::Point { x: at.0, y: at.1 }),
            at: crate::scenario::Point { x: at.0, y: at.1 },
            radius: 4.0,
            points,
            side: side.to_string(),
            turn: 10,
        }
    }

    fn state() -> BattleState {
        BattleState {
            sides: vec![
                crate::rules::iron_brigade::state::Side {
                    id: SideId(0),
                    name: "Union".into(),
                },
                crate::rules::iron_brigade::state::Side {
                    id: SideId(1),
                    name: "Confederate".into(),
                },
            ],
            units: vec![
                Unit::infantry(1, "blue", 0, 20, Pos::new(10.0, 10.0), 0.0),
                Unit::infantry(2, "grey", 1, 20, Pos::new(30.0, 30.0), 180.0),
            ],
            ..BattleState::default()
        }
    }

    #[test]
    fn a_side_holds_ground_only_in_good_order_and_alone() {
        let mut s = state();
        let o = objective("Union", (11.0, 11.0), 5);
        assert_eq!(holding(&o, SideId(0), &s), Holding::Held);
        s.units[1].position = Pos::new(12.0, 12.0);
        assert_eq!(holding(&o, SideId(0), &s), Holding::Contested);
        s.units[0].broken = true;
        assert_eq!(holding(&o, SideId(0), &s), Holding::Enemy);
        s.units[1].retreating = true;
        assert_eq!(holding(&o, SideId(0), &s), Holding::Empty);
        s.units[0].broken = false;
        s.units[0].castings = 0;
        assert_eq!(holding(&o, SideId(0), &s), Holding::Empty);
    }

    #[test]
    fn the_verdict_counts_each_sides_points() {
        let scenario = crate::scenario::Scenario::from_toml_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/scenarios/training.toml"
            ))
            .unwrap(),
            "training",
        )
        .unwrap();
        let mut s = state();
        // Nobody near any objective: a draw, nobody scores.
        s.units.clear();
        let end = assess(&scenario, 24, &|_| Some(s.clone()));
        assert!(end.headline.contains("a draw"), "{}", end.headline);
        // One line per objective, and the forces left on the field.
        assert_eq!(end.objectives.len(), scenario.objectives.len() + 1);
        assert!(
            end.objectives.last().is_some_and(
                |l| l == "On the field at the end: Union: none left; Confederate: none left."
            ),
            "{:?}",
            end.objectives
        );
        // The Union alone at the crossroads: a Union victory.
        let cross = scenario.objectives[0].at;
        s.units = vec![Unit::infantry(
            1,
            "blue",
            0,
            20,
            Pos::new(cross.x, cross.y),
            0.0,
        )];
        let end = assess(&scenario, 24, &|_| Some(s.clone()));
        assert!(end.headline.contains("a Union victory"), "{}", end.headline);
        assert!(end.objectives[0].contains("held by the Union: 10 points"));
        // Both sides standing, neither on an objective: a draw; the
        // Confederates all destroyed or gone: a Union victory whatever the
        // objectives say (our ruling, docs/scenario-format.md).
        let mut s = state();
        let end = assess(&scenario, 24, &|_| Some(s.clone()));
        assert!(end.headline.contains("a draw"), "{}", end.headline);
        s.units[1].castings = 0;
        let end = assess(&scenario, 24, &|_| Some(s.clone()));
        assert!(
            end.headline.contains(
                "a Union victory: the Confederate force has no unit left on the field; on objectives (Union 0, Confederate 0)"
            ),
            "{}",
            end.headline
        );
        assert!(
            end.objectives.iter().any(|l| l
                == "On the field at the end: Union: 1 unit, 20 castings; Confederate: none left."),
            "{:?}",
            end.objectives
        );
        // No state for the objective's turn: told, not guessed.
        let end = assess(&scenario, 24, &|_| None);
        assert!(end.objectives[0].contains("not assessed"));
    }
}
