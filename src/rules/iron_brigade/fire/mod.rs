//! Fire combat numbers (APSoF V): the modified effectiveness divisor, how
//! many dice a unit rolls, casualties, the target's morale save, splitting
//! and combining fire, who fires first, and officers hit by fire.
//!
//! Everything here works on counts and modifiers handed in by the caller;
//! positions, ranges and sight are decided elsewhere.

pub mod alternate;

use super::kinds::{Arm, LineKind, OfficerRating, Weapon};
use crate::dice::{DiceError, DiceSource, RollKind, RollPurpose};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Something about a fire that the rules do not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FireError {
    #[error("a unit at combat morale 0 may not fire (APSoF V.B table, VI.F)")]
    BrokenCannotFire,
    #[error("combat morale {0} is not on the 0-6 track")]
    MoraleOffTrack(u8),
    #[error("the firing unit has no castings left to fire with")]
    NoFirers,
    #[error("need {needed} dice for {what}, got {given}")]
    WrongDiceCount {
        what: &'static str,
        needed: usize,
        given: usize,
    },
    #[error("die value {0} is not a d6 roll; each die must be 1 to 6")]
    BadDie(u8),
    #[error("cannot split {total} casualties over no units")]
    NoUnitsToSplit { total: u32 },
    #[error("fire split gives out {allotted} castings but the unit has only {castings}")]
    OverAllotted { castings: u32, allotted: u32 },
    #[error(transparent)]
    Dice(#[from] DiceError),
}

/// The best protection the target has (APSoF V.B table "Target protection").
///
/// Ruling: protections do not stack; the umpire gives the best one that
/// applies (see docs/rulings.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protection {
    #[default]
    None,
    /// Woods, +1.
    Woods,
    /// A wood fence (worm, rail or board), +1.
    WoodFence,
    /// Target lying down, +2.
    LyingDown,
    /// Hasty works, +3. A low stone wall protects as hasty works (our
    /// ruling, docs/rulings.md).
    HastyWorks,
    /// A high wall, +3.
    HighWall,
    /// Entrenchments, +4.
    Entrenchments,
}

impl Protection {
    /// The name used on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Protection::None => "none",
            Protection::Woods => "woods",
            Protection::WoodFence => "wood-fence",
            Protection::LyingDown => "lying-down",
            Protection::HastyWorks => "hasty-works",
            Protection::HighWall => "high-wall",
            Protection::Entrenchments => "entrenchments",
        }
    }

    pub fn modifier(self) -> i32 {
        match self {
            Protection::None => 0,
            Protection::Woods | Protection::WoodFence => 1,
            Protection::LyingDown => 2,
            Protection::HastyWorks | Protection::HighWall => 3,
            Protection::Entrenchments => 4,
        }
    }
}

impl Protection {
    /// The protection a fence, wall or works gives a unit behind it (APSoF
    /// V.B table "Target protection"); `None` for lines that give none.
    pub fn of_line(kind: LineKind) -> Protection {
        match kind {
            LineKind::Fence => Protection::WoodFence,
            // Our ruling: a low stone wall is a breastwork of stone, not a
            // wood fence (docs/rulings.md).
            LineKind::Wall | LineKind::HastyWorks => Protection::HastyWorks,
            LineKind::HighWall => Protection::HighWall,
            LineKind::Entrenchments => Protection::Entrenchments,
            LineKind::Road | LineKind::Stream | LineKind::Moat => Protection::None,
        }
    }
}

impl FromStr for Protection {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s
            .trim()
            .to_ascii_lowercase()
            .replace(['_', ' '], "-")
            .as_str()
        {
            "none" | "open" => Ok(Protection::None),
            "woods" => Ok(Protection::Woods),
            "wood-fence" | "fence" | "worm-fence" | "rail-fence" => Ok(Protection::WoodFence),
            "lying-down" | "laying-down" => Ok(Protection::LyingDown),
            "hasty-works" | "breastworks" | "stone-wall" | "wall" => Ok(Protection::HastyWorks),
            "high-wall" => Ok(Protection::HighWall),
            "entrenchments" | "trenches" => Ok(Protection::Entrenchments),
            _ => Err(format!(
                "unknown cover `{s}`; expected one of: woods, wood-fence, lying-down, hasty-works, high-wall, entrenchments"
            )),
        }
    }
}

/// How many ranks deep the target is, against this firer (APSoF III.C,
/// V.B table "Target formation").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Ranks {
    #[serde(rename = "3")]
    Three,
    #[default]
    #[serde(rename = "2")]
    Two,
    #[serde(rename = "1")]
    One,
    #[serde(rename = "1/2")]
    Half,
    #[serde(rename = "1/3")]
    Third,
}

impl Ranks {
    pub fn modifier(self) -> i32 {
        match self {
            Ranks::Three => -1,
            Ranks::Two => 0,
            Ranks::One => 1,
            Ranks::Half => 2,
            Ranks::Third => 3,
        }
    }
}

