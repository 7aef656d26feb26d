//! [`JournalWriter`]: the one thread of a server that writes every durable
//! world's log (see [`Journal`](super::Journal)): it serialises each batch
//! and writes it with one `write` (from then on it survives the process),
//! and every [`SYNC_EVERY`] syncs the state directory's file system with one
//! `syncfs` for every world (from then on it survives the machine).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::format::Line;
use crate::sync::LockExt;

/// Batches waiting for the writer, at most (about two seconds of 200
/// worlds flushing every 100 ms).
pub const QUEUE: usize = 4096;

/// How often the writer syncs what it wrote to the disk.
pub const SYNC_EVERY: Duration = Duration::from_secs(1);

/// How long the writer lets batches gather after writing (a batch waits at
/// most this long beyond its flush).
const GATHER: Duration = Duration::from_millis(10);

/// How long closing the writer waits for it to write what it was handed.
pub const CLOSE_WITHIN: Duration = Duration::from_secs(10);

/// The largest log a journal writes: past it, the world goes on without
/// its log (a resume reads no more than this).
pub const MAX_LOG_BYTES: u64 = 1 << 30;

/// What the writer did so far, for metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JournalStats {
    /// Bytes written to logs.
    pub bytes: u64,
    /// Batches handed to the writer and not yet written.
    pub waiting: u64,
    /// Worlds whose log stopped (it fell too far behind, or a write
    /// failed): they play on, no longer durable.
    pub lost_logs: u64,
}

pub(super) struct WriterShared {
    bytes: AtomicU64,
    pub(super) waiting: AtomicU64,
    /// Batches handed to the writer, and written (or dropped), in all.
    pub(super) handed: AtomicU64,
    written: AtomicU64,
    lost_logs: AtomicU64,
}

/// One world's log file.
pub(super) struct LogFile {
    pub(super) path: PathBuf,
    file: Mutex<File>,
    /// Set when writing it failed or its journal fell behind: nothing more
    /// is written to it.
    lost: AtomicBool,
    /// Its size.
    bytes: AtomicU64,
}

impl LogFile {
    /// The log at `path`, open in `file`, of `bytes` so far.
    pub(super) fn new(path: &Path, file: File, bytes: u64) -> LogFile {
        LogFile {
            path: path.to_owned(),
            file: Mutex::new(file),
            lost: AtomicBool::new(false),
            bytes: AtomicU64::new(bytes),
        }
    }

    /// Whether nothing more is written to it.
    pub(super) fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }

    /// Marks the log lost, once: says why and counts it.
    pub(super) fn lose(&self, shared: &WriterShared, why: &str) {
        if !self.lost.swap(true, Ordering::Relaxed) {
            shared.lost_logs.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                "the log `{}` stopped: {why}; its world plays on, no longer durable",
                self.path.display()
            );
        }
    }
}

pub(super) enum Message {
    Batch { log: Arc<LogFile>, lines: Vec<Line> },
    Close,
}

/// Told of every batch the writer wrote, as it wrote it (a copy of the
/// logs kept elsewhere, such as a fleet's Redis). Called on the writer
/// thread: it must hand the bytes on and return, never wait.
pub trait LogMirror: Send + Sync {
    /// `bytes` were written to the log `path` at byte `offset`.
    fn appended(&self, path: &Path, offset: u64, bytes: &[u8]);
}

