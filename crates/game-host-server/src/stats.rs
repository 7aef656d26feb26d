//! Frame statistics of one loop thread: counters and exact frame-time
//! percentiles, over the whole run and over the window since the last
//! periodic summary.

use std::fmt;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;

/// What one loop thread counted. The loop updates it once per frame.
pub struct ThreadStats {
    thread: usize,
    budget: Duration,
    /// Worlds and script instances on the thread after its last frame.
    worlds: usize,
    instances: usize,
    /// Over the whole run.
    total: Counts,
    started: Instant,
    /// Since the last [`ThreadStats::take_window`].
    window: Counts,
    window_started: Instant,
}

#[derive(Clone)]
struct Counts {
    /// Frames of the thread (one tick of all its worlds).
    frames: u64,
    /// World frames: one per world per thread frame.
    updates: u64,
    overruns: u64,
    script_errors: u64,
    evicted: u64,
    /// Frame times in microseconds.
    times: Histogram<u64>,
}

impl Counts {
    fn new() -> Self {
        Counts {
            frames: 0,
            updates: 0,
            overruns: 0,
            script_errors: 0,
            evicted: 0,
            // 1 µs to 1 hour, 3 significant digits.
            times: Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("valid bounds"),
        }
    }
}

/// One frame as the loop thread reports it.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameRecord {
    pub time: Duration,
    pub worlds: usize,
    pub instances: usize,
    pub updates: u64,
    pub overrun: bool,
    pub script_errors: u64,
    pub evicted: u64,
    pub lost_writes: u64,
}

impl ThreadStats {
    /// Empty statistics of loop thread `thread`, whose frame budget is `budget`.
    pub fn new(thread: usize, budget: Duration) -> Self {
        let now = Instant::now();
        ThreadStats {
            thread,
            budget,
            worlds: 0,
            instances: 0,
            total: Counts::new(),
            started: now,
            window: Counts::new(),
            window_started: now,
        }
    }

    /// Counts one frame.
    pub fn record(&mut self, frame: &FrameRecord) {
        self.worlds = frame.worlds;
        self.instances = frame.instances;
        let micros = (frame.time.as_micros() as u64).max(1);
        for counts in [&mut self.total, &mut self.window] {
            counts.frames += 1;
            counts.updates += frame.updates;
            counts.overruns += u64::from(frame.overrun);
            counts.script_errors += frame.script_errors;
            counts.evicted += frame.evicted;
            counts.times.saturating_record(micros);
        }
    }

    /// Counts worlds and script errors outside a frame (a world that
    /// ended between frames).
    pub fn set_population(&mut self, worlds: usize, instances: usize) {
        self.worlds = worlds;
        self.instances = instances;
    }

    /// The summary since the last call, and a new window.
    pub fn take_window(&mut self) -> ThreadSummary {
        let now = Instant::now();
        let summary = self.summary(&self.window, now - self.window_started);
        self.window = Counts::new();
        self.window_started = now;
        summary
    }

    /// The summary of the whole run so far.
    pub fn total(&self) -> ThreadSummary {
        self.summary(&self.total, self.started.elapsed())
    }

    fn summary(&self, counts: &Counts, elapsed: Duration) -> ThreadSummary {
        let ms = |micros: u64| micros as f64 / 1e3;
        let seconds = elapsed.as_secs_f64().max(1e-9);
        ThreadSummary {
            thread: self.thread,
            seconds,
            worlds: self.worlds,
            instances: self.instances,
            frames: counts.frames,
            updates: counts.updates,
            updates_per_second: counts.updates as f64 / seconds,
            overruns: counts.overruns,
            script_errors: counts.script_errors,
            worlds_evicted: counts.evicted,
            budget_ms: self.budget.as_secs_f64() * 1e3,
            frame_ms: FrameTimes {
                p50: ms(counts.times.value_at_quantile(0.5)),
                p99: ms(counts.times.value_at_quantile(0.99)),
                max: ms(counts.times.max()),
            },
        }
    }
}

/// Frame-time percentiles in milliseconds (0 before the first frame).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FrameTimes {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// A loop thread's figures over some span of time, as the periodic summary
/// prints them and `--metrics-json` writes them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadSummary {
    pub thread: usize,
    /// Length of the span.
    pub seconds: f64,
    /// Worlds and script instances on the thread at the end of the span.
    pub worlds: usize,
    pub instances: usize,
    /// Frames of the thread in the span (each ticks all of its worlds).
    pub frames: u64,
    /// World frames in the span.
    pub updates: u64,
    pub updates_per_second: f64,
    /// Frames that took longer than the budget.
    pub overruns: u64,
    pub script_errors: u64,
    /// Worlds stopped for overrunning their budget frame after frame.
    pub worlds_evicted: u64,
    /// The frame budget: one timestep.
    pub budget_ms: f64,
    pub frame_ms: FrameTimes,
}

impl fmt::Display for ThreadSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "thread {}: {} world(s), {} instance(s), {:.0} updates/s; frame p50 {:.3} ms, \
             p99 {:.3} ms, max {:.3} ms (budget {:.2} ms); {} overrun(s), {} script error(s)",
            self.thread,
            self.worlds,
            self.instances,
            self.updates_per_second,
            self.frame_ms.p50,
            self.frame_ms.p99,
            self.frame_ms.max,
            self.budget_ms,
            self.overruns,
            self.script_errors,
        )?;
        if self.worlds_evicted > 0 {
            write!(f, ", {} world(s) evicted", self.worlds_evicted)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_reset_and_totals_accumulate() {
        let mut stats = ThreadStats::new(1, Duration::from_millis(10));
        for ms in [1, 2, 3, 20] {
            stats.record(&FrameRecord {
                time: Duration::from_millis(ms),
                worlds: 2,
                instances: 3,
                updates: 2,
                overrun: ms > 10,
                ..FrameRecord::default()
            });
        }
        let window = stats.take_window();
        assert_eq!((window.frames, window.updates, window.overruns), (4, 8, 1));
        assert_eq!((window.worlds, window.instances), (2, 3));
        assert!((window.frame_ms.p50 - 2.0).abs() < 0.01, "{window:?}");
        assert!((window.frame_ms.max - 20.0).abs() < 0.02, "{window:?}");
        assert_eq!(stats.take_window().frames, 0);
        assert_eq!(stats.total().frames, 4);
        assert!(
            stats
                .total()
                .to_string()
                .starts_with("thread 1: 2 world(s), 3 instance(s)")
        );
    }
}
