//! [`Journal`]: a world's durable log. It is the world's recording (the
//! same file `host replay` reads: scripts by digest, seed, every input and
//! player event with its frame), written so that the world can be resumed
//! exactly from it after its process is killed.
//!
//! A frame never waits on the disk: a journal keeps its lines in memory
//! and, every `flush_every` frames, hands them to the server's one
//! [`JournalWriter`] thread, which serialises and writes them (one
//! `write` per batch: from then on they survive the process) and, every
//! [`SYNC_EVERY`], syncs the state directory's file system (one `syncfs`
//! for every world: from then on they survive the machine). A batch
//! always ends with a line holding the scene's digest after its last
//! frame, so the log on disk ends at a whole frame: a process killed at
//! any moment loses at most the frames since the last batch written, and
//! a line cut mid-write is left out when the log is read back.
//!
//! Everything is bounded: the writer's queue holds [`QUEUE`] batches; a
//! journal whose batch finds it full keeps its lines and tries again at
//! its next flush, up to [`MAX_PENDING`] lines, past which the world is
//! no longer durable (said once, and counted) and goes on playing.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::format::{Header, Line, MAX_FRAMES, Recording, RunSettings};
use crate::guest::bindings::events::Event;
use crate::guest::bindings::players::PlayerEvent;
use crate::guest::engine::ScriptComponent;
use crate::runtime::RunObserver;
use crate::scene::GameScene;
use crate::sync::LockExt;

/// Batches waiting for the writer, at most (about two seconds of 200
/// worlds flushing every 100 ms).
pub const QUEUE: usize = 4096;

/// Lines a journal keeps while the writer's queue is full, at most (each
/// entity of a checkpoint counts as a line).
pub const MAX_PENDING: usize = 100_000;

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

struct WriterShared {
    bytes: AtomicU64,
    waiting: AtomicU64,
    lost_logs: AtomicU64,
}

/// One world's log file.
struct LogFile {
    path: PathBuf,
    file: Mutex<File>,
    /// Set when writing it failed or its journal fell behind: nothing more
    /// is written to it.
    lost: AtomicBool,
    /// Its size.
    bytes: AtomicU64,
}

impl LogFile {
    /// Marks the log lost, once: says why and counts it.
    fn lose(&self, shared: &WriterShared, why: &str) {
        if !self.lost.swap(true, Ordering::Relaxed) {
            shared.lost_logs.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                "the log `{}` stopped: {why}; its world plays on, no longer durable",
                self.path.display()
            );
        }
    }
}

enum Message {
    Batch { log: Arc<LogFile>, lines: Vec<Line> },
    Close,
}

