//! Every validation rule of the scenario format, each against a small
//! scenario that breaks exactly that rule (docs/scenario-format.md).

use adjutant::scenario::{self, Problem, Scenario, ScenarioError};
use std::path::Path;

/// A minimal valid scenario. Tests edit one line of it to break one rule.
const BASE: &str = r#"
[scenario]
name = "Test"
start = "1862-08-28T18:30"
time_zone = "America/New_York"
last_turn = 10

[table]
width = 48
height = 36

[[terrain.areas]]
kind = "woods"
points = [[1, 1], [5, 1], [5, 5]]

[[landmarks]]
name = "the mill"
at = [10, 10]

[[sides]]
name = "Union"

[[sides]]
name = "Confederate"

[[players]]
name = "Blue"
side = "Union"
addresses = ["blue@example.test"]
officers = ["Hale"]

[[players]]
name = "Grey"
side = "Confederate"
addresses = ["grey@example.test"]
officers = ["Pryor"]

[[officers]]
name = "Hale"
side = "Union"
level = "brigade"
rating = "normal"
command_class = "regular"
position = [24, 4]

[[officers]]
name = "Pryor"
side = "Confederate"
level = "brigade"
rating = "good"
command_class = "regular"
position = [24, 32]

[[units]]
name = "10th Ohio"
side = "Union"
arm = "infantry"
castings = 18
weapon = "rifled-musket"
morale = "regular"
formation = "line"
position = [24, 8]
facing = "north"
commander = "Hale"

[[units]]
name = "Ridley's Battery"
side = "Confederate"
arm = "artillery"
guns = 4
crew = 4
weapon = "6pdr-gun"
morale = "regular"
formation = "limbered"
position = [20, 30]
facing = 180
commander = "Pryor"

[[objectives]]
landmark = "the mill"
radius = 3
points = 5
side = "Union"

[options]
skirmishers = true
"#;

/// BASE with `from` replaced by `to` (which must occur exactly once).
fn edit(from: &str, to: &str) -> String {
    assert_eq!(
        BASE.matches(from).count(),
        1,
        "`{from}` must occur once in BASE"
    );
    BASE.replacen(from, to, 1)
}

fn problems(text: &str) -> Vec<Problem> {
    match Scenario::from_toml_str(text, "test.toml") {
        Ok(_) => panic!("expected the scenario to be invalid"),
        Err(e) => e.problems().to_vec(),
    }
}

