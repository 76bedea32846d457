//! Fire outcomes against their exact probabilities (APSoF V.B.1).
//!
//! For n dice and divisor e the casualties are ⌊S/e⌋ where S is the sum of
//! n d6; the exact distribution of S is the n-fold convolution of a uniform
//! die. We resolve many fires through the real code path with a seeded
//! stream and compare the observed casualty counts with the exact ones by
//! chi-square. The seed is fixed, so the test cannot flake; the bound is the
//! 0.1% critical value, so a correct implementation passes with a wide margin
//! while a biased die or an off-by-one divisor fails.

use adjutant::dice::StreamDice;
use adjutant::rules::iron_brigade::fire::{FireInput, resolve_fire};
use adjutant::rules::iron_brigade::kinds::Arm;

/// P(sum of n d6 = s) for s in 0..=6n.
fn sum_distribution(n: usize) -> Vec<f64> {
    let mut dist = vec![1.0];
    for _ in 0..n {
        let mut next = vec![0.0; dist.len() + 6];
        for (s, p) in dist.iter().enumerate() {
            for face in 1..=6 {
                next[s + face] += p / 6.0;
            }
        }
        dist = next;
    }
    dist
}

/// P(casualties = k) for n dice and divisor e (target large enough not to cap).
fn casualty_distribution(n: usize, e: usize) -> Vec<f64> {
    let sums = sum_distribution(n);
    let mut out = vec![0.0; sums.len() / e + 1];
    for (s, p) in sums.iter().enumerate() {
        out[s / e] += p;
    }
    out
}

/// Upper 0.1% point of chi-square with k degrees of freedom (Wilson–Hilferty).
fn chi2_critical(k: usize) -> f64 {
    let k = k as f64;
    let z = 3.090_232; // standard normal 0.999 quantile
    let a = 2.0 / (9.0 * k);
    k * (1.0 - a + z * a.sqrt()).powi(3)
}

fn check(castings: u32, divisor: u8, trials: usize, seed_byte: u8) {
    let n = (castings / 4) as usize;
    let exact = casualty_distribution(n, usize::from(divisor));
    let mut observed = vec![0u64; exact.len()];
    let mut dice = StreamDice::new([seed_byte; 32]);
    let input = FireInput {
        firer_arm: Arm::Infantry,
        firer_castings: castings,
        target_arm: Arm::Infantry,
        target_castings: 1_000,
        divisor,
        perilous: false,
    };
    for _ in 0..trials {
        let out = resolve_fire(&input, &mut dice, "firer", "target").unwrap();
        observed[out.casualties as usize] += 1;
    }
    // Merge sparse cells (expected < 5) into their neighbours so the
    // chi-square approximation holds.
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let (mut e_acc, mut o_acc) = (0.0, 0.0);
    for (p, &o) in exact.iter().zip(&observed) {
        e_acc += p * trials as f64;
        o_acc += o as f64;
        if e_acc >= 5.0 {
            cells.push((e_acc, o_acc));
            e_acc = 0.0;
            o_acc = 0.0;
        }
    }
    if let Some(last) = cells.last_mut() {
        last.0 += e_acc;
        last.1 += o_acc;
    }
    let chi2: f64 = cells.iter().map(|(e, o)| (o - e).powi(2) / e).sum();
    let dof = cells.len() - 1;
    assert!(
        dof >= 2,
        "too few cells for castings {castings}, divisor {divisor}"
    );
    assert!(
        chi2 < chi2_critical(dof),
        "castings {castings}, divisor {divisor}: chi-square {chi2:.2} with {dof} dof exceeds {:.2}",
        chi2_critical(dof)
    );
    // The mean must also match: E[casualties] from the exact distribution.
    let mean_exact: f64 = exact.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
    let mean_obs: f64 = observed
        .iter()
        .enumerate()
        .map(|(k, &o)| k as f64 * o as f64)
        .sum::<f64>()
        / trials as f64;
    assert!(
        (mean_obs - mean_exact).abs() < 0.05,
        "mean {mean_obs} vs exact {mean_exact}"
    );
}

#[test]
fn exact_distribution_sanity() {
    let two = sum_distribution(2);
    assert!((two[7] - 6.0 / 36.0).abs() < 1e-12);
    let total: f64 = casualty_distribution(5, 4).iter().sum();
    assert!((total - 1.0).abs() < 1e-12);
    // Wilson–Hilferty is within 0.5 of (slightly above) the tabulated 0.1% points: 5 dof 20.52, 10 dof 29.59.
    assert!((chi2_critical(5) - 20.52).abs() < 0.5);
    assert!((chi2_critical(10) - 29.59).abs() < 0.5);
}

#[test]
fn worked_example_size_fire_matches_exact_probabilities() {
    check(21, 4, 20_000, 11);
}

#[test]
fn small_fire_at_long_range_matches() {
    check(8, 6, 20_000, 12);
}

#[test]
fn large_fire_at_close_range_matches() {
    check(40, 3, 20_000, 13);
}

#[test]
fn fire_at_divisor_one_matches() {
    check(12, 1, 20_000, 14);
}
