//! Free-text orders (issue #8): in an umpired game a paragraph the order
//! parser cannot read is not simply refused. It goes to the umpire as
//! "needs interpretation" with an id, the player's words and his unit's
//! situation as his SIDE sees it (the unit's own state, and only the enemy
//! units his side can see now, APSoF V.C.3), and the player's receipt says
//! so. The umpire, who reads orders as a colonel would (APSoF I.C.2),
//! answers `INTERPRET <id>: <order in the order language>` — parsed as the
//! player's own order against what the player's side can see, recorded in
//! the same book (latest to a unit wins) — or `REJECT <id>: "<reason>"`.
//! Either way the player is told.

use super::{TurnPlaneError, UmpireCtx};
use crate::game::book::{
    BookError, record_direct_submission, record_officer_move, record_unit_order,
};
use crate::game::interpretation::{ForwardError, indent};
pub use crate::game::interpretation::{Forwarded, forward, situation, umpired};
use crate::game::report_mail::live_addresses;
use crate::game::snapshot::Snapshot;
use crate::orders::{self, Item, ParseContext};
use crate::rules::iron_brigade::orders::UnitOrder;
use crate::rules::iron_brigade::sight::{Activity, SightIndex, side_visibility};
use crate::rules::iron_brigade::state::{BattleState, OfficerId, Pos, SideId, UnitId};
use crate::scenario::Scenario;
use rusqlite::{OptionalExtension, params};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// A pending interpretation.
struct Pending {
    row: i64,
    public_id: String,
    player_id: i64,
    player: String,
    side: String,
    paragraph: String,
    /// The turn the player's mail counted for.
    turn: u32,
}

fn pending(ctx: &UmpireCtx<'_, '_>, id: &str) -> Result<Pending, TurnPlaneError> {
    let row: Option<(Pending, String)> = ctx
        .tx
        .query_row(
            "SELECT i.id, i.public_id, i.player_id, p.name, s.name, i.paragraph, i.status, i.turn
             FROM interpretations i JOIN players p ON p.id = i.player_id
             JOIN sides s ON s.id = p.side_id
             WHERE i.game_id = ?1 AND i.public_id = ?2",
            params![ctx.game_id.0, id.trim()],
            |r| {
                Ok((
                    Pending {
                        row: r.get(0)?,
                        public_id: r.get(1)?,
                        player_id: r.get(2)?,
                        player: r.get(3)?,
                        side: r.get(4)?,
                        paragraph: r.get(5)?,
                        turn: r.get(7)?,
                    },
                    r.get(6)?,
                ))
            },
        )
        .optional()?;
    let Some((found, status)) = row else {
        return Err(TurnPlaneError::NoSuchInterpretation(id.to_string()));
    };
    if status != "pending" {
        return Err(TurnPlaneError::AlreadyAnswered {
            id: found.public_id,
            status,
        });
    }
    Ok(found)
}

/// What a player's orders are parsed against now: the open turn's state
/// and what his side can see in it (as intake reads his mail).
struct PlayerView {
    turn_id: i64,
    turn: u32,
    state: BattleState,
    side: SideId,
    officers: Vec<OfficerId>,
    visible: BTreeSet<UnitId>,
    aliases: BTreeMap<String, UnitId>,
    place_aliases: BTreeMap<String, Pos>,
    yards_per_inch: f64,
    /// His side's designations under the game's policy (`crate::identity`).
    enemy_names: crate::identity::EnemyNames,
}

