//! What a node of a fleet uses to reach another node for a world it holds
//! (`relay` for requests, `forward` for players' streams).

use std::sync::Mutex;
use std::time::Duration;

use super::warned::Warned;
use game_host::sync::LockExt;

/// The header of a request or stream sent on to the world's node: that
/// node answers it itself, so nothing is sent on twice.
pub(crate) const RELAYED: &str = "x-game-host-relayed";

/// How long connecting to the world's node may take.
pub(crate) const CONNECT_WITHIN: Duration = Duration::from_secs(5);

/// Failures to reach another node: a node that went away takes every
/// request and stream for its worlds with it until they fail over, and
/// each would say the same.
static UNREACHED: Mutex<Warned> = Mutex::new(Warned::new());

/// Logs a failure to reach another node, at most once a second.
pub(crate) fn warn_unreached(message: std::fmt::Arguments) {
    UNREACHED.lock_unpoisoned().warn(message);
}
