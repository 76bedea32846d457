//! The organiser's and umpire's tools as they use them (issue #17), all
//! through the binary: an ended game, closed pipes, `--json` everywhere
//! with JSON errors, logs off a terminal, the umpire's HELP, truthful
//! "queued" answers, rosters and time zones, open queries, and every kind
//! of mail read back with a real MIME parser.

mod common;

use common::{GameDir, adjutant, repo};
use std::io::Read as _;
use std::process::Stdio;

fn out(cmd: &mut assert_cmd::Command) -> (i32, String, String) {
    let o = cmd.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every message in the outbox, parsed, with its decoded text parts.
fn mails(g: &GameDir) -> Vec<(Vec<u8>, String)> {
    let mut names: Vec<_> = std::fs::read_dir(g.path("var/outbox/new"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| {
            let raw = std::fs::read(p).unwrap();
            let m = mailparse::parse_mail(&raw).unwrap();
            let mut text = String::new();
            collect_text(&m, &mut text);
            (raw, text)
        })
        .collect()
}

fn collect_text(m: &mailparse::ParsedMail<'_>, into: &mut String) {
    if m.subparts.is_empty() {
        if m.ctype.mimetype.starts_with("text/") {
            into.push_str(&m.get_body().unwrap());
            into.push('\n');
        }
    } else {
        for p in &m.subparts {
            collect_text(p, into);
        }
    }
}

fn set_umpire(g: &GameDir, address: &str) {
    let (code, _, err) =
        out(adjutant(g.dir.path()).args(["game", "umpire", &g.name, "--address", address]));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn an_ended_game_processes_nothing_takes_no_orders_and_says_so() {
    let g = GameDir::training("ending");
    set_umpire(&g, "ump@example.test");
    let (code, _, err) =
        out(adjutant(g.dir.path()).args(["game", "end", "ending", "--because", "Pryor withdrew"]));
    assert_eq!(code, 0, "{err}");

    let (code, _, err) = out(adjutant(g.dir.path()).args(["game", "process", "ending"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has ended"), "{err}");

    for cmd in ["PROCESS", "RELEASE", "EXTEND 24h", "BROADCAST \"more\""] {
        let (code, stdout, _) = out(adjutant(g.dir.path()).args(["umpire", "ending", cmd]));
        assert_eq!(code, 2, "{cmd}: {stdout}");
        assert!(stdout.contains("ended"), "{cmd}: {stdout}");
    }
    // HELP still answers on an ended game: it changes nothing.
    let (code, stdout, _) = out(adjutant(g.dir.path()).args(["umpire", "ending", "HELP"]));
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("ROLLBACK <turn>"), "{stdout}");

    let (_, show, _) = out(adjutant(g.dir.path()).args(["game", "show", "ending"]));
    assert!(show.contains("finished"), "{show}");
    assert!(
        !show.contains("(open)"),
        "an ended game shows no open turn: {show}"
    );
    assert!(show.contains("the game is over"), "{show}");
    let turns_before = g.count("SELECT count(*) FROM turns");

    // A player who writes is told, and nothing of his is taken.
    g.order_mail(
        "late-orders",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to the crossroads.\nREADY",
    );
    g.run_once();
    let all = mails(&g);
    let told = all
        .iter()
        .find(|(_, t)| t.contains("has ended"))
        .expect("the player is told the game ended");
    assert!(told.1.contains("nothing in your"), "{}", told.1);
    assert!(told.1.contains("(Pryor withdrew)"), "{}", told.1);
    assert_eq!(g.count("SELECT count(*) FROM orders"), 0);
    assert_eq!(g.count("SELECT count(*) FROM turns"), turns_before);
    assert!(
        g.statuses()
            .iter()
            .any(|(s, d)| s == "refused" && d.contains("ended"))
    );
}

/// Spawns the binary with stdout a pipe whose reader is gone at once:
/// every write fails with EPIPE.
fn with_closed_stdout(g: &GameDir, args: &[&str]) -> (i32, String) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("adjutant"))
        .current_dir(g.dir.path())
        .env_remove("ADJUTANT_CONFIG")
        .env_remove("RUST_LOG")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap().code().unwrap_or(-1), err)
}

#[test]
fn a_closed_pipe_ends_quietly_with_the_documented_exit_code() {
    let g = GameDir::training("piped");
    out(adjutant(g.dir.path()).args(["game", "process", "piped"]));
    for args in [
        vec!["game", "show", "piped"],
        vec!["game", "show", "piped", "--json"],
        vec!["game", "list"],
        vec!["replay", "piped"],
        vec!["replay", "piped", "--json"],
        vec!["umpire", "--help"],
        vec![
            "calc",
            "fire",
            "--firers",
            "21",
            "--targets",
            "16",
            "--effectiveness",
            "4",
        ],
        vec!["scenario", "check", "missing.toml"],
    ] {
        let (code, err) = with_closed_stdout(&g, &args);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
        let expected = if args[0] == "scenario" { 2 } else { 0 };
        assert_eq!(code, expected, "{args:?}: {err}");
    }
}

#[test]
fn every_command_offers_json_and_its_errors_are_json_there() {
    let g = GameDir::training("jsony");
    let json = |args: &[&str]| -> (i32, serde_json::Value) {
        let (code, stdout, err) = out(adjutant(g.dir.path()).args(args));
        let v: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {stdout} / {err}"));
        (code, v)
    };
    let scenario = repo("scenarios/training.toml");
    let scenario = scenario.to_str().unwrap();
    assert_eq!(
        json(&["init", "--json"]).1["schema_version"]
            .as_i64()
            .map(|v| v > 0),
        Some(true)
    );
    assert_eq!(
        json(&["scenario", "check", scenario, "--json"]).1["valid"],
        true
    );
    assert!(json(&["run", "--once", "--json"]).1["ingest"].is_object());
    assert!(json(&["game", "list", "--json"]).1.is_array());
    assert_eq!(
        json(&["game", "show", "jsony", "--json"]).1["name"],
        "jsony"
    );
    assert!(json(&["game", "deadline", "jsony", "--json"]).1["summary"].is_string());
    assert!(
        json(&["calc", "delay", "--distance", "14", "--json"])
            .1
            .is_object()
    );
    assert_eq!(
        json(&["game", "end", "jsony", "--because", "rain", "--json"]).1["ended"],
        true
    );

    // Errors: one documented shape, exit code as in text mode.
    for (args, code) in [
        (vec!["game", "show", "nope", "--json"], 2),
        (vec!["game", "shw", "--json"], 2),
        (vec!["scenario", "check", "missing.toml", "--json"], 2),
        (vec!["game", "process", "jsony", "--json"], 2),
    ] {
        let (c, v) = json(&args);
        assert_eq!(c, code, "{args:?}: {v}");
        assert_eq!(v["error"]["exit_code"], code, "{args:?}: {v}");
        assert_eq!(v["error"]["kind"], "usage", "{args:?}: {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
    // The demo too, at its end.
    let demo = tempfile::tempdir().unwrap();
    let (code, stdout, err) = out(adjutant(demo.path()).args(["demo", "--dir", "d", "--json"]));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["cycles"].as_array().map(Vec::len), Some(5));
}

#[test]
fn logs_off_a_terminal_are_plain_key_value_or_json_on_request() {
    let g = GameDir::training("logs");
    let (code, _, err) = out(adjutant(g.dir.path())
        .env("RUST_LOG", "info")
        .args(["run", "--once"]));
    assert_eq!(code, 0);
    assert!(!err.contains('\u{1b}'), "ANSI codes in a log file: {err}");
    assert!(
        err.contains("one cycle done") && err.contains("stored=0"),
        "{err}"
    );
    assert!(!err.contains("CycleReport"), "a Debug dump: {err}");

    let (code, _, err) = out(adjutant(g.dir.path()).env("RUST_LOG", "info").args([
        "--log-format",
        "json",
        "run",
        "--once",
    ]));
    assert_eq!(code, 0);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!lines.is_empty());
    for l in lines {
        let v: serde_json::Value =
            serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"));
        assert!(v["level"].is_string(), "{l}");
    }
}

#[test]
fn the_umpire_help_lists_every_command_and_answers_say_queued() {
    let g = GameDir::training("helpful");
    set_umpire(&g, "ump@example.test");
    let (_, help, _) = out(adjutant(g.dir.path()).args(["umpire", "--help"]));
    for verb in [
        "RELEASE",
        "REDO",
        "SET",
        "INTERPRET",
        "REJECT",
        "DICE",
        "PAUSE",
        "RESUME",
        "EXTEND",
        "DEADLINE",
        "PROCESS",
        "ROLLBACK",
        "ROLLFORWARD",
        "REPLACE",
        "EJECT",
        "BROADCAST",
        "ORDERS FOR",
        "HELP",
    ] {
        assert!(
            help.contains(&format!("\n  {verb}")),
            "{verb} missing:\n{help}"
        );
    }
    let (code, _, err) =
        out(adjutant(g.dir.path()).args(["game", "deadline", "helpful", "--every", "48h"]));
    assert_eq!(code, 0, "{err}");
    let (code, said, _) = out(adjutant(g.dir.path()).args(["umpire", "helpful", "EXTEND", "24h"]));
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("queued for 2 players"), "{said}");
    assert!(!said.contains("told"), "{said}");
    let (_, said, _) =
        out(adjutant(g.dir.path()).args(["umpire", "helpful", "BROADCAST", "\"Rain.\""]));
    assert!(said.contains("queued for 2 players"), "{said}");
}

#[test]
fn a_roster_fills_the_players_and_unknown_zones_are_refused_with_the_nearest() {
    let dir = tempfile::tempdir().unwrap();
    adjutant(dir.path()).arg("init").assert().success();
    let scenario = repo("scenarios/training.toml");
    let (code, _, err) = out(adjutant(dir.path())
        .args(["game", "create", "--name", "rostered", "--scenario"])
        .arg(&scenario)
        .args(["--player", "Blue=john@example.org,Europe/Paris"]));
    assert_eq!(code, 0, "{err}");
    let (_, show, _) = out(adjutant(dir.path()).args(["game", "show", "rostered", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&show).unwrap();
    let blue = v["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Blue")
        .unwrap();
    assert_eq!(blue["addresses"][0]["address"], "john@example.org");
    assert_eq!(blue["time_zone"], "Europe/Paris");

    // A roster file, the same way.
    let roster = dir.path().join("roster.toml");
    std::fs::write(
        &roster,
        "[[players]]\nname = \"Grey\"\naddress = \"mary@example.org\"\ntime_zone = \"Europe/London\"\n",
    )
    .unwrap();
    let (code, stdout, err) = out(adjutant(dir.path())
        .args(["game", "create", "--name", "rostered2", "--roster"])
        .arg(&roster)
        .arg("--scenario")
        .arg(&scenario));
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("mary@example.org"), "{stdout}");
    assert!(stdout.contains("did not name Blue"), "{stdout}");

    let (code, _, err) = out(adjutant(dir.path())
        .args(["game", "create", "--name", "badzone", "--scenario"])
        .arg(&scenario)
        .args(["--player", "Blue=john@example.org,Europe/Londn"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("did you mean \"Europe/London\""), "{err}");
    let (code, _, err) = out(adjutant(dir.path())
        .args(["game", "create", "--name", "badname", "--scenario"])
        .arg(&scenario)
        .args(["--player", "Bleu=john@example.org"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("did you mean Blue"), "{err}");

    // scenario check refuses the same slip in a scenario file.
    let text = std::fs::read_to_string(&scenario)
        .unwrap()
        .replace("Europe/London", "Europe/Londn");
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, text).unwrap();
    let (code, _, err) = out(adjutant(dir.path()).args(["scenario", "check"]).arg(&bad));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Europe/London"), "{err}");
}

#[test]
fn open_queries_are_listed_and_warned_about_when_the_turn_runs_without_them() {
    let g = GameDir::training("queries");
    set_umpire(&g, "ump@example.test");
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio is to make a great show of force toward the rebels yonder but on no account bring on an engagement.",
    );
    g.run_once();
    let (_, show, _) = out(adjutant(g.dir.path()).args(["game", "show", "queries"]));
    assert!(show.contains("open queries"), "{show}");
    assert!(show.contains("F1-1"), "{show}");
    let (code, said, err) = out(adjutant(g.dir.path()).args(["game", "process", "queries"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        said.contains("warning: 1 free-text order(s) still wait"),
        "{said}"
    );
    assert!(said.contains("F1-1"), "{said}");
    // The umpire's report of the held turn names it too.
    let report: String = g
        .db()
        .query_row(
            "SELECT text FROM reports WHERE player_id IS NULL ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(report.contains("OPEN QUERIES"), "{report}");
    assert!(report.contains("F1-1 from Blue"), "{report}");
}

#[test]
fn every_kind_of_mail_parses_back_with_typed_content_types() {
    let g = GameDir::training("mime");
    set_umpire(&g, "ump@example.test");
    let (code, _, err) =
        out(adjutant(g.dir.path()).args(["game", "deadline", "mime", "--every", "48h"]));
    assert_eq!(code, 0, "{err}");
    // Receipts, a free-text query for the umpire, a refusal (wrong password).
    g.order_mail(
        "blue1",
        "blue@example.test",
        "Blue",
        "10th Ohio: advance to the crossroads.\n12th Ohio: fire at the moon.\n\n\
         14th Ohio is to make a great show of force toward the rebels yonder.\nREADY",
    );
    g.order_mail(
        "grey1",
        "grey@example.test",
        "Grey",
        "3rd Tennessee: hold.\nREADY",
    );
    g.drop_mail(
        "forged",
        b"From: Grey <grey@example.test>\r\nTo: adjutant@example.test\r\nSubject: orders\r\n\
          Message-ID: <forged@example.test>\r\n\r\nPASSWORD wrong-wrong-wrong\r\n3rd Tennessee: retire.\r\n",
    );
    g.run_once();
    // Umpire notices, a replacement player's secret, the held turn's
    // preview and report, then its release.
    for cmd in [
        vec!["EXTEND", "24h"],
        vec!["BROADCAST", "\"Rain.\""],
        vec!["REPLACE", "Grey", "grey2@example.test"],
        vec!["REJECT", "F1-1:", "\"Write it as an order.\""],
    ] {
        let (code, said, _) = out(adjutant(g.dir.path()).args(["umpire", "mime"]).args(&cmd));
        assert_eq!(code, 0, "{cmd:?}: {said}");
    }
    // Both players were READY: the first cycle ran turn 1, held for review.
    let (code, said, _) = out(adjutant(g.dir.path()).args(["umpire", "mime", "RELEASE"]));
    assert_eq!(code, 0, "{said}");
    g.run_once();
    // REPORT and HISTORY: the report again, and HTML reports attached.
    g.order_mail("blue2", "blue@example.test", "Blue", "REPORT\n\nHISTORY");
    g.run_once();

    let kinds: Vec<String> = {
        let db = g.db();
        let mut st = db
            .prepare("SELECT DISTINCT kind FROM outbound_mail ORDER BY kind")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    for kind in [
        "receipt",
        "refusal",
        "report",
        "history",
        "umpire-report",
        "umpire-preview",
        "needs-interpretation",
    ] {
        assert!(
            kinds.iter().any(|k| k == kind),
            "no {kind} mail among {kinds:?}"
        );
    }
    let all = mails(&g);
    let mut html_attachments = 0;
    for (raw, _) in &all {
        let m = mailparse::parse_mail(raw).unwrap();
        check_parts(&m, &mut html_attachments);
        let h = &m.headers;
        use mailparse::MailHeaderMap as _;
        assert!(h.get_first_value("Message-ID").is_some());
        assert_eq!(
            h.get_first_value("Auto-Submitted").as_deref(),
            Some("auto-generated")
        );
        assert_eq!(h.get_first_value("MIME-Version").as_deref(), Some("1.0"));
        assert!(
            mailparse::addrparse_header(h.get_first_header("To").unwrap()).is_ok(),
            "unreadable To"
        );
    }
    assert!(
        html_attachments > 0,
        "HISTORY sends its reports as HTML attachments"
    );
}

fn check_parts(m: &mailparse::ParsedMail<'_>, html_attachments: &mut usize) {
    let t = &m.ctype.mimetype;
    assert!(t.contains('/') && !t.contains(' '), "bad type `{t}`");
    if t.starts_with("multipart/") {
        assert!(m.ctype.params.contains_key("boundary"), "{t}");
        for p in &m.subparts {
            check_parts(p, html_attachments);
        }
        return;
    }
    if t.starts_with("text/") {
        assert_eq!(m.ctype.charset, "utf-8", "{t}");
    }
    let disposition = m.get_content_disposition();
    if disposition.disposition == mailparse::DispositionType::Attachment {
        assert!(disposition.params.contains_key("filename"), "{t}");
        if t == "text/html" {
            *html_attachments += 1;
            assert!(m.get_body().unwrap().contains('<'));
        }
    }
}

#[test]
fn one_convention_for_names_options_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["game", "show", "--help"],
        vec!["game", "process", "--help"],
        vec!["game", "deadline", "--help"],
        vec!["game", "end", "--help"],
        vec!["game", "umpire", "--help"],
        vec!["replay", "--help"],
        vec!["archive", "export", "--help"],
        vec!["umpire", "--help"],
    ] {
        let (_, help, _) = out(adjutant(dir.path()).args(&args));
        let usage = help.lines().find(|l| l.starts_with("Usage:")).unwrap();
        assert!(usage.contains("<GAME>"), "{args:?}: {usage}");
        assert!(!usage.contains("<NAME>"), "{args:?}: {usage}");
    }
    // The same deadline options on create and deadline, old names kept.
    for args in [
        vec!["game", "create", "--help"],
        vec!["game", "deadline", "--help"],
    ] {
        let (_, help, _) = out(adjutant(dir.path()).args(&args));
        assert!(help.contains("--every <DURATION>"), "{help}");
        assert!(help.contains("--at <WHEN>"), "{help}");
        assert!(help.contains("--deadline-every"), "{help}");
    }
    // Every calc option says what it is.
    use clap::CommandFactory as _;
    let calc = adjutant::calc::CalcArgs::command();
    for sub in calc.get_subcommands() {
        for arg in sub.get_arguments() {
            assert!(
                arg.get_help().is_some() || arg.get_id() == "help",
                "calc {} --{} has no help text",
                sub.get_name(),
                arg.get_id()
            );
        }
    }
    // An OS error is said once.
    let (code, _, err) = out(adjutant(dir.path()).args(["scenario", "check", "missing.toml"]));
    assert_eq!(code, 2);
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}
