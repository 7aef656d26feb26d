//! `host serve`: many worlds on dedicated loop threads, with the HTTP
//! control surface, Prometheus metrics, periodic summaries and a graceful
//! shutdown on SIGTERM or Ctrl-C.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use host::limits::Quotas;
use host::log::TracingLog;
use host::runtime::RuntimeConfig;
use host::server::control::{Catalog, ControlServer};
use host::server::{ServerConfig, WorldReport, WorldSetup};
use host::terrain::Terrain;
use host::{Server, WorldSpec};
use serde_json::json;

use super::engine_args::{EngineArgs, default_script, load_script, report_failure};
use super::{non_negative, positive};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The scripts of every world, one instance each (as for `host run`).
    /// Without any, worlds run the built-in spinning-cube example.
    scripts: Vec<PathBuf>,

    /// Loop threads (0: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,

    /// Worlds to start at launch (more can be started over HTTP).
    #[arg(long, value_name = "M", default_value_t = 1)]
    worlds: usize,

    /// Frames per second of every world: the loop threads' frame rate.
    #[arg(long, value_name = "H", default_value_t = 60.0, value_parser = positive)]
    hz: f64,

    /// Run each world for S seconds of game time (S x H frames), then end
    /// it; the server exits when no world is left. Without it the server
    /// runs until SIGTERM or Ctrl-C.
    #[arg(long, value_name = "S", value_parser = positive)]
    seconds: Option<f64>,

    /// Address of the HTTP control surface, /metrics, /healthz and /readyz
    /// (port 0 picks a free port; the address is logged).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9464")]
    listen: String,

    /// Most worlds at once; /readyz reports "full" at the limit.
    #[arg(long, value_name = "N")]
    max_worlds: Option<usize>,

    /// How long one world's frame may take before it counts as overrunning
    /// [default: the whole frame, 1/H s].
    #[arg(long, value_name = "MS", value_parser = positive)]
    world_budget_ms: Option<f64>,

    /// Stop a world that overruns its budget this many frames in a row.
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    overrun_frames: u32,

    /// Print a summary per loop thread every S seconds (0: only at exit).
    #[arg(long, value_name = "S", default_value_t = 5.0, value_parser = non_negative)]
    summary_every: f64,

    /// At exit, write each thread's figures and each world's end as JSON.
    #[arg(long, value_name = "FILE")]
    metrics_json: Option<PathBuf>,

    /// Write each world's scene as JSON to DIR/world-ID.json when it ends.
    #[arg(long, value_name = "DIR")]
    dump_worlds: Option<PathBuf>,

    /// On SIGTERM or Ctrl-C: how long running worlds get to finish their
    /// current frame before the process exits anyway (with status 1).
    #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = non_negative)]
    grace_seconds: f64,

    #[command(flatten)]
    engine: EngineArgs,
}

