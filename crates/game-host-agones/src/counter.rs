//! The Counter `worlds`: how many worlds the server holds (its count) and
//! could hold (its capacity), for a Counter `FleetAutoscaler` to keep a
//! buffer of free world slots across the fleet.
//!
//! Agones' Counters are the SDK's beta API, on a game server that declares
//! the Counter (`counters: {worlds: ...}` in the Fleet's template, with the
//! `CountsAndLists` feature, on by default since Agones 1.41). Where the
//! game server declares no such Counter, the SDK server has no beta API or
//! Counters are off, or the server has no limit on its worlds to give as a
//! capacity, a warning says so once and the server goes on without it.

use agones::Sdk;
use agones::beta::Beta;
use tonic::Code;

use crate::why;

/// The Counter's name (`deploy/fleet.yaml` declares it).
pub const WORLDS_COUNTER: &str = "worlds";

/// The Counter as this server keeps it.
pub(crate) struct Worlds {
    beta: Beta,
    /// Whether the game server declares the Counter, once read.
    declared: Option<bool>,
    /// Count and capacity last set.
    kept: Option<(i64, i64)>,
    /// The Counter is not kept (said once).
    given_up: bool,
    /// The count and capacity whose failure was last said (said once; the
    /// next beats try again).
    warned: Option<(i64, i64)>,
}

impl Worlds {
    pub(crate) fn new(beta: Beta) -> Worlds {
        Worlds {
            beta,
            declared: None,
            kept: None,
            given_up: false,
            warned: None,
        }
    }

    /// Sets the Counter to `held` worlds of a capacity of those and `free`
    /// slots (`None`: no limit, and so no Counter), if that changed.
    pub(crate) async fn keep(&mut self, sdk: &mut Sdk, (held, free): (usize, Option<usize>)) {
        if self.given_up {
            return;
        }
        let Some(free) = free else {
            return self.give_up(
                "this server has no limit on its worlds to give as the Counter's capacity \
                 (give --max-worlds)",
            );
        };
        if self.declared.is_none() {
            match sdk.get_gameserver().await {
                Ok(server) => {
                    let counters = server.status.map(|status| status.counters);
                    let declared = counters.is_some_and(|c| c.contains_key(WORLDS_COUNTER));
                    self.declared = Some(declared);
                }
                Err(error) => {
                    return tracing::debug!("Agones: GameServer: {}", why(&error));
                }
            }
        }
        if self.declared == Some(false) {
            return self.give_up(&format!(
                "the GameServer declares no Counter `{WORLDS_COUNTER}`"
            ));
        }
        let count = i64::try_from(held).unwrap_or(i64::MAX);
        let capacity = i64::try_from(held.saturating_add(free)).unwrap_or(i64::MAX);
        if self.kept == Some((count, capacity)) {
            return;
        }
        if let Err(error) = self.set(count, capacity).await {
            if error.lasting() {
                return self.give_up(&error.why);
            }
            if self.warned != Some((count, capacity)) {
                self.warned = Some((count, capacity));
                tracing::warn!(
                    "Agones: the Counter `{WORLDS_COUNTER}` failed: {} (will try again)",
                    error.why
                );
            }
            return;
        }
        if self.kept.is_none() {
            tracing::info!(
                "Agones: counting worlds in the Counter `{WORLDS_COUNTER}` ({count} of {capacity})"
            );
        }
        self.kept = Some((count, capacity));
    }

    /// Stops keeping the Counter, saying why once.
    fn give_up(&mut self, why: &str) {
        self.given_up = true;
        tracing::warn!(
            "Agones: the worlds are not counted: {why} (deploy/fleet.yaml declares the Counter \
             `{WORLDS_COUNTER}`, on Agones 1.41 or later); a Counter FleetAutoscaler cannot scale \
             on this server"
        );
    }

    /// Sets capacity, then count: the SDK server checks a count against
    /// the capacity set before it (and cuts a count held above a capacity
    /// set down to it).
    async fn set(&mut self, count: i64, capacity: i64) -> Result<(), Failure> {
        self.beta
            .set_counter_capacity(WORLDS_COUNTER, capacity)
            .await?;
        self.beta.set_counter_count(WORLDS_COUNTER, count).await?;
        Ok(())
    }
}

/// A call about the Counter that failed: its gRPC status where the SDK
/// server answered, and why in one line.
struct Failure {
    status: Option<(Code, String)>,
    why: String,
}

impl Failure {
    /// Whether trying again cannot help: no beta API (Unimplemented), or
    /// Agones' SDK server saying Counters are off or the Counter is not
    /// declared (which it answers as Unknown, naming it).
    fn lasting(&self) -> bool {
        match &self.status {
            Some((Code::Unimplemented | Code::NotFound, _)) => true,
            Some((Code::Unknown, message)) => {
                message.contains("not found") || message.contains("not enabled")
            }
            _ => false,
        }
    }
}

impl From<agones::errors::Error> for Failure {
    fn from(error: agones::errors::Error) -> Failure {
        Failure {
            status: match &error {
                agones::errors::Error::Rpc(status) => {
                    Some((status.code(), status.message().to_owned()))
                }
                _ => None,
            },
            why: why(&error),
        }
    }
}
