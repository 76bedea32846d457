//! Umpire dice as the turn engine's dice source (issue #8 "Real dice"):
//! the game's dice come from the umpire when its setting says so
//! (`DICE MODE UMPIRE`, a command of `umpire::turns::dice`).
//!
//! In umpire mode the engine runs on [`UmpireDice`]: the dice the umpire
//! has given for the open attempt, in order. When they run out the engine
//! is stopped and nothing of the turn is written; the rolls it wants next
//! are listed, each with its purpose, in a `dice_requests` row and a mail to
//! the umpire. The list is the run of consecutive rolls of the same kind for
//! the same unit or officer (e.g. the five attack dice of one fire, APSoF
//! V.B.1.iii), found by letting the engine go on with placeholder values
//! that are never kept: a batch's size is fixed before its dice are rolled.
//! If a die given for one purpose is, once the dice before it are known,
//! wanted for another, it and the dice after it are set aside (never used)
//! and asked for again with the right purpose: no die is ever used for
//! something it was not rolled for.

use crate::dice::{DiceError, DiceSource, Roll, RollPurpose};
use rusqlite::{OptionalExtension, Transaction, params};

/// At most this many dice are asked for in one request.
pub const MAX_BATCH: usize = 36;

/// A die given by the umpire, with what it was requested for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenDie {
    pub value: u8,
    pub kind: String,
    pub subject: String,
}

/// The umpire's dice as a [`DiceSource`].
#[derive(Debug, Clone, Default)]
pub struct UmpireDice {
    given: Vec<GivenDie>,
    next: usize,
    log: Vec<Roll>,
    /// The rolls wanted beyond those given, in order (empty: enough dice).
    pub wanted: Vec<RollPurpose>,
    /// The first given die the engine wanted for another purpose.
    pub mismatch_at: Option<usize>,
    stopped: bool,
}

impl UmpireDice {
    pub fn new(given: Vec<GivenDie>) -> UmpireDice {
        UmpireDice {
            given,
            ..UmpireDice::default()
        }
    }

    /// Whether the engine needed more dice than it was given.
    pub fn needs_more(&self) -> bool {
        !self.wanted.is_empty()
    }

    /// Dice given and usable (before any mismatch).
    pub fn usable(&self) -> usize {
        self.mismatch_at.unwrap_or(self.given.len())
    }
}

impl DiceSource for UmpireDice {
    fn d6(&mut self, purpose: &RollPurpose) -> Result<u8, DiceError> {
        let exhausted = |s: &Self| DiceError::Exhausted {
            supplied: s.usable(),
            kind: purpose.kind,
            subject: purpose.subject.clone(),
        };
        if self.stopped {
            return Err(exhausted(self));
        }
        if self.mismatch_at.is_none()
            && let Some(die) = self.given.get(self.next)
        {
            if die.kind == purpose.kind.as_str() && die.subject == purpose.subject {
                self.log.push(Roll {
                    draw: self.next as u64,
                    value: die.value,
                    purpose: purpose.clone(),
                });
                self.next += 1;
                return Ok(die.value);
            }
            self.mismatch_at = Some(self.next);
        }
        // Beyond the dice given: note what is wanted, one batch at most.
        let same_batch = self
            .wanted
            .first()
            .is_none_or(|first| first.kind == purpose.kind && first.subject == purpose.subject);
        if same_batch && self.wanted.len() < MAX_BATCH {
            self.wanted.push(purpose.clone());
            // A placeholder: the outcome of this run is thrown away.
            return Ok(1);
        }
        self.stopped = true;
        Err(exhausted(self))
    }

    fn log(&self) -> &[Roll] {
        &self.log
    }

    fn take_log(&mut self) -> Vec<Roll> {
        std::mem::take(&mut self.log)
    }
}

/// Words for a wanted roll: "fire: 10th Ohio (attack die 1 of 5)".
pub fn purpose_words(p: &RollPurpose) -> String {
    if p.note.is_empty() {
        format!("{}: {}", p.kind, p.subject)
    } else {
        format!("{}: {} ({})", p.kind, p.subject, p.note)
    }
}

/// Whether the game's dice come from the umpire.
pub fn umpire_mode(tx: &Transaction<'_>, game: i64) -> Result<bool, rusqlite::Error> {
    tx.query_row(
        "SELECT coalesce(json_extract(settings_json, '$.dice'), 'stream') = 'umpire'
         FROM games WHERE id = ?1",
        [game],
        |r| r.get(0),
    )
}

/// The usable dice given for attempt `turn_id`, in order.
pub fn given_dice(tx: &Transaction<'_>, turn_id: i64) -> Result<Vec<GivenDie>, rusqlite::Error> {
    let mut st = tx.prepare_cached(
        "SELECT value, kind, subject FROM umpire_dice
         WHERE turn_id = ?1 AND discarded_at IS NULL ORDER BY seq",
    )?;
    st.query_map([turn_id], |r| {
        Ok(GivenDie {
            value: r.get(0)?,
            kind: r.get(1)?,
            subject: r.get(2)?,
        })
    })?
    .collect()
}

