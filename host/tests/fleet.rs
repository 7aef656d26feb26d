//! A fleet: `host serve --fleet` nodes coordinated through a real Redis
//! (Debian's `redis-server`, started here on loopback with a password, one
//! per test). Worlds are placed by room, any node answers for any world
//! (relaying to the world's node), a SIGKILLed node's worlds resume on the others exactly (their logs
//! replay frame for frame) and their players carry on with their tokens, a
//! SIGTERMed node hands its worlds over live at the frame it stopped, a
//! damaged record in Redis resumes from the last intact one, an
//! unreachable Redis never stops a world, and a Redis reached over TLS
//! (`rediss://`, a CA of the test's own) serves the same.

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::client::{Client, position};
use common::fleet::{
    Player, Redis, ask, ask_as, back, back_and_moving, buffered, node, node_at, play, play_as, raw,
    raw_as, working_copy, worlds_on,
};
use common::serve::Serve;

fn replay(log: &Path) {
    let output = common::run_host(&["replay", log.to_str().unwrap()], &common::cache_dir());
    assert!(
        output.status.success(),
        "{}: {}{}",
        log.display(),
        String::from_utf8_lossy(&output.stdout),
        common::stderr_of(&output)
    );
}

#[test]
fn a_fleet_places_worlds_fails_over_a_killed_node_and_drains_a_stopped_one() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let scripts = ["examples/arena", "examples/spinning-cube"];
    let states: Vec<PathBuf> = (0..3)
        .map(|n| dir.path().join(format!("node-{n}")))
        .collect();
    let mut nodes: Vec<Option<Serve>> = states
        .iter()
        .map(|state| Some(node(&redis, state, &scripts)))
        .collect();
    let first = nodes[0].as_ref().unwrap().addr.clone();

    // Worlds asked of one node go to the node with the most room.
    for _ in 0..6 {
        let (status, body) = ask("POST", &first, "/worlds");
        assert_eq!(status, 201, "{body}");
    }
    let held: Vec<Vec<(u64, u64)>> = nodes
        .iter()
        .map(|n| worlds_on(n.as_ref().unwrap()))
        .collect();
    assert!(
        held.iter().all(|worlds| worlds.len() == 2),
        "six worlds over three nodes: {held:?}"
    );
    // Any node answers for any world: it asks the world's node, and no
    // client is sent elsewhere.
    let elsewhere = held[1][0].0;
    let (status, body, location) = raw("GET", &format!("http://{first}/worlds/{elsewhere}"));
    assert_eq!((status, location), (200, None), "{body}");
    assert_eq!(common::serve::json(&body)["id"], elsewhere, "{body}");
    // Its view page, relayed, keeps the headers that guard the token in
    // its address.
    let page = common::serve::agent()
        .get(&format!("http://{first}/worlds/{elsewhere}/view?token=t"))
        .call()
        .unwrap();
    let header = |name: &str| {
        page.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    assert_eq!(page.status().as_u16(), 200);
    assert_eq!(header("referrer-policy").as_deref(), Some("no-referrer"));
    assert_eq!(header("cache-control").as_deref(), Some("no-store"));
    assert!(header("content-security-policy").is_some());

    // Two players in every world, moved, admitted through the first node.
    let mut players: Vec<Player> = Vec::new();
    for world in 1..=6 {
        players.push(play(&first, world, world as usize % 3 + 1));
        players.push(play(&first, world, 1));
    }
    // A stream asked of another node is forwarded to the world's node,
    // which checks the token.
    let there = players.iter().find(|p| p.world == elsewhere).unwrap();
    let (_, snapshot) = Client::reconnect(&first, &there.path);
    assert_eq!(position(&snapshot, &there.name), Some(there.at));
    match Client::connect_to(&first, &format!("/worlds/{elsewhere}/stream?token=forged")) {
        Err(tungstenite::Error::Http(response)) => assert_eq!(response.status(), 403),
        Err(error) => panic!("{error}"),
        Ok(_) => panic!("a forged token was let through"),
    }
    // Past the flush interval, then node 1 is killed.
    std::thread::sleep(Duration::from_millis(500));
    let killed: Vec<u64> = held[1].iter().map(|(id, _)| *id).collect();
    let mut gone = nodes[1].take().unwrap();
    gone.signal("KILL");
    let _ = gone.child.wait();
    let killed_at = Instant::now();
    let failover = loop {
        let running: Vec<u64> = [0, 2]
            .iter()
            .flat_map(|n| worlds_on(nodes[*n].as_ref().unwrap()))
            .map(|(id, _)| id)
            .collect();
        if killed.iter().all(|id| running.contains(id)) {
            break killed_at.elapsed();
        }
        assert!(
            killed_at.elapsed() < Duration::from_secs(60),
            "{killed:?} did not fail over"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    eprintln!("failover of {} worlds: {failover:?}", killed.len());
    // Every player is back, through any node, where it was.
    for player in &mut players {
        back_and_moving(&first, player);
    }

    // Node 2 is stopped: its worlds move live.
    let stopped = nodes[2].take().unwrap();
    let moving: Vec<u64> = worlds_on(&stopped).iter().map(|(id, _)| *id).collect();
    assert!(!moving.is_empty());
    let mut watchers: Vec<(u64, Client)> = moving
        .iter()
        .map(|world| {
            let player = players.iter().find(|p| p.world == *world).unwrap();
            let (client, _) = Client::reconnect(&stopped.addr, &player.path);
            (*world, client)
        })
        .collect();
    stopped.terminate();
    let mut stopped = stopped;
    assert_eq!(
        stopped.wait(Duration::from_secs(30)),
        0,
        "{}",
        stopped.stderr()
    );
    let survivor = nodes[0].as_ref().unwrap();
    for (world, client) in &mut watchers {
        let told = client.until(Duration::from_secs(10), |m| m.get("restarting").is_some());
        assert_eq!(told["reconnect"], format!("http://{first}"), "{told}");
        let frame = told["frame"].as_u64().unwrap();
        let reason = client.close_reason(Duration::from_secs(5));
        assert!(
            reason.contains(&format!("reconnect with your token at http://{first}")),
            "{reason}"
        );
        // Resumed after the very frame it stopped at: no frame lost.
        let deadline = Instant::now() + Duration::from_secs(30);
        let line = format!("world {world} runs here now, from frame {frame} ");
        while !survivor.stderr().contains(&line) {
            assert!(
                Instant::now() < deadline,
                "no `{line}`:\n{}",
                survivor.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    for player in &players {
        back(&first, player);
    }
    assert_eq!(worlds_on(survivor).len(), 6);
    let metrics = common::serve::request("GET", &survivor.url("/metrics"), None).1;
    assert!(
        metrics.contains("game_server_fleet_redis_up 1"),
        "{metrics}"
    );

    // Every world's log, as the node that holds it now has it (Redis's
    // records put back together, and what it wrote since), replays frame
    // for frame once the world ends.
    for world in 1..=6u64 {
        let (status, body) = ask("DELETE", &first, &format!("/worlds/{world}"));
        assert_eq!(status, 200, "{body}");
        std::thread::sleep(Duration::from_millis(200));
        replay(&working_copy(&states[0]).join(format!("worlds/{world}/log.rec")));
    }
}

/// The control token of the three-address fleet.
const TOKEN: &str = "three-address-fleet-token";

/// A fleet as on three machines: each node listens on an address of its
/// own (127.0.0.2-4, which are loopback too: nothing leaves this machine)
/// with a control token and `--advertise`, and Redis on a fourth
/// (127.0.0.5). Sixty worlds are placed across them through one node,
/// every control request goes to that one address with the token (and is
/// refused there without it), players stream through another node's
/// address, a SIGKILLed node's worlds fail over (p50 and p99 printed), a
/// SIGTERMed node drains, and every player reconnects through the last
/// node's address where it was.
#[test]
fn a_fleet_on_three_addresses_with_a_token_fails_over_and_drains_across_them() {
    if let Err(error) = TcpListener::bind("127.0.0.2:0") {
        eprintln!("skipped: this machine does not answer on 127.0.0.2 ({error})");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start_at(dir.path(), "127.0.0.5");
    let token_file = dir.path().join("control-token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let token = Some(TOKEN);
    let mut nodes: Vec<Option<Serve>> = (2..=4)
        .map(|n| {
            let host = format!("127.0.0.{n}");
            let port = TcpListener::bind((host.as_str(), 0))
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let at = format!("{host}:{port}");
            let state = dir.path().join(format!("node-{n}"));
            let extra = [
                "--control-token-file",
                token_file.to_str().unwrap(),
                "--advertise",
                at.as_str(),
                "examples/arena",
            ];
            let node = node_at(&redis, &state, &at, &extra);
            assert_eq!(node.addr, at);
            Some(node)
        })
        .collect();
    let addr = |n: usize, nodes: &[Option<Serve>]| nodes[n].as_ref().unwrap().addr.clone();
    let (first, third) = (addr(0, &nodes), addr(2, &nodes));

    // Without the token nothing is started, nor relayed.
    let (status, body) = ask("POST", &first, "/worlds");
    assert_eq!(status, 401, "{body}");
    for _ in 0..60 {
        let (status, body) = ask_as("POST", &first, "/worlds", token);
        assert_eq!(status, 201, "{body}");
    }
    let held: Vec<Vec<u64>> = nodes
        .iter()
        .map(|n| {
            worlds_on(n.as_ref().unwrap())
                .iter()
                .map(|(id, _)| *id)
                .collect()
        })
        .collect();
    assert_eq!(held.iter().map(Vec::len).sum::<usize>(), 60, "{held:?}");
    assert!(
        held.iter().all(|worlds| worlds.len() >= 10),
        "placed by room: {held:?}"
    );

    // A world the second node holds, asked of the first: answered there,
    // with the token; a change without it is refused by the first node.
    let there = held[1][0];
    let (status, body, location) =
        raw_as("DELETE", &format!("http://{first}/worlds/{there}"), None);
    assert_eq!((status, location), (401, None), "{body}");
    let (status, body) = ask_as("GET", &first, &format!("/worlds/{there}"), token);
    assert_eq!((status, body["id"].as_u64()), (200, Some(there)), "{body}");

    // A player in every fifth world, admitted through the first node and
    // streaming through the third's address.
    let mut players: Vec<Player> = Vec::new();
    for world in (1..=60).step_by(5) {
        let player = play_as(&first, world, 2, token);
        back(&third, &player);
        players.push(player);
    }

    // Once every node's log is in Redis, the second node is killed: its
    // worlds resume on the others. Past the flush interval first (100 ms
    // of game time, the most a killed node may lose): before it, the last
    // player's moves may not be handed to Redis yet, and nothing waits.
    std::thread::sleep(Duration::from_millis(500));
    let deadline = Instant::now() + Duration::from_secs(30);
    for node in nodes.iter().flatten() {
        while buffered(node) > 0 {
            assert!(Instant::now() < deadline, "{}", node.stderr());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let mut gone = nodes[1].take().unwrap();
    gone.signal("KILL");
    let _ = gone.child.wait();
    let killed_at = Instant::now();
    let mut resumed: Vec<(u64, Duration)> = Vec::new();
    while resumed.len() < held[1].len() {
        let running: Vec<u64> = [0, 2]
            .iter()
            .flat_map(|n| worlds_on(nodes[*n].as_ref().unwrap()))
            .map(|(id, _)| id)
            .collect();
        for id in &held[1] {
            if running.contains(id) && !resumed.iter().any(|(done, _)| done == id) {
                resumed.push((*id, killed_at.elapsed()));
            }
        }
        assert!(
            killed_at.elapsed() < Duration::from_secs(60),
            "{:?} of {:?} resumed",
            resumed,
            held[1]
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut times: Vec<Duration> = resumed.iter().map(|(_, at)| *at).collect();
    times.sort();
    let percentile = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    eprintln!(
        "failover of {} worlds across three addresses: p50 {:?}, p99 {:?}",
        times.len(),
        percentile(0.5),
        percentile(0.99)
    );
    // Every player is back through the third node's address, and moves.
    for player in &mut players {
        back_and_moving(&third, player);
    }

    // The third node drains: its worlds move to the first, live, and its
    // players are told to reconnect at the first node's address.
    let draining = nodes[2].take().unwrap();
    let moving: Vec<u64> = worlds_on(&draining).iter().map(|(id, _)| *id).collect();
    let watched = players
        .iter()
        .find(|p| moving.contains(&p.world))
        .expect("a player in a world of the third node");
    let (mut watcher, _) = Client::reconnect(&third, &watched.path);
    draining.terminate();
    let mut draining = draining;
    assert_eq!(
        draining.wait(Duration::from_secs(60)),
        0,
        "{}",
        draining.stderr()
    );
    let told = watcher.until(Duration::from_secs(10), |m| m.get("restarting").is_some());
    assert_eq!(told["reconnect"], format!("http://{first}"), "{told}");
    let survivor = nodes[0].as_ref().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while worlds_on(survivor).len() < 60 {
        assert!(Instant::now() < deadline, "{}", survivor.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    for player in &players {
        back(&first, player);
    }
}

#[test]
fn a_damaged_record_resumes_its_world_from_the_last_intact_one_and_a_log_without_digests_fails_alone()
 {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let mut doomed = node(&redis, &dir.path().join("a"), &["--worlds", "3"]);
    std::thread::sleep(Duration::from_millis(500));
    doomed.signal("KILL");
    let _ = doomed.child.wait();
    // World 2 gets a record, at the end of its log, whose bytes do not
    // match its digest; world 3's log is replaced by records without any.
    let end = redis.cli(&["HGET", "fleet:world:2", "logend"]);
    let wrong = "0".repeat(64);
    redis.cli(&[
        "XADD",
        "fleet:world:2:log",
        "*",
        "o",
        end.trim(),
        "e",
        "1",
        "h",
        &wrong,
        "b",
        "{\"frame\":1}\n",
    ]);
    redis.cli(&["DEL", "fleet:world:3:log"]);
    redis.cli(&[
        "XADD",
        "fleet:world:3:log",
        "*",
        "o",
        "0",
        "e",
        "1",
        "b",
        "{\"format\":1}\n",
    ]);
    // A node that joins now takes them.
    let survivor = node(&redis, &dir.path().join("c"), &[]);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = survivor.stderr();
        if text.contains("world 3 was handed to this node and cannot run")
            && worlds_on(&survivor).len() == 2
        {
            break;
        }
        assert!(Instant::now() < deadline, "{text}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = survivor.stderr();
    assert!(
        text.contains("its bytes do not match their digest"),
        "{text}"
    );
    assert!(
        text.contains("world 2: its log in the fleet's Redis is damaged (record"),
        "{text}"
    );
    let failure = text
        .lines()
        .find(|l| l.contains("world 3 was handed"))
        .unwrap();
    assert!(
        failure.contains("its log in the fleet's Redis is empty"),
        "{failure}"
    );
    let running: Vec<u64> = worlds_on(&survivor).iter().map(|(id, _)| *id).collect();
    assert_eq!(running, [1, 2]);
}

#[test]
fn an_unreachable_engine_never_stops_a_world_and_its_log_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let mut first = node(
        &redis,
        &dir.path().join("a"),
        &["examples/arena", "--worlds", "1"],
    );
    let player = play(&first.addr, 1, 2);
    redis.signal("STOP");
    let before = worlds_on(&first)[0].1;
    std::thread::sleep(Duration::from_secs(4));
    let during = worlds_on(&first)[0].1;
    assert!(during > before + 100, "{before} -> {during}");
    let (status, body, _) = raw("GET", &first.url("/readyz"));
    assert_eq!(status, 503);
    assert!(
        body.contains("the fleet's Redis cannot be reached"),
        "{body}"
    );
    let metrics = common::serve::request("GET", &first.url("/metrics"), None).1;
    assert!(
        metrics.contains("game_server_fleet_redis_up 0"),
        "{metrics}"
    );
    let waiting = buffered(&first);
    assert!(waiting > 1024, "{waiting} bytes of log wait for Redis");
    // A player moves while Redis is away.
    let (mut client, _) = Client::reconnect(&first.addr, &player.path);
    client.send(r#"{"press": "up"}"#);
    let up = [player.at[0], 1.0];
    client.until(Duration::from_secs(10), |m| {
        position(m, &player.name) == Some(up)
    });
    drop(client);
    redis.signal("CONT");
    let deadline = Instant::now() + Duration::from_secs(20);
    while raw("GET", &first.url("/readyz")).0 != 200 {
        assert!(Instant::now() < deadline, "{}", first.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    // What waited is sent: what is left is the last flush or two.
    while buffered(&first) > 1024 {
        assert!(Instant::now() < deadline, "{}", first.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    // What was written meanwhile reached Redis: another node resumes
    // the world with the move made while Redis was away.
    std::thread::sleep(Duration::from_millis(300));
    first.signal("KILL");
    let _ = first.child.wait();
    let second = node(&redis, &dir.path().join("b"), &["examples/arena"]);
    let (_, snapshot) = Client::reconnect(&second.addr, &player.path);
    assert_eq!(position(&snapshot, &player.name), Some(up));
}

#[test]
fn an_engine_restarted_empty_gets_its_worlds_again_from_the_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let port = redis.port;
    let mut first = node(
        &redis,
        &dir.path().join("a"),
        &["examples/arena", "--worlds", "1"],
    );
    let player = play(&first.addr, 1, 3);
    // Redis dies and comes back with nothing (no persistence here).
    drop(redis);
    std::thread::sleep(Duration::from_millis(500));
    let redis = Redis::start_on(dir.path(), port);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !first
        .stderr()
        .contains("the fleet's Redis had lost world 1: it is entered again")
    {
        assert!(Instant::now() < deadline, "{}", first.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    while buffered(&first) > 1024 || raw("GET", &first.url("/readyz")).0 != 200 {
        assert!(Instant::now() < deadline, "{}", first.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    // The whole log went again: another node resumes the world from it,
    // and a new world does not take its id.
    std::thread::sleep(Duration::from_millis(300));
    first.signal("KILL");
    let _ = first.child.wait();
    let second = node(&redis, &dir.path().join("b"), &["examples/arena"]);
    let (_, snapshot) = Client::reconnect(&second.addr, &player.path);
    assert_eq!(position(&snapshot, &player.name), Some(player.at));
    let (status, body) = ask("POST", &second.addr, "/worlds");
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["id"], 2, "{body}");
}

#[test]
fn a_node_needs_the_engines_password() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let wrong = dir.path().join("wrong");
    std::fs::write(&wrong, "not-it\n").unwrap();
    for (password, expected) in [
        (None, "the fleet's Redis must be authenticated"),
        (Some(&wrong), "the fleet's Redis refused the password"),
    ] {
        let mut args = vec!["serve".to_owned(), "--fleet".into(), redis.url()];
        if let Some(file) = password {
            args.extend(["--fleet-password-file".into(), file.display().to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = common::run_host(&args, &common::cache_dir());
        let stderr = common::stderr_of(&output);
        assert!(!output.status.success());
        assert!(stderr.contains(expected), "{stderr}");
    }
}

#[test]
fn a_fleet_reaches_its_engine_over_tls_and_fails_over_there() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start_tls(dir.path());
    assert!(redis.url().starts_with("rediss://"), "{}", redis.url());
    let mut first = node(
        &redis,
        &dir.path().join("a"),
        &["examples/arena", "--worlds", "1"],
    );
    let player = play(&first.addr, 1, 2);
    std::thread::sleep(Duration::from_millis(500));
    first.signal("KILL");
    let _ = first.child.wait();
    // Its world's log went over TLS: another node resumes it from there.
    let second = node(&redis, &dir.path().join("b"), &["examples/arena"]);
    let (_, snapshot) = Client::reconnect(&second.addr, &player.path);
    assert_eq!(position(&snapshot, &player.name), Some(player.at));

    // A CA that did not sign Redis's certificate is refused in one
    // line, and so is a CA file for a Redis reached in clear text.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    drop(Redis::start_tls(&other));
    let url = redis.url();
    let password = redis.password_file.to_str().unwrap();
    let plain = url.replacen("rediss://", "redis://", 1);
    for (url, ca, expected) in [
        (
            url.as_str(),
            other.join("ca.pem"),
            "cannot reach the fleet's Redis at rediss://127.0.0.1",
        ),
        (
            plain.as_str(),
            redis.ca_file.clone().unwrap(),
            "a CA file is for a Redis reached over TLS",
        ),
    ] {
        let args = [
            "serve",
            "--fleet",
            url,
            "--fleet-password-file",
            password,
            "--fleet-ca-file",
            ca.to_str().unwrap(),
        ];
        let output = common::run_host(&args, &common::cache_dir());
        let stderr = common::stderr_of(&output);
        assert!(!output.status.success());
        assert!(stderr.contains(expected), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        if url.starts_with("rediss://") {
            // Refused for its certificate, not for anything else.
            assert!(stderr.contains("certificate"), "{stderr}");
        }
    }
}
