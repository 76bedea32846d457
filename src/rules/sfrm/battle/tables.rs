//! SFRM's tables as data, with exact lookups: Table 1's scale, Table 2 for
//! the brigade-scale generals, Tables 4–9. Each lookup cites its table;
//! the damaged cells and our readings of them are in docs/rulings-sfrm.md
//! ("Brigade scale").

use super::super::table2::SfrmStats;
use super::nouns::{Arm, Formation, Gun, Quality, Rank, Season, Side, SmallArm, Unit, Weather};
use super::nouns::{General, SfrmBattle};
use crate::dice::{DiceError, DiceSource, RollKind, RollPurpose};
use serde::{Deserialize, Serialize};

/// SFRM "Scale & Game Play": 1 turn = 30 minutes.
pub const TURN_MINUTES: u32 = 30;
/// SFRM "Scale & Game Play": 1" = 100 yards.
pub const YARDS_PER_INCH: u32 = 100;
/// SFRM "Scale & Game Play": 18" = 1 mile.
pub const INCHES_PER_MILE: u32 = 18;

/// SFRM Table 2, "General Officer Statistics": `range" (ability) +
/// combat` for divisional, corps and army generals.
pub fn table2(rank: Rank, quality: Quality) -> SfrmStats {
    // One encoding of the table: the messenger rules' (`sfrm::table2`),
    // whose levels and classes are these ranks and qualities.
    use crate::rules::iron_brigade::kinds::{CommandClass, OfficerLevel};
    let level = match rank {
        Rank::Division => OfficerLevel::Division,
        Rank::Corps => OfficerLevel::Corps,
        Rank::Army => OfficerLevel::Army,
    };
    let class = match quality {
        Quality::Inferior => CommandClass::Inferior,
        Quality::Regular => CommandClass::Regular,
        Quality::Superior => CommandClass::Superior,
    };
    SfrmStats::table2(level, class)
}

/// SFRM Table 1, "Basing Scales": the front of one of the unit's element
/// bases, in inches.
pub fn base_front(unit: &Unit) -> f64 {
    match unit.arm {
        Arm::Infantry { .. } => 0.75,
        Arm::Cavalry { .. } if unit.mounted => 1.5,
        Arm::Cavalry { .. } => 0.75,
        Arm::Artillery { .. } | Arm::Supply => 1.0,
    }
}

/// SFRM Table 1, "Basing Scales": the front of a general's base: army 2",
/// corps 1½", divisional 1".
pub fn general_base_front(rank: Rank) -> f64 {
    match rank {
        Rank::Army => 2.0,
        Rank::Corps => 1.5,
        Rank::Division => 1.0,
    }
}

/// SFRM "Supply": a supply train is in supply within 4 miles (72") by road
/// of a supply source or an in supply train.
pub const SUPPLY_BY_ROAD_INCHES: f64 = 72.0;
/// SFRM "Supply": other units are in supply within 2 miles (36") of an in
/// supply train.
pub const SUPPLY_RADIUS_INCHES: f64 = 36.0;

/// The rows of SFRM Table 4, "Movement Rates".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveClass {
    GeneralOrMessenger,
    /// Infantry or dismounted cavalry.
    Foot,
    MountedCavalry,
    /// Horse artillery or Gatling guns.
    HorseArtillery,
    FieldArtillery,
    SiegeArtillery,
    Supply,
}

/// One row of SFRM Table 4, in inches per turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRates {
    /// March column or limbered, on road for the whole move.
    pub column_road: u32,
    /// March column or limbered, off road.
    pub column_off_road: u32,
    /// Line or unlimbered.
    pub line: u32,
    /// Terrain/manoeuvre modifier: each inch counts this many; `None` is
    /// the table's "-" (supply).
    pub modifier: Option<u32>,
}

/// SFRM Table 4, "Movement Rates".
pub fn table4(class: MoveClass) -> MoveRates {
    let (column_road, column_off_road, line, modifier) = match class {
        MoveClass::GeneralOrMessenger => (36, 36, 36, Some(1)),
        MoveClass::Foot => (24, 16, 8, Some(2)),
        MoveClass::MountedCavalry => (36, 24, 18, Some(3)),
        MoveClass::HorseArtillery => (36, 12, 0, Some(4)),
        MoveClass::FieldArtillery => (24, 8, 0, Some(4)),
        MoveClass::SiegeArtillery => (12, 4, 0, Some(4)),
        MoveClass::Supply => (24, 0, 0, None),
    };
    MoveRates {
        column_road,
        column_off_road,
        line,
        modifier,
    }
}

