//! One whole turn of Iron Brigade, in the sequence of play of APSoF I.B:
//! order phase ([`orders`]), morale phase ([`morale_phase`]), double-quick
//! phase ([`double_quick`]), movement and fire ([`movement`], then
//! [`fire`]: firing always comes after all movement), then the turn number
//! goes up. SFRM dispatches ([`sfrm_phase`]) are written in the order phase
//! and their messengers ride after all movement and fire.
//!
//! Pure and deterministic: the state and order book come in by reference and
//! go out changed in a [`TurnOutcome`]; every die comes from the
//! [`DiceSource`] handed in; units and officers are visited in id order.
//! The same inputs and dice therefore always give byte-identical outcomes.

pub mod double_quick;
pub mod fire;
pub mod morale_phase;
pub mod movement;
pub mod orders;
pub mod reorganize;
pub mod sfrm_phase;
pub mod works;

use super::events::{Event, OfficerRef, UnitRef};
use super::geometry::{footprint, in_contact};
use super::morale::losses_on_break;
use super::orders::{BookedOrder, OrderBook, TurnOrders};
use super::sight::{Activity, SightError, SightIndex, Visibility, side_visibility};
use super::state::{BattleState, OfficerId, OfficerStatus, Pos, SideId, UnitId};
use crate::dice::{DiceError, DiceSource};
use std::collections::{BTreeMap, BTreeSet};

/// The result of one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// The battle at the end of the turn, turn number incremented.
    pub state: BattleState,
    /// Every unit's booked orders after the turn.
    pub book: OrderBook,
    /// Every decision, in the order it was taken.
    pub events: Vec<Event>,
    /// What each side could see at the end of the turn, and from where.
    pub visibility: BTreeMap<SideId, Visibility>,
}

/// Input the engine cannot work with. Everything else (an order that cannot
/// be carried out, a move into forbidden ground) is an event, not an error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TurnError {
    #[error("order #{order} names unit {unit}, which is not in the battle; check the order's unit")]
    UnknownUnit { order: u64, unit: u32 },
    #[error(
        "order #{order} comes from officer {officer}, who is not in the battle; check who issued it"
    )]
    UnknownOfficer { order: u64, officer: u32 },
    #[error("officer {officer} is moved but is not in the battle; check the officer moves")]
    UnknownMovingOfficer { officer: u32 },
    #[error(
        "order #{order}: officer {officer} cannot command unit {unit} of the other side; fix the issuer"
    )]
    WrongSide { order: u64, officer: u32, unit: u32 },
    #[error("order #{order} has no steps; an order must tell the unit to do something")]
    EmptyOrder { order: u64 },
    #[error("a position in order #{order} is not a finite point; check its coordinates")]
    NotFinite { order: u64 },
    #[error(
        "the move of officer {officer} has a point that is not a finite number; check its coordinates"
    )]
    OfficerMoveNotFinite { officer: u32 },
    #[error(transparent)]
    Dice(#[from] DiceError),
    #[error(transparent)]
    Sight(#[from] SightError),
    /// A rules function refused inputs the engine built: a bug, not bad input.
    #[error(
        "the rules code refused a step of the turn: {0}; this is a bug, please report it with the turn's input"
    )]
    Internal(String),
}

impl From<super::fire::FireError> for TurnError {
    fn from(e: super::fire::FireError) -> Self {
        match e {
            super::fire::FireError::Dice(d) => TurnError::Dice(d),
            other => TurnError::Internal(other.to_string()),
        }
    }
}

impl From<super::morale::MoraleError> for TurnError {
    fn from(e: super::morale::MoraleError) -> Self {
        match e {
            super::morale::MoraleError::Dice(d) => TurnError::Dice(d),
            other => TurnError::Internal(other.to_string()),
        }
    }
}

