//! [`Journal`]: a world's durable log. It is the world's recording (the
//! same file `host replay` reads: scripts by digest, seed, every input and
//! player event with its frame), written so that the world can be resumed
//! exactly from it after its process is killed.
//!
//! A frame never waits on the disk: a journal keeps its lines in memory
//! and, every `flush_every` frames, hands them to the server's one
//! [`JournalWriter`] thread (`log_writer`), which writes them. A batch
//! always ends with a line holding the scene's digest after its last
//! frame, so the log on disk ends at a whole frame: a process killed at
//! any moment loses at most the frames since the last batch written, and
//! a line cut mid-write is left out when the log is read back.
//!
//! Everything is bounded: the writer's queue holds
//! [`QUEUE`](super::log_writer::QUEUE) batches; a
//! journal whose batch finds it full keeps its lines and tries again at
//! its next flush, up to [`MAX_PENDING`] lines, past which the world is
//! no longer durable (said once, and counted) and goes on playing.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};

use anyhow::{Context, Result, bail};

use super::format::{Header, Line, RunSettings};
use super::log_writer::{JournalWriter, LogFile, Message, WriterShared};
use super::recording::{MAX_FRAMES, Recording};
use crate::guest::engine::ScriptComponent;
use crate::input::Event;
use crate::players::PlayerEvent;
use crate::runtime::RunObserver;
use crate::scene::GameScene;

/// Lines a journal keeps while the writer's queue is full, at most (each
/// entity of a checkpoint counts as a line).
pub const MAX_PENDING: usize = 100_000;

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
        if let Some(mirror) = &writer.mirror {
            mirror.appended(path, 0, &text);
        }
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
            log: Arc::new(LogFile::new(path, file, bytes)),
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
        self.log.is_lost()
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
            Ok(()) => {
                self.writer.handed.fetch_add(1, Ordering::Relaxed);
                self.pending_weight = 0;
            }
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
    use crate::input::Event;
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
