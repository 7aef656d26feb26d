//! What each player sees (`game:engine/views`), end to end: `host serve`
//! runs `examples/crowd` (1,000 wandering entities; each player sees a
//! radius around its own entity, and a beacon shown to it alone), 50
//! players stream it over real WebSockets, and each client's table is
//! checked after every message.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::client::{Client, admit};
use common::serve::Serve;
use serde_json::Value;

/// The crowd's radius (`examples/crowd`'s `RADIUS`).
const RADIUS: f64 = 20.0;

/// What one client saw.
#[derive(Debug, Default)]
struct Seen {
    messages: usize,
    largest_view: usize,
    entered: usize,
    removed: usize,
    /// Whether another player's entity was in view (so its beacon, near
    /// it, was hidden by its audience, not by distance).
    saw_another: bool,
    /// Whether its own beacon was in its view.
    own_beacon: bool,
    /// Whether its own entity was in its view.
    own_seen: bool,
    /// Messages after which its view was checked.
    checked: usize,
}

fn xyz(entity: &Value) -> [f64; 3] {
    let p = &entity["position"];
    [0, 1, 2].map(|i| p[i].as_f64().expect("a position"))
}

/// Reads player `player`'s stream for `seconds`, pressing `right` every
/// half second, and checks after each message that every entity its table
/// holds is within the radius of its own, and that of the beacons it holds
/// only its own.
fn watch(mut client: Client, player: u64, seconds: u64) -> Seen {
    let own = format!("player-{player}");
    let mut table: HashMap<u64, (String, [f64; 3])> = HashMap::new();
    let mut seen = Seen::default();
    let until = Instant::now() + Duration::from_secs(seconds);
    let mut press = Instant::now();
    while Instant::now() < until {
        if press.elapsed() > Duration::from_millis(500) {
            client.send(r#"{"press": "right"}"#);
            press = Instant::now();
        }
        let Some(message) = client.next(Duration::from_millis(200)) else {
            continue;
        };
        let changed = if let Some(entities) = message.get("entities") {
            table.clear();
            entities
        } else if let Some(changed) = message.get("changed") {
            changed
        } else {
            continue;
        };
        seen.messages += 1;
        for entity in changed.as_array().unwrap() {
            let id = entity["id"].as_u64().unwrap();
            let name = entity["name"].as_str().unwrap().to_owned();
            if table.insert(id, (name, xyz(entity))).is_none() {
                seen.entered += 1;
            }
        }
        for id in message["removed"].as_array().into_iter().flatten() {
            assert!(
                table.remove(&id.as_u64().unwrap()).is_some(),
                "removed {id}, never sent"
            );
            seen.removed += 1;
        }
        // A snapshot taken before the player's join reached the world holds
        // everything but the beacons (its view is not limited yet); from
        // the update that brings its own entity on, it sees its radius.
        let Some(center) = table.values().find(|(name, _)| *name == own).map(|e| e.1) else {
            assert!(!seen.own_seen, "player {player}'s own entity left its view");
            continue;
        };
        seen.own_seen = true;
        let beacon = format!("beacon-{player}");
        // Its beacon stays where it joined, within reach until it moved.
        seen.own_beacon |= table.values().any(|(name, _)| *name == beacon);
        for (id, (name, at)) in &table {
            assert!(
                !name.starts_with("beacon-") || *name == beacon,
                "player {player} was sent `{name}`, shown to another player only"
            );
            seen.saw_another |= name.starts_with("player-") && *name != own;
            let d = ((at[0] - center[0]).powi(2)
                + (at[1] - center[1]).powi(2)
                + (at[2] - center[2]).powi(2))
            .sqrt();
            assert!(
                d <= RADIUS + 1e-3,
                "player {player} holds entity {id} `{name}` {d:.2} units away (radius {RADIUS})"
            );
        }
        seen.largest_view = seen.largest_view.max(table.len());
        seen.checked += 1;
    }
    seen
}

#[test]
fn each_of_50_players_is_sent_only_what_is_within_its_radius() {
    let serve = Serve::start(&["examples/crowd"]);
    let players: Vec<(u64, Client)> = (0..50)
        .map(|_| {
            let (player, stream) = admit(&serve, 1);
            (player, Client::connect(&serve, &stream).unwrap())
        })
        .collect();
    let watchers: Vec<_> = players
        .into_iter()
        .map(|(player, client)| std::thread::spawn(move || watch(client, player, 4)))
        .collect();
    let seen: Vec<Seen> = watchers.into_iter().map(|w| w.join().unwrap()).collect();
    let entered: usize = seen.iter().map(|s| s.entered).sum();
    let removed: usize = seen.iter().map(|s| s.removed).sum();
    let largest = seen.iter().map(|s| s.largest_view).max().unwrap();
    // Every client heard the world, each saw a part of it (about 3% of the
    // field's area), and views changed as players moved.
    assert!(seen.iter().all(|s| s.checked > 10), "{seen:?}");
    assert!(seen.iter().all(|s| s.own_beacon), "{seen:?}");
    assert!(largest < 200, "a view held {largest} of 1,100 entities");
    assert!(entered > 50 * 10, "{entered} entered in all");
    assert!(removed > 0, "no entity left any view as players moved");
    assert!(
        seen.iter().any(|s| s.saw_another),
        "no player came near another: the beacons' audiences went untested"
    );
}
