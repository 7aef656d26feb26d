//! [`Inspect`]: a [`Runtime`] as tools, servers and the CLI look at it
//! (`runtime.inspect()`): instances, waits, errors, the scene, each
//! script's time. What only tests and benchmarks look at (counters of
//! waits and jobs, the dispatch order) is there too with the `test-util`
//! feature, as tokio keeps its test hooks. Taking the profiles, which
//! changes the runtime, stays on it.

use uuid::Uuid;

use super::Runtime;
use super::ScriptTime;
use super::waits::PendingWait;
#[cfg(any(test, feature = "test-util"))]
use super::waits::WaitStats;
use crate::error::ScriptError;
use crate::guest::ScriptProfile;
use crate::guest::instance::InstanceInfo;
#[cfg(any(test, feature = "test-util"))]
use crate::jobs::{Job, JobOutputs, JobStats};
use crate::scene::SceneDump;
use crate::sync::LockExt;
#[cfg(any(test, feature = "test-util"))]
use std::sync::Arc;

impl Runtime {
    /// The runtime as tools look at it.
    pub fn inspect(&self) -> Inspect<'_> {
        Inspect { runtime: self }
    }

    /// Takes the profiles (with
    /// [`RuntimeConfig::profile`](super::RuntimeConfig::profile); none
    /// without): those of instances that are gone (failed, removed, swapped
    /// out), then the running ones', which are no longer sampled. Each is
    /// written with [`ScriptProfile::write`].
    pub fn take_profiles(&mut self) -> Vec<ScriptProfile> {
        let mut profiles = std::mem::take(&mut self.profiles);
        profiles.extend(
            (0..self.slots.capacity()).filter_map(|slot| self.slots.get_mut(slot)?.take_profile()),
        );
        profiles
    }
}

/// A [`Runtime`], looked at (see [`Runtime::inspect`]).
pub struct Inspect<'a> {
    runtime: &'a Runtime,
}

impl<'a> Inspect<'a> {
    /// Threads a frame runs its scripts' calls on
    /// ([`RuntimeConfig::frame_threads`](super::RuntimeConfig::frame_threads)).
    pub fn frame_threads(&self) -> usize {
        self.runtime.dispatch.threads()
    }

    /// How long each script's calls have taken (updates and wakes, all its
    /// instances together): totals, and the median and 99th percentile per
    /// frame; the most time first. Always kept (a clock read per call).
    pub fn script_times(&self) -> Vec<ScriptTime> {
        self.runtime.times.report()
    }

    /// Calls `f` with each script called in the last frame and the seconds
    /// its calls took (cheap: for metrics fed every frame).
    pub fn last_frame_times(&self, f: impl FnMut(&str, f64)) {
        self.runtime.times.for_each_last_frame(f);
    }

    /// The pending waits of an instance, by token.
    pub fn pending_waits(&self, id: Uuid) -> Vec<PendingWait> {
        let describe_job = |kind, job| self.runtime.jobs.describe(kind, job);
        self.runtime
            .slots
            .slot_of(id)
            .map(|slot| self.runtime.waits.list(slot, &describe_job))
            .unwrap_or_default()
    }

    /// Counters of waits registered, completed and cancelled, and the
    /// waits pending now over all instances.
    #[cfg(any(test, feature = "test-util"))]
    pub fn wait_stats(&self) -> WaitStats {
        WaitStats {
            pending: self.runtime.waits.len(),
            ..self.runtime.waits.stats()
        }
    }

    /// Counters of background jobs, summed over every job kind.
    #[cfg(any(test, feature = "test-util"))]
    pub fn job_stats(&self) -> JobStats {
        self.runtime.jobs.stats()
    }

    /// Counters of the jobs of kind `J`, if it is registered.
    #[cfg(any(test, feature = "test-util"))]
    pub fn job_stats_of<J: Job>(&self) -> Option<JobStats> {
        self.runtime.jobs.stats_of::<J>()
    }

    /// The finished outputs of job kind `J`, if it is registered.
    #[cfg(any(test, feature = "test-util"))]
    pub fn job_outputs<J: Job>(&self) -> Option<Arc<JobOutputs<J>>> {
        self.runtime.jobs.registry().outputs::<J>()
    }

    /// The scene as `--dump-scene` writes it.
    pub fn dump(&self) -> SceneDump {
        SceneDump::new(
            &mut *self.runtime.shared.scene.lock_unpoisoned(),
            self.runtime.frame(),
        )
    }

    /// Every script failure so far, oldest first.
    pub fn errors(&self) -> &'a [ScriptError] {
        &self.runtime.errors
    }

    /// Writes lost so far: a field of an entity that a later call of the
    /// same frame set too (each pair of instances and entity is also said
    /// once in the log).
    pub fn lost_writes(&self) -> u64 {
        self.runtime.lost_writes.count()
    }

    /// The world's budget of bytes sent to players per frame.
    pub fn player_bytes_per_frame(&self) -> usize {
        self.runtime.player_bytes_per_frame
    }

    /// Which of players' input reaches ordinary event waits.
    pub fn open_to_players(&self) -> &'a crate::players::OpenToPlayers {
        &self.runtime.open_to_players
    }

    /// Number of instances still running.
    pub fn live_instances(&self) -> usize {
        self.runtime.slots.iter().count()
    }

    /// Failed instances waiting for a restart under the [`RestartPolicy`](super::RestartPolicy).
    pub fn pending_restarts(&self) -> usize {
        self.runtime.restarts.len()
    }

    /// Whether instance `id` runs, or failed and waits for a restart under
    /// the [`RestartPolicy`](super::RestartPolicy).
    pub fn is_alive(&self, id: Uuid) -> bool {
        self.runtime.slots.slot_of(id).is_some() || self.runtime.restarts.contains(id)
    }

    /// The players in the world now, in the order they joined.
    pub fn players(&self) -> Vec<crate::players::PlayerId> {
        self.runtime.shared.players.list()
    }

    /// Which entities each player sees, and the components that stream
    /// with them, as scripts set them (`views`).
    pub fn views(&self) -> &'a crate::views::Views {
        &self.runtime.views
    }

    /// Snapshots of the running instances, in slot order.
    pub fn instances(&self) -> Vec<InstanceInfo> {
        self.runtime
            .slots
            .iter()
            .map(|(slot, instance)| {
                instance.info(
                    self.runtime.subscriptions.ids_of(slot),
                    self.runtime.waits.count(slot),
                )
            })
            .collect()
    }

    /// A snapshot of one instance.
    pub fn instance(&self, id: Uuid) -> Option<InstanceInfo> {
        let slot = self.runtime.slots.slot_of(id)?;
        let instance = self.runtime.slots.get(slot)?;
        Some(instance.info(
            self.runtime.subscriptions.ids_of(slot),
            self.runtime.waits.count(slot),
        ))
    }

    /// The dispatch order: `(instance id, message id)` per subscription.
    #[cfg(any(test, feature = "test-util"))]
    pub fn dispatch_order(&self) -> Vec<(Uuid, u32)> {
        self.runtime
            .subscriptions
            .iter()
            .filter_map(|s| Some((self.runtime.slots.get(s.slot)?.id(), s.id)))
            .collect()
    }
}
