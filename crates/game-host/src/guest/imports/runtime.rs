//! `game:engine/runtime`: the update subscription and the frame clock,
//! read from the runtime's shared [`FrameClock`](crate::time::FrameClock).
//!
//! Subscription changes are queued in the store data and applied by the
//! runtime after the frame's dispatch, so they take effect next frame and
//! never touch the table being iterated.

use crate::guest::bindings::runtime::{FrameClock, Host};
use crate::guest::{Command, ScriptState};
use crate::time::UPDATE;

impl Host for ScriptState {
    fn subscribe_update(&mut self) -> wasmtime::Result<()> {
        self.push_command(Command::Subscribe(UPDATE))
    }

    fn unsubscribe_update(&mut self) -> wasmtime::Result<()> {
        self.push_command(Command::Unsubscribe(UPDATE))
    }

    fn clock(&mut self) -> wasmtime::Result<FrameClock> {
        Ok(self.frame_clock())
    }
}
