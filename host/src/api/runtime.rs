//! `game:engine/runtime`: update subscriptions and the frame clock.
//!
//! Subscription changes are queued in the store data and applied by the
//! runtime after the frame's dispatch, so they take effect next frame and
//! never touch the table being iterated.

use crate::bindings::runtime::Host;
use crate::state::{ScriptState, SubscriptionRequest};

impl Host for ScriptState {
    fn subscribe_update(&mut self, id: u32) -> wasmtime::Result<()> {
        self.requests.push(SubscriptionRequest::Subscribe(id));
        Ok(())
    }

    fn unsubscribe_update(&mut self, id: u32) -> wasmtime::Result<()> {
        self.requests.push(SubscriptionRequest::Unsubscribe(id));
        Ok(())
    }

    fn delta_time(&mut self) -> wasmtime::Result<f32> {
        Ok(self.time.delta)
    }

    fn frame(&mut self) -> wasmtime::Result<u64> {
        Ok(self.time.frame)
    }

    fn time(&mut self) -> wasmtime::Result<f64> {
        Ok(self.time.time)
    }
}
