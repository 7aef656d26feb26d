//! The node's thread: five times a lease it renews the lease and takes the
//! worlds handed to it; it stops copies fenced off; and it hands out the
//! worlds of nodes whose lease lapsed (one node does, by a lock in the
//! Redis), each to the live node with the most room.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use super::Node;
use crate::coordinator::{Conn, NodeEntry};
use game_host::sync::LockExt;
use game_host_server::{FleetMetrics, Server, WorldId};

/// Renewals per lease: a node misses four in a row before it is taken for
/// dead.
const BEATS_PER_LEASE: u32 = 5;

impl Node {
    /// Renews this node's lease, saying how many worlds it holds at most.
    pub(super) fn renew(&self, conn: &mut Conn, server: &Server) -> redis::RedisResult<()> {
        self.renew_at(conn, server, self.addr())
    }

    /// Renews this node's lease as the node reached at `addr`.
    pub(super) fn renew_at(
        &self,
        conn: &mut Conn,
        server: &Server,
        addr: &str,
    ) -> redis::RedisResult<()> {
        let draining = self.draining.load(Ordering::Relaxed);
        let capacity = match draining {
            true => Some(0),
            false => server.capacity(),
        };
        self.link.renew(conn, addr, capacity, draining)?;
        *self.lease_renewed.lock_unpoisoned() = Instant::now();
        Ok(())
    }

    /// The lease's thread: renews it five times a lease, on a connection of
    /// its own whose commands take at most a fifth of the lease, and does
    /// nothing else, so that no slow work holds a renewal up. It stops once
    /// the node left the fleet.
    pub(super) fn keep_lease(self: Arc<Self>, mut conn: Conn) {
        let beat = self.link.lease / BEATS_PER_LEASE;
        let mut lapse_said = false;
        while !self.left.load(Ordering::Relaxed) {
            std::thread::sleep(beat);
            let Some(server) = self.server() else {
                return;
            };
            if self.left.load(Ordering::Relaxed) {
                return;
            }
            match self.renew(&mut conn, &server) {
                Ok(()) => {
                    self.link.mirror.answered();
                    lapse_said = false;
                }
                Err(error) => {
                    self.link.mirror.lost(&error);
                    let silent = self.lease_renewed.lock_unpoisoned().elapsed();
                    if silent > self.link.lease && !lapse_said {
                        lapse_said = true;
                        tracing::warn!(
                            "this node's lease lapsed ({error}): other nodes may resume its \
                             worlds, and its copies stop once Redis says so; they play on \
                             meanwhile"
                        );
                    }
                }
            }
        }
    }

    /// The node's thread: takes the worlds handed to it, stops copies
    /// fenced off, hands out dead nodes' worlds, and checks what it holds.
    pub(super) fn run(self: Arc<Self>, mut conn: Conn) {
        let beat = self.link.lease / BEATS_PER_LEASE;
        let claims = self.start_claimers();
        let mut beats = 0u64;
        loop {
            std::thread::sleep(beat);
            let Some(server) = self.server() else {
                return;
            };
            beats += 1;
            self.publish_to(server.fleet_metrics());
            if !self.redis_up() {
                continue;
            }
            // A draining node takes no more worlds: those handed to it go
            // elsewhere once its lease is dropped.
            let claimed = match self.draining.load(Ordering::Relaxed) {
                true => Ok(Vec::new()),
                false => self.link.take_claims(&mut conn),
            };
            match claimed {
                Ok(ids) => {
                    for id in ids {
                        if self.claiming.lock_unpoisoned().insert(id) {
                            let _ = claims.send((id, Instant::now()));
                        }
                    }
                }
                Err(error) => tracing::debug!("the fleet's claims could not be read: {error}"),
            }
            for id in self.link.mirror.take_fenced() {
                self.stop_copy(&server, id);
            }
            if beats.is_multiple_of(2) {
                self.reap(&mut conn, &server);
            }
            if beats.is_multiple_of(u64::from(BEATS_PER_LEASE)) {
                self.check_held(&mut conn, &server);
            }
        }
    }

