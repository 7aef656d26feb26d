//! The plugin's side: the `peers` script as an asset, on Bevy's entities.

use std::sync::Arc;

use bevy::prelude::*;
use game_host::log::MemoryLog;
use game_host_bevy::{GameHostPlugin, Script, ScriptAccess, ScriptApp, ScriptHost, ScriptVisible};

use crate::{
    MANY, Scenario, Spin, base_app, engine_options, peers_script, quotas, scenario, transforms,
};

/// The script's entity, to ask the host about.
#[derive(Resource)]
struct Runner(Entity);

/// The app, its script loaded and started, its entities spawned.
pub fn app(scenario: Scenario) -> App {
    let mut app = base_app(scenario);
    app.add_plugins(GameHostPlugin {
        engine: engine_options(scenario),
        quotas: quotas(),
        log: Arc::new(MemoryLog::new()),
        ..default()
    });
    if scenario == Scenario::Query {
        // The game's entities, its `Spin` registered for scripts.
        app.register_script_component::<Spin>(ScriptAccess::ReadWrite);
        app.world_mut().spawn_batch((0..MANY).map(|i| {
            let speed = scenario.speed(i);
            (
                Name::new("b"),
                Transform::default(),
                Spin { speed },
                ScriptVisible,
            )
        }));
    }
    let script = app.world().resource::<AssetServer>().load(peers_script());
    let runner = app.world_mut().spawn(Script(script.clone())).id();
    app.world_mut()
        .spawn_batch((1..scenario.instances()).map(move |_| Script(script.clone())));
    app.insert_resource(Runner(runner));
    let expected = match scenario {
        Scenario::Cube => 2,
        _ => 2 + MANY,
    };
    for _ in 0..10_000 {
        app.update();
        let started = app
            .world()
            .get_resource::<ScriptHost>()
            .is_some_and(|host| host.frame() > 0);
        let count = app.world_mut().query::<&Name>().iter(app.world()).count();
        if started && count >= expected {
            return app;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("the peers script did not start in Bevy for {scenario:?}");
}

/// The script still runs and did the work.
pub fn check(app: &mut App) {
    let runner = app.world().resource::<Runner>().0;
    let host = app.world().resource::<ScriptHost>();
    assert!(host.instance_of(runner).is_some(), "the script stopped");
    let scenario = *app.world().resource::<Scenario>();
    scenario::check(scenario, transforms(app));
}
