//! The native side of the scenarios, and reading results back from a scene.

use std::hint::black_box;

use std::sync::{Arc, Mutex};

use game_host::scene::{EntityId, GameScene, Scene, Transform};
use game_host::sync::LockExt;
use glam::{Quat, Vec3};

use super::{DT, SPEED};

/// The native side's scene: the core's own, called directly (not through
/// the `GameScene` seam that scripts and Lua go through).
pub(crate) type NativeScene = Arc<Mutex<Scene>>;

/// A native scene with the cube.
pub(crate) fn native_scene() -> NativeScene {
    Arc::new(Mutex::new(Scene::with_default_cube()))
}

pub(crate) fn rotation<S: GameScene + ?Sized>(scene: &Mutex<S>) -> Quat {
    let mut scene = scene.lock_unpoisoned();
    let cube = scene.find("cube").unwrap();
    scene.transform(cube).unwrap().rotation
}

pub(crate) fn position<S: GameScene + ?Sized>(scene: &Mutex<S>, name: &str) -> Vec3 {
    transform_after(scene, name, 0).position
}

/// The transform of the entity `offset` places after the first named `name`
/// (entities spawned together have consecutive ids).
pub(crate) fn transform_after<S: GameScene + ?Sized>(
    scene: &Mutex<S>,
    name: &str,
    offset: usize,
) -> Transform {
    let mut scene = scene.lock_unpoisoned();
    let first = scene.find(name).unwrap().index();
    scene
        .transform(EntityId::from((first + offset) as u32))
        .unwrap()
}

/// Speed factor of behaviour `i` (as the wasm and Lua scripts give them).
pub(crate) fn speed(i: usize) -> f32 {
    (i % 4 + 1) as f32
}

/// The native behaviours' update: turn each entity at its own speed.
pub(crate) fn native_behaviours(scene: &NativeScene, ids: &[EntityId]) {
    let mut scene = scene.lock_unpoisoned();
    let dt = black_box(DT);
    for (i, id) in ids.iter().enumerate() {
        let t = scene.transform_mut(*id).unwrap();
        t.rotation = (Quat::from_rotation_y(speed(i) * SPEED * dt) * t.rotation).normalize();
    }
}

/// `count` entities named `b` in a fresh scene (with the cube), for the
/// native behaviours.
pub(crate) fn native_behaviour_scene(count: usize) -> (NativeScene, Vec<EntityId>) {
    let scene = native_scene();
    let ids = {
        let mut s = scene.lock_unpoisoned();
        (0..count).map(|_| s.spawn("b")).collect()
    };
    (scene, ids)
}

/// The native spinning-cube update: find the cube (or use its id), rotate.
pub(crate) fn native_cube(scene: &NativeScene, kept: Option<EntityId>) {
    let mut scene = scene.lock_unpoisoned();
    let id = kept.unwrap_or_else(|| scene.find(black_box("cube")).unwrap());
    let t = scene.transform_mut(id).unwrap();
    t.rotation = (Quat::from_rotation_y(SPEED * black_box(DT)) * t.rotation).normalize();
}

/// Steps of the quaternion loop per update (the peers script's `QUAT_LOOP`).
pub(crate) const QUAT_LOOP: usize = 10_000;

/// The quaternion loop: `q` turned `QUAT_LOOP` times about y, normalised
/// at each step.
pub(crate) fn native_quat(q: Quat) -> Quat {
    let step = Quat::from_rotation_y(black_box(0.001));
    let mut q = q;
    for _ in 0..QUAT_LOOP {
        q = (step * q).normalize();
    }
    q
}

pub(crate) fn fib(n: u64) -> u64 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}
