//! `adjutant calc` through the library: `CalcArgs` parsed from argv-like
//! lists exactly as the binary will parse them, then `calc::run`.
//! (The binary is wired by the lead; these tests do not need it.)

use adjutant::calc::{self, CalcArgs, CalcError};
use clap::Parser;
use serde_json::Value;

fn run(args: &[&str]) -> Result<String, CalcError> {
    let mut argv = vec!["calc"];
    argv.extend_from_slice(args);
    let parsed = CalcArgs::try_parse_from(argv).expect("arguments parse");
    calc::run(&parsed)
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = run(&all).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    serde_json::from_str(&out).unwrap()
}

fn usage_error(args: &[&str]) -> String {
    let err = run(args).expect_err("should be refused");
    assert!(err.is_usage(), "{err:?} should be a usage error");
    err.to_string()
}

const SEED: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

#[test]
fn fire_worked_example_of_v_b_1() {
    let v = json(&[
        "fire",
        "--firers",
        "21",
        "--targets",
        "16",
        "--effectiveness",
        "4",
        "--dice",
        "2,3,3,2,3",
        "--save-dice",
        "4,4,3",
    ]);
    assert_eq!(v["effectiveness"], 4);
    assert_eq!(v["attack_total"], 13);
    assert_eq!(v["casualties"], 3);
    assert_eq!(v["save_total"], 11);
    assert_eq!(v["morale_loss"], 4);
    assert!(v.get("seed").is_none(), "no dice were rolled here");
    assert_eq!(v["rolls"].as_array().unwrap().len(), 8);
}

#[test]
fn fire_worked_example_explained_in_words() {
    let text = run(&[
        "fire",
        "--firers",
        "21",
        "--targets",
        "16",
        "--effectiveness",
        "4",
        "--dice",
        "2,3,3,2,3",
        "--save-dice",
        "4,4,3",
    ])
    .unwrap();
    assert!(text.contains("13 / 4 = 3 casualties"), "{text}");
    assert!(text.contains("5 x 3 - 11 = 4"), "{text}");
    assert!(text.contains("= 2+3+3+2+3; 13"), "{text}");
}

#[test]
fn fire_from_weapon_range_and_modifiers() {
    // Rifled musket at 5.5" → 6" → 5; woods +1, one rank +1, split move +2 = 9.
    let v = json(&[
        "fire",
        "--firers",
        "12",
        "--targets",
        "10",
        "--weapon",
        "rifled-musket",
        "--range",
        "5.5",
        "--cover",
        "woods",
        "--target-ranks",
        "1",
        "--split-move",
        "--dice",
        "6,6,6",
        "--save-dice",
        "2,2",
    ]);
    assert_eq!(v["base_effectiveness"], 5);
    assert_eq!(v["modifiers"][0]["reason"], "target protection: woods");
    assert_eq!(v["range_inches"], 6);
    assert_eq!(v["effectiveness"], 9);
    assert_eq!(v["attack_total"], 18);
    assert_eq!(v["casualties"], 2);
    assert_eq!(v["save_total"], 4);
    assert_eq!(v["morale_loss"], 6);
}

#[test]
fn fire_perilous_multiplies_by_ten_and_floors_the_divisor() {
    // Repeating rifle at 1" = 2; elite -1, perilous -2 → -1, counted as 1.
    let v = json(&[
        "fire",
        "--firers",
        "4",
        "--targets",
        "8",
        "--weapon",
        "repeating-rifle",
        "--range",
        "1",
        "--firer-morale",
        "6",
        "--perilous",
        "--dice",
        "3",
        "--save-dice",
        "5",
    ]);
    assert_eq!(v["effectiveness_before_floor"], -1);
    assert_eq!(v["effectiveness"], 1);
    assert_eq!(v["casualties"], 3);
    assert_eq!(v["save_total"], 5);
    assert_eq!(v["morale_loss"], 25);
}

