//! Dice: reproducible stream, uniform faces, scripted dice that run out loudly.

use adjutant::dice::{DiceError, DiceSource, RollKind, RollPurpose, ScriptedDice, StreamDice};

fn seed() -> [u8; 32] {
    let mut s = [0u8; 32];
    for (i, b) in s.iter_mut().enumerate() {
        *b = i as u8;
    }
    s
}

fn purpose() -> RollPurpose {
    RollPurpose::new(RollKind::Fire, "24th Michigan")
}

#[test]
fn same_seed_same_sequence() {
    let mut a = StreamDice::new(seed());
    let mut b = StreamDice::new(seed());
    let xa = a.roll_many(500, &purpose()).unwrap();
    let xb = b.roll_many(500, &purpose()).unwrap();
    assert_eq!(xa, xb);
    assert_eq!(a.draws(), b.draws());
    let mut c = StreamDice::new([7u8; 32]);
    assert_ne!(xa, c.roll_many(500, &purpose()).unwrap());
}

/// Pinned values: if a dependency upgrade changes the ChaCha20 stream or the
/// rejection sampling changes, this fails, and old games' seeds would no
/// longer reproduce their dice. Cross-checked against an independent
/// ChaCha20 (RFC 8439 keystream, key = seed, nonce 0, counter 0): the first
/// ten little-endian words, each below the rejection bound, mod 6 plus 1.
#[test]
fn first_ten_values_of_a_fixed_seed_are_pinned() {
    let mut d = StreamDice::new(seed());
    let got = d.roll_many(10, &purpose()).unwrap();
    assert_eq!(got, PINNED, "the dice stream changed");
    assert_eq!(d.draws(), 10, "no rejections expected in the first ten");
    let draws: Vec<u64> = d.log().iter().map(|r| r.draw).collect();
    assert_eq!(draws, (0..10).collect::<Vec<u64>>());
}

const PINNED: [u8; 10] = [2, 6, 6, 3, 3, 1, 5, 3, 4, 3];

/// Chi-square of 60,000 d6 from a fixed seed against uniform. With 5
/// degrees of freedom the 0.1% critical value is 20.52; the seed is fixed,
/// so this either always passes or always fails.
#[test]
fn rejection_sampling_is_uniform() {
    let mut d = StreamDice::new(seed());
    let n = 60_000;
    let mut counts = [0u64; 6];
    for v in d.roll_many(n, &purpose()).unwrap() {
        counts[usize::from(v - 1)] += 1;
    }
    let expected = n as f64 / 6.0;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    assert!(chi2 < 20.52, "chi-square {chi2} for counts {counts:?}");
    assert!(d.draws() >= n as u64);
}

#[test]
fn scripted_dice_hand_out_in_order_then_run_out() {
    let mut d = ScriptedDice::new([6, 1, 3]).unwrap();
    assert_eq!(d.roll_many(3, &purpose()).unwrap(), vec![6, 1, 3]);
    let err = d
        .d6(&RollPurpose::new(RollKind::MoraleSave, "Brawner farm line"))
        .unwrap_err();
    assert_eq!(
        err,
        DiceError::Exhausted {
            supplied: 3,
            kind: RollKind::MoraleSave,
            subject: "Brawner farm line".into()
        }
    );
    let msg = err.to_string();
    assert!(
        msg.contains("3 given") && msg.contains("morale-save"),
        "{msg}"
    );
    assert_eq!(d.log().len(), 3);
}

#[test]
fn scripted_dice_refuse_faces_outside_one_to_six() {
    let err = ScriptedDice::new([2, 0, 4]).unwrap_err();
    assert_eq!(
        err,
        DiceError::OutOfRange {
            value: 0,
            position: 1
        }
    );
    assert!(err.to_string().contains("1 to 6"));
}

#[test]
fn log_serialises_as_json_lines_a_report_can_show() {
    let mut d = StreamDice::new(seed());
    d.d6(&RollPurpose::new(RollKind::OfficerHit, "Gibbon").with_note("mounted"))
        .unwrap();
    let json = serde_json::to_value(d.log()).unwrap();
    assert_eq!(json[0]["kind"], "officer-hit");
    assert_eq!(json[0]["subject"], "Gibbon");
    assert_eq!(json[0]["note"], "mounted");
    assert_eq!(json[0]["draw"], 0);
}
