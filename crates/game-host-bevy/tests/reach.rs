//! Scripts reaching the whole game in a real headless Bevy `App`: queries
//! over the game's own components, a resource a game system writes
//! before the scripts' set, messages both ways, the entities the game
//! offers and those it keeps, and the one-line errors of bad calls.

mod common;

use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use game_host_bevy::{
    GameHostPlugin, Script, ScriptAccess, ScriptApp, ScriptInbox, ScriptReach, ScriptStarted,
    ScriptSystems, ScriptVisible,
};

#[derive(Component, Reflect, Default)]
#[reflect(Component, Default)]
struct Health {
    value: i32,
}

#[derive(Component, Reflect, Default)]
#[reflect(Component, Default)]
struct Enemy;

/// Written by the game each step, before the scripts' set.
#[derive(Resource, Reflect, Default)]
#[reflect(Resource)]
struct Sensor {
    value: u32,
}

/// What the game saw of `Sensor` each step, after the scripts' set.
#[derive(Resource, Default)]
struct SensorHistory(Vec<u32>);

#[derive(Message, Reflect, Default, Clone)]
struct Hit {
    damage: i32,
}

/// The damage the game counted from scripts' `Hit`s.
#[derive(Resource, Default)]
struct Damage(i32);

/// Started scripts, as the game hears of them.
#[derive(Resource, Default)]
struct Started(Vec<ScriptStarted>);

fn sense(mut sensor: ResMut<Sensor>) {
    sensor.value += 1;
}

fn remember(sensor: Res<Sensor>, mut history: ResMut<SensorHistory>) {
    history.0.push(sensor.value);
}

fn count_hits(mut hits: MessageReader<Hit>, mut damage: ResMut<Damage>) {
    damage.0 += hits.read().map(|hit| hit.damage).sum::<i32>();
}

fn keep_started(mut started: MessageReader<ScriptStarted>, mut kept: ResMut<Started>) {
    kept.0.extend(started.read().copied());
}

/// The game: a camera it keeps, three goblins and an ally it offers.
fn game(app: &mut App) -> (Entity, Vec<Entity>, Entity) {
    app.register_script_component::<Health>(ScriptAccess::ReadWrite)
        .register_script_component::<Enemy>(ScriptAccess::Read)
        .init_resource::<Sensor>()
        .init_resource::<SensorHistory>()
        .init_resource::<Damage>()
        .init_resource::<Started>()
        .register_script_resource::<Sensor>(ScriptAccess::Read)
        .register_script_message::<Hit>()
        .add_systems(FixedUpdate, sense.before(ScriptSystems))
        .add_systems(FixedUpdate, (remember, count_hits).after(ScriptSystems))
        .add_systems(Update, keep_started);
    let world = app.world_mut();
    let camera = world
        .spawn((Name::new("camera"), Transform::from_xyz(0.0, 5.0, 10.0)))
        .id();
    let goblins = (0..3)
        .map(|k| {
            let name = Name::new(format!("goblin-{k}"));
            let health = Health { value: 10 };
            world
                .spawn((name, Transform::default(), health, Enemy, ScriptVisible))
                .id()
        })
        .collect();
    let ally = (
        Name::new("ally"),
        Transform::default(),
        Health { value: 10 },
    );
    let ally = world.spawn((ally, ScriptVisible)).id();
    (camera, goblins, ally)
}

fn start_script(app: &mut App) -> Entity {
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("game-reach.wasm");
    app.world_mut().spawn(Script(handle)).id()
}

