//! The frame-driven runtime: script instances, their update subscriptions
//! and the fixed-timestep frame loop.
//!
//! Each [`Runtime::step`]:
//! 1. advances the clock by one fixed timestep;
//! 2. moves entities under `motion` and completes arrivals;
//! 3. fires due timers (a heap: sleeping timers cost nothing);
//! 4. delivers finished background jobs (terrain tiles);
//! 5. delivers the frame's queued events (input, script messages);
//! 6. calls `on-message(id)` for every update subscription, in the order the
//!    subscriptions were made (stable across frames);
//! 7. calls `on-message(WAKE_MESSAGE)` once on each instance with completed
//!    waits (in the order their first wake completed); the guest takes them
//!    with `take-wakes` and polls exactly the woken tasks. Instances with
//!    nothing due get no call;
//! 8. removes instances that trapped (recording a [`ScriptError`]) together
//!    with all their waits;
//! 9. applies what scripts requested during the frame (subscriptions, new
//!    waits, cancellations, messages, jobs), so it takes effect next frame.
//!
//! The runtime knows nothing about windows: a runner (headless here, a
//! window later) decides when to call `step`.

mod clock;
pub(crate) mod events;
mod headless;
mod jobs;
mod subscriptions;
mod swap;
mod tiles;
mod waits;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Result;
use uuid::Uuid;

use crate::bindings::events::Event;
use crate::bindings::tasks::Wake;
use crate::engine::ScriptComponent;
use crate::error::{ScriptError, ScriptExport};
use crate::instance::{InstanceContext, InstanceInfo, ScriptInstance};
use crate::log::{LogSink, TracingLog};
use crate::scene::{Scene, SceneDump, SharedScene, lock_scene};
use crate::state::Request;
use crate::terrain::TileCache;
use clock::FrameClock;
use events::EventQueue;
use subscriptions::{Subscription, Subscriptions};
use tiles::TileJobs;
use waits::{Wait, Waits};

pub use clock::FrameTime;
pub use events::{KEYS, key_by_name, key_name, parse_input_script};
pub use headless::HeadlessRunner;
pub use swap::SwapReport;
pub use tiles::{JobDelivery, JobStats};
pub use waits::{PendingWait, WaitStats};

/// The `on-message` id reserved for wake messages (see the WIT `tasks`
/// interface).
pub const WAKE_MESSAGE: u32 = u32::MAX;

/// How a [`Runtime`] runs.
#[derive(Clone)]
pub struct RuntimeConfig {
    /// Frames per second of game time (the fixed timestep is `1 / hz`).
    pub hz: f64,
    /// Where script log lines go.
    pub log: Arc<dyn LogSink>,
    /// Worker threads for background jobs (0: one per core).
    pub job_threads: usize,
    /// When finished jobs reach scripts.
    pub jobs: JobDelivery,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            hz: 60.0,
            log: Arc::new(TracingLog),
            job_threads: 0,
            jobs: JobDelivery::WhenReady,
        }
    }
}

/// Script instances sharing one scene and one frame clock.
pub struct Runtime {
    clock: FrameClock,
    context: InstanceContext,
    /// Instances by slot; a slot is `None` once its instance is gone.
    slots: Vec<Option<ScriptInstance>>,
    free_slots: Vec<u32>,
    subscriptions: Subscriptions,
    waits: Waits,
    events: EventQueue,
    tiles: TileJobs,
    errors: Vec<ScriptError>,
    /// Scratch: waits completed this frame, by slot.
    completed: Vec<(u32, Wake)>,
    /// Scratch: slots with wakes this frame, in order of their first wake.
    woken: Vec<u32>,
}

impl Runtime {
    /// A runtime over the default scene (one cube named `cube`).
    pub fn new(config: RuntimeConfig) -> Self {
        Runtime::with_scene(config, Scene::with_default_cube())
    }

    /// A runtime over the given scene.
    pub fn with_scene(config: RuntimeConfig, scene: Scene) -> Self {
        assert!(
            config.hz.is_finite() && config.hz > 0.0,
            "hz must be positive"
        );
        let tiles = TileJobs::new(config.job_threads, config.jobs);
        Runtime {
            clock: FrameClock::new(config.hz),
            context: InstanceContext {
                scene: scene.shared(),
                log: config.log,
                frame: Arc::new(AtomicU64::new(0)),
                tiles: tiles.cache().clone(),
            },
            slots: Vec::new(),
            free_slots: Vec::new(),
            subscriptions: Subscriptions::default(),
            waits: Waits::default(),
            events: EventQueue::default(),
            tiles,
            errors: Vec::new(),
            completed: Vec::new(),
            woken: Vec::new(),
        }
    }

