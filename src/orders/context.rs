//! What the parser knows about the game when it reads one player's mail, and
//! the sets of names he may use. Every name set is built from what his side
//! owns or can see, so nothing hidden can be matched or suggested.

use super::names::Candidate;
use crate::rules::iron_brigade::geometry;
use crate::rules::iron_brigade::kinds::AreaKind;
use crate::rules::iron_brigade::state::{
    BattleState, OfficerId, OfficerStatus, Pos, SideId, UnitId,
};
use crate::scenario::Scenario;
use std::collections::{BTreeMap, BTreeSet};

/// Everything the parser needs to read one player's orders.
#[derive(Debug, Clone)]
pub struct ParseContext<'a> {
    pub state: &'a BattleState,
    /// The player's side.
    pub side: SideId,
    /// The officers this player writes orders for (scenario `players`).
    pub player_officers: Vec<OfficerId>,
    /// Enemy units his side can see now; the only enemies he may name
    /// (and, by designation, those it saw before, as places).
    pub visible_enemies: BTreeSet<UnitId>,
    /// How his side may call the enemy: the game's identity policy and the
    /// side's designations (`crate::identity`). Under the hidden policy an
    /// enemy's real name is never a candidate, in a match or a suggestion.
    pub enemy_names: crate::identity::EnemyNames,
    pub yards_per_inch: f64,
    /// The turn whose orders these are.
    pub turn: u32,
    /// Other names of units (scenario `aliases`), lowercase or not.
    pub aliases: BTreeMap<String, UnitId>,
    /// Other names of places (landmark `aliases` in the scenario).
    pub place_aliases: BTreeMap<String, Pos>,
    /// The name candidates, built on first use: normalising every
    /// landmark, feature and unit name once per mail instead of once per
    /// phrase was a quarter of intake's cost (BENCHMARKS.md, intake).
    /// Leave it `Default::default()` when building a context.
    pub cache: NameCache,
}

/// [`ParseContext`]'s candidates, each computed once from the context's
/// (immutable) fields.
#[derive(Debug, Clone, Default)]
pub struct NameCache {
    places: std::cell::OnceCell<Vec<Candidate<PlaceRef>>>,
    own_units: std::cell::OnceCell<Vec<Candidate<UnitId>>>,
    enemy_units: std::cell::OnceCell<Vec<Candidate<UnitId>>>,
    /// What the parser chose for the player where an order could be read
    /// more than one way (the near edge, the woods to the rear, ...),
    /// kept for the receipt (`render::notes`). Not a cache, but like one
    /// it starts empty with the context.
    notes: std::cell::RefCell<Vec<ParseNote>>,
}

/// A note the parser made while reading an order, for its receipt: `at`
/// is the byte offset in the mail, `tail` the order's text from there to
/// its end (to find the order again), `text` what the player is told.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseNote {
    pub at: usize,
    pub tail: String,
    pub text: String,
}

/// An enemy unit the player's side has seen: where it is (in sight now)
/// or was last seen, and the unit itself when in sight (for its facing
/// and frontage). Built only from what the side saw (fog of war).
#[derive(Debug, Clone, Copy)]
pub struct SeenEnemy<'s> {
    pub id: UnitId,
    pub at: Pos,
    pub in_sight: Option<&'s crate::rules::iron_brigade::state::Unit>,
}

/// Unit and place aliases of a scenario, keyed to the ids of the battle state
/// made from it (matched by name, so the ids need not follow any order).
pub fn scenario_aliases(
    scenario: &Scenario,
    state: &BattleState,
) -> (BTreeMap<String, UnitId>, BTreeMap<String, Pos>) {
    let mut units = BTreeMap::new();
    for u in &scenario.units {
        if let Some(su) = state.units.iter().find(|s| s.name == u.name) {
            for a in &u.aliases {
                units.insert(a.clone(), su.id);
            }
        }
    }
    let mut places = BTreeMap::new();
    for l in &scenario.landmarks {
        for a in &l.aliases {
            places.insert(a.clone(), Pos::new(l.at.x, l.at.y));
        }
    }
    (units, places)
}

