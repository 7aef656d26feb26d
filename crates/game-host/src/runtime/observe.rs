//! [`RunObserver`]: what a recorder sees of a run, without the runtime
//! knowing about files or formats.

use crate::input::Event;
use crate::players::PlayerEvent;
use crate::scene::GameScene;

/// Watches a run for what a recording needs: every event from outside the
/// scripts (keys, `--input`, a server's POSTed events, players) with the frame it is
/// due in, and the scene after every frame. Set with
/// [`Runtime::observe`](super::Runtime::observe).
pub trait RunObserver: Send {
    /// An event from outside was queued for delivery at the start of
    /// `frame`.
    fn input(&mut self, frame: u64, event: &Event);

    /// A player event was queued for the start of `frame`.
    fn player(&mut self, frame: u64, event: &PlayerEvent);

    /// Frame `frame` ran; `scene` is as it left it.
    fn stepped(&mut self, frame: u64, scene: &mut dyn GameScene);

    /// The run ended after `frame` (0: before any frame): write what is
    /// left, and say whether everything was written.
    fn finish(&mut self, frame: u64, scene: &mut dyn GameScene) -> anyhow::Result<()>;
}
