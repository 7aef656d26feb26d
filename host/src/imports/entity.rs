//! `game:engine/entity`: one entity per call, by entity id, with flat
//! values. No resource handle is borrowed (wasmtime tracks each borrow for
//! the length of the call) and no list is copied, so this is the cheapest
//! way for a script to read or move an entity it keeps.

use crate::bindings::entities::EntityId as WitEntityId;
use crate::bindings::entity::Host;
use crate::bindings::types::{Quat, Vec3};
use crate::scene::{EntityId, Transform};
use crate::state::ScriptState;
use crate::sync::LockExt;

use super::entities::unknown;

impl ScriptState {
    /// Reads `get` of entity `id`, failing the call for an unknown id.
    fn read_entity<R>(
        &self,
        id: WitEntityId,
        get: impl FnOnce(&Transform) -> R,
    ) -> wasmtime::Result<R> {
        let scene = self.scene.lock_unpoisoned();
        scene
            .transform(EntityId::from(id))
            .map(get)
            .ok_or_else(|| unknown("entity", id))
    }

    /// Applies `set` to entity `id`, failing the call for an unknown id.
    fn write_entity(
        &self,
        id: WitEntityId,
        set: impl FnOnce(&mut Transform),
    ) -> wasmtime::Result<()> {
        let mut scene = self.scene.lock_unpoisoned();
        scene
            .transform_mut(EntityId::from(id))
            .map(set)
            .ok_or_else(|| unknown("entity", id))
    }
}

impl Host for ScriptState {
    fn position(&mut self, id: WitEntityId) -> wasmtime::Result<Vec3> {
        self.read_entity(id, |t| t.position.into())
    }

    fn rotation(&mut self, id: WitEntityId) -> wasmtime::Result<Quat> {
        self.read_entity(id, |t| t.rotation.into())
    }

    fn set_position(&mut self, id: WitEntityId, position: Vec3) -> wasmtime::Result<()> {
        self.write_entity(id, |t| t.position = position.into())
    }

    fn set_rotation(&mut self, id: WitEntityId, rotation: Quat) -> wasmtime::Result<()> {
        self.write_entity(id, |t| t.rotation = rotation.into())
    }
}
