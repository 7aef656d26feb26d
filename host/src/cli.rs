//! Command-line interface: argument parsing and the `run` command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use host::engine::default_cache_dir;
use host::input::parse_input_script;
use host::jobs::JobDelivery;
use host::limits::{Quotas, ScriptLimits};
use host::log::TracingLog;
use host::render::Offscreen;
use host::runtime::RestartPolicy;
use host::sync::LockExt;
use host::terrain::{self, Terrain};
use host::{
    BuildOutput, EngineOptions, HeadlessRunner, HotReloader, Runtime, RuntimeConfig,
    ScriptComponent, ScriptEngine, ScriptError, ScriptSource, WindowRunner,
};
use uuid::Uuid;

/// The built-in default script: the spinning-cube example, built from the
/// workspace's source for wasm32-wasip2 by `build.rs` and embedded here, so
/// an installed `host` runs it from anywhere.
const DEFAULT_SCRIPT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/spinning_cube.wasm"));

/// The default script's name in logs and errors.
const DEFAULT_SCRIPT_NAME: &str = "spinning_cube";

/// Runs WebAssembly game scripts frame by frame.
#[derive(Debug, Parser)]
#[command(name = "host", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load scripts and run the game loop.
    Run(RunArgs),
}

#[derive(Debug, Args)]
struct RunArgs {
    /// Script components (.wasm), script crate directories (built with
    /// `cargo build --release --target wasm32-wasip2`), or Python /
    /// JavaScript scripts (.py, .js, or a directory holding app.py /
    /// app.js; built with componentize-py / componentize-js). Without any,
    /// runs the built-in spinning-cube example (embedded in the binary).
    scripts: Vec<PathBuf>,

    /// Run without a window (and without touching the GPU unless
    /// --screenshot is given).
    #[arg(long)]
    headless: bool,

    /// Run this many frames, then exit. Headless, they run as fast as the CPU
    /// allows; in a window, in real time. Without it the game runs in real
    /// time until the window is closed (or Ctrl-C, headless).
    #[arg(long, value_name = "N")]
    frames: Option<u64>,

    /// After the last frame, render the scene offscreen and write it to FILE
    /// as a PNG (needs no window or display).
    #[arg(long, value_name = "FILE")]
    screenshot: Option<PathBuf>,

    /// Window and screenshot size in pixels.
    #[arg(long, value_name = "WxH", default_value = "800x600", value_parser = parse_size)]
    size: (u32, u32),

    /// Fixed timestep rate in frames per game second.
    #[arg(long, value_name = "HZ", default_value_t = 60.0, value_parser = positive_hz)]
    hz: f64,

    /// Write the scene as JSON to FILE at exit.
    #[arg(long, value_name = "FILE")]
    dump_scene: Option<PathBuf>,

    /// Instantiate each script this many times.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    instances: u32,

    /// Directory for compiled components [default: $GAME_HOST_CACHE_DIR,
    /// $XDG_CACHE_HOME/game-host or ~/.cache/game-host].
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,

    /// Compile every script afresh; read and write no cache.
    #[arg(long)]
    no_cache: bool,

    /// Most script instances alive at once (memory is reserved for them).
    #[arg(long, value_name = "N", default_value_t = 256)]
    max_instances: u32,

    /// Feed timed input events from FILE: one per line, `FRAME press KEY`,
    /// `FRAME release KEY` or `FRAME send CHANNEL PAYLOAD...` (`#` comments).
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// At exit, list each script's pending waits (timers, events, motions,
    /// jobs) and the task that owns each: a tracker for leaked tasks.
    #[arg(long)]
    list_waits: bool,

    /// Worker threads for background jobs such as terrain (0: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    job_threads: usize,

    /// Hot-swap scripts when they change: a crate directory is rebuilt when
    /// its sources change, a .wasm file is reloaded when it is rewritten.
    /// State is handed over to scripts that support it.
    #[arg(long)]
    watch: bool,

    /// CPU deadline of one `on-message` call, in milliseconds; a script past
    /// it is stopped like a trap. 0 turns CPU deadlines off.
    #[arg(long, value_name = "MS", default_value_t = 5.0, value_parser = non_negative)]
    script_deadline_ms: f64,

    /// CPU deadline of `entrypoint`, `save-state` and `restore-state`, in
    /// milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 100.0, value_parser = non_negative)]
    start_deadline_ms: f64,

    /// Most linear memory one script instance may use, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    memory_limit_mib: u32,

    /// Restart a failed script instance from its component with fresh state,
    /// up to N times (backoff doubling from --restart-backoff frames); then
    /// leave it disabled. 0: never.
    #[arg(long, value_name = "N", default_value_t = 0)]
    restart: u32,

    /// Frames before the first restart of a failed script.
    #[arg(long, value_name = "FRAMES", default_value_t = 30)]
    restart_backoff: u64,
}

fn non_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(ms) if ms.is_finite() && ms >= 0.0 => Ok(ms),
        _ => Err(format!("`{text}` is not a number of milliseconds")),
    }
}

fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let parsed = text
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if (1..=8192).contains(&w) && (1..=8192).contains(&h) => Ok((w, h)),
        _ => Err(format!("`{text}` is not a size like 800x600")),
    }
}

fn positive_hz(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(hz) if hz.is_finite() && hz > 0.0 => Ok(hz),
        _ => Err(format!("`{text}` is not a positive number")),
    }
}

pub fn main(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run(args),
    }
}

