//! The stream's binary form (the `game-host.delta` subprotocol): the same
//! messages as the JSON text, in [postcard]'s wire format, with only what
//! changed. Postcard is a maintained serde format with a written
//! specification: integers as LEB128 varints (zigzag for signed ones),
//! strings and lists with a varint length, enums with a varint tag, floats
//! as little-endian bytes, a `u8` as one byte. A client decodes it in a
//! few dozen lines (the TypeScript library's `client/src/delta.ts`), where
//! MessagePack keeps every field's name and float whole.
//!
//! Each message is one `Down` value:
//!
//! | tag | message | fields |
//! | --- | --- | --- |
//! | 0 | snapshot | frame, player, precision (f32), entities: list of whole |
//! | 1 | update | frame, entered: list of whole, changed: list of change, removed: list of ids |
//! | 2 | message | frame, channel, payload |
//! | 3 | ended | frame, why |
//! | 4 | restarting | frame, why, reconnect (option of string) |
//! | 5 | error | why |
//! | 6 | ack | frame, seq: the last of the player's commands applied by the frame |
//!
//! - A *whole* entity: id, name, position (3 × i64: the value divided by
//!   `precision`, rounded), rotation (u64: smallest three, below), scale
//!   (3 × i64, in steps of [`SCALE_STEP`]), data (list of components).
//! - A *change*: id, a mask (u8: 1 position, 2 rotation, 4 scale, 8 name,
//!   16 data), then only the fields the mask names, in that order. Names
//!   go once: when an entity enters the view, or when its name changes.
//! - A rotation drops its largest component (its sign made positive) and
//!   keeps the other three in [`ROTATION_BITS`] bits each: c in
//!   [-1/√2, 1/√2] as round((c·√2 + 1) / 2 · (2^bits − 2)), so that 0 is
//!   exact. Bits 0-1 hold the dropped component's index, then the three
//!   others in order, lowest bits first.
//! - A component: name, then its fields as a list of (name, value), a
//!   value a tag and its data: 0 number (f64), 1 integer (i64), 2 boolean, 3 text, 4 vec3
//!   (3 × f32), 5 quat (4 × f32), 6 numbers (list of f64).
//!
//! The book's stream reference (`book/src/reference/stream.md`) gives the
//! same tables to a client's author; the tests hold it to this code.

use bytes::Bytes;
use serde::Serialize;
use serde::ser::{SerializeTuple, Serializer};

use super::wire::{EntityState, Wire};
use game_host::scene::{Field, Value};

/// Bits of each of a rotation's three kept components.
pub const ROTATION_BITS: u32 = 12;

/// A change's mask bits.
pub mod mask {
    pub const POSITION: u8 = 1;
    pub const ROTATION: u8 = 2;
    pub const SCALE: u8 = 4;
    pub const NAME: u8 = 8;
    pub const DATA: u8 = 16;
    pub const ALL: u8 = 31;
}

/// The step scales are rounded to, whatever the world's precision.
pub const SCALE_STEP: f32 = 0.001;

/// `v` in steps of `step`, rounded (an infinity is clamped to the range;
/// a NaN is 0).
pub fn quantise(v: f32, step: f32) -> i64 {
    (f64::from(v) / f64::from(step)).round() as i64
}

fn quantise3(v: [f32; 3], step: f32) -> [i64; 3] {
    v.map(|x| quantise(x, step))
}

/// A rotation in the smallest-three form (see the module's list); one that
/// is not finite or not a rotation goes as the identity.
pub fn pack_rotation(q: [f32; 4]) -> u64 {
    // In f64: a finite quaternion of huge or tiny components still has a
    // length.
    let length = q.iter().map(|c| f64::from(*c).powi(2)).sum::<f64>().sqrt();
    let q = if length.is_finite() && length > 1e-30 {
        q.map(|c| (f64::from(c) / length) as f32)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    };
    let largest = (0..4)
        .max_by(|a, b| q[*a].abs().total_cmp(&q[*b].abs()))
        .expect("four");
    let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 };
    let top = ((1u64 << ROTATION_BITS) - 2) as f32;
    let mut packed = largest as u64;
    let mut shift = 2;
    for (at, c) in q.iter().enumerate() {
        if at == largest {
            continue;
        }
        let unit = (c * sign * std::f32::consts::SQRT_2 + 1.0) / 2.0;
        let step = (unit.clamp(0.0, 1.0) * top).round() as u64;
        packed |= step << shift;
        shift += ROTATION_BITS;
    }
    packed
}

