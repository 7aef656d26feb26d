//! [`Bucket`]: how many messages a player's client may send, a token
//! bucket refilled at a steady rate up to a burst.

use std::time::{Duration, Instant};

/// A player's messages: a token bucket, refilled at `rate` a second up to
/// `burst`.
pub(crate) struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    at: Instant,
    /// When the client was last told it was over the rate.
    told: Option<Instant>,
}

impl Bucket {
    pub fn new(rate: f64, burst: f64) -> Self {
        Bucket {
            tokens: burst,
            rate,
            burst,
            at: Instant::now(),
            told: None,
        }
    }

    /// Takes one event's token. `None`: taken; `Some(None)`: refused
    /// quietly; `Some(Some(why))`: refused, and the client is told (at most
    /// once a second).
    pub fn take(&mut self) -> Option<Option<String>> {
        let now = Instant::now();
        self.tokens = (self.tokens + (now - self.at).as_secs_f64() * self.rate).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return None;
        }
        if self
            .told
            .is_some_and(|at| now - at < Duration::from_secs(1))
        {
            return Some(None);
        }
        self.told = Some(now);
        Some(Some(format!(
            "over {} messages per second: messages are dropped",
            self.rate
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_the_rate_holds_and_the_client_is_told_once() {
        let mut bucket = Bucket::new(1.0, 3.0);
        for _ in 0..3 {
            assert_eq!(bucket.take(), None);
        }
        assert!(matches!(bucket.take(), Some(Some(_))));
        assert_eq!(bucket.take(), Some(None));
    }
}
