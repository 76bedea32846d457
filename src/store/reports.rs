//! Report rows: their HTML kept small (migration 0010, issue #18).
//!
//! A report's HTML carries its SVG map inline. The map's static layer —
//! paper, table, terrain, grid, north arrow: the scenario's public map
//! ([`crate::report::map::MapParts::base`]) — is the same in every report
//! of a game, so it is stored once per game in `map_bases` and cut out of
//! each report's HTML, which is then kept compressed (raw DEFLATE) in
//! `reports.html_packed`. [`report_html`] gives back, byte for byte, the
//! HTML that was made and mailed. Reports stored before 0010 keep plain
//! `html`, which is read as it is. The text stays plain, for reading with
//! any SQLite client.

use super::seed::sha256_hex;
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, Row, params};
use std::io::{Read, Write};

/// A report to store.
#[derive(Debug, Clone, Copy)]
pub struct NewReport<'a> {
    pub game_id: i64,
    pub turn_id: i64,
    /// `None`: the umpire's report.
    pub player_id: Option<i64>,
    pub side_id: Option<i64>,
    pub text: &'a str,
    pub html: &'a str,
    /// The map's static layer as it appears in `html` (its exact text), to
    /// be stored once per game; `None` or not found in `html`: the HTML is
    /// packed whole.
    pub map_base: Option<&'a str>,
    pub created_at: i64,
}

/// The columns [`report_html_at`] reads, for a query over `reports r`
/// that also has [`REPORT_HTML_JOIN`].
pub const REPORT_HTML_COLUMNS: &str = "r.html, r.html_packed, mb.svg, r.map_base_at";

/// The join that brings in a report's map layer, named `mb`.
pub const REPORT_HTML_JOIN: &str = "LEFT JOIN map_bases mb ON mb.id = r.map_base_id";

/// Compression level: DEFLATE's default, which on a report's HTML packs
/// nearly as tightly as the slowest level in a small fraction of its time.
const LEVEL: u32 = 6;

/// The id of the game's stored map layer with this text, stored now if it
/// is new.
fn map_base_id(conn: &Connection, game_id: i64, svg: &str) -> rusqlite::Result<i64> {
    let hash = sha256_hex(svg.as_bytes());
    let found: Option<i64> = conn
        .prepare_cached("SELECT id FROM map_bases WHERE game_id = ?1 AND sha256 = ?2")?
        .query_row(params![game_id, hash], |r| r.get(0))
        .optional()?;
    if let Some(id) = found {
        return Ok(id);
    }
    conn.prepare_cached("INSERT INTO map_bases (game_id, sha256, svg) VALUES (?1, ?2, ?3)")?
        .execute(params![game_id, hash, svg])?;
    Ok(conn.last_insert_rowid())
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut enc = DeflateEncoder::new(Vec::with_capacity(bytes.len() / 4), Compression::new(LEVEL));
    // Writing to a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// Stores a report and returns its id. Its HTML is packed: the map layer
/// cut out (kept once per game) and the rest compressed.
pub fn insert_report(conn: &Connection, r: &NewReport<'_>) -> rusqlite::Result<i64> {
    let cut = r
        .map_base
        .filter(|b| !b.is_empty())
        .and_then(|b| r.html.find(b).map(|at| (b, at)));
    let (rest, base_id, at) = match cut {
        Some((base, at)) => {
            let mut rest = String::with_capacity(r.html.len() - base.len());
            rest.push_str(&r.html[..at]);
            rest.push_str(&r.html[at + base.len()..]);
            let id = map_base_id(conn, r.game_id, base)?;
            (rest, Some(id), i64::try_from(at).ok())
        }
        None => (r.html.to_string(), None, None),
    };
    let packed = deflate(rest.as_bytes());
    conn.prepare_cached(
        "INSERT INTO reports (game_id, turn_id, player_id, side_id, text, html, html_packed,
                              map_base_id, map_base_at, created_at, audit_through)
         VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6, ?7, ?8, ?9, (SELECT max(id) FROM audit_log))",
    )?
    .execute(params![
        r.game_id,
        r.turn_id,
        r.player_id,
        r.side_id,
        r.text,
        packed,
        base_id,
        at,
        r.created_at
    ])?;
    Ok(conn.last_insert_rowid())
}

fn corrupt(col: usize, what: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        col,
        Type::Blob,
        format!("reports: stored HTML {what}; the row was altered outside Adjutant").into(),
    )
}

/// The report's HTML from the four [`REPORT_HTML_COLUMNS`] starting at
/// column `first`: plain `html` as it is, packed HTML inflated with its map
/// layer put back. `None`: the report has no HTML.
pub fn report_html_at(row: &Row<'_>, first: usize) -> rusqlite::Result<Option<String>> {
    if let Some(html) = row.get::<_, Option<String>>(first)? {
        return Ok(Some(html));
    }
    let Some(packed) = row.get::<_, Option<Vec<u8>>>(first + 1)? else {
        return Ok(None);
    };
    let mut rest = String::with_capacity(packed.len() * 4);
    DeflateDecoder::new(packed.as_slice())
        .read_to_string(&mut rest)
        .map_err(|_| corrupt(first + 1, "does not inflate to UTF-8"))?;
    let base: Option<String> = row.get(first + 2)?;
    let at: Option<i64> = row.get(first + 3)?;
    match (base, at) {
        (Some(base), Some(at)) => {
            let at = usize::try_from(at)
                .ok()
                .filter(|&at| rest.is_char_boundary(at))
                .ok_or_else(|| corrupt(first + 3, "has its map layer out of place"))?;
            rest.insert_str(at, &base);
            Ok(Some(rest))
        }
        (None, None) => Ok(Some(rest)),
        _ => Err(corrupt(first + 2, "names a map layer that is missing")),
    }
}

