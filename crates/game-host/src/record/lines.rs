//! The lines a run writes, made from what a [`RunObserver`] sees: the
//! header of a run, its input, its players' events and its scene after a
//! frame. A [`Recorder`](super::Recorder) writes them as they come, a
//! [`Journal`](super::Journal) hands them to its writer in batches; both
//! write the same file.
//!
//! [`RunObserver`]: crate::runtime::RunObserver

use super::format::{
    FORMAT, Header, Input, Line, RecordedCommand, RecordedEntity, RecordedScript, RunSettings,
    VERSION, hex,
};
use crate::guest::engine::ScriptComponent;
use crate::input::Event;
use crate::players::PlayerEvent;
use crate::scene::{GameScene, digest};

impl Header {
    /// The header of a run with `settings`, of `scripts` (each with the
    /// number of instances started, in the order they were started).
    pub(super) fn new(settings: RunSettings, scripts: &[(ScriptComponent, u32)]) -> Header {
        Header {
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
        }
    }
}

impl Line {
    /// An event from outside, due at the start of `frame`.
    pub(super) fn input(frame: u64, event: &Event) -> Line {
        Line {
            frame: Some(frame),
            input: Some(Input::of(event)),
            ..Line::default()
        }
    }

    /// A player's event, due at the start of `frame`.
    pub(super) fn player(frame: u64, event: &PlayerEvent) -> Line {
        let (player, joined, input, commands) = match event {
            PlayerEvent::Joined(player) => (*player, Some(true), None, None),
            PlayerEvent::Left(player) => (*player, Some(false), None, None),
            PlayerEvent::Input(input) => (input.player, None, Some(Input::of(&input.event)), None),
            PlayerEvent::Commands(commands) => (
                commands.player,
                None,
                None,
                Some(commands.commands.iter().map(RecordedCommand::of).collect()),
            ),
        };
        Line {
            frame: Some(frame),
            player: Some(player),
            joined,
            input,
            commands,
            ..Line::default()
        }
    }

    /// The scene's digest after `frame`, with every entity when it is a
    /// `checkpoint`.
    pub(super) fn scene(frame: u64, scene: &mut dyn GameScene, checkpoint: bool) -> Line {
        Line {
            frame: Some(frame),
            scene: Some(hex(digest(scene))),
            entities: checkpoint.then(|| RecordedEntity::all(scene)),
            ..Line::default()
        }
    }

    /// The end of a run after `frame`: its scene and every entity.
    pub(super) fn end(frame: u64, scene: &mut dyn GameScene) -> Line {
        Line {
            end: Some(frame),
            scene: Some(hex(digest(scene))),
            entities: Some(RecordedEntity::all(scene)),
            ..Line::default()
        }
    }
}