/// The step a unit is carrying out this turn: index of the booked order,
/// the order id, the step index and the action.
pub(crate) fn current_step(
    book: &OrderBook,
    unit: UnitId,
    turn: u32,
) -> Option<(usize, u64, usize, super::orders::Action)> {
    let list = book.units.get(&unit)?;
    let i = active_index(list, turn)?;
    let b = list.get(i)?;
    let step = b.order.steps.get(b.current_step)?;
    Some((i, b.order.id, b.current_step, step.action.clone()))
}

/// Resolve one whole turn (APSoF I.B).
///
/// `book` holds orders booked on earlier turns; `orders` is what the players
/// wrote for this turn. Returns the new state (turn + 1), the new book, the
/// events and each side's end-of-turn visibility.
pub fn resolve_turn(
    state: &BattleState,
    book: &OrderBook,
    orders: &TurnOrders,
    dice: &mut dyn DiceSource,
) -> Result<TurnOutcome, TurnError> {
    orders::validate(state, orders)?;
    let mut ctx = Ctx::new(state.clone(), book.clone(), dice);
    // VI.C.6: morale 1 pins, however the unit came to it (a scenario's
    // rabble, an umpire's SET).
    for id in ctx.unit_ids() {
        ctx.mark_pinned(id);
    }
    ctx.join_legions();
    ctx.replacements_arrive();
    orders::order_phase(&mut ctx, orders)?;
    sfrm_phase::write_dispatches(&mut ctx, &orders.dispatches);
    morale_phase::morale_phase(&mut ctx)?;
    double_quick::double_quick_phase(&mut ctx)?;
    let plans = movement::movement_phase(&mut ctx, orders)?;
    // IV.E.2: boats on wagons went where their train went.
    crate::rules::iron_brigade::pontoons::follow_trains(&mut ctx.state);
    ctx.join_legions();
    fire::fire_phase(&mut ctx, &plans)?;
    let reorgs = std::mem::take(&mut ctx.reorganizations);
    reorganize::apply(&mut ctx, reorgs)?;
    works::obstacle_work(&mut ctx);
    works::pontoon_work(&mut ctx);
    crate::rules::iron_brigade::pontoons::follow_trains(&mut ctx.state);
    sfrm_phase::generals_contacted(&mut ctx)?;
    sfrm_phase::ride(&mut ctx)?;
    ctx.advance();
    let visibility = ctx.visibility();
    Ok(TurnOutcome {
        state: ctx.state,
        book: ctx.book,
        events: ctx.events,
        visibility,
    })
}

/// The turn being worked out.
pub(crate) struct Ctx<'d> {
    pub state: BattleState,
    pub book: OrderBook,
    pub events: Vec<Event>,
    pub dice: &'d mut dyn DiceSource,
    pub turn: u32,
    pub index: SightIndex,
    /// Units that moved this turn (for sight, VIII.F, and IV.C.6).
    pub moved: BTreeSet<UnitId>,
    /// Units that fired this turn (V.C.3: firing reveals units in cover).
    pub fired: BTreeSet<UnitId>,
    /// Units that rallied from 0 (VI.E.2.iv) or from pinned (VI.C.6) this
    /// turn and may not move.
    pub no_move: BTreeSet<UnitId>,
    /// Units whose crossing of water too deep was aborted this turn
    /// (APSoF IV.E.1 "the crossing is aborted"): a unit that failed in the
    /// double-quick phase does not try again in the movement phase.
    pub ford_aborted: BTreeSet<UnitId>,
    /// Units that changed formation this turn: perilous targets (V.G.1.v).
    pub changed_formation: BTreeSet<UnitId>,
    /// Units whose move this turn crossed a ford or went into abatis:
    /// perilous targets (V.G.1.iv).
    pub crossing: BTreeSet<UnitId>,
    /// Officers' positions at the start of the turn (I.C.1 issue distance,
    /// V.H.3 replacement position).
    pub officer_start: BTreeMap<OfficerId, Pos>,
    /// Generals and the enemy units they were already in contact with at
    /// the start of the turn (SFRM Officer Casualties ii rolls for a fresh
    /// contact only); filled only under `sfrm-officer-casualties`.
    pub general_contacts_at_start: BTreeSet<(OfficerId, UnitId)>,
    /// Splits and combines decided in the movement phase (APSoF VII.C),
    /// carried out after fire: (unit, order, step, what).
    pub(crate) reorganizations: Vec<(UnitId, u64, usize, reorganize::Reorg)>,
    /// The state as the turn began: what each side could see then decides
    /// a surprise attack (APSoF V.G.1.i).
    pub start: BattleState,
    /// Units working on an obstacle this turn (APSoF VIII.D, VIII.E), from
    /// the movement phase; their work is counted after fire ([`works`]).
    pub working: BTreeMap<UnitId, super::kinds::Obstacle>,
    /// Units unloading pontoon boats or crossing in them this turn (APSoF
    /// IV.E.2), from the movement phase; counted after fire ([`works`]).
    pub pontoon_working: BTreeMap<UnitId, super::kinds::PontoonTask>,
}

