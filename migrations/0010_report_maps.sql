-- 0010_report_maps: a report's HTML kept small (issue #18).
--
-- Each report's HTML carries its SVG map inline, and the map's static
-- layer (paper, table, terrain, landmarks' squares, grid, north arrow: the
-- scenario's public map) is the same in every report of a game. Kept whole,
-- the HTML was most of the store's growth per turn. Now:
--
-- * the static layer is stored once per game in `map_bases`, by its
--   SHA-256 (a scenario drawn the same way always gives the same one);
-- * a new report keeps `html` NULL and `html_packed` the HTML with that
--   layer cut out at byte `map_base_at`, compressed with raw DEFLATE
--   (RFC 1951). Reading it back (`store::report_html`) inflates it and
--   puts the layer back: byte for byte the HTML that was mailed.
--
-- Reports stored before this migration keep their `html` as it was.
CREATE TABLE map_bases (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    sha256  TEXT    NOT NULL
                    CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
    svg     TEXT    NOT NULL,
    UNIQUE (game_id, sha256)
) STRICT;

ALTER TABLE reports ADD COLUMN html_packed BLOB;
ALTER TABLE reports ADD COLUMN map_base_id INTEGER REFERENCES map_bases(id);
ALTER TABLE reports ADD COLUMN map_base_at INTEGER;

-- A report has its HTML one way or none: plain, or packed; a cut-out
-- layer is named exactly when its place is, and only in packed HTML.
CREATE TRIGGER reports_html_one_way BEFORE INSERT ON reports
WHEN (NEW.html IS NOT NULL AND NEW.html_packed IS NOT NULL)
  OR ((NEW.map_base_id IS NULL) <> (NEW.map_base_at IS NULL))
  OR (NEW.map_base_id IS NOT NULL AND NEW.html_packed IS NULL)
  OR (NEW.map_base_at IS NOT NULL AND NEW.map_base_at < 0)
BEGIN
    SELECT RAISE(ABORT, 'reports: HTML is stored plain or packed, and a map layer with its place');
END;

-- The static layers are shared by reports: never rewritten or deleted.
CREATE TRIGGER map_bases_immutable BEFORE UPDATE ON map_bases
BEGIN
    SELECT RAISE(ABORT, 'map_bases: a stored map layer is never rewritten');
END;
CREATE TRIGGER map_bases_kept BEFORE DELETE ON map_bases
BEGIN
    SELECT RAISE(ABORT, 'map_bases: a stored map layer is never deleted');
END;
