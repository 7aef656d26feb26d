//! Runners: what decides *when* the runtime steps. The runtime runs one
//! frame per [`Runtime::step`](crate::runtime::Runtime::step); a runner
//! calls it as fast as possible for a fixed number of frames, or in real
//! time by the one [`Pacing`] policy, headless or in a window.

mod headless;
mod pacing;
mod window;

pub use headless::HeadlessRunner;
pub use pacing::{MAX_CATCH_UP_STEPS, Pacing};
pub use window::WindowRunner;
