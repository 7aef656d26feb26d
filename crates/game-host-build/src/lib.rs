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
//! - [`editor_types`]: the stubs of the host's WIT beside a Python or
//!   JavaScript script (`.pyi`, `.d.ts`), with pyright's and TypeScript's
//!   settings, so an editor and [`check`] know the engine's API.
//! - [`check`]: a script's types checked without running it (`host check`):
//!   `cargo check`, pyright or `tsc`.
//! - [`project`]: new script projects (`host new`) and the SDK shipped
//!   with the host for them.
//! - [`toolchain`]: cargo and rustc run on a crate with nothing of the
//!   crate's choosing (its cargo configuration, its toolchain file).
//! - [`what_runs`]: what building a crate runs (build scripts, proc
//!   macros), beyond what the SDK brings, named before it builds.
//! - [`predictor`]: a script's browser form (`host build --predictor`),
//!   checked against world `predictor` and transpiled by jco.
//!
//! Layers (each module uses only those below it):
//!
//! ```text
//!  hot_swap       check
//!      \         /     \
//!       source     editor_types
//!       /    \     /
//!  cargo_build  componentize
//!      |     \      |
//!   project  what_runs
//!               |
//!           toolchain
//!               |
//!            process (running a tool, collecting its output)
//! ```
//!
//! (`predictor` uses `editor_types`' jco and `process`; `check` also
//! reaches `cargo_build`; `editor_types` takes the checkers'
//! settings from `project`'s templates. `embedded`, what `build.rs` takes
//! from the workspace, the SDK's files and the extensions' guest halves,
//! sits under `project` and `componentize`.)

mod cargo_build;
pub mod check;
pub mod componentize;
pub mod editor_types;
mod embedded;
mod hot_swap;
pub mod needs;
pub mod predictor;
mod process;
pub mod project;
mod source;
pub mod toolchain;
pub mod what_runs;

pub use cargo_build::{BuildOutput, build_script_crate, build_script_crate_for_debugger};
pub use hot_swap::{HotSwapper, SwapOutcome};
pub use source::ScriptSource;
