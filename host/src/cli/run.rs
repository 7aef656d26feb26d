//! `host run`: one game, headless or in a window.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use game_host::files::{MAX_TEXT_FILE, read_capped};
use game_host::input::parse_input_script;
use game_host::log::TracingLog;
use game_host::record::{Recorder, RunSettings};
use game_host::{HeadlessRunner, Runtime, RuntimeConfig, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, HotSwapper, ScriptSource};
use uuid::Uuid;

#[cfg(feature = "render")]
use super::drawing::{Window, draws, overlay_lines, screenshot};
#[cfg(not(feature = "render"))]
use super::drawing_absent::{Window, draws, overlay_lines, screenshot};
use super::engine_args::{EngineArgs, SeedArgs, default_script, load_script, report_failure};
use super::ranges::{HZ, number_in};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Script components (.wasm), script crate directories (built with
    /// `cargo build --release --target wasm32-wasip2`), or Python /
    /// JavaScript / TypeScript scripts (.py, .js, .mjs, .ts, .mts, or a directory
    /// holding app.py / app.js / app.ts; run live on componentize-py's /
    /// componentize-js's runtime, TypeScript with its types erased). Without any,
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

    /// Show the overlay from the start: the frame's time and the scripts
    /// that take the most of it (median and 99th percentile per frame). In
    /// the window F3 shows and hides it; a --screenshot has it drawn in.
    #[arg(long)]
    overlay: bool,

    /// Window and screenshot size in pixels.
    #[arg(long, value_name = "WxH", default_value = "800x600", value_parser = parse_size)]
    size: (u32, u32),

    /// Fixed timestep rate in frames per game second.
    #[arg(long, value_name = "HZ", default_value_t = 60.0, value_parser = number_in(HZ.0, HZ.1))]
    hz: f64,

    /// Write the scene as JSON to FILE at exit.
    #[arg(long, value_name = "FILE")]
    dump_scene: Option<PathBuf>,

    /// Instantiate each script this many times.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    instances: u32,

    /// Feed timed input events from FILE: one per line, `FRAME press KEY`,
    /// `FRAME release KEY` or `FRAME send CHANNEL PAYLOAD...` (`#` comments).
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// At exit, list each script's pending waits (timers, events, motions,
    /// jobs) and the task that owns each: a tracker for leaked tasks.
    #[arg(long)]
    list_waits: bool,

    /// At exit, print how long each script's calls took per frame (median,
    /// 99th percentile, total), the slowest first. The same table is logged
    /// at debug level (`RUST_LOG=debug`) without it.
    #[arg(long)]
    profile_summary: bool,

    /// Sample the scripts' wasm stacks every millisecond of their calls and
    /// write a profile to FILE at exit, in the Firefox Profiler's format
    /// (open it at https://profiler.firefox.com, "Load a profile from
    /// file"). With several instances, the second is written to FILE-2, and
    /// so on. Needs CPU deadlines on (the samples are taken on their ticks).
    #[arg(long, value_name = "FILE", conflicts_with = "debug")]
    profile: Option<PathBuf>,

    /// Run under a native debugger: script crates are built with debug info
    /// and without optimisation, and their code is compiled with its DWARF
    /// registered with gdb or lldb, so `break lib.rs:LINE` in a script stops
    /// there and `info locals` shows its variables (the book: Seeing inside a
    /// running script). Start it as `gdb --args host run SCRIPT --debug`.
    /// CPU deadlines are off under it.
    #[arg(long, conflicts_with = "watch")]
    debug: bool,

    /// Hot-swap scripts when they change: a crate directory is rebuilt when
    /// its sources change, a .wasm file is reloaded when it is rewritten.
    /// State is handed over to scripts that support it. A script that fails
    /// (to build, or while running) waits for its next edit.
    #[arg(long, conflicts_with = "record")]
    watch: bool,

    /// Record the run to FILE: the scripts' content hashes, the seed, the
    /// timestep, every input event with its frame, and the scene's digest
    /// after every frame; `host replay FILE` runs it again and checks it.
    /// Background jobs then complete in lockstep, also in a window.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    #[command(flatten)]
    world: SeedArgs,

    #[command(flatten)]
    engine: EngineArgs,
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

pub fn run(mut args: RunArgs) -> Result<ExitCode> {
    args.engine.debug = args.debug;
    // Before any script is built: a host that cannot draw says so first.
    if !args.headless {
        draws("a window")?;
    }
    if args.screenshot.is_some() {
        draws("--screenshot")?;
    }
    if args.profile.is_some() && !args.engine.deadlines_on() {
        bail!(
            "--profile samples the scripts on the CPU deadline's ticks: leave deadlines on \
             (--script-deadline-ms above 0)"
        );
    }
    if let Some(file) = &args.record {
        // Before any script is built: a path that cannot be written is
        // named at once (the recording is written there once they run).
        std::fs::File::create(file)
            .with_context(|| format!("failed to create recording `{}`", file.display()))?;
    }
    let needed = args.instances as usize * args.scripts.len().max(1);
    let what = format!(
        "--instances {} of {} script(s)",
        args.instances,
        args.scripts.len().max(1)
    );
    let pool = args.engine.pool(needed, needed, &what)?;
    let engine = args.engine.engine(pool)?;
    let mut swapper = if args.watch {
        Some(HotSwapper::new(engine.clone())?)
    } else {
        None
    };
    let scripts = args.scripts.as_slice();

    // A headless run of N frames is a simulation, and a recorded run is
    // replayed: make them reproducible.
    let lockstep = args.headless && args.frames.is_some() || args.record.is_some();
    let mut runtime = Runtime::new(RuntimeConfig {
        profile: args.profile.is_some(),
        ..args
            .engine
            .runtime_config(args.hz, args.world.seed(), lockstep, Arc::new(TracingLog))
    });
    let input = match &args.input {
        Some(file) => read_input(file)?,
        None => Vec::new(),
    };
    let (started_scripts, load_failures) = start_scripts(
        &engine,
        &mut runtime,
        scripts,
        args.instances,
        swapper.as_mut(),
        args.debug,
    )?;
    if swapper.as_ref().is_some_and(HotSwapper::is_waiting) {
        tracing::warn!("waiting for an edit to the script(s) that failed (--watch)");
    } else if runtime.inspect().live_instances() == 0 && load_failures > 0 {
        if scripts.len() == 1 {
            // Its error, printed above, says all.
            return Ok(ExitCode::FAILURE);
        }
        bail!("no script could be started");
    }
    if let Some(file) = &args.record {
        let settings = RunSettings {
            hz: args.hz,
            seed: runtime.seed(),
            checkpoint_every: args.world.checkpoint_every,
            canonical_nans: engine.deterministic_floats(),
            open_to_players: runtime.inspect().open_to_players().clone(),
            player_bytes_per_frame: runtime.inspect().player_bytes_per_frame(),
        };
        let recorder = Recorder::create(file, settings, &started_scripts)?;
        runtime.observe(Box::new(recorder));
    }
    // Queued once a recording would see them.
    for (frame, event) in input {
        runtime.input().event_at(frame, event);
    }

    let started = Instant::now();
    let frames = run_frames(&args, scripts, &mut runtime, swapper.as_mut())?;
    let elapsed = started.elapsed();
    tracing::info!(frames, ?elapsed, "stopped");
    let frame_ms = elapsed.as_secs_f64() * 1e3 / frames.max(1) as f64;
    if let Some(file) = &args.record {
        runtime.finish_observing()?;
        tracing::info!(file = %file.display(), frames, "wrote recording");
    }

    write_outputs(&args, &mut runtime, frame_ms)?;
    let table = time_table(&runtime);
    if args.profile_summary {
        eprint!("{table}");
    } else {
        tracing::debug!("time in each script's calls:\n{table}");
    }
    let failures = load_failures + runtime.inspect().errors().len();
    if failures > 0 {
        eprintln!("error: {failures} script failure(s); see the errors above");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Each script's time per frame, as a table.
fn time_table(runtime: &Runtime) -> String {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let mut table = format!(
        "{:<24} {:>8} {:>12} {:>12} {:>12}\n",
        "script", "frames", "p50 ms", "p99 ms", "total ms"
    );
    for time in runtime.inspect().script_times() {
        table += &format!(
            "{:<24} {:>8} {:>12.4} {:>12.4} {:>12.3}\n",
            time.script,
            time.frames,
            ms(time.p50),
            ms(time.p99),
            ms(time.total)
        );
    }
    table
}

/// Starts `instances` of each script (the built-in one when none is
/// given), watching them under `--watch`; returns what started and how many
/// scripts failed to (each reported).
fn start_scripts(
    engine: &ScriptEngine,
    runtime: &mut Runtime,
    scripts: &[PathBuf],
    instances: u32,
    mut swapper: Option<&mut HotSwapper>,
    debug: bool,
) -> Result<(Vec<(ScriptComponent, u32)>, usize)> {
    let mut load_failures = 0;
    let mut started_scripts = Vec::new();
    if scripts.is_empty() {
        if swapper.is_some() {
            tracing::warn!("--watch has nothing to watch: the built-in script has no source here");
        }
        let component = default_script(engine)?;
        start(runtime, &component, instances)?;
        started_scripts.push((component, instances));
    }
    for path in scripts {
        let loaded = match debug {
            true => ScriptSource::new(path)
                .and_then(|source| source.load_for_debugger(engine, BuildOutput::Inherit)),
            false => load_script(engine, path),
        };
        let started = loaded.and_then(|component| {
            let ids = start(runtime, &component, instances)?;
            started_scripts.push((component, instances));
            Ok(ids)
        });
        match started {
            Ok(ids) => {
                if let Some(swapper) = swapper.as_deref_mut() {
                    swapper.watch(path, ids)?;
                }
            }
            Err(error) => {
                report_failure(&error);
                load_failures += 1;
                // Under --watch the script waits for its fix.
                if let Some(swapper) = swapper.as_deref_mut() {
                    swapper.watch_failed(path, instances as usize)?;
                }
            }
        }
    }
    Ok((started_scripts, load_failures))
}

/// Runs frames headless or in a window until the run ends; returns how many.
fn run_frames(
    args: &RunArgs,
    scripts: &[PathBuf],
    runtime: &mut Runtime,
    mut swapper: Option<&mut HotSwapper>,
) -> Result<u64> {
    let mut between = |runtime: &mut Runtime| {
        if let Some(swapper) = swapper.as_deref_mut() {
            swapper.apply(runtime);
        }
    };
    let frames = if args.headless {
        let runner = HeadlessRunner {
            frames: args.frames,
            wait_for_fixes: args.watch,
            ..HeadlessRunner::default()
        };
        if args.frames.is_none() {
            let stop = runner.stop.clone();
            if let Err(error) = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed)) {
                tracing::warn!("cannot catch Ctrl-C: {error}");
            }
            tracing::info!(hz = args.hz, "running in real time; press Ctrl-C to stop");
        }
        runner.run_with(runtime, &mut between)
    } else {
        let window = Window {
            frames: args.frames,
            title: match script_names(scripts) {
                names if names.is_empty() => "game-host: spinning-cube".to_owned(),
                names => format!("game-host: {names}"),
            },
            size: args.size,
            overlay: args.overlay,
        };
        window.run(runtime, &mut between)?
    };
    Ok(frames)
}

/// Writes what the run was asked for at its end: screenshot, waits, scene.
fn write_outputs(args: &RunArgs, runtime: &mut Runtime, frame_ms: f64) -> Result<()> {
    if let Some(file) = &args.profile {
        write_profiles(file, runtime.take_profiles())?;
    }
    if let Some(file) = &args.screenshot {
        let overlay = match args.overlay {
            true => overlay_lines(runtime, frame_ms),
            false => Vec::new(),
        };
        screenshot(runtime, file, args.size, overlay)?;
    }
    if args.list_waits {
        print_waits(runtime);
    }
    if let Some(file) = &args.dump_scene {
        std::fs::write(file, runtime.inspect().dump().to_json())
            .with_context(|| format!("failed to write scene dump `{}`", file.display()))?;
    }
    Ok(())
}

/// Writes each profile: the first to `file`, the others to `file-2`, ...
/// (before its extension).
fn write_profiles(file: &Path, profiles: Vec<game_host::guest::ScriptProfile>) -> Result<()> {
    for (index, profile) in profiles.into_iter().enumerate() {
        let path = match index {
            0 => file.to_owned(),
            n => {
                let stem = file.file_stem().unwrap_or_default().to_string_lossy();
                let name = match file.extension() {
                    Some(ext) => format!("{stem}-{}.{}", n + 1, ext.to_string_lossy()),
                    None => format!("{stem}-{}", n + 1),
                };
                file.with_file_name(name)
            }
        };
        let (script, instance) = (profile.script.clone(), profile.instance);
        let mut out = Vec::new();
        profile.write(&mut out)?;
        game_host::files::write_atomic(&path, &out)
            .with_context(|| format!("failed to write profile `{}`", path.display()))?;
        tracing::info!(
            "wrote the profile of `{script}` ({instance}) to {}: open it at \
             https://profiler.firefox.com (Load a profile from file)",
            path.display()
        );
    }
    Ok(())
}

/// The timed events of an `--input` file.
fn read_input(file: &Path) -> Result<Vec<(u64, game_host::Event)>> {
    let text = read_capped(file, MAX_TEXT_FILE)
        .and_then(|bytes| Ok(String::from_utf8(bytes)?))
        .with_context(|| format!("failed to read input file `{}`", file.display()))?;
    parse_input_script(&text)
        .map_err(|e| anyhow::anyhow!("bad input file `{}`: {e}", file.display()))
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

/// Prints every instance's pending waits to stderr.
fn print_waits(runtime: &Runtime) {
    for instance in runtime.inspect().instances() {
        let waits = runtime.inspect().pending_waits(instance.id);
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
