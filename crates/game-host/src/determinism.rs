//! What makes a run a function of its scripts, inputs and seed: the WASI
//! clocks a script reads report game time, and its WASI random numbers come
//! from a generator seeded from the world's seed and the instance's place
//! in the order instances were made. (Floating-point NaNs are made canonical
//! by the engine's configuration; see `engine`.)
//!
//! A leaf: it names only `time`-like shared atoms, no other layer.

use std::time::Duration;

use chacha20::ChaCha12Rng;
use chacha20::rand_core::SeedableRng;
use wasmtime_wasi::WasiCtxBuilder;
use wasmtime_wasi::{HostMonotonicClock, HostWallClock};

use crate::time::FrameClock;

/// The seed of a world when none is given: runs are the same every time
/// unless a game asks for variety (`--seed random`).
pub const DEFAULT_SEED: u64 = 0;

/// A fresh seed from the operating system, for `--seed random`.
pub fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    // The OS generator; on the (theoretical) failure, the time of day still
    // gives a seed that differs between runs.
    if rustix::rand::getrandom(&mut bytes[..], rustix::rand::GetRandomFlags::empty()).is_err() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        return now.as_nanos() as u64;
    }
    u64::from_le_bytes(bytes)
}

/// The seed of world `world` of a server seeded with `server`: each world
/// its own game, all of them following from the server's seed
/// (splitmix64 of the two).
pub fn world_seed(server: u64, world: u64) -> u64 {
    let mut z = server ^ world.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `wasi:clocks/wall-clock`: game time since the Unix epoch, so a script's
/// `SystemTime::now()`, Python's `time.time()` and JavaScript's
/// `Date.now()` start at 1970-01-01 00:00 UTC and advance one timestep a
/// frame.
impl HostWallClock for FrameClock {
    fn resolution(&self) -> Duration {
        Duration::from_secs_f64(self.dt())
    }

    fn now(&self) -> Duration {
        Duration::from_secs_f64(self.seconds())
    }
}

/// `wasi:clocks/monotonic-clock`: game time in nanoseconds. It stands still
/// within a frame; a script that spins until it advances spins until its
/// deadline stops it.
impl HostMonotonicClock for FrameClock {
    fn resolution(&self) -> u64 {
        (self.dt() * 1e9) as u64
    }

    fn now(&self) -> u64 {
        (self.seconds() * 1e9) as u64
    }
}

/// Makes `wasi` deterministic for the instance made `ordinal`-th in a world
/// seeded with `seed`: its clocks read game time and its random numbers
/// (`wasi:random/random`, `insecure`, `insecure-seed`) come from ChaCha12
/// streams keyed by the seed, the ordinal and the stream. ChaCha12 is a
/// fixed, portable algorithm, so the numbers are the same on every machine
/// and host version that keeps this key layout.
pub(crate) fn seed_wasi(wasi: &mut WasiCtxBuilder, clock: &FrameClock, seed: u64, ordinal: u64) {
    let key = |stream: u8| {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        key[8..16].copy_from_slice(&ordinal.to_le_bytes());
        key[16] = stream;
        key
    };
    let insecure_seed = {
        let mut rng = ChaCha12Rng::from_seed(key(2));
        let mut bytes = [0u8; 16];
        chacha20::rand_core::Rng::fill_bytes(&mut rng, &mut bytes);
        u128::from_le_bytes(bytes)
    };
    wasi.wall_clock(clock.clone())
        .monotonic_clock(clock.clone())
        .secure_random(ChaCha12Rng::from_seed(key(0)))
        .insecure_random(ChaCha12Rng::from_seed(key(1)))
        .insecure_random_seed(insecure_seed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worlds_get_seeds_of_their_own() {
        assert_eq!(world_seed(7, 1), world_seed(7, 1));
        assert_ne!(world_seed(7, 1), world_seed(7, 2));
        assert_ne!(world_seed(7, 1), world_seed(8, 1));
    }

    #[test]
    fn clocks_read_game_time() {
        let mut clock = FrameClock::new(60.0);
        assert_eq!(HostWallClock::now(&clock), Duration::ZERO);
        for _ in 0..90 {
            clock.advance();
        }
        assert_eq!(HostWallClock::now(&clock), Duration::from_millis(1500));
        assert_eq!(HostMonotonicClock::now(&clock), 1_500_000_000);
    }
}
