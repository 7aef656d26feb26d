//! A pool of worker threads for CPU-heavy work that scripts request.
//!
//! Jobs are identified by a key. The pool runs `work(key)` on a worker
//! thread and hands `(key, result)` back to the frame thread, which collects
//! results at a frame boundary. A job still in the queue can be withdrawn;
//! one already running finishes.

use std::collections::VecDeque;
use std::hash::Hash;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

struct Queue<K> {
    jobs: VecDeque<K>,
    shutdown: bool,
}

struct Shared<K> {
    queue: Mutex<Queue<K>>,
    ready: Condvar,
}

pub(crate) struct JobPool<K, R> {
    shared: Arc<Shared<K>>,
    results_tx: Sender<(K, R)>,
    results: Receiver<(K, R)>,
    work: Arc<dyn Fn(K) -> R + Send + Sync>,
    threads: usize,
    workers: Vec<JoinHandle<()>>,
}

impl<K, R> JobPool<K, R>
where
    K: Send + Eq + Hash + Clone + 'static,
    R: Send + 'static,
{
    /// A pool of `threads` workers (0: one per available core), started on
    /// the first submitted job.
    pub fn new(threads: usize, work: impl Fn(K) -> R + Send + Sync + 'static) -> Self {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        let (results_tx, results) = channel();
        JobPool {
            shared: Arc::new(Shared {
                queue: Mutex::new(Queue {
                    jobs: VecDeque::new(),
                    shutdown: false,
                }),
                ready: Condvar::new(),
            }),
            results_tx,
            results,
            work: Arc::new(work),
            threads,
            workers: Vec::new(),
        }
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Queues a job.
    pub fn submit(&mut self, key: K) {
        if self.workers.is_empty() {
            self.start_workers();
        }
        self.lock().jobs.push_back(key);
        self.shared.ready.notify_one();
    }

    /// Removes a job that has not started yet; returns whether it was queued.
    pub fn withdraw(&self, key: &K) -> bool {
        let mut queue = self.lock();
        match queue.jobs.iter().position(|k| k == key) {
            Some(index) => {
                queue.jobs.remove(index);
                true
            }
            None => false,
        }
    }

    /// Finished jobs, without waiting.
    pub fn try_result(&self) -> Option<(K, R)> {
        self.results.try_recv().ok()
    }

    /// The next finished job, waiting for it.
    pub fn wait_result(&self) -> Option<(K, R)> {
        self.results.recv().ok()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue<K>> {
        self.shared.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn start_workers(&mut self) {
        for index in 0..self.threads {
            let shared = self.shared.clone();
            let results = self.results_tx.clone();
            let work = self.work.clone();
            let worker = std::thread::Builder::new()
                .name(format!("job-worker-{index}"))
                .spawn(move || worker_loop(&shared, &results, &*work))
                .expect("failed to start a job worker thread");
            self.workers.push(worker);
        }
    }
}

fn worker_loop<K, R>(shared: &Shared<K>, results: &Sender<(K, R)>, work: &dyn Fn(K) -> R)
where
    K: Clone,
{
    loop {
        let key = {
            let mut queue = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if queue.shutdown {
                    return;
                }
                if let Some(key) = queue.jobs.pop_front() {
                    break key;
                }
                queue = shared.ready.wait(queue).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result = work(key.clone());
        if results.send((key, result)).is_err() {
            return;
        }
    }
}

impl<K, R> Drop for JobPool<K, R> {
    fn drop(&mut self) {
        {
            let mut queue = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            queue.shutdown = true;
            queue.jobs.clear();
        }
        self.shared.ready.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_jobs_and_withdraws_queued_ones() {
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let worker_gate = gate.clone();
        let mut pool = JobPool::new(1, move |n: u32| {
            let (open, cv) = &*worker_gate;
            let mut open = open.lock().unwrap();
            while !*open {
                open = cv.wait(open).unwrap();
            }
            n * 2
        });
        pool.submit(1);
        pool.submit(2);
        pool.submit(3);
        // Job 1 may already be running on the single worker; 3 is queued.
        assert!(pool.withdraw(&3));
        assert!(!pool.withdraw(&3));
        {
            let (open, cv) = &*gate;
            *open.lock().unwrap() = true;
            cv.notify_all();
        }
        let mut results = vec![pool.wait_result().unwrap(), pool.wait_result().unwrap()];
        results.sort();
        assert_eq!(results, [(1, 2), (2, 4)]);
        assert!(pool.try_result().is_none());
    }
}
