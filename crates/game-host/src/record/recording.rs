//! [`Recording`]: a recording read back, trusting nothing in it: every
//! line checked, the header's values bounded, and a log cut or damaged
//! mid-way read up to its last whole line.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::format::{FORMAT, Header, Line, RecordedEntity, RecordedInput, VERSION};
use crate::files::read_capped;
use crate::players::{PlayerCommands, PlayerEvent, PlayerInput};

/// The largest recording read back (a long match at 60 Hz writes about
/// 2 MB an hour plus its checkpoints).
const MAX_RECORDING: u64 = 1 << 30;

/// The longest header line read on its own (the header names each script
/// once: 10,000 scripts fit many times over).
const MAX_HEADER: u64 = 16 << 20;

/// The largest budget of bytes sent to players per frame a recording may
/// name (as `host serve --player-bytes-per-frame` allows).
const MAX_PLAYER_BYTES: usize = 64 << 20;

/// Most commands one line may give a player for one frame (a server
/// applies far fewer: `game_host_server`'s command budget).
const MAX_RECORDED_COMMANDS: usize = 4096;

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

    /// Reads only the header of the recording at `path` (its first line, up
    /// to [`MAX_HEADER`] bytes), with its values bounded as [`read`]
    /// bounds them: what a server needs to know of a log before it
    /// reserves room for its world.
    ///
    /// [`read`]: Recording::read
    pub fn read_header(path: &Path) -> Result<Header> {
        // Looked at before it is opened: opening a FIFO would wait for a
        // writer.
        let regular = std::fs::metadata(path).is_ok_and(|meta| meta.is_file());
        if !regular {
            bail!("`{}` is not a regular file", path.display());
        }
        let file = std::fs::File::open(path)
            .with_context(|| format!("failed to read `{}`", path.display()))?;
        let mut line = Vec::new();
        std::io::BufRead::read_until(
            &mut std::io::BufReader::new(std::io::Read::take(file, MAX_HEADER)),
            b'\n',
            &mut line,
        )
        .with_context(|| format!("failed to read `{}`", path.display()))?;
        if !line.ends_with(b"\n") {
            bail!(
                "`{}`: its header is not one whole line of at most {MAX_HEADER} bytes",
                path.display()
            );
        }
        let text = std::str::from_utf8(&line)
            .map_err(|_| anyhow::anyhow!("`{}`: its header is not UTF-8", path.display()))?;
        parse_header(text.trim_end())
            .with_context(|| format!("`{}`: line 1 (the header)", path.display()))
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
        let input = match (line.player, line.joined, line.input, line.commands) {
            (None, None, None, None) => None,
            (None, None, Some(input), None) => Some(RecordedInput::Event(input.event()?)),
            (Some(player), None, None, Some(commands)) => {
                if commands.len() > MAX_RECORDED_COMMANDS {
                    bail!("more than {MAX_RECORDED_COMMANDS} commands of a player in a frame");
                }
                Some(RecordedInput::Player(PlayerEvent::Commands(
                    PlayerCommands {
                        player,
                        commands: commands
                            .into_iter()
                            .map(|c| c.command())
                            .collect::<Result<_>>()?,
                    },
                )))
            }
            (Some(player), Some(true), None, None) => {
                Some(RecordedInput::Player(PlayerEvent::Joined(player)))
            }
            (Some(player), Some(false), None, None) => {
                Some(RecordedInput::Player(PlayerEvent::Left(player)))
            }
            (Some(player), None, Some(input), None) => {
                Some(RecordedInput::Player(PlayerEvent::Input(PlayerInput {
                    player,
                    event: input.event()?,
                })))
            }
            _ => bail!("a player line has `player` and one of `joined`, `input` or `commands`"),
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
    use crate::input::Event;

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
            "{HEADER}\n{}\n{}\n{}\n{}\n{}\n",
            r#"{"frame":1,"player":3,"joined":true}"#,
            r#"{"frame":2,"player":3,"input":{"press":"enter"}}"#,
            r#"{"frame":2,"input":{"press":"space"}}"#,
            r#"{"frame":3,"player":3,"commands":[{"seq":1,"held":["left","up"]},{"seq":2,"held":[]}]}"#,
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
                (3, RecordedInput::Player(PlayerEvent::Commands(_))),
                (4, RecordedInput::Player(PlayerEvent::Left(3))),
            ]
        ));
        let RecordedInput::Player(PlayerEvent::Commands(commands)) = &inputs[3].1 else {
            unreachable!("matched above")
        };
        assert_eq!(
            commands.commands,
            [
                crate::players::Command {
                    seq: 1,
                    held: vec![crate::input::Key::Left, crate::input::Key::Up]
                },
                crate::players::Command {
                    seq: 2,
                    held: vec![]
                }
            ]
        );
        let unknown = format!(
            "{HEADER}\n{}\n",
            r#"{"frame":1,"player":3,"commands":[{"seq":1,"held":["warp"]}]}"#
        );
        let error = format!("{:#}", Recording::parse(&unknown).unwrap_err());
        assert!(error.contains("unknown key `warp`"), "{error}");
        let both = format!(
            "{HEADER}\n{{\"frame\":1,\"player\":3,\"joined\":true,\"input\":{{\"press\":\"a\"}}}}\n"
        );
        let error = format!("{:#}", Recording::parse(&both).unwrap_err());
        assert!(
            error.contains("one of `joined`, `input` or `commands`"),
            "{error}"
        );
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
