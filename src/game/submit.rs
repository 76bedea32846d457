//! Reading an accepted order mail: parse it against what the player's side
//! knows, record each order in the book, and answer a receipt saying how
//! every paragraph was understood.
//!
//! This is where mail meets the rules (ARCHITECTURE.md: `game/` is where
//! they meet). Intake has already stored the raw mail, authenticated the
//! sender and written the submission row; everything here runs inside that
//! same transaction, so the orders, the submission and the receipt commit
//! together or not at all.
//!
//! No leaks: the parser only knows the enemies the player's side can see
//! now (APSoF V.C.3), and the receipt only repeats the player's own words
//! and names from that allowed set.

use super::book::{BookError, record_officer_move, record_unit_order};
use super::report_mail::MailSlot;
use super::snapshot::Snapshot;
use crate::mail::intake::{IntakeError, Receipt, SubmissionContext, SubmissionHandler};
use crate::orders::{self, Item, ParseContext, ParsedMail};
use crate::rules::iron_brigade::orders::UnitOrder;
use crate::rules::iron_brigade::sight::{Activity, SightIndex, side_visibility};
use crate::rules::iron_brigade::state::{OfficerId, Pos, SideId, UnitId};
use crate::scenario::Scenario;
use crate::store::GameId;
use rusqlite::{Transaction, params};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

/// What a game's scenario adds to every parse: place aliases and the scale.
#[derive(Debug, Clone)]
struct GameNames {
    place_aliases: BTreeMap<String, Pos>,
    yards_per_inch: f64,
    /// The game's enemy identity policy (`crate::identity`).
    identities: crate::identity::IdentityPolicy,
}

/// What every mail written against one turn is read with: the turn's
/// battle state, what each side can see in it, and the units' aliases.
/// A turn's snapshot is immutable once stored (the `turns` table refuses
/// updates to it), so this is computed once per turn, not once per mail:
/// decoding the snapshot and the sight computation were most of the cost of
/// reading a mail (BENCHMARKS.md, intake).
#[derive(Debug)]
struct TurnView {
    /// `turns.id` of the turn this was computed from.
    turn_id: i64,
    battle: crate::rules::iron_brigade::state::BattleState,
    /// Per side: the enemy units it can see now (APSoF V.C.3).
    visible: HashMap<SideId, BTreeSet<UnitId>>,
    aliases: BTreeMap<String, UnitId>,
    /// Per player: the officers he writes orders for.
    officers: HashMap<i64, Vec<OfficerId>>,
    /// Per side: its designations of the enemy, every enemy it sees in
    /// this turn's state designated (`game::identity`).
    enemy_names: HashMap<SideId, crate::identity::EnemyNames>,
}

/// The submission handler that reads orders. Caches each game's scenario
/// names, which never change during a game, and each game's view of its
/// current turn ([`TurnView`]).
#[derive(Debug, Default)]
pub struct OrdersHandler {
    names: HashMap<GameId, GameNames>,
    /// Mail settings for REPORT and HISTORY answers (filled by the daemon).
    mail: MailSlot,
    turns: HashMap<GameId, TurnView>,
    /// Each game's mail plane, `None` for Iron Brigade (`engine_game`).
    engines: HashMap<GameId, Option<&'static dyn crate::rules::MailEngine>>,
}

fn sql(e: rusqlite::Error) -> IntakeError {
    IntakeError::Sqlite(e)
}

fn handler_err(e: impl std::fmt::Display) -> IntakeError {
    IntakeError::Handler(e.to_string())
}

impl OrdersHandler {
    pub fn new() -> Self {
        Self::default()
    }

    /// A handler that answers REPORT and HISTORY with the settings the
    /// daemon puts in `mail`.
    pub fn with_mail(mail: MailSlot) -> Self {
        OrdersHandler {
            mail,
            ..Self::default()
        }
    }

