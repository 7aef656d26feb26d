//! The plugin in a real headless Bevy `App`: scripts built from source,
//! loaded as assets, run for N fixed steps on Bevy's own entities, with
//! the resulting transforms, components, messages and errors checked.

mod common;

use std::sync::Arc;

use bevy::prelude::*;
use game_host::log::MemoryLog;
use game_host::runtime::{Runtime, RuntimeConfig};
use game_host::scene::{EntityId, GameScene, Scene, Value};
use game_host::sync::LockExt;
use game_host_bevy::{Script, ScriptAccess, ScriptApp, ScriptEntity, ScriptHost, ScriptVisible};

/// The default scene's cube, as a game spawns it.
fn spawn_cube(world: &mut World) -> Entity {
    world
        .spawn((Name::new("cube"), Transform::default(), ScriptVisible))
        .id()
}

#[test]
fn the_cube_after_120_fixed_steps_is_host_runs_cube() {
    let assets = common::assets("cube");
    common::script(&assets, "spinning-cube");
    let (mut app, log) = common::app(&assets);
    spawn_cube(app.world_mut());
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("spinning-cube.wasm");
    app.world_mut().spawn(Script(handle));
    common::run_frames(&mut app, 120);
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
    assert!(log.messages().contains(&"spinning cube started".to_owned()));

    // The same script on the core's own scene, as `host run` runs it.
    let engine = common::engine();
    let mut runtime = Runtime::with_scene(
        RuntimeConfig {
            log: Arc::new(MemoryLog::new()),
            ..RuntimeConfig::default()
        },
        Scene::with_default_cube().shared(),
    );
    runtime
        .spawn(
            &engine
                .load_file(&assets.join("spinning-cube.wasm"))
                .unwrap(),
        )
        .unwrap();
    runtime.run_frames(120);

    let bevy = ScriptHost::with_runtime(app.world_mut(), |runtime| runtime.inspect().dump());
    assert_eq!(
        bevy,
        runtime.inspect().dump(),
        "the same scene, bit for bit"
    );
    let cube = common::transform(&mut app, "cube");
    let (axis, angle) = cube.rotation.to_axis_angle();
    assert!((angle.to_degrees() - 180.0).abs() < 1e-3, "{angle}");
    assert!((axis - Vec3::Y).length() < 1e-5, "{axis}");
}

/// An app with the cube and the spinning cube's script on an entity
/// (`first`), run `frames` frames; assets under the test's name.
fn cube_script_running(
    test: &str,
    frames: u64,
) -> (App, Handle<game_host_bevy::ScriptAsset>, Entity) {
    let assets = common::assets(test);
    common::script(&assets, "spinning-cube");
    let (mut app, _log) = common::app(&assets);
    spawn_cube(app.world_mut());
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("spinning-cube.wasm");
    let first = app.world_mut().spawn(Script(handle.clone())).id();
    common::run_frames(&mut app, frames);
    assert!(running(&app, first));
    (app, handle, first)
}

/// Whether `entity`'s script runs.
fn running(app: &App, entity: Entity) -> bool {
    app.world()
        .resource::<ScriptHost>()
        .instance_of(entity)
        .is_some()
}

/// Steps skip comparing the game's scripts with the running ones unless a
/// `Script` was added, changed or removed: each of those still reaches
/// the runtime, after any number of steps that changed nothing.
#[test]
fn a_script_removed_stops_and_one_added_after_quiet_steps_starts() {
    let (mut app, handle, first) = cube_script_running("attach", 10);

    app.world_mut().entity_mut(first).remove::<Script>();
    common::run_frames(&mut app, 1);
    assert!(!running(&app, first), "a removed Script stopped");
    let still = common::transform(&mut app, "cube").rotation;
    common::run_frames(&mut app, 30);
    assert_eq!(common::transform(&mut app, "cube").rotation, still);

    // After quiet steps, a Script on a new entity and one put back.
    // Each starts at a step after its instance is made on the background
    // queue.
    let second = app.world_mut().spawn(Script(handle.clone())).id();
    common::update_until(&mut app, "an added Script started", |app| {
        running(app, second)
    });
    app.world_mut().entity_mut(first).insert(Script(handle));
    common::update_until(&mut app, "a Script put back started", |app| {
        running(app, first)
    });
    assert!(common::failures(&app).is_empty());
    // Both turn the cube now.
    let before = common::transform(&mut app, "cube").rotation;
    common::run_frames(&mut app, 1);
    let turned = common::transform(&mut app, "cube").rotation;
    assert!(turned.angle_between(before) > 0.03, "{before} -> {turned}");

    // A disabled entity's script stops; one entity disabled and another
    // enabled in the same step (as many scripts as before) are both seen.
    use bevy::ecs::entity_disabling::Disabled;
    app.world_mut().entity_mut(second).insert(Disabled);
    common::run_frames(&mut app, 1);
    assert!(!running(&app, second), "a disabled entity's script stopped");
    app.world_mut().entity_mut(second).remove::<Disabled>();
    app.world_mut().entity_mut(first).insert(Disabled);
    common::run_frames(&mut app, 1);
    assert!(!running(&app, first), "a disabled entity's script stopped");
    common::update_until(&mut app, "an enabled entity's script started", |app| {
        running(app, second)
    });
}

