//! The game in a window, drawn by Bevy's own renderer: a camera that frames
//! every script entity, a light, and each script entity drawn as a cube in
//! a colour of its name (as `host run` draws them). With `--frames`, the
//! game saves `--screenshot`, writes `--dump-scene` and exits once the
//! scripts have run that many steps.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::render::view::window::screenshot::{Screenshot, save_to_disk};
use bevy::window::WindowResolution;
use game_host_bevy::{GameHostPlugin, ScriptEntity, ScriptHost};

/// When the game ends by itself, and what it leaves behind.
#[derive(Resource)]
struct Ending {
    frames: Option<u64>,
    screenshot: Option<PathBuf>,
    dump_scene: Option<PathBuf>,
    /// Updates since the screenshot was asked for.
    waited: Option<u32>,
}

/// The mesh every script entity is drawn with.
#[derive(Resource)]
struct CubeMesh(Handle<Mesh>);

/// Adds the window, the renderer and the scene's camera and light.
pub fn plugins(
    app: &mut App,
    assets: AssetPlugin,
    plugin: GameHostPlugin,
    frames: Option<u64>,
    (screenshot, dump_scene): (Option<PathBuf>, Option<PathBuf>),
) {
    let window = Window {
        title: "bevy-game: game-host scripts in Bevy".into(),
        resolution: WindowResolution::new(960, 540),
        ..default()
    };
    app.add_plugins((
        DefaultPlugins.set(assets).set(WindowPlugin {
            primary_window: Some(window),
            ..default()
        }),
        plugin,
    ))
    .insert_resource(Ending {
        frames,
        screenshot,
        dump_scene,
        waited: None,
    })
    .add_systems(Startup, stage)
    .add_systems(Update, (dress, frame_camera, end));
}

fn stage(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>) {
    commands.insert_resource(CubeMesh(meshes.add(Cuboid::new(1.0, 1.0, 1.0))));
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(4.0, 4.0, 8.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 8_000.0,
            ..default()
        },
        Transform::from_xyz(3.0, 8.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}

/// Gives each new script entity a cube in its name's colour.
fn dress(
    mut commands: Commands,
    new: Query<(Entity, &Name), (With<ScriptEntity>, Without<Mesh3d>)>,
    mesh: Res<CubeMesh>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    for (entity, name) in &new {
        let mut hasher = DefaultHasher::new();
        name.as_str().hash(&mut hasher);
        let hue = (hasher.finish() % 360) as f32;
        let material = materials.add(Color::hsl(hue, 0.65, 0.55));
        commands
            .entity(entity)
            .insert((Mesh3d(mesh.0.clone()), MeshMaterial3d(material)));
    }
}

/// Keeps every script entity in view.
fn frame_camera(
    entities: Query<&Transform, (With<ScriptEntity>, Without<Camera3d>)>,
    mut camera: Query<&mut Transform, With<Camera3d>>,
) {
    let Ok(mut camera) = camera.single_mut() else {
        return;
    };
    let reach = entities
        .iter()
        .map(|t| t.translation.length() + t.scale.max_element())
        .fold(1.0_f32, f32::max);
    let eye = Vec3::new(0.5, 0.55, 1.0).normalize() * (reach * 2.2 + 2.0);
    *camera = Transform::from_translation(eye).looking_at(Vec3::ZERO, Vec3::Y);
}

/// After `--frames` steps: the screenshot, the dump, and exit.
fn end(world: &mut World) {
    let frame = world
        .get_resource::<ScriptHost>()
        .map_or(0, ScriptHost::frame);
    let ending = world.resource::<Ending>();
    let (screenshot, dump_scene) = (ending.screenshot.clone(), ending.dump_scene.clone());
    let waited = ending.waited;
    if ending.frames.is_none_or(|frames| frame < frames) {
        return;
    }
    let Some(waited) = waited else {
        if let Some(file) = screenshot {
            world
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(file));
        }
        if let Err(e) = crate::dump::write(world, dump_scene.as_ref()) {
            error!("{e:#}");
            world.write_message(AppExit::error());
        }
        world.resource_mut::<Ending>().waited = Some(0);
        return;
    };
    // The screenshot is saved a few updates after it is asked for.
    let saved = screenshot.as_ref().is_none_or(|f| f.is_file());
    if (saved && waited > 2) || waited > 300 {
        if !saved {
            error!("the screenshot was not saved");
            world.write_message(AppExit::error());
        }
        world.write_message(AppExit::Success);
    }
    world.resource_mut::<Ending>().waited = Some(waited + 1);
}
