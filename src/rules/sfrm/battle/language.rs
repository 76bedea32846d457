//! SFRM orders in words, at brigade scale (pure: battle, side and mail
//! body in; the [`TurnOrders`] understood and the errors out; it never
//! fails and never rolls).
//!
//! # What an order may say at this scale
//!
//! A mail holds one order a line, `ADDRESSEE: what to do`, or
//! `ADDRESSEE will what to do`. The addressee is one of the side's own
//! brigades, artillery battalions or supply trains ("Sherman's brigade",
//! "33rd Virginia Brigade", "Sherman"), or one of its generals ("Hooker's
//! division", "Gen. Tyler", "McDowell"). What to do is one or more
//! clauses joined by `;`, `, then`, `then` or `and`:
//!
//! - moves ("Movement & Manoeuvre", Table 4): `advance`, `move`, `march`,
//!   `cross`, `go`, `retire`, `fall back`, with `on`/`to`/`at`/`toward`/
//!   `across` a place, a brigade of the side, a seen enemy or `(x, y)`; by
//!   compass and distance (`advance 3 inches north-east`, `retire 400
//!   yards south`: 1" = 100 yd, Table 1); `by the ROAD to PLACE` for the
//!   on-road rate (a march column, "Table 4"); with no destination,
//!   `advance` goes straight ahead and `retire` straight back, a whole
//!   Table 4 allowance;
//! - `hold` (stay, or `hold PLACE`: move there if not within 1" of it),
//!   `wheel left|right N degrees` ("Manoeuvre" iii), `form line|march
//!   column|battle column|skirmish|square|line in town` optionally
//!   `facing DIR`, `face DIR`, `lie down`, `stand up`, `mount`,
//!   `dismount` ("Formation Changes"), `entrench`/`dig in`
//!   ("Entrenching"), `rally` ("Command": unrouting), `rout` (a voluntary
//!   rout move, "Rout Moves");
//! - `charge [ENEMY]` ("Movement"), `attack ENEMY` (a charge when a
//!   general rides with the brigade, else a move toward the enemy, which
//!   the engine stops at the stand-off, and fire at it), `fire at ENEMY`
//!   ("Firing Arc & Target Availability"), `fire at General X` (a seen general
//!   not riding with a unit, named only when identities are known);
//! - breakthrough advances ("Breakthrough Advances & Combat"), beside
//!   the turn's one move: `if the enemy breaks, press on to PLACE` (the
//!   only order on a condition), `pursue [ENEMY | to PLACE]`, `follow
//!   up`, `exploit`, `break through [to PLACE]`; the engine carries it out
//!   only for a unit that charged and routed every enemy it met;
//! - to a general himself: `ride to PLACE`, `join`/`ride with`/`attach to
//!   BRIGADE`, `detach`; and, from any general or on its own line, `attach
//!   Gen. Jackson to the 33rd Virginia brigade` ("Command" ii);
//! - `support`/`follow`/`reinforce` one of the side's own brigades or
//!   generals, or a move `in support of` one: SFRM has no support order,
//!   so it is a move to stand straight behind them (their depth back, by
//!   Table 1's bases), behind where the same mail sends them if it moves
//!   them, which the receipt says;
//! - `attack PLACE`: a move on the place (the engine keeps the stand-off
//!   and the unit fires at the enemy in its arc).
//!
//! The writer's own words for these are read as them ([`tidy`]): `occupy`,
//! `take up a position on` (hold), `scout toward` (a move), `move up to`,
//! `open fire on`, `unlimber`/`limber up` (formations); urgency ("at all
//! costs", "with all speed") is dropped; a verb, name or place with one
//! slip of the pen (five letters or more) is the one it is a letter from.
//! A general's order to a general under him ("McDowell: Heintzelman's
//! division will attack Henry Hill") is the second general's order. A move
//! whose point is past the table's edge goes to the edge, and the receipt
//! says so (our ruling: no unit leaves the table; the engine holds it too).
//!
//! ENEMY is `the enemy`/`the nearest enemy`, `the enemy's left|right|
//! centre`, `the enemy on PLACE`, or a seen enemy unit by what the side
//! calls it ([`EnemyNaming`]). Only enemy the side sees now
//! ([`super::view::seen_enemy_units`]) can be named; an error about an
//! enemy never says whether an unseen one exists, and suggestions are
//! drawn only from the side's own brigades, generals and places and the
//! enemy it sees.
//!
//! # One movement order a turn
//!
//! SFRM gives a unit one move in its movement & manoeuvre subphase
//! ([`Order`]: at most one of move, charge, formation, entrench, rout
//! move, rally). The first such clause of a line is taken; a later one is
//! an error that says to write it next turn, except `attack`/`charge`
//! after a move, which becomes whom to fire at (`cross at the Ford and
//! attack the enemy's left` moves to the ford and fires at that flank).
//!
//! # Orders through a general
//!
//! An order to a general (other than his own ride or attachment) is an
//! order to every brigade, battalion and train under him: his own
//! division's units, and for a corps or army general those of every
//! general under him. Each gets the same order; a move to a place keeps
//! the brigades' places relative to one another (each moves by the same
//! offset that takes their centre to the place), so a division does not
//! pile onto one point. The parser rolls nothing: the engine makes the
//! command rolls the rules make ("Command" i: each general of the
//! phasing side rolls a d6 against his command ability; a unit is in
//! command partly within the command range of one who succeeds, or in a
//! march column with a general, ii), and a brigade out of command does not
//! move ("Units out of command ... may not move but may fire").
//!
//! [`describe`] reads an order back for the receipt. Rulings:
//! docs/rulings-sfrm.md, "Brigade scale: orders in words".

use super::nouns::{Formation, GeneralId, Pos, SfrmBattle, Side, Unit, UnitId};
use super::orders::{Order, TurnOrders};
use super::tables::{YARDS_PER_INCH, move_allowance};
use super::view::{EnemyNaming, seen_enemy_generals, seen_enemy_units};
use std::collections::{BTreeMap, BTreeSet};

/// A named place of the scenario, in SFRM inches.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub name: String,
    pub pos: Pos,
}

/// Something in the mail not understood, with where and what would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanguageError {
    /// 1-based line of the mail body.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    pub message: String,
}

/// One line understood: to whom it was written and the orders it made.
#[derive(Debug, Clone, PartialEq)]
pub struct Understood {
    pub line: usize,
    /// The addressee as the side knows him or it ("General Tyler",
    /// "Sherman's Brigade").
    pub to: String,
    /// Through a general to his brigades (their command rolls follow).
    pub through: Option<GeneralId>,
    pub orders: Vec<Order>,
    /// What the receipt adds to the orders read back: how a phrase the
    /// rules have no order for was carried out ("support Burnside's
    /// brigade": a move to stand behind it).
    pub notes: Vec<String>,
}

/// What a mail body said.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reading {
    pub orders: TurnOrders,
    /// The mail line of each order of the writing side's list in
    /// `orders` (same index as the engine's `OrderRefused::index`), so a
    /// refusal can be told against the line that made it.
    pub lines: Vec<usize>,
    pub understood: Vec<Understood>,
    pub errors: Vec<LanguageError>,
}

/// Everything the parser needs to know, borrowed.
pub struct Context<'a> {
    pub battle: &'a SfrmBattle,
    pub side: Side,
    pub places: &'a [Place],
    pub naming: &'a EnemyNaming,
}

/// Lowercase, `'s` and punctuation gone, titles and the nouns of
/// command dropped: "Gen. Sherman's Brigade" and "sherman" read alike.
fn norm(s: &str) -> String {
    let s = s.to_lowercase().replace(['’', '`'], "'");
    let s = s.replace("'s ", " ").replace("s' ", "s ");
    let s = s.strip_suffix("'s").unwrap_or(&s).to_string();
    let cleaned: String = s
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == ' ' {
                c
            } else {
                ' '
            }
        })
        .collect();
    const DROP: &[&str] = &[
        "the",
        "gen",
        "general",
        "brig",
        "brigadier",
        "maj",
        "major",
        "lt",
        "col",
        "colonel",
        "brigade",
        "division",
        "div",
        "corps",
        "command",
        "men",
        "troops",
        "battalion",
        "battery",
        "train",
        "army",
        "s",
    ];
    // A slip of the pen in a long noun of command ("brigde", "divison")
    // is still that noun.
    const LONG: &[&str] = &[
        "brigade",
        "division",
        "battalion",
        "battery",
        "general",
        "colonel",
    ];
    cleaned
        .split_whitespace()
        .filter(|w| !DROP.contains(w))
        .filter(|w| w.len() < 5 || !LONG.iter().any(|d| distance(w, d) <= 1))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Edit distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The closest of `names` to `written`, if any is close.
fn closest<'n>(written: &str, names: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    let w = norm(written);
    names
        .map(|n| (distance(&w, &norm(n)), n))
        .filter(|(d, n)| *d <= norm(n).len().max(3) / 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Whether `w` (normalised) names `name`: equal, or the first words of it.
fn names(w: &str, name: &str) -> bool {
    let n = norm(name);
    !w.is_empty() && (n == w || n.starts_with(&format!("{w} ")) || n.ends_with(&format!(" {w}")))
}

/// Whether every word of `w` is a word of `name`, in the same order.
fn words_in_order(w: &str, name: &str) -> bool {
    let mut words = name.split_whitespace();
    w.split_whitespace().all(|x| words.any(|y| y == x))
}

/// Who an order line is written to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Addressee {
    Unit(UnitId),
    General(GeneralId),
}

