//! The public join, `POST /play` (`host serve --play GAME`): players join
//! from any page with no operator token, into the first world with room or
//! a new one; joins are counted per client address; pages of the origins
//! the operator allows (`--allow-origin`) are answered CORS and others are
//! refused. A page of another origin joins with the client library's
//! `join(url, "arena")` in chromium, and one not allowed takes no seat.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::Value;

use common::browser::{Browser, Driver};
use common::serve::{Serve, agent, json, request};
use common::site::Site;

/// A request with `headers`: its status, its headers (names in lower
/// case) and its body.
fn ask(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, BTreeMap<String, String>, String) {
    let agent = agent();
    let mut request = match method {
        "OPTIONS" => agent.options(url).force_send_body(),
        "POST" => agent.post(url),
        _ => unreachable!(),
    };
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let mut response = request
        .send(body)
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| {
            let value = value.to_str().unwrap_or("?").to_owned();
            (name.as_str().to_owned(), value)
        })
        .collect();
    (
        status,
        headers,
        response.body_mut().read_to_string().unwrap(),
    )
}

const JSON: (&str, &str) = ("content-type", "application/json");

/// Joins `game`: the status and the answer's JSON (or error).
fn join(served: &Serve, game: &str) -> (u16, Value) {
    let (status, body) = request(
        "POST",
        &served.url("/play"),
        Some(&format!(r#"{{"game": "{game}"}}"#)),
    );
    (status, json(&body))
}

/// Each running world's id and players.
fn worlds(served: &Serve) -> Vec<(u64, u64)> {
    let (status, body) = request("GET", &served.url("/worlds"), None);
    assert_eq!(status, 200, "{body}");
    json(&body)
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["id"].as_u64().unwrap(), w["players"].as_u64().unwrap()))
        .collect()
}

#[test]
fn players_join_a_world_with_room_and_a_new_world_when_every_one_is_full() {
    // World 1 is the operator's (launched): the join leaves it alone.
    let served = Serve::start(&["--play", "cube", "--max-players", "3", "--worlds", "1"]);
    let stderr = served.stderr();
    assert!(
        stderr.contains("(POST /play for `cube`, POST /worlds,"),
        "{stderr}"
    );
    let (status, refused) = join(&served, "chess");
    assert_eq!(status, 404);
    assert_eq!(
        refused["error"],
        "no game `chess` here (this server's is `cube`)"
    );
    let (status, body) = request("POST", &served.url("/play"), Some("{}"));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains(r#"send {\"game\": \"NAME\"}"#), "{body}");
    assert_eq!(worlds(&served), [(1, 0)], "a refused join started a world");

    let mut seats = Vec::new();
    for _ in 0..7 {
        let (status, seat) = join(&served, "cube");
        assert_eq!(status, 201, "{seat}");
        let (world, player) = (
            seat["world"].as_u64().unwrap(),
            seat["player"].as_u64().unwrap(),
        );
        let token = seat["token"].as_str().unwrap();
        assert_eq!(
            seat["stream"],
            format!("/worlds/{world}/stream?token={token}")
        );
        seats.push((world, player));
    }
    assert_eq!(
        seats,
        [(2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (3, 3), (4, 1)]
    );
    assert_eq!(worlds(&served), [(1, 0), (2, 3), (3, 3), (4, 1)]);
}

#[test]
fn pages_of_allowed_origins_are_answered_cors_and_pages_of_others_take_no_seat() {
    let token = "a-control-token-of-the-operator";
    let served = Serve::start_with(
        &[
            "--play",
            "cube",
            "--worlds",
            "0",
            "--allow-origin",
            "https://game.example",
        ],
        &[("GAME_HOST_CONTROL_TOKEN", token)],
    );
    let url = served.url("/play");
    let body = r#"{"game": "cube"}"#;
    // A page of the allowed origin: its preflight, then its join.
    let preflight = [
        ("origin", "https://game.example"),
        ("access-control-request-method", "POST"),
        ("access-control-request-headers", "content-type"),
    ];
    let (status, headers, _) = ask("OPTIONS", &url, &preflight, "");
    assert_eq!(status, 204);
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://game.example"
    );
    assert_eq!(headers["access-control-allow-methods"], "POST");
    assert_eq!(headers["access-control-allow-headers"], "content-type");
    let (status, headers, answer) = ask(
        "POST",
        &url,
        &[("origin", "https://game.example"), JSON],
        body,
    );
    assert_eq!(status, 201, "{answer}");
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://game.example"
    );
    assert_eq!(headers["vary"], "Origin");
    // With no token: the operator's routes stay closed.
    let (status, _) = request("POST", &served.url("/worlds"), None);
    assert_eq!(status, 401);

    // A page of any other origin: refused, before and at the join.
    let other = [("origin", "https://evil.example")];
    let (status, headers, answer) = ask("OPTIONS", &url, &other, "");
    assert_eq!(status, 403, "{answer}");
    assert!(!headers.contains_key("access-control-allow-origin"));
    let (status, _, answer) = ask("POST", &url, &[other[0], JSON], body);
    assert_eq!(status, 403);
    assert!(
        answer.contains("`Origin: https://evil.example` may not let players in"),
        "{answer}"
    );
    // A form, which any page may post without asking first.
    let form = ("content-type", "application/x-www-form-urlencoded");
    let (status, _, _) = ask("POST", &url, &[form], "game=cube");
    assert_eq!(status, 415);
    assert_eq!(worlds(&served), [(1, 1)], "only the allowed page's player");
}

