//! Logging into the host's log, tagged with this script's name and
//! instance id. `println!` and `eprintln!` reach the same log.

use crate::bindings::game::engine::log as wit_log;
pub use crate::bindings::game::engine::log::Level;

/// Writes `message` to the host log at `level`.
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
