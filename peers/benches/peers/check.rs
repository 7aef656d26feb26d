//! The peer benchmark's first step: the three sides compute the same
//! transforms and results, or nothing is timed.

use std::hint::black_box;

use game_host::ScriptComponent;
use glam::Vec3;
use peers::scripts;

use super::native::{
    fib, native_behaviour_scene, native_behaviours, native_cube, native_scene, position, rotation,
    transform_after,
};
use super::{BEHAVIOURS, MANY, lua, wasm};

/// 60 updates of each cube, then of the many, the behaviours and fib(25):
/// every side agrees with the native one.
pub fn same_results(cube: &ScriptComponent, peers: &ScriptComponent, fib_script: &ScriptComponent) {
    let mut w = wasm(cube, &[]);
    let mut k = wasm(peers, &["peers:kept"]);
    let mut kh = wasm(peers, &["peers:kept-handle"]);
    let mut kt = wasm(peers, &["peers:kept-transform"]);
    let (l, ls) = lua(scripts::CUBE);
    let (lk, lks) = lua(scripts::CUBE_KEPT);
    let native = native_scene();
    for _ in 0..60 {
        w.step();
        k.step();
        kh.step();
        kt.step();
        l.update().unwrap();
        lk.update().unwrap();
        native_cube(&native, None);
    }
    let expected = rotation(&native);
    for (side, got) in [
        ("wasm", rotation(w.scene())),
        ("wasm, id kept", rotation(k.scene())),
        ("wasm, handle kept", rotation(kh.scene())),
        ("wasm, TransformComponent kept", rotation(kt.scene())),
        ("lua", rotation(&ls)),
        ("lua, kept", rotation(&lks)),
    ] {
        assert!(
            got.abs_diff_eq(expected, 1e-5),
            "{side}: cube at {got}, native at {expected}"
        );
    }
    let mut w = wasm(peers, &["peers:many"]);
    let (l, ls) = lua(scripts::MANY);
    for _ in 0..3 {
        w.step();
        l.update().unwrap();
    }
    for name in ["e0", "e4321", "e9999"] {
        let i: f32 = name[1..].parse().unwrap();
        assert_eq!(
            position(w.scene(), name),
            Vec3::new(i, 3.0, 0.0),
            "wasm {name}"
        );
        assert_eq!(position(&ls, name), Vec3::new(i, 3.0, 0.0), "lua {name}");
    }
    let mut w = wasm(peers, &["peers:batched"]);
    for _ in 0..3 {
        w.step();
    }
    for i in [0, 4321, MANY - 1] {
        assert_eq!(
            transform_after(w.scene(), "batched", i).position,
            Vec3::new(i as f32, 3.0, 0.0),
            "wasm batched {i}"
        );
    }
    let mut w = wasm(peers, &[&format!("peers:behaviours:{BEHAVIOURS}")]);
    let (l, ls) = lua(&scripts::behaviours(BEHAVIOURS));
    let (native, ids) = native_behaviour_scene(BEHAVIOURS);
    for _ in 0..60 {
        w.step();
        l.update().unwrap();
        native_behaviours(&native, &ids);
    }
    for i in [0, 1, 2, 3, 4321, BEHAVIOURS - 1] {
        let expected = transform_after(&native, "b", i).rotation;
        for (side, scene) in [("wasm", w.scene()), ("lua", &ls)] {
            let got = transform_after(scene, "b", i).rotation;
            assert!(
                got.abs_diff_eq(expected, 1e-5),
                "{side} behaviour {i}: {got}, native {expected}"
            );
        }
    }
    let (l, _) = lua(scripts::FIB);
    l.update().unwrap();
    assert_eq!(l.global::<u64>("last").unwrap(), 75_025);
    assert_eq!(fib(black_box(25)), 75_025);
    let mut w = wasm(fib_script, &[]);
    w.step(); // the script asserts fib(25) == 75025 itself
    assert!(
        w.inspect().errors().is_empty(),
        "{:?}",
        w.inspect().errors()
    );
    println!("checked: the three sides compute the same transforms and results");
}
