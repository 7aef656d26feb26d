//! What the server benches share: building and loading a script crate, a
//! pooled engine, and settings from the environment.

#![allow(dead_code)] // each bench uses a different subset

use std::path::Path;

use game_host::limits::ScriptLimits;
use game_host::{EngineOptions, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, build_script_crate};

/// Builds the script crate at `dir` (relative to the workspace) and loads
/// it.
pub fn load(engine: &ScriptEngine, dir: &str) -> ScriptComponent {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let wasm = build_script_crate(&path, BuildOutput::Capture).expect("build script");
    engine.load_file(&wasm).expect("load script")
}

/// The environment variable `name` parsed, or `default`.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// An engine for the server benches: pooled instances (`max_instances`),
/// no compile cache, canonical NaNs.
pub fn pooled_engine(max_instances: u32) -> ScriptEngine {
    ScriptEngine::new(EngineOptions {
        cache_dir: None,
        pooling: true,
        max_instances,
        extensions: Vec::new(),
        game: None,
        limits: ScriptLimits::default(),
        perf_map: false,
        deterministic_floats: true,
        debug_info: false,
    })
    .expect("engine")
}