#[test]
fn a_trapping_script_beside_the_cube_is_stopped_alone() {
    let assets = common::assets("trap");
    common::script(&assets, "spinning-cube");
    common::script(&assets, "trap");
    let (mut app, log) = common::app(&assets);
    spawn_cube(app.world_mut());
    let server = app.world().resource::<AssetServer>().clone();
    let cube = app
        .world_mut()
        .spawn(Script(server.load("spinning-cube.wasm")))
        .id();
    let trap = app.world_mut().spawn(Script(server.load("trap.wasm"))).id();
    // Both start in the same step (the runtime's clock starts with them):
    // time stands still until both have compiled, each on its own task.
    common::load_all(&mut app, 2);
    common::run_frames(&mut app, 60);
    let failures = common::failures(&app);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].entity, trap);
    assert!(
        failures[0].error.contains("boom at frame 3"),
        "{}",
        failures[0].error
    );
    assert!(log.messages().contains(&"alive 3".to_owned()));
    assert!(!log.messages().contains(&"alive 4".to_owned()));
    let host = app.world().resource::<ScriptHost>();
    assert!(host.instance_of(trap).is_none(), "stopped");
    assert!(
        host.instance_of(cube).is_some(),
        "the cube's script runs on"
    );
    // A quarter turn a second at 60 steps a second: 1.5 degrees a step,
    // for every step since the two started (the step that loaded them
    // may have run one already).
    let steps = common::frame(&app) as f32;
    assert!((60.0..=61.0).contains(&steps), "{steps}");
    let (_, angle) = common::transform(&mut app, "cube").rotation.to_axis_angle();
    assert!(
        (angle.to_degrees() - 1.5 * steps).abs() < 1e-3,
        "{angle} after {steps} steps"
    );
}

#[test]
fn a_changed_script_asset_is_swapped_in_the_app_and_keeps_its_state() {
    let assets = common::assets("swap");
    let file = common::script(&assets, "spinning-cube");
    let (mut app, log) = common::app(&assets);
    spawn_cube(app.world_mut());
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("spinning-cube.wasm");
    let entity = app.world_mut().spawn(Script(handle)).id();
    common::run_frames(&mut app, 60);
    let before = app
        .world()
        .resource::<ScriptHost>()
        .instance_of(entity)
        .unwrap();
    assert_eq!(before.swaps, 0);

    // The file changes on disk: Bevy's watcher reloads the asset, and the
    // plugin swaps the running instance, which hands over its state.
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, bytes).unwrap();
    let started = std::time::Instant::now();
    while app
        .world()
        .resource::<ScriptHost>()
        .instance_of(entity)
        .unwrap()
        .swaps
        == 0
    {
        assert!(
            started.elapsed().as_secs() < 30,
            "no swap after the file changed"
        );
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let after = app
        .world()
        .resource::<ScriptHost>()
        .instance_of(entity)
        .unwrap();
    assert_eq!(after.id, before.id, "the same instance, new code");
    let swapped = log
        .messages()
        .into_iter()
        .find(|m| m.starts_with("spinning cube swapped in: "))
        .expect("restore-state ran");
    // It had turned at least the 60 steps' quarter turn (pi/2) when swapped.
    let turned: f32 = swapped
        .trim_start_matches("spinning cube swapped in: ")
        .trim_end_matches(" rad turned so far")
        .parse()
        .unwrap();
    assert!(turned >= std::f32::consts::FRAC_PI_2 - 1e-4, "{swapped}");
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
}