/// Which Table 4 row a unit moves on.
pub fn move_class(unit: &Unit) -> MoveClass {
    match unit.arm {
        Arm::Infantry { .. } => MoveClass::Foot,
        Arm::Cavalry { .. } if unit.mounted => MoveClass::MountedCavalry,
        Arm::Cavalry { .. } => MoveClass::Foot,
        Arm::Artillery {
            gun: Gun::Gatling | Gun::SixPounder,
        } => MoveClass::HorseArtillery,
        Arm::Artillery {
            gun: Gun::TwelvePounder | Gun::TenPounderRifled,
        } => MoveClass::FieldArtillery,
        Arm::Artillery {
            gun: Gun::TwentyPounderSiege,
        } => MoveClass::SiegeArtillery,
        Arm::Supply => MoveClass::Supply,
    }
}

/// SFRM Table 4: a unit's allowance in its formation, before weather and
/// night. `on_road` only counts in march column or limbered.
pub fn move_allowance(unit: &Unit, on_road: bool) -> u32 {
    let r = table4(move_class(unit));
    match unit.formation {
        Formation::MarchColumn if on_road => r.column_road,
        Formation::MarchColumn => r.column_off_road,
        _ => r.line,
    }
}

/// A result of SFRM Table 5, "Seeing The Elephant".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "result")]
pub enum GreenResult {
    Becomes {
        quality: Quality,
    },
    /// 7: does not fire, routs, and stays green.
    RoutAndRemainGreen,
}

/// A 2d6 total outside 2..=12.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{table} roll {roll} is not a 2d6 total; give the sum of two dice, 2 to 12")]
pub struct TwoDiceError {
    pub table: &'static str,
    pub roll: u8,
}

/// SFRM Table 5, "Seeing The Elephant", on 2d6.
pub fn table5(roll: u8, side: Side) -> Result<GreenResult, TwoDiceError> {
    use Quality::*;
    let q = |quality| Ok(GreenResult::Becomes { quality });
    match (roll, side) {
        (2 | 3, _) => q(Inferior),
        (4, Side::Union) => q(Inferior),
        (4, Side::Confederate) => q(Regular),
        (5 | 6 | 8 | 9, _) => q(Regular),
        (7, _) => Ok(GreenResult::RoutAndRemainGreen),
        (10, Side::Union) => q(Regular),
        (10, Side::Confederate) => q(Superior),
        (11 | 12, _) => q(Superior),
        _ => Err(TwoDiceError {
            table: "SFRM Table 5",
            roll,
        }),
    }
}

/// SFRM Table 6: the basic combat value (3 "canister", 2 "shell", 1
/// "shot") of one element with `weapon` at `range` inches, or `None` out of
/// range. "Value n up to range r": a range equal to r still counts.
pub fn table6_small_arm(weapon: SmallArm, range: f64) -> Option<u32> {
    (range <= table6_small_arm_reach(weapon)).then_some(1)
}

/// SFRM Table 6: how far a small arm reaches, in inches (small arms 0",
/// muskets and carbines 1", rifles and repeaters 2").
pub fn table6_small_arm_reach(weapon: SmallArm) -> f64 {
    match weapon {
        SmallArm::SmallArms => 0.0,
        SmallArm::Muskets | SmallArm::Carbines => 1.0,
        SmallArm::Rifles | SmallArm::Repeaters => 2.0,
    }
}

/// SFRM Table 6 bands of a gun: (canister, shell, shot) reach in inches;
/// `None` is the table's "-".
pub fn table6_bands(gun: Gun) -> (f64, f64, Option<f64>) {
    match gun {
        Gun::Gatling => (1.0, 3.0, Some(6.0)),
        Gun::SixPounder => (2.0, 6.0, Some(12.0)),
        Gun::TwelvePounder => (3.0, 9.0, Some(18.0)),
        Gun::TenPounderRifled => (2.0, 18.0, Some(36.0)),
        Gun::TwentyPounderSiege => (3.0, 36.0, None),
    }
}

