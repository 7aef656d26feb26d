//! Arena: a world for players. Each player who joins gets an entity of its
//! own, `player-N`, that its arrow keys move one step per press. The script
//! greets each player alone (`send-to`), tells everyone who joined and left
//! (`broadcast`), and passes a player's `chat` messages on to all (the world
//! must open `chat` to players: `--player-channel chat`).
//!
//! Serve it, admit a player, and open the page it answers with:
//! ```text
//! host serve examples/arena --player-channel chat
//! curl -X POST http://127.0.0.1:9464/worlds/1/players
//! # {"player":1,"token":"...","stream":"/worlds/1/stream?token=...","view":"/worlds/1/view?token=..."}
//! ```
//! Open `http://127.0.0.1:9464` followed by the `view` address in a browser
//! and press the arrow keys.

use std::collections::HashMap;

use script::Script;
use script::events::{Event, Key};
use script::futures::StreamExt;
use script::glam::Vec3;
use script::players::{self, PlayerEvent, PlayerId};
use script::scene::{TransformComponent, TransformExt};

struct Arena;

impl Script for Arena {
    fn entrypoint() -> Self {
        script::task::spawn(host_players()).detach();
        Arena
    }
}

/// Where a key moves a player's entity.
fn step(key: Key) -> Option<Vec3> {
    match key {
        Key::Left => Some(Vec3::NEG_X),
        Key::Right => Some(Vec3::X),
        Key::Up => Some(Vec3::Y),
        Key::Down => Some(Vec3::NEG_Y),
        _ => None,
    }
}

async fn host_players() {
    let mut avatars: HashMap<PlayerId, TransformComponent> = HashMap::new();
    let mut events = players::events();
    while let Some(event) = events.next().await {
        match event {
            PlayerEvent::Joined(player) => {
                let avatar = script::scene::spawn(&format!("player-{player}"));
                // Side by side, two units apart, from the left.
                avatar.set_translation(Vec3::new(2.0 * (player % 5) as f32 - 4.0, 0.0, 0.0));
                avatar.set_scaling(Vec3::splat(0.8));
                avatars.insert(player, avatar);
                players::send_to(
                    player,
                    "welcome",
                    &format!("you are player-{player}: the arrow keys move you"),
                );
                let playing = players::list().len();
                players::broadcast("joined", &format!("player-{player} ({playing} playing)"));
                script::log::info(&format!("player {player} joined"));
            }
            PlayerEvent::Left(player) => {
                if let Some(avatar) = avatars.remove(&player) {
                    script::scene::despawn(avatar.id());
                }
                players::broadcast("left", &format!("player-{player}"));
                script::log::info(&format!("player {player} left"));
            }
            PlayerEvent::Input(input) => match input.event {
                Event::KeyPressed(key) => {
                    if let (Some(avatar), Some(step)) = (avatars.get(&input.player), step(key)) {
                        avatar.translate(step);
                    }
                }
                Event::Message(message) if message.channel == "chat" => {
                    let line = format!("player-{}: {}", input.player, message.payload);
                    players::broadcast("chat", &line);
                }
                _ => {}
            },
        }
    }
}

script::export!(Arena);
