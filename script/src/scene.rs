//! The scene shared by every script: named entities, each reached through
//! a [`TransformComponent`] handle (dropping a handle frees it on the host;
//! the entity stays). [`TransformExt`] gives glam-typed access.

use crate::bindings::game::engine::scene as wit_scene;
pub use crate::bindings::game::engine::scene::TransformComponent;
pub use crate::bindings::game::engine::types::{Quat, Vec3};
pub use crate::math::TransformExt;

/// The default scene's cube (the entity named `cube`).
pub fn cube() -> TransformComponent {
    wit_scene::cube_transform()
}

/// Creates an entity named `name` at the origin (identity rotation, unit
/// scale). Names need not be unique.
pub fn spawn(name: &str) -> TransformComponent {
    wit_scene::spawn(name)
}

/// The first entity (in creation order) named `name`, if any.
pub fn find(name: &str) -> Option<TransformComponent> {
    wit_scene::find(name)
}