    fn names(&mut self, tx: &Transaction<'_>, game: GameId) -> Result<GameNames, IntakeError> {
        if let Some(n) = self.names.get(&game) {
            return Ok(n.clone());
        }
        let (toml, ruleset): (String, String) = tx
            .query_row(
                "SELECT scenario_toml, ruleset FROM games WHERE id = ?1",
                [game.0],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(sql)?;
        // The ruleset boundary: orders are read by this ruleset's language
        // only for a game of a ruleset played by mail.
        crate::rulesets::require_by_mail(&ruleset).map_err(handler_err)?;
        let scenario = Scenario::from_toml_str(&toml, "stored scenario").map_err(handler_err)?;
        let mut place_aliases = BTreeMap::new();
        for l in &scenario.landmarks {
            for a in &l.aliases {
                place_aliases.insert(a.clone(), Pos::new(l.at.x, l.at.y));
            }
        }
        let names = GameNames {
            place_aliases,
            yards_per_inch: scenario.yards_per_inch,
            identities: scenario.identities,
        };
        self.names.insert(game, names.clone());
        Ok(names)
    }
}

impl OrdersHandler {
    /// The view of `game`'s current turn, computed when the turn changed
    /// since the last mail (or on the first mail).
    fn turn_view(
        &mut self,
        tx: &Transaction<'_>,
        game: GameId,
    ) -> Result<&mut TurnView, IntakeError> {
        let turn_id: i64 = tx
            .prepare_cached("SELECT id FROM turns WHERE game_id = ?1 AND superseded_at IS NULL ORDER BY number DESC LIMIT 1")
            .and_then(|mut st| st.query_row([game.0], |r| r.get(0)))
            .map_err(sql)?;
        let stale = self.turns.get(&game).is_none_or(|v| v.turn_id != turn_id);
        if stale {
            let battle = current_snapshot(tx, game)?.battle;
            let index = SightIndex::new(&battle.terrain);
            let none = BTreeSet::new();
            let visible = battle
                .sides
                .iter()
                .map(|s| {
                    let seen = side_visibility(
                        &battle,
                        &index,
                        s.id,
                        &Activity {
                            fired: &none,
                            moved: &none,
                        },
                    );
                    (s.id, seen.seen.keys().copied().collect())
                })
                .collect();
            let view = TurnView {
                turn_id,
                aliases: unit_aliases(tx, game)?,
                battle,
                visible,
                officers: HashMap::new(),
                enemy_names: HashMap::new(),
            };
            self.turns.insert(game, view);
        }
        self.turns
            .get_mut(&game)
            .ok_or_else(|| handler_err("the turn view vanished from the cache"))
    }
}

/// The open turn's snapshot (the state the orders are written against).
fn current_snapshot(tx: &Transaction<'_>, game: GameId) -> Result<Snapshot, IntakeError> {
    let json: String = tx
        .query_row(
            "SELECT state_json FROM turns WHERE game_id = ?1 AND superseded_at IS NULL
             ORDER BY number DESC LIMIT 1",
            [game.0],
            |r| r.get(0),
        )
        .map_err(sql)?;
    Snapshot::from_json(&json).map_err(handler_err)
}

fn player_officers(
    tx: &Transaction<'_>,
    game: GameId,
    player: i64,
) -> Result<Vec<OfficerId>, IntakeError> {
    let mut st = tx
        .prepare(
            "SELECT rules_id FROM officers WHERE game_id = ?1 AND player_id = ?2
             AND rules_id IS NOT NULL ORDER BY rules_id",
        )
        .map_err(sql)?;
    let ids = st
        .query_map(params![game.0, player], |r| r.get::<_, u32>(0))
        .map_err(sql)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql)?;
    Ok(ids.into_iter().map(OfficerId).collect())
}

