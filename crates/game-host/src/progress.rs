//! Visible progress for work that takes seconds (building and compiling
//! large script components): a line when it starts, a line every few
//! seconds while it runs, on a thread of its own.

use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a running step says it is still running.
const EVERY: Duration = Duration::from_secs(5);

/// A long step in progress; reports until dropped.
pub struct Progress {
    stop: Option<Sender<()>>,
    reporter: Option<JoinHandle<()>>,
    started: Instant,
}

impl Progress {
    /// Logs `what` (e.g. "building `orbiter` with componentize-py") now and
    /// "still `<what>` (N s)" every few seconds until the value is dropped.
    pub fn start(what: String) -> Self {
        tracing::info!("{what}");
        let (stop, stopped) = channel::<()>();
        let started = Instant::now();
        let reporter = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    tracing::info!("still {what} ({} s)", started.elapsed().as_secs());
                }
            })
            .ok();
        Progress {
            stop: Some(stop),
            reporter,
            started,
        }
    }

    /// Time since the step started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(reporter) = self.reporter.take() {
            let _ = reporter.join();
        }
    }
}
