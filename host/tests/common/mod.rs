//! Shared helpers for the integration tests: build script crates from
//! source, make engines and runtimes that log into memory, and act as an
//! author in a scratch directory outside the repository (`scratch`).

#![allow(dead_code)] // each test binary uses a different subset

pub mod agones;
pub mod browser;
pub mod client;
pub mod fleet;
pub mod game;
pub mod memory;
pub mod scratch;
pub mod serve;
pub mod site;
pub mod tls;
pub mod watching;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use game_host::jobs::JobDelivery;
use game_host::limits::ScriptLimits;
use game_host::log::MemoryLog;
use game_host::scene::GameScene;
use game_host::{EngineOptions, Runtime, RuntimeConfig, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, build_script_crate};

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

/// An engine whose compile cache lives in cargo's per-target temp dir,
/// with the terrain extension linked (as the CLI has it).
///
/// CPU deadlines are generous here: these tests check behaviour, some with
/// heavy calls (10,000 tasks started in one), on shared machines where a
/// call can be descheduled for milliseconds. `tests/sandbox.rs` checks the
/// default deadlines.
pub fn engine() -> ScriptEngine {
    ScriptEngine::new(EngineOptions {
        cache_dir: Some(cache_dir()),
        pooling: true,
        max_instances: 64,
        extensions: vec![game_host_terrain::extension()],
        limits: ScriptLimits {
            update_deadline: Some(Duration::from_millis(250)),
            start_deadline: Duration::from_secs(2),
            ..ScriptLimits::default()
        },
        ..EngineOptions::default()
    })
    .expect("engine")
}

/// The compile cache the tests share.
pub fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("script-cache")
}

/// Builds and loads a script crate.
pub fn load(engine: &ScriptEngine, name: &str) -> ScriptComponent {
    engine
        .load_file(&build(name))
        .unwrap_or_else(|e| panic!("loading `{name}` failed: {e:#}"))
}

/// A 60 Hz runtime over the default scene that logs into the returned log,
/// with jobs in lockstep so runs are reproducible (the terrain job kind
/// comes with the first script of [`engine`], as in the CLI). Its frames
/// run on two threads from two instances on, so every test of the runtime
/// also runs the parallel dispatch (`tests/parallel.rs` compares it with
/// one thread), unless `config` sets `frame_threads`.
pub fn runtime() -> (Runtime, Arc<MemoryLog>) {
    runtime_with(RuntimeConfig::default())
}

/// [`runtime`] with other settings (`log` and `jobs` are set here).
pub fn runtime_with(config: RuntimeConfig) -> (Runtime, Arc<MemoryLog>) {
    let log = Arc::new(MemoryLog::new());
    let (frame_threads, min_parallel_tasks) = match config.frame_threads {
        0 => (2, 2),
        n => (n, config.min_parallel_tasks),
    };
    let runtime = Runtime::new(RuntimeConfig {
        hz: 60.0,
        log: log.clone(),
        jobs: JobDelivery::Lockstep,
        frame_threads,
        min_parallel_tasks,
        ..config
    });
    (runtime, log)
}

/// The transform of the first entity named `name`.
pub fn transform(runtime: &Runtime, name: &str) -> game_host::Transform {
    let mut scene = runtime.scene().lock().unwrap();
    let id = scene
        .find(name)
        .unwrap_or_else(|| panic!("no entity `{name}`"));
    scene.transform(id).unwrap()
}

/// The runtime's script errors, one line each.
pub fn error_lines(runtime: &Runtime) -> Vec<String> {
    let errors = runtime.inspect().errors();
    errors.iter().map(ToString::to_string).collect()
}

/// A copy of a script crate outside the workspace, as an author's own crate
/// would be, named `package`, with `edit` applied to its `src/lib.rs`. All
/// such crates share one target directory so rebuilds are incremental: each
/// one's `target` is a link to it (the host runs cargo from a neutral
/// folder, so a crate's own `.cargo/config.toml` does not apply).
pub fn standalone_crate(from: &str, package: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let dir = tmp.join("standalone").join(package);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let source = std::fs::read_to_string(script_dir(from).join("src/lib.rs")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), edit(&source)).unwrap();
    let sdk = workspace().join("script");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{package}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [lib]\ncrate-type = [\"cdylib\"]\n\n\
             [dependencies]\nscript = {{ path = {sdk:?} }}\n\n[workspace]\n"
        ),
    )
    .unwrap();
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let target = tmp.join("standalone-target");
    std::fs::create_dir_all(&target).unwrap();
    if std::fs::symlink_metadata(dir.join("target")).is_err() {
        std::os::unix::fs::symlink(&target, dir.join("target")).unwrap();
    }
    dir
}

/// Runs the `host` binary with `args`, then `--cache-dir cache`, from the
/// workspace root, with colour off.
pub fn run_host(args: &[&str], cache: &Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .arg("--cache-dir")
        .arg(cache)
        .env("NO_COLOR", "1")
        .current_dir(workspace())
        .output()
        .expect("run host")
}

/// PATH with the npm test tools (`target/test-tools`, where `./test.sh`
/// installs jco and tsc) first.
pub fn tool_path() -> String {
    let tools = workspace().join("target/test-tools/js/node_modules/.bin");
    format!(
        "{}:{}",
        tools.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A finished command's stderr, as text.
pub fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Replays `recording` with `host replay` and checks that all `frames`
/// of it agree.
pub fn assert_replays(recording: &Path, frames: u64) {
    let output = run_host(&["replay", recording.to_str().unwrap()], &cache_dir());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert!(
        stdout.contains(&format!("replay: {frames} frames agree")),
        "{stdout}"
    );
}

/// The one `error: ` line of a run that failed with exit code 1 (it
/// panics, showing stderr, unless there is exactly one).
pub fn only_error(output: &std::process::Output) -> String {
    let stderr = stderr_of(output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    errors[0].to_owned()
}

/// Rewrites a standalone crate's `src/lib.rs` with `edit`.
pub fn edit_crate(dir: &Path, edit: impl Fn(&str) -> String) {
    let path = dir.join("src/lib.rs");
    let source = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, edit(&source)).unwrap();
}

/// The first entity named `name` in a `--dump-scene` file's JSON.
pub fn dumped_entity<'a>(scene: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    scene["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {scene}"))
}

/// The position of entity `name` in a `--dump-scene` file's JSON.
pub fn dumped_position(scene: &serde_json::Value, name: &str) -> Vec<f64> {
    dumped_entity(scene, name)["position"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}
