//! Typed host implementations of the `game:engine` `script` world's
//! imports, one file per WIT interface and named after it (`entity` and
//! `entities`, `runtime`, `scene`, ...), each implemented on the store data
//! and holding the conversions between WIT and domain types it needs. The
//! record-only interfaces (`types`, `input`) have nothing to implement.
//! [`add_to_linker`] composes them (with WASI) into one linker; `v0_1`
//! links them again under the 0.1 release's names. `typed_data` links a
//! game's own types ([`crate::game_types`]), when the engine runs a game.

mod clocks;
mod controls;
mod entities;
mod entity;
mod events;
mod game_data;
mod game_messages;
mod lifetime;
mod log;
mod motion;
mod players;
mod poll;
mod queries;
mod relative;
mod resources;
mod runtime;
mod scene;
mod sources;
mod tasks;
mod typed_data;
mod views;

pub(crate) use typed_data::add_to_linker as add_game_to_linker;

use wasmtime::component::{HasSelf, Linker};

use crate::guest::ScriptState;
use crate::guest::bindings::Script;
use crate::guest::bindings::live::Live;

/// Links WASI (locked down by each instance's `WasiCtx`, and its waits
/// made non-blocking), the engine interfaces of the newest release, and
/// `game:live/sources` for the live Python and JavaScript runtimes.
pub(crate) fn add_to_linker(linker: &mut Linker<ScriptState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p2::add_to_linker_sync(linker)?;
    poll::add_to_linker(linker)?;
    clocks::add_to_linker(linker)?;
    Script::add_to_linker::<_, HasSelf<_>>(linker, |state| state)?;
    Live::add_to_linker::<_, HasSelf<_>>(linker, |state| state)?;
    Ok(())
}

impl crate::guest::bindings::types::Host for ScriptState {}
