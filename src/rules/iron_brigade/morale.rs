//! Morale numbers (APSoF VI): the combat morale track, rally, panic when a
//! friend breaks, contact, double quick, and losses when a unit breaks.

use super::fire::{DicePool, fire_dice};
use super::kinds::{Arm, OfficerRating};
use crate::dice::{DiceError, DiceSource, RollKind, RollPurpose};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoraleError {
    #[error("base morale {0} is not a morale class; base morale is 1 (rabble) to 6 (elite)")]
    BadBase(u8),
    #[error(
        "combat morale {current} is above base morale {base}; a unit never exceeds its base (APSoF VI.B.4)"
    )]
    AboveBase { current: u8, base: u8 },
    #[error("the unit is at its base morale {0}; only units below base may rally (APSoF VI.E.1)")]
    NothingToRally(u8),
    #[error(
        "double quick costs are given for base morale 4, 5 and 6 only (APSoF VI.D.4); base {0} cannot double quick"
    )]
    NoDoubleQuick(u8),
    #[error("need {needed} dice for {what}, got {given}")]
    WrongDiceCount {
        what: &'static str,
        needed: usize,
        given: usize,
    },
    #[error("die value {0} is not a d6 roll; each die must be 1 to 6")]
    BadDie(u8),
    #[error(transparent)]
    Dice(#[from] DiceError),
}

fn check_die(d: u8) -> Result<u8, MoraleError> {
    if (1..=6).contains(&d) {
        Ok(d)
    } else {
        Err(MoraleError::BadDie(d))
    }
}

fn check_base(base: u8) -> Result<u8, MoraleError> {
    if (1..=6).contains(&base) {
        Ok(base)
    } else {
        Err(MoraleError::BadBase(base))
    }
}

/// A combat morale on the track: never above base, never below 0 (APSoF VI.B.4).
pub fn clamp_morale(value: i64, base: u8) -> u8 {
    // Clamped to 0..=base, so it fits in u8.
    u8::try_from(value.clamp(0, i64::from(base))).unwrap_or(0)
}

/// Take `loss` levels off `current` (APSoF VI.D.1), stopping at 0.
pub fn apply_loss(current: u8, loss: u32, base: u8) -> u8 {
    clamp_morale(i64::from(current) - i64::from(loss), base)
}

/// The rally/double modifier of a base morale (APSoF VI.F "Morale Effects
/// Charts"): elite +1, regular 0, poor −1, garrison −2, militia −3, rabble −4.
pub fn base_morale_modifier(base: u8) -> Result<i32, MoraleError> {
    Ok(i32::from(check_base(base)?) - 5)
}

/// The bad officer's own roll (APSoF VI.E.2.ii): 1–2 → −2, 3–4 → 0, 5–6 → +2.
pub fn bad_officer_modifier(roll: u8) -> i32 {
    match roll {
        0..=2 => -2,
        3 | 4 => 0,
        _ => 2,
    }
}

/// An officer's rally modifier (APSoF VI.E.2.ii). `bad_roll` is the bad
/// officer's own die and is needed only for a bad officer.
///
/// When the officer was hit with the unit in the last fire phase, his
/// modifier becomes a deduction of the same size (our reading of "a
/// deduction instead of addition"; a bad officer's roll deducts 2 on 1–2
/// and 5–6, nothing on 3–4, so a hit officer never helps).
pub fn officer_modifier(rating: OfficerRating, hit: bool, bad_roll: Option<u8>) -> i32 {
    let m = match rating {
        OfficerRating::Hero => 6,
        OfficerRating::Good => 4,
        OfficerRating::Normal => 2,
        OfficerRating::Poor => 1,
        OfficerRating::Bad => bad_officer_modifier(bad_roll.unwrap_or(3)),
    };
    if hit { -m.abs() } else { m }
}

