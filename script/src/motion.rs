//! Host-driven movement.

use std::future::Future;

use crate::bindings::game::engine::motion;
use crate::scene::TransformComponent;
use crate::wait::HostWait;

/// Moves `entity` toward `target` at `speed` units per second (the host
/// steps it at the start of each frame) and completes on arrival. Dropping
/// the future stops the entity where it is.
pub fn move_to(
    entity: &TransformComponent,
    target: glam::Vec3,
    speed: f32,
) -> impl Future<Output = ()> + '_ {
    let wait =
        HostWait::once(move |token| motion::move_to(token, entity.handle(), target.into(), speed));
    async move {
        wait.await;
    }
}
