//! The peer benchmark: the same game-script scenarios run through this host
//! (wasm), through Lua embedded with mlua (LuaJIT by default, Lua 5.4 with
//! `--no-default-features --features lua54`), and natively, in one process.
//!
//! Each scenario first checks that the three sides compute the same result,
//! then times them in interleaved rounds (wasm, Lua, native, wasm, ...) so
//! that noise hits all sides alike, and prints medians in ns per operation
//! and the ratios. Lua gets one state per script, as the host gets one
//! instance per script. One row is no scenario but wasmtime's own call,
//! the part of the bare frame the host cannot remove (`floor.rs`).
//!
//! Run with `cargo bench -p peers` (or `cargo bench -p peers -- --quick`).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use game_host::limits::{Quotas, ScriptLimits};
use game_host::log::MemoryLog;
use game_host::scene::GameScene;
use game_host::scene::{Scene, SharedScene};
use game_host::sync::LockExt;
use game_host::{EngineOptions, Runtime, RuntimeConfig, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, build_script_crate};
use glam::Vec3;
use peers::{LUA_NAME, LuaScript, scripts};

#[path = "peers/check.rs"]
mod check;
#[path = "peers/floor.rs"]
mod floor;
#[path = "../../host/tests/common/memory.rs"]
mod memory;
#[path = "peers/native.rs"]
mod native;
#[path = "peers/rounds.rs"]
mod rounds;
#[path = "peers/timing.rs"]
mod timing;

use native::{
    QUAT_LOOP, fib, native_behaviour_scene, native_behaviours, native_cube, native_quat,
    native_scene,
};

use timing::{
    Row, Side, assert_ran, duration, interleaved, lua_side, ns, print_table, row, three_sides,
    wasm_side, write_chart,
};

/// Entities moved per update in the "many" and "batched" scenarios.
const MANY: usize = 10_000;
/// Behaviours in the per-entity scenario.
const BEHAVIOURS: usize = 10_000;
/// Behaviours in one instance for the capacity figure.
const BIG_BEHAVIOURS: usize = 500_000;
/// Cube instances in one runtime for the capacity figure.
const CUBES: usize = 4_000;
/// One frame at 60 Hz.
const FRAME_NS: f64 = 1e9 / 60.0;
/// Rotation of the cube per update at 60 Hz.
const SPEED: f32 = std::f32::consts::FRAC_PI_2;
const DT: f32 = 1.0 / 60.0;

/// The component file of the script crate `dir` (built if needed).
fn script_file(dir: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    build_script_crate(&path, BuildOutput::Capture).expect("build script")
}

fn component(engine: &ScriptEngine, dir: &str) -> ScriptComponent {
    engine.load_file(&script_file(dir)).expect("load")
}

fn runtime() -> Runtime {
    Runtime::new(RuntimeConfig {
        hz: 60.0,
        log: Arc::new(MemoryLog::new()),
        // The "many" script holds 10,000 handles.
        quotas: Quotas {
            handles: 2 * MANY,
            entities: 2 * BIG_BEHAVIOURS as u64,
            ..Quotas::default()
        },
        // One core against one Lua state: the frame threads are measured
        // in `benches/capacity.rs`.
        frame_threads: 1,
        ..RuntimeConfig::default()
    })
}

/// A runtime running `component` once, with `marker` entities in the scene
/// first (the peers script picks its mode from them).
fn wasm(component: &ScriptComponent, markers: &[&str]) -> Runtime {
    let mut runtime = runtime();
    for marker in markers {
        runtime.scene().lock_unpoisoned().spawn(marker);
    }
    runtime.spawn(component).expect("spawn");
    runtime
}

