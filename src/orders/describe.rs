//! An order "as read": the engine's form of a written order
//! ([`UnitOrder`] / [`OfficerMove`]) put back into short words, so the
//! archive can show beside each paragraph what Adjutant understood, and
//! reports and captured dispatches can say what an order was. Unit ids are
//! named through `name_of`: the caller decides what its reader may know.

use crate::report::place::{coords, facing_point};
use crate::rules::iron_brigade::orders::{
    Action, Direction, FireShare, FireTarget, Gait, MoveOrder, OfficerMove, Trigger, UnitOrder,
};
use crate::rules::iron_brigade::state::UnitId;

/// `parsed_json` of an order row in words; the JSON itself when it is
/// neither a unit order nor an officer's move.
pub fn describe_parsed(json: &str, name_of: &dyn Fn(UnitId) -> String) -> String {
    if let Ok(o) = serde_json::from_str::<UnitOrder>(json) {
        return describe_unit_order(&o, name_of);
    }
    if let Ok(m) = serde_json::from_str::<OfficerMove>(json) {
        return describe_officer_move(&m);
    }
    json.to_string()
}

pub fn describe_unit_order(o: &UnitOrder, name_of: &dyn Fn(UnitId) -> String) -> String {
    let mut out = String::new();
    if o.follows_previous {
        out.push_str("after the pending orders: ");
    }
    for (i, step) in o.steps.iter().enumerate() {
        if i > 0 {
            out.push_str(match step.trigger {
                Trigger::Then => "; then ",
                Trigger::OnArrival => "; on arrival ",
            });
        }
        out.push_str(&action(&step.action, name_of));
    }
    if o.steps.is_empty() {
        out.push_str("(no steps)");
    }
    out
}

pub fn describe_officer_move(m: &OfficerMove) -> String {
    if let Some(u) = m.with_unit {
        return format!(
            "ride with unit {}{}",
            u.0,
            if m.double_time { " at double time" } else { "" }
        );
    }
    format!(
        "ride to {}{}",
        waypoints(&m.waypoints),
        if m.double_time { " at double time" } else { "" }
    )
}

fn waypoints(w: &[crate::rules::iron_brigade::state::Pos]) -> String {
    if w.is_empty() {
        return "nowhere".to_string();
    }
    w.iter()
        .map(|p| format!("({})", coords(*p)))
        .collect::<Vec<_>>()
        .join(" via ")
}

fn direction(d: &Direction, name_of: &dyn Fn(UnitId) -> String) -> String {
    match d {
        Direction::Degrees(deg) => format!("{} ({deg:.0}°)", facing_point(*deg)),
        Direction::Toward(p) => format!("toward ({})", coords(*p)),
        Direction::TowardUnit(u) => format!("toward {}", name_of(*u)),
        Direction::About => "about".to_string(),
    }
}

fn movement(verb: &str, m: &MoveOrder) -> String {
    let mut s = format!("{verb} to {}", waypoints(&m.waypoints));
    if m.by_road {
        s.push_str(" by road");
    }
    if let Some(f) = m.formation {
        s.push_str(&format!(" in {}", f.as_str().replace('-', " ")));
    }
    if m.gait == Gait::DoubleQuick {
        s.push_str(" at the double quick");
    }
    if m.fire_while_moving {
        s.push_str(", firing");
    }
    if m.backwards {
        s.push_str(", backwards");
    }
    s
}

fn share_words(share: FireShare) -> String {
    match share {
        FireShare::Castings(n) => format!("{n} castings"),
        FireShare::Half => "half".to_string(),
        FireShare::Rest => "the rest".to_string(),
    }
}

fn fire_target(t: &FireTarget, name_of: &dyn Fn(UnitId) -> String) -> String {
    match t {
        FireTarget::AtWill => "will".to_string(),
        FireTarget::Unit(u) => name_of(*u),
        FireTarget::NearestOf(arm) => format!("the nearest {}", arm.as_str().replace('-', " ")),
    }
}