fn unit_aliases(
    tx: &Transaction<'_>,
    game: GameId,
) -> Result<BTreeMap<String, UnitId>, IntakeError> {
    let mut st = tx
        .prepare(
            "SELECT rules_id, aliases_json FROM units WHERE game_id = ?1 AND rules_id IS NOT NULL",
        )
        .map_err(sql)?;
    let rows = st
        .query_map([game.0], |r| {
            Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?))
        })
        .map_err(sql)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql)?;
    let mut out = BTreeMap::new();
    for (id, json) in rows {
        let aliases: Vec<String> = serde_json::from_str(&json).unwrap_or_default();
        for a in aliases {
            out.insert(a, UnitId(id));
        }
    }
    Ok(out)
}

impl SubmissionHandler for OrdersHandler {
    // The umpire's mail is not taken here (the trait's default refuses it):
    // `umpire::exec::MailHandler` wraps this handler and runs his commands,
    // so the game layer never calls up into the umpire's.

    fn handle(
        &mut self,
        tx: &Transaction<'_>,
        ctx: &SubmissionContext<'_>,
    ) -> Result<Receipt, IntakeError> {
        // A ruleset played through its mail plane (SFRM) reads its own
        // orders (`engine_game`).
        let engine = match self.engines.get(&ctx.game) {
            Some(e) => *e,
            None => {
                let ruleset = crate::store::game_ruleset(tx, ctx.game).map_err(sql)?;
                let e = super::engine_seat::engine_of(&ruleset);
                if e.is_some() {
                    crate::rulesets::require_by_mail(&ruleset).map_err(handler_err)?;
                }
                self.engines.insert(ctx.game, e);
                e
            }
        };
        if let Some(engine) = engine {
            let mail = self.mail.get();
            return super::engine_game::handle_mail(tx, ctx, engine, mail.as_deref());
        }
        let names = self.names(tx, ctx.game)?;
        let mail = self.mail.get();
        let view = self.turn_view(tx, ctx.game)?;
        if let std::collections::hash_map::Entry::Vacant(e) = view.officers.entry(ctx.player_id) {
            e.insert(player_officers(tx, ctx.game, ctx.player_id)?);
        }
        let side = view
            .battle
            .sides
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(ctx.side))
            .map(|s| s.id)
            .unwrap_or(SideId(u8::MAX));
        // The side's designations, with any enemy it sees now and has not
        // been told of yet given its letter (and kept) before the mail is
        // read, so "fire at C" works for whatever the report or map shows.
        if !view.enemy_names.contains_key(&side) {
            let mut names =
                super::identity::load(tx, ctx.game, side, names.identities).map_err(sql)?;
            let seen: Vec<UnitId> = view
                .visible
                .get(&side)
                .map(|v| v.iter().copied().collect())
                .unwrap_or_default();
            super::identity::record_sightings(
                tx,
                ctx.game,
                side,
                &view.battle,
                view.battle.turn,
                seen,
                &mut names,
            )
            .map_err(sql)?;
            view.enemy_names.insert(side, names);
        }
        let view = &*view;
        let battle = &view.battle;
        // What his side can see now: the only enemies he may name.
        let pctx = ParseContext {
            state: battle,
            side,
            player_officers: view
                .officers
                .get(&ctx.player_id)
                .cloned()
                .unwrap_or_default(),
            visible_enemies: view.visible.get(&side).cloned().unwrap_or_default(),
            enemy_names: view
                .enemy_names
                .get(&side)
                .cloned()
                .unwrap_or_else(|| crate::identity::EnemyNames::new(names.identities)),
            yards_per_inch: names.yards_per_inch,
            turn: ctx.counts_for_turn,
            aliases: view.aliases.clone(),
            place_aliases: names.place_aliases,
            cache: Default::default(),
        };
        let mut parsed = orders::parse_mail(ctx.text, &pctx);
        // Lines as the player wrote them, not as the cleaned text counts
        // them (PASSWORD lines, quotes and blank runs are gone from it).
        for e in &mut parsed.errors {
            e.line = ctx.mail_line(e.line);
        }
        for c in parsed
            .courtesies
            .iter_mut()
            .chain(parsed.remarks.iter_mut())
        {
            c.0 = ctx.mail_line(c.0);
        }
        let form = read_form(tx, ctx, &pctx, &mut parsed)?;
        let quoted_orders = quoted_orders(ctx, &pctx);
        let mut lines = record(tx, ctx, &pctx, &parsed)?;
        let not_recorded = lines.iter().any(|l| l.is_err());
        lines.extend(
            super::dispatches::take_dispatches(
                tx,
                ctx.game,
                battle,
                &pctx.player_officers,
                ctx.counts_for_turn,
                &parsed.dispatches,
            )
            .map_err(sql)?,
        );
        // Umpired game: what the parser could not read goes to the umpire
        // to interpret (issue #8, umpire::turns::free_text).
        let forwarded = if !parsed.errors.is_empty()
            && crate::game::interpretation::umpired(tx, ctx.game).map_err(sql)?
        {
            crate::game::interpretation::forward(
                tx,
                ctx.game,
                ctx.game_name,
                ctx.submission_id,
                ctx.player_id,
                ctx.player_name,
                ctx.counts_for_turn,
                &parsed.errors,
                &pctx,
                mail.as_deref(),
                ctx.received_at,
            )
            .map_err(handler_err)?
        } else {
            Vec::new()
        };
        // READY is counted only when every order of the mail was taken (or
        // handed to the umpire): a player who wrote READY believed his
        // orders were in, and a turn run early on a refused order would
        // carry out what he did not mean. The receipt says so at its top.
        let refused = (!parsed.errors.is_empty() && forwarded.is_empty()) || not_recorded;
        let ready_counts = parsed.ready && !refused;
        if ready_counts {
            tx.prepare_cached("UPDATE submissions SET ready = 1 WHERE id = ?1")
                .and_then(|mut st| st.execute([ctx.submission_id]))
                .map_err(sql)?;
        }
        // Accepted: everything in it counts. Partial: something counts
        // (an order, READY, a REPORT or HISTORY request, a paragraph sent
        // to the umpire) and something was refused — a paragraph not
        // understood, or an order or dispatch understood but not taken (an
        // unknown unit, a second dispatch in a turn). Refused: nothing
        // counts.
        let unread = !parsed.errors.is_empty() && forwarded.is_empty();
        let problems = unread || lines.iter().any(|l| l.is_err());
        let counts = lines.iter().any(|l| l.is_ok())
            || !forwarded.is_empty()
            || parsed.ready
            || parsed.report_request.is_some()
            || parsed.history.is_some();
        let status = match (problems, counts) {
            (false, _) => "accepted",
            (true, true) => "partial",
            (true, false) => "refused",
        };
        tx.prepare_cached("UPDATE submissions SET status = ?2 WHERE id = ?1")
            .and_then(|mut st| st.execute(params![ctx.submission_id, status]))
            .map_err(sql)?;
        // REPORT / HISTORY: his own stored reports, queued with the receipt.
        let sent = super::resend::answer_requests(
            tx,
            ctx,
            mail.as_deref(),
            parsed.report_request,
            parsed.history,
        )?;
        let (units, ordered_elsewhere) = kept_units(&pctx, &parsed, &forwarded);
        let kept = Kept {
            refused,
            ready_counts,
            units,
            ordered_elsewhere,
        };
        let mut text = receipt_text(
            ctx,
            &parsed,
            &lines,
            &super::deadline_line::deadline_line(tx, ctx)?,
            &forwarded,
            &kept,
            form.as_ref(),
        );
        if !quoted_orders.is_empty() {
            text.push_str(&format!(
                "\nQuoted lines that look like orders were NOT read (quoted text is never read as\n\
                 orders, except your report's order form); take the '>' off to send them:\n{}",
                quoted_orders
                    .iter()
                    .map(|l| format!("  - line {}: {}\n", l.line, l.text))
                    .collect::<String>()
            ));
        }
        if !sent.is_empty() {
            text.push_str("\nReports asked for:\n");
            for s in &sent {
                text.push_str(&format!("  * {s}\n"));
            }
        }
        Ok(Receipt {
            subject: format!(
                "Orders received: {} turn {} ({})",
                ctx.game_name, ctx.counts_for_turn, ctx.public_id
            ),
            text,
        })
    }
}

