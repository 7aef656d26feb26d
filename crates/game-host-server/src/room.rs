//! Room held for a world while it is built: counted against the server's
//! limits (worlds, instances) from before its scripts start until it is
//! placed, so that two worlds built at once cannot both take the last room.

use anyhow::Result;

use crate::Server;
use crate::registry::Room;
use game_host::sync::LockExt;

impl Server {
    /// How many worlds (of `instances_per_world` each) the server holds at
    /// most, within `max_worlds` and the instance pool; `None` when neither
    /// limits them.
    pub fn capacity(&self) -> Option<usize> {
        let room = self.room();
        let by_pool = room.max_instances.map(|max| max / room.per_world.max(1));
        match (room.max_worlds, by_pool) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Holds room for a world of `instances` while it is built, or says
    /// why there is none.
    pub(crate) fn reserve(&self, instances: usize) -> Result<Reservation<'_>> {
        self.shared
            .registry
            .lock_unpoisoned()
            .reserve(instances, self.room())?;
        self.publish_capacity();
        Ok(Reservation {
            server: self,
            instances,
        })
    }

    pub(crate) fn room(&self) -> Room {
        Room {
            max_worlds: self.config.max_worlds,
            max_instances: self.config.max_instances,
            per_world: self.config.instances_per_world,
        }
    }
}

/// Room held for a world being built; given back when dropped (the world
/// then holds it, if it was placed).
pub(crate) struct Reservation<'a> {
    server: &'a Server,
    instances: usize,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.server
            .shared
            .registry
            .lock_unpoisoned()
            .unreserve(self.instances);
        self.server.publish_capacity();
    }
}
