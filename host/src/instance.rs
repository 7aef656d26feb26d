//! One script instance: its `Store`, its exports and its identity.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use anyhow::Result;
use uuid::Uuid;
use wasmtime::Store;
use wasmtime::component::{Instance, ResourceTable, TypedFunc};
use wasmtime::error::Context as _;
use wasmtime_wasi::WasiCtxBuilder;

use crate::api::ScriptStdio;
use crate::bindings::Script;
use crate::bindings::tasks::Wake;
use crate::engine::{ScriptComponent, StateExports};
use crate::error::{ScriptError, ScriptExport};
use crate::log::{LogLevel, LogSink, LogSource};
use crate::runtime::FrameTime;
use crate::scene::SharedScene;
use crate::state::{Request, ScriptIdentity, ScriptState};
use crate::terrain::TileCache;

/// What every instance of a runtime shares.
#[derive(Clone)]
pub(crate) struct InstanceContext {
    pub scene: SharedScene,
    pub log: Arc<dyn LogSink>,
    /// The runtime's current frame number.
    pub frame: Arc<AtomicU64>,
    pub tiles: Arc<TileCache>,
}

impl InstanceContext {
    /// A context attached to no runtime, for throwaway instances.
    pub fn detached() -> Self {
        InstanceContext {
            scene: crate::scene::Scene::new().shared(),
            log: Arc::new(crate::log::MemoryLog::new()),
            frame: Arc::default(),
            tiles: Arc::default(),
        }
    }
}

/// Most completed waits queued for a script before further ones are dropped.
pub(crate) const MAX_QUEUED_WAKES: usize = 1 << 20;

/// Host-side count of an instance's `transform-component` handles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HandleStats {
    /// Handles handed to the guest so far.
    pub created: u64,
    /// Handles the guest holds now.
    pub live: usize,
    /// Highest `ResourceTable` index ever handed out; stays small when
    /// dropped handles are really deleted (their slots are reused).
    pub highest_index: u32,
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
    /// Calls the host has made into it (entrypoint, updates, wakes).
    pub calls: u64,
    /// Times it has been hot-swapped to new code.
    pub swaps: u32,
}

pub(crate) struct ScriptInstance {
    store: Store<ScriptState>,
    exports: Script,
    instance: Instance,
    /// The optional state hand-over exports, looked up when a swap needs
    /// them (instantiation stays as cheap as for plain scripts).
    state: StateExports,
    /// Size of the component this instance runs, in bytes.
    size: usize,
    /// Times this instance has been hot-swapped.
    swaps: u32,
}

impl ScriptInstance {
    /// Instantiates `component` with a locked-down WASI context: no
    /// preopened directories, no environment, no network; stdout and stderr
    /// go to the log.
    ///
    /// `id` is given when a hot-swap keeps the old instance's id.
    pub fn new(
        component: &ScriptComponent,
        context: &InstanceContext,
        time: FrameTime,
        id: Option<Uuid>,
    ) -> Result<Self> {
        let identity = Arc::new(ScriptIdentity::new(
            component.shared_name(),
            id,
            context.log.clone(),
            context.frame.clone(),
        ));
        let wasi = WasiCtxBuilder::new()
            .stdout(ScriptStdio::stdout(identity.clone()))
            .stderr(ScriptStdio::stderr(identity.clone()))
            .build();
        let state = ScriptState {
            identity,
            table: ResourceTable::new(),
            wasi,
            scene: context.scene.clone(),
            time,
            requests: Vec::new(),
            wakes: Vec::new(),
            wakes_dropped: false,
            tiles: context.tiles.clone(),
            handles: HandleStats::default(),
            calls: 0,
        };
        let pre = component.pre();
        let mut store = Store::new(pre.engine(), state);
        let context = || format!("failed to instantiate script `{}`", component.name());
        let instance = pre.instantiate(&mut store).with_context(context)?;
        let exports = component
            .indices()
            .load(&mut store, &instance)
            .with_context(context)?;
        Ok(ScriptInstance {
            store,
            exports,
            instance,
            state: component.state_exports().clone(),
            size: component.size(),
            swaps: 0,
        })
    }

