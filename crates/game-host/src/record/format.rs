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
//!    `{"frame":12,"player":3,"input":{...}}`; and after every frame its
//!    scene digest, `{"frame":12,
//!    "scene":"16 hex digits"}`, with every entity's transform and digest on
//!    every `checkpoint_every`-th frame (`"entities":[...]`).
//! 3. Last, `{"end":600,"scene":...,"entities":[...]}` when the run ended
//!    normally; a recording cut short by a crash has no end line and still
//!    replays up to its last frame.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::files::read_capped;
use crate::guest::bindings::events::{Event, ScriptMessage};
use crate::guest::bindings::players::{PlayerEvent, PlayerInput};
use crate::input::{key_by_name, key_name};
use crate::players::OpenToPlayers;
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

/// The largest recording read back (a long match at 60 Hz writes about
/// 2 MB an hour plus its checkpoints).
const MAX_RECORDING: u64 = 1 << 30;

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

fn yes() -> bool {
    true
}

fn default_player_bytes() -> usize {
    crate::runtime::DEFAULT_PLAYER_BYTES_PER_FRAME
}

/// The largest budget of bytes sent to players per frame a recording may
/// name (as `host serve --player-bytes-per-frame` allows).
const MAX_PLAYER_BYTES: usize = 64 << 20;

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

    fn event(self) -> Result<Event> {
        let key = |name: &str| key_by_name(name).with_context(|| format!("unknown key `{name}`"));
        Ok(match self {
            Input::Press(name) => Event::KeyPressed(key(&name)?),
            Input::Release(name) => Event::KeyReleased(key(&name)?),
            Input::Send { channel, payload } => Event::Message(ScriptMessage { channel, payload }),
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scene: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entities: Option<Vec<RecordedEntity>>,
}

/// A digest as written: 16 hex digits.
pub(super) fn hex(digest: u64) -> String {
    format!("{digest:016x}")
}

/// A recording read back.
#[derive(Debug)]
pub struct Recording {
    pub header: Header,
    /// Input (events, players' events) with the frame each is due in, in
    /// recorded order.
    pub inputs: Vec<(u64, RecordedInput)>,
    /// The scene digest after each recorded frame.
    pub scenes: BTreeMap<u64, u64>,
    /// Every entity at each checkpoint (and at the end).
    pub checkpoints: BTreeMap<u64, Vec<RecordedEntity>>,
    /// The frame the run ended after, if it ended normally.
    pub end: Option<u64>,
    /// Bytes from the start of the text to the end of the last line that
    /// wrote a frame's scene (or of the header): where a log that goes on
    /// from its last frame is cut.
    pub last_frame_ends_at: usize,
    /// How many of `inputs` come before that line.
    pub(super) inputs_before_last_frame: usize,
}

impl Recording {
    /// Reads the recording at `path`; any line that is not what this host
    /// writes is an error naming the line.
    pub fn read(path: &Path) -> Result<Recording> {
        let bytes = read_capped(path, MAX_RECORDING)
            .with_context(|| format!("failed to read recording `{}`", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("recording `{}` is not UTF-8 text", path.display()))?;
        Recording::parse(&text)
            .with_context(|| format!("`{}` is not a readable recording", path.display()))
    }

    /// Parses the text of a recording. A last line without its newline is
    /// what a run cut short by a crash leaves mid-write: it is left out.
    pub fn parse(text: &str) -> Result<Recording> {
        let (recording, damage) = Recording::parse_until_damaged(text)?;
        match damage {
            Some(error) => Err(error),
            None => Ok(recording),
        }
    }

    /// Parses the text of a recording up to its first line that is not
    /// what this host writes: what comes before it, and the error naming
    /// that line, if any. A log cut or damaged mid-way still gives the
    /// frames before the damage; a bad header is an error.
    pub fn parse_until_damaged(text: &str) -> Result<(Recording, Option<anyhow::Error>)> {
        let text = match text.rfind('\n') {
            Some(end) if end + 1 < text.len() => &text[..=end],
            _ => text,
        };
        let mut offset = 0;
        let mut lines = text
            .split_inclusive('\n')
            .enumerate()
            .filter_map(|(index, line)| {
                let start = offset;
                offset += line.len();
                (!line.trim().is_empty()).then_some((index, line, start + line.len()))
            });
        let (_, first, after_header) = lines.next().context("it is empty")?;
        let header = parse_header(first.trim_end()).context("line 1 (the header)")?;
        let mut recording = Recording {
            header,
            inputs: Vec::new(),
            scenes: BTreeMap::new(),
            checkpoints: BTreeMap::new(),
            end: None,
            last_frame_ends_at: after_header,
            inputs_before_last_frame: 0,
        };
        for (index, text, ends_at) in lines {
            match recording.add_line(text.trim_end()) {
                Ok(true) => {
                    recording.last_frame_ends_at = ends_at;
                    recording.inputs_before_last_frame = recording.inputs.len();
                }
                Ok(false) => {}
                Err(error) => {
                    return Ok((
                        recording,
                        Some(error.context(format!("line {}", index + 1))),
                    ));
                }
            }
        }
        Ok((recording, None))
    }

    /// Leaves out the input written after the last line with a frame's
    /// scene: what a log that goes on from there (cut at
    /// `last_frame_ends_at`) holds. Input written before it stays, even
    /// when due at a later frame (a world suspended between two frames has
    /// the next frame's input queued, and delivers it when it goes on).
    pub fn cut_to_last_frame(&mut self) {
        self.inputs.truncate(self.inputs_before_last_frame);
    }

    /// Adds one line; true when it wrote a frame's scene.
    fn add_line(&mut self, text: &str) -> Result<bool> {
        if self.end.is_some() {
            bail!("a line after the end line");
        }
        let line: Line = serde_json::from_str(text).map_err(|e| anyhow::anyhow!("{e}"))?;
        let frame = match (line.frame, line.end) {
            (Some(frame), None) | (None, Some(frame)) => frame,
            _ => bail!("expected one of `frame` or `end`"),
        };
        if frame > MAX_FRAMES {
            bail!("frame {frame} is past the most a recording may run ({MAX_FRAMES} frames)");
        }
        if (line.input.is_some() || line.player.is_some()) && frame == 0 {
            bail!("input is due at frame 1 or later");
        }
        let input = match (line.player, line.joined, line.input) {
            (None, None, None) => None,
            (None, None, Some(input)) => Some(RecordedInput::Event(input.event()?)),
            (Some(player), Some(true), None) => {
                Some(RecordedInput::Player(PlayerEvent::Joined(player)))
            }
            (Some(player), Some(false), None) => {
                Some(RecordedInput::Player(PlayerEvent::Left(player)))
            }
            (Some(player), None, Some(input)) => {
                Some(RecordedInput::Player(PlayerEvent::Input(PlayerInput {
                    player,
                    event: input.event()?,
                })))
            }
            _ => bail!("a player line has `player` and one of `joined` or `input`"),
        };
        let scene = match line.scene {
            Some(scene) => {
                let digest = u64::from_str_radix(&scene, 16)
                    .ok()
                    .filter(|_| scene.len() == 16)
                    .with_context(|| format!("`{scene}` is not a digest of 16 hex digits"))?;
                // A frame's scene may be written again (the end of a run,
                // or a world suspended after that frame), the same.
                if let Some((&last, &written)) = self.scenes.last_key_value()
                    && (last > frame || last == frame && written != digest)
                {
                    bail!("frame {frame} comes after frame {last}");
                }
                Some(digest)
            }
            None => None,
        };
        // Checked whole before any of it is kept.
        if let Some(input) = input {
            self.inputs.push((frame, input));
        }
        if let Some(digest) = scene {
            self.scenes.insert(frame, digest);
        }
        self.end = line.end;
        if let Some(entities) = line.entities {
            self.checkpoints.insert(frame, entities);
        }
        Ok(scene.is_some())
    }

    /// The last frame recorded.
    pub fn frames(&self) -> u64 {
        self.end
            .or_else(|| self.scenes.last_key_value().map(|(f, _)| *f))
            .unwrap_or(0)
    }
}

/// Most frames a recording may run (about 19 days at 60 Hz): a frame or
/// `end` past it is refused rather than replayed for ever.
pub const MAX_FRAMES: u64 = 100_000_000;

/// Most scripts, and instances of them all, a recording may start (the
/// CLI's `--max-instances` range).
const MAX_SCRIPTS: usize = 10_000;
const MAX_INSTANCES: u64 = 1_000_000;

fn parse_header(text: &str) -> Result<Header> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| anyhow::anyhow!("{e}"))?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        bail!("it does not start with a `{FORMAT}` header");
    }
    match value.get("version").and_then(|v| v.as_u64()) {
        Some(v) if (1..=u64::from(VERSION)).contains(&v) => {}
        Some(v) => bail!(
            "it is version {v} of the format; this host reads versions 1 to {VERSION} \
             (replay it with the host that recorded it)"
        ),
        None => bail!("it has no `version`"),
    }
    let header: Header = serde_json::from_value(value).map_err(|e| anyhow::anyhow!("{e}"))?;
    if !(header.hz.is_finite() && (0.1..=1000.0).contains(&header.hz)) {
        bail!("`hz` {} is not from 0.1 to 1000", header.hz);
    }
    if header.checkpoint_every == 0 {
        bail!("`checkpoint_every` is 0");
    }
    if header.checkpoint_every > MAX_FRAMES {
        bail!(
            "`checkpoint_every` {} is over {MAX_FRAMES}",
            header.checkpoint_every
        );
    }
    if !(1..=MAX_PLAYER_BYTES).contains(&header.player_bytes_per_frame) {
        bail!(
            "`player_bytes_per_frame` {} is not from 1 to {MAX_PLAYER_BYTES}",
            header.player_bytes_per_frame
        );
    }
    if header.scripts.is_empty() {
        bail!("it names no script");
    }
    if header.scripts.len() > MAX_SCRIPTS {
        bail!(
            "it names {} scripts; a recording holds at most {MAX_SCRIPTS}",
            header.scripts.len()
        );
    }
    let instances: u64 = header.scripts.iter().map(|s| u64::from(s.instances)).sum();
    if instances > MAX_INSTANCES {
        bail!("it starts {instances} instances; a recording holds at most {MAX_INSTANCES}");
    }
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    const HEADER: &str = r#"{"format":"game-host-recording","version":1,"host":"0.1.0","hz":60.0,"seed":7,"checkpoint_every":2,"scripts":[{"name":"a","source":"/a.wasm","sha256":"00","instances":1}]}"#;

    #[test]
    fn header_values_and_frames_are_bounded() {
        let refused = |header: &str, rest: &str| {
            let error = Recording::parse(&format!("{header}\n{rest}\n")).unwrap_err();
            format!("{error:#}")
        };
        let many = HEADER.replace(r#""instances":1"#, r#""instances":4000000000"#);
        assert!(
            refused(&many, "").contains("at most 1000000"),
            "{}",
            refused(&many, "")
        );
        let every = HEADER.replace(
            r#""checkpoint_every":2"#,
            r#""checkpoint_every":18446744073709551615"#,
        );
        assert!(refused(&every, "").contains("`checkpoint_every`"));
        let end = refused(HEADER, r#"{"end":18446744073709551615}"#);
        assert!(
            end.contains("line 2: frame 18446744073709551615 is past"),
            "{end}"
        );
    }

    #[test]
    fn reads_what_a_recorder_writes() {
        let text = format!(
            "{HEADER}\n{}\n{}\n{}\n",
            r#"{"frame":2,"input":{"press":"space"}}"#,
            r#"{"frame":1,"scene":"00000000000000ff"}"#,
            r#"{"end":1,"scene":"00000000000000ff","entities":[]}"#
        );
        let recording = Recording::parse(&text).unwrap();
        assert_eq!(recording.header.seed, 7);
        assert_eq!(recording.inputs.len(), 1);
        assert_eq!(recording.scenes[&1], 255);
        assert_eq!(recording.end, Some(1));
        assert_eq!(recording.frames(), 1);

        // Cut mid-line by a crash: the partial line is left out.
        let cut = &text[..text.len() - 20];
        let recording = Recording::parse(cut).unwrap();
        assert_eq!(recording.end, None);
        assert_eq!(recording.frames(), 1);
    }

    #[test]
    fn players_join_play_and_leave_in_order() {
        let text = format!(
            "{HEADER}\n{}\n{}\n{}\n{}\n",
            r#"{"frame":1,"player":3,"joined":true}"#,
            r#"{"frame":2,"player":3,"input":{"press":"enter"}}"#,
            r#"{"frame":2,"input":{"press":"space"}}"#,
            r#"{"frame":4,"player":3,"joined":false}"#,
        );
        let inputs = Recording::parse(&text).unwrap().inputs;
        assert!(matches!(
            inputs[..],
            [
                (1, RecordedInput::Player(PlayerEvent::Joined(3))),
                (
                    2,
                    RecordedInput::Player(PlayerEvent::Input(PlayerInput { player: 3, .. }))
                ),
                (2, RecordedInput::Event(Event::KeyPressed(_))),
                (4, RecordedInput::Player(PlayerEvent::Left(3))),
            ]
        ));
        let both = format!(
            "{HEADER}\n{{\"frame\":1,\"player\":3,\"joined\":true,\"input\":{{\"press\":\"a\"}}}}\n"
        );
        let error = format!("{:#}", Recording::parse(&both).unwrap_err());
        assert!(error.contains("one of `joined` or `input`"), "{error}");
    }

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

    #[test]
    fn names_what_is_wrong() {
        let error = |text: &str| format!("{:#}", Recording::parse(text).unwrap_err());
        assert!(error("").contains("it is empty"));
        assert!(error("{}").contains("header"));
        let newer = HEADER.replace(r#""version":1"#, r#""version":9"#);
        assert!(
            error(&newer).contains("version 9 of the format"),
            "{}",
            error(&newer)
        );
        let bad_digest = format!("{HEADER}\n{{\"frame\":1,\"scene\":\"xyz\"}}\n");
        assert!(error(&bad_digest).starts_with("line 2: `xyz` is not a digest"));
        let bad_key = format!("{HEADER}\n{{\"frame\":1,\"input\":{{\"press\":\"nokey\"}}}}\n");
        assert!(error(&bad_key).contains("unknown key `nokey`"));
        let backwards = format!(
            "{HEADER}\n{{\"frame\":2,\"scene\":\"0000000000000001\"}}\n{{\"frame\":1,\"scene\":\"0000000000000001\"}}\n"
        );
        assert!(error(&backwards).contains("frame 1 comes after frame 2"));
        // A frame's scene may come again (a world suspended after it), the
        // same, never another.
        let again = format!(
            "{HEADER}\n{{\"frame\":2,\"scene\":\"0000000000000001\"}}\n{{\"frame\":2,\"scene\":\"0000000000000001\"}}\n"
        );
        assert_eq!(Recording::parse(&again).unwrap().frames(), 2);
        let other = again.replacen("0000000000000001", "0000000000000002", 1);
        assert!(error(&other).contains("frame 2 comes after frame 2"));
        let no_scripts = HEADER.replace(
            r#"[{"name":"a","source":"/a.wasm","sha256":"00","instances":1}]"#,
            "[]",
        );
        assert!(error(&no_scripts).contains("names no script"));
    }
}
