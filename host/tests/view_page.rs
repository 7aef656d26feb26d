//! The page `host serve` serves to watch and play a world
//! (`/worlds/{id}/view`), in a real browser: Debian's chromium, driven by
//! chromedriver over WebDriver. The page runs on the players' client
//! library (served at `/client/`): it connects to the player's stream (the
//! binary deltas), draws the world, and a key pressed on it reaches the
//! script, whose change (a transform, a replicated component) then shows
//! on the page.

mod common;

use std::time::Duration;

use common::browser::{Browser, Driver};
use common::serve::{MESSAGE_WINDOW, Serve, json, request};
use serde_json::json;

#[test]
fn the_view_page_draws_the_world_and_sends_its_keys() {
    let serve = Serve::start(&MESSAGE_WINDOW);
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