/// SFRM Table 6 for an artillery element at `range` inches.
pub fn table6_gun(gun: Gun, range: f64) -> Option<u32> {
    let (canister, shell, shot) = table6_bands(gun);
    if range <= canister {
        Some(3)
    } else if range <= shell {
        Some(2)
    } else if shot.is_some_and(|s| range <= s) {
        Some(1)
    } else {
        None
    }
}

/// The lines of SFRM Table 7, "Firing and Situation Modifiers", each worth
/// its column's number of elements (-2, -1, +1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Table7 {
    FirerProne,
    /// Per out of supply counter.
    FirerOutOfSupply,
    FirerInSnow,
    FirerInferior,
    /// Per full level of fatigue.
    FirerFatigued,
    FirerInRain,
    FirerInColumnSquareOrSkirmishing,
    FirerFording,
    FirerSuperior,
    ConfederateInfantryOrCavalry,
    UnionArtillery,
    FirerSharpshootersOrRepeaters,
    TargetSkirmishing,
    TargetArtillery,
    TargetInCoverOrDeployedInTown,
    /// Per level of entrenchment.
    TargetInFortifications,
    TargetProne,
    TargetUphill,
    TargetMountedCavalry,
    TargetInColumnOrSquare,
}

impl Table7 {
    /// SFRM Table 7: the column the line stands in.
    pub fn value(self) -> i32 {
        use Table7::*;
        match self {
            FirerProne | FirerOutOfSupply | FirerInSnow | TargetSkirmishing => -2,
            FirerInferior
            | FirerFatigued
            | FirerInRain
            | FirerInColumnSquareOrSkirmishing
            | FirerFording
            | TargetArtillery
            | TargetInCoverOrDeployedInTown
            | TargetInFortifications
            | TargetProne
            | TargetUphill => -1,
            FirerSuperior
            | ConfederateInfantryOrCavalry
            | UnionArtillery
            | FirerSharpshootersOrRepeaters
            | TargetMountedCavalry
            | TargetInColumnOrSquare => 1,
        }
    }

    pub fn text(self) -> &'static str {
        use Table7::*;
        match self {
            FirerProne => "firing unit prone",
            FirerOutOfSupply => "firing unit out of supply (per counter)",
            FirerInSnow => "firing unit in snow",
            FirerInferior => "firing unit inferior",
            FirerFatigued => "firing unit fatigued (per full level)",
            FirerInRain => "firing unit in rain",
            FirerInColumnSquareOrSkirmishing => {
                "firing unit in march column or square, or skirmishing"
            }
            FirerFording => "firing unit fording a river",
            FirerSuperior => "firing unit superior",
            ConfederateInfantryOrCavalry => "Confederate infantry or cavalry",
            UnionArtillery => "Union artillery",
            FirerSharpshootersOrRepeaters => "sharpshooters or repeating rifles",
            TargetSkirmishing => "target skirmishing",
            TargetArtillery => "target artillery",
            TargetInCoverOrDeployedInTown => "target in cover or deployed in town",
            TargetInFortifications => "target in fortifications (per level)",
            TargetProne => "target prone",
            TargetUphill => "target uphill",
            TargetMountedCavalry => "target mounted cavalry",
            TargetInColumnOrSquare => "target in march column or square",
        }
    }
}

/// SFRM "Time, Weather & Daylight": the season of a month (1–12).
pub fn season_of_month(month: u8) -> Option<Season> {
    match month {
        3..=5 => Some(Season::Spring),
        6..=8 => Some(Season::Summer),
        9..=11 => Some(Season::Fall),
        12 | 1 | 2 => Some(Season::Winter),
        _ => None,
    }
}

/// A die roll outside 1..=6.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{table} roll {roll} is not a die roll; give 1 to 6")]
pub struct DieError {
    pub table: &'static str,
    pub roll: u8,
}

