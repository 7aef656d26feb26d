//! What a player's client receives, as JSON text (the default), as
//! MessagePack (the `game-host.msgpack` subprotocol: the same messages, the
//! same field names), or as compact binary deltas (the `game-host.delta`
//! subprotocol: [`super::delta`]).
//!
//! - `{"frame": N, "player": P, "precision": S, "entities": [...]}`: a
//!   snapshot of the entities the player sees, first on every stream and
//!   again after a client fell behind. Entities as `--dump-scene` writes
//!   them plus their `id`, and `data` (the replicated components' fields)
//!   where they have any. `precision` is the step the binary form rounds
//!   positions and scales to.
//! - `{"frame": N, "changed": [...], "removed": [ids]}`: the entities that
//!   changed or came into the player's view since the last update, whole,
//!   and those despawned or gone out of view (`removed` only when there
//!   are any). Frames where nothing the player sees changed send nothing.
//! - `{"frame": N, "message": {"channel": ..., "payload": ...}}`: a
//!   script's `send-to` this player or `broadcast`.
//! - `{"frame": N, "ack": S}`: the last of the player's commands the world
//!   had applied by frame N (after the frame's update), sent on a
//!   published frame after commands were applied.
//! - `{"frame": N, "ended": "why"}`: the world ended; the stream closes.
//! - `{"error": "why"}`: input that was refused (bad JSON, over the rate).
//!
//! The book's reference (`book/src/reference/stream.md`) lists all of it,
//! and its tests (`super::book`) hold it to this code.

use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use game_host::input::{Event, ScriptMessage, key_by_name};
use game_host::players::{Command, PlayerMessage};
use game_host::scene::{Field, Value};

/// One entity: its id and its transform, as `--dump-scene` has it, and its
/// replicated components.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntityState {
    pub id: u32,
    pub name: Arc<str>,
    pub position: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
    #[serde(skip_serializing_if = "Data::is_empty")]
    pub data: Data,
}

/// An entity's replicated components, each with its fields (in the order
/// the game declares them), in the order the world replicates them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Data(pub Arc<[(String, Vec<Field>)]>);

impl Data {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// About the bytes it holds (its components' and fields' names, and
    /// each field's place).
    pub fn kept_bytes(&self) -> usize {
        self.0
            .iter()
            .map(|(component, fields)| {
                component.len()
                    + fields
                        .iter()
                        .map(|f| std::mem::size_of::<Field>() + f.name.len())
                        .sum::<usize>()
            })
            .sum()
    }
}

impl Serialize for Data {
    /// `{"Health": {"hp": 3, "max": 10}}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Fields<'a>(&'a [Field]);
        impl Serialize for Fields<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for field in self.0 {
                    map.serialize_entry(&field.name, &JsonValue(&field.value))?;
                }
                map.end()
            }
        }
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (component, fields) in self.0.iter() {
            map.serialize_entry(component, &Fields(fields))?;
        }
        map.end()
    }
}

/// A field's value as JSON has it: a number, a bool, a string, or a list
/// of numbers (a vector, a quaternion, or numbers).
struct JsonValue<'a>(&'a Value);

impl Serialize for JsonValue<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Number(n) => serializer.serialize_f64(*n),
            Value::Integer(n) => serializer.serialize_i64(*n),
            Value::Boolean(b) => serializer.serialize_bool(*b),
            Value::Text(t) => serializer.serialize_str(t),
            Value::Vec3(v) => v.to_array().serialize(serializer),
            Value::Quat(q) => q.to_array().serialize(serializer),
            Value::Numbers(n) => n.serialize(serializer),
        }
    }
}

/// How a client takes its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    MessagePack,
    /// Binary deltas ([`super::delta`]).
    Delta,
}

impl Format {
    /// The subprotocol that asks for MessagePack.
    pub const MSGPACK_PROTOCOL: &'static str = "game-host.msgpack";
    /// The subprotocol that asks for binary deltas.
    pub const DELTA_PROTOCOL: &'static str = "game-host.delta";

