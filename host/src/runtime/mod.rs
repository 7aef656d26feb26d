//! The frame-driven runtime: script instances, their update subscriptions
//! and the fixed-timestep frame loop.
//!
//! Each [`Runtime::step`]:
//! 1. advances the clock by one fixed timestep;
//! 2. calls `on-message(id)` for every subscription, in the order the
//!    subscriptions were made (stable across frames);
//! 3. removes instances that trapped (recording a [`ScriptError`]);
//! 4. applies the subscription changes scripts requested during the frame,
//!    so they take effect on the next frame.
//!
//! The runtime knows nothing about windows: a runner (headless here, a
//! window later) decides when to call `step`.

mod clock;
mod headless;
mod subscriptions;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Result;
use uuid::Uuid;

use crate::engine::ScriptComponent;
use crate::error::{ScriptError, ScriptExport};
use crate::instance::{InstanceInfo, ScriptInstance};
use crate::log::{LogSink, TracingLog};
use crate::scene::{Scene, SceneDump, SharedScene};
use clock::FrameClock;
use subscriptions::{Subscription, Subscriptions};

pub use clock::FrameTime;
pub use headless::HeadlessRunner;

/// How a [`Runtime`] runs.
#[derive(Clone)]
pub struct RuntimeConfig {
    /// Frames per second of game time (the fixed timestep is `1 / hz`).
    pub hz: f64,
    /// Where script log lines go.
    pub log: Arc<dyn LogSink>,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            hz: 60.0,
            log: Arc::new(TracingLog),
        }
    }
}

/// Script instances sharing one scene and one frame clock.
pub struct Runtime {
    clock: FrameClock,
    /// The current frame number, shared with instances' stdio streams.
    frame: Arc<AtomicU64>,
    scene: SharedScene,
    log: Arc<dyn LogSink>,
    /// Instances by slot; a slot is `None` once its instance is gone.
    slots: Vec<Option<ScriptInstance>>,
    free_slots: Vec<u32>,
    subscriptions: Subscriptions,
    errors: Vec<ScriptError>,
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
        Runtime {
            clock: FrameClock::new(config.hz),
            frame: Arc::new(AtomicU64::new(0)),
            scene: scene.shared(),
            log: config.log,
            slots: Vec::new(),
            free_slots: Vec::new(),
            subscriptions: Subscriptions::default(),
            errors: Vec::new(),
        }
    }

    /// Instantiates `component`, runs its `entrypoint` and returns the new
    /// instance's id. Subscriptions made in `entrypoint` start with the next
    /// frame. If `entrypoint` traps, the instance is discarded and the
    /// [`ScriptError`] is both recorded and returned.
    pub fn spawn(&mut self, component: &ScriptComponent) -> Result<Uuid> {
        let now = self.clock.now();
        let mut instance = ScriptInstance::new(
            component,
            self.scene.clone(),
            self.log.clone(),
            self.frame.clone(),
            now,
        )?;
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
        for request in instance.drain_requests() {
            self.subscriptions.apply(slot, request);
        }
        self.slots[slot as usize] = Some(instance);
        Ok(id)
    }

    /// Runs one frame and returns its timing.
    pub fn step(&mut self) -> FrameTime {
        let time = self.clock.advance();
        self.frame.store(time.frame, Ordering::Relaxed);
        let mut failed = false;
        for index in 0..self.subscriptions.len() {
            let Subscription { slot, id } = self.subscriptions.get(index);
            let Some(instance) = self.slots[slot as usize].as_mut() else {
                continue;
            };
            if let Err(error) = instance.call(ScriptExport::OnMessage, time, id) {
                self.remove_slot(slot);
                self.record(*error);
                failed = true;
            }
        }
        if failed {
            let slots = &self.slots;
            self.subscriptions
                .retain_slots(|slot| slots[slot as usize].is_some());
        }
        self.apply_requests();
        time
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
        let slots = &self.slots;
        self.subscriptions
            .retain_slots(|slot| slots[slot as usize].is_some());
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
        &self.scene
    }

    /// The scene as `--dump-scene` writes it.
    pub fn dump(&self) -> SceneDump {
        let scene = self
            .scene
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        SceneDump::new(&scene, self.frame())
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
                Some(instance.info(self.subscriptions.ids_of(slot as u32)))
            })
            .collect()
    }

    /// A snapshot of one instance.
    pub fn instance(&self, id: Uuid) -> Option<InstanceInfo> {
        let slot = self.slot_of(id)?;
        let instance = self.slots[slot as usize].as_ref()?;
        Some(instance.info(self.subscriptions.ids_of(slot)))
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

    fn remove_slot(&mut self, slot: u32) {
        if self.slots[slot as usize].take().is_some() {
            self.free_slots.push(slot);
        }
    }

    fn apply_requests(&mut self) {
        for (slot, instance) in self.slots.iter_mut().enumerate() {
            if let Some(instance) = instance {
                for request in instance.drain_requests() {
                    self.subscriptions.apply(slot as u32, request);
                }
            }
        }
    }

    fn record(&mut self, error: ScriptError) {
        tracing::error!(target: "host", "{}", error.report());
        self.errors.push(error);
    }
}
