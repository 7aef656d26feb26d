//! The per-frame update: [`subscribe`] to get
//! [`Script::on_message(id)`](crate::Script::on_message) once every frame.

use crate::bindings::game::engine::runtime;

/// The `on-message` id the host reserves for wake messages; it cannot be
/// subscribed. The export macro handles it.
pub const WAKE_MESSAGE: u32 = u32::MAX;

/// Receive `on_message(id)` once per frame, from the next frame on.
/// Subscribing an id twice does nothing.
pub fn subscribe(id: u32) {
    runtime::subscribe_update(id);
}

/// Stop receiving `on_message(id)`, from the next frame on.
pub fn unsubscribe(id: u32) {
    runtime::unsubscribe_update(id);
}