impl<'d> Ctx<'d> {
    fn new(state: BattleState, book: OrderBook, dice: &'d mut dyn DiceSource) -> Self {
        let index = SightIndex::new(&state.terrain);
        let officer_start = state.officers.iter().map(|o| (o.id, o.position)).collect();
        let general_contacts_at_start = if state.options.sfrm_officer_casualties {
            sfrm_phase::enemy_contacts(&state)
        } else {
            BTreeSet::new()
        };
        let turn = state.turn;
        let start = state.clone();
        Ctx {
            start,
            state,
            book,
            events: Vec::new(),
            dice,
            turn,
            index,
            moved: BTreeSet::new(),
            fired: BTreeSet::new(),
            no_move: BTreeSet::new(),
            ford_aborted: BTreeSet::new(),
            changed_formation: BTreeSet::new(),
            crossing: BTreeSet::new(),
            officer_start,
            general_contacts_at_start,
            reorganizations: Vec::new(),
            working: BTreeMap::new(),
            pontoon_working: BTreeMap::new(),
        }
    }

    /// Unit ids in id order.
    pub fn unit_ids(&self) -> Vec<UnitId> {
        let mut ids: Vec<UnitId> = self.state.units.iter().map(|u| u.id).collect();
        ids.sort_unstable();
        ids
    }

    pub fn uref(&self, id: UnitId) -> UnitRef {
        match self.state.unit(id) {
            Some(u) => UnitRef {
                id,
                side: u.side,
                name: u.name.clone(),
            },
            None => UnitRef {
                id,
                side: SideId(u8::MAX),
                name: format!("unit {}", id.0),
            },
        }
    }

    pub fn oref(&self, id: OfficerId) -> OfficerRef {
        match self.state.officer(id) {
            Some(o) => OfficerRef {
                id,
                side: o.side,
                name: o.name.clone(),
            },
            None => OfficerRef {
                id,
                side: SideId(u8::MAX),
                name: format!("officer {}", id.0),
            },
        }
    }