/// Records that attempt `turn_id` (turn `number`) needs `dice.wanted`,
/// and mails the umpire the list — unless the same request is already
/// open. Dice from a mismatch on are set aside.
#[allow(clippy::too_many_arguments)]
pub(crate) fn request(
    tx: &Transaction<'_>,
    game: &str,
    game_id: i64,
    turn_id: i64,
    number: u32,
    dice: &UmpireDice,
    mail: &super::report_mail::ReportMail,
    now: i64,
) -> Result<Vec<String>, super::turn_error::TurnCycleError> {
    use super::turn_error::TurnCycleError;
    let words: Vec<String> = dice.wanted.iter().map(purpose_words).collect();
    if let Some(at) = dice.mismatch_at {
        tx.execute(
            "UPDATE umpire_dice SET discarded_at = ?3
             WHERE turn_id = ?1 AND seq >= ?2 AND discarded_at IS NULL",
            params![turn_id, i64::try_from(at).unwrap_or(i64::MAX), now],
        )?;
    }
    let first = i64::try_from(dice.usable()).unwrap_or(i64::MAX);
    let wanted_json =
        serde_json::to_string(&dice.wanted).map_err(|source| TurnCycleError::Outcome {
            turn: number,
            source,
        })?;
    let same: Option<i64> = tx
        .query_row(
            "SELECT id FROM dice_requests WHERE turn_id = ?1 AND answered_at IS NULL
             AND first_seq = ?2 AND wanted_json = ?3",
            params![turn_id, first, wanted_json],
            |r| r.get(0),
        )
        .optional()?;
    if same.is_some() {
        return Ok(words);
    }
    tx.execute(
        "UPDATE dice_requests SET answered_at = ?2 WHERE turn_id = ?1 AND answered_at IS NULL",
        params![turn_id, now],
    )?;
    tx.execute(
        "INSERT INTO dice_requests (game_id, turn_id, at, first_seq, wanted_json) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![game_id, turn_id, now, first, wanted_json],
    )?;
    let request_id = tx.last_insert_rowid();
    let umpire: Option<String> = tx.query_row(
        "SELECT umpire_address FROM games WHERE id = ?1",
        [game_id],
        |r| r.get(0),
    )?;
    if let Some(to) = umpire
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
    {
        let mut text = format!(
            "Turn {number} of {game} waits for your dice: {} d6, rolled in this order.\n\
             Answer DICE followed by the values, e.g. DICE {}\n\n",
            words.len(),
            vec!["4"; words.len().min(3)].join(" ")
        );
        for (i, w) in words.iter().enumerate() {
            text.push_str(&format!("{:>3}. {w}\n", i + 1));
        }
        if first > 0 {
            text.push_str(&format!(
                "\n({first} dice of yours are already in for this turn.)\n"
            ));
        }
        let id = format!("{number}-r{request_id}");
        let subject = format!("{game}: turn {number} needs {} dice", words.len());
        let to = vec![to];
        let out = super::report_mail::queue_letter(
            tx,
            mail,
            &super::report_mail::ReportLetter {
                game,
                game_id: crate::store::GameId(game_id),
                kind: "dice-request",
                id: &id,
                to: &to,
                subject: &subject,
                text: &text,
                html: None,
                png: None,
                png_name: None,
                reply_token_for: None,
                now,
            },
        )
        .map_err(|e| TurnCycleError::Reports {
            turn: number,
            source: e.into(),
        })?;
        tx.execute(
            "UPDATE dice_requests SET outbound_mail_id = ?2 WHERE id = ?1",
            params![request_id, out],
        )?;
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::RollKind;

    fn purpose(kind: RollKind, subject: &str) -> RollPurpose {
        RollPurpose::new(kind, subject)
    }

    fn given(value: u8, kind: RollKind, subject: &str) -> GivenDie {
        GivenDie {
            value,
            kind: kind.as_str().to_string(),
            subject: subject.to_string(),
        }
    }

    #[test]
    fn given_dice_are_used_in_order_then_one_batch_is_asked_for() {
        let mut d = UmpireDice::new(vec![
            given(5, RollKind::Fire, "A"),
            given(2, RollKind::Fire, "A"),
        ]);
        let fire = purpose(RollKind::Fire, "A");
        assert_eq!(d.d6(&fire), Ok(5));
        assert_eq!(d.d6(&fire), Ok(2));
        assert!(!d.needs_more());
        // Beyond: the save dice of B are one batch; a rally of C is the next.
        let save = purpose(RollKind::MoraleSave, "B");
        assert!(d.d6(&save).is_ok());
        assert!(d.d6(&save).is_ok());
        assert!(d.d6(&purpose(RollKind::Rally, "C")).is_err());
        assert!(d.d6(&save).is_err(), "stopped for good");
        assert_eq!(d.wanted, vec![save.clone(), save]);
        assert_eq!(d.log().len(), 2, "placeholders are not logged");
        assert_eq!(d.usable(), 2);
    }

    #[test]
    fn a_die_wanted_for_another_purpose_is_set_aside_and_asked_again() {
        let mut d = UmpireDice::new(vec![
            given(4, RollKind::Fire, "A"),
            given(6, RollKind::Fire, "A"),
            given(1, RollKind::Fire, "A"),
        ]);
        assert_eq!(d.d6(&purpose(RollKind::Fire, "A")), Ok(4));
        // With a correction the engine now wants a panic test second.
        let panic = purpose(RollKind::Panic, "A");
        assert!(d.d6(&panic).is_ok());
        assert_eq!(d.mismatch_at, Some(1));
        assert_eq!(d.usable(), 1);
        assert_eq!(d.wanted, vec![panic]);
        assert_eq!(d.log().len(), 1);
    }
}
