//! [`ScriptIdentity`]: who an instance is, and the one way its log lines
//! (WIT `log`, stdout, stderr, host warnings) reach the sink, within the
//! per-frame log quotas: lines past them are dropped and summarised in one
//! line, and long lines are cut, so a flooding script costs the host a
//! bounded amount of log per frame.
//!
//! While a frame's calls run on several threads, an instance holds its
//! lines ([`ScriptIdentity::hold`]) and the dispatch releases them in task
//! order once every task has ended, so a frame's log reads the same on any
//! number of frame threads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use uuid::Uuid;

use super::{LogLevel, LogRecord, LogSink, LogSource};
use crate::limits::Quotas;
use crate::sync::LockExt;
use crate::time::FrameClock;

/// How many bytes of the guest's latest stderr output are kept for error
/// messages (a Rust panic message is printed there just before the trap).
const STDERR_TAIL: usize = 1024;

/// Who an instance is and where its log lines go. Shared by the store data
/// and the instance's stdio streams.
pub(crate) struct ScriptIdentity {
    /// The script's name (file stem or crate name).
    pub name: Arc<str>,
    /// Instance id, a UUID v7.
    pub id: Uuid,
    log: Arc<dyn LogSink>,
    /// The runtime's frame clock, which counts log lines per frame.
    clock: FrameClock,
    /// The end of what the guest wrote to stderr during the current call.
    stderr_tail: Mutex<String>,
    /// Whether `stderr_tail` has anything, so a call clears it only then.
    stderr_written: AtomicBool,
    quotas: Quotas,
    /// What was logged in the frame being counted.
    budget: Mutex<Budget>,
    /// Whether `budget` holds dropped lines not yet summarised.
    dropped: AtomicBool,
    /// Whether lines are held for [`Self::release`] rather than sent.
    holding: AtomicBool,
    /// Lines held while `holding`, oldest first.
    held: Mutex<Vec<LogRecord>>,
}

/// Log lines and bytes of one frame, and what was dropped in it.
#[derive(Default)]
struct Budget {
    frame: u64,
    lines: usize,
    bytes: usize,
    dropped_lines: u64,
    dropped_bytes: u64,
}

impl ScriptIdentity {
    /// The identity of instance `id` of script `name`.
    pub fn new(
        name: Arc<str>,
        id: Uuid,
        log: Arc<dyn LogSink>,
        clock: FrameClock,
        quotas: Quotas,
    ) -> Self {
        ScriptIdentity {
            name,
            id,
            log,
            clock,
            stderr_tail: Mutex::new(String::new()),
            stderr_written: AtomicBool::new(false),
            quotas,
            budget: Mutex::new(Budget::default()),
            dropped: AtomicBool::new(false),
            holding: AtomicBool::new(false),
            held: Mutex::new(Vec::new()),
        }
    }

    /// Holds lines from now on until [`Self::release`]: a frame's calls
    /// run on several threads, and the lines must reach the sink in the
    /// frame's task order, not in the order threads wrote them.
    pub fn hold(&self) {
        self.holding.store(true, Ordering::Relaxed);
    }

    /// Sends the lines held since [`Self::hold`], in their order, and sends
    /// lines at once again.
    pub fn release(&self) {
        if !self.holding.swap(false, Ordering::Relaxed) {
            return;
        }
        let mut held = self.held.lock_unpoisoned();
        for record in held.drain(..) {
            self.log.log(record);
        }
    }

    /// Sends one line to the log sink, unless the frame's log quota is
    /// spent (then it is counted, and summarised by [`Self::end_frame`] or
    /// the next line of a later frame). A line longer than the quota's
    /// line length is cut.
    pub fn log(&self, level: LogLevel, source: LogSource, mut message: String) {
        if source == LogSource::Stderr {
            self.stderr_written.store(true, Ordering::Relaxed);
            let mut tail = self.lock_tail();
            if !tail.is_empty() {
                tail.push('\n');
            }
            tail.push_str(&message);
            if tail.len() > STDERR_TAIL {
                let mut cut = tail.len() - STDERR_TAIL;
                while !tail.is_char_boundary(cut) {
                    cut += 1;
                }
                tail.drain(..cut);
            }
        }
        let frame = self.clock.frame();
        let summary = {
            let mut budget = self.budget.lock_unpoisoned();
            let summary = if budget.frame != frame {
                let old = std::mem::replace(
                    &mut *budget,
                    Budget {
                        frame,
                        ..Budget::default()
                    },
                );
                Some(old).filter(|old| old.dropped_lines > 0)
            } else {
                None
            };
            let q = &self.quotas;
            if budget.lines >= q.log_lines_per_frame
                || budget.bytes + message.len().min(q.log_line_length) > q.log_bytes_per_frame
            {
                budget.dropped_lines += 1;
                budget.dropped_bytes += message.len() as u64;
                self.dropped.store(true, Ordering::Relaxed);
                drop(budget);
                if let Some(old) = summary {
                    self.summarise(&old);
                }
                return;
            }
            cut(&mut message, q.log_line_length);
            budget.lines += 1;
            budget.bytes += message.len();
            summary
        };
        if let Some(old) = summary {
            self.summarise(&old);
        }
        self.send(frame, level, source, message);
    }

