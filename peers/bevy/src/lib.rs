//! The sides of the Bevy benchmark (`benches/bevy.rs`): headless Bevy apps
//! that do the same work through the plugin, bevy_mod_scripting's Lua or a
//! native system, an idle app as their baseline, and the standalone host.

mod bms;
mod native;
pub mod plugin;
mod scenario;

pub use scenario::Scenario;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bevy::asset::{AssetMetaCheck, AssetPlugin, UnapprovedPathMode};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use game_host::limits::{Quotas, ScriptLimits};
use game_host::log::MemoryLog;
use game_host::scene::Scene;
use game_host::{EngineOptions, Runtime, RuntimeConfig, ScriptEngine};
use game_host_bevy::ScriptVisible;
use game_host_build::{BuildOutput, build_script_crate};

/// The entities moved in the 10,000-entity scenarios.
pub const MANY: usize = 10_000;
/// Radians a second of the spinning cube, and of a speed-1 behaviour.
pub const SPEED: f32 = std::f32::consts::FRAC_PI_2;
/// The fixed step: 60 a second.
pub const HZ: f64 = 60.0;

/// A game's own component: how fast an entity turns, in the cube's
/// speeds. The `Query` scenario's entities have it.
#[derive(Component, Reflect, Default, Clone, Copy)]
#[reflect(Component, Default)]
pub struct Spin {
    pub speed: f32,
}

/// One side of a scenario.
pub enum Side {
    /// The app with its entities and nothing moving them.
    Idle(App),
    /// `game-host-bevy`.
    Plugin(App),
    /// bevy_mod_scripting with Lua.
    Bms(App),
    /// A Bevy system.
    Native(App),
    /// The standalone host on its own scene.
    Host(Runtime, Scenario),
}

impl Side {
    pub const IDLE: &str = "idle";
    pub const PLUGIN: &str = "plugin";
    pub const BMS: &str = "bms";
    pub const NATIVE: &str = "native";
    pub const HOST: &str = "host";

    pub fn name(&self) -> &'static str {
        match self {
            Side::Idle(_) => Side::IDLE,
            Side::Plugin(_) => Side::PLUGIN,
            Side::Bms(_) => Side::BMS,
            Side::Native(_) => Side::NATIVE,
            Side::Host(..) => Side::HOST,
        }
    }

    /// One update: [`Scenario::steps_per_update`] fixed steps.
    pub fn update(&mut self) {
        match self {
            Side::Host(runtime, scenario) => {
                for _ in 0..scenario.steps_per_update() {
                    runtime.step();
                }
            }
            Side::Idle(app) | Side::Plugin(app) | Side::Bms(app) | Side::Native(app) => {
                app.update()
            }
        }
    }

    /// Panics unless the side did the scenario's work in its last step.
    pub fn check(&mut self) {
        match self {
            Side::Idle(_) => {}
            Side::Host(runtime, scenario) => {
                assert!(
                    runtime.inspect().errors().is_empty(),
                    "{:?}",
                    runtime.inspect().errors()
                );
                let dump = runtime.inspect().dump();
                let transforms = dump.entities.iter().map(|e| {
                    (
                        e.name.clone(),
                        Vec3::from_array(e.position),
                        Quat::from_array(e.rotation),
                    )
                });
                scenario::check(*scenario, transforms.collect());
            }
            Side::Plugin(app) => plugin::check(app),
            Side::Bms(app) | Side::Native(app) => {
                if let Some(errors) = app.world().get_resource::<bms::LuaErrors>() {
                    assert!(errors.0.is_empty(), "{:?}", errors.0);
                }
                let scenario = *app.world().resource::<Scenario>();
                scenario::check(scenario, transforms(app));
            }
        }
    }
}

/// The entity named `cube`.
pub(crate) fn cube(world: &mut World) -> Entity {
    let mut named = world.query::<(Entity, &Name)>();
    named
        .iter(world)
        .find(|(_, n)| n.as_str() == "cube")
        .map(|(e, _)| e)
        .expect("the app has its cube")
}

/// Every named entity's name, position and rotation.
pub(crate) fn transforms(app: &mut App) -> Vec<(String, Vec3, Quat)> {
    let mut query = app.world_mut().query::<(&Name, &Transform)>();
    query
        .iter(app.world())
        .map(|(n, t)| (n.as_str().to_owned(), t.translation, t.rotation))
        .collect()
}

