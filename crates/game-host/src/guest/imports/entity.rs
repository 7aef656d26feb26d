//! `game:engine/entity`: one entity per call, by entity id, with flat
//! values. No resource handle is borrowed (wasmtime tracks each borrow for
//! the length of the call) and no list is copied, so this is the cheapest
//! way for a script to read or move an entity it keeps.

use crate::guest::ScriptState;
use crate::guest::bindings::entities::EntityId as WitEntityId;
use crate::guest::bindings::entity::Host;
use crate::guest::bindings::types::{Quat, Vec3};
use crate::guest::pending::{POSITION, ROTATION};
use crate::scene::{EntityId, Transform};

use super::entities::unknown;

impl Host for ScriptState {
    fn position(&mut self, id: WitEntityId) -> wasmtime::Result<Vec3> {
        let transform = self.entity_transform(EntityId::from(id));
        Ok(transform
            .ok_or_else(|| unknown("entity", id))?
            .position
            .into())
    }

    fn rotation(&mut self, id: WitEntityId) -> wasmtime::Result<Quat> {
        let transform = self.entity_transform(EntityId::from(id));
        Ok(transform
            .ok_or_else(|| unknown("entity", id))?
            .rotation
            .into())
    }

    fn set_position(&mut self, id: WitEntityId, position: Vec3) -> wasmtime::Result<()> {
        let entity = EntityId::from(id);
        self.may_write(entity)?;
        let value = Transform {
            position: position.into(),
            ..Transform::default()
        };
        if self.write_entity(entity, POSITION, value) {
            Ok(())
        } else {
            Err(unknown("entity", id))
        }
    }

    fn set_rotation(&mut self, id: WitEntityId, rotation: Quat) -> wasmtime::Result<()> {
        let entity = EntityId::from(id);
        self.may_write(entity)?;
        let value = Transform {
            rotation: rotation.into(),
            ..Transform::default()
        };
        if self.write_entity(entity, ROTATION, value) {
            Ok(())
        } else {
            Err(unknown("entity", id))
        }
    }
}