    /// Instantiates `component`, runs its `entrypoint` and returns the new
    /// instance's id. Subscriptions made in `entrypoint` start with the next
    /// frame. If `entrypoint` traps, the instance is discarded and the
    /// [`ScriptError`] is both recorded and returned.
    pub fn spawn(&mut self, component: &ScriptComponent) -> Result<Uuid> {
        let now = self.clock.now();
        let mut instance = ScriptInstance::new(component, &self.context, now, None)?;
        if let Err(error) = instance.call(ScriptExport::Entrypoint, now, 0) {
            self.record(*error.clone());
            return Err((*error).into());
        }
        let id = instance.id();
        let slot = match self.free_slots.pop() {
            Some(slot) => slot,
            None => {
                self.slots.push(None);
                u32::try_from(self.slots.len() - 1).expect("too many instances")
            }
        };
        self.slots[slot as usize] = Some(instance);
        self.apply_requests_of(slot);
        Ok(id)
    }

    /// Runs one frame and returns its timing.
    pub fn step(&mut self) -> FrameTime {
        let time = self.clock.advance();
        self.context.frame.store(time.frame, Ordering::Relaxed);
        self.complete_waits(time);
        let mut failed = false;
        for index in 0..self.subscriptions.len() {
            let Subscription { slot, id } = self.subscriptions.get(index);
            failed |= self.call(slot, time, id);
        }
        for index in 0..self.woken.len() {
            let slot = self.woken[index];
            failed |= self.call(slot, time, WAKE_MESSAGE);
        }
        self.woken.clear();
        if failed {
            let slots = &self.slots;
            self.subscriptions
                .retain_slots(|slot| slots[slot as usize].is_some());
        }
        for slot in 0..self.slots.len() {
            self.apply_requests_of(slot as u32);
        }
        time
    }

    /// Steps 2-5 of the frame: completes motions, timers, jobs and events,
    /// and queues each wake on its instance.
    fn complete_waits(&mut self, time: FrameTime) {
        if self.waits.has_motions() {
            let mut scene = lock_scene(&self.context.scene);
            self.waits
                .step_motions(&mut scene, time.delta, &mut self.completed);
        }
        self.waits
            .fire_timers(time.frame, self.clock.dt(), &mut self.completed);
        self.tiles.deliver(&mut self.waits, &mut self.completed);
        for event in self.events.take_due(time.frame) {
            self.waits.deliver_event(&event, &mut self.completed);
        }
        for (slot, wake) in self.completed.drain(..) {
            if let Some(instance) = self.slots[slot as usize].as_mut()
                && instance.push_wake(wake)
            {
                self.woken.push(slot);
            }
        }
    }

    /// Calls `on-message(id)` on the instance in `slot`, if it is still
    /// there; returns whether it failed (and was removed).
    fn call(&mut self, slot: u32, time: FrameTime, id: u32) -> bool {
        let Some(instance) = self.slots[slot as usize].as_mut() else {
            return false;
        };
        match instance.call(ScriptExport::OnMessage, time, id) {
            Ok(()) => false,
            Err(error) => {
                self.remove_slot(slot);
                self.record(*error);
                true
            }
        }
    }

    /// Applies the requests the instance in `slot` made since the last time.
    fn apply_requests_of(&mut self, slot: u32) {
        let Runtime {
            clock,
            slots,
            subscriptions,
            waits,
            events,
            tiles,
            ..
        } = self;
        let Some(instance) = slots[slot as usize].as_mut() else {
            return;
        };
        let now = clock.now().frame;
        for request in instance.drain_requests() {
            match request {
                Request::Subscribe(id) => subscriptions.subscribe(slot, id),
                Request::Unsubscribe(id) => subscriptions.unsubscribe(slot, id),
                Request::WaitFrames { token, frames } => {
                    let due = now + u64::from(frames.max(1));
                    waits.add_timer((slot, token), now, due);
                }
                Request::WaitSeconds { token, seconds } => {
                    let frames = (seconds / clock.dt() - 1e-9).ceil();
                    let frames = if frames >= 1.0 {
                        frames.min(1e15) as u64
                    } else {
                        1
                    };
                    waits.add_timer((slot, token), now, now + frames);
                }
                Request::Cancel(token) => {
                    if let Some(Wait::Tile { coord }) = waits.cancel((slot, token)) {
                        tiles.withdraw((slot, token), coord);
                    }
                }
                Request::WaitEvent {
                    token,
                    filter,
                    persistent,
                } => waits.add_event((slot, token), filter, persistent),
                Request::Send(message) => events.schedule(now + 1, Event::Message(message)),
                Request::MoveTo {
                    token,
                    entity,
                    target,
                    speed,
                } => waits.add_motion((slot, token), entity, target, speed),
                Request::Tile { token, coord } => tiles.request((slot, token), coord, waits),
            }
        }
    }

