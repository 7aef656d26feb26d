//! A game's own types against `game-data` by name: one Rust script moves
//! 10,000 entities' `Spin { speed, angle }` each frame (angle += speed *
//! step), once through the typed functions of the game's package
//! (`get_spin` / `set_spin`: no names cross) and once by name
//! (`data::number(id, "Spin", "speed")`, ... `data::set(id, "Spin", "angle",
//! ...)`). Both scripts are one project made for the game as `host new
//! --game` makes it, built twice with the update swapped.
//!
//! Run with `cargo bench -p game-host-cli --bench game_types`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use game_host::game_types::GameTypes;
use game_host::limits::ScriptLimits;
use game_host::log::MemoryLog;
use game_host::{EngineOptions, Runtime, RuntimeConfig, ScriptEngine};
use game_host_build::project::{ProjectLanguage, create};
use game_host_build::{BuildOutput, build_script_crate};

const ENTITIES: usize = 10_000;

const GAME: &str =
    r#"{ "game": "bench", "components": { "Spin": { "speed": "f32", "angle": "f32" } } }"#;

/// The script: spawns the entities with their `Spin` (by name, in both),
/// then updates them by `UPDATE`.
const SCRIPT: &str = r#"
use script::prelude::*;
use script::data::{self, Value};

mod game;

const ENTITIES: usize = {{entities}};

struct Spinners {
    ids: Vec<u32>,
}

impl Script for Spinners {
    fn entrypoint() -> Self {
        script::update::subscribe();
        let ids = (0..ENTITIES)
            .map(|i| {
                let id = script::scene::spawn("spinner").id();
                let speed = Value::Number(0.5 + (i % 7) as f64);
                data::insert(id, "Spin", &[("speed", speed), ("angle", Value::Number(0.0))])
                    .unwrap();
                id
            })
            .collect();
        Spinners { ids }
    }

    fn on_update(&mut self) {
        let step = script::time::delta_time();
        for &id in &self.ids {
            {{update}}
        }
    }
}

script::export!(Spinners);
"#;

const TYPED: &str = "let spin = game::components::get_spin(id).unwrap();
            let angle = spin.angle + spin.speed * step;
            game::components::set_spin(id, game::components::Spin { angle, ..spin }).unwrap();";

const BY_NAME: &str = "let speed = data::number(id, \"Spin\", \"speed\").unwrap();
            let angle = data::number(id, \"Spin\", \"angle\").unwrap();
            data::set(id, \"Spin\", \"angle\", Value::Number(angle + speed * step as f64)).unwrap();";

/// The script built with `update`.
fn build(project: &Path, update: &str) -> Vec<u8> {
    let text = SCRIPT
        .replace("{{entities}}", &ENTITIES.to_string())
        .replace("{{update}}", update);
    std::fs::write(project.join("src/lib.rs"), text).unwrap();
    let wasm = build_script_crate(project, BuildOutput::Capture).expect("build");
    std::fs::read(wasm).unwrap()
}

fn bench(c: &mut Criterion) {
    let game = Arc::new(GameTypes::parse(GAME).expect("description"));
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("spinners");
    create(&project, ProjectLanguage::Rust, Some(&game)).expect("project");
    let builds = [
        ("by name", build(&project, BY_NAME)),
        ("typed", build(&project, TYPED)),
    ];

    let engine = ScriptEngine::new(EngineOptions {
        cache_dir: None,
        // Not pooled, so that callgrind (which cannot reserve a pool) runs
        // it too: `valgrind --tool=callgrind --toggle-collect=
        // '<game_host::runtime::Runtime>::step' BENCH --bench typed
        // --profile-time 1`.
        pooling: false,
        game: Some(game),
        limits: ScriptLimits {
            update_deadline: Some(Duration::from_secs(5)),
            start_deadline: Duration::from_secs(30),
            ..ScriptLimits::default()
        },
        ..EngineOptions::default()
    })
    .expect("engine");
    let mut group = c.benchmark_group(format!("game types, {ENTITIES} entities, per frame"));
    group.sample_size(20);
    for (name, bytes) in builds {
        let script = engine.load_bytes(name, &bytes).expect("load");
        let mut runtime = Runtime::new(RuntimeConfig {
            log: Arc::new(MemoryLog::new()),
            frame_threads: 1,
            ..RuntimeConfig::default()
        });
        runtime.spawn(&script).expect("spawn");
        runtime.run_frames(2);
        assert!(
            runtime.inspect().errors().is_empty(),
            "{:?}",
            runtime.inspect().errors()
        );
        group.bench_function(name, |b| b.iter(|| runtime.run_frames(1)));
        assert!(
            runtime.inspect().errors().is_empty(),
            "{:?}",
            runtime.inspect().errors()
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
