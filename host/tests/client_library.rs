//! The players' client library (`client/`): checked and its declarations
//! written by `tsc` (from `target/test-tools`, where `./test.sh` installs
//! it, or PATH), a TypeScript game's use of it checked against them, then
//! its own tests run under Node's test runner against a real `host serve`
//! of `examples/arena` and `examples/spinning-cube`, built here first.

mod common;

use std::path::PathBuf;
use std::process::Command;

/// PATH with the test tools first.
fn tool_path() -> String {
    let tools = common::workspace().join("target/test-tools/js/node_modules/.bin");
    format!(
        "{}:{}",
        tools.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn run(command: &mut Command, what: &str) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{what} did not start ({e}): ./test.sh installs it"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{what} failed:\n{text}");
    text
}

#[test]
fn the_client_library_passes_its_tests_against_a_real_server() {
    let client = common::workspace().join("client");
    let dist = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("client-dist");
    let _ = std::fs::remove_dir_all(&dist);
    run(
        Command::new("tsc")
            .env("PATH", tool_path())
            .arg("-p")
            .arg(&client)
            .arg("--outDir")
            .arg(&dist),
        "tsc",
    );
    run(
        Command::new("tsc")
            .env("PATH", tool_path())
            .arg("-p")
            .arg(client.join("test")),
        "tsc (a TypeScript game's use of the library)",
    );
    let arena = common::build("arena");
    let cube = common::build("spinning-cube");
    let report = run(
        Command::new("node")
            .args(["--experimental-websocket", "--test", "--test-reporter=spec"])
            .arg(client.join("test/client.test.mjs"))
            .current_dir(&client)
            .env("GAME_HOST_BIN", env!("CARGO_BIN_EXE_host"))
            .env("ARENA", &arena)
            .env("CUBE", &cube)
            .env("GAME_HOST_CACHE_DIR", common::cache_dir()),
        "node --test",
    );
    // The byte counts, for whoever reads the test's output.
    println!("{report}");
    assert!(
        report.contains("ℹ pass 5") && report.contains("ℹ fail 0"),
        "{report}"
    );
}