/// SFRM Table 8, "Weather Determination": one die for the day's weather.
pub fn table8(roll: u8, season: Season) -> Result<Weather, DieError> {
    use Season::*;
    use Weather::*;
    let w = match (roll, season) {
        (1 | 2, _) => Clear,
        (3, Winter) => Cold,
        (3, _) => Clear,
        (4, Spring) => Cold,
        (4, Summer) => Clear,
        (4, Fall) => Hot,
        (4, Winter) => Cold,
        (5, Spring | Winter) => Rain,
        (5, Summer) => Hot,
        (5, Fall) => Cold,
        (6, Winter) => Snow,
        (6, _) => Rain,
        _ => {
            return Err(DieError {
                table: "SFRM Table 8",
                roll,
            });
        }
    };
    Ok(w)
}

/// SFRM Table 8: roll the day's weather.
pub fn roll_weather(season: Season, dice: &mut dyn DiceSource) -> Result<Weather, DiceError> {
    let roll =
        dice.d6(&RollPurpose::new(RollKind::SfrmWeather, "the day").with_note("SFRM Table 8"))?;
    // A d6 is 1..=6, so the lookup always succeeds; Clear is unreachable.
    Ok(table8(roll, season).unwrap_or(Weather::Clear))
}

/// SFRM "Time, Weather & Daylight": "roll 2 dice to randomly determine
/// the month of the year": the total is the month (2 = February … 12 =
/// December; January cannot come up, our reading).
pub fn roll_month(dice: &mut dyn DiceSource) -> Result<u8, DiceError> {
    let p = RollPurpose::new(RollKind::SfrmWeather, "the month").with_note("SFRM Time: 2 dice");
    Ok(dice.d6(&p)? + dice.d6(&p)?)
}

/// SFRM "Time, Weather & Daylight": "roll 1 die and add 1860 … rerolling
/// inappropriate years": the war ran from April 1861 to April 1865, so 6
/// (1866) is rolled again; a month before April in 1861 or after April in
/// 1865 is inappropriate too, and the year is rolled again.
pub fn roll_year(month: u8, dice: &mut dyn DiceSource) -> Result<u16, DiceError> {
    let p =
        RollPurpose::new(RollKind::SfrmWeather, "the year").with_note("SFRM Time: 1 die + 1860");
    loop {
        let year = 1860 + u16::from(dice.d6(&p)?);
        let fits = match year {
            1861 => month >= 4,
            1862..=1864 => true,
            1865 => month <= 4,
            _ => false,
        };
        if fits {
            return Ok(year);
        }
    }
}

/// SFRM "Time, Weather & Daylight": "roll two dice to randomly determine
/// the number of half hours (turns) after dawn that battle is joined":
/// the minute the first turn starts.
pub fn roll_start(season: Season, dice: &mut dyn DiceSource) -> Result<u32, DiceError> {
    let p = RollPurpose::new(RollKind::SfrmWeather, "the start")
        .with_note("SFRM Time: 2 dice of half hours after dawn");
    let n = dice.d6(&p)? + dice.d6(&p)?;
    Ok(start_minute(season, u32::from(n)))
}

/// SFRM Table 8 notes: what the weather does to movement, as a fraction
/// (numerator, denominator): cold and rain halve, snow quarters.
pub fn weather_movement(weather: Weather) -> (u32, u32) {
    match weather {
        Weather::Cold | Weather::Rain => (1, 2),
        Weather::Snow => (1, 4),
        Weather::Clear | Weather::Hot => (1, 1),
    }
}

/// SFRM Table 8 notes: what the weather does to sight: rain halves, snow
/// quarters.
pub fn weather_sight(weather: Weather) -> (u32, u32) {
    match weather {
        Weather::Rain => (1, 2),
        Weather::Snow => (1, 4),
        _ => (1, 1),
    }
}

/// SFRM "Time, Weather & Daylight": daytime by season, minutes after
/// midnight, `[start, end)`: summer 5am–7pm, spring and fall 6am–6pm,
/// winter 7am–5pm.
pub fn daytime(season: Season) -> (u32, u32) {
    match season {
        Season::Summer => (5 * 60, 19 * 60),
        Season::Spring | Season::Fall => (6 * 60, 18 * 60),
        Season::Winter => (7 * 60, 17 * 60),
    }
}

/// Light for a turn ("Time, Weather & Daylight").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "light")]
pub enum Light {
    Day,
    /// Dawn or dusk: fought in at this combat modifier (-1 the turn next
    /// to daytime, -2 the turn beyond it).
    Twilight {
        modifier: i32,
    },
    /// No combat, movement halved, no closer to known enemy.
    Night,
}

