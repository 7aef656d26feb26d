//! `game:engine/terrain`: tile requests and reads of generated tiles.

use crate::bindings::terrain::{Host, TileInfo, TileKey};
use crate::state::{Request, ScriptState};
use crate::terrain::tile_size;

impl Host for ScriptState {
    fn tile_size(&mut self, level: u8) -> wasmtime::Result<f32> {
        Ok(tile_size(level))
    }

    fn request_tile(&mut self, token: u64, key: TileKey) -> wasmtime::Result<()> {
        self.requests.push(Request::Tile {
            token,
            coord: key.into(),
        });
        Ok(())
    }

    fn tile_summary(&mut self, key: TileKey) -> wasmtime::Result<Option<TileInfo>> {
        Ok(self.tiles.get(key.into()).map(|tile| tile.info()))
    }

    fn tile_heights(&mut self, key: TileKey) -> wasmtime::Result<Option<Vec<f32>>> {
        Ok(self.tiles.get(key.into()).map(|tile| tile.heights.clone()))
    }
}
