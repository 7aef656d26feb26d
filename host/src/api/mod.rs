//! Typed host implementations of the `game:engine` interfaces, one file per
//! WIT interface, composed into one linker by [`add_to_linker`].

mod events;
mod log;
mod motion;
mod runtime;
pub(crate) mod scene;
mod stdio;
mod tasks;
mod terrain;

use wasmtime::component::{HasSelf, Linker};

use crate::bindings::Script;
use crate::state::ScriptState;

pub(crate) use stdio::ScriptStdio;

/// Links WASI (locked down by each instance's `WasiCtx`) and the engine
/// interfaces.
pub(crate) fn add_to_linker(linker: &mut Linker<ScriptState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p2::add_to_linker_sync(linker)?;
    Script::add_to_linker::<_, HasSelf<_>>(linker, |state| state)?;
    Ok(())
}

impl crate::bindings::types::Host for ScriptState {}
