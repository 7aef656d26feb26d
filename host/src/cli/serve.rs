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
use game_host::files::ensure_writable_dir;
use game_host::log::QuietTracingLog;
use game_host::players::OpenToPlayers;
use game_host::predictor::PredictorFiles;
use game_host::{RuntimeConfig, ScriptComponent, ScriptEngine};
use game_host_server::control::{
    Catalog, ControlConfig, ControlLimits, ControlServer, ControlToken, TlsFiles,
};
use game_host_server::durable::{self, StateConfig};
use game_host_server::{Server, StartError, WorldSpec};
use game_host_server::{ServerConfig, StreamLimits};

use super::engine_args::{EngineArgs, SeedArgs, default_script, load_script, report_failure};
use super::fleet::{self, FleetArgs, Joining};
#[cfg(not(feature = "fleet"))]
use super::fleet_absent::Membership;
#[cfg(feature = "fleet")]
use super::fleet_member::Membership;
use super::play_args::PlayArgs;
use super::ranges::{HZ, number_in};
use super::serve_output::{METRICS_EVERY, Output};
use super::sidecar::Sidecar;
use super::state_dir::{keep_components, resume};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The scripts of every world, one instance each (as for `host run`).
    /// Without any, worlds run the built-in spinning-cube example.
    scripts: Vec<PathBuf>,

    /// The browser form of one of the scripts (`host build SCRIPT
    /// --predictor` writes it, `NAME.predictor`): served to the players
    /// of the worlds that run that very component (its SHA-256), whose
    /// pages predict their own entities with it. May be given again.
    #[arg(long, value_name = "DIR")]
    predictor: Vec<PathBuf>,

    /// Loop threads (0: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,

    /// Worlds to start at launch (more can be started over HTTP)
    /// [default: 1, or 0 for a node of a fleet].
    #[arg(long, value_name = "M")]
    worlds: Option<usize>,

    /// Frames per second of every world: the loop threads' frame rate.
    #[arg(long, value_name = "H", default_value_t = 60.0, value_parser = number_in(HZ.0, HZ.1))]
    hz: f64,

    /// Run each world for S seconds of game time (S x H frames), then end
    /// it; the server exits when no world is left. Without it the server
    /// runs until SIGTERM or Ctrl-C.
    #[arg(long, value_name = "S", value_parser = number_in(0.001, 1e6))]
    seconds: Option<f64>,

    /// Address of the HTTP control surface, /metrics, /healthz and /readyz
    /// (port 0 picks a free port; the address is logged). Off loopback it
    /// needs a control token.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9464")]
    listen: String,

    /// Serve https and wss (only) on --listen with this certificate: a PEM
    /// file of the server's certificate, then its chain. Read again, with
    /// --tls-key, when either changes (a renewal needs no restart); a pair
    /// that does not load keeps the one in use. Needs a host built with
    /// the `tls` feature.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,

    /// A node of a fleet that serves TLS relays requests and streams to
    /// the others over TLS, trusting a node whose certificate is valid for
    /// one of its own certificate's DNS names (the nodes share the game's
    /// names: one certificate, or a wildcard), issued under this CA (PEM);
    /// without it, under the platform's roots.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    peer_ca: Option<PathBuf>,

    /// A file holding the bearer token that POST and DELETE requests must
    /// carry (`Authorization: Bearer TOKEN`) [default: $GAME_HOST_CONTROL_TOKEN].
    /// Health, readiness, metrics and GET /worlds stay open.
    #[arg(long, value_name = "FILE")]
    control_token_file: Option<PathBuf>,

    #[command(flatten)]
    play: PlayArgs,

    /// Most worlds at once; /readyz reports "full" at the limit.
    #[arg(long, value_name = "N")]
    max_worlds: Option<usize>,

    /// Players one world admits at once (POST /worlds/ID/players).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_players: u32,

    /// Send players' clients the entities that changed every K frames
    /// (messages go every frame); a POSTed world may ask for its own.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=3600))]
    stream_every: u32,

    /// The step (world units) the binary stream (`game-host.delta`) rounds
    /// the launched world's positions and scales to; a POSTed world may
    /// ask for its own (`stream_precision`).
    #[arg(long, value_name = "STEP", default_value_t = 0.001)]
    stream_precision: f32,

    /// Players' key presses also reach scripts' ordinary key waits
    /// (`events`), as the view page's keys do. Without it they reach only
    /// `players` listeners, with their sender.
    #[arg(long)]
    player_keys: bool,

    /// A channel players may send messages on (a name or `*` pattern;
    /// repeat for more): they reach `players` listeners with their sender,
    /// and scripts' ordinary waits on that channel. A message on any other
    /// channel is refused and the client told, so a player can never pass
    /// for a script (a POSTed world may set its own: `{"open_to_players":
    /// {"keys": true, "channels": ["chat"]}}`).
    #[arg(long, value_name = "NAME")]
    player_channel: Vec<String>,

    /// Bytes a world's scripts may send to players in one frame, all
    /// together: the message that goes past it is dropped, and the script
    /// that sent the most that frame is stopped, naming the quota.
    #[arg(long, value_name = "BYTES", default_value_t = game_host::runtime::DEFAULT_PLAYER_BYTES_PER_FRAME as u64,
          value_parser = clap::value_parser!(u64).range(1..=(64 << 20)))]
    player_bytes_per_frame: u64,

    /// Bytes of updates each world keeps for players' clients that fall
    /// behind (at most 128 updates, and always the newest): a client behind
    /// what is kept gets a fresh snapshot. With the default, 50 worlds keep
    /// at most 800 MiB for stalled clients, however large they are.
    #[arg(long, value_name = "BYTES", default_value_t = game_host_server::stream::DEFAULT_KEPT_BYTES as u64,
          value_parser = clap::value_parser!(u64).range((64 << 10)..=(1 << 30)))]
    stream_backlog_bytes: u64,

    /// Players' streams (WebSockets) open at once, over all worlds.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_streams: u32,

    /// How long one world's frame may take before it counts as overrunning
    /// [default: the whole frame, 1/H s].
    #[arg(long, value_name = "MS", value_parser = number_in(0.001, 60_000.0))]
    world_budget_ms: Option<f64>,

    /// Stop a world that overruns its budget this many frames in a row.
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    overrun_frames: u32,

    /// Print a summary per loop thread every S seconds (0: only at exit).
    #[arg(long, value_name = "S", default_value_t = 5.0, value_parser = number_in(0.0, 86_400.0))]
    summary_every: f64,

    /// Write each thread's figures and each ended world's end as JSON to
    /// FILE, every few seconds and at exit.
    #[arg(long, value_name = "FILE")]
    metrics_json: Option<PathBuf>,

    /// Write each world's scene as JSON to DIR/world-ID.json when it ends.
    #[arg(long, value_name = "DIR")]
    dump_worlds: Option<PathBuf>,

    /// Record each world to DIR/world-ID.rec (its scripts, seed and every
    /// POSTed event, with scene digests), to replay with `host replay`
    /// after it ends. Recorded worlds get background jobs in lockstep.
    #[arg(long, value_name = "DIR")]
    record_worlds: Option<PathBuf>,

    /// Keep every world durable in DIR: its log (its recording: scripts by
    /// digest, seed, every input and player event), checkpoints, players
    /// and components. Started again with the same DIR, the server resumes
    /// every world that had not ended, at its last durable frame, with the
    /// same ids, players and tokens (and starts no --worlds of its own).
    /// With --fleet, the node keeps its working copy in a folder of its own
    /// in DIR (the worlds themselves are in the fleet's Redis).
    #[arg(long, value_name = "DIR", conflicts_with = "record_worlds")]
    state_dir: Option<PathBuf>,

    /// With --state-dir: hand each world's log to the disk at least every
    /// MS milliseconds of game time, the most input a killed process loses.
    #[arg(long, value_name = "MS", default_value_t = 100.0, requires = "state_dir",
          value_parser = number_in(1.0, 60_000.0))]
    flush_ms: f64,

    /// On SIGTERM or Ctrl-C: how long running worlds get to finish their
    /// current frame before the process exits anyway (with status 1).
    #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = number_in(0.0, 3_600.0))]
    grace_seconds: f64,

    #[command(flatten)]
    fleet: FleetArgs,

    /// Report to Agones' SDK server (the sidecar of an Agones GameServer,
    /// on AGONES_SDK_GRPC_PORT): Ready once the server listens and launched
    /// its worlds, Allocate while it is full (Ready again once it has
    /// room), Health every 2 s while /healthz answers, the free world
    /// slots as the label `world-slots-free`, its worlds and capacity in
    /// the Counter `worlds` (where the GameServer declares it, for a
    /// Counter FleetAutoscaler), and Shutdown once SIGTERM
    /// drained it (its worlds moved to other nodes of a fleet, or ended). A
    /// node of a fleet without --advertise advertises the address and port
    /// Agones gives its GameServer (its port named `control`). Needs a host
    /// built with the `agones` feature.
    #[arg(long)]
    agones: bool,

    #[command(flatten)]
    world: SeedArgs,

    #[command(flatten)]
    engine: EngineArgs,
}