fn action(a: &Action, name_of: &dyn Fn(UnitId) -> String) -> String {
    match a {
        Action::Move(m) => movement("move", m),
        Action::Retreat(m) => movement("retreat", m),
        Action::Charge { target, to, gait } => {
            let mut s = "charge".to_string();
            if let Some(t) = target {
                s.push_str(&format!(" {}", name_of(*t)));
            }
            if let Some(p) = to {
                s.push_str(&format!(" toward ({})", coords(*p)));
            }
            if *gait == Gait::DoubleQuick {
                s.push_str(" at the double quick");
            }
            s
        }
        Action::Form { formation, facing } => {
            let mut s = format!("form {}", formation.as_str().replace('-', " "));
            if let Some(d) = facing {
                s.push_str(&format!(" facing {}", direction(d, name_of)));
            }
            s
        }
        Action::Face(d) => format!("face {}", direction(d, name_of)),
        Action::Fire(t) => format!("fire at {}", fire_target(t, name_of)),
        Action::FireWith { target, with } => {
            let names: Vec<String> = with.iter().map(|u| name_of(*u)).collect();
            format!(
                "fire at {} together with {}",
                fire_target(target, name_of),
                names.join(", ")
            )
        }
        Action::SplitFire { parts } if parts.len() == 1 => {
            let p = &parts[0];
            format!(
                "fire only {} at {}",
                share_words(p.share),
                fire_target(&p.target, name_of)
            )
        }
        Action::SplitFire { parts } => {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| {
                    format!(
                        "{} at {}",
                        share_words(p.share),
                        fire_target(&p.target, name_of)
                    )
                })
                .collect();
            format!("split fire: {}", parts.join(", "))
        }
        Action::HoldFire => "hold fire".to_string(),
        Action::Hold => "hold".to_string(),
        Action::LieDown => "lie down".to_string(),
        Action::StandUp => "stand up".to_string(),
        Action::Limber => "limber".to_string(),
        Action::Unlimber { facing } => match facing {
            Some(d) => format!("unlimber facing {}", direction(d, name_of)),
            None => "unlimber".to_string(),
        },
        Action::Mount => "mount".to_string(),
        Action::Dismount => "dismount".to_string(),
        Action::Split { castings, new_name } => {
            format!("split off {castings} castings as {new_name}")
        }
        Action::Combine { with } => format!("combine with {}", name_of(*with)),
        Action::ClearObstacle { obstacle } => obstacle.order_words().to_string(),
        Action::Pontoons { task } => task.order_words().to_string(),
        Action::Follow { unit, .. } => format!("follow {}", name_of(*unit)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::iron_brigade::kinds::Formation;
    use crate::rules::iron_brigade::orders::Step;
    use crate::rules::iron_brigade::state::{OfficerId, Pos};

    #[test]
    fn a_two_step_order_reads_as_words() {
        let o = UnitOrder {
            id: 1,
            unit: UnitId(1),
            issued_by: OfficerId(1),
            issued_turn: 1,
            follows_previous: false,
            steps: vec![
                Step {
                    trigger: Trigger::Then,
                    action: Action::Move(MoveOrder {
                        waypoints: vec![Pos::new(10.0, 20.0)],
                        by_road: false,
                        formation: Some(Formation::Line),
                        gait: Gait::March,
                        fire_while_moving: false,
                        backwards: false,
                    }),
                },
                Step {
                    trigger: Trigger::OnArrival,
                    action: Action::Fire(FireTarget::Unit(UnitId(2))),
                },
            ],
        };
        let json = serde_json::to_string(&o).unwrap();
        let name = |u: UnitId| format!("unit {}", u.0);
        assert_eq!(
            describe_parsed(&json, &name),
            "move to (10.0, 20.0) in line; on arrival fire at unit 2"
        );
    }
}