/// A place a name can stand for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlaceRef {
    Point(Pos),
    /// An area: its centre, or the edge nearest the unit ("the edge of").
    Area(usize),
    /// A road, fence or stream: the point on it nearest the unit.
    Line(usize),
    /// A hill contour: its centre.
    Hill(usize),
    /// A unit's present position (own units and visible enemies).
    Unit(UnitId),
}

impl<'a> ParseContext<'a> {
    /// Whether the player commands `unit`: it is of his side and one of his
    /// officers is in its chain of command. A unit with no commander at all
    /// may be ordered by any player of its side.
    pub fn commands(&self, unit: UnitId) -> bool {
        let Some(u) = self.state.unit(unit) else {
            return false;
        };
        if u.side != self.side {
            return false;
        }
        u.commander.is_none()
            || self
                .player_officers
                .iter()
                .any(|o| self.state.in_chain_of_command(unit, *o))
    }

    /// The player's own side's units, by name and alias.
    pub fn own_units(&self) -> Vec<Candidate<UnitId>> {
        self.cache
            .own_units
            .get_or_init(|| self.build_own_units())
            .clone()
    }

    fn build_own_units(&self) -> Vec<Candidate<UnitId>> {
        let mut out: Vec<Candidate<UnitId>> = self
            .state
            .units_of(self.side)
            .map(|u| Candidate::new(&u.name, u.id))
            .collect();
        for (alias, id) in &self.aliases {
            if self.state.unit(*id).is_some_and(|u| u.side == self.side) {
                let mut c = Candidate::new(alias, *id);
                if let Some(u) = self.state.unit(*id) {
                    c.display = u.name.clone();
                }
                out.push(c);
            }
        }
        out
    }

    /// How a player of this side is told of a unit: his own side's by
    /// name, an enemy as the identity policy says ("enemy B", or
    /// its name when identities are known).
    pub fn call_unit(&self, id: UnitId) -> String {
        match self.state.unit(id) {
            Some(u) if u.side == self.side => u.name.clone(),
            Some(_) => self.enemy_names.call(self.state, id),
            None => format!("unit {}", id.0),
        }
    }

    /// The names a designated enemy may be written by: "enemy B", "enemy
    /// regiment B", "regiment B", "target B" and the bare letter "B" (not "A",
    /// the article: `Parser` reads a capital "A" itself).
    fn designation_candidates<T: Clone>(&self, id: UnitId, target: T) -> Vec<Candidate<T>> {
        let (Some(d), Some(u)) = (self.enemy_names.designation(id), self.state.unit(id)) else {
            return Vec::new();
        };
        let noun = crate::identity::kind_noun(u.arm);
        // Shown in suggestions as the report and receipts call it.
        let display = format!("enemy {d}");
        let mut spellings = vec![
            display.clone(),
            format!("enemy {noun} {d}"),
            format!("{noun} {d}"),
            format!("target {d}"),
        ];
        if !d.eq_ignore_ascii_case("a") {
            spellings.push(d.to_string());
        }
        spellings
            .into_iter()
            .map(|s| {
                let mut c = Candidate::new(&s, target.clone());
                c.display = display.clone();
                c
            })
            .collect()
    }

    /// Enemy units the player's side can see, by the names the identity
    /// policy lets him use: their designations, and when identities are
    /// known their names and aliases too.
    pub fn visible_enemy_units(&self) -> Vec<Candidate<UnitId>> {
        self.cache
            .enemy_units
            .get_or_init(|| self.build_visible_enemy_units())
            .clone()
    }

