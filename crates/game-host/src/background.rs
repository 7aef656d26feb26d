//! Work done beside running frames: building and compiling scripts while a
//! game runs (a Bevy game's asset loader, `host run`'s hot-swap). It runs
//! on a pool of threads of its own at a lower CPU priority (on Linux), and
//! so does what it starts: wasmtime's parallel compile runs on the pool it
//! is called from, and a build tool's process inherits its thread's
//! priority (threads started inside the work keep it for good). On Linux
//! it also leaves one core to the game: none of it runs on the last core
//! the process may use, where it may use more than one. On a machine with
//! fewer cores than busy threads, a step then finds a core free instead of
//! waiting for the build's turn to end (see `docs/benchmarks.md`, "A step
//! while scripts load"); the build takes longer.
//!
//! [`queue`] is for smaller work that the caller does not wait for (a
//! Bevy game's scripts, instantiated before they start): one thread of
//! its own, at the same priority, runs it in order.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, OnceLock};

use crate::sync::LockExt;

/// The nice value of background work: below the game's threads, so that a
/// burst of it does not hold up a frame.
pub const NICE: i32 = 10;

/// Runs `work` on the background pool and waits for it; where the pool
/// cannot start, on the calling thread. One caller's work is on the pool at
/// a time: a pool thread that waits inside it (for a piece of wasmtime's
/// parallel compile) may pick up other work sent to the pool, and another
/// caller's load would then run in the middle of this one, on the same
/// thread, where it could wait for a lock this one holds. Work already on
/// the pool that calls `run` again runs in place.
pub fn run<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    match pool() {
        Some(pool) if pool.current_thread_index().is_none() => {
            let _turn = ONE_AT_A_TIME.lock_unpoisoned();
            pool.install(work)
        }
        _ => work(),
    }
}

/// Queues `work` to run on the background's queue thread and returns at
/// once: one thread, at [`NICE`], runs what is queued in the order it came
/// (for the whole process: work that never ends holds up what comes
/// after). Where that thread cannot start, `work` runs now, on the calling
/// thread. Work that panics ends alone (what it owns is dropped, so a
/// channel it would have answered on closes); the rest goes on.
pub fn queue(work: impl FnOnce() + Send + 'static) {
    type Work = Box<dyn FnOnce() + Send>;
    static QUEUE: OnceLock<Option<Sender<Work>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (sender, receiver) = channel::<Work>();
        std::thread::Builder::new()
            .name("script-queue".to_owned())
            .spawn(move || {
                lower_this_thread();
                for work in receiver {
                    alone(work);
                }
            })
            .inspect_err(|error| {
                tracing::warn!("queued work runs on the caller's thread: no queue thread: {error}")
            })
            .ok()
            .map(|_| sender)
    });
    match queue {
        Some(sender) => {
            if let Err(unsent) = sender.send(Box::new(work)) {
                alone(unsent.0);
            }
        }
        None => alone(work),
    }
}

/// Runs `work`; if it panics, it ends alone.
fn alone(work: impl FnOnce()) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
}

/// Lowers the calling thread's CPU priority to [`NICE`] for good (an
/// unprivileged process cannot raise it again), unless it is lower
/// already, and keeps it off one of the cores it may run on ([`spare_a_core`]):
/// for a thread that does only background work.
pub fn lower_this_thread() {
    // On Linux a thread's own id names it alone.
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getpriority_process, setpriority_process};
        spare_a_core();
        let me = Some(rustix::thread::gettid());
        if getpriority_process(me).is_ok_and(|nice| nice >= NICE) {
            return;
        }
        if let Err(error) = setpriority_process(me, NICE) {
            tracing::debug!("a background thread keeps its priority: {error}");
        }
    }
}

