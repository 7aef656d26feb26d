//! Test script: changes its subscriptions from inside `on_message` and logs
//! `frame F msg ID` for every message, so a test can check when each change
//! took effect.
//!
//! - entrypoint: subscribe 1, unsubscribe 1, subscribe 1 (net: subscribed to 1)
//! - frame 2, msg 1: subscribe 2
//! - frame 4, msg 1: unsubscribe 1
//! - frame 5, msg 2: subscribe 1 twice
//! - frame 8, msg 2: unsubscribe 1 and 2

use script::Script;

struct Churn;

impl Script for Churn {
    fn entrypoint() -> Self {
        script::update::subscribe(1);
        script::update::unsubscribe(1);
        script::update::subscribe(1);
        Churn
    }

    fn on_message(&mut self, id: u32) {
        let frame = script::time::frame();
        script::log::info(&format!("frame {frame} msg {id}"));
        match (frame, id) {
            (2, 1) => script::update::subscribe(2),
            (4, 1) => script::update::unsubscribe(1),
            (5, 2) => {
                script::update::subscribe(1);
                script::update::subscribe(1);
            }
            (8, 2) => {
                script::update::unsubscribe(1);
                script::update::unsubscribe(2);
            }
            _ => {}
        }
    }
}

script::export!(Churn);
