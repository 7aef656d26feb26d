//! A world: one battle, match or room. A [`Runtime`] (its own scene and its
//! own script instances) plus what its loop thread tracks about it.

use std::fmt;
use std::time::Duration;

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::config::{ServerConfig, WorldSpec};
use super::durable::{Durable, Manifest};
use super::keeping::Keeping;
use super::stream::{
    DEFAULT_PRECISION, PlayerViews, SceneTracker, Seats, StreamSettings, WorldHub,
};
use game_host::GrantFile;
use game_host::determinism::world_seed;
use game_host::players::OpenToPlayers;
use game_host::record::{RunSettings, Suspender};
use game_host::runtime::{RestartPolicy, Runtime, RuntimeConfig};
use game_host::scene::SceneDump;

/// Names a world for as long as the server runs (never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct WorldId(pub u64);

impl fmt::Display for WorldId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "world {}", self.0)
    }
}

/// Why [`Server::start_world`](super::Server::start_world) started no
/// world. Every check a new world goes through gives one of these, so a
/// caller (the HTTP surface, the CLI) decides by kind, not by asking again.
#[derive(Debug)]
pub enum StartError {
    /// The world cannot start as asked: it has no script or no frame to
    /// run, or a script failed to start. Asking again will not help.
    Invalid(anyhow::Error),
    /// The server takes no new world now: it is draining, or full (past
    /// `max_worlds` or its instance pool). The same world may start later.
    Unavailable(anyhow::Error),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Invalid(error) | StartError::Unavailable(error) => write!(f, "{error:#}"),
        }
    }
}

impl std::error::Error for StartError {}

/// Why a world ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EndReason {
    /// It ran the frames it was started for.
    Finished,
    /// [`Server::stop_world`](super::Server::stop_world) stopped it.
    Stopped,
    /// The server shut down.
    ServerStopped,
    /// Every script instance in it failed, with no restart pending.
    ScriptsFailed,
    /// Its frames took longer than its budget `frames` times in a row.
    Overran {
        budget_ms: f64,
        frames: u32,
        last_ms: f64,
    },
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndReason::Finished => f.write_str("finished its frames"),
            EndReason::Stopped => f.write_str("stopped"),
            EndReason::ServerStopped => f.write_str("the server stopped"),
            EndReason::ScriptsFailed => f.write_str("every script in it failed"),
            EndReason::Overran {
                budget_ms,
                frames,
                last_ms,
            } => write!(
                f,
                "overran its budget of {budget_ms:.2} ms in {frames} frames in a row \
                 (the last took {last_ms:.2} ms); stopped so the other worlds on its \
                 thread keep their frame rate"
            ),
        }
    }
}

/// A world that ended, as its loop thread left it.
#[derive(Debug, Clone, Serialize)]
pub struct WorldReport {
    pub id: WorldId,
    /// The loop thread it ran on.
    pub thread: usize,
    /// Frames it ran; its first frame was frame 1.
    pub frames: u64,
    pub reason: EndReason,
    /// One line per script failure, oldest first.
    pub errors: Vec<String>,
    /// Its scene after its last frame.
    pub scene: SceneDump,
}

/// A running world, as [`Server::worlds`](super::Server::worlds) lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorldStatus {
    pub id: WorldId,
    pub thread: usize,
    /// Frames run so far.
    pub frame: u64,
    pub instances: usize,
    pub script_errors: usize,
    /// Players admitted.
    pub players: usize,
    /// Time its last frame took, in milliseconds.
    pub last_frame_ms: f64,
}

/// A world on its loop thread.
pub(super) struct World {
    pub id: WorldId,
    pub runtime: Runtime,
    /// End after this many frames.
    pub frames: Option<u64>,
    /// Frames in a row over the world budget.
    overrun_streak: u32,
    /// Script errors already counted.
    errors_seen: usize,
    /// Lost writes already counted.
    lost_writes_seen: u64,
    pub last_cost: Duration,
    /// Its players and their clients.
    pub hub: Arc<WorldHub>,
    /// What its clients were last sent of the scene.
    tracker: SceneTracker,
    /// What each connected player saw at the last published frame.
    views: PlayerViews,
    /// For a world kept in a state directory: what suspends it (rather
    /// than end it) when the server stops, so that it resumes.
    suspender: Option<Suspender>,
}