/// A game's component for scripts, read and written by name.
#[derive(Component, Reflect, Default, Debug, PartialEq)]
#[reflect(Component, Default)]
struct Health {
    value: i32,
}

/// A component scripts may only read.
#[derive(Component, Reflect, Default, Debug, PartialEq)]
#[reflect(Component, Default)]
struct Armor {
    rating: f32,
    name: String,
}

#[test]
fn reflected_components_round_trip_and_entities_despawn() {
    // `game-data` over Bevy: the script inserts `Health` on three crates
    // (Bevy entities it spawns), reads and writes it each step, and
    // despawns each crate whose health runs out.
    let assets = common::assets("data");
    common::script(&assets, "game-data");
    let (mut app, log) = common::app(&assets);
    app.register_script_component::<Health>(ScriptAccess::ReadWrite)
        .register_script_component::<Armor>(ScriptAccess::Read);
    spawn_cube(app.world_mut());
    let armored = app
        .world_mut()
        .spawn((
            Name::new("knight"),
            Transform::default(),
            ScriptVisible,
            Armor {
                rating: 2.5,
                name: "plate".into(),
            },
        ))
        .id();
    let handle = app.world().resource::<AssetServer>().load("game-data.wasm");
    app.world_mut().spawn(Script(handle));
    common::run_frames(&mut app, 2);

    // Written by the script, read by the game: crate-2 started at 5.
    let mut crates = app.world_mut().query::<(&Name, &Health, &Transform)>();
    let crate2 = crates
        .iter(app.world())
        .find(|(name, _, _)| name.as_str() == "crate-2")
        .map(|(_, health, t)| (health.value, t.translation.x))
        .unwrap();
    assert_eq!(crate2, (3, 2.0));
    let errors: Vec<String> = log
        .messages()
        .into_iter()
        .filter(|m| m.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors[0].contains("`Health.value`")
            && errors[0].contains("an integer and the value a text"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("component `Health` of entity") && errors[1].contains("no field `valu`"),
        "{errors:?}"
    );
    assert!(errors[2].ends_with("no entity has id 9999"), "{errors:?}");

    // The game's entity through the same interface: read, and a write the
    // game does not allow.
    let knight = app.world().get::<ScriptEntity>(armored).unwrap().id();
    ScriptHost::with_runtime(app.world_mut(), |runtime| {
        let mut scene = runtime.scene().lock_unpoisoned();
        let data = scene.game_data().unwrap();
        let id = EntityId::from(knight);
        assert_eq!(
            data.get_field(id, "Armor", "rating"),
            Ok(Value::Number(2.5))
        );
        assert_eq!(
            data.get_field(id, "Armor", "name"),
            Ok(Value::Text("plate".into()))
        );
        assert_eq!(
            data.set_field(id, "Armor", "rating", Value::Number(9.0)),
            Err("game-data: the game lets scripts read `Armor`, not write it".into())
        );
        let unknown = data.get(id, "Mana").unwrap_err();
        assert_eq!(
            unknown,
            "game-data: no component named `Mana` is registered for scripts (registered: Armor, Health)"
        );
        // Round trip through the game's own type.
        assert!(!data.has(id, "Health"));
        data.insert(id, "Health", vec![]).unwrap();
        data.set_field(id, "Health", "value", Value::Number(7.0))
            .unwrap();
        assert_eq!(data.get_field(id, "Health", "value"), Ok(Value::Integer(7)));
        assert_eq!(data.remove(id, "Health"), Ok(true));
        assert_eq!(data.remove(id, "Health"), Ok(false));
    });
    assert_eq!(app.world().get::<Armor>(armored).unwrap().rating, 2.5);

    common::run_frames(&mut app, 3);
    let despawned: Vec<String> = log
        .messages()
        .into_iter()
        .filter(|m| m.starts_with("despawned "))
        .collect();
    assert_eq!(
        despawned,
        [
            "despawned crate-0",
            "despawned crate-1",
            "despawned crate-2"
        ]
    );
    let names: Vec<String> = app
        .world_mut()
        .query::<&Name>()
        .iter(app.world())
        .map(|n| n.as_str().to_owned())
        .filter(|n| n.starts_with("crate-"))
        .collect();
    assert!(
        names.is_empty(),
        "the crates are gone from the Bevy world: {names:?}"
    );
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
}

#[test]
fn a_python_script_runs_in_bevy_and_its_error_stops_it_alone() {
    let assets = common::assets("python");
    std::fs::copy(
        common::workspace().join("examples/python-orbiter/app.py"),
        assets.join("orbiter.py"),
    )
    .unwrap();
    let (mut app, log) = common::app(&assets);
    spawn_cube(app.world_mut());
    let handle = app.world().resource::<AssetServer>().load("orbiter.py");
    let entity = app.world_mut().spawn(Script(handle)).id();
    common::run_frames(&mut app, 60);
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
    assert!(
        log.messages()
            .contains(&"python orbiter started".to_owned())
    );
    // A quarter orbit a second, radius 3: from (3, 0, 0) to (0, 0, 3).
    let moon = common::transform(&mut app, "py-moon").translation;
    assert!((moon - Vec3::new(0.0, 0.0, 3.0)).length() < 1e-3, "{moon}");

    // Key E makes it raise: reported, stopped, the app runs on.
    app.world_mut()
        .resource_mut::<game_host_bevy::ScriptInbox>()
        .push(game_host::Event::KeyPressed(game_host::Key::E));
    common::run_frames(&mut app, 2);
    let failures = common::failures(&app);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].entity, entity);
    assert!(
        failures[0].error.contains("orbiter"),
        "{}",
        failures[0].error
    );
    assert!(!running(&app, entity));
    app.update();

    // Its file saved again: the failed script starts again, from scratch.
    let file = assets.join("orbiter.py");
    let source = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, source).unwrap();
    common::update_until(&mut app, "the failed script started again", |app| {
        running(app, entity)
    });
    let starts = log.messages();
    let starts = starts.iter().filter(|m| *m == "python orbiter started");
    assert_eq!(starts.count(), 2);
}

