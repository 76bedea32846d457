//! Receipts: an order written back in one canonical form, with the places
//! the parser resolved, and when it is expected to take effect — so the
//! player can check that he was understood before the turn runs.

use super::{Item, ParseContext};
use crate::rules::iron_brigade::delay::distance_delay;
use crate::rules::iron_brigade::kinds::{Arm, Formation};
use crate::rules::iron_brigade::orders::{
    Action, Direction, FireShare, FireTarget, Gait, MoveOrder, Step, Trigger,
};
use crate::rules::iron_brigade::state::{Pos, UnitId};

fn num(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

fn place(p: Pos, ctx: &ParseContext) -> String {
    match ctx.landmark_at(p) {
        Some(name) => format!("{name} ({}, {})", num(p.x), num(p.y)),
        None => format!("({}, {})", num(p.x), num(p.y)),
    }
}

/// A unit as the receipt names it: his own by name, an enemy as the
/// identity policy says (`crate::identity`: "enemy B").
fn unit_name(id: UnitId, ctx: &ParseContext) -> String {
    ctx.call_unit(id)
}

fn degrees(d: f64) -> String {
    let k = d / 22.5;
    if (k - k.round()).abs() < 1e-9 {
        // A compass point exactly: named as reports name facings.
        return format!("{} ({}°)", crate::report::place::facing_point(d), num(d));
    }
    format!("{}°", num(d))
}

fn direction(d: &Direction, ctx: &ParseContext) -> String {
    match d {
        Direction::Degrees(x) => degrees(*x),
        Direction::Toward(p) => format!("toward {}", place(*p, ctx)),
        Direction::TowardUnit(u) => format!("toward {}", unit_name(*u, ctx)),
        Direction::About => "about".to_string(),
    }
}

fn formation(f: Formation) -> &'static str {
    match f {
        Formation::Line => "line",
        Formation::Column => "column",
        Formation::Skirmish => "skirmish order",
        Formation::CompanyColumn => "company column",
        Formation::EnMasse => "en masse",
        Formation::Limbered => "limbered",
        Formation::Unlimbered => "unlimbered",
    }
}

fn movement(verb: &str, m: &MoveOrder, ctx: &ParseContext) -> String {
    let mut s = String::from(verb);
    if m.gait == Gait::DoubleQuick {
        s.push_str(" at the double quick");
    }
    if m.backwards {
        s.push_str(" backwards");
    }
    if m.by_road {
        s.push_str(" by road");
    }
    for (i, p) in m.waypoints.iter().enumerate() {
        s.push_str(if i == 0 { " to " } else { ", then to " });
        s.push_str(&place(*p, ctx));
    }
    match m.formation {
        Some(Formation::EnMasse) => s.push_str(" en masse"),
        Some(f) => {
            s.push_str(" in ");
            s.push_str(formation(f));
        }
        None => {}
    }
    if m.fire_while_moving {
        s.push_str(", firing while advancing");
    }
    s
}

