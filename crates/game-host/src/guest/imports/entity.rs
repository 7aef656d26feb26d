//! `game:engine/entity`: one entity per call, by entity id, with flat
//! values. No resource handle is borrowed (wasmtime tracks each borrow for
//! the length of the call) and no list is copied, so this is the cheapest
//! way for a script to read or move an entity it keeps.

use crate::guest::ScriptState;
use crate::guest::bindings::entities::EntityId as WitEntityId;
use crate::guest::bindings::entity::Host;
use crate::guest::bindings::types::{Quat, Vec3};
use crate::sync::LockExt;

use super::entities::{transform, transform_mut};

impl Host for ScriptState {
    fn position(&mut self, id: WitEntityId) -> wasmtime::Result<Vec3> {
        Ok(transform(&self.scene.lock_unpoisoned(), "entity", id)?
            .position
            .into())
    }

    fn rotation(&mut self, id: WitEntityId) -> wasmtime::Result<Quat> {
        Ok(transform(&self.scene.lock_unpoisoned(), "entity", id)?
            .rotation
            .into())
    }

    fn set_position(&mut self, id: WitEntityId, position: Vec3) -> wasmtime::Result<()> {
        transform_mut(&mut self.scene.lock_unpoisoned(), "entity", id)?.position = position.into();
        Ok(())
    }

    fn set_rotation(&mut self, id: WitEntityId, rotation: Quat) -> wasmtime::Result<()> {
        transform_mut(&mut self.scene.lock_unpoisoned(), "entity", id)?.rotation = rotation.into();
        Ok(())
    }
}
