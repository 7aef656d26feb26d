//! Terrain tile requests: deduplicated generation on the job pool, a shared
//! cache, and delivery to waiting scripts at a frame boundary.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::bindings::tasks::Wake;
use crate::runtime::jobs::JobPool;
use crate::runtime::waits::{WaitKey, Waits};
use crate::terrain::{Tile, TileCache, TileCoord};

/// When finished background jobs reach scripts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum JobDelivery {
    /// At the first frame boundary after they finish; the frame thread never
    /// waits (real-time play).
    #[default]
    WhenReady,
    /// Always at the next frame boundary after the request: the frame thread
    /// waits for outstanding jobs, so runs are reproducible frame for frame
    /// (headless simulation and tests).
    Lockstep,
}

/// Counters of tile work over the life of a runtime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobStats {
    /// Tile requests made by scripts.
    pub requests: u64,
    /// Requests served by a tile already generated or being generated.
    pub shared: u64,
    /// Tiles generated.
    pub generated: u64,
    /// Queued tiles dropped because every request for them was withdrawn.
    pub withdrawn: u64,
}

pub(crate) struct TileJobs {
    pool: JobPool<TileCoord, Tile>,
    cache: Arc<TileCache>,
    delivery: JobDelivery,
    /// Who waits for each tile, in request order.
    waiters: HashMap<TileCoord, Vec<WaitKey>>,
    /// Submitted to the pool and not yet back.
    in_flight: HashSet<TileCoord>,
    /// Cached tiles whose waiters are woken at the next boundary.
    ready: Vec<TileCoord>,
    /// Order of first request, so deliveries are in a stable order.
    first_request: HashMap<TileCoord, u64>,
    next_request: u64,
    stats: JobStats,
}

impl TileJobs {
    pub fn new(threads: usize, delivery: JobDelivery) -> Self {
        TileJobs {
            pool: JobPool::new(threads, Tile::generate),
            cache: Arc::new(TileCache::default()),
            delivery,
            waiters: HashMap::new(),
            in_flight: HashSet::new(),
            ready: Vec::new(),
            first_request: HashMap::new(),
            next_request: 0,
            stats: JobStats::default(),
        }
    }

    pub fn cache(&self) -> &Arc<TileCache> {
        &self.cache
    }

    pub fn stats(&self) -> JobStats {
        self.stats
    }

    /// Registers a request; starts generation unless the tile is cached or
    /// already being generated.
    pub fn request(&mut self, key: WaitKey, coord: TileCoord, waits: &mut Waits) {
        waits.add_tile(key, coord);
        self.stats.requests += 1;
        self.waiters.entry(coord).or_default().push(key);
        self.first_request.entry(coord).or_insert_with(|| {
            self.next_request += 1;
            self.next_request
        });
        if self.cache.contains(coord) {
            self.stats.shared += 1;
            if !self.ready.contains(&coord) {
                self.ready.push(coord);
            }
        } else if self.in_flight.contains(&coord) {
            self.stats.shared += 1;
        } else {
            self.in_flight.insert(coord);
            self.pool.submit(coord);
        }
    }

    /// Forgets a withdrawn request; drops the queued job if nobody else
    /// waits for it.
    pub fn withdraw(&mut self, key: WaitKey, coord: TileCoord) {
        let Some(list) = self.waiters.get_mut(&coord) else {
            return;
        };
        list.retain(|k| *k != key);
        if !list.is_empty() {
            return;
        }
        self.waiters.remove(&coord);
        if self.in_flight.contains(&coord) && self.pool.withdraw(&coord) {
            self.in_flight.remove(&coord);
            self.first_request.remove(&coord);
            self.stats.withdrawn += 1;
        }
    }

    /// Collects finished tiles and wakes their waiters.
    pub fn deliver(&mut self, waits: &mut Waits, out: &mut Vec<(u32, Wake)>) {
        let mut finished = std::mem::take(&mut self.ready);
        loop {
            let next = match self.delivery {
                JobDelivery::Lockstep if !self.in_flight.is_empty() => self.pool.wait_result(),
                _ => self.pool.try_result(),
            };
            let Some((coord, tile)) = next else { break };
            self.in_flight.remove(&coord);
            self.cache.insert(tile);
            self.stats.generated += 1;
            finished.push(coord);
        }
        finished.sort_by_key(|c| self.first_request.get(c).copied().unwrap_or(u64::MAX));
        for coord in finished {
            self.first_request.remove(&coord);
            for key in self.waiters.remove(&coord).unwrap_or_default() {
                waits.complete_tile(key, coord, out);
            }
        }
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }
}
