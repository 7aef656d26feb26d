//! What the Agones tests share: the GameServer as dummy-agones holds it,
//! and waiting for it to change.

use std::time::{Duration, Instant};

use super::serve::request;

/// The GameServer as dummy-agones, on `port`, holds it (YAML).
pub fn game_server(port: u16) -> String {
    request("GET", &format!("http://127.0.0.1:{port}/"), None).1
}

/// Waits up to 30 s for `done`; panics naming `what`, with what is `seen`.
pub fn wait_for(what: &str, mut done: impl FnMut() -> bool, seen: impl Fn() -> String) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "no {what}:\n{}", seen());
        std::thread::sleep(Duration::from_millis(50));
    }
}