    fn build_visible_enemy_units(&self) -> Vec<Candidate<UnitId>> {
        let visible = |id: &UnitId| {
            self.visible_enemies.contains(id)
                && self.state.unit(*id).is_some_and(|u| u.side != self.side)
        };
        let mut out: Vec<Candidate<UnitId>> = self
            .state
            .enemies_of(self.side)
            .filter(|u| visible(&u.id))
            .flat_map(|u| self.designation_candidates(u.id, u.id))
            .collect();
        if !self.enemy_names.known() {
            return out;
        }
        out.extend(
            self.state
                .enemies_of(self.side)
                .filter(|u| visible(&u.id))
                .map(|u| Candidate::new(&u.name, u.id)),
        );
        for (alias, id) in &self.aliases {
            if visible(id) {
                let mut c = Candidate::new(alias, *id);
                if let Some(u) = self.state.unit(*id) {
                    c.display = u.name.clone();
                }
                out.push(c);
            }
        }
        out
    }

    /// The player's own officers who are still on the field.
    pub fn own_officers(&self) -> Vec<Candidate<OfficerId>> {
        self.player_officers
            .iter()
            .filter_map(|id| self.state.officer(*id))
            .filter(|o| o.status == OfficerStatus::Active)
            .map(|o| Candidate::new(&o.name, o.id))
            .collect()
    }

    /// Officers of the player's side (dispatch addressees).
    pub fn side_officers(&self) -> Vec<Candidate<OfficerId>> {
        self.state
            .officers_of(self.side)
            .map(|o| Candidate::new(&o.name, o.id))
            .collect()
    }

    /// Every place the player may name: landmarks and their aliases, named
    /// terrain, his own units and the enemy units he can see.
    pub fn places(&self) -> &[Candidate<PlaceRef>] {
        self.cache.places.get_or_init(|| self.build_places())
    }

    fn build_places(&self) -> Vec<Candidate<PlaceRef>> {
        let t = &self.state.terrain;
        let mut out: Vec<Candidate<PlaceRef>> = Vec::new();
        for l in &t.landmarks {
            out.push(Candidate::new(&l.name, PlaceRef::Point(l.position)));
        }
        for (alias, pos) in &self.place_aliases {
            out.push(Candidate::new(alias, PlaceRef::Point(*pos)));
        }
        for f in &t.fords {
            out.push(Candidate::new(&f.name, PlaceRef::Point(f.position)));
        }
        for (i, a) in t.areas.iter().enumerate() {
            out.push(Candidate::new(&a.name, PlaceRef::Area(i)));
        }
        for (i, l) in t.lines.iter().enumerate() {
            out.push(Candidate::new(&l.name, PlaceRef::Line(i)));
        }
        for (i, h) in t.hills.iter().enumerate() {
            out.push(Candidate::new(&h.name, PlaceRef::Hill(i)));
        }
        for c in self
            .own_units()
            .into_iter()
            .chain(self.visible_enemy_units())
        {
            out.push(Candidate {
                display: c.display,
                words: c.words,
                target: PlaceRef::Unit(c.target),
            });
        }
        // Enemies seen before and out of sight now: by designation, at
        // their last-known place (never where they really are).
        for (id, d) in &self.enemy_names.units {
            if !self.visible_enemies.contains(id) {
                out.extend(self.designation_candidates(*id, PlaceRef::Point(d.last_at)));
            }
        }
        // A landmark often shares its name with the feature it marks ("Round
        // Hill" the landmark and the hill): the first (the landmark) wins.
        let core = |ws: &[String]| -> Vec<String> {
            ws.iter().filter(|w| w.as_str() != "the").cloned().collect()
        };
        let mut seen: Vec<Vec<String>> = Vec::new();
        out.retain(|c| {
            let k = core(&c.words);
            if seen.contains(&k) {
                false
            } else {
                seen.push(k);
                true
            }
        });
        out
    }

