//! A gust: once a second (every [`EVERY`] frames) every player's entity
//! (`player-N`) is pushed [`PUSH`] up, and the next second as far down.
//! Only the server runs it, so a browser predicting the player's entity
//! with dash disagrees with the server once a second, and corrects.

use script::Script;
use script::glam::Vec3;

/// Frames between gusts.
const EVERY: u64 = 60;

/// How far a gust pushes, in world units.
const PUSH: f32 = 1.0;

struct Gust {
    frames: u64,
}

impl Script for Gust {
    fn entrypoint() -> Self {
        script::update::subscribe();
        Gust { frames: 0 }
    }

    fn on_update(&mut self) {
        self.frames += 1;
        if !self.frames.is_multiple_of(EVERY) {
            return;
        }
        let up = (self.frames / EVERY).is_multiple_of(2);
        let push = if up {
            Vec3::Y * PUSH
        } else {
            Vec3::NEG_Y * PUSH
        };
        for player in script::players::list() {
            if let Some(avatar) = script::scene::find(&format!("player-{player}")) {
                // A relative move: it adds to dash's, made after the frame's calls.
                avatar.translate(push);
            }
        }
    }
}

script::export!(Gust);
