//! # game-terrain: procedural terrain, for scripts
//!
//! The guest half of the terrain extension (`game-host-terrain` is the
//! host half): heightmap tiles generated on the host's worker threads,
//! reached through the extension's own WIT package, `game:terrain`
//! (`../wit/`). A script that calls these functions imports that package,
//! and only hosts that add the extension load it (the `host` CLI does).
//!
//! ```toml
//! [dependencies]
//! game-terrain = { path = "<sdk>/crates/game-host-terrain/guest" }
//! ```
//!
//! A Python script imports `from wit_world.imports import terrain`, a
//! JavaScript one `from "game:terrain/terrain@0.1.0"`: the host builds
//! them against the extension's WIT when their sources do.

#![warn(missing_docs)]

#[allow(missing_docs)] // generated from the WIT, documented there
mod bindings {
    wit_bindgen::generate!({
        path: "../wit",
        world: "game:terrain/imports",
    });
}

use bindings::game::terrain::terrain as wit_terrain;
pub use bindings::game::terrain::terrain::{TileInfo, TileKey};
use script::wait::host_wait;

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
