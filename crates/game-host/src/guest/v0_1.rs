//! The compatibility layer for `game:engine` 0.1, frozen in `wit/v0.1/`:
//! a script built against any 0.1.x release loads and runs unchanged,
//! hot-swap and state hand-over included.
//!
//! Most 0.1 interfaces are the newest ones under another name (`log`,
//! `scene`, `entity`, `events`, `motion`, and the record-only `types`,
//! `input`, `frame`): the component model types imports by structure, so
//! the newest implementation is linked under each 0.1 name as it is. What
//! 0.2 changed is here and nowhere else:
//! - `runtime`: update ids (`subscribe-update(id)`), and the clock in three
//!   calls;
//! - `tasks.take-wakes` and `entities.id-of`, which 0.2 dropped;
//! - the exports: `on-message(id)` (or `on-update(id, clock)`), called once
//!   per subscribed id, and with the reserved id [`WAKE_MESSAGE`] when
//!   waits completed.

use wasmtime::Store;
use wasmtime::StoreContextMut;
use wasmtime::component::{
    Component, ComponentExportIndex, HasSelf, Instance, Linker, LinkerInstance, Resource, TypedFunc,
};
use wasmtime::error::Context as _;

use crate::error::ScriptExport;
use crate::guest::bindings::runtime::FrameClock;
use crate::guest::bindings::{entities, entity, events, log, motion, scene, tasks};
use crate::guest::{Command, ScriptState};
use crate::log::{LogLevel, LogSource};
use crate::scene::TransformHandle;

/// The last 0.1 release (read from `wit/v0.1/` at build time); the linker
/// gives scripts built against any earlier 0.1.x the same.
pub const VERSION: &str = env!("GAME_ENGINE_V0_1");

/// The `on-message` id 0.1 reserves for wakes: the script's waits
/// completed and it should take them with `take-wakes`.
pub const WAKE_MESSAGE: u32 = u32::MAX;

/// The import name of 0.1's `interface` (`game:engine/<interface>@` and
/// [`VERSION`]), under which an extension links its 0.1 interface too.
pub fn interface_name(interface: &str) -> String {
    format!("game:engine/{interface}@{VERSION}")
}

/// Links one interface's newest implementation into an instance of the
/// linker (what `bindgen!` generates as `add_to_linker_instance`).
type LinkInterface = fn(
    &mut LinkerInstance<'_, ScriptState>,
    fn(&mut ScriptState) -> &mut ScriptState,
) -> wasmtime::Result<()>;

/// The store data itself, which the host traits are implemented on.
fn get(state: &mut ScriptState) -> &mut ScriptState {
    state
}

