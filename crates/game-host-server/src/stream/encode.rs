//! [`Wire::encode`]: a message in the form its client takes, JSON,
//! MessagePack or the binary deltas (`delta`), apart from both so that
//! neither names the other.

use bytes::Bytes;

use super::delta;
use super::wire::{Format, Wire};

impl Wire<'_> {
    /// The message in `format`. In binary deltas, `changed` goes whole (as
    /// entering the view); a view's update is encoded by
    /// [`delta::encode_update`] instead, with only what changed.
    pub fn encode(&self, format: Format) -> Bytes {
        match format {
            Format::Json => Bytes::from(serde_json::to_vec(self).expect("JSON always encodes")),
            Format::MessagePack => {
                Bytes::from(rmp_serde::to_vec_named(self).expect("MessagePack always encodes"))
            }
            Format::Delta => delta::encode_wire(self),
        }
    }
}