/// One receipt line per order: how it was read, or why not.
type Line = Result<String, String>;

fn record(
    tx: &Transaction<'_>,
    ctx: &SubmissionContext<'_>,
    pctx: &ParseContext<'_>,
    parsed: &ParsedMail,
) -> Result<Vec<Line>, IntakeError> {
    let mut lines = Vec::new();
    for item in &parsed.items {
        let understood = orders::normalise(item, pctx);
        let line = match item {
            Item::Unit { steps, .. } if steps.is_empty() => {
                // "no change", "as before": nothing to book; the unit
                // keeps the orders it has.
                Ok(understood)
            }
            Item::Unit {
                unit,
                issued_by,
                follows_previous,
                steps,
                text,
                ..
            } => {
                let timing = orders::expected_effective_turn(item, pctx);
                let order = UnitOrder {
                    id: 0,
                    unit: *unit,
                    issued_by: *issued_by,
                    issued_turn: ctx.counts_for_turn,
                    follows_previous: *follows_previous,
                    steps: steps.clone(),
                };
                match record_unit_order(tx, ctx.game, ctx.submission_id, &order, text, timing.turn)
                {
                    Ok((_, replaced)) => {
                        let mut s = format!("{understood}\n    {timing}");
                        // On the timing line, not after the last note.
                        if replaced.is_some() {
                            s.push_str("; replaces your earlier order to this unit for this turn");
                        } else if *follows_previous {
                            s.push_str("; to follow the orders it already has");
                        }
                        for n in orders::receipt_notes(item, pctx) {
                            s.push_str(&format!("\n    NOTE: {n}"));
                        }
                        Ok(s)
                    }
                    Err(e @ (BookError::UnknownUnit { .. } | BookError::UnknownOfficer { .. })) => {
                        Err(format!("{understood}\n    not recorded: {e}"))
                    }
                    Err(e) => return Err(handler_err(e)),
                }
            }
            Item::Officer { order, text, .. } => {
                match record_officer_move(
                    tx,
                    ctx.game,
                    ctx.submission_id,
                    ctx.counts_for_turn,
                    order,
                    text,
                ) {
                    Ok(_) => {
                        let mut s =
                            format!("{understood}\n    moves on turn {}", ctx.counts_for_turn);
                        for n in orders::receipt_notes(item, pctx) {
                            s.push_str(&format!("\n    NOTE: {n}"));
                        }
                        Ok(s)
                    }
                    Err(e @ BookError::UnknownOfficer { .. }) => {
                        Err(format!("{understood}\n    not recorded: {e}"))
                    }
                    Err(e) => return Err(handler_err(e)),
                }
            }
        };
        lines.push(line);
    }
    Ok(lines)
}