fn lua(source: &str) -> (LuaScript, SharedScene) {
    let scene = Scene::with_default_cube().shared();
    let script = LuaScript::new(&scene, source).expect("lua script");
    (script, scene)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 5 } else { 21 };
    // Epoch checks compiled in, as by default, with a long deadline (a busy
    // machine may deschedule an update). Rows use the default pool size, as
    // `host run`; the capacity rows' larger pool makes code check bounds.
    let make_engine = |deterministic_floats: bool, max_instances: u32| {
        ScriptEngine::new(EngineOptions {
            cache_dir: None,
            max_instances,
            limits: ScriptLimits {
                update_deadline: Some(Duration::from_secs(1)),
                start_deadline: Duration::from_secs(5),
                ..ScriptLimits::default()
            },
            deterministic_floats,
            ..EngineOptions::default()
        })
        .expect("engine")
    };
    // The default engine: fast floats (deterministic on one architecture).
    let engine = make_engine(false, EngineOptions::default().max_instances);
    let noop = component(&engine, "host/tests/scripts/noop");
    let cube = component(&engine, "examples/spinning-cube");
    let peers = component(&engine, "host/tests/scripts/peers");
    let fib_script = component(&engine, "host/tests/scripts/fib");
    let mut rows = Vec::new();

    check::same_results(&cube, &peers, &fib_script);

    rows.extend(call_rows(&engine, &noop, &cube, &peers, rounds));
    let portable = make_engine(true, EngineOptions::default().max_instances);
    rows.extend(entity_rows(&peers, &portable, rounds));
    rows.extend(script_rows(&cube, &fib_script, rounds));
    rows.extend(quat_rows(&peers, &portable, rounds));

    // 8. Capacity: how many fit in one 60 Hz frame on one core, from the
    // frame time of many (cube instances / Lua states; behaviours).
    let many = make_engine(false, CUBES as u32 + 100);
    capacity(&component(&many, "host/tests/scripts/peers"), rounds.min(7));
    memory_per_script(&component(&many, "examples/spinning-cube"));

    print_table(&rows);
    write_chart(&rows);
}

/// The first rows: a bare call, wasmtime's own part of it, and the
/// spinning-cube update fetched and kept (three ways).
fn call_rows(
    engine: &ScriptEngine,
    noop: &ScriptComponent,
    cube: &ScriptComponent,
    peers: &ScriptComponent,
    rounds: u32,
) -> Vec<Row> {
    let mut rows = Vec::new();
    // 1. A bare host-to-script call.
    {
        let mut w = wasm(noop, &[]);
        let (l, _) = lua(scripts::BARE);
        let mut native: Box<dyn FnMut(u32)> = Box::new(|id| {
            black_box(id);
        });
        let t = three_sides(&mut w, &l, || native(black_box(0)), 10_000, rounds);
        rows.push(row("bare host->script call (one frame)", &t));
    }
    // 1b. wasmtime's own call under it (`floor.rs`).
    rows.push(floor::row(engine, rounds));

    // 2. and 3. The spinning-cube update, handle fetched / kept.
    {
        let mut w = wasm(cube, &[]);
        let (l, _) = lua(scripts::CUBE);
        let native = native_scene();
        let t = three_sides(&mut w, &l, || native_cube(&native, None), 5_000, rounds);
        rows.push(row("spinning-cube update, handle fetched", &t));
    }
    // Kept as the raw WIT resource (each method borrows it), as the SDK's
    // `TransformComponent` (the `host new` template's script: id inside, flat calls),
    // then as a bare entity id (WIT `entity`, flat values); Lua keeps its
    // userdata every time.
    for (marker, scenario) in [
        (
            "peers:kept-handle",
            "spinning-cube update, raw resource handle kept",
        ),
        (
            "peers:kept-transform",
            "spinning-cube update, TransformComponent kept (`host new`'s script)",
        ),
        ("peers:kept", "spinning-cube update, entity id kept"),
    ] {
        let mut w = wasm(peers, &[marker]);
        let (l, _) = lua(scripts::CUBE_KEPT);
        let native = native_scene();
        let id = native.lock_unpoisoned().find("cube");
        let t = three_sides(&mut w, &l, || native_cube(&native, id), 5_000, rounds);
        rows.push(row(scenario, &t));
    }
    rows
}

/// Rows 4-4d: many entities from one script, per component, batched and as
/// behaviours (fast floats, then the `portable` engine's canonical NaNs).
fn entity_rows(peers: &ScriptComponent, portable: &ScriptEngine, rounds: u32) -> Vec<Row> {
    let mut rows = Vec::new();
    // 4. 10,000 positions through kept `TransformComponent`s (the SDK buffers
    // them: one host call); Lua and native (locking per entity) go per entity.
    {
        let t = positions(peers, "peers:many", true, rounds);
        rows.push(row(
            "10,000 entity positions from one script, per entity",
            &t,
        ));
    }

    // 4b. The same through the batched API (SDK-buffered writes, one
    // host call per update); Lua keeps its per-entity calls, which is how
    // a Lua script sets positions.
    {
        let t = positions(peers, "peers:batched", false, rounds);
        rows.push(row(
            "10,000 entity positions, batched API (Lua: per entity), per entity",
            &t,
        ));
    }

    // 4c. Entity behaviours: 10,000 spinning entities in one script.
    rows.push(behaviours_row(
        peers,
        "10,000 entity behaviours in one script, per behaviour",
        rounds,
    ));
    // 4d. The same with `--portable-floats`: what canonical NaNs cost.
    rows.push(behaviours_row(
        &component(portable, "host/tests/scripts/peers"),
        "10,000 entity behaviours, --portable-floats, per behaviour",
        rounds,
    ));
    rows
}

