//! The batched `entities` API and entity behaviours (game:engine@0.1.4),
//! and one entity kept by id (`entity`, 0.1.5), through `scripts/peers`
//! built from source: many entities moved by one script in a few calls per
//! frame, checked entity by entity.

mod common;

use game_host::Runtime;
use game_host::scene::EntityId;
use game_host::scene::GameScene;
use game_host::sync::LockExt;
use glam::{Quat, Vec3};

const DT: f32 = 1.0 / 60.0;

/// The peers script in `mode`, beside the spinning cube.
fn peers(mode: &str) -> Runtime {
    let engine = common::engine();
    let (mut runtime, _log) = common::runtime();
    runtime.scene().lock_unpoisoned().spawn(mode);
    runtime.spawn(&common::load(&engine, "peers")).unwrap();
    runtime
        .spawn(&common::load(&engine, "spinning-cube"))
        .unwrap();
    runtime
}

/// The transform of the entity `offset` after the first one named `name`.
fn after(runtime: &Runtime, name: &str, offset: usize) -> game_host::Transform {
    let mut scene = runtime.scene().lock_unpoisoned();
    let first = scene.find(name).expect(name).index();
    scene
        .transform(EntityId::from((first + offset) as u32))
        .unwrap()
}

/// Calls the host has made into the peers script so far.
fn calls(runtime: &Runtime) -> u64 {
    runtime
        .inspect()
        .instances()
        .iter()
        .find(|i| i.name == "test_peers")
        .unwrap()
        .calls
}

/// Calls the host makes into the peers script while `runtime` runs
/// `frames` frames.
fn calls_in(runtime: &mut Runtime, frames: u64) -> u64 {
    let before = calls(runtime);
    runtime.run_frames(frames);
    calls(runtime) - before
}

#[test]
fn buffered_writes_move_ten_thousand_entities_in_one_update_call() {
    let mut runtime = peers("peers:batched");
    runtime.run_frames(3);
    assert_eq!(calls_in(&mut runtime, 2), 2, "one call per frame");
    for i in [0, 1, 4321, 9_999] {
        assert_eq!(
            after(&runtime, "batched", i).position,
            Vec3::new(i as f32, 5.0, 0.0),
            "entity {i}"
        );
    }
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    // The cube ran beside it: 5 frames at a quarter turn per second.
    let cube = common::transform(&runtime, "cube").rotation;
    let expected = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2 * DT * 5.0);
    assert!(cube.abs_diff_eq(expected, 1e-5), "{cube}");
}

