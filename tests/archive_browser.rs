//! The exported archive in a real browser (issue #6): headless Chromium
//! from Debian's packages loads the index, one turn page, one side page and
//! the page of a turn attempt the umpire set aside from `file://`,
//! takes screenshots, and the test checks that the browser logged no
//! console message (our pages have no script, so any console line is an
//! error: an exception, a refused resource) and that the screenshots are
//! PNGs with a drawn page in them, not a blank one.
//!
//! Needs `chromium` (`scripts/install-test-deps.sh`). Ignored by a plain
//! `cargo test`; `scripts/test` runs it and sets
//! `ADJUTANT_REQUIRE_MAIL_SERVERS=1`, which turns a missing browser into a
//! failure rather than a skip, as for the mail-server tests.
//!
//! Screenshots are kept under the target directory
//! (`CARGO_TARGET_TMPDIR/archive-browser/`) for a person to look at.

mod common;
use common::{GameDir, adjutant};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn find_chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .flat_map(|d| [d.join("chromium"), d.join("chromium-browser")])
        .find(|p| p.is_file())
}

/// Chromium, or `None` (skip) — a failure when the run requires it.
fn chromium_or_skip() -> Option<PathBuf> {
    match find_chromium() {
        Some(p) => Some(p),
        None => {
            if std::env::var("ADJUTANT_REQUIRE_MAIL_SERVERS").as_deref() == Ok("1") {
                panic!("chromium required but not found (run scripts/install-test-deps.sh)");
            }
            eprintln!("skipping: chromium not found (run scripts/install-test-deps.sh)");
            None
        }
    }
}

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 1600;

/// Loads `url` in a fresh headless Chromium, writes a screenshot to `png`,
/// and returns what the browser logged on stderr.
fn screenshot(chromium: &Path, url: &str, png: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read stderr on a thread so a chatty browser never blocks on a full
    // pipe while we wait for it.
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let log = reader.join().unwrap();
            assert!(
                status.success(),
                "chromium failed on {url}: {status}\n{log}"
            );
            return log;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish {url} within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Console messages and uncaught exceptions in a Chromium log.
fn console_errors(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .collect()
}

/// Checks the PNG is the window's size and has a drawn page in it: many
/// colours, and a good share of pixels that are not the background.
fn assert_not_blank(png: &Path) {
    let bytes = std::fs::read(png).unwrap();
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is not a PNG",
        png.display()
    );
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&bytes).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), (WIDTH, HEIGHT));
    let pixels = pixmap.pixels();
    let background = pixels[pixels.len() / 2 + 7].demultiply();
    let mut colours = std::collections::BTreeSet::new();
    let mut drawn = 0usize;
    for p in pixels {
        let c = p.demultiply();
        colours.insert((c.red(), c.green(), c.blue()));
        if (c.red(), c.green(), c.blue())
            != (background.red(), background.green(), background.blue())
        {
            drawn += 1;
        }
    }
    assert!(
        colours.len() >= 16,
        "{}: only {} colours",
        png.display(),
        colours.len()
    );
    assert!(
        drawn * 50 > pixels.len(),
        "{}: under 2% of the page is drawn",
        png.display()
    );
}

#[test]
#[ignore = "needs chromium: run scripts/test"]
fn the_exported_archive_renders_in_chromium_without_console_errors() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("archive-browser");
    std::fs::create_dir_all(&shots).unwrap();

    // The check itself works: a page with an exception is caught.
    let control = tempfile::tempdir().unwrap();
    let bad = control.path().join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><body><p>control</p><script>noSuchFunction();</script></body></html>",
    )
    .unwrap();
    let log = screenshot(
        &chromium,
        &format!("file://{}", bad.display()),
        &shots.join("control.png"),
    );
    assert!(
        !console_errors(&log).is_empty(),
        "the console check did not see a deliberate error:\n{log}"
    );

    // An umpired game whose turn 1 was adjudicated twice (REDO), so the
    // site has a set-aside attempt's page to load too.
    let g = GameDir::training("mill");
    adjutant(g.dir.path())
        .args(["game", "umpire", "mill", "--address", "umpire@example.test"])
        .assert()
        .success();
    let umpire = |command: &str| {
        adjutant(g.dir.path())
            .args(["umpire", "mill", "--as", "alice", command])
            .assert()
            .success();
    };
    for n in 1..=3 {
        adjutant(g.dir.path())
            .args(["game", "process", "mill"])
            .assert()
            .success();
        if n == 1 {
            umpire("REDO");
        }
        umpire("RELEASE");
    }
    let site = g.path("site");
    adjutant(g.dir.path())
        .args(["archive", "export", "mill", "--out", "site"])
        .assert()
        .success();

    for (page, shot) in [
        ("index.html", "index.png"),
        ("turn-003.html", "turn-003.png"),
        ("turn-003-side-0.html", "turn-003-side-0.png"),
        ("turn-001-attempt-1.html", "turn-001-attempt-1.png"),
    ] {
        let png = shots.join(shot);
        let _ = std::fs::remove_file(&png);
        let url = format!("file://{}", site.join(page).display());
        let log = screenshot(&chromium, &url, &png);
        let errors = console_errors(&log);
        assert!(
            errors.is_empty(),
            "{page}: console errors:\n{}",
            errors.join("\n")
        );
        assert_not_blank(&png);
    }
}