    /// Starts the threads that resume the worlds handed to this node (one
    /// per core, each on its own connection).
    fn start_claimers(self: &Arc<Self>) -> Sender<(u64, Instant)> {
        let (sender, receiver) = channel();
        let receiver = Arc::new(std::sync::Mutex::new(receiver));
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        for index in 0..workers {
            let node = self.clone();
            let receiver = receiver.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("fleet-claim-{index}"))
                .spawn(move || node.claim_handed(&receiver));
            if let Err(error) = spawned {
                tracing::error!("failed to start a thread to resume worlds: {error}");
            }
        }
        sender
    }

    fn claim_handed(&self, receiver: &std::sync::Mutex<Receiver<(u64, Instant)>>) {
        let mut conn = self.link.conn();
        loop {
            let Ok((id, handed)) = receiver.lock_unpoisoned().recv() else {
                return;
            };
            let Some(server) = self.server() else {
                return;
            };
            let metrics = server.fleet_metrics();
            match self.claim(&server, &mut conn, id) {
                Ok(frame) => {
                    let seconds = handed.elapsed().as_secs_f64();
                    metrics.moved_in.inc();
                    metrics.claim_seconds.set(seconds);
                    tracing::info!("world {id} runs here now, from frame {frame} ({seconds:.3} s)");
                }
                Err(error) => {
                    metrics.claim_failures.inc();
                    tracing::error!("world {id} was handed to this node and cannot run: {error:#}");
                }
            }
            self.claiming.lock_unpoisoned().remove(&id);
        }
    }

    /// Stops this node's copy of world `id`: another node holds it now.
    fn stop_copy(&self, server: &Server, id: u64) {
        self.link.mirror.release(id);
        if server.thread_of_world(WorldId(id)).is_none() {
            return;
        }
        if let Some(address) = self.locate(id) {
            self.tell_moving(server, id, &address);
        }
        if server.suspend_world(WorldId(id)).is_ok() {
            server.fleet_metrics().fenced.inc();
            tracing::warn!("world {id} is held by another node: its copy here stopped");
        }
    }

    /// Stops the copies of worlds Redis no longer says this node holds
    /// (its lease lapsed, and they were handed out).
    fn check_held(&self, conn: &mut Conn, server: &Server) {
        // The worlds running here first: one created after this is in the
        // Redis's set already when the set is read.
        let running = server.world_ids();
        let Ok(held) = self.link.worlds_of(conn, &self.link.node) else {
            return;
        };
        let held: HashSet<u64> = held.into_iter().collect();
        let claiming = self.claiming.lock_unpoisoned().clone();
        for id in running {
            if !held.contains(&id.0) && !claiming.contains(&id.0) {
                self.stop_copy(server, id.0);
            }
        }
    }

    /// Hands out the worlds of nodes whose lease lapsed.
    fn reap(&self, conn: &mut Conn, server: &Server) {
        let Ok(nodes) = self.link.nodes(conn) else {
            return;
        };
        let mut takers: Vec<_> = nodes.iter().filter(|n| n.takes_worlds()).cloned().collect();
        for dead in nodes.iter().filter(|n| !n.live && n.id != self.link.node) {
            if takers.is_empty() || !self.link.reap_lock(conn, &dead.id).unwrap_or(false) {
                continue;
            }
            let Ok(worlds) = self.link.worlds_of(conn, &dead.id) else {
                continue;
            };
            let mut handed_all = true;
            match worlds.len() {
                // Drained, or never held one: it left, and nothing is lost.
                0 => tracing::info!(
                    "node {} ({}://{}) is gone from the fleet, holding no world",
                    dead.id,
                    self.scheme(),
                    dead.addr
                ),
                held => tracing::warn!(
                    "node {} ({}://{}) lost its lease: its {held} world(s) resume on the live \
                     nodes",
                    dead.id,
                    self.scheme(),
                    dead.addr
                ),
            }
            for world in worlds {
                let Some(taker) = roomiest(&mut takers) else {
                    handed_all = false;
                    break;
                };
                match self.link.assign(conn, world, &dead.id, &taker.id) {
                    Ok(_) => {
                        taker.free = taker.free.map(|free| free.saturating_sub(1));
                        server.fleet_metrics().failovers.inc();
                    }
                    Err(error) => {
                        handed_all = false;
                        tracing::warn!("world {world} could not be handed out: {error}");
                    }
                }
            }
            // A node is forgotten only once none of its worlds is left with
            // it: otherwise the next reaper tries again.
            if handed_all && let Err(error) = self.link.forget(conn, &dead.id) {
                tracing::debug!("node {} could not be forgotten: {error}", dead.id);
            }
        }
    }

    /// Sets the fleet's gauges (each beat, and before `/metrics` answers).
    pub(super) fn publish_to(&self, metrics: &FleetMetrics) {
        let mirror = self.link.mirror.stats();
        let gauge = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        metrics.redis_up.set(i64::from(mirror.up));
        metrics.log_buffered_bytes.set(gauge(mirror.buffered_bytes));
        metrics.logs_lost.set(gauge(mirror.lost_worlds));
    }
}

/// The node with the most room that has any left.
pub(super) fn roomiest(nodes: &mut [NodeEntry]) -> Option<&mut NodeEntry> {
    nodes
        .iter_mut()
        .filter(|n| n.free != Some(0))
        .max_by_key(|n| n.room())
}