/// A unit's name (empty: none) and a line of the mail.
type NamedLine = (String, usize);

/// What a mail with a refused order leaves as it was: the units that keep
/// their previous orders, and whether its READY counted.
struct Kept {
    refused: bool,
    ready_counts: bool,
    /// Units named by a refused paragraph (with the mail line), and the
    /// lines of refused paragraphs that named no unit of his.
    units: Vec<(String, usize)>,
    /// Units named by a refused paragraph that another paragraph of the
    /// same mail did order (with the refused paragraph's line): that order
    /// was taken and stands.
    ordered_elsewhere: Vec<(String, usize)>,
}

/// The units whose paragraphs were refused (not sent to the umpire), by
/// name with the line; a paragraph that named none is listed as `("", line)`.
/// Second, those of them that another paragraph of the mail did order: they
/// do not keep their previous orders, the order taken stands.
fn kept_units(
    pctx: &ParseContext<'_>,
    parsed: &ParsedMail,
    forwarded: &[crate::game::interpretation::Forwarded],
) -> (Vec<NamedLine>, Vec<NamedLine>) {
    if !forwarded.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let ordered: Vec<UnitId> = parsed
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Unit { unit, .. } => Some(*unit),
            _ => None,
        })
        .collect();
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut elsewhere: Vec<(String, usize)> = Vec::new();
    for e in &parsed.errors {
        if e.units.is_empty() {
            out.push((String::new(), e.line));
        }
        // A unit out of the battle has no orders to keep: its refusal says
        // so on its own.
        let live = e
            .units
            .iter()
            .filter(|u| pctx.state.unit(**u).is_some_and(|x| !x.out_of_battle()));
        for u in live {
            let name = pctx.call_unit(*u);
            let list = if ordered.contains(u) {
                &mut elsewhere
            } else {
                &mut out
            };
            if !list.iter().any(|(n, _)| *n == name) {
                list.push((name, e.line));
            }
        }
    }
    (out, elsewhere)
}

