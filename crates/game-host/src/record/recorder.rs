//! [`Recorder`]: writes a recording while a runtime runs.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::format::{
    FORMAT, Header, Input, Line, RecordedEntity, RecordedScript, RunSettings, VERSION, hex,
};
use crate::guest::bindings::events::Event;
use crate::guest::bindings::players::PlayerEvent;
use crate::guest::engine::ScriptComponent;
use crate::runtime::RunObserver;
use crate::scene::{GameScene, digest};

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
        let header = Header {
            format: FORMAT.to_owned(),
            version: VERSION,
            host: env!("CARGO_PKG_VERSION").to_owned(),
            hz: settings.hz,
            seed: settings.seed,
            checkpoint_every: settings.checkpoint_every.max(1),
            canonical_nans: settings.canonical_nans,
            open_to_players: settings.open_to_players,
            player_bytes_per_frame: settings.player_bytes_per_frame,
            arch: Some(std::env::consts::ARCH.to_owned()),
            scripts: scripts
                .iter()
                .map(|(script, instances)| RecordedScript {
                    name: script.name().to_owned(),
                    source: match script.source() {
                        Some(path) => std::path::absolute(path)
                            .unwrap_or_else(|_| path.to_owned())
                            .display()
                            .to_string(),
                        None => format!("builtin:{}", script.name()),
                    },
                    sha256: script.digest_hex(),
                    instances: *instances,
                })
                .collect(),
        };
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
        self.write(&Line {
            frame: Some(frame),
            input: Some(Input::of(event)),
            ..Line::default()
        });
    }

    fn player(&mut self, frame: u64, event: &PlayerEvent) {
        let (player, joined, input) = match event {
            PlayerEvent::Joined(player) => (*player, Some(true), None),
            PlayerEvent::Left(player) => (*player, Some(false), None),
            PlayerEvent::Input(input) => (input.player, None, Some(Input::of(&input.event))),
        };
        self.write(&Line {
            frame: Some(frame),
            player: Some(player),
            joined,
            input,
            ..Line::default()
        });
    }

    fn stepped(&mut self, frame: u64, scene: &mut dyn GameScene) {
        let entities = frame
            .is_multiple_of(self.checkpoint_every)
            .then(|| RecordedEntity::all(scene));
        self.write(&Line {
            frame: Some(frame),
            scene: Some(hex(digest(scene))),
            entities,
            ..Line::default()
        });
    }

    fn finish(&mut self, frame: u64, scene: &mut dyn GameScene) -> Result<()> {
        self.write(&Line {
            end: Some(frame),
            scene: Some(hex(digest(scene))),
            entities: Some(RecordedEntity::all(scene)),
            ..Line::default()
        });
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
