//! The frame's calls (step 6-7 of [`Runtime::step`](super::Runtime::step)),
//! on one thread or on a [`FramePool`]'s.
//!
//! The calls are grouped into tasks, one per instance called, in the order
//! of each instance's first call (updates in subscription order, then
//! wakes); an instance's calls stay in their order within its task. Each
//! worker takes the next tasks in that order, a short run at a time
//! (`claims`), and runs each to its end. A
//! task's scene writes are kept on its instance (`guest::pending`) and
//! applied after the last task, in task order; calls that depend on other
//! scripts' spawns wait for their turn (`guest::turns`). So a frame ends
//! in the same scene whatever the number of threads, and timing never
//! changes a result (see `docs/parallel-frames.md`). On several threads
//! each instance holds its log lines, and they are sent in task order after
//! the last task, so the log reads the same too.

use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};

use super::claims::Claims;
use super::overwrites::{Overwrite, Overwrites};
use super::slots::Slots;
use crate::error::ScriptError;
use crate::guest::SceneWrite;
use crate::guest::instance::ScriptInstance;
use crate::guest::turns::Turns;
use crate::scene::GameScene;
use crate::ticks;

/// Threads that frames run their scripts' calls on: a runtime's own, or
/// one set shared by many runtimes (a server's worlds).
#[derive(Clone)]
pub struct FramePool {
    /// `None` for one thread: the calling thread runs every call.
    pool: Option<Arc<rayon::ThreadPool>>,
    threads: usize,
}

impl std::fmt::Debug for FramePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FramePool({} threads)", self.threads)
    }
}

impl FramePool {
    /// Frames on `threads` threads (0: one per core): the thread that
    /// steps a runtime works on its frame, with `threads - 1` helpers from
    /// this pool. One thread is the calling thread alone, with no pool.
    pub fn new(threads: usize) -> Result<Self> {
        let threads = frame_threads(threads);
        if threads == 1 {
            return Ok(FramePool {
                pool: None,
                threads,
            });
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads - 1)
            .thread_name(|index| format!("frame-{index}"))
            // As much stack as the main thread has: a script's calls run
            // on these threads.
            .stack_size(8 << 20)
            .build()
            .context("failed to start the frame threads")?;
        Ok(FramePool {
            pool: Some(Arc::new(pool)),
            threads,
        })
    }

    /// Number of threads.
    pub fn threads(&self) -> usize {
        self.threads
    }
}

