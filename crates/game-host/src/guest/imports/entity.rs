//! `game:engine/entity`: one entity per call, by entity id, with flat
//! values. No resource handle is borrowed (wasmtime tracks each borrow for
//! the length of the call) and no list is copied, so this is the cheapest
//! way for a script to read or move an entity it keeps.

use crate::guest::ScriptState;
use crate::guest::bindings::entities::EntityId as WitEntityId;
use crate::guest::bindings::entity::Host;
use crate::guest::bindings::types::{Quat, Vec3};
use crate::guest::pending::{Fields, POSITION, ROTATION};
use crate::scene::{EntityId, Transform};

use super::entities::unknown;

impl ScriptState {
    /// The transform of entity `id`, or the error naming it.
    #[inline]
    fn entity(&mut self, id: WitEntityId) -> wasmtime::Result<Transform> {
        let readable = self.may_read(EntityId::from(id))?;
        self.entity_transform(readable)
            .ok_or_else(|| unknown("entity", id))
    }

    /// Writes `fields` of entity `id` from `value`, if the grants allow.
    #[inline]
    fn set_entity(
        &mut self,
        id: WitEntityId,
        fields: Fields,
        value: Transform,
    ) -> wasmtime::Result<()> {
        let writable = self.may_write(EntityId::from(id))?;
        if self.write_entity(writable, fields, value) {
            Ok(())
        } else {
            Err(unknown("entity", id))
        }
    }
}

impl Host for ScriptState {
    fn position(&mut self, id: WitEntityId) -> wasmtime::Result<Vec3> {
        Ok(self.entity(id)?.position.into())
    }

    fn rotation(&mut self, id: WitEntityId) -> wasmtime::Result<Quat> {
        Ok(self.entity(id)?.rotation.into())
    }

    fn set_position(&mut self, id: WitEntityId, position: Vec3) -> wasmtime::Result<()> {
        let value = Transform {
            position: position.into(),
            ..Transform::default()
        };
        self.set_entity(id, POSITION, value)
    }

    fn set_rotation(&mut self, id: WitEntityId, rotation: Quat) -> wasmtime::Result<()> {
        let value = Transform {
            rotation: rotation.into(),
            ..Transform::default()
        };
        self.set_entity(id, ROTATION, value)
    }
}
