//! Running without a window or GPU: Bevy's minimal plugins, each update
//! one fixed step of exactly `1 / hz` seconds, until the scripts have run
//! the frames asked for.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use bevy::asset::{AssetPlugin, AssetServer, RecursiveDependencyLoadState};
use bevy::log::LogPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use game_host_bevy::{GameHostPlugin, Script, ScriptFailed, ScriptHost};

/// How long scripts may take to load and start before the run gives up.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// Adds the plugins of a headless run.
pub fn plugins(app: &mut App, assets: AssetPlugin, plugin: GameHostPlugin) {
    let step = app.world().resource::<Time<Fixed>>().timestep();
    // Script log lines and failures go to Bevy's log, as in a window.
    app.add_plugins((
        MinimalPlugins,
        LogPlugin::default(),
        assets,
        TransformPlugin,
        plugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(step))
    .init_resource::<Failures>()
    .add_systems(Update, keep_failures);
}

/// How many failures were reported, to see a run where nothing starts.
#[derive(Resource, Default)]
struct Failures(usize);

fn keep_failures(mut failed: MessageReader<ScriptFailed>, mut kept: ResMut<Failures>) {
    kept.0 += failed.read().count();
}

/// The runtime's frame: the fixed steps since its first script started.
fn frame(app: &App) -> u64 {
    app.world()
        .get_resource::<ScriptHost>()
        .map_or(0, ScriptHost::frame)
}

/// Updates `app` until its scripts have run `frames` fixed steps. Fails if
/// none of them starts: every script failed to load or start.
pub fn run(app: &mut App, frames: u64) -> Result<()> {
    let started = Instant::now();
    // Every script's asset first, with time standing still: scripts attach
    // at a fixed step, so ones that finished loading in different updates
    // would start at different frames (and a dump differ from `host run`'s).
    let step = app.world().resource::<Time<Fixed>>().timestep();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    loop {
        app.update();
        if !still_loading(app) {
            break;
        }
        if started.elapsed() > START_TIMEOUT {
            bail!("the scripts did not load in {} s", START_TIMEOUT.as_secs());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    app.insert_resource(TimeUpdateStrategy::ManualDuration(step));
    while frame(app) < frames {
        app.update();
        if frame(app) > 0 {
            continue;
        }
        // Still loading, or nothing will ever run.
        if nothing_runs(app) {
            bail!("no script is running: each failed to load or start (see above)");
        }
        if started.elapsed() > START_TIMEOUT {
            bail!("no script started in {} s", START_TIMEOUT.as_secs());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// Whether a script's asset is still loading.
fn still_loading(app: &mut App) -> bool {
    let world = app.world_mut();
    let server = world.resource::<AssetServer>().clone();
    let mut query = world.query::<&Script>();
    query.iter(world).any(|script| {
        !matches!(
            server.recursive_dependency_load_state(&script.0),
            RecursiveDependencyLoadState::Loaded | RecursiveDependencyLoadState::Failed(_)
        )
    })
}

/// Whether no script will run: every script failed to load or start
/// (each failure was logged as it happened).
fn nothing_runs(app: &mut App) -> bool {
    let world = app.world_mut();
    let server = world.resource::<AssetServer>().clone();
    let mut query = world.query::<&Script>();
    let mut failed = 0;
    for script in query.iter(world) {
        match server.recursive_dependency_load_state(&script.0) {
            RecursiveDependencyLoadState::Failed(_) => failed += 1,
            RecursiveDependencyLoadState::Loaded => {}
            _ => return false, // loading
        }
    }
    failed + world.resource::<Failures>().0 >= query.iter(world).count()
}