impl Context<'_> {
    fn own_units(&self) -> impl Iterator<Item = &Unit> {
        self.battle.units_of(self.side)
    }

    fn suggest_own(&self, written: &str) -> String {
        let all: Vec<&str> = self
            .own_units()
            .map(|u| u.name.as_str())
            .chain(self.battle.generals_of(self.side).map(|g| g.name.as_str()))
            .collect();
        match closest(written, all.iter().copied()) {
            Some(n) => format!("did you mean {n}?"),
            None => format!("yours are: {}", all.join(", ")),
        }
    }

    /// The side's own brigade or general called `written`.
    fn addressee(&self, written: &str) -> Result<Addressee, String> {
        let lower = written.to_lowercase();
        let generals_first = ["division", "corps", "command", "gen.", "general", "army"]
            .iter()
            .any(|w| lower.contains(w));
        let w = norm(written);
        let units: Vec<UnitId> = self
            .own_units()
            .filter(|u| names(&w, &u.name))
            .map(|u| u.id)
            .collect();
        let generals: Vec<GeneralId> = self
            .battle
            .generals_of(self.side)
            .filter(|g| names(&w, &g.name))
            .map(|g| g.id)
            .collect();
        let pick_units = |u: &[UnitId]| match u {
            [one] => Some(Ok(Addressee::Unit(*one))),
            [] => None,
            many => Some(Err(format!(
                "'{written}' could be {}; write the whole name",
                many.iter()
                    .filter_map(|id| self.battle.unit(*id))
                    .map(|u| u.name.as_str())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ))),
        };
        let pick_generals = |g: &[GeneralId]| match g {
            [one] => Some(Ok(Addressee::General(*one))),
            [] => None,
            many => Some(Err(format!(
                "'{written}' could be {}; write the whole name",
                many.iter()
                    .filter_map(|id| self.battle.general(*id))
                    .map(|g| format!("General {}", g.name))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ))),
        };
        // A name written whole wins over one it begins: "Heintzelman" is
        // the general, not Heintzelman's artillery.
        let exact_units: Vec<UnitId> = units
            .iter()
            .copied()
            .filter(|id| self.battle.unit(*id).is_some_and(|u| norm(&u.name) == w))
            .collect();
        let exact_generals: Vec<GeneralId> = generals
            .iter()
            .copied()
            .filter(|id| self.battle.general(*id).is_some_and(|g| norm(&g.name) == w))
            .collect();
        match (exact_units.as_slice(), exact_generals.as_slice()) {
            ([u], []) if units.len() > 1 || !generals.is_empty() => {
                return Ok(Addressee::Unit(*u));
            }
            ([], [g]) if generals.len() > 1 || !units.is_empty() => {
                return Ok(Addressee::General(*g));
            }
            _ => {}
        }
        let found = if generals_first {
            pick_generals(&generals).or_else(|| pick_units(&units))
        } else {
            pick_units(&units).or_else(|| pick_generals(&generals))
        };
        if let Some(found) = found {
            return found;
        }
        // One slip of the pen in a name long enough that it cannot make
        // another ("Porters brigade", "Burnsides", "Heintzleman"): the one
        // name it is a letter from. The receipt reads the name back whole.
        if w.chars().count() >= 5 {
            let mut near: Vec<Addressee> = self
                .own_units()
                .filter(|u| distance(&w, &norm(&u.name)) <= 1)
                .map(|u| Addressee::Unit(u.id))
                .collect();
            near.extend(
                self.battle
                    .generals_of(self.side)
                    .filter(|g| distance(&w, &norm(&g.name)) <= 1)
                    .map(|g| Addressee::General(g.id)),
            );
            if let [one] = near.as_slice() {
                return Ok(*one);
            }
        }
        Err(format!(
            "no brigade or general of yours is called '{}'; {}",
            written.trim(),
            self.suggest_own(written)
        ))
    }

    /// The units under general `g`: his division's, and those of every
    /// general under him ("Command & Supply": the order of battle).
    fn command_of(&self, g: GeneralId) -> Vec<UnitId> {
        let mut gens = BTreeSet::from([g]);
        loop {
            let more: Vec<GeneralId> = self
                .battle
                .generals_of(self.side)
                .filter(|x| x.superior.is_some_and(|s| gens.contains(&s)))
                .map(|x| x.id)
                .filter(|id| !gens.contains(id))
                .collect();
            if more.is_empty() {
                break;
            }
            gens.extend(more);
        }
        self.own_units()
            .filter(|u| u.division.is_some_and(|d| gens.contains(&d)))
            .map(|u| u.id)
            .collect()
    }

    fn general_name(&self, g: GeneralId) -> String {
        self.battle
            .general(g)
            .map(|g| format!("General {}", g.name))
            .unwrap_or_else(|| format!("general {}", g.0))
    }

    /// A place by name: the scenario's places, the side's own units, or
    /// `(x, y)`.
    fn place(&self, written: &str) -> Result<(Pos, String), String> {
        let t = written.trim().trim_end_matches('.');
        if let Some(p) = coordinates(t) {
            return Ok((p, format!("({:.1}, {:.1})", p.x, p.y)));
        }
        let w = norm(t);
        if let Some(p) = self.places.iter().find(|p| norm(&p.name) == w) {
            return Ok((p.pos, p.name.clone()));
        }
        // Every written word in the name, in order ("Henry Hill" in
        // "Henry House Hill" and in "woods east of Henry Hill"): the name
        // with the fewest other words is meant; a tie is asked about.
        let mut places: Vec<(usize, &Place)> = self
            .places
            .iter()
            .filter_map(|p| {
                let n = norm(&p.name);
                let ok = !w.is_empty()
                    && (names(&w, &p.name) || n.contains(&w) || words_in_order(&w, &n));
                ok.then(|| (n.split_whitespace().count(), p))
            })
            .collect();
        places.sort_by_key(|(n, _)| *n);
        match places.as_slice() {
            [(_, p)] => return Ok((p.pos, p.name.clone())),
            [(a, p), (b, _), ..] if a < b => return Ok((p.pos, p.name.clone())),
            [(a, _), ..] => {
                let tied: Vec<&str> = places
                    .iter()
                    .filter(|(n, _)| n == a)
                    .map(|(_, p)| p.name.as_str())
                    .collect();
                return Err(format!(
                    "'{t}' could be {}; write the whole name",
                    tied.join(" or ")
                ));
            }
            [] => {}
        }
        // One slip of the pen in a long name ("Mathews Hill").
        if w.chars().count() >= 5 {
            let near: Vec<&Place> = self
                .places
                .iter()
                .filter(|p| distance(&w, &norm(&p.name)) <= 1)
                .collect();
            if let [p] = near.as_slice() {
                return Ok((p.pos, p.name.clone()));
            }
        }
        if let Some(u) = self.own_units().find(|u| names(&w, &u.name)) {
            return Ok((u.pos, u.name.clone()));
        }
        let all: Vec<&str> = self.places.iter().map(|p| p.name.as_str()).collect();
        Err(match closest(t, all.iter().copied()) {
            Some(n) => format!("no place called '{t}'; did you mean {n}?"),
            None if all.is_empty() => format!(
                "no place called '{t}'; give a place as (x, y) in inches, or a compass direction and distance"
            ),
            None => format!("no place called '{t}'; places are: {}", all.join(", ")),
        })
    }

    /// An enemy unit the side sees, as written; never says whether an
    /// unseen one exists.
    fn enemy(&self, written: &str, from: Pos) -> Result<UnitId, String> {
        let seen: Vec<&Unit> = seen_enemy_units(self.battle, self.side)
            .into_iter()
            .filter_map(|id| self.battle.unit(id))
            .collect();
        let t = written.trim().trim_end_matches('.').to_lowercase();
        let t = t.strip_prefix("the ").unwrap_or(&t).trim().to_string();
        if seen.is_empty() {
            return Err(format!(
                "no enemy is in sight to attack or fire at ('{}'); SFRM Firing Arc & Target Availability",
                written.trim()
            ));
        }
        let nearest_to = |p: Pos| {
            seen.iter()
                .min_by(|a, b| {
                    a.pos
                        .distance(p)
                        .total_cmp(&b.pos.distance(p))
                        .then(a.id.cmp(&b.id))
                })
                .map(|u| u.id)
        };
        if t == "enemy" || t == "nearest enemy" || t == "enemy in front" {
            return nearest_to(from).ok_or_else(|| "no enemy in sight".into());
        }
        for (flank, side) in [
            ("left", -90.0),
            ("right", 90.0),
            ("centre", 0.0),
            ("center", 0.0),
        ] {
            if t == format!("enemy's {flank}") || t == format!("enemy {flank}") {
                return flank_of(&seen, side).ok_or_else(|| "no enemy in sight".into());
            }
        }
        if let Some(rest) = t
            .strip_prefix("enemy on ")
            .or_else(|| t.strip_prefix("enemy at "))
            .or_else(|| t.strip_prefix("enemy in "))
        {
            let (p, _) = self.place(rest)?;
            return nearest_to(p).ok_or_else(|| "no enemy in sight".into());
        }
        let w = norm(&t);
        for u in &seen {
            let called = self.naming.call(u);
            let desig = self
                .naming
                .designations
                .get(&u.id)
                .map(|d| d.to_lowercase());
            if norm(&called) == w
                || desig.as_deref() == Some(w.as_str())
                || desig.is_some_and(|d| w.ends_with(&format!(" {d}")))
            {
                return Ok(u.id);
            }
        }
        let calls: Vec<String> = seen
            .iter()
            .filter(|u| self.naming.known || self.naming.designations.contains_key(&u.id))
            .map(|u| self.naming.call(u))
            .collect();
        Err(format!(
            "no enemy in sight is called '{}'; write {}the enemy, the nearest enemy, the enemy's left, right or centre, or the enemy on a place",
            written.trim(),
            if calls.is_empty() {
                String::new()
            } else {
                format!("{}, or ", calls.join(", "))
            }
        ))
    }
}

