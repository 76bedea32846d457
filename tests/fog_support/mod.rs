//! Playing a shipped scenario by mail through the binary, every player
//! writing orders (and probes) each turn, and checking every mail sent to
//! a player for what his side may not know (issue #14 §1 and §6).
//!
//! What a side may know is worked out here from the store and the rules,
//! independently of the code under test: the enemy units it saw at the end
//! of each processed turn (the `sighting` events) and those it could see in
//! the open turn's state when it wrote its orders (the sight rules,
//! `side_visibility`).
#![allow(dead_code)]

use crate::common::{GameDir, adjutant};
use adjutant::game::snapshot::Snapshot;
use adjutant::report::place::coords;
use adjutant::rules::iron_brigade::sight::{Activity, SightIndex, Visibility, side_visibility};
use adjutant::rules::iron_brigade::state::{BattleState, Pos, SideId, UnitId};
use adjutant::scenario::Scenario;
use std::collections::{BTreeMap, BTreeSet};

/// One outbound mail, decoded.
#[derive(Debug, Clone)]
pub struct Mail {
    pub file: String,
    pub to: String,
    pub subject: String,
    /// Every text part (plain and HTML), decoded, joined.
    pub body: String,
}

pub fn decode(file: &str, raw: &[u8]) -> Mail {
    let m = mailparse::parse_mail(raw).unwrap();
    let header = |n: &str| {
        m.headers
            .iter()
            .find(|h| h.get_key().eq_ignore_ascii_case(n))
            .map(|h| h.get_value())
            .unwrap_or_default()
    };
    let mut body = String::new();
    let mut stack = vec![&m];
    while let Some(p) = stack.pop() {
        if !p.subparts.is_empty() {
            stack.extend(p.subparts.iter().rev());
            continue;
        }
        if p.ctype.mimetype.starts_with("text/") {
            body.push_str(&p.get_body().unwrap().replace("\r\n", "\n"));
            body.push('\n');
        }
    }
    Mail {
        file: file.to_string(),
        to: header("To"),
        subject: header("Subject"),
        body,
    }
}

/// `needle` occurs in `hay` as a whole word (case-insensitive).
pub fn contains_word(hay: &str, needle: &str) -> bool {
    let hay = hay.to_lowercase();
    let needle = needle.to_lowercase();
    let mut start = 0;
    while let Some(i) = hay[start..].find(&needle) {
        let at = start + i;
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        if boundary(before) && boundary(after) {
            return true;
        }
        start = at + needle.len().max(1);
    }
    false
}

/// A player of the scenario and what he commands.
#[derive(Debug, Clone)]
pub struct Player {
    pub name: String,
    pub side_name: String,
    pub side: SideId,
    pub address: String,
    /// His officers' names (for "From ..." lines).
    pub officers: Vec<String>,
}

/// A game being played through the binary.
pub struct Play {
    pub g: GameDir,
    pub scenario: Scenario,
    pub players: Vec<Player>,
    /// Outbox files already checked.
    checked: BTreeSet<String>,
    /// Per side: every enemy unit it has seen so far (end-of-turn sightings
    /// and the open turns' sight when it wrote orders).
    pub seen_ever: BTreeMap<SideId, BTreeSet<UnitId>>,
    /// Mails written so far (for unique file names).
    written: usize,
    /// Every mail checked, for tests that look further.
    pub mails: Vec<Mail>,
}

impl Play {
    /// A fresh game of the scenario at `path` (in the repository), or of
    /// `toml` when given (written to a file first).
    pub fn new(name: &str, path: &str) -> Play {
        let text = std::fs::read_to_string(crate::common::repo(path)).unwrap();
        Play::from_text(name, &text)
    }

