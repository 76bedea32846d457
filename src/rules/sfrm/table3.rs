//! SFRM Table 3, "Officer Casualties", rolled on 2d6, and the capture rule
//! beside it. The transcription lost its minus signs; the penalties here
//! follow `rules/README.md` ("−1 to command and combat abilities" etc.).
//!
//! As a scenario option this table can stand in for APSoF V.H's officer
//! hits; messengers always use it (they are SFRM elements).

use super::table2::{SfrmStats, StatPenalty};
use crate::dice::{DiceError, DiceSource, RollPurpose};
use crate::rules::iron_brigade::state::{Officer, OfficerId};
use serde::{Deserialize, Serialize};

/// Whether and for how long a Table 3 result takes the element off the
/// table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Removal {
    /// Stays in play.
    Stays,
    /// Removed for d6 months with −1 to all statistics on return (3, 11).
    /// A battle lasts a day, so for the battle this is the same as gone; the
    /// months are a campaign matter and are not rolled here.
    ForMonths,
    /// Dead, or dying before the day is out (2, 12).
    Permanently,
}

/// The eleven results of SFRM Table 3, named for what happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CasualtyResult {
    /// 2: mortally wounded in the chest.
    ShotThroughChest,
    /// 3: knee, stretchered off; loses the leg.
    LosesLeg,
    /// 4: thigh wound; stays, −1 command ability and combat value.
    ThighWound,
    /// 5: horse shot; poor remount, −1 command range.
    HorseShot,
    /// 6: a staff officer nearby is hurt; no effect.
    StaffOfficerHit,
    /// 7: shots scatter; no effect.
    ShotsScatter,
    /// 8: a private is hit nearby; no effect.
    PrivateHit,
    /// 9: hit in the arm; −1 combat value.
    ArmWound,
    /// 10: scalp wound; stays, −1 command range and command ability.
    ScalpWound,
    /// 11: shoulder; loses the arm.
    LosesArm,
    /// 12: killed outright.
    Killed,
}

/// One resolved Table 3 roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfficerCasualty {
    /// The 2d6 total, 2..=12.
    pub roll: u8,
    pub result: CasualtyResult,
    pub removal: Removal,
    /// Statistics lost. For [`Removal::ForMonths`] it is what he comes back
    /// with (−1 to all); in play it applies at once.
    pub penalty: StatPenalty,
    /// Results 2–6 capture an element in contact with the enemy and not with
    /// friends (SFRM, text under Table 3).
    pub capture_possible: bool,
}

impl OfficerCasualty {
    /// Whether the element leaves the table (dead, dying or carried off).
    pub fn removed(&self) -> bool {
        self.removal != Removal::Stays
    }

    /// SFRM: results 2–6 with the element in contact with enemy troops and
    /// not in contact with friendly troops mean it is also captured.
    pub fn captured(&self, in_contact_with_enemy: bool, in_contact_with_friends: bool) -> bool {
        self.capture_possible && in_contact_with_enemy && !in_contact_with_friends
    }
}

/// A 2d6 total outside 2..=12.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "officer casualty roll {0} is not a 2d6 total; give the sum of two dice, 2 to 12 (SFRM Table 3)"
)]
pub struct CasualtyRollError(pub u8);

/// SFRM Table 3, with the minus signs the transcription lost put back
/// (rules/README.md).
pub fn table3(roll: u8) -> Result<OfficerCasualty, CasualtyRollError> {
    use CasualtyResult::*;
    let all = StatPenalty {
        command_range: 1,
        command_ability: 1,
        combat_value: 1,
    };
    let none = StatPenalty::default();
    let (result, removal, penalty) = match roll {
        2 => (ShotThroughChest, Removal::Permanently, none),
        3 => (LosesLeg, Removal::ForMonths, all),
        4 => (
            ThighWound,
            Removal::Stays,
            StatPenalty {
                command_ability: 1,
                combat_value: 1,
                ..none
            },
        ),
        5 => (
            HorseShot,
            Removal::Stays,
            StatPenalty {
                command_range: 1,
                ..none
            },
        ),
        6 => (StaffOfficerHit, Removal::Stays, none),
        7 => (ShotsScatter, Removal::Stays, none),
        8 => (PrivateHit, Removal::Stays, none),
        9 => (
            ArmWound,
            Removal::Stays,
            StatPenalty {
                combat_value: 1,
                ..none
            },
        ),
        10 => (
            ScalpWound,
            Removal::Stays,
            StatPenalty {
                command_range: 1,
                command_ability: 1,
                ..none
            },
        ),
        11 => (LosesArm, Removal::ForMonths, all),
        12 => (Killed, Removal::Permanently, none),
        other => return Err(CasualtyRollError(other)),
    };
    Ok(OfficerCasualty {
        roll,
        result,
        removal,
        penalty,
        capture_possible: (2..=6).contains(&roll),
    })
}