/// The rally result table (APSoF VI.E.2.iii): modified roll → change in levels.
pub fn rally_table(modified_roll: i32) -> i32 {
    match modified_roll {
        i32::MIN..=-3 => -2,
        -2..=-1 => -1,
        0..=4 => 0,
        5..=6 => 1,
        7..=8 => 2,
        9..=10 => 3,
        _ => 4,
    }
}

/// The best officer in contact with a rallying unit (APSoF VI.E.2.ii).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RallyOfficer {
    pub rating: OfficerRating,
    /// Hit while with the unit in the most recent fire phase.
    pub hit: bool,
}

/// A rally attempt, worked out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RallyOutcome {
    pub die: u8,
    pub bad_officer_die: Option<u8>,
    pub base_modifier: i32,
    pub officer_modifier: i32,
    pub modified_roll: i32,
    /// The table's value, before clamping to the track.
    pub morale_change: i32,
    pub new_morale: u8,
    /// A broken unit that gains nothing must retreat (APSoF VI.E.2.iv).
    pub must_retreat: bool,
}

/// Check the inputs of a rally and say how many dice it takes: one, plus
/// one for a bad officer's own roll.
pub fn rally_dice_needed(
    base: u8,
    current: u8,
    officer: Option<RallyOfficer>,
) -> Result<usize, MoraleError> {
    check_base(base)?;
    if current > base {
        return Err(MoraleError::AboveBase { current, base });
    }
    if current == base {
        return Err(MoraleError::NothingToRally(base));
    }
    Ok(match officer {
        Some(RallyOfficer {
            rating: OfficerRating::Bad,
            ..
        }) => 2,
        _ => 1,
    })
}

/// Work out a rally from its dice (APSoF VI.E): the unit's die, then the bad
/// officer's die if the officer is bad.
pub fn rally(
    base: u8,
    current: u8,
    officer: Option<RallyOfficer>,
    dice: &[u8],
) -> Result<RallyOutcome, MoraleError> {
    let needed = rally_dice_needed(base, current, officer)?;
    if dice.len() != needed {
        return Err(MoraleError::WrongDiceCount {
            what: "a rally (the unit's die, then a bad officer's die)",
            needed,
            given: dice.len(),
        });
    }
    let die = check_die(dice.first().copied().unwrap_or(0))?;
    let bad_officer_die = dice.get(1).copied().map(check_die).transpose()?;
    let base_modifier = base_morale_modifier(base)?;
    let officer_modifier =
        officer.map_or(0, |o| officer_modifier(o.rating, o.hit, bad_officer_die));
    let modified_roll = i32::from(die) + base_modifier + officer_modifier;
    let morale_change = rally_table(modified_roll);
    let new_morale = clamp_morale(i64::from(current) + i64::from(morale_change), base);
    Ok(RallyOutcome {
        die,
        bad_officer_die,
        base_modifier,
        officer_modifier,
        modified_roll,
        morale_change,
        new_morale,
        must_retreat: current == 0 && new_morale == 0,
    })
}

/// Roll a rally attempt (APSoF VI.E).
pub fn roll_rally(
    source: &mut dyn DiceSource,
    unit: &str,
    base: u8,
    current: u8,
    officer: Option<RallyOfficer>,
) -> Result<RallyOutcome, MoraleError> {
    let needed = rally_dice_needed(base, current, officer)?;
    let mut dice = vec![source.d6(&RollPurpose::new(RollKind::Rally, unit))?];
    if needed == 2 {
        dice.push(source.d6(&RollPurpose::new(RollKind::Rally, unit).with_note("bad officer"))?);
    }
    rally(base, current, officer, &dice)
}

/// Panic dice of a broken, retreating unit (APSoF VI.D.2.iii–iv): one die
/// per full 4 castings (2 crew for artillery). Fewer than 4 castings of
/// infantry or cavalry cause no check at all (`None`); a one-gunner battery
/// has no full pair of crew and also causes none (our reading of iii).
pub fn panic_dice(arm: Arm, castings: u32) -> Option<u32> {
    let per = if arm.is_artillery() { 2 } else { 4 };
    let count = castings / per;
    (count > 0).then_some(count)
}

