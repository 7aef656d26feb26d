//! The options `run` and `serve` share: the compile cache, the instance
//! pool, the sandbox's limits, restarts and job threads.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use game_host::game_types::GameTypes;
use game_host::guest::engine::default_cache_dir;
use game_host::jobs::JobDelivery;
use game_host::limits::{Quotas, ScriptLimits};
use game_host::log::LogSink;
use game_host::runtime::RestartPolicy;
use game_host::{
    EngineOptions, GrantFile, GrantPolicy, RuntimeConfig, ScriptComponent, ScriptEngine,
    ScriptError,
};
use game_host_build::{BuildOutput, ScriptSource};

use super::extensions;
use super::ranges::number_in;

/// The built-in default script: the spinning-cube example, built from the
/// workspace's source for wasm32-wasip2 by `build.rs` and embedded here, so
/// an installed `host` runs it from anywhere.
pub const DEFAULT_SCRIPT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/spinning_cube.wasm"));

/// The default script's name in logs and errors.
pub const DEFAULT_SCRIPT_NAME: &str = "spinning_cube";

#[derive(Debug, Args)]
pub struct EngineArgs {
    /// Directory for compiled components [default: $GAME_HOST_CACHE_DIR,
    /// $XDG_CACHE_HOME/game-host or ~/.cache/game-host].
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,

    /// Compile every script afresh; read and write no cache.
    #[arg(long)]
    no_cache: bool,

    /// Most script instances alive at once (address space is reserved for
    /// them) [default: what the command runs, plus room, and at least 256].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_instances: Option<u32>,

    /// Worker threads for background jobs such as terrain (0: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub job_threads: usize,

    /// CPU time one `on-update` or `on-wake` call may use, in milliseconds (the calling
    /// thread's own CPU time: a busy machine never stops an innocent call);
    /// a call past it spends its instance's CPU credit (four times this at
    /// the start; each call within this saves a tenth of it, up to four
    /// times this), and is stopped like a trap when none is left. 0 turns
    /// deadlines off.
    #[arg(long, value_name = "MS", default_value_t = 5.0, value_parser = number_in(0.0, 60_000.0))]
    script_deadline_ms: f64,

    /// CPU time `entrypoint`, `save-state` and `restore-state` may use, in
    /// milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 100.0, value_parser = number_in(0.01, 600_000.0))]
    start_deadline_ms: f64,

    /// Wall-clock time any one call may take, whatever CPU time it used, in
    /// milliseconds: a backstop for a call whose thread is not running it
    /// (never shorter than the CPU time the call may use, its credit
    /// included).
    #[arg(long, value_name = "MS", default_value_t = 1_000.0, value_parser = number_in(1.0, 3_600_000.0))]
    wall_deadline_ms: f64,

    /// Most linear memory one script instance may use, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    memory_limit_mib: u32,

    /// A quota of every script instance, as NAME=N (repeat for more), e.g.
    /// `entities=5000`; an unknown NAME is refused with the list of names
    /// (the book: Limits and sandboxing).
    #[arg(long = "quota", value_name = "NAME=N", value_parser = parse_quota)]
    quotas: Vec<(String, u64)>,

    /// What each script may do: a TOML file with a `[default]` table and
    /// `[source."PATTERN"]` tables, by where a script was loaded from (a
    /// path pattern relative to the file, such as `mods/**`, or
    /// `sha256:HEX`) (keys `imports`, `writes`, `send`, `listen`,
    /// `keys`, `jobs`, `deadline_ms`, `memory_mib`, `quotas`; the book:
    /// Grants). Without it every script may use every interface and change
    /// every entity.
    #[arg(long, value_name = "FILE", value_parser = parse_grants)]
    pub grants: Option<GrantPolicy>,

    /// The game's description (JSON: its name, and its components and
    /// resources with their fields' types): scripts made for it (`host new
    /// --game FILE`) read and write them typed, and a script built for
    /// another description is refused at load (the book: Game types).
    #[arg(long, value_name = "FILE", value_parser = parse_game)]
    pub game: Option<Arc<GameTypes>>,

    /// Restart a failed script instance from its component with fresh state,
    /// up to N times (backoff doubling from --restart-backoff frames); then
    /// leave it disabled. 0: never.
    #[arg(long, value_name = "N", default_value_t = 0)]
    restart: u32,

    /// Frames before the first restart of a failed script.
    #[arg(long, value_name = "FRAMES", default_value_t = 30)]
    restart_backoff: u64,

