//! Benchmark script for `benches/peers.rs`. Its mode comes from the scene:
//!
//! - an entity named `peers:kept`: the spinning cube, keeping its entity
//!   id in the script's state and turning it by id (WIT `entity`: flat
//!   values, no resource borrowed);
//! - an entity named `peers:kept-transform`: the same as the script
//!   `host new` writes, keeping the SDK's `TransformComponent` and calling
//!   its `rotate`;
//! - an entity named `peers:kept-handle`: the same, keeping the raw WIT
//!   `transform-component` resource (each method borrows it per call);
//! - an entity named `peers:many`: spawns 10,000 entities in `entrypoint`,
//!   keeps their `TransformComponent`s, and every update sets each one's
//!   position to `(i, frame, 0)` (the SDK buffers the writes: one host call
//!   for all of them);
//! - an entity named `peers:batched`: the same through the batched
//!   `entities` API (buffered writes, flushed in one call per update);
//! - an entity named `peers:mixed` (a test, not a benchmark): every update
//!   buffers writes of each kind to four entities, overlapping, and reads
//!   one back in between, so the order of buffered writes is checked;
//! - an entity named `peers:components` (a test): the same for writes
//!   through kept `TransformComponent`s, mixed with relative turns, reads,
//!   reads of the raw resource and a buffered `entities` write;
//! - an entity named `peers:behaviours:N`: spawns N entities in one call
//!   and attaches a [`Spin`] behaviour to each, which turns its entity like
//!   the spinning cube, at a speed of its own;
//! - an entity named `peers:query`: each update one query reads the
//!   `Spin.speed` and rotation of every entity with a `Spin`, turns each
//!   at its own speed, and one write sets the rotations. Where none has a
//!   `Spin` (the core's scene) it spawns 10,000 `b` and gives them one
//!   (speeds 1, 2, 3, 4, 1, ...).
//! - an entity named `peers:own`: each instance spawns an entity of its
//!   own, `own`, and turns it as the spinning cube (a game whose every
//!   entity has its script: run it as many instances);
//! - an entity named `peers:quat`: float-heavy code with no host call,
//!   [`QUAT_LOOP`] steps of a rotation integrated and normalised per update,
//!   the result written to the cube.

use script::Script;
use script::behaviour::{self, Behaviour};
use script::bindings::game::engine::scene as wit_scene;
use script::data::Value;
use script::entities::{self, EntityId, Transform};
use script::glam::{Quat, Vec3};
use script::query::{self, Column, Query};
use script::scene::{TransformComponent, TransformExt};
use script::time::FrameClock;

/// Radians per second about world Y, as the spinning-cube example.
const ANGULAR_SPEED: f32 = std::f32::consts::FRAC_PI_2;
/// Entities moved by `peers:many` and `peers:batched`.
pub const MANY: usize = 10_000;
/// Quaternion steps per update of `peers:quat`.
pub const QUAT_LOOP: usize = 10_000;
/// Behaviour counts the bench may ask for.
const BEHAVIOUR_COUNTS: [u32; 4] = [1_000, 10_000, 100_000, 500_000];

/// Turns its entity about Y at `speed` times the cube's speed.
pub struct Spin {
    speed: f32,
}

impl Behaviour for Spin {
    fn update(&mut self, transform: &mut Transform, clock: &FrameClock) {
        let delta = Quat::from_rotation_y(self.speed * ANGULAR_SPEED * clock.delta_time);
        transform.rotation = (delta * transform.rotation).normalize();
    }
}

enum Peers {
    Kept(EntityId),
    KeptTransform(TransformComponent),
    KeptHandle(wit_scene::TransformComponent),
    Many(Vec<TransformComponent>),
    Batched(Vec<EntityId>),
    Mixed(Vec<EntityId>),
    Components(Vec<TransformComponent>),
    Quat(EntityId, Quat),
    Query,
    Idle,
}

/// `peers:query`'s entities where the game has none.
fn spawn_spinning() {
    for (i, id) in entities::spawn_many("b", MANY as u32)
        .into_iter()
        .enumerate()
    {
        let speed = Value::Number((i % 4 + 1) as f64);
        script::data::insert(id, "Spin", &[("speed", speed)]).expect("insert Spin");
    }
}

/// One query, one write: every `Spin` turned at its own speed.
fn turn_queried() {
    let rows = Query::new(&["Spin.speed", "Transform.rotation"])
        .run()
        .expect("query");
    let (speeds, rotations) = (rows.numbers(0).unwrap(), rows.quats(1).unwrap());
    let step = ANGULAR_SPEED * script::time::delta_time();
    let turned: Vec<f32> = (speeds.iter().zip(rotations.as_chunks::<4>().0))
        .flat_map(|(&speed, q)| {
            let delta = Quat::from_rotation_y(speed as f32 * step);
            (delta * Quat::from_array(*q)).normalize().to_array()
        })
        .collect();
    query::write(
        &rows.ids,
        &["Transform.rotation"],
        vec![Column::Quats(turned)],
    )
    .expect("write");
}

