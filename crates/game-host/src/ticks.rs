//! A cheap clock for timing script calls: [`now`] reads the CPU's
//! time-stamp counter on x86-64 (one `rdtsc`: a few nanoseconds, against
//! some 20 for `Instant::now`, which would cost a no-op call a tenth more),
//! and nanoseconds since the first reading elsewhere. [`seconds`] turns
//! ticks into time. A leaf.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The clock, in ticks.
#[inline]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `rdtsc` exists on every x86-64 CPU and only reads the
        // time-stamp counter; it has no preconditions. (Modern CPUs keep
        // the counter at a constant rate across cores and power states.)
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        static START: OnceLock<Instant> = OnceLock::new();
        u64::try_from(START.get_or_init(Instant::now).elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// Ticks per second: measured once, over 20 ms, the first time it is asked
/// (a server asks at its start, so no loop thread waits for it).
fn rate() -> f64 {
    static RATE: OnceLock<f64> = OnceLock::new();
    if cfg!(not(target_arch = "x86_64")) {
        return 1e9; // nanoseconds already
    }
    *RATE.get_or_init(|| {
        let (start, ticks) = (Instant::now(), now());
        std::thread::sleep(Duration::from_millis(20));
        let counted = now().saturating_sub(ticks) as f64;
        (counted / start.elapsed().as_secs_f64()).max(1.0)
    })
}

/// `ticks` as seconds.
pub fn seconds(ticks: u64) -> f64 {
    ticks as f64 / rate()
}

/// Measures the clock's rate now (20 ms, once per process), so that no
/// later reading waits for it.
pub fn calibrate() {
    rate();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_measure_time() {
        let before = now();
        std::thread::sleep(Duration::from_millis(30));
        let slept = seconds(now().saturating_sub(before));
        assert!((0.025..1.0).contains(&slept), "{slept}");
    }
}
