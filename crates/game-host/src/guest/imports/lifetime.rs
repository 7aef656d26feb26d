//! `game:engine/lifetime`: despawning entities, and asking whether an id
//! still names one.

use crate::guest::ScriptState;
use crate::guest::bindings::lifetime::Host;
use crate::guest::bindings::scene::EntityId as WitEntityId;
use crate::scene::EntityId;

impl Host for ScriptState {
    fn despawn(&mut self, id: WitEntityId) -> wasmtime::Result<bool> {
        let writable = self.may_write(EntityId::from(id))?;
        Ok(self.despawn_entity(writable))
    }

    fn exists(&mut self, id: WitEntityId) -> wasmtime::Result<bool> {
        Ok(self.entity_exists(EntityId::from(id)))
    }
}