/// The seen enemy unit on a flank as the enemy faces: `turn` -90 for his
/// left, +90 his right, 0 his centre (nearest their middle).
fn flank_of(seen: &[&Unit], turn: f64) -> Option<UnitId> {
    if seen.is_empty() {
        return None;
    }
    let n = seen.len() as f64;
    let (cx, cy) = seen
        .iter()
        .fold((0.0, 0.0), |(x, y), u| (x + u.pos.x, y + u.pos.y));
    let centre = Pos::new(cx / n, cy / n);
    if turn == 0.0 {
        return seen
            .iter()
            .min_by(|a, b| {
                a.pos
                    .distance(centre)
                    .total_cmp(&b.pos.distance(centre))
                    .then(a.id.cmp(&b.id))
            })
            .map(|u| u.id);
    }
    // Their mean facing, as a vector.
    let (sx, sy) = seen.iter().fold((0.0, 0.0), |(x, y), u| {
        let r = u.facing.to_radians();
        (x + r.sin(), y + r.cos())
    });
    let facing = sx.atan2(sy).to_degrees();
    let dir = Pos::new(0.0, 0.0).step(facing + turn, 1.0);
    seen.iter()
        .max_by(|a, b| {
            let pa = (a.pos.x - centre.x) * dir.x + (a.pos.y - centre.y) * dir.y;
            let pb = (b.pos.x - centre.x) * dir.x + (b.pos.y - centre.y) * dir.y;
            pa.total_cmp(&pb).then(b.id.cmp(&a.id))
        })
        .map(|u| u.id)
}

/// `(x, y)` in inches.
fn coordinates(t: &str) -> Option<Pos> {
    let inner = t.strip_prefix('(')?.strip_suffix(')')?;
    let (x, y) = inner.split_once(',')?;
    let (x, y) = (x.trim().parse::<f64>().ok()?, y.trim().parse::<f64>().ok()?);
    (x.is_finite() && y.is_finite()).then_some(Pos::new(x, y))
}

/// A compass point or a direction relative to the unit's facing, as a
/// bearing (0 north, clockwise).
fn direction(w: &str, facing: f64) -> Option<f64> {
    let b = match w.trim().replace(' ', "-").as_str() {
        "north" | "n" => 0.0,
        "north-east" | "northeast" | "ne" => 45.0,
        "east" | "e" => 90.0,
        "south-east" | "southeast" | "se" => 135.0,
        "south" | "s" => 180.0,
        "south-west" | "southwest" | "sw" => 225.0,
        "west" | "w" => 270.0,
        "north-west" | "northwest" | "nw" => 315.0,
        "forward" | "ahead" | "front" | "forwards" => facing,
        "back" | "backward" | "backwards" | "rear" | "to-the-rear" => facing + 180.0,
        "left" | "to-the-left" => facing - 90.0,
        "right" | "to-the-right" => facing + 90.0,
        _ => return None,
    };
    Some(f64::rem_euclid(b, 360.0))
}

/// A facing: a compass point or left/right/about, else toward a seen
/// enemy ("facing the enemy", "facing the enemy's left") or a place
/// ("facing Henry Hill"). Never finds an unseen enemy.
fn facing_toward(cx: &Context, u: &Unit, w: &str) -> Option<f64> {
    let w = w.trim();
    if let Some(b) = direction(w, u.facing) {
        return Some(b);
    }
    let t = w.strip_prefix("the ").unwrap_or(w);
    let p = if t.starts_with("enemy") {
        cx.enemy(w, u.pos)
            .ok()
            .and_then(|e| cx.battle.unit(e))
            .map(|e| e.pos)
    } else {
        cx.place(w).ok().map(|(p, _)| p)
    };
    p.filter(|p| p.distance(u.pos) > 0.0)
        .map(|p| u.pos.bearing_to(p))
}

/// A distance in SFRM inches from "3 inches", "3\"", "400 yards" (Table 1:
/// 1" = 100 yd).
fn distance_in(words: &[&str]) -> Option<(f64, usize)> {
    // "1,000 yards": the comma of thousands.
    let first = words.first()?.replace(',', "");
    let first = &first.as_str();
    let (num, unit_attached) = match first.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(0) => return None,
        Some(i) => (&first[..i], Some(&first[i..])),
        None => (*first, None),
    };
    let n: f64 = num.parse().ok()?;
    if !n.is_finite() || n < 0.0 {
        return None;
    }
    let (unit, used) = match unit_attached {
        Some(u) => (u.to_string(), 1),
        None => (words.get(1).map(|s| s.to_string()).unwrap_or_default(), 2),
    };
    match unit.trim_end_matches('.') {
        "\"" | "in" | "inch" | "inches" => Some((n, used)),
        "yd" | "yds" | "yard" | "yards" => Some((n / f64::from(YARDS_PER_INCH), used)),
        _ => None,
    }
}

/// Split a line's instructions into clauses with their character offsets.
fn clauses(text: &str) -> Vec<(usize, String)> {
    // ASCII lowercase keeps every byte offset valid in `text`.
    let lower = text.to_ascii_lowercase();
    let mut cuts: Vec<(usize, usize)> = Vec::new(); // (start of separator, its length)
    for sep in [";", ", then ", " then ", ", and ", " and "] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(sep) {
            let at = from + i;
            if !cuts.iter().any(|(s, l)| at < s + l && *s < at + sep.len()) {
                cuts.push((at, sep.len()));
            }
            from = at + sep.len();
        }
    }
    cuts.sort();
    let mut out = Vec::new();
    let mut start = 0;
    for (at, len) in cuts {
        out.push((start, text[start..at].to_string()));
        start = at + len;
    }
    out.push((start, text[start..].to_string()));
    let cl: Vec<(usize, String)> = out
        .into_iter()
        .map(|(s, c)| {
            let lead = c.len() - c.trim_start().len();
            (s + lead, c.trim().trim_end_matches('.').trim().to_string())
        })
        .filter(|(_, c)| !c.is_empty())
        .collect();
    // A condition cut off from its order ("if the enemy breaks, then press
    // on"): joined to the clause after it.
    let mut joined: Vec<(usize, String)> = Vec::with_capacity(cl.len());
    for (s, c) in cl {
        match joined.last_mut() {
            Some((_, prev))
                if prev.to_ascii_lowercase().starts_with("if ") && !prev.contains(',') =>
            {
                prev.push_str(", ");
                prev.push_str(&c);
            }
            _ => joined.push((s, c)),
        }
    }
    joined
}

/// What one clause asks of a unit.
enum Action {
    Move {
        to: Pos,
        road: bool,
    },
    Stay,
    Wheel(f64),
    Charge(UnitId),
    Attack(UnitId),
    Form {
        formation: Option<Formation>,
        facing: Option<f64>,
        prone: Option<bool>,
        mounted: Option<bool>,
    },
    Entrench,
    Rally,
    Rout,
    Target(UnitId),
    TargetGeneral(GeneralId),
    /// After combat, if the unit charged and routed every enemy it met
    /// ("Breakthrough Advances & Combat"): half a move on to a point.
    BreakMove(Pos),
    /// The same, charging a further enemy (with an attached general).
    BreakCharge(UnitId),
    /// "Pursue the enemy": a breakthrough charge when a general rides with
    /// the brigade, else the advance toward him (the engine stops it 1"
    /// short, as the rule says).
    BreakAttack(UnitId),
    /// An action with what the receipt says of how it was read.
    Noted(Box<Action>, String),
    /// A move to stand behind units `of` (support, follow), `offset` from
    /// the point behind them; taken again behind where the mail orders
    /// them to go once the whole mail is read.
    Support {
        to: Pos,
        of: Vec<UnitId>,
        offset: Pos,
        note: String,
    },
}

impl Action {
    /// A movement order of the movement & manoeuvre subphase (one a
    /// turn). Breakthrough advances are not: they come after combat.
    fn is_movement(&self) -> bool {
        if let Action::Noted(a, _) = self {
            return a.is_movement();
        }
        !matches!(
            self,
            Action::Target(_)
                | Action::TargetGeneral(_)
                | Action::Stay
                | Action::BreakMove(_)
                | Action::BreakCharge(_)
                | Action::BreakAttack(_)
        )
    }

    fn is_breakthrough(&self) -> bool {
        if let Action::Noted(a, _) = self {
            return a.is_breakthrough();
        }
        matches!(
            self,
            Action::BreakMove(_) | Action::BreakCharge(_) | Action::BreakAttack(_)
        )
    }
}

/// Words that begin a breakthrough advance ("Breakthrough Advances &
/// Combat"): `pursue`, `follow up`, `exploit`, `break through`.
const BREAK_VERBS: &[&str] = &["pursue", "follow up", "exploit", "break through"];

/// Words of a condition that means "if this brigade breaks the enemy": a
/// breakthrough is the only order given on a condition.
const BREAK_CONDITION: &[&str] = &[
    "break",
    "breaks",
    "broken",
    "rout",
    "routs",
    "routed",
    "run",
    "runs",
    "flee",
    "flees",
    "gives",
    "give",
    "success",
    "successful",
    "carry",
    "carries",
    "carried",
];

/// SFRM "Breakthrough Advances & Combat" in words: `if the enemy breaks,
/// press on to Henry Hill` (any order after the condition: a move becomes
/// the advance, a charge the breakthrough charge), or `pursue [ENEMY]`,
/// `pursue to PLACE`, `follow up`, `exploit`, `break through [to PLACE]`
/// (no destination: straight ahead). `None` when the clause is not one.
fn breakthrough_action(
    cx: &Context,
    u: &Unit,
    anchor: Pos,
    lower: &str,
) -> Option<Result<Action, String>> {
    if let Some(cond) = lower.strip_prefix("if ") {
        let Some((what, then)) = cond.split_once(',') else {
            return Some(Err(
                "a condition needs a comma and an order: 'if the enemy breaks, press on to PLACE' (SFRM Breakthrough Advances & Combat)".into(),
            ));
        };
        let breaks = what
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| BREAK_CONDITION.contains(&w));
        if !breaks {
            return Some(Err(format!(
                "'if {}' is not a condition the rules know; the only order given on a condition is the breakthrough: 'if the enemy breaks, press on to PLACE' (SFRM Breakthrough Advances & Combat)",
                what.trim()
            )));
        }
        let then = then.trim().trim_start_matches("then ").trim();
        if let Some(r) = breakthrough_action(cx, u, anchor, then) {
            return Some(r);
        }
        return Some(action_lower(cx, u, anchor, then).and_then(as_breakthrough));
    }
    let verb = BREAK_VERBS
        .iter()
        .find(|v| lower == **v || lower.starts_with(&format!("{v} ")))?;
    let rest = lower[verb.len()..].trim();
    let rest = rest.strip_prefix("the rout").map_or(rest, |r| r.trim());
    if rest.is_empty() {
        return Some(action_lower(cx, u, anchor, "advance").and_then(as_breakthrough));
    }
    let target = rest
        .trim_start_matches("into ")
        .trim_start_matches("on ")
        .trim();
    if target.starts_with("the enemy") || target.starts_with("enemy") {
        return Some(cx.enemy(target, u.pos).map(Action::BreakAttack));
    }
    Some(action_lower(cx, u, anchor, &format!("advance {rest}")).and_then(as_breakthrough))
}

