//! # host — runs WebAssembly game scripts frame by frame
//!
//! Scripts are WebAssembly components of the `game:engine` `script` world
//! (`wit/engine.wit`). The host compiles them once ([`ScriptEngine`],
//! with an on-disk cache of compiled code), instantiates them as many times as
//! needed ([`ScriptComponent`]), and drives every instance from one
//! fixed-timestep frame loop ([`Runtime`]) that calls `on-message(id)` on each
//! subscribed instance, in subscription order, every frame.
//!
//! All scripts share one [`Scene`] of named entities with transforms. A script
//! that traps is taken out of the loop with a [`ScriptError`] naming the
//! script, the export, the trap and the wasm backtrace; the others keep
//! running.
//!
//! Scripts' async tasks wait on the host: timers, input events and messages,
//! entity motions and terrain tiles generated on worker threads; a script
//! whose tasks all wait gets no call until one is due. A running instance can
//! be swapped to new code between frames, keeping its id and, when it opts
//! in, its state ([`Runtime::replace`], [`HotReloader`]). The scene is drawn
//! with wgpu, offscreen ([`Offscreen`]) or in a winit window
//! ([`WindowRunner`]).
//!
//! ```no_run
//! # fn main() -> anyhow::Result<()> {
//! use host::{EngineOptions, Runtime, RuntimeConfig, ScriptEngine};
//!
//! let engine = ScriptEngine::new(EngineOptions::default())?;
//! let cube = engine.load_file("spinning_cube.wasm".as_ref())?;
//! let mut runtime = Runtime::new(RuntimeConfig::default());
//! runtime.spawn(&cube)?;
//! runtime.run_frames(60);
//! println!("{:?}", runtime.scene().lock().unwrap().entity(0.into()));
//! # Ok(()) }
//! ```
//!
//! ## Modules
//! - `bindings`: the `bindgen!` output, nothing else.
//! - `engine`: wasmtime configuration, linking, loading and the compile cache.
//! - `instance`, `state`: one script instance and its store data.
//! - `api`: the typed host implementation of each WIT interface.
//! - `scene`: entities and transforms.
//! - `runtime`: frame clock, subscriptions, waits (timers, events, motion,
//!   jobs), dispatch, swaps and the headless runner.
//! - `terrain`: deterministic heightmap tiles and their cache.
//! - `hot_swap`: watching sources, background rebuilds, swaps at frame
//!   boundaries (`Runtime::replace` does the swap itself).
//! - `cargo_build`: building a script crate directory into a component.
//! - `log`: where script log lines go.
//! - `render`: the wgpu renderer, offscreen or in a winit window.

mod api;
mod bindings;
mod cargo_build;
mod engine;
mod error;
mod hot_swap;
mod instance;
mod log;
mod render;
mod runtime;
mod scene;
mod state;
mod terrain;

pub use bindings::events::{Event, EventFilter, ScriptMessage};
pub use bindings::input::Key;
pub use cargo_build::{BuildOutput, build_script_crate};
pub use engine::{EngineOptions, ScriptComponent, ScriptEngine, default_cache_dir};
pub use error::{ScriptError, ScriptExport};
pub use hot_swap::{HotReloader, SwapOutcome};
pub use instance::{HandleStats, InstanceInfo};
pub use log::{LogLevel, LogRecord, LogSink, LogSource, MemoryLog, TracingLog};
pub use render::{BACKGROUND, Camera, Gpu, Image, Offscreen, WindowRunner, entity_color};
pub use runtime::{
    FrameTime, HeadlessRunner, JobDelivery, JobStats, KEYS, PendingWait, Runtime, RuntimeConfig,
    SwapReport, WAKE_MESSAGE, WaitStats, key_by_name, key_name, parse_input_script,
};
pub use scene::{Entity, EntityId, Scene, SceneDump, SharedScene, Transform, lock_scene};
pub use terrain::{RESOLUTION as TILE_RESOLUTION, Tile, TileCache, TileCoord, tile_size};
pub use uuid::Uuid;
