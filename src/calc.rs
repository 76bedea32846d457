//! The umpire's calculator: `adjutant calc <rule> ...`.
//!
//! It puts the same pure rules functions the adjudicator uses behind a
//! command line, so an umpire at a real table can check a fire, a rally or
//! an order delay by hand, with dice he rolled (`--dice 2,3,3`) or dice
//! rolled here. Dice rolled here come from a ChaCha20 stream whose seed is
//! printed, so any result can be reproduced with `--seed`.
//!
//! This is the one place in the rules stack that may ask the operating
//! system for entropy: it is the edge, not the adjudicator.

use crate::dice::{DiceSource, Roll, RollKind, RollPurpose, ScriptedDice, StreamDice};
use crate::rules::iron_brigade::delay::{self, Obedience, OrderTiming};
use crate::rules::iron_brigade::fire::alternate::{self, AlternateFire, Cell, MoraleResult};
use crate::rules::iron_brigade::fire::{
    self, DicePool, Effectiveness, FireModifiers, FirerWeaponClass, ModifierLine, Protection, Ranks,
};
use crate::rules::iron_brigade::kinds::{Arm, OfficerRating, PerilousClause, Weapon};
use crate::rules::iron_brigade::morale::{self, RallyOfficer, Side};
use crate::rules::iron_brigade::weapons;
use clap::{Args, Parser, Subcommand};

mod sfrm;
use serde::Serialize;
pub use sfrm::{
    SfrmCombatArgs, SfrmCommandArgs, SfrmCostArgs, SfrmGreenArgs, SfrmMoveArgs, SfrmWeatherArgs,
};
use std::fmt::Write as _;

/// A calculator failure. Almost all are the user's input; see [`CalcError::is_usage`].
#[derive(Debug, thiserror::Error)]
pub enum CalcError {
    /// Bad input: wrong dice count, a die outside 1..6, morale above base,
    /// an unknown name, a range the weapon cannot reach...
    #[error("{0}")]
    Usage(String),
    /// The operating system would not give us a random seed.
    #[error(
        "could not get a random seed from the operating system ({0}); pass --seed with 64 hex digits, or supply the dice"
    )]
    Entropy(String),
    #[error("could not format the result as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl CalcError {
    /// True when the user should fix the command line (exit code 2).
    pub fn is_usage(&self) -> bool {
        matches!(self, CalcError::Usage(_))
    }
}

fn usage(msg: impl Into<String>) -> CalcError {
    CalcError::Usage(msg.into())
}

/// `adjutant calc`: work out one Iron Brigade rule from numbers.
#[derive(Debug, Clone, Parser)]
#[command(name = "calc", about = "Work out one Iron Brigade rule from numbers")]
pub struct CalcArgs {
    /// Print the result as JSON instead of an explanation.
    #[arg(long, global = true)]
    pub json: bool,
    /// Seed (64 hex digits) for any dice not supplied; printed when dice are rolled here.
    #[arg(long, global = true, value_name = "HEX")]
    pub seed: Option<String>,
    #[command(subcommand)]
    pub rule: CalcRule,
}

#[derive(Debug, Clone, Subcommand)]
pub enum CalcRule {
    /// Fire combat: casualties and morale loss (APSoF V.B).
    Fire(FireArgs),
    /// Order delay by distance from the officer (APSoF I.C.1).
    Delay(DelayArgs),
    /// Rally attempt (APSoF VI.E).
    Rally(RallyArgs),
    /// Panic check for a broken friend in sight (APSoF VI.D.2).
    Panic(PanicArgs),
    /// Contact morale (APSoF VI.D.3).
    Contact(ContactArgs),
    /// Double-quick morale cost (APSoF VI.D.4).
    DoubleQuick(DoubleQuickArgs),
    /// Fire on the alternate results tables (APSoF X, optional rule).
    AlternateFire(AlternateFireArgs),
    /// An officer casualty on SFRM Table 3 (2d6), with capture.
    OfficerCasualty(OfficerCasualtyArgs),
    /// Several units' fire combined at one target (APSoF V.F.1).
    CombinedFire(CombinedFireArgs),
    /// SFRM brigade scale: one unit's fire (Tables 6 and 7, "Combat").
    SfrmCombat(SfrmCombatArgs),
    /// SFRM brigade scale: a move's allowance (Table 4, Table 8 weather).
    SfrmMove(SfrmMoveArgs),
    /// SFRM brigade scale: a general's Table 2 statistics and command roll.
    SfrmCommand(SfrmCommandArgs),
    /// SFRM brigade scale: a green unit's first combat (Table 5).
    SfrmGreen(SfrmGreenArgs),
    /// SFRM brigade scale: army costing (Table 9).
    SfrmCost(SfrmCostArgs),
    /// SFRM brigade scale: the day's weather and a turn's light (Table 8,
    /// "Time, Weather & Daylight").
    SfrmWeather(SfrmWeatherArgs),
}

#[derive(Debug, Clone, Args)]
/// Who fires at whom and how effectively: shared by `fire` and `alternate-fire`.
pub struct FireSetup {
    /// Castings firing (crew castings for artillery).
    #[arg(long)]
    pub firers: u32,
    /// Castings in the target unit.
    #[arg(long)]
    pub targets: u32,
    /// Arm of the firing unit [default: infantry, or artillery for a gun].
    #[arg(long)]
    pub arm: Option<String>,
    /// Arm of the target unit.
    #[arg(long, default_value = "infantry")]
    pub target_arm: String,
    /// Modified effectiveness, already worked out (instead of --weapon/--range and modifiers).
    #[arg(long, allow_negative_numbers = true, conflicts_with_all = [
        "weapon", "range", "cover", "target_ranks", "firer_morale", "split_move",
        "firer_lying_down", "first_fire", "acquired"
    ])]
    pub effectiveness: Option<i32>,
    /// Weapon chart, e.g. rifled-musket, 12pdr-gun.
    #[arg(long, requires = "range")]
    pub weapon: Option<String>,
    /// Measured range in inches (rounded up).
    #[arg(long, requires = "weapon")]
    pub range: Option<f64>,
    /// Target protection: woods, hasty-works, entrenchments, lying-down.
    #[arg(long)]
    pub cover: Option<String>,
    /// Target ranks deep: 3, 2, 1, 1/2, 1/3 [default: 2].
    #[arg(long)]
    pub target_ranks: Option<String>,
    /// Firing unit's combat morale 0-6 [default: 5].
    #[arg(long)]
    pub firer_morale: Option<u8>,
    /// The firer split-moved this turn (+2).
    #[arg(long)]
    pub split_move: bool,
    /// The firer is lying down (+2 for muzzle-loaders only).
    #[arg(long)]
    pub firer_lying_down: bool,
    /// The unit's first fire of the game (-1, small arms only).
    #[arg(long)]
    pub first_fire: bool,
    /// Artillery firing at the same point as last turn (-1, guns only).
    #[arg(long)]
    pub acquired: bool,
    /// Defender in a perilous situation (APSoF V.G): -2 to the divisor and
    /// x10 on the save. Name the clause, as the turn engine does: V.G.1.i
    /// (or flank, rear, surprise), V.G.1.ii (first-fire), V.G.1.iii
    /// (repeaters), V.G.1.iv (crossing, ford, pontoons), V.G.1.v
    /// (changing-formation, broken, limbered), V.G.2 (umpire); several
    /// with commas. With --effectiveness only the x10 applies (the -2 is
    /// in your number).
    #[arg(long, num_args = 0..=1, value_delimiter = ',', value_name = "CLAUSE")]
    pub perilous: Option<Vec<PerilousClause>>,
}