#[test]
fn scripts_query_the_games_components_read_its_resources_and_send_it_messages() {
    let assets = common::assets("reach");
    common::script(&assets, "game-reach");
    let (mut app, log) = common::app(&assets);
    let (camera, goblins, ally) = game(&mut app);
    let script = start_script(&mut app);
    common::run_frames(&mut app, 10);
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
    let messages = log.messages();

    // The camera is the game's own: not found, not queried, not moved.
    assert!(
        messages.contains(&"camera: false".to_owned()),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"none: 0 (Ok(0), Ok(0))".to_owned()),
        "{messages:?}"
    );
    let names = messages
        .iter()
        .find_map(|m| m.strip_prefix("names: "))
        .unwrap();
    let mut names: Vec<&str> = names.split(',').collect();
    names.sort_unstable();
    assert_eq!(names, ["ally", "goblin-0", "goblin-1", "goblin-2"]);
    let world = app.world();
    assert_eq!(
        world.get::<Transform>(camera).unwrap().translation,
        Vec3::new(0.0, 5.0, 10.0)
    );

    // The query's write of `Health` reached only the enemies, one a step;
    // its write of positions every entity it can reach.
    for &goblin in &goblins {
        assert_eq!(world.get::<Health>(goblin).unwrap().value, 0);
        assert_eq!(world.get::<Transform>(goblin).unwrap().translation.x, 10.0);
    }
    assert_eq!(world.get::<Health>(ally).unwrap().value, 10);

    // A system before `ScriptSystems` has its write read in the same step.
    let read: Vec<u32> = messages
        .iter()
        .filter_map(|m| m.strip_prefix("sensor ")?.parse().ok())
        .collect();
    let history = &world.resource::<SensorHistory>().0;
    assert_eq!(read.len(), 10);
    assert_eq!(
        read[..],
        history[history.len() - 10..],
        "{read:?} against {history:?}"
    );

    // Ten `Hit { damage: 2 }`, counted by a game system in their step.
    assert_eq!(world.resource::<Damage>().0, 20);
    let started = &world.resource::<Started>().0;
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].entity, script);

    // An entity the game unmarks is gone for scripts: no longer queried.
    app.world_mut()
        .entity_mut(goblins[0])
        .remove::<ScriptVisible>();
    common::run_frames(&mut app, 2);
    let world = app.world();
    assert_eq!(world.get::<Health>(goblins[0]).unwrap().value, 0);
    assert_eq!(world.get::<Health>(goblins[1]).unwrap().value, -2);
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );

    // Each bad call: one line naming the component, field, resource or
    // message type; the script and the game ran on.
    let errors: Vec<&str> = (messages.iter())
        .filter_map(|m| m.strip_prefix("error: "))
        .collect();
    let expected = [
        "queries: no component named `Nope` is registered for scripts (registered: Enemy, Health)",
        "queries: component `Health` has no field `valu`",
        "queries: `Health` names no field",
        "queries: cannot write `Health.value` of entity 1: the field is an integer and the value a text",
        "queries: the column of `Health.value` holds 1 values for 3 ids",
        "queries: `Name` is read-only",
        "resources: no resource named `Nope` is registered for scripts (registered: Time, Sensor)",
        "resources: scripts read `Time`; the game's clock sets it",
        "game-messages: no message type named `Nope` is registered for scripts (registered: Hit)",
        "game-messages: cannot set `damage` of message `Hit`: the field is an integer and the value a text",
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for (error, expected) in errors.iter().zip(expected) {
        assert!(error.starts_with(expected), "{error}\nexpected {expected}");
    }
}

#[test]
fn the_game_sets_what_scripts_reach_and_where_they_run() {
    // Every named, transformed entity (the reach before marks), and the
    // scripts run in `Update` rather than `FixedUpdate`.
    let assets = common::assets("reach-named");
    common::script(&assets, "game-reach");
    let (mut app, log) = common::app_with(
        &assets,
        GameHostPlugin {
            reach: ScriptReach::Named,
            schedule: Update.intern(),
            ..common::plugin()
        },
    );
    let (camera, _, _) = game(&mut app);
    start_script(&mut app);
    common::run_frames(&mut app, 3);
    assert!(
        common::failures(&app).is_empty(),
        "{:?}",
        common::failures(&app)
    );
    assert!(log.messages().contains(&"camera: true".to_owned()));
    let camera = app.world().get::<Transform>(camera).unwrap().translation;
    assert_eq!(camera, Vec3::new(3.0, 5.0, 10.0));
}

#[test]
fn a_games_messages_reach_scripts_as_events_with_json_fields() {
    // `Hit`s the game writes reach a script listening on `Hit`, beside the
    // string inbox: `counter` echoes each message it hears to the log.
    let assets = common::assets("reach-events");
    common::script(&assets, "game-reach");
    let (mut app, log) = common::app(&assets);
    game(&mut app);
    start_script(&mut app);
    common::run_frames(&mut app, 1);
    app.world_mut().write_message(Hit { damage: 7 });
    app.world_mut()
        .resource_mut::<ScriptInbox>()
        .send("Hit", "{\"damage\":1}");
    common::run_frames(&mut app, 2);
    let heard: Vec<String> = (log.messages().into_iter())
        .filter(|m| m.starts_with("heard "))
        .collect();
    assert!(
        heard.contains(&"heard Hit {\"damage\":7}".to_owned()),
        "{heard:?}"
    );
    assert!(
        heard.contains(&"heard Hit {\"damage\":1}".to_owned()),
        "{heard:?}"
    );
    // The script's own `Hit`s come back to it too, as the game's.
    assert!(
        heard.contains(&"heard Hit {\"damage\":2}".to_owned()),
        "{heard:?}"
    );
}
