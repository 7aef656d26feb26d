//! A node's drain (on SIGTERM): every world it runs is handed live to the
//! other nodes, losing no frame and no input. Each world is suspended as a
//! shutdown suspends it (its log ends with a checkpoint after any input
//! queued for its next frame); once its last lines are in Redis, it
//! is handed to the live node with the most room, which resumes it at the
//! same frame. Its players' streams close with the address to reconnect
//! to, and their seats go with the world.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::Node;
use super::beat::roomiest;
use game_host_server::Server;

/// How long a drain waits for the worlds' last lines to reach Redis.
const COPY_WITHIN: Duration = Duration::from_secs(10);

/// What a drain did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct DrainReport {
    /// Worlds handed to other nodes.
    pub moved: usize,
    /// Worlds left here (no other node took worlds, or Redis could not
    /// be reached): they resume once this node's lease lapses, or at the
    /// next node's start.
    pub left: usize,
    pub seconds: f64,
}

impl Node {
    /// Hands every world of this node to the others, and leaves the fleet
    /// if none is left here. New worlds are refused from now on.
    pub fn drain(&self, server: &Server) -> DrainReport {
        let started = Instant::now();
        self.draining.store(true, Ordering::Relaxed);
        server.stop_accepting();
        let mut conn = self.link.conn();
        let _ = self.renew(&mut conn, server);
        let ids = server.world_ids();
        let mut report = DrainReport::default();
        let mut takers: Vec<_> = match self.link.nodes(&mut conn) {
            Ok(nodes) => nodes
                .into_iter()
                .filter(|n| n.id != self.link.node && n.takes_worlds())
                .collect(),
            Err(error) => {
                tracing::warn!("the fleet's Redis cannot be reached ({error}): no world moves");
                Vec::new()
            }
        };
        if takers.is_empty() {
            report.left = ids.len();
            if !ids.is_empty() {
                tracing::warn!(
                    "no other node takes worlds: {} world(s) stay with this node, and resume \
                     elsewhere once its lease lapses",
                    ids.len()
                );
            }
            return report;
        }
        // Each world's new node, by room; told to its clients as it stops.
        let mut plan = Vec::new();
        for id in ids {
            let Some(taker) = roomiest(&mut takers) else {
                report.left += 1;
                continue;
            };
            taker.free = taker.free.map(|free| free.saturating_sub(1));
            self.tell_moving(server, id.0, &taker.addr);
            if server.suspend_world(id).is_ok() {
                plan.push((id, taker.id.clone()));
            }
        }
        let deadline = Instant::now() + COPY_WITHIN;
        server.wait_logs_written(deadline);
        let worlds: HashSet<u64> = plan.iter().map(|(id, _)| id.0).collect();
        let waiting = self.link.mirror.wait_copied(&worlds, deadline);
        for (id, to) in plan {
            if waiting.contains(&id.0) {
                report.left += 1;
                tracing::warn!("{id}'s last lines did not reach Redis: it stays here");
                continue;
            }
            match self.link.assign(&mut conn, id.0, &self.link.node, &to) {
                Ok(_) => {
                    report.moved += 1;
                    server.fleet_metrics().moved_out.inc();
                    self.link.mirror.release(id.0);
                }
                Err(error) => {
                    report.left += 1;
                    tracing::warn!("{id} could not be handed over: {error}");
                }
            }
        }
        report.seconds = started.elapsed().as_secs_f64();
        tracing::info!(
            moved = report.moved,
            left = report.left,
            "drained in {:.3} s",
            report.seconds
        );
        report
    }

    /// After the server shut down: waits (up to 10 s) for every line its
    /// worlds wrote to reach Redis, then leaves the fleet by dropping
    /// its lease, so that whatever it still holds (worlds no node took,
    /// worlds handed to it meanwhile) goes to the live nodes at once.
    pub fn leave(&self, server: &Server) {
        let deadline = Instant::now() + COPY_WITHIN;
        server.wait_logs_written(deadline);
        let held = self.link.mirror.held_worlds();
        let waiting = self.link.mirror.wait_copied(&held, deadline);
        if !waiting.is_empty() {
            tracing::warn!(
                "the last lines of {} world(s) did not reach the fleet's Redis: they resume \
                 from what it has",
                waiting.len()
            );
        }
        self.left.store(true, Ordering::Relaxed);
        if let Err(error) = self.link.leave(&mut self.link.conn()) {
            tracing::warn!("this node could not leave the fleet ({error}): its lease lapses");
        }
    }

    /// Whether this node is draining.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }
}