fn action(a: &Action, ctx: &ParseContext) -> String {
    match a {
        Action::Move(m) => movement("advance", m, ctx),
        Action::Retreat(m) => movement("retreat", m, ctx),
        Action::Charge { target, to, gait } => {
            let mut s = String::from("charge");
            if let Some(t) = target {
                s.push(' ');
                s.push_str(&unit_name(*t, ctx));
            }
            if let Some(p) = to {
                s.push_str(" toward ");
                s.push_str(&place(*p, ctx));
            }
            if *gait == Gait::DoubleQuick {
                s.push_str(" at the double quick");
            }
            s
        }
        Action::Form {
            formation: f,
            facing,
        } => {
            let mut s = format!("form {}", formation(*f));
            if let Some(d) = facing {
                s.push_str(" facing ");
                s.push_str(&direction(d, ctx));
            }
            s
        }
        Action::Face(Direction::About) => "about face".to_string(),
        Action::Face(d) => format!("face {}", direction(d, ctx)),
        Action::Fire(t) => format!("fire at {}", fire_target(t, ctx)),
        Action::FireWith { target, with } => {
            let names: Vec<String> = with.iter().map(|u| unit_name(*u, ctx)).collect();
            format!(
                "fire at {} together with {}",
                fire_target(target, ctx),
                and_list(&names)
            )
        }
        // One part only: the other castings hold their fire (V.F.2).
        Action::SplitFire { parts } if parts.len() == 1 => parts
            .iter()
            .map(|p| {
                format!(
                    "fire only {} at {}",
                    share(p.share),
                    fire_target(&p.target, ctx)
                )
            })
            .collect(),
        Action::SplitFire { parts } => {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| format!("{} at {}", share(p.share), fire_target(&p.target, ctx)))
                .collect();
            format!("split fire: {}", parts.join(", "))
        }
        Action::HoldFire => "hold fire".to_string(),
        Action::Hold => "hold".to_string(),
        Action::LieDown => "lie down".to_string(),
        Action::StandUp => "stand up".to_string(),
        Action::Limber => "limber".to_string(),
        Action::Unlimber { facing: None } => "unlimber".to_string(),
        Action::Unlimber { facing: Some(d) } => format!("unlimber facing {}", direction(d, ctx)),
        Action::Mount => "mount".to_string(),
        Action::Dismount => "dismount".to_string(),
        Action::Split { castings, new_name } => {
            format!("split off {castings} castings as {new_name}")
        }
        Action::Combine { with } => format!("combine with {}", unit_name(*with, ctx)),
        Action::ClearObstacle { obstacle } => obstacle.order_words().to_string(),
        Action::Pontoons { task } => task.order_words().to_string(),
        Action::Follow { unit, .. } => {
            format!("follow {}, keeping station on it", unit_name(*unit, ctx))
        }
    }
}

/// Whom a fire is aimed at, after "fire at".
fn fire_target(t: &FireTarget, ctx: &ParseContext) -> String {
    match t {
        FireTarget::AtWill => "will".to_string(),
        FireTarget::Unit(u) => unit_name(*u, ctx),
        FireTarget::NearestOf(arm) => format!(
            "the nearest enemy {}",
            match arm {
                Arm::Artillery | Arm::HorseArtillery => "battery",
                Arm::Cavalry => "cavalry",
                Arm::Infantry => "infantry",
            }
        ),
    }
}

