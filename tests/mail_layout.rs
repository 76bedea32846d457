//! The mail level of orders, through the binary at Brawner's Farm (issue
//! #15): headings as players write them (ranks, bare ordinals, several
//! units, a heading over bulleted steps), line numbers as the mail was
//! written, sign-offs, a PASSWORD sharing a rendered HTML line, READY after
//! a refused order, and the report's order form edited inside a reply. Each
//! test reads the receipt the player gets.

mod common;
use common::GameDir;

const BRAWNER: &str = "scenarios/brawners-farm.toml";

fn decoded(mails: &[String]) -> String {
    // Receipts are plain text, possibly quoted-printable: undo soft breaks.
    mails
        .join("\n")
        .replace("=\r\n", "")
        .replace("=3D", "=")
        .replace("\r\n", "\n")
}

/// The receipts the player at `address` got.
fn receipts_to(g: &GameDir, address: &str) -> String {
    let mails: Vec<String> = g
        .outbox()
        .into_iter()
        .filter(|m| m.contains(&format!("To: {address}")) || m.contains(&format!("<{address}>")))
        .filter(|m| m.contains("Orders received"))
        .collect();
    decoded(&mails)
}

fn orders_of(g: &GameDir, unit: &str) -> i64 {
    g.db()
        .query_row(
            "SELECT count(*) FROM orders o JOIN units u ON u.id = o.unit_id WHERE u.name = ?1",
            [unit],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn headings_with_ranks_ordinals_several_units_and_bulleted_steps() {
    let g = GameDir::with_scenario("heads", BRAWNER);
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "Brig. Gen. Gibbon: ride to the Brawner farm\n\n\
         7th: hold\n\n\
         2nd Wis & 6th Wis: advance 2 inches north\n\n\
         Col. Meredith will advance the 19th Indiana to the Brawner farm\n\n\
         Battery B:\n\
         - limber up\n\
         - advance 2 inches north\n",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(!out.contains("Not understood"), "{out}");
    assert!(out.contains("Gibbon: ride to"), "{out}");
    assert!(out.contains("7th Wisconsin: hold"), "{out}");
    assert!(out.contains("2nd Wisconsin: advance"), "{out}");
    assert!(out.contains("6th Wisconsin: advance"), "{out}");
    assert!(
        out.contains("19th Indiana: advance to the Brawner farm"),
        "{out}"
    );
    assert!(out.contains("Battery B, 4th US Artillery: limber"), "{out}");
    for u in [
        "7th Wisconsin",
        "2nd Wisconsin",
        "6th Wisconsin",
        "19th Indiana",
        "Battery B, 4th US Artillery",
    ] {
        assert_eq!(orders_of(&g, u), 1, "{u}: {out}");
    }
    // The battery's two bullets are two steps, in order.
    let text: String = g
        .db()
        .query_row(
            "SELECT o.parsed_json FROM orders o JOIN units u ON u.id = o.unit_id
             WHERE u.name = 'Battery B, 4th US Artillery'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let limber = text.to_lowercase().find("limber");
    let moves = text.to_lowercase().find("move");
    assert!(
        limber.is_some() && moves.is_some() && limber < moves,
        "{text}"
    );
}

#[test]
fn a_bare_ordinal_that_fits_two_units_asks_which() {
    let g = GameDir::with_scenario("ord", BRAWNER);
    g.order_mail(
        "trimble1",
        "trimble@example.test",
        "Trimble",
        "21st: hold\n\n15th: hold",
    );
    g.run_once();
    let out = receipts_to(&g, "trimble@example.test");
    assert!(
        out.contains("'21st' could mean more than one unit"),
        "{out}"
    );
    assert!(
        out.contains("21st Georgia") && out.contains("21st North Carolina"),
        "{out}"
    );
    assert!(out.contains("15th Alabama: hold"), "{out}");
}

#[test]
fn error_lines_are_the_mail_lines_and_sign_offs_are_not_errors() {
    let g = GameDir::with_scenario("lines", BRAWNER);
    // Line 1 is the PASSWORD line the helper writes.
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "Sir,\n\
         \n\
         7th Wisconsin: hold\n\
         \n\
         \n\
         2nd Wisconsin: dance a jig\n\
         \n\
         Your obedient servant,\n\
         John Gibbon\n\
         Brig. Gen., commanding\n\
         \n\
         Sent from my iPhone",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(
        out.contains("line 7, column"),
        "the error names line 7 of the mail as written: {out}"
    );
    assert_eq!(out.matches("  ! line").count(), 1, "{out}");
    assert!(
        out.contains("Read as greeting or signature, not as orders"),
        "{out}"
    );
    assert!(out.contains("\"Your obedient servant,\""), "{out}");

    g.order_mail(
        "gibbon2",
        "gibbon@example.test",
        "Gibbon",
        "7th Wisconsin: hold\n\nThanks,\n\nGrüße, Col. Müller\n\nGibbon",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    let second = out.rsplit("Adjutant has read your orders").next().unwrap();
    assert!(!second.contains("Not understood"), "{second}");
}

#[test]
fn ready_after_a_refused_order_is_not_counted_and_the_top_says_who_keeps_his_orders() {
    let g = GameDir::with_scenario("ready", BRAWNER);
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "7th Wisconsin: hold\n2nd Wisconsin: dance a jig\n\nREADY",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    let top = out.split("Orders as understood").next().unwrap();
    assert!(
        top.contains("NOT EVERYTHING IN THIS MAIL WAS TAKEN"),
        "{out}"
    );
    assert!(
        top.contains("These units keep their previous orders: 2nd Wisconsin (line 3)"),
        "{out}"
    );
    assert!(top.contains("Your READY was NOT counted"), "{out}");
    assert!(!out.contains("You are READY"), "{out}");
    assert_eq!(
        g.count("SELECT count(*) FROM submissions WHERE ready = 1"),
        0
    );
    assert_eq!(orders_of(&g, "7th Wisconsin"), 1);

    // Corrected: READY counts.
    g.order_mail(
        "gibbon2",
        "gibbon@example.test",
        "Gibbon",
        "2nd Wisconsin: advance to the Brawner farm\nREADY",
    );
    g.run_once();
    assert_eq!(
        g.count("SELECT count(*) FROM submissions WHERE ready = 1"),
        1
    );
}

/// An HTML-only mail whose password and first order render on one line.
#[test]
fn a_password_sharing_a_rendered_html_line_is_found() {
    let g = GameDir::with_scenario("html", BRAWNER);
    let raw = format!(
        "From: Gibbon <gibbon@example.test>\r\nTo: adjutant@example.test\r\nSubject: orders\r\n\
         Message-ID: <html1@example.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
         <html><body><div>PASSWORD {} <span>7th Wisconsin: hold</span></div>\
         <div>19th Indiana: hold</div></body></html>\r\n",
        g.secret("Gibbon")
    );
    g.drop_mail("html1", raw.as_bytes());
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(out.contains("7th Wisconsin: hold"), "{out}");
    assert!(out.contains("19th Indiana: hold"), "{out}");
    assert!(!out.contains("Not understood"), "{out}");
    assert!(
        !out.contains(g.secret("Gibbon")),
        "the secret is never echoed"
    );
}

/// The briefing's text as stored (his turn-1 report).
fn briefing_text(g: &GameDir, player: &str) -> String {
    g.db()
        .query_row(
            "SELECT r.text FROM reports r JOIN players p ON p.id = r.player_id WHERE p.name = ?1",
            [player],
            |r| r.get(0),
        )
        .unwrap()
}

fn reply(g: &GameDir, file: &str, body: &str) {
    let raw = format!(
        "From: Gibbon <gibbon@example.test>\r\nTo: {}\r\nSubject: Re: briefing\r\n\
         Message-ID: <{file}@example.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
        g.token_address("Gibbon", 1),
        body.replace('\n', "\r\n")
    );
    g.drop_mail(file, raw.as_bytes());
}

#[test]
fn an_order_form_edited_inside_the_quote_is_read_by_comparing_with_the_form_sent() {
    let g = GameDir::with_scenario("form", BRAWNER);
    let report = briefing_text(&g, "Gibbon");
    assert!(report.contains("7th Wisconsin: hold"), "{report}");
    let quoted: String = report
        .lines()
        .map(|l| {
            let l = if l == "7th Wisconsin: hold" {
                "7th Wisconsin: advance 2 inches north"
            } else {
                l
            };
            format!("> {l}\n")
        })
        .collect();
    reply(
        &g,
        "form1",
        &format!("Changed the 7th.\n\nOn Sun, 22 Nov 2026, Adjutant wrote:\n{quoted}"),
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(
        out.contains("Order form in your reply (from the report for turn 1)"),
        "{out}"
    );
    assert!(out.contains("1 edited line read as orders below"), "{out}");
    assert!(out.contains("7th Wisconsin: advance"), "{out}");
    assert_eq!(orders_of(&g, "7th Wisconsin"), 1);
    // Unchanged lines are not orders: the others keep what they have.
    assert_eq!(orders_of(&g, "2nd Wisconsin"), 0);
    assert_eq!(g.count("SELECT count(*) FROM orders"), 1);
    // "Changed the 7th." is not an order; it is told, not silently dropped.
    assert!(out.contains("line 1"), "{out}");
}

#[test]
fn a_form_that_matches_no_report_is_said_to_be_unread() {
    let g = GameDir::with_scenario("form2", BRAWNER);
    reply(
        &g,
        "form1",
        "7th Wisconsin: hold\n\n> ORDERS -- edit below and send back\n\
         > ------------------------------------------------------------------------\n\
         > From Nobody:\n> 2nd Wisconsin: advance 2 inches north\n\
         > ------------------------------------------------------------------------\n",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(out.contains("it was NOT read"), "{out}");
    assert_eq!(orders_of(&g, "2nd Wisconsin"), 0);
}

/// In an umpired game a paragraph the language cannot read still goes to
/// the umpire as free text, whatever heading it has; that is not a
/// refusal, so READY counts. Without an umpire the error is the answer.
#[test]
fn an_unreadable_paragraph_goes_to_the_umpire_in_an_umpired_game() {
    let g = GameDir::with_scenario("ump", BRAWNER);
    g.db()
        .execute(
            "UPDATE games SET umpire_address = 'umpire@example.test' WHERE name = 'ump'",
            [],
        )
        .unwrap();
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "7th: hold\n\n\
         2nd Wis & 6th Wis: make a great show of force without bringing on an engagement\n\n\
         READY\n\nRegards,\nGibbon",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(out.contains("Sent to the umpire to interpret"), "{out}");
    assert!(out.contains("line 4"), "{out}");
    assert!(!out.contains("NOT EVERYTHING"), "{out}");
    assert!(out.contains("You are READY"), "{out}");
    assert_eq!(
        g.count("SELECT count(*) FROM interpretations WHERE paragraph LIKE '2nd Wis & 6th Wis:%'"),
        1
    );
    // The sign-off is not sent to the umpire.
    assert_eq!(g.count("SELECT count(*) FROM interpretations"), 1);
}

/// Quoted lines that look like orders, outside the report's form, are not
/// read, and the receipt says so.
#[test]
fn quoted_orders_outside_the_form_are_told_not_read() {
    let g = GameDir::with_scenario("quoted", BRAWNER);
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "19th Indiana: hold\n\n\
         On Sun, 22 Nov 2026, Gibbon wrote:\n\
         > 7th Wisconsin: advance 2 inches north\n\
         > see you on the field\n",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(
        out.contains("Quoted lines that look like orders were NOT read"),
        "{out}"
    );
    assert!(out.contains("line 5"), "{out}");
    assert_eq!(orders_of(&g, "7th Wisconsin"), 0);
}

/// An HTML reply (Gmail's shape: the answer above, the report's HTML in a
/// blockquote under "On … wrote:") whose form was edited in the quote.
#[test]
fn an_order_form_edited_in_an_html_reply_is_read() {
    let g = GameDir::with_scenario("formhtml", BRAWNER);
    // Reports keep their HTML packed (migration 0010): read it as the
    // store does.
    let db = g.db();
    let id: i64 = db
        .query_row(
            "SELECT r.id FROM reports r JOIN players p ON p.id = r.player_id WHERE p.name = 'Gibbon'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let html = adjutant::store::report_html(&db, id).unwrap().unwrap();
    assert!(html.contains("7th Wisconsin: hold"), "{html}");
    let edited = html.replacen(
        "7th Wisconsin: hold",
        "7th Wisconsin: advance 2 inches north",
        1,
    );
    let body = format!(
        "<div dir=\"ltr\">New orders for the 7th below.</div><br><div class=\"gmail_quote\">\
         <div dir=\"ltr\" class=\"gmail_attr\">On Sun, 22 Nov 2026 at 10:00, Adjutant &lt;adjutant@example.test&gt; wrote:<br></div>\
         <blockquote class=\"gmail_quote\" style=\"margin:0px 0px 0px 0.8ex\">{edited}</blockquote></div>"
    );
    let raw = format!(
        "From: Gibbon <gibbon@example.test>\r\nTo: {}\r\nSubject: Re: briefing\r\n\
         Message-ID: <formhtml1@example.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{body}\r\n",
        g.token_address("Gibbon", 1),
    );
    g.drop_mail("formhtml1", raw.as_bytes());
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(out.contains("Order form in your reply"), "{out}");
    assert!(out.contains("7th Wisconsin: advance"), "{out}");
    assert_eq!(orders_of(&g, "7th Wisconsin"), 1);
    assert_eq!(g.count("SELECT count(*) FROM orders"), 1, "{out}");
}

/// A heading on its own line with an order on each plain line below it:
/// read as one sentence first, then, since that cannot be read, a step per
/// line.
#[test]
fn a_heading_on_its_own_line_with_an_order_per_line() {
    let g = GameDir::with_scenario("ownline", BRAWNER);
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "2nd Wisconsin:\nadvance 2 inches north\nform line facing north\n\n\
         6th Wisconsin:\nadvance to the Brawner\nfarm in line",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(!out.contains("Not understood"), "{out}");
    assert!(
        out.contains("2nd Wisconsin: advance") && out.contains("then form line facing north"),
        "{out}"
    );
    assert!(
        out.contains("6th Wisconsin: advance to the Brawner farm (22, 22) in line"),
        "{out}"
    );
}

/// A unit given an order that was taken and, in another paragraph of the
/// same mail, one that was refused does not "keep its previous orders":
/// the receipt says the order taken stands. (Line numbers count the
/// PASSWORD line the test harness puts first.)
#[test]
fn a_unit_ordered_in_one_paragraph_and_refused_in_another_is_not_said_to_keep_old_orders() {
    let g = GameDir::with_scenario("twice", BRAWNER);
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "6th Wisconsin: hold\n\n\
         6th Wisconsin: fire at the 26th Georgia\n\n\
         19th Indiana: fire at the 26th Georgia\n",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(
        out.contains("NOT EVERYTHING IN THIS MAIL WAS TAKEN"),
        "{out}"
    );
    assert!(
        out.contains("These units keep their previous orders: 19th Indiana (line 6)."),
        "{out}"
    );
    assert!(
        out.contains(
            "6th Wisconsin: the paragraph at line 4 was not taken, but another order to it in"
        ),
        "{out}"
    );
    assert_eq!(orders_of(&g, "6th Wisconsin"), 1);
}

/// A destroyed regiment takes no orders, and the receipt does not say it
/// "keeps its previous orders" (it has none to keep): found playing Baylor.
#[test]
fn a_destroyed_unit_is_refused_and_not_said_to_keep_its_orders() {
    let g = GameDir::with_scenario("gone", BRAWNER);
    let db = g.db();
    let units: String = db
        .query_row(
            "SELECT json_extract(state_json, '$.battle.units') FROM turns WHERE status = 'open'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let units: Vec<serde_json::Value> = serde_json::from_str(&units).unwrap();
    let i = units
        .iter()
        .position(|u| u["name"] == "7th Wisconsin")
        .unwrap();
    // The snapshot is immutable by trigger; this test stands in for a
    // regiment destroyed in an earlier turn.
    db.execute_batch(&format!(
        "DROP TRIGGER turns_snapshot_immutable;
         UPDATE turns SET state_json = json_set(state_json, '$.battle.units[{i}].castings', 0)
         WHERE status = 'open';"
    ))
    .unwrap();
    g.order_mail(
        "gibbon1",
        "gibbon@example.test",
        "Gibbon",
        "7th Wisconsin: advance to the Brawner farm\n\n19th Indiana: hold\n",
    );
    g.run_once();
    let out = receipts_to(&g, "gibbon@example.test");
    assert!(
        out.contains(
            "the 7th Wisconsin is out of the battle (it was destroyed) and can take no orders"
        ),
        "{out}"
    );
    assert!(
        !out.contains("keep their previous orders: 7th Wisconsin"),
        "{out}"
    );
    assert_eq!(orders_of(&g, "19th Indiana"), 1);
}
