//! Turning a validated scenario into a game: the rules' opening
//! [`BattleState`] and the store's [`NewGame`].
//!
//! Both conversions are pure; the edge ([`super::create_from_file`]) supplies
//! the file text, the clock, the game seed and the players' secrets.

use super::GameError;
use super::snapshot::Snapshot;
use crate::rules::iron_brigade::kinds::Formation;
use crate::rules::iron_brigade::state::{
    self as st, BattleState, OfficerId, OfficerStatus, Pos, Ranks, SideId, UnitId,
};
use crate::scenario::{self, Scenario, Strength};
use crate::store::{NewGame, NewOfficer, NewPlayer, NewUnit};
use serde::Serialize;
use std::collections::BTreeMap;

/// Feet of real height per table inch at Iron Brigade scale (1" = 25 yd).
const FEET_PER_TABLE_INCH: f64 = 75.0;

/// Players' time zone when the scenario names none.
const DEFAULT_TIME_ZONE: &str = "UTC";

/// The opening battle state of a scenario (turn 1).
///
/// Ids follow scenario order (sides from 0, units and officers from 1), so
/// the same scenario always gives the same state, byte for byte.
pub fn battle_state_from_scenario(s: &Scenario) -> BattleState {
    let side_ids: BTreeMap<&str, SideId> = s
        .sides
        .iter()
        .enumerate()
        .map(|(i, side)| {
            (
                side.name.as_str(),
                SideId(u8::try_from(i).unwrap_or(u8::MAX)),
            )
        })
        .collect();
    let side_of = |name: &str| side_ids.get(name).copied().unwrap_or(SideId(u8::MAX));
    let officer_ids: BTreeMap<&str, OfficerId> = s
        .officers
        .iter()
        .enumerate()
        .map(|(i, o)| (o.name.as_str(), OfficerId(index_id(i))))
        .collect();
    let officer_id = |name: &str| officer_ids.get(name).copied();

    let officers = s
        .officers
        .iter()
        .enumerate()
        .map(|(i, o)| st::Officer {
            id: OfficerId(index_id(i)),
            name: o.name.clone(),
            side: side_of(&o.side),
            level: o.level,
            rating: o.rating,
            command_class: o.command_class,
            position: pos(o.position),
            mounted: o.mounted,
            superior: o.superior.as_deref().and_then(officer_id),
            status: OfficerStatus::Active,
            hit_this_turn: false,
            succession: st::Succession::default(),
        })
        .collect();

    let units = s
        .units
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let (castings, guns) = match u.strength {
                Strength::Castings(c) => (c, 0),
                Strength::Battery { guns, crew } => (crew, guns),
            };
            st::Unit {
                id: UnitId(index_id(i)),
                name: u.name.clone(),
                side: side_of(&u.side),
                arm: u.arm,
                weapon: u.weapon,
                castings,
                guns,
                base_morale: u.base_morale,
                combat_morale: u.base_morale,
                formation: u.formation,
                formed_ranks: opening_ranks(u.formation),
                position: pos(u.position),
                facing: u.facing.degrees(),
                lying_down: false,
                mounted: u.mounted,
                commander: officer_id(&u.commander),
                first_fire_done: false,
                broken: false,
                retreating: false,
                entrenched: false,
                heavy_equipment: u.heavy_equipment,
                legion: u.legion.clone(),
                marks: st::UnitMarks::default(),
            }
        })
        .collect();

    BattleState {
        turn: 1,
        sides: s
            .sides
            .iter()
            .map(|side| st::Side {
                id: side_of(&side.name),
                name: side.name.clone(),
            })
            .collect(),
        units,
        officers,
        terrain: terrain(s, &side_of),
        options: options(&s.options),
        replacements: Vec::new(),
        table: Some(st::TableSize {
            width: s.table.width,
            height: s.table.height,
        }),
        scale: scale(s),
        sfrm: Default::default(),
    }
}

