//! Background jobs: CPU-heavy work that scripts request, run on a shared
//! worker pool and delivered to the waiting scripts at a frame boundary.
//!
//! A job *kind* is a type implementing [`Job`]: a key type (what is asked
//! for), an output type, and the function run on a worker. Kinds are
//! registered with the runtime (`Runtime::register_job`); the core knows
//! no kind by name. For every kind the runtime deduplicates requests by key
//! (requests for work already queued, running or done share it), delivers
//! in request order, withdraws queued work when every request for it is
//! cancelled, and keeps the latest outputs in a bounded [`JobOutputs`]
//! cache that scripts read through their kind's host functions.
//!
//! A kind reaches scripts through its own WIT interface, implemented on the
//! store data with `ScriptState::request_job` and `ScriptState::job_output`;
//! the terrain extension is one such kind. (This module sits below the
//! runtime and the store data, so it names them without linking.)

mod outputs;
mod pool;
mod table;

use std::any::{Any, TypeId};
use std::fmt;
use std::hash::Hash;
use std::sync::{Arc, RwLock};

use crate::sync::RwLockExt;

pub use outputs::JobOutputs;
pub use pool::JobWorkers;
pub(crate) use table::Jobs;

/// Who waits: `(instance slot, token)`, the key of every wait the runtime
/// keeps (a job's waiters are some of them); opaque to the jobs.
pub(crate) type WaitKey = (u32, u64);

/// A kind of background job.
pub trait Job: Send + Sync + 'static {
    /// What a script asks for; equal keys share one run.
    type Key: Clone + Eq + Hash + fmt::Display + Send + Sync + 'static;
    /// What a run produces; kept in the kind's [`JobOutputs`].
    type Output: Send + Sync + 'static;
    /// The kind's name, for errors and wait listings.
    const NAME: &'static str;
    /// Most outputs kept for scripts to read; the oldest go first.
    const OUTPUTS_KEPT: usize = 1024;

    /// Computes the output for `key`, on a worker thread.
    fn run(&self, key: &Self::Key) -> Self::Output;
}

/// When finished background jobs reach scripts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum JobDelivery {
    /// At the first frame boundary after they finish; the frame thread never
    /// waits (real-time play).
    #[default]
    WhenReady,
    /// Always at the next frame boundary after the request: the frame thread
    /// waits for outstanding jobs, so runs are reproducible frame for frame
    /// (headless simulation and tests).
    Lockstep,
}

/// Counters of job work over the life of a runtime, for one kind or summed
/// over all kinds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobStats {
    /// Requests made by scripts.
    pub requests: u64,
    /// Requests served by work already done or under way.
    pub shared: u64,
    /// Jobs run to completion.
    pub generated: u64,
    /// Queued jobs dropped because every request for them was withdrawn.
    pub withdrawn: u64,
}

impl std::ops::AddAssign for JobStats {
    fn add_assign(&mut self, other: JobStats) {
        self.requests += other.requests;
        self.shared += other.shared;
        self.generated += other.generated;
        self.withdrawn += other.withdrawn;
    }
}

/// Index of a registered job kind in its runtime.
pub(crate) type JobKindId = u32;

/// A job key on its way from a script's request to its kind's table.
pub(crate) struct ErasedKey(pub Box<dyn Any + Send>);

impl fmt::Debug for ErasedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ErasedKey(..)")
    }
}

struct Registered {
    type_id: TypeId,
    name: &'static str,
    /// `Arc<JobOutputs<J>>` of the kind.
    outputs: Arc<dyn Any + Send + Sync>,
}

/// The job kinds of one runtime and their output caches, shared by the
/// runtime and the store data of its instances.
#[derive(Default)]
pub(crate) struct JobRegistry {
    kinds: RwLock<Vec<Registered>>,
}

impl JobRegistry {
    /// Adds kind `J`; `None` if it is registered already.
    pub fn register<J: Job>(&self) -> Option<(JobKindId, Arc<JobOutputs<J>>)> {
        let mut kinds = self.kinds.write_unpoisoned();
        if kinds.iter().any(|k| k.type_id == TypeId::of::<J>()) {
            return None;
        }
        let outputs = Arc::new(JobOutputs::<J>::new(J::OUTPUTS_KEPT));
        let id = JobKindId::try_from(kinds.len()).expect("too many job kinds");
        kinds.push(Registered {
            type_id: TypeId::of::<J>(),
            name: J::NAME,
            outputs: outputs.clone(),
        });
        Some((id, outputs))
    }

    /// The id of kind `J`, if registered.
    pub fn kind_of<J: Job>(&self) -> Option<JobKindId> {
        self.kinds
            .read_unpoisoned()
            .iter()
            .position(|k| k.type_id == TypeId::of::<J>())
            .map(|index| index as JobKindId)
    }

    /// The output cache of kind `J`, if registered.
    pub fn outputs<J: Job>(&self) -> Option<Arc<JobOutputs<J>>> {
        let kinds = self.kinds.read_unpoisoned();
        let kind = kinds.iter().find(|k| k.type_id == TypeId::of::<J>())?;
        kind.outputs.clone().downcast().ok()
    }

    /// The names of the registered kinds, in registration order.
    pub fn names(&self) -> Vec<&'static str> {
        self.kinds
            .read_unpoisoned()
            .iter()
            .map(|k| k.name)
            .collect()
    }
}
