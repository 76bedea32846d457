//! Regiments and batteries (APSoF II, III, VI.B).

use super::checker::*;
use crate::rules::iron_brigade::kinds::{Arm, Formation, MoraleClass, Weapon};
use crate::scenario::facing::facing_from_value;
use crate::scenario::model::*;
use crate::scenario::names::unknown_name_message;
use crate::scenario::raw::*;

pub(super) fn check_units(
    c: &mut Checker,
    raw: &[RawUnit],
    sides: &[Side],
    officers: &[Officer],
    all: &RawScenario,
    table: Option<&Table>,
) -> Vec<Unit> {
    let officer_names: Vec<&str> = all
        .officers
        .iter()
        .filter_map(|o| o.name.as_deref())
        .collect();
    let mut out = Vec::new();
    for (i, u) in raw.iter().enumerate() {
        let path = format!("units[{i}]");
        let name = c.name(&format!("{path}.name"), &u.name);
        let side = c.side_ref(&format!("{path}.side"), &u.side, sides);
        let arm = c.vocab(&format!("{path}.arm"), &u.arm, "arm", Arm::ALL, Arm::as_str);
        let strength = arm.and_then(|arm| check_strength(c, &path, u, arm));
        let weapon = c.vocab(
            &format!("{path}.weapon"),
            &u.weapon,
            "weapon",
            Weapon::ALL,
            Weapon::as_str,
        );
        if let (Some(arm), Some(w)) = (arm, weapon)
            && arm.is_artillery() != w.is_artillery()
        {
            let needs = if arm.is_artillery() {
                "a gun or howitzer"
            } else {
                "a small arm"
            };
            c.problem(
                format!("{path}.weapon"),
                format!("{w} is not a weapon for {arm}; give it {needs}"),
            );
        }
        let (base_morale, morale_class) = check_morale(c, &path, u);
        let formation = c.vocab(
            &format!("{path}.formation"),
            &u.formation,
            "formation",
            Formation::ALL,
            Formation::as_str,
        );
        if let (Some(f), Some(arm)) = (formation, arm)
            && !f.allowed_for(arm)
        {
            let allowed: Vec<&str> = Formation::ALL
                .iter()
                .filter(|x| x.allowed_for(arm))
                .map(|x| x.as_str())
                .collect();
            c.problem(
                format!("{path}.formation"),
                format!(
                    "{arm} cannot take the {f} formation (APSoF III.D, III.G); use one of: {}",
                    allowed.join(", ")
                ),
            );
        }
        let position =
            c.required_point(&format!("{path}.position"), &u.position, table, "position");
        let facing = match c.required(&format!("{path}.facing"), &u.facing, "facing") {
            Some(v) => match facing_from_value(v) {
                Ok(f) => Some(f),
                Err(msg) => {
                    c.problem(format!("{path}.facing"), msg);
                    None
                }
            },
            None => None,
        };
        let commander = match &u.commander {
            None => {
                c.problem(
                    format!("{path}.commander"),
                    "unit has no commander; name the officer who gives it orders in `commander`",
                );
                None
            }
            Some(cmd) => match officers.iter().find(|o| same(&o.name, cmd)) {
                Some(o) => {
                    if let Some(s) = &side
                        && !same(s, &o.side)
                    {
                        c.problem(
                            format!("{path}.commander"),
                            format!(
                                "commander `{}` is on side `{}` but the unit is on `{s}`; give it an officer of its own side",
                                o.name, o.side
                            ),
                        );
                    }
                    Some(o.name.clone())
                }
                None => {
                    if officer_names.iter().any(|n| same(n, cmd)) {
                        // The officer exists but is itself invalid; that is reported there.
                        None
                    } else {
                        c.problem(
                            format!("{path}.commander"),
                            unknown_name_message("officer", cmd, officer_names.iter().copied()),
                        );
                        None
                    }
                }
            },
        };
        let mounted = match (arm, u.mounted) {
            (Some(Arm::Cavalry), m) => m.unwrap_or(true),
            (Some(arm), Some(true)) => {
                c.problem(
                    format!("{path}.mounted"),
                    format!("only cavalry has a `mounted` flag; remove it from this {arm} unit"),
                );
                false
            }
            _ => false,
        };
        if let (
            Some(name),
            Some(side),
            Some(arm),
            Some(strength),
            Some(weapon),
            Some(base_morale),
            Some(formation),
            Some(position),
            Some(facing),
            Some(commander),
        ) = (
            name,
            side,
            arm,
            strength,
            weapon,
            base_morale,
            formation,
            position,
            facing,
            commander,
        ) {
            out.push(Unit {
                name,
                aliases: u.aliases.iter().map(|a| a.trim().to_string()).collect(),
                side,
                arm,
                strength,
                weapon,
                base_morale,
                morale_class,
                formation,
                position,
                facing,
                commander,
                mounted,
                legion: u
                    .legion
                    .as_deref()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_string),
                heavy_equipment: u.heavy_equipment.unwrap_or(false),
            });
        }
    }
    out
}

