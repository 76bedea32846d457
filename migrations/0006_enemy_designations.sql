-- 0006_enemy_designations: the designation each side gives every enemy unit
-- it has seen (issue #14 §1, `src/identity.rs`).
--
-- Enemies are not named to a player unless the scenario declares identities
-- known: a side calls an enemy unit by a letter ("B") given the first time
-- the side saw it. The letter must stay with that unit for the whole game
-- and never go to another, across turns, REDO and ROLLBACK alike, so it is
-- kept here rather than worked out again each turn. A row is never deleted
-- and its designation never changes (trigger); only the last-known turn and
-- place move on.

CREATE TABLE enemy_designations (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    -- The rules `SideId` of the side that saw the unit, and the unit's
    -- rules `UnitId` (ARCHITECTURE.md: rules ids are stable).
    side        INTEGER NOT NULL CHECK (side >= 0),
    unit        INTEGER NOT NULL CHECK (unit >= 1),
    designation TEXT    NOT NULL CHECK (length(designation) > 0),
    first_turn  INTEGER NOT NULL CHECK (first_turn >= 1),
    last_turn   INTEGER NOT NULL CHECK (last_turn >= first_turn),
    last_x      REAL    NOT NULL,
    last_y      REAL    NOT NULL,
    UNIQUE (game_id, side, unit),
    UNIQUE (game_id, side, designation)
) STRICT;

CREATE TRIGGER enemy_designations_kept
BEFORE UPDATE OF game_id, side, unit, designation, first_turn ON enemy_designations
BEGIN
    SELECT RAISE(ABORT, 'a designation is never changed');
END;

CREATE TRIGGER enemy_designations_never_deleted
BEFORE DELETE ON enemy_designations
BEGIN
    SELECT RAISE(ABORT, 'a designation is never deleted');
END;
