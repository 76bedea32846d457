//! Dice: a seeded ChaCha20 stream with a draw counter, and scripted dice.
//!
//! The adjudicator never touches global randomness. Every roll comes from a
//! [`DiceSource`] handed in by the caller, and every roll is logged with the
//! draw it came from, its purpose and the unit or officer it concerns, so an
//! umpire (or a suspicious player, once the seed is revealed) can replay a
//! turn die by die.
//!
//! [`StreamDice`] draws `u32`s from `ChaCha20Rng` and turns them into d6 by
//! rejection sampling. We do this by hand instead of using `gen_range` or
//! `StdRng` because their value streams are not promised to stay the same
//! across crate versions; the ChaCha20 word stream is. [`ScriptedDice`] hands
//! out values an umpire rolled on a real table (or a test chose).

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// What a roll was for. Kept short and closed so reports can group rolls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RollKind {
    /// Attack dice of a fire combat (APSoF V.B.1.iii).
    Fire,
    /// The target's dice to save morale after fire (APSoF V.B.1.vi).
    MoraleSave,
    /// Rally attempt (APSoF VI.E).
    Rally,
    /// Panic and saving dice when a friend breaks (APSoF VI.D.2).
    Panic,
    /// Contact morale (APSoF VI.D.3).
    Contact,
    /// Double-quick morale cost (APSoF VI.D.4).
    DoubleQuick,
    /// Obedience of an order from outside the chain of command (APSoF I.C.1).
    OrderDelay,
    /// Whether an officer in the line of fire is hit (APSoF V.H.2).
    OfficerHit,
    /// Who fires first when units fire at each other (APSoF V.B.2).
    FireOrder,
    /// When a replacement officer arrives (APSoF V.H.3).
    OfficerReplacement,
    /// Whether a unit's regimental command survives heavy fire (APSoF VII.G).
    RegimentalCommand,
    /// A general's roll to read a dispatch he holds: d6 ≤ command ability
    /// (SFRM Table 2, "Discussions of Strategy & Tactics During Play").
    SfrmRead,
    /// One die of the 2d6 on SFRM Table 3, "Officer Casualties" (a
    /// messenger contacted or fired upon, or a general hit under the
    /// `sfrm-officer-casualties` option).
    SfrmCasualty,
    /// A general's d6 against his command ability to command this turn
    /// (SFRM "Command", i), in the brigade-scale game.
    SfrmCommand,
    /// The die for the possible further casualty after dividing a combat
    /// total by 6 (SFRM "Combat").
    SfrmCombat,
    /// One die of the 2d6 on SFRM Table 5, "Seeing The Elephant".
    SfrmGreen,
    /// The weather die of SFRM Table 8.
    SfrmWeather,
    /// Anything else; say what in the note.
    Other,
}

impl RollKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RollKind::Fire => "fire",
            RollKind::MoraleSave => "morale-save",
            RollKind::Rally => "rally",
            RollKind::Panic => "panic",
            RollKind::Contact => "contact",
            RollKind::DoubleQuick => "double-quick",
            RollKind::OrderDelay => "order-delay",
            RollKind::OfficerHit => "officer-hit",
            RollKind::FireOrder => "fire-order",
            RollKind::OfficerReplacement => "officer-replacement",
            RollKind::RegimentalCommand => "regimental-command",
            RollKind::SfrmRead => "sfrm-read",
            RollKind::SfrmCasualty => "sfrm-casualty",
            RollKind::SfrmCommand => "sfrm-command",
            RollKind::SfrmCombat => "sfrm-combat",
            RollKind::SfrmGreen => "sfrm-green",
            RollKind::SfrmWeather => "sfrm-weather",
            RollKind::Other => "other",
        }
    }
}

impl fmt::Display for RollKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a die is being rolled and for whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollPurpose {
    pub kind: RollKind,
    /// The unit or officer the roll concerns ("2nd Wisconsin", "Gibbon").
    pub subject: String,
    /// Free text: "bad officer", "attack die 3 of 5", ...
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

impl RollPurpose {
    pub fn new(kind: RollKind, subject: impl Into<String>) -> Self {
        RollPurpose {
            kind,
            subject: subject.into(),
            note: String::new(),
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }
}

/// One logged roll.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roll {
    /// Position in the source: for [`StreamDice`] the index of the `u32`
    /// draw that produced the value (rejected draws are skipped but counted);
    /// for [`ScriptedDice`] the index of the value in the script.
    pub draw: u64,
    pub value: u8,
    #[serde(flatten)]
    pub purpose: RollPurpose,
}

/// A die could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    #[error(
        "ran out of supplied dice: {supplied} given, another one needed for {kind} ({subject}); supply more dice"
    )]
    Exhausted {
        supplied: usize,
        kind: RollKind,
        subject: String,
    },
    #[error("die value {value} at position {position} is not a d6 roll; each die must be 1 to 6")]
    OutOfRange { value: i64, position: usize },
}