#[derive(Debug, Clone, Args)]
pub struct FireArgs {
    #[command(flatten)]
    pub setup: FireSetup,
    /// Attack dice, comma separated.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub dice: Option<Vec<i64>>,
    /// The target's morale save dice, comma separated.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub save_dice: Option<Vec<i64>>,
}

/// Alternate fire with the results tables (APSoF X, optional rule).
#[derive(Debug, Clone, Args)]
pub struct AlternateFireArgs {
    #[command(flatten)]
    pub setup: FireSetup,
    /// The attacker's die for the casualty column.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub dice: Option<Vec<i64>>,
    /// The defender's die for the morale column (only when the cell is a>b).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub save_dice: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Args)]
pub struct DelayArgs {
    /// Distance in inches from the issuing officer to the unit.
    #[arg(long, allow_negative_numbers = true)]
    pub distance: f64,
    /// The officer is outside the unit's chain of command: roll to obey.
    #[arg(long)]
    pub outside_chain: bool,
    /// The obedience die (only with --outside-chain).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub dice: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Args)]
pub struct RallyArgs {
    /// The unit's base morale, 1-6 (APSoF VI.B.1).
    #[arg(long)]
    pub base_morale: u8,
    /// Its combat morale now, 0 up to the base (APSoF VI.B.4).
    #[arg(long)]
    pub current_morale: u8,
    /// Best officer in contact: hero, good, normal, poor, bad.
    #[arg(long)]
    pub officer: Option<String>,
    /// That officer was hit with the unit in the last fire phase.
    #[arg(long, requires = "officer")]
    pub officer_hit: bool,
    /// The unit's die, then (for a bad officer) the officer's die.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub dice: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Args)]
pub struct PanicArgs {
    /// Castings in the broken, retreating unit.
    #[arg(long)]
    pub broken: u32,
    /// The broken unit's arm: infantry, cavalry or artillery.
    #[arg(long, default_value = "infantry")]
    pub broken_arm: String,
    /// The broken unit's dice, e.g. `4,2,6` (rolled for you if left out).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub broken_dice: Option<Vec<i64>>,
    /// Castings in the unit checking morale.
    #[arg(long)]
    pub checking: u32,
    /// The checking unit's arm: infantry, cavalry or artillery.
    #[arg(long, default_value = "infantry")]
    pub checking_arm: String,
    /// The checking unit's dice, e.g. `3,5` (rolled for you if left out).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub checking_dice: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Args)]
pub struct ContactArgs {
    /// Castings engaged on side a.
    #[arg(long)]
    pub side_a: u32,
    /// Side a's dice, e.g. `4,4,1` (rolled for you if left out).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub dice_a: Option<Vec<i64>>,
    /// Castings engaged on side b.
    #[arg(long)]
    pub side_b: u32,
    /// Side b's dice, e.g. `2,6` (rolled for you if left out).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub dice_b: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Args)]
pub struct DoubleQuickArgs {
    /// The unit's base morale, 4-6: the table's columns (APSoF VI.D.4).
    #[arg(long)]
    pub base_morale: u8,
    /// The die for the double-quick table.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub dice: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Args)]
pub struct OfficerCasualtyArgs {
    /// The general or messenger is in contact with enemy troops.
    #[arg(long)]
    pub in_contact_with_enemy: bool,
    /// ... and with friendly troops too (then never captured).
    #[arg(long)]
    pub with_friends: bool,
    /// The two dice, e.g. `--dice 3,4`.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub dice: Option<Vec<i64>>,
}

/// Combined fire (APSoF V.F.1): each unit's own castings and modified
/// effectiveness (as `calc fire` works it out), one target.
#[derive(Debug, Clone, Args)]
pub struct CombinedFireArgs {
    /// One firing unit as ARM:CASTINGS:EFFECTIVENESS, e.g. `infantry:18:5`
    /// (crew castings for artillery); give --firer once per unit, two or more.
    #[arg(
        long = "firer",
        value_name = "ARM:CASTINGS:EFFECTIVENESS",
        required = true
    )]
    pub firers: Vec<String>,
    /// Castings in the target unit.
    #[arg(long)]
    pub targets: u32,
    /// Arm of the target unit.
    #[arg(long, default_value = "infantry")]
    pub target_arm: String,
    /// Defender in a perilous situation for every firing unit (APSoF V.G):
    /// x10 on the save (the -2 is already in each unit's effectiveness).
    /// Name the clause as for `calc fire --perilous`.
    #[arg(long, num_args = 0..=1, value_delimiter = ',', value_name = "CLAUSE")]
    pub perilous: Option<Vec<PerilousClause>>,
    /// Attack dice of all the units, in the order the units are given.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub dice: Option<Vec<i64>>,
    /// The target's morale save dice.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub save_dice: Option<Vec<i64>>,
}

/// Run the calculator; the returned text is what to print.
pub fn run(args: &CalcArgs) -> Result<String, CalcError> {
    let mut dice = CalcDice::new(args.seed.as_deref())?;
    let (json, text) = match &args.rule {
        CalcRule::Fire(a) => render(calc_fire(a, &mut dice)?, &dice)?,
        CalcRule::Delay(a) => render(calc_delay(a, &mut dice)?, &dice)?,
        CalcRule::Rally(a) => render(calc_rally(a, &mut dice)?, &dice)?,
        CalcRule::Panic(a) => render(calc_panic(a, &mut dice)?, &dice)?,
        CalcRule::Contact(a) => render(calc_contact(a, &mut dice)?, &dice)?,
        CalcRule::DoubleQuick(a) => render(calc_double_quick(a, &mut dice)?, &dice)?,
        CalcRule::AlternateFire(a) => render(calc_alternate_fire(a, &mut dice)?, &dice)?,
        CalcRule::OfficerCasualty(a) => render(calc_officer_casualty(a, &mut dice)?, &dice)?,
        CalcRule::CombinedFire(a) => render(calc_combined_fire(a, &mut dice)?, &dice)?,
        CalcRule::SfrmCombat(a) => render(sfrm::calc_sfrm_combat(a, &mut dice)?, &dice)?,
        CalcRule::SfrmMove(a) => render(sfrm::calc_sfrm_move(a)?, &dice)?,
        CalcRule::SfrmCommand(a) => render(sfrm::calc_sfrm_command(a, &mut dice)?, &dice)?,
        CalcRule::SfrmGreen(a) => render(sfrm::calc_sfrm_green(a, &mut dice)?, &dice)?,
        CalcRule::SfrmCost(a) => render(sfrm::calc_sfrm_cost(a)?, &dice)?,
        CalcRule::SfrmWeather(a) => render(sfrm::calc_sfrm_weather(a, &mut dice)?, &dice)?,
    };
    Ok(if args.json { json } else { text })
}

/// A result that can be shown as JSON or explained in words.
trait Explain: Serialize {
    fn explain(&self) -> String;
}

#[derive(Serialize)]
struct WithDice<'a, T: Serialize> {
    #[serde(flatten)]
    result: &'a T,
    /// Seed of the dice rolled here, if any were.
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<String>,
    rolls: &'a [Roll],
}

fn render<T: Explain>(result: T, dice: &CalcDice) -> Result<(String, String), CalcError> {
    let json = serde_json::to_string_pretty(&WithDice {
        result: &result,
        seed: dice.seed_hex(),
        rolls: &dice.log,
    })?;
    let mut text = result.explain().trim_end().to_string();
    if let Some(seed) = dice.seed_hex() {
        let _ = write!(text, "\nDice rolled here; to repeat them add --seed {seed}");
    }
    Ok((json, text))
}

/// Dice for one calculation: the user's, when given, else a seeded stream.
struct CalcDice {
    seed: Option<[u8; 32]>,
    stream: Option<StreamDice>,
    log: Vec<Roll>,
}

impl CalcDice {
    fn new(seed: Option<&str>) -> Result<Self, CalcError> {
        let seed = seed
            .map(StreamDice::parse_seed)
            .transpose()
            .map_err(|e| usage(format!("--seed: {e}")))?;
        Ok(CalcDice {
            seed,
            stream: None,
            log: Vec::new(),
        })
    }

