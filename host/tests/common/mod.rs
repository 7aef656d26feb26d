//! Shared helpers for the integration tests: build script crates from
//! source, and make engines and runtimes that log into memory.

#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};
use std::sync::Arc;

use host::{
    BuildOutput, EngineOptions, JobDelivery, MemoryLog, Runtime, RuntimeConfig, ScriptComponent,
    ScriptEngine, build_script_crate,
};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("host/ has a parent")
        .to_owned()
}

/// A script crate: `examples/NAME` if it exists, else the test script
/// `host/tests/scripts/NAME`.
pub fn script_dir(name: &str) -> PathBuf {
    let example = workspace().join("examples").join(name);
    if example.is_dir() {
        return example;
    }
    let test_script = workspace().join("host/tests/scripts").join(name);
    assert!(test_script.is_dir(), "no script crate named `{name}`");
    test_script
}

/// Builds a script crate from source and returns its component file.
pub fn build(name: &str) -> PathBuf {
    build_script_crate(&script_dir(name), BuildOutput::Capture)
        .unwrap_or_else(|e| panic!("building `{name}` failed: {e:#}"))
}

/// An engine whose compile cache lives in cargo's per-target temp dir.
pub fn engine() -> ScriptEngine {
    ScriptEngine::new(EngineOptions {
        cache_dir: Some(Path::new(env!("CARGO_TARGET_TMPDIR")).join("script-cache")),
        pooling: true,
        max_instances: 64,
    })
    .expect("engine")
}

/// Builds and loads a script crate.
pub fn load(engine: &ScriptEngine, name: &str) -> ScriptComponent {
    engine
        .load_file(&build(name))
        .unwrap_or_else(|e| panic!("loading `{name}` failed: {e:#}"))
}

/// A 60 Hz runtime over the default scene that logs into the returned log,
/// with jobs in lockstep so runs are reproducible.
pub fn runtime() -> (Runtime, Arc<MemoryLog>) {
    let log = Arc::new(MemoryLog::new());
    let runtime = Runtime::new(RuntimeConfig {
        hz: 60.0,
        log: log.clone(),
        jobs: JobDelivery::Lockstep,
        ..RuntimeConfig::default()
    });
    (runtime, log)
}

/// The transform of the first entity named `name`.
pub fn transform(runtime: &Runtime, name: &str) -> host::Transform {
    let scene = runtime.scene().lock().unwrap();
    let id = scene
        .find(name)
        .unwrap_or_else(|| panic!("no entity `{name}`"));
    *scene.transform(id).unwrap()
}
