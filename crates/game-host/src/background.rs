//! Work done beside running frames: building and compiling scripts while a
//! game runs (a Bevy game's asset loader, `host run`'s hot-swap). It runs
//! on a pool of threads of its own at a lower CPU priority, and so does
//! what it starts: wasmtime's parallel compile runs on the pool it is
//! called from, and a build tool's process inherits its thread's priority.
//! On a machine with fewer cores than busy threads, a step then gets the
//! CPU when it wants it, not a share beside the compile (see
//! `docs/benchmarks.md`, "A step while scripts load").

use std::sync::OnceLock;

/// The nice value of background work: below the game's threads, so that a
/// burst of it does not hold up a frame.
pub const NICE: i32 = 10;

/// Runs `work` on the background pool, its threads at [`NICE`], and waits
/// for it. Where the pool cannot start, `work` runs on the calling thread.
pub fn run<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Lowers the calling thread's CPU priority to [`NICE`] for good (an
/// unprivileged process cannot raise it again): for a thread that does
/// only background work.
pub fn lower_this_thread() {
    // On Linux a thread's own id names it alone.
    #[cfg(target_os = "linux")]
    if let Err(error) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), NICE) {
        tracing::debug!("a background thread keeps its priority: {error}");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_on_a_lowered_thread_and_returns() {
        let (name, nice) = run(|| {
            let name = std::thread::current().name().map(str::to_owned);
            let nice = rustix::process::getpriority_process(Some(rustix::thread::gettid()));
            (name, nice)
        });
        assert!(name.is_some_and(|n| n.starts_with("script-build-")));
        #[cfg(target_os = "linux")]
        assert_eq!(nice.expect("its priority"), NICE);
        // The caller's own priority is untouched.
        let here = rustix::process::getpriority_process(Some(rustix::thread::gettid()));
        assert_ne!(here.expect("its priority"), NICE);
    }
}
