//! What one script instance may use: [`ScriptLimits`] of the machine (CPU
//! time per call, linear memory, tables), enforced by the engine, and
//! [`Quotas`] of the host's own state and work, enforced by the runtime.
//! A leaf: plain configuration.
//!
//! CPU deadlines use wasmtime's epoch interruption: compiled code checks a
//! shared epoch counter at function entries and loop back-edges, a ticker
//! thread (not the frame thread) advances it every [`TICK`], and at each
//! tick during a call the call's own CPU time is compared with its budget
//! (the `deadline` module), so a thread descheduled on a busy machine is never
//! blamed. A script past its deadline traps; the runtime handles it like
//! any other trap.

use std::time::Duration;

/// How often the ticker advances the epoch: the granularity of deadlines.
pub const TICK: Duration = Duration::from_millis(1);

/// Limits on one script instance. Defaults suit a game running untrusted
/// mods at 60 Hz.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptLimits {
    /// CPU time an `on-update` or `on-wake` call may use; `None`: no
    /// CPU deadlines at all (the engine compiles no epoch checks).
    pub update_deadline: Option<Duration>,
    /// CPU time `entrypoint`, `save-state` or `restore-state` may use (they
    /// set up state, so they get longer). Ignored without `update_deadline`.
    pub start_deadline: Duration,
    /// Wall-clock backstop of any call, whatever its CPU time: stops a call
    /// whose thread is not running it (never shorter than the call's CPU
    /// budget). Ignored without `update_deadline`.
    pub wall_deadline: Duration,
    /// Most bytes of linear memory an instance may have, summed over its
    /// memories.
    pub memory: usize,
    /// Most elements of each table.
    pub table_elements: usize,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits {
            update_deadline: Some(Duration::from_millis(5)),
            start_deadline: Duration::from_millis(100),
            wall_deadline: Duration::from_secs(1),
            memory: 64 << 20,
            table_elements: 100_000,
        }
    }
}

impl ScriptLimits {
    /// No CPU deadlines; memory and tables as large as wasm32 allows.
    pub fn unlimited() -> Self {
        ScriptLimits {
            update_deadline: None,
            start_deadline: Duration::MAX,
            wall_deadline: Duration::MAX,
            memory: 4 << 30,
            table_elements: u32::MAX as usize,
        }
    }

    /// Ticks ahead for a call of `deadline`: rounded up, plus one for the
    /// tick already under way, so a call always gets at least its deadline.
    pub fn ticks(deadline: Duration) -> u64 {
        let ticks = deadline.as_nanos().div_ceil(TICK.as_nanos());
        u64::try_from(ticks)
            .unwrap_or(u64::MAX / 2)
            .saturating_add(1)
    }
}

/// Caps on what one instance may make the host keep or do, so no script
/// can grow the host's memory or work without bound. A script that goes
/// past one fails like a trap (it is taken out of the frame, other scripts
/// keep running) with an error naming the quota; log lines past a per-frame
/// cap are dropped and summarised instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quotas {
    /// Waits pending on the host at once: timers, event waits, listeners,
    /// motions and job requests.
    pub waits: usize,
    /// Update subscriptions held at once (a script of the newest API holds
    /// at most one; a 0.1 script one per update id).
    pub subscriptions: usize,
    /// Messages sent with `send` in one frame.
    pub messages_per_frame: usize,
    /// Entities spawned over the instance's life.
    pub entities: u64,
    /// `transform-component` handles held at once.
    pub handles: usize,
    /// Requests to the host queued in one call (a backstop for floods of
    /// requests that hold nothing, such as cancels of unknown tokens).
    pub requests_per_call: usize,
    /// Completed waits queued for a script that never takes them; further
    /// ones are dropped with one warning.
    pub queued_wakes: usize,
    /// Log lines (WIT `log`, stdout and stderr together) per frame.
    pub log_lines_per_frame: usize,
    /// Log bytes per frame.
    pub log_bytes_per_frame: usize,
    /// Longest log line; longer ones are cut.
    pub log_line_length: usize,
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas {
            waits: 100_000,
            subscriptions: 1_000,
            messages_per_frame: 1_000,
            entities: 100_000,
            handles: 10_000,
            requests_per_call: 100_000,
            queued_wakes: 100_000,
            log_lines_per_frame: 100,
            log_bytes_per_frame: 64 << 10,
            log_line_length: 4 << 10,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_gets_at_least_its_deadline_in_ticks() {
        assert_eq!(ScriptLimits::ticks(Duration::from_millis(5)), 6);
        assert_eq!(ScriptLimits::ticks(Duration::from_micros(1500)), 3);
        assert!(ScriptLimits::ticks(Duration::MAX) > 1 << 40);
    }
}
