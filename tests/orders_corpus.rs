//! The order language measured against orders as players write them (#15).
//!
//! `tests/corpus/orders-brawners-farm.txt` holds order paragraphs for
//! Brawner's Farm written the way tabletop and PBEM players write them
//! (period prose, umpire shorthand, compass and distance, relative places,
//! described targets, report letters, typos, bullets), each with what the
//! player meant. This test reads every one as that player would be read
//! under the default identity policy (enemies by letter) and counts:
//!
//! - **understood**: no error, and every expected reading is there;
//! - **refused as meant**: a case that should be refused, with an error
//!   saying what the case expects;
//! - **wrong**: read without error but not as meant;
//! - **refused**: an error where the player meant something readable.
//!
//! and, for every case, that nothing read or answered names an enemy unit
//! by a real name the policy hides, unless the player wrote it himself.
//! Run with `--nocapture` to see the table and every case that missed.

mod orders_support;

use adjutant::identity::{EnemyNames, IdentityPolicy};
use adjutant::orders::{DispatchTo, ParseContext, normalise, parse_mail, receipt_notes};
use adjutant::rules::iron_brigade::state::{SideId, UnitId};
use orders_support::{Game, game};
use std::collections::{BTreeMap, BTreeSet};

/// What the Union has seen by turn 3, lettered west to east (A..F).
const UNION_SEES: &[&str] = &[
    "4th Virginia",
    "2nd Virginia",
    "Wooding's Battery",
    "5th Virginia",
    "27th Virginia",
    "33rd Virginia",
];
/// What the Confederates have seen by turn 3 (A..E).
const CONFED_SEES: &[&str] = &[
    "19th Indiana",
    "Battery B, 4th US Artillery",
    "2nd Wisconsin",
    "7th Wisconsin",
    "6th Wisconsin",
];

struct Case {
    id: String,
    category: String,
    player: String,
    text: String,
    oks: Vec<(String, Vec<String>)>,
    refuses: Vec<Vec<String>>,
    notes: Vec<Vec<String>>,
}

/// The asserted corpus: each file with the floor it must not fall below,
/// the figure measured when the language was last grown to meet it (so a
/// change that loses readings fails here). Rounds 10 (blind, five
/// players' styles) and 11 (the session's own styles) joined in session 9
/// once grown to meet them; round 12 (letters, reports to a superior and
/// second-language prose, session 10) likewise; their first-sight figures
/// are in docs/orders.md.
const CORPUS: &[(&str, f64)] = &[
    ("orders-brawners-farm.txt", MIN_PERCENT),
    ("orders-brawners-farm-round10.txt", 87.5),
    ("orders-brawners-farm-round11-own.txt", 100.0),
    // Session 10 (terse15): phone, umpire shorthand and bullet lists,
    // written before the language grew for them (first sight 6 of 30).
    ("orders-brawners-farm-round12-terse.txt", 96.0),
    // Session 10 (letters15): letters, reports to a superior and
    // second-language prose, written before the language grew for them
    // (first sight 19 of 30).
    ("orders-brawners-farm-round12-letters.txt", 96.0),
];

/// The corpus files, or another of the same format named by
/// `ORDERS_CORPUS` (to measure a fresh blind round on first sight, before
/// it joins the corpus: the table is printed, the floor not asserted).
fn corpus_paths() -> Vec<(String, Option<f64>)> {
    match std::env::var("ORDERS_CORPUS") {
        Ok(p) => vec![(p, None)],
        Err(_) => CORPUS
            .iter()
            .map(|(f, floor)| {
                (
                    format!("{}/tests/corpus/{f}", env!("CARGO_MANIFEST_DIR")),
                    Some(*floor),
                )
            })
            .collect(),
    }
}

