//! [`TransformHandle`]: what a script's `transform-component` resource is on
//! the host. A domain type, below the bindings, so `bindgen!`'s `with:`
//! points down the layers.

use super::entity::EntityId;

/// Host side of a `transform-component`: which entity it points at.
#[derive(Debug, Clone, Copy)]
pub struct TransformHandle {
    entity: EntityId,
}

impl TransformHandle {
    /// A handle to `entity`.
    pub fn new(entity: EntityId) -> Self {
        TransformHandle { entity }
    }

    /// The entity this handle points at.
    pub fn entity(&self) -> EntityId {
        self.entity
    }
}
