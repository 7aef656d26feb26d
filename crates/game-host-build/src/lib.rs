//! # game-host-build — turns script sources into components and keeps them live
//!
//! What a host needs to go from an author's files to a running script, on
//! top of the `game-host` core:
//!
//! - [`ScriptSource`] (`source`): what a path names (a built `.wasm`, a Rust
//!   crate, a Python or JavaScript script) and loading it into an engine.
//! - `cargo_build` ([`build_script_crate`]): a Rust script crate built with
//!   cargo for `wasm32-wasip2`, its errors reported in one line.
//! - [`componentize`]: Python and JavaScript, live (one runtime component
//!   per language, the script as data) or built into one component with
//!   componentize-py / componentize-js (`host build`).
//! - [`HotSwapper`] (`hot_swap`): watches a script's files, rebuilds on a
//!   save and swaps the running instances between frames.
//! - [`project`]: new script projects (`host new`) and the SDK shipped
//!   with the host for them.
//!
//! Layers (each module uses only those below it):
//!
//! ```text
//!  hot_swap
//!     |
//!  source
//!     |
//!  cargo_build   componentize
//!     |             |
//!  project       process (running a tool, collecting its output)
//! ```

mod cargo_build;
pub mod componentize;
mod hot_swap;
pub mod needs;
mod process;
pub mod project;
mod source;

pub use cargo_build::{BuildOutput, build_script_crate, build_script_crate_for_debugger};
pub use hot_swap::{HotSwapper, SwapOutcome};
pub use source::ScriptSource;
