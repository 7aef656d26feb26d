//! `wasi:io/poll` that never waits. `std::thread::sleep`, Python's
//! `time.sleep` and any other blocking WASI wait end in `poll` or
//! `pollable.block`, host calls that the epoch deadline cannot stop: on
//! the frame thread they would freeze every script and the frame loop.
//! Here they return at once when something is ready, and otherwise fail the
//! script with a message that names the non-blocking way to wait.

use wasmtime::component::{Linker, Resource, ResourceTable};
use wasmtime_wasi::p2::DynPollable;
use wasmtime_wasi::p2::bindings::sync::io::poll::HostPollable;

use crate::guest::ScriptState;

/// The `wasi:io/poll` interface `wasmtime_wasi::p2::add_to_linker_sync`
/// defines (tests/sandbox.rs fails if a new wasmtime-wasi names another).
const POLL: &str = "wasi:io/poll@0.2.12";

/// Why a script that would block fails.
const WOULD_BLOCK: &str = "it tried to sleep or wait in a blocking call \
    (`std::thread::sleep`, Python's `time.sleep`, a WASI poll), which would freeze the \
    frame loop; wait with `script::time::wait_seconds(s).await` (WIT `tasks.wait-seconds`) \
    instead";

/// Replaces the two waiting functions of WASI's `poll` interface, which
/// `add_to_linker_sync` must have linked before.
pub(crate) fn add_to_linker(linker: &mut Linker<ScriptState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut poll = linker.instance(POLL)?;
    poll.func_wrap(
        "poll",
        |mut store, (pollables,): (Vec<Resource<DynPollable>>,)| {
            let table = &mut store.data_mut().table;
            if pollables.is_empty() {
                wasmtime::bail!("empty poll list");
            }
            let mut ready = Vec::new();
            for (index, pollable) in (0u32..).zip(&pollables) {
                if ready_now(table, pollable)? {
                    ready.push(index);
                }
            }
            if ready.is_empty() {
                wasmtime::bail!(WOULD_BLOCK);
            }
            Ok((ready,))
        },
    )?;
    poll.func_wrap(
        "[method]pollable.block",
        |mut store, (pollable,): (Resource<DynPollable>,)| {
            if ready_now(&mut store.data_mut().table, &pollable)? {
                Ok(())
            } else {
                wasmtime::bail!(WOULD_BLOCK)
            }
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Whether `pollable` is ready now. A clock whose deadline has passed
/// yields once before it reports ready (wasmtime-wasi lets its runtime run
/// there), so it is asked twice.
fn ready_now(
    table: &mut ResourceTable,
    pollable: &Resource<DynPollable>,
) -> wasmtime::Result<bool> {
    for _ in 0..2 {
        if HostPollable::ready(table, Resource::new_borrow(pollable.rep()))? {
            return Ok(true);
        }
    }
    Ok(false)
}
