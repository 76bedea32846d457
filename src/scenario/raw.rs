//! The scenario file as written, before validation.
//!
//! Every field is optional and every closed vocabulary (weapon, arm, ...) is a
//! plain string here, so that a missing or misspelt value becomes one
//! [`Problem`](super::Problem) among many instead of stopping serde at the
//! first. Unknown keys are found separately by walking the document (see
//! `spans.rs`), because `deny_unknown_fields` would also stop at the first.

use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawScenario {
    pub scenario: RawHeader,
    pub table: RawTable,
    pub terrain: RawTerrain,
    pub landmarks: Vec<RawLandmark>,
    pub sides: Vec<RawSide>,
    pub players: Vec<RawPlayer>,
    pub officers: Vec<RawOfficer>,
    pub units: Vec<RawUnit>,
    pub objectives: Vec<RawObjective>,
    pub options: BTreeMap<String, toml::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawHeader {
    pub name: Option<String>,
    pub description: Option<String>,
    pub yards_per_inch: Option<f64>,
    pub minutes_per_turn: Option<f64>,
    pub start: Option<String>,
    pub time_zone: Option<String>,
    pub utc_offset: Option<String>,
    pub last_turn: Option<i64>,
    pub umpire: Option<String>,
    pub identities: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawTable {
    pub width: Option<f64>,
    pub height: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawTerrain {
    pub areas: Vec<RawArea>,
    pub lines: Vec<RawLine>,
    pub contours: Vec<RawContour>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawArea {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub points: Vec<Vec<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawLine {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub points: Vec<Vec<f64>>,
    pub depth_inches: Option<f64>,
    pub current: Option<String>,
    pub fords: Vec<RawFord>,
    pub pontoons: Vec<RawPontoons>,
}

/// Pontoon boats at a stream (APSoF IV.E.2).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawPontoons {
    pub side: Option<String>,
    pub at: Option<Vec<f64>>,
    pub boats: Option<i64>,
    pub water_inches: Option<f64>,
    pub on_wagons: Option<bool>,
    pub train: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawFord {
    pub at: Option<Vec<f64>>,
    pub depth_inches: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawContour {
    pub name: Option<String>,
    pub height_feet: Option<f64>,
    pub points: Vec<Vec<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawLandmark {
    pub name: Option<String>,
    pub aliases: Vec<String>,
    pub at: Option<Vec<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawSide {
    pub name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawPlayer {
    pub name: Option<String>,
    pub side: Option<String>,
    pub addresses: Vec<String>,
    pub time_zone: Option<String>,
    pub officers: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawOfficer {
    pub name: Option<String>,
    pub side: Option<String>,
    pub level: Option<String>,
    pub rating: Option<String>,
    pub command_class: Option<String>,
    pub mounted: Option<bool>,
    pub position: Option<Vec<f64>>,
    pub superior: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawUnit {
    pub name: Option<String>,
    pub aliases: Vec<String>,
    pub side: Option<String>,
    pub arm: Option<String>,
    pub castings: Option<i64>,
    pub guns: Option<i64>,
    pub crew: Option<i64>,
    pub weapon: Option<String>,
    pub morale: Option<String>,
    pub base_morale: Option<i64>,
    pub formation: Option<String>,
    pub position: Option<Vec<f64>>,
    pub facing: Option<toml::Value>,
    pub commander: Option<String>,
    pub mounted: Option<bool>,
    pub legion: Option<String>,
    pub heavy_equipment: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawObjective {
    pub name: Option<String>,
    pub landmark: Option<String>,
    pub at: Option<Vec<f64>>,
    pub radius: Option<f64>,
    pub points: Option<i64>,
    pub side: Option<String>,
    pub turn: Option<i64>,
}