/// [`pack_rotation`] undone (as a client does it).
#[cfg(test)]
pub fn unpack_rotation(packed: u64) -> [f32; 4] {
    let largest = (packed & 3) as usize;
    let top = ((1u64 << ROTATION_BITS) - 2) as f32;
    let mut q = [0.0f32; 4];
    let mut shift = 2;
    let mut sum = 0.0;
    for (at, c) in q.iter_mut().enumerate() {
        if at == largest {
            continue;
        }
        let step = ((packed >> shift) & ((1 << ROTATION_BITS) - 1)) as f32;
        *c = (step / top * 2.0 - 1.0) / std::f32::consts::SQRT_2;
        sum += *c * *c;
        shift += ROTATION_BITS;
    }
    q[largest] = (1.0 - sum).max(0.0).sqrt();
    q
}

/// An entity in the binary form, whole or in part (`mask`).
struct Entity<'a> {
    state: &'a EntityState,
    mask: u8,
    whole: bool,
    precision: f32,
}

impl Serialize for Entity<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Postcard writes a tuple's elements one after another, with no
        // length: the fields present follow the mask.
        let mut out = serializer.serialize_tuple(8)?;
        let state = self.state;
        out.serialize_element(&state.id)?;
        let mask = if self.whole { mask::ALL } else { self.mask };
        if self.whole {
            out.serialize_element(&*state.name)?;
        } else {
            out.serialize_element(&mask)?;
        }
        if mask & mask::POSITION != 0 {
            out.serialize_element(&quantise3(state.position, self.precision))?;
        }
        if mask & mask::ROTATION != 0 {
            out.serialize_element(&pack_rotation(state.rotation))?;
        }
        if mask & mask::SCALE != 0 {
            out.serialize_element(&quantise3(state.scale, SCALE_STEP))?;
        }
        if !self.whole && mask & mask::NAME != 0 {
            out.serialize_element(&*state.name)?;
        }
        if mask & mask::DATA != 0 {
            let components: Vec<Component> = state
                .data
                .0
                .iter()
                .map(|(name, fields)| Component { name, fields })
                .collect();
            out.serialize_element(&components)?;
        }
        out.end()
    }
}

struct Component<'a> {
    name: &'a str,
    fields: &'a [Field],
}

impl Serialize for Component<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields: Vec<(&str, Val)> = self
            .fields
            .iter()
            .map(|f| (f.name.as_str(), Val(&f.value)))
            .collect();
        (self.name, fields).serialize(serializer)
    }
}

struct Val<'a>(&'a Value);

impl Serialize for Val<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        const NAME: &str = "value";
        match self.0 {
            Value::Number(n) => serializer.serialize_newtype_variant(NAME, 0, "number", n),
            Value::Integer(n) => serializer.serialize_newtype_variant(NAME, 1, "integer", n),
            Value::Boolean(b) => serializer.serialize_newtype_variant(NAME, 2, "boolean", b),
            Value::Text(t) => serializer.serialize_newtype_variant(NAME, 3, "text", t),
            Value::Vec3(v) => serializer.serialize_newtype_variant(NAME, 4, "vec3", &v.to_array()),
            Value::Quat(q) => serializer.serialize_newtype_variant(NAME, 5, "quat", &q.to_array()),
            Value::Numbers(n) => serializer.serialize_newtype_variant(NAME, 6, "numbers", n),
        }
    }
}