#[test]
fn fire_artillery_counts_crew_in_pairs() {
    // 12pdr gun at 30" = 4 (artillery inferred), 5 crew → 2 dice.
    let v = json(&[
        "fire",
        "--firers",
        "5",
        "--targets",
        "20",
        "--weapon",
        "12pdr-gun",
        "--range",
        "30",
        "--acquired",
        "--dice",
        "6,6",
        "--save-dice",
        "1,1,1,1",
    ]);
    assert_eq!(v["effectiveness"], 3);
    assert_eq!(v["casualties"], 4);
    assert_eq!(v["save_total"], 4);
    assert_eq!(v["morale_loss"], 16);
}

#[test]
fn fire_rolled_here_prints_a_seed_that_reproduces() {
    let args = [
        "fire",
        "--firers",
        "20",
        "--targets",
        "20",
        "--effectiveness",
        "3",
        "--seed",
        SEED,
    ];
    let a = json(&args);
    let b = json(&args);
    assert_eq!(a, b);
    assert_eq!(a["seed"], SEED);
    // The pinned stream of this seed starts 2,6,6,3,3 (see tests/dice.rs).
    assert_eq!(a["attack_total"], 20);
    let text = run(&args).unwrap();
    assert!(text.contains(SEED), "{text}");
    // Without --seed one is drawn and reported.
    let fresh = json(&[
        "fire",
        "--firers",
        "8",
        "--targets",
        "8",
        "--effectiveness",
        "5",
    ]);
    assert_eq!(fresh["seed"].as_str().unwrap().len(), 64);
}

#[test]
fn fire_refuses_a_wrong_dice_count() {
    let msg = usage_error(&[
        "fire",
        "--firers",
        "21",
        "--targets",
        "16",
        "--effectiveness",
        "4",
        "--dice",
        "2,3,3",
    ]);
    assert!(
        msg.contains("needs 5 dice") && msg.contains("3 were given"),
        "{msg}"
    );
    let msg = usage_error(&[
        "fire",
        "--firers",
        "21",
        "--targets",
        "16",
        "--effectiveness",
        "4",
        "--dice",
        "2,3,3,2,3",
        "--save-dice",
        "4,4",
    ]);
    assert!(
        msg.contains("--save-dice") && msg.contains("needs 3 dice"),
        "{msg}"
    );
}

#[test]
fn fire_refuses_a_die_outside_one_to_six() {
    let msg = usage_error(&[
        "fire",
        "--firers",
        "8",
        "--targets",
        "8",
        "--effectiveness",
        "4",
        "--dice",
        "3,7",
    ]);
    assert!(msg.contains("1 to 6"), "{msg}");
    usage_error(&[
        "fire",
        "--firers",
        "4",
        "--targets",
        "8",
        "--effectiveness",
        "4",
        "--dice",
        "0",
    ]);
}

#[test]
fn fire_refuses_an_unknown_weapon_with_a_suggestion() {
    let msg = usage_error(&[
        "fire",
        "--firers",
        "8",
        "--targets",
        "8",
        "--weapon",
        "rifled-muskett",
        "--range",
        "3",
    ]);
    assert!(msg.contains("Did you mean `rifled-musket`?"), "{msg}");
}

#[test]
fn fire_refuses_a_range_beyond_the_chart() {
    let msg = usage_error(&[
        "fire",
        "--firers",
        "8",
        "--targets",
        "8",
        "--weapon",
        "smoothbore-musket",
        "--range",
        "5.2",
    ]);
    assert!(msg.contains("longest range is 5\""), "{msg}");
}

#[test]
fn fire_refuses_a_broken_firer_and_a_gun_in_infantry_hands() {
    let msg = usage_error(&[
        "fire",
        "--firers",
        "8",
        "--targets",
        "8",
        "--weapon",
        "rifled-musket",
        "--range",
        "3",
        "--firer-morale",
        "0",
    ]);
    assert!(msg.contains("morale 0"), "{msg}");
    usage_error(&[
        "fire",
        "--firers",
        "4",
        "--targets",
        "8",
        "--weapon",
        "6pdr-gun",
        "--range",
        "3",
        "--arm",
        "infantry",
    ]);
    usage_error(&[
        "fire",
        "--firers",
        "0",
        "--targets",
        "8",
        "--effectiveness",
        "4",
    ]);
    usage_error(&["fire", "--firers", "8", "--targets", "8"]);
}

