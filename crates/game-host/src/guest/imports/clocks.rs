//! `wasi:clocks/monotonic-clock` timers in game time. wasmtime-wasi's own
//! `subscribe-duration` and `subscribe-instant` make pollables that become
//! ready by the machine's real time, which a script could watch through
//! `pollable.ready` and so see how fast the machine runs. Here a timer is
//! ready once game time (the clock scripts read, see `determinism`) reaches
//! it: in a later frame, never within the frame it was made in unless it
//! was due at once.

use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::HostMonotonicClock;
use wasmtime_wasi::p2::{DynPollable, Pollable, subscribe};

use crate::guest::ScriptState;
use crate::time::FrameClock;

/// The `wasi:clocks/monotonic-clock` interface
/// `wasmtime_wasi::p2::add_to_linker_sync` defines (`tests/sandbox.rs`
/// fails if a new wasmtime-wasi names another).
const MONOTONIC_CLOCK: &str = "wasi:clocks/monotonic-clock@0.2.12";

/// A timer due when game time reaches `at` nanoseconds.
struct GameTimer {
    clock: FrameClock,
    at: u64,
}

#[async_trait::async_trait]
impl Pollable for GameTimer {
    async fn ready(&mut self) {
        if HostMonotonicClock::now(&self.clock) < self.at {
            std::future::pending::<()>().await;
        }
    }
}

/// A pollable for a timer due at game time `at` (nanoseconds).
fn timer(state: &mut ScriptState, at: u64) -> wasmtime::Result<Resource<DynPollable>> {
    let clock = state.clock.clone();
    let timer = state.table.push(GameTimer { clock, at })?;
    subscribe(&mut state.table, timer)
}

/// Replaces the two timer functions of the monotonic clock, which
/// `add_to_linker_sync` must have linked before.
pub(crate) fn add_to_linker(linker: &mut Linker<ScriptState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut clock = linker.instance(MONOTONIC_CLOCK)?;
    clock.func_wrap("subscribe-duration", |mut store, (duration,): (u64,)| {
        let state = store.data_mut();
        let at = HostMonotonicClock::now(&state.clock).saturating_add(duration);
        Ok((timer(state, at)?,))
    })?;
    clock.func_wrap("subscribe-instant", |mut store, (at,): (u64,)| {
        Ok((timer(store.data_mut(), at)?,))
    })?;
    linker.allow_shadowing(false);
    Ok(())
}
