//! [`RuntimeConfig`]: how a [`Runtime`](super::Runtime) runs.

use std::sync::Arc;

use super::dispatch::FramePool;
use super::restart::RestartPolicy;
use crate::determinism::DEFAULT_SEED;
use crate::grants::GrantPolicy;
use crate::jobs::{JobDelivery, JobWorkers};
use crate::limits::Quotas;
use crate::log::{LogSink, TracingLog};
use crate::players::OpenToPlayers;

/// How a [`Runtime`](super::Runtime) runs.
#[derive(Clone)]
pub struct RuntimeConfig {
    /// Frames per second of game time (the fixed timestep is `1 / hz`).
    pub hz: f64,
    /// Where script log lines go.
    pub log: Arc<dyn LogSink>,
    /// Worker threads for background jobs (0: one per core), started with
    /// the first job; ignored when `job_workers` is set.
    pub job_threads: usize,
    /// Workers shared with other runtimes (a server's worlds share one set).
    pub job_workers: Option<JobWorkers>,
    /// When finished jobs reach scripts.
    pub jobs: JobDelivery,
    /// What each instance may make the host keep or do.
    pub quotas: Quotas,
    /// What happens to an instance that fails.
    pub restart: RestartPolicy,
    /// The world's seed: each instance's WASI random numbers are a stream
    /// keyed by it (see [`crate::determinism`]).
    pub seed: u64,
    /// Sample every instance's wasm stack on each CPU-deadline tick, for
    /// [`Runtime::take_profiles`](super::Runtime::take_profiles) (needs
    /// deadlines on; off: no cost).
    pub profile: bool,
    /// What each script may do (see [`crate::grants`]); empty: everything.
    /// Applied to every instance started (spawns, swaps, restarts).
    pub grants: GrantPolicy,
    /// Threads a frame runs its scripts' calls on (0: one per core; 1: the
    /// thread that calls [`Runtime::step`](super::Runtime::step)). The scene a frame leaves is
    /// the same for any number (see `docs/parallel-frames.md`). Ignored
    /// when `frame_pool` is set.
    pub frame_threads: usize,
    /// Frame threads shared with other runtimes (a server's worlds share
    /// one set).
    pub frame_pool: Option<FramePool>,
    /// Frames calling fewer instances than this run on the calling thread
    /// (handing them to the frame threads would cost more than it saves;
    /// the result is the same either way).
    pub min_parallel_tasks: usize,
    /// What players may send the world, and which of it also reaches
    /// ordinary event waits (nothing by default: see [`OpenToPlayers`]).
    pub open_to_players: OpenToPlayers,
    /// Bytes the world's scripts may send to players in one frame, all
    /// together (channel and payload): the message that goes past it is
    /// dropped, and the frame's biggest sender stopped, naming the quota.
    /// Each byte is one the server keeps for slow clients, so this bounds a
    /// world's memory for them.
    pub player_bytes_per_frame: usize,
}

/// [`RuntimeConfig::player_bytes_per_frame`]'s default: four of the
/// largest messages (64 KiB) a frame, 15 MiB/s at 60 Hz.
pub const DEFAULT_PLAYER_BYTES_PER_FRAME: usize = 256 << 10;

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            hz: 60.0,
            log: Arc::new(TracingLog),
            job_threads: 0,
            job_workers: None,
            jobs: JobDelivery::WhenReady,
            quotas: Quotas::default(),
            restart: RestartPolicy::default(),
            seed: DEFAULT_SEED,
            grants: GrantPolicy::default(),
            profile: false,
            frame_threads: 0,
            frame_pool: None,
            min_parallel_tasks: 64,
            open_to_players: OpenToPlayers::default(),
            player_bytes_per_frame: DEFAULT_PLAYER_BYTES_PER_FRAME,
        }
    }
}