#[test]
fn fire_with_no_casualties_takes_no_save_dice() {
    let v = json(&[
        "fire",
        "--firers",
        "4",
        "--targets",
        "8",
        "--effectiveness",
        "7",
        "--dice",
        "6",
    ]);
    assert_eq!(v["casualties"], 0);
    assert_eq!(v["morale_loss"], 0);
    usage_error(&[
        "fire",
        "--firers",
        "4",
        "--targets",
        "8",
        "--effectiveness",
        "7",
        "--dice",
        "6",
        "--save-dice",
        "3",
    ]);
}

#[test]
fn effectiveness_conflicts_with_the_modifiers() {
    let argv = [
        "calc",
        "fire",
        "--firers",
        "4",
        "--targets",
        "8",
        "--effectiveness",
        "4",
        "--cover",
        "woods",
    ];
    assert!(CalcArgs::try_parse_from(argv).is_err());
}

#[test]
fn delay_by_distance_and_chain_of_command() {
    let v = json(&["delay", "--distance", "12"]);
    assert_eq!(v["delay_turns"], 0);
    assert_eq!(v["obeyed"], true);
    assert_eq!(json(&["delay", "--distance", "24"])["delay_turns"], 1);
    assert_eq!(json(&["delay", "--distance", "24.5"])["delay_turns"], 2);
    let v = json(&[
        "delay",
        "--distance",
        "18",
        "--outside-chain",
        "--dice",
        "5",
    ]);
    assert_eq!(v["delay_turns"], 2);
    assert_eq!(v["obeyed"], true);
    let v = json(&[
        "delay",
        "--distance",
        "18",
        "--outside-chain",
        "--dice",
        "6",
    ]);
    assert_eq!(v["delay_turns"], Value::Null);
    assert_eq!(v["obeyed"], false);
    usage_error(&["delay", "--distance", "18", "--dice", "3"]);
    usage_error(&[
        "delay",
        "--distance",
        "18",
        "--outside-chain",
        "--dice",
        "9",
    ]);
    usage_error(&["delay", "--distance", "-3"]);
}

#[test]
fn rally_uses_the_table() {
    let v = json(&[
        "rally",
        "--base-morale",
        "5",
        "--current-morale",
        "2",
        "--officer",
        "good",
        "--dice",
        "4",
    ]);
    assert_eq!(v["modified_roll"], 8);
    assert_eq!(v["morale_change"], 2);
    assert_eq!(v["new_morale"], 4);
    let v = json(&[
        "rally",
        "--base-morale",
        "5",
        "--current-morale",
        "3",
        "--officer",
        "bad",
        "--officer-hit",
        "--dice",
        "6,6",
    ]);
    assert_eq!(v["modified_roll"], 4);
    assert_eq!(v["morale_change"], 0);
    let text = run(&[
        "rally",
        "--base-morale",
        "6",
        "--current-morale",
        "1",
        "--dice",
        "6",
    ])
    .unwrap();
    assert!(text.contains("row 7 to 8"), "{text}");
}

#[test]
fn rally_refuses_morale_above_base_and_wrong_dice() {
    let msg = usage_error(&[
        "rally",
        "--base-morale",
        "4",
        "--current-morale",
        "5",
        "--dice",
        "3",
    ]);
    assert!(msg.contains("above base"), "{msg}");
    let msg = usage_error(&[
        "rally",
        "--base-morale",
        "5",
        "--current-morale",
        "2",
        "--officer",
        "bad",
        "--dice",
        "3",
    ]);
    assert!(msg.contains("needs 2 dice"), "{msg}");
    usage_error(&[
        "rally",
        "--base-morale",
        "5",
        "--current-morale",
        "2",
        "--officer",
        "heroic",
    ]);
}

