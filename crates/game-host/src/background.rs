//! Work done beside running frames: building and compiling scripts while a
//! game runs (a Bevy game's asset loader, `host run`'s hot-swap). It runs
//! on a pool of threads of its own at a lower CPU priority (on Linux), and
//! so does what it starts: wasmtime's parallel compile runs on the pool it
//! is called from, and a build tool's process inherits its thread's
//! priority (threads started inside the work keep it for good). On a
//! machine with fewer cores than busy threads, a step then takes the CPU
//! from the build when it wants it, instead of sharing it evenly (see
//! `docs/benchmarks.md`, "A step while scripts load").

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

/// Lowers the calling thread's CPU priority to [`NICE`] for good (an
/// unprivileged process cannot raise it again), unless it is lower
/// already: for a thread that does only background work.
pub fn lower_this_thread() {
    // On Linux a thread's own id names it alone.
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getpriority_process, setpriority_process};
        let me = Some(rustix::thread::gettid());
        if getpriority_process(me).is_ok_and(|nice| nice >= NICE) {
            return;
        }
        if let Err(error) = setpriority_process(me, NICE) {
            tracing::debug!("a background thread keeps its priority: {error}");
        }
    }
}

/// The pool, one per process, started on first use with a thread per core.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
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
    use rustix::thread::gettid;

    #[test]
    fn work_runs_on_a_lowered_thread_and_returns() {
        let caller = getpriority_process(Some(gettid())).expect("its priority");
        let (name, nice, nested) = run(|| {
            let name = std::thread::current().name().map(str::to_owned);
            let nice = getpriority_process(Some(gettid())).expect("its priority");
            // Work on the pool that runs more background work runs it in place.
            let nested = run(|| std::thread::current().name().map(str::to_owned));
            (name, nice, nested)
        });
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