/// `threads`, with 0 meaning one per core.
pub fn frame_threads(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// One call of the frame.
#[derive(Debug, Clone, Copy)]
enum Call {
    Update(u32),
    Wake,
}

/// One instance's calls in the frame.
struct Task {
    slot: u32,
    /// Its first call; any more are `more[first..first + count]`.
    call: Call,
    first: u32,
    count: u32,
    /// What the runtime holds for it (for its quotas).
    waits: usize,
    subscriptions: usize,
    /// The error of the call that failed; later calls were not made.
    error: Option<Box<ScriptError>>,
    /// Whether the instance left commands for the runtime.
    commands: bool,
}

/// No task yet for a slot.
const NONE: u32 = u32::MAX;

/// The frame's tasks and the threads they run on (scratch kept between
/// frames: a frame allocates nothing once they have grown).
pub(super) struct Dispatch {
    threads: usize,
    /// Made with the first frame that has enough tasks.
    pool: Option<FramePool>,
    /// Frames with fewer tasks run on the calling thread.
    parallel_from: usize,
    turns: Arc<Turns>,
    /// Task by slot (`NONE`: no call this frame).
    task_of: Vec<u32>,
    tasks: Vec<Task>,
    /// The frame's calls after each task's first, as made, with their task
    /// (an instance with several subscriptions, or updates and wakes).
    made: Vec<(u32, Call)>,
    /// Those calls grouped by task.
    more: Vec<Call>,
    /// Per worker: what its tasks left.
    workers: Vec<WorkerOutput>,
    /// Per worker: its next write to make, while they are merged.
    heads: Vec<usize>,
    /// Fields that two tasks set this frame.
    overwrites: Overwrites,
}

/// What one worker's tasks left, in the order it ran them (so in task
/// order).
#[derive(Default)]
struct WorkerOutput {
    /// (script, ticks) of each run of calls to one script.
    spans: Vec<(u32, u64)>,
    /// The tasks' scene writes.
    writes: Vec<SceneWrite>,
}

impl Dispatch {
    /// Scratch for `pool`, or for a pool of `threads` made when first
    /// needed.
    pub fn new(threads: usize, pool: Option<FramePool>, parallel_from: usize) -> Self {
        let threads = pool
            .as_ref()
            .map_or_else(|| frame_threads(threads), FramePool::threads);
        Dispatch {
            threads,
            pool,
            parallel_from: parallel_from.max(1),
            turns: Arc::new(Turns::new(threads)),
            task_of: Vec::new(),
            tasks: Vec::new(),
            made: Vec::new(),
            more: Vec::new(),
            workers: (0..threads).map(|_| WorkerOutput::default()).collect(),
            heads: Vec::new(),
            overwrites: Overwrites::default(),
        }
    }

    /// Where the workers are, for the instances (see `guest::turns`).
    pub fn turns(&self) -> &Arc<Turns> {
        &self.turns
    }

    /// Number of threads frames run on.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Starts a frame over `slots` slots.
    pub fn begin(&mut self, slots: u32) {
        self.task_of.clear();
        self.task_of.resize(slots as usize, NONE);
        self.tasks.clear();
        self.made.clear();
        self.overwrites.begin();
    }

    /// The frame's next call: an update of subscription `key`.
    pub fn update(&mut self, slot: u32, key: u32) {
        self.push(slot, Call::Update(key));
    }

    /// The frame's next call: the wakes of the instance in `slot`.
    pub fn wake(&mut self, slot: u32) {
        self.push(slot, Call::Wake);
    }

    fn push(&mut self, slot: u32, call: Call) {
        let Some(task) = self.task_of.get_mut(slot as usize) else {
            return;
        };
        if *task == NONE {
            *task = self.tasks.len() as u32;
            self.tasks.push(Task {
                slot,
                call,
                first: 0,
                count: 0,
                waits: 0,
                subscriptions: 0,
                error: None,
                commands: false,
            });
        } else {
            self.tasks[*task as usize].count += 1;
            self.made.push((*task, call));
        }
    }

    /// Sets what the runtime holds for each task's instance (waits,
    /// subscriptions: `known` of its slot), for its quotas.
    pub fn set_known(&mut self, mut known: impl FnMut(u32) -> (usize, usize)) {
        for task in &mut self.tasks {
            (task.waits, task.subscriptions) = known(task.slot);
        }
    }

    /// Runs every task on `slots`' instances; returns the scripts' call
    /// times to `times` (script, ticks).
    /// If the pool cannot start, the frame runs on the calling thread and
    /// the error is returned after it.
    pub fn run(&mut self, slots: &mut Slots, mut times: impl FnMut(u32, u64)) -> Result<()> {
        // Group the calls after each task's first by task, in their order.
        self.more.clear();
        if !self.made.is_empty() {
            let mut next = 0;
            for task in &mut self.tasks {
                task.first = next;
                next += task.count;
                task.count = 0;
            }
            self.more.resize(next as usize, Call::Wake);
            for &(task, call) in &self.made {
                let task = &mut self.tasks[task as usize];
                self.more[(task.first + task.count) as usize] = call;
                task.count += 1;
            }
        }
        let mut parallel = self.threads > 1 && self.tasks.len() >= self.parallel_from;
        let mut started = Ok(());
        if parallel && self.pool.is_none() {
            match FramePool::new(self.threads) {
                Ok(pool) => self.pool = Some(pool),
                Err(error) => {
                    // Never tried again: this runtime's frames run on the
                    // calling thread.
                    self.threads = 1;
                    parallel = false;
                    started = Err(error);
                }
            }
        }
        if parallel {
            self.turns.begin();
        }
        let frame = Frame {
            tasks: self.tasks.as_mut_ptr(),
            task_count: self.tasks.len(),
            more: &self.more,
            slots: slots.as_mut_slice().as_mut_ptr(),
            slot_count: slots.capacity() as usize,
            workers: self.workers.as_mut_ptr(),
            next: AtomicUsize::new(0),
            joined: AtomicUsize::new(0),
            turns: &self.turns,
            _borrows: PhantomData,
        };
        match self.pool.as_ref().and_then(|pool| pool.pool.as_ref()) {
            Some(pool) if parallel => {
                // The calling thread works too; helpers from the pool join
                // as they come free (a shared pool may be busy with other
                // worlds: a helper that comes late finds no task and ends).
                let helpers = (self.threads - 1).min(self.tasks.len() - 1);
                let frame = &frame;
                pool.in_place_scope(|scope| {
                    for _ in 0..helpers {
                        scope.spawn(move |_| frame.join());
                    }
                    frame.join();
                });
            }
            _ => frame.work(0, false),
        }
        if parallel {
            // Log lines were held by each instance: they go out in task
            // order, as one thread would have written them.
            for task in &self.tasks {
                if let Some(Some(instance)) = slots.as_mut_slice().get_mut(task.slot as usize) {
                    instance.release_log();
                }
            }
        }
        for worker in &mut self.workers {
            for (script, ticks) in worker.spans.drain(..) {
                times(script, ticks);
            }
        }
        started
    }

    /// Whether the frame's tasks left scene writes.
    pub fn has_writes(&self) -> bool {
        self.workers.iter().any(|worker| !worker.writes.is_empty())
    }

    /// Makes the tasks' scene writes on `scene`, in task order, and finds
    /// the fields two tasks set ([`Self::overwrites`]).
    pub fn apply_writes<S: GameScene + ?Sized>(&mut self, scene: &mut S) {
        // Each worker's writes are in task order: merge them (one list
        // needs no merge, and one task's writes cannot overwrite another's).
        let mut lists = self.workers.iter().filter(|list| !list.writes.is_empty());
        match (lists.next(), lists.next()) {
            (None, _) => {}
            (Some(only), None) => {
                let one_task =
                    only.writes.first().map(|w| w.task) == only.writes.last().map(|w| w.task);
                for write in &only.writes {
                    if !one_task {
                        self.overwrites.saw(write);
                    }
                    write.apply(scene);
                }
            }
            _ => self.merge(scene),
        }
        for worker in &mut self.workers {
            worker.writes.clear();
        }
    }

    /// The fields that two tasks set in the frame whose writes were made
    /// last (the earlier task's value was lost).
    pub fn overwrites(&self) -> &[Overwrite] {
        self.overwrites.found()
    }

    /// The slot of task `task` of the frame.
    pub fn slot_of(&self, task: u32) -> u32 {
        self.tasks[task as usize].slot
    }

    /// Hands each failed task's slot and error to `failed`, in task order,
    /// and puts the slots whose instances left commands in `commanded`, in
    /// slot order (the order the runtime applies commands in).
    pub fn finish(
        &mut self,
        mut failed: impl FnMut(u32, Box<ScriptError>),
        commanded: &mut Vec<u32>,
    ) {
        commanded.clear();
        for task in &mut self.tasks {
            if let Some(error) = task.error.take() {
                failed(task.slot, error);
            }
            if task.commands {
                commanded.push(task.slot);
            }
        }
        if commanded.len() > 1 {
            commanded.sort_unstable();
        }
    }

    /// Makes the workers' writes in task order.
    fn merge<S: GameScene + ?Sized>(&mut self, scene: &mut S) {
        let heads = &mut self.heads;
        heads.clear();
        heads.resize(self.workers.len(), 0);
        let lists = &self.workers;
        loop {
            let next = lists
                .iter()
                .enumerate()
                .filter_map(|(worker, list)| Some((list.writes.get(heads[worker])?.task, worker)))
                .min();
            let Some((_, worker)) = next else { break };
            let write = &lists[worker].writes[heads[worker]];
            self.overwrites.saw(write);
            write.apply(scene);
            heads[worker] += 1;
        }
    }
}

/// What the workers of one frame share. Each task is taken by exactly one
/// worker (the `next` counter), each slot is in at most one task, and each
/// worker has its own spans, so no two workers ever reach the same task,
/// instance or worker output.
struct Frame<'a> {
    tasks: *mut Task,
    task_count: usize,
    more: &'a [Call],
    slots: *mut Option<ScriptInstance>,
    slot_count: usize,
    workers: *mut WorkerOutput,
    next: AtomicUsize,
    /// Workers that have joined the frame (each takes the next index).
    joined: AtomicUsize,
    turns: &'a Turns,
    /// The tasks, slots and spans are borrowed mutably for `'a`.
    _borrows: PhantomData<&'a mut ()>,
}