#[test]
fn panic_check_of_vi_d_2() {
    let v = json(&[
        "panic",
        "--broken",
        "12",
        "--broken-dice",
        "6,5,4",
        "--checking",
        "8",
        "--checking-dice",
        "2,3",
    ]);
    assert_eq!(v["panic"], 2);
    assert_eq!(v["saving"], 0);
    assert_eq!(v["morale_loss"], 2);
    let v = json(&["panic", "--broken", "3", "--checking", "8"]);
    assert_eq!(v["check_required"], false);
    assert_eq!(v["morale_loss"], 0);
    usage_error(&[
        "panic",
        "--broken",
        "12",
        "--broken-dice",
        "6,5",
        "--checking",
        "8",
        "--checking-dice",
        "2,3",
    ]);
}

#[test]
fn contact_of_vi_d_3() {
    let v = json(&[
        "contact", "--side-a", "8", "--dice-a", "1,2", "--side-b", "9", "--dice-b", "6,5",
    ]);
    assert_eq!(v["loser"], "a");
    assert_eq!(v["morale_loss"], 2);
    let v = json(&[
        "contact", "--side-a", "2", "--dice-a", "6", "--side-b", "4", "--dice-b", "4",
    ]);
    assert_eq!(v["loser"], Value::Null, "6-2 = 4 ties 4");
    assert_eq!(v["morale_loss"], 0);
    usage_error(&[
        "contact", "--side-a", "8", "--dice-a", "1", "--side-b", "9", "--dice-b", "6,5",
    ]);
}

#[test]
fn double_quick_of_vi_d_4() {
    assert_eq!(
        json(&["double-quick", "--base-morale", "4", "--dice", "1"])["morale_loss"],
        3
    );
    assert_eq!(
        json(&["double-quick", "--base-morale", "6", "--dice", "4"])["morale_loss"],
        0
    );
    let msg = usage_error(&["double-quick", "--base-morale", "3", "--dice", "1"]);
    assert!(msg.contains("4, 5 and 6"), "{msg}");
    usage_error(&["double-quick", "--base-morale", "5", "--dice", "1,2"]);
}

#[test]
fn bad_seed_is_a_usage_error() {
    usage_error(&["double-quick", "--base-morale", "5", "--seed", "xyz"]);
}

#[test]
fn alternate_fire_worked_example_of_x_b() {
    let v = json(&[
        "alternate-fire",
        "--firers",
        "11",
        "--targets",
        "8",
        "--effectiveness",
        "6",
        "--dice",
        "5",
        "--save-dice",
        "2",
    ]);
    assert_eq!(v["table"], 6);
    assert_eq!(v["casualty_cell"]["base"], 1);
    assert_eq!(v["casualty_cell"]["beat"], 4);
    assert_eq!(v["casualties"], 2);
    assert_eq!(v["morale_loss"], 2);
    assert_eq!(v["rout"], false);
    let text = run(&[
        "alternate-fire",
        "--firers",
        "11",
        "--targets",
        "8",
        "--effectiveness",
        "6",
        "--dice",
        "3",
        "--save-dice",
        "5",
    ])
    .unwrap();
    assert!(
        text.contains("Casualties 1>4: attacker rolled 3 → 1 casualty"),
        "{text}"
    );
    assert!(
        text.contains("Morale 1>2: defender rolled 5 → 1 level(s)"),
        "{text}"
    );
}

#[test]
fn alternate_fire_rout_takes_no_defender_die() {
    let v = json(&[
        "alternate-fire",
        "--firers",
        "25",
        "--targets",
        "1",
        "--weapon",
        "rifled-musket",
        "--range",
        "1",
        "--firer-morale",
        "6",
        "--dice",
        "1",
    ]);
    assert_eq!(v["table"], 3);
    assert_eq!(v["rout"], true);
    assert_eq!(v["morale_loss"], Value::Null);
    usage_error(&[
        "alternate-fire",
        "--firers",
        "25",
        "--targets",
        "1",
        "--effectiveness",
        "1",
        "--dice",
        "1",
        "--save-dice",
        "4",
    ]);
}

