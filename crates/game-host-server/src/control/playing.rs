//! [`Play`]: the public join a server was started with (`--play GAME`),
//! and what it keeps as it runs: each client address's joins, the turn
//! joins take to look for room, and since when each world the join started
//! has had no client connected, to stop it after a while
//! ([`Play::empty_world_ends`]). Which worlds the join started is kept
//! with each world ([`WorldSpec::play`](crate::WorldSpec::play)), in
//! its state directory where it has one: they stay the join's when they
//! resume, are handed to another node or fail over to one.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::rate::{Buckets, JoinRate};
use crate::{Server, WorldId};
use game_host::sync::LockExt;

/// How long a world the public join started runs with no client connected
/// before it is stopped, by default.
pub const EMPTY_WORLD_ENDS: Duration = Duration::from_secs(60);

/// The public join, when the server has one (`--play GAME`).
#[derive(Debug, Clone, PartialEq)]
pub struct Play {
    /// The name players join by (`{"game": "arena"}`).
    pub game: String,
    /// How often one client address may join.
    pub rate: JoinRate,
    /// How long a world the join started runs with no client connected
    /// before it is stopped (its seats, and its room on the server, given
    /// back): [`EMPTY_WORLD_ENDS`] by default.
    pub empty_world_ends: Duration,
}

/// A server's public join, as it runs.
pub(crate) struct Playing {
    pub play: Play,
    pub buckets: Buckets,
    /// One join at a time looks for room, so that two joins that find
    /// none start one world between them, not two. Waited for on the event
    /// loop, so waiting joins hold no worker thread.
    pub turn: tokio::sync::Mutex<()>,
    /// Since when no client has been connected to each world the join
    /// started, as last swept (a world that came here counts from when it
    /// is first seen empty).
    empty_since: Mutex<BTreeMap<WorldId, Instant>>,
}

impl Playing {
    pub fn new(play: Play) -> Self {
        Playing {
            buckets: Buckets::new(play.rate),
            play,
            turn: tokio::sync::Mutex::new(()),
            empty_since: Mutex::new(BTreeMap::new()),
        }
    }

    /// Stops the worlds the join started that have had no client
    /// connected for [`Play::empty_world_ends`] as of `now`: their ids.
    pub fn sweep(&self, server: &Server, now: Instant) -> Vec<WorldId> {
        let mut stopping = Vec::new();
        let mut empty_since = self.empty_since.lock_unpoisoned();
        let mut still = BTreeMap::new();
        for id in server.public_worlds(&self.play.game) {
            match server.players(id) {
                // Ended since it was listed.
                Err(_) => {}
                Ok(players) if players.iter().any(|(_, connected)| *connected) => {}
                Ok(_) => {
                    let since = *empty_since.get(&id).unwrap_or(&now);
                    match now.saturating_duration_since(since) >= self.play.empty_world_ends {
                        true => stopping.push(id),
                        false => {
                            still.insert(id, since);
                        }
                    }
                }
            }
        }
        *empty_since = still;
        drop(empty_since);
        for id in &stopping {
            match server.stop_world(*id) {
                Ok(_) => tracing::info!(
                    "stopped {id}: no player's client for {} s",
                    self.play.empty_world_ends.as_secs_f64()
                ),
                Err(error) => tracing::debug!("stopping {id}: {error:#}"),
            }
        }
        stopping
    }
}
