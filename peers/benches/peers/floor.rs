//! The call floor: the no-op script's `on-update` called through wasmtime's
//! typed-function API alone, on the host's own engine (its pooling
//! allocator, epoch checks and compiled code), with no runtime around it:
//! no frame, no dispatch, no deadline, no log or write bookkeeping. What
//! this costs, no change to the host can take off the bare frame.

use std::path::Path;

use game_host::ScriptEngine;
use wasmtime::component::{Component, ComponentType, Linker, Lower, TypedFunc};
use wasmtime::{Result, Store};

/// The floor's row in the table (left out of the chart: it is part of a
/// call, not a scenario).
pub(crate) const FLOOR: &str = "wasmtime's own call of that export, no host around it (the floor)";

/// WIT `frame-clock`, as `on-update` takes it.
#[derive(ComponentType, Lower, Clone, Copy)]
#[component(record)]
struct FrameClock {
    frame: u64,
    #[component(name = "delta-time")]
    delta_time: f32,
    time: f64,
}

/// One instance of a script component and its `on-update`, called bare.
pub(crate) struct Floor {
    store: Store<()>,
    on_update: TypedFunc<(FrameClock,), ()>,
    frame: u64,
}

impl Floor {
    /// Instantiates the component at `path` on `engine`'s wasmtime engine.
    /// Its imports trap: `entrypoint` is not called, and the no-op
    /// script's `on-update` calls none without a state.
    pub fn new(engine: &ScriptEngine, path: &Path) -> Result<Self> {
        let wasmtime = engine.wasmtime();
        let component = Component::from_file(wasmtime, path)?;
        let mut linker = Linker::new(wasmtime);
        linker.define_unknown_imports_as_traps(&component)?;
        let mut store = Store::new(wasmtime, ());
        // Epoch checks are compiled in (as the host's deadlines need); the
        // epoch never reaches this deadline.
        store.set_epoch_deadline(u64::MAX / 2);
        let instance = linker.instantiate(&mut store, &component)?;
        let on_update = instance.get_typed_func(&mut store, "on-update")?;
        Ok(Floor {
            store,
            on_update,
            frame: 0,
        })
    }

    /// One bare call of `on-update`, with the next frame's clock.
    pub fn call(&mut self) -> Result<()> {
        self.frame += 1;
        let clock = FrameClock {
            frame: self.frame,
            delta_time: 1.0 / 60.0,
            time: self.frame as f64 / 60.0,
        };
        self.on_update.call(&mut self.store, (clock,))
    }
}
