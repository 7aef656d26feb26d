//! Building a script crate directory into a component with
//! `cargo build --release --target wasm32-wasip2`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// The target scripts are built for.
pub const SCRIPT_TARGET: &str = "wasm32-wasip2";

/// What to do with cargo's progress output while building.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildOutput {
    /// Show it on this process's stderr.
    Inherit,
    /// Keep it, and show it only in the error if the build fails.
    Capture,
}

#[derive(Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    manifest_path: Option<PathBuf>,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    filenames: Vec<PathBuf>,
}

#[derive(Deserialize)]
struct Target {
    kind: Vec<String>,
}

/// Builds the script crate in `dir` for wasm32-wasip2 in release mode and
/// returns the path of the component it produced.
pub fn build_script_crate(dir: &Path, output: BuildOutput) -> Result<PathBuf> {
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        bail!(
            "script crate `{}` has no Cargo.toml (expected a .wasm, .py or .js file, a crate \
             directory, or a directory holding app.py or app.js)",
            dir.display()
        );
    }
    let manifest = manifest
        .canonicalize()
        .with_context(|| format!("failed to resolve `{}`", manifest.display()))?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--release", "--target", SCRIPT_TARGET])
        .arg("--message-format=json-render-diagnostics")
        .arg("--manifest-path")
        .arg(&manifest)
        // Run where `cargo build` would be run by hand, so the crate's own
        // `.cargo/config.toml` applies.
        .current_dir(manifest.parent().expect("a manifest has a directory"))
        .stdout(Stdio::piped())
        .stderr(match output {
            BuildOutput::Inherit => Stdio::inherit(),
            BuildOutput::Capture => Stdio::piped(),
        });
    let mut child = command
        .spawn()
        .context("failed to run `cargo` (is Rust installed and on PATH?)")?;

    // Drain stderr on its own thread so a chatty build cannot block on a full pipe.
    let stderr = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    });
    let mut artifact = None;
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.context("failed to read cargo's output")?;
        let Ok(message) = serde_json::from_str::<Message>(&line) else {
            continue;
        };
        if message.reason != "compiler-artifact"
            || message.manifest_path.as_deref() != Some(manifest.as_path())
            || !message
                .target
                .is_some_and(|t| t.kind.iter().any(|k| k == "cdylib"))
        {
            continue;
        }
        artifact = message
            .filenames
            .into_iter()
            .find(|f| f.extension().is_some_and(|e| e == "wasm"));
    }
    let status = child.wait().context("failed to wait for cargo")?;
    let captured = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    if !status.success() {
        let mut message = format!(
            "failed to build script crate `{}`: cargo {status}",
            dir.display()
        );
        if captured.contains(SCRIPT_TARGET) && captured.contains("target may not be installed") {
            message.push_str(&format!(
                " (the {SCRIPT_TARGET} target is missing: run `rustup target add {SCRIPT_TARGET}`)"
            ));
        }
        if !captured.is_empty() {
            message.push('\n');
            message.push_str(captured.trim_end());
        }
        bail!(message);
    }
    artifact.with_context(|| {
        format!(
            "script crate `{}` built no .wasm (does it set `crate-type = [\"cdylib\"]` under [lib]?)",
            dir.display()
        )
    })
}
