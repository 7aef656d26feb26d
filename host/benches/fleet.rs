//! A fleet (`host serve --fleet`): how long a dead node's worlds take to run
//! again on the others, and how long a drained node's worlds take to move.
//!
//! A Redis server (Debian's `redis-server`, with a password) and three
//! nodes of the built-in spinning cube on loopback, all on this machine,
//! each node starting a third of the worlds. After the worlds have run a
//! few seconds, one node is SIGKILLed: each of its worlds' failover time is
//! from the kill to the world's first answer from another node (its lease,
//! 2 s by default, lapses first). Then another node gets SIGTERM: each of
//! its worlds' move time is from the signal to its first answer from the
//! last node. Each is polled every 20 ms, so times are that coarse.
//!
//! Run with `cargo bench -p game-host-cli --bench fleet`
//! (`FLEET_BENCH_WORLDS=60,600` sets the sizes, `FLEET_BENCH_LEASE_MS` the
//! lease).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

const PASSWORD: &str = "fleet-bench-password";

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child killed when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn redis(dir: &Path, port: u16) -> Proc {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args([
            "--requirepass",
            PASSWORD,
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server (Debian's redis-server) is needed");
    std::thread::sleep(Duration::from_millis(300));
    Proc(child)
}

/// A node starting `worlds` worlds; its address once it serves.
fn node(port: u16, password: &Path, worlds: usize, lease_ms: &str) -> (Proc, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_host"))
        .arg("serve")
        .args(["--fleet", &format!("redis://127.0.0.1:{port}/")])
        .arg("--fleet-password-file")
        .arg(password)
        .args(["--fleet-lease-ms", lease_ms])
        .args(["--worlds", &worlds.to_string(), "--max-worlds", "700"])
        .args(["--listen", "127.0.0.1:0", "--summary-every", "0"])
        .env("NO_COLOR", "1")
        .stderr(Stdio::piped())
        .spawn()
        .expect("start host serve");
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if let Some(at) = line.find("serving on http://") {
                let rest = &line[at + "serving on http://".len()..];
                let _ = sender.send(rest[..rest.find('/').unwrap()].to_owned());
            }
        }
    });
    let addr = receiver
        .recv_timeout(Duration::from_secs(300))
        .expect("the node serves");
    (Proc(child), addr)
}

fn world_ids(addr: &str) -> Vec<u64> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let Ok(mut response) = agent.get(&format!("http://{addr}/worlds")).call() else {
        return Vec::new();
    };
    let body = response.body_mut().read_to_string().unwrap_or_default();
    let worlds: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    worlds
        .as_array()
        .map(|w| w.iter().filter_map(|w| w["id"].as_u64()).collect())
        .unwrap_or_default()
}

/// Polls `nodes` until every one of `worlds` runs on one: each world's
/// time from `since`.
fn until_running(nodes: &[&str], worlds: &[u64], since: Instant) -> Vec<Duration> {
    let mut times: HashMap<u64, Duration> = HashMap::new();
    while times.len() < worlds.len() {
        assert!(
            since.elapsed() < Duration::from_secs(120),
            "worlds did not come back"
        );
        for addr in nodes {
            for id in world_ids(addr) {
                if worlds.contains(&id) {
                    times.entry(id).or_insert_with(|| since.elapsed());
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut times: Vec<Duration> = times.into_values().collect();
    times.sort();
    times
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let at = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[at].as_secs_f64()
}

fn main() {
    let sizes: Vec<usize> = common::env_or("FLEET_BENCH_WORLDS", "60,600".to_owned())
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let lease_ms = common::env_or("FLEET_BENCH_LEASE_MS", "2000".to_owned());
    println!(
        "| worlds | killed node's | failover p50 | p99 | max | drained node's | move p50 | p99 | max |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for total in sizes {
        let dir = tempfile::tempdir().unwrap();
        let password = dir.path().join("password");
        std::fs::write(&password, PASSWORD).unwrap();
        let port = free_port();
        let _redis = redis(dir.path(), port);
        let nodes: Vec<(Proc, String)> = (0..3)
            .map(|_| node(port, &password, total / 3, &lease_ms))
            .collect();
        std::thread::sleep(Duration::from_secs(3));
        let mut nodes: Vec<Option<(Proc, String)>> = nodes.into_iter().map(Some).collect();
        let addrs: Vec<String> = nodes
            .iter()
            .map(|n| n.as_ref().unwrap().1.clone())
            .collect();

        let killed = world_ids(&addrs[1]);
        let (mut victim, _) = nodes[1].take().unwrap();
        let since = Instant::now();
        victim.0.kill().unwrap();
        let failover = until_running(&[&addrs[0], &addrs[2]], &killed, since);
        std::thread::sleep(Duration::from_secs(1));

        let moving = world_ids(&addrs[2]);
        let (drained, _) = nodes[2].as_ref().unwrap();
        let since = Instant::now();
        let signalled = Command::new("kill")
            .args(["-TERM", &drained.0.id().to_string()])
            .status()
            .unwrap();
        assert!(signalled.success());
        let moved = until_running(&[&addrs[0]], &moving, since);
        println!(
            "| {total} | {} | {:.3} s | {:.3} s | {:.3} s | {} | {:.3} s | {:.3} s | {:.3} s |",
            killed.len(),
            percentile(&failover, 0.5),
            percentile(&failover, 0.99),
            failover.last().unwrap().as_secs_f64(),
            moving.len(),
            percentile(&moved, 0.5),
            percentile(&moved, 0.99),
            moved.last().unwrap().as_secs_f64(),
        );
    }
}
