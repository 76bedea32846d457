//! Turning the raw file into a [`Scenario`], collecting every problem.
//!
//! Each check pushes a [`Problem`] with the TOML path of the value at fault
//! and carries on, so one load reports everything that needs fixing.

mod checker;
mod header;
mod officers;
mod players;
mod terrain;
mod units;
mod victory;

pub use terrain::distance_to_polyline;

use checker::Checker;
use header::*;
use officers::*;
use players::*;
use terrain::*;
use units::*;
use victory::*;

use super::Problem;
use super::model::*;
use super::raw::*;

/// Iron Brigade's ground scale and turn length (APSoF IV.A), used when a
/// scenario does not give its own.
pub const DEFAULT_YARDS_PER_INCH: f64 = 25.0;
pub const DEFAULT_MINUTES_PER_TURN: f64 = 2.5;

/// How far (table inches) a ford may lie from its stream's line and still
/// count as on it: streams are drawn as centre lines, fords as points.
pub const FORD_TOLERANCE: f64 = 1.0;

/// Validate `raw` and build the scenario, or return every problem found.
pub fn validate(raw: &RawScenario) -> Result<Scenario, Vec<Problem>> {
    let mut c = Checker {
        problems: Vec::new(),
    };
    let h = &raw.scenario;

    let name = c.name("scenario.name", &h.name);
    let yards_per_inch = match h.yards_per_inch {
        Some(v) => c.positive("scenario.yards_per_inch", v, "yards_per_inch"),
        None => Some(DEFAULT_YARDS_PER_INCH),
    };
    let minutes_per_turn = match h.minutes_per_turn {
        Some(v) => c.positive("scenario.minutes_per_turn", v, "minutes_per_turn"),
        None => Some(DEFAULT_MINUTES_PER_TURN),
    };
    let start = check_start(&mut c, h);
    let last_turn = match c.required("scenario.last_turn", &h.last_turn, "last turn") {
        Some(&n) if n >= 1 && n <= u32::MAX as i64 => Some(n as u32),
        Some(&n) => {
            c.problem(
                "scenario.last_turn",
                format!("last_turn must be 1 or more, got {n}"),
            );
            None
        }
        None => None,
    };
    if let Some(u) = &h.umpire {
        check_address(&mut c, "scenario.umpire", u);
    }
    let identities = match h.identities.as_deref() {
        None => crate::identity::IdentityPolicy::Hidden,
        Some(v) => crate::identity::IdentityPolicy::parse(v).unwrap_or_else(|| {
            c.problem(
                "scenario.identities",
                format!("identities must be \"hidden\" (the default: enemies are known by letter) or \"known\" (both sides know whom they face), got \"{v}\""),
            );
            crate::identity::IdentityPolicy::Hidden
        }),
    };

    let table = check_table(&mut c, &raw.table);
    let sides = check_sides(&mut c, &raw.sides);
    let mut terrain = check_terrain(&mut c, &raw.terrain);
    // APSoF IV.E.2: pontoon boats belong to a side of the scenario.
    for (i, l) in terrain.lines.iter_mut().enumerate() {
        let Some(w) = l.water.as_mut() else { continue };
        for (j, p) in w.pontoons.iter_mut().enumerate() {
            match sides
                .iter()
                .find(|s| s.name.trim().eq_ignore_ascii_case(p.side.trim()))
            {
                Some(s) => p.side = s.name.clone(),
                None => c.problem(
                    format!("terrain.lines[{i}].pontoons[{j}].side"),
                    crate::scenario::names::unknown_name_message(
                        "side",
                        &p.side,
                        sides.iter().map(|s| s.name.as_str()),
                    ),
                ),
            }
        }
    }
    let landmarks = check_landmarks(&mut c, &raw.landmarks, table.as_ref());
    let officers = check_officers(&mut c, &raw.officers, &sides, table.as_ref());
    let units = check_units(&mut c, &raw.units, &sides, &officers, raw, table.as_ref());
    // APSoF IV.E.2 "When on wagons, pontoon boats move like heavy
    // equipment": a train is a heavy-equipment unit of the boats' side; the
    // boats start where it stands.
    for (i, l) in terrain.lines.iter_mut().enumerate() {
        let Some(w) = l.water.as_mut() else { continue };
        for (j, p) in w.pontoons.iter_mut().enumerate() {
            let Some(train) = p.train.clone() else {
                continue;
            };
            let path = format!("terrain.lines[{i}].pontoons[{j}].train");
            let found = units.iter().find(|u| {
                u.name.eq_ignore_ascii_case(train.trim())
                    || u.aliases
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case(train.trim()))
            });
            match found {
                None => {
                    if !raw
                        .units
                        .iter()
                        .any(|u| u.name.as_deref().is_some_and(|n| n.trim().eq_ignore_ascii_case(train.trim())))
                    {
                        c.problem(
                            path,
                            crate::scenario::names::unknown_name_message(
                                "unit",
                                &train,
                                units.iter().map(|u| u.name.as_str()),
                            ),
                        );
                    }
                }
                Some(u) if !u.heavy_equipment => c.problem(
                    path,
                    format!(
                        "`{}` is not heavy equipment; give it `heavy_equipment = true` to carry the boats on its wagons (APSoF IV.E.2)",
                        u.name
                    ),
                ),
                Some(u) if !u.side.eq_ignore_ascii_case(p.side.trim()) => c.problem(
                    path,
                    format!(
                        "`{}` is on side `{}` but the boats are `{}`'s; give the boats a train of their own side",
                        u.name, u.side, p.side
                    ),
                ),
                Some(u) => {
                    p.train = Some(u.name.clone());
                    p.at = u.position;
                }
            }
        }
    }
    // APSoF VII.F: a legion is two or more sections of one side.
    let mut legions: std::collections::BTreeMap<String, Vec<(usize, &str)>> =
        std::collections::BTreeMap::new();
    for (i, u) in units.iter().enumerate() {
        if let Some(l) = &u.legion {
            legions
                .entry(l.to_lowercase())
                .or_default()
                .push((i, u.side.as_str()));
        }
    }
    for (name, parts) in &legions {
        let Some(&(first, side)) = parts.first() else {
            continue;
        };
        if parts.len() < 2 {
            c.problem(
                format!("units[{first}].legion"),
                format!("legion \"{name}\" has only this unit: a legion is several sections (infantry, a section of guns, a company of cavalry) that keep one morale while in contact (APSoF VII.F); give the other sections the same `legion`, or remove it"),
            );
        }
        if let Some(&(i, _)) = parts.iter().find(|(_, s)| *s != side) {
            c.problem(
                format!("units[{i}].legion"),
                format!("legion \"{name}\" has sections on two sides; a legion's sections are of one side (APSoF VII.F)"),
            );
        }
    }
    let players = check_players(&mut c, raw, &sides, &officers);
    check_sides_have_units(&mut c, raw, &sides);
    check_ambiguous_names(&mut c, raw);
    let objectives = check_objectives(
        &mut c,
        &raw.objectives,
        &raw.landmarks,
        &sides,
        &landmarks,
        table.as_ref(),
        last_turn,
    );
    let options = check_options(&mut c, &raw.options);
    // APSoF VIII.E: so are moats and ditches.
    for (i, l) in raw.terrain.lines.iter().enumerate() {
        let is_moat = l
            .kind
            .as_deref()
            .is_some_and(|k| k.trim().eq_ignore_ascii_case("moat"));
        if is_moat && !options.is_on("moats") {
            c.problem(
                format!("terrain.lines[{i}].kind"),
                "a moat is the optional rule APSoF VIII.E: switch it on with `moats = true` under [options], or leave the line out",
            );
        }
    }
    // APSoF VIII.D: abatis on the table is an optional rule's terrain.
    for (i, a) in raw.terrain.areas.iter().enumerate() {
        let is_abatis = a
            .kind
            .as_deref()
            .is_some_and(|k| k.trim().eq_ignore_ascii_case("abatis"));
        if is_abatis && !options.is_on("abatis") {
            c.problem(
                format!("terrain.areas[{i}].kind"),
                "abatis is the optional rule APSoF VIII.D: switch it on with `abatis = true` under [options], or draw this area as rough ground",
            );
        }
    }

    match (
        name,
        yards_per_inch,
        minutes_per_turn,
        start,
        last_turn,
        table,
    ) {
        (
            Some(name),
            Some(yards_per_inch),
            Some(minutes_per_turn),
            Some(start),
            Some(last_turn),
            Some(table),
        ) if c.problems.is_empty() => Ok(Scenario {
            name,
            description: h.description.clone(),
            yards_per_inch,
            minutes_per_turn,
            start,
            last_turn,
            table,
            terrain,
            landmarks,
            sides,
            players,
            officers,
            units,
            objectives,
            options,
            umpire: h.umpire.clone(),
            identities,
        }),
        _ => {
            if c.problems.is_empty() {
                c.problem("", "scenario is incomplete");
            }
            Err(c.problems)
        }
    }
}