    /// Whether this instance can take state over with `restore-state`.
    pub fn can_restore(&self) -> bool {
        self.state.save.is_some() && self.state.restore.is_some()
    }

    /// Size of the component this instance runs, in bytes.
    pub fn component_size(&self) -> usize {
        self.size
    }

    /// Marks this instance as the successor of one swapped `previous_swaps`
    /// times before.
    pub fn succeed(&mut self, previous_swaps: u32) {
        self.swaps = previous_swaps + 1;
    }

    pub fn swaps(&self) -> u32 {
        self.swaps
    }

    pub fn id(&self) -> Uuid {
        self.store.data().identity.id
    }

    /// Calls `entrypoint` or `on-message(id)` with the frame's timing.
    pub fn call(
        &mut self,
        export: ScriptExport,
        time: FrameTime,
        id: u32,
    ) -> Result<(), Box<ScriptError>> {
        self.guarded(export, time, |exports, store| match export {
            ScriptExport::OnMessage => exports.call_on_message(store, id),
            _ => exports.call_entrypoint(store),
        })
    }

    /// Calls `save-state`; `None` when the script has no state to hand over
    /// (or no such export).
    pub fn save_state(&mut self, time: FrameTime) -> Result<Option<Vec<u8>>, Box<ScriptError>> {
        let Some(index) = self.state.save else {
            return Ok(None);
        };
        let instance = self.instance;
        self.guarded(ScriptExport::SaveState, time, |_, store| {
            let save: TypedFunc<(), (Option<Vec<u8>>,)> = instance
                .get_typed_func(&mut *store, index)
                .context("`save-state` has the wrong type")?;
            Ok(save.call(store, ())?.0)
        })
    }

    /// Calls `restore-state(state)`, or `entrypoint` if there is no such
    /// export.
    pub fn restore_state(
        &mut self,
        time: FrameTime,
        state: Vec<u8>,
    ) -> Result<(), Box<ScriptError>> {
        let Some(index) = self.state.restore else {
            return self.call(ScriptExport::Entrypoint, time, 0);
        };
        let instance = self.instance;
        self.guarded(ScriptExport::RestoreState, time, |_, store| {
            let restore: TypedFunc<(Vec<u8>,), ()> = instance
                .get_typed_func(&mut *store, index)
                .context("`restore-state` has the wrong type")?;
            restore.call(store, (state,))
        })
    }

    /// Runs one call into the guest with the frame's timing, turning a trap
    /// into a [`ScriptError`].
    fn guarded<R>(
        &mut self,
        export: ScriptExport,
        time: FrameTime,
        f: impl FnOnce(&Script, &mut Store<ScriptState>) -> wasmtime::Result<R>,
    ) -> Result<R, Box<ScriptError>> {
        let state = self.store.data_mut();
        state.time = time;
        state.calls += 1;
        state.identity.begin_call();
        f(&self.exports, &mut self.store).map_err(|error| {
            let identity = &self.store.data().identity;
            Box::new(ScriptError::from_call(
                &identity.name,
                identity.id,
                export,
                time.frame,
                &error,
                identity.take_stderr_tail(),
            ))
        })
    }

    /// Requests made since the last drain, oldest first.
    pub fn drain_requests(&mut self) -> std::vec::Drain<'_, Request> {
        self.store.data_mut().requests.drain(..)
    }

    /// Queues a completed wait for `take-wakes`; returns whether it is the
    /// first one queued since the script last took them. A script that never
    /// takes its wakes loses those beyond [`MAX_QUEUED_WAKES`], with a
    /// warning, instead of growing the host's memory.
    pub fn push_wake(&mut self, wake: Wake) -> bool {
        let state = self.store.data_mut();
        if state.wakes.len() >= MAX_QUEUED_WAKES {
            if !state.wakes_dropped {
                state.wakes_dropped = true;
                state.identity.log(
                    LogLevel::Warn,
                    LogSource::Api,
                    format!(
                        "{MAX_QUEUED_WAKES} completed waits not taken with take-wakes; \
                         dropping further ones"
                    ),
                );
            }
            return false;
        }
        state.wakes.push(wake);
        state.wakes.len() == 1
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
        }
    }
}