    /// The nearest enemy unit still in the field, by the gap between
    /// footprints; ties to the lower id.
    pub fn nearest_enemy(&self, id: UnitId) -> Option<(UnitId, f64)> {
        let u = self.state.unit(id)?;
        let fp = footprint(u);
        let diag = fp.frontage.hypot(fp.depth);
        // Nearest centres first, and a polygon distance only for enemies
        // that could still beat the best so far: the gap is at least the
        // larger axis gap between centres less both half-diagonals. The
        // answer is the least (gap, id), whatever the order of visits.
        let axis_gap = |c: Pos| (c.x - fp.centre.x).abs().max((c.y - fp.centre.y).abs());
        let live = || self.state.enemies_of(u.side).filter(|e| e.castings > 0);
        // Seed the search with the enemy nearest on the axes (the first of
        // equals; a footprint's centre is its unit's position), so that the
        // bound rejects most of the others.
        let seed = live().min_by(|a, b| axis_gap(a.position).total_cmp(&axis_gap(b.position)));
        let seed_id = seed.map(|e| e.id);
        let mut best: Option<(UnitId, f64)> = None;
        for e in seed
            .into_iter()
            .chain(live().filter(|e| Some(e.id) != seed_id))
        {
            // First a looser bound that needs no footprint (frontage plus
            // depth is at least the diagonal): what it rejects, the exact
            // bound below would too.
            if let Some((_, bg)) = best {
                let (f, d) = super::geometry::formation_size(e, e.formation);
                if axis_gap(e.position) - (diag + f + d) / 2.0 > bg + 1e-6 {
                    continue;
                }
            }
            let efp = footprint(e);
            let lower = axis_gap(efp.centre) - (diag + efp.frontage.hypot(efp.depth)) / 2.0;
            if best.is_some_and(|(_, bg)| lower > bg + 1e-6) {
                continue;
            }
            let gap = fp.gap(&efp);
            let better = match best {
                None => true,
                Some((bid, bg)) => gap < bg || (gap == bg && e.id < bid),
            };
            if better {
                best = Some((e.id, gap));
            }
        }
        best
    }

    /// A unit's combat morale has reached 0: it breaks (APSoF VI.C), losing
    /// a third of its castings as captured when within 1" of enemy castings
    /// (VI.C.3) and, for a battery in contact, its guns (VI.C.4). A battery
    /// that lost its guns fights on with pistols (VI.C.4: "as cavalry with
    /// pistols").
    pub fn break_unit(&mut self, id: UnitId, cause: &str) {
        let near = self.nearest_enemy(id);
        let Some(u) = self.state.unit(id) else {
            return;
        };
        if u.broken || u.castings == 0 {
            if let Some(u) = self.state.unit_mut(id) {
                u.combat_morale = 0;
            }
            return;
        }
        let contact = near
            .and_then(|(e, _)| self.state.unit(e))
            .is_some_and(|e| in_contact(u, e));
        let within_one = near.is_some_and(|(_, gap)| gap <= 1.0);
        let losses = losses_on_break(u.arm, u.castings, within_one, contact);
        let guns = u.guns;
        let unit = self.uref(id);
        if let Some(u) = self.state.unit_mut(id) {
            u.combat_morale = 0;
            u.broken = true;
            u.lying_down = false;
            u.marks.pinned = false;
            u.castings -= losses.captured.min(u.castings);
            if losses.guns_lost {
                u.guns = 0;
                u.weapon = super::kinds::Weapon::PistolsOrShotguns;
            }
        }
        self.events.push(Event::Broke {
            unit: unit.clone(),
            cause: cause.to_string(),
        });
        if losses.captured > 0 {
            let by = near.map(|(e, _)| self.uref(e));
            self.events.push(Event::Captured {
                unit: unit.clone(),
                castings: losses.captured,
                by,
            });
        }
        if losses.guns_lost && guns > 0 {
            self.events.push(Event::GunsLost { unit, guns });
        }
    }

    /// Take `loss` morale levels off a unit and break it at 0. A section of
    /// a legion in contact with all its other sections shares the loss with
    /// them: they keep one morale level (APSoF VII.F).
    pub fn lose_morale(&mut self, id: UnitId, loss: u32, cause: &str) {
        let partners = self.legion_partners(id);
        self.lose_morale_alone(id, loss, cause);
        if loss == 0 {
            return;
        }
        for p in partners {
            let from = self.state.unit(p).map_or(0, |u| u.combat_morale);
            self.lose_morale_alone(p, loss, "with its legion (APSoF VII.F)");
            let to = self.state.unit(p).map_or(0, |u| u.combat_morale);
            if from != to {
                let unit = self.uref(p);
                self.events.push(Event::MoraleChanged {
                    unit,
                    from,
                    to,
                    reason: "one morale with its legion (APSoF VII.F)".into(),
                });
            }
        }
    }