/// SFRM "Time, Weather & Daylight": the light of the turn starting at
/// `minute` (after midnight, may run past 24h) in `season`. An hour of
/// dawn before daytime and of dusk after it, two 30-minute turns each.
pub fn light(minute: u32, season: Season) -> Light {
    let m = minute % (24 * 60);
    let (start, end) = daytime(season);
    let hour = 60;
    if (start..end).contains(&m) {
        Light::Day
    } else if (start - TURN_MINUTES..start).contains(&m) || (end..end + TURN_MINUTES).contains(&m) {
        Light::Twilight { modifier: -1 }
    } else if (start - hour..start).contains(&m) || (end..end + hour).contains(&m) {
        Light::Twilight { modifier: -2 }
    } else {
        Light::Night
    }
}

/// SFRM "Time, Weather & Daylight": the battle starts `half_hours` turns
/// (two dice, if rolled) after dawn begins.
pub fn start_minute(season: Season, half_hours: u32) -> u32 {
    daytime(season).0 - 60 + half_hours * TURN_MINUTES
}

/// SFRM Table 9: cost of a general per cavalry figure on his base.
/// `None` is a green or unknown general.
pub fn table9_general_per_figure(quality: Option<Quality>) -> u32 {
    match quality {
        Some(Quality::Inferior) => 10,
        None | Some(Quality::Regular) => 40,
        Some(Quality::Superior) => 90,
    }
}

/// SFRM Table 9: cost of an artillery element.
pub fn table9_gun(gun: Gun) -> u32 {
    match gun {
        Gun::SixPounder => 40,
        Gun::TwelvePounder => 60,
        Gun::TenPounderRifled => 120,
        Gun::TwentyPounderSiege => 180,
        Gun::Gatling => 20,
    }
}

/// SFRM Table 9: cost of a supply train.
pub const TABLE9_SUPPLY: u32 = 120;

/// Why an element has no Table 9 price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "kebab-case")]
pub enum PriceError {
    /// The table has no column for this side, arm and weapon.
    #[error("SFRM Table 9 offers no such element (that side and arm do not carry that weapon)")]
    NotOffered,
    /// The cell is lost in the transcription (Confederate regular cavalry
    /// with small arms).
    #[error(
        "SFRM Table 9's price for this element is lost in the transcription; the umpire must set it"
    )]
    Illegible,
}

/// SFRM Table 9: cost per element of infantry or cavalry. `quality` `None`
/// is green.
pub fn table9_element(
    side: Side,
    cavalry: bool,
    weapon: SmallArm,
    quality: Option<Quality>,
) -> Result<u32, PriceError> {
    use Quality::*;
    use SmallArm::*;
    // Row index: inferior, green, regular, superior (the table's order).
    let row = match quality {
        Some(Inferior) => 0,
        None => 1,
        Some(Regular) => 2,
        Some(Superior) => 3,
    };
    let col: [Option<u32>; 4] = match (side, cavalry, weapon) {
        (Side::Union, false, Muskets) => [Some(4), Some(7), Some(8), Some(13)],
        (Side::Union, false, Rifles) => [Some(5), Some(8), Some(10), Some(15)],
        (Side::Union, false, Repeaters) => [Some(6), Some(9), Some(12), Some(18)],
        (Side::Union, true, SmallArms) => [Some(5), Some(8), Some(10), Some(15)],
        (Side::Union, true, Carbines) => [Some(8), Some(13), Some(17), Some(25)],
        (Side::Union, true, Repeaters) => [Some(12), Some(18), Some(25), Some(35)],
        (Side::Confederate, false, Muskets) => [Some(5), Some(9), Some(10), Some(15)],
        (Side::Confederate, false, Rifles) => [Some(6), Some(10), Some(12), Some(18)],
        (Side::Confederate, true, SmallArms) => [Some(6), Some(10), None, Some(18)],
        (Side::Confederate, true, Carbines) => [Some(10), Some(17), Some(19), Some(29)],
        _ => return Err(PriceError::NotOffered),
    };
    col[row].ok_or(PriceError::Illegible)
}

