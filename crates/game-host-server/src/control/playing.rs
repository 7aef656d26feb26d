//! [`Play`]: the public join a server was started with (`--play GAME`),
//! and what it keeps as it runs: each client address's joins, the turn
//! joins take to look for room, and the worlds the join started, which are
//! the only ones it seats players in and which it stops once no client has
//! been connected to them for a while ([`Play::empty_world_ends`]).

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
    /// The worlds the join started, each with since when no client of it
    /// has been connected (as last swept).
    worlds: Mutex<BTreeMap<WorldId, Option<Instant>>>,
}

impl Playing {
    pub fn new(play: Play) -> Self {
        Playing {
            buckets: Buckets::new(play.rate),
            play,
            turn: tokio::sync::Mutex::new(()),
            worlds: Mutex::new(BTreeMap::new()),
        }
    }

    /// The worlds the join started, in order.
    pub fn worlds(&self) -> Vec<WorldId> {
        self.worlds.lock_unpoisoned().keys().copied().collect()
    }

    /// The join started world `id`.
    pub fn started(&self, id: WorldId) {
        self.worlds.lock_unpoisoned().insert(id, None);
    }

    /// Forgets the worlds that ended, and stops those that have had no
    /// client connected for [`Play::empty_world_ends`] as of `now`: their
    /// ids.
    pub fn sweep(&self, server: &Server, now: Instant) -> Vec<WorldId> {
        let mut stopping = Vec::new();
        let mut ended = Vec::new();
        for (id, empty_since) in self.worlds.lock_unpoisoned().iter_mut() {
            match server.players(*id) {
                Err(_) => ended.push(*id),
                Ok(players) if players.iter().any(|(_, connected)| *connected) => {
                    *empty_since = None;
                }
                Ok(_) => {
                    let since = *empty_since.get_or_insert(now);
                    if now.saturating_duration_since(since) >= self.play.empty_world_ends {
                        stopping.push(*id);
                    }
                }
            }
        }
        for id in &stopping {
            match server.stop_world(*id) {
                Ok(_) => tracing::info!(
                    "stopped {id}: no player's client for {} s",
                    self.play.empty_world_ends.as_secs_f64()
                ),
                Err(error) => tracing::debug!("stopping {id}: {error:#}"),
            }
        }
        let mut worlds = self.worlds.lock_unpoisoned();
        for id in ended.iter().chain(&stopping) {
            worlds.remove(id);
        }
        stopping
    }
}