    fn lose_morale_alone(&mut self, id: UnitId, loss: u32, cause: &str) {
        let Some(u) = self.state.unit_mut(id) else {
            return;
        };
        u.combat_morale = super::morale::apply_loss(u.combat_morale, loss, u.base_morale);
        if u.combat_morale == 0 && !u.broken {
            self.break_unit(id, cause);
        }
        self.mark_pinned(id);
    }

    /// APSoF VII.F: the other sections of `id`'s legion while "all sections
    /// of the legion remain in contact with each other": every section with
    /// men left is linked to the rest by contact, and none is broken (a
    /// section in flight has left the others). Otherwise none: each section
    /// acts on its own morale (VII.C.3).
    pub fn legion_partners(&self, id: UnitId) -> Vec<UnitId> {
        let Some(u) = self.state.unit(id) else {
            return Vec::new();
        };
        let Some(name) = u.legion.as_deref() else {
            return Vec::new();
        };
        let parts: Vec<&super::state::Unit> = self
            .state
            .units
            .iter()
            .filter(|o| {
                o.side == u.side
                    && o.castings > 0
                    && o.legion
                        .as_deref()
                        .is_some_and(|l| l.eq_ignore_ascii_case(name))
            })
            .collect();
        if parts.len() < 2 || parts.iter().any(|p| p.broken) {
            return Vec::new();
        }
        // One group linked by contact.
        let mut reached = vec![false; parts.len()];
        let mut stack = Vec::new();
        if let Some(start) = parts.iter().position(|p| p.id == id) {
            reached[start] = true;
            stack.push(start);
        }
        while let Some(i) = stack.pop() {
            for j in 0..parts.len() {
                if !reached[j] && in_contact(parts[i], parts[j]) {
                    reached[j] = true;
                    stack.push(j);
                }
            }
        }
        if reached.iter().all(|r| *r) {
            parts.iter().map(|p| p.id).filter(|&p| p != id).collect()
        } else {
            Vec::new()
        }
    }

    /// APSoF VII.F: sections of a legion that are (again) all in contact
    /// keep one morale level; when they differ, all take the lowest, as
    /// units recombining do (VII.C.2).
    pub fn join_legions(&mut self) {
        for id in self.unit_ids() {
            let partners = self.legion_partners(id);
            if partners.is_empty() || partners.iter().any(|p| *p < id) {
                continue;
            }
            let mut all = partners.clone();
            all.push(id);
            let lowest = all
                .iter()
                .filter_map(|p| self.state.unit(*p))
                .map(|u| u.combat_morale)
                .min()
                .unwrap_or(0);
            for p in all {
                let Some(u) = self.state.unit_mut(p) else {
                    continue;
                };
                let from = u.combat_morale;
                if from == lowest {
                    continue;
                }
                u.combat_morale = lowest;
                let unit = self.uref(p);
                self.events.push(Event::MoraleChanged {
                    unit,
                    from,
                    to: lowest,
                    reason: "one morale with its legion, the lowest of its sections (APSoF VII.F, VII.C.2)".into(),
                });
                self.mark_pinned(p);
            }
        }
    }

    /// APSoF VI.C.6, VI.F "No Advance***": a unit is pinned exactly while
    /// its combat morale is 1 and it is not broken, at once whatever lowered
    /// it (fire, panic, contact, double quick, moving through friends) —
    /// and from the start for rabble, whose base is 1 (VI.B.1.vi: "subject
    /// to the pinned rule when they are not broken"). A unit newly pinned
    /// is told so.
    pub fn mark_pinned(&mut self, id: UnitId) {
        let Some(u) = self.state.unit_mut(id) else {
            return;
        };
        let pinned = u.castings > 0 && !u.broken && u.combat_morale == 1;
        let was = std::mem::replace(&mut u.marks.pinned, pinned);
        if pinned && !was {
            let unit = self.uref(id);
            self.events.push(Event::Pinned {
                unit,
                went_prone: false,
            });
        }
    }

