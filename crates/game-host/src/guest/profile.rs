//! [`ScriptProfile`]: one instance's sampled wasm stacks, in the Firefox
//! Profiler's format (wasmtime's `GuestProfiler`). Samples are taken on the
//! CPU deadline's epoch ticks (every [`TICK`](crate::limits::TICK) of a
//! call), so profiling needs deadlines on; off, it costs nothing.

use std::io::Write;

use uuid::Uuid;
use wasmtime::component::Component;
use wasmtime::{Engine, GuestProfiler, UpdateDeadline};

use crate::limits::TICK;

use super::ScriptState;

/// A profile being taken of one instance.
pub struct ScriptProfile {
    /// The script's name.
    pub script: String,
    /// The instance.
    pub instance: Uuid,
    profiler: GuestProfiler,
}

impl ScriptProfile {
    /// A profile of an instance of `component` (every core module of it,
    /// named from its name section; Rust names demangled).
    pub(crate) fn new(
        engine: &Engine,
        script: &str,
        instance: Uuid,
        component: &Component,
    ) -> wasmtime::Result<Self> {
        let profiler = GuestProfiler::new_component(
            engine,
            script,
            TICK,
            component.clone(),
            std::iter::empty(),
        )?;
        Ok(ScriptProfile {
            script: script.to_owned(),
            instance,
            profiler,
        })
    }

    /// Writes the profile: JSON the Firefox Profiler opens
    /// (<https://profiler.firefox.com>, "Load a profile from file").
    pub fn write(self, output: impl Write) -> anyhow::Result<()> {
        self.profiler.finish(output).map_err(anyhow::Error::from)
    }
}

/// The epoch callback of a profiled store: a sample of the stack, then the
/// deadline's judgement, looked at again at the next tick.
pub(crate) fn sample(
    mut store: wasmtime::StoreHookState<'_, ScriptState>,
) -> wasmtime::Result<UpdateDeadline> {
    if let Some(mut profile) = store.data_mut().profile.take() {
        profile.profiler.sample(&store, TICK);
        store.data_mut().profile = Some(profile);
    }
    Ok(match store.data_mut().deadline.on_tick()? {
        UpdateDeadline::Continue(_) => UpdateDeadline::Continue(1),
        other => other,
    })
}
