//! The frame-driven runtime: script instances sharing one scene, their
//! update subscriptions, the waits they keep on the host, and one fixed
//! timestep frame, [`Runtime::step`].
//!
//! Each step:
//! 1. advances the clock by one fixed timestep;
//! 2. moves entities under `motion` and completes arrivals;
//! 3. fires due timers (a heap: sleeping timers cost nothing);
//! 4. delivers finished background jobs (of every registered kind);
//! 5. delivers the frame's queued events (input, player events, script
//!    messages), and wakes player listeners once if players did anything;
//! 6. calls `on-update(clock)` for every update subscription, in the order
//!    the subscriptions were made (stable across frames; a 0.1 script is
//!    called once per id it subscribed, see `guest::v0_1`);
//! 7. calls `on-wake(clock, wakes)` once on each instance with completed
//!    waits (in the order their first wake completed), and the guest polls
//!    exactly the woken tasks. Instances with nothing due get no call.
//!    Steps 6 and 7 run on the frame threads (`dispatch`); each call reads
//!    the scene as the frame's calls began plus its own writes, and the
//!    writes are made in the calls' order after the last one, so the scene
//!    does not depend on the number of threads;
//! 8. removes instances that trapped (recording a [`ScriptError`]) together
//!    with all their subscriptions and waits;
//! 9. applies what scripts asked for during the frame (subscriptions, new
//!    waits, cancellations, messages, jobs), so it takes effect next frame.
//!
//! The runtime knows nothing about windows or real time: a runner (the
//! `runner` module, above this one) decides when to call `step`.
//!
//! `Runtime` itself is the frame API; the rest is behind faces borrowed
//! from it: [`Inspect`] (`inspect()`: what tools look at), [`Input`]
//! (`input()`: events and players' events from outside) and [`Starts`]
//! (`starts()`: a start or a swap in parts).
//!
//! Files: `config`, `slots` (the instance arena), `dispatch` and `claims`
//! (the frame's calls on its threads), `starting` (how an instance comes to
//! life), `starts` (its face), `commands` (what scripts asked for),
//! `inspect` (read-only views), `input` (what comes in), `swap`, `observe`
//! (what a recorder sees), and tables that know nothing of the runtime:
//! `subscriptions`, `waits`, `motion`, `events`, `restart`, `outbox`,
//! `overwrites` (lost writes). Only `mod.rs`, `starting`, `starts`,
//! `inspect`, `input`, `swap`, `commands`, `players` extend it.

mod claims;
mod commands;
mod config;
mod dispatch;
mod events;
mod granting;
mod input;
mod inspect;
mod motion;
mod observe;
mod outbox;
mod overwrites;
mod players;
mod restart;
mod script_times;
mod slots;
mod starting;
mod starts;
mod subscriptions;
mod swap;
mod waits;

use std::sync::Arc;

use anyhow::Result;
use uuid::Uuid;

use crate::error::ScriptError;
use crate::guest::bindings::tasks::Wake;
use crate::guest::engine::Extension;
use crate::guest::instance::ScriptInstance;
use crate::guest::{Command, RuntimeShared, ScriptProfile};
use crate::jobs::{Job, JobWorkers, Jobs};
use crate::scene::{GameScene, Scene, SharedScene};
use crate::sync::LockExt;
use crate::time::{FrameClock, FrameTime};
use dispatch::Dispatch;
use events::{EventQueue, Incoming};
use granting::Granting;
use outbox::Outbox;
use overwrites::LostWrites;
use restart::Restarts;
use script_times::ScriptTimes;
use slots::Slots;
use subscriptions::{Subscription, Subscriptions};
use waits::Waits;

pub use config::{DEFAULT_PLAYER_BYTES_PER_FRAME, RuntimeConfig};
pub use dispatch::{FramePool, frame_threads};
pub use input::Input;
pub use inspect::Inspect;
pub use observe::RunObserver;
pub use restart::RestartPolicy;
pub use script_times::ScriptTime;
pub use starting::{Prepared, Preparing};
pub use starts::Starts;
pub use swap::SwapReport;
pub use waits::{PendingWait, WaitStats};

/// An instance whose `entrypoint` trapped, with the error.
type Failed = Box<(ScriptInstance, ScriptError)>;

