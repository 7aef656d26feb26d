//! One script instance: its `Store`, its exports and the component it runs.

use anyhow::Result;
use uuid::Uuid;
use wasmtime::component::{Instance, TypedFunc};
use wasmtime::error::Context as _;
use wasmtime::{Store, Trap, UpdateDeadline};

use crate::error::{ScriptError, ScriptExport};
use crate::guest::SceneWrite;
use crate::guest::bindings::live::LiveIndices;
use crate::guest::bindings::tasks::Wake;
use crate::guest::engine::{ScriptComponent, arm_deadline};
use crate::guest::exports::Exports;
use crate::guest::profile::ScriptProfile;
use crate::guest::{Command, HandleStats, RuntimeShared, ScriptState};
use crate::input::PlayerEvent;
use crate::scene::EntityId;

/// The epoch callback of a profiled store: a sample of the stack, then the
/// deadline's judgement, looked at again at the next tick.
fn sample(
    mut store: wasmtime::StoreHookState<'_, ScriptState>,
) -> wasmtime::Result<UpdateDeadline> {
    if let Some(mut profile) = store.data_mut().profile.take() {
        profile.sample(&store);
        store.data_mut().profile = Some(profile);
    }
    Ok(match store.data_mut().deadline.on_tick()? {
        UpdateDeadline::Continue(_) => UpdateDeadline::Continue(1),
        other => other,
    })
}

/// A snapshot of one instance, for tools and tests.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceInfo {
    /// Instance id (UUID v7).
    pub id: Uuid,
    /// Script name.
    pub name: String,
    /// Ids it is subscribed to, in subscription order.
    pub subscriptions: Vec<u32>,
    /// Its resource handles.
    pub handles: HandleStats,
    /// Whether its `ResourceTable` holds no entries at all.
    pub table_empty: bool,
    /// Waits it has pending on the host (timers, events, motions, jobs).
    pub pending_waits: usize,
    /// Calls the host has made into it (a live script's prepare,
    /// entrypoint, updates, wakes).
    pub calls: u64,
    /// Times it has been hot-swapped to new code.
    pub swaps: u32,
    /// Times it was restarted after failing (see `RestartPolicy`).
    pub restarts: u32,
}

pub(crate) struct ScriptInstance {
    store: Store<ScriptState>,
    exports: Exports,
    instance: Instance,
    /// The component this instance runs (its name, size and optional
    /// hand-over exports, looked up when a swap needs them).
    component: ScriptComponent,
    /// Times this instance has been hot-swapped.
    swaps: u32,
    /// Times its script was restarted after failing (it is the restart).
    restarts: u32,
    /// Its script's entry in the runtime's call times.
    times_index: u32,
    /// Its log lines are held ([`Self::hold_log`]): kept here, beside what
    /// a frame touches anyway, so that an instance that holds nothing
    /// reaches no further than this for its release (one more cache line
    /// per instance and frame counts when thousands run).
    log_held: bool,
}

impl ScriptInstance {
    /// Instantiates `component` (see [`ScriptState::new`] for what the
    /// guest may reach, and `ordinal`). `id` is given when a hot-swap keeps
    /// the old instance's id.
    pub fn new(
        component: &ScriptComponent,
        shared: &RuntimeShared,
        id: Option<Uuid>,
        ordinal: u64,
    ) -> Result<Self> {
        let state = ScriptState::new(component.shared_name(), id, shared, ordinal);
        let pre = component.pre();
        let mut store = component.new_store(state);
        let context = || format!("failed to instantiate script `{}`", component.name());
        if shared.profile {
            if component.limits().update_deadline.is_none() {
                anyhow::bail!(
                    "cannot profile `{}`: samples are taken on the CPU deadline's ticks, and its \
                     engine has deadlines off",
                    component.name()
                );
            }
            let id = store.data().identity.id;
            let profile = ScriptProfile::new(pre.engine(), component.name(), id, pre.component())
                .with_context(context)?;
            store.data_mut().profile = Some(Box::new(profile));
            store.epoch_deadline_callback(sample);
        }
        let instance = pre.instantiate(&mut store).with_context(context)?;
        let exports = component
            .indices()
            .load(&mut store, &instance)
            .with_context(context)?;
        Ok(ScriptInstance {
            store,
            exports,
            instance,
            component: component.clone(),
            swaps: 0,
            log_held: false,
            restarts: 0,
            times_index: 0,
        })
    }

    /// The component this instance runs.
    pub fn component(&self) -> &ScriptComponent {
        &self.component
    }

    /// Marks this instance as the successor of `old`, which it replaces.
    pub fn succeed(&mut self, old: &ScriptInstance) {
        self.swaps = old.swaps + 1;
        self.restarts = old.restarts;
    }