    pub fn from_text(name: &str, text: &str) -> Play {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("scenario.toml");
        std::fs::write(&file, text).unwrap();
        let g = GameDir::with_scenario(name, file.to_str().unwrap());
        let scenario = Scenario::from_toml_str(text, "scenario").unwrap();
        let mut play = Play {
            g,
            scenario,
            players: Vec::new(),
            checked: BTreeSet::new(),
            seen_ever: BTreeMap::new(),
            written: 0,
            mails: Vec::new(),
        };
        // The first run makes the reply-token key `send` needs.
        play.g.run_once();
        let state = play.open_state();
        play.players = play
            .scenario
            .players
            .iter()
            .map(|p| Player {
                name: p.name.clone(),
                side_name: p.side.clone(),
                side: state
                    .sides
                    .iter()
                    .find(|s| s.name == p.side)
                    .map(|s| s.id)
                    .unwrap(),
                address: p.addresses[0].clone(),
                officers: p.officers.clone(),
            })
            .collect();
        // The briefing before turn 1 tells each side what it sees at the
        // start (issue #14 §2): those enemies are known from then on.
        for side in &state.sides {
            let seen = Play::sees(&state, side.id);
            play.seen_ever.entry(side.id).or_default().extend(seen);
        }
        play
    }

    /// The open turn's number, or `None` once the game is over.
    pub fn open_turn(&self) -> Option<u32> {
        self.g
            .db()
            .query_row(
                "SELECT number FROM turns WHERE status = 'open' AND superseded_at IS NULL",
                [],
                |r| r.get(0),
            )
            .ok()
    }

