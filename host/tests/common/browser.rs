//! A headless chromium (Debian's), driven by chromedriver over WebDriver:
//! what the view page's tests open its pages in.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::serve::{agent, json};

/// A chromedriver on a free loopback port, killed when dropped.
pub struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    pub fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver (Debian's chromium-driver; ./test.sh installs it)");
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while !driver
            .call("GET", "/status", None)
            .is_some_and(|s| s["value"]["ready"] == true)
        {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        driver
    }

    /// A WebDriver call's JSON answer (`None` if the driver is not up).
    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Option<Value> {
        let url = format!("{}{path}", self.url);
        let agent = agent();
        let mut response = match method {
            "GET" => agent.get(&url).call(),
            "DELETE" => agent.delete(&url).call(),
            _ => agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(body.unwrap_or(json!({})).to_string()),
        }
        .ok()?;
        Some(json(&response.body_mut().read_to_string().ok()?))
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless chromium session.
pub struct Browser<'a> {
    driver: &'a Driver,
    session: String,
    /// Chromium's profile, removed with the session (chromium left to make
    /// its own leaves a directory of a few MB in /tmp for each session).
    _profile: tempfile::TempDir,
}

impl<'a> Browser<'a> {
    pub fn open(driver: &'a Driver) -> Browser<'a> {
        Browser::open_with(driver, false)
    }

    /// A session that takes any certificate a server shows (for a server
    /// whose certificate a test's own CA signed) when `insecure`.
    pub fn open_with(driver: &'a Driver, insecure: bool) -> Browser<'a> {
        let profile = tempfile::tempdir().unwrap();
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "acceptInsecureCerts": insecure,
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1100,600",
                         format!("--user-data-dir={}", profile.path().display())]
            }
        }}});
        let answer = driver
            .call("POST", "/session", Some(capabilities))
            .expect("chromedriver answers");
        let session = answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {answer}"))
            .to_owned();
        Browser {
            driver,
            session,
            _profile: profile,
        }
    }

    pub fn post(&self, path: &str, body: Value) -> Value {
        let path = format!("/session/{}{path}", self.session);
        self.driver.call("POST", &path, Some(body)).unwrap()
    }

    /// Runs `script` in the page; its return value.
    pub fn eval(&self, script: &str) -> Value {
        self.post("/execute/sync", json!({"script": script, "args": []}))["value"].clone()
    }

    /// Waits until `script` returns `want`; panics with the last value.
    pub fn wait_for(&self, script: &str, want: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut last = Value::Null;
        while Instant::now() < deadline {
            last = self.eval(script);
            if last == want {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("`{script}` was {last}, not {want:?}, after {limit:?}");
    }

    /// Presses a key (a WebDriver key code) down, or lets it up.
    pub fn key(&self, key: &str, down: bool) {
        let kind = if down { "keyDown" } else { "keyUp" };
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": kind, "value": key}
        ]}]});
        self.post("/actions", actions);
    }

    /// The page as a PNG image.
    pub fn screenshot(&self) -> Vec<u8> {
        let path = format!("/session/{}/screenshot", self.session);
        let answer = self.driver.call("GET", &path, None).unwrap();
        let text = answer["value"].as_str().expect("a screenshot");
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, text).unwrap()
    }

    /// Presses and releases a key (a WebDriver key code).
    pub fn press(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}
        ]}]});
        self.post("/actions", actions);
    }
}

impl Drop for Browser<'_> {
    fn drop(&mut self) {
        self.driver
            .call("DELETE", &format!("/session/{}", self.session), None);
    }
}
