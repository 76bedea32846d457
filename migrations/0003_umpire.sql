-- 0003_umpire: the umpire as a principal, and pausing a game (issue #8).
--
-- * `games.umpire_secret_hash`: Argon2 PHC string of the umpire's secret,
--   like `players.secret_hash`; the secret itself is never stored. A game
--   "is umpired" when `umpire_address` (0001) is not NULL.
-- * `games.paused_at` / `games.paused_until`: set while
--   `status = 'paused'` (cleared on resume) (PAUSE), so the daemon can resume the game by
--   itself at `paused_until` and push the open turn's deadline back by the
--   time it was paused. A pause is never indefinite: `paused_until` is
--   always set, at most the game's maximum pause after `paused_at`.

ALTER TABLE games ADD COLUMN umpire_secret_hash TEXT
    CHECK (umpire_secret_hash IS NULL OR umpire_secret_hash LIKE '$argon2%');
ALTER TABLE games ADD COLUMN paused_at INTEGER;
ALTER TABLE games ADD COLUMN paused_until INTEGER;

-- A paused game always knows when it resumes: never an indefinite pause.
CREATE TRIGGER games_pause_has_an_end
BEFORE UPDATE OF status, paused_at, paused_until ON games
WHEN NEW.status = 'paused' AND NOT (NEW.paused_at IS NOT NULL AND NEW.paused_until IS NOT NULL
                                    AND NEW.paused_until > NEW.paused_at)
BEGIN
    SELECT RAISE(ABORT, 'games: a paused game needs paused_at < paused_until (a pause is never indefinite)');
END;
