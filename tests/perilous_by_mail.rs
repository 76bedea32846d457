//! APSoF V.G.1.v through the binary, on the umpire's dice: a broken unit in
//! flight is "not in normal battlefield formation", so fire at it is a
//! perilous situation (-2 effectiveness, x10 save). Two games play the same
//! two turns on the same dice; in one the umpire breaks the 3rd Tennessee
//! before turn 2 (`SET 3rd Tennessee morale 0`). The 10th Ohio's turn-2 fire
//! at it is perilous there, and not in the other game, where the 3rd stands
//! in line and was already under fire in turn 1 (so V.G.1.ii does not apply).
//! The working in the firer's report names each clause that applies.
//! (The 10th fires at the 3rd by its letter, A: Blue does not know its name.)

mod common;

use common::GameDir;

const FIXTURE: &str = "tests/fixtures/scenarios/volley.toml";

fn play(g: &GameDir, turn: u32) {
    g.order_mail(
        &format!("blue{turn}"),
        "blue@example.test",
        "Blue",
        "10th Ohio: fire at A.\n\n12th Ohio: hold fire.\n\nREADY",
    );
    g.order_mail(
        &format!("grey{turn}"),
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold fire.\n\n5th Tennessee: hold fire.\n\nREADY",
    );
    g.run_once();
    g.answer_dice(|w| {
        if w.to_string().contains("morale-save") {
            "6"
        } else {
            "1"
        }
        .into()
    });
    assert_eq!(g.open_turn(), turn + 1, "turn {turn} was played");
}

/// (perilous, modifiers) of the 10th Ohio's fire at the 3rd Tennessee in
/// `turn`.
fn tenth_fire(g: &GameDir, turn: u32) -> (bool, String) {
    let json: String = g
        .db()
        .query_row(
            "SELECT e.data_json FROM events e JOIN turns t ON t.id = e.turn_id
             WHERE t.number = ?1 AND t.superseded_at IS NULL AND e.kind = 'fired'
             AND json_extract(e.data_json, '$.unit.name') = '10th Ohio'",
            [turn],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("the 10th fired in turn {turn}: {e}"));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    (v["perilous"].as_bool().unwrap(), v["modifiers"].to_string())
}

/// The report of `player` (`None`: the umpire's) of `turn`'s results (sent
/// with the next turn's orders), its words on one line.
fn report(g: &GameDir, player: Option<&str>, turn: u32) -> String {
    let text: String = g
        .db()
        .query_row(
            "SELECT r.text FROM reports r JOIN turns t ON t.id = r.turn_id
             LEFT JOIN players p ON p.id = r.player_id
             WHERE t.number = ?1 AND t.superseded_at IS NULL
             AND ((?2 IS NULL AND r.player_id IS NULL) OR p.name = ?2)
             ORDER BY r.id DESC LIMIT 1",
            rusqlite::params![turn + 1, player],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("a report of turn {turn} for {player:?}: {e}"));
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn game(name: &str, break_before_turn_2: bool) -> GameDir {
    let g = GameDir::with_scenario(name, FIXTURE);
    g.umpire("DICE MODE UMPIRE");
    play(&g, 1);
    // Turn 1: fire at troops never under fire is perilous (V.G.1.ii).
    assert!(tenth_fire(&g, 1).0);
    if break_before_turn_2 {
        g.umpire("SET 3rd Tennessee morale 0 BECAUSE \"broke under the volley\"");
    }
    play(&g, 2);
    g
}

#[test]
fn v_g_1_v_fire_at_a_broken_unit_is_perilous_by_mail() {
    let broken = game("broken", true);
    let (perilous, mods) = tenth_fire(&broken, 2);
    assert!(perilous, "{mods}");
    assert!(mods.contains("defender in perilous situation -2"), "{mods}");
    // The working names each clause, in the firer's report and the
    // umpire's: the broken 3rd fell back, so the 10th fires into its rear.
    for player in [Some("Blue"), None] {
        let text = report(&broken, player, 2);
        assert!(text.contains("TURN 2 RESULTS"), "{text}");
        assert!(
            text.contains(
                "defender in perilous situation -2 (V.G.1.i rear attack; V.G.1.v not in battlefield formation: broken, in flight)"
            ),
            "{text}"
        );
        let first = report(&broken, player, 1);
        assert!(first.contains("TURN 1 RESULTS"), "{first}");
        assert!(
            first.contains(
                "defender in perilous situation -2 (V.G.1.ii first fire at troops never under fire)"
            ),
            "{first}"
        );
    }
    let steady = game("steady", false);
    let (perilous, mods) = tenth_fire(&steady, 2);
    assert!(!perilous, "{mods}");
}

/// APSoF V.G.2 "any other situation the umpire determines is perilous",
/// through the binary: the same two turns, and before turn 2 the umpire
/// declares the 3rd Tennessee's situation perilous (`SET 3rd Tennessee
/// perilous yes BECAUSE …`). The 10th Ohio's turn-2 fire at it is
/// perilous, the working names V.G.2, and the 3rd's own report names it in
/// the save's working; in the game without the declaration (above, the
/// steady game) the same fire is not perilous. The declaration lasts the
/// turn: the umpire's turn 3 fire is ordinary again.
#[test]
fn v_g_2_umpire_declared_perilous_by_mail() {
    let g = GameDir::with_scenario("declared", FIXTURE);
    g.umpire("DICE MODE UMPIRE");
    play(&g, 1);
    g.umpire("SET 3rd Tennessee perilous yes BECAUSE \"caught climbing the fence\"");
    play(&g, 2);
    let (perilous, mods) = tenth_fire(&g, 2);
    assert!(perilous, "{mods}");
    for player in [Some("Blue"), None] {
        let text = report(&g, player, 2);
        assert!(
            text.contains("defender in perilous situation -2 (V.G.2 declared by the umpire)"),
            "{text}"
        );
    }
    let grey = report(&g, Some("Grey"), 2);
    assert!(
        grey.contains("perilous x10, V.G.2 declared by the umpire)"),
        "{grey}"
    );
    play(&g, 3);
    let (perilous, mods) = tenth_fire(&g, 3);
    assert!(!perilous, "one turn only: {mods}");
}