/// Script instances sharing one scene and one frame clock.
pub struct Runtime {
    /// What the instances share with the runtime, its frame clock included.
    shared: RuntimeShared,
    slots: Slots,
    subscriptions: Subscriptions,
    waits: Waits,
    events: EventQueue,
    jobs: Jobs,
    errors: Vec<ScriptError>,
    /// Scratch: waits completed this frame, by slot.
    completed: Vec<(u32, Wake)>,
    /// Scratch: slots with wakes this frame, in order of their first wake.
    woken: Vec<u32>,
    /// Scratch: slots whose instance failed this frame.
    failed: Vec<u32>,
    /// Scratch: the frame's failed calls (slot, error), in the frame's order.
    failures: Vec<(u32, Box<ScriptError>)>,
    /// The frame's tasks and the threads they run on.
    dispatch: Dispatch,
    /// Scratch: slots whose instances left commands this frame, in order.
    commanded: Vec<u32>,
    /// Scratch: the commands being applied (swapped with each instance's).
    command_buffer: Vec<Command>,
    /// Failed instances waiting to be started again.
    restarts: Restarts,
    /// Scratch: the player events of the frame being delivered.
    player_events: Vec<crate::players::PlayerEvent>,
    /// Messages scripts sent to players, until the server takes them.
    outbox: Outbox,
    /// Which entities each player sees, as scripts set them.
    views: crate::views::Views,
    /// Sees input and every frame's scene, while a run is recorded.
    observer: Option<Box<dyn RunObserver>>,
    /// The extension lists (one per engine) whose job kinds this runtime
    /// has registered: each once, when it first starts a script of that
    /// engine.
    extensions_added: Vec<Arc<[Extension]>>,
    /// The grant policy, given to each component started.
    granting: Granting,
    /// How long each script's calls take.
    times: ScriptTimes,
    /// Profiles of profiled instances that are gone (failed, removed,
    /// swapped out), for [`Runtime::take_profiles`].
    profiles: Vec<ScriptProfile>,
    /// Writes lost to another script's write of the same field.
    lost_writes: LostWrites,
    /// Which of players' input reaches ordinary event waits.
    open_to_players: crate::players::OpenToPlayers,
    /// The world's budget of bytes sent to players per frame.
    player_bytes_per_frame: usize,
}

impl Runtime {
    /// A runtime over the default scene (one cube named `cube`).
    pub fn new(config: RuntimeConfig) -> Self {
        Runtime::with_scene(config, Scene::with_default_cube().shared())
    }

    /// A runtime whose scripts act on `scene`: the core's own [`Scene`], or
    /// an engine's entities behind [`GameScene`](crate::scene::GameScene)
    /// (the seam an embedder implements).
    pub fn with_scene(config: RuntimeConfig, scene: SharedScene) -> Self {
        assert!(
            config.hz.is_finite() && config.hz > 0.0,
            "hz must be positive"
        );
        let workers = config
            .job_workers
            .unwrap_or_else(|| JobWorkers::new(config.job_threads));
        let jobs = Jobs::new(workers, config.jobs);
        let dispatch = Dispatch::new(
            config.frame_threads,
            config.frame_pool,
            config.min_parallel_tasks,
        );
        Runtime {
            shared: RuntimeShared {
                scene,
                log: config.log,
                clock: FrameClock::new(config.hz),
                jobs: jobs.registry().clone(),
                quotas: config.quotas,
                seed: config.seed,
                made: Arc::default(),
                players: Arc::default(),
                commands: Arc::default(),
                profile: config.profile,
                turns: dispatch.turns().clone(),
            },
            slots: Slots::default(),
            subscriptions: Subscriptions::default(),
            waits: Waits::default(),
            events: EventQueue::default(),
            jobs,
            errors: Vec::new(),
            completed: Vec::new(),
            woken: Vec::new(),
            failed: Vec::new(),
            failures: Vec::new(),
            dispatch,
            commanded: Vec::new(),
            command_buffer: Vec::new(),
            restarts: Restarts::new(config.restart),
            player_events: Vec::new(),
            outbox: Outbox::default(),
            views: crate::views::Views::default(),
            observer: None,
            extensions_added: Vec::new(),
            granting: Granting::new(config.grants),
            times: ScriptTimes::default(),
            profiles: Vec::new(),
            lost_writes: LostWrites::default(),
            open_to_players: config.open_to_players,
            player_bytes_per_frame: config.player_bytes_per_frame,
        }
    }