/// An order after a breakthrough condition as the breakthrough it can be:
/// a move is the advance, a charge or attack the breakthrough charge.
fn as_breakthrough(a: Action) -> Result<Action, String> {
    match a {
        Action::Noted(a, _) => as_breakthrough(*a),
        Action::Support { to, .. } => Ok(Action::BreakMove(to)),
        Action::Move { to, .. } => Ok(Action::BreakMove(to)),
        Action::Charge(t) => Ok(Action::BreakCharge(t)),
        Action::Attack(t) => Ok(Action::BreakAttack(t)),
        a if a.is_breakthrough() => Ok(a),
        _ => Err(
            "after breaking the enemy a brigade may only advance up to half a move or charge again (SFRM Breakthrough Advances & Combat): 'if the enemy breaks, press on to PLACE' or 'pursue the enemy'".into(),
        ),
    }
}

const MOVE_VERBS: &[&str] = &[
    "advance", "move", "march", "go", "proceed", "cross", "retire", "withdraw", "press", "push",
];

/// A clause for one unit `u`, relative to `anchor` (the centre of the
/// brigades it goes to, for a division's move to a place). Errors quote
/// the player's words as he wrote them.
fn action(cx: &Context, u: &Unit, anchor: Pos, clause: &str) -> Result<Action, String> {
    action_lower(cx, u, anchor, clause).map_err(|m| restore_case(&m, clause.trim()))
}

/// Put back the writer's capitals in the `'quoted'` piece of `msg` that
/// is a lowercased stretch of whole words of `orig` (the longest such).
fn restore_case(msg: &str, orig: &str) -> String {
    let lower = orig.to_lowercase();
    if lower.len() != orig.len() {
        return msg.to_string();
    }
    let starts: Vec<usize> = std::iter::once(0)
        .chain(lower.match_indices(' ').map(|(i, _)| i + 1))
        .collect();
    let ends: Vec<usize> = lower
        .match_indices(' ')
        .map(|(i, _)| i)
        .chain(std::iter::once(lower.len()))
        .collect();
    let mut best: Option<(usize, usize)> = None;
    for &i in &starts {
        for &j in ends.iter().filter(|&&j| j > i) {
            let (Some(piece), Some(_)) = (lower.get(i..j), orig.get(i..j)) else {
                continue;
            };
            if msg.contains(&format!("'{piece}'")) && best.is_none_or(|(a, b)| j - i > b - a) {
                best = Some((i, j));
            }
        }
    }
    match best.and_then(|(i, j)| Some((lower.get(i..j)?, orig.get(i..j)?))) {
        Some((l, o)) => msg.replacen(&format!("'{l}'"), &format!("'{o}'"), 1),
        None => msg.to_string(),
    }
}

/// Verbs [`action_lower`] knows, for a slip of the pen ("advence").
const VERBS: &[&str] = &[
    "advance", "move", "march", "proceed", "cross", "retire", "withdraw", "retreat", "charge",
    "attack", "assault", "entrench", "support", "follow", "wheel", "deploy", "dismount", "mount",
    "rally", "reform", "hold", "remain", "halt", "occupy", "seize", "fire", "shoot", "target",
    "form", "face", "change", "press", "push", "stand", "stay",
];

/// Words a writer adds that change nothing the rules can do: the urgency
/// ("at all costs", "with all speed"), where the men already stand.
const FILLER: &[&str] = &[
    " at all costs",
    " at all hazards",
    " to the last",
    " to the last man",
    " with all speed",
    " with all haste",
    " at once",
    " immediately",
    " at the double",
    " at the double quick",
    " without delay",
    " in good order",
    " as quickly as possible",
    " as fast as possible",
    " where they stand",
    " where it stands",
    " where he stands",
    " in their present position",
    " in its present position",
];

/// The men the general's order is for, written after the verb ("advance
/// his division to Matthews Hill"): the order goes to them whatever these
/// words say, so they are dropped.
const OBJECTS: &[&str] = &[
    "his division",
    "his brigades",
    "his brigade",
    "his command",
    "his corps",
    "his men",
    "his troops",
    "his guns",
    "their brigades",
    "the division",
    "the brigades",
    "the brigade",
    "the men",
    "the guns",
    "its guns",
    "your brigade",
    "your division",
    "your men",
    "the command",
];

/// The clause in the words [`action_lower`] reads: filler and the men
/// the order is for dropped, "move up to" as "move to", period verbs
/// ("occupy", "take up a position on", "scout toward", "unlimber") as the
/// order the rules have for them, a verb with one slip of the pen as
/// that verb.
fn tidy(lower: &str) -> String {
    let mut t = lower.trim().trim_end_matches(['.', '!']).trim().to_string();
    loop {
        let before = t.len();
        for f in FILLER {
            if let Some(x) = t.strip_suffix(f) {
                t = x.trim_end_matches(',').trim().to_string();
            }
        }
        if t.len() == before {
            break;
        }
    }
    t = t.replace(" in reserve", "");
    let mut words: Vec<String> = t.split_whitespace().map(str::to_string).collect();
    let Some(first) = words.first().cloned() else {
        return t;
    };
    // A verb with one slip of the pen.
    if first.len() >= 5 && !VERBS.contains(&first.as_str()) {
        let near: Vec<&&str> = VERBS.iter().filter(|v| distance(&first, v) <= 1).collect();
        if let [v] = near.as_slice() {
            words[0] = (**v).to_string();
        }
    }
    let rest = words[1..].join(" ");
    let rest = OBJECTS
        .iter()
        .find_map(|o| {
            (rest == *o)
                .then_some(String::new())
                .or_else(|| rest.strip_prefix(&format!("{o} ")).map(str::to_string))
        })
        .unwrap_or(rest);
    // "move up to", "advance forward on", "push on to" ("follow up" is
    // the breakthrough).
    let rest = ["up ", "forward ", "out ", "on "]
        .iter()
        .filter(|_| words[0] != "follow")
        .find_map(|w| {
            let r = rest.strip_prefix(w)?;
            ["to ", "toward", "on ", "in support", "upon "]
                .iter()
                .any(|x| r.starts_with(x))
                .then(|| r.to_string())
        })
        .unwrap_or(rest);
    let verb = words[0].as_str();
    let (verb, rest) = match verb {
        "occupy" | "seize" | "secure" => ("hold", rest),
        "take" => {
            let r = [
                "up a position ",
                "up position ",
                "a position ",
                "position ",
                "post ",
            ]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
            .unwrap_or(&rest);
            ("hold", r.to_string())
        }
        "scout" | "reconnoitre" | "reconnoiter" | "probe" | "head" | "hurry" | "hasten" => {
            ("advance", rest)
        }
        "open" if rest == "fire" || rest.starts_with("fire ") => {
            ("fire", rest.trim_start_matches("fire").trim().to_string())
        }
        "unlimber" => (
            "form",
            "line".to_string()
                + &rest
                    .strip_prefix("facing")
                    .map(|f| format!(" facing{f}"))
                    .unwrap_or_default(),
        ),
        "limber" if rest.is_empty() || rest == "up" => ("form", "march column".to_string()),
        v => (v, rest),
    };
    if rest.is_empty() {
        verb.to_string()
    } else {
        format!("{verb} {rest}")
    }
}

