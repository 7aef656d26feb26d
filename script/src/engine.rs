//! Engine functions: logging, update subscriptions and the frame clock.

use crate::Level;
use crate::bindings::game::engine::{log as wit_log, runtime};

/// Writes `message` to the host log at `level`, tagged with this script's
/// name and instance id.
pub fn log(level: Level, message: &str) {
    wit_log::log(level, message);
}

/// Logs at [`Level::Trace`].
pub fn trace(message: &str) {
    log(Level::Trace, message);
}

/// Logs at [`Level::Debug`].
pub fn debug(message: &str) {
    log(Level::Debug, message);
}

/// Logs at [`Level::Info`].
pub fn info(message: &str) {
    log(Level::Info, message);
}

/// Logs at [`Level::Warn`].
pub fn warn(message: &str) {
    log(Level::Warn, message);
}

/// Logs at [`Level::Error`].
pub fn error(message: &str) {
    log(Level::Error, message);
}

/// Receive `on_message(id)` once per frame, from the next frame on.
/// Subscribing an id twice does nothing.
pub fn subscribe_update(id: u32) {
    runtime::subscribe_update(id);
}

/// Stop receiving `on_message(id)`, from the next frame on.
pub fn unsubscribe_update(id: u32) {
    runtime::unsubscribe_update(id);
}

/// Seconds of game time the current frame advances (the fixed timestep).
pub fn delta_time() -> f32 {
    runtime::delta_time()
}

/// Number of the current frame: 1 on the first frame, 0 during `entrypoint`.
pub fn frame() -> u64 {
    runtime::frame()
}

/// Game time in seconds at the end of the current frame.
pub fn time() -> f64 {
    runtime::time()
}