impl fmt::Display for Ranks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ranks::Three => "3",
            Ranks::Two => "2",
            Ranks::One => "1",
            Ranks::Half => "1/2",
            Ranks::Third => "1/3",
        })
    }
}

impl FromStr for Ranks {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "3" => Ok(Ranks::Three),
            "2" => Ok(Ranks::Two),
            "1" => Ok(Ranks::One),
            "1/2" | "0.5" => Ok(Ranks::Half),
            "1/3" => Ok(Ranks::Third),
            _ => Err(format!(
                "unknown depth `{s}`; target ranks are 3, 2, 1, 1/2 or 1/3"
            )),
        }
    }
}

/// What the firer shoots with, as far as the modifiers care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirerWeaponClass {
    /// Small arms get the first-fire bonus; artillery does not.
    pub small_arms: bool,
    /// Muzzle-loaders suffer when lying down; breechloaders do not.
    pub muzzle_loader: bool,
}

impl FirerWeaponClass {
    pub fn of(weapon: Weapon) -> Self {
        FirerWeaponClass {
            small_arms: !weapon.is_artillery(),
            muzzle_loader: !weapon.is_breechloader(),
        }
    }

    /// When only the arm is known: artillery fires cannon, others are
    /// assumed to carry muzzle-loaders (the common case; the umpire names
    /// the weapon to say otherwise).
    pub fn of_arm(arm: Arm) -> Self {
        FirerWeaponClass {
            small_arms: !arm.is_artillery(),
            muzzle_loader: true,
        }
    }
}

/// The situation of one fire, as the modifier table sees it (APSoF V.B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FireModifiers {
    pub protection: Protection,
    pub target_ranks: Ranks,
    /// The firing unit's combat morale, 0..=6.
    pub firer_morale: u8,
    pub split_move: bool,
    pub firer_lying_down: bool,
    pub first_fire: bool,
    pub acquired: bool,
    pub perilous: bool,
}

impl Default for FireModifiers {
    /// Defaults of the calculator: morale 5, target two ranks deep in the open.
    fn default() -> Self {
        FireModifiers {
            protection: Protection::None,
            target_ranks: Ranks::Two,
            firer_morale: 5,
            split_move: false,
            firer_lying_down: false,
            first_fire: false,
            acquired: false,
            perilous: false,
        }
    }
}

/// One line of the modifier table that was applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModifierLine {
    pub reason: String,
    pub delta: i32,
}

/// The modified effectiveness with its working.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Effectiveness {
    pub base: u8,
    pub modifiers: Vec<ModifierLine>,
    /// Base plus modifiers, before the floor of 1.
    pub raw: i32,
    /// The divisor actually used: `raw`, but never below 1.
    pub divisor: u8,
}

/// Modified weapon effectiveness (APSoF V.B.1.ii and its modifier table).
///
/// Modifiers that the table restricts ("muzzle-loaders only", "small arms
/// only", "artillery acquired") are applied only when the weapon class
/// qualifies; a line saying so is kept out of the working. A result below 1
/// counts as 1 (our ruling: the text is silent, and a divisor of 0 or less
/// has no meaning).
pub fn modified_effectiveness(
    base: u8,
    class: FirerWeaponClass,
    m: &FireModifiers,
) -> Result<Effectiveness, FireError> {
    let morale_delta = match m.firer_morale {
        0 => return Err(FireError::BrokenCannotFire),
        6 => -1,
        4 | 5 => 0,
        3 => 1,
        2 => 2,
        1 => 3,
        other => return Err(FireError::MoraleOffTrack(other)),
    };
    let mut lines = Vec::new();
    let mut add = |cond: bool, reason: String, delta: i32| {
        if cond && delta != 0 {
            lines.push(ModifierLine { reason, delta });
        }
    };
    add(
        true,
        format!("target protection: {}", m.protection.as_str()),
        m.protection.modifier(),
    );
    add(
        true,
        format!("target {} rank(s) deep", m.target_ranks),
        m.target_ranks.modifier(),
    );
    add(
        true,
        format!("firing unit at morale {}", m.firer_morale),
        morale_delta,
    );
    add(m.split_move, "split move".into(), 2);
    add(
        m.firer_lying_down && class.muzzle_loader && class.small_arms,
        "firing lying down with muzzle-loaders".into(),
        2,
    );
    add(
        m.first_fire && class.small_arms,
        "first fire of the game (small arms)".into(),
        -1,
    );
    add(
        m.acquired && !class.small_arms,
        "artillery acquired fire".into(),
        -1,
    );
    add(m.perilous, "defender in perilous situation".into(), -2);
    let raw = i32::from(base) + lines.iter().map(|l| l.delta).sum::<i32>();
    let divisor = u8::try_from(raw.clamp(1, i32::from(u8::MAX))).unwrap_or(u8::MAX);
    Ok(Effectiveness {
        base,
        modifiers: lines,
        raw,
        divisor,
    })
}

