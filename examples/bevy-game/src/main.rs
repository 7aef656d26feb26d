//! # bevy-game: a Bevy game whose logic is game-host scripts
//!
//! The same scripts `host run` runs (`.wasm` components, script crates,
//! Python and JavaScript sources), unchanged, on Bevy's own entities
//! through [`game_host_bevy::GameHostPlugin`]: the spinning cube, the swarm,
//! and `spin-orbiter`, whose speed is the game's own `Spin` component.
//!
//! ```text
//! cargo run --release -p bevy-game --features render                      # a window
//! cargo run --release -p bevy-game --features render -- examples/swarm    # 5,000 entities
//! cargo run --release -p bevy-game -- --headless --frames 120 --dump-scene bevy.json
//! cargo run --release -p bevy-game -- --headless --frames 120 --spinners 8 examples/spin-query
//! ```
//!
//! The game's components and resources are typed for scripts made for it:
//! `--describe game.json` writes their description, from which
//! `host new spinner --lang python --game game.json` makes a project whose
//! script calls `game_components.get_spin(id)` (the book: Game types).
//!
//! `--spinners N` offers scripts N entities with the game's `Spin` (and one
//! `Frozen`); `spin-query` and its Python and JavaScript twins turn them
//! through queries and send `Scored` messages, which the game counts into
//! its `Score` (printed at the end of a headless run).
//!
//! With no script it runs the spinning cube (`examples/spinning-cube`, built
//! on first use), as `host run` does. `--headless` runs without a window or
//! GPU, one fixed step per update as fast as the CPU allows, and
//! `--dump-scene` writes the same JSON as `host run --dump-scene`.

mod dump;
mod game;
mod headless;
#[cfg(feature = "render")]
mod render;
mod scripts;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use bevy::asset::{AssetMetaCheck, AssetPlugin, UnapprovedPathMode};
use bevy::prelude::{App, Fixed, Time, default};
use clap::Parser;
use game_host_bevy::GameHostPlugin;

/// Runs game-host scripts in a Bevy game.
#[derive(Parser, Debug)]
#[command(name = "bevy-game")]
struct Args {
    /// Scripts: `.wasm` components, script crate folders, `.py` / `.js`
    /// files or folders holding `app.py` / `app.js`. The spinning cube if
    /// none.
    scripts: Vec<PathBuf>,
    /// Run without a window or GPU, as fast as the CPU allows.
    #[arg(long)]
    headless: bool,
    /// Exit after this many fixed steps of the scripts (headless, required).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    frames: Option<u64>,
    /// Fixed steps a second (Bevy's `Time<Fixed>`), as `host run --hz`.
    #[arg(long, default_value_t = 60.0, value_parser = hz)]
    hz: f64,
    /// The seed of the scripts' random numbers.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// At the end, write the scene as JSON (`host run --dump-scene`'s form).
    #[arg(long, value_name = "FILE")]
    dump_scene: Option<PathBuf>,
    /// Spinners to offer scripts (`Spin` and `Transform`, and one more
    /// `Frozen`), as `examples/spin-query` turns them.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    spinners: u32,
    /// At the end, save the window's image as PNG (with a window only).
    #[arg(long, value_name = "FILE")]
    screenshot: Option<PathBuf>,
    /// Write the description of the game's types (what it registers for
    /// scripts) to FILE, for `host new --game FILE`, and exit.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["scripts", "headless", "frames"])]
    describe: Option<PathBuf>,
}

/// `--hz`: a rate from 1 to 1000.
fn hz(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if (1.0..=1000.0).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a number from 1 to 1000")),
    }
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    if let Some(file) = &args.describe {
        return describe(file);
    }
    if args.headless {
        anyhow::ensure!(
            args.frames.is_some(),
            "--headless needs --frames N: how many steps to run"
        );
        anyhow::ensure!(
            args.screenshot.is_none(),
            "--screenshot needs a window: leave out --headless"
        );
    }
    let scripts = scripts::resolve(&args.scripts)?;
    let mut app = App::new();
    // Scripts are loaded by their paths as given (relative to the working
    // directory, or absolute), not from an `assets/` folder.
    let assets = AssetPlugin {
        file_path: ".".into(),
        unapproved_path_mode: UnapprovedPathMode::Allow,
        meta_check: AssetMetaCheck::Never,
        ..default()
    };
    let plugin = GameHostPlugin {
        seed: args.seed,
        game: Some(game::GAME.to_owned()),
        ..default()
    };
    app.insert_resource(Time::<Fixed>::from_hz(args.hz));
    match (args.headless, args.frames) {
        (true, Some(frames)) => {
            headless::plugins(&mut app, assets, plugin);
            app.add_plugins(game::GamePlugin {
                scripts,
                spinners: args.spinners,
            });
            headless::run(&mut app, frames)?;
            if args.spinners > 0 {
                let score = app.world().resource::<game::Score>().points;
                eprintln!("score: {score}");
            }
            dump::write(app.world_mut(), args.dump_scene.as_ref())
        }
        _ => window(app, assets, plugin, scripts, &args),
    }
}

/// Writes the description of the game's types to `file`.
fn describe(file: &std::path::Path) -> Result<()> {
    let mut app = App::new();
    app.add_plugins(game::GamePlugin {
        scripts: Vec::new(),
        spinners: 0,
    });
    let types = app.world().resource::<game_host_bevy::ScriptTypes>();
    let (game, left_out) = types
        .describe(game::GAME)
        .map_err(|why| anyhow::anyhow!("the game's types make no description: {why}"))?;
    for why in left_out {
        eprintln!("left out: {why}");
    }
    std::fs::write(file, game.to_json())
        .with_context(|| format!("failed to write `{}`", file.display()))?;
    eprintln!(
        "wrote game `{}`'s types to `{}`: {}",
        game.name,
        file.display(),
        game.summary()
    );
    Ok(())
}

/// Opens a window and runs until it closes (or `--frames`).
#[cfg(feature = "render")]
fn window(
    mut app: App,
    assets: AssetPlugin,
    plugin: GameHostPlugin,
    scripts: Vec<PathBuf>,
    args: &Args,
) -> Result<()> {
    let ending = (args.screenshot.clone(), args.dump_scene.clone());
    render::plugins(&mut app, assets, plugin, args.frames, ending);
    app.add_plugins(game::GamePlugin {
        scripts,
        spinners: args.spinners,
    });
    let exit = app.run();
    anyhow::ensure!(exit.is_success(), "the game ended with {exit:?}");
    Ok(())
}

#[cfg(not(feature = "render"))]
fn window(_: App, _: AssetPlugin, _: GameHostPlugin, _: Vec<PathBuf>, _: &Args) -> Result<()> {
    anyhow::bail!(
        "this build has no renderer: run with --headless --frames N, or build with \
         `--features render` for a window"
    )
}
