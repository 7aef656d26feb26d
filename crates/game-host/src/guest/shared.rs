//! [`RuntimeShared`]: what the instances of one runtime share with it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::players::{FrameCommands, Roster};
use super::turns::Turns;
use crate::determinism::DEFAULT_SEED;
use crate::jobs::JobRegistry;
use crate::limits::Quotas;
use crate::log::{LogSink, MemoryLog};
use crate::scene::{Scene, SharedScene};
use crate::time::FrameClock;

/// What every instance of one runtime shares.
#[derive(Clone)]
pub(crate) struct RuntimeShared {
    pub scene: SharedScene,
    pub log: Arc<dyn LogSink>,
    /// The runtime's job kinds and their outputs.
    pub jobs: Arc<JobRegistry>,
    /// What each instance may make the host keep or do.
    pub quotas: Quotas,
    /// The runtime's frame clock, which the instances read (the WIT frame
    /// functions, WASI clocks and timers, log lines).
    pub clock: FrameClock,
    /// The world's seed, which the instances' WASI random numbers come from.
    pub seed: u64,
    /// Instances made so far (each one's random numbers are keyed by its
    /// place in this order).
    pub made: Arc<AtomicU64>,
    /// The players in the world.
    pub players: Arc<Roster>,
    /// The players' commands the frame applies (`controls`).
    pub commands: Arc<FrameCommands>,
    /// Whether each instance's stacks are sampled (see `guest::profile`).
    pub profile: bool,
    /// Where the frame's workers are (see `guest::turns`).
    pub turns: Arc<Turns>,
}

impl RuntimeShared {
    /// The next instance's place among those of this runtime, which its
    /// random numbers are keyed by: taken on the runtime's thread, in the
    /// order its scripts start, wherever the instance is then made.
    pub fn next_ordinal(&self) -> u64 {
        self.made.fetch_add(1, Ordering::Relaxed)
    }

    /// Whether `other` is this runtime's.
    pub fn same_runtime(&self, other: &RuntimeShared) -> bool {
        Arc::ptr_eq(&self.made, &other.made)
    }

    /// Shared data of no runtime, for throwaway instances.
    pub fn detached() -> Self {
        RuntimeShared {
            scene: Scene::new().shared(),
            log: Arc::new(MemoryLog::new()),
            clock: FrameClock::new(60.0),
            jobs: Arc::default(),
            quotas: Quotas::default(),
            seed: DEFAULT_SEED,
            made: Arc::default(),
            players: Arc::default(),
            commands: Arc::default(),
            profile: false,
            turns: Arc::new(Turns::new(1)),
        }
    }
}
