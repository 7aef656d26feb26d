//! [`HeadlessRunner`]: drives a [`Runtime`] without a window, a fixed number
//! of frames as fast as the CPU allows, or in real time until stopped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::pacing::Pacing;
use crate::runtime::Runtime;

/// Runs frames with no window.
#[derive(Debug, Clone, Default)]
pub struct HeadlessRunner {
    /// Run exactly this many frames as fast as possible; `None` runs in real
    /// time until [`HeadlessRunner::stop`] is set.
    pub frames: Option<u64>,
    /// Set to end a real-time run after the current frame.
    pub stop: Arc<AtomicBool>,
    /// Keep a real-time run going when every script has failed (under
    /// `--watch`, the fix the author is typing starts them again); by
    /// default such a run stops.
    pub wait_for_fixes: bool,
}

impl HeadlessRunner {
    /// Runs and returns the number of frames run.
    pub fn run(&self, runtime: &mut Runtime) -> u64 {
        self.run_with(runtime, &mut |_| {})
    }

    /// Runs, calling `between` at every frame boundary (before each frame):
    /// the place for work such as hot-swaps that must not happen mid-frame.
    pub fn run_with(&self, runtime: &mut Runtime, between: &mut dyn FnMut(&mut Runtime)) -> u64 {
        match self.frames {
            Some(frames) => {
                for _ in 0..frames {
                    between(runtime);
                    runtime.step();
                }
                frames
            }
            None => self.run_real_time(runtime, between),
        }
    }

    /// Steps at the runtime's rate of game time by the shared [`Pacing`],
    /// sleeping until the next step is due.
    fn run_real_time(&self, runtime: &mut Runtime, between: &mut dyn FnMut(&mut Runtime)) -> u64 {
        let mut pacing = Pacing::new(Duration::from_secs_f64(runtime.dt()), Instant::now());
        let mut frames = 0;
        while !self.stop.load(Ordering::Relaxed) {
            if !self.wait_for_fixes
                && runtime.inspect().live_instances() == 0
                && !runtime.inspect().errors().is_empty()
            {
                tracing::warn!("every script has failed; stopping");
                break;
            }
            for _ in 0..pacing.tick(Instant::now()) {
                between(runtime);
                runtime.step();
                frames += 1;
            }
            std::thread::sleep(pacing.until_next());
        }
        if pacing.dropped() > 0 {
            tracing::warn!(
                dropped = pacing.dropped(),
                "fell behind real time; dropped frames"
            );
        }
        frames
    }
}
