//! A script's exports, whichever release of `game:engine` it was built
//! against: the calls the runtime makes (start, the frame's update, the
//! wakes), each going to the newest world's export or, for a 0.1 script,
//! through [`super::v0_1`].

use std::sync::Arc;

use wasmtime::Store;
use wasmtime::component::{Instance, InstancePre};

use super::ScriptState;
use super::bindings::{Script, ScriptIndices};
use super::v0_1;
use crate::error::ScriptExport;

/// Where a component's exports are, found once when it loads.
#[derive(Clone)]
pub(crate) enum ExportIndices {
    /// The newest world: `entrypoint`, `on-update(clock)`,
    /// `on-wake(clock, wakes)`.
    Newest(Arc<ScriptIndices>),
    /// 0.1: `entrypoint`, `on-message(id)` or `on-update(id, clock)`.
    V0_1(Arc<v0_1::ExportIndices>),
}

impl ExportIndices {
    /// Finds the exports of the component `pre` instantiates: a 0.1 script
    /// exports `on-message`; any other must export the newest world.
    pub fn new(pre: &InstancePre<ScriptState>) -> wasmtime::Result<Self> {
        match v0_1::ExportIndices::new(pre.component()) {
            Some(old) => Ok(ExportIndices::V0_1(Arc::new(old))),
            None => Ok(ExportIndices::Newest(Arc::new(ScriptIndices::new(pre)?))),
        }
    }

    /// The exports of `instance`, typed.
    pub fn load(
        &self,
        store: &mut Store<ScriptState>,
        instance: &Instance,
    ) -> wasmtime::Result<Exports> {
        Ok(match self {
            ExportIndices::Newest(indices) => Exports::Newest(indices.load(store, instance)?),
            ExportIndices::V0_1(indices) => Exports::V0_1(indices.load(store, instance)?),
        })
    }
}

/// One instance's exports.
pub(crate) enum Exports {
    Newest(Script),
    V0_1(v0_1::Exports),
}

impl Exports {
    /// Calls `entrypoint`.
    pub fn entrypoint(&self, store: &mut Store<ScriptState>) -> wasmtime::Result<()> {
        match self {
            Exports::Newest(script) => script.call_entrypoint(store),
            Exports::V0_1(script) => script.entrypoint(store),
        }
    }

    /// The export the frame's update call goes to.
    pub fn update_export(&self) -> ScriptExport {
        match self {
            Exports::Newest(_) => ScriptExport::OnUpdate,
            Exports::V0_1(script) => script.message_export(),
        }
    }

    /// The export completed waits go to.
    pub fn wake_export(&self) -> ScriptExport {
        match self {
            Exports::Newest(_) => ScriptExport::OnWake,
            Exports::V0_1(script) => script.message_export(),
        }
    }

    /// The frame's update call for subscription `key` (a 0.1 script's
    /// update id; the newest world has one subscription, and no key).
    pub fn update(&self, store: &mut Store<ScriptState>, key: u32) -> wasmtime::Result<()> {
        match self {
            Exports::Newest(script) => {
                let clock = store.data().frame_clock();
                script.call_on_update(store, clock)
            }
            Exports::V0_1(script) => script.message(store, key),
        }
    }

    /// Delivers the waits that completed this frame.
    pub fn wake(&self, store: &mut Store<ScriptState>) -> wasmtime::Result<()> {
        match self {
            Exports::Newest(script) => {
                let state = store.data_mut();
                let clock = state.frame_clock();
                let wakes = state.take_wakes();
                let result = script.call_on_wake(&mut *store, clock, &wakes);
                store.data_mut().return_wakes(wakes);
                result
            }
            Exports::V0_1(script) => script.message(store, v0_1::WAKE_MESSAGE),
        }
    }
}