pub fn serve(args: ServeArgs) -> Result<ExitCode> {
    let scripts_per_world = args.scripts.len().max(1);
    let room = args.max_worlds.unwrap_or(args.worlds).max(args.worlds) * scripts_per_world;
    let engine = args
        .engine
        .engine(u32::try_from(room + 64).unwrap_or(u32::MAX).max(256))?;
    let mut scripts = Vec::new();
    if args.scripts.is_empty() {
        scripts.push(default_script(&engine)?);
    }
    for path in &args.scripts {
        match load_script(&engine, path) {
            Ok(script) => scripts.push(script),
            Err(error) => {
                report_failure(&error);
                bail!("script `{}` could not be loaded", path.display());
            }
        }
    }

    let setup: WorldSetup = Arc::new(|runtime| runtime.register_job(Terrain));
    let server = Arc::new(Server::start(ServerConfig {
        threads: args.threads,
        runtime: RuntimeConfig {
            hz: args.hz,
            log: Arc::new(TracingLog),
            job_threads: args.engine.job_threads,
            quotas: Quotas::default(),
            restart: args.engine.restart_policy(),
            ..RuntimeConfig::default()
        },
        setup: Some(setup),
        world_budget: args
            .world_budget_ms
            .map(|ms| Duration::from_secs_f64(ms / 1e3)),
        overrun_frames: args.overrun_frames,
        max_worlds: args.max_worlds,
    })?);
    let frames = args.seconds.map(|s| (s * args.hz).round().max(1.0) as u64);
    let control = ControlServer::start(
        &args.listen,
        server.clone(),
        Catalog {
            scripts: scripts.clone(),
            frames,
        },
    )?;
    tracing::info!(
        threads = server.thread_count(),
        hz = args.hz,
        "serving on http://{}/ (POST /worlds, GET /metrics, /healthz, /readyz)",
        control.addr()
    );

    let spec = WorldSpec { scripts, frames };
    let launch = Instant::now();
    for _ in 0..args.worlds {
        if let Err(error) = server.start_world(&spec) {
            if format!("{error:#}").contains("os error 12") {
                bail!(
                    "world {} of {} could not be started: the process ran out of memory \
                     or of memory mappings (each instance maps a few; Linux allows \
                     vm.max_map_count = {} per process): see docs/scaling.md",
                    server.world_count() + 1,
                    args.worlds,
                    std::fs::read_to_string("/proc/sys/vm/max_map_count")
                        .map_or_else(|_| "?".into(), |n| n.trim().to_owned())
                );
            }
            bail!("a world could not be started: {error:#}");
        }
    }
    tracing::info!(
        worlds = args.worlds,
        elapsed = ?launch.elapsed(),
        "worlds started"
    );

    let stop = Arc::new(AtomicBool::new(false));
    let signalled = stop.clone();
    if let Err(error) = ctrlc::set_handler(move || signalled.store(true, Ordering::Relaxed)) {
        tracing::warn!("cannot catch SIGTERM / Ctrl-C: {error}");
    }
    let every = (args.summary_every > 0.0).then(|| Duration::from_secs_f64(args.summary_every));
    let mut next_summary = every.map(|every| Instant::now() + every);
    let mut reports = Vec::new();
    loop {
        std::thread::sleep(Duration::from_millis(20));
        reports.extend(server.take_ended());
        if stop.load(Ordering::Relaxed) {
            tracing::info!(
                "signalled: draining (no new worlds; running worlds finish their frame)"
            );
            break;
        }
        if frames.is_some() && server.world_count() == 0 {
            tracing::info!("every world has ended");
            break;
        }
        if let (Some(at), Some(every)) = (next_summary, every)
            && Instant::now() >= at
        {
            for summary in server.take_window() {
                tracing::info!("{summary}");
            }
            next_summary = Some(at + every);
        }
    }
    let stopped = Instant::now();
    let clean = server.shut_down(Duration::from_secs_f64(args.grace_seconds));
    reports.extend(server.take_ended());
    tracing::info!(elapsed = ?stopped.elapsed(), worlds = reports.len(), "loop threads stopped");
    let totals = server.totals();
    for summary in &totals {
        tracing::info!("total {summary}");
    }
    if let Some(dir) = &args.dump_worlds {
        write_dumps(dir, &reports)?;
    }
    if let Some(file) = &args.metrics_json {
        let worlds: Vec<_> = reports
            .iter()
            .map(|r| {
                json!({
                    "id": r.id, "thread": r.thread, "frames": r.frames,
                    "reason": r.reason, "errors": r.errors,
                })
            })
            .collect();
        let body = json!({ "threads": totals, "worlds": worlds });
        std::fs::write(file, format!("{body:#}\n"))
            .with_context(|| format!("failed to write metrics `{}`", file.display()))?;
        tracing::info!(file = %file.display(), "wrote final metrics");
    }
    drop(control);
    if !clean {
        eprintln!(
            "error: loop threads did not stop within the {} s grace period",
            args.grace_seconds
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes each ended world's scene to `dir/world-ID.json`.
fn write_dumps(dir: &std::path::Path, reports: &[WorldReport]) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("failed to create `{}`", dir.display()))?;
    for report in reports {
        let file = dir.join(format!("world-{}.json", report.id.0));
        std::fs::write(&file, report.scene.to_json())
            .with_context(|| format!("failed to write `{}`", file.display()))?;
    }
    Ok(())
}
