//! [`Server::resume`]: at a server's start, every world its state
//! directory holds that had not ended, resumed on a few threads at once
//! (each replays its own log) and placed on the loop threads. A world that
//! cannot be resumed is reported in one line, and the others go on.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::world::resume_world;
use super::{RecordedLoader, ResumeReport};
use crate::Server;
use crate::durable::{Durable, WorldFiles, worlds};
use crate::world::WorldId;
use game_host::sync::LockExt;

impl Server {
    /// Resumes every world of the state directory that had not ended,
    /// loading the scripts their logs name with `load`. Meanwhile
    /// [`Server::is_resuming`] is true (`/readyz` says so). Does nothing
    /// without a state directory.
    pub fn resume(&self, load: &RecordedLoader<'_>) -> ResumeReport {
        let Some(durable) = &self.durable else {
            return ResumeReport::default();
        };
        let started = Instant::now();
        self.resuming
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let mut report = ResumeReport::default();
        let ids = match worlds(&durable.state.dir) {
            Ok(ids) => ids.into_iter().map(WorldId).collect(),
            Err(error) => {
                tracing::error!("{error:#}");
                Vec::new()
            }
        };
        let mut live = Vec::new();
        for id in ids {
            match WorldFiles::of(&durable.state.dir, id.0).ended() {
                Ok(true) => report.ended += 1,
                Ok(false) => live.push(id),
                Err(error) => report.failed.push((id, format!("{error:#}"))),
            }
        }
        let next = AtomicUsize::new(0);
        let outcomes = Mutex::new(Vec::new());
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(live.len().max(1));
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    while let Some(id) = live.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let outcome = self
                            .resume_placed(*id, durable, load)
                            .map_err(|error| format!("{error:#}"));
                        outcomes.lock_unpoisoned().push((*id, outcome));
                    }
                });
            }
        });
        let mut outcomes = outcomes.into_inner().unwrap_or_else(|p| p.into_inner());
        outcomes.sort_by_key(|(id, _)| *id);
        for (id, outcome) in outcomes {
            match outcome {
                Ok(frame) => report.resumed.push((id, frame)),
                Err(error) => report.failed.push((id, error)),
            }
        }
        for (id, error) in &report.failed {
            tracing::error!("{id} could not be resumed: {error}");
        }
        *self.not_resumed.lock_unpoisoned() = report.failed.clone();
        report.seconds = started.elapsed().as_secs_f64();
        self.metrics
            .resumed(report.resumed.len(), report.failed.len(), report.seconds);
        self.resuming
            .store(false, std::sync::atomic::Ordering::Relaxed);
        report
    }

    /// Whether the server is resuming worlds from its state directory.
    pub fn is_resuming(&self) -> bool {
        self.resuming.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Resumes world `id` of the state directory alone (one a fleet handed
    /// to this node), placing it on a loop thread: the frame it resumed
    /// after.
    pub(crate) fn resume_one(&self, id: WorldId, load: &RecordedLoader<'_>) -> anyhow::Result<u64> {
        let durable = self
            .durable
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("this server keeps no worlds"))?;
        self.resume_placed(id, durable, load)
    }

    /// Resumes world `id` within the server's room (held from its log's
    /// header on) and places it on a loop thread: the frame it resumed
    /// after.
    fn resume_placed(
        &self,
        id: WorldId,
        durable: &Durable,
        load: &RecordedLoader<'_>,
    ) -> anyhow::Result<u64> {
        let mut reserved = 0;
        let (world, _room) = resume_world(id, &self.config, durable, load, |n| {
            reserved = n;
            self.reserve(n)
        })?;
        let frame = world.runtime.frame();
        let instances = world.runtime.inspect().live_instances();
        // Scripts that spawned instances as the log replayed need room for
        // them too.
        let _more = match instances.saturating_sub(reserved) {
            0 => None,
            more => Some(self.reserve(more)?),
        };
        self.place(world, instances)?;
        Ok(frame)
    }
}