/// Table 3 applied to one officer (scenario option beside APSoF V.H).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfficerHit {
    pub officer: OfficerId,
    pub casualty: OfficerCasualty,
    /// His SFRM statistics after the result (Table 2, less earlier and this
    /// result's penalties, never below 1" (1) +1).
    pub stats_after: SfrmStats,
}

/// An officer's Table 3 casualty for `roll` (2d6) on top of the penalties
/// he already carries. The caller applies the removal (his APSoF status:
/// [`Removal::Permanently`] is killed, [`Removal::ForMonths`] wounded) and
/// asks [`OfficerCasualty::captured`] with the contact situation;
/// [`super::DispatchState::officer_hit`] also keeps the penalty.
pub fn officer_casualty(
    roll: u8,
    officer: &Officer,
    penalty_so_far: StatPenalty,
) -> Result<OfficerHit, CasualtyRollError> {
    let casualty = table3(roll)?;
    Ok(OfficerHit {
        officer: officer.id,
        casualty,
        stats_after: SfrmStats::of(officer).less(penalty_so_far.plus(casualty.penalty)),
    })
}

/// Roll 2d6 for Table 3: two logged dice for `purpose`.
pub fn roll_2d6(dice: &mut dyn DiceSource, purpose: &RollPurpose) -> Result<u8, DiceError> {
    let [a, b] = roll_2d6_dice(dice, purpose)?;
    Ok(a + b)
}

/// The two dice of a Table 3 roll, in the order rolled, so the result can
/// be shown with its working (issue #14).
pub fn roll_2d6_dice(
    dice: &mut dyn DiceSource,
    purpose: &RollPurpose,
) -> Result<[u8; 2], DiceError> {
    let a = dice.d6(&purpose
        .clone()
        .with_note(format!("{} (die 1 of 2)", purpose.note)))?;
    let b = dice.d6(&purpose
        .clone()
        .with_note(format!("{} (die 2 of 2)", purpose.note)))?;
    Ok([a, b])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{RollKind, ScriptedDice};

    #[test]
    fn table_3_removals_and_penalties_with_minus_signs_restored() {
        let r = |n| table3(n).unwrap();
        assert_eq!(r(2).removal, Removal::Permanently);
        assert_eq!(r(12).removal, Removal::Permanently);
        assert_eq!(r(3).removal, Removal::ForMonths);
        assert_eq!(r(11).removal, Removal::ForMonths);
        assert_eq!(r(3).penalty.command_ability, 1);
        for n in 4..=10 {
            assert!(!r(n).removed(), "{n}");
        }
        let p4 = r(4).penalty;
        assert_eq!(
            (p4.command_range, p4.command_ability, p4.combat_value),
            (0, 1, 1)
        );
        let p5 = r(5).penalty;
        assert_eq!(
            (p5.command_range, p5.command_ability, p5.combat_value),
            (1, 0, 0)
        );
        for n in 6..=8 {
            assert!(r(n).penalty.is_none(), "{n}");
        }
        let p9 = r(9).penalty;
        assert_eq!(
            (p9.command_range, p9.command_ability, p9.combat_value),
            (0, 0, 1)
        );
        let p10 = r(10).penalty;
        assert_eq!(
            (p10.command_range, p10.command_ability, p10.combat_value),
            (1, 1, 0)
        );
    }

    #[test]
    fn table_3_capture_only_on_2_to_6_in_enemy_contact_without_friends() {
        for n in 2..=12u8 {
            let c = table3(n).unwrap();
            assert_eq!(c.captured(true, false), n <= 6, "{n}");
            assert!(!c.captured(true, true), "{n}");
            assert!(!c.captured(false, false), "{n}");
        }
    }

    #[test]
    fn table_3_refuses_impossible_totals() {
        assert_eq!(table3(1), Err(CasualtyRollError(1)));
        let e = table3(13).unwrap_err();
        assert!(e.to_string().contains("2 to 12"), "{e}");
    }

    #[test]
    fn two_dice_are_summed_and_logged() {
        let mut d = ScriptedDice::new([2, 5]).unwrap();
        let p = RollPurpose::new(RollKind::Other, "messenger 1").with_note("SFRM Table 3");
        assert_eq!(roll_2d6(&mut d, &p).unwrap(), 7);
        assert_eq!(d.log().len(), 2);
        assert!(d.log()[1].purpose.note.contains("die 2 of 2"));
    }
}
