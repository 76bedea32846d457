-- 0001_initial: the whole Adjutant store.
--
-- Conventions (see docs/schema.md for the invariants these serve):
-- * Every table is STRICT, so a value of the wrong type is an error, not a
--   silent conversion.
-- * Times are INTEGER unix seconds UTC, always supplied by the caller.
-- * Enumerated statuses and kinds carry CHECK constraints; the kinds mirror
--   src/rules/iron_brigade/kinds.rs (a unit test fails if they drift).
-- * Rows that belong to a game reference other rows of the SAME game through
--   composite foreign keys (game_id, x_id) -> parent(game_id, id).
-- * Nothing cascades on delete: history is never removed by accident.
-- * Append-only tables and immutable columns are enforced by triggers.

CREATE TABLE games (
    id              INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL UNIQUE COLLATE NOCASE CHECK (length(trim(name)) > 0),
    ruleset         TEXT    NOT NULL CHECK (length(ruleset) > 0),
    scenario_name   TEXT    NOT NULL,
    scenario_toml   TEXT    NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'active'
                            CHECK (status IN ('active', 'paused', 'finished', 'abandoned')),
    -- Secret: per-turn seeds are HMAC-SHA256(seed, "turn:N"). Never printed.
    seed            BLOB    NOT NULL CHECK (length(seed) = 32),
    created_at      INTEGER NOT NULL,
    umpire_address  TEXT,
    settings_json   TEXT    NOT NULL DEFAULT '{}'
                            CHECK (json_valid(settings_json) AND json_type(settings_json) = 'object')
) STRICT;

CREATE TABLE sides (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    name    TEXT    NOT NULL COLLATE NOCASE CHECK (length(trim(name)) > 0),
    UNIQUE (game_id, name),
    UNIQUE (game_id, id)
) STRICT;

CREATE TABLE players (
    id              INTEGER PRIMARY KEY,
    game_id         INTEGER NOT NULL REFERENCES games(id),
    side_id         INTEGER NOT NULL,
    name            TEXT    NOT NULL COLLATE NOCASE CHECK (length(trim(name)) > 0),
    -- Argon2 PHC string ("$argon2id$v=19$..."); the secret itself is never stored.
    secret_hash     TEXT    NOT NULL CHECK (secret_hash LIKE '$argon2%'),
    time_zone       TEXT    NOT NULL DEFAULT 'UTC',
    status          TEXT    NOT NULL DEFAULT 'active'
                            CHECK (status IN ('active', 'absent', 'dropped')),
    -- Set when every address of the player bounces: mail to them is futile.
    address_failing INTEGER NOT NULL DEFAULT 0 CHECK (address_failing IN (0, 1)),
    UNIQUE (game_id, name),
    UNIQUE (game_id, id),
    FOREIGN KEY (game_id, side_id) REFERENCES sides(game_id, id)
) STRICT;

CREATE TABLE player_addresses (
    id                 INTEGER PRIMARY KEY,
    game_id            INTEGER NOT NULL REFERENCES games(id),
    player_id          INTEGER NOT NULL,
    -- Compared without regard to ASCII case: nobody's mail server treats
    -- Gibbon@x and gibbon@x as different people in practice.
    address            TEXT    NOT NULL COLLATE NOCASE CHECK (instr(address, '@') > 1),
    failing            INTEGER NOT NULL DEFAULT 0 CHECK (failing IN (0, 1)),
    last_bounce_at     INTEGER,
    last_bounce_detail TEXT,
    UNIQUE (game_id, address),
    FOREIGN KEY (game_id, player_id) REFERENCES players(game_id, id)
) STRICT;
CREATE INDEX player_addresses_by_address ON player_addresses(address);