fn action_lower(cx: &Context, u: &Unit, anchor: Pos, clause: &str) -> Result<Action, String> {
    let tidied = tidy(&clause.to_lowercase());
    let lower = tidied.as_str();
    // "in support of X" after a move: the move, and the receipt says whom
    // it supports; alone ("move up in support of X"), the support order.
    if let Some((before, of)) = lower.split_once(" in support of ") {
        let before = before.trim();
        if before.split_whitespace().count() > 1 {
            let (_, of_name, _) = support_target(cx, u, of)?;
            let a = action_lower(cx, u, anchor, before)?;
            return Ok(Action::Noted(
                Box::new(a),
                format!("in support of {of_name}"),
            ));
        }
        return support(cx, u, anchor, of, "support");
    }
    let words: Vec<&str> = lower.split_whitespace().collect();
    let Some(first) = words.first().copied() else {
        return Err("an empty order".into());
    };
    let rest = lower[first.len()..].trim();
    let offset = Pos::new(u.pos.x - anchor.x, u.pos.y - anchor.y);
    let shifted = |p: Pos| Pos::new(p.x + offset.x, p.y + offset.y);
    if let Some(r) = breakthrough_action(cx, u, anchor, lower) {
        return r;
    }
    match first {
        "support" | "follow" | "reinforce" if !rest.is_empty() && rest != "up" => {
            let verb = if first == "follow" {
                "follow"
            } else {
                "support"
            };
            support(cx, u, anchor, rest, verb)
        }
        "stand" if rest == "up" => Ok(Action::Form {
            formation: None,
            facing: None,
            prone: Some(false),
            mounted: None,
        }),
        "hold" | "stand" | "halt" | "remain" | "stay" => {
            let place = rest
                .trim_start_matches("fast")
                .trim()
                .trim_start_matches("at ")
                .trim_start_matches("on ")
                .trim();
            if place.is_empty()
                || [
                    "position",
                    "ground",
                    "your ground",
                    "its ground",
                    "there",
                    "firm",
                ]
                .contains(&place)
                || place.starts_with("at all costs")
            {
                return Ok(Action::Stay);
            }
            let (p, _) = cx.place(place)?;
            let to = shifted(p);
            if to.distance(u.pos) <= 1.0 {
                Ok(Action::Stay)
            } else {
                Ok(Action::Move { to, road: false })
            }
        }
        "entrench" | "dig" => Ok(Action::Entrench),
        "rally" | "unrout" | "reform" => Ok(Action::Rally),
        "rout" | "flee" | "run" => Ok(Action::Rout),
        "charge" => {
            let target = if rest.is_empty() { "the enemy" } else { rest };
            Ok(Action::Charge(cx.enemy(target, u.pos)?))
        }
        "attack" | "assault" => {
            let target = if rest.is_empty() { "the enemy" } else { rest };
            let target = target.trim_start_matches("on ").trim();
            // "attack Henry Hill": a move on the place; its fire goes at
            // the enemy in its arc (SFRM Firing Arc & Target Availability).
            if !target.starts_with("the enemy")
                && !target.starts_with("enemy")
                && let Ok((p, name)) = cx.place(target)
            {
                return Ok(Action::Noted(
                    Box::new(Action::Move {
                        to: shifted(p),
                        road: false,
                    }),
                    format!(
                        "attack {name}: a move on it, stopped at the stand-off from any enemy there; it fires at the enemy in its arc (SFRM Movement, Firing Arc & Target Availability)"
                    ),
                ));
            }
            Ok(Action::Attack(cx.enemy(target, u.pos)?))
        }
        "fire" | "target" | "shoot" => {
            let t = rest
                .trim_start_matches("at ")
                .trim_start_matches("on ")
                .trim();
            if let Some(name) = t
                .strip_prefix("general ")
                .or_else(|| t.strip_prefix("gen. "))
                .or_else(|| t.strip_prefix("gen "))
            {
                let seen = seen_enemy_generals(cx.battle, cx.side);
                let w = norm(name);
                return seen
                    .iter()
                    .filter_map(|g| cx.battle.general(*g))
                    .find(|g| cx.naming.known && names(&w, &g.name))
                    .map(|g| Action::TargetGeneral(g.id))
                    .ok_or_else(|| {
                        format!("no enemy general in sight is known as '{name}'; fire at the enemy instead")
                    });
            }
            if t.is_empty() || t == "will" || t == "at will" {
                return Ok(Action::Stay);
            }
            Ok(Action::Target(cx.enemy(t, u.pos)?))
        }
        "wheel" => {
            let (sign, more) = match words.get(1) {
                Some(&"right") => (1.0, &words[2..]),
                Some(&"left") => (-1.0, &words[2..]),
                _ => {
                    return Err("wheel left or right, and how far: 'wheel right 45 degrees'".into());
                }
            };
            let deg = more
                .first()
                .and_then(|w| w.trim_end_matches('°').parse::<f64>().ok())
                .filter(|d| d.is_finite() && *d > 0.0)
                .ok_or("say how far to wheel: 'wheel right 45 degrees' (SFRM Manoeuvre iii)")?;
            Ok(Action::Wheel(sign * deg))
        }
        "lie" => Ok(Action::Form {
            formation: None,
            facing: None,
            prone: Some(true),
            mounted: None,
        }),
        "mount" | "dismount" => Ok(Action::Form {
            formation: None,
            facing: None,
            prone: None,
            mounted: Some(first == "mount"),
        }),
        "face" | "change" | "about" => {
            let d = rest
                .trim_start_matches("front")
                .trim()
                .trim_start_matches("to ")
                .trim_start_matches("face")
                .trim();
            let facing = if first == "about" || d == "about" {
                Some((u.facing + 180.0).rem_euclid(360.0))
            } else {
                facing_toward(cx, u, d)
            };
            let facing = facing.ok_or_else(|| {
                format!("which way is '{d}'? Write a compass point (north, north-east …) or left, right, about")
            })?;
            Ok(Action::Form {
                formation: None,
                facing: Some(facing),
                prone: None,
                mounted: None,
            })
        }
        "form" | "deploy" => {
            let (what, facing) = match rest.split_once(" facing ") {
                Some((w, f)) => (
                    w.trim(),
                    Some(facing_toward(cx, u, f).ok_or_else(|| {
                        format!(
                            "which way is '{}'? Write a compass point (north, north-east …)",
                            f.trim()
                        )
                    })?),
                ),
                None => (rest, None),
            };
            let what = what
                .trim_start_matches("in ")
                .trim_start_matches("a ")
                .trim();
            let formation = match what {
                "" | "line" | "line of battle" => Formation::Line,
                "column" | "march column" | "column of march" | "road column" => {
                    Formation::MarchColumn
                }
                "battle column" | "attack column" | "column of attack" => Formation::BattleColumn,
                "skirmish" | "skirmish line" | "skirmishers" | "skirmish order" => {
                    Formation::Skirmish
                }
                "square" => Formation::Square,
                "line in town" | "in town" | "town" => Formation::DeployedInTown,
                other => {
                    return Err(format!(
                        "no formation '{other}'; SFRM Formation Changes: line, march column, battle column, skirmish, square, line in town"
                    ));
                }
            };
            Ok(Action::Form {
                formation: Some(formation),
                facing,
                prone: None,
                mounted: None,
            })
        }
        "fall" | "retreat" if first == "fall" && !rest.starts_with("back") => {
            Err("did you mean 'fall back'?".into())
        }
        v if MOVE_VERBS.contains(&v) || v == "fall" || v == "retreat" => {
            let backward = matches!(v, "retire" | "withdraw" | "fall" | "retreat");
            let rest = if v == "fall" {
                rest.trim_start_matches("back").trim()
            } else {
                rest
            };
            movement(cx, u, rest, backward, shifted)
        }
        other => Err(format!(
            "'{other}' is not an order at this scale; try advance, hold, form line, entrench, charge, attack, fire at, wheel, rally, ride to, attach"
        )),
    }
}

/// Where a move clause goes.
fn movement(
    cx: &Context,
    u: &Unit,
    rest: &str,
    backward: bool,
    shifted: impl Fn(Pos) -> Pos,
) -> Result<Action, String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    // "by the turnpike to Centreville": along a road.
    if let Some(r) = rest
        .strip_prefix("by ")
        .or_else(|| rest.strip_prefix("along "))
        .or_else(|| rest.strip_prefix("down "))
        .or_else(|| rest.strip_prefix("up "))
    {
        let (road_w, dest) = r.split_once(" to ").unwrap_or((r, ""));
        let w = norm(road_w);
        let road = cx
            .battle
            .roads
            .iter()
            .find(|rd| {
                let n = norm(&rd.name);
                !w.is_empty() && (n == w || n.split(' ').any(|x| x == w) || n.contains(&w))
            })
            .ok_or_else(|| {
                let all: Vec<&str> = cx.battle.roads.iter().map(|r| r.name.as_str()).collect();
                format!(
                    "no road called '{}'; roads are: {}",
                    road_w.trim(),
                    if all.is_empty() {
                        "none".to_string()
                    } else {
                        all.join(", ")
                    }
                )
            })?;
        if dest.trim().is_empty() {
            return Err(format!(
                "march by the {} to where? ('march by the {} to PLACE')",
                road.name, road.name
            ));
        }
        let (p, _) = cx.place(dest)?;
        let (s, _) = road
            .locate(p)
            .ok_or_else(|| format!("the {} has no length", road.name))?;
        let (to, _) = road.at(s);
        return Ok(Action::Move { to, road: true });
    }
    // Compass and distance, either way round.
    if let Some((inches, used)) = distance_in(&words) {
        let dir_w = words[used..].join(" ");
        let dir_w = dir_w
            .trim_start_matches("to the ")
            .trim_start_matches("to ");
        let bearing = if dir_w.is_empty() {
            Some(if backward { u.facing + 180.0 } else { u.facing })
        } else {
            direction(dir_w, u.facing)
        };
        let bearing = bearing.ok_or_else(|| {
            format!("which way is '{dir_w}'? Write a compass point (north, north-east …) or forward, back, left, right")
        })?;
        return Ok(Action::Move {
            to: u.pos.step(bearing, inches),
            road: false,
        });
    }
    if let Some(d) = words
        .iter()
        .position(|w| distance_in(&[*w]).is_some() || w.parse::<f64>().is_ok())
        && d > 0
        && let Some(bearing) = direction(&words[..d].join(" "), u.facing)
        && let Some((inches, _)) = distance_in(&words[d..])
    {
        return Ok(Action::Move {
            to: u.pos.step(bearing, inches),
            road: false,
        });
    }
    if words.is_empty() || (words.len() == 1 && direction(words[0], u.facing).is_some()) {
        // A whole Table 4 allowance straight ahead (or back).
        let bearing = match words.first() {
            Some(w) => direction(w, u.facing).unwrap_or(u.facing),
            None if backward => u.facing + 180.0,
            None => u.facing,
        };
        let inches = f64::from(move_allowance(u, false));
        return Ok(Action::Move {
            to: u.pos.step(bearing, inches),
            road: false,
        });
    }
    let target = rest
        .trim_start_matches("on ")
        .trim_start_matches("to ")
        .trim_start_matches("toward ")
        .trim_start_matches("towards ")
        .trim_start_matches("at ")
        .trim_start_matches("across ")
        .trim_start_matches("over ")
        .trim_start_matches("upon ")
        .trim_start_matches("the ")
        .trim();
    let target = target
        .strip_suffix(" in line")
        .or_else(|| target.strip_suffix(" in column"))
        .unwrap_or(target);
    if target.starts_with("enemy") {
        let e = cx.enemy(target, u.pos)?;
        let p = cx.battle.unit(e).map(|e| e.pos).unwrap_or(u.pos);
        return Ok(Action::Move { to: p, road: false });
    }
    match cx.place(target) {
        Ok((p, _)) => Ok(Action::Move {
            to: shifted(p),
            road: false,
        }),
        // A seen enemy by what the side calls him ("advance on enemy
        // brigade A"); otherwise the place's answer, the same whether an
        // unseen enemy of that name exists or not.
        Err(m) => match cx.enemy(target, u.pos) {
            Ok(e) => Ok(Action::Move {
                to: cx.battle.unit(e).map(|e| e.pos).unwrap_or(u.pos),
                road: false,
            }),
            Err(_) => Err(m),
        },
    }
}

