//! Procedural terrain tiles generated on the host's worker threads (the
//! `game:terrain` host extension: a script that uses it imports that
//! interface, and only hosts that provide it load the script).

use crate::bindings::terrain_extension::game::terrain::terrain as wit_terrain;
pub use crate::bindings::terrain_extension::game::terrain::terrain::{TileInfo, TileKey};
use crate::wait::host_wait;

/// Side length of a tile at `level`, in world units.
pub fn tile_size(level: u8) -> f32 {
    wit_terrain::tile_size(level)
}

/// Requests a tile and completes with its summary once the host has
/// generated it. Requests for the same tile share one generation. Dropping
/// the future withdraws the request.
pub async fn request_tile(key: TileKey) -> TileInfo {
    host_wait(move |token| wit_terrain::request_tile(token, key)).await;
    wit_terrain::tile_summary(key).expect("a delivered tile is in the host's cache")
}

/// The heights of a generated tile (row-major, `resolution` squared).
pub fn tile_heights(key: TileKey) -> Option<Vec<f32>> {
    wit_terrain::tile_heights(key)
}