    /// The entities it spawned (recorded while its writes are checked).
    pub fn spawned_entities(&self) -> Vec<EntityId> {
        self.store.data().spawned_entities()
    }

    /// Takes `entities` as its own, as if it had spawned them (the
    /// entities of the instance it replaces or restarts).
    pub fn adopt(&mut self, entities: &[EntityId]) {
        let state = self.store.data_mut();
        for &id in entities {
            state.spawned(id);
        }
    }

    /// Takes its profile, if it is profiled.
    pub fn take_profile(&mut self) -> Option<ScriptProfile> {
        self.store.data_mut().profile.take().map(|profile| *profile)
    }

    /// Its script's entry in the runtime's call times.
    #[inline]
    pub fn times_index(&self) -> u32 {
        self.times_index
    }

    /// Sets its script's entry in the runtime's call times.
    pub fn set_times_index(&mut self, index: u32) {
        self.times_index = index;
    }

    /// Times its script was restarted after failing.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// Marks this instance as restart number `restarts` of its script.
    pub fn set_restarts(&mut self, restarts: u32) {
        self.restarts = restarts;
    }

    pub fn id(&self) -> Uuid {
        self.store.data().identity.id
    }

    /// For a live script (see [`ScriptComponent::with_live_sources`]):
    /// has its runtime compile the sources ahead of `entrypoint`, running
    /// none of them (`game:live/loader.prepare`), so that this part of
    /// starting it can happen away from the frame. Other scripts have
    /// nothing to prepare.
    pub fn prepare(&mut self) -> Result<()> {
        if self.store.data().live.is_none() {
            return Ok(());
        }
        let loader = LiveIndices::new(self.component.pre())
            .and_then(|indices| indices.load(&mut self.store, &self.instance))
            .with_context(|| format!("failed to prepare script `{}`", self.component.name()))?;
        self.call_export(ScriptExport::Prepare, |_, store| {
            loader.game_live_loader().call_prepare(store)
        })
        .map_err(|error| anyhow::Error::new(*error))
    }

    /// Calls `entrypoint` once.
    pub fn start(&mut self) -> Result<(), Box<ScriptError>> {
        self.call_export(ScriptExport::Entrypoint, |exports, store| {
            exports.entrypoint(store)
        })
    }

    /// The frame's update call for subscription `key` (see
    /// [`crate::time::UPDATE`]): `on-update(clock)`.
    pub fn update(&mut self, key: u32) -> Result<(), Box<ScriptError>> {
        let export = self.exports.update_export();
        self.call_export(export, |exports, store| exports.update(store, key))
    }

    /// Delivers the waits that completed this frame: `on-wake(clock, wakes)`.
    pub fn wake(&mut self) -> Result<(), Box<ScriptError>> {
        let export = self.exports.wake_export();
        self.call_export(export, |exports, store| exports.wake(store))
    }

    /// Calls `save-state`; `None` when the script has no state to hand over
    /// (or no such export).
    pub fn save_state(&mut self) -> Result<Option<Vec<u8>>, Box<ScriptError>> {
        let Some(index) = self.component.handover().save else {
            return Ok(None);
        };
        let instance = self.instance;
        self.call_export(ScriptExport::SaveState, |_, store| {
            let save: TypedFunc<(), (Option<Vec<u8>>,)> = instance
                .get_typed_func(&mut *store, index)
                .context("`save-state` has the wrong type")?;
            Ok(save.call(store, ())?.0)
        })
    }

    /// Calls `restore-state(state)`, or `entrypoint` if there is no such
    /// export.
    pub fn restore_state(&mut self, state: Vec<u8>) -> Result<(), Box<ScriptError>> {
        let Some(index) = self.component.handover().restore else {
            return self.start();
        };
        let instance = self.instance;
        self.call_export(ScriptExport::RestoreState, |_, store| {
            let restore: TypedFunc<(Vec<u8>,), ()> = instance
                .get_typed_func(&mut *store, index)
                .context("`restore-state` has the wrong type")?;
            restore.call(store, (state,))
        })
    }