/// SFRM Table 1, "Basing Scales": how deep a unit stands behind its
/// point, in inches (its ranks of element bases).
fn depth(u: &Unit) -> f64 {
    super::map::ranks(u.elements, u.front_elements()) * super::map::base_depth(u)
}

/// Where a unit stands to support or follow `of` (one of the side's own
/// brigades, or a general and the brigades under him): straight behind
/// it as it faces now, its depth back (Table 1's bases), so its front
/// touches their rear. With the supported one's name as the side knows it.
fn support_target(cx: &Context, u: &Unit, of: &str) -> Result<(Pos, String, Vec<UnitId>), String> {
    let of = of.trim();
    let group: Vec<&Unit> = match cx.addressee(of) {
        Ok(Addressee::Unit(id)) => cx.battle.unit(id).into_iter().collect(),
        Ok(Addressee::General(g)) => cx
            .command_of(g)
            .into_iter()
            .filter_map(|id| cx.battle.unit(id))
            .collect(),
        Err(_) => {
            return Err(format!(
                "no brigade or general of yours is called '{of}'; a brigade supports or follows one of your own: {}",
                cx.suggest_own(of)
            ));
        }
    };
    let group: Vec<&Unit> = group.into_iter().filter(|x| !x.gone()).collect();
    if group.iter().any(|x| x.id == u.id) {
        return Err(format!(
            "{} cannot support or follow itself; name another of your brigades",
            u.name
        ));
    }
    if group.is_empty() {
        return Err(format!("no brigade of yours in play is '{of}'"));
    }
    let name = match cx.addressee(of) {
        Ok(Addressee::General(g)) => format!("{}'s command", cx.general_name(g)),
        _ => group.first().map(|x| x.name.clone()).unwrap_or_default(),
    };
    let at: Vec<(Pos, f64, f64)> = group.iter().map(|g| (g.pos, g.facing, depth(g))).collect();
    Ok((behind(&at), name, group.iter().map(|g| g.id).collect()))
}

/// The point straight behind a group of units (point, facing, depth):
/// their centre, stepped back along their mean facing by the deepest.
fn behind(at: &[(Pos, f64, f64)]) -> Pos {
    let n = at.len().max(1) as f64;
    let (cx_, cy) = at
        .iter()
        .fold((0.0, 0.0), |(x, y), (p, _, _)| (x + p.x, y + p.y));
    let c = Pos::new(cx_ / n, cy / n);
    let (sx, sy) = at.iter().fold((0.0, 0.0), |(x, y), (_, f, _)| {
        let r = f.to_radians();
        (x + r.sin(), y + r.cos())
    });
    let facing = sx.atan2(sy).to_degrees();
    let back = at.iter().map(|(_, _, d)| *d).fold(0.0, f64::max);
    c.step(facing + 180.0, back)
}

/// "support Burnside's brigade", "follow Franklin's brigade", "move up in
/// support of Burnside": SFRM has no support order, so it is the move the
/// writer means, to stand behind the supported as they stand when the
/// mail is read ("Movement & Manoeuvre"). A group keeps its places about
/// that point, as for a move to a place.
fn support(cx: &Context, u: &Unit, anchor: Pos, of: &str, verb: &str) -> Result<Action, String> {
    let (p, name, of) = support_target(cx, u, of)?;
    let offset = Pos::new(u.pos.x - anchor.x, u.pos.y - anchor.y);
    Ok(Action::Support {
        to: Pos::new(p.x + offset.x, p.y + offset.y),
        of,
        offset,
        note: format!(
            "{verb} {name}: a move to stand behind it, where this mail orders it to go or else where it stands; SFRM has no support order (Movement & Manoeuvre)"
        ),
    })
}

/// The orders an action makes for unit `u`.
fn orders_of(cx: &Context, u: &Unit, a: &Action) -> Vec<Order> {
    let id = u.id;
    match *a {
        Action::Noted(ref a, _) => orders_of(cx, u, a),
        Action::Support { to, .. } => vec![Order::Move {
            unit: id,
            to,
            front_rank: None,
            road: false,
        }],
        Action::Move { to, road } => vec![Order::Move {
            unit: id,
            to,
            front_rank: None,
            road,
        }],
        Action::Stay => vec![],
        Action::Wheel(degrees) => vec![Order::Wheel { unit: id, degrees }],
        Action::Charge(target) => vec![Order::Charge { unit: id, target }],
        Action::Attack(target) => {
            if cx.battle.attached_general(id).is_some() {
                vec![Order::Charge { unit: id, target }]
            } else {
                let to = cx.battle.unit(target).map(|t| t.pos).unwrap_or(u.pos);
                vec![
                    Order::Move {
                        unit: id,
                        to,
                        front_rank: None,
                        road: false,
                    },
                    Order::Target { unit: id, target },
                ]
            }
        }
        Action::Form {
            formation,
            facing,
            prone,
            mounted,
        } => vec![Order::Formation {
            unit: id,
            formation: formation.unwrap_or(u.formation),
            facing,
            front_rank: None,
            mounted,
            prone,
        }],
        Action::Entrench => vec![Order::Entrench { unit: id }],
        Action::Rally => vec![Order::Unrout {
            unit: id,
            formation: None,
        }],
        Action::Rout => vec![Order::RoutMove { unit: id }],
        Action::Target(target) => vec![Order::Target { unit: id, target }],
        Action::TargetGeneral(general) => vec![Order::TargetGeneral { unit: id, general }],
        Action::BreakMove(to) => vec![Order::BreakthroughMove { unit: id, to }],
        Action::BreakCharge(target) => vec![Order::BreakthroughCharge { unit: id, target }],
        Action::BreakAttack(target) => {
            if cx.battle.attached_general(id).is_some() {
                vec![Order::BreakthroughCharge { unit: id, target }]
            } else {
                let to = cx.battle.unit(target).map(|t| t.pos).unwrap_or(u.pos);
                vec![Order::BreakthroughMove { unit: id, to }]
            }
        }
    }
}

/// A general's own clause: a ride, an attachment, a detachment.
fn general_clause(cx: &Context, g: GeneralId, clause: &str) -> Option<Result<Order, String>> {
    let lower = clause.to_lowercase();
    let lower = lower.trim();
    let unit_named = |w: &str| -> Result<UnitId, String> {
        match cx.addressee(w)? {
            Addressee::Unit(u) => Ok(u),
            Addressee::General(_) => Err(format!(
                "'{}' is a general; a general attaches to a brigade (SFRM Command ii)",
                w.trim()
            )),
        }
    };
    for p in [
        "join ",
        "ride with ",
        "attach to ",
        "attach himself to ",
        "lead ",
    ] {
        if let Some(w) = lower.strip_prefix(p) {
            return Some(unit_named(w).map(|u| Order::Attach {
                general: g,
                unit: Some(u),
            }));
        }
    }
    if lower == "detach" || lower == "leave his brigade" || lower == "detach himself" {
        return Some(Ok(Order::Attach {
            general: g,
            unit: None,
        }));
    }
    for p in [
        "ride to ",
        "ride on ",
        "gallop to ",
        "ride toward ",
        "ride towards ",
    ] {
        if let Some(w) = lower.strip_prefix(p) {
            if let Ok(Addressee::Unit(u)) = cx.addressee(w) {
                return Some(Ok(Order::Attach {
                    general: g,
                    unit: Some(u),
                }));
            }
            return Some(
                cx.place(w)
                    .map(|(to, _)| Order::GeneralMove { general: g, to }),
            );
        }
    }
    None
}

/// "attach Gen. Jackson to the 33rd Virginia brigade".
fn attach_line(cx: &Context, clause: &str) -> Option<Result<Order, String>> {
    let lower = clause.to_lowercase();
    let rest = lower.trim().strip_prefix("attach ")?;
    let (who, to) = rest.rsplit_once(" to ")?;
    Some((|| {
        let g = match cx.addressee(who)? {
            Addressee::General(g) => g,
            Addressee::Unit(_) => {
                return Err(format!(
                    "'{}' is a brigade; attach a general to a brigade",
                    who.trim()
                ));
            }
        };
        let u = match cx.addressee(to)? {
            Addressee::Unit(u) => u,
            Addressee::General(_) => {
                return Err(format!(
                    "'{}' is a general; attach to a brigade (SFRM Command ii)",
                    to.trim()
                ));
            }
        };
        Ok(Order::Attach {
            general: g,
            unit: Some(u),
        })
    })())
}

/// Character column (1-based) of byte offset `at` in `line`.
fn column(line: &str, at: usize) -> usize {
    line.get(..at).map(|s| s.chars().count()).unwrap_or(0) + 1
}

/// Split "ADDRESSEE: text" or "ADDRESSEE will text"; the byte offset of
/// the text.
fn split_line(line: &str) -> Option<(&str, usize)> {
    if let Some(i) = line.find(':') {
        return Some((&line[..i], i + 1));
    }
    // "Gen Heintzelman - follow Porter's brigade": a spaced dash or an
    // arrow after the name, as players write it.
    for sep in [" - ", " – ", " — ", " -> ", " => "] {
        if let Some(i) = line.find(sep)
            && line[..i].split_whitespace().count() <= 5
        {
            return Some((&line[..i], i + sep.len()));
        }
    }
    let lower = line.to_ascii_lowercase();
    for sep in [" will ", " is to ", " are to ", " to "] {
        if let Some(i) = lower.find(sep) {
            return Some((&line[..i], i + sep.len()));
        }
    }
    None
}

