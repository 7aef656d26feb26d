//! The runtime's side of background jobs: one table per registered kind
//! (who waits for which key, what is queued, what is done) over one shared
//! worker pool.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{Result, bail};

use super::pool::{JobPool, JobWorkers, Output, Work};
use super::{ErasedKey, Job, JobDelivery, JobKindId, JobOutputs, JobRegistry, JobStats, WaitKey};

/// Jobs finished at a frame boundary: `(kind, job, waiters)`, in the order
/// of the jobs' first requests.
pub(crate) type Delivered = Vec<(JobKindId, u64, Vec<WaitKey>)>;

/// One job: a key and who waits for it.
struct Entry<K> {
    key: K,
    waiters: Vec<WaitKey>,
    /// Handed to the pool and not back yet.
    queued: bool,
}

/// The table of one kind, behind a trait object so the runtime holds kinds
/// of different key and output types side by side.
trait KindTable: Send {
    /// Registers `waiter` for `key` under a job (a new one gets `new_id`);
    /// returns the job id, and the work to queue if the key must be run.
    fn request(
        &mut self,
        waiter: WaitKey,
        key: Box<dyn Any + Send>,
        new_id: u64,
    ) -> Result<(u64, Option<Work>)>;
    /// Forgets `waiter`; returns whether the job is queued with nobody left
    /// waiting for it (so it should leave the pool's queue).
    fn withdraw(&mut self, waiter: WaitKey, job: u64) -> bool;
    /// Drops a job withdrawn from the pool's queue.
    fn drop_queued(&mut self, job: u64);
    /// Takes a finished job's output.
    fn finish(&mut self, job: u64, output: Output);
    /// Moves the jobs ready for delivery into `out`.
    fn take_ready(&mut self, kind: JobKindId, out: &mut Delivered);
    /// `job KEY`, for wait listings.
    fn describe(&self, job: u64) -> String;
    #[cfg_attr(
        not(any(test, feature = "test-util")),
        expect(dead_code, reason = "read by the test hooks of `Inspect`")
    )]
    fn stats(&self) -> JobStats;
}

struct Table<J: Job> {
    job: Arc<J>,
    outputs: Arc<JobOutputs<J>>,
    by_key: HashMap<J::Key, u64>,
    entries: HashMap<u64, Entry<J::Key>>,
    /// Jobs whose output is in the cache and whose waiters are woken at the
    /// next boundary.
    ready: Vec<u64>,
    stats: JobStats,
}

impl<J: Job> KindTable for Table<J> {
    fn request(
        &mut self,
        waiter: WaitKey,
        key: Box<dyn Any + Send>,
        new_id: u64,
    ) -> Result<(u64, Option<Work>)> {
        let Ok(key) = key.downcast::<J::Key>() else {
            bail!(
                "a `{}` job was requested with a key of another type",
                J::NAME
            );
        };
        let key = *key;
        self.stats.requests += 1;
        if let Some(&id) = self.by_key.get(&key) {
            self.stats.shared += 1;
            if let Some(entry) = self.entries.get_mut(&id) {
                entry.waiters.push(waiter);
            }
            return Ok((id, None));
        }
        self.by_key.insert(key.clone(), new_id);
        let cached = self.outputs.contains(&key);
        let work = if cached {
            self.stats.shared += 1;
            self.ready.push(new_id);
            None
        } else {
            let job = self.job.clone();
            let run_key = key.clone();
            let work: Work = Box::new(move || Box::new(job.run(&run_key)));
            Some(work)
        };
        self.entries.insert(
            new_id,
            Entry {
                key,
                waiters: vec![waiter],
                queued: !cached,
            },
        );
        Ok((new_id, work))
    }

    fn withdraw(&mut self, waiter: WaitKey, job: u64) -> bool {
        let Some(entry) = self.entries.get_mut(&job) else {
            return false;
        };
        entry.waiters.retain(|w| *w != waiter);
        entry.waiters.is_empty() && entry.queued
    }

    fn drop_queued(&mut self, job: u64) {
        if let Some(entry) = self.entries.remove(&job) {
            self.by_key.remove(&entry.key);
            self.stats.withdrawn += 1;
        }
    }

    fn finish(&mut self, job: u64, output: Output) {
        let Some(entry) = self.entries.get_mut(&job) else {
            return;
        };
        entry.queued = false;
        if let Ok(output) = output.downcast::<J::Output>() {
            self.outputs.insert(entry.key.clone(), *output);
            self.stats.generated += 1;
        }
        self.ready.push(job);
    }

    fn take_ready(&mut self, kind: JobKindId, out: &mut Delivered) {
        for job in self.ready.drain(..) {
            if let Some(entry) = self.entries.remove(&job) {
                self.by_key.remove(&entry.key);
                out.push((kind, job, entry.waiters));
            }
        }
    }

