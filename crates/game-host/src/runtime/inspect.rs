//! Views of a [`Runtime`] for tools, tests and the CLI: instances, waits,
//! jobs, errors, the scene, each script's time and the profiles.

use std::sync::Arc;

use uuid::Uuid;

use super::Runtime;
use super::ScriptTime;
use super::waits::{PendingWait, WaitStats};
use crate::error::ScriptError;
use crate::guest::ScriptProfile;
use crate::guest::instance::InstanceInfo;
use crate::jobs::{Job, JobOutputs, JobStats};
use crate::scene::SceneDump;
use crate::sync::LockExt;

impl Runtime {
    /// Threads a frame runs its scripts' calls on
    /// ([`RuntimeConfig::frame_threads`](super::RuntimeConfig::frame_threads)).
    pub fn frame_threads(&self) -> usize {
        self.dispatch.threads()
    }

    /// How long each script's calls have taken (updates and wakes, all its
    /// instances together): totals, and the median and 99th percentile per
    /// frame; the most time first. Always kept (a clock read per call).
    pub fn script_times(&self) -> Vec<ScriptTime> {
        self.times.report()
    }

    /// Takes the profiles (with [`RuntimeConfig::profile`]; none without):
    /// those of instances that are gone (failed, removed, swapped out),
    /// then the running ones', which are no longer sampled. Each is
    /// written with [`ScriptProfile::write`].
    pub fn take_profiles(&mut self) -> Vec<ScriptProfile> {
        let mut profiles = std::mem::take(&mut self.profiles);
        profiles.extend(
            (0..self.slots.capacity()).filter_map(|slot| self.slots.get_mut(slot)?.take_profile()),
        );
        profiles
    }

    /// Calls `f` with each script called in the last frame and the seconds
    /// its calls took (cheap: for metrics fed every frame).
    pub fn last_frame_times(&self, f: impl FnMut(&str, f64)) {
        self.times.for_each_last_frame(f);
    }

    /// The pending waits of an instance, by token.
    pub fn pending_waits(&self, id: Uuid) -> Vec<PendingWait> {
        let describe_job = |kind, job| self.jobs.describe(kind, job);
        self.slots
            .slot_of(id)
            .map(|slot| self.waits.list(slot, &describe_job))
            .unwrap_or_default()
    }

    /// Counters of waits registered, completed and cancelled, and the
    /// waits pending now over all instances.
    pub fn wait_stats(&self) -> WaitStats {
        WaitStats {
            pending: self.waits.len(),
            ..self.waits.stats()
        }
    }

    /// Counters of background jobs, summed over every job kind.
    pub fn job_stats(&self) -> JobStats {
        self.jobs.stats()
    }

    /// Counters of the jobs of kind `J`, if it is registered.
    pub fn job_stats_of<J: Job>(&self) -> Option<JobStats> {
        self.jobs.stats_of::<J>()
    }

    /// The finished outputs of job kind `J`, if it is registered.
    pub fn job_outputs<J: Job>(&self) -> Option<Arc<JobOutputs<J>>> {
        self.jobs.registry().outputs::<J>()
    }

    /// The scene as `--dump-scene` writes it.
    pub fn dump(&self) -> SceneDump {
        SceneDump::new(&mut *self.shared.scene.lock_unpoisoned(), self.frame())
    }

    /// Every script failure so far, oldest first.
    pub fn errors(&self) -> &[ScriptError] {
        &self.errors
    }

    /// Writes lost so far: a field of an entity that a later call of the
    /// same frame set too (each pair of instances and entity is also said
    /// once in the log).
    pub fn lost_writes(&self) -> u64 {
        self.lost_writes.count()
    }

    /// The world's budget of bytes sent to players per frame.
    pub fn player_bytes_per_frame(&self) -> usize {
        self.player_bytes_per_frame
    }

    /// Which of players' input reaches ordinary event waits.
    pub fn open_to_players(&self) -> &crate::players::OpenToPlayers {
        &self.open_to_players
    }

    /// Number of instances still running.
    pub fn live_instances(&self) -> usize {
        self.slots.iter().count()
    }

    /// Failed instances waiting for a restart under the [`RestartPolicy`](super::RestartPolicy).
    pub fn pending_restarts(&self) -> usize {
        self.restarts.len()
    }

    /// Whether instance `id` runs, or failed and waits for a restart under
    /// the [`RestartPolicy`](super::RestartPolicy).
    pub fn is_alive(&self, id: Uuid) -> bool {
        self.slots.slot_of(id).is_some() || self.restarts.contains(id)
    }

    /// Snapshots of the running instances, in slot order.
    pub fn instances(&self) -> Vec<InstanceInfo> {
        self.slots
            .iter()
            .map(|(slot, instance)| {
                instance.info(self.subscriptions.ids_of(slot), self.waits.count(slot))
            })
            .collect()
    }

    /// A snapshot of one instance.
    pub fn instance(&self, id: Uuid) -> Option<InstanceInfo> {
        let slot = self.slots.slot_of(id)?;
        let instance = self.slots.get(slot)?;
        Some(instance.info(self.subscriptions.ids_of(slot), self.waits.count(slot)))
    }

    /// The dispatch order: `(instance id, message id)` per subscription.
    pub fn dispatch_order(&self) -> Vec<(Uuid, u32)> {
        self.subscriptions
            .iter()
            .filter_map(|s| Some((self.slots.get(s.slot)?.id(), s.id)))
            .collect()
    }
}
