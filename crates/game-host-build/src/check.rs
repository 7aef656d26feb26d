//! [`check`]: a script's types checked without running it (`host check`),
//! by the checker its language has: `cargo check` for a crate, pyright for
//! Python, TypeScript's `tsc` for JavaScript and TypeScript, the last two against the
//! editor types, which are written or refreshed first. The checker's own
//! diagnostics go to the terminal as it prints them.
//!
//! Nothing of a downloaded mod's choosing runs but what its language's
//! build runs: cargo runs as `toolchain` says (the crate's cargo
//! configuration and toolchain file do not apply; its build scripts and
//! proc macros, named first, do run, as `cargo check` runs them); pyright
//! and `tsc` only read the project (neither has plugins that run at the
//! command line).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::cargo_build::{missing_target, reinstall_sdk_if_used, say_what_runs};
use crate::componentize::Language;
use crate::editor_types::{self, PYRIGHT, Refreshed, TYPESCRIPT, ensure_config};
use crate::source::ScriptSource;
use crate::toolchain::{SCRIPT_TARGET, script_cargo};

/// What [`check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// No errors, as `checker` says.
    Clean { checker: &'static str },
    /// `checker` reported errors (printed above).
    Errors { checker: &'static str },
    /// What the check needs is missing: one line naming it and how to
    /// install it.
    Missing(String),
}

/// Checks `source`'s types with its language's checker.
pub fn check(source: &ScriptSource) -> Result<Checked> {
    match source {
        ScriptSource::File(file) if file.extension().is_some_and(|e| e == "wasm") => bail!(
            "`{}` is a built component: `host check` takes a script's sources (a crate \
             directory, or a Python, JavaScript or TypeScript script)",
            file.display()
        ),
        ScriptSource::File(file) => bail!(
            "`{}` is not a script: `host check` takes a crate directory, or a Python, \
             JavaScript or TypeScript script (a `.py`, `.js` or `.ts` file, or a directory \
             holding app.py, app.js or app.ts)",
            file.display()
        ),
        ScriptSource::Crate(dir) => check_crate(dir),
        ScriptSource::Foreign(language, entry) => check_script(*language, entry),
    }
}

fn check_crate(dir: &Path) -> Result<Checked> {
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        bail!(
            "`{}` has no Cargo.toml, app.py, app.js or app.ts: `host check` takes a script \
             crate directory, or a Python, JavaScript or TypeScript script",
            dir.display()
        );
    }
    let manifest = manifest
        .canonicalize()
        .with_context(|| format!("failed to resolve `{}`", manifest.display()))?;
    reinstall_sdk_if_used(&manifest);
    if let Some(missing) = missing_target() {
        return Ok(Checked::Missing(missing));
    }
    say_what_runs(dir, &manifest);
    // From a neutral folder on the host's toolchain (`toolchain`): the
    // crate's `.cargo/config.toml` and `rust-toolchain.toml` do not apply.
    let mut command = script_cargo("check", dir);
    command
        .args(["--target", SCRIPT_TARGET, "--manifest-path"])
        .arg(&manifest);
    run_checker(&mut command, "cargo check", || {
        "cargo is not installed: see https://rustup.rs".to_owned()
    })
}

fn check_script(language: Language, entry: &Path) -> Result<Checked> {
    if let Refreshed::ToolMissing(missing) = editor_types::refresh(language, entry, true)? {
        return Ok(Checked::Missing(missing));
    }
    let dir = editor_types::project_dir(entry);
    let config = ensure_config(language, dir)?;
    match language {
        Language::Python => {
            // pyright finds `pyrightconfig.json` (or pyproject's table) itself.
            let mut command = crate::process::tool(PYRIGHT.program);
            command.current_dir(dir);
            run_checker(&mut command, PYRIGHT.program, || PYRIGHT.missing())
        }
        Language::JavaScript | Language::TypeScript => {
            // From where `host check` runs, so the paths tsc names resolve
            // from there.
            let mut command = crate::process::tool(TYPESCRIPT.program);
            if let Some(config) = config {
                command.arg("-p").arg(dir.join(config));
            }
            run_checker(&mut command, TYPESCRIPT.program, || TYPESCRIPT.missing())
        }
    }
}

/// Runs a checker with the terminal as its output.
fn run_checker(
    command: &mut Command,
    checker: &'static str,
    missing: impl FnOnce() -> String,
) -> Result<Checked> {
    let status = match command.status() {
        Ok(status) => status,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Checked::Missing(missing()));
        }
        Err(error) => return Err(error).with_context(|| format!("failed to run {checker}")),
    };
    Ok(match status.code() {
        Some(0) => Checked::Clean { checker },
        // The shell's "cannot execute" and "not found": the checker's own
        // interpreter (`node` for pyright and tsc) is missing.
        Some(126 | 127) => Checked::Missing(format!(
            "{checker} could not start (exit {status}): is Node.js installed?"
        )),
        _ => Checked::Errors { checker },
    })
}