/// A page of an allowed origin told to wait can read why and for how long.
#[test]
fn a_join_refused_for_its_rate_is_readable_by_an_allowed_page() {
    let served = Serve::start(&[
        "--play",
        "cube",
        "--worlds",
        "0",
        "--join-burst",
        "1",
        "--joins-per-minute",
        "1",
        "--allow-origin",
        "https://game.example",
    ]);
    let page = [("origin", "https://game.example"), JSON];
    let url = served.url("/play");
    let (status, _, _) = ask("POST", &url, &page, r#"{"game": "cube"}"#);
    assert_eq!(status, 201);
    let (status, headers, body) = ask("POST", &url, &page, r#"{"game": "cube"}"#);
    assert_eq!(status, 429, "{body}");
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://game.example"
    );
    assert_eq!(headers["access-control-expose-headers"], "retry-after");
    let retry: u64 = headers["retry-after"].parse().unwrap();
    assert!((50..=60).contains(&retry), "{retry}");
}

/// 200 joins from one address at once: the burst is admitted and the rest
/// told when to come back, no join starts a world it does not need, and
/// `/healthz` answers throughout.
#[test]
fn two_hundred_joins_at_once_hold_the_rate_and_health_answers() {
    const JOINS: usize = 200;
    const BURST: u64 = 100;
    let served = Serve::start(&[
        "--play",
        "cube",
        "--worlds",
        "0",
        "--max-players",
        "16",
        "--join-burst",
        &BURST.to_string(),
        "--joins-per-minute",
        "60",
    ]);
    let url = served.url("/play");
    let start = Instant::now();
    let barrier = Arc::new(Barrier::new(JOINS + 1));
    let joins: Vec<_> = (0..JOINS)
        .map(|_| {
            let (barrier, url) = (barrier.clone(), url.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let began = Instant::now();
                let (status, headers, body) = ask("POST", &url, &[JSON], r#"{"game": "cube"}"#);
                (
                    status,
                    headers.get("retry-after").cloned(),
                    body,
                    began.elapsed(),
                )
            })
        })
        .collect();
    let health = served.url("/healthz");
    let probing = std::thread::spawn(move || {
        let mut slowest = Duration::ZERO;
        let until = Instant::now() + Duration::from_secs(3);
        let mut probes = 0;
        while Instant::now() < until {
            let began = Instant::now();
            let (status, body) = request("GET", &health, None);
            assert_eq!(status, 200, "{body}");
            slowest = slowest.max(began.elapsed());
            probes += 1;
            std::thread::sleep(Duration::from_millis(20));
        }
        (probes, slowest)
    });
    barrier.wait();
    let answers: Vec<_> = joins.into_iter().map(|j| j.join().unwrap()).collect();
    let elapsed = start.elapsed();
    let (probes, slowest_probe) = probing.join().unwrap();
    let admitted = answers.iter().filter(|(s, ..)| *s == 201).count() as u64;
    let limited: Vec<_> = answers.iter().filter(|(s, ..)| *s == 429).collect();
    assert_eq!(
        admitted + limited.len() as u64,
        JOINS as u64,
        "every join was admitted or told to wait: {:?}",
        answers.iter().find(|(s, ..)| *s != 201 && *s != 429)
    );
    // The burst, and one a second since.
    let most = BURST + elapsed.as_secs() + 1;
    assert!(
        (BURST..=most).contains(&admitted),
        "{admitted} admitted, not {BURST} to {most}"
    );
    for (_, retry, body, _) in &limited {
        let retry: u64 = retry.as_deref().expect("Retry-After").parse().unwrap();
        assert!((1..=60).contains(&retry), "{retry}");
        assert!(body.contains("too many joins from this address"), "{body}");
    }
    // As many worlds as the seats need: 16 each, the last with the rest.
    let seated = worlds(&served);
    assert_eq!(seated.len() as u64, admitted.div_ceil(16));
    assert_eq!(seated.iter().map(|(_, p)| p).sum::<u64>(), admitted);
    let slowest_join = answers.iter().map(|a| a.3).max().unwrap();
    println!(
        "{JOINS} joins at once: {admitted} admitted into {} worlds, {} refused 429, all \
         answered within {slowest_join:?}; /healthz answered {probes} probes, the slowest in \
         {slowest_probe:?}",
        seated.len(),
        limited.len()
    );
}

/// The page a game serves from its own site: it joins with the client
/// library (its own copy, as a game ships it) and shows what happened.
const PAGE: &str = r#"<!doctype html>
<body><script type="module">
import { join } from "./client/index.js";
const server = new URLSearchParams(location.search).get("server");
join(server, "arena").then((client) => {
  document.body.dataset.player = String(client.player);
  const count = () => { document.body.dataset.entities = String(client.entities.size); };
  client.on("snapshot", count);
  client.on("enter", count);
  count();
}, (error) => { document.body.dataset.error = `${error.status}: ${error.message}`; });
// The library as the game server serves it, imported across origins.
import(`${server}/client/index.js`).then(
  (served) => { document.body.dataset.served = typeof served.join; },
  () => { document.body.dataset.served = "refused"; },
);
</script></body>
"#;

/// A game's site: the page and the client library's files.
fn site() -> Site {
    let mut files = vec![(
        "/index.html".to_owned(),
        "text/html; charset=utf-8",
        PAGE.to_owned(),
    )];
    let library = common::workspace().join("client/src");
    for entry in std::fs::read_dir(&library).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        files.push((format!("/client/{name}"), "text/javascript", text));
    }
    Site::serve(files)
}

