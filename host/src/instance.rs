//! One script instance: its `Store`, its exports and its identity.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use anyhow::Result;
use uuid::Uuid;
use wasmtime::Store;
use wasmtime::component::ResourceTable;
use wasmtime::error::Context as _;
use wasmtime_wasi::WasiCtxBuilder;

use crate::api::ScriptStdio;
use crate::bindings::Script;
use crate::bindings::tasks::Wake;
use crate::engine::ScriptComponent;
use crate::error::{ScriptError, ScriptExport};
use crate::log::LogSink;
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
}

pub(crate) struct ScriptInstance {
    store: Store<ScriptState>,
    exports: Script,
}

impl ScriptInstance {
    /// Instantiates `component` with a locked-down WASI context: no
    /// preopened directories, no environment, no network; stdout and stderr
    /// go to the log.
    pub fn new(
        component: &ScriptComponent,
        context: &InstanceContext,
        time: FrameTime,
    ) -> Result<Self> {
        let identity = Arc::new(ScriptIdentity::new(
            component.shared_name(),
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
            tiles: context.tiles.clone(),
            handles: HandleStats::default(),
            calls: 0,
        };
        let pre = component.pre();
        let mut store = Store::new(pre.engine(), state);
        let exports = pre
            .instantiate(&mut store)
            .with_context(|| format!("failed to instantiate script `{}`", component.name()))?;
        Ok(ScriptInstance { store, exports })
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
        let state = self.store.data_mut();
        state.time = time;
        state.calls += 1;
        state.identity.begin_call();
        let result = match export {
            ScriptExport::Entrypoint => self.exports.call_entrypoint(&mut self.store),
            ScriptExport::OnMessage => self.exports.call_on_message(&mut self.store, id),
        };
        result.map_err(|error| {
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
    /// first one queued since the script last took them.
    pub fn push_wake(&mut self, wake: Wake) -> bool {
        let wakes = &mut self.store.data_mut().wakes;
        wakes.push(wake);
        wakes.len() == 1
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
        }
    }
}
