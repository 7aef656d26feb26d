//! Interleaved timing rounds, shared by the peer benchmarks
//! (`benches/peers.rs`, and `peers/bevy`'s, which cannot depend on this
//! crate): each side's median time per operation, and how to print one.

use std::time::{Duration, Instant};

/// One side of a scenario: a name and one operation.
pub(crate) struct Side<'a> {
    pub name: &'static str,
    pub op: Box<dyn FnMut() + 'a>,
}

/// Times `ops` calls of each side per round, rounds interleaved; returns
/// each side's name and median time per call.
pub(crate) fn interleaved(
    sides: &mut [Side<'_>],
    ops: u32,
    rounds: u32,
) -> Vec<(&'static str, Duration)> {
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); sides.len()];
    for side in sides.iter_mut() {
        for _ in 0..ops.min(100) {
            (side.op)(); // warm up
        }
    }
    for _ in 0..rounds {
        for (side, times) in sides.iter_mut().zip(&mut times) {
            let started = Instant::now();
            for _ in 0..ops {
                (side.op)();
            }
            times.push(started.elapsed() / ops);
        }
    }
    sides
        .iter()
        .zip(times)
        .map(|(side, mut t)| {
            t.sort();
            (side.name, t[t.len() / 2])
        })
        .collect()
}

/// A duration in nanoseconds.
pub(crate) fn ns(d: Duration) -> f64 {
    d.as_secs_f64() * 1e9
}

/// `ns` nanoseconds, in ns, µs or ms.
pub(crate) fn duration(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e4 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns >= 10.0 {
        format!("{ns:.0} ns")
    } else {
        format!("{ns:.1} ns")
    }
}
