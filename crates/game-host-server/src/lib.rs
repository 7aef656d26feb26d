//! # game-host-server — many worlds of game scripts on one machine
//!
//! Server mode: many independent worlds (a scene plus its script
//! instances each: a battle, a match, a room) on a few dedicated loop
//! threads, one per core by default. Each loop thread ticks all of its
//! worlds once per frame at the server's rate, sleeping until the next
//! frame is due by the shared pacing policy, and measures every frame.
//!
//! Worlds come and go while the server runs: [`Server::start_world`] checks
//! and builds the world on the caller's thread (instantiation and
//! `entrypoint` never stall a loop) and hands it to the least loaded loop
//! thread by measured frame time (`placement`); [`Server::stop_world`] and
//! [`Server::send`] reach it between two of its frames through the thread's
//! order channel. One registry (`registry`) records each running world
//! once, with its thread and instances: placement, capacity, `/readyz` and
//! the orders all read it.
//!
//! A frame longer than the budget (one timestep) is an overrun: counted,
//! and logged at most once per second naming the slowest world. A world
//! over its own budget frame after frame is stopped and reported, so it
//! cannot starve the others on its thread; a world whose scripts all
//! failed ends. Metrics go to a Prometheus registry ([`Metrics`]), and each
//! thread's frame times to [`ThreadStats`] for summaries.
//!
//! Players join a running world ([`Server::admit_player`]); each world's
//! hub (`stream`) carries their input in before its frames and what the
//! frames changed, and the scripts' messages, out to their clients after,
//! without the loop thread ever waiting on a client.
//!
//! With a state directory ([`durable`]), every world is kept as it runs,
//! and [`Server::resume`] (`resume`) brings back those that had not ended
//! at the next start.
//!
//! A server that is a node of a fleet is given the fleet's
//! [`WorldDirectory`] (`directory`; the Redis fleet is `game-host-fleet`):
//! world ids come from it, each world is entered there and its logs
//! copied there, and the control surface sends requests for worlds held
//! elsewhere there. The fleet's node moves worlds out and in through the
//! server's own methods (`hand_off`: suspend, tell the clients where it
//! went, lay out a [`HandedWorld`] and resume it).
//!
//! [`control`] serves all of this over HTTP: worlds, players and their
//! streams (WebSockets), a page to watch and play, `/metrics`, `/healthz`
//! and `/readyz`.

mod config;
pub mod control;
mod directory;
pub mod durable;
mod hand_off;
mod keeping;
mod loop_thread;
mod metrics;
mod placement;
mod players;
mod registry;
pub mod resume;
mod room;
mod shared;
mod stats;
pub mod stream;
mod world;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

use game_host::input::Event;
use game_host::jobs::JobWorkers;
use game_host::runtime::FramePool;
use game_host::runtime::ScriptTime;
use game_host::sync::LockExt;
use loop_thread::{LoopThread, Order};
use shared::Shared;

pub use config::{ServerConfig, WorldSpec};
pub use directory::WorldDirectory;
pub use hand_off::HandedWorld;
pub use metrics::{FleetMetrics, Metrics};
pub use stats::{FrameTimes, ThreadStats, ThreadSummary};
pub use stream::StreamLimits;
pub use world::{EndReason, StartError, WorldId, WorldReport, WorldStatus};

struct ThreadHandle {
    orders: Sender<Order>,
    stats: Arc<Mutex<ThreadStats>>,
    join: Mutex<Option<JoinHandle<()>>>,
}

/// Many worlds on dedicated loop threads.
pub struct Server {
    config: ServerConfig,
    threads: Vec<ThreadHandle>,
    shared: Arc<Shared>,
    metrics: Arc<Metrics>,
    next_id: AtomicU64,
    accepting: AtomicBool,
    /// The state directory, when worlds are kept durable.
    durable: Option<durable::Durable>,
    /// Set while worlds are being resumed from it.
    resuming: AtomicBool,
    /// The worlds of the state directory that could not be resumed, each
    /// with one line saying why (listed on `GET /worlds`).
    not_resumed: Mutex<Vec<(WorldId, String)>>,
}

