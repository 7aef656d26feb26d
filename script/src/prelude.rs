//! What most scripts use, for `use script::prelude::*;`: the [`Script`]
//! trait, transform and event types, glam's vector and quaternion, the task
//! handle, and the future and stream combinators.

pub use crate::Script;
pub use crate::events::{Event, EventFilter, Key};
pub use crate::scene::{TransformComponent, TransformExt};
pub use crate::task::Task;
pub use futures::{FutureExt, StreamExt, join, select};
pub use glam::{Quat, Vec3};
