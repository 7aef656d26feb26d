//! The players' client library (`client/`): checked and its declarations
//! written by `tsc` (from `target/test-tools`, where `./test.sh` installs
//! it, or PATH), a TypeScript game's use of it checked against them, then
//! its own tests run under Node's test runner against a real `host serve`
//! of `examples/arena` and `examples/spinning-cube`, built here first.

mod common;

use std::path::PathBuf;
use std::process::Command;

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
            .env("PATH", common::tool_path())
            .arg("-p")
            .arg(&client)
            .arg("--outDir")
            .arg(&dist),
        "tsc",
    );
    run(
        Command::new("tsc")
            .env("PATH", common::tool_path())
            .arg("-p")
            .arg(client.join("test")),
        "tsc (a TypeScript game's use of the library)",
    );
    let arena = common::build("arena");
    let cube = common::build("spinning-cube");
    let mut node = Command::new("node");
    node.args(["--experimental-websocket", "--test", "--test-reporter=spec"])
        .arg(client.join("test/client.test.mjs"))
        .current_dir(&client)
        .env("GAME_HOST_BIN", env!("CARGO_BIN_EXE_host"))
        .env("ARENA", &arena)
        .env("CUBE", &cube)
        .env("GAME_HOST_CACHE_DIR", common::cache_dir());
    // A host that serves TLS: a certificate a CA of the test's own signed,
    // which Node's TLS (and so its WebSocket) trusts for this run alone.
    let certificates = tempfile::tempdir().unwrap();
    if cfg!(feature = "tls") {
        let ca = common::tls::TestCa::new(certificates.path());
        let server = ca.issue(certificates.path(), "server");
        node.env("TLS_CERT", &server.cert)
            .env("TLS_KEY", &server.key)
            .env("NODE_EXTRA_CA_CERTS", &ca.ca_file);
    }
    let report = run(&mut node, "node --test");
    // The byte counts, for whoever reads the test's output.
    println!("{report}");
    let (passed, skipped) = if cfg!(feature = "tls") {
        (7, 0)
    } else {
        (6, 1)
    };
    assert!(
        report.contains(&format!("ℹ pass {passed}"))
            && report.contains(&format!("ℹ skipped {skipped}"))
            && report.contains("ℹ fail 0"),
        "{report}"
    );
}