-- Identity and static attributes only; rank changes, wounds and position
-- live in the turn's state snapshot.
CREATE TABLE officers (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games(id),
    side_id       INTEGER NOT NULL,
    name          TEXT    NOT NULL COLLATE NOCASE CHECK (length(trim(name)) > 0),
    level         TEXT    NOT NULL CHECK (level IN ('brigade', 'division', 'corps', 'army')),
    rating        TEXT    NOT NULL CHECK (rating IN ('hero', 'good', 'normal', 'poor', 'bad')),
    command_class TEXT    NOT NULL CHECK (command_class IN ('inferior', 'regular', 'superior')),
    superior_id   INTEGER,
    player_id     INTEGER,
    UNIQUE (game_id, name),
    UNIQUE (game_id, id),
    FOREIGN KEY (game_id, side_id)     REFERENCES sides(game_id, id),
    FOREIGN KEY (game_id, superior_id) REFERENCES officers(game_id, id),
    FOREIGN KEY (game_id, player_id)   REFERENCES players(game_id, id)
) STRICT;

-- Identity and static attributes only; castings, formation, position and
-- morale live in the turn's state snapshot.
CREATE TABLE units (
    id           INTEGER PRIMARY KEY,
    game_id      INTEGER NOT NULL REFERENCES games(id),
    side_id      INTEGER NOT NULL,
    name         TEXT    NOT NULL COLLATE NOCASE CHECK (length(trim(name)) > 0),
    aliases_json TEXT    NOT NULL DEFAULT '[]'
                         CHECK (json_valid(aliases_json) AND json_type(aliases_json) = 'array'),
    arm          TEXT    NOT NULL
                         CHECK (arm IN ('infantry', 'cavalry', 'artillery', 'horse-artillery')),
    weapon       TEXT    NOT NULL CHECK (weapon IN (
                     'smoothbore-musket', 'obsolete-rifle-musket', 'rifled-musket',
                     'breechloading-rifle', 'repeating-rifle', 'muzzle-loading-carbine',
                     'obsolete-breechloading-carbine', 'breechloading-carbine',
                     'repeating-carbine', 'pistols-or-shotguns', 'mountain-rifle', '6pdr-gun',
                     '12pdr-mountain-howitzer', 'light-rifle', '12pdr-gun', '12pdr-howitzer',
                     'medium-rifle', '24pdr-howitzer', 'heavy-rifle', '32pdr-howitzer',
                     'sniper')),
    commander_id INTEGER NOT NULL,
    UNIQUE (game_id, name),
    UNIQUE (game_id, id),
    FOREIGN KEY (game_id, side_id)      REFERENCES sides(game_id, id),
    FOREIGN KEY (game_id, commander_id) REFERENCES officers(game_id, id)
) STRICT;

CREATE TABLE turns (
    id               INTEGER PRIMARY KEY,
    game_id          INTEGER NOT NULL REFERENCES games(id),
    number           INTEGER NOT NULL CHECK (number >= 1),
    status           TEXT    NOT NULL DEFAULT 'open'
                             CHECK (status IN ('open', 'processing', 'held', 'released')),
    deadline_at      INTEGER,
    grace_secs       INTEGER NOT NULL DEFAULT 0 CHECK (grace_secs >= 0),
    -- Lower-case hex SHA-256 of the 32-byte turn seed, published before the turn.
    seed_commitment  TEXT    NOT NULL
                             CHECK (length(seed_commitment) = 64
                                    AND seed_commitment NOT GLOB '*[^0-9a-f]*'),
    -- Lower-case hex of the turn seed itself, written once the turn is processed.
    seed_revealed    TEXT    CHECK (seed_revealed IS NULL
                                    OR (length(seed_revealed) = 64
                                        AND seed_revealed NOT GLOB '*[^0-9a-f]*'
                                        AND status IN ('held', 'released'))),
    -- The whole dynamic battle state at the START of this turn.
    state_json       TEXT    NOT NULL CHECK (json_valid(state_json)),
    -- Lower-case hex SHA-256 of state_json's UTF-8 bytes.
    state_hash       TEXT    NOT NULL
                             CHECK (length(state_hash) = 64 AND state_hash NOT GLOB '*[^0-9a-f]*'),
    opened_at        INTEGER NOT NULL,
    processed_at     INTEGER,
    released_at      INTEGER,
    UNIQUE (game_id, number),
    UNIQUE (game_id, id)
) STRICT;
-- One current turn per game: at most one turn that is not yet released.
CREATE UNIQUE INDEX turns_one_current ON turns(game_id) WHERE status <> 'released';

