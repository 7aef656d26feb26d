//! Durable worlds: `host serve --state-dir` killed with SIGKILL resumes
//! every world at its last durable frame, its players reconnect with their
//! tokens and find their entities where they were, and each world's log
//! (before and after the kill) replays frame for frame; a damaged log
//! resumes from its last whole frame, and a log that does not replay
//! fails its world alone.

mod common;

use std::path::Path;
use std::time::Duration;

use common::client::{Client, admit, position};
use common::serve::{Serve, json, request};
use serde_json::Value;

/// Serves arena and the cube in `worlds` worlds kept in `state`.
fn serve(state: &Path, extra: &[&str]) -> Serve {
    let mut args = vec![
        "--state-dir",
        state.to_str().unwrap(),
        "--summary-every",
        "0",
    ];
    args.extend_from_slice(extra);
    Serve::start(&args)
}

fn worlds(serve: &Serve) -> Vec<Value> {
    let (status, body) = request("GET", &serve.url("/worlds"), None);
    assert_eq!(status, 200, "{body}");
    json(&body).as_array().unwrap().clone()
}

fn replay(log: &Path) -> String {
    let output = common::run_host(&["replay", log.to_str().unwrap()], &common::cache_dir());
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{}: {stdout}{}",
        log.display(),
        common::stderr_of(&output)
    );
    stdout
}

