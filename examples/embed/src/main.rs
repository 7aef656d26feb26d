//! Embedding the runtime in your engine: this program depends on the
//! `game-host` core alone. It loads the spinning cube (a component built
//! from `examples/spinning-cube`), runs 60 fixed-timestep frames headless,
//! and prints the cube's rotation. An engine does the same from its own
//! loop: `runtime.step()` once per frame, then reads the scene it draws.
//!
//! ```text
//! cargo build --release --target wasm32-wasip2 -p spinning-cube
//! cargo run --release -p embed
//! cargo run --release -p embed -- path/to/other.wasm
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use game_host::sync::LockExt;
use game_host::{EngineOptions, GameScene, Runtime, RuntimeConfig, ScriptEngine};

/// Where `cargo build --release --target wasm32-wasip2 -p spinning-cube`
/// puts the cube, from the workspace root.
const CUBE: &str = "target/wasm32-wasip2/release/spinning_cube.wasm";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(CUBE));
    // ANCHOR: embed
    // One engine per process: it compiles (and caches) components.
    let engine = ScriptEngine::new(EngineOptions::default())?;
    let cube = engine.load_file(&path).with_context(|| {
        format!(
            "no spinning cube at `{}`: build it first with \
             `cargo build --release --target wasm32-wasip2 -p spinning-cube`",
            path.display()
        )
    })?;
    // One runtime per world: a scene, a fixed 60 Hz clock, the instances.
    let mut runtime = Runtime::new(RuntimeConfig::default());
    runtime.spawn(&cube)?;
    runtime.run_frames(60);
    if let Some(error) = runtime.inspect().errors().first() {
        anyhow::bail!("the script failed: {error}");
    }
    let mut scene = runtime.scene().lock_unpoisoned();
    let id = scene.find("cube").context("the scene has no cube")?;
    let rotation = scene
        .transform(id)
        .context("the cube has no transform")?
        .rotation;
    let (axis, angle) = rotation.to_axis_angle();
    println!(
        "cube rotation after 60 frames: {rotation} ({:.1} degrees about ({:.2}, {:.2}, {:.2}))",
        angle.to_degrees(),
        axis.x,
        axis.y,
        axis.z
    );
    // ANCHOR_END: embed
    Ok(())
}
