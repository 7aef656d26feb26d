//! Spin query: every entity that has a `Spin { speed, angle }` and no
//! `Frozen` turns about Y at its own speed (radians a second). Each frame
//! the script makes one query for all of them, reads the `Time` resource
//! for the step, and writes the angles and rotations back in one call.
//! Every [`SCORE_EVERY`] frames it sends the game a `Scored { points: 1 }`
//! message, and it logs each `Scored` it hears.
//!
//! The components are the game's: in `examples/bevy-game --spinners N`
//! they are Bevy components the game registers for scripts, and a game
//! system counts the `Scored` messages into its `Score`. Under `host run`,
//! where the scene holds what scripts insert, the script spawns
//! [`SPINNERS`] spinners and one frozen one itself, and its messages reach
//! scripts alone, so the same script behaves the same in both.
//!
//! ```text
//! cargo run --release --bin host -- run examples/spin-query --headless --frames 120
//! cargo run --release -p bevy-game -- --headless --frames 120 --spinners 8 examples/spin-query
//! ```

use script::Script;
use script::data::{self, Value};
use script::events::{Event, EventFilter};
use script::glam::Quat;
use script::prelude::StreamExt;
use script::query::{self, Column, Query};

/// Spinners the script makes where the game has none (`host run`).
pub const SPINNERS: u32 = 8;

/// Frames between two `Scored` messages.
pub const SCORE_EVERY: u64 = 30;

struct SpinQuery {
    frames: u64,
}

/// Under `host run`: spinners at half a radian a second apart, and one
/// that a `Frozen` component keeps still.
fn spawn_spinners() {
    for i in 0..=SPINNERS {
        let id = script::scene::spawn(&format!("spinner-{i}")).id();
        let speed = Value::Number(0.5 * f64::from(i + 1));
        data::insert(
            id,
            "Spin",
            &[("speed", speed), ("angle", Value::Number(0.0))],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        if i == SPINNERS {
            data::insert(id, "Frozen", &[]).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

impl Script for SpinQuery {
    fn entrypoint() -> Self {
        let found = Query::new(&["Spin.speed"])
            .run()
            .unwrap_or_else(|e| panic!("{e}"));
        if found.ids.is_empty() {
            spawn_spinners();
        }
        script::task::spawn(async {
            let mut heard = script::events::listen(EventFilter::Message("Scored".into()));
            while let Some(Event::Message(message)) = heard.next().await {
                script::log::info(&format!("heard Scored {}", message.payload));
            }
        })
        .detach();
        script::update::subscribe();
        script::log::info("spin query started");
        SpinQuery { frames: 0 }
    }

    fn on_update(&mut self) {
        let step = script::game::resource_number("Time", "delta").unwrap_or_else(|e| panic!("{e}"));
        let rows = Query::new(&["Spin.speed", "Spin.angle"])
            .without(&["Frozen"])
            .run()
            .unwrap_or_else(|e| panic!("{e}"));
        let (speeds, angles) = (rows.numbers(0).unwrap(), rows.numbers(1).unwrap());
        let angles: Vec<f64> = (speeds.iter().zip(angles))
            .map(|(speed, angle)| angle + speed * step)
            .collect();
        let rotations: Vec<f32> = angles
            .iter()
            .flat_map(|&angle| Quat::from_rotation_y(angle as f32).to_array())
            .collect();
        query::write(
            &rows.ids,
            &["Spin.angle", "Transform.rotation"],
            vec![Column::Numbers(angles), Column::Quats(rotations)],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        self.frames += 1;
        if self.frames.is_multiple_of(SCORE_EVERY) {
            script::game::send_message("Scored", &[("points", Value::Integer(1))])
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

script::export!(SpinQuery);