/// `q` turned `QUAT_LOOP` times by `step`, normalised at each step.
#[inline(never)]
fn integrate(mut q: Quat, step: Quat) -> Quat {
    for _ in 0..QUAT_LOOP {
        q = (step * q).normalize();
    }
    q
}

impl Script for Peers {
    fn entrypoint() -> Self {
        let found = |name: &str| script::scene::find(name).is_some();
        if let Some(count) = BEHAVIOUR_COUNTS
            .into_iter()
            .find(|n| found(&format!("peers:behaviours:{n}")))
        {
            let ids = entities::spawn_many("b", count);
            // Speeds 1, 2, 3, 4, 1, ...: the bench checks each entity.
            behaviour::attach_all(&ids, |i, _| Spin {
                speed: (i % 4 + 1) as f32,
            });
            return Peers::Idle;
        }
        script::update::subscribe();
        if found("peers:kept") {
            Peers::Kept(script::scene::cube().id())
        } else if found("peers:own") {
            Peers::Kept(script::scene::spawn("own").id())
        } else if found("peers:kept-transform") {
            Peers::KeptTransform(script::scene::cube())
        } else if found("peers:kept-handle") {
            Peers::KeptHandle(wit_scene::cube_transform())
        } else if found("peers:many") {
            Peers::Many(
                (0..MANY)
                    .map(|i| script::scene::spawn(&format!("e{i}")))
                    .collect(),
            )
        } else if found("peers:query") {
            if Query::new(&["Spin.speed"])
                .run()
                .expect("query")
                .ids
                .is_empty()
            {
                spawn_spinning();
            }
            Peers::Query
        } else if found("peers:quat") {
            Peers::Quat(script::scene::cube().id(), Quat::IDENTITY)
        } else if found("peers:components") {
            Peers::Components((0..3).map(|_| script::scene::spawn("components")).collect())
        } else if found("peers:mixed") {
            Peers::Mixed(entities::spawn_many("mixed", 4))
        } else if found("peers:batched") {
            let ids = entities::spawn_many("batched", MANY as u32);
            Peers::Batched(ids)
        } else {
            Peers::Idle
        }
    }

    fn on_update(&mut self) {
        match self {
            Peers::Quat(cube, q) => {
                *q = integrate(*q, Quat::from_rotation_y(0.001));
                entities::set_rotation(*cube, *q);
            }
            Peers::Kept(cube) => {
                let delta = Quat::from_rotation_y(ANGULAR_SPEED * script::time::delta_time());
                entities::set_rotation(*cube, (delta * entities::rotation(*cube)).normalize());
            }
            Peers::KeptTransform(cube) => {
                cube.rotate(Quat::from_rotation_y(
                    ANGULAR_SPEED * script::time::delta_time(),
                ));
            }
            Peers::KeptHandle(cube) => {
                cube.rotate(Quat::from_rotation_y(
                    ANGULAR_SPEED * script::time::delta_time(),
                ));
            }
            Peers::Many(entities) => {
                let frame = script::time::frame() as f32;
                for (i, entity) in entities.iter().enumerate() {
                    entity.set_translation(Vec3::new(i as f32, frame, 0.0));
                }
            }
            Peers::Batched(ids) => {
                let frame = script::time::frame() as f32;
                for (i, &id) in ids.iter().enumerate() {
                    entities::set_position(id, Vec3::new(i as f32, frame, 0.0));
                }
            }
            Peers::Mixed(ids) => {
                let turn = Quat::from_rotation_y(0.5);
                entities::set_position(ids[0], Vec3::new(1.0, 2.0, 3.0));
                entities::set_rotation(ids[0], turn);
                entities::set_position(ids[1], Vec3::new(4.0, 5.0, 6.0));
                entities::set_transform(
                    ids[2],
                    Transform {
                        position: Vec3::splat(7.0),
                        rotation: turn,
                        scale: Vec3::splat(2.0),
                    },
                );
                // Later writes win over earlier ones of another kind.
                entities::set_position(ids[2], Vec3::new(10.0, 11.0, 12.0));
                // A read sees every write buffered before it.
                let read = entities::position(ids[1]) + entities::position(ids[2]);
                entities::set_position(ids[3], read);
                entities::set_rotation(ids[3], entities::rotation(ids[0]) * turn);
            }
            Peers::Components(c) => {
                let turn = Quat::from_rotation_y(0.5);
                c[0].set_position(Vec3::new(1.0, 2.0, 3.0));
                // A read sees the write buffered before it.
                c[1].set_position(c[0].position() + Vec3::ONE);
                // A relative turn lands after the set before it.
                c[0].set_rotation(turn);
                c[0].rotate(turn);
                // Kinds interleave in order: the component's writes, then
                // a buffered `entities` write of the same entity.
                c[2].set_rotation(turn);
                c[2].set_position(Vec3::splat(7.0));
                entities::set_position(c[2].id(), Vec3::splat(8.0));
                // The raw resource sees every write before it.
                let raw = c[2].handle().position();
                c[1].set_rotation(Quat::from_rotation_z(raw.x));
            }
            Peers::Query => turn_queried(),
            Peers::Idle => {}
        }
    }
}

script::export!(Peers);
