//! [`ScriptProfile`]: one instance's sampled wasm stacks, in the Firefox
//! Profiler's format (wasmtime's `GuestProfiler`). Samples are taken on the
//! CPU deadline's epoch ticks (every [`TICK`](crate::limits::TICK) of a
//! call), so profiling needs deadlines on; off, it costs nothing.

use std::io::Write;

use uuid::Uuid;
use wasmtime::component::Component;
use wasmtime::{AsContext, Engine, GuestProfiler};

use crate::limits::TICK;

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

    /// Samples the wasm stack of the call under way in `store` (one tick of
    /// CPU time since the last sample).
    pub(crate) fn sample(&mut self, store: impl AsContext) {
        self.profiler.sample(store, TICK);
    }

    /// Writes the profile: JSON the Firefox Profiler opens
    /// (<https://profiler.firefox.com>, "Load a profile from file").
    pub fn write(self, output: impl Write) -> anyhow::Result<()> {
        self.profiler.finish(output).map_err(anyhow::Error::from)
    }
}
