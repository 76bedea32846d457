//! APSoF VIII.E moats and ditches (optional rule `moats`): "Only infantry
//! units may cross moats or ditches. They take 1 complete turn to cross."
//! Our reading (docs/rulings.md): a move stops on reaching a moat; the next
//! turn's move, starting at it, is the crossing and ends on the far side.

use adjutant::rules::iron_brigade::geometry::footprint;
use adjutant::rules::iron_brigade::kinds::LineKind;
use adjutant::rules::iron_brigade::movement::{MoveIntent, StopReason, TerrainType, plan_move};
use adjutant::rules::iron_brigade::state::{BattleState, LineFeature, Pos, Unit, UnitId};

/// A ditch across the table along y = 4.
fn field(unit: Unit) -> BattleState {
    let mut s = BattleState {
        units: vec![unit],
        ..BattleState::default()
    };
    s.terrain.lines.push(LineFeature {
        name: "the ditch".into(),
        kind: LineKind::Moat,
        path: vec![Pos::new(-30.0, 4.0), Pos::new(30.0, 4.0)],
        water: None,
    });
    s
}

#[test]
fn viii_e_infantry_stops_at_the_moat_then_crosses_in_a_whole_turn() {
    let mut s = field(Unit::infantry(
        1,
        "2nd Wisconsin",
        0,
        20,
        Pos::new(0.0, 0.0),
        0.0,
    ));
    let goal = MoveIntent::to(Pos::new(0.0, 20.0));
    let first = plan_move(&s, UnitId(1), &goal).unwrap();
    assert_eq!(first.stop, StopReason::MoatReached);
    assert!(first.end.y < 4.0, "{:?}", first.end);

    // Turn two: it starts at the ditch; crossing it is the move.
    s.units[0].position = first.end;
    let second = plan_move(&s, UnitId(1), &goal).unwrap();
    assert_eq!(second.stop, StopReason::MoatCrossed);
    s.units[0].position = second.end;
    let fp = footprint(&s.units[0]);
    let rear = fp.centre.y - fp.depth / 2.0;
    assert!(rear > 4.0, "wholly across: rear edge at {rear}");
    assert!(
        second.distance < 7.0,
        "less than a full move: {}",
        second.distance
    );

    // Turn three: clear of it, a full move again.
    let third = plan_move(&s, UnitId(1), &goal).unwrap();
    assert!((third.distance - 7.0).abs() < 1e-6, "{}", third.distance);
}

#[test]
fn viii_e_only_infantry_crosses() {
    let mut horse = Unit::cavalry(1, "1st Michigan", 0, 12, Pos::new(0.0, -8.0), 0.0);
    horse.mounted = true;
    let s = field(horse);
    let out = plan_move(&s, UnitId(1), &MoveIntent::to(Pos::new(0.0, 20.0))).unwrap();
    assert_eq!(out.stop, StopReason::Forbidden(TerrainType::Moat));
}

#[test]
fn viii_e_a_moat_needs_the_option() {
    let text = std::fs::read_to_string("scenarios/training.toml").unwrap();
    let with_moat = format!(
        "{text}\n[[terrain.lines]]\nkind = \"moat\"\nname = \"the ditch\"\npoints = [[10, 10], [14, 10]]\n"
    );
    let err = adjutant::scenario::Scenario::from_toml_str(&with_moat, "moat.toml")
        .expect_err("a moat without the option");
    assert!(err.to_string().contains("moats = true"), "{err}");
    let on = with_moat.replace("[options]", "[options]\nmoats = true");
    adjutant::scenario::Scenario::from_toml_str(&on, "moat.toml").expect("with the option");
}
