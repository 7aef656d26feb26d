//! The server's image (`Dockerfile`). This machine reaches no registry, so
//! the image itself is not built here: its stages start from the Rust and
//! distroless images. What is checked instead, from the file itself:
//! - the build's `host` links no renderer: the dependency tree of the
//!   features it builds with has no wgpu, winit or Vulkan loader;
//! - the script is built at image build time, and the last stage runs no
//!   cargo;
//! - the last stage's command, run with the layout the image gives (the
//!   component at `/game/game.wasm`, here under a scratch directory), serves
//!   with a control token, and without one refuses to start in one line
//!   (run by the tests' `host`, which has the renderer: the image's build
//!   without it is what CI's clippy checks, and `host run`'s refusals are
//!   `drawing_absent`'s).

mod common;

use std::process::Command;

use common::serve::{Serve, request};

/// The Dockerfile's lines, continuations joined.
fn dockerfile() -> Vec<String> {
    let text = std::fs::read_to_string(common::workspace().join("Dockerfile")).unwrap();
    let mut lines = Vec::new();
    let mut line = String::new();
    for part in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        match part.strip_suffix('\\') {
            Some(start) => line.push_str(start),
            None => {
                line.push_str(part);
                if !line.trim().is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
                line.clear();
            }
        }
    }
    lines
}

/// The last stage's lines (after its `FROM`).
fn last_stage(lines: &[String]) -> &[String] {
    let from = lines.iter().rposition(|l| l.starts_with("FROM ")).unwrap();
    &lines[from..]
}

/// An instruction's JSON array (`ENTRYPOINT`, `CMD`).
fn exec_form(lines: &[String], instruction: &str) -> Vec<String> {
    let line = lines
        .iter()
        .find(|l| l.starts_with(&format!("{instruction} ")))
        .unwrap_or_else(|| panic!("no {instruction}"));
    serde_json::from_str(&line[instruction.len() + 1..]).unwrap()
}

#[test]
fn the_images_host_is_built_without_the_renderer() {
    let lines = dockerfile();
    let build = lines
        .iter()
        .find(|l| l.contains("cargo build"))
        .expect("the build stage builds host");
    assert!(build.contains("--locked") && build.contains("--no-default-features"));
    let features = build
        .split("--features ")
        .nth(1)
        .expect("the build names its features")
        .split_whitespace()
        .next()
        .unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["tree", "--locked", "-p", "game-host-cli"])
        .args(["--no-default-features", "--features", features])
        .args(["-e", "normal", "--prefix", "none", "--format", "{p}"])
        .current_dir(common::workspace())
        .output()
        .unwrap();
    let tree = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let crates: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(crates.contains(&"game-host-server") && crates.contains(&"game-host-agones"));
    for renderer in ["game-host-render", "wgpu", "winit", "ash", "x11-dl"] {
        assert!(
            !crates.contains(&renderer),
            "the image's host links {renderer}"
        );
    }
    // The script is a component before the last stage; that stage copies
    // the binary and the component, and builds nothing.
    assert!(lines.iter().any(|l| l.contains("host build")));
    for line in last_stage(&lines) {
        assert!(
            !line.contains("cargo") && !line.starts_with("RUN "),
            "the last stage runs `{line}`"
        );
    }
}

#[test]
fn the_images_command_serves_the_games_component_with_a_token_and_refuses_without() {
    let lines = dockerfile();
    let stage = last_stage(&lines);
    let entrypoint = exec_form(stage, "ENTRYPOINT");
    assert_eq!(entrypoint, ["/usr/local/bin/host"]);
    let command = exec_form(stage, "CMD");
    // The layout: the game's component where the image puts it.
    let root = tempfile::tempdir().unwrap();
    let game = root.path().join("game");
    std::fs::create_dir(&game).unwrap();
    let built = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(["build", "examples/arena", "--cache-dir"])
        .arg(common::cache_dir())
        .arg("--output")
        .arg(game.join("game.wasm"))
        .current_dir(common::workspace())
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let at = |arg: &String| match arg.strip_prefix("/game/") {
        Some(file) => game.join(file).to_str().unwrap().to_owned(),
        None => arg.clone(),
    };
    let args: Vec<String> = command.iter().map(at).collect();
    assert_eq!(args[0], "serve");
    let listen = args.iter().position(|a| a == "--listen").unwrap();
    assert!(args[listen + 1].starts_with("0.0.0.0:"));

    // As the image runs it, with no token: refused in one line (on any
    // free port of every address, so a busy 9464 cannot answer instead).
    let mut anywhere = args.clone();
    anywhere[listen + 1] = "0.0.0.0:0".into();
    let refused = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(&anywhere)
        .arg("--cache-dir")
        .arg(common::cache_dir())
        .env_remove("GAME_HOST_CONTROL_TOKEN")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert!(!refused.status.success());
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("without a token"), "{stderr}");

    // With a token, on a free port of this machine's loopback.
    let token = "the-image-test-token-of-the-operator";
    let mut served: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    served.drain(listen - 1..=listen);
    let serve = Serve::start_with(&served, &[("GAME_HOST_CONTROL_TOKEN", token)]);
    let (status, body) = request("GET", &serve.url("/readyz"), None);
    assert_eq!(status, 200, "{body}");
    let (status, body) = request("GET", &serve.url("/worlds"), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::serve::json(&body).as_array().unwrap().len(), 1);
    let (status, _) = request("POST", &serve.url("/worlds/1/players"), None);
    assert_eq!(status, 401, "the image's server needs its token");
}
