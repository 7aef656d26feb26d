//! Test script: logs what reaches it from players. Every player event it
//! is given goes to its log (`joined 7`, `key 7 Enter`, `message 7 chat:
//! gg`), and so does every message its ordinary wait on the `admin`
//! channel gets (`admin: PAYLOAD`), so a test sees which of players' input
//! reaches which wait under which grants.

use script::Script;
use script::events::{self, Event, EventFilter};
use script::futures::StreamExt;
use script::players::{self, PlayerEvent};

struct Probe;

impl Script for Probe {
    fn entrypoint() -> Self {
        script::task::spawn(async {
            let mut events = players::events();
            while let Some(event) = events.next().await {
                let line = match event {
                    PlayerEvent::Joined(player) => format!("joined {player}"),
                    PlayerEvent::Left(player) => format!("left {player}"),
                    PlayerEvent::Input(input) => match input.event {
                        Event::KeyPressed(key) | Event::KeyReleased(key) => {
                            format!("key {} {key:?}", input.player)
                        }
                        Event::Message(m) => {
                            format!("message {} {}: {}", input.player, m.channel, m.payload)
                        }
                    },
                };
                script::log::info(&line);
            }
        })
        .detach();
        script::task::spawn(async {
            loop {
                if let Event::Message(m) =
                    events::wait_event(EventFilter::Message("admin".into())).await
                {
                    script::log::info(&format!("admin: {}", m.payload));
                }
            }
        })
        .detach();
        Probe
    }
}

script::export!(Probe);
