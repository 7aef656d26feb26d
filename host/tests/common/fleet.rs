//! A fleet for the tests: a Redis server of a test's own (Debian's
//! `redis-server`, on a free loopback port, with a password), `host serve
//! --fleet` nodes on it, requests of a node, and players moved in its
//! worlds.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::client::{Client, position};
use super::serve::{Serve, json};

pub const PASSWORD: &str = "fleet-test-password";

/// A Redis server of its own on a free loopback port, with a password;
/// over TLS where it has a CA's PEM file.
pub struct Redis {
    child: Child,
    /// The loopback address it listens on (`127.0.0.1` unless asked).
    pub host: String,
    pub port: u16,
    pub password_file: PathBuf,
    pub ca_file: Option<PathBuf>,
}

impl Redis {
    pub fn start(dir: &Path) -> Redis {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Redis::start_on(dir, port)
    }

    /// A Redis server on `port`, with nothing in it.
    pub fn start_on(dir: &Path, port: u16) -> Redis {
        Redis::spawn(dir, "127.0.0.1", &["--port", &port.to_string()], port, None)
    }

    /// A Redis server on a free port of `host` (another loopback address,
    /// as a fleet's Redis on a machine of its own).
    pub fn start_at(dir: &Path, host: &str) -> Redis {
        let port = TcpListener::bind((host, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Redis::spawn(dir, host, &["--port", &port.to_string()], port, None)
    }

    /// A Redis server that speaks TLS alone, with a certificate for
    /// 127.0.0.1 signed by a CA made here (its PEM file is `ca_file`).
    pub fn start_tls(dir: &Path) -> Redis {
        let ca = super::tls::TestCa::new(dir);
        let issued = ca.issue(dir, "redis");
        let (ca_file, cert_file, key_file) = (ca.ca_file, issued.cert, issued.key);
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let tls = [
            "--port",
            "0",
            "--tls-port",
            &port.to_string(),
            "--tls-cert-file",
            cert_file.to_str().unwrap(),
            "--tls-key-file",
            key_file.to_str().unwrap(),
            "--tls-ca-cert-file",
            ca_file.to_str().unwrap(),
            "--tls-auth-clients",
            "no",
        ];
        Redis::spawn(dir, "127.0.0.1", &tls, port, Some(ca_file.clone()))
    }

    fn spawn(
        dir: &Path,
        host: &str,
        listen: &[&str],
        port: u16,
        ca_file: Option<PathBuf>,
    ) -> Redis {
        let password_file = dir.join("redis-password");
        std::fs::write(&password_file, format!("{PASSWORD}\n")).unwrap();
        let child = Command::new("redis-server")
            .args(listen)
            .args(["--bind", host])
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
            .expect("redis-server is not installed: ./test.sh installs it (Debian's redis-server)");
        let redis = Redis {
            child,
            host: host.to_owned(),
            port,
            password_file,
            ca_file,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while redis.cli(&["PING"]).trim() != "PONG" {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        redis
    }

    pub fn url(&self) -> String {
        let scheme = match self.ca_file {
            Some(_) => "rediss",
            None => "redis",
        };
        format!("{scheme}://{}:{}/", self.host, self.port)
    }

    /// `redis-cli` on Redis: its output.
    pub fn cli(&self, args: &[&str]) -> String {
        let mut command = Command::new("redis-cli");
        if let Some(ca) = &self.ca_file {
            command.arg("--tls").arg("--cacert").arg(ca);
        }
        let output = command
            .args([
                "-h",
                &self.host,
                "-p",
                &self.port.to_string(),
                "--no-auth-warning",
                "-a",
                PASSWORD,
            ])
            .args(args)
            .output()
            .expect("redis-cli");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A node of the fleet on `redis`, keeping its working copy in `state`.
pub fn node(redis: &Redis, state: &Path, extra: &[&str]) -> Serve {
    node_at(redis, state, "127.0.0.1:0", extra)
}

/// [`node`] listening on `listen`.
pub fn node_at(redis: &Redis, state: &Path, listen: &str, extra: &[&str]) -> Serve {
    node_with(redis, state, listen, extra, &[])
}

/// [`node_at`] with environment variables set.
pub fn node_with(
    redis: &Redis,
    state: &Path,
    listen: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Serve {
    let url = redis.url();
    let mut args = vec![
        "--fleet",
        &url,
        "--fleet-password-file",
        redis.password_file.to_str().unwrap(),
        "--state-dir",
        state.to_str().unwrap(),
        "--summary-every",
        "0",
    ];
    if let Some(ca) = &redis.ca_file {
        args.extend(["--fleet-ca-file", ca.to_str().unwrap()]);
    }
    args.extend_from_slice(extra);
    Serve::start_at(listen, &args, env)
}

/// An HTTP request that does not follow redirects: status, body and the
/// `Location` header.
pub fn raw(method: &str, url: &str) -> (u16, String, Option<String>) {
    raw_as(method, url, None)
}

/// [`raw`] with the control token, if any.
pub fn raw_as(method: &str, url: &str, token: Option<&str>) -> (u16, String, Option<String>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let bearer = token.map(|token| format!("Bearer {token}"));
    let bearer = bearer.as_deref();
    let mut response = match method {
        "GET" => with_token(agent.get(url), bearer).call(),
        "DELETE" => with_token(agent.delete(url), bearer).call(),
        _ => with_token(agent.post(url), bearer)
            .header("Content-Type", "application/json")
            .send(""),
    }
    .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let location = response
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned());
    let status = response.status().as_u16();
    (
        status,
        response.body_mut().read_to_string().unwrap(),
        location,
    )
}

fn with_token<B>(
    request: ureq::RequestBuilder<B>,
    bearer: Option<&str>,
) -> ureq::RequestBuilder<B> {
    match bearer {
        Some(bearer) => request.header("Authorization", bearer),
        None => request,
    }
}

/// A request of the node at `addr`, which answers for every world of the
/// fleet (no node redirects): the status and the body.
pub fn ask(method: &str, addr: &str, path: &str) -> (u16, Value) {
    ask_as(method, addr, path, None)
}

/// [`ask`] with the control token, if any.
pub fn ask_as(method: &str, addr: &str, path: &str, token: Option<&str>) -> (u16, Value) {
    let (status, body, location) = raw_as(method, &format!("http://{addr}{path}"), token);
    assert_eq!(location, None, "{method} {path}: no node redirects");
    (status, json(&body))
}

/// Each node's running worlds: id -> frame.
pub fn worlds_on(node: &Serve) -> Vec<(u64, u64)> {
    let (status, body) = ask("GET", &node.addr, "/worlds");
    assert_eq!(status, 200);
    body.as_array()
        .unwrap()
        .iter()
        .map(|w| (w["id"].as_u64().unwrap(), w["frame"].as_u64().unwrap()))
        .collect()
}

/// A player of a world, moved right `steps` times, and where it stands.
pub struct Player {
    pub world: u64,
    pub path: String,
    pub name: String,
    pub at: [f64; 2],
}

/// Admits a player to `world` through `addr` and moves it right `steps`
/// times; its stream is closed after.
pub fn play(addr: &str, world: u64, steps: usize) -> Player {
    play_as(addr, world, steps, None)
}

/// [`play`] with the control token, if any.
pub fn play_as(addr: &str, world: u64, steps: usize, token: Option<&str>) -> Player {
    let (status, body) = ask_as("POST", addr, &format!("/worlds/{world}/players"), token);
    assert_eq!(status, 201, "{body}");
    let player = body["player"].as_u64().unwrap();
    let path = body["stream"].as_str().unwrap().to_owned();
    let name = format!("player-{player}");
    let mut client = Client::connect_to(addr, &path).unwrap();
    for _ in 0..steps {
        client.send(r#"{"press": "right"}"#);
    }
    let x = 2.0 * (player % 5) as f64 - 4.0 + steps as f64;
    client.until(Duration::from_secs(10), |m| {
        position(m, &name) == Some([x, 0.0])
    });
    Player {
        world,
        path,
        name,
        at: [x, 0.0],
    }
}

/// `player`, reconnected through `addr`, is where it was: its client.
pub fn back(addr: &str, player: &Player) -> Client {
    let (client, snapshot) = Client::reconnect(addr, &player.path);
    assert_eq!(
        position(&snapshot, &player.name),
        Some(player.at),
        "{}",
        player.name
    );
    client
}

/// `player` is back through `addr` where it was, and moves: it presses up
/// and is seen one step higher (where it now is).
pub fn back_and_moving(addr: &str, player: &mut Player) {
    let mut client = back(addr, player);
    client.send(r#"{"press": "up"}"#);
    let up = [player.at[0], player.at[1] + 1.0];
    client.until(Duration::from_secs(10), |m| {
        position(m, &player.name) == Some(up)
    });
    player.at = up;
}

/// Bytes of log waiting for Redis, as /metrics says.
pub fn buffered(node: &Serve) -> u64 {
    let metrics = super::serve::request("GET", &node.url("/metrics"), None).1;
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("game_server_fleet_log_buffered_bytes "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{metrics}"))
}

/// A node's working copy in its state directory (a folder of its own).
pub fn working_copy(state: &Path) -> PathBuf {
    let copies: Vec<PathBuf> = std::fs::read_dir(state)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("host-fleet-node-"))
        })
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    copies[0].clone()
}