pub fn serve(args: ServeArgs) -> Result<ExitCode> {
    if args.agones {
        super::sidecar::available()?;
    }
    let output = Output::open(args.dump_worlds.clone(), args.metrics_json.clone())?;
    let token = ControlToken::load(args.control_token_file.as_deref())?;
    if let Some(dir) = &args.record_worlds {
        ensure_writable_dir(dir).context("--record-worlds")?;
    }
    let per_world = args.scripts.len().max(1);
    let fleet = Membership::connect(&args.fleet)?;
    if token.is_some() || fleet.is_some() {
        // What it read must not be read again by a build script it runs.
        game_host::secrets::keep_from_other_processes();
    }
    // A node of a fleet keeps its worlds in a working copy.
    let state_dir = match &fleet {
        Some(fleet) => Some(fleet.working_dir(args.state_dir.as_deref())?),
        None => args.state_dir.clone(),
    };
    let launching = args.worlds.unwrap_or(usize::from(fleet.is_none()));
    // The worlds a state directory resumes need their instances too, as
    // far as this system can pool them: the number is the logs' word, and
    // a world that does not fit fails alone as it resumes.
    let resuming = match &fleet {
        Some(_) => 0,
        None => state_dir.as_deref().map_or(0, durable::instances_to_resume),
    };
    let default_room = if fleet.is_some() {
        fleet::DEFAULT_ROOM
    } else {
        launching
    };
    let launch_room = args.max_worlds.unwrap_or(default_room).max(launching) * per_world;
    let most = ScriptEngine::most_pooled_instances(args.engine.memory_limit());
    let resuming = resuming.min(most.saturating_sub(launch_room + 64));
    let what = format!("--worlds {launching} of {per_world} script(s)");
    let pool = args
        .engine
        .pool(launch_room + resuming, launching * per_world, &what)?;
    let engine = args.engine.engine(pool)?;
    let scripts = load_scripts(&engine, &args.scripts)?;
    let predictors = load_predictors(&args.predictor, &scripts)?;
    if let Some(dir) = &state_dir {
        keep_components(&engine, dir, &scripts)?;
    }
    if let (Some(fleet), Some(dir)) = (&fleet, &state_dir) {
        fleet.share_components(dir, &scripts)?;
    }
    let state = state_dir.as_ref().map(|dir| StateConfig {
        dir: dir.clone(),
        flush_every: (args.flush_ms / 1e3 * args.hz).floor().max(1.0) as u64,
        directory: fleet.as_ref().map(|fleet| fleet.directory()),
    });
    let server = Arc::new(Server::start(server_config(
        &args,
        pool as usize,
        per_world,
        state,
    ))?);
    let frames = args.seconds.map(|s| (s * args.hz).round().max(1.0) as u64);
    let control = ControlServer::start(
        ControlConfig {
            listen: args.listen.clone(),
            token,
            limits: ControlLimits::default(),
            streams: StreamLimits {
                max_streams: args.max_streams as usize,
                ..StreamLimits::default()
            },
            starting: true,
            tls: args
                .tls_cert
                .clone()
                .zip(args.tls_key.clone())
                .map(|(cert, key)| TlsFiles { cert, key }),
            peer_ca: args.peer_ca.clone(),
            play: args.play.play(),
            allow_origins: args.play.allowed_origins()?,
        },
        server.clone(),
        Catalog {
            scripts: scripts.clone(),
            frames,
            predictors,
        },
    )?;
    tracing::info!(
        "listening on {}://{}/ (/healthz answers; /readyz once {} world(s) have started)",
        control.scheme(),
        control.addr(),
        launching
    );
    // Before the fleet: a node under Agones advertises the address Agones
    // gives its game server, unless told one.
    let agones = match args.agones {
        true => {
            let address = fleet.is_some() && args.fleet.advertise.is_none();
            Some(Sidecar::start(server.clone(), control.addr(), address)?)
        }
        false => None,
    };
    if let (Some(fleet), Some(dir)) = (&fleet, &state_dir) {
        fleet.join(Joining {
            server: &server,
            control: &control,
            engine: &engine,
            dir,
            given: &scripts,
            reported: agones.as_ref().and_then(Sidecar::address),
        })?;
    }
    let resumed = match (&state_dir, &fleet) {
        (Some(dir), None) => resume(&server, &engine, dir, &scripts),
        _ => false,
    };
    if !resumed {
        launch(
            &server,
            &WorldSpec {
                scripts,
                frames,
                seed: None,
                stream_every: None,
                stream_precision: Some(args.stream_precision),
                grants: None,
                open_to_players: None,
                play: None,
            },
            launching,
        )?;
    }
    control.launched();
    if let Some(agones) = &agones {
        agones.ready();
    }
    let joins = match &args.play.play() {
        Some(play) => format!("POST /play for `{}`, ", play.game),
        None => String::new(),
    };
    tracing::info!(
        threads = server.thread_count(),
        hz = args.hz,
        "serving on {}://{}/ ({joins}POST /worlds, POST /worlds/ID/players, GET /metrics, \
         /healthz, /readyz)",
        control.scheme(),
        control.addr()
    );

    let stop = Arc::new(AtomicBool::new(false));
    let signalled = stop.clone();
    if let Err(error) = ctrlc::set_handler(move || signalled.store(true, Ordering::Relaxed)) {
        tracing::warn!("cannot catch SIGTERM / Ctrl-C: {error}");
    }
    let mut output = output;
    run_until_done(
        &server,
        &stop,
        frames.is_some(),
        args.summary_every,
        &mut output,
    );
    let stopped = Instant::now();
    if let Some(fleet) = &fleet {
        fleet.drain(&server);
    }
    let clean = server.shut_down(Duration::from_secs_f64(args.grace_seconds));
    if let Some(fleet) = &fleet {
        fleet.leave(&server);
    }
    if let Some(agones) = agones
        && let Err(error) = agones.shutdown(Duration::from_secs(10))
    {
        tracing::error!("{error:#}");
    }
    output.take(&server);
    tracing::info!(elapsed = ?stopped.elapsed(), worlds = output.reports.len(), "loop threads stopped");
    for summary in &server.totals() {
        tracing::info!("total {summary}");
    }
    output.write_metrics(&server);
    if let Some(file) = &args.metrics_json {
        tracing::info!(file = %file.display(), "wrote final metrics");
    }
    drop(control);
    if fleet.is_some() && args.state_dir.is_none() {
        // The working copy of a node that was given none.
        if let Some(dir) = &state_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    if !clean {
        eprintln!(
            "error: loop threads did not stop within the {} s grace period",
            args.grace_seconds
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn server_config(
    args: &ServeArgs,
    pool: usize,
    per_world: usize,
    state: Option<StateConfig>,
) -> ServerConfig {
    ServerConfig {
        threads: args.threads,
        // A recorded world must replay frame for frame.
        runtime: RuntimeConfig {
            open_to_players: OpenToPlayers {
                keys: args.player_keys,
                channels: args.player_channel.clone(),
            },
            player_bytes_per_frame: args.player_bytes_per_frame as usize,
            ..args.engine.runtime_config(
                args.hz,
                args.world.seed(),
                args.record_worlds.is_some() || state.is_some(),
                Arc::new(QuietTracingLog),
            )
        },
        world_budget: args
            .world_budget_ms
            .map(|ms| Duration::from_secs_f64(ms / 1e3)),
        overrun_frames: args.overrun_frames,
        max_worlds: args.max_worlds,
        max_instances: Some(pool),
        instances_per_world: per_world,
        record_dir: args.record_worlds.clone(),
        state,
        checkpoint_every: args.world.checkpoint_every,
        canonical_nans: args.engine.portable_floats,
        max_players: args.max_players as usize,
        stream_every: args.stream_every,
        stream_kept_bytes: args.stream_backlog_bytes as usize,
    }
}

/// The predictors in `dirs`, each the browser form of one of `scripts`
/// (the same component, by its SHA-256).
fn load_predictors(dirs: &[PathBuf], scripts: &[ScriptComponent]) -> Result<Vec<PredictorFiles>> {
    dirs.iter()
        .map(|dir| {
            let predictor = PredictorFiles::read(dir)?;
            let digest = &predictor.manifest.sha256;
            if !scripts.iter().any(|script| script.digest_hex() == *digest) {
                anyhow::bail!(
                    "the predictor in `{}` was built from a component (sha256:{digest}) that is \
                     none of the scripts given: build it again from the one you serve \
                     (`host build SCRIPT --predictor`)",
                    dir.display()
                );
            }
            tracing::info!(
                "players' pages predict with `{}` (the browser form of script `{}`)",
                dir.display(),
                predictor.manifest.script
            );
            Ok(predictor)
        })
        .collect()
}

/// The scripts given (loaded, built where needed), or the default one.
fn load_scripts(engine: &ScriptEngine, paths: &[PathBuf]) -> Result<Vec<ScriptComponent>> {
    if paths.is_empty() {
        return Ok(vec![default_script(engine)?]);
    }
    paths
        .iter()
        .map(|path| {
            load_script(engine, path).map_err(|error| {
                report_failure(&error);
                anyhow::anyhow!("script `{}` could not be loaded", path.display())
            })
        })
        .collect()
}

/// Starts the launch's worlds. A world that does not fit ends the launch
/// with a warning and the server runs on; a script that fails to start
/// ends the process.
fn launch(server: &Server, spec: &WorldSpec, worlds: usize) -> Result<()> {
    let started = Instant::now();
    for n in 0..worlds {
        if let Err(error) = server.start_world(spec) {
            if let StartError::Unavailable(error) = &error {
                tracing::warn!("launched {n} of {worlds} worlds: {error:#}");
                return Ok(());
            }
            if format!("{error:#}").contains("os error 12") {
                bail!(
                    "world {} of {worlds} could not be started: the process ran out of memory \
                     or of memory mappings (each instance maps a few; Linux allows \
                     vm.max_map_count = {} per process): see docs/scaling.md",
                    n + 1,
                    std::fs::read_to_string("/proc/sys/vm/max_map_count")
                        .map_or_else(|_| "?".into(), |n| n.trim().to_owned())
                );
            }
            bail!("a world could not be started: {error:#}");
        }
    }
    tracing::info!(worlds, elapsed = ?started.elapsed(), "worlds started");
    Ok(())
}

/// Runs until signalled (or, for timed worlds, until none is left):
/// writes each ended world's dump as it ends, the metrics file every few
/// seconds, and the summaries.
fn run_until_done(
    server: &Server,
    stop: &AtomicBool,
    timed: bool,
    summary_every: f64,
    output: &mut Output,
) {
    let every = (summary_every > 0.0).then(|| Duration::from_secs_f64(summary_every));
    let mut next_summary = every.map(|every| Instant::now() + every);
    let mut next_metrics = Instant::now() + METRICS_EVERY;
    loop {
        std::thread::sleep(Duration::from_millis(20));
        output.take(server);
        if stop.load(Ordering::Relaxed) {
            tracing::info!(
                "signalled: draining (no new worlds; running worlds finish their frame)"
            );
            return;
        }
        if timed && server.world_count() == 0 {
            tracing::info!("every world has ended");
            return;
        }
        let now = Instant::now();
        if now >= next_metrics {
            output.write_metrics(server);
            next_metrics = now + METRICS_EVERY;
        }
        if let (Some(at), Some(every)) = (next_summary, every)
            && now >= at
        {
            for summary in server.take_window() {
                tracing::info!("{summary}");
            }
            next_summary = Some(at + every);
        }
    }
}
