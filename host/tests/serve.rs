//! `host serve` as operators run it: worlds on loop threads for an exact
//! number of frames, the HTTP control surface, SIGTERM, and a real
//! Prometheus server scraping `/metrics`.

mod common;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::serve::{Serve, agent, json, read_json, request};

#[test]
fn worlds_on_threads_run_exactly_seconds_times_hz_frames() {
    let cube = common::build("spinning-cube");
    let dir = tempfile::tempdir().unwrap();
    let (dumps, metrics) = (dir.path().join("worlds"), dir.path().join("metrics.json"));
    let cube_arg = cube.to_str().unwrap();
    let mut serve = Serve::start(&[
        cube_arg,
        "--threads",
        "2",
        "--worlds",
        "5",
        "--hz",
        "60",
        "--seconds",
        "1.5",
        "--dump-worlds",
        dumps.to_str().unwrap(),
        "--metrics-json",
        metrics.to_str().unwrap(),
    ]);
    assert_eq!(serve.wait(Duration::from_secs(60)), 0, "{}", serve.stderr());

    // The same script run alone for 90 frames, for comparison.
    let alone = dir.path().join("alone.json");
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "run",
            cube_arg,
            "--headless",
            "--frames",
            "90",
            "--dump-scene",
        ])
        .arg(&alone)
        .arg("--cache-dir")
        .arg(common::cache_dir())
        .output()
        .unwrap();
    assert!(output.status.success());
    let alone = read_json(&alone);
    assert_eq!(alone["frame"], 90);
    for world in 1..=5 {
        let dump = read_json(&dumps.join(format!("world-{world}.json")));
        assert_eq!(dump, alone, "world {world}");
    }

    let metrics = read_json(&metrics);
    let threads = metrics["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 2);
    let updates: Vec<u64> = threads
        .iter()
        .map(|t| t["updates"].as_u64().unwrap())
        .collect();
    assert_eq!(updates.iter().sum::<u64>(), 5 * 90, "{updates:?}");
    assert!(updates.iter().all(|&u| u >= 2 * 90), "spread: {updates:?}");
    for thread in threads {
        assert_eq!(thread["script_errors"], 0);
        assert!(thread["frame_ms"]["p99"].as_f64().unwrap() > 0.0);
    }
    let worlds = metrics["worlds"].as_array().unwrap();
    assert_eq!(worlds.len(), 5);
    for world in worlds {
        assert_eq!(world["frames"], 90);
        assert_eq!(world["reason"]["kind"], "finished");
    }
    let stderr = serve.stderr();
    assert!(stderr.contains("every world has ended"), "{stderr}");
    assert!(stderr.contains("total thread 0: 0 world(s)"), "{stderr}");
}

#[test]
fn overruns_are_counted_and_logged_once_a_second_naming_the_slowest_world() {
    // Sixteen fib(25) worlds (0.2-0.6 ms each, by machine) on one thread at
    // 1000 Hz: every frame overruns its 1 ms budget at least threefold,
    // for a few seconds of wall time. (Four overran only sometimes on a
    // fast machine.) No CPU deadlines: on a loaded machine a descheduled
    // call could pass one.
    let fib = common::build("fib");
    let fib = fib.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let metrics = dir.path().join("metrics.json");
    let started = Instant::now();
    let mut serve = Serve::start(&[
        fib,
        "--threads",
        "1",
        "--worlds",
        "16",
        "--hz",
        "1000",
        "--seconds",
        "1",
        "--script-deadline-ms",
        "0",
        "--overrun-frames",
        "1000000",
        "--metrics-json",
        metrics.to_str().unwrap(),
    ]);
    assert_eq!(
        serve.wait(Duration::from_secs(120)),
        0,
        "{}",
        serve.stderr()
    );
    let wall = started.elapsed().as_secs_f64();
    let stderr = serve.stderr();
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("overran its 1.00 ms budget"))
        .collect();
    assert!(!warnings.is_empty(), "{stderr}");
    assert!(
        warnings.len() as f64 <= wall + 1.0,
        "{} warnings in {wall:.1} s:\n{stderr}",
        warnings.len()
    );
    for warning in &warnings {
        assert!(
            (1..=16).any(|w| warning.contains(&format!("slowest world: {w} at"))),
            "{warning}"
        );
    }
    let metrics = read_json(&metrics);
    let thread = &metrics["threads"][0];
    assert_eq!(thread["updates"], 16 * 1000, "{stderr}");
    assert!(thread["overruns"].as_u64().unwrap() > 500, "{thread}");
    assert_eq!(thread["worlds_evicted"], 0);
}