// SAFETY: the raw pointers are only dereferenced as described on `Frame`:
// each task (and its slot's instance) by the one worker that took its
// index from `next`, each worker's output by that worker. `ScriptInstance`
// and `Task` are `Send` (asserted below), so reaching them from another
// thread is sound; the borrows they come from outlive the broadcast,
// which returns only once every worker has ended.
unsafe impl Sync for Frame<'_> {}

const _: () = {
    const fn send<T: Send>() {}
    send::<ScriptInstance>();
    send::<Task>();
    send::<WorkerOutput>();
};

/// Says a worker is done when it ends, even by a panic (a host function's
/// bug): a worker left on a task would keep later turns waiting forever.
struct Leave<'a> {
    turns: &'a Turns,
    worker: usize,
}

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.turns.idle(self.worker);
    }
}

impl Frame<'_> {
    /// A thread joins the frame as the next worker.
    fn join(&self) {
        let worker = self.joined.fetch_add(1, Ordering::SeqCst);
        assert!(worker < self.turns.places(), "more workers than places");
        self.work(worker, true);
    }

    /// Worker `worker`'s loop: takes tasks in order until none is left.
    /// Only `shared` workers (on the pool) say where they are: alone on the
    /// calling thread, a task's turn has always come.
    fn work(&self, worker: usize, shared: bool) {
        // SAFETY: `worker` is below the number of outputs (one per thread
        // of the pool, and index 0 on the calling thread), and no other
        // worker has this index.
        let output = unsafe { &mut *self.workers.add(worker) };
        // `then`, not `then_some`, which builds its argument even when
        // unused: dropping that `Leave` did a SeqCst store (`xchg`) to the
        // turns every frame on the calling thread.
        let _leave = shared.then(|| Leave {
            turns: self.turns,
            worker,
        });
        let mut timing: Option<(u32, u64)> = None;
        let mut alone = 0;
        let mut claims = Claims::default();
        loop {
            let index = if shared {
                claims.take(&self.next, self.task_count, self.turns, worker)
            } else {
                alone += 1;
                alone - 1
            };
            if index >= self.task_count {
                break;
            }
            // SAFETY: `index` is below `task_count` and taken by this
            // worker alone (see `Frame`).
            let task = unsafe { &mut *self.tasks.add(index) };
            if task.slot as usize >= self.slot_count {
                continue;
            }
            // SAFETY: the slot is in bounds, and only this task names it.
            let Some(instance) = (unsafe { &mut *self.slots.add(task.slot as usize) }) else {
                continue;
            };
            let script = instance.times_index();
            if timing.map(|(timed, _)| timed) != Some(script) {
                let now = ticks::now();
                if let Some((timed, since)) = timing {
                    output.spans.push((timed, now.saturating_sub(since)));
                }
                timing = Some((script, now));
            }
            instance.begin_task(index);
            if shared {
                instance.hold_log();
            } else {
                // Lines a frame left held (a panic on a frame thread
                // skipped their release) go out now, not never.
                instance.release_log();
            }
            instance.set_known_usage(task.waits, task.subscriptions);
            let more = &self.more[task.first as usize..(task.first + task.count) as usize];
            for call in std::iter::once(&task.call).chain(more) {
                let result = match *call {
                    Call::Update(key) => instance.update(key),
                    Call::Wake => instance.wake(),
                };
                if let Err(error) = result {
                    task.error = Some(error);
                    break;
                }
            }
            instance.end_task(&mut output.writes);
            // While its state is in this core's cache: the frame's end for
            // it (a summary of log lines dropped), and whether the runtime
            // has commands to take from it.
            instance.end_frame();
            task.commands = instance.has_commands();
        }
        if let Some((timed, since)) = timing {
            output
                .spans
                .push((timed, ticks::now().saturating_sub(since)));
        }
    }
}
