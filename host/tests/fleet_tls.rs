//! A fleet whose nodes serve TLS (`host serve --fleet URL --tls-cert FILE
//! --tls-key FILE --peer-ca FILE`): a node relays a request (https) and
//! forwards a player's stream (wss) to the world's node over TLS too,
//! trusting a node whose certificate the nodes' CA issued for the names
//! of its own; a node whose certificate another CA issued is not trusted,
//! and what is relayed to it is refused, saying why.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::fleet::{Redis, node};
use common::serve::{Serve, json};
use common::tls::{Issued, TestCa, cube_over_wss, https, trusting};

/// A node of the fleet on `redis` serving TLS with `issued`, trusting the
/// nodes' certificates under `nodes_ca`, with `worlds` worlds of its own,
/// keeping them in `dir/NAME`.
fn tls_node(
    redis: &Redis,
    dir: &Path,
    name: &str,
    issued: &Issued,
    nodes_ca: &Path,
    worlds: &str,
) -> Serve {
    node(
        redis,
        &dir.join(name),
        &[
            "--tls-cert",
            issued.cert.to_str().unwrap(),
            "--tls-key",
            issued.key.to_str().unwrap(),
            "--peer-ca",
            nodes_ca.to_str().unwrap(),
            "--worlds",
            worlds,
        ],
    )
}

/// The ids of the worlds `served` runs itself, asked over https.
fn own_worlds(served: &Serve, client: &std::sync::Arc<rustls::ClientConfig>) -> Vec<u64> {
    let (status, body) = https(&served.addr, client, "GET", "/worlds");
    assert_eq!(status, 200, "{body}");
    json(&body)
        .as_array()
        .unwrap()
        .iter()
        .map(|world| world["id"].as_u64().unwrap())
        .collect()
}

#[test]
fn nodes_that_serve_tls_relay_and_forward_to_each_other_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let ca = TestCa::new(dir.path());
    let client = trusting(&ca.ca_file);
    let issued = ca.issue(dir.path(), "node");
    let a = tls_node(&redis, dir.path(), "a", &issued, &ca.ca_file, "1");
    let b = tls_node(&redis, dir.path(), "b", &issued, &ca.ca_file, "0");
    assert_eq!((a.scheme.as_str(), b.scheme.as_str()), ("https", "https"));
    assert!(
        a.stderr().contains("joined the fleet as https://"),
        "{}",
        a.stderr()
    );
    let on_a = own_worlds(&a, &client);
    assert_eq!(on_a.len(), 1, "{}", a.stderr());
    let world = on_a[0];

    // Asked of B, answered by A through B (over TLS: A speaks nothing else).
    let deadline = Instant::now() + Duration::from_secs(15);
    let (status, body) = loop {
        let (status, body) = https(&b.addr, &client, "GET", &format!("/worlds/{world}"));
        if status == 200 || Instant::now() > deadline {
            break (status, body);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status, 200, "{body}\n{}", b.stderr());
    assert_eq!(json(&body)["id"], world, "{body}");
    let (status, body) = https(
        &b.addr,
        &client,
        "POST",
        &format!("/worlds/{world}/players"),
    );
    assert_eq!(status, 201, "{body}\n{}", b.stderr());
    // The player's stream through B, forwarded over wss to A.
    let path = json(&body)["stream"].as_str().unwrap().to_owned();
    cube_over_wss(&b.addr, &client, &path);

    // Nodes not trusted: one whose certificate another CA issued (for the
    // same names), and one whose certificate the nodes' CA issued for a
    // name not theirs.
    let other_dir = dir.path().join("other");
    std::fs::create_dir_all(&other_dir).unwrap();
    let other_ca = TestCa::new(&other_dir);
    let impostors = [
        // The other CA bears the same name: its signature does not hold.
        (other_ca.issue(&other_dir, "c"), "BadSignature"),
        (
            ca.issue_for(dir.path(), "d", &["127.0.0.1", "elsewhere.test"]),
            "certificate not valid for name \"localhost\"",
        ),
    ];
    for (name, (issued, why)) in ["c", "d"].into_iter().zip(impostors) {
        let impostor = tls_node(&redis, dir.path(), name, &issued, &ca.ca_file, "1");
        let config = trusting(&other_ca.ca_file);
        let client_of = match name {
            "c" => &config,
            _ => &client,
        };
        let theirs = own_worlds(&impostor, client_of);
        assert_eq!(theirs.len(), 1, "{}", impostor.stderr());
        let path = format!("/worlds/{}", theirs[0]);
        // Refused, and why in the log (which says it at most once a second).
        let said = |log: &str| {
            log.lines().any(|line| {
                line.contains(&format!("relaying {path}"))
                    && line.contains("invalid peer certificate")
                    && line.contains(why)
            })
        };
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let (status, body) = https(&b.addr, &client, "GET", &path);
            if status == 502 && said(&b.stderr()) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{why}: {status} {body}\n{}",
                b.stderr()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}
