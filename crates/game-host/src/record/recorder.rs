//! [`Recorder`]: writes a recording while a runtime runs.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::format::{Header, Line, RunSettings};
use crate::guest::engine::ScriptComponent;
use crate::input::Event;
use crate::players::PlayerEvent;
use crate::runtime::RunObserver;
use crate::scene::GameScene;

/// Writes a recording as a runtime runs; give it to
/// [`Runtime::observe`](crate::Runtime::observe), and end it with
/// [`Runtime::finish_observing`](crate::Runtime::finish_observing).
///
/// Lines go out as they happen (buffered), so a run cut short by a crash
/// leaves a recording that replays up to its last frame. If writing fails
/// (a full disk), the run goes on: a warning says so once, and
/// `finish_observing` returns the error.
pub struct Recorder {
    path: PathBuf,
    out: BufWriter<File>,
    checkpoint_every: u64,
    failed: Option<std::io::Error>,
}

impl Recorder {
    /// Starts a recording at `path` of a run with `settings`, of `scripts`
    /// (each with the number of instances started, in the order they were
    /// started).
    pub fn create(
        path: &Path,
        settings: RunSettings,
        scripts: &[(ScriptComponent, u32)],
    ) -> Result<Recorder> {
        let header = Header::new(settings, scripts);
        let file = File::create(path)
            .with_context(|| format!("failed to create recording `{}`", path.display()))?;
        let mut recorder = Recorder {
            path: path.to_owned(),
            out: BufWriter::new(file),
            checkpoint_every: header.checkpoint_every,
            failed: None,
        };
        recorder.write(&header);
        recorder.check()?;
        Ok(recorder)
    }

    /// Writes one JSON line, unless writing failed before.
    fn write(&mut self, line: &impl serde::Serialize) {
        if self.failed.is_some() {
            return;
        }
        let written = serde_json::to_writer(&mut self.out, line)
            .map_err(std::io::Error::from)
            .and_then(|()| self.out.write_all(b"\n"));
        if let Err(error) = written {
            tracing::warn!(
                "recording `{}` stopped: {error}; the run goes on unrecorded",
                self.path.display()
            );
            self.failed = Some(error);
        }
    }

    fn check(&mut self) -> Result<()> {
        match self.failed.take() {
            Some(error) => Err(error)
                .with_context(|| format!("failed to write recording `{}`", self.path.display())),
            None => Ok(()),
        }
    }
}

impl RunObserver for Recorder {
    fn input(&mut self, frame: u64, event: &Event) {
        self.write(&Line::input(frame, event));
    }

    fn player(&mut self, frame: u64, event: &PlayerEvent) {
        self.write(&Line::player(frame, event));
    }

    fn stepped(&mut self, frame: u64, scene: &mut dyn GameScene) {
        let checkpoint = frame.is_multiple_of(self.checkpoint_every);
        self.write(&Line::scene(frame, scene, checkpoint));
    }

    fn finish(&mut self, frame: u64, scene: &mut dyn GameScene) -> Result<()> {
        self.write(&Line::end(frame, scene));
        if self.failed.is_none()
            && let Err(error) = self
                .out
                .flush()
                .and_then(|()| self.out.get_ref().sync_data())
        {
            self.failed = Some(error);
        }
        self.check()
    }
}
