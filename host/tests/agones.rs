//! `host serve --agones` against dummy-agones, an embeddable Agones SDK
//! server (no cluster can be reached here): the server calls Ready once it
//! listens and launched its worlds, Allocate while it holds a world (and
//! Ready again once it holds none), keeps its free world slots in a label,
//! sends Health while /healthz answers, and calls Shutdown after SIGTERM
//! drained it, in that order. A node of a fleet advertises the address and
//! port Agones gives its game server.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::serve::{Serve, request};

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

/// The GameServer as dummy-agones holds it (YAML).
fn game_server(port: u16) -> String {
    request("GET", &format!("http://127.0.0.1:{port}/"), None).1
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool, seen: impl Fn() -> String) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "no {what}:\n{}", seen());
        std::thread::sleep(Duration::from_millis(50));
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
    let port_text = port.to_string();
    let mut serve = Serve::start_with(
        &[
            "--agones",
            "--worlds",
            "1",
            "--max-worlds",
            "3",
            "--summary-every",
            "0",
        ],
        &[("AGONES_SDK_GRPC_PORT", &port_text)],
    );
    // It holds its launched world: allocated.
    wait_for(
        "Allocated and two free slots",
        || {
            let server = game_server(port);
            server.contains("state: Allocated") && server.contains("world-slots-free: \"2\"")
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
    // Ready first; then health pings and the slots label, every one of
    // them before Shutdown, which comes last.
    assert!(at("Got ready call") < at("Got health message"), "{text}");
    assert!(at("Got ready call") < at("Got allocate call"), "{text}");
    assert!(at("Got allocate call") < at("Got shutdown call"), "{text}");
    assert!(at("Got ready call") < at("Got set_label call"), "{text}");
    assert!(
        last("Got health message") < at("Got shutdown call"),
        "{text}"
    );
    assert!(
        last("Got set_label call") < at("Got shutdown call"),
        "{text}"
    );
    assert_eq!(text.matches("Got ready call").count(), 1, "{text}");
    assert_eq!(text.matches("Got shutdown call").count(), 1, "{text}");
    let stderr = serve.stderr();
    assert!(stderr.contains("Agones: Ready"), "{stderr}");
    assert!(stderr.contains("Agones: Shutdown"), "{stderr}");
}

/// The status Agones gives a scheduled game server: its node's address,
/// and the host port of its port `control`.
const SCHEDULED: &str = "status:
  state: Scheduled
  address: 198.51.100.7
  addresses: []
  ports:
  - name: control
    port: 7777
  counters: {}
  lists: {}
";

#[test]
fn a_fleet_node_advertises_its_agones_address_and_is_allocated_while_it_holds_a_world() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let port = runtime
        .block_on(dummy_agones::Server::default().spawn_on_random_port())
        .unwrap();
    let mut posted = common::serve::agent()
        .post(&format!("http://127.0.0.1:{port}/"))
        .header("Content-Type", "application/yaml")
        .send(SCHEDULED)
        .unwrap();
    assert_eq!(
        posted.status().as_u16(),
        200,
        "{}",
        posted.body_mut().read_to_string().unwrap_or_default()
    );
    let dir = tempfile::tempdir().unwrap();
    let redis = common::fleet::Redis::start(dir.path());
    let port_text = port.to_string();
    let node = common::fleet::node_with(
        &redis,
        &dir.path().join("node"),
        "127.0.0.1:0",
        &["--agones"],
        &[("AGONES_SDK_GRPC_PORT", &port_text)],
    );
    let advertised = "198.51.100.7:7777";
    assert!(
        node.stderr()
            .contains(&format!("fleet: advertising {advertised}, Agones' address")),
        "{}",
        node.stderr()
    );
    let nodes = redis.cli(&["HGETALL", "fleet:nodes"]);
    assert!(nodes.contains(advertised), "{nodes}");
    wait_for(
        "Ready with no world",
        || game_server(port).contains("state: Ready"),
        || game_server(port),
    );
    let (status, body) = request("POST", &node.url("/worlds"), None);
    assert_eq!(status, 201, "{body}");
    wait_for(
        "Allocated while it holds a world",
        || game_server(port).contains("state: Allocated"),
        || format!("{}\n{}", game_server(port), node.stderr()),
    );
    let id = common::serve::json(&body)["id"].as_u64().unwrap();
    let (status, body) = request("DELETE", &node.url(&format!("/worlds/{id}")), None);
    assert_eq!(status, 200, "{body}");
    wait_for(
        "Ready again once it holds none",
        || game_server(port).contains("state: Ready"),
        || format!("{}\n{}", game_server(port), node.stderr()),
    );
}
