//! [`ScriptIdentity`]: who an instance is, and the one way its log lines
//! (WIT `log`, stdout, stderr, host warnings) reach the sink.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use uuid::Uuid;

use super::{LogLevel, LogRecord, LogSink, LogSource};
use crate::sync::LockExt;

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
    /// The runtime's current frame number.
    frame: Arc<AtomicU64>,
    /// The end of what the guest wrote to stderr during the current call.
    stderr_tail: Mutex<String>,
    /// Whether `stderr_tail` has anything, so a call clears it only then.
    stderr_written: AtomicBool,
}

impl ScriptIdentity {
    /// An identity with `id`, or a fresh UUID v7.
    pub fn new(
        name: Arc<str>,
        id: Option<Uuid>,
        log: Arc<dyn LogSink>,
        frame: Arc<AtomicU64>,
    ) -> Self {
        ScriptIdentity {
            name,
            id: id.unwrap_or_else(Uuid::now_v7),
            log,
            frame,
            stderr_tail: Mutex::new(String::new()),
            stderr_written: AtomicBool::new(false),
        }
    }

    /// Sends one line to the log sink.
    pub fn log(&self, level: LogLevel, source: LogSource, message: String) {
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
        self.log.log(LogRecord {
            script: self.name.to_string(),
            instance: self.id,
            frame: self.frame.load(Ordering::Relaxed),
            level,
            source,
            message,
        });
    }

    /// Forgets stderr output of earlier calls; called before each call.
    pub fn begin_call(&self) {
        if self.stderr_written.swap(false, Ordering::Relaxed) {
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