/// The dice a body of castings rolls (APSoF V.B.1.iii, V.B.1.vi, V.B.3,
/// V.B.4; also VI.D.3.i for contact).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum DicePool {
    /// Nothing to roll with.
    None,
    /// One die per full 4 castings (2 crew for artillery).
    Dice { count: u32 },
    /// Fewer than 4 castings: one die, minus one per missing casting.
    ShortDie { minus: u8 },
    /// Artillery with one crew casting: one die, halved, rounded down.
    HalvedDie,
}

impl DicePool {
    /// How many physical dice are rolled.
    pub fn count(self) -> usize {
        match self {
            DicePool::None => 0,
            DicePool::Dice { count } => count as usize,
            DicePool::ShortDie { .. } | DicePool::HalvedDie => 1,
        }
    }

    /// The pool's total from its rolled dice. A short die never totals below
    /// 0 (our ruling: a negative attack or save has no meaning).
    pub fn total(self, dice: &[u8]) -> Result<u32, FireError> {
        if dice.len() != self.count() {
            return Err(FireError::WrongDiceCount {
                what: "this pool",
                needed: self.count(),
                given: dice.len(),
            });
        }
        if let Some(&bad) = dice.iter().find(|d| !(1..=6).contains(*d)) {
            return Err(FireError::BadDie(bad));
        }
        let sum: u32 = dice.iter().map(|&d| u32::from(d)).sum();
        Ok(match self {
            DicePool::None => 0,
            DicePool::Dice { .. } => sum,
            DicePool::ShortDie { minus } => sum.saturating_sub(u32::from(minus)),
            DicePool::HalvedDie => sum / 2,
        })
    }

    /// Roll the pool from a dice source.
    pub fn roll(
        self,
        dice: &mut dyn DiceSource,
        purpose: &RollPurpose,
    ) -> Result<(Vec<u8>, u32), FireError> {
        let rolled = dice.roll_many(self.count(), purpose)?;
        let total = self.total(&rolled)?;
        Ok((rolled, total))
    }
}

/// Dice for fire or for a morale save (APSoF V.B.1.iii and vi, V.B.3, V.B.4):
/// infantry and cavalry one per full 4 castings, artillery one per full 2
/// crew; under 4 castings one die less the shortfall; a lone gunner one die
/// halved.
pub fn fire_dice(arm: Arm, castings: u32) -> DicePool {
    match (arm.is_artillery(), castings) {
        (_, 0) => DicePool::None,
        (true, 1) => DicePool::HalvedDie,
        (true, crew) => DicePool::Dice { count: crew / 2 },
        (false, c) if c < 4 => DicePool::ShortDie {
            // c is 1..=3 here.
            minus: (4 - c) as u8,
        },
        (false, c) => DicePool::Dice { count: c / 4 },
    }
}

/// Casualties from an attack total (APSoF V.B.1.v): the total divided by the
/// modified effectiveness, fractions dropped, never more than the target has.
pub fn casualties(attack_total: u32, divisor: u8, target_castings: u32) -> u32 {
    (attack_total / u32::from(divisor.max(1))).min(target_castings)
}

/// Morale levels lost by the target (APSoF V.B.1.vi, V.G.1): 5 per casualty
/// (10 in a perilous situation) less the save total, never below 0. Not
/// clamped to the unit's morale track: that is [`super::morale::apply_loss`].
pub fn morale_loss_from_fire(casualties: u32, save_total: u32, perilous: bool) -> u32 {
    let per = if perilous { 10 } else { 5 };
    (per * casualties).saturating_sub(save_total)
}

/// Who fires and who is hit, in counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FireInput {
    pub firer_arm: Arm,
    pub firer_castings: u32,
    pub target_arm: Arm,
    pub target_castings: u32,
    /// The modified effectiveness divisor (already floored at 1).
    pub divisor: u8,
    pub perilous: bool,
}

/// The result of one fire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FireOutcome {
    pub attack_dice: Vec<u8>,
    pub attack_total: u32,
    pub casualties: u32,
    pub target_remaining: u32,
    pub save_dice: Vec<u8>,
    pub save_total: u32,
    /// The formula's levels, not clamped to the target's morale.
    pub morale_loss: u32,
    /// Under APSoF X (alternate fire tables), how the result was read:
    /// the table, row and column and what the cell gave, for the working.
    /// `None` for V's dice-sum fire.
    pub alternate: Option<String>,
}

/// Resolve one fire from dice (APSoF V.B.1 i–vi).
///
/// The target rolls its save on the castings left after casualties. When
/// there are no casualties the loss is 0 whatever the save, so no save dice
/// are rolled (our ruling; it keeps the dice log honest).
pub fn resolve_fire(
    input: &FireInput,
    dice: &mut dyn DiceSource,
    firer: &str,
    target: &str,
) -> Result<FireOutcome, FireError> {
    let pool = fire_dice(input.firer_arm, input.firer_castings);
    if pool == DicePool::None {
        return Err(FireError::NoFirers);
    }
    let (attack_dice, attack_total) = pool.roll(dice, &RollPurpose::new(RollKind::Fire, firer))?;
    let cas = casualties(attack_total, input.divisor, input.target_castings);
    let remaining = input.target_castings - cas;
    let save_pool = if cas == 0 {
        DicePool::None
    } else {
        fire_dice(input.target_arm, remaining)
    };
    let (save_dice, save_total) =
        save_pool.roll(dice, &RollPurpose::new(RollKind::MoraleSave, target))?;
    Ok(FireOutcome {
        alternate: None,
        attack_dice,
        attack_total,
        casualties: cas,
        target_remaining: remaining,
        save_dice,
        save_total,
        morale_loss: morale_loss_from_fire(cas, save_total, input.perilous),
    })
}