/// SFRM Table 3 (officer casualties, 2d6) with the capture rule under it.
#[test]
fn officer_casualty_of_sfrm_table_3() {
    let j = json(&["officer-casualty", "--dice", "2,2"]);
    assert_eq!(j["roll"], 4);
    assert_eq!(j["result"], "thigh-wound");
    assert_eq!(j["removed"], false);
    assert_eq!(j["command_ability_penalty"], 1);
    assert_eq!(j["combat_value_penalty"], 1);
    assert_eq!(j["captured"], false, "not in contact with the enemy");
    let j = json(&[
        "officer-casualty",
        "--dice",
        "3,3",
        "--in-contact-with-enemy",
    ]);
    assert_eq!(
        (j["result"].as_str(), j["captured"].as_bool()),
        (Some("staff-officer-hit"), Some(true))
    );
    let j = json(&[
        "officer-casualty",
        "--dice",
        "3,3",
        "--in-contact-with-enemy",
        "--with-friends",
    ]);
    assert_eq!(j["captured"], false, "friends by: never captured");
    let j = json(&["officer-casualty", "--dice", "6,6"]);
    assert_eq!(
        (j["result"].as_str(), j["removed"].as_bool()),
        (Some("killed"), Some(true))
    );
    let j = json(&[
        "officer-casualty",
        "--dice",
        "4,3",
        "--in-contact-with-enemy",
    ]);
    assert_eq!(j["captured"], false, "7 cannot capture");
    usage_error(&["officer-casualty", "--dice", "3"]);
    usage_error(&["officer-casualty", "--dice", "3,7"]);
}

/// APSoF V.F.1 by hand: 18 infantry at effectiveness 4 (4 dice) and 4
/// crew at 6 (2 dice) fire together at 17 castings. 4+4+3+3 + 5+5 = 24,
/// divided by 6 (the highest) = 4 casualties; one save on 13 castings
/// (3 dice: 3+3+2 = 8); 5 x 4 - 8 = 12 levels.
#[test]
fn combined_fire_of_v_f_1_takes_the_highest_divisor_and_one_save() {
    const ARGS: &[&str] = &[
        "combined-fire",
        "--firer",
        "infantry:18:4",
        "--firer",
        "artillery:4:6",
        "--targets",
        "17",
        "--dice",
        "4,4,3,3,5,5",
        "--save-dice",
        "3,3,2",
    ];
    let v = json(ARGS);
    assert_eq!(v["effectiveness"], 6);
    assert_eq!(v["attack_total"], 24);
    assert_eq!(v["casualties"], 4);
    assert_eq!(v["save_total"], 8);
    assert_eq!(v["morale_loss"], 12);
    assert_eq!(v["units"][0]["attack_total"], 14);
    assert_eq!(v["units"][1]["attack_total"], 10);
    let text = run(ARGS).unwrap();
    assert!(text.contains("24 / 6 = 4 casualties"), "{text}");
    assert!(text.contains("one save for the whole fire"), "{text}");
}