    /// `needed` dice for `purpose`: the given ones (exactly that many, each
    /// 1..6) or rolled from the stream.
    fn take(
        &mut self,
        flag: &str,
        given: Option<&[i64]>,
        needed: usize,
        what: &str,
        purpose: &RollPurpose,
    ) -> Result<Vec<u8>, CalcError> {
        match given {
            Some(values) => {
                if values.len() != needed {
                    return Err(usage(format!(
                        "{flag}: {what} needs {needed} {}, but {} {} given",
                        if needed == 1 { "die" } else { "dice" },
                        values.len(),
                        if values.len() == 1 { "was" } else { "were" },
                    )));
                }
                let mut scripted = ScriptedDice::new(values.iter().copied())
                    .map_err(|e| usage(format!("{flag}: {e}")))?;
                let rolled = scripted
                    .roll_many(needed, purpose)
                    .map_err(|e| usage(format!("{flag}: {e}")))?;
                self.log.extend_from_slice(scripted.log());
                Ok(rolled)
            }
            None => {
                if self.stream.is_none() {
                    let seed = match self.seed {
                        Some(seed) => seed,
                        None => {
                            let mut seed = [0u8; 32];
                            getrandom::fill(&mut seed)
                                .map_err(|e| CalcError::Entropy(e.to_string()))?;
                            self.seed = Some(seed);
                            seed
                        }
                    };
                    self.stream = Some(StreamDice::new(seed));
                }
                let Some(stream) = self.stream.as_mut() else {
                    return Err(CalcError::Entropy("no dice stream".into()));
                };
                let before = stream.log().len();
                let rolled = stream
                    .roll_many(needed, purpose)
                    .map_err(|e| usage(e.to_string()))?;
                self.log
                    .extend_from_slice(stream.log().get(before..).unwrap_or_default());
                Ok(rolled)
            }
        }
    }

