//! A player's stream through a node of a fleet that does not hold its
//! world (as every player behind a load balancer connects): the node
//! forwards it to the world's node. Large worlds come through whole (a
//! swarm of 5,000 entities, in JSON and in binary deltas; a crowd whose
//! views are several KiB), through two failovers, and a player that stops
//! reading frees its slot on the forwarding node within the write timeout,
//! as it would on the world's own node.

mod common;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::client::{Client, position};
use common::fleet::{Redis, node, worlds_on};
use common::serve::{Serve, json, request};
use tungstenite::client::IntoClientRequest;
use tungstenite::{Message, WebSocket};

const SCRIPTS: [&str; 2] = ["examples/swarm", "examples/crowd"];

/// The swarm's entities (`examples/swarm`'s `COUNT`).
const SWARM: usize = 5_000;

/// Starts a world of `script` on the node at `addr`: its id.
fn start_world(addr: &str, script: &str) -> u64 {
    let body = format!(r#"{{"scripts": ["{script}"]}}"#);
    let (status, answer) = request("POST", &format!("http://{addr}/worlds"), Some(&body));
    assert_eq!(status, 201, "{answer}");
    json(&answer)["id"].as_u64().unwrap()
}

/// Admits a player to `world` on the node at `addr`: its id and stream.
fn admit(addr: &str, world: u64) -> (u64, String) {
    let url = format!("http://{addr}/worlds/{world}/players");
    let (status, answer) = request("POST", &url, None);
    assert_eq!(status, 201, "{answer}");
    let body = json(&answer);
    (
        body["player"].as_u64().unwrap(),
        body["stream"].as_str().unwrap().to_owned(),
    )
}

/// A stream in the binary form (`game-host.delta`), read raw.
struct Binary {
    socket: WebSocket<TcpStream>,
}

impl Binary {
    fn connect(addr: &str, path: &str) -> Option<Binary> {
        let stream = TcpStream::connect(addr).ok()?;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut request = format!("ws://{addr}{path}").into_client_request().unwrap();
        request
            .headers_mut()
            .insert("Sec-WebSocket-Protocol", "game-host.delta".parse().unwrap());
        let (socket, _) = tungstenite::client(request, stream).ok()?;
        Some(Binary { socket })
    }

    /// The next binary message, if one comes before the stream closes.
    fn next(&mut self) -> Option<Vec<u8>> {
        loop {
            match self.socket.read().ok()? {
                Message::Binary(bytes) => return Some(bytes.to_vec()),
                Message::Close(_) => return None,
                _ => {}
            }
        }
    }
}

/// A LEB128 varint at the start of `bytes`, and the rest.
fn varint(bytes: &[u8]) -> (u64, &[u8]) {
    let mut value = 0;
    for (at, byte) in bytes.iter().enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * at);
        if byte & 0x80 == 0 {
            return (value, &bytes[at + 1..]);
        }
    }
    panic!("a varint runs past the message");
}

