//! Building a script crate directory into a component with
//! `cargo build --release --target wasm32-wasip2`.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::process;
use crate::project::sdk;
use crate::toolchain::{SCRIPT_TARGET, rust_tool, script_cargo};
use crate::what_runs::runs_at_build;
use game_host::files::{MAX_TEXT_FILE, read_capped};

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
    build_crate(dir, output, false)
}

/// Builds the script crate in `dir` for a debugger: cargo's dev profile
/// (debug info, no optimisation), and returns the component's path.
pub fn build_script_crate_for_debugger(dir: &Path, output: BuildOutput) -> Result<PathBuf> {
    build_crate(dir, output, true)
}

fn build_crate(dir: &Path, output: BuildOutput, debug: bool) -> Result<PathBuf> {
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        bail!(
            "script crate `{}` has no Cargo.toml (expected a .wasm, .py, .js or .ts file, a \
             crate directory, or a directory holding app.py, app.js or app.ts)",
            dir.display()
        );
    }
    let manifest = manifest
        .canonicalize()
        .with_context(|| format!("failed to resolve `{}`", manifest.display()))?;
    reinstall_sdk_if_used(&manifest);
    // Shown builds check the target first, so its absence is one line, not
    // a page of "can't find crate for `core`".
    if output == BuildOutput::Inherit
        && let Some(missing) = missing_target()
    {
        bail!("cannot build script crate `{}`: {missing}", dir.display());
    }
    if output == BuildOutput::Inherit {
        say_what_runs(dir, &manifest);
    }
    let mut command = script_cargo("build", dir);
    if !debug {
        command.arg("--release");
    }
    command
        .args(["--target", SCRIPT_TARGET])
        .arg("--message-format=json-render-diagnostics")
        .arg("--manifest-path")
        .arg(&manifest);
    let mut artifact = None;
    let (status, captured) = process::run(&mut command, output == BuildOutput::Capture, |line| {
        let Ok(message) = serde_json::from_str::<Message>(line) else {
            return;
        };
        if message.reason == "compiler-artifact"
            && message.manifest_path.as_deref() == Some(manifest.as_path())
            && message
                .target
                .is_some_and(|t| t.kind.iter().any(|k| k == "cdylib"))
        {
            artifact = message
                .filenames
                .into_iter()
                .find(|f| f.extension().is_some_and(|e| e == "wasm"));
        }
    })
    .map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!(
            "Rust scripts are built with cargo, which is not installed: see https://rustup.rs"
        ),
        _ => anyhow::Error::from(error).context("failed to run `cargo`"),
    })?;
    if !status.success() {
        if let Some(missing) = missing_target() {
            bail!("cannot build script crate `{}`: {missing}", dir.display());
        }
        let mut message = format!(
            "failed to build script crate `{}`: cargo {status}",
            dir.display()
        );
        // cargo's diagnostics as cargo rendered them, without its progress.
        let diagnostics = diagnostics(&captured);
        if !diagnostics.is_empty() {
            message.push('\n');
            message.push_str(&diagnostics);
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

/// A crate made by `host new` depends on the SDK in this host's data
/// directory: write it again if it is missing or damaged.
pub(crate) fn reinstall_sdk_if_used(manifest: &Path) {
    let Ok(sdk) = sdk::sdk_dir() else { return };
    let uses_sdk = read_capped(manifest, MAX_TEXT_FILE)
        .is_ok_and(|text| String::from_utf8_lossy(&text).contains(&*sdk.to_string_lossy()));
    if uses_sdk && let Err(error) = sdk::install() {
        tracing::warn!("{error:#}");
    }
}

/// cargo's stderr without its progress lines (`Compiling`, `Updating`, ...),
/// leaving the diagnostics as cargo printed them.
fn diagnostics(stderr: &str) -> String {
    const PROGRESS: [&str; 9] = [
        "Compiling",
        "Checking",
        "Finished",
        "Updating",
        "Locking",
        "Downloading",
        "Downloaded",
        "Blocking",
        "Adding",
    ];
    stderr
        .lines()
        .filter(|line| {
            let word = line.trim_start().split(' ').next().unwrap_or("");
            !(line.starts_with("  ") && PROGRESS.contains(&word))
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim_matches('\n')
        .to_owned()
}

/// Names, in one line, the build scripts and proc macros building the
/// crate of `manifest` (in `dir`) runs, before it builds; a failure to
/// tell is left to the build to report.
pub(crate) fn say_what_runs(dir: &Path, manifest: &Path) {
    let sdk = sdk::sdk_dir().ok().map(|dir| dir.join("script/Cargo.toml"));
    match runs_at_build(manifest, sdk.as_deref()) {
        Ok(runs) => tracing::info!(target: "host", "{}", runs.line(dir)),
        Err(error) => tracing::debug!(target: "host", "{error:#}"),
    }
}

/// If the host's Rust toolchain lacks the script target, says so with the
/// command that adds it.
pub(crate) fn missing_target() -> Option<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = rust_tool(rustc)
        .args(["--print", "sysroot"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let sysroot = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    if !output.status.success() || sysroot.join("lib/rustlib").join(SCRIPT_TARGET).is_dir() {
        return None;
    }
    let toolchain = sysroot.file_name()?.to_string_lossy().into_owned();
    Some(format!(
        "the Rust toolchain `{toolchain}` has no {SCRIPT_TARGET} target: run `rustup target add \
         {SCRIPT_TARGET} --toolchain {toolchain}`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_keep_their_shape_without_progress() {
        let stderr = [
            "   Compiling my-mod v0.1.0 (/tmp/my-mod)",
            "error: expected one of `!` or `::`, found `}`",
            " --> src/lib.rs:3:1",
            "  |",
            "2 | fn a() { brok",
            "  |               - expected one of `!` or `::`",
            "",
            "error: could not compile `my-mod` (lib) due to 1 previous error",
        ];
        assert_eq!(diagnostics(&stderr.join("\n")), stderr[1..].join("\n"));
    }
}
