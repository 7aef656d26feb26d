//! One loop thread: it owns its worlds and ticks all of them once per
//! frame, at the server's rate by the shared [`Pacing`] policy, sleeping
//! until the next frame is due. Orders (start, stop, send, status) arrive on
//! a channel and are taken between frames, so a world never changes under a
//! frame and the caller never waits for one.

use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::metrics::ThreadMetrics;
use super::shared::Shared;
use super::stats::{FrameRecord, ThreadStats};
use super::world::{EndReason, World, WorldId, WorldReport, WorldStatus};
use game_host::input::Event;
use game_host::runner::Pacing;
use game_host::runtime::ScriptTime;
use game_host::sync::LockExt;

/// What the server asks of a loop thread.
pub(super) enum Order {
    Start(Box<World>),
    /// End a world for a reason (a stop, or a suspension: the server
    /// stopped it and it resumes elsewhere).
    Stop(WorldId, EndReason, Sender<Option<WorldReport>>),
    Send(WorldId, Event),
    Status(Sender<Vec<WorldStatus>>),
    /// One world's status and its scripts' times (`None`: no such world
    /// here).
    World(WorldId, Sender<Option<(WorldStatus, Vec<ScriptTime>)>>),
    /// End every world after the current frame and exit.
    Shutdown,
}

/// Shortest time between two overrun warnings of one thread.
const OVERRUN_LOG_INTERVAL: Duration = Duration::from_secs(1);

pub(super) struct LoopThread {
    pub index: usize,
    pub orders: Receiver<Order>,
    pub shared: Arc<Shared>,
    pub stats: Arc<Mutex<ThreadStats>>,
    pub metrics: ThreadMetrics,
    /// One timestep: the frame budget.
    pub dt: Duration,
    /// How long one world's frame may take, and how many frames in a row.
    pub world_budget: Duration,
    pub overrun_frames: u32,
    pub worlds: Vec<World>,
    /// Overruns not logged yet, the slowest world among them, and when the
    /// last warning went out.
    pub unlogged_overruns: u64,
    pub slowest: Option<(WorldId, Duration)>,
    pub last_warning: Option<Instant>,
    /// Seconds in each script's calls since the metrics were last fed.
    pub script_seconds: Vec<(String, f64)>,
}