/// Most frames between two stream updates a world may ask for (a minute
/// at 60 Hz).
pub(crate) const MAX_STREAM_EVERY: u32 = 3600;

/// Refuses a stream precision out of its range (1e-6 to 1 world units).
pub(crate) fn check_precision(precision: f32) -> Result<()> {
    if !(1e-6..=1.0).contains(&precision) {
        bail!("`stream_precision` must be from 1e-6 to 1 (world units), not {precision}");
    }
    Ok(())
}

/// What one frame of a world came to.
pub(super) struct Stepped {
    /// New script errors in the frame.
    pub new_errors: usize,
    /// Writes lost in the frame to another script's write of the same
    /// field.
    pub new_lost_writes: u64,
    /// Set when the world ends after this frame.
    pub end: Option<EndReason>,
}

impl World {
    /// World `id` of a server with `config`, its scripts started: its own
    /// runtime, seeded with the spec's seed or one derived from the
    /// server's, set up, and recorded if the server records worlds, or kept
    /// in its state directory if it has one (`durable`).
    pub fn start(
        id: WorldId,
        spec: &WorldSpec,
        config: &ServerConfig,
        durable: Option<&Durable>,
    ) -> Result<Self> {
        let every = spec.stream_every.unwrap_or(config.stream_every);
        if !(1..=MAX_STREAM_EVERY).contains(&every) {
            bail!("`stream_every` must be from 1 to {MAX_STREAM_EVERY} frames, not {every}");
        }
        let precision = spec.stream_precision.unwrap_or(DEFAULT_PRECISION);
        check_precision(precision)?;
        let seed = spec
            .seed
            .unwrap_or_else(|| world_seed(config.runtime.seed, id.0));
        let open_to_players = spec
            .open_to_players
            .clone()
            .unwrap_or_else(|| config.runtime.open_to_players.clone());
        let mut runtime = world_runtime(
            config,
            seed,
            spec.grants.as_ref(),
            &open_to_players,
            config.runtime.restart,
            config.runtime.player_bytes_per_frame,
        )?;
        for script in &spec.scripts {
            runtime
                .spawn(script)
                .with_context(|| format!("{id} could not start script `{}`", script.name()))?;
        }
        let scripts: Vec<_> = spec.scripts.iter().map(|s| (s.clone(), 1)).collect();
        let settings = RunSettings {
            hz: config.runtime.hz,
            seed,
            checkpoint_every: config.checkpoint_every,
            canonical_nans: config.canonical_nans,
            open_to_players: open_to_players.clone(),
            player_bytes_per_frame: config.runtime.player_bytes_per_frame,
        };
        let manifest = Manifest {
            id: id.0,
            frames: spec.frames,
            stream_every: every,
            stream_precision: (precision != DEFAULT_PRECISION).then_some(precision),
            grants: spec.grants.clone(),
            max_restarts: config.runtime.restart.max_restarts,
            backoff_frames: config.runtime.restart.backoff_frames,
            play: spec.play.clone(),
        };
        let kept = Keeping::start(id.0, config, durable, &manifest, &settings, &scripts)?
            .keep(&mut runtime);
        let hub = WorldHub::with_seats(
            StreamSettings {
                every,
                precision,
                kept_bytes: config.stream_kept_bytes,
            },
            config.max_players,
            (
                spec.play.clone(),
                spec.scripts.iter().map(|s| s.digest_hex()).collect(),
            ),
            open_to_players,
            (Seats::default(), kept.seat_log),
            Vec::new(),
        );
        Ok(World::new(id, runtime, spec.frames, hub, kept.suspender))
    }

    /// World `id` of `runtime` (its scripts started, or its log replayed),
    /// with `hub` for its players, kept by a journal that `suspender`
    /// suspends if it is kept in a state directory.
    pub(crate) fn new(
        id: WorldId,
        runtime: Runtime,
        frames: Option<u64>,
        hub: Arc<WorldHub>,
        suspender: Option<Suspender>,
    ) -> Self {
        let errors_seen = runtime.inspect().errors().len();
        let lost_writes_seen = runtime.inspect().lost_writes();
        World {
            id,
            runtime,
            frames,
            overrun_streak: 0,
            errors_seen,
            lost_writes_seen,
            last_cost: Duration::ZERO,
            hub,
            tracker: SceneTracker::default(),
            views: PlayerViews::default(),
            suspender,
        }
    }

