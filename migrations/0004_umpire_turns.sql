-- 0004_umpire_turns: the umpire's turn plane (issue #8) — held turns,
-- REDO, corrections (SET), ROLLBACK/ROLLFORWARD, umpire dice.
--
-- The idea: a `turns` row is one ADJUDICATION ATTEMPT of a turn number, not
-- the turn number itself. REDO and ROLLBACK never delete or rewrite an
-- attempt: they set it aside (`superseded_at`, `superseded_by`) and insert
-- a new row with the same number. Events, dice, reports and submissions keep
-- pointing at the row they were made for, so the archive keeps every
-- attempt; the LIVE timeline is the rows with `superseded_at IS NULL`, where
-- each number appears at most once.
--
-- `turns` is rebuilt (SQLite cannot drop a table constraint) to replace
-- UNIQUE(game_id, number) with a partial unique index over live rows. The
-- runner applies migrations with foreign_keys OFF and checks
-- `PRAGMA foreign_key_check` before committing (SQLite's documented
-- procedure for table rebuilds), so the child tables' foreign keys to
-- turns(game_id, id) are kept, row ids included.

CREATE TABLE turn_changes (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    kind        TEXT    NOT NULL CHECK (kind IN ('redo', 'rollback', 'rollforward')),
    -- "umpire", "cli:<user>" ... as in audit_log.
    actor       TEXT    NOT NULL CHECK (length(actor) > 0),
    at          INTEGER NOT NULL,
    -- redo: the held turn; rollback: the turn rolled back to;
    -- rollforward: the turn the restored timeline is at.
    turn_number INTEGER NOT NULL CHECK (turn_number >= 1),
    -- rollback: {"orders": [[order id, status before], ...]} — the order rows
    -- whose status it changed, so that ROLLFORWARD can put them back.
    detail_json TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(detail_json)),
    -- rollback only: the ROLLFORWARD that undid it.
    undone_by   INTEGER,
    UNIQUE (game_id, id),
    FOREIGN KEY (game_id, undone_by) REFERENCES turn_changes(game_id, id)
) STRICT;

CREATE TRIGGER turn_changes_immutable
BEFORE UPDATE OF id, game_id, kind, actor, at, turn_number, detail_json ON turn_changes
BEGIN
    SELECT RAISE(ABORT, 'turn_changes: a recorded change is never rewritten; only undone_by may be set');
END;
CREATE TRIGGER turn_changes_no_delete BEFORE DELETE ON turn_changes
BEGIN SELECT RAISE(ABORT, 'turn_changes are append-only'); END;

CREATE TABLE turns_rebuilt (
    id               INTEGER PRIMARY KEY,
    game_id          INTEGER NOT NULL REFERENCES games(id),
    number           INTEGER NOT NULL CHECK (number >= 1),
    status           TEXT    NOT NULL DEFAULT 'open'
                             CHECK (status IN ('open', 'processing', 'held', 'released')),
    deadline_at      INTEGER,
    grace_secs       INTEGER NOT NULL DEFAULT 0 CHECK (grace_secs >= 0),
    seed_commitment  TEXT    NOT NULL
                             CHECK (length(seed_commitment) = 64
                                    AND seed_commitment NOT GLOB '*[^0-9a-f]*'),
    seed_revealed    TEXT    CHECK (seed_revealed IS NULL
                                    OR (length(seed_revealed) = 64
                                        AND seed_revealed NOT GLOB '*[^0-9a-f]*'
                                        AND status IN ('held', 'released'))),
    state_json       TEXT    NOT NULL CHECK (json_valid(state_json)),
    state_hash       TEXT    NOT NULL
                             CHECK (length(state_hash) = 64 AND state_hash NOT GLOB '*[^0-9a-f]*'),
    opened_at        INTEGER NOT NULL,
    processed_at     INTEGER,
    released_at      INTEGER,
    -- 1 for the first adjudication of this number in its timeline, +1 per REDO.
    attempt          INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1),
    -- The attempt whose processing produced this row's start state (NULL
    -- for turn 1). A REDO or ROLLBACK copy keeps its original's.
    prev_turn_id     INTEGER,
    -- REDO: the attempt this one re-adjudicates (its corrections apply here too).
    redo_of          INTEGER,
    -- Set when REDO, ROLLBACK or ROLLFORWARD set the row aside; NULL = live.
    superseded_at    INTEGER,
    superseded_by    INTEGER,
    CHECK ((superseded_at IS NULL) = (superseded_by IS NULL)),
    UNIQUE (game_id, id),
    FOREIGN KEY (game_id, prev_turn_id)  REFERENCES turns(game_id, id),
    FOREIGN KEY (game_id, redo_of)       REFERENCES turns(game_id, id),
    FOREIGN KEY (game_id, superseded_by) REFERENCES turn_changes(game_id, id)
) STRICT;

INSERT INTO turns_rebuilt (id, game_id, number, status, deadline_at, grace_secs, seed_commitment,
                           seed_revealed, state_json, state_hash, opened_at, processed_at,
                           released_at, prev_turn_id)