/// Saving dice of a unit checking (APSoF VI.D.2.v): one per full 4 castings
/// (2 crew), rounded down, with no short die: a single die can never reach
/// 10, so it could not save anything anyway.
pub fn saving_dice(arm: Arm, castings: u32) -> u32 {
    castings / if arm.is_artillery() { 2 } else { 4 }
}

/// A panic check, worked out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PanicOutcome {
    pub panic: u32,
    pub saving: u32,
    pub morale_loss: u32,
}

/// Panic check (APSoF VI.D.2.iv–vi): panic = ⌊broken sum / 7⌋, saving =
/// ⌊checking sum / 10⌋, loss = panic − saving when positive.
pub fn panic_check(broken_sum: u32, checking_sum: u32) -> PanicOutcome {
    let panic = broken_sum / 7;
    let saving = checking_sum / 10;
    PanicOutcome {
        panic,
        saving,
        morale_loss: panic.saturating_sub(saving),
    }
}

/// Whether a unit must check for a broken friend in sight (APSoF VI.D.2.i–iii).
pub fn panic_check_required(
    checking_morale: u8,
    already_checked_for_this_unit: bool,
    broken_arm: Arm,
    broken_castings: u32,
) -> bool {
    checking_morale > 0
        && !already_checked_for_this_unit
        && panic_dice(broken_arm, broken_castings).is_some()
}

/// Contact morale (APSoF VI.D.3): which side lost and how many levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ContactOutcome {
    pub total_a: u32,
    pub total_b: u32,
    /// `Some('a')`/`Some('b')`: the side with the lower total; `None` on a tie.
    pub loser: Option<Side>,
    pub morale_loss: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    A,
    B,
}

/// Dice for castings engaged in contact (APSoF VI.D.3.i): one per full 4,
/// under 4 one die less the shortfall. The text gives no artillery rule
/// here, so crew count like any castings (our reading).
pub fn contact_dice(castings: u32) -> DicePool {
    fire_dice(Arm::Infantry, castings)
}

/// Contact result from the two totals (APSoF VI.D.3.iii–iv): the lower total
/// loses ⌊difference / 3⌋ levels; equal totals lose nothing.
pub fn contact(total_a: u32, total_b: u32) -> ContactOutcome {
    let loser = match total_a.cmp(&total_b) {
        std::cmp::Ordering::Less => Some(Side::A),
        std::cmp::Ordering::Greater => Some(Side::B),
        std::cmp::Ordering::Equal => None,
    };
    ContactOutcome {
        total_a,
        total_b,
        loser,
        morale_loss: total_a.abs_diff(total_b) / 3,
    }
}

/// Morale lost by a double-quick move (APSoF VI.D.4 table, columns by base
/// morale 4, 5, 6). The table is the whole rule: the rally/double modifier
/// is already built into its columns, so it is not added again.
pub fn double_quick_loss(base: u8, roll: u8) -> Result<u8, MoraleError> {
    let roll = check_die(roll)?;
    let column: [u8; 6] = match base {
        4 => [3, 2, 2, 1, 1, 0],
        5 => [2, 2, 1, 1, 0, 0],
        6 => [2, 1, 1, 0, 0, 0],
        other => return Err(MoraleError::NoDoubleQuick(other)),
    };
    Ok(column[usize::from(roll - 1)])
}

/// Whether a unit may move double quick at this combat morale (APSoF I.B.3,
/// VI.F: combat morale 4, 5 or 6).
pub fn may_double_quick(combat_morale: u8) -> bool {
    (4..=6).contains(&combat_morale)
}

/// What a unit loses when it breaks (APSoF VI.C.3–4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BreakLosses {
    /// Castings captured: a third (the text's "33 percent"), rounded down,
    /// when within 1" of enemy castings.
    pub captured: u32,
    /// Artillery in contact loses all its guns as well.
    pub guns_lost: bool,
}

