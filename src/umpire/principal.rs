//! The umpire as a principal (issue #8): a game may name an umpire, with an
//! address and a secret like a player's. The secret is shown once; only its
//! Argon2id hash is kept (`games.umpire_secret_hash`, migration 0003). A
//! game "is umpired" exactly when `games.umpire_address` is not NULL (the
//! turn plane holds processed turns on that condition).
//!
//! The umpire's reply tokens are made over the pseudo-game
//! `umpire:<game>` ([`token_game`]): game names are lower-case letters,
//! digits and dashes, so no player's token can ever equal the umpire's.
//!
//! The game's **maximum pause** lives in `games.settings_json` under
//! `umpire.pause_max_secs` ([`DEFAULT_PAUSE_MAX_SECS`] when absent): `PAUSE`
//! without a duration pauses for that long, and a longer `PAUSE FOR` is
//! refused, so no game is ever paused indefinitely.

use crate::mail::address::same_address;
use crate::secret::{self, SecretError};
use crate::store::{GameId, NewAudit, Store, StoreError};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

/// A pause without a duration lasts this long, and none may last longer,
/// unless the game sets its own maximum: seven days, a week's holiday.
pub const DEFAULT_PAUSE_MAX_SECS: i64 = 7 * 86_400;

// The umpire's reply tokens are named by the mail layer, which reads them.
pub use crate::mail::token::{
    UMPIRE_TOKEN_PLAYER as TOKEN_PLAYER, umpire_token_game as token_game,
};

/// Why the umpire could not be set. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum PrincipalError {
    #[error("no game named `{0}`; `adjutant game list` shows the games")]
    NoSuchGame(String),
    #[error("`{0}` is not a mail address; write it as name@example.org")]
    BadAddress(String),
    #[error(
        "`{address}` is {player}'s address in this game; the umpire needs an address of his own, or his mail could not be told from the player's"
    )]
    PlayersAddress { address: String, player: String },
    #[error("game `{0}` has no umpire yet; give one with --address")]
    NoUmpire(String),
    #[error("the maximum pause must be at least one hour and at most 90 days; got {0} seconds")]
    BadPauseMax(i64),
    #[error("cannot make the umpire's secret: {0}")]
    Secret(#[from] SecretError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
}

impl PrincipalError {
    /// True when the operator can fix it (exit code 2).
    pub fn is_user_error(&self) -> bool {
        match self {
            PrincipalError::Secret(_) | PrincipalError::Sql(_) => false,
            PrincipalError::Store(e) => e.is_user_error(),
            _ => true,
        }
    }
}

/// What `adjutant game umpire` shows or did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UmpireInfo {
    pub game: String,
    pub address: Option<String>,
    /// Set only when a new secret was made just now: shown once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    pub pause_max_secs: i64,
}

/// A syntactically plausible mail address: `local@domain`, no spaces or
/// angle brackets.
pub fn check_address(address: &str) -> Result<String, PrincipalError> {
    let a = address.trim().trim_start_matches('<').trim_end_matches('>');
    let ok = match a.rsplit_once('@') {
        Some((l, d)) => {
            !l.is_empty()
                && !l.contains('@')
                && d.contains('.')
                && !d.starts_with('.')
                && !d.ends_with('.')
                && !a.chars().any(|c| c.is_whitespace() || "<>,;\"".contains(c))
        }
        None => false,
    };
    if ok {
        Ok(a.to_string())
    } else {
        Err(PrincipalError::BadAddress(address.trim().to_string()))
    }
}

/// The game's maximum pause from its `settings_json`.
pub fn pause_max_secs(settings_json: &str) -> i64 {
    serde_json::from_str::<serde_json::Value>(settings_json)
        .ok()
        .and_then(|v| v.pointer("/umpire/pause_max_secs").and_then(|x| x.as_i64()))
        .filter(|s| *s > 0)
        .unwrap_or(DEFAULT_PAUSE_MAX_SECS)
}

fn with_pause_max(settings_json: &str, secs: i64) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(settings_json).unwrap_or_else(|_| serde_json::json!({}));
    if !v.is_object() {
        v = serde_json::json!({});
    }
    if let Some(obj) = v.as_object_mut() {
        let umpire = obj.entry("umpire").or_insert_with(|| serde_json::json!({}));
        if !umpire.is_object() {
            *umpire = serde_json::json!({});
        }
        if let Some(u) = umpire.as_object_mut() {
            u.insert("pause_max_secs".into(), secs.into());
        }
    }
    v.to_string()
}

/// A player of `game` (not dropped) who has `address`, if any.
pub fn player_at(
    conn: &Connection,
    game: GameId,
    address: &str,
) -> Result<Option<String>, rusqlite::Error> {
    let mut st = conn.prepare_cached(
        "SELECT p.name, a.address FROM player_addresses a JOIN players p ON p.id = a.player_id
         WHERE a.game_id = ?1 ORDER BY a.id",
    )?;
    let rows = st
        .query_map([game.0], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows
        .into_iter()
        .find(|(_, a)| same_address(a, address))
        .map(|(p, _)| p))
}

/// What to change with [`set_umpire`].
#[derive(Debug, Clone, Default)]
pub struct UmpireChange<'a> {
    /// A new address; a new secret is made with it.
    pub address: Option<&'a str>,
    /// A new secret for the umpire already named.
    pub new_secret: bool,
    pub pause_max_secs: Option<i64>,
}