/// A share of a split fire (APSoF V.F.2) in words.
fn share(s: FireShare) -> String {
    match s {
        FireShare::Castings(1) => "1 casting".to_string(),
        FireShare::Castings(n) => format!("{n} castings"),
        FireShare::Half => "half".to_string(),
        FireShare::Rest => "the rest".to_string(),
    }
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn steps(steps: &[Step], ctx: &ParseContext) -> String {
    let mut s = String::new();
    for (i, st) in steps.iter().enumerate() {
        if i > 0 {
            s.push_str(match st.trigger {
                Trigger::Then => "; then ",
                Trigger::OnArrival => "; on arrival ",
            });
        } else if st.trigger == Trigger::OnArrival {
            s.push_str("on arrival ");
        }
        s.push_str(&action(&st.action, ctx));
    }
    s
}

/// An order in canonical form for the receipt, e.g. "2nd Wisconsin:
/// advance to the Brawner farm (41, 30) in line; then fire at will".
pub fn normalise(item: &Item, ctx: &ParseContext) -> String {
    match item {
        Item::Unit {
            unit,
            follows_previous,
            steps: st,
            notes,
            ..
        } => {
            // "no change", "as before": nothing new is booked.
            if st.is_empty() {
                return format!(
                    "{}: no new order; it keeps its previous orders",
                    unit_name(*unit, ctx)
                );
            }
            let after = if *follows_previous {
                "after present orders, "
            } else {
                ""
            };
            let mut s = format!("{}: {after}{}", unit_name(*unit, ctx), steps(st, ctx));
            for n in notes {
                s.push_str(" — ");
                s.push_str(n);
            }
            s
        }
        Item::Officer { order, .. } => {
            let name = ctx
                .state
                .officer(order.officer)
                .map(|o| o.name.clone())
                .unwrap_or_else(|| format!("officer {}", order.officer.0));
            let gallop = if order.double_time {
                " at the gallop"
            } else {
                ""
            };
            // In contact with the unit he adds to its rally roll (APSoF
            // VI.E.2.ii): said, so "ride to the 27th and rally them" reads
            // back with what the rally part does.
            if let Some(u) = order.with_unit {
                let now = ctx
                    .state
                    .unit(u)
                    .map(|x| format!(", now at {}", place(x.position, ctx)))
                    .unwrap_or_default();
                return format!(
                    "{name}: ride with {}{gallop} (he goes where it goes this turn{now}; in contact he adds to its rally roll)",
                    unit_name(u, ctx)
                );
            }
            if order.waypoints.is_empty() {
                return format!("{name}: stay where he is");
            }
            let route: Vec<String> = order.waypoints.iter().map(|p| place(*p, ctx)).collect();
            format!("{name}: ride to {}{gallop}", route.join(", then to "))
        }
    }
}

/// What the receipt must say about an order besides reading it back
/// (issue #15): what the parser chose where the words fitted more than
/// one place; a destination off the table, and where the unit will stop
/// (docs/rulings.md, "The table edge": an ordered move goes only as far as
/// the edge); and a move whose route passes through an enemy his side has
/// seen, or ends behind one (as his side knows them: enemies in sight
/// where they are, others where last seen; never one it has not seen).
pub fn receipt_notes(item: &Item, ctx: &ParseContext) -> Vec<String> {
    let (span, text) = match item {
        Item::Unit { span, text, .. } | Item::Officer { span, text, .. } => (*span, text.as_str()),
    };
    let mut out = ctx.notes_for(span, text);
    let (start, frontage, legs): (Pos, f64, Vec<(Vec<Pos>, bool)>) = match item {
        Item::Unit { unit, steps, .. } => {
            let Some(u) = ctx.state.unit(*unit) else {
                return out;
            };
            let w = crate::rules::iron_brigade::geometry::footprint(u).frontage;
            let legs = steps
                .iter()
                .filter_map(|s| match &s.action {
                    Action::Move(m) => Some((m.waypoints.clone(), false)),
                    Action::Retreat(m) => Some((m.waypoints.clone(), true)),
                    Action::Charge { to: Some(p), .. } => Some((vec![*p], false)),
                    _ => None,
                })
                .collect();
            (u.position, w, legs)
        }
        Item::Officer { order, .. } => {
            let at = ctx
                .state
                .officer(order.officer)
                .map(|o| o.position)
                .unwrap_or_default();
            (at, 0.0, vec![(order.waypoints.clone(), false)])
        }
    };
    // Off the table.
    if let Some(t) = ctx.state.table {
        for (wps, _) in &legs {
            for p in wps {
                let q = t.clamp(*p);
                if q.distance(*p) > 1e-9 {
                    out.push(format!(
                        "{} is off the table ({}\" x {}\"); the move goes only as far as the table edge, to {}, and stops there",
                        place(*p, ctx),
                        num(t.width),
                        num(t.height),
                        place(q, ctx)
                    ));
                }
            }
        }
    }
    // Through or behind an enemy the side has seen.
    let Item::Unit { steps, unit, .. } = item else {
        return out;
    };
    // A step after a move the unit cannot finish this turn: said, so the
    // later step is not silently left unreached (the unit carries out its
    // steps in order, APSoF I.B.1; a move is at most its IV.G allowance a
    // turn, less in rough ground).
    if let Some(u) = ctx.state.unit(*unit)
        && let Some(k) = steps
            .iter()
            .position(|s| matches!(s.action, Action::Move(_) | Action::Retreat(_)))
        && k + 1 < steps.len()
        && let Some(Action::Move(m) | Action::Retreat(m)) = steps.get(k).map(|s| &s.action)
        && m.gait != crate::rules::iron_brigade::orders::Gait::DoubleQuick
    {
        let mut from = start;
        let mut length = 0.0;
        for p in &m.waypoints {
            length += from.distance(*p);
            from = *p;
        }
        let allowance = crate::rules::iron_brigade::movement::base_allowance(u, m.backwards, false);
        if length > allowance + 1e-9 {
            let turns = (length / allowance).ceil();
            out.push(format!(
                "the move is {}\" long and {} moves at most {}\" a turn (APSoF IV.G), so it takes {} turns or more: the steps after it wait until it has arrived, and are not carried out this turn",
                num(length),
                ctx.call_unit(u.id),
                num(allowance),
                num(turns)
            ));
        }
    }
    let seen = ctx.seen_enemies();
    // "Fire at the nearest Yankee regiment", "the rebel battery": kept as
    // written (the nearest of that arm in sight when the unit fires, APSoF
    // V.C), and the receipt says which enemy that is now, by the name the
    // player knows it by, so he can see whom it will be.
    let arm_of = |a: Arm| match a {
        Arm::Artillery | Arm::HorseArtillery => 0,
        Arm::Cavalry => 1,
        Arm::Infantry => 2,
    };
    for s in steps {
        let mut targets: Vec<Arm> = Vec::new();
        match &s.action {
            Action::Fire(FireTarget::NearestOf(a)) => targets.push(*a),
            Action::SplitFire { parts } => {
                targets.extend(parts.iter().filter_map(|p| match p.target {
                    FireTarget::NearestOf(a) => Some(a),
                    _ => None,
                }))
            }
            _ => {}
        }
        for a in targets {
            let nearest = seen
                .iter()
                .filter_map(|e| e.in_sight.map(|u| (e, u)))
                .filter(|(_, u)| arm_of(u.arm) == arm_of(a))
                .min_by(|x, y| {
                    x.1.position
                        .distance(start)
                        .total_cmp(&y.1.position.distance(start))
                });
            let what = fire_target(&FireTarget::NearestOf(a), ctx);
            let note = match nearest {
                Some((e, u)) => format!(
                    "{what} is now {}, at {}",
                    ctx.call_unit(e.id),
                    place(u.position, ctx)
                ),
                None => format!("{what}: none is in sight now"),
            };
            if !out.contains(&note) {
                out.push(note);
            }
        }
    }
    let (fx, fy) = crate::rules::iron_brigade::geometry::facing_vector(ctx.side_front());
    let mut from = start;
    for (wps, _) in &legs {
        for p in wps {
            for e in &seen {
                let half = e
                    .in_sight
                    .map(|u| crate::rules::iron_brigade::geometry::footprint(u).frontage / 2.0)
                    .unwrap_or(2.0);
                let where_ = if e.in_sight.is_some() {
                    format!("at {}", place(e.at, ctx))
                } else {
                    format!("last seen at {}", place(e.at, ctx))
                };
                let name = ctx.call_unit(e.id);
                // The enemy itself as the destination is meant.
                if p.distance(e.at) <= half + 0.5 {
                    continue;
                }
                let (t, d) = seg_param(from, *p, e.at);
                let ahead_of_start = (e.at.x - start.x) * fx + (e.at.y - start.y) * fy;
                let beyond = (p.x - e.at.x) * fx + (p.y - e.at.y) * fy;
                if t > 0.0 && t < 1.0 && d <= half + frontage / 2.0 {
                    out.push(format!(
                        "the route to {} goes through {name} ({where_}); the unit will stop where the rules stop it",
                        place(*p, ctx)
                    ));
                } else if ahead_of_start > 0.0
                    && beyond > 0.0
                    && t > 0.0
                    && t < 1.0
                    && d <= half + 6.0
                {
                    out.push(format!(
                        "{} lies behind {name} ({where_}), beyond the enemy's line as your side has seen it",
                        place(*p, ctx)
                    ));
                }
            }
            from = *p;
        }
    }
    out.dedup();
    out
}

/// Where along the segment a→b the point nearest `p` is (0 at a, 1 at b)
/// and how far `p` is from the segment.
fn seg_param(a: Pos, b: Pos, p: Pos) -> (f64, f64) {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    if len2 <= 1e-12 {
        return (0.0, a.distance(p));
    }
    let t = ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2;
    let tc = t.clamp(0.0, 1.0);
    let q = Pos::new(a.x + dx * tc, a.y + dy * tc);
    (t, q.distance(p))
}

/// When an order is expected to take effect, as far as it can be known when
/// it is read (APSoF I.C.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpectedTiming {
    /// The turn the unit starts on it, if obeyed without delay by the die.
    pub turn: u32,
    /// Inches from the issuing officer to the unit (0 for officers' moves).
    pub distance_inches: f64,
    /// The issuing officer is outside the unit's chain of command: a d6
    /// decides (1–4 obeyed, 5 one turn late, 6 ignored).
    pub subject_to_roll: bool,
    /// Carried by a messenger (SFRM courier orders option, beyond 24"):
    /// `turn` is then the estimate for a unit that stays where it is.
    pub by_courier: bool,
}

