//! Cross-checks a [`NewGame`] before anything is written, so the operator
//! gets one sentence naming the bad entry of the scenario instead of a
//! constraint error from SQLite.

use super::StoreError;
use super::games::NewGame;
use std::collections::{HashMap, HashSet};

/// Case-insensitive key, matching the `COLLATE NOCASE` columns.
pub(super) fn key(s: &str) -> String {
    s.trim().to_ascii_lowercase()
}

/// Checks the scenario's cross-references before touching the database, so
/// the operator gets one sentence naming the bad entry rather than a
/// constraint error.
pub(super) fn validate(g: &NewGame) -> Result<(), StoreError> {
    let bad = |problem: String| StoreError::InvalidGame {
        game: g.name.clone(),
        problem,
    };
    if g.name.trim().is_empty() {
        return Err(bad("the game name is empty".into()));
    }
    if g.ruleset.trim().is_empty() {
        return Err(bad("the ruleset is empty".into()));
    }
    if g.grace_secs < 0 {
        return Err(bad(format!(
            "grace of {} seconds is negative",
            g.grace_secs
        )));
    }
    match serde_json::from_str::<serde_json::Value>(&g.settings_json) {
        Ok(v) if v.is_object() => {}
        Ok(_) => return Err(bad("settings must be a JSON object".into())),
        Err(e) => return Err(bad(format!("settings are not valid JSON: {e}"))),
    }
    if let Err(e) = serde_json::from_str::<serde_json::Value>(&g.initial_state_json) {
        return Err(bad(format!("the initial state is not valid JSON: {e}")));
    }
    if g.sides.is_empty() {
        return Err(bad("the scenario names no sides".into()));
    }
    let mut sides = HashSet::new();
    for s in &g.sides {
        if s.trim().is_empty() {
            return Err(bad("a side has an empty name".into()));
        }
        if !sides.insert(key(s)) {
            return Err(bad(format!("side `{s}` is listed twice")));
        }
    }
    let side_known = |what: &str, name: &str, side: &str| {
        if sides.contains(&key(side)) {
            Ok(())
        } else {
            Err(bad(format!(
                "{what} `{name}` is on side `{side}`, which is not one of: {}",
                g.sides.join(", ")
            )))
        }
    };

    let mut officer_side: HashMap<String, &str> = HashMap::new();
    for o in &g.officers {
        if o.name.trim().is_empty() {
            return Err(bad("an officer has an empty name".into()));
        }
        side_known("officer", &o.name, &o.side)?;
        if officer_side.insert(key(&o.name), &o.side).is_some() {
            return Err(bad(format!("officer `{}` is listed twice", o.name)));
        }
    }
    let superiors: HashMap<String, String> = g
        .officers
        .iter()
        .filter_map(|o| o.superior.as_ref().map(|s| (key(&o.name), key(s))))
        .collect();
    for o in &g.officers {
        if let Some(sup) = &o.superior {
            match officer_side.get(&key(sup)) {
                None => {
                    return Err(bad(format!(
                        "officer `{}` has superior `{sup}`, who is not in the officer list",
                        o.name
                    )));
                }
                Some(side) if key(side) != key(&o.side) => {
                    return Err(bad(format!(
                        "officer `{}` ({}) has superior `{sup}` on the other side ({side})",
                        o.name, o.side
                    )));
                }
                Some(_) => {}
            }
        }
        // Walk up the chain; more steps than officers means a loop.
        let mut at = key(&o.name);
        for _ in 0..=g.officers.len() {
            match superiors.get(&at) {
                Some(next) => at = next.clone(),
                None => break,
            }
            if at == key(&o.name) {
                return Err(bad(format!(
                    "officer `{}` is their own superior through the chain of command",
                    o.name
                )));
            }
        }
    }

    let mut players = HashSet::new();
    let mut addresses = HashSet::new();
    let mut commanded: HashMap<String, &str> = HashMap::new();
    for p in &g.players {
        if p.name.trim().is_empty() {
            return Err(bad("a player has an empty name".into()));
        }
        side_known("player", &p.name, &p.side)?;
        if !players.insert(key(&p.name)) {
            return Err(bad(format!("player `{}` is listed twice", p.name)));
        }
        if !p.secret_hash.starts_with("$argon2") {
            return Err(bad(format!(
                "player `{}` has a secret hash that is not an Argon2 PHC string",
                p.name
            )));
        }
        if p.addresses.is_empty() {
            return Err(bad(format!("player `{}` has no e-mail address", p.name)));
        }
        for a in &p.addresses {
            let a = a.trim();
            if a.find('@').is_none_or(|at| at == 0 || at + 1 == a.len()) {
                return Err(bad(format!(
                    "player `{}` has address `{a}`, which is not an e-mail address",
                    p.name
                )));
            }
            if !addresses.insert(key(a)) {
                return Err(bad(format!(
                    "address `{a}` is given to more than one player (or twice)"
                )));
            }
        }
        for o in &p.officers {
            match officer_side.get(&key(o)) {
                None => {
                    return Err(bad(format!(
                        "player `{}` commands `{o}`, who is not in the officer list",
                        p.name
                    )));
                }
                Some(side) if key(side) != key(&p.side) => {
                    return Err(bad(format!(
                        "player `{}` ({}) cannot command `{o}` of side {side}",
                        p.name, p.side
                    )));
                }
                Some(_) => {}
            }
            if let Some(other) = commanded.insert(key(o), &p.name) {
                return Err(bad(format!(
                    "officer `{o}` is commanded by both `{other}` and `{}`",
                    p.name
                )));
            }
        }
    }

    // Unit names and aliases share one namespace: an order names a unit by
    // either, so any overlap would make an order ambiguous.
    let mut unit_names: HashMap<String, &str> = HashMap::new();
    for u in &g.units {
        if u.name.trim().is_empty() {
            return Err(bad("a unit has an empty name".into()));
        }
        side_known("unit", &u.name, &u.side)?;
        match officer_side.get(&key(&u.commander)) {
            None => {
                return Err(bad(format!(
                    "unit `{}` is commanded by `{}`, who is not in the officer list",
                    u.name, u.commander
                )));
            }
            Some(side) if key(side) != key(&u.side) => {
                return Err(bad(format!(
                    "unit `{}` ({}) has commander `{}` of side {side}",
                    u.name, u.side, u.commander
                )));
            }
            Some(_) => {}
        }
        for n in std::iter::once(&u.name).chain(u.aliases.iter()) {
            if n.trim().is_empty() {
                return Err(bad(format!("unit `{}` has an empty alias", u.name)));
            }
            if let Some(other) = unit_names.insert(key(n), &u.name) {
                return Err(bad(format!(
                    "the name `{n}` would mean both unit `{other}` and unit `{}`",
                    u.name
                )));
            }
        }
    }
    Ok(())
}
