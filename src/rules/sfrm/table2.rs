//! SFRM Table 2, "General Officer Statistics": command range, command
//! ability and combat value by level and class.
//!
//! Command ability is, among other things, the d6 score a general must roll
//! equal to or under to read each dispatch he holds (SFRM "Command", iii).

use crate::rules::iron_brigade::kinds::{CommandClass, OfficerLevel};
use crate::rules::iron_brigade::state::Officer;
use serde::{Deserialize, Serialize};

/// One general's SFRM statistics: `range" (ability) + combat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SfrmStats {
    /// Command range in SFRM inches (1" = 100 yd).
    pub command_range: u8,
    pub command_ability: u8,
    pub combat_value: u8,
}

/// Losses to an officer's statistics from SFRM Table 3 results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StatPenalty {
    pub command_range: u8,
    pub command_ability: u8,
    pub combat_value: u8,
}

impl StatPenalty {
    pub fn is_none(&self) -> bool {
        *self == StatPenalty::default()
    }

    /// Two penalties together, saturating rather than overflowing.
    pub fn plus(self, other: StatPenalty) -> StatPenalty {
        StatPenalty {
            command_range: self.command_range.saturating_add(other.command_range),
            command_ability: self.command_ability.saturating_add(other.command_ability),
            combat_value: self.combat_value.saturating_add(other.combat_value),
        }
    }
}

/// SFRM minimum statistics for any general at any time: 1" (1) +1.
pub const MINIMUM: SfrmStats = SfrmStats {
    command_range: 1,
    command_ability: 1,
    combat_value: 1,
};

impl SfrmStats {
    /// SFRM Table 2 for divisional, corps and army generals.
    ///
    /// Table 2 has no brigade row: SFRM's smallest general is divisional.
    /// Our ruling for an APSoF brigade officer: the divisional row of his
    /// class less one on each statistic, never below the minimum 1" (1) +1 —
    /// SFRM's own rule for a brigade officer promoted to replace a
    /// divisional general ("Promotions from a brigade start as 1 lower on
    /// each statistic"). So brigade inferior 1"(1)+1, regular 3"(1)+1,
    /// superior 5"(2)+2.
    pub fn table2(level: OfficerLevel, class: CommandClass) -> SfrmStats {
        use CommandClass::*;
        use OfficerLevel::*;
        let (command_range, command_ability, combat_value) = match (level, class) {
            (Division, Inferior) => (2, 1, 1),
            (Division, Regular) => (4, 2, 2),
            (Division, Superior) => (6, 3, 3),
            (Corps, Inferior) => (8, 2, 1),
            (Corps, Regular) => (10, 3, 1),
            (Corps, Superior) => (12, 4, 2),
            (Army, Inferior) => (14, 3, 1),
            (Army, Regular) => (16, 4, 1),
            (Army, Superior) => (18, 5, 1),
            (Brigade, c) => {
                let d = SfrmStats::table2(Division, c);
                return d.less(StatPenalty {
                    command_range: 1,
                    command_ability: 1,
                    combat_value: 1,
                });
            }
        };
        SfrmStats {
            command_range,
            command_ability,
            combat_value,
        }
    }

    /// An officer's Table 2 statistics from his level and command class.
    pub fn of(officer: &Officer) -> SfrmStats {
        SfrmStats::table2(officer.level, officer.command_class)
    }

    /// Statistics after a penalty, never below the SFRM minimum 1" (1) +1.
    pub fn less(self, p: StatPenalty) -> SfrmStats {
        SfrmStats {
            command_range: self
                .command_range
                .saturating_sub(p.command_range)
                .max(MINIMUM.command_range),
            command_ability: self
                .command_ability
                .saturating_sub(p.command_ability)
                .max(MINIMUM.command_ability),
            combat_value: self
                .combat_value
                .saturating_sub(p.combat_value)
                .max(MINIMUM.combat_value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ability(level: OfficerLevel, class: CommandClass) -> u8 {
        SfrmStats::table2(level, class).command_ability
    }

    #[test]
    fn table_2_command_ability_by_level_and_class() {
        use CommandClass::*;
        use OfficerLevel::*;
        let rows = [(Division, [1, 2, 3]), (Corps, [2, 3, 4]), (Army, [3, 4, 5])];
        for (level, abilities) in rows {
            for (class, want) in [Inferior, Regular, Superior].into_iter().zip(abilities) {
                assert_eq!(ability(level, class), want, "{level} {class}");
            }
        }
    }

    #[test]
    fn table_2_full_rows() {
        use CommandClass::*;
        use OfficerLevel::*;
        let s = SfrmStats::table2(Corps, Superior);
        assert_eq!(
            (s.command_range, s.command_ability, s.combat_value),
            (12, 4, 2)
        );
        let s = SfrmStats::table2(Division, Superior);
        assert_eq!(
            (s.command_range, s.command_ability, s.combat_value),
            (6, 3, 3)
        );
    }

    #[test]
    fn brigade_is_divisional_less_one_floored_at_the_minimum() {
        use CommandClass::*;
        use OfficerLevel::*;
        assert_eq!(SfrmStats::table2(Brigade, Inferior), MINIMUM);
        let r = SfrmStats::table2(Brigade, Regular);
        assert_eq!(
            (r.command_range, r.command_ability, r.combat_value),
            (3, 1, 1)
        );
        let s = SfrmStats::table2(Brigade, Superior);
        assert_eq!(
            (s.command_range, s.command_ability, s.combat_value),
            (5, 2, 2)
        );
    }

    #[test]
    fn penalties_never_take_a_general_below_the_minimum() {
        let p = StatPenalty {
            command_range: 30,
            command_ability: 9,
            combat_value: 9,
        };
        assert_eq!(
            SfrmStats::table2(OfficerLevel::Army, CommandClass::Superior).less(p),
            MINIMUM
        );
    }
}