#[test]
fn buffered_writes_of_mixed_kinds_land_in_the_order_made() {
    let mut runtime = peers("peers:mixed");
    // One frame: the reads can only see this frame's writes.
    runtime.run_frames(1);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    let turn = Quat::from_rotation_y(0.5);
    let t: Vec<game_host::Transform> = (0..4).map(|i| after(&runtime, "mixed", i)).collect();
    assert_eq!(t[0].position, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(t[0].rotation, turn);
    assert_eq!(t[1].position, Vec3::new(4.0, 5.0, 6.0));
    assert_eq!(t[1].rotation, Quat::IDENTITY, "only its position written");
    assert_eq!(
        t[2].position,
        Vec3::new(10.0, 11.0, 12.0),
        "last write wins"
    );
    assert_eq!((t[2].rotation, t[2].scale), (turn, Vec3::splat(2.0)));
    assert_eq!(t[3].position, Vec3::new(14.0, 16.0, 18.0), "reads flush");
    assert!(
        t[3].rotation.abs_diff_eq(turn * turn, 1e-6),
        "{}",
        t[3].rotation
    );
}

#[test]
fn transform_component_writes_are_buffered_in_order_and_reads_see_them() {
    let mut runtime = peers("peers:components");
    runtime.run_frames(1);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    let turn = Quat::from_rotation_y(0.5);
    let t: Vec<game_host::Transform> = (0..3).map(|i| after(&runtime, "components", i)).collect();
    assert_eq!(t[0].position, Vec3::new(1.0, 2.0, 3.0));
    assert!(
        t[0].rotation.abs_diff_eq(turn * turn, 1e-6),
        "{}",
        t[0].rotation
    );
    assert_eq!(t[1].position, Vec3::new(2.0, 3.0, 4.0), "reads flush");
    assert_eq!(t[2].position, Vec3::splat(8.0), "the later write wins");
    assert_eq!(t[2].rotation, turn);
    let raw = Quat::from_rotation_z(8.0);
    assert!(
        t[1].rotation.abs_diff_eq(raw, 1e-6),
        "the raw resource saw the buffered writes: {}",
        t[1].rotation
    );
}

#[test]
fn ten_thousand_transform_components_move_in_one_update() {
    let mut runtime = peers("peers:many");
    runtime.run_frames(3);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    for i in [0, 1, 4321, 9_999] {
        assert_eq!(
            common::transform(&runtime, &format!("e{i}")).position,
            Vec3::new(i as f32, 3.0, 0.0),
            "entity {i}"
        );
    }
}

#[test]
fn an_entity_kept_by_id_turns_as_one_kept_by_handle() {
    // The peers script and the spinning cube both turn the cube a quarter
    // turn per second. The cube's `rotate` is a relative write, applied
    // after the frame's calls on what the peers script left (by id: it read
    // the rotation the frame began with and set it turned; kept by a
    // transform or a handle: a relative write too), so both turns count and
    // the cube turns twice a frame (docs/parallel-frames.md).
    let mut expected = Quat::IDENTITY;
    let turn = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2 * DT);
    for _ in 0..10 {
        expected = (turn * (turn * expected).normalize()).normalize();
    }
    for mode in ["peers:kept", "peers:kept-transform", "peers:kept-handle"] {
        let mut runtime = peers(mode);
        runtime.run_frames(10);
        assert!(
            runtime.inspect().errors().is_empty(),
            "{mode}: {:?}",
            runtime.inspect().errors()
        );
        let cube = common::transform(&runtime, "cube").rotation;
        assert!(
            cube.abs_diff_eq(expected, 1e-5),
            "{mode}: {cube} vs {expected}"
        );
    }
}

#[test]
fn a_thousand_behaviours_run_in_one_call_per_frame() {
    let mut runtime = peers("peers:behaviours:1000");
    runtime.run_frames(1);
    assert_eq!(calls_in(&mut runtime, 59), 59, "one call per frame");
    // Attached in entrypoint, each has run every frame since the first, at
    // its own speed (1, 2, 3, 4, 1, ...).
    for i in [0, 1, 2, 3, 4, 999] {
        let speed = (i % 4 + 1) as f32;
        let mut expected = Quat::IDENTITY;
        for _ in 0..60 {
            expected = (Quat::from_rotation_y(speed * std::f32::consts::FRAC_PI_2 * DT) * expected)
                .normalize();
        }
        let t = after(&runtime, "b", i);
        assert!(
            t.rotation.abs_diff_eq(expected, 1e-5),
            "behaviour {i}: {} vs {expected}",
            t.rotation
        );
        assert_eq!((t.position, t.scale), (Vec3::ZERO, Vec3::ONE), "{i}");
    }
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
}

#[test]
fn the_swarm_example_orbits_five_thousand_entities() {
    let engine = common::engine();
    let (mut runtime, log) = common::runtime();
    runtime.spawn(&common::load(&engine, "swarm")).unwrap();
    runtime.run_frames(120);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    assert!(
        log.records()
            .iter()
            .any(|r| r.message == "5000 behaviours attached"),
        "{:?}",
        log.records()
    );
    // Entity i: ring i % 10, height from i % 7, starting angle i * 0.618,
    // advanced by its speed for 120 frames (as the example computes it).
    for i in [0usize, 1, 2_345, 4_999] {
        let ring = (i % 10) as f32;
        let (radius, speed) = (2.0 + ring * 0.5, 1.0 / (1.0 + ring * 0.25));
        let mut angle = i as f32 * 0.618;
        for _ in 0..120 {
            angle += speed * DT;
        }
        let (sin, cos) = angle.sin_cos();
        let expected = Vec3::new(cos * radius, (i % 7) as f32 * 0.2 - 0.6, sin * radius);
        let t = after(&runtime, "swarm", i);
        assert!(
            t.position.abs_diff_eq(expected, 1e-4),
            "entity {i}: {} vs {expected}",
            t.position
        );
        assert_eq!(t.scale, Vec3::splat(0.05));
    }
}
