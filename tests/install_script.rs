//! `scripts/install-test-deps.sh` adds bookworm-backports from the mirror
//! the machine already uses (issue #17, "Install"): `scripts/debian-mirror.sh`
//! reads it from the configured apt sources, in both of apt's formats.

use std::path::Path;
use std::process::Command;

fn mirror(apt: &Path, suite: &str) -> String {
    let out = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/debian-mirror.sh"))
        .arg(suite)
        .arg(apt)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn the_mirror_comes_from_the_configured_sources_in_either_format() {
    let apt = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(apt.path().join("sources.list.d")).unwrap();
    std::fs::write(
        apt.path().join("sources.list.d/debian.sources"),
        "Types: deb\nURIs: http://security.example/debian-security\nSuites: bookworm-security\n\
         Components: main\n\nTypes: deb\nURIs: http://proxy.example:3142/debian http://other\n\
         Suites: bookworm bookworm-updates\nComponents: main\n",
    )
    .unwrap();
    assert_eq!(
        mirror(apt.path(), "bookworm"),
        "http://proxy.example:3142/debian"
    );
    assert_eq!(
        mirror(apt.path(), "bookworm-security"),
        "http://security.example/debian-security"
    );
    assert_eq!(mirror(apt.path(), "trixie"), "");

    let old = tempfile::tempdir().unwrap();
    std::fs::write(
        old.path().join("sources.list"),
        "# a comment\ndeb-src http://src.example/debian bookworm main\n\
         deb [arch=amd64 signed-by=/usr/share/keyrings/x.gpg] http://local.example/debian bookworm main\n",
    )
    .unwrap();
    assert_eq!(
        mirror(old.path(), "bookworm"),
        "http://local.example/debian"
    );
    // The install script names no mirror host of its own.
    let script = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install-test-deps.sh"),
    )
    .unwrap();
    assert!(
        !script.contains("deb.debian.org"),
        "a fixed mirror host is back"
    );
}
