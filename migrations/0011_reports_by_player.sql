-- 0011_reports_by_player: a player's latest report found by index (issue #18).
--
-- Each turn's reports look up every reader's previous report (what refused
-- mail it already told: `audit_through`). Without an index on the player
-- that lookup walked every report of every game, so each turn cost more
-- than the one before it. Rows within one (game, player) are in id order,
-- so `ORDER BY id DESC LIMIT 1` reads one index entry.
CREATE INDEX reports_by_player ON reports(game_id, player_id);
