//! `host replay`: runs a recording again, headless and as fast as the CPU
//! allows, and checks that every frame's scene matches.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Result, bail};
use clap::Args;
use game_host::record::{RecordedScript, Recording, replay as run_replay};
use game_host::{Runtime, RuntimeConfig, ScriptComponent, ScriptEngine};

use super::engine_args::{EngineArgs, load_script};
use super::recorded::{Lookup, load_recorded};

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A recording written by `host run --record` or `host serve
    /// --record-worlds`.
    recording: PathBuf,

    /// The scripts to replay, in the recording's order, as for `host run`
    /// [default: the components the recording names, by their digest, from
    /// the cache, or a recorded `.wasm` path inside the recording's folder
    /// with the recorded digest; nothing a recording names is ever built,
    /// or opened elsewhere].
    scripts: Vec<PathBuf>,

    /// Replay scripts whose content differs from what was recorded (with a
    /// warning), to find the first frame an edit changes.
    #[arg(long)]
    allow_changed: bool,

    #[command(flatten)]
    engine: EngineArgs,
}

pub fn replay(mut args: ReplayArgs) -> Result<ExitCode> {
    let recording = Recording::read(&args.recording)?;
    // Floats as the recorded run had them, whatever --portable-floats says.
    args.engine.portable_floats = recording.header.canonical_nans;
    let header = &recording.header;
    if let Some(arch) = &header.arch
        && !header.canonical_nans
        && arch != std::env::consts::ARCH
    {
        tracing::warn!(
            target: "host",
            "this recording was made on {arch} without portable floats, so NaNs may differ on \
             {} and the replay may diverge: record it again with --portable-floats to replay it \
             on any architecture",
            std::env::consts::ARCH
        );
    }
    if header.version < game_host::record::PARALLEL_FRAMES {
        tracing::warn!(
            target: "host",
            "this recording is of format {} (host {}), from before parallel frames: scripts that \
             write one shared entity in a frame may diverge (docs/parallel-frames.md)",
            header.version,
            header.host
        );
    }
    if !args.scripts.is_empty() && args.scripts.len() != header.scripts.len() {
        bail!(
            "the recording has {} script(s); {} were given",
            header.scripts.len(),
            args.scripts.len()
        );
    }
    let instances: usize = header.scripts.iter().map(|s| s.instances as usize).sum();
    let pool = args
        .engine
        .pool(instances, instances, "the recording's instances")?;
    let engine = args.engine.engine(pool)?;
    let mut scripts = Vec::new();
    let mut changed = Vec::new();
    for (index, recorded) in header.scripts.iter().enumerate() {
        let script = match args.scripts.get(index) {
            Some(path) => load_script(&engine, path)?,
            None => recorded_script(&engine, recorded, &args.recording, index)?,
        };
        if script.digest_hex() != recorded.sha256 {
            changed.push(format!(
                "`{}` is not the script recorded (sha256 {} recorded, {} now)",
                recorded.name,
                short(&recorded.sha256),
                short(&script.digest_hex())
            ));
        }
        scripts.push(script);
    }
    if !changed.is_empty() {
        if !args.allow_changed {
            bail!(
                "{}; replay it anyway with --allow-changed",
                changed.join("; ")
            );
        }
        for line in &changed {
            tracing::warn!("{line}; replaying it anyway (--allow-changed)");
        }
    }
    if recording.end.is_none() {
        tracing::warn!(
            "the recording has no end line (the run was cut short, or it is the log of a durable world that goes on); replaying its {} frames",
            recording.frames()
        );
    }
    let mut runtime = Runtime::new(RuntimeConfig {
        open_to_players: header.open_to_players.clone(),
        player_bytes_per_frame: header.player_bytes_per_frame,
        ..args
            .engine
            .runtime_config(header.hz, header.seed, true, RuntimeConfig::default().log)
    });
    let started = Instant::now();
    let report = run_replay(&recording, &mut runtime, &scripts)?;
    match report.divergence {
        None => {
            println!(
                "replay: {} frames agree with the recording (scene {:016x}; {:.2?})",
                report.frames,
                report.digest,
                started.elapsed()
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(divergence) => {
            eprintln!("error: {divergence}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The script a recording names (the `index`th), loaded as
/// [`load_recorded`] does (a log in a state directory finds its components
/// there too), or an error saying which argument to give instead.
fn recorded_script(
    engine: &ScriptEngine,
    recorded: &RecordedScript,
    recording: &Path,
    index: usize,
) -> Result<ScriptComponent> {
    let state_dir = state_dir_of(recording);
    let folder = std::path::absolute(recording)
        .ok()
        .and_then(|path| path.parent().map(Path::to_owned));
    let lookup = Lookup {
        state_dir: state_dir.as_deref(),
        resuming: false,
        paths_within: folder.as_deref(),
    };
    if let Some(script) = load_recorded(engine, recorded, &lookup)? {
        return Ok(script);
    }
    let source = recorded.source.as_str();
    let arguments = (0..index)
        .map(|_| " SCRIPT")
        .chain([" SCRIPT.wasm"])
        .collect::<String>();
    bail!(
        "script `{}` was recorded from `{source}`, which replay neither builds (a build runs the \
         source's code) nor opens outside the recording's folder, and no component with its \
         digest {} is in the cache: give the script after the recording (`host replay \
         {}{arguments}`; `host build {source}` makes a .wasm from a source you trust)",
        recorded.name,
        short(&recorded.sha256),
        recording.display()
    )
}

/// The state directory a world's log (`DIR/worlds/ID/log.rec`) is in.
fn state_dir_of(recording: &Path) -> Option<PathBuf> {
    let dir = std::path::absolute(recording).ok()?;
    let dir = dir.parent()?.parent()?.parent()?;
    dir.join("components").is_dir().then(|| dir.to_owned())
}

/// The first 12 hex digits of a digest, for messages.
fn short(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}
