//! What befalls scripts, as Bevy messages: [`ScriptStarted`] when one
//! starts, and [`ScriptFailed`] when one fails. A failed script is stopped
//! alone (the runtime's sandbox), the plugin logs the error as one line,
//! and the app keeps running.

use bevy::prelude::{Entity, Message};

/// A script failed: it did not compile or start, trapped, ran past its
/// deadline or over a limit or quota, or a hot-swap of it failed (the old
/// version then keeps running).
#[derive(Message, Debug, Clone)]
pub struct ScriptFailed {
    /// The entity whose [`Script`](crate::Script) it is.
    pub entity: Entity,
    /// What failed, in one line (the script, its instance, the frame and
    /// the cause, where known).
    pub error: String,
}

impl ScriptFailed {
    pub(crate) fn new(entity: Entity, error: anyhow::Error) -> Self {
        ScriptFailed {
            entity,
            error: format!("{error:#}"),
        }
    }
}

/// A script started: its asset was ready, its instance was made on the
/// background queue, and its `entrypoint` ran, at the start of a step (a
/// hot swap is not a start).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptStarted {
    /// The entity whose [`Script`](crate::Script) it is.
    pub entity: Entity,
    /// The runtime's frame when it started (0 for the first scripts).
    pub frame: u64,
}