    /// Roads only (for "by the turnpike", "down the Mill Road").
    pub fn roads(&self) -> Vec<Candidate<PlaceRef>> {
        self.places()
            .iter()
            .filter(|c| match c.target {
                PlaceRef::Line(i) => {
                    self.state.terrain.lines.get(i).is_some_and(|l| {
                        l.kind == crate::rules::iron_brigade::kinds::LineKind::Road
                    })
                }
                PlaceRef::Point(_) => c
                    .words
                    .iter()
                    .any(|w| matches!(w.as_str(), "road" | "pike" | "turnpike" | "lane")),
                _ => false,
            })
            .cloned()
            .collect()
    }

    /// Where a place is for a unit (or officer) standing at `from`.
    pub fn locate(&self, place: PlaceRef, from: Pos, edge: bool) -> Pos {
        let t = &self.state.terrain;
        match place {
            PlaceRef::Point(p) => p,
            PlaceRef::Unit(id) => self.state.unit(id).map(|u| u.position).unwrap_or(from),
            PlaceRef::Area(i) => match t.areas.get(i) {
                Some(a) if edge => nearest_on_path(&a.outline, true, from),
                Some(a) => centre(&a.outline),
                None => from,
            },
            PlaceRef::Hill(i) => match t.hills.get(i) {
                Some(h) if edge => nearest_on_path(&h.outline, true, from),
                Some(h) => centre(&h.outline),
                None => from,
            },
            PlaceRef::Line(i) => t
                .lines
                .get(i)
                .map(|l| nearest_on_path(&l.path, false, from))
                .unwrap_or(from),
        }
    }

    /// Whether a place is an area or hill (so "the edge of" makes sense).
    pub fn has_edge(&self, place: PlaceRef) -> bool {
        matches!(place, PlaceRef::Area(_) | PlaceRef::Hill(_))
            || matches!(place, PlaceRef::Point(p) if self.area_at(p).is_some())
    }

    /// An area whose centre a landmark marks, so "the edge of the woods"
    /// works when "the woods" is a landmark in the middle of an area.
    pub fn area_at(&self, p: Pos) -> Option<usize> {
        let t = &self.state.terrain;
        t.areas.iter().position(|a| {
            matches!(
                a.kind,
                AreaKind::Woods
                    | AreaKind::DenseWoods
                    | AreaKind::Town
                    | AreaKind::Swamp
                    | AreaKind::Rough
                    | AreaKind::Abatis
            ) && point_in(&a.outline, p)
        })
    }

    /// A landmark at (or within a hair of) `p`, for receipts.
    pub fn landmark_at(&self, p: Pos) -> Option<&str> {
        self.state
            .terrain
            .landmarks
            .iter()
            .find(|l| l.position.distance(p) < 0.01)
            .map(|l| l.name.as_str())
    }

    pub fn bearing(&self, from: Pos, to: Pos) -> f64 {
        geometry::bearing(from, to)
    }

    // ------------------------------------------------ places (issue #15)

    /// Keep notes for the receipt of the order they were made in.
    pub fn add_notes(&self, notes: Vec<ParseNote>) {
        if let Ok(mut n) = self.cache.notes.try_borrow_mut() {
            for note in notes {
                if !n.contains(&note) {
                    n.push(note);
                }
            }
        }
    }

    /// The notes made while reading the order at `span` whose text (as
    /// written, trimmed) is `paragraph`.
    pub fn notes_for(&self, span: super::Span, paragraph: &str) -> Vec<String> {
        let Ok(n) = self.cache.notes.try_borrow() else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for note in n.iter() {
            if (span.start..span.end).contains(&note.at)
                && paragraph.trim_end().ends_with(note.tail.trim())
                && !out.contains(&note.text)
            {
                out.push(note.text.clone());
            }
        }
        out
    }