/// Castings for foot and horse; guns and one crew casting per gun for a
/// battery (APSoF II.B–II.E).
pub(super) fn check_strength(
    c: &mut Checker,
    path: &str,
    u: &RawUnit,
    arm: Arm,
) -> Option<Strength> {
    if arm.is_artillery() {
        if u.castings.is_some() {
            c.problem(
                format!("{path}.castings"),
                "a battery is counted by `guns` and `crew` (one crew casting per gun, APSoF II.E), not `castings`",
            );
        }
        let guns = count(c, &format!("{path}.guns"), u.guns, "guns");
        let crew = count(c, &format!("{path}.crew"), u.crew, "crew castings");
        let (guns, crew) = (guns?, crew?);
        if crew != guns {
            c.problem(
                format!("{path}.crew"),
                format!(
                    "a battery starts with one crew casting per gun (APSoF II.E): {guns} guns need crew = {guns}, not {crew}"
                ),
            );
            return None;
        }
        Some(Strength::Battery { guns, crew })
    } else {
        for (key, v) in [("guns", u.guns), ("crew", u.crew)] {
            if v.is_some() {
                c.problem(
                    format!("{path}.{key}"),
                    format!("only batteries have `{key}`; {arm} is counted in `castings`"),
                );
            }
        }
        count(c, &format!("{path}.castings"), u.castings, "castings").map(Strength::Castings)
    }
}

/// A required count of at least one.
pub(super) fn count(c: &mut Checker, path: &str, v: Option<i64>, what: &str) -> Option<u32> {
    match v {
        None => {
            c.problem(path, format!("missing {what}; add `{}`", last_key(path)));
            None
        }
        Some(n) if n >= 1 && n <= u32::MAX as i64 => Some(n as u32),
        Some(n) => {
            c.problem(path, format!("{what} must be at least 1, got {n}"));
            None
        }
    }
}

/// Base morale by class or by value (APSoF VI.B.1), exactly one of them.
pub(super) fn check_morale(
    c: &mut Checker,
    path: &str,
    u: &RawUnit,
) -> (Option<u8>, Option<MoraleClass>) {
    match (&u.morale, u.base_morale) {
        (Some(_), Some(_)) => {
            c.problem(
                format!("{path}.base_morale"),
                "give either `morale` (a class such as \"regular\") or `base_morale` (1..6), not both",
            );
            (None, None)
        }
        (None, None) => {
            c.problem(
                format!("{path}.morale"),
                "missing morale; add `morale = \"regular\"` (elite, regular, poor, garrison, militia, rabble) or `base_morale = 5`",
            );
            (None, None)
        }
        (Some(_), None) => {
            let class = c.vocab(
                &format!("{path}.morale"),
                &u.morale,
                "morale class",
                MoraleClass::ALL,
                MoraleClass::as_str,
            );
            (class.map(MoraleClass::base_morale), class)
        }
        (None, Some(n)) => {
            if (1..=6).contains(&n) {
                let class = MoraleClass::ALL
                    .iter()
                    .copied()
                    .find(|m| i64::from(m.base_morale()) == n);
                (Some(n as u8), class)
            } else {
                c.problem(
                    format!("{path}.base_morale"),
                    format!("base_morale must be 1 (rabble) to 6 (elite), got {n}"),
                );
                (None, None)
            }
        }
    }
}
