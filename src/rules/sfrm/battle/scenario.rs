//! SFRM brigade-scale scenario files: a TOML battle (`ruleset = "sfrm"`)
//! loaded into [`SfrmBattle`], validated as Iron Brigade scenarios are:
//! every problem at once, each with its TOML path and line
//! (docs/scenario-format.md, "SFRM scenarios").
//!
//! The schema follows the rules' nouns: generals of division, corps and
//! army with their Table 2 quality ("Command"), units of elements (Table 1:
//! brigades, artillery battalions of exactly one element, supply trains of
//! exactly one element), ground as rectangles ("Manoeuvre", "Firing From
//! Higher Elevation"), roads and supply sources ("Supply"), and "Time,
//! Weather & Daylight" (the date gives Table 8's season; the weather is
//! written, as a historical scenario knows it).
//!
//! SFRM's seat in [`crate::rulesets::RULESETS`] is [`super::seat::SfrmRuleset`].

use super::nouns::{
    Area, Arm, DayRecord, Formation, General, GeneralId, Ground, Gun, Pos, Quality, Rank, Road,
    Season, SfrmBattle, Side, SmallArm, SupplySource, Unit, UnitId, Weather,
};
use super::organisation::{Breach, check_organisation};
use super::tables::{SideCost, army_cost, season_of_month};
use crate::rules::ScenarioCheck;
use crate::rules::sfrm::StatPenalty;
use crate::scenario_text::names::unknown_name_message;
use crate::scenario_text::spans::{LineStarts, SpanIndex};
use crate::scenario_text::{Problem, ScenarioError};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// The id SFRM scenarios write: `[scenario] ruleset = "sfrm"`.
pub const SFRM: &str = "sfrm";

/// An objective: a place on the table worth `points` at the end.
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    pub name: String,
    pub pos: Pos,
    /// Inches around `pos` a side must hold.
    pub radius: f64,
    pub points: u32,
    /// The side it counts for, if only one.
    pub side: Option<Side>,
}

/// One player of a game by mail: his side, his addresses and the
/// generals whose commands he writes orders for (every general of his side
/// when he names none).
#[derive(Debug, Clone, PartialEq)]
pub struct SfrmPlayer {
    pub name: String,
    pub side: Side,
    pub addresses: Vec<String>,
    pub time_zone: Option<String>,
    pub commands: Vec<String>,
}

/// A loaded, valid SFRM scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct SfrmScenario {
    pub name: String,
    pub description: String,
    /// The year of the battle (the army costing limits depend on it).
    pub year: u16,
    pub month: u8,
    /// Table size in inches (1" = 100 yd, Table 1).
    pub width: f64,
    pub height: f64,
    /// The last turn played (30 minutes each).
    pub last_turn: u32,
    pub objectives: Vec<Objective>,
    /// The named ground (`[[ground]] name`): name, min and max corners.
    pub ground_names: Vec<(String, Pos, Pos)>,
    /// Who plays it by mail (`[[players]]`), in file order.
    pub players: Vec<SfrmPlayer>,
    /// The umpire's address (`[scenario] umpire`), if the game has one.
    pub umpire: Option<String>,
    /// The opening state the rules core plays.
    pub battle: SfrmBattle,
}

impl SfrmScenario {
    /// Each side's Table 9 cost ([`army_cost`]).
    pub fn costs(&self) -> Vec<SideCost> {
        army_cost(&self.battle)
    }

    /// The army costing limits the order of battle breaks (reported, not
    /// refused: historical orders of battle often break them).
    pub fn breaches(&self) -> Vec<Breach> {
        check_organisation(&self.battle, self.year)
    }
}

/// Read and validate an SFRM scenario file.
pub fn load(path: &std::path::Path) -> Result<SfrmScenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    from_toml_str(&text, &path.display().to_string())
}