    /// The enemy units the side has seen: in sight now where they are,
    /// otherwise at their last-known place (`identity`). Never a unit the
    /// side has not seen.
    pub fn seen_enemies(&self) -> Vec<SeenEnemy<'a>> {
        let state: &'a BattleState = self.state;
        let mut out: Vec<SeenEnemy<'a>> = state
            .enemies_of(self.side)
            .filter(|u| self.visible_enemies.contains(&u.id))
            .map(|u| SeenEnemy {
                id: u.id,
                at: u.position,
                in_sight: Some(u),
            })
            .collect();
        for (id, d) in &self.enemy_names.units {
            if !self.visible_enemies.contains(id) {
                out.push(SeenEnemy {
                    id: *id,
                    at: d.last_at,
                    in_sight: None,
                });
            }
        }
        out
    }

    /// The side's front, as a compass bearing: from the middle of its own
    /// units toward the middle of the enemy units it has seen (where they
    /// are or were last seen); with no enemy seen, the mean facing of its
    /// own units; north if it has none. Ruling (the rules are silent):
    /// "behind", "in front of", "left" and "right" of a place, and "the
    /// rear" of a retreat, are taken from this front (docs/orders.md).
    pub fn side_front(&self) -> f64 {
        let own: Vec<&crate::rules::iron_brigade::state::Unit> =
            self.state.units_of(self.side).collect();
        let seen = self.seen_enemies();
        let mean = |ps: &[Pos]| -> Option<Pos> {
            if ps.is_empty() {
                return None;
            }
            let n = ps.len() as f64;
            Some(Pos::new(
                ps.iter().map(|p| p.x).sum::<f64>() / n,
                ps.iter().map(|p| p.y).sum::<f64>() / n,
            ))
        };
        let own_at: Vec<Pos> = own.iter().map(|u| u.position).collect();
        let enemy_at: Vec<Pos> = seen.iter().map(|e| e.at).collect();
        if let (Some(a), Some(b)) = (mean(&own_at), mean(&enemy_at))
            && a.distance(b) > 0.01
        {
            return geometry::bearing(a, b);
        }
        let (sx, sy) = own.iter().fold((0.0, 0.0), |(x, y), u| {
            let (fx, fy) = geometry::facing_vector(u.facing);
            (x + fx, y + fy)
        });
        if sx.abs() + sy.abs() > 1e-9 {
            return geometry::bearing(Pos::new(0.0, 0.0), Pos::new(sx, sy));
        }
        0.0
    }

    /// The outline of an area or hill place, if it has one.
    pub fn outline(&self, place: PlaceRef) -> Option<&'a [Pos]> {
        let state: &'a BattleState = self.state;
        let t = &state.terrain;
        match place {
            PlaceRef::Area(i) => t.areas.get(i).map(|a| a.outline.as_slice()),
            PlaceRef::Hill(i) => t.hills.get(i).map(|h| h.outline.as_slice()),
            PlaceRef::Point(p) => self
                .area_at(p)
                .and_then(|i| t.areas.get(i))
                .map(|a| a.outline.as_slice()),
            _ => None,
        }
    }

    /// A player's own unit's name, for examples in errors: the first of his
    /// command, else of his side.
    pub fn example_unit(&self) -> Option<String> {
        self.state
            .units_of(self.side)
            .find(|u| self.commands(u.id))
            .or_else(|| self.state.units_of(self.side).next())
            .map(|u| u.name.clone())
    }

    /// Enemies as this player may write them, for examples in errors: the
    /// first two his side sees, by designation (or real name when
    /// identities are known), else letters that stand for no one yet.
    pub fn example_enemies(&self) -> (String, String) {
        let mut names: Vec<(usize, String, String)> = self
            .state
            .enemies_of(self.side)
            .filter(|u| self.visible_enemies.contains(&u.id))
            .filter_map(|u| {
                if self.enemy_names.known() {
                    return Some((0, u.name.clone(), u.name.clone()));
                }
                self.enemy_names.designation(u.id).map(|d| {
                    let shown = if d.eq_ignore_ascii_case("a") {
                        format!("enemy {d}")
                    } else {
                        d.to_string()
                    };
                    (d.len(), d.to_string(), shown)
                })
            })
            .collect();
        names.sort();
        let names: Vec<String> = names.into_iter().map(|(_, _, s)| s).collect();
        let mut it = names.into_iter();
        let first = it.next().unwrap_or_else(|| "B".to_string());
        let second = it.next().unwrap_or_else(|| {
            if first == "C" {
                "D".to_string()
            } else {
                "C".to_string()
            }
        });
        (first, second)
    }

    /// Another of the player's own units than `not`, for examples in errors.
    pub fn example_other_unit(&self, not: Option<UnitId>) -> Option<String> {
        self.state
            .units_of(self.side)
            .filter(|u| Some(u.id) != not && self.commands(u.id))
            .map(|u| u.name.clone())
            .next()
    }

    /// A place of the scenario, for examples in errors: its first landmark,
    /// else its first named feature.
    pub fn example_place(&self) -> Option<String> {
        let t = &self.state.terrain;
        t.landmarks
            .first()
            .map(|l| l.name.clone())
            .or_else(|| t.areas.first().map(|a| a.name.clone()))
            .or_else(|| t.lines.first().map(|l| l.name.clone()))
    }
}

