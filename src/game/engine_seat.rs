//! Which games are played through a ruleset's mail plane
//! ([`crate::rules::MailEngine`]): the one question the Iron Brigade paths
//! (`turn`, `submit`, `ending`) and the archive ask before taking a game as
//! theirs. A leaf, so that asking it ties nothing in a circle.

use crate::rules::MailEngine;
use crate::store::GameId;

/// The mail plane of `ruleset`, if it is played through one.
pub fn engine_of(ruleset: &str) -> Option<&'static dyn MailEngine> {
    crate::rulesets::find(ruleset)
        .ok()
        .and_then(|r| r.mail_engine())
}

/// The mail plane of a stored game, if it is played through one.
pub fn engine_of_game(
    c: &rusqlite::Connection,
    game: GameId,
) -> Result<Option<&'static dyn MailEngine>, rusqlite::Error> {
    Ok(engine_of(&crate::store::game_ruleset(c, game)?))
}