/// Split casualties among several target units that share one fire
/// (APSoF V.B table note *: units stacked three ranks deep).
///
/// Ruling (the text only says "split"): in proportion to each unit's
/// castings, largest remainder first, ties to the unit listed first (the
/// front unit), and no unit loses more castings than it has.
pub fn split_casualties(total: u32, castings: &[u32]) -> Result<Vec<u32>, FireError> {
    if castings.is_empty() {
        return Err(FireError::NoUnitsToSplit { total });
    }
    let all: u64 = castings.iter().map(|&c| u64::from(c)).sum();
    let total = u64::from(total).min(all);
    if all == 0 {
        return Ok(vec![0; castings.len()]);
    }
    let mut shares: Vec<u64> = castings
        .iter()
        .map(|&c| total * u64::from(c) / all)
        .collect();
    let mut order: Vec<usize> = (0..castings.len()).collect();
    // Largest remainder first; stable sort keeps the listed order on ties.
    order.sort_by_key(|&i| std::cmp::Reverse(total * u64::from(castings[i]) % all));
    let mut left = total - shares.iter().sum::<u64>();
    for &i in order.iter().cycle() {
        if left == 0 {
            break;
        }
        if shares[i] < u64::from(castings[i]) {
            shares[i] += 1;
            left -= 1;
        }
    }
    // Each share is at most its unit's castings, so it fits in u32.
    Ok(shares
        .into_iter()
        .map(|s| u32::try_from(s).unwrap_or(u32::MAX))
        .collect())
}

/// Check a firer's split of its castings over several targets (APSoF
/// V.F.2): any split the commander likes, as long as it does not use more
/// castings than the unit has. Each part is then resolved as its own fire.
pub fn check_fire_split(castings: u32, parts: &[u32]) -> Result<(), FireError> {
    let allotted: u32 = parts.iter().copied().fold(0u32, u32::saturating_add);
    if allotted > castings {
        return Err(FireError::OverAllotted { castings, allotted });
    }
    Ok(())
}

/// The castings each part of a split fire takes (APSoF V.F.2), from the
/// castings that can fire now (`firing`, V.C.4). Explicit shares are
/// served in the order written, "half" being half of `firing` rounded
/// down, each cut to what is left; "the rest" then takes what the others
/// leave (a second "rest" gets nothing). Castings no share takes hold
/// their fire. The result has one entry per share and never adds up to
/// more than `firing`.
pub fn allot_fire_shares(firing: u32, shares: &[super::orders::FireShare]) -> Vec<u32> {
    use super::orders::FireShare;
    let mut left = firing;
    let mut out: Vec<u32> = shares
        .iter()
        .map(|s| {
            let want = match s {
                FireShare::Castings(n) => *n,
                FireShare::Half => firing / 2,
                FireShare::Rest => 0,
            };
            let take = want.min(left);
            left -= take;
            take
        })
        .collect();
    for (slot, s) in out.iter_mut().zip(shares) {
        if *s == FireShare::Rest {
            *slot = left;
            left = 0;
        }
    }
    out
}

/// One of the units a fire falls on when the target counts 3 ranks deep
/// with its supports (APSoF V.B note *).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackedTarget<'a> {
    pub name: &'a str,
    pub arm: Arm,
    pub castings: u32,
}

/// What one unit of a stacked target took (APSoF V.B note *).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StackedShare {
    pub casualties: u32,
    pub save_dice: Vec<u8>,
    pub save_total: u32,
    pub morale_loss: u32,
}