/// Losses of a unit that breaks (APSoF VI.C.3–4).
pub fn losses_on_break(
    arm: Arm,
    castings: u32,
    within_one_inch_of_enemy: bool,
    in_contact: bool,
) -> BreakLosses {
    let close = within_one_inch_of_enemy || in_contact;
    BreakLosses {
        captured: if close { castings / 3 } else { 0 },
        guns_lost: arm.is_artillery() && in_contact,
    }
}

/// APSoF VII.G, optional: the lowest d6 roll on which a unit that lost
/// `levels_lost` morale levels in one morale check from fire loses its
/// regimental command, or `None` when no check is made (a loss of one level
/// or none: "more than 1 morale level").
///
/// The table prints two columns, base morale 5 and 6:
///
/// | levels lost | base 5 | base 6 |
/// | --- | --- | --- |
/// | 2 | 5–6 | 6 |
/// | 3 | 4–6 | 5–6 |
/// | 4 | 3–6 | 4–6 |
/// | 5 | 2–6 | 3–6 |
/// | 6 | 1–6 | 2–6 |
///
/// Our rulings (docs/rulings.md): a loss above 6 reads the 6 row (the row is
/// already certain or nearly so); units of base morale below 5 read the base
/// 5 column, the worse of the two printed, rather than an extrapolation the
/// text does not give.
pub fn command_loss_threshold(levels_lost: u32, base: u8) -> Option<u8> {
    if levels_lost < 2 {
        return None;
    }
    let row = u8::try_from(levels_lost.min(6)).unwrap_or(6);
    let column = if base >= 6 { 8 } else { 7 };
    Some(column - row)
}

/// Whether `roll` loses the regimental command (APSoF VII.G); see
/// [`command_loss_threshold`].
pub fn command_lost(levels_lost: u32, base: u8, roll: u8) -> bool {
    command_loss_threshold(levels_lost, base).is_some_and(|t| roll >= t)
}

/// A unit's base morale once its regimental command is lost (APSoF VII.G:
/// "a single drop in base morale", elite to regular, regular to poor).
/// Poor units keep their base and lose their rally instead (see
/// [`rallies_after_command_loss`]); so, by our ruling, do the classes below
/// poor, which the text does not name.
pub fn base_after_command_loss(base: u8) -> u8 {
    if base >= 5 { base - 1 } else { base }
}

