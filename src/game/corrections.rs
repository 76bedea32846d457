//! Corrections (`SET <unit> <field> <value> BECAUSE "<reason>"`): the
//! umpire's changes to a turn's START state, kept as inputs beside the
//! orders (table `corrections`), never written into a stored snapshot.
//!
//! A correction belongs to one attempt of a turn (a held turn before REDO,
//! or the open turn): the engine, and `adjutant replay`, start that attempt
//! — and every later REDO of it — from `turns.state_json` with the
//! corrections applied in the order they were made ([`apply_corrections`]).
//!
//! Bounds (checked by [`check`] before a correction is recorded):
//! - morale: combat morale runs from 0 to the unit's base morale
//!   (APSoF VI.B.4; base morale is at most 6, VI.B.1);
//! - castings: at least 1 and at most what the unit took the field with
//!   (APSoF II.B.1; a battery's castings are its crew, II.E.1) — a unit is
//!   not raised above its strength, nor destroyed, by a correction;
//! - position: on the table;
//! - formation: one the unit's arm may take (limbered/unlimbered for
//!   batteries only, the others for the rest: APSoF III, IX);
//! - facing: any compass bearing (the parser gives 0 ≤ degrees < 360);
//! - perilous: yes or no — the umpire declares a perilous situation for
//!   the unit this turn (APSoF V.G.2: "through an umpire ... other
//!   situations may be declared to be perilous situations");
//! - protection: a row of the APSoF V.B "Target protection" table the
//!   unit has this turn (works dug in the night, cover the map lacks);
//!   `none` withdraws it. Both last the one turn they are made for: the
//!   engine clears them when the turn ends.

use crate::game::snapshot::Snapshot;
use crate::rules::iron_brigade::fire::Protection;
use crate::rules::iron_brigade::kinds::Formation;
use crate::rules::iron_brigade::state::{BattleState, Pos, UnitId};
use rusqlite::{Transaction, params};
use serde::Serialize;

/// What can be corrected with `SET` (issue #8 "Corrections").
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "field", content = "value", rename_all = "kebab-case")]
pub enum SetValue {
    /// Combat morale level (APSoF VI.B.4: 0 up to the unit's base morale, at most 6 by VI.B.1; the
    /// executor checks the upper bound against the unit).
    Morale(u8),
    /// Castings (APSoF II.B.1), or crew castings for a battery (II.E.1).
    Castings(u32),
    /// Table position in inches, `x,y`.
    Position {
        x: f64,
        y: f64,
    },
    Formation(Formation),
    /// Degrees clockwise from north (written as degrees or a compass point).
    Facing(f64),
    /// APSoF V.G.2: the unit is (or is not) in a perilous situation this
    /// turn, by the umpire's declaration.
    Perilous(bool),
    /// A protection of the APSoF V.B table the unit has this turn.
    Protection(Protection),
}

/// One recorded correction, as the engine needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Correction {
    pub unit: UnitId,
    pub value: SetValue,
}

/// The field a value corrects, as stored in `corrections.field`.
pub fn field_name(value: &SetValue) -> &'static str {
    match value {
        SetValue::Morale(_) => "morale",
        SetValue::Castings(_) => "castings",
        SetValue::Position { .. } => "position",
        SetValue::Formation(_) => "formation",
        SetValue::Facing(_) => "facing",
        SetValue::Perilous(_) => "perilous",
        SetValue::Protection(_) => "protection",
    }
}

/// The corrections that apply to attempt `turn_id`: those made on it while
/// it was open, and every one made on the attempts it re-adjudicates
/// (`redo_of`, transitively; made while open or while held), oldest first.
pub fn corrections_for(
    tx: &Transaction<'_>,
    turn_id: i64,
) -> Result<Vec<Correction>, rusqlite::Error> {
    let mut st = tx.prepare_cached(
        "WITH RECURSIVE lineage(id) AS (
             SELECT ?1
             UNION ALL
             SELECT t.redo_of FROM turns t JOIN lineage l ON t.id = l.id
             WHERE t.redo_of IS NOT NULL)
         SELECT rules_unit, value_json FROM corrections
         WHERE turn_id IN (SELECT id FROM lineage)
           AND (turn_id <> ?1 OR made_while = 'open')
         ORDER BY id",
    )?;
    read_corrections(&mut st, turn_id)
}

/// The corrections made on held attempt `turn_id` (for its REDO), oldest first.
pub fn made_while_held(
    tx: &Transaction<'_>,
    turn_id: i64,
) -> Result<Vec<Correction>, rusqlite::Error> {
    let mut st = tx.prepare_cached(
        "SELECT rules_unit, value_json FROM corrections
         WHERE turn_id = ?1 AND made_while = 'held' ORDER BY id",
    )?;
    read_corrections(&mut st, turn_id)
}

/// The snapshot with `corrections` applied in order. Pure; shared with
/// `adjutant replay`.
pub fn apply_corrections(
    mut snapshot: Snapshot,
    corrections: &[Correction],
) -> Result<Snapshot, String> {
    for c in corrections {
        apply(&mut snapshot.battle, c.unit, &c.value)?;
    }
    Ok(snapshot)
}