/// The one problem of `text`, which must be at `path`.
fn only_problem(text: &str, path: &str) -> Problem {
    let ps = problems(text);
    assert_eq!(ps.len(), 1, "expected one problem, got {ps:#?}");
    assert_eq!(ps[0].path, path, "{ps:#?}");
    ps.into_iter().next().unwrap()
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn base_scenario_is_valid() {
    let s = Scenario::from_toml_str(BASE, "test.toml").unwrap();
    assert_eq!(s.units.len(), 2);
    assert_eq!(s.unit("ridley's battery").unwrap().facing.degrees(), 180.0);
    assert_eq!(s.yards_per_inch, 25.0, "APSoF IV.A default scale");
}

#[test]
fn unknown_weapon_suggests_nearest() {
    let text = edit(r#"weapon = "rifled-musket""#, r#"weapon = "rifle-musket""#);
    let p = only_problem(&text, "units[0].weapon");
    assert!(
        p.message.contains("unknown weapon `rifle-musket`"),
        "{}",
        p.message
    );
    assert!(
        p.message.contains("did you mean `rifled-musket`?"),
        "{}",
        p.message
    );
    assert_eq!(p.line, Some(line_of(&text, "rifle-musket")));
}

#[test]
fn unknown_arm() {
    let text = edit(r#"arm = "infantry""#, r#"arm = "infantary""#);
    let p = only_problem(&text, "units[0].arm");
    assert!(
        p.message.contains("did you mean `infantry`?"),
        "{}",
        p.message
    );
}

#[test]
fn unknown_formation() {
    let text = edit(r#"formation = "line""#, r#"formation = "lines""#);
    let p = only_problem(&text, "units[0].formation");
    assert!(p.message.contains("did you mean `line`?"), "{}", p.message);
}

#[test]
fn unknown_morale_class() {
    let text = edit(
        "morale = \"regular\"\nformation = \"line\"",
        "morale = \"veteran\"\nformation = \"line\"",
    );
    let p = only_problem(&text, "units[0].morale");
    assert!(
        p.message.contains("unknown morale class `veteran`"),
        "{}",
        p.message
    );
}

#[test]
fn base_morale_out_of_range() {
    let text = edit(
        "morale = \"regular\"\nformation = \"line\"",
        "base_morale = 7\nformation = \"line\"",
    );
    let p = only_problem(&text, "units[0].base_morale");
    assert!(
        p.message.contains("1 (rabble) to 6 (elite)"),
        "{}",
        p.message
    );
}

#[test]
fn explicit_base_morale_is_accepted() {
    let text = edit(
        "morale = \"regular\"\nformation = \"line\"",
        "base_morale = 6\nformation = \"line\"",
    );
    let s = Scenario::from_toml_str(&text, "t").unwrap();
    assert_eq!(s.units[0].base_morale, 6);
}

#[test]
fn unknown_rating() {
    let text = edit(r#"rating = "normal""#, r#"rating = "average""#);
    let p = only_problem(&text, "officers[0].rating");
    assert!(
        p.message.contains("unknown officer rating `average`"),
        "{}",
        p.message
    );
}

#[test]
fn unknown_level() {
    let text = edit(
        "level = \"brigade\"\nrating = \"good\"",
        "level = \"brigadier\"\nrating = \"good\"",
    );
    let p = only_problem(&text, "officers[1].level");
    assert!(
        p.message.contains("did you mean `brigade`?"),
        "{}",
        p.message
    );
}

#[test]
fn unknown_command_class() {
    let text = edit(
        "command_class = \"regular\"\nposition = [24, 4]",
        "command_class = \"superb\"\nposition = [24, 4]",
    );
    let p = only_problem(&text, "officers[0].command_class");
    assert!(
        p.message.contains("did you mean `superior`?"),
        "{}",
        p.message
    );
}

#[test]
fn unit_off_the_table() {
    let text = edit("position = [24, 8]", "position = [24, -1]");
    let p = only_problem(&text, "units[0].position");
    assert!(p.message.contains("off the table"), "{}", p.message);
}

#[test]
fn officer_off_the_table() {
    let text = edit("position = [24, 32]", "position = [49, 32]");
    let p = only_problem(&text, "officers[1].position");
    assert!(p.message.contains("[48, 36]"), "{}", p.message);
}

#[test]
fn landmark_off_the_table() {
    let text = edit("at = [10, 10]", "at = [10, 100]");
    only_problem(&text, "landmarks[0].at");
}

#[test]
fn duplicate_unit_names() {
    let text = edit(r#"name = "Ridley's Battery""#, r#"name = "10TH OHIO""#);
    let p = only_problem(&text, "units[1].name");
    assert!(p.message.contains("duplicate name"), "{}", p.message);
    assert!(p.message.contains("units[0].name"), "{}", p.message);
}

#[test]
fn alias_equal_to_an_officer_name_is_ambiguous() {
    let text = edit(
        "name = \"10th Ohio\"\n",
        "name = \"10th Ohio\"\naliases = [\"hale\"]\n",
    );
    let p = only_problem(&text, "units[0].aliases[0]");
    assert!(p.message.contains("ambiguous name `hale`"), "{}", p.message);
    assert!(p.message.contains("officers[0].name"), "{}", p.message);
}

#[test]
fn alias_equal_to_another_units_alias_is_ambiguous() {
    let text = edit(
        "name = \"10th Ohio\"\n",
        "name = \"10th Ohio\"\naliases = [\"the tenth\"]\n",
    );
    let text = text.replacen(
        "name = \"Ridley's Battery\"\n",
        "name = \"Ridley's Battery\"\naliases = [\"The Tenth\"]\n",
        1,
    );
    let p = only_problem(&text, "units[1].aliases[0]");
    assert!(p.message.contains("ambiguous"), "{}", p.message);
}

#[test]
fn duplicate_landmark_names() {
    let text = edit(
        "[[sides]]\nname = \"Union\"",
        "[[landmarks]]\nname = \"The Mill\"\nat = [1, 1]\n\n[[sides]]\nname = \"Union\"",
    );
    only_problem(&text, "landmarks[1].name");
}

#[test]
fn superior_cycle_is_reported_once() {
    let text = BASE
        .replacen(
            "position = [24, 4]\n",
            "position = [24, 4]\nsuperior = \"Lane\"\n",
            1,
        )
        .replacen(
            "[[officers]]\nname = \"Pryor\"",
            "[[officers]]\nname = \"Lane\"\nside = \"Union\"\nlevel = \"division\"\nrating = \"good\"\ncommand_class = \"regular\"\nposition = [24, 2]\nsuperior = \"Hale\"\n\n[[officers]]\nname = \"Pryor\"",
            1,
        );
    let p = only_problem(&text, "officers[0].superior");
    assert!(
        p.message.contains("circle (Hale → Lane → Hale)"),
        "{}",
        p.message
    );
    // And the chain-of-command walk on a valid file stops at the top.
}

#[test]
fn superior_on_the_other_side() {
    let text = edit(
        "position = [24, 4]\n",
        "position = [24, 4]\nsuperior = \"Pryor\"\n",
    );
    let p = only_problem(&text, "officers[0].superior");
    assert!(p.message.contains("same side"), "{}", p.message);
}

#[test]
fn unknown_superior() {
    let text = edit(
        "position = [24, 4]\n",
        "position = [24, 4]\nsuperior = \"Kng\"\n",
    );
    only_problem(&text, "officers[0].superior");
}

#[test]
fn player_with_no_officer() {
    let text = edit(r#"officers = ["Hale"]"#, "officers = []");
    let p = only_problem(&text, "players[0].officers");
    assert!(p.message.contains("commands no officer"), "{}", p.message);
}

#[test]
fn officer_commanded_by_two_players() {
    let text = edit(
        "[[players]]\nname = \"Grey\"",
        "[[players]]\nname = \"Also Blue\"\nside = \"Union\"\naddresses = [\"b2@example.test\"]\nofficers = [\"hale\"]\n\n[[players]]\nname = \"Grey\"",
    );
    let p = only_problem(&text, "players[1].officers[0]");
    assert!(
        p.message.contains("already commanded by players[0] (Blue)"),
        "{}",
        p.message
    );
}

#[test]
fn player_naming_an_unknown_officer() {
    let text = edit(r#"officers = ["Hale"]"#, r#"officers = ["Hail"]"#);
    let p = only_problem(&text, "players[0].officers[0]");
    assert!(p.message.contains("did you mean `Hale`?"), "{}", p.message);
}

#[test]
fn player_naming_an_unknown_side() {
    let text = edit(
        "name = \"Blue\"\nside = \"Union\"",
        "name = \"Blue\"\nside = \"Unoin\"",
    );
    let p = only_problem(&text, "players[0].side");
    assert!(p.message.contains("did you mean `Union`?"), "{}", p.message);
}

#[test]
fn player_with_an_officer_of_the_other_side() {
    let text = edit(r#"officers = ["Hale"]"#, r#"officers = ["Hale", "Pryor"]"#);
    let ps = problems(&text);
    assert!(
        ps.iter()
            .any(|p| p.path == "players[0].officers[1]"
                && p.message.contains("on side `Confederate`"))
    );
}

#[test]
fn unit_with_no_commander() {
    let text = edit("commander = \"Hale\"\n", "");
    let p = only_problem(&text, "units[0].commander");
    assert!(p.message.contains("no commander"), "{}", p.message);
}

#[test]
fn unit_with_an_unknown_commander() {
    let text = edit(r#"commander = "Hale""#, r#"commander = "Hall""#);
    let p = only_problem(&text, "units[0].commander");
    assert!(p.message.contains("did you mean `Hale`?"), "{}", p.message);
}

#[test]
fn commander_on_another_side() {
    let text = edit(r#"commander = "Hale""#, r#"commander = "Pryor""#);
    let p = only_problem(&text, "units[0].commander");
    assert!(p.message.contains("own side"), "{}", p.message);
}

#[test]
fn formation_not_allowed_for_the_arm() {
    let text = edit(r#"formation = "limbered""#, r#"formation = "line""#);
    let p = only_problem(&text, "units[1].formation");
    assert!(p.message.contains("limbered, unlimbered"), "{}", p.message);
}

#[test]
fn castings_below_one() {
    let text = edit("castings = 18", "castings = 0");
    let p = only_problem(&text, "units[0].castings");
    assert!(p.message.contains("at least 1"), "{}", p.message);
}

#[test]
fn battery_without_guns_and_crew() {
    let text = edit("guns = 4\ncrew = 4\n", "");
    let ps = problems(&text);
    let paths: Vec<&str> = ps.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["units[1].guns", "units[1].crew"]);
}

#[test]
fn battery_crew_must_equal_guns_at_start() {
    let text = edit("crew = 4", "crew = 3");
    let p = only_problem(&text, "units[1].crew");
    assert!(p.message.contains("APSoF II.E"), "{}", p.message);
}

#[test]
fn battery_counted_in_castings_is_rejected() {
    let text = edit("guns = 4\n", "guns = 4\ncastings = 8\n");
    only_problem(&text, "units[1].castings");
}

#[test]
fn weapon_must_suit_the_arm() {
    let text = edit(r#"weapon = "6pdr-gun""#, r#"weapon = "rifled-musket""#);
    only_problem(&text, "units[1].weapon");
}

#[test]
fn polygon_with_fewer_than_three_points() {
    let text = edit(
        "points = [[1, 1], [5, 1], [5, 5]]",
        "points = [[1, 1], [5, 1]]",
    );
    let p = only_problem(&text, "terrain.areas[0].points");
    assert!(p.message.contains("at least 3 points"), "{}", p.message);
}

#[test]
fn unknown_option_key() {
    let text = edit("skirmishers = true", "skirmisher = true");
    let p = only_problem(&text, "options.skirmisher");
    assert!(
        p.message.contains("did you mean `skirmishers`?"),
        "{}",
        p.message
    );
    assert_eq!(p.line, Some(line_of(&text, "skirmisher = true")));
}

#[test]
fn objective_naming_an_unknown_landmark() {
    let text = edit(r#"landmark = "the mill""#, r#"landmark = "the mil""#);
    let p = only_problem(&text, "objectives[0].landmark");
    assert!(
        p.message.contains("did you mean `the mill`?"),
        "{}",
        p.message
    );
}

#[test]
fn last_turn_below_one() {
    let text = edit("last_turn = 10", "last_turn = 0");
    only_problem(&text, "scenario.last_turn");
}

#[test]
fn bad_facing() {
    for bad in ["\"nroth-by-west\"", "400", "-5", "true"] {
        let text = edit("facing = \"north\"", &format!("facing = {bad}"));
        only_problem(&text, "units[0].facing");
    }
}

#[test]
fn facings_in_degrees_and_compass_points() {
    for (written, degrees) in [
        ("\"north-west\"", 315.0),
        ("\"NNE\"", 22.5),
        ("90", 90.0),
        ("22.5", 22.5),
    ] {
        let text = edit("facing = \"north\"", &format!("facing = {written}"));
        let s = Scenario::from_toml_str(&text, "t").unwrap();
        assert_eq!(s.units[0].facing.degrees(), degrees, "{written}");
    }
}

#[test]
fn unknown_key_anywhere_is_reported_with_suggestion() {
    let text = edit("castings = 18", "castngs = 18");
    let ps = problems(&text);
    assert!(ps.iter().any(|p| p.path == "units[0].castngs"
        && p.message.contains("did you mean `castings`?")));
    // The real key is then missing too; both are reported.
    assert!(ps.iter().any(|p| p.path == "units[0].castings"));
}

#[test]
fn stream_fords_must_lie_on_the_stream() {
    let text = edit(
        "[[landmarks]]",
        "[[terrain.lines]]\nkind = \"stream\"\npoints = [[0, 20], [48, 20]]\ndepth_inches = 40\ncurrent = \"weak\"\nfords = [{ at = [10, 25], depth_inches = 20 }]\n\n[[landmarks]]",
    );
    let p = only_problem(&text, "terrain.lines[0].fords[0].at");
    assert!(p.message.contains("5.0\" from the stream"), "{}", p.message);
}

#[test]
fn only_streams_have_water() {
    let text = edit(
        "[[landmarks]]",
        "[[terrain.lines]]\nkind = \"road\"\npoints = [[0, 20], [48, 20]]\ncurrent = \"weak\"\n\n[[landmarks]]",
    );
    only_problem(&text, "terrain.lines[0].current");
}

#[test]
fn start_time_needs_a_zone_or_offset() {
    let text = edit("time_zone = \"America/New_York\"\n", "");
    only_problem(&text, "scenario");
    let text = edit("time_zone = \"America/New_York\"", "time_zone = \"EST\"");
    only_problem(&text, "scenario.time_zone");
    let text = edit(
        "time_zone = \"America/New_York\"",
        "utc_offset = \"-05:10\"",
    );
    let s = Scenario::from_toml_str(&text, "t").unwrap();
    assert_eq!(s.start.utc_offset.unwrap().whole_minutes(), -310);
}

#[test]
fn toml_syntax_error_is_one_problem_with_its_line() {
    let text = edit("castings = 18", "castings = = 18");
    let ps = problems(&text);
    assert_eq!(ps.len(), 1, "{ps:#?}");
    assert_eq!(ps[0].line, Some(line_of(&text, "castings = = 18")));
    assert!(
        ps[0].message.starts_with("TOML syntax error"),
        "{}",
        ps[0].message
    );
}

#[test]
fn wrong_value_type_names_the_key_and_line() {
    let text = edit("castings = 18", "castings = \"eighteen\"");
    let p = only_problem(&text, "units[0].castings");
    assert_eq!(p.line, Some(line_of(&text, "eighteen")));
}

/// The fixture breaks many rules at once; all are reported in one load, in
/// file order, and the error renders one `origin:line: path: message` each.
#[test]
fn every_problem_is_reported_at_once() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scenarios/many-problems.toml");
    let err = scenario::load(&path).unwrap_err();
    let ScenarioError::Invalid { origin, problems } = &err else {
        panic!("expected Invalid, got {err}");
    };
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    for expected in [
        "scenario.last_turn",
        "terrain.areas[0].points",
        "officers[0].rating",
        "units[0].weapon",
        "units[0].formation",
        "units[1].crew",
        "units[1].commander",
        "objectives[0].landmark",
        "options.fog-of-war",
    ] {
        assert!(paths.contains(&expected), "missing {expected} in {paths:?}");
    }
    let lines: Vec<usize> = problems.iter().map(|p| p.line.unwrap()).collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "problems come in file order");

    let shown = err.to_string();
    let mut shown_lines = shown.lines();
    assert!(
        shown_lines
            .next()
            .unwrap()
            .contains(&format!("{} problems", problems.len()))
    );
    for (p, line) in problems.iter().zip(shown_lines) {
        assert_eq!(
            line,
            format!("{origin}:{}: {}: {}", p.line.unwrap(), p.path, p.message)
        );
    }
}

#[test]
fn missing_file_is_a_read_error() {
    let err = scenario::load(Path::new("/nonexistent/brawner.toml")).unwrap_err();
    assert!(matches!(err, ScenarioError::Read { .. }));
    assert!(err.to_string().contains("/nonexistent/brawner.toml"));
}

#[test]
fn chain_of_command_walks_up_to_the_top() {
    let text = edit(
        "position = [24, 4]\n",
        "position = [24, 4]\nsuperior = \"King\"\n",
    )
    .replacen(
        "[[officers]]\nname = \"Pryor\"",
        "[[officers]]\nname = \"King\"\nside = \"Union\"\nlevel = \"division\"\nrating = \"poor\"\ncommand_class = \"inferior\"\nposition = [2, 2]\n\n[[officers]]\nname = \"Pryor\"",
        1,
    );
    let s = Scenario::from_toml_str(&text, "t").unwrap();
    let names: Vec<&str> = s
        .chain_of_command("hale")
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(names, ["Hale", "King"]);
    assert_eq!(s.units_of("Hale").count(), 1);
}

#[test]
fn side_with_no_units() {
    let text = edit(
        r#"side = "Confederate"
arm = "artillery""#,
        r#"side = "Union"
arm = "artillery""#,
    );
    let ps = problems(&text);
    assert!(
        ps.iter()
            .any(|p| p.path == "sides[1].name" && p.message.contains("has no units")),
        "{ps:#?}"
    );
}

#[test]
fn height_comes_from_nested_contours() {
    let text = edit(
        "[[landmarks]]",
        "[[terrain.contours]]\nheight_feet = 20\npoints = [[0, 0], [20, 0], [20, 20], [0, 20]]\n\n[[terrain.contours]]\nheight_feet = 40\npoints = [[5, 5], [10, 5], [10, 10], [5, 10]]\n\n[[landmarks]]",
    );
    let s = Scenario::from_toml_str(&text, "t").unwrap();
    use adjutant::scenario::Point;
    assert_eq!(s.terrain.height_at(Point::new(7.0, 7.0)), 40.0);
    assert_eq!(s.terrain.height_at(Point::new(15.0, 15.0)), 20.0);
    assert_eq!(s.terrain.height_at(Point::new(30.0, 30.0)), 0.0);
    assert_eq!(
        s.terrain.areas_at(Point::new(4.0, 2.0)).count(),
        1,
        "inside the woods"
    );
}

#[test]
fn duplicate_officer_names() {
    let text = edit(
        "[[officers]]\nname = \"Pryor\"",
        "[[officers]]\nname = \"HALE\"\nside = \"Union\"\nlevel = \"division\"\nrating = \"good\"\ncommand_class = \"regular\"\nposition = [2, 2]\n\n[[officers]]\nname = \"Pryor\"",
    );
    let p = only_problem(&text, "officers[1].name");
    assert!(p.message.contains("duplicate name `HALE`"), "{}", p.message);
}
