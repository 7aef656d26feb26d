//! [`Command`]: what a script asks of the runtime during a call, applied
//! after the frame's dispatch.

use crate::input::{EventFilter, ScriptMessage};
use crate::jobs::{ErasedKey, JobKindId};
use crate::scene::EntityId;

/// Something a script asked of the runtime during a call: a deferred
/// command. Commands are applied in order after the call's frame is
/// dispatched, so they take effect on the next frame and never touch tables
/// being iterated.
#[derive(Debug)]
pub(crate) enum Command {
    Subscribe(u32),
    Unsubscribe(u32),
    WaitFrames {
        token: u64,
        frames: u32,
    },
    WaitSeconds {
        token: u64,
        seconds: f64,
    },
    Cancel(u64),
    WaitEvent {
        token: u64,
        filter: EventFilter,
        persistent: bool,
    },
    Send(ScriptMessage),
    MoveTo {
        token: u64,
        entity: EntityId,
        target: glam::Vec3,
        speed: f32,
    },
    Job {
        token: u64,
        kind: JobKindId,
        key: ErasedKey,
    },
    /// Listen to player events (`players.listen`).
    ListenPlayers(u64),
    /// A message to one player's client, or (`to: None`) to every player's.
    ToPlayers {
        to: Option<u64>,
        message: ScriptMessage,
    },
    /// A change to which entities players see (`views`).
    View(crate::views::ViewChange),
}