    /// Summarises the lines dropped in the current frame, if any; the
    /// runtime calls it at the end of each frame.
    #[inline]
    pub fn end_frame(&self) {
        // A plain load in line: most frames have nothing to summarise.
        if self.dropped.load(Ordering::Relaxed) {
            self.summarise_dropped();
        }
    }

    #[cold]
    #[inline(never)]
    fn summarise_dropped(&self) {
        if !self.dropped.swap(false, Ordering::Relaxed) {
            return;
        }
        let dropped = {
            let mut budget = self.budget.lock_unpoisoned();
            let dropped = Budget {
                frame: budget.frame,
                dropped_lines: budget.dropped_lines,
                dropped_bytes: budget.dropped_bytes,
                ..Budget::default()
            };
            budget.dropped_lines = 0;
            budget.dropped_bytes = 0;
            dropped
        };
        if dropped.dropped_lines > 0 {
            self.summarise(&dropped);
        }
    }

    fn summarise(&self, budget: &Budget) {
        let message = format!(
            "script `{}` logged {} more line(s) ({} bytes) in frame {} past its quota of \
             {} lines / {} bytes per frame; dropped",
            self.name,
            budget.dropped_lines,
            budget.dropped_bytes,
            budget.frame,
            self.quotas.log_lines_per_frame,
            self.quotas.log_bytes_per_frame
        );
        self.send(budget.frame, LogLevel::Warn, LogSource::Host, message);
    }

    fn send(&self, frame: u64, level: LogLevel, source: LogSource, message: String) {
        let record = LogRecord {
            script: self.name.to_string(),
            instance: self.id,
            frame,
            level,
            source,
            message,
        };
        if self.holding.load(Ordering::Relaxed) {
            self.held.lock_unpoisoned().push(record);
        } else {
            self.log.log(record);
        }
    }

    /// Forgets stderr output of earlier calls; called before each call.
    #[inline]
    pub fn begin_call(&self) {
        // A plain load first: most calls write nothing to stderr.
        if self.stderr_written.load(Ordering::Relaxed)
            && self.stderr_written.swap(false, Ordering::Relaxed)
        {
            self.lock_tail().clear();
        }
    }

    /// Takes what the guest wrote to stderr during the current call.
    pub fn take_stderr_tail(&self) -> String {
        self.stderr_written.store(false, Ordering::Relaxed);
        std::mem::take(&mut *self.lock_tail())
    }

    fn lock_tail(&self) -> MutexGuard<'_, String> {
        self.stderr_tail.lock_unpoisoned()
    }
}

/// Cuts `message` to at most `limit` bytes (on a character boundary),
/// saying how much was cut.
fn cut(message: &mut String, limit: usize) {
    if message.len() <= limit {
        return;
    }
    let mut end = limit;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    let cut = message.len() - end;
    message.truncate(end);
    message.push_str(&format!(" [... {cut} bytes cut]"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::MemoryLog;

    #[test]
    fn a_flood_is_capped_per_frame_and_summarised_once() {
        let sink = Arc::new(MemoryLog::new());
        let mut clock = FrameClock::new(60.0);
        clock.advance();
        let quotas = Quotas {
            log_lines_per_frame: 3,
            log_line_length: 8,
            ..Quotas::default()
        };
        let id = ScriptIdentity::new(
            "flood".into(),
            Uuid::now_v7(),
            sink.clone(),
            clock.clone(),
            quotas,
        );
        for n in 0..1000 {
            id.log(LogLevel::Info, LogSource::Stdout, format!("line {n}"));
        }
        id.log(LogLevel::Info, LogSource::Api, "é".repeat(10));
        id.end_frame();
        clock.advance();
        id.log(LogLevel::Info, LogSource::Api, "frame 2".into());
        id.end_frame();
        let messages = sink.messages();
        assert_eq!(messages.len(), 5, "{messages:?}");
        assert_eq!(messages[..3], ["line 0", "line 1", "line 2"]);
        assert!(
            messages[3].starts_with("script `flood` logged 998 more line(s)"),
            "{}",
            messages[3]
        );
        assert!(messages[3].contains("in frame 1"), "{}", messages[3]);
        assert_eq!(messages[4], "frame 2");
        let mut long = "é".repeat(10);
        cut(&mut long, 8);
        assert_eq!(long, "éééé [... 12 bytes cut]");
    }

    #[test]
    fn held_lines_reach_the_sink_on_release_in_their_order() {
        let sink = Arc::new(MemoryLog::new());
        let clock = FrameClock::new(60.0);
        let id = |name: &str| {
            ScriptIdentity::new(
                name.into(),
                Uuid::now_v7(),
                sink.clone(),
                clock.clone(),
                Quotas::default(),
            )
        };
        let (a, b) = (id("a"), id("b"));
        a.hold();
        b.hold();
        b.log(LogLevel::Info, LogSource::Api, "b1".into());
        a.log(LogLevel::Info, LogSource::Stdout, "a1".into());
        b.log(LogLevel::Info, LogSource::Api, "b2".into());
        assert!(sink.messages().is_empty());
        a.release();
        b.release();
        a.log(LogLevel::Info, LogSource::Api, "a2".into());
        assert_eq!(sink.messages(), ["a1", "b1", "b2", "a2"]);
    }
}
