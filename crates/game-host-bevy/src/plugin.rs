//! [`GameHostPlugin`]: adds scripts to a Bevy app. Scripts run in
//! `FixedUpdate`, one runtime frame per fixed step, so their clock, timers
//! and waits follow Bevy's fixed clock (`Time<Fixed>`, 64 Hz unless the
//! game sets it; the runtime's rate is read from it when the first step
//! runs). Background jobs run on the core's worker pool, as under
//! `host run`: Bevy's task pools stay the game's.

use std::collections::HashSet;
use std::sync::Arc;

use bevy::app::{App, FixedUpdate, Plugin, PreUpdate};
use bevy::asset::{AssetApp, AssetEvent};
use bevy::ecs::message::MessageCursor;
use bevy::ecs::query::QueryState;
use bevy::input::ButtonInput;
use bevy::input::keyboard::KeyCode;
use bevy::log::{error, warn};
use bevy::prelude::{
    Entity, IntoScheduleConfigs, Local, Messages, Resource, Time, World, resource_exists,
};
use bevy::time::Fixed;
use game_host::jobs::JobDelivery;
use game_host::limits::Quotas;
use game_host::log::LogSink;
use game_host::runtime::{RestartPolicy, Runtime, RuntimeConfig};
use game_host::sync::LockExt;
use game_host::{EngineOptions, GrantPolicy, ScriptEngine};

use crate::assets::{Script, ScriptAsset, ScriptLoader};
use crate::events::ScriptFailed;
use crate::host::{ScriptHost, StepInput};
use crate::input::{ScriptInbox, forward_keys};

/// Runs game-host scripts in a Bevy app (see the crate's docs).
#[derive(Clone)]
pub struct GameHostPlugin {
    /// The engine: CPU deadlines and memory limits of every script
    /// ([`EngineOptions::limits`]), the compile cache, instance pooling.
    pub engine: EngineOptions,
    /// What each script may make the host keep or do.
    pub quotas: Quotas,
    /// What each script may touch: interfaces, entities (by `Name`),
    /// channels, keys, jobs (see `game_host::grants`); by default everything.
    pub grants: GrantPolicy,
    /// What happens to a script that fails (by default it stays stopped).
    pub restart: RestartPolicy,
    /// The seed of the scripts' random numbers: the same seed, scripts and
    /// input give the same scene.
    pub seed: u64,
    /// When finished background jobs reach scripts.
    pub jobs: JobDelivery,
    /// Where script log lines go; by default Bevy's log (`tracing`).
    pub log: Arc<dyn LogSink>,
}

impl Default for GameHostPlugin {
    fn default() -> Self {
        let config = RuntimeConfig::default();
        GameHostPlugin {
            engine: EngineOptions::default(),
            quotas: config.quotas,
            grants: config.grants,
            restart: config.restart,
            seed: config.seed,
            jobs: config.jobs,
            log: config.log,
        }
    }
}

/// The plugin's settings, until the first step makes the host.
#[derive(Resource, Clone)]
struct Settings(GameHostPlugin);

impl Plugin for GameHostPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<ScriptAsset>()
            .register_asset_loader(ScriptLoader)
            .add_message::<ScriptFailed>()
            .init_resource::<ScriptInbox>()
            .insert_resource(Settings(self.clone()))
            .add_systems(FixedUpdate, run_scripts)
            .add_systems(
                PreUpdate,
                forward_keys
                    .after(bevy::input::InputSystems)
                    .run_if(resource_exists::<ButtonInput<KeyCode>>),
            );
    }
}

/// Makes the host the first time scripts run: the runtime's rate is the
/// fixed clock's.
fn make_host(world: &mut World) -> Option<ScriptHost> {
    let Settings(settings) = world.get_resource::<Settings>()?.clone();
    let step = world
        .get_resource::<Time<Fixed>>()
        .map_or(1.0 / 64.0, |time| time.timestep().as_secs_f64());
    let engine = match ScriptEngine::new(settings.engine) {
        Ok(engine) => engine,
        Err(e) => {
            error!("scripts cannot run: the script engine failed to start: {e:#}");
            world.remove_resource::<Settings>();
            return None;
        }
    };
    let runtime = Runtime::with_scene(
        RuntimeConfig {
            hz: 1.0 / step,
            quotas: settings.quotas,
            grants: settings.grants,
            restart: settings.restart,
            seed: settings.seed,
            jobs: settings.jobs,
            log: settings.log,
            ..RuntimeConfig::default()
        },
        ScriptHost::scene(),
    );
    Some(ScriptHost::new(engine, runtime))
}

/// One fixed step of every script (see [`ScriptHost`]).
fn run_scripts(
    world: &mut World,
    mut changes: Local<MessageCursor<AssetEvent<ScriptAsset>>>,
    mut scripts: Local<Option<QueryState<(Entity, &'static Script)>>>,
) {
    if !world.contains_resource::<ScriptHost>() {
        let Some(host) = make_host(world) else {
            return;
        };
        world.insert_resource(host);
    }
    let modified: HashSet<_> = changes
        .read(world.resource::<Messages<AssetEvent<ScriptAsset>>>())
        .filter_map(|event| match event {
            AssetEvent::Modified { id } => Some(*id),
            _ => None,
        })
        .collect();
    let wanted = scripts
        .get_or_insert_with(|| world.query())
        .iter(world)
        .map(|(entity, script)| (entity, script.0.id()))
        .collect();
    let events = world.resource_mut::<ScriptInbox>().take();
    let input = StepInput {
        wanted,
        modified,
        events,
    };
    let failed = ScriptHost::shared(world)
        .lock_unpoisoned()
        .step(world, input);
    for failure in failed {
        warn!(
            "script of entity {} stopped: {}",
            failure.entity, failure.error
        );
        world.write_message(failure);
    }
}