SELECT t.id, t.game_id, t.number, t.status, t.deadline_at, t.grace_secs, t.seed_commitment,
       t.seed_revealed, t.state_json, t.state_hash, t.opened_at, t.processed_at, t.released_at,
       (SELECT p.id FROM turns p WHERE p.game_id = t.game_id AND p.number = t.number - 1)
FROM turns t;

DROP TABLE turns;
ALTER TABLE turns_rebuilt RENAME TO turns;

-- One live attempt per turn number.
CREATE UNIQUE INDEX turns_live_number ON turns(game_id, number) WHERE superseded_at IS NULL;
-- At most one live open (or processing, or held) turn per game: a held turn
-- N and the open turn N+1 it produced live side by side until RELEASE.
CREATE UNIQUE INDEX turns_one_current ON turns(game_id, status)
    WHERE status <> 'released' AND superseded_at IS NULL;

CREATE TRIGGER turns_snapshot_immutable
BEFORE UPDATE OF game_id, number, seed_commitment, state_json, state_hash,
                 attempt, prev_turn_id, redo_of ON turns
BEGIN
    SELECT RAISE(ABORT, 'turns: number, seed commitment and state snapshot are immutable; open a new turn instead');
END;

-- SET <unit> <field> <value> BECAUSE "<reason>": an umpire's correction to
-- the START state of a turn. An input to adjudication like the orders,
-- applied on top of `turns.state_json` in id order; replay applies them
-- too. Made on the open attempt (`made_while` 'open') it applies when that
-- attempt is processed; made on a held attempt ('held') it applies to the
-- REDOs of it. Either way every later REDO (`turns.redo_of`) keeps it.
CREATE TABLE corrections (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games(id),
    turn_id       INTEGER NOT NULL,
    unit_id       INTEGER NOT NULL,
    -- The unit's UnitId in the snapshot (units.rules_id), for replay.
    rules_unit    INTEGER NOT NULL CHECK (rules_unit >= 1),
    field         TEXT    NOT NULL
                          CHECK (field IN ('morale', 'castings', 'position', 'formation', 'facing')),
    made_while    TEXT    NOT NULL CHECK (made_while IN ('open', 'held')),
    -- umpire::command::SetValue as JSON ({"field": ..., "value": ...}).
    value_json    TEXT    NOT NULL CHECK (json_valid(value_json)),
    -- The value it replaced, as JSON, for the record.
    previous_json TEXT    NOT NULL CHECK (json_valid(previous_json)),
    reason        TEXT    NOT NULL CHECK (length(trim(reason)) > 0),
    actor         TEXT    NOT NULL CHECK (length(actor) > 0),
    at            INTEGER NOT NULL,
    FOREIGN KEY (game_id, turn_id) REFERENCES turns(game_id, id),
    FOREIGN KEY (game_id, unit_id) REFERENCES units(game_id, id)
) STRICT;
CREATE INDEX corrections_by_turn ON corrections(turn_id, id);
CREATE TRIGGER corrections_no_update BEFORE UPDATE ON corrections
BEGIN SELECT RAISE(ABORT, 'corrections are append-only'); END;
CREATE TRIGGER corrections_no_delete BEFORE DELETE ON corrections
BEGIN SELECT RAISE(ABORT, 'corrections are append-only'); END;

-- The player mails of a HELD turn, composed when the turn was processed
-- and queued, byte for byte, by RELEASE.
CREATE TABLE held_mail (
    id               INTEGER PRIMARY KEY,
    game_id          INTEGER NOT NULL REFERENCES games(id),
    -- The held attempt that produced it.
    turn_id          INTEGER NOT NULL,
    report_id        INTEGER NOT NULL REFERENCES reports(id),
    kind             TEXT    NOT NULL CHECK (length(kind) > 0),
    message_id       TEXT    NOT NULL CHECK (length(message_id) > 0),
    recipients_json  TEXT    NOT NULL
                             CHECK (json_valid(recipients_json)
                                    AND json_type(recipients_json) = 'array'
                                    AND json_array_length(recipients_json) > 0),
    raw              BLOB    NOT NULL,
    created_at       INTEGER NOT NULL,
    -- Set by RELEASE.
    outbound_mail_id INTEGER REFERENCES outbound_mail(id),
    FOREIGN KEY (game_id, turn_id) REFERENCES turns(game_id, id)
) STRICT;
CREATE INDEX held_mail_by_turn ON held_mail(turn_id);
CREATE TRIGGER held_mail_content_immutable
BEFORE UPDATE OF game_id, turn_id, report_id, kind, message_id, recipients_json, raw, created_at
ON held_mail
BEGIN
    SELECT RAISE(ABORT, 'held_mail: a held message is never rewritten');
END;