/// Connects through `front` until the world answers with a whole binary
/// snapshot of the swarm, and reads a whole update after it.
fn swarm_in_binary(front: &str, path: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(mut client) = Binary::connect(front, path)
            && let Some(snapshot) = client.next()
        {
            // Tag 0 (snapshot), frame, player, precision (f32), entities.
            let (tag, rest) = varint(&snapshot);
            assert_eq!(tag, 0, "the first message is the snapshot");
            let (frame, rest) = varint(rest);
            let (_player, rest) = varint(rest);
            let (count, _) = varint(&rest[4..]);
            assert!(count as usize >= SWARM, "{count} entities in the snapshot");
            assert!(snapshot.len() > 4 << 10, "{} bytes", snapshot.len());
            let update = client.next().expect("an update after the snapshot");
            let (tag, rest) = varint(&update);
            assert_eq!(tag, 1, "an update");
            let (after, rest) = varint(rest);
            assert!(
                after > frame,
                "update of frame {after} after snapshot {frame}"
            );
            let (_entered, rest) = varint(rest);
            let (changed, _) = varint(rest);
            assert!(changed as usize >= SWARM, "{changed} entities changed");
            return;
        }
        assert!(Instant::now() < deadline, "no binary snapshot via {front}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Connects through `front` until a whole JSON snapshot of the swarm
/// comes, then reads a whole update.
fn swarm_in_json(front: &str, path: &str) {
    let (mut client, snapshot) = Client::reconnect(front, path);
    let entities = snapshot["entities"].as_array().unwrap().len();
    assert!(entities >= SWARM, "{entities} entities in the snapshot");
    let update = client.until(Duration::from_secs(10), |m| m.get("changed").is_some());
    let changed = update["changed"].as_array().unwrap().len();
    assert!(changed >= SWARM, "{changed} entities changed");
}

/// Connects through `front` as the crowd's player `name`, moves it right
/// once and sees it move: the client, for the next failover.
fn crowd_plays(front: &str, path: &str, name: &str) -> Client {
    let (mut client, snapshot) = Client::reconnect(front, path);
    let at = position(&snapshot, name).unwrap_or_else(|| panic!("no {name} in {snapshot}"));
    client.send(r#"{"press": "right"}"#);
    client.until(Duration::from_secs(10), |m| {
        position(m, name).is_some_and(|p| (p[0] - at[0] - 5.0).abs() < 1e-3)
    });
    client
}

/// Waits until `node` runs every world of `ids`.
fn runs(node: &Serve, ids: &[u64]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let running: Vec<u64> = worlds_on(node).iter().map(|(id, _)| *id).collect();
        if ids.iter().all(|id| running.contains(id)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{ids:?} did not move to {}:\n{}",
            node.addr,
            node.stderr()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_forwarding_node_carries_large_worlds_whole_through_two_failovers() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let state = |name: &str| dir.path().join(name);
    // The front node holds no world: every stream through it is forwarded.
    let mut front_args = SCRIPTS.to_vec();
    front_args.extend(["--max-worlds", "0"]);
    let front = node(&redis, &state("front"), &front_args);
    let mut holder = node(&redis, &state("first"), &SCRIPTS);
    let swarm = start_world(&holder.addr, "swarm");
    let crowd = start_world(&holder.addr, "crowd");
    let (_, swarm_json) = admit(&holder.addr, swarm);
    let (_, swarm_binary) = admit(&holder.addr, swarm);
    let (player, crowd_path) = admit(&holder.addr, crowd);
    let name = format!("player-{player}");

    swarm_in_json(&front.addr, &swarm_json);
    swarm_in_binary(&front.addr, &swarm_binary);
    let mut watcher = crowd_plays(&front.addr, &crowd_path, &name);
    for failover in ["second", "third"] {
        // Past the flush interval, then the world's node is killed; a node
        // with room for them has joined.
        std::thread::sleep(Duration::from_millis(500));
        let next = node(&redis, &state(failover), &SCRIPTS);
        holder.signal("KILL");
        let _ = holder.child.wait();
        // The forwarded client is told to reconnect, in the close frame.
        let reason = watcher.close_reason(Duration::from_secs(10));
        assert!(reason.contains("reconnect with your token"), "{reason}");
        runs(&next, &[swarm, crowd]);
        swarm_in_json(&front.addr, &swarm_json);
        swarm_in_binary(&front.addr, &swarm_binary);
        watcher = crowd_plays(&front.addr, &crowd_path, &name);
        holder = next;
    }
    assert!(worlds_on(&front).is_empty(), "the front node took a world");
}

/// A stream through `front`, once its handshake is answered: `Ok` with the
/// socket, or `Err` with the refusal's status.
fn open(front: &str, path: &str) -> Result<WebSocket<TcpStream>, u16> {
    let stream = TcpStream::connect(front).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    match tungstenite::client(format!("ws://{front}{path}").as_str(), stream) {
        Ok((socket, _)) => Ok(socket),
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(response))) => {
            Err(response.status().as_u16())
        }
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn a_player_that_stops_reading_frees_its_slot_on_the_forwarding_node() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let front = node(
        &redis,
        &dir.path().join("front"),
        &["examples/swarm", "--max-worlds", "0", "--max-streams", "1"],
    );
    let holder = node(&redis, &dir.path().join("holder"), &["examples/swarm"]);
    let world = start_world(&holder.addr, "swarm");
    let (_, stalled_path) = admit(&holder.addr, world);
    let (_, other_path) = admit(&holder.addr, world);
    // The first player takes the front node's one stream and reads
    // nothing more: a swarm fills its buffers within a second.
    let stalled = open(&front.addr, &stalled_path).expect("the first stream opens");
    let stopped = Instant::now();
    assert_eq!(open(&front.addr, &other_path).err(), Some(503));
    let freed = loop {
        match open(&front.addr, &other_path) {
            Ok(mut socket) => {
                let first = socket.read().unwrap();
                assert!(
                    json(first.to_text().unwrap()).get("entities").is_some(),
                    "a snapshot first"
                );
                break stopped.elapsed();
            }
            Err(503) => {}
            Err(status) => panic!("{status}"),
        }
        // The write timeout (5 s) once its buffers filled, with room for
        // a loaded machine; today's main never freed it.
        assert!(
            stopped.elapsed() < Duration::from_secs(20),
            "the stalled player still holds the front node's stream after 20 s"
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    eprintln!("a stalled forwarded stream freed its slot after {freed:?}");
    drop(stalled);
}
