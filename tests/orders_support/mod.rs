//! Shared set-up for the order-parser tests: a real scenario file turned
//! into the battle state, aliases and player officers the lead's code
//! passes to the parser.

#![allow(dead_code)]

use adjutant::game::battle_state_from_scenario;
use adjutant::orders::{ParseContext, ParsedMail, parse_mail, scenario_aliases};
use adjutant::rules::iron_brigade::state::{BattleState, OfficerId, Pos, SideId, UnitId};
use adjutant::scenario::{self, Scenario};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

pub struct Game {
    pub scenario: Scenario,
    pub state: BattleState,
    pub aliases: BTreeMap<String, UnitId>,
    pub places: BTreeMap<String, Pos>,
}

pub fn game(file: &str) -> Game {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    let scenario = scenario::load(&path).unwrap();
    let state = battle_state_from_scenario(&scenario);
    let (aliases, places) = scenario_aliases(&scenario, &state);
    Game {
        scenario,
        state,
        aliases,
        places,
    }
}

impl Game {
    pub fn unit(&self, name: &str) -> UnitId {
        self.state
            .units
            .iter()
            .find(|u| u.name == name)
            .unwrap_or_else(|| panic!("no unit {name}"))
            .id
    }

    pub fn officer(&self, name: &str) -> OfficerId {
        self.state
            .officers
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("no officer {name}"))
            .id
    }

    pub fn landmark(&self, name: &str) -> Pos {
        self.state
            .terrain
            .landmarks
            .iter()
            .find(|l| l.name == name)
            .unwrap_or_else(|| panic!("no landmark {name}"))
            .position
    }

    /// The context for the player who plays `officers`, seeing `visible`.
    pub fn ctx(&self, officers: &[&str], visible: &[&str]) -> ParseContext<'_> {
        let player_officers: Vec<OfficerId> = officers.iter().map(|o| self.officer(o)).collect();
        let side = self
            .state
            .officer(player_officers[0])
            .map(|o| o.side)
            .unwrap_or(SideId(0));
        ParseContext {
            state: &self.state,
            side,
            player_officers,
            visible_enemies: visible
                .iter()
                .map(|v| self.unit(v))
                .collect::<BTreeSet<_>>(),
            // The grammar's tests name the enemy: identities known.
            enemy_names: adjutant::identity::EnemyNames::new(
                adjutant::identity::IdentityPolicy::Known,
            ),
            yards_per_inch: self.scenario.yards_per_inch,
            turn: 3,
            aliases: self.aliases.clone(),
            place_aliases: self.places.clone(),
            cache: Default::default(),
        }
    }
}

/// The Union player of the training scenario, seeing two enemy units.
pub fn blue(g: &Game) -> ParseContext<'_> {
    g.ctx(&["Colonel Hale"], &["5th Tennessee", "Ridley's Battery"])
}

pub fn parse(ctx: &ParseContext, text: &str) -> ParsedMail {
    parse_mail(text, ctx)
}
