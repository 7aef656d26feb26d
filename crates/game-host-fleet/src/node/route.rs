//! Where things are in a fleet: the node that holds a world (so that any
//! node answers for any world, relaying its requests there), and the
//! node a new world goes to (the one with the most room).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::Node;
use crate::coordinator::{Conn, NodeEntry};
use game_host::sync::LockExt;
use game_host_server::{Server, WorldId};

/// How long a world's place is remembered for relayed requests.
const REMEMBER: Duration = Duration::from_secs(1);

/// Most places remembered at once.
const MAX_REMEMBERED: usize = 4096;

/// Connections to Redis kept for lookups (the control surface asks
/// from at most this many threads at once).
const MAX_CONNS: usize = 4;

impl Node {
    /// The address (`HOST:PORT`) of the live node that holds world `id`,
    /// when it is not this one; `None` when this node holds it, or no
    /// node does (or this node has not joined yet). Asks Redis (a
    /// blocking call).
    pub fn locate(&self, id: u64) -> Option<String> {
        self.joined.get()?;
        if let Some((address, at)) = self.routes.lock_unpoisoned().get(&id)
            && at.elapsed() < REMEMBER
        {
            return address.clone();
        }
        let mut conn = self
            .conns
            .lock_unpoisoned()
            .pop()
            .unwrap_or_else(|| self.link.conn());
        let address = self.ask_owner(&mut conn, id);
        let mut conns = self.conns.lock_unpoisoned();
        if conns.len() < MAX_CONNS {
            conns.push(conn);
        }
        drop(conns);
        // A world no node holds is remembered too, so that asking for it
        // again and again does not reach Redis each time.
        let mut routes = self.routes.lock_unpoisoned();
        if routes.len() >= MAX_REMEMBERED {
            routes.clear();
        }
        routes.insert(id, (address.clone(), Instant::now()));
        address
    }

    /// The address of world `id`'s live node, asked of Redis: `None`
    /// when no node holds it, or this one does (even under another id: a
    /// node that came back at the same address).
    fn ask_owner(&self, conn: &mut Conn, id: u64) -> Option<String> {
        let entry = self.link.world(conn, id).ok()??;
        if entry.owner.is_empty() || entry.owner == self.link.node {
            return None;
        }
        let nodes = self.link.nodes(conn).ok()?;
        let owner = nodes.iter().find(|n| n.id == entry.owner && n.live)?;
        (owner.addr != self.addr()).then(|| owner.addr.clone())
    }

    /// Every node the fleet knows, as Redis has them, on one of the kept
    /// connections; `None` until this node joined, or while Redis cannot
    /// be read.
    fn nodes(&self) -> Option<Vec<NodeEntry>> {
        self.joined.get()?;
        let mut conn = self
            .conns
            .lock_unpoisoned()
            .pop()
            .unwrap_or_else(|| self.link.conn());
        let nodes = self.link.nodes(&mut conn).ok();
        let mut conns = self.conns.lock_unpoisoned();
        if conns.len() < MAX_CONNS {
            conns.push(conn);
        }
        nodes
    }

    /// The address of the node a new world should start on, when it is not
    /// this one: the live node with the most room, if it has more than this
    /// one (`free_here` slots, `None` for no bound; or any room, while
    /// this one drains). `None` until this node joined.
    pub fn place_elsewhere(&self, free_here: Option<usize>) -> Option<String> {
        let nodes = self.nodes()?;
        let mine = match self.draining.load(Ordering::Relaxed) {
            true => Some(0),
            false => nodes
                .iter()
                .find(|n| n.id == self.link.node)
                .map_or(free_here, |n| n.free),
        };
        let best = nodes
            .iter()
            .filter(|n| n.id != self.link.node && n.addr != self.addr() && n.takes_worlds())
            .max_by_key(|n| n.room())?;
        (best.room() > mine.unwrap_or(usize::MAX)).then(|| best.addr.clone())
    }

    /// The addresses of the other live nodes that are not draining, those
    /// with the most room first; none until this node joined, or while
    /// Redis cannot be read.
    pub fn others(&self) -> Vec<String> {
        let mut others: Vec<_> = self
            .nodes()
            .unwrap_or_default()
            .into_iter()
            .filter(|n| n.id != self.link.node && n.addr != self.addr() && n.live && !n.draining)
            .collect();
        others.sort_by_key(|n| std::cmp::Reverse(n.room()));
        others.into_iter().map(|n| n.addr).collect()
    }

    /// Tells world `id`'s clients, as it is suspended, that it moves to the
    /// node at `address`.
    pub(super) fn tell_moving(&self, server: &Server, id: u64, address: &str) {
        server.tell_moving(WorldId(id), &format!("{}://{address}", self.scheme()));
    }
}