/// One side's SFRM Table 9 cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideCost {
    pub side: Side,
    pub points: u32,
    /// Units left out of `points`, with why.
    pub unpriced: Vec<(String, PriceError)>,
}

/// SFRM Table 9 ("Army Costing System"): each side's cost. Generals per
/// figure (Table 1's figures), artillery and supply per element, infantry
/// and cavalry per element by side, weapon and quality (green units at the
/// green row); messengers cost nothing.
pub fn army_cost(battle: &SfrmBattle) -> Vec<SideCost> {
    [Side::Union, Side::Confederate]
        .into_iter()
        .map(|side| {
            let mut points: u32 = 0;
            let mut unpriced = Vec::new();
            for g in battle.generals.iter().filter(|g| g.side == side) {
                points = points.saturating_add(general_cost(g));
            }
            for u in battle.units.iter().filter(|u| u.side == side) {
                let price = match u.arm {
                    Arm::Infantry { weapon } => table9_element(side, false, weapon, u.quality),
                    Arm::Cavalry { weapon } => table9_element(side, true, weapon, u.quality),
                    Arm::Artillery { gun } => Ok(table9_gun(gun)),
                    Arm::Supply => Ok(TABLE9_SUPPLY),
                };
                match price {
                    Ok(p) => points = points.saturating_add(p.saturating_mul(u.elements)),
                    Err(e) => unpriced.push((u.name.clone(), e)),
                }
            }
            SideCost {
                side,
                points,
                unpriced,
            }
        })
        .collect()
}

