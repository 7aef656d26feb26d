//! `game:engine/tasks`: timers and cancellation (wakes reach the script
//! with `on-wake`).

use crate::guest::bindings::tasks::Host;
use crate::guest::{Command, ScriptState};

impl Host for ScriptState {
    fn wait_frames(&mut self, token: u64, frames: u32) -> wasmtime::Result<()> {
        self.push_command(Command::WaitFrames { token, frames })
    }

    fn wait_seconds(&mut self, token: u64, seconds: f64) -> wasmtime::Result<()> {
        self.push_command(Command::WaitSeconds { token, seconds })
    }

    fn cancel(&mut self, token: u64) -> wasmtime::Result<()> {
        self.push_command(Command::Cancel(token))
    }
}
