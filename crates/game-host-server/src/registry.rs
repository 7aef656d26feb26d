//! [`Registry`]: the one record of the server's worlds. Each running world
//! is in it once, with its loop thread and its instances; beside them, the
//! room held for worlds being built. Placement (the least loaded thread,
//! by the worlds each thread has here), `/readyz`,
//! `game_server_world_slots_free`, `Server::start_world` and the orders to
//! a world's thread all read it, so they agree. A world enters it when it
//! is handed to its thread and leaves it when it ends there.

use std::collections::HashMap;

use anyhow::{Result, bail};

use super::placement::{ThreadLoad, least_loaded};
use super::world::WorldId;

/// What bounds the worlds of a server.
#[derive(Debug, Clone, Copy)]
pub(super) struct Room {
    pub max_worlds: Option<usize>,
    /// The instance pool.
    pub max_instances: Option<usize>,
    /// Instances of a world, for counting free slots in the pool.
    pub per_world: usize,
}

pub(super) struct Registry {
    /// The thread and instance count of each running world.
    worlds: HashMap<WorldId, Placed>,
    /// Running worlds per loop thread.
    per_thread: Vec<usize>,
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

impl Registry {
    /// An empty registry for `threads` loop threads.
    pub fn new(threads: usize) -> Self {
        Registry {
            worlds: HashMap::new(),
            per_thread: vec![0; threads],
            instances: 0,
            building: 0,
            building_instances: 0,
        }
    }

    /// Running worlds.
    pub fn len(&self) -> usize {
        self.worlds.len()
    }

    /// Worlds running or being built: those that hold room.
    pub fn held(&self) -> usize {
        self.worlds.len() + self.building
    }

    /// Instances of the running worlds.
    pub fn instances(&self) -> usize {
        self.instances
    }

    /// The running worlds' ids.
    pub fn ids(&self) -> Vec<WorldId> {
        let mut ids: Vec<WorldId> = self.worlds.keys().copied().collect();
        ids.sort();
        ids
    }

    /// The loop thread world `id` runs on.
    pub fn thread_of(&self, id: WorldId) -> Option<usize> {
        self.worlds.get(&id).map(|placed| placed.thread)
    }

    /// Records world `id` of `instances` on the least loaded thread by
    /// `loads` (see [`least_loaded`]), and returns that thread.
    pub fn place(&mut self, id: WorldId, instances: usize, loads: &[ThreadLoad]) -> usize {
        let thread = least_loaded(loads, &self.per_thread);
        self.worlds.insert(id, Placed { thread, instances });
        self.per_thread[thread] += 1;
        self.instances += instances;
        thread
    }

    /// Takes an ended (or never started) world out.
    pub fn remove(&mut self, id: WorldId) -> Option<Placed> {
        let placed = self.worlds.remove(&id)?;
        self.per_thread[placed.thread] -= 1;
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

    /// Gives back what [`Registry::reserve`] held.
    pub fn unreserve(&mut self, instances: usize) {
        self.building -= 1;
        self.building_instances -= instances;
    }

    /// How many more worlds of `room.per_world` instances fit; `None` when
    /// nothing limits them.
    pub fn free_slots(&self, room: Room) -> Option<usize> {
        let worlds = self.held();
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
        let loads = [ThreadLoad::default(), ThreadLoad::default()];
        let mut registry = Registry::new(2);
        assert_eq!(registry.free_slots(room), Some(3));
        registry.reserve(2, room).unwrap();
        assert_eq!(registry.free_slots(room), Some(2));
        registry.unreserve(2);
        assert_eq!(registry.place(WorldId(1), 2, &loads), 0);
        registry.reserve(4, room).unwrap();
        assert_eq!(registry.free_slots(room), Some(0));
        let error = registry.reserve(2, room).unwrap_err().to_string();
        assert!(
            error.contains("does not fit in its pool of 7 (6 in use"),
            "{error}"
        );
        registry.unreserve(4);
        assert_eq!(registry.remove(WorldId(1)).unwrap().instances, 2);
        assert_eq!(registry.instances(), 0);
        let unlimited = Room {
            max_worlds: None,
            max_instances: None,
            per_world: 1,
        };
        assert_eq!(registry.free_slots(unlimited), None);
    }

    #[test]
    fn worlds_spread_over_threads_by_the_worlds_each_has() {
        let loads = [ThreadLoad::default(), ThreadLoad::default()];
        let mut registry = Registry::new(2);
        assert_eq!(registry.place(WorldId(1), 1, &loads), 0);
        assert_eq!(registry.place(WorldId(2), 1, &loads), 1);
        assert_eq!(registry.place(WorldId(3), 1, &loads), 0);
        registry.remove(WorldId(1));
        registry.remove(WorldId(3));
        assert_eq!(registry.place(WorldId(4), 1, &loads), 0);
        assert_eq!(registry.thread_of(WorldId(2)), Some(1));
        assert_eq!(registry.thread_of(WorldId(3)), None);
        assert_eq!(registry.len(), 2);
    }
}
