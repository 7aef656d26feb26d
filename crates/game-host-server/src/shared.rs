//! [`Shared`]: what the loop threads share with the server: the registry
//! of worlds, each thread's measured load, the reports of ended worlds,
//! and each world's hub for its players.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

use super::placement::ThreadLoad;
use super::registry::Registry;
use super::stream::WorldHub;
use super::world::{WorldId, WorldReport};
use game_host::sync::LockExt;

pub(super) struct Shared {
    /// Each loop thread's measured load, by index.
    pub loads: Vec<ThreadLoad>,
    pub registry: Mutex<Registry>,
    /// Reports of ended worlds, oldest first, until taken.
    pub ended: Mutex<Vec<WorldReport>>,
    pub ended_signal: Condvar,
    /// Each running world's players and their clients.
    pub hubs: Mutex<HashMap<WorldId, Arc<WorldHub>>>,
}

impl Shared {
    pub fn new(threads: usize) -> Self {
        Shared {
            loads: (0..threads).map(|_| ThreadLoad::default()).collect(),
            registry: Mutex::new(Registry::new(threads)),
            ended: Mutex::new(Vec::new()),
            ended_signal: Condvar::new(),
            hubs: Mutex::default(),
        }
    }

    /// Files the report of a world that ended on its loop thread, and takes
    /// the world out of the registry.
    pub fn ended(&self, report: WorldReport) {
        self.registry.lock_unpoisoned().remove(report.id);
        self.hubs.lock_unpoisoned().remove(&report.id);
        self.ended.lock_unpoisoned().push(report);
        self.ended_signal.notify_all();
    }
}
