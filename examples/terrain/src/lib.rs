//! Terrain: a camera (entity `camera`) pans along +x over an endless world
//! at [`SPEED`] units per second. Every frame the script works out which
//! level-0 heightmap tiles lie within [`RADIUS`] tiles of the camera and
//! requests the new ones; the host generates them on its worker threads
//! (deterministic noise, 128x128 samples) and deduplicates requests. For each
//! finished tile the script places an entity `tile 0/X/Y` at the tile's
//! centre, at its mean height.
//!
//! Build and run (from the workspace root):
//! ```text
//! cargo run --release --bin host -- run examples/terrain --frames 300 --dump-scene terrain.json
//! cargo build --release --target wasm32-wasip2 -p terrain
//! ```

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use game_terrain::TileKey;
use game_terrain::{request_tile, tile_size};
use script::Script;
use script::glam::Vec3;
use script::scene::TransformExt;

/// Camera speed along +x, units per second.
pub const SPEED: f32 = 50.0;
/// Tiles requested around the camera's tile in each direction.
pub const RADIUS: i32 = 1;
const LEVEL: u8 = 0;

struct Terrain;

impl Script for Terrain {
    fn entrypoint() -> Self {
        script::task::spawn(pan_camera()).detach();
        Terrain
    }
}

async fn pan_camera() {
    let camera = script::scene::spawn("camera");
    let size = tile_size(LEVEL);
    let requested: Rc<RefCell<HashSet<(i32, i32)>>> = Rc::default();
    loop {
        let position = camera.translation();
        let (cx, cy) = (
            (position.x / size).floor() as i32,
            (position.z / size).floor() as i32,
        );
        for y in cy - RADIUS..=cy + RADIUS {
            for x in cx - RADIUS..=cx + RADIUS {
                if requested.borrow_mut().insert((x, y)) {
                    script::task::spawn(place_tile(TileKey { level: LEVEL, x, y })).detach();
                }
            }
        }
        script::time::next_frame().await;
        camera.translate(Vec3::X * SPEED * script::time::delta_time());
    }
}

/// Waits for one tile and places its entity.
async fn place_tile(key: TileKey) {
    let info = request_tile(key).await;
    let size = tile_size(key.level);
    let entity = script::scene::spawn(&format!("tile {}/{}/{}", key.level, key.x, key.y));
    entity.set_translation(Vec3::new(
        (key.x as f32 + 0.5) * size,
        info.mean_height,
        (key.y as f32 + 0.5) * size,
    ));
    entity.set_scaling(Vec3::new(
        size,
        (info.max_height - info.min_height).max(1.0),
        size,
    ));
    script::log::info(&format!(
        "tile {}/{}/{} ready: heights {:.1}..{:.1}",
        key.level, key.x, key.y, info.min_height, info.max_height
    ));
}

script::export!(Terrain);