CREATE TRIGGER turns_snapshot_immutable
BEFORE UPDATE OF game_id, number, seed_commitment, state_json, state_hash ON turns
BEGIN
    SELECT RAISE(ABORT, 'turns: number, seed commitment and state snapshot are immutable; open a new turn instead');
END;

CREATE TABLE inbound_mail (
    id            INTEGER PRIMARY KEY,
    raw           BLOB    NOT NULL,
    -- Without angle brackets; NULL when the message had none.
    message_id    TEXT    CHECK (message_id IS NULL OR length(message_id) > 0),
    sha256        TEXT    NOT NULL UNIQUE
                          CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
    source        TEXT    NOT NULL CHECK (source IN ('maildir', 'imap')),
    -- Maildir file name, or "account/folder/uidvalidity/uid" for IMAP.
    source_ref    TEXT    NOT NULL,
    received_at   INTEGER NOT NULL,
    status        TEXT    NOT NULL DEFAULT 'new'
                          CHECK (status IN ('new', 'accepted', 'refused', 'ignored', 'duplicate')),
    status_detail TEXT,
    game_id       INTEGER REFERENCES games(id),
    player_id     INTEGER,
    FOREIGN KEY (game_id, player_id) REFERENCES players(game_id, id)
) STRICT;
CREATE UNIQUE INDEX inbound_mail_by_message_id ON inbound_mail(message_id)
    WHERE message_id IS NOT NULL;
CREATE INDEX inbound_mail_by_status ON inbound_mail(status, id);

CREATE TRIGGER inbound_mail_raw_immutable
BEFORE UPDATE OF raw, message_id, sha256, source, source_ref, received_at ON inbound_mail
BEGIN
    SELECT RAISE(ABORT, 'inbound_mail: the received message is immutable; only its status, detail, game and player may change');
END;

CREATE TRIGGER inbound_mail_no_delete
BEFORE DELETE ON inbound_mail
BEGIN
    SELECT RAISE(ABORT, 'inbound_mail is append-only: received mail is evidence and is never deleted');
END;

CREATE TABLE imap_state (
    account     TEXT    NOT NULL,
    folder      TEXT    NOT NULL,
    uidvalidity INTEGER NOT NULL CHECK (uidvalidity >= 0),
    last_uid    INTEGER NOT NULL DEFAULT 0 CHECK (last_uid >= 0),
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (account, folder)
) STRICT;

CREATE TABLE submissions (
    id              INTEGER PRIMARY KEY,
    -- Stable public identifier quoted in receipts (never the row id).
    public_id       TEXT    NOT NULL UNIQUE CHECK (length(public_id) > 0),
    game_id         INTEGER NOT NULL REFERENCES games(id),
    player_id       INTEGER NOT NULL,
    -- NULL for orders entered by the umpire through the CLI.
    inbound_mail_id INTEGER UNIQUE REFERENCES inbound_mail(id),
    turn_id         INTEGER NOT NULL,
    received_at     INTEGER NOT NULL,
    ready           INTEGER NOT NULL DEFAULT 0 CHECK (ready IN (0, 1)),
    status          TEXT    NOT NULL CHECK (status IN ('accepted', 'partial', 'refused')),
    detail          TEXT,
    UNIQUE (game_id, id),
    FOREIGN KEY (game_id, player_id) REFERENCES players(game_id, id),
    FOREIGN KEY (game_id, turn_id)   REFERENCES turns(game_id, id)
) STRICT;
CREATE INDEX submissions_by_turn ON submissions(turn_id, player_id);

