//! [`Warned`]: a warning that would repeat for every connection or request
//! (a flood of clients, a node gone away), logged at most once a second,
//! each line saying how many were left out since the last.

use std::time::{Duration, Instant};

/// When a warning was last logged, and how many have gone unlogged since.
pub(crate) struct Warned {
    last: Option<Instant>,
    unsaid: u64,
}

impl Warned {
    pub const fn new() -> Self {
        Warned {
            last: None,
            unsaid: 0,
        }
    }

    /// Logs `message`, unless a warning was logged less than a second ago.
    pub fn warn(&mut self, message: std::fmt::Arguments) {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|at| now.saturating_duration_since(at) < Duration::from_secs(1))
        {
            self.unsaid += 1;
            return;
        }
        match std::mem::take(&mut self.unsaid) {
            0 => tracing::warn!("{message}"),
            unsaid => tracing::warn!("{message} (and {unsaid} more like it since the last)"),
        }
        self.last = Some(now);
    }
}
