//! [`GameHostPlugin`]: adds scripts to a Bevy app. Scripts run in the
//! [`ScriptSystems`] set of the plugin's schedule (`FixedUpdate` by
//! default), one runtime frame per run, so their clock, timers and waits
//! follow Bevy's fixed clock (`Time<Fixed>`, 64 Hz unless the game sets
//! it; the runtime's rate is read from it when the first step runs). A
//! game orders its own systems around the set: one `.before(ScriptSystems)`
//! has its writes seen by scripts in the same step. Scripts compile in the
//! asset loader, on the host's background pool below the game's priority
//! (`game_host::background`); background jobs run on the core's
//! worker pool, as under `host run`.

use std::collections::HashSet;
use std::sync::Arc;

use bevy::app::{App, FixedUpdate, Plugin, PreUpdate};
use bevy::asset::{AssetApp, AssetEvent, AssetServer};
use bevy::ecs::message::MessageCursor;
use bevy::ecs::query::QueryState;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel, SystemSet};
use bevy::input::ButtonInput;
use bevy::input::keyboard::KeyCode;
use bevy::log::warn;
use bevy::prelude::{
    Entity, IntoScheduleConfigs, Local, Messages, Resource, Time, World, resource_exists,
};
use bevy::time::Fixed;
use game_host::jobs::JobDelivery;
use game_host::limits::Quotas;
use game_host::log::LogSink;
use game_host::runtime::{RestartPolicy, Runtime, RuntimeConfig};
use game_host::sync::LockExt;
use game_host::{EngineOptions, GrantPolicy};

use crate::assets::{Script, ScriptAsset, ScriptLoader, ServerSlot};
use crate::describe::ScriptTypes;
use crate::engine::LazyEngine;
use crate::events::{ScriptFailed, ScriptStarted};
use crate::host::{ScriptHost, StepInput, Wanted};
use crate::input::{ScriptInbox, forward_keys};
use crate::registry::ScriptMessages;
use crate::scene::{ScriptEntity, ScriptReach, ScriptVisible};

/// The set the scripts' system runs in, in the plugin's schedule: order
/// the game's systems before or after it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScriptSystems;

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
    /// The schedule scripts run in, once per run: `FixedUpdate` by
    /// default, the clock of their frames.
    pub schedule: InternedScheduleLabel,
    /// Which of the game's entities exist for scripts: by default those
    /// marked [`ScriptVisible`].
    pub reach: ScriptReach,
    /// The game's name as its scripts' types know it (`spin-demo`): when
    /// set, the components and resources registered for scripts are also
    /// typed for them (the WIT package `spin-demo:game`, the book: Game
    /// types), as `host run --game` gives them from a file.
    /// [`ScriptTypes::describe`] gives that description (its `to_json()`
    /// is the file script authors give `host new --game`). A description
    /// set in [`EngineOptions::game`] is used instead.
    pub game: Option<String>,
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
            schedule: FixedUpdate.intern(),
            reach: ScriptReach::default(),
            game: None,
        }
    }
}

/// The plugin's settings and engine, until the first step makes the host.
#[derive(Resource, Clone)]
struct Settings(GameHostPlugin, Arc<LazyEngine>);

impl Plugin for GameHostPlugin {
    fn build(&self, app: &mut App) {
        // Made on first use, once the game has registered its types.
        let types = app
            .world_mut()
            .get_resource_or_init::<ScriptTypes>()
            .clone();
        let engine = Arc::new(LazyEngine::new(
            self.engine.clone(),
            self.game.clone(),
            types,
        ));
        // The loader lists a script's folder through the asset server; the
        // server holds the loader, so the loader's hold is let go with the
        // world (`ServerSlot`), or neither would ever be dropped.
        let server = ServerSlot::new(app.world().resource::<AssetServer>().clone());
        app.insert_resource(server.owner());
        app.init_asset::<ScriptAsset>()
            .register_asset_loader(ScriptLoader {
                engine: engine.clone(),
                server,
            })
            .register_type::<Script>()
            .register_type::<ScriptEntity>()
            .register_type::<ScriptVisible>()
            .add_message::<ScriptFailed>()
            .add_message::<ScriptStarted>()
            .init_resource::<ScriptInbox>()
            .insert_resource(self.reach)
            .insert_resource(Settings(self.clone(), engine))
            .add_systems(self.schedule, run_scripts.in_set(ScriptSystems))
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
    let Settings(settings, engine) = world.get_resource::<Settings>()?.clone();
    let step = world
        .get_resource::<Time<Fixed>>()
        .map_or(1.0 / 64.0, |time| time.timestep().as_secs_f64());
    if engine.get().is_none() {
        world.remove_resource::<Settings>();
        return None;
    }
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
    Some(ScriptHost::new(runtime))
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
    let (mut modified, mut asset_events) = (HashSet::new(), false);
    for event in changes.read(world.resource::<Messages<AssetEvent<ScriptAsset>>>()) {
        asset_events = true;
        if let AssetEvent::Modified { id } = event {
            modified.insert(*id);
        }
    }
    let scripts = scripts.get_or_insert_with(|| world.query());
    let mut now = Wanted::default();
    for (entity, script) in scripts.iter(world) {
        now.add(entity, script.0.id());
    }
    let plan = ScriptHost::shared(world)
        .lock_unpoisoned()
        .needs_plan(now, asset_events);
    let wanted = plan.then(|| {
        scripts
            .iter(world)
            .map(|(entity, script)| (entity, script.0.id()))
            .collect()
    });
    let mut events = world.resource_mut::<ScriptInbox>().take();
    if let Some(messages) = world.get_resource::<ScriptMessages>().cloned() {
        events.extend(messages.forward(world));
    }
    let input = StepInput {
        wanted,
        fingerprint: now,
        modified,
        events,
    };
    let (started, failed) = ScriptHost::shared(world)
        .lock_unpoisoned()
        .step(world, input);
    world.write_message_batch(started);
    for failure in failed {
        warn!(
            "script of entity {} stopped: {}",
            failure.entity, failure.error
        );
        world.write_message(failure);
    }
}