fn player_view(ctx: &UmpireCtx<'_, '_>, p: &Pending) -> Result<PlayerView, TurnPlaneError> {
    let tx = ctx.tx;
    let stored = |what: &'static str, e: String| TurnPlaneError::Stored { what, problem: e };
    let (turn_id, turn, json): (i64, u32, String) = tx
        .query_row(
            "SELECT id, number, state_json FROM turns
             WHERE game_id = ?1 AND status = 'open' AND superseded_at IS NULL",
            [ctx.game_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .ok_or_else(|| TurnPlaneError::NoTurnToCorrect(ctx.game.to_string()))?;
    let state = Snapshot::from_json(&json)
        .map_err(|e| stored("snapshot", e.to_string()))?
        .battle;
    let side = state
        .sides
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(&p.side))
        .map(|s| s.id)
        .unwrap_or(SideId(u8::MAX));
    let index = SightIndex::new(&state.terrain);
    let none = BTreeSet::new();
    let visible: BTreeSet<UnitId> = side_visibility(
        &state,
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
    .collect();
    let mut st = tx.prepare(
        "SELECT rules_id FROM officers WHERE game_id = ?1 AND player_id = ?2
         AND rules_id IS NOT NULL ORDER BY rules_id",
    )?;
    let officers = st
        .query_map(params![ctx.game_id.0, p.player_id], |r| {
            r.get::<_, u32>(0).map(OfficerId)
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut st = tx.prepare(
        "SELECT rules_id, aliases_json FROM units WHERE game_id = ?1 AND rules_id IS NOT NULL",
    )?;
    let mut aliases = BTreeMap::new();
    for row in st.query_map([ctx.game_id.0], |r| {
        Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?))
    })? {
        let (id, json) = row?;
        for a in serde_json::from_str::<Vec<String>>(&json).unwrap_or_default() {
            aliases.insert(a, UnitId(id));
        }
    }
    let toml: String = tx.query_row(
        "SELECT scenario_toml FROM games WHERE id = ?1",
        [ctx.game_id.0],
        |r| r.get(0),
    )?;
    let scenario = Scenario::from_toml_str(&toml, "stored scenario")
        .map_err(|e| stored("scenario", e.to_string()))?;
    let mut place_aliases = BTreeMap::new();
    for l in &scenario.landmarks {
        for a in &l.aliases {
            place_aliases.insert(a.clone(), Pos::new(l.at.x, l.at.y));
        }
    }
    let mut enemy_names = crate::game::identity::load(tx, ctx.game_id, side, scenario.identities)?;
    crate::game::identity::record_sightings(
        tx,
        ctx.game_id,
        side,
        &state,
        turn,
        visible.iter().copied().collect::<Vec<_>>(),
        &mut enemy_names,
    )?;
    Ok(PlayerView {
        turn_id,
        turn,
        state,
        side,
        officers,
        visible,
        aliases,
        place_aliases,
        yards_per_inch: scenario.yards_per_inch,
        enemy_names,
    })
}

/// `INTERPRET <id>: <order>`.
pub fn interpret(ctx: &UmpireCtx<'_, '_>, id: &str, order: &str) -> Result<String, TurnPlaneError> {
    let p = pending(ctx, id)?;
    if let Some(engine) = crate::game::engine_seat::engine_of_game(ctx.tx, ctx.game_id)? {
        return interpret_engine(ctx, engine, &p, order);
    }
    let view = player_view(ctx, &p)?;
    // The umpire may write the enemy's real names (he knows them) as well
    // as the player's designations; what the player is told back is in
    // the player's own terms (`pctx`, the game's identity policy).
    let pctx = ParseContext {
        state: &view.state,
        side: view.side,
        player_officers: view.officers.clone(),
        visible_enemies: view.visible.clone(),
        enemy_names: view.enemy_names.clone(),
        yards_per_inch: view.yards_per_inch,
        turn: view.turn,
        aliases: view.aliases.clone(),
        place_aliases: view.place_aliases.clone(),
        cache: Default::default(),
    };
    let umpire_ctx = ParseContext {
        enemy_names: crate::identity::EnemyNames {
            policy: crate::identity::IdentityPolicy::Known,
            ..view.enemy_names.clone()
        },
        cache: Default::default(),
        ..pctx.clone()
    };
    let parsed = orders::parse_mail(order, &umpire_ctx);
    if let Some(e) = parsed.errors.first() {
        return Err(TurnPlaneError::Interpretation(format!(
            "`{}` does not read as {}'s order: {e}",
            order.trim(),
            p.player
        )));
    }
    if parsed.items.is_empty() {
        return Err(TurnPlaneError::Interpretation(format!(
            "`{}` holds no order; write it in the order language, e.g. `10th Ohio: advance to the ford`",
            order.trim()
        )));
    }
    let book = |e: BookError| TurnPlaneError::Interpretation(e.to_string());
    let (submission, _) =
        record_direct_submission(ctx.tx, ctx.game_id, p.player_id, view.turn_id, ctx.now)
            .map_err(book)?;
    let mut lines = Vec::new();
    for item in &parsed.items {
        let understood = orders::normalise(item, &pctx);
        match item {
            Item::Unit {
                unit,
                issued_by,
                follows_previous,
                steps,
                text,
                ..
            } => {
                let timing = orders::expected_effective_turn(item, &pctx);
                let o = UnitOrder {
                    id: 0,
                    unit: *unit,
                    issued_by: *issued_by,
                    issued_turn: view.turn,
                    follows_previous: *follows_previous,
                    steps: steps.clone(),
                };
                record_unit_order(ctx.tx, ctx.game_id, submission, &o, text, timing.turn)
                    .map_err(book)?;
                lines.push(format!("{understood}\n    {timing}"));
            }
            Item::Officer { order, text, .. } => {
                record_officer_move(ctx.tx, ctx.game_id, submission, view.turn, order, text)
                    .map_err(book)?;
                lines.push(format!("{understood}\n    moves on turn {}", view.turn));
            }
        }
    }
    mark_interpreted(ctx, &p, order, submission)?;
    let mut text = format!(
        "Adjutant could not read this paragraph of your orders ({}), so the umpire read it:\n\n{}\n\n\
         He took it as:\n",
        p.public_id,
        indent(&p.paragraph)
    );
    for l in &lines {
        let _ = writeln!(text, "  * {l}");
    }
    let late = late_note(&p, view.turn, &mut text);
    let _ = writeln!(
        text,
        "\nIt counts for turn {} like any order of yours: the latest order to each unit wins.",
        view.turn
    );
    tell_player(
        ctx,
        &p,
        "interpretation",
        &format!("{}: the umpire read your order {}", ctx.game, p.public_id),
        &text,
    )?;
    Ok(format!(
        "{} entered as {}'s order for turn {}: {}; a notice to him is queued{}",
        p.public_id,
        p.player,
        view.turn,
        lines
            .iter()
            .map(|l| l.lines().next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("; "),
        late.map(|l| format!(" (NOTE: {l})")).unwrap_or_default()
    ))
}

/// `INTERPRET` in a game played through its ruleset's mail plane (SFRM):
/// the umpire's words read by the ruleset as the player's own order against
/// the open turn (in his side's terms: enemy units by the letters his side
/// gives them), entered after the orders of his latest mail for it
/// (`game::engine_game::interpret`), and read back to him.
fn interpret_engine(
    ctx: &UmpireCtx<'_, '_>,
    engine: &dyn crate::rules::MailEngine,
    p: &Pending,
    order: &str,
) -> Result<String, TurnPlaneError> {
    let done = crate::game::engine_game::interpret(
        ctx.tx,
        engine,
        ctx.game_id,
        p.player_id,
        &p.side,
        order,
        ctx.now,
    )?
    .map_err(|why| {
        TurnPlaneError::Interpretation(format!(
            "`{}` does not read as {}'s order: {why}",
            order.trim(),
            p.player
        ))
    })?;
    mark_interpreted(ctx, p, order, done.submission_id)?;
    let mut text = format!(
        "Adjutant could not read this line of your orders ({}), so the umpire read it:\n\n{}\n\n\
         He took it as:\n{}\n",
        p.public_id,
        indent(&p.paragraph),
        done.read_back.trim_end()
    );
    let late = late_note(p, done.turn, &mut text);
    let _ = writeln!(
        text,
        "\nIt counts for turn {} after the orders of your latest mail for it: the latest order to each unit wins.",
        done.turn
    );
    tell_player(
        ctx,
        p,
        "interpretation",
        &format!("{}: the umpire read your order {}", ctx.game, p.public_id),
        &text,
    )?;
    Ok(format!(
        "{} entered as {}'s order for turn {}: {}; a notice to him is queued{}",
        p.public_id,
        p.player,
        done.turn,
        done.read_back
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; "),
        late.map(|l| format!(" (NOTE: {l})")).unwrap_or_default()
    ))
}

/// The query answered by INTERPRET, with the umpire-entered submission
/// that holds the order.
fn mark_interpreted(
    ctx: &UmpireCtx<'_, '_>,
    p: &Pending,
    order: &str,
    submission: i64,
) -> Result<(), rusqlite::Error> {
    ctx.tx.execute(
        "UPDATE interpretations SET status = 'interpreted', answer = ?2, answered_by = ?3,
                answered_at = ?4, answer_submission_id = ?5 WHERE id = ?1",
        params![p.row, order.trim(), ctx.actor, ctx.now, submission],
    )?;
    Ok(())
}

/// A query answered after its turn was processed cannot change that turn:
/// it is entered for the open one (`open`), and both sides are told so.
/// Adds the note to the player's `text`; returns it for the umpire's line.
fn late_note(p: &Pending, open: u32, text: &mut String) -> Option<String> {
    let late = (p.turn < open).then(|| {
        format!(
            "it was written for turn {}, which has been processed without it, so it is entered for turn {}",
            p.turn, open
        )
    });
    if let Some(l) = &late {
        let _ = writeln!(text, "\nNote: {l}.");
    }
    late
}

/// `REJECT <id>: "<reason>"`.
pub fn reject(ctx: &UmpireCtx<'_, '_>, id: &str, reason: &str) -> Result<String, TurnPlaneError> {
    let p = pending(ctx, id)?;
    if reason.trim().is_empty() {
        return Err(TurnPlaneError::Interpretation(
            "say why: REJECT <id>: \"<reason>\"".to_string(),
        ));
    }
    ctx.tx.execute(
        "UPDATE interpretations SET status = 'rejected', answer = ?2, answered_by = ?3,
                answered_at = ?4 WHERE id = ?1",
        params![p.row, reason.trim(), ctx.actor, ctx.now],
    )?;
    let text = format!(
        "Adjutant could not read this paragraph of your orders ({}), and the umpire could not take it as an order either:\n\n{}\n\n\
         The umpire says: {}\n\n\
         Your units keep the orders they had. Send the order again in other words if you still want it.\n",
        p.public_id,
        indent(&p.paragraph),
        reason.trim()
    );
    tell_player(
        ctx,
        &p,
        "interpretation",
        &format!(
            "{}: the umpire could not read your order {}",
            ctx.game, p.public_id
        ),
        &text,
    )?;
    Ok(format!(
        "{} rejected; a notice telling {} why is queued",
        p.public_id, p.player
    ))
}

fn tell_player(
    ctx: &UmpireCtx<'_, '_>,
    p: &Pending,
    kind: &str,
    subject: &str,
    text: &str,
) -> Result<(), TurnPlaneError> {
    let to = live_addresses(ctx.tx, p.player_id)?;
    if to.is_empty() {
        tracing::warn!(game = ctx.game, player = %p.player, "every address of the player bounces; answer not mailed");
        return Ok(());
    }
    crate::game::interpretation::letter(
        ctx.tx,
        ctx.game_id,
        ctx.game,
        kind,
        &p.public_id,
        &to,
        subject,
        text,
        ctx.mail,
        ctx.now,
    )
    .map_err(|e| match e {
        ForwardError::Sql(e) => TurnPlaneError::Sql(e),
        ForwardError::Mail(problem) => TurnPlaneError::Stored {
            what: "mail",
            problem,
        },
    })
}