/// Rows 7-7b: float-heavy code, a rotation integrated 10,000 times per
/// update, per step: fast floats (the default), then canonical NaNs.
fn quat_rows(peers: &ScriptComponent, portable: &ScriptEngine, rounds: u32) -> Vec<Row> {
    let mut rows = Vec::new();
    let portable = component(portable, "host/tests/scripts/peers");
    for (script, scenario) in [
        (
            peers,
            "quaternion loop (float-heavy, no host call), per step",
        ),
        (&portable, "quaternion loop, --portable-floats, per step"),
    ] {
        let mut w = wasm(script, &["peers:quat"]);
        let (l, _) = lua(scripts::QUAT);
        let mut q = glam::Quat::IDENTITY;
        let t = three_sides(
            &mut w,
            &l,
            || q = black_box(native_quat(black_box(q))),
            3,
            rounds,
        );
        let per_step: Vec<_> = t.iter().map(|(n, d)| (*n, *d / QUAT_LOOP as u32)).collect();
        rows.push(row(scenario, &per_step));
    }
    rows
}

/// Rows 5-6: compute in the script, and spawning one.
fn script_rows(cube: &ScriptComponent, fib_script: &ScriptComponent, rounds: u32) -> Vec<Row> {
    let mut rows = Vec::new();
    // 5. Compute: fib(25) in the script.
    {
        let mut w = wasm(fib_script, &[]);
        let (l, _) = lua(scripts::FIB);
        let t = three_sides(
            &mut w,
            &l,
            || {
                black_box(fib(black_box(25)));
            },
            3,
            rounds,
        );
        rows.push(row("fib(25) in the script", &t));
    }

    // 6. Spawn + despawn of one script (instance / Lua state with the cube).
    {
        let mut r = runtime();
        let scene = Scene::with_default_cube().shared();
        let t = interleaved(
            &mut [
                Side {
                    name: "wasm",
                    op: Box::new(|| {
                        let id = r.spawn(cube).unwrap();
                        r.despawn(id);
                    }),
                },
                Side {
                    name: "lua",
                    op: Box::new(|| drop(LuaScript::new(&scene, scripts::CUBE).unwrap())),
                },
            ],
            100,
            rounds,
        );
        rows.push(row("spawn + despawn a script", &t));
    }
    rows
}

/// 7. Memory per live script, 1,000 of them.
fn memory_per_script(cube: &ScriptComponent) {
    let before = memory::status_kib("VmRSS");
    let mut r = runtime();
    let ids: Vec<_> = (0..1000).map(|_| r.spawn(cube).unwrap()).collect();
    r.step();
    let wasm_kib = (memory::status_kib("VmRSS") as i64 - before as i64) as f64 / 1000.0; // may fall
    drop(ids);
    drop(r);
    let scene = Scene::with_default_cube().shared();
    let before = memory::status_kib("VmRSS");
    let states: Vec<_> = (0..1000)
        .map(|_| LuaScript::new(&scene, scripts::CUBE).unwrap())
        .collect();
    let lua_kib = (memory::status_kib("VmRSS") as i64 - before as i64) as f64 / 1000.0;
    let lua_used = states.iter().map(LuaScript::used_memory).sum::<usize>() as f64 / 1000.0;
    drop(states);
    println!(
        "memory per live script (RSS growth over 1,000, may be negative): wasm \
         {wasm_kib:.0} KiB, {LUA_NAME} {lua_kib:.0} KiB (Lua's own count: {:.0} KiB)",
        lua_used / 1024.0
    );
}

/// Per-entity times of setting `MANY` positions: the peers script in `mode`,
/// Lua per entity, native locking per entity (`lock_each`) or once.
fn positions(
    peers: &ScriptComponent,
    mode: &str,
    lock_each: bool,
    rounds: u32,
) -> Vec<(&'static str, Duration)> {
    let mut w = wasm(peers, &[mode]);
    let (l, _) = lua(scripts::MANY);
    let native = native_scene();
    let ids: Vec<_> = {
        let mut scene = native.lock_unpoisoned();
        (0..MANY).map(|i| scene.spawn(&format!("e{i}"))).collect()
    };
    let mut frame = 0u64;
    let t = three_sides(
        &mut w,
        &l,
        || {
            frame += 1;
            let mut held = (!lock_each).then(|| native.lock_unpoisoned());
            for (i, id) in ids.iter().enumerate() {
                let position = Vec3::new(i as f32, frame as f32, 0.0);
                match held.as_mut() {
                    Some(scene) => scene.transform_mut(*id).unwrap().position = position,
                    None => {
                        native
                            .lock_unpoisoned()
                            .transform_mut(*id)
                            .unwrap()
                            .position = position
                    }
                }
            }
        },
        10,
        rounds,
    );
    t.iter().map(|(n, d)| (*n, *d / MANY as u32)).collect()
}

