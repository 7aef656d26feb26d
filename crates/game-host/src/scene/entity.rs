//! What an entity is: its id, its name and its transform.

use glam::{Quat, Vec3};

/// Name of the entity the default scene starts with.
pub const CUBE: &str = "cube";

/// Translation, rotation and scale of an entity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Position in world units.
    pub position: Vec3,
    /// Unit quaternion.
    pub rotation: Quat,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        }
    }
}

/// One named object in the scene.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    /// Name given at spawn; need not be unique.
    pub name: String,
    /// Where it is.
    pub transform: Transform,
}

/// Index of an entity in creation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntityId(pub(super) u32);

impl EntityId {
    /// Position of the entity in creation order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl From<u32> for EntityId {
    fn from(index: u32) -> Self {
        EntityId(index)
    }
}
