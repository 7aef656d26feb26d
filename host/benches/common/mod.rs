//! What the server benches share: building and loading a script crate,
//! and settings from the environment.

use std::path::Path;

use game_host::{ScriptComponent, ScriptEngine};
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