#[test]
fn a_killed_server_resumes_its_worlds_exactly_and_their_players_carry_on() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let mut first = serve(
        &state,
        &["examples/arena", "examples/spinning-cube", "--worlds", "3"],
    );
    // Two players in each world: the first steps right once per world
    // number, the second up twice.
    let mut players = Vec::new();
    for world in 1..=3u64 {
        let (one, one_path) = admit(&first, world);
        let (two, two_path) = admit(&first, world);
        let mut a = Client::connect(&first, &one_path).unwrap();
        let mut b = Client::connect(&first, &two_path).unwrap();
        for _ in 0..world {
            a.send(r#"{"press": "right"}"#);
        }
        b.send(r#"{"press": "up"}"#);
        b.send(r#"{"press": "up"}"#);
        let x = 2.0 * (one % 5) as f64 - 4.0 + world as f64;
        let y = 2.0;
        let name_one = format!("player-{one}");
        let name_two = format!("player-{two}");
        a.until(Duration::from_secs(10), |m| {
            position(m, &name_one) == Some([x, 0.0])
        });
        b.until(Duration::from_secs(10), |m| {
            position(m, &name_two).is_some_and(|p| p[1] == y)
        });
        players.push((world, one_path, name_one, [x, 0.0], name_two, y));
    }
    // Past the flush interval (100 ms of game time), then killed.
    std::thread::sleep(Duration::from_millis(500));
    let before: Vec<u64> = worlds(&first)
        .iter()
        .map(|w| w["frame"].as_u64().unwrap())
        .collect();
    first.signal("KILL");
    let _ = first.child.wait();

    let second = serve(&state, &[]);
    let text = second.stderr();
    assert!(text.contains("resumed=3 failed=0"), "{text}");
    let resumed = worlds(&second);
    assert_eq!(resumed.len(), 3, "{resumed:?}");
    for (world, frame_before) in resumed.iter().zip(&before) {
        assert_eq!(world["players"], 2, "{world}");
        // At most the flush interval (6 frames) and a little more behind.
        assert!(world["frame"].as_u64().unwrap() + 30 >= *frame_before);
    }
    let mut clients: Vec<Client> = Vec::new();
    for (world, path, name_one, at, name_two, y) in &players {
        let (mut client, snapshot) = Client::reconnect(&second.addr, path);
        assert_eq!(
            position(&snapshot, name_one),
            Some(*at),
            "world {world}: {snapshot}"
        );
        assert_eq!(position(&snapshot, name_two).map(|p| p[1]), Some(*y));
        // The player carries on.
        client.send(r#"{"press": "left"}"#);
        let moved = [at[0] - 1.0, 0.0];
        client.until(Duration::from_secs(10), |m| {
            position(m, name_one) == Some(moved)
        });
        clients.push(client);
    }
    // Ids go on from where they were: players and worlds.
    let (player, _) = admit(&second, 1);
    assert_eq!(player, 3);
    let (status, body) = request("DELETE", &second.url("/worlds/1/players/3"), None);
    assert_eq!(status, 200, "{body}");
    let (status, body) = request("POST", &second.url("/worlds"), Some("{}"));
    assert_eq!(status, 201, "{body}");
    assert_eq!(json(&body)["id"], 4, "{body}");

    // SIGTERM suspends the worlds (their logs end at their last frame),
    // and the next start resumes them all, the new one too.
    let mut second = second;
    second.terminate();
    // Its players' clients are told to come back, not that the game is
    // over.
    let reason = clients[0].close_reason(Duration::from_secs(20));
    assert_eq!(
        reason,
        "the server is restarting: reconnect with your token"
    );
    assert_eq!(
        second.wait(Duration::from_secs(30)),
        0,
        "{}",
        second.stderr()
    );
    for world in 1..=4 {
        let log = state.join(format!("worlds/{world}/log.rec"));
        // Every frame before the kill and after it agrees with a replay
        // that was never interrupted.
        assert!(replay(&log).contains("frames agree"));
    }
    let third = serve(&state, &[]);
    assert!(
        third.stderr().contains("resumed=4 failed=0"),
        "{}",
        third.stderr()
    );
    assert_eq!(worlds(&third).len(), 4);
    // Player 3 of world 1 was removed before the stop: its id is not
    // given again.
    let (player, _) = admit(&third, 1);
    assert_eq!(player, 4);
}

#[test]
fn a_damaged_log_resumes_from_its_last_whole_frame_and_a_wrong_one_fails_its_world_alone() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let first = serve(&state, &["examples/spinning-cube", "--worlds", "3"]);
    std::thread::sleep(Duration::from_secs(2));
    first.signal("KILL");
    let log = |world: u32| state.join(format!("worlds/{world}/log.rec"));

    // World 2: a line in the middle damaged on the disk.
    let text = std::fs::read_to_string(log(2)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let damaged = lines.len() / 2;
    let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    edited[damaged] = "{\"frame\":oops".into();
    std::fs::write(log(2), edited.join("\n") + "\n").unwrap();
    let last_whole: u64 = json(lines[damaged - 1])["frame"].as_u64().unwrap();
    // World 3: a scene digest its replay cannot reach.
    let text = std::fs::read_to_string(log(3)).unwrap();
    let mut forged: Vec<String> = text.lines().map(str::to_owned).collect();
    let first_scene = forged
        .iter()
        .position(|l| l.contains(r#""scene":"#))
        .unwrap();
    let frame = json(&forged[first_scene])["frame"].as_u64().unwrap();
    forged[first_scene] = format!(r#"{{"frame":{frame},"scene":"0123456789abcdef"}}"#);
    std::fs::write(log(3), forged.join("\n") + "\n").unwrap();

    let second = serve(&state, &[]);
    let text = second.stderr();
    assert!(text.contains("resumed=2 failed=1"), "{text}");
    assert!(
        text.contains(&format!(
            "world 2: its log `{}` is damaged (line {}",
            log(2).display(),
            damaged + 1
        )) && text.contains(&format!("it resumes from frame {last_whole}")),
        "{text}"
    );
    let failure = text
        .lines()
        .find(|l| l.contains("world 3 could not be resumed"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        failure.contains(&format!(
            "its replay does not reach the state its log holds: the replay diverges at frame \
             {frame}:"
        )),
        "{failure}"
    );
    // One server per state directory.
    let other = common::run_host(
        &[
            "serve",
            "--state-dir",
            state.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ],
        &common::cache_dir(),
    );
    let error = common::stderr_of(&other);
    assert!(!other.status.success());
    assert!(
        error.contains(&format!(
            "another server keeps its worlds in `{}`",
            state.display()
        )),
        "{error}"
    );
    let listed = worlds(&second);
    let running: Vec<u64> = listed
        .iter()
        .filter(|w| w.get("failed").is_none())
        .map(|w| w["id"].as_u64().unwrap())
        .collect();
    assert_eq!(running, [1, 2]);
    // The failed world is listed as such, with why.
    let failed = listed.iter().find(|w| w["id"] == 3).unwrap();
    assert!(
        failed["failed"]
            .as_str()
            .unwrap()
            .starts_with("its replay does not reach the state its log holds"),
        "{failed}"
    );
}

#[test]
fn a_log_whose_header_asks_too_much_fails_its_world_alone() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let first = serve(&state, &["examples/spinning-cube", "--worlds", "4"]);
    std::thread::sleep(Duration::from_secs(1));
    first.signal("KILL");
    let log = |world: u32| state.join(format!("worlds/{world}/log.rec"));
    let header_says = |world: u32, instances: u64| {
        let text = std::fs::read_to_string(log(world)).unwrap();
        let (header, rest) = text.split_once('\n').unwrap();
        let mut header = json(header);
        header["scripts"][0]["instances"] = Value::from(instances);
        std::fs::write(log(world), format!("{header}\n{rest}")).unwrap();
    };
    // A torn or hostile state directory: world 2's header asks for 2^40
    // instances, world 3's for 2,000,000 (past what a recording may hold),
    // world 4's for 500 (past this server's pool of 300).
    header_says(2, 1 << 40);
    header_says(3, 2_000_000);
    header_says(4, 500);

    let second = serve(&state, &["--max-instances", "300"]);
    let text = second.stderr();
    assert!(text.contains("resumed=1 failed=3"), "{text}");
    let failure = |world: u64| {
        text.lines()
            .find(|l| l.contains(&format!("world {world} could not be resumed")))
            .unwrap_or_else(|| panic!("{text}"))
            .to_owned()
    };
    assert!(
        failure(2).contains("its log's header is refused"),
        "{}",
        failure(2)
    );
    assert!(
        failure(3).contains("a recording holds at most 1000000"),
        "{}",
        failure(3)
    );
    assert!(
        failure(4).contains("a world of 500 instance(s) does not fit in its pool of 300"),
        "{}",
        failure(4)
    );
    // Listed as failed (with why, on loopback without a token), and in the
    // metrics.
    let listed = worlds(&second);
    assert_eq!(listed.len(), 4, "{listed:?}");
    assert!(listed[0]["frame"].as_u64().is_some(), "{listed:?}");
    for world in [2, 3, 4] {
        let shown = listed[world - 1]["failed"].as_str().unwrap();
        assert!(failure(world as u64).ends_with(shown), "{shown}");
        let (status, body) = request("GET", &second.url(&format!("/worlds/{world}")), None);
        assert_eq!(status, 404);
        assert!(body.contains("could not be resumed"), "{body}");
    }
    let (_, metrics) = request("GET", &second.url("/metrics"), None);
    assert!(
        metrics.contains("game_server_resume_failures_total 3"),
        "{metrics}"
    );
}
