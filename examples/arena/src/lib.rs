//! Arena: a world for players. Each player who joins gets an entity of its
//! own, `player-N`, that its arrow keys move one step per press, with a
//! `Health` (10 hp) that streams to every player (`views::replicate`) and
//! that the space key takes one from. The script greets each player alone
//! (`send-to`), tells everyone who joined and left (`broadcast`), passes a
//! player's `chat` messages on to all, and a `tell` message (`"N text"`)
//! to player N alone, kept for it while its client is away (the world must
//! open both to players: `--player-channel chat --player-channel tell`).
//!
//! Serve it, admit a player, and open the page it answers with:
//! ```text
//! host serve examples/arena --player-channel chat --player-channel tell
//! curl -X POST http://127.0.0.1:9464/worlds/1/players
//! # {"player":1,"token":"...","stream":"/worlds/1/stream?token=...","view":"/worlds/1/view?token=..."}
//! ```
//! Open `http://127.0.0.1:9464` followed by the `view` address in a browser
//! and press the arrow keys.

use std::collections::HashMap;

use script::Script;
use script::data::{self, Value};
use script::events::{Event, Key};
use script::futures::StreamExt;
use script::glam::Vec3;
use script::players::{self, PlayerEvent, PlayerId};
use script::scene::{TransformComponent, TransformExt};
use script::views;

/// A player's health at the start.
const HEALTH: i64 = 10;

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

/// Takes one hp from `avatar`'s `Health`, down to 0.
fn hurt(avatar: &TransformComponent) {
    let hp = match data::field(avatar.id(), "Health", "hp") {
        Ok(Value::Integer(hp)) => hp,
        _ => return,
    };
    let _ = data::set(avatar.id(), "Health", "hp", Value::Integer((hp - 1).max(0)));
}

async fn host_players() {
    views::replicate("Health");
    let mut avatars: HashMap<PlayerId, TransformComponent> = HashMap::new();
    let mut events = players::events();
    while let Some(event) = events.next().await {
        match event {
            PlayerEvent::Joined(player) => {
                let avatar = script::scene::spawn(&format!("player-{player}"));
                // Side by side, two units apart, from the left.
                avatar.set_translation(Vec3::new(2.0 * (player % 5) as f32 - 4.0, 0.0, 0.0));
                avatar.set_scaling(Vec3::splat(0.8));
                let _ = data::insert(avatar.id(), "Health", &[("hp", Value::Integer(HEALTH))]);
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
                Event::KeyPressed(Key::Space) => {
                    if let Some(avatar) = avatars.get(&input.player) {
                        hurt(avatar);
                    }
                }
                Event::KeyPressed(key) => {
                    if let (Some(avatar), Some(step)) = (avatars.get(&input.player), step(key)) {
                        avatar.translate(step);
                    }
                }
                Event::Message(message) if message.channel == "chat" => {
                    let line = format!("player-{}: {}", input.player, message.payload);
                    players::broadcast("chat", &line);
                }
                Event::Message(message) if message.channel == "tell" => {
                    if let Some((to, text)) = message.payload.split_once(' ')
                        && let Ok(to) = to.parse::<PlayerId>()
                    {
                        let line = format!("player-{}: {text}", input.player);
                        players::send_to(to, "told", &line);
                    }
                }
                _ => {}
            },
        }
    }
}

script::export!(Arena);
