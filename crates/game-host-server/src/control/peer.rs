//! What a node of a fleet uses to reach another node for a world it holds
//! (`relay` for requests, `forward` for players' streams).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use game_host::sync::LockExt;

/// The header of a request or stream sent on to the world's node: that
/// node answers it itself, so nothing is sent on twice.
pub(crate) const RELAYED: &str = "x-game-host-relayed";

/// How long connecting to the world's node may take.
pub(crate) const CONNECT_WITHIN: Duration = Duration::from_secs(5);

/// When a failure to reach another node was last logged, and how many
/// have gone unlogged since.
static LAST_WARNED: Mutex<(Option<Instant>, u64)> = Mutex::new((None, 0));

/// Logs a failure to reach another node, at most once a second: a node
/// that went away takes every request and stream for its worlds with it
/// until they fail over, and each would say the same. The next line says
/// how many were left out.
pub(crate) fn warn_unreached(message: std::fmt::Arguments) {
    let mut last = LAST_WARNED.lock_unpoisoned();
    let now = Instant::now();
    if last
        .0
        .is_some_and(|at| now.saturating_duration_since(at) < Duration::from_secs(1))
    {
        last.1 += 1;
        return;
    }
    match std::mem::take(&mut last.1) {
        0 => tracing::warn!("{message}"),
        unsaid => tracing::warn!("{message} (and {unsaid} more like it since the last)"),
    }
    last.0 = Some(now);
}