    /// Runs one frame: the players' events go in first, and what the frame
    /// changed goes out to their clients after.
    pub fn step(&mut self) {
        self.hub.deliver(&mut self.runtime);
        self.runtime.step();
        self.hub
            .publish(&mut self.runtime, &mut self.tracker, &mut self.views);
    }

    /// Accounts for a frame that took `cost`, against a budget per world
    /// that may be overrun at most `overrun_frames - 1` frames in a row.
    pub fn stepped(&mut self, cost: Duration, budget: Duration, overrun_frames: u32) -> Stepped {
        self.last_cost = cost;
        let errors = self.runtime.inspect().errors().len();
        let new_errors = errors - self.errors_seen;
        self.errors_seen = errors;
        let lost_writes = self.runtime.inspect().lost_writes();
        let new_lost_writes = lost_writes - self.lost_writes_seen;
        self.lost_writes_seen = lost_writes;
        self.overrun_streak = if cost > budget {
            self.overrun_streak + 1
        } else {
            0
        };
        let end = if self.frames.is_some_and(|n| self.runtime.frame() >= n) {
            Some(EndReason::Finished)
        } else if self.runtime.inspect().live_instances() == 0
            && errors > 0
            && self.runtime.inspect().pending_restarts() == 0
        {
            Some(EndReason::ScriptsFailed)
        } else if self.overrun_streak >= overrun_frames {
            Some(EndReason::Overran {
                budget_ms: budget.as_secs_f64() * 1e3,
                frames: self.overrun_streak,
                last_ms: cost.as_secs_f64() * 1e3,
            })
        } else {
            None
        };
        Stepped {
            new_errors,
            new_lost_writes,
            end,
        }
    }

    pub fn status(&self, thread: usize) -> WorldStatus {
        WorldStatus {
            id: self.id,
            thread,
            frame: self.runtime.frame(),
            instances: self.runtime.inspect().live_instances(),
            script_errors: self.runtime.inspect().errors().len(),
            players: self.hub.players(),
            last_frame_ms: self.last_cost.as_secs_f64() * 1e3,
        }
    }

    /// Ends the world: its report (its instances go with the runtime).
    pub fn end(mut self, thread: usize, reason: EndReason) -> WorldReport {
        // A durable world the server stopped is suspended, not over: it
        // resumes at the next start, and its players' clients are told to
        // come back.
        let resumes = reason == EndReason::ServerStopped && self.suspender.is_some();
        if let (true, Some(suspender)) = (resumes, &self.suspender) {
            suspender.suspend();
        }
        if let Err(error) = self.runtime.finish_observing() {
            tracing::warn!("{}: {error:#}", self.id);
        }
        self.hub
            .end(self.runtime.frame(), &reason.to_string(), resumes);
        WorldReport {
            id: self.id,
            thread,
            frames: self.runtime.frame(),
            errors: self
                .runtime
                .inspect()
                .errors()
                .iter()
                .map(ToString::to_string)
                .collect(),
            scene: self.runtime.inspect().dump(),
            reason,
        }
    }
}

/// A world's runtime on a server with `config`: seeded with `seed`, its
/// grants the server's narrowed by `grants`, open to players as `open`,
/// restarting failed instances by `restart`, sending players at most
/// `player_bytes_per_frame` a frame.
pub(crate) fn world_runtime(
    config: &ServerConfig,
    seed: u64,
    grants: Option<&GrantFile>,
    open: &OpenToPlayers,
    restart: RestartPolicy,
    player_bytes_per_frame: usize,
) -> Result<Runtime> {
    let grants = match grants {
        Some(file) => config
            .runtime
            .grants
            .clone()
            .narrowed(file.clone())
            .map_err(|error| anyhow::anyhow!("bad grants: {error}"))?,
        None => config.runtime.grants.clone(),
    };
    Ok(Runtime::new(RuntimeConfig {
        seed,
        grants,
        open_to_players: open.clone(),
        restart,
        player_bytes_per_frame,
        ..config.runtime.clone()
    }))
}
