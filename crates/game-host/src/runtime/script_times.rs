//! [`ScriptTimes`]: how long each script's calls take, per frame and in
//! total, by script name (all instances of a script together). The
//! runtime reads the tick clock once per call (see [`crate::ticks`]), so it
//! is always on: a few nanoseconds a call.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::ticks;

/// Frames whose times are kept per script for the percentiles (10 s at
/// 60 Hz).
const RECENT: usize = 600;

/// One script's times, as [`Inspect::script_times`](super::Inspect::script_times)
/// reports them.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptTime {
    /// The script's name.
    pub script: String,
    /// Time in its calls over the run (updates and wakes, every instance).
    pub total: Duration,
    /// Frames in which it was called.
    pub frames: u64,
    /// Time in its calls in the last frame it was called.
    pub last: Duration,
    /// Median and 99th percentile of its time per frame, over the last
    /// (up to) 600 frames in which it was called.
    pub p50: Duration,
    pub p99: Duration,
}

#[derive(Default)]
struct Entry {
    name: Arc<str>,
    /// Ticks in its calls this frame.
    frame: u64,
    /// Ticks in its calls in the last frame ended (0: not called in it).
    last_frame: u64,
    total: u64,
    frames: u64,
    /// Ticks per frame, the last `RECENT` frames it was called in (a ring).
    recent: Vec<u64>,
    next: usize,
}

/// Every script's times in one runtime.
#[derive(Default)]
pub(crate) struct ScriptTimes {
    entries: Vec<Entry>,
    index: HashMap<Arc<str>, u32>,
    /// The script whose run of calls is being timed, and the clock when
    /// the run began.
    timing: Option<(u32, u64)>,
}

impl ScriptTimes {
    /// The index of script `name`'s entry, made on first use.
    pub fn index_of(&mut self, name: &Arc<str>) -> u32 {
        if let Some(&index) = self.index.get(name) {
            return index;
        }
        let index = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
        self.entries.push(Entry {
            name: name.clone(),
            // Its whole ring at once: frames allocate nothing.
            recent: Vec::with_capacity(RECENT),
            ..Entry::default()
        });
        self.index.insert(name.clone(), index);
        index
    }

    /// Script `script`'s call comes next (`None`: no more calls this
    /// frame). The clock is read only where the script changes in the
    /// frame's call order, and the time since goes to the script before:
    /// 100 instances of one script in a row cost two reads.
    #[inline]
    pub fn time(&mut self, script: Option<u32>) {
        if self.timing.map(|(timed, _)| timed) != script {
            self.switch(script);
        }
    }

    fn switch(&mut self, script: Option<u32>) {
        let now = ticks::now();
        if let Some((timed, since)) = self.timing {
            self.add(timed, now.saturating_sub(since));
        }
        self.timing = script.map(|script| (script, now));
    }

    /// Adds `ticks` to script `index`'s time this frame.
    #[inline]
    pub fn add(&mut self, index: u32, ticks: u64) {
        if let Some(entry) = self.entries.get_mut(index as usize) {
            entry.frame += ticks;
        }
    }

    /// Ends the frame: each script called in it keeps its time.
    pub fn end_frame(&mut self) {
        self.time(None);
        for entry in &mut self.entries {
            entry.last_frame = entry.frame;
            if entry.frame == 0 {
                continue;
            }
            let ticks = std::mem::take(&mut entry.frame);
            entry.total += ticks;
            entry.frames += 1;
            if entry.recent.len() < RECENT {
                entry.recent.push(ticks);
            } else {
                entry.recent[entry.next] = ticks;
            }
            // The ring wraps by a compare, not a division.
            entry.next = if entry.next + 1 == RECENT {
                0
            } else {
                entry.next + 1
            };
        }
    }

    /// Calls `f` with each script called in the last frame, and the
    /// seconds its calls took in it.
    pub fn for_each_last_frame(&self, mut f: impl FnMut(&str, f64)) {
        for entry in &self.entries {
            if entry.last_frame > 0 {
                f(&entry.name, ticks::seconds(entry.last_frame));
            }
        }
    }

    /// Every script called so far, the most time first.
    pub fn report(&self) -> Vec<ScriptTime> {
        let time = |ticks: u64| Duration::from_secs_f64(ticks::seconds(ticks));
        let mut report: Vec<ScriptTime> = self
            .entries
            .iter()
            .filter(|entry| entry.frames > 0)
            .map(|entry| {
                let mut sorted = entry.recent.clone();
                sorted.sort_unstable();
                let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
                let last = (entry.next + RECENT - 1) % RECENT;
                ScriptTime {
                    script: entry.name.to_string(),
                    total: time(entry.total),
                    frames: entry.frames,
                    last: time(entry.recent.get(last).copied().unwrap_or_default()),
                    p50: time(at(0.5)),
                    p99: time(at(0.99)),
                }
            })
            .collect();
        report.sort_by_key(|time| std::cmp::Reverse(time.total));
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_percentiles_are_kept_per_script() {
        let mut times = ScriptTimes::default();
        let a = times.index_of(&Arc::from("a"));
        let b = times.index_of(&Arc::from("b"));
        assert_eq!(times.index_of(&Arc::from("a")), a);
        for frame in 1..=100u64 {
            times.add(a, frame * 1_000);
            times.add(a, 1);
            if frame % 2 == 0 {
                times.add(b, 10);
            }
            times.end_frame();
        }
        let report = times.report();
        assert_eq!(report[0].script, "a");
        assert_eq!(report[0].frames, 100);
        assert_eq!(report[1].frames, 50);
        assert!(report[0].p99 > report[0].p50);
        assert!(report[0].last >= report[0].p99);
    }
}
