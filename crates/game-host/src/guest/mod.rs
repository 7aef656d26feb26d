//! The guest boundary: everything between a script's component and the
//! runtime that drives it.
//!
//! ```text
//!  instance (one instance: store, exports, calls with deadlines)
//!     |
//!  engine (wasmtime config, linking, loading, compile cache, extensions)
//!     |
//!  exports (the calls into a script, newest world or 0.1)
//!     |
//!  v0_1 (the 0.1 release: its names, its changed calls and exports)
//!     |
//!  imports (the host side of each WIT interface, one file per interface)
//!     |
//!  store (ScriptState, the store data; its children `view`, what a call
//!     |   sees of the scene and where its writes go, and `access`, the
//!     |   proofs of the grants `view` asks for)
//!     |
//!  shared  command  usage  limiter  deadline  live  entity_guard  profile
//!  pending  turns  convert (the crate's input types from and to the WIT's)
//!     |
//!  bindings (the `bindgen!` output)
//! ```

pub mod bindings;
mod command;
mod convert;
mod deadline;
pub mod engine;
mod entity_guard;
mod exports;
mod imports;
pub(crate) mod instance;
mod limiter;
mod live;
pub(crate) mod pending;
pub(crate) mod players;
mod profile;
mod shared;
mod store;
pub(crate) mod turns;
mod usage;
pub mod v0_1;

pub(crate) use command::Command;
pub(crate) use limiter::ScriptLimiter;
pub use live::{ENGINE_INTERFACES, ENGINE_WIT, LIVE_VERSION, LIVE_WIT, LiveSources};
pub(crate) use pending::SceneWrite;
pub use profile::ScriptProfile;
pub(crate) use shared::RuntimeShared;
pub use store::{HandleStats, ScriptState};
pub(crate) use usage::Charge;
