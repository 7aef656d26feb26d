//! What a fleet's node asks of its server to hand worlds out and take them
//! in (see [`WorldDirectory`](crate::WorldDirectory); the node itself is in
//! `game-host-fleet`): the worlds it runs, a world suspended as it leaves,
//! its clients told where it went, its logs waited for, and a world handed
//! here laid out in the state directory and resumed from its files.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Context, Result};

use crate::durable::WorldFiles;
use crate::resume::RecordedLoader;
use crate::world::WorldId;
use crate::{Server, WorldReport};
use game_host::files::write_atomic;
use game_host::sync::LockExt;

/// A world handed to this server, as its directory keeps it: its files'
/// bytes (the state directory's `world.json`, `log.rec`, `seats.jsonl`).
pub struct HandedWorld {
    /// How the world was started (`world.json`).
    pub manifest: Vec<u8>,
    /// Its log, a recording (`log.rec`), replayed to its last whole frame.
    pub log: Vec<u8>,
    /// Its players' seats (`seats.jsonl`).
    pub seats: Vec<u8>,
}

impl Server {
    /// The fleet's metrics, which its node keeps.
    pub fn fleet_metrics(&self) -> &crate::FleetMetrics {
        self.metrics.fleet()
    }

    /// The running worlds' ids.
    pub fn world_ids(&self) -> Vec<WorldId> {
        self.shared.registry.lock_unpoisoned().ids()
    }

    /// Suspends a durable world between two of its frames, as a shutdown
    /// does: its log ends at its last frame, and it resumes elsewhere.
    pub fn suspend_world(&self, id: WorldId) -> Result<WorldReport> {
        self.end_world(id, crate::EndReason::ServerStopped)
    }

    /// Takes no new worlds from now on (a drain).
    pub fn stop_accepting(&self) {
        self.accepting.store(false, Ordering::Relaxed);
    }

    /// Tells world `id`'s clients, as it is suspended, that it moves to
    /// `url`: their streams close saying where to reconnect.
    pub fn tell_moving(&self, id: WorldId, url: &str) {
        if let Some(hub) = self.shared.hubs.lock_unpoisoned().get(&id) {
            hub.moving_to(url);
        }
    }

    /// Waits, until `deadline` at most, for every line the worlds wrote to
    /// be handed to the disk (and so to the directory's mirror); true when
    /// all were. A server without a state directory has none to wait for.
    pub fn wait_logs_written(&self, deadline: Instant) -> bool {
        match &self.durable {
            Some(durable) => durable.writer.wait_written(deadline),
            None => true,
        }
    }

    /// The state directory, when worlds are kept durable.
    pub fn state_dir(&self) -> Option<&Path> {
        Some(&self.durable.as_ref()?.state.dir)
    }

    /// Clears world `id` from this server before it is handed here again:
    /// a copy still running (from before it moved away) is suspended, its
    /// last lines written (within 10 s), and its folder removed.
    pub fn clear_world(&self, id: WorldId) -> Result<()> {
        let durable = self
            .durable
            .as_ref()
            .context("this server keeps no worlds")?;
        if self.thread_of_world(id).is_some() {
            let _ = self.suspend_world(id);
        }
        self.wait_logs_written(Instant::now() + std::time::Duration::from_secs(10));
        let files = WorldFiles::of(&durable.state.dir, id.0);
        if files.dir.exists() {
            std::fs::remove_dir_all(&files.dir)
                .with_context(|| format!("failed to clear `{}`", files.dir.display()))?;
        }
        Ok(())
    }

    /// Lays out world `id`, handed to this server, in the state directory
    /// and resumes it from those files as a start resumes a world, loading
    /// its scripts with `load`: the frame it resumed after. Call
    /// [`Server::clear_world`] first: a copy still running here, or its
    /// folder, is not replaced.
    pub fn resume_handed(
        &self,
        id: WorldId,
        world: &HandedWorld,
        load: &RecordedLoader<'_>,
    ) -> Result<u64> {
        let durable = self
            .durable
            .as_ref()
            .context("this server keeps no worlds")?;
        let files = WorldFiles::of(&durable.state.dir, id.0);
        std::fs::create_dir_all(&files.dir)
            .with_context(|| format!("failed to make `{}`", files.dir.display()))?;
        write_atomic(&files.manifest(), &world.manifest)?;
        write_atomic(&files.log(), &world.log)?;
        write_atomic(&files.seats(), &world.seats)?;
        self.resume_one(id, load)
    }
}