    /// Write /tmp/perf-PID.map naming each compiled script function, so
    /// that `perf record` / `perf report` show script functions by name.
    #[arg(long)]
    perf_map: bool,

    /// Make NaNs canonical, so that a run replays the same on x86-64 and
    /// aarch64 (lockstep across architectures). Float-heavy scripts run
    /// slower (docs/determinism.md). Without it a run is deterministic on
    /// one CPU architecture, which is all a single server needs.
    #[arg(long)]
    pub portable_floats: bool,

    /// Fast floats, the default since 0.2 (kept so that older command
    /// lines still work).
    #[arg(long, hide = true, conflicts_with = "portable_floats")]
    fast_floats: bool,

    /// Threads a frame runs its scripts' calls on (0: one per core). The
    /// scene a frame leaves is the same for any number
    /// (docs/parallel-frames.md). `host serve` shares one set among its
    /// worlds.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=1024))]
    pub frame_threads: u16,

    /// Compile scripts for a native debugger (set by `host run --debug`).
    #[arg(skip)]
    pub debug: bool,
}

/// The options of a world's determinism that `run` and `serve` share: its
/// seed, and how recordings of it are written.
#[derive(Debug, Args)]
pub struct SeedArgs {
    /// The world's seed, which scripts' random numbers (WASI random, and so
    /// Rust's HashMap order, Python's `random`, JavaScript's `Math.random`)
    /// come from: a number, or `random` for a new one each run (logged, and
    /// kept in a recording).
    #[arg(long, value_name = "SEED", default_value = "0", value_parser = parse_seed)]
    seed: Seed,

    /// Frames between a recording's checkpoints of every entity's transform
    /// (a replay that diverges names the entities that differ at the next
    /// one); every frame's scene digest is recorded regardless.
    #[arg(long, value_name = "N", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub checkpoint_every: u64,
}

/// `--seed`: a fixed seed, or a new one each run.
#[derive(Debug, Clone, Copy)]
enum Seed {
    Fixed(u64),
    Random,
}

impl SeedArgs {
    /// The seed of the run (for `--seed random`, a new one, logged).
    pub fn seed(&self) -> u64 {
        match self.seed {
            Seed::Fixed(seed) => seed,
            Seed::Random => {
                let seed = game_host::determinism::random_seed();
                tracing::info!(seed, "--seed random");
                seed
            }
        }
    }
}

/// Most bytes of a `--grants` file.
const MAX_GRANTS_FILE: u64 = 1 << 20;

/// `--game FILE`: read and checked when the option is.
pub(super) fn parse_game(path: &str) -> Result<Arc<GameTypes>, String> {
    GameTypes::read(path.as_ref())
        .map(Arc::new)
        .map_err(|error| format!("{error:#}"))
}

/// `--grants FILE`: read, parsed and checked when the option is.
fn parse_grants(path: &str) -> Result<GrantPolicy, String> {
    let text = game_host::files::read_capped(path.as_ref(), MAX_GRANTS_FILE)
        .map_err(|error| format!("cannot read `{path}`: {error}"))?;
    let text = String::from_utf8(text).map_err(|_| format!("`{path}` is not UTF-8 text"))?;
    let file: GrantFile = toml::from_str(&text).map_err(|error| {
        let message = error.message().to_owned();
        let line = error
            .span()
            .and_then(|span| text.get(..span.start))
            .map(|before| before.matches('\n').count() + 1);
        match line {
            Some(line) => format!("`{path}` line {line}: {message}"),
            None => format!("`{path}`: {message}"),
        }
    })?;
    // Its path patterns are relative to the file itself.
    let base = std::path::absolute(path)
        .ok()
        .and_then(|file| file.parent().map(Path::to_owned))
        .unwrap_or_default();
    GrantPolicy::new(file.relative_to(&base)).map_err(|error| format!("`{path}`: {error}"))
}

/// `--quota NAME=N`, checked against the quotas' own table.
fn parse_quota(text: &str) -> Result<(String, u64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=N (e.g. `entities=5000`)"))?;
    let value: u64 = value
        .trim()
        .parse()
        .map_err(|_| format!("`{value}` is not a whole number (quota `{name}`)"))?;
    let name = name.trim().to_owned();
    Quotas::default().set(&name, value)?;
    Ok((name, value))
}

fn parse_seed(text: &str) -> Result<Seed, String> {
    match text.trim() {
        "random" => Ok(Seed::Random),
        number => number
            .parse()
            .map(Seed::Fixed)
            .map_err(|_| format!("`{text}` is not a seed: a number from 0 to 2^64-1, or `random`")),
    }
}

