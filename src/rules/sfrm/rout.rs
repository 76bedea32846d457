//! SFRM "Officer Casualties": "After making a roll on the officer
//! casualties table, general and messenger elements that remain in play may
//! also make an immediate rout move", and "Rout Moves": "A rout move cannot
//! go closer to the enemy, and must go towards cover or friendly elements
//! if possible. A rout move must be at least 4"."
//!
//! Our rulings (docs/rulings-sfrm.md): a general makes the move when,
//! after the roll, he is still in contact with an enemy unit and with no
//! friendly one (the move is his owner's choice, and no owner leaves a hit
//! general or rider alone touching the enemy; one with friends is covered); he rides the rule's 4" at SFRM's ground scale (400 yards),
//! but never farther than he rides in one table turn (at Iron Brigade's
//! 2.5 minutes that is 12", 300 yards); he rides for the nearest friendly
//! unit when that way takes him no closer to the enemy, stopping on
//! reaching it, and otherwise straight away from the enemy; the table's
//! edge stops him. A messenger left in play rides on for his addressee
//! instead: his ride is his business, and it takes him past the contact.

use super::scale::{MESSENGER_YARDS_PER_MINUTE, Scale};
use crate::rules::iron_brigade::geometry::{footprint, officer_in_contact};
use crate::rules::iron_brigade::state::{BattleState, Pos, SideId};

/// "A rout move must be at least 4"", in SFRM table inches.
pub const ROUT_MOVE_SFRM_INCHES: f64 = 4.0;

/// How far a rout move goes at `scale`, in table inches: SFRM's 4" as
/// yards, capped by one turn's ride.
pub fn rout_move_inches(scale: Scale) -> f64 {
    let yards = ROUT_MOVE_SFRM_INCHES * Scale::SFRM.yards_per_inch;
    let ride = MESSENGER_YARDS_PER_MINUTE * scale.minutes_per_turn;
    yards.min(ride) / scale.yards_per_inch
}

/// Where a general of `side` at `at` ends his rout move, or
/// `None` when no enemy unit is in contact with him, or a friendly unit is
/// (he stays where he is).
pub fn rout_move(battle: &BattleState, side: SideId, at: Pos, scale: Scale) -> Option<Pos> {
    if battle
        .units_of(side)
        .any(|u| u.castings > 0 && officer_in_contact(at, u))
    {
        return None;
    }
    let enemy = battle
        .enemies_of(side)
        .filter(|u| u.castings > 0 && officer_in_contact(at, u))
        .min_by(|a, b| {
            footprint(a)
                .distance_to(at)
                .total_cmp(&footprint(b).distance_to(at))
                .then(a.id.cmp(&b.id))
        })?;
    let reach = rout_move_inches(scale);
    let (ex, ey) = (at.x - enemy.position.x, at.y - enemy.position.y);
    let len = ex.hypot(ey);
    // Straight away from the enemy's centre (any way out if on top of it).
    let away = if len > 1e-9 {
        (ex / len, ey / len)
    } else {
        (0.0, -1.0)
    };
    let mut goal = Pos::new(at.x + away.0 * reach, at.y + away.1 * reach);
    // Towards friends if that is no closer to the enemy.
    let friend = battle
        .units_of(side)
        .filter(|u| u.castings > 0 && !officer_in_contact(at, u))
        .map(|u| footprint(u).nearest_point(at))
        .min_by(|a, b| a.distance(at).total_cmp(&b.distance(at)));
    if let Some(f) = friend {
        let (fx, fy) = (f.x - at.x, f.y - at.y);
        let d = fx.hypot(fy);
        if d > 1e-9 && fx * away.0 + fy * away.1 >= 0.0 {
            let step = d.min(reach);
            goal = Pos::new(at.x + fx / d * step, at.y + fy / d * step);
        }
    }
    if let Some(table) = battle.table
        && let Some(edge) = table.exit_point(at, goal)
    {
        goal = edge;
    }
    Some(goal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rout_move_is_four_sfrm_inches_capped_by_a_turns_ride() {
        // Iron Brigade: 400 yd, but a rider covers 300 yd in 2.5 minutes.
        assert_eq!(rout_move_inches(Scale::IRON_BRIGADE), 12.0);
        // SFRM: the rule's own 4".
        assert_eq!(rout_move_inches(Scale::SFRM), 4.0);
    }
}
