//! The briefing before turn 1 (issue #14, section 2), through the binary:
//! `game create` queues one mail a player, built like a report, which the
//! daemon sends; answering it sends orders for turn 1; `REPORT 0` sends it
//! again.

mod common;

use common::GameDir;

struct Mail {
    to: String,
    subject: String,
    reply_to: String,
    /// Every text part (plain and HTML), decoded, joined.
    body: String,
    files: Vec<String>,
}

fn decode(raw: &str) -> Mail {
    let m = mailparse::parse_mail(raw.as_bytes()).unwrap();
    let header = |n: &str| {
        m.headers
            .iter()
            .find(|h| h.get_key().eq_ignore_ascii_case(n))
            .map(|h| h.get_value())
            .unwrap_or_default()
    };
    let mut body = String::new();
    let mut files = Vec::new();
    let mut stack = vec![&m];
    while let Some(p) = stack.pop() {
        if !p.subparts.is_empty() {
            stack.extend(p.subparts.iter().rev());
            continue;
        }
        if let Some(name) = p.get_content_disposition().params.get("filename") {
            files.push(name.clone());
        }
        if p.ctype.mimetype.starts_with("text/") {
            body.push_str(&p.get_body().unwrap());
            body.push('\n');
        }
    }
    Mail {
        to: header("To"),
        subject: header("Subject"),
        reply_to: header("Reply-To"),
        body,
        files,
    }
}

fn scenario(path: &str) -> adjutant::scenario::Scenario {
    let text = std::fs::read_to_string(common::repo(path)).unwrap();
    adjutant::scenario::Scenario::from_toml_str(&text, path).unwrap()
}

#[test]
fn every_player_of_brawners_farm_is_briefed_before_turn_1() {
    let g = GameDir::with_scenario("bf", "scenarios/brawners-farm.toml");
    let s = scenario("scenarios/brawners-farm.toml");
    g.run_once();
    let mails: Vec<Mail> = g.outbox_all().iter().map(|r| decode(r)).collect();
    assert_eq!(mails.len(), s.players.len(), "one briefing a player");
    assert_eq!(
        g.count(
            "SELECT count(*) FROM reports r JOIN turns t ON t.id = r.turn_id WHERE t.number = 1"
        ),
        s.players.len() as i64,
        "each kept as his report of turn 1"
    );
    let state = adjutant::game::battle_state_from_scenario(&s);
    let seen = adjutant::game::briefing::standing_visibility(&state);
    for p in &s.players {
        let m = mails
            .iter()
            .find(|m| m.to.contains(&p.addresses[0]))
            .unwrap_or_else(|| panic!("no briefing for {}", p.name));
        assert_eq!(
            m.subject,
            format!(
                "[bf] Briefing (orders now for turn 1), report for {} ({})",
                p.name, p.side
            )
        );
        // The scenario's description, in his words.
        assert!(m.body.contains("King's division is"), "{}", m.body);
        assert!(m.body.contains("BRIEFING"));
        // His command: officers and units with strength, formation and
        // place in words and coordinates.
        for o in p.officers.iter() {
            assert!(m.body.contains(o.as_str()), "{}: officer {o}", p.name);
        }
        let his_units: Vec<_> = s
            .units
            .iter()
            .filter(|u| {
                u.side == p.side
                    && state
                        .chain_of_command(state.units.iter().find(|x| x.name == u.name).unwrap().id)
                        .iter()
                        .any(|o| p.officers.contains(&o.name))
            })
            .collect();
        assert!(!his_units.is_empty(), "{} commands no unit", p.name);
        for u in &his_units {
            assert!(
                m.body.contains(&format!("{}: hold", u.name)),
                "order form: {}",
                u.name
            );
            assert!(m.body.contains(&u.name));
        }
        assert!(m.body.contains("Strength:") && m.body.contains("Position:"));
        // The place names, the map, how to reply, the deadline.
        assert!(m.body.contains("PLACES YOUR ORDERS MAY NAME"));
        assert!(m.body.contains("Stony Ridge"));
        assert!(m.body.contains("<svg"), "the HTML part carries the map");
        let side = p.side.to_lowercase();
        assert_eq!(m.files, [format!("bf-briefing-{side}.png")]);
        assert!(
            m.reply_to.contains(&g.token_address(&p.name, 1)),
            "{}",
            m.reply_to
        );
        assert!(m.body.contains(&g.token_address(&p.name, 1)));
        assert!(m.body.contains("Next deadline:"));
        // The enemy his side sees at the start, and no more: as many
        // lettered entries as the sight rules give, and no enemy's name.
        let side_id = state.sides.iter().find(|x| x.name == p.side).unwrap().id;
        let n_seen = seen.get(&side_id).map_or(0, |v| v.seen.len());
        let text = m.body.split("<!DOCTYPE").next().unwrap();
        let in_sight = text
            .split("ENEMY IN SIGHT")
            .nth(1)
            .unwrap()
            .split("\n\n")
            .next()
            .unwrap();
        let entries = in_sight
            .lines()
            .filter(|l| l.starts_with("  ") && l.as_bytes().get(3) == Some(&b'.'))
            .count();
        assert_eq!(entries, n_seen, "{}:\n{in_sight}", p.name);
        for u in s.units.iter().filter(|u| u.side != p.side) {
            assert!(
                !m.body.contains(&u.name),
                "{} is told of {}",
                p.name,
                u.name
            );
        }
    }

    // Answering the briefing sends orders for turn 1.
    let gibbon = s.players.iter().find(|p| p.name == "Gibbon").unwrap();
    let to = g.token_address("Gibbon", 1);
    let raw = format!(
        "From: Gibbon <{}>\r\nTo: {to}\r\nSubject: Re: briefing\r\n\
         Message-ID: <gibbon-1@example.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n2nd Wisconsin: hold.\r\n\r\nREPORT 0\r\n",
        gibbon.addresses[0]
    );
    g.drop_mail("gibbon-1", raw.as_bytes());
    g.run_once();
    let mails: Vec<Mail> = g.outbox_all().iter().map(|r| decode(r)).collect();
    let receipt = mails
        .iter()
        .find(|m| m.body.contains("Reports asked for"))
        .expect("a receipt");
    assert!(
        receipt
            .body
            .contains("REPORT 0: your briefing report is sent again"),
        "{}",
        receipt.body
    );
    let copy = mails
        .iter()
        .find(|m| m.subject.contains("(copy)"))
        .expect("the briefing again");
    assert!(copy.subject.contains("Briefing"), "{}", copy.subject);
    assert!(copy.body.contains("King's division is"));
    assert_eq!(copy.files, ["bf-briefing-union.png".to_string()]);
}

