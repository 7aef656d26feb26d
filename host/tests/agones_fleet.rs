//! A node of a fleet under Agones (`host serve --fleet URL --agones`,
//! against dummy-agones and a Redis of the test's own) advertises to the
//! other nodes the address and port Agones gives its game server: the
//! node's internal address (what nodes relay to each other stays off the
//! public network) and the host port of its port named `control`.

mod common;

use common::agones::{game_server, wait_for};
use common::serve::request;

/// The status Agones gives a scheduled game server: its node's addresses,
/// and the host port of its port `control`.
const SCHEDULED: &str = "status:
  state: Scheduled
  address: 203.0.113.9
  addresses:
  - type: ExternalIP
    address: 203.0.113.9
  - type: InternalIP
    address: 198.51.100.7
  ports:
  - name: control
    port: 7777
  counters: {}
  lists: {}
";

#[test]
fn a_fleet_node_advertises_the_internal_address_and_port_agones_gives_its_game_server() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let port = runtime
        .block_on(dummy_agones::Server::default().spawn_on_random_port())
        .unwrap();
    common::agones::set_game_server(port, SCHEDULED);
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
    // It serves, and is Ready: one world is far from full.
    let (status, body) = request("POST", &node.url("/worlds"), None);
    assert_eq!(status, 201, "{body}");
    wait_for(
        "Ready",
        || game_server(port).contains("state: Ready"),
        || format!("{}\n{}", game_server(port), node.stderr()),
    );
}
