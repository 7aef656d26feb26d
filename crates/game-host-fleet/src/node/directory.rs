//! The node as the server's [`WorldDirectory`]: world ids from Redis, a
//! world entered there as it starts (held by this node) and taken out if it
//! cannot be kept, its logs copied there by the mirror, and where a world
//! is (see `route`).

use std::sync::Arc;

use anyhow::anyhow;
use game_host::record::LogMirror;
use game_host_server::{FleetMetrics, WorldDirectory};

use super::Node;

impl WorldDirectory for Node {
    fn node(&self) -> &str {
        &self.link.node
    }

    fn next_world_id(&self) -> anyhow::Result<u64> {
        self.link
            .next_world_id(&mut self.link.conn())
            .map_err(|error| anyhow!("{error}"))
    }

    fn create(&self, id: u64, manifest: &[u8]) -> anyhow::Result<()> {
        Ok(self
            .link
            .create_world(&mut self.link.conn(), id, manifest)?)
    }

    fn abandon(&self, id: u64) {
        self.link.abandon(id);
    }

    fn mirror(&self) -> Arc<dyn LogMirror> {
        self.link.mirror.clone()
    }

    fn locate(&self, id: u64) -> Option<String> {
        Node::locate(self, id)
    }

    fn place_elsewhere(&self, free_here: Option<usize>) -> Option<String> {
        Node::place_elsewhere(self, free_here)
    }

    fn others(&self) -> Vec<String> {
        Node::others(self)
    }

    fn unready(&self) -> Option<&'static str> {
        Node::unready(self)
    }

    fn publish(&self, metrics: &FleetMetrics) {
        self.publish_to(metrics);
    }
}