    /// Registers a kind of background job that scripts may request (through
    /// the kind's own WIT interface, see [`crate::jobs`]). Fails if the kind
    /// is registered already.
    pub fn register_job<J: Job>(&mut self, job: J) -> Result<()> {
        self.jobs.register(job)
    }

    /// Starts the restarts due at this frame boundary: fresh state, the
    /// same id. One that fails again is scheduled again, if the policy
    /// allows.
    fn run_due_restarts(&mut self) {
        let frame = self.frame();
        while let Some(restart) = self.restarts.take_due(frame) {
            let mut instance = match self.instantiate(&restart.component, Some(restart.id)) {
                Ok(instance) => instance,
                Err(error) => {
                    tracing::error!(target: "host", "restart failed: {error:#}");
                    continue;
                }
            };
            instance.set_restarts(restart.attempt);
            instance.adopt(&restart.spawned);
            if let Err(failed) = self.start(instance) {
                self.restarts.schedule(&failed.0, frame);
            }
        }
    }

    /// Runs one frame and returns its timing.
    pub fn step(&mut self) -> FrameTime {
        if !self.restarts.is_empty() {
            self.run_due_restarts();
        }
        let time = self.shared.clock.advance();
        self.complete_waits(time);
        self.dispatch();
        // Removed after dispatch, so the subscription table is not changed
        // while it is walked.
        while let Some(slot) = self.failed.pop() {
            self.remove(slot);
        }
        // Only the instances called can have left commands (every other
        // way in applies its own); each ended its frame after its calls.
        for index in 0..self.commanded.len() {
            self.apply_commands_of(self.commanded[index]);
        }
        self.forget_despawned_views();
        self.times.end_frame();
        if let Some(observer) = self.observer.as_mut() {
            observer.stepped(time.frame, &mut *self.shared.scene.lock_unpoisoned());
        }
        time
    }

    /// Lets `observer` see every input event queued from now on and the
    /// scene after every frame (a recorder: see the `record` module). Input
    /// queued before this call is not seen.
    pub fn observe(&mut self, observer: Box<dyn RunObserver>) {
        self.observer = Some(observer);
    }

    /// Ends observing: the observer writes what is left. `Ok` when nothing
    /// observed the run.
    pub fn finish_observing(&mut self) -> Result<()> {
        match self.observer.take() {
            Some(mut observer) => {
                observer.finish(self.frame(), &mut *self.shared.scene.lock_unpoisoned())
            }
            None => Ok(()),
        }
    }

    /// Steps 2-5 of the frame: completes motions, timers, jobs and events,
    /// and queues each wake on its instance.
    fn complete_waits(&mut self, time: FrameTime) {
        if self.waits.has_motions() {
            let mut scene = self.shared.scene.lock_unpoisoned();
            self.waits
                .step_motions(&mut *scene, time.delta, &mut self.completed);
        }
        self.waits
            .fire_timers(time.frame, self.shared.clock.dt(), &mut self.completed);
        for (kind, job, waiters) in self.jobs.deliver() {
            for waiter in waiters {
                self.waits
                    .complete_job(waiter, kind, job, &mut self.completed);
            }
        }
        self.shared.commands.clear();
        if self.events.has_due(time.frame) {
            for incoming in self.events.take_due(time.frame) {
                match incoming {
                    Incoming::Event(event) => self.waits.deliver_event(&event, &mut self.completed),
                    Incoming::Player(event) => self.deliver_player_event(event),
                }
            }
        }
        if !self.player_events.is_empty() {
            self.wake_player_listeners();
        }
        if self.completed.is_empty() {
            return;
        }
        for (slot, wake) in self.completed.drain(..) {
            if let Some(instance) = self.slots.get_mut(slot)
                && instance.push_wake(wake)
            {
                self.woken.push(slot);
            }
        }
    }

