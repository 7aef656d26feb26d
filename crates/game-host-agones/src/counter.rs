//! The Counter `worlds`: how many worlds the server holds (its count) and
//! could hold (its capacity), for a Counter `FleetAutoscaler` to keep a
//! buffer of free world slots across the fleet.
//!
//! Agones' Counters are the SDK's beta API, on a game server that declares
//! the Counter (`counters: {worlds: ...}` in the Fleet's template, with the
//! `CountsAndLists` feature, on by default since Agones 1.41). Where the
//! SDK server has no beta API or the game server no such Counter, a warning
//! says so once and the server goes on without it.

use agones::beta::Beta;
use tonic::Code;

use crate::why;

/// The Counter's name (`deploy/fleet.yaml` declares it).
pub const WORLDS_COUNTER: &str = "worlds";

/// The Counter as this server last set it.
pub(crate) struct Worlds {
    beta: Beta,
    /// Count and capacity (`None`: left as the game server declares it,
    /// the server having no limit of its own) last set.
    kept: Option<(i64, Option<i64>)>,
    /// The count the SDK server holds, once read.
    count: Option<i64>,
    /// The Counter cannot be kept (said once).
    given_up: bool,
    /// The count and capacity whose failure was last said (said once; the
    /// next beats try again).
    warned: Option<(i64, Option<i64>)>,
}

impl Worlds {
    pub(crate) fn new(beta: Beta) -> Worlds {
        Worlds {
            beta,
            kept: None,
            count: None,
            given_up: false,
            warned: None,
        }
    }

    /// Sets the Counter to `worlds` held, of a capacity of those and
    /// `free` slots (`None`: no limit), if that changed.
    pub(crate) async fn keep(&mut self, worlds: usize, free: Option<usize>) {
        let count = i64::try_from(worlds).unwrap_or(i64::MAX);
        let capacity =
            free.map(|free| i64::try_from(worlds.saturating_add(free)).unwrap_or(i64::MAX));
        if self.given_up || self.kept == Some((count, capacity)) {
            return;
        }
        if let Err(error) = self.set(count, capacity).await {
            match error.code {
                Some(Code::Unimplemented | Code::NotFound) => {
                    self.given_up = true;
                    tracing::warn!(
                        "Agones: the worlds are not counted: {} (declare the Counter \
                         `{WORLDS_COUNTER}` in the Fleet's template, as deploy/fleet.yaml does, \
                         on Agones 1.41 or later); a Counter FleetAutoscaler cannot scale this fleet",
                        error.why
                    );
                }
                _ if self.warned == Some((count, capacity)) => {}
                _ => {
                    self.warned = Some((count, capacity));
                    tracing::warn!(
                        "Agones: the Counter `{WORLDS_COUNTER}` failed: {} (will try again)",
                        error.why
                    );
                }
            }
            return;
        }
        if self.kept.is_none() {
            tracing::info!(
                "Agones: counting worlds in the Counter `{WORLDS_COUNTER}` ({count} of {})",
                capacity.map_or_else(
                    || "the declared capacity".to_owned(),
                    |capacity| capacity.to_string()
                )
            );
        }
        self.kept = Some((count, capacity));
    }

    /// Sets count and capacity in an order that keeps the count within
    /// the capacity at every step (the SDK server refuses a count above
    /// it): the capacity first unless it falls below the count held.
    async fn set(&mut self, count: i64, capacity: Option<i64>) -> Result<(), Failure> {
        let held = match self.count {
            Some(held) => held,
            None => self
                .beta
                .get_counter_count(WORLDS_COUNTER)
                .await
                .map_err(Failure::from)?,
        };
        let capacity_first = capacity.is_some_and(|capacity| capacity >= held);
        if let (true, Some(capacity)) = (capacity_first, capacity) {
            self.beta
                .set_counter_capacity(WORLDS_COUNTER, capacity)
                .await?;
        }
        self.beta.set_counter_count(WORLDS_COUNTER, count).await?;
        self.count = Some(count);
        if let (false, Some(capacity)) = (capacity_first, capacity) {
            self.beta
                .set_counter_capacity(WORLDS_COUNTER, capacity)
                .await?;
        }
        Ok(())
    }
}

/// A call about the Counter that failed: its gRPC code where the SDK
/// server answered, and why in one line.
struct Failure {
    code: Option<Code>,
    why: String,
}

impl From<agones::errors::Error> for Failure {
    fn from(error: agones::errors::Error) -> Failure {
        Failure {
            code: match &error {
                agones::errors::Error::Rpc(status) => Some(status.code()),
                _ => None,
            },
            why: why(&error),
        }
    }
}
