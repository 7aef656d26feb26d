//! Writing the stubs: componentize-py's `bindings` (renamed `.pyi`, so
//! pyright takes them as stubs) and jco's `guest-types` (TypeScript
//! declarations), both from the WIT the host binds, plus for JavaScript the
//! globals the script runtime offers and the older patch versions' module
//! names a script may still import.

use std::path::Path;
use std::process::Stdio;

use anyhow::{Context, Result, bail};

use super::tools::JCO;
use crate::componentize::{self, GameWit, Language};
use crate::process::run_captured;
use game_host::guest::engine::API_VERSION;

/// The version line of the tool that writes `language`'s stubs; the inner
/// error is one line saying it is missing (or is a version that writes
/// none) and how to install one that works.
pub(super) fn tool_version(language: Language) -> Result<Result<String, String>> {
    let (program, hint) = match language {
        Language::Python => (Language::Python.tool(), Language::Python.install_hint()),
        Language::JavaScript | Language::TypeScript => (JCO.program, JCO.install_hint()),
    };
    let output = match crate::process::tool(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
    {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Err(format!("{program} is not installed: `{hint}`")));
        }
        Err(error) => {
            return Err(anyhow::Error::from(error))
                .with_context(|| format!("failed to run `{program} --version`"));
        }
    };
    if !output.status.success() {
        return Ok(Err(format!(
            "`{program} --version` failed ({}); reinstall it: `{hint}`",
            output.status
        )));
    }
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if program == JCO.program && version == BROKEN_JCO {
        return Ok(Err(format!(
            "jco {BROKEN_JCO} reads no WIT files (its filesystem shim opens none): `{hint}`"
        )));
    }
    // componentize-py says its name, jco only its number.
    Ok(Ok(if version.starts_with(program) {
        version
    } else {
        format!("{program} {version}")
    }))
}

/// The jco release whose `guest-types` fails on every WIT path.
const BROKEN_JCO: &str = "1.35.0";

/// Writes `language`'s stubs of `world` (with `game`'s types and every
/// extension's interfaces, which a script may import) into `out`
/// (created).
pub(super) fn write(
    language: Language,
    world: &str,
    game: Option<&GameWit>,
    out: &Path,
) -> Result<()> {
    // The host's own one line if the directory cannot be written.
    std::fs::create_dir(out).with_context(|| format!("failed to create `{}`", out.display()))?;
    let work = std::env::temp_dir().join(format!("game-host-types-{}", uuid::Uuid::now_v7()));
    let extensions: Vec<_> = componentize::extensions().iter().collect();
    let wit = componentize::write_script_wit(&work, world, game, &extensions);
    let result = wit.and_then(|wit| match language {
        Language::Python => python(&wit, world, out),
        Language::JavaScript | Language::TypeScript => javascript(&wit, world, out),
    });
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn python(wit: &Path, world: &str, out: &Path) -> Result<()> {
    let mut command = crate::process::tool(Language::Python.tool());
    command
        .arg("-d")
        .arg(wit)
        .args(["-w", world, "bindings"])
        .arg(out);
    run(&mut command, "componentize-py bindings")?;
    as_stubs(out)
}

/// Renames every `.py` under `dir` to `.pyi`.
fn as_stubs(dir: &Path) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("failed to list `{}`", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            as_stubs(&path)?;
        } else if path.extension().is_some_and(|e| e == "py") {
            std::fs::rename(&path, path.with_extension("pyi"))
                .with_context(|| format!("failed to rename `{}`", path.display()))?;
        }
    }
    Ok(())
}

fn javascript(wit: &Path, world: &str, out: &Path) -> Result<()> {
    let mut command = crate::process::tool(JCO.program);
    command
        .arg("guest-types")
        .arg(wit)
        .args(["-n", world, "-o"])
        .arg(out)
        .arg("-q");
    run(&mut command, "jco guest-types")?;
    let interfaces = interfaces(&out.join("interfaces"))?;
    let text = format!("{GLOBALS}{}", older_versions(&interfaces, API_VERSION));
    std::fs::write(out.join("host.d.ts"), text).context("failed to write `host.d.ts`")
}

/// What componentize-js's runtime gives every script beyond the language.
const GLOBALS: &str = "\
// Written by the host beside jco's declarations: what the script runtime
// gives every script, and the module names of older 0.x.y patch releases,
// which load as the newest.
interface Console {
  log(...data: any[]): void;
  info(...data: any[]): void;
  warn(...data: any[]): void;
  error(...data: any[]): void;
  debug(...data: any[]): void;
}
declare var console: Console;
";

/// The interface names jco wrote declarations for (`game-engine-scene.d.ts`
/// is `scene`), sorted.
fn interfaces(dir: &Path) -> Result<Vec<String>> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("failed to list `{}`", dir.display()))?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|entry| {
            let file = entry.file_name().into_string().ok()?;
            Some(
                file.strip_prefix("game-engine-")?
                    .strip_suffix(".d.ts")?
                    .to_owned(),
            )
        })
        .collect();
    names.sort();
    Ok(names)
}

/// A script imports `game:engine/scene@0.2.1` and loads on a 0.2.4 host as
/// 0.2.4: each older patch version's module re-exports the newest's.
fn older_versions(interfaces: &[String], version: &str) -> String {
    let Some((minor, patch)) = version.rsplit_once('.') else {
        return String::new();
    };
    let patch: u32 = patch.parse().unwrap_or(0);
    let mut text = String::new();
    for older in 0..patch {
        for name in interfaces {
            text.push_str(&format!(
                "declare module 'game:engine/{name}@{minor}.{older}' {{\n  \
                 export * from 'game:engine/{name}@{version}';\n}}\n"
            ));
        }
    }
    text
}

fn run(command: &mut std::process::Command, what: &str) -> Result<()> {
    command
        .stdin(Stdio::null())
        .env("RUST_BACKTRACE", "0")
        .env("NO_COLOR", "1");
    let (status, text) = run_captured(command).with_context(|| format!("failed to run {what}"))?;
    if !status.success() {
        // The tool's last line says why; the rest is its traceback.
        let why = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        tracing::debug!("{what} said:\n{}", text.trim_end());
        bail!("{what} failed ({status}): {}", why.trim());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_patch_versions_re_export_the_newest() {
        let text = older_versions(&["log".into(), "scene".into()], "0.2.2");
        assert_eq!(text.matches("declare module").count(), 4);
        assert!(text.contains(
            "declare module 'game:engine/scene@0.2.1' {\n  export * from 'game:engine/scene@0.2.2';\n}"
        ));
        assert_eq!(older_versions(&["log".into()], "0.3.0"), "");
    }

    #[test]
    fn python_modules_become_stubs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        for file in ["pkg/a.py", "b.py", "c.pyi"] {
            std::fs::write(dir.path().join(file), "").unwrap();
        }
        as_stubs(dir.path()).unwrap();
        for file in ["pkg/a.pyi", "b.pyi", "c.pyi"] {
            assert!(dir.path().join(file).is_file(), "{file}");
        }
        assert!(!dir.path().join("b.py").exists());
    }
}
