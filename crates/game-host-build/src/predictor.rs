//! A script's browser form (`host build --predictor`): the component,
//! checked against world `predictor`, transpiled by jco into JavaScript
//! and core WebAssembly that the client library instantiates with its own
//! imports, plus a manifest naming the component by its digest, so that
//! `host serve --predictor` serves it only beside that very component.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};

use crate::editor_types::JCO;
use crate::process::run_captured;
use game_host::ScriptComponent;
use game_host::guest::engine::API_VERSION;
pub use game_host::predictor::{MANIFEST, MODULE, Manifest};
use game_host::progress::Progress;

/// Checks that `script` (whose bytes are at `component`) may run in the
/// browser, and writes its browser form into `out` (made afresh, and
/// taken away again if it could not be made): jco's module and core
/// WebAssembly, and the [`Manifest`]. An `out` that holds anything but a
/// predictor is left alone, and refused.
pub fn build(script: &ScriptComponent, component: &Path, out: &Path) -> Result<Manifest> {
    if let Some(why) = script.predictor_mismatch() {
        bail!("`{}` cannot predict in the browser: {why}", script.name());
    }
    if out.exists() {
        let empty = std::fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_none());
        if !empty && !out.join(MANIFEST).is_file() {
            bail!(
                "`{}` exists and is not a predictor: move it away, or write the component \
                 elsewhere (`-o`)",
                out.display()
            );
        }
        std::fs::remove_dir_all(out)
            .with_context(|| format!("failed to replace `{}`", out.display()))?;
    }
    std::fs::create_dir_all(out)
        .with_context(|| format!("failed to create `{}`", out.display()))?;
    let made = transpile(script, component, out);
    if made.is_err() {
        let _ = std::fs::remove_dir_all(out);
    }
    made
}

/// jco's module and core WebAssembly for `component`, and the manifest,
/// written into the empty directory `out`.
fn transpile(script: &ScriptComponent, component: &Path, out: &Path) -> Result<Manifest> {
    let mut command = crate::process::tool(JCO.program);
    command
        .arg("transpile")
        .arg(component)
        .arg("-o")
        .arg(out)
        .args(["--name", "predictor", "--instantiation", "async"])
        .args(["--no-typescript", "--no-nodejs-compat", "-q"])
        .stdin(Stdio::null());
    let progress = Progress::start(format!(
        "transpiling `{}` for the browser (jco)",
        script.name()
    ));
    let ran = run_captured(&mut command);
    drop(progress);
    let (status, text) = match ran {
        Err(error)
            if error
                .root_cause()
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound) =>
        {
            bail!("{}", JCO.missing());
        }
        other => other.context("failed to run jco")?,
    };
    if !status.success() {
        bail!("jco transpile failed ({status}):\n{}", text.trim_end());
    }
    let mut files = vec![MODULE.to_owned()];
    files.extend(core_modules(out)?);
    if !out.join(MODULE).is_file() {
        bail!("jco wrote no `{MODULE}` into `{}`", out.display());
    }
    let manifest = Manifest {
        world: format!("game:engine/predictor@{API_VERSION}"),
        script: script.name().to_owned(),
        sha256: script.digest_hex(),
        module: MODULE.to_owned(),
        files,
    };
    let text = serde_json::to_string_pretty(&manifest).expect("a manifest always encodes");
    game_host::files::write_atomic(&out.join(MANIFEST), text.as_bytes())
        .with_context(|| format!("failed to write `{}`", out.join(MANIFEST).display()))?;
    Ok(manifest)
}

/// The core WebAssembly files jco wrote beside the module, sorted.
fn core_modules(out: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in
        std::fs::read_dir(out).with_context(|| format!("failed to list `{}`", out.display()))?
    {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.ends_with(".wasm") {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Where `host build --predictor` writes the browser form of a component
/// written to `component`: beside it, `NAME.predictor/`.
pub fn dir_for(component: &Path) -> PathBuf {
    let stem = component
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "script".to_owned());
    component.with_file_name(format!("{stem}.predictor"))
}