/// One message to a client.
#[derive(Serialize)]
enum Down<'a> {
    Snapshot {
        frame: u64,
        player: u64,
        precision: f32,
        entities: Vec<Entity<'a>>,
    },
    Update {
        frame: u64,
        entered: Vec<Entity<'a>>,
        changed: Vec<Entity<'a>>,
        removed: &'a [u32],
    },
    Message {
        frame: u64,
        channel: &'a str,
        payload: &'a str,
    },
    Ended {
        frame: u64,
        why: &'a str,
    },
    Restarting {
        frame: u64,
        why: &'a str,
        reconnect: Option<&'a str>,
    },
    Error {
        why: &'a str,
    },
    Ack {
        frame: u64,
        seq: u64,
    },
}

fn bytes(down: &Down) -> Bytes {
    Bytes::from(postcard::to_allocvec(down).expect("the binary form always encodes"))
}

fn wholes<'a>(states: &'a [std::sync::Arc<EntityState>], precision: f32) -> Vec<Entity<'a>> {
    states
        .iter()
        .map(|state| Entity {
            state,
            mask: mask::ALL,
            whole: true,
            precision,
        })
        .collect()
}

/// A view's update: the entities that entered it, whole; those that
/// changed in it, each with the mask of what changed; those that left it.
pub fn encode_update(
    frame: u64,
    entered: &[std::sync::Arc<EntityState>],
    changed: &[(std::sync::Arc<EntityState>, u8)],
    removed: &[u32],
    precision: f32,
) -> Bytes {
    let changed = changed
        .iter()
        .map(|(state, mask)| Entity {
            state,
            mask: *mask,
            whole: false,
            precision,
        })
        .collect();
    bytes(&Down::Update {
        frame,
        entered: wholes(entered, precision),
        changed,
        removed,
    })
}

