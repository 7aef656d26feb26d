//! `game:terrain/terrain`: tile requests and reads of generated tiles,
//! implemented on the store data through the generic job API, with the
//! conversions between WIT and terrain types.

use wasmtime::component::{HasSelf, Linker};

use super::bindings::{self, Host, TileInfo, TileKey};
use super::{RESOLUTION, Terrain, Tile, TileCoord, tile_size};
use game_host::ScriptState;

/// Links `game:terrain/terrain` for scripts (the [`extension`](super::extension)
/// does, with the job kind [`Terrain`]), and the same interface under its
/// 0.1 name, `game:engine/terrain`, for scripts built against
/// `game:engine` 0.1, where it was part of the engine package.
pub fn link(linker: &mut Linker<ScriptState>) -> wasmtime::Result<()> {
    bindings::add_to_linker::<_, HasSelf<_>>(linker, |state| state)?;
    let mut v0_1 = linker.instance(&game_host::guest::v0_1::interface_name("terrain"))?;
    bindings::add_to_linker_instance::<_, HasSelf<_>>(&mut v0_1, |state| state)
}

impl From<TileKey> for TileCoord {
    fn from(k: TileKey) -> Self {
        TileCoord {
            level: k.level,
            x: k.x,
            y: k.y,
        }
    }
}

impl From<TileCoord> for TileKey {
    fn from(c: TileCoord) -> Self {
        TileKey {
            level: c.level,
            x: c.x,
            y: c.y,
        }
    }
}

fn info(tile: &Tile) -> TileInfo {
    TileInfo {
        key: tile.coord.into(),
        resolution: RESOLUTION,
        min_height: tile.min,
        max_height: tile.max,
        mean_height: tile.mean,
    }
}

impl Host for ScriptState {
    fn tile_size(&mut self, level: u8) -> wasmtime::Result<f32> {
        Ok(tile_size(level))
    }

    fn request_tile(&mut self, token: u64, key: TileKey) -> wasmtime::Result<()> {
        self.request_job::<Terrain>(token, key.into())
    }

    fn tile_summary(&mut self, key: TileKey) -> wasmtime::Result<Option<TileInfo>> {
        Ok(self
            .job_output::<Terrain>(&key.into())
            .map(|tile| info(&tile)))
    }

    fn tile_heights(&mut self, key: TileKey) -> wasmtime::Result<Option<Vec<f32>>> {
        Ok(self
            .job_output::<Terrain>(&key.into())
            .map(|tile| tile.heights.clone()))
    }
}
