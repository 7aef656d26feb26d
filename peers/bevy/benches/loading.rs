//! The game's step while scripts load: an app running the spinning cube
//! at 60 fixed steps a second, its largest update timed idle, then while a
//! Python and a JavaScript script load with a cold cache (their runtimes
//! built with componentize-py and -js, and compiled, about 19 MB and 10 MB
//! of component). Scripts compile in the asset loader, on Bevy's task
//! pools, so the step should not wait for them.
//!
//! `cargo bench -p bevy-peers --bench loading`

use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::asset::{AssetMetaCheck, AssetPlugin, UnapprovedPathMode};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use game_host::log::MemoryLog;
use game_host::{EngineOptions, limits::ScriptLimits};
use game_host_bevy::{GameHostPlugin, Script, ScriptHost, ScriptStarted, ScriptVisible};
use game_host_build::{BuildOutput, build_script_crate};

#[derive(Resource, Default)]
struct Started(usize);

fn count(mut started: MessageReader<ScriptStarted>, mut kept: ResMut<Started>) {
    kept.0 += started.read().count();
}

/// The largest of `updates` updates, and their mean.
fn time_updates(app: &mut App, updates: usize) -> (Duration, Duration) {
    let mut largest = Duration::ZERO;
    let started = Instant::now();
    for _ in 0..updates {
        let at = Instant::now();
        app.update();
        largest = largest.max(at.elapsed());
    }
    (largest, started.elapsed() / updates as u32)
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cache = std::env::temp_dir().join(format!("bevy-loading-{}", std::process::id()));
    let cube = build_script_crate(&root.join("examples/spinning-cube"), BuildOutput::Capture)
        .expect("the cube builds");
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: ".".into(),
            unapproved_path_mode: UnapprovedPathMode::Allow,
            meta_check: AssetMetaCheck::Never,
            ..default()
        },
        TransformPlugin,
        GameHostPlugin {
            engine: EngineOptions {
                cache_dir: Some(cache.clone()),
                limits: ScriptLimits {
                    start_deadline: Duration::from_secs(5),
                    ..ScriptLimits::default()
                },
                ..EngineOptions::default()
            },
            log: Arc::new(MemoryLog::new()),
            ..default()
        },
    ));
    let step = Time::<Fixed>::from_hz(60.0);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(step.timestep()))
        .insert_resource(step)
        .init_resource::<Started>()
        .add_systems(Update, count);
    app.world_mut()
        .spawn((Name::new("cube"), Transform::default(), ScriptVisible));
    let handle = app.world().resource::<AssetServer>().load(cube);
    app.world_mut().spawn(Script(handle));
    while app
        .world()
        .get_resource::<ScriptHost>()
        .is_none_or(|h| h.frame() == 0)
    {
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    let (idle_largest, idle_mean) = time_updates(&mut app, 600);

    let loading = Instant::now();
    for script in [
        "examples/python-orbiter/app.py",
        "examples/js-orbiter/app.js",
    ] {
        let handle = app
            .world()
            .resource::<AssetServer>()
            .load(root.join(script));
        app.world_mut().spawn(Script(handle));
    }
    let (mut largest, mut updates, mut total) = (Duration::ZERO, 0u32, Duration::ZERO);
    let mut slow = Vec::new();
    while app.world().resource::<Started>().0 < 3 {
        let at = Instant::now();
        app.update();
        let took = at.elapsed();
        (largest, total, updates) = (largest.max(took), total + took, updates + 1);
        if took > idle_largest * 4 {
            let started = app.world().resource::<Started>().0;
            slow.push(format!(
                "{took:.2?} at {:.1?} ({started} started)",
                loading.elapsed()
            ));
        }
        assert!(
            loading.elapsed() < Duration::from_secs(300),
            "the scripts did not start"
        );
        // A game at 60 Hz: the rest of the frame is the renderer's.
        std::thread::sleep(Duration::from_millis(16).saturating_sub(took));
    }
    let _ = std::fs::remove_dir_all(&cache);
    println!("| | largest step | mean step |");
    println!("| --- | ---: | ---: |");
    println!("| idle (the cube) | {idle_largest:.2?} | {idle_mean:.2?} |");
    println!(
        "| while a Python and a JavaScript script load ({:.1?}, {updates} steps) | {largest:.2?} | {:.2?} |",
        loading.elapsed(),
        total / updates.max(1)
    );
    println!("\nsteps over 4x the largest idle one: {}", slow.len());
    for line in slow.iter().rev().take(8) {
        println!("- {line}");
    }
    println!(
        "\nlargest step while loading / largest idle step: {:.2}",
        largest.as_secs_f64() / idle_largest.as_secs_f64()
    );
}