fn cases(path: &str) -> Vec<Case> {
    let src = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<Case> = Vec::new();
    for line in src.lines() {
        if let Some(head) = line.strip_prefix("=== ") {
            let mut w = head.split_whitespace();
            out.push(Case {
                id: w.next().unwrap().to_string(),
                category: w.next().unwrap().to_string(),
                player: w.next().unwrap().to_string(),
                text: String::new(),
                oks: Vec::new(),
                refuses: Vec::new(),
                notes: Vec::new(),
            });
            continue;
        }
        let Some(case) = out.last_mut() else { continue };
        let kws = |s: &str| -> Vec<String> {
            s.split(" ; ")
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
                .collect()
        };
        if let Some(rest) = line.strip_prefix("ok ") {
            let (subject, want) = rest.split_once(" :: ").unwrap_or((rest, ""));
            case.oks.push((subject.trim().to_string(), kws(want)));
        } else if let Some(rest) = line.strip_prefix("refuse :: ") {
            case.refuses.push(kws(rest));
        } else if let Some(rest) = line.strip_prefix("note :: ") {
            case.notes.push(kws(rest));
        } else if case.oks.is_empty() && case.refuses.is_empty() && case.notes.is_empty() {
            // The mail body runs from the case line to its first expectation.
            case.text.push_str(line);
            case.text.push('\n');
        }
    }
    for c in &mut out {
        c.text = c.text.trim().to_string();
    }
    out
}

/// The context of the player who plays `officer`, with the side's sightings
/// lettered as a real game letters them (`identity::EnemyNames`).
fn context<'g>(g: &'g Game, officer: &str) -> ParseContext<'g> {
    let mut ctx = g.ctx(&[officer], &[]);
    let union = ctx.side == SideId(0);
    let seen: Vec<UnitId> = if union { UNION_SEES } else { CONFED_SEES }
        .iter()
        .map(|n| g.unit(n))
        .collect();
    let mut names = EnemyNames::new(IdentityPolicy::Hidden);
    names.record_seen(&g.state, ctx.side, 3, seen.iter().copied());
    ctx.visible_enemies = seen.into_iter().collect::<BTreeSet<_>>();
    ctx.enemy_names = names;
    ctx
}

/// Every "(x, y)" pair in a reading.
fn places(text: &str) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find(')') else { break };
        let inner = &rest[..close];
        if let Some((a, b)) = inner.split_once(',')
            && let (Ok(x), Ok(y)) = (a.trim().parse::<f64>(), b.trim().parse::<f64>())
        {
            out.push((x, y));
        }
    }
    out
}

fn keyword_met(kw: &str, text: &str) -> bool {
    kw.split(" / ").any(|alt| alternative_met(alt.trim(), text))
}

fn alternative_met(alt: &str, text: &str) -> bool {
    if let Some(spec) = alt.strip_prefix('@') {
        let v: Vec<f64> = spec
            .split(',')
            .map(|n| n.trim().parse::<f64>().unwrap())
            .collect();
        return places(text)
            .iter()
            .any(|(x, y)| ((x - v[0]).powi(2) + (y - v[1]).powi(2)).sqrt() <= v[2]);
    }
    text.to_lowercase().contains(&alt.to_lowercase())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Understood,
    RefusedAsMeant,
    Wrong,
    Refused,
}

