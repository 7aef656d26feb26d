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
//! blamed. An update past its deadline spends its instance's CPU credit;
//! with none left it traps, and the runtime handles it like any other
//! trap.

use std::time::Duration;

/// How often the ticker advances the epoch: the granularity of deadlines.
pub const TICK: Duration = Duration::from_millis(1);

/// Limits on one script instance. Defaults suit a game running untrusted
/// mods at 60 Hz.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptLimits {
    /// CPU time an `on-update` or `on-wake` call may use, plus its
    /// instance's CPU credit (four times this at the start; each call that
    /// ends within this saves a tenth of it, up to four times this); `None`:
    /// no CPU deadlines at all (the engine compiles no epoch checks).
    pub update_deadline: Option<Duration>,
    /// CPU time `entrypoint`, `save-state` or `restore-state` may use (they
    /// set up state, so they get longer). Ignored without `update_deadline`.
    pub start_deadline: Duration,
    /// Wall-clock backstop of any call, whatever its CPU time: stops a call
    /// whose thread is not running it (never shorter than the CPU time the
    /// call may use, its credit included). Ignored without `update_deadline`.
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

macro_rules! quotas {
    ($( $(#[doc = $doc:literal])* $field:ident: $ty:ty = $default:expr, $name:literal; )*) => {
        /// What a script instance may make the host keep or do, so no script
        /// can grow the host's memory or work without bound. A script that goes
        /// past one fails like a trap (it is taken out of the frame, other scripts
        /// keep running) with an error naming the quota; log lines past a per-frame
        /// cap are dropped and summarised instead.
        ///
        /// Each quota is declared once, in the table below: its field, its type,
        /// its default and the name a game sets it by (`--quota NAME=N`,
        /// [`Quotas::set`]). Those a script can exceed by asking are charged in
        /// one place, `guest::usage`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct Quotas {
            $(
                $(#[doc = $doc])*
                pub $field: $ty,
            )*
        }

        impl Default for Quotas {
            fn default() -> Self {
                Quotas {
                    $( $field: $default, )*
                }
            }
        }

        impl Quotas {
            /// The names quotas are set by, in declaration order.
            pub const NAMES: &[&str] = &[$($name),*];

            /// The quota named `name`, if it is one.
            pub fn get(&self, name: &str) -> Option<u64> {
                match name {
                    $( $name => u64::try_from(self.$field).ok(), )*
                    _ => None,
                }
            }

            /// Sets the quota named `name` (one of [`Quotas::NAMES`]) to
            /// `value`; fails naming the known names, or when `value` is 0.
            pub fn set(&mut self, name: &str, value: u64) -> Result<(), String> {
                if value == 0 {
                    return Err(format!("quota `{name}` must be at least 1"));
                }
                match name {
                    $( $name => {
                        self.$field = <$ty>::try_from(value)
                            .map_err(|_| format!("quota `{name}` is too large: {value}"))?;
                    } )*
                    _ => {
                        return Err(format!(
                            "`{name}` is no quota; quotas are: {}",
                            Self::NAMES.join(", ")
                        ))
                    }
                }
                Ok(())
            }
        }
    };
}

quotas! {
    /// Waits pending on the host at once: timers, event waits, listeners,
    /// motions and job requests.
    waits: usize = 100_000, "waits";
    /// Update subscriptions held at once (a script of the newest API holds
    /// at most one; a 0.1 script one per update id).
    subscriptions: usize = 1_000, "subscriptions";
    /// Messages sent in one frame: `send` to scripts, `send-to` and
    /// `broadcast` to players.
    messages_per_frame: usize = 1_000, "messages-per-frame";
    /// Entities spawned over the instance's life.
    entities: u64 = 100_000, "entities";
    /// `transform-component` handles held at once.
    handles: usize = 10_000, "handles";
    /// Requests to the host queued in one call (a backstop for floods of
    /// requests that hold nothing, such as cancels of unknown tokens).
    requests_per_call: usize = 100_000, "requests-per-call";
    /// Completed waits queued for a script that never takes them (a 0.1
    /// script); further ones are dropped with one warning.
    queued_wakes: usize = 100_000, "queued-wakes";
    /// Log lines (WIT `log`, stdout and stderr together) per frame.
    log_lines_per_frame: usize = 100, "log-lines-per-frame";
    /// Log bytes per frame.
    log_bytes_per_frame: usize = 64 << 10, "log-bytes-per-frame";
    /// Longest log line; longer ones are cut.
    log_line_length: usize = 4 << 10, "log-line-length";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_are_set_by_name_and_bad_names_or_values_are_refused() {
        let mut quotas = Quotas::default();
        quotas.set("entities", 500).unwrap();
        quotas.set("messages-per-frame", 3).unwrap();
        assert_eq!(quotas.entities, 500);
        assert_eq!(quotas.messages_per_frame, 3);
        assert_eq!(Quotas::NAMES.len(), 10);
        let error = quotas.set("entitys", 5).unwrap_err();
        assert!(
            error.starts_with("`entitys` is no quota; quotas are: waits, "),
            "{error}"
        );
        assert!(quotas.set("waits", 0).unwrap_err().contains("at least 1"));
        assert_eq!(Quotas::default().waits, 100_000);
    }

    #[test]
    fn a_call_gets_at_least_its_deadline_in_ticks() {
        assert_eq!(ScriptLimits::ticks(Duration::from_millis(5)), 6);
        assert_eq!(ScriptLimits::ticks(Duration::from_micros(1500)), 3);
        assert!(ScriptLimits::ticks(Duration::MAX) > 1 << 40);
    }
}
