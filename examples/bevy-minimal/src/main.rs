//! bevy-minimal: the smallest Bevy game whose logic is a mod. The game
//! spawns a cube on its own entity, with its own `Spin` component, and
//! lets a script from `mods/` turn it: the mod may touch the cube and
//! nothing else (its grants, given in code), and a changed mod file is
//! swapped in while the game runs (Bevy's `file_watcher`).
//!
//! ```text
//! host build examples/spinning-cube -o examples/bevy-minimal/mods/spinning_cube.wasm
//! cargo run --release -p bevy-minimal                 # runs until Ctrl-C
//! cargo run --release -p bevy-minimal -- --frames 120 # prints the cube's turn, exits
//! ```
//!
//! It runs headless (Bevy's minimal plugins); a game with a window adds
//! `DefaultPlugins` instead, and the rest stays as it is.

use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::asset::{AssetMetaCheck, AssetPlugin};
use bevy::log::LogPlugin;
use bevy::prelude::*;
use game_host::{GrantFile, GrantPolicy, GrantSpec};
use game_host_bevy::{
    GameHostPlugin, Script, ScriptAccess, ScriptApp, ScriptHost, ScriptSystems, ScriptVisible,
};

/// The game's own component, which scripts may read and write as
/// `Spin.speed`.
#[derive(Component, Reflect, Default)]
#[reflect(Component, Default)]
struct Spin {
    speed: f32,
}

/// What a mod may touch: the interfaces it may import, and the one entity
/// of the game it may change (its own entities it may always change).
/// A mod that imports more is refused at load, naming the interface; one
/// that writes another entity gets an error naming it.
fn mod_grants() -> GrantPolicy {
    let imports = [
        "log",
        "runtime",
        "scene",
        "entity",
        "entities",
        "relative",
        "game-data",
    ];
    let mods = GrantSpec {
        imports: Some(imports.map(String::from).to_vec()),
        writes: Some(vec!["cube".to_owned()]),
        ..GrantSpec::default()
    };
    let file = GrantFile {
        default: mods,
        ..GrantFile::default()
    };
    GrantPolicy::new(file).expect("the grants are valid")
}

fn main() -> AppExit {
    let frames = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => None,
        [flag, n] if flag == "--frames" => n.parse().ok(),
        _ => None,
    };
    App::new()
        .add_plugins((
            MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(
                1.0 / 60.0,
            ))),
            LogPlugin::default(),
            // Mods live in `mods/` (beside Cargo.toml under `cargo run`,
            // else beside the binary, or in $BEVY_ASSET_ROOT), not in
            // `assets/`; no `.meta` files beside them.
            AssetPlugin {
                file_path: "mods".into(),
                meta_check: AssetMetaCheck::Never,
                ..default()
            },
            TransformPlugin,
            GameHostPlugin {
                grants: mod_grants(),
                ..default()
            },
        ))
        .register_script_component::<Spin>(ScriptAccess::ReadWrite)
        .insert_resource(StopAfter(frames))
        .add_systems(Startup, setup)
        .add_systems(FixedUpdate, report.after(ScriptSystems))
        .run()
}

/// The game's scene: the cube, visible to scripts, and the mod that turns
/// it (it runs while its entity lives).
fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Name::new("cube"),
        Transform::default(),
        Spin { speed: 1.0 },
        ScriptVisible,
    ));
    commands.spawn(Script(assets.load("spinning_cube.wasm")));
}

/// `--frames N`: the scripts' frames to run before the game exits.
#[derive(Resource)]
struct StopAfter(Option<u64>);

/// After the frames asked for, says how far the cube turned and exits.
fn report(
    host: Option<Res<ScriptHost>>,
    stop: Res<StopAfter>,
    cubes: Query<(&Name, &Transform)>,
    mut exit: MessageWriter<AppExit>,
) {
    let (Some(host), Some(frames)) = (host, stop.0) else {
        return;
    };
    if host.frame() < frames {
        return;
    }
    for (name, transform) in &cubes {
        if name.as_str() == "cube" {
            let (axis, angle) = transform.rotation.to_axis_angle();
            println!(
                "after {} frames the cube has turned {:.1} degrees about {axis:.2}",
                host.frame(),
                angle.to_degrees()
            );
        }
    }
    exit.write(AppExit::Success);
}
