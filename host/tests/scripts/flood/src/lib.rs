//! Test script: a flood of messages to players. Every frame it broadcasts
//! 100 messages of 60 KiB (6 MB a frame), the most the per-message and
//! per-frame message quotas let one script send.

use script::Script;

struct Flood {
    payload: String,
}

impl Script for Flood {
    fn entrypoint() -> Self {
        script::update::subscribe();
        Flood {
            payload: "x".repeat(60 << 10),
        }
    }

    fn on_update(&mut self) {
        for _ in 0..100 {
            script::players::broadcast("flood", &self.payload);
        }
    }
}

script::export!(Flood);
