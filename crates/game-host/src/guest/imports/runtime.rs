//! `game:engine/runtime`: update subscriptions and the frame clock, read
//! from the runtime's shared [`FrameClock`](crate::time::FrameClock).
//!
//! Subscription changes are queued in the store data and applied by the
//! runtime after the frame's dispatch, so they take effect next frame and
//! never touch the table being iterated.

use crate::guest::bindings::runtime::Host;
use crate::guest::{Command, ScriptState};
use crate::log::{LogLevel, LogSource};
use crate::time::WAKE_MESSAGE;

impl Host for ScriptState {
    fn subscribe_update(&mut self, id: u32) -> wasmtime::Result<()> {
        if id == WAKE_MESSAGE {
            self.identity.log(
                LogLevel::Warn,
                LogSource::Api,
                format!("ignored subscribe-update({id}): that id is reserved for wake messages"),
            );
            return Ok(());
        }
        self.push_command(Command::Subscribe(id))
    }

    fn unsubscribe_update(&mut self, id: u32) -> wasmtime::Result<()> {
        self.push_command(Command::Unsubscribe(id))
    }

    fn delta_time(&mut self) -> wasmtime::Result<f32> {
        Ok(self.now().delta)
    }

    fn frame(&mut self) -> wasmtime::Result<u64> {
        Ok(self.now().frame)
    }

    fn time(&mut self) -> wasmtime::Result<f64> {
        Ok(self.now().time)
    }
}
