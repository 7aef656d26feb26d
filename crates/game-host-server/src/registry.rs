//! [`Placement`]: where the running worlds are, and the room they and the
//! worlds being built take. `/readyz`, `game_server_world_slots_free` and
//! `Server::start_world` all count from it, so they agree.

use std::collections::HashMap;

use anyhow::{Result, bail};

use super::WorldId;

/// What bounds the worlds of a server.
#[derive(Debug, Clone, Copy)]
pub(super) struct Room {
    pub max_worlds: Option<usize>,
    /// The instance pool.
    pub max_instances: Option<usize>,
    /// Instances of a world, for counting free slots in the pool.
    pub per_world: usize,
}

#[derive(Default)]
pub(super) struct Placement {
    /// The thread and instance count of each running world.
    pub worlds: HashMap<WorldId, Placed>,
    /// Instances of the running worlds.
    instances: usize,
    /// Worlds being built (by `start_world`), and their instances.
    building: usize,
    building_instances: usize,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Placed {
    pub thread: usize,
    pub instances: usize,
}

impl Placement {
    /// Instances of the running worlds.
    pub fn instances(&self) -> usize {
        self.instances
    }

    pub fn place(&mut self, id: WorldId, placed: Placed) {
        self.worlds.insert(id, placed);
        self.instances += placed.instances;
    }

    pub fn remove(&mut self, id: WorldId) -> Option<Placed> {
        let placed = self.worlds.remove(&id)?;
        self.instances -= placed.instances;
        Some(placed)
    }

    /// Holds room for a world of `instances` being built, or says why
    /// there is none.
    pub fn reserve(&mut self, instances: usize, room: Room) -> Result<()> {
        if let Some(max) = room.max_worlds
            && self.worlds.len() + self.building >= max
        {
            bail!("the server is full: it runs its maximum of {max} world(s)");
        }
        let used = self.instances + self.building_instances;
        if let Some(max) = room.max_instances
            && used + instances > max
        {
            bail!(
                "the server is full: a world of {instances} instance(s) does not fit in its \
                 pool of {max} ({used} in use; raise --max-instances)"
            );
        }
        self.building += 1;
        self.building_instances += instances;
        Ok(())
    }

    /// Gives back what [`Placement::reserve`] held.
    pub fn unreserve(&mut self, instances: usize) {
        self.building -= 1;
        self.building_instances -= instances;
    }

    /// How many more worlds of `room.per_world` instances fit; `None` when
    /// nothing limits them.
    pub fn free_slots(&self, room: Room) -> Option<usize> {
        let worlds = self.worlds.len() + self.building;
        let instances = self.instances + self.building_instances;
        let by_worlds = room.max_worlds.map(|max| max.saturating_sub(worlds));
        let by_pool = room
            .max_instances
            .map(|max| max.saturating_sub(instances) / room.per_world.max(1));
        match (by_worlds, by_pool) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worlds_being_built_count_and_the_tighter_limit_wins() {
        let room = Room {
            max_worlds: Some(10),
            max_instances: Some(7),
            per_world: 2,
        };
        let mut placement = Placement::default();
        assert_eq!(placement.free_slots(room), Some(3));
        placement.reserve(2, room).unwrap();
        assert_eq!(placement.free_slots(room), Some(2));
        placement.unreserve(2);
        placement.place(
            WorldId(1),
            Placed {
                thread: 0,
                instances: 2,
            },
        );
        placement.reserve(4, room).unwrap();
        assert_eq!(placement.free_slots(room), Some(0));
        let error = placement.reserve(2, room).unwrap_err().to_string();
        assert!(
            error.contains("does not fit in its pool of 7 (6 in use"),
            "{error}"
        );
        placement.unreserve(4);
        assert_eq!(placement.remove(WorldId(1)).unwrap().instances, 2);
        assert_eq!(placement.instances(), 0);
        let unlimited = Room {
            max_worlds: None,
            max_instances: None,
            per_world: 1,
        };
        assert_eq!(placement.free_slots(unlimited), None);
    }
}
