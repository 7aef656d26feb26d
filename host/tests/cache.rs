//! The compile cache trusts only what it wrote: an entry overwritten on
//! disk, or one written without this user's key, is refused before it is
//! loaded as native code, compiled again and rewritten; a key other users
//! can read turns the cache off. Run through the CLI with its built-in
//! script, as a user would.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `host run --headless --frames 30` with the cache in `dir`: exit code,
/// stderr, and the scene's frame.
fn run(dir: &Path) -> (Option<i32>, String) {
    let scene = dir.join("scene.json");
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(["run", "--headless", "--frames", "30", "--dump-scene"])
        .arg(&scene)
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let dumped = std::fs::read_to_string(&scene).unwrap_or_default();
    assert!(dumped.contains("\"frame\": 30"), "{stderr}");
    (output.status.code(), stderr)
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cwasm"))
        .collect()
}

#[test]
fn a_tampered_entry_is_refused_recompiled_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stderr) = run(dir.path());
    assert_eq!(status, Some(0), "{stderr}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.path().join("cache")), 0o700);
    assert_eq!(mode(&dir.path().join("cache/key")), 0o600);
    let entry = entries(dir.path()).pop().expect("an entry was written");
    let good = std::fs::read(&entry).unwrap();

    // Overwrite part of the compiled code, as an attacker who can write the
    // directory would.
    let mut bad = good.clone();
    let middle = bad.len() / 2;
    bad[middle..middle + 64].fill(0xcc);
    std::fs::write(&entry, &bad).unwrap();
    let (status, stderr) = run(dir.path());
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("ignoring compile-cache entry") && stderr.contains("seal does not match"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("ignoring compile-cache entry").count(), 1);
    // Rewritten: the next run uses it without a word.
    assert_eq!(std::fs::read(&entry).unwrap(), good);
    let (status, stderr) = run(dir.path());
    assert_eq!(status, Some(0), "{stderr}");
    assert!(!stderr.contains("compile-cache"), "{stderr}");

    // An entry with no seal at all (what wasmtime itself would write).
    std::fs::write(&entry, &good[40..]).unwrap();
    let (status, stderr) = run(dir.path());
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stderr.contains("seal does not match"), "{stderr}");
}

#[test]
fn a_key_that_others_can_read_turns_the_cache_off() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run(dir.path()).0, Some(0));
    let key = dir.path().join("cache/key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    for entry in entries(dir.path()) {
        std::fs::remove_file(entry).unwrap();
    }
    let (status, stderr) = run(dir.path());
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("not using the compile cache") && stderr.contains("mode 0600"),
        "{stderr}"
    );
    assert!(entries(dir.path()).is_empty(), "nothing is written");
}