/// The reply's order form, as read (`reply_form`).
struct FormNote {
    /// The turn of the report whose form it is; `None`: no stored report
    /// matched, so the form could not be compared and was not read.
    turn: Option<u32>,
    unchanged: usize,
    edited: usize,
    /// Units the mail's own text ordered, whose form line was therefore
    /// not used.
    superseded: Vec<String>,
}

/// Quoted lines outside the order form that read as orders to the player's
/// units: not read, but told (issue #15: never dropped silently).
fn quoted_orders(
    ctx: &SubmissionContext<'_>,
    pctx: &ParseContext<'_>,
) -> Vec<super::reply_form::FormLine> {
    super::reply_form::quoted_outside_form(ctx.body, 200)
        .into_iter()
        .filter(|l| {
            orders::parse_mail(&l.text, pctx)
                .items
                .iter()
                .any(|i| matches!(i, Item::Unit { .. }))
        })
        .take(5)
        .collect()
}

/// Find the report's order form in the mail as received and read its
/// edited lines as orders (`reply_form`), adding them to `parsed`.
fn read_form(
    tx: &Transaction<'_>,
    ctx: &SubmissionContext<'_>,
    pctx: &ParseContext<'_>,
    parsed: &mut ParsedMail,
) -> Result<Option<FormNote>, IntakeError> {
    use super::reply_form;
    if ctx.body.is_empty() {
        return Ok(None);
    }
    let read: Vec<usize> = (1..=ctx.text.lines().count())
        .map(|n| ctx.mail_line(n))
        .collect();
    let Some(form) = reply_form::form_in_reply(ctx.body, &read) else {
        return Ok(None);
    };
    if form.is_empty() {
        return Ok(None);
    }
    let token_turn = match ctx.auth {
        crate::mail::auth::AuthMethod::ReplyToken { turn } => Some(turn),
        crate::mail::auth::AuthMethod::Password => None,
    };
    let reports: Vec<(u32, String)> = tx
        .prepare_cached(
            "SELECT t.number, r.text FROM reports r JOIN turns t ON t.id = r.turn_id
             WHERE r.game_id = ?1 AND r.player_id = ?2 AND t.superseded_at IS NULL
             ORDER BY t.number DESC, r.id DESC LIMIT 4",
        )
        .and_then(|mut st| {
            st.query_map(params![ctx.game.0, ctx.player_id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect()
        })
        .map_err(sql)?;
    let sent: Vec<(u32, Vec<String>)> = reports
        .iter()
        .filter_map(|(n, t)| reply_form::sent_form(t).map(|f| (*n, f)))
        .collect();
    let chosen = sent
        .iter()
        .find(|(n, f)| Some(*n) == token_turn && reply_form::matching(f, &form) > 0)
        .or_else(|| {
            sent.iter()
                .filter(|(_, f)| reply_form::matching(f, &form) > 0)
                .max_by_key(|(n, f)| (reply_form::matching(f, &form), *n))
        });
    let Some((turn, sent_lines)) = chosen else {
        return Ok(Some(FormNote {
            turn: None,
            unchanged: 0,
            edited: 0,
            superseded: Vec::new(),
        }));
    };
    let edits = reply_form::compare(sent_lines, &form);
    let mut note = FormNote {
        turn: Some(*turn),
        unchanged: edits.unchanged,
        edited: edits.edited.len(),
        superseded: Vec::new(),
    };
    if edits.edited.is_empty() {
        return Ok(Some(note));
    }
    let mut text = String::new();
    let mut map = Vec::new();
    for l in edits.from.iter().chain(&edits.edited) {
        text.push_str(&l.text);
        text.push('\n');
        map.push(l.line);
    }
    let fp = orders::parse_mail(&text, pctx);
    let ordered: BTreeSet<UnitId> = parsed
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Unit { unit, .. } => Some(*unit),
            Item::Officer { .. } => None,
        })
        .collect();
    for item in fp.items {
        match &item {
            Item::Unit { unit, .. } if ordered.contains(unit) => {
                note.superseded.push(pctx.call_unit(*unit));
            }
            _ => parsed.items.push(item),
        }
    }
    for mut e in fp.errors {
        e.line = e
            .line
            .checked_sub(1)
            .and_then(|i| map.get(i))
            .copied()
            .unwrap_or(e.line);
        parsed.errors.push(e);
    }
    Ok(Some(note))
}

