//! Players of served worlds: admitted over HTTP, streaming over real
//! WebSockets from `host serve`, their keys reaching scripts and the
//! scripts' changes and messages reaching them; and the same events in a
//! runtime of its own, recorded and replayed.

mod common;

use std::time::{Duration, Instant};

use common::client::{Client, admit};
use common::serve::{MESSAGE_WINDOW, Serve, json, request};
use game_host::GameScene;
use game_host::input::{Event, Key};
use game_host::players::{OpenToPlayers, PlayerEvent, PlayerInput, PlayerMessage};
use game_host::{GrantFile, GrantPolicy, RuntimeConfig};
use serde_json::Value;
use tungstenite::Message;

/// The y scale of entity `name` among a message's `entities` or `changed`.
fn scale_y(message: &Value, name: &str) -> Option<f64> {
    let list = message.get("entities").or_else(|| message.get("changed"))?;
    list.as_array()?
        .iter()
        .find(|e| e["name"] == name)
        .and_then(|e| e["scale"][1].as_f64())
}

#[test]
fn a_player_sees_the_window_open_and_closes_it_with_enter() {
    // The world starts when asked, at 20 Hz: its window opens over the
    // first second, while the player watches.
    let serve = Serve::start(&MESSAGE_WINDOW);
    let (status, body) = request("POST", &serve.url("/worlds"), Some("{}"));
    assert_eq!(status, 201, "{body}");
    let (player, stream) = admit(&serve, 1);
    assert_eq!(player, 1);

    // Without a valid token there is no stream.
    for path in ["/worlds/1/stream", "/worlds/1/stream?token=nope"] {
        match Client::connect(&serve, path) {
            Err(tungstenite::Error::Http(response)) => {
                assert_eq!(response.status(), 403, "{path}")
            }
            other => panic!("{path}: {:?}", other.map(|_| "connected")),
        }
    }

    let mut client = Client::connect(&serve, &stream).unwrap();
    let snapshot = client.until(Duration::from_secs(10), |m| m.get("entities").is_some());
    assert_eq!(snapshot["player"], 1);
    let ids: Vec<_> = snapshot["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].clone())
        .collect();
    assert!(scale_y(&snapshot, "window").is_some(), "{snapshot}");
    assert!(!ids.is_empty());
    // The window opens over 20 frames, frame by frame.
    let mut frames = Vec::new();
    client.until(Duration::from_secs(10), |m| {
        if scale_y(m, "window").is_some() {
            frames.push(m["frame"].as_u64().unwrap());
        }
        scale_y(m, "window") == Some(1.0)
    });
    assert!(frames.len() >= 2, "{frames:?}");

    // Enter starts closing it within a second; it shrinks to nothing over
    // 10 frames.
    client.send(r#"{"press": "enter"}"#);
    client.until(Duration::from_secs(1), |m| {
        scale_y(m, "window").is_some_and(|y| y < 1.0)
    });
    client.until(Duration::from_secs(3), |m| {
        scale_y(m, "window") == Some(0.0)
    });

    // Bad input is answered, not obeyed, and the stream goes on.
    client.send(r#"{"press": "nokey"}"#);
    let refused = client.until(Duration::from_secs(5), |m| m.get("error").is_some());
    assert_eq!(refused["error"], "unknown key `nokey`");

    let (status, body) = request("GET", &serve.url("/worlds"), None);
    assert_eq!(status, 200);
    assert_eq!(json(&body)[0]["players"], 1);
    // A second player, admitted and not connected: the world's players.
    let (other, _) = admit(&serve, 1);
    let (status, body) = request("GET", &serve.url("/worlds/1/players"), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        json(&body),
        serde_json::json!([
            {"player": player, "connected": true},
            {"player": other, "connected": false},
        ])
    );
    let (status, _) = request("GET", &serve.url("/worlds/9/players"), None);
    assert_eq!(status, 404);
    let metrics = request("GET", &serve.url("/metrics"), None).1;
    assert!(metrics.contains("game_server_streams 1"), "{metrics}");

    // When the world ends, the stream says why and closes.
    let (status, _) = request("DELETE", &serve.url("/worlds/1"), None);
    assert_eq!(status, 200);
    let ended = client.until(Duration::from_secs(5), |m| m.get("ended").is_some());
    assert_eq!(ended["ended"], "stopped");
    assert!(client.next(Duration::from_secs(2)).is_none());
}

#[test]
fn send_to_reaches_one_player_and_broadcast_reaches_both() {
    let serve = Serve::start(&["examples/arena", "--player-channel", "chat"]);
    let (one, stream_one) = admit(&serve, 1);
    let mut first = Client::connect(&serve, &stream_one).unwrap();
    first.until(Duration::from_secs(10), |m| m.get("entities").is_some());
    // Messages sent to a player before it connects wait for it.
    first.until(Duration::from_secs(5), |m| {
        m["message"]["channel"] == "welcome"
    });

    let (two, stream_two) = admit(&serve, 1);
    let mut second = Client::connect(&serve, &stream_two).unwrap();
    let welcome = second.until(Duration::from_secs(5), |m| {
        m["message"]["channel"] == "welcome"
    });
    assert_eq!(
        welcome["message"]["payload"],
        format!("you are player-{two}: the arrow keys move you")
    );
    // The second player's arrival is broadcast: the first player hears of
    // it, and no welcome of the second player's reaches the first.
    let mut heard = Vec::new();
    first.until(Duration::from_secs(5), |m| {
        heard.push(m.clone());
        m["message"]["channel"] == "joined"
            && m["message"]["payload"] == format!("player-{two} (2 playing)")
    });
    assert!(
        heard.iter().all(|m| m["message"]["channel"] != "welcome"),
        "{heard:?}"
    );
    second.until(Duration::from_secs(5), |m| {
        m["message"]["channel"] == "joined"
            && m["message"]["payload"] == format!("player-{two} (2 playing)")
    });

    // A chat message from one is broadcast to both, naming the sender;
    // arrow keys move only the sender's entity.
    first.send(r#"{"send": {"channel": "chat", "payload": "hello"}}"#);
    let said = format!("player-{one}: hello");
    for client in [&mut first, &mut second] {
        client.until(Duration::from_secs(5), |m| m["message"]["payload"] == said);
    }
    // A channel the world does not open is refused, and the client told.
    first.send(r#"{"send": {"channel": "admin", "payload": "give-gold"}}"#);
    let refused = first.until(Duration::from_secs(5), |m| m.get("error").is_some());
    assert_eq!(
        refused["error"],
        "channel `admin` is not open to players: the message reached no script"
    );
    second.send(r#"{"press": "up"}"#);
    let moved = first.until(Duration::from_secs(5), |m| {
        m["changed"]
            .as_array()
            .is_some_and(|c| c.iter().any(|e| e["name"] == format!("player-{two}")))
    });
    let entity = moved["changed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == format!("player-{two}"))
        .unwrap();
    assert_eq!(entity["position"][1], 1.0);

    // Removing a player closes its stream, and everyone hears it left.
    let (status, _) = request(
        "DELETE",
        &serve.url(&format!("/worlds/1/players/{two}")),
        None,
    );
    assert_eq!(status, 200);
    first.until(Duration::from_secs(5), |m| {
        m["removed"].as_array().is_some_and(|r| !r.is_empty())
    });
    let mut reason = None;
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && reason.is_none() {
        if let Ok(Message::Close(frame)) = second.socket.read() {
            reason = Some(frame.map(|f| f.reason.to_string()).unwrap_or_default());
        }
    }
    assert_eq!(
        reason.as_deref(),
        Some("removed from the world"),
        "the removed player's stream did not close saying why"
    );
}

/// The value of a metric line `name{...} V` or `name V` (summed over
/// labels).
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|l| {
            l.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with('{'))
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[test]
fn a_client_that_stops_reading_is_dropped_and_its_world_never_overruns() {
    // 5,000 entities moving every frame: a stream of ~0.7 MB a frame,
    // which fills a client's socket in well under a second once the client
    // stops reading.
    let serve = Serve::start(&["examples/swarm", "--hz", "20"]);
    let (_, stream) = admit(&serve, 1);
    let mut reader = Client::connect(&serve, &stream).unwrap();
    reader.until(Duration::from_secs(10), |m| m.get("entities").is_some());
    reader.until(Duration::from_secs(10), |m| m.get("changed").is_some());
    // From here on it reads nothing more.
    let started = Instant::now();
    let dropped = loop {
        let metrics = request("GET", &serve.url("/metrics"), None).1;
        if metric(&metrics, "game_server_streams_dropped_total") >= 1.0 {
            break metrics;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the client was not dropped:\n{metrics}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(metric(&dropped, "game_server_streams"), 0.0, "{dropped}");
    assert_eq!(
        metric(&dropped, "game_server_overruns_total"),
        0.0,
        "{dropped}"
    );
    let worlds = json(&request("GET", &serve.url("/worlds"), None).1);
    assert_eq!(
        worlds[0]["players"],
        1,
        "the player stays admitted: {worlds}\nserver log:\n{}",
        serve.stderr()
    );
    assert!(
        worlds[0]["last_frame_ms"].as_f64().unwrap() < 50.0,
        "{worlds}"
    );
    drop(reader);
}

#[test]
fn a_runtime_hands_players_events_to_scripts_and_takes_their_messages() {
    let engine = common::engine();
    let (mut runtime, _log) = common::runtime();
    runtime.spawn(&common::load(&engine, "arena")).unwrap();
    runtime.input().player(PlayerEvent::Joined(7));
    runtime.input().player(PlayerEvent::Joined(9));
    runtime.step();
    assert_eq!(runtime.inspect().players(), [7, 9]);
    let sent = runtime.take_player_messages();
    let to = |to: Option<u64>, channel: &str, payload: &str| PlayerMessage {
        to,
        channel: channel.into(),
        payload: payload.into(),
    };
    assert_eq!(
        sent,
        [
            to(
                Some(7),
                "welcome",
                "you are player-7: the arrow keys move you"
            ),
            to(None, "joined", "player-7 (2 playing)"),
            to(
                Some(9),
                "welcome",
                "you are player-9: the arrow keys move you"
            ),
            to(None, "joined", "player-9 (2 playing)"),
        ]
    );
    let start = common::transform(&runtime, "player-7").position;
    for key in [Key::Right, Key::Right, Key::Up] {
        runtime.input().player(PlayerEvent::Input(PlayerInput {
            player: 7,
            event: Event::KeyPressed(key),
        }));
    }
    runtime.input().player(PlayerEvent::Left(9));
    runtime.step();
    let moved = common::transform(&runtime, "player-7").position;
    assert_eq!(moved - start, glam::Vec3::new(2.0, 1.0, 0.0));
    assert!(runtime.scene().lock().unwrap().find("player-9").is_none());
    assert_eq!(runtime.inspect().players(), [7]);
    assert_eq!(
        runtime.take_player_messages(),
        [to(None, "left", "player-9")]
    );
}

#[test]
fn a_played_world_replays_frame_for_frame() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("records");
    let mut serve = Serve::start(&[
        "examples/arena",
        "--player-channel",
        "chat",
        "--seconds",
        "3",
        "--record-worlds",
        records.to_str().unwrap(),
    ]);
    let (_, one) = admit(&serve, 1);
    let (two, _) = admit(&serve, 1);
    let mut client = Client::connect(&serve, &one).unwrap();
    client.until(Duration::from_secs(10), |m| m.get("entities").is_some());
    for key in ["right", "right", "down"] {
        client.send(&format!(r#"{{"press": "{key}"}}"#));
    }
    client.send(r#"{"send": {"channel": "chat", "payload": "gg"}}"#);
    client.until(Duration::from_secs(5), |m| {
        m["message"]["channel"] == "chat"
    });
    let (status, _) = request(
        "DELETE",
        &serve.url(&format!("/worlds/1/players/{two}")),
        None,
    );
    assert_eq!(status, 200);
    assert_eq!(serve.wait(Duration::from_secs(60)), 0, "{}", serve.stderr());

    let recording = records.join("world-1.rec");
    let text = std::fs::read_to_string(&recording).unwrap();
    for line in [
        r#""player":1,"joined":true"#,
        r#""player":1,"input":{"press":"right"}"#,
        r#""player":1,"input":{"send":{"channel":"chat","payload":"gg"}}"#,
        &format!(r#""player":{two},"joined":false"#),
    ] {
        assert!(text.contains(line), "no {line} in:\n{text:.2000}");
    }
    common::assert_replays(&recording, 180);
}

/// What `players-probe` logs after player 7 joins, sends `give-gold` on
/// `admin`, `gg` on `chat` and `psst` on `whisper`, and presses Enter, in a runtime with
/// `config`.
fn probe_hears(config: RuntimeConfig) -> Vec<String> {
    let engine = common::engine();
    let (mut runtime, log) = common::runtime_with(config);
    runtime
        .spawn(&common::load(&engine, "players-probe"))
        .unwrap();
    runtime.step();
    let input = |event| PlayerEvent::Input(PlayerInput { player: 7, event });
    let message = |channel: &str, payload: &str| {
        input(Event::Message(game_host::input::ScriptMessage {
            channel: channel.into(),
            payload: payload.into(),
        }))
    };
    runtime.input().player(PlayerEvent::Joined(7));
    runtime.input().player(message("admin", "give-gold"));
    runtime.input().player(message("chat", "gg"));
    runtime.input().player(message("whisper", "psst"));
    runtime.input().player(input(Event::KeyPressed(Key::Enter)));
    runtime.run_frames(3);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    log.messages()
}

#[test]
fn a_player_reaches_scripts_as_a_player_within_their_grants_and_never_as_a_script() {
    // Nothing open (the default): no message of a player reaches any
    // script (the forged `admin` least of all); its key press reaches the
    // players listener, with its sender, and no key wait.
    let heard = probe_hears(RuntimeConfig::default());
    assert_eq!(heard, ["joined 7", "key 7 Key::Enter"]);
    // A world that opens `admin` to players: it reaches the players
    // listener with its sender, and the game's `admin` wait.
    let heard = probe_hears(RuntimeConfig {
        open_to_players: OpenToPlayers {
            keys: false,
            channels: vec!["adm*".into()],
        },
        ..RuntimeConfig::default()
    });
    assert!(heard.contains(&"admin: give-gold".to_owned()), "{heard:?}");
    assert!(
        heard.contains(&"message 7 admin: give-gold".to_owned()),
        "{heard:?}"
    );
    assert!(!heard.iter().any(|line| line.contains("chat")), "{heard:?}");
    // Everything open, to a mod granted no keys and only `chat` and
    // `admin`: it hears neither the keys nor other channels through
    // `players`, as through `events`.
    let grants = "[default]\nkeys = false\nlisten = [\"chat\", \"admin\"]\n";
    let heard = probe_hears(RuntimeConfig {
        grants: GrantPolicy::new(toml::from_str::<GrantFile>(grants).unwrap()).unwrap(),
        open_to_players: OpenToPlayers::all(),
        ..RuntimeConfig::default()
    });
    assert!(
        heard.contains(&"message 7 chat: gg".to_owned()),
        "{heard:?}"
    );
    assert!(
        heard.contains(&"message 7 admin: give-gold".to_owned()),
        "{heard:?}"
    );
    assert!(
        !heard
            .iter()
            .any(|line| line.contains("whisper") || line.contains("key")),
        "{heard:?}"
    );
}

/// The resident memory of process `pid`, in MiB.
fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib / 1024.0
}

#[test]
fn a_broadcast_flood_to_a_client_that_stops_reading_is_stopped_within_the_worlds_budget() {
    // The flood script broadcasts 6 MB a frame; beside it, the spinning
    // cube keeps the world doing something. One player connects, reads its
    // snapshot, then reads nothing.
    let flood = common::build("flood");
    let serve = Serve::start(&[flood.to_str().unwrap(), "examples/spinning-cube"]);
    let pid = serve.child.id();
    let (_, stream) = admit(&serve, 1);
    let mut reader = Client::connect(&serve, &stream).unwrap();
    reader.until(Duration::from_secs(10), |m| m.get("entities").is_some());
    let started = Instant::now();
    let mut peak: f64 = 0.0;
    while started.elapsed() < Duration::from_secs(4) {
        peak = peak.max(rss_mib(pid));
        std::thread::sleep(Duration::from_millis(50));
    }
    let log = serve.stderr();
    // The flood was stopped, naming the budget, in the frame it went past
    // it (4 messages of 60 KiB fit in 256 KiB; the fifth does not).
    assert!(
        log.contains("player-bytes-per-frame") && log.contains("test_flood"),
        "{log}"
    );
    // Before this budget the server grew to 448 MiB in 1.5 s.
    assert!(
        peak < 200.0,
        "the server's memory peaked at {peak:.0} MiB\n{log}"
    );
    // The world, the server and its probes go on.
    assert_eq!(request("GET", &serve.url("/healthz"), None).0, 200);
    let first = json(&request("GET", &serve.url("/worlds"), None).1)[0]["frame"]
        .as_u64()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let worlds = json(&request("GET", &serve.url("/worlds"), None).1);
    assert!(worlds[0]["frame"].as_u64().unwrap() > first, "{worlds}");
    assert!(
        worlds[0]["script_errors"].as_u64().unwrap() >= 1,
        "{worlds}"
    );
    drop(reader);
}