/// The sides of `scenario`, each ready to time.
pub fn apps(scenario: Scenario) -> Vec<Side> {
    let mut sides = vec![
        Side::Idle(native::idle(scenario)),
        Side::Plugin(plugin::app(scenario)),
    ];
    if let Some(app) = bms::app(scenario) {
        sides.push(Side::Bms(app));
    }
    sides.push(Side::Native(native::app(scenario)));
    // 10,000 instances hold about 40,000 memory mappings, and a process
    // may hold 65,530: the plugin's and a second engine's do not fit in
    // one. `benches/capacity.rs` in `peers` times the standalone host's
    // many instances (its are `peers:kept`, all turning one cube).
    if scenario.instances() == 1 {
        sides.push(Side::Host(host(scenario), scenario));
    }
    sides
}

/// A headless app at 60 fixed steps a second, each update one step, with
/// the cube and the scenario's marker entity, as the core's default scene
/// and the bench's scripts expect.
pub(crate) fn base_app(scenario: Scenario) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: ".".into(),
            unapproved_path_mode: UnapprovedPathMode::Allow,
            meta_check: AssetMetaCheck::Never,
            ..default()
        },
        TransformPlugin,
    ));
    let step = Time::<Fixed>::from_hz(HZ);
    let update = step.timestep() * scenario.steps_per_update();
    let mut virtual_time = Time::<Virtual>::default();
    virtual_time.set_max_delta(update * 2);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(update))
        .insert_resource(step)
        .insert_resource(virtual_time)
        .insert_resource(scenario);
    if scenario == Scenario::Cube {
        single_threaded(&mut app);
    }
    app.world_mut()
        .spawn((Name::new("cube"), Transform::default(), ScriptVisible));
    app.world_mut().spawn((
        Name::new(scenario.marker()),
        Transform::default(),
        ScriptVisible,
    ));
    app
}

/// Runs every schedule of the frame and the fixed step on one thread. On
/// Bevy's default multithreaded executor a fixed step of this app costs
/// about 40 µs here, give or take a few, in which one script's update
/// (about 0.3 µs standalone) is noise.
fn single_threaded(app: &mut App) {
    use bevy::app::{FixedFirst, FixedLast, FixedPostUpdate, FixedPreUpdate, RunFixedMainLoop};
    use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel, SingleThreadedExecutor};
    let labels: [InternedScheduleLabel; 11] = [
        First.intern(),
        PreUpdate.intern(),
        RunFixedMainLoop.intern(),
        FixedFirst.intern(),
        FixedPreUpdate.intern(),
        FixedUpdate.intern(),
        FixedPostUpdate.intern(),
        FixedLast.intern(),
        Update.intern(),
        PostUpdate.intern(),
        Last.intern(),
    ];
    for label in labels {
        app.edit_schedule(label, |schedule| {
            schedule.set_executor(SingleThreadedExecutor::new());
        });
    }
}

/// The `peers` benchmark script, built.
pub(crate) fn peers_script() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../host/tests/scripts/peers");
    build_script_crate(&dir, BuildOutput::Capture).expect("the peers script builds")
}

/// What the plugin and the host give a script: room for 10,000 handles
/// and entities, and a generous deadline (shared machines); room in the
/// pool for the scenario's instances.
pub(crate) fn engine_options(scenario: Scenario) -> EngineOptions {
    EngineOptions {
        max_instances: EngineOptions::default()
            .max_instances
            .max(scenario.instances() as u32 + 16),
        limits: ScriptLimits {
            update_deadline: Some(Duration::from_secs(1)),
            start_deadline: Duration::from_secs(5),
            ..ScriptLimits::default()
        },
        ..EngineOptions::default()
    }
}

pub(crate) fn quotas() -> Quotas {
    Quotas {
        handles: 2 * MANY,
        entities: 4 * MANY as u64,
        ..Quotas::default()
    }
}

/// The standalone host: the core's scene with the cube and the marker.
fn host(scenario: Scenario) -> Runtime {
    let engine = ScriptEngine::new(engine_options(scenario)).expect("engine");
    let scene = Scene::with_default_cube();
    let scene = scene.shared();
    {
        use game_host::scene::GameScene;
        use game_host::sync::LockExt;
        scene.lock_unpoisoned().spawn(scenario.marker());
    }
    let mut runtime = Runtime::with_scene(
        RuntimeConfig {
            hz: HZ,
            quotas: quotas(),
            log: Arc::new(MemoryLog::new()),
            ..RuntimeConfig::default()
        },
        scene,
    );
    let script = engine.load_file(&peers_script()).expect("load");
    runtime.spawn(&script).expect("start");
    runtime.step();
    runtime
}