/// Whether a unit whose regimental command is lost may still rally.
/// APSoF VII.G: "Poor grade units that lose their command get a rally rating
/// of 0". Our ruling reads a rally rating of 0 as no rally at all (the
/// penalty the sentence describes; a rally/double *modifier* of 0 would be a
/// gain for a poor unit, whose modifier is −1). Applies to base morale 4 and
/// below once the command is lost; elite and regular units instead drop a
/// class and rally as that class.
pub fn rallies_after_command_loss(base_when_lost: u8) -> bool {
    base_when_lost >= 5
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::ScriptedDice;

    #[test]
    fn vi_b_4_track_is_clamped() {
        assert_eq!(clamp_morale(-3, 5), 0);
        assert_eq!(clamp_morale(9, 5), 5);
        assert_eq!(apply_loss(4, 7, 5), 0);
        assert_eq!(apply_loss(4, 1, 5), 3);
    }

    #[test]
    fn vi_f_base_modifiers() {
        let got: Vec<i32> = (1..=6).map(|b| base_morale_modifier(b).unwrap()).collect();
        assert_eq!(got, vec![-4, -3, -2, -1, 0, 1]);
        assert!(base_morale_modifier(0).is_err());
        assert!(base_morale_modifier(7).is_err());
    }

    #[test]
    fn vi_e_rally_table_edges() {
        let cases = [
            (-5, -2),
            (-3, -2),
            (-2, -1),
            (-1, -1),
            (0, 0),
            (4, 0),
            (5, 1),
            (6, 1),
            (7, 2),
            (8, 2),
            (9, 3),
            (10, 3),
            (11, 4),
            (13, 4),
        ];
        for (roll, change) in cases {
            assert_eq!(rally_table(roll), change, "modified roll {roll}");
        }
    }

    #[test]
    fn vi_e_rally_with_officers() {
        // Regular at 2, die 4, good officer: 4 + 0 + 4 = 8 → +2 → 4.
        let good = Some(RallyOfficer {
            rating: OfficerRating::Good,
            hit: false,
        });
        let r = rally(5, 2, good, &[4]).unwrap();
        assert_eq!((r.modified_roll, r.morale_change, r.new_morale), (8, 2, 4));
        // Elite at 5, hero, die 6: 6 + 1 + 6 = 13 → +4, clamped to 6.
        let hero = Some(RallyOfficer {
            rating: OfficerRating::Hero,
            hit: false,
        });
        let r = rally(6, 5, hero, &[6]).unwrap();
        assert_eq!((r.morale_change, r.new_morale), (4, 6));
        // Hit good officer deducts: 4 + 0 - 4 = 0 → no change.
        let hit = Some(RallyOfficer {
            rating: OfficerRating::Good,
            hit: true,
        });
        assert_eq!(rally(5, 2, hit, &[4]).unwrap().officer_modifier, -4);
        // Rabble at 0, die 1: 1 - 4 = -3 → -2, stays 0 and must retreat.
        let r = rally(1, 0, None, &[1]).unwrap();
        assert_eq!(
            (r.modified_roll, r.morale_change, r.new_morale),
            (-3, -2, 0)
        );
        assert!(r.must_retreat);
    }

    #[test]
    fn vi_e_bad_officer_rolls_his_own_die() {
        let bad = Some(RallyOfficer {
            rating: OfficerRating::Bad,
            hit: false,
        });
        assert_eq!(rally_dice_needed(5, 3, bad).unwrap(), 2);
        assert_eq!(rally(5, 3, bad, &[4, 1]).unwrap().officer_modifier, -2);
        assert_eq!(rally(5, 3, bad, &[4, 3]).unwrap().officer_modifier, 0);
        assert_eq!(rally(5, 3, bad, &[4, 6]).unwrap().officer_modifier, 2);
        assert!(rally(5, 3, bad, &[4]).is_err());
        let bad_hit = Some(RallyOfficer {
            rating: OfficerRating::Bad,
            hit: true,
        });
        assert_eq!(rally(5, 3, bad_hit, &[4, 6]).unwrap().officer_modifier, -2);
        let mut dice = ScriptedDice::new([4, 6]).unwrap();
        let r = roll_rally(&mut dice, "19th Indiana", 5, 3, bad).unwrap();
        assert_eq!(r.bad_officer_die, Some(6));
        assert_eq!(dice.log()[1].purpose.note, "bad officer");
    }

    #[test]
    fn vi_e_rally_refuses_bad_inputs() {
        assert_eq!(
            rally(5, 6, None, &[3]),
            Err(MoraleError::AboveBase {
                current: 6,
                base: 5
            })
        );
        assert_eq!(rally(5, 5, None, &[3]), Err(MoraleError::NothingToRally(5)));
        assert_eq!(rally(5, 3, None, &[0]), Err(MoraleError::BadDie(0)));
    }

    #[test]
    fn vi_d_2_panic() {
        let p = panic_check(20, 25);
        assert_eq!((p.panic, p.saving, p.morale_loss), (2, 2, 0));
        let p = panic_check(21, 9);
        assert_eq!((p.panic, p.saving, p.morale_loss), (3, 0, 3));
        assert_eq!(panic_dice(Arm::Infantry, 3), None);
        assert_eq!(panic_dice(Arm::Infantry, 13), Some(3));
        assert_eq!(panic_dice(Arm::Artillery, 1), None);
        assert_eq!(panic_dice(Arm::Artillery, 5), Some(2));
        assert_eq!(saving_dice(Arm::Infantry, 3), 0);
        assert!(!panic_check_required(0, false, Arm::Infantry, 20));
        assert!(!panic_check_required(4, true, Arm::Infantry, 20));
        assert!(!panic_check_required(4, false, Arm::Cavalry, 3));
        assert!(panic_check_required(6, false, Arm::Infantry, 4));
    }

    #[test]
    fn vi_d_3_contact() {
        let c = contact(10, 17);
        assert_eq!((c.loser, c.morale_loss), (Some(Side::A), 2));
        let c = contact(12, 10);
        assert_eq!((c.loser, c.morale_loss), (Some(Side::B), 0));
        let c = contact(9, 9);
        assert_eq!((c.loser, c.morale_loss), (None, 0));
        assert_eq!(contact_dice(2), DicePool::ShortDie { minus: 2 });
        assert_eq!(contact_dice(9), DicePool::Dice { count: 2 });
    }

    #[test]
    fn vi_d_4_double_quick_table() {
        let col = |base| {
            (1..=6)
                .map(|r| double_quick_loss(base, r).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(col(4), vec![3, 2, 2, 1, 1, 0]);
        assert_eq!(col(5), vec![2, 2, 1, 1, 0, 0]);
        assert_eq!(col(6), vec![2, 1, 1, 0, 0, 0]);
        assert_eq!(double_quick_loss(3, 1), Err(MoraleError::NoDoubleQuick(3)));
        assert_eq!(double_quick_loss(5, 7), Err(MoraleError::BadDie(7)));
        assert!(may_double_quick(4) && !may_double_quick(3));
    }

    #[test]
    fn vi_c_3_4_losses_on_break() {
        assert_eq!(
            losses_on_break(Arm::Infantry, 14, true, false),
            BreakLosses {
                captured: 4,
                guns_lost: false
            }
        );
        assert_eq!(losses_on_break(Arm::Infantry, 14, false, false).captured, 0);
        assert_eq!(losses_on_break(Arm::Infantry, 3, true, false).captured, 1);
        let guns = losses_on_break(Arm::Artillery, 6, true, true);
        assert_eq!((guns.captured, guns.guns_lost), (2, true));
        assert!(!losses_on_break(Arm::Artillery, 6, true, false).guns_lost);
    }

    #[test]
    fn vii_g_command_loss_table() {
        // Rows 2..6, columns base 5 and base 6, as printed.
        let printed = [(2, 5, 6), (3, 4, 5), (4, 3, 4), (5, 2, 3), (6, 1, 2)];
        for (lost, five, six) in printed {
            assert_eq!(
                command_loss_threshold(lost, 5),
                Some(five),
                "lost {lost}, base 5"
            );
            assert_eq!(
                command_loss_threshold(lost, 6),
                Some(six),
                "lost {lost}, base 6"
            );
        }
        assert_eq!(command_loss_threshold(0, 5), None);
        assert_eq!(command_loss_threshold(1, 6), None, "more than 1 level");
        assert_eq!(
            command_loss_threshold(9, 6),
            Some(2),
            "above 6 reads the 6 row"
        );
        assert_eq!(
            command_loss_threshold(3, 4),
            Some(4),
            "poor reads the base 5 column"
        );
        assert!(command_lost(2, 5, 5));
        assert!(!command_lost(2, 5, 4));
        assert!(!command_lost(2, 6, 5));
        assert!(command_lost(6, 5, 1));
    }

    #[test]
    fn vii_g_effects_of_losing_command() {
        assert_eq!(base_after_command_loss(6), 5, "elite becomes regular");
        assert_eq!(base_after_command_loss(5), 4, "regular becomes poor");
        assert_eq!(base_after_command_loss(4), 4, "poor keeps its base");
        assert!(rallies_after_command_loss(6));
        assert!(rallies_after_command_loss(5));
        assert!(!rallies_after_command_loss(4), "rally rating 0");
        assert!(!rallies_after_command_loss(2));
    }
}
