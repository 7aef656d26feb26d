//! `game:engine/lifetime`: despawning entities, and asking whether an id
//! still names one.

use crate::guest::ScriptState;
use crate::guest::bindings::lifetime::Host;
use crate::guest::bindings::scene::EntityId as WitEntityId;
use crate::scene::{EntityId, GameScene};
use crate::sync::LockExt;

impl Host for ScriptState {
    fn despawn(&mut self, id: WitEntityId) -> wasmtime::Result<bool> {
        self.may_write(EntityId::from(id))?;
        Ok(self.scene.lock_unpoisoned().despawn(EntityId::from(id)))
    }

    fn exists(&mut self, id: WitEntityId) -> wasmtime::Result<bool> {
        Ok(self.scene.lock_unpoisoned().contains(EntityId::from(id)))
    }
}