    /// The latest live snapshot (the open turn's, or the final state).
    pub fn open_state(&self) -> BattleState {
        let json: String = self
            .g
            .db()
            .query_row(
                "SELECT state_json FROM turns WHERE superseded_at IS NULL
                 ORDER BY number DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        Snapshot::from_json(&json).unwrap().battle
    }

    /// What `side` sees in `state` as intake reckons it (no activity).
    pub fn sees(state: &BattleState, side: SideId) -> BTreeSet<UnitId> {
        let index = SightIndex::new(&state.terrain);
        let none = BTreeSet::new();
        side_visibility(
            state,
            &index,
            side,
            &Activity {
                fired: &none,
                moved: &none,
            },
        )
        .seen
        .keys()
        .copied()
        .collect()
    }

    /// Takes in every stored end-of-turn sighting.
    pub fn note_sightings(&mut self) {
        let db = self.g.db();
        let mut st = db
            .prepare("SELECT data_json FROM events WHERE kind = 'sighting'")
            .unwrap();
        let rows: Vec<String> = st
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for j in rows {
            let v: serde_json::Value = serde_json::from_str(&j).unwrap();
            let side: SideId = serde_json::from_value(v["side"].clone()).unwrap();
            let vis: Visibility = serde_json::from_value(v["seen"].clone()).unwrap();
            self.seen_ever
                .entry(side)
                .or_default()
                .extend(vis.seen.keys().copied());
        }
    }

    /// The units `player` commands (his officers' chains of command),
    /// still on the field, in the state's order.
    pub fn units_of(&self, state: &BattleState, player: &Player) -> Vec<UnitId> {
        let officers: Vec<_> = state
            .officers
            .iter()
            .filter(|o| player.officers.iter().any(|n| n == &o.name))
            .map(|o| o.id)
            .collect();
        state
            .units_of(player.side)
            .filter(|u| u.castings > 0 && !u.marks.left_field && u.marks.combined_into.is_none())
            .filter(|u| {
                officers.is_empty() || officers.iter().any(|o| state.in_chain_of_command(u.id, *o))
            })
            .map(|u| u.id)
            .collect()
    }

    /// `side`'s designations as stored: unit → letter.
    pub fn designations(&self, side: SideId) -> BTreeMap<UnitId, String> {
        let db = self.g.db();
        let mut st = db
            .prepare("SELECT unit, designation FROM enemy_designations WHERE side = ?1")
            .unwrap();
        st.query_map([side.0], |r| Ok((UnitId(r.get(0)?), r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// Mails `body` as `player`'s orders, answering his reply address for
    /// the open turn (as a reply to his report would: a PASSWORD line would
    /// cost an Argon2 hash per mail, most of a debug build's time).
    pub fn send(&mut self, player: &Player, body: &str) {
        self.written += 1;
        let file = format!("m{:05}-{}", self.written, player.name);
        let to = self
            .g
            .token_address(&player.name, self.open_turn().unwrap_or(1));
        let raw = format!(
            "From: {} <{}>\r\nTo: {to}\r\nSubject: Re: orders\r\n\
             Message-ID: <{file}@example.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
             Content-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
            player.name,
            player.address,
            body.replace('\n', "\r\n")
        );
        self.g.drop_mail(&file, raw.as_bytes());
    }

    /// Mails `body` as `player`'s orders, then READY in a mail of its own.
    pub fn send_ready(&mut self, player: &Player, body: &str) {
        self.send(player, body);
        self.send(player, "READY");
    }

    /// Mails in the outbox not yet checked, oldest first.
    pub fn new_mails(&mut self) -> Vec<Mail> {
        let dir = self.g.path("var/outbox/new");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !self.checked.contains(n))
            .collect();
        names.sort();
        let mails: Vec<Mail> = names
            .iter()
            .map(|n| decode(n, &std::fs::read(dir.join(n)).unwrap()))
            .collect();
        self.checked.extend(names);
        self.mails.extend(mails.iter().cloned());
        mails
    }

    /// Checks `mail`, sent to `player` while `states` were the states he
    /// could have been told of (the turn his orders were read in and the
    /// one the reports describe): no enemy's real name (unless identities
    /// are known), and no enemy his side has not seen at any place it was
    /// in those states.
    pub fn assert_no_leak(&self, mail: &Mail, player: &Player, states: &[&BattleState]) {
        let known = self.scenario.identities == adjutant::identity::IdentityPolicy::Known;
        let body = scrub_echo(&mail.body);
        let mail = &Mail {
            body,
            ..mail.clone()
        };
        let seen = self
            .seen_ever
            .get(&player.side)
            .cloned()
            .unwrap_or_default();
        for u in self
            .scenario
            .units
            .iter()
            .filter(|u| u.side != player.side_name)
        {
            let id = states
                .first()
                .and_then(|s| s.units.iter().find(|x| x.name == u.name))
                .map(|x| x.id);
            // A real name: never under the hidden policy; under the known
            // policy only for an enemy the side has seen.
            let may_name = known && id.is_some_and(|id| seen.contains(&id));
            if !may_name {
                for name in std::iter::once(&u.name).chain(u.aliases.iter()) {
                    // A bare alias such as "2nd" is also part of his own
                    // units' names ("2nd Virginia"): not a sign of a leak.
                    let own_word = self
                        .scenario
                        .units
                        .iter()
                        .filter(|o| o.side == player.side_name)
                        .any(|o| contains_word(&o.name, name));
                    if own_word {
                        continue;
                    }
                    assert!(
                        !contains_word(&mail.body, name),
                        "{}'s mail `{}` names the enemy {name}:\n{}",
                        player.name,
                        mail.subject,
                        mail.body
                    );
                }
            }
            let Some(id) = id else { continue };
            if seen.contains(&id) {
                continue;
            }
            for s in states {
                let Some(unit) = s.unit(id) else { continue };
                if unit.castings == 0 {
                    continue;
                }
                let at = coords(unit.position);
                assert!(
                    !mail.body.contains(&at),
                    "{}'s mail `{}` places the unseen {} at {at}:\n{}",
                    player.name,
                    mail.subject,
                    u.name,
                    mail.body
                );
            }
        }
    }

    /// The player a mail was sent to.
    pub fn reader(&self, mail: &Mail) -> Option<Player> {
        self.players
            .iter()
            .find(|p| mail.to.contains(&p.address))
            .cloned()
    }

    /// `adjutant replay` of the game: every turn OK.
    pub fn assert_replay_agrees(&self) {
        let out = adjutant(self.g.dir.path())
            .arg("replay")
            .arg(&self.g.name)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "replay: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.contains("MISMATCH"), "{text}");
    }
}

/// A mail's text without the player's own words echoed back: a
/// receipt's "in: <paragraph>" lines and the '<phrase>' an error quotes.
/// What is left (how an order was understood, suggestions, reports) must
/// hold nothing hidden.
pub fn scrub_echo(body: &str) -> String {
    let mut out = String::new();
    for line in body.lines() {
        if line.starts_with("    in: ") {
            continue;
        }
        if line.starts_with("  ! line ") || line.starts_with("  ? ") {
            // Drop every '...' quotation, keep the rest (the suggestions).
            let mut keep = String::new();
            let mut quoted = false;
            let chars: Vec<char> = line.chars().collect();
            for (i, c) in chars.iter().enumerate() {
                let prev_alnum = i > 0 && chars[i - 1].is_alphanumeric();
                let next_alnum = chars.get(i + 1).is_some_and(|c| c.is_alphanumeric());
                // An apostrophe inside a word ("Brawner's") is not a quote.
                if *c == '\'' && !(prev_alnum && next_alnum) {
                    quoted = !quoted;
                    continue;
                }
                if !quoted {
                    keep.push(*c);
                }
            }
            out.push_str(&keep);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The receipt lines of a receipt: one per order read (understood `*`,
/// refused `!`), and the paragraphs not understood (`!` with a reason).
pub fn receipt_answers(body: &str) -> usize {
    body.lines()
        .filter(|l| l.starts_with("  * ") || l.starts_with("  ! ") || l.starts_with("  ? "))
        .count()
}

/// The table position in a receipt's "(x, y)" for `p` (1 decimal, no
/// trailing ".0"), as `orders::render` writes it.
pub fn receipt_place(p: Pos) -> String {
    let num = |x: f64| {
        let r = (x * 10.0).round() / 10.0;
        if r.fract() == 0.0 {
            format!("{r:.0}")
        } else {
            format!("{r:.1}")
        }
    };
    format!("({}, {})", num(p.x), num(p.y))
}

/// A turn's orders for one player: every unit of his gets a paragraph,
/// most of them moves on the place farthest from his men (behind the
/// enemy's line), the rest probes of the identity policy in rotation —
/// the enemy's real names as targets and places, designations, and
/// descriptions. Returns the mail body and the number of paragraphs.
/// READY goes in a mail of its own (`Play::send_ready`): the probes are
/// refused by design, and a READY beside a refused order is not counted
/// (issue #15, `docs/orders.md`).
pub fn orders_for(play: &Play, state: &BattleState, player: &Player, turn: u32) -> (String, usize) {
    let units = play.units_of(state, player);
    let names: Vec<String> = units
        .iter()
        .filter_map(|id| state.unit(*id))
        .map(|u| u.name.clone())
        .collect();
    let enemies: Vec<&str> = play
        .scenario
        .units
        .iter()
        .filter(|u| u.side != player.side_name)
        .map(|u| u.name.as_str())
        .collect();
    let letters: Vec<String> = play.designations(player.side).into_values().collect();
    // The landmark farthest from his units: behind the enemy's line.
    let centre = {
        let ps: Vec<Pos> = units
            .iter()
            .filter_map(|id| state.unit(*id))
            .map(|u| u.position)
            .collect();
        let n = ps.len().max(1) as f64;
        Pos::new(
            ps.iter().map(|p| p.x).sum::<f64>() / n,
            ps.iter().map(|p| p.y).sum::<f64>() / n,
        )
    };
    let far = state
        .terrain
        .landmarks
        .iter()
        .max_by(|a, b| {
            a.position
                .distance(centre)
                .total_cmp(&b.position.distance(centre))
        })
        .map(|l| l.name.clone())
        .unwrap_or_else(|| "(24, 18)".to_string());
    let mut paragraphs = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let k32 = k as u32;
        let enemy = enemies
            .get((turn as usize + k) % enemies.len().max(1))
            .copied()
            .unwrap_or("5th Virginia");
        let letter = letters
            .get((turn as usize + k) % letters.len().max(1))
            .cloned()
            .unwrap_or_else(|| "B".to_string());
        let order = match (turn + k32) % 12 {
            0 => format!("fire at the {enemy}"),
            1 => format!("advance to the {enemy}"),
            2 => "face the enemy".to_string(),
            3 => format!("fire at {letter}"),
            4 => "charge the enemy battery".to_string(),
            5 => "advance toward the regiment to our front".to_string(),
            6 => format!("advance toward {letter}"),
            7 => format!("face {letter}"),
            8 => format!("charge enemy {letter}"),
            9 => "fire at the nearest enemy".to_string(),
            _ => format!("advance to {far} in line; then fire at will"),
        };
        // Early on, most units march so that the sides meet.
        let order = if turn < 8 && !(turn + k32).is_multiple_of(3) {
            format!("advance to {far}; then fire at will")
        } else {
            order
        };
        paragraphs.push(format!("{name}: {order}."));
    }
    let n = paragraphs.len();
    (paragraphs.join("\n\n"), n)
}

/// The lines of `section` (a heading in capitals) of a report's text
/// part, up to the next heading.
pub fn section<'a>(body: &'a str, heading: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in body.lines() {
        if line == heading {
            inside = true;
            continue;
        }
        if inside {
            let is_heading = !line.is_empty()
                && !line.starts_with(' ')
                && line.chars().any(|c| c.is_ascii_uppercase())
                && !line.chars().any(|c| c.is_ascii_lowercase());
            if is_heading {
                break;
            }
            out.push(line);
        }
    }
    out
}

/// No unit is both gone and shown alive in a player's report: his own
/// gone units say so; every enemy in sight under a letter is on the
/// field; a friend of another command that is gone is not listed as if
/// it were not.
pub fn assert_gone_not_alive(play: &Play, mail: &Mail, player: &Player, state: &BattleState) {
    if !mail.body.contains("\nYOUR UNITS\n") {
        return;
    }
    let gone = |u: &adjutant::rules::iron_brigade::state::Unit| {
        u.castings == 0 || u.marks.left_field || u.marks.combined_into.is_some()
    };
    let own = section(&mail.body, "YOUR UNITS").join("\n");
    for u in state.units_of(player.side).filter(|u| gone(u)) {
        let head = format!("  {} -- ", u.name);
        if let Some(i) = own.find(&head) {
            let block: String = own[i + head.len()..]
                .lines()
                .take_while(|l| !l.starts_with("  ") || l.starts_with("    "))
                .collect::<Vec<_>>()
                .join("\n");
            let whole = format!("{}\n{block}", &own[i..].lines().next().unwrap_or(""));
            assert!(
                whole.contains("Condition:"),
                "{}'s report `{}` shows his gone {} without its condition:\n{whole}",
                player.name,
                mail.subject,
                u.name
            );
        }
    }
    let letters = play.designations(player.side);
    for line in section(&mail.body, "ENEMY IN SIGHT") {
        let Some(mark) = line
            .strip_prefix("  ")
            .and_then(|l| l.split_once(". "))
            .map(|(m, _)| m)
            .filter(|m| !m.is_empty() && m.chars().all(|c| c.is_ascii_uppercase()))
        else {
            continue;
        };
        let unit = letters
            .iter()
            .find(|(_, l)| l.as_str() == mark)
            .map(|(id, _)| *id)
            .unwrap_or_else(|| panic!("letter {mark} in `{}` is not stored", mail.subject));
        let u = state.unit(unit).unwrap();
        assert!(
            !gone(u),
            "{}'s report `{}` shows {mark} in sight, but it is gone",
            player.name,
            mail.subject
        );
    }
}

impl Play {
    /// `adjutant archive export`: every side page (`turn-NNN-side-S.html`)
    /// calls the enemy as its players were told — no real name under the
    /// hidden policy. Returns how many side pages were checked.
    pub fn assert_archive_side_pages_keep_the_policy(&self) -> usize {
        let out = self.g.path("site");
        let status = adjutant(self.g.dir.path())
            .args(["archive", "export", &self.g.name, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        if self.scenario.identities == adjutant::identity::IdentityPolicy::Known {
            return 0;
        }
        let mut checked = 0;
        for entry in std::fs::read_dir(&out).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let Some(side) = name
                .strip_suffix(".html")
                .and_then(|n| n.rsplit_once("-side-"))
                .and_then(|(_, s)| s.parse::<usize>().ok())
            else {
                continue;
            };
            let side_name = &self.scenario.sides[side].name;
            let page = std::fs::read_to_string(out.join(&name)).unwrap();
            for u in self.scenario.units.iter().filter(|u| &u.side != side_name) {
                let own_word = |n: &str| {
                    self.scenario
                        .units
                        .iter()
                        .filter(|o| &o.side == side_name)
                        .any(|o| contains_word(&o.name, n))
                };
                for n in std::iter::once(&u.name).chain(u.aliases.iter()) {
                    assert!(
                        own_word(n) || !contains_word(&page, n),
                        "side page {name} names the enemy {n}"
                    );
                }
            }
            checked += 1;
        }
        checked
    }
}