-- Umpire dice (`DICE MODE UMPIRE`, games.settings_json `$.dice` =
-- "umpire"): the engine runs with the dice the umpire has supplied for the
-- open attempt and, when it needs more, stops with nothing written but a
-- `dice_requests` row (and a mail to the umpire listing each roll's
-- purpose). `DICE n n ...` answers the request, in order.
CREATE TABLE dice_requests (
    id               INTEGER PRIMARY KEY,
    game_id          INTEGER NOT NULL REFERENCES games(id),
    -- The open attempt waiting for the dice.
    turn_id          INTEGER NOT NULL,
    at               INTEGER NOT NULL,
    -- Dice already supplied for the attempt: the request's first die is
    -- die number first_seq (from 0) of the turn.
    first_seq        INTEGER NOT NULL CHECK (first_seq >= 0),
    -- [{"kind": ..., "subject": ..., "note": ...}, ...]: one per die wanted, in order.
    wanted_json      TEXT    NOT NULL
                             CHECK (json_valid(wanted_json) AND json_type(wanted_json) = 'array'
                                    AND json_array_length(wanted_json) > 0),
    -- When DICE answered it, or a new request or DICE MODE STREAM replaced it.
    answered_at      INTEGER,
    outbound_mail_id INTEGER REFERENCES outbound_mail(id),
    FOREIGN KEY (game_id, turn_id) REFERENCES turns(game_id, id)
) STRICT;
CREATE UNIQUE INDEX dice_requests_one_open ON dice_requests(turn_id) WHERE answered_at IS NULL;

CREATE TABLE umpire_dice (
    id           INTEGER PRIMARY KEY,
    game_id      INTEGER NOT NULL REFERENCES games(id),
    turn_id      INTEGER NOT NULL,
    -- Position among the attempt's dice, from 0, in the order rolled.
    seq          INTEGER NOT NULL CHECK (seq >= 0),
    value        INTEGER NOT NULL CHECK (value BETWEEN 1 AND 6),
    -- What the request said the die was for (dice.rs RollKind, subject).
    kind         TEXT    NOT NULL CHECK (length(kind) > 0),
    subject      TEXT    NOT NULL,
    request_id   INTEGER NOT NULL REFERENCES dice_requests(id),
    actor        TEXT    NOT NULL CHECK (length(actor) > 0),
    at           INTEGER NOT NULL,
    -- Set when the engine, given the dice before it, wanted this position
    -- for something else than requested (it is then asked for again).
    discarded_at INTEGER,
    FOREIGN KEY (game_id, turn_id) REFERENCES turns(game_id, id)
) STRICT;
CREATE UNIQUE INDEX umpire_dice_position ON umpire_dice(turn_id, seq) WHERE discarded_at IS NULL;
CREATE TRIGGER umpire_dice_immutable
BEFORE UPDATE OF id, game_id, turn_id, seq, value, kind, subject, request_id, actor, at ON umpire_dice
BEGIN
    SELECT RAISE(ABORT, 'umpire_dice: a die once given is never rewritten; only discarded_at may be set');
END;
CREATE TRIGGER umpire_dice_no_delete BEFORE DELETE ON umpire_dice
BEGIN SELECT RAISE(ABORT, 'umpire_dice are append-only'); END;

-- Free-text orders (umpired games): a paragraph the order parser could not
-- read goes to the umpire with the player's words and his unit's situation
-- as his side sees it; INTERPRET enters it as an order in the order
-- language (an umpire-entered submission), REJECT answers with a reason.
CREATE TABLE interpretations (
    id                   INTEGER PRIMARY KEY,
    -- Quoted to the umpire and the player: "F<game>-<n>".
    public_id            TEXT    NOT NULL UNIQUE COLLATE NOCASE CHECK (length(public_id) > 0),
    game_id              INTEGER NOT NULL REFERENCES games(id),
    -- The player's submission the paragraph came in.
    submission_id        INTEGER NOT NULL,
    player_id            INTEGER NOT NULL,
    -- The turn the player's mail counted for.
    turn                 INTEGER NOT NULL CHECK (turn >= 1),
    paragraph            TEXT    NOT NULL,
    parser_message       TEXT    NOT NULL,
    -- What the umpire was shown of the unit's situation (the player's side's view).
    situation            TEXT    NOT NULL,
    created_at           INTEGER NOT NULL,
    status               TEXT    NOT NULL DEFAULT 'pending'
                                 CHECK (status IN ('pending', 'interpreted', 'rejected')),
    -- The order as the umpire wrote it, or his reason for rejecting it.
    answer               TEXT,
    answered_by          TEXT,
    answered_at          INTEGER,
    -- INTERPRET: the umpire-entered submission holding the order.
    answer_submission_id INTEGER,
    CHECK ((status = 'pending') = (answered_at IS NULL)),
    FOREIGN KEY (game_id, submission_id)        REFERENCES submissions(game_id, id),
    FOREIGN KEY (game_id, player_id)            REFERENCES players(game_id, id),
    FOREIGN KEY (game_id, answer_submission_id) REFERENCES submissions(game_id, id)
) STRICT;
CREATE INDEX interpretations_pending ON interpretations(game_id, status);
CREATE TRIGGER interpretations_words_immutable
BEFORE UPDATE OF id, public_id, game_id, submission_id, player_id, turn, paragraph,
                 parser_message, situation, created_at ON interpretations
BEGIN
    SELECT RAISE(ABORT, 'interpretations: the player''s words and what the umpire was shown are never rewritten');
END;
