//! The recording file: one JSON object per line.
//!
//! 1. A header: `{"format":"game-host-recording","version":3,"host":...,
//!    "hz":60.0,"seed":0,"checkpoint_every":60,"canonical_nans":false,"arch":"x86_64","scripts":[{"name":...,
//!    "source":...,"sha256":...,"instances":1}]}`.
//! 2. Then, in the order they happened: input events,
//!    `{"frame":12,"input":{"press":"space"}}` (or `"release"`, or
//!    `{"send":{"channel":...,"payload":...}}`), due at the start of that
//!    frame; players' events, `{"frame":12,"player":3,"joined":true}` (a
//!    leave: `false`) and input from a player,
//!    `{"frame":12,"player":3,"input":{...}}`, or the commands a frame
//!    applied for a player (`controls`),
//!    `{"frame":12,"player":3,"commands":[{"seq":7,"held":["up"]}]}`; and after every frame its
//!    scene digest, `{"frame":12,
//!    "scene":"16 hex digits"}`, with every entity's transform and digest on
//!    every `checkpoint_every`-th frame (`"entities":[...]`).
//! 3. Last, `{"end":600,"scene":...,"entities":[...]}` when the run ended
//!    normally; a recording cut short by a crash has no end line and still
//!    replays up to its last frame.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::input::{Command, Event, ScriptMessage};
use crate::input::{key_by_name, key_name};
use crate::players::OpenToPlayers;
use crate::players::PlayerEvent;
use crate::scene::{GameScene, entity_digest};

/// The `format` of every recording's header.
pub const FORMAT: &str = "game-host-recording";

/// The version of the format this host writes; it reads this one and every
/// earlier one (version 2 added players' lines, which version 1 hosts
/// would have misread; version 3 marks parallel frames' rules and the
/// architecture).
pub const VERSION: u32 = 3;

/// The first version recorded with parallel frames' rules (scene writes of
/// a frame made after its calls, an instance's calls in a row: see
/// `docs/parallel-frames.md`); earlier ones replay, with a warning.
pub const PARALLEL_FRAMES: u32 = 3;

/// The first line of a recording.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    pub format: String,
    pub version: u32,
    /// The host version that wrote it.
    pub host: String,
    /// Frames per second of game time.
    pub hz: f64,
    /// The world's seed.
    pub seed: u64,
    /// Frames between checkpoints listing every entity.
    pub checkpoint_every: u64,
    /// Whether NaNs were canonical (`--portable-floats`); a replay uses
    /// the same setting.
    #[serde(default = "yes")]
    pub canonical_nans: bool,
    /// The CPU architecture it was recorded on (`x86_64`, `aarch64`);
    /// without canonical NaNs a replay on another may diverge, and says so.
    /// Absent in recordings of hosts before 0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// Which of players' input reached ordinary event waits. Absent in
    /// recordings of hosts before the setting, when all of it did.
    #[serde(default = "OpenToPlayers::all")]
    pub open_to_players: OpenToPlayers,
    /// The world's budget of bytes sent to players per frame.
    #[serde(default = "default_player_bytes")]
    pub player_bytes_per_frame: usize,
    /// The scripts, in the order their instances were started.
    pub scripts: Vec<RecordedScript>,
}

impl Header {
    /// The script instances the run starts, all scripts together.
    pub fn instances(&self) -> usize {
        self.scripts.iter().map(|s| s.instances as usize).sum()
    }
}

fn yes() -> bool {
    true
}

fn default_player_bytes() -> usize {
    crate::runtime::DEFAULT_PLAYER_BYTES_PER_FRAME
}

/// How a recorded run ran, besides its scripts and input.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// Frames per second of game time.
    pub hz: f64,
    /// The world's seed.
    pub seed: u64,
    /// Frames between checkpoints listing every entity.
    pub checkpoint_every: u64,
    /// Whether NaNs are canonical.
    pub canonical_nans: bool,
    /// Which of players' input reaches ordinary event waits.
    pub open_to_players: OpenToPlayers,
    /// The world's budget of bytes sent to players per frame.
    pub player_bytes_per_frame: usize,
}

/// A script of a recorded run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedScript {
    /// Its name in logs.
    pub name: String,
    /// Where it was loaded from (absolute), or `builtin:NAME`.
    pub source: String,
    /// SHA-256 of the component's bytes, in hex.
    pub sha256: String,
    /// Instances started, one after another.
    pub instances: u32,
}

/// An input event as written: `{"press":"space"}`, `{"release":"a"}` or
/// `{"send":{"channel":"chat","payload":"hi"}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Input {
    Press(String),
    Release(String),
    Send { channel: String, payload: String },
}

