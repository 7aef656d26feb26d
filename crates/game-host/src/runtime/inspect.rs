//! Read-only views of a [`Runtime`] for tools, tests and the CLI: instances,
//! waits, jobs, errors and the scene.

use std::sync::Arc;

use uuid::Uuid;

use super::Runtime;
use super::waits::{PendingWait, WaitStats};
use crate::error::ScriptError;
use crate::guest::instance::InstanceInfo;
use crate::jobs::{Job, JobOutputs, JobStats};
use crate::scene::SceneDump;
use crate::sync::LockExt;

impl Runtime {
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