CREATE TABLE orders (
    id                 INTEGER PRIMARY KEY,
    game_id            INTEGER NOT NULL REFERENCES games(id),
    submission_id      INTEGER NOT NULL,
    -- Exactly one of unit_id / officer_id: whom the order is for.
    unit_id            INTEGER,
    officer_id         INTEGER,
    issuing_officer_id INTEGER,
    original_text      TEXT    NOT NULL,
    parsed_json        TEXT    NOT NULL CHECK (json_valid(parsed_json)),
    -- Turn NUMBERS: the effective turn (APSoF I.C) may not exist yet.
    issued_turn        INTEGER NOT NULL CHECK (issued_turn >= 1),
    effective_turn     INTEGER NOT NULL CHECK (effective_turn >= issued_turn),
    replaces_id        INTEGER,
    replaced_by_id     INTEGER,
    follows_previous   INTEGER NOT NULL DEFAULT 0 CHECK (follows_previous IN (0, 1)),
    status             TEXT    NOT NULL DEFAULT 'pending'
                               CHECK (status IN ('pending', 'active', 'superseded', 'done', 'ignored')),
    CHECK ((unit_id IS NULL) <> (officer_id IS NULL)),
    CHECK (replaced_by_id IS NULL OR status IN ('superseded', 'ignored', 'done')),
    UNIQUE (game_id, id),
    FOREIGN KEY (game_id, submission_id)      REFERENCES submissions(game_id, id),
    FOREIGN KEY (game_id, unit_id)            REFERENCES units(game_id, id),
    FOREIGN KEY (game_id, officer_id)         REFERENCES officers(game_id, id),
    FOREIGN KEY (game_id, issuing_officer_id) REFERENCES officers(game_id, id),
    FOREIGN KEY (game_id, replaces_id)        REFERENCES orders(game_id, id),
    FOREIGN KEY (game_id, replaced_by_id)     REFERENCES orders(game_id, id)
) STRICT;
CREATE INDEX orders_by_unit ON orders(game_id, unit_id, status);
CREATE INDEX orders_by_officer ON orders(game_id, officer_id, status);
CREATE INDEX orders_by_submission ON orders(submission_id);

CREATE TRIGGER orders_immutable
BEFORE UPDATE OF id, game_id, submission_id, unit_id, officer_id, issuing_officer_id,
                 original_text, parsed_json, issued_turn, effective_turn, replaces_id,
                 follows_previous ON orders
BEGIN
    SELECT RAISE(ABORT, 'orders: an order is never rewritten; only status and replaced_by_id may change');
END;

CREATE TABLE events (
    id        INTEGER PRIMARY KEY,
    game_id   INTEGER NOT NULL REFERENCES games(id),
    turn_id   INTEGER NOT NULL,
    seq       INTEGER NOT NULL CHECK (seq >= 0),
    kind      TEXT    NOT NULL CHECK (length(kind) > 0),
    data_json TEXT    NOT NULL CHECK (json_valid(data_json)),
    UNIQUE (turn_id, seq),
    FOREIGN KEY (game_id, turn_id) REFERENCES turns(game_id, id)
) STRICT;

CREATE TABLE dice_rolls (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games(id),
    turn_id    INTEGER NOT NULL,
    -- Order of the roll within the turn, whatever its source.
    seq        INTEGER NOT NULL CHECK (seq >= 0),
    -- Position in the turn's ChaCha20 stream; NULL for umpire-entered dice,
    -- which consume no draws.
    draw_index INTEGER CHECK (draw_index IS NULL OR draw_index >= 0),
    sides      INTEGER NOT NULL CHECK (sides >= 2),
    value      INTEGER NOT NULL CHECK (value BETWEEN 1 AND sides),
    purpose    TEXT    NOT NULL CHECK (length(purpose) > 0),
    subject    TEXT,
    source     TEXT    NOT NULL CHECK (source IN ('stream', 'umpire')),
    CHECK ((source = 'stream') = (draw_index IS NOT NULL)),
    UNIQUE (turn_id, seq),
    UNIQUE (turn_id, draw_index),
    FOREIGN KEY (game_id, turn_id) REFERENCES turns(game_id, id)
) STRICT;

