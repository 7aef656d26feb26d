//! # game-host — runs WebAssembly game scripts frame by frame
//!
//! The core an engine embeds: no window, renderer, HTTP server or CLI.
//! Scripts are WebAssembly components of the `game:engine` `script` world
//! (`wit/`, one file per interface; scripts built against the frozen 0.1
//! release in `wit/v0.1/` load too, see [`guest::v0_1`]). The host compiles
//! them once ([`ScriptEngine`], with an on-disk cache of compiled code),
//! instantiates them as many times as needed ([`ScriptComponent`]), and
//! drives every instance from one fixed-timestep frame ([`Runtime::step`])
//! that calls `on-update(clock)` on each subscribed instance, in
//! subscription order, then `on-wake(clock, wakes)` on each instance whose
//! waits completed. A runner decides when
//! frames run: as fast as possible or in real time ([`HeadlessRunner`];
//! `game-host-render` has the window runner).
//!
//! All scripts share one scene of named entities with transforms: the core's
//! [`Scene`], or an engine's own entities behind [`GameScene`]. A script
//! that traps is taken out of the loop with a [`ScriptError`] naming the
//! script, the export, the trap and the wasm backtrace; the others keep
//! running.
//!
//! Scripts' async tasks wait on the host: timers, input events and messages,
//! entity motions, and background [`jobs`] run on worker threads; a script
//! whose tasks all wait gets no call until one is due. Job kinds are
//! registered by extensions (such as `game-host-terrain`). A running
//! instance can be swapped to new code between frames, keeping its id and,
//! when it opts in, its state ([`Runtime::hot_swap`]). A run is a function
//! of its scripts, input and seed ([`determinism`]), so it can be recorded
//! and replayed frame for frame ([`record`]).
//!
//! ## Where things are
//!
//! A frame goes down the folders: [`runner`] (when frames run) ->
//! [`runtime`] (the clock, dispatch, waits, commands, swaps) -> [`guest`]
//! (the boundary: engine, instances, store data, the host side of each WIT
//! interface, bindings) -> [`scene`] (entities and transforms). Beside
//! them: [`jobs`] (background work), [`record`] (recordings and replays),
//! [`players`] (a served world's players and messages to their clients),
//! [`views`] (which entities each player sees), [`predictor`] (a script's
//! browser form, read back),
//! [`log`], [`background`] (builds beside running frames), and leaves
//! such as [`time`], [`ticks`], [`limits`], [`grants`], [`secrets`] and
//! [`determinism`]. [`game_types`] reads a game's description of its own
//! components and resources, which the engine links as typed functions.
//!
//! ```no_run
//! # fn main() -> anyhow::Result<()> {
//! use game_host::sync::LockExt;
//! use game_host::{EngineOptions, GameScene, Runtime, RuntimeConfig, ScriptEngine};
//!
//! let engine = ScriptEngine::new(EngineOptions::default())?;
//! let cube = engine.load_file("spinning_cube.wasm".as_ref())?;
//! let mut runtime = Runtime::new(RuntimeConfig::default());
//! runtime.spawn(&cube)?;
//! runtime.run_frames(60);
//! println!("{:?}", runtime.scene().lock_unpoisoned().transform(0.into()));
//! # Ok(()) }
//! ```

pub mod background;
#[cfg(any(test, feature = "test-util"))]
pub mod book_tables;
pub mod determinism;
mod error;
pub mod files;
pub mod game_types;
pub mod grants;
pub mod guest;
pub mod hex;
pub mod input;
pub mod jobs;
pub mod limits;
pub mod log;
pub mod players;
pub mod predictor;
pub mod progress;
pub mod record;
pub mod runner;
pub mod runtime;
pub mod scene;
pub mod sealed;
pub mod secrets;
pub mod sync;
pub mod ticks;
pub mod time;
pub mod views;

pub use error::{ScriptError, ScriptExport};
pub use grants::{GrantFile, GrantPolicy, GrantSpec, Grants};
pub use guest::engine::{EngineOptions, Extension, ScriptComponent, ScriptEngine};
pub use guest::instance::InstanceInfo;
pub use guest::{ENGINE_WIT, LIVE_WIT, LiveSources, ScriptState};
pub use input::{Event, Key};
pub use runner::HeadlessRunner;
pub use runtime::{Runtime, RuntimeConfig};
pub use scene::{GameScene, Scene, Transform};
