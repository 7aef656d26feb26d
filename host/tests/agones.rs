//! `host serve --agones` against dummy-agones, an embeddable Agones SDK
//! server (no cluster can be reached here): the server sends Health while
//! /healthz answers (from the start, Ready or not), calls Ready once it
//! listens and launched its worlds, keeps its free world slots in a label,
//! calls Allocate once it is full and Ready again once it has room, and
//! Shutdown after SIGTERM drained it, in that order. (A fleet's node under
//! Agones: `agones_fleet.rs`, a binary of its own: this one's log capture
//! is process-wide.)

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::agones::{game_server, wait_for};
use common::serve::request;

/// What dummy-agones logs of the calls it gets, kept.
#[derive(Clone, Default)]
struct Calls(Arc<Mutex<Vec<u8>>>);

impl Write for Calls {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Calls {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

#[test]
fn a_server_tells_agones_ready_its_slots_its_health_and_shutdown_in_order() {
    let calls = Calls::default();
    let writer = calls.clone();
    tracing::subscriber::set_global_default(
        tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish(),
    )
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let port = runtime
        .block_on(dummy_agones::Server::default().spawn_on_random_port())
        .unwrap();
    let mut serve = common::agones::serve(
        port,
        &["--worlds", "1", "--max-worlds", "3", "--summary-every", "0"],
    );
    wait_for(
        "Ready and two free slots",
        || {
            let server = game_server(port);
            server.contains("state: Ready") && server.contains("world-slots-free: \"2\"")
        },
        || game_server(port),
    );
    wait_for(
        "two health pings",
        || calls.text().matches("Got health message").count() >= 2,
        || format!("{}\n{}", calls.text(), serve.stderr()),
    );
    let (status, body) = request("POST", &serve.url("/worlds"), None);
    assert_eq!(status, 201, "{body}");
    wait_for(
        "one free slot",
        || game_server(port).contains("world-slots-free: \"1\""),
        || game_server(port),
    );
    // Full: allocated, so no scale-down takes it; with room again, Ready.
    let (status, body) = request("POST", &serve.url("/worlds"), None);
    assert_eq!(status, 201, "{body}");
    wait_for(
        "Allocated once full",
        || game_server(port).contains("state: Allocated"),
        || format!("{}\n{}", game_server(port), serve.stderr()),
    );
    let (status, body) = request("DELETE", &serve.url("/worlds/3"), None);
    assert_eq!(status, 200, "{body}");
    wait_for(
        "Ready again with room",
        || game_server(port).contains("state: Ready"),
        || format!("{}\n{}", game_server(port), serve.stderr()),
    );
    serve.terminate();
    assert_eq!(serve.wait(Duration::from_secs(30)), 0, "{}", serve.stderr());
    assert!(
        game_server(port).contains("state: Shutdown"),
        "{}",
        game_server(port)
    );
    let text = calls.text();
    let at = |call: &str| {
        text.find(call)
            .unwrap_or_else(|| panic!("no `{call}` in:\n{text}"))
    };
    let last = |call: &str| text.rfind(call).unwrap();
    // Health pings from the start (the control surface listens before
    // Ready, which may come after the first ping); the slots label only
    // after Ready; every one of them before Shutdown, which comes last.
    assert!(at("Got health message") < at("Got shutdown call"), "{text}");
    assert!(at("Got ready call") < at("Got set_label call"), "{text}");
    assert!(
        last("Got health message") < at("Got shutdown call"),
        "{text}"
    );
    assert!(
        last("Got set_label call") < at("Got shutdown call"),
        "{text}"
    );
    assert!(at("Got ready call") < at("Got allocate call"), "{text}");
    assert!(at("Got allocate call") < last("Got ready call"), "{text}");
    assert_eq!(text.matches("Got ready call").count(), 2, "{text}");
    assert_eq!(text.matches("Got allocate call").count(), 1, "{text}");
    assert_eq!(text.matches("Got shutdown call").count(), 1, "{text}");
    let stderr = serve.stderr();
    assert!(stderr.contains("Agones: Ready"), "{stderr}");
    assert!(stderr.contains("Agones: Shutdown"), "{stderr}");
}