/// Anything that hands out d6 rolls and remembers them.
pub trait DiceSource {
    /// Roll one d6 (1..=6) for `purpose` and log it.
    fn d6(&mut self, purpose: &RollPurpose) -> Result<u8, DiceError>;

    /// Every roll made so far (since the last [`DiceSource::take_log`]), oldest first.
    fn log(&self) -> &[Roll];

    /// Hand over the log and start a fresh one, e.g. at the end of a phase
    /// whose rolls are written out as events. The stream position is kept.
    fn take_log(&mut self) -> Vec<Roll>;

    /// Roll `count` d6 for the same purpose.
    fn roll_many(&mut self, count: usize, purpose: &RollPurpose) -> Result<Vec<u8>, DiceError> {
        (0..count).map(|_| self.d6(purpose)).collect()
    }
}

/// The largest multiple of 6 not above 2^32: draws at or above it are
/// rejected so that each face keeps exactly 715,827,882 of the accepted
/// `u32` values.
const ACCEPT_BELOW: u64 = (1u64 << 32) - ((1u64 << 32) % 6);

/// A seeded, reproducible d6 stream: ChaCha20 keyed by a 32-byte seed.
///
/// The draw counter counts `u32` words taken from the stream (rejected ones
/// included), so `(seed, draws)` pins the stream's position exactly and a
/// game can resume after a restart with [`StreamDice::resume`].
#[derive(Debug, Clone)]
pub struct StreamDice {
    rng: ChaCha20Rng,
    seed: [u8; 32],
    draws: u64,
    log: Vec<Roll>,
}

/// A seed that is not 64 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("dice seed must be 64 hex digits (32 bytes); got `{given}`")]
pub struct SeedError {
    pub given: String,
}

impl StreamDice {
    pub fn new(seed: [u8; 32]) -> Self {
        StreamDice {
            rng: ChaCha20Rng::from_seed(seed),
            seed,
            draws: 0,
            log: Vec::new(),
        }
    }

    /// Continue a stream after `draws` words were already used (e.g. by
    /// earlier turns of the same game). The log starts empty.
    pub fn resume(seed: [u8; 32], draws: u64) -> Self {
        let mut dice = StreamDice::new(seed);
        // ChaCha's word position counts u32 words, exactly our draw unit.
        dice.rng.set_word_pos(u128::from(draws));
        dice.draws = draws;
        dice
    }

    /// Parse a seed written as 64 hex digits.
    pub fn parse_seed(hex_seed: &str) -> Result<[u8; 32], SeedError> {
        let err = || SeedError {
            given: hex_seed.to_string(),
        };
        let bytes = hex::decode(hex_seed.trim()).map_err(|_| err())?;
        bytes.try_into().map_err(|_| err())
    }

    pub fn seed(&self) -> [u8; 32] {
        self.seed
    }

    pub fn seed_hex(&self) -> String {
        hex::encode(self.seed)
    }

    /// How many `u32` words have been drawn from the stream so far.
    pub fn draws(&self) -> u64 {
        self.draws
    }
}

/// SHA-256 of the seed, in hex: published before a turn so players can later
/// check that the revealed seed is the one that was used (design.md "Dice").
pub fn seed_commitment(seed: &[u8; 32]) -> String {
    hex::encode(Sha256::digest(seed))
}

impl DiceSource for StreamDice {
    fn d6(&mut self, purpose: &RollPurpose) -> Result<u8, DiceError> {
        loop {
            let draw = self.draws;
            let word = u64::from(self.rng.next_u32());
            self.draws += 1;
            if word < ACCEPT_BELOW {
                // word % 6 < 6, so the cast cannot truncate.
                let value = (word % 6) as u8 + 1;
                self.log.push(Roll {
                    draw,
                    value,
                    purpose: purpose.clone(),
                });
                return Ok(value);
            }
        }
    }

    fn log(&self) -> &[Roll] {
        &self.log
    }

    fn take_log(&mut self) -> Vec<Roll> {
        std::mem::take(&mut self.log)
    }
}

/// Dice supplied in advance: rolled by hand on a real table, or chosen by a
/// test. Hands them out in order; running out is an error, never a silent
/// fallback to random dice.
#[derive(Debug, Clone)]
pub struct ScriptedDice {
    values: Vec<u8>,
    next: usize,
    log: Vec<Roll>,
}

