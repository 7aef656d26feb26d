//! Dash: arena's movement, as a script the players' browsers can run too.
//! Each frame it moves every player's entity (`player-N`, which arena
//! spawns) by the commands its player's client sent (`controls`): per
//! command, [`STEP`] along the arrow keys held, diagonals as fast as
//! straight lines. It reads nothing but the commands, the entities' names
//! and transforms, so the browser, given the same commands, moves the
//! player's own entity exactly as the server will.
//!
//! Serve it beside arena, which admits players and spawns their entities:
//! ```text
//! host serve examples/arena examples/dash --player-channel chat --player-channel tell
//! ```

use script::Script;
use script::controls::{self, Command};
use script::events::Key;
use script::glam::Vec3;
use script::scene::TransformExt;

/// How far one command moves an entity, in world units (at 60 commands a
/// second, six units a second).
pub const STEP: f32 = 0.1;

struct Dash;

impl Script for Dash {
    fn entrypoint() -> Self {
        script::update::subscribe();
        Dash
    }

    fn on_update(&mut self) {
        for control in controls::commands() {
            let Some(avatar) = script::scene::find(&format!("player-{}", control.player)) else {
                continue;
            };
            // One command after another, as the browser applies them (a
            // sum of the steps first would round differently).
            let start = avatar.translation();
            let end = control.commands.iter().fold(start, |at, c| at + step(c));
            if end != start {
                avatar.set_translation(end);
            }
        }
    }
}

/// Where one command moves an entity: [`STEP`] along the arrows held.
fn step(command: &Command) -> Vec3 {
    let direction: Vec3 = command
        .held
        .iter()
        .map(|key| match key {
            Key::Left => Vec3::NEG_X,
            Key::Right => Vec3::X,
            Key::Up => Vec3::Y,
            Key::Down => Vec3::NEG_Y,
            _ => Vec3::ZERO,
        })
        .sum();
    direction.normalize_or_zero() * STEP
}

script::export!(Dash);
