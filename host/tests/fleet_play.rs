//! `POST /play` on a fleet (`host serve --fleet --play GAME`): a node
//! seats players in its own worlds, starting new ones while it has room;
//! once it is full, a join goes on to the node with the most room, which
//! seats it the same way, and the player keeps the address it joined
//! through (which forwards its stream). A join passed on is counted once,
//! where it came in: the node it goes to knows it by the fleet's token,
//! and a request that only says it was passed on is counted as any other.

mod common;

use std::time::{Duration, Instant};

use common::client::Client;
use common::fleet::{Redis, node, worlds_on};
use common::serve::{agent, json};
use serde_json::Value;

/// A join of the arena through the node at `addr`, with `headers` besides
/// JSON's: status and body.
fn join(addr: &str, headers: &[(&str, &str)]) -> (u16, Value) {
    let (status, body, _) = join_cors(addr, headers);
    (status, body)
}

/// [`join`], and the `Access-Control-Allow-Origin` it was answered.
fn join_cors(addr: &str, headers: &[(&str, &str)]) -> (u16, Value, Option<String>) {
    let mut request = agent()
        .post(&format!("http://{addr}/play"))
        .header("Content-Type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let mut response = request.send(r#"{"game": "arena"}"#).unwrap();
    let status = response.status().as_u16();
    let cors = response
        .headers()
        .get("access-control-allow-origin")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = json(&response.body_mut().read_to_string().unwrap());
    (status, body, cors)
}

#[test]
fn a_full_node_passes_joins_on_to_the_node_with_room_counted_once_and_players_keep_its_address() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let token = dir.path().join("control.token");
    std::fs::write(&token, "the-fleets-own-token-0123456789\n").unwrap();
    let token = token.to_str().unwrap();
    let game = [
        "examples/arena",
        "--worlds",
        "0",
        "--play",
        "arena",
        "--max-players",
        "2",
        "--control-token-file",
        token,
    ];
    // The node players reach: one world's room. The other: two worlds',
    // and a rate its own clients would exceed at the second join.
    let a = node(
        &redis,
        &dir.path().join("a"),
        &[
            &game[..],
            &[
                "--max-worlds",
                "1",
                "--join-burst",
                "20",
                "--allow-origin",
                "https://game.example",
            ],
        ]
        .concat(),
    );
    let b = node(
        &redis,
        &dir.path().join("b"),
        &[
            &game[..],
            &[
                "--max-worlds",
                "2",
                "--join-burst",
                "1",
                "--joins-per-minute",
                "1",
                "--allow-origin",
                "https://game.example",
            ],
        ]
        .concat(),
    );
    // Both nodes in Redis's table.
    let deadline = Instant::now() + Duration::from_secs(30);
    while redis.cli(&["HLEN", "fleet:nodes"]).trim() != "2" {
        assert!(Instant::now() < deadline, "B never joined the fleet");
        std::thread::sleep(Duration::from_millis(50));
    }

    let mut seats = Vec::new();
    for n in 0..6 {
        // The third, passed on to B, from a page A allows: A answers it
        // CORS.
        let page = [("Origin", "https://game.example")];
        let (status, seat, cors) = join_cors(&a.addr, if n == 2 { &page } else { &[] });
        assert_eq!(status, 201, "{seat}\n{}\n{}", a.stderr(), b.stderr());
        if n == 2 {
            assert_eq!(cors.as_deref(), Some("https://game.example"));
        }
        seats.push((
            seat["world"].as_u64().unwrap(),
            seat["player"].as_u64().unwrap(),
            seat["stream"].as_str().unwrap().to_owned(),
        ));
    }
    let placed: Vec<(u64, u64)> = seats.iter().map(|(w, p, _)| (*w, *p)).collect();
    assert_eq!(placed, [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]);
    let ids = |node| {
        worlds_on(node)
            .into_iter()
            .map(|(id, _)| id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&a), [1]);
    assert_eq!(ids(&b), [2, 3]);
    // Every world of the fleet is full.
    let (status, refused) = join(&a.addr, &[]);
    assert_eq!(status, 503, "{refused}");

    // A player seated on B plays through A, the address it joined through.
    let (world, _, path) = &seats[2];
    assert_eq!(*world, 2);
    let (_, snapshot) = Client::reconnect(&a.addr, path);
    let names: Vec<&str> = snapshot["entities"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert!(names.contains(&"player-1"), "{snapshot}");
    // Its page, of an origin the fleet allows, asks A for the world's
    // predictor: B answers (it has none), and the page may read it (CORS),
    // as it would have from B directly.
    let mut answer = agent()
        .get(&format!(
            "http://{}/worlds/2/predictor/predictor.json",
            a.addr
        ))
        .header("Origin", "https://game.example")
        .call()
        .unwrap();
    let cors = answer.headers().get("access-control-allow-origin").cloned();
    let why = answer.body_mut().read_to_string().unwrap();
    assert_eq!(answer.status().as_u16(), 404, "{why}");
    assert!(
        why.contains("world 2 runs no script with a predictor"),
        "{why}"
    );
    assert_eq!(cors.unwrap(), "https://game.example");
    // A page of an origin the fleet does not allow may not read it.
    let answer = agent()
        .get(&format!(
            "http://{}/worlds/2/predictor/predictor.json",
            a.addr
        ))
        .header("Origin", "https://elsewhere.example")
        .call()
        .unwrap();
    let cors = answer.headers().get("access-control-allow-origin");
    assert_eq!((answer.status().as_u16(), cors), (404, None));

    // B counted none of the four joins A passed on: its one join a minute
    // is still there (and the join finds no room).
    let (status, refused) = join(&b.addr, &[]);
    assert_eq!(status, 503, "{refused}");
    // A request that says it was passed on, without the fleet's token's
    // proof (a wrong one, or none), is counted as any client's.
    let wrong = "0".repeat(64);
    let forged = [
        ("x-game-host-relayed", "1"),
        ("x-game-host-peer", wrong.as_str()),
    ];
    let (status, refused) = join(&b.addr, &forged);
    assert_eq!(status, 429, "{refused}");
    let (status, refused) = join(&b.addr, &forged[..1]);
    assert_eq!(status, 429, "{refused}");
}