    /// The format a client's `Sec-WebSocket-Protocol` offer asks for: the
    /// binary deltas where offered, else MessagePack where offered, else
    /// JSON (an unknown subprotocol falls back to it).
    pub fn offered(offer: Option<&str>) -> Format {
        let offers = |name: &str| offer.is_some_and(|o| o.split(',').any(|p| p.trim() == name));
        if offers(Format::DELTA_PROTOCOL) {
            Format::Delta
        } else if offers(Format::MSGPACK_PROTOCOL) {
            Format::MessagePack
        } else {
            Format::Json
        }
    }

    /// The subprotocol the server answers with, if any.
    pub fn protocol(self) -> Option<&'static str> {
        match self {
            Format::Json => None,
            Format::MessagePack => Some(Format::MSGPACK_PROTOCOL),
            Format::Delta => Some(Format::DELTA_PROTOCOL),
        }
    }

    /// Where an update's bytes in this format are kept.
    pub fn slot(self) -> usize {
        self as usize
    }

    /// Whether its messages go as binary WebSocket messages.
    pub fn binary(self) -> bool {
        self != Format::Json
    }
}

/// One message to a client, in the shape of the module's list.
#[derive(Serialize, Default)]
pub struct Wire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entities: Option<&'a [Arc<EntityState>]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<&'a [Arc<EntityState>]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<&'a [u32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<WireMessage<'a>>,
    /// The last of the player's commands applied by `frame`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<&'a str>,
    /// The server stops and the world resumes when it starts again: the
    /// client reconnects with its token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restarting: Option<&'a str>,
    /// With `restarting`: the world moves to another node of a fleet, at
    /// this address (`http://HOST:PORT`); any node redirects there too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconnect: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}

/// A script's message, as a client gets it.
#[derive(Serialize)]
pub struct WireMessage<'a> {
    pub channel: &'a str,
    pub payload: &'a str,
}