/// Where a ray from `from` along `bearing` last leaves a ring, if it does.
pub fn ray_exit(ring: &[Pos], from: Pos, bearing: f64) -> Option<Pos> {
    let (dx, dy) = geometry::facing_vector(bearing);
    let n = ring.len();
    let mut best: Option<f64> = None;
    for i in 0..n {
        let (Some(a), Some(b)) = (ring.get(i), ring.get((i + 1) % n)) else {
            continue;
        };
        let (ex, ey) = (b.x - a.x, b.y - a.y);
        let den = dx * ey - dy * ex;
        if den.abs() < 1e-12 {
            continue;
        }
        let (wx, wy) = (a.x - from.x, a.y - from.y);
        let t = (wx * ey - wy * ex) / den;
        let u = (wx * dy - wy * dx) / den;
        if t >= 0.0 && (0.0..=1.0).contains(&u) && best.is_none_or(|b| t > b) {
            best = Some(t);
        }
    }
    best.map(|t| Pos::new(from.x + dx * t, from.y + dy * t))
}

/// The point of a ring's edge nearest `from` among the edges whose outside
/// looks within 60° of `bearing` (the edge from which a unit facing that
/// way looks out of the area); `None` if no edge does.
pub fn edge_looking(ring: &[Pos], from: Pos, bearing: f64) -> Option<Pos> {
    let n = ring.len();
    if n < 3 {
        return None;
    }
    // Shoelace: positive area is anticlockwise (x east, y north).
    let area2: f64 = (0..n)
        .filter_map(|i| Some((ring.get(i)?, ring.get((i + 1) % n)?)))
        .map(|(a, b)| a.x * b.y - b.x * a.y)
        .sum();
    let (fx, fy) = geometry::facing_vector(bearing);
    let mut best: Option<(f64, Pos)> = None;
    for i in 0..n {
        let (Some(a), Some(b)) = (ring.get(i), ring.get((i + 1) % n)) else {
            continue;
        };
        let (ex, ey) = (b.x - a.x, b.y - a.y);
        let len = (ex * ex + ey * ey).sqrt();
        if len < 1e-9 {
            continue;
        }
        // Outward normal: right of the edge for an anticlockwise ring.
        let (nx, ny) = if area2 > 0.0 {
            (ey / len, -ex / len)
        } else {
            (-ey / len, ex / len)
        };
        if nx * fx + ny * fy < 0.5 {
            continue;
        }
        let q = nearest_on_path(&[*a, *b], false, from);
        let d = q.distance(from);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, q));
        }
    }
    best.map(|(_, q)| q)
}

/// Whether `p` lies inside a ring.
pub fn inside(ring: &[Pos], p: Pos) -> bool {
    point_in(ring, p)
}