/// Ids start at 1 so that 0 never names a real piece in logs.
fn index_id(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

fn pos(p: scenario::Point) -> Pos {
    Pos::new(p.x, p.y)
}

/// A line is drawn up two ranks deep (APSoF III.G.1: "usually arranged 2
/// ranks deep"); skirmishers are open order, half a rank (III.E.1).
fn opening_ranks(formation: Formation) -> Ranks {
    match formation {
        Formation::Skirmish => Ranks::Half,
        _ => Ranks::Two,
    }
}

fn terrain(s: &Scenario, side_of: &dyn Fn(&str) -> SideId) -> st::Terrain {
    let name_or = |name: &Option<String>, kind: &dyn std::fmt::Display, i: usize| {
        name.clone().unwrap_or_else(|| format!("{kind} {}", i + 1))
    };
    let mut fords = Vec::new();
    let mut pontoons = Vec::new();
    let lines = s
        .terrain
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let name = name_or(&l.name, &l.kind, i);
            if let Some(w) = &l.water {
                // APSoF IV.E.2: the boats at this stream.
                for (j, p) in w.pontoons.iter().enumerate() {
                    pontoons.push(st::Pontoons {
                        name: if w.pontoons.len() > 1 {
                            format!("{name} pontoons {}", j + 1)
                        } else {
                            format!("{name} pontoons")
                        },
                        stream: name.clone(),
                        side: side_of(&p.side),
                        boats: p.boats,
                        position: pos(p.at),
                        water: p.water_inches,
                        afloat: !p.on_wagons,
                        train: p.train.as_deref().and_then(|t| {
                            s.units
                                .iter()
                                .position(|u| u.name == t)
                                .map(|i| UnitId(index_id(i)))
                        }),
                    });
                }
                for (j, f) in w.fords.iter().enumerate() {
                    fords.push(st::Ford {
                        name: format!("{name} ford {}", j + 1),
                        position: pos(f.at),
                        depth_in: f.depth_inches,
                    });
                }
            }
            st::LineFeature {
                name,
                kind: l.kind,
                path: l.points.iter().copied().map(pos).collect(),
                water: l.water.as_ref().map(|w| st::StreamWater {
                    depth_in: w.depth_inches,
                    current: match w.current {
                        scenario::Current::Strong => st::Current::Strong,
                        scenario::Current::Weak | scenario::Current::None => {
                            st::Current::WeakOrNone
                        }
                    },
                }),
            }
        })
        .collect();
    st::Terrain {
        areas: s
            .terrain
            .areas
            .iter()
            .enumerate()
            .map(|(i, a)| st::Area {
                name: name_or(&a.name, &a.kind, i),
                kind: a.kind,
                outline: a.points.iter().copied().map(pos).collect(),
            })
            .collect(),
        lines,
        fords,
        hills: s
            .terrain
            .contours
            .iter()
            .enumerate()
            .map(|(i, c)| st::Hill {
                name: name_or(&c.name, &"hill", i),
                outline: c.points.iter().copied().map(pos).collect(),
                height: c.height_feet / FEET_PER_TABLE_INCH,
            })
            .collect(),
        landmarks: s
            .landmarks
            .iter()
            .map(|l| st::Landmark {
                name: l.name.clone(),
                position: pos(l.at),
            })
            .collect(),
        cleared: Vec::new(),
        pontoons,
    }
}

fn options(o: &scenario::Options) -> st::Options {
    st::Options {
        hidden_movement: o.is_on("hidden-movement"),
        cannon_weights: o.is_on("cannon-weights"),
        advanced_organization: o.is_on("split-units"),
        regimental_command: o.is_on("regimental-command-loss"),
        horse_vs_mounted_artillery: o.is_on("horse-vs-mounted-artillery"),
        skirmishers: o.is_on("skirmishers"),
        // VII.H snipers have no scenario key: the sniper chart is a weapon
        // (XIII), available to any scenario, and a unit armed with it
        // shoots at mounted officers when firing at will (turn::fire).
        snipers: false,
        alternate_fire: o.is_on("alternate-fire-tables"),
        sfrm_officer_casualties: o.is_on("sfrm-officer-casualties"),
        courier_orders: o.is_on("courier-orders"),
    }
}

/// The scenario's scale when it is not Iron Brigade's (which the state
/// assumes when none is given), for SFRM messengers' speed.
fn scale(s: &Scenario) -> Option<crate::rules::sfrm::Scale> {
    let ib = crate::rules::sfrm::Scale::IRON_BRIGADE;
    if s.yards_per_inch == ib.yards_per_inch && s.minutes_per_turn == ib.minutes_per_turn {
        None
    } else {
        crate::rules::sfrm::Scale::new(s.yards_per_inch, s.minutes_per_turn).ok()
    }
}

/// A player's one-time secret, shown once at creation and never stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayerSecret {
    pub name: String,
    pub side: String,
    pub addresses: Vec<String>,
    pub secret: String,
}

/// What `adjutant game create` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CreatedGame {
    pub name: String,
    pub scenario_name: String,
    pub players: Vec<PlayerSecret>,
    /// With a roster: the players it did not name, who keep the scenario's
    /// addresses.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_in_roster: Vec<String>,
}