    fn seed_hex(&self) -> Option<String> {
        self.stream.as_ref().map(StreamDice::seed_hex)
    }
}

fn parse_arm(flag: &str, s: &str) -> Result<Arm, CalcError> {
    s.parse::<Arm>().map_err(|e| usage(format!("{flag}: {e}")))
}

/// Parse a weapon name, suggesting the closest chart name on a typo.
fn parse_weapon(s: &str) -> Result<Weapon, CalcError> {
    s.parse::<Weapon>().map_err(|_| {
        let wanted = s.trim().to_ascii_lowercase();
        let best = Weapon::ALL
            .iter()
            .map(|w| (strsim::jaro_winkler(&wanted, w.as_str()), *w))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let hint = match best {
            Some((score, w)) if score > 0.7 => format!(" Did you mean `{w}`?"),
            _ => String::new(),
        };
        let all: Vec<&str> = Weapon::ALL.iter().map(|w| w.as_str()).collect();
        usage(format!(
            "--weapon: unknown weapon `{s}`.{hint} Weapons: {}",
            all.join(", ")
        ))
    })
}

fn pool_words(pool: DicePool) -> String {
    match pool {
        DicePool::None => "no dice".into(),
        DicePool::Dice { count } => format!("{count} dice (one per full 4 castings or 2 crew)"),
        DicePool::ShortDie { minus } => format!("one die less {minus} (under 4 castings)"),
        DicePool::HalvedDie => "one die halved (a single gunner)".into(),
    }
}

fn dice_words(dice: &[u8]) -> String {
    let list: Vec<String> = dice.iter().map(u8::to_string).collect();
    list.join("+")
}

// ---------------------------------------------------------------- fire

/// `calc fire` result. The first five fields are the CLI contract.
#[derive(Debug, Serialize)]
pub struct FireReport {
    pub effectiveness: u8,
    pub attack_total: u32,
    pub casualties: u32,
    pub save_total: u32,
    pub morale_loss: u32,
    pub weapon: Option<Weapon>,
    pub range_inches: Option<u32>,
    pub base_effectiveness: Option<u8>,
    pub modifiers: Vec<ModifierLine>,
    pub effectiveness_before_floor: i32,
    pub attack_dice: Vec<u8>,
    pub target_remaining: u32,
    pub save_dice: Vec<u8>,
    pub perilous: bool,
    /// The V.G clauses named, in the turn engine's words.
    pub perilous_why: Vec<String>,
    #[serde(skip)]
    attack_pool: DicePool,
    #[serde(skip)]
    save_pool: DicePool,
}

impl Explain for FireReport {
    fn explain(&self) -> String {
        let mut t = String::new();
        if let (Some(w), Some(r), Some(b)) =
            (self.weapon, self.range_inches, self.base_effectiveness)
        {
            let _ = writeln!(
                t,
                "Base effectiveness: {w} at {r}\" → {b} (APSoF XIII, V.E.1)."
            );
        }
        for m in &self.modifiers {
            if m.reason.contains("perilous") {
                let _ = writeln!(
                    t,
                    "  {:+} {} ({})",
                    m.delta,
                    m.reason,
                    peril_words(&self.perilous_why)
                );
            } else {
                let _ = writeln!(t, "  {:+} {}", m.delta, m.reason);
            }
        }
        let _ = write!(t, "Modified effectiveness: {}", self.effectiveness);
        if self.effectiveness_before_floor < 1 {
            let _ = write!(
                t,
                " (worked out {}, counted as 1)",
                self.effectiveness_before_floor
            );
        }
        let _ = writeln!(t, " (APSoF V.B.1.ii).");
        let _ = writeln!(
            t,
            "Attack: {} = {}{}; {} / {} = {} casualt{} (APSoF V.B.1.iii-v).",
            pool_words(self.attack_pool),
            dice_words(&self.attack_dice),
            if matches!(self.attack_pool, DicePool::Dice { .. }) {
                ""
            } else {
                " (adjusted)"
            },
            self.attack_total,
            self.effectiveness,
            self.casualties,
            if self.casualties == 1 { "y" } else { "ies" },
        );
        explain_save(
            &mut t,
            self.casualties,
            self.morale_loss,
            self.perilous.then_some(self.perilous_why.as_slice()),
            self.target_remaining,
            self.save_pool,
            &self.save_dice,
            self.save_total,
            "",
        );
        t
    }
}

// ---------------------------------------------------------------- combined fire

/// One unit of a combined fire, as reported.
#[derive(Debug, Serialize)]
pub struct CombinedUnit {
    pub arm: Arm,
    pub castings: u32,
    pub effectiveness: u8,
    pub attack_dice: Vec<u8>,
    pub attack_total: u32,
    #[serde(skip)]
    pool: DicePool,
}

/// `calc combined-fire` result; the first five fields match `calc fire`'s.
#[derive(Debug, Serialize)]
pub struct CombinedFireReport {
    pub effectiveness: u8,
    pub attack_total: u32,
    pub casualties: u32,
    pub save_total: u32,
    pub morale_loss: u32,
    pub units: Vec<CombinedUnit>,
    pub target_remaining: u32,
    pub save_dice: Vec<u8>,
    pub perilous: bool,
    /// The V.G clauses named, in the turn engine's words.
    pub perilous_why: Vec<String>,
    #[serde(skip)]
    save_pool: DicePool,
}

impl Explain for CombinedFireReport {
    fn explain(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "Combined fire (APSoF V.F.1): each unit rolls its own dice; the totals are added and divided by the highest effectiveness of any unit."
        );
        for (i, u) in self.units.iter().enumerate() {
            let _ = writeln!(
                t,
                "  Unit {}: {} {} castings, effectiveness {}: {} = {} → {}.",
                i + 1,
                u.castings,
                u.arm,
                u.effectiveness,
                pool_words(u.pool),
                dice_words(&u.attack_dice),
                u.attack_total
            );
        }
        let _ = writeln!(
            t,
            "Attack: {} / {} = {} casualt{} (APSoF V.B.1.v).",
            self.attack_total,
            self.effectiveness,
            self.casualties,
            if self.casualties == 1 { "y" } else { "ies" },
        );
        explain_save(
            &mut t,
            self.casualties,
            self.morale_loss,
            self.perilous.then_some(self.perilous_why.as_slice()),
            self.target_remaining,
            self.save_pool,
            &self.save_dice,
            self.save_total,
            "one save for the whole fire, ",
        );
        t
    }
}

/// The save and morale-loss lines of a fire's explanation (APSoF
/// V.B.1.vi, V.G), shared by `fire` and `combined-fire`; `note` is put
/// before the rule's citation.
#[allow(clippy::too_many_arguments)]
fn explain_save(
    t: &mut String,
    casualties: u32,
    morale_loss: u32,
    perilous: Option<&[String]>,
    target_remaining: u32,
    save_pool: DicePool,
    save_dice: &[u8],
    save_total: u32,
    note: &str,
) {
    if casualties == 0 {
        let _ = writeln!(t, "No casualties, so no morale save and no morale loss.");
        return;
    }
    let per = if perilous.is_some() { 10 } else { 5 };
    let _ = writeln!(
        t,
        "Save: target has {target_remaining} castings left, rolls {} = {}{}, total {save_total} ({note}APSoF V.B.1.vi).",
        pool_words(save_pool),
        dice_words(save_dice),
        if matches!(save_pool, DicePool::Dice { .. } | DicePool::None) {
            ""
        } else {
            " (adjusted)"
        },
    );
    let _ = writeln!(
        t,
        "Morale loss: {per} x {casualties} - {save_total} = {morale_loss} level(s){}.",
        match perilous {
            Some(why) => format!(" (perilous: x10, APSoF {})", peril_words(why)),
            None => String::new(),
        }
    );
}

/// The V.G clauses of a perilous fire, as the turn engine names them in a
/// fire's working ("V.G.1.i rear attack; V.G.1.ii first fire at troops
/// never under fire"); a bare `--perilous` names none.
fn peril_words(why: &[String]) -> String {
    if why.is_empty() {
        "V.G, no clause named: give it, e.g. --perilous rear or --perilous V.G.1.ii".into()
    } else {
        why.join("; ")
    }
}

/// Whether `--perilous` was given, and the clauses it named, in the turn
/// engine's words (APSoF V.G).
fn perilous_of(p: &Option<Vec<PerilousClause>>) -> (bool, Vec<String>) {
    match p {
        None => (false, Vec::new()),
        Some(cs) => {
            let mut why: Vec<String> = Vec::new();
            for c in cs {
                let t = c.text().to_string();
                if !why.contains(&t) {
                    why.push(t);
                }
            }
            (true, why)
        }
    }
}

/// The target's morale save after a fire (APSoF V.B.1.vi).
struct Save {
    target_remaining: u32,
    save_pool: DicePool,
    save_dice: Vec<u8>,
    save_total: u32,
}

/// The target's save on what `casualties` leave of `targets` castings,
/// from `--save-dice` or rolled; no dice when there are no casualties
/// (docs/rulings.md, V.B.1.vi).
fn save(
    dice: &mut CalcDice,
    given: Option<&[i64]>,
    target_arm: Arm,
    targets: u32,
    casualties: u32,
) -> Result<Save, CalcError> {
    let target_remaining = targets - casualties;
    let save_pool = if casualties == 0 {
        DicePool::None
    } else {
        fire::fire_dice(target_arm, target_remaining)
    };
    let save_dice = dice.take(
        "--save-dice",
        given,
        save_pool.count(),
        &format!(
            "the save of a target left with {target_remaining} castings after {casualties} casualties"
        ),
        &RollPurpose::new(RollKind::MoraleSave, "target"),
    )?;
    let save_total = save_pool
        .total(&save_dice)
        .map_err(|e| usage(format!("--save-dice: {e}")))?;
    Ok(Save {
        target_remaining,
        save_pool,
        save_dice,
        save_total,
    })
}

/// `ARM:CASTINGS:EFFECTIVENESS`, e.g. `infantry:18:5`.
fn parse_combined_firer(s: &str) -> Result<(Arm, u32, u8), CalcError> {
    let bad = |why: &str| {
        usage(format!(
            "--firer {s}: {why}; write ARM:CASTINGS:EFFECTIVENESS, e.g. infantry:18:5"
        ))
    };
    let mut parts = s.split(':');
    let (Some(arm), Some(castings), Some(eff), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("three parts are needed"));
    };
    let arm = parse_arm("--firer", arm.trim())?;
    let castings: u32 = castings
        .trim()
        .parse()
        .map_err(|_| bad("the castings must be a whole number"))?;
    if castings == 0 {
        return Err(bad("a unit with no castings cannot fire"));
    }
    let eff: i32 = eff
        .trim()
        .parse()
        .map_err(|_| bad("the effectiveness must be a whole number"))?;
    // V.B.1.ii: the modified effectiveness is a divisor, counted as at
    // least 1, as `calc fire --effectiveness` does.
    let eff = u8::try_from(eff.clamp(1, 255)).unwrap_or(u8::MAX);
    Ok((arm, castings, eff))
}

fn calc_combined_fire(
    args: &CombinedFireArgs,
    dice: &mut CalcDice,
) -> Result<CombinedFireReport, CalcError> {
    let (perilous, perilous_why) = perilous_of(&args.perilous);
    let firers = args
        .firers
        .iter()
        .map(|f| parse_combined_firer(f))
        .collect::<Result<Vec<_>, _>>()?;
    if firers.len() < 2 {
        return Err(usage(
            "--firer: combined fire needs two or more units; for one unit use `calc fire`",
        ));
    }
    let target_arm = parse_arm("--target-arm", &args.target_arm)?;
    if args.targets == 0 {
        return Err(usage("--targets: the target has no castings left"));
    }
    let pools: Vec<DicePool> = firers
        .iter()
        .map(|&(arm, c, _)| fire::fire_dice(arm, c))
        .collect();
    let needed: usize = pools.iter().map(|p| p.count()).sum();
    let all = dice.take(
        "--dice",
        args.dice.as_deref(),
        needed,
        &format!("the fire of {} units", firers.len()),
        &RollPurpose::new(RollKind::Fire, "combined fire"),
    )?;
    let mut units = Vec::new();
    let mut rest = all.as_slice();
    for (&(arm, castings, effectiveness), pool) in firers.iter().zip(&pools) {
        let (mine, others) = rest.split_at(pool.count().min(rest.len()));
        rest = others;
        let attack_total = pool
            .total(mine)
            .map_err(|e| usage(format!("--dice: {e}")))?;
        units.push(CombinedUnit {
            arm,
            castings,
            effectiveness,
            attack_dice: mine.to_vec(),
            attack_total,
            pool: *pool,
        });
    }
    let divisor =
        fire::combined_divisor(&units.iter().map(|u| u.effectiveness).collect::<Vec<_>>())
            .unwrap_or(1);
    let attack_total = units.iter().map(|u| u.attack_total).sum();
    let casualties = fire::casualties(attack_total, divisor, args.targets);
    let Save {
        target_remaining,
        save_pool,
        save_dice,
        save_total,
    } = save(
        dice,
        args.save_dice.as_deref(),
        target_arm,
        args.targets,
        casualties,
    )?;
    Ok(CombinedFireReport {
        effectiveness: divisor,
        attack_total,
        casualties,
        save_total,
        morale_loss: fire::morale_loss_from_fire(casualties, save_total, perilous),
        units,
        target_remaining,
        save_dice,
        perilous,
        perilous_why,
        save_pool,
    })
}

/// The fire's situation, worked out from the command line.
struct Situation {
    arm: Arm,
    target_arm: Arm,
    effectiveness: Effectiveness,
    weapon: Option<Weapon>,
    range_inches: Option<u32>,
    base: Option<u8>,
}

fn situation(a: &FireSetup) -> Result<Situation, CalcError> {
    let weapon = a.weapon.as_deref().map(parse_weapon).transpose()?;
    let arm = match (&a.arm, weapon) {
        (Some(s), _) => parse_arm("--arm", s)?,
        (None, Some(w)) if w.is_artillery() => Arm::Artillery,
        (None, _) => Arm::Infantry,
    };
    if let Some(w) = weapon
        && w.is_artillery()
        && !arm.is_artillery()
    {
        return Err(usage(format!(
            "--weapon {w} is a gun, but --arm is {arm}; guns are fired by artillery crews"
        )));
    }
    let target_arm = parse_arm("--target-arm", &a.target_arm)?;
    if a.targets == 0 {
        return Err(usage(
            "--targets: the target has no castings; give the castings in the target unit",
        ));
    }
    let (effectiveness, weapon, range_inches, base) = match (a.effectiveness, weapon, a.range) {
        (Some(e), _, _) => {
            let divisor = u8::try_from(e.clamp(1, 255)).unwrap_or(u8::MAX);
            (
                Effectiveness {
                    base: divisor,
                    modifiers: Vec::new(),
                    raw: e,
                    divisor,
                },
                None,
                None,
                None,
            )
        }
        (None, Some(w), Some(range)) => {
            let base = weapons::base_effectiveness(w, range)
                .map_err(|e| usage(format!("--range: {e}")))?;
            let inches = weapons::round_range(range).map_err(|e| usage(e.to_string()))?;
            let protection = a
                .cover
                .as_deref()
                .map(str::parse::<Protection>)
                .transpose()
                .map_err(|e| usage(format!("--cover: {e}")))?
                .unwrap_or_default();
            let target_ranks = a
                .target_ranks
                .as_deref()
                .map(str::parse::<Ranks>)
                .transpose()
                .map_err(|e| usage(format!("--target-ranks: {e}")))?
                .unwrap_or_default();
            let m = FireModifiers {
                protection,
                target_ranks,
                firer_morale: a.firer_morale.unwrap_or(5),
                split_move: a.split_move,
                firer_lying_down: a.firer_lying_down,
                first_fire: a.first_fire,
                acquired: a.acquired,
                perilous: perilous_of(&a.perilous).0,
            };
            let eff = fire::modified_effectiveness(base, FirerWeaponClass::of(w), &m)
                .map_err(|e| usage(format!("--firer-morale: {e}")))?;
            (eff, Some(w), Some(inches), Some(base))
        }
        _ => {
            return Err(usage(
                "say how effective the fire is: --effectiveness E, or --weapon W with --range R",
            ));
        }
    };
    Ok(Situation {
        arm,
        target_arm,
        effectiveness,
        weapon,
        range_inches,
        base,
    })
}

fn calc_fire(args: &FireArgs, dice: &mut CalcDice) -> Result<FireReport, CalcError> {
    let a = &args.setup;
    let Situation {
        arm,
        target_arm,
        effectiveness,
        weapon,
        range_inches,
        base,
    } = situation(a)?;
    let attack_pool = fire::fire_dice(arm, a.firers);
    if attack_pool == DicePool::None {
        return Err(usage("--firers: a unit with no castings cannot fire"));
    }
    let attack_dice = dice.take(
        "--dice",
        args.dice.as_deref(),
        attack_pool.count(),
        &format!("{} firing {arm} castings", a.firers),
        &RollPurpose::new(RollKind::Fire, "firer"),
    )?;
    let attack_total = attack_pool
        .total(&attack_dice)
        .map_err(|e| usage(format!("--dice: {e}")))?;
    let casualties = fire::casualties(attack_total, effectiveness.divisor, a.targets);
    let Save {
        target_remaining,
        save_pool,
        save_dice,
        save_total,
    } = save(
        dice,
        args.save_dice.as_deref(),
        target_arm,
        a.targets,
        casualties,
    )?;
    Ok(FireReport {
        effectiveness: effectiveness.divisor,
        attack_total,
        casualties,
        save_total,
        morale_loss: fire::morale_loss_from_fire(
            casualties,
            save_total,
            perilous_of(&a.perilous).0,
        ),
        weapon,
        range_inches,
        base_effectiveness: base,
        modifiers: effectiveness.modifiers,
        effectiveness_before_floor: effectiveness.raw,
        attack_dice,
        target_remaining,
        save_dice,
        perilous: perilous_of(&a.perilous).0,
        perilous_why: perilous_of(&a.perilous).1,
        attack_pool,
        save_pool,
    })
}

// ---------------------------------------------------------------- delay

#[derive(Debug, Serialize)]
pub struct DelayReport {
    pub delay_turns: Option<u8>,
    pub obeyed: bool,
    pub distance_turns: u8,
    pub obedience: Option<Obedience>,
}

impl Explain for DelayReport {
    fn explain(&self) -> String {
        let mut t = format!(
            "Distance delay: {} turn(s) (APSoF I.C.1: within 12\" none, 12-24\" one, beyond 24\" two).\n",
            self.distance_turns
        );
        match self.obedience {
            None => {}
            Some(Obedience::Obeyed) => t.push_str("Outside the chain of command: 1-4, obeyed.\n"),
            Some(Obedience::OneTurnLate) => {
                t.push_str("Outside the chain of command: 5, obeyed one turn late.\n")
            }
            Some(Obedience::Ignored) => {
                t.push_str("Outside the chain of command: 6, the order is ignored.\n")
            }
        }
        match self.delay_turns {
            Some(0) => t.push_str("The unit acts on the order this turn."),
            Some(n) => {
                let _ = write!(t, "The unit acts on the order after {n} turn(s).");
            }
            None => t.push_str("The unit does not act on the order."),
        }
        t
    }
}

fn calc_delay(a: &DelayArgs, dice: &mut CalcDice) -> Result<DelayReport, CalcError> {
    let distance_turns =
        delay::distance_delay(a.distance).map_err(|e| usage(format!("--distance: {e}")))?;
    let obedience = if a.outside_chain {
        let roll = dice.take(
            "--dice",
            a.dice.as_deref(),
            1,
            "an order from outside the chain of command",
            &RollPurpose::new(RollKind::OrderDelay, "unit"),
        )?;
        let roll = roll.first().copied().unwrap_or(0);
        Some(delay::outside_chain(roll).map_err(|e| usage(format!("--dice: {e}")))?)
    } else {
        if a.dice.is_some() {
            return Err(usage(
                "--dice: an order within the chain of command takes no die; add --outside-chain if the officer is not the unit's own",
            ));
        }
        None
    };
    let OrderTiming {
        delay_turns,
        obeyed,
    } = delay::order_timing(a.distance, obedience).map_err(|e| usage(e.to_string()))?;
    Ok(DelayReport {
        delay_turns,
        obeyed,
        distance_turns,
        obedience,
    })
}

// ---------------------------------------------------------------- rally

#[derive(Debug, Serialize)]
pub struct RallyReport {
    pub modified_roll: i32,
    pub morale_change: i32,
    pub new_morale: u8,
    pub die: u8,
    pub bad_officer_die: Option<u8>,
    pub base_modifier: i32,
    pub officer_modifier: i32,
    pub must_retreat: bool,
}

impl Explain for RallyReport {
    fn explain(&self) -> String {
        let mut t = format!(
            "Rally: die {} {:+} base morale {:+} officer",
            self.die, self.base_modifier, self.officer_modifier
        );
        if let Some(b) = self.bad_officer_die {
            let _ = write!(t, " (bad officer rolled {b})");
        }
        let _ = writeln!(t, " = {} (APSoF VI.E.2).", self.modified_roll);
        let row = match self.modified_roll {
            i32::MIN..=-3 => "-3 or less",
            -2..=-1 => "-2 to -1",
            0..=4 => "0 to 4",
            5..=6 => "5 to 6",
            7..=8 => "7 to 8",
            9..=10 => "9 to 10",
            _ => "11 or more",
        };
        let _ = writeln!(
            t,
            "Rally table row {row}: {:+} level(s); morale is now {} (never above base, never below 0).",
            self.morale_change, self.new_morale
        );
        if self.must_retreat {
            t.push_str("The unit gained nothing at morale 0 and must retreat (APSoF VI.E.2.iv).");
        }
        t
    }
}

fn calc_rally(a: &RallyArgs, dice: &mut CalcDice) -> Result<RallyReport, CalcError> {
    let officer = a
        .officer
        .as_deref()
        .map(|s| s.parse::<OfficerRating>())
        .transpose()
        .map_err(|e| usage(format!("--officer: {e}")))?
        .map(|rating| RallyOfficer {
            rating,
            hit: a.officer_hit,
        });
    let needed = morale::rally_dice_needed(a.base_morale, a.current_morale, officer)
        .map_err(|e| usage(e.to_string()))?;
    let rolled = dice.take(
        "--dice",
        a.dice.as_deref(),
        needed,
        if needed == 2 {
            "a rally with a bad officer (the unit's die, then the officer's)"
        } else {
            "a rally"
        },
        &RollPurpose::new(RollKind::Rally, "unit"),
    )?;
    let r = morale::rally(a.base_morale, a.current_morale, officer, &rolled)
        .map_err(|e| usage(e.to_string()))?;
    Ok(RallyReport {
        modified_roll: r.modified_roll,
        morale_change: r.morale_change,
        new_morale: r.new_morale,
        die: r.die,
        bad_officer_die: r.bad_officer_die,
        base_modifier: r.base_modifier,
        officer_modifier: r.officer_modifier,
        must_retreat: r.must_retreat,
    })
}

// ---------------------------------------------------------------- panic

#[derive(Debug, Serialize)]
pub struct PanicReport {
    pub panic: u32,
    pub saving: u32,
    pub morale_loss: u32,
    /// False when the broken unit is too small to cause a check (VI.D.2.iii).
    pub check_required: bool,
    pub broken_dice: Vec<u8>,
    pub checking_dice: Vec<u8>,
}

impl Explain for PanicReport {
    fn explain(&self) -> String {
        if !self.check_required {
            return "No check: the broken unit has fewer than 4 castings (2 crew for artillery) (APSoF VI.D.2.iii).".into();
        }
        format!(
            "Panic: broken unit rolls {} = {}, / 7 = {}. Saving: checking unit rolls {} = {}, / 10 = {}.\nMorale loss: {} - {} = {} level(s), never below 0 (APSoF VI.D.2.iv-vi).",
            dice_words(&self.broken_dice),
            self.broken_dice.iter().map(|&d| u32::from(d)).sum::<u32>(),
            self.panic,
            if self.checking_dice.is_empty() {
                "no dice".into()
            } else {
                dice_words(&self.checking_dice)
            },
            self.checking_dice
                .iter()
                .map(|&d| u32::from(d))
                .sum::<u32>(),
            self.saving,
            self.panic,
            self.saving,
            self.morale_loss
        )
    }
}

fn calc_panic(a: &PanicArgs, dice: &mut CalcDice) -> Result<PanicReport, CalcError> {
    let broken_arm = parse_arm("--broken-arm", &a.broken_arm)?;
    let checking_arm = parse_arm("--checking-arm", &a.checking_arm)?;
    let Some(broken_count) = morale::panic_dice(broken_arm, a.broken) else {
        for (flag, given) in [
            ("--broken-dice", &a.broken_dice),
            ("--checking-dice", &a.checking_dice),
        ] {
            if given.as_ref().is_some_and(|d| !d.is_empty()) {
                return Err(usage(format!(
                    "{flag}: no dice are rolled; a broken unit of {} {broken_arm} castings causes no panic check",
                    a.broken
                )));
            }
        }
        return Ok(PanicReport {
            panic: 0,
            saving: 0,
            morale_loss: 0,
            check_required: false,
            broken_dice: Vec::new(),
            checking_dice: Vec::new(),
        });
    };
    let broken_dice = dice.take(
        "--broken-dice",
        a.broken_dice.as_deref(),
        broken_count as usize,
        &format!("a broken unit of {} {broken_arm} castings", a.broken),
        &RollPurpose::new(RollKind::Panic, "broken unit"),
    )?;
    let checking_dice = dice.take(
        "--checking-dice",
        a.checking_dice.as_deref(),
        morale::saving_dice(checking_arm, a.checking) as usize,
        &format!("a checking unit of {} {checking_arm} castings", a.checking),
        &RollPurpose::new(RollKind::Panic, "checking unit").with_note("saving"),
    )?;
    let sum = |d: &[u8]| d.iter().map(|&x| u32::from(x)).sum::<u32>();
    let p = morale::panic_check(sum(&broken_dice), sum(&checking_dice));
    Ok(PanicReport {
        panic: p.panic,
        saving: p.saving,
        morale_loss: p.morale_loss,
        check_required: true,
        broken_dice,
        checking_dice,
    })
}

// ---------------------------------------------------------------- contact

#[derive(Debug, Serialize)]
pub struct ContactReport {
    pub loser: Option<Side>,
    pub morale_loss: u32,
    pub total_a: u32,
    pub total_b: u32,
    pub dice_a: Vec<u8>,
    pub dice_b: Vec<u8>,
}

impl Explain for ContactReport {
    fn explain(&self) -> String {
        let who = match self.loser {
            Some(Side::A) => "Side a has the lower total",
            Some(Side::B) => "Side b has the lower total",
            None => "The totals are equal; nobody loses",
        };
        format!(
            "Contact: side a {} = {}, side b {} = {} (APSoF VI.D.3).\n{who}: difference {} / 3 = {} level(s) lost.",
            dice_words(&self.dice_a),
            self.total_a,
            dice_words(&self.dice_b),
            self.total_b,
            self.total_a.abs_diff(self.total_b),
            self.morale_loss
        )
    }
}

fn calc_contact(a: &ContactArgs, dice: &mut CalcDice) -> Result<ContactReport, CalcError> {
    let mut side = |flag: &str, castings: u32, given: Option<&[i64]>, name: &str| {
        let pool = morale::contact_dice(castings);
        if pool == DicePool::None {
            return Err(usage(format!(
                "--side-{name}: no castings engaged; contact needs castings on both sides"
            )));
        }
        let rolled = dice.take(
            flag,
            given,
            pool.count(),
            &format!("side {name} with {castings} castings engaged"),
            &RollPurpose::new(RollKind::Contact, format!("side {name}")),
        )?;
        let total = pool
            .total(&rolled)
            .map_err(|e| usage(format!("{flag}: {e}")))?;
        Ok((rolled, total))
    };
    let (dice_a, total_a) = side("--dice-a", a.side_a, a.dice_a.as_deref(), "a")?;
    let (dice_b, total_b) = side("--dice-b", a.side_b, a.dice_b.as_deref(), "b")?;
    let c = morale::contact(total_a, total_b);
    Ok(ContactReport {
        loser: c.loser,
        morale_loss: c.morale_loss,
        total_a,
        total_b,
        dice_a,
        dice_b,
    })
}

// ---------------------------------------------------------------- double quick

#[derive(Debug, Serialize)]
pub struct DoubleQuickReport {
    pub morale_loss: u8,
    pub die: u8,
    pub base_morale: u8,
}

impl Explain for DoubleQuickReport {
    fn explain(&self) -> String {
        format!(
            "Double quick: die {} in the base morale {} column = {} level(s) lost (APSoF VI.D.4).",
            self.die, self.base_morale, self.morale_loss
        )
    }
}

/// `calc officer-casualty`: SFRM Table 3.
#[derive(Debug, Serialize)]
pub struct OfficerCasualtyReport {
    pub dice: Vec<u8>,
    pub roll: u8,
    pub result: crate::rules::sfrm::CasualtyResult,
    /// "stays", "for-months" or "permanently".
    pub removal: crate::rules::sfrm::Removal,
    pub removed: bool,
    pub captured: bool,
    pub command_range_penalty: u8,
    pub command_ability_penalty: u8,
    pub combat_value_penalty: u8,
}

impl Explain for OfficerCasualtyReport {
    fn explain(&self) -> String {
        let result = serde_json::to_value(self.result)
            .ok()
            .and_then(|v| v.as_str().map(|s| s.replace('-', " ")))
            .unwrap_or_default();
        let mut out = format!(
            "SFRM Table 3: {} + {} = {}: {result}",
            self.dice.first().copied().unwrap_or(0),
            self.dice.get(1).copied().unwrap_or(0),
            self.roll,
        );
        out.push_str(if self.removed {
            "; he leaves the field"
        } else {
            "; he stays in command"
        });
        let p = (
            self.command_range_penalty,
            self.command_ability_penalty,
            self.combat_value_penalty,
        );
        if p != (0, 0, 0) {
            out.push_str(&format!(
                " (−{} command range, −{} command ability, −{} combat value)",
                p.0, p.1, p.2
            ));
        }
        if self.captured {
            out.push_str("; and he is captured (2–6 in contact with the enemy, no friends by)");
        }
        out.push('.');
        out
    }
}

fn calc_officer_casualty(
    a: &OfficerCasualtyArgs,
    dice: &mut CalcDice,
) -> Result<OfficerCasualtyReport, CalcError> {
    let rolled = dice.take(
        "--dice",
        a.dice.as_deref(),
        2,
        "an officer casualty (2d6)",
        &RollPurpose::new(RollKind::SfrmCasualty, "officer"),
    )?;
    let roll = rolled.iter().sum::<u8>();
    let c = crate::rules::sfrm::table3(roll).map_err(|e| usage(format!("--dice: {e}")))?;
    Ok(OfficerCasualtyReport {
        dice: rolled,
        roll,
        result: c.result,
        removal: c.removal,
        removed: c.removed(),
        captured: c.captured(a.in_contact_with_enemy, a.with_friends),
        command_range_penalty: c.penalty.command_range,
        command_ability_penalty: c.penalty.command_ability,
        combat_value_penalty: c.penalty.combat_value,
    })
}

fn calc_double_quick(
    a: &DoubleQuickArgs,
    dice: &mut CalcDice,
) -> Result<DoubleQuickReport, CalcError> {
    // Check the column before spending a die on it.
    if !(4..=6).contains(&a.base_morale) {
        return Err(usage(format!(
            "--base-morale: {}",
            morale::MoraleError::NoDoubleQuick(a.base_morale)
        )));
    }
    let rolled = dice.take(
        "--dice",
        a.dice.as_deref(),
        1,
        "a double-quick move",
        &RollPurpose::new(RollKind::DoubleQuick, "unit"),
    )?;
    let die = rolled.first().copied().unwrap_or(0);
    let loss = morale::double_quick_loss(a.base_morale, die).map_err(|e| usage(e.to_string()))?;
    Ok(DoubleQuickReport {
        morale_loss: loss,
        die,
        base_morale: a.base_morale,
    })
}

// ---------------------------------------------------------------- alternate fire

#[derive(Debug, Serialize)]
pub struct AlternateFireReport {
    pub table: u8,
    pub row_castings: u32,
    pub column_castings: u32,
    pub casualty_cell: Cell,
    pub morale_cell: Cell,
    pub casualties: u32,
    /// Levels lost; `null` when the target routs.
    pub morale_loss: Option<u32>,
    pub rout: bool,
    pub effectiveness: i32,
    pub modifiers: Vec<ModifierLine>,
    pub attacker_die: u8,
    pub defender_die: Option<u8>,
    /// The V.G clauses named with `--perilous`, in the turn engine's words.
    pub perilous_why: Vec<String>,
}

fn cell_words(cell: Cell) -> String {
    match cell {
        Cell::Dash => "-".into(),
        Cell::Rout => "R".into(),
        Cell::Roll { base, beat } => format!("{base}>{beat}"),
    }
}

impl Explain for AlternateFireReport {
    fn explain(&self) -> String {
        let mut t = String::new();
        for m in &self.modifiers {
            if m.reason.contains("perilous") {
                let _ = writeln!(
                    t,
                    "  {:+} {} ({})",
                    m.delta,
                    m.reason,
                    peril_words(&self.perilous_why)
                );
            } else {
                let _ = writeln!(t, "  {:+} {}", m.delta, m.reason);
            }
        }
        let _ = writeln!(
            t,
            "Effectiveness {} → table {}; row {} firing castings; column {} target castings (APSoF X.B).",
            self.effectiveness, self.table, self.row_castings, self.column_castings
        );
        let _ = writeln!(
            t,
            "Casualties {}: attacker rolled {} → {} casualt{}.",
            cell_words(self.casualty_cell),
            self.attacker_die,
            self.casualties,
            if self.casualties == 1 { "y" } else { "ies" }
        );
        let _ = match (self.morale_cell, self.defender_die, self.morale_loss) {
            (Cell::Rout, _, _) => writeln!(t, "Morale R: the target routs."),
            (Cell::Dash, _, _) => writeln!(t, "Morale -: no effect."),
            (cell, Some(d), Some(loss)) => writeln!(
                t,
                "Morale {}: defender rolled {d} → {loss} level(s) lost.",
                cell_words(cell)
            ),
            _ => Ok(()),
        };
        t
    }
}

fn calc_alternate_fire(
    args: &AlternateFireArgs,
    dice: &mut CalcDice,
) -> Result<AlternateFireReport, CalcError> {
    let a = &args.setup;
    let s = situation(a)?;
    let fire = AlternateFire {
        effectiveness: s.effectiveness.raw,
        firer_arm: s.arm,
        firer_castings: a.firers,
        target_arm: s.target_arm,
        target_castings: a.targets,
        perilous: perilous_of(&a.perilous).0,
    };
    let (table, row, column) = fire.locate().map_err(|e| usage(e.to_string()))?;
    let (_, morale_cell) = alternate::lookup(table, row, column)
        .ok_or_else(|| usage("no such cell in the alternate fire tables"))?;
    let attacker = dice.take(
        "--dice",
        args.dice.as_deref(),
        1,
        "the casualty column",
        &RollPurpose::new(RollKind::Fire, "firer").with_note("alternate fire"),
    )?;
    let defender = dice.take(
        "--save-dice",
        args.save_dice.as_deref(),
        usize::from(alternate::needs_defender_die(morale_cell)),
        &format!("the morale cell {}", cell_words(morale_cell)),
        &RollPurpose::new(RollKind::MoraleSave, "target").with_note("alternate fire"),
    )?;
    let attacker_die = attacker.first().copied().unwrap_or(0);
    let defender_die = defender.first().copied();
    let out = fire
        .resolve(attacker_die, defender_die)
        .map_err(|e| usage(e.to_string()))?;
    let (morale_loss, rout) = match out.morale {
        MoraleResult::Levels(n) => (Some(n), false),
        MoraleResult::Rout => (None, true),
    };
    Ok(AlternateFireReport {
        table: out.table,
        row_castings: out.row_castings,
        column_castings: out.column_castings,
        casualty_cell: out.casualty_cell,
        morale_cell: out.morale_cell,
        casualties: out.casualties,
        morale_loss,
        rout,
        effectiveness: s.effectiveness.raw,
        modifiers: s.effectiveness.modifiers,
        attacker_die,
        defender_die,
        perilous_why: perilous_of(&a.perilous).1,
    })
}