/// The one thread that writes every world's log.
pub struct JournalWriter {
    shared: Arc<WriterShared>,
    sender: SyncSender<Message>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl JournalWriter {
    /// Starts the writer thread, for logs in the file system of the folder
    /// `dir`.
    pub fn start(dir: &Path) -> Result<Arc<JournalWriter>> {
        let dir = File::open(dir).with_context(|| format!("failed to open `{}`", dir.display()))?;
        let shared = Arc::new(WriterShared {
            bytes: AtomicU64::new(0),
            waiting: AtomicU64::new(0),
            lost_logs: AtomicU64::new(0),
        });
        let (sender, receiver) = sync_channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name("journal".into())
            .spawn({
                let shared = shared.clone();
                move || write_batches(&receiver, &shared, &dir)
            })
            .context("failed to start the log writer thread")?;
        Ok(Arc::new(JournalWriter {
            shared,
            sender,
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

/// The log writer's nice value: below the loop threads, so that on a
/// busy machine a frame is not held up by a burst of writes.
const NICE: i32 = 10;

fn write_batches(receiver: &Receiver<Message>, shared: &WriterShared, dir: &File) {
    // On Linux a thread's own id names it alone.
    if let Err(error) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), NICE) {
        tracing::debug!("the log writer keeps its priority: {error}");
    }
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
                    dirty |= write_batch(&log, &lines, &mut text, shared);
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
fn write_batch(log: &LogFile, lines: &[Line], text: &mut Vec<u8>, shared: &WriterShared) -> bool {
    if log.lost.load(Ordering::Relaxed) {
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
            true
        }
        Err(error) => {
            log.lose(shared, &format!("writing failed: {error}"));
            false
        }
    }
}

/// A world's durable log, as its runtime's observer
/// ([`Runtime::observe`](crate::Runtime::observe)).
pub struct Journal {
    log: Arc<LogFile>,
    writer: Arc<WriterShared>,
    sender: SyncSender<Message>,
    pending: Vec<Line>,
    flush_every: u64,
    /// Worlds flush and list their entities at frames of their own
    /// (`frame + phase` a multiple of `flush_every`, or of
    /// `checkpoint_every`), so that a server's worlds do not all do it in
    /// the same frame.
    phase: u64,
    checkpoint_every: u64,
    /// The last frame whose scene is among the lines handed or pending.
    last_scene: u64,
    /// Lines pending, and entities in them.
    pending_weight: usize,
    /// Set when the world is suspended rather than ended.
    suspended: Arc<AtomicBool>,
}

/// Suspends a journal's world ([`Journal::suspender`]).
#[derive(Clone)]
pub struct Suspender(Arc<AtomicBool>);

impl Suspender {
    /// The world is suspended, not ended: its journal finishes with its
    /// last frame.
    pub fn suspend(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Journal {
    /// Starts the log at `path` (which must not exist) of a world run with
    /// `settings`, of `scripts` (each with its instances, in the order they
    /// were started); its header is on the disk when this returns. Lines
    /// go to `writer` every `flush_every` frames.
    pub fn create(
        writer: &JournalWriter,
        path: &Path,
        settings: RunSettings,
        scripts: &[(ScriptComponent, u32)],
        flush_every: u64,
    ) -> Result<Journal> {
        let header = Header::new(settings, scripts);
        let mut text = serde_json::to_vec(&header)?;
        text.push(b'\n');
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(|| format!("failed to create the log `{}`", path.display()))?;
        file.write_all(&text)
            .and_then(|()| file.sync_all())
            .with_context(|| format!("failed to write the log `{}`", path.display()))?;
        sync_dir(path);
        let bytes = text.len() as u64;
        Ok(Journal::new(
            writer,
            path,
            file,
            &header,
            flush_every,
            (0, bytes),
        ))
    }

    /// Goes on with the log at `path`, read back as `recording`, after its
    /// last whole frame: what came after it (input due at later frames, a
    /// line cut by a crash) is cut away first.
    pub fn resume(
        writer: &JournalWriter,
        path: &Path,
        recording: &Recording,
        flush_every: u64,
    ) -> Result<Journal> {
        if recording.end.is_some() {
            bail!(
                "the log `{}` ended; there is nothing to go on with",
                path.display()
            );
        }
        let mut file = OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("failed to open the log `{}`", path.display()))?;
        file.set_len(recording.last_frame_ends_at as u64)
            .and_then(|()| file.seek(SeekFrom::End(0)).map(drop))
            .and_then(|()| file.sync_data())
            .with_context(|| {
                format!(
                    "failed to cut the log `{}` to its last frame",
                    path.display()
                )
            })?;
        Ok(Journal::new(
            writer,
            path,
            file,
            &recording.header,
            flush_every,
            (recording.frames(), recording.last_frame_ends_at as u64),
        ))
    }

    fn new(
        writer: &JournalWriter,
        path: &Path,
        file: File,
        header: &Header,
        flush_every: u64,
        (last_scene, bytes): (u64, u64),
    ) -> Journal {
        let flush_every = flush_every.max(1);
        Journal {
            log: Arc::new(LogFile {
                path: path.to_owned(),
                bytes: AtomicU64::new(bytes),
                file: Mutex::new(file),
                lost: AtomicBool::new(false),
            }),
            writer: writer.shared.clone(),
            sender: writer.sender.clone(),
            pending: Vec::new(),
            flush_every,
            phase: header.seed % (flush_every * header.checkpoint_every.max(1)),
            checkpoint_every: header.checkpoint_every.max(1),
            last_scene,
            pending_weight: 0,
            suspended: Arc::new(AtomicBool::new(false)),
        }
    }

    /// What suspends this journal's world: once set, the journal finishes
    /// with the world's last frame, not an end line, so that the world is
    /// resumed (the server stopped, not the world).
    pub fn suspender(&self) -> Suspender {
        Suspender(self.suspended.clone())
    }

    fn lost(&self) -> bool {
        self.log.lost.load(Ordering::Relaxed)
    }

    fn push(&mut self, line: Line) {
        if self.lost() {
            return;
        }
        let weight = 1 + line.entities.as_ref().map_or(0, Vec::len);
        if self.pending_weight + weight > MAX_PENDING {
            self.pending = Vec::new();
            self.pending_weight = 0;
            self.log.lose(
                &self.writer,
                &format!("{MAX_PENDING} lines and entities waited for the disk"),
            );
            return;
        }
        self.pending_weight += weight;
        self.pending.push(line);
    }

    /// Hands the pending lines to the writer (kept for the next flush when
    /// its queue is full).
    fn hand(&mut self) {
        if self.lost() || self.pending.is_empty() {
            return;
        }
        let message = Message::Batch {
            log: self.log.clone(),
            lines: std::mem::take(&mut self.pending),
        };
        self.writer.waiting.fetch_add(1, Ordering::Relaxed);
        match self.sender.try_send(message) {
            Ok(()) => self.pending_weight = 0,
            Err(TrySendError::Full(Message::Batch { lines, .. })) => {
                self.writer.waiting.fetch_sub(1, Ordering::Relaxed);
                self.pending = lines;
            }
            Err(_) => {
                self.writer.waiting.fetch_sub(1, Ordering::Relaxed);
                self.log.lose(&self.writer, "its writer has stopped");
            }
        }
    }
}

impl RunObserver for Journal {
    fn input(&mut self, frame: u64, event: &Event) {
        self.push(Line::input(frame, event));
    }

    fn player(&mut self, frame: u64, event: &PlayerEvent) {
        self.push(Line::player(frame, event));
    }

    fn stepped(&mut self, frame: u64, scene: &mut dyn GameScene) {
        if frame >= MAX_FRAMES {
            self.log.lose(
                &self.writer,
                &format!("it reached {MAX_FRAMES} frames, the most a log holds"),
            );
            return;
        }
        let checkpoint = (frame + self.phase).is_multiple_of(self.checkpoint_every);
        if checkpoint || (frame + self.phase).is_multiple_of(self.flush_every) {
            self.push(Line::scene(frame, scene, checkpoint));
            self.last_scene = frame;
            self.hand();
        }
    }

    fn finish(&mut self, frame: u64, scene: &mut dyn GameScene) -> Result<()> {
        if self.suspended.load(Ordering::Relaxed) {
            // Suspended, to be resumed: the log ends at this frame, whole,
            // after the input queued for the next (the line may repeat the
            // frame's scene line, as the format allows).
            if frame > self.last_scene || !self.pending.is_empty() {
                self.push(Line::scene(frame, scene, true));
            }
        } else {
            self.push(Line::end(frame, scene));
        }
        self.hand();
        if self.lost() {
            bail!("its log `{}` is incomplete", self.log.path.display());
        }
        if !self.pending.is_empty() {
            bail!(
                "the last {} lines of its log `{}` could not be handed to the disk",
                self.pending.len(),
                self.log.path.display()
            );
        }
        Ok(())
    }
}

/// Syncs the folder `path` is in, so a new file's name survives a crash
/// (best effort: not every platform can).
fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(dir) = File::open(dir)
    {
        let _ = dir.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guest::bindings::events::Event;
    use crate::input::Key;
    use crate::scene::Scene;

    fn settings() -> RunSettings {
        RunSettings {
            hz: 60.0,
            // A multiple of the flush and checkpoint intervals: this log
            // flushes and lists its entities at frames that are theirs.
            seed: 40,
            checkpoint_every: 10,
            canonical_nans: false,
            open_to_players: Default::default(),
            player_bytes_per_frame: 1024,
        }
    }

    /// The log at `path`, read back; a header of no script (as these tests
    /// write) is given one first, in the file.
    fn read(path: &Path) -> (String, Recording) {
        let text = std::fs::read_to_string(path).unwrap().replace(
            r#""scripts":[]"#,
            r#""scripts":[{"name":"a","source":"/a.wasm","sha256":"00","instances":1}]"#,
        );
        std::fs::write(path, &text).unwrap();
        let recording = Recording::parse(&text).unwrap();
        (text, recording)
    }

    /// Runs `frames` frames of a scene with one entity that moves each
    /// frame, a key pressed before each frame.
    fn run(journal: &mut Journal, scene: &mut Scene, frames: std::ops::RangeInclusive<u64>) {
        let id = match scene.find("mover") {
            Some(id) => id,
            None => scene.spawn("mover"),
        };
        for frame in frames {
            journal.input(frame, &Event::KeyPressed(Key::Space));
            scene.transform_mut(id).unwrap().position.x = frame as f32;
            journal.stepped(frame, scene);
        }
    }

    #[test]
    fn a_log_ends_at_its_last_flushed_frame_and_goes_on_from_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.rec");
        let writer = JournalWriter::start(dir.path()).unwrap();
        let mut journal = Journal::create(&writer, &path, settings(), &[], 4).unwrap();
        let mut scene = Scene::new();
        // Frames 1-10: flushed at 4, 8 and the checkpoint at 10; frame 11
        // waits in memory, as a killed process would lose it.
        run(&mut journal, &mut scene, 1..=11);
        drop(journal);
        writer.close();
        let (text, mut recording) = read(&path);
        assert_eq!(recording.frames(), 10);
        assert_eq!(recording.end, None);
        assert_eq!(
            recording.scenes.keys().copied().collect::<Vec<_>>(),
            [4, 8, 10]
        );
        assert!(recording.checkpoints.contains_key(&10));
        assert_eq!(recording.inputs.len(), 10);

        // A torn line and input past the last frame are cut away on resume.
        std::fs::write(
            &path,
            format!("{text}{{\"frame\":11,\"input\":{{\"press\":\"a\"}}}}\n{{\"fra"),
        )
        .unwrap();
        recording = read(&path).1;
        assert_eq!(recording.inputs.len(), 11);
        recording.cut_to_last_frame();
        assert_eq!(recording.inputs.len(), 10);
        let writer = JournalWriter::start(dir.path()).unwrap();
        let mut journal = Journal::resume(&writer, &path, &recording, 4).unwrap();
        run(&mut journal, &mut scene, 11..=14);
        journal.suspender().suspend();
        journal.finish(15, &mut scene).unwrap();
        drop(journal);
        writer.close();
        let recording = read(&path).1;
        // Suspended, not ended: it ends at its last frame, whole.
        assert_eq!(recording.end, None);
        assert_eq!(recording.frames(), 15);
        assert_eq!(
            recording.scenes.keys().copied().collect::<Vec<_>>(),
            [4, 8, 10, 12, 15]
        );
        assert_eq!(recording.inputs.len(), 14);
        assert!(writer.stats().bytes > 0);

        // Ended for good, a log cannot go on.
        let ended = Recording {
            end: Some(15),
            ..recording
        };
        let error = Journal::resume(&writer, &path, &ended, 4).err().unwrap();
        assert!(format!("{error:#}").contains("ended"), "{error:#}");
    }

    #[test]
    fn a_world_suspended_between_frames_keeps_the_input_queued_for_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.rec");
        let writer = JournalWriter::start(dir.path()).unwrap();
        let mut journal = Journal::create(&writer, &path, settings(), &[], 4).unwrap();
        let mut scene = Scene::new();
        run(&mut journal, &mut scene, 1..=8);
        // Frame 8 was flushed; a key for frame 9 comes, then the stop.
        journal.input(9, &Event::KeyReleased(Key::Space));
        journal.suspender().suspend();
        journal.finish(8, &mut scene).unwrap();
        drop(journal);
        writer.close();
        let (_, mut recording) = read(&path);
        assert_eq!(recording.frames(), 8);
        recording.cut_to_last_frame();
        // Kept, to be delivered at frame 9 when the world goes on.
        assert_eq!(recording.inputs.len(), 9);
        assert_eq!(recording.inputs.last().unwrap().0, 9);
    }

    #[test]
    fn a_log_that_exists_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.rec");
        std::fs::write(&path, "precious").unwrap();
        let writer = JournalWriter::start(dir.path()).unwrap();
        assert!(Journal::create(&writer, &path, settings(), &[], 4).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious");
    }
}