/// The store's record of a new game. `secret_for` gives each player's
/// (secret, Argon2 hash); the hash is stored, the secret returned once.
pub fn new_game(
    s: &Scenario,
    scenario_toml: &str,
    name: &str,
    seed: [u8; 32],
    now: i64,
    mut secret_for: impl FnMut(&scenario::Player) -> Result<(String, String), GameError>,
) -> Result<(NewGame, CreatedGame), GameError> {
    // The game keeps its scenario's ruleset for life (`games.ruleset`).
    let ruleset = crate::rulesets::require_by_mail(
        crate::rulesets::ruleset_of_scenario(scenario_toml)?.id(),
    )?
    .id();
    let state = battle_state_from_scenario(s);
    state.validate()?;
    let mut players = Vec::new();
    let mut secrets = Vec::new();
    for p in &s.players {
        let (secret, hash) = secret_for(p)?;
        players.push(NewPlayer {
            name: p.name.clone(),
            side: p.side.clone(),
            addresses: p.addresses.clone(),
            secret_hash: hash,
            time_zone: p
                .time_zone
                .clone()
                .unwrap_or_else(|| DEFAULT_TIME_ZONE.to_string()),
            officers: p.officers.clone(),
        });
        secrets.push(PlayerSecret {
            name: p.name.clone(),
            side: p.side.clone(),
            addresses: p.addresses.clone(),
            secret,
        });
    }
    let game = NewGame {
        name: name.to_string(),
        ruleset: ruleset.to_string(),
        scenario_name: s.name.clone(),
        scenario_toml: scenario_toml.to_string(),
        seed,
        created_at: now,
        umpire_address: s.umpire.clone(),
        settings_json: "{}".to_string(),
        sides: s.sides.iter().map(|x| x.name.clone()).collect(),
        players,
        officers: s
            .officers
            .iter()
            .enumerate()
            .map(|(i, o)| NewOfficer {
                rules_id: index_id(i),
                name: o.name.clone(),
                side: o.side.clone(),
                level: o.level,
                rating: o.rating,
                command_class: o.command_class,
                superior: o.superior.clone(),
            })
            .collect(),
        units: s
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| NewUnit {
                rules_id: index_id(i),
                name: u.name.clone(),
                aliases: u.aliases.clone(),
                side: u.side.clone(),
                arm: u.arm,
                weapon: u.weapon,
                commander: u.commander.clone(),
            })
            .collect(),
        initial_state_json: Snapshot::opening(state)
            .to_json()
            .map_err(GameError::State)?,
        first_deadline_at: None,
        grace_secs: 0,
    };
    Ok((
        game,
        CreatedGame {
            name: name.to_string(),
            scenario_name: s.name.clone(),
            players: secrets,
            not_in_roster: Vec::new(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn training() -> (Scenario, String) {
        let text = include_str!("../../scenarios/training.toml");
        (
            Scenario::from_toml_str(text, "training.toml").unwrap(),
            text.to_string(),
        )
    }

    #[test]
    fn same_scenario_gives_byte_identical_opening_state() {
        let (s, _) = training();
        let a = battle_state_from_scenario(&s);
        let b = battle_state_from_scenario(&s);
        assert_eq!(a.canonical_json(), b.canonical_json());
        a.validate().unwrap();
        assert_eq!(a.turn, 1);
        assert_eq!(a.units.len(), s.units.len());
        assert_eq!(a.officers.len(), s.officers.len());
        // Every unit starts at full morale under a known commander.
        for u in &a.units {
            assert_eq!(u.combat_morale, u.base_morale, "{}", u.name);
            assert!(u.commander.is_some(), "{}", u.name);
        }
    }

    #[test]
    fn batteries_keep_guns_and_crew() {
        let (s, _) = training();
        let state = battle_state_from_scenario(&s);
        let batteries: Vec<_> = state
            .units
            .iter()
            .filter(|u| u.arm.is_artillery())
            .collect();
        assert!(!batteries.is_empty());
        for b in batteries {
            assert!(b.guns > 0 && b.castings == b.guns, "{}", b.name);
        }
    }

    #[test]
    fn new_game_keeps_hashes_not_secrets() {
        let (s, text) = training();
        let (game, created) = new_game(&s, &text, "t", [7; 32], 1_000, |p| {
            Ok((format!("secret-{}", p.name), format!("hash-{}", p.name)))
        })
        .unwrap();
        assert_eq!(game.players.len(), created.players.len());
        for (p, c) in game.players.iter().zip(&created.players) {
            assert_eq!(p.secret_hash, format!("hash-{}", p.name));
            assert_eq!(c.secret, format!("secret-{}", p.name));
        }
        let snap = Snapshot::from_json(&game.initial_state_json).unwrap();
        assert_eq!(snap.battle, battle_state_from_scenario(&s));
        assert!(snap.book.units.is_empty());
        for (i, u) in game.units.iter().enumerate() {
            assert_eq!(snap.battle.units[i].id.0, u.rules_id);
            assert_eq!(snap.battle.units[i].name, u.name);
        }
    }
}
