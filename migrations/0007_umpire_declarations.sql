-- APSoF V.G.2 and the V.B table: the umpire may declare a unit in a
-- perilous situation, or give it a protection, for one turn with SET
-- (`SET <unit> perilous yes`, `SET <unit> protection hasty-works`). Those
-- corrections go into `corrections` like the others; its `field` CHECK
-- gains the two names. SQLite cannot alter a CHECK, so the table is
-- rebuilt with its rows, index and triggers unchanged.
CREATE TABLE corrections_new (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games(id),
    turn_id       INTEGER NOT NULL,
    unit_id       INTEGER NOT NULL,
    -- The unit's UnitId in the snapshot (units.rules_id), for replay.
    rules_unit    INTEGER NOT NULL CHECK (rules_unit >= 1),
    field         TEXT    NOT NULL
                          CHECK (field IN ('morale', 'castings', 'position', 'formation', 'facing',
                                           'perilous', 'protection')),
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
INSERT INTO corrections_new
    (id, game_id, turn_id, unit_id, rules_unit, field, made_while, value_json,
     previous_json, reason, actor, at)
SELECT id, game_id, turn_id, unit_id, rules_unit, field, made_while, value_json,
       previous_json, reason, actor, at
FROM corrections;
DROP TABLE corrections;
ALTER TABLE corrections_new RENAME TO corrections;
CREATE INDEX corrections_by_turn ON corrections(turn_id, id);
CREATE TRIGGER corrections_no_update BEFORE UPDATE ON corrections
BEGIN SELECT RAISE(ABORT, 'corrections are append-only'); END;
CREATE TRIGGER corrections_no_delete BEFORE DELETE ON corrections
BEGIN SELECT RAISE(ABORT, 'corrections are append-only'); END;