/// SFRM Table 9: a general's cost, his rank's figures times the price per
/// figure of his quality.
pub fn general_cost(g: &General) -> u32 {
    g.rank.figures() * table9_general_per_figure(Some(g.quality))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sfrm_table_2_brigade_scale_generals() {
        let s = table2(Rank::Division, Quality::Superior);
        assert_eq!(
            (s.command_range, s.command_ability, s.combat_value),
            (6, 3, 3)
        );
        let s = table2(Rank::Corps, Quality::Inferior);
        assert_eq!(
            (s.command_range, s.command_ability, s.combat_value),
            (8, 2, 1)
        );
        let s = table2(Rank::Army, Quality::Superior);
        assert_eq!(
            (s.command_range, s.command_ability, s.combat_value),
            (18, 5, 1)
        );
        // Agrees with the messenger rules' Table 2 on every shared row.
        use crate::rules::iron_brigade::kinds::{CommandClass, OfficerLevel};
        for (r, l) in [
            (Rank::Division, OfficerLevel::Division),
            (Rank::Corps, OfficerLevel::Corps),
            (Rank::Army, OfficerLevel::Army),
        ] {
            for (q, c) in [
                (Quality::Inferior, CommandClass::Inferior),
                (Quality::Regular, CommandClass::Regular),
                (Quality::Superior, CommandClass::Superior),
            ] {
                assert_eq!(table2(r, q), SfrmStats::table2(l, c));
            }
        }
    }

    #[test]
    fn sfrm_table_4_movement_rates_as_printed() {
        let rows = [
            (MoveClass::GeneralOrMessenger, (36, 36, 36, Some(1))),
            (MoveClass::Foot, (24, 16, 8, Some(2))),
            (MoveClass::MountedCavalry, (36, 24, 18, Some(3))),
            (MoveClass::HorseArtillery, (36, 12, 0, Some(4))),
            (MoveClass::FieldArtillery, (24, 8, 0, Some(4))),
            (MoveClass::SiegeArtillery, (12, 4, 0, Some(4))),
            (MoveClass::Supply, (24, 0, 0, None)),
        ];
        for (class, (a, b, c, m)) in rows {
            assert_eq!(
                table4(class),
                MoveRates {
                    column_road: a,
                    column_off_road: b,
                    line: c,
                    modifier: m
                },
                "{class:?}"
            );
        }
    }

    #[test]
    fn sfrm_table_5_seeing_the_elephant_by_side() {
        use GreenResult::*;
        use Quality::*;
        let b = |quality| Becomes { quality };
        let union = [
            b(Inferior),
            b(Inferior),
            b(Inferior),
            b(Regular),
            b(Regular),
            RoutAndRemainGreen,
            b(Regular),
            b(Regular),
            b(Regular),
            b(Superior),
            b(Superior),
        ];
        let confed = [
            b(Inferior),
            b(Inferior),
            b(Regular),
            b(Regular),
            b(Regular),
            RoutAndRemainGreen,
            b(Regular),
            b(Regular),
            b(Superior),
            b(Superior),
            b(Superior),
        ];
        for roll in 2..=12u8 {
            let i = usize::from(roll - 2);
            assert_eq!(table5(roll, Side::Union).unwrap(), union[i], "{roll}");
            assert_eq!(
                table5(roll, Side::Confederate).unwrap(),
                confed[i],
                "{roll}"
            );
        }
        assert!(table5(1, Side::Union).is_err());
        assert!(table5(13, Side::Union).is_err());
    }

    #[test]
    fn sfrm_table_6_values_by_range_band() {
        assert_eq!(table6_small_arm(SmallArm::SmallArms, 0.0), Some(1));
        assert_eq!(table6_small_arm(SmallArm::SmallArms, 0.5), None);
        assert_eq!(table6_small_arm(SmallArm::Muskets, 1.0), Some(1));
        assert_eq!(table6_small_arm(SmallArm::Carbines, 1.01), None);
        assert_eq!(table6_small_arm(SmallArm::Rifles, 2.0), Some(1));
        assert_eq!(table6_small_arm(SmallArm::Repeaters, 2.5), None);
        let g = |gun, r| table6_gun(gun, r);
        assert_eq!(
            [1.0, 3.0, 6.0, 6.5].map(|r| g(Gun::Gatling, r)),
            [Some(3), Some(2), Some(1), None]
        );
        assert_eq!(
            [2.0, 6.0, 12.0, 13.0].map(|r| g(Gun::SixPounder, r)),
            [Some(3), Some(2), Some(1), None]
        );
        assert_eq!(
            [3.0, 9.0, 18.0, 19.0].map(|r| g(Gun::TwelvePounder, r)),
            [Some(3), Some(2), Some(1), None]
        );
        assert_eq!(
            [2.0, 18.0, 36.0, 37.0].map(|r| g(Gun::TenPounderRifled, r)),
            [Some(3), Some(2), Some(1), None]
        );
        assert_eq!(
            [3.0, 36.0, 36.5].map(|r| g(Gun::TwentyPounderSiege, r)),
            [Some(3), Some(2), None]
        );
    }

    #[test]
    fn sfrm_table_7_columns() {
        use Table7::*;
        for m in [FirerProne, FirerOutOfSupply, FirerInSnow, TargetSkirmishing] {
            assert_eq!(m.value(), -2, "{m:?}");
        }
        for m in [
            FirerInferior,
            FirerFatigued,
            FirerInRain,
            FirerInColumnSquareOrSkirmishing,
            FirerFording,
            TargetArtillery,
            TargetInCoverOrDeployedInTown,
            TargetInFortifications,
            TargetProne,
            TargetUphill,
        ] {
            assert_eq!(m.value(), -1, "{m:?}");
        }
        for m in [
            FirerSuperior,
            ConfederateInfantryOrCavalry,
            UnionArtillery,
            FirerSharpshootersOrRepeaters,
            TargetMountedCavalry,
            TargetInColumnOrSquare,
        ] {
            assert_eq!(m.value(), 1, "{m:?}");
        }
    }

    #[test]
    fn sfrm_table_8_weather_by_season() {
        use Weather::*;
        let col = |s| (1..=6u8).map(|r| table8(r, s).unwrap()).collect::<Vec<_>>();
        assert_eq!(col(Season::Spring), [Clear, Clear, Clear, Cold, Rain, Rain]);
        assert_eq!(col(Season::Summer), [Clear, Clear, Clear, Clear, Hot, Rain]);
        assert_eq!(col(Season::Fall), [Clear, Clear, Clear, Hot, Cold, Rain]);
        assert_eq!(col(Season::Winter), [Clear, Clear, Cold, Cold, Rain, Snow]);
        assert!(table8(0, Season::Fall).is_err());
        assert_eq!(season_of_month(7), Some(Season::Summer));
        assert_eq!(season_of_month(12), Some(Season::Winter));
        assert_eq!(season_of_month(9), Some(Season::Fall));
        assert_eq!(season_of_month(13), None);
    }

    #[test]
    fn sfrm_time_weather_daylight_dawn_and_dusk() {
        // Summer: daytime 5am-7pm; dawn 4-5am, dusk 7-8pm.
        let s = Season::Summer;
        assert_eq!(light(3 * 60 + 30, s), Light::Night);
        assert_eq!(light(4 * 60, s), Light::Twilight { modifier: -2 });
        assert_eq!(light(4 * 60 + 30, s), Light::Twilight { modifier: -1 });
        assert_eq!(light(5 * 60, s), Light::Day);
        assert_eq!(light(18 * 60 + 30, s), Light::Day);
        assert_eq!(light(19 * 60, s), Light::Twilight { modifier: -1 });
        assert_eq!(light(19 * 60 + 30, s), Light::Twilight { modifier: -2 });
        assert_eq!(light(20 * 60, s), Light::Night);
        // Winter: 7am-5pm.
        assert_eq!(
            light(6 * 60 + 30, Season::Winter),
            Light::Twilight { modifier: -1 }
        );
        assert_eq!(
            light(17 * 60 + 30, Season::Winter),
            Light::Twilight { modifier: -2 }
        );
        // Two dice of half hours after dawn: 7 in spring is 5am + 3.5h.
        assert_eq!(start_minute(Season::Spring, 7), 8 * 60 + 30);
        assert_eq!(weather_movement(Weather::Snow), (1, 4));
        assert_eq!(weather_sight(Weather::Rain), (1, 2));
    }

    #[test]
    fn sfrm_table_9_prices_as_printed() {
        use Quality::*;
        use SmallArm::*;
        let u = |cav, w, q| table9_element(Side::Union, cav, w, q);
        let c = |cav, w, q| table9_element(Side::Confederate, cav, w, q);
        assert_eq!(u(false, Muskets, Some(Inferior)), Ok(4));
        assert_eq!(u(false, Rifles, None), Ok(8));
        assert_eq!(u(false, Repeaters, Some(Superior)), Ok(18));
        assert_eq!(u(true, SmallArms, Some(Regular)), Ok(10));
        assert_eq!(u(true, Carbines, None), Ok(13));
        assert_eq!(u(true, Repeaters, Some(Superior)), Ok(35));
        assert_eq!(c(false, Muskets, None), Ok(9));
        assert_eq!(c(false, Rifles, Some(Regular)), Ok(12));
        assert_eq!(c(true, SmallArms, Some(Superior)), Ok(18));
        assert_eq!(c(true, Carbines, Some(Regular)), Ok(19));
        assert_eq!(
            c(true, SmallArms, Some(Regular)),
            Err(PriceError::Illegible)
        );
        assert_eq!(
            c(false, Repeaters, Some(Regular)),
            Err(PriceError::NotOffered)
        );
        assert_eq!(
            u(false, Carbines, Some(Regular)),
            Err(PriceError::NotOffered)
        );
        assert_eq!(table9_gun(Gun::TenPounderRifled), 120);
        assert_eq!(table9_gun(Gun::Gatling), 20);
        assert_eq!(TABLE9_SUPPLY, 120);
        assert_eq!(
            [None, Some(Inferior), Some(Regular), Some(Superior)].map(table9_general_per_figure),
            [40, 10, 40, 90]
        );
    }

    #[test]
    fn sfrm_time_month_year_and_start_rolls() {
        use crate::dice::ScriptedDice;
        let mut d = ScriptedDice::new([3, 4]).unwrap();
        assert_eq!(roll_month(&mut d).unwrap(), 7);
        // March: 1861 (die 1) is before the war; 6 is 1866; 3 is 1863.
        let mut d = ScriptedDice::new([1, 6, 3]).unwrap();
        assert_eq!(roll_year(3, &mut d).unwrap(), 1863);
        // July 1861 stands (First Bull Run).
        let mut d = ScriptedDice::new([1]).unwrap();
        assert_eq!(roll_year(7, &mut d).unwrap(), 1861);
        // Summer, 2 + 3 = 5 half hours after dawn (4am): 6:30am.
        let mut d = ScriptedDice::new([2, 3]).unwrap();
        assert_eq!(roll_start(Season::Summer, &mut d).unwrap(), 6 * 60 + 30);
    }
}