#[test]
fn http_control_surface_and_sigterm_drain() {
    let dir = tempfile::tempdir().unwrap();
    let (dumps, metrics) = (dir.path().join("worlds"), dir.path().join("metrics.json"));
    let mut serve = Serve::start(&[
        "examples/message-window",
        "--threads",
        "2",
        "--worlds",
        "2",
        "--max-worlds",
        "3",
        "--grace-seconds",
        "5",
        "--dump-worlds",
        dumps.to_str().unwrap(),
        "--metrics-json",
        metrics.to_str().unwrap(),
    ]);
    assert_eq!(
        request("GET", &serve.url("/healthz"), None),
        (200, "ok\n".into())
    );
    assert_eq!(
        request("GET", &serve.url("/readyz"), None),
        (200, "ready\n".into())
    );

    let (status, body) = request("POST", &serve.url("/worlds"), Some("{}"));
    assert_eq!(status, 201, "{body}");
    assert_eq!(json(&body)["id"], 3);
    // Three worlds is the maximum.
    assert_eq!(
        request("GET", &serve.url("/readyz"), None),
        (503, "full\n".into())
    );
    let (status, body) = request("POST", &serve.url("/worlds"), None);
    assert_eq!(status, 503, "{body}");

    let (status, body) = request("GET", &serve.url("/worlds"), None);
    assert_eq!(status, 200);
    let worlds = json(&body);
    let ids: Vec<_> = worlds
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["id"].clone())
        .collect();
    assert_eq!(ids, [1, 2, 3]);

    // Bad requests get a reason.
    let (status, body) = request(
        "POST",
        &serve.url("/worlds/1/events"),
        Some(r#"{"press":"nope"}"#),
    );
    assert_eq!(
        (status, json(&body)["error"].as_str().unwrap()),
        (400, "unknown key `nope`")
    );
    let (status, body) = request(
        "POST",
        &serve.url("/worlds/99/events"),
        Some(r#"{"press":"enter"}"#),
    );
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("world 99 is not running"), "{body}");
    let (status, body) = request("GET", &serve.url("/nope"), None);
    assert_eq!(status, 404, "{body}");

    // Enter reaches world 1 once its window is open (frame 20).
    std::thread::sleep(Duration::from_millis(600));
    let (status, _) = request(
        "POST",
        &serve.url("/worlds/1/events"),
        Some(r#"{"press":"enter"}"#),
    );
    assert_eq!(status, 202);
    std::thread::sleep(Duration::from_millis(400));

    // Stopping world 2 answers with its report; a slot frees up.
    let (status, body) = request("DELETE", &serve.url("/worlds/2"), None);
    assert_eq!(status, 200, "{body}");
    let report = json(&body);
    assert_eq!(report["reason"]["kind"], "stopped");
    assert!(report["frames"].as_u64().unwrap() > 30, "{report}");
    assert_eq!(report["scene"]["frame"], report["frames"]);
    assert_eq!(request("GET", &serve.url("/readyz"), None).0, 200);

    let (status, text) = request("GET", &serve.url("/metrics"), None);
    assert_eq!(status, 200);
    let worlds_gauge: i64 = text
        .lines()
        .filter(|l| l.starts_with("game_server_worlds{"))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(worlds_gauge, 2, "{text}");
    assert!(text.contains("game_server_frame_seconds_bucket{"), "{text}");
    assert!(text.contains("game_server_world_slots_free 1"), "{text}");

    // SIGTERM: the running worlds finish their frame, the metrics are
    // written, and the process exits 0 well within the grace period.
    let signalled = Instant::now();
    serve.terminate();
    assert_eq!(serve.wait(Duration::from_secs(5)), 0, "{}", serve.stderr());
    let took = signalled.elapsed();
    assert!(took < Duration::from_secs(5), "{took:?}");
    let stderr = serve.stderr();
    assert!(stderr.contains("signalled: draining"), "{stderr}");
    let metrics = read_json(&metrics);
    let mut reasons: Vec<(u64, String)> = metrics["worlds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["id"].as_u64().unwrap(),
                w["reason"]["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    reasons.sort();
    assert_eq!(
        reasons,
        [
            (1, "server_stopped".into()),
            (2, "stopped".into()),
            (3, "server_stopped".into())
        ]
    );
    // World 1 got Enter: its window closed; world 3's is still open.
    let scale_y = |world: u32| {
        let dump = read_json(&dumps.join(format!("world-{world}.json")));
        let window = dump["entities"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "window");
        window.unwrap()["scale"][1].as_f64().unwrap()
    };
    assert_eq!(scale_y(1), 0.0);
    assert_eq!(scale_y(3), 1.0);
}

/// The `prometheus` binary (Debian package `prometheus`, which `./test.sh`
/// installs).
fn prometheus_binary() -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .chain([PathBuf::from("/usr/bin")])
            .map(|dir| dir.join("prometheus"))
            .find(|file| file.is_file())
    });
    found.expect("this test needs Prometheus: `apt-get install prometheus` (as ./test.sh does)")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_real_prometheus_scrapes_the_server() {
    let prometheus = prometheus_binary();
    let serve = Serve::start(&["--threads", "2", "--worlds", "3"]);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
             scrape_configs:\n  - job_name: game-host\n    static_configs:\n      - targets: ['{}']\n",
            serve.addr
        ),
    )
    .unwrap();
    let web = format!("127.0.0.1:{}", free_port());
    let prometheus = Command::new(prometheus)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.path().join("data").display()
        ))
        .arg(format!("--web.listen-address={web}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start prometheus");
    struct Kill(Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _prometheus = Kill(prometheus);

    // Ask Prometheus (not the host) for the sum of the worlds gauge and the
    // rate of world updates between its last two scrapes.
    let query = |expr: &str| -> Option<f64> {
        let url = format!("http://{web}/api/v1/query?query={}", urlencode(expr));
        let agent = agent();
        let mut response = agent.get(&url).call().ok()?;
        // While Prometheus starts it answers 503 in plain text: ask again.
        let text = response.body_mut().read_to_string().ok()?;
        let body: serde_json::Value = serde_json::from_str(&text).ok()?;
        let value = body["data"]["result"].get(0)?["value"][1]
            .as_str()?
            .parse()
            .ok()?;
        Some(value)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let (worlds, rate) = loop {
        if let (Some(worlds), Some(rate)) = (
            query("sum(game_server_worlds)"),
            query("sum(irate(game_server_world_updates_total[10s]))"),
        ) && rate > 0.0
        {
            break (worlds, rate);
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus never returned the host's metrics; host log:\n{}",
            serve.stderr()
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    assert_eq!(worlds, 3.0, "host log:\n{}", serve.stderr());
    // 3 worlds at 60 Hz: 180 world updates per second of wall time (wide
    // bounds: this checks the counter's meaning, not the machine's speed).
    assert!(
        (90.0..=360.0).contains(&rate),
        "rate {rate}; host log:\n{}",
        serve.stderr()
    );
    let up = query("up{job=\"game-host\"}");
    assert_eq!(up, Some(1.0));
}

/// Percent-encodes a query parameter.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