impl EngineArgs {
    /// The engine these options describe, with a pool of `max_instances`
    /// instances (the command sizes it from `--max-instances` and what it
    /// runs).
    pub fn engine(&self, max_instances: u32) -> Result<Arc<ScriptEngine>> {
        Ok(Arc::new(ScriptEngine::new(EngineOptions {
            cache_dir: match (self.no_cache, &self.cache_dir) {
                (true, _) => None,
                (false, Some(dir)) => Some(dir.clone()),
                (false, None) => default_cache_dir(),
            },
            pooling: true,
            max_instances,
            extensions: extensions::linked(),
            game: self.game.clone(),
            limits: ScriptLimits {
                // A call stopped at a breakpoint must not be stopped by its
                // deadline: under a debugger there are none.
                update_deadline: Some(Duration::from_secs_f64(self.script_deadline_ms / 1e3))
                    .filter(|d| !d.is_zero() && !self.debug),
                start_deadline: Duration::from_secs_f64(self.start_deadline_ms / 1e3),
                wall_deadline: Duration::from_secs_f64(self.wall_deadline_ms / 1e3),
                memory: self.memory_limit(),
                ..ScriptLimits::default()
            },
            perf_map: self.perf_map,
            debug_info: self.debug,
            deterministic_floats: self.portable_floats,
        })?))
    }

    /// The instance pool: `--max-instances` if given, refused when it is
    /// smaller than the `needed` instances (`what` says whose, for the
    /// error); else `room` plus 64 for hot-swaps and restarts, at least 256.
    pub fn pool(&self, room: usize, needed: usize, what: &str) -> Result<u32> {
        match self.max_instances {
            Some(max) if (max as usize) < needed => {
                anyhow::bail!("{what} need {needed} instances, more than --max-instances {max}")
            }
            Some(max) => Ok(max),
            None => Ok(u32::try_from(room + 64).unwrap_or(u32::MAX).max(256)),
        }
    }

    /// A world's runtime settings: `hz` frames a second, `seed`, log lines
    /// to `log`; jobs in `lockstep` where the run must be reproducible (a
    /// recording, a replay, a headless simulation).
    pub fn runtime_config(
        &self,
        hz: f64,
        seed: u64,
        lockstep: bool,
        log: Arc<dyn LogSink>,
    ) -> RuntimeConfig {
        RuntimeConfig {
            hz,
            log,
            job_threads: self.job_threads,
            jobs: if lockstep {
                JobDelivery::Lockstep
            } else {
                JobDelivery::WhenReady
            },
            restart: self.restart_policy(),
            seed,
            quotas: self.quotas(),
            grants: self.grants.clone().unwrap_or_default(),
            frame_threads: usize::from(self.frame_threads),
            ..RuntimeConfig::default()
        }
    }

    /// The most linear memory one instance may use, in bytes.
    pub fn memory_limit(&self) -> usize {
        (self.memory_limit_mib as usize) << 20
    }

    /// Whether scripts get CPU deadlines (not with `--script-deadline-ms 0`,
    /// nor under a debugger).
    pub fn deadlines_on(&self) -> bool {
        self.script_deadline_ms > 0.0 && !self.debug
    }

    /// The quotas of every instance: the defaults, with `--quota` applied.
    pub fn quotas(&self) -> Quotas {
        let mut quotas = Quotas::default();
        for (name, value) in &self.quotas {
            quotas
                .set(name, *value)
                .expect("checked when the option was parsed");
        }
        quotas
    }

    /// What happens to a failed instance.
    pub fn restart_policy(&self) -> RestartPolicy {
        RestartPolicy {
            max_restarts: self.restart,
            backoff_frames: self.restart_backoff,
        }
    }
}

/// Loads (building where needed) one script given on the command line.
pub fn load_script(engine: &ScriptEngine, path: &std::path::Path) -> Result<ScriptComponent> {
    ScriptSource::new(path).and_then(|source| source.load(engine, BuildOutput::Inherit))
}

/// The built-in spinning-cube example.
pub fn default_script(engine: &ScriptEngine) -> Result<ScriptComponent> {
    tracing::info!("no script given; running the built-in spinning-cube example");
    engine.load_bytes(DEFAULT_SCRIPT_NAME, DEFAULT_SCRIPT)
}

/// Prints a failure to start or load a script, unless the runtime already
/// reported it (a trap in `entrypoint`).
pub fn report_failure(error: &anyhow::Error) {
    if error
        .chain()
        .all(|cause| cause.downcast_ref::<ScriptError>().is_none())
    {
        eprintln!("error: {error:#}");
    }
}
