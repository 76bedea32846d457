-- 0008_cost: lookups whose cost does not grow with the number of games
-- (issue #18).
--
-- Intake finds a mail's player by the sender's address (index
-- player_addresses_by_address, 0001) and then that player's addresses; the
-- report mailer looks up a player's live addresses. Without an index on
-- player_id both scanned the whole table, once per player.
CREATE INDEX player_addresses_by_player ON player_addresses(player_id, id);

-- The umpire of a mail's sender, by address, compared as
-- mail::address::address_key does (trimmed, no angle brackets, lower case).
CREATE INDEX games_by_umpire_address ON games(lower(trim(umpire_address, ' <>')))
    WHERE umpire_address IS NOT NULL;

-- Which game each reply token we have sent belongs to, written as the mail
-- that carries it is queued (Store::queue_outbound reads its Reply-To).
-- A token is an HMAC of (game, player, turn) and proves nothing by being
-- here: intake still verifies it. This only tells intake which game's
-- players to verify it against, so a token-bearing mail from an address
-- nobody registered costs one lookup instead of an HMAC per player of
-- every game. Tokens sent before this migration are not here; a reply to
-- one is still found through the sender's address or the game named in
-- the Subject.
CREATE TABLE reply_tokens (
    token   TEXT    PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id)
) STRICT, WITHOUT ROWID;

-- Due turns without scanning every game (game::cycle::due_games).
--
-- A turn falls due at its deadline plus grace: an index on that moment
-- over the live open turns finds the due ones, and the next wake-up, with
-- one range lookup.
CREATE INDEX turns_due_at ON turns(deadline_at + grace_secs)
    WHERE status = 'open' AND superseded_at IS NULL AND deadline_at IS NOT NULL;

-- Or it falls due when every active player is READY. That can only change
-- when one of the rows below changes, so the triggers note the turn to be
-- checked, and due_games checks only the noted turns (and forgets the ones
-- not due).
CREATE TABLE due_checks (
    turn_id INTEGER PRIMARY KEY
) STRICT;
INSERT INTO due_checks (turn_id)
    SELECT id FROM turns WHERE status = 'open' AND superseded_at IS NULL;

CREATE TRIGGER due_check_submission_ready AFTER UPDATE OF ready ON submissions
WHEN NEW.ready = 1
BEGIN INSERT OR IGNORE INTO due_checks (turn_id) VALUES (NEW.turn_id); END;
CREATE TRIGGER due_check_submission_new AFTER INSERT ON submissions
WHEN NEW.ready = 1
BEGIN INSERT OR IGNORE INTO due_checks (turn_id) VALUES (NEW.turn_id); END;
CREATE TRIGGER due_check_turn_new AFTER INSERT ON turns
WHEN NEW.status = 'open' AND NEW.superseded_at IS NULL
BEGIN INSERT OR IGNORE INTO due_checks (turn_id) VALUES (NEW.id); END;
CREATE TRIGGER due_check_turn_changed AFTER UPDATE OF status, superseded_at ON turns
BEGIN
    INSERT OR IGNORE INTO due_checks (turn_id)
        SELECT id FROM turns
        WHERE game_id = NEW.game_id AND status = 'open' AND superseded_at IS NULL;
END;
CREATE TRIGGER due_check_player_changed AFTER UPDATE OF status ON players
BEGIN
    INSERT OR IGNORE INTO due_checks (turn_id)
        SELECT id FROM turns
        WHERE game_id = NEW.game_id AND status = 'open' AND superseded_at IS NULL;
END;
CREATE TRIGGER due_check_game_changed AFTER UPDATE OF status ON games
BEGIN
    INSERT OR IGNORE INTO due_checks (turn_id)
        SELECT id FROM turns
        WHERE game_id = NEW.id AND status = 'open' AND superseded_at IS NULL;
END;
CREATE TRIGGER due_check_dice_answered AFTER UPDATE OF answered_at ON dice_requests
BEGIN INSERT OR IGNORE INTO due_checks (turn_id) VALUES (NEW.turn_id); END;

-- Reminders (game::cycle::queue_reminders): when the open turn's reminder
-- is to go, deadline minus the game's `deadlines.remind_secs`, kept on the
-- turn by these triggers whoever sets the deadline, and cleared once the
-- reminders are queued. NULL: no reminder (pending).
ALTER TABLE turns ADD COLUMN remind_at INTEGER;
CREATE INDEX turns_remind_at ON turns(remind_at)
    WHERE remind_at IS NOT NULL AND status = 'open' AND superseded_at IS NULL;

CREATE TRIGGER turns_remind_at_new AFTER INSERT ON turns
WHEN NEW.deadline_at IS NOT NULL
BEGIN
    UPDATE turns SET remind_at = (
        SELECT CASE WHEN coalesce(json_extract(g.settings_json, '$.deadlines.remind_secs'), 0) > 0
                    THEN NEW.deadline_at - json_extract(g.settings_json, '$.deadlines.remind_secs')
               END
        FROM games g WHERE g.id = NEW.game_id)
    WHERE id = NEW.id;
