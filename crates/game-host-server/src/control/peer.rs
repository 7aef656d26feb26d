//! What a node of a fleet uses to reach another node for a world it holds
//! (`relay` for requests, `forward` for players' streams).

use std::time::Duration;

/// The header of a request or stream sent on to the world's node: that
/// node answers it itself, so nothing is sent on twice.
pub(crate) const RELAYED: &str = "x-game-host-relayed";

/// How long connecting to the world's node may take.
pub(crate) const CONNECT_WITHIN: Duration = Duration::from_secs(5);
