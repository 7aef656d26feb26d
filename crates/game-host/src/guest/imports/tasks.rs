//! `game:engine/tasks`: timers, cancellation and collecting wakes.

use crate::guest::bindings::tasks::{Host, Wake};
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

    fn take_wakes(&mut self) -> wasmtime::Result<Vec<Wake>> {
        Ok(std::mem::take(&mut self.wakes))
    }
}