impl std::fmt::Display for ExpectedTiming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.by_courier {
            return write!(
                f,
                "goes by courier (the unit is beyond 24\"); takes effect the turn after the messenger reaches it, about turn {}",
                self.turn
            );
        }
        write!(f, "takes effect on turn {}", self.turn)?;
        if self.subject_to_roll {
            write!(
                f,
                " if obeyed (subject to a roll: the officer is outside the unit's chain of command)"
            )?;
        }
        Ok(())
    }
}

/// The turn an order should take effect (APSoF I.C.1): the delay by the
/// issuing officer's distance from the unit now — within 12" this turn,
/// 12–24" next turn, beyond 24" two turns on. An officer outside the unit's
/// chain of command is marked subject to a roll. Officers' own moves take
/// effect at once (APSoF IV.D). Ruling: the distance is measured centre to
/// centre, from the officer's and the unit's positions when the order is
/// read.
pub fn expected_effective_turn(item: &Item, ctx: &ParseContext) -> ExpectedTiming {
    match item {
        Item::Officer { .. } => ExpectedTiming {
            turn: ctx.turn,
            distance_inches: 0.0,
            subject_to_roll: false,
            by_courier: false,
        },
        Item::Unit {
            unit, issued_by, ..
        } => {
            let (Some(u), Some(o)) = (ctx.state.unit(*unit), ctx.state.officer(*issued_by)) else {
                return ExpectedTiming {
                    turn: ctx.turn,
                    distance_inches: 0.0,
                    subject_to_roll: true,
                    by_courier: false,
                };
            };
            let d = u.position.distance(o.position);
            let delay = distance_delay(d).unwrap_or(2);
            let subject_to_roll = !ctx.state.in_chain_of_command(*unit, *issued_by);
            // SFRM courier orders (scenario option): from within the chain
            // to a unit beyond 24", a messenger carries it; he rides in the
            // turn it is written and the unit starts the turn after he
            // arrives (the engine measures to the footprint; this is the
            // receipt's estimate).
            let by_courier = ctx.state.options.courier_orders
                && !subject_to_roll
                && d > crate::rules::iron_brigade::turn::orders::COURIER_BEYOND;
            let turn = if by_courier {
                let ride = ctx.state.scale().turns_to_deliver(d).max(1);
                ctx.turn + ride
            } else {
                ctx.turn + u32::from(delay)
            };
            ExpectedTiming {
                turn,
                distance_inches: d,
                subject_to_roll,
                by_courier,
            }
        }
    }
}
