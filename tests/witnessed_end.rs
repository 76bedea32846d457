//! An enemy regiment a side shoots to pieces is told destroyed in that
//! side's report and is no longer listed where it was last seen (found
//! playing Brawner's Farm: Battery B destroyed enemy D, and D stayed on the
//! Union's "seen earlier" list at its old place). The training scenario on
//! the umpire's dice: the 3rd Tennessee, cut to one casting, stands in line
//! 6" before the 10th Ohio; every die is a 6, so the Ohio's fire destroys
//! it.

mod common;

use common::GameDir;

#[test]
fn an_enemy_shot_to_pieces_is_told_destroyed_and_not_remembered_standing() {
    let g = GameDir::training("witnessed");
    g.umpire("DICE MODE UMPIRE");
    g.umpire("SET 3rd Tennessee formation line BECAUSE \"set up\"");
    g.umpire("SET 10th Ohio formation line BECAUSE \"set up\"");
    g.umpire("SET 3rd Tennessee facing 180 BECAUSE \"set up\"");
    g.umpire("SET 10th Ohio facing 0 BECAUSE \"set up\"");
    g.umpire("SET 3rd Tennessee position 24,18 BECAUSE \"set up\"");
    g.umpire("SET 3rd Tennessee castings 1 BECAUSE \"set up\"");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: fire at will.\n\nREADY",
    );
    g.order_mail("grey1", "grey@example.test", "Grey", "READY");
    g.run_once();
    g.answer_dice(|_| "6".into());
    g.run_once();
    let castings: i64 = g
        .db()
        .query_row(
            "SELECT json_extract(e.data_json, '$.casualties') FROM events e
             JOIN turns t ON t.id = e.turn_id
             WHERE t.number = 1 AND e.kind = 'fired'
             AND json_extract(e.data_json, '$.target.name') = '3rd Tennessee'",
            [],
            |r| r.get(0),
        )
        .expect("the Ohio fires on the Tennessee");
    assert!(castings >= 1);
    let mails = g.outbox_all();
    let blue = mails
        .iter()
        .find(|m| m.contains("To: blue@example.test") && m.contains("Turn 1 results"))
        .expect("Blue's turn 1 report");
    let flat = blue
        .replace("=\r\n", "")
        .replace("=\n", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("is destroyed: no formed body of it is left on the field."),
        "{flat}"
    );
    assert!(
        !flat.contains("3rd Tennessee"),
        "identities are hidden: {flat}"
    );
    let seen_earlier = flat
        .split("ENEMY SEEN EARLIER, NOT IN SIGHT NOW")
        .nth(1)
        .unwrap_or_default();
    let section = seen_earlier
        .split("FRIENDLY UNITS")
        .next()
        .unwrap_or_default();
    assert!(
        !section.contains("(23.0, 32.0)") && !section.contains("(24.0, 18.0)"),
        "the destroyed regiment is not remembered standing: {section}"
    );
}