impl ScriptedDice {
    /// Accepts any integers so that a bad value from a user is reported with
    /// its position instead of being truncated on the way in.
    pub fn new<I, T>(values: I) -> Result<Self, DiceError>
    where
        I: IntoIterator<Item = T>,
        T: Into<i64>,
    {
        let values = values
            .into_iter()
            .enumerate()
            .map(|(position, v)| {
                let value: i64 = v.into();
                u8::try_from(value)
                    .ok()
                    .filter(|d| (1..=6).contains(d))
                    .ok_or(DiceError::OutOfRange { value, position })
            })
            .collect::<Result<Vec<u8>, DiceError>>()?;
        Ok(ScriptedDice {
            values,
            next: 0,
            log: Vec::new(),
        })
    }

    /// Dice not yet handed out.
    pub fn remaining(&self) -> usize {
        self.values.len() - self.next
    }
}

impl DiceSource for ScriptedDice {
    fn d6(&mut self, purpose: &RollPurpose) -> Result<u8, DiceError> {
        let value = *self
            .values
            .get(self.next)
            .ok_or_else(|| DiceError::Exhausted {
                supplied: self.values.len(),
                kind: purpose.kind,
                subject: purpose.subject.clone(),
            })?;
        self.log.push(Roll {
            draw: self.next as u64,
            value,
            purpose: purpose.clone(),
        });
        self.next += 1;
        Ok(value)
    }

    fn log(&self) -> &[Roll] {
        &self.log
    }

    fn take_log(&mut self) -> Vec<Roll> {
        std::mem::take(&mut self.log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn purpose() -> RollPurpose {
        RollPurpose::new(RollKind::Fire, "2nd Wisconsin")
    }

    #[test]
    fn accept_bound_is_the_largest_multiple_of_six() {
        assert_eq!(ACCEPT_BELOW, 4_294_967_292);
        assert_eq!(ACCEPT_BELOW % 6, 0);
    }

    #[test]
    fn resume_continues_the_same_stream() {
        let seed = [9u8; 32];
        let mut a = StreamDice::new(seed);
        let first: Vec<u8> = a.roll_many(20, &purpose()).unwrap();
        let used = a.draws();
        let rest_a = a.roll_many(20, &purpose()).unwrap();
        let mut b = StreamDice::resume(seed, used);
        let rest_b = b.roll_many(20, &purpose()).unwrap();
        assert_eq!(rest_a, rest_b);
        assert_eq!(first.len(), 20);
        assert_eq!(b.draws(), a.draws());
    }

    #[test]
    fn log_records_draw_value_and_purpose() {
        let mut d = StreamDice::new([1u8; 32]);
        let p = RollPurpose::new(RollKind::Rally, "6th Wisconsin").with_note("bad officer");
        let v = d.d6(&p).unwrap();
        let log = d.log();
        assert_eq!(log.len(), 1);
        assert_eq!(log[0].value, v);
        assert_eq!(log[0].purpose, p);
        let json = serde_json::to_string(&log[0]).unwrap();
        assert!(json.contains("\"kind\":\"rally\""), "{json}");
        assert!(json.contains("\"subject\":\"6th Wisconsin\""), "{json}");
        let back: Roll = serde_json::from_str(&json).unwrap();
        assert_eq!(back, log[0]);
    }

    #[test]
    fn take_log_drains_but_keeps_the_stream_position() {
        let mut a = StreamDice::new([4u8; 32]);
        a.roll_many(3, &purpose()).unwrap();
        let first = a.take_log();
        assert_eq!(first.len(), 3);
        assert!(a.log().is_empty());
        let v = a.d6(&purpose()).unwrap();
        assert_eq!(a.log()[0].draw, a.draws() - 1);
        let mut b = StreamDice::new([4u8; 32]);
        assert_eq!(b.roll_many(4, &purpose()).unwrap()[3], v);
    }

    #[test]
    fn seed_parses_from_hex_and_rejects_bad_text() {
        let hex_seed = "00".repeat(31) + "ff";
        let seed = StreamDice::parse_seed(&hex_seed).unwrap();
        assert_eq!(seed[31], 0xff);
        assert!(StreamDice::parse_seed("abc").is_err());
        assert!(StreamDice::parse_seed(&"zz".repeat(32)).is_err());
    }

    #[test]
    fn commitment_is_sha256_of_the_seed() {
        let c = seed_commitment(&[0u8; 32]);
        assert_eq!(
            c,
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
    }

    #[test]
    fn scripted_rejects_values_outside_a_die() {
        assert_eq!(
            ScriptedDice::new([3, 7]).unwrap_err(),
            DiceError::OutOfRange {
                value: 7,
                position: 1
            }
        );
        assert!(ScriptedDice::new([0]).is_err());
        assert!(ScriptedDice::new([-1i64]).is_err());
    }
}