    fn describe(&self, job: u64) -> String {
        match self.entries.get(&job) {
            Some(entry) => format!("job {}", entry.key),
            None => format!("job {} #{job}", J::NAME),
        }
    }

    fn stats(&self) -> JobStats {
        self.stats
    }
}

/// Every job kind of a runtime over one worker pool.
pub(crate) struct Jobs {
    pool: JobPool,
    delivery: JobDelivery,
    registry: Arc<JobRegistry>,
    kinds: Vec<Box<dyn KindTable>>,
    /// Jobs handed to the pool and not back yet, with their kind.
    queued: HashMap<u64, JobKindId>,
    /// The last job id handed out; ids grow in request order.
    last_id: u64,
}

impl Jobs {
    pub fn new(workers: JobWorkers, delivery: JobDelivery) -> Self {
        Jobs {
            pool: JobPool::new(workers),
            delivery,
            registry: Arc::default(),
            kinds: Vec::new(),
            queued: HashMap::new(),
            last_id: 0,
        }
    }

    /// The registry the runtime shares with its instances.
    pub fn registry(&self) -> &Arc<JobRegistry> {
        &self.registry
    }

    /// Registers kind `J`, run by `job`.
    pub fn register<J: Job>(&mut self, job: J) -> Result<()> {
        let Some((_, outputs)) = self.registry.register::<J>() else {
            bail!("job kind `{}` is registered already", J::NAME);
        };
        self.kinds.push(Box::new(Table {
            job: Arc::new(job),
            outputs,
            by_key: HashMap::new(),
            entries: HashMap::new(),
            ready: Vec::new(),
            stats: JobStats::default(),
        }));
        Ok(())
    }

    /// Registers a request of `waiter` for `key` of `kind`; queues the work
    /// unless it is done or under way. Returns the job id.
    pub fn request(&mut self, waiter: WaitKey, kind: JobKindId, key: ErasedKey) -> Result<u64> {
        let table = self
            .kinds
            .get_mut(kind as usize)
            .ok_or_else(|| anyhow::anyhow!("no job kind #{kind}"))?;
        let (job, work) = table.request(waiter, key.0, self.last_id + 1)?;
        if job > self.last_id {
            self.last_id = job;
        }
        if let Some(work) = work {
            self.queued.insert(job, kind);
            self.pool.submit(job, work);
        }
        Ok(job)
    }

    /// Forgets `waiter`'s request; drops the queued work if nobody else
    /// waits for it.
    pub fn withdraw(&mut self, waiter: WaitKey, kind: JobKindId, job: u64) {
        let Some(table) = self.kinds.get_mut(kind as usize) else {
            return;
        };
        if table.withdraw(waiter, job) && self.pool.withdraw(job) {
            self.queued.remove(&job);
            table.drop_queued(job);
        }
    }

    /// Collects finished work and returns the jobs to deliver, in request
    /// order. In lockstep, waits for every queued job first.
    pub fn deliver(&mut self) -> Delivered {
        // Results only come for queued jobs: most frames poll nothing.
        while !self.queued.is_empty() {
            let next = match self.delivery {
                JobDelivery::Lockstep if !self.queued.is_empty() => self.pool.wait_result(),
                _ => self.pool.try_result(),
            };
            let Some((job, output)) = next else { break };
            if let Some(kind) = self.queued.remove(&job) {
                self.kinds[kind as usize].finish(job, output);
            }
        }
        let mut delivered = Vec::new();
        for (kind, table) in self.kinds.iter_mut().enumerate() {
            table.take_ready(kind as JobKindId, &mut delivered);
        }
        delivered.sort_by_key(|(_, job, _)| *job);
        delivered
    }

    /// `job KEY`, for wait listings.
    pub fn describe(&self, kind: JobKindId, job: u64) -> String {
        self.kinds
            .get(kind as usize)
            .map_or_else(|| format!("job #{job}"), |t| t.describe(job))
    }

    /// Counters of kind `J`, if registered.
    #[cfg_attr(
        not(any(test, feature = "test-util")),
        expect(dead_code, reason = "read by the test hooks of `Inspect`")
    )]
    pub fn stats_of<J: Job>(&self) -> Option<JobStats> {
        let kind = self.registry.kind_of::<J>()?;
        Some(self.kinds[kind as usize].stats())
    }

    /// Counters summed over every kind.
    #[cfg_attr(
        not(any(test, feature = "test-util")),
        expect(dead_code, reason = "read by the test hooks of `Inspect`")
    )]
    pub fn stats(&self) -> JobStats {
        let mut total = JobStats::default();
        for table in &self.kinds {
            total += table.stats();
        }
        total
    }
}