/// One report's HTML by id (see [`report_html_at`]); `None` when the report
/// has none or there is no such report.
pub fn report_html(conn: &Connection, report_id: i64) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        &format!("SELECT {REPORT_HTML_COLUMNS} FROM reports r {REPORT_HTML_JOIN} WHERE r.id = ?1"),
        [report_id],
        |row| report_html_at(row, 0),
    )
    .optional()
    .map(Option::flatten)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn game(store: &Store) -> (i64, i64) {
        let c = store.conn();
        c.execute_batch(
            "INSERT INTO games (name, ruleset, scenario_name, scenario_toml, status, seed, created_at)
             VALUES ('g', 'iron-brigade', 's', '', 'active', zeroblob(32), 0);",
        )
        .unwrap();
        let g = c.last_insert_rowid();
        c.execute(
            "INSERT INTO turns (game_id, number, status, seed_commitment, state_json, state_hash, opened_at)
             VALUES (?1, 1, 'open', ?2, '{}', ?2, 0)",
            params![g, "0".repeat(64)],
        )
        .unwrap();
        (g, c.last_insert_rowid())
    }

    #[test]
    fn packed_html_reads_back_byte_for_byte_with_its_layer_stored_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        let (g, t) = game(&store);
        let base = "<rect fill=\"#f4efe1\"/><polygon points=\"1,2 3,4\"/>\n".repeat(40);
        let mut ids = Vec::new();
        for n in 0..3 {
            let html = format!(
                "<html><p>Turn {n} — é</p><svg width=\"9\">{base}<text>unit {n}</text></svg></html>"
            );
            let id = insert_report(
                store.conn(),
                &NewReport {
                    game_id: g,
                    turn_id: t,
                    player_id: None,
                    side_id: None,
                    text: "text",
                    html: &html,
                    map_base: Some(&base),
                    created_at: 0,
                },
            )
            .unwrap();
            ids.push((id, html));
        }
        for (id, html) in &ids {
            assert_eq!(
                report_html(store.conn(), *id).unwrap().as_deref(),
                Some(html.as_str())
            );
        }
        let (layers, plain): (i64, i64) = store
            .conn()
            .query_row(
                "SELECT (SELECT count(*) FROM map_bases), (SELECT count(*) FROM reports WHERE html IS NOT NULL)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((layers, plain), (1, 0));
        let packed: i64 = store
            .conn()
            .query_row("SELECT max(length(html_packed)) FROM reports", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert!(packed < 200, "{packed} bytes");
    }

    #[test]
    fn html_without_the_layer_and_old_plain_html_read_as_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        let (g, t) = game(&store);
        let id = insert_report(
            store.conn(),
            &NewReport {
                game_id: g,
                turn_id: t,
                player_id: None,
                side_id: None,
                text: "text",
                html: "<p>no map</p>",
                map_base: Some("<svg>elsewhere</svg>"),
                created_at: 0,
            },
        )
        .unwrap();
        assert_eq!(
            report_html(store.conn(), id).unwrap().as_deref(),
            Some("<p>no map</p>")
        );
        store
            .conn()
            .execute(
                "INSERT INTO reports (game_id, turn_id, text, html, created_at) VALUES (?1, ?2, 't', '<p>old</p>', 0)",
                params![g, t],
            )
            .unwrap();
        let old = store.conn().last_insert_rowid();
        assert_eq!(
            report_html(store.conn(), old).unwrap().as_deref(),
            Some("<p>old</p>")
        );
        // Plain and packed at once is refused, and so is a layer without
        // its place.
        assert!(
            store
                .conn()
                .execute(
                    "INSERT INTO reports (game_id, turn_id, text, html, html_packed, created_at) VALUES (?1, ?2, 't', 'x', x'00', 0)",
                    params![g, t],
                )
                .is_err()
        );
        assert!(
            store
                .conn()
                .execute(
                    "INSERT INTO reports (game_id, turn_id, text, html_packed, map_base_id, created_at) VALUES (?1, ?2, 't', x'00', 1, 0)",
                    params![g, t],
                )
                .is_err()
        );
    }

    #[test]
    fn a_damaged_row_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        let (g, t) = game(&store);
        store
            .conn()
            .execute(
                "INSERT INTO reports (game_id, turn_id, text, html_packed, created_at) VALUES (?1, ?2, 't', x'ffffff', 0)",
                params![g, t],
            )
            .unwrap();
        let id = store.conn().last_insert_rowid();
        assert!(report_html(store.conn(), id).is_err());
    }
}