impl Server {
    /// Starts the loop threads (with no worlds yet). Every world's
    /// background jobs run on one set of workers
    /// ([`RuntimeConfig::job_workers`](game_host::RuntimeConfig::job_workers),
    /// made here from `job_threads` unless given), and the calls of every
    /// world's big frames on one set of frame threads
    /// ([`RuntimeConfig::frame_pool`](game_host::RuntimeConfig::frame_pool),
    /// made here from `frame_threads` unless given): threads do not grow
    /// with worlds.
    pub fn start(mut config: ServerConfig) -> Result<Server> {
        // Scripts' times are read every frame: measure the clock's rate
        // now, not on a loop thread's first frame.
        game_host::ticks::calibrate();
        if config.runtime.job_workers.is_none() {
            config.runtime.job_workers = Some(JobWorkers::new(config.runtime.job_threads));
        }
        if config.runtime.frame_pool.is_none() {
            config.runtime.frame_pool = Some(FramePool::new(config.runtime.frame_threads)?);
        }
        let hz = config.runtime.hz;
        if !(hz.is_finite() && hz > 0.0) {
            bail!("the frame rate must be positive, not {hz}");
        }
        let count = match config.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let dt = Duration::from_secs_f64(1.0 / hz);
        let shared = Arc::new(Shared::new(count));
        let metrics = Arc::new(Metrics::new());
        let mut threads = Vec::with_capacity(count);
        for index in 0..count {
            let (orders_tx, orders) = channel();
            let stats = Arc::new(Mutex::new(ThreadStats::new(index, dt)));
            let thread = LoopThread {
                index,
                orders,
                shared: shared.clone(),
                stats: stats.clone(),
                metrics: metrics.thread(index),
                dt,
                world_budget: config.world_budget.unwrap_or(dt),
                overrun_frames: config.overrun_frames.max(1),
                worlds: Vec::new(),
                unlogged_overruns: 0,
                slowest: None,
                last_warning: None,
                script_seconds: Vec::new(),
            };
            let join = std::thread::Builder::new()
                .name(format!("loop-{index}"))
                .spawn(move || thread.run())
                .context("failed to start a loop thread")?;
            threads.push(ThreadHandle {
                orders: orders_tx,
                stats,
                join: Mutex::new(Some(join)),
            });
        }
        let durable = match &config.state {
            Some(state) => Some(durable::Durable::open(state.clone())?),
            None => None,
        };
        let next_id = durable.as_ref().map_or(Ok(1), |d| d.next_id())?;
        let server = Server {
            config,
            threads,
            shared,
            metrics,
            next_id: AtomicU64::new(next_id),
            accepting: AtomicBool::new(true),
            durable,
            resuming: AtomicBool::new(false),
            not_resumed: Mutex::default(),
        };
        server.publish_capacity();
        Ok(server)
    }

    /// Builds a world on this thread (its scripts' `entrypoint`s run here)
    /// and hands it to the least loaded loop thread, which runs its first
    /// frame as frame 1 at its next frame. Everything a new world needs is
    /// checked here, once; on failure nothing started, and the error says
    /// whether the world itself is wrong ([`StartError::Invalid`]: no
    /// script, no frame to run, a script that fails to start) or the server
    /// takes none now ([`StartError::Unavailable`]: draining, or past
    /// `max_worlds` or the instance pool, which [`Server::is_full`] then
    /// says too).
    pub fn start_world(&self, spec: &WorldSpec) -> Result<WorldId, StartError> {
        if spec.scripts.is_empty() {
            return Err(StartError::Invalid(anyhow!(
                "a world needs at least one script"
            )));
        }
        if spec.frames == Some(0) {
            return Err(StartError::Invalid(anyhow!(
                "a world runs at least one frame (`frames` must be 1 or more)"
            )));
        }
        if !self.is_accepting() {
            return Err(StartError::Unavailable(anyhow!(
                "the server is shutting down and accepts no new worlds"
            )));
        }
        let instances = spec.scripts.len();
        let _room = self.reserve(instances).map_err(StartError::Unavailable)?;
        let id = self.new_world_id().map_err(StartError::Unavailable)?;
        let world = world::World::start(id, spec, &self.config, self.durable.as_ref())
            .map_err(StartError::Invalid)?;
        self.place(world, instances)
            .map_err(StartError::Unavailable)?;
        Ok(id)
    }

