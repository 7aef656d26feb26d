//! Room held for a world while it is built: counted against the server's
//! limits (worlds, instances) from before its scripts start until it is
//! placed, so that two worlds built at once cannot both take the last room.

use anyhow::Result;

use crate::Server;
use crate::registry::Room;
use game_host::sync::LockExt;

impl Server {
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
