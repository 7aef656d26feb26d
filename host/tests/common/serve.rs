//! `host serve` run as a child process for the server tests: started on a
//! free loopback port (or an address of a test's choosing), its stderr
//! collected, and plain HTTP requests.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// `host serve`'s arguments for a world of `examples/message-window` that
/// starts when asked, at 20 Hz, its players' keys open to them.
pub const MESSAGE_WINDOW: [&str; 6] = [
    "examples/message-window",
    "--worlds",
    "0",
    "--hz",
    "20",
    "--player-keys",
];

/// A running `host serve` whose stderr is collected.
pub struct Serve {
    pub child: Child,
    stderr: Arc<Mutex<String>>,
    pub addr: String,
    /// `http`, or `https` for a server given a certificate.
    pub scheme: String,
}

impl Serve {
    /// Starts `host serve ARGS --listen 127.0.0.1:0` and waits until it
    /// listens.
    pub fn start(args: &[&str]) -> Serve {
        Serve::start_with(args, &[])
    }

    /// Like [`Serve::start`], with environment variables set.
    pub fn start_with(args: &[&str], env: &[(&str, &str)]) -> Serve {
        Serve::start_at("127.0.0.1:0", args, env)
    }

    /// Like [`Serve::start_with`], listening on `listen`.
    pub fn start_at(listen: &str, args: &[&str], env: &[(&str, &str)]) -> Serve {
        let child = Command::new(env!("CARGO_BIN_EXE_host"))
            .arg("serve")
            .args(args)
            .args(["--listen", listen, "--cache-dir"])
            .arg(super::cache_dir())
            .env("NO_COLOR", "1")
            .envs(env.iter().copied())
            .current_dir(super::workspace())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start host serve");
        Serve::adopt(child)
    }

    /// A `host serve` started otherwise (its stderr piped), once it serves.
    pub fn adopt(mut child: Child) -> Serve {
        let stderr = Arc::new(Mutex::new(String::new()));
        let lines = BufReader::new(child.stderr.take().unwrap());
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                let mut text = sink.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        let deadline = Instant::now() + Duration::from_secs(120);
        let (scheme, addr) = loop {
            let text = stderr.lock().unwrap().clone();
            if let Some(at) = text.find("serving on ") {
                let rest = &text[at + "serving on ".len()..];
                let (scheme, rest) = rest.split_once("://").unwrap();
                break (
                    scheme.to_owned(),
                    rest[..rest.find('/').unwrap()].to_owned(),
                );
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!("host serve exited with {status}:\n{text}");
            }
            assert!(
                Instant::now() < deadline,
                "host serve did not listen:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        Serve {
            child,
            stderr,
            addr,
            scheme,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}://{}{path}", self.scheme, self.addr)
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits for the process to exit; its status code.
    pub fn wait(&mut self, limit: Duration) -> i32 {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the reader thread take the last lines.
                std::thread::sleep(Duration::from_millis(100));
                return status.code().expect("exited, not killed");
            }
            if Instant::now() > deadline {
                self.child.kill().unwrap();
                panic!("host serve did not exit in {limit:?}:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn terminate(&self) {
        self.signal("TERM");
    }

    /// Sends signal `name` (`TERM`, `KILL`, ...) to the process.
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// A line of `/proc/PID/status`, e.g. `Threads`, as a number.
    pub fn status(&self, key: &str) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in /proc status"))
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// Status and body of a request.
pub fn request(method: &str, url: &str, body: Option<&str>) -> (u16, String) {
    let agent = agent();
    let mut response = match (method, body) {
        ("GET", _) => agent.get(url).call(),
        ("DELETE", _) => agent.delete(url).call(),
        ("POST", body) => agent
            .post(url)
            .header("Content-Type", "application/json")
            .send(body.unwrap_or("")),
        _ => unreachable!(),
    }
    .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = response.status().as_u16();
    (status, response.body_mut().read_to_string().unwrap())
}

pub fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

pub fn read_json(path: &Path) -> Value {
    json(&std::fs::read_to_string(path).expect("file written"))
}