    /// An id for a new world: the next of this server's, or of its
    /// directory's.
    fn new_world_id(&self) -> Result<WorldId> {
        match self.directory() {
            Some(directory) => directory
                .next_world_id()
                .map(WorldId)
                .map_err(|error| anyhow!("the fleet's Redis gave no world id: {error:#}")),
            None => Ok(WorldId(self.next_id.fetch_add(1, Ordering::Relaxed))),
        }
    }

    /// The directory this server's worlds are known in beyond it (its
    /// fleet's), if any.
    pub fn directory(&self) -> Option<&Arc<dyn WorldDirectory>> {
        self.durable.as_ref()?.state.directory.as_ref()
    }

    /// Hands a built world of `instances` (room held for it) to the least
    /// loaded loop thread.
    fn place(&self, world: world::World, instances: usize) -> Result<()> {
        let id = world.id;
        // In before the world runs: a world that ends at its first frame
        // takes its hub out again (`Shared::ended`).
        self.shared
            .hubs
            .lock_unpoisoned()
            .insert(id, world.hub.clone());
        let thread =
            self.shared
                .registry
                .lock_unpoisoned()
                .place(id, instances, &self.shared.loads);
        if self.threads[thread]
            .orders
            .send(Order::Start(Box::new(world)))
            .is_err()
        {
            self.shared.registry.lock_unpoisoned().remove(id);
            self.shared.hubs.lock_unpoisoned().remove(&id);
            bail!("loop thread {thread} has stopped");
        }
        Ok(())
    }

    /// Stops a world between two of its frames and returns its report
    /// (also kept for [`Server::take_ended`]).
    pub fn stop_world(&self, id: WorldId) -> Result<WorldReport> {
        self.end_world(id, EndReason::Stopped)
    }

    pub(crate) fn end_world(&self, id: WorldId, reason: EndReason) -> Result<WorldReport> {
        let thread = self.thread_of(id)?;
        let (reply, report) = channel();
        self.threads[thread]
            .orders
            .send(Order::Stop(id, reason, reply))
            .map_err(|_| anyhow::anyhow!("loop thread {thread} has stopped"))?;
        let report = report
            .recv()
            .ok()
            .flatten()
            .or_else(|| self.ended_report(id))
            .with_context(|| format!("{id} is not running"))?;
        self.publish_capacity();
        Ok(report)
    }

    /// Queues an event for a world's next frame.
    pub fn send(&self, id: WorldId, event: Event) -> Result<()> {
        let thread = self.thread_of(id)?;
        self.threads[thread]
            .orders
            .send(Order::Send(id, event))
            .map_err(|_| anyhow::anyhow!("loop thread {thread} has stopped"))
    }

    /// Every running world, by id (asks each loop thread between frames).
    pub fn worlds(&self) -> Vec<WorldStatus> {
        let replies: Vec<_> = self
            .threads
            .iter()
            .filter_map(|thread| {
                let (reply, statuses) = channel();
                thread.orders.send(Order::Status(reply)).ok()?;
                Some(statuses)
            })
            .collect();
        let mut worlds: Vec<WorldStatus> = replies
            .into_iter()
            .filter_map(|statuses| statuses.recv().ok())
            .flatten()
            .collect();
        worlds.sort_by_key(|w| w.id);
        worlds
    }

    /// The worlds of the state directory that could not be resumed at
    /// this server's start, by id, each with one line saying why.
    pub fn not_resumed(&self) -> Vec<(WorldId, String)> {
        self.not_resumed.lock_unpoisoned().clone()
    }

    /// World `id`'s status and how long each of its scripts takes per
    /// frame (see [`Inspect::script_times`](game_host::runtime::Inspect::script_times)),
    /// asked of its loop thread alone; `None` when no such world runs.
    pub fn world(&self, id: WorldId) -> Option<(WorldStatus, Vec<ScriptTime>)> {
        let thread = self.threads.get(self.thread_of_world(id)?)?;
        let (reply, world) = channel();
        thread.orders.send(Order::World(id, reply)).ok()?;
        world.recv().ok().flatten()
    }

    /// Worlds placed and not ended.
    pub fn world_count(&self) -> usize {
        self.shared.registry.lock_unpoisoned().len()
    }

    /// Instances of the running worlds.
    pub fn instance_count(&self) -> usize {
        self.shared.registry.lock_unpoisoned().instances()
    }

