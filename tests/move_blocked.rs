//! A report tells the truth, plainly (issue #14, section 4), through the
//! binary: a move that could not be made says why ("blocked by the 14th
//! Ohio") in the player's report, and a unit that did not get through a
//! friend's ranks is not charged the morale cost of moving through them
//! (APSoF IV.C.5-6), nor is the friend steadied.

mod common;

use common::GameDir;

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn blue_report(g: &GameDir) -> String {
    let text: String = g
        .db()
        .query_row(
            "SELECT r.text FROM reports r JOIN players p ON p.id = r.player_id
             WHERE p.name = 'Blue' ORDER BY r.id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    flat(&text)
}

#[test]
fn iv_c_a_blocked_move_says_why_and_costs_no_morale() {
    let g = GameDir::training("blocked");
    // Battery A limbered, facing north, with the 14th Ohio drawn up across
    // its front: a battery may not pass through other units (IV.G, "through
    // units" forbidden to artillery).
    g.umpire("SET Battery A formation limbered BECAUSE \"test: on the road\"");
    g.umpire("SET Battery A facing north BECAUSE \"test\"");
    g.umpire("SET Battery A position 30,6 BECAUSE \"test\"");
    g.umpire("SET 14th Ohio position 30,8.77 BECAUSE \"test\"");
    g.umpire("SET 14th Ohio facing north BECAUSE \"test\"");
    // The 12th Ohio right behind the 10th, told to march onto its ground:
    // it may not end there (IV.F) and stays short of the 10th's ranks.
    g.umpire("SET 12th Ohio position 16,8 BECAUSE \"test\"");
    g.umpire("SET 10th Ohio position 16,17 BECAUSE \"test\"");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "Battery A: advance to (30, 14).\n\n\
         12th Ohio: advance to (16, 17).\n\n\
         10th Ohio: hold fire.\n\n14th Ohio: hold fire.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    assert_eq!(g.open_turn(), 2, "turn 1 was played");
    let blue = blue_report(&g);
    assert!(
        blue.contains("Battery A, 1st Ohio Light Artillery could not move from (30.0, 6.0): blocked by the 14th Ohio."),
        "{blue}"
    );

    // IV.C.5-6: nobody was charged or steadied for ranks nobody got through.
    let through = g.count(
        "SELECT count(*) FROM events WHERE kind = 'morale-changed'
         AND (json_extract(data_json, '$.reason') = 'moved through other ranks'
           OR json_extract(data_json, '$.reason') LIKE 'steady while others%')",
    );
    assert_eq!(through, 0, "{blue}");
    assert!(
        blue.contains("Strength: 16 castings, 320 men. Morale 5 of 5."),
        "the 12th keeps its morale: {blue}"
    );
    assert!(!blue.contains("moved through other ranks"), "{blue}");
}