/// A fire (one unit's, or a combined fire's, V.F.1) at a target counted 3
/// ranks deep because other units stand in support behind it (APSoF V.B
/// table "3 Ranks Deep, Subtract 1*"; note *: "If there are multiple units
/// involved split the casualties among the units. Both units independantly
/// roll to save morale levels due to casualties"). One attack, divided by
/// `divisor`, its casualties capped at all the units' castings; they are
/// split by [`split_casualties`] (in proportion, the front unit listed
/// first), and each unit that took casualties saves on its own castings
/// left, in the order listed. Returns the attack dice, their total and
/// each unit's share.
pub fn resolve_fire_on_stack(
    firers: &[CombinedFirer<'_>],
    divisor: u8,
    targets: &[StackedTarget<'_>],
    perilous: bool,
    dice: &mut dyn DiceSource,
) -> Result<(Vec<u8>, u32, Vec<StackedShare>), FireError> {
    let mut attack_dice = Vec::new();
    let mut attack_total = 0;
    for f in firers {
        let pool = fire_dice(f.arm, f.castings);
        let (rolled, total) = pool.roll(dice, &RollPurpose::new(RollKind::Fire, f.name))?;
        attack_dice.extend(rolled);
        attack_total += total;
    }
    if attack_dice.is_empty() {
        return Err(FireError::NoFirers);
    }
    let castings: Vec<u32> = targets.iter().map(|t| t.castings).collect();
    let all = castings.iter().sum();
    let cas = casualties(attack_total, divisor, all);
    let split = split_casualties(cas, &castings)?;
    let mut shares = Vec::new();
    for (t, c) in targets.iter().zip(split) {
        let pool = if c == 0 {
            DicePool::None
        } else {
            fire_dice(t.arm, t.castings - c)
        };
        let (save_dice, save_total) =
            pool.roll(dice, &RollPurpose::new(RollKind::MoraleSave, t.name))?;
        shares.push(StackedShare {
            casualties: c,
            save_dice,
            save_total,
            morale_loss: morale_loss_from_fire(c, save_total, perilous),
        });
    }
    Ok((attack_dice, attack_total, shares))
}

/// The divisor of combined fire (APSoF V.F.1): the highest of any unit involved.
pub fn combined_divisor(divisors: &[u8]) -> Option<u8> {
    divisors.iter().copied().max()
}

/// One unit taking part in a combined fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CombinedFirer<'a> {
    pub name: &'a str,
    pub arm: Arm,
    pub castings: u32,
    /// This unit's own modified effectiveness.
    pub divisor: u8,
}

/// Resolve combined fire (APSoF V.F.1): one attack total, divided by the
/// highest divisor of any unit involved, then one save by the target.
///
/// Ruling: each unit counts its own dice by its own arm's rule and the
/// totals are added (the text gives the divisor only); see docs/rulings.md.
pub fn resolve_combined_fire(
    firers: &[CombinedFirer<'_>],
    target_arm: Arm,
    target_castings: u32,
    perilous: bool,
    dice: &mut dyn DiceSource,
    target: &str,
) -> Result<FireOutcome, FireError> {
    let divisor = combined_divisor(&firers.iter().map(|f| f.divisor).collect::<Vec<_>>())
        .ok_or(FireError::NoFirers)?;
    let mut attack_dice = Vec::new();
    let mut attack_total = 0;
    for f in firers {
        let pool = fire_dice(f.arm, f.castings);
        let (rolled, total) = pool.roll(dice, &RollPurpose::new(RollKind::Fire, f.name))?;
        attack_dice.extend(rolled);
        attack_total += total;
    }
    if attack_dice.is_empty() {
        return Err(FireError::NoFirers);
    }
    let cas = casualties(attack_total, divisor, target_castings);
    let remaining = target_castings - cas;
    let save_pool = if cas == 0 {
        DicePool::None
    } else {
        fire_dice(target_arm, remaining)
    };
    let (save_dice, save_total) =
        save_pool.roll(dice, &RollPurpose::new(RollKind::MoraleSave, target))?;
    Ok(FireOutcome {
        alternate: None,
        attack_dice,
        attack_total,
        casualties: cas,
        target_remaining: remaining,
        save_dice,
        save_total,
        morale_loss: morale_loss_from_fire(cas, save_total, perilous),
    })
}

/// The order two units that fire at each other resolve in (APSoF V.B.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Precedence {
    /// The firer fires first; the target takes its losses before replying.
    FirerFirst,
    /// The target fires first.
    TargetFirst,
    /// Tie: both fire, then both take losses.
    Simultaneous,
}

/// One firer against the target in an exchange of fire (APSoF V.B.2): each
/// rolls a d6, less 2 for a split move and fire; higher fires first.
pub fn who_fires_first(
    firer_roll: u8,
    firer_split_move: bool,
    target_roll: u8,
    target_split_move: bool,
) -> Precedence {
    let modified = |roll: u8, split: bool| i32::from(roll) - if split { 2 } else { 0 };
    let f = modified(firer_roll, firer_split_move);
    let t = modified(target_roll, target_split_move);
    match f.cmp(&t) {
        std::cmp::Ordering::Greater => Precedence::FirerFirst,
        std::cmp::Ordering::Less => Precedence::TargetFirst,
        std::cmp::Ordering::Equal => Precedence::Simultaneous,
    }
}

/// Several firers at one target that fires back (APSoF V.B.2): the target
/// rolls once and that roll is compared with each firer's own roll.
/// `firers` is (name, split move) for each; returns the precedence per firer.
pub fn roll_fire_order(
    dice: &mut dyn DiceSource,
    target: &str,
    target_split_move: bool,
    firers: &[(&str, bool)],
) -> Result<Vec<Precedence>, FireError> {
    let t = dice.d6(&RollPurpose::new(RollKind::FireOrder, target))?;
    firers
        .iter()
        .map(|&(name, split)| {
            let f = dice.d6(&RollPurpose::new(RollKind::FireOrder, name))?;
            Ok(who_fires_first(f, split, t, target_split_move))
        })
        .collect()
}

/// Whether an officer in the line of fire is hit (APSoF V.H.2): on foot on
/// a 6, mounted on a 5 or 6.
pub fn officer_hit(roll: u8, mounted: bool) -> bool {
    if mounted { roll >= 5 } else { roll >= 6 }
}

/// Turns until a replacement officer arrives (APSoF V.H.3): 1–2 at the start
/// of next turn (0 turns of delay), 3–4 one turn later, 5–6 two turns later.
pub fn replacement_delay(roll: u8) -> u8 {
    match roll {
        0..=2 => 0,
        3 | 4 => 1,
        _ => 2,
    }
}

/// A randomly generated replacement's quality (APSoF V.H.3 second table):
/// 1 hero, 2 good, 3–4 average (our `normal`), 5 poor, 6 bad.
pub fn replacement_rating(roll: u8) -> OfficerRating {
    match roll {
        0 | 1 => OfficerRating::Hero,
        2 => OfficerRating::Good,
        3 | 4 => OfficerRating::Normal,
        5 => OfficerRating::Poor,
        _ => OfficerRating::Bad,
    }
}

/// Roll whether an officer in the line of fire is hit (APSoF V.H.2).
pub fn roll_officer_hit(
    dice: &mut dyn DiceSource,
    officer: &str,
    mounted: bool,
) -> Result<bool, FireError> {
    let roll = dice.d6(&RollPurpose::new(RollKind::OfficerHit, officer))?;
    Ok(officer_hit(roll, mounted))
}

/// Roll when a hit officer's replacement arrives and, when the scenario does
/// not name one, the replacement's quality (APSoF V.H.3).
pub fn roll_replacement(
    dice: &mut dyn DiceSource,
    officer: &str,
    random_quality: bool,
) -> Result<(u8, Option<OfficerRating>), FireError> {
    let delay =
        dice.d6(&RollPurpose::new(RollKind::OfficerReplacement, officer).with_note("delay"))?;
    let rating = if random_quality {
        let q =
            dice.d6(&RollPurpose::new(RollKind::OfficerReplacement, officer).with_note("quality"))?;
        Some(replacement_rating(q))
    } else {
        None
    };
    Ok((replacement_delay(delay), rating))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::ScriptedDice;

    fn inf(castings: u32) -> DicePool {
        fire_dice(Arm::Infantry, castings)
    }

    #[test]
    fn v_b_1_worked_example() {
        let input = FireInput {
            firer_arm: Arm::Infantry,
            firer_castings: 21,
            target_arm: Arm::Infantry,
            target_castings: 16,
            divisor: 4,
            perilous: false,
        };
        let mut dice = ScriptedDice::new([2, 3, 3, 2, 3, 4, 4, 3]).unwrap();
        let out = resolve_fire(&input, &mut dice, "A", "B").unwrap();
        assert_eq!(out.attack_dice.len(), 5);
        assert_eq!(out.attack_total, 13);
        assert_eq!(out.casualties, 3);
        assert_eq!(out.target_remaining, 13);
        assert_eq!(out.save_dice, vec![4, 4, 3]);
        assert_eq!(out.save_total, 11);
        assert_eq!(out.morale_loss, 4);
        assert_eq!(dice.remaining(), 0);
        assert_eq!(dice.log()[5].purpose.kind, RollKind::MoraleSave);
    }

    #[test]
    fn v_b_1_iii_dice_per_four_castings_round_down() {
        assert_eq!(inf(20), DicePool::Dice { count: 5 });
        assert_eq!(inf(19), DicePool::Dice { count: 4 });
        assert_eq!(inf(4), DicePool::Dice { count: 1 });
        assert_eq!(fire_dice(Arm::Cavalry, 9), DicePool::Dice { count: 2 });
        assert_eq!(fire_dice(Arm::Artillery, 5), DicePool::Dice { count: 2 });
        assert_eq!(
            fire_dice(Arm::HorseArtillery, 2),
            DicePool::Dice { count: 1 }
        );
    }

    #[test]
    fn v_b_3_under_four_castings_one_die_less_shortfall() {
        assert_eq!(inf(3), DicePool::ShortDie { minus: 1 });
        assert_eq!(inf(1), DicePool::ShortDie { minus: 3 });
        assert_eq!(inf(1).total(&[5]).unwrap(), 2);
        assert_eq!(inf(2).total(&[1]).unwrap(), 0, "never below 0");
        assert_eq!(inf(0), DicePool::None);
    }

    #[test]
    fn v_b_4_lone_gunner_rolls_half_a_die() {
        let pool = fire_dice(Arm::Artillery, 1);
        assert_eq!(pool, DicePool::HalvedDie);
        assert_eq!(pool.total(&[5]).unwrap(), 2);
        assert_eq!(pool.total(&[1]).unwrap(), 0);
    }

    #[test]
    fn pool_refuses_wrong_count_and_bad_die() {
        assert!(matches!(
            inf(8).total(&[3]),
            Err(FireError::WrongDiceCount { needed: 2, .. })
        ));
        assert_eq!(inf(4).total(&[7]), Err(FireError::BadDie(7)));
    }

    #[test]
    fn v_b_1_v_casualties_never_exceed_target() {
        assert_eq!(casualties(19, 5, 20), 3);
        assert_eq!(casualties(30, 1, 4), 4);
        assert_eq!(casualties(3, 4, 10), 0);
    }

    #[test]
    fn v_b_1_vi_and_v_g_morale_loss() {
        assert_eq!(morale_loss_from_fire(3, 11, false), 4);
        assert_eq!(morale_loss_from_fire(3, 11, true), 19);
        assert_eq!(morale_loss_from_fire(1, 12, false), 0, "no gain");
    }

    #[test]
    fn v_b_modifier_table() {
        let rifles = FirerWeaponClass::of(Weapon::RifledMusket);
        let plain = modified_effectiveness(5, rifles, &FireModifiers::default()).unwrap();
        assert_eq!(plain.divisor, 5);
        assert!(plain.modifiers.is_empty());

        let m = FireModifiers {
            protection: Protection::Entrenchments,
            target_ranks: Ranks::Third,
            firer_morale: 1,
            split_move: true,
            firer_lying_down: true,
            ..FireModifiers::default()
        };
        // 5 + 4 + 3 + 3 + 2 + 2
        assert_eq!(modified_effectiveness(5, rifles, &m).unwrap().divisor, 19);

        let m = FireModifiers {
            target_ranks: Ranks::Three,
            firer_morale: 6,
            first_fire: true,
            perilous: true,
            ..FireModifiers::default()
        };
        let e = modified_effectiveness(4, rifles, &m).unwrap();
        assert_eq!(e.raw, -1);
        assert_eq!(e.divisor, 1, "ruling: below 1 counts as 1");

        for (p, d) in [
            (Protection::Woods, 1),
            (Protection::LyingDown, 2),
            (Protection::HastyWorks, 3),
        ] {
            let m = FireModifiers {
                protection: p,
                ..FireModifiers::default()
            };
            assert_eq!(modified_effectiveness(5, rifles, &m).unwrap().raw, 5 + d);
        }
        for (morale, d) in [(5, 0), (4, 0), (3, 1), (2, 2)] {
            let m = FireModifiers {
                firer_morale: morale,
                ..FireModifiers::default()
            };
            assert_eq!(modified_effectiveness(5, rifles, &m).unwrap().raw, 5 + d);
        }
        for (r, d) in [(Ranks::One, 1), (Ranks::Half, 2)] {
            let m = FireModifiers {
                target_ranks: r,
                ..FireModifiers::default()
            };
            assert_eq!(modified_effectiveness(5, rifles, &m).unwrap().raw, 5 + d);
        }
    }

    #[test]
    fn v_b_restricted_modifiers_follow_the_weapon() {
        let m = FireModifiers {
            firer_lying_down: true,
            first_fire: true,
            acquired: true,
            ..FireModifiers::default()
        };
        // Breechloaders lying down: no +2; first fire -1; no acquired.
        let bl = modified_effectiveness(4, FirerWeaponClass::of(Weapon::BreechloadingRifle), &m)
            .unwrap();
        assert_eq!(bl.raw, 3);
        // Guns: acquired -1, no first-fire bonus, no lying-down penalty.
        let gun =
            modified_effectiveness(3, FirerWeaponClass::of(Weapon::TwelvePdrGun), &m).unwrap();
        assert_eq!(gun.raw, 2);
        // Muzzle-loading small arms: +2 - 1.
        let ml = modified_effectiveness(4, FirerWeaponClass::of(Weapon::RifledMusket), &m).unwrap();
        assert_eq!(ml.raw, 5);
    }

    #[test]
    fn v_b_broken_units_do_not_fire() {
        let m = FireModifiers {
            firer_morale: 0,
            ..FireModifiers::default()
        };
        assert_eq!(
            modified_effectiveness(4, FirerWeaponClass::of_arm(Arm::Infantry), &m),
            Err(FireError::BrokenCannotFire)
        );
        let m = FireModifiers {
            firer_morale: 7,
            ..FireModifiers::default()
        };
        assert!(modified_effectiveness(4, FirerWeaponClass::of_arm(Arm::Infantry), &m).is_err());
    }

    #[test]
    fn no_casualties_means_no_save_roll() {
        let input = FireInput {
            firer_arm: Arm::Infantry,
            firer_castings: 4,
            target_arm: Arm::Infantry,
            target_castings: 16,
            divisor: 7,
            perilous: false,
        };
        let mut dice = ScriptedDice::new([6]).unwrap();
        let out = resolve_fire(&input, &mut dice, "A", "B").unwrap();
        assert_eq!(out.casualties, 0);
        assert!(out.save_dice.is_empty());
        assert_eq!(out.morale_loss, 0);
    }

    #[test]
    fn v_b_note_star_split_casualties() {
        assert_eq!(split_casualties(3, &[10, 10]).unwrap(), vec![2, 1]);
        assert_eq!(split_casualties(4, &[12, 4]).unwrap(), vec![3, 1]);
        assert_eq!(split_casualties(5, &[1, 20]).unwrap(), vec![0, 5]);
        assert_eq!(split_casualties(30, &[2, 3]).unwrap(), vec![2, 3]);
        assert!(split_casualties(1, &[]).is_err());
    }

    #[test]
    fn v_f_2_split_fire_within_castings() {
        assert!(check_fire_split(20, &[12, 8]).is_ok());
        assert!(check_fire_split(20, &[12, 9]).is_err());
    }

    #[test]
    fn v_f_2_shares_are_served_in_order_and_never_exceed_the_firing_castings() {
        use crate::rules::iron_brigade::orders::FireShare::{Castings, Half, Rest};
        assert_eq!(allot_fire_shares(16, &[Castings(8), Rest]), vec![8, 8]);
        assert_eq!(allot_fire_shares(16, &[Rest, Castings(6)]), vec![10, 6]);
        assert_eq!(allot_fire_shares(17, &[Half, Half]), vec![8, 8]);
        assert_eq!(allot_fire_shares(17, &[Half, Rest]), vec![8, 9]);
        // Losses since the order was written: the first share is served
        // first, the later ones get what is left.
        assert_eq!(
            allot_fire_shares(10, &[Castings(8), Castings(8)]),
            vec![8, 2]
        );
        assert_eq!(allot_fire_shares(10, &[Castings(12), Rest]), vec![10, 0]);
        // A single share: the other castings hold their fire.
        assert_eq!(allot_fire_shares(20, &[Castings(6)]), vec![6]);
        assert_eq!(allot_fire_shares(0, &[Half, Rest]), vec![0, 0]);
        assert_eq!(allot_fire_shares(9, &[Rest, Rest]), vec![9, 0]);
    }

    #[test]
    fn v_f_1_combined_fire() {
        assert_eq!(combined_divisor(&[4, 6, 5]), Some(6));
        assert_eq!(combined_divisor(&[]), None);
        // 6 infantry (1 die) + 3 crew (1 die) + 2 infantry (one die less 2),
        // at the worst divisor 5.
        let firers = [
            CombinedFirer {
                name: "A",
                arm: Arm::Infantry,
                castings: 6,
                divisor: 4,
            },
            CombinedFirer {
                name: "B",
                arm: Arm::Artillery,
                castings: 3,
                divisor: 5,
            },
            CombinedFirer {
                name: "C",
                arm: Arm::Infantry,
                castings: 2,
                divisor: 3,
            },
        ];
        let mut dice = ScriptedDice::new([6, 5, 6, 3, 3]).unwrap();
        let out = resolve_combined_fire(&firers, Arm::Infantry, 12, false, &mut dice, "T").unwrap();
        assert_eq!(out.attack_total, 6 + 5 + 4);
        assert_eq!(out.casualties, 3);
        assert_eq!(out.save_dice, vec![3, 3]);
        assert_eq!(out.morale_loss, 9);
        assert_eq!(dice.log()[1].purpose.subject, "B");
        assert!(resolve_combined_fire(&[], Arm::Infantry, 12, false, &mut dice, "T").is_err());
    }

    #[test]
    fn v_b_2_who_fires_first() {
        assert_eq!(who_fires_first(5, false, 3, false), Precedence::FirerFirst);
        assert_eq!(who_fires_first(5, true, 3, false), Precedence::Simultaneous);
        assert_eq!(who_fires_first(4, true, 3, false), Precedence::TargetFirst);
        assert_eq!(who_fires_first(2, false, 4, true), Precedence::Simultaneous);
        // One target roll against several firers.
        let mut dice = ScriptedDice::new([4, 6, 4, 1]).unwrap();
        let order = roll_fire_order(
            &mut dice,
            "T",
            false,
            &[("A", false), ("B", false), ("C", false)],
        )
        .unwrap();
        assert_eq!(
            order,
            vec![
                Precedence::FirerFirst,
                Precedence::Simultaneous,
                Precedence::TargetFirst
            ]
        );
        assert_eq!(dice.log().len(), 4, "the target rolls once");
    }

    #[test]
    fn v_h_officers() {
        assert!(!officer_hit(5, false));
        assert!(officer_hit(6, false));
        assert!(officer_hit(5, true));
        assert!(!officer_hit(4, true));
        assert_eq!(
            [1, 2, 3, 4, 5, 6].map(replacement_delay),
            [0, 0, 1, 1, 2, 2]
        );
        assert_eq!(
            [1, 2, 3, 4, 5, 6].map(replacement_rating),
            [
                OfficerRating::Hero,
                OfficerRating::Good,
                OfficerRating::Normal,
                OfficerRating::Normal,
                OfficerRating::Poor,
                OfficerRating::Bad
            ]
        );
        let mut dice = ScriptedDice::new([5, 3, 2]).unwrap();
        assert!(roll_officer_hit(&mut dice, "Gibbon", true).unwrap());
        assert_eq!(
            roll_replacement(&mut dice, "Gibbon", true).unwrap(),
            (1, Some(OfficerRating::Good))
        );
    }
}