/// The average of a ring's corners (closing corner not counted twice).
pub(crate) fn centre(pts: &[Pos]) -> Pos {
    let pts: &[Pos] = match (pts.first(), pts.last()) {
        (Some(a), Some(b)) if pts.len() > 1 && a == b => pts.get(..pts.len() - 1).unwrap_or(pts),
        _ => pts,
    };
    if pts.is_empty() {
        return Pos::default();
    }
    let n = pts.len() as f64;
    Pos::new(
        pts.iter().map(|p| p.x).sum::<f64>() / n,
        pts.iter().map(|p| p.y).sum::<f64>() / n,
    )
}

/// The point of a path (closed if `ring`) nearest to `p`.
pub fn nearest_on_path(pts: &[Pos], ring: bool, p: Pos) -> Pos {
    let mut best: Option<(f64, Pos)> = None;
    let n = pts.len();
    let segs = if ring { n } else { n.saturating_sub(1) };
    for i in 0..segs {
        let (Some(a), Some(b)) = (pts.get(i), pts.get((i + 1) % n)) else {
            continue;
        };
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 {
            (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let q = Pos::new(a.x + t * dx, a.y + t * dy);
        let d = q.distance(p);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, q));
        }
    }
    best.map(|(_, q)| q)
        .or_else(|| pts.first().copied())
        .unwrap_or(p)
}

/// Even-odd point-in-polygon test.
fn point_in(pts: &[Pos], p: Pos) -> bool {
    let n = pts.len();
    let mut inside = false;
    for i in 0..n {
        let (Some(a), Some(b)) = (pts.get(i), pts.get((i + 1) % n)) else {
            continue;
        };
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_point_on_a_road_and_an_area_edge() {
        let road = [Pos::new(0.0, 0.0), Pos::new(10.0, 0.0)];
        assert_eq!(
            nearest_on_path(&road, false, Pos::new(4.0, 3.0)),
            Pos::new(4.0, 0.0)
        );
        let square = [
            Pos::new(0.0, 0.0),
            Pos::new(10.0, 0.0),
            Pos::new(10.0, 10.0),
            Pos::new(0.0, 10.0),
        ];
        assert_eq!(
            nearest_on_path(&square, true, Pos::new(5.0, -4.0)),
            Pos::new(5.0, 0.0)
        );
        assert_eq!(centre(&square), Pos::new(5.0, 5.0));
        assert!(point_in(&square, Pos::new(5.0, 5.0)));
        assert!(!point_in(&square, Pos::new(15.0, 5.0)));
    }

    /// A 10" square wood: a ray south from inside leaves by the south
    /// edge; from north of the wood, the edge that looks out south is the
    /// south edge, though the north edge is nearer; and the same holds with
    /// the ring written the other way round.
    #[test]
    fn ray_exit_and_the_edge_that_looks_out() {
        let square = [
            Pos::new(0.0, 0.0),
            Pos::new(10.0, 0.0),
            Pos::new(10.0, 10.0),
            Pos::new(0.0, 10.0),
        ];
        let q = ray_exit(&square, Pos::new(4.0, 6.0), 180.0).unwrap();
        assert!(q.distance(Pos::new(4.0, 0.0)) < 1e-9, "{q:?}");
        assert!(ray_exit(&square, Pos::new(4.0, 20.0), 0.0).is_none());
        let north_of = Pos::new(4.0, 12.0);
        let q = edge_looking(&square, north_of, 180.0).unwrap();
        assert!(q.distance(Pos::new(4.0, 0.0)) < 1e-9, "{q:?}");
        let mut reversed = square;
        reversed.reverse();
        let q = edge_looking(&reversed, north_of, 180.0).unwrap();
        assert!(q.distance(Pos::new(4.0, 0.0)) < 1e-9, "{q:?}");
        // Facing north from north of it: the near (north) edge itself.
        let q = edge_looking(&square, north_of, 0.0).unwrap();
        assert!(q.distance(Pos::new(4.0, 10.0)) < 1e-9, "{q:?}");
    }
}
