//! Test script: every instance writes one shared entity (`shared`, spawned
//! by whichever instance starts first), spawns and despawns entities of its
//! own, and messages the others, for the parallel-frame tests: the scene
//! must end the same whatever the number of threads.
//!
//! Each frame it moves `shared` to a position naming itself and turns it a
//! little; every 10 frames it sends its id on `ping`; every message it gets
//! moves its own entity along x; every 25 frames an instance whose id is
//! even despawns its entity and spawns a new one.

use std::cell::Cell;
use std::rc::Rc;

use script::Script;
use script::events::{Event, EventFilter};
use script::futures::StreamExt;
use script::glam::{Quat, Vec3};
use script::scene::{TransformComponent, TransformExt};

struct Shared {
    own: TransformComponent,
    shared: TransformComponent,
    heard: Rc<Cell<f32>>,
}

impl Script for Shared {
    fn entrypoint() -> Self {
        script::update::subscribe();
        let own = script::scene::spawn("peer");
        let shared =
            script::scene::find("shared").unwrap_or_else(|| script::scene::spawn("shared"));
        let heard = Rc::new(Cell::new(0.0));
        let inbox = heard.clone();
        script::task::spawn(async move {
            let mut pings = script::events::listen(EventFilter::Message("ping".into()));
            while let Some(event) = pings.next().await {
                if let Event::Message(message) = event {
                    let from: f32 = message.payload.parse().unwrap_or(0.0);
                    inbox.set(inbox.get() + from * 0.001);
                }
            }
        })
        .detach();
        Shared { own, shared, heard }
    }

    fn on_update(&mut self) {
        let frame = script::time::frame();
        let me = self.own.id();
        self.shared
            .set_translation(Vec3::new(me as f32, frame as f32, 0.0));
        self.shared.rotate(Quat::from_rotation_z(0.01));
        self.own
            .set_translation(Vec3::new(self.heard.get(), frame as f32, 0.0));
        if frame.is_multiple_of(10) {
            script::events::send("ping", &me.to_string());
        }
        if frame.is_multiple_of(25) && me.is_multiple_of(2) {
            script::scene::despawn(me);
            self.own = script::scene::spawn("peer");
        }
    }
}

script::export!(Shared);