/// Frame time of `CUBES` cube instances (the cube's id kept), `CUBES` Lua
/// states and `BIG_BEHAVIOURS` behaviours in one instance / Lua state.
fn capacity(peers: &ScriptComponent, rounds: u32) {
    println!();
    println!("| capacity in one 60 Hz frame, one core | wasm (this host) | {LUA_NAME} |");
    println!("| --- | ---: | ---: |");
    cube_capacity(peers, rounds);
    behaviour_capacity(rounds);
    println!();
}

/// Spinning cubes, one instance (one Lua state) each, in one frame.
fn cube_capacity(peers: &ScriptComponent, rounds: u32) {
    let mut w = runtime();
    w.scene().lock_unpoisoned().spawn("peers:kept");
    for _ in 0..CUBES {
        w.spawn(peers).expect("spawn cube");
    }
    let scene = Scene::with_default_cube().shared();
    let states: Vec<_> = (0..CUBES)
        .map(|_| LuaScript::new(&scene, scripts::CUBE_KEPT).unwrap())
        .collect();
    let t = interleaved(
        &mut [
            wasm_side(&mut w),
            Side {
                name: "lua",
                op: Box::new(|| {
                    for state in &states {
                        state.update().unwrap();
                    }
                }),
            },
        ],
        5,
        rounds,
    );
    assert_ran(&w);
    drop(states);
    drop(w);
    let per: Vec<f64> = t.iter().map(|(_, d)| ns(*d) / CUBES as f64).collect();
    println!(
        "| spinning cubes, one instance / state each, entity id kept ({CUBES} measured) | {:.0} ({:.0} ns each) | {:.0} ({:.0} ns each) |",
        FRAME_NS / per[0],
        per[0],
        FRAME_NS / per[1],
        per[1]
    );
}

/// Entity behaviours in one instance (one Lua state), in one frame.
fn behaviour_capacity(rounds: u32) {
    // One instance with many behaviours needs more memory than a script's
    // default 64 MiB: its own lists plus the transforms in flight.
    let big = ScriptEngine::new(EngineOptions {
        cache_dir: None,
        pooling: false,
        limits: ScriptLimits {
            update_deadline: Some(Duration::from_secs(5)),
            start_deadline: Duration::from_secs(30),
            memory: 1 << 30,
            ..ScriptLimits::default()
        },
        ..EngineOptions::default()
    })
    .expect("engine");
    let component = big
        .load_file(&script_file("host/tests/scripts/peers"))
        .expect("load");
    let mut w = wasm(&component, &[&format!("peers:behaviours:{BIG_BEHAVIOURS}")]);
    let (l, _) = lua(&scripts::behaviours(BIG_BEHAVIOURS));
    let t = interleaved(&mut [wasm_side(&mut w), lua_side(&l)], 1, rounds);
    assert_ran(&w);
    let per: Vec<f64> = t
        .iter()
        .map(|(_, d)| ns(*d) / BIG_BEHAVIOURS as f64)
        .collect();
    println!(
        "| entity behaviours in one instance / state ({BIG_BEHAVIOURS} measured: {} / {} per frame) | {:.0} ({:.1} ns each) | {:.0} ({:.1} ns each) |",
        duration(ns(t[0].1)),
        duration(ns(t[1].1)),
        FRAME_NS / per[0],
        per[0],
        FRAME_NS / per[1],
        per[1]
    );
}

/// `BEHAVIOURS` spinning entities in one script of `peers`, against Lua
/// and native, per behaviour.
fn behaviours_row(peers: &ScriptComponent, scenario: &'static str, rounds: u32) -> Row {
    let mut w = wasm(peers, &[&format!("peers:behaviours:{BEHAVIOURS}")]);
    let (l, _) = lua(&scripts::behaviours(BEHAVIOURS));
    let (native, ids) = native_behaviour_scene(BEHAVIOURS);
    let t = three_sides(&mut w, &l, || native_behaviours(&native, &ids), 10, rounds);
    let per_entity: Vec<_> = t
        .iter()
        .map(|(n, d)| (*n, *d / BEHAVIOURS as u32))
        .collect();
    row(scenario, &per_entity)
}