impl Input {
    pub fn of(event: &Event) -> Input {
        match event {
            Event::KeyPressed(key) => Input::Press(key_name(*key).to_owned()),
            Event::KeyReleased(key) => Input::Release(key_name(*key).to_owned()),
            Event::Message(m) => Input::Send {
                channel: m.channel.clone(),
                payload: m.payload.clone(),
            },
        }
    }

    pub(super) fn event(self) -> Result<Event> {
        let key = |name: &str| key_by_name(name).with_context(|| format!("unknown key `{name}`"));
        Ok(match self {
            Input::Press(name) => Event::KeyPressed(key(&name)?),
            Input::Release(name) => Event::KeyReleased(key(&name)?),
            Input::Send { channel, payload } => Event::Message(ScriptMessage { channel, payload }),
        })
    }
}

/// A player's command as recorded: `{"seq": 3, "held": ["left", "up"]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RecordedCommand {
    pub seq: u64,
    pub held: Vec<String>,
}

impl RecordedCommand {
    pub fn of(command: &Command) -> RecordedCommand {
        RecordedCommand {
            seq: command.seq,
            held: command
                .held
                .iter()
                .map(|k| key_name(*k).to_owned())
                .collect(),
        }
    }

    pub(super) fn command(self) -> Result<Command> {
        let held = self
            .held
            .iter()
            .map(|name| key_by_name(name).with_context(|| format!("unknown key `{name}`")))
            .collect::<Result<_>>()?;
        Ok(Command {
            seq: self.seq,
            held,
        })
    }
}

/// One entity at a checkpoint. Its floats are for reports (JSON has no
/// NaN or infinity: they are written as `null` and read back as NaN); its
/// digest covers their exact bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedEntity {
    pub id: u32,
    pub name: String,
    /// The entity's digest, 16 hex digits.
    pub digest: String,
    #[serde(deserialize_with = "floats")]
    pub position: [f32; 3],
    #[serde(deserialize_with = "floats")]
    pub rotation: [f32; 4],
    #[serde(deserialize_with = "floats")]
    pub scale: [f32; 3],
}

/// `N` floats, each a number or `null` (a non-finite value when written).
fn floats<'de, D, const N: usize>(deserializer: D) -> Result<[f32; N], D::Error>
where
    D: serde::Deserializer<'de>,
{
    let values: Vec<Option<f32>> = Deserialize::deserialize(deserializer)?;
    let count = values.len();
    values
        .into_iter()
        .map(|v| v.unwrap_or(f32::NAN))
        .collect::<Vec<_>>()
        .try_into()
        .map_err(|_| serde::de::Error::invalid_length(count, &format!("{N} floats").as_str()))
}

impl RecordedEntity {
    /// Every entity of `scene`, in id order.
    pub fn all(scene: &mut dyn GameScene) -> Vec<RecordedEntity> {
        let mut all = Vec::with_capacity(scene.len());
        scene.for_each(&mut |id, name, transform| {
            all.push(RecordedEntity {
                id: id.index() as u32,
                name: name.to_owned(),
                digest: hex(entity_digest(id, name, transform)),
                position: transform.position.to_array(),
                rotation: transform.rotation.to_array(),
                scale: transform.scale.to_array(),
            })
        });
        all
    }
}

/// Input as recorded: from outside the scripts, or from a player.
#[derive(Debug, Clone)]
pub enum RecordedInput {
    Event(Event),
    Player(PlayerEvent),
}

/// Any line after the header.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Line {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<u64>,
    /// The player an input, a join or a leave is of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<u64>,
    /// With `player`: true when the player joined, false when it left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub joined: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Input>,
    /// With `player`: the commands (`controls`) it applied in the frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<RecordedCommand>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scene: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entities: Option<Vec<RecordedEntity>>,
}

/// A digest as written: 16 hex digits.
pub(super) fn hex(digest: u64) -> String {
    format!("{digest:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    #[test]
    fn non_finite_floats_survive_the_round_trip_as_nan() {
        let mut scene = Scene::new();
        let id = scene.spawn("nan");
        scene.transform_mut(id).unwrap().position.x = f32::NAN;
        scene.transform_mut(id).unwrap().scale.y = f32::INFINITY;
        let written = serde_json::to_string(&RecordedEntity::all(&mut scene)).unwrap();
        let read: Vec<RecordedEntity> = serde_json::from_str(&written).unwrap();
        assert!(read[0].position[0].is_nan() && read[0].scale[1].is_nan());
        assert_eq!(read[0].digest, RecordedEntity::all(&mut scene)[0].digest);
        let short = written.replace("[null,0.0,0.0]", "[0.0]");
        assert!(serde_json::from_str::<Vec<RecordedEntity>>(&short).is_err());
    }
}