impl LoopThread {
    /// Runs until [`Order::Shutdown`] (or the server is dropped).
    pub fn run(mut self) {
        let mut pacing = Pacing::new(self.dt, Instant::now());
        loop {
            match self.orders.recv_timeout(pacing.until_next()) {
                Ok(order) => {
                    if !self.take(order) {
                        break;
                    }
                    while let Ok(order) = self.orders.try_recv() {
                        if !self.take(order) {
                            return self.shut_down();
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            for _ in 0..pacing.tick(Instant::now()) {
                self.frame();
            }
        }
        self.shut_down();
    }

    /// Takes one order; false on shutdown.
    fn take(&mut self, order: Order) -> bool {
        match order {
            Order::Start(world) => {
                tracing::debug!(world = world.id.0, thread = self.index, "world started");
                self.worlds.push(*world);
                self.publish_population();
            }
            Order::Stop(id, reason, reply) => {
                let report = self
                    .worlds
                    .iter()
                    .position(|w| w.id == id)
                    .map(|at| self.end(at, reason));
                self.publish_population();
                // The caller may have given up waiting; nothing to do then.
                let _ = reply.send(report);
            }
            Order::Send(id, event) => {
                if let Some(world) = self.worlds.iter_mut().find(|w| w.id == id) {
                    world.runtime.input().event(event);
                }
            }
            Order::Status(reply) => {
                let _ = reply.send(self.worlds.iter().map(|w| w.status(self.index)).collect());
            }
            Order::World(id, reply) => {
                let world = self.worlds.iter().find(|w| w.id == id);
                let _ = reply.send(
                    world.map(|w| (w.status(self.index), w.runtime.inspect().script_times())),
                );
            }
            Order::Shutdown => return false,
        }
        true
    }

    /// Ticks every world once, then retires the worlds that ended.
    fn frame(&mut self) {
        let start = Instant::now();
        let mut record = FrameRecord::default();
        let mut slowest: Option<(WorldId, Duration)> = None;
        let mut at = 0;
        while at < self.worlds.len() {
            let world = &mut self.worlds[at];
            let begun = Instant::now();
            world.step();
            let cost = begun.elapsed();
            let seconds = &mut self.script_seconds;
            world.runtime.inspect().last_frame_times(|script, spent| {
                match seconds.iter_mut().find(|(name, _)| name == script) {
                    Some((_, total)) => *total += spent,
                    None => seconds.push((script.to_owned(), spent)),
                }
            });
            let stepped = world.stepped(cost, self.world_budget, self.overrun_frames);
            record.updates += 1;
            record.script_errors += stepped.new_errors as u64;
            record.lost_writes += stepped.new_lost_writes;
            if slowest.is_none_or(|(_, most)| cost > most) {
                slowest = Some((world.id, cost));
            }
            match stepped.end {
                Some(reason) => {
                    if matches!(reason, EndReason::Overran { .. }) {
                        record.evicted += 1;
                        tracing::error!(
                            world = world.id.0,
                            thread = self.index,
                            "{}: {reason}",
                            world.id
                        );
                    } else if reason == EndReason::ScriptsFailed {
                        tracing::warn!(
                            world = world.id.0,
                            thread = self.index,
                            "{}: {reason}; ended",
                            world.id
                        );
                    }
                    self.end(at, reason);
                }
                None => at += 1,
            }
        }
        record.time = start.elapsed();
        record.worlds = self.worlds.len();
        record.instances = self
            .worlds
            .iter()
            .map(|w| w.runtime.inspect().live_instances())
            .sum();
        record.overrun = record.time > self.dt;
        self.count(&record);
        if record.overrun {
            self.overran(record.time, slowest);
        }
    }

    fn count(&mut self, record: &FrameRecord) {
        self.stats.lock_unpoisoned().record(record);
        self.shared.loads[self.index].measured(record.worlds, record.time);
        let metrics = &self.metrics;
        metrics.frame_seconds.observe(record.time.as_secs_f64());
        metrics.updates.inc_by(record.updates);
        metrics.overruns.inc_by(u64::from(record.overrun));
        metrics.script_errors.inc_by(record.script_errors);
        metrics.lost_writes.inc_by(record.lost_writes);
        metrics.evicted.inc_by(record.evicted);
        metrics.worlds.set(record.worlds as i64);
        metrics.instances.set(record.instances as i64);
        for (script, seconds) in &mut self.script_seconds {
            if *seconds > 0.0 {
                metrics.script_seconds.add(script, std::mem::take(seconds));
            }
        }
    }

    /// Counts an overrun and warns about it at most once per
    /// [`OVERRUN_LOG_INTERVAL`], naming the slowest world since the last
    /// warning.
    fn overran(&mut self, time: Duration, slowest: Option<(WorldId, Duration)>) {
        self.unlogged_overruns += 1;
        if let Some((id, cost)) = slowest
            && self.slowest.is_none_or(|(_, most)| cost > most)
        {
            self.slowest = Some((id, cost));
        }
        let now = Instant::now();
        if self
            .last_warning
            .is_some_and(|last| now - last < OVERRUN_LOG_INTERVAL)
        {
            return;
        }
        let (world, cost) = match self.slowest.take() {
            Some((id, cost)) => (id.0, cost.as_secs_f64() * 1e3),
            None => (0, 0.0),
        };
        tracing::warn!(
            thread = self.index,
            overruns = self.unlogged_overruns,
            "loop thread {} overran its {:.2} ms budget in {} frame(s) (last: {:.2} ms); \
             slowest world: {world} at {cost:.2} ms",
            self.index,
            self.dt.as_secs_f64() * 1e3,
            self.unlogged_overruns,
            time.as_secs_f64() * 1e3,
        );
        self.unlogged_overruns = 0;
        self.last_warning = Some(now);
    }

    /// Ends the world at `at` and files its report.
    fn end(&mut self, at: usize, reason: EndReason) -> WorldReport {
        let world = self.worlds.swap_remove(at);
        let report = world.end(self.index, reason);
        self.shared.ended(report.clone());
        report
    }

    fn publish_population(&mut self) {
        let instances: usize = self
            .worlds
            .iter()
            .map(|w| w.runtime.inspect().live_instances())
            .sum();
        self.stats
            .lock_unpoisoned()
            .set_population(self.worlds.len(), instances);
        self.metrics.worlds.set(self.worlds.len() as i64);
        self.metrics.instances.set(instances as i64);
    }

    fn shut_down(mut self) {
        while !self.worlds.is_empty() {
            self.end(self.worlds.len() - 1, EndReason::ServerStopped);
        }
        self.publish_population();
    }
}