/// Links the 0.1 interfaces (see the module docs).
pub(crate) fn add_to_linker(linker: &mut Linker<ScriptState>) -> wasmtime::Result<()> {
    // The interfaces 0.2 kept as they were.
    let same: [(&str, LinkInterface); 5] = [
        ("log", log::add_to_linker_instance::<_, HasSelf<_>>),
        ("scene", scene::add_to_linker_instance::<_, HasSelf<_>>),
        ("entity", entity::add_to_linker_instance::<_, HasSelf<_>>),
        ("events", events::add_to_linker_instance::<_, HasSelf<_>>),
        ("motion", motion::add_to_linker_instance::<_, HasSelf<_>>),
    ];
    for (name, link) in same {
        link(&mut linker.instance(&interface_name(name))?, get)?;
    }
    for records_only in ["types", "input", "frame"] {
        linker.instance(&interface_name(records_only))?;
    }

    let mut inst = linker.instance(&interface_name("entities"))?;
    entities::add_to_linker_instance::<_, HasSelf<_>>(&mut inst, get)?;
    inst.func_wrap(
        "id-of",
        |store: StoreContextMut<'_, ScriptState>, (handle,): (Resource<TransformHandle>,)| {
            Ok((store.data().entity_id_of(&handle)?,))
        },
    )?;

    let mut inst = linker.instance(&interface_name("tasks"))?;
    tasks::add_to_linker_instance::<_, HasSelf<_>>(&mut inst, get)?;
    inst.func_wrap(
        "take-wakes",
        |mut store: StoreContextMut<'_, ScriptState>, (): ()| Ok((store.data_mut().take_wakes(),)),
    )?;

    let mut inst = linker.instance(&interface_name("runtime"))?;
    inst.func_wrap(
        "subscribe-update",
        |mut store: StoreContextMut<'_, ScriptState>, (id,): (u32,)| {
            let state = store.data_mut();
            if id == WAKE_MESSAGE {
                state.identity.log(
                    LogLevel::Warn,
                    LogSource::Api,
                    format!(
                        "ignored subscribe-update({id}): that id is reserved for wake messages"
                    ),
                );
                return Ok(());
            }
            state.push_command(Command::Subscribe(id))
        },
    )?;
    inst.func_wrap(
        "unsubscribe-update",
        |mut store: StoreContextMut<'_, ScriptState>, (id,): (u32,)| {
            store.data_mut().push_command(Command::Unsubscribe(id))
        },
    )?;
    inst.func_wrap(
        "delta-time",
        |store: StoreContextMut<'_, ScriptState>, (): ()| Ok((store.data().now().delta,)),
    )?;
    inst.func_wrap(
        "frame",
        |store: StoreContextMut<'_, ScriptState>, (): ()| Ok((store.data().now().frame,)),
    )?;
    inst.func_wrap("time", |store: StoreContextMut<'_, ScriptState>, (): ()| {
        Ok((store.data().now().time,))
    })?;
    Ok(())
}

/// Where a 0.1 component's exports are, found once when it loads.
#[derive(Clone)]
pub(crate) struct ExportIndices {
    entrypoint: ComponentExportIndex,
    on_message: ComponentExportIndex,
    /// `on-update(id, clock)` (0.1.4's `game-script`), called instead of
    /// `on-message` when exported.
    on_update: Option<ComponentExportIndex>,
}

impl ExportIndices {
    /// The exports of `component` if it is a 0.1 script (it exports
    /// `on-message`).
    pub fn new(component: &Component) -> Option<Self> {
        Some(ExportIndices {
            on_message: component.get_export_index(None, "on-message")?,
            entrypoint: component.get_export_index(None, "entrypoint")?,
            on_update: component.get_export_index(None, "on-update"),
        })
    }

    /// The exports of `instance`, typed.
    pub fn load(
        &self,
        store: &mut Store<ScriptState>,
        instance: &Instance,
    ) -> wasmtime::Result<Exports> {
        let on_update = match self.on_update {
            Some(index) => Some(
                instance
                    .get_typed_func(&mut *store, index)
                    .context("`on-update` has the wrong type")?,
            ),
            None => None,
        };
        Ok(Exports {
            entrypoint: instance
                .get_typed_func(&mut *store, self.entrypoint)
                .context("`entrypoint` has the wrong type")?,
            on_message: instance
                .get_typed_func(&mut *store, self.on_message)
                .context("`on-message` has the wrong type")?,
            on_update,
        })
    }
}

/// A 0.1 instance's exports.
pub(crate) struct Exports {
    entrypoint: TypedFunc<(), ()>,
    on_message: TypedFunc<(u32,), ()>,
    on_update: Option<TypedFunc<(u32, FrameClock), ()>>,
}

impl Exports {
    pub fn entrypoint(&self, store: &mut Store<ScriptState>) -> wasmtime::Result<()> {
        self.entrypoint.call(store, ())
    }

    /// The export the frame's calls go to.
    pub fn message_export(&self) -> ScriptExport {
        match self.on_update {
            Some(_) => ScriptExport::OnUpdate,
            None => ScriptExport::OnMessage,
        }
    }

    /// The call for message `id`: an update id, or [`WAKE_MESSAGE`].
    pub fn message(&self, store: &mut Store<ScriptState>, id: u32) -> wasmtime::Result<()> {
        match self.on_update {
            Some(on_update) => {
                let clock = store.data().frame_clock();
                on_update.call(store, (id, clock))
            }
            None => self.on_message.call(store, (id,)),
        }
    }
}