CREATE TABLE dispatches (
    id               INTEGER PRIMARY KEY,
    game_id          INTEGER NOT NULL REFERENCES games(id),
    from_officer_id  INTEGER NOT NULL,
    to_officer_id    INTEGER NOT NULL,
    -- The order line that wrote it, when it came in a submission.
    order_id         INTEGER,
    text             TEXT    NOT NULL,
    written_turn     INTEGER NOT NULL CHECK (written_turn >= 1),
    status           TEXT    NOT NULL DEFAULT 'in-transit'
                             CHECK (status IN ('in-transit', 'delivered', 'lost', 'captured')),
    -- Display copy of the messenger's position, written by the turn processor
    -- in the same transaction as the snapshot it was taken from (which wins).
    carrier_json     TEXT    CHECK (carrier_json IS NULL OR json_valid(carrier_json)),
    delivered_turn   INTEGER CHECK (delivered_turn IS NULL OR delivered_turn >= written_turn),
    FOREIGN KEY (game_id, from_officer_id) REFERENCES officers(game_id, id),
    FOREIGN KEY (game_id, to_officer_id)   REFERENCES officers(game_id, id),
    FOREIGN KEY (game_id, order_id)        REFERENCES orders(game_id, id)
) STRICT;
CREATE INDEX dispatches_in_transit ON dispatches(game_id, status);

CREATE TABLE outbound_mail (
    id              INTEGER PRIMARY KEY,
    game_id         INTEGER REFERENCES games(id),
    kind            TEXT    NOT NULL CHECK (length(kind) > 0),
    -- Without angle brackets.
    message_id      TEXT    NOT NULL UNIQUE CHECK (length(message_id) > 0),
    recipients_json TEXT    NOT NULL
                            CHECK (json_valid(recipients_json)
                                   AND json_type(recipients_json) = 'array'
                                   AND json_array_length(recipients_json) > 0),
    raw             BLOB    NOT NULL,
    in_reply_to     TEXT,
    status          TEXT    NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at INTEGER,
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    sent_at         INTEGER,
    CHECK ((status = 'queued') = (next_attempt_at IS NOT NULL)),
    CHECK ((status = 'sent') = (sent_at IS NOT NULL))
) STRICT;
-- The sender's hot query: queued rows whose time has come, oldest first.
CREATE INDEX outbound_mail_due ON outbound_mail(status, next_attempt_at, id);

CREATE TRIGGER outbound_mail_content_immutable
BEFORE UPDATE OF game_id, kind, message_id, recipients_json, raw, in_reply_to, created_at
ON outbound_mail
BEGIN
    SELECT RAISE(ABORT, 'outbound_mail: a queued message is never rewritten; queue a new one');
END;

CREATE TABLE reports (
    id               INTEGER PRIMARY KEY,
    game_id          INTEGER NOT NULL REFERENCES games(id),
    turn_id          INTEGER NOT NULL,
    -- NULL player = the umpire's report.
    player_id        INTEGER,
    side_id          INTEGER,
    text             TEXT    NOT NULL,
    html             TEXT,
    created_at       INTEGER NOT NULL,
    outbound_mail_id INTEGER REFERENCES outbound_mail(id),
    FOREIGN KEY (game_id, turn_id)   REFERENCES turns(game_id, id),
    FOREIGN KEY (game_id, player_id) REFERENCES players(game_id, id),
    FOREIGN KEY (game_id, side_id)   REFERENCES sides(game_id, id)
) STRICT;
CREATE INDEX reports_by_turn ON reports(turn_id, player_id);

CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER REFERENCES games(id),
    -- "umpire", "system", "player:<name>", "cli:<user>" ...
    actor       TEXT    NOT NULL CHECK (length(actor) > 0),
    at          INTEGER NOT NULL,
    action      TEXT    NOT NULL CHECK (length(action) > 0),
    reason      TEXT,
    detail_json TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(detail_json))
) STRICT;
CREATE INDEX audit_log_by_game ON audit_log(game_id, at);

-- Events, dice and the audit log are the record of what happened: append-only.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER dice_rolls_no_update BEFORE UPDATE ON dice_rolls
BEGIN SELECT RAISE(ABORT, 'dice_rolls are append-only'); END;
CREATE TRIGGER dice_rolls_no_delete BEFORE DELETE ON dice_rolls
BEGIN SELECT RAISE(ABORT, 'dice_rolls are append-only'); END;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
