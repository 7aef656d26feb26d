//! `game:engine/relative`: moves and turns that combine. Two scripts that
//! each turn one entity in a frame both turn it: the changes are applied in
//! the frame's call order, on what earlier calls left (`guest::pending`),
//! where `entity.set-rotation` would keep only the later value.

use crate::guest::ScriptState;
use crate::guest::bindings::relative::Host;
use crate::guest::bindings::scene::EntityId as WitEntityId;
use crate::guest::bindings::types::{Quat, Vec3};
use crate::guest::store::view::Nudge;
use crate::scene::EntityId;

use super::entities::unknown;

impl ScriptState {
    fn nudge(&mut self, id: WitEntityId, nudge: Nudge) -> wasmtime::Result<()> {
        let writable = self.may_write(EntityId::from(id))?;
        if self.nudge_entity(writable, nudge) {
            Ok(())
        } else {
            Err(unknown("relative", id))
        }
    }
}

impl Host for ScriptState {
    fn translate(&mut self, id: WitEntityId, offset: Vec3) -> wasmtime::Result<()> {
        self.nudge(id, Nudge::Translate(offset.into()))
    }

    fn rotate(&mut self, id: WitEntityId, delta: Quat) -> wasmtime::Result<()> {
        self.nudge(id, Nudge::Rotate(delta.into()))
    }
}