    /// Replacement officers due this turn take the field (APSoF V.H.3): the
    /// "start of next turn" result places him before this turn's orders, so
    /// he can give orders at once.
    fn replacements_arrive(&mut self) {
        let turn = self.turn;
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.state.replacements)
            .into_iter()
            .partition(|r| r.arrives_turn <= turn);
        self.state.replacements = later;
        for r in due {
            if let Some(o) = self.state.officer_mut(r.officer) {
                o.status = OfficerStatus::Active;
                o.rating = r.rating;
                o.position = r.position;
                o.hit_this_turn = false;
                o.succession.replaced += 1;
                self.officer_start.insert(r.officer, r.position);
                let officer = self.oref(r.officer);
                self.events.push(Event::OfficerReplaced {
                    officer,
                    rating: r.rating,
                    at: r.position,
                });
            }
        }
    }

    /// APSoF I.B.5: the turn number goes up; finished and superseded orders
    /// leave the book.
    fn advance(&mut self) {
        let turn = self.turn;
        // The umpire's declarations (V.G.2, V.B protection) last one turn.
        for u in &mut self.state.units {
            u.marks.declared_perilous = false;
            u.marks.declared_protection = None;
        }
        for list in self.book.units.values_mut() {
            if let Some(i) = active_index(list, turn) {
                list.drain(..i);
            }
            if list
                .first()
                .is_some_and(|b| b.effective_turn <= turn && finished(b))
            {
                list.remove(0);
            }
        }
        self.book.units.retain(|_, l| !l.is_empty());
        self.state.turn = turn.saturating_add(1);
    }

    fn visibility(&self) -> BTreeMap<SideId, Visibility> {
        let mut sides: BTreeSet<SideId> = self.state.sides.iter().map(|s| s.id).collect();
        sides.extend(self.state.units.iter().map(|u| u.side));
        let activity = Activity {
            fired: &self.fired,
            moved: &self.moved,
        };
        sides
            .into_iter()
            .map(|s| (s, side_visibility(&self.state, &self.index, s, &activity)))
            .collect()
    }
}

/// Whether every step of a booked order is done.
pub fn finished(b: &BookedOrder) -> bool {
    b.current_step >= b.order.steps.len()
}

/// The index of the order a unit carries out on `turn` (APSoF I.B.1.i):
/// the latest order in effect that replaced what went before, or an order
/// written to follow it once everything before it is finished.
pub fn active_index(list: &[BookedOrder], turn: u32) -> Option<usize> {
    let mut active: Option<usize> = None;
    for (i, b) in list.iter().enumerate() {
        if b.effective_turn > turn {
            continue;
        }
        match active {
            Some(j) if b.order.follows_previous => {
                if list.get(j).is_some_and(finished) {
                    active = Some(i);
                }
            }
            _ => active = Some(i),
        }
    }
    active
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::orders::{Action, Step, Trigger, UnitOrder};

    fn booked(id: u64, eff: u32, follows: bool, step: usize) -> BookedOrder {
        BookedOrder {
            order: UnitOrder {
                id,
                unit: UnitId(1),
                issued_by: OfficerId(1),
                issued_turn: 1,
                follows_previous: follows,
                steps: vec![Step {
                    trigger: Trigger::Then,
                    action: Action::Hold,
                }],
            },
            effective_turn: eff,
            current_step: step,
        }
    }

    /// I.B.1.i: an order written to follow waits until the one before it is
    /// finished; a replacing order takes over on its turn.
    #[test]
    fn i_b_1_active_order_follows_and_replaces() {
        let list = vec![booked(1, 1, false, 0), booked(2, 1, true, 0)];
        assert_eq!(active_index(&list, 1), Some(0));
        let list = vec![booked(1, 1, false, 1), booked(2, 1, true, 0)];
        assert_eq!(active_index(&list, 1), Some(1));
        let list = vec![booked(1, 1, false, 0), booked(2, 3, false, 0)];
        assert_eq!(active_index(&list, 2), Some(0));
        assert_eq!(active_index(&list, 3), Some(1));
    }
}
