//! The game's step while scripts load: an app running the spinning cube
//! at 60 fixed steps a second, its largest update timed idle, then while a
//! Python and a JavaScript script load with a cold cache (their runtimes
//! built with componentize-py and -js, and compiled, about 19 MB and 10 MB
//! of component). Scripts compile in the asset loader, on Bevy's task
//! pools, on the background pool's threads below the game's priority and
//! off one core (`game_host::background`), and each instance is made and
//! its sources compiled on the background queue before the step that runs
//! its `entrypoint`, so the step should not wait for them. Both phases run
//! as a 60 Hz game: each step timed, then the rest of its frame slept. The
//! steps that started a script are listed apart.
//!
//! `cargo bench -p bevy-peers --bench loading` (`LOADING_ALL_SLOW=1` in the
//! environment lists every step over twice the largest idle one, not the
//! last 8).

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

/// Step times of a game at 60 Hz: each step timed, then the rest of its
/// frame slept (the renderer's, in a game), so that idle and loading steps
/// start from the same state of the caches.
#[derive(Default)]
struct Steps(Vec<Duration>);

impl Steps {
    fn step(&mut self, app: &mut App) -> Duration {
        let at = Instant::now();
        app.update();
        let took = at.elapsed();
        self.0.push(took);
        std::thread::sleep(Duration::from_millis(16).saturating_sub(took));
        took
    }

    /// The median, 99th percentile and largest step.
    fn summary(&self) -> [Duration; 3] {
        let mut sorted = self.0.clone();
        sorted.sort();
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q) as usize];
        [at(0.5), at(0.99), at(1.0)]
    }
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
    let mut idle = Steps::default();
    for _ in 0..1200 {
        idle.step(&mut app);
    }
    let [.., idle_largest] = idle.summary();

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
    let mut steps = Steps::default();
    let mut slow = Vec::new();
    // The steps that started a script (its entrypoint run).
    let mut starts = Vec::new();
    while app.world().resource::<Started>().0 < 3 {
        let before = app.world().resource::<Started>().0;
        let took = steps.step(&mut app);
        let started = app.world().resource::<Started>().0;
        if started > before {
            starts.push(format!("{took:.2?}"));
        }
        if took > idle_largest * 2 {
            slow.push(format!(
                "{took:.2?} at {:.1?} ({started} started)",
                loading.elapsed()
            ));
        }
        assert!(
            loading.elapsed() < Duration::from_secs(300),
            "the scripts did not start"
        );
    }
    let _ = std::fs::remove_dir_all(&cache);
    println!("| steps at 60 Hz | steps | median | 99th percentile | largest |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (what, steps) in [
        ("idle (the cube)".to_owned(), &idle),
        (
            format!(
                "while a Python and a JavaScript script load ({:.1?})",
                loading.elapsed()
            ),
            &steps,
        ),
    ] {
        let [median, p99, largest] = steps.summary();
        println!(
            "| {what} | {} | {median:.2?} | {p99:.2?} | {largest:.2?} |",
            steps.0.len()
        );
    }
    println!(
        "\nsteps that started the Python and the JavaScript script: {}",
        starts.join(", ")
    );
    println!("\nsteps over 2x the largest idle one: {}", slow.len());
    let all = std::env::var_os("LOADING_ALL_SLOW").is_some();
    for line in slow.iter().rev().take(if all { usize::MAX } else { 8 }) {
        println!("- {line}");
    }
    let [.., p99, largest] = steps.summary();
    let [.., idle_p99, _] = idle.summary();
    println!(
        "\nwhile loading / idle: 99th percentile {:.2}, largest {:.2}",
        p99.as_secs_f64() / idle_p99.as_secs_f64(),
        largest.as_secs_f64() / idle_largest.as_secs_f64()
    );
}
