//! Typed host implementations of the `game:engine` `script` world's
//! imports, one file per WIT interface, each implemented on the store data
//! and holding the conversions between WIT and domain types it needs.
//! [`add_to_linker`] composes them (with WASI) into one linker.

mod clocks;
mod entities;
mod entity;
mod events;
mod frame;
mod log;
mod motion;
mod poll;
mod scene;
mod sources;
mod tasks;

use wasmtime::component::{HasSelf, Linker};

use crate::bindings::Script;
use crate::bindings::live::Live;
use crate::state::ScriptState;

/// Links WASI (locked down by each instance's `WasiCtx`, and its waits
/// made non-blocking), the engine interfaces, and `game:live/sources` for
/// the live Python and JavaScript runtimes.
pub(crate) fn add_to_linker(linker: &mut Linker<ScriptState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p2::add_to_linker_sync(linker)?;
    poll::add_to_linker(linker)?;
    clocks::add_to_linker(linker)?;
    Script::add_to_linker::<_, HasSelf<_>>(linker, |state| state)?;
    Live::add_to_linker::<_, HasSelf<_>>(linker, |state| state)?;
    Ok(())
}

impl crate::bindings::types::Host for ScriptState {}

impl crate::bindings::frame::Host for ScriptState {}
