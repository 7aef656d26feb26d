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

/// `host serve --agones` with `args`, reporting to the SDK server on
/// `port`.
pub fn serve(port: u16, args: &[&str]) -> super::serve::Serve {
    let mut all = vec!["--agones"];
    all.extend_from_slice(args);
    super::serve::Serve::start_with(&all, &[("AGONES_SDK_GRPC_PORT", &port.to_string())])
}

/// Sets the GameServer dummy-agones on `port` holds (YAML, as Agones
/// would have it).
pub fn set_game_server(port: u16, yaml: &str) {
    let mut posted = super::serve::agent()
        .post(&format!("http://127.0.0.1:{port}/"))
        .header("Content-Type", "application/yaml")
        .send(yaml)
        .unwrap();
    assert_eq!(
        posted.status().as_u16(),
        200,
        "{}",
        posted.body_mut().read_to_string().unwrap_or_default()
    );
}
