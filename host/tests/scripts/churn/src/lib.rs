//! Test script: a 0.1 script (it binds the frozen `wit/v0.1/` directly, as
//! a script built against that release did) that changes its update ids
//! from inside `on-message` and logs `frame F msg ID` for every message,
//! so a test can check when each change took effect.
//!
//! - entrypoint: subscribe 1, unsubscribe 1, subscribe 1 (net: subscribed to 1)
//! - frame 2, msg 1: subscribe 2
//! - frame 4, msg 1: unsubscribe 1
//! - frame 5, msg 2: subscribe 1 twice
//! - frame 8, msg 2: unsubscribe 1 and 2

wit_bindgen::generate!({
    path: "../../../../wit/v0.1",
    world: "script",
});

use game::engine::log::{Level, log};
use game::engine::runtime::{
    frame, subscribe_update as subscribe, unsubscribe_update as unsubscribe,
};

struct Churn;

impl Guest for Churn {
    fn entrypoint() {
        subscribe(1);
        unsubscribe(1);
        subscribe(1);
    }

    fn on_message(id: u32) {
        let frame = frame();
        log(Level::Info, &format!("frame {frame} msg {id}"));
        match (frame, id) {
            (2, 1) => subscribe(2),
            (4, 1) => unsubscribe(1),
            (5, 2) => {
                subscribe(1);
                subscribe(1);
            }
            (8, 2) => {
                unsubscribe(1);
                unsubscribe(2);
            }
            _ => {}
        }
    }
}

export!(Churn);