#[test]
fn combined_fire_refuses_what_it_cannot_work_out() {
    let one = usage_error(&[
        "combined-fire",
        "--firer",
        "infantry:18:4",
        "--targets",
        "10",
    ]);
    assert!(one.contains("two or more units"), "{one}");
    let bad = usage_error(&[
        "combined-fire",
        "--firer",
        "infantry:18",
        "--firer",
        "infantry:8:5",
        "--targets",
        "10",
    ]);
    assert!(bad.contains("ARM:CASTINGS:EFFECTIVENESS"), "{bad}");
    let count = usage_error(&[
        "combined-fire",
        "--firer",
        "infantry:18:4",
        "--firer",
        "infantry:8:5",
        "--targets",
        "10",
        "--dice",
        "1,2,3",
    ]);
    assert!(count.contains("needs 6 dice, but 3 were given"), "{count}");
    // Rolled from a seed when no dice are given, and repeatable.
    let seeded = [
        "combined-fire",
        "--firer",
        "infantry:18:4",
        "--firer",
        "infantry:8:5",
        "--targets",
        "10",
        "--seed",
        SEED,
    ];
    let a = json(&seeded);
    assert_eq!(a, json(&seeded));
    assert_eq!(a["units"][0]["attack_dice"].as_array().unwrap().len(), 4);
}

/// docs/rulings.md, V.G.1 with `calc --effectiveness`: the umpire gives a
/// divisor he worked out himself, so `--perilous` takes nothing off it;
/// only the save multiplier is 10 (V.G.1). The worked example of V.B.1,
/// perilous: 13 / 4 = 3 casualties as before, loss 10 x 3 - 11 = 19.
#[test]
fn v_g_1_perilous_with_a_given_effectiveness_only_multiplies_the_save() {
    let v = json(&[
        "fire",
        "--firers",
        "21",
        "--targets",
        "16",
        "--effectiveness",
        "4",
        "--perilous",
        "--dice",
        "2,3,3,2,3",
        "--save-dice",
        "4,4,3",
    ]);
    assert_eq!(v["effectiveness"], 4);
    assert_eq!(v["casualties"], 3);
    assert_eq!(v["morale_loss"], 19);
}

/// APSoF V.G through the binary: `--perilous` takes the clause, by its
/// number or a word, and the working names it as the turn engine does in
/// a fire's working (`kinds::PerilousClause`); a bare `--perilous` counts
/// and says no clause was named; an unknown clause is refused with the
/// list. Rifled musket at 3" = 5, perilous −2 → 3; one die 3 → 1
/// casualty; save 5; loss 10 × 1 − 5 = 5.
#[test]
fn v_g_perilous_names_the_clause_as_the_turn_engine_does() {
    let calc = |perilous: &[&str]| {
        let mut c = assert_cmd::Command::cargo_bin("adjutant").unwrap();
        c.env_remove("ADJUTANT_CONFIG").args([
            "calc",
            "fire",
            "--firers",
            "4",
            "--targets",
            "8",
            "--weapon",
            "rifled-musket",
            "--range",
            "3",
            "--dice",
            "3",
            "--save-dice",
            "5",
        ]);
        c.args(perilous);
        c.output().unwrap()
    };
    let out = calc(&["--perilous", "rear"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("-2 defender in perilous situation (V.G.1.i rear attack)"),
        "{text}"
    );
    assert!(
        text.contains(
            "Morale loss: 10 x 1 - 5 = 5 level(s) (perilous: x10, APSoF V.G.1.i rear attack)."
        ),
        "{text}"
    );
    let out = calc(&["--perilous", "V.G.1.ii,umpire"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains(
            "(V.G.1.ii first fire at troops never under fire; V.G.2 declared by the umpire)"
        ),
        "{text}"
    );
    let out = calc(&["--perilous"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("no clause named"), "{text}");
    assert!(
        text.contains("= 5 level(s)"),
        "a bare --perilous still counts: {text}"
    );
    let out = calc(&["--perilous", "sideways"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("V.G.1.iv") && err.contains("rear"), "{err}");

    // The JSON names the clauses too, in the same words.
    let v = json(&[
        "fire",
        "--firers",
        "4",
        "--targets",
        "8",
        "--weapon",
        "rifled-musket",
        "--range",
        "3",
        "--perilous",
        "pontoons",
        "--dice",
        "3",
        "--save-dice",
        "5",
    ]);
    assert_eq!(v["perilous"], true);
    assert_eq!(v["perilous_why"][0], "V.G.1.iv crossing in pontoon boats");
    assert_eq!(v["morale_loss"], 5);
}
