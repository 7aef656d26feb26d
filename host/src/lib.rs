//! # host — runs WebAssembly game scripts frame by frame
//!
//! Scripts are WebAssembly components of the `game:engine` `script` world
//! (`wit/engine.wit`). The host compiles them once ([`ScriptEngine`], with
//! an on-disk cache of compiled code), instantiates them as many times as
//! needed ([`ScriptComponent`]), and drives every instance from one
//! fixed-timestep frame ([`Runtime::step`]) that calls `on-message(id)` on
//! each subscribed instance, in subscription order. A runner decides when
//! frames run: as fast as possible, or in real time, headless
//! ([`HeadlessRunner`]) or in a window ([`WindowRunner`]).
//!
//! All scripts share one [`Scene`] of named entities with transforms. A script
//! that traps is taken out of the loop with a [`ScriptError`] naming the
//! script, the export, the trap and the wasm backtrace; the others keep
//! running.
//!
//! Scripts' async tasks wait on the host: timers, input events and messages,
//! entity motions, and background [`jobs`] run on worker threads; a script
//! whose tasks all wait gets no call until one is due. Job kinds are
//! registered by extensions such as [`terrain`]. A running instance can be
//! swapped to new code between frames, keeping its id and, when it opts in,
//! its state ([`Runtime::replace`], [`HotReloader`]). A run is a function of
//! its scripts, input and seed ([`determinism`]), so it can be recorded and
//! replayed frame for frame ([`record`]). The scene is drawn with
//! wgpu ([`render`]). A [`Server`] runs many independent worlds on a few
//! loop threads.
//!
//! ```no_run
//! # fn main() -> anyhow::Result<()> {
//! use host::sync::LockExt;
//! use host::{EngineOptions, Runtime, RuntimeConfig, ScriptEngine};
//!
//! let engine = ScriptEngine::new(EngineOptions::default())?;
//! let cube = engine.load_file("spinning_cube.wasm".as_ref())?;
//! let mut runtime = Runtime::new(RuntimeConfig::default());
//! runtime.spawn(&cube)?;
//! runtime.run_frames(60);
//! println!("{:?}", runtime.scene().lock_unpoisoned().entity(0.into()));
//! # Ok(()) }
//! ```
//!
//! ## Layers
//!
//! Each module uses only modules on its own row or below (a test,
//! `tests/module_graph.rs`, fails on any cycle):
//!
//! ```text
//!  server (worlds on loop threads, HTTP control, metrics)
//!     |
//!  runner  hot_swap  source  record  terrain (ext.)  render
//!     |        |        |        |        |             |
//!  runtime ----+--------+--------+--------+             |
//!     |                                                     |
//!  instance     cargo_build  componentize                   |
//!     |            |                                         |
//!     |         project (host new, the shipped SDK)          |
//!     |                                                     |
//!  engine                                                   |
//!     |                                                     |
//!  imports (host impls of the WIT imports)                  |
//!     |                                                     |
//!  state (store data, commands)                             |
//!     |                                                     |
//!  bindings  input  jobs                                    |
//!     |                                                     |
//!  scene  log  error  time  sync  limits  progress <--------+
//!  deadline  files  sealed  determinism  hex  live
//! ```
//!
//! - `time`, `sync`, `log`, `error`, `scene`, [`limits`], `progress`,
//!   [`determinism`], `hex`, `live`: leaves (game time, poison-free locks,
//!   where log lines go, script errors, entities and transforms, what a
//!   script may use, progress lines for long steps, the game-time clocks
//!   and seeded random numbers scripts read through WASI, digests as hex,
//!   the sources a live Python or JavaScript script's runtime reads).
//! - `bindings`: the `bindgen!` output, nothing else; `input`: the key
//!   table; [`jobs`]: background job kinds, their pool and output caches.
//! - `state`: the store data of an instance and the commands it leaves.
//! - `imports`: the typed host implementation of each WIT interface.
//! - `engine`: wasmtime configuration, linking, loading, the compile cache.
//! - `instance`: one script instance and its exports.
//! - [`runtime`]: instances, subscriptions, waits, dispatch, swaps.
//! - [`runner`]: when frames run (one pacing policy); [`render`]: draws a
//!   scene; [`record`]: recordings of runs and replaying them;
//!   [`terrain`]: the terrain extension; `hot_swap`, `source`,
//!   `cargo_build`, [`componentize`]: building (Rust, Python, JavaScript)
//!   and reloading scripts; [`project`]: new script projects and the SDK
//!   the binary ships for them.
//! - [`server`]: many worlds (a runtime each) on dedicated loop threads,
//!   paced by the runner's policy, with an HTTP control surface, Prometheus
//!   metrics and health checks (`host serve`).

// The core, re-exported under its old paths while the rest of this crate
// moves out into crates of its own.
pub use game_host::{
    bindings, determinism, engine, files, hex, input, jobs, limits, log, progress, record, runner,
    runtime, scene, sealed, state, sync, time,
};
pub use game_host_render as render;
pub use game_host_server as server;

mod cargo_build;
pub mod componentize;
mod hot_swap;
pub mod project;
mod source;
pub mod terrain;

pub use cargo_build::{BuildOutput, build_script_crate};
pub use game_host::{
    EngineOptions, Event, HeadlessRunner, InstanceInfo, Key, LiveSources, Runtime, RuntimeConfig,
    Scene, ScriptComponent, ScriptEngine, ScriptError, ScriptExport, Transform,
};
pub use game_host_render::WindowRunner;
pub use game_host_server::{Server, ServerConfig, WorldId, WorldSpec};
pub use hot_swap::{HotReloader, SwapOutcome};
pub use source::ScriptSource;
