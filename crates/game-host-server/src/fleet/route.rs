//! Where things are in a fleet: the node that holds a world (so that any
//! node answers for any world, by a redirect a client follows), and the
//! node a new world goes to (the one with the most room).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::Node;
use crate::Server;
use crate::world::WorldId;
use game_host::sync::LockExt;

/// How long a world's place is remembered for redirects.
const REMEMBER: Duration = Duration::from_secs(1);

/// Most places remembered at once.
const MAX_REMEMBERED: usize = 4096;

impl Node {
    /// The address (`HOST:PORT`) of the live node that holds world `id`,
    /// when it is not this one; `None` when this node holds it, or no
    /// node does. Asks the engine (a blocking call).
    pub fn locate(&self, id: u64) -> Option<String> {
        if let Some((address, at)) = self.routes.lock_unpoisoned().get(&id)
            && at.elapsed() < REMEMBER
        {
            return Some(address.clone());
        }
        let mut conn = self.link.conn();
        let entry = self.link.world(&mut conn, id).ok()??;
        if entry.owner.is_empty() || entry.owner == self.link.node {
            return None;
        }
        let nodes = self.link.nodes(&mut conn).ok()?;
        let owner = nodes.iter().find(|n| n.id == entry.owner && n.live)?;
        let mut routes = self.routes.lock_unpoisoned();
        if routes.len() >= MAX_REMEMBERED {
            routes.clear();
        }
        routes.insert(id, (owner.addr.clone(), Instant::now()));
        Some(owner.addr.clone())
    }

    /// Where a request for world `id` should go instead of here, if this
    /// server does not run it and another node holds it.
    pub fn redirect_for(&self, server: &Server, id: WorldId) -> Option<String> {
        if server.thread_of_world(id).is_some() {
            return None;
        }
        self.locate(id.0)
    }

    /// The address of the node a new world should start on, when it is not
    /// this one: the live node with the most room, if it has more than this
    /// one (or any room, while this one drains).
    pub fn place_elsewhere(&self, server: &Server) -> Option<String> {
        let nodes = self.link.nodes(&mut self.link.conn()).ok()?;
        let mine = match self.draining.load(Ordering::Relaxed) {
            true => Some(0),
            false => nodes
                .iter()
                .find(|n| n.id == self.link.node)
                .map_or_else(|| server.free_slots(), |n| n.free),
        };
        let best = nodes
            .iter()
            .filter(|n| n.id != self.link.node && n.takes_worlds())
            .max_by_key(|n| n.room())?;
        (best.room() > mine.unwrap_or(usize::MAX)).then(|| best.addr.clone())
    }

    /// Tells world `id`'s clients, as it is suspended, that it moves to the
    /// node at `address`.
    pub(super) fn tell_moving(&self, server: &Server, id: u64, address: &str) {
        if let Some(hub) = server.shared.hubs.lock_unpoisoned().get(&WorldId(id)) {
            hub.moving_to(&format!("http://{address}"));
        }
    }
}
