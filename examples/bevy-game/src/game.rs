//! The game: its cube, its `Spin` component (registered for scripts), and
//! the scripts it runs, each attached to an entity of its own.

use std::path::PathBuf;

use bevy::input::ButtonInput;
use bevy::input::keyboard::KeyCode;
use bevy::prelude::*;
use game_host_bevy::{Script, ScriptAccess, ScriptApp};

/// How fast an entity spins or orbits, in radians a second: the game's
/// data, which `spin-orbiter` reads through `game-data`.
#[derive(Component, Reflect, Default, Debug)]
#[reflect(Component, Default)]
pub struct Spin {
    /// Radians a second.
    pub speed: f32,
}

/// Spawns the cube and the scripts; Space doubles every `Spin`.
pub struct GamePlugin {
    /// The script files to load, in order.
    pub scripts: Vec<PathBuf>,
}

/// The scripts' files, for the startup system.
#[derive(Resource)]
struct ScriptFiles(Vec<PathBuf>);

impl Plugin for GamePlugin {
    fn build(&self, app: &mut App) {
        app.register_script_component::<Spin>(ScriptAccess::ReadWrite)
            .insert_resource(ScriptFiles(self.scripts.clone()))
            .add_systems(Startup, start)
            .add_systems(
                Update,
                faster.run_if(resource_exists::<ButtonInput<KeyCode>>),
            );
    }
}

/// The default scene's cube (as `host run` has it, so the same scripts
/// find it), and one entity with a [`Script`] per script file.
fn start(mut commands: Commands, files: Res<ScriptFiles>, assets: Res<AssetServer>) {
    commands.spawn((Name::new("cube"), Transform::default()));
    for file in &files.0 {
        commands.spawn(Script(assets.load(file.clone())));
    }
}

/// Space doubles every `Spin` speed: the game changes its own data, and
/// the scripts that read it follow.
fn faster(keys: Res<ButtonInput<KeyCode>>, mut spins: Query<&mut Spin>) {
    if keys.just_pressed(KeyCode::Space) {
        for mut spin in &mut spins {
            spin.speed *= 2.0;
        }
    }
}
