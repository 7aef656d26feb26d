//! Shared helpers: script crates built from source into an assets folder,
//! and a headless Bevy app with the plugin, stepped frame by frame.

#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bevy::asset::{AssetMetaCheck, UnapprovedPathMode};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use game_host::log::MemoryLog;
use game_host::{EngineOptions, ScriptEngine};
use game_host_bevy::{GameHostPlugin, ScriptFailed, ScriptHost};
use game_host_build::{BuildOutput, build_script_crate};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh assets folder for one test.
pub fn assets(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("bevy-assets")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Builds the script crate `examples/NAME` or `host/tests/scripts/NAME` and
/// copies its component into `assets` as `NAME.wasm`.
pub fn script(assets: &Path, name: &str) -> PathBuf {
    let example = workspace().join("examples").join(name);
    let dir = match example.is_dir() {
        true => example,
        false => workspace().join("host/tests/scripts").join(name),
    };
    let built = build_script_crate(&dir, BuildOutput::Capture)
        .unwrap_or_else(|e| panic!("building `{name}` failed: {e:#}"));
    let to = assets.join(format!("{name}.wasm"));
    std::fs::copy(built, &to).unwrap();
    to
}

/// The engine options of the tests: a compile cache in cargo's temp dir,
/// and generous deadlines (shared machines).
pub fn engine_options() -> EngineOptions {
    EngineOptions {
        cache_dir: Some(Path::new(env!("CARGO_TARGET_TMPDIR")).join("script-cache")),
        max_instances: 32,
        limits: game_host::limits::ScriptLimits {
            update_deadline: Some(Duration::from_millis(250)),
            start_deadline: Duration::from_secs(5),
            ..Default::default()
        },
        ..EngineOptions::default()
    }
}

/// An engine as the plugin's, for runs outside Bevy to compare with.
pub fn engine() -> ScriptEngine {
    ScriptEngine::new(engine_options()).unwrap()
}

/// A headless app with the plugin, at 60 fixed steps a second, each
/// `update` advancing time by exactly one step; script logs go to the
/// returned log.
pub fn app(assets: &Path) -> (App, Arc<MemoryLog>) {
    app_with(assets, plugin())
}

/// The plugin as the tests set it: [`engine_options`].
pub fn plugin() -> GameHostPlugin {
    GameHostPlugin {
        engine: engine_options(),
        ..default()
    }
}

/// [`app`] with the plugin given (its log replaced by the returned one).
pub fn app_with(assets: &Path, plugin: GameHostPlugin) -> (App, Arc<MemoryLog>) {
    app_loading(assets, plugin, UnapprovedPathMode::default())
}

/// [`app`], loading assets from outside `assets` by their full paths too
/// (as a game that loads mods from elsewhere allows).
pub fn app_allowing_full_paths(assets: &Path) -> (App, Arc<MemoryLog>) {
    app_loading(assets, plugin(), UnapprovedPathMode::Allow)
}

fn app_loading(
    assets: &Path,
    plugin: GameHostPlugin,
    unapproved_path_mode: UnapprovedPathMode,
) -> (App, Arc<MemoryLog>) {
    let log = Arc::new(MemoryLog::new());
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets.display().to_string(),
            meta_check: AssetMetaCheck::Never,
            unapproved_path_mode,
            ..default()
        },
        TransformPlugin,
        GameHostPlugin {
            log: log.clone(),
            ..plugin
        },
    ));
    let step = Time::<Fixed>::from_hz(60.0);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(step.timestep()));
    app.insert_resource(step);
    app.init_resource::<Failures>();
    app.add_systems(Update, keep_failures);
    (app, log)
}

/// The failures reported so far.
#[derive(Resource, Default)]
pub struct Failures(pub Vec<ScriptFailed>);

fn keep_failures(mut failed: MessageReader<ScriptFailed>, mut kept: ResMut<Failures>) {
    kept.0.extend(failed.read().cloned());
}

/// The runtime's frame.
pub fn frame(app: &App) -> u64 {
    app.world()
        .get_resource::<ScriptHost>()
        .map_or(0, ScriptHost::frame)
}

/// Updates the app until the runtime has run `frames` more frames (its
/// first script may still be loading, compiled on Bevy's task pools: the
/// runtime's clock starts with it, within two minutes).
pub fn run_frames(app: &mut App, frames: u64) {
    let target = frame(app) + frames;
    let started = std::time::Instant::now();
    let mut updates = 0;
    while frame(app) < target {
        app.update();
        if frame(app) == 0 {
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "no script started in two minutes"
            );
            std::thread::sleep(Duration::from_millis(2)); // assets loading
            continue;
        }
        updates += 1;
        assert!(
            updates < frames + 2_000,
            "the runtime reached frame {} of {target}",
            frame(app)
        );
    }
}

/// Updates the app until `done` holds (a script started, say: each starts
/// at a step after its instance is made on the background queue), failing
/// with `what` after 30 seconds.
pub fn update_until(app: &mut App, what: &str, done: impl Fn(&App) -> bool) {
    let started = std::time::Instant::now();
    while !done(app) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "not in 30 s: {what}"
        );
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Updates the app with time standing still (no fixed step runs, so no
/// script starts) until `count` script assets have loaded, then lets time
/// run again, one fixed step an update: scripts that compile on different
/// tasks start in the same step.
pub fn load_all(app: &mut App, count: usize) {
    let step = app.world().resource::<Time<Fixed>>().timestep();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    let started = std::time::Instant::now();
    while app
        .world()
        .resource::<Assets<game_host_bevy::ScriptAsset>>()
        .len()
        < count
    {
        app.update();
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the scripts did not load in two minutes"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    app.insert_resource(TimeUpdateStrategy::ManualDuration(step));
}

/// The Bevy transform of the entity named `name`.
pub fn transform(app: &mut App, name: &str) -> Transform {
    let mut query = app.world_mut().query::<(&Name, &Transform)>();
    let world = app.world();
    query
        .iter(world)
        .find(|(n, _)| n.as_str() == name)
        .map(|(_, t)| *t)
        .unwrap_or_else(|| panic!("no entity named `{name}`"))
}

/// The failures reported so far.
pub fn failures(app: &App) -> Vec<ScriptFailed> {
    app.world().resource::<Failures>().0.clone()
}