    /// Runs `frames` frames back to back.
    pub fn run_frames(&mut self, frames: u64) {
        for _ in 0..frames {
            self.step();
        }
    }

    /// Removes an instance (its subscriptions end now). Returns whether it
    /// existed.
    pub fn despawn(&mut self, id: Uuid) -> bool {
        let Some(slot) = self.slot_of(id) else {
            return false;
        };
        self.remove_slot(slot);
        self.subscriptions.remove_slot(slot);
        true
    }

    /// Number of the last frame run (0 before the first).
    pub fn frame(&self) -> u64 {
        self.clock.now().frame
    }

    /// The fixed timestep in seconds.
    pub fn dt(&self) -> f64 {
        self.clock.dt()
    }

    /// The shared scene.
    pub fn scene(&self) -> &SharedScene {
        &self.context.scene
    }

    /// Queues an event (a key press, a message) for delivery at the start
    /// of `frame` (the next frame if that has passed).
    pub fn schedule_event(&mut self, frame: u64, event: Event) {
        let next = self.frame() + 1;
        self.events.schedule(frame.max(next), event);
    }

    /// Queues an event for delivery at the start of the next frame.
    pub fn push_event(&mut self, event: Event) {
        self.schedule_event(0, event);
    }

    /// The pending waits of an instance, by token.
    pub fn pending_waits(&self, id: Uuid) -> Vec<PendingWait> {
        self.slot_of(id)
            .map(|slot| self.waits.list(slot))
            .unwrap_or_default()
    }

    /// Number of pending waits of all instances.
    pub fn pending_wait_count(&self) -> usize {
        self.waits.len()
    }

    /// Counters of waits registered, completed and cancelled.
    pub fn wait_stats(&self) -> WaitStats {
        self.waits.stats()
    }

    /// Counters of terrain tile jobs.
    pub fn job_stats(&self) -> JobStats {
        self.tiles.stats()
    }

    /// Worker threads of the job pool.
    pub fn job_threads(&self) -> usize {
        self.tiles.threads()
    }

    /// Generated terrain tiles.
    pub fn tile_cache(&self) -> &Arc<TileCache> {
        self.tiles.cache()
    }

    /// The scene as `--dump-scene` writes it.
    pub fn dump(&self) -> SceneDump {
        SceneDump::new(&lock_scene(&self.context.scene), self.frame())
    }

    /// Every script failure so far, oldest first.
    pub fn errors(&self) -> &[ScriptError] {
        &self.errors
    }

    /// Number of instances still running.
    pub fn live_instances(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Snapshots of the running instances, in slot order.
    pub fn instances(&self) -> Vec<InstanceInfo> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(slot, instance)| {
                let instance = instance.as_ref()?;
                let slot = slot as u32;
                Some(instance.info(self.subscriptions.ids_of(slot), self.waits.count(slot)))
            })
            .collect()
    }

    /// A snapshot of one instance.
    pub fn instance(&self, id: Uuid) -> Option<InstanceInfo> {
        let slot = self.slot_of(id)?;
        let instance = self.slots[slot as usize].as_ref()?;
        Some(instance.info(self.subscriptions.ids_of(slot), self.waits.count(slot)))
    }

    /// The dispatch order: `(instance id, message id)` per subscription.
    pub fn dispatch_order(&self) -> Vec<(Uuid, u32)> {
        self.subscriptions
            .iter()
            .filter_map(|s| Some((self.slots[s.slot as usize].as_ref()?.id(), s.id)))
            .collect()
    }

    fn slot_of(&self, id: Uuid) -> Option<u32> {
        self.slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|i| i.id() == id))
            .map(|slot| slot as u32)
    }

    /// Drops the instance in `slot` and withdraws all its waits (its
    /// subscriptions are for the caller to drop).
    fn remove_slot(&mut self, slot: u32) {
        if self.slots[slot as usize].take().is_some() {
            self.free_slots.push(slot);
        }
        self.withdraw_waits(slot);
    }

    /// Withdraws every wait of the instance in `slot`.
    fn withdraw_waits(&mut self, slot: u32) {
        for (key, wait) in self.waits.remove_slot(slot) {
            if let Wait::Tile { coord } = wait {
                self.tiles.withdraw(key, coord);
            }
        }
    }

    fn record(&mut self, error: ScriptError) {
        tracing::error!(target: "host", "{}", error.report());
        self.errors.push(error);
    }
}
