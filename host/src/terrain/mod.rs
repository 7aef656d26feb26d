//! Procedural terrain: deterministic heightmap tiles, generated on worker
//! threads and kept in a shared cache that scripts read.

mod noise;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, RwLock};

use crate::bindings::terrain::{TileInfo, TileKey};

/// Samples per tile side.
pub const RESOLUTION: u32 = 128;

/// Most tiles kept in the cache; the oldest are evicted first.
const CACHE_CAPACITY: usize = 4096;

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

    pub(crate) fn info(&self) -> TileInfo {
        TileInfo {
            key: self.coord.into(),
            resolution: RESOLUTION,
            min_height: self.min,
            max_height: self.max,
            mean_height: self.mean,
        }
    }
}

/// Generated tiles, shared between the runtime (which fills it) and script
/// instances (which read it).
#[derive(Debug, Default)]
pub struct TileCache {
    inner: RwLock<CacheInner>,
}

#[derive(Debug, Default)]
struct CacheInner {
    tiles: HashMap<TileCoord, Arc<Tile>>,
    order: VecDeque<TileCoord>,
}

impl TileCache {
    /// The tile, if generated.
    pub fn get(&self, coord: TileCoord) -> Option<Arc<Tile>> {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        inner.tiles.get(&coord).cloned()
    }

    /// Whether the tile is generated.
    pub fn contains(&self, coord: TileCoord) -> bool {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        inner.tiles.contains_key(&coord)
    }

    pub(crate) fn insert(&self, tile: Tile) {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let coord = tile.coord;
        if inner.tiles.insert(coord, Arc::new(tile)).is_none() {
            inner.order.push_back(coord);
        }
        while inner.order.len() > CACHE_CAPACITY {
            if let Some(old) = inner.order.pop_front() {
                inner.tiles.remove(&old);
            }
        }
    }

    /// Number of cached tiles.
    pub fn len(&self) -> usize {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        inner.tiles.len()
    }

    /// Whether no tile is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
        let cache = TileCache::default();
        let tile = Tile::generate(TileCoord {
            level: 0,
            x: 0,
            y: 0,
        });
        for x in 0..(CACHE_CAPACITY as i32 + 2) {
            let mut t = tile.clone();
            t.coord.x = x;
            cache.insert(t);
        }
        assert_eq!(cache.len(), CACHE_CAPACITY);
        assert!(!cache.contains(TileCoord {
            level: 0,
            x: 0,
            y: 0
        }));
        assert!(cache.contains(TileCoord {
            level: 0,
            x: 2,
            y: 0
        }));
    }
}