    /// How many more worlds (of `instances_per_world` each) fit, within
    /// `max_worlds` and the instance pool; `None` when neither limits them.
    pub fn free_slots(&self) -> Option<usize> {
        self.shared
            .registry
            .lock_unpoisoned()
            .free_slots(self.room())
    }

    /// The worlds that hold room (running, or being built) and how many
    /// more fit ([`Server::free_slots`]), read at once: their sum is the
    /// server's capacity in worlds.
    pub fn world_slots(&self) -> (usize, Option<usize>) {
        let registry = self.shared.registry.lock_unpoisoned();
        (registry.held(), registry.free_slots(self.room()))
    }

    /// The reports of worlds that ended since the last call.
    pub fn take_ended(&self) -> Vec<WorldReport> {
        std::mem::take(&mut *self.shared.ended.lock_unpoisoned())
    }

    /// Waits up to `timeout` until no world is left running; true if none is.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut ended = self.shared.ended.lock_unpoisoned();
        while self.world_count() > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            ended = self
                .shared
                .ended_signal
                .wait_timeout(ended, left.min(Duration::from_millis(50)))
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
        true
    }

    /// Whether the server accepts new worlds.
    pub fn is_accepting(&self) -> bool {
        self.accepting.load(Ordering::Relaxed)
    }

    /// Whether no further world fits (see [`Server::free_slots`]).
    pub fn is_full(&self) -> bool {
        self.free_slots() == Some(0)
    }

    /// Loop threads.
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }

    /// Frames per second of every world (`--hz`).
    pub fn hz(&self) -> f64 {
        self.config.runtime.hz
    }

    /// The frame budget (one timestep).
    pub fn frame_budget(&self) -> Duration {
        Duration::from_secs_f64(1.0 / self.hz())
    }

    /// The Prometheus metrics in the text exposition format, as `/metrics`
    /// serves them.
    pub fn metrics_text(&self) -> String {
        self.publish_capacity();
        if let Some(durable) = &self.durable {
            self.metrics
                .set_durable(self.is_resuming(), durable.writer.stats());
        }
        self.metrics.encode()
    }

    /// The loop thread a running world is on.
    pub fn thread_of_world(&self, id: WorldId) -> Option<usize> {
        self.thread_of(id).ok()
    }

    /// Each thread's figures since the last call (or since the start).
    pub fn take_window(&self) -> Vec<ThreadSummary> {
        self.threads
            .iter()
            .map(|t| t.stats.lock_unpoisoned().take_window())
            .collect()
    }

    /// Each thread's figures over the whole run.
    pub fn totals(&self) -> Vec<ThreadSummary> {
        self.threads
            .iter()
            .map(|t| t.stats.lock_unpoisoned().total())
            .collect()
    }

    /// Stops accepting worlds (`/readyz` turns unready), lets every loop
    /// thread finish its current frame, ends the worlds and joins the
    /// threads. Returns false if they did not all stop within `grace`.
    pub fn shut_down(&self, grace: Duration) -> bool {
        self.accepting.store(false, Ordering::Relaxed);
        self.publish_capacity();
        for thread in &self.threads {
            let _ = thread.orders.send(Order::Shutdown);
        }
        let deadline = Instant::now() + grace;
        let mut all = true;
        for thread in &self.threads {
            let Some(join) = thread.join.lock_unpoisoned().take() else {
                continue;
            };
            while !join.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if join.is_finished() {
                if join.join().is_err() {
                    tracing::error!("a loop thread panicked");
                }
            } else {
                all = false;
            }
        }
        if let Some(durable) = &self.durable {
            durable.writer.close();
        }
        all
    }

    fn thread_of(&self, id: WorldId) -> Result<usize> {
        self.shared
            .registry
            .lock_unpoisoned()
            .thread_of(id)
            .with_context(|| format!("{id} is not running"))
    }

    fn ended_report(&self, id: WorldId) -> Option<WorldReport> {
        self.shared
            .ended
            .lock_unpoisoned()
            .iter()
            .find(|r| r.id == id)
            .cloned()
    }

    fn publish_capacity(&self) {
        let free = self.free_slots();
        self.metrics
            .set_capacity(free, self.is_accepting() && free != Some(0));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shut_down(Duration::from_secs(5));
    }
}