fn run(args: RunArgs) -> Result<ExitCode> {
    let engine = Arc::new(ScriptEngine::new(EngineOptions {
        cache_dir: match (args.no_cache, args.cache_dir) {
            (true, _) => None,
            (false, Some(dir)) => Some(dir),
            (false, None) => default_cache_dir(),
        },
        pooling: true,
        max_instances: args.max_instances,
        extensions: vec![terrain::link],
        limits: ScriptLimits {
            update_deadline: Some(Duration::from_secs_f64(args.script_deadline_ms / 1e3))
                .filter(|d| !d.is_zero()),
            start_deadline: Duration::from_secs_f64(args.start_deadline_ms / 1e3),
            memory: (args.memory_limit_mib as usize) << 20,
            ..ScriptLimits::default()
        },
    })?);
    let mut reloader = if args.watch {
        Some(HotReloader::new(engine.clone())?)
    } else {
        None
    };
    let scripts = args.scripts;

    let mut runtime = Runtime::new(RuntimeConfig {
        hz: args.hz,
        log: Arc::new(TracingLog),
        job_threads: args.job_threads,
        // A headless run of N frames is a simulation: make it reproducible.
        jobs: if args.headless && args.frames.is_some() {
            JobDelivery::Lockstep
        } else {
            JobDelivery::WhenReady
        },
        quotas: Quotas::default(),
        restart: RestartPolicy {
            max_restarts: args.restart,
            backoff_frames: args.restart_backoff,
        },
    });
    runtime.register_job(Terrain)?;
    if let Some(file) = &args.input {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("failed to read input file `{}`", file.display()))?;
        let events = parse_input_script(&text)
            .map_err(|e| anyhow::anyhow!("bad input file `{}`: {e}", file.display()))?;
        for (frame, event) in events {
            runtime.schedule_event(frame, event);
        }
    }
    let mut load_failures = 0;
    if scripts.is_empty() {
        tracing::info!("no script given; running the built-in spinning-cube example");
        if reloader.is_some() {
            tracing::warn!("--watch has nothing to watch: the built-in script has no source here");
        }
        let component = engine.load_bytes(DEFAULT_SCRIPT_NAME, DEFAULT_SCRIPT)?;
        start(&mut runtime, &component, args.instances)?;
    }
    for path in &scripts {
        let started = ScriptSource::new(path)
            .and_then(|source| source.load(&engine, BuildOutput::Inherit))
            .and_then(|component| start(&mut runtime, &component, args.instances));
        match started {
            Ok(ids) => {
                if let Some(reloader) = reloader.as_mut() {
                    reloader.watch(path, ids)?;
                }
            }
            Err(error) => {
                // Traps in `entrypoint` were already reported by the runtime.
                if error.downcast_ref::<ScriptError>().is_none() {
                    eprintln!("error: {error:#}");
                }
                load_failures += 1;
            }
        }
    }
    if runtime.live_instances() == 0 && load_failures > 0 {
        bail!("no script could be started");
    }

    let mut between = |runtime: &mut Runtime| {
        if let Some(reloader) = reloader.as_mut() {
            reloader.apply(runtime);
        }
    };
    let started = Instant::now();
    let frames = if args.headless {
        let runner = HeadlessRunner {
            frames: args.frames,
            ..HeadlessRunner::default()
        };
        if args.frames.is_none() {
            let stop = runner.stop.clone();
            if let Err(error) = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed)) {
                tracing::warn!("cannot catch Ctrl-C: {error}");
            }
            tracing::info!(hz = args.hz, "running in real time; press Ctrl-C to stop");
        }
        runner.run_with(&mut runtime, &mut between)
    } else {
        let window = WindowRunner {
            frames: args.frames,
            title: match script_names(&scripts) {
                names if names.is_empty() => "game-host: spinning-cube".to_owned(),
                names => format!("game-host: {names}"),
            },
            size: args.size,
        };
        window.run(&mut runtime, &mut between)?
    };
    tracing::info!(frames, elapsed = ?started.elapsed(), "stopped");

    if let Some(file) = &args.screenshot {
        screenshot(&runtime, file, args.size)?;
    }
    if args.list_waits {
        print_waits(&runtime);
    }
    if let Some(file) = &args.dump_scene {
        std::fs::write(file, runtime.dump().to_json())
            .with_context(|| format!("failed to write scene dump `{}`", file.display()))?;
    }
    let failures = load_failures + runtime.errors().len();
    if failures > 0 {
        eprintln!("error: {failures} script failure(s); see the errors above");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The scripts' file or directory names, for the window title.
fn script_names(scripts: &[PathBuf]) -> String {
    scripts
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Renders the scene offscreen and writes it as a PNG.
fn screenshot(runtime: &Runtime, file: &Path, (width, height): (u32, u32)) -> Result<()> {
    let mut offscreen = Offscreen::new(width, height)?;
    let image = { offscreen.capture(&runtime.scene().lock_unpoisoned())? };
    image.save_png(file)?;
    tracing::info!(
        file = %file.display(),
        width,
        height,
        adapter = %offscreen.gpu().describe(),
        "wrote screenshot"
    );
    Ok(())
}

/// Prints every instance's pending waits to stderr.
fn print_waits(runtime: &Runtime) {
    for instance in runtime.instances() {
        let waits = runtime.pending_waits(instance.id);
        eprintln!(
            "script `{}` ({}): {} pending wait(s)",
            instance.name,
            instance.id,
            waits.len()
        );
        for wait in waits {
            eprintln!(
                "  task {}: {} (token {:#x})",
                wait.task, wait.what, wait.token
            );
        }
    }
}

/// Starts `instances` instances of a loaded script.
fn start(runtime: &mut Runtime, component: &ScriptComponent, instances: u32) -> Result<Vec<Uuid>> {
    tracing::info!(
        script = component.name(),
        bytes = component.size(),
        instances,
        "starting"
    );
    (0..instances).map(|_| runtime.spawn(component)).collect()
}