impl<'a> WireMessage<'a> {
    pub fn of(message: &'a PlayerMessage) -> Self {
        WireMessage {
            channel: &message.channel,
            payload: &message.payload,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(super) enum EventBody {
    Press(String),
    Release(String),
    Send { channel: String, payload: String },
}

/// `{"press": "enter"}`, `{"release": "e"}` or `{"send": {"channel": "c",
/// "payload": "p"}}`, key names as in `--input` files.
pub(crate) fn parse_event(body: &str) -> Result<Event> {
    let body: EventBody = serde_json::from_str(body).map_err(|e| anyhow!("bad event body: {e}"))?;
    let key = |name: &str| key_by_name(name).ok_or_else(|| anyhow!("unknown key `{name}`"));
    Ok(match body {
        EventBody::Press(name) => Event::KeyPressed(key(&name)?),
        EventBody::Release(name) => Event::KeyReleased(key(&name)?),
        EventBody::Send { channel, payload } => Event::Message(ScriptMessage { channel, payload }),
    })
}

/// A command as a client sends it: `{"seq": 3, "held": ["left", "up"]}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WireCommand {
    seq: u64,
    held: Vec<String>,
}

/// `{"commands": [{"seq": 3, "held": ["left"]}, ...]}`: the player's
/// numbered commands, oldest first; `None` for any other message.
pub(crate) fn parse_commands(body: &str) -> Option<Result<Vec<Command>>> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Commands {
        commands: Vec<WireCommand>,
    }
    // Only a message whose own field is `commands` (not a chat line that
    // says it).
    if !body.contains("\"commands\"") {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    value.as_object()?.get("commands")?;
    let parsed: Commands = match serde_json::from_value(value) {
        Ok(parsed) => parsed,
        Err(e) => return Some(Err(anyhow!("bad commands: {e}"))),
    };
    Some(
        parsed
            .commands
            .into_iter()
            .map(|command| {
                let mut held = command
                    .held
                    .iter()
                    .map(|name| key_by_name(name).ok_or_else(|| anyhow!("unknown key `{name}`")))
                    .collect::<Result<Vec<_>>>()?;
                // Each key once, in WIT order: what is recorded and handed
                // to scripts is bounded by the keys there are.
                held.sort_by_key(|key| *key as u8);
                held.dedup();
                if command.seq == 0 {
                    bail!("commands are numbered from 1");
                }
                Ok(Command {
                    seq: command.seq,
                    held,
                })
            })
            .collect(),
    )
}

/// Whether a client's message is `{"leave": true}`: its player leaves the
/// world.
pub(crate) fn is_leave(text: &str) -> bool {
    matches!(
        serde_json::from_str(text),
        Ok(serde_json::Value::Object(map)) if map.get("leave") == Some(&serde_json::Value::Bool(true))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_host::input::Key;

    #[test]
    fn both_formats_carry_the_documented_fields() {
        let cube = EntityState {
            id: 0,
            name: "cube".into(),
            position: [1.0, 0.0, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            data: Data::default(),
        };
        let changed = [Arc::new(cube)];
        let wire = Wire {
            frame: Some(7),
            changed: Some(&changed),
            ..Wire::default()
        };
        let json: serde_json::Value = serde_json::from_slice(&wire.encode(Format::Json)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"frame": 7, "changed": [{"id": 0, "name": "cube",
                "position": [1.0, 0.0, 0.0], "rotation": [0.0, 0.0, 0.0, 1.0],
                "scale": [1.0, 1.0, 1.0]}]})
        );
        let packed: serde_json::Value =
            rmp_serde::from_slice(&wire.encode(Format::MessagePack)).unwrap();
        assert_eq!(packed, json);
        assert_eq!(
            Format::offered(Some("x, game-host.msgpack")),
            Format::MessagePack
        );
        assert_eq!(Format::offered(None), Format::Json);
    }

    #[test]
    fn events_parse_from_json() {
        assert!(matches!(
            parse_event(r#"{"press":"enter"}"#),
            Ok(Event::KeyPressed(Key::Enter))
        ));
        assert!(matches!(
            parse_event(r#"{"release":"e"}"#),
            Ok(Event::KeyReleased(Key::E))
        ));
        match parse_event(r#"{"send":{"channel":"c","payload":"p q"}}"#) {
            Ok(Event::Message(m)) => {
                assert_eq!((m.channel.as_str(), m.payload.as_str()), ("c", "p q"))
            }
            _ => panic!("not a message"),
        }
        let error = parse_event(r#"{"press":"nope"}"#).unwrap_err().to_string();
        assert_eq!(error, "unknown key `nope`");
        assert!(parse_event("{}").is_err());
    }

    #[test]
    fn commands_parse_only_from_their_own_message() {
        let held = |text: &str| match parse_commands(text) {
            Some(Ok(commands)) => commands[0].held.clone(),
            other => panic!("{text}: {:?}", other.map(|r| r.map(|c| c.len()))),
        };
        assert_eq!(
            held(r#"{"commands": [{"seq": 1, "held": ["up", "left", "up"]}]}"#),
            [Key::Up, Key::Left]
        );
        // A chat line that says "commands" is a chat line.
        for text in [
            r#"{"send": {"channel": "commands", "payload": "\"commands\""}}"#,
            r#"{"send": {"channel": "c", "payload": "p"}, "x": {"commands": 1}}"#,
        ] {
            assert!(parse_commands(text).is_none(), "{text}");
        }
        let error = |text: &str| parse_commands(text).unwrap().unwrap_err().to_string();
        assert!(error(r#"{"commands": [{"seq": 0, "held": []}]}"#).contains("from 1"));
        assert!(error(r#"{"commands": 3}"#).starts_with("bad commands"));
    }
}