/// Shows the umpire of `game`, or changes it in one transaction with an
/// audit entry (`actor`, e.g. `cli:alice`). A new address always comes with
/// a new secret, returned once in [`UmpireInfo::secret`].
pub fn set_umpire(
    store: &mut Store,
    game: &str,
    change: &UmpireChange<'_>,
    actor: &str,
    now: i64,
) -> Result<UmpireInfo, PrincipalError> {
    let id = store
        .game_id(game)?
        .ok_or_else(|| PrincipalError::NoSuchGame(game.to_string()))?;
    // The slow part (Argon2) before the write lock is taken.
    let secret = new_secret_for(change)?;
    let tx = store.transaction()?;
    let info = set_umpire_in(&tx, id, change, secret, actor, now)?;
    tx.commit().map_err(StoreError::from)?;
    Ok(info)
}

/// The secret (and its hash) a [`UmpireChange`] needs, if any: made before
/// a transaction is opened, since hashing is slow (Argon2).
pub fn new_secret_for(
    change: &UmpireChange<'_>,
) -> Result<Option<(String, String)>, PrincipalError> {
    if change.address.is_some() || change.new_secret {
        let s = secret::generate_secret()?;
        let h = secret::hash_secret(&s)?;
        Ok(Some((s, h)))
    } else {
        Ok(None)
    }
}

/// [`set_umpire`] inside the caller's transaction `tx`, with the secret
/// from [`new_secret_for`]: `game create --umpire` names the umpire in the
/// new game's own transaction, so the game, its umpire and the umpire's
/// briefing are written together or not at all.
pub fn set_umpire_in(
    tx: &Connection,
    id: GameId,
    change: &UmpireChange<'_>,
    secret: Option<(String, String)>,
    actor: &str,
    now: i64,
) -> Result<UmpireInfo, PrincipalError> {
    let address = change.address.map(check_address).transpose()?;
    if let Some(max) = change.pause_max_secs
        && !(3_600..=90 * 86_400).contains(&max)
    {
        return Err(PrincipalError::BadPauseMax(max));
    }
    let (name, current, settings): (String, Option<String>, String) = tx.query_row(
        "SELECT name, umpire_address, settings_json FROM games WHERE id = ?1",
        [id.0],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    if let Some(a) = &address
        && let Some(player) = player_at(tx, id, a)?
    {
        return Err(PrincipalError::PlayersAddress {
            address: a.clone(),
            player,
        });
    }
    if change.new_secret && address.is_none() && current.is_none() {
        return Err(PrincipalError::NoUmpire(name));
    }
    let mut actions = Vec::new();
    if let (Some(a), Some((_, hash))) = (&address, &secret) {
        tx.execute(
            "UPDATE games SET umpire_address = ?2, umpire_secret_hash = ?3 WHERE id = ?1",
            params![id.0, a, hash],
        )?;
        actions.push(serde_json::json!({ "address": a, "was": current, "new_secret": true }));
    } else if let Some((_, hash)) = &secret {
        tx.execute(
            "UPDATE games SET umpire_secret_hash = ?2 WHERE id = ?1",
            params![id.0, hash],
        )?;
        actions.push(serde_json::json!({ "new_secret": true }));
    }
    let mut settings = settings;
    if let Some(max) = change.pause_max_secs {
        settings = with_pause_max(&settings, max);
        tx.execute(
            "UPDATE games SET settings_json = ?2 WHERE id = ?1",
            params![id.0, settings],
        )?;
        actions.push(serde_json::json!({ "pause_max_secs": max }));
    }
    if !actions.is_empty() {
        Store::append_audit(
            tx,
            &NewAudit {
                game: Some(id),
                actor: actor.to_string(),
                at: now,
                action: "umpire-set".into(),
                reason: None,
                detail_json: serde_json::json!({ "changes": actions }).to_string(),
            },
        )?;
    }
    let address_now: Option<String> = tx
        .query_row(
            "SELECT umpire_address FROM games WHERE id = ?1",
            [id.0],
            |r| r.get(0),
        )
        .optional()?
        .flatten();
    Ok(UmpireInfo {
        game: name,
        address: address_now,
        secret: secret.map(|(s, _)| s),
        pause_max_secs: pause_max_secs(&settings),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_checked() {
        assert_eq!(
            check_address(" <Ump@Example.org> ").unwrap(),
            "Ump@Example.org"
        );
        for bad in [
            "ump",
            "ump@",
            "@x.org",
            "u mp@x.org",
            "ump@localhost",
            "a@b@c",
            "a@b@c.org",
        ] {
            assert!(check_address(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pause_max_defaults_and_is_kept_beside_other_settings() {
        assert_eq!(pause_max_secs("{}"), DEFAULT_PAUSE_MAX_SECS);
        let s = with_pause_max(r#"{"deadlines":{"grace_secs":7200}}"#, 86_400);
        assert_eq!(pause_max_secs(&s), 86_400);
        assert!(s.contains("grace_secs"), "{s}");
        assert_eq!(
            pause_max_secs(r#"{"umpire":{"pause_max_secs":-5}}"#),
            DEFAULT_PAUSE_MAX_SECS
        );
    }

    #[test]
    fn umpire_tokens_cannot_be_a_players() {
        // No game name contains a colon (game::check_game_name).
        assert!(crate::game::check_game_name(&token_game("mill")).is_err());
    }
}
