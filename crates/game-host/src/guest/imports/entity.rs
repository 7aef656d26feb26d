//! `game:engine/entity`: one entity per call, by entity id, with flat
//! values. No resource handle is borrowed (wasmtime tracks each borrow for
//! the length of the call) and no list is copied, so this is the cheapest
//! way for a script to read or move an entity it keeps.

use crate::guest::ScriptState;
use crate::guest::bindings::entities::EntityId as WitEntityId;
use crate::guest::bindings::entity::Host;
use crate::guest::bindings::types::{Quat, Vec3};
use crate::scene::{EntityId, GameScene};
use crate::sync::LockExt;

use super::entities::unknown;

// Each call spells out its lock and its error: a shared helper taking a
// closure that answers `Option` cost 19 more instructions a kept-cube frame
// (callgrind, 3,914 against 3,895).
impl Host for ScriptState {
    fn position(&mut self, id: WitEntityId) -> wasmtime::Result<Vec3> {
        let position = self.scene.lock_unpoisoned().position(EntityId::from(id));
        Ok(position.ok_or_else(|| unknown("entity", id))?.into())
    }

    fn rotation(&mut self, id: WitEntityId) -> wasmtime::Result<Quat> {
        let rotation = self.scene.lock_unpoisoned().rotation(EntityId::from(id));
        Ok(rotation.ok_or_else(|| unknown("entity", id))?.into())
    }

    fn set_position(&mut self, id: WitEntityId, position: Vec3) -> wasmtime::Result<()> {
        self.may_write(EntityId::from(id))?;
        let set = self
            .scene
            .lock_unpoisoned()
            .set_position(EntityId::from(id), position.into());
        if set {
            Ok(())
        } else {
            Err(unknown("entity", id))
        }
    }

    fn set_rotation(&mut self, id: WitEntityId, rotation: Quat) -> wasmtime::Result<()> {
        self.may_write(EntityId::from(id))?;
        let set = self
            .scene
            .lock_unpoisoned()
            .set_rotation(EntityId::from(id), rotation.into());
        if set {
            Ok(())
        } else {
            Err(unknown("entity", id))
        }
    }
}
