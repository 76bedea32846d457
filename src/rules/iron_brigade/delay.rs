//! Order delay (APSoF I.C.1): how long a written order waits before the unit
//! acts on it, by the distance from the officer who gave it, and whether an
//! order from outside the unit's chain of command is obeyed at all.

use crate::dice::{DiceError, DiceSource, RollKind, RollPurpose};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DelayError {
    #[error("distance {0} is not a distance; give inches, 0 or more")]
    BadDistance(f64),
    #[error("die value {0} is not a d6 roll; each die must be 1 to 6")]
    BadDie(u8),
    #[error(transparent)]
    Dice(#[from] DiceError),
}

/// Turns a unit waits before executing an order, by its distance in inches
/// from the issuing officer (APSoF I.C.1): within 12" none, 12–24" one,
/// beyond 24" two.
///
/// Ruling on the shared edges: exactly 12" is "within 12 inches" (0 turns);
/// exactly 24" is still in the 12–24" band (1 turn); only "further than 24"
/// waits two. The measured distance is compared as is: the round-up of
/// V.E.1 is for fire ranges only.
pub fn distance_delay(distance_inches: f64) -> Result<u8, DelayError> {
    if !distance_inches.is_finite() || distance_inches < 0.0 {
        return Err(DelayError::BadDistance(distance_inches));
    }
    Ok(if distance_inches <= 12.0 {
        0
    } else if distance_inches <= 24.0 {
        1
    } else {
        2
    })
}

/// What an officer outside the unit's chain of command gets from his order
/// (APSoF I.C.1): d6 1–4 obeyed, 5 obeyed one turn late, 6 ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Obedience {
    Obeyed,
    OneTurnLate,
    Ignored,
}

pub fn outside_chain(roll: u8) -> Result<Obedience, DelayError> {
    match roll {
        1..=4 => Ok(Obedience::Obeyed),
        5 => Ok(Obedience::OneTurnLate),
        6 => Ok(Obedience::Ignored),
        other => Err(DelayError::BadDie(other)),
    }
}

/// When an order takes effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OrderTiming {
    /// Turns to wait; `None` when the order is ignored.
    pub delay_turns: Option<u8>,
    pub obeyed: bool,
}

/// Combine distance and, for an officer outside the chain of command, the
/// obedience roll (APSoF I.C.1). Ruling: a 5's turn of lateness is added to
/// the distance delay, since both hold the order back.
pub fn order_timing(
    distance_inches: f64,
    obedience: Option<Obedience>,
) -> Result<OrderTiming, DelayError> {
    let base = distance_delay(distance_inches)?;
    Ok(match obedience {
        None | Some(Obedience::Obeyed) => OrderTiming {
            delay_turns: Some(base),
            obeyed: true,
        },
        Some(Obedience::OneTurnLate) => OrderTiming {
            delay_turns: Some(base + 1),
            obeyed: true,
        },
        Some(Obedience::Ignored) => OrderTiming {
            delay_turns: None,
            obeyed: false,
        },
    })
}

/// Roll for an order: distance delay plus, outside the chain of command,
/// the obedience die (APSoF I.C.1).
pub fn roll_order_timing(
    dice: &mut dyn DiceSource,
    unit: &str,
    distance_inches: f64,
    outside_chain_of_command: bool,
) -> Result<OrderTiming, DelayError> {
    // Validate the distance before spending a die on it.
    distance_delay(distance_inches)?;
    let obedience = if outside_chain_of_command {
        let roll = dice.d6(&RollPurpose::new(RollKind::OrderDelay, unit))?;
        Some(outside_chain(roll)?)
    } else {
        None
    };
    order_timing(distance_inches, obedience)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::ScriptedDice;

    #[test]
    fn i_c_1_distance_bands_and_edges() {
        let cases = [
            (0.0, 0),
            (11.9, 0),
            (12.0, 0),
            (12.01, 1),
            (18.0, 1),
            (24.0, 1),
            (24.01, 2),
            (60.0, 2),
        ];
        for (d, turns) in cases {
            assert_eq!(distance_delay(d).unwrap(), turns, "{d}\"");
        }
        assert!(distance_delay(-1.0).is_err());
        assert!(distance_delay(f64::NAN).is_err());
    }

    #[test]
    fn i_c_1_outside_chain_of_command() {
        for r in 1..=4 {
            assert_eq!(outside_chain(r).unwrap(), Obedience::Obeyed);
        }
        assert_eq!(outside_chain(5).unwrap(), Obedience::OneTurnLate);
        assert_eq!(outside_chain(6).unwrap(), Obedience::Ignored);
        assert!(outside_chain(0).is_err());
        assert_eq!(
            order_timing(20.0, Some(Obedience::OneTurnLate)).unwrap(),
            OrderTiming {
                delay_turns: Some(2),
                obeyed: true
            }
        );
        assert_eq!(
            order_timing(5.0, Some(Obedience::Ignored)).unwrap(),
            OrderTiming {
                delay_turns: None,
                obeyed: false
            }
        );
    }

    #[test]
    fn rolled_only_outside_the_chain() {
        let mut dice = ScriptedDice::new([5]).unwrap();
        let t = roll_order_timing(&mut dice, "2nd Wisconsin", 30.0, false).unwrap();
        assert_eq!(t.delay_turns, Some(2));
        assert!(dice.log().is_empty());
        let t = roll_order_timing(&mut dice, "2nd Wisconsin", 30.0, true).unwrap();
        assert_eq!(t.delay_turns, Some(3));
        assert_eq!(dice.log()[0].purpose.kind, RollKind::OrderDelay);
    }
}