#[test]
fn the_training_scenario_briefs_both_players_and_report_n_counts_as_players_do() {
    let g = GameDir::training("mill");
    g.run_once();
    let mails: Vec<Mail> = g.outbox_all().iter().map(|r| decode(r)).collect();
    assert_eq!(mails.len(), 2);
    for m in &mails {
        assert!(m.subject.contains("Briefing (orders now for turn 1)"));
        assert!(m.body.contains("ORDERS -- edit below and send back"));
    }
    // After turn 1, REPORT 1 is "turn 1 results" and REPORT 0 still the
    // briefing.
    g.order_mail("b1", "blue@example.test", "Blue", "READY");
    g.order_mail("g1", "grey@example.test", "Grey", "READY");
    g.run_once();
    g.order_mail("b2", "blue@example.test", "Blue", "REPORT 1");
    g.run_once();
    let mails: Vec<Mail> = g.outbox_all().iter().map(|r| decode(r)).collect();
    let results = mails
        .iter()
        .find(|m| {
            m.subject
                .contains("Turn 1 results (orders now for turn 2), report for Blue")
        })
        .expect("the mail after turn 1");
    assert!(results.body.contains("WHAT HAPPENED IN TURN 1"));
    assert!(!results.body.contains("BRIEFING\n"));
    assert!(
        mails.iter().any(|m| m
            .body
            .contains("REPORT 1: your turn 1 results report is sent again")),
        "the receipt names the report as players count"
    );
}

/// The game and its players' briefings are written in one transaction
/// ("nothing is lost"): after `create_and_brief_from_file` every player of
/// each ruleset has his briefing queued; a second game of the same name is
/// refused and queues nothing.
#[test]
fn a_game_and_its_briefings_are_written_together() {
    use adjutant::game::deadline::DeadlineSettings;
    use adjutant::game::report_mail::ReportMail;
    use adjutant::game::roster::Roster;
    use adjutant::store::Store;
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("a.db")).unwrap();
    let mail = ReportMail {
        game_master: "adjutant@example.test".into(),
        message_id_domain: "example.test".into(),
        server_key: vec![7; 32],
    };
    let queued = |s: &Store| -> i64 {
        s.conn()
            .query_row("SELECT count(*) FROM outbound_mail", [], |r| r.get(0))
            .unwrap()
    };
    let mut total = 0;
    for (scenario, name) in [
        ("scenarios/brawners-farm.toml", "bf"),
        ("scenarios/first-bull-run.toml", "fbr"),
    ] {
        let (created, briefed) = adjutant::game::create_and_brief_from_file(
            &mut store,
            std::path::Path::new(scenario),
            name,
            &DeadlineSettings::default(),
            &Roster::default(),
            &|| Ok(mail.clone()),
            None,
            1_700_000_000,
        )
        .unwrap();
        assert_eq!(briefed, created.players.len(), "{scenario}");
        total += briefed as i64;
        assert_eq!(queued(&store), total, "{scenario}");
    }
    let again = adjutant::game::create_and_brief_from_file(
        &mut store,
        std::path::Path::new("scenarios/brawners-farm.toml"),
        "bf",
        &DeadlineSettings::default(),
        &Roster::default(),
        &|| Ok(mail.clone()),
        None,
        1_700_000_000,
    );
    assert!(again.is_err());
    assert_eq!(queued(&store), total, "a refused game queues nothing");
}