#[test]
fn a_page_of_another_origin_joins_the_arena_in_chromium_and_one_not_allowed_cannot() {
    let arena = common::build("arena");
    let (allowed, other) = (site(), site());
    let served = Serve::start(&[
        arena.to_str().unwrap(),
        "--play",
        "arena",
        "--worlds",
        "0",
        "--allow-origin",
        &allowed.origin,
    ]);
    let server = served.url("");
    let driver = Driver::start();
    let browser = Browser::open(&driver);
    let page = |site: &Site| format!("{}/index.html?server={server}", site.origin);

    browser.post("/url", serde_json::json!({"url": page(&allowed)}));
    let shown = "return [document.body.dataset.player, document.body.dataset.error].join('|');";
    browser.wait_for(shown, "1|", Duration::from_secs(30));
    browser.wait_for(
        "return String(Number(document.body.dataset.entities) > 0);",
        "true",
        Duration::from_secs(10),
    );
    browser.wait_for(
        "return document.body.dataset.served || '';",
        "function",
        Duration::from_secs(10),
    );
    assert_eq!(worlds(&served), [(1, 1)]);

    // The browser's preflight is refused: the page cannot join, nor import
    // the server's copy of the library.
    browser.post("/url", serde_json::json!({"url": page(&other)}));
    let error = "return document.body.dataset.error || '';";
    let deadline = Instant::now() + Duration::from_secs(30);
    let shown = loop {
        let shown = browser.eval(error);
        if shown != "" || Instant::now() > deadline {
            break shown;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let shown = shown.as_str().unwrap_or_default().to_owned();
    assert!(
        shown.starts_with("0: ") && shown.contains("could not be reached"),
        "{shown}"
    );
    assert_eq!(worlds(&served), [(1, 1)], "the refused page took a seat");
    browser.wait_for(
        "return document.body.dataset.served || '';",
        "refused",
        Duration::from_secs(10),
    );
    let refused = served.stderr();
    assert!(!refused.contains("panicked"), "{refused}");
}

/// A world the join started whose players never connect (or all left) is
/// stopped, its room given back; the next join starts another.
#[test]
fn a_world_the_join_started_is_stopped_once_no_client_is_connected() {
    let served = Serve::start(&[
        "--play",
        "cube",
        "--worlds",
        "0",
        "--empty-world-seconds",
        "1",
    ]);
    let (status, seat) = join(&served, "cube");
    assert_eq!(status, 201, "{seat}");
    assert_eq!(seat["world"], 1);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !worlds(&served).is_empty() {
        assert!(Instant::now() < deadline, "world 1 still runs");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        served
            .stderr()
            .contains("stopped world 1: no player's client for 1 s"),
        "{}",
        served.stderr()
    );
    let (status, seat) = join(&served, "cube");
    assert_eq!(status, 201, "{seat}");
    assert_eq!(seat["world"], 2);
}

/// The worlds the join started stay its own when the server restarts with
/// their state directory (as when they are handed to another node of a
/// fleet, or fail over to one: the same resume): the next join is seated
/// in one of them, not in the operator's world nor in a new one, and the
/// seats taken through the join are kept as such.
#[test]
fn a_world_the_join_started_stays_the_joins_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let args = [
        "--play",
        "cube",
        "--worlds",
        "1",
        "--max-players",
        "3",
        "--state-dir",
        state.to_str().unwrap(),
    ];
    let mut first = Serve::start(&args);
    for player in 1..=2 {
        let (status, seat) = join(&first, "cube");
        assert_eq!(status, 201, "{seat}");
        assert_eq!(
            (seat["world"].as_u64(), seat["player"].as_u64()),
            (Some(2), Some(player))
        );
    }
    first.terminate();
    assert_eq!(first.wait(Duration::from_secs(30)), 0, "{}", first.stderr());
    let manifest = common::serve::read_json(&state.join("worlds/2/world.json"));
    assert_eq!(manifest["play"], "cube", "{manifest}");
    // The operator's is written as before the flag was kept.
    let operators = common::serve::read_json(&state.join("worlds/1/world.json"));
    assert_eq!(operators.get("play"), None, "{operators}");
    let seats = std::fs::read_to_string(state.join("worlds/2/seats.jsonl")).unwrap();
    assert_eq!(seats.matches(r#""public":true"#).count(), 2, "{seats}");

    let second = Serve::start(&args);
    assert_eq!(worlds(&second), [(1, 0), (2, 2)], "{}", second.stderr());
    let (status, seat) = join(&second, "cube");
    assert_eq!(status, 201, "{seat}");
    assert_eq!(
        (seat["world"].as_u64(), seat["player"].as_u64()),
        (Some(2), Some(3))
    );
    // Full now: the next join starts a world of its own.
    let (status, seat) = join(&second, "cube");
    assert_eq!(status, 201, "{seat}");
    assert_eq!(seat["world"], 3);
}
