//! Officers and the chain of command (APSoF II.D, II.F; SFRM Table 2).

use super::checker::*;
use crate::rules::iron_brigade::kinds::{CommandClass, OfficerLevel, OfficerRating};
use crate::scenario::model::*;
use crate::scenario::names::unknown_name_message;
use crate::scenario::raw::*;

pub(super) fn check_officers(
    c: &mut Checker,
    raw: &[RawOfficer],
    sides: &[Side],
    table: Option<&Table>,
) -> Vec<Officer> {
    let mut out = Vec::new();
    for (i, o) in raw.iter().enumerate() {
        let path = format!("officers[{i}]");
        let name = c.name(&format!("{path}.name"), &o.name);
        let side = c.side_ref(&format!("{path}.side"), &o.side, sides);
        let level = c.vocab(
            &format!("{path}.level"),
            &o.level,
            "officer level",
            OfficerLevel::ALL,
            OfficerLevel::as_str,
        );
        let rating = c.vocab(
            &format!("{path}.rating"),
            &o.rating,
            "officer rating",
            OfficerRating::ALL,
            OfficerRating::as_str,
        );
        let command_class = c.vocab(
            &format!("{path}.command_class"),
            &o.command_class,
            "command class",
            CommandClass::ALL,
            CommandClass::as_str,
        );
        let position = c.required_point(
            &format!("{path}.position"),
            &o.position,
            table,
            "officer position",
        );
        let superior = o.superior.as_ref().map(|s| s.trim().to_string());
        if let (
            Some(name),
            Some(side),
            Some(level),
            Some(rating),
            Some(command_class),
            Some(position),
        ) = (name, side, level, rating, command_class, position)
        {
            out.push(Officer {
                name,
                side,
                level,
                rating,
                command_class,
                mounted: o.mounted.unwrap_or(true),
                position,
                superior,
            });
        }
    }
    check_superiors(c, raw);
    out
}

/// Superiors must exist, be on the same side and not form a loop.
pub(super) fn check_superiors(c: &mut Checker, raw: &[RawOfficer]) {
    let find = |name: &str| {
        raw.iter()
            .position(|o| o.name.as_deref().is_some_and(|n| same(n, name)))
    };
    let names: Vec<&str> = raw.iter().filter_map(|o| o.name.as_deref()).collect();
    let mut up: Vec<Option<usize>> = Vec::with_capacity(raw.len());
    for (i, o) in raw.iter().enumerate() {
        let path = format!("officers[{i}].superior");
        let Some(sup) = &o.superior else {
            up.push(None);
            continue;
        };
        match find(sup) {
            None => {
                c.problem(
                    &path,
                    unknown_name_message("officer", sup, names.iter().copied()),
                );
                up.push(None);
            }
            Some(j) if j == i => {
                c.problem(&path, "an officer cannot be his own superior");
                up.push(None);
            }
            Some(j) => {
                if let (Some(a), Some(b)) = (&o.side, &raw[j].side)
                    && !same(a, b)
                {
                    c.problem(
                        &path,
                        format!(
                            "superior `{sup}` is on side `{b}` but this officer is on `{a}`; a superior must be on the same side"
                        ),
                    );
                }
                up.push(Some(j));
            }
        }
    }
    // Report each cycle once, at its first officer in file order.
    for start in 0..raw.len() {
        let mut members = vec![start];
        let mut at = up.get(start).copied().flatten();
        let mut steps = 0;
        while let Some(j) = at {
            if j == start {
                if members.iter().all(|&m| m >= start) {
                    let chain: Vec<&str> = members
                        .iter()
                        .chain(std::iter::once(&start))
                        .map(|&m| raw[m].name.as_deref().unwrap_or("?"))
                        .collect();
                    c.problem(
                        format!("officers[{start}].superior"),
                        format!(
                            "chain of command goes round in a circle ({}); the top officer needs no superior",
                            chain.join(" → ")
                        ),
                    );
                }
                break;
            }
            steps += 1;
            if steps > raw.len() {
                break;
            }
            members.push(j);
            at = up.get(j).copied().flatten();
        }
    }
}