/// Sets one field and returns the value it replaced (as JSON, for the
/// record). Pure.
pub fn apply(
    state: &mut BattleState,
    unit: UnitId,
    value: &SetValue,
) -> Result<serde_json::Value, String> {
    let u = state
        .unit_mut(unit)
        .ok_or_else(|| format!("unit {} is not in the battle", unit.0))?;
    Ok(match value {
        SetValue::Morale(m) => {
            let was = u.combat_morale;
            u.combat_morale = *m;
            // A unit raised above 0 is no longer broken (APSoF VI.C: broken
            // at 0); one set to 0 is.
            u.broken = *m == 0;
            serde_json::json!(was)
        }
        SetValue::Castings(c) => {
            let was = u.castings;
            u.castings = *c;
            serde_json::json!(was)
        }
        SetValue::Position { x, y } => {
            let was = u.position;
            u.position = Pos { x: *x, y: *y };
            serde_json::json!([was.x, was.y])
        }
        SetValue::Formation(f) => {
            let was = u.formation;
            u.formation = *f;
            serde_json::json!(was)
        }
        SetValue::Facing(d) => {
            let was = u.facing;
            u.facing = *d;
            serde_json::json!(was)
        }
        SetValue::Perilous(p) => {
            let was = u.marks.declared_perilous;
            u.marks.declared_perilous = *p;
            serde_json::json!(was)
        }
        SetValue::Protection(p) => {
            let was = u.marks.declared_protection.unwrap_or_default();
            u.marks.declared_protection = Some(*p).filter(|p| *p != Default::default());
            serde_json::json!(was)
        }
    })
}

/// What bounds a correction is checked against beyond the unit itself.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Table width and height in inches.
    pub table: (f64, f64),
    /// Castings the unit took the field with (turn 1's snapshot).
    pub starting_castings: u32,
}

/// Checks `value` for `unit` in `state` against the rules' bounds (see the
/// module doc). The error says what is allowed.
pub fn check(
    state: &BattleState,
    unit: UnitId,
    value: &SetValue,
    bounds: &Bounds,
) -> Result<(), String> {
    let u = state
        .unit(unit)
        .ok_or_else(|| format!("unit {} is not in the battle", unit.0))?;
    match value {
        SetValue::Morale(m) if *m > u.base_morale => Err(format!(
            "{}'s combat morale can be 0 to {} (its base morale; APSoF VI.B.4), not {m}",
            u.name, u.base_morale
        )),
        SetValue::Castings(0) => Err(format!(
            "{} cannot be set to 0 castings; a unit leaves the table by the rules, not by a correction (APSoF II.B.1)",
            u.name
        )),
        SetValue::Castings(c) if *c > bounds.starting_castings => Err(format!(
            "{} took the field with {} castings{}; it cannot be set to {c} (APSoF II.B.1, II.E.1)",
            u.name,
            bounds.starting_castings,
            if u.arm.is_artillery() { " (crew)" } else { "" }
        )),
        SetValue::Position { x, y }
            if *x < 0.0 || *y < 0.0 || *x > bounds.table.0 || *y > bounds.table.1 =>
        {
            Err(format!(
                "{x},{y} is off the table; the table is {} by {} inches (x from 0 to {}, y from 0 to {})",
                bounds.table.0, bounds.table.1, bounds.table.0, bounds.table.1
            ))
        }
        SetValue::Formation(f) if !f.allowed_for(u.arm) => Err(format!(
            "{} cannot be in {f}: {}",
            u.name,
            if u.arm.is_artillery() {
                "a battery is limbered or unlimbered"
            } else {
                "limbered and unlimbered are for batteries"
            }
        )),
        _ => Ok(()),
    }
}

/// The `(rules_unit, value_json)` rows `st` selects for `turn_id`, read
/// as corrections; a value that does not parse is a conversion error.
fn read_corrections(
    st: &mut rusqlite::CachedStatement<'_>,
    turn_id: i64,
) -> Result<Vec<Correction>, rusqlite::Error> {
    let rows = st
        .query_map(params![turn_id], |r| {
            Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(unit, json)| {
            let value: SetValue = serde_json::from_str(&json).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
            })?;
            Ok(Correction {
                unit: UnitId(unit),
                value,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::kinds::Formation;
    use crate::rules::iron_brigade::state::corps_battle_turn;

    #[test]
    fn bounds_follow_the_rules_and_apply_returns_the_old_value() {
        let (mut state, _) = corps_battle_turn(1);
        let u = state.units[0].clone();
        let bounds = Bounds {
            table: (100.0, 60.0),
            starting_castings: u.castings,
        };
        let ok = |v: SetValue| check(&state, u.id, &v, &bounds);
        assert!(ok(SetValue::Morale(u.base_morale)).is_ok());
        assert!(
            ok(SetValue::Morale(u.base_morale + 1))
                .unwrap_err()
                .contains("VI.B.4")
        );
        assert!(ok(SetValue::Castings(0)).is_err());
        assert!(ok(SetValue::Castings(u.castings + 1)).is_err());
        assert!(ok(SetValue::Position { x: 100.0, y: 60.0 }).is_ok());
        assert!(ok(SetValue::Position { x: 100.5, y: 1.0 }).is_err());
        let wrong = if u.arm.is_artillery() {
            Formation::Line
        } else {
            Formation::Limbered
        };
        assert!(ok(SetValue::Formation(wrong)).is_err());

        let was = apply(&mut state, u.id, &SetValue::Morale(0)).unwrap();
        assert_eq!(was, serde_json::json!(u.combat_morale));
        assert!(
            state.unit(u.id).unwrap().broken,
            "morale 0 is broken (VI.C)"
        );
        apply(&mut state, u.id, &SetValue::Morale(2)).unwrap();
        assert!(!state.unit(u.id).unwrap().broken);
    }
}