/// Any other message of the stream, in the binary form.
pub fn encode_wire(wire: &Wire) -> Bytes {
    let frame = wire.frame.unwrap_or(0);
    let precision = wire.precision.unwrap_or(super::DEFAULT_PRECISION);
    let down = if let Some(entities) = wire.entities {
        Down::Snapshot {
            frame,
            player: wire.player.unwrap_or(0),
            precision,
            entities: wholes(entities, precision),
        }
    } else if let Some(changed) = wire.changed {
        Down::Update {
            frame,
            entered: wholes(changed, precision),
            changed: Vec::new(),
            removed: wire.removed.unwrap_or(&[]),
        }
    } else if let Some(message) = &wire.message {
        Down::Message {
            frame,
            channel: message.channel,
            payload: message.payload,
        }
    } else if let Some(seq) = wire.ack {
        Down::Ack { frame, seq }
    } else if let Some(why) = wire.ended {
        Down::Ended { frame, why }
    } else if let Some(why) = wire.restarting {
        Down::Restarting {
            frame,
            why,
            reconnect: wire.reconnect,
        }
    } else {
        Down::Error {
            why: wire.error.unwrap_or(""),
        }
    };
    bytes(&down)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::wire::Data;
    use game_host::book_tables::assert_lists_exactly;
    use std::sync::Arc;

    /// The book's stream reference (`book/src/reference/stream.md`): the
    /// binary form's message tags, mask bits and value tags, as this
    /// module writes them.
    #[test]
    fn the_books_binary_form_is_this_encoding() {
        fn name(down: &Down) -> &'static str {
            match down {
                Down::Snapshot { .. } => "snapshot",
                Down::Update { .. } => "update",
                Down::Message { .. } => "message",
                Down::Ended { .. } => "ended",
                Down::Restarting { .. } => "restarting",
                Down::Error { .. } => "error",
                Down::Ack { .. } => "ack",
            }
        }
        let messages = [
            Down::Snapshot {
                frame: 1,
                player: 1,
                precision: 0.001,
                entities: Vec::new(),
            },
            Down::Update {
                frame: 1,
                entered: Vec::new(),
                changed: Vec::new(),
                removed: &[],
            },
            Down::Message {
                frame: 1,
                channel: "chat",
                payload: "gg",
            },
            Down::Ended { frame: 1, why: "" },
            Down::Restarting {
                frame: 1,
                why: "",
                reconnect: None,
            },
            Down::Error { why: "" },
            Down::Ack { frame: 1, seq: 1 },
        ];
        let tags: Vec<(String, String)> = messages
            .iter()
            .map(|down| (bytes(down)[0].to_string(), name(down).to_owned()))
            .collect();
        assert_lists_exactly("stream.md", Some("The binary form"), &tags);

        let bits = [
            (mask::POSITION, "position"),
            (mask::ROTATION, "rotation"),
            (mask::SCALE, "scale"),
            (mask::NAME, "name"),
            (mask::DATA, "data"),
        ];
        assert_eq!(bits.iter().fold(0, |all, (bit, _)| all | bit), mask::ALL);
        let bits = bits.map(|(bit, field)| (bit.to_string(), field.to_owned()));
        assert_lists_exactly("stream.md", Some("A change's mask"), &bits);

        let values = [
            Value::Number(1.0),
            Value::Integer(1),
            Value::Boolean(true),
            Value::Text("t".into()),
            Value::Vec3(glam::Vec3::ONE),
            Value::Quat(glam::Quat::IDENTITY),
            Value::Numbers(vec![1.0]),
        ];
        let tags: Vec<(String, String)> = values
            .iter()
            .map(|value| {
                let tag = postcard::to_allocvec(&Val(value)).unwrap()[0];
                (tag.to_string(), value.kind().to_owned())
            })
            .collect();
        assert_lists_exactly("stream.md", Some("A value's tag"), &tags);
    }

    #[test]
    fn rotations_come_back_within_their_step() {
        let step = std::f32::consts::SQRT_2 / ((1 << ROTATION_BITS) - 2) as f32;
        for q in [
            glam::Quat::IDENTITY,
            glam::Quat::from_rotation_y(2.5),
            glam::Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.9),
            -glam::Quat::from_rotation_x(0.7),
        ] {
            let back = glam::Quat::from_array(unpack_rotation(pack_rotation(q.to_array())));
            // The same rotation (q and -q are one).
            assert!(
                back.dot(q).abs() > 1.0 - 4.0 * step,
                "{q} came back as {back}"
            );
        }
        assert_eq!(
            unpack_rotation(pack_rotation([f32::NAN; 4])),
            [0.0, 0.0, 0.0, 1.0]
        );
    }

    #[test]
    fn an_ack_is_its_tag_frame_and_seq() {
        let wire = Wire {
            frame: Some(300),
            ack: Some(5),
            ..Wire::default()
        };
        // Tag 6, then 300 and 5 as varints.
        assert_eq!(&encode_wire(&wire)[..], [6, 0xac, 0x02, 5]);
    }

    #[test]
    fn a_change_carries_only_its_masked_fields() {
        let state = Arc::new(EntityState {
            id: 3,
            name: "cube".into(),
            position: [1.0, 2.0, -3.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            data: Data(Arc::from(vec![(
                "Health".to_owned(),
                vec![Field::new("hp", Value::Integer(7))],
            )])),
        });
        let turned = encode_update(300, &[], &[(state.clone(), mask::ROTATION)], &[], 0.001);
        // Tag, frame (2 bytes), no entered, one change: id, mask, the
        // rotation (6 bytes), no removed.
        assert_eq!(turned.len(), 1 + 2 + 1 + 1 + 1 + 1 + 6 + 1);
        assert_eq!(&turned[..6], &[1, 0xac, 0x02, 0, 1, 3]);
        let entered = encode_update(300, &[state], &[], &[9], 0.001);
        // Positions in millimetres as zigzag varints: 1000 -> 2000.
        let whole = &entered[4..];
        assert_eq!(&whole[..6], &[3, 4, b'c', b'u', b'b', b'e']);
        assert_eq!(&whole[6..8], &[0xd0, 0x0f]);
        assert!(entered.ends_with(&[1, 9]));
    }
}