/// The forms of a letter that are not orders, as the lifecycle's own list
/// does not know them: a closing ("I remain, Sir, your obedient servant,",
/// "Yours respectfully") and a signature, one of the side's generals signing
/// with his initials or first name ("Irvin McDowell", "J. E. Johnston").
fn letter_form(cx: &Context, line: &str) -> bool {
    let t = line.trim().trim_end_matches([',', '.', '!']).to_lowercase();
    const CLOSING: &[&str] = &[
        "i remain",
        "i am, sir",
        "i am, general",
        "yours",
        "your obedient",
        "your most obedient",
        "respectfully",
        "very respectfully",
        "most respectfully",
        "with respect",
        "i have the honor",
        "i have the honour",
    ];
    if CLOSING.iter().any(|c| t.starts_with(c)) && !t.contains(':') {
        return true;
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.is_empty() || words.len() > 4 || t.contains(':') {
        return false;
    }
    let last = norm(words[words.len() - 1]);
    // Before the surname, only initials or one first name.
    let fore_ok = words[..words.len() - 1]
        .iter()
        .all(|w| w.trim_end_matches('.').len() <= 2 || words.len() == 2);
    fore_ok
        && !last.is_empty()
        && cx
            .battle
            .generals_of(cx.side)
            .any(|g| norm(&g.name) == last)
        && !VERBS.contains(&words[0])
}

/// Read a mail body's orders for `cx.side`. Never fails: every line it
/// understands counts, every other gets an error with a suggestion.
pub fn parse_orders(cx: &Context, body: &str) -> Reading {
    let mut r = Reading::default();
    // One movement order per unit a turn (SFRM Movement & Manoeuvre): the
    // first line that moves a unit wins; later lines are errors.
    let mut moved: BTreeSet<UnitId> = BTreeSet::new();
    // Whose move it is: an order written to the brigade itself comes
    // before one through its general, whichever line is first.
    let mut direct: BTreeMap<UnitId, usize> = BTreeMap::new();
    let mut by_general: BTreeMap<UnitId, (usize, String)> = BTreeMap::new();
    // Support and follow moves (line, unit, supported, offset), placed
    // again behind where the mail sends the supported.
    let mut supports: Vec<(usize, UnitId, Vec<UnitId>, Pos)> = Vec::new();
    // And one breakthrough advance ("Breakthrough Advances & Combat").
    let mut advanced: BTreeSet<UnitId> = BTreeSet::new();
    for (n, raw) in body.lines().enumerate() {
        let line_no = n + 1;
        if raw.trim_start().starts_with("--") && raw.trim() == "--" {
            break;
        }
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        let lead = line.len() - trimmed.len();
        let lower = trimmed.to_lowercase();
        if trimmed.is_empty()
            || trimmed.starts_with('>')
            || lower.starts_with("from ")
            || lower.starts_with("orders for turn")
        {
            continue;
        }
        let mut err = |at: usize, message: String| {
            r.errors.push(LanguageError {
                line: line_no,
                column: column(line, at),
                message,
            })
        };
        if lower.starts_with("dispatch") {
            err(
                lead,
                "dispatches between generals are not carried at brigade scale yet; write orders to your brigades and generals".into(),
            );
            continue;
        }
        if lower.starts_with("attach ") {
            match attach_line(cx, trimmed) {
                Some(Ok(o)) => {
                    r.understood.push(Understood {
                        line: line_no,
                        to: "attachment".into(),
                        through: None,
                        orders: vec![o.clone()],
                        notes: Vec::new(),
                    });
                    push(&mut r.orders, cx.side, o);
                    r.lines.push(line_no);
                }
                Some(Err(m)) => err(lead, m),
                None => err(
                    lead,
                    "attach whom to which brigade? 'attach Gen. Jackson to the 33rd Virginia brigade'"
                        .into(),
                ),
            }
            continue;
        }
        if letter_form(cx, trimmed) {
            continue;
        }
        let Some((who, text_at)) = split_line(trimmed) else {
            err(
                lead,
                format!(
                    "not an order: start with one of your brigades or generals and a colon, e.g. '{}: advance'",
                    cx.own_units()
                        .next()
                        .map(|u| u.name.as_str())
                        .unwrap_or("Brigade")
                ),
            );
            continue;
        };
        let mut to = match cx.addressee(who) {
            Ok(a) => a,
            Err(m) => {
                err(lead, m);
                continue;
            }
        };
        let mut text = &trimmed[text_at..];
        let mut text_lead = lead + text_at;
        // A general passing the order down: "McDowell: Heintzelman's
        // division will attack Henry Hill" is Heintzelman's order.
        let mut by: Option<String> = None;
        if let Addressee::General(g) = to
            && let Some((who2, at2)) = split_line(text.trim_start())
            && let Ok(a2) = cx.addressee(who2)
        {
            let skip = text.len() - text.trim_start().len();
            by = Some(cx.general_name(g));
            to = a2;
            text_lead += skip + at2;
            text = &text.trim_start()[at2..];
        }
        let (units, through, to_name) = match to {
            Addressee::Unit(u) => (
                vec![u],
                None,
                cx.battle
                    .unit(u)
                    .map(|u| u.name.clone())
                    .unwrap_or_default(),
            ),
            Addressee::General(g) => (cx.command_of(g), Some(g), cx.general_name(g)),
        };
        let to_name = match &by {
            Some(b) => format!("{to_name} (by {b}'s order)"),
            None => to_name,
        };
        let mut made: Vec<Order> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        let mut line_moved: BTreeSet<UnitId> = BTreeSet::new();
        for (off, clause) in clauses(text) {
            let at = text_lead + off;
            // A general's own ride or attachment.
            if let Some(g) = through {
                if let Some(o) = general_clause(cx, g, &clause) {
                    match o {
                        Ok(o) => made.push(o),
                        Err(m) => err(at, m),
                    }
                    continue;
                }
                if let Some(o) = attach_line(cx, &clause) {
                    match o {
                        Ok(o) => made.push(o),
                        Err(m) => err(at, m),
                    }
                    continue;
                }
                if units.is_empty() {
                    err(
                        at,
                        format!(
                            "{} has no brigades under him to carry out '{clause}'; write to a brigade, or 'ride to', 'join' (SFRM Command)",
                            to_name
                        ),
                    );
                    continue;
                }
            }
            let group: Vec<&Unit> = units.iter().filter_map(|u| cx.battle.unit(*u)).collect();
            let anchor = centre(&group);
            let mut first_err: Option<String> = None;
            for u in &group {
                let mut support_of: Option<(Vec<UnitId>, Pos)> = None;
                match action(cx, u, anchor, &clause) {
                    Ok(mut a) => {
                        if let Action::Noted(inner, note) = a {
                            if !notes.contains(&note) {
                                notes.push(note);
                            }
                            a = *inner;
                        }
                        if let Action::Support {
                            to,
                            of,
                            offset,
                            note,
                        } = a
                        {
                            if !notes.contains(&note) {
                                notes.push(note);
                            }
                            support_of = Some((of, offset));
                            a = Action::Move { to, road: false };
                        }
                        // The table's edge (our ruling: no unit leaves the
                        // table): the engine stops it there and its report
                        // says so; the receipt tells it now.
                        if let Action::Move { to, .. } = &a
                            && let Some(tb) = cx.battle.table
                            && tb.contains(u.pos)
                            && !tb.contains(*to)
                        {
                            let t = tb.reach(u.pos, *to);
                            let edge = Pos::new(
                                u.pos.x + (to.x - u.pos.x) * t,
                                u.pos.y + (to.y - u.pos.y) * t,
                            );
                            notes.push(format!(
                                "{} would pass the {} edge of the table at {}; it goes no farther than the edge (a unit does not march off the table: our ruling)",
                                u.name,
                                tb.edge_of(*to),
                                super::view::xy(edge)
                            ));
                        }
                        if through.is_some()
                            && a.is_movement()
                            && let Some(l) = direct.get(&u.id)
                        {
                            let note =
                                format!("{} keeps the order written to it on line {l}", u.name);
                            if !notes.contains(&note) {
                                notes.push(note);
                            }
                            continue;
                        }
                        if through.is_none()
                            && a.is_movement()
                            && let Some((l, by)) = by_general.remove(&u.id)
                        {
                            drop_unit_orders(
                                &mut r.orders,
                                &mut r.lines,
                                &mut r.understood,
                                cx.side,
                                l,
                                u.id,
                            );
                            moved.remove(&u.id);
                            notes.push(format!(
                                "{} takes this order instead of {by}'s on line {l}: an order written to the brigade itself comes first",
                                u.name
                            ));
                        }
                        if a.is_breakthrough() && !advanced.insert(u.id) {
                            first_err.get_or_insert(format!(
                                "{} already has its breakthrough order; a unit that breaks the enemy advances once (SFRM Breakthrough Advances & Combat)",
                                u.name
                            ));
                            continue;
                        }
                        // "dismount and form skirmish line", "form line and
                        // face south": one formation change (SFRM Formation
                        // Changes), merged into the line's first.
                        if let Action::Form {
                            formation: f2,
                            facing: d2,
                            prone: p2,
                            mounted: m2,
                        } = &a
                            && let Some(Order::Formation {
                                formation,
                                facing,
                                prone,
                                mounted,
                                ..
                            }) = made.iter_mut().find(
                                |o| matches!(o, Order::Formation { unit, .. } if *unit == u.id),
                            )
                        {
                            if let Some(f) = f2 {
                                *formation = *f;
                            }
                            *facing = d2.or(*facing);
                            *prone = p2.or(*prone);
                            *mounted = m2.or(*mounted);
                            continue;
                        }
                        if a.is_movement() && (line_moved.contains(&u.id) || moved.contains(&u.id))
                        {
                            // A second move: an attack after a move is whom to fire at.
                            match a {
                                Action::Attack(t) | Action::Charge(t) => {
                                    let note = format!(
                                        "'{clause}': its one move this turn is already given, so it fires at that enemy instead; write the charge next turn (SFRM Movement & Manoeuvre)"
                                    );
                                    if !notes.contains(&note) {
                                        notes.push(note);
                                    }
                                    a = Action::Target(t)
                                }
                                _ => {
                                    first_err.get_or_insert(format!(
                                        "{} already has its move this turn; a unit takes one movement order a turn (SFRM Movement & Manoeuvre): write '{clause}' next turn",
                                        u.name
                                    ));
                                    continue;
                                }
                            }
                        }
                        if a.is_movement() {
                            line_moved.insert(u.id);
                        }
                        if let Some((of, offset)) = support_of.take() {
                            supports.push((line_no, u.id, of, offset));
                        }
                        made.extend(orders_of(cx, u, &a));
                    }
                    Err(m) => {
                        first_err.get_or_insert(m);
                    }
                }
            }
            if let Some(m) = first_err {
                err(at, m);
            }
        }
        for u in &line_moved {
            if through.is_some() {
                by_general.insert(*u, (line_no, to_name.clone()));
            } else {
                direct.insert(*u, line_no);
            }
        }
        moved.extend(line_moved);
        for o in &made {
            push(&mut r.orders, cx.side, o.clone());
            r.lines.push(line_no);
        }
        // A line that made nothing but errors is not said to "hold".
        if made.is_empty() && r.errors.iter().any(|e| e.line == line_no) {
            continue;
        }
        // "Through" a general only when he passes orders to brigades.
        let through = through.filter(|_| {
            made.iter().any(|o| {
                o.moving_unit().is_some()
                    || matches!(
                        o,
                        Order::Target { .. }
                            | Order::TargetGeneral { .. }
                            | Order::BreakthroughMove { .. }
                            | Order::BreakthroughCharge { .. }
                    )
            })
        });
        r.understood.push(Understood {
            line: line_no,
            to: to_name,
            through,
            orders: made,
            notes,
        });
    }
    // A brigade supporting or following one this mail also moves stands
    // behind where that one is sent (its facing kept: a move keeps it).
    let mut planned: BTreeMap<UnitId, Pos> = BTreeMap::new();
    for o in r.orders.of(cx.side) {
        if let Order::Move { unit, to, .. } = o {
            planned.insert(*unit, *to);
        }
    }
    for (line, uid, of, offset) in &supports {
        if !of.iter().any(|id| planned.contains_key(id)) {
            continue;
        }
        let at: Vec<(Pos, f64, f64)> = of
            .iter()
            .filter_map(|id| cx.battle.unit(*id))
            .map(|g| {
                (
                    planned.get(&g.id).copied().unwrap_or(g.pos),
                    g.facing,
                    depth(g),
                )
            })
            .collect();
        let p = behind(&at);
        let new_to = Pos::new(p.x + offset.x, p.y + offset.y);
        let list = match cx.side {
            Side::Union => &mut r.orders.union,
            Side::Confederate => &mut r.orders.confederate,
        };
        let understood = r.understood.iter_mut().filter(|x| x.line == *line);
        let in_list = list
            .iter_mut()
            .zip(r.lines.iter())
            .filter(|(_, l)| *l == line)
            .map(|(o, _)| o);
        for o in in_list.chain(understood.flat_map(|x| x.orders.iter_mut())) {
            if let Order::Move { unit, to, .. } = o
                && unit == uid
            {
                *to = new_to;
            }
        }
        planned.insert(*uid, new_to);
    }
    r
}

/// The unit an order is for (whom it moves, or who fires or advances).
fn unit_of(o: &Order) -> Option<UnitId> {
    match o {
        Order::Target { unit, .. }
        | Order::TargetGeneral { unit, .. }
        | Order::BreakthroughMove { unit, .. }
        | Order::BreakthroughCharge { unit, .. } => Some(*unit),
        o => o.moving_unit(),
    }
}

/// Takes unit `u`'s orders made by mail line `line` out of the reading
/// (an order to the brigade itself replaces its general's).
fn drop_unit_orders(
    orders: &mut TurnOrders,
    lines: &mut Vec<usize>,
    understood: &mut [Understood],
    side: Side,
    line: usize,
    u: UnitId,
) {
    let list = match side {
        Side::Union => &mut orders.union,
        Side::Confederate => &mut orders.confederate,
    };
    let mut i = 0;
    while i < list.len() && i < lines.len() {
        if lines[i] == line && unit_of(&list[i]) == Some(u) {
            list.remove(i);
            lines.remove(i);
        } else {
            i += 1;
        }
    }
    for x in understood.iter_mut().filter(|x| x.line == line) {
        x.orders.retain(|o| unit_of(o) != Some(u));
    }
}

fn centre(units: &[&Unit]) -> Pos {
    if units.is_empty() {
        return Pos::default();
    }
    let n = units.len() as f64;
    let (x, y) = units
        .iter()
        .fold((0.0, 0.0), |(x, y), u| (x + u.pos.x, y + u.pos.y));
    Pos::new(x / n, y / n)
}

fn push(t: &mut TurnOrders, side: Side, o: Order) {
    match side {
        Side::Union => t.union.push(o),
        Side::Confederate => t.confederate.push(o),
    }
}

/// A point in words: the place within 1" of it if any, else `(x, y)`.
fn where_(cx: &Context, p: Pos) -> String {
    let xy = super::view::xy(p);
    match cx
        .places
        .iter()
        .filter(|pl| pl.pos.distance(p) <= 1.0)
        .min_by(|a, b| a.pos.distance(p).total_cmp(&b.pos.distance(p)))
    {
        Some(pl) => format!("{} {xy}", pl.name),
        None => xy,
    }
}

/// Read one order back for the receipt, as the writing side knows the
/// units in it (enemy by what it calls them, never by a name it has not
/// been given).
pub fn describe(cx: &Context, order: &Order) -> String {
    let unit = |id: UnitId| match cx.battle.unit(id) {
        Some(u) if u.side == cx.side => u.name.clone(),
        Some(u) => cx.naming.call(u),
        None => format!("unit {}", id.0),
    };
    let general = |id: GeneralId| match cx.battle.general(id) {
        Some(g) if g.side == cx.side || cx.naming.known => format!("General {}", g.name),
        Some(_) => "an enemy general".into(),
        None => format!("general {}", id.0),
    };
    match order {
        Order::Move {
            unit: u, to, road, ..
        } => format!(
            "{}: move to {}{}",
            unit(*u),
            where_(cx, *to),
            if *road { " by the road" } else { "" }
        ),
        Order::Wheel { unit: u, degrees } => format!(
            "{}: wheel {} {:.0}°",
            unit(*u),
            if *degrees < 0.0 { "left" } else { "right" },
            degrees.abs()
        ),
        Order::Charge { unit: u, target } => format!("{}: charge {}", unit(*u), unit(*target)),
        Order::Formation {
            unit: u,
            formation,
            facing,
            prone,
            mounted,
            ..
        } => {
            let mut s = format!("{}: form {}", unit(*u), formation.name());
            if let Some(f) = facing {
                s.push_str(&format!(" facing {f:.0}°"));
            }
            match prone {
                Some(true) => s.push_str(", lying down"),
                Some(false) => s.push_str(", standing"),
                None => {}
            }
            match mounted {
                Some(true) => s.push_str(", mounted"),
                Some(false) => s.push_str(", dismounted"),
                None => {}
            }
            s
        }
        Order::Entrench { unit: u } => format!("{}: entrench", unit(*u)),
        Order::RoutMove { unit: u } => format!("{}: make a rout move", unit(*u)),
        Order::Unrout { unit: u, formation } => match formation {
            Some(f) => format!("{}: rally and form {}", unit(*u), f.name()),
            None => format!("{}: rally", unit(*u)),
        },
        Order::BreakthroughMove { unit: u, to } => {
            format!(
                "{}: if it charges and routs every enemy it meets, advance up to half a move more toward {} (SFRM Breakthrough Advances & Combat)",
                unit(*u),
                where_(cx, *to)
            )
        }
        Order::BreakthroughCharge { unit: u, target } => {
            format!(
                "{}: if it charges and routs every enemy it meets, charge on into {} (SFRM Breakthrough Advances & Combat)",
                unit(*u),
                unit(*target)
            )
        }
        Order::Target { unit: u, target } => format!("{}: fire at {}", unit(*u), unit(*target)),
        Order::TargetGeneral {
            unit: u,
            general: g,
        } => {
            format!("{}: fire at {}", unit(*u), general(*g))
        }
        Order::GeneralMove { general: g, to } => {
            format!("{}: ride to {}", general(*g), where_(cx, *to))
        }
        Order::Attach {
            general: g,
            unit: Some(u),
        } => {
            format!("{}: attach to {}", general(*g), unit(*u))
        }
        Order::Attach {
            general: g,
            unit: None,
        } => format!("{}: detach", general(*g)),
    }
}

/// The receipt of a reading: each line understood with its orders read
/// back, the command roll an order through a general waits on, and the
/// errors.
pub fn receipt(cx: &Context, r: &Reading) -> String {
    // (line, text), told in the order of the mail.
    let mut out: Vec<(usize, String)> = Vec::new();
    for u in &r.understood {
        if u.orders.is_empty() {
            out.push((u.line, format!("line {}: {}: holds", u.line, u.to)));
            continue;
        }
        if let Some(g) = u.through {
            let mut reached: Vec<String> = Vec::new();
            for o in &u.orders {
                let id = unit_of(o);
                if let Some(name) = id.and_then(|id| cx.battle.unit(id)).map(|x| x.name.clone())
                    && !reached.contains(&name)
                {
                    reached.push(name);
                }
            }
            out.push((
                u.line,
                format!(
                    "line {}: through {} to {}: each moves if in command this turn (SFRM Command i: in the phase each general rolls a d6 against his command ability, Table 2; a brigade partly within the command range of one who passes is in command; your report names any that were not)",
                    u.line,
                    if u.to.starts_with(&cx.general_name(g)) {
                        u.to.clone()
                    } else {
                        cx.general_name(g)
                    },
                    reached.join(", ")
                ),
            ));
        }
        for note in &u.notes {
            let text = if note.starts_with(&u.to) {
                format!("line {}: {note}", u.line)
            } else {
                format!("line {}: {}: {note}", u.line, u.to)
            };
            out.push((u.line, text));
        }
        for o in &u.orders {
            out.push((u.line, format!("line {}: {}", u.line, describe(cx, o))));
        }
    }
    for e in &r.errors {
        out.push((
            e.line,
            format!("line {}, column {}: {}", e.line, e.column, e.message),
        ));
    }
    out.sort_by_key(|(line, _)| *line);
    out.into_iter().map(|(_, t)| t + "\n").collect()
}

#[cfg(test)]
mod tests;
