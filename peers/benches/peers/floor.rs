//! wasmtime's own call: the no-op script's `on-update` called through
//! wasmtime's typed-function API alone, on the host's own engine (its
//! pooling allocator, epoch checks and compiled code), with no runtime
//! around it: no frame, no dispatch, no deadline, no log or write
//! bookkeeping. The script's side is the same as in the host's bare frame
//! (wasmtime's entry and exit, the SDK's export glue and the script's empty
//! `on_update`), so what this costs no change to the host can take off it.

use std::path::Path;

use game_host::ScriptEngine;
use peers::scripts;
use wasmtime::component::{Component, ComponentType, Linker, Lower, TypedFunc};
use wasmtime::{Result, Store, format_err};

use crate::timing::{Row, Side, interleaved, lua_side, row as table_row};
use crate::{lua, script_file};

/// The row's name in the table. It is left out of the chart: it is part of
/// a frame, not a scenario a script plays.
pub(crate) const FLOOR: &str =
    "wasmtime's own call of the no-op script's on-update, no host around it";

/// The row: the no-op script's `on-update` called bare, beside Lua's bare
/// call, interleaved. No native side: the row is part of a frame, not a
/// scenario.
pub(crate) fn row(engine: &ScriptEngine, rounds: u32) -> Row {
    let mut floor = Floor::new(engine, &script_file("host/tests/scripts/noop"))
        .expect("the no-op script's instance, called bare");
    let (l, _) = lua(scripts::BARE);
    let times = interleaved(
        &mut [
            Side {
                name: "wasm",
                op: Box::new(|| floor.call().expect("the bare on-update call")),
            },
            lua_side(&l),
        ],
        10_000,
        rounds,
    );
    table_row(FLOOR, &times)
}

/// The interface whose `subscribe-update` the script's `entrypoint` calls.
const RUNTIME: &str = "game:engine/runtime@";

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
struct Floor {
    store: Store<()>,
    on_update: TypedFunc<(FrameClock,), ()>,
    frame: u64,
}

impl Floor {
    /// Instantiates the component at `path` on `engine`'s wasmtime engine
    /// and runs its `entrypoint`, which subscribes to updates (the one
    /// import it calls, here a no-op; every other import traps).
    fn new(engine: &ScriptEngine, path: &Path) -> Result<Self> {
        let wasmtime = engine.wasmtime();
        let component = Component::from_file(wasmtime, path)?;
        let runtime = component
            .component_type()
            .imports(wasmtime)
            .map(|(name, _)| name.to_owned())
            .find(|name| name.starts_with(RUNTIME))
            .ok_or_else(|| format_err!("the script imports no `{RUNTIME}*`"))?;
        let mut linker = Linker::new(wasmtime);
        linker
            .instance(&runtime)?
            .func_wrap("subscribe-update", |_, (): ()| Ok(()))?;
        linker.define_unknown_imports_as_traps(&component)?;
        let mut store = Store::new(wasmtime, ());
        // Epoch checks are compiled in (as the host's deadlines need); the
        // epoch never reaches this deadline.
        store.set_epoch_deadline(u64::MAX / 2);
        let instance = linker.instantiate(&mut store, &component)?;
        instance
            .get_typed_func::<(), ()>(&mut store, "entrypoint")?
            .call(&mut store, ())?;
        let on_update = instance.get_typed_func(&mut store, "on-update")?;
        Ok(Floor {
            store,
            on_update,
            frame: 0,
        })
    }

    /// One bare call of `on-update`, with the next frame's clock.
    fn call(&mut self) -> Result<()> {
        self.frame += 1;
        let clock = FrameClock {
            frame: self.frame,
            delta_time: 1.0 / 60.0,
            time: self.frame as f64 / 60.0,
        };
        self.on_update.call(&mut self.store, (clock,))
    }
}