#[test]
fn corpus_of_player_orders() {
    let mut failures = Vec::new();
    for (path, floor) in corpus_paths() {
        println!("== {path}");
        if let Err(e) = measure(&path, floor) {
            failures.push(format!("{path}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Read every case of one corpus file, print the table, and check it
/// (unless `floor` is `None`, a blind round measured on first sight).
fn measure(path: &str, floor: Option<f64>) -> Result<(), String> {
    let g = game("brawners-farm.toml");
    let all_enemy_names: Vec<(SideId, String)> = g
        .state
        .units
        .iter()
        .map(|u| (u.side, u.name.clone()))
        .collect();
    let cases = cases(path);
    if cases.is_empty() {
        return Err("no cases".to_string());
    }
    let mut table: BTreeMap<String, BTreeMap<Outcome, usize>> = BTreeMap::new();
    let mut leaks = Vec::new();
    let mut unhelpful: Vec<String> = Vec::new();
    let mut misses = Vec::new();
    let mut totals: BTreeMap<Outcome, usize> = BTreeMap::new();
    for case in &cases {
        let ctx = context(&g, &case.player);
        let parsed = parse_mail(&case.text, &ctx);
        let readings: Vec<String> = parsed.items.iter().map(|i| normalise(i, &ctx)).collect();
        let errors: Vec<String> = parsed.errors.iter().map(|e| e.to_string()).collect();
        // Every refusal says what was not understood and what to write:
        // never the bare grammar's "expected ';' ... found".
        for e in &errors {
            if e.contains("expected ';', 'then' or the end of the order") {
                unhelpful.push(format!("{}: {e}", case.id));
            }
        }
        // What the receipt says besides the reading (places chosen, a
        // destination off the table, a route through the enemy).
        let receipt: Vec<String> = parsed
            .items
            .iter()
            .flat_map(|i| receipt_notes(i, &ctx))
            .collect();
        // Dispatches as the receipt names them ("Dispatch to Taliaferro").
        let dispatched: Vec<String> = parsed
            .dispatches
            .iter()
            .map(|d| match &d.to {
                DispatchTo::Officer(o) => g
                    .state
                    .officer(*o)
                    .map(|x| format!("dispatch to {}", x.name))
                    .unwrap_or_default(),
                DispatchTo::Name(n) => format!("dispatch to {n}"),
            })
            .collect();
        let everything = format!("{readings:?} {receipt:?} {errors:?} {dispatched:?} {parsed:?}");

        // Fog: no hidden real name the player did not write himself.
        for (side, name) in &all_enemy_names {
            if *side != ctx.side
                && everything.contains(name.as_str())
                && !case.text.contains(name.as_str())
            {
                leaks.push(format!("{}: '{name}' in {everything}", case.id));
            }
        }

        let oks_met = case.oks.iter().all(|(subject, kws)| {
            readings.iter().any(|r| {
                r.to_lowercase().starts_with(&subject.to_lowercase())
                    && kws.iter().all(|k| keyword_met(k, r))
            })
        });
        let notes_met = case
            .notes
            .iter()
            .all(|kws| kws.iter().all(|k| keyword_met(k, &everything)));
        let outcome = if !case.refuses.is_empty() {
            let meant = case
                .refuses
                .iter()
                .all(|kws| errors.iter().any(|e| kws.iter().all(|k| keyword_met(k, e))));
            if meant {
                Outcome::RefusedAsMeant
            } else if errors.is_empty() {
                Outcome::Wrong
            } else {
                Outcome::Refused
            }
        } else if !errors.is_empty() {
            Outcome::Refused
        } else if oks_met && notes_met {
            Outcome::Understood
        } else {
            Outcome::Wrong
        };
        if matches!(outcome, Outcome::Wrong | Outcome::Refused) {
            misses.push(format!(
                "{} [{}] {:?}\n    as written: {}\n    read: {readings:?}\n    errors: {errors:?}",
                case.id,
                case.category,
                outcome,
                case.text.trim().replace('\n', " / "),
            ));
        }
        *table
            .entry(case.category.clone())
            .or_default()
            .entry(outcome)
            .or_default() += 1;
        *totals.entry(outcome).or_default() += 1;
    }

    println!("category      understood  refused-as-meant  wrong  refused");
    for (cat, row) in &table {
        let n = |o| row.get(&o).copied().unwrap_or(0);
        println!(
            "{cat:<13} {:>10}  {:>16}  {:>5}  {:>7}",
            n(Outcome::Understood),
            n(Outcome::RefusedAsMeant),
            n(Outcome::Wrong),
            n(Outcome::Refused)
        );
    }
    let n = |o| totals.get(&o).copied().unwrap_or(0);
    let good = n(Outcome::Understood) + n(Outcome::RefusedAsMeant);
    let pct = 100.0 * good as f64 / cases.len() as f64;
    println!(
        "all: {good} of {} as meant ({pct:.0} %), {} wrong, {} refused",
        cases.len(),
        n(Outcome::Wrong),
        n(Outcome::Refused)
    );
    for m in &misses {
        println!("{m}");
    }
    for e in &unhelpful {
        println!("UNHELPFUL {e}");
    }
    println!("leaks: {}", leaks.len());
    for l in &leaks {
        println!("LEAK {l}");
    }
    let Some(floor) = floor else {
        return Ok(());
    };
    if !leaks.is_empty() {
        return Err(format!("leaks:\n{}", leaks.join("\n")));
    }
    if !unhelpful.is_empty() {
        return Err(format!(
            "refusals that do not say what to write:\n{}",
            unhelpful.join("\n")
        ));
    }
    if n(Outcome::Wrong) > 0 {
        return Err(format!("{} cases read wrongly", n(Outcome::Wrong)));
    }
    if pct < floor {
        return Err(format!(
            "only {pct:.0} % of the corpus read as meant (floor {floor} %)"
        ));
    }
    Ok(())
}

/// The floor the main corpus file must not fall below: the figure measured
/// when the language was last grown, so a change that loses readings fails
/// here. Session 9 (grammar15b) left 7 of its 509 cases refused (none read
/// wrongly): 502 of 509, 98.6 %.
const MIN_PERCENT: f64 = 98.0;
