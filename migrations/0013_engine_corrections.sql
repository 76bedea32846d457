-- The umpire's turn plane for a game played through its ruleset's mail
-- plane (rules::MailEngine, issue #19: SFRM at brigade scale).
--
-- `engine_corrections`: the umpire's SET corrections of such a game, as
-- the ruleset read and checked them (`MailEngine::correct`). Like
-- `corrections` (Iron Brigade's, whose rows name a `units` row and one of
-- its fields) they are inputs to one attempt of a turn, applied to its
-- stored start state in the order made by processing, REDO and replay;
-- append-only.
CREATE TABLE engine_corrections (
    id              INTEGER PRIMARY KEY,
    game_id         INTEGER NOT NULL REFERENCES games(id),
    turn_id         INTEGER NOT NULL,
    made_while      TEXT    NOT NULL CHECK (made_while IN ('open', 'held')),
    -- The unit and field in the ruleset's words, for the record.
    unit            TEXT    NOT NULL CHECK (length(unit) > 0),
    field           TEXT    NOT NULL CHECK (length(field) > 0),
    -- The correction as MailEngine::apply_correction takes it back.
    correction_json TEXT    NOT NULL CHECK (json_valid(correction_json)),
    value           TEXT    NOT NULL,
    previous        TEXT    NOT NULL,
    reason          TEXT    NOT NULL CHECK (length(trim(reason)) > 0),
    actor           TEXT    NOT NULL CHECK (length(actor) > 0),
    at              INTEGER NOT NULL,
    FOREIGN KEY (game_id, turn_id) REFERENCES turns(game_id, id)
) STRICT;
CREATE INDEX engine_corrections_by_turn ON engine_corrections(turn_id, id);
CREATE TRIGGER engine_corrections_no_update BEFORE UPDATE ON engine_corrections
BEGIN SELECT RAISE(ABORT, 'engine_corrections are append-only'); END;
CREATE TRIGGER engine_corrections_no_delete BEFORE DELETE ON engine_corrections
BEGIN SELECT RAISE(ABORT, 'engine_corrections are append-only'); END;

-- Orders of such a game that a ROLLBACK set aside (written for a turn
-- after the one rolled back to, or since, undone by ROLLFORWARD):
-- `engine_orders` rows are never rewritten, so their status lives here. A
-- row present means the order no longer counts; ROLLFORWARD deletes the
-- rows of the rollback it undoes.
CREATE TABLE engine_orders_set_aside (
    order_id  INTEGER PRIMARY KEY REFERENCES engine_orders(id),
    game_id   INTEGER NOT NULL REFERENCES games(id),
    -- The turn_changes row (rollback or rollforward) that set it aside.
    change_id INTEGER NOT NULL REFERENCES turn_changes(id)
) STRICT;
