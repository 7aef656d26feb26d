//! Crowd: 1,000 entities wander a 200 x 200 field, and each player sees
//! only what is within 20 units of its own entity (`views::set_interest`):
//! its client is sent those entities, whole as they come into view and
//! `removed` as they leave it, and nothing else. Each player also has a
//! beacon at its entity's side that only it sees (`views::show_to`), even
//! where another player is near. A player's arrow keys move its entity 5
//! units a press (its beacon stays).
//!
//! ```text
//! host serve examples/crowd
//! curl -X POST http://127.0.0.1:9464/worlds/1/players
//! ```

use std::collections::HashMap;

use script::behaviour::{self, Behaviour};
use script::entities::{self, Transform};
use script::events::{Event, Key};
use script::futures::StreamExt;
use script::glam::{Quat, Vec3};
use script::players::{self, PlayerEvent, PlayerId};
use script::prelude::*;
use script::scene::{TransformComponent, TransformExt};
use script::time::FrameClock;
use script::views;

/// Entities that wander.
pub const COUNT: u32 = 1_000;
/// Half the field's side.
pub const FIELD: f32 = 100.0;
/// How far a player sees.
pub const RADIUS: f32 = 20.0;
/// How far an arrow key moves a player.
const STEP: f32 = 5.0;

/// Circles its own point of the field.
struct Wander {
    center: Vec3,
    radius: f32,
    angle: f32,
    speed: f32,
}

impl Behaviour for Wander {
    fn update(&mut self, transform: &mut Transform, clock: &FrameClock) {
        self.angle += self.speed * clock.delta_time;
        let (sin, cos) = self.angle.sin_cos();
        transform.position = self.center + Vec3::new(cos, 0.0, sin) * self.radius;
        transform.rotation = Quat::from_rotation_y(-self.angle);
    }
}

/// A point of the field for number `i` (a low-discrepancy spread, the same
/// in every run).
fn spot(i: u32) -> Vec3 {
    let u = (i as f32 * 0.618_034).fract();
    let v = (i as f32 * 0.754_877_7).fract();
    Vec3::new((u * 2.0 - 1.0) * FIELD, 0.0, (v * 2.0 - 1.0) * FIELD)
}

struct Crowd;

impl Script for Crowd {
    fn entrypoint() -> Self {
        let ids = entities::spawn_many("walker", COUNT);
        behaviour::attach_all(&ids, |i, _| Wander {
            center: spot(i as u32),
            radius: 1.0 + (i % 5) as f32,
            angle: i as f32,
            speed: 0.5 + (i % 3) as f32 * 0.25,
        });
        script::task::spawn(host_players()).detach();
        Crowd
    }
}

/// Where a key moves a player's entity.
fn step(key: Key) -> Option<Vec3> {
    match key {
        Key::Left => Some(Vec3::NEG_X * STEP),
        Key::Right => Some(Vec3::X * STEP),
        Key::Up => Some(Vec3::NEG_Z * STEP),
        Key::Down => Some(Vec3::Z * STEP),
        _ => None,
    }
}

async fn host_players() {
    let mut avatars: HashMap<PlayerId, (TransformComponent, TransformComponent)> = HashMap::new();
    let mut events = players::events();
    while let Some(event) = events.next().await {
        match event {
            PlayerEvent::Joined(player) => {
                let at = spot(COUNT + player as u32) * 0.9;
                let avatar = script::scene::spawn(&format!("player-{player}"));
                avatar.set_translation(at);
                views::set_interest(player, avatar.id(), RADIUS);
                let beacon = script::scene::spawn(&format!("beacon-{player}"));
                beacon.set_translation(at + Vec3::Y);
                views::show_to(beacon.id(), player);
                avatars.insert(player, (avatar, beacon));
            }
            PlayerEvent::Left(player) => {
                if let Some((avatar, beacon)) = avatars.remove(&player) {
                    script::scene::despawn(avatar.id());
                    script::scene::despawn(beacon.id());
                }
            }
            PlayerEvent::Input(input) => {
                if let (Event::KeyPressed(key), Some((avatar, _))) =
                    (input.event, avatars.get(&input.player))
                    && let Some(step) = step(key)
                {
                    avatar.translate(step);
                }
            }
        }
    }
}

script::export!(Crowd);