#[test]
fn a_typescript_asset_runs_in_bevy_and_its_throw_names_its_line() {
    let assets = common::assets("typescript");
    std::fs::copy(
        common::workspace().join("host/tests/foreign/ts-probe/app.ts"),
        assets.join("probe.ts"),
    )
    .unwrap();
    let (mut app, log) = common::app(&assets);
    let handle = app.world().resource::<AssetServer>().load("probe.ts");
    let entity = app.world_mut().spawn(Script(handle)).id();
    common::run_frames(&mut app, 30);
    assert!(running(&app, entity));
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
    assert!(log.messages().contains(&"started with types".to_owned()));
    // On its circle of radius 2, moved off its start.
    let probe = common::transform(&mut app, "ts-probe").translation;
    assert!((probe.length() - 2.0).abs() < 1e-3, "{probe}");
    assert!(probe.z > 0.1, "{probe}");

    // Its 90th update throws: the error names the `.ts` line.
    common::run_frames(&mut app, 90);
    let failures = common::failures(&app);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].entity, entity);
    assert!(
        failures[0].error.contains("probe.ts:53:") && failures[0].error.contains("ninety updates"),
        "{}",
        failures[0].error
    );
}

/// A Python mod of two modules (`app.py` importing `orbit.py`) in its own
/// folder under the assets, loaded as `probe-mod/app.py` or (as a game
/// loads a mod from elsewhere) by its full path: it runs 90 frames on its
/// two modules. Returns the app, its log, the mod's folder and the entity.
fn python_mod_of_two_modules(
    test: &str,
    full_path: bool,
) -> (App, Arc<MemoryLog>, std::path::PathBuf, Entity) {
    let assets = common::assets(test);
    let project = assets.join("probe-mod");
    std::fs::create_dir_all(&project).unwrap();
    let from = common::workspace().join("host/tests/foreign/py-modules");
    for file in ["app.py", "orbit.py"] {
        std::fs::copy(from.join(file), project.join(file)).unwrap();
    }
    let (mut app, log) = match full_path {
        true => common::app_allowing_full_paths(&assets),
        false => common::app(&assets),
    };
    let path = match full_path {
        true => project
            .join("app.py")
            .canonicalize()
            .unwrap()
            .display()
            .to_string(),
        false => "probe-mod/app.py".to_owned(),
    };
    let handle = app.world().resource::<AssetServer>().load(path);
    let entity = app.world_mut().spawn(Script(handle)).id();
    common::run_frames(&mut app, 60);
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
    assert_eq!(
        log.messages(),
        [r#"{"start": 0.0, "dice": [3, 2, 4]}"#],
        "{:?}",
        log.messages()
    );
    // orbit.py's circle: radius 2, at 1 rad/s.
    let before = probe_angle(&mut app);
    common::run_frames(&mut app, 30);
    let turned = (probe_angle(&mut app) - before).rem_euclid(std::f64::consts::TAU);
    assert!((turned - 0.5).abs() < 1e-3, "turned {turned}");
    (app, log, project, entity)
}

/// The angle of the probe on its circle of radius 2.
fn probe_angle(app: &mut App) -> f64 {
    let p = common::transform(app, "py-probe").translation;
    assert!((p.length() - 2.0).abs() < 1e-3, "{p}");
    f64::from(p.z).atan2(f64::from(p.x))
}

/// The mod loads as one asset, as under `host run`: the module beside its
/// entry comes along, and an edit to that module alone swaps the script
/// with its state.
#[test]
fn a_python_mod_of_several_modules_loads_as_one_asset_and_swaps_on_either() {
    let (mut app, log, project, entity) = python_mod_of_two_modules("python-modules", false);

    // The second module edited: the script is swapped, its angle handed
    // over (logged by the new version's start), and it turns twice as fast.
    let orbit = project.join("orbit.py");
    let text = std::fs::read_to_string(&orbit).unwrap();
    std::fs::write(&orbit, text.replace("SPEED = 1.0", "SPEED = 2.0")).unwrap();
    common::update_until(&mut app, "the edited module swapped in", |_| {
        log.messages().len() == 2
    });
    let restored = &log.messages()[1];
    assert!(
        restored.starts_with(r#"{"start": "#) && !restored.starts_with(r#"{"start": 0.0,"#),
        "{restored}"
    );
    let before = probe_angle(&mut app);
    common::run_frames(&mut app, 30);
    let turned = (probe_angle(&mut app) - before).rem_euclid(std::f64::consts::TAU);
    assert!((turned - 1.0).abs() < 1e-3, "turned {turned}");
    assert!(running(&app, entity));
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
}

/// Loaded by its full path, outside what the asset source lists, the mod
/// still takes its second module along.
#[test]
fn a_python_mod_loaded_by_its_full_path_takes_its_modules_along() {
    let (app, _log, _, entity) = python_mod_of_two_modules("python-modules-full-path", true);
    assert!(running(&app, entity));
}

/// A script starts at a step after its instance is made on the background
/// queue: one whose `Script` is removed meanwhile never starts, while the
/// steps and the scripts already running go on.
#[test]
fn a_script_removed_while_its_instance_is_made_never_starts() {
    let (mut app, handle, first) = cube_script_running("making", 1);

    // Hold the background queue: what the next steps ask for is made after.
    let (release, held) = std::sync::mpsc::channel::<()>();
    game_host::background::queue(move || {
        let _ = held.recv_timeout(std::time::Duration::from_secs(60));
    });
    let removed = app.world_mut().spawn(Script(handle.clone())).id();
    let kept = app.world_mut().spawn(Script(handle)).id();
    let before = common::transform(&mut app, "cube").rotation;
    common::run_frames(&mut app, 3);
    assert!(!running(&app, removed) && !running(&app, kept));
    let turned = common::transform(&mut app, "cube").rotation;
    assert!(turned.angle_between(before) > 0.05, "the first runs on");
    app.world_mut().entity_mut(removed).remove::<Script>();
    common::run_frames(&mut app, 1);

    release.send(()).unwrap();
    common::update_until(&mut app, "the kept script started", |app| {
        running(app, kept)
    });
    common::run_frames(&mut app, 5);
    assert!(!running(&app, removed), "a removed Script never started");
    assert!(running(&app, first));
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
}
