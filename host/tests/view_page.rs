//! The page `host serve` serves to watch and play a world
//! (`/worlds/{id}/view`), in a real browser: Debian's chromium, driven by
//! chromedriver over WebDriver. The page runs on the players' client
//! library (served at `/client/`): it connects to the player's stream (the
//! binary deltas), draws the world, and a key pressed on it reaches the
//! script, whose change (a transform, a replicated component) then shows
//! on the page.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::serve::{Serve, agent, json, request};
use serde_json::{Value, json};

/// A chromedriver on a free loopback port, killed when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start() -> Driver {
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
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Option<Value> {
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
struct Browser<'a> {
    driver: &'a Driver,
    session: String,
}

impl<'a> Browser<'a> {
    fn open(driver: &'a Driver) -> Browser<'a> {
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1100,600"]
            }
        }}});
        let answer = driver
            .call("POST", "/session", Some(capabilities))
            .expect("chromedriver answers");
        let session = answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {answer}"))
            .to_owned();
        Browser { driver, session }
    }

    fn post(&self, path: &str, body: Value) -> Value {
        let path = format!("/session/{}{path}", self.session);
        self.driver.call("POST", &path, Some(body)).unwrap()
    }

    /// Runs `script` in the page; its return value.
    fn eval(&self, script: &str) -> Value {
        self.post("/execute/sync", json!({"script": script, "args": []}))["value"].clone()
    }

    /// Waits until `script` returns `want`; panics with the last value.
    fn wait_for(&self, script: &str, want: &str, limit: Duration) {
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

    /// Presses and releases a key (a WebDriver key code).
    fn press(&self, key: &str) {
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

#[test]
fn the_view_page_draws_the_world_and_sends_its_keys() {
    let serve = Serve::start(&[
        "examples/message-window",
        "--worlds",
        "0",
        "--hz",
        "20",
        "--player-keys",
    ]);
    let (status, body) = request("POST", &serve.url("/worlds"), Some("{}"));
    assert_eq!(status, 201, "{body}");
    let (status, body) = request("POST", &serve.url("/worlds/1/players"), None);
    assert_eq!(status, 201, "{body}");
    let view = json(&body)["view"].as_str().unwrap().to_owned();

    let driver = Driver::start();
    let browser = Browser::open(&driver);
    browser.post("/url", json!({"url": serve.url(&view)}));
    let scale = r#"const cell = document.querySelector('tr[data-name="window"] td.scale');
                   return cell ? cell.textContent : null;"#;
    // The page got the snapshot and the updates in which the window opens.
    browser.wait_for(
        "return document.body.dataset.connected || null;",
        "true",
        Duration::from_secs(30),
    );
    browser.wait_for(scale, "1.00, 1.00, 1.00", Duration::from_secs(10));
    // Enter pressed on the page closes it, and the page shows it closed.
    browser.press("\u{E007}");
    browser.wait_for(scale, "1.00, 0.00, 1.00", Duration::from_secs(5));
    let status = browser.eval("return document.getElementById('status').textContent;");
    assert_eq!(status, "world 1: player 1");
    // The canvas was drawn on: some pixel is not the background.
    let drawn = browser.eval(
        "const c = document.getElementById('world');
         const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
         for (let i = 0; i < d.length; i += 4) { if (d[i] > 60 || d[i + 2] > 60) return true; }
         return false;",
    );
    assert_eq!(drawn, true);
}

#[test]
fn the_view_page_shows_a_replicated_component_changed_by_a_key() {
    let serve = Serve::start(&["examples/arena", "--hz", "20"]);
    let (status, body) = request("POST", &serve.url("/worlds/1/players"), None);
    assert_eq!(status, 201, "{body}");
    let body = json(&body);
    let (player, view) = (
        body["player"].as_u64().unwrap(),
        body["view"].as_str().unwrap(),
    );

    // The library's files are served as scripts.
    let (status, index) = request("GET", &serve.url("/client/index.js"), None);
    assert_eq!(status, 200);
    assert!(index.contains("export { GameClient }"), "{index}");

    let driver = Driver::start();
    let browser = Browser::open(&driver);
    browser.post("/url", json!({"url": serve.url(view)}));
    let health = format!(
        r#"const cell = document.querySelector('tr[data-name="player-{player}"] td.data');
           return cell ? cell.textContent : null;"#
    );
    browser.wait_for(&health, "Health hp 10", Duration::from_secs(30));
    // Space takes one hp: the script's change reaches the page in the
    // entity's delta.
    browser.press("\u{E00D}");
    browser.wait_for(&health, "Health hp 9", Duration::from_secs(10));
    // Its stream is the binary one.
    let metrics = request("GET", &serve.url("/metrics"), None).1;
    assert!(metrics.contains("game_server_streams 1"), "{metrics}");
}
