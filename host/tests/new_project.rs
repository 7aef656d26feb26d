//! `host new` as an author meets it: a project made in a directory outside
//! this repository, run headless with the installed-style binary from that
//! directory, then edited under `--watch`: one build and one swap per edit,
//! none while nobody edits, and one error for a broken edit. The SDK comes
//! from the binary (written to the data directory), never from this
//! checkout.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::scratch::Scratch;
use common::watching::Watching;

/// `host new`, a headless run, then `--watch`: idle, one edit, idle.
fn new_project_runs_and_swaps_once_per_edit(lang: &str, file: &str, from: &str, to: &str) {
    let scratch = Scratch::new();
    let created = scratch.run(&["new", "my-mod", "--lang", lang]);
    assert!(created.contains("created `my-mod`"), "{created}");
    let project = scratch.path().join("my-mod");
    let source: PathBuf = project.join(file);
    assert!(source.is_file(), "{created}");

    scratch.run_the_template_one_second(|args| {
        scratch.run(args);
    });

    let watching = Watching::start(scratch.host(&["run", "my-mod", "--headless", "--watch"]));
    watching.wait_for("running in real time", 1);
    // Nobody edits: nothing is built.
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(watching.count("changed; building"), 0, "{}", watching.log());

    // One edit: one build, one swap with the state handed over.
    let text = std::fs::read_to_string(&source).unwrap();
    assert!(text.contains(from), "{file} has no `{from}`");
    std::fs::write(&source, text.replace(from, to)).unwrap();
    watching.wait_for("hot-swapped", 1);
    std::thread::sleep(Duration::from_secs(3));
    let log = watching.log();
    assert_eq!(watching.count("changed; building"), 1, "{log}");
    assert_eq!(watching.count("hot-swapped"), 1, "{log}");
    assert!(log.contains("state=\"handed over\""), "{log}");
    assert_eq!(watching.count("ERROR"), 0, "{log}");

    // A broken edit: one build, one error naming the file, the old version
    // running on, and then nothing while nobody edits.
    let edited = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, format!("{edited}\n{}\n", broken(lang))).unwrap();
    watching.wait_for("the old version keeps running", 1);
    std::thread::sleep(Duration::from_secs(4));
    let log = watching.log();
    assert_eq!(watching.count("changed; building"), 2, "{log}");
    assert_eq!(watching.count("ERROR"), 1, "{log}");
    assert!(log.contains(file), "{log}");
}

/// A line that no build of `lang` takes.
fn broken(lang: &str) -> &'static str {
    match lang {
        "rust" => "fn broken( {}",
        "python" => "def broken(:",
        _ => "const broken = ;",
    }
}

#[test]
fn a_new_rust_project_runs_and_swaps_from_outside_the_repository() {
    new_project_runs_and_swaps_once_per_edit(
        "rust",
        "src/lib.rs",
        "self.angle += dt;",
        "self.angle += 2.0 * dt;",
    );
}

#[test]
fn a_new_python_project_runs_and_swaps_from_outside_the_repository() {
    new_project_runs_and_swaps_once_per_edit("python", "app.py", "SPEED = 1.0", "SPEED = 2.0");
}

#[test]
fn a_new_javascript_project_runs_and_swaps_from_outside_the_repository() {
    new_project_runs_and_swaps_once_per_edit(
        "js",
        "app.js",
        "const SPEED = 1.0",
        "const SPEED = 2.0",
    );
}

#[test]
fn a_new_typescript_project_runs_and_swaps_from_outside_the_repository() {
    new_project_runs_and_swaps_once_per_edit(
        "ts",
        "app.ts",
        "const SPEED = 1.0",
        "const SPEED = 2.0",
    );
}

#[test]
fn a_project_is_not_written_over_an_existing_directory() {
    let scratch = Scratch::new();
    std::fs::create_dir(scratch.path().join("taken")).unwrap();
    std::fs::write(scratch.path().join("taken/notes.txt"), "mine").unwrap();
    let output = scratch.host(&["new", "taken"]).output().unwrap();
    assert!(!output.status.success());
    let stderr = common::stderr_of(&output);
    assert_eq!(
        stderr.trim(),
        "error: `taken` already exists and is not empty"
    );
    assert_eq!(
        std::fs::read_to_string(scratch.path().join("taken/notes.txt")).unwrap(),
        "mine"
    );
}