    /// Runs one call into the guest with the export's CPU deadline, turning a trap into a [`ScriptError`].
    fn call_export<R>(
        &mut self,
        export: ScriptExport,
        f: impl FnOnce(&Exports, &mut Store<ScriptState>) -> wasmtime::Result<R>,
    ) -> Result<R, Box<ScriptError>> {
        let limits = self.component.limits();
        if let Some(update) = limits.update_deadline {
            // Updates, wakes and messages may spend credit; entry points
            // have their own, longer budget.
            let (deadline, spends) = match export {
                ScriptExport::OnUpdate | ScriptExport::OnWake | ScriptExport::OnMessage => {
                    (update, true)
                }
                _ => (limits.start_deadline, false),
            };
            arm_deadline(&mut self.store, deadline, limits, spends);
        }
        let state = self.store.data_mut();
        state.calls += 1;
        state.identity.begin_call();
        let result = f(&self.exports, &mut self.store);
        match result {
            Ok(value) => {
                self.store.data_mut().deadline.end_call();
                Ok(value)
            }
            Err(error) => Err(self.failure(export, &error)),
        }
    }

    /// The script error for a call of `export` that failed with `error`
    /// (out of line: calls that fail are rare).
    #[cold]
    #[inline(never)]
    fn failure(&self, export: ScriptExport, error: &wasmtime::Error) -> Box<ScriptError> {
        let state = self.store.data();
        let identity = &state.identity;
        let mut failure = ScriptError::from_call(
            &identity.name,
            identity.id,
            export,
            state.clock.frame(),
            error,
            identity.take_stderr_tail(),
        );
        if let Some(overrun) = state.deadline.overrun()
            && error.downcast_ref::<Trap>() == Some(&Trap::Interrupt)
        {
            failure.cause = overrun.cause();
        }
        Box::new(failure)
    }

    /// Starts its part of a frame's dispatch, as task `task`: its scene
    /// writes are kept until [`Self::end_task`], and calls that depend on
    /// other scripts' spawns wait for its turn (see `guest::store::view`).
    pub fn begin_task(&mut self, task: usize) {
        let state = self.store.data_mut();
        state.task = Some(task);
        state.pending.defer();
    }

    /// Ends its part of the dispatch: its kept writes go to `writes`,
    /// marked with its task, to be made on the scene in task order.
    pub fn end_task(&mut self, writes: &mut Vec<SceneWrite>) {
        let state = self.store.data_mut();
        if let Some(task) = state.task.take() {
            state.pending.take(task as u32, writes);
        }
    }

    /// Tells the instance what the runtime holds for it, before a call, so
    /// its quotas count from there.
    pub fn set_known_usage(&mut self, waits: usize, subscriptions: usize) {
        let usage = &mut self.store.data_mut().usage;
        usage.known_waits = waits;
        usage.known_subscriptions = subscriptions;
    }

    /// Ends the frame for this instance: summarises log lines dropped in it.
    pub fn end_frame(&self) {
        self.store.data().identity.end_frame();
    }

    /// The script's name.
    pub fn name(&self) -> &str {
        &self.store.data().identity.name
    }

    /// Logs a host's note about the instance, as a warning in its log.
    pub fn warn(&self, message: String) {
        let identity = &self.store.data().identity;
        identity.log(
            crate::log::LogLevel::Warn,
            crate::log::LogSource::Host,
            message,
        );
    }

    /// Holds its log lines until [`Self::release_log`] (its calls run
    /// beside other instances' on other threads).
    pub fn hold_log(&mut self) {
        self.log_held = true;
        self.store.data().identity.hold();
    }

    /// Sends the log lines held since [`Self::hold_log`].
    #[inline]
    pub fn release_log(&mut self) {
        if std::mem::take(&mut self.log_held) {
            self.store.data().identity.release();
        }
    }

    /// Whether the instance asked for anything since its commands were
    /// last taken.
    pub fn has_commands(&self) -> bool {
        !self.store.data().commands.is_empty()
    }

    /// Swaps the commands made since the last time (oldest first) with
    /// `buffer`, which must be empty.
    pub fn swap_commands(&mut self, buffer: &mut Vec<Command>) {
        debug_assert!(buffer.is_empty());
        let state = self.store.data_mut();
        std::mem::swap(&mut state.commands, buffer);
        state.commands_taken();
    }

    /// Keeps player events for the script's `take-events`.
    pub fn push_player_events(&mut self, events: &[PlayerEvent]) {
        self.store.data_mut().push_player_events(events);
    }

    /// Queues a completed wait; see [`ScriptState::push_wake`].
    pub fn push_wake(&mut self, wake: Wake) -> bool {
        self.store.data_mut().push_wake(wake)
    }

    pub fn info(&self, subscriptions: Vec<u32>, pending_waits: usize) -> InstanceInfo {
        let state = self.store.data();
        InstanceInfo {
            id: state.identity.id,
            name: state.identity.name.to_string(),
            subscriptions,
            handles: state.handles,
            table_empty: state.table.is_empty(),
            pending_waits,
            calls: state.calls,
            swaps: self.swaps,
            restarts: self.restarts,
        }
    }
}
