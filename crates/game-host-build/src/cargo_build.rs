//! Building a script crate directory into a component with
//! `cargo build --release --target wasm32-wasip2`.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::process;
use crate::project::sdk;
use crate::toolchain::{SCRIPT_TARGET, rustc_prints, script_cargo};
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
        // A toolchain too old for the crate is said first: adding the
        // target to it would not do.
        let why = toolchain_older_than_crate(&manifest).unwrap_or(missing);
        bail!("cannot build script crate `{}`: {why}", dir.display());
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
        if let Some(why) = toolchain_older_than_crate(&manifest).or_else(missing_target) {
            bail!("cannot build script crate `{}`: {why}", dir.display());
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

/// If the crate of `manifest` asks for a newer Rust (its `rust-version`)
/// than the toolchain the host builds with, says so in one line with how
/// to build with another: the host never takes a crate's own
/// `rust-toolchain.toml` (the `toolchain` module says why), so a crate of
/// a checkout whose toolchain file pins a newer Rust than rustup's default
/// fails to build outside that checkout.
pub(crate) fn toolchain_older_than_crate(manifest: &Path) -> Option<String> {
    #[derive(Deserialize)]
    struct Metadata {
        packages: Vec<Package>,
    }
    #[derive(Deserialize)]
    struct Package {
        name: String,
        manifest_path: PathBuf,
        rust_version: Option<String>,
    }
    let output = crate::toolchain::cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .arg("--manifest-path")
        .arg(manifest)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())?;
    let metadata: Metadata = serde_json::from_slice(&output.stdout).ok()?;
    let package = metadata
        .packages
        .into_iter()
        .find(|p| p.manifest_path == manifest)?;
    let needed = package.rust_version?;
    let version = rustc_prints(&["--version"])?;
    // `rustc 1.95.0 (59807616e 2026-04-14)`, `rustc 1.99.0-nightly (...)`.
    let have = version.split_whitespace().nth(1)?;
    if version_numbers(have)? >= version_numbers(&needed)? {
        return None;
    }
    let toolchain = std::env::var("RUSTUP_TOOLCHAIN")
        .ok()
        .or_else(|| crate::toolchain::toolchain().map(str::to_owned))
        .map_or_else(String::new, |name| format!(" (toolchain `{name}`)"));
    Some(format!(
        "`{}` needs Rust {needed}, and this host builds with rustc {have}{toolchain}: start the \
         host with RUSTUP_TOOLCHAIN={needed} (after `rustup toolchain install {needed} --target \
         {SCRIPT_TARGET}`), or make it rustup's default (`rustup default {needed}`)",
        package.name
    ))
}

/// `1.99`, `1.95.0` or `1.99.0-nightly` as numbers to compare (a missing
/// patch is 0).
fn version_numbers(version: &str) -> Option<(u64, u64, u64)> {
    let release = version.split('-').next()?;
    let mut parts = release.split('.').map(|part| part.parse::<u64>());
    let major = parts.next()?.ok()?;
    let minor = parts.next().unwrap_or(Ok(0)).ok()?;
    let patch = parts.next().unwrap_or(Ok(0)).ok()?;
    Some((major, minor, patch))
}

/// If the host's Rust toolchain lacks the script target, says so with the
/// command that adds it.
pub(crate) fn missing_target() -> Option<String> {
    let sysroot = PathBuf::from(rustc_prints(&["--print", "sysroot"])?);
    if sysroot.join("lib/rustlib").join(SCRIPT_TARGET).is_dir() {
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

    #[test]
    fn versions_compare_by_their_numbers() {
        assert_eq!(version_numbers("1.99"), Some((1, 99, 0)));
        assert_eq!(version_numbers("1.95.0"), Some((1, 95, 0)));
        assert_eq!(version_numbers("1.100.0-nightly"), Some((1, 100, 0)));
        assert!(version_numbers("1.100.0") > version_numbers("1.99"));
        assert_eq!(version_numbers("one.two"), None);
    }

    #[test]
    fn a_crate_asking_for_a_newer_rust_is_refused_in_one_line_saying_how_to_build_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"from-the-future\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
             rust-version = \"1.999\"\n[lib]\ncrate-type = [\"cdylib\"]\n[workspace]\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
        let error = build_script_crate(dir.path(), BuildOutput::Capture)
            .unwrap_err()
            .to_string();
        let first = error.lines().next().unwrap();
        assert!(
            first
                .contains("`from-the-future` needs Rust 1.999, and this host builds with rustc 1."),
            "{error}"
        );
        assert!(first.contains("RUSTUP_TOOLCHAIN=1.999"), "{error}");
    }
}
