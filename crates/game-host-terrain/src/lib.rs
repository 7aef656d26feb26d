//! # game-host-terrain — procedural terrain, a host extension
//!
//! Deterministic heightmap tiles as one kind of background job
//! ([`Terrain`]), and the WIT package `game:terrain` (this crate's `wit/`)
//! through which scripts request and read them. It is the worked example of a game adding
//! an interface and a job kind from outside the core: [`extension`] is one
//! [`Extension`] value that links the interface and registers the job kind.
//!
//! This is the host half. The guest half lives beside it: `guest/`, the
//! crate `game-terrain` that Rust scripts depend on (`host new` ships it in
//! the SDK), and `wit/`, which Python and JavaScript scripts that import
//! `game:terrain` are built against. `build.rs` says this crate is an
//! extension, so the `host` binary links it by depending on it.
//!
//! ```no_run
//! # fn main() -> anyhow::Result<()> {
//! use game_host::{EngineOptions, ScriptEngine};
//!
//! let engine = ScriptEngine::new(EngineOptions {
//!     extensions: vec![game_host_terrain::extension()],
//!     ..EngineOptions::default()
//! })?;
//! # Ok(()) }
//! ```

mod bindings;
mod host;
mod noise;

use game_host::Extension;
use game_host::jobs::Job;

pub use host::link;

/// The terrain extension: links `game:terrain/terrain` and adds the
/// [`Terrain`] job kind to every runtime that runs a script of the engine.
pub fn extension() -> Extension {
    Extension::new("terrain", link).with_job(Terrain)
}

/// Samples per tile side.
pub const RESOLUTION: u32 = 128;

/// Most tiles kept in the cache; the oldest are evicted first.
const CACHE_CAPACITY: usize = 4096;

/// The terrain job kind: generates a [`Tile`] per [`TileCoord`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Terrain;

impl Job for Terrain {
    type Key = TileCoord;
    type Output = Tile;
    const NAME: &'static str = "terrain";
    const OUTPUTS_KEPT: usize = CACHE_CAPACITY;

    fn run(&self, coord: &TileCoord) -> Tile {
        Tile::generate(*coord)
    }
}

/// Highest supported detail level (tiles get 2x larger per level).
const MAX_LEVEL: u8 = 16;

/// Side length of a tile at `level`, in world units: 128 units at level 0,
/// doubling per level.
pub fn tile_size(level: u8) -> f32 {
    128.0 * f32::powi(2.0, i32::from(level.min(MAX_LEVEL)))
}

/// Which tile: detail level and grid position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileCoord {
    /// Detail level.
    pub level: u8,
    /// Grid x.
    pub x: i32,
    /// Grid y (world z).
    pub y: i32,
}

impl std::fmt::Display for TileCoord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "tile {}/{}/{}", self.level, self.x, self.y)
    }
}

/// A generated heightmap tile.
#[derive(Debug, Clone, PartialEq)]
pub struct Tile {
    /// Which tile.
    pub coord: TileCoord,
    /// Heights, row-major, `RESOLUTION` squared.
    pub heights: Vec<f32>,
    /// Lowest height.
    pub min: f32,
    /// Highest height.
    pub max: f32,
    /// Mean height.
    pub mean: f32,
}

impl Tile {
    /// Generates a tile. Pure and deterministic: the same coordinate always
    /// gives the same heights, on any thread.
    pub fn generate(coord: TileCoord) -> Tile {
        let n = RESOLUTION as usize;
        let size = tile_size(coord.level);
        let step = size / RESOLUTION as f32;
        let origin_x = coord.x as f32 * size;
        let origin_z = coord.y as f32 * size;
        let mut heights = Vec::with_capacity(n * n);
        for row in 0..n {
            for col in 0..n {
                let x = origin_x + col as f32 * step;
                let z = origin_z + row as f32 * step;
                heights.push(noise::height(x, z));
            }
        }
        let (min, max) = heights
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), h| {
                (lo.min(*h), hi.max(*h))
            });
        let mean = heights.iter().sum::<f32>() / heights.len() as f32;
        Tile {
            coord,
            heights,
            min,
            max,
            mean,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_continuous_across_tiles() {
        let a = Tile::generate(TileCoord {
            level: 0,
            x: 3,
            y: -2,
        });
        let b = Tile::generate(TileCoord {
            level: 0,
            x: 3,
            y: -2,
        });
        assert_eq!(a, b);
        assert_eq!(a.heights.len(), (RESOLUTION * RESOLUTION) as usize);
        assert!(a.min < a.max, "flat tile");
        assert!(a.min <= a.mean && a.mean <= a.max);

        // The next tile's first column continues this tile's last one.
        let right = Tile::generate(TileCoord {
            level: 0,
            x: 4,
            y: -2,
        });
        let n = RESOLUTION as usize;
        let last_col = a.heights[n - 1];
        let first_col = right.heights[0];
        assert!(
            (last_col - first_col).abs() < 2.0,
            "{last_col} vs {first_col}"
        );
    }

    #[test]
    fn cache_evicts_oldest_beyond_capacity() {
        let cache = game_host::jobs::JobOutputs::<Terrain>::new(Terrain::OUTPUTS_KEPT);
        let tile = Tile::generate(TileCoord {
            level: 0,
            x: 0,
            y: 0,
        });
        for x in 0..(CACHE_CAPACITY as i32 + 2) {
            let mut t = tile.clone();
            t.coord.x = x;
            cache.insert(t.coord, t);
        }
        assert_eq!(cache.len(), CACHE_CAPACITY);
        assert!(!cache.contains(&TileCoord {
            level: 0,
            x: 0,
            y: 0
        }));
        assert!(cache.contains(&TileCoord {
            level: 0,
            x: 2,
            y: 0
        }));
    }
}
