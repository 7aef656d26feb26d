//! `host build SCRIPT [-o FILE]`: one self-contained component for a
//! script, to ship. `host run` runs Python and JavaScript scripts live (on
//! a runtime built once, the sources as data); a game that ships them
//! builds each into its own component here, which any host loads as a
//! plain `.wasm` file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use game_host::files::write_atomic;
use game_host::guest::engine::default_cache_dir;
use game_host::{EngineOptions, ScriptEngine};
use game_host_build::componentize::Language;
use game_host_build::editor_types::{self, Refreshed, TYPES_DIR};
use game_host_build::predictor;
use game_host_build::{BuildOutput, ScriptSource};
use sha2::{Digest, Sha256};

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The script: a crate directory, or a Python, JavaScript or TypeScript
    /// script (its directory, or its `.py` / `.js` / `.ts` file).
    script: PathBuf,

    /// Where to write the component [default: `<script name>.wasm` in the
    /// current directory].
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,

    /// Directory of the build cache [default: $GAME_HOST_CACHE_DIR,
    /// $XDG_CACHE_HOME/game-host or ~/.cache/game-host]
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,

    /// Build afresh; read and write no build cache.
    #[arg(long)]
    no_cache: bool,

    /// Also write its browser form beside it (`NAME.predictor/`, with
    /// jco): the players' browsers run the same component to predict
    /// their own entities (`host serve --predictor`). Refused for a
    /// script that calls more than world `predictor` imports.
    #[arg(long)]
    predictor: bool,
}

pub fn build(args: BuildArgs) -> Result<ExitCode> {
    let source = ScriptSource::new(&args.script)?;
    let cache = match (args.no_cache, args.cache_dir) {
        (true, _) => None,
        (false, Some(dir)) => Some(dir),
        (false, None) => default_cache_dir(),
    };
    let (name, bytes) = source.build(BuildOutput::Inherit, cache.as_deref())?;
    let output = args
        .output
        .unwrap_or_else(|| PathBuf::from(format!("{name}.wasm")));
    write_atomic(&output, &bytes)
        .with_context(|| format!("failed to write `{}`", output.display()))?;
    eprintln!(
        "wrote `{}` ({:.1} MB, sha256:{}): run it with `host run {}`",
        output.display(),
        bytes.len() as f64 / 1e6,
        game_host::hex::hex(&Sha256::digest(&bytes)),
        output.display()
    );
    if let ScriptSource::Foreign(language, entry) = &source {
        refresh_types(*language, entry);
    }
    if args.predictor {
        write_predictor(&name, &bytes, &output)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the browser form of the component at `output` beside it.
fn write_predictor(name: &str, bytes: &[u8], output: &Path) -> Result<()> {
    let engine = ScriptEngine::new(EngineOptions {
        pooling: false,
        ..EngineOptions::default()
    })?;
    let script = engine
        .load_bytes(name, bytes)
        .with_context(|| format!("failed to load `{}`", output.display()))?;
    let dir = predictor::dir_for(output);
    let manifest = predictor::build(&script, output, &dir)?;
    let size: u64 = manifest
        .files
        .iter()
        .filter_map(|file| std::fs::metadata(dir.join(file)).ok())
        .map(|meta| meta.len())
        .sum();
    eprintln!(
        "wrote `{}` ({} files, {:.0} KB, the browser form of sha256:{}): serve it with \
         `host serve ... {} --predictor {}`",
        dir.display(),
        manifest.files.len() + 1,
        size as f64 / 1e3,
        manifest.sha256,
        output.display(),
        dir.display()
    );
    Ok(())
}

/// Editor types the project has follow the host's WIT (after the build,
/// whose errors say it first when a tool is missing or a source is wrong).
fn refresh_types(language: Language, entry: &Path) {
    match editor_types::refresh(language, entry, false) {
        Ok(Refreshed::Written) => eprintln!(
            "refreshed the editor types in `{}`",
            editor_types::project_dir(entry).join(TYPES_DIR).display()
        ),
        Ok(Refreshed::ToolMissing(missing)) => {
            tracing::warn!("editor types not refreshed: {missing}")
        }
        Ok(_) => {}
        Err(error) => tracing::warn!("{error:#}"),
    }
}