END;
CREATE TRIGGER turns_remind_at_deadline AFTER UPDATE OF deadline_at ON turns
BEGIN
    UPDATE turns SET remind_at = (
        SELECT CASE WHEN NEW.deadline_at IS NOT NULL
                     AND coalesce(json_extract(g.settings_json, '$.deadlines.remind_secs'), 0) > 0
                    THEN NEW.deadline_at - json_extract(g.settings_json, '$.deadlines.remind_secs')
               END
        FROM games g WHERE g.id = NEW.game_id)
    WHERE id = NEW.id;
END;
CREATE TRIGGER games_remind_at_settings AFTER UPDATE OF settings_json ON games
BEGIN
    UPDATE turns SET remind_at =
        CASE WHEN deadline_at IS NOT NULL
              AND coalesce(json_extract(NEW.settings_json, '$.deadlines.remind_secs'), 0) > 0
             THEN deadline_at - json_extract(NEW.settings_json, '$.deadlines.remind_secs')
        END
    WHERE game_id = NEW.id AND status = 'open' AND superseded_at IS NULL;
END;
UPDATE turns SET remind_at = (
    SELECT CASE WHEN coalesce(json_extract(g.settings_json, '$.deadlines.remind_secs'), 0) > 0
                THEN turns.deadline_at - json_extract(g.settings_json, '$.deadlines.remind_secs')
           END
    FROM games g WHERE g.id = turns.game_id)
WHERE status = 'open' AND superseded_at IS NULL AND deadline_at IS NOT NULL;

-- A paused game whose pause has ended (umpire::pause::resume_due).
CREATE INDEX games_paused_until ON games(paused_until) WHERE status = 'paused';

-- Each side's last-known map of the enemy after the latest turn's reports
-- (game::reports), carried forward to the next turn instead of being
-- rebuilt from every earlier snapshot and sighting (whose cost grew with
-- the length of the game). One row per game, replaced each turn; `turn_id`
-- is the turn whose reports it was made for, and it is used only for the
-- turn that attempt's processing opens (turns.prev_turn_id), so a REDO or
-- ROLLBACK rebuilds it from the history, which stays in `events`/`turns`.
CREATE TABLE last_known (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id),
    turn_id     INTEGER NOT NULL REFERENCES turns(id),
    memory_json TEXT    NOT NULL CHECK (json_valid(memory_json))
) STRICT;

-- What a sent mail is worth after delivery (docs/schema.md, "Retention").
-- A report mail carried its text, its HTML with the SVG map and the map as
-- a PNG of ~170 kB: 79% of the store's growth. Everything a player or the
-- archive needs of it is in `reports` (text, HTML with the SVG map):
-- REPORT and HISTORY send it again from there and make the PNG again from
-- the SVG, and `archive export` reads it from there too. So once such a
-- mail is sent, its `raw` keeps only its header section (Message-ID, To,
-- Subject, Date, for the record and for matching bounces), followed by a
-- one-line note. Every other mail (receipts, refusals, notices) is small
-- and kept whole.
DROP TRIGGER outbound_mail_content_immutable;
CREATE TRIGGER outbound_mail_content_immutable
BEFORE UPDATE OF game_id, kind, message_id, recipients_json, raw, in_reply_to, created_at
ON outbound_mail
WHEN NOT (OLD.status = 'sent' AND NEW.status = 'sent'
          AND OLD.kind IN ('report', 'report-copy', 'history', 'umpire-report', 'umpire-preview')
          AND NEW.kind = OLD.kind AND NEW.message_id = OLD.message_id
          AND NEW.recipients_json = OLD.recipients_json AND NEW.game_id IS OLD.game_id
          AND NEW.in_reply_to IS OLD.in_reply_to AND NEW.created_at = OLD.created_at
          AND length(NEW.raw) < length(OLD.raw))
BEGIN
    SELECT RAISE(ABORT, 'outbound_mail: a queued message is never rewritten; queue a new one');
END;

CREATE TRIGGER outbound_mail_report_body_dropped
AFTER UPDATE OF status ON outbound_mail
WHEN NEW.status = 'sent'
     AND NEW.kind IN ('report', 'report-copy', 'history', 'umpire-report', 'umpire-preview')
     AND instr(NEW.raw, X'0D0A0D0A') > 0
BEGIN
    UPDATE outbound_mail
    SET raw = CAST(substr(raw, 1, instr(raw, X'0D0A0D0A') + 3)
                   || '[body not kept after delivery: the report is in the reports table]'
                   || char(13, 10) AS BLOB)
    WHERE id = NEW.id
      AND length(raw) > instr(raw, X'0D0A0D0A') + 3 + 80;
END;