// ----- the file as written -----

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawFile {
    scenario: RawHeader,
    table: RawTable,
    ground: Vec<RawGround>,
    roads: Vec<RawRoad>,
    supply_sources: Vec<RawSource>,
    generals: Vec<RawGeneral>,
    units: Vec<RawUnit>,
    objectives: Vec<RawObjective>,
    players: Vec<RawPlayer>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawHeader {
    ruleset: Option<String>,
    name: Option<String>,
    description: Option<String>,
    start: Option<String>,
    attacker: Option<String>,
    weather: Option<String>,
    last_turn: Option<i64>,
    umpire: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawTable {
    width: Option<f64>,
    height: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawGround {
    kind: Option<String>,
    name: Option<String>,
    level: Option<i64>,
    min: Option<Vec<f64>>,
    max: Option<Vec<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawRoad {
    name: Option<String>,
    points: Vec<Vec<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawSource {
    side: Option<String>,
    position: Option<Vec<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawGeneral {
    name: Option<String>,
    side: Option<String>,
    rank: Option<String>,
    quality: Option<String>,
    position: Option<Vec<f64>>,
    superior: Option<String>,
    attached_to: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawUnit {
    name: Option<String>,
    side: Option<String>,
    arm: Option<String>,
    weapon: Option<String>,
    gun: Option<String>,
    elements: Option<i64>,
    front_rank: Option<i64>,
    quality: Option<String>,
    formation: Option<String>,
    facing: Option<toml::Value>,
    position: Option<Vec<f64>>,
    division: Option<String>,
    mounted: Option<bool>,
    entrenchment: Option<i64>,
    out_of_supply: Option<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawObjective {
    name: Option<String>,
    position: Option<Vec<f64>>,
    radius: Option<f64>,
    points: Option<i64>,
    side: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawPlayer {
    name: Option<String>,
    side: Option<String>,
    addresses: Vec<String>,
    time_zone: Option<String>,
    commands: Vec<String>,
}

/// Keys each table of an SFRM scenario may hold.
fn known_keys(shape: &str) -> Option<&'static [&'static str]> {
    Some(match shape {
        "" => &[
            "scenario",
            "table",
            "ground",
            "roads",
            "supply_sources",
            "generals",
            "units",
            "objectives",
            "players",
        ],
        "scenario" => &[
            "ruleset",
            "name",
            "description",
            "start",
            "attacker",
            "weather",
            "last_turn",
            "umpire",
        ],
        "table" => &["width", "height"],
        "ground[]" => &["kind", "name", "level", "min", "max"],
        "roads[]" => &["name", "points"],
        "supply_sources[]" => &["side", "position"],
        "generals[]" => &[
            "name",
            "side",
            "rank",
            "quality",
            "position",
            "superior",
            "attached_to",
        ],
        "units[]" => &[
            "name",
            "side",
            "arm",
            "weapon",
            "gun",
            "elements",
            "front_rank",
            "quality",
            "formation",
            "facing",
            "position",
            "division",
            "mounted",
            "entrenchment",
            "out_of_supply",
        ],
        "objectives[]" => &["name", "position", "radius", "points", "side"],
        "players[]" => &["name", "side", "addresses", "time_zone", "commands"],
        _ => return None,
    })
}

// ----- vocabularies -----

pub(crate) const SIDES: &[(&str, Side)] =
    &[("union", Side::Union), ("confederate", Side::Confederate)];
pub(crate) const RANKS: &[(&str, Rank)] = &[
    ("division", Rank::Division),
    ("corps", Rank::Corps),
    ("army", Rank::Army),
];
pub(crate) const QUALITIES: &[(&str, Quality)] = &[
    ("inferior", Quality::Inferior),
    ("regular", Quality::Regular),
    ("superior", Quality::Superior),
];
pub(crate) const SMALL_ARMS: &[(&str, SmallArm)] = &[
    ("small-arms", SmallArm::SmallArms),
    ("muskets", SmallArm::Muskets),
    ("carbines", SmallArm::Carbines),
    ("rifles", SmallArm::Rifles),
    ("repeaters", SmallArm::Repeaters),
];
pub(crate) const GUNS: &[(&str, Gun)] = &[
    ("gatling", Gun::Gatling),
    ("6-pounder", Gun::SixPounder),
    ("12-pounder", Gun::TwelvePounder),
    ("10-pounder-rifled", Gun::TenPounderRifled),
    ("20-pounder-siege", Gun::TwentyPounderSiege),
];
pub(crate) const FORMATIONS: &[(&str, Formation)] = &[
    ("march-column", Formation::MarchColumn),
    ("line", Formation::Line),
    ("deployed-in-town", Formation::DeployedInTown),
    ("skirmish", Formation::Skirmish),
    ("battle-column", Formation::BattleColumn),
    ("square", Formation::Square),
];
pub(crate) const WEATHERS: &[(&str, Weather)] = &[
    ("clear", Weather::Clear),
    ("cold", Weather::Cold),
    ("rain", Weather::Rain),
    ("hot", Weather::Hot),
    ("snow", Weather::Snow),
];
const ARMS: &[&str] = &["infantry", "cavalry", "artillery", "supply"];
const GROUNDS: &[&str] = &["woods", "town", "river", "sunken-road", "hill"];

/// Look `given` up in `table`, or say what was meant.
pub(crate) fn pick<T: Copy>(
    what: &str,
    given: &str,
    table: &[(&'static str, T)],
) -> Result<T, String> {
    let g = given.trim().to_ascii_lowercase();
    table
        .iter()
        .find(|(n, _)| *n == g)
        .map(|(_, v)| *v)
        .ok_or_else(|| unknown_name_message(what, given, table.iter().map(|(n, _)| *n)))
}

/// The name of `v` in `table` (for messages and JSON).
fn word<T: Copy + PartialEq>(v: T, table: &[(&'static str, T)]) -> &'static str {
    table
        .iter()
        .find(|(_, x)| *x == v)
        .map(|(n, _)| *n)
        .unwrap_or("?")
}

/// Collects problems while reading the raw file.
struct Checker {
    problems: Vec<Problem>,
    width: f64,
    height: f64,
}

impl Checker {
    fn bad(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem::new(path, message));
    }

    fn need<'a, T>(&mut self, path: &str, v: &'a Option<T>, what: &str) -> Option<&'a T> {
        if v.is_none() {
            self.bad(path, format!("missing {what}"));
        }
        v.as_ref()
    }

    fn lookup<T: Copy>(
        &mut self,
        path: &str,
        v: &Option<String>,
        what: &str,
        table: &[(&'static str, T)],
    ) -> Option<T> {
        let s = self.need(path, v, what)?.clone();
        match pick(what, &s, table) {
            Ok(t) => Some(t),
            Err(m) => {
                self.bad(path, m);
                None
            }
        }
    }

    /// A point `[x, y]` on the table.
    fn point(&mut self, path: &str, v: &[f64]) -> Option<Pos> {
        let [x, y] = v else {
            self.bad(
                path,
                format!(
                    "a position is two numbers `[x, y]` in inches, not {} numbers",
                    v.len()
                ),
            );
            return None;
        };
        if !(x.is_finite() && y.is_finite()) {
            self.bad(path, "a position must be finite numbers");
            return None;
        }
        if *x < 0.0 || *y < 0.0 || *x > self.width || *y > self.height {
            self.bad(
                path,
                format!(
                    "[{x}, {y}] is off the {}\" x {}\" table (x from 0 to {}, y from 0 to {})",
                    self.width, self.height, self.width, self.height
                ),
            );
            return None;
        }
        Some(Pos::new(*x, *y))
    }

    fn position(&mut self, path: &str, v: &Option<Vec<f64>>) -> Option<Pos> {
        let p = self.need(path, v, "position `[x, y]`")?.clone();
        self.point(path, &p)
    }
}

/// `YYYY-MM-DDTHH:MM` → (year, month, minutes after midnight).
fn parse_start(s: &str) -> Result<(u16, u8, u32), String> {
    let bad = || {
        format!("start `{s}` is not a date and time; write it as `1861-07-21T05:30` (local time)")
    };
    let (date, time) = s.trim().split_once('T').ok_or_else(bad)?;
    let mut d = date.split('-');
    let year: u16 = d.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let month: u8 = d.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let day: u8 = d.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let (h, m) = time.split_once(':').ok_or_else(bad)?;
    let h: u32 = h.parse().map_err(|_| bad())?;
    let m: u32 = m.parse().map_err(|_| bad())?;
    if d.next().is_some() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return Err(bad());
    }
    if h > 23 || m > 59 {
        return Err(bad());
    }
    Ok((year, month, h * 60 + m))
}

/// Parse and validate SFRM scenario text; `origin` names it in messages.
pub fn from_toml_str(text: &str, origin: &str) -> Result<SfrmScenario, ScenarioError> {
    let invalid = |problems: Vec<Problem>| ScenarioError::Invalid {
        origin: origin.to_string(),
        problems,
    };
    let starts = LineStarts::new(text);
    let index = SpanIndex::parse(text, known_keys).map_err(|p| invalid(vec![p]))?;
    let mut problems = index.unknown_keys.clone();
    let raw: RawFile = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(e) => {
            let at = e.span().map(|s| s.start);
            problems.push(Problem {
                path: at
                    .and_then(|o| index.path_at(o))
                    .unwrap_or_default()
                    .to_string(),
                line: at.map(|o| starts.line_of(o)),
                message: format!("wrong type of value: {}", e.message().trim()),
            });
            return Err(invalid(problems));
        }
    };
    match validate(&raw) {
        Ok(s) if problems.is_empty() => Ok(s),
        Ok(_) => Err(invalid(problems)),
        Err(found) => {
            problems.extend(found.into_iter().map(|mut p| {
                if p.line.is_none() {
                    p.line = index.line_of(&p.path);
                }
                p
            }));
            problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
            Err(invalid(problems))
        }
    }
}

fn validate(raw: &RawFile) -> Result<SfrmScenario, Vec<Problem>> {
    let mut c = Checker {
        problems: Vec::new(),
        width: 0.0,
        height: 0.0,
    };
    let h = &raw.scenario;
    if h.ruleset.as_deref().map(str::trim) != Some(SFRM) {
        c.bad(
            "scenario.ruleset",
            format!("an SFRM scenario says `ruleset = \"{SFRM}\"` in its [scenario] table"),
        );
    }
    let name = c.need("scenario.name", &h.name, "name").cloned();
    let description = h.description.clone().unwrap_or_default();
    let start = c
        .need("scenario.start", &h.start, "start (`1861-07-21T05:30`)")
        .cloned()
        .and_then(|s| match parse_start(&s) {
            Ok(v) => Some(v),
            Err(m) => {
                c.bad("scenario.start", m);
                None
            }
        });
    if let Some((year, ..)) = start
        && !(1861..=1865).contains(&year)
    {
        c.bad(
            "scenario.start",
            format!(
                "{year} is outside the war: SFRM \"Time, Weather & Daylight\" has it fought from April 1861 to April 1865"
            ),
        );
    }
    let attacker = c.lookup("scenario.attacker", &h.attacker, "side", SIDES);
    let weather = c.lookup("scenario.weather", &h.weather, "weather", WEATHERS);
    let last_turn = match h.last_turn {
        None => {
            c.bad("scenario.last_turn", "missing last_turn (30-minute turns)");
            None
        }
        Some(n) => match u32::try_from(n) {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                c.bad(
                    "scenario.last_turn",
                    format!("last_turn {n} must be 1 or more (30-minute turns)"),
                );
                None
            }
        },
    };
    match (raw.table.width, raw.table.height) {
        (Some(w), Some(hh)) if w > 0.0 && hh > 0.0 && w.is_finite() && hh.is_finite() => {
            c.width = w;
            c.height = hh;
        }
        _ => {
            c.bad(
                "table",
                "the table needs a width and height in inches, both above 0 (1\" = 100 yd)",
            );
            c.width = f64::INFINITY;
            c.height = f64::INFINITY;
        }
    }

    // Ground.
    let mut ground = Vec::new();
    let mut ground_names: Vec<(String, Pos, Pos)> = Vec::new();
    for (i, g) in raw.ground.iter().enumerate() {
        let path = format!("ground[{i}]");
        let kind = c
            .need(&format!("{path}.kind"), &g.kind, "kind")
            .map(|k| k.trim().to_ascii_lowercase());
        let level = g.level;
        let gr = match kind.as_deref() {
            None => None,
            Some("woods") => Some(Ground::Woods),
            Some("town") => Some(Ground::Town),
            Some("river") => Some(Ground::River),
            Some("sunken-road") => Some(Ground::SunkenRoad),
            Some("hill") => match level {
                Some(l) if l >= 1 && u8::try_from(l).is_ok() => Some(Ground::Hill {
                    level: u8::try_from(l).unwrap_or(1),
                }),
                _ => {
                    c.bad(
                        format!("{path}.level"),
                        "a hill needs `level`, 1 or more, the height of its top above the plain (0)",
                    );
                    None
                }
            },
            Some(other) => {
                c.bad(
                    format!("{path}.kind"),
                    unknown_name_message("ground", other, GROUNDS.iter().copied()),
                );
                None
            }
        };
        if level.is_some() && !matches!(kind.as_deref(), Some("hill")) {
            c.bad(format!("{path}.level"), "only a hill has a level");
        }
        let min = c
            .need(&format!("{path}.min"), &g.min, "min `[x, y]`")
            .cloned();
        let max = c
            .need(&format!("{path}.max"), &g.max, "max `[x, y]`")
            .cloned();
        let min = min.and_then(|p| c.point(&format!("{path}.min"), &p));
        let max = max.and_then(|p| c.point(&format!("{path}.max"), &p));
        if let (Some(a), Some(b)) = (min, max)
            && (a.x >= b.x || a.y >= b.y)
        {
            c.bad(
                format!("{path}.max"),
                "max must be above and to the right of min (x and y both larger)",
            );
            continue;
        }
        if let (Some(ground_kind), Some(min), Some(max)) = (gr, min, max) {
            if let Some(n) = g.name.as_ref().filter(|n| !n.trim().is_empty()) {
                ground_names.push((n.trim().to_string(), min, max));
            }
            ground.push(Area {
                ground: ground_kind,
                min,
                max,
            });
        }
    }

    // Roads.
    let mut roads = Vec::new();
    for (i, r) in raw.roads.iter().enumerate() {
        let path = format!("roads[{i}]");
        if r.points.len() < 2 {
            c.bad(
                format!("{path}.points"),
                "a road needs at least two points `[[x, y], [x, y]]`",
            );
            continue;
        }
        let pts: Vec<Option<Pos>> = r
            .points
            .iter()
            .enumerate()
            .map(|(j, p)| c.point(&format!("{path}.points[{j}]"), p))
            .collect();
        if pts.iter().all(Option::is_some) {
            roads.push(Road {
                name: r.name.clone().unwrap_or_default(),
                points: pts.into_iter().flatten().collect(),
            });
        }
    }

    // Supply sources.
    let mut supply_sources = Vec::new();
    for (i, s) in raw.supply_sources.iter().enumerate() {
        let path = format!("supply_sources[{i}]");
        let side = c.lookup(&format!("{path}.side"), &s.side, "side", SIDES);
        let pos = c.position(&format!("{path}.position"), &s.position);
        if let (Some(side), Some(pos)) = (side, pos) {
            supply_sources.push(SupplySource { side, pos });
        }
    }

    // Names: every general and unit has its own.
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut general_ids: BTreeMap<String, (GeneralId, Option<Side>, Option<Rank>)> =
        BTreeMap::new();
    let mut unit_ids: BTreeMap<String, (UnitId, Option<Side>)> = BTreeMap::new();
    for (i, g) in raw.generals.iter().enumerate() {
        if let Some(n) = &g.name {
            let key = n.trim().to_lowercase();
            if !seen.insert(key.clone()) {
                c.bad(
                    format!("generals[{i}].name"),
                    format!("`{n}` is named twice; every general and unit needs its own name"),
                );
            }
            let side = g.side.as_deref().and_then(|s| pick("side", s, SIDES).ok());
            let rank = g.rank.as_deref().and_then(|s| pick("rank", s, RANKS).ok());
            general_ids
                .entry(key)
                .or_insert((GeneralId(index_id(i)), side, rank));
        }
    }
    for (i, u) in raw.units.iter().enumerate() {
        if let Some(n) = &u.name {
            let key = n.trim().to_lowercase();
            if !seen.insert(key.clone()) {
                c.bad(
                    format!("units[{i}].name"),
                    format!("`{n}` is named twice; every general and unit needs its own name"),
                );
            }
            let side = u.side.as_deref().and_then(|s| pick("side", s, SIDES).ok());
            unit_ids.entry(key).or_insert((UnitId(index_id(i)), side));
        }
    }
    let general_names: Vec<String> = raw.generals.iter().filter_map(|g| g.name.clone()).collect();
    let unit_names: Vec<String> = raw.units.iter().filter_map(|u| u.name.clone()).collect();

    // Generals (Table 1, Table 2).
    let mut generals = Vec::new();
    for (i, g) in raw.generals.iter().enumerate() {
        let path = format!("generals[{i}]");
        let name = c.need(&format!("{path}.name"), &g.name, "name").cloned();
        let side = c.lookup(&format!("{path}.side"), &g.side, "side", SIDES);
        let rank = c.lookup(&format!("{path}.rank"), &g.rank, "rank", RANKS);
        let quality = match g.quality.as_deref().map(|q| q.trim().to_ascii_lowercase()) {
            Some(q) if q == "green" || q == "unknown" => {
                c.bad(
                    format!("{path}.quality"),
                    "green or unknown generals are rolled after troop allocation (SFRM \"Army Costing System\"): roll one die per figure, keep the best (1-2 inferior, 3-5 regular, 6 superior), and write the result",
                );
                None
            }
            _ => c.lookup(
                &format!("{path}.quality"),
                &g.quality,
                "general quality (Table 2)",
                QUALITIES,
            ),
        };
        let pos = c.position(&format!("{path}.position"), &g.position);
        let superior = match &g.superior {
            None => None,
            Some(s) => match general_ids.get(&s.trim().to_lowercase()) {
                None => {
                    c.bad(
                        format!("{path}.superior"),
                        unknown_name_message(
                            "general",
                            s,
                            general_names.iter().map(String::as_str),
                        ),
                    );
                    None
                }
                Some((id, sup_side, sup_rank)) => {
                    if *id == GeneralId(index_id(i)) {
                        c.bad(
                            format!("{path}.superior"),
                            "a general is not his own superior",
                        );
                    }
                    if side.is_some() && *sup_side != side {
                        c.bad(
                            format!("{path}.superior"),
                            format!("`{s}` is on the other side"),
                        );
                    }
                    if let (Some(r), Some(sr)) = (rank, sup_rank)
                        && *sr < r
                    {
                        c.bad(
                            format!("{path}.superior"),
                            format!(
                                "`{s}` is a {} general, below this {} general",
                                sr.name(),
                                r.name()
                            ),
                        );
                    }
                    Some(*id)
                }
            },
        };
        let attached_to = match &g.attached_to {
            None => None,
            Some(s) => match unit_ids.get(&s.trim().to_lowercase()) {
                None => {
                    c.bad(
                        format!("{path}.attached_to"),
                        unknown_name_message("unit", s, unit_names.iter().map(String::as_str)),
                    );
                    None
                }
                Some((id, us)) => {
                    if side.is_some() && *us != side {
                        c.bad(
                            format!("{path}.attached_to"),
                            format!("`{s}` is on the other side"),
                        );
                    }
                    Some(*id)
                }
            },
        };
        if let (Some(name), Some(side), Some(rank), Some(quality), Some(pos)) =
            (name, side, rank, quality, pos)
        {
            generals.push(General {
                id: GeneralId(index_id(i)),
                name,
                side,
                rank,
                quality,
                penalty: StatPenalty::default(),
                pos,
                attached_to,
                superior,
                removed: false,
                role: None,
                replaced: false,
            });
        }
    }

    // Units (Table 1).
    let mut units = Vec::new();
    for (i, u) in raw.units.iter().enumerate() {
        let path = format!("units[{i}]");
        let name = c.need(&format!("{path}.name"), &u.name, "name").cloned();
        let side = c.lookup(&format!("{path}.side"), &u.side, "side", SIDES);
        let arm_word = c
            .need(&format!("{path}.arm"), &u.arm, "arm")
            .map(|a| a.trim().to_ascii_lowercase());
        let arm = match arm_word.as_deref() {
            None => None,
            Some(a @ ("infantry" | "cavalry")) => {
                if u.gun.is_some() {
                    c.bad(
                        format!("{path}.gun"),
                        format!("{a} has a `weapon`, not a `gun`"),
                    );
                }
                c.lookup(
                    &format!("{path}.weapon"),
                    &u.weapon,
                    "small arm (Table 6)",
                    SMALL_ARMS,
                )
                .map(|weapon| {
                    if a == "infantry" {
                        Arm::Infantry { weapon }
                    } else {
                        Arm::Cavalry { weapon }
                    }
                })
            }
            Some("artillery") => {
                if u.weapon.is_some() {
                    c.bad(
                        format!("{path}.weapon"),
                        "artillery has a `gun`, not a `weapon`",
                    );
                }
                c.lookup(&format!("{path}.gun"), &u.gun, "gun (Table 6)", GUNS)
                    .map(|gun| Arm::Artillery { gun })
            }
            Some("supply") => {
                if u.weapon.is_some() || u.gun.is_some() {
                    c.bad(
                        format!("{path}.arm"),
                        "a supply train has neither `weapon` nor `gun`",
                    );
                }
                Some(Arm::Supply)
            }
            Some(other) => {
                c.bad(
                    format!("{path}.arm"),
                    unknown_name_message("arm", other, ARMS.iter().copied()),
                );
                None
            }
        };
        let single = matches!(arm, Some(Arm::Artillery { .. } | Arm::Supply));
        let elements = match u.elements {
            None if single => Some(1),
            None => {
                c.bad(
                    format!("{path}.elements"),
                    "missing elements (Table 1: about 300 men each)",
                );
                None
            }
            Some(n) if single && n != 1 => {
                c.bad(
                    format!("{path}.elements"),
                    "an artillery battalion or a supply train is exactly 1 element (SFRM \"Scale & Game Play\")",
                );
                None
            }
            Some(n) if n < 1 || u32::try_from(n).is_err() => {
                c.bad(
                    format!("{path}.elements"),
                    format!("{n} elements: a unit has 1 or more (SFRM \"Scale & Game Play\")"),
                );
                None
            }
            Some(n) => u32::try_from(n).ok(),
        };
        let quality = match u.quality.as_deref().map(|q| q.trim().to_ascii_lowercase()) {
            None if single => Some(Some(Quality::Regular)),
            Some(q) if q == "green" => Some(None),
            _ => c
                .lookup(
                    &format!("{path}.quality"),
                    &u.quality,
                    "quality (inferior, regular, superior or green)",
                    QUALITIES,
                )
                .map(Some),
        };
        let formation = match &u.formation {
            None if matches!(arm, Some(Arm::Supply)) => Some(Formation::MarchColumn),
            None => Some(Formation::Line),
            Some(_) => c.lookup(
                &format!("{path}.formation"),
                &u.formation,
                "formation",
                FORMATIONS,
            ),
        };
        let facing = match &u.facing {
            None => {
                c.bad(
                    format!("{path}.facing"),
                    "missing facing (degrees clockwise from north, or a compass point such as `east`)",
                );
                None
            }
            Some(toml::Value::Integer(n)) => Some(*n as f64),
            Some(toml::Value::Float(f)) => Some(*f),
            Some(toml::Value::String(s)) => match crate::scenario_text::compass::degrees_from_name(s) {
                Ok(f) => Some(f),
                Err(m) => {
                    c.bad(format!("{path}.facing"), m);
                    None
                }
            },
            Some(_) => {
                c.bad(
                    format!("{path}.facing"),
                    "facing is degrees or a compass point such as `east`",
                );
                None
            }
        }
        .and_then(|f| {
            if f.is_finite() {
                Some(f.rem_euclid(360.0))
            } else {
                c.bad(format!("{path}.facing"), "facing must be a finite number");
                None
            }
        });
        let pos = c.position(&format!("{path}.position"), &u.position);
        let division = match &u.division {
            None => None,
            Some(s) => match general_ids.get(&s.trim().to_lowercase()) {
                None => {
                    c.bad(
                        format!("{path}.division"),
                        unknown_name_message(
                            "general",
                            s,
                            general_names.iter().map(String::as_str),
                        ),
                    );
                    None
                }
                Some((id, gs, _)) => {
                    if side.is_some() && *gs != side {
                        c.bad(
                            format!("{path}.division"),
                            format!("`{s}` is on the other side"),
                        );
                    }
                    Some(*id)
                }
            },
        };
        let front_rank = match (u.front_rank, elements) {
            (None, Some(n)) => Some(n),
            (Some(f), Some(n)) if f >= 1 && i64::from(n) >= f => u32::try_from(f).ok(),
            (Some(f), Some(n)) => {
                c.bad(
                    format!("{path}.front_rank"),
                    format!("front_rank {f} must be from 1 to the unit's {n} elements"),
                );
                None
            }
            (_, None) => None,
        };
        let entrenchment = match u.entrenchment {
            None => Some(0),
            Some(n @ 0..=3) => u8::try_from(n).ok(),
            Some(n) => {
                c.bad(
                    format!("{path}.entrenchment"),
                    format!("entrenchment {n}: levels are 0 to 3 (SFRM \"Entrenching\")"),
                );
                None
            }
        };
        let out_of_supply = match u.out_of_supply {
            None => Some(0),
            Some(n) if u8::try_from(n).is_ok() => u8::try_from(n).ok(),
            Some(n) => {
                c.bad(
                    format!("{path}.out_of_supply"),
                    format!("{n} out of supply markers: give 0 or more"),
                );
                None
            }
        };
        let mounted = u.mounted.unwrap_or(false);
        if mounted && !matches!(arm, Some(Arm::Cavalry { .. })) && arm.is_some() {
            c.bad(format!("{path}.mounted"), "only cavalry is mounted");
        }
        if let (
            Some(name),
            Some(side),
            Some(arm),
            Some(elements),
            Some(quality),
            Some(formation),
            Some(facing),
            Some(pos),
            Some(front_rank),
            Some(entrenchment),
            Some(out_of_supply),
        ) = (
            name,
            side,
            arm,
            elements,
            quality,
            formation,
            facing,
            pos,
            front_rank,
            entrenchment,
            out_of_supply,
        ) {
            units.push(Unit {
                id: UnitId(index_id(i)),
                name,
                side,
                arm,
                elements,
                front_rank,
                quality,
                formation,
                facing,
                pos,
                mounted,
                prone: false,
                routed: false,
                out_of_command: false,
                dispersed: false,
                entrenchment,
                out_of_supply,
                fatigue_quarters: 0,
                division,
                day: DayRecord::default(),
            });
        }
    }
    for s in SIDES.iter().map(|(_, s)| *s) {
        if !raw.units.is_empty()
            && !raw
                .units
                .iter()
                .any(|u| u.side.as_deref().and_then(|x| pick("side", x, SIDES).ok()) == Some(s))
        {
            c.bad("units", format!("the {} side has no units", s.name()));
        }
    }
    if raw.units.is_empty() {
        c.bad("units", "a battle needs units on both sides");
    }

    // Objectives.
    let mut objectives = Vec::new();
    for (i, o) in raw.objectives.iter().enumerate() {
        let path = format!("objectives[{i}]");
        let name = c.need(&format!("{path}.name"), &o.name, "name").cloned();
        let pos = c.position(&format!("{path}.position"), &o.position);
        let radius = match o.radius {
            None => {
                c.bad(format!("{path}.radius"), "missing radius (inches)");
                None
            }
            Some(r) if r > 0.0 && r.is_finite() => Some(r),
            Some(r) => {
                c.bad(
                    format!("{path}.radius"),
                    format!("radius {r} must be above 0"),
                );
                None
            }
        };
        let points = match o.points {
            None => Some(1),
            Some(p) if u32::try_from(p).is_ok() => u32::try_from(p).ok(),
            Some(p) => {
                c.bad(
                    format!("{path}.points"),
                    format!("points {p}: give 0 or more"),
                );
                None
            }
        };
        let side = match &o.side {
            None => Some(None),
            Some(_) => c
                .lookup(&format!("{path}.side"), &o.side, "side", SIDES)
                .map(Some),
        };
        if let (Some(name), Some(pos), Some(radius), Some(points), Some(side)) =
            (name, pos, radius, points, side)
        {
            objectives.push(Objective {
                name,
                pos,
                radius,
                points,
                side,
            });
        }
    }

    // Players by mail.
    let mut players = Vec::new();
    for (i, p) in raw.players.iter().enumerate() {
        let path = format!("players[{i}]");
        let name = c.need(&format!("{path}.name"), &p.name, "name").cloned();
        let side = c.lookup(&format!("{path}.side"), &p.side, "side", SIDES);
        if p.addresses.is_empty() {
            c.bad(
                format!("{path}.addresses"),
                "a player needs at least one mail address",
            );
        }
        for g in &p.commands {
            let mine = generals
                .iter()
                .any(|x: &General| x.name.eq_ignore_ascii_case(g) && Some(x.side) == side);
            if !mine {
                let names = generals
                    .iter()
                    .filter(|x| Some(x.side) == side)
                    .map(|x| x.name.as_str());
                c.bad(
                    format!("{path}.commands"),
                    unknown_name_message("general of the player's side", g, names),
                );
            }
        }
        if let (Some(name), Some(side)) = (name, side) {
            if players
                .iter()
                .any(|q: &SfrmPlayer| q.name.eq_ignore_ascii_case(&name))
            {
                c.bad(
                    format!("{path}.name"),
                    format!("player `{name}` is listed twice"),
                );
            }
            players.push(SfrmPlayer {
                name,
                side,
                addresses: p.addresses.clone(),
                time_zone: p.time_zone.clone(),
                commands: p.commands.clone(),
            });
        }
    }

    let season = start.and_then(|(_, m, _)| season_of_month(m));
    match (
        c.problems.is_empty(),
        name,
        start,
        season,
        attacker,
        weather,
        last_turn,
    ) {
        (
            true,
            Some(name),
            Some((year, month, minute)),
            Some(season),
            Some(attacker),
            Some(weather),
            Some(last_turn),
        ) => Ok(SfrmScenario {
            name,
            description,
            year,
            month,
            width: c.width,
            height: c.height,
            last_turn,
            objectives,
            players,
            ground_names,
            umpire: raw
                .scenario
                .umpire
                .as_ref()
                .map(|u| u.trim().to_string())
                .filter(|u| !u.is_empty()),
            battle: SfrmBattle {
                turn: 0,
                start_minute: minute,
                season,
                weather,
                attacker,
                units,
                generals,
                ground,
                contacts: Vec::new(),
                roads,
                supply_sources,
                table: (c.width > 0.0 && c.height > 0.0).then_some(super::nouns::Table {
                    width: c.width,
                    height: c.height,
                }),
            },
        }),
        _ => {
            if c.problems.is_empty() {
                c.bad("scenario", "the [scenario] table is incomplete");
            }
            Err(c.problems)
        }
    }
}

/// Ids from 1, in file order.
fn index_id(i: usize) -> u32 {
    u32::try_from(i).map_or(u32::MAX, |i| i.saturating_add(1))
}

fn season_word(s: Season) -> &'static str {
    match s {
        Season::Spring => "spring",
        Season::Summer => "summer",
        Season::Fall => "fall",
        Season::Winter => "winter",
    }
}

/// The lines `adjutant scenario check` prints for a valid SFRM scenario.
pub fn check_report(s: &SfrmScenario) -> ScenarioCheck {
    let b = &s.battle;
    let mut notes = Vec::new();
    let costs = s.costs();
    let mut sides_json = Vec::new();
    for cost in &costs {
        let side = cost.side;
        let units = b.units.iter().filter(|u| u.side == side).count();
        let elements: u32 = b
            .units
            .iter()
            .filter(|u| u.side == side)
            .map(|u| u.elements)
            .sum();
        let generals = b.generals.iter().filter(|g| g.side == side).count();
        notes.push(format!(
            "{}: {} units ({} elements), {} generals; army cost {} points (SFRM Table 9){}",
            side.name(),
            units,
            elements,
            generals,
            cost.points,
            if cost.side == b.attacker {
                "; the attacker"
            } else {
                ""
            }
        ));
        for (unit, why) in &cost.unpriced {
            notes.push(format!("  not priced: {unit}: {why}"));
        }
        sides_json.push(serde_json::json!({
            "side": word(side, SIDES),
            "units": units,
            "elements": elements,
            "generals": generals,
            "cost": cost.points,
            "unpriced": cost.unpriced.iter().map(|(u, why)| serde_json::json!({
                "unit": u, "why": why.to_string()
            })).collect::<Vec<_>>(),
        }));
    }
    let breaches = s.breaches();
    if !breaches.is_empty() {
        notes.push(
            "note: the order of battle breaks these army costing limits (reported, not refused; a historical order of battle may):"
                .into(),
        );
        for br in &breaches {
            notes.push(format!(
                "  {}: {} ({})",
                br.side.name(),
                br.text,
                br.section
            ));
        }
    }
    let hh = b.start_minute / 60;
    let mm = b.start_minute % 60;
    ScenarioCheck {
        headline: format!(
            "`{}` is a valid SFRM scenario: {} units, {} generals, {} turns of 30 minutes from {:02}:{:02} ({}, {}), {} attacks first",
            s.name,
            b.units.len(),
            b.generals.len(),
            s.last_turn,
            hh,
            mm,
            season_word(b.season),
            word(b.weather, WEATHERS),
            b.attacker.name()
        ),
        notes,
        json: serde_json::json!({
            "valid": true,
            "ruleset": SFRM,
            "name": s.name,
            "units": b.units.len(),
            "generals": b.generals.len(),
            "turns": s.last_turn,
            "start_minute": b.start_minute,
            "season": season_word(b.season),
            "weather": word(b.weather, WEATHERS),
            "attacker": word(b.attacker, SIDES),
            "objectives": s.objectives.len(),
            "sides": sides_json,
            "organisation_breaches": breaches.iter().map(|br| serde_json::json!({
                "side": word(br.side, SIDES), "text": br.text, "section": br.section
            })).collect::<Vec<_>>(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::orders::{Order, SfrmEvent, TurnOrders};
    use super::super::turn::resolve_turn;
    use super::*;
    use crate::dice::StreamDice;

    const BULL_RUN: &str = include_str!("../../../../scenarios/first-bull-run.toml");

    fn problems(text: &str) -> Vec<Problem> {
        match from_toml_str(text, "t.toml") {
            Err(e) => e.problems().to_vec(),
            Ok(_) => Vec::new(),
        }
    }

    #[test]
    fn sfrm_scenario_first_bull_run_loads_with_its_costs() {
        let s = from_toml_str(BULL_RUN, "first-bull-run.toml").unwrap();
        assert_eq!(s.name, "First Bull Run");
        assert_eq!((s.year, s.month), (1861, 7));
        assert_eq!(s.battle.season, Season::Summer);
        assert_eq!(s.battle.weather, Weather::Hot);
        assert_eq!(s.battle.start_minute, 9 * 60 + 30);
        assert_eq!(s.battle.attacker, Side::Union);
        assert_eq!(s.last_turn, 17);
        let burnside = s
            .battle
            .units
            .iter()
            .find(|u| u.name == "Burnside's brigade")
            .unwrap();
        assert_eq!(burnside.quality, None, "green: Table 5 on first combat");
        assert_eq!(burnside.elements, 8);
        let costs = s.costs();
        assert_eq!(costs.len(), 2);
        assert!(costs.iter().all(|c| c.points > 0 && c.unpriced.is_empty()));
        let report = check_report(&s);
        assert!(report.notes[0].contains("army cost"), "{:?}", report.notes);
        assert!(
            report.notes[0].contains("SFRM Table 9"),
            "{:?}",
            report.notes
        );
    }

    #[test]
    fn sfrm_scenario_problems_come_all_at_once_with_lines() {
        let text = "[scenario]\nruleset = \"sfrm\"\nname = \"x\"\nstart = \"1861-07-21T09:30\"\n\
            attacker = \"yankees\"\nweather = \"hot\"\nlast_turn = 3\n\
            [table]\nwidth = 10\nheight = 10\n\
            [[units]]\nname = \"A\"\nside = \"union\"\narm = \"infantry\"\nweapon = \"rifle\"\n\
            elements = 4\nquality = \"green\"\nfacing = 0\nposition = [5, 5]\n\
            [[units]]\nname = \"B\"\nside = \"confederate\"\narm = \"artillery\"\ngun = \"6-pounder\"\n\
            elements = 2\nfacing = \"south\"\nposition = [5, 12]\ncolour = \"grey\"\n";
        let p = problems(text);
        let find = |path: &str| p.iter().find(|x| x.path == path).cloned();
        let a = find("scenario.attacker").unwrap();
        assert_eq!(a.line, Some(5));
        assert!(a.message.contains("unknown side `yankees`"), "{a:?}");
        let w = find("units[0].weapon").unwrap();
        assert!(w.message.contains("did you mean `rifles`?"), "{w:?}");
        assert!(
            find("units[1].elements")
                .unwrap()
                .message
                .contains("exactly 1 element")
        );
        assert!(
            find("units[1].position")
                .unwrap()
                .message
                .contains("off the")
        );
        assert!(
            find("units[1].colour")
                .unwrap()
                .message
                .contains("unknown key")
        );
        assert!(p.len() >= 5, "{p:?}");
    }

    #[test]
    fn sfrm_scenario_needs_its_ruleset_line() {
        let text = BULL_RUN.replace("ruleset = \"sfrm\"\n", "");
        let p = problems(&text);
        assert!(p.iter().any(|x| x.path == "scenario.ruleset"), "{p:?}");
    }

    #[test]
    fn iron_brigade_loader_refuses_an_sfrm_scenario() {
        let e = crate::scenario::Scenario::from_toml_str(BULL_RUN, "first-bull-run.toml")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("ruleset `sfrm`, not Iron Brigade"), "{e}");
        assert!(e.contains("scenario.ruleset"), "{e}");
        // Which rulesets exist, and which play by mail, is the registry's
        // answer (`crate::rulesets`), given before any loader is reached.
        let e = crate::rulesets::ruleset_of_scenario(BULL_RUN).unwrap();
        assert!(e.by_mail());
        assert!(e.mail_engine().is_some());
        let other = "[scenario]\nruleset = \"cls3\"\nname = \"x\"\n";
        let e = crate::rulesets::ruleset_of_scenario(other)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("unknown ruleset `cls3`"), "{e}");
        assert!(e.contains("`sfrm`") && e.contains("`iron-brigade`"), "{e}");
    }

    /// A simple scripted general for both sides: the Union makes for Henry
    /// House Hill, deploying and charging when close; the Confederates make
    /// for the hill and hold it in line.
    fn scripted_orders(b: &SfrmBattle) -> TurnOrders {
        let hill = Pos::new(45.0, 34.0);
        let mut orders = TurnOrders::default();
        for u in b.units.iter().filter(|u| !u.gone() && !u.routed) {
            if matches!(u.arm, Arm::Supply) {
                continue;
            }
            let enemy = b
                .units_of(u.side.other())
                .filter(|e| !matches!(e.arm, Arm::Supply))
                .min_by(|a, c| a.pos.distance(u.pos).total_cmp(&c.pos.distance(u.pos)));
            let near = enemy.map(|e| (e.id, e.pos, e.pos.distance(u.pos)));
            let order = match (u.side, near) {
                (_, Some((_, at, d))) if d < 8.0 && u.formation == Formation::MarchColumn => {
                    Order::Formation {
                        unit: u.id,
                        formation: Formation::Line,
                        facing: Some(u.pos.bearing_to(at)),
                        front_rank: None,
                        mounted: None,
                        prone: None,
                    }
                }
                (Side::Union, Some((id, _, d))) if d < 3.0 && u.is_infantry_or_cavalry() => {
                    Order::Charge {
                        unit: u.id,
                        target: id,
                    }
                }
                (Side::Union, Some((_, at, d))) if d < 8.0 => Order::Move {
                    unit: u.id,
                    to: at,
                    front_rank: None,
                    road: false,
                },
                (Side::Confederate, _) if u.pos.distance(hill) < 4.0 => continue,
                (Side::Confederate, Some((_, _, d))) if d < 8.0 => continue,
                _ => Order::Move {
                    unit: u.id,
                    to: hill,
                    front_rank: None,
                    road: false,
                },
            };
            match u.side {
                Side::Union => orders.union.push(order),
                Side::Confederate => orders.confederate.push(order),
            }
        }
        orders
    }

    #[test]
    fn sfrm_first_bull_run_plays_to_its_last_turn() {
        let s = from_toml_str(BULL_RUN, "first-bull-run.toml").unwrap();
        let mut dice = StreamDice::new([21; 32]);
        let mut b = s.battle.clone();
        let mut fired = 0;
        let mut tested = 0;
        let mut moved = 0;
        while b.turn < s.last_turn {
            let orders = scripted_orders(&b);
            let (next, ev) = resolve_turn(&b, &orders, &mut dice).unwrap();
            assert_eq!(next.turn, b.turn + 1);
            for e in &ev {
                match e {
                    SfrmEvent::Fired { .. } => fired += 1,
                    SfrmEvent::GreenTested { .. } => tested += 1,
                    SfrmEvent::Moved { .. } => moved += 1,
                    _ => {}
                }
            }
            b = next;
        }
        assert_eq!(b.turn, 17);
        assert_eq!(
            b.minute_of_turn(b.turn),
            17 * 60 + 30,
            "the last turn starts 17:30"
        );
        assert!(moved > 0, "the armies moved");
        assert!(fired > 0, "they fought");
        assert!(tested > 0, "green brigades saw the elephant (Table 5)");
        // Same seed, same battle: the engine is deterministic.
        let mut again = StreamDice::new([21; 32]);
        let mut c = s.battle.clone();
        while c.turn < s.last_turn {
            let orders = scripted_orders(&c);
            c = resolve_turn(&c, &orders, &mut again).unwrap().0;
        }
        assert_eq!(b, c);
    }
}
