//! The native side, a Bevy system doing each scenario's work in Rust, and
//! the idle app: the same entities, nothing moving them.

use bevy::prelude::*;

use crate::{HZ, MANY, SPEED, Scenario, Spin, base_app, cube};

/// Which of the moved entities this is: `i`, and a behaviour's speed.
#[derive(Component)]
struct Mover {
    i: usize,
    speed: f32,
}

/// Fixed steps run, as the scripts' frame.
#[derive(Resource, Default)]
struct Frame(u64);

/// The app with the scenario's entities and nothing moving them.
pub fn idle(scenario: Scenario) -> App {
    let mut app = base_app(scenario);
    spawn(&mut app, scenario);
    app.update();
    app
}

/// The app whose system does the scenario's work.
pub fn app(scenario: Scenario) -> App {
    let mut app = idle(scenario);
    app.init_resource::<Frame>();
    match scenario {
        Scenario::Cube | Scenario::Behaviours | Scenario::Scripts => {
            app.add_systems(FixedUpdate, turn)
        }
        Scenario::Many | Scenario::Batched => app.add_systems(FixedUpdate, place),
        Scenario::Query => app.add_systems(FixedUpdate, spin),
    };
    app.update();
    app
}

/// The moved entities: the cube, or 10,000 named as the script names its own.
fn spawn(app: &mut App, scenario: Scenario) {
    let world = app.world_mut();
    if scenario == Scenario::Cube {
        let cube = cube(world);
        world.entity_mut(cube).insert(Mover { i: 0, speed: 1.0 });
        return;
    }
    world.spawn_batch((0..MANY).map(move |i| {
        let speed = scenario.speed(i);
        (
            Name::new(scenario.entity_name(i)),
            Transform::default(),
            Mover { i, speed },
            Spin { speed },
        )
    }));
}

fn spin(mut spinning: Query<(&Spin, &mut Transform)>) {
    let dt = (1.0 / HZ) as f32;
    for (spin, mut t) in &mut spinning {
        t.rotation = (Quat::from_rotation_y(spin.speed * SPEED * dt) * t.rotation).normalize();
    }
}

fn turn(mut movers: Query<(&Mover, &mut Transform)>) {
    let dt = (1.0 / HZ) as f32;
    for (mover, mut t) in &mut movers {
        t.rotation = (Quat::from_rotation_y(mover.speed * SPEED * dt) * t.rotation).normalize();
    }
}

fn place(mut frame: ResMut<Frame>, mut movers: Query<(&Mover, &mut Transform)>) {
    frame.0 += 1;
    let y = frame.0 as f32;
    for (mover, mut t) in &mut movers {
        t.translation = Vec3::new(mover.i as f32, y, 0.0);
    }
}
