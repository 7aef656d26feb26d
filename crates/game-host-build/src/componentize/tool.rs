//! Running componentize-py or componentize-js on a snapshot of a script,
//! and what a failed run says: the script's own error (a Python
//! `SyntaxError` or traceback with the script's paths, a JavaScript syntax
//! error from `node --check` with file and line), not the tool's backtrace.

use std::path::Path;
use std::process::Stdio;

use anyhow::{Context, Result, bail};

use super::language::Language;
use crate::process::run_captured;
use game_host::progress::Progress;

/// Runs the tool in `work` on `copy` (the snapshot of `entry`), against
/// the WIT in `work/wit`, and returns the component it wrote; `label` is
/// its progress line. The tool's output is kept: on success it goes to
/// the log at debug level, on failure into the error, cut to what names the
/// script's own mistake (see [`script_error`]).
pub(super) fn run_tool(
    language: Language,
    copy: &Path,
    entry: &Path,
    name: &str,
    label: String,
    world: &str,
    work: &Path,
) -> Result<Vec<u8>> {
    let wit = work.join("wit");
    if language.runs_as() == Language::JavaScript {
        // componentize-js names no line for a syntax error: let node,
        // which it runs on, check the module first.
        check_javascript(copy, entry, work)?;
    }
    let out = work.join(format!("{name}.wasm"));
    let mut command = crate::process::tool(language.tool());
    match language.runs_as() {
        Language::Python => {
            let dir = copy.parent().expect("a file has a directory");
            let module = copy.file_stem().expect("a file has a name");
            command
                .arg("-d")
                .arg(&wit)
                .args(["-w", world, "componentize"])
                .arg(module)
                .arg("-p")
                .arg(dir)
                .arg("-o")
                .arg(&out)
                // Keep bytecode caches out of the script's directory.
                .env("PYTHONDONTWRITEBYTECODE", "1");
        }
        Language::JavaScript | Language::TypeScript => {
            // Scripts get no network: leave out the WASI HTTP imports (and
            // the fetch-event export) a default build carries. stdio stays,
            // so a thrown error's message reaches the log.
            command
                .arg(copy)
                .arg("--wit")
                .arg(&wit)
                .args(["-n", world, "--disable", "http", "fetch-event", "-o"])
                .arg(&out);
        }
    }
    // The tool's own backtrace is about the tool, not the script.
    command
        .current_dir(work)
        .stdin(Stdio::null())
        .env("RUST_BACKTRACE", "0")
        .env("RUST_LIB_BACKTRACE", "0");
    let progress = Progress::start(label);
    let (status, text) =
        run_captured(&mut command).with_context(|| format!("failed to run {}", language.tool()))?;
    if !status.success() {
        tracing::debug!(
            script = name,
            "{} said:\n{}",
            language.tool(),
            text.trim_end()
        );
        let root = entry.parent().unwrap_or(Path::new("."));
        bail!(
            "failed to build {} script `{name}`: {}",
            language.name(),
            script_error(language, &text, root)
        );
    }
    tracing::debug!(
        script = name,
        "{} said:\n{}",
        language.tool(),
        text.trim_end()
    );
    let bytes =
        std::fs::read(&out).with_context(|| format!("{} wrote no component", language.tool()))?;
    tracing::info!(
        script = name,
        bytes = bytes.len(),
        elapsed = ?progress.elapsed(),
        "built"
    );
    Ok(bytes)
}

/// Checks a JavaScript module's syntax with `node --check` (as an ES
/// module); a syntax error names the script's file and line.
fn check_javascript(copy: &Path, entry: &Path, work: &Path) -> Result<()> {
    let module = work.join("check.mjs");
    std::fs::copy(copy, &module).context("failed to copy the module for a syntax check")?;
    let mut command = crate::process::tool("node");
    command.arg("--check").arg(&module).stdin(Stdio::null());
    let Ok((status, text)) = run_captured(&mut command) else {
        return Ok(()); // no node here: componentize-js will say so
    };
    if status.success() {
        return Ok(());
    }
    let text = text.replace(&module.display().to_string(), &entry.display().to_string());
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("at ") && !line.starts_with("Node.js v"))
        .collect();
    bail!("{}", tidy(&lines.join("\n")))
}

/// The part of a failed build's output that is about the script: for
/// componentize-py the Python error (its traceback or `SyntaxError` with
/// file, line and caret), with the build's paths turned back into the
/// script's own; else the output without backtraces. The whole output is
/// logged at debug level.
fn script_error(language: Language, text: &str, root: &Path) -> String {
    let mut text = text.to_owned();
    if language == Language::Python {
        // componentize-py raises the script's error inside its own
        // `AssertionError`, and names the sources' directory `/0`.
        if let Some((_, error)) = text.split_once("AssertionError: ") {
            text = error
                .split("\nCaused by:")
                .next()
                .unwrap_or(error)
                .to_owned();
        }
        text = text.replace("\"/0/", &format!("\"{}/", root.display()));
    }
    let text = text.split("\nStack backtrace:").next().unwrap_or(&text);
    tidy(text)
}

/// Trims blank lines at either end and runs of blank lines inside.
fn tidy(text: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for line in text.trim_matches('\n').lines() {
        if line.trim().is_empty() && out.last().is_some_and(|l| l.trim().is_empty()) {
            continue;
        }
        out.push(line.trim_end());
    }
    let joined = out.join("\n");
    if joined.contains('\n') {
        format!("\n{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_error_keeps_its_own_words_and_paths() {
        let output = [
            "Traceback (most recent call last):",
            "  File \"/usr/bin/componentize-py\", line 8, in <module>",
            "AssertionError:   File \"/0/app.py\", line 84",
            "    def broken(:",
            "               ^",
            "SyntaxError: invalid syntax",
            "",
            "",
            "Caused by:",
            "    SyntaxError: invalid syntax (app.py, line 84)",
            "",
            "Stack backtrace:",
            "   0: <anyhow::Error>::msg",
        ]
        .join("\n");
        let error = script_error(Language::Python, &output, Path::new("/home/me/orbiter"));
        let expected = [
            "",
            "  File \"/home/me/orbiter/app.py\", line 84",
            "    def broken(:",
            "               ^",
            "SyntaxError: invalid syntax",
        ]
        .join("\n");
        assert_eq!(error, expected);
        let other = "Error: bad\n\nStack backtrace:\n 0: x";
        assert_eq!(
            script_error(Language::JavaScript, other, Path::new("/s")),
            "Error: bad"
        );
    }
}