fn receipt_text(
    ctx: &SubmissionContext<'_>,
    parsed: &ParsedMail,
    lines: &[Line],
    deadline: &str,
    forwarded: &[crate::game::interpretation::Forwarded],
    kept: &Kept,
    form: Option<&FormNote>,
) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "Adjutant has read your orders.\n");
    let _ = writeln!(t, "Submission: {}", ctx.public_id);
    let _ = writeln!(t, "Game:       {}", ctx.game_name);
    let _ = writeln!(t, "Player:     {} ({})", ctx.player_name, ctx.side);
    let _ = write!(t, "Counts for: turn {}", ctx.counts_for_turn);
    if ctx.late {
        let _ = write!(
            t,
            "\n            LATE: it arrived after the deadline of turn {}, so it counts for\n            \
             the next turn, {}, not for turn {}",
            ctx.counts_for_turn.saturating_sub(1),
            ctx.counts_for_turn,
            ctx.counts_for_turn.saturating_sub(1)
        );
    }
    let _ = writeln!(t);
    let _ = writeln!(t, "{deadline}\n");
    if kept.refused {
        let _ = writeln!(
            t,
            "NOT EVERYTHING IN THIS MAIL WAS TAKEN (see \"Not understood\" below)."
        );
        let named: Vec<String> = kept
            .units
            .iter()
            .filter(|(n, _)| !n.is_empty())
            .map(|(n, l)| format!("{n} (line {l})"))
            .collect();
        if !named.is_empty() {
            let _ = writeln!(
                t,
                "  These units keep their previous orders: {}.",
                named.join(", ")
            );
        }
        for (n, l) in &kept.ordered_elsewhere {
            let _ = writeln!(
                t,
                "  {n}: the paragraph at line {l} was not taken, but another order to it in\n  \
                 this mail was, and stands."
            );
        }
        for (_, l) in kept.units.iter().filter(|(n, _)| n.is_empty()) {
            let _ = writeln!(
                t,
                "  The paragraph at line {l} could not be read: if it was an order, the unit it\n  \
                 was meant for keeps its previous orders."
            );
        }
        if parsed.ready {
            let _ = writeln!(
                t,
                "  Your READY was NOT counted: send the corrected orders with READY again,\n  \
                 or the turn runs at its deadline with the orders that were taken."
            );
        }
        let _ = writeln!(t);
    }
    if let Some(f) = form {
        match f.turn {
            Some(turn) => {
                let _ = writeln!(
                    t,
                    "Order form in your reply (from the report for turn {turn}): {} {} unchanged\n  \
                     (those units keep their orders), {} edited {} read as orders below.",
                    f.unchanged,
                    if f.unchanged == 1 { "line" } else { "lines" },
                    f.edited,
                    if f.edited == 1 { "line" } else { "lines" },
                );
                if !f.superseded.is_empty() {
                    let _ = writeln!(
                        t,
                        "  Not taken from the form, because your mail orders them above it: {}.",
                        f.superseded.join(", ")
                    );
                }
            }
            None => {
                let _ = writeln!(
                    t,
                    "Your reply quotes an order form, but it does not match the form of any report\n\
                     sent to you, so it was NOT read. Write the orders you want to change without\n\
                     the '>' quote marks, or above the quoted report."
                );
            }
        }
        let _ = writeln!(t);
    }
    if lines.is_empty() && parsed.errors.is_empty() {
        let _ = writeln!(
            t,
            "No orders were found in your mail. Units keep their standing orders."
        );
    }
    if !lines.is_empty() {
        let _ = writeln!(t, "Orders as understood:");
        for l in lines {
            match l {
                Ok(s) => {
                    let _ = writeln!(t, "  * {s}");
                }
                Err(s) => {
                    let _ = writeln!(t, "  ! {s}");
                }
            }
        }
        let _ = writeln!(t);
    }
    if !forwarded.is_empty() {
        let _ = writeln!(
            t,
            "Sent to the umpire to interpret (Adjutant could not read them as orders;\n\
             you will be told what he makes of each):"
        );
        for f in forwarded {
            let _ = writeln!(t, "  ? [{}] {}", f.id, f.error);
            let first = f.error.paragraph.lines().next().unwrap_or_default();
            let _ = writeln!(t, "    in: {first}");
        }
        let _ = writeln!(t);
    } else if !parsed.errors.is_empty() {
        let _ = writeln!(
            t,
            "Not understood (the rest of your mail still counts; send these again corrected):"
        );
        for e in &parsed.errors {
            let _ = writeln!(t, "  ! {e}");
            let first = e.paragraph.lines().next().unwrap_or_default();
            let _ = writeln!(t, "    in: {first}");
        }
        let _ = writeln!(t);
    }
    if !parsed.courtesies.is_empty() {
        let said: Vec<String> = parsed
            .courtesies
            .iter()
            .map(|(l, s)| format!("line {l} \"{s}\""))
            .collect();
        let _ = writeln!(
            t,
            "Read as greeting or signature, not as orders: {}.\n",
            said.join(", ")
        );
    }
    if !parsed.remarks.is_empty() {
        let said: Vec<String> = parsed
            .remarks
            .iter()
            .map(|(l, s)| format!("line {l} \"{s}\""))
            .collect();
        let _ = writeln!(
            t,
            "Read as your remarks, not as orders (they give none of your units or officers an order): {}.\nIf one of them was meant as an order, write it as '<unit name>: <order>'.\n",
            said.join(", ")
        );
    }
    if parsed.ready && ctx.late {
        let _ = writeln!(
            t,
            "Your READY does not carry over: write READY again once you have seen the\n\
             results of turn {}, or the turn runs at its deadline.",
            ctx.counts_for_turn.saturating_sub(1)
        );
    } else if parsed.ready && !kept.ready_counts {
        let _ = writeln!(
            t,
            "Your READY was not counted, because an order in this mail was not taken."
        );
    } else if parsed.ready {
        let _ = writeln!(t, "You are READY for this turn.");
    } else {
        let _ = writeln!(
            t,
            "You are not marked ready; write READY when you have finished this turn's orders."
        );
    }
    let _ = writeln!(
        t,
        "\nThe latest order to each unit before the deadline is the one that counts."
    );
    t
}
