//! The game: its cube, its `Spin`, `Health` and `Frozen` components, its
//! `Score` resource and `Scored` message (all registered for scripts, and
//! typed for scripts made for game [`GAME`]), the
//! spinners it offers scripts (`--spinners N`), and the scripts it runs,
//! each attached to an entity of its own. A game system counts the
//! `Scored` messages scripts send into `Score`.

use std::path::PathBuf;

use bevy::input::ButtonInput;
use bevy::input::keyboard::KeyCode;
use bevy::prelude::*;
use game_host_bevy::{Script, ScriptAccess, ScriptApp, ScriptSystems, ScriptVisible};

/// How fast an entity spins or orbits, in radians a second, and how far
/// it has turned: the game's data, which `spin-orbiter` reads through
/// `game-data` and `spin-query` through a query.
#[derive(Component, Reflect, Default, Debug)]
#[reflect(Component, Default)]
pub struct Spin {
    /// Radians a second.
    pub speed: f32,
    /// Radians turned so far.
    pub angle: f32,
}

/// The game's name, as scripts made for it know its types (`bevy-game
/// --describe game.json` writes them for `host new --game`).
pub const GAME: &str = "bevy-game";

/// How healthy an entity is: a component scripts add and change.
#[derive(Component, Reflect, Default, Debug)]
#[reflect(Component, Default)]
pub struct Health {
    /// Points left.
    pub current: f32,
    /// Points when whole.
    pub max: f32,
}

/// A spinner that stays still: scripts query `Spin` without it.
#[derive(Component, Reflect, Default, Debug)]
#[reflect(Component, Default)]
pub struct Frozen;

// ANCHOR: score
/// The points scored: scripts read it; the game counts [`Scored`] into it.
#[derive(Resource, Reflect, Default, Debug)]
#[reflect(Resource)]
pub struct Score {
    /// Points so far.
    pub points: i64,
}

/// Points scored, as a script (or the game) tells it.
#[derive(Message, Reflect, Default, Debug, Clone)]
pub struct Scored {
    /// Points to add.
    pub points: i64,
}
// ANCHOR_END: score

/// Spawns the cube, the spinners and the scripts; Space doubles every
/// `Spin`.
pub struct GamePlugin {
    /// The script files to load, in order.
    pub scripts: Vec<PathBuf>,
    /// Spinners to offer scripts, and one frozen one beside them if any.
    pub spinners: u32,
}

/// The scripts' files and the spinners, for the startup system.
#[derive(Resource)]
struct Setup(Vec<PathBuf>, u32);

// ANCHOR: plugin
impl Plugin for GamePlugin {
    fn build(&self, app: &mut App) {
        app.register_script_component::<Spin>(ScriptAccess::ReadWrite)
            .register_script_component::<Health>(ScriptAccess::ReadWrite)
            .register_script_component::<Frozen>(ScriptAccess::ReadWrite)
            .init_resource::<Score>()
            .register_script_resource::<Score>(ScriptAccess::Read)
            .register_script_message::<Scored>()
            .insert_resource(Setup(self.scripts.clone(), self.spinners))
            .add_systems(Startup, start)
            .add_systems(FixedUpdate, count_scores.after(ScriptSystems))
            .add_systems(
                Update,
                faster.run_if(resource_exists::<ButtonInput<KeyCode>>),
            );
    }
}
// ANCHOR_END: plugin

/// The default scene's cube (as `host run` has it, so the same scripts
/// find it), the spinners (speeds half a radian a second apart, as
/// `spin-query` makes them under `host run`), and one entity with a
/// [`Script`] per script file.
fn start(mut commands: Commands, setup: Res<Setup>, assets: Res<AssetServer>) {
    commands.spawn((Name::new("cube"), Transform::default(), ScriptVisible));
    let Setup(files, spinners) = &*setup;
    for i in 0..*spinners {
        commands.spawn(spinner(i, 0.5 * (i + 1) as f32));
    }
    if *spinners > 0 {
        commands.spawn((spinner(*spinners, 0.5 * (*spinners + 1) as f32), Frozen));
    }
    for file in files {
        commands.spawn(Script(assets.load(file.clone())));
    }
}

/// A spinner scripts can reach.
fn spinner(i: u32, speed: f32) -> impl Bundle {
    (
        Name::new(format!("spinner-{i}")),
        Transform::default(),
        Spin { speed, angle: 0.0 },
        ScriptVisible,
    )
}

// ANCHOR: count
/// Counts the points scripts score, in the step they send them.
fn count_scores(mut scored: MessageReader<Scored>, mut score: ResMut<Score>) {
    for message in scored.read() {
        score.points += message.points;
    }
}
// ANCHOR_END: count

/// Space doubles every `Spin` speed: the game changes its own data, and
/// the scripts that read it follow.
fn faster(keys: Res<ButtonInput<KeyCode>>, mut spins: Query<&mut Spin>) {
    if keys.just_pressed(KeyCode::Space) {
        for mut spin in &mut spins {
            spin.speed *= 2.0;
        }
    }
}
