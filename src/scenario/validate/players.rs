//! Players, and names that orders could not tell apart.

use super::checker::*;
use super::header::{check_address, check_time_zone};
use crate::scenario::model::*;
use crate::scenario::names::unknown_name_message;
use crate::scenario::raw::*;
use std::collections::{BTreeMap, HashMap};

pub(super) fn check_players(
    c: &mut Checker,
    all: &RawScenario,
    sides: &[Side],
    officers: &[Officer],
) -> Vec<Player> {
    let raw = &all.players;
    let mut out = Vec::new();
    let mut names: Vec<String> = Vec::new();
    // Officer (lower-case) -> the player path that first claimed him.
    let mut claimed: HashMap<String, String> = HashMap::new();
    for (i, p) in raw.iter().enumerate() {
        let path = format!("players[{i}]");
        let name = c.name(&format!("{path}.name"), &p.name);
        if let Some(n) = &name {
            if names.iter().any(|m| same(m, n)) {
                c.problem(
                    format!("{path}.name"),
                    format!("duplicate player name `{n}`"),
                );
            }
            names.push(n.clone());
        }
        let side = c.side_ref(&format!("{path}.side"), &p.side, sides);
        if p.addresses.is_empty() {
            c.problem(
                format!("{path}.addresses"),
                "player has no mail address; add `addresses = [\"name@example.org\"]`",
            );
        }
        for (j, a) in p.addresses.iter().enumerate() {
            check_address(c, &format!("{path}.addresses[{j}]"), a);
        }
        if let Some(tz) = &p.time_zone {
            check_time_zone(c, &format!("{path}.time_zone"), tz);
        }
        if p.officers.is_empty() {
            c.problem(
                format!("{path}.officers"),
                "player commands no officer; list the officers they play in `officers`",
            );
        }
        let mut ok = true;
        let mut their = Vec::new();
        for (j, o) in p.officers.iter().enumerate() {
            let opath = format!("{path}.officers[{j}]");
            match officers.iter().find(|x| same(&x.name, o)) {
                None => {
                    ok = false;
                    // An officer that exists but is itself invalid is
                    // reported at his own entry, not again here.
                    if !named_in(all.officers.iter().map(|x| &x.name), o) {
                        let known = all.officers.iter().filter_map(|x| x.name.as_deref());
                        c.problem(&opath, unknown_name_message("officer", o, known));
                    }
                }
                Some(officer) => {
                    if let Some(s) = &side
                        && !same(s, &officer.side)
                    {
                        c.problem(
                            &opath,
                            format!(
                                "officer `{}` is on side `{}` but this player is on `{s}`",
                                officer.name, officer.side
                            ),
                        );
                    }
                    let key = officer.name.to_lowercase();
                    if let Some(first) = claimed.get(&key) {
                        c.problem(
                            &opath,
                            format!(
                                "officer `{}` is already commanded by {first}; an officer has one player",
                                officer.name
                            ),
                        );
                    } else {
                        claimed.insert(key, format!("{path} ({})", name.as_deref().unwrap_or("?")));
                    }
                    their.push(officer.name.clone());
                }
            }
        }
        if let (Some(name), Some(side), true) = (name, side, ok) {
            out.push(Player {
                name,
                side,
                addresses: p.addresses.iter().map(|a| a.trim().to_string()).collect(),
                time_zone: p.time_zone.clone(),
                officers: their,
            });
        }
    }
    out
}

/// Unit and officer names and unit aliases share one namespace, because an
/// order addresses any of them by name: a clash would make an order mean two
/// things. Compared case-insensitively.
pub(super) fn check_ambiguous_names(c: &mut Checker, raw: &RawScenario) {
    // lower-case name -> (path, owner) of the first use.
    let mut seen: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut entries: Vec<(String, String, String, bool)> = Vec::new();
    for (i, o) in raw.officers.iter().enumerate() {
        if let Some(n) = &o.name {
            entries.push((
                format!("officers[{i}].name"),
                format!("officers[{i}]"),
                n.clone(),
                true,
            ));
        }
    }
    for (i, u) in raw.units.iter().enumerate() {
        if let Some(n) = &u.name {
            entries.push((
                format!("units[{i}].name"),
                format!("units[{i}]"),
                n.clone(),
                true,
            ));
        }
        for (j, a) in u.aliases.iter().enumerate() {
            entries.push((
                format!("units[{i}].aliases[{j}]"),
                format!("units[{i}]"),
                a.clone(),
                false,
            ));
        }
    }
    for (path, owner, name, primary) in entries {
        let key = name.trim().to_lowercase();
        if key.is_empty() {
            continue;
        }
        match seen.get(&key) {
            Some((other_path, other_owner)) if *other_owner != owner => {
                let both_names = primary && other_path.ends_with(".name");
                let same_kind = owner.split('[').next() == other_owner.split('[').next();
                let msg = if both_names && same_kind {
                    format!(
                        "duplicate name `{}`: {other_path} has it too; names must be unique",
                        name.trim()
                    )
                } else {
                    format!(
                        "ambiguous name `{}`: {other_path} is also called that, so an order naming it could mean either; rename one",
                        name.trim()
                    )
                };
                c.problem(path, msg);
            }
            Some(_) => {}
            None => {
                seen.insert(key, (path, owner));
            }
        }
    }
}
