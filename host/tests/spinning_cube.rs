//! The spinning-cube example, built from source and run frame by frame.

mod common;

use std::f32::consts::FRAC_PI_2;

use glam::Quat;

/// The example's documented speed: a quarter turn per second about Y.
const ANGULAR_SPEED: f32 = FRAC_PI_2;

#[test]
fn rotation_after_60_frames_at_60_hz_is_analytic() {
    let engine = common::engine();
    let cube = common::load(&engine, "spinning-cube");
    let (mut runtime, log) = common::runtime();
    runtime.spawn(&cube).unwrap();

    runtime.run_frames(60);

    let expected = Quat::from_rotation_y(ANGULAR_SPEED * 1.0);
    let actual = common::transform(&runtime, "cube").rotation;
    for (a, e) in actual.to_array().iter().zip(expected.to_array()) {
        assert!(
            (a - e).abs() < 1e-4,
            "rotation {actual:?}, expected {expected:?}"
        );
    }
    assert_eq!(runtime.frame(), 60);
    assert!(runtime.inspect().errors().is_empty());
    assert_eq!(log.messages(), ["spinning cube started"]);
}

#[test]
fn rotation_follows_the_clock_at_other_rates() {
    let engine = common::engine();
    let cube = common::load(&engine, "spinning-cube");
    let log = std::sync::Arc::new(game_host::log::MemoryLog::new());
    let mut runtime = game_host::Runtime::new(game_host::RuntimeConfig {
        hz: 30.0,
        log,
        ..game_host::RuntimeConfig::default()
    });
    runtime.spawn(&cube).unwrap();

    runtime.run_frames(45); // 1.5 s of game time

    let expected = Quat::from_rotation_y(ANGULAR_SPEED * 1.5);
    let actual = common::transform(&runtime, "cube").rotation;
    assert!(
        actual.abs_diff_eq(expected, 1e-4),
        "{actual:?} vs {expected:?}"
    );
}

#[test]
fn resource_table_does_not_grow_over_100k_frames() {
    const FRAMES: u64 = 100_000;
    let engine = common::engine();
    let cube = common::load(&engine, "spinning-cube");
    let (mut runtime, _log) = common::runtime();
    let id = runtime.spawn(&cube).unwrap();

    runtime.run_frames(FRAMES);

    let info = runtime.inspect().instance(id).expect("still running");
    // One `cube-transform()` handle per frame, each dropped by the guest
    // and deleted from the table, so its slot is reused every frame.
    assert_eq!(info.handles.created, FRAMES);
    assert_eq!(info.handles.live, 0);
    assert!(
        info.handles.highest_index < 4,
        "table index grew to {}",
        info.handles.highest_index
    );
    assert!(info.table_empty);
    assert!(runtime.inspect().errors().is_empty());
}