/// Keeps the calling thread (and the threads and processes it starts) off
/// one core: the last of those the process could run on when background
/// work first began, where it could run on more than one. The same core
/// however often it is called, on whichever thread. (A CPU quota, as a
/// container may set, is not a core: there the game may still wait.)
///
/// A lower priority alone does not keep a step from waiting: Linux's
/// scheduler (EEVDF) lets a thread it has picked run until the next tick,
/// whatever its priority, and on a virtual machine's two cores a step
/// waited up to a tick (about 4 ms) behind a build in one step of thirty
/// (`docs/benchmarks.md`, "A step while scripts load"). With a core no
/// background work may take, the game's threads always find one free.
#[cfg(target_os = "linux")]
fn spare_a_core() {
    use rustix::thread::{sched_getaffinity, sched_setaffinity};
    let (Some(spared), Ok(mut cores)) = (spared_core(), sched_getaffinity(None)) else {
        return;
    };
    if !cores.is_set(spared) || cores.count() < 2 {
        return;
    }
    cores.unset(spared);
    if let Err(error) = sched_setaffinity(None, &cores) {
        tracing::debug!("a background thread may run on every core: {error}");
    }
}

/// The core background work keeps off (see [`spare_a_core`]), chosen
/// once: `None` where there is no core to spare.
fn spared_core() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        use rustix::thread::{CpuSet, sched_getaffinity};
        static SPARED: OnceLock<Option<usize>> = OnceLock::new();
        *SPARED.get_or_init(|| {
            let cores = sched_getaffinity(None).ok()?;
            let last = (0..CpuSet::MAX_CPU)
                .rev()
                .find(|&core| cores.is_set(core))?;
            (cores.count() > 1).then_some(last)
        })
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// The cores background work may run on: all but the spared one.
fn background_cores() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    cores
        .saturating_sub(usize::from(spared_core().is_some()))
        .max(1)
}

/// The pool, one per process, started on first use with a thread for each
/// core it may run on.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(background_cores())
            .thread_name(|i| format!("script-build-{i}"))
            .start_handler(|_| lower_this_thread())
            .build()
            .inspect_err(|error| {
                tracing::warn!("builds run on the caller's thread: no background pool: {error}")
            })
            .ok()
    })
    .as_ref()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use rustix::process::getpriority_process;
    use rustix::thread::{gettid, sched_getaffinity};

    #[test]
    fn work_runs_on_a_lowered_thread_and_returns() {
        let caller = getpriority_process(Some(gettid())).expect("its priority");
        let cores = || sched_getaffinity(None).expect("its cores").count();
        let callers_cores = cores();
        let (name, nice, nested, pool_cores) = run(|| {
            let name = std::thread::current().name().map(str::to_owned);
            let nice = getpriority_process(Some(gettid())).expect("its priority");
            // Work on the pool that runs more background work runs it in place.
            let nested = run(|| std::thread::current().name().map(str::to_owned));
            (name, nice, nested, cores())
        });
        // One core is left to the game, where there is more than one, and
        // lowering a thread again takes no other.
        assert_eq!(pool_cores, (callers_cores - 1).max(1));
        let again = run(|| {
            lower_this_thread();
            cores()
        });
        assert_eq!(again, pool_cores);
        assert_eq!(cores(), callers_cores, "the caller's cores are untouched");
        assert!(
            name.as_deref()
                .is_some_and(|n| n.starts_with("script-build-"))
        );
        assert_eq!(nested, name);
        assert!(nice >= caller.max(NICE), "{nice}");
        // The caller's own priority is untouched.
        assert_eq!(getpriority_process(Some(gettid())).ok(), Some(caller));
    }

    #[test]
    fn queued_work_runs_in_order_on_a_lowered_thread_after_a_panic() {
        let (sender, receiver) = channel();
        queue(|| panic!("work that fails ends alone"));
        for i in 0..3 {
            let sender = sender.clone();
            queue(move || {
                let name = std::thread::current().name().map(str::to_owned);
                let nice = getpriority_process(Some(gettid())).expect("its priority");
                sender.send((i, name, nice)).unwrap();
            });
        }
        drop(sender); // so a queue thread gone ends the wait
        let done: Vec<_> = receiver.iter().take(3).collect();
        assert_eq!(done.len(), 3);
        for (i, (order, name, nice)) in done.into_iter().enumerate() {
            assert_eq!(order, i);
            assert_eq!(name.as_deref(), Some("script-queue"));
            assert!(nice >= NICE, "{nice}");
        }
    }

    #[test]
    fn callers_on_many_threads_each_get_their_result() {
        let results: Vec<usize> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|i| scope.spawn(move || run(move || i * 10)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(results, [0, 10, 20, 30]);
    }
}
