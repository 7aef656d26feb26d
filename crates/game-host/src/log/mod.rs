//! Where script log lines go: the WIT `log` interface and the guest's
//! stdout/stderr both end up as [`LogRecord`]s handed to a [`LogSink`].
//!
//! The default sink, [`TracingLog`], forwards to `tracing` (shown on stderr by
//! the CLI). [`MemoryLog`] keeps records for tests and tools. Each instance
//! logs through its `ScriptIdentity`; its stdout and stderr are
//! `ScriptStdio` streams.

mod identity;
mod stdio;

use std::sync::Mutex;

use uuid::Uuid;

use crate::sync::LockExt;

pub(crate) use identity::ScriptIdentity;
pub(crate) use stdio::ScriptStdio;

/// Severity of a log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// Very detailed.
    Trace,
    /// Useful while developing.
    Debug,
    /// Normal operation.
    Info,
    /// Something looks wrong.
    Warn,
    /// Something failed.
    Error,
}

/// Where a log line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogSource {
    /// The script called the `log` interface.
    Api,
    /// A line the script wrote to stdout.
    Stdout,
    /// A line the script wrote to stderr (panic messages land here).
    Stderr,
    /// A note by the host about the script (dropped lines, dropped wakes).
    Host,
}

/// One log line from a script.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRecord {
    /// The script's name (its file or crate name).
    pub script: String,
    /// The instance that wrote it.
    pub instance: Uuid,
    /// The frame during which it was written (0 during `entrypoint`).
    pub frame: u64,
    /// Severity.
    pub level: LogLevel,
    /// Origin.
    pub source: LogSource,
    /// The text, without a trailing newline.
    pub message: String,
}

/// Receives every script log line.
pub trait LogSink: Send + Sync {
    /// Handles one record.
    fn log(&self, record: LogRecord);
}

/// Forwards records to `tracing`, with the script name and instance id as
/// fields.
#[derive(Debug, Default, Clone, Copy)]
pub struct TracingLog;

impl LogSink for TracingLog {
    fn log(&self, record: LogRecord) {
        emit(&record, record.level);
    }
}

/// Like [`TracingLog`], but a script's `info` lines (and its stdout) go out
/// at `debug`: for a server running hundreds of worlds, where per-script
/// chatter would drown the server's own log. Warnings and errors keep their
/// level; `RUST_LOG=script=debug` shows the rest.
#[derive(Debug, Default, Clone, Copy)]
pub struct QuietTracingLog;

impl LogSink for QuietTracingLog {
    fn log(&self, record: LogRecord) {
        let level = match record.level {
            LogLevel::Info => LogLevel::Debug,
            other => other,
        };
        emit(&record, level);
    }
}

/// Writes `r` to `tracing` at `level`.
fn emit(r: &LogRecord, level: LogLevel) {
    macro_rules! emit {
        ($level:ident) => {
            tracing::$level!(
                target: "script",
                script = %r.script,
                id = %r.instance,
                frame = r.frame,
                "{}",
                r.message
            )
        };
    }
    match level {
        LogLevel::Trace => emit!(trace),
        LogLevel::Debug => emit!(debug),
        LogLevel::Info => emit!(info),
        LogLevel::Warn => emit!(warn),
        LogLevel::Error => emit!(error),
    }
}

/// Keeps every record in memory, in order.
#[derive(Debug, Default)]
pub struct MemoryLog {
    records: Mutex<Vec<LogRecord>>,
}

impl MemoryLog {
    /// An empty log.
    pub fn new() -> Self {
        MemoryLog::default()
    }

    /// A copy of all records so far.
    pub fn records(&self) -> Vec<LogRecord> {
        self.lock().clone()
    }

    /// The messages so far, in order.
    pub fn messages(&self) -> Vec<String> {
        self.lock().iter().map(|r| r.message.clone()).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<LogRecord>> {
        self.records.lock_unpoisoned()
    }
}

impl LogSink for MemoryLog {
    fn log(&self, record: LogRecord) {
        self.lock().push(record);
    }
}