    /// Steps 6-8 of the frame: every update and wake call, on the frame's
    /// threads (see `dispatch`). The scene writes are applied in the
    /// frame's order; each instance that failed is recorded, stops
    /// receiving calls at once, and is removed after the dispatch.
    fn dispatch(&mut self) {
        let dispatch = &mut self.dispatch;
        dispatch.begin(self.slots.capacity());
        for index in 0..self.subscriptions.len() {
            let Subscription { slot, id } = self.subscriptions.get(index);
            dispatch.update(slot, id);
        }
        for slot in self.woken.drain(..) {
            dispatch.wake(slot);
        }
        let (waits, subscriptions) = (&self.waits, &self.subscriptions);
        dispatch.set_known(|slot| (waits.count(slot), subscriptions.count(slot)));
        let times = &mut self.times;
        if let Err(error) = dispatch.run(&mut self.slots, |script, ticks| times.add(script, ticks))
        {
            // The frame threads could not start: frames run on this thread.
            tracing::error!(target: "host", "{error:#}; frames run on one thread");
        }
        if dispatch.has_writes() {
            dispatch.apply_writes(&mut *self.shared.scene.lock_unpoisoned());
            if !dispatch.overwrites().is_empty() {
                let (slots, scene) = (&self.slots, &self.shared.scene);
                self.lost_writes.say(
                    dispatch.overwrites(),
                    self.shared.clock.now().frame,
                    |task| slots.get(dispatch.slot_of(task)),
                    |id| scene.lock_unpoisoned().name(id).unwrap_or_default(),
                );
            }
        }
        let dispatch = &mut self.dispatch;
        let mut failures = std::mem::take(&mut self.failures);
        dispatch.finish(
            |slot, error| failures.push((slot, error)),
            &mut self.commanded,
        );
        if failures.is_empty() {
            self.failures = failures;
            return;
        }
        let frame = self.frame();
        for (slot, error) in failures.drain(..) {
            self.record(*error);
            // Its task ended its frame already.
            if let Some(mut failed) = self.slots.take(slot) {
                self.keep_profile(&mut failed);
                self.restarts.schedule(&failed, frame);
            }
            self.failed.push(slot);
        }
        self.failures = failures;
    }

    /// Keeps the profile of an instance that is going, if it has one.
    fn keep_profile(&mut self, instance: &mut ScriptInstance) {
        if let Some(profile) = instance.take_profile() {
            self.profiles.push(profile);
        }
    }

    /// Runs `frames` frames back to back.
    pub fn run_frames(&mut self, frames: u64) {
        for _ in 0..frames {
            self.step();
        }
    }

    /// Removes an instance (its subscriptions and waits end now). Returns
    /// whether it existed.
    pub fn despawn(&mut self, id: Uuid) -> bool {
        let Some(slot) = self.slots.slot_of(id) else {
            return false;
        };
        self.remove(slot);
        true
    }

    /// The one way an instance leaves: out of its slot, with everything it
    /// holds on the host.
    fn remove(&mut self, slot: u32) {
        if let Some(mut gone) = self.slots.take(slot) {
            self.keep_profile(&mut gone);
        }
        self.release_host_state(slot);
    }

    /// Number of the last frame run (0 before the first).
    pub fn frame(&self) -> u64 {
        self.shared.clock.now().frame
    }

    /// The world's seed (see [`RuntimeConfig::seed`]).
    pub fn seed(&self) -> u64 {
        self.shared.seed
    }

    /// The fixed timestep in seconds.
    pub fn dt(&self) -> f64 {
        self.shared.clock.dt()
    }

    /// The shared scene.
    pub fn scene(&self) -> &SharedScene {
        &self.shared.scene
    }

    /// Queues input from outside (an event, a player's event) for the
    /// start of `frame` (the next frame if that has passed), and lets the
    /// observer see it.
    pub(super) fn schedule_input(&mut self, frame: u64, input: Incoming) {
        let frame = frame.max(self.frame() + 1);
        if let Some(observer) = self.observer.as_mut() {
            match &input {
                Incoming::Event(event) => observer.input(frame, event),
                Incoming::Player(event) => observer.player(frame, event),
            }
        }
        self.events.schedule_input(frame, input);
    }

    fn record(&mut self, error: ScriptError) {
        tracing::error!(target: "host", "{}", error.report());
        self.errors.push(error);
    }
}