/// The one thread that writes every world's log.
pub struct JournalWriter {
    pub(super) shared: Arc<WriterShared>,
    pub(super) sender: SyncSender<Message>,
    /// Told of every batch written, and of each log's header.
    pub(super) mirror: Option<Arc<dyn LogMirror>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl JournalWriter {
    /// Starts the writer thread, for logs in the file system of the folder
    /// `dir`.
    pub fn start(dir: &Path) -> Result<Arc<JournalWriter>> {
        JournalWriter::start_mirrored(dir, None)
    }

    /// [`JournalWriter::start`], telling `mirror` of every batch written.
    pub fn start_mirrored(
        dir: &Path,
        mirror: Option<Arc<dyn LogMirror>>,
    ) -> Result<Arc<JournalWriter>> {
        let dir = File::open(dir).with_context(|| format!("failed to open `{}`", dir.display()))?;
        let shared = Arc::new(WriterShared {
            bytes: AtomicU64::new(0),
            waiting: AtomicU64::new(0),
            handed: AtomicU64::new(0),
            written: AtomicU64::new(0),
            lost_logs: AtomicU64::new(0),
        });
        let (sender, receiver) = sync_channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name("journal".into())
            .spawn({
                let shared = shared.clone();
                let mirror = mirror.clone();
                move || write_batches(&receiver, &shared, &dir, mirror.as_deref())
            })
            .context("failed to start the log writer thread")?;
        Ok(Arc::new(JournalWriter {
            shared,
            sender,
            mirror,
            thread: Mutex::new(Some(thread)),
        }))
    }

    /// Writes every batch handed so far and stops the thread, waiting at
    /// most [`CLOSE_WITHIN`] (a disk that stalls does not hold up a
    /// server's exit: what it did not take is lost, and said).
    pub fn close(&self) {
        let Some(thread) = self.thread.lock_unpoisoned().take() else {
            return;
        };
        let deadline = Instant::now() + CLOSE_WITHIN;
        loop {
            match self.sender.try_send(Message::Close) {
                Ok(()) => break,
                Err(TrySendError::Full(_)) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(_) => break,
            }
        }
        while !thread.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if !thread.is_finished() {
            tracing::error!(
                "the log writer did not finish within {CLOSE_WITHIN:?}: the last lines of some \
                 worlds' logs may be lost ({} batches waited)",
                self.shared.waiting.load(Ordering::Relaxed)
            );
        } else if thread.join().is_err() {
            tracing::error!("the log writer thread panicked");
        }
    }

    /// Waits until every batch handed so far is written (and told to the
    /// mirror), up to `deadline`; true if it was.
    pub fn wait_written(&self, deadline: Instant) -> bool {
        let target = self.shared.handed.load(Ordering::Relaxed);
        while self.shared.written.load(Ordering::Acquire) < target {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        true
    }

    pub fn stats(&self) -> JournalStats {
        JournalStats {
            bytes: self.shared.bytes.load(Ordering::Relaxed),
            waiting: self.shared.waiting.load(Ordering::Relaxed),
            lost_logs: self.shared.lost_logs.load(Ordering::Relaxed),
        }
    }
}

impl Drop for JournalWriter {
    fn drop(&mut self) {
        self.close();
    }
}

fn write_batches(
    receiver: &Receiver<Message>,
    shared: &WriterShared,
    dir: &File,
    mirror: Option<&dyn LogMirror>,
) {
    // Below the loop threads: on a busy machine a frame is not held up by
    // a burst of writes.
    crate::background::lower_this_thread();
    let mut text = Vec::new();
    let mut synced = Instant::now();
    let mut dirty = false;
    let mut open = true;
    while open {
        // Idle, the writer sleeps until a batch comes; with writes not yet
        // synced, until it is time to sync them.
        let wait = match dirty {
            true => SYNC_EVERY.saturating_sub(synced.elapsed()),
            false => SYNC_EVERY,
        };
        // The first message (or the time to sync), then every other one
        // waiting: one wake-up writes many worlds' batches.
        let mut message = match receiver.recv_timeout(wait) {
            Ok(message) => Some(message),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        while let Some(next) = message.take() {
            match next {
                Message::Batch { log, lines } => {
                    shared.waiting.fetch_sub(1, Ordering::Relaxed);
                    dirty |= write_batch(&log, &lines, &mut text, shared, mirror);
                    shared.written.fetch_add(1, Ordering::Release);
                }
                // Whatever was handed before or beside the close is
                // written too.
                Message::Close => open = false,
            }
            message = receiver.try_recv().ok();
        }
        if dirty && synced.elapsed() >= SYNC_EVERY {
            sync(dir);
            (synced, dirty) = (Instant::now(), false);
        }
        if open {
            // Let batches gather: fewer wake-ups beside the loop threads.
            std::thread::sleep(GATHER);
        }
    }
    if dirty {
        sync(dir);
    }
}

/// Syncs the file system `dir` is in (every log written so far).
fn sync(dir: &File) {
    if let Err(error) = rustix::fs::syncfs(dir) {
        tracing::warn!("syncing the logs to the disk failed: {error}");
    }
}

/// Writes one batch to its log; true if anything was written.
fn write_batch(
    log: &LogFile,
    lines: &[Line],
    text: &mut Vec<u8>,
    shared: &WriterShared,
    mirror: Option<&dyn LogMirror>,
) -> bool {
    if log.is_lost() {
        return false;
    }
    text.clear();
    for line in lines {
        // A line is plain data: serialising it cannot fail.
        if serde_json::to_writer(&mut *text, line).is_ok() {
            text.push(b'\n');
        }
    }
    let size = log.bytes.fetch_add(text.len() as u64, Ordering::Relaxed) + text.len() as u64;
    if size > MAX_LOG_BYTES {
        log.lose(shared, &format!("it reached {} MiB", MAX_LOG_BYTES >> 20));
        return false;
    }
    let written = log.file.lock_unpoisoned().write_all(text);
    match written {
        Ok(()) => {
            shared.bytes.fetch_add(text.len() as u64, Ordering::Relaxed);
            if let Some(mirror) = mirror {
                mirror.appended(&log.path, size - text.len() as u64, text);
            }
            true
        }
        Err(error) => {
            log.lose(shared, &format!("writing failed: {error}"));
            false
        }
    }
}
