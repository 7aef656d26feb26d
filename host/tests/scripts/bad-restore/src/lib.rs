//! Test script: swapped in for a stateful script, it panics in
//! `restore_state`; the host must keep the old version running.

use script::Script;

struct BadRestore;

impl Script for BadRestore {
    fn entrypoint() -> Self {
        script::update::subscribe();
        BadRestore
    }

    fn restore_state(state: &[u8]) -> Option<Self> {
        panic!("cannot read {} bytes of old state", state.len());
    }
}

script::export!(BadRestore);
