//! Maildir inbox and outbox on real directories.

use adjutant::mail::maildir::{Maildir, MaildirError};
use std::fs;

#[test]
fn create_makes_tmp_new_cur_and_open_requires_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("inbox");
    assert!(matches!(
        Maildir::open(&root),
        Err(MaildirError::NotMaildir { .. })
    ));
    Maildir::create(&root).unwrap();
    for d in ["tmp", "new", "cur"] {
        assert!(root.join(d).is_dir());
    }
    Maildir::open(&root).unwrap();
    // Creating again is harmless.
    Maildir::create(&root).unwrap();
}

#[test]
fn deliver_then_list_read_and_mark_processed() {
    let dir = tempfile::tempdir().unwrap();
    let md = Maildir::create(dir.path()).unwrap();
    let a = md.deliver(b"Subject: one\r\n\r\nfirst\r\n").unwrap();
    let b = md.deliver(b"Subject: two\r\n\r\nsecond\r\n").unwrap();
    assert_ne!(a, b);
    assert!(
        fs::read_dir(dir.path().join("tmp"))
            .unwrap()
            .next()
            .is_none()
    );

    let new = md.list_new().unwrap();
    assert_eq!(new.len(), 2);
    let bodies: Vec<Vec<u8>> = new.iter().map(|e| md.read(e).unwrap()).collect();
    assert!(bodies.contains(&b"Subject: one\r\n\r\nfirst\r\n".to_vec()));

    let moved = md.mark_processed(&new[0]).unwrap();
    assert!(moved.to_string_lossy().ends_with(":2,S"));
    assert_eq!(fs::read(&moved).unwrap(), bodies[0]);
    assert_eq!(md.list_new().unwrap().len(), 1);
    assert_eq!(md.list_cur().unwrap().len(), 1);

    // Marking again (crash after the rename, before we noticed) is success.
    assert_eq!(md.mark_processed(&new[0]).unwrap(), moved);
}

#[test]
fn a_file_left_in_tmp_by_a_crash_is_never_listed() {
    let dir = tempfile::tempdir().unwrap();
    let md = Maildir::create(dir.path()).unwrap();
    fs::write(
        dir.path().join("tmp/1700000000.M1P1Q1.host"),
        b"half a mess",
    )
    .unwrap();
    assert!(md.list_new().unwrap().is_empty());
    md.deliver(b"whole\r\n").unwrap();
    let new = md.list_new().unwrap();
    assert_eq!(new.len(), 1);
    assert_eq!(md.read(&new[0]).unwrap(), b"whole\r\n");
}

#[test]
fn dot_files_and_directories_in_new_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let md = Maildir::create(dir.path()).unwrap();
    fs::write(dir.path().join("new/.hidden"), b"x").unwrap();
    fs::create_dir(dir.path().join("new/subdir")).unwrap();
    fs::write(dir.path().join("new/123.abc.host"), b"mail").unwrap();
    let ids: Vec<String> = md.list_new().unwrap().into_iter().map(|e| e.id).collect();
    assert_eq!(ids, vec!["123.abc.host"]);
}

#[test]
fn a_message_taken_by_another_program_is_reported_not_panicked() {
    let dir = tempfile::tempdir().unwrap();
    let md = Maildir::create(dir.path()).unwrap();
    md.deliver(b"x").unwrap();
    let e = md.list_new().unwrap().remove(0);
    fs::remove_file(&e.path).unwrap();
    assert!(matches!(md.read(&e), Err(MaildirError::Read { .. })));
    assert!(matches!(
        md.mark_processed(&e),
        Err(MaildirError::Missing { .. })
    ));
}

#[test]
fn many_deliveries_get_unique_names() {
    let dir = tempfile::tempdir().unwrap();
    let md = Maildir::create(dir.path()).unwrap();
    let mut names: Vec<String> = (0..200).map(|_| md.deliver(b"x").unwrap()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 200);
    assert_eq!(md.list_new().unwrap().len(), 200);
}
