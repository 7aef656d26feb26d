//! What a player's client receives, as JSON text (the default) or as
//! MessagePack (the `game-host.msgpack` subprotocol): the same messages,
//! the same field names.
//!
//! - `{"frame": N, "player": P, "entities": [...]}`: a snapshot, first on
//!   every stream and again after a client fell behind. Entities as
//!   `--dump-scene` writes them plus their `id`.
//! - `{"frame": N, "changed": [...], "removed": [ids]}`: the entities that
//!   changed (or appeared) since the last update, and those despawned
//!   (`removed` only when there are any). Frames where nothing changed send
//!   nothing.
//! - `{"frame": N, "message": {"channel": ..., "payload": ...}}`: a
//!   script's `send-to` this player or `broadcast`.
//! - `{"frame": N, "ended": "why"}`: the world ended; the stream closes.
//! - `{"error": "why"}`: input that was refused (bad JSON, over the rate).

use anyhow::{Result, anyhow};
use bytes::Bytes;
use serde::{Deserialize, Serialize};

use game_host::input::{Event, ScriptMessage, key_by_name};
use game_host::players::PlayerMessage;

/// One entity: its id and its transform, as `--dump-scene` has it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntityState {
    pub id: u32,
    pub name: String,
    pub position: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

/// How a client takes its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    MessagePack,
}

impl Format {
    /// The subprotocol that asks for MessagePack.
    pub const MSGPACK_PROTOCOL: &'static str = "game-host.msgpack";

    /// The format a client's `Sec-WebSocket-Protocol` offer asks for.
    pub fn offered(offer: Option<&str>) -> Format {
        let asks = offer.is_some_and(|offer| {
            offer
                .split(',')
                .any(|p| p.trim() == Format::MSGPACK_PROTOCOL)
        });
        if asks {
            Format::MessagePack
        } else {
            Format::Json
        }
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
    pub entities: Option<&'a [EntityState]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<&'a [EntityState]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<&'a [u32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<WireMessage<'a>>,
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

impl Wire<'_> {
    /// The message in `format`.
    pub fn encode(&self, format: Format) -> Bytes {
        match format {
            Format::Json => Bytes::from(serde_json::to_vec(self).expect("JSON always encodes")),
            Format::MessagePack => {
                Bytes::from(rmp_serde::to_vec_named(self).expect("MessagePack always encodes"))
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum EventBody {
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
        };
        let changed = [cube];
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
}
