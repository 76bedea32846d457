-- Orders of a ruleset played through its mail plane (rules::MailEngine,
-- issue #19: SFRM at brigade scale): one row per order mail that held at
-- least one understood order, as the ruleset serialised them. The turn
-- takes, for each player, his latest such mail for the turn (the highest
-- id); a mail with no orders (READY alone, REPORT) leaves his earlier ones
-- standing. Iron Brigade keeps its `orders` table.
CREATE TABLE engine_orders (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games(id),
    submission_id INTEGER NOT NULL UNIQUE,
    player_id     INTEGER NOT NULL,
    -- The turn NUMBER the orders count for.
    turn          INTEGER NOT NULL CHECK (turn >= 1),
    orders_json   TEXT    NOT NULL CHECK (json_valid(orders_json)),
    FOREIGN KEY (game_id, submission_id) REFERENCES submissions(game_id, id),
    FOREIGN KEY (game_id, player_id)     REFERENCES players(game_id, id)
) STRICT;
CREATE INDEX engine_orders_by_turn ON engine_orders(game_id, turn, player_id);

CREATE TRIGGER engine_orders_immutable BEFORE UPDATE ON engine_orders
BEGIN
    SELECT RAISE(ABORT, 'engine_orders: orders are never rewritten; a later mail adds a row');
END;
