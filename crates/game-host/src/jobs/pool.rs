//! Worker threads for CPU-heavy work that scripts request, shared by every
//! job kind, and by every runtime given the same [`JobWorkers`].
//!
//! Each job is a boxed closure under a ticket. A worker runs it and hands
//! `(ticket, output)` back on the channel of the runtime's [`JobPool`] that
//! submitted it; the frame thread collects outputs at a frame boundary. A
//! job still in the queue can be withdrawn; one already running finishes.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::sync::LockExt;

/// What a job produced, as the pool carries it (each kind downcasts its own).
pub(crate) type Output = Box<dyn Any + Send>;

/// The work of one job, run once on a worker.
pub(crate) type Work = Box<dyn FnOnce() -> Output + Send>;

/// A job waiting for a worker.
struct Queued {
    /// The [`JobPool`] that submitted it.
    owner: u64,
    ticket: u64,
    work: Work,
    results: Sender<(u64, Output)>,
}

struct Queue {
    jobs: VecDeque<Queued>,
    shutdown: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

struct Workers {
    shared: Arc<Shared>,
    threads: usize,
    handles: Mutex<Vec<JoinHandle<()>>>,
    next_owner: AtomicU64,
}

/// Worker threads for background jobs, shared by any number of runtimes
/// (clones share the threads; the last one dropped stops them). A server
/// gives all of its worlds one set, sized to the machine, instead of a set
/// per world.
#[derive(Clone)]
pub struct JobWorkers {
    inner: Arc<Workers>,
}

impl JobWorkers {
    /// `threads` workers (0: one per available core), started on the first
    /// submitted job.
    pub fn new(threads: usize) -> Self {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        JobWorkers {
            inner: Arc::new(Workers {
                shared: Arc::new(Shared {
                    queue: Mutex::new(Queue {
                        jobs: VecDeque::new(),
                        shutdown: false,
                    }),
                    ready: Condvar::new(),
                }),
                threads,
                handles: Mutex::new(Vec::new()),
                next_owner: AtomicU64::new(0),
            }),
        }
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.inner.threads
    }

    /// Worker threads running now (0 until the first job).
    pub fn started(&self) -> usize {
        self.inner.handles.lock_unpoisoned().len()
    }

    fn ensure_started(&self) {
        let mut handles = self.inner.handles.lock_unpoisoned();
        if !handles.is_empty() {
            return;
        }
        for index in 0..self.inner.threads {
            let shared = self.inner.shared.clone();
            let worker = std::thread::Builder::new()
                .name(format!("job-worker-{index}"))
                .spawn(move || worker_loop(&shared))
                .expect("failed to start a job worker thread");
            handles.push(worker);
        }
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.inner.shared.queue.lock_unpoisoned()
    }
}

impl std::fmt::Debug for JobWorkers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JobWorkers({} threads)", self.inner.threads)
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        {
            let mut queue = self.shared.queue.lock_unpoisoned();
            queue.shutdown = true;
            queue.jobs.clear();
        }
        self.shared.ready.notify_all();
        for worker in self.handles.lock_unpoisoned().drain(..) {
            let _ = worker.join();
        }
    }
}

/// One runtime's view of the workers: its own jobs and their results.
pub(crate) struct JobPool {
    workers: JobWorkers,
    owner: u64,
    results_tx: Sender<(u64, Output)>,
    results: Receiver<(u64, Output)>,
}

impl JobPool {
    /// A pool over `workers`.
    pub fn new(workers: JobWorkers) -> Self {
        let owner = workers.inner.next_owner.fetch_add(1, Ordering::Relaxed);
        let (results_tx, results) = channel();
        JobPool {
            workers,
            owner,
            results_tx,
            results,
        }
    }

    /// Queues `work` under `ticket`.
    pub fn submit(&mut self, ticket: u64, work: Work) {
        self.workers.ensure_started();
        self.workers.queue().jobs.push_back(Queued {
            owner: self.owner,
            ticket,
            work,
            results: self.results_tx.clone(),
        });
        self.workers.inner.shared.ready.notify_one();
    }

    /// Removes a job that has not started yet; returns whether it was queued.
    pub fn withdraw(&self, ticket: u64) -> bool {
        let mut queue = self.workers.queue();
        let owner = self.owner;
        match queue
            .jobs
            .iter()
            .position(|job| job.owner == owner && job.ticket == ticket)
        {
            Some(index) => {
                queue.jobs.remove(index);
                true
            }
            None => false,
        }
    }

    /// A finished job, without waiting.
    pub fn try_result(&self) -> Option<(u64, Output)> {
        self.results.try_recv().ok()
    }

    /// The next finished job, waiting for it.
    pub fn wait_result(&self) -> Option<(u64, Output)> {
        self.results.recv().ok()
    }
}

impl Drop for JobPool {
    /// Withdraws this pool's queued jobs: nobody will take their results.
    fn drop(&mut self) {
        let owner = self.owner;
        self.workers.queue().jobs.retain(|job| job.owner != owner);
    }
}

fn worker_loop(shared: &Shared) {
    loop {
        let job = {
            let mut queue = shared.queue.lock_unpoisoned();
            loop {
                if queue.shutdown {
                    return;
                }
                if let Some(job) = queue.jobs.pop_front() {
                    break job;
                }
                queue = shared
                    .ready
                    .wait(queue)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
        };
        // The runtime that asked may be gone; the workers serve others.
        let _ = job.results.send((job.ticket, (job.work)()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_jobs_and_withdraws_queued_ones() {
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let mut pool = JobPool::new(JobWorkers::new(1));
        for n in 1..=3u32 {
            let gate = gate.clone();
            pool.submit(
                u64::from(n),
                Box::new(move || {
                    let (open, cv) = &*gate;
                    let mut open = open.lock().unwrap();
                    while !*open {
                        open = cv.wait(open).unwrap();
                    }
                    Box::new(n * 2)
                }),
            );
        }
        // Job 1 may already be running on the single worker; 3 is queued.
        assert!(pool.withdraw(3));
        assert!(!pool.withdraw(3));
        {
            let (open, cv) = &*gate;
            *open.lock().unwrap() = true;
            cv.notify_all();
        }
        let mut results: Vec<(u64, u32)> = (0..2)
            .map(|_| {
                let (ticket, output) = pool.wait_result().unwrap();
                (ticket, *output.downcast::<u32>().unwrap())
            })
            .collect();
        results.sort();
        assert_eq!(results, [(1, 2), (2, 4)]);
        assert!(pool.try_result().is_none());
    }
}

#[cfg(test)]
mod shared_tests {
    use super::*;

    #[test]
    fn pools_share_workers_and_keep_their_own_results() {
        let workers = JobWorkers::new(2);
        let mut a = JobPool::new(workers.clone());
        let mut b = JobPool::new(workers.clone());
        assert_eq!(workers.started(), 0, "workers start with the first job");
        a.submit(1, Box::new(|| Box::new("a1")));
        b.submit(1, Box::new(|| Box::new("b1")));
        let a1 = a.wait_result().unwrap();
        let b1 = b.wait_result().unwrap();
        assert_eq!((a1.0, *a1.1.downcast::<&str>().unwrap()), (1, "a1"));
        assert_eq!((b1.0, *b1.1.downcast::<&str>().unwrap()), (1, "b1"));
        assert_eq!(workers.started(), 2);
        // A pool that goes away leaves the workers to the others.
        drop(a);
        b.submit(2, Box::new(|| Box::new("b2")));
        assert_eq!(b.wait_result().unwrap().0, 2);
    }
}
